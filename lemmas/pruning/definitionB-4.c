/* lemmas/pruning/definitionB-4.c
 *
 * \claim{pruning/definitionB.4}{One-unit loss $c$}
 * \source{attention-pruning, Definition B.4 (Appendix B)}
 * \statement{$c(M):=f(M)-f_0$, with rows $c(M)_{j_0}$, columns $c(M)_{*,i_0}$ and entries
 *   $c(M)_{j_0,i_0}$.}
 * \check{Configurations causal, block and full; instances as for \texttt{pruning/definitionB.1},
 *   rebuilt exactly in IEEE double, MPFR-128 and MPFR-256.  The literal entry
 *   $c_{j_0i_0}=\exp(H_{j_0i_0}-\mathrm{lse}_{j_0}(H))-\exp(H^0_{j_0i_0}-\mathrm{lse}_{j_0}(H^0))$ (the
 *   softmax of $H+\log C$ by support loops, logits $X((M\circ W)X^\top)$ and $XWX^\top$ by loops) is
 *   compared with the core's $c=f-f_0$: $\|\Delta\|_F/(\|f\|_F+\|f_0\|_F)$ (the rounding of $c$ is
 *   relative to $f$, not to $c$), tolerance $4\kappa u_p$, $\kappa=n+4+2d\,h$,
 *   $h=\max_{ij}(|X||M\circ W||X|^\top)_{ij}$.  The row sums $c\mathbf 1_n=0$ (the hypothesis of
 *   Lemma F.7; residual $\max_i|\sum_jc_{ij}|$, tolerance $4(n+4)u_p$) and $c(\mathbf 1)=0$
 *   ($\|c(\mathbf 1)\|_F$, same tolerance).  Every residual must shrink from the lowest to the highest
 *   precision.  \texttt{sign}$=-1$ forms $f_0-f$ and must be caught.}
 */
#include "lm_prid.h"
#include <math.h>

static const char *const configs[] = {"causal", "block", "full", NULL};
static const int SUPPORT[] = {LM_PRID_CAUSAL, LM_PRID_BLOCK, LM_PRID_FULL};
static const double RS[] = {1.000001, 1.5, 2.0};

#define PARAMS(NUM, SWITCH)                                                                        \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies every rounding tolerance K u_p")           \
    NUM(sign, 1.0, "constant [-1, 1]", "c = sign (f - f0) in the literal form (-1: a wrong sign)")
LM_PARAMS(PARAMS)

static int check(lm_prid_inst *I)
{
    int n = I->n, d = I->d;
    const unsigned char *C = I->P->C;
    lm_mat *H = lm_mat_new(n, n, I->c), *f = lm_mat_new(n, n, I->c), *f0 = lm_mat_new(n, n, I->c),
           *ones = lm_prid_ones(d, d, I->c);
    lm_num s, t, v;
    lm_num_inits(I->c, &s, &t, &v, (lm_num *)NULL);
    lm_prid_logits_alt(H, I->P->X, I->P->W, I->M);
    lm_prid_lse_softmax(f, H, C);
    lm_prid_logits_alt(H, I->P->X, I->P->W, ones);
    lm_prid_lse_softmax(f0, H, C);
    lm_mat_sub(f, f, f0);
    lm_mat_scale_d(f, f, lm_par(I->ev, "sign"));
    lm_mat_frob(&s, I->F->f);
    lm_mat_frob(&t, I->P->f0);
    lm_num_add(&s, &s, &t);
    lm_prid_resid_mat(I, "literal c vs core f - f0", f, I->F->c, &s, 4.0 * I->ksm);
    double rs = 0.0;
    for (int i = 0; i < n; i++) {
        lm_num_set_d(&t, 0.0);
        for (int j = 0; j < n; j++) {
            lm_mat_get(&v, I->F->c, i, j);
            lm_num_add(&t, &t, &v);
        }
        rs = fmax(rs, fabs(lm_num_get_d(&t)));
    }
    lm_prid_resid_d(I, "row sums c 1_n = 0", rs, 4.0 * (n + 4));
    lm_prfwd *F1 = lm_pr_fwd_new(I->P);
    int rc = lm_pr_forward(F1, I->P, ones);
    lm_mat_frob(&t, F1->c);
    lm_prid_resid_d(I, "c(1) = 0", lm_num_get_d(&t), 4.0 * (n + 4));
    lm_pr_fwd_free(F1);
    lm_num_clears(&s, &t, &v, (lm_num *)NULL);
    lm_mat_free(H); lm_mat_free(f); lm_mat_free(f0); lm_mat_free(ones);
    return rc ? lm_fail(I->ev, "non-finite loss at M = 1") : 0;
}

static int eval(lm_eval *ev)
{
    lm_prid_spec sp = {.support = SUPPORT[ev->config], .R = RS, .nR = 3, .nmax = 16, .dmax = 16};
    return lm_prid_run(ev, &sp, check);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Causal mask, n, d <= 16, R in {1+1e-6, 1.5, 2}: literal c = f - f0 from "
                    "support-loop softmaxes vs the core's c; c 1 = 0 and c(1) = 0.", NULL},
    {LM_READ_PAPER, "Random block supports with the diagonal, n, d <= 16: literal c = f - f0 vs "
                    "the core's c on an irregular support; row sums c 1 = 0 and c(1) = 0.", NULL},
    {LM_READ_PAPER, "Full mask, n, d <= 16, R in {1+1e-6, 1.5, 2}: literal c = f - f0 vs the "
                    "core's c in the non-causal case; row sums c 1 = 0 and c(1) = 0.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_definitionB_4) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Definition B.4 (Appendix B)",
    .origin = "reconstructed",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .eval = eval,
};
