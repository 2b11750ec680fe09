/* lm_mdruns.h -- named live training runs of the mirror-descent paper
 * (catalogue mirror-descent-attention, sections 1.5 and 1.7) on the core of
 * lm_md.h, their double-vs-MPFR drift, and the live part of `lemmata verify`
 * for that paper.
 *
 *   md-p1.75, md-p2, md-p3   R2: the paper's l_p-AttGD experiment: normalised
 *                            mirror descent (Theta -= eta g / (||g||_q + 2^-52)),
 *                            eta = 0.1, n = 6, T = 8, d = 10, the paper's
 *                            generator, W(0) = 0 (the zero-init run; init = s
 *                            draws W(0)_ab ~ N(0, s^2), the paper's 100-seed
 *                            runs have s = 1), 1500 / 2000 / 20000 iterations
 *   md-r1-p1.75, -p2, -p3    R1: unnormalised l_p-AttGD from a start on the
 *                            Bregman-cone level mu (default mu_0) at radius
 *                            R0 ||W_mm||_p (lm_md_inst_r1), eta = 0.1
 *
 * Every context starts from the same numbers: the data and W(0) are drawn
 * (and, for R1, the cone start is built) in double, then converted exactly;
 * Theta(0) = grad psi(W(0)) is formed in the context.  The state is Theta.
 *
 * Selected tokens and references: for R2, alpha_i = argmax_t of the final
 * softmax (as the paper does); for R1, the instance's alpha (argmax of the
 * scores).  The l_p'-AttSVM W_mm^(p') of alpha is solved in the run's
 * context for p' in {1.75, 2, 3} (R2) or p' = p (R1), and the directional
 * Bregman divergence D_psi(Wbar_mm^(p'), Wbar(k)) uses the trajectory's p
 * (both arguments normalised in the p-norm), as the paper's 3x3 figure. */
#ifndef LM_MDRUNS_H
#define LM_MDRUNS_H

#include "lm_live.h"
#include "lm_md.h"
#include "lm_num.h"
#include "lm_paper.h"
#include <stdint.h>
#include <stdio.h>

typedef enum { LM_MDR_PAPER = 0, LM_MDR_R1 = 1 } lm_mdr_kind;

typedef struct {
    const char *name;
    const char *doc;
    lm_mdr_kind kind;
    int n, T, d;
    double p, eta;
    int normalized; /* 1: the paper's normalised step, 0: l_p-AttGD of the theory */
    double init;    /* R2: 0 -> W(0) = 0; s > 0 -> W(0)_ab ~ N(0, s^2) */
    double R0, mu;  /* R1: ||W(0)||_p = R0 ||W_mm||_p, D_psi(Wbar_mm, Wbar(0)) = mu
                       (mu <= 0: -mu times mu_0) */
    int steps;
} lm_mdr_def;

extern const lm_mdr_def lm_mdr_runs[]; /* NULL-terminated by name */
const lm_mdr_def *lm_mdr_find(const char *name);
/* apply "k=v" (steps eta p n T d init R0 mu normalized) to a copy; 0 or -1 (err) */
int lm_mdr_set(lm_mdr_def *r, const char *kv, char *err, int errlen);

#define LM_MDR_NPP 3
extern const double lm_mdr_pprime[LM_MDR_NPP]; /* 1.75, 2, 3 */

/* one iterate k, rounded to double.  In a sparse run only log_loss and
 * mean_maxs are filled at every iterate; the rest at the iterates of
 * lm_mdr_keep (NaN elsewhere). */
typedef struct {
    int t;
    double log_loss;      /* log L(W(k)) */
    double norm;          /* ||W(k)||_p */
    double growth;        /* ||W(k)||_p - ||W(0)||_p from entrywise differences of p-th powers
                             (expm1/log1p forms: no cancellation) */
    double D[LM_MDR_NPP]; /* D_psi(Wbar_mm^(p'), Wbar(k)), p' = lm_mdr_pprime (R2; NaN for R1) */
    double D_own;         /* the same for p' = p */
    double mean_maxs;     /* mean_i max_t s_it */
    double log_1m_maxs;   /* log(1 - mean_i max_t s_it), in the log domain */
    double log_grad;      /* log ||grad L(W(k))||_q */
    double step;          /* ||Theta(k+1) - Theta(k)||_q (NaN at the last iterate) */
} lm_mdr_rec;

/* what the run found besides its records */
typedef struct {
    int n;
    int *alpha;                 /* selected tokens (n) of the references */
    int alpha_opt;              /* samples whose alpha is the argmax of the scores */
    int svm_rc[LM_MDR_NPP + 1]; /* lm_md_svm_solve codes for pprime[0..2] and p (index 3);
                                   -1 when not solved */
    double svm_gap[LM_MDR_NPP + 1], wmm_norm[LM_MDR_NPP + 1];
    int attempt;            /* R1: data seed attempt that met the hypotheses (0: the seed) */
    double mu0, mu, R0norm; /* R1: mu_0, the cone level used, ||W(0)||_p */
    int alpha_agree;        /* drift: 1 when the MPFR run's final argmax softmax is the
                               double run's alpha */
} lm_mdr_info;
void lm_mdr_info_clear(lm_mdr_info *I);

/* 1 for the iterates a sparse run evaluates (all of the first 30, about 60
 * a decade after, the first and the last) */
int lm_mdr_keep(int t, int steps);

/* Executes the run in ctx; rec (steps+1 entries) is allocated for the caller,
 * info (may be NULL) filled.  Returns 0; nonzero on error (message in err):
 * a non-finite step, R1 hypotheses unmet for 20 data seeds, a failed SVM of
 * the run's own p. */
int lm_mdr_exec(lm_mdr_rec **rec, lm_mdr_info *info, const lm_mdr_def *r, uint64_t seed,
                const lm_ctx *ctx, int sparse, char *err, int errlen);
/* A run from a given start, and its iterates as they are made (`lemmata train --data --init
 * --iterates`, md_io.c).  D (its own context; alpha is recomputed) and W0 (d x d) replace the
 * run's own (NULL: the run's own, from the seed; data given without W(0): a paper run's own
 * rule, an R1 run refuses).  each, when set, sees every iterate k = 0..steps: W(k) and
 * log L(W(k)) in the run's context; nonzero stops the run (message in err).  With given data
 * the references use the final argmax softmax for every kind of run, and an l_p-AttSVM that
 * cannot be solved leaves the D columns NaN (a note on stderr) instead of failing the run. */
typedef struct {
    const lm_mddata *D;
    const lm_mat *W0;
    int (*each)(void *cx, int k, const lm_mat *W, const lm_num *logL, char *err, int errlen);
    void *cx;
} lm_mdr_given;
int lm_mdr_exec_given(lm_mdr_rec **rec, lm_mdr_info *info, const lm_mdr_def *r, uint64_t seed,
                      const lm_ctx *ctx, int sparse, const lm_mdr_given *G, char *err, int errlen);
/* the start the run would use (G: as lm_mdr_exec_given; may be NULL): the data and W(0), the
 * caller frees them; 0, or -1 with err */
int lm_mdr_start(lm_mddata **D, lm_mat **W0, const lm_mdr_def *r, uint64_t seed, const lm_mdr_given *G,
                 char *err, int errlen);
/* lemmata train's train_io of these runs (md_io.c, lm_paper.h): --data --init --iterates
 * --export-data --export-init */
int lm_mdr_train_io(void *run, FILE *f, const lm_train_args *a, const lm_train_io *io, char *err,
                    int errlen);
void lm_mdr_csv_header(FILE *f);
void lm_mdr_csv_row(FILE *f, const lm_mdr_rec *x);

/* Double against MPFR, per iterate; everything formed in MPFR from the
 * exactly converted double state. */
typedef struct {
    double theta;              /* max|Theta_d - Theta_m| / max|Theta_m| (0 when both are 0) */
    double disp;               /* relative error of the double run's displacement:
                                  max|(Theta_d(k) - Theta_d(0)) - (Theta_m(k) - Theta_m(0))| /
                                  max|Theta_m(k) - Theta_m(0)| (NaN at k = 0) */
    double growth_d, growth_m; /* ||W(k)||_p - ||W(0)||_p of each run */
    double D_d, D_m;           /* D_psi(Wbar_mm, Wbar(k)) for p' = p of each run, against the MPFR
                                  W_mm of the double run's alpha */
    int frozen;                /* entries of Theta the double step k -> k+1 left unchanged while the
                                  MPFR step moved them (-1 at the last iterate) */
    int moved;                 /* entries the MPFR step k -> k+1 moved (-1 at the last iterate) */
    int changed; /* entries the double step k -> k+1 changed (-1 at the last iterate) */
} lm_mdr_drift_rec;

/* Repeats the run wholly in MPFR at `bits` in lock-step with the double run.
 * rd, rm (the records of each run, each evaluated in its own context; their
 * divergences for p' = p only, rm's against the MPFR W_mm of the double
 * run's alpha) and dr get steps+1 entries, allocated for the caller.
 * Returns 0, nonzero on error. */
int lm_mdr_drift(lm_mdr_rec **rd, lm_mdr_rec **rm, lm_mdr_drift_rec **dr, lm_mdr_info *info,
                 const lm_mdr_def *r, uint64_t seed, mpfr_prec_t bits, int sparse, char *err,
                 int errlen);
/* The first iterate k from which every double step leaves Theta unchanged
 * while the MPFR step still moves it (-1: the double run is not frozen at
 * its end). */
int lm_mdr_frozen_from(const lm_mdr_drift_rec *dr, int steps);

/* ---- the live part of `lemmata verify` ----
 * "md-paper" (the three R2 runs in double: the 3x3 directional-divergence
 * figure, norm, loss, saturation, gradient), "md-p2-drift" (md-p2 in double
 * and wholly in MPFR-256), "md-r1-freeze" (md-r1-p2 from several radii R0,
 * in double and in MPFR-256: where the double run freezes). */
extern const char *const lm_mdlive_names[];
typedef lm_live lm_mdlive; /* lm_live.h */
int lm_mdlive_run(lm_mdlive *L, int k, int quick, uint64_t seed, char *err, int errlen);

#endif
