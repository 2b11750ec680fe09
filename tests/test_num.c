/* test_num.c -- scalars, contexts and the counter-based RNG.
 *
 * Tolerances (u = 2^-53; v = 2^-p for MPFR at p bits):
 *  - double vs MPFR-256, IEEE-exact operations (+ - * / sqrt fma abs neg
 *    min max and the *_d forms): |d - m| <= u |m|   (correct rounding);
 *    libm functions (exp log log1p expm1 pow pow_si): |d - m| <= 2u |m|
 *    (glibc's documented < 1 ulp); MPFR-256 itself is off by <= 2^-256 |m|.
 *  - MPFR p vs p+30 on p-bit inputs: every operation is correctly rounded,
 *    so |x_p - x_{p+30}| <= (2^-p + 2^-(p+30)) |x_{p+30}| (1 + 2^-p).
 *  - RNG: reproducible bit-for-bit (golden values), moments within 5 sigma.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "lm_num.h"
#include "lm_rng.h"

#define U53 0x1p-53

/* |a - b| and |b| evaluated in 1024-bit MPFR, returned as doubles */
static double num_dist(const lm_num *a, const lm_num *b)
{
    mpfr_t x, y;
    mpfr_inits2(1024, x, y, (mpfr_ptr)0);
    if (a->mp) mpfr_set(x, a->m, MPFR_RNDN);
    else mpfr_set_d(x, a->d, MPFR_RNDN);
    if (b->mp) mpfr_set(y, b->m, MPFR_RNDN);
    else mpfr_set_d(y, b->d, MPFR_RNDN);
    mpfr_sub(x, x, y, MPFR_RNDN);
    double r = fabs(mpfr_get_d(x, MPFR_RNDU));
    mpfr_clears(x, y, (mpfr_ptr)0);
    return r;
}

static double num_absd(const lm_num *a)
{
    return fabs(lm_num_get_d(a));
}

/* a p-bit number built from normal variates, so all p bits are used */
static void rand_pbits(lm_num *x, lm_rng *g, double scale)
{
    lm_num_set_d(x, scale * lm_rng_normal(g));
    if (!x->mp) return;
    for (int k = 1; k * 50 < (int)mpfr_get_prec(x->m) + 50; k++)
        mpfr_add_d(x->m, x->m, ldexp(scale * lm_rng_normal(g), -50 * k), MPFR_RNDN);
}

typedef void (*bin_f)(lm_num *, const lm_num *, const lm_num *);
typedef void (*un_f)(lm_num *, const lm_num *);

typedef struct {
    const char *name;
    bin_f f;
    double ulps; /* error bound in units of u (double backend) */
    int positive; /* needs positive operands */
} bin_case;

typedef struct {
    const char *name;
    un_f f;
    double ulps;
    int domain; /* 0: any, 1: positive, 2: > -1, 3: moderate (|x| < 5) */
} un_case;

static const bin_case BIN[] = {
    { "add", lm_num_add, 1, 0 }, { "sub", lm_num_sub, 1, 0 }, { "mul", lm_num_mul, 1, 0 },
    { "div", lm_num_div, 1, 0 }, { "max", lm_num_max, 0, 0 }, { "min", lm_num_min, 0, 0 },
    { "pow", lm_num_pow, 2, 1 },
};

static const un_case UN[] = {
    { "neg", lm_num_neg, 0, 0 },     { "abs", lm_num_abs, 0, 0 },     { "sqr", lm_num_sqr, 1, 0 },
    { "sqrt", lm_num_sqrt, 1, 1 },   { "exp", lm_num_exp, 2, 3 },     { "log", lm_num_log, 2, 1 },
    { "log1p", lm_num_log1p, 2, 2 }, { "expm1", lm_num_expm1, 2, 3 },
};

static void draw_operand(lm_num *x, lm_rng *g, int domain)
{
    rand_pbits(x, g, 2.0);
    if (domain == 1 || domain == 2) lm_num_abs(x, x);
    if (domain == 2) lm_num_add_d(x, x, -0.5); /* > -1 */
}

/* r_lo (context lo) vs r_hi (context hi) for every binary case */
static void compare_binary(const lm_ctx *lo, const lm_ctx *hi, double tol_of_unit, int use_ulps)
{
    lm_rng g;
    lm_rng_init(&g, 1234);
    lm_num a, b, r, A, B, R;
    lm_num_inits(lo, &a, &b, &r, (lm_num *)NULL);
    lm_num_inits(hi, &A, &B, &R, (lm_num *)NULL);
    for (size_t c = 0; c < sizeof BIN / sizeof *BIN; c++)
        for (int t = 0; t < 200; t++) {
            draw_operand(&a, &g, BIN[c].positive);
            draw_operand(&b, &g, 0);
            if (BIN[c].positive) lm_num_mul_d(&b, &b, 0.25);
            lm_num_set(&A, &a);
            lm_num_set(&B, &b);
            BIN[c].f(&r, &a, &b);
            BIN[c].f(&R, &A, &B);
            double bound = (use_ulps ? BIN[c].ulps : 1.0) * tol_of_unit * num_absd(&R);
            cr_assert(num_dist(&r, &R) <= bound, "%s: |%.17g - %.17g| > %g", BIN[c].name,
                      lm_num_get_d(&r), lm_num_get_d(&R), bound);
        }
    lm_num_clears(&a, &b, &r, &A, &B, &R, (lm_num *)NULL);
}

static void compare_unary(const lm_ctx *lo, const lm_ctx *hi, double tol_of_unit, int use_ulps)
{
    lm_rng g;
    lm_rng_init(&g, 99);
    lm_num a, r, A, R;
    lm_num_inits(lo, &a, &r, (lm_num *)NULL);
    lm_num_inits(hi, &A, &R, (lm_num *)NULL);
    for (size_t c = 0; c < sizeof UN / sizeof *UN; c++)
        for (int t = 0; t < 200; t++) {
            draw_operand(&a, &g, UN[c].domain);
            lm_num_set(&A, &a);
            UN[c].f(&r, &a);
            UN[c].f(&R, &A);
            double bound = (use_ulps ? UN[c].ulps : 1.0) * tol_of_unit * num_absd(&R);
            cr_assert(num_dist(&r, &R) <= bound, "%s(%.17g): |%.17g - %.17g| > %g", UN[c].name,
                      lm_num_get_d(&a), lm_num_get_d(&r), lm_num_get_d(&R), bound);
        }
    lm_num_clears(&a, &r, &A, &R, (lm_num *)NULL);
}

/* (a) double vs MPFR-256 */
Test(num, double_vs_mpfr256_binary)
{
    lm_ctx d = lm_ctx_double(), m = lm_ctx_mpfr(256);
    compare_binary(&d, &m, U53 * (1 + 0x1p-200), 1);
}

Test(num, double_vs_mpfr256_unary)
{
    lm_ctx d = lm_ctx_double(), m = lm_ctx_mpfr(256);
    compare_unary(&d, &m, U53 * (1 + 0x1p-200), 1);
}

Test(num, double_vs_mpfr256_mixed_forms)
{
    lm_ctx d = lm_ctx_double(), m = lm_ctx_mpfr(256);
    lm_rng g;
    lm_rng_init(&g, 5);
    lm_num a, b, c, r, A, B, C, R;
    lm_num_inits(&d, &a, &b, &c, &r, (lm_num *)NULL);
    lm_num_inits(&m, &A, &B, &C, &R, (lm_num *)NULL);
    for (int t = 0; t < 200; t++) {
        double x = lm_rng_normal(&g), y = lm_rng_normal(&g), z = lm_rng_normal(&g);
        lm_num_set_d(&a, x), lm_num_set_d(&b, y), lm_num_set_d(&c, z);
        lm_num_set_d(&A, x), lm_num_set_d(&B, y), lm_num_set_d(&C, z);
        lm_num_fma(&r, &a, &b, &c), lm_num_fma(&R, &A, &B, &C);
        cr_assert(num_dist(&r, &R) <= U53 * num_absd(&R), "fma");
        lm_num_add_d(&r, &a, y), lm_num_add_d(&R, &A, y);
        cr_assert(num_dist(&r, &R) <= U53 * num_absd(&R), "add_d");
        lm_num_mul_d(&r, &a, y), lm_num_mul_d(&R, &A, y);
        cr_assert(num_dist(&r, &R) <= U53 * num_absd(&R), "mul_d");
        lm_num_div_d(&r, &a, y), lm_num_div_d(&R, &A, y);
        cr_assert(num_dist(&r, &R) <= U53 * num_absd(&R), "div_d");
        lm_num_d_sub(&r, y, &a), lm_num_d_sub(&R, y, &A);
        cr_assert(num_dist(&r, &R) <= U53 * num_absd(&R), "d_sub");
        long k = lm_rng_int(&g, -6, 6);
        lm_num_pow_si(&r, &a, k), lm_num_pow_si(&R, &A, k);
        cr_assert(num_dist(&r, &R) <= 2 * U53 * num_absd(&R), "pow_si %ld", k);
        cr_assert_eq(lm_num_cmp(&a, &b), lm_num_cmp(&A, &B));
        cr_assert_eq(lm_num_sgn(&a), lm_num_sgn(&A));
    }
    lm_num_clears(&a, &b, &c, &r, &A, &B, &C, &R, (lm_num *)NULL);
}

/* (b) MPFR at p vs p+30 bits */
Test(num, mpfr_p_vs_p30)
{
    const mpfr_prec_t ps[] = { 64, 113, 256, 1000 };
    for (size_t i = 0; i < sizeof ps / sizeof *ps; i++) {
        lm_ctx lo = lm_ctx_mpfr(ps[i]), hi = lm_ctx_mpfr(ps[i] + 30);
        double v = ldexp(1.0, -(int)ps[i]) * (1 + 0x1p-29);
        compare_binary(&lo, &hi, v, 0);
        compare_unary(&lo, &hi, v, 0);
    }
}

Test(num, contexts)
{
    lm_ctx d = lm_ctx_double(), m = lm_ctx_mpfr(256), big = lm_ctx_mpfr(2000);
    char buf[32];
    cr_assert_str_eq(lm_ctx_name(&d, buf, sizeof buf), "double");
    cr_assert_str_eq(lm_ctx_name(&m, buf, sizeof buf), "mpfr256");
    cr_assert_eq(lm_ctx_eps(&d), 0x1p-53);
    cr_assert_eq(lm_ctx_eps(&m), 0x1p-256);
    cr_assert_eq(lm_ctx_log2eps(&big), -2000.0);
    /* past 1074 bits the double eps stops at the smallest positive double instead of 0 (a
     * tolerance of 0 made every identity claim "violated" at --prec 2048); the exact one is
     * lm_num_set_eps */
    cr_assert_eq(lm_ctx_eps(&big), 0x1p-1074);
    lm_num e, two;
    lm_num_init(&e, &big);
    lm_num_init(&two, &big);
    lm_num_set_eps(&e, &big);
    cr_assert(lm_num_sgn(&e) > 0);
    cr_assert(fabs(lm_num_log_abs_d(&e) + 2000.0 * M_LN2) < 1e-9);
    lm_num_set_eps(&e, &m);
    lm_num_set_d(&two, 0x1p-256);
    cr_assert_eq(lm_num_cmp(&e, &two), 0);
    lm_num_clear(&e);
    lm_num_clear(&two);
    cr_assert_eq(d.prec, 53);
    const char *v = lm_versions();
    cr_assert(strstr(v, "MPFR 4") && strstr(v, "GMP ") && strstr(v, "GSL 2") && strstr(v, "SQLite 3") &&
                  strstr(v, "OpenBLAS") && strstr(v, "Jansson 2") && strstr(v, "SLEEF 3"),
              "%s", v);
}

Test(num, strings_and_conversion)
{
    lm_ctx d = lm_ctx_double(), m = lm_ctx_mpfr(256);
    lm_num a, b, t;
    lm_num_init(&a, &d);
    lm_num_inits(&m, &b, &t, (lm_num *)NULL);
    lm_num_set_str(&a, "0.1");
    lm_num_set_str(&b, "0.1");
    cr_assert_eq(lm_num_get_d(&a), 0.1);
    lm_num_set_si(&t, 1);
    lm_num_div_d(&t, &t, 10.0); /* correctly rounded 1/10 at 256 bits */
    cr_assert_eq(lm_num_cmp(&b, &t), 0);
    lm_num_set_str(&a, "junk");
    cr_assert(!lm_num_isfinite(&a));
    lm_num_set_si(&b, 0);
    cr_assert(lm_num_iszero(&b) && lm_num_sgn(&b) == 0);
    lm_num_clears(&a, &b, &t, (lm_num *)NULL);
}

/* log|x| of numbers far outside double range, to 4u relative */
Test(num, log_abs_beyond_double)
{
    lm_ctx m = lm_ctx_mpfr(128);
    lm_num x;
    lm_num_init(&x, &m);
    lm_num_set_d(&x, -3.0);
    mpfr_mul_2si(x.m, x.m, 1000000, MPFR_RNDN);
    double want = 1000000 * M_LN2 + log(3.0), got = lm_num_log_abs_d(&x);
    cr_assert(fabs(got - want) <= 4 * U53 * want, "%.17g vs %.17g", got, want);
    mpfr_mul_2si(x.m, x.m, -2000000, MPFR_RNDN);
    got = lm_num_log_abs_d(&x);
    want = -1000000 * M_LN2 + log(3.0);
    cr_assert(fabs(got - want) <= 4 * U53 * fabs(want));
    lm_num_set_d(&x, 0.0);
    cr_assert(isinf(lm_num_log_abs_d(&x)) && lm_num_log_abs_d(&x) < 0);
    lm_num_clear(&x);
}

/* an MPFR destination fed a double-context operand converts it exactly */
Test(num, mixed_context_operands)
{
    lm_ctx d = lm_ctx_double(), m = lm_ctx_mpfr(200);
    lm_num a, b, r;
    lm_num_init(&a, &d);
    lm_num_inits(&m, &b, &r, (lm_num *)NULL);
    lm_num_set_d(&a, 0.1);
    lm_num_set_d(&b, 0x1p-100);
    lm_num_add(&r, &a, &b);
    lm_num_sub(&r, &r, &a);
    cr_assert(mpfr_cmp_d(r.m, 0x1p-100) == 0);
    lm_num_clears(&a, &b, &r, (lm_num *)NULL);
}

/* (f) RNG: reproducible, random access by counter, golden values */
Test(rng, reproducible_and_golden)
{
    lm_rng g1, g2, other;
    lm_rng_init(&g1, 42);
    lm_rng_init(&g2, 42);
    lm_rng_init(&other, 43);
    cr_assert_eq(lm_rng_u64(&g1), 0x3ac1bb8cb69963f7ULL);
    cr_assert_eq(lm_rng_u64(&g1), 0x6bacd324a8cc8aefULL);
    cr_assert_eq(lm_rng_u64(&g1), 0x6cbe03b2033516b1ULL);
    lm_rng_init(&g1, 42);
    uint64_t seq[1000];
    for (int i = 0; i < 1000; i++) {
        seq[i] = lm_rng_u64(&g1);
        (void)lm_rng_u64(&other); /* other streams do not interfere */
        cr_assert_eq(seq[i], lm_rng_u64(&g2));
    }
    lm_rng_init(&g1, 42);
    g1.ctr = 500;
    cr_assert_eq(lm_rng_u64(&g1), seq[500]);
    lm_rng_init(&other, 43);
    int same = 0;
    for (int i = 0; i < 1000; i++) same += lm_rng_u64(&other) == seq[i];
    cr_assert_eq(same, 0);
    cr_assert_eq(lm_hash_u64(1, 2), 0xd2f6d0470be1a7b1ULL);
    cr_assert_eq(lm_hash_str(7, "lemmata"), 0xb3fb7ab0001f3849ULL);
    lm_rng_init(&g1, 42);
    cr_assert_eq(lm_rng_uniform(&g1), 0x1.d60ddc65b4cbp-3); /* integer arithmetic: exact */
    double z = lm_rng_normal(&g1), z0 = -0x1.2bfb6ce2adb0fp+0; /* libm: to 4 ulps */
    cr_assert(fabs(z - z0) <= 8 * U53 * fabs(z0), "%a", z);
}

/* moments over n draws within 5 standard errors */
Test(rng, moments)
{
    const int n = 200000;
    lm_rng g;
    lm_rng_init(&g, 7);
    double s = 0, s2 = 0, mn = 1, mx = 0;
    for (int i = 0; i < n; i++) {
        double u = lm_rng_uniform(&g);
        cr_assert(u > 0.0 && u < 1.0);
        s += u;
        mn = fmin(mn, u);
        mx = fmax(mx, u);
    }
    cr_assert(fabs(s / n - 0.5) <= 5 * sqrt(1.0 / 12 / n), "uniform mean %g", s / n);
    s = 0;
    for (int i = 0; i < n; i++) {
        double z = lm_rng_normal(&g);
        s += z;
        s2 += z * z;
    }
    cr_assert(fabs(s / n) <= 5 / sqrt(n), "normal mean %g", s / n);
    cr_assert(fabs(s2 / n - 1) <= 5 * sqrt(2.0 / n), "normal var %g", s2 / n);
}

Test(rng, integers_and_hashes)
{
    lm_rng g;
    lm_rng_init(&g, 11);
    int cnt[7] = { 0 };
    const int n = 70000;
    for (int i = 0; i < n; i++) {
        int k = lm_rng_int(&g, -3, 3);
        cr_assert(k >= -3 && k <= 3);
        cnt[k + 3]++;
    }
    for (int k = 0; k < 7; k++) /* binomial sd = sqrt(n p (1-p)) */
        cr_assert(fabs(cnt[k] - n / 7.0) <= 5 * sqrt(n * (1.0 / 7) * (6.0 / 7)), "bin %d: %d", k, cnt[k]);
    cr_assert_eq(lm_rng_int(&g, 5, 5), 5);
    for (int i = 0; i < 100; i++) (void)lm_rng_int(&g, INT32_MIN, INT32_MAX);
    cr_assert_neq(lm_hash_u64(1, 2), lm_hash_u64(2, 1));
    cr_assert_neq(lm_hash_str(0, "abc"), lm_hash_str(0, "abd"));
    cr_assert_neq(lm_hash_str(0, "abc"), lm_hash_str(1, "abc"));
    cr_assert_eq(lm_hash_str(3, "x"), lm_hash_str(3, "x"));
    /* avalanche: a one-bit change of b flips 32 +- 2 bits on average */
    double flips = 0;
    for (int i = 0; i < 2000; i++) {
        uint64_t a = lm_rng_u64(&g), b = lm_rng_u64(&g);
        flips += __builtin_popcountll(lm_hash_u64(a, b) ^ lm_hash_u64(a, b ^ (1ULL << (i % 64))));
    }
    cr_assert(fabs(flips / 2000 - 32) <= 2, "avalanche %g", flips / 2000);
}
