/* num.c -- scalar arithmetic over a precision context.
 *
 * Double scalars use IEEE arithmetic and libm (glibc: +,-,*,/,sqrt,fma
 * correctly rounded; exp/log/pow/expm1/log1p within about 1 ulp).  MPFR
 * scalars use mpfr_* with MPFR_RNDN at the destination's precision, so
 * every operation is correctly rounded: |fl(x) - x| <= 2^-p |x|.
 *
 * The destination decides the backend.  Operands are supposed to share its
 * context; if one does not, it is converted (a double operand is viewed
 * exactly as a 64-bit MPFR number on the stack, an MPFR operand is rounded
 * to double) rather than read from an uninitialised field.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>

#include "lm_num.h"

#define RND MPFR_RNDN

/* Stack storage for an exact MPFR view of a double (64 >= 53 bits). */
typedef struct {
    mpfr_t m;
    mp_limb_t limb[2];
} tmp64;

static mpfr_srcptr mp_arg(const lm_num *a, tmp64 *t)
{
    if (a->mp) return a->m;
    mpfr_custom_init(t->limb, 64);
    mpfr_custom_init_set(t->m, MPFR_ZERO_KIND, 0, 64, t->limb);
    mpfr_set_d(t->m, a->d, RND);
    return t->m;
}

static double d_arg(const lm_num *a)
{
    return a->mp ? mpfr_get_d(a->m, RND) : a->d;
}

/* ---- lifetime ---------------------------------------------------------- */

void lm_num_init(lm_num *x, const lm_ctx *ctx)
{
    x->d = 0.0;
    x->mp = ctx->backend == LM_MPFR;
    if (x->mp) {
        mpfr_init2(x->m, ctx->prec);
        mpfr_set_zero(x->m, 1);
    }
}

void lm_num_clear(lm_num *x)
{
    if (x->mp) mpfr_clear(x->m);
    x->mp = 0;
    x->d = 0.0;
}

void lm_num_inits(const lm_ctx *ctx, lm_num *x, ...)
{
    va_list ap;
    va_start(ap, x);
    for (lm_num *p = x; p; p = va_arg(ap, lm_num *)) lm_num_init(p, ctx);
    va_end(ap);
}

void lm_num_clears(lm_num *x, ...)
{
    va_list ap;
    va_start(ap, x);
    for (lm_num *p = x; p; p = va_arg(ap, lm_num *)) lm_num_clear(p);
    va_end(ap);
}

/* ---- assignment and conversion ----------------------------------------- */

void lm_num_set(lm_num *r, const lm_num *a)
{
    if (r == a) return;
    if (!r->mp) r->d = d_arg(a);
    else if (a->mp) mpfr_set(r->m, a->m, RND);
    else mpfr_set_d(r->m, a->d, RND);
}

void lm_num_set_d(lm_num *r, double a)
{
    if (r->mp) mpfr_set_d(r->m, a, RND);
    else r->d = a;
}

void lm_num_set_si(lm_num *r, long a)
{
    if (r->mp) mpfr_set_si(r->m, a, RND);
    else r->d = (double)a;
}

void lm_num_set_str(lm_num *r, const char *s)
{
    if (r->mp) {
        if (mpfr_set_str(r->m, s, 10, RND) != 0) mpfr_set_nan(r->m);
    } else {
        char *end;
        r->d = strtod(s, &end);
        if (end == s) r->d = NAN;
    }
}

double lm_num_get_d(const lm_num *a)
{
    return d_arg(a);
}

/* log|a| = log|m| + e log 2 with a = m 2^e, 1/2 <= |m| < 1: no overflow. */
double lm_num_log_abs_d(const lm_num *a)
{
    if (!a->mp) return log(fabs(a->d));
    if (mpfr_nan_p(a->m)) return NAN;
    if (mpfr_zero_p(a->m)) return -INFINITY;
    if (mpfr_inf_p(a->m)) return INFINITY;
    long e;
    double m = mpfr_get_d_2exp(&e, a->m, RND);
    return log(fabs(m)) + (double)e * M_LN2;
}

/* ---- binary arithmetic ------------------------------------------------- */

typedef int (*mp_bin)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t);

static void mp_binary(mp_bin f, lm_num *r, const lm_num *a, const lm_num *b)
{
    tmp64 ta, tb;
    f(r->m, mp_arg(a, &ta), mp_arg(b, &tb), RND);
}

void lm_num_add(lm_num *r, const lm_num *a, const lm_num *b)
{
    if (r->mp) mp_binary(mpfr_add, r, a, b);
    else r->d = d_arg(a) + d_arg(b);
}

void lm_num_sub(lm_num *r, const lm_num *a, const lm_num *b)
{
    if (r->mp) mp_binary(mpfr_sub, r, a, b);
    else r->d = d_arg(a) - d_arg(b);
}

void lm_num_mul(lm_num *r, const lm_num *a, const lm_num *b)
{
    if (r->mp) mp_binary(mpfr_mul, r, a, b);
    else r->d = d_arg(a) * d_arg(b);
}

void lm_num_div(lm_num *r, const lm_num *a, const lm_num *b)
{
    if (r->mp) mp_binary(mpfr_div, r, a, b);
    else r->d = d_arg(a) / d_arg(b);
}

void lm_num_pow(lm_num *r, const lm_num *a, const lm_num *b)
{
    if (r->mp) mp_binary(mpfr_pow, r, a, b);
    else r->d = pow(d_arg(a), d_arg(b));
}

void lm_num_max(lm_num *r, const lm_num *a, const lm_num *b)
{
    if (r->mp) mp_binary(mpfr_max, r, a, b);
    else r->d = fmax(d_arg(a), d_arg(b));
}

void lm_num_min(lm_num *r, const lm_num *a, const lm_num *b)
{
    if (r->mp) mp_binary(mpfr_min, r, a, b);
    else r->d = fmin(d_arg(a), d_arg(b));
}

void lm_num_fma(lm_num *r, const lm_num *a, const lm_num *b, const lm_num *c)
{
    if (r->mp) {
        tmp64 ta, tb, tc;
        mpfr_fma(r->m, mp_arg(a, &ta), mp_arg(b, &tb), mp_arg(c, &tc), RND);
    } else {
        r->d = fma(d_arg(a), d_arg(b), d_arg(c));
    }
}

/* ---- arithmetic with a double ------------------------------------------ */

void lm_num_add_d(lm_num *r, const lm_num *a, double b)
{
    tmp64 t;
    if (r->mp) mpfr_add_d(r->m, mp_arg(a, &t), b, RND);
    else r->d = d_arg(a) + b;
}

void lm_num_mul_d(lm_num *r, const lm_num *a, double b)
{
    tmp64 t;
    if (r->mp) mpfr_mul_d(r->m, mp_arg(a, &t), b, RND);
    else r->d = d_arg(a) * b;
}

void lm_num_div_d(lm_num *r, const lm_num *a, double b)
{
    tmp64 t;
    if (r->mp) mpfr_div_d(r->m, mp_arg(a, &t), b, RND);
    else r->d = d_arg(a) / b;
}

void lm_num_d_sub(lm_num *r, double a, const lm_num *b)
{
    tmp64 t;
    if (r->mp) mpfr_d_sub(r->m, a, mp_arg(b, &t), RND);
    else r->d = a - d_arg(b);
}

void lm_num_pow_si(lm_num *r, const lm_num *a, long k)
{
    tmp64 t;
    if (r->mp) mpfr_pow_si(r->m, mp_arg(a, &t), k, RND);
    else r->d = pow(d_arg(a), (double)k);
}

/* ---- unary functions --------------------------------------------------- */

typedef int (*mp_un)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);

static void mp_unary(mp_un f, lm_num *r, const lm_num *a)
{
    tmp64 t;
    f(r->m, mp_arg(a, &t), RND);
}

void lm_num_neg(lm_num *r, const lm_num *a)
{
    if (r->mp) mp_unary(mpfr_neg, r, a);
    else r->d = -d_arg(a);
}

void lm_num_abs(lm_num *r, const lm_num *a)
{
    if (r->mp) mp_unary(mpfr_abs, r, a);
    else r->d = fabs(d_arg(a));
}

void lm_num_sqr(lm_num *r, const lm_num *a)
{
    if (r->mp) mp_unary(mpfr_sqr, r, a);
    else {
        double x = d_arg(a);
        r->d = x * x;
    }
}

void lm_num_sqrt(lm_num *r, const lm_num *a)
{
    if (r->mp) mp_unary(mpfr_sqrt, r, a);
    else r->d = sqrt(d_arg(a));
}

void lm_num_exp(lm_num *r, const lm_num *a)
{
    if (r->mp) mp_unary(mpfr_exp, r, a);
    else r->d = exp(d_arg(a));
}

void lm_num_log(lm_num *r, const lm_num *a)
{
    if (r->mp) mp_unary(mpfr_log, r, a);
    else r->d = log(d_arg(a));
}

void lm_num_log1p(lm_num *r, const lm_num *a)
{
    if (r->mp) mp_unary(mpfr_log1p, r, a);
    else r->d = log1p(d_arg(a));
}

void lm_num_expm1(lm_num *r, const lm_num *a)
{
    if (r->mp) mp_unary(mpfr_expm1, r, a);
    else r->d = expm1(d_arg(a));
}

/* ---- predicates -------------------------------------------------------- */

/* NaN compares equal to everything (0), as mpfr_cmp does. */
int lm_num_cmp(const lm_num *a, const lm_num *b)
{
    if (a->mp && b->mp) return mpfr_cmp(a->m, b->m);
    if (a->mp) return mpfr_cmp_d(a->m, b->d);
    if (b->mp) return -mpfr_cmp_d(b->m, a->d);
    return (a->d > b->d) - (a->d < b->d);
}

int lm_num_sgn(const lm_num *a)
{
    if (a->mp) return mpfr_nan_p(a->m) ? 0 : mpfr_sgn(a->m);
    return (a->d > 0.0) - (a->d < 0.0);
}

int lm_num_isfinite(const lm_num *a)
{
    return a->mp ? mpfr_number_p(a->m) != 0 : isfinite(a->d) != 0;
}

int lm_num_iszero(const lm_num *a)
{
    return a->mp ? mpfr_zero_p(a->m) != 0 : a->d == 0.0;
}
