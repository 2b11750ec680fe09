/* lm_perturb.h -- the machinery shared by the perturbation-bound claims
 * dynamics/lemma2, lemma3 (Softmax) and dynamics/lemma7, lemma8 (Gaussian).
 *
 * Three layers:
 *  - numerics: the largest singular value with exact power-of-two scaling and an
 *    eigenvalue fallback, unit vectors, the residual of a Jacobian self-check;
 *  - one-sample instances (Lemmas 2 and 7): N = 1, Gaussian X, W^Q, W^K,
 *    block-diagonal W^V, W^O and labels at random log-scales (moved by the
 *    adversarial search), with the sigma's and
 *    norms the constants are built from; the step lengths and directions of the
 *    finite forms; the label-to-gradient maps (the gradient is linear in r_i);
 *  - the pair engine (Lemmas 3 and 8): a double model at a base point M_0, pairs
 *    (M, M') built in double from the seed (random, locally worst and W^V
 *    directions, or consecutive GD iterates), the constant of a pair in one of
 *    three readings of its sigma's, and both sides in the working precision.
 *
 * Every random draw comes from the evaluation's stream, in a fixed order, as
 * doubles, so an MPFR replay rebuilds the same instance.  The claim files keep
 * what the paper says: sizes, parameters, configurations, constants, and the
 * observations they record. */
#ifndef LM_PERTURB_H
#define LM_PERTURB_H

#include "lm_claim.h"
#include "lm_dyn.h"
#include "lm_mha.h"

/* ---- numerics ---- */

/* Largest singular value of A and (when v != NULL) its right singular vector, in A's
 * context; A is scaled by a power of two and negligible entries are dropped first, and
 * the largest eigenpair of A^T A replaces an SVD that did not converge.  Nonzero when
 * both failed or A is not finite. */
int lm_pert_top_sv(lm_num *smax, lm_mat *v, const lm_mat *A);
/* E /= ||E||_F in E's context (a zero E is left alone) */
void lm_pert_normalize(lm_mat *E);
/* dX -= Jd reshaped row-major (entry (k,j) minus Jd[k*c+j]): a central difference of a
 * matrix minus the Jacobian-vector product that should match it */
void lm_pert_sub_jvp(lm_mat *dX, const lm_mat *Jd);

/* ---- random models ---- */

/* W^Q_h ~ N(0, sc[1]^2), W^K_h ~ N(0, sc[2]^2), W^V block diagonal (eq. 5) with
 * N(0, sc[3]^2) blocks, W^O ~ N(0, sc[4]^2), labels y ~ N(0, 1), drawn in that order */
void lm_pert_draw_weights(lm_mha *m, lm_rng *g, const double sc[5]);
/* every X_i ~ N(0, sc[0]^2), then lm_pert_draw_weights */
void lm_pert_draw(lm_mha *m, lm_rng *g, const double sc[5]);
/* sigma_max(W^Q_h), sigma_max(W^K_h) of every head in m's context; nonzero on failure */
int lm_pert_weight_sigmas(lm_num *sQ, lm_num *sK, const lm_mha *m);

/* ---- one-sample instances (Lemmas 2 and 7) ---- */

typedef struct {
    lm_mha *m;           /* N = 1, block W^V, in the working context */
    int n, D, d, H;
    lm_num sqd, nX, nX2; /* sqrt(d), ||X_i||_F, ||X_i||_F^2 */
    lm_num sV, nWo;      /* sigma_max(W^V), ||W^O||_2 */
    lm_num *sQ, *sK;     /* sigma_max(W^Q_h), sigma_max(W^K_h) */
} lm_pert_one;

/* Start an instance of sizes size = {n, D, d, H}: draws the five scales sc from
 * [logscale_lo, logscale_hi] (claim parameters) and returns the new model (kernel k,
 * block W^V, ev->ctx), zero-filled for the caller to draw. */
lm_mha *lm_pert_one_new(lm_pert_one *I, lm_eval *ev, const int size[4], lm_kernel k,
                        double sc[5]);
/* After the draws: forward pass, the norms and sigma's, and the measures (scales and
 * sizes).  Nonzero when an SVD failed. */
int lm_pert_one_finish(lm_pert_one *I, lm_eval *ev, const double sc[5]);
void lm_pert_one_clear(lm_pert_one *I);

/* ---- finite forms: step lengths and directions ---- */

typedef struct {
    double step[4]; /* ||Delta||_F: 1e-3, 1e-1, 1, dmax; under search one 10^u, u in [-3, log10 dmax] */
    int nsteps;
    int ndirs;      /* 2: the worst direction, then a random one; 1 under search: a mix */
    double theta;   /* under search: the mix cos(theta) worst + sin(theta) random */
    int search;
} lm_pert_steps;

/* from the claim parameter dmax and the search offsets x[5] (step) and x[6] (mix) */
void lm_pert_steps_init(lm_pert_steps *S, const lm_eval *ev);
/* E = the unit direction number dd from the worst Etop and the random Er; with
 * fallback, Er when the mix vanishes */
void lm_pert_steps_dir(lm_mat *E, const lm_pert_steps *S, int dd, const lm_mat *Etop,
                       const lm_mat *Er, int fallback);
/* "worst", "random" or "mixed" */
const char *lm_pert_steps_name(const lm_pert_steps *S, int dd);

/* ---- labels: the gradient is linear in the residual ---- */

/* set the labels of sample 0 so that r = e_k (y = MH - e_k) and run forward */
void lm_pert_unit_residual(lm_mha *m, int k);
/* Column k: the gradient of f(M;X_1) w.r.t. W^Q_h (which 0) or W^K_h (which 1),
 * vec column-major, for r = e_k.  stacked: G[0] is H Dd x n with head h in rows h Dd..;
 * otherwise G[h] is Dd x n.  The labels are restored and forward rerun. */
void lm_pert_label_maps(lm_mat **G, int stacked, lm_mha *m, int which);

/* ---- the pair engine (Lemmas 3 and 8) ---- */

enum { LM_PERT_SIG_AT_M, LM_PERT_SIG_MAX, LM_PERT_SIG_BOUNDS }; /* where a constant's sigma's are */

/* a configuration's reading of its constant */
typedef struct {
    int kind;      /* the claim's constant, handed back to value */
    int grad;      /* 1: a gradient constant (G), 0: an MH constant (Z) */
    int sig;       /* LM_PERT_SIG_* */
    double scale;  /* the claim's multiplier */
    double (*value)(const lm_dyn_consts *k, int kind, int mask);
    /* the same constant in a precision context; when set, evaluations outside double
     * form the constant of a pair in their own context (Arb: a ball) instead of
     * taking value's double, so the right-hand side reads no midpoint */
    void (*nvalue)(lm_num *r, const lm_dyn_nconsts *k, int kind, int mask);
} lm_pert_reading;

typedef struct {
    double *p, *q;   /* M and M' (flat, double) */
    char what[48];   /* label of the observation */
    char series[40]; /* figure series: the kind of pair */
} lm_pert_pair;

typedef struct {
    lm_pert_pair *a;
    int n, cap, np;
} lm_pert_pairs;

typedef struct {
    /* the instance */
    lm_mha *md;       /* double model */
    lm_mha *m;        /* the same in the working context */
    int np, regime, mask;
    double *p0;       /* flat parameters at M_0 */
    lm_dyn_consts k0; /* at M_0 */
    lm_dyn_consts bc; /* induction bounds from M_0 */
    lm_dyn_nconsts nbc; /* the same in the working context (only with rd->nvalue outside double) */
    int use_n;          /* 1: constants of the pairs in the working context */
    lm_num nval;        /* the constant of the pair made ready (use_n) */
    double lip_mh, lip_grad;
    /* the pairs and the walk over them */
    const lm_pert_reading *rd;
    lm_pert_pairs P;
    int next, pending;
    const lm_pert_pair *pair; /* the pair lm_pert_lip_next made ready */
    lm_num lhs, rhs, dist;    /* its sides (ev->ctx) and ||M'-M||_F */
    double worst, emp;        /* largest LHS/RHS and difference quotient so far */
    int nobs;
    int rc;                   /* 0, or -1 once lm_fail was recorded */
} lm_pert_lip;

/* Instance ev->index for the reading rd: sizes {N,n,D,d,H} cycled from the four rows of
 * sizes; regime 0,1 generic scales, 2 Remark 3 (W^O at 10^wo_logscale, small W^V, W^K),
 * 3 GD pairs; kernel k, Gaussian scale cG (0: the model's default), W^V by the switch
 * wv, the variables mask; constants and induction bounds (switch lamV) at M_0.
 * Measures the scales and the regime.  Returns I->rc (lm_fail when the S5 constants
 * failed); lm_pert_lip_end is due in every case. */
int lm_pert_lip_build(lm_pert_lip *I, lm_eval *ev, const int sizes[4][5], lm_kernel k,
                      double cG, int mask, const lm_pert_reading *rd);
/* The pairs (distances from logdist_lo..logdist_hi; or T_gd GD steps with eta = 1/(2 G0)
 * and from the local Hessian, gname naming G0 in the labels).  Returns I->rc. */
int lm_pert_lip_pairs(lm_pert_lip *I, lm_eval *ev, double G0, const char *gname);
/* Make the next pair ready: I->pair, I->lhs = ||MH(M')-MH(M)|| or ||grad f(M')-grad f(M)||
 * and I->rhs = scale * constant * ||M'-M||_F, in ev->ctx; pairs outside the induction
 * bounds or with M' = M after rounding are passed over.  Returns 1 when ready, 0 when
 * done or failed.  The pair made ready before is counted first (worst ratio, difference
 * quotient, figure series). */
int lm_pert_lip_next(lm_pert_lip *I, lm_eval *ev);
/* count the last pair; assumption-failed when no pair was observed, else the measures;
 * free everything.  Returns I->rc. */
int lm_pert_lip_end(lm_pert_lip *I, lm_eval *ev);

#endif
