/* lemmas/pruning/definition1-1.c
 *
 * \claim{pruning/definition1.1}{Attention matrix $D^{-1}\exp(XWX^\top)$}
 * \source{attention-pruning, Definition 1.1 (Section 1)}
 * \statement{For $X\in\mathbb R^{n\times d}$, $W_Q,W_K\in\mathbb R^{d\times d}$ and
 *   $W:=W_QW_K^\top$: $\mathsf{Softmax}(XWX^\top):=D^{-1}\exp(XWX^\top)$,
 *   $D:=\mathrm{diag}(\exp(XWX^\top)\mathbf 1_n)$, with $\exp$ entrywise.}
 * \check{One configuration per $R\in\{0.5,1,2,8\}$.  An instance draws $n,d\in\{1,2,3,4\text{ or }5,8,16,32\}$
 *   ($n=1$ and $d=1$ recur), $X$ and $W$ from the catalogue's families (i)--(iv) with
 *   $\max|X_{ij}|,\max|W_{ab}|$ equal to (or bounded by) $R$, and a mask $M$; the definition
 *   is applied to the weight $M\circ W$ (any $d\times d$ matrix is a valid $W$).  The instance is
 *   drawn as doubles and rebuilt exactly in IEEE double, MPFR-128 and MPFR-256, and in each
 *   precision three relative residuals are formed: (a) the literal definition --- logits
 *   $X((M\circ W)X^\top)$ by loops, $\exp$ without any shift, row sums $D$, then $D^{-1}\exp$ ---
 *   against the core's max-shifted, support-restricted softmax of the logits $(X(M\circ W))X^\top$,
 *   entry by entry (a different association of the logits and a different exponentiation);
 *   the naive form overflows binary64 once a logit exceeds about 709 (and underflows below
 *   $-708$), so in double that residual is skipped when it happens and is decided in MPFR, whose
 *   exponent range holds it; (b) the row sums $\max_i|\sum_jf_{ij}-1|$; (c) shift invariance,
 *   $\mathsf{Softmax}(H+a\mathbf 1^\top)$ against $\mathsf{Softmax}(H)$ for $a_i\sim U[-30,30]$.
 *   With $u_p=2^{-p}$ and $\kappa=n+4+2d\,h$, $h=\max_{ij}(|X||M\circ W||X|^\top)_{ij}$ (the
 *   rounding of a logit is at most $d\,u\,h$ and $\exp$ turns it into a relative error),
 *   the tolerances are $4\kappa u_p$ for (a), $2(n+4)u_p$ for (b) and $4(\kappa+60)u_p$ for (c),
 *   times \texttt{tol\_scale}; every residual must also shrink from the lowest to the highest
 *   precision by $2^{-\Delta p/2}$ (or fall below the highest precision's tolerance).
 *   \texttt{formula}$=$column normalises by column sums, $\exp(H)D_{\rm col}^{-1}$, which must be caught.}
 */
#include "lm_prid.h"
#include <math.h>

static const char *const configs[] = {"R=0.5", "R=1", "R=2", "R=8", NULL};
static const double RS[] = {0.5, 1.0, 2.0, 8.0};

#define PARAMS(NUM, SWITCH)                                                                         \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies every rounding tolerance K u_p")            \
    SWITCH(formula, 0, "row|column", "normalisation of the literal form (column: a wrong formula)")
LM_PARAMS(PARAMS)

static int check(lm_prid_inst *I)
{
    const lm_prdata *P = I->P;
    int n = I->n;
    lm_mat *H = lm_mat_new(n, n, I->c), *u = lm_mat_new(n, n, I->c), *f = lm_mat_new(n, n, I->c);
    lm_num *alpha = lm_nums_new(n, I->c);
    lm_num v, s;
    lm_num_inits(I->c, &v, &s, (lm_num *)NULL);
    /* (a) literal D^{-1} exp(H) against the max-shifted softmax */
    lm_prid_logits_alt(H, P->X, P->W, I->M);
    int bad = lm_prid_naive_softmax(f, u, alpha, H, NULL);
    if (lm_par_i(I->ev, "formula") == 1) { /* exp(H) D_col^{-1} */
        for (int j = 0; j < n; j++) {
            lm_num_set_d(&s, 0.0);
            for (int i = 0; i < n; i++) {
                lm_mat_get(&v, u, i, j);
                lm_num_add(&s, &s, &v);
            }
            for (int i = 0; i < n; i++) {
                lm_mat_get(&v, u, i, j);
                lm_num_div(&v, &v, &s);
                lm_mat_set(f, i, j, &v);
            }
        }
    }
    if (bad) lm_prid_skip(I, "naive D^{-1} exp(H) vs max-shifted softmax");
    else lm_prid_resid_d(I, "naive D^{-1} exp(H) vs max-shifted softmax", lm_prid_relmax(f, I->F->f, NULL),
                         4.0 * I->ksm);
    /* (b) row sums of the core's softmax */
    double rs = 0.0;
    for (int i = 0; i < n; i++) {
        lm_num_set_d(&s, -1.0);
        for (int j = 0; j < n; j++) {
            lm_mat_get(&v, I->F->f, i, j);
            lm_num_add(&s, &s, &v);
        }
        rs = fmax(rs, fabs(lm_num_get_d(&s)));
    }
    lm_prid_resid_d(I, "row sums max_i |sum_j f_ij - 1|", rs, 2.0 * (n + 4));
    /* (c) shift invariance */
    for (int i = 0; i < n; i++) {
        double a = 60.0 * lm_rng_uniform(I->g) - 30.0;
        for (int j = 0; j < n; j++) {
            lm_mat_get(&v, I->F->H, i, j);
            lm_num_add_d(&v, &v, a);
            lm_mat_set(H, i, j, &v);
        }
    }
    lm_pr_softmax(f, H, P->C);
    lm_prid_resid_d(I, "shift invariance Softmax(H + a 1^T) = Softmax(H)", lm_prid_relmax(f, I->F->f, NULL),
                    4.0 * (I->ksm + 60.0));
    lm_num_clears(&v, &s, (lm_num *)NULL);
    lm_nums_free(alpha, n);
    lm_mat_free(H); lm_mat_free(u); lm_mat_free(f);
    return 0;
}

static int eval(lm_eval *ev)
{
    lm_prid_spec sp = {.support = LM_PRID_FULL, .R = &RS[ev->config], .nR = 1, .nmax = 32, .dmax = 32};
    return lm_prid_run(ev, &sp, check);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "R = 0.5, small entries: literal D^-1 exp(X W X^T) vs the core's shifted "
                    "softmax, row sums and shift invariance in double and MPFR-128/256.", NULL},
    {LM_READ_PAPER, "R = 1, unit-scale entries: literal D^-1 exp(X W X^T) vs the core's shifted "
                    "softmax, row sums and shift invariance, n, d up to 32.", NULL},
    {LM_READ_PAPER, "R = 2, moderate logits: literal D^-1 exp(X W X^T) vs the core's shifted "
                    "softmax, row sums and shift invariance, n, d up to 32.", NULL},
    {LM_READ_PAPER, "R = 8, large logits that overflow the unshifted exp in double: the literal "
                    "form is then decided in MPFR; row sums and shift invariance as well.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_definition1_1) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Definition 1.1 (Section 1)",
    .origin = "verbatim",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .eval = eval,
};
