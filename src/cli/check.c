/* check.c -- lemmata check: run claims and print their verdicts.
 * Exit status: 0 when every check ran (whatever the verdicts), 1 with --strict and a violated
 * or inconsistent claim, 2 on a usage error (before anything runs, or an --instance/--size the
 * runner refuses), 3 when a claim could not be run (the others still run).
 *
 * --export DIR writes every judged instance of each claim to DIR/<id, '/' as "__">.json, and
 * --instances FILE judges exactly the instances of a file (lm_instances.h, docs/instances.md):
 * a malformed file is a one-line error naming the field, exit 2, before anything runs. */
#include "cli.h"
#include "lm_instances.h"

#define check_usage lm_cli_needs

/* DIR/<claim file name>: 0, or the exit status after a one-line error */
static int export_write(lm_inst_io *io, const lm_run_opts *o, const lm_claim_result *r, const char *dir)
{
    char name[200], path[4200], err[4400];
    lm_inst_file_name(name, sizeof name, r->claim->id);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    json_t *root = lm_inst_export_json(io, o, r, LM_COMMIT);
    int rc = root ? lm_json_save_file(root, path, err, sizeof err) : -1;
    json_decref(root);
    if (rc) {
        fprintf(stderr, "lemmata: %s\n", root ? err : "out of memory");
        return LM_EXIT_FAILED;
    }
    return 0;
}

static int run_checks(const char **ids, const lm_claim **cl, int nid, lm_run_opts *o, int json, int strict,
                      const char *export_dir)
{
    int any_bad = 0, failed = 0;
    unsigned sizes_used = 0;
    for (int k = 0; k < nid; k++) {
        lm_claim_result r;
        lm_inst_io *xio = NULL;
        if (export_dir) o->inst_io = xio = lm_inst_export_new(cl[k]);
        int rc = lm_run_claim(&r, cl[k], o);
        if (o->inst_io && !xio && rc == 0) { /* --instances: what the file gave and the claim never read */
            char err[1000];
            if (lm_inst_import_check(o->inst_io, &r, err, sizeof err)) {
                fprintf(stderr, "lemmata: %s\n", err);
                lm_claim_result_clear(&r);
                return LM_EXIT_USAGE;
            }
        }
        if (xio) {
            o->inst_io = NULL;
            int wst = rc == 0 ? export_write(xio, o, &r, export_dir) : 0;
            lm_inst_io_free(xio);
            if (wst) {
                lm_claim_result_clear(&r);
                return wst;
            }
        }
        if (rc == 2) { /* an option out of range for this claim (--instance, --size) */
            fprintf(stderr, "lemmata: %s\n", r.error[0] ? r.error : "an option is out of range for this claim");
            lm_claim_result_clear(&r);
            return LM_EXIT_USAGE;
        }
        if (rc) {
            fprintf(stderr, "lemmata: %s could not be run (%s)\n", cl[k]->id,
                    r.error[0] ? r.error : "no configuration ran");
            lm_claim_result_clear(&r);
            failed++;
            continue;
        }
        if (o->only_instance >= 0 && r.instances == 0) {
            /* a runner that does not refuse an --instance past the count runs nothing */
            fprintf(stderr, "lemmata: %s has no instance %d per configuration at budget %d\n", cl[k]->id,
                    o->only_instance, o->budget);
            lm_claim_result_clear(&r);
            return LM_EXIT_USAGE;
        }
        sizes_used |= r.sizes_used;
        if (json) lm_claim_result_json(stdout, &r, o->seed);
        else {
            print_line(&r, k + 1, nid);
            if (r.mutation[0]) printf("    mutant %s: %s%s%s\n", r.mutation,
                                      o->mutate_scale != 1.0 ? "every right-hand side scaled" : "",
                                      o->mutate_scale != 1.0 && o->mutate_flip ? ", then " : "",
                                      o->mutate_flip ? "every inequality reversed" : "");
            for (int c = 0; c < r.nconfig; c++) {
                const lm_config_result *cr = &r.cfg[c];
                char wr[32];
                printf("    %-28s %-8s %-17s worst %-9s %4ld inst  %s%s%s\n", cr->config,
                       lm_reading_name(cr->reading), lm_verdict_name(cr->verdict),
                       lm_fmt_ratio(wr, sizeof wr, cr->worst_ratio), cr->instances,
                       cr->worst_where, cr->detail[0] ? "  -- " : "", cr->detail);
                if (cr->reading_note[0]) printf("    %-28s %s: %s\n", "", lm_reading_name(cr->reading), cr->reading_note);
            }
            int any_paper = 0;
            for (int c = 0; c < r.nconfig; c++) any_paper |= r.cfg[c].reading == LM_READ_PAPER;
            if (!any_paper)
                printf("    no configuration reading the paper as printed ran (--config %s): the verdict above "
                       "is that configuration's\n", o->only_config ? o->only_config : "?");
            else if (r.repaired_verdict >= 0 || r.probe_verdict >= 0) {
                printf("    as printed: %s", lm_verdict_name(r.verdict));
                if (r.repaired_verdict >= 0) printf("; repaired: %s", lm_verdict_name((lm_verdict)r.repaired_verdict));
                if (r.probe_verdict >= 0) printf("; probes: %s", lm_verdict_name((lm_verdict)r.probe_verdict));
                printf("\n");
            }
            /* an imported instance is reproduced by its file, not by a seed and an index */
            if (r.reproduce[0] && !o->inst_io) printf("    reproduce: %s\n", r.reproduce);
            for (int c = 0; c < r.nconfig; c++)
                if (r.cfg[c].shrunk[0]) {
                    printf("    shrunk (%s): %s\n", r.cfg[c].config, r.cfg[c].shrunk);
                    if (r.cfg[c].shrunk_reproduce[0]) printf("      reproduce: %s\n", r.cfg[c].shrunk_reproduce);
                }
        }
        fflush(stdout);
        if (r.verdict == LM_V_VIOLATED || r.verdict == LM_V_INCONSISTENT) any_bad = 1;
        lm_claim_result_clear(&r);
    }
    for (int s = 0; s < o->nsize; s++)
        if (!(sizes_used & (1u << s)) && !failed) {
            fprintf(stderr, "lemmata: --size %s: no instance of %s asked for a size named '%s' "
                            "(its sizes are listed in a shrunk counterexample)\n",
                    o->size_name[s], nid == 1 ? ids[0] : "the listed claims", o->size_name[s]);
            return LM_EXIT_USAGE;
        }
    if (failed) {
        if (nid > 1) fprintf(stderr, "lemmata: %d of %d claims could not be run\n", failed, nid);
        return LM_EXIT_FAILED;
    }
    return strict && any_bad ? LM_EXIT_STRICT : LM_EXIT_OK;
}

/* --export's directory made usable, --instances' file read: -1 to go on, else the exit status
 * after a one-line error (nothing has run) */
static int exchange_prepare(lm_run_opts *o, const lm_cli_common *com, const lm_claim **cl, int nid,
                            const char *export_dir, const char *inst_file)
{
    if (export_dir && inst_file)
        return die_usage("%s", "--export and --instances do not combine: export the file's instances with their "
                               "own run (check --instances FILE --json)");
    if (export_dir) {
        char shown[200];
        lm_cli_shown(shown, sizeof shown, export_dir);
        /* made when missing, every component checked to be a directory (it says why not) */
        if (lm_cli_mkdirs(export_dir)) return LM_EXIT_USAGE;
        if (access(export_dir, W_OK | X_OK)) {
            fprintf(stderr, "lemmata: --export %s: %s\n", shown, strerror(errno));
            return LM_EXIT_USAGE;
        }
        return -1;
    }
    if (nid != 1) return die_usage("%s", "--instances takes one claim id (the file's instances are of one claim)");
    if (o->only_instance >= 0 || o->nsize || o->round_bits)
        return die_usage("%s", "--instances does not combine with --instance, --size or --round: each instance "
                               "of the file states its own");
    char err[1200];
    if (!lm_inst_import_load(inst_file, cl[0], o, com->budget_set ? o->budget : -1, com->quick ? 1 : -1,
                             o->prec ? (long)o->prec : -1, err, sizeof err)) {
        fprintf(stderr, "lemmata: %s\n", err);
        return LM_EXIT_USAGE;
    }
    /* the counterexample is the file's instance as given: shrinking would draw new ones */
    o->shrink = 0;
    return -1;
}

int lm_cmd_check(int argc, char **argv)
{
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.progress = 1;
    int json = 0, strict = 0, nid = 0;
    const char **ids = malloc(sizeof *ids * (size_t)(argc > 0 ? argc : 1));
    const lm_claim **cl = malloc(sizeof *cl * ((size_t)(argc > 0 ? argc : 1) + (size_t)lm_registry_count));
    if (!ids || !cl) {
        free(ids);
        free(cl);
        fprintf(stderr, "lemmata: out of memory\n");
        return LM_EXIT_FAILED;
    }
    lm_cli_common com = {.o = &o, .allow = LM_OPT_PREC};
    const char *sets[64];
    const char *export_dir = NULL, *inst_file = NULL;
    int nsets = 0, st = -1;
    static char names[16][48];
    for (int k = 0; k < argc && st < 0; k++) {
        const char *a = argv[k];
        const char *v = k + 1 < argc ? argv[k + 1] : NULL;
        long b;
        int cst;
        if (lm_cli_is_help(a)) st = lm_cli_help("check");
        else if ((cst = lm_cli_common_opt(&com, argc, argv, &k)) >= 0) {
            if (cst) st = cst;
        }
        else if (!strcmp(a, "--json")) json = 1;
        else if (!strcmp(a, "--strict")) strict = 1;
        else if (!strcmp(a, "--no-shrink")) o.shrink = 0;
        else if (!strcmp(a, "--export")) {
            if (!lm_cli_name_value(v)) st = check_usage(a, "a directory (created when missing)", v);
            else export_dir = v;
            k++;
        } else if (!strcmp(a, "--instances")) {
            if (!lm_cli_name_value(v)) st = check_usage(a, "a JSON file of instances (docs/instances.md)", v);
            else inst_file = v;
            k++;
        }
        else if (!strcmp(a, "--set")) {
            if (!v) st = check_usage(a, "name=value", v);
            else if (nsets >= 64) st = die_usage("%s", "too many --set options (at most 64)");
            else sets[nsets++] = v;
            k++;
        } else if (!strcmp(a, "--config")) {
            if (!lm_cli_name_value(v)) st = check_usage(a, "a configuration name (see: lemmata params ID)", v);
            else o.only_config = v;
            k++;
        } else if (!strcmp(a, "--instance")) {
            if (parse_long(v, 0, 10000000, &b)) st = check_usage(a, "a non-negative integer", v);
            else o.only_instance = (int)b;
            k++;
        } else if (!strcmp(a, "--size")) {
            const char *eq = v ? strchr(v, '=') : NULL;
            if (!eq || eq == v || eq - v > 40 || parse_long(eq + 1, 1, 100000, &b))
                st = check_usage(a, "NAME=N with N an integer in [1, 100000]", v);
            else if (o.nsize >= 16) st = die_usage("%s", "too many --size options (at most 16)");
            else {
                snprintf(names[o.nsize], sizeof names[0], "%.*s", (int)(eq - v), v);
                o.size_name[o.nsize] = names[o.nsize];
                o.size_val[o.nsize++] = (int)b;
            }
            k++;
        } else if (!strcmp(a, "--mutate")) {
            /* a mutant of the claim, no claim code involved: scale=F multiplies every
             * right-hand side by F, flip reverses every inequality */
            double f;
            char *end;
            if (v && !strcmp(v, "flip")) o.mutate_flip = 1;
            else if (v && !strncmp(v, "scale=", 6) && v[6] && v[6] != ' ' &&
                     (f = strtod(v + 6, &end), *end == 0) && isfinite(f) && f > 0 && f <= 1e300)
                o.mutate_scale = f;
            else st = check_usage(a, "flip or scale=F with F a number in (0, 1e300]", v);
            k++;
        } else if (!strcmp(a, "--round")) {
            if (parse_long(v, 1, 52, &b)) st = check_usage(a, "a number of significant bits in [1, 52]", v);
            else o.round_bits = (int)b;
            k++;
        } else if (a[0] == '-') st = die_usage("check: unknown option '%s' (see: lemmata check --help)", a);
        else ids[nid++] = a;
    }
    if (st < 0 && nid == 0) st = die_usage("%s", "check needs at least one claim id (see: lemmata list)");
    lm_cli_common_finish(&com);
    /* "paper/" (an id prefix ending in '/') stands for every claim of the paper */
    int ncl = 0;
    for (int k = 0; k < nid && st < 0; k++) {
        size_t l = strlen(ids[k]);
        char shown[80];
        lm_cli_shown(shown, sizeof shown, ids[k]);
        if (l > 1 && ids[k][l - 1] == '/') {
            /* the paper's id or catalogue name (lm_cli_find_paper); else any id prefix */
            int matched = 0;
            const lm_paper *pp = lm_cli_find_paper(ids[k]);
            for (int j = 0; j < lm_registry_count && ncl < argc + lm_registry_count; j++) {
                const lm_claim *c = lm_registry[j];
                char pre[64];
                if (pp ? strcmp(paper_of(c->id, pre, sizeof pre), pp->id) : strncmp(c->id, ids[k], l)) continue;
                /* a claim already listed by an earlier paper runs once (and cl stays within
                 * argc + lm_registry_count) */
                int dup = 0;
                matched++;
                for (int i = 0; i < ncl && !dup; i++) dup = cl[i] == c;
                if (!dup) cl[ncl++] = c;
            }
            if (!matched) st = die_usage("no claim id starts with '%s' (see: lemmata papers)", ids[k]);
        } else if (!(cl[ncl++] = lm_claim_find(ids[k]))) {
            const lm_paper *pp = lm_cli_find_paper(ids[k]);
            if (pp) {
                fprintf(stderr, "lemmata: '%s' is a paper, not a claim id: `lemmata check %s/` runs all its claims\n",
                        shown, pp->id);
                st = LM_EXIT_USAGE;
            } else st = die_usage("unknown claim id '%s' (see: lemmata list)", ids[k]);
        }
    }
    nid = ncl;
    /* every --set must name a parameter of at least one listed claim and parse there */
    for (int s = 0; s < nsets && st < 0; s++) {
        int used = 0;
        char err[256] = "";
        for (int k = 0; k < nid && st < 0; k++) {
            int idx;
            double val;
            if (lm_claim_parse_set(cl[k], sets[s], &idx, &val, err, sizeof err) == 0) {
                used = 1;
                o.set_name[o.nset] = cl[k]->params[idx].name;
                o.set_val[o.nset] = val;
            } else if (strstr(err, "has no parameter") == NULL) {
                st = die_usage("%s", err);
            }
        }
        if (st >= 0) break;
        if (!used) {
            st = die_usage("%s", err);
        }
        o.nset++;
    }
    if (st < 0 && o.only_config) {
        for (int k = 0; k < nid && st < 0; k++) {
            int found = 0;
            for (int c = 0; c < lm_claim_nconfigs(cl[k]); c++)
                found |= !strcmp(lm_claim_config(cl[k], c), o.only_config);
            if (!found) {
                char shown[80];
                fprintf(stderr, "lemmata: %s has no configuration '%s' (see: lemmata params %s)\n", cl[k]->id,
                        lm_cli_shown(shown, sizeof shown, o.only_config), cl[k]->id);
                st = LM_EXIT_USAGE;
            }
        }
    }
    if (st < 0 && (export_dir || inst_file)) st = exchange_prepare(&o, &com, cl, nid, export_dir, inst_file);
    if (st < 0) st = run_checks(ids, cl, nid, &o, json, strict, export_dir);
    lm_inst_io_free(inst_file ? o.inst_io : NULL);
    free(ids);
    free(cl);
    return st;
}
