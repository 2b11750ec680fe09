/* lm_pcmo.h -- the moment/variance rate proxies of the preconditioning paper
 * (precond/lemma15 .. lemma23): Monte Carlo, with lm_pcmc, of conditional
 * (fixed query x_j) and integrated (nested over x_j) biases, variances and
 * moments of F = z_j z_j^T or F = C_j against the context size N on a doubling
 * grid, and the slope of log(quantity) against log N judged against a claimed
 * exponent by the rate rule of lm_stats.h (lm_rate_fit_seq, side -1): fitted (95%
 * t interval) on the window N in [N_max/8, N_max] and on [N_max/16, N_max/2]; an
 * interval wider than ci_max is assumption-failed (MC too noisy), fewer than 4
 * points in a window or slopes differing by more than max(stab_tol, 2 sqrt(se^2 +
 * se_half^2)) not-checkable (an unstable slope first doubles the horizon N_max, at
 * most twice, within the declared range of N_max), else inconsistent when the lower
 * end of the interval lies more than tol above the claimed exponent.
 *
 * Every claim using this engine declares the parameters of LM_PCMO_PARAMS
 * (plus its own), so one evaluator serves all nine. */
#ifndef LM_PCMO_H
#define LM_PCMO_H
#include "lm_pcmc.h"

/* the default of the parameter stab_tol: the floor of the rate rule's stability allowance (the
 * slopes on [N_max/8, N_max] and [N_max/16, N_max/2] may always differ by this much) */
#define LM_PCMO_STAB_TOL 0.05

typedef enum {
    LM_PCMO_COND_BIAS = 0, /* ||E_{-j} F - F_inf||_F^2 at a fixed x_j */
    LM_PCMO_INT_BIAS,      /* E_j ||E_{-j} F - F_inf||_F^2 (nested) */
    LM_PCMO_INT_VAR,       /* E_j Var_{-j}(F) (nested) */
    LM_PCMO_JOINT_MOMENT,  /* E ||F - F_inf||_F^r (x_j and context jointly) */
    LM_PCMO_COND_VAR       /* Var_{-j}(F) at a fixed x_j, plus the Poincare intermediate */
} lm_pcmo_mode;

typedef enum {
    LM_PCMO_ZZ = 0, /* F = z_j z_j^T, F_inf = mu_j mu_j^T */
    LM_PCMO_C       /* F = C_j, F_inf = Sigma */
} lm_pcmo_qty;

/* the common parameters (name, default, doc, range) of the engine; a claim lists
 * them and then its own, e.g. {"exponent", -1, ...}.  nhi, mhi and dhi are the
 * claim's resource bounds (integer literals) of N_max (and N_min), M and d: the
 * cost of one instance grows like N_max * M * d^2 (times J when nested). */
#define LM_PCMO_PARAMS(exp_def, tol_def, nmin, nmax, m_def, s_def, nhi, mhi, dhi)                     \
    {"exponent", exp_def, "claimed exponent e of the rate N^e (the proxy's target)", NULL, "exponent [-10, 10]"}, \
    {"tol", tol_def, "tolerance on the slope: inconsistent when the whole 95% CI (on N in [N_max/8, N_max]) " \
     "lies above e + tol", NULL, "setting [-10, 10]"},                                                         \
    {"stab_tol", LM_PCMO_STAB_TOL, "rate rule: the slopes on N in [N_max/8, N_max] and [N_max/16, N_max/2] " \
     "may always differ by this much (else the horizon is doubled, then not-checkable)", NULL,           \
     "setting [0, 10]"},                                                                               \
    {"ci_max", 0.6, "largest admissible width of the slope's 95% CI on N in [N_max/8, N_max] (else: MC too noisy)", NULL, \
     "setting [0, 100]"},                                                                                      \
    {"rel_se_max", 0.25, "largest admissible relative standard error of each point (else: MC too noisy)", \
     NULL, "setting [0, 1e6]"},                                                                                \
    {"N_min", nmin, "smallest context size of the grid (doubling; at most N_max / 2)", NULL,           \
     "int [2, " #nhi "]"},                                                                             \
    {"N_max", nmax, "largest context size of the grid, the horizon of the rate rule (N_max/16 >= N_min for " \
     "4 points in both windows; at most " #nhi ": run length bound)", NULL,                             \
     "int [4, " #nhi "]"},                                                                             \
    {"M", m_def,                                                                                       \
     "Monte Carlo draws per grid point (per outer query in nested MC; at least 64 = 16 batches of 4; "  \
     "at most " #mhi ": run length bound)",                                                            \
     NULL, "int [64, " #mhi "]"},                                                                      \
    {"s_target", s_def,                                                                                \
     "s_j = ||Sigma^1/2 W_KQ x_j||^2 at the fixed query (conditional), or E_j s_j (integrated)", NULL,  \
     "(0, 100]"},                                                                                      \
    {"d", 3, "dimension (at most " #dhi ": run length bound)", NULL, "int [1, " #dhi "]"}

/* Run the whole check of one claim: instance from ev->seed (Sigma = G G^T/d +
 * 0.5 I, W_KQ Gaussian scaled to s_target, x_j ~ N(0, Sigma)), the N grid,
 * the Monte Carlo, the informativeness requirements, the slope observation
 * and, for LM_PCMO_COND_VAR, the Poincare observations (parameter
 * "poincare_scale" must then exist).  power: the judged quantity is
 * (estimate)^power (0.5 for an unsquared norm from a squared estimate);
 * r: the moment order of LM_PCMO_JOINT_MOMENT.  J: outer queries (nested).
 * Returns 0 or -1 (lm_fail). */
int lm_pcmo_run(lm_eval *ev, lm_pcmo_mode mode, lm_pcmo_qty qty, double power, double r, int J);

/* one draw's Poincare term sum_{l != j} ||d F / d x_l  Sigma^1/2||_F^2 */
double lm_pcmo_grad_term(const lm_pcmc *m, lm_pcmo_qty qty);

/* unbiased estimate of ||mean||^2 from K batch means (K x D, row-major) and
 * its jackknife standard error */
void lm_pcmo_sqnorm(double *q, double *se, const double *bm, int K, int D);

#endif
