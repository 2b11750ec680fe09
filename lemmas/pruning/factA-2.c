/* lemmas/pruning/factA-2.c
 *
 * \claim{pruning/factA.2}{Sums of products}
 * \source{attention-pruning, Fact A.2 (Appendix A)}
 * \statement{Part 1: for $a,b\in\mathbb R^n$ and $c_i:=a_ib_i$, $\sum_ic_i=a^\top b$.  Part 2: for
 *   $A\in\mathbb R^{n\times d}$, $b\in\mathbb R^n$ and $c_i:=b_iA_{i,*}$, $\sum_ic_i=b^\top A$.  Used in
 *   Lemma C.2 as $\sum_{j_0}X_{j_0,i_0}\langle p_{j_0},X_{*,j_1}\rangle=(X^\top pX)_{i_0j_1}$.}
 * \check{Instances of the pruning model (causal and full, $n,d\le16$, families (i)--(iv), five mask
 *   kinds) with Gaussian $a,b\in\mathbb R^n$, rebuilt exactly in IEEE double, MPFR-128 and MPFR-256.
 *   Part 1: the loop $\sum_ia_ib_i$ against the matrix product $a^\top b$; Part 2: the accumulated rows
 *   $\sum_ib_iA_{i,*}$ against $b^\top A$ with $A=X$; the C.2 form: the loops
 *   $\sum_{j_0}X_{j_0,i_0}\langle p_{j_0},X_{*,j_1}\rangle$ with the core's $p$ against the core's
 *   $X^\top pX$.  Residuals relative to the same sums in absolute values, tolerance $4(2n+4)u_p$;
 *   each must shrink from the lowest to the highest precision.  \texttt{transpose}$=1$ uses the
 *   columns $p_{*,j_0}$ in the C.2 form and must be caught.}
 */
#include "lm_prid.h"

static const char *const configs[] = {"causal", "full", NULL};
static const int SUPPORT[] = {LM_PRID_CAUSAL, LM_PRID_FULL};
static const double RS[] = {1.000001, 1.5, 2.0};

#define PARAMS(NUM, SWITCH)                                                              \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies every rounding tolerance K u_p") \
    NUM(transpose, 0, "int [0, 1]", "1: the C.2 form reads p_{*,j0} (a wrong formula)")
LM_PARAMS(PARAMS)

static int check(lm_prid_inst *I)
{
    int n = I->n, d = I->d, tr = lm_par_i(I->ev, "transpose");
    double K = 4.0 * (2 * n + 4);
    lm_mat *a = lm_prid_randn(I, n, 1), *b = lm_prid_randn(I, n, 1), *r = lm_mat_new(1, 1, I->c);
    lm_mat *bA = lm_mat_new(1, d, I->c), *acc = lm_mat_new(1, d, I->c), *E = lm_mat_new(d, d, I->c),
           *Sa = lm_mat_new(d, d, I->c);
    const lm_mat *X = I->P->X, *p = I->F->p;
    lm_num s, sa, x, y, ip, ipa;
    lm_num_inits(I->c, &s, &sa, &x, &y, &ip, &ipa, (lm_num *)NULL);
    /* Part 1 */
    lm_num_set_d(&s, 0.0);
    lm_num_set_d(&sa, 0.0);
    for (int i = 0; i < n; i++) {
        lm_mat_get(&x, a, i, 0);
        lm_mat_get(&y, b, i, 0);
        lm_num_mul(&x, &x, &y);
        lm_num_add(&s, &s, &x);
        lm_num_abs(&x, &x);
        lm_num_add(&sa, &sa, &x);
    }
    lm_mat_mul(r, a, 1, b, 0);
    lm_mat_get(&x, r, 0, 0);
    lm_num_sub(&s, &s, &x);
    lm_prid_resid(I, "Part 1: sum_i a_i b_i vs a^T b", &s, &sa, K);
    /* Part 2 */
    lm_num_set_d(&sa, 0.0);
    for (int i = 0; i < n; i++)
        for (int q = 0; q < d; q++) {
            lm_mat_get(&x, b, i, 0);
            lm_mat_get(&y, X, i, q);
            lm_num_mul(&x, &x, &y);
            lm_mat_get(&y, acc, 0, q);
            lm_num_add(&y, &y, &x);
            lm_mat_set(acc, 0, q, &y);
            lm_num_abs(&x, &x);
            lm_num_add(&sa, &sa, &x);
        }
    lm_mat_mul(bA, b, 1, X, 0);
    lm_prid_resid_mat(I, "Part 2: sum_i b_i A_i vs b^T A", acc, bA, &sa, K);
    /* the C.2 form */
    for (int j0 = 0; j0 < n; j0++)
        for (int j1 = 0; j1 < d; j1++) {
            lm_num_set_d(&ip, 0.0);
            lm_num_set_d(&ipa, 0.0);
            for (int i = 0; i < n; i++) {
                lm_mat_get(&x, p, tr ? i : j0, tr ? j0 : i);
                lm_mat_get(&y, X, i, j1);
                lm_num_fma(&ip, &x, &y, &ip);
                lm_num_mul(&x, &x, &y);
                lm_num_abs(&x, &x);
                lm_num_add(&ipa, &ipa, &x);
            }
            for (int i0 = 0; i0 < d; i0++) {
                lm_mat_get(&x, X, j0, i0);
                lm_num_mul(&y, &x, &ip);
                lm_mat_get(&s, E, i0, j1);
                lm_num_add(&s, &s, &y);
                lm_mat_set(E, i0, j1, &s);
                lm_num_abs(&x, &x);
                lm_num_mul(&y, &x, &ipa);
                lm_mat_get(&s, Sa, i0, j1);
                lm_num_add(&s, &s, &y);
                lm_mat_set(Sa, i0, j1, &s);
            }
        }
    lm_mat_frob(&sa, Sa);
    lm_prid_resid_mat(I, "C.2 form: sum_j0 X_j0i0 <p_j0, X_*j1> vs core X^T p X", E, I->F->XtPX, &sa, K);
    lm_num_clears(&s, &sa, &x, &y, &ip, &ipa, (lm_num *)NULL);
    lm_mat_free(a); lm_mat_free(b); lm_mat_free(r); lm_mat_free(bA); lm_mat_free(acc);
    lm_mat_free(E); lm_mat_free(Sa);
    return 0;
}

static int eval(lm_eval *ev)
{
    lm_prid_spec sp = {.support = SUPPORT[ev->config], .R = RS, .nR = 3, .nmax = 16, .dmax = 16};
    return lm_prid_run(ev, &sp, check);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Causal instances, n, d <= 16, R up to 2: sum_i a_i b_i vs a^T b, sum_i b_i "
                    "X_i vs b^T X, and the Lemma C.2 sum with the core's causal p vs X^T p "
                    "X.", NULL},
    {LM_READ_PAPER, "Full mask, n, d <= 16, R up to 2: sum_i a_i b_i vs a^T b, sum_i b_i X_i vs "
                    "b^T X, and the Lemma C.2 sum with the non-causal p vs X^T p X.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_factA_2) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Fact A.2 (Appendix A)",
    .origin = "reconstructed",
    .confidence = "low",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .eval = eval,
};
