/* lm_train.h -- optimizers and named live training runs.
 *
 * Optimizers are static const vtables (GSL style): name, step.  A run
 * definition names a model setting and an optimizer; lemmata train RUN
 * executes it and writes the trajectory (iterate, loss, gradient norm and the
 * run's monitored quantities) as CSV. */
#ifndef LM_TRAIN_H
#define LM_TRAIN_H

#include "lm_mha.h"
#include "lm_paper.h"
#include <stdio.h>

typedef struct {
    const char *name;
    const char *doc;
    /* one step on the variables in mask */
    void (*step)(lm_mha *m, int mask, const lm_num *eta);
} lm_optimizer;

extern const lm_optimizer lm_opt_gd;
const lm_optimizer *lm_optimizer_find(const char *name);

/* Monitored quantities of an iterate (after forward): sigma_min(B),
 * max_h sigma_max(W^Q_h), max_h sigma_max(W^K_h), sigma_max(W^V), min S,
 * ||grad||_F over mask.  Returns 0, or nonzero when an SVD failed. */
typedef struct {
    double f, gnorm, smin_B, smax_Q, smax_K, smax_V, min_S;
} lm_monitor;
int lm_monitor_eval(lm_monitor *mo, lm_mha *m, int mask);

typedef struct {
    const char *name;
    const char *doc;
    int N, n, D, d, H;
    lm_kernel kernel;
    lm_wvmode wv;
    int mask;
    double eta;  /* 0: automatic, 1/||Hessian||_2 at the start */
    int steps;
    double sX, sQK, sV, sO;
    int labels; /* 0 teacher, 1 random N(0,1), 2 output + 1e-3 u */
} lm_dynrun_def;

extern const lm_dynrun_def lm_dynruns[];
const lm_dynrun_def *lm_dynrun_find(const char *name);
/* apply "k=v" to a run definition copy; 0 or writes err */
int lm_dynrun_set(lm_dynrun_def *r, const char *kv, char *err, int errlen);
/* build the model of a run (data and init from seed) in ctx */
lm_mha *lm_dynrun_model(const lm_dynrun_def *r, uint64_t seed, const lm_ctx *ctx);
/* execute; writes CSV to f; returns 0 or nonzero on error (message in err) */
int lm_dynrun_exec(const lm_dynrun_def *r, uint64_t seed, const lm_ctx *ctx, FILE *f, int progress,
                char *err, int errlen);

double lm_dynrun_auto_eta(const lm_dynrun_def *r, uint64_t seed);
/* the same at the start of a given model (evaluated on a double copy) */
double lm_dynrun_auto_eta_of(const lm_dynrun_def *r, const lm_mha *m);
/* 0 when the automatic step size may be formed for m (at most 512 trained parameters, or eta
 * given), else -1 with err */
int lm_dynrun_eta_fits(const lm_dynrun_def *r, const lm_mha *m, char *err, int errlen);
/* The run on a model given whole (data and start; taken: freed here) with step size eta,
 * writing the CSV of lm_dynrun_exec to f; each (may be NULL) sees every iterate t = 0..steps
 * after its forward pass (the parameters and m->f), nonzero stops the run (err set).  lm_dynrun_exec
 * is this on lm_dynrun_model's model.  0, or -1 with err. */
typedef int (*lm_dynrun_each)(void *cx, int t, const lm_mha *m, char *err, int errlen);
int lm_dynrun_exec_model(const lm_dynrun_def *r, lm_mha *m, double eta, FILE *f, int progress,
                         lm_dynrun_each each, void *cx, char *err, int errlen);
/* lemmata train's train_io of these runs (dyn_io.c, lm_paper.h): --data --init --iterates
 * --export-data --export-init */
int lm_dynrun_train_io(void *run, FILE *f, const lm_train_args *a, const lm_train_io *io, char *err,
                       int errlen);
/* Repeat the run wholly in MPFR at `bits` next to the double run and record,
 * per iterate, the relative drift ||theta_double - theta_mpfr|| / ||theta_mpfr||
 * of the trained parameters, the relative loss difference and the double
 * loss.  Arrays of
 * steps+1 entries are allocated for the caller (free them).  Returns 0. */
int lm_dynrun_drift(const lm_dynrun_def *r, uint64_t seed, mpfr_prec_t bits, double **param_drift,
                 double **loss_drift, double **loss, char *err, int errlen);

#endif
