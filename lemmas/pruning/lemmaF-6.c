/* lemmas/pruning/lemmaF-6.c
 *
 * \claim{pruning/lemmaF.6}{Orthogonal shift}
 * \source{attention-pruning, Lemma F.6 (Appendix F)}
 * \statement{If $a\in\mathbb R^n$ with $\langle a,\mathbf 1_n\rangle=0$ and $c\in\mathbb R$, then
 *   $\|a-c\mathbf 1_n\|_2^2=\|a\|_2^2+nc^2\ge\|a\|_2^2$ (Pythagoras).}
 * \check{Configurations \texttt{causal} and \texttt{full} (the support of the attention
 *   instance) check the identity; \texttt{inequality} (causal support) checks the identity and
 *   the inequality, whose equality case $c=0$ is exact, so its instances are near misses that the
 *   runner replays in MPFR-256 (the identity configurations keep the three precisions' residuals
 *   in the report).  One evaluation draws an attention-pruning instance of the catalogue's grids
 *   ($n\le32$, $d\le8$, the four families, the five mask kinds) as doubles and rebuilds it
 *   exactly in IEEE double, MPFR-128 and MPFR-256 (never below the runner's precision).  In
 *   each precision the vectors $a$ are (i) the rows $c(M)_j$ of the one-unit loss, the
 *   lemma's application in the PL proof (with $c=\langle c(M)_j,f(M)_j\rangle$, the shift of
 *   Lemma F.7), and (ii) random Gaussian vectors of scale $10^{[-8,8]}$ with the shifts
 *   $c\in\{0,\ \pm10^{[-8,8]},\ \text{the scale of }a\}$; $c=0$ is the equality case of the
 *   inequality.  Every $a$ is re-centred in the working precision ($a\leftarrow a-\bar a\mathbf 1$), so
 *   $\langle a,\mathbf 1\rangle$ is zero up to $O(n\,u\,\|a\|_1)$ (the rows of $c(M)$ sum to 0 only
 *   up to the rounding of $f$ and $f_0$, which can dominate a tiny $\|c(M)_j\|$).  Identity: the
 *   relative residual $\big|\|a-c\mathbf 1\|^2-\|a\|^2-nc^2\big|/(\|a\|^2+nc^2)\le
 *   \tau_p=\texttt{tol\_scale}\cdot8(n+2)^2u_p$ in each precision, and it must shrink from
 *   double to MPFR-256 (to at most $2^{-101}$ of the double residual, or below $\tau_{256}$); the
 *   report shows $\log_{10}$ of the worst residual per precision.  Inequality (configuration \texttt{inequality}, in the runner's
 *   precision): $\texttt{coef}\cdot\|a\|^2\le\|a-c\mathbf 1\|^2$ with relative tolerance
 *   $\tau_p$; it is attained at $c=0$, so \texttt{coef}$=1.001$ is violated.
 *   \texttt{formula}$=$wrong replaces $nc^2$ by $c^2$ (the shift counted once, not per
 *   coordinate) and must be caught by the residual.}
 */
#include "lm_prid.h"
#include <math.h>
#include <stdio.h>

static const char *const configs[] = {"causal", "full", "inequality", NULL};
static const int SUPPORT[] = {LM_PRID_CAUSAL, LM_PRID_FULL, LM_PRID_CAUSAL};
static const double RS[] = {1.000001, 1.5, 2.0, 4.0};

#define PARAMS(NUM, SWITCH)                                                                                               \
    NUM(coef, 1.0, "constant [0, 1e6]", "the inequality coef ||a||^2 <= ||a - c 1||^2 (the paper: 1, attained at c = 0)") \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies the rounding tolerance 8 (n+2)^2 u_p")                            \
    SWITCH(formula, 0, "n-c2|c2", "the identity's right-hand side: ||a||^2 + n c^2, or the wrong ||a||^2 + c^2")
LM_PARAMS(PARAMS)

/* the largest ||a||^2 / ||a - c 1||^2 of one evaluation (the runner evaluates one claim
 * instance at a time) */
static _Thread_local double f6_worst;

/* a <- a - mean(a) 1 in the context of a */
static void recentre(lm_num *a, int n, const lm_ctx *ctx)
{
    lm_num s;
    lm_num_init(&s, ctx);
    lm_num_set_d(&s, 0.0);
    for (int k = 0; k < n; k++) lm_num_add(&s, &s, &a[k]);
    lm_num_div_d(&s, &s, n);
    for (int k = 0; k < n; k++) lm_num_sub(&a[k], &a[k], &s);
    lm_num_clear(&s);
}

/* the identity residual and the inequality for one (a, c) */
static void one(lm_prid_inst *I, lm_num *a, const lm_num *c, const char *what, int tier0)
{
    int n = I->n;
    lm_num na, ns, t, rhs, diff, x, y;
    lm_num_inits(I->c, &na, &ns, &t, &rhs, &diff, (lm_num *)NULL);
    lm_num_set_d(&na, 0.0);
    lm_num_set_d(&ns, 0.0);
    for (int k = 0; k < n; k++) {
        lm_num_fma(&na, &a[k], &a[k], &na);
        lm_num_sub(&t, &a[k], c);
        lm_num_fma(&ns, &t, &t, &ns);
    }
    lm_num_sqr(&t, c);
    if (lm_par_i(I->ev, "formula") == 0) lm_num_mul_d(&t, &t, n);
    lm_num_add(&rhs, &na, &t);
    lm_num_sub(&diff, &ns, &rhs);
    double K = 8.0 * (n + 2.0) * (n + 2.0);
    lm_prid_resid(I, what, &diff, &rhs, K);
    if (tier0) { /* the inequality coef ||a||^2 <= ||a - c 1||^2 in the runner's context */
        lm_eval *ev = I->ev;
        const lm_params P = lm_params_of(ev);
        lm_num_inits(ev->ctx, &x, &y, (lm_num *)NULL);
        lm_num_set(&x, &na);
        lm_num_mul_d(&x, &x, P.coef);
        lm_num_set(&y, &ns);
        lm_obs_le(ev, -1, &x, &y, P.tol_scale * K * lm_ctx_eps(ev->ctx),
                  "coef ||a||^2 <= ||a - c 1||^2 (%s, n=%d)", what, n);
        if (lm_num_sgn(&y) > 0) {
            double r = lm_num_sgn(&na) ? exp(lm_num_log_abs_d(&na) - lm_num_log_abs_d(&ns)) : 0.0;
            if (r > f6_worst) f6_worst = r;
        }
        lm_num_clears(&x, &y, (lm_num *)NULL);
    }
    lm_num_clears(&na, &ns, &t, &rhs, &diff, (lm_num *)NULL);
}

static int cb(lm_prid_inst *I)
{
    int n = I->n;
    lm_eval *ev = I->ev;
    /* the first tier runs in the runner's precision (or the lowest at or above it) */
    int evbits = ev->ctx->backend == LM_DOUBLE ? 53 : (int)ev->ctx->prec;
    int tier0 = ev->config == 2 && (I->bits == evbits || (evbits > 53 && evbits <= 128 && I->bits == 128) ||
                (evbits > 128 && evbits <= 256 && I->bits == 256) || (evbits > 256));
    lm_num *a = lm_nums_new(n, I->c);
    lm_num c, x, y;
    lm_num_inits(I->c, &c, &x, &y, (lm_num *)NULL);
    /* (i) the application: a = c(M)_j, c = <c(M)_j, f(M)_j> */
    for (int j = 0; j < n; j++) {
        lm_num_set_d(&c, 0.0);
        for (int k = 0; k < n; k++) {
            lm_mat_get(&a[k], I->F->c, j, k);
            lm_mat_get(&x, I->F->f, j, k);
            lm_num_fma(&c, &a[k], &x, &c);
        }
        recentre(a, n, I->c);
        one(I, a, &c, "a = c(M)_j, c = <c_j, f_j>", tier0);
    }
    /* (ii) random a, random shifts including c = 0 */
    for (int rep = 0; rep < 4; rep++) {
        double s = pow(10.0, 16.0 * lm_rng_uniform(I->g) - 8.0);
        double cs = pow(10.0, 16.0 * lm_rng_uniform(I->g) - 8.0) * (lm_rng_uniform(I->g) < 0.5 ? -1.0 : 1.0);
        for (int k = 0; k < n; k++) lm_num_set_d(&a[k], s * lm_rng_normal(I->g));
        recentre(a, n, I->c);
        lm_num_set_d(&c, rep == 0 ? 0.0 : (rep == 1 ? s : cs));
        one(I, a, &c, rep == 0 ? "random a, c = 0" : "random a, random c", tier0);
    }
    lm_num_clears(&c, &x, &y, (lm_num *)NULL);
    lm_nums_free(a, n);
    return 0;
}

static int eval(lm_eval *ev)
{
    lm_prid_spec spec = {SUPPORT[ev->config], RS, 4, 32, 8};
    f6_worst = 0.0;
    int rc = lm_prid_run(ev, &spec, cb);
    if (!rc && ev->config == 2) lm_measure(ev, "max ||a||^2 / ||a - c 1||^2 (1 = tight, at c = 0)", f6_worst);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Causal support, n <= 32, d <= 8: the identity ||a - c1||^2 = ||a||^2 + n c^2 "
                    "for rows of c(M) with the F.7 shift and Gaussian a, residuals in 3 "
                    "precisions.", NULL},
    {LM_READ_PAPER, "Full support, n <= 32, d <= 8: the identity ||a - c1||^2 = ||a||^2 + n c^2 "
                    "for the non-causal rows of c(M) and Gaussian a of scale 1e-8..1e8.", NULL},
    {LM_READ_PAPER, "Causal support: the inequality ||a - c1||^2 >= ||a||^2 as well, with its "
                    "exact equality case c = 0 (near misses replayed in MPFR-256).", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_lemmaF_6) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Lemma F.6 (Appendix F)",
    .origin = "reconstructed",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.5,
    .eval = eval,
};
