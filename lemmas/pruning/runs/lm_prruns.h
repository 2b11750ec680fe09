/* lm_prruns.h -- the attention-pruning paper's experiment (catalogue
 * attention-pruning, sections 1.4-1.6, Figure 2) as live runs on the core of
 * lm_pr.h: relative error of the pruned attention matrix for the GD-found
 * mask (Algorithm 1's experiment variant) against magnitude pruning of W and
 * Wanda on the same synthetic rank-4 weights, on the calibration X and on a
 * held-out X' of the same shape.
 *
 *   pr-fig2c   relative error vs the pruning ratio rho = 0.1 .. 0.9
 *   pr-fig2a   relative error vs lambda' on a log grid 1e-5 .. 1e1 at rho = 0.5
 *   pr-fig2b   relative error vs n in {8, 16, 32, 64} at rho = 0.5
 *
 * Data (drawn in double from the seed): W_Q = U S_4 V^T of a d x d Gaussian,
 * W_K likewise (independent), X and X' with N(0,1) entries.  W_Q and W_K are
 * then each multiplied by sqrt(s), s chosen so that the logits X W X^T of
 * the calibration X have root-mean-square `logit_rms` over the support
 * (unscaled, they are O(d^2) and the softmax is one-hot); W = W_Q W_K^T.
 * The weights are drawn once per seed; X and X' once per (seed, n).
 *
 * GD mask: M_0 = 1, heavy-ball momentum (default 0.9), eta = eta_c / L_hat
 * with L_hat the Hessian operator norm at M_0 (power iteration on
 * Hessian-vector products, lm_prr_hess_norm); when a run ends with a
 * non-finite loss or above L(M_0), eta is halved and the run repeated (the
 * halvings are reported).  The mask kept is the best iterate argmin_t L(M_t),
 * binarised at rho with lm_pr_binarise.  lambda = lambda' * lambda_scale;
 * lambda' < 0 selects lambda' from {1e-4, 1e-3, 1e-2, 1e-1, 1} by the
 * calibration error of the GD mask at rho (selection on X only).
 *
 * Baselines: magnitude pruning of W (the floor(rho d^2) smallest |W_ab| set
 * to 0); Wanda on W_Q and W_K separately (score |W_ab| ||X_{:,a}||_2 over the
 * calibration X, floor(rho d) lowest pruned within each column b, ties by
 * index), then W~ = W~_Q W~_K^T. */
#ifndef LM_PRRUNS_H
#define LM_PRRUNS_H

#include "lm_live.h"
#include "lm_pr.h"
#include <stdint.h>
#include <stdio.h>

typedef enum { LM_PRR_RHO = 0, LM_PRR_LAMBDA = 1, LM_PRR_N = 2 } lm_prr_kind;

typedef struct {
    const char *name;
    const char *doc;
    lm_prr_kind kind;
    int n, d, steps;
    double rho;          /* fixed ratio of the lambda' and n sweeps (and of the lambda' selection) */
    double lambda;       /* lambda' of the GD mask; < 0: selected from the grid */
    double lambda_scale; /* s: lambda = lambda' s */
    double momentum;     /* heavy-ball gamma */
    double eta_c;        /* eta = eta_c / L_hat */
    double logit_rms;    /* rms of the calibration logits after scaling W */
    int causal;          /* 1: causal support, 0: full (Definition 1.2) */
} lm_prr_def;

extern const lm_prr_def lm_prr_runs[]; /* NULL-terminated by name */
const lm_prr_def *lm_prr_find(const char *name);
/* apply "k=v" (steps n d rho lambda lambda_scale momentum eta_c logit_rms causal) to a copy;
 * 0, or -1 with a message in err */
int lm_prr_set(lm_prr_def *r, const char *kv, char *err, int errlen);

/* one instance: the calibration and held-out data with the same W */
typedef struct {
    int n, d;
    lm_prdata *P, *Ph; /* calibration X, held-out X' (double) */
    lm_mat *WQ, *WK;   /* scaled factors, W = WQ WK^T */
    double scale;      /* s of the header */
    double reff, beta, theta; /* R_eff = max(max|X|, max|W|), lambda_min(X X^T), min |W_ab| */
} lm_prr_inst;
int lm_prr_inst_build(lm_prr_inst *I, const lm_prr_def *r, int n, uint64_t seed, char *err,
                      int errlen);
void lm_prr_inst_clear(lm_prr_inst *I);

typedef struct {
    double Lhat, eta;
    int halvings, tbest, first_exit; /* first iterate outside [0,1]^{dxd} (-1: none) */
    double L0, Lbest;
} lm_prr_gdinfo;
/* ||Hessian of L at M||: 60 power iterations on V -> D grad(M)[V] (central
 * differences, h = 1e-5), from a fixed start; 0, or 1 on a non-finite value */
int lm_prr_hess_norm(double *out, const lm_prdata *P, const lm_mat *M);
/* the relaxed GD mask (d x d, double) for lambda' (sets I->P->lambda); 0, or -1 on error */
int lm_prr_gd_mask(lm_mat *M, lm_prr_gdinfo *gi, lm_prr_inst *I, const lm_prr_def *r,
                   double lambda_prime, char *err, int errlen);

#define LM_PRR_NMETH 3 /* 0 GD mask, 1 magnitude, 2 Wanda */
extern const char *const lm_prr_meth_name[LM_PRR_NMETH];
/* relative errors e[method][0 calibration, 1 held-out] at ratio rho in [0, 1] */
void lm_prr_errors(double e[LM_PRR_NMETH][2], const lm_prr_inst *I, const lm_mat *Mgd, double rho);

/* a whole sweep */
typedef struct {
    int npts;
    double *x;                /* rho, lambda' or n */
    double (*e)[LM_PRR_NMETH][2];
    double *lambda_used;      /* lambda' of the GD mask per point */
    lm_prr_gdinfo *gi;        /* per point */
    double *reff, *beta, *theta, *scale; /* of the point's instance */
} lm_prr_out;
/* quick: shorter sweep for n (8, 16, 32); returns 0, or -1 (message in err) */
int lm_prr_exec(lm_prr_out *o, const lm_prr_def *r, uint64_t seed, int quick, char *err,
                int errlen);
void lm_prr_out_clear(lm_prr_out *o);
/* header and one row per point: x, the six errors, lambda', eta, L_hat, halvings, t_best,
 * first_exit, R_eff, beta, theta, scale */
void lm_prr_csv(FILE *f, const lm_prr_def *r, const lm_prr_out *o);
/* `lemmata train pr-...`: lm_prr_exec (not quick) then lm_prr_csv; 0, or -1 (message in err) */
int lm_prr_run(FILE *f, const lm_prr_def *r, uint64_t seed, char *err, int errlen);

/* ---- the live part of `lemmata verify` ---- */
extern const char *const lm_prlive_names[];
typedef lm_live lm_prlive; /* lm_live.h */
int lm_prlive_run(lm_prlive *L, int k, int quick, uint64_t seed, char *err, int errlen);

#endif
