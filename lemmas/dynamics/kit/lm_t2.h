/* lm_t2.h -- the Theorem-2 experiment (simultaneous GD on W^Q, W^K, W^V from
 * an initialization meeting condition (8)/(46)) and the MLP-chain extension
 * of Remark 2 / Corollary 1 (eq. 10), shared by dynamics/theorem2,
 * dynamics/proof-theorem2-invariants, dynamics/remark2, dynamics/corollary1
 * and dynamics/section4.1-gaussian-analogue.
 *
 * Instances are always built in double (every random draw, every decision:
 * the rescaling factor c = 2^j, the residual size eps) and then converted
 * exactly into the evaluation's context, so an MPFR replay evaluates the very
 * same instance (X, W's and y are the same doubles). */
#ifndef LM_T2_H
#define LM_T2_H

#include "lm_claim.h"
#include "lm_dyn.h"
#include "lm_mha.h"
#include "lm_stats.h"

/* which initialization condition an instance is built to satisfy */
enum {
    LM_T2_HYP_8MAIN = 0, /* (8) <= nu with the main-text lambda^V = sigma_max(W^V_0) */
    LM_T2_HYP_8APP,      /* (8) <= nu with the appendix lambda^V = 2/3(1+sigma_max(W^V_0)) */
    LM_T2_HYP_46R,       /* (46) * ||MH_0 - y|| <= 1 (appendix lambda^V) + sum_h lambda^2 > 1 */
    LM_T2_HYP_46,        /* (46) as printed (no residual factor) <= 1 + sum_h lambda^2 > 1 */
    LM_T2_HYP_NONE       /* no condition enforced */
};
#define LM_T2_HYP_CHOICES "8main|8app|46r|46|none"

typedef struct {
    lm_wvmode mode;
    lm_kernel kernel;
    double cG;      /* Gaussian scale c_G */
    int hyp;        /* LM_T2_HYP_* */
    double nu;      /* nu of (8); the paper's value is 1/54 (Remark 5) */
    int method;     /* -1: by instance index; 0: y = MH_0 + eps u; 1: rescaling only */
    double sX;      /* data scale */
} lm_t2_opts;

typedef struct {
    lm_mha *m;        /* M_0 in the evaluation context (y set) */
    lm_mha *md;       /* the same M_0 in double */
    lm_dyn_consts k0; /* S5 quantities at M_0 (double) */
    int N, n, D, d, H;
    int method;       /* 0: y = MH_0 + eps u, 1: labels + rescaling */
    int variant;      /* method 0: 0 u = smallest left singular vector of B_0, 1 random u;
                         method 1: 0 teacher labels, 1 random labels */
    double c;         /* rescaling (W^V/c, c W^O) applied, a power of 2 */
    double eps;       /* method 0: ||r_0|| (before rescaling, which leaves r_0 unchanged) */
    /* natural logs of the LHS of the conditions at M_0 */
    double log_c8[2];   /* (8): [0] main-text lambda^V, [1] appendix lambda^V */
    double log_c46[2];  /* (46) as printed */
    double log_c46r[2]; /* (46) * ||r_0|| */
    double sumQ2, sumK2;/* sum_h (lambda^Q_h)^2, sum_h (lambda^K_h)^2 */
    double G_ind;       /* G of S5 at the induction bounds (appendix lambda^V) */
    double Gp3_ind;     /* Gaussian 3-block G' at the induction bounds */
    double G_cur;       /* G of S5 at M_0 itself */
    double GV;          /* lambda_max(K) of the W^V block (catalogue S4) at M_0 */
} lm_t2_inst;

/* Build one instance from ev (seed, index, adversarial point ev->x: x[0]
 * log-scale of W^Q, W^K; x[1] log-scale of head 1's W^O block; x[2] angle of
 * r_0 between the smallest left singular vector of B_0 and a random unit
 * vector).  Returns 0 when built, 1 when the hypotheses cannot be met
 * (lm_assume already recorded) and -1 on a numerical failure (lm_fail
 * recorded).  Free with lm_t2_inst_free in every case. */
int lm_t2_build(lm_t2_inst *I, lm_eval *ev, const lm_t2_opts *o);
void lm_t2_inst_free(lm_t2_inst *I);
/* report the instance's conditions and constants as measures */
void lm_t2_measure(lm_eval *ev, const lm_t2_inst *I);
/* In Arb only (certification): confirm in ball arithmetic at the model m (M_0, exact) that
 * the condition o->hyp holds (with the appendix assumptions for (46)) and, when eta > 0,
 * that 2 eta G < 1 with G of S5 (Gaussian kernel: the three-block 3G') at the induction
 * bounds.  These were decided in double when the instance was built; a ball that does not
 * confirm them records lm_assume(ev, 0, ...) and returns 0.  Other contexts: returns 1. */
int lm_t2_ball_hyp(lm_eval *ev, lm_mha *m, const lm_t2_opts *o, double eta);
/* beta = ||W^O||_2^2 sigma_min(B)^2 at the model's last forward point, in its
 * context; sminB may be NULL.  Returns 0 or nonzero when the SVD failed. */
int lm_t2_beta(lm_num *beta, lm_num *sminB, lm_mha *m);
/* lambda_max of the W^V kernel K (lm_t1_kernel) at the current point, double */
int lm_t2_GV(double *GV, lm_mha *m);

/* Working precision for a trajectory whose loss must resolve a relative
 * per-step change rel_step: ctx itself when its unit roundoff (times the
 * amplification ||MH_0||/||r_0|| of f's rounding error and a margin of 2^10)
 * suffices, else MPFR with enough bits (>= 256).  Decided from double data of
 * the instance, so double and MPFR evaluations agree.  Returns 1 when the
 * precision was raised. */
int lm_t2_work_ctx(lm_ctx *w, const lm_t2_inst *I, double rel_step, const lm_ctx *ctx);

/* The Theorem-2 rate check on one instance: GD on {W^Q,W^K,W^V} with
 * eta = eta_scale * 0.99/(2 G) (G of S5 at the induction bounds; the Gaussian
 * kernel uses the 3-block G' of Lemma 8) and, at every t <= T,
 * log f_t <= log f_0 + t log1p(-eta * rate_scale * beta).  When grid != 0 the
 * existential witness is also measured: GD in double for eta in
 * {1, 1e-1, ..., 1e-8}/G_V and the largest eta for which the same
 * inequality holds for all t <= T. */
typedef struct {
    lm_t2_opts opt;
    double rate_scale;  /* multiplies beta in the rate (1 theorem, 1/4 proof mu) */
    double eta_scale;   /* multiplies the paper's step size */
    int T;
    int grid;
} lm_t2_rate_setup;
int lm_t2_run_rate(lm_eval *ev, const lm_t2_rate_setup *s);

/* GD on m (variables mask) from its current point for T steps, in m's
 * context: logf[t] = ln f_t for t = 0..T as doubles (lm_num_log_abs_d, so
 * finite far outside double's range).  Returns the number of iterates stored;
 * fewer than T+1 when f became non-finite (*diverged = 1) or exactly 0. */
int lm_t2_gd_logf(double *logf, lm_mha *m, int mask, const lm_num *eta, int T, int *diverged);

/* least-squares slope of y[i] against i over i in [i0, i1) */
double lm_t2_slope(const double *y, int i0, int i1);
/* index of the first t with logf[t] < logfloor (npts when none) */
int lm_t2_floor_index(const double *logf, int npts, double logfloor);
/* ln(1e3 eps^2 ||y||^2): below it a loss in this context is rounding noise */
double lm_t2_log_floor(const lm_mha *m);

/* ---- the rate rule of lm_stats.h for a linear rate (issue 16, item 6) ----
 * lm_t2_rate_fit judges the slope of log f_t against t (log rho of f_t ~ C rho^t) by
 * lm_rate_fit_seq_lin: only the points before the precision cut (the first t with
 * logf[t] < logfloor; pass -inf for none) are passed, the slope is fitted on t in [T/8, T]
 * (T the last point passed: the transient before T/8 is discarded) and on [T/16, T/2], and the
 * fit is stable when the two agree within max(LM_T2_RATE_STAB |slope on [T/16, T/2]|,
 * 2 sqrt(se^2 + se_half^2)) -- a linear rate is compared with itself, so the allowance is
 * relative; unstable or < 4 points: LM_RATE_TOO_SHORT.  A stable fit is inconsistent when its
 * LM_T2_RATE_CONF interval lies beyond claimed by more than tol on the side the claim
 * constrains (side -1: slope <= claimed, a decay at least that fast; +1: slope >= claimed).
 * Returns the number of points passed (the cut). */
#define LM_T2_RATE_CONF 0.95
#define LM_T2_RATE_STAB 0.1
/* the tolerance of a claimed log rho the paper states none for, relative to it: it only
 * keeps a met claim from reading as tight (excess <= 0 <= tol) */
#define LM_T2_RATE_RTOL 1e-3
int lm_t2_rate_fit(lm_rate_fit *r, const double *logf, int np, double logfloor, double claimed, int side,
                   double tol);

/* ---- the MLP chain of eq. (10): G(M;X) = MH(M;X) W^1 W^2 ... W^L ----
 * With W^O in R^{Hd x 1}, n_0 = d^O = 1 and, since y_i in R^n, n_L = 1, so
 * the chain is a scalar c = W^1 ... W^L and G = c MH.  The model keeps
 * m->Wo = c W^O_0 so that the attention gradients are those of G. */
#define LM_C1_MAXL 8
typedef struct {
    lm_mha *m;         /* owned copy; m->Wo = c * Wo0 after lm_c1_forward */
    lm_mat *Wo0;       /* the fixed output layer W^O */
    int L;
    int w[LM_C1_MAXL + 1]; /* widths n_0 = 1, n_1 >= ... >= n_L = 1 */
    lm_mat *W[LM_C1_MAXL];  /* W^l: n_{l-1} x n_l */
    lm_num c;          /* the product W^1 ... W^L */
} lm_c1;

/* a chain on a copy of m0 (same context); widths n_1..n_{L-1} given in
 * mid[0..L-2] (nonincreasing), W^l drawn from g as doubles and W^L set to
 * a^T/||a||^2 with a = W^1...W^{L-1}, so that the product is 1 (up to the
 * rounding of that double). */
lm_c1 *lm_c1_new(const lm_mha *m0, int L, const int *mid, lm_rng *g);
void lm_c1_free(lm_c1 *c1);
/* c = prod W^l, m->Wo = c W^O_0, forward (loss of G in m->f) */
void lm_c1_forward(lm_c1 *c1);
/* one GD step on {W^Q, W^K, W^V, W^1..W^L}, all updated simultaneously */
void lm_c1_gd_step(lm_c1 *c1, const lm_num *eta);
/* as lm_t2_gd_logf, for the chain */
int lm_c1_gd_logf(double *logf, lm_c1 *c1, const lm_num *eta, int T, int *diverged);

#endif
