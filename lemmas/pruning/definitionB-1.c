/* lemmas/pruning/definitionB-1.c
 *
 * \claim{pruning/definitionB.1}{Exponential function $u$, $u_0$}
 * \source{attention-pruning, Definition B.1 (Appendix B)}
 * \statement{$u(M):=C\circ\exp(X(M\circ W)X^\top)\in\mathbb R^{n\times n}$ and
 *   $u_0:=C\circ\exp(XWX^\top)$.  The row $u(M)_{j_0}=C_{j_0}\circ\exp(X(M\circ W)^\top X_{j_0}^\top)$.}
 * \check{Configurations causal, block (random supports with the diagonal) and full; instances
 *   $n,d\le16$ from the families (i)--(iv), $R\in\{1+10^{-6},1.5,2\}$, the five mask kinds, rebuilt
 *   exactly in IEEE double, MPFR-128 and MPFR-256.  The row formula is written literally: per row
 *   $j_0$, the vector $(X(M\circ W)^\top)X_{j_0}^\top$ by loops, then $C_{j_0}\circ\exp$ without shift;
 *   it is compared with the matrix formula, $C\circ\exp$ of the core's logits $(X(M\circ W))X^\top$
 *   (BLAS in double).  Residuals: the logits, $\max|\Delta H|/h$ with
 *   $h=\max_{ij}(|X||M\circ W||X|^\top)_{ij}$, tolerance $4(2d+4)u_p$; $u$ entry by entry (relative,
 *   off the support exactly 0), tolerance $4\kappa u_p$, $\kappa=n+4+2d\,h$; the same at $M=\mathbf 1$
 *   for $u_0$.  The unshifted $\exp$ overflows binary64 above about 709 (underflows below $-708$): those
 *   residuals are then skipped in double and decided in MPFR.  Every residual must shrink from the
 *   lowest to the highest precision.  \texttt{transpose}$=1$ drops the transpose of $M\circ W$ in the
 *   row formula and must be caught.}
 */
#include "lm_prid.h"
#include <math.h>

static const char *const configs[] = {"causal", "block", "full", NULL};
static const int SUPPORT[] = {LM_PRID_CAUSAL, LM_PRID_BLOCK, LM_PRID_FULL};
static const double RS[] = {1.000001, 1.5, 2.0};

#define PARAMS(NUM, SWITCH)                                                                       \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies every rounding tolerance K u_p")          \
    NUM(transpose, 0, "int [0, 1]", "1: the row formula uses X (M o W) X_j0^T (a wrong formula)")
LM_PARAMS(PARAMS)

/* rows of the logits by the row formula: (X (M o W)^T) X_j0^T */
static void row_logits(lm_mat *H, const lm_mat *X, const lm_mat *W, const lm_mat *M, int tr)
{
    int n = X->r, d = X->c;
    lm_ctx c = lm_mat_ctx(X);
    lm_mat *Z = lm_mat_new(n, d, &c);
    lm_num s, a, b;
    lm_num_inits(&c, &s, &a, &b, (lm_num *)NULL);
    for (int i = 0; i < n; i++)
        for (int p = 0; p < d; p++) { /* Z_ip = sum_q X_iq (M o W)^T_qp = sum_q X_iq (M o W)_pq */
            lm_num_set_d(&s, 0.0);
            for (int q = 0; q < d; q++) {
                int r = tr ? q : p, cc = tr ? p : q;
                lm_mat_get(&a, M, r, cc);
                lm_mat_get(&b, W, r, cc);
                lm_num_mul(&a, &a, &b);
                lm_mat_get(&b, X, i, q);
                lm_num_fma(&s, &a, &b, &s);
            }
            lm_mat_set(Z, i, p, &s);
        }
    for (int j0 = 0; j0 < n; j0++)
        for (int i = 0; i < n; i++) {
            lm_num_set_d(&s, 0.0);
            for (int p = 0; p < d; p++) {
                lm_mat_get(&a, Z, i, p);
                lm_mat_get(&b, X, j0, p);
                lm_num_fma(&s, &a, &b, &s);
            }
            lm_mat_set(H, j0, i, &s);
        }
    lm_num_clears(&s, &a, &b, (lm_num *)NULL);
    lm_mat_free(Z);
}

static int check(lm_prid_inst *I)
{
    int n = I->n, d = I->d, tr = lm_par_i(I->ev, "transpose");
    lm_mat *Hr = lm_mat_new(n, n, I->c), *Hc = lm_mat_new(n, n, I->c), *ur = lm_mat_new(n, n, I->c),
           *uc = lm_mat_new(n, n, I->c), *ones = lm_prid_ones(d, d, I->c);
    lm_prfwd *F1 = lm_pr_fwd_new(I->P);
    if (lm_pr_forward(F1, I->P, ones)) {
        lm_pr_fwd_free(F1);
        lm_mat_free(Hr); lm_mat_free(Hc); lm_mat_free(ur); lm_mat_free(uc); lm_mat_free(ones);
        return lm_fail(I->ev, "non-finite loss at M = 1");
    }
    for (int k = 0; k < 2; k++) {
        const lm_mat *M = k ? ones : I->M;
        lm_mat_copy(Hc, k ? F1->H : I->F->H);
        row_logits(Hr, I->P->X, I->P->W, M, tr);
        double dh = 0.0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double a = lm_mat_get_d(Hr, i, j), b = lm_mat_get_d(Hc, i, j);
                if (I->c->backend == LM_DOUBLE) dh = fmax(dh, fabs(a - b));
            }
        if (I->c->backend != LM_DOUBLE) { /* the difference in the working precision */
            lm_mat *D = lm_mat_dup(Hr);
            lm_num x;
            lm_num_init(&x, I->c);
            lm_mat_sub(D, Hr, Hc);
            lm_mat_max_abs(&x, D);
            dh = lm_num_get_d(&x);
            lm_num_clear(&x);
            lm_mat_free(D);
        }
        lm_prid_resid_d(I, k ? "logits at M = 1: row formula vs matrix" : "logits: row formula vs matrix",
                        I->habs > 0.0 ? dh / I->habs : (dh == 0.0 ? 0.0 : 1e300), 4.0 * (2 * d + 4));
        int bad = lm_prid_naive_softmax(NULL, ur, NULL, Hr, I->P->C);
        bad |= lm_prid_naive_softmax(NULL, uc, NULL, Hc, I->P->C);
        const char *nm = k ? "u0: row formula vs C o exp(X W X^T)" : "u(M): row formula vs C o exp(H)";
        if (bad) lm_prid_skip(I, nm);
        else lm_prid_resid_d(I, nm, lm_prid_relmax(ur, uc, I->P->C), 4.0 * I->ksm);
    }
    lm_pr_fwd_free(F1);
    lm_mat_free(Hr); lm_mat_free(Hc); lm_mat_free(ur); lm_mat_free(uc); lm_mat_free(ones);
    return 0;
}

static int eval(lm_eval *ev)
{
    lm_prid_spec sp = {.support = SUPPORT[ev->config], .R = RS, .nR = 3, .nmax = 16, .dmax = 16};
    return lm_prid_run(ev, &sp, check);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Causal mask, n, d <= 16, R in {1+1e-6, 1.5, 2}: the row formula C_j o exp(X "
                    "(M o W)^T X_j^T) vs the matrix form, zero above the diagonal; u0 at M = "
                    "1.", NULL},
    {LM_READ_PAPER, "Random block supports with the diagonal, n, d <= 16, R up to 2: the row "
                    "formula for u(M) and u0 vs the matrix form on an irregular 0/1 "
                    "support.", NULL},
    {LM_READ_PAPER, "Full mask, n, d <= 16, R in {1+1e-6, 1.5, 2}: the row formula for u(M) and u0 "
                    "vs the matrix form with no zero entries (the non-causal case).", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_definitionB_1) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Definition B.1 (Appendix B)",
    .origin = "reconstructed",
    .confidence = "medium",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .eval = eval,
};
