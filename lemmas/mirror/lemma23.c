/* lemmas/mirror/lemma23.c
 *
 * \claim{mirror/lemma23}{Mirror-descent identities along $\ell_p$-AttGD}
 * \source{mirror-descent-attention, Appendix A.4, Lemma 23 (cited from Azizan and Hassibi 2018
 *   and Sun et al.\ 2022; displays reconstructed); (23c) is the catalogue's companion}
 * \statement{For every $W$ and every step $k$ of mirror descent with potential
 *   $\psi=\frac1p\|\cdot\|_p^p$:
 *   (23a) $D_\psi(W,W(k+1))=D_\psi(W,W(k))-D_\psi(W(k+1),W(k))+\eta\langle\nabla\mathcal L(W(k)),W-W(k+1)\rangle$;
 *   (23b) $D_\psi(W,W(k))+\eta\mathcal L(W)=D_\psi(W,W(k+1))+D_{\psi-\eta\mathcal L}(W(k+1),W(k))
 *   +\eta\mathcal L(W(k+1))+\eta D_{\mathcal L}(W,W(k))$ with
 *   $D_{\mathcal L}(A,B)=\mathcal L(A)-\mathcal L(B)-\langle\nabla\mathcal L(B),A-B\rangle$ and
 *   $D_{\psi-\eta\mathcal L}=D_\psi-\eta D_{\mathcal L}$;
 *   (23c) $\frac{p-1}{p}(\|W(k+1)\|_p^p-\|W(k)\|_p^p)=\eta\langle-\nabla\mathcal L(W(k)),W(k)\rangle
 *   +D_\psi(W(k),W(k+1))$.  (23a) and (23c) hold for any matrix $G$ in place of the gradient.}
 * \check{Residuals.  Every term is formed separately with the core's closed sums
 *   ($D_\psi$ as the authors' \texttt{bregman\_div}, $\psi$, $\mathcal L$ by a forward pass) so
 *   that the identities test the implementation of $\nabla\psi$, $\nabla\psi^*$, $D_\psi$ and
 *   $\mathcal L$; the step is $\Delta\Theta=-\eta\nabla\mathcal L(W(k))$ ($\eta_k$ for the
 *   normalised runs) and $W(k+1)=\nabla\psi^*(\Theta(k)+\Delta\Theta)$.  A residual $r$ passes
 *   when $|r|\le\tau\,s$ with $s$ the sum of the magnitudes of all terms plus
 *   $p(\psi(W)+\psi(W(k))+\psi(W(k+1)))$ (what rounding can touch) and
 *   $\tau=$\texttt{tol\_scale}$\cdot64(d^2+p)\,u$, $u$ the unit roundoff of the context
 *   ($7.8\cdot10^{-13}$ in double, $6\cdot10^{-74}$ in 256-bit MPFR); the ratio reported is
 *   $|r|/(\tau s)$.  \texttt{dpsi\_coef} multiplies $D_\psi(W(k+1),W(k))$ in (23a), (23b) and
 *   $D_\psi(W(k),W(k+1))$ in (23c) (paper: 1; any other value breaks the identities).
 *   Test points $W$: $0$, $W(0)$, a Gaussian matrix, the current iterate $W(k)$, and on R1 also
 *   $W_{mm}$ and $\bar W_{mm}$.  Runs: R1 (cone start, $(n,T,d)=(3,4,4)$, every eighth instance
 *   $(6,8,10)$, unnormalised, $\eta=1$) for $p\in\{1.5,3\}$; R2 (paper's normalised run,
 *   $n=6,T=8,d=10$, Gaussian start, $\eta=0.1$) for $p=1.75$; R3 (zero start, $\eta=0.1$) for
 *   $p=10$; \texttt{K} steps each (200; 50 quick); states generated in double as
 *   \texttt{lm\_md\_step} does, and a step whose residual is not clearly below its tolerance is
 *   evaluated again at the same state in the context (MPFR in a replay).  Pointwise: (23a) and
 *   (23c) for random $(W(k),G,\eta)$ (mixed signs, exact zeros, four decades, $G$ free, radial or
 *   overshooting zero, $\eta\in[10^{-3},10]$, sizes up to $3\times3$) with $W\in\{0,W(k),$
 *   random$\}$ for the extreme exponents $p\in\{1.01,20\}$ and $p\in\{1.5,3\}$.  Readings: every configuration is a \texttt{paper} reading (the statement as the catalogue reconstructs it).}
 */
#include "lm_mdclaim.h"
#include <math.h>
#include <stdio.h>

typedef struct {
    const char *name;
    int pointwise;
    lm_mdrun_spec s;
} cfg_t;

static const cfg_t cfgs[] = {
    {"R1,p=1.5,eta=1", 0, {LM_MDRUN_R1, 1.5, 1.0, 0}},
    {"R1,p=3,eta=1", 0, {LM_MDRUN_R1, 3.0, 1.0, 0}},
    {"R2,p=1.75,normalised,eta=0.1", 0, {LM_MDRUN_R2, 1.75, 0.1, 1}},
    {"R3,p=10,eta=0.1", 0, {LM_MDRUN_R3, 10.0, 0.1, 0}},
    {"pointwise,p=1.01", 1, {LM_MDRUN_R1, 1.01, 0, 0}},
    {"pointwise,p=1.5", 1, {LM_MDRUN_R1, 1.5, 0, 0}},
    {"pointwise,p=3", 1, {LM_MDRUN_R1, 3.0, 0, 0}},
    {"pointwise,p=20", 1, {LM_MDRUN_R1, 20.0, 0, 0}},
};

static const char *const configs[] = {"R1,p=1.5,eta=1", "R1,p=3,eta=1", "R2,p=1.75,normalised,eta=0.1",
                                      "R3,p=10,eta=0.1", "pointwise,p=1.01", "pointwise,p=1.5",
                                      "pointwise,p=3", "pointwise,p=20", NULL};
/* one reading per configuration (issue 16) */
static const lm_reading readings[] = {
    {LM_READ_PAPER, "R1 run at p = 1.5 (cone start at radius 2..5 ||W_mm||_p, data (3,4,4), "
                    "constant step eta = 1): residuals of (23a)-(23c) at every step, at test "
                    "points 0, W(0), random, W(k), W_mm, Wbar_mm.", NULL},
    {LM_READ_PAPER, "R1 run at p = 3 (cone start at radius 2..5 ||W_mm||_p, data (3,4,4), constant "
                    "step eta = 1): residuals of (23a)-(23c) at every step, including the test "
                    "points W_mm and Wbar_mm.", NULL},
    {LM_READ_PAPER, "R2, the paper's normalised run at p = 1.75 (data (6,8,10), Gaussian start, "
                    "eta = 0.1): residuals of the identities (23a)-(23c) at every step of the "
                    "paper's own experiment.", NULL},
    {LM_READ_PAPER, "R3, zero start at p = 10, unnormalised constant step eta = 0.1: residuals of "
                    "(23a)-(23c) at every step at a large exponent.", NULL},
    {LM_READ_PAPER, "Pointwise (23a) and (23c) at p = 1.01, the extreme exponent next to l_1: "
                    "random (W(k), G, eta) with G free, radial or sign-flipping, eta in [1e-3,10].",
     NULL},
    {LM_READ_PAPER, "Pointwise (23a) and (23c) at p = 1.5: random (W(k), G, eta) with G free, "
                    "radial or sign-flipping, eta in [1e-3,10], for W in {0, W(k), random}.", NULL},
    {LM_READ_PAPER, "Pointwise (23a) and (23c) at p = 3, the paper's largest exponent: random "
                    "(W(k), G, eta) with G free, radial or sign-flipping, eta in [1e-3,10].", NULL},
    {LM_READ_PAPER, "Pointwise (23a) and (23c) at p = 20, the extreme large exponent: random "
                    "(W(k), G, eta) with G free, radial or sign-flipping, eta in [1e-3,10].", NULL},
    LM_READINGS_END};


#define PARAMS(NUM, SWITCH)                                                                                                    \
    NUM(tol_scale, 1.0, "[0, inf)", "multiplies the residual tolerance 64 (d^2 + p) u (u: unit roundoff)")                     \
    NUM(dpsi_coef, 1.0, "[0, 1e6]", "coefficient of D_psi(W(k+1),W(k)) in (23a,b) and D_psi(W(k),W(k+1)) in (23c) (paper: 1)") \
    NUM(K, 200, "int [1, 10000]", "steps per run (quick: K/4) (at most 10000: run length bound)")
LM_PARAMS(PARAMS)

enum { NW = 6 };
static const char *const wname[NW] = {"0", "W(0)", "random", "W(k)", "W_mm", "Wbar_mm"};

typedef struct {
    double tol_scale, coef;
    lm_mat *Wr;             /* the random test point (double) */
    double worst[3];        /* max |r|/s per identity (a, b, c) */
} data_t;

/* L(W) in W's context */
static int lossval(lm_num *L, const lm_mddata *D, const lm_mat *W)
{
    lm_attn_fwd *F = lm_md_fwd_new(D);
    int bad = lm_md_forward(F, D, W, LM_ATTN_LOGISTIC);
    lm_num_exp(L, &F->logL);
    lm_attn_fwd_free(F);
    return bad;
}

/* |x| added to s */
static void acc_abs(lm_num *s, const lm_num *x, lm_num *w)
{
    lm_num_abs(w, x);
    lm_num_add(s, s, w);
}

static void record_res(lm_mdobs_set *O, data_t *dt, int which, const lm_num *r, const lm_num *s,
                       double tol, const char *lab)
{
    int i = lm_mdobs_add(O, 0.0, "%s", lab);
    lm_num_abs(&O->lo[i], r);
    lm_num_mul_d(&O->hi[i], s, tol);
    double rel = fabs(lm_num_get_d(r)) / lm_num_get_d(s);
    if (rel > dt->worst[which]) dt->worst[which] = rel;
}

static void obs(lm_mdobs_set *O, const lm_mdrun *R, const lm_mdpair *P, const lm_num *dL, void *vd)
{
    data_t *dt = vd;
    const lm_ctx *c = &R->ctx;
    double p = R->s.p;
    int d = R->W->r;
    double tol = dt->tol_scale * 64.0 * ((double)(d * R->W->c) + p) * lm_ctx_eps(c);
    lm_num psiW, psi0, psi1, L0, L1, LW, eta, dW0W1, dW1W0, dWW0, dWW1, t0, t1, tW, r, s, w, v;
    lm_num_inits(c, &psiW, &psi0, &psi1, &L0, &L1, &LW, &eta, &dW0W1, &dW1W0, &dWW0, &dWW1, &t0, &t1,
                 &tW, &r, &s, &w, &v, (lm_num *)NULL);
    const lm_mat *W0 = R->W, *W1 = P->W1;
    lm_md_psi(&psi0, W0, p);
    lm_md_psi(&psi1, W1, p);
    lm_md_bregman(&dW0W1, W0, W1, p);
    lm_md_bregman(&dW1W0, W1, W0, p);
    lm_mat_dot(&t0, R->dTh, W0); /* <dTh, W(k)> = eta <-G, W(k)> */
    lm_mat_dot(&t1, R->dTh, W1);
    lm_num_set(&eta, &R->eta_k);
    int haveL = R->F != NULL;
    if (haveL) {
        lm_num_exp(&L0, &R->F->logL);
        if (lossval(&L1, R->D, W1)) lm_num_set_d(&L1, NAN);
    }
    /* (23c): (p-1)(psi(W1) - psi(W0)) = <dTh, W0> + D(W0, W1) */
    lm_num_sub(&r, &psi1, &psi0);
    lm_num_mul_d(&r, &r, p - 1.0);
    lm_num_sub(&r, &r, &t0);
    lm_num_mul_d(&w, &dW0W1, dt->coef);
    lm_num_sub(&r, &r, &w);
    lm_num_add(&s, &psi1, &psi0);
    lm_num_mul_d(&s, &s, 2.0 * p);
    acc_abs(&s, &t0, &w);
    acc_abs(&s, &dW0W1, &w);
    char lab[96];
    snprintf(lab, sizeof lab, "k=%d (23c) residual", R->k);
    record_res(O, dt, 2, &r, &s, tol, lab);
    /* the test points */
    lm_mat *W = lm_mat_new(d, d, c);
    for (int j = 0; j < NW; j++) {
        if (R->s.kind == LM_MDRUN_R3 && j == 1) continue; /* W(0) = 0 already */
        switch (j) {
        case 0: lm_mat_zero(W); break;
        case 1: lm_mat_copy(W, R->W0); break;
        case 2:
            if (!dt->Wr || dt->Wr->r != d) continue;
            lm_mat_copy(W, dt->Wr);
            break;
        case 3: lm_mat_copy(W, W0); break;
        case 4:
            if (!R->Wmm) continue;
            lm_mat_copy(W, R->Wmm);
            break;
        default:
            if (!R->Wmm) continue;
            lm_md_pnorm(&v, R->Wmm, p);
            lm_num_set_d(&w, 1.0);
            lm_num_div(&v, &w, &v);
            lm_mat_scale(W, R->Wmm, &v);
            break;
        }
        lm_md_psi(&psiW, W, p);
        lm_md_bregman(&dWW0, W, W0, p);
        lm_md_bregman(&dWW1, W, W1, p);
        lm_mat_dot(&tW, R->dTh, W);
        /* (23a): D(W,W1) = D(W,W0) - D(W1,W0) - <dTh, W - W1> */
        lm_num_sub(&r, &dWW1, &dWW0);
        lm_num_mul_d(&w, &dW1W0, dt->coef);
        lm_num_add(&r, &r, &w);
        lm_num_add(&r, &r, &tW);
        lm_num_sub(&r, &r, &t1);
        lm_num_add(&s, &psiW, &psi0);
        lm_num_add(&s, &s, &psi1);
        lm_num_mul_d(&s, &s, p);
        acc_abs(&s, &dWW1, &w);
        acc_abs(&s, &dWW0, &w);
        acc_abs(&s, &dW1W0, &w);
        acc_abs(&s, &tW, &w);
        acc_abs(&s, &t1, &w);
        snprintf(lab, sizeof lab, "k=%d (23a) residual, W=%s", R->k, wname[j]);
        record_res(O, dt, 0, &r, &s, tol, lab);
        if (!haveL) continue;
        /* (23b): D(W,W0) + eta L(W) = D(W,W1) + [D(W1,W0) - eta D_L(W1,W0)] + eta L(W1)
         *        + eta D_L(W,W0),  eta D_L(A,W0) = eta (L(A) - L0) + <dTh, A - W0> */
        if (lossval(&LW, R->D, W)) lm_num_set_d(&LW, NAN);
        lm_num_mul(&v, &eta, &LW);
        lm_num_add(&r, &dWW0, &v);       /* left side */
        lm_num_sub(&r, &r, &dWW1);
        lm_num_mul_d(&w, &dW1W0, dt->coef);
        lm_num_sub(&r, &r, &w);
        lm_num_sub(&w, &L1, &L0);        /* + eta D_L(W1,W0) */
        lm_num_mul(&w, &w, &eta);
        lm_num_add(&w, &w, &t1);
        lm_num_sub(&w, &w, &t0);
        lm_num_add(&r, &r, &w);
        lm_num_mul(&w, &eta, &L1);       /* - eta L(W1) */
        lm_num_sub(&r, &r, &w);
        lm_num_sub(&w, &LW, &L0);        /* - eta D_L(W,W0) */
        lm_num_mul(&w, &w, &eta);
        lm_num_add(&w, &w, &tW);
        lm_num_sub(&w, &w, &t0);
        lm_num_sub(&r, &r, &w);
        lm_num_add(&s, &psiW, &psi0);
        lm_num_add(&s, &s, &psi1);
        lm_num_mul_d(&s, &s, p);
        acc_abs(&s, &dWW0, &w);
        acc_abs(&s, &dWW1, &w);
        acc_abs(&s, &dW1W0, &w);
        lm_num_add(&w, &LW, &L0);
        lm_num_add(&w, &w, &L1);
        lm_num_mul(&w, &w, &eta);
        lm_num_mul_d(&w, &w, 2.0);
        lm_num_add(&s, &s, &w);
        acc_abs(&s, &tW, &w);
        acc_abs(&s, &t0, &w);
        acc_abs(&s, &t1, &w);
        snprintf(lab, sizeof lab, "k=%d (23b) residual, W=%s", R->k, wname[j]);
        record_res(O, dt, 1, &r, &s, tol, lab);
    }
    lm_mat_free(W);
    lm_num_clears(&psiW, &psi0, &psi1, &L0, &L1, &LW, &eta, &dW0W1, &dW1W0, &dWW0, &dWW1, &t0, &t1,
                  &tW, &r, &s, &w, &v, (lm_num *)NULL);
}

static int hook(lm_eval *ev, const lm_mdrun *R, const lm_mdpair *P, const lm_num *dL, int failed,
                void *vd)
{
    const data_t *dt = vd;
    lm_series(ev, "max relative residual (23a) so far", R->k, fmax(dt->worst[0], 1e-300));
    lm_series(ev, "max relative residual (23b) so far", R->k, fmax(dt->worst[1], 1e-300));
    lm_series(ev, "max relative residual (23c) so far", R->k, fmax(dt->worst[2], 1e-300));
    return 0;
}

static lm_mat *random_point(lm_rng *g, int d)
{
    lm_ctx cd = lm_ctx_double();
    lm_mat *W = lm_mat_new(d, d, &cd);
    lm_mat_randn(W, g, 2.0);
    return W;
}

static int eval_pointwise(lm_eval *ev, double p, data_t *dt)
{
    lm_mdpoint q;
    lm_mdpoint_init(&q, ev, p, 0, LM_MDPAIR_W1); /* the pair takes no randomness */
    dt->Wr = random_point(lm_eval_rng(ev), q.d);
    int rc = lm_mdpoint_check(ev, &q, LM_MDRUN_R3, obs, dt, 0, "a null step (G = 0) was drawn");
    lm_measure(ev, "relative residual (23a)", dt->worst[0]);
    lm_measure(ev, "relative residual (23c)", dt->worst[2]);
    lm_measure(ev, "sign crossings", q.P.crossings);
    lm_mdpoint_clear(&q);
    return rc;
}

/* the run's reference point, drawn once the run has started */
static void prep(lm_eval *ev, lm_mdrun *R, void *vd)
{
    data_t *dt = vd;
    dt->Wr = random_point(lm_eval_rng(ev), R->W->r);
}

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    const cfg_t *cf = &cfgs[ev->config];
    data_t dt = {.tol_scale = prm.tol_scale, .coef = prm.dpsi_coef};
    int rc;
    if (cf->pointwise) {
        rc = eval_pointwise(ev, cf->s.p, &dt);
        lm_mat_free(dt.Wr);
        return rc;
    }
    lm_mdrun R;
    lm_mdcheck C = {.need = LM_MDPAIR_W1, .obs = obs, .hook = hook, .data = &dt};
    lm_mdcheck_out o;
    if (lm_mdclaim_run(&rc, &R, &o, ev, &cf->s, "relative residual |r|/s", &C, NULL, prep, &dt) < 0) return rc;
    lm_mdrun_measures(ev, &R, &o);
    lm_measure(ev, "max relative residual (23a)", dt.worst[0]);
    lm_measure(ev, "max relative residual (23b)", dt.worst[1]);
    lm_measure(ev, "max relative residual (23c)", dt.worst[2]);
    lm_mat_free(dt.Wr);
    lm_mdrun_free(&R);
    return rc;
}

LM_CLAIM(claim_mirror_lemma23) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Appendix A.4, Lemma 23 (from Azizan & Hassibi 2018; Sun et al. 2022)",
    .origin = "reconstructed",
    .confidence = "high (identities true); medium (exact displays of (23a)/(23b))",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .eval = eval,
};
