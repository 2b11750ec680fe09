/* lemmas/pruning/definitionB-6.c
 *
 * \claim{pruning/definitionB.6}{Regulariser}
 * \source{attention-pruning, Definition B.6 (Appendix B)}
 * \statement{$\mathcal L_{\rm reg}(M):=\tfrac\lambda2\|M\|_F^2$, $\lambda\ge0$.}
 * \check{Instances: $d\le16$, $\lambda\in\{0,10^{-3},0.37,1\}$, masks $U[0,1]$, binary corners,
 *   $\mathbf 1$, $0$, off-domain $U[-1,2]$ (and the model instance around them), rebuilt exactly in
 *   IEEE double, MPFR-128 and MPFR-256.  The core's $\mathcal L_{\rm reg}$ (a dot product) is
 *   compared with (a) the literal double loop $\tfrac\lambda2\sum_{ab}M_{ab}^2$ and (b)
 *   $\tfrac\lambda2\mathrm{tr}(M^\top M)$ by a matrix product; relative residuals, tolerance
 *   $4(d^2+4)u_p$, which must shrink from the lowest to the highest precision.  \texttt{half} is the
 *   factor $\tfrac12$ of the literal forms; \texttt{half}$=1$ must be caught.}
 */
#include "lm_prid.h"
#include <math.h>

static const char *const configs[] = {"causal", NULL};
static const double RS[] = {1.000001, 1.5, 2.0};

#define PARAMS(NUM, SWITCH)                                                                \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies every rounding tolerance K u_p")   \
    NUM(half, 0.5, "constant [0, 1e6]", "factor of lambda ||M||_F^2 in the literal forms")
LM_PARAMS(PARAMS)

static int check(lm_prid_inst *I)
{
    int d = I->d;
    double h = lm_par(I->ev, "half");
    lm_num s, v, lam;
    lm_num_inits(I->c, &s, &v, &lam, (lm_num *)NULL);
    lm_num_set_d(&lam, I->P->lambda);
    lm_num_set_d(&s, 0.0);
    for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++) {
            lm_mat_get(&v, I->M, a, b);
            lm_num_fma(&s, &v, &v, &s);
        }
    lm_num_mul(&s, &s, &lam);
    lm_num_mul_d(&s, &s, h);
    lm_num_sub(&s, &s, &I->F->Lreg);
    lm_prid_resid(I, "literal lambda/2 sum M_ab^2 vs core L_reg", &s, &I->F->Lreg, 4.0 * (d * d + 4));
    lm_mat *T = lm_mat_new(d, d, I->c);
    lm_mat_mul(T, I->M, 1, I->M, 0);
    lm_num_set_d(&s, 0.0);
    for (int a = 0; a < d; a++) {
        lm_mat_get(&v, T, a, a);
        lm_num_add(&s, &s, &v);
    }
    lm_num_mul(&s, &s, &lam);
    lm_num_mul_d(&s, &s, h);
    lm_num_sub(&s, &s, &I->F->Lreg);
    lm_prid_resid(I, "lambda/2 tr(M^T M) vs core L_reg", &s, &I->F->Lreg, 4.0 * (d * d + 4));
    lm_mat_free(T);
    lm_num_clears(&s, &v, &lam, (lm_num *)NULL);
    return 0;
}

static int eval(lm_eval *ev)
{
    lm_prid_spec sp = {.support = LM_PRID_CAUSAL, .R = RS, .nR = 3, .nmax = 8, .dmax = 16};
    return lm_prid_run(ev, &sp, check);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Causal instances, n <= 8, d <= 16, lambda in {0, 1e-3, 0.37, 1}, five mask "
                    "kinds: L_reg by a double loop and by (lambda/2) tr(M^T M) vs the "
                    "core's.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_definitionB_6) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Definition B.6 (Appendix B)",
    .origin = "reconstructed",
    .confidence = "medium-high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.5,
    .eval = eval,
};
