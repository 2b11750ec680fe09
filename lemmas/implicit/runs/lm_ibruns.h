/* lm_ibruns.h -- named live training runs of the implicit-bias paper
 * (catalogue implicit-bias-self-attention, section 2.6), run on the exact
 * low-dimensional engine lm_ibj.h, so every run can be repeated wholly in
 * MPFR at little cost.
 *
 *   R1  ib-ngd            NGD (4) on EX1-hetero, eta = 0.5
 *   R2  ib-gd             GD on EX1-hetero, eta = 5
 *   R3a ib-polyak         Polyak step (uncapped, stable log(L - L*))
 *   R3b ib-polyak-cap     Polyak step capped at eta_max = 50
 *   R5  ib-ngd-antipodal  NGD on EX1-antipodal (Fig. 5)
 *   R4  ib-joint13        the reconstructed joint update (13) on DM data
 *
 * Data come from the seed (lm_ibgen, drawn as doubles: the same seed gives
 * the same data in every context); W_0 = 0 by default (init = 0), or the
 * Lemma-4 initialisation N(0, (init * 0.01/d)^2) entrywise; u is fixed at
 * beta e_1 (EX1) or trained from u_0 = 0 (joint).  Every iterate records the
 * log loss, log(L - L*) (fixed u), ||W_t||, ||u_t||, the mean and minimum of
 * s_{i,opt}, max_i and min_i log(1 - s_{i,opt}) (log domain: never 1 - s),
 * e_t = 1 - cos(W_t, W_mm) against the W-SVM of the designated optimal
 * tokens (lm_svm_w) and, for joint runs, 1 - cos(u_t, u_mm). */
#ifndef LM_IBRUNS_H
#define LM_IBRUNS_H

#include "lm_ibj.h"
#include "lm_live.h"
#include "lm_num.h"
#include "lm_paper.h"
#include <stdint.h>
#include <stdio.h>

typedef enum { LM_IBR_EX1 = 0, LM_IBR_EX1_ANTIPODAL = 1, LM_IBR_DM = 2 } lm_ibrun_data;

typedef struct {
    const char *name;
    const char *doc;
    const char *opt;    /* optimizer name of lm_ibj_step */
    lm_ibrun_data data;
    int n, T, d;        /* T is 2 for DM */
    double eta, eta_max, alpha;
    double init;        /* 0: W_0 = 0; s > 0: Lemma-4 W_0 with sigma_0 = s * 0.01/d */
    int steps;
    unsigned sizes_set; /* LM_IBR_SET_*: the sizes a --set gave (lm_ibrun_set) */
} lm_ibrun_def;

enum { LM_IBR_SET_N = 1, LM_IBR_SET_T = 2, LM_IBR_SET_D = 4 };

extern const lm_ibrun_def lm_ibruns[]; /* NULL-terminated by name */
const lm_ibrun_def *lm_ibrun_find(const char *name);
/* apply "k=v" (eta steps d n T eta_max alpha init) to a copy; 0 or err */
int lm_ibrun_set(lm_ibrun_def *r, const char *kv, char *err, int errlen);
/* 1 when the run trains u too */
int lm_ibrun_joint(const lm_ibrun_def *r);
/* the range [lo, hi] of an integer setting ("n", "T", "d", "steps"): 0, or -1 */
int lm_ibrun_size_range(const char *name, long *lo, long *hi);

/* one iterate (all rounded to double; log quantities stay finite where the
 * quantity itself underflows double) */
typedef struct {
    int t;
    double log_loss;   /* log L */
    double log_excess; /* log(L - L*), L* = (1/n) sum ell(gamma_opt) (u fixed; NaN joint) */
    double norm_W, norm_u;
    double mean_sopt, min_sopt;
    double max_lomso;  /* max_i log(1 - s_{i,opt}) (the least saturated sequence) */
    double min_lomso;  /* min_i log(1 - s_{i,opt}) (the most saturated sequence) */
    double mean_lomso; /* log(1 - mean_i s_{i,opt}) = log mean_i (1 - s_{i,opt}) */
    double e_W;        /* 1 - cos(W_t, W_mm) (NaN when W_t = 0) */
    double e_u;        /* 1 - cos(u_t, u_mm) (joint; NaN otherwise or when u_t = 0) */
    double step;       /* step size eta_t used from t to t+1 (NaN at the last iterate;
                          may overflow double for the uncapped Polyak step) */
    double move;       /* ||theta_{t+1} - theta_t|| (NaN at the last iterate) */
} lm_ibrun_rec;

/* Executes the run in ctx: rec (steps+1 entries) is allocated for the
 * caller.  Returns 0; nonzero on error (message in err): a non-finite
 * start or step, an unsolvable SVM. */
int lm_ibrun_exec(lm_ibrun_rec **rec, const lm_ibrun_def *r, uint64_t seed, const lm_ctx *ctx,
                  char *err, int errlen);
/* A run from a given start (`lemmata train --data --init --iterates`, ib_io.c).
 * lm_ibrun_start: the run's own start from the seed in ctx, the data and W_0 (NULL: W_0 = 0;
 * the caller frees both).  lm_ibrun_exec_from: lm_ibrun_exec from D (r's sizes, in its own
 * context) and W0 (d x d, NULL: 0), both taken over (freed); each, when set, sees every
 * iterate t = 0..steps as the engine holds it (W_t = lm_ibj_W(., J, W0), u_t = lm_ibj_u)
 * after its record is made; nonzero stops the run (message in err).  lm_ibrun_exec is the
 * two in sequence without each. */
typedef int (*lm_ibrun_each)(void *cx, int t, const lm_ibj *J, const lm_mat *W0, char *err, int errlen);
void lm_ibrun_start(lm_attn_data **D, lm_mat **W0, const lm_ibrun_def *r, uint64_t seed, const lm_ctx *ctx);
int lm_ibrun_exec_from(lm_ibrun_rec **rec, const lm_ibrun_def *r, lm_attn_data *D, lm_mat *W0,
                       lm_ibrun_each each, void *cx, char *err, int errlen);
/* lemmata train's train_io of these runs (ib_io.c, lm_paper.h, docs/train-io.md): --data
 * --init --iterates --export-data --export-init */
int lm_ibrun_train_io(void *run, FILE *f, const lm_train_args *a, const lm_train_io *io, char *err,
                      int errlen);
void lm_ibrun_csv_header(FILE *f, const lm_ibrun_def *r);
void lm_ibrun_csv_row(FILE *f, const lm_ibrun_def *r, const lm_ibrun_rec *x);

/* Double against MPFR, per iterate. */
typedef struct {
    double coef;      /* ||theta_d - theta_m|| / ||theta_m||: W (and u) difference in the
                         Gram norm of the coefficients, formed in MPFR (0 when both are 0) */
    double e_rel;     /* |e_d - e_m| / e_m (NaN when e_m is) */
    double lomso_rel; /* |L_d - L_m| / |L_m| for L = max_i log(1 - s_{i,opt}) */
} lm_ibrun_drift_rec;

/* Repeats the run wholly in MPFR at `bits` in lock-step with the double run
 * (the same data and start, converted exactly).  rd, rm (records of the
 * double and the MPFR run) and dr get steps+1 entries, allocated for the
 * caller.  Returns 0, nonzero on error. */
int lm_ibrun_drift(lm_ibrun_rec **rd, lm_ibrun_rec **rm, lm_ibrun_drift_rec **dr,
                   const lm_ibrun_def *r, uint64_t seed, mpfr_prec_t bits, char *err, int errlen);

/* ---- the live part of `lemmata verify` ---- */
/* The live entries of the implicit-bias paper, in order: "ib-ngd-drift"
 * (R1 in double and wholly in MPFR-256), "ib-compare" (GD vs NGD vs Polyak vs
 * capped Polyak), "ib-joint13" (R4 with the fitted exp(-c t^{1/3})). */
extern const char *const lm_iblive_names[];
typedef lm_live lm_iblive; /* lm_live.h */
/* Runs live entry k (quick: fewer iterations).  Returns 0 and fills L (free
 * with lm_live_clear), nonzero on error (message in err). */
int lm_iblive_run(lm_iblive *L, int k, int quick, uint64_t seed, char *err, int errlen);

/* least squares of log L_t = -c t^{1/3} over t = 1..steps (the curve
 * exp(-c t^{1/3}), which equals L_0 = 1 at t = 0); also the two-parameter
 * fit log L = a - c2 t^{1/3} over the second half.  Returns c. */
double lm_ibrun_fit_cuberoot(const lm_ibrun_rec *rec, int steps, double *a2, double *c2);

#endif
