/* test_arb.c -- the Arb ball backend.
 *
 * Enclosure: inputs are random p-bit numbers, exact in Arb at p bits and in
 * MPFR at 4p bits.  Every scalar and matrix operation is run in both; the
 * Arb ball must contain the MPFR value at 4p bits (arb_contains_mpfr).  The
 * 4p-bit value is within about 2^-4p (relative) of the exact result, far
 * inside any ball an operation at p bits produces, and the ball contains
 * the exact value, so a missed containment is a real enclosure bug.  The
 * decompositions: singular values and symmetric eigenvalues are rigorous
 * enclosures (checked against MPFR at 1024 bits, including rank-deficient
 * and clustered spectra, with their radii); the vectors are midpoint results
 * and taint the evaluation (checked through the taint counter).
 */
#include <stdio.h>

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "lm_mat.h"
#include "lm_rng.h"

static const mpfr_prec_t PS[] = { 64, 128, 256 };
#define NPS ((int)(sizeof PS / sizeof PS[0]))

/* ---- helpers ----------------------------------------------------------- */

/* x = a random number with p significant bits, scale s */
static void rand_mp(mpfr_ptr x, lm_rng *g, mpfr_prec_t p, double s)
{
    mpfr_t t;
    mpfr_init2(t, p);
    mpfr_set_d(t, s * lm_rng_normal(g), MPFR_RNDN);
    for (int k = 1; k * 50 < (int)p + 50; k++) mpfr_add_d(t, t, ldexp(s * lm_rng_normal(g), -50 * k), MPFR_RNDN);
    mpfr_set(x, t, MPFR_RNDN);
    mpfr_clear(t);
}

/* the same random p-bit matrix in Arb p bits (*A) and MPFR 4p bits (*M) */
static void rand_pair(lm_mat **A, lm_mat **M, int r, int c, mpfr_prec_t p, uint64_t key, double s)
{
    lm_ctx ca = lm_ctx_arb(p), cm = lm_ctx_mpfr(4 * p), cp = lm_ctx_mpfr(p);
    lm_rng g;
    lm_rng_init(&g, key);
    lm_mat *P = lm_mat_new(r, c, &cp);
    for (int i = 0; i < r * c; i++) rand_mp(P->m[i], &g, p, s);
    *A = lm_mat_new(r, c, &ca);
    *M = lm_mat_new(r, c, &cm);
    lm_mat_copy(*A, P);
    lm_mat_copy(*M, P);
    lm_mat_free(P);
}

/* the same random p-bit scalar in Arb p (a) and MPFR 4p (m), already inited */
static void rand_num_pair(lm_num *a, lm_num *m, lm_rng *g, mpfr_prec_t p, double s, int positive)
{
    mpfr_t t;
    mpfr_init2(t, p);
    rand_mp(t, g, p, s);
    if (positive) mpfr_abs(t, t, MPFR_RNDN);
    lm_ctx cp = lm_ctx_mpfr(p);
    lm_num x;
    lm_num_init(&x, &cp);
    mpfr_set(x.m, t, MPFR_RNDN);
    lm_num_set(a, &x);
    lm_num_set(m, &x);
    lm_num_clear(&x);
    mpfr_clear(t);
}

static void expect_num_contains(const lm_num *a, const lm_num *m, const char *what, mpfr_prec_t p)
{
    cr_assert(a->ab && m->mp);
    int ok = lm_num_contains_mpfr(a, m->m);
    if (!ok) {
        char *s = arb_get_str(a->b, 40, 0);
        mpfr_fprintf(stderr, "%s p=%ld: ball %s misses %.50Rg\n", what, (long)p, s, m->m);
        flint_free(s);
    }
    cr_expect(ok, "%s at %ld bits: the ball misses the 4p-bit MPFR value", what, (long)p);
}

static void expect_mat_contains(const lm_mat *A, const lm_mat *M, const char *what, mpfr_prec_t p)
{
    cr_assert(A->ab && M->mp && A->r == M->r && A->c == M->c, "%s: shapes/backends", what);
    int bad = 0;
    for (int i = 0; i < A->r * A->c; i++)
        if (!arb_contains_mpfr(A->b + i, M->m[i])) {
            if (!bad) {
                char *s = arb_get_str(A->b + i, 40, 0);
                mpfr_fprintf(stderr, "%s p=%ld entry %d: ball %s misses %.50Rg\n", what, (long)p, i, s,
                             M->m[i]);
                flint_free(s);
            }
            bad++;
        }
    cr_expect_eq(bad, 0, "%s at %ld bits: %d entries outside their balls", what, (long)p, bad);
}

/* every ball has a finite radius below 2^-(p-slack) max(1, |mid|) */
static void expect_tight(const lm_mat *A, mpfr_prec_t p, int slack, const char *what)
{
    for (int i = 0; i < A->r * A->c; i++) {
        arb_srcptr x = A->b + i;
        double r = mag_get_d(arb_radref(x)), m = fabs(arf_get_d(arb_midref(x), ARF_RND_NEAR));
        cr_expect(r <= ldexp(fmax(1.0, m), -(int)p + slack), "%s at %ld bits: radius %g at |mid| %g",
                  what, (long)p, r, m);
    }
}

static void expect_num_tight(const lm_num *a, mpfr_prec_t p, int slack, const char *what)
{
    double r = mag_get_d(arb_radref(a->b)), m = fabs(lm_num_get_d(a));
    cr_expect(r <= ldexp(fmax(1.0, m), -(int)p + slack), "%s at %ld bits: radius %g at |mid| %g", what,
              (long)p, r, m);
}

static lm_mat *new_like(const lm_mat *A, int r, int c)
{
    lm_ctx ctx = lm_mat_ctx(A);
    return lm_mat_new(r, c, &ctx);
}

/* ---- scalars ----------------------------------------------------------- */

typedef enum {
    S_ADD, S_SUB, S_MUL, S_DIV, S_POW, S_MAX, S_MIN, S_FMA, S_ADD_D, S_MUL_D, S_DIV_D, S_D_SUB,
    S_NEG, S_ABS, S_SQR, S_SQRT, S_EXP, S_LOG, S_LOG1P, S_EXPM1, S_POW_SI, S_POW_NEG, S_SET, S_NOPS
} sop;

static const char *const SOP_NAME[] = { "add", "sub", "mul", "div", "pow", "max", "min", "fma",
                                        "add_d", "mul_d", "div_d", "d_sub", "neg", "abs", "sqr",
                                        "sqrt", "exp", "log", "log1p", "expm1", "pow_si",
                                        "pow_si(-k)", "set" };

/* r = op(a, b, c) in r's context */
static void apply(sop op, lm_num *r, const lm_num *a, const lm_num *b, const lm_num *c, double dv)
{
    switch (op) {
    case S_ADD: lm_num_add(r, a, b); break;
    case S_SUB: lm_num_sub(r, a, b); break;
    case S_MUL: lm_num_mul(r, a, b); break;
    case S_DIV: lm_num_div(r, a, b); break;
    case S_POW: lm_num_pow(r, a, b); break;
    case S_MAX: lm_num_max(r, a, b); break;
    case S_MIN: lm_num_min(r, a, b); break;
    case S_FMA: lm_num_fma(r, a, b, c); break;
    case S_ADD_D: lm_num_add_d(r, a, dv); break;
    case S_MUL_D: lm_num_mul_d(r, a, dv); break;
    case S_DIV_D: lm_num_div_d(r, a, dv); break;
    case S_D_SUB: lm_num_d_sub(r, dv, a); break;
    case S_NEG: lm_num_neg(r, a); break;
    case S_ABS: lm_num_abs(r, a); break;
    case S_SQR: lm_num_sqr(r, a); break;
    case S_SQRT: lm_num_sqrt(r, a); break;
    case S_EXP: lm_num_exp(r, a); break;
    case S_LOG: lm_num_log(r, a); break;
    case S_LOG1P: lm_num_log1p(r, a); break;
    case S_EXPM1: lm_num_expm1(r, a); break;
    case S_POW_SI: lm_num_pow_si(r, a, 7); break;
    case S_POW_NEG: lm_num_pow_si(r, a, -3); break;
    case S_SET: lm_num_set(r, a); break;
    case S_NOPS: break;
    }
}

/* operands positive for the ops whose domain needs it */
static int needs_pos(sop op)
{
    return op == S_POW || op == S_SQRT || op == S_LOG || op == S_LOG1P;
}

Test(arb, scalar_ops_contain_mpfr_4p)
{
    for (int ip = 0; ip < NPS; ip++) {
        mpfr_prec_t p = PS[ip];
        lm_ctx ca = lm_ctx_arb(p), cm = lm_ctx_mpfr(4 * p);
        lm_rng g;
        lm_rng_init(&g, 0xa4b0 + (uint64_t)p);
        lm_num a[4], m[4];
        for (int k = 0; k < 4; k++) {
            lm_num_init(&a[k], &ca);
            lm_num_init(&m[k], &cm);
        }
        for (int op = 0; op < S_NOPS; op++)
            for (int trial = 0; trial < 25; trial++) {
                int pos = needs_pos((sop)op);
                for (int k = 1; k < 4; k++) rand_num_pair(&a[k], &m[k], &g, p, trial < 12 ? 1.0 : 7.0, pos);
                double dv = lm_rng_normal(&g) * 3.0;
                apply((sop)op, &a[0], &a[1], &a[2], &a[3], dv);
                apply((sop)op, &m[0], &m[1], &m[2], &m[3], dv);
                if (!mpfr_number_p(m[0].m)) continue;
                expect_num_contains(&a[0], &m[0], SOP_NAME[op], p);
                double rad = mag_get_d(arb_radref(a[0].b)), mid = fabs(lm_num_get_d(&a[0]));
                cr_expect(rad <= ldexp(fmax(1.0, mid), -(int)p + 8), "%s at %ld bits: radius %g at |mid| %g",
                          SOP_NAME[op], (long)p, rad, mid);
            }
        for (int k = 0; k < 4; k++) {
            lm_num_clear(&a[k]);
            lm_num_clear(&m[k]);
        }
    }
}

/* a random chain of 200 operations: the enclosure survives accumulation */
Test(arb, scalar_chain_contains_mpfr_4p)
{
    static const sop chain[] = { S_ADD, S_SUB, S_MUL, S_DIV, S_FMA, S_ADD_D, S_MUL_D, S_D_SUB,
                                 S_SQR, S_EXP, S_EXPM1, S_NEG, S_MAX, S_MIN };
    for (int ip = 0; ip < NPS; ip++) {
        mpfr_prec_t p = PS[ip];
        lm_ctx ca = lm_ctx_arb(p), cm = lm_ctx_mpfr(4 * p);
        lm_rng g;
        lm_rng_init(&g, 0xc4a1 + (uint64_t)p);
        lm_num a[3], m[3];
        for (int k = 0; k < 3; k++) {
            lm_num_init(&a[k], &ca);
            lm_num_init(&m[k], &cm);
        }
        rand_num_pair(&a[0], &m[0], &g, p, 1.0, 0);
        for (int step = 0; step < 200; step++) {
            sop op = chain[lm_rng_int(&g, 0, (int)(sizeof chain / sizeof chain[0]) - 1)];
            rand_num_pair(&a[1], &m[1], &g, p, 1.0, 0);
            rand_num_pair(&a[2], &m[2], &g, p, 1.0, 0);
            double dv = lm_rng_normal(&g);
            apply(op, &a[0], &a[0], &a[1], &a[2], dv);
            apply(op, &m[0], &m[0], &m[1], &m[2], dv);
            /* keep the magnitude moderate so exp stays in range */
            if (fabs(lm_num_get_d(&m[0])) > 8.0) {
                lm_num_div_d(&a[0], &a[0], 16.0);
                lm_num_div_d(&m[0], &m[0], 16.0);
            }
            expect_num_contains(&a[0], &m[0], SOP_NAME[op], p);
        }
        for (int k = 0; k < 3; k++) {
            lm_num_clear(&a[k]);
            lm_num_clear(&m[k]);
        }
    }
}

Test(arb, set_str_and_exact_sets)
{
    lm_ctx ca = lm_ctx_arb(128), cm = lm_ctx_mpfr(512);
    lm_num a, m;
    lm_num_init(&a, &ca);
    lm_num_init(&m, &cm);
    lm_num_set_str(&a, "0.1");
    lm_num_set_str(&m, "0.1");
    expect_num_contains(&a, &m, "set_str(0.1)", 128);
    cr_expect(!arb_is_exact(a.b), "0.1 is not a binary number: the ball has a radius");
    lm_num_set_str(&a, "0.375");
    cr_expect(arb_is_exact(a.b) && lm_num_get_d(&a) == 0.375);
    lm_num_set_str(&a, "not a number");
    cr_expect(!lm_num_isfinite(&a));
    lm_num_set_d(&a, 0x1.23456789abcdep-3);
    cr_expect(arb_is_exact(a.b) && lm_num_get_d(&a) == 0x1.23456789abcdep-3);
    lm_num_set_si(&a, -123456789012345L);
    cr_expect(arb_is_exact(a.b) && lm_num_get_d(&a) == -123456789012345.0);
    lm_num_clear(&a);
    lm_num_clear(&m);
}

Test(arb, midpoint_predicates)
{
    lm_ctx ca = lm_ctx_arb(64);
    lm_num a, b;
    lm_num_inits(&ca, &a, &b, (lm_num *)NULL);
    lm_num_set_d(&a, 1.0);
    arb_add_error_2exp_si(a.b, 2); /* 1 +- 4: sign unknown, midpoint positive */
    lm_num_set_d(&b, 0.5);
    cr_expect_eq(lm_num_sgn(&a), 1);
    cr_expect_gt(lm_num_cmp(&a, &b), 0);
    cr_expect(!lm_num_iszero(&a));
    cr_expect(lm_num_isfinite(&a));
    cr_expect_eq(lm_num_get_d(&a), 1.0);
    lm_num_set_d(&b, 0.0);
    cr_expect(lm_num_iszero(&b) && lm_num_sgn(&b) == 0);
    /* max/min are rigorous: the max of [-3, 5] and 0.5 is a ball containing [0.5, 5] */
    lm_num_set_d(&b, 0.5);
    lm_num max;
    lm_num_init(&max, &ca);
    lm_num_max(&max, &a, &b);
    double lo, hi;
    lm_num_bounds_d(&max, &lo, &hi);
    cr_expect(lo <= 0.5 && hi >= 5.0, "max enclosure [%g, %g]", lo, hi);
    /* log|mid| of a number far beyond double's range */
    lm_num_set_d(&b, 1e6);
    lm_num_exp(&b, &b);
    cr_expect(fabs(lm_num_log_abs_d(&b) - 1e6) < 1e-6, "%.17g", lm_num_log_abs_d(&b));
    cr_expect(isinf(lm_num_get_d(&b)));
    lm_num_set_d(&b, -1e6);
    lm_num_exp(&b, &b);
    cr_expect(fabs(lm_num_log_abs_d(&b) + 1e6) < 1e-6, "%.17g", lm_num_log_abs_d(&b));
    cr_expect_eq(lm_num_get_d(&b), 0.0);
    lm_num_clears(&a, &b, &max, (lm_num *)NULL);
}

Test(arb, certainly_gt_and_bounds)
{
    lm_ctx ca = lm_ctx_arb(128), cd = lm_ctx_double(), cm = lm_ctx_mpfr(128);
    lm_num a, b;
    lm_num_inits(&ca, &a, &b, (lm_num *)NULL);
    lm_num_set_d(&a, 2.0);
    lm_num_set_d(&b, 1.0);
    lm_num_exp(&a, &a); /* e^2 */
    lm_num_exp(&b, &b); /* e */
    cr_expect(lm_num_certainly_gt(&a, &b));
    cr_expect(!lm_num_certainly_gt(&b, &a));
    cr_expect(!lm_num_certainly_gt(&a, &a), "a ball is not certainly above itself");
    /* overlapping balls: neither is certainly greater, though the midpoints differ */
    lm_num_set_d(&a, 1.0);
    arb_add_error_2exp_si(a.b, -1); /* 1 +- 0.5 */
    lm_num_set_d(&b, 1.2);
    cr_expect(!lm_num_certainly_gt(&a, &b) && !lm_num_certainly_gt(&b, &a));
    cr_expect_lt(lm_num_cmp(&a, &b), 0);
    double lo, hi;
    lm_num_bounds_d(&a, &lo, &hi);
    cr_expect(lo <= 0.5 && hi >= 1.5 && lo > 0.49 && hi < 1.51, "[%g, %g]", lo, hi);
    /* outward: e^1 as a 128-bit ball gives lo < e < hi with doubles around it */
    lm_num_set_d(&a, 1.0);
    lm_num_exp(&a, &a);
    lm_num_bounds_d(&a, &lo, &hi);
    mpfr_t e;
    mpfr_init2(e, 256);
    mpfr_set_ui(e, 1, MPFR_RNDN);
    mpfr_exp(e, e, MPFR_RNDN);
    cr_expect(mpfr_cmp_d(e, lo) > 0 && mpfr_cmp_d(e, hi) < 0 && hi - lo <= 0x1p-50, "[%a, %a]", lo, hi);
    mpfr_clear(e);
    /* mixed: a double operand of an Arb comparison is an exact ball */
    lm_num d;
    lm_num_init(&d, &cd);
    lm_num_set_d(&d, 3.0);
    cr_expect(lm_num_certainly_gt(&d, &a) && !lm_num_certainly_gt(&a, &d));
    /* double / MPFR: plain comparison, lo = hi = value */
    lm_num x, y;
    lm_num_inits(&cm, &x, &y, (lm_num *)NULL);
    lm_num_set_d(&x, 3.0);
    lm_num_set_d(&y, 2.0);
    cr_expect(lm_num_certainly_gt(&x, &y) && !lm_num_certainly_gt(&y, &x) && !lm_num_certainly_gt(&x, &x));
    lm_num_bounds_d(&x, &lo, &hi);
    cr_expect(lo == 3.0 && hi == 3.0);
    lm_num_bounds_d(&d, &lo, &hi);
    cr_expect(lo == 3.0 && hi == 3.0);
    lm_num_set_d(&y, NAN);
    cr_expect(!lm_num_certainly_gt(&x, &y) && !lm_num_certainly_gt(&y, &x));
    lm_num_clears(&a, &b, &d, &x, &y, (lm_num *)NULL);
}

Test(arb, contexts)
{
    char buf[32];
    lm_ctx ca = lm_ctx_arb(256), cd = lm_ctx_double(), cm = lm_ctx_mpfr(256);
    cr_expect_eq(ca.backend, LM_ARB);
    cr_expect_eq((int)LM_ARB, 2);
    cr_expect_str_eq(lm_ctx_name(&ca, buf, sizeof buf), "arb256");
    cr_expect_eq(lm_ctx_eps(&ca), 0x1p-256);
    cr_expect_eq(lm_ctx_log2eps(&ca), -256.0);
    const char *v = lm_versions();
    cr_expect(strstr(v, "Arb 2") && strstr(v, "FLINT ") && strstr(v, "MPFR 4"), "%s", v);
    /* double -> Arb -> MPFR -> Arb -> double, exact for p-bit values */
    lm_num d, a, m, a2;
    lm_num_init(&d, &cd);
    lm_num_init(&a, &ca);
    lm_num_init(&m, &cm);
    lm_num_init(&a2, &ca);
    lm_num_set_d(&d, -0x1.fedcba9876543p+100);
    lm_num_set(&a, &d);
    cr_expect(arb_is_exact(a.b));
    lm_num_mul_d(&a, &a, 1.0 / 3.0); /* a 256-bit ball with a radius */
    lm_num_set(&m, &a);             /* the midpoint */
    lm_num_set(&a2, &m);            /* back: exact ball of the midpoint */
    cr_expect(arb_is_exact(a2.b) && arf_equal(arb_midref(a.b), arb_midref(a2.b)));
    lm_num_set(&d, &a);
    cr_expect_eq(d.d, arf_get_d(arb_midref(a.b), ARF_RND_NEAR));
    /* mixed arithmetic: MPFR/double operands of an Arb destination are exact balls */
    lm_num_set_d(&m, 3.0);
    lm_num_set_d(&d, 4.0);
    lm_num_add(&a, &m, &d);
    cr_expect(arb_is_exact(a.b) && lm_num_get_d(&a) == 7.0);
    /* an Arb operand of an MPFR destination contributes its midpoint */
    lm_num_set_d(&a, 1.0);
    lm_num_exp(&a, &a);
    lm_num_add_d(&m, &a, 0.0);
    cr_expect(mpfr_cmp_d(m.m, 2.718281828459045) != 0 && fabs(mpfr_get_d(m.m, MPFR_RNDN) - M_E) < 1e-15);
    lm_num_clears(&d, &a, &m, &a2, (lm_num *)NULL);

    /* matrices: double <-> Arb <-> MPFR */
    lm_mat *D = lm_mat_new(3, 4, &cd), *A = lm_mat_new(3, 4, &ca), *M = lm_mat_new(3, 4, &cm);
    lm_rng g;
    lm_rng_init(&g, 77);
    lm_mat_randn(D, &g, 2.0);
    lm_mat_copy(A, D);
    lm_ctx got = lm_mat_ctx(A);
    cr_expect(got.backend == LM_ARB && got.prec == 256);
    for (int i = 0; i < 12; i++) cr_expect(arb_is_exact(A->b + i) && arf_get_d(arb_midref(A->b + i), ARF_RND_NEAR) == D->d[i]);
    lm_mat_copy(M, A);
    lm_mat *D2 = lm_mat_new(3, 4, &cd);
    lm_mat_copy(D2, M);
    cr_expect_arr_eq(D2->d, D->d, 12 * sizeof(double));
    lm_mat_zero(D2);
    lm_mat_copy(D2, A);
    cr_expect_arr_eq(D2->d, D->d, 12 * sizeof(double));
    double arr[12];
    lm_mat_get_array(arr, A);
    cr_expect_arr_eq(arr, D->d, sizeof arr);
    lm_mat_zero(A);
    lm_mat_set_array(A, arr);
    lm_mat *A2 = lm_mat_dup(A);
    cr_expect(A2->ab && A2->prec == 256);
    for (int i = 0; i < 12; i++) cr_expect(arb_equal(A2->b + i, A->b + i));
    /* Arb -> Arb at a lower precision: rounded outward, still enclosing */
    lm_mat_scale_d(A, A, 1.0 / 3.0);
    lm_ctx c64 = lm_ctx_arb(64);
    lm_mat *A64 = lm_mat_new(3, 4, &c64);
    lm_mat_copy(A64, A);
    for (int i = 0; i < 12; i++) cr_expect(arb_contains(A64->b + i, A->b + i));
    /* element access with scalars of every context */
    lm_num x;
    lm_num_init(&x, &cm);
    lm_mat_get(&x, A, 1, 2);
    cr_expect_eq(mpfr_get_d(x.m, MPFR_RNDN), lm_mat_get_d(A, 1, 2));
    lm_mat_set(A, 0, 0, &x);
    cr_expect(arb_is_exact(A->b));
    lm_num_clear(&x);
    lm_num_init(&x, &ca);
    lm_mat_get(&x, D, 2, 3);
    cr_expect(arb_is_exact(x.b) && lm_num_get_d(&x) == D->d[11]);
    lm_mat_get(&x, A, 2, 3);
    cr_expect(arb_equal(x.b, A->b + 11));
    lm_mat_set(M, 2, 3, &x);
    cr_expect_eq(mpfr_get_d(M->m[11], MPFR_RNDN), arf_get_d(arb_midref(A->b + 11), ARF_RND_NEAR));
    lm_num_clear(&x);
    lm_mat_free(D), lm_mat_free(D2), lm_mat_free(A), lm_mat_free(A2), lm_mat_free(A64), lm_mat_free(M);
}

/* ---- matrices ---------------------------------------------------------- */

Test(arb, mul_transpose_contain_mpfr_4p)
{
    for (int ip = 0; ip < NPS; ip++) {
        mpfr_prec_t p = PS[ip];
        for (int t = 0; t < 4; t++) {
            int ta = t & 1, tb = t >> 1, m = 5, k = 7, n = 4;
            lm_mat *A, *Am, *B, *Bm;
            rand_pair(&A, &Am, ta ? k : m, ta ? m : k, p, 100 + (uint64_t)t, 1.0);
            rand_pair(&B, &Bm, tb ? n : k, tb ? k : n, p, 200 + (uint64_t)t, 3.0);
            lm_mat *C = new_like(A, m, n), *Cm = new_like(Am, m, n);
            lm_mat_mul(C, A, ta, B, tb);
            lm_mat_mul(Cm, Am, ta, Bm, tb);
            expect_mat_contains(C, Cm, "mul", p);
            expect_tight(C, p, 8, "mul");
            lm_mat *T = new_like(A, A->c, A->r), *Tm = new_like(Am, A->c, A->r);
            lm_mat_transpose(T, A);
            lm_mat_transpose(Tm, Am);
            expect_mat_contains(T, Tm, "transpose", p);
            lm_mat_free(A), lm_mat_free(Am), lm_mat_free(B), lm_mat_free(Bm);
            lm_mat_free(C), lm_mat_free(Cm), lm_mat_free(T), lm_mat_free(Tm);
        }
    }
}

Test(arb, elementwise_contain_mpfr_4p)
{
    for (int ip = 0; ip < NPS; ip++) {
        mpfr_prec_t p = PS[ip];
        lm_mat *A, *Am, *B, *Bm;
        rand_pair(&A, &Am, 4, 6, p, 300, 2.0);
        rand_pair(&B, &Bm, 4, 6, p, 301, 0.5);
        lm_mat *C = lm_mat_dup(A), *Cm = lm_mat_dup(Am);
        lm_num s, sm;
        lm_ctx ca = lm_ctx_arb(p), cm = lm_ctx_mpfr(4 * p);
        lm_num_init(&s, &ca);
        lm_num_init(&sm, &cm);
        lm_rng g;
        lm_rng_init(&g, 302);
        rand_num_pair(&s, &sm, &g, p, 1.0, 0);
        lm_num_exp(&s, &s); /* a scalar with a radius */
        lm_num_exp(&sm, &sm);

        lm_mat_add(C, A, B);
        lm_mat_add(Cm, Am, Bm);
        expect_mat_contains(C, Cm, "add", p);
        lm_mat_sub(C, C, B); /* aliasing */
        lm_mat_sub(Cm, Cm, Bm);
        expect_mat_contains(C, Cm, "sub", p);
        lm_mat_hadamard(C, A, B);
        lm_mat_hadamard(Cm, Am, Bm);
        expect_mat_contains(C, Cm, "hadamard", p);
        lm_mat_scale(C, A, &s);
        lm_mat_scale(Cm, Am, &sm);
        expect_mat_contains(C, Cm, "scale", p);
        lm_mat_scale_d(C, C, 1.0 / 7.0);
        lm_mat_scale_d(Cm, Cm, 1.0 / 7.0);
        expect_mat_contains(C, Cm, "scale_d", p);
        lm_mat_axpy(C, &s, B);
        lm_mat_axpy(Cm, &sm, Bm);
        expect_mat_contains(C, Cm, "axpy", p);
        lm_mat_axpy_d(C, -0.3, A);
        lm_mat_axpy_d(Cm, -0.3, Am);
        expect_mat_contains(C, Cm, "axpy_d", p);
        lm_mat_exp(C, C);
        lm_mat_exp(Cm, Cm);
        expect_mat_contains(C, Cm, "exp", p);
        expect_tight(C, p, 12, "exp chain");
        /* blocks */
        lm_mat *K = new_like(A, 2, 3), *Km = new_like(Am, 2, 3);
        lm_mat_get_block(K, C, 1, 2);
        lm_mat_get_block(Km, Cm, 1, 2);
        expect_mat_contains(K, Km, "get_block", p);
        lm_mat_set_block(A, 2, 3, K);
        lm_mat_set_block(Am, 2, 3, Km);
        expect_mat_contains(A, Am, "set_block", p);
        lm_mat_set_identity(K);
        cr_expect(lm_mat_get_d(K, 1, 1) == 1.0 && lm_mat_get_d(K, 1, 0) == 0.0);
        lm_num_clear(&s), lm_num_clear(&sm);
        lm_mat_free(A), lm_mat_free(Am), lm_mat_free(B), lm_mat_free(Bm), lm_mat_free(C), lm_mat_free(Cm);
        lm_mat_free(K), lm_mat_free(Km);
    }
}

Test(arb, softmax_gauss_contain_mpfr_4p)
{
    for (int ip = 0; ip < NPS; ip++) {
        mpfr_prec_t p = PS[ip];
        for (int sc = 0; sc < 3; sc++) {
            double scale = sc == 0 ? 1.0 : sc == 1 ? 30.0 : 3000.0; /* up to saturated rows */
            lm_mat *C, *Cm;
            rand_pair(&C, &Cm, 5, 8, p, 400 + (uint64_t)sc, scale);
            lm_mat *S = lm_mat_dup(C), *Sm = lm_mat_dup(Cm);
            lm_mat_softmax_rows(S, C);
            lm_mat_softmax_rows(Sm, Cm);
            expect_mat_contains(S, Sm, "softmax_rows", p);
            expect_tight(S, p, 16, "softmax_rows");
            cr_expect(lm_mat_isfinite(S));
            lm_mat_softmax_rows(C, C); /* aliasing */
            expect_mat_contains(C, Sm, "softmax_rows (aliased)", p);
            lm_mat_free(C), lm_mat_free(Cm), lm_mat_free(S), lm_mat_free(Sm);
        }
        lm_mat *Q, *Qm, *K, *Km;
        rand_pair(&Q, &Qm, 4, 3, p, 410, 1.0);
        rand_pair(&K, &Km, 6, 3, p, 411, 1.0);
        lm_mat_set_block(K, 0, 0, Q); /* a few nearby rows: cancellation */
        lm_mat_set_block(Km, 0, 0, Qm);
        lm_mat_set_d(K, 1, 1, lm_mat_get_d(Q, 1, 1) + 1e-12);
        lm_mat_set_d(Km, 1, 1, lm_mat_get_d(Q, 1, 1) + 1e-12);
        lm_ctx ca = lm_ctx_arb(p), cm = lm_ctx_mpfr(4 * p);
        lm_num s, sm;
        lm_num_init(&s, &ca);
        lm_num_init(&sm, &cm);
        lm_num_set_str(&s, "1.7");
        lm_num_set_str(&sm, "1.7");
        lm_mat *G = new_like(Q, 4, 6), *Gm = new_like(Qm, 4, 6);
        lm_mat_gauss_logits(G, Q, K, &s);
        lm_mat_gauss_logits(Gm, Qm, Km, &sm);
        expect_mat_contains(G, Gm, "gauss_logits", p);
        expect_tight(G, p, 8, "gauss_logits");
        lm_num_clear(&s), lm_num_clear(&sm);
        lm_mat_free(Q), lm_mat_free(Qm), lm_mat_free(K), lm_mat_free(Km), lm_mat_free(G), lm_mat_free(Gm);
    }
}

Test(arb, reductions_contain_mpfr_4p)
{
    for (int ip = 0; ip < NPS; ip++) {
        mpfr_prec_t p = PS[ip];
        lm_mat *A, *Am, *B, *Bm;
        rand_pair(&A, &Am, 6, 5, p, 500, 1.0);
        rand_pair(&B, &Bm, 6, 5, p, 501, 1e3);
        lm_mat_exp(A, A); /* entries with radii */
        lm_mat_exp(Am, Am);
        lm_ctx ca = lm_ctx_arb(p), cm = lm_ctx_mpfr(4 * p);
        lm_num r, rm;
        lm_num_init(&r, &ca);
        lm_num_init(&rm, &cm);
        struct {
            const char *name;
            void (*f)(lm_num *, const lm_mat *);
        } red[] = { { "frob", lm_mat_frob },       { "sum", lm_mat_sum },
                    { "min", lm_mat_min },         { "max", lm_mat_max },
                    { "min_abs", lm_mat_min_abs }, { "max_abs", lm_mat_max_abs } };
        for (int k = 0; k < (int)(sizeof red / sizeof red[0]); k++)
            for (int w = 0; w < 2; w++) {
                red[k].f(&r, w ? B : A);
                red[k].f(&rm, w ? Bm : Am);
                expect_num_contains(&r, &rm, red[k].name, p);
                expect_num_tight(&r, p, 8 + 10 * w, red[k].name);
            }
        lm_mat_dot(&r, A, B);
        lm_mat_dot(&rm, Am, Bm);
        expect_num_contains(&r, &rm, "dot", p);
        expect_num_tight(&r, p, 20, "dot");
        cr_expect(lm_mat_isfinite(A));
        arb_indeterminate(A->b + 3);
        cr_expect(!lm_mat_isfinite(A));
        lm_mat_max(&r, A);
        cr_expect(!lm_num_isfinite(&r), "a NaN entry propagates through max");
        lm_mat *E = new_like(A, 0, 3);
        lm_mat_max(&r, E);
        cr_expect(isinf(lm_num_get_d(&r)) && lm_num_get_d(&r) < 0);
        lm_mat_sum(&r, E);
        cr_expect(lm_num_iszero(&r));
        lm_num_clear(&r), lm_num_clear(&rm);
        lm_mat_free(A), lm_mat_free(Am), lm_mat_free(B), lm_mat_free(Bm), lm_mat_free(E);
    }
}

Test(arb, solve_rigorous_no_taint)
{
    for (int ip = 0; ip < NPS; ip++) {
        mpfr_prec_t p = PS[ip];
        lm_mat *A, *Am, *B, *Bm;
        rand_pair(&A, &Am, 5, 5, p, 600, 1.0);
        rand_pair(&B, &Bm, 5, 2, p, 601, 1.0);
        lm_mat *X = new_like(A, 5, 2), *Xm = new_like(Am, 5, 2);
        lm_arb_taint_reset();
        cr_expect_eq(lm_mat_solve(X, A, B), 0);
        cr_expect_eq(lm_arb_taint(), 0, "arb_mat_solve is rigorous: no taint");
        cr_expect_eq(lm_mat_solve(Xm, Am, Bm), 0);
        expect_mat_contains(X, Xm, "solve", p);
        expect_tight(X, p, 24, "solve");
        /* exactly singular: nonzero, NaN, and (fallback tried) tainted */
        lm_mat_zero(A);
        lm_mat_set_d(A, 0, 0, 1.0);
        cr_expect_neq(lm_mat_solve(X, A, B), 0);
        cr_expect(!lm_mat_isfinite(X));
        lm_mat_free(A), lm_mat_free(Am), lm_mat_free(B), lm_mat_free(Bm), lm_mat_free(X), lm_mat_free(Xm);
    }
}

Test(arb, taint_counter)
{
    mpfr_prec_t p = 128;
    lm_mat *A, *Am;
    rand_pair(&A, &Am, 6, 4, p, 700, 1.0);
    lm_ctx ca = lm_ctx_arb(p);
    lm_arb_taint_reset();
    cr_expect_eq(lm_arb_taint(), 0);
    lm_mat *C = lm_mat_new(6, 6, &ca), *S = lm_mat_new(6, 6, &ca);
    lm_mat_mul(C, A, 0, A, 1);
    lm_mat_softmax_rows(S, C);
    lm_num r;
    lm_num_init(&r, &ca);
    lm_mat_frob(&r, C);
    cr_expect_eq(lm_arb_taint(), 0, "mul/softmax/frob are rigorous");

    lm_num *s = lm_nums_new(4, &ca), *sm;
    lm_mat *U = lm_mat_new(6, 4, &ca), *V = lm_mat_new(4, 4, &ca);
    cr_expect_eq(lm_mat_svd(s, U, V, A), 0);
    long t1 = lm_arb_taint();
    cr_expect_gt(t1, 0, "svd taints");
    /* the singular values (rigorous even when the vectors are asked for): balls close to
     * the MPFR ones */
    lm_ctx cm = lm_ctx_mpfr(4 * p);
    sm = lm_nums_new(4, &cm);
    cr_expect_eq(lm_mat_svals(sm, Am), 0);
    for (int i = 0; i < 4; i++) {
        cr_expect(lm_num_contains_mpfr(&s[i], sm[i].m));
        double mid = lm_num_get_d(&s[i]), ref = mpfr_get_d(sm[i].m, MPFR_RNDN);
        cr_expect(fabs(mid - ref) <= 1e-14 * fabs(ref), "s[%d] %g vs %g", i, mid, ref);
    }
    /* U diag(s) V^T reproduces A on the midpoints */
    lm_mat *UV = lm_mat_new(6, 4, &ca), *SV = lm_mat_new(4, 4, &ca);
    lm_mat_zero(SV);
    for (int i = 0; i < 4; i++) lm_mat_set(SV, i, i, &s[i]);
    lm_mat *T = lm_mat_new(4, 4, &ca);
    lm_mat_mul(T, SV, 0, V, 1);
    lm_mat_mul(UV, U, 0, T, 0);
    lm_mat_sub(UV, UV, A);
    lm_mat_frob(&r, UV);
    cr_expect_lt(lm_num_get_d(&r), 1e-30);
    lm_mat_smax(&r, A);
    cr_expect_eq(lm_arb_taint(), t1, "smax is a rigorous enclosure: no taint");
    long t2 = lm_arb_taint();
    lm_num *w = lm_nums_new(6, &ca);
    lm_mat *W = lm_mat_new(6, 6, &ca);
    cr_expect_eq(lm_mat_symeig(w, W, C), 0);
    cr_expect_gt(lm_arb_taint(), t2, "symeig taints");
    cr_expect(W->ab && lm_mat_isfinite(W));
    for (int i = 0; i + 1 < 6; i++) cr_expect_leq(lm_num_cmp(&w[i], &w[i + 1]), 0);
    lm_arb_taint_reset();
    cr_expect_eq(lm_arb_taint(), 0);
    /* MPFR and double decompositions never taint */
    lm_mat_svals(sm, Am);
    cr_expect_eq(lm_arb_taint(), 0);
    lm_nums_free(s, 4), lm_nums_free(sm, 4), lm_nums_free(w, 6);
    lm_num_clear(&r);
    lm_mat_free(A), lm_mat_free(Am), lm_mat_free(C), lm_mat_free(S), lm_mat_free(U), lm_mat_free(V);
    lm_mat_free(UV), lm_mat_free(SV), lm_mat_free(T), lm_mat_free(W);
}

Test(arb, randn_and_arrays)
{
    lm_ctx ca = lm_ctx_arb(96), cd = lm_ctx_double();
    lm_mat *A = lm_mat_new(3, 3, &ca), *D = lm_mat_new(3, 3, &cd);
    lm_rng g1, g2;
    lm_rng_init(&g1, 9);
    lm_rng_init(&g2, 9);
    lm_mat_randn(A, &g1, 0.5);
    lm_mat_randn(D, &g2, 0.5);
    double a[9];
    lm_mat_get_array(a, A);
    cr_expect_arr_eq(a, D->d, sizeof a, "the same draws in every context");
    lm_mat_resize(A, 2, 5);
    cr_expect(A->r == 2 && A->c == 5 && lm_mat_get_d(A, 1, 4) == 0.0 && arb_is_exact(A->b + 9));
    lm_mat_free(A), lm_mat_free(D);
}

/* ---- rigorous singular values and eigenvalues ------------------------- */

#define REF_PREC 1024

/* P (MPFR p bits) -> the same numbers in Arb p bits (*A) and MPFR 1024 bits (*M) */
static void pair_of(lm_mat **A, lm_mat **M, const lm_mat *P, mpfr_prec_t p)
{
    lm_ctx ca = lm_ctx_arb(p), cm = lm_ctx_mpfr(REF_PREC);
    *A = lm_mat_new(P->r, P->c, &ca);
    *M = lm_mat_new(P->r, P->c, &cm);
    lm_mat_copy(*A, P);
    lm_mat_copy(*M, P);
}

/* P (p bits) = X Y^T + tiny, rank q (X: r x q, Y: c x q random p-bit); the product is
 * rounded to p bits, so P is of full rank with q singular values near 2^-p |P| or below
 * (the near-rank-deficient case); exact rank q when exact != 0 (the product is then
 * formed at 1024 bits and the pair is built from it, A carrying a ball around it) */
static lm_mat *lowrank(int r, int c, int q, mpfr_prec_t prec, uint64_t key)
{
    lm_ctx cp = lm_ctx_mpfr(prec);
    lm_rng g;
    lm_rng_init(&g, key);
    lm_mat *X = lm_mat_new(r, q, &cp), *Y = lm_mat_new(c, q, &cp), *P = lm_mat_new(r, c, &cp);
    for (int i = 0; i < r * q; i++) rand_mp(X->m[i], &g, prec < 200 ? prec : 200, 1.0);
    for (int i = 0; i < c * q; i++) rand_mp(Y->m[i], &g, prec < 200 ? prec : 200, 1.0);
    lm_mat_mul(P, X, 0, Y, 1);
    lm_mat_free(X), lm_mat_free(Y);
    return P;
}

/* U (r x k) with orthonormal columns at 1024 bits, from a random matrix's SVD */
static lm_mat *orthonormal(int r, int k, uint64_t key)
{
    lm_ctx cm = lm_ctx_mpfr(REF_PREC);
    lm_rng g;
    lm_rng_init(&g, key);
    lm_mat *R = lm_mat_new(r, k, &cm), *U = lm_mat_new(r, k, &cm);
    for (int i = 0; i < r * k; i++) rand_mp(R->m[i], &g, 200, 1.0);
    lm_num *s = lm_nums_new(k, &cm);
    cr_assert_eq(lm_mat_svd(s, U, NULL, R), 0);
    lm_nums_free(s, k);
    lm_mat_free(R);
    return U;
}

/* P (p bits) = round(U diag(sv) V^T) (signs of sv allowed when V == U) */
static lm_mat *with_spectrum(const lm_mat *U, const double *sv, const lm_mat *V, mpfr_prec_t p)
{
    lm_ctx cm = lm_ctx_mpfr(REF_PREC), cp = lm_ctx_mpfr(p);
    int k = U->c;
    lm_mat *US = lm_mat_dup(U), *B = lm_mat_new(U->r, V->r, &cm), *P = lm_mat_new(U->r, V->r, &cp);
    for (int i = 0; i < U->r; i++)
        for (int j = 0; j < k; j++) mpfr_mul_d(US->m[i * k + j], US->m[i * k + j], sv[j], MPFR_RNDN);
    lm_mat_mul(B, US, 0, V, 1);
    lm_mat_copy(P, B);
    lm_mat_free(US), lm_mat_free(B);
    return P;
}

/* every ball contains the 1024-bit value; no taint; radius(s_i) <= 2^-rel |s_i| where
 * rel > 0 (rel = 0: no radius check) */
static void check_svals(const lm_mat *A, const lm_mat *M, mpfr_prec_t p, int rel, const char *what)
{
    int k = A->r < A->c ? A->r : A->c;
    lm_ctx ca = lm_mat_ctx(A), cm = lm_mat_ctx(M);
    lm_num *s = lm_nums_new(k, &ca), *sm = lm_nums_new(k, &cm);
    lm_arb_taint_reset();
    cr_expect_eq(lm_mat_svals(s, A), 0, "%s: svals converged", what);
    cr_expect_eq(lm_arb_taint(), 0, "%s: singular values alone do not taint", what);
    cr_expect_eq(lm_mat_svals(sm, M), 0);
    for (int i = 0; i < k; i++) {
        int ok = lm_num_contains_mpfr(&s[i], sm[i].m);
        if (!ok) {
            char *str = arb_get_str(s[i].b, 40, 0);
            mpfr_fprintf(stderr, "%s p=%ld s[%d]: ball %s misses %.40Rg\n", what, (long)p, i, str, sm[i].m);
            flint_free(str);
        }
        cr_expect(ok, "%s at %ld bits: sigma_%d outside its ball", what, (long)p, i);
        cr_expect(arb_is_finite(s[i].b) && arf_sgn(arb_midref(s[i].b)) >= 0);
        if (rel > 0) {
            double r = mag_get_d(arb_radref(s[i].b)), m = lm_num_get_d(&s[i]);
            cr_expect(r <= ldexp(m, -rel), "%s at %ld bits: sigma_%d = %g has radius %g (> 2^-%d rel.)",
                      what, (long)p, i, m, r, rel);
        }
    }
    /* smax/smin are the ends, also untainted */
    lm_num e;
    lm_num_init(&e, &ca);
    lm_arb_taint_reset();
    lm_mat_smax(&e, A);
    cr_expect(lm_num_contains_mpfr(&e, sm[0].m));
    lm_mat_smin(&e, A);
    cr_expect(lm_num_contains_mpfr(&e, sm[k - 1].m));
    cr_expect_eq(lm_arb_taint(), 0);
    lm_num_clear(&e);
    lm_nums_free(s, k), lm_nums_free(sm, k);
}

static void check_symeig(const lm_mat *A, const lm_mat *M, mpfr_prec_t p, int rel, const char *what)
{
    int n = A->r;
    lm_ctx ca = lm_mat_ctx(A), cm = lm_mat_ctx(M);
    lm_num *w = lm_nums_new(n, &ca), *wm = lm_nums_new(n, &cm);
    lm_arb_taint_reset();
    cr_expect_eq(lm_mat_symeig(w, NULL, A), 0, "%s: symeig converged", what);
    cr_expect_eq(lm_arb_taint(), 0, "%s: eigenvalues alone do not taint", what);
    cr_expect_eq(lm_mat_symeig(wm, NULL, M), 0);
    for (int i = 0; i < n; i++) {
        int ok = lm_num_contains_mpfr(&w[i], wm[i].m);
        if (!ok) {
            char *str = arb_get_str(w[i].b, 40, 0);
            mpfr_fprintf(stderr, "%s p=%ld w[%d]: ball %s misses %.40Rg\n", what, (long)p, i, str, wm[i].m);
            flint_free(str);
        }
        cr_expect(ok, "%s at %ld bits: lambda_%d outside its ball", what, (long)p, i);
        if (rel > 0) {
            double r = mag_get_d(arb_radref(w[i].b)), m = fabs(lm_num_get_d(&w[i]));
            cr_expect(r <= ldexp(m, -rel), "%s at %ld bits: lambda_%d = %g has radius %g", what, (long)p,
                      i, m, r);
        }
    }
    lm_nums_free(w, n), lm_nums_free(wm, n);
}

Test(arb, svals_enclose_mpfr1024_random)
{
    const int shp[][2] = { { 5, 3 }, { 3, 5 }, { 6, 6 }, { 1, 4 }, { 4, 1 }, { 9, 7 } };
    for (int ip = 0; ip < NPS; ip++) {
        mpfr_prec_t p = PS[ip];
        for (int s = 0; s < 6; s++) {
            lm_ctx cp = lm_ctx_mpfr(p);
            lm_rng g;
            lm_rng_init(&g, 900 + (uint64_t)s);
            lm_mat *P = lm_mat_new(shp[s][0], shp[s][1], &cp), *A, *M;
            for (int i = 0; i < P->r * P->c; i++) rand_mp(P->m[i], &g, p, s == 5 ? 1e-3 : 1.0);
            pair_of(&A, &M, P, p);
            /* well separated (random Gaussian): relative radius 2^-(p - 28) */
            check_svals(A, M, p, (int)p - 28, "random");
            if (p == 256) check_svals(A, M, p, 100, "random (2^-100 at 256 bits)");
            lm_mat_free(P), lm_mat_free(A), lm_mat_free(M);
        }
    }
}

Test(arb, svals_enclose_mpfr1024_rank_deficient)
{
    const int shp[][3] = { { 6, 4, 2 }, { 4, 6, 1 }, { 5, 5, 3 }, { 7, 3, 0 } };
    for (int ip = 0; ip < NPS; ip++) {
        mpfr_prec_t p = PS[ip];
        for (int s = 0; s < 4; s++) {
            /* numerically rank deficient: the product rounded to p bits */
            lm_mat *P = lowrank(shp[s][0], shp[s][1], shp[s][2], p, 950 + (uint64_t)s), *A, *M;
            pair_of(&A, &M, P, p);
            check_svals(A, M, p, 0, "rank-deficient");
            lm_mat_free(A), lm_mat_free(M), lm_mat_free(P);
            /* exactly rank deficient at 1024 bits; the Arb matrix is a ball around it */
            lm_mat *E = lowrank(shp[s][0], shp[s][1], shp[s][2], REF_PREC, 960 + (uint64_t)s);
            lm_ctx ca = lm_ctx_arb(p);
            A = lm_mat_new(E->r, E->c, &ca);
            lm_mat_copy(A, E); /* the midpoints rounded to p bits ... */
            for (int i = 0; i < E->r * E->c; i++) /* ... plus a radius covering the rounding */
                arb_add_error_2exp_si(A->b + i, 4 - (slong)p);
            check_svals(A, E, p, 0, "exact rank-deficient (ball input)");
            /* the zero singular values: balls [0, small] */
            int k = E->r < E->c ? E->r : E->c;
            lm_num *sv = lm_nums_new(k, &ca);
            lm_mat_svals(sv, A);
            for (int i = shp[s][2]; i < k; i++) {
                double lo, hi;
                lm_num_bounds_d(&sv[i], &lo, &hi);
                cr_expect(lo == 0.0 && hi < ldexp(1.0, 12 - (int)p), "zero sigma_%d: [%g, %g]", i, lo, hi);
            }
            lm_nums_free(sv, k);
            lm_mat_free(A), lm_mat_free(E);
        }
    }
}

Test(arb, svals_symeig_enclose_clustered)
{
    /* singular values 3, 1 + 2^-30, 1, 1 - 2^-60, 1e-3, 1e-3 (1 + 2^-45) */
    const double sv[6] = { 3.0, 1.0 + 0x1p-30, 1.0, 1.0 - 0x1p-60, 1e-3, 1e-3 * (1.0 + 0x1p-45) };
    const double ev[6] = { -2.0, -1.0 - 0x1p-40, -1.0, 0.5, 0.5 + 0x1p-52, 7.0 };
    lm_mat *U = orthonormal(7, 6, 990), *V = orthonormal(6, 6, 991), *Q = orthonormal(6, 6, 992);
    for (int ip = 0; ip < NPS; ip++) {
        mpfr_prec_t p = PS[ip];
        lm_mat *P = with_spectrum(U, sv, V, p), *A, *M;
        pair_of(&A, &M, P, p);
        check_svals(A, M, p, (int)p - 40, "clustered svals");
        lm_mat *At = new_like(A, 6, 7);
        lm_mat *Mt = new_like(M, 6, 7);
        lm_mat_transpose(At, A);
        lm_mat_transpose(Mt, M);
        check_svals(At, Mt, p, (int)p - 40, "clustered svals, wide");
        lm_mat_free(P), lm_mat_free(A), lm_mat_free(M), lm_mat_free(At), lm_mat_free(Mt);
        /* symmetric with clustered and negative eigenvalues */
        P = with_spectrum(Q, ev, Q, p);
        pair_of(&A, &M, P, p);
        check_symeig(A, M, p, (int)p - 40, "clustered symeig");
        lm_mat_free(P), lm_mat_free(A), lm_mat_free(M);
    }
    lm_mat_free(U), lm_mat_free(V), lm_mat_free(Q);
}

Test(arb, symeig_enclose_random_and_singular)
{
    for (int ip = 0; ip < NPS; ip++) {
        mpfr_prec_t p = PS[ip];
        for (int s = 0; s < 4; s++) {
            int n = 2 + 2 * s;
            /* random symmetric (well separated) */
            lm_ctx cp = lm_ctx_mpfr(p);
            lm_rng g;
            lm_rng_init(&g, 1000 + (uint64_t)s);
            lm_mat *P = lm_mat_new(n, n, &cp), *A, *M;
            for (int i = 0; i < n; i++)
                for (int j = 0; j <= i; j++) {
                    rand_mp(P->m[i * n + j], &g, p, 1.0);
                    mpfr_set(P->m[j * n + i], P->m[i * n + j], MPFR_RNDN);
                }
            pair_of(&A, &M, P, p);
            check_symeig(A, M, p, (int)p - 28, "random symmetric");
            if (p == 256) check_symeig(A, M, p, 100, "random symmetric (2^-100 at 256 bits)");
            lm_mat_free(P), lm_mat_free(A), lm_mat_free(M);
            /* Gram matrix of rank 1: n - 1 zero eigenvalues */
            lm_ctx ca = lm_ctx_arb(p);
            A = lm_mat_new(n, n, &ca);
            lm_mat *Xs = lowrank(n, 1, 1, REF_PREC, 1020 + (uint64_t)s), *G = new_like(Xs, n, n);
            lm_mat_mul(G, Xs, 0, Xs, 1); /* x x^T, exact at 1024 bits */
            lm_mat_copy(A, G);
            for (int i = 0; i < n * n; i++) arb_add_error_2exp_si(A->b + i, 4 - (slong)p);
            check_symeig(A, G, p, 0, "rank-one Gram (ball input)");
            lm_mat_free(A), lm_mat_free(Xs), lm_mat_free(G);
        }
    }
}

Test(arb, vectors_taint_values_do_not)
{
    mpfr_prec_t p = 128;
    lm_mat *A, *Am;
    rand_pair(&A, &Am, 5, 4, p, 1100, 1.0);
    lm_ctx ca = lm_ctx_arb(p);
    lm_num *s = lm_nums_new(4, &ca), *w = lm_nums_new(4, &ca);
    lm_mat *U = lm_mat_new(5, 4, &ca), *V = lm_mat_new(4, 4, &ca), *C = lm_mat_new(4, 4, &ca);
    lm_arb_taint_reset();
    lm_mat_svd(s, NULL, NULL, A);
    cr_expect_eq(lm_arb_taint(), 0);
    lm_mat_svd(s, U, NULL, A);
    cr_expect_eq(lm_arb_taint(), 1, "U requested: tainted");
    lm_mat_svd(s, NULL, V, A);
    cr_expect_eq(lm_arb_taint(), 2, "V requested: tainted");
    lm_mat_mul(C, A, 1, A, 0);
    lm_mat_symeig(w, NULL, C);
    cr_expect_eq(lm_arb_taint(), 2);
    lm_mat_symeig(w, V, C);
    cr_expect_eq(lm_arb_taint(), 3, "eigenvectors requested: tainted");
    lm_arb_taint_reset();
    lm_nums_free(s, 4), lm_nums_free(w, 4);
    lm_mat_free(A), lm_mat_free(Am), lm_mat_free(U), lm_mat_free(V), lm_mat_free(C);
}
