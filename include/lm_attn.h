/* lm_attn.h -- the one-layer softmax-attention classifier with a linear decoder, a building
 * block of the core that any attention paper can use (src/attn/attn.c), and its optimizers
 * (src/attn/opt.c): GD, normalized GD, Polyak steps, momentum, joint training of the decoder.
 *
 *   Phi(theta; X) = u^T X^T S(X W x_1),  gamma_it = y_i u^T x_it,
 *   L(W,u) = (1/n) sum_i ell(y_i Phi_i),  ell = exp(-z) or log(1+exp(-z)).
 *
 * Everything is computed in the context of the data set (double or MPFR), in
 * cancellation-free forms: log-softmax by log-sum-exp,
 * y_i Phi_i = gamma_opt - delta_i with delta_i = sum_{tau!=opt} s_tau
 * (gamma_opt - gamma_tau) >= 0, 1 - s_opt = exp(LSE_{tau!=opt} log s_tau),
 * gradients through the centred scores sum_t' s_t' (gamma_t - gamma_t') and
 * kept as log-magnitude + scaled coefficients (never underflow).
 * Token t of sequence i is row t of D->X[i]; the query token is row 0. */
#ifndef LM_ATTN_H
#define LM_ATTN_H

#include "lm_attn_data.h"

typedef enum { LM_ATTN_EXP = 0, LM_ATTN_LOGISTIC = 1 } lm_attn_loss;

/* Forward quantities at (W, u); all matrices live in the data set's context. */
typedef struct {
    int n, T;
    lm_attn_loss loss;
    lm_mat *gam;    /* n x T scores gamma_it */
    lm_mat *a;      /* n x T logits a_it = x_it^T W x_i1 */
    lm_mat *logs;   /* n x T log-softmax log s_it */
    lm_mat *lomso;  /* n x 1 log(1 - s_i,opt) = LSE_{tau != opt} log s_itau */
    lm_mat *logdel; /* n x 1 log delta_i (-inf when delta_i = 0) */
    lm_mat *marg;   /* n x 1 y_i Phi_i = gamma_opt - delta_i */
    lm_mat *logl;   /* n x 1 log ell_i */
    lm_mat *logdl;  /* n x 1 log |ell'_i| */
    int *opt;       /* argmax_t gamma_it (first maximiser) */
    int unique;     /* 1 when every argmax is strict */
    double mingap;  /* min_i (gamma_opt - max_{tau != opt} gamma_tau), in double */
    lm_num logL;    /* log of the loss */
    lm_mat *q, *av, *gv; /* work: d x 1, T x 1, T x 1 */
} lm_attn_fwd;

lm_attn_fwd *lm_attn_fwd_new(const lm_attn_data *D);
/* the same for n sequences of T tokens in R^d (any model sharing the forward pass) */
lm_attn_fwd *lm_attn_fwd_new_dims(int n, int T, int d, const lm_ctx *c);
void lm_attn_fwd_free(lm_attn_fwd *F);
/* forward pass at (W d x d, u d x 1); returns 0, or nonzero if a value is not finite */
int lm_attn_forward(lm_attn_fwd *F, const lm_attn_data *D, const lm_mat *W, const lm_mat *u,
                  lm_attn_loss loss);
/* the same from given logits A and signed scores G (n x T, G_it = y_i u^T x_it),
 * e.g. from the low-dimensional representation (lm_ibj.h) */
int lm_attn_forward_scores(lm_attn_fwd *F, const lm_mat *A, const lm_mat *G, lm_attn_loss loss);
/* loss value L = exp(logL) (may underflow in double; use F->logL) */
void lm_attn_lossval(lm_num *L, const lm_attn_fwd *F);
/* y_i Phi_i computed naively as y_i u^T X_i^T s_i (for validation only) */
void lm_attn_margin_direct(lm_num *r, const lm_attn_data *D, const lm_mat *W, const lm_mat *u, int i);
/* log(L - L*) with L* = (1/n) sum_i ell(gamma_i,opt) (u fixed), stable at saturation */
void lm_attn_log_excess(lm_num *r, const lm_attn_fwd *F);

/* Gradient in W as coefficients of x_it x_i1^T (n x T): grad_W = exp(logscale) *
 * sum_it C_it x_it x_i1^T, with max |C_it| = 1 (C = 0, logscale = -inf when the
 * gradient is exactly 0).  General centred-score form (eq. 17). */
void lm_attn_grad_coef(lm_mat *C, lm_num *logscale, const lm_attn_fwd *F);
/* In double, the forward rows and lm_attn_grad_coef run raw-array loops that perform the
 * generic lm_num path's IEEE operations in its order, so they return the same bits.  0 turns
 * them off in this thread (tests compare the two paths); returns the previous setting. */
int lm_attn_fast_paths(int on);
/* the same through the Assumption-2 form (Gamma_i = gamma_opt - gamma_tau for
 * the first tau != opt; valid only when Assumption 2 holds) */
void lm_attn_grad_coef_a2(lm_mat *C, lm_num *logscale, const lm_attn_fwd *F);
/* G = exp(logscale) * C expanded (logscale may be NULL: scale 1); G d x d */
void lm_attn_expand(lm_mat *G, const lm_mat *C, const lm_num *logscale, const lm_attn_data *D);
/* Double fast paths (src/attn/attn.c), raw row-major arrays:
 * the factors of lm_attn_expand, V (n x d, row i = X_i^T C_i.) and X1 (n x d,
 * row i = x_i1); returns 1 (nothing written) when D is not double */
int lm_attn_expand_factors(double *V, double *X1, const lm_mat *C, const lm_attn_data *D);
/* row a of the expanded matrix into g (d entries), rounded exactly as lm_attn_expand rounds it */
void lm_attn_expand_row_d(double *g, const double *V, const double *X1, int n, int d, int a);
/* Q (n x d, row i = W x_i) for W d x d and X1 (n x d, row i = x_i) in one pass
 * over W, each entry summed in the order of OpenBLAS's single-threaded dgemm
 * (the order lm_attn_forward's per-sequence products had) */
void lm_attn_queries_d(double *Q, const double *W, const double *X1, int n, int d);
/* convenience: the gradient in W, d x d (general form) */
void lm_attn_grad_W(lm_mat *G, const lm_attn_fwd *F, const lm_attn_data *D);
/* the gradient in u, d x 1: (1/n) sum_i ell'_i y_i X_i^T s_i */
void lm_attn_grad_u(lm_mat *g, const lm_attn_fwd *F, const lm_attn_data *D);

/* logit gaps h_itau = (x_i,opt - x_itau)^T W x_i1 (n x T, 0 at tau = opt),
 * difference of tokens formed first; opt from F or D->opt */
void lm_attn_gaps(lm_mat *h, const lm_attn_data *D, const lm_mat *W, const int *opt);
/* 1 - cos(A, B) = ||A/||A|| - B/||B|| ||^2 / 2 (same shapes, nonzero) */
void lm_attn_one_minus_cos(lm_num *r, const lm_mat *A, const lm_mat *B);

/* Exact low-dimensional representation (section 2.3):
 *   W = w * W0 + sum_it C_it x_it x_i1^T. */
typedef struct {
    int n, T;
    lm_mat *K;    /* nT x nT token Gram matrix, index i*T+t */
    lm_mat *P;    /* n x T, P_it = x_it^T W0 x_i1 */
    lm_num w0n2;  /* ||W0||^2 */
} lm_attn_lowdim;

/* W0 = NULL means W_0 = 0 */
lm_attn_lowdim *lm_attn_lowdim_new(const lm_attn_data *D, const lm_mat *W0);
void lm_attn_lowdim_free(lm_attn_lowdim *R);
/* logits a (n x T) of W = w W0 + sum C x x^T */
void lm_attn_lowdim_logits(lm_mat *a, const lm_attn_lowdim *R, double w, const lm_mat *C);
/* <w W0 + C, v W0 + C'> */
void lm_attn_lowdim_inner(lm_num *r, const lm_attn_lowdim *R, const lm_num *w, const lm_mat *C,
                        const lm_num *v, const lm_mat *C2);
/* explicit d x d matrix W = w W0 + sum C x x^T */
void lm_attn_lowdim_expand(lm_mat *W, const lm_mat *C, double w, const lm_mat *W0,
                         const lm_attn_data *D);

/* Small fixtures (papers bring their own generators): draws as
 * doubles from g.  a2 = 1: EX1-like data with u = 3 e_1 satisfying
 * Assumption 2 exactly; a2 = 0: Gaussian tokens (entries N(0,1/d)) and a
 * Gaussian decoder.  D->opt is set (-1 on ties). */
lm_attn_data *lm_attn_toy_data(lm_rng *g, int n, int T, int d, int a2, const lm_ctx *ctx);
/* set D->opt from the scores of D->u; returns 1 when all are unique */
int lm_attn_set_opt(lm_attn_data *D);

/* A strictly separating direction without the SVM solver: the minimum-norm
 * V = sum C_it x_it x_i1^T with h_itau(V) = 1 for every i and tau != opt_i
 * (a feasible point of the W-SVM; it is W_mm when all constraints are
 * active).  C is n x T.  Returns 0, nonzero when the constraint Gram matrix
 * is singular. */
int lm_attn_sep_direction(lm_mat *C, const lm_attn_data *D, const int *opt);

/* ---- optimizers (src/train/ib_opt.c) ---- */
typedef struct {
    lm_mat *W, *u;    /* parameters (u is trained only by joint optimizers) */
    lm_mat *vW, *vu;  /* momentum buffers */
    int t;            /* iterations done */
    double last_step; /* the last step length (eta_t or eta) */
} lm_attn_state;

typedef struct {
    double eta;      /* step size */
    double eta_max;  /* Polyak cap */
    double beta;     /* heavy-ball momentum */
    double alpha;    /* time exponent of (13) */
    lm_attn_loss loss;
} lm_attn_opt_par;

typedef struct {
    const char *name;
    int joint; /* 1: trains u too */
    /* one step; F is work space; returns 0, nonzero on a non-finite value */
    int (*step)(lm_attn_state *S, lm_attn_fwd *F, const lm_attn_data *D, const lm_attn_opt_par *p);
} lm_attn_opt;

/* "gd", "ngd", "ngd-joint", "polyak", "polyak-cap", "ngd-mom", "joint13" */
const lm_attn_opt *lm_attn_opt_find(const char *name);
extern const char *const lm_attn_opt_names[];
void lm_attn_opt_par_default(lm_attn_opt_par *p);
/* state with W = W0, u = u0 (copied) */
lm_attn_state *lm_attn_state_new(const lm_mat *W0, const lm_mat *u0);
void lm_attn_state_free(lm_attn_state *S);

#endif
