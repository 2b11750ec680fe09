/* lemmas/pruning/assumptionD-1.c
 *
 * \claim{pruning/assumptionD.1}{Bounded parameters}
 * \source{attention-pruning, Assumption D.1 (Appendix D)}
 * \statement{(RECON) $R>1$ is a fixed constant, $\|X\|_\infty=\max_{ij}|X_{ij}|\le R$ and
 *   $\|W\|_\infty\le R$.  The mask is implicitly $M\in[0,1]^{d\times d}$.}
 * \check{Structural: every instance generator of the harness must respect the assumption,
 *   since every RECON constant is evaluated with the generator's $R$.  One configuration per
 *   family (uniform, Rademacher, Gaussian rescaled, the paper's rank-4 construction, and
 *   the PL-regime $X=\sqrt{\beta_0}[I|0]Q+\sigma N$ clipped to $R$); $n$, $d$, $R$ from the
 *   catalogue's grids.  Observed: $R_{\rm eff}:=\max(\|X\|_\infty,\|W\|_\infty)\le R$ with
 *   relative tolerance $\texttt{tol\_scale}\cdot(4u+4\epsilon_{53})$: the instance is data in
 *   double, and the rescaled families (Gaussian, rank-4) compute $a_i\cdot(R/m)$, which can exceed
 *   $R$ by one double rounding (the core's \texttt{rescale\_maxabs}; a replay at 256 bits does not
 *   remove a rounding that is in the data), $R>1$ (as $1<R$), and that every in-domain mask kind lies in $[0,1]$.
 *   $R_{\rm eff}/R$ is measured.  \texttt{gen\_scale} multiplies the $R$ handed to the
 *   generators: any value above $1$ is a generator breaking the assumption and must be caught.}
 */
#include "lm_prbd.h"
#include <float.h>
#include <math.h>

static const char *const configs[] = {"uniform", "rademacher", "gaussian", "rank-4", "pl-regime", NULL};
#define PARAMS(NUM, SWITCH)                                                                                          \
    NUM(gen_scale, 1.0, "setting (0, 1e6]", "the generators are called with R * gen_scale (1: as the harness does)") \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies the rounding tolerance 4u + 4 eps_double")
LM_PARAMS(PARAMS)

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    lm_prbd_plan pl;
    lm_prbd_plan_make(&pl, ev->index, g);
    double R = pl.R, Rg = R * prm.gen_scale;
    int fam = ev->config;
    lm_ctx cd = lm_ctx_double();
    lm_prdata *P0 = lm_pr_new(pl.n, pl.d, &cd);
    if (fam == 4) {
        lm_pr_fill_pl_X(P0->X, 0.5 + 4.0 * lm_rng_uniform(g), 0.3 * lm_rng_uniform(g), Rg, g);
        lm_pr_fill(P0->W, LM_PR_GAUSS, Rg, g);
    } else {
        lm_pr_family fx = fam == LM_PR_RANK4 && pl.n != pl.d ? LM_PR_GAUSS : (lm_pr_family)fam;
        lm_pr_fill(P0->X, fx, Rg, g);
        lm_pr_fill(P0->W, (lm_pr_family)fam, Rg, g);
    }
    lm_mat *M = lm_mat_new(pl.d, pl.d, &cd);
    /* the data are doubles: the rescaled families round R/m * m once in double */
    double tol = lm_prbd_tol(ev, 4.0) + prm.tol_scale * 4.0 * DBL_EPSILON;
    for (int k = 0; k < LM_PR_M_OFFDOMAIN; k++) {
        lm_pr_fill_mask(M, (lm_pr_mkind)k, g);
        double lo = HUGE_VAL, hi = -HUGE_VAL;
        for (int i = 0; i < pl.d; i++)
            for (int j = 0; j < pl.d; j++) {
                lo = fmin(lo, lm_mat_get_d(M, i, j));
                hi = fmax(hi, lm_mat_get_d(M, i, j));
            }
        lm_obs_le_d(ev, -1, hi, 1.0, 0.0, "mask %s: max M_ab <= 1", lm_pr_mkind_name((lm_pr_mkind)k));
        lm_obs_le_d(ev, -1, 1.0 - lo, 1.0, 0.0, "mask %s: min M_ab >= 0", lm_pr_mkind_name((lm_pr_mkind)k));
    }
    lm_prdata *P = lm_pr_convert(P0, ev->ctx);
    lm_num a, b;
    lm_num_inits(ev->ctx, &a, &b, (lm_num *)NULL);
    lm_mat_max_abs(&a, P->X);
    lm_mat_max_abs(&b, P->W);
    lm_num_max(&a, &a, &b);
    lm_num_set_d(&b, R);
    lm_obs_le(ev, -1, &a, &b, tol, "R_eff = max(|X|_inf, |W|_inf) <= R (n=%d d=%d R=%g)", pl.n, pl.d, R);
    lm_obs_le_d(ev, -1, 1.0, R, 0.0, "1 < R");
    lm_measure(ev, "R_eff", lm_num_get_d(&a));
    lm_measure(ev, "R_eff / R", lm_num_get_d(&a) / R);
    lm_measure(ev, "R", R);
    lm_num_clears(&a, &b, (lm_num *)NULL);
    lm_mat_free(M);
    lm_pr_free(P); lm_pr_free(P0);
    return 0;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Family (i), X and W iid U[-R, R] on the n, d <= 8 and R grids: the generator "
                    "must keep max(|X|_inf, |W|_inf) <= R with R > 1.", NULL},
    {LM_READ_PAPER, "Family (ii), X and W with entries +-R exactly: the bound |X_ij|, |W_ab| <= R "
                    "is attained, so it tests the boundary of Assumption D.1.", NULL},
    {LM_READ_PAPER, "Family (iii), Gaussian X and W rescaled to max entry R: tests that the "
                    "rescaling a_i (R/m) stays within R up to one double rounding.", NULL},
    {LM_READ_PAPER, "Family (iv), the paper's rank-4 construction (W = W_Q W_K^T, Gaussian X when "
                    "n != d) rescaled to max entry R: the bound on the paper's own data.", NULL},
    {LM_READ_PAPER, "PL-regime X = sqrt(beta0)[I|0]Q + sigma N clipped to R, Gaussian W: the data "
                    "of the PL claims must also satisfy the entry bound R.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_assumptionD_1) = {
    .kind = LM_KIND_STRUCTURAL,
    .source = "Assumption D.1 (Appendix D)",
    .origin = "reconstructed",
    .confidence = "medium",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.5,
    .eval = eval,
};
