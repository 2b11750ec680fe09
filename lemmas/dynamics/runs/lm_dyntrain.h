/* lm_train.h -- optimizers and named live training runs.
 *
 * Optimizers are static const vtables (GSL style): name, step.  A run
 * definition names a model setting and an optimizer; lemmata train RUN
 * executes it and writes the trajectory (iterate, loss, gradient norm and the
 * run's monitored quantities) as CSV. */
#ifndef LM_TRAIN_H
#define LM_TRAIN_H

#include "lm_mha.h"
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
/* Repeat the run wholly in MPFR at `bits` next to the double run and record,
 * per iterate, the relative drift ||theta_double - theta_mpfr|| / ||theta_mpfr||
 * of the trained parameters, the relative loss difference and the double
 * loss.  Arrays of
 * steps+1 entries are allocated for the caller (free them).  Returns 0. */
int lm_dynrun_drift(const lm_dynrun_def *r, uint64_t seed, mpfr_prec_t bits, double **param_drift,
                 double **loss_drift, double **loss, char *err, int errlen);

#endif
