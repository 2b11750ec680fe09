/* lemmas/precond/fact9.c
 *
 * \claim{precond/fact9}{Bias--variance decomposition, eq.\ (9)}
 * \source{preconditioned-softmax-regression, Fact (9) (Appendix, tools of the proof of Theorem 3)}
 * \statement{For a random tensor $Y$ and a deterministic target $T$,
 *   $\mathbb E\|Y-T\|^2=\|\mathbb EY-T\|^2+\mathrm{Var}(Y)$ with $\mathrm{Var}(Y)=\mathbb E\|Y-\mathbb EY\|^2$,
 *   and likewise conditionally ($\mathbb E_{-j}$, $\mathrm{Var}_{-j}$).}
 * \check{An identity, checked on exact finite distributions (the expectation is then a finite
 *   weighted sum, so both sides are computable to the working precision).  Three kinds of
 *   instance: (a) $Y$ with $m\in[1,10]$ atoms in $\mathbb R^D$, $D\in[1,6]$, random probabilities,
 *   and a target $T$ at distance $10^{U(-3,3)}$ (far targets are the cancellation case
 *   $\mathrm{Var}\ll\|\mathbb EY-T\|^2$); (b) the conditional form: a joint finite distribution of
 *   $(Z,Y)$ with 3 values of $Z$, the identity for $\mathbb E[\cdot\mid Z=z]$ and
 *   $\mathrm{Var}(\cdot\mid Z=z)$ for every $z$; (c) the MC samples of Lemmas 11--14: the empirical
 *   distribution of $M=32$ attention averages $z_1$ of in-sample softmax attention
 *   over batches of $N=8$ covariates $x\sim\mathcal N(0,\Sigma)$ ($d=2$, $W_{KQ}$ entries
 *   $\mathcal N(0,0.25)$), with the population value $T=\Sigma W_{KQ}x_1$.  Each instance is
 *   rebuilt from the same doubles in IEEE double, MPFR-128 and MPFR-256; the left side is
 *   $\sum_jp_j\|y_j-T\|^2$, the right side $\|\sum_jp_jy_j-T\|^2+\sum_jp_j\|y_j-\mu\|^2$ (two-pass
 *   variance), and the residual $|{\rm LHS}-{\rm RHS}|/(\mathbb E\|Y\|^2+\|T\|^2)$ (the natural scale of
 *   the rounding) must be $\le\texttt{tol\_scale}\cdot16(m+D)u_p$ in each precision and must shrink
 *   from double to MPFR-256.  Measures: log10 residual per precision.  The switch
 *   \texttt{var\_scale} multiplies $\mathrm{Var}$ (paper: 1); $0.99$ must come out violated.}
 */
#include "lm_pcst.h"
#include <math.h>

#define PARAMS(NUM, SWITCH)                                                               \
    NUM(var_scale, 1.0, "[0, 1e6]", "multiplies Var(Y) on the right side (the paper: 1)") \
    NUM(tol_scale, 1.0, "[0, 1e6]", "multiplies the rounding tolerance 16 (m + D) u_p")
LM_PARAMS(PARAMS)

#define AM 40
#define DM 6

/* one distribution: atoms y[j][0..D), probabilities p[j] (normalised in the context), target T */
static double resid(const double (*y)[DM], const double *pw, int m, int D, const double *T, double vs,
                    const lm_ctx *c)
{
    lm_num tot, p, x, t, lhs, var, mu[DM], bias, sc;
    lm_num_inits(c, &tot, &p, &x, &t, &lhs, &var, &bias, &sc, (lm_num *)NULL);
    for (int r = 0; r < D; r++) {
        lm_num_init(&mu[r], c);
        lm_num_set_d(&mu[r], 0.0);
    }
    lm_num_set_d(&tot, 0.0);
    for (int j = 0; j < m; j++) lm_num_add_d(&tot, &tot, pw[j]);
    lm_num_set_d(&lhs, 0.0);
    lm_num_set_d(&sc, 0.0);
    for (int j = 0; j < m; j++) {
        lm_num_set_d(&p, pw[j]);
        lm_num_div(&p, &p, &tot);
        for (int r = 0; r < D; r++) {
            lm_num_set_d(&x, y[j][r]);
            lm_num_mul(&t, &p, &x);
            lm_num_add(&mu[r], &mu[r], &t);
            lm_num_mul(&t, &t, &x);
            lm_num_add(&sc, &sc, &t);
            lm_num_add_d(&x, &x, -T[r]);
            lm_num_sqr(&x, &x);
            lm_num_fma(&lhs, &p, &x, &lhs);
        }
    }
    lm_num_set_d(&var, 0.0);
    for (int j = 0; j < m; j++) {
        lm_num_set_d(&p, pw[j]);
        lm_num_div(&p, &p, &tot);
        for (int r = 0; r < D; r++) {
            lm_num_set_d(&x, y[j][r]);
            lm_num_sub(&x, &x, &mu[r]);
            lm_num_sqr(&x, &x);
            lm_num_fma(&var, &p, &x, &var);
        }
    }
    lm_num_set_d(&bias, 0.0);
    for (int r = 0; r < D; r++) {
        lm_num_add_d(&x, &mu[r], -T[r]);
        lm_num_fma(&bias, &x, &x, &bias);
        lm_num_set_d(&x, T[r]);
        lm_num_fma(&sc, &x, &x, &sc);
    }
    lm_num_mul_d(&var, &var, vs);
    lm_num_add(&t, &bias, &var);
    lm_num_sub(&t, &lhs, &t);
    double r = lm_pcst_rel(&t, &sc);
    for (int q = 0; q < D; q++) lm_num_clear(&mu[q]);
    lm_num_clears(&tot, &p, &x, &t, &lhs, &var, &bias, &sc, (lm_num *)NULL);
    return r;
}

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    int kind = ev->index % 3, m = 1, D = 1, nz = 1;
    double y[AM][DM], pw[AM], T[3][DM];
    if (kind == 0) {
        m = lm_rng_int(g, 1, 10);
        D = lm_rng_int(g, 1, DM);
    } else if (kind == 1) {
        nz = 3;
        m = 3 * lm_rng_int(g, 1, 8);
        D = lm_rng_int(g, 1, DM);
    }
    if (kind < 2) {
        for (int j = 0; j < m; j++) {
            pw[j] = lm_rng_uniform(g);
            for (int r = 0; r < D; r++) y[j][r] = lm_rng_normal(g);
        }
        for (int z = 0; z < nz; z++) {
            double far = pow(10.0, 6.0 * lm_rng_uniform(g) - 3.0);
            for (int r = 0; r < D; r++) T[z][r] = far * lm_rng_normal(g);
        }
    } else { /* attention averages z_1 over M batches */
        lm_ctx cd = lm_ctx_double();
        lm_pcdata *P = lm_pc_gen(2, 2, 0.5, 0.0, 0.1, 0.1, 0.25, g, &cd);
        lm_pcth th = lm_pc_th_new(P);
        lm_pc_th_randn(&th, g, 0.5);
        m = 32;
        D = 2;
        double p[8], zz[2], x1[2] = {lm_rng_normal(g), lm_rng_normal(g)};
        /* x_1 = L xi, the same query in every batch */
        double q0 = lm_mat_get_d(P->Lc, 0, 0) * x1[0] + lm_mat_get_d(P->Lc, 0, 1) * x1[1];
        double q1 = lm_mat_get_d(P->Lc, 1, 0) * x1[0] + lm_mat_get_d(P->Lc, 1, 1) * x1[1];
        for (int b = 0; b < m; b++) {
            lm_pcbatch B = lm_pc_batch(P, 8, g);
            lm_mat_set_d(B.X, 0, 0, q0);
            lm_mat_set_d(B.X, 0, 1, q1);
            lm_pcst_attn_d(p, zz, &B, th.KQ, 0);
            y[b][0] = zz[0];
            y[b][1] = zz[1];
            pw[b] = 1.0;
            lm_pc_batch_free(&B);
        }
        /* T = Sigma W_KQ x_1 in double */
        double a0 = lm_mat_get_d(th.KQ, 0, 0) * q0 + lm_mat_get_d(th.KQ, 0, 1) * q1;
        double a1 = lm_mat_get_d(th.KQ, 1, 0) * q0 + lm_mat_get_d(th.KQ, 1, 1) * q1;
        T[0][0] = lm_mat_get_d(P->Sig, 0, 0) * a0 + lm_mat_get_d(P->Sig, 0, 1) * a1;
        T[0][1] = lm_mat_get_d(P->Sig, 1, 0) * a0 + lm_mat_get_d(P->Sig, 1, 1) * a1;
        lm_pc_th_free(&th);
        lm_pc_free(P);
    }
    lm_pcst_id S;
    lm_pcst_id_init(&S, ev);
    double vs = prm.var_scale;
    static const char *const KN[] = {"finite distribution", "conditional given Z", "MC samples of z_1"};
    for (int t = 0; t < S.nt; t++) {
        int per = m / nz;
        for (int z = 0; z < nz; z++) {
            double r = resid((const double(*)[DM])y + z * per, pw + z * per, per, D, T[z], vs, &S.tiers[t]);
            if (!isfinite(r)) return lm_fail(ev, "non-finite residual");
            lm_pcst_id_rec(&S, t, KN[kind], r, 16.0 * (per + D));
        }
    }
    lm_pcst_id_finish(&S, ev, prm.tol_scale, KN[kind]);
    lm_measure(ev, "atoms m", m);
    lm_measure(ev, "dimension D", D);
    return 0;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "Bias-variance identity E||Y - T||^2 = ||EY - T||^2 + Var(Y) on finite distributions (far "
     "targets, conditional form, MC attention averages) in double, MPFR-128 and MPFR-256.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_precond_fact9) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Fact (9)",
    .origin = "reconstructed",
    .confidence = "high",
    .params = params,
    .readings = readings,
    .inst_scale = 0.5,
    .eval = eval,
};
