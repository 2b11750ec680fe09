/* test_linalg.c -- matrices: double vs MPFR, precision ladders, edge cases.
 *
 * Notation: u = 2^-53, v = 2^-p; |A| is the entrywise absolute value;
 * N = number of entries, k = inner dimension, n = order.  Differences are
 * measured exactly (1024-bit MPFR).  Bounds checked:
 *  (a) double vs MPFR-256 (MPFR-256 error is negligible against u):
 *      mul            |Cd - Cm| <= (k+2) u (|A||B|)          (gamma_k)
 *      add/sub/hadamard/scale/axpy   <= u |ref|  (one rounding)
 *      exp            <= 2u |ref|                              (glibc < 1 ulp)
 *      transpose/blocks/min/max/min_abs/max_abs: exact
 *      softmax        <= (n + 4 + 2R) u S, R = max_j |c_j - max| of the row
 *      gauss_logits   <= (d + 4) u |C|
 *      frob           <= 2 (N + 2) u |A|_F;  dot/sum <= u|r| + 2 (N u)^2 sum|terms|
 *      svals          |sd - sm| <= 10 max(r,c) k u s_1  (backward stable SVD + Weyl)
 *      symeig         |wd - wm| <= 10 n u |A|_F
 *      solve          |xd - xm|_inf <= 10 n kappa_2(A) u |xm|_inf
 *  (b) MPFR p vs p+30 on p-bit inputs (p = 64, 128, 256):
 *      mul/sum (correctly rounded)        <= v' |ref|,  v' = v (1 + 2^-29)
 *      dot(A, exp(A)) (exp(A) rounded differently at the two precisions)
 *                                         <= v' |ref| + v' sum |a e|
 *      frob/gauss_logits (one final rounding after p+32-bit work) <= 2 v |ref|
 *      softmax <= 3 v S;  exp <= v' |ref|
 *      svals   <= v s_i + 2^-16 v s_1;  symeig <= v |w| + 2^-16 v |A|_F
 *      solve   <= v |x| + 2^-16 n kappa v |x|_inf
 *  (c) softmax of logits +-1e4 (and +-1e300 in double): finite, rows sum
 *      to 1 within n u (n v), entries within (n + 4) u ((n + 4) v) relative
 *      of the exact 1024-bit value; in double, exact values below 2^-1000
 *      (e.g. e^-20000) need only be within 2^-1000 absolutely.
 *  (d) frob of entries ~1e-200, 1e+200 and subnormals: within 2 (N+2) u.
 *  (e) SVD: |A - U diag(s) V^T|_F <= 10 max(r,c) k u |A|_F, |U^T U - I|,
 *      |V^T V - I| <= 10 max(r,c) k u, s descending, for tall/wide/square,
 *      1x1, vectors and empty shapes, in both backends.
 */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>

#include "lm_mat.h"
#include "lm_rng.h"

#define U53 0x1p-53
#define VP(p) (ldexp(1.0, -(int)(p)) * (1 + 0x1p-29))

/* ---- helpers ----------------------------------------------------------- */

static lm_mat *rand_mat(int r, int c, const lm_ctx *ctx, uint64_t key, double s)
{
    lm_rng g;
    lm_rng_init(&g, key);
    lm_mat *A = lm_mat_new(r, c, ctx);
    for (int i = 0; i < r; i++)
        for (int j = 0; j < c; j++) lm_mat_set_d(A, i, j, s * lm_rng_normal(&g));
    return A;
}

/* a matrix at p bits whose entries use all p bits */
static lm_mat *rand_pbits(int r, int c, mpfr_prec_t p, uint64_t key, double s)
{
    lm_ctx ctx = lm_ctx_mpfr(p);
    lm_rng g;
    lm_rng_init(&g, key);
    lm_mat *A = lm_mat_new(r, c, &ctx);
    for (int i = 0; i < r * c; i++) {
        mpfr_set_d(A->m[i], s * lm_rng_normal(&g), MPFR_RNDN);
        for (int k = 1; k * 50 < (int)p + 50; k++)
            mpfr_add_d(A->m[i], A->m[i], ldexp(s * lm_rng_normal(&g), -50 * k), MPFR_RNDN);
    }
    return A;
}

static lm_mat *convert(const lm_mat *A, const lm_ctx *ctx)
{
    lm_mat *B = lm_mat_new(A->r, A->c, ctx);
    lm_mat_copy(B, A);
    return B;
}

static void num_to_mp(mpfr_ptr x, const lm_num *a)
{
    if (a->mp) mpfr_set(x, a->m, MPFR_RNDN);
    else mpfr_set_d(x, a->d, MPFR_RNDN);
}

static void el_to_mp(mpfr_ptr x, const lm_mat *A, int i, int j)
{
    if (A->mp) mpfr_set(x, A->m[i * A->c + j], MPFR_RNDN);
    else mpfr_set_d(x, A->d[i * A->c + j], MPFR_RNDN);
}

/* |x - y| (and |x - y| / |y|) computed in 1024 bits */
static double mp_dist(mpfr_srcptr x, mpfr_srcptr y, int rel)
{
    mpfr_t t;
    mpfr_init2(t, 1024);
    mpfr_sub(t, x, y, MPFR_RNDN);
    mpfr_abs(t, t, MPFR_RNDN);
    if (rel && !mpfr_zero_p(y)) mpfr_div(t, t, y, MPFR_RNDN), mpfr_abs(t, t, MPFR_RNDN);
    double r = mpfr_get_d(t, MPFR_RNDU);
    mpfr_clear(t);
    return r;
}

static double el_dist(const lm_mat *X, int i, int j, const lm_mat *Y, int rel)
{
    mpfr_t x, y;
    mpfr_inits2(1024, x, y, (mpfr_ptr)0);
    el_to_mp(x, X, i, j);
    el_to_mp(y, Y, i, j);
    double r = mp_dist(x, y, rel);
    mpfr_clears(x, y, (mpfr_ptr)0);
    return r;
}

static double num_dist(const lm_num *a, const lm_num *b, int rel)
{
    mpfr_t x, y;
    mpfr_inits2(1024, x, y, (mpfr_ptr)0);
    num_to_mp(x, a);
    num_to_mp(y, b);
    double r = mp_dist(x, y, rel);
    mpfr_clears(x, y, (mpfr_ptr)0);
    return r;
}

static double aget(const lm_mat *A, int i, int j)
{
    return fabs(lm_mat_get_d(A, i, j));
}

/* every entry: |X - Y| <= c |Y| (+ floor) */
static void assert_rel(const lm_mat *X, const lm_mat *Y, double c, double floor_, const char *what)
{
    cr_assert(X->r == Y->r && X->c == Y->c, "%s: shape", what);
    for (int i = 0; i < X->r; i++)
        for (int j = 0; j < X->c; j++) {
            double e = el_dist(X, i, j, Y, 0), b = c * aget(Y, i, j) + floor_;
            cr_assert(e <= b, "%s (%d,%d): error %g > bound %g (ref %.17g)", what, i, j, e, b,
                      lm_mat_get_d(Y, i, j));
        }
}

static lm_mat *abs_mat(const lm_mat *A)
{
    lm_mat *B = lm_mat_dup(A);
    for (int i = 0; i < A->r * A->c; i++) {
        if (B->mp) mpfr_abs(B->m[i], B->m[i], MPFR_RNDN);
        else B->d[i] = fabs(B->d[i]);
    }
    return B;
}

static double frob_d(const lm_mat *A)
{
    lm_ctx d = lm_ctx_double();
    lm_num f;
    lm_num_init(&f, &d);
    lm_mat_frob(&f, A);
    return f.d;
}

/* max |M - I| over entries */
static double dist_identity(const lm_mat *M)
{
    double e = 0;
    for (int i = 0; i < M->r; i++)
        for (int j = 0; j < M->c; j++) e = fmax(e, fabs(lm_mat_get_d(M, i, j) - (i == j)));
    return e;
}

/* ---- (a) double vs MPFR-256 -------------------------------------------- */

Test(linalg, mul_double_vs_mpfr)
{
    lm_ctx cd = lm_ctx_double(), cm = lm_ctx_mpfr(256);
    const int m = 7, k = 5, n = 6;
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            lm_mat *Ad = rand_mat(ta ? k : m, ta ? m : k, &cd, 1 + ta, 1.0);
            lm_mat *Bd = rand_mat(tb ? n : k, tb ? k : n, &cd, 3 + tb, 1.0);
            lm_mat *Am = convert(Ad, &cm), *Bm = convert(Bd, &cm);
            lm_mat *Cd = lm_mat_new(m, n, &cd), *Cm = lm_mat_new(m, n, &cm), *Mm = lm_mat_new(m, n, &cm);
            lm_mat *aA = abs_mat(Am), *aB = abs_mat(Bm);
            lm_mat_mul(Cd, Ad, ta, Bd, tb);
            lm_mat_mul(Cm, Am, ta, Bm, tb);
            lm_mat_mul(Mm, aA, ta, aB, tb);
            for (int i = 0; i < m; i++)
                for (int j = 0; j < n; j++)
                    cr_assert(el_dist(Cd, i, j, Cm, 0) <= (k + 2) * U53 * aget(Mm, i, j), "mul ta=%d tb=%d", ta, tb);
            lm_mat *ms[] = { Ad, Bd, Am, Bm, Cd, Cm, Mm, aA, aB };
            for (int q = 0; q < 9; q++) lm_mat_free(ms[q]);
        }
}

Test(linalg, mul_degenerate_shapes)
{
    lm_ctx ctxs[2] = { lm_ctx_double(), lm_ctx_mpfr(128) };
    for (int b = 0; b < 2; b++) {
        lm_mat *A = lm_mat_new(3, 0, &ctxs[b]), *B = lm_mat_new(0, 2, &ctxs[b]), *C = lm_mat_new(3, 2, &ctxs[b]);
        lm_mat_set_d(C, 1, 1, 5.0);
        lm_mat_mul(C, A, 0, B, 0); /* empty inner dimension: C = 0 */
        for (int i = 0; i < 6; i++) cr_assert_eq(lm_mat_get_d(C, i / 2, i % 2), 0.0);
        lm_mat *E = lm_mat_new(0, 3, &ctxs[b]), *F = lm_mat_new(0, 2, &ctxs[b]);
        lm_mat_mul(F, E, 0, C, 0);
        lm_mat *x = rand_mat(1, 4, &ctxs[b], 9, 1.0), *s = lm_mat_new(1, 1, &ctxs[b]);
        lm_mat_mul(s, x, 0, x, 1); /* 1x1 result */
        lm_num f;
        lm_num_init(&f, &ctxs[b]);
        lm_mat_frob(&f, x);
        cr_assert(fabs(lm_mat_get_d(s, 0, 0) - lm_num_get_d(&f) * lm_num_get_d(&f)) <= 8 * U53 * lm_mat_get_d(s, 0, 0));
        lm_num_clear(&f);
        lm_mat *ms[] = { A, B, C, E, F, x, s };
        for (int q = 0; q < 7; q++) lm_mat_free(ms[q]);
    }
}

Test(linalg, elementwise_double_vs_mpfr)
{
    lm_ctx cd = lm_ctx_double(), cm = lm_ctx_mpfr(256);
    lm_mat *Ad = rand_mat(5, 7, &cd, 10, 2.0), *Bd = rand_mat(5, 7, &cd, 11, 2.0);
    lm_mat *Am = convert(Ad, &cm), *Bm = convert(Bd, &cm);
    lm_mat *Cd = lm_mat_new(5, 7, &cd), *Cm = lm_mat_new(5, 7, &cm);
    lm_num sd, sm;
    lm_num_init(&sd, &cd);
    lm_num_init(&sm, &cm);
    lm_num_set_d(&sd, -0.3);
    lm_num_set_d(&sm, -0.3);

    lm_mat_add(Cd, Ad, Bd), lm_mat_add(Cm, Am, Bm);
    assert_rel(Cd, Cm, U53, 0, "add");
    lm_mat_sub(Cd, Ad, Bd), lm_mat_sub(Cm, Am, Bm);
    assert_rel(Cd, Cm, U53, 0, "sub");
    lm_mat_hadamard(Cd, Ad, Bd), lm_mat_hadamard(Cm, Am, Bm);
    assert_rel(Cd, Cm, U53, 0, "hadamard");
    lm_mat_scale(Cd, Ad, &sd), lm_mat_scale(Cm, Am, &sm);
    assert_rel(Cd, Cm, U53, 0, "scale");
    lm_mat_scale_d(Cd, Ad, 1.7), lm_mat_scale_d(Cm, Am, 1.7);
    assert_rel(Cd, Cm, U53, 0, "scale_d");
    lm_mat_exp(Cd, Ad), lm_mat_exp(Cm, Am);
    assert_rel(Cd, Cm, 2 * U53, 0, "exp");
    lm_mat_copy(Cd, Bd), lm_mat_copy(Cm, Bm);
    lm_mat_axpy(Cd, &sd, Ad), lm_mat_axpy(Cm, &sm, Am);
    assert_rel(Cd, Cm, U53, 0, "axpy");
    lm_mat_copy(Cd, Bd), lm_mat_copy(Cm, Bm);
    lm_mat_axpy_d(Cd, 0.7, Ad), lm_mat_axpy_d(Cm, 0.7, Am);
    assert_rel(Cd, Cm, U53, 0, "axpy_d");
    /* aliasing allowed for add/sub/scale/hadamard/exp */
    lm_mat_copy(Cd, Ad), lm_mat_copy(Cm, Am);
    lm_mat_add(Cd, Cd, Bd), lm_mat_add(Cm, Cm, Bm);
    lm_mat_hadamard(Cd, Cd, Cd), lm_mat_hadamard(Cm, Cm, Cm);
    assert_rel(Cd, Cm, 3 * U53, 0, "aliased add+square");

    /* transpose and blocks are exact */
    lm_mat *Td = lm_mat_new(7, 5, &cd), *Tm = lm_mat_new(7, 5, &cm);
    lm_mat_transpose(Td, Ad), lm_mat_transpose(Tm, Am);
    assert_rel(Td, Tm, 0, 0, "transpose");
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 7; j++) cr_assert_eq(lm_mat_get_d(Td, j, i), lm_mat_get_d(Ad, i, j));
    lm_mat *Gd = lm_mat_new(2, 3, &cd), *Gm = lm_mat_new(2, 3, &cm);
    lm_mat_get_block(Gd, Ad, 3, 4), lm_mat_get_block(Gm, Am, 3, 4);
    assert_rel(Gd, Gm, 0, 0, "get_block");
    cr_assert_eq(lm_mat_get_d(Gd, 1, 2), lm_mat_get_d(Ad, 4, 6));
    lm_mat_set_block(Bd, 0, 1, Gd), lm_mat_set_block(Bm, 0, 1, Gm);
    assert_rel(Bd, Bm, 0, 0, "set_block");
    cr_assert_eq(lm_mat_get_d(Bd, 1, 3), lm_mat_get_d(Ad, 4, 6));
    lm_mat_set_block(Bm, 2, 2, Gd); /* a double block into an MPFR matrix */
    cr_assert_eq(lm_mat_get_d(Bm, 3, 4), lm_mat_get_d(Ad, 4, 6));

    lm_num_clear(&sd);
    lm_num_clear(&sm);
    lm_mat *ms[] = { Ad, Bd, Am, Bm, Cd, Cm, Td, Tm, Gd, Gm };
    for (int q = 0; q < 10; q++) lm_mat_free(ms[q]);
}

/* row-wise R = max_j |c_j - max c| */
static double row_spread(const lm_mat *C, int i)
{
    double mx = -INFINITY, mn = INFINITY;
    for (int j = 0; j < C->c; j++) {
        mx = fmax(mx, lm_mat_get_d(C, i, j));
        mn = fmin(mn, lm_mat_get_d(C, i, j));
    }
    return mx - mn;
}

Test(linalg, softmax_gauss_double_vs_mpfr)
{
    lm_ctx cd = lm_ctx_double(), cm = lm_ctx_mpfr(256);
    const int n = 9, d = 4;
    lm_mat *Cd = rand_mat(6, n, &cd, 20, 3.0), *Cm = convert(Cd, &cm);
    lm_mat *Sd = lm_mat_new(6, n, &cd), *Sm = lm_mat_new(6, n, &cm);
    lm_mat_softmax_rows(Sd, Cd), lm_mat_softmax_rows(Sm, Cm);
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < n; j++) {
            double b = (n + 4 + 2 * row_spread(Cd, i)) * U53 * aget(Sm, i, j);
            cr_assert(el_dist(Sd, i, j, Sm, 0) <= b, "softmax (%d,%d)", i, j);
        }
    lm_mat_softmax_rows(Cm, Cm); /* in place */
    assert_rel(Cm, Sm, 0, 0, "softmax in place");

    lm_mat *Qd = rand_mat(5, d, &cd, 21, 1.0), *Kd = rand_mat(7, d, &cd, 22, 1.0);
    lm_mat_set_d(Qd, 0, 0, 1e8), lm_mat_set_d(Kd, 0, 0, 1e8 + 1); /* nearby large vectors */
    lm_mat *Qm = convert(Qd, &cm), *Km = convert(Kd, &cm);
    lm_mat *Gd = lm_mat_new(5, 7, &cd), *Gm = lm_mat_new(5, 7, &cm);
    lm_num sd, sm;
    lm_num_init(&sd, &cd), lm_num_init(&sm, &cm);
    lm_num_set_d(&sd, 2.5), lm_num_set_d(&sm, 2.5);
    lm_mat_gauss_logits(Gd, Qd, Kd, &sd), lm_mat_gauss_logits(Gm, Qm, Km, &sm);
    assert_rel(Gd, Gm, (d + 4) * U53, 0, "gauss_logits");
    cr_assert(lm_mat_get_d(Gm, 0, 0) < 0 && lm_mat_get_d(Gm, 0, 0) > -1e3, "difference formed first");
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 7; j++) cr_assert(lm_mat_get_d(Gd, i, j) <= 0);
    lm_num_clear(&sd), lm_num_clear(&sm);
    lm_mat *ms[] = { Cd, Cm, Sd, Sm, Qd, Kd, Qm, Km, Gd, Gm };
    for (int q = 0; q < 10; q++) lm_mat_free(ms[q]);
}

Test(linalg, reductions_double_vs_mpfr)
{
    lm_ctx cd = lm_ctx_double(), cm = lm_ctx_mpfr(256);
    const int r = 8, c = 9, N = r * c;
    lm_mat *Ad = rand_mat(r, c, &cd, 30, 1.0), *Bd = rand_mat(r, c, &cd, 31, 1.0);
    lm_mat_set_d(Ad, 2, 3, 1e10), lm_mat_set_d(Ad, 5, 5, -1e10 + 0.5); /* cancellation in sum */
    lm_mat *Am = convert(Ad, &cm), *Bm = convert(Bd, &cm), *aA = abs_mat(Am), *aAB = lm_mat_new(r, c, &cm);
    lm_mat_hadamard(aAB, Am, Bm);
    lm_mat *tmp = abs_mat(aAB);
    lm_num xd, xm, s1;
    lm_num_init(&xd, &cd), lm_num_init(&xm, &cm), lm_num_init(&s1, &cm);
    double g2 = 2 * (N * U53) * (N * U53);

    lm_mat_frob(&xd, Ad), lm_mat_frob(&xm, Am);
    cr_assert(num_dist(&xd, &xm, 0) <= 2 * (N + 2) * U53 * lm_num_get_d(&xm), "frob");
    lm_mat_sum(&xd, Ad), lm_mat_sum(&xm, Am), lm_mat_sum(&s1, aA);
    cr_assert(num_dist(&xd, &xm, 0) <= U53 * fabs(lm_num_get_d(&xm)) + g2 * lm_num_get_d(&s1), "sum");
    lm_mat_dot(&xd, Ad, Bd), lm_mat_dot(&xm, Am, Bm), lm_mat_sum(&s1, tmp);
    cr_assert(num_dist(&xd, &xm, 0) <= U53 * fabs(lm_num_get_d(&xm)) + g2 * lm_num_get_d(&s1), "dot");

    void (*ext[4])(lm_num *, const lm_mat *) = { lm_mat_min, lm_mat_max, lm_mat_min_abs, lm_mat_max_abs };
    for (int q = 0; q < 4; q++) {
        ext[q](&xd, Ad), ext[q](&xm, Am);
        cr_assert_eq(num_dist(&xd, &xm, 0), 0.0, "extreme %d", q);
    }
    lm_mat_max(&xd, Ad);
    cr_assert_eq(xd.d, 1e10);
    lm_mat_min(&xm, Am);
    cr_assert_eq(lm_num_get_d(&xm), -1e10 + 0.5);
    lm_mat_max_abs(&xm, Am);
    cr_assert_eq(lm_num_get_d(&xm), 1e10);
    cr_assert(lm_mat_isfinite(Ad) && lm_mat_isfinite(Am));
    lm_mat_set_d(Ad, 1, 1, NAN), lm_mat_set_d(Am, 0, 1, INFINITY);
    cr_assert(!lm_mat_isfinite(Ad) && !lm_mat_isfinite(Am));
    lm_mat_max(&xd, Ad);
    cr_assert(isnan(xd.d), "NaN propagates through max");
    lm_mat_frob(&xm, Am);
    cr_assert(isinf(lm_num_get_d(&xm)));
    lm_num_clear(&xd), lm_num_clear(&xm), lm_num_clear(&s1);
    lm_mat *ms[] = { Ad, Bd, Am, Bm, aA, aAB, tmp };
    for (int q = 0; q < 7; q++) lm_mat_free(ms[q]);
}

static void svals_pair(int r, int c, uint64_t key)
{
    lm_ctx cd = lm_ctx_double(), cm = lm_ctx_mpfr(256);
    int k = r < c ? r : c;
    lm_mat *Ad = rand_mat(r, c, &cd, key, 1.0), *Am = convert(Ad, &cm);
    lm_num *sd = lm_nums_new(k, &cd), *sm = lm_nums_new(k, &cm);
    cr_assert_eq(lm_mat_svals(sd, Ad), 0);
    cr_assert_eq(lm_mat_svals(sm, Am), 0);
    double tol = 10.0 * (r > c ? r : c) * k * U53 * (k ? lm_num_get_d(&sm[0]) : 0);
    for (int i = 0; i < k; i++) {
        cr_assert(num_dist(&sd[i], &sm[i], 0) <= tol, "svals %dx%d #%d: %g > %g", r, c, i,
                  num_dist(&sd[i], &sm[i], 0), tol);
        if (i) cr_assert(lm_num_cmp(&sm[i - 1], &sm[i]) >= 0 && lm_num_cmp(&sd[i - 1], &sd[i]) >= 0);
    }
    lm_num a, b;
    lm_num_init(&a, &cm), lm_num_init(&b, &cm);
    cr_assert_eq(lm_mat_smax(&a, Am), 0);
    cr_assert_eq(lm_mat_smin(&b, Am), 0);
    if (k) cr_assert(lm_num_cmp(&a, &sm[0]) == 0 && lm_num_cmp(&b, &sm[k - 1]) == 0);
    else cr_assert(lm_num_iszero(&a) && lm_num_iszero(&b));
    lm_num_clear(&a), lm_num_clear(&b);
    lm_nums_free(sd, k), lm_nums_free(sm, k);
    lm_mat_free(Ad), lm_mat_free(Am);
}

Test(linalg, svals_double_vs_mpfr)
{
    svals_pair(9, 5, 40);
    svals_pair(5, 9, 41);
    svals_pair(7, 7, 42);
    svals_pair(1, 1, 43);
    svals_pair(1, 6, 44);
    svals_pair(6, 1, 45);
    svals_pair(0, 4, 46);
    svals_pair(4, 0, 47);
    lm_ctx cm = lm_ctx_mpfr(128);
    lm_mat *A = lm_mat_new(1, 1, &cm);
    lm_num s;
    lm_num_init(&s, &cm);
    lm_mat_set_d(A, 0, 0, -3.0);
    lm_mat_svals(&s, A);
    cr_assert_eq(lm_num_get_d(&s), 3.0);
    lm_num_clear(&s);
    lm_mat_free(A);
}

/* symmetric S = (R + R^T) / 2 */
static lm_mat *rand_sym(int n, const lm_ctx *ctx, uint64_t key)
{
    lm_mat *R = rand_mat(n, n, ctx, key, 1.0), *T = lm_mat_new(n, n, ctx);
    lm_mat_transpose(T, R);
    lm_mat_add(R, R, T);
    lm_mat_scale_d(R, R, 0.5);
    lm_mat_free(T);
    return R;
}

/* |A V - V diag(w)|_F / |A|_F and |V^T V - I|_max */
static void eig_residuals(double *res, double *orth, const lm_mat *A, const lm_num *w, const lm_mat *V)
{
    lm_ctx c = lm_mat_ctx(A);
    int n = A->r;
    lm_mat *AV = lm_mat_new(n, n, &c), *VW = lm_mat_dup(V), *VtV = lm_mat_new(n, n, &c);
    lm_num t;
    lm_num_init(&t, &c);
    lm_mat_mul(AV, A, 0, V, 0);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            lm_mat_get(&t, V, i, j);
            lm_num_mul(&t, &t, &w[j]);
            lm_mat_set(VW, i, j, &t);
        }
    lm_mat_sub(AV, AV, VW);
    *res = frob_d(AV) / frob_d(A);
    lm_mat_mul(VtV, V, 1, V, 0);
    *orth = dist_identity(VtV);
    lm_num_clear(&t);
    lm_mat_free(AV), lm_mat_free(VW), lm_mat_free(VtV);
}

Test(linalg, symeig_double_vs_mpfr)
{
    lm_ctx cd = lm_ctx_double(), cm = lm_ctx_mpfr(256);
    const int sizes[] = { 8, 1, 2, 0 };
    for (int q = 0; q < 4; q++) {
        int n = sizes[q];
        lm_mat *Ad = rand_sym(n, &cd, 50 + q), *Am = convert(Ad, &cm);
        lm_mat *Vd = lm_mat_new(n, n, &cd), *Vm = lm_mat_new(n, n, &cm);
        lm_num *wd = lm_nums_new(n, &cd), *wm = lm_nums_new(n, &cm), *w2 = lm_nums_new(n, &cm);
        cr_assert_eq(lm_mat_symeig(wd, Vd, Ad), 0);
        cr_assert_eq(lm_mat_symeig(wm, Vm, Am), 0);
        cr_assert_eq(lm_mat_symeig(w2, NULL, Am), 0);
        double nf = frob_d(Ad), tol = 10 * n * U53 * nf;
        for (int i = 0; i < n; i++) {
            cr_assert(num_dist(&wd[i], &wm[i], 0) <= tol, "symeig n=%d #%d", n, i);
            cr_assert_eq(lm_num_cmp(&wm[i], &w2[i]), 0, "values without vectors");
            if (i) cr_assert(lm_num_cmp(&wm[i - 1], &wm[i]) <= 0 && lm_num_cmp(&wd[i - 1], &wd[i]) <= 0);
        }
        if (n) {
            double res, orth;
            eig_residuals(&res, &orth, Ad, wd, Vd);
            cr_assert(res <= 10 * n * U53 && orth <= 10 * n * U53, "double eig residual %g orth %g", res, orth);
            eig_residuals(&res, &orth, Am, wm, Vm);
            cr_assert(res <= 10 * n * 0x1p-256 && orth <= 10 * n * 0x1p-256, "mpfr eig residual %g orth %g", res, orth);
        }
        lm_nums_free(wd, n), lm_nums_free(wm, n), lm_nums_free(w2, n);
        lm_mat_free(Ad), lm_mat_free(Am), lm_mat_free(Vd), lm_mat_free(Vm);
    }
}

/* kappa_2 from 256-bit singular values */
static double cond2(const lm_mat *A)
{
    lm_ctx cm = lm_ctx_mpfr(256);
    lm_mat *M = convert(A, &cm);
    lm_num a, b;
    lm_num_init(&a, &cm), lm_num_init(&b, &cm);
    lm_mat_smax(&a, M), lm_mat_smin(&b, M);
    double k = lm_num_get_d(&a) / lm_num_get_d(&b);
    lm_num_clear(&a), lm_num_clear(&b);
    lm_mat_free(M);
    return k;
}

static double max_abs_d(const lm_mat *A)
{
    lm_ctx c = lm_mat_ctx(A);
    lm_num t;
    lm_num_init(&t, &c);
    lm_mat_max_abs(&t, A);
    double r = lm_num_get_d(&t);
    lm_num_clear(&t);
    return r;
}

Test(linalg, solve_double_vs_mpfr)
{
    lm_ctx cd = lm_ctx_double(), cm = lm_ctx_mpfr(256);
    const int n = 8, m = 3;
    lm_mat *Ad = rand_mat(n, n, &cd, 60, 1.0), *Bd = rand_mat(n, m, &cd, 61, 1.0);
    lm_mat *Am = convert(Ad, &cm), *Bm = convert(Bd, &cm);
    lm_mat *Xd = lm_mat_new(n, m, &cd), *Xm = lm_mat_new(n, m, &cm), *R = lm_mat_new(n, m, &cm);
    cr_assert_eq(lm_mat_solve(Xd, Ad, Bd), 0);
    cr_assert_eq(lm_mat_solve(Xm, Am, Bm), 0);
    double kap = cond2(Ad), xn = max_abs_d(Xm), err = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) err = fmax(err, el_dist(Xd, i, j, Xm, 0));
    cr_assert(err <= 10 * n * kap * U53 * xn, "solve err %g kappa %g", err, kap);
    lm_mat_mul(R, Am, 0, Xm, 0); /* residual of the MPFR solution */
    lm_mat_sub(R, R, Bm);
    cr_assert(max_abs_d(R) <= 10 * n * 0x1p-256 * frob_d(Am) * xn);
    /* X may alias B */
    lm_mat_solve(Bm, Am, Bm);
    assert_rel(Bm, Xm, 0, 0, "solve aliasing B");

    /* exact singularity, non-finite input, 1x1 and empty */
    double sing[] = { 1, 2, 2, 4 }, one[] = { 4 }, b1[] = { 2 };
    for (int b = 0; b < 2; b++) {
        lm_ctx *c = b ? &cm : &cd;
        lm_mat *S = lm_mat_new(2, 2, c), *y = lm_mat_new(2, 1, c), *x = lm_mat_new(2, 1, c);
        lm_mat_set_array(S, sing);
        lm_mat_set_d(y, 0, 0, 1.0);
        cr_assert_neq(lm_mat_solve(x, S, y), 0, "singular must fail");
        cr_assert(!lm_mat_isfinite(x));
        lm_mat_set_d(S, 0, 0, NAN);
        cr_assert_neq(lm_mat_solve(x, S, y), 0, "NaN must fail");
        lm_mat *a1 = lm_mat_new(1, 1, c), *c1 = lm_mat_new(1, 1, c), *x1 = lm_mat_new(1, 1, c);
        lm_mat_set_array(a1, one), lm_mat_set_array(c1, b1);
        cr_assert_eq(lm_mat_solve(x1, a1, c1), 0);
        cr_assert_eq(lm_mat_get_d(x1, 0, 0), 0.5);
        lm_mat *e = lm_mat_new(0, 0, c), *eb = lm_mat_new(0, 2, c), *ex = lm_mat_new(0, 2, c);
        cr_assert_eq(lm_mat_solve(ex, e, eb), 0);
        lm_mat *ms[] = { S, y, x, a1, c1, x1, e, eb, ex };
        for (int q = 0; q < 9; q++) lm_mat_free(ms[q]);
    }
    lm_mat *ms[] = { Ad, Bd, Am, Bm, Xd, Xm, R };
    for (int q = 0; q < 7; q++) lm_mat_free(ms[q]);
}

Test(linalg, nonfinite_input_reports_failure)
{
    lm_ctx ctxs[2] = { lm_ctx_double(), lm_ctx_mpfr(100) };
    for (int b = 0; b < 2; b++) {
        lm_mat *A = rand_mat(4, 3, &ctxs[b], 70, 1.0), *S = rand_sym(3, &ctxs[b], 71);
        lm_num *s = lm_nums_new(3, &ctxs[b]);
        lm_mat_set_d(A, 1, 1, NAN);
        lm_mat_set_d(S, 0, 2, INFINITY);
        cr_assert_neq(lm_mat_svals(s, A), 0);
        cr_assert(!lm_num_isfinite(&s[0]));
        cr_assert_neq(lm_mat_symeig(s, NULL, S), 0);
        cr_assert_neq(lm_mat_smax(&s[0], A), 0);
        lm_nums_free(s, 3);
        lm_mat_free(A), lm_mat_free(S);
    }
}

Test(linalg, copy_between_precisions)
{
    lm_ctx cd = lm_ctx_double(), c64 = lm_ctx_mpfr(64), c300 = lm_ctx_mpfr(300);
    lm_mat *Ad = rand_mat(3, 4, &cd, 80, 1.0);
    lm_mat *A300 = rand_pbits(3, 4, 300, 81, 1.0);
    lm_mat *B = convert(Ad, &c300), *C = convert(B, &cd), *D = convert(A300, &c64), *E = convert(A300, &cd);
    assert_rel(C, Ad, 0, 0, "double -> mpfr -> double");
    assert_rel(D, A300, 0x1p-64, 0, "mpfr300 -> mpfr64 (one rounding)");
    assert_rel(E, A300, U53, 0, "mpfr300 -> double (one rounding)");
    lm_mat *F = lm_mat_dup(A300);
    assert_rel(F, A300, 0, 0, "dup");
    cr_assert_eq(lm_mat_ctx(F).prec, 300);
    lm_mat_resize(F, 2, 2);
    cr_assert(F->r == 2 && F->c == 2 && lm_mat_get_d(F, 1, 1) == 0.0);
    lm_mat_set_identity(F);
    cr_assert(lm_mat_get_d(F, 1, 1) == 1.0 && lm_mat_get_d(F, 0, 1) == 0.0);
    double arr[12];
    lm_mat_get_array(arr, Ad);
    cr_assert_eq(arr[7], lm_mat_get_d(Ad, 1, 3));
    lm_mat *ms[] = { Ad, A300, B, C, D, E, F };
    for (int q = 0; q < 7; q++) lm_mat_free(ms[q]);
}

/* ---- (b) MPFR at p vs p+30 --------------------------------------------- */

static void ladder_products(mpfr_prec_t p)
{
    lm_ctx lo = lm_ctx_mpfr(p), hi = lm_ctx_mpfr(p + 30);
    lm_mat *A = rand_pbits(6, 5, p, 90, 1.0), *B = rand_pbits(5, 7, p, 91, 1.0);
    lm_mat *AH = convert(A, &hi), *BH = convert(B, &hi);
    lm_mat *C = lm_mat_new(6, 7, &lo), *CH = lm_mat_new(6, 7, &hi);
    lm_mat_mul(C, A, 0, B, 0), lm_mat_mul(CH, AH, 0, BH, 0);
    assert_rel(C, CH, VP(p), 0, "mul p vs p+30");
    lm_mat *E = lm_mat_new(6, 5, &lo), *EH = lm_mat_new(6, 5, &hi);
    lm_mat_exp(E, A), lm_mat_exp(EH, AH);
    assert_rel(E, EH, VP(p), 0, "exp p vs p+30");
    lm_num x, xh;
    lm_num_init(&x, &lo), lm_num_init(&xh, &hi);
    lm_mat_frob(&x, A), lm_mat_frob(&xh, AH);
    cr_assert(num_dist(&x, &xh, 1) <= 2 * VP(p), "frob p=%ld", (long)p);
    lm_mat_sum(&x, A), lm_mat_sum(&xh, AH);
    cr_assert(num_dist(&x, &xh, 1) <= VP(p), "sum p=%ld", (long)p);
    lm_mat_dot(&x, A, E), lm_mat_dot(&xh, AH, EH);
    /* E rounded differently at the two precisions: E = EH (1 + d), |d| <= v */
    lm_mat *aA = abs_mat(AH), *aE = abs_mat(EH);
    lm_num bound;
    lm_num_init(&bound, &hi);
    lm_mat_dot(&bound, aA, aE);
    cr_assert(num_dist(&x, &xh, 0) <= VP(p) * fabs(lm_num_get_d(&xh)) + VP(p) * lm_num_get_d(&bound), "dot");
    lm_num_clear(&x), lm_num_clear(&xh), lm_num_clear(&bound);

    lm_mat *S = lm_mat_new(6, 5, &lo), *SH = lm_mat_new(6, 5, &hi);
    lm_mat_softmax_rows(S, A), lm_mat_softmax_rows(SH, AH);
    assert_rel(S, SH, 3 * VP(p), 0, "softmax p vs p+30");
    lm_mat *G = lm_mat_new(6, 7, &lo), *GH = lm_mat_new(6, 7, &hi), *Kt = lm_mat_new(7, 5, &lo), *KtH;
    lm_mat_transpose(Kt, B);
    KtH = convert(Kt, &hi);
    lm_num sc, sch;
    lm_num_init(&sc, &lo), lm_num_init(&sch, &hi);
    lm_num_set_d(&sc, 3.0), lm_num_set_d(&sch, 3.0);
    lm_mat_gauss_logits(G, A, Kt, &sc), lm_mat_gauss_logits(GH, AH, KtH, &sch);
    assert_rel(G, GH, 2 * VP(p), 0, "gauss p vs p+30");
    lm_num_clear(&sc), lm_num_clear(&sch);
    lm_mat *ms[] = { A, B, AH, BH, C, CH, E, EH, aA, aE, S, SH, G, GH, Kt, KtH };
    for (int q = 0; q < 16; q++) lm_mat_free(ms[q]);
}

Test(linalg, ladder_products_p_vs_p30)
{
    ladder_products(64);
    ladder_products(128);
    ladder_products(256);
}

static void ladder_svals(mpfr_prec_t p, int r, int c)
{
    lm_ctx lo = lm_ctx_mpfr(p), hi = lm_ctx_mpfr(p + 30);
    int k = r < c ? r : c;
    lm_mat *A = rand_pbits(r, c, p, 100 + (uint64_t)r, 1.0), *AH = convert(A, &hi);
    lm_num *s = lm_nums_new(k, &lo), *sh = lm_nums_new(k, &hi);
    cr_assert_eq(lm_mat_svals(s, A), 0);
    cr_assert_eq(lm_mat_svals(sh, AH), 0);
    double s1 = lm_num_get_d(&sh[0]), v = VP(p);
    for (int i = 0; i < k; i++) {
        double b = v * lm_num_get_d(&sh[i]) + 0x1p-16 * v * s1;
        cr_assert(num_dist(&s[i], &sh[i], 0) <= b, "svals p=%ld %dx%d #%d", (long)p, r, c, i);
    }
    lm_nums_free(s, k), lm_nums_free(sh, k);
    lm_mat_free(A), lm_mat_free(AH);
}

Test(linalg, ladder_svals_p_vs_p30)
{
    const mpfr_prec_t ps[] = { 64, 128, 256 };
    for (int q = 0; q < 3; q++) {
        ladder_svals(ps[q], 7, 5);
        ladder_svals(ps[q], 5, 7);
        ladder_svals(ps[q], 6, 6);
    }
}

static void ladder_eig_solve(mpfr_prec_t p)
{
    lm_ctx lo = lm_ctx_mpfr(p), hi = lm_ctx_mpfr(p + 30);
    const int n = 7;
    lm_mat *R = rand_pbits(n, n, p, 110, 1.0), *A = lm_mat_new(n, n, &lo), *AH;
    lm_mat_transpose(A, R);
    lm_mat_add(A, A, R); /* exact in p bits? no: rounded, but A is then fixed */
    AH = convert(A, &hi);
    lm_num *w = lm_nums_new(n, &lo), *wh = lm_nums_new(n, &hi);
    cr_assert_eq(lm_mat_symeig(w, NULL, A), 0);
    cr_assert_eq(lm_mat_symeig(wh, NULL, AH), 0);
    double nf = frob_d(A), v = VP(p);
    for (int i = 0; i < n; i++)
        cr_assert(num_dist(&w[i], &wh[i], 0) <= v * fabs(lm_num_get_d(&wh[i])) + 0x1p-16 * v * nf,
                  "symeig p=%ld #%d", (long)p, i);

    lm_mat *B = rand_pbits(n, 2, p, 111, 1.0), *BH = convert(B, &hi);
    lm_mat *X = lm_mat_new(n, 2, &lo), *XH = lm_mat_new(n, 2, &hi);
    cr_assert_eq(lm_mat_solve(X, R, B), 0);
    lm_mat *RH = convert(R, &hi);
    cr_assert_eq(lm_mat_solve(XH, RH, BH), 0);
    double kap = cond2(R), xn = max_abs_d(XH);
    assert_rel(X, XH, v, 0x1p-16 * n * kap * v * xn, "solve p vs p+30");
    lm_nums_free(w, n), lm_nums_free(wh, n);
    lm_mat *ms[] = { R, A, AH, B, BH, X, XH, RH };
    for (int q = 0; q < 8; q++) lm_mat_free(ms[q]);
}

Test(linalg, ladder_symeig_solve_p_vs_p30)
{
    ladder_eig_solve(64);
    ladder_eig_solve(128);
    ladder_eig_solve(256);
}

/* ---- (c) softmax at extreme logits ------------------------------------- */

/* exact softmax of row i of C, entry j, in 1024-bit MPFR */
static void softmax_exact(mpfr_ptr out, const lm_mat *C, int i, int j)
{
    mpfr_t mx, t, s;
    mpfr_inits2(1024, mx, t, s, (mpfr_ptr)0);
    mpfr_set_inf(mx, -1);
    for (int l = 0; l < C->c; l++) {
        el_to_mp(t, C, i, l);
        mpfr_max(mx, mx, t, MPFR_RNDN);
    }
    mpfr_set_zero(s, 1);
    for (int l = 0; l < C->c; l++) {
        el_to_mp(t, C, i, l);
        mpfr_sub(t, t, mx, MPFR_RNDN);
        mpfr_exp(t, t, MPFR_RNDN);
        mpfr_add(s, s, t, MPFR_RNDN);
    }
    el_to_mp(t, C, i, j);
    mpfr_sub(t, t, mx, MPFR_RNDN);
    mpfr_exp(t, t, MPFR_RNDN);
    mpfr_div(out, t, s, MPFR_RNDN);
    mpfr_clears(mx, t, s, (mpfr_ptr)0);
}

static void check_softmax_extreme(const lm_ctx *ctx, const double *logits, int r, int n, double unit)
{
    lm_mat *C = lm_mat_new(r, n, ctx), *S = lm_mat_new(r, n, ctx);
    lm_mat_set_array(C, logits);
    lm_mat_softmax_rows(S, C);
    cr_assert(lm_mat_isfinite(S), "softmax finite");
    mpfr_t want, got;
    mpfr_inits2(1024, want, got, (mpfr_ptr)0);
    for (int i = 0; i < r; i++) {
        lm_mat *row = lm_mat_new(1, n, ctx);
        lm_num sum;
        lm_num_init(&sum, ctx);
        lm_mat_get_block(row, S, i, 0);
        lm_mat_sum(&sum, row);
        cr_assert(fabs(lm_num_get_d(&sum) - 1.0) <= n * unit, "row %d sums to %.17g", i, lm_num_get_d(&sum));
        for (int j = 0; j < n; j++) {
            softmax_exact(want, C, i, j);
            el_to_mp(got, S, i, j);
            double e = mp_dist(got, want, 1);
            /* entries below double's range may flush to zero in double */
            int tiny = !S->mp && mpfr_cmp_d(want, 0x1p-1000) < 0;
            cr_assert(tiny ? mp_dist(got, want, 0) <= 0x1p-1000 : e <= (n + 4) * unit,
                      "softmax (%d,%d): rel err %g", i, j, e);
        }
        lm_num_clear(&sum);
        lm_mat_free(row);
    }
    mpfr_clears(want, got, (mpfr_ptr)0);
    lm_mat_free(C), lm_mat_free(S);
}

Test(linalg, softmax_extreme_logits)
{
    const double L[] = {
        1e4, -1e4, 0, 1e4 - 1, -1e4 + 0.5,
        -1e4, -1e4, -1e4, -1e4, -1e4 + 3,
        1e4, 1e4, 1e4, 1e4, 1e4,
        2e4, -2e4, 1.5e4, 0.5, -0.5,
    };
    lm_ctx cd = lm_ctx_double(), c128 = lm_ctx_mpfr(128), c256 = lm_ctx_mpfr(256);
    check_softmax_extreme(&cd, L, 4, 5, U53);
    check_softmax_extreme(&c128, L, 4, 5, 0x1p-128);
    check_softmax_extreme(&c256, L, 4, 5, 0x1p-256);
    const double H[] = { 1e300, -1e300, 1e300, 0, -1.7e308, 1.7e308, 1e6, -1e6 };
    check_softmax_extreme(&cd, H, 2, 4, U53);
    check_softmax_extreme(&c256, H, 2, 4, 0x1p-256);
}

/* ---- (d) frob without spurious under/overflow -------------------------- */

static void frob_scaled(double scale, int r, int c)
{
    lm_ctx cd = lm_ctx_double(), cm = lm_ctx_mpfr(256);
    lm_mat *A = rand_mat(r, c, &cd, 120, 1.0);
    lm_mat_scale_d(A, A, scale);
    lm_mat *M = convert(A, &cm);
    lm_num fd, fm;
    lm_num_init(&fd, &cd), lm_num_init(&fm, &cm);
    lm_mat_frob(&fd, A), lm_mat_frob(&fm, M);
    double want = lm_num_get_d(&fm), tol = 2.0 * (r * c + 2) * U53 * want + 0x1p-1074;
    cr_assert(want > 0 && isfinite(want));
    cr_assert(num_dist(&fd, &fm, 0) <= tol, "frob at scale %g: %g vs %g", scale, fd.d, want);
    lm_num_clear(&fd), lm_num_clear(&fm);
    lm_mat_free(A), lm_mat_free(M);
}

Test(linalg, frob_extreme_scales)
{
    frob_scaled(1e-200, 6, 7);
    frob_scaled(1e-300, 3, 3);
    frob_scaled(1e200, 6, 7);
    frob_scaled(1e300, 5, 4);
    frob_scaled(1.0, 1, 1);
    lm_ctx cd = lm_ctx_double();
    lm_mat *A = lm_mat_new(1, 4, &cd);
    double v[] = { 3e-200, 4e-200, 0, 0 };
    lm_mat_set_array(A, v);
    lm_num f;
    lm_num_init(&f, &cd);
    lm_mat_frob(&f, A);
    cr_assert(fabs(f.d - 5e-200) <= 4 * U53 * 5e-200, "3-4-5 at 1e-200: %g", f.d);
    double w[] = { 0x1p-1070, 0x1p-1070, 0x1p-1070, 0x1p-1070 }; /* subnormal */
    lm_mat_set_array(A, w);
    lm_mat_frob(&f, A);
    cr_assert_eq(f.d, 0x1p-1069, "subnormal frob %a", f.d);
    double z[] = { 1e300, 1e300, -1e300, 1e-300 };
    lm_mat_set_array(A, z);
    lm_mat_frob(&f, A);
    cr_assert(fabs(f.d - sqrt(3.0) * 1e300) <= 4 * U53 * f.d, "no overflow: %g", f.d);
    lm_mat *E = lm_mat_new(0, 3, &cd);
    lm_mat_frob(&f, E);
    cr_assert_eq(f.d, 0.0);
    lm_mat_free(E), lm_mat_free(A);
}

/* ---- (e) SVD reconstruction -------------------------------------------- */

static void svd_check(const lm_ctx *ctx, int r, int c, uint64_t key, int rank_deficient)
{
    int k = r < c ? r : c;
    lm_mat *A = rand_mat(r, c, ctx, key, 1.0);
    if (rank_deficient && r >= c) /* rank < k: last column = first column */
        for (int i = 0; i < r; i++) lm_mat_set_d(A, i, c - 1, lm_mat_get_d(A, i, 0));
    if (rank_deficient && r < c) /* or last row = first row */
        for (int j = 0; j < c; j++) lm_mat_set_d(A, r - 1, j, lm_mat_get_d(A, 0, j));
    lm_mat *U = lm_mat_new(r, k, ctx), *V = lm_mat_new(c, k, ctx);
    lm_num *s = lm_nums_new(k, ctx);
    cr_assert_eq(lm_mat_svd(s, U, V, A), 0, "svd %dx%d converged", r, c);
    cr_assert(U->r == r && U->c == k && V->r == c && V->c == k);
    double u = ldexp(1.0, (int)lm_ctx_log2eps(ctx)), tol = 10.0 * (r > c ? r : c) * k * u;
    for (int i = 1; i < k; i++) cr_assert(lm_num_cmp(&s[i - 1], &s[i]) >= 0 && lm_num_sgn(&s[i]) >= 0);
    /* US = U diag(s); R = US V^T - A */
    lm_mat *US = lm_mat_dup(U), *R = lm_mat_new(r, c, ctx);
    lm_num t;
    lm_num_init(&t, ctx);
    for (int i = 0; i < r; i++)
        for (int j = 0; j < k; j++) {
            lm_mat_get(&t, U, i, j);
            lm_num_mul(&t, &t, &s[j]);
            lm_mat_set(US, i, j, &t);
        }
    lm_mat_mul(R, US, 0, V, 1);
    lm_mat_sub(R, R, A);
    double nA = frob_d(A);
    cr_assert(frob_d(R) <= tol * nA, "svd %dx%d reconstruction %g > %g", r, c, frob_d(R), tol * nA);
    lm_mat *G = lm_mat_new(k, k, ctx);
    lm_mat_mul(G, V, 1, V, 0);
    cr_assert(dist_identity(G) <= tol, "V orthonormal %dx%d: %g", r, c, dist_identity(G));
    lm_mat_mul(G, U, 1, U, 0); /* also with a zero singular value (completed basis) */
    cr_assert(dist_identity(G) <= tol, "U orthonormal %dx%d: %g", r, c, dist_identity(G));
    if (rank_deficient) {
        cr_assert(lm_num_get_d(&s[k - 1]) <= tol * lm_num_get_d(&s[0]), "rank deficiency seen %dx%d prec %ld: %g", r, c, (long)ctx->prec, lm_num_get_d(&s[k - 1]));
    }
    /* U and V may be omitted */
    lm_num *s2 = lm_nums_new(k, ctx);
    cr_assert_eq(lm_mat_svd(s2, NULL, V, A), 0);
    for (int i = 0; i < k; i++) cr_assert_eq(lm_num_cmp(&s[i], &s2[i]), 0);
    lm_nums_free(s2, k);
    lm_num_clear(&t);
    lm_nums_free(s, k);
    lm_mat *ms[] = { A, U, V, US, R, G };
    for (int q = 0; q < 6; q++) lm_mat_free(ms[q]);
}

Test(linalg, svd_reconstructs)
{
    lm_ctx ctxs[3] = { lm_ctx_double(), lm_ctx_mpfr(128), lm_ctx_mpfr(256) };
    const int shapes[][2] = { { 9, 4 }, { 4, 9 }, { 6, 6 }, { 1, 1 }, { 1, 5 }, { 5, 1 }, { 12, 3 } };
    for (int b = 0; b < 3; b++) {
        for (int q = 0; q < 7; q++) svd_check(&ctxs[b], shapes[q][0], shapes[q][1], 130 + (uint64_t)q, 0);
        svd_check(&ctxs[b], 7, 4, 140, 1);
        svd_check(&ctxs[b], 4, 7, 141, 1);
        lm_mat *E = lm_mat_new(0, 3, &ctxs[b]), *U = lm_mat_new(0, 0, &ctxs[b]), *V = lm_mat_new(3, 0, &ctxs[b]);
        cr_assert_eq(lm_mat_svd(NULL, U, V, E), 0, "empty svd");
        lm_mat_free(E), lm_mat_free(U), lm_mat_free(V);
        /* zero matrix: s = 0 and still orthonormal U (completed), V */
        lm_mat *Z = lm_mat_new(5, 3, &ctxs[b]), *UZ = lm_mat_new(5, 3, &ctxs[b]), *VZ = lm_mat_new(3, 3, &ctxs[b]);
        lm_mat *G = lm_mat_new(3, 3, &ctxs[b]);
        lm_num *s = lm_nums_new(3, &ctxs[b]);
        cr_assert_eq(lm_mat_svd(s, UZ, VZ, Z), 0);
        for (int i = 0; i < 3; i++) cr_assert(lm_num_iszero(&s[i]));
        lm_mat_mul(G, UZ, 1, UZ, 0);
        cr_assert(dist_identity(G) <= 4 * ldexp(1.0, (int)lm_ctx_log2eps(&ctxs[b])), "zero matrix U");
        lm_mat_mul(G, VZ, 1, VZ, 0);
        cr_assert(dist_identity(G) == 0.0, "zero matrix V");
        lm_nums_free(s, 3);
        lm_mat_free(Z), lm_mat_free(UZ), lm_mat_free(VZ), lm_mat_free(G);
    }
}

/* symeig in double at extreme scales: entries near 1e-218 (their squares
 * underflow) and near 1e+200 give the closed-form eigenvalues of a 2x2 */
Test(linalg, symeig_extreme_scales)
{
    lm_ctx c = lm_ctx_double();
    const double scales[] = {1e-218, 1e-300, 1e200};
    for (int k = 0; k < 3; k++) {
        double s = scales[k], a = 2.0 * s, b = 0.5 * s, d = -1.0 * s;
        lm_mat *A = lm_mat_new(2, 2, &c);
        lm_mat_set_d(A, 0, 0, a);
        lm_mat_set_d(A, 0, 1, b);
        lm_mat_set_d(A, 1, 0, b);
        lm_mat_set_d(A, 1, 1, d);
        lm_num *w = lm_nums_new(2, &c);
        cr_assert_eq(lm_mat_symeig(w, NULL, A), 0);
        double m = 0.5 * (a + d), r = sqrt(0.25 * (2.0 - -1.0) * (2.0 - -1.0) + 0.25) * s;
        cr_expect(fabs(lm_num_get_d(&w[0]) - (m - r)) <= 1e-14 * r, "scale %g: %g vs %g", s,
                  lm_num_get_d(&w[0]), m - r);
        cr_expect(fabs(lm_num_get_d(&w[1]) - (m + r)) <= 1e-14 * r, "scale %g: %g vs %g", s,
                  lm_num_get_d(&w[1]), m + r);
        lm_nums_free(w, 2);
        lm_mat_free(A);
    }
}

/* ---- MPFR products: the arb_dot fast path vs the exact path ------------ */

/* reference C_ij: the k products formed exactly, one mpfr_sum at C's
 * precision (the exact path of lm_mat_mul, written out here) */
static void mul_ref_entry(mpfr_ptr c, const lm_mat *A, int ta, const lm_mat *B, int tb, int i,
                          int j, int k)
{
    mpfr_t *t = calloc((size_t)k, sizeof *t);
    mpfr_ptr *tp = calloc((size_t)k, sizeof *tp);
    for (int l = 0; l < k; l++) {
        mpfr_init2(t[l], A->prec + B->prec);
        mpfr_srcptr a = ta ? A->m[(size_t)l * A->c + i] : A->m[(size_t)i * A->c + l];
        mpfr_srcptr b = tb ? B->m[(size_t)j * B->c + l] : B->m[(size_t)l * B->c + j];
        cr_assert_eq(mpfr_mul(t[l], a, b, MPFR_RNDN), 0, "product not exact");
        tp[l] = t[l];
    }
    mpfr_sum(c, tp, (unsigned long)k, MPFR_RNDN);
    for (int l = 0; l < k; l++) mpfr_clear(t[l]);
    free(t);
    free(tp);
}

/* 1 when the exact sum of entry (i,j) lies on a midpoint of p-bit numbers */
static int entry_is_tie(const lm_mat *A, int ta, const lm_mat *B, int tb, int i, int j, int k,
                        mpfr_prec_t p)
{
    mpfr_t x;
    mpfr_init2(x, 8 * (A->prec + B->prec) + 256);
    mul_ref_entry(x, A, ta, B, tb, i, j, k); /* exact: the terms span < 4p + 64 bits */
    int tie = mpfr_regular_p(x) && mpfr_min_prec(x) == p + 1; /* p+1 bits, not p */
    mpfr_clear(x);
    return tie;
}

/* operand kinds: 0 random p-bit, 1 small integers, 2 tie-prone (sums on or
 * next to midpoints of p-bit numbers, cancellations, exact zeros) */
static lm_mat *mul_operand(int r, int c, mpfr_prec_t p, int kind, int left, uint64_t key)
{
    if (kind == 0) return rand_pbits(r, c, p, key, 1.0);
    lm_ctx ctx = lm_ctx_mpfr(p);
    lm_rng g;
    lm_rng_init(&g, key);
    lm_mat *A = lm_mat_new(r, c, &ctx);
    mpfr_t R;
    mpfr_init2(R, p);
    mpfr_set_d(R, 1.0, MPFR_RNDN);
    for (int k = 1; k * 50 < (int)p + 50; k++) mpfr_add_d(R, R, ldexp(lm_rng_uniform(&g), -50 * k), MPFR_RNDN);
    for (int i = 0; i < r * c; i++) {
        uint64_t u = lm_rng_u64(&g);
        mpfr_ptr x = A->m[i];
        if (kind == 1) {
            mpfr_set_si(x, (long)(u % 17) - 8, MPFR_RNDN);
        } else if (!left) {
            const double vals[] = {0.0, 1.0, -1.0, 1.0, -1.0, 0.5, -0.5, 2.0};
            mpfr_set_d(x, vals[u % 8], MPFR_RNDN);
        } else {
            switch (u % 16) { /* sparse, so that a sum has few terms */
            case 0: case 1: mpfr_set_ui_2exp(x, 1, -(mpfr_exp_t)p, MPFR_RNDN); break; /* half an ulp of 1 */
            case 2: mpfr_set_ui_2exp(x, 3, -(mpfr_exp_t)p - 1, MPFR_RNDN); break;
            case 3: mpfr_set_ui_2exp(x, 1, -2 * (mpfr_exp_t)p - 10, MPFR_RNDN); break; /* tie breaker */
            case 4: mpfr_set(x, R, MPFR_RNDN); break;                                   /* cancels */
            case 5: case 6: case 7: mpfr_set_ui(x, 1, MPFR_RNDN); break;
            default: mpfr_set_zero(x, 1); break;
            }
            if ((u >> 8) & 1) mpfr_neg(x, x, MPFR_RNDN);
        }
    }
    mpfr_clear(R);
    return A;
}

/* lm_mat_mul of MPFR matrices (all dimensions >= 16: the arb_dot enclosure
 * path; the skinny shapes: the exact path) equals, entry by entry and bit for bit, the correctly
 * rounded exact dot product, at 64, 256 and 1024 bits, for every operand
 * kind, both transposes and a destination at lower precision; the
 * tie-prone operands must produce exact midpoint sums, so the fallback of
 * the fast path is exercised. */
Test(linalg, mpfr_mul_fast_path_is_exact)
{
    const mpfr_prec_t precs[] = {64, 256, 1024};
    /* m x k times k x n: square, odd, and the skinny shapes of the dynamics
     * paper's attention (n x D times D x d, D x n times n x d) */
    const int dims[][3] = {{16, 16, 16}, {24, 40, 17}, {33, 16, 20}, {4, 32, 8}, {32, 4, 8}, {2, 5, 7}};
    const int ndims = (int)(sizeof dims / sizeof dims[0]);
    for (int ip = 0; ip < 3; ip++)
        for (int kind = 0; kind < 3; kind++)
            for (int id = 0; id < ndims; id++)
                for (int tr = 0; tr < 4; tr++) {
                    const mpfr_prec_t p = precs[ip];
                    const int m = dims[id][0], k = dims[id][1], n = dims[id][2];
                    const int ta = tr & 1, tb = tr >> 1;
                    const uint64_t key = 7919u * (uint64_t)(1 + ip * 100 + kind * 10 + id) + (uint64_t)tr;
                    lm_mat *A = ta ? mul_operand(k, m, p, kind, 1, key) : mul_operand(m, k, p, kind, 1, key);
                    lm_mat *B = tb ? mul_operand(n, k, p, kind, 0, key + 1) : mul_operand(k, n, p, kind, 0, key + 1);
                    lm_ctx cc = lm_ctx_mpfr(tr == 3 ? p / 2 : p);
                    lm_mat *C = lm_mat_new(m, n, &cc);
                    lm_mat_mul(C, A, ta, B, tb);
                    mpfr_t ref;
                    mpfr_init2(ref, C->prec);
                    int ties = 0;
                    for (int i = 0; i < m; i++)
                        for (int j = 0; j < n; j++) {
                            mpfr_srcptr c = C->m[(size_t)i * n + j];
                            mul_ref_entry(ref, A, ta, B, tb, i, j, k);
                            cr_assert(!mpfr_nan_p(c) && !mpfr_inf_p(c), "non-finite entry");
                            cr_assert(mpfr_equal_p(c, ref) && mpfr_signbit(c) == mpfr_signbit(ref),
                                      "p=%ld kind=%d %dx%dx%d ta=%d tb=%d entry (%d,%d) differs",
                                      (long)p, kind, m, k, n, ta, tb, i, j);
                            if (kind == 2) ties += entry_is_tie(A, ta, B, tb, i, j, k, C->prec);
                        }
                    /* C at p/2 bits: no midpoints built for it; the small shapes
                     * are too few entries to be sure of one */
                    if (kind == 2 && tr != 3 && m * n >= 256)
                        cr_assert(ties > 0, "p=%ld %dx%dx%d ta=%d tb=%d: no midpoint sums", (long)p, m, k, n, ta, tb);
                    mpfr_clear(ref);
                    lm_mat_free(A);
                    lm_mat_free(B);
                    lm_mat_free(C);
                }
}

/* a non-finite operand entry sends the whole product down the exact path:
 * the same NaN/Inf pattern as the exact product */
Test(linalg, mpfr_mul_nonfinite_operand)
{
    lm_mat *A = rand_pbits(20, 18, 128, 99, 1.0), *B = rand_pbits(18, 16, 128, 100, 1.0);
    mpfr_set_inf(A->m[5], 1);
    lm_ctx c128 = lm_ctx_mpfr(128);
    lm_mat *C = lm_mat_new(20, 16, &c128);
    lm_mat_mul(C, A, 0, B, 0);
    mpfr_t ref;
    mpfr_init2(ref, 128);
    int infs = 0;
    for (int i = 0; i < 20; i++)
        for (int j = 0; j < 16; j++) {
            mpfr_srcptr c = C->m[(size_t)i * 16 + j];
            mul_ref_entry(ref, A, 0, B, 0, i, j, 18);
            infs += mpfr_inf_p(ref) != 0;
            cr_assert(mpfr_nan_p(ref) ? mpfr_nan_p(c) : mpfr_equal_p(c, ref), "entry (%d,%d)", i, j);
        }
    cr_assert_eq(infs, 16, "row 0 is infinite");
    mpfr_clear(ref);
    lm_mat_free(A);
    lm_mat_free(B);
    lm_mat_free(C);
}

/* the double test runs branch-free over blocks of 1024: every position of a non-finite value, on
 * both sides of a block edge, is found, and the largest finite and subnormal values are finite */
Test(linalg, isfinite_double_every_position)
{
    lm_ctx d = lm_ctx_double();
    const int n = 2100;
    lm_mat *A = lm_mat_new(1, n, &d);
    for (int k = 0; k < n; k++) lm_mat_set_d(A, 0, k, k % 3 ? DBL_MAX : k % 2 ? -4.9e-324 : -0.0);
    cr_assert(lm_mat_isfinite(A));
    const double bad[3] = {INFINITY, -INFINITY, NAN};
    for (int k = 0; k < n; k++)
        for (int b = 0; b < 3; b++) {
            double keep = lm_mat_get_d(A, 0, k);
            lm_mat_set_d(A, 0, k, bad[b]);
            cr_assert(!lm_mat_isfinite(A), "%g at %d not found", bad[b], k);
            lm_mat_set_d(A, 0, k, keep);
        }
    cr_assert(lm_mat_isfinite(A));
    lm_mat *E = lm_mat_new(0, 0, &d);
    cr_assert(lm_mat_isfinite(E), "an empty matrix has no non-finite entry");
    lm_mat_free(E);
    lm_mat_free(A);
}

/* One dgemm kernel on every node (mat.c, pin_blas_core): on a CPU with AVX2 and FMA the
 * products run OpenBLAS's Haswell kernels whatever the CPU would pick (an AVX-512 machine
 * picks SkylakeX/Cooperlake, whose products differ in the last bits).  The FNV-1a hashes of the bits of products of
 * fixed data were taken with the Haswell kernel (which agrees with the AVX2 summation order
 * of attn.c's fast queries, test_ib_fast.c).  With the Cooperlake kernel forced on an
 * AVX-512 machine, three of the five hashes differ (33x33x7, 64x300x9, 200^3). */
extern char *openblas_get_config(void);

static uint64_t product_hash(int m, int k, int n, int ta, unsigned seed)
{
    lm_ctx d = lm_ctx_double();
    lm_rng g;
    lm_rng_init(&g, seed);
    lm_mat *A = ta ? lm_mat_new(k, m, &d) : lm_mat_new(m, k, &d), *B = lm_mat_new(k, n, &d);
    lm_mat *C = lm_mat_new(m, n, &d);
    lm_mat_randn(A, &g, 1.0);
    lm_mat_randn(B, &g, 1.0);
    lm_mat_mul(C, A, ta, B, 0);
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double x = lm_mat_get_d(C, i, j);
            unsigned char b[8];
            memcpy(b, &x, 8);
            for (int t = 0; t < 8; t++) h = (h ^ b[t]) * 1099511628211ull;
        }
    lm_mat_free(A);
    lm_mat_free(B);
    lm_mat_free(C);
    return h;
}

Test(linalg, double_products_use_one_kernel_everywhere)
{
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
        cr_log_warn("no AVX2/FMA: OpenBLAS keeps its own kernel, products are not pinned");
        return;
    }
    const char *env = getenv("OPENBLAS_CORETYPE");
    if (env && *env) {
        cr_log_warn("OPENBLAS_CORETYPE=%s set by the user: products are not pinned", env);
        return;
    }
    cr_expect(strstr(openblas_get_config(), " Haswell ") != NULL, "kernel: %s", openblas_get_config());
    static const struct { int m, k, n, ta; uint64_t h; } cs[] = {
        {3, 5, 4, 0, 0xf578e778a9cadfedull},      {33, 33, 7, 0, 0x6380c4440a98c86bull},
        {16, 16, 16, 1, 0x30a838794a12e2b4ull},   {64, 300, 9, 0, 0x7850b0b2dc6aa577ull},
        {200, 200, 200, 0, 0x8fe8b3f68ed3f1abull},
    };
    for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
        uint64_t h = product_hash(cs[i].m, cs[i].k, cs[i].n, cs[i].ta, 77u + (unsigned)i);
        cr_log_info("%dx%dx%d ta=%d: %016llx", cs[i].m, cs[i].k, cs[i].n, cs[i].ta, (unsigned long long)h);
        cr_expect(h == cs[i].h, "%dx%dx%d%s: product bits %016llx, Haswell kernel gives %016llx",
                  cs[i].m, cs[i].k, cs[i].n, cs[i].ta ? " (A^T)" : "", (unsigned long long)h,
                  (unsigned long long)cs[i].h);
    }
}
