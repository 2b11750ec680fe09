/* lm_mdsign.h -- the mirror-descent paper's cone lemmas (19-21): the
 * cancellation-free gradient correlation -<grad L(W), M> (catalogue 1.3,
 * Tarzanagh et al. 2023, Lemma 7, with the selected token alpha_i as the
 * reference index and the softmax entries in the log domain), a sign
 * decision that raises the MPFR precision until the sign is certain, an
 * accurate Bregman divergence for nearly equal arguments, cone directions,
 * and the instances (data, alpha, certified l_p-AttSVM, constants) shared by
 * lemmas/mirror/lemma19.c, lemma20.c and lemma21.c.
 *
 * For sample i with reference alpha = alpha_i, t != alpha:
 *   g_t = (x_alpha - x_t)^T W z_i,  a_t = (x_alpha - x_t)^T M z_i,
 *   b_t = Y_i v^T (x_alpha - x_t),  s_t = e^{-g_t} / (1 + sum_tau e^{-g_tau}),
 *   -<grad L(W), M> = (1/n) sum_i |ell'(u_i)| [ sum_t s_t a_t b_t
 *                       - (sum_t s_t a_t)(sum_t s_t b_t) ],
 *   u_i = gamma_alpha - sum_t s_t b_t.
 * Nothing is formed as a difference of nearly equal O(1) numbers: the
 * bracket is O(s) and its cross term O(s^2). */
#ifndef LM_MDSIGN_H
#define LM_MDSIGN_H

#include "lm_md.h"

/* ---- the correlation in one context ----
 * value = -<grad L(W), M - Msub> = e^logscale * tot, tot = pos - neg, where
 * pos/neg collect the positive/negative terms (per-token terms and the
 * per-sample cross term, each scaled by the common factor) and absum is the
 * sum of absolute values with every input replaced by its absolute-value
 * product (|x_alpha - x_t|^T |M| |z|, ...): the scale of rounding errors.
 * kappa is the error amplification estimate: |tot - exact| <~ kappa 2^-prec absum. */
typedef struct {
    lm_num logscale, tot, pos, neg, absum;
    double kappa;
} lm_md_corr;

void lm_md_corr_init(lm_md_corr *o, const lm_ctx *ctx);
void lm_md_corr_clear(lm_md_corr *o);
/* W, M, Msub (Msub may be NULL) are converted into D's context (rounding to
 * it when they come from another one); D->alpha must be set.  Returns 0, 1
 * on a non-finite value, 2 on bad input (alpha unset, T < 2). */
int lm_md_corr_eval(lm_md_corr *o, const lm_mddata *D, const lm_mat *W, const lm_mat *M,
                    const lm_mat *Msub, lm_attn_loss loss);

/* ---- certified sign ----
 * Evaluates lm_md_corr_eval at 64, 128, 256, ... bits (up to prec_cap) on
 * the data converted exactly (they are doubles) and W, M rounded to the
 * working precision.  Precision P passes when |tot| > 2^10 kappa 2^-P absum
 * (the value is a thousand times its rounding bound).  The sign is decided
 * at the first pair of successive precisions (P, 2P) that both pass and
 * agree; the precision needed is P.  absum = 0 means the value is exactly 0
 * (sign 0, decided at 64 bits). */
typedef struct {
    int sign;       /* sign of -<grad L(W), M - Msub>: +1, -1, 0 */
    int decided;    /* 0: the cap was reached without a decision */
    int prec;       /* precision needed (bits), -1 if undecided */
    int prec_max;   /* highest precision evaluated */
    double logabs;  /* natural log of |value| (-inf for 0), at the higher precision */
    double lognp;   /* log(neg/pos), clamped to [-1e4, 1e4]; < 0 iff sign > 0 (nudged to agree) */
    double relmag;  /* |tot| / absum: how much cancellation there was */
} lm_md_sign;

/* Returns 0, 1 on a non-finite value or bad input. */
int lm_md_sign_decide(lm_md_sign *r, const lm_mddata *D, const lm_mat *W, const lm_mat *M,
                      const lm_mat *Msub, lm_attn_loss loss, int prec_cap);

/* The naive double-precision formula (for demonstrations and tests only):
 * s = softmax(h), gbar = gamma^T s, c_t = s_t (gamma_t - gbar),
 * grad L = (1/n) sum ell'(gbar) (sum_t c_t x_t) z^T (logistic loss); returns
 * -<grad L, M>.  It loses every digit once 1 - s_alpha < 2^-53. */
double lm_md_corr_naive_d(const lm_mddata *D, const lm_mat *W, const lm_mat *M);

/* ---- Bregman divergence without cancellation ----
 * Entrywise: for same-sign entries with e = (w - v)/v, |e| <= 1/8,
 * |v|^p sum_{k>=2} c_k e^k, c_2 = (p-1)/2, c_{k+1} = c_k (p-k)/(k+1), summed
 * to the context's precision; otherwise the closed sum (which loses at most
 * about log2(128/(p-1)) bits there).  r = D_psi(W, V). */
void lm_md_breg_acc(lm_num *r, const lm_mat *W, const lm_mat *V, double p);
/* D_psi(U/||U||_p, W/||W||_p), accurate */
void lm_md_dir_breg_acc(lm_num *r, const lm_mat *U, const lm_mat *W, double p);

/* normalise to unit p-norm in place; returns the old norm as a double */
double lm_md_normalize(lm_mat *A, double p);
/* H = sgn(B)|B|^(q-1) / || . ||_p: the unit-p-norm matrix with
 * <H, B> = ||B||_q (Hoelder's equality case) */
void lm_md_holder_dual(lm_mat *H, const lm_mat *B, double p);

/* U = normalise_p(Wbar + rho E), rho >= 0 by bisection (in double, on
 * double copies, with the accurate divergence) so that
 * D_psi(Wbar, U) = mu (1 - 1e-6) (inside the level mu with room for the
 * rounding of another context); U is then formed in U's context.  Wbar must
 * have unit p-norm.  Returns 0, 1 when mu is not reached for rho <= 1e8. */
int lm_md_cone_dir(lm_mat *U, double *rho, const lm_mat *Wbar, const lm_mat *E, double p, double mu);

/* ---- instances ----
 * The paper's generator at (n, T, d); alpha = argmax of the scores (mode 0,
 * globally optimal, the run R1) or, mode 1, one sample's alpha moved to a
 * lower-scored token such that alpha stays locally optimal (Definition 3:
 * every support scores below alpha; the better tokens are non-supports);
 * mode 2: the closed-form instance I2 (tokens e1, e2, e3, -e1).  The
 * l_p-AttSVM is solved and certified in the context, the constants computed
 * (lm_md_consts), and per constraint k (order of the SVM): the margin m_k of
 * W_mm and the score gap b_k = gamma_alpha - gamma_t. */
typedef struct {
    lm_mddata *D;
    lm_md_svm svm;
    lm_md_consts k;
    lm_mat *Wbar;     /* W_mm / ||W_mm||_p (context) */
    double p;
    int m;            /* constraints */
    double *marg;     /* m_k = <W_mm, A_k> (double) */
    double *bgap;     /* b_k */
    int moved;        /* mode 1: the sample whose alpha was moved (-1 otherwise) */
    int have_svm, have_k;
} lm_mdcone;

/* Returns 0; 1 when a hypothesis is unmet (why says which); -1 when the SVM
 * solver failed. */
int lm_mdcone_setup(lm_mdcone *C, lm_rng *g, const lm_ctx *c, int n, int T, int d, double p,
                    int mode, char *why, int whylen);
void lm_mdcone_clear(lm_mdcone *C);

/* The reconstructed Lemma 20 constants (derivation in lemmas/mirror/lemma20.c):
 * for every W in the cone D_psi(Wbar_mm, Wbar) <= mu_0 with ||W||_p >= R,
 *   -<grad L(W), M> >= c20 exp(-(1 + delta/2) ||W||_p / ||W_mm||_p),
 * M = Wbar_mm (companion = 0) or M = W/||W||_p (companion = 1).  Returns 0;
 * 1 (why) when the derivation does not cover the instance (delta >= 2, or a
 * sample without supports has a token scoring above its alpha). */
int lm_mdcone_rdelta(double *R, double *c20, const lm_mdcone *C, int companion, lm_attn_loss loss,
                     char *why, int whylen);

#endif
