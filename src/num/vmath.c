/* vmath.c -- reproducible vectorised exp, log and pow on double arrays.
 *
 * Why SLEEF's "cinz" kernels: glibc's exp/log/pow pick an FMA or a non-FMA
 * code path at load time (ifunc), so the last bit of a double run could
 * depend on the cluster node.  The cinz variants of SLEEF use no FMA and the
 * same sequence of IEEE operations in the pure-C, SSE2, AVX and AVX-512
 * versions, so every lane of every width gives the bits the scalar version
 * gives (tests/test_vmath.c checks this on every level the CPU has).
 *
 * Position independence: a lane never sees its neighbours, and the tail of
 * an array (fewer elements than a vector) goes through the same vector
 * kernel padded with 1.0, never through a different scalar routine.  Which
 * width runs is chosen per call from the CPU (GCC's __builtin_cpu_supports,
 * which also checks that the OS saves the wide registers); the choice only
 * changes the speed.
 *
 * The wide kernels are declared by <sleef.h> only when the compiler targets
 * AVX/AVX-512, so the header is read under a temporary target pragma and
 * each wrapper carries its own target attribute: the file still compiles for
 * baseline x86-64 and runs on a machine without AVX.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lm_vmath.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC target("avx512f")
#include <sleef.h>
#if defined(__AVX512F__) && defined(__AVX__)
#define VM_WIDE 1
#endif
#pragma GCC pop_options
#else
#include <sleef.h>
#endif

enum { OP_EXP, OP_EXPS, OP_LOG, OP_POW };

/* ---- pure C: the reference every vector level must reproduce ---------- */

static double one_purec(int op, double x, double a)
{
    switch (op) {
    case OP_EXP: return Sleef_cinz_expd1_u10purec(x);
    case OP_EXPS: return Sleef_cinz_expd1_u10purec(x - a);
    case OP_LOG: return Sleef_cinz_logd1_u10purec(x);
    default: return Sleef_cinz_powd1_u10purec(x, a);
    }
}

static void run_purec(int op, double *y, const double *x, double a, size_t n)
{
    for (size_t i = 0; i < n; i++) y[i] = one_purec(op, x[i], a);
}

/* One level: whole vectors, then the tail padded with 1.0 through the same
 * kernel.  x - a is one IEEE subtraction, the same in every lane and level. */
#define VM_LEVEL(NAME, ATTR, VT, W, LOAD, STORE, SET1, SUB, EXPF, LOGF, POWF)     \
    ATTR static VT NAME##_op(int op, VT v, VT av)                                 \
    {                                                                             \
        switch (op) {                                                             \
        case OP_EXP: return EXPF(v);                                              \
        case OP_EXPS: return EXPF(SUB(v, av));                                    \
        case OP_LOG: return LOGF(v);                                              \
        default: return POWF(v, av);                                              \
        }                                                                         \
    }                                                                             \
    ATTR static void NAME(int op, double *y, const double *x, double a, size_t n) \
    {                                                                             \
        const VT av = SET1(a);                                                    \
        size_t i = 0;                                                             \
        for (; i + (W) <= n; i += (W)) STORE(y + i, NAME##_op(op, LOAD(x + i), av)); \
        if (i < n) {                                                              \
            double t[W];                                                          \
            size_t r = n - i;                                                     \
            for (size_t k = 0; k < (W); k++) t[k] = k < r ? x[i + k] : 1.0;       \
            STORE(t, NAME##_op(op, LOAD(t), av));                                 \
            memcpy(y + i, t, r * sizeof *t);                                      \
        }                                                                         \
    }

#if defined(__x86_64__) && defined(__SSE2__)
#define VM_SSE2 1
VM_LEVEL(run_sse2, , __m128d, 2, _mm_loadu_pd, _mm_storeu_pd, _mm_set1_pd, _mm_sub_pd,
         Sleef_cinz_expd2_u10sse2, Sleef_cinz_logd2_u10sse2, Sleef_cinz_powd2_u10sse2)
#endif
#ifdef VM_WIDE
VM_LEVEL(run_avx, __attribute__((target("avx"))), __m256d, 4, _mm256_loadu_pd, _mm256_storeu_pd,
         _mm256_set1_pd, _mm256_sub_pd, Sleef_cinz_expd4_u10avx, Sleef_cinz_logd4_u10avx,
         Sleef_cinz_powd4_u10avx)
VM_LEVEL(run_avx512, __attribute__((target("avx512f"))), __m512d, 8, _mm512_loadu_pd,
         _mm512_storeu_pd, _mm512_set1_pd, _mm512_sub_pd, Sleef_cinz_expd8_u10avx512fnofma,
         Sleef_cinz_logd8_u10avx512fnofma, Sleef_cinz_powd8_u10avx512fnofma)
#endif

/* ---- dispatch ----------------------------------------------------------- */

static int have(int level)
{
    switch (level) {
    case LM_VM_PUREC: return 1;
#ifdef VM_SSE2
    case LM_VM_SSE2: return 1; /* part of x86-64 */
#endif
#ifdef VM_WIDE
    case LM_VM_AVX: return __builtin_cpu_supports("avx");
    case LM_VM_AVX512: return __builtin_cpu_supports("avx512f");
#endif
    default: return 0;
    }
}

/* set only by the tests (single-threaded); 0 = pick per call */
static int forced;

int lm_vmath_force(int level)
{
    if (level != LM_VM_AUTO && !have(level)) return -1;
    forced = level;
    return 0;
}

/* LM_VMATH_LEVEL=purec|sse2|avx|avx512 in the environment pins the level for a
 * whole run (to show that a run's output does not depend on it); read once,
 * and every thread computes the same value, so the race on `from_env` is benign
 * in effect, made well-defined by the atomic. */
static _Atomic int from_env = -1;

static int env_level(void)
{
    int v = from_env;
    if (v >= 0) return v;
    static const char *const nm[] = { "", "purec", "sse2", "avx", "avx512" };
    const char *e = getenv("LM_VMATH_LEVEL");
    v = 0;
    for (int l = LM_VM_PUREC; e && l <= LM_VM_AVX512; l++)
        if (!strcmp(e, nm[l]) && have(l)) v = l;
    from_env = v;
    return v;
}

int lm_vmath_level(void)
{
    if (forced) return forced;
    int e = env_level();
    if (e) return e;
    for (int l = LM_VM_AVX512; l > LM_VM_PUREC; l--)
        if (have(l)) return l;
    return LM_VM_PUREC;
}

const char *lm_vmath_level_name(int level)
{
    static const char *const nm[] = { "auto", "purec", "sse2", "avx", "avx512f-nofma" };
    return level >= 0 && level <= LM_VM_AVX512 ? nm[level] : "?";
}

/* lanes per vector of a level */
static size_t width(int level) { return level >= LM_VM_SSE2 ? (size_t)1 << (level - 1) : 1; }

static void run(int op, double *y, const double *x, double a, size_t n)
{
    if (n == 0) return;
    int lv = lm_vmath_level();
    /* a short array (softmax rows of 4 tokens) on the narrowest vector that holds
     * it: a padded 8-lane call costs more than one 4-lane one; every level gives
     * the same bits, so this only changes the speed */
    if (!forced && !env_level())
        while (lv > LM_VM_SSE2 && n <= width(lv - 1)) lv--;
    switch (lv) {
#ifdef VM_WIDE
    case LM_VM_AVX512: run_avx512(op, y, x, a, n); return;
    case LM_VM_AVX: run_avx(op, y, x, a, n); return;
#endif
#ifdef VM_SSE2
    case LM_VM_SSE2: run_sse2(op, y, x, a, n); return;
#endif
    default: run_purec(op, y, x, a, n); return;
    }
}

/* ---- the interface ------------------------------------------------------ */

void lm_vexp(double *y, const double *x, size_t n) { run(OP_EXP, y, x, 0.0, n); }
void lm_vexp_shift(double *y, const double *x, double s, size_t n) { run(OP_EXPS, y, x, s, n); }
void lm_vlog(double *y, const double *x, size_t n) { run(OP_LOG, y, x, 0.0, n); }
/* Exponents with an exact cheaper form (the l_p map at p = 2 and p = 3): x^1 = x,
 * x^2 = x*x and x^(1/2) = sqrt(x) are correctly rounded IEEE operations, so they
 * are at least as accurate as any pow and the same on every machine; pow's C99
 * values at -0 and -inf are kept (sqrt(-0) = -0 and sqrt(-inf) = NaN would not). */
static int pow_exact(double *y, const double *x, double e, size_t n)
{
    if (e == 1.0) {
        if (y != x) memcpy(y, x, n * sizeof *y);
    } else if (e == 2.0) {
        for (size_t i = 0; i < n; i++) y[i] = x[i] * x[i];
    } else if (e == 0.5) {
        size_t i0 = 0;
#ifdef VM_SSE2
        /* two at a time: sqrt with the two C99 fix-ups as masks (sqrtpd is the IEEE sqrt) */
        const __m128d zero = _mm_setzero_pd(), ninf = _mm_set1_pd(-(double)INFINITY),
                      pinf = _mm_set1_pd((double)INFINITY);
        for (; i0 + 2 <= n; i0 += 2) {
            __m128d v = _mm_loadu_pd(x + i0), r = _mm_sqrt_pd(v);
            __m128d mz = _mm_cmpeq_pd(v, zero), mi = _mm_cmpeq_pd(v, ninf);
            r = _mm_andnot_pd(mz, r);
            r = _mm_or_pd(_mm_andnot_pd(mi, r), _mm_and_pd(mi, pinf));
            _mm_storeu_pd(y + i0, r);
        }
#endif
        for (size_t i = i0; i < n; i++) {
            double v = x[i];
            y[i] = v == 0.0 ? 0.0 : v == -(double)INFINITY ? (double)INFINITY : sqrt(v);
        }
    } else
        return 0;
    return 1;
}

void lm_vpow(double *y, const double *x, double e, size_t n)
{
    if (!pow_exact(y, x, e, n)) run(OP_POW, y, x, e, n);
}

double lm_exp1(double x)
{
    double y;
    run(OP_EXP, &y, &x, 0.0, 1);
    return y;
}

double lm_log1(double x)
{
    double y;
    run(OP_LOG, &y, &x, 0.0, 1);
    return y;
}

double lm_pow1(double x, double e)
{
    double y;
    lm_vpow(&y, &x, e, 1);
    return y;
}

/* in blocks on the stack: |x| must be formed before the kernel, and x may be y */
#define VM_BLOCK 256

void lm_vspow(double *y, const double *x, double e, size_t n)
{
    double t[VM_BLOCK];
    for (size_t i = 0; i < n; i += VM_BLOCK) {
        size_t m = n - i < VM_BLOCK ? n - i : VM_BLOCK;
        for (size_t k = 0; k < m; k++) t[k] = fabs(x[i + k]);
        lm_vpow(t, t, e, m);
        if (e > 0.0) /* then 0^e = +0, so copying the sign keeps +-0 and NaN as they are */
            for (size_t k = 0; k < m; k++) y[i + k] = copysign(t[k], x[i + k]);
        else
            for (size_t k = 0; k < m; k++) {
                double v = x[i + k];
                y[i + k] = v > 0.0 ? t[k] : v < 0.0 ? -t[k] : v;
            }
    }
}

double lm_vsum_abspow(const double *x, double d, double e, size_t n)
{
    double t[VM_BLOCK], s = 0.0;
    for (size_t i = 0; i < n; i += VM_BLOCK) {
        size_t m = n - i < VM_BLOCK ? n - i : VM_BLOCK;
        for (size_t k = 0; k < m; k++) t[k] = fabs(x[i + k]) / d;
        lm_vpow(t, t, e, m);
        for (size_t k = 0; k < m; k++)
            if (x[i + k] != 0.0) s += t[k];
    }
    return s;
}
