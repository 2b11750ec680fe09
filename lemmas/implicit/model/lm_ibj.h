/* lm_ibj.h -- training runs of the implicit-bias classifier in the exact
 * low-dimensional representation (catalogue implicit-bias-self-attention,
 * section 2.3):
 *
 *   W_t = W_0 + sum_{i,t} C_it x_it x_i1^T,     u_t = u_fixed  or  sum_{i,t} U_it x_it.
 *
 * Every gradient lies in these spans, so GD, NGD, Polyak and the joint update
 * (13) never leave them.  With N = nT, the logits are a = P + G vec(C) and the
 * trained scores gamma_it = y_i (K vec(U))_it, where K is the N x N token Gram
 * matrix and G_(it),(js) = K_(it),(js) K_(i1),(j1) the Gram matrix of the
 * basis x_it x_i1^T.  A step costs O(N^2) whatever d is, so long runs are
 * cheap in MPFR (the point: every long run is repeated wholly in MPFR).
 *
 * Everything runs in the data set's context; the forward pass and the
 * gradient coefficients are those of lm_ib.h (log-domain, cancellation-free).
 * Norms, inner products and alignments are quadratic forms in G (W) and K (u)
 * of coefficient differences formed first, so 1 - cos is never 1 - <.,.>. */
#ifndef LM_IBJ_H
#define LM_IBJ_H

#include "lm_attn.h"

typedef struct {
    const lm_attn_data *D;
    lm_ctx ctx;
    int n, T, N;
    int train_u;      /* 1: u = sum U x from u_0 = 0 and joint optimizers train it */
    lm_attn_lowdim *R;  /* K (N x N), P (n x T), ||W_0||^2 */
    lm_mat *G;        /* N x N Gram of the basis x_it x_i1^T */
    lm_mat *gam0;     /* n x T fixed signed scores (train_u = 0) */
    lm_mat *C, *U;    /* n x T coefficients of the state */
    lm_mat *vC;       /* momentum buffer (n x T) */
    lm_attn_fwd *F;     /* forward pass at the state (kept current by every step) */
    lm_attn_loss loss;
    int t;            /* iterations done */
    double last_step; /* last step length (eta_t, or eta) */
    lm_mat *A, *Gs;   /* work: logits, scores (n x T) */
} lm_ibj;

/* W_0 = NULL means W_0 = 0.  train_u = 0: u = D->u fixed; 1: u_0 = 0 and
 * trained.  Computes the forward pass at the start; NULL when it is not
 * finite (the caller reports an error). */
lm_ibj *lm_ibj_new(const lm_attn_data *D, const lm_mat *W0, int train_u, lm_attn_loss loss);
void lm_ibj_free(lm_ibj *J);

/* Forward pass of (C, U) (U ignored unless train_u) into F (lm_attn_fwd_new(J->D)).
 * Returns 0, nonzero when a value is not finite. */
int lm_ibj_forward_at(lm_attn_fwd *F, const lm_ibj *J, const lm_mat *C, const lm_mat *U);
/* recompute J->F at the state */
int lm_ibj_refresh(lm_ibj *J);

/* Gradients at the forward pass F as coefficients with a common log-scale:
 * grad_W = e^ls sum gC_it x_it x_i1^T,  grad_u = e^ls sum gU_it x_it
 * (gU = 0 unless train_u); max |entry| = 1, ls = -inf when both vanish. */
void lm_ibj_grads(lm_mat *gC, lm_mat *gU, lm_num *ls, const lm_ibj *J, const lm_attn_fwd *F);

/* Quadratic forms.  W-side: <w W_0 + sum A, v W_0 + sum B> (w, v weights of
 * W_0 in the context; NULL means 0, e.g. for pure coefficient matrices such
 * as W_mm); u-side: <sum A x, sum B x>. */
void lm_ibj_inner_W(lm_num *r, const lm_ibj *J, const lm_num *w, const lm_mat *A, const lm_num *v,
                    const lm_mat *B);
void lm_ibj_inner_u(lm_num *r, const lm_ibj *J, const lm_mat *A, const lm_mat *B);
/* ||W_t||, ||u_t|| of the state (u: trained or fixed) */
void lm_ibj_norm_W(lm_num *r, const lm_ibj *J);
void lm_ibj_norm_u(lm_num *r, const lm_ibj *J);
/* e = 1 - cos(W_t, sum M x x^T) = ||W_t/||W_t|| - Wm/||Wm|| ||^2 / 2 with the
 * difference of coefficients formed first; M n x T (e.g. the W-SVM's M).
 * Returns 0, nonzero when ||W_t|| = 0. */
int lm_ibj_align_W(lm_num *e, const lm_ibj *J, const lm_mat *M);
/* the same for u_t (train_u) against sum M x */
int lm_ibj_align_u(lm_num *e, const lm_ibj *J, const lm_mat *M);

/* The explicit d x d matrix W_t and the d x 1 vector u_t (for validation). */
void lm_ibj_W(lm_mat *W, const lm_ibj *J, const lm_mat *W0);
void lm_ibj_u(lm_mat *u, const lm_ibj *J);

/* One step of the optimizer `name` (the names of lm_attn_opt_find, same
 * semantics as src/train/ib_opt.c: "gd", "ngd", "ngd-mom", "polyak",
 * "polyak-cap", "ngd-joint", "joint13"), then the forward pass at the new
 * state.  Returns 0; 1 on a non-finite value; 2 for an unknown or
 * inapplicable optimizer (joint ones need train_u). */
int lm_ibj_step(lm_ibj *J, const char *name, const lm_attn_opt_par *p);

#endif
