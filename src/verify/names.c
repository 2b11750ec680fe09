/* names.c -- verdict and kind names (the words the report and JSON use). */
#include "lm_verify.h"
#include <string.h>

static const char *const verdict_names[LM_V_COUNT] = {
    "holds", "consistent", "not-checkable", "artifact", "assumption-failed",
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
