/* lemmas/pruning/theorem5-3.c
 *
 * \claim{pruning/theorem5.3}{Closed form of the gradient (informal version of Theorem C.5)}
 * \source{attention-pruning, Section 5, Theorem 5.3}
 * \statement{$\frac{\mathrm d\mathcal L(M)}{\mathrm dM}=W\circ\big(X^\top p(M)X\big)+\lambda M$, $p(M)=f(M)\circ c(M)-\mathrm{diag}\big((f(M)\circ c(M))\mathbf 1_n\big)f(M)$.}
 * \check{The same evaluator as Theorem C.5 (\texttt{lm\_prfd\_gradient\_eval}; the informal $p=f\circ c-\mathrm{diag}((f\circ c)\mathbf 1_n)f$ is the formal $p_1-p_2$) on a smaller grid (the full protocol is \texttt{pruning/theoremC.5}), compared entrywise with central differences of $\mathcal L$.  Every instance is rebuilt in IEEE double ($h=10^{-6}\max(1,|M_{i_0j_1}|)$), MPFR-128
 *   ($h=2^{-40}$) and MPFR-256 ($h=2^{-80}$), and on up to 4 random coordinates $(i_0,j_1)$ the
 *   observation is $\mathrm{res}_p=\big(\sum\|\mathrm{closed}-\mathrm{FD}\|_F^2\big)^{1/2}\le\tau_p
 *   =\texttt{tol\_scale}\cdot K\big(h_{\max}^2\,T\,\rho^3+u_p(D+\sqrt k\,\|F\|_F/h_p)\big)$, $K=4(n+d+4)^2$,
 *   where $\rho=2|W_{i_0j_1}|\max_j|X_{j,i_0}|\max_k|X_{k,j_1}|$ bounds the rate at which a logit row
 *   moves with $M_{i_0j_1}$, $T\rho^3$ bounds the third derivative of the map ($T=18n$), $u_p$ is the
 *   unit roundoff, $D$ the norm of the formula evaluated with absolute values (its natural scale)
 *   and $k$ the number of coordinates: the first term is the truncation error of the central
 *   difference, the second the rounding of the formula and of the quotient.  A precision whose
 *   $\tau_p$ exceeds $0.05D$ (saturated or huge logits in double) cannot tell a wrong formula and
 *   is promoted to MPFR: it is measured, not observed; MPFR-256 is always observed.  The residual
 *   must shrink: $\mathrm{res}_{256}\le\max(2^{-60}\mathrm{res}_{53},\tau_{256})$.  The report
 *   shows $\log_{10}$ of the relative residual $\mathrm{res}_p/D$ per precision.  Instances cycle
 *   through families (i)--(iv) of $X$ and $W$, $n\in\{5, 3\}$, $d\in\{3, 2\}$, $R\in\{1.5, 2.0\}$, $\lambda\in\{10^{-3},0.5\}$
 *   and the masks $U[0,1]$, corners, $\mathbf 1$, $0$ and off-domain $U[-1,2]$; configurations full
 *   and causal support.  Wrong variants that must come out violated: \texttt{scale}$\ne1$
 *   multiplies the closed form, and the four mutation canaries of the catalogue (\texttt{mutation}$=$p-transpose: $p\to p^\top$; drop-p2; double-lambda: $\lambda\to2\lambda$; W-transpose: $W\to W^\top$).  Edge identities (every 4-th instance, in the runner's precision): $\nabla\mathcal L(\mathbf 1)=\lambda\mathbf 1$ and $n=1\Rightarrow\nabla\mathcal L=\lambda M$ with the closed form, to $4u\lambda\|M\|_F$ (they are exact: $c=0$ entrywise).}
 */
#include "lm_prfd.h"
#include <math.h>

static const char *const configs[] = {"full", "causal", NULL};
#define PARAMS(NUM, SWITCH)                                                                                                                                                   \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies the tolerance tau_p (truncation + rounding)")                                                                         \
    NUM(scale, 1.0, "constant [-1e6, 1e6]", "coefficient on the closed form (1 as stated; other values: a wrong formula)")                                                    \
    SWITCH(mutation, 0, "none|p-transpose|drop-p2|double-lambda|W-transpose", "the stated formula, or a mutation canary: p -> p^T, p2 dropped, lambda -> 2 lambda, W -> W^T")
LM_PARAMS(PARAMS)

static const int NS[] = {5, 3};
static const int DS[] = {3, 2};
static const double RS[] = {1.5, 2.0};
static const double LAMS[] = {1e-3, 0.5};

static int eval(lm_eval *ev)
{
    lm_prfd_grid gr = {NS, (int)(sizeof NS / sizeof NS[0]), DS, (int)(sizeof DS / sizeof DS[0]), RS,
                       (int)(sizeof RS / sizeof RS[0]), LAMS, (int)(sizeof LAMS / sizeof LAMS[0])};
    return lm_prfd_gradient_eval(ev, &gr, 4, 4);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Full support, n in {3, 5}, d in {2, 3}, R in {1.5, 2}, lambda in {1e-3, 0.5}: "
                    "W o (X^T p X) + lambda M vs central differences of L, plus edge "
                    "identities.", NULL},
    {LM_READ_PAPER, "Causal support, n in {3, 5}, d in {2, 3}, R in {1.5, 2}, lambda in {1e-3, "
                    "0.5}: the closed-form gradient with causal f, c vs central differences of "
                    "L.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_theorem5_3) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Section 5, Theorem 5.3",
    .origin = "reconstructed",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.125,
    .eval = eval,
};
