/* lemmas/pruning/theorem1-3.c
 *
 * \claim{pruning/theorem1.3}{Main result, informal: GD reaches $O(\xi+\varepsilon)$ in poly$/\varepsilon$ steps}
 * \source{attention-pruning, Theorem 1.3 (informal version of Theorem 4.1); reconstructed}
 * \statement{Under the hypotheses of Theorem 4.1, for every $\varepsilon>0$, GD with $\eta\le1/L$
 *   reaches within $T=O(L\,\mathcal L(M_0)/(\mu\varepsilon))$ iterations a mask with
 *   $\min_{t<T}\mathcal L(M_t)\le O(\xi+\varepsilon)$; moreover $\xi\to0$ as $\lambda\to0$.}
 * \check{Falsifiable proxies on the catalogue's grid (non-causal, $\lambda$ fixed per instance).
 *   (b) $\xi(\lambda)/\lambda$ is constant in the RECON form: the relative spread of
 *   $\log\xi(\lambda)-\log\lambda$ over $\lambda\in\{10^{-1},\dots,10^{-5}\}$ at the same $\delta$
 *   is below $10^{-12}$.  (c) $T_{\rm emp}(\varepsilon)=\min\{t:\mathcal L(M_t)\le\mathcal
 *   L^{*}+\varepsilon\}$ for $\varepsilon=10^{-4}\,2^{j/2}\,(\mathcal L(M_0)-\mathcal L^{*})$, $j=0,\dots,13$ (from
 *   about $10^{-2}$ down to $10^{-4}$, on a half-doubling grid) along GD with $\eta=1/\hat L$ (Hessian
 *   norm at the minimiser, so the run reaches the accuracies), $\mathcal L^{*}$ from GD + Newton
 *   polishing; the slope of $\log T_{\rm emp}$ against $\log(1/\varepsilon)$ is judged by the rate rule
 *   (\texttt{lm\_rate\_fit\_seq}) with the horizon $1/\varepsilon_{\min}$: fitted (least squares, 95\%
 *   $t$-interval) on the window $1/\varepsilon\in[1/(8\varepsilon_{\min}),1/\varepsilon_{\min}]$ (7 points; the
 *   larger $\varepsilon$ are the pre-asymptotic part) and again on
 *   $[1/(16\varepsilon_{\min}),1/(2\varepsilon_{\min})]$; slopes differing by more than
 *   $\max(\texttt{stab\_tol},2\sqrt{{\rm se}^2+{\rm se}_{1/2}^2})$ (\texttt{stab\_tol} $=0.05$): not-checkable
 *   (horizon too short); else the lower end of the interval must be
 *   $\le\texttt{slope\_max}+\texttt{slope\_tol}$ ($1+0$: the claimed $1/\varepsilon$); a run that does not
 *   reach the accuracies in 4000 steps is assumption-failed.
 *   (d) whether the bound is met at $t=0$ ($\mathcal L(M_0)\le\xi$) is measured.  Kind rate:
 *   verdicts consistent/inconsistent; \texttt{slope\_max} $=0.01$ must be inconsistent.
 *   Readings: \texttt{conclusion vs xi + eps} reads the paper and is vacuous on an instance with
 *   $\mathcal L(M_0)\le\xi$ (the conclusion holds at $t=0$); \texttt{rate vs L* + eps} is repaired: the
 *   same proxies with the accuracy measured against $\mathcal L^{*}+\varepsilon$.}
 */
#include "lm_claim.h"
#include "lm_prtraj.h"
#include "lm_stats.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const configs[] = {"conclusion vs xi + eps", "rate vs L* + eps", NULL};

static const lm_param_def params[] = {
    LM_PRT_COEF_PARAMS,
    {"slope_max", 1.0, "largest admissible slope of log T_emp vs log(1/eps) (the exponent of 1/eps in T)", NULL,
     "exponent [-100, 100]"},
    {"slope_tol", 0.0, "(c) inconsistent when the slope's 95% CI lies more than slope_tol above slope_max", NULL,
     "setting [0, 10]"},
    {"stab_tol", 0.05, "(c) the slopes on the two windows of the rate rule may always differ by this much", NULL,
     "setting [0, 10]"},
    {NULL, 0, NULL, NULL, NULL}};

static int eval(lm_eval *ev)
{
    lm_rng g;
    lm_rng_init(&g, lm_hash_u64(ev->seed, 13));
    lm_prt_spec s;
    lm_prt_spec_grid(&s, 0, &g);
    s.n = 2 + ev->index % 2;
    s.d = 4;
    lm_prt_coefs k;
    lm_prt_coefs_read(&k, ev);
    const lm_ctx *c = ev->ctx;
    lm_mat *M0 = NULL;
    lm_prdata *P = lm_prt_build(&s, ev->seed, c, &M0);
    lm_prt_consts K;
    int rc = 0;
    lm_prt_run r;
    memset(&r, 0, sizeof r);
    lm_mat *Ms = lm_mat_new(s.d, s.d, c);
    lm_num Ls;
    lm_num_init(&Ls, c);
    lm_prfwd *F = lm_pr_fwd_new(P);
    if (lm_prt_consts_eval(&K, P, s.R, 0.0, &k)) { rc = lm_fail(ev, "beta eigensolver failed"); goto out; }
    if (!lm_assume(ev, K.log_beta > -HUGE_VAL, "A1 fails: beta = 0")) goto out;
    lm_pr_forward(F, P, M0);
    double ld = lm_prt_log_delta(F, P);
    /* (b) xi(lambda)/lambda constant */
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (int q = 1; q <= 5; q++) {
        double lam = pow(10.0, -q);
        lm_prt_consts_delta(&K, P, lam, ld, &k);
        lo = fmin(lo, K.log_xi - log(lam));
        hi = fmax(hi, K.log_xi - log(lam));
    }
    lm_obs_le_d(ev, -1, hi - lo, 1e-12 * fmax(1.0, fabs(hi)), 0.0, "(b) xi(lambda)/lambda constant");
    lm_prt_consts_delta(&K, P, s.lambda, ld, &k);
    /* L* and the step */
    double tol = c->backend == LM_DOUBLE ? 1e-9 : 1e-25;
    if (lm_pr_minimise(&Ls, Ms, P, M0, 300, tol)) { rc = lm_fail(ev, "Newton polishing failed"); goto out; }
    double Lhat;
    {
        lm_ctx cd = lm_ctx_double();
        lm_prdata *Pd = lm_pr_convert(P, &cd);
        lm_mat *Msd = lm_mat_new(s.d, s.d, &cd);
        double *a = lm_xmalloc(sizeof(double) * (size_t)(s.d * s.d));
        lm_mat_get_array(a, Ms);
        lm_mat_set_array(Msd, a);
        free(a);
        int e = lm_prt_Lhat(&Lhat, Pd, Msd);
        lm_mat_free(Msd);
        lm_pr_free(Pd);
        if (e) { rc = lm_fail(ev, "Hessian norm failed"); goto out; }
    }
    lm_prt_gd(&r, P, M0, 1.0 / Lhat, 4000, -1, 0, 0.0, NULL, NULL);
    if (r.nonfinite >= 0) { rc = lm_fail(ev, "non-finite loss"); goto out; }
    double Lstar = lm_num_get_d(&Ls), L0 = lm_num_get_d(&r.L[0]);
    lm_measure(ev, "flag: bound met at t=0 (L(M0) <= xi)", log(L0) <= K.log_xi);
    /* the paper's conclusion is min_t L(M_t) <= O(xi + eps): met at t = 0 when L(M0) <= xi, so
     * the rate in eps says nothing about it (config 1 measures the rate against L* + eps instead) */
    if (ev->config == 0 && log(L0) <= K.log_xi)
        lm_vacuous(ev, "L(M0) = %.4g <= xi (log10 xi = %.4g): the conclusion min_t L(M_t) <= O(xi + eps) "
                   "holds at t = 0 with T = 0 steps", L0, K.log_xi / M_LN10);
    lm_measure(ev, "log10 xi", K.log_xi / M_LN10);
    /* accuracies eps = 1e-4 (L0 - L*) 2^(j/2), j = 13..0 (from about 1e-2 down to 1e-4, as before, on a
     * half-doubling grid so that the rate rule has 7 points in each window) */
    enum { NE = 14 };
    double xs[NE], ys[NE];
    for (int q = 0; q < NE; q++) {
        double eps = 1e-4 * pow(2.0, 0.5 * (NE - 1 - q)) * (L0 - Lstar);
        int te = -1;
        for (int t = 0; t <= r.T; t++)
            if (lm_num_get_d(&r.L[t]) - Lstar <= eps) { te = t; break; }
        if (!lm_assume(ev, te >= 0, "GD did not reach L* + eps (eps=%g) in %d steps", eps, r.T)) goto out;
        xs[q] = 1.0 / eps;
        ys[q] = log(te > 0 ? (double)te : 1.0);
        lm_series(ev, "T_emp(eps)", 1.0 / eps, te > 0 ? te : 1);
    }
    /* the rate rule of lm_stats.h in the horizon 1/eps: log T_emp against log(1/eps) on
     * [1/(8 eps_min), 1/eps_min], stable against [1/(16 eps_min), 1/(2 eps_min)] */
    lm_rate_fit rf;
    lm_rate_fit_seq(&rf, xs, ys, NE, lm_par(ev, "slope_max"), -1, lm_par(ev, "slope_tol"), 0.95,
                    lm_par(ev, "stab_tol"));
    lm_rate_judge(ev, &rf, "(c) log T_emp vs log(1/eps)");
    lm_series_axes(ev, "1/eps", "T_emp", 1);
out:
    lm_pr_fwd_free(F);
    lm_num_clear(&Ls);
    lm_mat_free(Ms);
    if (r.L) lm_prt_run_free(&r);
    lm_mat_free(M0);
    lm_pr_free(P);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Non-causal, n in {2, 3}, d = 4: xi(lambda)/lambda constant and the slope of "
                    "log T_emp vs log(1/eps) at most 1; vacuous when L(M0) <= xi already at t = "
                    "0.", NULL},
    {LM_READ_REPAIRED, "accuracy measured against L* + eps (the minimum found by GD + Newton) instead of "
                       "xi + eps: the rate in 1/eps without the xi term, which already holds at t = 0", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_theorem1_3) = {
    .kind = LM_KIND_RATE,
    .source = "Theorem 1.3 (informal version of Theorem 4.1)",
    .origin = "reconstructed (RECON constant: mu_coef, U_coef, U_exp_n, xi_scale)",
    .confidence = "medium (form); low (constants)",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.125,
    .proxy = 1,
    .no_replay = 1,
    .eval = eval,
};
