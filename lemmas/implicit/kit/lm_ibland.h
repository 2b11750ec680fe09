/* lm_ibland.h -- loss-landscape probes along joint training of the
 * implicit-bias classifier (catalogue implicit-bias-self-attention, Lemma 3
 * and its appendix form Lemma 15), shared by lemmas/implicit/lemma3.c and
 * lemmas/implicit/lemma15.c.
 *
 * Everything works in the exact coefficient representation of lm_ibj.h:
 * theta = (W, u) with W = sum C_it x_it x_i1^T, u = sum U_it x_it (W_0 = 0).
 * The loss depends on theta only through these spans, so its gradient lies in
 * V = span{x_it x_i1^T} (+) span{x_it} and its Hessian, a symmetric operator
 * on R^{dxd} (+) R^d, vanishes on the orthogonal complement of V and maps V
 * into V: its spectral norm is that of its restriction to V, where a vector
 * is a pair of n x T coefficient matrices (Vc, Vu) with the Gram norm
 * ||V||^2 = lm_ibj_inner_W(Vc, Vc) + lm_ibj_inner_u(Vu, Vu). */
#ifndef LM_IBLAND_H
#define LM_IBLAND_H

#include "lm_claim.h"
#include "lm_ibj.h"

/* Gradient ratios at the forward pass F of coefficients of J (J's context):
 * gu = ||grad_u L|| / L, gth = ||grad_theta L|| / L and, when M != NULL,
 * corr = <-grad_u L, sum M_it x_it> / L.  Any output may be NULL. */
void lm_ibland_grad_ratios(lm_num *gu, lm_num *gth, lm_num *corr, const lm_ibj *J,
                           const lm_attn_fwd *F, const lm_mat *M);

/* Loss along the step segment theta(lam) = theta_0 + lam (theta_1 - theta_0),
 * lam in [0,1]: dmax = max_lam log L(theta(lam)) - log L(theta_0) over npts
 * equispaced points (lam = k/(npts-1)) followed by gs_iters golden-section
 * iterations on the bracket around the best grid point; *lam_at receives the
 * maximiser.  F is work space (lm_attn_fwd_new(J->D)).  Returns 0, nonzero when
 * a forward pass is not finite. */
int lm_ibland_segment_max(lm_num *dmax, double *lam_at, lm_attn_fwd *F, const lm_ibj *J,
                          const lm_mat *C0, const lm_mat *U0, const lm_mat *C1, const lm_mat *U1,
                          int npts, int gs_iters);

/* Hessian probe: a copy of the data set and the engine in an MPFR context
 * (Hessian-vector products by central differences of the analytic gradient
 * need many more bits than double). */
typedef struct {
    lm_ctx ctx;
    lm_attn_data *D;   /* converted copy */
    lm_ibj *J;      /* engine on the copy (its state is not used) */
    lm_attn_fwd *F;   /* work */
    lm_mat *C, *U;  /* the point */
    lm_mat *Vc, *Vu, *Hc, *Hu, *Pc, *Pu, *gC, *gU;
    lm_num logL;    /* log L at the point */
    double h;       /* difference step (Gram norm of the direction is 1) */
    int iters;      /* power iterations */
} lm_ibland_hess;

/* NULL when the engine cannot start (non-finite forward pass). */
lm_ibland_hess *lm_ibland_hess_new(const lm_attn_data *D, int train_u, lm_attn_loss loss,
                                   mpfr_prec_t prec, double h, int iters);
void lm_ibland_hess_free(lm_ibland_hess *H);
/* Move the probe to the point (C, U) (any context; converted exactly) and
 * compute log L there.  Returns 0, nonzero when the forward pass is not finite. */
int lm_ibland_hess_at(lm_ibland_hess *H, const lm_mat *C, const lm_mat *U);
/* (Hc, Hu) = Hess L[Vc, Vu] / L at the probe's point (H->Vc, H->Vu in, H->Hc,
 * H->Hu out), by (grad(p + hV) - grad(p - hV)) / (2h), each gradient formed
 * from its scaled coefficients divided by L(p) in the log domain.  Returns 0,
 * nonzero on a non-finite value. */
int lm_ibland_hvp(lm_ibland_hess *H);
/* ||Hess L(C,U)||_2 / L(C,U) by power iteration (H->iters Hessian-vector
 * products from a pseudo-random start drawn from key; the result is the
 * largest ||Hv||/||v|| met, a lower estimate of the norm that converges to
 * it), into ratio (any context); log L(C,U) into logL (may be NULL).
 * Returns 0, nonzero on a non-finite value. */
int lm_ibland_hess_norm(lm_num *ratio, lm_num *logL, lm_ibland_hess *H, const lm_mat *C,
                        const lm_mat *U, uint64_t key);

/* B = max_it ||x_it|| from the token Gram matrix of J */
void lm_ibland_B(lm_num *B, const lm_ibj *J);
/* The pointwise self-bound derived from the softmax derivatives (exponential
 * loss): ||Hess L(theta)||_2 <= beta(B, ||u||) L(theta) with
 *   beta = B^2 + B^3 + 2 B^5 ||u|| + B^6 ||u||^2
 * (||grad Phi||^2 <= B^2 + B^6||u||^2 and ||Hess Phi||_2 <= B^3 + 2 B^5 ||u||). */
void lm_ibland_hess_beta(lm_num *r, const lm_num *B, const lm_num *unorm, const lm_ctx *ctx);


/* ---- the run R4 with the step-segment probes of Lemma 3 (ii) and (iii) ----
 *
 * DM data (T = 2, sigma = d^{-1/2}, labels from u_star, designated optimal
 * tokens), W_0 = 0, u_0 = 0, exponential loss, the joint update (13)
 * theta_{t+1} = theta_t - eta grad L(theta_t) / ((t+1)^alpha L(theta_t)).
 * lm_ibland_run_next steps through the run; around each step it records
 *  (ii)  log max_{theta' in [theta_t, theta_{t+1}]} L(theta')/L(theta_t) <= log C_L
 *        (seg_pts equispaced points + gs_iters golden-section iterations) at
 *        every t < seg_dense and every seg_stride-th t after;
 *  (iii) ||Hess L(theta')||_2 <= C_H (1+B||u_t||)^2 B^4 L(theta_t) at hess_pts
 *        equispaced points theta' of the segment (power iteration on MPFR
 *        central-difference Hessian-vector products, lm_ibland_hess) at
 *        t = 0, at powers of two below hess_stride and at multiples of
 *        hess_stride; with hp_scale > 0 also the pointwise self-bound
 *        ||Hess L(theta')||_2 <= hp_scale beta(B, ||u'||) L(theta').
 * In an MPFR replay (ev->tmax >= 0) the run stops after the step tmax -> tmax+1
 * and the segment/Hessian probes run only at t = tmax, the iterate to re-decide. */
typedef struct {
    int d, n;              /* DM sizes (600, 8) */
    double zeta;           /* 1.5 */
    double eta, alpha;     /* 0.5, 2/3 */
    int steps;             /* iterations (10^4) */
    double C_L;            /* (ii) constant (e); <= 0: no segment probes */
    int seg_pts, gs_iters, seg_dense, seg_stride; /* 17, 30, 1024, 8 */
    double C_H;            /* (iii) constant; <= 0 with hp_scale <= 0: no Hessian probes */
    double hp_scale;       /* pointwise self-bound multiplier; <= 0: not checked */
    int hess_pts, hess_iters, hess_stride; /* 3, 20, 1000 */
    double hess_h;         /* 1e-25 */
    int hess_prec;         /* 256 */
} lm_ibland_opts;

void lm_ibland_opts_default(lm_ibland_opts *o);

typedef struct {
    lm_ibland_opts o;
    const lm_ctx *ctx;
    lm_attn_data *D;
    lm_ibj *J;             /* state theta_t after lm_ibland_run_next returned 1 */
    lm_ibland_hess *H;     /* NULL without Hessian probes */
    lm_attn_fwd *Fw;         /* work */
    lm_mat *C0, *U0, *Pc, *Pu;
    lm_num B, logB;        /* B = max ||x_it|| */
    int t;                 /* current iterate */
    int started, rc;       /* rc: -1 after an error (recorded with lm_fail) */
    int tmax;              /* last iterate whose step is taken (steps-1, or ev->tmax) */
    /* empirical constants */
    double seg_logmax;     /* max log L(theta')/L(theta_t) over probed segments */
    double seg_logend;     /* max log L(theta_{t+1})/L(theta_t) */
    int nseg, nhess;
    double ch_emp;         /* max ||Hess L(theta')|| / ((1+B||u_t||)^2 B^4 L(theta_t)) */
    double hp_emp;         /* max ||Hess L(theta')|| / (beta L(theta')) */
    double hl_max;         /* max ||Hess L(theta')|| / L(theta') */
} lm_ibland_run;

/* Draws the data from lm_eval_rng(ev) (first draws of the instance) and
 * starts the engine in ev->ctx.  NULL after lm_fail (non-finite start). */
lm_ibland_run *lm_ibland_run_new(lm_eval *ev, const lm_ibland_opts *o);
/* First call: 1 with the state theta_0.  Later calls: take the step t -> t+1,
 * record the probes of the segment [theta_t, theta_{t+1}], return 1 with the
 * state theta_{t+1}; 0 when the run is over or failed (then R->rc = -1). */
int lm_ibland_run_next(lm_eval *ev, lm_ibland_run *R);
/* lm_measure the empirical constants (and the derived C_H of the draw) */
void lm_ibland_run_report(lm_eval *ev, const lm_ibland_run *R);
void lm_ibland_run_free(lm_ibland_run *R);

#endif
