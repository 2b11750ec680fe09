/* lemmas/mirror/lemma4.c
 *
 * \claim{mirror/lemma4}{One-step growth of the $\ell_p$ norm under $\ell_p$-AttGD}
 * \source{mirror-descent-attention, main-paper Lemma 4, proof in Appendix A.5 (display
 *   reconstructed from the proof skeleton: Lemma 15, the update rule, Lemma 14, H\"older,
 *   Lemma 18)}
 * \statement{Let $x=\|W(k+1)\|_p$, $y=\|W(k)\|_p>0$.  If $x\le y$ there is nothing to prove;
 *   otherwise
 *   (4a) $x-y\le\frac{\eta}{(p-1)y^{p-1}}\sum_{a,b}\max(|W(k+1)_{ab}|,|W(k)_{ab}|)\,
 *   |\nabla\mathcal L(W(k))_{ab}|$ and
 *   (4b) the right side of (4a) is at most $\frac{2^{1/p}\eta\|\nabla\mathcal L(W(k))\|_q\,x}{(p-1)y^{p-1}}$;
 *   hence, with Lemma 18, $x-y\le C_4\eta$ for a dataset-dependent $C_4$ when $y\ge1$, $p\ge2$.
 *   Companion (4c): $x^{p-1}-y^{p-1}\le\eta\|\nabla\mathcal L(W(k))\|_q$.  All hold for any
 *   matrix $G$ in place of the gradient.}
 * \check{At every step of a run, with the update $\Delta\Theta=-\eta\nabla\mathcal L(W(k))$
 *   ($\eta_k=\eta/(\|\nabla\mathcal L\|_q+2^{-52})$ for the normalised runs), the pair
 *   $(W(k),W(k+1))=(\nabla\psi^*(\Theta),\nabla\psi^*(\Theta+\Delta\Theta))$ is evaluated
 *   without cancellation: $x^p-y^p=\sum|\theta|^q\,\mathrm{expm1}(q\,\mathrm{log1p}(\Delta\theta/\theta))$
 *   and $x-y=y\,\mathrm{expm1}(\mathrm{log1p}((x^p-y^p)/y^p)/p)$, never a difference of rounded
 *   norms.  Compared: (4a) $x-y$ against $c_1$ times its right side (recorded at every step,
 *   trivially true when $x\le y$); (4b) only when $x>y$, with $c_2$ on $2^{1/p}$; (4c) at every
 *   step, with $c_3$ on $\eta\|\nabla\mathcal L\|_q$ (an equality for radial steps and at a zero
 *   start); $c_1,c_2,c_3$ are \texttt{c1\_scale}, \texttt{c2\_scale}, \texttt{c3\_scale} (paper:
 *   1); every comparison carries a relative tolerance of \texttt{tol\_ulps} roundoff units.
 *   Runs: R1 (cone start, $D_\psi(\bar W_{mm},\bar W(0))\in\{\mu_0,10^{-3},10^{-2}\}$, radius
 *   $\{2,3,5\}\|W_{mm}\|_p$, $(n,T,d)=(3,4,4)$ and every eighth instance $(6,8,10)$,
 *   unnormalised, $\eta=1$) for $p\in\{1.5,2,3\}$; R2 (paper's normalised runs, $n=6$, $T=8$,
 *   $d=10$, Gaussian start, $\eta=0.1$) for $p\in\{1.75,3\}$; R3 (zero start, unnormalised,
 *   $\eta=0.1$) for $p\in\{4,10\}$; \texttt{K} steps each (300; 75 quick).  States are
 *   generated in double as \texttt{lm\_md\_step} does; steps not decided in double by a
 *   relative margin $2^{-30}$ are re-evaluated at the same state in the context (MPFR in a
 *   replay).  Pointwise form: configurations $p\in\{1.01,1.1,1.5,2,3,6\}$ with random
 *   $(W,G,\eta)$ (mixed signs, exact zeros, four decades, $G$ free, radial or overshooting zero,
 *   $\eta\in[10^{-3},10]$, sizes up to $3\times3$) and Nelder--Mead restarts on $2\times2$
 *   instances maximising the worst ratio.  Reported: $\sup(x-y)/\eta$ over each run and, for
 *   $p\ge2$, over the steps with $y\ge1$ (the empirical $C_4$).  Readings: the R1, R2 and R3 runs read the paper (each step is an $\ell_p$-AttGD step with step $\eta_k$); the six \texttt{pointwise} configurations are \texttt{probe} readings (the catalogue's stress test with an arbitrary $G$ in place of $\nabla\mathcal L$).  The ``$x-y\le C_4\eta$'' form is only reported (empirical $C_4$): its constant is existential.}
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
    {"R1,p=2,eta=1", 0, {LM_MDRUN_R1, 2.0, 1.0, 0}},
    {"R1,p=3,eta=1", 0, {LM_MDRUN_R1, 3.0, 1.0, 0}},
    {"R2,p=1.75,normalised,eta=0.1", 0, {LM_MDRUN_R2, 1.75, 0.1, 1}},
    {"R2,p=3,normalised,eta=0.1", 0, {LM_MDRUN_R2, 3.0, 0.1, 1}},
    {"R3,p=4,eta=0.1", 0, {LM_MDRUN_R3, 4.0, 0.1, 0}},
    {"R3,p=10,eta=0.1", 0, {LM_MDRUN_R3, 10.0, 0.1, 0}},
    {"pointwise,p=1.01", 1, {LM_MDRUN_R1, 1.01, 0, 0}},
    {"pointwise,p=1.1", 1, {LM_MDRUN_R1, 1.1, 0, 0}},
    {"pointwise,p=1.5", 1, {LM_MDRUN_R1, 1.5, 0, 0}},
    {"pointwise,p=2", 1, {LM_MDRUN_R1, 2.0, 0, 0}},
    {"pointwise,p=3", 1, {LM_MDRUN_R1, 3.0, 0, 0}},
    {"pointwise,p=6", 1, {LM_MDRUN_R1, 6.0, 0, 0}},
};
#define NCFG ((int)(sizeof cfgs / sizeof cfgs[0]))

static const char *const configs[] = {
    "R1,p=1.5,eta=1", "R1,p=2,eta=1", "R1,p=3,eta=1", "R2,p=1.75,normalised,eta=0.1",
    "R2,p=3,normalised,eta=0.1", "R3,p=4,eta=0.1", "R3,p=10,eta=0.1", "pointwise,p=1.01",
    "pointwise,p=1.1", "pointwise,p=1.5", "pointwise,p=2", "pointwise,p=3", "pointwise,p=6", NULL};
/* one reading per configuration (issue 16) */
static const lm_reading readings[] = {
    {LM_READ_PAPER, "R1 run at p = 1.5 (cone start at radius 2..5 ||W_mm||_p, data (3,4,4), "
                    "constant step eta = 1): (4a), (4b) and (4c) at every step below the Euclidean "
                    "case.", NULL},
    {LM_READ_PAPER, "R1 run at p = 2 (cone start at radius 2..5 ||W_mm||_p, data (3,4,4), constant "
                    "step eta = 1): (4a), (4b) and (4c) at every step with the Euclidean "
                    "potential.", NULL},
    {LM_READ_PAPER, "R1 run at p = 3 (cone start at radius 2..5 ||W_mm||_p, data (3,4,4), constant "
                    "step eta = 1): (4a), (4b) and (4c) at every step at the paper's largest "
                    "exponent.", NULL},
    {LM_READ_PAPER, "R2, the paper's normalised run at p = 1.75 (data (6,8,10), Gaussian start, "
                    "eta = 0.1): (4a), (4b) and (4c) at every step of the paper's own experiment.",
     NULL},
    {LM_READ_PAPER, "R2, the paper's normalised run at p = 3 (data (6,8,10), Gaussian start, eta = "
                    "0.1): (4a), (4b) and (4c) at every step of the paper's own experiment.", NULL},
    {LM_READ_PAPER, "R3, zero start at p = 4, unnormalised step eta = 0.1: (4a)-(4c) from a zero "
                    "start, where (4c) is an equality, and the empirical C_4 for y >= 1.", NULL},
    {LM_READ_PAPER, "R3, zero start at p = 10, unnormalised step eta = 0.1: (4a)-(4c) at the "
                    "largest exponent of the runs, and the empirical C_4 for y >= 1.", NULL},
    {LM_READ_PROBE, "the catalogue's stress test: arbitrary (W, G, eta) with G in place of grad L (not an l_p-AttGD step)", NULL},
    {LM_READ_PROBE, "the catalogue's stress test: arbitrary (W, G, eta) with G in place of grad L (not an l_p-AttGD step)", NULL},
    {LM_READ_PROBE, "the catalogue's stress test: arbitrary (W, G, eta) with G in place of grad L (not an l_p-AttGD step)", NULL},
    {LM_READ_PROBE, "the catalogue's stress test: arbitrary (W, G, eta) with G in place of grad L (not an l_p-AttGD step)", NULL},
    {LM_READ_PROBE, "the catalogue's stress test: arbitrary (W, G, eta) with G in place of grad L (not an l_p-AttGD step)", NULL},
    {LM_READ_PROBE, "the catalogue's stress test: arbitrary (W, G, eta) with G in place of grad L (not an l_p-AttGD step)", NULL},
    LM_READINGS_END};


#define PARAMS(NUM, SWITCH)                                                                                       \
    NUM(c1_scale, 1.0, "[0, 1e6]", "multiplies the right side of (4a) (paper: 1)")                                \
    NUM(c2_scale, 1.0, "[0, 1e6]", "multiplies 2^(1/p) in (4b) (paper: 1)")                                       \
    NUM(c3_scale, 1.0, "[0, 1e6]", "multiplies eta ||grad L||_q in the companion (4c) (paper: 1)")                \
    NUM(tol_ulps, 256.0, "[0, 1e15]", "relative tolerance of the comparisons in units of the context's roundoff") \
    NUM(K, 300, "int [1, 10000]", "steps per run (quick: K/4) (at most 10000: run length bound)")
LM_PARAMS(PARAMS)

typedef struct {
    double c1, c2, c3, tol_ulps, p;
    double sup_growth, sup_growth_y1; /* sup (x - y)/eta_k, all steps and y >= 1 */
} data_t;

/* sum max(|W1|, |W0|) |dTh| */
static void max_sum(lm_num *r, const lm_mat *W0, const lm_mat *W1, const lm_mat *dTh)
{
    lm_ctx c = lm_mat_ctx(W0);
    lm_num a, b, g;
    lm_num_inits(&c, &a, &b, &g, (lm_num *)NULL);
    lm_num_set_d(r, 0.0);
    for (int i = 0; i < W0->r; i++)
        for (int j = 0; j < W0->c; j++) {
            lm_mat_get(&a, W0, i, j);
            lm_mat_get(&b, W1, i, j);
            lm_mat_get(&g, dTh, i, j);
            lm_num_abs(&a, &a);
            lm_num_abs(&b, &b);
            lm_num_abs(&g, &g);
            lm_num_max(&a, &a, &b);
            lm_num_fma(r, &a, &g, r);
        }
    lm_num_clears(&a, &b, &g, (lm_num *)NULL);
}

static void obs(lm_mdobs_set *O, const lm_mdrun *R, const lm_mdpair *P, const lm_num *dL, void *vd)
{
    const data_t *dt = vd;
    const lm_ctx *c = &R->ctx;
    double tol = dt->tol_ulps * lm_ctx_eps(c), p = R->s.p;
    int k = R->k;
    if (!lm_num_iszero(&P->y)) {
        lm_num M, den;
        lm_num_inits(c, &M, &den, (lm_num *)NULL);
        max_sum(&M, R->W, P->W1, R->dTh);
        lm_num_mul_d(&den, &P->ypm1, p - 1.0); /* (p-1) y^(p-1) */
        int i = lm_mdobs_add(O, tol, "k=%d (4a): x-y <= eta sum max(|W1|,|W0|)|G| / ((p-1)y^(p-1))", k);
        lm_num_set(&O->lo[i], &P->dx);
        lm_num_div(&O->hi[i], &M, &den);
        lm_num_mul_d(&O->hi[i], &O->hi[i], dt->c1);
        if (lm_num_sgn(&P->dx) > 0) {
            i = lm_mdobs_add(O, tol, "k=%d (4b): RHS(4a) <= 2^(1/p) eta ||G||_q x / ((p-1)y^(p-1))", k);
            lm_num_div(&O->lo[i], &M, &den);
            lm_num_mul(&O->hi[i], &P->dqn, &P->x);
            lm_num_div(&O->hi[i], &O->hi[i], &den);
            lm_num_set_d(&M, 2.0);
            lm_num_set_d(&den, 1.0); /* 2^(1/p) with 1/p formed in the context */
            lm_num_div_d(&den, &den, p);
            lm_num_pow(&M, &M, &den);
            lm_num_mul(&O->hi[i], &O->hi[i], &M);
            lm_num_mul_d(&O->hi[i], &O->hi[i], dt->c2);
        }
        lm_num_clears(&M, &den, (lm_num *)NULL);
    }
    int i = lm_mdobs_add(O, tol, "k=%d (4c): x^(p-1)-y^(p-1) <= eta ||G||_q", k);
    lm_num_set(&O->lo[i], &P->dpm1);
    lm_num_mul_d(&O->hi[i], &P->dqn, dt->c3);
}

static void growth(data_t *dt, const lm_mdpair *P, double eta_k)
{
    double g = lm_num_get_d(&P->dx) / eta_k;
    if (g > dt->sup_growth) dt->sup_growth = g;
    if (lm_num_get_d(&P->y) >= 1.0 && dt->p >= 2.0 && g > dt->sup_growth_y1) dt->sup_growth_y1 = g;
}

static int hook(lm_eval *ev, const lm_mdrun *R, const lm_mdpair *P, const lm_num *dL, int failed,
                void *vd)
{
    data_t *dt = vd;
    double ek = lm_num_get_d(&R->eta_k);
    growth(dt, P, ek);
    double dx = lm_num_get_d(&P->dx);
    if (dx > 0) lm_series(ev, "||W(k+1)||_p - ||W(k)||_p", R->k, dx);
    if (lm_num_get_d(&P->y) > 0) {
        lm_num M;
        lm_num_init(&M, &R->ctx);
        max_sum(&M, R->W, P->W1, R->dTh);
        lm_series(ev, "bound (4a): c1 eta sum max(|W1|,|W0|)|G| / ((p-1) y^(p-1))", R->k,
                  dt->c1 * lm_num_get_d(&M) / ((R->s.p - 1.0) * lm_num_get_d(&P->ypm1)));
        lm_num_clear(&M);
    }
    lm_series(ev, "eta ||grad L||_q", R->k, lm_num_get_d(&P->dqn));
    double dp = lm_num_get_d(&P->dpm1);
    if (dp > 0) lm_series(ev, "||W(k+1)||^(p-1) - ||W(k)||^(p-1)", R->k, dp);
    return 0;
}

static int eval_pointwise(lm_eval *ev, double p, data_t *dt)
{
    lm_mdpoint q;
    lm_mdpoint_init(&q, ev, p, 1, LM_MDPAIR_W1 | LM_MDPAIR_DQN);
    int rc = lm_mdpoint_check(ev, &q, LM_MDRUN_R1, obs, dt, 1, "a null step (G = 0) was drawn");
    growth(dt, &q.P, lm_num_get_d(&q.eta));
    lm_measure(ev, "(x-y)/eta", dt->sup_growth);
    lm_measure(ev, "eta", lm_num_get_d(&q.eta));
    lm_measure(ev, "sign crossings", q.P.crossings);
    lm_mdpoint_clear(&q);
    return rc;
}

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    const cfg_t *cf = &cfgs[ev->config];
    data_t dt = {.c1 = prm.c1_scale, .c2 = prm.c2_scale, .c3 = prm.c3_scale,
                 .tol_ulps = prm.tol_ulps, .p = cf->s.p, .sup_growth = -INFINITY,
                 .sup_growth_y1 = -INFINITY};
    if (cf->pointwise) return eval_pointwise(ev, cf->s.p, &dt);
    lm_mdrun R;
    lm_mdcheck C = {.need = LM_MDPAIR_W1 | LM_MDPAIR_DQN, .obs = obs, .hook = hook, .data = &dt};
    lm_mdcheck_out o;
    int rc;
    if (lm_mdclaim_run(&rc, &R, &o, ev, &cf->s, "norm increments and eta ||grad L||_q", &C, NULL, NULL, NULL) < 0)
        return rc;
    lm_mdrun_measures(ev, &R, &o);
    lm_measure(ev, "sup (x-y)/eta", dt.sup_growth);
    if (dt.p >= 2.0 && isfinite(dt.sup_growth_y1)) lm_measure(ev, "C4 estimate: sup (x-y)/eta at y>=1", dt.sup_growth_y1);
    lm_measure(ev, "failing steps", o.nfail);
    lm_mdrun_free(&R);
    return rc;
}

static int search_in(int config) { return config >= 0 && config < NCFG && cfgs[config].pointwise; }

LM_CLAIM(claim_mirror_lemma4) = {
    .kind = LM_KIND_TRAJECTORY,
    .source = "main paper Lemma 4; proof in Appendix A.5",
    .origin = "reconstructed",
    .confidence = "low (exact display); the displayed inequalities are true",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .search_dim = 9,
    .search_in = search_in,
    .eval = eval,
};
