/* lm_ibjoint.h -- joint-training experiments of the implicit-bias paper
 * (update (13), catalogue run R4) shared by several claim files.  Every run
 * goes through the exact low-dimensional engine (lm_ibj.h): DM data, W_0 = 0,
 * u_0 = 0, exponential loss, optimizer "joint13", all in ev->ctx, so a break
 * is replayed wholly in MPFR (up to ev->tmax + 1 for a timed break). */
#ifndef LM_IBJOINT_H
#define LM_IBJOINT_H

#include "lm_claim.h"

/* One instance of the joint-training loss check (catalogue: Theorem 2 and
 * Theorem 8).  Reads the parameters rate, slope_tol, c2_scale, descent_scale,
 * eta, zeta, n, d, steps, and with contraction != 0 also c_scale for the
 * one-step contraction (iv).  The rate (i) is judged by the rule of lm_stats.h
 * (lm_rate_fit_seq, lm_rate_judge): log(-log L_t) against log t on [T/8, T],
 * claim slope >= rate, tolerance and stability allowance slope_tol; an unstable
 * fit runs the trajectory on to 2T within the range of steps (the per-step
 * checks stay on [0, steps]), still unstable: not-checkable.  Returns 0 or -1
 * (lm_fail). */
int lm_ibjoint_loss_check(lm_eval *ev, int contraction);

/* What lm_ibjoint_ib_check observes along the run (bit mask). */
enum {
    LM_IBJOINT_PROXIES = 1, /* Theorem 3's proxies (i)-(iv) of ||W_t|| and 1 - cos(W_t, W_mm) */
    LM_IBJOINT_EPS = 2      /* Lemma 2's inequality (60) at every iterate past R_eps (Theorem 9) */
};

/* One instance of the implicit-bias check along R4 (catalogue: Theorem 3 and
 * Theorem 9).  Always reads eta_scale, alpha, steps, d, n and t_fit0; with
 * LM_IBJOINT_PROXIES also slope_min, e_decay, e_frac, inc_growth (the slope (i)
 * of ||W_t|| against log t by the rule of lm_stats.h on [T/8, T], claim slope
 * >= slope_min, tolerance 0.01, stability allowance 0.1, doubling the run
 * within the range of steps when unstable; the other proxies stay on the
 * window [t_fit0, steps]); with
 * LM_IBJOINT_EPS also C_scale, Cp_scale, kappa_l (switch ratio|Cr|gamma),
 * Cr, s_lower, flip.  Returns 0 or -1 (lm_fail). */
int lm_ibjoint_ib_check(lm_eval *ev, int what);

#endif
