/* mpdot.c -- exact MPFR dot products in mpn fixed point (mpdot.h).
 *
 * Why: the exact path of lm_mat_mul forms every a_il b_lj as an MPFR number
 * at pa + pb bits and hands the k terms to mpfr_sum.  At 256 bits that is a
 * 512-bit mpfr_mul (special cases, exponent checks, rounding logic around a
 * 4 x 4 limb product) plus mpfr_sum's own passes per term: most of an
 * MPFR training step.  Here the same exact sum is built directly from the
 * significand limbs: each product is one mpn_mul, shifted into place in a
 * fixed-point accumulator that spans exactly the bits the entry's terms
 * occupy, and the sum is rounded once by mpfr_set_z_2exp (round to nearest,
 * ties to even, like mpfr_sum).  Both round the same exact number to the
 * same precision in the same mode, so the results are identical.
 *
 * Layout of one entry: with lsb = min over nonzero terms of the weight of
 * the last limb bit of a_il b_lj, and top = max of their exponents, every
 * term is an integer multiple of 2^lsb below 2^top.  Positive and negative
 * terms go to two unsigned accumulators of L = floor((top - lsb) / B) + 2
 * limbs (B = GMP_NUMB_BITS; the extra limb absorbs the carries of up to
 * 2^B terms); their difference, with its sign, is the exact sum times
 * 2^-lsb.
 *
 * Zeros (matching mpfr_sum in RNDN): terms with a zero factor are skipped
 * but their signs counted; when every term is zero the result is -0 only if
 * every term is -0 (k = 0 gives +0); a nonzero exact sum of zero (exact
 * cancellation) is +0.
 *
 * Not handled here (lm_mpdot_entry returns 0, the caller takes the exact
 * path, so every result stays the correctly rounded exact sum): Inf/NaN
 * operand entries and exponents outside [emin/2 + 64, emax/2 - 64] (where
 * the exact path's products or sum could overflow or underflow) anywhere in
 * the entry's row / column; operand entries with more bits than their
 * matrix's precision (the exact path's products would round); terms spread
 * over more than the accumulator bound (lmax limbs). */
#include "mpdot.h"
#include "linalg_priv.h"
#include <stdlib.h>
#include <string.h>

#define LB ((mpfr_exp_t)GMP_NUMB_BITS)

static _Thread_local long tot_done, tot_fallback;

static int limbs(mpfr_prec_t p)
{
    return (int)((p + GMP_NUMB_BITS - 1) / GMP_NUMB_BITS);
}

/* read x into o; 0 when the kernel must not use it */
static int op_read(lm_mpdot_op *o, mpfr_srcptr x, mpfr_prec_t pmax, mpfr_exp_t lo, mpfr_exp_t hi)
{
    o->neg = mpfr_signbit(x) != 0;
    o->n = 0;
    o->d = NULL;
    o->e = 0;
    if (mpfr_zero_p(x)) return 1;
    if (!mpfr_regular_p(x) || mpfr_get_prec(x) > pmax) return 0;
    o->e = mpfr_get_exp(x);
    if (o->e > hi || o->e < lo) return 0;
    o->n = limbs(mpfr_get_prec(x));
    o->d = (const mp_limb_t *)mpfr_custom_get_significand(x);
    while (o->d[0] == 0) { /* low zero limbs (a double, an integer at 256 bits): not multiplied */
        o->d++;
        o->n--;
    }
    return 1;
}

/* top = max exponent, lsb = min weight of a last limb bit, over the
 * nonzero entries of a row / column (0, 0 when there are none) */
static void bounds(mpfr_exp_t *top, mpfr_exp_t *lsb, const lm_mpdot_op *o, int k)
{
    int nz = 0;
    *top = *lsb = 0;
    for (int l = 0; l < k; l++) {
        if (!o[l].n) continue;
        mpfr_exp_t s = o[l].e - LB * o[l].n;
        if (!nz++) {
            *top = o[l].e;
            *lsb = s;
        } else {
            if (o[l].e > *top) *top = o[l].e;
            if (s < *lsb) *lsb = s;
        }
    }
}

void lm_mpdot_init(lm_mpdot *w, const lm_mat *A, int ta, const lm_mat *B, int tb, int k,
                   mpfr_prec_t pc)
{
    const mpfr_exp_t hi = mpfr_get_emax() / 2 - 64, lo = mpfr_get_emin() / 2 + 64;
    w->m = ta ? A->c : A->r;
    w->n = tb ? B->r : B->c;
    w->k = k;
    w->a = lm_xcalloc((size_t)w->m * (size_t)k + 1, sizeof *w->a);
    w->b = lm_xcalloc((size_t)w->n * (size_t)k + 1, sizeof *w->b);
    w->aok = lm_xcalloc((size_t)w->m + 1, 1);
    w->bok = lm_xcalloc((size_t)w->n + 1, 1);
    w->atop = lm_xcalloc(2 * ((size_t)w->m + 1), sizeof *w->atop);
    w->alsb = w->atop + w->m + 1;
    w->btop = lm_xcalloc(2 * ((size_t)w->n + 1), sizeof *w->btop);
    w->blsb = w->btop + w->n + 1;
    for (int i = 0; i < w->m; i++) {
        int ok = 1;
        for (int l = 0; l < k; l++) {
            size_t at = ta ? (size_t)l * (size_t)A->c + (size_t)i : (size_t)i * (size_t)A->c + (size_t)l;
            ok &= op_read(w->a + (size_t)i * (size_t)k + (size_t)l, A->m[at], A->prec, lo, hi);
        }
        w->aok[i] = (unsigned char)ok;
        bounds(w->atop + i, w->alsb + i, w->a + (size_t)i * (size_t)k, k);
    }
    for (int j = 0; j < w->n; j++) {
        int ok = 1;
        for (int l = 0; l < k; l++) {
            size_t at = tb ? (size_t)j * (size_t)B->c + (size_t)l : (size_t)l * (size_t)B->c + (size_t)j;
            ok &= op_read(w->b + (size_t)j * (size_t)k + (size_t)l, B->m[at], B->prec, lo, hi);
        }
        w->bok[j] = (unsigned char)ok;
        bounds(w->btop + j, w->blsb + j, w->b + (size_t)j * (size_t)k, k);
    }
    /* spread bound: the two widest significands, four times C's precision
     * and some 2500 bits of exponent gap; wider entries are rare enough
     * for the exact path */
    const int np = limbs(A->prec) + limbs(B->prec);
    w->lmax = 2 * (mp_size_t)np + 4 * (mp_size_t)limbs(pc) + 40;
    w->np = np + 1;
    /* not cleared: each entry clears the L limbs it uses */
    w->buf = lm_xmalloc(((size_t)w->np + 2 * (size_t)w->lmax) * sizeof *w->buf);
    w->done = w->fallback = 0;
}

void lm_mpdot_clear(lm_mpdot *w)
{
    tot_done += w->done;
    tot_fallback += w->fallback;
    free(w->a);
    free(w->b);
    free(w->aok);
    free(w->bok);
    free(w->atop);
    free(w->btop);
    free(w->buf);
}

void lm_mpdot_stats(long *done, long *fallback)
{
    *done = tot_done;
    *fallback = tot_fallback;
}

/* P = significand product (a->n + b->n limbs); one-limb factors (doubles,
 * small integers, trimmed) skip mpn_mul's dispatch */
static void mul_limbs(mp_limb_t *P, const lm_mpdot_op *a, const lm_mpdot_op *b)
{
#if GMP_NUMB_BITS == 64 && defined(__SIZEOF_INT128__)
    if (a->n == 1 && b->n == 1) {
        __extension__ unsigned __int128 p = (unsigned __int128)a->d[0] * b->d[0];
        P[0] = (mp_limb_t)p;
        P[1] = (mp_limb_t)(p >> 64);
        return;
    }
#endif
    if (b->n == 1) P[a->n] = mpn_mul_1(P, a->d, a->n, b->d[0]);
    else if (a->n == 1) P[b->n] = mpn_mul_1(P, b->d, b->n, a->d[0]);
    else if (a->n >= b->n) mpn_mul(P, a->d, a->n, b->d, b->n);
    else mpn_mul(P, b->d, b->n, a->d, a->n);
}

int lm_mpdot_entry(mpfr_ptr c, lm_mpdot *w, int i, int j)
{
    if (!w->aok[i] || !w->bok[j]) {
        w->fallback++;
        return 0;
    }
    const int k = w->k;
    const lm_mpdot_op *a = w->a + (size_t)i * (size_t)k, *b = w->b + (size_t)j * (size_t)k;
    /* the accumulator's span: from the row's and column's bounds (every
     * term lies inside), else -- too wide -- from this entry's own terms */
    mpfr_exp_t top = w->atop[i] + w->btop[j], lsb = w->alsb[i] + w->blsb[j];
    if (top - lsb > LB * (mpfr_exp_t)(w->lmax - 2)) {
        int nz = 0;
        for (int l = 0; l < k; l++) {
            if (!a[l].n || !b[l].n) continue;
            mpfr_exp_t t = a[l].e + b[l].e, s = t - LB * (a[l].n + b[l].n);
            if (!nz++) {
                top = t;
                lsb = s;
            } else {
                if (t > top) top = t;
                if (s < lsb) lsb = s;
            }
        }
        if (nz && top - lsb > LB * (mpfr_exp_t)(w->lmax - 2)) {
            w->fallback++;
            return 0;
        }
        if (!nz) top = lsb = 0;
    }
    const mp_size_t L = (mp_size_t)((top - lsb) / LB) + 2;
    mp_limb_t *P = w->buf, *pos = w->buf + w->np, *neg = pos + w->lmax;
    int nz = 0, anyneg = 0;
    mpn_zero(pos, L);
    mpn_zero(neg, L);
    for (int l = 0; l < k; l++) {
        if (!a[l].n || !b[l].n) continue;
        nz++;
        anyneg |= a[l].neg ^ b[l].neg;
        mp_size_t pn = (mp_size_t)a[l].n + b[l].n;
        mul_limbs(P, a + l, b + l);
        /* weight of P's last bit over 2^lsb: >= 0, and P 2^s ends at least
         * one limb below the accumulator's top (see the header) */
        mpfr_exp_t s = a[l].e + b[l].e - LB * pn - lsb;
        mp_size_t q = (mp_size_t)(s / LB);
        unsigned r = (unsigned)(s % LB);
        mp_limb_t *acc = (a[l].neg ^ b[l].neg ? neg : pos) + q;
        /* acc += P 2^r in one pass (a multiply by 2^r shifts and adds);
         * q + pn < L, so the carry has a limb to go to and stops below L */
        mp_limb_t cy = r ? mpn_addmul_1(acc, P, pn, (mp_limb_t)1 << r) : mpn_add_n(acc, acc, P, pn);
        if (cy) mpn_add_1(acc + pn, acc + pn, L - q - pn, cy);
    }
    if (!nz) { /* every term is a signed zero */
        int negz = 0;
        for (int l = 0; l < k; l++) negz += a[l].neg ^ b[l].neg;
        mpfr_set_zero(c, k > 0 && negz == k ? -1 : 1);
        w->done++;
        return 1;
    }
    mp_size_t sz = L;
    int sign = 1;
    mp_limb_t *res = pos;
    if (anyneg) {
        int cmp = mpn_cmp(pos, neg, L);
        if (cmp < 0) {
            mpn_sub_n(neg, neg, pos, L);
            res = neg;
            sign = -1;
        } else {
            mpn_sub_n(pos, pos, neg, L);
        }
    }
    while (sz > 0 && res[sz - 1] == 0) sz--;
    if (sz == 0) {
        mpfr_set_zero(c, 1); /* exact cancellation: +0, as mpfr_sum in RNDN */
    } else {
        mpz_t z;
        mpfr_set_z_2exp(c, mpz_roinit_n(z, res, sign * sz), lsb, MPFR_RNDN);
    }
    w->done++;
    return 1;
}
