/* lemmas/pruning/theoremC-5.c
 *
 * \claim{pruning/theoremC.5}{Closed form of the gradient (formal)}
 * \source{attention-pruning, Appendix C, Theorem C.5}
 * \statement{$\nabla\mathcal L(M)=W\circ\big(X^\top(p_1(M)-p_2(M))X\big)+\lambda M$ with $p_1=f\circ c$, $p_2=\mathrm{diag}(p_1\mathbf 1_n)f$, for Definition 3.2 (causal) and Definition 1.2 (full).}
 * \check{The closed form is assembled literally as matrices ($p_1=f\circ c$, $p_2=\mathrm{diag}(p_1\mathbf 1_n)f$, $X^\top(p_1-p_2)X$, Hadamard with $W$, plus $\lambda M$) and each sampled entry is compared with central differences of $\mathcal L$.  Saturated softmax (large $R$): the gradient is tiny and double difference noise dominates; the tolerance is relative to the natural scale $D$, the formula with absolute values, and a configuration whose double tolerance exceeds $0.05D$ is promoted to MPFR (decided by MPFR-128 and MPFR-256 only).  Every instance is rebuilt in IEEE double ($h=10^{-6}\max(1,|M_{i_0j_1}|)$), MPFR-128
 *   ($h=2^{-40}$) and MPFR-256 ($h=2^{-80}$), and on up to 8 random coordinates $(i_0,j_1)$ the
 *   observation is $\mathrm{res}_p=\big(\sum\|\mathrm{closed}-\mathrm{FD}\|_F^2\big)^{1/2}\le\tau_p
 *   =\texttt{tol\_scale}\cdot K\big(h_{\max}^2\,T\,\rho^3+u_p(D+\sqrt k\,\|F\|_F/h_p)\big)$, $K=4(n+d+4)^2$,
 *   where $\rho=2|W_{i_0j_1}|\max_j|X_{j,i_0}|\max_k|X_{k,j_1}|$ bounds the rate at which a logit row
 *   moves with $M_{i_0j_1}$, $T\rho^3$ bounds the third derivative of the map ($T=18n$ as for $\mathcal L_{\rm rec}$), $u_p$ is the
 *   unit roundoff, $D$ the norm of the formula evaluated with absolute values (its natural scale)
 *   and $k$ the number of coordinates: the first term is the truncation error of the central
 *   difference, the second the rounding of the formula and of the quotient.  A precision whose
 *   $\tau_p$ exceeds $0.05D$ (saturated or huge logits in double) cannot tell a wrong formula and
 *   is promoted to MPFR: it is measured, not observed; MPFR-256 is always observed.  The residual
 *   must shrink: $\mathrm{res}_{256}\le\max(2^{-60}\mathrm{res}_{53},\tau_{256})$.  The report
 *   shows $\log_{10}$ of the relative residual $\mathrm{res}_p/D$ per precision.  Instances cycle
 *   through families (i)--(iv) of $X$ and $W$, $n\in\{5, 16, 2, 1\}$, $d\in\{3, 8, 1\}$, $R\in\{1.0, 2.0, 4.0\}$, $\lambda\in\{10^{-3},0,1\}$
 *   and the masks $U[0,1]$, corners, $\mathbf 1$, $0$ and off-domain $U[-1,2]$; configurations full
 *   and causal support.  Wrong variants that must come out violated: \texttt{scale}$\ne1$
 *   multiplies the closed form, and the four mutation canaries of the catalogue (\texttt{mutation}$=$p-transpose: $p\to p^\top$; drop-p2; double-lambda: $\lambda\to2\lambda$; W-transpose: $W\to W^\top$).  Edge identities (every 3-th instance, in the runner's precision): $\nabla\mathcal L(\mathbf 1)=\lambda\mathbf 1$ and $n=1\Rightarrow\nabla\mathcal L=\lambda M$ with the closed form, to $4u\lambda\|M\|_F$ (they are exact: $c=0$ entrywise).}
 */
#include "lm_prfd.h"
#include <math.h>

static const char *const configs[] = {"full", "causal", NULL};
#define PARAMS(NUM, SWITCH)                                                                                                                                                   \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies the tolerance tau_p (truncation + rounding)")                                                                         \
    NUM(scale, 1.0, "constant [-1e6, 1e6]", "coefficient on the closed form (1 as stated; other values: a wrong formula)")                                                    \
    SWITCH(mutation, 0, "none|p-transpose|drop-p2|double-lambda|W-transpose", "the stated formula, or a mutation canary: p -> p^T, p2 dropped, lambda -> 2 lambda, W -> W^T")
LM_PARAMS(PARAMS)

static const int NS[] = {5, 16, 2, 1};
static const int DS[] = {3, 8, 1};
static const double RS[] = {1.0, 2.0, 4.0};
static const double LAMS[] = {1e-3, 0.0, 1.0};

static int eval(lm_eval *ev)
{
    lm_prfd_grid gr = {NS, (int)(sizeof NS / sizeof NS[0]), DS, (int)(sizeof DS / sizeof DS[0]), RS,
                       (int)(sizeof RS / sizeof RS[0]), LAMS, (int)(sizeof LAMS / sizeof LAMS[0])};
    return lm_prfd_gradient_eval(ev, &gr, 8, 3);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Full support (Definition 1.2), n in {1,2,5,16}, d in {1,3,8}, R in {1,2,4}, "
                    "lambda in {1e-3, 0, 1}: the assembled closed-form gradient vs central "
                    "differences.", NULL},
    {LM_READ_PAPER, "Causal support (Definition 3.2), n in {1,2,5,16}, d in {1,3,8}, R in {1,2,4}, "
                    "lambda in {1e-3, 0, 1}: the assembled closed-form gradient vs central "
                    "differences.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_theoremC_5) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Appendix C, Theorem C.5",
    .origin = "reconstructed",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .eval = eval,
};
