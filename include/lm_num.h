/* lm_num.h -- precision contexts and scalars.
 *
 * A context names a backend: native IEEE double, or MPFR at p bits
 * (53 <= p <= 8192).  Every numerical routine in lemmata takes the context
 * last (the MPFR/Arb convention), so a check is written once and runs in
 * either precision.  Scalars (lm_num) and matrices (lm_mat) are created for a
 * context and must only be mixed with objects of the same context.
 */
#ifndef LM_NUM_H
#define LM_NUM_H

#include <mpfr.h>
#include <stdint.h>

#define LM_PREC_MIN 53
#define LM_PREC_MAX 8192

typedef enum { LM_DOUBLE = 0, LM_MPFR = 1 } lm_backend;

typedef struct {
    lm_backend backend;
    mpfr_prec_t prec; /* 53 for LM_DOUBLE */
} lm_ctx;

/* Context constructors.  lm_ctx_mpfr clamps nothing: callers validate. */
lm_ctx lm_ctx_double(void);
lm_ctx lm_ctx_mpfr(mpfr_prec_t prec);
/* "double" or "mpfr256" etc.; bits==53 and dbl!=0 gives double. */
const char *lm_ctx_name(const lm_ctx *ctx, char *buf, int len);
/* Unit roundoff of the context: 2^-prec. */
double lm_ctx_eps(const lm_ctx *ctx);
/* log2 of the unit roundoff (usable beyond double's exponent range). */
double lm_ctx_log2eps(const lm_ctx *ctx);

/* A scalar.  In double mode only d is used; in MPFR mode only m. */
typedef struct {
    double d;
    mpfr_t m;
    int mp;
} lm_num;

void lm_num_init(lm_num *x, const lm_ctx *ctx);
void lm_num_clear(lm_num *x);
/* init/clear a NULL-terminated list */
void lm_num_inits(const lm_ctx *ctx, lm_num *x, ...);
void lm_num_clears(lm_num *x, ...);

void lm_num_set(lm_num *r, const lm_num *a);
void lm_num_set_d(lm_num *r, double a);
void lm_num_set_si(lm_num *r, long a);
void lm_num_set_str(lm_num *r, const char *s); /* decimal, e.g. "0.1" */
double lm_num_get_d(const lm_num *a);
/* natural log of |a| as a double (finite even when a over/underflows double) */
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
int lm_num_cmp(const lm_num *a, const lm_num *b); /* <0, 0, >0 */
int lm_num_sgn(const lm_num *a);
int lm_num_isfinite(const lm_num *a);
int lm_num_iszero(const lm_num *a);

/* Library versions as one string (MPFR, GMP, GSL, SQLite, OpenBLAS). */
const char *lm_versions(void);

#endif
