/* lemmas/pruning/definition3-2.c
 *
 * \claim{pruning/definition3.2}{Pruning loss with causal mask}
 * \source{attention-pruning, Definition 3.2 (Section 3)}
 * \statement{$A:=C\circ\exp(XWX^\top)$, $\tilde A:=C\circ\exp(X(M\circ W)X^\top)$,
 *   $D:=\mathrm{diag}(A\mathbf 1_n)$, $\tilde D:=\mathrm{diag}(\tilde A\mathbf 1_n)$,
 *   $\mathcal L(M):=\mathcal L_{\rm rec}(M)+\mathcal L_{\rm reg}(M)$,
 *   $\mathcal L_{\rm rec}:=\tfrac12\|\tilde D^{-1}\tilde A-D^{-1}A\|_F^2$,
 *   $\mathcal L_{\rm reg}:=\tfrac\lambda2\|M\|_F^2$.  The analysis applies to any fixed 0/1 mask with
 *   at least one 1 per row (e.g.\ block masks).}
 * \check{Three configurations: the causal mask $C_{ij}=[i\ge j]$, random block supports (each row a
 *   random subset containing the diagonal) and the full mask.  Instances as for
 *   \texttt{pruning/definition1.2} ($n,d\le16$, families (i)--(iv), $R\in\{1+10^{-6},1.5,2,4\}$,
 *   $\lambda\in\{0,10^{-3},0.37,1\}$, the five mask kinds), rebuilt exactly in IEEE double, MPFR-128 and
 *   MPFR-256.  Two literal forms are compared with the core's loss (max-shifted softmax restricted
 *   to the support, logits $(X(M\circ W))X^\top$): (a) the definition verbatim, $C\circ\exp$ without
 *   shift over logits $X((M\circ W)X^\top)$ formed by loops, skipped in binary64 when it over- or
 *   underflows there and then decided in MPFR; (b) the masked softmax as the softmax of $H+\log C$,
 *   with $\log C_{ij}=-\infty$ handled by explicit support loops (each row's terms off the support are
 *   absent; $f_{ij}=\exp(H_{ij}-\mathrm{lse}_i)$), which never overflows.  Residual
 *   $|\mathcal L_{\rm lit}-\mathcal L|/S$, $S=\mathcal L+(\|c\|_F+4\kappa u_p\phi)\phi$, $\phi=\|f\|_F+\|f_0\|_F$, tolerance
 *   $4\kappa u_p$ ($\kappa=n+4+2d\,h$, $h=\max_{ij}(|X||M\circ W||X|^\top)_{ij}$); plus the support
 *   check $f_{ij}=0$ exactly off the support and every row has a 1 (count, compared with $1/2$);
 *   every residual must shrink from the lowest to the highest precision.  \texttt{rec\_factor} and
 *   \texttt{reg\_factor} are the $\tfrac12$ and $\tfrac\lambda2$ factors of the literal loss;
 *   \texttt{rec\_factor}$=1$ must be caught.}
 */
#include "lm_prid.h"
#include <math.h>

static const char *const configs[] = {"causal", "block", "full", NULL};
static const int SUPPORT[] = {LM_PRID_CAUSAL, LM_PRID_BLOCK, LM_PRID_FULL};
static const double RS[] = {1.000001, 1.5, 2.0, 4.0};

#define PARAMS(NUM, SWITCH)                                                                              \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies every rounding tolerance K u_p")                 \
    NUM(rec_factor, 0.5, "constant [0, 1e6]", "factor of ||D~^-1 A~ - D^-1 A||_F^2 in the literal loss") \
    NUM(reg_factor, 0.5, "constant [0, 1e6]", "factor of lambda ||M||_F^2 in the literal loss")
LM_PARAMS(PARAMS)

static int check(lm_prid_inst *I)
{
    double rf = lm_par(I->ev, "rec_factor"), gf = lm_par(I->ev, "reg_factor");
    int n = I->n;
    lm_num Lr, Lg, S, x;
    lm_num_inits(I->c, &Lr, &Lg, &S, &x, (lm_num *)NULL);
    lm_prid_loss_scale(&S, I);
    for (int lse = 0; lse < 2; lse++) {
        const char *nm = lse ? "softmax of H + log C (support loops) vs core" : "C o exp unshifted vs core";
        if (lm_prid_literal_loss(&Lr, &Lg, I, lse, I->P->C, rf, gf)) {
            lm_prid_skip(I, nm);
            continue;
        }
        lm_num_add(&x, &Lr, &Lg);
        lm_num_sub(&x, &x, &I->F->L);
        lm_prid_resid(I, nm, &x, &S, 4.0 * I->ksm);
    }
    int bad = 0;
    for (int i = 0; i < n; i++) {
        int any = 0;
        for (int j = 0; j < n; j++) {
            any |= I->P->C[i * n + j];
            if (!I->P->C[i * n + j] && lm_mat_get_d(I->F->f, i, j) != 0.0) bad++;
        }
        bad += !any;
    }
    lm_prid_resid_d(I, "support: f = 0 off C, a 1 in every row (count)", bad, 0.5 / lm_ctx_eps(I->c));
    lm_num_clears(&Lr, &Lg, &S, &x, (lm_num *)NULL);
    return 0;
}

static int eval(lm_eval *ev)
{
    lm_prid_spec sp = {.support = SUPPORT[ev->config], .R = RS, .nR = 4, .nmax = 16, .dmax = 16};
    return lm_prid_run(ev, &sp, check);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Causal mask C_ij = [i >= j], n, d <= 16: the literal C o exp loss and the "
                    "softmax of H + log C vs the core's loss, and f = 0 above the diagonal.", NULL},
    {LM_READ_PAPER, "Random block supports (each row a random subset with its diagonal): any fixed "
                    "0/1 mask the analysis allows; literal losses vs core, f = 0 off C.", NULL},
    {LM_READ_PAPER, "Full mask C = 1 1^T, n, d <= 16: Definition 3.2 reduces to Definition 1.2; "
                    "both literal forms vs the core's loss.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_definition3_2) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Definition 3.2 (Section 3)",
    .origin = "reconstructed",
    .confidence = "medium-high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .eval = eval,
};
