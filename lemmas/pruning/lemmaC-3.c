/* lemmas/pruning/lemmaC-3.c
 *
 * \claim{pruning/lemmaC.3}{Matrix view of the $p_2$ term}
 * \source{attention-pruning, Lemma C.3 (Appendix C)}
 * \statement{As Lemma C.2 with $p_2$: for fixed $j_0$ the matrix with entries $X_{j_0,i_0}W_{i_0,j_1}\langle p_2(M)_{j_0},X_{*,j_1}\rangle$ equals $W\circ(X_{j_0}^\top p_2(M)_{j_0}^\top X)$, and $\sum_{j_0}(\cdot)=W\circ(X^\top p_2(M)X)$, where $p_2=\mathrm{diag}(p_1\mathbf 1_n)f$.}
 * \check{Configurations causal, block and full; instances $n,d\le16$, families (i)--(iv),
 *   $R\in\{1+10^{-6},1.5,2\}$, five mask kinds, rebuilt exactly in IEEE double, MPFR-128 and MPFR-256.
 *   With $q=p_2$ from the core: the entries $X_{j_0,i_0}W_{i_0,j_1}\langle q_{j_0},X_{*,j_1}\rangle$ are
 *   formed by literal loops and (Part 1, $j_0=n$) compared with $W\circ(X_{j_0}^\top q_{j_0}^\top X)$,
 *   (Part 2) summed over $j_0$ and compared with $W\circ(X^\top qX)$, both by matrix products (BLAS
 *   in double).  Residuals $\|\Delta\|_F/\|\,|W|\circ(|X|^\top|q||X|)\|_F$ (the rounding of each
 *   entry is relative to the same sums in absolute values), tolerance $4(2n+4)u_p$; both must shrink
 *   from the lowest to the highest precision.  \texttt{transpose\_W}$=1$ reads $W_{j_1,i_0}$ in the
 *   entries and must be caught.}
 */
#include "lm_prid.h"

static const char *const configs[] = {"causal", "block", "full", NULL};
static const int SUPPORT[] = {LM_PRID_CAUSAL, LM_PRID_BLOCK, LM_PRID_FULL};
static const double RS[] = {1.000001, 1.5, 2.0};

#define PARAMS(NUM, SWITCH)                                                              \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies every rounding tolerance K u_p") \
    NUM(transpose_W, 0, "int [0, 1]", "1: the entries read W_{j1,i0} (a wrong formula)")
LM_PARAMS(PARAMS)

static int check(lm_prid_inst *I)
{
    lm_prid_matrix_view(I, I->F->p2, "p2", lm_par_i(I->ev, "transpose_W"));
    return 0;
}

static int eval(lm_eval *ev)
{
    lm_prid_spec sp = {.support = SUPPORT[ev->config], .R = RS, .nR = 3, .nmax = 16, .dmax = 16};
    return lm_prid_run(ev, &sp, check);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Causal mask, n, d <= 16, R in {1+1e-6, 1.5, 2}: the p2 entry loops vs W o "
                    "(X_j0^T p2_j0^T X) for row j0 = n (Part 1) and, summed, vs W o (X^T p2 "
                    "X).", NULL},
    {LM_READ_PAPER, "Random block supports with the diagonal, n, d <= 16: the p2 entry loops vs W "
                    "o (X_j0^T p2_j0^T X) and their sum over j0 vs W o (X^T p2 X).", NULL},
    {LM_READ_PAPER, "Full mask, n, d <= 16, R in {1+1e-6, 1.5, 2}: the p2 entry loops vs W o "
                    "(X_j0^T p2_j0^T X) and their sum vs W o (X^T p2 X) in the non-causal "
                    "case.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_lemmaC_3) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Lemma C.3 (Appendix C)",
    .origin = "reconstructed",
    .confidence = "medium",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .eval = eval,
};
