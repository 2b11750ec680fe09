/* lm_pcb.h -- helpers of the gradient-bias and softmax-moment claims of the
 * preconditioning paper (precond/theorem3-5, lemma9-14):
 *
 * - an instance of the A3 regime with a parameter point theta in the tube
 *   around the manifold (radius rho * delta_r in the Sigma-norm);
 * - exact Wishart moments E[S_hat A_1 S_hat ... A_{m-1} S_hat] by Isserlis /
 *   Wick pairings, as a polynomial in 1/N (any precision context);
 * - the Monte Carlo bias of grad L_hat with the population-limit control
 *   variate, in double;
 * - the rate proxy: the rate rule of lm_stats.h on log v against log N (window
 *   [N_max/8, N_max], stable against [N_max/16, N_max/2], 95% t-interval), observed
 *   as "lower CI <= claimed + tol", assumption-failed when the interval is wider than
 *   maxw (MC too noisy), not-checkable when the slope is not stable.
 */
#ifndef LM_PCB_H
#define LM_PCB_H
#include "lm_pc.h"
#include "lm_pcmc.h"
#include "lm_stats.h"

/* instance (d, k, c_Sigma = csig, tau, sigma = 0.1, lambda = 0.25) and theta =
 * theta_R (R Haar) + Delta with ||Delta||_Sigma = rho * delta_r, in context c;
 * all drawn as doubles from g.  th must be freed by the caller. */
lm_pcdata *lm_pcb_inst(lm_pcth *th, int d, int k, double csig, double tau, double rho, lm_rng *g,
                       const lm_ctx *c);

/* a new point of the tube for the instance P: theta_R (R Haar) + Delta, ||Delta||_Sigma = rho delta_r */
void lm_pcb_tube_point(lm_pcth *th, const lm_pcdata *P, double rho, lm_rng *g);

/* Wick moments: T[c] (c = 1..m, d x d, allocated by the caller in Sig's context)
 * receives the coefficient of N^(c-m) in E[S_hat A_0 S_hat A_1 ... A_{m-2} S_hat],
 * S_hat = (1/N) sum_i x_i x_i^T, x_i ~ N(0, Sig) i.i.d.  T[m] is the population
 * value Sig A_0 Sig ... Sig.  m in 1..5. */
void lm_pcb_wick(lm_mat **T, const lm_mat *Sig, const lm_mat *const *A, int m);

/* The bias of E grad R_hat - grad R (variant V0) at N, exactly from the Wick
 * coefficients: GV (k x d), GKQ (d x d) in P's context. */
typedef struct {
    int d, k;
    lm_mat *TV[4], *TK1[4], *TK2[5], *TV2[3]; /* Wick coefficients */
    const lm_pcdata *P;
    const lm_pcth *th;
} lm_pcb_rbias;
void lm_pcb_rbias_init(lm_pcb_rbias *B, const lm_pcdata *P, const lm_pcth *th);
/* bias at N (N = 0: the population value itself, i.e. grad R) */
void lm_pcb_rbias_at(lm_pcth *G, const lm_pcb_rbias *B, double N, int population);
void lm_pcb_rbias_clear(lm_pcb_rbias *B);

/* Monte Carlo bias of grad L_hat (in-sample) with control variate: the mean over
 * M batches (batch b from key lm_hash_u64(key, b), the first N samples, so
 * common random numbers across N) of grad L_hat - G_cv, where G_cv is the
 * population-limit summand -2 (y_j - W_V mu_j) mu_j^T, -2 Sigma W_V^T (y_j - W_V
 * mu_j) x_j^T (whose mean is exactly grad L).  noise multiplies the response
 * noise sigma zeta (the noise terms of grad L_hat - G_cv have mean exactly 0, so
 * noise = 0 is a further control variate; the draws are the same either way).
 * bias: k*d + d*d doubles (V then
 * KQ, row-major); var: per-entry variance of the mean (var / M).  Double. */
void lm_pcb_lbias_mc(double *bias, double *var, const lm_pcdata *P, const lm_pcth *th, int N, int M,
                     uint64_t key, double noise);

/* the rate proxy, by the rate rule of lm_stats.h (lm_rate_fit_seq, side -1: the claim is
 * "slope <= claimed"); v[i] > 0 at N[i] on a doubling grid.  log v is fitted against log N
 * (95% t-interval) on the window N in [N_max/8, N_max] and again on [N_max/16, N_max/2]:
 *   - the interval on [N_max/8, N_max] wider than maxw: assumption-failed (MC too noisy);
 *   - fewer than 4 points in a window, or the two slopes differing by more than
 *     max(LM_PCB_STAB_TOL, 2 sqrt(se^2 + se_half^2)): not-checkable ("horizon too short");
 *   - else (lm_rate_judge) the observation: the lower end of the interval lies at most tol
 *     above claimed.
 * Records the measures "<tag> slope CI lo/hi" and those of lm_rate_judge.  Returns 0 (judged),
 * -1 after lm_fail (non-finite), 1 after lm_assume or when not-checkable. */
#define LM_PCB_STAB_TOL 0.05
int lm_pcb_rate(lm_eval *ev, const char *tag, const double *N, const double *v, int n,
                double claimed, double tol, double maxw);

/* W_KQ as row-major doubles: config 0 -> th->KQ; otherwise Sigma^-1/2 B Sigma^-1/2 with B
 * Gaussian rescaled to ||B||_op = bop.  Returns 0, 1 when the SVD failed. */
int lm_pcb_wkq(double *W, const lm_pcdata *P, const lm_pcth *th, int config, double bop, lm_rng *g);

#endif
