/* lm_dyn.h -- the explicit constants and initialization conditions of the
 * transformer-gd-dynamics paper (catalogue S5, S6), evaluated on a model.
 *
 * Everything here is a double computed from norms of the current iterate;
 * products of many norms are formed in the log domain where they can leave
 * double's range (conditions (8), (46), (12), kappa).  The sigma's can be
 * taken at the iterate or replaced by the induction bounds (3/2 of the
 * initial values), as S5 asks to report both. */
#ifndef LM_DYN_H
#define LM_DYN_H

#include "lm_mha.h"

#define LM_DYN_MAXN 64
#define LM_DYN_MAXH 16

typedef struct {
    /* norms */
    double nrmX;               /* ||X||_F of the stacked data */
    double nrmXi[LM_DYN_MAXN]; /* ||X_i||_F */
    double smaxXi[LM_DYN_MAXN];/* sigma_max(X_i) */
    double nrmyi[LM_DYN_MAXN]; /* ||y_i|| */
    double nrmy;
    double nrmWo;              /* ||W^O||_2 */
    double sQ[LM_DYN_MAXH], sK[LM_DYN_MAXH]; /* sigma_max(W^Q_h), sigma_max(W^K_h) */
    double sV;                 /* sigma_max(W^V) */
    double sminB;              /* sigma_{Nn}(B) (0 when HD < Nn) */
    double fval;               /* loss */
    double nrm_r;              /* ||MH - y|| */
    /* Lemma 2/3 (softmax) */
    double phi[LM_DYN_MAXN], psi[LM_DYN_MAXN], Qi[LM_DYN_MAXN], Ki[LM_DYN_MAXN];
    double Zi[LM_DYN_MAXN], Pi[LM_DYN_MAXN], LQ[LM_DYN_MAXN], LV[LM_DYN_MAXN];
    double Rbar, Z90, Z89, G;
    /* Lemma 7/8 (Gaussian), Q'_i per head: Qp[i*H+h] */
    double Qp[LM_DYN_MAXN * LM_DYN_MAXH], Zp, Gp, Gp3;
} lm_dyn_consts;

/* Evaluate at the model's current parameters (runs forward).  When bounds is
 * non-NULL, the sigma_max of W^Q_h, W^K_h, W^V are replaced by
 * bounds->sQ[h], bounds->sK[h], bounds->sV.  Returns 0, or nonzero if an SVD
 * failed or a size exceeds the fixed limits. */
int lm_dyn_consts_eval(lm_dyn_consts *k, lm_mha *m, const lm_dyn_consts *bounds);
/* induction bounds of S5: 3/2 of the initial sigma's (W^V: 3/2 lambda^V with
 * the chosen definition: app != 0 -> 2/3(1+sigma) i.e. 1+sigma) */
void lm_dyn_induction_bounds(lm_dyn_consts *b, const lm_dyn_consts *k0, int H, int app);

/* Theorem 3 quantities at the current parameters */
typedef struct {
    double delta_h[LM_DYN_MAXH]; /* sigma_{Nn^2}(J_h) (0 when Dd < Nn^2) */
    double delta;                /* min_h delta_h */
    double minVWo;               /* min |V'W^O| */
    double log_kappa;            /* min over h of -9/4 ||X||^2 (lQ^2 + lK^2) */
    double log_gamma;            /* log(1/2 delta^2 kappa^2 minVWo^2) */
} lm_dyn_t3;
int lm_dyn_t3_eval(lm_dyn_t3 *t, lm_mha *m, const lm_dyn_consts *k);

/* log of the left-hand sides of the initialization conditions (S6).
 * app_lamV selects lambda^V: 0 main text sigma_max(W^V_0), 1 appendix
 * 2/3(1+sigma_max(W^V_0)). */
double lm_dyn_log_cond8(const lm_dyn_consts *k, int H, int n, int N, int app_lamV);
double lm_dyn_log_cond46(const lm_dyn_consts *k, int H, int n, int N, int app_lamV,
                         int with_residual);
/* max over h of (12) and (12-app) */
double lm_dyn_log_cond12(const lm_dyn_consts *k, const lm_dyn_t3 *t, int H, int n,
                         int app_lamV);
double lm_dyn_log_cond12app(const lm_dyn_consts *k, const lm_dyn_t3 *t, int H, int n,
                            int app_lamV);

/* ---- the same constants in a precision context (lm_num) ----
 * For certification: every value is formed through the lm_num/lm_mat API in the
 * model's context (Arb: balls that contain the exact values; sigma_max and
 * sigma_min are rigorous balls and take no vectors, so nothing taints).  Only the
 * quantities the smoothness constants and the initialization conditions need. */
typedef struct {
    lm_ctx ctx;
    int N, n, d, H;
    lm_num *nrmXi, *smaxXi, *nrmyi; /* N each */
    lm_num *sQ, *sK;                /* H each */
    lm_num nrmX, nrmy, nrmWo, sV, sminB, nrm_r;
    lm_num Rbar, Z90, Z89, G, Zp, Gp, Gp3;
} lm_dyn_nconsts;

/* sizes and context from m */
void lm_dyn_nconsts_init(lm_dyn_nconsts *k, const lm_mha *m);
void lm_dyn_nconsts_clear(lm_dyn_nconsts *k);
/* norms and sigma's at m's current parameters (with_B: also sigma_min(B) and ||r||,
 * which need a forward pass: run here).  Nonzero when an SVD failed. */
int lm_dyn_nconsts_norms(lm_dyn_nconsts *k, lm_mha *m, int with_B);
/* Rbar, Z90, Z89, G, Zp, Gp, Gp3 from the norms and sigma's (after any override of
 * sQ, sK, sV), with the formulas of lm_dyn_consts_eval */
void lm_dyn_nconsts_derive(lm_dyn_nconsts *k);
/* sQ, sK, sV := the induction bounds of k0 (as lm_dyn_induction_bounds) */
void lm_dyn_nconsts_induction(lm_dyn_nconsts *k, const lm_dyn_nconsts *k0, int app);
/* r := the LHS of condition (8) (cond 8, app_lamV) or (46) (cond 46, with_r), as a number
 * (not its log), from norms with with_B */
void lm_dyn_nconsts_cond(lm_num *r, const lm_dyn_nconsts *k, int cond, int app_lamV, int with_r);

#endif
