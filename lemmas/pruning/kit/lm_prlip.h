/* lm_prlip.h -- Lipschitz-constant estimators for the attention-pruning maps
 * f, c, p1, p2, p (n x n values) and the gradient of L (d x d), shared by the
 * claims pruning/lemmaE.3 ... lemmaE.7, theoremE.8 and theorem5.4.
 *
 * Three estimators of the global Lipschitz constant sup_M ||D map(M)||_op
 * (Frobenius to Frobenius); each is a lower bound of the true constant, so
 * "estimate > stated" is a genuine break of the stated constant:
 *   (1) block power (subspace) iteration on V -> J^T J V, with J V by central
 *       differences of the map (lm_pr_map_dir) and J^T U exact: the adjoint
 *       of the softmax chain in closed form (vec trick,
 *       J^T U = W o (X^T G_H X), G_H the row-softmax Jacobian applied to the
 *       adjoint of f); for the gradient the Jacobian is the Hessian
 *       (symmetric), so J^T U = J U by central differences of the gradient;
 *       the result is compared with the core's assembled-Jacobian SVD
 *       (lm_pr_jac_norm);
 *   (2) an adversarial maximiser in double: random restarts (masks in U[0,1],
 *       U[-1,2], 0, 1, small), compass search in a random 5-dim subspace of
 *       mask space, and greedy sign flips of X and W entries (|entry| kept);
 *   (3) two-point ratios ||g(M) - g(M + sV)||_F / s along the top singular
 *       direction and a random direction, s in {2, 0.3, 1e-2, 1e-4} in the
 *       working context and s in {1e-8, 1e-12} in MPFR-256.
 */
#ifndef LM_PRLIP_H
#define LM_PRLIP_H
#include "lm_pr.h"

/* central-difference step for a context: 2^-17 in double, 2^-(prec/3) in MPFR */
double lm_prlip_h(const lm_ctx *c);

/* out (d x d) = D map(M)^T U, U of the map's shape.  Exact for f, c, p1, p2,
 * p; central differences of the gradient (step h) for LM_PR_MAP_GRAD.
 * Returns 0, nonzero on a non-finite value. */
int lm_prlip_vjp(lm_mat *out, lm_pr_map m, lm_prfwd *F, const lm_prdata *P, const lm_mat *M,
                 const lm_mat *U, double h);

/* ||D map(M)||_op by block power iteration (block size <= 6) on J^T J with
 * Rayleigh-Ritz; stops when sigma changes by <= tol sigma + atol (atol: the
 * difference noise level).
 * vtop (optional, d x d): the top right singular vector (unit Frobenius).
 * g seeds the start block.  *its: iterations used.  Returns 0; 1 on a
 * non-finite value; 2 when maxit was reached without convergence. */
int lm_prlip_power(lm_num *sigma, lm_mat *vtop, lm_pr_map m, const lm_prdata *P, const lm_mat *M,
                   double h, int maxit, double tol, double atol, lm_rng *g, int *its);

typedef struct {
    int restarts; /* random starting masks besides the given one */
    int iters;    /* compass-search evaluations */
    int flips;    /* sign-flip trials on X and W entries (0: none) */
    int pit;      /* power iterations per objective evaluation */
} lm_prlip_searchopt;

/* Maximise sigma(M) = ||D map(M)||_op over M (and, with flips, over the signs
 * of X and W entries) in double.  P (double context) may have entry signs
 * flipped (f0 is re-prepared); M in: a starting mask, out: the best.  Returns
 * the best objective (power-iteration estimate), or a negative value when no
 * finite value was seen. */
double lm_prlip_maximise(lm_prdata *P, lm_mat *M, lm_pr_map m, const lm_prlip_searchopt *o,
                         lm_rng *g);

/* The claim driver shared by the seven claims. */
typedef struct {
    lm_pr_map map;
    /* the stated constant at (n, d, R, lambda), read from the claim's parameters */
    double (*stated)(lm_eval *ev, int n, int d, double R, double lambda);
    int e8;     /* gradient claim: report and check ||W||_inf ||X||_F^2 L_p + lambda */
    int also_f; /* E.4: the c estimate must coincide with the f estimate */
    int small;  /* theorem5.4: the smaller grid (n, d <= 4) */
} lm_prlip_spec;

/* configurations: index 0 full support (non-causal), 1 causal */
int lm_prlip_eval(lm_eval *ev, const lm_prlip_spec *s);

#endif
