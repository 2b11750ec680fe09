/* lemmas/pruning/lemmaB-15.c
 *
 * \claim{pruning/lemmaB.15}{Gradient of $\mathcal L$ (entrywise)}
 * \source{attention-pruning, Appendix B, Lemma B.15}
 * \statement{$\frac{\mathrm d\mathcal L}{\mathrm dM_{i_0,j_1}}=\sum_{j_0}X_{j_0,i_0}W_{i_0,j_1}\big(\langle p_1(M)_{j_0},X_{*,j_1}\rangle-\langle p_2(M)_{j_0},X_{*,j_1}\rangle\big)+\lambda M_{i_0,j_1}$, with $p_1(M)_{j_0}:=f_{j_0}\circ c_{j_0}$ and $p_2(M)_{j_0}:=\langle f_{j_0},c_{j_0}\rangle f_{j_0}$.}
 * \check{The rows $p_1(M)_{j_0}$, $p_2(M)_{j_0}$ and the sum are written literally and compared with central differences of $\mathcal L=\mathcal L_{\rm rec}+\mathcal L_{\rm reg}$.  Every instance is rebuilt in IEEE double ($h=10^{-6}\max(1,|M_{i_0j_1}|)$), MPFR-128
 *   ($h=2^{-40}$) and MPFR-256 ($h=2^{-80}$), and on up to 8 random coordinates $(i_0,j_1)$ the
 *   observation is $\mathrm{res}_p=\big(\sum\|\mathrm{closed}-\mathrm{FD}\|_F^2\big)^{1/2}\le\tau_p
 *   =\texttt{tol\_scale}\cdot K\big(h_{\max}^2\,T\,\rho^3+u_p(D+\sqrt k\,\|F\|_F/h_p)\big)$, $K=4(n+d+4)^2$,
 *   where $\rho=2|W_{i_0j_1}|\max_j|X_{j,i_0}|\max_k|X_{k,j_1}|$ bounds the rate at which a logit row
 *   moves with $M_{i_0j_1}$, $T\rho^3$ bounds the third derivative of the map ($T=18n$: $|\mathcal L_{\rm rec}^{(3)}|\le3\|c'\|\|c''\|+\|c\|\|c'''\|$), $u_p$ is the
 *   unit roundoff, $D$ the norm of the formula evaluated with absolute values (its natural scale)
 *   and $k$ the number of coordinates: the first term is the truncation error of the central
 *   difference, the second the rounding of the formula and of the quotient.  A precision whose
 *   $\tau_p$ exceeds $0.05D$ (saturated or huge logits in double) cannot tell a wrong formula and
 *   is promoted to MPFR: it is measured, not observed; MPFR-256 is always observed.  The residual
 *   must shrink: $\mathrm{res}_{256}\le\max(2^{-60}\mathrm{res}_{53},\tau_{256})$.  The report
 *   shows $\log_{10}$ of the relative residual $\mathrm{res}_p/D$ per precision.  Instances cycle
 *   through families (i)--(iv) of $X$ and $W$, $n\in\{5, 16, 2, 1\}$, $d\in\{3, 8, 1\}$, $R\in\{1.0, 2.0, 4.0\}$, $\lambda\in\{10^{-3},0,1\}$
 *   and the masks $U[0,1]$, corners, $\mathbf 1$, $0$ and off-domain $U[-1,2]$; configurations full
 *   and causal support.  Wrong variants that must come out violated: \texttt{scale}$\ne1$
 *   multiplies the closed form, and \texttt{formula}$=$drop-p2 drops the $p_2$ term.}
 */
#include "lm_prfd.h"
#include <math.h>

static const char *const configs[] = {"full", "causal", NULL};
#define PARAMS(NUM, SWITCH)                                                                                                \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies the tolerance tau_p (truncation + rounding)")                      \
    NUM(scale, 1.0, "constant [-1e6, 1e6]", "coefficient on the closed form (1 as stated; other values: a wrong formula)") \
    SWITCH(formula, 0, "stated|drop-p2", "the stated sum, or with the p2 term dropped (wrong)")
LM_PARAMS(PARAMS)

static const int NS[] = {5, 16, 2, 1};
static const int DS[] = {3, 8, 1};
static const double RS[] = {1.0, 2.0, 4.0};
static const double LAMS[] = {1e-3, 0.0, 1.0};

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
    lm_mat_set(out, 0, 0, &F->L);
    lm_pr_fwd_free(F);
    return rc;
}

/* d L / dM_{i0,j1} = sum_j0 X_{j0,i0} W_{i0,j1} (<p1_{j0}, X_{*,j1}> - <p2_{j0}, X_{*,j1}>) + lambda M_{i0,j1},
 * p1_{j0} = f_{j0} o c_{j0}, p2_{j0} = <f_{j0}, c_{j0}> f_{j0} */
static int deriv(lm_mat *D, lm_mat *A, const lm_prdata *P, const lm_mat *M, int i0, int j1, void *arg)
{
    int drop = *(const int *)arg; /* 1: p2 dropped (wrong) */
    int n = P->n;
    lm_prfwd *F = lm_pr_fwd_new(P);
    lm_pr_forward(F, P, M);
    lm_mat *p1 = lm_mat_new(1, n, &P->ctx), *p2 = lm_mat_new(1, n, &P->ctx);
    lm_mat *q1 = lm_mat_new(1, n, &P->ctx), *q2 = lm_mat_new(1, n, &P->ctx);
    lm_num c, fc, fca, f, cc, t, a1, a2, s, sa;
    lm_num_inits(&P->ctx, &c, &fc, &fca, &f, &cc, &t, &a1, &a2, &s, &sa, (lm_num *)NULL);
    for (int j0 = 0; j0 < n; j0++) {
        lm_num_set_d(&fc, 0.0);
        lm_num_set_d(&fca, 0.0);
        for (int k = 0; k < n; k++) { /* p1_{j0} and <f_{j0}, c_{j0}> */
            lm_mat_get(&f, F->f, j0, k);
            lm_mat_get(&cc, F->c, j0, k);
            lm_num_mul(&t, &f, &cc);
            lm_mat_set(p1, 0, k, &t);
            lm_num_add(&fc, &fc, &t);
            lm_num_abs(&t, &t);
            lm_mat_set(q1, 0, k, &t);
            lm_num_add(&fca, &fca, &t);
        }
        for (int k = 0; k < n; k++) { /* p2_{j0} = <f_{j0}, c_{j0}> f_{j0} */
            lm_mat_get(&f, F->f, j0, k);
            lm_num_mul(&t, &fc, &f);
            lm_mat_set(p2, 0, k, &t);
            lm_num_mul(&t, &fca, &f);
            lm_mat_set(q2, 0, k, &t);
        }
        xw(&c, P, j0, i0, j1);
        lm_prfd_row_col(&a1, p1, 0, P->X, j1);
        lm_prfd_row_col(&a2, p2, 0, P->X, j1);
        if (drop) lm_num_set_d(&a2, 0.0);
        lm_num_sub(&t, &a1, &a2);
        lm_num_fma(&s, &c, &t, &s);
        lm_prfd_row_col_abs(&a1, q1, 0, P->X, j1);
        lm_prfd_row_col_abs(&a2, q2, 0, P->X, j1);
        lm_num_add(&t, &a1, &a2);
        lm_num_abs(&c, &c);
        lm_num_fma(&sa, &c, &t, &sa);
    }
    lm_mat_get(&t, M, i0, j1);
    lm_num_mul_d(&t, &t, P->lambda);
    lm_num_add(&s, &s, &t);
    lm_num_abs(&t, &t);
    lm_num_add(&sa, &sa, &t);
    lm_mat_set(D, 0, 0, &s);
    if (A) lm_mat_set(A, 0, 0, &sa);
    lm_num_clears(&c, &fc, &fca, &f, &cc, &t, &a1, &a2, &s, &sa, (lm_num *)NULL);
    lm_mat_free(p1); lm_mat_free(p2); lm_mat_free(q1); lm_mat_free(q2);
    lm_pr_fwd_free(F);
    return 0;
}

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    lm_prfd_grid gr = {NS, (int)(sizeof NS / sizeof NS[0]), DS, (int)(sizeof DS / sizeof DS[0]), RS,
                       (int)(sizeof RS / sizeof RS[0]), LAMS, (int)(sizeof LAMS / sizeof LAMS[0])};
    static int opt;
    opt = lm_int(prm.formula);
    lm_prfd_spec S = {.what = "dL/dM_i0j1", .value = value, .deriv = deriv, .arg = &opt, .T3 = 0.0,
                      .T3n = 18.0, .tol_scale = prm.tol_scale, .scale = prm.scale};
    int n = NS[(ev->index / 3) % gr.nn], d = DS[(ev->index / 2) % gr.nd];
    S.K = 4.0 * (n + d + 4) * (n + d + 4);
    return lm_prfd_eval_model(ev, &S, LM_PRFD_SCALAR, &gr, 8);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Full support, n in {1,2,5,16}, d in {1,3,8}, R in {1,2,4}: the gradient via "
                    "p1, p2 plus lambda M, lambda in {1e-3, 0, 1}, vs central differences in "
                    "double, MPFR-128 and MPFR-256.", NULL},
    {LM_READ_PAPER, "Causal support, n in {1,2,5,16}, d in {1,3,8}, R in {1,2,4}: the gradient via "
                    "p1, p2 plus lambda M, lambda in {1e-3, 0, 1}, vs central differences; p1, p2 "
                    "from causal f and c.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_lemmaB_15) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Appendix B, Lemma B.15",
    .origin = "reconstructed",
    .confidence = "medium-high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .eval = eval,
};
