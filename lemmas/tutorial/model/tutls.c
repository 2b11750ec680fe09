/* tutls.c -- least squares for the tutorial paper (lm_tutls.h). */
#include "lm_tutls.h"

int lm_tutls_init(lm_tutls *P, int m, int d, lm_rng *g, const lm_ctx *ctx)
{
    P->m = m;
    P->d = d;
    P->A = lm_mat_new(m, d, ctx);
    P->r = lm_mat_new(m, 1, ctx);
    if (!P->A || !P->r) {
        lm_tutls_free(P);
        return -1;
    }
    lm_mat_randn(P->A, g, 1.0);
    return 0;
}

void lm_tutls_free(lm_tutls *P)
{
    lm_mat_free(P->A);
    lm_mat_free(P->r);
    P->A = P->r = NULL;
}

void lm_tutls_loss(lm_num *f, lm_tutls *P, const lm_mat *x)
{
    lm_mat_mul(P->r, P->A, 0, x, 0);
    lm_mat_dot(f, P->r, P->r);
    lm_num_div_d(f, f, 2.0 * P->m);
}

void lm_tutls_grad(lm_mat *gr, lm_tutls *P, const lm_mat *x)
{
    lm_mat_mul(P->r, P->A, 0, x, 0);
    lm_mat_mul(gr, P->A, 1, P->r, 0);
    lm_num inv; /* 1/m in the context: 1.0/m in double would change the function in MPFR */
    lm_ctx c = lm_mat_ctx(gr);
    lm_num_init(&inv, &c);
    lm_num_set_si(&inv, 1);
    lm_num_div_d(&inv, &inv, P->m);
    lm_mat_scale(gr, gr, &inv);
    lm_num_clear(&inv);
}

int lm_tutls_smooth(lm_num *L, const lm_tutls *P)
{
    int rc = lm_mat_smax(L, P->A);
    lm_num_sqr(L, L);
    lm_num_div_d(L, L, P->m);
    return rc;
}
