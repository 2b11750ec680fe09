/* lemmas/pruning/definition1-2.c
 *
 * \claim{pruning/definition1.2}{Attention Weights Pruning loss (non-causal)}
 * \source{attention-pruning, Definition 1.2 (Section 1)}
 * \statement{$M\in[0,1]^{d\times d}$; $A:=\exp(XWX^\top)$, $\tilde A:=\exp(X(M\circ W)X^\top)$,
 *   $D:=\mathrm{diag}(A\mathbf 1_n)$, $\tilde D:=\mathrm{diag}(\tilde A\mathbf 1_n)$, $\lambda\ge0$:
 *   $\mathcal L(M):=\tfrac12\|\tilde D^{-1}\tilde A-D^{-1}A\|_F^2+\tfrac\lambda2\|M\|_F^2$, and the
 *   problem is $\min_{M\in[0,1]^{d\times d}}\mathcal L(M)$.}
 * \check{Instances: $n\in\{1,2,3,5,8,16\}$, $d\in\{1,2,3,4,8,16\}$ ($n=1$, $d=1$ recur), $X$ and $W$
 *   from the families (i)--(iv) at $R\in\{1+10^{-6},1.5,2,4\}$, $\lambda\in\{0,10^{-3},0.37,1\}$, masks
 *   $U[0,1]$, binary corners, $\mathbf 1$, $0$ and off-domain $U[-1,2]$; each drawn as doubles and
 *   rebuilt exactly in IEEE double, MPFR-128 and MPFR-256.  In each precision the literal
 *   definition --- logits $X((M\circ W)X^\top)$ by loops, $\tilde A,A$ by unshifted $\exp$, row sums,
 *   $\tfrac12\sum(\tilde D^{-1}\tilde A-D^{-1}A)^2+\tfrac\lambda2\sum M^2$ with no mask at all --- is
 *   compared with the core's loss, i.e.\ Definition 3.2's computation with $C=\mathbf 1\mathbf 1^\top$
 *   (max-shifted, support-restricted softmax of $(X(M\circ W))X^\top$).  In binary64 the unshifted
 *   form overflows when a logit exceeds about 709; then only the log-sum-exp form of the literal
 *   loss is compared in double and the unshifted one is decided in MPFR.  The residual is
 *   $|\mathcal L_{\rm lit}-\mathcal L|/S$, $S=\mathcal L+(\|c\|_F+4\kappa u_p\phi)\phi$, $\phi=\|f\|_F+\|f_0\|_F$ (near $M=\mathbf 1$
 *   the loss is pure cancellation, and its rounding is of size $\|c\|_F$ times that of $f$), with
 *   tolerance $4\kappa u_p$, $\kappa=n+4+2d\,h$, $h=\max_{ij}(|X||M\circ W||X|^\top)_{ij}$,
 *   $u_p=2^{-p}$.  Also $\mathcal L(\mathbf 1)=\lambda d^2/2$ (relative, tolerance $4(d^2+4)u_p$) and
 *   $\mathcal L\ge0$.  Each residual must shrink from the lowest to the highest precision.  The
 *   factors are parameters: \texttt{rec\_factor}$=1$ (no $\tfrac12$) or \texttt{reg\_factor}$=1$
 *   in the literal form must be caught.}
 */
#include "lm_prid.h"
#include <math.h>

static const char *const configs[] = {"full", NULL};
static const double RS[] = {1.000001, 1.5, 2.0, 4.0};

#define PARAMS(NUM, SWITCH)                                                                              \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies every rounding tolerance K u_p")                 \
    NUM(rec_factor, 0.5, "constant [0, 1e6]", "factor of ||D~^-1 A~ - D^-1 A||_F^2 in the literal loss") \
    NUM(reg_factor, 0.5, "constant [0, 1e6]", "factor of lambda ||M||_F^2 in the literal loss")
LM_PARAMS(PARAMS)

static int check(lm_prid_inst *I)
{
    double rf = lm_par(I->ev, "rec_factor"), gf = lm_par(I->ev, "reg_factor");
    lm_num Lr, Lg, S, x;
    lm_num_inits(I->c, &Lr, &Lg, &S, &x, (lm_num *)NULL);
    lm_prid_loss_scale(&S, I);
    for (int lse = 0; lse < 2; lse++) {
        const char *nm = lse ? "literal loss (log-sum-exp form) vs core" : "literal loss (unshifted exp) vs core";
        if (lm_prid_literal_loss(&Lr, &Lg, I, lse, NULL, rf, gf)) {
            lm_prid_skip(I, nm);
            continue;
        }
        lm_num_add(&x, &Lr, &Lg);
        lm_num_sub(&x, &x, &I->F->L);
        lm_prid_resid(I, nm, &x, &S, 4.0 * I->ksm);
    }
    /* L(1) = lambda d^2 / 2 */
    lm_mat *ones = lm_prid_ones(I->d, I->d, I->c);
    lm_prfwd *F1 = lm_pr_fwd_new(I->P);
    if (lm_pr_forward(F1, I->P, ones)) {
        lm_pr_fwd_free(F1);
        lm_mat_free(ones);
        lm_num_clears(&Lr, &Lg, &S, &x, (lm_num *)NULL);
        return lm_fail(I->ev, "non-finite loss at M = 1");
    }
    lm_num_set_d(&S, I->P->lambda); /* lambda d^2 / 2 in the working precision */
    lm_num_mul_d(&S, &S, 0.5 * I->d * I->d);
    lm_num_sub(&x, &F1->L, &S);
    lm_prid_resid(I, "L(1) = lambda d^2/2", &x, &S, 4.0 * (I->d * I->d + 4));
    lm_prid_resid_d(I, "L >= 0", lm_num_sgn(&I->F->L) < 0 ? 1.0 : 0.0, 1.0);
    lm_pr_fwd_free(F1);
    lm_mat_free(ones);
    lm_num_clears(&Lr, &Lg, &S, &x, (lm_num *)NULL);
    return 0;
}

static int eval(lm_eval *ev)
{
    lm_prid_spec sp = {.support = LM_PRID_FULL, .R = RS, .nR = 4, .nmax = 16, .dmax = 16};
    return lm_prid_run(ev, &sp, check);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Full mask, n, d <= 16, R in {1+1e-6, 1.5, 2, 4}, lambda in {0, 1e-3, 0.37, "
                    "1}: the literal non-causal loss vs the core's, L(1) = lambda d^2/2, L >= "
                    "0.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_definition1_2) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Definition 1.2 (Section 1)",
    .origin = "reconstructed",
    .confidence = "medium",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.5,
    .eval = eval,
};
