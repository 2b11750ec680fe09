/* lm_claim.h -- what a literate claim file sees.
 *
 * A claim file (lemmas/<paper>/<name>.c) opens with a comment holding the
 * LaTeX blocks \claim{id}{title}, \source{...}, \statement{...}, \check{...}
 * (woven into the report; the id and title are stated only there), declares its
 * parameters (LM_PARAMS), then defines an evaluator and registers it:
 *
 *     static int eval(lm_eval *ev) { ...set up instance, compute a and b...
 *         lm_obs_le(ev, t, &a, &b, 0.0, "a vs b");  return 0; }
 *     LM_CLAIM(claim_mypaper_lemma3) = { .kind = LM_KIND_POINTWISE, .params = params,
 *                                        .eval = eval, ... };
 *
 * docs/authoring.md is the guide.  The evaluator computes in ev->ctx (double, MPFR or
 * Arb) and never touches
 * SQLite, gnuplot or the runner.  One call of eval is one instance: a random
 * draw from ev->seed, or the point ev->x found by adversarial search.
 * Each lm_obs_* call records one inequality "a <= b".
 */
#ifndef LM_CLAIM_H
#define LM_CLAIM_H

#include "lm_mat.h"
#include "lm_rng.h"
#include <math.h>

typedef enum {
    LM_KIND_TRAJECTORY = 0, /* along-trajectory inequality */
    LM_KIND_POINTWISE,      /* pointwise inequality */
    LM_KIND_IDENTITY,       /* identity checked as a residual */
    LM_KIND_STRUCTURAL,     /* existence/structural claim */
    LM_KIND_RATE,           /* rate/asymptotic claim: proxy only */
    LM_KIND_PROBABILISTIC,  /* probabilistic claim */
    LM_KIND_COUNT
} lm_kind;

const char *lm_kind_name(lm_kind k);

/* A named constant or switch.  Switches list their choices as "a|b|c";
 * the value is then the index of the choice (0, 1, ...).
 *
 * Every numeric parameter declares its type and range, checked by
 * lm_claim_parse_set before anything runs (so `--set T=-1` is a one-line
 * usage error, never a run):
 *     "int [1, 20000]"    an integer from 1 to 20000
 *     "[0, 1]"            a real number (the default type), both ends included
 *     "(0, 1e6]"          0 excluded; "inf" is allowed as an open end: "(0, inf)"
 * The upper end of a size, a run length or a count is a resource bound: the
 * largest value for which one instance stays within seconds and megabytes
 * (say so in doc when it is not obvious).  Switches (choices != NULL) take
 * no range.  The default must lie in the range (a test checks every claim). */
typedef struct {
    const char *name;
    double def;
    const char *doc;
    const char *choices; /* NULL for numeric parameters */
    const char *range;   /* "int [lo, hi]", "[lo, hi]", "(lo, hi]" ...; NULL only for switches */
} lm_param_def;

/* What a parameter is to the paper, for `lemmata mutate` and `lemmata tighten`, read
 * from the type word of its range (lm_param_role):
 *   "constant [lo, hi]"  a constant of the statement (mutated past its sharpest value)
 *   "exponent [lo, hi]"  an exponent of a rate or a bound (mutated by -1 and +1)
 *   "setting [lo, hi]"   a setting of the check (a tolerance, a run length): never mutated
 *   no word ("[lo, hi]", "int [lo, hi]"): decided from the name and doc
 *   (lm_param_is_constant: *_scale, *_factor, *_coef, "multiplies ..."; tolerances and
 *   run lengths are not).  All three words are real numbers. */
typedef enum { LM_ROLE_AUTO = 0, LM_ROLE_CONSTANT, LM_ROLE_EXPONENT, LM_ROLE_SETTING } lm_param_role;
lm_param_role lm_param_role_of(const lm_param_def *p);

/* A configuration's reading of the paper.  The claim's
 * verdict is the worst over its `paper` configurations; `repaired` and `probe`
 * configurations are judged and shown beside it ("false as printed; holds
 * with eta/2").  Every claim has at least one `paper` configuration (a test
 * checks every claim).
 *   LM_READ_PAPER     the statement as printed, or as the catalogue
 *                     reconstructs the printed statement
 *   LM_READ_REPAIRED  a corrected constant, an added condition, a restricted
 *                     hypothesis: note says which ("coefficient eta/2")
 *   LM_READ_PROBE     a stress test beyond the hypotheses: note says what */
typedef enum { LM_READ_PAPER = 0, LM_READ_REPAIRED, LM_READ_PROBE, LM_READ_COUNT } lm_reading_kind;

const char *lm_reading_name(lm_reading_kind k); /* "paper", "repaired", "probe" */

typedef struct {
    lm_reading_kind kind;
    const char *note; /* what was repaired or probed (NULL allowed for paper) */
    const char *set;  /* this configuration's parameter values, "name=value,name=value"
                         (switches by choice name or index), applied before any --set;
                         NULL: the declared defaults */
} lm_reading;

#define LM_READINGS_END {LM_READ_COUNT, NULL, NULL}

/* a parsed range */
typedef struct {
    int integer;        /* 1: integers only */
    double lo, hi;      /* ends (may be -inf / inf) */
    int lo_open, hi_open;
} lm_range;

/* parses p->range (or a switch's 0..nchoices-1) into r: 0, or -1 when the
 * declaration is malformed or missing */
int lm_param_range(lm_range *r, const lm_param_def *p);
/* 1 when v is in r (NaN never is) */
int lm_range_contains(const lm_range *r, double v);
/* "an integer in [1, 20000]" / "a number in (0, 1e+06]" */
const char *lm_range_str(char *buf, int n, const lm_range *r);

typedef struct lm_eval lm_eval;

typedef struct lm_claim {
    const char *id;         /* "mypaper/lemma3" */
    const char *title;      /* short title */
    const char *file;       /* __FILE__ (set by LM_CLAIM) */
    lm_kind kind;
    const char *source;     /* where in the paper */
    const char *origin;     /* "verbatim" or "reconstructed" */
    const char *confidence; /* catalogue confidence: high/medium/low */
    const lm_param_def *params;  /* terminated by {NULL} */
    const char *const *configs;  /* NULL-terminated names; NULL = one "default" */
    /* one reading per configuration, in configs order, ended by LM_READINGS_END
     * (NULL: every configuration reads the paper as printed, with the declared
     * defaults); a test checks the count against configs */
    const lm_reading *readings;
    double inst_scale;      /* random instances per config = budget*inst_scale (>=1) */
    /* optional: the reference CPU seconds of one run at budget 64, which sizes the slack
     * bisection; 0 = the data/costs.tsv entry, or, for a claim not in it, the CPU seconds of
     * its own run (which depend on the machine) */
    double ref_seconds;
    int search_dim;         /* adversarial search dimension; 0 = none */
    /* optional: 0 for configurations where the search does not apply */
    int (*search_in)(int config);
    int proxy;              /* 1: verdicts read consistent/inconsistent */
    int no_replay;          /* 1: breaks are not replayed in MPFR (proxy claims only) */
    int certifiable;        /* 1: audited to compute its observations only through the lm_num /
                               lm_mat API (no midpoint reads feeding them), so a violation can be
                               certified in ball arithmetic; 0: never certified */
    int state_certifiable;  /* 1 (trajectory claims): keeps its state when asked (lm_state_keep) and,
                               given it (lm_state_given), evaluates only that iterate's step, so a
                               violation is certified from the exact state, not from a run replayed
                               in balls; needs .certifiable */
    int (*eval)(lm_eval *ev);
} lm_claim;

/* Declares a claim.  Its id, title and file are not written in the declaration: the build reads
 * them from the literate header's \claim{id}{title} and the file's path (tools/gen_registry.sh
 * fills them in with lm_claim_fill before main runs), so they are stated once. */
#define LM_CLAIM(sym) lm_claim sym

/* Sets c's id and file, and its plain title from the LaTeX one (lm_tex_plain), where the
 * declaration left them NULL.  Called by the generated registry. */
void lm_claim_fill(lm_claim *c, const char *id, const char *file, const char *tex_title);
/* A one-line plain-text rendering of a LaTeX title ("Smoothness constants $Z$ and $G$" ->
 * "Smoothness constants Z and G"; \le -> <=, \| -> ||, \frac{a}{b} -> a/b, \alpha -> alpha,
 * font commands and braces dropped).  A new string (malloc); NULL when out of memory. */
char *lm_tex_plain(const char *tex);

/* number of readings before LM_READINGS_END (0 when none are declared) */
int lm_claim_nreadings(const lm_claim *c);

struct lm_eval_priv;

struct lm_eval {
    const lm_claim *claim;
    const lm_ctx *ctx;   /* precision to compute in */
    int config;          /* index into claim->configs */
    const char *config_name;
    int index;           /* instance index */
    uint64_t seed;       /* instance seed: draw everything random from it */
    const double *x;     /* adversarial point (NULL for a random instance) */
    int nx;
    int tmax;            /* trajectory claims: iterates past tmax need not run (-1: all) */
    int budget;          /* effort scale (default 64, quick 8) */
    int quick;
    int searching;       /* 1 while inside the adversarial search (keep it cheap) */
    const double *par;   /* parameter values, in claim->params order */
    struct lm_eval_priv *p;
};

/* Typed parameters.  A claim lists its parameters once, as an X-macro of NUM and SWITCH entries,
 *
 *     #define PARAMS(NUM, SWITCH)                                                     \
 *         NUM(c, 1.0, "constant [0, 1e6]", "multiplies the bound")                    \
 *         NUM(n_max, 8, "int [2, 64]", "largest dimension (a resource bound)")        \
 *         SWITCH(norm, 0, "spectral|frobenius", "which norm")
 *     LM_PARAMS(PARAMS)
 *
 * which defines the table `params` (for .params) and the struct lm_params with one double per
 * parameter, in order; an evaluator reads them with
 *
 *     const lm_params P = lm_params_of(ev);   ...  P.c, lm_int(P.n_max), lm_int(P.norm)
 *
 * so a misspelt name is a compile error, not a run-time abort (as lm_par's string lookup). */
/* an integer parameter's value (rounded as lm_par_i rounds) */
static inline int lm_int(double v) { return (int)lrint(v); }
#define LM_P_NUM_(name, def, range, doc) {#name, def, doc, NULL, range},
#define LM_P_SWITCH_(name, def, choices, doc) {#name, def, doc, choices, NULL},
#define LM_P_FIELD_(name, def, range, doc) double name;
#define LM_P_GET_(name, def, range, doc) p_.name = ev->par[k_++];
#define LM_PARAMS(LIST)                                                                        \
    static const lm_param_def params[] = {LIST(LM_P_NUM_, LM_P_SWITCH_){NULL, 0, NULL, NULL, NULL}}; \
    typedef struct {                                                                           \
        LIST(LM_P_FIELD_, LM_P_FIELD_)                                                         \
    } lm_params;                                                                               \
    static inline lm_params lm_params_of(const lm_eval *ev)                                    \
    {                                                                                          \
        lm_params p_;                                                                          \
        int k_ = 0;                                                                            \
        LIST(LM_P_GET_, LM_P_GET_)                                                             \
        (void)k_;                                                                              \
        return p_;                                                                             \
    }

/* Parameter value by name (aborts on a name the claim does not declare). */
double lm_par(const lm_eval *ev, const char *name);
int lm_par_i(const lm_eval *ev, const char *name);

/* Observations: record "a <= b*(1+reltol)".  t is the iterate (or -1).
 * where (printf-style, may be NULL) says what was compared. */
void lm_obs_le(lm_eval *ev, int t, const lm_num *a, const lm_num *b, double reltol,
               const char *where, ...) __attribute__((format(printf, 6, 7)));
/* same, in the log domain: log a <= log b + log1p(reltol) */
void lm_obs_le_log(lm_eval *ev, int t, const lm_num *loga, const lm_num *logb,
                   double reltol, const char *where, ...)
    __attribute__((format(printf, 6, 7)));
/* doubles, for quantities that are exact or computed outside the context */
void lm_obs_le_d(lm_eval *ev, int t, double a, double b, double reltol,
                 const char *where, ...) __attribute__((format(printf, 6, 7)));

/* Hypotheses: when ok is 0 the instance is `assumption-failed` (not a pass,
 * not a break).  Returns ok. */
int lm_assume(lm_eval *ev, int ok, const char *why, ...) __attribute__((format(printf, 3, 4)));
/* An inner solver failed or a value is not finite: the instance is `error`.
 * Returns -1 so a claim can write `return lm_fail(ev, ...)`. */
int lm_fail(lm_eval *ev, const char *why, ...) __attribute__((format(printf, 2, 3)));
/* The instance satisfied the claim only vacuously: its hypothesis is not met on
 * the instance the paper targets (so "if X then Y" held because X failed), or
 * the right-hand side is trivially large (at or above the quantity's a-priori
 * maximum).  A configuration whose every instance is vacuous gets the verdict
 * `vacuous` (a finding, not a pass).  Returns 0. */
int lm_vacuous(lm_eval *ev, const char *why, ...) __attribute__((format(printf, 2, 3)));
/* lm_vacuous when b >= amax (the RHS is at or above the LHS's a-priori maximum amax);
 * returns 1 when it was */
int lm_rhs_trivial(lm_eval *ev, double b, double amax, const char *what);
/* A rate proxy judged by the rule of lm_stats.h (lm_rate_fit_seq): a fit whose
 * slope is not yet stable makes the instance not-checkable ("horizon too short"),
 * never inconsistent -- unless another observation of the instance broke, which
 * stands; a stable one records the observation excess <= tol (in log form: its ratio
 * is e^(excess - tol), 1 at the edge of the tolerance) under the label what (a claim
 * with .proxy = 1 reads it consistent/inconsistent), judged in double: its break is
 * not replayed in MPFR.
 * Measures: the slope, its standard error, the slope at half the horizon. */
struct lm_rate_fit;
void lm_rate_judge(lm_eval *ev, const struct lm_rate_fit *r, const char *what);
/* the endings of lm_rate_judge's measure names ("<what>" + ending), which lemmata mutate
 * reads back to tell an equivalent exponent mutant */
#define LM_RATE_M_SLOPE ": fitted slope on [T/8, T]"
#define LM_RATE_M_CLAIMED ": claimed slope"
#define LM_RATE_M_SE ": slope standard error"
#define LM_RATE_M_HALF ": fitted slope on [T/16, T/2]"
/* The claim cannot be checked numerically (keep rare). */
int lm_not_checkable(lm_eval *ev, const char *why);

/* Measured quantities shown in the report next to the verdict. */
void lm_measure(lm_eval *ev, const char *name, double value);
/* A figure series (x, y) under a name; the report plots the series of the
 * worst instance of each configuration.  Bounds are series too. */
void lm_series(lm_eval *ev, const char *name, double x, double y);
/* Axis hint for the figure: "log" y axis etc.  Optional. */
void lm_series_axes(lm_eval *ev, const char *xlabel, const char *ylabel, int logy);

/* Instance sizes (samples, tokens, dimensions, heads, ...), by name.  A claim
 * that routes the sizes it picks through lm_size lets the shrinker look for a
 * smaller counterexample (and `lemmata check --size NAME=V` set them): the
 * result is def unless an override is given, never below min nor above max. */
int lm_size(lm_eval *ev, const char *name, int def, int min, int max);
/* n sizes at once: z[k] = lm_size(ev, names[k], def[k], 1, max[k]) */
void lm_sizes(lm_eval *ev, int *z, const int *def, int n, const char *const *names,
              const int *max);
/* The sizes' ranges are resource bounds: an override (`--size`, never the
 * shrinker, which only goes down) outside [min, max] is refused before the
 * instance allocates anything: lm_size returns the clamped value, the runner
 * discards the instance and the command exits 2 naming the range. */
/* the multi-head attention sizes (samples N, tokens n, width D, head dim d, heads H)
 * and their largest values */
extern const char *const lm_nm5[5];
extern const int lm_nm5_max[5];
/* The instance's data, printed in the report for a shrunk counterexample so a
 * reader can check it by hand.  Cheap no-ops unless the runner asks for data.
 * They are also the instance's inputs as other tools see them (docs/instances.md):
 * `check --export` writes them exactly, and `check --instances FILE` reads them back.
 *
 * Two kinds of call, because a value can only be replaced where nothing was computed from it
 * yet:
 *   lm_data_mat / lm_data_d    report a value the claim has already used (a step size was
 *                              chosen from it, a model was built around it): with --instances,
 *                              the file's value must equal it exactly, else the instance is
 *                              refused ("takes ... from its seed only"), never run on data
 *                              it did not use;
 *   lm_input_mat / lm_input_d  a true input, reported before anything is computed from it:
 *                              with --instances the file's value replaces it (same shape,
 *                              rounded once to M's precision; lm_input_d returns the file's
 *                              value, else v).  Only these take another tool's data. */
int lm_want_data(const lm_eval *ev);
void lm_data_mat(lm_eval *ev, const char *name, const lm_mat *M);
void lm_data_d(lm_eval *ev, const char *name, double v);
void lm_input_mat(lm_eval *ev, const char *name, lm_mat *M);
double lm_input_d(lm_eval *ev, const char *name, double v);

/* Random stream of this instance. */
lm_rng *lm_eval_rng(lm_eval *ev);

/* Instance-scoped values: a matrix (zero-filled) or a number (0) in ev->ctx that the runner
 * frees when the instance ends, so a claim writes no lm_mat_free / lm_num_clear for them.
 * Use them for what lives as long as the instance; allocate what a loop makes anew in each
 * pass with lm_mat_new / lm_num_init and free it in the loop. */
lm_mat *lm_inst_mat(lm_eval *ev, int rows, int cols);
lm_num *lm_inst_num(lm_eval *ev);

/* Exact states of trajectory claims (.state_certifiable = 1).  A trajectory is generated in one
 * precision, and re-running it in balls would certify nothing (the balls grow with every step).
 * Instead the runner asks the first evaluation for the state at the iterate t of the worst break
 * (lm_state_wanted): the claim copies it exactly (lm_state_keep, every value as an MPFR number at
 * the matrix's precision, nothing rounded).  The certifying evaluation then runs in ev->ctx = Arb
 * with that state given (lm_state_given returns t): the claim rebuilds its data from the seed as
 * always, loads the state (lm_state_get, exact input), evaluates the observations of iterate t
 * only, in balls, and returns -- no trajectory.  Names are short labels ("Theta(k)"). */
/* 1 when the runner wants the state at iterate t kept (cheap; 0 in a normal run) */
int lm_state_wanted(const lm_eval *ev, int t);
/* keeps M (any context) exactly under name: 0; -1 when not wanted, a value is not exact (an Arb
 * ball with a radius) or the store is full (the runner then does not certify, with the reason) */
int lm_state_keep(lm_eval *ev, const char *name, const lm_mat *M);
/* -1 in a normal evaluation; else the iterate t whose state is given */
int lm_state_given(const lm_eval *ev);
/* sets M (in its own context) to the kept values exactly: 0; -1 (after lm_fail) when the name
 * was not kept, the shape differs or a value is not representable in M's precision */
int lm_state_get(lm_eval *ev, const char *name, lm_mat *M);


#endif
