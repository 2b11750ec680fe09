/* lm_verify.h -- the runner: claims x configurations x instances x precisions
 * -> verdicts (design.md section 2). */
#ifndef LM_VERIFY_H
#define LM_VERIFY_H

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
} lm_config_result;

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
    char reproduce[600];
    int certified;       /* violated, and at least one violated configuration certified */
    unsigned sizes_used; /* bit k: opts.size_name[k] was asked for by the claim */
    int nconfig;
    lm_config_result *cfg;
    char error[240];     /* why lm_run_claim refused the run (it returned 2) */
    char sizes[200];     /* the sizes the claim asked for (lm_size) with their ranges: "N 1..16, n 1..16" */
} lm_claim_result;

typedef struct {
    uint64_t seed;
    int budget;          /* default 64; quick 8 */
    int quick;
    mpfr_prec_t prec;    /* 0 = double first; else MPFR at this precision */
    mpfr_prec_t replay_prec; /* >= 256 */
    const char *only_config; /* NULL = all */
    int only_instance;   /* -1 = all */
    int nset;
    const char *set_name[64];
    double set_val[64];
    int progress;        /* print progress on stderr */
    int certify;         /* certify confirmed violations in ball arithmetic (default 1) */
    mpfr_prec_t cert_max_prec; /* cap of the precision escalation (default 2048) */
    int shrink;          /* shrink the worst confirmed break of violated configurations (default 1) */
    int nsize;           /* size overrides (check --size NAME=V), see lm_size */
    const char *size_name[16];
    int size_val[16];
    int round_bits;      /* cut random draws to this many significant bits (0: full) */
    /* a mutant of the claim (`check --mutate`, `lemmata mutate`), no claim code involved:
     * every right-hand side b times mutate_scale (> 0; 1: none), then, with mutate_flip,
     * every inequality a <= b read as b <= a */
    double mutate_scale;
    int mutate_flip;
} lm_run_opts;

void lm_run_opts_default(lm_run_opts *o);
/* sets parameter name to v in o (replacing an earlier --set of it); -1 when o holds 64 already */
int lm_run_opts_set(lm_run_opts *o, const char *name, double v);

/* registry (generated by the build) */
extern const lm_claim *const lm_registry[];
extern const int lm_registry_count;
const lm_claim *lm_claim_find(const char *id);
int lm_claim_param_index(const lm_claim *c, const char *name);
/* parse "k=v" for claim c into (index, value); returns 0 or writes err */
int lm_claim_parse_set(const lm_claim *c, const char *kv, int *idx, double *val,
                       char *err, int errlen);
int lm_claim_nconfigs(const lm_claim *c);
/* configuration k's reading (the paper as printed when the claim declares none) */
lm_reading lm_claim_reading(const lm_claim *c, int k);
/* applies configuration k's parameter values (its reading's set) to par (claim->params
 * order); 0, or -1 with err when a value does not parse (a defect of the claim file) */
int lm_claim_config_params(const lm_claim *c, int k, double *par, char *err, int errlen);
const char *lm_claim_config(const lm_claim *c, int k);

/* run one claim; returns 0 when the check ran (whatever the verdict), 2 when an option
 * is out of range for the claim (a --size outside its bounds, an --instance past the
 * configuration's count: res->error says which; nothing is kept), -1 when nothing ran
 * (no configuration selected) */
int lm_run_claim(lm_claim_result *res, const lm_claim *c, const lm_run_opts *o);
void lm_claim_result_clear(lm_claim_result *res);
/* one JSON object, one line */
void lm_claim_result_json(FILE *f, const lm_claim_result *res, uint64_t seed);

/* ---- tighten: the sharpest value of one named constant for which the claim
 * still passes on the same instances (same seed, budget, configurations) ----
 * pass = holds, consistent or artifact; fail = violated or inconsistent; any
 * other verdict stops the search.  The constant must be positive; the search
 * brackets it geometrically (factors of 2, then 10) and bisects in log scale
 * to relative width rtol. */
typedef struct {
    double stated;     /* the value the claim uses (default or --set) */
    double sharpest;   /* tightest passing value found (NaN if none) */
    double breaks_at;  /* nearest failing value found (NaN if none) */
    int direction;     /* -1: smaller values are tighter, +1: larger, 0: nothing breaks in range */
    int runs;          /* claim runs made */
    lm_verdict stated_verdict;
    char msg[300];     /* what was found, one line */
} lm_tighten_result;

/* returns 0 when a bracket was found and bisected, 1 when the search could not
 * decide (msg says why: not positive, undecided verdict, nothing breaks,
 * already failing at the stated value and nothing passes) */
int lm_tighten(lm_tighten_result *t, const lm_claim *c, int param, const lm_run_opts *o, double rtol,
               int max_runs);

/* ---- mutate: lemmata audits itself (src/verify/mutate.c has the rules) ---- */
#define LM_MAX_MUTANTS 64
typedef struct {
    char kind[16];      /* scale | flip | constant | exponent */
    char name[80];      /* "scale=0.0412", "flip", "c_scale=0.03", "rate=2" */
    double value;       /* the mutated value (NaN for flip) */
    lm_verdict verdict; /* the mutant run's verdict (LM_V_COUNT: read off the claim's run) */
    int killed;         /* 1 killed (violated/inconsistent), 0 survived, -1 undecided (not counted) */
    char note[200];
} lm_mutant;

typedef struct {
    const lm_claim *claim;
    lm_verdict stated;  /* the claim's verdict as stated */
    double worst_ratio;
    int nm;
    lm_mutant m[LM_MAX_MUTANTS];
    int run, killed;    /* mutants counted (killed != -1) and killed */
    int runs_extra;     /* claim runs spent bisecting constants */
    char note[300];     /* the survivors, one phrase each */
} lm_mutation_report;

/* The standard mutants of c on o's instances.  base: the claim's own result on the same
 * options (NULL: run it).  cheap: scale and flip read off base, constants moved 16-fold
 * each way (make verify); else every mutant is run and constants are bisected (lemmata
 * mutate).  0, or -1 when the claim could not be run. */
int lm_mutate(lm_mutation_report *mr, const lm_claim *c, const lm_run_opts *o, const lm_claim_result *base,
              int cheap);
void lm_mutation_json(FILE *f, const lm_mutation_report *mr);

#endif
