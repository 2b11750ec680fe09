/* lemmas/precond/experiment2.c
 *
 * \claim{precond/experiment2}{Figure 2: Algorithm 1 and SGD from a common random initialisation}
 * \source{preconditioned-softmax-regression, Appendix A, Figure 2}
 * \statement{From the same random initialisation as SGD, Algorithm 1 (preconditioner and
 *   regulariser) converges quickly to $\approx L_0$.}
 * \check{TR-D as in precond/experiment1 (default instance $d=4$, $k=6$, $s_1=0.05$, $\sigma=0.1$,
 *   $L_0=0.06$, $N=2000$, $B=100$, $\eta=0.03$, \texttt{T} = 1000 steps, 250 quick: the catalogue's 2000
 *   halved for time; $t^\ast\approx200$ here), but both methods
 *   start from the same point with $\mathcal N(0,1)$ entries (its loss is $10^3$--$10^5\times L_0$).
 *   Observations: (1) the first iterate $t^\ast$ with $L(\theta^{\rm alg}_t)-L_0\le\texttt{c\_conv}\cdot
 *   L_0$ (0.1) exists, with $t^\ast\le\texttt{t\_frac}\cdot T$ (0.5: ``quickly'', a reading); a
 *   diverged Algorithm 1 run (non-finite or excess $>10^{30}$) fails it;
 *   (2) ``stays below SGD's'', in two readings, one configuration each: \emph{final}:
 *   $L(\theta^{\rm alg}_T)\le L(\theta^{\rm sgd}_T)$; \emph{every iterate}: from $t^\ast$ on,
 *   $L(\theta^{\rm alg}_t)\le L(\theta^{\rm sgd}_t)$ at every iterate (a diverged SGD run counts as
 *   $+\infty$ from its divergence on).  The claim's verdict is the worse of the two.  The geometric rate of the descent
 *   phase $[0,t^\ast]$ is fitted (least squares on $\log(L-L_0)$) and reported, not judged.  Double
 *   only (an experiment: consistent/inconsistent); two random starts per configuration.  A diverged
 *   run (non-finite or excess $>10^{30}$) enters the observations as $10^{30}$, never as NaN.  Pilot
 *   (12 starts): at $\eta=0.03$ Algorithm 1 diverges within 5 steps from about a third of the
 *   $\mathcal N(0,1)$ starts in minibatch mode (2 of 12 with the population oracle and exact
 *   $\Sigma$; 1 of 12 at $\eta=0.01$): the cubic regulariser gradient at $\|W_{KQ}\|\sim\sqrt d$ overshoots.  Fails when Algorithm 1 stalls above
 *   $\texttt{c\_conv}L_0$, converges late, or falls behind SGD.}
 */
#include "lm_pctr.h"
#include <math.h>
#include <stdlib.h>

#define PARAMS(NUM, SWITCH)                                                                                                           \
    NUM(eta, 0.03, "(0, 100]", "step size of both methods")                                                                           \
    NUM(T, 1000, "int [1, 10000]", "iterations (quick: T/4; the catalogue: 2000, reduced for time; at most 10000: run length bound)") \
    NUM(N, 2000, "int [4, 200000]", "training samples (at least d = 4 for Sigma_hat; at most 200000: memory bound)")                  \
    NUM(B, 100, "int [1, 250]", "minibatch size (at most N; at most 250: the minibatch gradient costs B^2 per step)")                 \
    NUM(c_conv, 0.1, "constant [0, 1e6]", "convergence level: L - L0 <= c_conv L0")                                                   \
    NUM(t_frac, 0.5, "[0, 1]", "the level must be reached by t_frac * T")
LM_PARAMS(PARAMS)

static const char *const configs[] = {"below SGD at the final iterate", "below SGD at every iterate from t*",
                                      NULL};

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    int T = lm_int(P.T);
    if (ev->quick) T /= 4;
    char err[256];
    lm_pctr_trd R;
    if (lm_pctr_trd_run(&R, ev->ctx, ev->seed, 1, T, P.eta, lm_int(P.N), lm_int(P.B),
                        err, sizeof err)) {
        lm_pctr_trd_clear(&R);
        return lm_fail(ev, "%s", err);
    }
    const double L0 = R.L0, lev = P.c_conv * L0;
    int rc = 0;
    lm_measure(ev, "L0", L0);
    lm_measure(ev, "shared start: L(theta_0)/L0", (R.alg.exc[0] + L0) / L0);
    lm_series_axes(ev, "iteration t", "population loss L(theta_t)", 1);
    int st = R.alg.n > 500 ? R.alg.n / 500 : 1;
    for (int t = 0; t < R.alg.n; t += st) lm_series(ev, "Algorithm 1 (random init)", t, R.alg.exc[t] + L0);
    for (int t = 0; t < R.sgd.n; t += st) lm_series(ev, "SGD (same init)", t, R.sgd.exc[t] + L0);
    lm_series(ev, "L0", 0, L0);
    lm_series(ev, "L0", T, L0);
    if (R.sgd.diverged >= 0) lm_measure(ev, "sgd: diverged at step", R.sgd.diverged);
    if (R.alg.diverged >= 0) lm_measure(ev, "alg: diverged at step", R.alg.diverged);
    int ts = -1;
    for (int t = 0; t < R.alg.n; t++)
        if (R.alg.exc[t] <= lev) {
            ts = t;
            break;
        }
    if (ts < 0) {
        double last = R.alg.diverged >= 0 || !R.alg.n ? 1e30 : R.alg.exc[R.alg.n - 1];
        lm_measure(ev, "alg: final (L-L0)/L0", last / L0);
        lm_obs_le_d(ev, T, last, lev, 0.0, "alg reaches L-L0 <= c_conv L0 within T (final value)");
    } else {
        lm_measure(ev, "alg: t* (first L-L0 <= c_conv L0)", ts);
        lm_measure(ev, "alg: (L(theta_T)-L0)/L0", R.alg.exc[R.alg.n - 1] / L0);
        if (R.sgd.diverged < 0) lm_measure(ev, "sgd: (L(theta_T)-L0)/L0", R.sgd.exc[R.sgd.n - 1] / L0);
        lm_obs_le_d(ev, ts, ts, P.t_frac * T, 0.0, "t* = %d <= t_frac T", ts);
        double worst = 0;
        int tw = ts;
        for (int t = ts; t < R.alg.n; t++) {
            double s = t < R.sgd.n ? R.sgd.exc[t] : 1e30;
            double r = R.alg.exc[t] / s;
            if (r > worst) {
                worst = r;
                tw = t;
            }
        }
        if (R.alg.diverged >= 0) {
            lm_obs_le_d(ev, R.alg.diverged, 1e30, lev, 0.0, "Algorithm 1 diverged at t=%d", R.alg.diverged);
        } else if (ev->config == 1) {
            lm_obs_le_d(ev, tw, R.alg.exc[tw], tw < R.sgd.n ? R.sgd.exc[tw] : 1e30, 0.0,
                        "alg <= sgd from t* on (worst at t=%d)", tw);
        } else {
            double sT = R.sgd.diverged >= 0 ? 1e30 : R.sgd.exc[R.sgd.n - 1];
            lm_obs_le_d(ev, T, R.alg.exc[R.alg.n - 1], sT, 0.0, "alg <= sgd at t=T");
        }
        lm_measure(ev, "worst alg/sgd excess ratio from t*", worst);
        lm_measure(ev, "at t", tw);
        if (ts >= 3) {
            double *x = lm_xmalloc(sizeof(double) * (size_t)(ts + 1)), *y = lm_xmalloc(sizeof(double) * (size_t)(ts + 1));
            for (int t = 0; t <= ts; t++) {
                x[t] = t;
                y[t] = log(R.alg.exc[t]);
            }
            double b, se;
            if (!lm_pctr_fit(&b, &se, NULL, x, y, ts + 1)) {
                lm_measure(ev, "alg: fitted rate of the descent phase", exp(b));
                lm_measure(ev, "alg: rate se (log)", se);
            }
            free(x);
            free(y);
        }
    }
    lm_pctr_trd_clear(&R);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "Common N(0,1) start, S9 default (d = 4, k = 6, eta = 0.03, T = 1000): Algorithm 1 reaches "
     "1.1 L_0 by T/2 and its final population loss is at most SGD's final loss.",
     NULL},
    {LM_READ_PAPER,
     "Common N(0,1) start, S9 default (d = 4, k = 6, eta = 0.03, T = 1000): Algorithm 1 reaches "
     "1.1 L_0 by T/2 and stays below SGD's loss at every iterate from t* on (the stricter "
     "reading).",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_precond_experiment2) = {
    .kind = LM_KIND_TRAJECTORY,
    .source = "Appendix A, Figure 2",
    .origin = "reconstructed",
    .confidence = "medium",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 2.0 / 64,
    .proxy = 1,
    .no_replay = 1,
    .eval = eval,
};
