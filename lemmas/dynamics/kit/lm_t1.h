/* lm_t1.h -- the Theorem-1 experiment (GD on W^V with B frozen), shared by
 * dynamics/theorem1 and dynamics/section4.1-gaussian-analogue. */
#ifndef LM_T1_H
#define LM_T1_H

#include "lm_claim.h"
#include "lm_mha.h"

typedef struct {
    lm_wvmode mode;
    int eta_rule;        /* 0: 1/(2G) paper, 1: 1/G_V, 2: eta*(1-1e-6), 3: eta*(1+1e-6), 4: 0.9/alpha */
    lm_kernel kernel;
    double cG;
    double alpha_scale;  /* multiplies alpha in the rate */
    int T;
    double mu_over_alpha;/* rate uses mu_over_alpha*alpha (1 for Thm 1) */
} lm_t1_setup;

/* one instance: builds the model from ev's seed and index, runs GD on W^V in
 * ev->ctx and records log f_t <= log f_0 + t log1p(-eta alpha). */
int lm_t1_run(lm_eval *ev, const lm_t1_setup *s);

/* K = sum_h c_h B_h B_h^T (block) or ||W^O||^2 B B^T (dense) at the current point */
void lm_t1_kernel(lm_mat *K, lm_mha *m);

#endif
