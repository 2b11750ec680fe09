/* lm_mat.h -- dense matrices over a precision context.
 *
 * Storage is row-major: element (i,j) of an r x c matrix is entry i*c+j.
 * The double backend calls CBLAS (OpenBLAS) and GSL; the MPFR backend runs
 * its own loops with correctly rounded fused operations; the Arb backend
 * uses ball operations (rigorous enclosures) throughout: singular values
 * (svals/svd/smax/smin) and symmetric eigenvalues (symeig) are balls that
 * provably contain the exact values (a midpoint decomposition bounded by
 * Weyl/Ostrowski in ball arithmetic); only the singular/eigen VECTORS are
 * midpoint results, and requesting them (U, V or the eigenvector matrix
 * non-NULL) taints the evaluation (lm_arb_taint).  All routines take
 * outputs first, inputs next and the context last; outputs must already
 * have the right shape (lm_mat_resize adjusts) and may not alias inputs
 * unless a routine says so.
 */
#ifndef LM_MAT_H
#define LM_MAT_H

#include "lm_num.h"
#include "lm_rng.h"

typedef struct {
    int r, c;
    double *d;   /* LM_DOUBLE */
    mpfr_t *m;   /* LM_MPFR   */
    arb_ptr b;   /* LM_ARB    */
    int mp;
    int ab;
    mpfr_prec_t prec;
} lm_mat;

lm_mat *lm_mat_new(int r, int c, const lm_ctx *ctx); /* zero-filled */
void lm_mat_free(lm_mat *A);
void lm_mat_resize(lm_mat *A, int r, int c); /* contents become zero */
lm_mat *lm_mat_dup(const lm_mat *A);
/* copy A into B, converting precision if needed (shapes must agree) */
void lm_mat_copy(lm_mat *B, const lm_mat *A);

double lm_mat_get_d(const lm_mat *A, int i, int j);
void lm_mat_set_d(lm_mat *A, int i, int j, double v);
void lm_mat_get(lm_num *x, const lm_mat *A, int i, int j);
void lm_mat_set(lm_mat *A, int i, int j, const lm_num *x);
void lm_mat_zero(lm_mat *A);
void lm_mat_set_identity(lm_mat *A);
void lm_mat_set_array(lm_mat *A, const double *a); /* row-major doubles */
void lm_mat_get_array(double *a, const lm_mat *A); /* rounded to double */

/* C = op(A) op(B), op = transpose when ta/tb != 0 */
void lm_mat_mul(lm_mat *C, const lm_mat *A, int ta, const lm_mat *B, int tb);
/* Threads OpenBLAS may use for the double products of this process (a worker
 * process of a parallel run sets 1: the workers already fill the cores, and
 * gemm splits rows and columns, not sums, so results do not change). */
void lm_mat_blas_threads(int n);
void lm_mat_transpose(lm_mat *B, const lm_mat *A);
void lm_mat_add(lm_mat *C, const lm_mat *A, const lm_mat *B);   /* may alias */
void lm_mat_sub(lm_mat *C, const lm_mat *A, const lm_mat *B);   /* may alias */
void lm_mat_scale(lm_mat *B, const lm_mat *A, const lm_num *s); /* may alias */
void lm_mat_scale_d(lm_mat *B, const lm_mat *A, double s);      /* may alias */
void lm_mat_axpy(lm_mat *Y, const lm_num *a, const lm_mat *X); /* Y += aX */
void lm_mat_axpy_d(lm_mat *Y, double a, const lm_mat *X);
void lm_mat_hadamard(lm_mat *C, const lm_mat *A, const lm_mat *B); /* may alias */
void lm_mat_exp(lm_mat *B, const lm_mat *A); /* elementwise, may alias */
/* copy block: B[bi.., bj..] = A (whole A) */
void lm_mat_set_block(lm_mat *B, int bi, int bj, const lm_mat *A);
/* A = B[bi..bi+A->r, bj..bj+A->c] */
void lm_mat_get_block(lm_mat *A, const lm_mat *B, int bi, int bj);

/* Row softmax by log-sum-exp: finite for any finite logits. */
void lm_mat_softmax_rows(lm_mat *S, const lm_mat *C);
/* Gaussian-kernel logits: C_kj = -||Q_k - K_j||^2 / scale (difference first) */
void lm_mat_gauss_logits(lm_mat *C, const lm_mat *Q, const lm_mat *K, const lm_num *scale);

/* Reductions */
void lm_mat_frob(lm_num *r, const lm_mat *A);  /* scaled: no spurious underflow */
void lm_mat_dot(lm_num *r, const lm_mat *A, const lm_mat *B); /* sum A.*B */
void lm_mat_sum(lm_num *r, const lm_mat *A);
void lm_mat_min(lm_num *r, const lm_mat *A);
void lm_mat_max(lm_num *r, const lm_mat *A);
void lm_mat_min_abs(lm_num *r, const lm_mat *A);
void lm_mat_max_abs(lm_num *r, const lm_mat *A);
/* 1 when every entry is finite */
int lm_mat_isfinite(const lm_mat *A);

/* Linear algebra.  Return 0 on success, nonzero when an inner iteration
 * failed to converge (callers must turn that into an `error` verdict). */
/* singular values of any r x c matrix, descending, min(r,c) of them */
int lm_mat_svals(lm_num *s, const lm_mat *A);
int lm_mat_smax(lm_num *r, const lm_mat *A); /* spectral norm */
int lm_mat_smin(lm_num *r, const lm_mat *A); /* min(r,c)-th singular value */
/* eigenvalues of a symmetric matrix, ascending; V (optional) columns = vectors */
int lm_mat_symeig(lm_num *w, lm_mat *V, const lm_mat *A);
/* SVD A = U diag(s) V^T (thin); U: r x k, V: c x k, k = min(r,c); s descending.
 * U or V may be NULL. */
int lm_mat_svd(lm_num *s, lm_mat *U, lm_mat *V, const lm_mat *A);
/* The same, for callers that use the VECTORS only as a hint to choose an
 * instance (a start direction, a residual, a perturbation), never in an
 * observation: any vectors would do, so in Arb the midpoint vectors do not
 * taint (the values are the same rigorous balls).  Audit each use. */
int lm_mat_symeig_hint(lm_num *w, lm_mat *V, const lm_mat *A);
int lm_mat_svd_hint(lm_num *s, lm_mat *U, lm_mat *V, const lm_mat *A);
/* solve A X = B for square A (partial pivoting); returns nonzero if singular */
int lm_mat_solve(lm_mat *X, const lm_mat *A, const lm_mat *B);

/* allocate/free an array of k scalars */
lm_num *lm_nums_new(int k, const lm_ctx *ctx);
void lm_nums_free(lm_num *v, int k);

lm_ctx lm_mat_ctx(const lm_mat *A);

/* fill A with N(0, s^2) entries drawn as doubles (the same draws in every
 * context, so an instance can be rebuilt exactly in MPFR) */
void lm_mat_randn(lm_mat *A, lm_rng *g, double s);

#endif
