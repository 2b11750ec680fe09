/* lemmas/precond/lemma1-2.c
 *
 * \claim{precond/lemma1.2}{Singular values on the manifold of minima}
 * \source{preconditioned-softmax-regression, Lemma 1.2 (proof of Theorem 1)}
 * \statement{For every $\theta_P=(W_V^P,W_{KQ}^P)\in\mathcal M$:
 *   $\sqrt{s_d/\lambda_{\max}(\Sigma)}\le\sigma_d(W_V^P)\le\sigma_1(W_V^P)\le\sqrt{s_1/\lambda_{\min}(\Sigma)}$ and
 *   $\sqrt{s_d}/\lambda_{\max}(\Sigma)\le\sigma_d(W_{KQ}^P)\le\sigma_1(W_{KQ}^P)\le\sqrt{s_1}/\lambda_{\min}(\Sigma)$.
 *   In AB-coordinates the values are exact: $\sigma_i(A_P)=\sigma_i(B_P)=\sqrt{s_i}$.}
 * \check{Pointwise, on manifold points $\theta_R=(US^{1/2}R\Sigma^{-1/2},\Sigma^{-1/2}R^\top S^{1/2}V^\top\Sigma^{-1/2})$
 *   built by the core in the working precision.  Two configurations: \texttt{haar} ($R$ Haar-random,
 *   both determinant signs) and \texttt{aligned} ($R=Q^\top$ with $\Sigma=Q\Lambda Q^\top$, eigenvalues
 *   ascending: the equality case of the four $W_V$ bounds, since then $S^{1/2}R\Sigma^{-1/2}Q=S^{1/2}\Lambda^{-1/2}$
 *   pairs $s_1$ with $\lambda_{\min}$ and $s_d$ with $\lambda_{\max}$).  Instances: the S1 families
 *   ($c\in\{0.3,0.5,1\}$, $\kappa\in\{10^2,10^6\}$), $d\in[1,4]$, $k\in[d,d+2]$, $\tau\in\{0.01,0.1,1\}$.  The
 *   adversarial search (3 dimensions, $d=3$) perturbs $R$ by the Cayley map of a skew matrix
 *   $\Omega(x)$, $R\leftarrow R\,(I-\Omega)^{-1}(I+\Omega)$, entries of $\Omega$ in $[-2,2]$, maximising the worst
 *   LHS/RHS.  Observed: the eight inequalities, lower bounds multiplied by \texttt{lo\_coef} and upper
 *   bounds by \texttt{hi\_coef} (paper: 1), each with relative tolerance
 *   $\texttt{tol\_scale}\cdot64d\,\kappa(\Sigma)u$ (the round trip through $\Sigma^{\pm1/2}$); and the AB identity
 *   $\max_i|\sigma_i(A_P)-\sqrt{s_i}|/\sqrt{s_1}$, $\max_i|\sigma_i(B_P)-\sqrt{s_i}|/\sqrt{s_1}\le$ the same tolerance.
 *   Measured: the slack (ratio) of each bound (1 = tight).  \texttt{hi\_coef}$=0.99$ (or
 *   \texttt{lo\_coef}$=1.01$) must come out violated on the aligned configuration.}
 */
#include "lm_pcst.h"
#include <math.h>

static const char *const configs[] = {"haar", "aligned", NULL};
#define PARAMS(NUM, SWITCH)                                                                  \
    NUM(lo_coef, 1.0, "[0, 1e6]", "multiplies the four lower bounds (the paper: 1)")         \
    NUM(hi_coef, 1.0, "[0, 1e6]", "multiplies the four upper bounds (the paper: 1)")         \
    NUM(tol_scale, 1.0, "[0, 1e6]", "multiplies the relative tolerance 64 d kappa(Sigma) u")
LM_PARAMS(PARAMS)

/* R <- R (I - O)^{-1} (I + O), O skew from x (3 entries, d = 3) */
static int cayley(lm_mat *R, const double *x, int nx)
{
    int d = R->r;
    lm_ctx c = lm_mat_ctx(R);
    lm_mat *O = lm_mat_new(d, d, &c), *Im = lm_mat_new(d, d, &c), *Ip = lm_mat_new(d, d, &c),
           *C = lm_mat_new(d, d, &c), *T = lm_mat_new(d, d, &c);
    int q = 0;
    for (int i = 0; i < d; i++)
        for (int j = i + 1; j < d; j++, q++) {
            double v = q < nx ? 4.0 * x[q] - 2.0 : 0.0;
            lm_mat_set_d(O, i, j, v);
            lm_mat_set_d(O, j, i, -v);
        }
    lm_mat_set_identity(Im);
    lm_mat_set_identity(Ip);
    lm_mat_sub(Im, Im, O);
    lm_mat_add(Ip, Ip, O);
    int rc = lm_mat_solve(C, Im, Ip);
    lm_mat_mul(T, R, 0, C, 0);
    lm_mat_copy(R, T);
    lm_mat_free(O); lm_mat_free(Im); lm_mat_free(Ip); lm_mat_free(C); lm_mat_free(T);
    return rc;
}

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    static const double taus[] = {0.01, 0.1, 1.0};
    lm_pcst_spec sp;
    lm_pcst_spec_draw(&sp, ev->index % 5, 4, taus, 3, g);
    if (ev->x) {
        sp.d = 3;
        if (sp.k < 3) sp.k = 3;
    }
    const lm_ctx *c = ev->ctx;
    lm_pcdata *P = lm_pcst_make(&sp, g, c);
    int d = P->d, k = P->k, rc = 0;
    lm_mat *R = lm_mat_new(d, d, c), *Q = lm_mat_new(d, d, c), *A = lm_mat_new(k, d, c), *B = lm_mat_new(d, d, c);
    lm_num *lam = lm_nums_new(d, c), *sv = lm_nums_new(d, c), *sk = lm_nums_new(d, c);
    lm_num lmin, lmax, x, y, bnd;
    lm_num_inits(c, &lmin, &lmax, &x, &y, &bnd, (lm_num *)NULL);
    lm_pcth th = lm_pc_th_new(P);
    if (lm_mat_symeig(lam, Q, P->Sig)) {
        rc = lm_fail(ev, "eigensolver failed on Sigma");
        goto out;
    }
    lm_num_set(&lmin, &lam[0]);
    lm_num_set(&lmax, &lam[d - 1]);
    if (ev->config == 1) lm_mat_transpose(R, Q);
    else lm_pc_rand_orth(R, g);
    if (ev->x && cayley(R, ev->x, ev->nx)) {
        rc = lm_fail(ev, "Cayley solve failed");
        goto out;
    }
    lm_pc_manifold(&th, P, R);
    double kap = lm_num_get_d(&lmax) / lm_num_get_d(&lmin);
    double tol = prm.tol_scale * 64.0 * d * kap * lm_ctx_eps(c);
    double lo = prm.lo_coef, hi = prm.hi_coef;
    const char *fam = lm_pcst_family_name[sp.fam];
    /* W_V: bounds sqrt(s_d / lmax), sqrt(s_1 / lmin) */
    for (int blk = 0; blk < 2; blk++) {
        const lm_mat *M = blk ? th.KQ : th.V;
        if (lm_mat_svals(sv, M)) {
            rc = lm_fail(ev, "SVD failed");
            goto out;
        }
        /* lower: sqrt(s_d)/sqrt(lmax) (W_V) or sqrt(s_d)/lmax (W_KQ) */
        lm_num_sqrt(&x, &P->s[d - 1]);
        if (blk) lm_num_div(&bnd, &x, &lmax);
        else {
            lm_num_sqrt(&y, &lmax);
            lm_num_div(&bnd, &x, &y);
        }
        lm_num_mul_d(&bnd, &bnd, lo);
        lm_obs_le(ev, -1, &bnd, &sv[d - 1], tol, "%s: lo_coef sqrt(s_d)/%s <= sigma_d (%s, d=%d)",
                  blk ? "W_KQ" : "W_V", blk ? "lambda_max" : "sqrt(lambda_max)", fam, d);
        lm_measure(ev, blk ? "lower W_KQ: bound / sigma_d (1 = tight)" : "lower W_V: bound / sigma_d (1 = tight)",
                   lm_num_get_d(&bnd) / lm_num_get_d(&sv[d - 1]));
        lm_obs_le(ev, -1, &sv[d - 1], &sv[0], tol, "%s: sigma_d <= sigma_1", blk ? "W_KQ" : "W_V");
        lm_num_sqrt(&x, &P->s[0]);
        if (blk) lm_num_div(&bnd, &x, &lmin);
        else {
            lm_num_sqrt(&y, &lmin);
            lm_num_div(&bnd, &x, &y);
        }
        lm_num_mul_d(&bnd, &bnd, hi);
        lm_obs_le(ev, -1, &sv[0], &bnd, tol, "%s: sigma_1 <= hi_coef sqrt(s_1)/%s (%s, d=%d)",
                  blk ? "W_KQ" : "W_V", blk ? "lambda_min" : "sqrt(lambda_min)", fam, d);
        lm_measure(ev, blk ? "upper W_KQ: sigma_1 / bound (1 = tight)" : "upper W_V: sigma_1 / bound (1 = tight)",
                   lm_num_get_d(&sv[0]) / lm_num_get_d(&bnd));
    }
    /* AB coordinates: sigma_i(A_P) = sigma_i(B_P) = sqrt(s_i) */
    lm_pc_to_AB(A, B, P, &th);
    for (int blk = 0; blk < 2; blk++) {
        if (lm_mat_svals(sk, blk ? B : A)) {
            rc = lm_fail(ev, "SVD failed");
            goto out;
        }
        double worst = 0.0;
        lm_num_sqrt(&y, &P->s[0]);
        for (int i = 0; i < d; i++) {
            lm_num_sqrt(&x, &P->s[i]);
            lm_num_sub(&x, &sk[i], &x);
            lm_num_abs(&x, &x);
            worst = fmax(worst, lm_pcst_rel(&x, &y));
        }
        lm_obs_le_d(ev, -1, worst, tol, 0.0, "AB: max_i |sigma_i(%s) - sqrt(s_i)| / sqrt(s_1) <= 64 d kappa u",
                    blk ? "B_P" : "A_P");
    }
    lm_measure(ev, "log10 kappa(Sigma)", log10(kap));
out:
    lm_pc_th_free(&th);
    lm_num_clears(&lmin, &lmax, &x, &y, &bnd, (lm_num *)NULL);
    lm_nums_free(lam, d);
    lm_nums_free(sv, d);
    lm_nums_free(sk, d);
    lm_mat_free(R); lm_mat_free(Q); lm_mat_free(A); lm_mat_free(B);
    lm_pc_free(P);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "Haar-random manifold points (S1 families, kappa up to 1e6, d in 1..4) plus a Cayley search "
     "over R: the eight singular-value bounds on W_V^P and W_KQ^P, and sigma_i(A_P) = sqrt(s_i).",
     NULL},
    {LM_READ_PAPER,
     "Aligned points R = Q^T pairing s_1 with lambda_min(Sigma) and s_d with lambda_max: the "
     "equality case of the four W_V^P bounds, so any coefficient below 1 must break.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_precond_lemma1_2) = {
    .kind = LM_KIND_POINTWISE,
    .source = "Lemma 1.2",
    .origin = "reconstructed",
    .confidence = "medium",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.5,
    .search_dim = 3,
    .eval = eval,
};
