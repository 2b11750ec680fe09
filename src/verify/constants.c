/* src/verify/constants.c -- which parameters are constants, and how much slack a measured
 * constant has (the rule is in lm_constants.h).  The command that measures them all,
 * `lemmata constants`, is src/cli/constants.c. */
#include "lm_constants.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static int ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

int lm_param_is_constant(const char *name, double def, const char *choices, const char *doc)
{
    if (!name || !*name || (choices && *choices)) return 0;
    if (!isfinite(def) || !(def > 0)) return 0;
    if (!doc) doc = "";
    int named = ends_with(name, "_scale") || ends_with(name, "_factor") || ends_with(name, "_coef") ||
                !strcmp(name, "coef");
    int says = !strncasecmp(doc, "multiplies", 10) || !strncasecmp(doc, "multiplier", 10);
    if (!named && !says) return 0;
    /* settings of the harness, not constants of the paper */
    if (strstr(name, "tol") || !strncmp(name, "tau", 3)) return 0;
    if (!strcmp(name, "eta_scale") || !strncmp(name, "steps", 5) || !strncmp(name, "iters", 5) ||
        !strncmp(name, "gen_", 4) || !strncmp(name, "viol_", 5))
        return 0;
    static const char *const setting_words[] = {"tolerance", "rounding", "step size", "deliberately", NULL};
    for (int k = 0; setting_words[k]; k++)
        if (strcasestr(doc, setting_words[k])) return 0;
    return 1;
}

int lm_param_def_is_constant(const lm_param_def *p)
{
    switch (lm_param_role_of(p)) {
    case LM_ROLE_CONSTANT: return isfinite(p->def) && p->def > 0; /* tighten brackets geometrically */
    case LM_ROLE_EXPONENT:
    case LM_ROLE_SETTING: return 0;
    default: return lm_param_is_constant(p->name, p->def, p->choices, p->doc);
    }
}

int lm_claim_constants(const lm_claim *c, int *idx, int max)
{
    int n = 0;
    for (int k = 0; c->params && c->params[k].name; k++) {
        const lm_param_def *p = &c->params[k];
        if (!lm_param_def_is_constant(p)) continue;
        if (n < max) idx[n] = k;
        n++;
    }
    return n;
}

/* ---- slack and its class ------------------------------------------------------------------ */

double lm_constant_slack(const lm_constant_row *r)
{
    if (!(r->stated > 0) || !(r->sharpest > 0) || !isfinite(r->stated) || !isfinite(r->sharpest))
        return NAN;
    if (r->direction < 0) return r->stated / r->sharpest;
    if (r->direction > 0) return r->sharpest / r->stated;
    return NAN;
}

lm_slack_class lm_constant_class(const lm_constant_row *r)
{
    lm_verdict v = r->stated_verdict;
    if (v == LM_V_VIOLATED || v == LM_V_INCONSISTENT) return LM_SLACK_FAILS;
    if (v != LM_V_HOLDS && v != LM_V_CONSISTENT && v != LM_V_ARTIFACT) return LM_SLACK_UNDECIDED;
    double s = lm_constant_slack(r);
    if (!isnan(s)) return s < 2 ? LM_SLACK_TIGHT : s <= 100 ? LM_SLACK_LOOSE : LM_SLACK_VERY_LOOSE;
    /* passes as stated and nothing broke it -- unless the run cap cut the walk short, or nothing
     * was run at all (no value seen to pass: a skipped or failed search says nothing) */
    if (r->direction == 0 && isnan(r->breaks_at) && isfinite(r->sharpest) && (r->decided || r->runs < r->max_runs))
        return LM_SLACK_NO_BREAK;
    return LM_SLACK_UNDECIDED;
}

lm_measured lm_constant_measured(const lm_constant_row *r)
{
    lm_slack_class c = lm_constant_class(r);
    if (c == LM_SLACK_UNDECIDED) return LM_MEASURED_NOT;
    /* failing as stated is the verdict's own news; the slack is measured only when the value
     * where the claim first holds was found */
    if (c == LM_SLACK_FAILS && !isfinite(lm_constant_slack(r))) return LM_MEASURED_NOT;
    if (c == LM_SLACK_NO_BREAK) return LM_MEASURED_NO_BREAK;
    return !strcmp(r->method, "read off") ? LM_MEASURED_READ_OFF : LM_MEASURED_BISECTED;
}

const char *lm_slack_class_name(lm_slack_class k)
{
    static const char *const names[LM_SLACK_COUNT] = {"tight",    "loose",    "very loose",
                                                      "fails",    "no break", "undecided"};
    return k >= 0 && k < LM_SLACK_COUNT ? names[k] : "undecided";
}

