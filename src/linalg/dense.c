/* dense.c -- singular values, SVD, symmetric eigenvalues, linear solves.
 *
 * Double backend: GSL.  SVD by gsl_linalg_SV_decomp_jacobi (one-sided
 * Jacobi, high relative accuracy) on the tall orientation (a wide A is
 * transposed, A^T = X S Y^T gives A = Y S X^T); eigenvalues by
 * gsl_eigen_symm(v); solves by gsl_linalg_LU_decomp/solve.  GSL's error
 * handler is switched off around each call so that non-convergence comes
 * back as a status instead of an abort.
 *
 * MPFR backend, all at working precision wp = p + 32 (p = precision of A),
 * results rounded once to p at the end:
 *  - SVD: one-sided (Hestenes) Jacobi on the columns of the tall matrix W
 *    (m x n).  A pair (i,j) is rotated while |w_i.w_j| > m 2^-wp |w_i||w_j|.
 *    A rotation leaves a residual cosine of a few 2^-wp (the rounding of
 *    the rotated entries; the dot products themselves are exact products
 *    summed once by mpfr_sum), so a threshold proportional to 2^-wp is
 *    attainable, and the factor m (Demmel-Veselic) keeps it above that
 *    noise for any column length.  On exit the columns are orthogonal to
 *    within that cosine, which perturbs each singular value by a relative
 *    O(n m 2^-wp) = O(n m 2^-32) 2^-p: below the final rounding to p bits
 *    for n m up to ~2^24.  Squared column norms are recomputed exactly at
 *    the start of each sweep and updated after each rotation (recomputed
 *    if the update cancels); the returned singular values are recomputed
 *    from the final columns.
 *  - Zero singular values leave zero columns in the orthogonalised factor;
 *    they are replaced by completing orthonormal vectors (both backends),
 *    so U and V always have orthonormal columns.
 *  - symmetric eigenvalues: cyclic Jacobi with Rutishauser's update
 *    (a_pp -= t a_pq, a_qq += t a_pq, a_pq = 0).  a_pq is left alone when
 *    |a_pq| <= 2^-wp max(sqrt|a_pp a_qq|, |A|_F / n); the entries left then
 *    have Frobenius norm <= n 2^-wp |A|_F, so by Weyl every eigenvalue is
 *    within n 2^-32 2^-p |A|_F of the exact eigenvalue of the (rounded)
 *    input -- again below the final rounding.  The input is symmetrised,
 *    (A + A^T)/2, in both backends.
 *  - solve: Gaussian elimination with partial pivoting; back substitution
 *    with exactly rounded dot products.  An exactly zero pivot means A is
 *    (numerically exactly) singular: nonzero is returned, X is set to NaN.
 * (To these add the backward error of the rotations themselves, a modest
 * multiple of sweeps * n * 2^-wp |A|: the 32 guard bits absorb it too.)
 * Both Jacobi methods stop after MAX_SWEEPS sweeps and return nonzero if a
 * sweep still rotated (about 10 sweeps are typical at 256 bits, n = 32).
 * Non-finite input returns nonzero with NaN outputs.
 *
 * Arb backend: singular values and symmetric eigenvalues are rigorous
 * enclosures (balls containing the exact values for every matrix in the
 * input balls): the decomposition runs in MPFR on the midpoints at p + 32
 * bits, and Weyl's inequality plus Ostrowski's theorem, evaluated in ball
 * arithmetic on the midpoint factors, bound the distance (see the section
 * "Arb: rigorous value enclosures" below).  Singular/eigen VECTORS are the
 * midpoint results as exact balls: asking for them (U, V, eigenvectors)
 * increments the thread-local taint counter (lm_arb_taint), which marks the
 * evaluation as not certifiable.  solve
 * uses arb_mat_solve (rigorous: the balls contain the exact solution for
 * every matrix in the input balls) at p + 32 bits; only if Arb cannot prove
 * A invertible does it fall back to the MPFR midpoint solve (and taint).
 */
#include <assert.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lm_mat.h"
#include "linalg_priv.h"
#include "../num/num_priv.h"
#include <arb_mat.h>

#define RND MPFR_RNDN
#define GUARD 32
#define MAX_SWEEPS 100

/* ---- helpers ----------------------------------------------------------- */


static mpfr_ptr el(const lm_mat *A, int i, int j)
{
    return A->m[(size_t)i * (size_t)A->c + (size_t)j];
}

static lm_ctx work_ctx(const lm_mat *A)
{
    return A->mp ? lm_ctx_mpfr(A->prec + GUARD) : lm_ctx_double();
}

static void ensure_shape(lm_mat *M, int r, int c)
{
    if (M && (M->r != r || M->c != c)) lm_mat_resize(M, r, c);
}

static void fill_nan_nums(lm_num *s, int k)
{
    for (int i = 0; s && i < k; i++) lm_num_set_d(&s[i], NAN);
}

static void fill_nan_mat(lm_mat *M)
{
    for (int i = 0; M && i < M->r; i++)
        for (int j = 0; j < M->c; j++) lm_mat_set_d(M, i, j, NAN);
}

/* order[0..k) sorts val ascending (dir = +1) or descending (dir = -1) */
static void sort_order(int *order, const lm_num *val, int k, int dir)
{
    for (int i = 0; i < k; i++) order[i] = i;
    for (int i = 1; i < k; i++) {
        int o = order[i], j = i;
        while (j > 0 && dir * lm_num_cmp(&val[order[j - 1]], &val[o]) > 0) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = o;
    }
}

/* dst[:, j] = src[:, order[j]] (rows 0..dst->r), converting precision */
static void put_cols(lm_mat *dst, const lm_mat *src, const int *order)
{
    if (!dst) return;
    lm_ctx c = lm_mat_ctx(src);
    lm_num t;
    lm_num_init(&t, &c);
    for (int i = 0; i < dst->r; i++)
        for (int j = 0; j < dst->c; j++) {
            lm_mat_get(&t, src, i, order[j]);
            lm_mat_set(dst, i, j, &t);
        }
    lm_num_clear(&t);
}







/* r = sum_i W[i,p] W[i,q] (correctly rounded) */
static void col_dot(mpfr_ptr r, lm_acc *acc, const lm_mat *W, int p, int q)
{
    for (int i = 0; i < W->r; i++) lm_acc_prod(acc, el(W, i, p), el(W, i, q), 0);
    lm_acc_sum(r, acc);
}

/* columns (p, q) <- (c w_p - s w_q, s w_p + c w_q), each entry rounded once */
static void rot_cols(lm_mat *W, int p, int q, mpfr_srcptr c, mpfr_srcptr s, mpfr_ptr t)
{
    for (int i = 0; i < W->r; i++) {
        mpfr_ptr x = el(W, i, p), y = el(W, i, q);
        mpfr_fmms(t, c, x, s, y, RND);
        mpfr_fmma(y, s, x, c, y, RND);
        mpfr_swap(x, t);
    }
}

/* Jacobi rotation annihilating a_pq of [[app apq][apq aqq]]:
 * tau = (aqq - app) / (2 apq), t = sgn(tau) / (|tau| + sqrt(1 + tau^2)),
 * c = 1 / sqrt(1 + t^2), s = c t.  t is the smaller root (|t| <= 1). */
static void jacobi_cs(mpfr_ptr c, mpfr_ptr s, mpfr_ptr t, mpfr_srcptr app, mpfr_srcptr aqq,
                      mpfr_srcptr apq)
{
    mpfr_sub(s, aqq, app, RND);
    mpfr_div(s, s, apq, RND);
    mpfr_div_2ui(s, s, 1, RND); /* s = tau */
    mpfr_sqr(t, s, RND);
    mpfr_add_ui(t, t, 1, RND);
    mpfr_sqrt(t, t, RND);
    mpfr_abs(c, s, RND);
    mpfr_add(t, t, c, RND);
    mpfr_ui_div(t, 1, t, RND);
    if (mpfr_sgn(s) < 0) mpfr_neg(t, t, RND);
    mpfr_sqr(c, t, RND);
    mpfr_add_ui(c, c, 1, RND);
    mpfr_rec_sqrt(c, c, RND);
    mpfr_mul(s, c, t, RND);
}

/* ---- SVD: MPFR one-sided Jacobi ---------------------------------------- */

/* After a rotation the squared column norms are updated as in the 2x2
 * eigenproblem, |w_p|^2 -= t g and |w_q|^2 += t g; when that cancels more
 * than half of the old value the norm is recomputed from the column. */
static void update_norm(mpfr_ptr nrm, mpfr_srcptr tg, int sign, lm_acc *acc, const lm_mat *W,
                        int p, mpfr_ptr old)
{
    mpfr_set(old, nrm, RND);
    if (sign < 0) mpfr_sub(nrm, nrm, tg, RND);
    else mpfr_add(nrm, nrm, tg, RND);
    mpfr_mul_2ui(nrm, nrm, 1, RND);
    int lost = mpfr_cmp(nrm, old) < 0;
    mpfr_div_2ui(nrm, nrm, 1, RND);
    if (lost) col_dot(nrm, acc, W, p, p);
}

/* one sweep over all column pairs (nrm: squared column norms); returns the
 * number of rotations */
static long hestenes_sweep(lm_mat *W, lm_mat *Y, lm_acc *acc, mpfr_t *nrm, mpfr_t *v)
{
    mpfr_ptr ga = v[0], thr = v[1], c = v[2], s = v[3], t = v[4], flo = v[5];
    long rot = 0;
    mpfr_set_zero(flo, 1);
    for (int j = 0; j < W->c; j++) {
        col_dot(nrm[j], acc, W, j, j);
        mpfr_add(flo, flo, nrm[j], RND);
    }
    /* absolute floor m 2^-2wp |A|_F^2: a pair left unrotated below it moves
     * no singular value by more than ~2^-wp |A|_F, and without it two
     * columns that are pure rounding noise (a rank-deficient, strongly
     * graded A) can keep rotating forever */
    mpfr_mul_ui(flo, flo, (unsigned long)W->r, RND);
    mpfr_div_2ui(flo, flo, 2 * (unsigned long)W->prec, RND);
    for (int p = 0; p < W->c - 1; p++)
        for (int q = p + 1; q < W->c; q++) {
            col_dot(ga, acc, W, p, q);
            if (mpfr_zero_p(ga)) continue;
            mpfr_mul(thr, nrm[p], nrm[q], RND);
            mpfr_sqrt(thr, thr, RND);
            mpfr_mul_ui(thr, thr, (unsigned long)W->r, RND);
            mpfr_div_2ui(thr, thr, (unsigned long)W->prec, RND);
            if (mpfr_cmp(thr, flo) < 0) mpfr_set(thr, flo, RND);
            if (mpfr_cmpabs(ga, thr) <= 0) continue;
            jacobi_cs(c, s, t, nrm[p], nrm[q], ga);
            rot_cols(W, p, q, c, s, thr);
            if (Y) rot_cols(Y, p, q, c, s, thr);
            mpfr_mul(ga, t, ga, RND);
            update_norm(nrm[p], ga, -1, acc, W, p, thr);
            update_norm(nrm[q], ga, +1, acc, W, q, thr);
            rot++;
        }
    return rot;
}

/* W (m x n, m >= n) -> X with orthonormal columns, val = column norms,
 * Y (optional) accumulates the rotations: W_in = X diag(val) Y^T. */
static int svd_mp(lm_num *val, lm_mat *W, lm_mat *Y)
{
    lm_acc acc;
    mpfr_t v[6];
    int st = 1, n = W->c;
    mpfr_t *nrm = lm_xcalloc((size_t)n, sizeof *nrm);
    for (int i = 0; i < 6; i++) mpfr_init2(v[i], W->prec);
    for (int j = 0; j < n; j++) mpfr_init2(nrm[j], W->prec);
    lm_acc_init(&acc, (size_t)W->r, 2 * W->prec);
    if (Y) lm_mat_set_identity(Y);
    for (int sw = 0; sw < MAX_SWEEPS && st; sw++)
        if (hestenes_sweep(W, Y, &acc, nrm, v) == 0) st = 0;
    for (int j = 0; j < n; j++) {
        col_dot(val[j].m, &acc, W, j, j);
        mpfr_sqrt(val[j].m, val[j].m, RND);
        for (int i = 0; i < W->r; i++) {
            if (mpfr_zero_p(val[j].m)) mpfr_set_zero(el(W, i, j), 1);
            else mpfr_div(el(W, i, j), el(W, i, j), val[j].m, RND);
        }
    }
    lm_acc_clear(&acc);
    for (int i = 0; i < 6; i++) mpfr_clear(v[i]);
    for (int j = 0; j < n; j++) mpfr_clear(nrm[j]);
    free(nrm);
    return st;
}

/* ---- SVD: double via GSL ----------------------------------------------- */

static int svd_gsl(lm_num *val, lm_mat *W, lm_mat *Y)
{
    size_t m = (size_t)W->r, n = (size_t)W->c;
    gsl_matrix_view Wv = gsl_matrix_view_array(W->d, m, n);
    gsl_matrix *Q = Y ? NULL : gsl_matrix_alloc(n, n);
    gsl_matrix_view Yv;
    if (Y) Yv = gsl_matrix_view_array(Y->d, n, n);
    gsl_vector *S = gsl_vector_alloc(n);
    /* scale by a power of two so the largest entry is ~1: GSL's Jacobi squares
     * column norms, which underflow for entries below ~1e-154 (saturated
     * softmax Jacobians) and overflow above ~1e154.  Exact, and undone below. */
    double amax = 0;
    for (size_t k = 0; k < m * n; k++) amax = fmax(amax, fabs(W->d[k]));
    int e = 0;
    if (amax > 0 && isfinite(amax)) {
        frexp(amax, &e);
        for (size_t k = 0; k < m * n; k++) W->d[k] = ldexp(W->d[k], -e);
    }
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    /* one-sided Jacobi (accurate small singular values); on the rare matrix where it does not
     * reach its tolerance within its sweep limit, Golub-Reinsch on the same (scaled) input,
     * which leaves its factors in the same places (W <- U, Q <- V) */
    double *keep = malloc(m * n * sizeof *keep);
    if (keep) memcpy(keep, W->d, m * n * sizeof *keep);
    int st = gsl_linalg_SV_decomp_jacobi(&Wv.matrix, Y ? &Yv.matrix : Q, S);
    if (st && keep && m >= n) {
        memcpy(W->d, keep, m * n * sizeof *keep);
        gsl_vector *work = gsl_vector_alloc(n);
        st = work ? gsl_linalg_SV_decomp(&Wv.matrix, Y ? &Yv.matrix : Q, S, work) : st;
        if (work) gsl_vector_free(work);
        for (size_t j = 0; !st && j < n; j++)
            if (!isfinite(gsl_vector_get(S, j))) st = 1;
    }
    free(keep);
    gsl_set_error_handler(old);
    for (size_t j = 0; j < n; j++) val[j].d = ldexp(gsl_vector_get(S, j), e);
    gsl_vector_free(S);
    if (Q) gsl_matrix_free(Q);
    return st != 0;
}

/* ---- basis completion --------------------------------------------------- */

/* Replace column j of X (a zero column left by a zero singular value) by a
 * unit vector orthogonal to the columns flagged in `keep`: the unit vector
 * e_i with the largest residual after two Gram-Schmidt passes (some e_i has
 * residual >= 1/sqrt(m) since fewer than m columns are kept). */
static void complete_column(lm_mat *X, int j, const char *keep)
{
    lm_ctx c = lm_mat_ctx(X);
    int m = X->r;
    lm_mat *v = lm_mat_new(m, 1, &c), *best = lm_mat_new(m, 1, &c), *col = lm_mat_new(m, 1, &c);
    lm_num d, nrm, bn;
    lm_num_inits(&c, &d, &nrm, &bn, (lm_num *)NULL);
    for (int i = 0; i < m; i++) {
        lm_mat_zero(v);
        lm_mat_set_d(v, i, 0, 1.0);
        for (int pass = 0; pass < 2; pass++)
            for (int l = 0; l < X->c; l++) {
                if (!keep[l] || l == j) continue;
                lm_mat_get_block(col, X, 0, l);
                lm_mat_dot(&d, col, v);
                lm_num_neg(&d, &d);
                lm_mat_axpy(v, &d, col);
            }
        lm_mat_frob(&nrm, v);
        if (lm_num_cmp(&nrm, &bn) > 0) {
            lm_num_set(&bn, &nrm);
            lm_mat_copy(best, v);
        }
    }
    lm_num_set_d(&nrm, 1.0);
    lm_num_div(&nrm, &nrm, &bn);
    lm_mat_scale(best, best, &nrm);
    lm_mat_set_block(X, 0, j, best);
    lm_num_clears(&d, &nrm, &bn, (lm_num *)NULL);
    lm_mat_free(v), lm_mat_free(best), lm_mat_free(col);
}

/* give every exactly zero column of X a completing orthonormal vector */
static void complete_basis(lm_mat *X)
{
    char *keep = lm_xcalloc((size_t)X->c, 1);
    lm_ctx c = lm_mat_ctx(X);
    lm_mat *col = lm_mat_new(X->r, 1, &c);
    lm_num t;
    lm_num_init(&t, &c);
    for (int l = 0; l < X->c; l++) {
        lm_mat_get_block(col, X, 0, l);
        lm_mat_max_abs(&t, col);
        keep[l] = !lm_num_iszero(&t);
    }
    for (int l = 0; l < X->c; l++)
        if (!keep[l]) {
            complete_column(X, l, keep);
            keep[l] = 1;
        }
    lm_num_clear(&t);
    lm_mat_free(col);
    free(keep);
}

/* ---- Arb: rigorous value enclosures around a midpoint decomposition ----
 *
 * The decomposition itself runs in MPFR on the midpoints (at p + GUARD bits,
 * so that its factors carry more bits than the balls), and is then checked in
 * ball arithmetic at p + 2 GUARD bits:
 *
 *  - SVD.  With U~ (r x k1), V~ (c x k1), S~ = diag(s~_1 >= ... >= s~_k1) the
 *    kept part of the midpoint SVD and B = U~ S~ V~^T formed exactly (balls),
 *      delta >= ||A' - B||_F >= ||A' - B||_2   for every A' in the input balls,
 *      eu >= ||U~^T U~ - I||_F,  ev >= ||V~^T V~ - I||_F,  eu, ev < 1.
 *    sigma_i(B)^2 = lambda_i(S~ V~^T V~ S~ ...) is s~_i^2 times a factor in
 *    [(1-eu)(1-ev), (1+eu)(1+ev)] (Ostrowski, twice: through U~^T U~ and
 *    through V~^T V~), sigma_i(B) = 0 for i > k1, and by Weyl
 *    |sigma_i(A') - sigma_i(B)| <= delta.  The ball returned for sigma_i is
 *    s~_i [sqrt((1-eu)(1-ev)), sqrt((1+eu)(1+ev))] + [-delta, delta],
 *    clipped at 0.  Singular values at the noise level of the midpoint SVD
 *    (columns left unrotated below its floor, whose normalised directions
 *    need not be orthogonal) are dropped from B (k1 < k): they then count
 *    in delta.  Several drop thresholds are tried and the enclosures
 *    intersected (each is valid on its own).
 *  - symmetric eigenvalues of As = (A + A^T)/2 (formed in balls): with Q~
 *    the midpoint eigenvectors, w~ ascending, B = Q~ diag(w~) Q~^T,
 *    e >= ||Q~^T Q~ - I||_F < 1 and delta >= ||As' - B||_F:
 *    lambda_i(B) = theta_i w~_i, theta_i in [1-e, 1+e] (Ostrowski, index
 *    preserving), so lambda_i(As') lies in w~_i [1-e, 1+e] + [-delta, delta].
 *
 * The vectors are not enclosed: when a caller asks for U, V or the
 * eigenvectors it gets the midpoint vectors as exact balls and the
 * evaluation is tainted (lm_arb_taint).  Values alone never taint, except
 * when the checks above fail (an orthogonality defect >= 1, i.e. a failed
 * midpoint decomposition): then the midpoint values are returned and the
 * evaluation is tainted. */

/* set by the *_hint entry points: the caller uses the vectors only to choose
 * an instance, so midpoint vectors do not taint */
static _Thread_local int vec_hint;

/* the MPFR matrix of A's midpoints at prec bits */
static lm_mat *mid_mpfr_at(const lm_mat *A, mpfr_prec_t prec)
{
    lm_ctx mc = lm_ctx_mpfr(prec);
    lm_mat *M = lm_mat_new(A->r, A->c, &mc);
    lm_mat_copy(M, A);
    return M;
}

static lm_mat *mid_mpfr(const lm_mat *A)
{
    return mid_mpfr_at(A, A->prec);
}

/* copy an MPFR result back (exact balls rounded to dst's precision) */
static void put_back(lm_mat *dst, const lm_mat *src)
{
    if (dst && src) lm_mat_copy(dst, src);
}

static void put_back_nums(lm_num *dst, const lm_num *src, int k)
{
    for (int i = 0; dst && i < k; i++) lm_num_set(&dst[i], &src[i]);
}

/* D = the ball matrix of an Arb lm_mat (same shape) */
static void arbmat_of(arb_mat_t D, const lm_mat *A)
{
    for (slong i = 0; i < A->r; i++)
        for (slong j = 0; j < A->c; j++) arb_set(arb_mat_entry(D, i, j), A->b + i * A->c + j);
}

/* D = the first k columns of the MPFR matrix M, as exact balls */
static void arbmat_of_mp(arb_mat_t D, const lm_mat *M, int k)
{
    for (slong i = 0; i < M->r; i++)
        for (slong j = 0; j < k; j++) lm_arb_set_mpfr(arb_mat_entry(D, i, j), el(M, (int)i, (int)j));
}

/* e >= ||X^T X - I||_F for the ball matrix X (n x k) */
static void orth_defect(mag_t e, const arb_mat_t X, slong wp)
{
    arb_mat_t Xt, G;
    arb_mat_init(Xt, arb_mat_ncols(X), arb_mat_nrows(X));
    arb_mat_init(G, arb_mat_ncols(X), arb_mat_ncols(X));
    arb_mat_transpose(Xt, X);
    arb_mat_mul(G, Xt, X, wp);
    for (slong i = 0; i < arb_mat_nrows(G); i++)
        arb_sub_ui(arb_mat_entry(G, i, i), arb_mat_entry(G, i, i), 1, wp);
    arb_mat_bound_frobenius_norm(e, G);
    arb_mat_clear(Xt);
    arb_mat_clear(G);
}

/* delta >= ||A - X diag(d) Y^T||_F for every matrix in the balls A;
 * X: r x k, Y: c x k, d: k exact balls */
static void resid_bound(mag_t delta, const arb_mat_t A, const arb_mat_t X, arb_srcptr d,
                        const arb_mat_t Y, slong wp)
{
    slong k = arb_mat_ncols(X);
    arb_mat_t XD, Yt, B;
    arb_mat_init(XD, arb_mat_nrows(X), k);
    arb_mat_init(Yt, k, arb_mat_nrows(Y));
    arb_mat_init(B, arb_mat_nrows(A), arb_mat_ncols(A));
    for (slong i = 0; i < arb_mat_nrows(X); i++)
        for (slong j = 0; j < k; j++) arb_mul(arb_mat_entry(XD, i, j), arb_mat_entry(X, i, j), d + j, wp);
    arb_mat_transpose(Yt, Y);
    if (k > 0) arb_mat_mul(B, XD, Yt, wp);
    arb_mat_sub(B, A, B, wp);
    arb_mat_bound_frobenius_norm(delta, B);
    arb_mat_clear(XD);
    arb_mat_clear(Yt);
    arb_mat_clear(B);
}

/* the ball [lo, hi] with lo <= sqrt((1-eu)(1-ev)), hi >= sqrt((1+eu)(1+ev))
 * (ev may be NULL: then (1-eu), (1+eu) without the square root) */
static void factor_ball(arb_t f, const mag_t eu, const mag_t ev, slong wp)
{
    arb_t a, b, t;
    arf_t lo, hi;
    arb_init(a), arb_init(b), arb_init(t);
    arf_init(lo), arf_init(hi);
    for (int side = 0; side < 2; side++) {
        arb_one(a);
        arb_zero(t);
        arf_set_mag(arb_midref(t), eu);
        if (side) arb_add(a, a, t, wp);
        else arb_sub(a, a, t, wp);
        if (ev) {
            arb_one(b);
            arb_zero(t);
            arf_set_mag(arb_midref(t), ev);
            if (side) arb_add(b, b, t, wp);
            else arb_sub(b, b, t, wp);
            arb_mul(a, a, b, wp);
            arb_sqrt(a, a, wp);
        }
        if (side) arb_get_ubound_arf(hi, a, wp);
        else arb_get_lbound_arf(lo, a, wp);
    }
    arb_set_interval_arf(f, lo, hi, wp);
    arb_clear(a), arb_clear(b), arb_clear(t);
    arf_clear(lo), arf_clear(hi);
}

/* mag_cmp_2exp_si(e, 0) < 0, i.e. e < 1 */
static int mag_lt_one(const mag_t e)
{
    return mag_cmp_2exp_si(e, 0) < 0;
}

/* enclosures y[0..k) of the singular values of every matrix in Ab from the
 * midpoint SVD (Um, sv, Vm), keeping the k1 leading triplets; 0 when the
 * orthogonality checks fail */
static int svd_enclose(arb_ptr y, const arb_mat_t Ab, const lm_mat *Um, const lm_num *sv,
                       const lm_mat *Vm, int k, int k1, slong wp)
{
    arb_mat_t X, Y;
    arb_ptr d = _arb_vec_init(k1 ? k1 : 1);
    mag_t eu, ev, delta;
    arb_t f;
    int ok;
    mag_init(eu), mag_init(ev), mag_init(delta);
    arb_init(f);
    arb_mat_init(X, Um->r, k1);
    arb_mat_init(Y, Vm->r, k1);
    arbmat_of_mp(X, Um, k1);
    arbmat_of_mp(Y, Vm, k1);
    for (int j = 0; j < k1; j++) lm_arb_set_mpfr(d + j, sv[j].m);
    orth_defect(eu, X, wp);
    orth_defect(ev, Y, wp);
    ok = mag_lt_one(eu) && mag_lt_one(ev);
    if (ok) {
        resid_bound(delta, Ab, X, d, Y, wp);
        factor_ball(f, eu, ev, wp);
        for (int i = 0; i < k; i++) {
            if (i < k1) arb_mul(y + i, d + i, f, wp);
            else arb_zero(y + i);
            arb_add_error_mag(y + i, delta);
            arb_nonnegative_part(y + i, y + i);
        }
    }
    mag_clear(eu), mag_clear(ev), mag_clear(delta);
    arb_clear(f);
    arb_mat_clear(X);
    arb_mat_clear(Y);
    _arb_vec_clear(d, k1 ? k1 : 1);
    return ok;
}

static int svd_ab(lm_num *s, lm_mat *U, lm_mat *V, const lm_mat *A, int k)
{
    mpfr_prec_t mp = A->prec + GUARD;
    slong wp = (slong)A->prec + 2 * GUARD;
    lm_mat *M = mid_mpfr_at(A, mp);
    lm_ctx mc = lm_mat_ctx(M);
    lm_mat *Um = lm_mat_new(A->r, k, &mc), *Vm = lm_mat_new(A->c, k, &mc);
    lm_num *sm = lm_nums_new(k, &mc);
    int st = lm_mat_svd(sm, Um, Vm, M), ok = 0;
    arb_mat_t Ab;
    arb_ptr y = _arb_vec_init(k), z = _arb_vec_init(k);
    arb_mat_init(Ab, A->r, A->c);
    arbmat_of(Ab, A);
    /* drop thresholds s~_0 2^-e: the noise level of the midpoint SVD first,
     * then coarser ones when the noise columns spoil the orthogonality */
    const long drop[3] = { (long)mp - 16, (long)mp / 2, (long)mp / 4 };
    for (int a = 0; a < 3; a++) {
        int k1 = 0;
        while (k1 < k && mpfr_sgn(sm[k1].m) > 0 &&
               (long)mpfr_get_exp(sm[k1].m) > (long)mpfr_get_exp(sm[0].m) - drop[a])
            k1++;
        if (!svd_enclose(z, Ab, Um, sm, Vm, k, k1, wp)) continue;
        for (int i = 0; i < k; i++)
            if (!ok) arb_set(y + i, z + i);
            else if (!arb_intersection(y + i, y + i, z + i, wp)) arb_set(y + i, z + i); /* cannot happen */
        ok = 1;
    }
    if (ok)
        for (int i = 0; s && i < k; i++) {
            arb_set_round(s[i].b, y + i, s[i].ap);
            arb_nonnegative_part(s[i].b, s[i].b); /* again: the rounding may reach below 0 */
        }
    else {
        lm_arb_taint_add(1); /* no rigorous enclosure: midpoint values */
        put_back_nums(s, sm, k);
    }
    if ((U || V) && !vec_hint) lm_arb_taint_add(1); /* the vectors are midpoint results */
    put_back(U, Um);
    put_back(V, Vm);
    arb_mat_clear(Ab);
    _arb_vec_clear(y, k);
    _arb_vec_clear(z, k);
    lm_nums_free(sm, k);
    lm_mat_free(Um);
    lm_mat_free(Vm);
    lm_mat_free(M);
    return st;
}

static int symeig_ab(lm_num *w, lm_mat *V, const lm_mat *A)
{
    int n = A->r, ok;
    mpfr_prec_t mp = A->prec + GUARD;
    slong wp = (slong)A->prec + 2 * GUARD;
    arb_mat_t Ab, At, Q;
    arb_mat_init(Ab, n, n);
    arb_mat_init(At, n, n);
    arb_mat_init(Q, n, n);
    arbmat_of(Ab, A);
    arb_mat_transpose(At, Ab);
    arb_mat_add(Ab, Ab, At, wp);
    arb_mat_scalar_mul_2exp_si(Ab, Ab, -1); /* (A + A^T)/2, rigorous */
    lm_ctx mc = lm_ctx_mpfr(mp);
    lm_mat *M = lm_mat_new(n, n, &mc), *Qm = lm_mat_new(n, n, &mc);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) lm_arf_get_mpfr(el(M, i, j), arb_midref(arb_mat_entry(Ab, i, j)));
    lm_num *wm = lm_nums_new(n, &mc);
    int st = lm_mat_symeig(wm, Qm, M);
    arb_ptr d = _arb_vec_init(n);
    mag_t e, delta;
    arb_t f;
    mag_init(e), mag_init(delta);
    arb_init(f);
    arbmat_of_mp(Q, Qm, n);
    for (int j = 0; j < n; j++) lm_arb_set_mpfr(d + j, wm[j].m);
    orth_defect(e, Q, wp);
    ok = mag_lt_one(e);
    if (ok) {
        resid_bound(delta, Ab, Q, d, Q, wp);
        factor_ball(f, e, NULL, wp);
        for (int i = 0; w && i < n; i++) {
            arb_mul(d + i, d + i, f, wp);
            arb_add_error_mag(d + i, delta);
            arb_set_round(w[i].b, d + i, w[i].ap);
        }
    } else {
        lm_arb_taint_add(1); /* no rigorous enclosure: midpoint values */
        put_back_nums(w, wm, n);
    }
    if (V && !vec_hint) lm_arb_taint_add(1); /* the vectors are midpoint results */
    put_back(V, Qm);
    mag_clear(e), mag_clear(delta);
    arb_clear(f);
    _arb_vec_clear(d, n);
    arb_mat_clear(Ab);
    arb_mat_clear(At);
    arb_mat_clear(Q);
    lm_nums_free(wm, n);
    lm_mat_free(Qm);
    lm_mat_free(M);
    return st;
}

/* rigorous solve by arb_mat_solve; 0 on success, 1 when Arb could not
 * certify A invertible (X untouched) */
static int solve_arb_mat(lm_mat *X, const lm_mat *A, const lm_mat *B)
{
    slong n = A->r, m = B->c, wp = X->prec + GUARD;
    arb_mat_t Am, Bm, Xm;
    arb_mat_init(Am, n, n);
    arb_mat_init(Bm, n, m);
    arb_mat_init(Xm, n, m);
    for (slong i = 0; i < n; i++) {
        for (slong j = 0; j < n; j++) arb_set(arb_mat_entry(Am, i, j), A->b + i * n + j);
        for (slong j = 0; j < m; j++) arb_set(arb_mat_entry(Bm, i, j), B->b + i * m + j);
    }
    int ok = arb_mat_solve(Xm, Am, Bm, wp);
    if (ok)
        for (slong i = 0; i < n; i++)
            for (slong j = 0; j < m; j++) arb_set_round(X->b + i * m + j, arb_mat_entry(Xm, i, j), X->prec);
    arb_mat_clear(Am);
    arb_mat_clear(Bm);
    arb_mat_clear(Xm);
    return !ok;
}

static int solve_ab(lm_mat *X, const lm_mat *A, const lm_mat *B)
{
    assert(X->ab && B->ab);
    if (!solve_arb_mat(X, A, B)) return 0;
    /* not certified: the MPFR solve on the midpoints, tainted */
    lm_arb_taint_add(1);
    lm_mat *Am = mid_mpfr(A), *Bm = mid_mpfr(B);
    lm_ctx mc = lm_mat_ctx(Am);
    lm_mat *Xm = lm_mat_new(B->r, B->c, &mc);
    int st = lm_mat_solve(Xm, Am, Bm);
    lm_mat_copy(X, Xm);
    lm_mat_free(Xm);
    lm_mat_free(Bm);
    lm_mat_free(Am);
    return st;
}

/* ---- SVD driver -------------------------------------------------------- */

int lm_mat_svd(lm_num *s, lm_mat *U, lm_mat *V, const lm_mat *A)
{
    int k = A->r < A->c ? A->r : A->c, tall = A->r >= A->c;
    ensure_shape(U, A->r, k);
    ensure_shape(V, A->c, k);
    if (k == 0) return 0;
    if (!lm_mat_isfinite(A)) {
        fill_nan_nums(s, k);
        fill_nan_mat(U);
        fill_nan_mat(V);
        return 1;
    }
    if (A->ab) return svd_ab(s, U, V, A, k);
    lm_ctx wc = work_ctx(A);
    lm_mat *W = lm_mat_new(tall ? A->r : A->c, k, &wc);
    lm_mat *Y = (U || V) ? lm_mat_new(k, k, &wc) : NULL;
    lm_num *val = lm_nums_new(k, &wc);
    int *order = lm_xcalloc((size_t)k, sizeof *order);
    if (tall) lm_mat_copy(W, A);
    else lm_mat_transpose(W, A);
    int st = A->mp ? svd_mp(val, W, Y) : svd_gsl(val, W, Y);
    if (Y) complete_basis(W);
    sort_order(order, val, k, -1);
    for (int i = 0; s && i < k; i++) lm_num_set(&s[i], &val[order[i]]);
    put_cols(U, tall ? W : Y, order);
    put_cols(V, tall ? Y : W, order);
    free(order);
    lm_nums_free(val, k);
    lm_mat_free(Y);
    lm_mat_free(W);
    return st;
}

int lm_mat_svals(lm_num *s, const lm_mat *A)
{
    return lm_mat_svd(s, NULL, NULL, A);
}

/* which = 0: largest, 1: smallest singular value; 0 for an empty matrix */
static int sval_end(lm_num *r, const lm_mat *A, int which)
{
    int k = A->r < A->c ? A->r : A->c;
    if (k == 0) {
        lm_num_set_d(r, 0.0);
        return 0;
    }
    lm_ctx c = lm_mat_ctx(A);
    lm_num *s = lm_nums_new(k, &c);
    int st = lm_mat_svals(s, A);
    lm_num_set(r, &s[which ? k - 1 : 0]);
    lm_nums_free(s, k);
    return st;
}

int lm_mat_smax(lm_num *r, const lm_mat *A)
{
    return sval_end(r, A, 0);
}

int lm_mat_smin(lm_num *r, const lm_mat *A)
{
    return sval_end(r, A, 1);
}

/* ---- symmetric eigenproblem -------------------------------------------- */

/* rotate rows/columns p, q of the symmetric W by (c, s); Rutishauser update
 * of the 2x2 block with t = s/c */
static void eig_rotate(lm_mat *W, int p, int q, mpfr_t *v)
{
    mpfr_ptr c = v[0], s = v[1], t = v[2], x = v[3];
    for (int k = 0; k < W->r; k++) {
        if (k == p || k == q) continue;
        mpfr_ptr a = el(W, k, p), b = el(W, k, q);
        mpfr_fmms(x, c, a, s, b, RND);
        mpfr_fmma(b, s, a, c, b, RND);
        mpfr_swap(a, x);
        mpfr_set(el(W, p, k), a, RND);
        mpfr_set(el(W, q, k), b, RND);
    }
    mpfr_mul(x, t, el(W, p, q), RND);
    mpfr_sub(el(W, p, p), el(W, p, p), x, RND);
    mpfr_add(el(W, q, q), el(W, q, q), x, RND);
    mpfr_set_zero(el(W, p, q), 1);
    mpfr_set_zero(el(W, q, p), 1);
}

/* 1 when a_pq must be rotated away (see the threshold in the header) */
static int eig_offdiag_big(const lm_mat *W, int p, int q, mpfr_srcptr floor_, mpfr_ptr thr)
{
    mpfr_mul(thr, el(W, p, p), el(W, q, q), RND);
    mpfr_abs(thr, thr, RND);
    mpfr_sqrt(thr, thr, RND);
    mpfr_max(thr, thr, floor_, RND);
    mpfr_div_2ui(thr, thr, (unsigned long)W->prec, RND);
    return mpfr_cmpabs(el(W, p, q), thr) > 0;
}

static long eig_sweep(lm_mat *W, lm_mat *Y, mpfr_srcptr floor_, mpfr_t *v)
{
    long rot = 0;
    for (int p = 0; p < W->r - 1; p++)
        for (int q = p + 1; q < W->r; q++) {
            if (!eig_offdiag_big(W, p, q, floor_, v[4])) continue;
            jacobi_cs(v[0], v[1], v[2], el(W, p, p), el(W, q, q), el(W, p, q));
            eig_rotate(W, p, q, v);
            if (Y) rot_cols(Y, p, q, v[0], v[1], v[3]);
            rot++;
        }
    return rot;
}

static int eig_mp(lm_num *val, lm_mat *W, lm_mat *Y)
{
    int n = W->r, st = 1;
    mpfr_t v[5], floor_;
    lm_num nf;
    lm_ctx wc = lm_mat_ctx(W);
    for (int i = 0; i < 5; i++) mpfr_init2(v[i], W->prec);
    mpfr_init2(floor_, W->prec);
    lm_num_init(&nf, &wc);
    lm_mat_frob(&nf, W);
    mpfr_div_ui(floor_, nf.m, (unsigned long)n, RND);
    if (Y) lm_mat_set_identity(Y);
    for (int sw = 0; sw < MAX_SWEEPS && st; sw++)
        if (eig_sweep(W, Y, floor_, v) == 0) st = 0;
    for (int i = 0; i < n; i++) mpfr_set(val[i].m, el(W, i, i), RND);
    for (int i = 0; i < 5; i++) mpfr_clear(v[i]);
    mpfr_clear(floor_);
    lm_num_clear(&nf);
    return st;
}

static int eig_gsl(lm_num *val, lm_mat *W, lm_mat *Y)
{
    size_t n = (size_t)W->r;
    gsl_matrix_view Wv = gsl_matrix_view_array(W->d, n, n);
    gsl_vector *ev = gsl_vector_alloc(n);
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    int st;
    if (Y) {
        gsl_matrix_view Yv = gsl_matrix_view_array(Y->d, n, n);
        gsl_eigen_symmv_workspace *ws = gsl_eigen_symmv_alloc(n);
        st = gsl_eigen_symmv(&Wv.matrix, ev, &Yv.matrix, ws);
        gsl_eigen_symmv_free(ws);
    } else {
        gsl_eigen_symm_workspace *ws = gsl_eigen_symm_alloc(n);
        st = gsl_eigen_symm(&Wv.matrix, ev, ws);
        gsl_eigen_symm_free(ws);
    }
    gsl_set_error_handler(old);
    for (size_t i = 0; i < n; i++) val[i].d = gsl_vector_get(ev, i);
    gsl_vector_free(ev);
    return st != 0;
}

/* W = (A + A^T) / 2 in the working context */
static void symmetrize(lm_mat *W, const lm_mat *A)
{
    lm_mat_copy(W, A);
    for (int i = 0; i < W->r; i++)
        for (int j = i + 1; j < W->c; j++) {
            if (W->mp) {
                mpfr_add(el(W, i, j), el(W, i, j), el(W, j, i), RND);
                mpfr_div_2ui(el(W, i, j), el(W, i, j), 1, RND);
                mpfr_set(el(W, j, i), el(W, i, j), RND);
            } else {
                double *d = W->d, *a = d + (size_t)i * (size_t)W->c + (size_t)j,
                       *b = d + (size_t)j * (size_t)W->c + (size_t)i;
                *a = *b = 0.5 * *a + 0.5 * *b;
            }
        }
}

int lm_mat_symeig(lm_num *w, lm_mat *V, const lm_mat *A)
{
    int n = A->r;
    assert(A->r == A->c);
    ensure_shape(V, n, n);
    if (n == 0) return 0;
    if (!lm_mat_isfinite(A)) {
        fill_nan_nums(w, n);
        fill_nan_mat(V);
        return 1;
    }
    if (A->ab) return symeig_ab(w, V, A);
    lm_ctx wc = work_ctx(A);
    lm_mat *W = lm_mat_new(n, n, &wc), *Y = V ? lm_mat_new(n, n, &wc) : NULL;
    lm_num *val = lm_nums_new(n, &wc);
    int *order = lm_xcalloc((size_t)n, sizeof *order);
    symmetrize(W, A);
    /* double: scale by a power of two (exact) so the largest entry is near 1; GSL's
     * iteration squares entries in its convergence tests, and with entries near 1e-218
     * those squares underflow (an iteration that did not stop was seen) */
    int e2 = 0;
    if (!A->mp) {
        double m = 0.0;
        for (int i = 0; i < n * n; i++) m = fmax(m, fabs(W->d[i]));
        if (m > 0.0) {
            (void)frexp(m, &e2);
            for (int i = 0; i < n * n; i++) W->d[i] = ldexp(W->d[i], -e2);
        }
    }
    int st = A->mp ? eig_mp(val, W, Y) : eig_gsl(val, W, Y);
    if (e2)
        for (int i = 0; i < n; i++) lm_num_set_d(&val[i], ldexp(lm_num_get_d(&val[i]), e2));
    sort_order(order, val, n, 1);
    for (int i = 0; w && i < n; i++) lm_num_set(&w[i], &val[order[i]]);
    put_cols(V, Y, order);
    free(order);
    lm_nums_free(val, n);
    lm_mat_free(Y);
    lm_mat_free(W);
    return st;
}

/* ---- linear solve ------------------------------------------------------ */

static int solve_gsl(lm_mat *X, const lm_mat *A, const lm_mat *B)
{
    size_t n = (size_t)A->r, m = (size_t)B->c;
    gsl_matrix *LU = gsl_matrix_alloc(n, n);
    gsl_permutation *perm = gsl_permutation_alloc(n);
    gsl_vector *b = gsl_vector_alloc(n), *x = gsl_vector_alloc(n);
    int sg, st = 0;
    for (size_t i = 0; i < n * n; i++) LU->data[(i / n) * LU->tda + i % n] = A->d[i];
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    st = gsl_linalg_LU_decomp(LU, perm, &sg) != 0;
    for (size_t i = 0; i < n && !st; i++)
        if (gsl_matrix_get(LU, i, i) == 0.0) st = 1;
    for (size_t j = 0; j < m && !st; j++) {
        for (size_t i = 0; i < n; i++) gsl_vector_set(b, i, B->d[i * m + j]);
        st = gsl_linalg_LU_solve(LU, perm, b, x) != 0;
        for (size_t i = 0; i < n; i++) X->d[i * m + j] = gsl_vector_get(x, i);
    }
    gsl_set_error_handler(old);
    gsl_vector_free(x);
    gsl_vector_free(b);
    gsl_permutation_free(perm);
    gsl_matrix_free(LU);
    return st;
}

static void swap_rows(lm_mat *W, int a, int b)
{
    for (int j = 0; j < W->c; j++) mpfr_swap(el(W, a, j), el(W, b, j));
}

/* forward elimination on [W | Y]; 1 on an exactly zero pivot */
static int gepp_forward(lm_mat *W, lm_mat *Y, mpfr_ptr l)
{
    int n = W->r;
    for (int k = 0; k < n; k++) {
        int piv = k;
        for (int i = k + 1; i < n; i++)
            if (mpfr_cmpabs(el(W, i, k), el(W, piv, k)) > 0) piv = i;
        if (mpfr_zero_p(el(W, piv, k))) return 1;
        if (piv != k) {
            swap_rows(W, piv, k);
            swap_rows(Y, piv, k);
        }
        for (int i = k + 1; i < n; i++) {
            if (mpfr_zero_p(el(W, i, k))) continue;
            mpfr_div(l, el(W, i, k), el(W, k, k), RND);
            mpfr_neg(l, l, RND);
            for (int j = k + 1; j < n; j++) mpfr_fma(el(W, i, j), l, el(W, k, j), el(W, i, j), RND);
            for (int j = 0; j < Y->c; j++) mpfr_fma(el(Y, i, j), l, el(Y, k, j), el(Y, i, j), RND);
            mpfr_set_zero(el(W, i, k), 1);
        }
    }
    return 0;
}

/* Y <- W^{-1} Y for upper-triangular W, rows by exactly rounded dots */
static void back_subst(lm_mat *Y, const lm_mat *W, mpfr_ptr t)
{
    int n = W->r;
    lm_acc acc;
    lm_acc_init(&acc, (size_t)n, 2 * W->prec);
    for (int j = 0; j < Y->c; j++)
        for (int i = n - 1; i >= 0; i--) {
            lm_acc_add(&acc, el(Y, i, j));
            for (int k = i + 1; k < n; k++) lm_acc_prod(&acc, el(W, i, k), el(Y, k, j), 1);
            lm_acc_sum(t, &acc);
            mpfr_div(el(Y, i, j), t, el(W, i, i), RND);
        }
    lm_acc_clear(&acc);
}

static int solve_mp(lm_mat *X, const lm_mat *A, const lm_mat *B)
{
    lm_ctx wc = work_ctx(A);
    lm_mat *W = lm_mat_new(A->r, A->c, &wc), *Y = lm_mat_new(B->r, B->c, &wc);
    mpfr_t t;
    lm_mat_copy(W, A);
    lm_mat_copy(Y, B);
    mpfr_init2(t, wc.prec);
    int st = gepp_forward(W, Y, t);
    if (!st) {
        back_subst(Y, W, t);
        lm_mat_copy(X, Y);
    }
    mpfr_clear(t);
    lm_mat_free(W);
    lm_mat_free(Y);
    return st;
}

int lm_mat_solve(lm_mat *X, const lm_mat *A, const lm_mat *B)
{
    assert(A->r == A->c && B->r == A->r);
    ensure_shape(X, B->r, B->c);
    if (A->r == 0) return 0;
    int st = 1;
    if (lm_mat_isfinite(A) && lm_mat_isfinite(B))
        st = A->ab ? solve_ab(X, A, B) : A->mp ? solve_mp(X, A, B) : solve_gsl(X, A, B);
    if (st) fill_nan_mat(X);
    return st;
}

/* ---- vectors as hints -------------------------------------------------- */

int lm_mat_symeig_hint(lm_num *w, lm_mat *V, const lm_mat *A)
{
    vec_hint = 1;
    int st = lm_mat_symeig(w, V, A);
    vec_hint = 0;
    return st;
}

int lm_mat_svd_hint(lm_num *s, lm_mat *U, lm_mat *V, const lm_mat *A)
{
    vec_hint = 1;
    int st = lm_mat_svd(s, U, V, A);
    vec_hint = 0;
    return st;
}
