/* lm_svm.h -- max-margin SVMs over the tokens of the softmax-attention classifier
 * (lm_attn.h), a building block for the implicit-bias analyses of attention.
 *
 * W-SVM:  W_mm = argmin ||W||_F  s.t.  (x_{i,opt_i} - x_{it})^T W x_{i1} >= 1
 *         for all i and t != opt_i;
 * u-SVM:  u_mm = argmin ||u||    s.t.  y_i u^T x_{i,opt_i} >= 1 for all i.
 *
 * Both are solved through their dual  max_{alpha>=0} 1^T alpha - alpha^T Q alpha/2
 * with the dual Gram matrix Q_ab = <A_a, A_b> of the constraint "vectors"
 * A_a = (x_{i,opt}-x_{i tau}) x_{i1}^T (W-SVM) or y_i x_{i,opt} (u-SVM):
 * dual coordinate ascent (Hildreth) in double, then polishing in the data
 * set's context by solving Q_SS alpha_S = 1 on the active set S (a small
 * primal active-set loop), then a KKT / duality-gap certificate computed in
 * that context.  The solution is kept as coefficients over the tokens
 *  W_mm = sum_i (sum_t M_it x_it) x_i1^T  with
 * M_{i,opt} = sum_tau alpha_{i tau}, M_{i tau} = -alpha_{i tau};  u_mm =
 * sum_i M_{i,opt} x_{i,opt} with M_{i,opt} = y_i alpha_i.  The explicit
 * d x d matrix (d x 1 vector) is produced on request.
 *
 * Constraint order: a runs over i = 0..n-1 and, for the W-SVM, over
 * tau = 0..T-1, tau != opt_i (ci[a] = i, ct[a] = tau); for the u-SVM a = i
 * (ct[a] = opt_i).  Tokens are 0-based: the query token x_{i1} is row 0 of X[i].
 */
#ifndef LM_SVM_H
#define LM_SVM_H

#include "lm_attn_data.h"

enum {
    LM_SVM_OK = 0,
    LM_SVM_INFEASIBLE = 1, /* a Farkas certificate (alpha>=0, Q alpha ~ 0, 1^T alpha > 0)
                              or a zero constraint vector was found */
    LM_SVM_NOCONV = 2,     /* sweep cap reached or the certificate failed */
    LM_SVM_BADINPUT = 3,   /* opt_i missing/out of range, empty problem */
    LM_SVM_NONFINITE = 4   /* NaN/Inf in the data or in the iteration */
};

typedef enum { LM_SVM_W = 0, LM_SVM_U = 1 } lm_svm_kind;

typedef struct {
    int max_sweeps;    /* Hildreth sweep cap (default 200000) */
    double tol;        /* Hildreth stop: max scaled change per sweep (default 1e-13) */
    int polish;        /* 1 (default): active-set polishing in the context */
} lm_svm_opts;

/* Certificate, computed in the solution's context (rounded to double):
 * for the KKT conditions of the dual QP. */
typedef struct {
    double min_slack;  /* min_a (Q alpha)_a - 1   (primal feasibility: >= -tiny) */
    double min_alpha;  /* min_a alpha_a           (dual feasibility: >= 0)       */
    double max_cs;     /* max_a |alpha_a ((Q alpha)_a - 1)|  (compl. slackness)   */
    double duality;    /* | alpha^T Q alpha - 1^T alpha | = | ||W||^2 - 1^T alpha | */
    int sweeps;        /* Hildreth sweeps used */
    int polished;      /* 1 when the active-set solve in the context was accepted; 0 when
                          Q_SS was singular (e.g. d < nT: alpha not unique, W_mm still is)
                          or the active set did not settle -- the certificate is then at
                          the double (Hildreth) level even in MPFR */
    int nactive;       /* |S| */
} lm_svm_cert;

typedef struct {
    lm_svm_kind kind;
    lm_ctx ctx;
    int n, T, d, m;    /* m constraints */
    int *ci, *ct;      /* constraint a = (sequence ci[a], token ct[a]) */
    lm_mat *Q;         /* m x m dual Gram matrix (context) */
    lm_mat *alpha;     /* m x 1 dual solution (context) */
    lm_mat *M;         /* n x T token coefficients of W_mm / u_mm (context) */
    lm_num norm2;      /* ||W_mm||_F^2 (||u_mm||^2) = alpha^T Q alpha (context) */
    int have_norm;     /* norm2 initialised */
    lm_svm_cert cert;
} lm_svm_sol;

void lm_svm_opts_default(lm_svm_opts *o);

/* Solve in D->ctx.  Returns LM_SVM_OK or one of the error codes above; on
 * any nonzero return s holds no solution (but must still be cleared).
 * o may be NULL (defaults). */
int lm_svm_w(lm_svm_sol *s, const lm_attn_data *D, const lm_svm_opts *o);
/* lm_svm_w (default options) for a claim: an infeasible W-SVM or non-unique
 * optimal tokens are recorded as an unmet hypothesis (returns 1), any other
 * solver failure as an error (returns -1); 0 on success. */
struct lm_eval;
int lm_svm_w_claim(struct lm_eval *ev, lm_svm_sol *s, const lm_attn_data *D);
int lm_svm_u(lm_svm_sol *s, const lm_attn_data *D, const lm_svm_opts *o);
void lm_svm_sol_clear(lm_svm_sol *s);

/* Generic dual QP: max_{alpha>=0} 1^T alpha - alpha^T Q alpha / 2 for a
 * symmetric PSD Q (any context); alpha (m x 1, same context) receives the
 * solution, c the certificate.  Same return codes. */
int lm_svm_dual(lm_mat *alpha, lm_svm_cert *c, const lm_mat *Q, const lm_svm_opts *o);

/* Explicit solution: W (d x d) = W_mm, or u (d x 1) = u_mm, in the
 * context of W/u (D and s must share it). */
void lm_svm_w_matrix(lm_mat *W, const lm_svm_sol *s, const lm_attn_data *D);
void lm_svm_u_vector(lm_mat *u, const lm_svm_sol *s, const lm_attn_data *D);

/* Token coefficients M (n x T, context of M) of sum_a c_a A_a for any
 * constraint-space coefficients c (m x 1), e.g. c = alpha gives s->M. */
void lm_svm_coef(lm_mat *M, const lm_svm_sol *s, const lm_mat *c, const lm_attn_data *D);

/* Projected supergradient ascent (in double) on the margin of a direction,
 * min_a (Q c)_a / sqrt(c^T Q c), over constraint-space coefficients c
 * (W = sum_a c_a A_a; Q is m x m row-major).  c holds the start on entry and
 * the best iterate on exit, normalised to c^T Q c = 1; trace (optional,
 * length iters) receives the margin of each iterate.  Returns the best margin
 * (NaN if c^T Q c is not positive). */
double lm_svm_ascent(double *c, double *trace, const double *Q, int m, int iters);

/* Unnormalised margins in D->ctx:
 * r = min_{i, tau != opt_i} (x_{i,opt}-x_{i tau})^T W x_{i1}   (W: d x d);
 * r = min_i y_i u^T x_{i,opt}                                  (u: d x 1).
 * Divide by ||W||_F (||u||) for the margin of the direction. */
void lm_svm_w_margin(lm_num *r, const lm_mat *W, const lm_attn_data *D);
void lm_svm_u_margin(lm_num *r, const lm_mat *u, const lm_attn_data *D);

#endif
