/* src/verify/json.c -- a claim's result as one JSON object (`lemmata check --json`), through
 * Jansson: numbers with 17 significant digits (JSON_REAL_PRECISION(17)), so that a violated
 * 1+4e-06 and a holding 1-1e-11 never print alike; what is not finite prints null. */
#include "lm_verify.h"
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

/* Jansson takes UTF-8 only: a label with a stray byte keeps its ASCII, '?' for the rest */
static json_t *str(const char *s)
{
    json_t *j = json_string(s ? s : "");
    if (j) return j;
    size_t n = strlen(s);
    char *b = malloc(n + 1);
    if (!b) return json_null();
    for (size_t i = 0; i <= n; i++) b[i] = (unsigned char)s[i] >= 0x80 ? '?' : s[i];
    j = json_string(b);
    free(b);
    return j ? j : json_null();
}

/* a 64-bit seed: a JSON integer when it fits Jansson's (signed) integers, else its digits */
static json_t *seed_json(uint64_t s)
{
    if (s <= (uint64_t)INT64_MAX) return json_integer((json_int_t)s);
    char b[32];
    snprintf(b, sizeof b, "%llu", (unsigned long long)s);
    return json_string(b);
}

/* The claim's counterexample, at claim level so a reader need not search the configurations:
 * the configuration the claim's verdict came from when it is violated (the runner shrinks that
 * one: lm_run_claim), else the worst violated configuration of any reading; null when nothing
 * broke.  "reproduce" runs the shrunk instance when there is one, else the instance as found. */
static json_t *counterexample(const lm_claim_result *r)
{
    int w = -1;
    for (int k = 0; k < r->nconfig; k++) {
        const lm_config_result *c = &r->cfg[k];
        if (c->verdict != LM_V_VIOLATED) continue;
        /* a shrunk one first (the runner shrinks only the claim's worst), then the paper's
         * reading, then the larger ratio */
        int better = w < 0;
        if (!better) {
            const lm_config_result *b = &r->cfg[w];
            int cs = c->shrunk_reproduce[0] != 0, bs = b->shrunk_reproduce[0] != 0;
            int cp = c->reading == LM_READ_PAPER, bp = b->reading == LM_READ_PAPER;
            better = cs != bs ? cs > bs : cp != bp ? cp > bp : c->worst_ratio > b->worst_ratio;
        }
        if (better) w = k;
    }
    if (w < 0) return json_null();
    const lm_config_result *c = &r->cfg[w];
    int shrunk = c->shrunk_reproduce[0] != 0;
    json_t *o = json_object();
    json_object_set_new(o, "config", str(c->config));
    json_object_set_new(o, "reading", str(lm_reading_name(c->reading)));
    json_object_set_new(o, "tests", str(c->reading_note));
    json_object_set_new(o, "worst_ratio", num(c->worst_ratio));
    json_object_set_new(o, "worst", str(c->worst_where));
    json_object_set_new(o, "certified", json_boolean(c->certified));
    json_object_set_new(o, "shrunk", json_boolean(shrunk));
    /* the shrunk instance's sizes, or why it was not shrunk; null when no shrinking was tried
     * (--no-shrink, or a configuration other than the claim's worst) */
    json_object_set_new(o, "instance", c->shrunk[0] ? str(c->shrunk) : json_null());
    json_object_set_new(o, "reproduce", str(shrunk ? c->shrunk_reproduce : c->reproduce));
    json_object_set_new(o, "reproduce_unshrunk", str(c->reproduce));
    return o;
}

/* "name=value" lines of the worst instance; names may hold '=': the value follows the last */
static json_t *measures(const char *m)
{
    json_t *o = json_object();
    for (const char *p = m; p && *p;) {
        const char *nl = strchr(p, '\n'), *eq = NULL;
        if (!nl) nl = p + strlen(p);
        for (const char *q = p; q < nl; q++)
            if (*q == '=') eq = q;
        if (eq && eq < nl) {
            char name[200];
            snprintf(name, sizeof name, "%.*s", (int)(eq - p), p);
            json_object_set_new(o, name, num(strtod(eq + 1, NULL)));
        }
        p = *nl ? nl + 1 : nl;
    }
    return o;
}

/* where a run's seconds went (lm_result.h, sec_*): "other" is what the phases leave */
static json_t *phases(double total, double rnd, double search, double replay, double esc, double cert,
                      double shrink)
{
    double other = total - rnd - search - replay - esc - cert - shrink;
    return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "random", num(rnd), "search", num(search), "replay",
                     num(replay), "escalation", num(esc), "certify", num(cert), "shrink", num(shrink), "other",
                     num(other > 0 ? other : 0));
}

static json_t *config_json(const lm_config_result *c)
{
    json_t *o = json_object();
    json_object_set_new(o, "config", str(c->config));
    json_object_set_new(o, "verdict", str(lm_verdict_name(c->verdict)));
    json_object_set_new(o, "reading", str(lm_reading_name(c->reading)));
    json_object_set_new(o, "reading_note", str(c->reading_note));
    /* the configuration's sentence under its own name (reading_note kept for old readers) */
    json_object_set_new(o, "tests", str(c->reading_note));
    json_object_set_new(o, "worst_ratio", num(c->worst_ratio));
    json_object_set_new(o, "instances", json_integer(c->instances));
    json_object_set_new(o, "assumption_failed", json_integer(c->assumption_failed));
    json_object_set_new(o, "breaks_double", json_integer(c->breaks_double));
    json_object_set_new(o, "confirmed", json_integer(c->confirmed));
    json_object_set_new(o, "artifacts", json_integer(c->artifacts));
    json_object_set_new(o, "worst", str(c->worst_where));
    json_object_set_new(o, "certified", json_boolean(c->certified));
    json_object_set_new(o, "certified_bits", json_integer(c->cert_prec));
    json_object_set_new(o, "detail", str(c->detail));
    json_object_set_new(o, "vacuous", json_integer(c->vacuous));
    json_object_set_new(o, "near_misses", json_integer(c->near_misses));
    json_object_set_new(o, "escalation", str(c->escalation));
    json_object_set_new(o, "seconds", num(c->seconds));
    json_object_set_new(o, "phases", phases(c->seconds, c->sec_random, c->sec_search, c->sec_replay,
                                            c->sec_escalate, c->sec_certify, 0));
    if (c->shrunk[0])
        json_object_set_new(o, "shrunk", json_pack("{s:s,s:s,s:i,s:s}", "instance", c->shrunk, "reproduce",
                                                   c->shrunk_reproduce, "evaluations", c->shrink_evals, "data",
                                                   c->shrunk_data ? c->shrunk_data : ""));
    json_object_set_new(o, "measures", measures(c->measures));
    return o;
}

void lm_claim_result_json(FILE *f, const lm_claim_result *r, uint64_t seed)
{
    json_t *o = json_object();
    json_object_set_new(o, "id", str(r->claim->id));
    json_object_set_new(o, "verdict", str(lm_verdict_name(r->verdict)));
    json_object_set_new(o, "worst_ratio", num(r->worst_ratio));
    json_object_set_new(o, "instances", json_integer(r->instances));
    json_object_set_new(o, "precisions", str(r->precisions));
    json_object_set_new(o, "seconds", num(r->seconds));
    json_object_set_new(o, "reproduce", str(r->reproduce));
    json_object_set_new(o, "certified", json_boolean(r->certified));
    /* the paper's verdict above; the repaired and probe readings' beside it */
    json_object_set_new(o, "repaired_verdict",
                        r->repaired_verdict >= 0 ? str(lm_verdict_name((lm_verdict)r->repaired_verdict)) : json_null());
    json_object_set_new(o, "probe_verdict",
                        r->probe_verdict >= 0 ? str(lm_verdict_name((lm_verdict)r->probe_verdict)) : json_null());
    if (r->mutation[0]) json_object_set_new(o, "mutation", str(r->mutation));
    json_object_set_new(o, "counterexample", counterexample(r));
    json_object_set_new(o, "seed", seed_json(seed));
    json_object_set_new(o, "kind", str(lm_kind_name(r->claim->kind)));
    {
        double ph[5] = {0, 0, 0, 0, 0};
        for (int k = 0; k < r->nconfig; k++) {
            const lm_config_result *c = &r->cfg[k];
            ph[0] += c->sec_random, ph[1] += c->sec_search, ph[2] += c->sec_replay;
            ph[3] += c->sec_escalate, ph[4] += c->sec_certify;
        }
        json_object_set_new(o, "phases", phases(r->seconds, ph[0], ph[1], ph[2], ph[3], ph[4], r->sec_shrink));
    }
    json_t *cfgs = json_array();
    for (int k = 0; k < r->nconfig; k++) json_array_append_new(cfgs, config_json(&r->cfg[k]));
    json_object_set_new(o, "configs", cfgs);
    json_dumpf(o, f, JSON_COMPACT | JSON_REAL_PRECISION(17));
    fputc('\n', f);
    json_decref(o);
}
