/* acc.c -- exact-term accumulators for the MPFR kernels (linalg_priv.h). */
#include "linalg_priv.h"
#include <stdio.h>
#include <stdlib.h>

#define RND MPFR_RNDN

void lm_acc_init(lm_acc *a, size_t cap, mpfr_prec_t prec)
{
    a->n = 0;
    a->cap = cap;
    a->t = lm_xcalloc(cap, sizeof *a->t);
    a->p = lm_xcalloc(cap, sizeof *a->p);
    for (size_t i = 0; i < cap; i++) {
        mpfr_init2(a->t[i], prec);
        a->p[i] = a->t[i];
    }
}

void lm_acc_clear(lm_acc *a)
{
    for (size_t i = 0; i < a->cap; i++) mpfr_clear(a->t[i]);
    free(a->t);
    free(a->p);
}

void lm_acc_prod(lm_acc *a, mpfr_srcptr x, mpfr_srcptr y, int neg)
{
    mpfr_ptr t = a->t[a->n++];
    mpfr_mul(t, x, y, RND);
    if (neg) mpfr_neg(t, t, RND);
}

void lm_acc_add(lm_acc *a, mpfr_srcptr x) { mpfr_set(a->t[a->n++], x, RND); }

void lm_acc_sum(mpfr_ptr r, lm_acc *a)
{
    mpfr_sum(r, a->p, a->n, RND);
    a->n = 0;
}
