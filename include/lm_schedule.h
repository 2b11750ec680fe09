/* lm_schedule.h -- the verify scheduler: every claim and live run of every paper as a work
 * item, shared out to N worker processes, each result stored in the database with the
 * fingerprint of what it depends on, and reused while that is unchanged (incremental verify).
 *
 * A stored result depends on the core (lm_srchash), its own paper folder's non-claim files
 * (its model, kit, runs and paper.c: lm_paper_srchash), for a claim its file's bytes, the
 * item's name, and the run's seed, budget, precision and quick flag (tools/gen_srchash.sh
 * generates the hashes at build time).  `lemmata verify` is this scheduler plus the command
 * line, the lock, the run's bookkeeping and the weave (src/cli/verify.c). */
#ifndef LM_SCHEDULE_H
#define LM_SCHEDULE_H

#include "lm_verify.h"
#include <signal.h>

typedef struct {
    const char *db;   /* the results database (each worker opens its own connection) */
    long long run;    /* the run results go to (lm_store_begin_run) */
    const char *only; /* NULL: every claim and live run; else the claims whose id starts with it */
    int jobs;         /* worker processes (1: in this process) */
    int force;        /* 1: never reuse a stored result */
    int mutants;      /* 1: measure each claim's check strength (lm_mutate, cheap mode) */
    const unsigned char *pick; /* NULL: every item; else item k (lm_sched_items order) runs when pick[k] */
} lm_sched;

typedef struct {
    int ran, reused, resumed, failed; /* items: run now, copied from an earlier run, already in this run, failed */
    int dbfail;       /* a worker could not read or write the database */
    int nfailed;      /* items that could not be run or whose worker died (listed on stderr) */
    int worker_rc;    /* 0, or the exit status a worker ended with (3: it failed) */
} lm_sched_result;

/* the number of work items for only (claims and, when only is NULL, live runs); *nclaims: how
 * many of them are claims (may be NULL) */
int lm_sched_count(const char *only, int *nclaims);

/* Runs every item of s on s->jobs workers with the options o; prints one line per item on
 * stdout.  Returns 0 when the schedule ran to its end (items may have failed: see r), 130 when
 * it was interrupted (lm_sched_interrupt; finished items are saved), 3 when it could not start
 * (out of memory, no shared memory). */
int lm_sched_run(const lm_sched *s, const lm_run_opts *o, lm_sched_result *r);

/* The items of only (NULL: every claim and live run), in schedule order, as "claim ID" and
 * "live NAME" (*names: malloc'd array of malloc'd strings, free with lm_sched_items_free):
 * their number, or -1 out of memory. */
int lm_sched_items(const char *only, char ***names);
void lm_sched_items_free(char **names, int n);

/* The reference cost of an item ("claim ID" / "live NAME"): the seconds it took at budget 64
 * in the full verify data/costs.tsv was made from (tools/gen_costs.sh), compiled in; NaN for
 * an item not in it.  A number of the source tree, not of this machine: what sizes work by it
 * (the slack bisection, the default shard plan) comes out the same wherever it runs. */
double lm_item_cost(const char *item);
double lm_claim_cost(const char *claim_id);

/* ---- shards: `verify --shard K/N` ----------------------------------------------------------
 * The items are shared out to nshards shards by weight (the seconds an earlier run took,
 * lm_store_item_seconds, or the reference costs lm_item_cost; items without one weigh the
 * median of those with one, or 1 when none has): heaviest first (ties by name), each to the shard with the least weight so far (ties:
 * the lowest K).  A pure function of the item names, the weights and nshards, so every shard
 * process computes the same plan; plan_hash (16 hex digits) names it, and `lemmata merge`
 * refuses shards of different plans.  shard_of[k] is item k's shard; load[K] (nshards
 * entries, may be NULL) the weight of shard K.  0, or -1 (bad nshards, out of memory). */
int lm_shard_plan(char *const *names, const double *weights, int nitems, int nshards, int *shard_of, double *load,
                  char plan_hash[24]);

/* set by SIGINT/SIGTERM (install lm_sched_on_signal): the workers stop after their current item */
extern volatile sig_atomic_t lm_sched_interrupted;
void lm_sched_on_signal(int sig);

/* one summary line of a claim result on stdout: "[k/n] id verdict worst ..." */
void lm_claim_result_print_line(const lm_claim_result *r, int k, int n);

#endif
