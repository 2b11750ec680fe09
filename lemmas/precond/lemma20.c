/* lemmas/precond/lemma20.c
 *
 * \claim{precond/lemma20}{Conditional bias of the softmax covariance $C_j$}
 * \source{preconditioned-softmax-regression, Appendix, Lemma 20}
 * \statement{$\|\mathbb E_{-j}C_j-\Sigma\|_F\le\frac{\sum_{r=1}^6D_r(x_j)}{N}$,
 * $C_j=\sum_ip_{ij}x_ix_i^\top-z_jz_j^\top$, $\Sigma$ the population limit (the covariance of the
 * exponentially tilted Gaussian); self-interaction terms $D_1,D_2,D_3$ and cross terms $D_4,D_5,D_6$
 * (whether the norm is squared is uncertain; the unsquared norm is checked)}
 * \check{Instance per seed: $d=$ \texttt{d} (3), $\Sigma=GG^\top/d+0.5I$, $W_{KQ}$ Gaussian scaled so that
 * $s_j=\|\Sigma^{1/2}W_{KQ}x_j\|^2=$ \texttt{s\_target} (0.5) at the fixed query, the query
 * $x_j\sim\mathcal N(0,\Sigma)$; the context $x_i\sim\mathcal N(0,\Sigma)$ ($i\ne j$) and the
 * in-sample softmax (self term included), $C_j$ formed as the weighted covariance
 * $\sum_ip_{ij}(x_i-z_j)(x_i-z_j)^\top$ (lm\_pcmc, double precision). Grid: $N$ doubling from
 * \texttt{N\_min} to \texttt{N\_max} ($32,\dots,512$), common random numbers across $N$ (draw $t$
 * reuses its key, so the first $N-1$ covariates are shared). Estimate at each $N$: \texttt{M} draws in
 * 16 batches; the squared norm of the mean of $C_j-\Sigma$ by the unbiased U-statistic over batch
 * means with a jackknife standard error; the judged quantity is its square root (the unsquared norm),
 * so its slope is half that of the squared estimate. Variance reduction by an exact zero-mean control
 * variate: with $w_i=e^{a_j^\top x_i-s_j/2}/N$ (so that $\mathbb E\,w_ig(x_i)=\mathbb E_{\mathcal
 * N(\mu_j,\Sigma)}g$), the draw's $C_j-\Sigma$ is replaced by $C_j-\Sigma-\sum_{i\ne
 * j}w_i((x_i-\mu_j)(x_i-\mu_j)^\top-\Sigma)$, whose mean is the same; it removes the $O(N^{-1/2})$
 * first-order fluctuation. Proxy, by the rate rule (\texttt{lm\_rate\_fit\_seq}): the least-squares slope of
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
 * (a point added by doubling the horizon that misses this leaves the horizon where it was). Defaults: $N\in\{32,\dots,512\}$ doubling, \texttt{M} $=2400$; at the
 * default budget two instances (seeds), one in quick mode. Monte Carlo estimates are not replayed in
 * MPFR (\texttt{no\_replay}). It can fail: a quantity decaying more slowly than $N^{e+\rm tol}$ comes
 * out inconsistent (the test sets a too-steep exponent and asserts it).
 * The switch \texttt{norm} (default \texttt{unsquared}, the catalogue's reading) judges the
 * squared norm instead (the same exponent on $\|\cdot\|_F^2$): which one the paper bounds is uncertain.
 * }
 */
#include "lm_pcmo.h"

static const lm_param_def params[] = {
    LM_PCMO_PARAMS(-1, 0.1, 32, 512, 2400, 0.5, 2048, 10000, 12),
    {"norm", 1, "the judged norm: squared, or unsquared ||.||_F (the catalogue; the paper may bound either)", "squared|unsquared", NULL},
    {NULL, 0, NULL, NULL, NULL}};

static int eval(lm_eval *ev)
{
    return lm_pcmo_run(ev, LM_PCMO_COND_BIAS, LM_PCMO_C, lm_par_i(ev, "norm") ? 0.5 : 1.0, 0, 0);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "MC proxy at a fixed query with s_j = 0.5 (d = 3): slope of log ||E_-j C_j - Sigma||_F "
     "(unsquared) against log N, N = 32..512, at most -1 + 0.1, with a control variate.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_precond_lemma20) = {
    .kind = LM_KIND_RATE,
    .source = "preconditioned-softmax-regression, Appendix, Lemma 20",
    .origin = "reconstructed",
    .confidence = "medium-low",
    .params = params,
    .readings = readings,
    .inst_scale = 1.0 / 32,
    .proxy = 1,
    .no_replay = 1,
    .eval = eval};
