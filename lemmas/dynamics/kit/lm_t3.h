/* lm_t3.h -- the Theorem-3 experiment (GD on W^Q alone), shared by
 * dynamics/theorem3-part1, dynamics/theorem3-part2,
 * dynamics/proof-theorem3-invariants, dynamics/remark4 and dynamics/example1.
 *
 * An instance is either the paper's Example (N=1, n=2, H=1, D=d=2, X=sI,
 * W^V=[[2a,a],[a,2a]], W^O=(1/a,1/a)) or a random T3 instance of catalogue S7,
 * with labels y = MH(M_0;X) + eps u, ||u|| = 1.  The residual size eps is
 * chosen so that the initialization condition of the configuration holds
 * (or is deliberately violated, or is not looked at).  All random draws come
 * from the evaluation's stream as doubles, so the MPFR replay rebuilds the
 * same instance; the explicit constants (G', the conditions, eps) are
 * computed on a double copy, so the step size and the labels' offset are the
 * same doubles in both precisions. */
#ifndef LM_T3_H
#define LM_T3_H

#include "lm_claim.h"
#include "lm_dyn.h"
#include "lm_mha.h"

/* what the instance generator does with the initialization condition */
enum {
    LM_T3_COND_NONE = 0,      /* not looked at: eps = eps_free * ||MH_0|| (Example: literal 1e-6 (1,-1)) */
    LM_T3_COND_12 = 1,        /* (12), main text, nu' = 1/8, lambda^V = sigma_max(W^V_0) */
    LM_T3_COND_12APP = 2,     /* (12-app), nu' = 1, lambda^V = 2/3(1+sigma_max(W^V_0)) */
    LM_T3_COND_12APP_VIOL = 3 /* (12-app) violated on purpose: eps = eps_free * largest allowed */
};

typedef struct {
    lm_kernel kernel;
    double cG;        /* Gaussian scale c_G */
    int cond;         /* LM_T3_COND_* */
    double eps_frac;  /* enforced conditions: eps = eps_frac * largest eps meeting it */
    double eps_free;  /* COND_NONE: eps / ||MH_0||;  COND_12APP_VIOL: factor above the largest */
    int kinds;        /* instance kinds cycled: 4 = Example + 3 random sizes; 1 = Example only */
    double sQK;       /* scale of the random W^Q, W^K (catalogue S7: 0.3) */
    double sX;        /* scale of the random X (catalogue S7: 0.3) */
} lm_t3_opts;

typedef struct {
    lm_mha *m;          /* the instance in ev->ctx, labels set, forward done at M_0 */
    int kind;           /* 0: Example, 1..3: random sizes (1,2,2,2,1), (2,2,4,2,1), (1,3,3,3,1) */
    double s, a;        /* Example parameters (X = sI, W^V scale a) */
    lm_dyn_consts k0;   /* constants at M_0 (double) */
    lm_dyn_t3 t3;       /* delta, min|V'W^O|, log kappa at M_0 (double) */
    double Gp;          /* G' (M = {W^Q}) with sigma_max(W^Q_h) at the bound 3/2 lambda^Q_h */
    double Gp_iter;     /* G' at M_0 */
    double eps;         /* ||r_0|| = ||MH_0 - y|| */
    double log_c12[2];  /* log LHS(12), lambda^V main [0] / appendix [1] */
    double log_c12app[2];
    double log_eps_max; /* log of the largest eps meeting the configuration's condition */
} lm_t3_inst;

/* Build instance number ev->index.  Returns 0 when ready, 1 when a hypothesis
 * failed (lm_assume already recorded; the caller returns 0), -1 on a numerical
 * failure (lm_fail already recorded).  Hypotheses checked for enforced
 * conditions: delta > 0, min|V'W^O| > 0, the condition itself, and eps above the
 * double resolution of MH_0 (2^-36 ||MH_0||).  On return 1 or -1 nothing is
 * left allocated. */
int lm_t3_setup(lm_t3_inst *I, lm_eval *ev, const lm_t3_opts *o);
void lm_t3_clear(lm_t3_inst *I);

/* delta = min_h sigma_{Nn^2}(J_h) and jmax = max_h sigma_max(J_h) in the
 * model's context (J_h = dC_h/dW^Q_h; Dd >= Nn^2 required).  0 or nonzero when
 * an SVD failed. */
int lm_t3_delta(lm_num *delta, lm_num *jmax, lm_mha *m);

/* log of the smallest attention entry min_{i,h,k,j} S_ihkj in the model's
 * context, without forming S: the smallest logit (Gaussian) or logit minus the
 * row's log-sum-exp (Softmax).  Needs a forward pass first. */
void lm_t3_log_min_S(lm_num *r, const lm_mha *m);

/* log kappa = min_h -9/4 ||X||_F^2 ((lambda^Q_h)^2 + (lambda^K_h)^2) in the
 * model's context, with lambda^Q_h = sigma_max(W^Q_h) of the given matrices
 * (pass the initial W^Q).  0 or nonzero when an SVD failed. */
int lm_t3_log_kappa(lm_num *r, const lm_mha *m, lm_mat *const *WQ0);

/* g (H*D*d x 1) = flat gradient over W^Q at the current point (forward pass
 * included); gnorm2 = ||g||_F^2 when non-NULL. */
void lm_t3_grad(lm_mat *g, lm_num *gnorm2, lm_mha *m);
/* W^Q -= eta g, then a forward pass at the new point */
void lm_t3_step(lm_mha *m, const lm_mat *g, const lm_num *eta);
/* one GD step on W^Q (lm_t3_grad then lm_t3_step) */
void lm_t3_gd_step(lm_num *gnorm2, lm_mha *m, const lm_num *eta);

/* Relative forward error of f = 1/2||MH - y||^2 in the model's context: the
 * labels sit within ||r|| of MH, so f carries a relative error of about
 * 8 (n+D+Hd) eps (||y|| + ||sum_h S_ih |X_i| |W^V| |W^O| ||) / ||r|| (a
 * running-error bound of the forward pass with absolute values; double:
 * often 1e-8 and more for the small residuals the conditions need; MPFR at
 * 256 bits: negligible). */
double lm_t3_ftol(const lm_mha *m);

/* Record "a <= b" where a and b carry a relative forward error up to band.
 * Outside the band it is an ordinary observation.  Inside the band a double
 * evaluation cannot decide the sign, so the observation is recorded as an
 * undecided near miss (not a break, and within the runner's near-miss
 * margin), which makes the runner re-evaluate the instance in MPFR.  In an
 * MPFR context the comparison allows the (tiny) band.  _log: a, b are logs. */
void lm_t3_obs_band(lm_eval *ev, int t, const lm_num *a, const lm_num *b, double band,
                    const char *label);
void lm_t3_obs_band_log(lm_eval *ev, int t, const lm_num *loga, const lm_num *logb, double band,
                        const char *label);

/* theorem-3 sizes (N, n, D, d, H) of the random kinds 1..3 */
extern const int lm_t3_sizes[4][5];

#endif
