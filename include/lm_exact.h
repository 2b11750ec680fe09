/* lm_exact.h -- exact decisions on matrices of doubles (issue 16, item 3).
 *
 * Every double is a dyadic rational m 2^e, so a matrix of doubles is, exactly, an
 * integer matrix times a power of two.  Rank and the sign of a determinant are then
 * decided exactly (FLINT's fmpz_mat), so a structural zero -- a rank-deficient
 * instance, a tie, an exact cancellation -- is a zero, never a tiny number that a
 * tolerance may or may not catch.  Use it to decide a hypothesis ("B_0 has full
 * rank", "the Gram matrix is singular") on the instance as drawn. */
#ifndef LM_EXACT_H
#define LM_EXACT_H

#include "lm_mat.h"

/* rank of the rows x cols row-major matrix a (row i at a + i*ld); -1 when an entry is
 * NaN or infinite */
int lm_exact_rank(const double *a, int rows, int cols, int ld);
/* sign of the determinant of the n x n row-major matrix a: -1, 0 or 1; -2 when an entry
 * is not finite */
int lm_exact_det_sign(const double *a, int n, int ld);
/* the same for an lm_mat, its entries read as doubles (lm_mat_get_d: a ball's or an
 * MPFR number's double value, so decide on the instance as drawn in double) */
int lm_mat_rank_exact(const lm_mat *A);
int lm_mat_det_sign_exact(const lm_mat *A);

#endif
