/* src/verify/json.c -- a claim's result as one JSON object (`lemmata check --json`):
 * numbers with 17 significant digits, so that a violated 1+4e-06 and a holding 1-1e-11
 * never print alike. */
#include "lm_verify.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
        else if (ch == '\n') fputs("\\n", f);
        else if (ch == '\t') fputs("\\t", f);
        else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
        else fputc(ch, f);
    }
    fputc('"', f);
}

static void json_num(FILE *f, double x)
{
    if (isfinite(x)) fprintf(f, "%.17g", x); /* round-trips: 1+4e-6 and 1-1e-11 differ */
    else fputs("null", f);
}

/* The claim's counterexample, at claim level so a reader need not search the configurations:
 * the configuration the claim's verdict came from when it is violated (the runner shrinks that
 * one: lm_run_claim), else the worst violated configuration of any reading; null when nothing
 * broke.  "reproduce" runs the shrunk instance when there is one, else the instance as found. */
static void counterexample(FILE *f, const lm_claim_result *r)
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
    fputs(",\"counterexample\":", f);
    if (w < 0) {
        fputs("null", f);
        return;
    }
    const lm_config_result *c = &r->cfg[w];
    int shrunk = c->shrunk_reproduce[0] != 0;
    fputs("{\"config\":", f);
    json_str(f, c->config);
    fputs(",\"reading\":", f);
    json_str(f, lm_reading_name(c->reading));
    fputs(",\"tests\":", f);
    json_str(f, c->reading_note);
    fputs(",\"worst_ratio\":", f);
    json_num(f, c->worst_ratio);
    fputs(",\"worst\":", f);
    json_str(f, c->worst_where);
    fprintf(f, ",\"certified\":%s,\"shrunk\":%s,\"instance\":", c->certified ? "true" : "false",
            shrunk ? "true" : "false");
    /* the shrunk instance's sizes, or why it was not shrunk; null when no shrinking was tried
     * (--no-shrink, or a configuration other than the claim's worst) */
    if (c->shrunk[0]) json_str(f, c->shrunk);
    else fputs("null", f);
    fputs(",\"reproduce\":", f);
    json_str(f, shrunk ? c->shrunk_reproduce : c->reproduce);
    fputs(",\"reproduce_unshrunk\":", f);
    json_str(f, c->reproduce);
    fputs("}", f);
}

void lm_claim_result_json(FILE *f, const lm_claim_result *r, uint64_t seed)
{
    fputs("{\"id\":", f);
    json_str(f, r->claim->id);
    fputs(",\"verdict\":", f);
    json_str(f, lm_verdict_name(r->verdict));
    fputs(",\"worst_ratio\":", f);
    json_num(f, r->worst_ratio);
    fprintf(f, ",\"instances\":%ld,\"precisions\":", r->instances);
    json_str(f, r->precisions);
    fputs(",\"seconds\":", f);
    json_num(f, r->seconds);
    fputs(",\"reproduce\":", f);
    json_str(f, r->reproduce);
    fprintf(f, ",\"certified\":%s", r->certified ? "true" : "false");
    /* the paper's verdict above; the repaired and probe readings' beside it */
    fputs(",\"repaired_verdict\":", f);
    if (r->repaired_verdict >= 0) json_str(f, lm_verdict_name((lm_verdict)r->repaired_verdict));
    else fputs("null", f);
    fputs(",\"probe_verdict\":", f);
    if (r->probe_verdict >= 0) json_str(f, lm_verdict_name((lm_verdict)r->probe_verdict));
    else fputs("null", f);
    if (r->mutation[0]) {
        fputs(",\"mutation\":", f);
        json_str(f, r->mutation);
    }
    counterexample(f, r);
    fprintf(f, ",\"seed\":%llu,\"kind\":", (unsigned long long)seed);
    json_str(f, lm_kind_name(r->claim->kind));
    fputs(",\"configs\":[", f);
    for (int k = 0; k < r->nconfig; k++) {
        const lm_config_result *c = &r->cfg[k];
        fputs(k ? ",{\"config\":" : "{\"config\":", f);
        json_str(f, c->config);
        fputs(",\"verdict\":", f);
        json_str(f, lm_verdict_name(c->verdict));
        fputs(",\"reading\":", f);
        json_str(f, lm_reading_name(c->reading));
        fputs(",\"reading_note\":", f);
        json_str(f, c->reading_note);
        /* the configuration's sentence under its own name (reading_note kept for old readers) */
        fputs(",\"tests\":", f);
        json_str(f, c->reading_note);
        fputs(",\"worst_ratio\":", f);
        json_num(f, c->worst_ratio);
        fprintf(f, ",\"instances\":%ld,\"assumption_failed\":%ld,\"breaks_double\":%ld,"
                   "\"confirmed\":%ld,\"artifacts\":%ld,\"worst\":",
                c->instances, c->assumption_failed, c->breaks_double, c->confirmed, c->artifacts);
        json_str(f, c->worst_where);
        fprintf(f, ",\"certified\":%s,\"certified_bits\":%d", c->certified ? "true" : "false", c->cert_prec);
        fputs(",\"detail\":", f);
        json_str(f, c->detail);
        fprintf(f, ",\"vacuous\":%ld,\"near_misses\":%ld,\"escalation\":", c->vacuous, c->near_misses);
        json_str(f, c->escalation);
        if (c->shrunk[0]) {
            fputs(",\"shrunk\":{\"instance\":", f);
            json_str(f, c->shrunk);
            fputs(",\"reproduce\":", f);
            json_str(f, c->shrunk_reproduce);
            fprintf(f, ",\"evaluations\":%d,\"data\":", c->shrink_evals);
            json_str(f, c->shrunk_data ? c->shrunk_data : "");
            fputs("}", f);
        }
        fputs(",\"measures\":{", f); /* "name=value" lines of the worst instance */
        int first = 1;
        for (const char *p = c->measures; p && *p;) {
            const char *nl = strchr(p, '\n'), *eq = NULL;
            if (!nl) nl = p + strlen(p);
            for (const char *q = p; q < nl; q++) /* names may hold '=': the value follows the last */
                if (*q == '=') eq = q;
            if (eq && eq < nl) {
                char name[200];
                snprintf(name, sizeof name, "%.*s", (int)(eq - p), p);
                fputs(first ? "" : ",", f);
                json_str(f, name);
                fputc(':', f);
                json_num(f, strtod(eq + 1, NULL));
                first = 0;
            }
            p = *nl ? nl + 1 : nl;
        }
        fputs("}}", f);
    }
    fputs("]}\n", f);
}
