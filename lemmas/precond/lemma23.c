/* lemmas/precond/lemma23.c
 *
 * \claim{precond/lemma23}{Conditional variance of $C_j$ (Poincar\'e)}
 * \source{preconditioned-softmax-regression, Appendix, Lemma 23}
 * \statement{$\mathrm{Var}_{-j}(C_j)\le\frac{C_{23}(x_j)}{N}$, via the Poincar\'e inequality and
 * (34)--(35), $\|z_j\|\le\sum_ip_{ij}\|x_i\|$,
 * $\|\sum_ip_{ij}x_ix_i^\top\|_F\le\sum_ip_{ij}\|x_i\|^2$, Cauchy--Schwarz and Lemma 9}
 * \check{Instance per seed: $d=$ \texttt{d} (3), $\Sigma=GG^\top/d+0.5I$, $W_{KQ}$ Gaussian scaled so that
 * $s_j=\|\Sigma^{1/2}W_{KQ}x_j\|^2=$ \texttt{s\_target} (0.3) at the fixed query, the query
 * $x_j\sim\mathcal N(0,\Sigma)$; the context $x_i\sim\mathcal N(0,\Sigma)$ ($i\ne j$) and the
 * in-sample softmax (self term included), $C_j$ formed as the weighted covariance
 * $\sum_ip_{ij}(x_i-z_j)(x_i-z_j)^\top$ (lm\_pcmc, double precision). Grid: $N$ doubling from
 * \texttt{N\_min} to \texttt{N\_max} ($64,\dots,1024$), common random numbers across $N$ (draw $t$
 * reuses its key, so the first $N-1$ covariates are shared). Estimate at each $N$: \texttt{M} draws in
 * 16 batches, the sum of entrywise sample variances per batch, averaged, standard error from the
 * batches. Proxy, by the rate rule (\texttt{lm\_rate\_fit\_seq}): the least-squares slope of
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
 * (a point added by doubling the horizon that misses this leaves the horizon where it was). Pointwise Poincar\'e intermediate at every $N$: with $w_l=x_l-z_j$ and
 * $D_l=w_lw_l^\top-C_j$, the derivative is $\partial C_j[h]=p_{lj}((a_j^\top
 * h)D_l+hw_l^\top+w_lh^\top)$, so the middle term per draw is the exact $\sum_{l\ne
 * j}p_{lj}^2[s_j\|D_l\|_F^2+4\mu_j^\top D_lw_l+2\,\mathrm{tr}\Sigma\,\|w_l\|^2+2w_l^\top\Sigma w_l]$,
 * averaged over the same draws; observed as $\widehat{\rm Var}-2\,\mathrm{SE}\le$
 * \texttt{poincare\_scale}$\cdot(\widehat{\rm term}+2\,\mathrm{SE})$. A significant break of the
 * intermediate comes out \emph{inconsistent} (the verdict of any break of a proxy claim); the report
 * gives the largest $\mathrm{Var}/\text{term}$. Defaults: $N\in\{64,\dots,1024\}$ doubling, \texttt{M}
 * $=1200$; at the default budget two instances (seeds), one in quick mode. Monte Carlo estimates are
 * not replayed in MPFR (\texttt{no\_replay}). It can fail: a quantity decaying more slowly than
 * $N^{e+\rm tol}$ comes out inconsistent (the test sets a too-steep exponent and asserts it).
 * }
 */
#include "lm_pcmo.h"

static const lm_param_def params[] = {
    LM_PCMO_PARAMS(-1, 0.1, 64, 1024, 1200, 0.3, 4096, 6000, 12),
    {"poincare_scale", 1.0,
     "multiplies the Poincare term of the intermediate (Gaussian Poincare: 1)",
     NULL, "[0, 1e6]"},
    {NULL, 0, NULL, NULL, NULL}};

static int eval(lm_eval *ev)
{
    return lm_pcmo_run(ev, LM_PCMO_COND_VAR, LM_PCMO_C, 1.0, 0, 0);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "Fixed query with s_j = 0.3 (d = 3): slope of log Var_-j(C_j) against log N, N = 64..1024, "
     "at most -1 + 0.1, by MC over 16 batches per N.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_precond_lemma23) = {
    .kind = LM_KIND_RATE,
    .source = "preconditioned-softmax-regression, Appendix, Lemma 23",
    .origin = "reconstructed",
    .confidence = "medium (quantity), low (constant)",
    .params = params,
    .readings = readings,
    .inst_scale = 1.0 / 32,
    .proxy = 1,
    .no_replay = 1,
    .eval = eval};
