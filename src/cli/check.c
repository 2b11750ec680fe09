/* check.c -- lemmata check: run claims and print their verdicts. */
#include "cli.h"

int lm_cmd_check(int argc, char **argv)
{
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.progress = 1;
    int json = 0, strict = 0, nid = 0;
    const char *ids[256];
    const char *sets[64];
    int nsets = 0;
    for (int k = 0; k < argc; k++) {
        const char *a = argv[k];
        const char *v = k + 1 < argc ? argv[k + 1] : NULL;
        if (!strcmp(a, "--json")) json = 1;
        else if (!strcmp(a, "--strict")) strict = 1;
        else if (!strcmp(a, "--quick")) { o.quick = 1; o.budget = 8; }
        else if (!strcmp(a, "--prec")) {
            if (!v || parse_prec(v, &o.prec))
                return die_usage("--prec needs an integer number of bits in [53, 8192], got '%s'", v ? v : "");
            k++;
        } else if (!strcmp(a, "--seed")) {
            if (!v || parse_u64(v, &o.seed)) return die_usage("--seed needs a non-negative integer, got '%s'", v ? v : "");
            k++;
        } else if (!strcmp(a, "--budget")) {
            long b;
            if (!v || lm_parse_long(v, 1, 100000, &b)) return die_usage("--budget needs an integer in [1, 100000], got '%s'", v ? v : "");
            o.budget = (int)b;
            k++;
        } else if (!strcmp(a, "--set")) {
            if (!v) return die_usage("%s", "--set needs name=value");
            if (nsets >= 64) return die_usage("%s", "too many --set options");
            sets[nsets++] = v;
            k++;
        } else if (!strcmp(a, "--config")) {
            if (!v) return die_usage("%s", "--config needs a configuration name");
            o.only_config = v;
            k++;
        } else if (!strcmp(a, "--instance")) {
            long b;
            if (!v || lm_parse_long(v, 0, 10000000, &b)) return die_usage("--instance needs a non-negative integer, got '%s'", v ? v : "");
            o.only_instance = (int)b;
            k++;
        } else if (!strcmp(a, "--size")) {
            const char *eq = v ? strchr(v, '=') : NULL;
            long b;
            if (!eq || eq == v || eq - v > 40 || lm_parse_long(eq + 1, 1, 100000, &b))
                return die_usage("--size needs NAME=N with N an integer in [1, 100000], got '%s'", v ? v : "");
            if (o.nsize >= 16) return die_usage("%s", "too many --size options (at most 16)");
            static char names[16][48];
            snprintf(names[o.nsize], sizeof names[0], "%.*s", (int)(eq - v), v);
            o.size_name[o.nsize] = names[o.nsize];
            o.size_val[o.nsize++] = (int)b;
            k++;
        } else if (!strcmp(a, "--round")) {
            long b;
            if (!v || lm_parse_long(v, 1, 52, &b)) return die_usage("--round needs a number of significant bits in [1, 52], got '%s'", v ? v : "");
            o.round_bits = (int)b;
            k++;
        } else if (!strcmp(a, "--no-shrink")) o.shrink = 0;
        else if (a[0] == '-') return die_usage("check: unknown option '%s'", a);
        else if (nid < 256) ids[nid++] = a;
    }
    if (nid == 0) return die_usage("%s", "check needs at least one claim id (see: lemmata list)");
    const lm_claim *cl[256];
    for (int k = 0; k < nid; k++) {
        cl[k] = lm_claim_find(ids[k]);
        if (!cl[k]) return die_usage("unknown claim id '%s' (see: lemmata list)", ids[k]);
    }
    /* every --set must name a parameter of at least one listed claim and parse there */
    for (int s = 0; s < nsets; s++) {
        int used = 0;
        char err[256] = "";
        for (int k = 0; k < nid; k++) {
            int idx;
            double val;
            if (lm_claim_parse_set(cl[k], sets[s], &idx, &val, err, sizeof err) == 0) {
                used = 1;
                o.set_name[o.nset] = cl[k]->params[idx].name;
                o.set_val[o.nset] = val;
            } else if (strstr(err, "has no parameter") == NULL) {
                fprintf(stderr, "lemmata: %s\n", err);
                return 2;
            }
        }
        if (!used) { fprintf(stderr, "lemmata: %s\n", err); return 2; }
        o.nset++;
    }
    if (o.only_config) {
        for (int k = 0; k < nid; k++) {
            int found = 0;
            for (int c = 0; c < lm_claim_nconfigs(cl[k]); c++)
                found |= !strcmp(lm_claim_config(cl[k], c), o.only_config);
            if (!found) return die_usage("no configuration '%s' (see: lemmata params ID)", o.only_config);
        }
    }
    int any_bad = 0;
    unsigned sizes_used = 0;
    for (int k = 0; k < nid; k++) {
        lm_claim_result r;
        if (lm_run_claim(&r, cl[k], &o)) {
            fprintf(stderr, "lemmata: nothing ran for %s\n", cl[k]->id);
            return 2;
        }
        sizes_used |= r.sizes_used;
        if (json) lm_claim_result_json(stdout, &r, o.seed);
        else {
            print_line(&r, k + 1, nid);
            for (int c = 0; c < r.nconfig; c++) {
                const lm_config_result *cr = &r.cfg[c];
                char wr[32];
                printf("    %-28s %-17s worst %-9s %4ld inst  %s%s%s\n", cr->config,
                       lm_verdict_name(cr->verdict), lm_fmt_ratio(wr, sizeof wr, cr->worst_ratio), cr->instances,
                       cr->worst_where, cr->detail[0] ? "  -- " : "", cr->detail);
            }
            if (r.reproduce[0]) printf("    reproduce: %s\n", r.reproduce);
            for (int c = 0; c < r.nconfig; c++)
                if (r.cfg[c].shrunk[0]) {
                    printf("    shrunk (%s): %s\n", r.cfg[c].config, r.cfg[c].shrunk);
                    if (r.cfg[c].shrunk_reproduce[0]) printf("      reproduce: %s\n", r.cfg[c].shrunk_reproduce);
                }
        }
        if (r.verdict == LM_V_VIOLATED || r.verdict == LM_V_INCONSISTENT) any_bad = 1;
        lm_claim_result_clear(&r);
    }
    for (int s = 0; s < o.nsize; s++)
        if (!(sizes_used & (1u << s))) {
            fprintf(stderr, "lemmata: --size %s: no instance of %s asked for a size named '%s' "
                            "(its sizes are listed in a shrunk counterexample)\n",
                    o.size_name[s], nid == 1 ? ids[0] : "the listed claims", o.size_name[s]);
            return 2;
        }
    return strict && any_bad ? 1 : 0;
}
