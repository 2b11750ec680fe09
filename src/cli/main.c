/* main.c -- the lemmata command line. */
#include "lm_report.h"
#include "lm_store.h"
#include "lm_train.h"
#include "lm_verify.h"
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef LM_COMMIT
#define LM_COMMIT "unknown"
#endif
#define LM_VERSION "0.1.0"

static const char usage[] =
    "usage: lemmata COMMAND [options]\n"
    "\n"
    "commands:\n"
    "  list [--paper P]              one registered claim a line, id first\n"
    "  params ID                     the claim's named constants and switches\n"
    "  check ID... [options]         run checks and print verdicts\n"
    "      --prec BITS   first precision: 53 = double (default), up to 8192 = MPFR\n"
    "      --seed S      random seed (default 20241122)\n"
    "      --budget N    instances per configuration (default 64)\n"
    "      --quick       small budget (8)\n"
    "      --set k=v     override a named constant (repeatable)\n"
    "      --config C    only configuration C;  --instance K  only instance K\n"
    "      --json        one JSON object per claim per line\n"
    "      --strict      exit 1 when any claim is violated or inconsistent\n"
    "  train RUN [--steps T] [--prec BITS] [--seed S] [--set k=v]... [--out FILE.csv]\n"
    "            [--drift BITS]      a live training run; `lemmata train` lists runs;\n"
    "                                --drift repeats it wholly in MPFR and writes the drift\n"
    "  verify [--quick] [--seed S] [--budget N] [--db FILE] [--strict]\n"
    "                                every claim -> results/lemmata.db -> report/lemmata.pdf\n"
    "  report [--db FILE]            rebuild report/lemmata.pdf from the database\n"
    "  --help, --version\n"
    "\n"
    "exit status: 0 when all checks ran (whatever the verdicts), 1 with --strict and a\n"
    "violated claim, 2 on bad usage or a missing tool.\n";

static int die_usage(const char *fmt, const char *a)
{
    fprintf(stderr, "lemmata: ");
    fprintf(stderr, fmt, a);
    fprintf(stderr, "\n");
    return 2;
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *e;
    errno = 0;
    if (!s || !*s || *s == '-') return -1;
    unsigned long long v = strtoull(s, &e, 10);
    if (*e || errno) return -1;
    *out = v;
    return 0;
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
    char *e;
    errno = 0;
    if (!s || !*s) return -1;
    long v = strtol(s, &e, 10);
    if (*e || errno || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

static const char *paper_of(const char *id, char *buf, size_t n)
{
    const char *s = strchr(id, '/');
    size_t l = s ? (size_t)(s - id) : strlen(id);
    if (l >= n) l = n - 1;
    memcpy(buf, id, l);
    buf[l] = 0;
    return buf;
}

static int cmd_list(int argc, char **argv)
{
    const char *paper = NULL;
    for (int k = 0; k < argc; k++) {
        if (!strcmp(argv[k], "--paper") && k + 1 < argc) paper = argv[++k];
        else return die_usage("list: unknown option '%s'", argv[k]);
    }
    int shown = 0;
    for (int k = 0; k < lm_registry_count; k++) {
        const lm_claim *c = lm_registry[k];
        char p[64];
        if (paper && strcmp(paper_of(c->id, p, sizeof p), paper)) continue;
        printf("%-46s %-28s %s\n", c->id, lm_kind_name(c->kind), c->title);
        shown++;
    }
    if (paper && !shown) return die_usage("list: no claims for paper '%s'", paper);
    return 0;
}

static int cmd_params(int argc, char **argv)
{
    if (argc != 1) return die_usage("%s", "params takes exactly one claim id");
    const lm_claim *c = lm_claim_find(argv[0]);
    if (!c) return die_usage("unknown claim id '%s' (see: lemmata list)", argv[0]);
    printf("%s -- %s\n", c->id, c->title);
    printf("configurations:");
    for (int k = 0; k < lm_claim_nconfigs(c); k++) printf(" %s", lm_claim_config(c, k));
    printf("\n");
    if (!c->params || !c->params[0].name) { printf("(no parameters)\n"); return 0; }
    for (int k = 0; c->params[k].name; k++) {
        const lm_param_def *p = &c->params[k];
        if (p->choices) {
            /* print the default choice by name */
            int idx = (int)p->def, i = 0;
            const char *s = p->choices;
            char dn[64] = "?";
            while (s) {
                const char *e = strchr(s, '|');
                size_t l = e ? (size_t)(e - s) : strlen(s);
                if (i == idx) { snprintf(dn, sizeof dn, "%.*s", (int)l, s); break; }
                i++;
                s = e ? e + 1 : NULL;
            }
            printf("  %-18s = %-12s (%s)  %s\n", p->name, dn, p->choices, p->doc);
        } else {
            printf("  %-18s = %-12.6g %s\n", p->name, p->def, p->doc);
        }
    }
    return 0;
}

static int parse_prec(const char *s, mpfr_prec_t *out)
{
    long v;
    if (parse_int(s, LM_PREC_MIN, LM_PREC_MAX, &v)) return -1;
    *out = v == 53 ? 0 : (mpfr_prec_t)v;
    return 0;
}

static void print_line(const lm_claim_result *r, int k, int n)
{
    char wr[32];
    lm_fmt_ratio(wr, sizeof wr, r->worst_ratio);
    fprintf(stdout, "[%2d/%d] %-44s %-17s worst %-9s %5ld inst  %-16s %6.1f s\n", k, n,
            r->claim->id, lm_verdict_name(r->verdict), wr, r->instances, r->precisions,
            r->seconds);
    fflush(stdout);
}

static int cmd_check(int argc, char **argv)
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
            if (!v || parse_int(v, 1, 100000, &b)) return die_usage("--budget needs an integer in [1, 100000], got '%s'", v ? v : "");
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
            if (!v || parse_int(v, 0, 10000000, &b)) return die_usage("--instance needs a non-negative integer, got '%s'", v ? v : "");
            o.only_instance = (int)b;
            k++;
        } else if (a[0] == '-') return die_usage("check: unknown option '%s'", a);
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
    for (int k = 0; k < nid; k++) {
        lm_claim_result r;
        if (lm_run_claim(&r, cl[k], &o)) {
            fprintf(stderr, "lemmata: nothing ran for %s\n", cl[k]->id);
            return 2;
        }
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
        }
        if (r.verdict == LM_V_VIOLATED || r.verdict == LM_V_INCONSISTENT) any_bad = 1;
        lm_claim_result_clear(&r);
    }
    return strict && any_bad ? 1 : 0;
}

static int cmd_train(int argc, char **argv)
{
    if (argc == 0) {
        printf("runs (lemmata train RUN):\n");
        for (int k = 0; lm_runs[k].name; k++) printf("  %-18s %s\n", lm_runs[k].name, lm_runs[k].doc);
        return 0;
    }
    const lm_run_def *base = lm_run_find(argv[0]);
    if (!base) return die_usage("unknown run '%s' (see: lemmata train)", argv[0]);
    lm_run_def r = *base;
    uint64_t seed = 20241122;
    mpfr_prec_t prec = 0;
    const char *out = NULL;
    long drift = 0;
    char err[256];
    for (int k = 1; k < argc; k++) {
        const char *a = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;
        if (!strcmp(a, "--steps")) {
            long s;
            if (!v || parse_int(v, 0, 10000000, &s)) return die_usage("--steps needs an integer in [0, 1e7], got '%s'", v ? v : "");
            r.steps = (int)s;
            k++;
        } else if (!strcmp(a, "--prec")) {
            if (!v || parse_prec(v, &prec)) return die_usage("--prec needs an integer number of bits in [53, 8192], got '%s'", v ? v : "");
            k++;
        } else if (!strcmp(a, "--seed")) {
            if (!v || parse_u64(v, &seed)) return die_usage("--seed needs a non-negative integer, got '%s'", v ? v : "");
            k++;
        } else if (!strcmp(a, "--set")) {
            if (!v) return die_usage("%s", "--set needs name=value");
            if (lm_run_set(&r, v, err, sizeof err)) { fprintf(stderr, "lemmata: %s\n", err); return 2; }
            k++;
        } else if (!strcmp(a, "--drift")) {
            if (!v || parse_int(v, 64, LM_PREC_MAX, &drift)) return die_usage("--drift needs MPFR bits in [64, 8192], got '%s'", v ? v : "");
            k++;
        } else if (!strcmp(a, "--out")) {
            if (!v) return die_usage("%s", "--out needs a file name");
            out = v;
            k++;
        } else return die_usage("train: unknown option '%s'", a);
    }
    lm_ctx ctx = prec ? lm_ctx_mpfr(prec) : lm_ctx_double();
    FILE *f = stdout;
    char tmp[4096];
    if (out) {
        snprintf(tmp, sizeof tmp, "%s.tmp", out);
        f = fopen(tmp, "w");
        if (!f) return die_usage("cannot write '%s'", tmp);
    }
    int rc;
    if (drift) {
        double *pd = NULL, *ld = NULL, *fl = NULL;
        fprintf(stderr, "lemmata: %s in double and wholly in MPFR-%ld ...\n", r.name, drift);
        rc = lm_run_drift(&r, seed, (mpfr_prec_t)drift, &pd, &ld, &fl, err, sizeof err);
        if (!rc) {
            fprintf(f, "iterate,loss,param_rel_drift,loss_rel_drift\n");
            for (int t = 0; t <= r.steps; t++)
                fprintf(f, "%d,%.17g,%.6e,%.6e\n", t, fl[t], pd[t], ld[t]);
        }
        free(pd);
        free(ld);
        free(fl);
    } else {
        rc = lm_run_exec(&r, seed, &ctx, f, 1, err, sizeof err);
    }
    if (out) {
        fclose(f);
        if (rc) unlink(tmp);
        else if (rename(tmp, out)) { unlink(tmp); return die_usage("cannot write '%s'", out); }
    }
    if (rc) { fprintf(stderr, "lemmata: train %s: %s\n", r.name, err); return 1; }
    return 0;
}

static volatile sig_atomic_t interrupted;
static void on_sigint(int s) { (void)s; interrupted = 1; }

static int build_report(const char *db)
{
    char err[512] = "";
    fprintf(stderr, "lemmata: weaving report/lemmata.pdf ...\n");
    if (lm_report_build(db, -1, ".", err, sizeof err)) {
        fprintf(stderr, "lemmata: report: %s\n", err);
        return 2;
    }
    fprintf(stderr, "lemmata: wrote report/lemmata.pdf\n");
    return 0;
}

static int cmd_verify(int argc, char **argv)
{
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.progress = 1;
    const char *db = "results/lemmata.db";
    int strict = 0, noreport = 0;
    for (int k = 0; k < argc; k++) {
        const char *a = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;
        if (!strcmp(a, "--quick")) { o.quick = 1; o.budget = 8; }
        else if (!strcmp(a, "--strict")) strict = 1;
        else if (!strcmp(a, "--no-report")) noreport = 1;
        else if (!strcmp(a, "--seed")) {
            if (!v || parse_u64(v, &o.seed)) return die_usage("--seed needs a non-negative integer, got '%s'", v ? v : "");
            k++;
        } else if (!strcmp(a, "--budget")) {
            long b;
            if (!v || parse_int(v, 1, 100000, &b)) return die_usage("--budget needs an integer in [1, 100000], got '%s'", v ? v : "");
            o.budget = (int)b;
            k++;
        } else if (!strcmp(a, "--db")) {
            if (!v) return die_usage("%s", "--db needs a file name");
            db = v;
            k++;
        } else return die_usage("verify: unknown option '%s'", a);
    }
    if (!noreport) {
        /* fail before hours of work when the report cannot be built */
        if (system("command -v latexmk >/dev/null 2>&1") != 0)
            return die_usage("%s", "latexmk not found (apt-get install latexmk)");
        if (system("command -v gnuplot >/dev/null 2>&1") != 0)
            return die_usage("%s", "gnuplot not found (apt-get install gnuplot-nox)");
    }
    mkdir("results", 0777);
    char err[512];
    lm_store *st = lm_store_open(db, err, sizeof err);
    if (!st) { fprintf(stderr, "lemmata: %s\n", err); return 2; }
    lm_run_meta meta;
    memset(&meta, 0, sizeof meta);
    snprintf(meta.commit, sizeof meta.commit, "%s", LM_COMMIT);
    time_t now = time(NULL);
    strftime(meta.date, sizeof meta.date, "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
    meta.seed = o.seed;
    snprintf(meta.versions, sizeof meta.versions, "%s", lm_versions());
    meta.prec = (int)o.prec;
    meta.budget = o.budget;
    meta.quick = o.quick;
    int resumed = 0;
    long long run = lm_store_begin_run(st, &meta, &resumed);
    if (run < 0) { fprintf(stderr, "lemmata: cannot start a run in %s\n", db); lm_store_close(st); return 2; }
    fprintf(stderr, "lemmata %s (commit %s): %s run %lld, seed %llu, budget %d%s, %d claims\n",
            LM_VERSION, LM_COMMIT, resumed ? "resuming" : "starting", run,
            (unsigned long long)o.seed, o.budget, o.quick ? " (quick)" : "", lm_registry_count);
    signal(SIGINT, on_sigint);
    signal(SIGTERM, on_sigint);
    long counts[LM_V_COUNT] = {0};
    int any_bad = 0, skipped = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int k = 0; k < lm_registry_count && !interrupted; k++) {
        const lm_claim *c = lm_registry[k];
        if (lm_store_has_claim(st, run, c->id)) { skipped++; continue; }
        lm_claim_result r;
        if (lm_run_claim(&r, c, &o)) continue;
        if (interrupted) { lm_claim_result_clear(&r); break; }
        if (lm_store_save_claim(st, run, &r)) {
            fprintf(stderr, "lemmata: could not save %s to %s\n", c->id, db);
            lm_claim_result_clear(&r);
            lm_store_close(st);
            return 2;
        }
        print_line(&r, k + 1, lm_registry_count);
        lm_claim_result_clear(&r);
    }
    /* live training runs, each repeated wholly in MPFR */
    for (int k = 0; lm_runs[k].name && !interrupted; k++) {
        const lm_run_def *rd = &lm_runs[k];
        if (lm_store_has_live(st, run, rd->name)) continue;
        lm_run_def r = *rd;
        r.steps = o.quick ? 100 : 400;
        double *pd = NULL, *ld = NULL, *fl = NULL;
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        if (lm_run_drift(&r, o.seed, 256, &pd, &ld, &fl, err, sizeof err)) {
            fprintf(stderr, "lemmata: live run %s: %s\n", r.name, err);
            continue;
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
        double sec = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
        size_t cap = (size_t)(r.steps + 1) * 3 * 48 + 64;
        char *ser = malloc(cap);
        size_t len = 0;
        double maxd = 0;
        for (int t = 0; t <= r.steps; t++) {
            if (fl[t] > 0)
                len += (size_t)snprintf(ser + len, cap - len, "loss f_t (double)\t%d\t%.8g\n", t, fl[t]);
            if (pd[t] > 0)
                len += (size_t)snprintf(ser + len, cap - len, "parameter drift double vs MPFR\t%d\t%.4g\n", t, pd[t]);
            maxd = fmax(maxd, pd[t]);
        }
        char summ[200];
        snprintf(summ, sizeof summ, "Loss %.3g -> %.3g; largest relative parameter drift %.2g; final relative loss difference %.2g.",
                 fl[0], fl[r.steps], maxd, ld[r.steps]);
        lm_store_save_live(st, run, r.name, r.doc, r.steps, 256, ser, summ, sec);
        fprintf(stdout, "[live] %-18s %s (%.1f s)\n", r.name, summ, sec);
        fflush(stdout);
        free(ser);
        free(pd);
        free(ld);
        free(fl);
    }
    if (interrupted) {
        fprintf(stderr, "\nlemmata: interrupted; finished claims are saved, run `make verify` again to resume\n");
        lm_store_close(st);
        return 130;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    lm_store_finish_run(st, run, secs);
    lm_store_close(st);
    /* verdict counts over the whole run (including resumed claims) */
    lm_store *st2 = lm_store_open(db, err, sizeof err);
    if (st2) {
        lm_store_verdict_counts(st2, run, counts);
        lm_store_close(st2);
    }
    fprintf(stdout, "verdicts:");
    for (int v = LM_V_COUNT - 1; v >= 0; v--)
        if (counts[v]) fprintf(stdout, " %ld %s", counts[v], lm_verdict_name((lm_verdict)v));
    fprintf(stdout, "  (%d claims, %d resumed from an earlier interrupted run, %.1f s)\n",
            lm_registry_count, skipped, secs);
    any_bad = counts[LM_V_VIOLATED] + counts[LM_V_INCONSISTENT] > 0;
    if (!noreport) {
        int rc = build_report(db);
        if (rc) return rc;
    }
    return strict && any_bad ? 1 : 0;
}

static int cmd_report(int argc, char **argv)
{
    const char *db = "results/lemmata.db";
    for (int k = 0; k < argc; k++) {
        if (!strcmp(argv[k], "--db") && k + 1 < argc) db = argv[++k];
        else return die_usage("report: unknown option '%s'", argv[k]);
    }
    if (access(db, R_OK)) return die_usage("no results database '%s' (run: make verify)", db);
    return build_report(db);
}

int main(int argc, char **argv)
{
    if (argc < 2) { fputs(usage, stderr); return 2; }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) { fputs(usage, stdout); return 0; }
    if (!strcmp(cmd, "--version")) {
        printf("lemmata %s (commit %s)\n%s\n", LM_VERSION, LM_COMMIT, lm_versions());
        return 0;
    }
    if (!strcmp(cmd, "list")) return cmd_list(argc - 2, argv + 2);
    if (!strcmp(cmd, "params")) return cmd_params(argc - 2, argv + 2);
    if (!strcmp(cmd, "check")) return cmd_check(argc - 2, argv + 2);
    if (!strcmp(cmd, "train")) return cmd_train(argc - 2, argv + 2);
    if (!strcmp(cmd, "verify")) return cmd_verify(argc - 2, argv + 2);
    if (!strcmp(cmd, "report")) return cmd_report(argc - 2, argv + 2);
    fprintf(stderr, "lemmata: unknown command '%s' (see: lemmata --help)\n", cmd);
    return 2;
}
