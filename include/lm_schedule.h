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

/* set by SIGINT/SIGTERM (install lm_sched_on_signal): the workers stop after their current item */
extern volatile sig_atomic_t lm_sched_interrupted;
void lm_sched_on_signal(int sig);

/* one summary line of a claim result on stdout: "[k/n] id verdict worst ..." */
void lm_claim_result_print_line(const lm_claim_result *r, int k, int n);

#endif
