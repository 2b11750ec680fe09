/* lm_pcst.h -- helpers of the structural claims of the preconditioning paper
 * (ids precond/remark1, assumption1-3, theorem1.1, remark2, theorem1.2,
 * lemma1.1, lemma1.2, fact8-10).
 *
 * - the instance families the harness uses (S1, S9), drawn as doubles and
 *   rebuilt in any context;
 * - an identity recorder: named relative residuals per precision tier
 *   (double, MPFR-128, MPFR-256, never below the runner's precision), each
 *   observed against tol_scale * K * u_p, plus the shrink observation
 *   residual_hi <= max(residual_lo * 2^-(p_hi - p_lo)/2, tau_hi) and the
 *   measures "log10 residual, <tier>";
 * - Gauss-Hermite nodes and weights for the standard normal (Golub-Welsch).
 */
#ifndef LM_PCST_H
#define LM_PCST_H
#include "lm_pc.h"

/* ---- instance families ---- */
enum {
    LM_PCST_C03 = 0, /* Sigma = G G^T/d + 0.3 I */
    LM_PCST_C05,     /* ... + 0.5 I */
    LM_PCST_C1,      /* ... + I */
    LM_PCST_K1E2,    /* stress: kappa(Sigma) = 1e2 */
    LM_PCST_K1E6,    /* stress: kappa(Sigma) = 1e6 */
    LM_PCST_PAPER,   /* harness default of S9: d = 4, k = 6, c = 1, tau = 0.05 */
    LM_PCST_A3COPY,  /* the A3-conforming copy: d = 4, k = 6, c = 1, tau = 0.01 */
    LM_PCST_NFAM
};
extern const char *const lm_pcst_family_name[LM_PCST_NFAM];

typedef struct {
    int fam, d, k;
    double csig, kappa, tau, sigma, lambda;
} lm_pcst_spec;

/* draw the spec of family fam (d in [1, dmax], k in [d, d + 2], tau from taus[ntau])
 * from g; the paper families have fixed sizes */
void lm_pcst_spec_draw(lm_pcst_spec *s, int fam, int dmax, const double *taus, int ntau, lm_rng *g);
/* the instance of a spec, in context c, from g (draws as doubles) */
lm_pcdata *lm_pcst_make(const lm_pcst_spec *s, lm_rng *g, const lm_ctx *c);

/* ---- identity recorder ---- */
#define LM_PCST_MAXRES 16
typedef struct {
    int nt;
    lm_ctx tiers[3];
    int nres;
    char name[LM_PCST_MAXRES][96];
    double val[LM_PCST_MAXRES][3], K[LM_PCST_MAXRES][3];
    int have[LM_PCST_MAXRES][3];
} lm_pcst_id;

void lm_pcst_id_init(lm_pcst_id *S, const lm_eval *ev);
/* record a relative residual r (worst kept) with tolerance factor K in tier t */
void lm_pcst_id_rec(lm_pcst_id *S, int t, const char *name, double r, double K);
/* |diff| / scale as a double (0 for an exact 0, 1e300 for a zero scale, HUGE_VAL for non-finite) */
double lm_pcst_rel(const lm_num *diff, const lm_num *scale);
/* ||A - B||_F / scale */
double lm_pcst_rel_mat(const lm_mat *A, const lm_mat *B, const lm_num *scale);
/* observe every residual against tol_scale K u_p, the shrink, and measure */
void lm_pcst_id_finish(lm_pcst_id *S, lm_eval *ev, double tol_scale, const char *tag);

/* ---- quadrature ---- */
/* n-point Gauss-Hermite rule for E f(xi), xi ~ N(0,1): nodes t (ascending) and
 * weights w (sum 1).  Golub-Welsch in double (eigenvalues of the Jacobi matrix with
 * off-diagonal sqrt(i), lm_mat_symeig), then Newton on the orthonormal Hermite
 * recurrence in context c to its full precision; w = 1/(n h_{n-1}(t)^2).
 * Returns 0, 1 when the eigensolver failed or a value is not finite. */
int lm_pcst_gauss_hermite(lm_num *t, lm_num *w, int n, const lm_ctx *c);

/* ---- small helpers ---- */
/* bits of a context (53 for double) */
int lm_pcst_bits(const lm_ctx *c);
/* eigenvalues of a symmetric matrix, min and max */
int lm_pcst_eig_minmax(lm_num *mn, lm_num *mx, const lm_mat *S);
/* softmax attention of query j over a batch, in double (log-sum-exp, in-sample):
 * p[i] = softmax_i(x_i^T W_KQ x_j) (N entries), z = sum_i p_i x_i (d entries) */
void lm_pcst_attn_d(double *p, double *z, const lm_pcbatch *b, const lm_mat *KQ, int j);

#endif
