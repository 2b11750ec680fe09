/* lemmas/pruning/definition5-1.c
 *
 * \claim{pruning/definition5.1}{$g$-proxy, $\xi$-optimal PL inequality (Frei \& Gu 2021, Def.\ 1.2)}
 * \source{attention-pruning, Definition 5.1}
 * \statement{$f:\mathbb R^p\to\mathbb R$ satisfies the $(g,\xi,\alpha,\mu)$-PL inequality, with
 *   $\alpha>0$, $\mu>0$, if for all $w$: $\|\nabla f(w)\|_2^\alpha\ge\frac12\mu(g(w)-\xi)$.}
 * \check{The predicate is \texttt{lm\_pr\_pl\_slack} (include/lm\_prbd.h, reused by the PL
 *   claims): slack $\|\nabla f\|^\alpha-\frac\mu2(g-\xi)$.  It is checked on the catalogue's two
 *   test functions with $\alpha=2$, $g=f$, $\xi=0$: $f(x)=x^2$ with \texttt{mu\_quad}$=8$, tight
 *   at every $x$ (equality, relative tolerance $\texttt{tol\_scale}\cdot16u$), and
 *   $f(x)=x^2+3\sin^2x$ with \texttt{mu\_sin}$=1/8$, whose tight value
 *   $\inf_x2f'(x)^2/f(x)\approx0.702$ (so $1/8$ has slack $\approx5.6$).  Each instance takes
 *   a random $x\in[-10,10]$, or (every second instance) the worst $x$ of a 4000-point scan of
 *   $[-10,10]$ in double, and evaluates $\frac\mu2 f(x)\le f'(x)^2$ in the working precision
 *   ($\sin$ through MPFR in MPFR contexts).  The double slack of \texttt{lm\_pr\_pl\_slack} is
 *   cross-checked against the working-precision one.  $\mu$ above the tight value
 *   ($8.01$, resp.\ $0.75$) must be violated.}
 */
#include "lm_prbd.h"
#include <math.h>

static const char *const configs[] = {"x^2", "x^2+3sin^2x", NULL};
#define PARAMS(NUM, SWITCH)                                                                  \
    NUM(mu_quad, 8.0, "constant [0, 1e6]", "mu for f(x) = x^2 (tight: 8)")                   \
    NUM(mu_sin, 0.125, "constant [0, 1e6]", "mu for f(x) = x^2 + 3 sin^2 x (tight ~ 0.702)") \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies the rounding tolerance 16u")
LM_PARAMS(PARAMS)

static void num_sin(lm_num *r, const lm_num *x, int cosine)
{
    if (r->ab && x->ab) {
        if (cosine) arb_cos(r->b, x->b, r->ap);
        else arb_sin(r->b, x->b, r->ap);
    } else if (x->mp) {
        if (cosine) mpfr_cos(r->m, x->m, MPFR_RNDN);
        else mpfr_sin(r->m, x->m, MPFR_RNDN);
    } else lm_num_set_d(r, cosine ? cos(lm_num_get_d(x)) : sin(lm_num_get_d(x)));
}

/* f and f' in the context */
static void fun(lm_num *f, lm_num *fp, const lm_num *x, int which, const lm_ctx *c)
{
    lm_num s, co;
    lm_num_inits(c, &s, &co, (lm_num *)NULL);
    lm_num_sqr(f, x);
    lm_num_mul_d(fp, x, 2.0);
    if (which) {
        num_sin(&s, x, 0);
        num_sin(&co, x, 1);
        lm_num_mul(&co, &co, &s); /* sin x cos x */
        lm_num_mul_d(&co, &co, 6.0);
        lm_num_add(fp, fp, &co); /* 2x + 3 sin 2x */
        lm_num_sqr(&s, &s);
        lm_num_mul_d(&s, &s, 3.0);
        lm_num_add(f, f, &s);
    }
    lm_num_clears(&s, &co, (lm_num *)NULL);
}

static int eval(lm_eval *ev)
{
    lm_rng *g = lm_eval_rng(ev);
    int which = ev->config;
    double mu = lm_par(ev, which ? "mu_sin" : "mu_quad");
    double x = 20.0 * lm_rng_uniform(g) - 10.0;
    if (ev->index % 2 == 1) { /* scan for the worst point */
        double best = HUGE_VAL;
        for (int k = 1; k <= 4000; k++) {
            double t = -10.0 + 20.0 * k / 4001.0;
            double fv = t * t + (which ? 3.0 * sin(t) * sin(t) : 0.0);
            double fpv = 2.0 * t + (which ? 3.0 * sin(2.0 * t) : 0.0);
            double r = fpv * fpv / fv;
            if (r < best) { best = r; x = t; }
        }
    }
    lm_num X, f, fp, l, r;
    lm_num_inits(ev->ctx, &X, &f, &fp, &l, &r, (lm_num *)NULL);
    lm_num_set_d(&X, x);
    fun(&f, &fp, &X, which, ev->ctx);
    lm_num_mul_d(&l, &f, 0.5 * mu);
    lm_num_sqr(&r, &fp);
    lm_obs_le(ev, -1, &l, &r, lm_prbd_tol(ev, 16.0), "mu/2 (f(x) - 0) <= |f'(x)|^2 at x = %.6g", x);
    double sd = lm_pr_pl_slack(fabs(lm_num_get_d(&fp)), 2.0, mu, lm_num_get_d(&f), 0.0);
    double sw = lm_num_get_d(&r) - lm_num_get_d(&l);
    if (fabs(sd - sw) > 1e-12 * (fabs(lm_num_get_d(&r)) + fabs(lm_num_get_d(&l))) + 1e-300)
        lm_obs_le_d(ev, -1, fabs(sd - sw), 0.0, 0.0, "lm_pr_pl_slack disagrees with the working precision");
    lm_measure(ev, "x", x);
    lm_measure(ev, "PL slack (lm_pr_pl_slack)", sd);
    lm_measure(ev, "2 f'^2 / f (tight mu at x)", 2.0 * lm_num_get_d(&r) / lm_num_get_d(&f));
    lm_num_clears(&X, &f, &fp, &l, &r, (lm_num *)NULL);
    return 0;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "f(x) = x^2 with alpha = 2, g = f, xi = 0, mu = 8: the PL predicate is tight "
                    "at every x in [-10, 10], an equality case.", NULL},
    {LM_READ_PAPER, "f(x) = x^2 + 3 sin^2 x with mu = 1/8 (tight value ~0.702): a nonconvex "
                    "function that satisfies PL, at random x and the worst scanned x.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_definition5_1) = {
    .kind = LM_KIND_STRUCTURAL,
    .source = "Definition 5.1 (Definition 1.2 of Frei and Gu 2021)",
    .origin = "reconstructed",
    .confidence = "medium-high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.5,
    .eval = eval,
};
