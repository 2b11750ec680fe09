/* test_mpdot.c -- the fixed-point kernel of the MPFR product (src/linalg/mpdot.c)
 * against an independent reference, bit for bit.
 *
 * lm_mat_mul on MPFR matrices must return, for every entry, the correctly
 * rounded (nearest-even, at C's precision) exact dot product -- the value
 * of k exact products summed by one mpfr_sum, written out below -- with
 * the same sign of zero and the same NaN/Inf.  The operands are built to
 * hit what a fixed-point accumulator can get wrong: midpoints between two
 * p-bit numbers (ties to even) with and without a far tie breaker,
 * cancellations to an exact zero and to a tiny remainder 2^-300 below the
 * terms, exponent spreads from 2^-1328 to 2^1328 (some wider than the
 * kernel's accumulator, which must then decline), exponents at the edge of
 * the range the kernel accepts, signed zeros, Inf and NaN; at 53 ... 1024
 * bits, A, B and C of different precisions, inner dimensions 0 ... 200,
 * and all four transpose combinations.  The kernel's counters must show it
 * settled most entries itself and declined some (both paths are checked). */
#include <criterion/criterion.h>
#include <gmp.h>
#include <mpfr.h>
#include <stdlib.h>

#include "lm_mat.h"
#include "../src/linalg/mpdot.h"

static const mpfr_prec_t PRECS[] = {53, 64, 113, 128, 200, 256, 512, 1024};
#define NPREC 8

/* element (i,l) of op(A) */
static mpfr_srcptr opel(const lm_mat *A, int t, int i, int l)
{
    return t ? A->m[(size_t)l * (size_t)A->c + (size_t)i] : A->m[(size_t)i * (size_t)A->c + (size_t)l];
}

static mpfr_ptr opel_w(lm_mat *A, int t, int i, int l)
{
    return (mpfr_ptr)opel(A, t, i, l);
}

/* reference: the k products exactly (each at prec(a) + prec(b) bits), one
 * mpfr_sum rounded to nearest at c's precision */
static void ref_entry(mpfr_ptr c, const lm_mat *A, int ta, const lm_mat *B, int tb, int i, int j,
                      int k)
{
    mpfr_t *t = calloc((size_t)k + 1, sizeof *t);
    mpfr_ptr *tp = calloc((size_t)k + 1, sizeof *tp);
    for (int l = 0; l < k; l++) {
        mpfr_srcptr a = opel(A, ta, i, l), b = opel(B, !tb, j, l);
        mpfr_init2(t[l], mpfr_get_prec(a) + mpfr_get_prec(b));
        mpfr_mul(t[l], a, b, MPFR_RNDN);
        tp[l] = t[l];
    }
    mpfr_sum(c, tp, (unsigned long)k, MPFR_RNDN);
    for (int l = 0; l < k; l++) mpfr_clear(t[l]);
    free(t);
    free(tp);
}

/* the exact sum lies on a midpoint of pc-bit numbers */
static int is_tie(const lm_mat *A, int ta, const lm_mat *B, int tb, int i, int j, int k, mpfr_prec_t pc)
{
    mpfr_t x;
    mpfr_init2(x, 4 * (A->prec + B->prec) + 8192); /* the tie operands span < 3 pc + 64 bits */
    ref_entry(x, A, ta, B, tb, i, j, k);
    int tie = mpfr_regular_p(x) && mpfr_min_prec(x) == pc + 1;
    mpfr_clear(x);
    return tie;
}

static unsigned long rnd(gmp_randstate_t g, unsigned long n)
{
    return gmp_urandomm_ui(g, n);
}

/* a random value with all bits of x's precision in use, times 2^e, random sign */
static void rand_full(mpfr_ptr x, gmp_randstate_t g, long e)
{
    do mpfr_urandomb(x, g);
    while (mpfr_zero_p(x));
    mpfr_mul_2si(x, x, e, MPFR_RNDN);
    if (rnd(g, 2)) mpfr_neg(x, x, MPFR_RNDN);
}

enum { K_RANDOM, K_CANCEL, K_TIES, K_SPREAD, K_EDGE, K_ZEROS, NKIND };

/* fill op(A) (m x k) and op(B) (k x n) for one kind */
static void fill(lm_mat *A, int ta, lm_mat *B, int tb, int m, int k, int n, int kind, mpfr_prec_t pc,
                 gmp_randstate_t g)
{
    const long lo = mpfr_get_emin() / 2 + 64, hi = mpfr_get_emax() / 2 - 64; /* the kernel's range */
    for (int i = 0; i < m; i++)
        for (int l = 0; l < k; l++) {
            mpfr_ptr a = opel_w(A, ta, i, l);
            switch (kind) {
            case K_RANDOM:
                if (rnd(g, 10) == 0) mpfr_set_zero(a, rnd(g, 2) ? 1 : -1);
                else rand_full(a, g, (long)rnd(g, 17) - 8);
                break;
            case K_CANCEL: /* pairs (x, x) against (y, -y); a tail 2^-300 x */
                if (l % 2 == 0) rand_full(a, g, (long)rnd(g, 9) - 4);
                else mpfr_set(a, opel(A, ta, i, l - 1), MPFR_RNDN);
                if (l == k - 1 && l % 2 == 0) mpfr_mul_2si(a, a, -300, MPFR_RNDN);
                if (i % 3 == 1) mpfr_neg(a, opel(A, ta, i - 1, l), MPFR_RNDN); /* a negated row */
                break;
            case K_TIES: /* row: 1 + t 2^(1-pc), +-2^-pc (half an ulp), maybe a tie breaker */
                if (l == 0) {
                    mpfr_set_ui_2exp(a, rnd(g, 2), 1 - pc, MPFR_RNDN);
                    mpfr_add_ui(a, a, 1, MPFR_RNDN); /* exact: A has >= pc bits */
                } else if (l == 1) {
                    mpfr_set_ui_2exp(a, 1, -pc, MPFR_RNDN);
                    if (rnd(g, 4) == 0) mpfr_neg(a, a, MPFR_RNDN);
                } else if (l == 2 && rnd(g, 3) == 0) {
                    mpfr_set_si_2exp(a, rnd(g, 2) ? 1 : -1, -2 * pc - 10, MPFR_RNDN);
                } else {
                    mpfr_set_zero(a, 1);
                }
                break;
            case K_SPREAD: {
                static const long ex[] = {-1328, -664, -300, 0, 0, 664, 1328};
                rand_full(a, g, ex[rnd(g, 7)]);
                break;
            }
            case K_EDGE: { /* the kernel's exponent bounds, just inside and just outside */
                long e[] = {lo + 1, lo + 200, hi - 1, hi - 200, 0, -1100, lo - 3, hi + 3};
                rand_full(a, g, 0);
                mpfr_set_exp(a, e[rnd(g, rnd(g, 4) ? 6 : 8)]);
                break;
            }
            default: /* K_ZEROS: mostly signed zeros, rows of -0, some Inf/NaN */
                if (i % 4 == 0) mpfr_set_zero(a, -1);
                else if (rnd(g, 40) == 0) mpfr_set_inf(a, rnd(g, 2) ? 1 : -1);
                else if (rnd(g, 60) == 0) mpfr_set_nan(a);
                else if (rnd(g, 3) == 0) rand_full(a, g, 0);
                else mpfr_set_zero(a, rnd(g, 2) ? 1 : -1);
            }
        }
    for (int j = 0; j < n; j++)
        for (int l = 0; l < k; l++) {
            mpfr_ptr b = opel_w(B, !tb, j, l);
            switch (kind) {
            case K_RANDOM:
                if (rnd(g, 10) == 0) mpfr_set_zero(b, rnd(g, 2) ? 1 : -1);
                else rand_full(b, g, (long)rnd(g, 17) - 8);
                break;
            case K_CANCEL:
                if (l % 2 == 0) rand_full(b, g, (long)rnd(g, 9) - 4);
                else mpfr_neg(b, opel(B, !tb, j, l - 1), MPFR_RNDN);
                break;
            case K_TIES: /* a power of two per column (keeps the midpoints), sign per column */
                mpfr_set_ui_2exp(b, 1, (long)(j % 5) - 2, MPFR_RNDN);
                if (j % 2) mpfr_neg(b, b, MPFR_RNDN);
                break;
            case K_SPREAD: {
                static const long ex[] = {-1328, -664, 0, 0, 664, 1328};
                rand_full(b, g, ex[rnd(g, 6)]);
                break;
            }
            case K_EDGE:
                rand_full(b, g, (long)rnd(g, 5) - 2);
                break;
            default:
                if (j % 3 == 0) rand_full(b, g, 0);
                else if (rnd(g, 50) == 0) mpfr_set_inf(b, 1);
                else if (rnd(g, 3) == 0) mpfr_set_zero(b, rnd(g, 2) ? 1 : -1);
                else rand_full(b, g, 0);
            }
        }
    (void)pc;
}

static int same(mpfr_srcptr c, mpfr_srcptr r)
{
    if (mpfr_nan_p(r)) return mpfr_nan_p(c) != 0;
    return mpfr_equal_p(c, r) && mpfr_signbit(c) == mpfr_signbit(r);
}

Test(mpdot, matches_exact_reference)
{
    static const int ks[] = {0, 1, 2, 3, 17, 64, 200};
    gmp_randstate_t g;
    gmp_randinit_default(g);
    gmp_randseed_ui(g, 20261129);
    long d0, f0, d1, f1, entries = 0, ties = 0, cancels = 0, negzero = 0;
    lm_mpdot_stats(&d0, &f0);
    for (int ik = 0; ik < 7; ik++)
        for (int ip = 0; ip < NPREC; ip++)
            for (int kind = 0; kind < NKIND; kind++)
                for (int tr = 0; tr < 4; tr++) {
                    const int k = ks[ik], ta = tr & 1, tb = tr >> 1;
                    const int m = 1 + (ip + kind + tr) % 7, n = 1 + (ik + 2 * kind + tr) % 9;
                    /* mixed precisions; for the ties C is the narrowest (the midpoints
                     * are then representable in A) */
                    mpfr_prec_t pa = PRECS[ip], pb = PRECS[(ip + kind + tr) % NPREC],
                                pc = PRECS[(ip + 3 * tr + ik) % NPREC];
                    if (kind == K_TIES) pc = pa < pb ? pa : pb;
                    lm_ctx ca = lm_ctx_mpfr(pa), cb = lm_ctx_mpfr(pb), cc = lm_ctx_mpfr(pc);
                    lm_mat *A = ta ? lm_mat_new(k, m, &ca) : lm_mat_new(m, k, &ca);
                    lm_mat *B = tb ? lm_mat_new(n, k, &cb) : lm_mat_new(k, n, &cb);
                    lm_mat *C = lm_mat_new(m, n, &cc);
                    fill(A, ta, B, tb, m, k, n, kind, pc, g);
                    if (kind == K_RANDOM && k > 0) { /* an entry below its matrix's precision */
                        mpfr_ptr x = opel_w(A, ta, 0, 0);
                        mpfr_set_prec(x, 11);
                        rand_full(x, g, 3);
                    }
                    lm_mat_mul(C, A, ta, B, tb);
                    mpfr_t r;
                    mpfr_init2(r, pc);
                    for (int i = 0; i < m; i++)
                        for (int j = 0; j < n; j++) {
                            mpfr_srcptr c = C->m[(size_t)i * (size_t)n + (size_t)j];
                            ref_entry(r, A, ta, B, tb, i, j, k);
                            if (!same(c, r)) {
                                char got[400], want[400];
                                mpfr_snprintf(got, sizeof got, "%s%.40Rg", mpfr_signbit(c) ? "(-)" : "(+)", c);
                                mpfr_snprintf(want, sizeof want, "%s%.40Rg", mpfr_signbit(r) ? "(-)" : "(+)", r);
                                cr_assert_fail("kind %d k=%d %dx%d pa=%ld pb=%ld pc=%ld ta=%d tb=%d entry (%d,%d): "
                                               "got %s, want %s",
                                               kind, k, m, n, (long)pa, (long)pb, (long)pc, ta, tb, i, j, got, want);
                            }
                            entries++;
                            if (kind == K_TIES) ties += is_tie(A, ta, B, tb, i, j, k, pc);
                            if (kind == K_CANCEL && mpfr_zero_p(r)) cancels++;
                            if (mpfr_zero_p(r) && mpfr_signbit(r)) negzero++;
                        }
                    mpfr_clear(r);
                    lm_mat_free(A);
                    lm_mat_free(B);
                    lm_mat_free(C);
                }
    lm_mpdot_stats(&d1, &f1);
    gmp_randclear(g);
    cr_log_info("%ld entries: %ld ties, %ld exact cancellations, %ld -0; kernel %ld, declined %ld", entries,
                ties, cancels, negzero, d1 - d0, f1 - f0);
    /* the cases the operands were built for did occur */
    cr_assert(ties > 100, "only %ld midpoint sums", ties);
    cr_assert(cancels > 100, "only %ld exact cancellations", cancels);
    cr_assert(negzero > 20, "only %ld -0 results", negzero);
    /* both paths ran: the kernel settled most entries and declined some */
    cr_assert(d1 - d0 > entries / 2, "kernel settled %ld of %ld entries", d1 - d0, entries);
    cr_assert(f1 - f0 > 50, "kernel declined only %ld entries", f1 - f0);
}

/* the shapes and operands of the training steps (N x D times D x d, ...,
 * Gaussian draws at 256 bits): every entry by the kernel, none declined */
Test(mpdot, training_shapes_take_the_kernel)
{
    static const int dims[][3] = {{4, 32, 8}, {8, 32, 32}, {32, 4, 8}, {4, 8, 4}, {16, 16, 16}, {40, 24, 17}};
    gmp_randstate_t g;
    gmp_randinit_default(g);
    gmp_randseed_ui(g, 7);
    long d0, f0, d1, f1, entries = 0;
    lm_mpdot_stats(&d0, &f0);
    lm_ctx c256 = lm_ctx_mpfr(256);
    for (int s = 0; s < 6; s++)
        for (int tr = 0; tr < 4; tr++) {
            const int m = dims[s][0], k = dims[s][1], n = dims[s][2], ta = tr & 1, tb = tr >> 1;
            lm_mat *A = ta ? lm_mat_new(k, m, &c256) : lm_mat_new(m, k, &c256);
            lm_mat *B = tb ? lm_mat_new(n, k, &c256) : lm_mat_new(k, n, &c256);
            lm_mat *C = lm_mat_new(m, n, &c256);
            fill(A, ta, B, tb, m, k, n, K_RANDOM, 256, g);
            lm_mat_mul(C, A, ta, B, tb);
            mpfr_t r;
            mpfr_init2(r, 256);
            for (int i = 0; i < m; i++)
                for (int j = 0; j < n; j++) {
                    ref_entry(r, A, ta, B, tb, i, j, k);
                    cr_assert(same(C->m[(size_t)i * (size_t)n + (size_t)j], r), "%dx%dx%d tr=%d (%d,%d)", m, k,
                              n, tr, i, j);
                    entries++;
                }
            mpfr_clear(r);
            lm_mat_free(A);
            lm_mat_free(B);
            lm_mat_free(C);
        }
    lm_mpdot_stats(&d1, &f1);
    gmp_randclear(g);
    cr_assert_eq(d1 - d0, entries, "kernel settled %ld of %ld", d1 - d0, entries);
    cr_assert_eq(f1 - f0, 0);
}
