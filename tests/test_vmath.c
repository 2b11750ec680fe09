/* test_vmath.c -- the reproducible vector maths (src/num/vmath.c).
 *
 * What must hold, and why each check can fail:
 *  - Bit identity across instruction sets: every level the CPU has (SSE2,
 *    AVX, AVX-512 without FMA) gives, on every input, the bits of SLEEF's
 *    pure-C scalar kernel; a kernel using FMA or a different polynomial on
 *    one width would differ in the last bit on some of the ~10^5 inputs.
 *  - Position independence: lengths 0..37 at offsets 0..7, each element equal
 *    to the one-element call, and nothing written past n.
 *  - Accuracy: <= 1 ulp against MPFR at 160 bits (SLEEF's documented u10
 *    bound) over the ranges the models use.
 *  - Special values as C99 libm (compared to glibc where C99 fixes the
 *    result exactly: NaN-ness, infinities, signed zeros, exact results).
 */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <mpfr.h>
#include <stdint.h>
#include <string.h>

#include "lm_rng.h"
#include "lm_vmath.h"

static uint64_t bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* a NaN is a NaN: C99 fixes no payload, everything else must match bit for bit */
static int same(double a, double b) { return (isnan(a) && isnan(b)) || bits(a) == bits(b); }

/* Inputs: specials, subnormals, huge, negative, and random doubles of every
 * exponent (random bit patterns) plus uniform draws on the model ranges. */
#define NIN 60000
static double *inputs(size_t *n)
{
    static const double sp[] = { 0.0, -0.0, 1.0, -1.0, INFINITY, -INFINITY, NAN, -NAN,
                                 DBL_MIN, -DBL_MIN, 0x1p-1074, -0x1p-1074, 0x1.8p-1060,
                                 DBL_MAX, -DBL_MAX, 709.782712893384, 709.7827128933841,
                                 -745.1332191019411, -745.1332191019412, -708.4, 1e-300,
                                 1e6, 0.5, 2.0, 3.0, -8.0, 1e308, -1e-310 };
    size_t ns = sizeof sp / sizeof *sp;
    double *x = malloc((ns + NIN) * sizeof *x);
    cr_assert_not_null(x);
    memcpy(x, sp, sizeof sp);
    lm_rng g;
    lm_rng_init(&g, 20261129);
    for (size_t i = 0; i < NIN; i++) {
        double v;
        switch (i % 4) {
        case 0: {
            uint64_t u = lm_rng_u64(&g);
            memcpy(&v, &u, sizeof v);
            break;
        }
        case 1: v = -745.0 + 760.0 * lm_rng_uniform(&g); break; /* exp's range */
        case 2: v = ldexp(lm_rng_uniform(&g), lm_rng_int(&g, -1000, 20)); break; /* pow bases */
        default: v = 100.0 * (lm_rng_uniform(&g) - 0.5); break;
        }
        x[ns + i] = v;
    }
    *n = ns + NIN;
    return x;
}

static const double EXPS[] = { 2.0, 0.5, 0.75, 4.0 / 3.0, 1.0 / 3.0, 3.0, -1.0, 1.5, 0.25, 7.0, 0.0 };
#define NEXP (sizeof EXPS / sizeof *EXPS)

/* op 0 exp, 1 exp(x - 0.37), 2 log, 3.. pow with EXPS[op-3], then spow */
#define NOP (3 + 2 * (int)NEXP)
static void apply(int op, double *y, const double *x, size_t n)
{
    if (op == 0) lm_vexp(y, x, n);
    else if (op == 1) lm_vexp_shift(y, x, 0.37, n);
    else if (op == 2) lm_vlog(y, x, n);
    else if (op < 3 + (int)NEXP) lm_vpow(y, x, EXPS[op - 3], n);
    else lm_vspow(y, x, EXPS[op - 3 - (int)NEXP], n);
}

Test(vmath, levels_bit_identical)
{
    size_t n;
    double *x = inputs(&n), *ref = malloc(n * sizeof *ref), *y = malloc(n * sizeof *y);
    int tested = 0;
    for (int op = 0; op < NOP; op++) {
        cr_assert_eq(lm_vmath_force(LM_VM_PUREC), 0);
        apply(op, ref, x, n);
        for (int lv = LM_VM_SSE2; lv <= LM_VM_AVX512; lv++) {
            if (lm_vmath_force(lv) != 0) continue;
            tested |= 1 << lv;
            apply(op, y, x, n);
            size_t bad = 0, first = 0;
            for (size_t i = 0; i < n; i++)
                if (!same(y[i], ref[i]) && bad++ == 0) first = i;
            cr_expect_eq(bad, 0, "op %d level %s: %zu of %zu differ from purec, first x=%a: %a vs %a",
                         op, lm_vmath_level_name(lv), bad, n, x[first], y[first], ref[first]);
        }
    }
    lm_vmath_force(LM_VM_AUTO);
    cr_assert(tested & (1 << LM_VM_SSE2), "SSE2 level not available on x86-64");
    cr_log_info("levels compared with purec: %s%s%s", tested & 4 ? "sse2 " : "",
                tested & 8 ? "avx " : "", tested & 16 ? "avx512f-nofma" : "");
    free(x);
    free(ref);
    free(y);
}

/* every length 0..37 at every offset 0..7, on every level: element k is the
 * one-element call on x[k], and y[n] (a sentinel) is untouched */
Test(vmath, lengths_and_offsets)
{
    enum { MAXN = 37, MAXOFF = 8 };
    double x[MAXN + MAXOFF], y[MAXN + MAXOFF + 1], one[NOP][MAXN + MAXOFF];
    lm_rng g;
    lm_rng_init(&g, 7);
    for (int i = 0; i < MAXN + MAXOFF; i++) x[i] = 40.0 * (lm_rng_uniform(&g) - 0.3);
    x[5] = 0.0;
    x[11] = -0.0;
    cr_assert_eq(lm_vmath_force(LM_VM_PUREC), 0);
    for (int op = 0; op < NOP; op++)
        for (int i = 0; i < MAXN + MAXOFF; i++) apply(op, &one[op][i], &x[i], 1);
    for (int lv = LM_VM_PUREC; lv <= LM_VM_AVX512; lv++) {
        if (lm_vmath_force(lv) != 0) continue;
        for (int op = 0; op < NOP; op++)
            for (int off = 0; off < MAXOFF; off++)
                for (int len = 0; len <= MAXN; len++) {
                    for (int i = 0; i <= MAXN + MAXOFF; i++) y[i] = 12345.0;
                    apply(op, y + off, x + off, (size_t)len);
                    for (int k = 0; k < len; k++)
                        cr_expect(same(y[off + k], one[op][off + k]),
                                  "level %s op %d off %d n %d: element %d %a vs alone %a",
                                  lm_vmath_level_name(lv), op, off, len, k, y[off + k],
                                  one[op][off + k]);
                    cr_expect_eq(y[off + len], 12345.0, "level %s op %d: wrote past n=%d",
                                 lm_vmath_level_name(lv), op, len);
                    if (off > 0) cr_expect_eq(y[off - 1], 12345.0, "wrote before the array");
                }
    }
    /* in place (x == y) gives the same as out of place */
    lm_vmath_force(LM_VM_AUTO);
    for (int op = 0; op < NOP; op++) {
        double z[MAXN];
        memcpy(z, x, sizeof z);
        apply(op, z, z, MAXN);
        for (int k = 0; k < MAXN; k++) cr_expect(same(z[k], one[op][k]), "in place op %d k %d", op, k);
    }
    /* the scalar helpers */
    for (int k = 0; k < MAXN; k++) {
        cr_expect(same(lm_exp1(x[k]), one[0][k]));
        cr_expect(same(lm_log1(x[k]), one[2][k]));
        cr_expect(same(lm_pow1(x[k], EXPS[1]), one[4][k]));
    }
}

/* |y - r| in units of the last place of the double nearest r (2^-1074 for
 * subnormals); an infinite y counts as 2^1024 so an overflow is measured too */
static double ulp_err(double y, mpfr_srcptr r)
{
    const double bad = (double)INFINITY;
    if (mpfr_nan_p(r)) return isnan(y) ? 0.0 : bad;
    if (isnan(y)) return bad;
    /* an infinite result is right when r rounds to infinity */
    if (isinf(y) && mpfr_get_d(r, MPFR_RNDN) == y) return 0.0;
    if (mpfr_inf_p(r)) return bad;
    if (mpfr_zero_p(r)) return y == 0.0 ? 0.0 : bad;
    mpfr_t d;
    mpfr_init2(d, 200);
    if (isinf(y)) mpfr_set_si_2exp(d, y > 0 ? 1 : -1, 1024, MPFR_RNDN);
    else mpfr_set_d(d, y, MPFR_RNDN);
    mpfr_sub(d, d, r, MPFR_RNDN);
    long e = mpfr_get_exp(r) - 53; /* r = m 2^exp, m in [1/2, 1) */
    if (e < -1074) e = -1074;
    mpfr_mul_2si(d, d, -e, MPFR_RNDN);
    double u = fabs(mpfr_get_d(d, MPFR_RNDU));
    mpfr_clear(d);
    return u;
}

Test(vmath, ulp_against_mpfr)
{
    mpfr_t r, a, b;
    mpfr_inits2(160, r, a, b, (mpfr_ptr)0);
    lm_rng g;
    lm_rng_init(&g, 99);
    enum { N = 20000 };
    static double x[N], y[N];
    double worst[4] = { 0 };
    /* exp on [-745, 709.78] (above: see known_early_overflow) */
    for (int i = 0; i < N; i++) x[i] = -745.0 + 1454.78 * lm_rng_uniform(&g);
    lm_vexp(y, x, N);
    for (int i = 0; i < N; i++) {
        mpfr_set_d(a, x[i], MPFR_RNDN);
        mpfr_exp(r, a, MPFR_RNDN);
        double u = ulp_err(y[i], r);
        worst[0] = fmax(worst[0], u);
        cr_expect(u <= 1.0, "exp(%a) = %a: %.3g ulp", x[i], y[i], u);
    }
    /* log over every exponent, subnormals included */
    for (int i = 0; i < N; i++) x[i] = ldexp(0.5 + 0.5 * lm_rng_uniform(&g), lm_rng_int(&g, -1073, 1024));
    lm_vlog(y, x, N);
    for (int i = 0; i < N; i++) {
        mpfr_set_d(a, x[i], MPFR_RNDN);
        mpfr_log(r, a, MPFR_RNDN);
        double u = ulp_err(y[i], r);
        worst[1] = fmax(worst[1], u);
        cr_expect(u <= 1.0, "log(%a) = %a: %.3g ulp", x[i], y[i], u);
    }
    /* pow: bases (1e-300, 1e6], the exponents of the l_p map and others */
    for (size_t k = 0; k < NEXP; k++) {
        for (int i = 0; i < N / 4; i++)
            x[i] = exp(log(1e-300) + (log(1e6) - log(1e-300)) * lm_rng_uniform(&g));
        lm_vpow(y, x, EXPS[k], N / 4);
        for (int i = 0; i < N / 4; i++) {
            mpfr_set_d(a, x[i], MPFR_RNDN);
            mpfr_set_d(b, EXPS[k], MPFR_RNDN);
            mpfr_pow(r, a, b, MPFR_RNDN);
            double u = ulp_err(y[i], r);
            worst[2] = fmax(worst[2], u);
            cr_expect(u <= 1.0, "pow(%a, %a) = %a: %.3g ulp", x[i], EXPS[k], y[i], u);
        }
    }
    /* the measuring itself: a result one ulp off must read as ~1 ulp */
    mpfr_set_d(r, 1.5, MPFR_RNDN);
    cr_assert(fabs(ulp_err(nextafter(1.5, 2.0), r) - 1.0) < 1e-12);
    cr_assert(fabs(ulp_err(nextafter(0x1p-1070, 1.0), r) - 0x1p52) > 0); /* sanity: far is far */
    cr_log_info("worst ulp: exp %.3f log %.3f pow %.3f", worst[0], worst[1], worst[2]);
    mpfr_clears(r, a, b, (mpfr_ptr)0);
}

/* special values: the C99 results, here taken from glibc (which follows Annex F) */
Test(vmath, special_values)
{
    static const double v[] = { 0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 1.5, -1.5,
                                INFINITY, -INFINITY, NAN, 0x1p-1074, -0x1p-1074, DBL_MAX, -DBL_MAX,
                                710.0, -746.0, 1e-300, -8.0, 1.0 / 3.0 };
    const size_t nv = sizeof v / sizeof *v;
    for (int lv = LM_VM_PUREC; lv <= LM_VM_AVX512; lv++) {
        if (lm_vmath_force(lv) != 0) continue;
        for (size_t i = 0; i < nv; i++) {
            double y;
            lm_vexp(&y, &v[i], 1);
            if (!isfinite(v[i]) || v[i] == 0.0 || fabs(v[i]) > 700)
                cr_expect(same(y, exp(v[i])), "%s exp(%a) = %a, C99 %a", lm_vmath_level_name(lv), v[i], y,
                          exp(v[i]));
            lm_vlog(&y, &v[i], 1);
            if (!isfinite(v[i]) || v[i] <= 0.0 || v[i] == 1.0)
                cr_expect(same(y, log(v[i])), "%s log(%a) = %a, C99 %a", lm_vmath_level_name(lv), v[i], y,
                          log(v[i]));
            for (size_t j = 0; j < nv; j++) {
                double e = v[j], c = pow(v[i], e);
                lm_vpow(&y, &v[i], e, 1);
                /* C99 fixes the result (or it is exact) when either is special, the base is
                 * negative, zero or one, or the exponent is a small integer */
                int fixed = fabs(v[i]) != DBL_MAX /* see known_early_overflow */ &&
                            (!isfinite(v[i]) || !isfinite(e) || v[i] <= 0.0 || v[i] == 1.0 ||
                            e == 0.0 || (e == rint(e) && fabs(e) <= 3 && fabs(v[i]) <= 3));
                if (fixed)
                    cr_expect(same(y, c), "%s pow(%a, %a) = %a, C99 %a", lm_vmath_level_name(lv), v[i], e, y,
                              c);
            }
        }
        /* the mirror map keeps the sign, and zeros and NaN pass through */
        double s[5] = { -8.0, -0.0, 0.0, NAN, 27.0 }, t[5];
        lm_vspow(t, s, 1.0 / 3.0, 5);
        cr_expect(fabs(t[0] + 2.0) <= 4.5e-16 && fabs(t[4] - 3.0) <= 4.5e-16, "%a %a", t[0], t[4]);
        cr_expect(bits(t[1]) == bits(-0.0) && bits(t[2]) == 0 && isnan(t[3]));
        /* against the definition, on every exponent (positive ones take a copysign path) */
        static const double sv[] = { -8.0, -0.0, 0.0, NAN, 27.0, -INFINITY, INFINITY, -0x1p-1074, 1e-310, -1e300 };
        for (size_t k = 0; k < NEXP; k++) {
            double u[sizeof sv / sizeof *sv];
            lm_vspow(u, sv, EXPS[k], sizeof sv / sizeof *sv);
            for (size_t i = 0; i < sizeof sv / sizeof *sv; i++) {
                double w = sv[i] > 0 ? lm_pow1(sv[i], EXPS[k]) : sv[i] < 0 ? -lm_pow1(-sv[i], EXPS[k]) : sv[i];
                cr_expect(same(u[i], w), "spow(%a, %a) = %a, want %a", sv[i], EXPS[k], u[i], w);
            }
        }
        double sa[6] = { -2.0, 0.0, 4.0, -0.0, 0.5, 1.0 };
        cr_expect_eq(lm_vsum_abspow(sa, 1.0, 2.0, 6), 4.0 + 16.0 + 0.25 + 1.0);
        cr_expect_eq(lm_vsum_abspow(sa, 1.0, -1.0, 6), 0.5 + 0.25 + 2.0 + 1.0, "zeros are skipped");
        cr_expect_eq(lm_vsum_abspow(sa, 2.0, 2.0, 6), 1.0 + 4.0 + 0.0625 + 0.25, "divided first");
    }
    lm_vmath_force(LM_VM_AUTO);
}

/* A known limitation of SLEEF 3.5.1, pinned so that it cannot grow unnoticed:
 * exp overflows to inf from x > 709.78271114955743 although exp(x) stays finite up
 * to 709.782712893384 (results within 1.8e-6 relative of DBL_MAX), and pow
 * likewise (pow(DBL_MAX, 1) = inf).  No model comes near: softmax arguments are
 * <= 0 and the mirror map's bases <= 1e6 with exponents <= 3. */
Test(vmath, known_early_overflow)
{
    const double thr = 709.78271114955743;
    cr_expect(isfinite(lm_exp1(thr)), "exp finite up to SLEEF's threshold");
    cr_expect(isfinite(lm_exp1(709.78)) && lm_exp1(709.78) == exp(709.78));
    cr_expect(isinf(lm_exp1(nextafter(709.782712893384, 0.0))), "if SLEEF fixed this, update the docs");
    cr_expect(isfinite(lm_pow1(0x1.fffe0p+1023, 1.0)), "pow finite below 1 - 1e-5 of DBL_MAX");
    cr_expect(isfinite(lm_pow1(1e6, 51.0)) && isfinite(lm_pow1(1e150, 2.0)));
}

Test(vmath, force_refuses_unknown)
{
    cr_expect_eq(lm_vmath_force(99), -1);
    cr_expect_eq(lm_vmath_force(LM_VM_PUREC), 0);
    cr_expect_eq(lm_vmath_level(), LM_VM_PUREC);
    cr_expect_eq(lm_vmath_force(LM_VM_AUTO), 0);
    cr_expect_geq(lm_vmath_level(), LM_VM_SSE2);
}
