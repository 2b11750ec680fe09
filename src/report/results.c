/* results.c -- read one run back from the results database (read-only).
 * The schema is written by src/store/store.c. */
#include "report_priv.h"

#include <ctype.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lm_natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            while (*a == '0') a++;
            while (*b == '0') b++;
            size_t la = 0, lb = 0;
            while (isdigit((unsigned char)a[la])) la++;
            while (isdigit((unsigned char)b[lb])) lb++;
            if (la != lb) return la < lb ? -1 : 1;
            int c = strncmp(a, b, la);
            if (c) return c;
            a += la;
            b += lb;
            continue;
        }
        if (*a != *b) return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++;
        b++;
    }
    return *a ? 1 : *b ? -1 : 0;
}

static char *col_dup(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    if (!t) return NULL;
    return strdup((const char *)t);
}

static void col_copy(char *dst, size_t n, sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    snprintf(dst, n, "%s", t ? (const char *)t : "");
}

static double col_real(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? (double)NAN : sqlite3_column_double(st, i);
}

static lm_verdict col_verdict(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    int v = t ? lm_verdict_from_name((const char *)t) : -1;
    return v < 0 ? LM_V_ERROR : (lm_verdict)v;
}

/* a verdict name, or -1 for NULL (the reading was not run) or an unknown name */
static int col_verdict_opt(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? lm_verdict_from_name((const char *)t) : -1;
}

/* "paper" / "repaired" / "probe"; NULL (a database before schema 4) or an unknown
 * name reads as the paper as printed, the only reading those databases knew */
static lm_reading_kind col_reading(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    for (int k = 0; t && k < LM_READ_COUNT; k++)
        if (!strcmp((const char *)t, lm_reading_name((lm_reading_kind)k))) return (lm_reading_kind)k;
    return LM_READ_PAPER;
}

/* 1 when the table has the column (databases of older schemas lack the later ones) */
static int has_column(sqlite3 *db, const char *table, const char *column)
{
    /* not "SELECT column FROM table": SQLite reads an unknown double-quoted name as a string */
    sqlite3_stmt *st = NULL;
    int ok = sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1) WHERE name=?2", -1, &st,
                                NULL) == SQLITE_OK;
    if (ok) {
        sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
        ok = sqlite3_step(st) == SQLITE_ROW;
    }
    sqlite3_finalize(st);
    return ok;
}

static void free_claim(lm_results_claim *c)
{
    free((char *)c->claim.id);
    free((char *)c->claim.title);
    free((char *)c->claim.file);
    free((char *)c->claim.source);
    free((char *)c->claim.origin);
    free((char *)c->claim.confidence);
    free(c->kind_name);
    free(c->params);
    for (int k = 0; k < c->res.nconfig; k++) {
        free(c->res.cfg[k].measures);
        free(c->res.cfg[k].series);
        free(c->res.cfg[k].ratios);
        free(c->res.cfg[k].shrunk_data);
    }
    free(c->res.cfg);
}

void lm_results_free(lm_results *R)
{
    for (int k = 0; k < R->nclaims; k++) free_claim(&R->claims[k]);
    free(R->claims);
    for (int k = 0; k < R->nlive; k++) {
        free(R->live[k].name);
        free(R->live[k].doc);
        free(R->live[k].series);
        free(R->live[k].summary);
    }
    free(R->live);
    memset(R, 0, sizeof *R);
}

static int by_id(const void *a, const void *b)
{
    const lm_results_claim *x = a, *y = b;
    return lm_natural_cmp(x->claim.id, y->claim.id);
}

static int load_configs(sqlite3 *db, long long run, lm_results_claim *c)
{
    sqlite3_stmt *st = NULL;
    /* a database from before schema 2 has no shrunk/escalation columns, one from before
     * schema 4 no reading/vacuous columns: read NULLs instead */
    int v2 = has_column(db, "configs", "shrunk");
    int v4 = has_column(db, "configs", "reading") && has_column(db, "configs", "reading_note") &&
             has_column(db, "configs", "vacuous");
    char sql[900];
    snprintf(sql, sizeof sql,
             "SELECT config, verdict, worst_ratio, instances, observations, "
             "assumption_failed, errors, breaks_double, confirmed, artifacts, "
             "near_misses, worst_where, worst_index, reproduce, precisions, "
             "seconds, detail, measures, series, ratios, axes, %s, %s FROM configs "
             "WHERE run_id=?1 AND claim_id=?2 ORDER BY seq",
             v2 ? "shrunk, shrunk_reproduce, shrunk_data, escalation" : "NULL, NULL, NULL, NULL",
             v4 ? "reading, reading_note, vacuous" : "NULL, NULL, NULL");
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
    sqlite3_bind_int64(st, 1, run);
    sqlite3_bind_text(st, 2, c->claim.id, -1, SQLITE_TRANSIENT);
    int cap = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (c->res.nconfig == cap) {
            int ncap = cap ? 2 * cap : 4;
            lm_config_result *t = realloc(c->res.cfg, sizeof *t * (size_t)ncap);
            if (!t) break;
            c->res.cfg = t;
            cap = ncap;
        }
        lm_config_result *g = &c->res.cfg[c->res.nconfig++];
        memset(g, 0, sizeof *g);
        col_copy(g->config, sizeof g->config, st, 0);
        g->verdict = col_verdict(st, 1);
        g->worst_ratio = col_real(st, 2);
        g->instances = (long)sqlite3_column_int64(st, 3);
        g->observations = (long)sqlite3_column_int64(st, 4);
        g->assumption_failed = (long)sqlite3_column_int64(st, 5);
        g->errors = (long)sqlite3_column_int64(st, 6);
        g->breaks_double = (long)sqlite3_column_int64(st, 7);
        g->confirmed = (long)sqlite3_column_int64(st, 8);
        g->artifacts = (long)sqlite3_column_int64(st, 9);
        g->near_misses = (long)sqlite3_column_int64(st, 10);
        col_copy(g->worst_where, sizeof g->worst_where, st, 11);
        g->worst_index = sqlite3_column_type(st, 12) == SQLITE_NULL ? -1
                                                                     : sqlite3_column_int(st, 12);
        col_copy(g->reproduce, sizeof g->reproduce, st, 13);
        col_copy(g->precisions, sizeof g->precisions, st, 14);
        g->seconds = col_real(st, 15);
        col_copy(g->detail, sizeof g->detail, st, 16);
        /* a violated configuration's detail line carries its certification (runner.c) */
        static const char cert[] = "certified in ball arithmetic at ";
        if (g->verdict == LM_V_VIOLATED && !strncmp(g->detail, cert, sizeof cert - 1)) {
            g->certified = 1;
            g->cert_prec = atoi(g->detail + sizeof cert - 1);
            c->res.certified = 1; /* read with the claim verdict: violated (certified) */
        }
        g->measures = col_dup(st, 17);
        g->series = col_dup(st, 18);
        g->ratios = col_dup(st, 19);
        col_copy(g->axes, sizeof g->axes, st, 20);
        col_copy(g->shrunk, sizeof g->shrunk, st, 21);
        col_copy(g->shrunk_reproduce, sizeof g->shrunk_reproduce, st, 22);
        g->shrunk_data = col_dup(st, 23);
        col_copy(g->escalation, sizeof g->escalation, st, 24);
        g->reading = col_reading(st, 25);
        col_copy(g->reading_note, sizeof g->reading_note, st, 26);
        g->vacuous = (long)sqlite3_column_int64(st, 27); /* NULL reads 0 */
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

int lm_results_load(lm_results *R, const char *dbpath, long long run, char *err, int errlen)
{
    memset(R, 0, sizeof *R);
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL);
    if (rc != SQLITE_OK) {
        snprintf(err, (size_t)errlen, "cannot open results database %s: %s", dbpath,
                 db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        sqlite3_close(db);
        return -1;
    }
    sqlite3_busy_timeout(db, 10000);
    sqlite3_stmt *st = NULL;
    const char *sql = run < 0 ? "SELECT id, commit_id, date, seed, versions, prec, budget, "
                                "quick, finished, seconds FROM runs "
                                "ORDER BY finished DESC, id DESC LIMIT 1"
                              : "SELECT id, commit_id, date, seed, versions, prec, budget, "
                                "quick, finished, seconds FROM runs WHERE id=?1";
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, (size_t)errlen, "%s is not a lemmata results database (%s)", dbpath,
                 sqlite3_errmsg(db));
        sqlite3_close(db);
        return -1;
    }
    if (run >= 0) sqlite3_bind_int64(st, 1, run);
    rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        if (rc == SQLITE_DONE && run < 0)
            snprintf(err, (size_t)errlen, "no runs in %s (run: make verify)", dbpath);
        else if (rc == SQLITE_DONE)
            snprintf(err, (size_t)errlen, "no run %lld in %s", run, dbpath);
        else
            snprintf(err, (size_t)errlen, "reading %s: %s", dbpath, sqlite3_errmsg(db));
        sqlite3_finalize(st);
        sqlite3_close(db);
        return -1;
    }
    R->id = sqlite3_column_int64(st, 0);
    col_copy(R->meta.commit, sizeof R->meta.commit, st, 1);
    col_copy(R->meta.date, sizeof R->meta.date, st, 2);
    const unsigned char *seed = sqlite3_column_text(st, 3);
    R->meta.seed = seed ? strtoull((const char *)seed, NULL, 10) : 0;
    col_copy(R->meta.versions, sizeof R->meta.versions, st, 4);
    R->meta.prec = sqlite3_column_int(st, 5);
    R->meta.budget = sqlite3_column_int(st, 6);
    R->meta.quick = sqlite3_column_int(st, 7);
    R->finished = sqlite3_column_int(st, 8);
    R->seconds = col_real(st, 9);
    sqlite3_finalize(st);

    /* schema 3 records which results incremental verify copied from an earlier run;
     * schema 4 the verdicts of the repaired and probe readings and the check strength */
    int v3 = has_column(db, "claims", "reused_from");
    int v4 = 1;
    static const char *const c4[] = {"repaired_verdict", "probe_verdict", "mutants_run",
                                     "mutants_killed", "mutants_note"};
    for (size_t k = 0; k < sizeof c4 / sizeof c4[0]; k++) v4 &= has_column(db, "claims", c4[k]);
    char csql[600];
    snprintf(csql, sizeof csql,
             "SELECT claim_id, verdict, worst_ratio, instances, precisions, "
             "seconds, reproduce, title, file, kind, source, origin, confidence, "
             "proxy, params, %s, %s FROM claims WHERE run_id=?1",
             v3 ? "reused_from" : "NULL",
             v4 ? "repaired_verdict, probe_verdict, mutants_run, mutants_killed, mutants_note"
                : "NULL, NULL, NULL, NULL, NULL");
    if (sqlite3_prepare_v2(db, csql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, (size_t)errlen, "%s is not a lemmata results database (%s)", dbpath,
                 sqlite3_errmsg(db));
        sqlite3_close(db);
        return -1;
    }
    sqlite3_bind_int64(st, 1, R->id);
    int cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (R->nclaims == cap) {
            int ncap = cap ? 2 * cap : 16;
            lm_results_claim *t = realloc(R->claims, sizeof *t * (size_t)ncap);
            if (!t) {
                rc = SQLITE_NOMEM;
                break;
            }
            R->claims = t;
            cap = ncap;
        }
        lm_results_claim *c = &R->claims[R->nclaims++];
        memset(c, 0, sizeof *c);
        c->claim.id = col_dup(st, 0);
        if (!c->claim.id) c->claim.id = strdup("?");
        c->res.verdict = col_verdict(st, 1);
        c->res.worst_ratio = col_real(st, 2);
        c->res.instances = (long)sqlite3_column_int64(st, 3);
        col_copy(c->res.precisions, sizeof c->res.precisions, st, 4);
        c->res.seconds = col_real(st, 5);
        col_copy(c->res.reproduce, sizeof c->res.reproduce, st, 6);
        c->claim.title = col_dup(st, 7);
        c->claim.file = col_dup(st, 8);
        c->kind_name = col_dup(st, 9);
        c->claim.kind = LM_KIND_COUNT; /* unknown until matched below */
        for (int k = 0; k < LM_KIND_COUNT && c->kind_name; k++)
            if (!strcmp(c->kind_name, lm_kind_name((lm_kind)k))) c->claim.kind = (lm_kind)k;
        c->claim.source = col_dup(st, 10);
        c->claim.origin = col_dup(st, 11);
        c->claim.confidence = col_dup(st, 12);
        c->claim.proxy = sqlite3_column_int(st, 13);
        c->params = col_dup(st, 14);
        c->reused_from = sqlite3_column_type(st, 15) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 15);
        c->res.repaired_verdict = col_verdict_opt(st, 16);
        c->res.probe_verdict = col_verdict_opt(st, 17);
        /* NULL (not measured, or a database before schema 4): 0 run */
        c->res.mutants_run = sqlite3_column_int(st, 18);
        c->res.mutants_killed = sqlite3_column_int(st, 19);
        if (c->res.mutants_run < 0) c->res.mutants_run = 0;
        if (c->res.mutants_killed < 0 || c->res.mutants_run == 0) c->res.mutants_killed = 0;
        if (c->res.mutants_killed > c->res.mutants_run) c->res.mutants_killed = c->res.mutants_run;
        col_copy(c->res.mutants_note, sizeof c->res.mutants_note, st, 20);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        snprintf(err, (size_t)errlen, "reading claims of run %lld from %s: %s", R->id, dbpath,
                 rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(db));
        sqlite3_close(db);
        lm_results_free(R);
        return -1;
    }
    for (int k = 0; k < R->nclaims; k++) {
        if (load_configs(db, R->id, &R->claims[k])) {
            snprintf(err, (size_t)errlen, "reading configurations of %s from %s: %s",
                     R->claims[k].claim.id, dbpath, sqlite3_errmsg(db));
            sqlite3_close(db);
            lm_results_free(R);
            return -1;
        }
    }
    /* live runs (absent from databases written before the table existed) */
    if (sqlite3_prepare_v2(db, "SELECT name, doc, steps, prec, series, summary, seconds FROM live "
                               "WHERE run_id=?1 ORDER BY rowid", -1, &st, NULL) == SQLITE_OK) { /* run order */
        sqlite3_bind_int64(st, 1, R->id);
        while (sqlite3_step(st) == SQLITE_ROW) {
            lm_results_live *t = realloc(R->live, sizeof *t * (size_t)(R->nlive + 1));
            if (!t) break;
            R->live = t;
            lm_results_live *l = &R->live[R->nlive++];
            l->name = col_dup(st, 0);
            l->doc = col_dup(st, 1);
            l->steps = sqlite3_column_int(st, 2);
            l->prec = sqlite3_column_int(st, 3);
            l->series = col_dup(st, 4);
            l->summary = col_dup(st, 5);
            l->seconds = col_real(st, 6);
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    if (R->nclaims > 1) qsort(R->claims, (size_t)R->nclaims, sizeof *R->claims, by_id);
    for (int k = 0; k < R->nclaims; k++) R->claims[k].res.claim = &R->claims[k].claim;
    return 0;
}
