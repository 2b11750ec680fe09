/* lemmas/pruning/lemma5-6.c
 *
 * \claim{pruning/lemma5.6}{Sandwich lower bound $\|X^\top BX\|_F\ge\beta\|B\|_F$}
 * \source{attention-pruning, Lemma 5.6 (informal version of Lemma F.4)}
 * \statement{Let $B\in\mathbb R^{n\times n}$ and $X\in\mathbb R^{n\times d}$ with
 *   $XX^\top\succeq\beta I_n$, $\beta\ge0$.  Then $\|X^\top BX\|_F\ge\beta\|B\|_F$.}
 * \check{$\beta=\lambda_{\min}(XX^\top)$ is computed in the working precision (symmetric
 *   eigensolver; rank-classified, so $n>d$ gives exactly $0$).  Instances ($n\in[1,4]$,
 *   $d\in[n,n+4]$) cycle through five kinds: Gaussian $X$ and $B$; Gaussian $X$ and
 *   $B=v_{\min}v_{\min}^\top$ with $v_{\min}$ the bottom eigenvector of $XX^\top$ (the
 *   analytic minimiser over $B$: the ratio is exactly 1 for every $X$); the equality family
 *   $X=\sqrt{\beta_0}[I_n|0]Q$ with $Q$ random orthogonal; a skew $B$; a rank-one $B$.  The
 *   observation is $\texttt{coef}\cdot\beta\|B\|_F\le\|X^\top BX\|_F$ with the relative
 *   tolerance $\texttt{tol\_scale}\cdot64(n+d)^2\kappa\,u$ ($u$ the unit roundoff of the
 *   working precision, $\kappa=\lambda_{\max}/\lambda_{\min}$ of $XX^\top$, which bounds the
 *   relative rounding error of the computed $\beta$), so an MPFR replay shrinks it.  Because
 *   two kinds are exact equalities, any tightening such as $\texttt{coef}=1.001$ is caught.
 *   One instance in eight has $n>d$: then $\beta=0$ and the instance is
 *   assumption-failed (never a pass); \texttt{regime}$=$n>d makes every instance so.
 *   Readings: \texttt{mixed} reads the paper; \texttt{n>d} is a probe ($\beta=0$ on every instance,
 *   assumption-failed).}
 */
#include "lm_prbd.h"

static const char *const configs[] = {"mixed", "n>d", NULL};

#define PARAMS(NUM, SWITCH)                                                                         \
    NUM(coef, 1.0, "constant [0, 1e6]", "multiplies beta in the lower bound (the paper: 1)")        \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies the rounding tolerance 64 (n+d)^2 kappa u") \
    SWITCH(regime, 0, "mixed|n>d", "mixed: one instance in 8 has n > d; n>d: all (beta = 0)")
LM_PARAMS(PARAMS)

static int eval(lm_eval *ev) { return lm_prbd_sandwich_eval(ev, 0); }

static const lm_reading readings[] = {
    {LM_READ_PAPER, "beta = lambda_min(X X^T), n <= 4, d in [n, n+4], 1 in 8 with n > d: Gaussian, "
                    "bottom-eigenvector B and [I|0]Q equality instances, skew and rank-one "
                    "B.", NULL},
    {LM_READ_PROBE, "every instance has n > d, so beta = lambda_min(X X^T) = 0: outside the hypothesis beta > 0",
     "regime=n>d"},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_lemma5_6) = {
    .kind = LM_KIND_POINTWISE,
    .source = "Lemma 5.6 (informal version of Lemma F.4)",
    .origin = "reconstructed",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 1.0,
    .eval = eval,
};
