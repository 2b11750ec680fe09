/* lm_t3ball.h -- the Theorem-3 quantities of lm_dyn.h (delta_h, min|V'W^O|,
 * the left-hand side of condition (12)) in the model's own context.
 *
 * lm_dyn_t3_eval and lm_dyn_log_cond12 return doubles (midpoints in Arb);
 * a certificate needs the hypotheses of Theorem 3 decided on balls.  These
 * form every value through the lm_num/lm_mat API: in Arb each result is a
 * ball holding the exact value for every point of the input balls (the
 * singular values are the rigorous enclosures of lm_mat_smin; no vectors are
 * asked for, so nothing taints).  In double and MPFR they are the same
 * formulas rounded, so a caller may use them in every context. */
#ifndef LM_T3BALL_H
#define LM_T3BALL_H

#include "lm_dyn.h"

/* dh[h] = delta_h = sigma_{Nn^2}(J_h) (0 when Dd < Nn^2), h = 0..H-1 (J_h depends on X,
 * W^Q, W^K only: no forward pass needed).  Nonzero when an SVD failed. */
int lm_t3b_delta_h(lm_num *dh, const lm_mha *m);

/* r = min_{i,h,k} |(X_i u_h)_k| with u = W^V W^O (m->u: run lm_mha_forward first) */
void lm_t3b_min_VWo(lm_num *r, const lm_mha *m);

/* r = log of the left-hand side of (12), max over the heads h of
 *   n ||X||^5 (lQ_h + lK_h) exp(9/4 ||X||^2 (lQ_h^2 + lK_h^2)) lamV ||W^O|| ||r||
 *     / (minVWo^2 min(delta_h, lQ_h)),
 * lamV = sigma_max(W^V) (app 0) or 2/3 (1 + sigma_max(W^V)) (app 1), with the norms of k
 * (lm_dyn_nconsts_norms with with_B) -- the formula of lm_dyn_log_cond12.  The logs of
 * minVWo and min(delta_h, lQ_h) are taken as given: a ball reaching 0 gives a non-finite r. */
void lm_t3b_log_cond12(lm_num *r, const lm_dyn_nconsts *k, const lm_num *dh,
                       const lm_num *minVWo, int app);

#endif
