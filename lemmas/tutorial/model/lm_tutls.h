/* lm_tutls.h -- the tutorial paper's model: least squares f(x) = ||A x||^2 / (2m) for a random
 * m x d matrix A (a consistent system written in coordinates centred at its solution, so
 * f* = 0), its gradient A^T A x / m and its smoothness constant L = sigma_max(A)^2 / m.
 * Pure mathematics over a precision context: no lm_eval. */
#ifndef LM_TUTLS_H
#define LM_TUTLS_H

#include "lm_mat.h"

typedef struct {
    int m, d;
    lm_mat *A; /* m x d */
    lm_mat *r; /* m x 1 work vector */
} lm_tutls;

/* A with N(0,1) entries drawn from g (the same draws in every context); 0, or -1 when out of
 * memory */
int lm_tutls_init(lm_tutls *P, int m, int d, lm_rng *g, const lm_ctx *ctx);
void lm_tutls_free(lm_tutls *P);
/* f = ||A x||^2 / (2m), x d x 1 */
void lm_tutls_loss(lm_num *f, lm_tutls *P, const lm_mat *x);
/* gr = A^T A x / m (d x 1) */
void lm_tutls_grad(lm_mat *gr, lm_tutls *P, const lm_mat *x);
/* L = sigma_max(A)^2 / m, the smoothness constant of f; 0, or nonzero when the SVD failed */
int lm_tutls_smooth(lm_num *L, const lm_tutls *P);

#endif
