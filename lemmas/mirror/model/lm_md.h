/* lm_md.h -- the mirror-descent paper (catalogue mirror-descent-attention,
 * section 1): the l_p potential, its mirror maps and Bregman divergence, the
 * softmax-attention classifier with a separate query token z_i and a fixed
 * head v, l_p-AttGD (unnormalised and normalised), and the l_p-AttSVM.
 *
 *   f(X, z; W) = v^T X^T S(X W z),   L(W) = (1/n) sum_i ell(Y_i f_i),
 *   psi(W) = ||W||_p^p / p,  grad psi(W) = sgn(W)|W|^(p-1),
 *   grad psi^*(Theta) = sgn(Theta)|Theta|^(1/(p-1)),
 *   D_psi(W, V) = sum [ |W|^p/p + (p-1)|V|^p/p - sgn(V)|V|^(p-1) W ].
 *
 * Norms of matrices are entrywise.  Everything runs in the context of the
 * data set (double or MPFR); p is a double, exact in every context, and the
 * exponents p-1, 1/(p-1), q = p/(p-1) are formed in the context.  The forward
 * pass and the gradient coefficients are those of lm_ib.h (log-domain,
 * cancellation-free), with logits a_it = x_it^T W z_i and signed scores
 * gamma_it = Y_i v^T x_it:  grad L = e^ls sum_it C_it x_it z_i^T. */
#ifndef LM_MD_H
#define LM_MD_H

#include "lm_attn.h"

typedef struct {
    int n, T, d;
    lm_ctx ctx;
    lm_mat **X;  /* n matrices T x d: row t is x_it */
    lm_mat *Z;   /* n x d: row i is the query token z_i */
    int *y;      /* labels +-1 */
    lm_mat *v;   /* d x 1 fixed head */
    int *alpha;  /* selected token of each sample (0-based); -1 unset */
} lm_mddata;

lm_mddata *lm_md_data_new(int n, int T, int d, const lm_ctx *ctx);
void lm_md_data_free(lm_mddata *D);
/* exact copy into another context */
lm_mddata *lm_md_data_convert(const lm_mddata *D, const lm_ctx *ctx);
/* the paper's generator (generate_data.py, at the distribution level):
 * v, x_it, z_i ~ N(0, I_d) each scaled to unit l2 norm (in double, so the
 * data are the same numbers in every context), Y_i = sgn N(0,1);
 * alpha = argmax of the scores (-1 on a tie) */
lm_mddata *lm_md_gen_paper(lm_rng *g, int n, int T, int d, const lm_ctx *ctx);
/* closed-form instance I1: n = 1, x_t = e_t (d = T), z = e_1, v = e_1, Y = 1, alpha = 0;
 * I2 (T = 4, d = 3): tokens e_1, e_2, e_3, -e_1 */
lm_mddata *lm_md_gen_i1(int T, const lm_ctx *ctx);
lm_mddata *lm_md_gen_i2(const lm_ctx *ctx);
/* alpha_i = argmax_t gamma_it; returns 1 when every maximum is strict */
int lm_md_set_alpha_opt(lm_mddata *D);

/* ---- potential (entrywise, any shape) ---- */
void lm_md_pnorm(lm_num *r, const lm_mat *W, double p);     /* ||W||_p, scaled: no overflow */
void lm_md_pnorm_e(lm_num *r, const lm_mat *W, const lm_num *e); /* ||W||_e for an lm_num exponent e */
void lm_md_psi(lm_num *r, const lm_mat *W, double p);       /* ||W||_p^p / p */
void lm_md_grad_psi(lm_mat *Th, const lm_mat *W, double p); /* sgn(W)|W|^(p-1); may alias */
void lm_md_grad_psi_star(lm_mat *W, const lm_mat *Th, double p); /* sgn|Th|^(1/(p-1)); may alias */
/* D_psi(W, V) as the closed sum (the authors' bregman_div) */
void lm_md_bregman(lm_num *r, const lm_mat *W, const lm_mat *V, double p);
/* D_psi(U/||U||_p, W/||W||_p): the directional Bregman divergence (U = W_mm) */
void lm_md_dir_bregman(lm_num *r, const lm_mat *U, const lm_mat *W, double p);

/* ---- model ---- */
lm_attn_fwd *lm_md_fwd_new(const lm_mddata *D);
/* forward pass at W (d x d); 0, nonzero when a value is not finite */
int lm_md_forward(lm_attn_fwd *F, const lm_mddata *D, const lm_mat *W, lm_attn_loss loss);
/* grad L at the forward pass, scaled: G = sum C x z^T with max |C| = 1 and
 * grad L = e^ls G (ls = -inf, G = 0 when the gradient vanishes) */
void lm_md_grad_scaled(lm_mat *G, lm_num *ls, const lm_attn_fwd *F, const lm_mddata *D);
/* grad L itself (may underflow in double at saturation) */
void lm_md_grad(lm_mat *G, const lm_attn_fwd *F, const lm_mddata *D);

/* ---- l_p-AttGD on the dual variable Theta = grad psi(W) ---- */
typedef struct {
    double p, eta;
    int normalized; /* 1: Theta -= eta grad / (||grad||_q + 2^-52) (the paper's experiments) */
    lm_attn_loss loss;
} lm_md_par;
/* One step from (W, Th) (consistent: W = grad psi^*(Th)), F work space;
 * W and Th are updated.  Returns 0, nonzero on a non-finite value. */
int lm_md_step(lm_mat *W, lm_mat *Th, lm_attn_fwd *F, const lm_mddata *D, const lm_md_par *par);

/* ---- l_p-AttSVM ----
 * W_mm = argmin ||W||_p s.t. <W, A_k> >= 1, A_k = (x_{i,alpha_i} - x_it) z_i^T,
 * k over (i, t != alpha_i).  Dual: max_{lambda >= 0} Phi(lambda) = sum lambda
 * - ||sum lambda_k A_k||_q^q / q, W = grad psi^*(sum lambda A).  Coordinate
 * ascent in double (each coordinate a monotone scalar equation solved by
 * bisection), then Newton on the active set in the context, then the
 * certificate: W_feas = W(lambda) / min_k <W(lambda), A_k>, gap =
 * psi(W_feas) - Phi(lambda) >= 0. */
enum { LM_MDSVM_OK = 0, LM_MDSVM_INFEASIBLE = 1, LM_MDSVM_NOCONV = 2, LM_MDSVM_BADINPUT = 3 };
typedef struct {
    double p;
    int m;          /* constraints */
    int *ci, *ct;   /* constraint k = (sample ci[k], token ct[k]) */
    lm_mat *lambda; /* m x 1 dual solution (context) */
    lm_mat *W;      /* d x d primal solution W(lambda) (context) */
    lm_num norm;    /* ||W_mm||_p */
    double gap;     /* duality gap psi(W_feas) - Phi(lambda), rounded */
    double min_margin; /* min_k <W, A_k> - 1 (primal feasibility) */
    double max_cs;  /* max_k |lambda_k (<W, A_k> - 1)| */
    int sweeps, newton;
    int have;
} lm_md_svm;
/* o: sweep cap (0: default 20000).  Returns one of the codes above; s must be
 * cleared in every case. */
int lm_md_svm_solve(lm_md_svm *s, const lm_mddata *D, double p, int max_sweeps);
void lm_md_svm_clear(lm_md_svm *s);
/* margins <W, A_k> of any W for the constraints of D->alpha (m x 1) */
void lm_md_margins(lm_mat *r, const lm_mat *W, const lm_mddata *D);

/* ---- derived constants and cones (catalogue 1.6, reconstructed) ----
 * supports T_i = {t != alpha_i : <W_mm, A_it> = 1} (lambda > 0 or margin
 * within tol of 1); delta = min over (support t, non-support tau) of
 * (x_it - x_itau)^T W_mm z_i / 2 (1 when no pair exists); A = max ||x_it||_q
 * ||z_i||_q; eps_p(mu); mu_0; gbar = min over supports of gamma_alpha -
 * gamma_t (> 0: alpha locally optimal); Gamma = max |gamma_it - gamma_itau|. */
typedef struct {
    int m;
    int *support;   /* m flags, constraint order of lm_md_svm */
    int nsupport;
    double delta, A, mu0, gbar, Gamma, wnorm; /* wnorm = ||W_mm||_p */
    int no_pair;    /* 1 when delta defaulted to 1 */
} lm_md_consts;
void lm_md_consts_compute(lm_md_consts *k, const lm_md_svm *s, const lm_mddata *D);
void lm_md_consts_clear(lm_md_consts *k);
/* eps_p(mu): (p 2^p mu)^(1/p) for p >= 2, d^(2/p-1) sqrt(2 mu/(p-1)) below */
double lm_md_eps_p(double mu, double p, int d);
/* W0 = R0 * normalise_p(Wbar_mm + rho E), E ~ N(0,1) entries drawn from g as
 * doubles, rho by bisection so that D_psi(Wbar_mm, Wbar_0) = mu (in the
 * context of Wmm).  Returns 0, nonzero when mu cannot be reached (mu >= the
 * divergence at rho = 1e6). */
int lm_md_cone_init(lm_mat *W0, const lm_mat *Wmm, double p, double mu, double R0, lm_rng *g);

/* ---- an instance of the theory run R1 (catalogue 1.7) ----
 * The paper's generator at (n, T, d), alpha = argmax of the scores, the
 * l_p-AttSVM solved and certified in the context, the constants, and a start
 * W_0 in the Bregman cone: D_psi(Wbar_mm, Wbar_0) = mu (mu <= 0 means
 * mu = -mu * mu_0, i.e. a multiple of mu_0), ||W_0||_p = R0 ||W_mm||_p;
 * Th = grad psi(W_0).  All randomness from g (as doubles). */
typedef struct {
    lm_mddata *D;
    lm_md_svm svm;
    lm_md_consts k;
    lm_mat *W, *Th; /* current iterate and its dual variable */
    double p, mu;   /* mu actually used */
    int have_svm, have_k;
} lm_md_inst;
/* Returns 0; 1 when a hypothesis is unmet (tied scores, infeasible SVM, alpha
 * not locally optimal, cone level unreachable) with the reason in why; -1 when
 * the SVM solver failed (reason in why). */
int lm_md_inst_r1(lm_md_inst *I, lm_rng *g, const lm_ctx *c, int n, int T, int d, double p, double mu,
                  double R0, char *why, int whylen);
void lm_md_inst_clear(lm_md_inst *I);

#endif
