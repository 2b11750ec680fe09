/* lemmas/pruning/lemmaA-7.c
 *
 * \claim{pruning/lemmaA.7}{Derivative of the bilinear logits}
 * \source{attention-pruning, Appendix A, Lemma A.7 (reconstructed statement)}
 * \statement{For $X\in\mathbb R^{n\times d}$ and $W\in\mathbb R^{d\times d}$ independent of $M$:
 *   $\frac{\partial}{\partial M_{i,j}}X(M\circ W)X^\top=W_{i,j}\,X_{*,i}X_{*,j}^\top\in\mathbb R^{n\times n}$.}
 * \check{The right-hand side is written literally (the outer product of columns $i$ and $j$ of
 *   $X$ times $W_{i,j}$) and compared with central differences of $H(M)=X(M\circ W)X^\top$ on
 *   up to 6 random coordinates $(i,j)$ per instance.  Instances cycle through the catalogue's
 *   families (i)--(iv) for $X$ and $W$, $n\in\{1,2,5,16\}$, $d\in\{1,3,8\}$, $R\in\{1,2,4\}$ and
 *   the masks $U[0,1]$, corners, $\mathbf 1$, $0$ and off-domain $U[-1,2]$; configurations: full
 *   and causal support (the support does not enter $H$, both are run for uniformity).  Every
 *   instance is rebuilt in IEEE double ($h=10^{-6}\max(1,|M_{ij}|)$), MPFR-128 ($h=2^{-40}$) and
 *   MPFR-256 ($h=2^{-80}$) and the observation is
 *   $\big(\sum_{ij}\|\mathrm{closed}_{ij}-\mathrm{FD}_{ij}\|_F^2\big)^{1/2}\le\tau_p
 *   =\texttt{tol\_scale}\cdot K\,u_p\big(D+\sqrt k\,\|H\|_F/h_p\big)$ with $K=4(n+d+4)^2$, $u_p$
 *   the unit roundoff, $D$ the norm of the formula with absolute values and $k$ the number of
 *   coordinates (the map is linear in $M_{ij}$, so the difference quotient has no truncation
 *   error: only rounding).  The residual must shrink with precision:
 *   $\mathrm{res}_{256}\le\max(2^{-60}\mathrm{res}_{53},\tau_{256})$; the report shows
 *   $\log_{10}$ of the relative residual per precision.  The check fails for any formula off by
 *   more than rounding: \texttt{scale}$\ne1$ multiplies the formula, \texttt{formula}$=$transpose
 *   uses $W_{j,i}X_{*,j}X_{*,i}^\top$ instead (both must come out violated).}
 */
#include "lm_prfd.h"
#include <math.h>

static const char *const configs[] = {"full", "causal", NULL};
#define PARAMS(NUM, SWITCH)                                                                                \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies the rounding tolerance tau_p")                     \
    NUM(scale, 1.0, "constant [-1e6, 1e6]", "coefficient on the closed form (1 as stated)")                \
    SWITCH(formula, 0, "stated|transpose", "the closed form as stated, or with i and j exchanged (wrong)")
LM_PARAMS(PARAMS)

static const int NS[] = {5, 16, 2, 1};
static const int DS[] = {3, 8, 1};
static const double RS[] = {1.0, 2.0, 4.0};
static const double LAMS[] = {0.0};

static int value(lm_mat *out, const lm_prdata *P, const lm_mat *M, void *arg)
{
    (void)arg;
    lm_prfwd *F = lm_pr_fwd_new(P);
    int rc = lm_pr_forward(F, P, M);
    lm_mat_copy(out, F->H);
    lm_pr_fwd_free(F);
    return rc && !lm_mat_isfinite(out);
}

/* dH/dM_ij = W_ij X_{*,i} X_{*,j}^T, entry (r,s) = W_ij X_ri X_sj */
static int deriv(lm_mat *D, lm_mat *A, const lm_prdata *P, const lm_mat *M, int i, int j, void *arg)
{
    (void)M;
    int wrong = *(const int *)arg;
    int ii = wrong ? j : i, jj = wrong ? i : j;
    lm_num w, x, y, t;
    lm_num_inits(&P->ctx, &w, &x, &y, &t, (lm_num *)NULL);
    lm_mat_get(&w, P->W, ii, jj);
    for (int r = 0; r < P->n; r++)
        for (int s = 0; s < P->n; s++) {
            lm_mat_get(&x, P->X, r, ii);
            lm_mat_get(&y, P->X, s, jj);
            lm_num_mul(&t, &x, &y);
            lm_num_mul(&t, &t, &w);
            lm_mat_set(D, r, s, &t);
            lm_num_abs(&t, &t);
            if (A) lm_mat_set(A, r, s, &t);
        }
    lm_num_clears(&w, &x, &y, &t, (lm_num *)NULL);
    return 0;
}

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    int wrong = lm_int(prm.formula);
    lm_prfd_grid gr = {NS, 4, DS, 3, RS, 3, LAMS, 1};
    lm_prfd_spec S = {.what = "dH/dM_ij", .value = value, .deriv = deriv, .arg = &wrong, .T3 = 0.0,
                      .tol_scale = prm.tol_scale, .scale = prm.scale};
    int n = NS[(ev->index / 3) % 4], d = DS[(ev->index / 2) % 3];
    S.K = 4.0 * (n + d + 4) * (n + d + 4);
    return lm_prfd_eval_model(ev, &S, LM_PRFD_NN, &gr, 6);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Full support, n in {1,2,5,16}, d in {1,3,8}, R in {1,2,4}, five mask kinds: "
                    "dH/dM_ij = W_ij X_i X_j^T vs central differences in double, MPFR-128 and "
                    "MPFR-256.", NULL},
    {LM_READ_PAPER, "Causal support, n in {1,2,5,16}, d in {1,3,8}, R in {1,2,4}: the same "
                    "dH/dM_ij check (the support does not enter H), run so both supports are "
                    "covered.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_lemmaA_7) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Appendix A, Lemma A.7",
    .origin = "reconstructed",
    .confidence = "low",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .eval = eval,
};
