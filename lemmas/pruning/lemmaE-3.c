/* lemmas/pruning/lemmaE-3.c
 *
 * \claim{pruning/lemmaE.3}{Lipschitz continuity of the pruned attention $f$}
 * \source{attention-pruning, Appendix E, Lemma E.3}
 * \statement{Under Assumption D.1 ($|X_{ij}|\le R$, $|W_{ab}|\le R$, $R>1$), for all
 *   $M,\tilde M\in\mathbb R^{d\times d}$:
 *   $\|f(M)-f(\tilde M)\|_F\le L_f\|M-\tilde M\|_F$ with $L_f=2\sqrt n\,dR^3$
 *   (RECON: Lemma D.4 combined with Fact E.1, $\sqrt{p}=d$).}
 * \check{The stated constant is $\texttt{coef}\cdot n^{\texttt{n\_exp}}d^{\texttt{d\_exp}}R^{\texttt{R\_exp}}$
 *   (defaults $2$, $\frac12$, $1$, $3$), evaluated at $R=\max(1,\max|X_{ij}|,\max|W_{ab}|)$, the
 *   sharpest box the instance satisfies.  Instances: $(n,d)$ from the catalogue's grids with
 *   $n,d\le8$ (14 pairs, $n=1$ and $d=1$ included), $R\in\{1+10^{-6},1.5,2,4\}$, $X$ and $W$ each
 *   from the four families (uniform, Rademacher corners, rescaled Gaussian, rank-4), the
 *   starting mask from $U[0,1]$, $\{0,1\}$, $\mathbf 1$, $0$ or off-domain $U[-1,2]$;
 *   configurations \texttt{noncausal} (full support) and \texttt{causal}.
 *   The true constant is $\sup_M\|Df(M)\|_{\rm op}$ (the domain is all of $\mathbb R^{d\times d}$,
 *   convex), so every estimate below is a lower bound of it and an estimate above the stated
 *   constant is a genuine break.  (2) An adversarial maximiser in double first moves the mask:
 *   random restarts (off-domain, uniform, zero, small, binary masks), compass search in a random
 *   5-dimensional subspace of mask space, then greedy sign flips of entries of $X$ and $W$
 *   (moduli kept, so D.1 still holds), each step scored by a short power iteration.  At the
 *   point found, in the working precision: (1a) the core's assembled Jacobian (central
 *   differences, $d^2$ columns) and its largest singular value, and (1b) a block power
 *   iteration (block 6, Rayleigh--Ritz) on $V\mapsto J^\top JV$ with $JV$ by central
 *   differences and $J^\top U=W\circ(X^\top G_HX)$ exact ($G_H$ the row-softmax Jacobian applied
 *   to $U$); the two must agree to $10^{-6}$ relative plus the difference noise, else the
 *   instance is an \emph{error}.  The step is $h=h_0/\max(1,\|X\|_F^2\|W\|_\infty)$ with
 *   $h_0=2^{-17}$ in double and $2^{-p/3}$ in MPFR-$p$, so the truncation error stays at
 *   $h_0^2$ relative even for saturated logits.  (3) Two-point ratios
 *   $\|f(M)-f(M+sV)\|_F/s$ along the top singular direction and a random unit direction for
 *   $s\in\{2,0.3,10^{-2},10^{-4}\}$ in the working precision, and along the top direction for
 *   $s\in\{10^{-8},10^{-12}\}$ in MPFR-256 (double cancels there).  Each estimate is one
 *   observation ``estimate $\le$ stated''; the report shows the sharpest value found and the slack
 *   stated/estimated (catalogue: 0.04--0.14 of the stated).  A coefficient scaled down below
 *   the measured ratio (e.g. \texttt{coef}$\times10^{-4}$) is violated.}
 */
#include "lm_prlip.h"
#include <math.h>

static const char *const configs[] = {"noncausal", "causal", NULL};

#define PARAMS(NUM, SWITCH)                                                                            \
    NUM(coef, 2.0, "constant [0, 1e6]", "coefficient of L_f = coef n^n_exp d^d_exp R^R_exp (RECON 2)") \
    NUM(n_exp, 0.5, "exponent [-16, 16]", "exponent of n in L_f (RECON 1/2)")                          \
    NUM(d_exp, 1.0, "exponent [-16, 16]", "exponent of d in L_f (RECON 1)")                            \
    NUM(R_exp, 3.0, "exponent [-16, 16]", "exponent of R in L_f (RECON 3)")
LM_PARAMS(PARAMS)

static double stated(lm_eval *ev, int n, int d, double R, double lambda)
{
    const lm_params P = lm_params_of(ev);
    (void)lambda;
    return P.coef * pow((double)n, P.n_exp) * pow((double)d, P.d_exp) *
           pow(R, P.R_exp);
}

static int eval(lm_eval *ev)
{
    const lm_prlip_spec s = {.map = LM_PR_MAP_F, .stated = stated};
    return lm_prlip_eval(ev, &s);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Full support, n, d <= 8, R up to 4, four families, masks incl. off-domain: "
                    "adversarial Jacobian-norm estimates of f(M) vs the RECON L = 2 sqrt(n) d "
                    "R^3.", NULL},
    {LM_READ_PAPER, "Causal support, n, d <= 8, R up to 4, four families, masks incl. off-domain: "
                    "adversarial Jacobian-norm estimates of f(M) vs the RECON L = 2 sqrt(n) d "
                    "R^3.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_lemmaE_3) = {
    .kind = LM_KIND_POINTWISE,
    .source = "attention-pruning, Appendix E, Lemma E.3",
    .origin = "reconstructed (RECON constant: coef, n_exp, d_exp, R_exp)",
    .confidence = "low",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .eval = eval};
