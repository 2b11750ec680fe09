/* lemmas/pruning/lemmaD-2.c
 *
 * \claim{pruning/lemmaD.2}{Frobenius bounds of $X$ and $W$}
 * \source{attention-pruning, Lemma D.2 (Appendix D)}
 * \statement{Under Assumption D.1, $\|X\|_F\le\sqrt{nd}\,R$ and $\|W\|_F\le dR$.}
 * \check{Instances over the catalogue's grids ($n\in\{1,2,3,5,8\}$, $d\in\{1,2,3,4,8\}$,
 *   $R\in\{1+10^{-6},1.5,2,4\}$) and the four families; every fourth instance uses the
 *   Rademacher $\pm R$ corners for both, where both bounds are equalities.  Observed:
 *   $\|X\|_F\le\texttt{cX}\sqrt{nd}R$ and $\|W\|_F\le\texttt{cW}\,dR$, with $\sqrt{nd}$
 *   formed in the working precision and relative tolerance $\texttt{tol\_scale}\cdot(8(n+d)u+4\epsilon_{53})$ (the second term: the rescaled families' entries are doubles that may exceed $R$ by one rounding, see \texttt{pruning/assumptionD.1});
 *   so $\texttt{cX}=0.999$ or $\texttt{cW}=0.999$ is violated at the corners.}
 */
#include "lm_prbd.h"
#include <float.h>
#include <math.h>

#define PARAMS(NUM, SWITCH)                                                                               \
    NUM(cX, 1.0, "constant [0, 1e6]", "||X||_F <= cX sqrt(nd) R")                                         \
    NUM(cW, 1.0, "constant [0, 1e6]", "||W||_F <= cW d R")                                                \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies the rounding tolerance 8 (n+d) u + 4 eps_double")
LM_PARAMS(PARAMS)

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    lm_prbd_plan pl;
    lm_prbd_plan_make(&pl, ev->index, g);
    if (ev->index % 4 == 0) pl.fx = pl.fw = LM_PR_RADEMACHER;
    lm_prdata *P0 = lm_prbd_draw(&pl, NULL, g);
    lm_prdata *P = lm_pr_convert(P0, ev->ctx);
    lm_num a, b;
    lm_num_inits(ev->ctx, &a, &b, (lm_num *)NULL);
    /* plus the double rounding of the rescaled families' data (entries up to R(1 + eps)) */
    double tol = lm_prbd_tol(ev, 8.0 * (pl.n + pl.d)) + prm.tol_scale * 4.0 * DBL_EPSILON;
    lm_mat_frob(&a, P->X);
    lm_num_set_d(&b, (double)pl.n * pl.d);
    lm_num_sqrt(&b, &b);
    lm_num_mul_d(&b, &b, pl.R);
    lm_prbd_obs(ev, &a, prm.cX, &b, tol, "||X||_F <= cX sqrt(nd) R");
    lm_measure(ev, "||X||_F / (sqrt(nd) R)", lm_num_get_d(&a) / lm_num_get_d(&b));
    lm_mat_frob(&a, P->W);
    lm_num_set_d(&b, pl.d * pl.R);
    lm_prbd_obs(ev, &a, prm.cW, &b, tol, "||W||_F <= cW d R");
    lm_measure(ev, "||W||_F / (d R)", lm_num_get_d(&a) / lm_num_get_d(&b));
    lm_measure(ev, "n", pl.n);
    lm_measure(ev, "d", pl.d);
    lm_measure(ev, "R", pl.R);
    lm_num_clears(&a, &b, (lm_num *)NULL);
    lm_pr_free(P); lm_pr_free(P0);
    return 0;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "n, d <= 8, R in {1+1e-6, 1.5, 2, 4}, the four families, every fourth instance "
                    "Rademacher +-R where ||X||_F <= sqrt(nd) R and ||W||_F <= d R are "
                    "equalities.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_lemmaD_2) = {
    .kind = LM_KIND_POINTWISE,
    .source = "Lemma D.2 (Appendix D)",
    .origin = "reconstructed",
    .confidence = "medium-high",
    .params = params,
    .readings = readings,
    .inst_scale = 1.0,
    .eval = eval,
};
