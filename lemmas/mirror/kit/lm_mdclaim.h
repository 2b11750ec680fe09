/* include/lm_mdclaim.h -- claim-side helpers shared by the mirror-descent claim files
 * (lemmas/mirror/): the accurate log E(z), the per-step run and one-step "pointwise" drivers
 * of the lemmas checked along lm_mdrun runs, and the regime/fit helpers of the rate claims
 * run with lm_mdgd_rate_run. */
#ifndef LM_MDCLAIM_H
#define LM_MDCLAIM_H

#include "lm_mdrun.h"
#include "lm_mdsign.h"
#include "lm_mdstep.h"

/* r = log(expm1(z)/z) for z >= 0, to full relative accuracy (0 for z <= 0) */
void lm_md_log_E(lm_num *r, const lm_num *z, const lm_ctx *c);

/* --- the identity claims (definition1, lemma26, identity-dirbreg) --- */

/* the working precision of an instance: double, MPFR 128 or MPFR 256 by tier (random
 * instances only), never below the runner's context */
lm_ctx lm_md_work_ctx(const lm_eval *ev, int tier);
/* the context's precision in bits (53 for double) */
int lm_md_ctx_bits(const lm_ctx *c);
/* the instance layout: a search point is (xkind, d = 2, tier 0); else kind = index % nkind,
 * tier = (index + index / nkind) % 3 and d = 10, 2, 1 by (index / nkind) % 3 */
void lm_md_ident_plan(const lm_eval *ev, int nkind, int xkind, int *kind, int *d, int *tier);
/* a random sign; 10^U(lo, hi) */
double lm_md_rsign(lm_rng *g);
double lm_md_logu(lm_rng *g, double lo, double hi);

/* --- the cone claims (lemmas 19-21) --- */

/* B = (x_{i,u} - x_{i,v}) z_i^T, the matrix of a margin difference (u = alpha_i for a
 * constraint), in D's context */
void lm_md_diff_mat(lm_mat *B, const lm_mddata *D, int i, int u, int v);
/* lm_mdcone_setup; returns 0, or 1 after recording the assumption of a degenerate instance,
 * or lm_fail's value (-1) on a solver failure.  The caller clears C. */
int lm_mdcone_claim_setup(lm_mdcone *C, lm_eval *ev, lm_rng *g, const lm_ctx *c, int n, int T, int d, double p,
                          int mode);

/* --- per-step lemmas along an lm_mdrun --- */

/* Starts the run of spec s.  If it does not start: frees R, sets *rc to 0 (assumption) or -1
 * and returns -1.  Otherwise calls prep (if any) with the live run, labels the series axes
 * ("iterate k", ylabel), checks lm_mdrun_steps(ev, K) steps with C (recording; the step
 * count goes to *K if K is not NULL), sets *rc to 0 or to lm_fail's value when the check
 * fails, and returns 1 if it failed, 0 if not.  The caller frees R.
 * In a certifying evaluation (lm_state_given(ev) >= 0) it evaluates only the step from the given
 * state (lm_mdrun_check_state), frees R, sets *rc and returns -1: the caller returns *rc. */
int lm_mdclaim_run(int *rc, lm_mdrun *R, lm_mdcheck_out *o, lm_eval *ev, const lm_mdrun_spec *s,
                   const char *ylabel, const lm_mdcheck *C, int *K,
                   void (*prep)(lm_eval *ev, lm_mdrun *R, void *data), void *data);

/* the eta-shrinking test (lm_mdrun_shrink_test) of a failed run with the claim's shrink_cap;
 * returns 0 with *persist and msg, or lm_fail's value (-1) when the test itself fails */
int lm_mdclaim_shrink(int *persist, char *msg, int msglen, lm_eval *ev, const lm_mdrun_spec *s, const lm_rng *g0,
                      int K, const lm_mdcheck *C);

/* one step of the "pointwise" configurations: any G */
typedef struct {
    int d;
    double p;
    lm_mat *W0, *Th0, *dTh;
    lm_num eta;
    lm_mdpair P;
} lm_mdpoint;

/* draws a d x d instance (d = 2 for a search point x when use_x, else 1 + index % 3) and
 * computes the pair with the quantities in need */
void lm_mdpoint_init(lm_mdpoint *q, lm_eval *ev, double p, int use_x, int need);
void lm_mdpoint_clear(lm_mdpoint *q);
/* Builds the observation set of obs on a one-step "run" of kind (W = W(0) = W0, eta_k = eta),
 * records it with the prefix "any G, dxd, eta=..[, crossings=..]: " and returns 0, or
 * lm_fail's value on a non-finite value; an empty set is recorded as the assumption null_msg. */
int lm_mdpoint_check(lm_eval *ev, const lm_mdpoint *q, lm_mdrun_kind kind, lm_mdstep_obs obs, void *data,
                     int crossings, const char *null_msg);

/* --- rate claims (lm_mdgd_rate_run) --- */

/* the step hook that checks ||W||^(p-1) nondecreasing; tag leads the message */
typedef struct {
    lm_eval *ev;
    const char *tag;
    long ndec;
    lm_num a;
} lm_mdgd_mono;
int lm_mdgd_mono_hook(lm_mdgd *R, void *arg);

/* 1 if the run reached the regime: growth >= regime_growth and, when drop, drop >=
 * regime_drop (each miss recorded as an assumption) */
int lm_mdgd_in_regime(lm_eval *ev, const lm_mdgd_rates *q, int drop);

/* the first trace index with k >= K/2 (K the last step) */
int lm_mdgd_half(const lm_mdgd_trace *tr);
/* the slope of log(D_k / Phi_p(t_k)) against log t_k over the second half of the trace
 * (k >= K/2, D_k > 0), with t_k = r_k (bylogk = 0) or t_k = log k for k >= 16 (bylogk = 1);
 * 0 if the fit succeeded */
int lm_mdgd_phi_fit(double *s, double *se, const lm_mdgd_trace *tr, double p, int bylogk);

/* --- trajectory claims along lm_mdgd runs (R1 instances) --- */

/* the sizes of lemmas 27-28: every 4th instance is big (n = 6, T = 8, d = 10) and gets a
 * quarter of the steps; K = the parameter K (quick: K/4), at least 1 */
void lm_mdgd_cone_size(const lm_eval *ev, int *n, int *T, int *d, long *K);
/* lm_mdgd_setup_r1 at the start level -mu_start and radius R0 (the claim's parameters).
 * If the run does not start: clears I and R, sets *rc to 0 (assumption) or -1 and returns -1;
 * else *rc = 0 and returns 0. */
int lm_mdgd_claim_setup(int *rc, lm_md_inst *I, lm_mdgd *R, lm_eval *ev, int n, int T, int d, double p,
                        double eta);
/* lm_mdgd_run for K steps with hook; returns lm_fail's value on a non-finite value, else 0
 * after measuring "steps" (and, if freeze, the partial-freeze count); a double run that froze
 * is measured as such */
int lm_mdgd_claim_run(lm_eval *ev, lm_mdgd *R, long K, double ratio, lm_mdgd_hook hook, void *arg, int freeze);

#endif
