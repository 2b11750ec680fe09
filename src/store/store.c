/* store.c -- the results database (SQLite), see lm_store.h.
 *
 * Tables (columns beyond the header's schema comment are marked +):
 *
 *   runs(id INTEGER PRIMARY KEY, commit_id, date, seed TEXT (decimal u64),
 *        versions, prec, budget, quick, finished 0/1, seconds, +finished_date)
 *   claims(run_id, claim_id, verdict (name), worst_ratio (NULL = NaN),
 *          instances, precisions, seconds, reproduce,
 *          +seq (save order), +title, +file, +kind (lm_kind_name), +source,
 *          +origin, +confidence, +proxy, +params ("name\tdefault\tchoices\tdoc"
 *          lines), +nconfig, +saved (UTC time)),  PRIMARY KEY(run_id, claim_id)
 *   configs(run_id, claim_id, +seq (configuration order), config, verdict, ...
 *           as in the header ..., +worst_index),  PRIMARY KEY(run_id, claim_id, seq)
 *
 * The claim's descriptive fields are stored so the report can be woven from
 * the database and the claim files alone.  Verdicts and kinds are stored by
 * name, so the rows stay readable (and valid) if the enums are reordered.
 * A claim and its configurations are written in one transaction.
 */
#include "lm_store.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct lm_store {
    sqlite3 *db;
    char path[512];
};

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS runs("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " commit_id TEXT NOT NULL, date TEXT, seed TEXT NOT NULL, versions TEXT,"
    " prec INTEGER NOT NULL, budget INTEGER NOT NULL, quick INTEGER NOT NULL,"
    " finished INTEGER NOT NULL DEFAULT 0, seconds REAL, finished_date TEXT);"
    "CREATE TABLE IF NOT EXISTS claims("
    " run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    " claim_id TEXT NOT NULL, seq INTEGER, verdict TEXT NOT NULL, worst_ratio REAL,"
    " instances INTEGER, precisions TEXT, seconds REAL, reproduce TEXT,"
    " title TEXT, file TEXT, kind TEXT, source TEXT, origin TEXT, confidence TEXT,"
    " proxy INTEGER, params TEXT, nconfig INTEGER, saved TEXT,"
    " PRIMARY KEY(run_id, claim_id));"
    "CREATE TABLE IF NOT EXISTS configs("
    " run_id INTEGER NOT NULL, claim_id TEXT NOT NULL, seq INTEGER NOT NULL,"
    " config TEXT NOT NULL, verdict TEXT NOT NULL, worst_ratio REAL,"
    " instances INTEGER, observations INTEGER, assumption_failed INTEGER,"
    " errors INTEGER, breaks_double INTEGER, confirmed INTEGER, artifacts INTEGER,"
    " near_misses INTEGER, worst_where TEXT, worst_index INTEGER, reproduce TEXT,"
    " precisions TEXT, seconds REAL, detail TEXT, measures TEXT, series TEXT,"
    " ratios TEXT, axes TEXT, shrunk TEXT, shrunk_reproduce TEXT, shrunk_data TEXT, escalation TEXT,"
    " PRIMARY KEY(run_id, claim_id, seq),"
    " FOREIGN KEY(run_id, claim_id) REFERENCES claims(run_id, claim_id) ON DELETE CASCADE);"
    "CREATE TABLE IF NOT EXISTS live("
    " run_id INTEGER NOT NULL, name TEXT NOT NULL, doc TEXT, steps INTEGER, prec INTEGER,"
    " series TEXT, summary TEXT, seconds REAL, PRIMARY KEY(run_id, name));"
    "CREATE INDEX IF NOT EXISTS runs_resume ON runs(finished, commit_id, seed);";

static void complain(lm_store *s, const char *what)
{
    fprintf(stderr, "lemmata: store %s: %s: %s\n", s->path, what, sqlite3_errmsg(s->db));
}

static int exec(lm_store *s, const char *sql, const char *what)
{
    char *msg = NULL;
    if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "lemmata: store %s: %s: %s\n", s->path, what, msg ? msg : "?");
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

static sqlite3_stmt *prep(lm_store *s, const char *sql)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
        complain(s, "prepare");
        return NULL;
    }
    return st;
}

/* NULL-safe text binding (SQLITE_TRANSIENT: the statement keeps a copy) */
static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
    if (v) sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
    else sqlite3_bind_null(st, i);
}

/* NaN is stored as NULL */
static void bind_real(sqlite3_stmt *st, int i, double v)
{
    if (isnan(v)) sqlite3_bind_null(st, i);
    else sqlite3_bind_double(st, i, v);
}

lm_store *lm_store_open(const char *path, char *err, int errlen)
{
    if (!path || !*path) {
        snprintf(err, (size_t)errlen, "no results database path given");
        return NULL;
    }
    lm_store *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, (size_t)errlen, "out of memory opening %s", path);
        return NULL;
    }
    snprintf(s->path, sizeof s->path, "%s", path);
    int rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK) {
        snprintf(err, (size_t)errlen, "cannot open results database %s: %s", path,
                 s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
        lm_store_close(s);
        return NULL;
    }
    sqlite3_busy_timeout(s->db, 10000);
    char *msg = NULL;
    rc = sqlite3_exec(s->db, "PRAGMA foreign_keys=ON;", NULL, NULL, &msg);
    if (rc == SQLITE_OK) rc = sqlite3_exec(s->db, schema, NULL, NULL, &msg);
    if (rc != SQLITE_OK) {
        if (rc == SQLITE_NOTADB)
            snprintf(err, (size_t)errlen, "%s is not an SQLite database", path);
        else
            snprintf(err, (size_t)errlen, "cannot set up results database %s: %s", path,
                     msg ? msg : sqlite3_errstr(rc));
        sqlite3_free(msg);
        lm_store_close(s);
        return NULL;
    }
    /* columns added after the first schema: a database written by an older lemmata gains them */
    static const char *const added[][3] = {
        {"configs", "shrunk", "TEXT"}, {"configs", "shrunk_reproduce", "TEXT"},
        {"configs", "shrunk_data", "TEXT"}, {"configs", "escalation", "TEXT"},
        {"claims", "fingerprint", "TEXT"}, {"claims", "reused_from", "INTEGER"},
        {"live", "fingerprint", "TEXT"}, {"live", "reused_from", "INTEGER"}};
    for (size_t k = 0; k < sizeof added / sizeof *added; k++) {
        char sql[160];
        sqlite3_stmt *q = NULL;
        snprintf(sql, sizeof sql, "SELECT %s FROM %s LIMIT 0", added[k][1], added[k][0]);
        if (sqlite3_prepare_v2(s->db, sql, -1, &q, NULL) == SQLITE_OK) {
            sqlite3_finalize(q);
            continue;
        }
        snprintf(sql, sizeof sql, "ALTER TABLE %s ADD COLUMN %s %s", added[k][0], added[k][1], added[k][2]);
        if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
            snprintf(err, (size_t)errlen, "cannot add column %s to %s: %s", added[k][1], path,
                     sqlite3_errmsg(s->db));
            lm_store_close(s);
            return NULL;
        }
    }
    /* 2: configs carry the shrunk counterexample and the near-miss escalation;
     * 3: claims and live runs carry the fingerprint incremental verify reuses them by */
    sqlite3_exec(s->db, "PRAGMA user_version=3;", NULL, NULL, NULL);
    return s;
}

void lm_store_close(lm_store *s)
{
    if (!s) return;
    if (s->db) sqlite3_close(s->db);
    free(s);
}

static void utc_now(char *buf, size_t n)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, n, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

long long lm_store_begin_run(lm_store *s, const lm_run_meta *m, int *resumed)
{
    int dummy;
    if (!resumed) resumed = &dummy;
    *resumed = 0;
    if (!s || !m) return -1;
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)m->seed);
    sqlite3_stmt *st = prep(s, "SELECT id FROM runs WHERE finished=0 AND commit_id=?1 AND "
                               "seed=?2 AND prec=?3 AND budget=?4 AND quick=?5 "
                               "ORDER BY id DESC LIMIT 1");
    if (!st) return -1;
    bind_text(st, 1, m->commit);
    bind_text(st, 2, seed);
    sqlite3_bind_int(st, 3, m->prec);
    sqlite3_bind_int(st, 4, m->budget);
    sqlite3_bind_int(st, 5, m->quick ? 1 : 0);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        long long id = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        *resumed = 1;
        return id;
    }
    if (rc != SQLITE_DONE) complain(s, "looking for a run to resume");
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) return -1;

    char date[40];
    if (m->date[0]) snprintf(date, sizeof date, "%s", m->date);
    else utc_now(date, sizeof date);
    st = prep(s, "INSERT INTO runs(commit_id, date, seed, versions, prec, budget, quick, "
                 "finished) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, 0)");
    if (!st) return -1;
    bind_text(st, 1, m->commit);
    bind_text(st, 2, date);
    bind_text(st, 3, seed);
    bind_text(st, 4, m->versions);
    sqlite3_bind_int(st, 5, m->prec);
    sqlite3_bind_int(st, 6, m->budget);
    sqlite3_bind_int(st, 7, m->quick ? 1 : 0);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        complain(s, "creating a run");
        return -1;
    }
    return sqlite3_last_insert_rowid(s->db);
}

int lm_store_has_claim(lm_store *s, long long run, const char *claim_id)
{
    if (!s || !claim_id) return 0;
    sqlite3_stmt *st = prep(s, "SELECT 1 FROM claims WHERE run_id=?1 AND claim_id=?2");
    if (!st) return 0;
    sqlite3_bind_int64(st, 1, run);
    bind_text(st, 2, claim_id);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) complain(s, "looking up a claim");
    sqlite3_finalize(st);
    return rc == SQLITE_ROW;
}

/* "name\tdefault\tchoices\tdoc\n" per parameter; tabs/newlines in text -> ' ' */
static char *params_text(const lm_claim *c)
{
    size_t cap = 1, n = 0;
    if (!c->params) return NULL;
    for (const lm_param_def *p = c->params; p->name; p++)
        cap += strlen(p->name) + 40 + (p->choices ? strlen(p->choices) : 0) +
               (p->doc ? strlen(p->doc) : 0) + 4;
    if (cap == 1) return NULL;
    char *s = malloc(cap);
    if (!s) return NULL;
    for (const lm_param_def *p = c->params; p->name; p++) {
        const char *fields[] = {p->name, NULL, p->choices ? p->choices : "", p->doc ? p->doc : ""};
        char def[40];
        snprintf(def, sizeof def, "%.17g", p->def);
        fields[1] = def;
        for (int f = 0; f < 4; f++) {
            for (const char *q = fields[f]; *q; q++)
                s[n++] = (*q == '\t' || *q == '\n' || *q == '\r') ? ' ' : *q;
            s[n++] = f < 3 ? '\t' : '\n';
        }
    }
    s[n] = 0;
    return s;
}

int lm_store_save_claim(lm_store *s, long long run, const lm_claim_result *r)
{
    if (!s || !r) return -1;
    const lm_claim *c = r->claim;
    if (!c || !c->id) {
        fprintf(stderr, "lemmata: store %s: claim result without a claim\n", s->path);
        return -1;
    }
    if (r->nconfig < 0 || (r->nconfig > 0 && !r->cfg)) {
        fprintf(stderr, "lemmata: store %s: %s: bad configuration list\n", s->path, c->id);
        return -1;
    }
    if (exec(s, "BEGIN IMMEDIATE", "starting a transaction")) return -1;
    char saved[40];
    utc_now(saved, sizeof saved);
    char *params = params_text(c);
    sqlite3_stmt *st = NULL;
    const char *what = "deleting an earlier copy of the claim";
    st = prep(s, "DELETE FROM configs WHERE run_id=?1 AND claim_id=?2");
    if (!st) goto fail;
    sqlite3_bind_int64(st, 1, run);
    bind_text(st, 2, c->id);
    if (sqlite3_step(st) != SQLITE_DONE) goto fail;
    sqlite3_finalize(st);

    what = "saving the claim";
    st = prep(s, "INSERT OR REPLACE INTO claims(run_id, claim_id, seq, verdict, worst_ratio, "
                 "instances, precisions, seconds, reproduce, title, file, kind, source, origin, "
                 "confidence, proxy, params, nconfig, saved) VALUES(?1, ?2, "
                 "(SELECT COALESCE(MAX(seq), 0) + 1 FROM claims WHERE run_id=?1), ?3, ?4, ?5, "
                 "?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)");
    if (!st) goto fail;
    sqlite3_bind_int64(st, 1, run);
    bind_text(st, 2, c->id);
    bind_text(st, 3, lm_verdict_name(r->verdict));
    bind_real(st, 4, r->worst_ratio);
    sqlite3_bind_int64(st, 5, r->instances);
    bind_text(st, 6, r->precisions);
    bind_real(st, 7, r->seconds);
    bind_text(st, 8, r->reproduce);
    bind_text(st, 9, c->title);
    bind_text(st, 10, c->file);
    bind_text(st, 11, lm_kind_name(c->kind));
    bind_text(st, 12, c->source);
    bind_text(st, 13, c->origin);
    bind_text(st, 14, c->confidence);
    sqlite3_bind_int(st, 15, c->proxy);
    bind_text(st, 16, params);
    sqlite3_bind_int(st, 17, r->nconfig);
    bind_text(st, 18, saved);
    if (sqlite3_step(st) != SQLITE_DONE) goto fail;
    sqlite3_finalize(st);

    what = "saving a configuration";
    st = prep(s, "INSERT INTO configs(run_id, claim_id, seq, config, verdict, worst_ratio, "
                 "instances, observations, assumption_failed, errors, breaks_double, confirmed, "
                 "artifacts, near_misses, worst_where, worst_index, reproduce, precisions, "
                 "seconds, detail, measures, series, ratios, axes, shrunk, shrunk_reproduce, "
                 "shrunk_data, escalation) VALUES(?1, ?2, ?3, ?4, ?5, "
                 "?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, "
                 "?22, ?23, ?24, ?25, ?26, ?27, ?28)");
    if (!st) goto fail;
    for (int k = 0; k < r->nconfig; k++) {
        const lm_config_result *g = &r->cfg[k];
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
        sqlite3_bind_int64(st, 1, run);
        bind_text(st, 2, c->id);
        sqlite3_bind_int(st, 3, k);
        bind_text(st, 4, g->config);
        bind_text(st, 5, lm_verdict_name(g->verdict));
        bind_real(st, 6, g->worst_ratio);
        sqlite3_bind_int64(st, 7, g->instances);
        sqlite3_bind_int64(st, 8, g->observations);
        sqlite3_bind_int64(st, 9, g->assumption_failed);
        sqlite3_bind_int64(st, 10, g->errors);
        sqlite3_bind_int64(st, 11, g->breaks_double);
        sqlite3_bind_int64(st, 12, g->confirmed);
        sqlite3_bind_int64(st, 13, g->artifacts);
        sqlite3_bind_int64(st, 14, g->near_misses);
        bind_text(st, 15, g->worst_where);
        sqlite3_bind_int(st, 16, g->worst_index);
        bind_text(st, 17, g->reproduce);
        bind_text(st, 18, g->precisions);
        bind_real(st, 19, g->seconds);
        bind_text(st, 20, g->detail);
        bind_text(st, 21, g->measures);
        bind_text(st, 22, g->series);
        bind_text(st, 23, g->ratios);
        bind_text(st, 24, g->axes);
        bind_text(st, 25, g->shrunk[0] ? g->shrunk : NULL);
        bind_text(st, 26, g->shrunk_reproduce[0] ? g->shrunk_reproduce : NULL);
        bind_text(st, 27, g->shrunk_data);
        bind_text(st, 28, g->escalation[0] ? g->escalation : NULL);
        if (sqlite3_step(st) != SQLITE_DONE) goto fail;
    }
    sqlite3_finalize(st);
    st = NULL;
    free(params);
    what = "committing the claim";
    if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) goto fail;
    return 0;
fail:
    fprintf(stderr, "lemmata: store %s: %s %s: %s\n", s->path, what, c->id,
            sqlite3_errmsg(s->db));
    if (st) sqlite3_finalize(st);
    free(params);
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

int lm_store_finish_run(lm_store *s, long long run, double seconds)
{
    if (!s) return -1;
    char date[40];
    utc_now(date, sizeof date);
    sqlite3_stmt *st =
        prep(s, "UPDATE runs SET finished=1, seconds=?2, finished_date=?3 WHERE id=?1");
    if (!st) return -1;
    sqlite3_bind_int64(st, 1, run);
    bind_real(st, 2, seconds);
    bind_text(st, 3, date);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        complain(s, "finishing the run");
        return -1;
    }
    if (sqlite3_changes(s->db) != 1) {
        fprintf(stderr, "lemmata: store %s: no run %lld to finish\n", s->path, run);
        return -1;
    }
    return 0;
}

int lm_store_verdict_counts(lm_store *s, long long run, long *counts)
{
    if (!s || !counts) return -1;
    for (int v = 0; v < LM_V_COUNT; v++) counts[v] = 0;
    sqlite3_stmt *st =
        prep(s, "SELECT verdict, COUNT(*) FROM claims WHERE run_id=?1 GROUP BY verdict");
    if (!st) return -1;
    sqlite3_bind_int64(st, 1, run);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        int v = name ? lm_verdict_from_name(name) : -1;
        /* an unknown name (newer binary wrote it) is never counted as a pass */
        if (v < 0) v = LM_V_ERROR;
        counts[v] += (long)sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        complain(s, "counting verdicts");
        return -1;
    }
    return 0;
}

long long lm_store_latest_run(lm_store *s)
{
    if (!s) return -1;
    sqlite3_stmt *st =
        prep(s, "SELECT id FROM runs ORDER BY finished DESC, id DESC LIMIT 1");
    if (!st) return -1;
    long long id = -1;
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) id = sqlite3_column_int64(st, 0);
    else if (rc != SQLITE_DONE) complain(s, "looking for the latest run");
    sqlite3_finalize(st);
    return id;
}

int lm_store_has_live(lm_store *s, long long run, const char *name)
{
    sqlite3_stmt *st = prep(s, "SELECT 1 FROM live WHERE run_id=?1 AND name=?2");
    if (!st) return 0;
    sqlite3_bind_int64(st, 1, run);
    bind_text(st, 2, name);
    int found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

int lm_store_save_live(lm_store *s, long long run, const char *name, const char *doc, int steps,
                       int prec, const char *series, const char *summary, double seconds)
{
    sqlite3_stmt *st = prep(s, "INSERT OR REPLACE INTO live(run_id, name, doc, steps, prec, "
                               "series, summary, seconds) VALUES(?1,?2,?3,?4,?5,?6,?7,?8)");
    if (!st) return -1;
    sqlite3_bind_int64(st, 1, run);
    bind_text(st, 2, name);
    bind_text(st, 3, doc);
    sqlite3_bind_int(st, 4, steps);
    sqlite3_bind_int(st, 5, prec);
    bind_text(st, 6, series);
    bind_text(st, 7, summary);
    bind_real(st, 8, seconds);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    if (rc) complain(s, "saving a live run");
    sqlite3_finalize(st);
    return rc;
}

/* ---- incremental verify ---- */

int lm_store_set_fingerprint(lm_store *s, long long run, int live, const char *key, const char *fp)
{
    sqlite3_stmt *st = prep(s, live ? "UPDATE live SET fingerprint=?3 WHERE run_id=?1 AND name=?2"
                                    : "UPDATE claims SET fingerprint=?3 WHERE run_id=?1 AND claim_id=?2");
    if (!st) return -1;
    sqlite3_bind_int64(st, 1, run);
    bind_text(st, 2, key);
    bind_text(st, 3, fp);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    if (rc) complain(s, "recording a fingerprint");
    sqlite3_finalize(st);
    return rc;
}

long long lm_store_find_fingerprint(lm_store *s, long long run, int live, const char *key, const char *fp)
{
    if (!fp || !*fp) return -1;
    sqlite3_stmt *st = prep(s, live ? "SELECT run_id FROM live WHERE name=?1 AND fingerprint=?2 AND "
                                      "run_id<>?3 ORDER BY run_id DESC LIMIT 1"
                                    : "SELECT run_id FROM claims WHERE claim_id=?1 AND fingerprint=?2 AND "
                                      "run_id<>?3 ORDER BY run_id DESC LIMIT 1");
    if (!st) return -1;
    bind_text(st, 1, key);
    bind_text(st, 2, fp);
    sqlite3_bind_int64(st, 3, run);
    long long id = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
    sqlite3_finalize(st);
    return id;
}

/* "a, b, c" of table's columns except those listed in skip (comma-separated, padded) */
static int column_list(lm_store *s, const char *table, const char *skip, char *out, size_t n)
{
    char sql[80];
    snprintf(sql, sizeof sql, "PRAGMA table_info(%s)", table);
    sqlite3_stmt *st = prep(s, sql);
    if (!st) return -1;
    size_t w = 0;
    out[0] = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *c = (const char *)sqlite3_column_text(st, 1);
        char pad[80];
        snprintf(pad, sizeof pad, ",%s,", c ? c : "");
        if (!c || strstr(skip, pad)) continue;
        w += (size_t)snprintf(out + w, n > w ? n - w : 0, "%s%s", w ? ", " : "", c);
    }
    sqlite3_finalize(st);
    return w < n ? 0 : -1;
}

int lm_store_copy(lm_store *s, long long from, long long to, int live, const char *key)
{
    char cols[2048], sql[6000];
    if (exec(s, "BEGIN IMMEDIATE", "starting a transaction")) return -1;
    int ok = 1;
    if (live) {
        ok = !column_list(s, "live", ",run_id,reused_from,", cols, sizeof cols);
        snprintf(sql, sizeof sql, "INSERT OR REPLACE INTO live(run_id, reused_from, %s) SELECT ?1, ?2, %s "
                                  "FROM live WHERE run_id=?2 AND name=?3", cols, cols);
    } else {
        ok = !column_list(s, "claims", ",run_id,seq,reused_from,", cols, sizeof cols);
        snprintf(sql, sizeof sql, "INSERT OR REPLACE INTO claims(run_id, seq, reused_from, %s) SELECT ?1, "
                                  "(SELECT COALESCE(MAX(seq), 0) + 1 FROM claims WHERE run_id=?1), ?2, %s "
                                  "FROM claims WHERE run_id=?2 AND claim_id=?3", cols, cols);
    }
    for (int pass = 0; ok && pass < (live ? 1 : 3); pass++) {
        if (pass == 1) {
            snprintf(sql, sizeof sql, "DELETE FROM configs WHERE run_id=?1 AND claim_id=?3 AND ?2 IS NOT NULL");
        } else if (pass == 2) {
            ok = !column_list(s, "configs", ",run_id,", cols, sizeof cols);
            snprintf(sql, sizeof sql, "INSERT INTO configs(run_id, %s) SELECT ?1, %s FROM configs "
                                      "WHERE run_id=?2 AND claim_id=?3", cols, cols);
        }
        sqlite3_stmt *st = ok ? prep(s, sql) : NULL;
        if (!st) { ok = 0; break; }
        sqlite3_bind_int64(st, 1, to);
        sqlite3_bind_int64(st, 2, from);
        bind_text(st, 3, key);
        ok = sqlite3_step(st) == SQLITE_DONE;
        sqlite3_finalize(st);
    }
    if (!ok) {
        complain(s, "copying an unchanged result");
        exec(s, "ROLLBACK", "rolling back");
        return -1;
    }
    return exec(s, "COMMIT", "committing a copied result");
}
