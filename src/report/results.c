/* results.c -- read results back from the results database (read-only).
 * The schema is written by src/store/store.c.
 *
 * What the report weaves is, by default, the latest stored result of every claim and
 * every live run, whatever run it is in: `verify --only P` starts a run holding only
 * P's claims, and a report of that run alone would lose every other paper's results.
 * Each result keeps the run it is stored in, so the report shows its own commit, seed
 * and budget.  A result of an older run is left out only when the claim (or live run)
 * is no longer built while its paper is: a claim renamed or removed since.  `report
 * --run N` reads run N exactly, as before.
 */
#include "lm_paper.h"
#include "lm_verify.h"
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
    free(R->runs);
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

const lm_results_run *lm_results_run_of(const lm_results *R, long long id)
{
    for (int k = 0; k < R->nruns; k++)
        if (R->runs[k].id == id) return &R->runs[k];
    return NULL;
}

/* the provenance of run `id` into *r; 0, 1 when there is no such run, -1 on an error */
static int load_run(sqlite3 *db, long long id, lm_results_run *r)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT id, commit_id, date, seed, versions, prec, budget, quick, "
                               "finished, seconds, (SELECT COUNT(*) FROM claims WHERE run_id=runs.id) "
                               "FROM runs WHERE id=?1", -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        memset(r, 0, sizeof *r);
        r->id = sqlite3_column_int64(st, 0);
        col_copy(r->meta.commit, sizeof r->meta.commit, st, 1);
        col_copy(r->meta.date, sizeof r->meta.date, st, 2);
        const unsigned char *seed = sqlite3_column_text(st, 3);
        r->meta.seed = seed ? strtoull((const char *)seed, NULL, 10) : 0;
        col_copy(r->meta.versions, sizeof r->meta.versions, st, 4);
        r->meta.prec = sqlite3_column_int(st, 5);
        r->meta.budget = sqlite3_column_int(st, 6);
        r->meta.quick = sqlite3_column_int(st, 7);
        r->finished = sqlite3_column_int(st, 8);
        r->seconds = col_real(st, 9);
        r->stored = sqlite3_column_int(st, 10);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? 1 : -1;
}

/* one integer the query returns (def when it returns no row or NULL); -1 on an error */
static int query_int(sqlite3 *db, const char *sql, long long *out, long long def)
{
    sqlite3_stmt *st = NULL;
    *out = def;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) *out = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* adds run `id` to R->runs (once); the entry, NULL when out of memory or on an error */
/* a merged run's shards into r->shards ("shard 0/4 on HOST: 51 claims, 5 live runs, 61.2 s; ...");
 * nothing for a database older than the table */
static void load_shards(sqlite3 *db, lm_results_run *r)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT k, n, host, seconds, claims, live FROM shards WHERE run_id=?1 ORDER BY k", -1,
                           &st, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(st, 1, r->id);
    size_t w = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *host = (const char *)sqlite3_column_text(st, 2);
        char one[300];
        int live = sqlite3_column_int(st, 5);
        char lv[40] = "";
        if (live) snprintf(lv, sizeof lv, ", %d live run%s", live, live == 1 ? "" : "s");
        int nc = sqlite3_column_int(st, 4);
        snprintf(one, sizeof one, "%sshard %d/%d on %.120s: %d claim%s%s, %.1f s", r->nshards ? "; " : "",
                 sqlite3_column_int(st, 0), sqlite3_column_int(st, 1), host ? host : "an unknown host", nc,
                 nc == 1 ? "" : "s", lv, sqlite3_column_double(st, 3));
        r->nshards++;
        if (w + strlen(one) + 8 < sizeof r->shards) w += (size_t)snprintf(r->shards + w, sizeof r->shards - w, "%s", one);
        else if (!strstr(r->shards, "; ...")) w += (size_t)snprintf(r->shards + w, sizeof r->shards - w, "; ...");
    }
    sqlite3_finalize(st);
}

static lm_results_run *note_run(sqlite3 *db, lm_results *R, long long id, int *bad)
{
    for (int k = 0; k < R->nruns; k++)
        if (R->runs[k].id == id) return &R->runs[k];
    lm_results_run r;
    int lr = load_run(db, id, &r);
    if (lr) { /* a result whose run row is gone (never written so): its id alone */
        if (lr < 0) {
            *bad = 1;
            return NULL;
        }
        memset(&r, 0, sizeof r);
        r.id = id;
        r.seconds = NAN;
    } else
        load_shards(db, &r);
    lm_results_run *t = realloc(R->runs, sizeof *t * (size_t)(R->nruns + 1));
    if (!t) {
        *bad = 1;
        return NULL;
    }
    R->runs = t;
    R->runs[R->nruns] = r;
    return &R->runs[R->nruns++];
}

static int runs_newest_first(const void *a, const void *b)
{
    const lm_results_run *x = a, *y = b;
    return x->id < y->id ? 1 : x->id > y->id ? -1 : 0;
}

/* live runs in the order the build declares them (papers, then their entries); others
 * after them in the order they were stored */
typedef struct {
    lm_results_live l;
    long long key;
} live_sorted;

static int by_live_key(const void *a, const void *b)
{
    const live_sorted *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key ? 1 : 0;
}

static long long live_key(const char *name, long long seq)
{
    int k = 0;
    const lm_paper *p = name ? lm_paper_of_live(name, &k) : NULL;
    for (int j = 0; p && j < lm_paper_count; j++)
        if (lm_papers[j] == p) return (long long)j * 100000 + k;
    return 1000000000LL + seq;
}

/* a result of an older run whose claim this build no longer has, while it builds the paper */
static int stale_claim(const char *id)
{
    return id && !lm_claim_find(id) && lm_paper_of_claim(id) != NULL;
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
    R->merged = run < 0;
    long long lo = 0, hi = 0, fallback = 0;
    if (query_int(db, "SELECT MIN(id) FROM runs", &lo, 0) || query_int(db, "SELECT MAX(id) FROM runs", &hi, 0) ||
        query_int(db, "SELECT id FROM runs ORDER BY finished DESC, id DESC LIMIT 1", &fallback, 0)) {
        snprintf(err, (size_t)errlen, "%s is not a lemmata results database (%s)", dbpath, sqlite3_errmsg(db));
        sqlite3_close(db);
        return -1;
    }
    if (!hi) {
        snprintf(err, (size_t)errlen, "no runs in %s (run: make verify)", dbpath);
        sqlite3_close(db);
        return -1;
    }
    if (!R->merged) {
        long long found = 0;
        char q[80];
        snprintf(q, sizeof q, "SELECT id FROM runs WHERE id=%lld", run);
        if (query_int(db, q, &found, 0)) {
            snprintf(err, (size_t)errlen, "reading %s: %s", dbpath, sqlite3_errmsg(db));
            sqlite3_close(db);
            return -1;
        }
        if (!found) {
            if (lo == hi) snprintf(err, (size_t)errlen, "no run %lld in %s (it holds run %lld)", run, dbpath, lo);
            else snprintf(err, (size_t)errlen, "no run %lld in %s (its runs are numbered %lld to %lld)", run, dbpath, lo, hi);
            sqlite3_close(db);
            return -1;
        }
    }
    R->newest = hi;
    long long ns = 0;
    char q[96];
    snprintf(q, sizeof q, "SELECT COUNT(*) FROM claims WHERE run_id=%lld", hi);
    if (query_int(db, q, &ns, 0) == 0) R->newest_stored = (int)ns;

    /* schema 3 records which results incremental verify copied from an earlier run;
     * schema 4 the verdicts of the repaired and probe readings and the check strength */
    int v3 = has_column(db, "claims", "reused_from");
    int v4 = 1;
    static const char *const c4[] = {"repaired_verdict", "probe_verdict", "mutants_run",
                                     "mutants_killed", "mutants_note"};
    for (size_t k = 0; k < sizeof c4 / sizeof c4[0]; k++) v4 &= has_column(db, "claims", c4[k]);
    /* the latest result of each claim: its row in the newest run that has one */
    char csql[900];
    snprintf(csql, sizeof csql,
             "SELECT c.claim_id, c.verdict, c.worst_ratio, c.instances, c.precisions, "
             "c.seconds, c.reproduce, c.title, c.file, c.kind, c.source, c.origin, c.confidence, "
             "c.proxy, c.params, %s, %s, c.run_id FROM claims c %s",
             v3 ? "c.reused_from" : "NULL",
             v4 ? "c.repaired_verdict, c.probe_verdict, c.mutants_run, c.mutants_killed, c.mutants_note"
                : "NULL, NULL, NULL, NULL, NULL",
             R->merged ? "JOIN (SELECT claim_id AS k, MAX(run_id) AS r FROM claims GROUP BY claim_id) m "
                         "ON c.run_id=m.r AND c.claim_id=m.k"
                       : "WHERE c.run_id=?1");
    if (sqlite3_prepare_v2(db, csql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, (size_t)errlen, "%s is not a lemmata results database (%s)", dbpath,
                 sqlite3_errmsg(db));
        sqlite3_close(db);
        return -1;
    }
    if (!R->merged) sqlite3_bind_int64(st, 1, run);
    int cap = 0;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        long long from = sqlite3_column_int64(st, 21);
        if (R->merged && from != hi && stale_claim((const char *)sqlite3_column_text(st, 0))) {
            R->dropped++;
            continue;
        }
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
        c->run = from;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        snprintf(err, (size_t)errlen, "reading claims from %s: %s", dbpath,
                 rc == SQLITE_NOMEM ? "out of memory" : sqlite3_errmsg(db));
        sqlite3_close(db);
        lm_results_free(R);
        return -1;
    }
    for (int k = 0; k < R->nclaims; k++) {
        if (load_configs(db, R->claims[k].run, &R->claims[k])) {
            snprintf(err, (size_t)errlen, "reading configurations of %s from %s: %s",
                     R->claims[k].claim.id, dbpath, sqlite3_errmsg(db));
            sqlite3_close(db);
            lm_results_free(R);
            return -1;
        }
    }
    /* live runs (absent from databases written before the table existed): the latest of
     * each name likewise */
    const char *lsql = R->merged ? "SELECT l.name, l.doc, l.steps, l.prec, l.series, l.summary, l.seconds, "
                                   "l.run_id FROM live l JOIN (SELECT name AS k, MAX(run_id) AS r FROM live "
                                   "GROUP BY name) m ON l.run_id=m.r AND l.name=m.k ORDER BY l.run_id, l.rowid"
                                 : "SELECT name, doc, steps, prec, series, summary, seconds, run_id FROM live "
                                   "WHERE run_id=?1 ORDER BY rowid";
    if (sqlite3_prepare_v2(db, lsql, -1, &st, NULL) == SQLITE_OK) {
        if (!R->merged) sqlite3_bind_int64(st, 1, run);
        live_sorted *ls = NULL;
        int nls = 0;
        while (sqlite3_step(st) == SQLITE_ROW) {
            const char *name = (const char *)sqlite3_column_text(st, 0);
            long long from = sqlite3_column_int64(st, 7);
            if (R->merged && from != hi && name && !lm_paper_of_live(name, NULL)) {
                R->dropped++;
                continue;
            }
            live_sorted *t = realloc(ls, sizeof *t * (size_t)(nls + 1));
            if (!t) break;
            ls = t;
            live_sorted *e = &ls[nls];
            lm_results_live *l = &e->l;
            l->name = col_dup(st, 0);
            l->doc = col_dup(st, 1);
            l->steps = sqlite3_column_int(st, 2);
            l->prec = sqlite3_column_int(st, 3);
            l->series = col_dup(st, 4);
            l->summary = col_dup(st, 5);
            l->seconds = col_real(st, 6);
            l->run = from;
            e->key = live_key(l->name, nls);
            nls++;
        }
        sqlite3_finalize(st);
        if (nls > 1) qsort(ls, (size_t)nls, sizeof *ls, by_live_key);
        R->live = nls ? malloc(sizeof *R->live * (size_t)nls) : NULL;
        if (R->live)
            for (int k = 0; k < nls; k++) R->live[R->nlive++] = ls[k].l;
        else
            for (int k = 0; k < nls; k++) {
                free(ls[k].l.name);
                free(ls[k].l.doc);
                free(ls[k].l.series);
                free(ls[k].l.summary);
            }
        free(ls);
    }

    /* the runs the results come from; the principal one (most results, then newest)
     * stands for the report in its headings */
    int bad = 0;
    for (int k = 0; k < R->nclaims && !bad; k++) {
        lm_results_run *r = note_run(db, R, R->claims[k].run, &bad);
        if (r) r->nclaims++;
    }
    for (int k = 0; k < R->nlive && !bad; k++) {
        lm_results_run *r = note_run(db, R, R->live[k].run, &bad);
        if (r) r->nlive++;
    }
    if (!bad && R->nruns == 0) note_run(db, R, R->merged ? fallback : run, &bad);
    if (bad) {
        snprintf(err, (size_t)errlen, "reading the runs of %s: %s", dbpath, sqlite3_errmsg(db));
        sqlite3_close(db);
        lm_results_free(R);
        return -1;
    }
    sqlite3_close(db);
    if (R->nruns > 1) qsort(R->runs, (size_t)R->nruns, sizeof *R->runs, runs_newest_first);
    const lm_results_run *p = &R->runs[0];
    for (int k = 1; k < R->nruns; k++)
        if (R->runs[k].nclaims + R->runs[k].nlive > p->nclaims + p->nlive) p = &R->runs[k];
    R->id = p->id;
    R->meta = p->meta;
    R->finished = p->finished;
    R->seconds = p->seconds;
    if (R->nclaims > 1) qsort(R->claims, (size_t)R->nclaims, sizeof *R->claims, by_id);
    for (int k = 0; k < R->nclaims; k++) R->claims[k].res.claim = &R->claims[k].claim;
    return 0;
}
