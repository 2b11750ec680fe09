/* lemmas/pruning/lemmaF-7.c
 *
 * \claim{pruning/lemmaF.7}{Final bound for PL: softmax-Jacobian lower bound}
 * \source{attention-pruning, Lemma F.7 (formal version of Lemma 5.7)}
 * \statement{Let $B\in\mathbb R^{n\times n}$ with $B\mathbf 1_n=\mathbf 0_n$ and
 *   $S\in\mathbb R^{n\times n}$ with $S\mathbf 1_n=\mathbf 1_n$, $\min_{ij}S_{ij}\ge\delta>0$.
 *   Then $\|B\circ S-\mathrm{diag}((B\circ S)\mathbf 1_n)S\|_F\ge\delta\|B\|_F$.  Row-wise:
 *   $\|(b_i-\langle b_i,s_i\rangle\mathbf 1_n)\circ s_i\|_2\ge\delta\|b_i-\langle b_i,s_i\rangle
 *   \mathbf 1\|_2\ge\delta\|b_i\|_2$ by F.5 and F.6.  The support-restricted version ($S$, $B$
 *   zero off a common support, $\delta$ the minimum over the support) holds verbatim.}
 * \check{Two configurations: \texttt{full} support and \texttt{causal} (lower-triangular
 *   support, $\delta$ over the support).  $n\in[1,6]$.  Instances cycle through five kinds:
 *   random $S$ (row softmax of $\sigma N$ on the support, $\sigma\in[0.2,3]$) with a random
 *   $B$ projected to zero row sums on the support; uniform $S$ (the attention at $M=0$): the
 *   equality case, ratio exactly $1$ (causal: $B$ on the last row, the row where the support
 *   minimum $1/n$ is attained); $S=f(M)$, $B=c(M)$ of a pruning instance (then the left side is
 *   $\|p(M)\|_F$); an adversarial hill-climb in double over the logits of $S$ and over $B$
 *   minimising LHS$/(\delta\|B\|_F)$; near-uniform $S$ ($\sigma=10^{-3}$).  $S$ is row-normalised
 *   and $B$ re-projected in the working precision; the observation is
 *   $\texttt{coef}\cdot\delta\|B\|_F\le$ LHS with relative tolerance
 *   $\texttt{tol\_scale}\cdot32n^2(1+1/(n\delta))u$ (the residual row sums of $B$ are of order
 *   $u$).  $\texttt{coef}=1.001$ is violated at the uniform $S$.  Negative control
 *   \texttt{control}$=$drop-B1=0: $B$ is not projected (and $B=\mathbf 1\mathbf 1^\top$ on one
 *   instance in three, where the left side is $0$); this must come out violated.
 *   Readings: \texttt{full} reads the paper; \texttt{causal} is repaired (the support-restricted version,
 *   $\delta$ the minimum over the support).}
 */
#include "lm_prbd.h"

static const char *const configs[] = {"full", "causal", NULL};
#define PARAMS(NUM, SWITCH)                                                                                           \
    NUM(coef, 1.0, "constant [0, 1e6]", "multiplies delta in the lower bound (the paper: 1)")                         \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies the rounding tolerance 32 n^2 (1 + 1/(n delta)) u")           \
    SWITCH(control, 0, "stated|drop-B1=0", "stated: B 1 = 0; drop-B1=0: the negative control without the hypothesis")
LM_PARAMS(PARAMS)

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Full support, n <= 6: random S and zero-row-sum B, the uniform S equality "
                    "case, S = f(M) and B = c(M) of a pruning instance, a hill-climb, near-uniform "
                    "S.", NULL},
    {LM_READ_REPAIRED, "support-restricted: S and B zero off the causal support, delta the minimum over the support (as printed min_ij S_ij >= delta > 0 fails for causal S)", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_lemmaF_7) = {
    .kind = LM_KIND_POINTWISE,
    .source = "Lemma F.7 (formal version of Lemma 5.7)",
    .origin = "reconstructed",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 1.0,
    .eval = lm_prbd_f7_eval,
};
