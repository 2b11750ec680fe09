/* lemmas/pruning/definitionB-5.c
 *
 * \claim{pruning/definitionB.5}{Reconstruction error}
 * \source{attention-pruning, Definition B.5 (Appendix B)}
 * \statement{$\mathcal L_{\rm rec}(M):=\tfrac12\|c(M)\|_F^2$.}
 * \check{Configurations causal, block and full; instances as for \texttt{pruning/definitionB.1},
 *   rebuilt exactly in IEEE double, MPFR-128 and MPFR-256.  (a) The literal
 *   $\tfrac12\sum_{ij}c_{ij}^2$ with $c$ from the softmax of $H+\log C$ by support loops (logits by
 *   loops in the other association) against the core's $\mathcal L_{\rm rec}$; residual divided by
 *   $S=\mathcal L+(\|c\|_F+4\kappa u_p\phi)\phi$, $\phi=\|f\|_F+\|f_0\|_F$, tolerance $4\kappa u_p$, $\kappa=n+4+2d\,h$,
 *   $h=\max_{ij}(|X||M\circ W||X|^\top)_{ij}$; (b) the core's $\mathcal L_{\rm rec}$ (a dot product)
 *   against $\tfrac12\|c\|_F^2$ from the scaled Frobenius norm of the core's $c$, relative, tolerance
 *   $4(n^2+4)u_p$.  Both must shrink from the lowest to the highest precision.  \texttt{half} is the
 *   factor $\tfrac12$ of the literal form; \texttt{half}$=1$ must be caught.}
 */
#include "lm_prid.h"
#include <math.h>

static const char *const configs[] = {"causal", "block", "full", NULL};
static const int SUPPORT[] = {LM_PRID_CAUSAL, LM_PRID_BLOCK, LM_PRID_FULL};
static const double RS[] = {1.000001, 1.5, 2.0};

#define PARAMS(NUM, SWITCH)                                                              \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies every rounding tolerance K u_p") \
    NUM(half, 0.5, "constant [0, 1e6]", "factor of ||c||_F^2 in the literal form")
LM_PARAMS(PARAMS)

static int check(lm_prid_inst *I)
{
    int n = I->n;
    lm_num Lr, Lg, S, x;
    lm_num_inits(I->c, &Lr, &Lg, &S, &x, (lm_num *)NULL);
    lm_prid_loss_scale(&S, I);
    lm_prid_literal_loss(&Lr, &Lg, I, 1, I->P->C, lm_par(I->ev, "half"), 0.0);
    lm_num_sub(&x, &Lr, &I->F->Lrec);
    lm_prid_resid(I, "literal 1/2 sum c_ij^2 vs core L_rec", &x, &S, 4.0 * I->ksm);
    lm_mat_frob(&x, I->F->c);
    lm_num_sqr(&x, &x);
    lm_num_mul_d(&x, &x, lm_par(I->ev, "half"));
    lm_num_sub(&x, &x, &I->F->Lrec);
    lm_prid_resid(I, "core L_rec vs 1/2 ||c||_F^2 (Frobenius norm)", &x, &I->F->Lrec, 4.0 * (n * n + 4));
    lm_num_clears(&Lr, &Lg, &S, &x, (lm_num *)NULL);
    return 0;
}

static int eval(lm_eval *ev)
{
    lm_prid_spec sp = {.support = SUPPORT[ev->config], .R = RS, .nR = 3, .nmax = 16, .dmax = 16};
    return lm_prid_run(ev, &sp, check);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Causal mask, n, d <= 16, R in {1+1e-6, 1.5, 2}: the literal (1/2) sum c_ij^2 "
                    "and (1/2)||c||_F^2 vs the core's L_rec in double and MPFR-128/256.", NULL},
    {LM_READ_PAPER, "Random block supports with the diagonal, n, d <= 16: the literal (1/2) sum "
                    "c_ij^2 and (1/2)||c||_F^2 vs the core's L_rec on an irregular support.", NULL},
    {LM_READ_PAPER, "Full mask, n, d <= 16, R in {1+1e-6, 1.5, 2}: the literal (1/2) sum c_ij^2 "
                    "and (1/2)||c||_F^2 vs the core's L_rec in the non-causal case.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_definitionB_5) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Definition B.5 (Appendix B)",
    .origin = "reconstructed",
    .confidence = "medium",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .eval = eval,
};
