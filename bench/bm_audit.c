/* bm_audit.c -- audit throughput (issue 21): how fast a full `make verify` checks instances,
 * per claim kind, and where the slowest claims spend their time.
 *
 * Everything comes from the runner's own timings in results/lemmata.db, read-only: the
 * claims table holds each claim's instances and seconds (lm_run_claim: every configuration's
 * random instances, adversarial search, MPFR replays and escalation, certification, and the
 * shrinking of a counterexample), the configs table each configuration's seconds.  What the
 * database does not hold is the split by phase, nor the check-strength mutants and constant
 * slack that make verify runs after each claim (outside claims.seconds).  For those the
 * slowest claims are re-run here, in this process, with the run's budget, seed and precision
 * and the options make verify uses (profile on, lm_mutate in the cheap mode, lm_slack_rows),
 * timing each phase (lm_config_result.sec_*); only as many as fit a time cap, predicted from
 * the stored seconds.  The re-run is on whatever machine runs the bench: its absolute
 * seconds differ from the database's, its shares are what it measures. */
#include "bm.h"
#include "lm_constants.h"
#include "lm_verify.h"
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* NaN and infinity as doubles (-Wdouble-promotion) */
#define AU_NAN ((double)NAN)
#define AU_INF ((double)INFINITY)

const char *const bm_phase_names[BM_NPH] = {"random",  "search", "replay",  "escalation", "certify",
                                            "shrink", "other",  "mutants", "slack"};

static double au_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void cpy(char *dst, size_t n, const unsigned char *s) { snprintf(dst, n, "%s", s ? (const char *)s : ""); }

/* the run: the newest finished one of the given quick flag that ran every claim itself.  The
 * same rule as verify_times (bench.c), and no --only selection or shard (schema 5); databases
 * older than those columns fall back to the plain rule */
static long long pick_run(sqlite3 *s, int quick, long long want, bm_audit *au)
{
    static const char *const sql[2] = {
        "SELECT id, commit_id, seed, budget, quick, prec, seconds, finished_date FROM runs "
        "WHERE finished = 1 AND quick = ? AND seconds IS NOT NULL "
        "AND (selection IS NULL OR selection = '') AND (shard IS NULL OR shard = '') "
        "AND NOT EXISTS (SELECT 1 FROM claims c WHERE c.run_id = runs.id AND c.reused_from > 0) "
        "AND NOT EXISTS (SELECT 1 FROM live l WHERE l.run_id = runs.id AND l.reused_from > 0) "
        "AND EXISTS (SELECT 1 FROM claims c WHERE c.run_id = runs.id) ORDER BY id DESC LIMIT 1",
        "SELECT id, commit_id, seed, budget, quick, prec, seconds, finished_date FROM runs "
        "WHERE finished = 1 AND quick = ? AND seconds IS NOT NULL "
        "AND EXISTS (SELECT 1 FROM claims c WHERE c.run_id = runs.id) ORDER BY id DESC LIMIT 1"};
    static const char one[] = "SELECT id, commit_id, seed, budget, quick, prec, seconds, finished_date FROM runs "
                              "WHERE id = ?";
    for (int v = 0; v < 2; v++) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(s, want >= 0 ? one : sql[v], -1, &st, NULL) != SQLITE_OK) {
            sqlite3_finalize(st);
            continue;
        }
        if (want >= 0) sqlite3_bind_int64(st, 1, want);
        else sqlite3_bind_int(st, 1, quick);
        long long id = -1;
        if (sqlite3_step(st) == SQLITE_ROW) {
            id = sqlite3_column_int64(st, 0);
            au->run = id;
            cpy(au->commit, sizeof au->commit, sqlite3_column_text(st, 1));
            cpy(au->seed, sizeof au->seed, sqlite3_column_text(st, 2));
            au->budget = sqlite3_column_int(st, 3);
            au->quick = sqlite3_column_int(st, 4);
            au->prec = sqlite3_column_int(st, 5);
            au->wall = sqlite3_column_type(st, 6) == SQLITE_NULL ? AU_NAN : sqlite3_column_double(st, 6);
            cpy(au->finished, sizeof au->finished, sqlite3_column_text(st, 7));
        }
        sqlite3_finalize(st);
        return id;
    }
    return -1;
}

static int kind_index(bm_audit *au, const char *kind)
{
    for (int i = 0; i < au->nkinds; i++)
        if (!strcmp(au->k[i].kind, kind)) return i;
    if (au->nkinds >= BM_AU_KINDS) return -1;
    bm_au_kind *K = &au->k[au->nkinds];
    snprintf(K->kind, sizeof K->kind, "%s", kind);
    return au->nkinds++;
}

static int by_rate(const void *a, const void *b)
{
    const bm_au_kind *x = a, *y = b;
    double u = isfinite(x->rate) ? x->rate : AU_INF, v = isfinite(y->rate) ? y->rate : AU_INF;
    return u < v ? -1 : u > v ? 1 : strcmp(x->kind, y->kind);
}

/* one statement over (run, claim) for each slow claim: fill reads the row, when there is one */
static void for_each_slow(sqlite3 *s, const char *sql, long long run, bm_audit *au,
                          void (*fill)(bm_au_claim *C, sqlite3_stmt *st))
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s, sql, -1, &st, NULL) == SQLITE_OK)
        for (int i = 0; i < au->nslow; i++) {
            sqlite3_reset(st);
            sqlite3_bind_int64(st, 1, run);
            sqlite3_bind_text(st, 2, au->slow[i].id, -1, SQLITE_TRANSIENT);
            if (sqlite3_step(st) == SQLITE_ROW) fill(&au->slow[i], st);
        }
    sqlite3_finalize(st);
}

static void fill_ran(bm_au_claim *C, sqlite3_stmt *st)
{
    C->replays = (long)sqlite3_column_int64(st, 0);
    C->escalated = sqlite3_column_int(st, 1);
    C->shrunk = sqlite3_column_int(st, 2);
    C->certified = sqlite3_column_int(st, 3);
}

static void fill_top(bm_au_claim *C, sqlite3_stmt *st)
{
    cpy(C->top_config, sizeof C->top_config, sqlite3_column_text(st, 0));
    C->top_seconds = sqlite3_column_double(st, 1);
    C->top_share = C->seconds > 0 ? C->top_seconds / C->seconds : AU_NAN;
}

static void unknown_phases(bm_au_claim *C)
{
    for (int p = 0; p < BM_NPH; p++) C->phase[p] = AU_NAN;
}

int bm_audit_read(bm_audit *au, const char *db) { return bm_audit_read_run(au, db, -1); }

int bm_audit_read_run(bm_audit *au, const char *db, long long want)
{
    memset(au, 0, sizeof *au);
    au->wall = au->claim_seconds = au->live_seconds = AU_NAN;
    au->profile_cap = au->profile_spent = 0;
    snprintf(au->status, sizeof au->status, "no full verify on record in %s", db);
    struct stat sb;
    if (stat(db, &sb) != 0) {
        snprintf(au->status, sizeof au->status, "no full verify on record: %s does not exist", db);
        return 1;
    }
    sqlite3 *s = NULL;
    if (sqlite3_open_v2(db, &s, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        snprintf(au->status, sizeof au->status, "no full verify on record: cannot open %s (%s)", db,
                 s ? sqlite3_errmsg(s) : "out of memory");
        sqlite3_close(s);
        return 1;
    }
    long long run = pick_run(s, 0, want, au);
    if (run < 0 && want >= 0) {
        snprintf(au->status, sizeof au->status, "no run %lld in %s", want, db);
        sqlite3_close(s);
        return 1;
    }
    if (run < 0) {
        run = pick_run(s, 1, want, au);
        if (run < 0) {
            sqlite3_close(s);
            return 1;
        }
    }
    sqlite3_stmt *st = NULL;
    /* every claim of the run: per kind, and per claim for the figure */
    if (sqlite3_prepare_v2(s, "SELECT kind, instances, seconds FROM claims WHERE run_id = ?", -1, &st, NULL) !=
        SQLITE_OK) {
        snprintf(au->status, sizeof au->status, "no full verify on record: cannot read the claims of run %lld in %s (%s)",
                 run, db, sqlite3_errmsg(s));
        sqlite3_finalize(st);
        sqlite3_close(s);
        return 1;
    }
    sqlite3_bind_int64(st, 1, run);
    int cap = 0;
    au->claim_seconds = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const unsigned char *kt = sqlite3_column_text(st, 0);
        long n = (long)sqlite3_column_int64(st, 1);
        double sec = sqlite3_column_double(st, 2);
        int ki = kind_index(au, kt && *kt ? (const char *)kt : "(no kind)");
        if (ki >= 0) {
            au->k[ki].claims++;
            au->k[ki].instances += n;
            au->k[ki].seconds += sec;
        }
        if (au->nall == cap) {
            cap = cap ? 2 * cap : 256;
            au->all_kind = realloc(au->all_kind, sizeof(int) * (size_t)cap);
            au->all_rate = realloc(au->all_rate, sizeof(double) * (size_t)cap);
            if (!au->all_kind || !au->all_rate) {
                fprintf(stderr, "bench: out of memory\n");
                exit(1);
            }
        }
        au->all_kind[au->nall] = ki;
        au->all_rate[au->nall] = sec > 0 ? (double)n / sec : AU_NAN;
        au->nall++;
        au->nclaims++;
        au->instances += n;
        au->claim_seconds += sec;
    }
    sqlite3_finalize(st);
    for (int i = 0; i < au->nkinds; i++)
        au->k[i].rate = au->k[i].seconds > 0 ? (double)au->k[i].instances / au->k[i].seconds : AU_NAN;
    /* sort the kinds, and carry the per-claim kind indices along */
    int inv[BM_AU_KINDS];
    bm_au_kind sorted[BM_AU_KINDS];
    memcpy(sorted, au->k, sizeof sorted);
    qsort(sorted, (size_t)au->nkinds, sizeof *sorted, by_rate);
    for (int i = 0; i < au->nkinds; i++)
        for (int j = 0; j < au->nkinds; j++)
            if (!strcmp(sorted[i].kind, au->k[j].kind)) inv[j] = i;
    memcpy(au->k, sorted, sizeof sorted);
    for (int i = 0; i < au->nall; i++)
        if (au->all_kind[i] >= 0) au->all_kind[i] = inv[au->all_kind[i]];

    if (sqlite3_prepare_v2(s, "SELECT COALESCE(SUM(seconds), 0) FROM live WHERE run_id = ?", -1, &st, NULL) ==
        SQLITE_OK) {
        sqlite3_bind_int64(st, 1, run);
        if (sqlite3_step(st) == SQLITE_ROW) au->live_seconds = sqlite3_column_double(st, 0);
    }
    sqlite3_finalize(st);

    /* the slowest claims, each with its slowest configuration */
    /* mutants_run is schema 4: older databases read 0 */
    if (sqlite3_prepare_v2(s,
                           "SELECT claim_id, kind, instances, seconds, "
                           "(SELECT COUNT(*) FROM configs g WHERE g.run_id = c.run_id AND g.claim_id = c.claim_id), "
                           "COALESCE(mutants_run, 0) FROM claims c WHERE run_id = ? ORDER BY seconds DESC, claim_id LIMIT ?",
                           -1, &st, NULL) == SQLITE_OK ||
        (sqlite3_finalize(st), st = NULL,
         sqlite3_prepare_v2(s,
                            "SELECT claim_id, kind, instances, seconds, "
                            "(SELECT COUNT(*) FROM configs g WHERE g.run_id = c.run_id AND g.claim_id = c.claim_id), 0 "
                            "FROM claims c WHERE run_id = ? ORDER BY seconds DESC, claim_id LIMIT ?",
                            -1, &st, NULL) == SQLITE_OK)) {
        sqlite3_bind_int64(st, 1, run);
        sqlite3_bind_int(st, 2, BM_AU_SLOW);
        while (sqlite3_step(st) == SQLITE_ROW && au->nslow < BM_AU_SLOW) {
            bm_au_claim *C = &au->slow[au->nslow++];
            cpy(C->id, sizeof C->id, sqlite3_column_text(st, 0));
            cpy(C->kind, sizeof C->kind, sqlite3_column_text(st, 1));
            C->instances = (long)sqlite3_column_int64(st, 2);
            C->seconds = sqlite3_column_double(st, 3);
            C->rate = C->seconds > 0 ? (double)C->instances / C->seconds : AU_NAN;
            C->nconfig = sqlite3_column_int(st, 4);
            C->mutants = sqlite3_column_int(st, 5);
            C->top_seconds = C->top_share = C->rerun_seconds = AU_NAN;
            unknown_phases(C);
            snprintf(C->note, sizeof C->note, "phases not measured (not re-run)");
        }
    }
    sqlite3_finalize(st);
    /* what ran: replays, escalations, shrinking, certification (schema 2 for shrunk, escalation) */
    for_each_slow(s, "SELECT COALESCE(SUM(COALESCE(breaks_double, 0) + COALESCE(near_misses, 0)), 0), "
                  "SUM(COALESCE(escalation, '') <> ''), SUM(COALESCE(shrunk, '') <> ''), "
                  "SUM(COALESCE(confirmed, 0) > 0 AND verdict = 'violated') "
                  "FROM configs WHERE run_id = ? AND claim_id = ?",
                  run, au, fill_ran);
    for_each_slow(s, "SELECT config, seconds FROM configs WHERE run_id = ? AND claim_id = ? "
                  "ORDER BY seconds DESC, seq LIMIT 1",
                  run, au, fill_top);
    sqlite3_close(s);
    au->ok = 1;
    snprintf(au->status, sizeof au->status, "%srun %lld of %s (commit %s, budget %d%s, %s%s)",
             want >= 0 ? "chosen by --run: " : au->quick ? "no full verify on record; the last complete QUICK=1 run instead: " : "",
             run, db, au->commit, au->budget, au->quick ? ", QUICK=1" : "", au->finished[0] ? "finished " : "not finished",
             au->finished);
    return 0;
}

void bm_audit_free(bm_audit *au)
{
    free(au->all_kind);
    free(au->all_rate);
    au->all_kind = NULL;
    au->all_rate = NULL;
    au->nall = 0;
}

/* ------------------------------------------------------------ re-runs */

/* one claim as a make verify worker runs it (schedule.c, verify_worker) */
static void profile_one(bm_au_claim *C, const bm_audit *au)
{
    const lm_claim *c = lm_claim_find(C->id);
    if (!c) {
        snprintf(C->note, sizeof C->note, "not re-run: no claim %.100s in this build", C->id);
        return;
    }
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.seed = strtoull(au->seed, NULL, 10);
    o.budget = au->budget;
    o.quick = au->quick;
    o.prec = au->prec;
    o.progress = 0;
    o.profile = 1; /* make verify's setting when it measures check strength */
    lm_claim_result r;
    if (lm_run_claim(&r, c, &o) != 0) {
        snprintf(C->note, sizeof C->note, "not re-run: %.200s", r.error[0] ? r.error : "no configuration ran");
        lm_claim_result_clear(&r);
        return;
    }
    double t1 = au_now();
    lm_mutation_report *mr = malloc(sizeof *mr);
    lm_constant_row *slack = malloc(LM_MAX_MUTANTS * sizeof *slack);
    double t2 = t1, t3 = t1;
    int mut = -1;
    if (mr && slack) {
        mut = lm_mutate(mr, c, &o, &r, 1);
        t2 = au_now();
        if (mut == 0) lm_slack_rows(slack, LM_MAX_MUTANTS, c, &o, &r, mr);
        t3 = au_now();
        lm_mutation_report_clear(mr);
    }
    free(mr);
    free(slack);
    for (int p = 0; p < BM_NPH; p++) C->phase[p] = 0;
    for (int k = 0; k < r.nconfig; k++) {
        const lm_config_result *g = &r.cfg[k];
        C->phase[BM_PH_RANDOM] += g->sec_random;
        C->phase[BM_PH_SEARCH] += g->sec_search;
        C->phase[BM_PH_REPLAY] += g->sec_replay;
        C->phase[BM_PH_ESCALATE] += g->sec_escalate;
        C->phase[BM_PH_CERTIFY] += g->sec_certify;
    }
    C->phase[BM_PH_SHRINK] = r.sec_shrink;
    double in = 0;
    for (int p = 0; p < BM_PH_OTHER; p++) in += C->phase[p];
    C->phase[BM_PH_OTHER] = r.seconds > in ? r.seconds - in : 0;
    C->phase[BM_PH_MUTANTS] = mut == 0 ? t2 - t1 : AU_NAN;
    C->phase[BM_PH_SLACK] = mut == 0 ? t3 - t2 : AU_NAN;
    C->rerun_seconds = r.seconds;
    C->profiled = 1;
    if (r.instances != C->instances)
        snprintf(C->note, sizeof C->note, "re-run checked %ld instances, the recorded run %ld", r.instances,
                 C->instances);
    else if (mut != 0)
        snprintf(C->note, sizeof C->note, "mutants not measured (lm_mutate could not run the claim)");
    else C->note[0] = 0;
    lm_claim_result_clear(&r);
}

void bm_audit_profile(bm_audit *au, double cap)
{
    au->profile_cap = cap;
    au->profile_spent = 0;
    if (!au->ok) return;
    /* the stored seconds are the claim run alone; mutants and slack come on top.  A cheap-mode
     * mutant runs at most 8 instances per configuration, a constant one both ways: predict
     * seconds x (1 + 2 mutants x min(1, 8 configs / instances)), scaled by what the re-runs so
     * far took against their predictions (this machine, its load) */
    double calib = 1.0, pred_sum = 0, got = 0;
    au->profile_pred = 0;
    for (int i = 0; i < au->nslow; i++) {
        const bm_au_claim *C = &au->slow[i];
        double share = C->instances > 0 ? 8.0 * (C->nconfig > 0 ? C->nconfig : 1) / (double)C->instances : 1.0;
        au->profile_pred += C->seconds * (1 + 2.0 * C->mutants * (share < 1 ? share : 1.0));
    }
    lm_mat_blas_threads(1); /* as the lemmata binary runs its claims */
    for (int i = 0; i < au->nslow; i++) {
        bm_au_claim *C = &au->slow[i];
        double share = C->instances > 0 ? 8.0 * (C->nconfig > 0 ? C->nconfig : 1) / (double)C->instances : 1.0;
        double raw = C->seconds * (1 + 2.0 * C->mutants * (share < 1 ? share : 1.0)), pred = raw * calib;
        if (au->profile_spent + pred > cap) {
            snprintf(C->note, sizeof C->note,
                     "not re-run: predicted %.0f s would pass the %.0f s cap of the re-runs (%.0f s spent)", pred, cap,
                     au->profile_spent);
            continue;
        }
        double t0 = au_now();
        profile_one(C, au);
        double dt = au_now() - t0;
        au->profile_spent += dt;
        if (C->profiled && raw > 0) {
            pred_sum += raw;
            got += dt;
            calib = got / pred_sum;
        }
        if (C->profiled)
            fprintf(stderr, "bench: audit re-ran %s in %.1f s (recorded %.1f s for the claim alone)\n", C->id, dt,
                    C->seconds);
        else fprintf(stderr, "bench: audit: %s %s\n", C->id, C->note);
    }
}

/* ------------------------------------------------------------ JSON */

void bm_audit_json(FILE *f, const bm_audit *au)
{
    fputs("{\"ok\": ", f);
    fputs(au->ok ? "true" : "false", f);
    fputs(", \"source\": ", f);
    bm_json_str(f, au->status);
    if (!au->ok) {
        fputs("}", f);
        return;
    }
    fprintf(f, ", \"run\": %lld, \"commit\": ", au->run);
    bm_json_str(f, au->commit);
    fputs(", \"seed\": ", f);
    bm_json_str(f, au->seed);
    fprintf(f, ", \"budget\": %d, \"quick\": %s, \"prec\": %d, \"wall_seconds\": ", au->budget,
            au->quick ? "true" : "false", au->prec);
    bm_json_num(f, au->wall);
    fprintf(f, ", \"claims\": %d, \"instances\": %ld, \"claim_seconds\": ", au->nclaims, au->instances);
    bm_json_num(f, au->claim_seconds);
    fputs(", \"live_seconds\": ", f);
    bm_json_num(f, au->live_seconds);
    fputs(", \"instances_per_second\": ", f);
    bm_json_num(f, au->claim_seconds > 0 ? (double)au->instances / au->claim_seconds : AU_NAN);
    fputs(",\n  \"kinds\": [", f);
    for (int i = 0; i < au->nkinds; i++) {
        const bm_au_kind *K = &au->k[i];
        fputs(i ? ",\n   {\"kind\": " : "\n   {\"kind\": ", f);
        bm_json_str(f, K->kind);
        fprintf(f, ", \"claims\": %d, \"instances\": %ld, \"seconds\": ", K->claims, K->instances);
        bm_json_num(f, K->seconds);
        fputs(", \"instances_per_second\": ", f);
        bm_json_num(f, K->rate);
        fputs("}", f);
    }
    fputs("],\n  \"slowest\": [", f);
    for (int i = 0; i < au->nslow; i++) {
        const bm_au_claim *C = &au->slow[i];
        fputs(i ? ",\n   {\"id\": " : "\n   {\"id\": ", f);
        bm_json_str(f, C->id);
        fputs(", \"kind\": ", f);
        bm_json_str(f, C->kind);
        fputs(", \"seconds\": ", f);
        bm_json_num(f, C->seconds);
        fprintf(f, ", \"instances\": %ld, \"instances_per_second\": ", C->instances);
        bm_json_num(f, C->rate);
        fprintf(f, ", \"configs\": %d, \"mutants\": %d, \"mpfr_replays\": %ld, \"configs_escalated\": %d, "
                   "\"configs_shrunk\": %d, \"configs_certified\": %d, \"top_config\": ",
                C->nconfig, C->mutants, C->replays, C->escalated, C->shrunk, C->certified);
        bm_json_str(f, C->top_config);
        fputs(", \"top_config_seconds\": ", f);
        bm_json_num(f, C->top_seconds);
        fputs(", \"top_config_share\": ", f);
        bm_json_num(f, C->top_share);
        fputs(", \"rerun_seconds\": ", f);
        bm_json_num(f, C->rerun_seconds);
        fputs(", \"phases\": ", f);
        if (!C->profiled) fputs("null", f);
        else {
            fputs("{", f);
            for (int p = 0; p < BM_NPH; p++) {
                fprintf(f, "%s\"%s\": ", p ? ", " : "", bm_phase_names[p]);
                bm_json_num(f, C->phase[p]);
            }
            fputs("}", f);
        }
        fputs(", \"note\": ", f);
        bm_json_str(f, C->note);
        fputs("}", f);
    }
    fputs("],\n  \"rerun_predicted_seconds\": ", f);
    bm_json_num(f, au->profile_pred);
    fputs(", \"rerun_cap_seconds\": ", f);
    bm_json_num(f, au->profile_cap);
    fputs(", \"rerun_seconds\": ", f);
    bm_json_num(f, au->profile_spent);
    fputs("}", f);
}

/* ------------------------------------------------------------ LaTeX and the figure */

/* text breakable at its slashes */
static void tslash(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '/') fputs("/\\allowbreak{}", f);
        else {
            char b[2] = {*s, 0};
            bm_tex_esc(f, b, 1);
        }
    }
}

/* a claim id */
static void tid(FILE *f, const char *s)
{
    fputs("\\texttt{", f);
    tslash(f, s);
    fputs("}", f);
}

/* a p{} cell ragged right, without the array package (bench.tex stands alone): \raggedright
 * redefines \\, so such rows end in \tabularnewline */
static void cell_open(FILE *f) { fputs("\\raggedright ", f); }

static void tnum(FILE *f, double x, const char *fmt)
{
    if (!isfinite(x)) fputs("--", f);
    else fprintf(f, fmt, x);
}

static void tpct(FILE *f, double part, double whole)
{
    if (!isfinite(part) || !(whole > 0)) fputs("--", f);
    else fprintf(f, "%.0f\\%%", 100 * part / whole);
}

/* gnuplot: per kind, its instances per second (large dot) over its claims' own (small dots);
 * 1 when the PDF exists */
static int audit_figure(const bm_audit *au, const char *figdir)
{
    char dat[512], dat2[512], gp[512], pdf[512];
    snprintf(dat, sizeof dat, "%s/bench_audit.dat", figdir);
    snprintf(dat2, sizeof dat2, "%s/bench_audit_claims.dat", figdir);
    snprintf(gp, sizeof gp, "%s/bench_audit.gp", figdir);
    snprintf(pdf, sizeof pdf, "%s/bench_audit.pdf", figdir);
    FILE *f = fopen(dat, "w");
    if (!f) return 0;
    fprintf(f, "# run %lld: per claim kind, row, instances per second, claims, seconds, label\n", au->run);
    int n = 0;
    double lo = AU_INF, hi = 0;
    for (int i = 0; i < au->nkinds; i++) {
        const bm_au_kind *K = &au->k[i];
        if (!(K->rate > 0) || !isfinite(K->rate)) continue;
        /* gnuplot strings here are single-quoted in the script only; the data is tab-separated */
        fprintf(f, "%d\t%.6g\t%d\t%.6g\t%s\n", i, K->rate, K->claims, K->seconds, K->kind);
        n++;
    }
    fclose(f);
    f = fopen(dat2, "w");
    if (!f) return 0;
    fputs("# one claim a line: row of its kind (jittered), instances per second\n", f);
    for (int i = 0; i < au->nall; i++) {
        double r = au->all_rate[i];
        if (au->all_kind[i] < 0 || !(r > 0) || !isfinite(r)) continue;
        /* a small fixed vertical jitter keeps claims of equal rate apart */
        fprintf(f, "%.3f\t%.6g\n", au->all_kind[i] + 0.04 * (double)((i * 37) % 9 - 4), r);
        if (r < lo) lo = r;
        if (r > hi) hi = r;
    }
    fclose(f);
    if (!n) return 0;
    f = fopen(gp, "w");
    if (!f) return 0;
    fprintf(f, "# generated by make bench -- rerun from the source root: gnuplot %s\n", gp);
    fputs("reset\nset terminal pdfcairo noenhanced color size 12cm,6.4cm font 'Sans,7'\n", f);
    fprintf(f, "set output '%s'\n", pdf);
    fprintf(f, "set title 'Audit throughput of a %sverify (run %lld, budget %d): instances checked per second'\n",
            au->quick ? "QUICK=1 " : "", au->run, au->budget);
    fputs("set datafile separator '\\t'\nset logscale x\nset format x '%g'\n"
          "set xlabel 'instances checked per second of the runner''s claim time (log scale)'\n"
          "set ylabel 'claim kind (claims, seconds)'\n",
          f);
    fprintf(f, "set yrange [-0.7:%d.7]\nset ytics (", au->nkinds - 1);
    for (int i = 0; i < au->nkinds; i++) {
        /* double quotes: gnuplot reads \n there as a line break */
        fputs(i ? ", \"" : "\"", f);
        for (const char *p = au->k[i].kind; *p; p++) fputc(*p == '"' || *p == '\\' ? ' ' : *p, f);
        fprintf(f, "\\n%d claims, %.3g s\" %d", au->k[i].claims, au->k[i].seconds, i);
    }
    fputs(")\n", f);
    if (lo < AU_INF) fprintf(f, "set xrange [%.6g:%.6g]\n", lo / 2, hi * 8);
    fputs("set grid xtics lc rgb '#dddddd'\nset border lc rgb '#444444'\n"
          "set key outside bottom center horizontal samplen 2\n",
          f);
    fprintf(f,
            "plot '%s' using 2:1 with points pt 6 ps 0.45 lc rgb '#999999' title 'one claim', \\\n"
            "     '%s' using 2:1 with points pt 7 ps 1.1 lc rgb '#1f77b4' title 'kind: sum of instances / sum of seconds'\n",
            dat2, dat);
    fclose(f);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "gnuplot '%s' 2>>'%s/bench_gnuplot.log'", gp, figdir);
    unlink(pdf);
    if (system(cmd)) fprintf(stderr, "bench: gnuplot failed on %s (see %s/bench_gnuplot.log)\n", gp, figdir);
    struct stat sb;
    char log[600];
    snprintf(log, sizeof log, "%s/bench_gnuplot.log", figdir);
    if (stat(log, &sb) == 0 && sb.st_size == 0) unlink(log); /* nothing said: no log */
    return stat(pdf, &sb) == 0 && sb.st_size > 0;
}

void bm_audit_tex(FILE *f, const bm_audit *au, const char *figdir)
{
    fputs("\\subsection*{Audit throughput}\n", f);
    if (!au->ok) {
        fputs("No full verify on record (", f);
        bm_tex_esc(f, au->status, 1);
        fputs("); run \\texttt{make verify} and then \\texttt{make bench}.\n\n", f);
        return;
    }
    fputs("From the runner's own timings in the database: ", f);
    bm_tex_esc(f, au->status, 1);
    fprintf(f, ". %d claims checked %ld instances in ", au->nclaims, au->instances);
    tnum(f, au->claim_seconds, "%.1f");
    fputs("\\,s of claim time (", f);
    tnum(f, au->claim_seconds > 0 ? (double)au->instances / au->claim_seconds : AU_NAN, "%.3g");
    fputs(" instances/s); the live runs took ", f);
    tnum(f, au->live_seconds, "%.1f");
    fputs("\\,s; the run's wall clock was ", f);
    tnum(f, au->wall, "%.1f");
    fputs("\\,s on all its workers. A claim's seconds cover its configurations (random instances, adversarial "
          "search, MPFR replays and escalation, certification) and the shrinking of a counterexample; the "
          "check-strength mutants and the constant slack that make verify runs after each claim are not in them "
          "(they are in the wall clock). An instance is a configuration's draw, so the rates compare kinds of "
          "work, not claims of equal size.\n\n",
          f);
    fputs("\\begin{center}\\small\\begin{tabular}{lrrrr}\n\\hline\nclaim kind & claims & instances & seconds & "
          "instances/s\\\\\n\\hline\n",
          f);
    for (int i = 0; i < au->nkinds; i++) {
        const bm_au_kind *K = &au->k[i];
        bm_tex_esc(f, K->kind, 1);
        fprintf(f, " & %d & %ld & ", K->claims, K->instances);
        tnum(f, K->seconds, "%.2f");
        fputs(" & ", f);
        tnum(f, K->rate, "%.3g");
        fputs("\\\\\n", f);
    }
    fputs("\\hline\n\\end{tabular}\\end{center}\n\n", f);
    {
        if (audit_figure(au, figdir))
            fprintf(f, "\\begin{center}\\includegraphics[width=0.8\\linewidth]{%s/bench_audit.pdf}\\end{center}\n\n",
                    figdir);
        else fputs("(gnuplot did not produce the audit figure; see figures/bench\\_gnuplot.log.)\n\n", f);
    }
    /* the slowest claims */
    fprintf(f, "\\paragraph{The %d slowest claims.} Seconds (s) and instances as recorded; the slowest "
               "configuration's share of the claim's seconds (configs table); from the stored configurations, the "
               "instances replayed in MPFR (repl.: breaks and near misses re-evaluated), the configurations escalated "
               "past the replay's precision, shrunk and certified (e/s/c); the mutants run after the claim (mut.). ",
            au->nslow);
    int np = 0;
    for (int i = 0; i < au->nslow; i++) np += au->slow[i].profiled;
    if (np)
        fprintf(f, "The phases come from re-running %d of them in the bench process with the run's budget, seed "
                   "and precision and make verify's options (claim, then mutants in the cheap mode, then the "
                   "constant slack), within a cap of %.0f\\,s (%.0f\\,s spent); shares are of the re-run's total "
                   "(re-run s); the phases up to oth make up what the database records as the claim's seconds, "
                   "mutants and slack come on top. rnd: random instances; srch: adversarial search; rep: MPFR "
                   "replay; esc: escalation past the replay's precision; cert: certification; shr: shrinking; oth: "
                   "the rest of the claim run.\n\n",
                np, au->profile_cap, au->profile_spent);
    else
        fprintf(f, "No claim was re-run for its phases: re-running the %d slowest as make verify does (claim, "
                   "mutants, slack) was predicted to take %.0f\\,s, over the cap of %.0f\\,s. So the split by phase "
                   "(random instances, adversarial search, MPFR replay and escalation, certification, shrinking, "
                   "and the mutants and slack outside the recorded seconds) is unknown here; \\texttt{lemmata check "
                   "ID --json} prints a claim's (\\texttt{phases}).\n\n",
                au->nslow, au->profile_pred, au->profile_cap);
    fputs("\\begin{center}\\footnotesize\\setlength{\\tabcolsep}{4pt}\\begin{tabular}{p{3.2cm}p{1.9cm}rrrp{2.8cm}r"
          "rrr}\n\\hline\nclaim & kind & s & inst. & inst./s & slowest configuration & share & "
          "repl. & e/s/c & mut.\\\\\n\\hline\n",
          f);
    for (int i = 0; i < au->nslow; i++) {
        const bm_au_claim *C = &au->slow[i];
        cell_open(f);
        tid(f, C->id);
        fputs(" & ", f);
        cell_open(f);
        tslash(f, C->kind);
        fputs(" & ", f);
        tnum(f, C->seconds, "%.2f");
        fprintf(f, " & %ld & ", C->instances);
        tnum(f, C->rate, "%.3g");
        fputs(" & ", f);
        cell_open(f);
        tslash(f, C->top_config[0] ? C->top_config : "--");
        fprintf(f, " (of %d) & ", C->nconfig);
        tpct(f, C->top_seconds, C->seconds);
        fprintf(f, " & %ld & %d/%d/%d & %d\\tabularnewline\n", C->replays, C->escalated, C->shrunk, C->certified,
                C->mutants);
    }
    fputs("\\hline\n\\end{tabular}\\end{center}\n\n", f);
    if (np) {
        fputs("\\begin{center}\\footnotesize\\setlength{\\tabcolsep}{4pt}\\begin{tabular}{p{3.6cm}r|rrrrrrr|rr}\n\\hline\n"
              "claim & re-run s & rnd & srch & rep & esc & cert & shr & oth & mutants & slack\\\\\n\\hline\n",
              f);
        for (int i = 0; i < au->nslow; i++) {
            const bm_au_claim *C = &au->slow[i];
            cell_open(f);
            tid(f, C->id);
            fputs(" & ", f);
            double tot = 0;
            for (int p = 0; p < BM_NPH; p++)
                if (isfinite(C->phase[p])) tot += C->phase[p];
            if (C->profiled) tnum(f, tot, "%.2f");
            else fputs("--", f);
            for (int p = 0; p < BM_NPH; p++) {
                fputs(" & ", f);
                if (C->profiled) tpct(f, C->phase[p], tot);
                else fputs("?", f);
            }
            fputs("\\tabularnewline\n", f);
        }
        fputs("\\hline\n\\end{tabular}\\end{center}\n", f);
    }
    int nn = 0, ncap = 0;
    for (int i = 0; i < au->nslow; i++) ncap += !au->slow[i].profiled && strstr(au->slow[i].note, " cap ") != NULL;
    if (np && ncap)
        fprintf(f, "\\noindent %d of the %d were not re-run: the predicted time would have passed the cap; their "
                   "phases are unknown (?).\n\n",
                ncap, au->nslow);
    for (int i = 0; i < au->nslow; i++)
        if (au->slow[i].note[0] && (au->slow[i].profiled || np) && !strstr(au->slow[i].note, " cap ")) {
            fputs(nn++ ? "; " : "\\noindent Notes: ", f);
            tid(f, au->slow[i].id);
            fputs(": ", f);
            bm_tex_esc(f, au->slow[i].note, 1);
        }
    if (nn) fputs(".\n\n", f);
    if (au->nslow) {
        fputs("{\\raggedright\\noindent These are the next targets of the performance work: ", f);
        for (int i = 0; i < au->nslow; i++) {
            if (i) fputs(i + 1 == au->nslow ? " and " : ", ", f);
            tid(f, au->slow[i].id);
        }
        double s = 0;
        for (int i = 0; i < au->nslow; i++) s += au->slow[i].seconds;
        fprintf(f, " take %.0f\\%% of the run's claim seconds.\\par}\n\n",
                au->claim_seconds > 0 ? 100 * s / au->claim_seconds : 0.0);
    }
}
