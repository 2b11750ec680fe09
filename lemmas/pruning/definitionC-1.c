/* lemmas/pruning/definitionC-1.c
 *
 * \claim{pruning/definitionC.1}{Matrix-form helpers $p_1$, $p_2$, $p$}
 * \source{attention-pruning, Definition C.1 (Appendix C)}
 * \statement{$p_1(M):=f(M)\circ c(M)$, $p_2(M):=\mathrm{diag}(p_1(M)\mathbf 1_n)f(M)$ and
 *   $p(M):=p_1(M)-p_2(M)$.  Equivalently $p(M)_j=(\mathrm{diag}(f_j)-f_jf_j^\top)c_j$.}
 * \check{Configurations causal, block and full; instances $n,d\le16$, families (i)--(iv),
 *   $R\in\{1+10^{-6},1.5,2\}$, five mask kinds, rebuilt exactly in IEEE double, MPFR-128 and MPFR-256.
 *   From the core's $f$ and $c$: (a) the row form, per row $j$ the $n\times n$ matrix
 *   $\mathrm{diag}(f_j)-f_jf_j^\top$ assembled and applied to $c_j$, against the core's $p$;
 *   (b) $p_1$ by an entry loop against the core's Hadamard product; (c)
 *   $p_2=\mathrm{diag}(p_1\mathbf 1_n)f$ as a matrix product with an assembled diagonal matrix against
 *   the core's $p_2$.  Residuals $\|\Delta\|_F/\|c\|_F$ (every term is a product of entries of $f\le1$
 *   with entries of $c$), tolerance $4(n+4)u_p$; each must shrink from the lowest to the highest
 *   precision.  \texttt{jac\_sign}$=+1$ uses $\mathrm{diag}(f_j)+f_jf_j^\top$ and must be caught.}
 */
#include "lm_prid.h"
#include <math.h>

static const char *const configs[] = {"causal", "block", "full", NULL};
static const int SUPPORT[] = {LM_PRID_CAUSAL, LM_PRID_BLOCK, LM_PRID_FULL};
static const double RS[] = {1.000001, 1.5, 2.0};

#define PARAMS(NUM, SWITCH)                                                                   \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies every rounding tolerance K u_p")      \
    NUM(jac_sign, -1.0, "[-1, 1]", "sign of f_j f_j^T in the row form (+1: a wrong formula)")
LM_PARAMS(PARAMS)

static int check(lm_prid_inst *I)
{
    int n = I->n;
    double sg = lm_par(I->ev, "jac_sign");
    const lm_mat *f = I->F->f, *c = I->F->c;
    lm_mat *J = lm_mat_new(n, n, I->c), *cj = lm_mat_new(n, 1, I->c), *pj = lm_mat_new(n, 1, I->c);
    lm_mat *p = lm_mat_new(n, n, I->c), *q = lm_mat_new(n, n, I->c), *Dg = lm_mat_new(n, n, I->c);
    lm_num a, b, s, sc;
    lm_num_inits(I->c, &a, &b, &s, &sc, (lm_num *)NULL);
    for (int j = 0; j < n; j++) {
        for (int k = 0; k < n; k++) {
            lm_mat_get(&a, f, j, k);
            for (int l = 0; l < n; l++) {
                lm_mat_get(&b, f, j, l);
                lm_num_mul(&b, &a, &b);
                lm_num_mul_d(&b, &b, sg);
                if (k == l) lm_num_add(&b, &b, &a);
                lm_mat_set(J, k, l, &b);
            }
            lm_mat_get(&b, c, j, k);
            lm_mat_set(cj, k, 0, &b);
        }
        lm_mat_mul(pj, J, 0, cj, 0);
        for (int k = 0; k < n; k++) {
            lm_mat_get(&b, pj, k, 0);
            lm_mat_set(p, j, k, &b);
        }
    }
    lm_mat_frob(&sc, c);
    lm_prid_resid_mat(I, "row form (diag(f_j) - f_j f_j^T) c_j vs core p", p, I->F->p, &sc, 4.0 * (n + 4));
    for (int j = 0; j < n; j++) {
        lm_num_set_d(&s, 0.0);
        for (int k = 0; k < n; k++) {
            lm_mat_get(&a, f, j, k);
            lm_mat_get(&b, c, j, k);
            lm_num_mul(&a, &a, &b);
            lm_mat_set(q, j, k, &a);
            lm_num_add(&s, &s, &a);
        }
        lm_mat_set(Dg, j, j, &s);
    }
    lm_prid_resid_mat(I, "p1 = f o c (entry loop) vs core p1", q, I->F->p1, &sc, 4.0 * (n + 4));
    lm_mat_mul(p, Dg, 0, f, 0);
    lm_prid_resid_mat(I, "p2 = diag(p1 1) f (matrix product) vs core p2", p, I->F->p2, &sc, 4.0 * (n + 4));
    lm_num_clears(&a, &b, &s, &sc, (lm_num *)NULL);
    lm_mat_free(J); lm_mat_free(cj); lm_mat_free(pj); lm_mat_free(p); lm_mat_free(q); lm_mat_free(Dg);
    return 0;
}

static int eval(lm_eval *ev)
{
    lm_prid_spec sp = {.support = SUPPORT[ev->config], .R = RS, .nR = 3, .nmax = 16, .dmax = 16};
    return lm_prid_run(ev, &sp, check);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Causal mask, n, d <= 16, R in {1+1e-6, 1.5, 2}: the row form (diag(f_j) - f_j "
                    "f_j^T) c_j, p1 by entry loops and p2 by a matrix product vs the "
                    "core's.", NULL},
    {LM_READ_PAPER, "Random block supports with the diagonal, n, d <= 16: p = p1 - p2 by the row "
                    "form, p1 and p2 by loops and products vs the core's on an irregular "
                    "support.", NULL},
    {LM_READ_PAPER, "Full mask, n, d <= 16, R in {1+1e-6, 1.5, 2}: p = p1 - p2 by the row form, p1 "
                    "and p2 by loops and products vs the core's in the non-causal case.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_definitionC_1) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Definition C.1 (Appendix C)",
    .origin = "reconstructed",
    .confidence = "medium",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .eval = eval,
};
