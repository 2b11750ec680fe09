/* lm_result.h -- what a check of a claim comes to: verdicts, and the result of one claim over
 * its configurations.  The runner (lm_verify.h) produces it; the store (lm_store.h) and the
 * report read it, without the runner. */
#ifndef LM_RESULT_H
#define LM_RESULT_H

#include "lm_claim.h"
#include <stdio.h>

/* ascending severity: the claim verdict is the worst over configurations */
typedef enum {
    LM_V_HOLDS = 0,
    LM_V_CONSISTENT,
    LM_V_VACUOUS,
    LM_V_NOT_CHECKABLE,
    LM_V_ARTIFACT,
    LM_V_ASSUMPTION_FAILED,
    LM_V_ERROR,
    LM_V_INCONSISTENT,
    LM_V_VIOLATED,
    LM_V_COUNT
} lm_verdict;

const char *lm_verdict_name(lm_verdict v);
/* a whole decimal integer in [lo, hi] (command-line options): 0, or -1 on anything else */
int lm_parse_long(const char *s, long lo, long hi, long *out);
int lm_verdict_from_name(const char *s); /* -1 if unknown */
/* a worst ratio for people: "0.0812", "1+3.1e-10", "1.8e+03", "--" */
const char *lm_fmt_ratio(char *buf, int n, double r);

typedef struct {
    char config[64];
    lm_verdict verdict;
    lm_reading_kind reading; /* the configuration's reading of the paper (lm_claim.readings) */
    char reading_note[200];  /* what was repaired or probed ("" for the paper as printed) */
    long vacuous;            /* instances that held only vacuously (lm_vacuous) */
    long flip_held;          /* instances with an observation that held strictly (b > a(1+tol)):
                                the flip mutant breaks there (measured in the first precision) */
    long instances;          /* instances evaluated */
    long observations;       /* inequalities compared */
    long assumption_failed;  /* instances whose hypotheses failed */
    long errors;
    long breaks_double;      /* breaks seen in the first precision */
    long confirmed;          /* breaks confirmed in MPFR */
    long artifacts;          /* breaks that vanished in MPFR */
    long near_misses;        /* near misses re-evaluated in MPFR */
    double worst_ratio;      /* max a/b over all observations (NaN if none) */
    char worst_where[160];   /* label of the worst observation */
    int worst_index;         /* instance index of the worst observation */
    char reproduce[600];     /* one command that reproduces the worst instance */
    char precisions[64];     /* e.g. "double,mpfr256" */
    double seconds;
    /* where `seconds` went (wall clock; lemmata check --json "phases", not stored): the random
     * instances and the adversarial search in the first precision (search: its points and their
     * evaluations), the MPFR replays of breaks and near misses, the escalation of near misses
     * past the replay's precision, the ball-arithmetic certification; the rest is bookkeeping */
    double sec_random, sec_search, sec_replay, sec_escalate, sec_certify;
    char detail[600];        /* reason for error/assumption/not-checkable */
    char *measures;          /* "name=value\n" lines of the worst instance */
    char *series;            /* "name\tx\ty\n" lines of the worst instance */
    char *ratios;            /* per-instance worst log10 ratios, one a line */
    char axes[160];          /* "xlabel\tylabel\tlogy" */
    /* certification of a violation (ball arithmetic, Arb): the worst confirmed break is
     * re-evaluated at 128, 256, ... bits until its balls separate */
    int certified;           /* 1: LHS ball wholly above the RHS ball */
    int cert_prec;           /* bits at which it was certified (0: not) */
    char cert_note[160];     /* why not, when a violation was not certified */
    /* the smallest counterexample found by shrinking the worst confirmed break (violated
     * configurations only): fewer samples/tokens/dimensions/heads (the sizes a claim routes
     * through lm_size), draws cut to short binary fractions, the first breaking iterate */
    char shrunk[400];        /* "N=1 n=2 D=2 d=1 H=1 (was ...); draws cut to 2 bits; break at t=3" */
    char shrunk_reproduce[800]; /* one command that reproduces the shrunk instance */
    char *shrunk_data;       /* lm_data_* output of the shrunk instance (NULL: none recorded) */
    int shrink_evals;        /* evaluations the shrinker spent */
    /* near misses (margins within double's rounding) escalated in MPFR until decided */
    char escalation[200];    /* "12 near misses decided at 256 bits, 2 at 512" ("" if none) */
    /* the observation profile (only with lm_run_opts.profile; not stored).  Observations are
     * grouped by their label's skeleton -- the label with its printed numbers taken out, so
     * "||D||=0.31, random dir" and "||D||=2.5, random dir" are one group, while "item 1" and
     * "item 2" stay apart; prof_key[g] is a hash of it.  prof_all[g]: the largest log10 ratio of
     * group g over every judged instance (first precision); prof_head[g] and prof_hmin[g]: the
     * largest and smallest over the head instances only, the first lm_prof_head(claim) random
     * ones, which every budget of 8 or more draws alike (prof_head_n of them judged).
     * prof_aligned: 0 when a configuration had more than LM_PROF_GROUPS groups or an instance
     * more than LM_PROF_MAX observations (the arrays are then NULL). */
    int prof_n, prof_aligned;
    long prof_head_n;
    unsigned long long *prof_key;
    double *prof_all, *prof_head, *prof_hmin;
} lm_config_result;

#define LM_PROF_MAX 65536
#define LM_PROF_GROUPS 512

typedef struct {
    const lm_claim *claim;
    lm_verdict verdict;  /* the worst over the `paper` configurations run (over all run when
                            none of them reads the paper: --config picked a repaired one) */
    int repaired_verdict; /* the worst over `repaired` configurations (-1: none run) */
    int probe_verdict;    /* the worst over `probe` configurations (-1: none run) */
    char mutation[48];    /* "" or the mutant checked: "scale=0.5", "flip" */
    /* check strength (lm_mutants): standard mutants run and killed (0 run: not measured) */
    int mutants_run, mutants_killed;
    char mutants_note[300]; /* the mutants that survived, one phrase each */
    double worst_ratio;
    long instances;
    char precisions[64];
    double seconds;
    double cpu_seconds;  /* this process's CPU time for the run: what a busy machine inflates least */
    double sec_shrink;   /* of `seconds`, shrinking the counterexample (the configurations' own
                            phases are in cfg[k].sec_*) */
    char reproduce[600];
    int certified;       /* violated, and at least one violated configuration certified */
    unsigned sizes_used; /* bit k: opts.size_name[k] was asked for by the claim */
    int nconfig;
    lm_config_result *cfg;
    char error[240];     /* why lm_run_claim refused the run (it returned 2) */
    char sizes[200];     /* the sizes the claim asked for (lm_size) with their ranges: "N 1..16, n 1..16" */
} lm_claim_result;

void lm_claim_result_clear(lm_claim_result *res);

#endif
