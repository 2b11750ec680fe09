/* tighten.c -- lemmata tighten ID PARAM. */
#include "cli.h"

/* lemmata tighten ID PARAM: bisection on one constant (lm_tighten) */
int lm_cmd_tighten(int argc, char **argv)
{
    lm_run_opts o;
    lm_run_opts_default(&o);
    int json = 0;
    long max_runs = 40;
    double rtol = 1e-3;
    const char *pos[2] = {NULL, NULL};
    int npos = 0;
    const char *sets[64];
    int nsets = 0;
    for (int k = 0; k < argc; k++) {
        const char *a = argv[k];
        const char *v = k + 1 < argc ? argv[k + 1] : NULL;
        if (!strcmp(a, "--json")) json = 1;
        else if (!strcmp(a, "--quick")) { o.quick = 1; o.budget = 8; }
        else if (!strcmp(a, "--seed")) {
            if (!v || parse_u64(v, &o.seed)) return die_usage("--seed needs a non-negative integer, got '%s'", v ? v : "");
            k++;
        } else if (!strcmp(a, "--budget")) {
            long b;
            if (!v || lm_parse_long(v, 1, 100000, &b)) return die_usage("--budget needs an integer in [1, 100000], got '%s'", v ? v : "");
            o.budget = (int)b;
            k++;
        } else if (!strcmp(a, "--max-runs")) {
            if (!v || lm_parse_long(v, 3, 10000, &max_runs)) return die_usage("--max-runs needs an integer in [3, 10000], got '%s'", v ? v : "");
            k++;
        } else if (!strcmp(a, "--rtol")) {
            char *end = NULL;
            rtol = v ? strtod(v, &end) : 0;
            if (!v || !end || *end || !(rtol >= 1e-12 && rtol <= 1)) return die_usage("--rtol needs a number in [1e-12, 1], got '%s'", v ? v : "");
            k++;
        } else if (!strcmp(a, "--set")) {
            if (!v) return die_usage("%s", "--set needs name=value");
            if (nsets >= 63) return die_usage("%s", "too many --set options");
            sets[nsets++] = v;
            k++;
        } else if (!strcmp(a, "--config")) {
            if (!v) return die_usage("%s", "--config needs a configuration name");
            o.only_config = v;
            k++;
        } else if (a[0] == '-') return die_usage("tighten: unknown option '%s'", a);
        else if (npos < 2) pos[npos++] = a;
        else return die_usage("tighten: unexpected argument '%s' (one claim id and one parameter)", a);
    }
    if (npos < 2) return die_usage("%s", "tighten needs a claim id and a parameter name (see: lemmata params ID)");
    const lm_claim *c = lm_claim_find(pos[0]);
    if (!c) return die_usage("unknown claim id '%s' (see: lemmata list)", pos[0]);
    int param = lm_claim_param_index(c, pos[1]);
    if (param < 0) {
        fprintf(stderr, "lemmata: claim %s has no parameter '%s' (see: lemmata params %s)\n", c->id, pos[1], c->id);
        return 2;
    }
    for (int s = 0; s < nsets; s++) {
        int idx;
        double val;
        char err[256];
        if (lm_claim_parse_set(c, sets[s], &idx, &val, err, sizeof err)) { fprintf(stderr, "lemmata: %s\n", err); return 2; }
        o.set_name[o.nset] = c->params[idx].name;
        o.set_val[o.nset++] = val;
    }
    if (o.only_config) {
        int found = 0;
        for (int k = 0; k < lm_claim_nconfigs(c); k++) found |= !strcmp(lm_claim_config(c, k), o.only_config);
        if (!found) return die_usage("no configuration '%s' (see: lemmata params ID)", o.only_config);
    }
    fprintf(stderr, "lemmata: tightening %s %s (budget %d, seed %llu) ...\n", c->id, pos[1], o.budget,
            (unsigned long long)o.seed);
    lm_tighten_result t;
    int rc = lm_tighten(&t, c, param, &o, rtol, (int)max_runs);
    if (json) {
        printf("{\"id\":\"%s\",\"param\":\"%s\",\"stated\":%.17g,", c->id, pos[1], t.stated);
        if (isfinite(t.sharpest)) printf("\"sharpest\":%.17g,", t.sharpest);
        else printf("\"sharpest\":null,");
        if (isfinite(t.breaks_at)) printf("\"breaks_at\":%.17g,", t.breaks_at);
        else printf("\"breaks_at\":null,");
        printf("\"direction\":%d,\"runs\":%d,\"stated_verdict\":\"%s\",\"decided\":%s,\"seed\":%llu,"
               "\"budget\":%d}\n",
               t.direction, t.runs, lm_verdict_name(t.stated_verdict), rc ? "false" : "true",
               (unsigned long long)o.seed, o.budget);
    } else
        printf("%s: %s\n", c->id, t.msg);
    return 0;
}
