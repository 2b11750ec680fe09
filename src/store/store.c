/* store.c -- the results database (SQLite), see lm_store.h.
 *
 * The schema is the table `tables` below: every table and column the code reads or
 * writes, with the schema version (PRAGMA user_version) that added it.  It is the one
 * place the schema is written down: CREATE TABLE, the migration of older databases,
 * the check on open and the column lists of lm_store_copy are all derived from it.
 *
 *   runs    one row per verify run; seed is TEXT (decimal u64)
 *   claims  one row per (run, claim): verdict (name), worst_ratio (NULL = NaN), the
 *           claim's descriptive fields (title, file, kind = lm_kind_name, source,
 *           origin, confidence, proxy, params = "name\tdefault\tchoices\tdoc" lines),
 *           seq = save order, saved = UTC time; fingerprint / reused_from (schema 3)
 *   configs one row per (run, claim, configuration seq)
 *   live    one row per (run, live training run)
 *
 * The claim's descriptive fields are stored so the report can be woven from
 * the database and the claim files alone.  Verdicts and kinds are stored by
 * name, so the rows stay readable (and valid) if the enums are reordered.
 * A claim and its configurations are written in one transaction.
 *
 * Error handling (lm_store.h, "Integrity rules"): every sqlite3 call is checked; every
 * write transaction ends in COMMIT or, on any error (including a failed COMMIT), in
 * ROLLBACK; SQLITE_CORRUPT / SQLITE_NOTADB mark the handle damaged.
 */
#include "lm_store.h"

#include <errno.h>
#include <math.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct lm_store {
    sqlite3 *db;
    int damaged; /* an SQLITE_CORRUPT / SQLITE_NOTADB was seen: every later call fails */
    char path[512];
};

/* ---- the schema ---- */

typedef struct {
    const char *name, *decl; /* decl: type and column constraints in CREATE TABLE */
    int since;               /* the schema version that added it (1: the first schema) */
} col_def;

typedef struct {
    const char *name;
    int since;               /* databases of an older version may lack the table */
    const char *constraints; /* table constraints after the columns, or NULL */
    col_def cols[32];        /* ended by a zero entry */
} table_def;

static const table_def tables[] = {
    {"runs", 1, NULL,
     {{"id", "INTEGER PRIMARY KEY AUTOINCREMENT", 1}, {"commit_id", "TEXT NOT NULL", 1},
      {"date", "TEXT", 1}, {"seed", "TEXT NOT NULL", 1}, {"versions", "TEXT", 1},
      {"prec", "INTEGER NOT NULL", 1}, {"budget", "INTEGER NOT NULL", 1},
      {"quick", "INTEGER NOT NULL", 1}, {"finished", "INTEGER NOT NULL DEFAULT 0", 1},
      {"seconds", "REAL", 1}, {"finished_date", "TEXT", 1},
      /* schema 5: a shard's "K/N", the host, the --only prefix, the shard plan's hash, and for a
       * run merged from shards the hash that makes merging them again a no-op */
      {"shard", "TEXT", 5}, {"host", "TEXT", 5}, {"selection", "TEXT", 5}, {"plan", "TEXT", 5},
      {"merge_key", "TEXT", 5}, {NULL, NULL, 0}}},
    {"claims", 1, "PRIMARY KEY(run_id, claim_id)",
     {{"run_id", "INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE", 1},
      {"claim_id", "TEXT NOT NULL", 1}, {"seq", "INTEGER", 1}, {"verdict", "TEXT NOT NULL", 1},
      {"worst_ratio", "REAL", 1}, {"instances", "INTEGER", 1}, {"precisions", "TEXT", 1},
      {"seconds", "REAL", 1}, {"reproduce", "TEXT", 1}, {"title", "TEXT", 1}, {"file", "TEXT", 1},
      {"kind", "TEXT", 1}, {"source", "TEXT", 1}, {"origin", "TEXT", 1}, {"confidence", "TEXT", 1},
      {"proxy", "INTEGER", 1}, {"params", "TEXT", 1}, {"nconfig", "INTEGER", 1}, {"saved", "TEXT", 1},
      {"fingerprint", "TEXT", 3}, {"reused_from", "INTEGER", 3},
      {"repaired_verdict", "TEXT", 4}, {"probe_verdict", "TEXT", 4},
      {"mutants_run", "INTEGER", 4}, {"mutants_killed", "INTEGER", 4}, {"mutants_note", "TEXT", 4},
      {NULL, NULL, 0}}},
    {"configs", 1,
     "PRIMARY KEY(run_id, claim_id, seq), FOREIGN KEY(run_id, claim_id) REFERENCES "
     "claims(run_id, claim_id) ON DELETE CASCADE",
     {{"run_id", "INTEGER NOT NULL", 1}, {"claim_id", "TEXT NOT NULL", 1},
      {"seq", "INTEGER NOT NULL", 1}, {"config", "TEXT NOT NULL", 1}, {"verdict", "TEXT NOT NULL", 1},
      {"worst_ratio", "REAL", 1}, {"instances", "INTEGER", 1}, {"observations", "INTEGER", 1},
      {"assumption_failed", "INTEGER", 1}, {"errors", "INTEGER", 1}, {"breaks_double", "INTEGER", 1},
      {"confirmed", "INTEGER", 1}, {"artifacts", "INTEGER", 1}, {"near_misses", "INTEGER", 1},
      {"worst_where", "TEXT", 1}, {"worst_index", "INTEGER", 1}, {"reproduce", "TEXT", 1},
      {"precisions", "TEXT", 1}, {"seconds", "REAL", 1}, {"detail", "TEXT", 1},
      {"measures", "TEXT", 1}, {"series", "TEXT", 1}, {"ratios", "TEXT", 1}, {"axes", "TEXT", 1},
      {"shrunk", "TEXT", 2}, {"shrunk_reproduce", "TEXT", 2}, {"shrunk_data", "TEXT", 2},
      {"escalation", "TEXT", 2}, {"reading", "TEXT", 4}, {"reading_note", "TEXT", 4},
      {"vacuous", "INTEGER", 4}, {NULL, NULL, 0}}},
    /* written since schema 1, but early schema-1 databases predate it */
    {"live", 2, "PRIMARY KEY(run_id, name)",
     {{"run_id", "INTEGER NOT NULL", 1}, {"name", "TEXT NOT NULL", 1}, {"doc", "TEXT", 1},
      {"steps", "INTEGER", 1}, {"prec", "INTEGER", 1}, {"series", "TEXT", 1},
      {"summary", "TEXT", 1}, {"seconds", "REAL", 1}, {"fingerprint", "TEXT", 3},
      {"reused_from", "INTEGER", 3}, {NULL, NULL, 0}}},
    /* the shards a merged run was made of (lemmata merge), for its provenance */
    {"shards", 5, "PRIMARY KEY(run_id, k)",
     {{"run_id", "INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE", 5}, {"k", "INTEGER NOT NULL", 5},
      {"n", "INTEGER NOT NULL", 5}, {"host", "TEXT", 5}, {"seconds", "REAL", 5}, {"file", "TEXT", 5},
      {"source_run", "INTEGER", 5}, {"date", "TEXT", 5}, {"finished_date", "TEXT", 5},
      {"claims", "INTEGER", 5}, {"live", "INTEGER", 5}, {NULL, NULL, 0}}},
};
enum { T_RUNS, T_CLAIMS, T_CONFIGS, T_LIVE, T_SHARDS, T_COUNT };

static const char index_name[] = "runs_resume";
static const char index_sql[] = "CREATE INDEX IF NOT EXISTS runs_resume ON runs(finished, commit_id, seed)";

/* names in sqlite_master that belong to a lemmata database besides `tables` */
static int ours(const char *name)
{
    for (int k = 0; k < T_COUNT; k++)
        if (!strcmp(name, tables[k].name)) return 1;
    return !strcmp(name, index_name) || !strcmp(name, "constants") /* lm_constdb */ ||
           !strncmp(name, "sqlite_", 7);
}

static const char untouched[] = "the file was left untouched";

/* ---- small helpers ---- */

/* one line into err (newlines from SQLite messages become spaces) */
static void set_err(char *err, int errlen, const char *fmt, ...)
{
    if (!err || errlen <= 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, (size_t)errlen, fmt, ap);
    va_end(ap);
    for (char *p = err; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
}

static int is_damage(int rc)
{
    rc &= 0xff;
    return rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB;
}

/* the message of rc: sqlite3_errmsg when it is about rc, else sqlite3_errstr(rc) */
static const char *msg_of(sqlite3 *db, int rc)
{
    if (db && (sqlite3_errcode(db) & 0xff) == (rc & 0xff)) return sqlite3_errmsg(db);
    return sqlite3_errstr(rc);
}

/* reports a failed call (rc) on stderr; damage marks the handle */
static void complain(lm_store *s, const char *what, int rc)
{
    fprintf(stderr, "lemmata: store %s: %s: %s\n", s->path, what, msg_of(s->db, rc));
    if (is_damage(rc) && !s->damaged) {
        s->damaged = 1;
        fprintf(stderr, "lemmata: %s is damaged; stopping: move it aside or use a new --db\n", s->path);
    }
}

static int usable(const lm_store *s)
{
    return s && s->db && !s->damaged;
}

/* bindings: each does nothing once *rc is an error, so a run of them is checked once */
static void b_text(sqlite3_stmt *st, int i, const char *v, int *rc)
{
    if (*rc == SQLITE_OK)
        *rc = v ? sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

static void b_int(sqlite3_stmt *st, int i, long long v, int *rc)
{
    if (*rc == SQLITE_OK) *rc = sqlite3_bind_int64(st, i, v);
}

/* NaN is stored as NULL */
static void b_real(sqlite3_stmt *st, int i, double v, int *rc)
{
    if (*rc == SQLITE_OK) *rc = isnan(v) ? sqlite3_bind_null(st, i) : sqlite3_bind_double(st, i, v);
}

/* a statement that returns no rows: SQLITE_OK when done */
static int step_done(sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* finalizes st; rc unless that was OK and finalize reports an error */
static int finalize(sqlite3_stmt *st, int rc)
{
    int f = sqlite3_finalize(st);
    return rc == SQLITE_OK ? f : rc;
}

/* Steps st once (when rc is still SQLITE_OK): *id = column 0 of the first row, left as it is
 * when there is none.  Returns the statement's status with "a row" and "no row" both OK. */
static int step_first(sqlite3_stmt *st, int rc, long long *id)
{
    if (rc != SQLITE_OK) return rc;
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) *id = sqlite3_column_int64(st, 0);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int begin(lm_store *s)
{
    int rc = sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc != SQLITE_OK) complain(s, "starting a transaction", rc);
    return rc;
}

/* ends a failed transaction (SQLite may already have rolled it back) */
static void rollback(lm_store *s)
{
    if (sqlite3_get_autocommit(s->db)) return;
    int rc = sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    if (rc != SQLITE_OK) complain(s, "rolling back", rc);
}

/* COMMIT, or ROLLBACK when it fails (e.g. disk full / file size limit) */
static int commit(lm_store *s, const char *what)
{
    int rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
    if (rc == SQLITE_OK) return SQLITE_OK;
    complain(s, what, rc);
    rollback(s);
    return rc;
}

/* appends "name" (embedded quotes doubled) to out[*w..n); -1 when it does not fit */
static int put_ident(char *out, size_t n, size_t *w, const char *name)
{
    size_t need = 2 + strlen(name);
    for (const char *p = name; *p; p++) need += *p == '"';
    if (*w + need >= n) return -1;
    out[(*w)++] = '"';
    for (const char *p = name; *p; p++) {
        if (*p == '"') out[(*w)++] = '"';
        out[(*w)++] = *p;
    }
    out[(*w)++] = '"';
    out[*w] = 0;
    return 0;
}

static int put_str(char *out, size_t n, size_t *w, const char *str)
{
    size_t len = strlen(str);
    if (*w + len >= n) return -1;
    memcpy(out + *w, str, len + 1);
    *w += len;
    return 0;
}

/* "\"a\", \"b\"": the columns of table t in the fixed schema, except those in skip */
static int column_list(const table_def *t, const char *const *skip, char *out, size_t n)
{
    size_t w = 0;
    out[0] = 0;
    for (const col_def *c = t->cols; c->name; c++) {
        int skipped = 0;
        for (const char *const *k = skip; *k; k++) skipped |= !strcmp(*k, c->name);
        if (skipped) continue;
        if ((w && put_str(out, n, &w, ", ")) || put_ident(out, n, &w, c->name)) return -1;
    }
    return 0;
}

static int create_table_sql(const table_def *t, char *out, size_t n)
{
    size_t w = 0;
    int bad = put_str(out, n, &w, "CREATE TABLE IF NOT EXISTS ") || put_ident(out, n, &w, t->name) ||
              put_str(out, n, &w, "(");
    for (const col_def *c = t->cols; !bad && c->name; c++)
        bad = (c != t->cols && put_str(out, n, &w, ", ")) || put_ident(out, n, &w, c->name) ||
              put_str(out, n, &w, " ") || put_str(out, n, &w, c->decl);
    if (!bad && t->constraints) bad = put_str(out, n, &w, ", ") || put_str(out, n, &w, t->constraints);
    return bad || put_str(out, n, &w, ")") ? -1 : 0;
}

/* ---- opening: the checks ---- */

/* err for a failed read while checking the file (nothing has been written) */
static void read_error(const lm_store *s, int rc, const char *what, char *err, int errlen)
{
    const char *m = msg_of(s->db, rc);
    if ((rc & 0xff) == SQLITE_NOTADB)
        set_err(err, errlen, "%s is not an SQLite database (%s); %s: use a new --db", s->path, m, untouched);
    else if ((rc & 0xff) == SQLITE_CORRUPT)
        set_err(err, errlen, "%s is damaged (%s: %s); %s: move it aside or use a new --db", s->path, what, m,
                untouched);
    else
        set_err(err, errlen, "cannot read results database %s (%s: %s); %s", s->path, what, m, untouched);
}

static int quick_check(lm_store *s, char *err, int errlen)
{
    sqlite3_stmt *st = NULL;
    char first[240] = "";
    int rows = 0, ok = 0;
    int rc = sqlite3_prepare_v2(s->db, "PRAGMA quick_check(2)", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            const char *t = (const char *)sqlite3_column_text(st, 0);
            if (rows++ == 0) {
                static const char head[] = "*** in database main ***";
                if (t && !strncmp(t, head, sizeof head - 1)) t += sizeof head - 1;
                while (t && (*t == '\n' || *t == ' ')) t++;
                snprintf(first, sizeof first, "%s", t ? t : "?");
                ok = t && !strcmp(t, "ok");
            }
        }
        rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    }
    rc = finalize(st, rc);
    if (rc != SQLITE_OK && (rc & 0xff) != SQLITE_CORRUPT) { /* not SQLite at all, locked, I/O error */
        read_error(s, rc, "PRAGMA quick_check", err, errlen);
        return -1;
    }
    if (rc == SQLITE_OK && ok && rows == 1) return 0;
    if (rc != SQLITE_OK) snprintf(first, sizeof first, "%s", msg_of(s->db, rc));
    set_err(err, errlen, "%s is damaged (PRAGMA quick_check: %s%s); %s: move it aside or use a new --db",
            s->path, first, rows > 1 ? " ..." : "", untouched);
    return -1;
}

/* 1 when table t has column c, 0 when not, minus the SQLite error code on an error */
static int has_column(sqlite3_stmt *q, const char *t, const char *c)
{
    int rc = sqlite3_reset(q);
    if (rc == SQLITE_OK) rc = sqlite3_bind_text(q, 1, t, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK) rc = sqlite3_bind_text(q, 2, c, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK) rc = sqlite3_step(q);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -rc;
}

/* runs one schema change (in the caller's transaction) */
static int change(lm_store *s, const char *sql, char *err, int errlen)
{
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        set_err(err, errlen, "cannot update the schema of %s (%s); %s", s->path, msg_of(s->db, rc), untouched);
    return rc;
}

/* Compares the database with `tables`.  apply = 0: counts in *pending the tables to create,
 * columns to add, the index and the user_version to write; apply = 1: makes those changes
 * (in the caller's transaction).  -1 with err set when the file must not be used. */
static int inspect(lm_store *s, int apply, int *pending, char *err, int errlen)
{
    int present[T_COUNT] = {0}, have_index = 0, version = 0;
    char foreign[80] = "";
    *pending = 0;
    sqlite3_stmt *st = NULL;
    const char *what = "reading the schema";
    int rc = sqlite3_prepare_v2(s->db, "SELECT type, name FROM sqlite_master", -1, &st, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *type = (const char *)sqlite3_column_text(st, 0);
        const char *name = (const char *)sqlite3_column_text(st, 1);
        rc = SQLITE_OK;
        if (!type || !name) continue;
        for (int k = 0; k < T_COUNT; k++)
            if (!strcmp(type, "table") && !strcmp(name, tables[k].name)) present[k] = 1;
        if (!strcmp(type, "index") && !strcmp(name, index_name)) have_index = 1;
        if (!ours(name) && !foreign[0]) snprintf(foreign, sizeof foreign, "%s '%s'", type, name);
    }
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
    rc = finalize(st, rc);
    st = NULL;
    if (rc == SQLITE_OK) {
        what = "reading PRAGMA user_version";
        rc = sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL);
        if (rc == SQLITE_OK) rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            version = sqlite3_column_int(st, 0);
            rc = SQLITE_OK;
        }
        rc = finalize(st, rc);
        st = NULL;
    }
    if (rc != SQLITE_OK) {
        read_error(s, rc, what, err, errlen);
        return -1;
    }
    int nours = 0;
    for (int k = 0; k < T_COUNT; k++) nours += present[k];
    if (!nours && foreign[0]) {
        set_err(err, errlen, "%s holds no lemmata tables but %s: not a lemmata results database; %s: "
                             "use a new --db", s->path, foreign, untouched);
        return -1;
    }
    if (version < 0) {
        set_err(err, errlen, "%s has an unknown schema version %d (damaged or not a lemmata database); "
                             "use a new --db, %s", s->path, version, untouched);
        return -1;
    }
    if (version > LM_STORE_SCHEMA) {
        set_err(err, errlen, "%s was written by a newer lemmata (schema version %d; this one knows up to %d); "
                             "%s: use a new --db or a newer lemmata", s->path, version, LM_STORE_SCHEMA, untouched);
        return -1;
    }
    int fresh = !nours && version == 0; /* a new, empty or constants-only database */
    int v = version ? version : 1;      /* 0 with tables: written before versions were recorded */
    char sql[4096];
    for (int k = 0; k < T_COUNT; k++) {
        const table_def *t = &tables[k];
        if (present[k]) continue;
        if (!fresh && v >= t->since) {
            set_err(err, errlen, "%s: table '%s' is missing (damaged or not a lemmata database); use a new "
                                 "--db, %s", s->path, t->name, untouched);
            return -1;
        }
        (*pending)++;
        if (apply && create_table_sql(t, sql, sizeof sql)) {
            set_err(err, errlen, "%s: the statement creating table '%s' is too long", s->path, t->name);
            return -1;
        }
        if (apply && change(s, sql, err, errlen)) return -1;
    }
    rc = sqlite3_prepare_v2(s->db, "SELECT 1 FROM pragma_table_info(?1) WHERE name=?2", -1, &st, NULL);
    for (int k = 0; rc == SQLITE_OK && k < T_COUNT; k++) {
        const table_def *t = &tables[k];
        if (!present[k]) continue; /* created whole above */
        for (const col_def *c = t->cols; c->name; c++) {
            int h = has_column(st, t->name, c->name);
            if (h < 0) {
                rc = -h;
                break;
            }
            if (h == 1) continue;
            if (v >= c->since) {
                sqlite3_finalize(st);
                set_err(err, errlen, "%s: column '%s' of table '%s' is missing (damaged or not a lemmata "
                                     "database); use a new --db, %s", s->path, c->name, t->name, untouched);
                return -1;
            }
            (*pending)++;
            if (!apply) continue;
            size_t w = 0;
            int bad = put_str(sql, sizeof sql, &w, "ALTER TABLE ") || put_ident(sql, sizeof sql, &w, t->name) ||
                      put_str(sql, sizeof sql, &w, " ADD COLUMN ") || put_ident(sql, sizeof sql, &w, c->name) ||
                      put_str(sql, sizeof sql, &w, " ") || put_str(sql, sizeof sql, &w, c->decl);
            if (bad) set_err(err, errlen, "%s: the statement adding column '%s' is too long", s->path, c->name);
            if (bad || change(s, sql, err, errlen)) {
                sqlite3_finalize(st);
                return -1;
            }
        }
    }
    rc = finalize(st, rc);
    if (rc != SQLITE_OK) {
        read_error(s, rc, "reading the columns", err, errlen);
        return -1;
    }
    if (!have_index) {
        (*pending)++;
        if (apply && change(s, index_sql, err, errlen)) return -1;
    }
    if (version != LM_STORE_SCHEMA) {
        (*pending)++;
        snprintf(sql, sizeof sql, "PRAGMA user_version=%d", LM_STORE_SCHEMA);
        if (apply && change(s, sql, err, errlen)) return -1;
    }
    return 0;
}

/* rw = 1: for lm_store_open (creates, migrates); 0: the read-only lm_store_check */
/* A writer killed in the middle of a transaction leaves a hot journal beside the database; a
 * read-only connection cannot roll it back and reports SQLITE_READONLY_ROLLBACK, so a check of
 * a database that is merely in need of crash recovery would refuse it.  This does what the next
 * writer would do anyway: a read-write connection rolls the journal back to the last committed
 * state on its first read.  Nothing happens without a journal or without write permission. */
static void recover_hot_journal(const char *path)
{
    char journal[PATH_MAX + 16];
    struct stat jb;
    snprintf(journal, sizeof journal, "%s-journal", path);
    if (stat(journal, &jb) != 0 || jb.st_size == 0 || access(path, W_OK) != 0) return;
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK) {
        sqlite3_busy_timeout(db, 10000);
        sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
    }
    sqlite3_close(db);
}

static lm_store *open_checked(const char *path, int rw, char *err, int errlen)
{
    if (!path || !*path) {
        set_err(err, errlen, "no results database path given");
        return NULL;
    }
    struct stat sb;
    int exists = stat(path, &sb) == 0;
    if (!exists && errno != ENOENT) {
        set_err(err, errlen, "cannot open results database %s: %s", path, strerror(errno));
        return NULL;
    }
    if (exists && S_ISDIR(sb.st_mode)) {
        set_err(err, errlen, "%s is a directory, not a results database; give --db a file name", path);
        return NULL;
    }
    if (exists && !S_ISREG(sb.st_mode)) {
        set_err(err, errlen, "%s is not a regular file, not a results database; give --db a file name", path);
        return NULL;
    }
    if (!exists && !rw) {
        set_err(err, errlen, "no results database %s (run: make verify)", path);
        return NULL;
    }
    if (!rw) recover_hot_journal(path);
    lm_store *s = calloc(1, sizeof *s);
    if (!s) {
        set_err(err, errlen, "out of memory opening %s", path);
        return NULL;
    }
    snprintf(s->path, sizeof s->path, "%s", path);
    int flags = rw ? SQLITE_OPEN_READWRITE | (exists ? 0 : SQLITE_OPEN_CREATE) : SQLITE_OPEN_READONLY;
    int rc = sqlite3_open_v2(path, &s->db, flags, NULL);
    if (rc != SQLITE_OK) {
        set_err(err, errlen, "cannot %s results database %s: %s", exists ? "open" : "create", path,
                s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
        lm_store_close(s);
        return NULL;
    }
    if (sqlite3_busy_timeout(s->db, 10000) != SQLITE_OK ||
        sqlite3_exec(s->db, "PRAGMA foreign_keys=ON", NULL, NULL, NULL) != SQLITE_OK) {
        set_err(err, errlen, "cannot set up results database %s: %s", path, sqlite3_errmsg(s->db));
        lm_store_close(s);
        return NULL;
    }
    if (rw && sqlite3_db_readonly(s->db, "main") == 1) {
        set_err(err, errlen, "%s is read-only (no permission to write it); %s: make it writable or use "
                             "a new --db", path, untouched);
        lm_store_close(s);
        return NULL;
    }
    if (rw) {
        /* SQLite writes its rollback journal beside the database */
        char *parent = strdup(path);
        char *slash = parent ? strrchr(parent, '/') : NULL;
        if (slash && slash == parent) slash[1] = 0; /* "/x.db": the root */
        else if (slash) *slash = 0;
        const char *d = !parent ? "?" : slash ? parent : ".";
        if (!parent || access(d, W_OK | X_OK)) {
            set_err(err, errlen, "cannot write results database %s: directory %s: %s%s", path, d,
                    parent ? strerror(errno) : "out of memory", exists ? "; the file was left untouched" : "");
            free(parent);
            lm_store_close(s);
            return NULL;
        }
        free(parent);
    }
    /* one read transaction, so that the check, the table list and the user_version are one
     * snapshot: read one statement at a time, a process creating the schema in between would
     * show tables missing from a file whose version says they exist */
    int pending = 0;
    rc = sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        read_error(s, rc, "starting to read", err, errlen);
        lm_store_close(s);
        return NULL;
    }
    if (quick_check(s, err, errlen) || inspect(s, 0, &pending, err, errlen)) {
        rollback(s);
        lm_store_close(s);
        return NULL;
    }
    rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        read_error(s, rc, "finishing reading", err, errlen);
        rollback(s);
        lm_store_close(s);
        return NULL;
    }
    if (!rw || !pending) return s;
    /* create or migrate, in one transaction, looking again under the write lock
     * (another process may have done it meanwhile) */
    rc = sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        set_err(err, errlen, "cannot update the schema of %s (%s); %s", path, msg_of(s->db, rc), untouched);
        lm_store_close(s);
        return NULL;
    }
    if (inspect(s, 1, &pending, err, errlen)) {
        rollback(s);
        lm_store_close(s);
        return NULL;
    }
    rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        set_err(err, errlen, "cannot update the schema of %s (%s); %s", path, msg_of(s->db, rc), untouched);
        rollback(s);
        lm_store_close(s);
        return NULL;
    }
    return s;
}

lm_store *lm_store_open(const char *path, char *err, int errlen)
{
    return open_checked(path, 1, err, errlen);
}

int lm_store_check(const char *path, char *err, int errlen)
{
    lm_store *s = open_checked(path, 0, err, errlen);
    if (!s) return -1;
    lm_store_close(s);
    return 0;
}

int lm_store_check_run(const char *path, long long run, char *err, int errlen)
{
    lm_store *s = open_checked(path, 0, err, errlen);
    if (!s) return -1;
    sqlite3_stmt *st = NULL;
    long long lo = 0, hi = 0, n = 0, found = 0;
    int rc = sqlite3_prepare_v2(s->db, "SELECT MIN(id), MAX(id), COUNT(*), SUM(id=?1) FROM runs", -1, &st, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, run);
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            lo = sqlite3_column_int64(st, 0);
            hi = sqlite3_column_int64(st, 1);
            n = sqlite3_column_int64(st, 2);
            found = sqlite3_column_int64(st, 3);
            rc = SQLITE_OK;
        }
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_OK) {
        read_error(s, rc, "looking for a run", err, errlen);
        lm_store_close(s);
        return -1;
    }
    lm_store_close(s);
    if (found) return 0;
    if (n == 0) set_err(err, errlen, "no run %lld in %s: it holds no run (run: lemmata verify)", run, path);
    else if (lo == hi) set_err(err, errlen, "no run %lld in %s: it holds run %lld only", run, path, lo);
    else
        set_err(err, errlen, "no run %lld in %s: its runs are numbered %lld to %lld", run, path, lo, hi);
    return -1;
}

void lm_store_close(lm_store *s)
{
    if (!s) return;
    if (s->db && sqlite3_close(s->db) != SQLITE_OK)
        fprintf(stderr, "lemmata: store %s: closing: %s\n", s->path, sqlite3_errmsg(s->db));
    free(s);
}

/* ---- runs ---- */

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
    if (!usable(s) || !m) return -1;
    char seed[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)m->seed);
    sqlite3_stmt *st = NULL;
    /* a shard resumes only its own unfinished run (same K/N, same plan), a whole run only a whole one */
    int rc = sqlite3_prepare_v2(s->db, "SELECT id FROM runs WHERE finished=0 AND commit_id=?1 AND "
                                       "seed=?2 AND prec=?3 AND budget=?4 AND quick=?5 AND "
                                       "COALESCE(shard, '')=?6 AND COALESCE(plan, '')=?7 "
                                       "ORDER BY id DESC LIMIT 1", -1, &st, NULL);
    b_text(st, 1, m->commit, &rc);
    b_text(st, 2, seed, &rc);
    b_int(st, 3, m->prec, &rc);
    b_int(st, 4, m->budget, &rc);
    b_int(st, 5, m->quick ? 1 : 0, &rc);
    b_text(st, 6, m->shard, &rc);
    b_text(st, 7, m->plan, &rc);
    long long id = -1;
    rc = finalize(st, step_first(st, rc, &id));
    if (rc != SQLITE_OK) {
        complain(s, "looking for a run to resume", rc);
        return -1;
    }
    if (id >= 0) {
        *resumed = 1;
        return id;
    }

    char date[40];
    if (m->date[0]) snprintf(date, sizeof date, "%s", m->date);
    else utc_now(date, sizeof date);
    st = NULL;
    rc = sqlite3_prepare_v2(s->db, "INSERT INTO runs(commit_id, date, seed, versions, prec, budget, quick, "
                                   "finished, shard, host, selection, plan) "
                                   "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, 0, ?8, ?9, ?10, ?11)", -1, &st, NULL);
    b_text(st, 1, m->commit, &rc);
    b_text(st, 2, date, &rc);
    b_text(st, 3, seed, &rc);
    b_text(st, 4, m->versions, &rc);
    b_int(st, 5, m->prec, &rc);
    b_int(st, 6, m->budget, &rc);
    b_int(st, 7, m->quick ? 1 : 0, &rc);
    b_text(st, 8, m->shard[0] ? m->shard : NULL, &rc);
    b_text(st, 9, m->host[0] ? m->host : NULL, &rc);
    b_text(st, 10, m->selection[0] ? m->selection : NULL, &rc);
    b_text(st, 11, m->plan[0] ? m->plan : NULL, &rc);
    if (rc == SQLITE_OK) rc = step_done(st);
    if (rc == SQLITE_OK) id = sqlite3_last_insert_rowid(s->db);
    rc = finalize(st, rc);
    if (rc != SQLITE_OK) {
        complain(s, "creating a run", rc);
        return -1;
    }
    return id;
}

/* 1 when the statement (bound to run and key) returns a row, 0 when none, -1 on an error */
static int exists_row(lm_store *s, const char *sql, long long run, const char *key, const char *what)
{
    if (!usable(s) || !key) return -1;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    b_int(st, 1, run, &rc);
    b_text(st, 2, key, &rc);
    long long found = 0; /* the statements select the constant 1 */
    rc = finalize(st, step_first(st, rc, &found));
    if (rc != SQLITE_OK) {
        complain(s, what, rc);
        return -1;
    }
    return (int)found;
}

int lm_store_has_claim(lm_store *s, long long run, const char *claim_id)
{
    return exists_row(s, "SELECT 1 FROM claims WHERE run_id=?1 AND claim_id=?2", run, claim_id,
                      "looking up a claim");
}

/* "name\tdefault\tchoices\tdoc\n" per parameter; tabs/newlines in text -> ' '.
 * NULL when there are none, or (*oom = 1) when out of memory. */
static char *params_text(const lm_claim *c, int *oom)
{
    size_t cap = 1, n = 0;
    *oom = 0;
    if (!c->params) return NULL;
    for (const lm_param_def *p = c->params; p->name; p++)
        cap += strlen(p->name) + 40 + (p->choices ? strlen(p->choices) : 0) +
               (p->doc ? strlen(p->doc) : 0) + 4;
    if (cap == 1) return NULL;
    char *s = malloc(cap);
    if (!s) {
        *oom = 1;
        return NULL;
    }
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
    if (!usable(s) || !r) return -1;
    const lm_claim *c = r->claim;
    if (!c || !c->id) {
        fprintf(stderr, "lemmata: store %s: claim result without a claim\n", s->path);
        return -1;
    }
    if (r->nconfig < 0 || (r->nconfig > 0 && !r->cfg)) {
        fprintf(stderr, "lemmata: store %s: %s: bad configuration list\n", s->path, c->id);
        return -1;
    }
    int oom;
    char *params = params_text(c, &oom);
    if (oom) {
        fprintf(stderr, "lemmata: store %s: %s: out of memory\n", s->path, c->id);
        return -1;
    }
    if (begin(s) != SQLITE_OK) {
        free(params);
        return -1;
    }
    char saved[40];
    utc_now(saved, sizeof saved);
    sqlite3_stmt *st = NULL;
    const char *what = "deleting an earlier copy of the claim";
    int rc = sqlite3_prepare_v2(s->db, "DELETE FROM configs WHERE run_id=?1 AND claim_id=?2", -1, &st, NULL);
    b_int(st, 1, run, &rc);
    b_text(st, 2, c->id, &rc);
    if (rc == SQLITE_OK) rc = step_done(st);
    rc = finalize(st, rc);
    st = NULL;
    if (rc != SQLITE_OK) goto out;

    what = "saving the claim";
    rc = sqlite3_prepare_v2(s->db, "INSERT OR REPLACE INTO claims(run_id, claim_id, seq, verdict, worst_ratio, "
                                   "instances, precisions, seconds, reproduce, title, file, kind, source, origin, "
                                   "confidence, proxy, params, nconfig, saved, repaired_verdict, probe_verdict, "
                                   "mutants_run, mutants_killed, mutants_note) VALUES(?1, ?2, "
                                   "(SELECT COALESCE(MAX(seq), 0) + 1 FROM claims WHERE run_id=?1), ?3, ?4, ?5, "
                                   "?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, "
                                   "?22, ?23)",
                            -1, &st, NULL);
    b_int(st, 1, run, &rc);
    b_text(st, 2, c->id, &rc);
    b_text(st, 3, lm_verdict_name(r->verdict), &rc);
    b_real(st, 4, r->worst_ratio, &rc);
    b_int(st, 5, r->instances, &rc);
    b_text(st, 6, r->precisions, &rc);
    b_real(st, 7, r->seconds, &rc);
    b_text(st, 8, r->reproduce, &rc);
    b_text(st, 9, c->title, &rc);
    b_text(st, 10, c->file, &rc);
    b_text(st, 11, lm_kind_name(c->kind), &rc);
    b_text(st, 12, c->source, &rc);
    b_text(st, 13, c->origin, &rc);
    b_text(st, 14, c->confidence, &rc);
    b_int(st, 15, c->proxy, &rc);
    b_text(st, 16, params, &rc);
    b_int(st, 17, r->nconfig, &rc);
    b_text(st, 18, saved, &rc);
    b_text(st, 19, r->repaired_verdict >= 0 ? lm_verdict_name((lm_verdict)r->repaired_verdict) : NULL, &rc);
    b_text(st, 20, r->probe_verdict >= 0 ? lm_verdict_name((lm_verdict)r->probe_verdict) : NULL, &rc);
    if (r->mutants_run > 0) {
        b_int(st, 21, r->mutants_run, &rc);
        b_int(st, 22, r->mutants_killed, &rc);
    } else {
        b_text(st, 21, NULL, &rc);
        b_text(st, 22, NULL, &rc);
    }
    b_text(st, 23, r->mutants_note[0] ? r->mutants_note : NULL, &rc);
    if (rc == SQLITE_OK) rc = step_done(st);
    rc = finalize(st, rc);
    st = NULL;
    if (rc != SQLITE_OK) goto out;

    what = "saving a configuration";
    rc = sqlite3_prepare_v2(s->db, "INSERT INTO configs(run_id, claim_id, seq, config, verdict, worst_ratio, "
                                   "instances, observations, assumption_failed, errors, breaks_double, confirmed, "
                                   "artifacts, near_misses, worst_where, worst_index, reproduce, precisions, "
                                   "seconds, detail, measures, series, ratios, axes, shrunk, shrunk_reproduce, "
                                   "shrunk_data, escalation, reading, reading_note, vacuous) VALUES(?1, ?2, ?3, "
                                   "?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, "
                                   "?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31)",
                            -1, &st, NULL);
    for (int k = 0; rc == SQLITE_OK && k < r->nconfig; k++) {
        const lm_config_result *g = &r->cfg[k];
        rc = sqlite3_reset(st);
        if (rc == SQLITE_OK) rc = sqlite3_clear_bindings(st);
        b_int(st, 1, run, &rc);
        b_text(st, 2, c->id, &rc);
        b_int(st, 3, k, &rc);
        b_text(st, 4, g->config, &rc);
        b_text(st, 5, lm_verdict_name(g->verdict), &rc);
        b_real(st, 6, g->worst_ratio, &rc);
        b_int(st, 7, g->instances, &rc);
        b_int(st, 8, g->observations, &rc);
        b_int(st, 9, g->assumption_failed, &rc);
        b_int(st, 10, g->errors, &rc);
        b_int(st, 11, g->breaks_double, &rc);
        b_int(st, 12, g->confirmed, &rc);
        b_int(st, 13, g->artifacts, &rc);
        b_int(st, 14, g->near_misses, &rc);
        b_text(st, 15, g->worst_where, &rc);
        b_int(st, 16, g->worst_index, &rc);
        b_text(st, 17, g->reproduce, &rc);
        b_text(st, 18, g->precisions, &rc);
        b_real(st, 19, g->seconds, &rc);
        b_text(st, 20, g->detail, &rc);
        b_text(st, 21, g->measures, &rc);
        b_text(st, 22, g->series, &rc);
        b_text(st, 23, g->ratios, &rc);
        b_text(st, 24, g->axes, &rc);
        b_text(st, 25, g->shrunk[0] ? g->shrunk : NULL, &rc);
        b_text(st, 26, g->shrunk_reproduce[0] ? g->shrunk_reproduce : NULL, &rc);
        b_text(st, 27, g->shrunk_data, &rc);
        b_text(st, 28, g->escalation[0] ? g->escalation : NULL, &rc);
        b_text(st, 29, lm_reading_name(g->reading), &rc);
        b_text(st, 30, g->reading_note[0] ? g->reading_note : NULL, &rc);
        b_int(st, 31, g->vacuous, &rc);
        if (rc == SQLITE_OK) rc = step_done(st);
    }
    rc = finalize(st, rc);
    st = NULL;
    if (rc != SQLITE_OK) goto out;

    what = "committing the claim";
    rc = sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
out:
    /* one exit: params is freed exactly once; a failed statement or COMMIT is rolled back */
    free(params);
    if (rc == SQLITE_OK) return 0;
    char ctx[200];
    snprintf(ctx, sizeof ctx, "%s %s", what, c->id);
    complain(s, ctx, rc);
    rollback(s);
    return -1;
}

int lm_store_finish_run(lm_store *s, long long run, double seconds)
{
    if (!usable(s)) return -1;
    char date[40];
    utc_now(date, sizeof date);
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "UPDATE runs SET finished=1, seconds=?2, finished_date=?3 WHERE id=?1",
                                -1, &st, NULL);
    b_int(st, 1, run, &rc);
    b_real(st, 2, seconds, &rc);
    b_text(st, 3, date, &rc);
    if (rc == SQLITE_OK) rc = step_done(st);
    int changed = rc == SQLITE_OK ? sqlite3_changes(s->db) : 0;
    rc = finalize(st, rc);
    if (rc != SQLITE_OK) {
        complain(s, "finishing the run", rc);
        return -1;
    }
    if (changed != 1) {
        fprintf(stderr, "lemmata: store %s: no run %lld to finish\n", s->path, run);
        return -1;
    }
    return 0;
}

int lm_store_verdict_counts(lm_store *s, long long run, long *counts)
{
    if (!counts) return -1;
    for (int v = 0; v < LM_V_COUNT; v++) counts[v] = 0;
    if (!usable(s)) return -1;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "SELECT verdict, COUNT(*) FROM claims WHERE run_id=?1 GROUP BY verdict",
                                -1, &st, NULL);
    b_int(st, 1, run, &rc);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        int v = name ? lm_verdict_from_name(name) : -1;
        /* an unknown name (newer binary wrote it) is never counted as a pass */
        if (v < 0) v = LM_V_ERROR;
        counts[v] += (long)sqlite3_column_int64(st, 1);
        rc = SQLITE_OK;
    }
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
    rc = finalize(st, rc);
    if (rc != SQLITE_OK) {
        complain(s, "counting verdicts", rc);
        for (int v = 0; v < LM_V_COUNT; v++) counts[v] = 0;
        return -1;
    }
    return 0;
}

int lm_store_mutant_totals(lm_store *s, long long run, long *nrun, long *nkilled)
{
    *nrun = *nkilled = 0;
    if (!usable(s)) return -1;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "SELECT COALESCE(SUM(mutants_run), 0), COALESCE(SUM(mutants_killed), 0) "
                                       "FROM claims WHERE run_id=?1", -1, &st, NULL);
    b_int(st, 1, run, &rc);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        *nrun = (long)sqlite3_column_int64(st, 0);
        *nkilled = (long)sqlite3_column_int64(st, 1);
        rc = SQLITE_OK;
    } else if (rc == SQLITE_DONE)
        rc = SQLITE_OK;
    rc = finalize(st, rc);
    if (rc != SQLITE_OK) {
        complain(s, "counting mutants", rc);
        *nrun = *nkilled = 0;
        return -1;
    }
    return 0;
}

long long lm_store_latest_run(lm_store *s)
{
    if (!usable(s)) return -2;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "SELECT id FROM runs ORDER BY finished DESC, id DESC LIMIT 1", -1, &st,
                                NULL);
    long long id = -1;
    rc = finalize(st, step_first(st, rc, &id));
    if (rc != SQLITE_OK) {
        complain(s, "looking for the latest run", rc);
        return -2;
    }
    return id;
}

int lm_store_has_live(lm_store *s, long long run, const char *name)
{
    return exists_row(s, "SELECT 1 FROM live WHERE run_id=?1 AND name=?2", run, name, "looking up a live run");
}

int lm_store_save_live(lm_store *s, long long run, const char *name, const char *doc, int steps,
                       int prec, const char *series, const char *summary, double seconds)
{
    if (!usable(s)) return -1;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "INSERT OR REPLACE INTO live(run_id, name, doc, steps, prec, "
                                       "series, summary, seconds) VALUES(?1,?2,?3,?4,?5,?6,?7,?8)", -1, &st, NULL);
    b_int(st, 1, run, &rc);
    b_text(st, 2, name, &rc);
    b_text(st, 3, doc, &rc);
    b_int(st, 4, steps, &rc);
    b_int(st, 5, prec, &rc);
    b_text(st, 6, series, &rc);
    b_text(st, 7, summary, &rc);
    b_real(st, 8, seconds, &rc);
    if (rc == SQLITE_OK) rc = step_done(st);
    rc = finalize(st, rc);
    if (rc != SQLITE_OK) {
        complain(s, "saving a live run", rc);
        return -1;
    }
    return 0;
}

/* ---- incremental verify ---- */

int lm_store_set_fingerprint(lm_store *s, long long run, int live, const char *key, const char *fp)
{
    if (!usable(s)) return -1;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, live ? "UPDATE live SET fingerprint=?3 WHERE run_id=?1 AND name=?2"
                                            : "UPDATE claims SET fingerprint=?3 WHERE run_id=?1 AND claim_id=?2",
                                -1, &st, NULL);
    b_int(st, 1, run, &rc);
    b_text(st, 2, key, &rc);
    b_text(st, 3, fp, &rc);
    if (rc == SQLITE_OK) rc = step_done(st);
    rc = finalize(st, rc);
    if (rc != SQLITE_OK) {
        complain(s, "recording a fingerprint", rc);
        return -1;
    }
    return 0;
}

long long lm_store_find_fingerprint(lm_store *s, long long run, int live, const char *key, const char *fp)
{
    if (!usable(s)) return -2;
    if (!fp || !*fp) return -1;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, live ? "SELECT run_id FROM live WHERE name=?1 AND fingerprint=?2 AND "
                                              "run_id<>?3 ORDER BY run_id DESC LIMIT 1"
                                            : "SELECT run_id FROM claims WHERE claim_id=?1 AND fingerprint=?2 AND "
                                              "run_id<>?3 ORDER BY run_id DESC LIMIT 1",
                                -1, &st, NULL);
    b_text(st, 1, key, &rc);
    b_text(st, 2, fp, &rc);
    b_int(st, 3, run, &rc);
    long long id = -1;
    rc = finalize(st, step_first(st, rc, &id));
    if (rc != SQLITE_OK) {
        complain(s, "looking for an unchanged result", rc);
        return -2;
    }
    return id;
}

int lm_store_copy(lm_store *s, long long from, long long to, int live, const char *key)
{
    if (!usable(s) || !key) return -1;
    /* the fixed column lists of the schema (never names read back from the file) */
    static const char *const skip_live[] = {"run_id", "reused_from", NULL};
    static const char *const skip_claims[] = {"run_id", "seq", "reused_from", NULL};
    static const char *const skip_configs[] = {"run_id", NULL};
    char cols[2048], sql[6000];
    const char *what = "copying an unchanged result";
    if (begin(s) != SQLITE_OK) return -1;
    int rc = SQLITE_OK;
    for (int pass = 0; rc == SQLITE_OK && pass < (live ? 1 : 3); pass++) {
        int n = -1;
        if (live && !column_list(&tables[T_LIVE], skip_live, cols, sizeof cols))
            n = snprintf(sql, sizeof sql, "INSERT OR REPLACE INTO live(run_id, reused_from, %s) SELECT ?1, ?2, %s "
                                          "FROM live WHERE run_id=?2 AND name=?3", cols, cols);
        else if (!live && pass == 0 && !column_list(&tables[T_CLAIMS], skip_claims, cols, sizeof cols))
            n = snprintf(sql, sizeof sql, "INSERT OR REPLACE INTO claims(run_id, seq, reused_from, %s) SELECT ?1, "
                                          "(SELECT COALESCE(MAX(seq), 0) + 1 FROM claims WHERE run_id=?1), ?2, %s "
                                          "FROM claims WHERE run_id=?2 AND claim_id=?3", cols, cols);
        else if (!live && pass == 1)
            n = snprintf(sql, sizeof sql, "DELETE FROM configs WHERE run_id=?1 AND claim_id=?3");
        else if (!live && pass == 2 && !column_list(&tables[T_CONFIGS], skip_configs, cols, sizeof cols))
            n = snprintf(sql, sizeof sql, "INSERT INTO configs(run_id, %s) SELECT ?1, %s FROM configs "
                                          "WHERE run_id=?2 AND claim_id=?3", cols, cols);
        if (n < 0 || (size_t)n >= sizeof sql) {
            fprintf(stderr, "lemmata: store %s: %s: statement too long\n", s->path, what);
            rollback(s);
            return -1;
        }
        sqlite3_stmt *st = NULL;
        rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
        b_int(st, 1, to, &rc);
        if (pass != 1) b_int(st, 2, from, &rc);
        b_text(st, 3, key, &rc);
        if (rc == SQLITE_OK) rc = step_done(st);
        int changed = rc == SQLITE_OK ? sqlite3_changes(s->db) : 0;
        rc = finalize(st, rc);
        if (rc == SQLITE_OK && pass == 0 && changed == 0) {
            /* nothing to copy: the caller runs the item instead */
            fprintf(stderr, "lemmata: store %s: run %lld has no %s to copy\n", s->path, from, key);
            rollback(s);
            return -1;
        }
    }
    if (rc != SQLITE_OK) {
        complain(s, what, rc);
        rollback(s);
        return -1;
    }
    return commit(s, "committing a copied result") == SQLITE_OK ? 0 : -1;
}

/* ---- shards: reading one, merging them (lemmata merge) ---- */

void lm_shard_info_clear(lm_shard_info *si)
{
    if (!si) return;
    for (int k = 0; k < si->nitems; k++) free(si->items[k]);
    free(si->items);
    si->items = NULL;
    si->nitems = 0;
}

/* appends "<prefix><text>" to si->items; -1 out of memory */
static int add_item(lm_shard_info *si, const char *prefix, const char *text)
{
    char **grown = realloc(si->items, (size_t)(si->nitems + 1) * sizeof *grown);
    if (!grown) return -1;
    si->items = grown;
    size_t len = strlen(prefix) + strlen(text) + 1;
    if (!(si->items[si->nitems] = malloc(len))) return -1;
    snprintf(si->items[si->nitems++], len, "%s%s", prefix, text);
    return 0;
}

int lm_store_shard_info(const char *path, lm_shard_info *si, char *err, int errlen)
{
    memset(si, 0, sizeof *si);
    si->run = -1;
    si->k = si->n = -1;
    snprintf(si->path, sizeof si->path, "%s", path);
    lm_store *s = open_checked(path, 0, err, errlen);
    if (!s) return -1;
    /* an empty file (or one with the constants table alone) holds no run: not an error here */
    long long have_runs = 0;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name='runs'", -1, &st, NULL);
    rc = finalize(st, step_first(st, rc, &have_runs));
    if (rc == SQLITE_OK && !have_runs) {
        lm_store_close(s);
        return 0;
    }
    st = NULL;
    rc = sqlite3_prepare_v2(s->db, "SELECT id, commit_id, date, seed, versions, prec, budget, quick, finished, "
                                       "seconds, finished_date, shard, host, selection, plan "
                                       "FROM runs ORDER BY id DESC LIMIT 1", -1, &st, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        lm_run_meta *m = &si->meta;
#define COPY_TEXT(dst, col)                                                             \
    snprintf(dst, sizeof dst, "%s",                                                     \
             sqlite3_column_text(st, col) ? (const char *)sqlite3_column_text(st, col) : "")
        si->run = sqlite3_column_int64(st, 0);
        COPY_TEXT(m->commit, 1);
        COPY_TEXT(m->date, 2);
        const unsigned char *seed = sqlite3_column_text(st, 3);
        m->seed = seed ? strtoull((const char *)seed, NULL, 10) : 0;
        COPY_TEXT(m->versions, 4);
        m->prec = sqlite3_column_int(st, 5);
        m->budget = sqlite3_column_int(st, 6);
        m->quick = sqlite3_column_int(st, 7);
        si->finished = sqlite3_column_int(st, 8);
        si->seconds = sqlite3_column_type(st, 9) == SQLITE_NULL ? (double)NAN : sqlite3_column_double(st, 9);
        COPY_TEXT(si->finished_date, 10);
        COPY_TEXT(m->shard, 11);
        COPY_TEXT(m->host, 12);
        COPY_TEXT(m->selection, 13);
        COPY_TEXT(m->plan, 14);
#undef COPY_TEXT
        int k = -1, n = -1, used = 0;
        if (sscanf(m->shard, "%d/%d%n", &k, &n, &used) == 2 && m->shard[used] == 0 && n > 0 && k >= 0 && k < n)
            si->k = k, si->n = n;
        rc = SQLITE_OK;
    } else if (rc == SQLITE_DONE)
        rc = SQLITE_OK;
    rc = finalize(st, rc);
    /* its items: "claim ID" and "live NAME" */
    for (int pass = 0; rc == SQLITE_OK && si->run >= 0 && pass < 2; pass++) {
        st = NULL;
        rc = sqlite3_prepare_v2(s->db, pass ? "SELECT name FROM live WHERE run_id=?1 ORDER BY name"
                                            : "SELECT claim_id FROM claims WHERE run_id=?1 ORDER BY claim_id",
                                -1, &st, NULL);
        b_int(st, 1, si->run, &rc);
        while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
            const unsigned char *name = sqlite3_column_text(st, 0);
            rc = SQLITE_OK;
            if (!name) continue;
            if (add_item(si, pass ? "live " : "claim ", (const char *)name)) {
                rc = SQLITE_NOMEM;
                break;
            }
            if (pass) si->nlive++;
            else si->nclaims++;
        }
        if (rc == SQLITE_DONE) rc = SQLITE_OK;
        rc = finalize(st, rc);
    }
    if (rc != SQLITE_OK) {
        read_error(s, rc, "reading its newest run", err, errlen);
        lm_shard_info_clear(si);
        lm_store_close(s);
        return -1;
    }
    lm_store_close(s);
    return 0;
}

long long lm_store_find_merge(lm_store *s, const char *key)
{
    if (!usable(s) || !key) return -1;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "SELECT id FROM runs WHERE merge_key=?1 AND finished=1 ORDER BY id DESC "
                                       "LIMIT 1", -1, &st, NULL);
    b_text(st, 1, key, &rc);
    long long id = 0;
    rc = finalize(st, step_first(st, rc, &id));
    if (rc != SQLITE_OK) {
        complain(s, "looking for an earlier merge", rc);
        return -1;
    }
    return id;
}

/* copies the rows of table t for run `from` of src into run `to` of s, every column but those
 * in skip; renumber = 1 (claims): seq continues from *seq, reused_from is left NULL (it names
 * a run of the shard's own file) */
static int copy_table(lm_store *s, sqlite3 *src, const table_def *t, const char *const *skip, long long from,
                      long long to, int renumber, long long *seq)
{
    char cols[2048], sel[4096], ins[8192];
    if (column_list(t, skip, cols, sizeof cols)) return SQLITE_TOOBIG;
    int ncol = 0;
    for (const col_def *c = t->cols; c->name; c++) {
        int skipped = 0;
        for (const char *const *k = skip; *k; k++) skipped |= !strcmp(*k, c->name);
        ncol += !skipped;
    }
    size_t w = 0;
    int bad = snprintf(sel, sizeof sel, "SELECT %s FROM \"%s\" WHERE run_id=?1%s", cols, t->name,
                       renumber ? " ORDER BY seq, claim_id" : "") >= (int)sizeof sel;
    bad |= put_str(ins, sizeof ins, &w, "INSERT INTO ") || put_ident(ins, sizeof ins, &w, t->name) ||
           put_str(ins, sizeof ins, &w, renumber ? "(run_id, seq, " : "(run_id, ") ||
           put_str(ins, sizeof ins, &w, cols) || put_str(ins, sizeof ins, &w, renumber ? ") VALUES(?, ?" : ") VALUES(?");
    for (int k = 0; !bad && k < ncol; k++) bad = put_str(ins, sizeof ins, &w, ", ?");
    if (bad || put_str(ins, sizeof ins, &w, ")")) return SQLITE_TOOBIG;
    sqlite3_stmt *a = NULL, *b = NULL;
    int rc = sqlite3_prepare_v2(src, sel, -1, &a, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_prepare_v2(s->db, ins, -1, &b, NULL);
    b_int(a, 1, from, &rc);
    while (rc == SQLITE_OK && (rc = sqlite3_step(a)) == SQLITE_ROW) {
        rc = sqlite3_reset(b);
        int at = 1;
        b_int(b, at++, to, &rc);
        if (renumber) b_int(b, at++, ++*seq, &rc);
        for (int j = 0; rc == SQLITE_OK && j < ncol; j++) rc = sqlite3_bind_value(b, at + j, sqlite3_column_value(a, j));
        if (rc == SQLITE_OK) rc = step_done(b);
    }
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
    rc = finalize(a, rc);
    return finalize(b, rc);
}

long long lm_store_merge(lm_store *s, const lm_shard_info *sh, int n, const char *key)
{
    if (!usable(s) || !sh || n < 1 || !key) return -1;
    static const char *const skip_claims[] = {"run_id", "seq", "reused_from", NULL};
    static const char *const skip_configs[] = {"run_id", NULL};
    static const char *const skip_live[] = {"run_id", "reused_from", NULL};
    /* the merged run: the shards' common settings; began when the first began, took the
     * longest shard's seconds (they ran side by side), finished when the last finished */
    const lm_run_meta *m = &sh[0].meta;
    char date[40], fdate[40], seed[32];
    double secs = 0;
    snprintf(date, sizeof date, "%s", m->date);
    snprintf(fdate, sizeof fdate, "%s", sh[0].finished_date);
    for (int k = 0; k < n; k++) {
        if (strcmp(sh[k].meta.date, date) < 0) snprintf(date, sizeof date, "%s", sh[k].meta.date);
        if (strcmp(sh[k].finished_date, fdate) > 0) snprintf(fdate, sizeof fdate, "%s", sh[k].finished_date);
        if (sh[k].seconds > secs) secs = sh[k].seconds;
    }
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)m->seed);
    if (begin(s) != SQLITE_OK) return -1;
    const char *what = "creating the merged run";
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "INSERT INTO runs(commit_id, date, seed, versions, prec, budget, quick, "
                                       "finished, seconds, finished_date, host, selection, plan, merge_key) "
                                       "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, 1, ?8, ?9, ?10, ?11, ?12, ?13)",
                                -1, &st, NULL);
    char hosts[64];
    snprintf(hosts, sizeof hosts, "%d shard%s", n, n == 1 ? "" : "s");
    b_text(st, 1, m->commit, &rc);
    b_text(st, 2, date, &rc);
    b_text(st, 3, seed, &rc);
    b_text(st, 4, m->versions, &rc);
    b_int(st, 5, m->prec, &rc);
    b_int(st, 6, m->budget, &rc);
    b_int(st, 7, m->quick ? 1 : 0, &rc);
    b_real(st, 8, secs, &rc);
    b_text(st, 9, fdate, &rc);
    b_text(st, 10, hosts, &rc);
    b_text(st, 11, m->selection[0] ? m->selection : NULL, &rc);
    b_text(st, 12, m->plan[0] ? m->plan : NULL, &rc);
    b_text(st, 13, key, &rc);
    if (rc == SQLITE_OK) rc = step_done(st);
    long long run = rc == SQLITE_OK ? sqlite3_last_insert_rowid(s->db) : -1;
    rc = finalize(st, rc);
    long long seq = 0;
    for (int k = 0; rc == SQLITE_OK && k < n; k++) {
        what = "copying a shard's results";
        sqlite3 *src = NULL;
        rc = sqlite3_open_v2(sh[k].path, &src, SQLITE_OPEN_READONLY, NULL);
        if (rc == SQLITE_OK) rc = sqlite3_busy_timeout(src, 10000);
        /* one snapshot of the shard: its claims and their configurations agree */
        if (rc == SQLITE_OK) rc = sqlite3_exec(src, "BEGIN", NULL, NULL, NULL);
        if (rc == SQLITE_OK) rc = copy_table(s, src, &tables[T_CLAIMS], skip_claims, sh[k].run, run, 1, &seq);
        if (rc == SQLITE_OK) rc = copy_table(s, src, &tables[T_CONFIGS], skip_configs, sh[k].run, run, 0, NULL);
        if (rc == SQLITE_OK) rc = copy_table(s, src, &tables[T_LIVE], skip_live, sh[k].run, run, 0, NULL);
        sqlite3_close(src); /* a read transaction left open ends with the connection */
        if (rc != SQLITE_OK) break;
        what = "recording a shard";
        st = NULL;
        rc = sqlite3_prepare_v2(s->db, "INSERT INTO shards(run_id, k, n, host, seconds, file, source_run, date, "
                                       "finished_date, claims, live) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
                                       "?10, ?11)", -1, &st, NULL);
        b_int(st, 1, run, &rc);
        b_int(st, 2, sh[k].k, &rc);
        b_int(st, 3, sh[k].n, &rc);
        b_text(st, 4, sh[k].meta.host[0] ? sh[k].meta.host : NULL, &rc);
        b_real(st, 5, sh[k].seconds, &rc);
        b_text(st, 6, sh[k].path, &rc);
        b_int(st, 7, sh[k].run, &rc);
        b_text(st, 8, sh[k].meta.date, &rc);
        b_text(st, 9, sh[k].finished_date, &rc);
        b_int(st, 10, sh[k].nclaims, &rc);
        b_int(st, 11, sh[k].nlive, &rc);
        if (rc == SQLITE_OK) rc = step_done(st);
        rc = finalize(st, rc);
    }
    if (rc != SQLITE_OK) {
        complain(s, what, rc);
        rollback(s);
        return -1;
    }
    return commit(s, "committing the merged run") == SQLITE_OK ? run : -1;
}

int lm_store_item_seconds(const char *path, char *const *names, int n, double *sec, char *err, int errlen)
{
    for (int k = 0; k < n; k++) sec[k] = NAN;
    lm_store *s = open_checked(path, 0, err, errlen);
    if (!s) return -1;
    sqlite3_stmt *sc = NULL, *sl = NULL;
    int rc = sqlite3_prepare_v2(s->db, "SELECT c.seconds FROM claims c JOIN runs r ON r.id=c.run_id WHERE "
                                       "c.claim_id=?1 AND r.finished=1 AND c.seconds IS NOT NULL "
                                       "ORDER BY c.run_id DESC LIMIT 1", -1, &sc, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(s->db, "SELECT l.seconds FROM live l JOIN runs r ON r.id=l.run_id WHERE "
                                       "l.name=?1 AND r.finished=1 AND l.seconds IS NOT NULL "
                                       "ORDER BY l.run_id DESC LIMIT 1", -1, &sl, NULL);
    for (int k = 0; rc == SQLITE_OK && k < n; k++) {
        int live = !strncmp(names[k], "live ", 5);
        if (!live && strncmp(names[k], "claim ", 6)) continue;
        sqlite3_stmt *st = live ? sl : sc;
        rc = sqlite3_reset(st);
        b_text(st, 1, names[k] + (live ? 5 : 6), &rc);
        if (rc == SQLITE_OK) rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            sec[k] = sqlite3_column_double(st, 0);
            rc = SQLITE_OK;
        } else if (rc == SQLITE_DONE)
            rc = SQLITE_OK;
    }
    rc = finalize(sc, rc);
    rc = finalize(sl, rc);
    if (rc != SQLITE_OK) read_error(s, rc, "reading the seconds of earlier runs", err, errlen);
    lm_store_close(s);
    return rc == SQLITE_OK ? 0 : -1;
}
