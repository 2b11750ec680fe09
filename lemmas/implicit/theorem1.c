/* lemmas/implicit/theorem1.c
 *
 * \claim{implicit/theorem1}{IB rate of NGD with a fixed decoder (informal)}
 * \source{implicit-bias-self-attention, Theorem 1 (Section 3.1), Eq.~(5)}
 * \statement{Under Lemma~4's small initialisation, Assumptions~1--2 and NGD~(4),
 *   $W_{t+1}=W_t-\eta\nabla\hat L(W_t)/\|\nabla\hat L(W_t)\|$ with $u$ fixed, there are
 *   $t_0$ and $C_{T1}$ (polynomial in $\|W_{mm}\|$, $D$, $\eta^{\pm1}$, $\|W_0\|$) such that
 *   for all $t\ge t_0$:
 *   $1-\langle W_t/\|W_t\|,W_{mm}/\|W_{mm}\|\rangle\le C_{T1}\log t/t$ (the log power may be 2).}
 * \check{Rate claim with unknown constants: only the catalogue's proxies are checked
 *   (verdicts read consistent/inconsistent).  Each instance draws Example-1-like
 *   heterogeneous data ($n=6$, $T=4$, $d=\texttt{d}=40$, $u=3e_1$, $\sigma=d^{-1/2}$; it
 *   satisfies Assumption~2 exactly), the Lemma-4 initialisation $\sigma_0=0.01/d$, solves the
 *   W-SVM in the working precision (certified by the solver; an infeasible SVM is
 *   assumption-failed), and runs NGD with $\eta=\texttt{eta}=0.5$ for
 *   $T_{\max}=\texttt{steps}=2000$ iterations (also when quick; quick draws fewer instances) with the cancellation-free
 *   scaled gradient of the model code.  The alignment error
 *   $e_t=\tfrac12\|\bar W_t-\bar W_{mm}\|^2$ is computed without cancellation.
 *   (P1) rate, by the project's rate rule (\texttt{lm\_rate\_fit\_seq}): the least-squares slope $b$ of
 *   $\log e_t$ against $\log t$ on the asymptotic window $t\in[T/8,T]$ ($T$ the horizon, the
 *   transient before $T/8$ discarded) is fitted again on $[T/16,T/2]$; the fit is stable when the
 *   two slopes differ by at most $\max(\texttt{slope\_tol},2\sqrt{s_b^2+s_{b,1/2}^2})$.  An
 *   unstable fit runs the same trajectory on to $2T$ (never past the bound 2000 of
 *   \texttt{steps}; P2 and P4 stay at $T_{\max}$) and is refitted; still unstable, the instance is
 *   not-checkable (``horizon too short''), never inconsistent.  A stable fit is inconsistent when
 *   its 95\% confidence interval lies above the claimed slope $-\texttt{rate}$ by more than
 *   $\texttt{slope\_tol}$, with $\texttt{rate}=1$ (the claimed exponent of $\log t/t$) and
 *   $\texttt{slope\_tol}=0.1$: one-sided, since the bound is an upper bound.  Reported: the slopes
 *   on both windows, the standard error and the horizon used.
 *   (P2) envelope: $\sup_{t\in[T_{\max}/10,T_{\max}]}t\,e_t/\log^{k}t\le1.05\,
 *   \sup_{t\in[T_{\max}/100,T_{\max}/10]}t\,e_t/\log^kt$ with $k=\texttt{log\_power}=1$
 *   (the printed power; the catalogue's derived $k=2$ is looser).
 *   (P4) global convergence: $e_{T_{\max}}\le\texttt{e\_final}=10^{-3}$, compared in the
 *   working precision.  Configurations: \texttt{EX1-hetero} and \texttt{EX1-antipodal}
 *   (optimal tokens without noise, Fig.~5).  A break is rerun wholly in MPFR.  The
 *   wrong-constant test sets $\texttt{rate}=3$ (a $t^{-3}$ rate, faster than the measured
 *   $t^{-2}$), which must be inconsistent.
 *   Readings: \texttt{EX1-hetero} is a probe (its data miss A1-derived, so Assumption~1 is not met and
 *   the catalogue counts a failure there as outside the hypotheses), and so is \texttt{EX1-antipodal}
 *   (footnote~5 covers the antipodal optimal tokens, but the other tokens of these $d=40$ data miss
 *   A1-derived too); \texttt{A1 data} (switch \texttt{data}$=$\texttt{a1}: EX1 homogeneous, $n=2$, $T=2$, $\mu=0.1$, $d=256$, each
 *   instance gated on A1-derived and Assumption~2, an instance that misses them is assumption-failed) reads
 *   the paper, with the printed power $k=\texttt{log\_power}=1$ of $\log t/t$ in (P2).  The repaired
 *   configuration (the last one, $\log^2t/t$) uses the catalogue's derived power $k=2$.}
 */
#include "lm_claim.h"
#include "lm_attn.h"
#include "lm_ibgen.h"
#include "lm_stats.h"
#include "lm_svm.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const configs[] = {"EX1-hetero", "EX1-antipodal", "A1 data: EX1 n=2, T=2, d=256",
                                      "A1 data, log^2 t / t", NULL};

#define PARAMS(NUM, SWITCH)                                                                                                                                                                                                                                    \
    NUM(rate, 1.0, "exponent [-1e3, 1e3]", "claimed exponent p of e_t <= C log^k t / t^p (1 = the claim)")                                                                                                                                                     \
    NUM(slope_tol, 0.1, "[0, 1e3]", "P1: tolerance on the fitted slope of log e_t vs log t on [T/8, T], and the drift allowed when the horizon doubles")                                                                                                       \
    NUM(log_power, 1.0, "exponent [-1e3, 1e3]", "power k of log t in the envelope proxy P2 (1 = as printed; 2 = the catalogue's derivation)")                                                                                                                  \
    NUM(env_tol, 0.05, "[0, 1e6]", "allowed growth of the normalised envelope over the last decade")                                                                                                                                                           \
    NUM(e_final, 1e-3, "[0, 2]", "required alignment error at T_max (P4)")                                                                                                                                                                                     \
    NUM(eta, 0.5, "(0, 1e3]", "NGD step size")                                                                                                                                                                                                                 \
    NUM(steps, 2000, "int [1, 2000]", "NGD iterations T_max (at most 2000, the default: run length bound; the paper configuration's d = 256 run costs about 5 ms a step, several times that under ASan); an unstable P1 fit doubles the run up to that bound") \
    NUM(d, 40, "int [1, 80]", "embedding dimension of the EX1-hetero data (at most 80: run time bound)")                                                                                                                                                       \
    SWITCH(data, 0, "ex1|a1", "EX1 data: heterogeneous (n=6, T=4, d; outside A1-derived), or homogeneous n=2, T=2, mu=0.1, d=256 gated on A1-derived and Assumption 2 (configurations 3-4)")
LM_PARAMS(PARAMS)

/* the upper end of the range of `steps` (the run-length bound), 0 when unbounded */
static int steps_max(const lm_eval *ev)
{
    for (const lm_param_def *q = ev->claim->params; q->name; q++) {
        lm_range r;
        if (!strcmp(q->name, "steps") && !lm_param_range(&r, q) && isfinite(r.hi)) return (int)r.hi;
    }
    return 0;
}

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    const lm_ctx *c = ev->ctx;
    lm_rng *g = lm_eval_rng(ev);
    lm_ibgen_ex1_opts o;
    const int a1 = lm_int(P.data) == 1;
    lm_ibgen_ex1_defaults(&o, !a1);
    o.d = a1 ? 256 : lm_int(P.d);
    if (a1) o.n = 2, o.T = 2, o.mu = 0.1, o.sigma = -1.0;
    o.antipodal = ev->config == 1;
    lm_attn_data *D = lm_ibgen_ex1(&o, g, c);
    lm_mat *W0 = lm_ibgen_w0(D->d, 0.0, g, c);
    lm_mat *Wmm = lm_mat_new(D->d, D->d, c);
    lm_attn_fwd *F = lm_attn_fwd_new(D);
    lm_attn_state *S = NULL;
    lm_svm_sol sol = {0};
    int rc = 0, steps = lm_int(P.steps);
    if (steps < 100) steps = 100;
    /* P1 may run the same trajectory on to twice the horizon, up to the range's bound */
    const int smax = steps_max(ev) > steps ? steps_max(ev) : steps;
    double *le = lm_xmalloc(sizeof(double) * (size_t)(smax + 1));
    double *tt = lm_xmalloc(sizeof(double) * (size_t)(smax + 1));
    lm_num e, b;
    lm_num_inits(c, &e, &b, (lm_num *)NULL);
    if (a1) {
        double a1r = 0.0;
        const int m = lm_ibgen_assumptions(&a1r, D, 1.0, c);
        lm_measure(ev, "A1-derived ratio", a1r);
        if (!lm_assume(ev, m >= 0 && (m & 3) == 3, "Assumptions 1 (A1-derived, ratio %.3g) / 2 fail", a1r))
            goto out;
    }
    int src = lm_svm_w_claim(ev, &sol, D);
    if (src) {
        if (src < 0) rc = -1;
        goto out;
    }
    lm_svm_w_matrix(Wmm, &sol, D);
    lm_attn_opt_par p;
    lm_attn_opt_par_default(&p);
    p.eta = P.eta;
    const lm_attn_opt *opt = lm_attn_opt_find("ngd");
    S = lm_attn_state_new(W0, D->u);
    lm_series_axes(ev, "iteration t", "1 - cos(W_t, W_mm)", 1);
    int next = 1;
    for (int t = 0; t <= steps; t++) {
        lm_attn_one_minus_cos(&e, S->W, Wmm);
        le[t] = log(lm_num_get_d(&e));
        if (!isfinite(le[t]) && t > 0) { rc = lm_fail(ev, "non-finite e_t at t=%d", t); goto out; }
        if (t == next || t == steps) {
            lm_series(ev, "1 - cos(W_t, W_mm)", t, exp(le[t]));
            next = (int)ceil(next * 1.05);
        }
        if (t < steps && opt->step(S, F, D, &p)) { rc = lm_fail(ev, "NGD step failed at t=%d", t); goto out; }
    }
    int t0 = steps / 100 > 1 ? steps / 100 : 1;
    /* P2: envelope t e_t / log^k t */
    double k = P.log_power, sup1 = -INFINITY, sup2 = -INFINITY;
    for (int t = t0 > 2 ? t0 : 2; t <= steps; t++) {
        double v = log((double)t) + le[t] - k * log(log((double)t));
        if (t < steps / 10) sup1 = fmax(sup1, v); else sup2 = fmax(sup2, v);
    }
    lm_measure(ev, "sup t e_t/log^k t, last decade", exp(sup2));
    lm_obs_le_d(ev, -1, exp(sup2), exp(sup1) * (1.0 + P.env_tol), 0.0,
                "P2: normalised envelope of the last decade vs the previous one");
    /* P4: e_T <= e_final, in the working precision */
    lm_attn_one_minus_cos(&e, S->W, Wmm);
    lm_num_set_d(&b, P.e_final);
    lm_measure(ev, "e_Tmax", lm_num_get_d(&e));
    lm_measure(ev, "||W_mm||", sqrt(lm_num_get_d(&sol.norm2)));
    lm_obs_le(ev, -1, &e, &b, 0.0, "P4: e_T <= e_final at T = %d", steps);
    /* P1: the rate rule of lm_stats.h on log e_t against log t, window [T/8, T]; a fit that
     * moves when the horizon doubles runs the same trajectory on to 2T (within the range of
     * `steps`), else the instance is not checkable */
    const double rate = P.rate, tol = P.slope_tol;
    lm_rate_fit fit;
    int T = steps;
    for (;;) {
        for (int t = 1; t <= T; t++) tt[t] = t;
        lm_rate_fit_seq(&fit, tt + 1, le + 1, T, -rate, -1, tol, 0.95, tol);
        if (fit.decision != LM_RATE_TOO_SHORT || 2 * T > smax) break;
        for (int t = T; t < 2 * T; t++) {
            if (opt->step(S, F, D, &p)) { rc = lm_fail(ev, "NGD step failed at t=%d", t); goto out; }
            lm_attn_one_minus_cos(&e, S->W, Wmm);
            le[t + 1] = log(lm_num_get_d(&e));
            if (!isfinite(le[t + 1])) { rc = lm_fail(ev, "non-finite e_t at t=%d", t + 1); goto out; }
        }
        T *= 2;
    }
    lm_measure(ev, "P1 horizon T of the fit", T);
    lm_rate_judge(ev, &fit, "P1 log e_t vs log t (claim: slope <= -rate)");
out:
    lm_num_clears(&e, &b, (lm_num *)NULL);
    free(le);
    free(tt);
    if (S) lm_attn_state_free(S);
    lm_svm_sol_clear(&sol);
    lm_attn_fwd_free(F);
    lm_mat_free(W0); lm_mat_free(Wmm);
    lm_attn_data_free(D);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PROBE, "Example-1-like heterogeneous data at d=40, outside A1-derived: Assumption 1 is not met (the catalogue counts a failure there as outside the hypotheses)", NULL},
    {LM_READ_PROBE, "antipodal optimal tokens (footnote 5) on heterogeneous d=40 data whose other tokens miss A1-derived: outside Assumption 1", NULL},
    {LM_READ_PAPER,
     "Paper setting on A1 data (EX1 homogeneous n = 2, T = 2, mu = 0.1, d = 256, NGD eta = 0.5, "
     "1000 steps): fitted slope of log e_t at most -1, envelope by log t/t, and e_T <= 1e-3.",
     "data=a1,steps=1000"},
    {LM_READ_REPAIRED, "envelope P2 normalised by log^2 t / t (the catalogue's derivation from the proof skeleton) instead of the printed log t / t", "data=a1,log_power=2,steps=1000"},
    LM_READINGS_END};

LM_CLAIM(claim_implicit_theorem1) = {
    .kind = LM_KIND_RATE,
    .source = "Theorem 1 (Section 3.1), Eq. (5)",
    .origin = "reconstructed",
    .confidence = "medium",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.125,
    .search_dim = 0,
    .proxy = 1,
    /* a fitted exponent over a whole run: rounding moves it far less than its standard error,
     * and replaying the run in MPFR-256 takes minutes (a break is judged in double) */
    .no_replay = 1,
    .eval = eval,
};
