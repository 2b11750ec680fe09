/* lemmas/pruning/lemma5-5.c
 *
 * \claim{pruning/lemma5.5}{PL inequality (informal version of Lemma F.10)}
 * \source{attention-pruning, Lemma 5.5; formal version Lemma F.10; constants reconstructed}
 * \statement{Under (A1), (A2) and Assumption D.1, $\mathcal L$ satisfies the
 *   $(\mathcal L,\xi,2,\mu)$-proxy PL inequality: $\|\nabla\mathcal L(M)\|_F^2\ge\frac12\mu(\mathcal
 *   L(M)-\xi)$ for $M\in[0,1]^{d\times d}$, with $\mu$, $\xi$ as in Lemma F.10.}
 * \check{The check of pruning/lemmaF.10 on fewer configurations: pointwise at
 *   $M\sim U[0,1]^{d\times d}$ (non-causal) and along projected GD with $\eta=1/L_{E.8}$; the same
 *   instances, the same log-space constants and flags, and the F.10a/F.10b chain as
 *   observations.  Wrong constants: \texttt{U\_coef} $=10^{-6}$, or $\xi\to0$ with $\mu\to10^{300}$.
 *   Readings: the pointwise configuration reads the paper; the projected-GD one is repaired (A2 over
 *   $\mathrm{supp}\,C$ on its causal instances).  An instance with $\mathcal L\le\xi$ at every point is
 *   vacuous.}
 */
#include "lm_claim.h"
#include "lm_prtraj.h"

static const char *const configs[] = {"pointwise,non-causal", "along projected GD", NULL};

static const lm_param_def params[] = {
    LM_PRT_COEF_PARAMS,
    {"steps", 100,
     "GD iterations of the trajectory configuration (quick: steps/4; at most 20000: run length bound)",
     NULL, "int [1, 20000]"},
    {NULL, 0, NULL, NULL, NULL}};

static int eval(lm_eval *ev) { return lm_prt_pl_eval(ev, ev->config == 0 ? 0 : 2); }

static const lm_reading readings[] = {
    {LM_READ_PAPER, "PL regime n in {2,3,4} <= d in {4,6,8}, R in {1+1e-6, 2}, lambda in {0.1, "
                    "0.01, 0.001}, full mask, M ~ U[0,1]^(d x d): the printed PL inequality, F.10a "
                    "and F.10b.", NULL},
    {LM_READ_REPAIRED, "points along projected GD (eta = 1/L_E8); odd instances causal with A2 read over supp C", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_lemma5_5) = {
    .kind = LM_KIND_POINTWISE,
    .source = "Lemma 5.5 (informal version of Lemma F.10)",
    .origin = "reconstructed (RECON constant: mu_coef, U_coef, U_exp_n, xi_scale)",
    .confidence = "medium/low",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.125,
    .eval = eval,
};
