/* lemmas/implicit/lemma1.c
 *
 * \claim{implicit/lemma1}{Softmax score rate (sparsification) under NGD}
 * \source{implicit-bias-self-attention, Lemma 1 (Section 3.1)}
 * \statement{Under Theorem~1's conditions there is $t_1$ such that for all $t\ge t_1$ and
 *   $i\in[n]$: $1-s^{(t)}_{i,\mathrm{opt}_i}\le(T-1)\exp\big(-c_1\eta t/(D\|W_{mm}\|^2)\big)$
 *   (reconstructed; the paper's $c_1$ is lost, the derived value is $c_1=\tfrac12$ with an
 *   initialisation term $\|W_0\|/(2\|W_{mm}\|)$ added to the exponent's bound, valid once
 *   $D\|\bar W_t-\bar W_{mm}\|\le1/(2\|W_{mm}\|)$).}
 * \check{Rate claim: verdicts read consistent/inconsistent.  Each instance draws
 *   Example-1-like heterogeneous data ($n=6$, $T=4$, $d=\texttt{d}=40$, $u=3e_1$), the
 *   Lemma-4 initialisation, solves the W-SVM in the working precision (infeasible:
 *   assumption-failed) and runs NGD~(4), $\eta=\texttt{eta}=0.5$, for
 *   $\texttt{steps}=2000$ iterations with the scaled (never underflowing) gradient.  It
 *   records $\lambda_t=-\max_i\log(1-s^{(t)}_{i,\mathrm{opt}})$, where
 *   $\log(1-s_{\mathrm{opt}})$ is the log-sum-exp of the non-optimal log-scores (no
 *   cancellation at saturation, no underflow).
 *   (a) Rate proxy, by the project's rate rule for a linear rate (\texttt{lm\_rate\_fit\_seq\_lin}): the
 *   least-squares slope $b$ of $\lambda_t$ against $t$ on the asymptotic window $[T/8,T]$ ($T$ the
 *   horizon) is fitted again on $[T/16,T/2]$; the fit is stable when the two slopes differ by at
 *   most $\max(0.1\,r,2\sqrt{s_b^2+s_{b,1/2}^2})$, $r=c_1\eta/(D\|W_{mm}\|^2)$ the claimed rate
 *   with $c_1=\tfrac12\cdot\texttt{c1\_scale}$.  An unstable fit runs the same trajectory on to $2T$
 *   (within the bound 10000 of \texttt{steps}; (b) stays on $[0,T_{\max}]$) and is refitted;
 *   still unstable, the instance is not-checkable (``horizon too short'').  A stable fit is
 *   inconsistent when its 95\% confidence interval lies below $r$ by more than $0.01\,r$: the
 *   exponential rate is at least the claimed one (the catalogue asks only $b>0$; this reading is
 *   stronger and still has slack of an order of magnitude).  Skipped in a replay that stops at a
 *   break of (b).  Reported: both slopes, the standard error, the horizon and the empirical $c_1$.
 *   (b) Explicit form, at every $t\ge t_1$ ($t_1$ the first iterate with
 *   $D\sqrt{2e_t}\le1/(2\|W_{mm}\|)$), in the log domain and the working precision:
 *   $\log(1-s^{(t)}_{i,\mathrm{opt}})\le\log(T-1)-c_1\eta t/(D\|W_{mm}\|^2)+\|W_0\|/(2\|W_{mm}\|)$
 *   for every $i$.  $D=\max_i\max_{\tau\ne\mathrm{opt}}\|x_{i,\mathrm{opt}}-x_{i\tau}\|\|x_{i1}\|$
 *   is measured on the data.  A break is replayed wholly in MPFR (256 bits).  Figure:
 *   $\max_i(1-s_{i,\mathrm{opt}})$ and the bound per iterate (log axis).  The
 *   wrong-constant test sets $\texttt{c1\_scale}=30$ (a claimed rate above the measured one),
 *   which must be inconsistent.
 *   Readings: \texttt{EX1-hetero} is a probe (data outside A1-derived, Assumption~1 not met);
 *   \texttt{A1 data} (switch \texttt{data}$=$\texttt{a1}: EX1 homogeneous, $n=2$, $T=2$, $\mu=0.1$, $d=256$, gated on
 *   A1-derived and Assumption~2) reads the paper.  An instance whose bound $(T-1)e^{\cdots}$ stays at or above
 *   $1$ (the maximum of $1-s_{\mathrm{opt}}$) at every $t\ge t_1$ held only vacuously and is reported so.}
 */
#include "lm_claim.h"
#include "lm_attn.h"
#include "lm_ibgen.h"
#include "lm_stats.h"
#include "lm_svm.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const configs[] = {"EX1-hetero", "A1 data: EX1 n=2, T=2, d=256", NULL};

#define PARAMS(NUM, SWITCH)                                                                                                                                                                     \
    NUM(c1_scale, 1.0, "[0, 1e6]", "multiplies the derived c_1 = 1/2 (in (a) and (b))")                                                                                                         \
    NUM(init_scale, 1.0, "[0, 1e6]", "multiplies the initialisation term ||W0||/(2||W_mm||)")                                                                                                   \
    NUM(eta, 0.5, "(0, 1e3]", "NGD step size")                                                                                                                                                  \
    NUM(steps, 2000, "int [1, 10000]", "NGD iterations T_max (at most 10000: run length bound; an unstable fit (a) doubles the run up to that bound)")                                          \
    NUM(d, 40, "int [1, 200]", "embedding dimension (at most 200: d x d matrices)")                                                                                                             \
    SWITCH(data, 0, "ex1|a1", "EX1 data: heterogeneous (n=6, T=4, d; outside A1-derived), or homogeneous n=2, T=2, mu=0.1, d=256 gated on A1-derived and Assumption 2 (the A1 configurations)")
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
    lm_attn_data *D = lm_ibgen_ex1(&o, g, c);
    lm_mat *W0 = lm_ibgen_w0(D->d, 0.0, g, c);
    lm_mat *Wmm = lm_mat_new(D->d, D->d, c);
    lm_attn_fwd *F = lm_attn_fwd_new(D);
    lm_attn_state *S = NULL;
    lm_svm_sol sol = {0};
    lm_ibgen_stats st;
    lm_ibgen_stats_init(&st, c);
    int rc = 0, steps = lm_int(P.steps), n = D->n;
    if (steps < 100) steps = 100;
    if (ev->tmax >= 0 && ev->tmax < steps) steps = ev->tmax;
    /* (a) may run the same trajectory on to twice the horizon, up to the range's bound */
    const int smax = steps_max(ev) > steps ? steps_max(ev) : steps;
    double *lam = lm_xmalloc(sizeof(double) * (size_t)(smax + 1));
    double *tt = lm_xmalloc(sizeof(double) * (size_t)(smax + 1));
    double eta = P.eta, c1 = 0.5 * P.c1_scale;
    lm_num e, la, lb, x, nmm, rate, off;
    lm_num_inits(c, &e, &la, &lb, &x, &nmm, &rate, &off, (lm_num *)NULL);
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
    if (lm_ibgen_stats_compute(&st, D, 0)) { rc = lm_fail(ev, "data statistics not finite"); goto out; }
    lm_svm_w_matrix(Wmm, &sol, D);
    lm_num_sqrt(&nmm, &sol.norm2);
    /* rate = c1 eta / (D ||W_mm||^2); off = log(T-1) + init_scale ||W0|| / (2 ||W_mm||) */
    lm_num_mul(&rate, &st.Dc, &sol.norm2);
    lm_num_set_d(&x, c1 * eta);
    lm_num_div(&rate, &x, &rate);
    lm_mat_frob(&off, W0);
    lm_num_div(&off, &off, &nmm);
    lm_num_mul_d(&off, &off, 0.5 * P.init_scale);
    lm_num_add_d(&off, &off, log((double)(D->T - 1)));
    double thr = 1.0 / (2.0 * lm_num_get_d(&nmm) * lm_num_get_d(&st.Dc));
    lm_attn_opt_par p;
    lm_attn_opt_par_default(&p);
    p.eta = eta;
    const lm_attn_opt *opt = lm_attn_opt_find("ngd");
    S = lm_attn_state_new(W0, D->u);
    lm_series_axes(ev, "iteration t", "max_i (1 - s_opt)", 1);
    int t1 = -1, next = 1, nontriv = 0;
    for (int t = 0; t <= steps; t++) {
        if (lm_attn_forward(F, D, S->W, D->u, LM_ATTN_EXP)) { rc = lm_fail(ev, "non-finite forward at t=%d", t); goto out; }
        lm_mat_get(&la, F->lomso, 0, 0);
        for (int i = 1; i < n; i++) { lm_mat_get(&x, F->lomso, i, 0); lm_num_max(&la, &la, &x); }
        lam[t] = -lm_num_get_d(&la);
        if (t1 < 0) {
            lm_attn_one_minus_cos(&e, S->W, Wmm);
            if (sqrt(2.0 * lm_num_get_d(&e)) <= thr) t1 = t;
        }
        lm_num_mul_d(&lb, &rate, (double)t);
        lm_num_sub(&lb, &off, &lb);
        if (t1 >= 0) {
            lm_obs_le_log(ev, t, &la, &lb, 0.0, "(b) max_i log(1 - s_opt) <= log(T-1) - c1 eta t/(D||W_mm||^2) + init (t1 = %d)", t1);
            if (lm_num_get_d(&lb) < 0.0) nontriv++;
        }
        if (t == next || t == steps) {
            lm_series(ev, "max_i (1 - s_opt)", t, exp(-lam[t]));
            lm_series(ev, "bound (T-1) exp(-c1 eta t/(D ||W_mm||^2) + init)", t, exp(lm_num_get_d(&lb)));
            next = (int)ceil(next * 1.05);
        }
        if (t < steps && opt->step(S, F, D, &p)) { rc = lm_fail(ev, "NGD step failed at t=%d", t); goto out; }
    }
    lm_measure(ev, "t1", t1);
    lm_measure(ev, "D", lm_num_get_d(&st.Dc));
    lm_measure(ev, "||W_mm||", lm_num_get_d(&nmm));
    lm_measure(ev, "predicted rate c1 eta/(D ||W_mm||^2)", lm_num_get_d(&rate));
    if (!lm_assume(ev, t1 >= 0, "D ||Wbar_t - Wbar_mm|| never fell below 1/(2||W_mm||)")) goto out;
    if (nontriv == 0)
        lm_vacuous(ev, "(b): the bound (T-1) exp(...) stayed >= 1, the maximum of 1 - s_opt, at every t >= t1 = %d", t1);
    if (steps >= 100 && (ev->tmax < 0 || ev->tmax >= lm_int(P.steps))) {
        /* (a): the rate rule of lm_stats.h on lambda_t against t (a linear rate), window
         * [T/8, T]; a fit that moves when the horizon doubles runs the same trajectory on to
         * 2T (within the range of `steps`), else the instance is not checkable.  Skipped in a
         * replay that stops at a break of (b) (ev->tmax below the horizon). */
        const double pred = lm_num_get_d(&rate);
        /* tolerance 1% and stability 10% of the claimed rate (no parameter: the claim has
         * no tolerance of its own; a positive tol keeps the observation's ratio meaningful) */
        const double tol = fmax(0.01 * pred, 1e-12);
        lm_rate_fit fit;
        int T = steps;
        for (;;) {
            for (int t = 0; t <= T; t++) tt[t] = t;
            lm_rate_fit_seq_lin(&fit, tt + 1, lam + 1, T, pred, +1, tol, 0.95, 0.1 * pred);
            if (fit.decision != LM_RATE_TOO_SHORT || 2 * T > smax) break;
            for (int t = T; t < 2 * T; t++) {
                if (opt->step(S, F, D, &p)) { rc = lm_fail(ev, "NGD step failed at t=%d", t); goto out; }
                if (lm_attn_forward(F, D, S->W, D->u, LM_ATTN_EXP)) {
                    rc = lm_fail(ev, "non-finite forward at t=%d", t + 1);
                    goto out;
                }
                lm_mat_get(&la, F->lomso, 0, 0);
                for (int i = 1; i < n; i++) { lm_mat_get(&x, F->lomso, i, 0); lm_num_max(&la, &la, &x); }
                lam[t + 1] = -lm_num_get_d(&la);
            }
            T *= 2;
        }
        lm_measure(ev, "(a) horizon T of the fit", T);
        if (isfinite(fit.slope))
            lm_measure(ev, "empirical c1 = slope D ||W_mm||^2 / eta", fit.slope / pred * c1);
        lm_rate_judge(ev, &fit, "(a) lambda_t vs t (claim: slope >= c1 eta/(D ||W_mm||^2))");
    }
out:
    lm_num_clears(&e, &la, &lb, &x, &nmm, &rate, &off, (lm_num *)NULL);
    free(lam);
    free(tt);
    if (S) lm_attn_state_free(S);
    lm_svm_sol_clear(&sol);
    lm_ibgen_stats_clear(&st);
    lm_attn_fwd_free(F);
    lm_mat_free(W0); lm_mat_free(Wmm);
    lm_attn_data_free(D);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PROBE, "Example-1-like heterogeneous data at d=40, outside A1-derived: Assumption 1 is not met (the catalogue counts a failure there as outside the hypotheses)", NULL},
    {LM_READ_PAPER,
     "Paper setting on A1 data (EX1 homogeneous n = 2, T = 2, mu = 0.1, d = 256, 1000 NGD steps, "
     "eta = 0.5): fitted rate of -log(1 - s_opt) at least c1 eta/(D ||W_mm||^2), and the explicit "
     "bound.",
     "data=a1,steps=1000"},
    LM_READINGS_END};

LM_CLAIM(claim_implicit_lemma1) = {
    .kind = LM_KIND_RATE,
    .source = "Lemma 1 (Section 3.1)",
    .origin = "reconstructed",
    .confidence = "medium",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.125,
    .search_dim = 0,
    .proxy = 1,
    .eval = eval,
};
