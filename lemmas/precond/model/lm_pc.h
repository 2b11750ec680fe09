/* lm_pc.h -- the preconditioned softmax-regression model (catalogue
 * preconditioned-softmax-regression, ids precond/...).
 *
 * Covariates x ~ N(0, Sigma) in R^d, responses y = W* x + eps in R^k,
 * eps ~ N(0, sigma^2 I_k).  Parameters theta = (W_V (k x d), W_KQ (d x d)).
 * Population loss L = tr(E Sigma E^T) + k sigma^2 with E = W_V Sigma W_KQ - W*,
 * regularizer R = lambda ||Sigma^1/2 M Sigma^1/2||_F^2, M = W_V^T W_V -
 * W_KQ Sigma W_KQ^T (variant V0; V1: R = lambda ||W_V^T W_V - Sigma W_KQ
 * W_KQ^T Sigma||_F^2), AB-coordinates A = W_V Sigma^1/2, B = Sigma^1/2 W_KQ
 * Sigma^1/2, the manifold of global minima and the Procrustes projection
 * onto it, the in-sample empirical loss of softmax attention on a batch and
 * its closed-form gradients, and Algorithm 1 (spectral initialisation and
 * the preconditioned step with the population or Monte Carlo oracle).
 *
 * Everything runs in any precision context.  Instances are drawn as doubles
 * and converted exactly (lm_pc_convert), so a break can be replayed in MPFR.
 * The excess loss is always computed from E, never as L - L0.
 */
#ifndef LM_PC_H
#define LM_PC_H
#include "lm_claim.h"

typedef struct {
    int d, k;
    lm_ctx ctx;
    int variant;      /* 0: V0 (the catalogue's default), 1: V1 */
    double sigma;     /* noise level: L0 = k sigma^2 */
    double lambda;    /* regulariser weight (default 1/4) */
    lm_mat *Sig;      /* Sigma (d x d) */
    lm_mat *Sh, *Sih; /* Sigma^{1/2}, Sigma^{-1/2} */
    lm_mat *Si;       /* Sigma^{-1} */
    lm_mat *Lc;       /* Cholesky factor of Sigma (for sampling; double values) */
    lm_mat *Ws;       /* W* (k x d) */
    lm_mat *Ms;       /* M* = W* Sigma^{1/2} (k x d) */
    lm_mat *U;        /* k x d */
    lm_num *s;        /* d singular values of M*, descending */
    lm_mat *V;        /* d x d */
} lm_pcdata;

typedef struct {
    lm_mat *V;  /* W_V  (k x d) */
    lm_mat *KQ; /* W_KQ (d x d) */
} lm_pcth;

/* ---- instance ---- */
/* Sigma = G G^T / d + c I (G Gaussian); W* = tau B0 / sigma_1(B0 Sigma^1/2), so s_1 = tau.
 * kappa > 0 instead gives the stress covariance Q diag(kappa^(-(a-1)/(d-1))) Q^T.
 * Built in double from g, then prepared in c.  Needs k >= d (assumption A2; the thin
 * SVD of M* is d wide). */
lm_pcdata *lm_pc_gen(int d, int k, double csig, double kappa, double tau, double sigma, double lambda,
                     lm_rng *g, const lm_ctx *c);
/* the same instance in another context (Sigma and W* converted exactly; the
 * derived matrices recomputed there) */
lm_pcdata *lm_pc_convert(const lm_pcdata *P, const lm_ctx *c);
/* recompute Sh, Sih, Si, Ms, U, s, V from Sig and Ws; 0 or 1 (eigen/SVD failure, Sigma not PD) */
int lm_pc_prepare(lm_pcdata *P);
void lm_pc_free(lm_pcdata *P);

/* out = S^pw for symmetric positive definite S (pw = 1/2, -1/2, -1, ...);
 * returns 1 when an eigenvalue is <= 0 or the eigensolver failed */
int lm_pc_sympow(lm_mat *out, const lm_mat *S, double pw);

/* ---- parameters ---- */
lm_pcth lm_pc_th_new(const lm_pcdata *P);
void lm_pc_th_free(lm_pcth *t);
void lm_pc_th_copy(lm_pcth *dst, const lm_pcth *src);
/* entries N(0, s^2), drawn as doubles */
void lm_pc_th_randn(lm_pcth *t, lm_rng *g, double s);
/* dst = a + c b (dst may alias a, not b) */
void lm_pc_th_axpy(lm_pcth *dst, const lm_pcth *a, double c, const lm_pcth *b);

/* ---- population objective ---- */
/* E = W_V Sigma W_KQ - W* (k x d) */
void lm_pc_E(lm_mat *E, const lm_pcdata *P, const lm_pcth *t);
/* excess L - L0 = tr(E Sigma E^T) = ||E Sigma^1/2||_F^2 */
void lm_pc_excess(lm_num *r, const lm_pcdata *P, const lm_pcth *t);
/* the same from a given E */
void lm_pc_excess_E(lm_num *r, const lm_pcdata *P, const lm_mat *E);
/* R(theta) (variant of P) */
void lm_pc_reg(lm_num *r, const lm_pcdata *P, const lm_pcth *t);
/* gradients of L (G may be NULL parts) and of R; G = grad L + grad R when both */
void lm_pc_grad_L(lm_pcth *G, const lm_pcdata *P, const lm_pcth *t);
void lm_pc_grad_R(lm_pcth *G, const lm_pcdata *P, const lm_pcth *t);
void lm_pc_grad_Lreg(lm_pcth *G, const lm_pcdata *P, const lm_pcth *t);

/* ---- geometry (variant V0) ---- */
/* A = W_V Sigma^1/2, B = Sigma^1/2 W_KQ Sigma^1/2, and back */
void lm_pc_to_AB(lm_mat *A, lm_mat *B, const lm_pcdata *P, const lm_pcth *t);
void lm_pc_from_AB(lm_pcth *t, const lm_pcdata *P, const lm_mat *A, const lm_mat *B);
/* ||theta||_Sigma = (||W_V Sigma^1/2||^2 + ||Sigma^1/2 W_KQ Sigma^1/2||^2)^1/2 */
void lm_pc_norm(lm_num *r, const lm_pcdata *P, const lm_pcth *t);
/* dual norm of a gradient: (||G_V Sigma^-1/2||^2 + ||Sigma^-1/2 G_KQ Sigma^-1/2||^2)^1/2 */
void lm_pc_dual_norm(lm_num *r, const lm_pcdata *P, const lm_pcth *G);
/* <a, b>_F over both blocks */
void lm_pc_dot(lm_num *r, const lm_pcth *a, const lm_pcth *b);
/* the manifold point theta_R for R in O(d) */
void lm_pc_manifold(lm_pcth *t, const lm_pcdata *P, const lm_mat *R);
/* a Haar-random orthogonal matrix (det sign random): polar factor of a Gaussian drawn as
 * doubles, computed in R's context (orthogonal to its precision) */
void lm_pc_rand_orth(lm_mat *R, lm_rng *g);
/* Procrustes projection: tp = theta_P, Rs = R* (may be NULL), dist = ||theta - theta_P||_Sigma,
 * lam_min = smallest singular value of K (the conditioning of the projection; may be NULL).
 * Returns 0, or 1 when the SVD failed. */
int lm_pc_project(lm_pcth *tp, lm_mat *Rs, lm_num *dist, lm_num *lam_min, const lm_pcdata *P,
                  const lm_pcth *t);
/* the spurious critical point theta_sad(i) (s_i set to 0), i in 0..d-1 */
void lm_pc_saddle(lm_pcth *t, const lm_pcdata *P, int i);

/* ---- reconstructed admissible constants (S8), general lambda ---- */
double lm_pc_alpha_r(double s1, double sd, double lambda);
double lm_pc_beta_r(double s1, double lambda);
double lm_pc_delta_r(double s1, double sd, double lambda);

/* ---- empirical loss on a batch ---- */
typedef struct {
    int N;
    lm_mat *X; /* N x d */
    lm_mat *Y; /* N x k */
} lm_pcbatch;

/* draw N samples (x = L_Sigma xi, y = W* x + sigma zeta) from g, as doubles */
lm_pcbatch lm_pc_batch(const lm_pcdata *P, int N, lm_rng *g);
void lm_pc_batch_free(lm_pcbatch *b);
/* in-sample (loo = 0) or leave-one-out empirical loss and its closed-form gradient
 * (G may be NULL) */
void lm_pc_emp(lm_num *Lhat, lm_pcth *G, const lm_pcdata *P, const lm_pcth *t, const lm_pcbatch *b,
               int loo);
/* Sigma_hat = X^T X / N */
void lm_pc_sigma_hat(lm_mat *Sh, const lm_pcbatch *b);
/* R_hat and its gradient: R with Sigma replaced by S (any symmetric d x d) */
void lm_pc_reg_S(lm_num *r, lm_pcth *G, const lm_pcdata *P, const lm_pcth *t, const lm_mat *S);

/* ---- Algorithm 1 ---- */
typedef enum { LM_PC_ORACLE_POP = 0, LM_PC_ORACLE_MC = 1 } lm_pc_oracle;

/* spectral initialisation from a training batch: Sigma_hat, W_hat, theta0;
 * Shat_inv (may be NULL) receives Sigma_hat^{-1}.  Returns 0, 1 on failure. */
int lm_pc_spectral_init(lm_pcth *t0, lm_mat *Shat_inv, const lm_pcdata *P, const lm_pcbatch *train);
/* one preconditioned step theta -= eta (Sigma~^-1 G Pinv) with Pinv = Sigma_hat^{-1} (or Sigma^{-1}) */
void lm_pc_precond_step(lm_pcth *t, const lm_pcth *G, const lm_mat *Pinv, double eta);
/* the MC oracle: mean of grad(L_hat + R_hat) over M fresh batches of size N drawn from g
 * (common random numbers: pass the same key), and its standard error (Frobenius, may be NULL) */
void lm_pc_oracle_mc(lm_pcth *G, double *se, const lm_pcdata *P, const lm_pcth *t, int N, int M,
                     uint64_t key, int loo);

#endif
