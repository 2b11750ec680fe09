/* lemmas/pruning/lemmaF-8.c
 *
 * \claim{pruning/lemmaF.8}{Bound for the one-unit loss $c$}
 * \source{attention-pruning, Lemma F.8 (Appendix F)}
 * \statement{For all $M$ and $i,j$: $|c(M)_{i,j}|\le|f(M)_{i,j}|+|f_{0,i,j}|\le2$, hence
 *   $\|c(M)\|_F\le2n$.  (RECON; the sharp bound is $|c_{ij}|\le1$.)}
 * \check{Configuration \texttt{entry}: $\max_{ij}|c_{ij}|\le\texttt{c\_entry}$ (default $2$) and
 *   the triangle step $\max_{ij}|c_{ij}|/(|f_{ij}|+|f_{0,ij}|)\le1$ (attained wherever $f_{ij}f_{0,ij}=0$); configuration
 *   \texttt{frobenius}: $\|c\|_F\le\texttt{c\_frob}\cdot n$ (default $2$).  Instances as in
 *   \texttt{pruning/lemmaD.3} (the catalogue's grids, families, mask kinds including
 *   off-domain, causal and full), one in three hill-climbed in double over $X$, $W$ at the
 *   corners and over $M$ to maximise the ratio; relative tolerance
 *   $\texttt{tol\_scale}\cdot16(n+d)u$.  The search reaches $|c_{ij}|\approx1$ (ratio
 *   $\approx1/2$), so \texttt{c\_entry}$=0.9$ must be violated.
 *   Readings: both configurations read the paper; both are vacuous with the RECON constants
 *   ($|c_{ij}|\le1$ and $\|c\|_F\le\sqrt{2n}\le\sqrt2\,n$ a priori, below 2 and $2n$).}
 */
#include "lm_prbd.h"
#include <math.h>

static const char *const configs[] = {"entry", "frobenius", NULL};
#define PARAMS(NUM, SWITCH)                                                                 \
    NUM(c_entry, 2.0, "constant [0, 1e6]", "max |c_ij| <= c_entry (RECON)")                 \
    NUM(c_frob, 2.0, "constant [0, 1e6]", "||c||_F <= c_frob n (RECON)")                    \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies the rounding tolerance 16 (n+d) u")
LM_PARAMS(PARAMS)

static void part_fn(lm_num *lhs, lm_num *rhs, const lm_prfwd *F, const lm_prdata *P, int part)
{
    if (part == 1) {
        lm_mat_frob(lhs, F->c);
        lm_num_set_d(rhs, P->n);
        return;
    }
    lm_ctx c = lm_mat_ctx(F->c);
    lm_num x, y, z;
    lm_num_inits(&c, &x, &y, &z, (lm_num *)NULL);
    lm_num_set_d(lhs, -HUGE_VAL);
    for (int i = 0; i < P->n; i++)
        for (int j = 0; j < P->n; j++) {
            lm_mat_get(&x, F->c, i, j);
            lm_num_abs(&x, &x);
            if (part == 2) { /* the triangle step, as |c_ij| / (|f_ij| + |f0_ij|) */
                lm_mat_get(&y, F->f, i, j);
                lm_mat_get(&z, P->f0, i, j);
                lm_num_abs(&y, &y);
                lm_num_abs(&z, &z);
                lm_num_add(&y, &y, &z);
                if (lm_num_iszero(&y)) continue; /* off the support: 0 <= 0 */
                lm_num_div(&x, &x, &y);
            }
            lm_num_max(lhs, lhs, &x);
        }
    lm_num_set_d(rhs, 1.0);
    lm_num_clears(&x, &y, &z, (lm_num *)NULL);
}

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    /* c_ij = f_ij - f0_ij is a difference of two softmax entries, so |c_ij| <= 1 and
     * ||c||_F <= sqrt(2n) <= sqrt(2) n a priori: a constant at or above these cannot fail (vacuous) */
    if (ev->config == 1) {
        int rf = lm_prbd_parts_eval(ev, 1, part_fn, prm.c_frob, 1);
        if (!rf) lm_rhs_trivial(ev, prm.c_frob, M_SQRT2, "||c||_F / n (a priori <= sqrt(2/n) <= sqrt 2)");
        return rf;
    }
    int rc = lm_prbd_parts_eval(ev, 0, part_fn, prm.c_entry, 1);
    if (rc) return rc;
    lm_rhs_trivial(ev, prm.c_entry, 1.0, "max |c_ij| (a difference of two softmax entries: a priori <= 1)");
    return lm_prbd_parts_eval(ev, 2, part_fn, 1.0, 0);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Entrywise |c_ij| <= 2 and the triangle step |c_ij| <= |f_ij| + |f0_ij|, n, d "
                    "<= 8, full and causal, 1 in 3 hill-climbed: vacuous with RECON 2 (sharp "
                    "1).", NULL},
    {LM_READ_PAPER, "Frobenius ||c(M)||_F <= 2n, n, d <= 8, full and causal, masks incl. "
                    "off-domain, 1 in 3 hill-climbed: vacuous with the RECON constant (a priori "
                    "sqrt(2n)).", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_lemmaF_8) = {
    .kind = LM_KIND_POINTWISE,
    .source = "Lemma F.8 (Appendix F)",
    .origin = "reconstructed (RECON constant: c_entry, c_frob)",
    .confidence = "low",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 1.0,
    .eval = eval,
};
