/* lemmas/pruning/lemmaC-4.c
 *
 * \claim{pruning/lemmaC.4}{Matrix view of the regulariser gradient}
 * \source{attention-pruning, Lemma C.4 (Appendix C)}
 * \statement{The matrix with $(i_0,j_1)$ entry $\lambda M_{i_0,j_1}$ is $\lambda M$ (the gradient of
 *   $\mathcal L_{\rm reg}=\tfrac\lambda2\|M\|_F^2$).}
 * \check{Instances $n\le3$, $d\le8$, $\lambda\in\{0,10^{-3},0.37,1\}$, the five mask kinds (off-domain
 *   included), rebuilt exactly in IEEE double, MPFR-128 and MPFR-256.  (a) The entrywise derivative
 *   of the core's $\mathcal L_{\rm reg}$ by central differences with step $h=1/4$ --- exact in exact
 *   arithmetic because $\mathcal L_{\rm reg}$ is quadratic --- assembled entry by entry into a matrix
 *   and compared with $\lambda M$ (a scaled matrix); residual $\|\Delta\|_F/(\lambda\|M\|_F(1+\|M\|_F))$
 *   (the rounding of $\mathcal L_{\rm reg}$, of size $d^2u\lambda\|M\|_F^2$, is divided by $2h$),
 *   tolerance $8(d^2+4)u_p$; (b) the entry loop $\lambda M_{i_0j_1}$ against the scaled matrix,
 *   tolerance $4u_p$.  Both must shrink from the lowest to the highest precision.
 *   \texttt{lambda\_factor}$=2$ compares with $2\lambda M$ and must be caught.}
 */
#include "lm_prid.h"
#include <math.h>

static const char *const configs[] = {"causal", NULL};
static const double RS[] = {1.000001, 1.5, 2.0};

#define PARAMS(NUM, SWITCH)                                                                                                 \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies every rounding tolerance K u_p")                                    \
    NUM(lambda_factor, 1.0, "constant [0, 1e6]", "the gradient compared with lambda_factor * lambda M (2: a wrong factor)")
LM_PARAMS(PARAMS)

static int check(lm_prid_inst *I)
{
    int d = I->d, rc = 0;
    double lf = lm_par(I->ev, "lambda_factor");
    lm_mat *G = lm_mat_new(d, d, I->c), *Mp = lm_mat_dup(I->M), *LM = lm_mat_new(d, d, I->c),
           *E = lm_mat_new(d, d, I->c);
    lm_prfwd *F = lm_pr_fwd_new(I->P);
    lm_num x, lp, s, v;
    lm_num_inits(I->c, &x, &lp, &s, &v, (lm_num *)NULL);
    for (int a = 0; a < d && !rc; a++)
        for (int b = 0; b < d && !rc; b++) {
            lm_mat_get(&x, I->M, a, b);
            lm_num_add_d(&v, &x, 0.25);
            lm_mat_set(Mp, a, b, &v);
            rc |= lm_pr_forward(F, I->P, Mp);
            lm_num_set(&lp, &F->Lreg);
            lm_num_add_d(&v, &x, -0.25);
            lm_mat_set(Mp, a, b, &v);
            rc |= lm_pr_forward(F, I->P, Mp);
            lm_mat_set(Mp, a, b, &x);
            lm_num_sub(&v, &lp, &F->Lreg);
            lm_num_mul_d(&v, &v, 2.0); /* / (2h) with h = 1/4 */
            lm_mat_set(G, a, b, &v);
            lm_num_set_d(&v, I->P->lambda);
            lm_num_mul(&v, &v, &x);
            lm_mat_set(E, a, b, &v);
        }
    if (!rc) {
        lm_num_set_d(&v, I->P->lambda * lf);
        lm_mat_scale(LM, I->M, &v);
        lm_mat_frob(&s, I->M);
        lm_num_add_d(&x, &s, 1.0);
        lm_num_mul(&s, &s, &x);
        lm_num_set_d(&v, I->P->lambda);
        lm_num_mul(&s, &s, &v);
        lm_prid_resid_mat(I, "central differences of L_reg vs lambda M", G, LM, &s, 8.0 * (d * d + 4));
        lm_num_set_d(&v, I->P->lambda);
        lm_mat_scale(LM, I->M, &v);
        lm_prid_resid_mat(I, "entries lambda M_i0j1 vs lambda M", E, LM, NULL, 4.0);
    }
    lm_num_clears(&x, &lp, &s, &v, (lm_num *)NULL);
    lm_pr_fwd_free(F);
    lm_mat_free(G); lm_mat_free(Mp); lm_mat_free(LM); lm_mat_free(E);
    return rc ? lm_fail(I->ev, "non-finite loss in the central differences") : 0;
}

static int eval(lm_eval *ev)
{
    lm_prid_spec sp = {.support = LM_PRID_CAUSAL, .R = RS, .nR = 3, .nmax = 3, .dmax = 8};
    return lm_prid_run(ev, &sp, check);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Causal instances, n <= 3, d <= 8, lambda in {0, 1e-3, 0.37, 1}, five mask "
                    "kinds: central differences (h = 1/4) of L_reg and the entry loop vs lambda "
                    "M.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_lemmaC_4) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Lemma C.4 (Appendix C)",
    .origin = "reconstructed",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.5,
    .eval = eval,
};
