/* lm_vmath.h -- reproducible vectorised elementwise exp, log and pow (double).
 *
 * Every result is a pure function of its own input element: bit-identical on
 * every x86-64 machine (whatever of SSE2/AVX/AVX-512/FMA it has), whatever the
 * array length and the element's position in it.  The kernels are SLEEF's
 * "cinz" functions (no FMA, the same operations in every instruction set),
 * with error <= 1 ulp; special values (NaN, +-Inf, +-0, negative base of pow)
 * as C99 <math.h>.  x and y may be the same array but must not overlap
 * otherwise.  The MPFR and Arb paths never come here.
 */
#ifndef LM_VMATH_H
#define LM_VMATH_H
#include <stddef.h>

void lm_vexp(double *y, const double *x, size_t n);                    /* e^x */
void lm_vexp_shift(double *y, const double *x, double s, size_t n);    /* e^(x - s) */
void lm_vlog(double *y, const double *x, size_t n);                    /* log x */
void lm_vpow(double *y, const double *x, double e, size_t n);          /* x^e */
/* (e = 1, 2, 1/2 take the correctly rounded x, x*x, sqrt x: exact forms, not SLEEF) */
/* sgn(x)|x|^e for x != 0, x itself for +-0 and NaN (the l_p mirror map) */
void lm_vspow(double *y, const double *x, double e, size_t n);
/* sum of (|x|/d)^e over the nonzero x, added in index order (d = 1: sum |x|^e) */
double lm_vsum_abspow(const double *x, double d, double e, size_t n);

/* one element, the same bits as the array functions */
double lm_exp1(double x);
double lm_log1(double x);
double lm_pow1(double x, double e);

/* The instruction set the kernels run on: LM_VM_AUTO picks the widest the CPU
 * and OS support.  Forcing one exists for the tests, which check that every
 * level gives the same bits; a level the CPU lacks is refused (returns -1). */
enum { LM_VM_AUTO = 0, LM_VM_PUREC = 1, LM_VM_SSE2 = 2, LM_VM_AVX = 3, LM_VM_AVX512 = 4 };
int lm_vmath_force(int level);
/* LM_VMATH_LEVEL=purec|sse2|avx|avx512 in the environment pins the level of a
 * whole run (unknown or unsupported values: auto) */
int lm_vmath_level(void);              /* the level in use now */
const char *lm_vmath_level_name(int level);

#endif
