/* lm_prbd.h -- shared helpers of the attention-pruning bound claims
 * (pruning/assumptionD.1 ... pruning/lemmaF.9, pruning/definition5.1):
 * instance plans over the catalogue's grids, the closed-form partial
 * derivative of f (lemma B.11, row form), a corner hill-climb over X, W
 * and M, the sandwich (F.4 / 5.6) and softmax-Jacobian (F.7 / 5.7) checks
 * shared by the formal and informal versions, and the proxy-PL predicate of
 * Definition 5.1.
 */
#ifndef LM_PRBD_H
#define LM_PRBD_H
#include "lm_pr.h"

/* Definition 5.1 (Frei & Gu): slack ||grad f||^alpha - mu/2 (g - xi);
 * the PL inequality holds at the point iff the slack is >= 0. */
double lm_pr_pl_slack(double gnorm, double alpha, double mu, double g, double xi);

/* an instance of the catalogue's grids, drawn in double from g */
typedef struct {
    int n, d;
    double R;
    lm_pr_family fx, fw;
    lm_pr_mkind mk;
    int causal;
} lm_prbd_plan;
/* cycle through the grids with the instance index: n in {1,2,3,5,8},
 * d in {1,2,3,4,8}, R in {1+1e-6,1.5,2,4}, the four families, the five mask
 * kinds, full/causal support */
void lm_prbd_plan_make(lm_prbd_plan *pl, int index, lm_rng *g);
/* the instance in double (f0 prepared) and its mask */
lm_prdata *lm_prbd_draw(const lm_prbd_plan *pl, lm_mat **M, lm_rng *g);

/* closed-form partial derivative of f(M) with respect to M_ab (lemma B.11,
 * row form): D_jk = X_ja W_ab f_jk (X_kb - <f_j, X_{*,b}>); f = f(M) */
void lm_prbd_df(lm_mat *D, const lm_mat *f, const lm_prdata *P, int a, int b);

/* objective of the hill-climb: a ratio computed in double at (P, M) */
typedef double (*lm_prbd_obj)(const lm_prdata *P, const lm_mat *M, void *u);
/* hill-climb in double: start from P (X, W moved to the +-R corners) and M,
 * propose sign flips of X and W entries and moves of one M entry in
 * [mlo, mhi] (or to 0 / 1), keep improvements.  P and M are updated in
 * place (f0 re-prepared).  Returns the best objective. */
double lm_prbd_climb(lm_prdata *P, lm_mat *M, double R, double mlo, double mhi, int iters,
                     lm_prbd_obj obj, void *u, lm_rng *g);

/* record lhs <= coef * rhs with relative tolerance tol */
void lm_prbd_obs(lm_eval *ev, const lm_num *lhs, double coef, const lm_num *rhs, double tol,
                 const char *where);
/* the rounding tolerance tol_scale * K * u of the context */
double lm_prbd_tol(const lm_eval *ev, double K);

/* lemma 5.6 (squared = 0) and lemma F.4 (squared = 1): the evaluator */
int lm_prbd_sandwich_eval(lm_eval *ev, int squared);
/* lemma 5.7 and lemma F.7 (formal = 1): the evaluator; configurations
 * "full" (0) and "causal" (1) */
int lm_prbd_f7_eval(lm_eval *ev);

/* a bound "lhs <= coef * rhs" on the forward pass at M (p1, p2, p computed):
 * fills lhs and rhs (without the coefficient) in P's context */
typedef void (*lm_prbd_part)(lm_num *lhs, lm_num *rhs, const lm_prfwd *F, const lm_prdata *P, int part);
/* driver of the forward-pass bounds (D.3, F.8, F.9): an instance of the
 * grids (lm_prbd_plan_make); one instance in three is first hill-climbed in
 * double to maximise lhs / rhs over X, W at the +-R corners and M in
 * [-2, 3]; then the bound is observed in ev->ctx with relative tolerance
 * tol_scale * 16 (n + d) u, and lhs / (coef rhs) is measured. */
int lm_prbd_parts_eval(lm_eval *ev, int part, lm_prbd_part fn, double coef, int climb);

#endif
