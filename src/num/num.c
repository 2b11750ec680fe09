/* num.c -- scalar arithmetic over a precision context.
 *
 * Double scalars use IEEE arithmetic and libm (glibc: +,-,*,/,sqrt,fma
 * correctly rounded; exp/log/pow/expm1/log1p within about 1 ulp).  MPFR
 * scalars use mpfr_* with MPFR_RNDN at the destination's precision, so
 * every operation is correctly rounded: |fl(x) - x| <= 2^-p |x|.  Arb
 * scalars use arb_* ball operations at the scalar's precision ap: the result
 * ball contains the exact result for every point of the operand balls.
 *
 * The destination decides the backend.  Operands are supposed to share its
 * context; if one does not, it is converted (a double operand is viewed
 * exactly as a 64-bit MPFR number on the stack, an MPFR operand is rounded
 * to double) rather than read from an uninitialised field.  A double or MPFR
 * operand of an Arb destination becomes an exact ball (zero radius); an Arb
 * operand of a double/MPFR destination contributes its midpoint.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>

#include "lm_num.h"
#include "num_priv.h"

#define RND MPFR_RNDN

/* Stack storage for an exact MPFR view of a double (64 >= 53 bits); an Arb
 * operand's midpoint goes to the heap number h (released by tmp_done). */
typedef struct {
    mpfr_t m;
    mp_limb_t limb[2];
    mpfr_t h;
    int heap;
} tmp64;

static mpfr_srcptr mp_arg(const lm_num *a, tmp64 *t)
{
    t->heap = 0;
    if (a->mp) return a->m;
    if (a->ab) {
        lm_arf_init_mpfr(t->h, arb_midref(a->b));
        t->heap = 1;
        return t->h;
    }
    mpfr_custom_init(t->limb, 64);
    mpfr_custom_init_set(t->m, MPFR_ZERO_KIND, 0, 64, t->limb);
    mpfr_set_d(t->m, a->d, RND);
    return t->m;
}

static void tmp_done(tmp64 *t)
{
    if (t->heap) mpfr_clear(t->h);
    t->heap = 0;
}

static double d_arg(const lm_num *a)
{
    if (a->ab) return arf_get_d(arb_midref(a->b), ARF_RND_NEAR);
    return a->mp ? mpfr_get_d(a->m, RND) : a->d;
}

/* ---- Arb helpers (shared with linalg through num_priv.h) --------------- */

/* y = x exactly (y initialised here with enough bits); exponents beyond
 * MPFR's range become +-inf or +-0 */
void lm_arf_init_mpfr(mpfr_ptr y, const arf_t x)
{
    slong bits = arf_bits(x);
    mpfr_init2(y, bits < MPFR_PREC_MIN ? MPFR_PREC_MIN : (mpfr_prec_t)bits);
    lm_arf_get_mpfr(y, x);
}

/* y = round(x) to y's precision, exponent range safe */
void lm_arf_get_mpfr(mpfr_ptr y, const arf_t x)
{
    if (!arf_is_special(x) && arf_cmpabs_2exp_si(x, (slong)mpfr_get_emax()) >= 0) {
        mpfr_set_inf(y, arf_sgn(x));
        return;
    }
    if (!arf_is_special(x) && arf_cmpabs_2exp_si(x, (slong)mpfr_get_emin() - 2) < 0) {
        mpfr_set_zero(y, arf_sgn(x));
        return;
    }
    arf_get_mpfr(y, x, RND);
}

/* exact ball of an MPFR number */
void lm_arb_set_mpfr(arb_t y, mpfr_srcptr x)
{
    arf_set_mpfr(arb_midref(y), x);
    mag_zero(arb_radref(y));
}

/* y = a as a ball (exact for double/MPFR a) */
void lm_arb_set_num(arb_t y, const lm_num *a)
{
    if (a->ab) arb_set(y, a->b);
    else if (a->mp) lm_arb_set_mpfr(y, a->m);
    else arb_set_d(y, a->d);
}

/* r = x (exact into Arb; the midpoint rounded into double/MPFR) */
void lm_num_set_arb(lm_num *r, const arb_t x)
{
    if (r->ab) arb_set(r->b, x);
    else if (r->mp) lm_arf_get_mpfr(r->m, arb_midref(x));
    else r->d = arf_get_d(arb_midref(x), ARF_RND_NEAR);
}

/* Ball operand of an Arb destination: a itself, or an exact ball in t
 * (t must be initialised by the caller and cleared afterwards). */
static arb_srcptr ab_arg(const lm_num *a, arb_t t)
{
    if (a->ab) return a->b;
    lm_arb_set_num(t, a);
    return t;
}

/* ---- lifetime ---------------------------------------------------------- */

void lm_num_init(lm_num *x, const lm_ctx *ctx)
{
    x->d = 0.0;
    x->mp = ctx->backend == LM_MPFR;
    x->ab = ctx->backend == LM_ARB;
    x->ap = ctx->prec;
    if (x->ab) arb_init(x->b);
    if (x->mp) {
        mpfr_init2(x->m, ctx->prec);
        mpfr_set_zero(x->m, 1);
    }
}

void lm_num_clear(lm_num *x)
{
    if (x->mp) mpfr_clear(x->m);
    if (x->ab) arb_clear(x->b);
    x->mp = 0;
    x->ab = 0;
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
    if (r->ab) lm_arb_set_num(r->b, a);
    else if (a->ab) lm_num_set_arb(r, a->b);
    else if (!r->mp) r->d = d_arg(a);
    else if (a->mp) mpfr_set(r->m, a->m, RND);
    else mpfr_set_d(r->m, a->d, RND);
}

void lm_num_set_d(lm_num *r, double a)
{
    if (r->ab) arb_set_d(r->b, a);
    else if (r->mp) mpfr_set_d(r->m, a, RND);
    else r->d = a;
}

void lm_num_set_eps(lm_num *r, const lm_ctx *ctx)
{
    long e = lrint(lm_ctx_log2eps(ctx));
    if (r->ab) {
        arb_one(r->b);
        arb_mul_2exp_si(r->b, r->b, e);
    } else if (r->mp) mpfr_set_si_2exp(r->m, 1, e, RND);
    else r->d = ldexp(1.0, (int)e);
}

void lm_num_set_si(lm_num *r, long a)
{
    if (r->ab) arb_set_si(r->b, a);
    else if (r->mp) mpfr_set_si(r->m, a, RND);
    else r->d = (double)a;
}

void lm_num_set_str(lm_num *r, const char *s)
{
    if (r->ab) {
        /* a ball containing the decimal value (exact when representable) */
        if (arb_set_str(r->b, s, r->ap) != 0) arb_indeterminate(r->b);
    } else if (r->mp) {
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
    if (a->ab) {
        arf_srcptr x = arb_midref(a->b);
        if (arf_is_nan(x)) return NAN;
        if (arf_is_zero(x)) return -INFINITY;
        if (arf_is_inf(x)) return INFINITY;
        arf_t m;
        fmpz_t e;
        arf_init(m);
        fmpz_init(e);
        fmpz_neg(e, ARF_EXPREF(x));
        arf_mul_2exp_fmpz(m, x, e); /* x = m 2^-e, |m| in [1/2, 1) */
        double r = log(fabs(arf_get_d(m, ARF_RND_NEAR))) - fmpz_get_d(e) * M_LN2;
        arf_clear(m);
        fmpz_clear(e);
        return r;
    }
    if (!a->mp) return log(fabs(a->d));
    if (mpfr_nan_p(a->m)) return NAN;
    if (mpfr_zero_p(a->m)) return -INFINITY;
    if (mpfr_inf_p(a->m)) return INFINITY;
    long e;
    double m = mpfr_get_d_2exp(&e, a->m, RND);
    return log(fabs(m)) + (double)e * M_LN2;
}

/* ---- Arb dispatch ------------------------------------------------------ */

typedef void (*ab_bin)(arb_t, const arb_t, const arb_t, slong);
typedef void (*ab_un)(arb_t, const arb_t, slong);

static void ab_binary(ab_bin f, lm_num *r, const lm_num *a, const lm_num *b)
{
    arb_t ta, tb;
    arb_init(ta);
    arb_init(tb);
    f(r->b, ab_arg(a, ta), ab_arg(b, tb), r->ap);
    arb_clear(ta);
    arb_clear(tb);
}

static void ab_unary(ab_un f, lm_num *r, const lm_num *a)
{
    arb_t t;
    arb_init(t);
    f(r->b, ab_arg(a, t), r->ap);
    arb_clear(t);
}

/* r = f(a, b) for a double b (an exact ball) */
static void ab_binary_d(ab_bin f, lm_num *r, const lm_num *a, double b, int swap)
{
    arb_t ta, tb;
    arb_init(ta);
    arb_init(tb);
    arb_set_d(tb, b);
    arb_srcptr x = ab_arg(a, ta);
    if (swap) f(r->b, tb, x, r->ap);
    else f(r->b, x, tb, r->ap);
    arb_clear(ta);
    arb_clear(tb);
}

static void ab_neg(arb_t r, const arb_t a, slong prec)
{
    arb_neg(r, a);
}

static void ab_abs(arb_t r, const arb_t a, slong prec)
{
    arb_abs(r, a);
}

/* ---- binary arithmetic ------------------------------------------------- */

typedef int (*mp_bin)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t);

static void mp_binary(mp_bin f, lm_num *r, const lm_num *a, const lm_num *b)
{
    tmp64 ta, tb;
    f(r->m, mp_arg(a, &ta), mp_arg(b, &tb), RND);
    tmp_done(&ta);
    tmp_done(&tb);
}

void lm_num_add(lm_num *r, const lm_num *a, const lm_num *b)
{
    if (r->ab) ab_binary(arb_add, r, a, b);
    else if (r->mp) mp_binary(mpfr_add, r, a, b);
    else r->d = d_arg(a) + d_arg(b);
}

void lm_num_sub(lm_num *r, const lm_num *a, const lm_num *b)
{
    if (r->ab) ab_binary(arb_sub, r, a, b);
    else if (r->mp) mp_binary(mpfr_sub, r, a, b);
    else r->d = d_arg(a) - d_arg(b);
}

void lm_num_mul(lm_num *r, const lm_num *a, const lm_num *b)
{
    if (r->ab) ab_binary(arb_mul, r, a, b);
    else if (r->mp) mp_binary(mpfr_mul, r, a, b);
    else r->d = d_arg(a) * d_arg(b);
}

void lm_num_div(lm_num *r, const lm_num *a, const lm_num *b)
{
    if (r->ab) ab_binary(arb_div, r, a, b);
    else if (r->mp) mp_binary(mpfr_div, r, a, b);
    else r->d = d_arg(a) / d_arg(b);
}

void lm_num_pow(lm_num *r, const lm_num *a, const lm_num *b)
{
    if (r->ab) ab_binary(arb_pow, r, a, b);
    else if (r->mp) mp_binary(mpfr_pow, r, a, b);
    else r->d = pow(d_arg(a), d_arg(b));
}

void lm_num_max(lm_num *r, const lm_num *a, const lm_num *b)
{
    if (r->ab) ab_binary(arb_max, r, a, b);
    else if (r->mp) mp_binary(mpfr_max, r, a, b);
    else r->d = fmax(d_arg(a), d_arg(b));
}

void lm_num_min(lm_num *r, const lm_num *a, const lm_num *b)
{
    if (r->ab) ab_binary(arb_min, r, a, b);
    else if (r->mp) mp_binary(mpfr_min, r, a, b);
    else r->d = fmin(d_arg(a), d_arg(b));
}

void lm_num_fma(lm_num *r, const lm_num *a, const lm_num *b, const lm_num *c)
{
    if (r->ab) {
        arb_t ta, tb, tc;
        arb_init(ta);
        arb_init(tb);
        arb_init(tc);
        arb_fma(r->b, ab_arg(a, ta), ab_arg(b, tb), ab_arg(c, tc), r->ap);
        arb_clear(ta);
        arb_clear(tb);
        arb_clear(tc);
    } else if (r->mp) {
        tmp64 ta, tb, tc;
        mpfr_fma(r->m, mp_arg(a, &ta), mp_arg(b, &tb), mp_arg(c, &tc), RND);
        tmp_done(&ta);
        tmp_done(&tb);
        tmp_done(&tc);
    } else {
        r->d = fma(d_arg(a), d_arg(b), d_arg(c));
    }
}

/* ---- arithmetic with a double ------------------------------------------ */

typedef int (*mp_bin_d)(mpfr_ptr, mpfr_srcptr, double, mpfr_rnd_t);

static void mp_binary_d(mp_bin_d f, lm_num *r, const lm_num *a, double b)
{
    tmp64 t;
    f(r->m, mp_arg(a, &t), b, RND);
    tmp_done(&t);
}

void lm_num_add_d(lm_num *r, const lm_num *a, double b)
{
    if (r->ab) ab_binary_d(arb_add, r, a, b, 0);
    else if (r->mp) mp_binary_d(mpfr_add_d, r, a, b);
    else r->d = d_arg(a) + b;
}

void lm_num_mul_d(lm_num *r, const lm_num *a, double b)
{
    if (r->ab) ab_binary_d(arb_mul, r, a, b, 0);
    else if (r->mp) mp_binary_d(mpfr_mul_d, r, a, b);
    else r->d = d_arg(a) * b;
}

void lm_num_div_d(lm_num *r, const lm_num *a, double b)
{
    if (r->ab) ab_binary_d(arb_div, r, a, b, 0);
    else if (r->mp) mp_binary_d(mpfr_div_d, r, a, b);
    else r->d = d_arg(a) / b;
}

void lm_num_d_sub(lm_num *r, double a, const lm_num *b)
{
    tmp64 t;
    if (r->ab) ab_binary_d(arb_sub, r, b, a, 1);
    else if (r->mp) {
        mpfr_d_sub(r->m, a, mp_arg(b, &t), RND);
        tmp_done(&t);
    } else r->d = a - d_arg(b);
}

void lm_num_pow_si(lm_num *r, const lm_num *a, long k)
{
    tmp64 t;
    if (r->ab) {
        arb_t ta;
        fmpz_t e;
        arb_init(ta);
        fmpz_init(e);
        fmpz_set_si(e, k);
        arb_pow_fmpz(r->b, ab_arg(a, ta), e, r->ap);
        fmpz_clear(e);
        arb_clear(ta);
    } else if (r->mp) {
        mpfr_pow_si(r->m, mp_arg(a, &t), k, RND);
        tmp_done(&t);
    } else r->d = pow(d_arg(a), (double)k);
}

/* ---- unary functions --------------------------------------------------- */

typedef int (*mp_un)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);

static void mp_unary(mp_un f, lm_num *r, const lm_num *a)
{
    tmp64 t;
    f(r->m, mp_arg(a, &t), RND);
    tmp_done(&t);
}

void lm_num_neg(lm_num *r, const lm_num *a)
{
    if (r->ab) ab_unary(ab_neg, r, a);
    else if (r->mp) mp_unary(mpfr_neg, r, a);
    else r->d = -d_arg(a);
}

void lm_num_abs(lm_num *r, const lm_num *a)
{
    if (r->ab) ab_unary(ab_abs, r, a);
    else if (r->mp) mp_unary(mpfr_abs, r, a);
    else r->d = fabs(d_arg(a));
}

void lm_num_sqr(lm_num *r, const lm_num *a)
{
    if (r->ab) ab_unary(arb_sqr, r, a);
    else if (r->mp) mp_unary(mpfr_sqr, r, a);
    else {
        double x = d_arg(a);
        r->d = x * x;
    }
}

void lm_num_sqrt(lm_num *r, const lm_num *a)
{
    if (r->ab) ab_unary(arb_sqrt, r, a);
    else if (r->mp) mp_unary(mpfr_sqrt, r, a);
    else r->d = sqrt(d_arg(a));
}

void lm_num_exp(lm_num *r, const lm_num *a)
{
    if (r->ab) ab_unary(arb_exp, r, a);
    else if (r->mp) mp_unary(mpfr_exp, r, a);
    else r->d = exp(d_arg(a));
}

void lm_num_log(lm_num *r, const lm_num *a)
{
    if (r->ab) ab_unary(arb_log, r, a);
    else if (r->mp) mp_unary(mpfr_log, r, a);
    else r->d = log(d_arg(a));
}

void lm_num_log1p(lm_num *r, const lm_num *a)
{
    if (r->ab) ab_unary(arb_log1p, r, a);
    else if (r->mp) mp_unary(mpfr_log1p, r, a);
    else r->d = log1p(d_arg(a));
}

void lm_num_expm1(lm_num *r, const lm_num *a)
{
    if (r->ab) ab_unary(arb_expm1, r, a);
    else if (r->mp) mp_unary(mpfr_expm1, r, a);
    else r->d = expm1(d_arg(a));
}

/* ---- predicates -------------------------------------------------------- */

/* NaN compares equal to everything (0), as mpfr_cmp does.  Arb: midpoints
 * (arf_cmp is 0 when either is NaN). */
int lm_num_cmp(const lm_num *a, const lm_num *b)
{
    if (a->ab || b->ab) {
        arb_t ta, tb;
        arb_init(ta);
        arb_init(tb);
        int c = arf_cmp(arb_midref(ab_arg(a, ta)), arb_midref(ab_arg(b, tb)));
        arb_clear(ta);
        arb_clear(tb);
        return c;
    }
    if (a->mp && b->mp) return mpfr_cmp(a->m, b->m);
    if (a->mp) return mpfr_cmp_d(a->m, b->d);
    if (b->mp) return -mpfr_cmp_d(b->m, a->d);
    return (a->d > b->d) - (a->d < b->d);
}

int lm_num_sgn(const lm_num *a)
{
    if (a->ab) return arf_is_nan(arb_midref(a->b)) ? 0 : arf_sgn(arb_midref(a->b));
    if (a->mp) return mpfr_nan_p(a->m) ? 0 : mpfr_sgn(a->m);
    return (a->d > 0.0) - (a->d < 0.0);
}

int lm_num_isfinite(const lm_num *a)
{
    if (a->ab) return arb_is_finite(a->b) != 0;
    return a->mp ? mpfr_number_p(a->m) != 0 : isfinite(a->d) != 0;
}

int lm_num_iszero(const lm_num *a)
{
    if (a->ab) return arf_is_zero(arb_midref(a->b)) != 0;
    return a->mp ? mpfr_zero_p(a->m) != 0 : a->d == 0.0;
}

int lm_num_certainly_gt(const lm_num *a, const lm_num *b)
{
    if (!a->ab && !b->ab) return lm_num_cmp(a, b) > 0; /* NaN: cmp is 0 */
    arb_t ta, tb;
    arb_init(ta);
    arb_init(tb);
    int g = arb_gt(ab_arg(a, ta), ab_arg(b, tb)) != 0;
    arb_clear(ta);
    arb_clear(tb);
    return g;
}

void lm_num_bounds_d(const lm_num *a, double *lo, double *hi)
{
    if (!a->ab) {
        *lo = *hi = d_arg(a);
        return;
    }
    arf_t t;
    arf_init(t);
    arb_get_lbound_arf(t, a->b, 53);
    *lo = arf_get_d(t, ARF_RND_FLOOR);
    arb_get_ubound_arf(t, a->b, 53);
    *hi = arf_get_d(t, ARF_RND_CEIL);
    arf_clear(t);
}

int lm_num_contains_mpfr(const lm_num *a, mpfr_srcptr x)
{
    if (a->ab) return arb_contains_mpfr(a->b, x) != 0;
    if (a->mp) return mpfr_equal_p(a->m, x) != 0;
    return mpfr_cmp_d(x, a->d) == 0 && !mpfr_nan_p(x) && !isnan(a->d);
}
