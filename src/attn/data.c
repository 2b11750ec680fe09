/* data.c -- allocation and exact conversion of the attention classifier's data sets (lm_attn_data.h). */
#include "lm_attn_data.h"
#include <stdlib.h>

lm_attn_data *lm_attn_data_new(int n, int T, int d, const lm_ctx *ctx)
{
    lm_attn_data *D = lm_xcalloc(1, sizeof *D);
    D->n = n;
    D->T = T;
    D->d = d;
    D->ctx = *ctx;
    D->X = lm_xcalloc((size_t)n, sizeof *D->X);
    D->y = lm_xcalloc((size_t)n, sizeof *D->y);
    D->opt = lm_xcalloc((size_t)n, sizeof *D->opt);
    for (int i = 0; i < n; i++) {
        D->X[i] = lm_mat_new(T, d, ctx);
        D->y[i] = 1;
        D->opt[i] = -1;
    }
    D->u = lm_mat_new(d, 1, ctx);
    D->ustar = NULL;
    return D;
}

void lm_attn_data_free(lm_attn_data *D)
{
    if (!D) return;
    for (int i = 0; i < D->n; i++) lm_mat_free(D->X[i]);
    free(D->X);
    free(D->y);
    free(D->opt);
    lm_mat_free(D->u);
    lm_mat_free(D->ustar);
    free(D);
}

lm_attn_data *lm_attn_data_convert(const lm_attn_data *S, const lm_ctx *ctx)
{
    lm_attn_data *D = lm_attn_data_new(S->n, S->T, S->d, ctx);
    for (int i = 0; i < S->n; i++) {
        lm_mat_copy(D->X[i], S->X[i]);
        D->y[i] = S->y[i];
        D->opt[i] = S->opt[i];
    }
    lm_mat_copy(D->u, S->u);
    if (S->ustar) {
        D->ustar = lm_mat_new(S->d, 1, ctx);
        lm_mat_copy(D->ustar, S->ustar);
    }
    return D;
}
