/* lemmas/dynamics/remark2.c
 *
 * \claim{dynamics/remark2}{A linear MLP head keeps the convergence rate (proxy)}
 * \source{transformer-gd-dynamics, Remark 2 and eq.~(10), \S4.1}
 * \statement{With the MLP head $G(W^Q,W^K,W^V;X_i)=\mathsf{MH}(W^Q,W^K,W^V;X_i)W^1W^2\cdots W^L$,
 *   $W^l\in\mathbb R^{n_{l-1}\times n_l}$, $n_0=d^O$, ``the Transformer with MLP will lead to the
 *   same convergence rate of the optimization problem as updating $W^Q,W^K,W^V$ only''.}
 * \check{Only a stated proxy is tested.  Since $W^O\in\mathbb R^{Hd\times1}$ forces $n_0=d^O=1$
 *   and $y_i\in\mathbb R^n$ forces $n_L=1$, the chain is a scalar $c=W^1\cdots W^L$ and
 *   $G=c\,\mathsf{MH}$; we use widths $(1)$, $(1,3,1)$ and $(1,4,2,1)$ for $L=1,2,3$
 *   (nonincreasing, as Corollary 1 asks), Gaussian $W^l$ with $W^L$ set so that $c=1$ at
 *   initialization.  The gradient of the chain is implemented by the chain rule:
 *   $\partial f/\partial c=\langle W^VW^O,B^\top r\rangle$ and
 *   $\partial c/\partial W^l=(W^1\cdots W^{l-1})^\top(W^{l+1}\cdots W^L)^\top$, the attention
 *   gradients are those of the model with output layer $cW^O$.  From the same initialization
 *   two runs are made with the same step: the C1 run (GD on $W^Q,W^K,W^V,W^1,\dots,W^L$) and the
 *   T2 run (GD on $W^Q,W^K,W^V$, $W^O$ fixed), and their linear rates are minus the slopes
 *   $s_{C1},s_{T2}$ of $\log f_t$ against $t$, by the project's rate rule (issue 16): both runs are
 *   passed up to the first cut of either at $10^3$ times the precision floor, each slope is fitted by
 *   least squares with a 95\% interval on $t\in[T/8,T]$ ($T$ the last iterate passed; the transient
 *   before $T/8$ is discarded) and again on $[T/16,T/2]$, and a fit is stable when the two slopes
 *   agree within $\max(0.1|s_{1/2}|,2\sqrt{se^2+se_{1/2}^2})$.  The proxy is
 *   $\rho_{C1}\le\kappa\rho_{T2}$ and $\rho_{T2}\le\kappa\rho_{C1}$ with $\kappa=$\texttt{factor}$=2$,
 *   judged on $s_{C1}$ against the lenient end of the T2 interval $[lo,hi]$: $s_{C1}\ge\kappa\,lo$
 *   and $s_{C1}\le hi/\kappa$, each inconsistent when the C1 interval lies beyond by more than
 *   $10^{-3}$ of the claimed value.  While a fit is unstable and neither run is cut, both runs are
 *   continued to twice their length, within the bound of \texttt{T} (20000); a T2 fit still unstable
 *   makes the instance not-checkable (``horizon too short'').  The T2 run is the reference: an
 *   instance where it diverges or does not decrease is assumption-failed; a C1 run that diverges has
 *   rate 0 and fails the second inequality.  Configurations: $L\in\{1,2,3\}$, each from an
 *   initialization meeting (8) as in dynamics/theorem2 (Remark 2 sits under Theorem 2's
 *   hypotheses; the balancing $cW^O$ large makes the chain's own gradient small).  The step is $\eta=$\texttt{eta\_GV}$/G_V$ with $G_V=\lambda_{\max}$ of the $W^V$
 *   kernel of S4 (the paper defines no step size for the chain); the loss runs in MPFR when
 *   double cannot resolve a per-step change of $\eta\beta$.  A \texttt{factor} below 1 asks for an
 *   empty band and must come out inconsistent.}
 */
#include "lm_claim.h"
#include "lm_t2.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const configs[] = {"L=1,init (8)", "L=2,init (8)", "L=3,init (8)", NULL};

#define PARAMS(NUM, SWITCH)                                                                                                                                            \
    NUM(factor, 2.0, "(0, 1e6]", "rates must agree within this factor")                                                                                                \
    NUM(eta_GV, 0.1, "(0, 1e6]", "step size eta = eta_GV / G_V")                                                                                                       \
    NUM(nu_scale, 1.0, "setting (0, 1e6]", "multiplies nu = 1/54 in (8) when building the initialization (init (8) configurations; a setting: Remark 2 states no nu)") \
    SWITCH(mode, 0, "dense|block", "W^V parameterization")                                                                                                             \
    NUM(T, 200, "int [1, 20000]", "GD iterations per run (quick: T/2) (at most 20000: run length bound)")
LM_PARAMS(PARAMS)

static const int mids[3][2] = {{0, 0}, {3, 0}, {4, 2}};

/* the run-length bound of T (its declared range) */
static int T_cap(const lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    for (const lm_param_def *p = ev->claim->params; p->name; p++) {
        lm_range rg;
        if (!strcmp(p->name, "T") && lm_param_range(&rg, p) == 0) return (int)rg.hi;
    }
    return lm_int(P.T);
}

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    const int L = ev->config + 1;
    lm_t2_opts o = {.mode = lm_int(P.mode) ? LM_WV_BLOCK : LM_WV_DENSE,
                    .kernel = LM_SOFTMAX, .cG = 2.0,
                    .hyp = LM_T2_HYP_8MAIN,
                    .nu = P.nu_scale / 54.0, .method = -1, .sX = 1.0};
    lm_t2_inst I;
    int b = lm_t2_build(&I, ev, &o);
    if (b) {
        lm_t2_inst_free(&I);
        return b < 0 ? -1 : 0;
    }
    lm_t2_measure(ev, &I);
    int T = ev->quick ? lm_int(P.T) / 2 : lm_int(P.T);
    if (T < 1) T = 1;
    const int Tcap = T_cap(ev);
    const double eta_d = P.eta_GV / I.GV;
    const double beta_d = I.k0.nrmWo * I.k0.nrmWo * I.k0.sminB * I.k0.sminB;
    lm_ctx wctx;
    lm_t2_work_ctx(&wctx, &I, eta_d * beta_d, ev->ctx);
    lm_measure(ev, "working precision (bits)", (double)wctx.prec);
    lm_measure(ev, "eta", eta_d);
    lm_measure(ev, "eta*beta", eta_d * beta_d);
    lm_mha *m2 = lm_mha_convert(I.md, &wctx);
    lm_c1 *c1 = lm_c1_new(m2, L, mids[L - 1], lm_eval_rng(ev));
    double *lf1 = lm_xmalloc(sizeof(double) * (size_t)(T + 1)), *lf2 = lm_xmalloc(sizeof(double) * (size_t)(T + 1));
    lm_num eta;
    lm_num_init(&eta, &wctx);
    lm_num_set_d(&eta, eta_d);
    int rc = 0, dv1 = 0, dv2 = 0, doublings = 0;
    const double fl = lm_t2_log_floor(m2);
    int n2 = lm_t2_gd_logf(lf2, m2, LM_VAR_ALL, &eta, T, &dv2);
    int n1 = lm_c1_gd_logf(lf1, c1, &eta, T, &dv1);
    lm_rate_fit f2;
    int t1;
    for (;;) {
        /* both runs are fitted up to the first precision cut of either (a diverging C1 run
         * has no rate and is judged below) */
        int c1n = lm_t2_floor_index(lf1, n1, fl), c2n = lm_t2_floor_index(lf2, n2, fl);
        t1 = dv1 ? c2n : (c1n < c2n ? c1n : c2n);
        lm_t2_rate_fit(&f2, lf2, t1, -INFINITY, 0.0, -1, 0.0);
        lm_rate_fit fa;
        lm_t2_rate_fit(&fa, lf1, t1, -INFINITY, 0.0, -1, 0.0);
        /* the rate rule: a fit too short for a decision while both runs are still uncut runs
         * twice as long (the same runs continued), within the bound of T; not in a replay */
        int uncut = !dv1 && !dv2 && t1 == T + 1 && n1 == T + 1 && n2 == T + 1;
        if (!(uncut && ev->tmax < 0 && 2 * T <= Tcap &&
              (f2.decision == LM_RATE_TOO_SHORT || fa.decision == LM_RATE_TOO_SHORT)))
            break;
        lf1 = lm_xrealloc(lf1, sizeof(double) * (size_t)(2 * T + 1));
        lf2 = lm_xrealloc(lf2, sizeof(double) * (size_t)(2 * T + 1));
        /* from f_T on: lf[T] is recomputed (the same value), lf[T+1..2T] appended */
        n2 = T + lm_t2_gd_logf(lf2 + T, m2, LM_VAR_ALL, &eta, T, &dv2);
        n1 = T + lm_c1_gd_logf(lf1 + T, c1, &eta, T, &dv1);
        T *= 2;
        doublings++;
    }
    lm_measure(ev, "iterates T (after the rate rule's doublings)", T);
    lm_measure(ev, "horizon doublings (rate rule)", doublings);
    lm_series_axes(ev, "iterate t", "f_t/f_0", 1);
    for (int t = 0; t < n1; t++) lm_series(ev, "C1: attention + MLP chain", t, exp(lf1[t] - lf1[0]));
    for (int t = 0; t < n2; t++) lm_series(ev, "T2: attention only", t, exp(lf2[t] - lf2[0]));
    /* the T2 run is the reference: without a linear rate there is nothing to compare */
    if (!lm_assume(ev, !dv2, "the reference T2 run diverged at this step")) goto done;
    lm_measure(ev, "C1 run diverged", dv1);
    lm_measure(ev, "rate T2 (-slope of log f on [T/8, T])", -f2.slope);
    lm_measure(ev, "rate T2 at half the horizon", -f2.slope_half);
    if (f2.decision == LM_RATE_TOO_SHORT) {
        char why[260];
        snprintf(why, sizeof why, "the reference T2 run: %s", f2.why);
        lm_not_checkable(ev, why);
        goto done;
    }
    if (!lm_assume(ev, f2.slope < 0, "the reference T2 run did not decrease (rate %.3g)", -f2.slope)) goto done;
    const double k = P.factor;
    if (dv1) {
        /* a diverging C1 run has rate 0: the second inequality fails, the first holds */
        lm_obs_le_d(ev, -1, -f2.slope, 0.0, 0.0, "rate T2 <= factor * rate C1 (the C1 run diverged: rate 0)");
        goto done;
    }
    /* the rates of C1 against the band set by T2, each side against the lenient end of T2's
     * interval:  rate C1 <= factor rate T2  <=>  slope C1 >= factor lo_T2;
     *            rate T2 <= factor rate C1  <=>  slope C1 <= hi_T2 / factor */
    lm_rate_fit up, down;
    const double ca = k * f2.lo, cb = f2.hi / k;
    lm_t2_rate_fit(&up, lf1, t1, -INFINITY, ca, 1, LM_T2_RATE_RTOL * fabs(ca));
    lm_t2_rate_fit(&down, lf1, t1, -INFINITY, cb, -1, LM_T2_RATE_RTOL * fabs(cb));
    lm_measure(ev, "rate C1 / rate T2", up.slope / f2.slope);
    lm_rate_judge(ev, &up, "rate C1 <= factor * rate T2 (slope C1 >= factor * lo T2)");
    lm_rate_judge(ev, &down, "rate T2 <= factor * rate C1 (slope C1 <= hi T2 / factor)");
done:
    lm_num_clear(&eta);
    free(lf1);
    free(lf2);
    lm_c1_free(c1);
    lm_mha_free(m2);
    lm_t2_inst_free(&I);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "1-layer linear MLP head (widths (1)) from an init meeting (8): the fitted linear rate of GD "
     "on all variables must be within a factor 2 of the attention-only Theorem 2 run.",
     NULL},
    {LM_READ_PAPER,
     "2-layer linear MLP head (widths (1,3,1)) from an init meeting (8): the fitted linear rate "
     "of GD on all variables must be within a factor 2 of the attention-only Theorem 2 run.",
     NULL},
    {LM_READ_PAPER,
     "3-layer linear MLP head (widths (1,4,2,1)) from an init meeting (8): the fitted linear rate "
     "of GD on all variables must be within a factor 2 of the attention-only Theorem 2 run.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_dynamics_remark2) = {
    .kind = LM_KIND_RATE,
    .source = "Remark 2, eq. (10), Section 4.1",
    .origin = "reconstructed",
    .confidence = "medium",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.5,
    .proxy = 1,
    .eval = eval,
};
