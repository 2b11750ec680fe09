/* lm_store.h -- results database (SQLite) with provenance.
 *
 * Schema (results/lemmata.db):
 *   runs(id, commit_id, date, seed, versions, prec, budget, quick,
 *        finished, seconds)
 *   claims(run_id, claim_id, verdict, worst_ratio, instances, precisions,
 *          seconds, reproduce)                       -- one row per claim
 *   configs(run_id, claim_id, config, verdict, worst_ratio, instances,
 *           observations, assumption_failed, errors, breaks_double,
 *           confirmed, artifacts, near_misses, worst_where, reproduce,
 *           precisions, seconds, detail, measures, series, ratios, axes)
 *   live(run_id, name, doc, steps, prec, series, summary, seconds)
 * (the full column list, with the schema version that added each column, is
 * the table `tables` in src/store/store.c: the one place the schema is defined).
 * A claim's rows are written in one transaction, so an interrupted run
 * never leaves a claim half-saved; `make verify` resumes the newest
 * unfinished run with the same commit, seed, budget and precision.
 *
 * Integrity rules (issue 15).  lm_store_open never writes to a file it has not
 * checked, and refuses (NULL, err = one line naming the file, what is wrong and
 * "the file was left untouched") a path that
 *   - is a directory or not a regular file, is read-only, or lies in a
 *     directory it cannot write (SQLite's journal goes beside the file);
 *   - is not an SQLite database (text, random bytes, a truncated header);
 *   - fails PRAGMA quick_check (damaged pages: move the file aside; about
 *     10-40 ms on the 3 MB database of a full `verify --quick`);
 *   - has PRAGMA user_version > LM_STORE_SCHEMA (written by a newer lemmata);
 *   - lacks a table or column the code reads or writes that its schema version
 *     should have (a dropped table/column: damaged or not a lemmata database);
 *   - holds no lemmata table but tables of something else.
 * A path that does not exist or is zero-length, or an SQLite file holding no
 * table at all (or only lemmata's `constants`), gets the full schema.  An
 * older schema (user_version 1 to 3, or 0 = before versions were recorded) is
 * migrated in one transaction: missing tables and columns of later versions
 * are added and user_version is set to LM_STORE_SCHEMA.
 * After a successful open, every function below reports a failed SQLite call
 * as an error (never as "not found"); a failed write transaction is rolled
 * back.  SQLITE_CORRUPT / SQLITE_NOTADB mark the handle damaged: that call and
 * every later one on the handle fail.  Callers exit 2 on any such error.
 */
#ifndef LM_STORE_H
#define LM_STORE_H

#include "lm_result.h"

typedef struct lm_store lm_store;

typedef struct {
    char commit[64];
    char date[40];
    uint64_t seed;
    char versions[256];
    int prec;   /* 0 = double first */
    int budget;
    int quick;
    char shard[24];      /* "K/N" for `verify --shard K/N`, "" for a whole run */
    char host[128];      /* where it ran ("" unknown) */
    char selection[256]; /* the --only prefix ("" every claim and live run) */
    char plan[24];       /* the shard plan's hash (lm_shard.h), "" for a whole run */
} lm_run_meta;

/* the schema version written to PRAGMA user_version (2: shrunk counterexamples and
 * near-miss escalation in configs; 3: fingerprints for incremental verify; 4: readings,
 * vacuous counts and check strength; 5: shards and merged runs) */
#define LM_STORE_SCHEMA 5

/* Opens (creating or migrating, see the integrity rules above) the database at path
 * for reading and writing.  NULL with a one-line message in err when it cannot. */
lm_store *lm_store_open(const char *path, char *err, int errlen);
/* The checks of lm_store_open, read-only: 0 when lm_store_open would accept the
 * file (an older schema it would migrate counts as accepted), -1 with a one-line
 * err otherwise (a missing file is an error here; a read-only one is not).  Never
 * creates or changes anything: for readers such as the report and `lemmata constants`. */
int lm_store_check(const char *path, char *err, int errlen);
/* The checks of lm_store_check, then whether the database holds run `run`: 0 when it does,
 * -1 with a one-line err otherwise ("no run 7 in FILE: its runs are numbered 1 to 3"). */
int lm_store_check_run(const char *path, long long run, char *err, int errlen);
void lm_store_close(lm_store *s);
/* resumes an unfinished run with equal commit/seed/prec/budget/quick, else
 * creates one; *resumed = 1 when resumed. Returns run id or -1. */
long long lm_store_begin_run(lm_store *s, const lm_run_meta *m, int *resumed);
/* 1 when run `run` has the claim, 0 when not, -1 on a database error */
int lm_store_has_claim(lm_store *s, long long run, const char *claim_id);
/* 0 when saved; -1 (nothing saved, the transaction rolled back) on any error */
int lm_store_save_claim(lm_store *s, long long run, const lm_claim_result *r);
int lm_store_finish_run(lm_store *s, long long run, double seconds);
/* counts[v] = number of claims of run `run` with verdict v (LM_V_COUNT slots) */
int lm_store_verdict_counts(lm_store *s, long long run, long *counts);
/* the standard mutants run and killed over a run's claims (0, 0 when none were measured) */
int lm_store_mutant_totals(lm_store *s, long long run, long *nrun, long *nkilled);
/* Live training runs repeated wholly in MPFR (table live): series holds
 * "name\tx\ty" lines for the report's figure, summary one line of text.
 * has_live: 1 / 0 / -1 on a database error, as lm_store_has_claim. */
int lm_store_has_live(lm_store *s, long long run, const char *name);
int lm_store_save_live(lm_store *s, long long run, const char *name, const char *doc, int steps,
                       int prec, const char *series, const char *summary, double seconds);
/* Incremental verify: a result is stored with a fingerprint of everything it depends on
 * (the claim file, the library sources, seed, budget, precision); a later run finds the
 * newest earlier result with the same fingerprint and copies it instead of re-running.
 * live = 1: the live table (key = run name); 0: claims and their configurations. */
int lm_store_set_fingerprint(lm_store *s, long long run, int live, const char *key, const char *fp);
/* the run id, -1 when no result has the fingerprint, -2 on a database error */
long long lm_store_find_fingerprint(lm_store *s, long long run, int live, const char *key, const char *fp);
/* copies the stored result `key` of run `from` into run `to` (one transaction); -1 on an
 * error or when run `from` has no such result (nothing copied) */
int lm_store_copy(lm_store *s, long long from, long long to, int live, const char *key);

/* newest finished run id (or newest at all when none finished), -1 if empty, -2 on a
 * database error */
long long lm_store_latest_run(lm_store *s);

/* ---- shards (lemmata verify --shard K/N, lemmata merge) ----------------------------------- */

typedef struct {
    char path[1024];
    long long run;          /* the file's newest run (-1: none) */
    lm_run_meta meta;
    int finished;
    int k, n;               /* from meta.shard; -1 when the run is not a shard */
    double seconds;         /* its wall time (NaN unknown) */
    char finished_date[40];
    int nclaims, nlive;
    char **items;           /* "claim ID" and "live NAME", sorted within each kind */
    int nitems;
} lm_shard_info;

/* reads (never writes) the newest run of the database at path, with its items: 0, or -1
 * with one line in err (missing, damaged, not a lemmata database) */
int lm_store_shard_info(const char *path, lm_shard_info *si, char *err, int errlen);
void lm_shard_info_clear(lm_shard_info *si);
/* the finished run of s merged with this key: its id, 0 when none, -1 on an error */
long long lm_store_find_merge(lm_store *s, const char *key);
/* one finished run in s made of the shards sh[0..n) (checked by the caller: same commit,
 * seed, budget, plan; disjoint and complete), in one transaction, with a row per shard in
 * the table `shards`: its id, or -1 (nothing written) */
long long lm_store_merge(lm_store *s, const lm_shard_info *sh, int n, const char *key);
/* the seconds each item ("claim ID" / "live NAME") took in the newest finished run of the
 * database at path that has it (NaN: none): the weights of a shard plan.  0, or -1 with err */
int lm_store_item_seconds(const char *path, char *const *names, int n, double *sec, char *err, int errlen);

#endif
