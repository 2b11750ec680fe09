/* lemmas/mirror/lemma22.c
 *
 * \claim{mirror/lemma22}{Norm growth of $\ell_p$-AttGD is driven by the gradient correlation}
 * \source{mirror-descent-attention, Appendix A.4, Lemma 22 (formulas reconstructed from the
 *   proof skeleton: inner product of the update with $W(k)$, then H\"older)}
 * \statement{For the $\ell_p$-AttGD sequence with $W(k)\ne0$,
 *   $\|W(k+1)\|_p^{p-1}\ge\|W(k)\|_p^{p-1}+\eta\,\langle-\nabla\mathcal L(W(k)),W(k)\rangle/\|W(k)\|_p$.
 *   It holds for every $\eta>0$ and every matrix $G$ in place of $\nabla\mathcal L(W(k))$;
 *   equality iff $W(k+1)\propto W(k)$.}
 * \check{With $\Theta=\nabla\psi(W)$ and the update $\Delta\Theta=-\eta\nabla\mathcal L(W(k))$
 *   (for the normalised runs $\eta_k=\eta/(\|\nabla\mathcal L\|_q+2^{-52})$ in place of $\eta$),
 *   both sides are compared as increments over $\|W(k)\|_p^{p-1}=\|\Theta(k)\|_q$:
 *   $c\,\langle\Delta\Theta,W(k)\rangle/\|W(k)\|_p\le\|\Theta(k)+\Delta\Theta\|_q-\|\Theta(k)\|_q$,
 *   the right side formed entrywise as $\|\Theta\|_q\,\mathrm{expm1}(\mathrm{log1p}(S/\|\Theta\|_q^q)/q)$
 *   with $S=\sum|\theta|^q\,\mathrm{expm1}(q\,\mathrm{log1p}(\Delta\theta/\theta))$ (never a
 *   difference of two rounded norms); $c$ is \texttt{c\_scale} (paper: 1) and the comparison
 *   carries a relative tolerance of \texttt{tol\_ulps} units of the context's roundoff (the
 *   inequality is an equality for radial steps).  Configurations: runs R1 (a start in the
 *   Bregman cone $D_\psi(\bar W_{mm},\bar W(0))\in\{\mu_0,10^{-3},10^{-2}\}$ at radius
 *   $\{2,3,5\}\|W_{mm}\|_p$, data $(n,T,d)=(3,4,4)$, every eighth instance $(6,8,10)$;
 *   unnormalised steps, $\eta=1$) for $p\in\{1.5,2,3\}$; R2 (the paper's normalised runs,
 *   $n=6$, $T=8$, $d=10$, $W(0)_{ab}\sim N(0,1)$, $\eta=0.1$) for $p\in\{1.75,3\}$; R3 (zero
 *   start, unnormalised, $\eta=0.1$; step 0 is skipped since $W(0)=0$) for $p\in\{4,10\}$;
 *   each run has \texttt{K} steps (300; 75 in quick mode).  The states are generated in
 *   double exactly as \texttt{lm\_md\_step} does; each step is evaluated in double and every
 *   step not decided by a relative margin of $2^{-30}$ is evaluated again at the same state in
 *   the context (an MPFR replay at 256 bits then decides).  The pointwise form (any $G$) has
 *   four configurations $p\in\{1.01,1.5,3,6\}$: random $(W,G,\eta)$ with mixed signs, exact
 *   zeros, entries over four decades, $G$ free, radial or overshooting so that entries of
 *   $\Theta$ change sign, $\eta\in[10^{-3},10]$, sizes $1\times1$ to $3\times3$, plus
 *   Nelder--Mead restarts on $2\times2$ instances maximising the ratio, all computed in the
 *   context.  The report gives the minimal normalised slack
 *   $(\mathrm{LHS}-\mathrm{RHS})/(\eta|\langle G,W\rangle|/\|W\|_p)$ per run.  Readings: every configuration is a \texttt{paper} reading (the statement as the catalogue reconstructs it).}
 */
#include "lm_mdclaim.h"
#include <math.h>
#include <stdio.h>

typedef struct {
    const char *name;
    int pointwise; /* 1: any G, one step */
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
    {"pointwise,p=1.5", 1, {LM_MDRUN_R1, 1.5, 0, 0}},
    {"pointwise,p=3", 1, {LM_MDRUN_R1, 3.0, 0, 0}},
    {"pointwise,p=6", 1, {LM_MDRUN_R1, 6.0, 0, 0}},
};
#define NCFG ((int)(sizeof cfgs / sizeof cfgs[0]))

static const char *const configs[] = {
    "R1,p=1.5,eta=1", "R1,p=2,eta=1", "R1,p=3,eta=1", "R2,p=1.75,normalised,eta=0.1",
    "R2,p=3,normalised,eta=0.1", "R3,p=4,eta=0.1", "R3,p=10,eta=0.1", "pointwise,p=1.01",
    "pointwise,p=1.5", "pointwise,p=3", "pointwise,p=6", NULL};
/* one reading per configuration (issue 16) */
static const lm_reading readings[] = {
    {LM_READ_PAPER, "R1 run at p = 1.5 (cone start at radius 2..5 ||W_mm||_p, data (3,4,4), "
                    "constant step eta = 1): the norm-growth inequality at every step below the "
                    "Euclidean case.", NULL},
    {LM_READ_PAPER, "R1 run at p = 2 (cone start at radius 2..5 ||W_mm||_p, data (3,4,4), constant "
                    "step eta = 1): the norm-growth inequality at every step with the Euclidean "
                    "potential.", NULL},
    {LM_READ_PAPER, "R1 run at p = 3 (cone start at radius 2..5 ||W_mm||_p, data (3,4,4), constant "
                    "step eta = 1): the norm-growth inequality at every step at the paper's "
                    "largest exponent.", NULL},
    {LM_READ_PAPER, "R2, the paper's normalised run at p = 1.75 (data (6,8,10), Gaussian start, "
                    "eta = 0.1): the norm-growth inequality at every step of the paper's own "
                    "experiment.", NULL},
    {LM_READ_PAPER, "R2, the paper's normalised run at p = 3 (data (6,8,10), Gaussian start, eta = "
                    "0.1): the norm-growth inequality at every step of the paper's own experiment.",
     NULL},
    {LM_READ_PAPER, "R3, zero start at p = 4, unnormalised step eta = 0.1: the norm-growth "
                    "inequality from the first nonzero iterate, a large exponent.", NULL},
    {LM_READ_PAPER, "R3, zero start at p = 10, unnormalised step eta = 0.1: the norm-growth "
                    "inequality at the largest exponent of the runs.", NULL},
    {LM_READ_PAPER, "Pointwise form at p = 1.01, next to l_1: random (W, G, eta), G free, radial "
                    "or sign-flipping, eta in [1e-3,10], plus 2x2 searches; the inequality for any "
                    "G.", NULL},
    {LM_READ_PAPER, "Pointwise form at p = 1.5, below the Euclidean case: random (W, G, eta), G "
                    "free, radial or sign-flipping, eta in [1e-3,10], plus 2x2 searches; the "
                    "inequality for any G.", NULL},
    {LM_READ_PAPER, "Pointwise form at p = 3, the paper's largest exponent: random (W, G, eta), G "
                    "free, radial or sign-flipping, eta in [1e-3,10], plus 2x2 searches; the "
                    "inequality for any G.", NULL},
    {LM_READ_PAPER, "Pointwise form at p = 6, a large exponent: random (W, G, eta), G free, radial "
                    "or sign-flipping, eta in [1e-3,10], plus 2x2 searches; the inequality for any "
                    "G.", NULL},
    LM_READINGS_END};


#define PARAMS(NUM, SWITCH)                                                                                      \
    NUM(c_scale, 1.0, "[0, 1e6]", "multiplies eta <-grad L, W>/||W||_p on the right side (paper: 1)")            \
    NUM(tol_ulps, 256.0, "[0, 1e15]", "relative tolerance of the comparison in units of the context's roundoff") \
    NUM(K, 300, "int [1, 10000]", "steps per run (quick: K/4) (at most 10000: run length bound)")
LM_PARAMS(PARAMS)

typedef struct {
    double c, tol_ulps;
    double min_slack; /* min (hi - lo)/|lo| */
    int nobs;
} data_t;

/* c <dTh, W0>/||W0||_p <= ||W1||^(p-1) - ||W0||^(p-1) */
static void obs(lm_mdobs_set *O, const lm_mdrun *R, const lm_mdpair *P, const lm_num *dL, void *vd)
{
    const data_t *dt = vd;
    if (lm_num_iszero(&P->y)) return; /* W(k) = 0: the lemma says nothing */
    int i = lm_mdobs_add(O, dt->tol_ulps * lm_ctx_eps(&R->ctx), "k=%d: ||W(k+1)||^(p-1) >= ||W(k)||^(p-1) + eta<-G,W>/||W||", R->k);
    lm_num_div(&O->lo[i], &P->corr, &P->y);
    lm_num_mul_d(&O->lo[i], &O->lo[i], dt->c);
    lm_num_set(&O->hi[i], &P->dpm1);
}

static void slack_of(data_t *dt, const lm_mdpair *P)
{
    double lo = lm_num_get_d(&P->corr) / lm_num_get_d(&P->y), hi = lm_num_get_d(&P->dpm1);
    if (lo != 0.0) {
        double s = (hi - dt->c * lo) / fabs(lo);
        if (dt->nobs == 0 || s < dt->min_slack) dt->min_slack = s;
        dt->nobs++;
    }
}

static int hook(lm_eval *ev, const lm_mdrun *R, const lm_mdpair *P, const lm_num *dL, int failed,
                void *vd)
{
    data_t *dt = vd;
    if (lm_num_iszero(&P->y)) return 0;
    slack_of(dt, P);
    double lo = lm_num_get_d(&P->corr) / lm_num_get_d(&P->y), hi = lm_num_get_d(&P->dpm1);
    if (hi > 0) lm_series(ev, "||W(k+1)||^(p-1) - ||W(k)||^(p-1)", R->k, hi);
    if (lo > 0) lm_series(ev, "bound: c eta <-grad L, W(k)> / ||W(k)||", R->k, dt->c * lo);
    if (lo != 0.0) lm_series(ev, "normalised slack (LHS-RHS)/|RHS-||W(k)||^(p-1)|", R->k,
                             fmax((hi - dt->c * lo) / fabs(lo), 1e-300));
    lm_series(ev, "||W(k)||_p", R->k, lm_num_get_d(&P->y));
    return 0;
}

static int eval_pointwise(lm_eval *ev, double p, data_t *dt)
{
    lm_mdpoint q;
    lm_mdpoint_init(&q, ev, p, 1, 0);
    int rc = 0;
    if (lm_num_iszero(&q.P.y)) {
        lm_assume(ev, 0, "W = 0 drawn (the lemma needs W(k) != 0)");
    } else {
        rc = lm_mdpoint_check(ev, &q, LM_MDRUN_R1, obs, dt, 1, "G = 0 drawn: a null step");
        slack_of(dt, &q.P);
        lm_measure(ev, "normalised slack", dt->min_slack);
        lm_measure(ev, "eta", lm_num_get_d(&q.eta));
        lm_measure(ev, "sign crossings", q.P.crossings);
    }
    lm_mdpoint_clear(&q);
    return rc;
}

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    const cfg_t *cf = &cfgs[ev->config];
    data_t dt = {.c = prm.c_scale, .tol_ulps = prm.tol_ulps};
    if (cf->pointwise) return eval_pointwise(ev, cf->s.p, &dt);
    lm_mdrun R;
    lm_mdcheck C = {.need = 0, .need_dL = 0, .obs = obs, .hook = hook, .data = &dt};
    lm_mdcheck_out o;
    int rc;
    if (lm_mdclaim_run(&rc, &R, &o, ev, &cf->s, "increments of ||W||^(p-1), their bound, normalised slack", &C,
                       NULL, NULL, NULL) < 0)
        return rc;
    lm_mdrun_measures(ev, &R, &o);
    lm_measure(ev, "min normalised slack", dt.min_slack);
    lm_measure(ev, "failing steps", o.nfail);
    lm_mdrun_free(&R);
    return rc;
}

static int search_in(int config) { return config >= 0 && config < NCFG && cfgs[config].pointwise; }

LM_CLAIM(claim_mirror_lemma22) = {
    .kind = LM_KIND_TRAJECTORY,
    .source = "Appendix A.4, Lemma 22",
    .origin = "reconstructed",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .search_dim = 9,
    .search_in = search_in,
    .eval = eval,
};
