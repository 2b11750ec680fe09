/* linalg_priv.h -- internals shared by mat.c and dense.c (not a public API). */
#ifndef LM_LINALG_PRIV_H
#define LM_LINALG_PRIV_H

#include "lm_alloc.h"
#include <mpfr.h>
#include <stddef.h>


/* A list of exactly formed terms, summed with a single rounding (mpfr_sum):
 * a product x*y is exact when the term precision is >= prec(x) + prec(y). */
typedef struct {
    size_t n, cap;
    mpfr_t *t;
    mpfr_ptr *p;
} lm_acc;

void lm_acc_init(lm_acc *a, size_t cap, mpfr_prec_t prec);
void lm_acc_clear(lm_acc *a);
void lm_acc_prod(lm_acc *a, mpfr_srcptr x, mpfr_srcptr y, int neg); /* += (neg ? -1 : 1) x y */
void lm_acc_add(lm_acc *a, mpfr_srcptr x);                          /* += x */
void lm_acc_sum(mpfr_ptr r, lm_acc *a);                             /* r = round(sum); empties a */

#endif
