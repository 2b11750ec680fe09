/* lm_num.h -- precision contexts and scalars.
 *
 * A context names a backend: native IEEE double, MPFR at p bits
 * (53 <= p <= 8192), or Arb ball arithmetic at p bits (every number is a
 * midpoint-radius ball that provably contains the exact value of the
 * operation sequence).  Every numerical routine in lemmata takes the context
 * last (the MPFR/Arb convention), so a check is written once and runs in
 * either precision.  Scalars (lm_num) and matrices (lm_mat) are created for a
 * context and must only be mixed with objects of the same context.
 */
#ifndef LM_NUM_H
#define LM_NUM_H

#include "lm_alloc.h"
#include <mpfr.h>
#include <arb.h>
#include <stdint.h>

#define LM_PREC_MIN 53
#define LM_PREC_MAX 8192

typedef enum { LM_DOUBLE = 0, LM_MPFR = 1, LM_ARB = 2 } lm_backend;

typedef struct {
    lm_backend backend;
    mpfr_prec_t prec; /* 53 for LM_DOUBLE */
} lm_ctx;

/* Context constructors.  lm_ctx_mpfr clamps nothing: callers validate. */
lm_ctx lm_ctx_double(void);
lm_ctx lm_ctx_mpfr(mpfr_prec_t prec);
/* Arb balls whose operations run at prec bits */
lm_ctx lm_ctx_arb(mpfr_prec_t prec);
/* "double", "mpfr256" or "arb256" etc. */
const char *lm_ctx_name(const lm_ctx *ctx, char *buf, int len);
/* Unit roundoff of the context, 2^-prec, as a double: never below 2^-1074 (past 1074 bits
 * it is that, the smallest positive double, where 2^-prec would underflow to 0 and make a
 * tolerance 0); lm_num_set_eps gives it exactly. */
double lm_ctx_eps(const lm_ctx *ctx);
/* log2 of the unit roundoff (usable beyond double's exponent range). */
double lm_ctx_log2eps(const lm_ctx *ctx);

/* A scalar.  In double mode only d is used; in MPFR mode (mp != 0) only
 * m; in Arb mode (ab != 0, mp == 0) only b, operations at precision ap. */
typedef struct {
    double d;
    mpfr_t m;
    int mp;
    int ab;
    arb_t b;
    mpfr_prec_t ap;
} lm_num;

void lm_num_init(lm_num *x, const lm_ctx *ctx);
void lm_num_clear(lm_num *x);
/* init/clear a NULL-terminated list */
void lm_num_inits(const lm_ctx *ctx, lm_num *x, ...);
void lm_num_clears(lm_num *x, ...);

void lm_num_set(lm_num *r, const lm_num *a);
void lm_num_set_d(lm_num *r, double a);
void lm_num_set_si(lm_num *r, long a);
/* r = the unit roundoff u = 2^lm_ctx_log2eps(ctx) of ctx, exactly (lm_ctx_eps is a double and
 * stops at 2^-1074): the unit to state a tolerance in */
void lm_num_set_eps(lm_num *r, const lm_ctx *ctx);
void lm_num_set_str(lm_num *r, const char *s); /* decimal, e.g. "0.1" */
/* Arb: the midpoint rounded to double */
double lm_num_get_d(const lm_num *a);
/* natural log of |a| as a double (finite even when a over/underflows double);
 * Arb: of |midpoint| */
double lm_num_log_abs_d(const lm_num *a);

void lm_num_add(lm_num *r, const lm_num *a, const lm_num *b);
void lm_num_sub(lm_num *r, const lm_num *a, const lm_num *b);
void lm_num_mul(lm_num *r, const lm_num *a, const lm_num *b);
void lm_num_div(lm_num *r, const lm_num *a, const lm_num *b);
void lm_num_add_d(lm_num *r, const lm_num *a, double b);
void lm_num_mul_d(lm_num *r, const lm_num *a, double b);
void lm_num_div_d(lm_num *r, const lm_num *a, double b);
void lm_num_d_sub(lm_num *r, double a, const lm_num *b); /* r = a - b */
void lm_num_neg(lm_num *r, const lm_num *a);
void lm_num_abs(lm_num *r, const lm_num *a);
void lm_num_sqr(lm_num *r, const lm_num *a);
void lm_num_sqrt(lm_num *r, const lm_num *a);
void lm_num_exp(lm_num *r, const lm_num *a);
void lm_num_log(lm_num *r, const lm_num *a);
void lm_num_log1p(lm_num *r, const lm_num *a);
void lm_num_expm1(lm_num *r, const lm_num *a);
void lm_num_pow_si(lm_num *r, const lm_num *a, long k);
void lm_num_pow(lm_num *r, const lm_num *a, const lm_num *b);
void lm_num_max(lm_num *r, const lm_num *a, const lm_num *b);
void lm_num_min(lm_num *r, const lm_num *a, const lm_num *b);
/* r = a*b + c */
void lm_num_fma(lm_num *r, const lm_num *a, const lm_num *b, const lm_num *c);
/* Control-flow predicates.  For Arb balls cmp, sgn and iszero look at the
 * MIDPOINTS only (they choose a branch, they certify nothing); isfinite is
 * arb_is_finite (finite midpoint and radius).  lm_num_max/min are the
 * rigorous arb_max/arb_min. */
int lm_num_cmp(const lm_num *a, const lm_num *b); /* <0, 0, >0 */
int lm_num_sgn(const lm_num *a);
int lm_num_isfinite(const lm_num *a);
int lm_num_iszero(const lm_num *a);
/* 1 iff a > b for every point of the balls (Arb: arb_gt); double/MPFR: a > b */
int lm_num_certainly_gt(const lm_num *a, const lm_num *b);
/* [lo, hi] encloses a (outward-rounded to double); double/MPFR: lo = hi = a */
void lm_num_bounds_d(const lm_num *a, double *lo, double *hi);
/* 1 iff the Arb ball a contains the MPFR number x; for a double/MPFR a,
 * 1 iff a == x (test helper) */
int lm_num_contains_mpfr(const lm_num *a, mpfr_srcptr x);

/* Arb taint counter (thread-local): incremented by every routine that ran
 * in an Arb context without a rigorous enclosure (decompositions computed
 * on the midpoints in MPFR and returned as exact balls).  A nonzero count
 * means the evaluation is NOT certifiable. */
void lm_arb_taint_reset(void);
long lm_arb_taint(void);
void lm_arb_taint_add(long k);

/* Library versions as one string (MPFR, GMP, GSL, SQLite, OpenBLAS, Arb, FLINT). */
const char *lm_versions(void);

#endif
