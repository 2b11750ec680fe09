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
 *   T2 run (GD on $W^Q,W^K,W^V$, $W^O$ fixed), and their linear rates are fitted as minus the
 *   least-squares slope of $\log f_t$ over $t\in[T/4,T]$ (cut at $10^3$ times the precision floor).
 *   The proxy passes when $\rho_{C1}\le\kappa\rho_{T2}$ and $\rho_{T2}\le\kappa\rho_{C1}$ with
 *   $\kappa=$\texttt{factor}$=2$.  The T2 run is the reference: an instance where it diverges or
 *   does not decrease is assumption-failed; a C1 run that diverges or does not decrease has rate
 *   $\le0$ and fails the second inequality.  Configurations: $L\in\{1,2,3\}$, each from an
 *   initialization meeting (8) as in dynamics/theorem2 (Remark 2 sits under Theorem 2's
 *   hypotheses; the balancing $cW^O$ large makes the chain's own gradient small).  The step is $\eta=$\texttt{eta\_GV}$/G_V$ with $G_V=\lambda_{\max}$ of the $W^V$
 *   kernel of S4 (the paper defines no step size for the chain); the loss runs in MPFR when
 *   double cannot resolve a per-step change of $\eta\beta$.  A \texttt{factor} below 1 asks for an
 *   empty band and must come out inconsistent.}
 */
#include "lm_claim.h"
#include "lm_t2.h"
#include <math.h>
#include <stdlib.h>

static const char *const configs[] = {"L=1,init (8)", "L=2,init (8)", "L=3,init (8)", NULL};

static const lm_param_def params[] = {
    {"factor", 2.0, "rates must agree within this factor", NULL, "(0, 1e6]"},
    {"eta_GV", 0.1, "step size eta = eta_GV / G_V", NULL, "(0, 1e6]"},
    {"nu_scale", 1.0, "multiplies nu = 1/54 in (8) (init (8) configurations)", NULL, "(0, 1e6]"},
    {"mode", 0, "W^V parameterization", "dense|block", NULL},
    {"T", 200, "GD iterations per run (quick: T/2) (at most 20000: run length bound)", NULL, "int [1, 20000]"},
    {NULL, 0, NULL, NULL, NULL}};

static const int mids[3][2] = {{0, 0}, {3, 0}, {4, 2}};

static int eval(lm_eval *ev)
{
    const int L = ev->config + 1;
    lm_t2_opts o = {.mode = lm_par_i(ev, "mode") ? LM_WV_BLOCK : LM_WV_DENSE,
                    .kernel = LM_SOFTMAX, .cG = 2.0,
                    .hyp = LM_T2_HYP_8MAIN,
                    .nu = lm_par(ev, "nu_scale") / 54.0, .method = -1, .sX = 1.0};
    lm_t2_inst I;
    int b = lm_t2_build(&I, ev, &o);
    if (b) {
        lm_t2_inst_free(&I);
        return b < 0 ? -1 : 0;
    }
    lm_t2_measure(ev, &I);
    const int T = ev->quick ? lm_par_i(ev, "T") / 2 : lm_par_i(ev, "T");
    const double eta_d = lm_par(ev, "eta_GV") / I.GV;
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
    int rc = 0, dv1 = 0, dv2 = 0;
    const double fl = lm_t2_log_floor(m2);
    int n2 = lm_t2_gd_logf(lf2, m2, LM_VAR_ALL, &eta, T, &dv2);
    int n1 = lm_c1_gd_logf(lf1, c1, &eta, T, &dv1);
    n1 = lm_t2_floor_index(lf1, n1, fl);
    n2 = lm_t2_floor_index(lf2, n2, fl);
    int t1 = n1 < n2 ? n1 : n2, t0 = T / 4;
    lm_series_axes(ev, "iterate t", "f_t/f_0", 1);
    for (int t = 0; t < n1; t++) lm_series(ev, "C1: attention + MLP chain", t, exp(lf1[t] - lf1[0]));
    for (int t = 0; t < n2; t++) lm_series(ev, "T2: attention only", t, exp(lf2[t] - lf2[0]));
    /* the T2 run is the reference: without a linear rate there is nothing to compare */
    if (!lm_assume(ev, !dv2, "the reference T2 run diverged at this step")) goto done;
    if (dv1) t1 = n2; /* a diverging C1 run has no positive rate: it is judged below */
    if (!lm_assume(ev, t1 - t0 >= 8, "loss reached the precision floor before T/4 + 8")) goto done;
    double r2 = -lm_t2_slope(lf2, t0, t1), r1 = dv1 ? 0.0 : -lm_t2_slope(lf1, t0, t1);
    lm_measure(ev, "C1 run diverged", dv1);
    lm_measure(ev, "rate C1 (-slope of log f)", r1);
    lm_measure(ev, "rate T2 (-slope of log f)", r2);
    lm_measure(ev, "rate C1 / rate T2", r1 / r2);
    if (!lm_assume(ev, r2 > 0, "the reference T2 run did not decrease (rate %.3g)", r2)) goto done;
    const double k = lm_par(ev, "factor");
    lm_obs_le_d(ev, -1, r1, k * r2, 0.0, "rate C1 <= factor * rate T2");
    lm_obs_le_d(ev, -1, r2, k * r1, 0.0, "rate T2 <= factor * rate C1");
done:
    lm_num_clear(&eta);
    free(lf1);
    free(lf2);
    lm_c1_free(c1);
    lm_mha_free(m2);
    lm_t2_inst_free(&I);
    return rc;
}

LM_CLAIM(claim_dynamics_remark2) = {
    .id = "dynamics/remark2",
    .title = "MLP extension (eq. 10) keeps the convergence rate (proxy: fitted rates within a factor 2)",
    .file = __FILE__,
    .kind = LM_KIND_RATE,
    .source = "Remark 2, eq. (10), Section 4.1",
    .origin = "reconstructed",
    .confidence = "medium",
    .params = params,
    .configs = configs,
    .inst_scale = 0.5,
    .proxy = 1,
    .eval = eval,
};
