/* bm.h -- internals of `make bench` (the C files in bench/, see bench/README.md).
 *
 * A bench model is one paper's training step behind a small vtable: build an
 * instance in double from a seed (at a ladder size or at one of the paper's
 * sizes), convert it exactly into another context (MPFR), reset it to its
 * initial point, take one step, read the trained parameters back, write the
 * instance (data, initial point, step size) as JSON for the Python peers, and
 * list the dense products (GEMM shapes) a minimal step needs, from which the
 * BLAS-bound time is measured. */
#ifndef BM_H
#define BM_H

#include "lm_mat.h"
#include <math.h>
#include <stdio.h>

#define BM_NAN ((double)NAN)

/* one timing: per-step seconds, median of `reps` samples with min and max */
typedef struct {
    double med, min, max;
    int reps, inner; /* samples; consecutive steps averaged in each sample */
    int ok;          /* 1 when measured, 0 when skipped or failed */
} bm_time;

/* a GEMM C (m x n) = A (m x k) B (k x n), `count` times per step */
typedef struct {
    int m, n, k, count;
} bm_gemm;

#define BM_MAXGEMM 48

/* a point where a model is measured: a ladder size, or a paper size
 * (paper = index into the model's paper points, -1 for the ladder) */
typedef struct {
    int size;
    int paper;
} bm_point;

typedef struct bm_model {
    const char *id;     /* "dyn-softmax" */
    const char *title;  /* plain text, no TeX specials */
    const char *run;    /* the paper's training run it stands for */
    const char *xname;  /* name of the size variable ("D", "d") */
    const char *fixed;  /* the other dimensions of the ladder, plain text */
    int npaper;         /* 0 or 1: a paper size off the ladder (bm_point.paper = 0) */
    int paper_size;     /* the size variable there */
    const char *paper_label;
    int mark_size;      /* a ladder size that is itself a paper size (0: none) */
    const char *mark_label;
    const char *peer;   /* model name understood by bench/peers/peer.py; NULL: no peer */
    const char *same_as; /* id of a model with the same instances (shares its seeds) */
    const char *job_as;  /* id whose peer jobs this model shares (NULL: its own) */
    int per_call;        /* training steps per call of step() (0 means 1) */
    int max_size;        /* largest ladder size (0: the whole ladder) */
    /* instance in double */
    void *(*make)(bm_point pt, uint64_t seed);
    /* exact copy of the instance (at its initial point) into ctx; NULL when
     * the step exists in double only */
    void *(*convert)(const void *src, const lm_ctx *ctx);
    void (*reset)(void *inst);
    int (*step)(void *inst); /* 0, or nonzero on a non-finite value */
    /* trained parameters flattened (rounded to double); returns the count */
    int (*iterate)(void *inst, double *out, int cap);
    /* the same as MPFR numbers (inst in an MPFR context); NULL when unsupported */
    int (*iterate_mp)(void *inst, mpfr_t *out, int cap);
    /* JSON members of the instance (no braces), data and initial point */
    void (*write)(void *inst, FILE *f);
    void (*free)(void *inst);
    int (*gemms)(bm_point pt, bm_gemm *g, int cap);
} bm_model;

extern const bm_model *const bm_models[];

/* ---- results ---- */
enum { BM_DBL = 0, BM_M128 = 1, BM_M256 = 2, BM_NCTX = 3 };
enum { BM_TORCH = 0, BM_NUMPY = 1, BM_NPEER = 2 };
extern const char *const bm_ctx_names[BM_NCTX];  /* "double", "mpfr128", "mpfr256" */
extern const char *const bm_peer_names[BM_NPEER]; /* "torch", "numpy" */

typedef struct {
    int ok;           /* 1: measured and its iterate agrees */
    char status[200]; /* "ok", "mismatch: ...", "skipped: ...", "failed: ..." */
    bm_time t;        /* per step over the K-step runs */
    double agree;     /* relative 2-norm difference of the final iterates */
} bm_peer_res;

typedef struct {
    bm_point pt;
    int size;          /* value of the size variable */
    const char *label; /* paper label, NULL on the plain ladder */
    bm_time t[BM_NCTX];
    char note[BM_NCTX][160];
    bm_time blas;      /* BLAS-bound time of the step's products */
    double flops;
    int K, R;          /* peer comparison: steps per run, runs */
    bm_time lrun;      /* lemmata (double), per step over the same K-step runs */
    bm_peer_res peer[BM_NPEER];
} bm_res;

typedef struct {
    const bm_model *m;
    bm_res *r;
    int nr;
    int fit_ok[BM_NCTX];
    double fit_slope[BM_NCTX], fit_se[BM_NCTX], fit_lo[BM_NCTX], fit_hi[BM_NCTX];
    int fit_n[BM_NCTX], fit_from[BM_NCTX];
    char stop[BM_NCTX][200];
} bm_mres;

typedef struct {
    int n;
    bm_time dbl, mp, arb, fma, mpm; /* double BLAS, lemmata MPFR-256, Arb-256, plain mpfr_fma loop, mpmath */
    double agree;                   /* relative difference lemmata MPFR vs mpmath */
    char status[200];
    /* the prototype of bm_mpdot.c on the same operands, and on integer
     * operands (exact zeros and cancellations: the fallback path) */
    bm_time proto;
    long proto_entries, proto_mismatch, proto_fallback;
    long int_entries, int_mismatch, int_fallback;
} bm_prod;

typedef struct {
    char what[160];
    int K, R;
    bm_time lm, mpm; /* per step: lemmata MPFR-256, mpmath at 256 bits */
    bm_time dbl;     /* lemmata double, the same K-step runs */
    double agree;    /* relative difference of the final iterates */
    char status[200];
} bm_replay;

/* ---- bm_audit.c: audit throughput of a verify run recorded in results/lemmata.db ----
 * Per claim kind, instances checked per second (sum of instances / sum of the runner's own
 * claim seconds); the slowest claims, each split by configuration (configs.seconds) and, when
 * re-run in this process at the run's budget and seed, by phase. */
enum {
    BM_PH_RANDOM, BM_PH_SEARCH, BM_PH_REPLAY, BM_PH_ESCALATE, BM_PH_CERTIFY, BM_PH_SHRINK, BM_PH_OTHER,
    BM_PH_MUTANTS, BM_PH_SLACK, BM_NPH
};
/* BM_PH_RANDOM .. BM_PH_OTHER make up the stored claims.seconds; mutants and slack do not */
#define BM_PH_IN_CLAIM BM_PH_MUTANTS
extern const char *const bm_phase_names[BM_NPH];

#define BM_AU_KINDS 24
#define BM_AU_SLOW 10

typedef struct {
    char kind[80];
    int claims;
    long instances;
    double seconds, rate; /* rate: instances / seconds (NaN when seconds is 0) */
} bm_au_kind;

typedef struct {
    char id[160], kind[80];
    double seconds, rate;
    long instances;
    int nconfig;                /* configuration rows stored */
    int mutants;                /* claims.mutants_run: check-strength mutants run after it */
    /* what the stored configurations say ran besides first-precision evaluations: instances
     * replayed in MPFR (breaks and near misses), configurations with an escalation past the
     * replay's precision, with a shrunk counterexample, with a certified violation */
    long replays;
    int escalated, shrunk, certified;
    char top_config[64];        /* the configuration that took longest */
    double top_seconds, top_share; /* its seconds, and its share of the claim's */
    int profiled;               /* 1: phase[] measured by re-running the claim here */
    char note[240];             /* why not profiled, or what the re-run found */
    double rerun_seconds;       /* the re-run's claim seconds (compare with `seconds`) */
    double phase[BM_NPH];       /* seconds of the re-run by phase (NaN: unknown) */
} bm_au_claim;

typedef struct {
    int ok;              /* 1: a complete run was found and read */
    char status[400];    /* what was read, or why nothing was */
    long long run;
    char commit[64], finished[64], seed[32];
    int budget, quick, prec;
    double wall;         /* runs.seconds: the run's wall clock */
    int nclaims;
    long instances;
    double claim_seconds, live_seconds; /* sums over the run's claims and live runs */
    int nkinds;
    bm_au_kind k[BM_AU_KINDS]; /* by rate, slowest first */
    int nslow;
    bm_au_claim slow[BM_AU_SLOW]; /* by seconds, slowest first */
    int nall;            /* every claim of the run, for the figure */
    int *all_kind;       /* index into k[] (-1: a kind past BM_AU_KINDS) */
    double *all_rate;
    double profile_cap, profile_spent; /* seconds allowed for, and spent on, the re-runs */
    double profile_pred; /* predicted seconds of re-running all the slowest (before calibration) */
} bm_audit;

/* reads the last finished run that ran every claim (no --only, no shard, nothing reused):
 * a full one, else a QUICK=1 one (status says so); 0 when found, 1 when not (a missing or
 * unreadable database included: status says why, nothing is printed) */
int bm_audit_read(bm_audit *au, const char *db);
/* the same for run `run` whatever its state (lemmata-bench --audit DB --run ID); run < 0: the
 * rule above */
int bm_audit_read_run(bm_audit *au, const char *db, long long run);
/* re-runs the slowest claims at the run's options as make verify does (claim, mutants,
 * slack), timing each phase, while the predicted total stays within cap seconds */
void bm_audit_profile(bm_audit *au, double cap);
void bm_audit_free(bm_audit *au);
/* the JSON value of "audit" (an object) */
void bm_audit_json(FILE *f, const bm_audit *au);
/* \subsection{Audit throughput} with its table, the slowest claims and the figure
 * figdir/bench_audit.pdf (gnuplot) */
void bm_audit_tex(FILE *f, const bm_audit *au, const char *figdir);

typedef struct {
    double wall;
    char date[64], commit[64], cpu[160], versions[800], pyver[600];
    int nproc, blas_threads, quick;
    bm_mres *mr;
    int nm;
    bm_prod prod[2];
    int nprod;
    bm_replay rep[2];
    int nrep;
    char peers_avail[3][200]; /* torch, numpy, mpmath: "" when available, else why not */
    double verify_full, verify_quick; /* seconds from results/lemmata.db, < 0 unknown */
    char verify_full_info[200], verify_quick_info[200];
    bm_audit audit; /* bm_audit.c */
} bm_all;

/* ---- bm_vmath.c: accuracy and speed of lm_vmath against glibc and MPFR (issue 21) ---- */
void bm_vmath_run(int quick);
void bm_vmath_json(FILE *f); /* the JSON value of "vmath" (null when not run) */
void bm_vmath_tex(FILE *f);

/* ---- bm_mpdot.c ---- */
extern long bm_mpdot_fallbacks;
/* C = A B for MPFR matrices, bit-identical to lm_mat_mul (see bm_mpdot.c) */
void bm_mul_mp_arbdot(lm_mat *C, const lm_mat *A, const lm_mat *B);

/* ---- bm_report.c ---- */
int bm_write_json(const bm_all *A, const char *path);
int bm_write_tex(const bm_all *A, const char *texpath, const char *figdir);

/* ---- bm_util.c ---- */
double bm_now(void);
/* time fn(arg) (one step per call): `warm` warm-up calls, then about
 * `budget` seconds split into up to `maxreps` samples of `inner` calls each
 * (inner chosen so that a sample lasts >= `sample` s).  Fails (ok = 0) when
 * fn returns nonzero. */
bm_time bm_time_fn(int (*fn)(void *), void *arg, double budget, int maxreps, double sample);
/* median/min/max of v[0..n-1] (v is sorted) */
void bm_stats(bm_time *t, double *v, int n);
/* the BLAS-bound time of a list of GEMMs: median over samples of the time
 * cblas_dgemm takes for the whole list on preallocated operands */
bm_time bm_blas_bound(const bm_gemm *g, int ng, double budget);
/* flops of a GEMM list */
double bm_gemm_flops(const bm_gemm *g, int ng);

/* ---- bm_json.c: tiny writer helpers ---- */
void bm_json_str(FILE *f, const char *s);
void bm_json_num(FILE *f, double x); /* null for non-finite */
/* s with LaTeX's specials escaped; split_dashes: every '-' as "-{}" (no en/em-dash ligature) */
void bm_tex_esc(FILE *f, const char *s, int split_dashes);
void bm_json_arr(FILE *f, const char *name, const int *shape, int nshape, const double *v);
void bm_json_mat(FILE *f, const char *name, const lm_mat *A);
/* a list of matrices of one shape as a 3-d array */
void bm_json_mats(FILE *f, const char *name, lm_mat *const *A, int k);
void bm_json_ints(FILE *f, const char *name, const int *v, int n);

#endif
