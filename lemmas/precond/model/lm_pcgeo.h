/* lm_pcgeo.h -- geometry near the manifold of global minima of L_reg
 * (preconditioned softmax regression, claims precond/theorem1.3a, 1.3b,
 * lemma2): points theta = theta_R + r D in AB-coordinates, the true
 * (Procrustes) projection, and the one-point ratios
 *   rho_a = <grad L_reg, Delta> / ||Delta||_Sigma^2,
 *   rho_b = ||grad L_reg||_{Sigma,*} / ||Delta||_Sigma,
 *   rho_l = (L_reg - L0) / ||Delta||_Sigma^2,
 * computed with E = A_P Delta_B + Delta_A B_P + Delta_A Delta_B and
 * N = A^T A - B B^T expanded the same way (no cancellation as r -> 0).
 * The Hessian at theta_R (in AB-coordinates) supplies eigen-directions and
 * the sharp local constants; a compass search (in double) on the sphere of
 * radius r finds adversarial directions, which are then evaluated in any
 * precision.
 */
#ifndef LM_PCGEO_H
#define LM_PCGEO_H
#include "lm_pc.h"

#define LM_PCGEO_NB 8 /* directions of the search subspace */

typedef struct {
    int d, k, n;      /* n = (k + d) d coordinates of (A, B) */
    uint64_t rkey;    /* key of the Haar draw of R (rebuilt in every context) */
    lm_pcdata *Pd;    /* the instance in double */
    lm_mat *Rd;
    lm_pcdata *Pm;    /* the instance in MPFR (prec pm), built on demand */
    lm_mat *Rm;
    mpfr_prec_t pm;
    double s1, sd, lambda;
    double hmin, hmax; /* smallest nonzero / largest Hessian eigenvalue at theta_R */
    int ntan;          /* number of (numerically) zero Hessian eigenvalues */
    double basis[LM_PCGEO_NB][256]; /* unit directions: 0 min-eig, 1 max-eig, 2 saddle, rest random */
} lm_pcgeo;

typedef struct {
    lm_num ip, gn, dn, ex, exL; /* <grad,Delta>, ||grad||_*, ||Delta||, L_reg - L0, L - L0 */
    double lam_min;             /* smallest singular value of the Procrustes K */
    double dist_core;           /* dist from lm_pc_project (for a consistency measure) */
    int degenerate;             /* ||Delta|| at the rounding floor: the ratios are noise */
} lm_pcgeo_pt;

/* Build the instance (Sigma = G G^T/d + csig I, or the kappa stress case; s_1 = tau), a Haar R,
 * the Hessian and the direction basis.  Returns NULL on an eigen/SVD failure. */
lm_pcgeo *lm_pcgeo_new(int d, int k, double csig, double kappa, double tau, double lambda, uint64_t seed);
void lm_pcgeo_free(lm_pcgeo *G);
/* the instance and R in a context: double, or MPFR at prec (cached; one MPFR precision) */
const lm_pcdata *lm_pcgeo_inst(lm_pcgeo *G, const lm_ctx *c, const lm_mat **R);

void lm_pcgeo_pt_init(lm_pcgeo_pt *o, const lm_ctx *c);
void lm_pcgeo_pt_clear(lm_pcgeo_pt *o);
/* theta = theta_R + r dir (dir: unit, n doubles, A block row-major then B), or with saddle != 0
 * the spurious critical point (s_d set to 0) rotated by R.  Returns 0, or 1 when the
 * projection failed or a value is not finite. */
int lm_pcgeo_point(lm_pcgeo_pt *o, lm_pcgeo *G, const lm_ctx *c, const double *dir, double r, int saddle);
/* the ratios as doubles: which = 0 rho_a, 1 rho_b, 2 rho_l */
double lm_pcgeo_ratio(const lm_pcgeo_pt *o, int which);
/* adversarial direction on the sphere of radius r (double): minimise rho_a (which 0) or
 * maximise rho_b / rho_l (which 1, 2) over unit directions in span(basis), compass search
 * from `restarts` starts, `maxit` step halvings at most.  Returns the best ratio. */
double lm_pcgeo_search(double *dir, lm_pcgeo *G, int which, double r, int restarts, int maxit);
/* dir = normalise(basis[0] + sum x_i basis[i+1]) for the runner's search point x (nx <= NB-1);
 * returns 1 when the combination (nearly) cancels */
int lm_pcgeo_dir_from_x(double *dir, const lm_pcgeo *G, const double *x, int nx);

#endif
