/* lemmas/pruning/lemmaD-4.c
 *
 * \claim{pruning/lemmaD.4}{Bound on the gradient of $f$}
 * \source{attention-pruning, Lemma D.4 (Appendix D)}
 * \statement{(RECON) Under Assumption D.1, for all $M\in\mathbb R^{d\times d}$ and all
 *   $a,b\in[d]$: $\big\|\frac{\partial f(M)}{\partial M_{a,b}}\big\|_F\le2\sqrt n\,R^3$.  Per row it is
 *   $\le2R^3$, via $|X_{ja}W_{ab}|\le R^2$, $\|f_j\circ X_{*,b}\|_2\le R$ and
 *   $|\langle f_j,X_{*,b}\rangle|\,\|f_j\|_2\le R$.  The printed constant may be $2nR^3$.}
 * \check{The bound is $\texttt{coef}\cdot n^{\texttt{n\_exp}}R^{\texttt{R\_exp}}$ (RECON: $2$,
 *   $1/2$, $3$; the printed alternative is \texttt{n\_exp}$=1$).  Instances: the catalogue's grids
 *   $n\in\{1,2,3,5,8\}$, $d\in\{1,2,3,4,8\}$, $R\in\{1+10^{-6},1.5,2,4\}$, the four families for $X$
 *   and $W$, the five mask kinds (off-domain $M\in[-1,2]^{d\times d}$ included), full and causal
 *   support; $R$ is the instance's bound of Assumption D.1.  One instance in two is first
 *   hill-climbed in double to maximise $\max_{ab}\|\partial f/\partial M_{ab}\|_F/(\sqrt nR^3)$ (sign
 *   flips of $X$, $W$ at the $\pm R$ corners, moves of single entries of $M$ in $[-2,3]$ or to
 *   $\{0,1\}$); one in eight is the analytic witness ($n=2$, $M=0$ so both rows of $f$ are
 *   $(\frac12,\frac12)$, $X,W$ at the corners with the column $X_{*,1}=(R,-R)$), where each row of
 *   $D_{a1}$ reaches $R^3/\sqrt2$, i.e.\ the ratio to the RECON bound is
 *   $1/(2\sqrt2)\approx0.354$; we believe $R^3/\sqrt2$ is the sharp supremum per row (the softmax
 *   Jacobian applied to a vector of entries in $[-R,R]$ has norm at most $R/\sqrt2$, attained by
 *   two tokens at weight $\frac12$), while for $n>2$ the rows cannot all reach it at once.  In the working precision every partial derivative
 *   $D_{ab}=\partial f/\partial M_{ab}$ is the closed form of Lemma B.11 (row form,
 *   $D_{jk}=X_{ja}W_{ab}f_{jk}(X_{kb}-\langle f_j,X_{*,b}\rangle)$), cross-checked against central
 *   differences of $f$ (step $10^{-6}$ in double, $2^{-80}$ in MPFR; a mismatch beyond
 *   $10^{-6}$, resp.\ $10^{-30}$, relative to $R^3$ is an error, not a verdict).  Observed:
 *   $\max_{ab}\|D_{ab}\|_F\le\texttt{coef}\,n^{\texttt{n\_exp}}R^{\texttt{R\_exp}}$ with relative
 *   tolerance $\texttt{tol\_scale}\cdot16(n+d)u$.  Measured: the worst ratio to the stated
 *   bound (catalogue: 0.19--0.29), the ratio with the instance's $R_{\rm eff}$, and the per-row
 *   ratio $\max_j\|(D_{ab})_j\|_2/R^3$.  \texttt{coef}$=0.6$ is below the witness and is
 *   violated.
 *   Readings: both constants are read as the paper: $2\sqrt n R^3$ (RECON) and $2nR^3$ (the
 *   source's possible print, the second configuration).}
 */
#include "lm_prbd.h"
#include <math.h>
#include <stdio.h>

static const char *const configs[] = {"2 sqrt(n) R^3", "2 n R^3", NULL};

#define PARAMS(NUM, SWITCH)                                                                             \
    NUM(coef, 2.0, "constant [0, 1e6]", "coefficient of the bound coef n^n_exp R^R_exp (RECON: 2)")     \
    NUM(n_exp, 0.5, "exponent [-16, 16]", "exponent of n (RECON: 1/2; the printed constant may use 1)") \
    NUM(R_exp, 3.0, "exponent [-16, 16]", "exponent of R (RECON: 3)")                                   \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies the rounding tolerance 16 (n+d) u")
LM_PARAMS(PARAMS)

/* max over (a, b) of ||D_ab||_F (and of its rows, into rowmax) at M, in P's context;
 * F holds the forward pass at M */
static void maxpart(lm_num *best, lm_num *rowmax, const lm_prfwd *F, const lm_prdata *P)
{
    lm_ctx c = P->ctx;
    int n = P->n, d = P->d;
    lm_mat *D = lm_mat_new(n, n, &c);
    lm_num x, y, s;
    lm_num_inits(&c, &x, &y, &s, (lm_num *)NULL);
    lm_num_set_d(best, 0.0);
    if (rowmax) lm_num_set_d(rowmax, 0.0);
    for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++) {
            lm_prbd_df(D, F->f, P, a, b);
            lm_mat_frob(&x, D);
            lm_num_max(best, best, &x);
            if (!rowmax) continue;
            for (int j = 0; j < n; j++) {
                lm_num_set_d(&s, 0.0);
                for (int k = 0; k < n; k++) {
                    lm_mat_get(&y, D, j, k);
                    lm_num_fma(&s, &y, &y, &s);
                }
                lm_num_sqrt(&s, &s);
                lm_num_max(rowmax, rowmax, &s);
            }
        }
    lm_num_clears(&x, &y, &s, (lm_num *)NULL);
    lm_mat_free(D);
}

static double obj(const lm_prdata *P, const lm_mat *M, void *u)
{
    lm_prfwd *F = u;
    if (lm_pr_forward(F, P, M)) return -HUGE_VAL;
    lm_ctx cd = lm_ctx_double();
    lm_num b;
    lm_num_init(&b, &cd);
    maxpart(&b, NULL, F, P);
    double r = lm_num_get_d(&b);
    lm_num_clear(&b);
    return isfinite(r) ? r : -HUGE_VAL;
}

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    lm_prbd_plan pl;
    lm_prbd_plan_make(&pl, ev->index, g);
    int witness = ev->index % 8 == 5, climbed = !witness && ev->index % 2 == 0;
    if (witness) {
        pl.n = 2;
        pl.mk = LM_PR_M_ZERO;
        pl.fx = pl.fw = LM_PR_RADEMACHER;
        pl.causal = 0;
    }
    lm_mat *M0;
    lm_prdata *P0 = lm_prbd_draw(&pl, &M0, g);
    if (witness) { /* M = 0, column 0 of X balanced +-R */
        lm_mat_zero(M0);
        for (int j = 0; j < pl.n; j++) lm_mat_set_d(P0->X, j, 0, j % 2 ? -pl.R : pl.R);
        lm_pr_prepare(P0);
    }
    if (climbed) {
        lm_prfwd *Fd = lm_pr_fwd_new(P0);
        int iters = ev->searching ? 20 : (ev->quick ? 50 : 150);
        lm_prbd_climb(P0, M0, pl.R, -2.0, 3.0, iters, obj, Fd, g);
        lm_pr_fwd_free(Fd);
    }
    const lm_ctx *c = ev->ctx;
    int n = pl.n, d = pl.d, rc = 0;
    lm_prdata *P = lm_pr_convert(P0, c);
    lm_mat *M = lm_mat_new(d, d, c), *D = lm_mat_new(n, n, c), *Dfd = lm_mat_new(n, n, c);
    lm_mat *V = lm_mat_new(d, d, c);
    lm_mat_copy(M, M0);
    lm_prfwd *F = lm_pr_fwd_new(P), *F2 = lm_pr_fwd_new(P);
    lm_num lhs, rhs, rowm, x;
    lm_num_inits(c, &lhs, &rhs, &rowm, &x, (lm_num *)NULL);
    if (lm_pr_forward(F, P, M)) {
        rc = lm_fail(ev, "non-finite forward pass (n=%d, d=%d, R=%g)", n, d, pl.R);
        goto out;
    }
    /* the closed form against central differences of f, every (a, b) */
    {
        int dbl = c->backend == LM_DOUBLE;
        double h = dbl ? 1e-6 : ldexp(1.0, -80), thr = (dbl ? 1e-6 : 1e-30) * pow(pl.R, 3.0);
        double worst = 0.0;
        for (int a = 0; a < d; a++)
            for (int b = 0; b < d; b++) {
                lm_prbd_df(D, F->f, P, a, b);
                lm_mat_zero(V);
                lm_mat_set_d(V, a, b, 1.0);
                if (lm_pr_map_dir(Dfd, LM_PR_MAP_F, F2, P, M, V, h)) {
                    rc = lm_fail(ev, "non-finite f in the finite differences");
                    goto out;
                }
                lm_mat_sub(Dfd, Dfd, D);
                lm_mat_frob(&x, Dfd);
                worst = fmax(worst, lm_num_get_d(&x));
            }
        lm_measure(ev, "closed form vs FD, max ||D_ab - FD||_F / R^3", worst / pow(pl.R, 3.0));
        if (!(worst <= thr)) {
            rc = lm_fail(ev, "closed-form df/dM_ab (B.11) disagrees with central differences by %g", worst);
            goto out;
        }
    }
    maxpart(&lhs, &rowm, F, P);
    lm_num_set_d(&rhs, pl.R);
    lm_num_log(&rhs, &rhs);
    lm_num_mul_d(&rhs, &rhs, prm.R_exp);
    lm_num_set_d(&x, n);
    lm_num_log(&x, &x);
    lm_num_mul_d(&x, &x, prm.n_exp);
    lm_num_add(&rhs, &rhs, &x);
    lm_num_exp(&rhs, &rhs); /* n^n_exp R^R_exp */
    {
        char where[160];
        snprintf(where, sizeof where, "max_ab ||df/dM_ab||_F <= coef n^e R^3: n=%d d=%d R=%g X:%s W:%s M:%s %s%s", n,
                 d, pl.R, lm_pr_family_name(pl.fx), lm_pr_family_name(pl.fw), lm_pr_mkind_name(pl.mk),
                 pl.causal ? "causal" : "full", witness ? " (witness)" : climbed ? " (hill-climbed)" : "");
        double coef = prm.coef;
        lm_prbd_obs(ev, &lhs, coef, &rhs, lm_prbd_tol(ev, 16.0 * (n + d)), where);
        double l = lm_num_get_d(&lhs), r3 = pow(pl.R, 3.0), re = lm_pr_reff(P0);
        lm_measure(ev, "max ||df/dM_ab|| / (coef n^e R^3)", l / (coef * lm_num_get_d(&rhs)));
        lm_measure(ev, "max ||df/dM_ab|| / (2 sqrt(n) R_eff^3) (instance R)", l / (2.0 * sqrt((double)n) * re * re * re));
        lm_measure(ev, "max row ||(df/dM_ab)_j|| / R^3 (sharp: 1/sqrt 2)", lm_num_get_d(&rowm) / r3);
        lm_measure(ev, "n", n);
        lm_measure(ev, "d", d);
        lm_measure(ev, "R", pl.R);
    }
out:
    lm_num_clears(&lhs, &rhs, &rowm, &x, (lm_num *)NULL);
    lm_pr_fwd_free(F); lm_pr_fwd_free(F2);
    lm_mat_free(M); lm_mat_free(D); lm_mat_free(Dfd); lm_mat_free(V); lm_mat_free(M0);
    lm_pr_free(P); lm_pr_free(P0);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "RECON bound 2 sqrt(n) R^3 on max_ab ||df/dM_ab||_F, n, d <= 8, R up to 4, "
                    "full and causal: 1 in 2 hill-climbed, 1 in 8 the n = 2 witness (ratio "
                    "0.354).", NULL},
    {LM_READ_PAPER, "the constant as the source may print it: 2 n R^3 (n_exp = 1)", "n_exp=1"},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_lemmaD_4) = {
    .kind = LM_KIND_POINTWISE,
    .source = "Lemma D.4 (Appendix D)",
    .origin = "reconstructed (RECON constant: coef, n_exp, R_exp)",
    .confidence = "low (constant)",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 1.0,
    .eval = eval,
};
