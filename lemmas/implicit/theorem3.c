/* lemmas/implicit/theorem3.c
 *
 * \claim{implicit/theorem3}{Implicit-bias rate of $W$ under joint training (proxies)}
 * \source{implicit-bias-self-attention, Theorem~3 (Section 4.2), reconstructed; norm growth Eq.~(58)}
 * \statement{Under Theorem~2's conditions (DM data, joint training by the update (13)) there is $t_0$
 *   such that for all $t\ge t_0$: $1-\langle W_t/\|W_t\|,W_{mm}/\|W_{mm}\|\rangle\le C_3/\log t$, the
 *   mechanism being $\|W_t\|=\Theta(\log t)$.}
 * \check{A rate claim with an unknown constant: only falsifiable proxies are checked (verdicts read
 *   consistent/inconsistent).  Each instance draws DM data ($n=8$, $T=2$, $d=\texttt{d}=100$,
 *   $\sigma=d^{-1/2}$, $\zeta=1.5$, random optimal index), solves the W-SVM for the designated optimal
 *   tokens in the working precision (infeasible: assumption-failed; solver failure: error) and runs the
 *   reconstructed joint update (13), $\theta_{t+1}=\theta_t-\eta\,\nabla\hat L(\theta_t)/((t+1)^{\alpha}\hat L(\theta_t))$,
 *   from $W_0=0$, $u_0=0$ with the exponential loss, $\eta=0.5\,\texttt{eta\_scale}$ and $\alpha=2/3$
 *   (run R4 of the catalogue) for $T_{\max}=\texttt{steps}=8192$ iterations (2048 when quick).  With
 *   $e^W_t=1-\cos(W_t,W_{mm})$ (cancellation-free) and dyadic blocks $B_k=[2^k,2^{k+1})$ from
 *   $2^k\ge\texttt{t\_fit0}=512$:
 *   (i) the least-squares slope of $\|W_t\|$ against $\log t$ on $[\texttt{t\_fit0},T_{\max}]$ is at
 *   least $\texttt{slope\_min}=0$ (the norm grows; the slope and $\|W_t\|/\log t$ are reported);
 *   (ii) $e^W_t\le C_3/\log t$ with $C_3$ read off the first block: the maximum of $e^W_t\log t$ over
 *   every later block $B_k$ is at most $\texttt{e\_decay}=1$ times its maximum over the first block
 *   (the catalogue's stronger ``$e^W_t\log t$ non-increasing block by block'' fails by a few per cent
 *   in some blocks at our small $d$, which does not contradict an $O(1/\log t)$ rate, so the bound
 *   reading is checked and the last value of $e^W_t\log t$ is reported; note that our window
 *   $[512,8192]$ at $d=100$ is shorter and lower-dimensional than the catalogue's R4, $d=600$,
 *   $t\le4\cdot10^4$, where the decay of $e^W_t$ was measured);
 *   (iii) $e^W_{T_{\max}}\le\texttt{e\_frac}\cdot e^W_{\texttt{t\_fit0}}$ with $\texttt{e\_frac}=1$
 *   ($e^W_t$ trends to 0).  The reading chosen is the catalogue's favoured $1/\log t$ rate; the
 *   alternative $\tilde O(t^{-1/3})$ reading is stronger and would be refuted by a slow decay, so the
 *   check is the weaker, safer one.  The logit gaps stay small (benign precision per the catalogue)
 *   and a wholly-MPFR rerun of thousands of joint steps with $d\times d$ matrices is prohibitively
 *   expensive at the default budget, so breaks are not replayed in MPFR (\texttt{no\_replay}).  The
 *   wrong-constant tests set $\texttt{slope\_min}=100$ (the norm cannot grow by 100 per unit of
 *   $\log t$ under step sizes $\eta t^{-2/3}$) and $\texttt{e\_decay}=0.1$; each must be inconsistent.}
 */
#include "lm_claim.h"
#include "lm_ib.h"
#include "lm_ibgen.h"
#include "lm_svm.h"
#include <math.h>
#include <stdlib.h>

static const char *const configs[] = {"R4 joint (13), eta=0.5, alpha=2/3", NULL};

static const lm_param_def params[] = {
    {"eta_scale", 1.0, "multiplier of the step size eta = 0.5 of (13)", NULL},
    {"alpha", 2.0 / 3.0, "time exponent alpha of (13)", NULL},
    {"slope_min", 0.0, "(i) required least-squares slope of ||W_t|| against log t", NULL},
    {"e_decay", 1.0, "(ii) allowed ratio of a later dyadic block max of e_t log t to the first block max", NULL},
    {"e_frac", 1.0, "(iii) allowed e_Tmax relative to e_t0", NULL},
    {"t_fit0", 512, "first iterate of the proxies", NULL},
    {"steps", 8192, "joint iterations T_max (quick: steps/4)", NULL},
    {"d", 100, "embedding dimension", NULL},
    {"n", 8, "number of sequences", NULL},
    {NULL, 0, NULL, NULL}};

static int eval(lm_eval *ev)
{
    const lm_ctx *c = ev->ctx;
    lm_rng *g = lm_eval_rng(ev);
    lm_ibgen_dm_opts o;
    lm_ibgen_dm_defaults(&o);
    o.d = lm_par_i(ev, "d");
    o.n = lm_par_i(ev, "n");
    lm_ibdata *D = lm_ibgen_dm(&o, g, c);
    int d = D->d;
    lm_mat *W0 = lm_mat_new(d, d, c), *Wmm = lm_mat_new(d, d, c);
    lm_ib_fwd *F = lm_ib_fwd_new(D);
    lm_ib_state *S = NULL;
    lm_svm_sol sol = {0};
    int rc = 0, steps = lm_par_i(ev, "steps"), t0 = lm_par_i(ev, "t_fit0");
    if (ev->quick) steps /= 4;
    if (t0 < 2) t0 = 2;
    if (steps < 4 * t0) steps = 4 * t0;
    double *e = malloc(sizeof(double) * (size_t)(steps + 1));
    double *nw = malloc(sizeof(double) * (size_t)(steps + 1));
    lm_num v;
    lm_num_init(&v, c);
    int src = lm_svm_w_claim(ev, &sol, D);
    if (src) {
        if (src < 0) rc = -1;
        goto out;
    }
    lm_svm_w_matrix(Wmm, &sol, D);
    lm_ib_opt_par p;
    lm_ib_opt_par_default(&p);
    p.loss = LM_IB_EXP;
    p.eta = 0.5 * lm_par(ev, "eta_scale");
    p.alpha = lm_par(ev, "alpha");
    const lm_ib_opt *opt = lm_ib_opt_find("joint13");
    S = lm_ib_state_new(W0, D->u);
    lm_series_axes(ev, "iteration t", "1 - cos(W_t, W_mm) and ||W_t||", 1);
    e[0] = 1.0;
    nw[0] = 0.0;
    int next = 1;
    for (int t = 0; t <= steps; t++) {
        if (t > 0) {
            lm_mat_frob(&v, S->W);
            nw[t] = lm_num_get_d(&v);
            e[t] = 1.0; /* W_1 = 0 since u_0 = 0: the direction is undefined until W moves */
            if (nw[t] > 0.0) {
                lm_ib_one_minus_cos(&v, S->W, Wmm);
                e[t] = lm_num_get_d(&v);
            }
            if (!isfinite(e[t]) || !isfinite(nw[t])) {
                rc = lm_fail(ev, "non-finite e_t or ||W_t|| at t=%d", t);
                goto out;
            }
            if ((t == next || t == steps) && nw[t] > 0.0) {
                lm_series(ev, "1 - cos(W_t, W_mm)", t, e[t]);
                lm_series(ev, "||W_t||", t, nw[t]);
                next = (int)ceil(next * 1.05);
            }
        }
        if (t < steps && opt->step(S, F, D, &p)) { rc = lm_fail(ev, "joint step failed at t=%d", t); goto out; }
    }
    /* (ii) e_t log t on later dyadic blocks bounded by its maximum on the first (C_3) */
    double dec = lm_par(ev, "e_decay"), first = -1.0;
    int kb = 0;
    for (int s0 = t0; 2 * s0 - 1 <= steps; s0 *= 2, kb++) {
        double m = 0.0;
        for (int t = s0; t < 2 * s0; t++) m = fmax(m, e[t] * log((double)t));
        if (first >= 0.0)
            lm_obs_le_d(ev, kb, m, dec * first, 0.0,
                        "(ii) max e_t log t on [%d,%d) <= e_decay * max on [%d,%d)", s0, 2 * s0, t0, 2 * t0);
        else
            first = m;
    }
    /* (i) slope of ||W_t|| against log t */
    double lx = 0, lxx = 0, lxy = 0, ly = 0;
    int m = 0;
    for (int t = t0; t <= steps; t++) {
        double z = log((double)t);
        lx += z; lxx += z * z; lxy += z * nw[t]; ly += nw[t];
        m++;
    }
    double mz = lx / m, bn = (lxy - m * mz * (ly / m)) / (lxx - m * mz * mz);
    lm_measure(ev, "slope of ||W_t|| vs log t", bn);
    lm_measure(ev, "||W_Tmax|| / log Tmax", nw[steps] / log((double)steps));
    lm_measure(ev, "e_t0", e[t0]);
    lm_measure(ev, "e_Tmax", e[steps]);
    lm_measure(ev, "e_Tmax log Tmax", e[steps] * log((double)steps));
    lm_measure(ev, "||W_Tmax||", nw[steps]);
    lm_measure(ev, "||W_mm||", sqrt(lm_num_get_d(&sol.norm2)));
    lm_obs_le_d(ev, -1, lm_par(ev, "slope_min"), bn, 0.0,
                "(i) slope_min <= slope of ||W_t|| vs log t on [%d,%d]", t0, steps);
    lm_obs_le_d(ev, -1, e[steps], lm_par(ev, "e_frac") * e[t0], 0.0, "(iii) e_%d <= e_frac e_%d", steps, t0);
out:
    lm_num_clear(&v);
    free(e);
    free(nw);
    if (S) lm_ib_state_free(S);
    lm_svm_sol_clear(&sol);
    lm_ib_fwd_free(F);
    lm_mat_free(W0);
    lm_mat_free(Wmm);
    lm_ibdata_free(D);
    return rc;
}

LM_CLAIM(claim_implicit_theorem3) = {
    .id = "implicit/theorem3",
    .title = "Joint training: 1 - cos(W_t, W_mm) = O(1/log t) (proxies)",
    .file = __FILE__,
    .kind = LM_KIND_RATE,
    .source = "Theorem 3 (Section 4.2)",
    .origin = "reconstructed",
    .confidence = "low",
    .params = params,
    .configs = configs,
    .inst_scale = 0.0625,
    .search_dim = 0,
    .proxy = 1,
    .no_replay = 1,
    .eval = eval,
};
