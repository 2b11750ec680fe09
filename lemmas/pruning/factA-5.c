/* lemmas/pruning/factA-5.c
 *
 * \claim{pruning/factA.5}{Norm bounds}
 * \source{attention-pruning, Fact A.5 (Appendix A)}
 * \statement{(1) $\|\alpha A\|_F=|\alpha|\|A\|_F$; (2) $\|A+B\|_F\le\|A\|_F+\|B\|_F$;
 *   (3) $|\langle A,B\rangle|\le\|A\|_F\|B\|_F$; (4) $\|AB\|_F\le\|A\|\,\|B\|_F$ (and
 *   $\le\|A\|_F\|B\|_F$); (5) $\|A\circ B\|_F\le\|A\|_\infty\|B\|_F$; (6) $\|Ax\|_2\le\|A\|\,\|x\|_2$;
 *   (7) $\|A\|\le\|A\|_F\le\sqrt k\|A\|$ with $k=\mathrm{rank}A$; (8) $\|A^\top\|=\|A\|$.
 *   ($\|\cdot\|$ is the spectral norm, $\|A\|_\infty=\max_{ij}|A_{ij}|$.)}
 * \check{One configuration per item (4 and 7 split into their two inequalities), so the
 *   report shows each item's tightness, the largest LHS$/$RHS over the instances (1 = attained).
 *   Shapes $r,c,k\in[1,6]$, entries of scale $10^{[-3,3]}$, drawn as doubles (the same instance in
 *   every precision); norms, inner products and spectral norms (SVD) in the working precision.
 *   Instance kinds cycle with the index: (0) random Gaussian; (1) the item's equality case:
 *   $\alpha$ any (item 1), $B=tA$ with $t>0$ (2), $B=tA$ (3), $B=v_1z^\top$ with $v_1$ the top
 *   right singular vector of $A$ (4, spectral), $A=uv^\top$ and $B=vz^\top$ (4, Frobenius),
 *   $|A_{ij}|$ constant (5), $x=v_1$ (6), $A$ rank one (7, lower), $k$ equal singular values
 *   (7, upper), any $A$ (8); (2) rank-deficient $A=GH$ of inner dimension $k$;
 *   (3) a second equality family ($B=0$ in item 2, $B$ supported on the largest $|A_{ij}|$ in
 *   item 5, $\alpha=0$ in item 1; random otherwise).  In item 7 (upper) the equality case is
 *   exact in doubles ($A$ a multiple of a signed partial permutation: $k$ equal singular values),
 *   the rank-deficient case repeats $k$ columns times $\pm1,\pm2$ (rank exactly $\le k$), and $k$
 *   is the rank found in the working precision (singular values above $16(r+c)u\,s_1$; the
 *   neglected ones contribute $O(u^2)$ relatively, inside the tolerance).  Each item observes
 *   LHS $\le\texttt{coef}\cdot$RHS with relative tolerance
 *   $\tau=\texttt{tol\_scale}\cdot16(r+c+k)^2u$; the equalities (1) and (8) are observed in both
 *   directions.  Every item has an attained case, so \texttt{coef}$=0.999$ is violated in each
 *   configuration.}
 */
#include "lm_prbd.h"
#include <math.h>
#include <stdio.h>

static const char *const configs[] = {"1-scaling", "2-triangle", "3-cauchy-schwarz", "4-spectral",
                                      "4-frobenius", "5-hadamard", "6-matvec", "7-lower",
                                      "7-upper", "8-transpose", NULL};
#define PARAMS(NUM, SWITCH)                                                                     \
    NUM(coef, 1.0, "constant [0, 1e6]", "multiplies every right-hand side (the paper: 1)")      \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies the rounding tolerance 16 (r+c+k)^2 u")
LM_PARAMS(PARAMS)

/* C = A B for row-major doubles A (r x k), B (k x c) */
static void dmul(double *C, const double *A, const double *B, int r, int k, int c)
{
    for (int i = 0; i < r; i++)
        for (int j = 0; j < c; j++) {
            double s = 0.0;
            for (int q = 0; q < k; q++) s += A[i * k + q] * B[q * c + j];
            C[i * c + j] = s;
        }
}

/* top right singular vector of A (as a c x 1 matrix in A's context) */
static int top_right(lm_mat *v, const lm_mat *A)
{
    lm_ctx c = lm_mat_ctx(A);
    int k = A->r < A->c ? A->r : A->c;
    lm_num *s = lm_nums_new(k, &c);
    lm_mat *V = lm_mat_new(A->c, k, &c);
    int rc = lm_mat_svd(s, NULL, V, A);
    lm_num x;
    lm_num_init(&x, &c);
    for (int i = 0; i < A->c; i++) {
        lm_mat_get(&x, V, i, 0);
        lm_mat_set(v, i, 0, &x);
    }
    lm_num_clear(&x);
    lm_mat_free(V);
    lm_nums_free(s, k);
    return rc;
}

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    int item = ev->config, kind = ev->index % 4;
    int r = lm_rng_int(g, 1, 6), cc = lm_rng_int(g, 1, 6), k = lm_rng_int(g, 1, 6);
    double sc = pow(10.0, 6.0 * lm_rng_uniform(g) - 3.0), t = pow(10.0, 4.0 * lm_rng_uniform(g) - 2.0);
    double alpha = (lm_rng_uniform(g) < 0.5 ? -1.0 : 1.0) * pow(10.0, 6.0 * lm_rng_uniform(g) - 3.0);
    double A0[36], B0[36], G0[36], H0[36], z[6];
    const lm_ctx *c = ev->ctx;
    int ar = r, ac = cc, br = r, bc = cc; /* shapes of A and B */
    if (item == 3 || item == 4) { ac = k; br = k; }
    if (item == 6) { bc = 1; br = cc; }
    int kr = k; /* the rank used by item 7 (upper) */
    for (int q = 0; q < 36; q++) { A0[q] = sc * lm_rng_normal(g); B0[q] = sc * lm_rng_normal(g); }
    for (int q = 0; q < 6; q++) z[q] = lm_rng_normal(g);
    int kmin = r < cc ? r : cc, kk = k < kmin ? k : kmin;
    if (item == 8 && kind == 1) { /* k equal singular values, exactly: A = sc (signed partial permutation) */
        int perm[6];
        for (int q = 0; q < cc; q++) perm[q] = q;
        for (int q = cc - 1; q > 0; q--) { int j = lm_rng_int(g, 0, q), tq = perm[q]; perm[q] = perm[j]; perm[j] = tq; }
        for (int q = 0; q < r * cc; q++) A0[q] = 0.0;
        for (int q = 0; q < kk; q++) A0[q * cc + perm[q]] = lm_rng_uniform(g) < 0.5 ? -sc : sc;
    } else if (item == 8 && kind == 2) { /* rank <= kk exactly: columns repeat the first kk, times +-1, +-2 */
        for (int i = 0; i < r; i++)
            for (int j = kk; j < cc; j++) A0[i * cc + j] = ((j / kk) % 2 ? -2.0 : 1.0) * A0[i * cc + j % kk];
    } else if ((item == 7 && kind == 1) || (kind == 2 && item != 3 && item != 4)) {
        if (item == 7 && kind == 1) kk = 1; /* rank one (up to the rounding of the product) */
        for (int q = 0; q < r * kk; q++) G0[q] = sc * lm_rng_normal(g);
        for (int q = 0; q < kk * cc; q++) H0[q] = lm_rng_normal(g);
        dmul(A0, G0, H0, r, kk, cc);
    }
    kr = kk; /* item 7 (upper): replaced by the rank found in the working precision */
    if (item == 5 && kind == 1) /* |A| constant */
        for (int q = 0; q < r * cc; q++) A0[q] = A0[q] < 0 ? -sc : sc;
    if (item == 1 && kind == 1)
        for (int q = 0; q < r * cc; q++) B0[q] = t * A0[q];
    if (item == 1 && kind == 3)
        for (int q = 0; q < r * cc; q++) B0[q] = 0.0;
    if (item == 2 && kind == 1)
        for (int q = 0; q < r * cc; q++) B0[q] = (alpha < 0 ? -t : t) * A0[q];
    if (item == 5 && kind == 3) { /* B on the largest |A_ij| */
        int qm = 0;
        for (int q = 1; q < r * cc; q++) if (fabs(A0[q]) > fabs(A0[qm])) qm = q;
        for (int q = 0; q < r * cc; q++) if (q != qm) B0[q] = 0.0;
    }
    if (item == 4 && kind == 1) { /* A = u v^T, B = v z^T */
        double u[6], v[6];
        for (int q = 0; q < 6; q++) { u[q] = sc * lm_rng_normal(g); v[q] = lm_rng_normal(g); }
        for (int i = 0; i < ar; i++)
            for (int j = 0; j < ac; j++) A0[i * ac + j] = u[i] * v[j];
        for (int i = 0; i < br; i++)
            for (int j = 0; j < bc; j++) B0[i * bc + j] = v[i] * z[j];
    }
    if (item == 0 && kind == 3) alpha = 0.0;

    lm_mat *A = lm_mat_new(ar, ac, c), *B = lm_mat_new(br, bc, c);
    lm_mat *T = lm_mat_new(ar > br ? ar : br, ac > bc ? ac : bc, c), *v = lm_mat_new(ac, 1, c);
    lm_num l, rr, x, y;
    lm_num_inits(c, &l, &rr, &x, &y, (lm_num *)NULL);
    lm_mat_set_array(A, A0);
    lm_mat_set_array(B, B0);
    int rc = 0, both = 0;
    if (((item == 3 || item == 6) && kind == 1)) { /* B = v1 z^T or x = v1 */
        if (top_right(v, A)) { rc = lm_fail(ev, "SVD failed (%dx%d)", ar, ac); goto out; }
        for (int i = 0; i < br; i++)
            for (int j = 0; j < bc; j++) {
                lm_mat_get(&x, v, i, 0);
                lm_num_mul_d(&x, &x, item == 6 ? 1.0 : z[j]);
                lm_mat_set(B, i, j, &x);
            }
    }
    const char *what = "";
    switch (item) {
    case 0: /* ||alpha A|| = |alpha| ||A|| */
        lm_mat_scale_d(T, A, alpha);
        lm_mat_frob(&l, T);
        lm_mat_frob(&rr, A);
        lm_num_mul_d(&rr, &rr, fabs(alpha));
        both = 1;
        what = "||alpha A||_F = |alpha| ||A||_F";
        break;
    case 1:
        lm_mat_add(T, A, B);
        lm_mat_frob(&l, T);
        lm_mat_frob(&x, A);
        lm_mat_frob(&y, B);
        lm_num_add(&rr, &x, &y);
        what = "||A+B||_F <= ||A||_F + ||B||_F";
        break;
    case 2:
        lm_mat_dot(&l, A, B);
        lm_num_abs(&l, &l);
        lm_mat_frob(&x, A);
        lm_mat_frob(&y, B);
        lm_num_mul(&rr, &x, &y);
        what = "|<A,B>| <= ||A||_F ||B||_F";
        break;
    case 3: case 4: case 6: {
        lm_mat *P = lm_mat_new(ar, bc, c);
        lm_mat_mul(P, A, 0, B, 0);
        lm_mat_frob(&l, P);
        lm_mat_free(P);
        if (item == 4) lm_mat_frob(&x, A);
        else if (lm_mat_smax(&x, A)) { rc = lm_fail(ev, "SVD failed (%dx%d)", ar, ac); goto out; }
        lm_mat_frob(&y, B);
        lm_num_mul(&rr, &x, &y);
        what = item == 3 ? "||AB||_F <= ||A|| ||B||_F" : item == 4 ? "||AB||_F <= ||A||_F ||B||_F"
                                                                   : "||Ax||_2 <= ||A|| ||x||_2";
        break;
    }
    case 5:
        lm_mat_hadamard(T, A, B);
        lm_mat_frob(&l, T);
        lm_mat_max_abs(&x, A);
        lm_mat_frob(&y, B);
        lm_num_mul(&rr, &x, &y);
        what = "||A o B||_F <= ||A||_inf ||B||_F";
        break;
    case 7:
        if (lm_mat_smax(&l, A)) { rc = lm_fail(ev, "SVD failed (%dx%d)", ar, ac); goto out; }
        lm_mat_frob(&rr, A);
        what = "||A|| <= ||A||_F";
        break;
    case 8: {
        int nk = ar < ac ? ar : ac;
        lm_num *sv = lm_nums_new(nk, c);
        int bad = lm_mat_svals(sv, A);
        if (!bad) { /* the rank: singular values above 16 (r+c) u s_1 */
            lm_num_mul_d(&y, &sv[0], 16.0 * (ar + ac) * lm_ctx_eps(c));
            kr = 0;
            for (int q = 0; q < nk; q++) kr += lm_num_cmp(&sv[q], &y) > 0;
            lm_num_set(&rr, &sv[0]);
        }
        lm_nums_free(sv, nk);
        if (bad) { rc = lm_fail(ev, "SVD failed (%dx%d)", ar, ac); goto out; }
        lm_mat_frob(&l, A);
        lm_num_set_d(&x, kr); /* sqrt(k) in the context (a rounded double would break the equality) */
        lm_num_sqrt(&x, &x);
        lm_num_mul(&rr, &rr, &x);
        what = "||A||_F <= sqrt(k) ||A||";
        break;
    }
    default: { /* ||A^T|| = ||A||, two separate SVDs */
        lm_mat *At = lm_mat_new(ac, ar, c);
        lm_mat_transpose(At, A);
        int e1 = lm_mat_smax(&l, At), e2 = lm_mat_smax(&rr, A);
        lm_mat_free(At);
        if (e1 || e2) { rc = lm_fail(ev, "SVD failed (%dx%d)", ar, ac); goto out; }
        both = 1;
        what = "||A^T|| = ||A||";
    }
    }
    if (!lm_num_isfinite(&l) || !lm_num_isfinite(&rr)) { rc = lm_fail(ev, "non-finite norm"); goto out; }
    {
        double coef = prm.coef, tol = lm_prbd_tol(ev, 16.0 * (r + cc + k) * (r + cc + k));
        char wh[160];
        snprintf(wh, sizeof wh, "%s (kind %d, %dx%d, %dx%d, k=%d)", what, kind, ar, ac, br, bc, kr);
        lm_prbd_obs(ev, &l, coef, &rr, tol, wh);
        if (both) lm_prbd_obs(ev, &rr, coef, &l, tol, wh);
        if (lm_num_sgn(&rr) > 0) {
            double q = exp(lm_num_log_abs_d(&l) - lm_num_log_abs_d(&rr));
            if (lm_num_sgn(&l) == 0) q = 0.0;
            lm_measure(ev, "LHS / RHS (1 = tight)", q);
        }
        lm_measure(ev, "kind", kind);
    }
out:
    lm_num_clears(&l, &rr, &x, &y, (lm_num *)NULL);
    lm_mat_free(A); lm_mat_free(B); lm_mat_free(T); lm_mat_free(v);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Item 1, ||alpha A||_F = |alpha| ||A||_F both ways, shapes up to 6 x 6, "
                    "entries 1e-3..1e3: Gaussian, any alpha, alpha = 0 and rank-deficient "
                    "instances.", NULL},
    {LM_READ_PAPER, "Item 2, triangle inequality ||A + B||_F <= ||A||_F + ||B||_F: random, "
                    "rank-deficient, and the equality cases B = tA (t > 0) and B = 0.", NULL},
    {LM_READ_PAPER, "Item 3, Cauchy-Schwarz |<A, B>| <= ||A||_F ||B||_F on shapes up to 6 x 6: "
                    "random and rank-deficient A, and the equality case B = tA.", NULL},
    {LM_READ_PAPER, "Item 4 spectral, ||AB||_F <= ||A|| ||B||_F with ||A|| from an SVD: random, "
                    "rank-deficient, and the equality case B = v1 z^T (top singular "
                    "vector).", NULL},
    {LM_READ_PAPER, "Item 4 Frobenius, ||AB||_F <= ||A||_F ||B||_F: random and rank-deficient "
                    "instances and the equality case A = u v^T, B = v z^T.", NULL},
    {LM_READ_PAPER, "Item 5, ||A o B||_F <= max|A_ij| ||B||_F: random, rank-deficient, |A_ij| "
                    "constant, and B supported on the largest |A_ij| (both attain it).", NULL},
    {LM_READ_PAPER, "Item 6, ||Ax||_2 <= ||A|| ||x||_2 with the spectral norm from an SVD: random "
                    "and rank-deficient A, and the equality case x = v1.", NULL},
    {LM_READ_PAPER, "Item 7 lower, ||A|| <= ||A||_F: random and rank-deficient A (inner dimension "
                    "k), with the equality case A of rank one.", NULL},
    {LM_READ_PAPER, "Item 7 upper, ||A||_F <= sqrt(k) ||A||, k the numerical rank: random, "
                    "rank-deficient, and k equal singular values (a signed partial "
                    "permutation).", NULL},
    {LM_READ_PAPER, "Item 8, ||A^T|| = ||A|| observed in both directions via SVDs of A and A^T, "
                    "shapes up to 6 x 6, entries of scale 1e-3..1e3, random and "
                    "rank-deficient.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_factA_5) = {
    .kind = LM_KIND_POINTWISE,
    .source = "Fact A.5 (Appendix A)",
    .origin = "reconstructed",
    .confidence = "medium (items), high (truth)",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.5,
    .eval = eval,
};
