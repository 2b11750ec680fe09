/* lm_ibgen.h -- synthetic data generators of the implicit-bias paper
 * (implicit-bias-self-attention catalogue, section 2.5) and the quantities
 * Assumptions 1 and 2 speak of.
 *
 * Every random number is drawn as a double from an lm_rng and every token is
 * formed in double before it is stored in the data set's context, so the same
 * seed gives bit-identical data in double and in MPFR.  Indices are 0-based:
 * the paper's query token x_{i1} is row 0 of X[i], the paper's e_1 is
 * coordinate 0. */
#ifndef LM_IBGEN_H
#define LM_IBGEN_H

#include "lm_attn_data.h"
#include "lm_rng.h"

/* ---- EX1 (Example 1, fixed decoder u = beta e_1) ---------------------- */
typedef struct {
    int n, T, d;
    double sigma;          /* noise std per coordinate; <= 0 means d^{-1/2} */
    double beta;           /* u = beta e_1 */
    int hetero;            /* 0: mu_i = mu, c_i = c, c_it = cit; 1: uniform ranges below */
    double mu, c, cit;     /* homogeneous values */
    double mu_lo, mu_hi;   /* hetero: mu_i ~ U[mu_lo, mu_hi] */
    double c_lo, c_hi;     /* hetero: c_i ~ U[c_lo, c_hi] */
    double cit_lo, cit_hi; /* hetero: c_it ~ U[cit_lo, cit_hi] */
    int opt_first;         /* 1: opt_i = 0 (the query token); 0: opt_i ~ U[T] */
    int antipodal;         /* 1: x_{i,opt} = y_i mu_i e_1 without noise (Fig. 5) */
} lm_ibgen_ex1_opts;

/* tested defaults of the catalogue: hetero = 0 homogeneous, 1 heterogeneous
 * (d = 800, n = 6, T = 4, sigma = d^{-1/2}, beta = 3, ...) */
void lm_ibgen_ex1_defaults(lm_ibgen_ex1_opts *o, int hetero);
/* x_{i,opt} = y_i mu_i e_1 + c_{i,opt} z, x_{it} = y_i c_i e_1 + c_it z,
 * z ~ N(0, sigma^2 (I - e_1 e_1^T)) (coordinate 0 exactly 0), u = beta e_1,
 * y_i ~ U{+-1}.  Scores: gamma_{i,opt} = beta mu_i, gamma_it = beta c_i. */
lm_attn_data *lm_ibgen_ex1(const lm_ibgen_ex1_opts *o, lm_rng *g, const lm_ctx *ctx);

/* ---- DM (data model of Section 4.1, T = 2) ------------------------------ */
typedef struct {
    int n, d;
    double sigma;  /* <= 0 means d^{-1/2} */
    double zeta;   /* optimal token has std zeta*sigma */
    int opt_first; /* 1: opt_i = 0; 0: opt_i ~ U{0,1} */
} lm_ibgen_dm_opts;

void lm_ibgen_dm_defaults(lm_ibgen_dm_opts *o); /* d = 600, n = 8, zeta = 1.5 */
/* x_{i,opt} ~ N(0, zeta^2 sigma^2 I), the other token ~ N(0, sigma^2 I),
 * u_star ~ N(0, I) kept in D->ustar, y_i = sign(u_star^T x_{i,opt}) (computed
 * in ctx; +1 on an exact 0), u_0 = D->u = 0 (and W_0 = 0). */
lm_attn_data *lm_ibgen_dm(const lm_ibgen_dm_opts *o, lm_rng *g, const lm_ctx *ctx);

/* ---- Lemma 4: small random initialisation -------------------------------- */
/* d x d matrix with i.i.d. N(0, sigma0^2) entries; sigma0 <= 0 means 0.01/d */
lm_mat *lm_ibgen_w0(int d, double sigma0, lm_rng *g, const lm_ctx *ctx);

/* ---- measured quantities (in the data set's context) --------------------- */
/* all tokens as rows of an nT x d matrix (row i*T + t) */
lm_mat *lm_ibgen_tokens(const lm_attn_data *D);
/* Gram matrix of all tokens, nT x nT */
lm_mat *lm_ibgen_gram(const lm_attn_data *D);
/* scores gamma_it = y_i u^T x_it (u = D->u, or D->ustar when use_ustar) into
 * the n x T matrix G */
void lm_ibgen_scores(lm_mat *G, const lm_attn_data *D, int use_ustar);

typedef struct {
    lm_num B;        /* max_{i,t} ||x_it|| */
    lm_num Dc;       /* D = max_i max_{tau != opt} ||x_opt - x_tau|| ||x_i1|| */
    lm_num bmin2;    /* min ||x_it||^2 */
    lm_num rho;      /* max_{(i,t) != (j,tau)} |<x_it, x_jtau>| */
    lm_num gam_min;  /* min_i Gamma_i (Gamma_i = gamma_opt - max_{tau != opt} gamma) */
    lm_num gam_max;  /* max_i (gamma_opt - min_{tau != opt} gamma) */
    lm_num spread;   /* Assumption 2 residual: max_i (max - min)_{tau != opt} gamma */
    lm_num gam_abs;  /* max |gamma_it| (scale of the scores) */
} lm_ibgen_stats;

void lm_ibgen_stats_init(lm_ibgen_stats *s, const lm_ctx *ctx);
void lm_ibgen_stats_clear(lm_ibgen_stats *s);
/* compute all quantities w.r.t. the designated opt_i and u (or ustar).
 * Returns 0; -1 when some opt_i is -1 or a value is not finite. */
int lm_ibgen_stats_compute(lm_ibgen_stats *s, const lm_attn_data *D, int use_ustar);

/* The reconstructed sufficient form of Assumption 1 ("A1-derived"),
 *   Lambda rho^2 <= b^2 (b^2 - 3 rho),
 *   Lambda = lambda_scale e (n-1) e^{Gamma_max} (Gamma_max/Gamma_min) T^2,
 * and Assumption 2 (spread of the non-optimal scores <= 4 2^-p max|gamma|).
 * D may live in any context; the decision is taken in D's context, and when
 * it is within 1e-8 relative of the boundary and ctx differs, again in ctx
 * from an exact copy.  *ratio = lhs/rhs (+inf when rhs <= 0).  Returns a
 * bit mask: 1 = A1-derived holds, 2 = Assumption 2 holds; -1 when opt is
 * not unique (Gamma_min <= 0) or a value is not finite. */
int lm_ibgen_assumptions(double *ratio, const lm_attn_data *D, double lambda_scale, const lm_ctx *ctx);

/* Wilson score interval bounds for k successes out of m at z */
double lm_ibgen_wilson_upper(long k, long m, double z);
double lm_ibgen_wilson_lower(long k, long m, double z);

/* Lemma 2's reconstructed R_eps inverted: the root eps of R = Cw/eps log(K/eps)
 * on (0, 1] by bisection; >= 1 when there is none below 1 (the lemma is then silent) */
double lm_ibgen_eps_of_R(double R, double Cw, double K);

#endif
