/* lemmas/precond/remark3.c
 *
 * \claim{precond/remark3}{Theorem 2 with the regularised loss}
 * \source{preconditioned-softmax-regression, Remark after Theorem 2 (Section 4)}
 * \statement{The bound of Theorem 2 also holds with $L,L_0$ replaced by $L_{\rm reg}$ and
 *   $L^\star_{\rm reg}=\min L_{\rm reg}=L_0$: with probability $\ge1-p$,
 *   $L_{\rm reg}(\theta_T)-L_0\lesssim\rho^T+1/N$ up to logarithmic factors.}
 * \check{The runs of precond/theorem2 (same instances, seeds and parameters), tracking
 *   $L_{\rm reg}(\theta_t)-L_0=(L-L_0)+R$, both terms formed directly (from $E$ and from
 *   $A^\top A-BB^\top$), never as a difference of losses.  \emph{TR-A} (population oracle, exact
 *   $\Sigma$; tube start with $\eta=\alpha_r/\beta_r^2$, spectral start and the $\kappa=10^6$ MPFR-256
 *   run with $\eta=1/(4s_1)$): at every iterate above the rounding floor,
 *   $L-L_0\le L_{\rm reg}-L_0$ (it can only fail through a negative computed $R$, i.e. a broken
 *   regulariser); the descent lemma $L_{\rm reg}-L_0\le\frac\beta2\Phi_t$ at every iterate in the tube; the fitted $\hat\rho$ of $\log(L_{\rm reg}-L_0)_t$, by the rate rule for a
 *   linear rate as in precond/theorem2 (window $t\in[T/8,T]$, stable against $[T/16,T/2]$ within
 *   $\max(0.05|\log\hat\rho|,2\sqrt{{\rm se}^2+{\rm se}_{1/2}^2})$, else measured and not judged), must have its
 *   CI lower end (level ${\rm erf}(z/\sqrt2)$, $z=2$) $<1$ and $\le1-2\alpha\eta+\beta^2\eta^2$ with
 *   $\alpha=\texttt{alpha\_scale}\,\alpha_r$, $\beta=\texttt{beta\_scale}\,\beta_r$ --- the same rate as
 *   $\Phi_t$, since $L_{\rm reg}-L_0$ is squeezed between multiples of $\Phi_t$ near $\mathcal M$
 *   (precond/lemma2).  Readings as in precond/theorem2: the tube start and TR-B read the paper,
 *   the two runs with the practical step $1/(4s_1)$ (beyond $\eta\le\eta_0$) are probes.  \emph{TR-B} (MC oracle from a fixed pool, $N\in\{16,24,32,48\}$, $\hat\Sigma$
 *   preconditioner, $d=2$, $k=3$, $s_1=0.45$): the plateau of $L_{\rm reg}-L_0$ (median of the last
 *   20\%) must decay with fitted exponent $\hat\gamma+z\,\mathrm{se}\ge\texttt{gamma\_claim}-\texttt{gamma\_tol}$
 *   ($1-0.15$), under the same plateau and MC-noise conditions as precond/theorem2 (else
 *   assumption-failed).  This exponent fit stays a plain least-squares fit over the four $N$: see
 *   precond/theorem2.}
 */
#include "lm_pctr.h"

static int eval(lm_eval *ev)
{
    return lm_pctr_eval_tr(ev, 1);
}

LM_CLAIM(claim_precond_remark3) = {
    .kind = LM_KIND_RATE,
    .source = "Remark after Theorem 2 (Section 4)",
    .origin = "reconstructed (RECON constant: alpha_scale, beta_scale, gamma_claim)",
    .confidence = "medium",
    .params = lm_pctr_tr_params,
    .configs = lm_pctr_tr_configs,
    .readings = lm_pctr_tr_readings,
    .inst_scale = 1.0 / 64,
    .proxy = 1,
    .no_replay = 1,
    .eval = eval,
};
