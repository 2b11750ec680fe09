/* lemmas/precond/lemma18.c
 *
 * \claim{precond/lemma18}{Total error of $z_jz_j^\top$}
 * \source{preconditioned-softmax-regression, Appendix, Lemma 18 (statement lost)}
 * \statement{$\mathbb E\|z_jz_j^\top-\mu_j\mu_j^\top\|_F^2\lesssim\frac1N$ (the first term of the
 * $W_V$ part of Theorem 4; statement lost, reconstructed)}
 * \check{Instance per seed: $d=$ \texttt{d} (3), $\Sigma=GG^\top/d+0.5I$, $W_{KQ}$ Gaussian scaled so that
 * $\mathbb E_js_j=\mathrm{tr}(W_{KQ}^\top\Sigma W_{KQ}\Sigma)=$ \texttt{s\_target} (0.05; moderate, so
 * that the heavy-tailed exponential moments stay finite and estimable), the query $x_j\sim\mathcal
 * N(0,\Sigma)$; the context $x_i\sim\mathcal N(0,\Sigma)$ ($i\ne j$) and the in-sample softmax (self
 * term included), $C_j$ formed as the weighted covariance $\sum_ip_{ij}(x_i-z_j)(x_i-z_j)^\top$
 * (lm\_pcmc, double precision). Grid: $N$ doubling from \texttt{N\_min} to \texttt{N\_max}
 * ($16,\dots,256$), common random numbers across $N$ (draw $t$ reuses its key, so the first $N-1$
 * covariates are shared). Plain Monte Carlo over the query and the context jointly: \texttt{M} draws,
 * each with a fresh $x_j$ (the same sequence of queries at every $N$), the mean of
 * $\|z_jz_j^\top-\mu_j\mu_j^\top\|_F^2$ with its standard error (Welford). Proxy, by the rate rule (\texttt{lm\_rate\_fit\_seq}): the least-squares slope of
 * $\log(\text{quantity})$ against $\log N$ with its 95\% $t$ interval, fitted on the asymptotic window
 * $N\in[N_{\max}/8,N_{\max}]$ (the last three doublings of the horizon \texttt{N\_max}; the smaller $N$
 * are pre-asymptotic) and again on $[N_{\max}/16,N_{\max}/2]$. When the two slopes differ by more than
 * $\max(\texttt{stab\_tol},2\sqrt{{\rm se}^2+{\rm se}_{1/2}^2})$ (\texttt{stab\_tol} $=0.05$) the horizon is
 * doubled (one more grid point, at most twice, within the range of \texttt{N\_max}); a slope still
 * unstable is not-checkable (horizon too short), never inconsistent. \emph{Inconsistent} when the whole interval lies above
 * \texttt{exponent}$+$\texttt{tol} (claimed $e=-1$, tolerance 0.1), i.e.\ its lower end exceeds
 * $e+\mathrm{tol}$. The proxy must be informative: every point needs relative standard error $\le$
 * \texttt{rel\_se\_max} (0.25) and a positive estimate, and the slope interval must be narrower than
 * \texttt{ci\_max} (0.6); otherwise the instance is assumption-failed (MC too noisy), never consistent
 * (a point added by doubling the horizon that misses this leaves the horizon where it was). Defaults: $N\in\{16,\dots,256\}$ doubling, \texttt{M} $=6000$; at
 * the default budget two instances (seeds), one in quick mode. Monte Carlo estimates are not replayed
 * in MPFR (\texttt{no\_replay}). It can fail: a quantity decaying more slowly than $N^{e+\rm tol}$
 * comes out inconsistent (the test sets a too-steep exponent and asserts it).
 * At the defaults the fitted slope still drifts towards $-1$ (quick instance: $-1.54$, $-1.42$ on the
 * windows of $N_{\max}=128,256$; at 512 the interval is wider than \texttt{ci\_max}), so the rule reports
 * not-checkable (the whole-grid fit over $16,\dots,256$ used before read consistent).
 * }
 */
#include "lm_pcmo.h"

static const lm_param_def params[] = {
    LM_PCMO_PARAMS(-1, 0.1, 16, 256, 6000, 0.05, 1024, 30000, 12),
    {NULL, 0, NULL, NULL, NULL}};

static int eval(lm_eval *ev)
{
    return lm_pcmo_run(ev, LM_PCMO_JOINT_MOMENT, LM_PCMO_ZZ, 1.0, 2.0, 0);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "Plain MC over query and context (d = 3, E s_j = 0.05, M = 6000 draws): slope of log E||z_j "
     "z_j^T - mu_j mu_j^T||_F^2 against log N, N = 16..256, at most -1 + 0.1.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_precond_lemma18) = {
    .kind = LM_KIND_RATE,
    .source = "preconditioned-softmax-regression, Appendix, Lemma 18 (statement lost)",
    .origin = "reconstructed",
    .confidence = "low",
    .params = params,
    .readings = readings,
    .inst_scale = 1.0 / 32,
    .proxy = 1,
    .no_replay = 1,
    .eval = eval};
