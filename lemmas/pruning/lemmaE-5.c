/* lemmas/pruning/lemmaE-5.c
 *
 * \claim{pruning/lemmaE.5}{Lipschitz continuity of $p_1=f\circ c$}
 * \source{attention-pruning, Appendix E, Lemma E.5}
 * \statement{Under Assumption D.1, for all $M,\tilde M$: $\|p_1(M)-p_1(\tilde M)\|_F\le L_{p_1}\|M-\tilde M\|_F$
 *   with $p_1=f\circ c$ and $L_{p_1}=4\sqrt n\,dR^3$ (RECON, using $|f_{ij}|\le1$, $|c_{ij}|\le1$; the
 *   literal Fact E.2 route gives $8n^{3/2}dR^3$).}
 * \check{The true constant is $\sup_M\|Dp_1(M)\|_{\rm op}$ over the convex domain $\mathbb R^{d\times d}$, so
 *   every estimate below is a lower bound of it and an estimate above the stated constant is a
 *   genuine break.  Instances: $(n,d)$ from the catalogue's grids with $n,d\le8$ (14 pairs, $n=1$ and
 *   $d=1$ included), $R\in\{1+10^{-6},1.5,2,4\}$, $X$ and $W$ each from the four families (uniform,
 *   Rademacher corners, rescaled Gaussian, rank-4), the starting mask from $U[0,1]$, $\{0,1\}$,
 *   $\mathbf 1$, $0$ or off-domain $U[-1,2]$; configurations \texttt{noncausal} and \texttt{causal}.
 *   The constant is evaluated at $R=\max(1,\max|X_{ij}|,\max|W_{ab}|)$.  Estimators (shared with
 *   Lemma E.3): (2) an adversarial maximiser in double (random restarts including off-domain
 *   masks, compass search in a random 5-dimensional subspace of mask space, greedy sign flips of
 *   the entries of $X$ and $W$ with moduli kept); at the point found, in the working precision,
 *   (1a) the core's assembled central-difference Jacobian and its largest singular value and (1b)
 *   a block power iteration on $V\mapsto J^\top JV$ ($JV$ by central differences, $J^\top U$ exact
 *   through the adjoint of the softmax chain, $dp_1=df\circ(c+f)$), which must agree with (1a) to $10^{-6}$
 *   relative plus the difference noise (else \emph{error}); (3) two-point ratios along the top
 *   singular direction and a random direction at $s\in\{2,0.3,10^{-2},10^{-4}\}$ in the working
 *   precision and at $s\in\{10^{-8},10^{-12}\}$ in MPFR-256.  Each estimate is one observation
 *   ``estimate $\le$ stated''; the report shows the sharpest value found and the slack
 *   stated/estimated (catalogue: 0.047).  A coefficient scaled down below the measured ratio
 *   (\texttt{coef}$\times10^{-4}$) is violated.}
 */
#include "lm_prlip.h"
#include <math.h>

static const char *const configs[] = {"noncausal", "causal", NULL};

#define PARAMS(NUM, SWITCH)                                                                             \
    NUM(coef, 4.0, "constant [0, 1e6]", "coefficient of L_p1 = coef n^n_exp d^d_exp R^R_exp (RECON 4)") \
    NUM(n_exp, 0.5, "exponent [-16, 16]", "exponent of n (RECON 1/2; literal route 3/2 with coef 8)")   \
    NUM(d_exp, 1.0, "exponent [-16, 16]", "exponent of d (RECON 1)")                                    \
    NUM(R_exp, 3.0, "exponent [-16, 16]", "exponent of R (RECON 3)")
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
    const lm_prlip_spec s = {.map = LM_PR_MAP_P1, .stated = stated};
    return lm_prlip_eval(ev, &s);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Full support, n, d <= 8, R up to 4, four families, masks incl. off-domain: "
                    "adversarial Jacobian-norm estimates of p1 = f o c vs the RECON L = 4 sqrt(n) "
                    "d R^3.", NULL},
    {LM_READ_PAPER, "Causal support, n, d <= 8, R up to 4, four families, masks incl. off-domain: "
                    "adversarial Jacobian-norm estimates of p1 = f o c vs the RECON L = 4 sqrt(n) "
                    "d R^3.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_lemmaE_5) = {
    .kind = LM_KIND_POINTWISE,
    .source = "attention-pruning, Appendix E, Lemma E.5",
    .origin = "reconstructed (RECON constant: coef, n_exp, d_exp, R_exp)",
    .confidence = "low",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .eval = eval};
