/* bm_mpdot.c -- a prototype for a faster MPFR matrix product with the SAME
 * results as lemmata's (bench only; the library does not call it).
 *
 * lemmata's MPFR product (mul_mp in src/linalg/mat.c) forms every product
 * a_il b_lj exactly and rounds the sum once (mpfr_sum): each entry is the
 * correctly rounded value of the exact dot product.  That costs about as
 * much as a plain mpfr_fma loop.  Here each entry is first enclosed by
 * Arb's arb_dot at a few guard bits (a ball [lo, hi] that contains the exact
 * sum); when lo and hi round to the same number at the target precision,
 * that number IS the correctly rounded exact sum (rounding is monotone), so
 * it is returned.  Otherwise (a rounding boundary inside the ball, an exact
 * zero, a value outside MPFR's exponent range, a non-finite entry) the entry
 * falls back to the exact products and mpfr_sum of mul_mp.  The result is
 * bit-identical to mul_mp by construction; the bench checks it entry by
 * entry and reports how often the fallback ran. */
#include "bm.h"
#include <arb.h>
#include <stdlib.h>

long bm_mpdot_fallbacks;

void bm_mul_mp_arbdot(lm_mat *C, const lm_mat *A, const lm_mat *B)
{
    const int m = A->r, k = A->c, n = B->c;
    const slong wp = C->prec + 32;
    arb_ptr a = _arb_vec_init((slong)m * k), bt = _arb_vec_init((slong)n * k);
    for (int i = 0; i < m; i++)
        for (int l = 0; l < k; l++) arf_set_mpfr(arb_midref(a + (size_t)i * k + l), A->m[(size_t)i * k + l]);
    for (int l = 0; l < k; l++)
        for (int j = 0; j < n; j++) arf_set_mpfr(arb_midref(bt + (size_t)j * k + l), B->m[(size_t)l * n + j]);
    arb_t s;
    arf_t lo, hi;
    mpfr_t rlo, rhi;
    arb_init(s);
    arf_init(lo);
    arf_init(hi);
    mpfr_inits2(C->prec, rlo, rhi, (mpfr_ptr)0);
    mpfr_t *t = NULL;
    mpfr_ptr *tp = NULL;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            mpfr_ptr c = C->m[(size_t)i * n + j];
            arb_dot(s, NULL, 0, a + (size_t)i * k, 1, bt + (size_t)j * k, 1, k, wp);
            if (arb_is_finite(s) && !arb_contains_zero(s)) {
                arb_get_lbound_arf(lo, s, wp + 16);
                arb_get_ubound_arf(hi, s, wp + 16);
                arf_get_mpfr(rlo, lo, MPFR_RNDN);
                arf_get_mpfr(rhi, hi, MPFR_RNDN);
                if (mpfr_regular_p(rlo) && mpfr_equal_p(rlo, rhi)) {
                    mpfr_set(c, rlo, MPFR_RNDN);
                    continue;
                }
            }
            /* the exact path of mul_mp */
            bm_mpdot_fallbacks++;
            if (!t) {
                t = malloc(sizeof(mpfr_t) * (size_t)(k + 1));
                tp = malloc(sizeof(mpfr_ptr) * (size_t)(k + 1));
                for (int l = 0; l < k; l++) {
                    mpfr_init2(t[l], A->prec + B->prec);
                    tp[l] = t[l];
                }
            }
            for (int l = 0; l < k; l++)
                mpfr_mul(t[l], A->m[(size_t)i * k + l], B->m[(size_t)l * n + j], MPFR_RNDN);
            mpfr_sum(c, tp, (unsigned long)k, MPFR_RNDN);
        }
    if (t) {
        for (int l = 0; l < k; l++) mpfr_clear(t[l]);
        free(t);
        free(tp);
    }
    mpfr_clears(rlo, rhi, (mpfr_ptr)0);
    arf_clear(lo);
    arf_clear(hi);
    arb_clear(s);
    _arb_vec_clear(a, (slong)m * k);
    _arb_vec_clear(bt, (slong)n * k);
}
