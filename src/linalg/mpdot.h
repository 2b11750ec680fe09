/* mpdot.h -- exact MPFR dot products in mpn fixed point (internal to linalg).
 *
 * lm_mpdot_entry(c, w, i, j) sets c to the correctly rounded (RNDN, at c's
 * precision) value of sum_l op(A)_il op(B)_lj -- the value the exact path of
 * lm_mat_mul (k exact products, one mpfr_sum) returns, bit for bit,
 * including the sign of a zero -- or returns 0 without touching c when the
 * entry is outside what the kernel handles (a non-finite or extreme operand
 * entry in row i / column j, an operand entry above its matrix's precision,
 * or terms spread over too many bits); the caller then takes the exact
 * path.  The operands must stay unchanged between init and clear. */
#ifndef LM_MPDOT_H
#define LM_MPDOT_H

#include "lm_mat.h"
#include <gmp.h>

typedef struct {
    const mp_limb_t *d; /* significand limbs (MPFR's), most significant bit set */
    mpfr_exp_t e;       /* value = d / 2^(GMP_NUMB_BITS n) * 2^e */
    int n;              /* limbs; 0 for a zero */
    int neg;            /* sign bit (also of a zero) */
} lm_mpdot_op;

typedef struct {
    int m, n, k;
    lm_mpdot_op *a, *b;   /* row i of op(A) at a + i k, column j of op(B) at b + j k */
    unsigned char *aok, *bok; /* row / column usable by the kernel */
    mpfr_exp_t *atop, *alsb, *btop, *blsb; /* their exponent / last-bit bounds */
    mp_limb_t *buf;       /* product scratch, then the two accumulators */
    mp_size_t np;         /* product scratch limbs (both significands + 1) */
    mp_size_t lmax;       /* accumulator limbs allowed before falling back */
    long done, fallback;  /* entries settled here / sent back to the caller */
} lm_mpdot;

void lm_mpdot_init(lm_mpdot *w, const lm_mat *A, int ta, const lm_mat *B, int tb, int k,
                   mpfr_prec_t pc);
int lm_mpdot_entry(mpfr_ptr c, lm_mpdot *w, int i, int j);
void lm_mpdot_clear(lm_mpdot *w);
/* entries settled by the kernel and sent to the exact path, over the life of
 * this thread (for the bench and tests) */
void lm_mpdot_stats(long *done, long *fallback);

#endif
