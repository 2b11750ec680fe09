/* lemmas/precond/fact10.c
 *
 * \claim{precond/fact10}{Covariance bound (10)}
 * \source{preconditioned-softmax-regression, Fact (10) (Appendix, tools of the proof of Theorem 3)}
 * \statement{For a scalar random variable $u$ and a random tensor $Y$,
 *   $\|\mathbb E[uY]-\mathbb E[u]\,\mathbb E[Y]\|\le\sqrt{\mathrm{Var}(u)\,\mathrm{Var}(Y)}$ (Cauchy--Schwarz),
 *   with $\mathrm{Var}(Y)=\mathbb E\|Y-\mathbb EY\|^2$.}
 * \check{Pointwise on exact finite distributions (so both sides are finite weighted sums in the
 *   working precision).  Four kinds of instance: (a) $m\in[2,10]$ atoms $(u_j,Y_j)$, $Y_j$ of
 *   $D\in[1,6]$ entries, random probabilities; (b) the equality case $Y_j=c+u_jb$ ($Y$ affine in
 *   $u$, ratio exactly 1); (c) the MC samples of Lemmas 15--18: the empirical distribution of
 *   $M=32$ pairs $(p_{21},z_1z_1^\top)$ of in-sample softmax attention over batches of $N=8$
 *   covariates $x\sim\mathcal N(0,\Sigma)$ ($d=2$, $W_{KQ}$ entries $\mathcal N(0,0.25)$, a fixed
 *   query $x_1$); (d) the same with $(p_{11},C_1)$, the self weight and the softmax covariance of
 *   Lemmas 20--23.  Centered forms are used on both sides: LHS $=\|\sum_jp_j(u_j-\bar u)(Y_j-\bar Y)\|$,
 *   which equals $\mathbb E[uY]-\mathbb E u\,\mathbb EY$ exactly in real arithmetic.  Observed:
 *   LHS $\le\texttt{coef}\sqrt{\mathrm{Var}(u)\mathrm{Var}(Y)}$ with relative tolerance
 *   $\texttt{tol\_scale}\cdot8(m+D)u$.  Measured: LHS/RHS (1 at equality).  \texttt{coef}$=0.99$ must
 *   come out violated (the affine kind).}
 */
#include "lm_pcst.h"
#include <math.h>

#define PARAMS(NUM, SWITCH)                                                          \
    NUM(coef, 1.0, "[0, 1e6]", "multiplies sqrt(Var u Var Y) (the paper: 1)")        \
    NUM(tol_scale, 1.0, "[0, 1e6]", "multiplies the rounding tolerance 8 (m + D) u")
LM_PARAMS(PARAMS)

#define AM 32
#define DM 6

/* C_1 = sum_i p_i x_i x_i^T - z z^T (2 x 2) for the query 0 of a batch */
static void softcov(double C[4], const double *p, const double *z, const lm_pcbatch *b)
{
    for (int r = 0; r < 2; r++)
        for (int s = 0; s < 2; s++) {
            double v = 0.0;
            for (int i = 0; i < b->N; i++) v += p[i] * (lm_mat_get_d(b->X, i, r) - z[r]) * (lm_mat_get_d(b->X, i, s) - z[s]);
            C[2 * r + s] = v;
        }
}

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    int kind = ev->index % 4, m, D;
    double u[AM], Y[AM][DM], pw[AM];
    if (kind < 2) {
        m = lm_rng_int(g, 2, 10);
        D = lm_rng_int(g, 1, DM);
        double cc[DM], bb[DM];
        for (int r = 0; r < D; r++) {
            cc[r] = lm_rng_normal(g);
            bb[r] = lm_rng_normal(g);
        }
        for (int j = 0; j < m; j++) {
            pw[j] = lm_rng_uniform(g);
            u[j] = lm_rng_normal(g);
            for (int r = 0; r < D; r++) Y[j][r] = kind == 1 ? cc[r] + u[j] * bb[r] : lm_rng_normal(g);
        }
    } else {
        lm_ctx cd = lm_ctx_double();
        lm_pcdata *P = lm_pc_gen(2, 2, 0.5, 0.0, 0.1, 0.1, 0.25, g, &cd);
        lm_pcth th = lm_pc_th_new(P);
        lm_pc_th_randn(&th, g, 0.5);
        m = AM;
        D = 4;
        double p[8], z[2], C[4], x1[2] = {lm_rng_normal(g), lm_rng_normal(g)};
        double q0 = lm_mat_get_d(P->Lc, 0, 0) * x1[0] + lm_mat_get_d(P->Lc, 0, 1) * x1[1];
        double q1 = lm_mat_get_d(P->Lc, 1, 0) * x1[0] + lm_mat_get_d(P->Lc, 1, 1) * x1[1];
        for (int b = 0; b < m; b++) {
            lm_pcbatch B = lm_pc_batch(P, 8, g);
            lm_mat_set_d(B.X, 0, 0, q0);
            lm_mat_set_d(B.X, 0, 1, q1);
            lm_pcst_attn_d(p, z, &B, th.KQ, 0);
            pw[b] = 1.0;
            if (kind == 2) {
                u[b] = p[1];
                Y[b][0] = z[0] * z[0];
                Y[b][1] = z[0] * z[1];
                Y[b][2] = z[1] * z[0];
                Y[b][3] = z[1] * z[1];
            } else {
                u[b] = p[0];
                softcov(C, p, z, &B);
                for (int r = 0; r < 4; r++) Y[b][r] = C[r];
            }
            lm_pc_batch_free(&B);
        }
        lm_pc_th_free(&th);
        lm_pc_free(P);
    }
    const lm_ctx *c = ev->ctx;
    lm_num tot, p, x, y, ub, vu, vy, lhs, rhs, Yb[DM], cv[DM];
    lm_num_inits(c, &tot, &p, &x, &y, &ub, &vu, &vy, &lhs, &rhs, (lm_num *)NULL);
    for (int r = 0; r < D; r++) {
        lm_num_init(&Yb[r], c);
        lm_num_init(&cv[r], c);
        lm_num_set_d(&Yb[r], 0.0);
        lm_num_set_d(&cv[r], 0.0);
    }
    lm_num_set_d(&tot, 0.0);
    for (int j = 0; j < m; j++) lm_num_add_d(&tot, &tot, pw[j]);
    lm_num_set_d(&ub, 0.0);
    for (int j = 0; j < m; j++) {
        lm_num_set_d(&p, pw[j]);
        lm_num_div(&p, &p, &tot);
        lm_num_set_d(&x, u[j]);
        lm_num_fma(&ub, &p, &x, &ub);
        for (int r = 0; r < D; r++) {
            lm_num_set_d(&x, Y[j][r]);
            lm_num_fma(&Yb[r], &p, &x, &Yb[r]);
        }
    }
    lm_num_set_d(&vu, 0.0);
    lm_num_set_d(&vy, 0.0);
    for (int j = 0; j < m; j++) {
        lm_num_set_d(&p, pw[j]);
        lm_num_div(&p, &p, &tot);
        lm_num_set_d(&x, u[j]);
        lm_num_sub(&x, &x, &ub);
        lm_num_mul(&y, &x, &x);
        lm_num_fma(&vu, &p, &y, &vu);
        lm_num_mul(&x, &x, &p); /* p (u_j - ubar) */
        for (int r = 0; r < D; r++) {
            lm_num_set_d(&y, Y[j][r]);
            lm_num_sub(&y, &y, &Yb[r]);
            lm_num_fma(&cv[r], &x, &y, &cv[r]);
            lm_num_sqr(&y, &y);
            lm_num_fma(&vy, &p, &y, &vy);
        }
    }
    lm_num_set_d(&lhs, 0.0);
    for (int r = 0; r < D; r++) lm_num_fma(&lhs, &cv[r], &cv[r], &lhs);
    lm_num_sqrt(&lhs, &lhs);
    lm_num_mul(&rhs, &vu, &vy);
    lm_num_sqrt(&rhs, &rhs);
    lm_num_mul_d(&rhs, &rhs, prm.coef);
    int rc = 0;
    if (!lm_num_isfinite(&lhs) || !lm_num_isfinite(&rhs)) rc = lm_fail(ev, "non-finite moments");
    else {
        static const char *const KN[] = {"finite distribution", "affine Y = c + u b (equality)",
                                         "MC samples (p_21, z_1 z_1^T)", "MC samples (p_11, C_1)"};
        double tol = prm.tol_scale * 8.0 * (m + D) * lm_ctx_eps(c);
        lm_obs_le(ev, -1, &lhs, &rhs, tol, "||E[uY] - Eu EY|| <= coef sqrt(Var u Var Y) (%s, m=%d, D=%d)",
                  KN[kind], m, D);
        double q = lm_num_iszero(&lhs) ? 0.0 : exp(lm_num_log_abs_d(&lhs) - lm_num_log_abs_d(&rhs));
        lm_measure(ev, "LHS / RHS (1 = equality)", q);
    }
    for (int r = 0; r < D; r++) {
        lm_num_clear(&Yb[r]);
        lm_num_clear(&cv[r]);
    }
    lm_num_clears(&tot, &p, &x, &y, &ub, &vu, &vy, &lhs, &rhs, (lm_num *)NULL);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "||E[uY] - E[u]E[Y]|| <= sqrt(Var(u) Var(Y)) on exact finite distributions: random atoms, "
     "the affine equality case Y = c + u b, and MC softmax samples of Lemmas 15-18 and 20-23.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_precond_fact10) = {
    .kind = LM_KIND_POINTWISE,
    .source = "Fact (10)",
    .origin = "reconstructed",
    .confidence = "medium",
    .params = params,
    .readings = readings,
    .inst_scale = 1.0,
    .eval = eval,
};
