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
 * A claim's rows are written in one transaction, so an interrupted run
 * never leaves a claim half-saved; `make verify` resumes the newest
 * unfinished run with the same commit, seed, budget and precision.
 */
#ifndef LM_STORE_H
#define LM_STORE_H

#include "lm_verify.h"

typedef struct lm_store lm_store;

typedef struct {
    char commit[64];
    char date[40];
    uint64_t seed;
    char versions[256];
    int prec;   /* 0 = double first */
    int budget;
    int quick;
} lm_run_meta;

lm_store *lm_store_open(const char *path, char *err, int errlen);
void lm_store_close(lm_store *s);
/* resumes an unfinished run with equal commit/seed/prec/budget/quick, else
 * creates one; *resumed = 1 when resumed. Returns run id or -1. */
long long lm_store_begin_run(lm_store *s, const lm_run_meta *m, int *resumed);
int lm_store_has_claim(lm_store *s, long long run, const char *claim_id);
int lm_store_save_claim(lm_store *s, long long run, const lm_claim_result *r);
int lm_store_finish_run(lm_store *s, long long run, double seconds);
/* counts[v] = number of claims of run `run` with verdict v (LM_V_COUNT slots) */
int lm_store_verdict_counts(lm_store *s, long long run, long *counts);
/* Live training runs repeated wholly in MPFR (table live): series holds
 * "name\tx\ty" lines for the report's figure, summary one line of text. */
int lm_store_has_live(lm_store *s, long long run, const char *name);
int lm_store_save_live(lm_store *s, long long run, const char *name, const char *doc, int steps,
                       int prec, const char *series, const char *summary, double seconds);
/* Incremental verify: a result is stored with a fingerprint of everything it depends on
 * (the claim file, the library sources, seed, budget, precision); a later run finds the
 * newest earlier result with the same fingerprint and copies it instead of re-running.
 * live = 1: the live table (key = run name); 0: claims and their configurations. */
int lm_store_set_fingerprint(lm_store *s, long long run, int live, const char *key, const char *fp);
long long lm_store_find_fingerprint(lm_store *s, long long run, int live, const char *key, const char *fp);
int lm_store_copy(lm_store *s, long long from, long long to, int live, const char *key);

/* newest finished run id (or newest at all when none finished), -1 if empty */
long long lm_store_latest_run(lm_store *s);

#endif
