/* lemmas/pruning/factA-6.c
 *
 * \claim{pruning/factA.6}{Frobenius expansion}
 * \source{attention-pruning, Fact A.6 (Appendix A)}
 * \statement{$\|A+B\|_F^2=\|A\|_F^2+\|B\|_F^2+2\langle A,B\rangle$.}
 * \check{Instances of the pruning model ($n,d\le16$, causal and full supports, families (i)--(iv),
 *   five mask kinds), rebuilt exactly in IEEE double, MPFR-128 and MPFR-256.  Two pairs: the
 *   cancellation pair $A=f(M)$, $B=-f_0$ (so $A+B=c$, as in the paper's use) and a Gaussian
 *   $n\times n$ pair.  The left side is the scaled Frobenius norm of the sum, squared; the right side
 *   two norms and a dot product.  Residual $|\Delta|/(\|A\|_F+\|B\|_F)^2$, tolerance $4(n^2+4)u_p$;
 *   it must shrink from the lowest to the highest precision.  \texttt{cross\_factor} is the $2$ of
 *   the cross term; $1$ must be caught.}
 */
#include "lm_prid.h"

static const char *const configs[] = {"causal", "full", NULL};
static const int SUPPORT[] = {LM_PRID_CAUSAL, LM_PRID_FULL};
static const double RS[] = {1.000001, 1.5, 2.0};

#define PARAMS(NUM, SWITCH)                                                              \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies every rounding tolerance K u_p") \
    NUM(cross_factor, 2.0, "constant [-1e6, 1e6]", "factor of <A, B> in the expansion")
LM_PARAMS(PARAMS)

static void expand(lm_prid_inst *I, const char *name, const lm_mat *A, const lm_mat *B)
{
    double cf = lm_par(I->ev, "cross_factor");
    lm_mat *S = lm_mat_dup(A);
    lm_num l, r, x, sc;
    lm_num_inits(I->c, &l, &r, &x, &sc, (lm_num *)NULL);
    lm_mat_add(S, A, B);
    lm_mat_frob(&l, S);
    lm_num_sqr(&l, &l);
    lm_mat_frob(&r, A);
    lm_mat_frob(&x, B);
    lm_num_add(&sc, &r, &x);
    lm_num_sqr(&sc, &sc);
    lm_num_sqr(&r, &r);
    lm_num_sqr(&x, &x);
    lm_num_add(&r, &r, &x);
    lm_mat_dot(&x, A, B);
    lm_num_mul_d(&x, &x, cf);
    lm_num_add(&r, &r, &x);
    lm_num_sub(&l, &l, &r);
    lm_prid_resid(I, name, &l, &sc, 4.0 * (A->r * A->c + 4));
    lm_num_clears(&l, &r, &x, &sc, (lm_num *)NULL);
    lm_mat_free(S);
}

static int check(lm_prid_inst *I)
{
    int n = I->n;
    lm_mat *B = lm_mat_dup(I->P->f0);
    lm_mat_scale_d(B, I->P->f0, -1.0);
    expand(I, "A = f(M), B = -f0 (A + B = c)", I->F->f, B);
    lm_mat *G1 = lm_prid_randn(I, n, n), *G2 = lm_prid_randn(I, n, n);
    expand(I, "Gaussian pair", G1, G2);
    lm_mat_free(B); lm_mat_free(G1); lm_mat_free(G2);
    return 0;
}

static int eval(lm_eval *ev)
{
    lm_prid_spec sp = {.support = SUPPORT[ev->config], .R = RS, .nR = 3, .nmax = 16, .dmax = 16};
    return lm_prid_run(ev, &sp, check);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Causal mask, n, d <= 16, R up to 2: ||A + B||_F^2 expansion for the "
                    "cancelling pair A = f(M), B = -f0 (A + B = c) and a Gaussian n x n "
                    "pair.", NULL},
    {LM_READ_PAPER, "Full mask, n, d <= 16, R up to 2: ||A + B||_F^2 expansion for A = f(M), B = "
                    "-f0 in the non-causal case and for a Gaussian n x n pair.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_factA_6) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Fact A.6 (Appendix A)",
    .origin = "verbatim",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .eval = eval,
};
