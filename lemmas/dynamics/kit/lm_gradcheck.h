/* lm_gradcheck.h -- the machinery of the closed-form gradient identities,
 * shared by dynamics/lemma1 (Softmax), dynamics/lemma6 (Gaussian kernel) and,
 * for vec and Kronecker products, dynamics/lemma5.
 *
 * A gradient check compares a formula F, implemented literally in the claim
 * file, with a reference F_ref (the S3 formulas of the model code, or central
 * differences of the loss in MPFR) by one observation
 *     ||F - F_ref||_F <= tau (||F_ref||_F + ||F_nat||_F),  tau = 2^(-p/3) tol_scale,
 * F_nat the natural scale: the formula evaluated on absolute values.  Here are
 * the pieces both kernels share: the working model (promoted to MPFR when the
 * double pass cannot represent the instance), the common parts of the literal
 * formulas (R_i, the W^V gradient (1) and its Kronecker forms (2)), the S3
 * references, the natural scales, the central differences and the
 * observation itself.  The formulas that differ between the kernels ((3),
 * (4), the Jacobian rows) stay in the claim files.
 */
#ifndef LM_GRADCHECK_H
#define LM_GRADCHECK_H

#include "lm_claim.h"
#include "lm_mha.h"

/* ------------------------------------------------------ matrix helpers */

/* B = |A| entrywise (B may be A) */
void lm_gc_absm(lm_mat *B, const lm_mat *A);
/* R = P (x) Q: entry (i1 Q.r + i2, j1 Q.c + j2) is P[i1,j1] Q[i2,j2];
 * R must be (P.r Q.r) x (P.c Q.c) */
void lm_gc_kron(lm_mat *R, const lm_mat *P, const lm_mat *Q);
/* v = vec(A) into an (r c) x 1 matrix: column-major, vec(A)_{a+rb} = A_ab
 * (row == 0, the paper's convention), or row-major (row == 1) */
void lm_gc_vec(lm_mat *v, const lm_mat *A, int row);
/* log2 ||A||_F (-inf for A = 0) */
double lm_gc_log2_frob(const lm_mat *A);

/* ------------------------------------------------------ the check */

enum { LM_GC_MAXRES = 16 };

typedef struct {
    lm_eval *ev;
    lm_mha *m;       /* the instance in the working context (owned) */
    lm_ctx w;        /* working context: ev->ctx, or MPFR at 256 bits when promoted */
    double tau;      /* tolerance tol_scale * 2^(-p/3), p = w.prec */
    const char *why; /* shown with the observations of a promoted double pass */
    int k;           /* residuals recorded so far */
    double rel[LM_GC_MAXRES]; /* their relative residuals ||F - F_ref|| / (||F_ref|| + ||F_nat||) */
} lm_gc_check;

/* Start a check on the instance m0 (built in double; freed here): convert it
 * to ev->ctx, or to MPFR at 256 bits when promote (a double pass on an
 * instance double cannot represent; why says what goes wrong in double), and
 * run forward.  Returns 0, or -1 when the loss is not finite (nothing is left
 * to free; the caller records the error). */
int lm_gc_begin(lm_gc_check *c, lm_eval *ev, lm_mha *m0, int promote, double tol_scale,
                const char *why);
/* free the working model */
void lm_gc_end(lm_gc_check *c);

/* One observation ||F - R|| <= tau (||R|| + ||nat||), all three in the working
 * context; when that is not ev's context (a promoted double pass) the ratio is
 * compared with 1 and the label gets "[mpfrP: why]".  Returns the relative
 * residual and appends it to c->rel. */
double lm_gc_resid(lm_gc_check *c, const lm_mat *F, const lm_mat *R, const lm_mat *nat,
                   const char *label);

/* Measures of a check with central differences: "names[q]" = c->rel[q] for
 * the recorded residuals (names NULL-terminated), the tolerance, the
 * precision pfd of the differences and the sizes N, n, D, d, H. */
void lm_gc_measures(lm_gc_check *c, const char *const *names, int pfd);

/* ------------------------------------------------------ literal pieces */

/* R_i = r_i (W^O)^T (V'_i)^T (n x Hn), V'_i = blockdiag_h(X_i W^V_h), W^V_h the
 * h-th diagonal block of W^V, r the residual of the last forward */
void lm_gc_Ri(lm_mat *R, const lm_mha *m, int i);
/* A = [M_{i,1} ... M_{i,H}] (n x Hn): the heads of sample i side by side,
 * M_{i,h} = Ms[i H + h] (Ms = m->C or m->S) */
void lm_gc_heads(lm_mat *A, lm_mat *const *Ms, int H, int i);
/* Lemma 1(1) and (2), the same for both kernels: gV = B^T r (W^O)^T (HD x Hd),
 * v2a = (I_Hd (x) B^T)(W^O (x) I_Nn) r and v2b = (W^O (x) B^T) r (HdHD x 1) */
void lm_gc_wv_literal(lm_mat *gV, lm_mat *v2a, lm_mat *v2b, const lm_mha *m);

/* ------------------------------------------------------ references */

/* S3: dF/dC stacked, G (Nn x Hn) with block (i, h) = Gamma_ih */
void lm_gc_dfdC_s3(lm_mat *G, lm_mha *m);
/* S3: dF/dW^Q_h, dF/dW^K_h with the heads stacked (HD x d); gK may be NULL */
void lm_gc_grad_s3(lm_mat *gQ, lm_mat *gK, lm_mha *m);

/* Precision of the central differences: at least max(256, 2p), more,
 * p/2 + 64 + 1.5 log2(|f| / min ||nat||), when the natural scales nats
 * (NULL-terminated) are far below the loss (cancellation in f(x+h) - f(x-h)).
 * Returns 0 while searching (no differences) and, with the instance
 * assumption-failed, when more than LM_PREC_MAX bits would be needed. */
int lm_gc_fd_prec(lm_gc_check *c, const lm_mat *const *nats);

/* Central differences of the loss at pfd bits (step 2^(-pfd/3) max(1,|x|)) on
 * an MPFR copy of m, rounded into m's context: gQ, gK (HD x d, heads stacked)
 * and gV (HD x Hd) over every weight entry, gG (Nn x Hn, block (i,h)) over
 * every logit C_ih, and J (H Nn^2 x Dd, head blocks stacked by rows, as
 * lm_mha_jacQ) the differences of the logits over W^Q_h -- Gaussian kernel
 * only.  Any output may be NULL. */
void lm_gc_fd_refs(lm_mat *gQ, lm_mat *gK, lm_mat *gV, lm_mat *gG, lm_mat *J, const lm_mha *m,
                   int pfd);

/* ------------------------------------------------------ natural scales */

/* The formulas on absolute values: natV = |B|^T r_abs |W^O|^T (HD x Hd) with
 * r_abs = |y| + sum_h S_ih |X_i||u_h|, and natG (Nn x Hn) the natural scale of
 * dF/dC_ih: S .* (G + rowsum(G .* S)) for Softmax, G .* S for the Gaussian
 * kernel, G = r_abs,i v^T, v = |X_i||u_h| of sample i. */
void lm_gc_natural_scales(lm_mat *natG, lm_mat *natV, const lm_mha *m);

#endif
