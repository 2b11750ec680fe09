/* lemmas/pruning/definitionB-7.c
 *
 * \claim{pruning/definitionB.7}{Overall loss}
 * \source{attention-pruning, Definition B.7 (Appendix B)}
 * \statement{$\mathcal L(M):=\mathcal L_{\rm rec}(M)+\mathcal L_{\rm reg}(M)$.  This equals Definition
 *   3.2; Definition 1.2 when $C=\mathbf 1\mathbf 1^\top$.}
 * \check{Configurations causal, block and full; instances as for \texttt{pruning/definition3.2}
 *   ($n,d\le16$, families (i)--(iv), $R\in\{1+10^{-6},1.5,2,4\}$, $\lambda\in\{0,10^{-3},0.37,1\}$, five
 *   mask kinds), rebuilt exactly in IEEE double, MPFR-128 and MPFR-256.  The literal sum
 *   $\mathcal L_{\rm rec}+\mathcal L_{\rm reg}$ of the appendix definitions (B.5 with $c$ from the
 *   softmax of $H+\log C$ by support loops, B.6 by a double loop) is compared with the core's
 *   $\mathcal L$, and so is Definition 3.2 written verbatim ($C\circ\exp$ unshifted, skipped in binary64
 *   where it over- or underflows, decided in MPFR); in the full configuration the verbatim form is
 *   Definition 1.2, with no mask at all.  Residual $|\Delta\mathcal L|/S$,
 *   $S=\mathcal L+(\|c\|_F+4\kappa u_p\phi)\phi$, $\phi=\|f\|_F+\|f_0\|_F$, tolerance $4\kappa u_p$, $\kappa=n+4+2d\,h$,
 *   $h=\max_{ij}(|X||M\circ W||X|^\top)_{ij}$; also $\mathcal L=\mathcal L_{\rm rec}+\mathcal L_{\rm reg}$
 *   of the core's own parts.  Every residual must shrink from the lowest to the highest precision.
 *   \texttt{reg\_weight} multiplies $\mathcal L_{\rm reg}$ in the literal sum; $2$ must be caught.}
 */
#include "lm_prid.h"
#include <math.h>

static const char *const configs[] = {"causal", "block", "full", NULL};
static const int SUPPORT[] = {LM_PRID_CAUSAL, LM_PRID_BLOCK, LM_PRID_FULL};
static const double RS[] = {1.000001, 1.5, 2.0, 4.0};

#define PARAMS(NUM, SWITCH)                                                                       \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies every rounding tolerance K u_p")          \
    NUM(reg_weight, 1.0, "constant [0, 1e6]", "weight of L_reg in the literal sum L_rec + L_reg")
LM_PARAMS(PARAMS)

static int check(lm_prid_inst *I)
{
    double w = lm_par(I->ev, "reg_weight");
    lm_num Lr, Lg, S, x;
    lm_num_inits(I->c, &Lr, &Lg, &S, &x, (lm_num *)NULL);
    lm_prid_loss_scale(&S, I);
    const unsigned char *C = I->ev->config == 2 ? NULL : I->P->C; /* full: Definition 1.2, no mask */
    for (int lse = 1; lse >= 0; lse--) {
        const char *nm = lse ? "L_rec (B.5) + L_reg (B.6) vs core L"
                             : (C ? "Definition 3.2 verbatim vs core L" : "Definition 1.2 verbatim vs core L");
        if (lm_prid_literal_loss(&Lr, &Lg, I, lse, C, 0.5, 0.5 * w)) {
            lm_prid_skip(I, nm);
            continue;
        }
        lm_num_add(&x, &Lr, &Lg);
        lm_num_sub(&x, &x, &I->F->L);
        lm_prid_resid(I, nm, &x, &S, 4.0 * I->ksm);
    }
    lm_num_mul_d(&x, &I->F->Lreg, w);
    lm_num_add(&x, &x, &I->F->Lrec);
    lm_num_sub(&x, &x, &I->F->L);
    lm_prid_resid(I, "core L = L_rec + L_reg", &x, &I->F->L, 4.0);
    lm_num_clears(&Lr, &Lg, &S, &x, (lm_num *)NULL);
    return 0;
}

static int eval(lm_eval *ev)
{
    lm_prid_spec sp = {.support = SUPPORT[ev->config], .R = RS, .nR = 4, .nmax = 16, .dmax = 16};
    return lm_prid_run(ev, &sp, check);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Causal mask, n, d <= 16, R up to 4, lambda in {0, 1e-3, 0.37, 1}: L_rec + "
                    "L_reg from B.5/B.6 and Definition 3.2 verbatim vs the core's L.", NULL},
    {LM_READ_PAPER, "Random block supports with the diagonal, n, d <= 16, R up to 4: the appendix "
                    "sum L_rec + L_reg and Definition 3.2 verbatim vs the core's L.", NULL},
    {LM_READ_PAPER, "Full mask, n, d <= 16, R up to 4: L_rec + L_reg vs the core's L, and the "
                    "verbatim form is Definition 1.2 with no mask at all.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_definitionB_7) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Definition B.7 (Appendix B)",
    .origin = "reconstructed",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .eval = eval,
};
