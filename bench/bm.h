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
} bm_all;

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
void bm_json_arr(FILE *f, const char *name, const int *shape, int nshape, const double *v);
void bm_json_mat(FILE *f, const char *name, const lm_mat *A);
/* a list of matrices of one shape as a 3-d array */
void bm_json_mats(FILE *f, const char *name, lm_mat *const *A, int k);
void bm_json_ints(FILE *f, const char *name, const int *v, int n);

#endif
