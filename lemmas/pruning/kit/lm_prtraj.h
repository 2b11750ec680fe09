/* lm_prtraj.h -- shared machinery of the trajectory / PL / rate claims of the
 * attention-pruning paper (pruning/theorem1.3, theorem4.1, remark4.2,
 * theorem5.2, lemma5.5, lemmaF.10): the instance grid of the catalogue
 * (PL regime n <= d), the support minimum delta in log space, the RECON
 * constants mu, xi, U, L_E8 with overridable coefficients, and gradient
 * descent on the mask whose per-iterate loss and gradient norm are kept in
 * the working precision (so an MPFR replay decides the descent lemma in
 * MPFR), stopping at the runner's replay horizon. */
#ifndef LM_PRTRAJ_H
#define LM_PRTRAJ_H
#include "lm_pr.h"

/* an instance of the catalogue's grid */
typedef struct {
    int n, d;
    double R;      /* Assumption D.1 bound */
    int causal;
    double lambda;
    int xkind;     /* 0: PL-regime X (beta0 = R^2/2, sigma = 0.05), W Gaussian;
                      1: the paper's rank-4 W and Gaussian X (section 1.6) */
    int m0;        /* 0: M0 = 1, 1: M0 ~ U[0,1] */
} lm_prt_spec;

/* the catalogue's theorem4.1 grid: n in {2,3,4}, d in {4,6,8}, R in
 * {1+1e-6, 2}, lambda in {1e-1,1e-2,1e-3}, M0 in {1, U[0,1]}, every eighth
 * instance the rank-4 data; drawn from g */
void lm_prt_spec_grid(lm_prt_spec *s, int causal, lm_rng *g);

/* builds the instance in double from seed, converts it to ctx (exactly),
 * and draws M0 (in ctx) */
lm_prdata *lm_prt_build(const lm_prt_spec *s, uint64_t seed, const lm_ctx *ctx, lm_mat **M0);

/* log of the support minimum of f(M), from the logits (log f_ij = H_ij - m_i
 * - log sum_k exp(H_ik - m_i)): never underflows.  Needs lm_pr_forward. */
double lm_prt_log_delta(const lm_prfwd *F, const lm_prdata *P);

/* the RECON constants of Theorem 4.1 / Lemma F.10 with the coefficients a
 * reviewer can replace (the claim files expose them as parameters) */
typedef struct {
    double mu_coef;  /* mu = mu_coef theta^2 beta^2 delta^2 (RECON 4) */
    double U_coef;   /* U = U_coef n^U_exp_n d R^3 (RECON 4) */
    double U_exp_n;  /* RECON 1.5 */
    double xi_scale; /* multiplies xi (1) */
    double L_scale;  /* multiplies the polynomial part of L_E8 (1) */
} lm_prt_coefs;

#define LM_PRT_COEF_PARAMS                                                                           \
    {"mu_coef", 4.0, "RECON: mu = mu_coef theta^2 beta^2 delta^2 (read in log space)", NULL,          \
     "constant (0, 1e300]"},                                                                                    \
    {"U_coef", 4.0, "RECON: U = U_coef n^U_exp_n d R^3 (F.10b; read in log space)", NULL, "constant (0, 1e300]"}, \
    {"U_exp_n", 1.5, "RECON: exponent of n in U", NULL, "exponent [-16, 16]"},                                  \
    {"xi_scale", 1.0, "multiplies xi = lambda d^2/2 + lambda d U/(theta^2 beta^2 delta^2) (log space)", \
     NULL, "constant (0, 1e300]"},                                                                           \
    {"L_scale", 1.0, "multiplies the polynomial part of L_E8 = (4n^2+6n^1.5) d^2 R^6 + lambda", NULL,   \
     "constant (0, 1e6]"}

void lm_prt_coefs_read(lm_prt_coefs *k, const lm_eval *ev);

typedef struct {
    double log_theta, log_beta, log_delta;
    double log_U, log_mu, log_xi; /* natural logs; log_beta = -inf when beta = 0 */
    double LE8;                   /* L_scale (4n^2+6n^1.5) d^2 R^6 + lambda */
} lm_prt_consts;

/* constants of P with the D.1 bound R and the given log delta; returns 0, or
 * -1 when the eigensolver for beta failed */
int lm_prt_consts_eval(lm_prt_consts *K, const lm_prdata *P, double R, double log_delta,
                       const lm_prt_coefs *k);
/* log xi and log mu again for another log delta */
void lm_prt_consts_delta(lm_prt_consts *K, const lm_prdata *P, double lambda, double log_delta,
                         const lm_prt_coefs *k);

/* GD on the mask, per-iterate values in the working precision */
typedef struct {
    int T;                     /* iterates 0..T recorded */
    lm_num *L, *Lrec, *g2;     /* L(M_t), L_rec(M_t), ||grad L(M_t)||_F^2 */
    lm_num *step2;             /* ||M_{t+1} - M_t||_F^2 (t < T) */
    double *log_delta;         /* log support minimum of f(M_t) */
    int first_exit;            /* first t with M_t outside [0,1]^{dxd}; -1 none */
    int nonfinite;             /* first t with a non-finite value; -1 none */
    lm_mat *Mlast;
    int cap;                   /* entries allocated */
} lm_prt_run;

/* callback at every iterate after the forward pass and the gradient */
typedef void (*lm_prt_cb)(void *u, int t, const lm_prfwd *F, const lm_mat *M);

/* M_{t+1} = M_t - eta V_{t+1}, V_{t+1} = momentum V_t + grad; project: clip
 * to [0,1] after the step.  Runs T steps (fewer when tmax >= 0: up to
 * iterate tmax + 1).  Returns 0 (a non-finite value sets nonfinite). */
int lm_prt_gd(lm_prt_run *r, const lm_prdata *P, const lm_mat *M0, double eta, int T, int tmax,
              int project, double momentum, lm_prt_cb cb, void *u);
void lm_prt_run_free(lm_prt_run *r);

/* empirical Lipschitz constant: the Hessian operator norm at M (exact
 * Jacobian of the gradient by central differences, largest singular value) */
int lm_prt_Lhat(double *Lhat, const lm_prdata *P, const lm_mat *M);

/* log(exp(a) + exp(b)) */
double lm_prt_logaddexp(double a, double b);

/* the (g, xi, 2, mu)-PL slack in log form: returns 1 and sets
 * *log_lhs = log(mu/2 (g - xi)), *log_rhs = log ||grad||^2 when g > xi;
 * returns 0 when g <= xi (the right-hand side is not positive: vacuous) */
int lm_prt_pl_logs(double *log_lhs, double *log_rhs, double g, double log_g2, double log_mu,
                   double log_xi);

/* the PL lemma (F.10 / 5.5) checks, mode: 0 pointwise non-causal, 1
 * pointwise causal, 2 along projected GD with eta = 1/L_E8, 3 the
 * stationary-point test L(M*) <= xi.  Reads the LM_PRT_COEF_PARAMS and
 * "steps". */
int lm_prt_pl_eval(lm_eval *ev, int mode);

#endif
