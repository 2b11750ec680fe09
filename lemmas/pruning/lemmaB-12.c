/* lemmas/pruning/lemmaB-12.c
 *
 * \claim{pruning/lemmaB.12}{Gradient of an entry of $c$}
 * \source{attention-pruning, Appendix B, Lemma B.12}
 * \statement{$\frac{\mathrm d c(M)_{j_0,k}}{\mathrm dM_{i_0,j_1}}=\frac{\mathrm d f(M)_{j_0,k}}{\mathrm dM_{i_0,j_1}}$, because $f_0$ does not depend on $M$.}
 * \check{The right-hand side is Lemma B.11's closed form (written literally) and the left-hand side is the central difference of $c(M)=f(M)-f_0$ itself, so the check covers both that $f_0$ drops out and the formula.  Every instance is rebuilt in IEEE double ($h=10^{-6}\max(1,|M_{i_0j_1}|)$), MPFR-128
 *   ($h=2^{-40}$) and MPFR-256 ($h=2^{-80}$), and on up to 6 random coordinates $(i_0,j_1)$ the
 *   observation is $\mathrm{res}_p=\big(\sum\|\mathrm{closed}-\mathrm{FD}\|_F^2\big)^{1/2}\le\tau_p
 *   =\texttt{tol\_scale}\cdot K\big(h_{\max}^2\,T\,\rho^3+u_p(D+\sqrt k\,\|F\|_F/h_p)\big)$, $K=4(n+d+4)^2$,
 *   where $\rho=2|W_{i_0j_1}|\max_j|X_{j,i_0}|\max_k|X_{k,j_1}|$ bounds the rate at which a logit row
 *   moves with $M_{i_0j_1}$, $T\rho^3$ bounds the third derivative of the map ($T=6n$ as for $f$), $u_p$ is the
 *   unit roundoff, $D$ the norm of the formula evaluated with absolute values (its natural scale)
 *   and $k$ the number of coordinates: the first term is the truncation error of the central
 *   difference, the second the rounding of the formula and of the quotient.  A precision whose
 *   $\tau_p$ exceeds $0.05D$ (saturated or huge logits in double) cannot tell a wrong formula and
 *   is promoted to MPFR: it is measured, not observed; MPFR-256 is always observed.  The residual
 *   must shrink: $\mathrm{res}_{256}\le\max(2^{-60}\mathrm{res}_{53},\tau_{256})$.  The report
 *   shows $\log_{10}$ of the relative residual $\mathrm{res}_p/D$ per precision.  Instances cycle
 *   through families (i)--(iv) of $X$ and $W$, $n\in\{5, 16, 2, 1\}$, $d\in\{3, 8, 1\}$, $R\in\{1.0, 2.0, 4.0\}$
 *   and the masks $U[0,1]$, corners, $\mathbf 1$, $0$ and off-domain $U[-1,2]$; configurations full
 *   and causal support.  Wrong variants that must come out violated: \texttt{scale}$\ne1$
 *   multiplies the closed form.}
 */
#include "lm_prfd.h"
#include <math.h>

static const char *const configs[] = {"full", "causal", NULL};
#define PARAMS(NUM, SWITCH)                                                                                                \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies the tolerance tau_p (truncation + rounding)")                      \
    NUM(scale, 1.0, "constant [-1e6, 1e6]", "coefficient on the closed form (1 as stated; other values: a wrong formula)")
LM_PARAMS(PARAMS)

static const int NS[] = {5, 16, 2, 1};
static const int DS[] = {3, 8, 1};
static const double RS[] = {1.0, 2.0, 4.0};
static const double LAMS[] = {0.0};

/* X_{j,i} W_{i,j1}: the chain factor of every row formula */
static void xw(lm_num *r, const lm_prdata *P, int j, int i, int j1)
{
    lm_num w;
    lm_num_init(&w, &P->ctx);
    lm_mat_get(r, P->X, j, i);
    lm_mat_get(&w, P->W, i, j1);
    lm_num_mul(r, r, &w);
    lm_num_clear(&w);
}

static int value(lm_mat *out, const lm_prdata *P, const lm_mat *M, void *arg)
{
    (void)arg;
    lm_prfwd *F = lm_pr_fwd_new(P);
    int rc = lm_pr_forward(F, P, M);
    lm_mat_copy(out, F->c);
    lm_pr_fwd_free(F);
    return rc;
}

/* d f(M)_{j0,k} / dM_{i0,j1} = X_{j0,i0} W_{i0,j1} f_{j0,k} (X_{k,j1} - <f_{j0}, X_{*,j1}>) */
static int deriv(lm_mat *D, lm_mat *A, const lm_prdata *P, const lm_mat *M, int i0, int j1, void *arg)
{
    (void)arg;
    lm_prfwd *F = lm_pr_fwd_new(P);
    lm_pr_forward(F, P, M);
    lm_num c, m, ma, x, t, ta;
    lm_num_inits(&P->ctx, &c, &m, &ma, &x, &t, &ta, (lm_num *)NULL);
    for (int j0 = 0; j0 < P->n; j0++) {
        xw(&c, P, j0, i0, j1);
        lm_prfd_row_col(&m, F->f, j0, P->X, j1);      /* <f_j0, X_{*,j1}> */
        lm_prfd_row_col_abs(&ma, F->f, j0, P->X, j1); /* <f_j0, |X_{*,j1}|> */
        for (int k = 0; k < P->n; k++) {
            lm_mat_get(&x, P->X, k, j1);
            lm_num_sub(&t, &x, &m);
            lm_mat_get(&ta, F->f, j0, k);
            lm_num_mul(&t, &t, &ta);
            lm_num_mul(&t, &t, &c);
            lm_mat_set(D, j0, k, &t);
            if (A) {
                lm_num_abs(&x, &x);
                lm_num_add(&x, &x, &ma);
                lm_num_mul(&x, &x, &ta);
                lm_num_abs(&t, &c);
                lm_num_mul(&x, &x, &t);
                lm_mat_set(A, j0, k, &x);
            }
        }
    }
    lm_num_clears(&c, &m, &ma, &x, &t, &ta, (lm_num *)NULL);
    lm_pr_fwd_free(F);
    return 0;
}

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    lm_prfd_grid gr = {NS, (int)(sizeof NS / sizeof NS[0]), DS, (int)(sizeof DS / sizeof DS[0]), RS,
                       (int)(sizeof RS / sizeof RS[0]), LAMS, (int)(sizeof LAMS / sizeof LAMS[0])};
    static int opt;
    opt = 0;
    lm_prfd_spec S = {.what = "dc_j0k/dM_i0j1", .value = value, .deriv = deriv, .arg = &opt, .T3 = 0.0,
                      .T3n = 6.0, .tol_scale = prm.tol_scale, .scale = prm.scale};
    int n = NS[(ev->index / 3) % gr.nn], d = DS[(ev->index / 2) % gr.nd];
    S.K = 4.0 * (n + d + 4) * (n + d + 4);
    return lm_prfd_eval_model(ev, &S, LM_PRFD_NN, &gr, 6);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Full support, n in {1,2,5,16}, d in {1,3,8}, R in {1,2,4}: dc/dM = df/dM "
                    "(B.11's form; f0 drops out) vs central differences in double, MPFR-128 and "
                    "MPFR-256.", NULL},
    {LM_READ_PAPER, "Causal support, n in {1,2,5,16}, d in {1,3,8}, R in {1,2,4}: dc/dM = df/dM "
                    "(B.11's form; f0 drops out) vs central differences; c = f - f0 with causal "
                    "softmaxes.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_lemmaB_12) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Appendix B, Lemma B.12",
    .origin = "reconstructed",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .eval = eval,
};
