/* lm_prid.h -- the identity driver of the attention-pruning claims (ids
 * pruning/definition..., lemmaC.2-C.4, factA.1/A.2/A.4/A.6).
 *
 * An identity is checked as relative residuals between two genuinely
 * different computations.  lm_prid_run draws one instance (X, W, support C,
 * lambda, mask M) as doubles from the evaluation's seed, rebuilds it exactly
 * in IEEE double, MPFR-128 and MPFR-256 (never below the runner's precision),
 * runs the claim's callback in each, and records for every named residual
 *     residual_p <= tau_p := tol_scale * K * u_p      (u_p = 2^-p)
 * in every precision, plus the shrink observation
 *     residual_hi <= max(residual_lo * 2^-(p_hi - p_lo)/2, tau_hi)
 * between the lowest and the highest precision evaluated, and measures
 * "log10 residual, double" / "mpfr128" / "mpfr256" (-400 for an exact 0).
 * The claim declares a numeric parameter "tol_scale".
 */
#ifndef LM_PRID_H
#define LM_PRID_H
#include "lm_pr.h"

enum { LM_PRID_FULL = 0, LM_PRID_CAUSAL = 1, LM_PRID_BLOCK = 2 };

typedef struct {
    int support;     /* LM_PRID_FULL / CAUSAL / BLOCK */
    const double *R; /* grid of entry bounds R (Assumption D.1) */
    int nR;
    int nmax, dmax;  /* n from {2,3,5,8,16,32}, d from {2,3,4,8,16,32}, capped; n = 1 at
                      * instances 3 mod 7, d = 1 at 5 mod 7 */
} lm_prid_spec;

typedef struct lm_prid_state lm_prid_state;

/* what a callback sees: the instance in the working precision */
typedef struct {
    const lm_prdata *P; /* f0 prepared */
    const lm_mat *M;    /* the mask */
    lm_prfwd *F;        /* lm_pr_forward and lm_pr_grad already run at M */
    const lm_ctx *c;
    int n, d, bits;
    double R, habs;     /* habs = max_ij (|X| |M o W| |X|^T)_ij, over M and M = 1 */
    double ksm;         /* n + 4 + 2 d habs: condition factor of the softmax */
    lm_rng *g;          /* reseeded identically in every precision */
    lm_eval *ev;
    lm_prid_state *st;
} lm_prid_inst;

typedef int (*lm_prid_fn)(lm_prid_inst *I);

/* run one evaluation; returns the callback's failure code or 0 */
int lm_prid_run(lm_eval *ev, const lm_prid_spec *spec, lm_prid_fn fn);

/* record residual |diff| / scale (scale 0: 0 when diff is 0, else 1e300) with tolerance factor K */
void lm_prid_resid(lm_prid_inst *I, const char *name, const lm_num *diff, const lm_num *scale, double K);
/* record an already relative residual computed in the working precision */
void lm_prid_resid_d(lm_prid_inst *I, const char *name, double r, double K);
/* ||A - B||_F / scale (scale NULL: ||B||_F) */
void lm_prid_resid_mat(lm_prid_inst *I, const char *name, const lm_mat *A, const lm_mat *B,
                       const lm_num *scale, double K);
/* the named residual cannot be formed in this precision (e.g. the naive
 * D^{-1} exp overflows binary64); it is then checked in the MPFR tiers */
void lm_prid_skip(lm_prid_inst *I, const char *name);

/* ---- the literal computations claims compare against the core ---- */
/* H = X ((M o W) X^T), loops (the other association than the core's (X (M o W)) X^T) */
void lm_prid_logits_alt(lm_mat *H, const lm_mat *X, const lm_mat *W, const lm_mat *M);
/* naive u = C o exp(H), alpha = u 1 (length n, may be NULL), f = diag(alpha)^{-1} u
 * (f may be NULL).  Returns 1 when the double backend overflowed or underflowed
 * (a supported entry of u not a normal number, or alpha not finite), else 0. */
int lm_prid_naive_softmax(lm_mat *f, lm_mat *u, lm_num *alpha, const lm_mat *H, const unsigned char *C);
/* f_ij = exp(H_ij + log C_ij - logsumexp_j(H_ij + log C_ij)), support loops */
void lm_prid_lse_softmax(lm_mat *f, const lm_mat *H, const unsigned char *C);
/* max over entries of |A - B| / |B| on the support (off it A must equal B
 * exactly: else 1e300); the support NULL means all entries.  In double the
 * denominator is |B| + 2^-969 (subnormal-range entries carry no relative accuracy). */
double lm_prid_relmax(const lm_mat *A, const lm_mat *B, const unsigned char *C);
/* a ones matrix of the working context */
lm_mat *lm_prid_ones(int r, int c, const lm_ctx *ctx);
/* an r x c matrix of N(0,1) draws from I->g (the same numbers in every precision) */
lm_mat *lm_prid_randn(lm_prid_inst *I, int r, int c);

/* the literal loss of Definitions 1.2/3.2 at I->M: f(M) and f0 = f(1) from the
 * literal logits X((M o W) X^T), by the naive C o exp / row sums (lse = 0) or as
 * the softmax of H + log C with support loops (lse = 1); C NULL: no mask at all.
 * Lrec = rf sum_ij (f - f0)^2, Lreg = gf lambda sum_ab M_ab^2.  Returns 1 when the
 * naive form over/underflowed binary64 (the values are then meaningless). */
int lm_prid_literal_loss(lm_num *Lrec, lm_num *Lreg, const lm_prid_inst *I, int lse, const unsigned char *C,
                         double rf, double gf);
/* the scale of a loss residual: L + (||c||_F + 4 ksm u (||f||_F + ||f0||_F)) (||f||_F + ||f0||_F),
 * from the core (the rounding of c is relative to f, L_rec is quadratic in c, and when c
 * vanishes in the core the literal c is still of the size of its rounding) */
void lm_prid_loss_scale(lm_num *S, const lm_prid_inst *I);
/* Lemmas C.2/C.3: for q = p1 or p2 of the core, sum over j0 of the d x d matrices
 * with entries X_{j0,i0} W_{i0,j1} <q_{j0}, X_{*,j1}> (literal loops; tw = 1 reads
 * W_{j1,i0}, a wrong formula) against W o (X^T q X) by matrix products; and, for
 * j0 = the last row, Part 1 against W o (X_{j0}^T q_{j0}^T X).  Residuals are relative
 * to the same expressions in absolute values, tolerance 4(2n+4). */
void lm_prid_matrix_view(lm_prid_inst *I, const lm_mat *q, const char *qname, int tw);

#endif
