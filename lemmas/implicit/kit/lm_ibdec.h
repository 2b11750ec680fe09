/* lm_ibdec.h -- the decoder implicit-bias run of the implicit-bias paper
 * (catalogue implicit-bias-self-attention: Theorem 4 and its restatement
 * with constants, Theorem 10), shared by lemmas/implicit/theorem4.c and
 * lemmas/implicit/theorem10.c.
 *
 * One instance is the catalogue's run R4: DM data (T = 2), the joint update
 * (13) theta_{t+1} = theta_t - eta grad L / ((t+1)^alpha L) with the
 * exponential loss from u_0 = 0 and W_0 = 0 (or a small random W_0), run on
 * the exact low-dimensional engine (lm_ibj.h) in ev->ctx.  Along the run:
 *
 *   rho_t = ||u_mm|| min_i y_i u_t^T x_{i,opt_i} / ||u_t||     (designated opt_i)
 *   (a)  rho_t <= 1                                  every t >= 1
 *   (b)  c4 - C4 t^{-1/3} <= rho_t                   every t >= t0
 *   (c)  1 - cos(u_t, u_mm) non-increasing across checkpoints of [T/100, T]
 *        at least a factor 1.25 apart, and its log-log slope at most
 *        -cu_slope_min by the rate rule of lm_stats.h (fit on [T/8, T] of a 2%
 *        log grid, stable when the slope on [T/16, T/2] is within 0.1; an
 *        unstable fit runs the trajectory on to 2T, within the range of steps,
 *        recording only 1 - cos(u_t, u_mm); still unstable: not-checkable;
 *        tolerance 0.01; lm_rate_judge)
 *   (s)  (softmax != 0) log(1 - s_{i,opt}) <= -c ||W_t|| / ||W_mm|| for all i
 *        at every t with 1 - cos(W_t, W_mm) <= thr_scale / (8 D^2 ||W_mm||^2).
 *
 * A replay (ev->tmax >= 0) stops after iterate tmax + 1 and then skips the
 * fit (c). */
#ifndef LM_IBDEC_H
#define LM_IBDEC_H

#include "lm_claim.h"
#include "lm_ibj.h"

/* The parameters both claims declare (spliced into their lm_param_def
 * arrays; theorem10 appends its own). */
#define LM_IBDEC_PARAMS \
    {"c4_scale", 1.0, "multiplies the reconstructed c4 = 1/4 of (b)", NULL, "[0, 1e6]"}, \
    {"C4", 0.0, "(b) constant of the t^(-1/3) term in units of rho (lost; 0 = strongest)", NULL, "[-1e6, 1e6]"}, \
    {"t0", 1, "(b) first iterate checked (lost; 1 = strongest)", NULL, "int [1, 200000]"}, \
    {"umm_scale", 1.0, "multiplies ||u_mm|| in rho_t (a deliberately wrong SVM norm if != 1)", NULL, "(0, 1e6]"}, \
    {"cu_slope_min", 0.0, "(c) required decay exponent of 1 - cos(u_t, u_mm): its fitted log-log slope on [T/8, T] (rate rule, lm_stats.h) at most -cu_slope_min", NULL, "[-1e3, 1e3]"}, \
    {"eta", 0.5, "step size eta of the update (13)", NULL, "(0, 1e3]"}, \
    {"alpha", 2.0 / 3.0, "time exponent alpha of (13)", NULL, "[0, 1]"}, \
    {"zeta", 1.5, "DM: standard-deviation ratio of the optimal token", NULL, "(0, 1e3]"}, \
    {"n", 8, "DM: number of sequences (at most 16: run time bound)", NULL, "int [1, 16]"}, \
    {"d", 600, "DM: embedding dimension (at most 6000: memory and run time bound)", NULL, "int [2, 6000]"}, \
    {"steps", 40000, "iterations T of the run (quick: T/4; at most 200000: run length bound; an unstable fit (c) doubles the run up to that bound)", NULL, "int [1, 200000]"}

/* configuration names (NULL-terminated): 0 = W_0 = 0, 1 = small random W_0 */
extern const char *const lm_ibdec_configs[];

typedef struct {
    /* the run */
    int n, d;
    double zeta, eta, alpha;
    int steps;           /* horizon T (quick already applied) */
    int random_w0;       /* 1: W_0 i.i.d. N(0, (0.01/d)^2) (Lemma 4); 0: W_0 = 0 */
    /* Theorem 4 */
    double c4, C4;
    int t0;
    double umm_scale;
    double cu_slope_min;
    /* Theorem 10: the softmax lower bound (s) */
    int softmax;
    double c_soft;       /* c of (s) */
    double thr_scale;    /* multiplies the regime threshold (8 D^2 ||W_mm||^2)^-1 */
} lm_ibdec_setup;

/* Fill the run and Theorem-4 fields from the LM_IBDEC_PARAMS of ev's claim
 * and ev->config, ev->quick; softmax = 0. */
void lm_ibdec_setup_read(lm_ibdec_setup *s, const lm_eval *ev);

/* rho = umm min_i y_i u_t^T x_{i,opt_i} / ||u_t|| at J's state (train_u),
 * opt_i the designated J->D->opt, umm = ||u_mm|| (times any scale), in J's
 * context.  Returns 0, nonzero when u_t = 0. */
int lm_ibdec_rho(lm_num *rho, const lm_ibj *J, const lm_num *umm);
/* r = max_i log(1 - s_{i,opt_i}) at J's state, opt_i designated, computed as
 * LSE_{tau != opt_i} log s_{i tau} (never as 1 - s). */
void lm_ibdec_log_one_minus_sopt(lm_num *r, const lm_ibj *J);

/* One instance (see above).  Returns 0, or -1 after lm_fail. */
int lm_ibdec_run(lm_eval *ev, const lm_ibdec_setup *s);

#endif
