/* tighten.c -- lemmata tighten ID PARAM.
 * Exit status: 0 when the search ran (decided or not: "decided" in --json; a claim that comes
 * out `error` at the stated value is a verdict, as in check), 2 on a usage error
 * (including a PARAM that is not one of the claim's constants: a switch, a size, a run length,
 * a tolerance). */
#include "cli.h"
#include "lm_constants.h"
#include <jansson.h>

#define tighten_usage lm_cli_needs

/* "ID PARAM is not a constant; its constants are: a, b" or "...; ID has no constants" */
static int not_a_constant(const lm_claim *c, const lm_param_def *p)
{
    int idx[64];
    int n = lm_claim_constants(c, idx, 64);
    const char *what = p->choices ? " (a switch)" : "";
    if (n == 0) {
        fprintf(stderr, "lemmata: %s %s is not a constant%s; %s has no constants\n", c->id, p->name, what, c->id);
        return LM_EXIT_USAGE;
    }
    fprintf(stderr, "lemmata: %s %s is not a constant%s; its constants are:", c->id, p->name, what);
    for (int k = 0; k < n && k < 64; k++) fprintf(stderr, "%s %s", k ? "," : "", c->params[idx[k]].name);
    fprintf(stderr, "\n");
    return LM_EXIT_USAGE;
}

/* lemmata tighten ID PARAM: bisection on one constant (lm_tighten) */
int lm_cmd_tighten(int argc, char **argv)
{
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.progress = 1; /* lm_tighten: one line per claim run on stderr */
    int json = 0;
    long max_runs = 40;
    double rtol = 1e-3;
    const char *pos[2] = {NULL, NULL};
    int npos = 0;
    const char *sets[64];
    int nsets = 0;
    lm_cli_common com = {.o = &o};
    for (int k = 0; k < argc; k++) {
        const char *a = argv[k];
        const char *v = k + 1 < argc ? argv[k + 1] : NULL;
        int cst;
        if (lm_cli_is_help(a)) return lm_cli_help("tighten");
        if ((cst = lm_cli_common_opt(&com, argc, argv, &k)) >= 0) {
            if (cst) return cst;
        } else if (!strcmp(a, "--json")) json = 1;
        else if (!strcmp(a, "--max-runs")) {
            if (parse_long(v, 3, 10000, &max_runs)) return tighten_usage(a, "an integer in [3, 10000]", v);
            k++;
        } else if (!strcmp(a, "--rtol")) {
            if (lm_cli_parse_double(v, 1e-12, 1, &rtol)) return tighten_usage(a, "a number in [1e-12, 1]", v);
            k++;
        } else if (!strcmp(a, "--set")) {
            if (!v) return tighten_usage(a, "name=value", v);
            if (nsets >= 63) return die_usage("%s", "too many --set options (at most 63)");
            sets[nsets++] = v;
            k++;
        } else if (!strcmp(a, "--config")) {
            if (!lm_cli_name_value(v)) return tighten_usage(a, "a configuration name (see: lemmata params ID)", v);
            o.only_config = v;
            k++;
        } else if (a[0] == '-') return die_usage("tighten: unknown option '%s' (see: lemmata tighten --help)", a);
        else if (npos < 2) pos[npos++] = a;
        else return die_usage("tighten: unexpected argument '%s' (one claim id and one parameter)", a);
    }
    lm_cli_common_finish(&com);
    if (npos < 2) return die_usage("%s", "tighten needs a claim id and a parameter name (see: lemmata params ID)");
    const lm_claim *c = lm_claim_find(pos[0]);
    if (!c) return die_usage("unknown claim id '%s' (see: lemmata list)", pos[0]);
    int param = lm_claim_param_index(c, pos[1]);
    if (param < 0) {
        char shown[80];
        fprintf(stderr, "lemmata: claim %s has no parameter '%s' (see: lemmata params %s)\n", c->id,
                lm_cli_shown(shown, sizeof shown, pos[1]), c->id);
        return LM_EXIT_USAGE;
    }
    const lm_param_def *p = &c->params[param];
    if (!lm_param_def_is_constant(p)) return not_a_constant(c, p);
    for (int s = 0; s < nsets; s++) {
        int idx;
        double val;
        char err[256];
        if (lm_claim_parse_set(c, sets[s], &idx, &val, err, sizeof err)) {
            return die_usage("%s", err);
        }
        o.set_name[o.nset] = c->params[idx].name;
        o.set_val[o.nset++] = val;
    }
    if (o.only_config) {
        int found = 0;
        for (int k = 0; k < lm_claim_nconfigs(c); k++) found |= !strcmp(lm_claim_config(c, k), o.only_config);
        if (!found) {
            char shown[80];
            fprintf(stderr, "lemmata: %s has no configuration '%s' (see: lemmata params %s)\n", c->id,
                    lm_cli_shown(shown, sizeof shown, o.only_config), c->id);
            return LM_EXIT_USAGE;
        }
    }
    fprintf(stderr, "lemmata: tightening %s %s (budget %d, seed %llu, at most %ld runs) ...\n", c->id, pos[1],
            o.budget, (unsigned long long)o.seed, max_runs);
    lm_tighten_result t;
    int rc = lm_tighten(&t, c, param, &o, rtol, (int)max_runs);
    if (json) { /* through Jansson: 17 significant digits, null for what is not finite */
        json_t *j = json_object();
        json_object_set_new(j, "id", json_string(c->id));
        json_object_set_new(j, "param", json_string(pos[1]));
        json_object_set_new(j, "stated", isfinite(t.stated) ? json_real(t.stated) : json_null());
        json_object_set_new(j, "sharpest", isfinite(t.sharpest) ? json_real(t.sharpest) : json_null());
        json_object_set_new(j, "breaks_at", isfinite(t.breaks_at) ? json_real(t.breaks_at) : json_null());
        json_object_set_new(j, "direction", json_integer(t.direction));
        json_object_set_new(j, "runs", json_integer(t.runs));
        json_object_set_new(j, "stated_verdict", json_string(lm_verdict_name(t.stated_verdict)));
        json_object_set_new(j, "decided", json_boolean(!rc));
        char sd[32]; /* a seed past Jansson's signed integers as its digits */
        snprintf(sd, sizeof sd, "%llu", (unsigned long long)o.seed);
        json_object_set_new(j, "seed", o.seed <= (uint64_t)INT64_MAX ? json_integer((json_int_t)o.seed) : json_string(sd));
        json_object_set_new(j, "budget", json_integer(o.budget));
        json_dumpf(j, stdout, JSON_COMPACT | JSON_REAL_PRECISION(17));
        putchar('\n');
        json_decref(j);
    } else
        printf("%s: %s\n", c->id, t.msg);
    return LM_EXIT_OK;
}
