/* lm_ibjoint.h -- joint-training (update (13)) experiments of the
 * implicit-bias paper shared by several claim files. */
#ifndef LM_IBJOINT_H
#define LM_IBJOINT_H

#include "lm_claim.h"

/* One instance of the joint-training loss check (catalogue: Theorem 2 and
 * Theorem 8).  Reads the parameters rate, slope_tol, c2_scale, descent_scale,
 * eta, zeta, n, d, steps, and with contraction != 0 also c_scale for the
 * one-step contraction (iv).  Returns 0 or -1 (lm_fail). */
int lm_ibjoint_loss_check(lm_eval *ev, int contraction);

#endif
