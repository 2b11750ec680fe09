/* lm_synth.h -- the synthetic proxy of the paper's experiments (catalogue
 * R4/R5), shared by dynamics/experiment-fig2-fig3 and dynamics/experiment-fig4:
 * a Softmax student whose labels come from a random teacher, the Gauss-Newton
 * curvature that sets the common step size, and the budget-scaled lengths.
 *
 * The student and the teacher are drawn from the instance's stream in ev's
 * context, in a fixed order (student X, W^Q, W^K, W^V, W^O; then the teacher's
 * weights), so that every seed of a claim's loop draws the next pair. */
#ifndef LM_SYNTH_H
#define LM_SYNTH_H

#include "lm_claim.h"
#include "lm_mha.h"

typedef struct {
    int N, n, D, d, H;  /* sizes ((8, 4, 8, 4, 2) in R4) */
    double sX;          /* X_i entries N(0, sX^2) */
    double sQK;         /* W^Q, W^K ~ N(0, sQK^2), student and teacher; W^V, W^O ~ N(0, 1) */
    double cG;          /* Gaussian scale c_G of the student (2 = appendix, 1 = eq. 11) */
    lm_wvmode wv;       /* W^V parameterization of student and teacher */
    int teacher;        /* labels: 0 mean of the teacher's Softmax and Gaussian outputs,
                         * 1 its Softmax output, 2 its Gaussian output */
} lm_synth_setup;

/* The Softmax student of one seed, in ev->ctx, with labels from a teacher that
 * shares its X and W^O and has independent W^Q*, W^K*, W^V* (same laws). */
lm_mha *lm_synth_student(lm_eval *ev, const lm_synth_setup *s);

/* lambda_max of the Gauss-Newton matrix J J^T at the current point, J the
 * Jacobian of MH(M;X) in the variables of mask by central differences (it
 * only sets the step size, so its accuracy is not critical); the parameters
 * are restored and forward is run.  NaN when the eigensolver fails. */
double lm_synth_gn_lmax(lm_mha *m, int mask);

/* number of seeds: the claim's "seeds" parameter (3 with --quick), in [1, 64] */
int lm_synth_seeds(const lm_eval *ev);

/* a run length T scaled by budget/128, at most T and at least Tmin */
int lm_synth_steps(const lm_eval *ev, int T, int Tmin);

#endif
