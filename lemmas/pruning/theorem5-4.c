/* lemmas/pruning/theorem5-4.c
 *
 * \claim{pruning/theorem5.4}{Lipschitz gradient (informal version of Theorem E.8)}
 * \source{attention-pruning, Section 5, Theorem 5.4 (informal version of Theorem E.8)}
 * \statement{Under Assumption D.1, $\|\nabla\mathcal L(M)-\nabla\mathcal L(\tilde M)\|_F\le L\|M-\tilde M\|_F$
 *   with $L=\mathrm{poly}(n,d,R)+\lambda$; the polynomial is read as the RECON constant of Theorem E.8,
 *   $(4n^2+6n^{3/2})d^2R^6$.}
 * \check{The stated constant is $(\texttt{coef\_n2}\,n^2+\texttt{coef\_n15}\,n^{3/2})\,d^{\texttt{d\_exp}}R^{\texttt{R\_exp}}
 *   +\texttt{lambda\_coef}\cdot\lambda$ (defaults $4,6,2,6,1$) at $R=\max(1,\max|X_{ij}|,\max|W_{ab}|)$.
 *   The gradient is Lipschitz on all of $\mathbb R^{d\times d}$ iff $\sup_M\|\nabla^2\mathcal L(M)\|_{\rm op}$
 *   is, so every estimate below is a lower bound of the true constant and an estimate above the
 *   stated one is a genuine break.  Instances: $(n,d)$ with $n,d\le4$ (7 pairs), $R\in\{1+10^{-6},1.5,2,4\}$, $X$ and $W$ from
 *   the four families (uniform, Rademacher corners, rescaled Gaussian, rank-4),
 *   $\lambda\in\{0,10^{-3},0.1,1\}$, the starting mask from $U[0,1]$, $\{0,1\}$, $\mathbf 1$, $0$ or
 *   off-domain $U[-1,2]$; one configuration, \texttt{noncausal}.  (2) An adversarial maximiser in double (random restarts
 *   including off-domain masks, compass search in a random 5-dimensional subspace of mask space,
 *   greedy sign flips of the entries of $X$ and $W$ with moduli kept, i.e.\ search over the box
 *   corners) moves the instance; at the point found, in the working precision, (1a) the core's
 *   assembled Hessian (central differences of the closed-form gradient, $d^2$ columns) and its
 *   largest singular value and (1b) a block power iteration on Hessian-vector products
 *   $Hv\approx[\nabla\mathcal L(M+hv)-\nabla\mathcal L(M-hv)]/2h$ ($H$ symmetric, iterated as
 *   $H^2$ with Rayleigh--Ritz), which must agree with (1a) to $\max(10^{-6},100\sqrt u)$ relative plus the
 *   difference noise (else \emph{error}; $u$ the unit roundoff: differences of the gradient carry its
 *   rounding amplified by the logit scale).  The step is $h=h_0/\max(1,\|X\|_F^2\|W\|_\infty)$,
 *   $h_0=2^{-17}$ in double and $2^{-p/3}$ in MPFR-$p$ (a break is replayed at 256 bits, where the
 *   difference error is $\sim10^{-50}$).  (3) Two-point ratios
 *   $\|\nabla\mathcal L(M)-\nabla\mathcal L(M+sV)\|_F/s$ along the top eigendirection and a random
 *   direction at $s\in\{2,0.3,10^{-2},10^{-4}\}$, and at $s\in\{10^{-8},10^{-12}\}$ in MPFR-256.
 *   Each estimate is an observation ``estimate $\le$ stated''.  Item (4): the instance-level
 *   constant $\|W\|_\infty\|X\|_F^2L_p+\lambda$ ($L_p$ the RECON E.7 constant) is reported, with
 *   the observations ``sharpest estimate $\le$ instance-level constant'' and ``instance-level
 *   $\le$ stated'' (the D.1/D.2 step).  The report shows the sharpest value and the slack
 *   stated/estimated (catalogue: $4.7\times10^{-4}$--$4.1\times10^{-3}$).  Item (3) of the
 *   catalogue, the descent lemma along GD with $\eta=1/L$, needs a training run and is checked
 *   with the trajectory claims (pruning/theorem5.2), not here.  Both coefficients scaled by
 *   $10^{-5}$ with $\lambda=0$ in the stated constant are violated.  This is the informal statement: the same check as Theorem E.8 in fewer configurations.}
 */
#include "lm_prlip.h"
#include <math.h>

static const char *const configs[] = {"noncausal", NULL};

#define PARAMS(NUM, SWITCH)                                                                                                                           \
    NUM(coef_n2, 4.0, "constant [0, 1e6]", "coefficient of n^2 in L = (coef_n2 n^2 + coef_n15 n^1.5) d^d_exp R^R_exp + lambda_coef lambda (RECON 4)") \
    NUM(coef_n15, 6.0, "constant [0, 1e6]", "coefficient of n^1.5 (RECON 6)")                                                                         \
    NUM(d_exp, 2.0, "exponent [-16, 16]", "exponent of d (RECON 2)")                                                                                  \
    NUM(R_exp, 6.0, "exponent [-16, 16]", "exponent of R (RECON 6)")                                                                                  \
    NUM(lambda_coef, 1.0, "constant [0, 1e6]", "coefficient of lambda (1: the regulariser's Hessian lambda I)")
LM_PARAMS(PARAMS)

static double stated(lm_eval *ev, int n, int d, double R, double lambda)
{
    const lm_params P = lm_params_of(ev);
    double nn = (double)n;
    return (P.coef_n2 * nn * nn + P.coef_n15 * pow(nn, 1.5)) *
               pow((double)d, P.d_exp) * pow(R, P.R_exp) +
           P.lambda_coef * lambda;
}

static int eval(lm_eval *ev)
{
    const lm_prlip_spec s = {.map = LM_PR_MAP_GRAD, .stated = stated, .e8 = 1, .small = 1};
    return lm_prlip_eval(ev, &s);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Non-causal, n, d <= 4, R up to 4, lambda in {0, 1e-3, 0.1, 1}: adversarial "
                    "Hessian-norm estimates vs (4n^2 + 6n^1.5) d^2 R^6 + lambda.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_theorem5_4) = {
    .kind = LM_KIND_POINTWISE,
    .source = "attention-pruning, Section 5, Theorem 5.4 (informal version of Theorem E.8)",
    .origin = "reconstructed (RECON constant: coef_n2, coef_n15, d_exp, R_exp, lambda_coef)",
    .confidence = "medium (structure), low (constant)",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .eval = eval};
