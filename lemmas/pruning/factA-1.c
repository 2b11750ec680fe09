/* lemmas/pruning/factA-1.c
 *
 * \claim{pruning/factA.1}{Indexing}
 * \source{attention-pruning, Fact A.1 (Appendix A)}
 * \statement{For conformable $A,B,C$: $(ABC)_{i,*}=A_{i,*}BC$ and $(ABC)_{*,j}=AB\,C_{*,j}$.  In
 *   particular, $(X(M\circ W)X^\top)_{j_0}=X(M\circ W)^\top X_{j_0}^\top$ as a column vector.}
 * \check{Instances of the pruning model ($n,d\le16$, families (i)--(iv), $R\in\{1+10^{-6},1.5,2\}$,
 *   five mask kinds) with $A=X$, $B=M\circ W$, $C=X^\top$, rebuilt exactly in IEEE double, MPFR-128
 *   and MPFR-256.  The core's $H=(X(M\circ W))X^\top$ (matrix products) is compared with (a) every
 *   row $i$ formed literally as the row vector $(A_{i,*}B)C$, (b) every column $j$ as $A(BC_{*,j})$, and
 *   (c) every row $j_0$ as the column vector $X(M\circ W)^\top X_{j_0}^\top$ (loops).  Residuals
 *   $\|\Delta\|_F/\|\,|A||B||C|\,\|_F$, tolerance $4(2d+4)u_p$; each must shrink from the lowest to the
 *   highest precision.  \texttt{transpose}$=1$ drops the transpose in (c) and must be caught.}
 */
#include "lm_prid.h"

static const char *const configs[] = {"default", NULL};
static const double RS[] = {1.000001, 1.5, 2.0};

#define PARAMS(NUM, SWITCH)                                                              \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies every rounding tolerance K u_p") \
    NUM(transpose, 0, "int [0, 1]", "1: (c) uses X (M o W) X_j0^T (a wrong formula)")
LM_PARAMS(PARAMS)

static int check(lm_prid_inst *I)
{
    int n = I->n, d = I->d, tr = lm_par_i(I->ev, "transpose");
    const lm_mat *A = I->P->X, *B = I->F->MW;
    lm_mat *R1 = lm_mat_new(n, n, I->c), *R2 = lm_mat_new(n, n, I->c), *R3 = lm_mat_new(n, n, I->c);
    lm_mat *t = lm_mat_new(1, d, I->c), *aA = lm_mat_new(n, d, I->c), *aB = lm_mat_new(d, d, I->c),
           *T = lm_mat_new(n, d, I->c), *S = lm_mat_new(n, n, I->c);
    lm_num s, a, b;
    lm_num_inits(I->c, &s, &a, &b, (lm_num *)NULL);
    for (int i = 0; i < n; i++) {
        /* (a) row i: (A_i B) C with C = X^T */
        for (int q = 0; q < d; q++) {
            lm_num_set_d(&s, 0.0);
            for (int p = 0; p < d; p++) {
                lm_mat_get(&a, A, i, p);
                lm_mat_get(&b, B, p, q);
                lm_num_fma(&s, &a, &b, &s);
            }
            lm_mat_set(t, 0, q, &s);
        }
        for (int j = 0; j < n; j++) {
            lm_num_set_d(&s, 0.0);
            for (int q = 0; q < d; q++) {
                lm_mat_get(&a, t, 0, q);
                lm_mat_get(&b, A, j, q);
                lm_num_fma(&s, &a, &b, &s);
            }
            lm_mat_set(R1, i, j, &s);
        }
        /* (b) column i: A (B C_{*,i}) */
        for (int p = 0; p < d; p++) {
            lm_num_set_d(&s, 0.0);
            for (int q = 0; q < d; q++) {
                lm_mat_get(&a, B, p, q);
                lm_mat_get(&b, A, i, q);
                lm_num_fma(&s, &a, &b, &s);
            }
            lm_mat_set(t, 0, p, &s);
        }
        for (int j = 0; j < n; j++) {
            lm_num_set_d(&s, 0.0);
            for (int p = 0; p < d; p++) {
                lm_mat_get(&a, A, j, p);
                lm_mat_get(&b, t, 0, p);
                lm_num_fma(&s, &a, &b, &s);
            }
            lm_mat_set(R2, j, i, &s);
        }
        /* (c) row j0 = i as the column vector X (M o W)^T X_i^T: v = (M o W)^T X_i^T, then X v */
        for (int q = 0; q < d; q++) {
            lm_num_set_d(&s, 0.0);
            for (int p = 0; p < d; p++) {
                lm_mat_get(&a, B, tr ? q : p, tr ? p : q);
                lm_mat_get(&b, A, i, p);
                lm_num_fma(&s, &a, &b, &s);
            }
            lm_mat_set(t, 0, q, &s);
        }
        for (int j = 0; j < n; j++) {
            lm_num_set_d(&s, 0.0);
            for (int q = 0; q < d; q++) {
                lm_mat_get(&a, A, j, q);
                lm_mat_get(&b, t, 0, q);
                lm_num_fma(&s, &a, &b, &s);
            }
            lm_mat_set(R3, i, j, &s);
        }
    }
    for (int i = 0; i < n; i++)
        for (int p = 0; p < d; p++) {
            lm_mat_get(&a, A, i, p);
            lm_num_abs(&a, &a);
            lm_mat_set(aA, i, p, &a);
        }
    for (int p = 0; p < d; p++)
        for (int q = 0; q < d; q++) {
            lm_mat_get(&a, B, p, q);
            lm_num_abs(&a, &a);
            lm_mat_set(aB, p, q, &a);
        }
    lm_mat_mul(T, aA, 0, aB, 0);
    lm_mat_mul(S, T, 0, aA, 1);
    lm_mat_frob(&s, S);
    double K = 4.0 * (2 * d + 4);
    lm_prid_resid_mat(I, "rows (A_i B) C vs ABC", R1, I->F->H, &s, K);
    lm_prid_resid_mat(I, "columns A (B C_j) vs ABC", R2, I->F->H, &s, K);
    lm_prid_resid_mat(I, "rows X (M o W)^T X_j0^T vs X (M o W) X^T", R3, I->F->H, &s, K);
    lm_num_clears(&s, &a, &b, (lm_num *)NULL);
    lm_mat_free(R1); lm_mat_free(R2); lm_mat_free(R3); lm_mat_free(t);
    lm_mat_free(aA); lm_mat_free(aB); lm_mat_free(T); lm_mat_free(S);
    return 0;
}

static int eval(lm_eval *ev)
{
    lm_prid_spec sp = {.support = LM_PRID_FULL, .R = RS, .nR = 3, .nmax = 16, .dmax = 16};
    return lm_prid_run(ev, &sp, check);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Full mask, n, d <= 16, R in {1+1e-6, 1.5, 2}, A = X, B = M o W, C = X^T: "
                    "rows, columns and the row j0 of X (M o W) X^T by loops vs the core's "
                    "logits.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_factA_1) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Fact A.1 (Appendix A)",
    .origin = "reconstructed",
    .confidence = "medium",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.5,
    .eval = eval,
};
