/* lm_ibcond.h -- the joint-training conditions of the implicit-bias paper
 * (catalogue implicit-bias-self-attention: implicit/condition1, Condition 1
 * of Section 4, and implicit/condition2, its complete version in App. B.1)
 * instantiated as gates, with the Monte Carlo over DM data sets that checks
 * what a gate's thresholds were derived to guarantee.  Shared by
 * lemmas/implicit/condition1.c, condition2.c and lemma13.c.
 *
 * The paper's explicit constants are lost; every threshold here is derived
 * from explicit Laurent--Massart tail bounds (chi-square deviations and the
 * product of two independent Gaussian vectors) and from the proof text of
 * Lemma 13 and Theorem 2 (see the \check text of implicit/condition2).  All
 * thresholds are computed in double: they are definitions, not the
 * quantities a verdict compares. */
#ifndef LM_IBCOND_H
#define LM_IBCOND_H

#include "lm_claim.h"
#include "lm_ibgen.h"

/* Laurent--Massart deviations of chi^2_d / d at confidence e^{-x}:
 * P[chi^2_d/d <= 1 - em] <= e^{-x},  P[chi^2_d/d >= 1 + ep] <= e^{-x},
 * em = 2 sqrt(x/d), ep = 2 sqrt(x/d) + 2x/d. */
void lm_ibcond_lm(double *em, double *ep, int d, double x);
/* sqrt((1 + ep)/(1 - em)) at (d, x); HUGE_VAL when em >= 1 */
double lm_ibcond_zeta0(int d, double x);

/* ---- Monte Carlo over DM data sets ---------------------------------------- */
/* An event of one data set D with its token Gram matrix K (nT x nT, index
 * i*T+t, in D's context): returns 1 when it holds; *ratio receives a
 * diagnostic ratio (reported as the worst over the data sets). */
typedef int (*lm_ibcond_event)(double *ratio, const lm_attn_data *D, const lm_mat *K, const void *arg);
/* number of data sets: draws * budget / 64, at least 16 */
int lm_ibcond_draws(const lm_eval *ev, double draws);
/* m DM data sets drawn from lm_eval_rng(ev) in ev->ctx; returns how many
 * satisfy the event; *worst = max ratio (0 when none) */
long lm_ibcond_mc(double *worst, lm_eval *ev, const lm_ibgen_dm_opts *o, int m, lm_ibcond_event event,
                  const void *arg);
/* records 1 - delta <= Wilson upper bound (z) of ok/m, with measures;
 * what completes "k of m DM data sets (d=.., zeta=..) <what>" */
void lm_ibcond_observe(lm_eval *ev, long ok, int m, double delta, double z, const lm_ibgen_dm_opts *o,
                       const char *what);

/* ---- Condition 2 (complete Condition 1, App. B.1), derived ------------------ */
typedef struct {
    /* the instance */
    int n, d;
    double zeta, sigma2d, eta, delta; /* sigma2d = sigma^2 d (1 for sigma = d^{-1/2}) */
    /* the lost constants (named parameters of the claims) */
    double zeta0_scale; /* multiplies the derived zeta threshold */
    double C_d;         /* overparameterisation constant (1 = derived) */
    double C_r;         /* loss-ratio constant of Lemma 13 (e) */
    double C_H;         /* self-bounded Hessian constant (2, derived for B >= 1) */
    double C_L;         /* log-Lipschitz constant on a step segment (e) */
    double eta0_scale;  /* multiplies the derived step-size threshold */
    /* derived (lm_ibcond2_eval) */
    double xn, em, ep;  /* norm bands at x_n = log(6n/delta) */
    double xr, rho_ub;  /* |<x, x'>| <= zeta^2 sigma^2 (2 sqrt(d x_r) + x_r), x_r = log(8P/delta) */
    double dlt_lb;      /* (zeta^2 (1-em) - (1+ep)) sigma^2 d: lower band of the norm gap */
    double cross;       /* 4 (1 + 2(n-1) C_r): what the gap must dominate rho by */
    double zeta0, d_min, B2, eta0;
    int ok_init, ok_zeta, ok_d, ok_eta;
} lm_ibcond2;

/* the derived defaults of the constants (scales 1, C_d = 1, C_r = e, C_H = 2, C_L = e) */
void lm_ibcond2_defaults(lm_ibcond2 *g);
/* fills the derived fields from n, d, zeta, sigma2d, eta, delta and the constants */
void lm_ibcond2_eval(lm_ibcond2 *g);
/* 1 when every clause holds */
int lm_ibcond2_met(const lm_ibcond2 *g);
/* records the instantiated thresholds as measures */
void lm_ibcond2_measure(lm_eval *ev, const lm_ibcond2 *g);
/* the data event the thresholds guarantee with probability >= 1 - delta (in
 * D's context): 4(1 + 2(n-1)C_r) max_{(i,t)!=(j,tau)} |<x_it,x_jtau>| <=
 * ||x_i,opt||^2 - ||x_i,other||^2 for every i, and max ||x_it||^2 <= B2.
 * arg is the lm_ibcond2. */
int lm_ibcond2_event(double *ratio, const lm_attn_data *D, const lm_mat *K, const void *arg);

#endif
