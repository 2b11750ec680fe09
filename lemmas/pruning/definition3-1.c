/* lemmas/pruning/definition3-1.c
 *
 * \claim{pruning/definition3.1}{Causal attention mask}
 * \source{attention-pruning, Definition 3.1 (Section 3)}
 * \statement{$C\in\{0,1\}^{n\times n}$, $C_{ij}=1$ if $i\ge j$, else $0$ (a token attends to itself
 *   and earlier tokens).}
 * \check{A construction test in the runner's precision.  An instance draws
 *   $n\in\{1,2,3,5,8,16,32\}$, $d\in\{1,2,3,4,8,16\}$, $X,W$ from the families (i)--(iv) at
 *   $R\in\{1+10^{-6},1.5,2,4\}$ and a mask $M$ of one of the five kinds, off-domain $U[-1,2]$ included.
 *   The mask is built by the core (\texttt{lm\_pr\_set\_causal}) and compared entry by entry with the
 *   definition $[i\ge j]$; then $f(M)$ is computed with it and must be lower-triangular (every entry
 *   above the diagonal exactly $0$), its first row must be exactly $e_1$, and so must be the first rows of
 *   $c$ and $p_1$ ($=0$, the catalogue's edge identity); every row must contain its diagonal.  Each is a
 *   count of offending entries, observed against $1/2$, so a single wrong entry breaks the claim.
 *   \texttt{mask}$=$anti-causal builds $C_{ij}=[i\le j]$ instead and must be caught (whenever $n\ge2$).}
 */
#include "lm_pr.h"
#include <math.h>

static const char *const configs[] = {"causal", NULL};
static const double RS[] = {1.000001, 1.5, 2.0, 4.0};
static const int NS[] = {1, 2, 3, 5, 8, 16, 32}, DS[] = {1, 2, 3, 4, 8, 16};

#define PARAMS(NUM, SWITCH)                                                                                   \
    SWITCH(mask, 0, "core|anti-causal", "the mask construction (anti-causal: C_ij = [i <= j], a wrong mask)")
LM_PARAMS(PARAMS)

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    int n = NS[lm_rng_int(g, 0, 6)], d = DS[lm_rng_int(g, 0, 5)];
    if (ev->index % 7 == 3) n = 1;
    else if (n == 1) n = 2 + ev->index % 3;
    double R = RS[lm_rng_int(g, 0, 3)];
    lm_ctx cd = lm_ctx_double();
    lm_prdata *P0 = lm_pr_new(n, d, &cd);
    lm_pr_fill(P0->X, (lm_pr_family)(ev->index % LM_PR_NFAMILY), R, g);
    lm_pr_fill(P0->W, (lm_pr_family)((ev->index / 2) % LM_PR_NFAMILY), R, g);
    lm_pr_set_causal(P0);
    if (lm_int(prm.mask) == 1) {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) P0->C[i * n + j] = (unsigned char)(i <= j);
    }
    lm_pr_prepare(P0);
    lm_mat *M0 = lm_mat_new(d, d, &cd);
    lm_pr_fill_mask(M0, (lm_pr_mkind)(ev->index % LM_PR_M_NKIND), g);
    lm_prdata *P = lm_pr_convert(P0, ev->ctx);
    lm_mat *M = lm_mat_new(d, d, ev->ctx);
    lm_mat_copy(M, M0);
    lm_prfwd *F = lm_pr_fwd_new(P);
    int rc = 0;
    if (lm_pr_forward(F, P, M)) rc = lm_fail(ev, "non-finite loss (n=%d, d=%d)", n, d);
    else {
        lm_pr_grad(F, P, M);
        int cmis = 0, upper = 0, row1 = 0, crow = 0, diag = 0;
        lm_num v;
        lm_num_init(&v, ev->ctx);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                cmis += P->C[i * n + j] != (i >= j);
                lm_mat_get(&v, F->f, i, j);
                if (j > i) upper += !lm_num_iszero(&v);
                if (i == 0) row1 += lm_num_get_d(&v) != (j == 0 ? 1.0 : 0.0);
                if (i == 0) {
                    lm_mat_get(&v, F->c, i, j);
                    crow += !lm_num_iszero(&v);
                    lm_mat_get(&v, F->p1, i, j);
                    crow += !lm_num_iszero(&v);
                }
                if (i == j) diag += !P->C[i * n + j];
            }
        lm_num_clear(&v);
        lm_obs_le_d(ev, -1, cmis, 0.5, 0.0, "mask entries differing from [i >= j] (n=%d)", n);
        lm_obs_le_d(ev, -1, upper, 0.5, 0.0, "nonzero f above the diagonal (n=%d, d=%d, R=%g)", n, d, R);
        lm_obs_le_d(ev, -1, row1, 0.5, 0.0, "row 1 of f differs from e1 (n=%d)", n);
        lm_obs_le_d(ev, -1, crow, 0.5, 0.0, "row 1 of c or p1 nonzero (n=%d)", n);
        lm_obs_le_d(ev, -1, diag, 0.5, 0.0, "diagonal missing from the mask (n=%d)", n);
        lm_measure(ev, "n", n);
        lm_measure(ev, "d", d);
        lm_measure(ev, "offending entries", cmis + upper + row1 + crow + diag);
    }
    lm_pr_fwd_free(F);
    lm_mat_free(M); lm_mat_free(M0);
    lm_pr_free(P); lm_pr_free(P0);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "n up to 32, d up to 16, five mask kinds: the core's causal mask equals [i >= "
                    "j], f(M) is lower-triangular with first row e1 and c, p1 vanish there.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_definition3_1) = {
    .kind = LM_KIND_STRUCTURAL,
    .source = "Definition 3.1 (Section 3)",
    .origin = "verbatim",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.5,
    .eval = eval,
};
