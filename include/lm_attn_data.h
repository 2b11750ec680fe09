/* lm_attn_data.h -- data sets of the softmax-attention classifier (lm_attn.h): n labelled sequences of T tokens
 * in R^d, a fixed or trained decoder u, and each sequence's optimal token.
 *
 * Tokens are drawn as doubles from a counter-based stream and stored in the
 * data set's context, so the same data set can be rebuilt exactly in MPFR.
 * Token t of sequence i is row t of X[i] (0-based: the query token x_{i1}
 * is row 0). */
#ifndef LM_ATTN_DATA_H
#define LM_ATTN_DATA_H

#include "lm_mat.h"

typedef struct {
    int n, T, d;
    lm_ctx ctx;
    lm_mat **X;   /* n matrices T x d */
    int *y;       /* labels +-1 */
    int *opt;     /* optimal token index of each sequence (0-based), -1 if not unique */
    lm_mat *u;    /* decoder d x 1 (EX1: beta e_1; DM: the generating u_star is kept in ustar) */
    lm_mat *ustar;/* DM only: the label-generating direction (NULL otherwise) */
} lm_attn_data;

/* allocate an empty data set (all zero, y = +1, opt = -1) */
lm_attn_data *lm_attn_data_new(int n, int T, int d, const lm_ctx *ctx);
void lm_attn_data_free(lm_attn_data *D);
/* exact copy into another context */
lm_attn_data *lm_attn_data_convert(const lm_attn_data *D, const lm_ctx *ctx);

#endif
