/* lemmas/pruning/definitionB-2.c
 *
 * \claim{pruning/definitionB.2}{Softmax normaliser $\alpha$, $\alpha_0$}
 * \source{attention-pruning, Definition B.2 (Appendix B)}
 * \statement{$\alpha(M):=u(M)\mathbf 1_n$ and $\alpha_0:=u_0\mathbf 1_n$.}
 * \check{Configurations causal, block and full; instances as for \texttt{pruning/definitionB.1}
 *   ($n,d\le16$, families (i)--(iv), $R\in\{1+10^{-6},1.5,2\}$, five mask kinds), rebuilt exactly in
 *   IEEE double, MPFR-128 and MPFR-256.  The literal $\alpha_i=\sum_jC_{ij}\exp(H_{ij})$ (unshifted,
 *   over logits $X((M\circ W)X^\top)$ formed by loops) is compared entry by entry with
 *   $\exp(\mathrm{lse}_i)$, $\mathrm{lse}_i=m_i+\log\sum_{j:C_{ij}=1}e^{H_{ij}-m_i}$ over the core's
 *   logits; the same at $M=\mathbf 1$ for $\alpha_0$.  Relative tolerance $4\kappa u_p$,
 *   $\kappa=n+4+2d\,h$, $h=\max_{ij}(|X||M\circ W||X|^\top)_{ij}$.  Positivity $\alpha>0$ (every row
 *   of $C$ has a 1) is recorded as a residual $0$ or $1$.  The unshifted sums over- or underflow
 *   binary64 for logits beyond about $\pm708$; those residuals are then skipped in double and
 *   decided in MPFR.  Every residual must shrink from the lowest to the highest precision.
 *   \texttt{sum}$=$columns forms $u^\top\mathbf 1_n$ instead and must be caught.}
 */
#include "lm_prid.h"
#include <math.h>

static const char *const configs[] = {"causal", "block", "full", NULL};
static const int SUPPORT[] = {LM_PRID_CAUSAL, LM_PRID_BLOCK, LM_PRID_FULL};
static const double RS[] = {1.000001, 1.5, 2.0};

#define PARAMS(NUM, SWITCH)                                                                  \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies every rounding tolerance K u_p")     \
    SWITCH(sum, 0, "rows|columns", "alpha = u 1 (rows) or u^T 1 (columns: a wrong formula)")
LM_PARAMS(PARAMS)

static int check(lm_prid_inst *I)
{
    int n = I->n, d = I->d, cols = lm_par_i(I->ev, "sum");
    const unsigned char *C = I->P->C;
    lm_mat *H = lm_mat_new(n, n, I->c), *u = lm_mat_new(n, n, I->c), *ones = lm_prid_ones(d, d, I->c);
    lm_mat *al = lm_mat_new(n, 1, I->c), *ref = lm_mat_new(n, 1, I->c);
    lm_prfwd *F1 = lm_pr_fwd_new(I->P);
    lm_num v, mx, s;
    lm_num_inits(I->c, &v, &mx, &s, (lm_num *)NULL);
    int rc = lm_pr_forward(F1, I->P, ones);
    for (int k = 0; k < 2 && !rc; k++) {
        const lm_mat *Hc = k ? F1->H : I->F->H;
        lm_prid_logits_alt(H, I->P->X, I->P->W, k ? ones : I->M);
        int bad = lm_prid_naive_softmax(NULL, u, NULL, H, C);
        int pos = 1;
        for (int i = 0; i < n; i++) {
            lm_num_set_d(&s, 0.0);
            for (int j = 0; j < n; j++) {
                lm_mat_get(&v, u, cols ? j : i, cols ? i : j);
                lm_num_add(&s, &s, &v);
            }
            lm_mat_set(al, i, 0, &s);
            pos &= lm_num_sgn(&s) > 0;
            /* exp(lse_i) from the core's logits */
            int first = 1;
            for (int j = 0; j < n; j++) {
                if (!C[i * n + j]) continue;
                lm_mat_get(&v, Hc, i, j);
                if (first || lm_num_cmp(&v, &mx) > 0) lm_num_set(&mx, &v);
                first = 0;
            }
            lm_num_set_d(&s, 0.0);
            for (int j = 0; j < n; j++) {
                if (!C[i * n + j]) continue;
                lm_mat_get(&v, Hc, i, j);
                lm_num_sub(&v, &v, &mx);
                lm_num_exp(&v, &v);
                lm_num_add(&s, &s, &v);
            }
            lm_num_log(&s, &s);
            lm_num_add(&s, &s, &mx);
            lm_num_exp(&s, &s);
            lm_mat_set(ref, i, 0, &s);
        }
        const char *nm = k ? "alpha0 = u0 1 vs exp(logsumexp)" : "alpha = u 1 vs exp(logsumexp)";
        const char *np = k ? "alpha0 > 0" : "alpha > 0";
        if (bad) {
            lm_prid_skip(I, nm);
            lm_prid_skip(I, np);
        } else {
            lm_prid_resid_d(I, nm, lm_prid_relmax(al, ref, NULL), 4.0 * I->ksm);
            lm_prid_resid_d(I, np, pos ? 0.0 : 1.0, 1.0);
        }
    }
    lm_num_clears(&v, &mx, &s, (lm_num *)NULL);
    lm_pr_fwd_free(F1);
    lm_mat_free(H); lm_mat_free(u); lm_mat_free(ones); lm_mat_free(al); lm_mat_free(ref);
    return rc ? lm_fail(I->ev, "non-finite loss at M = 1") : 0;
}

static int eval(lm_eval *ev)
{
    lm_prid_spec sp = {.support = SUPPORT[ev->config], .R = RS, .nR = 3, .nmax = 16, .dmax = 16};
    return lm_prid_run(ev, &sp, check);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Causal mask, n, d <= 16, R in {1+1e-6, 1.5, 2}: the literal row sums alpha = "
                    "u 1 (and alpha0 at M = 1) vs exp(lse) of the core's logits; alpha > 0.", NULL},
    {LM_READ_PAPER, "Random block supports with the diagonal, n, d <= 16: alpha = u 1 and alpha0 "
                    "vs exp(lse) summed over each row's irregular support; alpha > 0.", NULL},
    {LM_READ_PAPER, "Full mask, n, d <= 16, R in {1+1e-6, 1.5, 2}: alpha = u 1 and alpha0 vs "
                    "exp(lse) with every entry of a row in the sum (the non-causal case).", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_definitionB_2) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Definition B.2 (Appendix B)",
    .origin = "reconstructed",
    .confidence = "medium",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .eval = eval,
};
