/* test_store_safety.c -- the results store under failure and hostile input (issue 15,
 * items 7, 11, 12, 14): a failing COMMIT, damaged, foreign, old and future databases,
 * corruption seen after opening, and column names that are not plain identifiers. */
#include <criterion/criterion.h>

#include "lm_constants.h"
#include "lm_store.h"
#include "test_support.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[64];

static void mkdir_tmp(void)
{
    snprintf(dir, sizeof dir, "/tmp/lm_safety_XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    chmod(path, 0700);
    return remove(path);
}

static void rm_tmp(void)
{
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(store_safety, .init = mkdir_tmp, .fini = rm_tmp, .timeout = 120);

static void tmp_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", dir, name);
}

static const lm_param_def params[] = {{.name = "alpha_scale", .def = 1.5, .doc = "multiplies alpha"}, {.name = NULL}};

static lm_claim claims[40];
static char claim_ids[40][32];

/* claim k (with parameters: the save path then allocates their text) */
static const lm_claim *claim(int k)
{
    snprintf(claim_ids[k], sizeof claim_ids[k], "safety/lemma_%d", k);
    claims[k] = (lm_claim){.id = claim_ids[k], .title = "safety", .file = "lemmas/safety.c",
                           .kind = LM_KIND_TRAJECTORY, .params = params};
    return &claims[k];
}

/* one configuration whose series is `bytes` long (a big claim needs many new pages) */
static void fabricate(lm_claim_result *r, const lm_claim *c, size_t bytes)
{
    memset(r, 0, sizeof *r);
    r->claim = c;
    r->verdict = LM_V_HOLDS;
    r->worst_ratio = 0.5;
    r->instances = 3;
    r->seconds = 0.1;
    r->nconfig = 1;
    r->cfg = calloc(1, sizeof *r->cfg);
    cr_assert_not_null(r->cfg);
    lm_config_result *g = &r->cfg[0];
    snprintf(g->config, sizeof g->config, "softmax");
    g->verdict = LM_V_HOLDS;
    g->worst_ratio = 0.5;
    g->seconds = 0.1;
    g->series = malloc(bytes + 1);
    cr_assert_not_null(g->series);
    for (size_t i = 0; i < bytes; i++) g->series[i] = (char)('a' + (i * 7919 + bytes) % 26);
    g->series[bytes] = 0;
}

static void unfabricate(lm_claim_result *r)
{
    free(r->cfg[0].series);
    free(r->cfg);
}

static lm_run_meta meta(uint64_t seed)
{
    lm_run_meta m;
    memset(&m, 0, sizeof m);
    snprintf(m.commit, sizeof m.commit, "abc123");
    m.seed = seed;
    m.budget = 8;
    m.quick = 1;
    return m;
}

/* a database with one run holding n claims of `bytes` each (fingerprint "fp<k>") */
static long long make_db(const char *path, int n, size_t bytes)
{
    char err[512] = "";
    lm_store *s = lm_store_open(path, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    lm_run_meta m = meta(1);
    long long run = lm_store_begin_run(s, &m, NULL);
    cr_assert_gt(run, 0);
    for (int k = 0; k < n; k++) {
        lm_claim_result r;
        fabricate(&r, claim(k), bytes);
        cr_assert_eq(lm_store_save_claim(s, run, &r), 0);
        char fp[16];
        snprintf(fp, sizeof fp, "fp%d", k);
        cr_assert_eq(lm_store_set_fingerprint(s, run, 0, claim_ids[k], fp), 0);
        unfabricate(&r);
    }
    cr_assert_eq(lm_store_save_live(s, run, "live-run", "doc", 10, 256, "a\t0\t1\n", "summary", 1.0), 0);
    cr_assert_eq(lm_store_finish_run(s, run, 2.0), 0);
    lm_store_close(s);
    return run;
}

/* SQL on the file through a plain SQLite connection (how a user or a bug damages it) */
static void raw_exec(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL), SQLITE_OK);
    char *msg = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    cr_assert_eq(rc, SQLITE_OK, "%s: %s", sql, msg ? msg : "?");
    sqlite3_free(msg);
    sqlite3_close(db);
}

static long long raw_int(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    cr_assert_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(db));
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s", sql);
    long long v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

typedef struct {
    char *bytes;
    size_t len;
    int exists;
} file_image;

static file_image slurp(const char *path)
{
    file_image f = {NULL, 0, 0};
    FILE *fp = fopen(path, "rb");
    if (!fp) return f;
    f.exists = 1;
    size_t cap = 1 << 16;
    f.bytes = malloc(cap);
    size_t got;
    while (f.bytes && (got = fread(f.bytes + f.len, 1, cap - f.len, fp)) > 0) {
        f.len += got;
        if (f.len == cap) f.bytes = realloc(f.bytes, cap *= 2);
    }
    fclose(fp);
    cr_assert_not_null(f.bytes);
    return f;
}

/* the file is byte for byte what it was, and no journal was left beside it */
static void assert_untouched(const char *path, file_image *before)
{
    file_image after = slurp(path);
    cr_assert_eq(after.exists, before->exists, "%s appeared or vanished", path);
    cr_assert_eq(after.len, before->len, "%s changed size: %zu -> %zu", path, before->len, after.len);
    cr_assert(before->len == 0 || !memcmp(after.bytes, before->bytes, before->len), "%s was modified", path);
    char j[256];
    snprintf(j, sizeof j, "%s-journal", path);
    cr_assert_neq(access(j, F_OK), 0, "%s left behind", j);
    free(after.bytes);
    free(before->bytes);
    before->bytes = NULL;
}

/* lm_store_open(path) fails with one line naming the file and containing `want`,
 * lm_store_check agrees, and the file is left exactly as it was */
static void assert_refused(const char *path, const char *want)
{
    file_image before = slurp(path);
    char err[512] = "";
    lm_store *s = lm_store_open(path, err, sizeof err);
    if (s) lm_store_close(s);
    cr_assert_null(s, "%s was accepted", path);
    cr_assert_not_null(strstr(err, path), "message does not name the file: %s", err);
    cr_assert_not_null(strstr(err, want), "expected '%s' in: %s", want, err);
    cr_assert_null(strchr(err, '\n'), "more than one line: %s", err);
    char err2[512] = "";
    cr_assert_neq(lm_store_check(path, err2, sizeof err2), 0, "lm_store_check accepted %s", path);
    cr_assert_not_null(strstr(err2, want), "lm_store_check: expected '%s' in: %s", want, err2);
    assert_untouched(path, &before);
}

/* deterministic bytes (xorshift) */
static void noise(unsigned char *b, size_t n, uint64_t seed)
{
    uint64_t x = seed | 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        b[i] = (unsigned char)(x >> 24);
    }
}

static void write_at(const char *path, long off, const void *b, size_t n)
{
    int fd = open(path, O_WRONLY);
    cr_assert_geq(fd, 0);
    cr_assert_eq(pwrite(fd, b, n, off), (ssize_t)n);
    close(fd);
}

static long file_size(const char *path)
{
    struct stat sb;
    cr_assert_eq(stat(path, &sb), 0);
    return (long)sb.st_size;
}

/* runs fn(arg) in a forked child with stderr sent to `log`: a crash (the double free of
 * issue 15 item 7 aborts) shows as a failed test; returns the child's exit status */
static int in_child(int (*fn)(const char *), const char *arg, const char *log)
{
    fflush(stdout);
    fflush(stderr);
    pid_t p = fork();
    cr_assert_geq(p, 0);
    if (p == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) dup2(fd, 2);
        _exit(fn(arg));
    }
    int st = 0;
    while (waitpid(p, &st, 0) < 0 && errno == EINTR) {}
    cr_assert(WIFEXITED(st), "the child died of signal %d (see %s)", WIFSIGNALED(st) ? WTERMSIG(st) : 0, log);
    return WEXITSTATUS(st);
}

static int file_has(const char *path, const char *want)
{
    file_image f = slurp(path);
    if (!f.exists) return 0;
    f.bytes = realloc(f.bytes, f.len + 1);
    f.bytes[f.len] = 0;
    int found = strstr(f.bytes, want) != NULL;
    free(f.bytes);
    return found;
}

/* the file may grow by `slack` bytes from its current size; SIGXFSZ ignored, so a write
 * past the limit fails with EFBIG (SQLITE_FULL) instead of killing the process */
static int limit_size(const char *path, long slack)
{
    struct stat sb;
    if (stat(path, &sb)) return -1;
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl;
    if (getrlimit(RLIMIT_FSIZE, &rl)) return -1;
    rl.rlim_cur = (rlim_t)(sb.st_size + slack);
    return setrlimit(RLIMIT_FSIZE, &rl);
}

static int unlimit_size(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_FSIZE, &rl)) return -1;
    rl.rlim_cur = rl.rlim_max;
    return setrlimit(RLIMIT_FSIZE, &rl);
}

/* ---- item 7: a failing COMMIT ------------------------------------------------------- */

#define BIG (600 * 1024) /* fits the page cache, so the pages are written at COMMIT */

static int save_under_size_limit(const char *path)
{
    char err[512];
    lm_store *s = lm_store_open(path, err, sizeof err);
    if (!s) return 10;
    lm_run_meta m = meta(5);
    long long run = lm_store_begin_run(s, &m, NULL);
    if (run < 0) return 11;
    lm_claim_result big, small;
    fabricate(&big, claim(0), BIG);
    fabricate(&small, claim(1), 100);
    if (limit_size(path, 8192)) return 12;
    if (lm_store_save_claim(s, run, &big) == 0) return 13; /* cannot fit: must fail, not crash */
    if (unlimit_size()) return 14;
    if (lm_store_has_claim(s, run, claim_ids[0]) != 0) return 15; /* rolled back: nothing saved */
    if (lm_store_save_claim(s, run, &small) != 0) return 16;      /* no transaction left open */
    if (lm_store_save_claim(s, run, &big) != 0) return 17;        /* and now it fits */
    if (lm_store_has_claim(s, run, claim_ids[0]) != 1) return 18;
    lm_store_close(s);
    s = lm_store_open(path, err, sizeof err); /* and the file passes the checks on open */
    if (!s) return 19;
    lm_store_close(s);
    unfabricate(&big);
    unfabricate(&small);
    return 0;
}

Test(store_safety, failed_commit_is_an_error_not_a_double_free)
{
    char db[128], log[128];
    tmp_path(db, sizeof db, "fsz.db");
    tmp_path(log, sizeof log, "fsz.log");
    make_db(db, 1, 100);
    int rc = in_child(save_under_size_limit, db, log);
    cr_assert_eq(rc, 0, "step %d failed (see %s)", rc, log);
    cr_assert(file_has(log, "committing the claim"), "the failure was not at COMMIT (see %s)", log);
}

static int copy_under_size_limit(const char *path)
{
    char err[512];
    lm_store *s = lm_store_open(path, err, sizeof err);
    if (!s) return 10;
    lm_run_meta m = meta(6);
    long long from = lm_store_find_fingerprint(s, -1, 0, claim_ids[0], "fp0");
    long long to = lm_store_begin_run(s, &m, NULL);
    if (from < 0 || to < 0) return 11;
    if (limit_size(path, 8192)) return 12;
    if (lm_store_copy(s, from, to, 0, claim_ids[0]) == 0) return 13;
    if (unlimit_size()) return 14;
    if (lm_store_has_claim(s, to, claim_ids[0]) != 0) return 15; /* rolled back */
    if (lm_store_copy(s, from, to, 0, claim_ids[0]) != 0) return 16; /* no transaction left open */
    if (lm_store_has_claim(s, to, claim_ids[0]) != 1) return 17;
    /* a source that does not exist copies nothing and says so */
    if (lm_store_copy(s, from, to, 0, "safety/none") == 0) return 18;
    if (lm_store_copy(s, from, to, 1, "no-live-run") == 0) return 19;
    lm_store_close(s);
    return 0;
}

Test(store_safety, failed_commit_of_a_copy_is_rolled_back)
{
    char db[128], log[128];
    tmp_path(db, sizeof db, "fszcopy.db");
    tmp_path(log, sizeof log, "fszcopy.log");
    make_db(db, 1, BIG);
    int rc = in_child(copy_under_size_limit, db, log);
    cr_assert_eq(rc, 0, "step %d failed (see %s)", rc, log);
    cr_assert(file_has(log, "committing a copied result"), "the failure was not at COMMIT (see %s)", log);
    cr_assert_eq(raw_int(db, "SELECT COUNT(*) FROM configs"), 2);
}

/* ---- item 11: the schema check on open ------------------------------------------------ */

Test(store_safety, dropped_table_is_refused)
{
    static const char *const drop[] = {"configs", "live", "claims", "runs"};
    for (int k = 0; k < 4; k++) {
        char db[128], sql[64], want[64];
        snprintf(sql, sizeof sql, "drop_%s.db", drop[k]);
        tmp_path(db, sizeof db, sql);
        make_db(db, 2, 100);
        snprintf(sql, sizeof sql, "DROP TABLE %s", drop[k]);
        raw_exec(db, sql);
        snprintf(want, sizeof want, "table '%s' is missing", drop[k]);
        assert_refused(db, want);
        assert_refused(db, "use a new --db, the file was left untouched");
    }
}

Test(store_safety, dropped_column_is_refused)
{
    char db[128];
    tmp_path(db, sizeof db, "dropcol.db");
    make_db(db, 1, 100);
    raw_exec(db, "ALTER TABLE configs DROP COLUMN detail");
    assert_refused(db, "column 'detail' of table 'configs' is missing");
    /* a column of schema 4 in a schema-4 database */
    tmp_path(db, sizeof db, "dropreading.db");
    make_db(db, 1, 100);
    raw_exec(db, "ALTER TABLE configs DROP COLUMN reading");
    assert_refused(db, "column 'reading' of table 'configs' is missing");
    /* a column of schema 3 in a schema-3 database: damage, not an old database */
    tmp_path(db, sizeof db, "dropfp.db");
    make_db(db, 1, 100);
    raw_exec(db, "ALTER TABLE claims DROP COLUMN fingerprint");
    assert_refused(db, "column 'fingerprint' of table 'claims' is missing");
    /* a schema-2 column in a database that says it is schema 2 */
    raw_exec(db, "ALTER TABLE configs DROP COLUMN escalation; PRAGMA user_version=2");
    assert_refused(db, "column 'escalation' of table 'configs' is missing");
}

Test(store_safety, future_schema_is_refused)
{
    char db[128];
    tmp_path(db, sizeof db, "future.db");
    make_db(db, 1, 100);
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version=%d", LM_STORE_SCHEMA + 1);
    raw_exec(db, sql);
    assert_refused(db, "written by a newer lemmata");
    raw_exec(db, "PRAGMA user_version=-1");
    assert_refused(db, "unknown schema version -1");
}

Test(store_safety, foreign_database_is_refused)
{
    char db[128];
    tmp_path(db, sizeof db, "foreign.db");
    raw_exec(db, "CREATE TABLE accounts(id INTEGER PRIMARY KEY, owner TEXT); INSERT INTO accounts VALUES(1, 'x')");
    assert_refused(db, "no lemmata tables");
    assert_refused(db, "table 'accounts'");
    /* even with lemmata's own constants table beside it */
    raw_exec(db, "CREATE TABLE constants(claim_id TEXT)");
    assert_refused(db, "not a lemmata results database");
    /* `lemmata constants` writes into the same file: it refuses it too, untouched */
    file_image before = slurp(db);
    char err[512] = "";
    cr_assert_null(lm_constdb_open(db, err, sizeof err));
    cr_assert_not_null(strstr(err, "not a lemmata results database"), "%s", err);
    assert_untouched(db, &before);
}

/* the first schema, as the first lemmata wrote it (no live table, user_version 1) */
static const char schema_v1[] =
    "CREATE TABLE runs(id INTEGER PRIMARY KEY AUTOINCREMENT, commit_id TEXT NOT NULL, date TEXT,"
    " seed TEXT NOT NULL, versions TEXT, prec INTEGER NOT NULL, budget INTEGER NOT NULL,"
    " quick INTEGER NOT NULL, finished INTEGER NOT NULL DEFAULT 0, seconds REAL, finished_date TEXT);"
    "CREATE TABLE claims(run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    " claim_id TEXT NOT NULL, seq INTEGER, verdict TEXT NOT NULL, worst_ratio REAL,"
    " instances INTEGER, precisions TEXT, seconds REAL, reproduce TEXT,"
    " title TEXT, file TEXT, kind TEXT, source TEXT, origin TEXT, confidence TEXT,"
    " proxy INTEGER, params TEXT, nconfig INTEGER, saved TEXT, PRIMARY KEY(run_id, claim_id));"
    "CREATE TABLE configs(run_id INTEGER NOT NULL, claim_id TEXT NOT NULL, seq INTEGER NOT NULL,"
    " config TEXT NOT NULL, verdict TEXT NOT NULL, worst_ratio REAL,"
    " instances INTEGER, observations INTEGER, assumption_failed INTEGER,"
    " errors INTEGER, breaks_double INTEGER, confirmed INTEGER, artifacts INTEGER,"
    " near_misses INTEGER, worst_where TEXT, worst_index INTEGER, reproduce TEXT,"
    " precisions TEXT, seconds REAL, detail TEXT, measures TEXT, series TEXT, ratios TEXT, axes TEXT,"
    " PRIMARY KEY(run_id, claim_id, seq),"
    " FOREIGN KEY(run_id, claim_id) REFERENCES claims(run_id, claim_id) ON DELETE CASCADE);"
    "CREATE INDEX runs_resume ON runs(finished, commit_id, seed);"
    "INSERT INTO runs(commit_id, seed, prec, budget, quick, finished) VALUES('old', '1', 0, 8, 1, 1);"
    "INSERT INTO claims(run_id, claim_id, seq, verdict, nconfig) VALUES(1, 'safety/lemma_0', 1, 'holds', 1);"
    "INSERT INTO configs(run_id, claim_id, seq, config, verdict) VALUES(1, 'safety/lemma_0', 0, 'softmax', 'holds');"
    "PRAGMA user_version=1;";

static void assert_migrated(const char *db)
{
    char err[512] = "";
    lm_store *s = lm_store_open(db, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    cr_assert_eq(raw_int(db, "PRAGMA user_version"), LM_STORE_SCHEMA);
    cr_assert_eq(lm_store_has_claim(s, 1, "safety/lemma_0"), 1);
    cr_assert_eq(lm_store_set_fingerprint(s, 1, 0, "safety/lemma_0", "fpold"), 0);
    lm_run_meta m = meta(9);
    long long run = lm_store_begin_run(s, &m, NULL);
    cr_assert_gt(run, 1);
    cr_assert_eq(lm_store_find_fingerprint(s, run, 0, "safety/lemma_0", "fpold"), 1);
    cr_assert_eq(lm_store_copy(s, 1, run, 0, "safety/lemma_0"), 0);
    cr_assert_eq(lm_store_has_live(s, run, "x"), 0);
    cr_assert_eq(lm_store_save_live(s, run, "x", "doc", 1, 256, "", "s", 0.5), 0);
    cr_assert_eq(lm_store_has_live(s, run, "x"), 1);
    lm_store_close(s);
    cr_assert_eq(raw_int(db, "SELECT COUNT(*) FROM configs"), 2);
    cr_assert_eq(raw_int(db, "SELECT reused_from FROM claims WHERE run_id=2"), 1);
    /* and it opens again without any change */
    file_image before = slurp(db);
    s = lm_store_open(db, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    lm_store_close(s);
    assert_untouched(db, &before);
}

Test(store_safety, old_schemas_are_migrated)
{
    char db[128], err[512];
    /* schema 1 without the live table */
    tmp_path(db, sizeof db, "v1.db");
    raw_exec(db, schema_v1);
    file_image before = slurp(db);
    cr_assert_eq(lm_store_check(db, err, sizeof err), 0, "%s", err); /* read-only: accepted, not changed */
    assert_untouched(db, &before);
    assert_migrated(db);
    /* schema 0: before user_version was written */
    tmp_path(db, sizeof db, "v0.db");
    raw_exec(db, schema_v1);
    raw_exec(db, "PRAGMA user_version=0");
    assert_migrated(db);
    /* schema 2: no fingerprints */
    tmp_path(db, sizeof db, "v2.db");
    raw_exec(db, schema_v1);
    raw_exec(db, "CREATE TABLE live(run_id INTEGER NOT NULL, name TEXT NOT NULL, doc TEXT, steps INTEGER,"
                 " prec INTEGER, series TEXT, summary TEXT, seconds REAL, PRIMARY KEY(run_id, name));"
                 "ALTER TABLE configs ADD COLUMN shrunk TEXT; ALTER TABLE configs ADD COLUMN shrunk_reproduce TEXT;"
                 "ALTER TABLE configs ADD COLUMN shrunk_data TEXT; ALTER TABLE configs ADD COLUMN escalation TEXT;"
                 "PRAGMA user_version=2");
    assert_migrated(db);
    /* schema 2 lacking the live table it always had: damaged */
    tmp_path(db, sizeof db, "v2nolive.db");
    raw_exec(db, schema_v1);
    raw_exec(db, "PRAGMA user_version=2");
    assert_refused(db, "table 'live' is missing");
}

Test(store_safety, new_empty_and_constants_only_files_get_the_schema)
{
    char db[128], err[512];
    const char *names[] = {"new.db", "empty.db", "constants.db"};
    for (int k = 0; k < 3; k++) {
        tmp_path(db, sizeof db, names[k]);
        if (k == 1) fclose(fopen(db, "w"));
        if (k == 2) {
            lm_constdb *c = lm_constdb_open(db, err, sizeof err);
            cr_assert_not_null(c, "%s", err);
            lm_constdb_close(c);
        }
        lm_store *s = lm_store_open(db, err, sizeof err);
        cr_assert_not_null(s, "%s: %s", names[k], err);
        cr_assert_eq(lm_store_latest_run(s), -1);
        lm_store_close(s);
        cr_assert_eq(raw_int(db, "PRAGMA user_version"), LM_STORE_SCHEMA);
        cr_assert_eq(raw_int(db, "SELECT COUNT(*) FROM sqlite_master WHERE type='table' AND name IN "
                                 "('runs','claims','configs','live')"), 4);
        cr_assert_eq(lm_store_check(db, err, sizeof err), 0, "%s", err);
    }
    /* lm_store_check never creates a file */
    tmp_path(db, sizeof db, "absent.db");
    cr_assert_neq(lm_store_check(db, err, sizeof err), 0);
    cr_assert_neq(access(db, F_OK), 0);
}

/* several processes creating the same new file at once (verify's workers, `lemmata
 * constants` beside a verify): each sees either nothing or the whole schema */
Test(store_safety, concurrent_first_open)
{
    char db[128];
    tmp_path(db, sizeof db, "race.db");
    enum { P = 4 };
    pid_t pid[P];
    fflush(stdout);
    fflush(stderr);
    for (int k = 0; k < P; k++) {
        pid[k] = fork();
        cr_assert_geq(pid[k], 0);
        if (pid[k] == 0) {
            char err[512];
            lm_store *s = lm_store_open(db, err, sizeof err);
            if (!s) {
                fprintf(stderr, "child %d: %s\n", k, err);
                _exit(10);
            }
            lm_run_meta m = meta(100 + (uint64_t)k);
            long long run = lm_store_begin_run(s, &m, NULL);
            lm_claim_result r;
            memset(&r, 0, sizeof r);
            r.claim = claim(k);
            r.verdict = LM_V_HOLDS;
            int rc = run > 0 && lm_store_save_claim(s, run, &r) == 0 ? 0 : 11;
            lm_store_close(s);
            _exit(rc);
        }
    }
    for (int k = 0; k < P; k++) {
        int st = 0;
        while (waitpid(pid[k], &st, 0) < 0 && errno == EINTR) {}
        cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child %d: status %d", k, st);
    }
    cr_assert_eq(raw_int(db, "SELECT COUNT(*) FROM claims"), P);
    cr_assert_eq(raw_int(db, "PRAGMA user_version"), LM_STORE_SCHEMA);
}

/* ---- item 12: damaged files ------------------------------------------------------------ */

Test(store_safety, random_bytes_in_the_middle_are_refused)
{
    char db[128];
    tmp_path(db, sizeof db, "holed.db");
    make_db(db, 24, 16 * 1024);
    long size = file_size(db);
    cr_assert_gt(size, 3 * 65536);
    static unsigned char junk[65536];
    noise(junk, sizeof junk, 12);
    write_at(db, size / 2 - 32768, junk, sizeof junk);
    assert_refused(db, "is damaged (PRAGMA quick_check: ");
    assert_refused(db, "the file was left untouched: move it aside or use a new --db");
}

Test(store_safety, hostile_files_are_refused)
{
    char db[128];
    static unsigned char junk[65536];
    /* text */
    tmp_path(db, sizeof db, "text.db");
    FILE *f = fopen(db, "w");
    fputs("this is not a database, just some text that is long enough to have a header\n", f);
    fclose(f);
    assert_refused(db, "not an SQLite database");
    /* random bytes */
    tmp_path(db, sizeof db, "random.db");
    noise(junk, sizeof junk, 3);
    f = fopen(db, "wb");
    fwrite(junk, 1, sizeof junk, f);
    fclose(f);
    assert_refused(db, "not an SQLite database");
    /* a real database cut short: in the middle, and inside the header */
    tmp_path(db, sizeof db, "cut.db");
    make_db(db, 8, 16 * 1024);
    cr_assert_eq(truncate(db, file_size(db) / 2 + 1000), 0);
    assert_refused(db, "is damaged");
    cr_assert_eq(truncate(db, 60), 0);
    assert_refused(db, "left untouched");
    /* a directory, and something that is not a regular file */
    tmp_path(db, sizeof db, "dir.db");
    cr_assert_eq(mkdir(db, 0700), 0);
    assert_refused(db, "is a directory");
    assert_refused("/dev/null", "not a regular file");
}

static int open_read_only(const char *path)
{
    if (geteuid() == 0 && (setgid(65534) || setuid(65534))) return 20; /* root writes anything */
    char err[512] = "";
    lm_store *s = lm_store_open(path, err, sizeof err);
    if (s) return 21;
    fprintf(stderr, "%s\n", err);
    if (!strstr(err, "read-only") || !strstr(err, path) || strchr(err, '\n')) return 22;
    if (lm_store_check(path, err, sizeof err)) return 23; /* reading it is fine */
    return 0;
}

Test(store_safety, read_only_file_is_refused)
{
    char db[128], log[128];
    tmp_path(db, sizeof db, "ro.db");
    tmp_path(log, sizeof log, "ro.log");
    make_db(db, 1, 100);
    cr_assert_eq(chmod(dir, 0755), 0);
    cr_assert_eq(chmod(db, 0444), 0);
    file_image before = slurp(db);
    int rc = in_child(open_read_only, db, log);
    cr_assert_eq(rc, 0, "step %d failed (see %s)", rc, log);
    assert_untouched(db, &before);
}

/* Corruption that appears after lm_store_open (another process, a disk) is an error of
 * every function, never "not found" */
Test(store_safety, corruption_after_open_is_an_error)
{
    char db[128], err[512];
    tmp_path(db, sizeof db, "late.db");
    long long run = make_db(db, 4, 8 * 1024);
    enum { N = 8 };
    lm_store *s[N];
    for (int k = 0; k < N; k++) {
        s[k] = lm_store_open(db, err, sizeof err);
        cr_assert_not_null(s[k], "%s", err);
    }
    /* every page but the first (the schema) becomes noise; the change counter moves so
     * that the open connections drop their caches */
    long size = file_size(db);
    unsigned char *junk = malloc((size_t)size);
    noise(junk, (size_t)size, 99);
    write_at(db, 4096, junk, (size_t)(size - 4096));
    free(junk);
    unsigned char hdr[4];
    int fd = open(db, O_RDWR);
    cr_assert_eq(pread(fd, hdr, 4, 24), 4);
    hdr[3]++;
    cr_assert_eq(pwrite(fd, hdr, 4, 24), 4);
    cr_assert_eq(pwrite(fd, hdr, 4, 92), 4);
    close(fd);

    cr_expect_eq(lm_store_has_claim(s[0], run, claim_ids[0]), -1);
    cr_expect_eq(lm_store_has_claim(s[0], run, "safety/absent"), -1); /* and it stays an error */
    cr_expect_eq(lm_store_has_live(s[1], run, "live-run"), -1);
    cr_expect_lt(lm_store_find_fingerprint(s[2], run + 1, 0, claim_ids[0], "fp0"), -1);
    cr_expect_eq(lm_store_latest_run(s[3]), -2);
    long counts[LM_V_COUNT];
    cr_expect_eq(lm_store_verdict_counts(s[4], run, counts), -1);
    lm_claim_result r;
    fabricate(&r, claim(30), 100);
    cr_expect_neq(lm_store_save_claim(s[5], run, &r), 0);
    unfabricate(&r);
    lm_run_meta m = meta(77);
    cr_expect_lt(lm_store_begin_run(s[6], &m, NULL), 0);
    cr_expect_neq(lm_store_copy(s[7], run, run + 1, 0, claim_ids[0]), 0);
    for (int k = 0; k < N; k++) lm_store_close(s[k]);
    assert_refused(db, "left untouched");
}

/* ---- item 14: the copy uses the fixed column list -------------------------------------- */

Test(store_safety, copy_ignores_columns_it_does_not_know)
{
    char db[128], err[512];
    tmp_path(db, sizeof db, "quote.db");
    long long from = make_db(db, 2, 1000);
    /* columns someone else added, named to break SQL built by pasting names */
    raw_exec(db, "ALTER TABLE claims ADD COLUMN \"x\"\"); DROP TABLE runs; --\" TEXT;"
                 "ALTER TABLE configs ADD COLUMN \"a b, c\" TEXT;"
                 "ALTER TABLE live ADD COLUMN \"it's\" TEXT;");
    lm_store *s = lm_store_open(db, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    lm_run_meta m = meta(2);
    long long to = lm_store_begin_run(s, &m, NULL);
    cr_assert_gt(to, from);
    cr_assert_eq(lm_store_copy(s, from, to, 0, claim_ids[1]), 0);
    cr_assert_eq(lm_store_copy(s, from, to, 1, "live-run"), 0);
    cr_assert_eq(lm_store_has_claim(s, to, claim_ids[1]), 1);
    cr_assert_eq(lm_store_has_live(s, to, "live-run"), 1);
    cr_assert_eq(lm_store_latest_run(s), from);
    lm_store_close(s);
    cr_assert_eq(raw_int(db, "SELECT COUNT(*) FROM runs"), 2);
    cr_assert_eq(raw_int(db, "SELECT COUNT(*) FROM configs WHERE run_id=2"), 1);
    cr_assert_eq(raw_int(db, "SELECT length(series) FROM configs WHERE run_id=2"), 1000);
    cr_assert_eq(raw_int(db, "SELECT reused_from FROM claims WHERE run_id=2"), from);
}

/* ---- the command line: one line and exit status 2 -------------------------------------- */

Test(store_safety, verify_refuses_bad_databases_in_one_line, .timeout = 240)
{
    char db[128], args[512], out[4096];
    const char *cases[][2] = {{"nocfg.db", "table 'configs' is missing"},
                              {"text.db", "not an SQLite database"},
                              {"dir.db", "is a directory"}};
    for (int k = 0; k < 3; k++) {
        tmp_path(db, sizeof db, cases[k][0]);
        if (k == 0) {
            make_db(db, 1, 100);
            raw_exec(db, "DROP TABLE configs");
        } else if (k == 1) {
            FILE *f = fopen(db, "w");
            fputs("just text, no database here, but long enough for a header of one hundred bytes .......\n", f);
            fclose(f);
        } else cr_assert_eq(mkdir(db, 0700), 0);
        file_image before = slurp(db);
        snprintf(args, sizeof args, "verify --quick --only dynamics/ --no-report -j 1 --db %s", db);
        int rc = lm_test_cli(out, sizeof out, args);
        cr_expect_eq(rc, 2, "%s: exit %d: %s", cases[k][0], rc, out);
        cr_expect_not_null(strstr(out, cases[k][1]), "%s: %s", cases[k][0], out);
        char *nl = strchr(out, '\n');
        cr_expect(nl && nl[1] == 0, "%s: not one line: %s", cases[k][0], out);
        if (k < 2) assert_untouched(db, &before);
        else free(before.bytes);
    }
}

/* kill -9 in the middle of a write transaction leaves a hot journal; the read-only check that
 * verify and report run first must not take a database in need of crash recovery for a damaged
 * one (it said "attempt to write a readonly database"): the journal is rolled back and the
 * database keeps its last committed state */
Test(store_safety, hot_journal_of_a_killed_writer_is_recovered)
{
    char path[300], journal[320], err[512] = "";
    tmp_path(path, sizeof path, "hot.db");
    snprintf(journal, sizeof journal, "%s-journal", path);
    make_db(path, 3, 64);
    pid_t p = fork();
    cr_assert_neq(p, -1);
    if (p == 0) {
        sqlite3 *h = NULL;
        if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) _exit(1);
        if (sqlite3_exec(h, "PRAGMA cache_size=1; BEGIN; DELETE FROM configs; DELETE FROM claims;", NULL, NULL,
                         NULL) != SQLITE_OK)
            _exit(2);
        raise(SIGKILL); /* mid-transaction */
        _exit(3);
    }
    int st;
    waitpid(p, &st, 0);
    cr_assert(WIFSIGNALED(st), "the writer was not killed (status %d)", st);
    struct stat jb;
    cr_assert_eq(stat(journal, &jb), 0, "no hot journal was left");
    cr_assert_gt(jb.st_size, 0);
    cr_assert_eq(lm_store_check(path, err, sizeof err), 0, "%s", err);
    lm_store *s = lm_store_open(path, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    cr_assert_eq(lm_store_has_claim(s, 1, claim_ids[2]), 1, "the committed claims were lost");
    lm_store_close(s);
}
