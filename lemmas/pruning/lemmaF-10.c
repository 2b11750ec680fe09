/* lemmas/pruning/lemmaF-10.c
 *
 * \claim{pruning/lemmaF.10}{PL inequality of the pruning loss (formal; RECON $\mu$, $\xi$)}
 * \source{attention-pruning, Lemma F.10 (formal version of Lemma 5.5); constants reconstructed}
 * \statement{Assume $\lambda>0$, $XX^\top\succeq\beta I_n$ with $\beta>0$,
 *   $\min_{(i,j)\in\mathrm{supp}C}f(M)_{ij}\ge\delta>0$, $M\in[0,1]^{d\times d}$.  With
 *   $\theta=\min_{ab}|W_{ab}|$, $U=4n^{3/2}dR^3$, $\mu=4\theta^2\beta^2\delta^2$ and
 *   $\xi=\frac{\lambda d^2}{2}+\frac{\lambda dU}{\theta^2\beta^2\delta^2}$:
 *   $\|\nabla\mathcal L(M)\|_F^2\ge\frac12\mu(\mathcal L(M)-\xi)$, via (F.10a)
 *   $\|W\circ(X^\top p(M)X)\|_F\ge\theta\beta\delta\|c(M)\|_F$ and (F.10b)
 *   $\|W\circ(X^\top p(M)X)\|_F\le U$.}
 * \check{Instances of the catalogue's PL regime ($n\in\{2,3,4\}\le d\in\{4,6,8\}$,
 *   $R\in\{1+10^{-6},2\}$, $\lambda\in\{10^{-1},10^{-2},10^{-3}\}$, PL-regime $X$ or the rank-4 data).
 *   $\delta$ is the support minimum of $f(M)$ at the point itself (the sharpest admissible value),
 *   computed in log space from the logits; $\mu$, $\xi$, $U$ in log space.  At each point: the main
 *   inequality in log form when $\mathcal L>\xi$, else the observation $\mathcal L\le\xi$ (flag
 *   vacuous-$\xi$: the right-hand side is not positive); (F.10a) and (F.10b) in log form (relative
 *   tolerance $10^{-9}$: these are not equality cases at the sampled points).  Configurations:
 *   pointwise at $M\sim U[0,1]^{d\times d}$, non-causal and causal (support $\delta$); along projected
 *   GD with $\eta=1/L_{E.8}$ for \texttt{steps} iterations (every iterate); and the stationary-point
 *   test: GD + Newton polishing to $\|\nabla\mathcal L\|\le10^{-9}$ (error if not reached), and
 *   $\mathcal L(M^{*})\le\xi$ (PL with any $\mu>0$ forces it), assumption-failed when $M^{*}$ leaves the
 *   box.  Measured: min F.10a ratio (catalogue 2.57), max F.10b ratio (catalogue 0.021), the PL slack
 *   and $\log_{10}\mathcal L(M^{*})/\xi$.  Wrong constants: \texttt{U\_coef} $=10^{-6}$ breaks F.10b;
 *   $\xi\to0$ with $\mu\to10^{300}$ breaks the main inequality.
 *   Readings: \texttt{pointwise,non-causal} reads the paper; \texttt{pointwise,causal} and the projected-GD
 *   configuration are repaired (A2 read over $\mathrm{supp}\,C$); the stationary-point test is a probe (a
 *   consequence, not the printed inequality).  An instance where $\mathcal L\le\xi$ at every point is
 *   vacuous (the right-hand side is not positive), and the stationary-point test is vacuous when $\xi$
 *   is at least $n+\lambda d^2/2$, the supremum of $\mathcal L$ over the box.}
 */
#include "lm_claim.h"
#include "lm_prtraj.h"

static const char *const configs[] = {"pointwise,non-causal", "pointwise,causal", "along projected GD",
                                      "stationary point L(M*) <= xi", NULL};

static const lm_param_def params[] = {
    LM_PRT_COEF_PARAMS,
    {"steps", 200,
     "GD iterations of the trajectory configuration (quick: steps/4; at most 20000: run length bound)",
     NULL, "int [1, 20000]"},
    {NULL, 0, NULL, NULL, NULL}};

static int eval(lm_eval *ev) { return lm_prt_pl_eval(ev, ev->config); }

static const lm_reading readings[] = {
    {LM_READ_PAPER, "PL regime n in {2,3,4} <= d in {4,6,8}, R in {1+1e-6, 2}, lambda in {0.1, "
                    "0.01, 0.001}, full mask, M ~ U[0,1]^(d x d): the printed PL inequality, F.10a "
                    "and F.10b.", NULL},
    {LM_READ_REPAIRED, "A2 read over supp C: as printed, min over all entries of f(M) is 0 for causal C (delta = 0, mu = 0, xi infinite)", NULL},
    {LM_READ_REPAIRED, "points along projected GD (eta = 1/L_E8); odd instances causal with A2 read over supp C", NULL},
    {LM_READ_PROBE, "consequence, not the printed inequality: PL with mu > 0 forces L(M*) <= xi at a stationary point M* in the box", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_lemmaF_10) = {
    .kind = LM_KIND_POINTWISE,
    .source = "Lemma F.10 (formal version of Lemma 5.5)",
    .origin = "reconstructed (RECON constant: mu_coef, U_coef, U_exp_n, xi_scale)",
    .confidence = "medium-high (structure); low (mu, xi)",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .eval = eval,
};
