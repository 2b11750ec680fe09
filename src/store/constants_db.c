/* constants_db.c -- the table `constants` of the results database: one row per
 * (claim, constant, seed, budget, quick) measured by `lemmata constants`
 * (schema in lm_constants.h).  Opened with sqlite3 directly, independently of
 * lm_store, so a constants run and a verify run can share the file (SQLite
 * serialises the writers; the busy timeout waits for the other). */
#include "lm_constants.h"
#include "lm_store.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

struct lm_constdb {
    sqlite3 *db;
    char path[512];
};

static const char table_sql[] =
    "CREATE TABLE IF NOT EXISTS constants("
    " claim_id TEXT NOT NULL, param TEXT NOT NULL, seed TEXT NOT NULL,"
    " budget INTEGER NOT NULL, quick INTEGER NOT NULL,"
    " stated REAL, sharpest REAL, breaks_at REAL, direction INTEGER, runs INTEGER,"
    " decided INTEGER, stated_verdict TEXT, msg TEXT, seconds REAL, rtol REAL,"
    " max_runs INTEGER, commit_id TEXT, saved TEXT, method TEXT,"
    " PRIMARY KEY(claim_id, param, seed, budget, quick));";

#define COLS_V1 "claim_id, param, seed, budget, quick, stated, sharpest, breaks_at, direction, " \
                "runs, decided, stated_verdict, msg, seconds, rtol, max_runs, commit_id, saved"
static const char cols[] = COLS_V1 ", method";

/* 1 when the constants table has the column `method` */
static int has_method(sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    int have = 0;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info('constants') WHERE name='method'", -1, &st, NULL) ==
        SQLITE_OK)
        have = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return have;
}

lm_constdb *lm_constdb_open(const char *path, char *err, int errlen)
{
    if (!path || !*path) {
        snprintf(err, (size_t)errlen, "no results database path given");
        return NULL;
    }
    /* an existing file is written only when lm_store would accept it (lm_store.h, integrity
     * rules): never a damaged file, another program's database or a newer schema */
    struct stat sb;
    if (stat(path, &sb) == 0 && !(S_ISREG(sb.st_mode) && sb.st_size == 0) && lm_store_check(path, err, errlen))
        return NULL;
    lm_constdb *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, (size_t)errlen, "out of memory opening %s", path);
        return NULL;
    }
    snprintf(d->path, sizeof d->path, "%s", path);
    int rc = sqlite3_open_v2(path, &d->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK) {
        snprintf(err, (size_t)errlen, "cannot open results database %s: %s", path,
                 d->db ? sqlite3_errmsg(d->db) : sqlite3_errstr(rc));
        lm_constdb_close(d);
        return NULL;
    }
    sqlite3_busy_timeout(d->db, 30000);
    char *msg = NULL;
    /* create and migrate under the write lock: two processes opening an old table at once
     * would otherwise both add the method column, and the second would fail */
    rc = sqlite3_exec(d->db, "BEGIN IMMEDIATE", NULL, NULL, &msg);
    if (rc == SQLITE_OK) {
        sqlite3_free(msg);
        msg = NULL;
        rc = sqlite3_exec(d->db, table_sql, NULL, NULL, &msg);
    }
    if (rc != SQLITE_OK) {
        if (rc == SQLITE_NOTADB)
            snprintf(err, (size_t)errlen, "%s is not an SQLite database", path);
        else
            snprintf(err, (size_t)errlen, "cannot set up the constants table in %s: %s", path,
                     msg ? msg : sqlite3_errstr(rc));
        sqlite3_free(msg);
        lm_constdb_close(d);
        return NULL;
    }
    /* a table of an earlier version has no method column: add it (its rows were bisected) */
    if (!has_method(d->db) &&
        sqlite3_exec(d->db, "ALTER TABLE constants ADD COLUMN method TEXT DEFAULT 'bisection'", NULL, NULL, &msg) !=
            SQLITE_OK) {
        snprintf(err, (size_t)errlen, "cannot add the method column to the constants table of %s: %s", path,
                 msg ? msg : "error");
        sqlite3_free(msg);
        lm_constdb_close(d);
        return NULL;
    }
    rc = sqlite3_exec(d->db, "COMMIT", NULL, NULL, &msg);
    if (rc != SQLITE_OK) {
        snprintf(err, (size_t)errlen, "cannot set up the constants table in %s: %s", path,
                 msg ? msg : sqlite3_errstr(rc));
        sqlite3_free(msg);
        lm_constdb_close(d);
        return NULL;
    }
    return d;
}

void lm_constdb_close(lm_constdb *d)
{
    if (!d) return;
    if (d->db) sqlite3_close(d->db);
    free(d);
}

static void bind_real(sqlite3_stmt *st, int i, double v)
{
    if (isnan(v)) sqlite3_bind_null(st, i);
    else sqlite3_bind_double(st, i, v);
}

static void bind_key(sqlite3_stmt *st, const lm_constant_row *r)
{
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)r->seed);
    sqlite3_bind_text(st, 1, r->claim_id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, r->param, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, seed, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 4, r->budget);
    sqlite3_bind_int(st, 5, r->quick);
}

static int save_row(lm_constdb *d, const lm_constant_row *r);

int lm_constdb_save(lm_constdb *d, lm_constant_row *r)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(r->saved, sizeof r->saved, "%Y-%m-%d %H:%M:%S UTC", &tm);
    return save_row(d, r);
}

int lm_constdb_copy(lm_constdb *d, const lm_constant_row *r)
{
    return save_row(d, r);
}

static int save_row(lm_constdb *d, const lm_constant_row *r)
{
    char sql[512];
    snprintf(sql, sizeof sql,
             "INSERT OR REPLACE INTO constants(%s) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
             "?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
             cols);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "lemmata: %s: %s\n", d->path, sqlite3_errmsg(d->db));
        return -1;
    }
    bind_key(st, r);
    bind_real(st, 6, r->stated);
    bind_real(st, 7, r->sharpest);
    bind_real(st, 8, r->breaks_at);
    sqlite3_bind_int(st, 9, r->direction);
    sqlite3_bind_int(st, 10, r->runs);
    sqlite3_bind_int(st, 11, r->decided);
    sqlite3_bind_text(st, 12, lm_verdict_name(r->stated_verdict), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 13, r->msg, -1, SQLITE_TRANSIENT);
    bind_real(st, 14, r->seconds);
    bind_real(st, 15, r->rtol);
    sqlite3_bind_int(st, 16, r->max_runs);
    sqlite3_bind_text(st, 17, r->commit, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 18, r->saved, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 19, r->method[0] ? r->method : "bisection", -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        fprintf(stderr, "lemmata: %s: saving %s %s: %s\n", d->path, r->claim_id, r->param,
                sqlite3_errmsg(d->db));
        return -1;
    }
    return 0;
}

/* a time-out or a crashed worker (no run finished) is not a measurement: it is redone */
int lm_constdb_has(lm_constdb *d, const lm_constant_row *r)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(d->db,
                           "SELECT 1 FROM constants WHERE claim_id=?1 AND param=?2 AND seed=?3 AND "
                           "budget=?4 AND quick=?5 AND rtol=?6 AND max_runs=?7 AND commit_id=?8 AND runs > 0",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    bind_key(st, r);
    sqlite3_bind_double(st, 6, r->rtol);
    sqlite3_bind_int(st, 7, r->max_runs);
    sqlite3_bind_text(st, 8, r->commit, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

static double col_real(sqlite3_stmt *st, int i)
{
    return sqlite3_column_type(st, i) == SQLITE_NULL ? (double)NAN : sqlite3_column_double(st, i);
}

static void col_copy(char *dst, size_t n, sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    snprintf(dst, n, "%s", t ? (const char *)t : "");
}

int lm_constdb_load(const char *path, uint64_t seed, int budget, int quick, lm_constant_row **rows,
                    int *nrows, char *err, int errlen)
{
    *rows = NULL;
    *nrows = 0;
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL);
    if (rc != SQLITE_OK) {
        snprintf(err, (size_t)errlen, "cannot open results database %s: %s", path,
                 db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        sqlite3_close(db);
        return -1;
    }
    sqlite3_busy_timeout(db, 10000);
    /* no table yet: nothing measured */
    sqlite3_stmt *st = NULL;
    rc = sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name='constants'", -1,
                            &st, NULL);
    if (rc != SQLITE_OK) {
        snprintf(err, (size_t)errlen, "%s is not an SQLite database (%s)", path, sqlite3_errmsg(db));
        sqlite3_close(db);
        return -1;
    }
    int have = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    if (!have) {
        sqlite3_close(db);
        return 0;
    }
    /* the preferred row of each (claim, param) comes first */
    char sql[700];
    int with_method = has_method(db);
    snprintf(sql, sizeof sql,
             "SELECT %s FROM constants WHERE seed=?1 "
             "ORDER BY claim_id, param, (budget=?2 AND quick=?3) DESC, saved DESC",
             with_method ? cols : COLS_V1 ", 'bisection'");
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, (size_t)errlen, "reading the constants table of %s: %s", path, sqlite3_errmsg(db));
        sqlite3_close(db);
        return -1;
    }
    char sseed[32];
    snprintf(sseed, sizeof sseed, "%llu", (unsigned long long)seed);
    sqlite3_bind_text(st, 1, sseed, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 2, budget);
    sqlite3_bind_int(st, 3, quick);
    int cap = 0, n = 0;
    lm_constant_row *v = NULL;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *cid = sqlite3_column_text(st, 0), *par = sqlite3_column_text(st, 1);
        if (!cid || !par) continue;
        if (n && !strcmp(v[n - 1].claim_id, (const char *)cid) && !strcmp(v[n - 1].param, (const char *)par))
            continue; /* a less preferred row of the same constant */
        if (n == cap) {
            int nc = cap ? 2 * cap : 64;
            lm_constant_row *t = realloc(v, sizeof *t * (size_t)nc);
            if (!t) {
                rc = SQLITE_NOMEM;
                break;
            }
            v = t;
            cap = nc;
        }
        lm_constant_row *r = &v[n++];
        memset(r, 0, sizeof *r);
        col_copy(r->claim_id, sizeof r->claim_id, st, 0);
        col_copy(r->param, sizeof r->param, st, 1);
        const unsigned char *s = sqlite3_column_text(st, 2);
        r->seed = s ? strtoull((const char *)s, NULL, 10) : 0;
        r->budget = sqlite3_column_int(st, 3);
        r->quick = sqlite3_column_int(st, 4);
        r->stated = col_real(st, 5);
        r->sharpest = col_real(st, 6);
        r->breaks_at = col_real(st, 7);
        r->direction = sqlite3_column_int(st, 8);
        r->runs = sqlite3_column_int(st, 9);
        r->decided = sqlite3_column_int(st, 10);
        const unsigned char *vn = sqlite3_column_text(st, 11);
        int vi = vn ? lm_verdict_from_name((const char *)vn) : -1;
        r->stated_verdict = vi < 0 ? LM_V_ERROR : (lm_verdict)vi;
        col_copy(r->msg, sizeof r->msg, st, 12);
        r->seconds = col_real(st, 13);
        r->rtol = col_real(st, 14);
        r->max_runs = sqlite3_column_int(st, 15);
        col_copy(r->commit, sizeof r->commit, st, 16);
        col_copy(r->saved, sizeof r->saved, st, 17);
        col_copy(r->method, sizeof r->method, st, 18);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    if (rc != SQLITE_DONE) {
        snprintf(err, (size_t)errlen, "reading the constants table of %s: %s", path,
                 rc == SQLITE_NOMEM ? "out of memory" : "read error");
        free(v);
        return -1;
    }
    *rows = v;
    *nrows = n;
    return 0;
}
