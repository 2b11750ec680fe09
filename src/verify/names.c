/* names.c -- verdict and kind names (the words the report and JSON use). */
#include "lm_verify.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static const char *const verdict_names[LM_V_COUNT] = {
    "holds", "consistent", "vacuous", "not-checkable", "artifact", "assumption-failed",
    "error", "inconsistent", "violated"};

const char *lm_verdict_name(lm_verdict v)
{
    return (v >= 0 && v < LM_V_COUNT) ? verdict_names[v] : "?";
}

int lm_verdict_from_name(const char *s)
{
    for (int v = 0; v < LM_V_COUNT; v++)
        if (strcmp(s, verdict_names[v]) == 0)
            return v;
    return -1;
}

static const char *const kind_names[LM_KIND_COUNT] = {
    "along-trajectory inequality", "pointwise inequality", "identity",
    "existence/structural claim", "rate/asymptotic claim", "probabilistic claim"};

const char *lm_kind_name(lm_kind k)
{
    return (k >= 0 && k < LM_KIND_COUNT) ? kind_names[k] : "?";
}

/* Ratios near 1 are where verdicts are decided: print 1+1.2e-10 rather than
 * a bare "1", so a reader can tell a tight hold from a tight break. */
const char *lm_fmt_ratio(char *buf, int n, double r)
{
    if (!isfinite(r)) snprintf(buf, (size_t)n, r > 0 ? "inf" : "--");
    else if (r != 1.0 && fabs(r - 1.0) < 5e-3) snprintf(buf, (size_t)n, "1%+.2g", r - 1.0);
    else snprintf(buf, (size_t)n, "%.3g", r); /* beyond 5e-3 three digits tell 1.01 from 1 */
    return buf;
}

int lm_parse_long(const char *s, long lo, long hi, long *out)
{
    char *e;
    errno = 0;
    if (!s || !*s) return -1;
    long v = strtol(s, &e, 10);
    if (*e || errno || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

const char *lm_reading_name(lm_reading_kind k)
{
    static const char *const names[LM_READ_COUNT] = {"paper", "repaired", "probe"};
    return (k >= 0 && k < LM_READ_COUNT) ? names[k] : "?";
}
