/* ctx.c -- precision contexts and the library version string.
 *
 * A context is either IEEE double (unit roundoff u = 2^-53) or MPFR at p
 * bits with round-to-nearest (u = 2^-p).  lm_ctx_eps returns u as a double,
 * and 2^-1074 (the smallest positive double) once p > 1074, where u itself would underflow
 * to 0: a tolerance stated in it is then looser than u, though still far below anything a
 * real break could hide in; lm_num_set_eps (lm_num.h) gives u exactly, and lm_ctx_log2eps
 * (= -p) never underflows.
 * An Arb context at p bits has the same eps as MPFR at p bits (the midpoint
 * of each result is rounded at p bits; the radius accounts for it).
 *
 * The Arb taint counter lives here too (thread-local, see lm_num.h).
 */
#include <arb.h>
#include <gmp.h>
#include <gsl/gsl_version.h>
#include <math.h>
#include <jansson.h>
#include <sleef.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "lm_num.h"

/* OpenBLAS exports this (declared in its cblas.h, which we do not include). */
extern char *openblas_get_config(void);

lm_ctx lm_ctx_double(void)
{
    lm_ctx c = { LM_DOUBLE, 53 };
    return c;
}

lm_ctx lm_ctx_mpfr(mpfr_prec_t prec)
{
    lm_ctx c = { LM_MPFR, prec };
    return c;
}

lm_ctx lm_ctx_arb(mpfr_prec_t prec)
{
    lm_ctx c = { LM_ARB, prec };
    return c;
}

const char *lm_ctx_name(const lm_ctx *ctx, char *buf, int len)
{
    if (!buf || len <= 0) return "";
    if (ctx->backend == LM_DOUBLE)
        snprintf(buf, (size_t)len, "double");
    else if (ctx->backend == LM_ARB)
        snprintf(buf, (size_t)len, "arb%ld", (long)ctx->prec);
    else
        snprintf(buf, (size_t)len, "mpfr%ld", (long)ctx->prec);
    return buf;
}

double lm_ctx_eps(const lm_ctx *ctx)
{
    /* never below the smallest positive double: past 1074 bits 2^-p underflows to 0, and a
     * tolerance of 0 turns rounding into a violation */
    double e = lm_ctx_log2eps(ctx);
    return ldexp(1.0, e < -1074.0 ? -1074 : (int)e);
}

double lm_ctx_log2eps(const lm_ctx *ctx)
{
    return ctx->backend == LM_DOUBLE ? -53.0 : -(double)ctx->prec;
}

const char *lm_versions(void)
{
    static char buf[768];
    const char *ob = openblas_get_config(); /* "OpenBLAS 0.3.21 <build flags>" */
    if (!ob) ob = "OpenBLAS (unknown)";
    snprintf(buf, sizeof buf, "MPFR %s, GMP %s, GSL %s, SQLite %s, %s%s, Arb %s, FLINT %s, Jansson %s, SLEEF %d.%d.%d",
             mpfr_get_version(), gmp_version, gsl_version, sqlite3_libversion(),
             strncmp(ob, "OpenBLAS", 8) ? "OpenBLAS " : "", ob, arb_version, flint_version, jansson_version_str(),
             SLEEF_VERSION_MAJOR, SLEEF_VERSION_MINOR, SLEEF_VERSION_PATCHLEVEL);
    return buf;
}

static _Thread_local long arb_taint;

void lm_arb_taint_reset(void)
{
    arb_taint = 0;
}

long lm_arb_taint(void)
{
    return arb_taint;
}

void lm_arb_taint_add(long k)
{
    arb_taint += k;
}
