/* lemmas/tutorial/gd-rate.c
 *
 * \claim{tutorial/gd-rate}{Gradient descent on separable logistic regression: loss $\Theta(1/t)$}
 * \source{folklore; e.g. Soudry et al.\ (2018), The implicit bias of gradient descent on
 *   separable data, Theorem~3}
 * \statement{Gradient descent $w_{t+1}=w_t-\eta\nabla f(w_t)$ with $\eta=1/L$ on the logistic
 *   loss $f(w)=\frac1n\sum_i\log(1+e^{-y_ix_i w})$ of linearly separable data (convex, not
 *   strongly convex, $f^*=\inf f=0$ not attained) converges sublinearly:
 *   $f(w_t)-f^*=\Theta(t^{-p})$ with $p=1$.}
 * \check{The rate as a fitted exponent (the rule of \texttt{lm\_stats.h}): the slope of
 *   $\log f(w_t)$ against $\log t$ on $[T/8,T]$ must equal $-p$ up to \texttt{tol} (both sides:
 *   $\Theta$), and is judged only once it is stable (the same fit on $[T/16,T/2]$ agrees up to
 *   \texttt{stab}); a fit that is not yet stable doubles the run up to \texttt{steps\_max} and
 *   is otherwise not-checkable.  Data: $n\in[1,\texttt{n\_max}]$ one-dimensional points with
 *   margins $y_ix_i$, the smallest $\mu\in[0.5,2]$ and the others in $[2\mu,3\mu]$ (a margin
 *   gap, so that their faster $t^{-y_ix_i/\mu}$ terms leave the window early); $w_0=0$,
 *   $L=\frac1{4n}\sum_i(y_ix_i)^2$; the run is in double.  The early steps, driven by the larger
 *   margins, move $w$ far, so $u_t=e^{\mu w_t}$, which grows linearly in $t$, is
 *   $\approx\alpha(t+t_0)$ with a time origin $t_0$ of tens to hundreds of steps; time is counted
 *   from it, $t_0=u_T/(u_T-u_{T-1})-T$ read off the run's end (the fit is against
 *   $\log(t+t_0)$, which does not change a $\Theta(t^{-p})$ rate), so that the finite horizon
 *   does not bias the slope.  More points lengthen this transient: keep \texttt{n\_max} small.
 *   The claim is a \emph{proxy} (verdicts consistent/inconsistent): $\Theta(t^{-p})$ is a
 *   statement about $t\to\infty$, and a slope fitted on a finite horizon is evidence about it,
 *   not the statement itself.}
 */
#include "lm_claim.h"
#include "lm_stats.h"
#include <math.h>
#include <stdlib.h>

#define PARAMS(NUM, SWITCH)                                                             \
    NUM(p, 1.0, "exponent [0, 10]", "the claimed decay exponent of f(w_t)")            \
    NUM(tol, 0.05, "setting [0, 1]", "tolerance on the fitted slope")                   \
    NUM(stab, 0.03, "setting [0, 1]", "the two fits are stable when they differ by at most this") \
    NUM(n_max, 4, "int [1, 64]", "largest number of data points (more lengthen the transient)") \
    NUM(steps, 4000, "int [64, 100000]", "first horizon T (doubled while the fit is unstable)") \
    NUM(steps_max, 64000, "int [64, 1000000]", "largest horizon (a run length bound)")
LM_PARAMS(PARAMS)

/* f(w) = (1/n) sum_i log(1 + e^{-m_i w}) and f'(w) = -(1/n) sum_i m_i / (1 + e^{m_i w}) */
static double loss(const double *mg, int n, double w, double *grad)
{
    double f = 0, df = 0;
    for (int i = 0; i < n; i++) {
        f += log1p(exp(-mg[i] * w));
        df -= mg[i] / (1.0 + exp(mg[i] * w));
    }
    *grad = df / n;
    return f / n;
}

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    const int n = lm_size(ev, "n", lm_rng_int(g, 1, (int)P.n_max), 1, (int)P.n_max);
    double *mg = malloc(sizeof *mg * (size_t)n), L = 0;
    if (!mg) return lm_fail(ev, "out of memory");
    for (int i = 0; i < n; i++) {
        mg[i] = i == 0 ? 0.5 + 1.5 * lm_rng_uniform(g) : mg[0] * (2.0 + lm_rng_uniform(g));
        L += mg[i] * mg[i] / (4.0 * n);
    }
    int T = (int)P.steps;
    lm_rate_fit fit;
    for (;;) {
        double *t = malloc(sizeof *t * (size_t)T), *y = malloc(sizeof *y * (size_t)T);
        if (!t || !y) {
            free(t);
            free(y);
            free(mg);
            return lm_fail(ev, "out of memory");
        }
        double w = 0, wprev = 0, df;
        loss(mg, n, w, &df);
        for (int k = 1; k <= T; k++) {
            wprev = w;
            w -= df / L; /* w_k = w_{k-1} - f'(w_{k-1}) / L; then f'(w_k) for the next step */
            y[k - 1] = log(loss(mg, n, w, &df)); /* log f(w_k), f* = 0 */
        }
        /* the time origin: u_t = e^{mu w_t} grows linearly, so u_T / (u_T - u_{T-1}) = T + t0 */
        const double uT = exp(mg[0] * w), t0 = fmax(0.0, uT / (uT - exp(mg[0] * wprev)) - T);
        for (int k = 1; k <= T; k++) t[k - 1] = k + t0;
        lm_rate_fit_seq(&fit, t, y, T, -P.p, 0, P.tol, 0.95, P.stab);
        free(t);
        free(y);
        if (fit.decision != LM_RATE_TOO_SHORT || 2 * T > (int)P.steps_max) break;
        T *= 2;
    }
    free(mg);
    lm_measure(ev, "horizon T", T);
    lm_rate_judge(ev, &fit, "log f(w_t) vs log t");
    return 0;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "Fitted slope of log f(w_t) against log t for GD with eta = 1/L on 1-d separable logistic "
     "data (n <= 4, margin gap), T = 4000 doubled up to 64000, against -p = -1.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_tutorial_gd_rate) = {
    .kind = LM_KIND_RATE,
    .source = "folklore (Soudry et al. 2018, Thm. 3)",
    .origin = "reconstructed",
    .confidence = "high",
    .params = params,
    .readings = readings,
    .inst_scale = 0.5,
    .proxy = 1,
    .eval = eval,
};
