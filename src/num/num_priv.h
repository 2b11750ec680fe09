/* num_priv.h -- Arb conversion helpers shared by num.c and linalg (not a
 * public API). */
#ifndef LM_NUM_PRIV_H
#define LM_NUM_PRIV_H

#include <arb.h>
#include <mpfr.h>

#include "lm_num.h"

/* y = x exactly, y initialised here with enough bits (exponents beyond
 * MPFR's range become +-inf or +-0) */
void lm_arf_init_mpfr(mpfr_ptr y, const arf_t x);
/* y = x rounded to nearest at y's precision, exponent-range safe */
void lm_arf_get_mpfr(mpfr_ptr y, const arf_t x);
/* exact ball (zero radius) of an MPFR number */
void lm_arb_set_mpfr(arb_t y, mpfr_srcptr x);
/* y = a: exact ball of a double/MPFR scalar, a copy of an Arb one */
void lm_arb_set_num(arb_t y, const lm_num *a);
/* r = x: exact into an Arb scalar, the midpoint rounded into double/MPFR */
void lm_num_set_arb(lm_num *r, const arb_t x);

#endif
