/* lm_mdstep.h -- one step of l_p-AttGD and its per-step quantities, for the
 * along-trajectory claims of the mirror-descent paper (Lemmas 4, 22-25).
 *
 * A step is the exact pair (Theta_0, Theta_1 = Theta_0 + dTh), dTh the update
 * as formed (-eta grad L, or the normalised update).  Every quantity below
 * belongs to that pair and is computed in the context without cancellation,
 * so it stays accurate even when dTh is far below one ulp of Theta_0 (where
 * a stored double trajectory freezes):
 *   ||W_1||_p^p - ||W_0||_p^p = sum |th_0|^q expm1(q log1p(dth/th_0)),
 *   ||W_1||_p^(p-1) - ||W_0||_p^(p-1) and ||W_1||_p - ||W_0||_p from it by
 *   expm1/log1p; W_1 - W_0 entrywise as w_0 expm1(log1p(dth/th_0)/(p-1));
 *   D_psi(W_0, W_1) = D_psi*(Theta_1, Theta_0) = sum |th_0|^q phi_q(x)/q with
 *   phi_q(x) = (1+x)^q - 1 - q x (a series for small x), and D_psi(W_1, W_0)
 *   likewise; L(W_0) - L(W_1) per sample from the logit differences.
 * Entries whose Theta changes sign or starts at 0 are formed directly (the
 * terms are not close there).
 *
 * Runs (catalogue section 1.7): R1 (a cone start from lm_md_inst_r1,
 * unnormalised steps), R2 (the paper's normalised runs from a Gaussian
 * start), R3 (zero start, unnormalised).  The states are generated in double,
 * as practitioners train, with exactly the operations of lm_md_step; each
 * step is evaluated in double and every step whose comparisons are not
 * decided by a clear margin (LM_MDCLEAR, relative) is evaluated again, at the
 * same state, in the context of the evaluation (MPFR in a replay), which then
 * decides it.  A break that survives is a true counterexample at that state;
 * a frozen double trajectory cannot fake one (the pair is exact), it only
 * stops making progress (counted in `frozen`). */
#ifndef LM_MDSTEP_H
#define LM_MDSTEP_H

#include "lm_claim.h"
#include "lm_md.h"

/* relative margin below which a double decision is re-evaluated in the context */
#define LM_MDCLEAR 9.313225746154785e-10 /* 2^-30 */

/* ---- the exact pair ---- */
typedef struct {
    int r, c;
    lm_num yp;    /* ||W_0||_p^p = ||Theta_0||_q^q */
    lm_num y;     /* ||W_0||_p */
    lm_num ypm1;  /* ||W_0||_p^(p-1) = ||Theta_0||_q */
    lm_num S;     /* ||W_1||_p^p - ||W_0||_p^p */
    lm_num dpm1;  /* ||W_1||_p^(p-1) - ||W_0||_p^(p-1) */
    lm_num dx;    /* ||W_1||_p - ||W_0||_p */
    lm_num x;     /* ||W_1||_p */
    lm_num b01;   /* D_psi(W_0, W_1)        (LM_MDPAIR_BREG) */
    lm_num b10;   /* D_psi(W_1, W_0)        (LM_MDPAIR_BREG) */
    lm_num corr;  /* <dTh, W_0>  (= eta <-G, W_0>) */
    lm_num dqn;   /* ||dTh||_q   (= eta ||G||_q; LM_MDPAIR_DQN) */
    lm_num lin;   /* <dTh, W_1 - W_0> >= 0  (LM_MDPAIR_W1) */
    lm_mat *W1;   /* grad psi^*(Theta_0 + dTh)   (LM_MDPAIR_W1) */
    lm_mat *dW;   /* W_1 - W_0                   (LM_MDPAIR_W1) */
    int crossings; /* entries whose Theta changes sign, leaves or reaches 0 */
    int underflows; /* entries of W_0 or W_1 = grad psi^*(Theta) that left the
                     * context's exponent range (0 or inf for a nonzero Theta):
                     * the quantities are then not trustworthy in this context */
} lm_mdpair;

enum { LM_MDPAIR_BREG = 1, LM_MDPAIR_DQN = 2, LM_MDPAIR_W1 = 4 };

void lm_mdpair_init(lm_mdpair *P, int r, int c, const lm_ctx *ctx);
void lm_mdpair_clear(lm_mdpair *P);
/* the quantities of the pair (Th0, Th0 + dTh), W0 = grad psi^*(Th0) in the
 * same context (|th0|^q is formed as |th0 w0|); need: LM_MDPAIR_* flags for
 * what to compute beyond yp, y, ypm1, S, dpm1, dx, x, corr */
void lm_mdpair_compute(lm_mdpair *P, const lm_mat *W0, const lm_mat *Th0, const lm_mat *dTh,
                       double p, int need);

/* (1+x)^e - 1 - e x for x >= -1 without cancellation (e formed in the context) */
void lm_md_phi(lm_num *r, const lm_num *x, const lm_num *e, const lm_ctx *c);

/* L(W_0) - L(W_0 + dW) from the forward pass F0 at W_0 (logistic or
 * exponential loss), per sample through the logit differences (log1p/expm1
 * forms): no cancellation between two loss values.  0, nonzero when a value
 * is not finite. */
int lm_md_loss_drop(lm_num *dL, const lm_attn_fwd *F0, const lm_mddata *D, const lm_mat *dW);

/* ---- runs ---- */
typedef enum { LM_MDRUN_R1 = 0, LM_MDRUN_R2 = 1, LM_MDRUN_R3 = 2 } lm_mdrun_kind;

typedef struct {
    lm_mdrun_kind kind;
    double p, eta;
    int normalized; /* 1: the paper's normalised update */
} lm_mdrun_spec;

typedef struct {
    lm_mdrun_spec s;
    lm_ctx ctx;       /* of the evaluation objects below */
    int shadow;       /* 1: evaluates the state of another (double) run */
    /* the driver (double) */
    lm_md_inst I;     /* R1 instance */
    int have_inst;
    lm_mddata *Dd;    /* double data */
    lm_mat *Thd;      /* driver state (Wd = grad psi^*(Thd)) */
    lm_mat *Wd;
    /* the evaluation (the driver's own objects when not a shadow) */
    lm_mddata *D;
    lm_mat *W, *Th;   /* current iterate and its dual variable */
    lm_attn_fwd *F;     /* forward pass at W (after lm_mdrun_prepare) */
    lm_mat *G;        /* scaled gradient: grad L = e^ls G */
    lm_num ls;
    lm_mat *dTh;      /* the update of this step, f G */
    lm_num f;
    lm_num eta_k;     /* its step size: dTh = -eta_k grad L */
    lm_mat *Wmm;      /* R1: the l_p-AttSVM solution (in ctx); else NULL */
    double wnorm;     /* R1: ||W_mm||_p; else 0 */
    lm_mat *W0;       /* the start W(0) (in ctx) */
    int k;            /* index of the current iterate */
    int frozen;       /* steps whose stored Theta did not move although dTh != 0 */
    int big;          /* R1: 1 for the size (6,8,10) */
} lm_mdrun;

/* R1: (n,T,d) = (3,4,4), every 8th instance (6,8,10); cone level mu in
 * {mu_0, 1e-3, 1e-2} and radius R_0 in {2, 3, 5} ||W_mm||_p cycled by
 * `index`; R2/R3: (6,8,10).  All randomness from g.  The run is double.
 * Returns 0; 1 with why when a hypothesis of the run is unmet (lm_assume);
 * -1 with why on a solver failure (lm_fail).  Free in every case. */
int lm_mdrun_init(lm_mdrun *R, const lm_mdrun_spec *s, int index, lm_rng *g, char *why, int whylen);
/* the same with the sizes (samples n, tokens T, dimension d) given; a zero keeps the run's own
 * (R1: by index; R2/R3: the paper's 6, 8, 10) */
int lm_mdrun_init_sized(lm_mdrun *R, const lm_mdrun_spec *s, const int nTd[3], int index, lm_rng *g,
                        char *why, int whylen);
void lm_mdrun_r1_size(int index, int *n, int *T, int *d, double *mu, double *R0);
/* an evaluation of R's current state in context c (R must outlive S) */
void lm_mdrun_shadow(lm_mdrun *S, const lm_mdrun *R, const lm_ctx *c);
void lm_mdrun_free(lm_mdrun *R);
/* (shadow: load the driver's state exactly;) forward pass, gradient and the
 * update dTh with lm_md_step's operations; 0, or nonzero on a non-finite value */
int lm_mdrun_prepare(lm_mdrun *R);
/* Theta += f G, W = grad psi^*(Theta), k++ (not for shadows); 0, or nonzero
 * on a non-finite value */
int lm_mdrun_advance(lm_mdrun *R);

/* ---- observations ---- */
#define LM_MDOBS_MAX 16
typedef struct {
    int n;
    lm_num lo[LM_MDOBS_MAX], hi[LM_MDOBS_MAX]; /* lo <= hi (1 + tol) */
    double tol[LM_MDOBS_MAX];
    char lab[LM_MDOBS_MAX][96];
} lm_mdobs_set;
void lm_mdobs_set_init(lm_mdobs_set *O, const lm_ctx *c);
void lm_mdobs_set_clear(lm_mdobs_set *O);
/* append one observation (the caller fills lo[i], hi[i]); returns i */
int lm_mdobs_add(lm_mdobs_set *O, double tol, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* record lo <= hi whatever the signs: as lo <= hi(1+tol) when hi > 0 and as
 * -hi(1-tol) <= -lo when hi <= 0 (so the ratio stays meaningful); nothing
 * when both are exactly 0 (a null step) */
void lm_mdobs_le(lm_eval *ev, int t, const lm_num *lo, const lm_num *hi, double reltol,
                 const char *where, ...) __attribute__((format(printf, 6, 7)));
/* an observation the double evaluation cannot decide (an exponent range
 * exceeded): recorded as a near miss (ratio 1), so the runner decides it by
 * the MPFR replay; only for double contexts */
void lm_mdobs_undecided(lm_eval *ev, int t, const char *where);
/* record every observation of O in ev (labels after prefix); in a double
 * context a pair with underflows is recorded as undecided.  Returns the
 * number recorded (null steps are skipped), -1 when a value is not finite. */
int lm_mdobs_record(lm_eval *ev, int t, const lm_mdobs_set *O, const lm_mdpair *P, const char *prefix);
/* the same from doubles (lm_obs_le_d) */
void lm_mdobs_le_d(lm_eval *ev, int t, double lo, double hi, double reltol, const char *where);
/* log10 of the ratio lm_mdobs_le records (> 0: broken) */
double lm_mdobs_log10(double lo, double hi, double reltol);
/* 1 when lo <= hi(1+tol) holds with a relative margin of at least m */
int lm_mdobs_clear(double lo, double hi, double reltol, double m);

/* ---- a checked run ---- */
/* the step's observations, computed in R's context (P, dL as requested) */
typedef void (*lm_mdstep_obs)(lm_mdobs_set *O, const lm_mdrun *R, const lm_mdpair *P,
                              const lm_num *dL, void *data);
/* after each step, on the double evaluation: measures, series, running sums;
 * failed: the step's observations failed (as decided).  Nonzero stops. */
typedef int (*lm_mdstep_hook)(lm_eval *ev, const lm_mdrun *R, const lm_mdpair *P,
                              const lm_num *dL, int failed, void *data);
typedef struct {
    int need;            /* LM_MDPAIR_* */
    int need_dL;         /* 1: the loss drop (implies LM_MDPAIR_W1) */
    lm_mdstep_obs obs;
    lm_mdstep_hook hook; /* may be NULL */
    void *data;
} lm_mdcheck;
typedef struct {
    int steps;       /* steps run */
    int first_fail;  /* first failing step (-1: none) */
    int last_fail;   /* last failing step (-1: none) */
    int nfail;       /* failing steps */
    int ctx_evals;   /* steps re-evaluated in the context */
    double worst;    /* worst log10 ratio */
} lm_mdcheck_out;
enum {
    LM_MDCHECK_RECORD = 1, /* record every observation in ev (t = step) */
    LM_MDCHECK_STOP = 2,   /* stop after the first failing step */
    LM_MDCHECK_DOUBLE = 4, /* decide every step in double (no context evaluation) */
    LM_MDCHECK_ALL = 8     /* run all K steps even in a replay (ev->tmax) */
};
/* Run R (double, freshly initialised) for K steps (when recording in a
 * replay, at most ev->tmax + 1 unless LM_MDCHECK_ALL).  Steps not clearly
 * decided in double are evaluated again in ev->ctx when it is not double
 * (unless LM_MDCHECK_DOUBLE).  Returns 0, or -1 on a non-finite value (why). */
int lm_mdrun_check(lm_mdcheck_out *out, lm_eval *ev, lm_mdrun *R, int K, int flags,
                   const lm_mdcheck *C, char *why, int whylen);

/* ---- certifying a break from its exact state (lm_claim.h, lm_state_*) ----
 * lm_mdrun_check keeps the driver's Theta(k) under LM_MDRUN_STATE when the runner wants the
 * state at iterate k (recording runs only).  Given it, lm_mdrun_check_state loads it into R (a
 * run freshly initialised from the seed: the same data and start), evaluates that one step in
 * ev->ctx (W(k) = grad psi^*(Theta(k)), the update and every observation, in balls when the
 * context is Arb) and records its observations at t = k.  Returns 0, or lm_fail's value. */
#define LM_MDRUN_STATE "Theta(k)"
int lm_mdrun_check_state(lm_eval *ev, lm_mdrun *R, const lm_mdcheck *C);

/* ---- the eta-shrinking test (catalogue, Lemmas 24/25: "eta sufficiently
 * small" must be checkable) ----
 * The main run of spec (K steps from the generator state g0) has failing
 * steps.  Its last failing step k_last is found by a scan decided in double
 * (the same in the first run and in an MPFR replay, which may stop early);
 * the run is then repeated (same data and start) with eta/10 and, if that
 * fails too, with eta/100, over the same stretch of time eta (k_last + 1)
 * (at most cap steps each), judging every step with C (nothing recorded;
 * steps not clear in double are confirmed in ev->ctx).  persist = 1 when both
 * fail (the failures survive eta -> 0), else 0 with the reason in msg.
 * Measures k_last and the first failing steps.  Returns 0, -1 on a numerical
 * failure (why). */
int lm_mdrun_shrink_test(int *persist, char *msg, int msglen, lm_eval *ev, const lm_mdrun_spec *s,
                         const lm_rng *g0, int K, int cap, const lm_mdcheck *C, char *why, int whylen);

/* ---- claim plumbing ---- */
/* initialise the run of ev's instance (randomness from lm_eval_rng(ev)):
 * 0 when ready; otherwise the instance is marked (1: lm_assume with the
 * reason, -1: lm_fail) and the caller frees R and returns 0 resp. -1 */
int lm_mdrun_begin(lm_mdrun *R, lm_eval *ev, const lm_mdrun_spec *s);
/* steps of a run: K, a quarter of it in quick mode (at least 8) */
int lm_mdrun_steps(const lm_eval *ev, int K);
/* measures common to every run: steps, frozen steps, steps re-evaluated in
 * the context, ||W(0)||_p and ||W(K)||_p, ||W_mm||_p (R1) */
void lm_mdrun_measures(lm_eval *ev, const lm_mdrun *R, const lm_mdcheck_out *o);

/* ---- pointwise instances ("any matrix G in place of the gradient") ----
 * W0 (r x c) with mixed signs, exact zeros and entries over several decades;
 * G free, radial (a multiple of -Theta0: growth along W0) or overshooting
 * (flips the signs of Theta); eta log-uniform in [1e-3, 10].  x (may be NULL)
 * perturbs the base drawn from g: W0 += x[0..rc-1], G += x[rc..2rc-1] (both
 * in units of the instance's scales), eta *= exp(x[2rc]).  Th0 = grad
 * psi(W0), W0 = grad psi^*(Th0) (the state is Theta), dTh = -eta G, all in
 * the matrices' context.  Search dimension 2 r c + 1. */
void lm_md_pointwise(lm_mat *W0, lm_mat *Th0, lm_mat *dTh, lm_num *eta, double p, lm_rng *g,
                     const double *x, int nx);

#endif
