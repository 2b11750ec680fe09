/* lemmas/pruning/definitionB-3.c
 *
 * \claim{pruning/definitionB.3}{Softmax probability function $f$, $f_0$}
 * \source{attention-pruning, Definition B.3 (Appendix B)}
 * \statement{$f(M)_{j_0}:=\alpha(M)_{j_0}^{-1}u(M)_{j_0}$ and
 *   $f(M)_{j_0,i_0}=\alpha(M)_{j_0}^{-1}u(M)_{j_0,i_0}$; likewise $f_0$.  So
 *   $f(M)=\tilde D^{-1}\tilde A$ and $f_0=D^{-1}A=f(\mathbf 1)$.}
 * \check{Configurations causal, block and full; instances as for \texttt{pruning/definitionB.1},
 *   rebuilt exactly in IEEE double, MPFR-128 and MPFR-256.  The literal entry
 *   $u_{j_0i_0}/\alpha_{j_0}$ (unshifted $C\circ\exp$ of logits $X((M\circ W)X^\top)$ formed by loops,
 *   row sums) is compared entry by entry with the core's max-shifted softmax $f(M)$, and at
 *   $M=\mathbf 1$ with the core's target $f_0$; relative tolerance $4\kappa u_p$, $\kappa=n+4+2d\,h$,
 *   $h=\max_{ij}(|X||M\circ W||X|^\top)_{ij}$; skipped in binary64 where the unshifted form over- or
 *   underflows (decided in MPFR).  Also, on the core's $f$: row sums $\max_i|\sum_jf_{ij}-1|$
 *   (tolerance $2(n+4)u_p$), $f\ge0$ and $f=0$ off the support (counts, must be $0$).  Every residual
 *   must shrink from the lowest to the highest precision.  \texttt{normalise}$=$columns divides by
 *   column sums instead and must be caught.}
 */
#include "lm_prid.h"
#include <math.h>

static const char *const configs[] = {"causal", "block", "full", NULL};
static const int SUPPORT[] = {LM_PRID_CAUSAL, LM_PRID_BLOCK, LM_PRID_FULL};
static const double RS[] = {1.000001, 1.5, 2.0};

#define PARAMS(NUM, SWITCH)                                                                           \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies every rounding tolerance K u_p")              \
    SWITCH(normalise, 0, "rows|columns", "divide u by its row sums alpha (columns: a wrong formula)")
LM_PARAMS(PARAMS)

static int check(lm_prid_inst *I)
{
    int n = I->n, d = I->d, cols = lm_par_i(I->ev, "normalise");
    const unsigned char *C = I->P->C;
    lm_mat *H = lm_mat_new(n, n, I->c), *u = lm_mat_new(n, n, I->c), *f = lm_mat_new(n, n, I->c),
           *ones = lm_prid_ones(d, d, I->c);
    lm_num *al = lm_nums_new(n, I->c);
    lm_num v;
    lm_num_init(&v, I->c);
    for (int k = 0; k < 2; k++) {
        lm_prid_logits_alt(H, I->P->X, I->P->W, k ? ones : I->M);
        int bad = lm_prid_naive_softmax(NULL, u, al, H, C);
        if (cols)
            for (int j = 0; j < n; j++) {
                lm_num_set_d(&al[j], 0.0);
                for (int i = 0; i < n; i++) {
                    lm_mat_get(&v, u, i, j);
                    lm_num_add(&al[j], &al[j], &v);
                }
            }
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) { /* f_{j0 i0} = alpha_{j0}^{-1} u_{j0 i0} */
                lm_mat_get(&v, u, i, j);
                lm_num_div(&v, &v, &al[cols ? j : i]);
                lm_mat_set(f, i, j, &v);
            }
        const char *nm = k ? "f0: u0/alpha0 vs core target D^-1 A" : "f(M): u/alpha vs core max-shifted softmax";
        if (bad) lm_prid_skip(I, nm);
        else lm_prid_resid_d(I, nm, lm_prid_relmax(f, k ? I->P->f0 : I->F->f, C), 4.0 * I->ksm);
    }
    double rs = 0.0;
    int neg = 0, off = 0;
    lm_num s;
    lm_num_init(&s, I->c);
    for (int i = 0; i < n; i++) {
        lm_num_set_d(&s, -1.0);
        for (int j = 0; j < n; j++) {
            lm_mat_get(&v, I->F->f, i, j);
            lm_num_add(&s, &s, &v);
            neg += lm_num_sgn(&v) < 0;
            off += !C[i * n + j] && !lm_num_iszero(&v);
        }
        rs = fmax(rs, fabs(lm_num_get_d(&s)));
    }
    lm_prid_resid_d(I, "row sums of f", rs, 2.0 * (n + 4));
    lm_prid_resid_d(I, "f >= 0 and f = 0 off the support (count)", neg + off, 1.0);
    lm_num_clear(&s);
    lm_num_clear(&v);
    lm_nums_free(al, n);
    lm_mat_free(H); lm_mat_free(u); lm_mat_free(f); lm_mat_free(ones);
    return 0;
}

static int eval(lm_eval *ev)
{
    lm_prid_spec sp = {.support = SUPPORT[ev->config], .R = RS, .nR = 3, .nmax = 16, .dmax = 16};
    return lm_prid_run(ev, &sp, check);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Causal mask, n, d <= 16, R in {1+1e-6, 1.5, 2}: literal u_ji/alpha_j vs the "
                    "core's softmax f(M) and f0 = f(1); row sums 1, f >= 0, f = 0 above the "
                    "diagonal.", NULL},
    {LM_READ_PAPER, "Random block supports with the diagonal, n, d <= 16: literal u/alpha vs the "
                    "core's f(M) and f0 on an irregular support; row sums 1 and f = 0 off "
                    "it.", NULL},
    {LM_READ_PAPER, "Full mask, n, d <= 16, R in {1+1e-6, 1.5, 2}: literal u/alpha vs the core's "
                    "f(M) and f0 in the non-causal case; row sums 1 and f >= 0.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_definitionB_3) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Definition B.3 (Appendix B)",
    .origin = "reconstructed",
    .confidence = "medium-high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .eval = eval,
};
