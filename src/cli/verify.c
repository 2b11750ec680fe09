/* verify.c -- lemmata verify and lemmata report: the command line, the lock and the run's
 * bookkeeping around the scheduler (lm_schedule.h), then the database and the PDF. */
#include "cli.h"
#include "lm_constants.h"
#include "lm_instances.h"
#include "lm_schedule.h"

#include <limits.h>

/* make verify measures each claim's check strength (lm_mutate, cheap mode) unless --no-mutants */
static int mutants_on = 1;

/* one line: how many of the run's named constants have a measured slack (lm_constants.h), by
 * how, and how many are undecided */
static void slack_line(const char *db, const lm_run_opts *o, const char *only)
{
    lm_constant_row *rows = NULL;
    int n = 0;
    char err[300];
    if (lm_constdb_load(db, o->seed, o->budget, o->quick, &rows, &n, err, sizeof err)) return;
    long all = 0, how[4] = {0}, cls[LM_SLACK_COUNT] = {0}, failing_unknown = 0;
    for (int k = 0; k < n; k++) {
        const lm_constant_row *r = &rows[k];
        if (r->budget != o->budget || r->quick != o->quick) continue;
        if (only && *only && strncmp(r->claim_id, only, strlen(only))) continue;
        all++;
        lm_slack_class c = lm_constant_class(r);
        lm_measured m = lm_constant_measured(r);
        cls[c]++;
        how[m]++;
        failing_unknown += m == LM_MEASURED_NOT && c == LM_SLACK_FAILS;
    }
    free(rows);
    if (!all) return;
    long measured = all - how[LM_MEASURED_NOT];
    fprintf(stdout, "constant slack: %ld of %ld named constants measured (%.1f%%: %ld read off the run, %ld bisected, "
            "%ld no break); %ld undecided, each saying why",
            measured, all, 100.0 * (double)measured / (double)all, how[LM_MEASURED_READ_OFF],
            how[LM_MEASURED_BISECTED], how[LM_MEASURED_NO_BREAK], cls[LM_SLACK_UNDECIDED]);
    if (failing_unknown)
        fprintf(stdout, "; %ld fail as stated, where they first hold unknown", failing_unknown);
    fprintf(stdout, " (lemmata constants ID bisects at any budget)\n");
}

/* 0 when pdflatex and gnuplot are on the PATH, else 2 with the apt-get line */
static int tools_missing(void)
{
    if (system("command -v pdflatex >/dev/null 2>&1") != 0)
        return die_usage("%s", "pdflatex not found (apt-get install texlive-latex-base)");
    if (system("command -v gnuplot >/dev/null 2>&1") != 0)
        return die_usage("%s", "gnuplot not found (apt-get install gnuplot-nox)");
    return 0;
}

/* report/ and figures/ under root: created (or refused, exit 2) before any work */
static int prepare_root(const char *root)
{
    char p[4200];
    int rc = lm_cli_mkdirs(root);
    snprintf(p, sizeof p, "%s/report", root);
    if (!rc) rc = lm_cli_mkdirs(p);
    snprintf(p, sizeof p, "%s/figures", root);
    if (!rc) rc = lm_cli_mkdirs(p);
    return rc;
}

/* the weave (run -1: the latest result of every claim; N: run N alone): 0, or 3 (the PDFs
 * could not be produced) */
static int build_report(const char *db, const char *root, long long run)
{
    char err[512] = "", done[1024] = "", pdf[4200];
    snprintf(pdf, sizeof pdf, "%s%sreport/", strcmp(root, ".") ? root : "",
             strcmp(root, ".") ? (root[strlen(root) - 1] == '/' ? "" : "/") : "");
    fprintf(stderr, "lemmata: weaving %slemmata.pdf, lemmata-code.pdf and one PDF per paper ...\n", pdf);
    if (lm_report_build_ex(db, run, root, done, sizeof done, err, sizeof err)) {
        fprintf(stderr, "lemmata: report: %s\n", err);
        return LM_EXIT_FAILED;
    }
    fprintf(stderr, "lemmata: wrote %s\n", done);
    return 0;
}

#define verify_usage lm_cli_needs

/* `--shard K/N`: which items this process runs (lm_shard_plan) */
typedef struct {
    int k, n;              /* this shard, of n */
    unsigned char *pick;   /* per item (lm_sched_items order): 1 = this shard's */
    int all, mine, mine_claims;
    double load, total;    /* this shard's weight, everything's */
    char hash[24];
} shard_plan;

static void shard_plan_free(shard_plan *p)
{
    free(p->pick);
    p->pick = NULL;
}

/* parses "K/N" (0 <= K < N <= 10000, plain decimal) and plans the shards: 0, or 2 (usage, an
 * unreadable --weights database) or 3 (out of memory) after one line on stderr */
static int make_plan(shard_plan *p, const char *spec, const char *weights_db, const char *only)
{
    char *end = NULL;
    errno = 0;
    long k = -1, n = -1;
    if (spec[0] >= '0' && spec[0] <= '9') k = strtol(spec, &end, 10);
    if (end && *end == '/' && end[1] >= '0' && end[1] <= '9') n = strtol(end + 1, &end, 10);
    else end = NULL;
    if (!end || *end || errno || n < 1 || n > 10000 || k < 0 || k >= n)
        return die_usage("verify: --shard wants K/N with 0 <= K < N <= 10000 (e.g. 0/4 .. 3/4), got '%s'", spec);

    p->k = (int)k;
    p->n = (int)n;
    char **names = NULL;
    int ni = lm_sched_items(only, &names);
    double *w = ni < 0 ? NULL : malloc((size_t)(ni ? ni : 1) * sizeof *w);
    int *of = ni < 0 ? NULL : malloc((size_t)(ni ? ni : 1) * sizeof *of);
    double *load = malloc((size_t)n * sizeof *load);
    p->pick = ni < 0 ? NULL : calloc((size_t)(ni ? ni : 1), 1);
    char err[600];
    int rc = 0;
    if (!w || !of || !load || !p->pick) {
        fprintf(stderr, "lemmata: out of memory planning the shards\n");
        rc = LM_EXIT_FAILED;
        goto out;
    }
    /* without --weights, and for items --weights does not know: the reference costs */
    for (int j = 0; j < ni; j++) w[j] = NAN;
    if (weights_db && lm_store_item_seconds(weights_db, names, ni, w, err, sizeof err)) {
        fprintf(stderr, "lemmata: verify --weights: %s\n", err);
        rc = LM_EXIT_USAGE;
        goto out;
    }
    for (int j = 0; j < ni; j++)
        if (!isfinite(w[j])) w[j] = lm_item_cost(names[j]);
    lm_shard_plan(names, w, ni, p->n, of, load, p->hash);
    p->all = ni;
    p->total = 0;
    for (int K = 0; K < p->n; K++) p->total += load[K];
    p->load = load[p->k];
    for (int j = 0; j < ni; j++)
        if (of[j] == p->k) {
            p->pick[j] = 1;
            p->mine++;
            p->mine_claims += !strncmp(names[j], "claim ", 6);
        }
out:
    free(w);
    free(of);
    free(load);
    if (ni >= 0) lm_sched_items_free(names, ni);
    if (rc) shard_plan_free(p);
    return rc;
}

int lm_cmd_verify(int argc, char **argv)
{
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.progress = 1;
    const char *db_opt = NULL, *dir_opt = NULL;
    int strict = 0, noreport = 0, force = 0, nowait = 0;
    const char *only = NULL, *shard_opt = NULL, *weights_opt = NULL;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN), jobs = ncpu > 0 ? (ncpu > 64 ? 64 : ncpu) : 1;
    lm_cli_common com = {.o = &o, .allow = LM_OPT_JOBS, .jobs = jobs};
    for (int k = 0; k < argc; k++) {
        const char *a = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;
        int cst;
        if (lm_cli_is_help(a)) return lm_cli_help("verify");
        else if ((cst = lm_cli_common_opt(&com, argc, argv, &k)) >= 0) {
            if (cst) return cst;
        }
        else if (!strcmp(a, "--strict")) strict = 1;
        else if (!strcmp(a, "--no-report")) noreport = 1;
        else if (!strcmp(a, "--no-wait")) nowait = 1;
        else if (!strcmp(a, "--force")) force = 1;
        else if (!strcmp(a, "--no-mutants")) mutants_on = 0;
        else if (!strcmp(a, "--only")) {
            if (!lm_cli_name_value(v)) return verify_usage(a, "a claim id or id prefix (e.g. mypaper/ or mypaper/lemma3)", v);
            only = v;
            k++;
        } else if (!strcmp(a, "--shard")) {
            if (!v) return verify_usage(a, "K/N: the K-th (0..N-1) of N shards", v);
            shard_opt = v;
            k++;
        } else if (!strcmp(a, "--weights")) {
            if (!lm_cli_name_value(v)) return verify_usage(a, "a results database of an earlier run", v);
            weights_opt = v;
            k++;
        } else if (!strcmp(a, "--db")) {
            if (!lm_cli_name_value(v)) return verify_usage(a, "a file name", v);
            db_opt = v;
            k++;
        } else if (!strcmp(a, "--out-dir")) {
            if (!lm_cli_name_value(v)) return verify_usage(a, "a directory", v);
            dir_opt = v;
            k++;
        } else return die_usage("verify: unknown option '%s' (see: lemmata verify --help)", a);
    }
    lm_cli_common_finish(&com);
    jobs = com.jobs;
    /* fail before hours of work when the report cannot be built */
    if (!noreport && tools_missing()) return LM_EXIT_USAGE;
    int nclaims = 0, nitems = lm_sched_count(only, &nclaims);
    if (nitems == 0) return die_usage("no claim id starts with '%s' (see: lemmata list)", only);
    if (weights_opt && !shard_opt) return die_usage("%s", "verify: --weights is for --shard K/N (it balances the shards)");
    shard_plan plan = {.k = -1};
    if (shard_opt) {
        int prc0 = make_plan(&plan, shard_opt, weights_opt, only);
        if (prc0) return prc0;
        noreport = 1; /* one shard's results are not the report: lemmata merge, then lemmata report */
        nitems = plan.mine;
        nclaims = plan.mine_claims;
    }
    /* where: the database, its directory, report/ and figures/; then one verify at a time */
    lm_cli_paths P;
    int prc = lm_cli_paths_resolve(&P, db_opt, dir_opt);
    char dbdir[4200];
    snprintf(dbdir, sizeof dbdir, "%s", P.db);
    char *slash = strrchr(dbdir, '/'); /* the database's directory: created when missing */
    if (slash == dbdir) dbdir[1] = 0;
    else if (slash) *slash = 0;
    if (!prc && slash) prc = lm_cli_mkdirs(dbdir);
    if (!prc) prc = lm_cli_check_regular(P.db, "database");
    if (!prc && !noreport) prc = prepare_root(P.root);
    if (prc) { return prc; }
    const char *db = P.db;
    char err[512];
    struct stat dbst;
    if (stat(db, &dbst) == 0 && lm_store_check(db, err, sizeof err)) { /* refused before the lock file */
        fprintf(stderr, "lemmata: %s\n", err);
        return LM_EXIT_USAGE;
    }
    if (lm_cli_lock(db, "verify", nowait) < 0) { return LM_EXIT_USAGE; }
    lm_store *st = lm_store_open(db, err, sizeof err);
    if (!st) { fprintf(stderr, "lemmata: %s\n", err); return LM_EXIT_USAGE; }
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
    if (gethostname(meta.host, sizeof meta.host - 1)) meta.host[0] = 0;
    if (only) snprintf(meta.selection, sizeof meta.selection, "%s", only);
    if (shard_opt) {
        snprintf(meta.shard, sizeof meta.shard, "%d/%d", plan.k, plan.n);
        snprintf(meta.plan, sizeof meta.plan, "%s", plan.hash);
    }
    int resumed = 0;
    long long run = lm_store_begin_run(st, &meta, &resumed);
    lm_store_close(st); /* the workers open their own connections */
    if (run < 0) {
        shard_plan_free(&plan);
        fprintf(stderr, "lemmata: cannot start a run in %s\n", db);
        return LM_EXIT_FAILED;
    }
    if (jobs > nitems) jobs = nitems > 0 ? nitems : 1; /* a shard of more shards than items may be empty */
    fprintf(stderr, "lemmata %s (commit %s): %s run %lld, seed %llu, budget %d%s, %d claims + %d live runs, "
                    "%ld worker%s%s\n",
            LM_VERSION, LM_COMMIT, resumed ? "resuming" : "starting", run, (unsigned long long)o.seed, o.budget,
            o.quick ? " (quick)" : "", nclaims, nitems - nclaims, jobs, jobs > 1 ? "s" : "",
            force ? ", re-running everything" : "");
    if (shard_opt)
        fprintf(stderr, "lemmata: shard %d/%d (plan %s, weights: %s%s): %d of %d items, %.0f of %.0f s\n",
                plan.k, plan.n, plan.hash, weights_opt ? "the seconds of earlier runs in " : "the reference costs",
                weights_opt ? weights_opt : "", plan.mine, plan.all, plan.load, plan.total);
    signal(SIGINT, lm_sched_on_signal); /* restarting system calls: SQLite and the runs are not disturbed */
    signal(SIGTERM, lm_sched_on_signal);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const lm_sched sched = {.db = db, .run = run, .only = only, .jobs = (int)jobs, .force = force,
                            .mutants = mutants_on, .pick = plan.pick};
    lm_sched_result tot;
    int src = lm_sched_run(&sched, &o, &tot);
    shard_plan_free(&plan);
    if (src == LM_EXIT_INTERRUPTED || lm_sched_interrupted) {
        fprintf(stderr, "\nlemmata: interrupted; finished claims are saved, run `make verify` again to resume\n");
        return LM_EXIT_INTERRUPTED;
    }
    if (src) return src;
    const int nfailed = tot.nfailed, wrc = tot.worker_rc;
    if (tot.dbfail) return LM_EXIT_FAILED; /* finished claims are saved; the run stays open */
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    st = lm_store_open(db, err, sizeof err);
    if (!st) { fprintf(stderr, "lemmata: %s\n", err); return LM_EXIT_FAILED; }
    if (lm_store_finish_run(st, run, secs)) {
        fprintf(stderr, "lemmata: cannot write '%s': could not finish run %lld\n", db, run);
        lm_store_close(st);
        return LM_EXIT_FAILED;
    }
    long counts[LM_V_COUNT] = {0}, mrun = 0, mkill = 0;
    lm_store_verdict_counts(st, run, counts);
    lm_store_mutant_totals(st, run, &mrun, &mkill);
    lm_store_close(st);
    fprintf(stdout, "verdicts:");
    for (int v = LM_V_COUNT - 1; v >= 0; v--)
        if (counts[v]) fprintf(stdout, " %ld %s", counts[v], lm_verdict_name((lm_verdict)v));
    if (!nclaims) fprintf(stdout, " none");
    fprintf(stdout, "  (%d claims; %d items run, %d unchanged and reused, %d resumed; %.1f s on %ld worker%s)\n",
            nclaims, tot.ran, tot.reused, tot.resumed, secs, jobs, jobs > 1 ? "s" : "");
    if (mrun > 0)
        fprintf(stdout, "check strength: %ld of %ld standard mutants killed (%.1f%%); "
                        "lemmata mutate ID lists a claim's survivors\n",
                mkill, mrun, 100.0 * (double)mkill / (double)mrun);
    if (mrun > 0) slack_line(db, &o, only);
    if (!shard_opt) { /* every violated claim's counterexample as an instance file (docs/instances.md) */
        char cdir[4300], cerr[600] = "";
        int nw = 0;
        snprintf(cdir, sizeof cdir, "%s/counterexamples", slash ? dbdir : ".");
        if (lm_inst_write_counterexamples(db, run, &o, cdir, LM_COMMIT, &nw, cerr, sizeof cerr) == 0) {
            if (nw) fprintf(stdout, "counterexamples: %d instance file%s in %s/ (`check ID --instances FILE` judges one again)\n",
                            nw, nw == 1 ? "" : "s", cdir);
        } else if (cerr[0]) fprintf(stderr, "lemmata: counterexamples not all written: %s\n", cerr);
    }
    fflush(stdout);
    int any_bad = counts[LM_V_VIOLATED] + counts[LM_V_INCONSISTENT] > 0;
    int rc = wrc || nfailed ? LM_EXIT_FAILED : strict && any_bad ? LM_EXIT_STRICT : LM_EXIT_OK;
    if (!noreport) {
        int rr = build_report(db, P.root, -1);
        if (lm_sched_interrupted) {
            fprintf(stderr, "\nlemmata: interrupted while weaving the report; the results are saved "
                            "(lemmata report rebuilds it)\n");
            return LM_EXIT_INTERRUPTED;
        }
        if (rr) return rr;
    }
    if (nfailed) fprintf(stderr, "lemmata: %d item%s could not be run (listed above): exit status 3\n", nfailed,
                         nfailed == 1 ? "" : "s");
    return rc;
}

int lm_cmd_report(int argc, char **argv)
{
    const char *db_opt = NULL, *dir_opt = NULL;
    int nowait = 0;
    long run = -1;
    for (int k = 0; k < argc; k++) {
        const char *a = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;
        if (lm_cli_is_help(a)) return lm_cli_help("report");
        if (!strcmp(a, "--no-wait")) nowait = 1;
        else if (!strcmp(a, "--run")) {
            /* a run id as `verify` prints it: digits only, from 1 */
            if (!v || lm_cli_parse_long(v, 1, LONG_MAX, &run))
                return verify_usage(a, "a run number (an integer from 1; verify prints it)", v);
            k++;
        } else if (!strcmp(a, "--db")) {
            if (!lm_cli_name_value(v)) return verify_usage(a, "a file name", v);
            db_opt = v;
            k++;
        } else if (!strcmp(a, "--out-dir")) {
            if (!lm_cli_name_value(v)) return verify_usage(a, "a directory", v);
            dir_opt = v;
            k++;
        } else return die_usage("report: unknown option '%s' (see: lemmata report --help)", a);
    }
    lm_cli_paths P;
    int rc = lm_cli_paths_resolve(&P, db_opt, dir_opt);
    if (rc) return rc;
    if (access(P.db, F_OK)) return die_usage("no results database '%s' (run: lemmata verify)", P.db);
    if ((rc = lm_cli_check_regular(P.db, "database"))) return rc;
    char err[512];
    if (run > 0 ? lm_store_check_run(P.db, run, err, sizeof err) : lm_store_check(P.db, err, sizeof err)) {
        fprintf(stderr, "lemmata: %s\n", err);
        return LM_EXIT_USAGE;
    }
    if (tools_missing()) return LM_EXIT_USAGE;
    if ((rc = prepare_root(P.root))) return rc;
    if (lm_cli_lock(P.db, "report", nowait) < 0) return LM_EXIT_USAGE;
    return build_report(P.db, P.root, run);
}
