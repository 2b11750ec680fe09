/* lemmas/mirror/lemma14.c
 *
 * \claim{mirror/lemma14}{Scalar power comparison}
 * \source{mirror-descent-attention, Lemma 14 (Appendix A.2); used in Lemma 27 and in the proof
 *   of Lemma 4}
 * \statement{For $p>1$ and $x\ge y>0$:
 *   $\dfrac{x^p-y^p}{p\,x}\le\dfrac{x^{p-1}-y^{p-1}}{p-1}\le\dfrac{x^p-y^p}{p\,y}$.
 *   (Both inequalities also hold for $0<x<y$.)}
 * \check{One configuration per $p\in\{1.001,1.01,1.1,1.5,2,3,10,50\}$.  With $X=\max(x,y)$,
 *   $Y=\min(x,y)$ the statement for $0<x<y$ is the same statement for $(X,Y)$, so both orders
 *   occur (log-uniform draws) and the pair is sorted.  \emph{Precision trap:} for $x\approx y$ all three sides
 *   are differences of nearly equal powers.  Writing $\ell=\log(X/Y)$ (formed as
 *   $\mathrm{log1p}((X-Y)/Y)$) and $E(z)=\mathrm{expm1}(z)/z$, the three sides are
 *   $Y^{p-1}\ell$ times $e^{-\ell}E(p\ell)$, $E((p-1)\ell)$ and $E(p\ell)$; dividing by the
 *   positive common factor leaves the ratios unchanged, and $\log E(z)$ is computed to full
 *   relative accuracy ($\mathrm{log1p}$ of the series $\sum_{k\ge1}z^k/(k+1)!$ for $z\le\frac12$,
 *   $z+\log(-\mathrm{expm1}(-z))-\log z$ above, which never overflows).  The two
 *   comparisons are made in the log domain with the rounding tolerance
 *   $16u(1+|\log E(p\ell)|+\ell+|\log E((p-1)\ell)|)$; the ratios tend to $1$ as $\ell\to0$,
 *   so such near misses are re-decided in MPFR at 256 bits.  Where the literal formula is
 *   well conditioned ($X/Y\ge1.001$ and no overflow) it is also evaluated as written, with
 *   powers in the working precision and the tolerance
 *   $16(p+1)u\,(1+\frac{X^p}{X^p-Y^p}+\frac{X^{p-1}}{X^{p-1}-Y^{p-1}})$.  Instances cycle
 *   through: $x,y$ log-uniform in $[10^{-6},10^6]$; $x=y(1+10^{-k})$, $k=1,\dots,30$
 *   (represented exactly through $\ell=\mathrm{log1p}(10^{-k})$ in the working precision,
 *   since double cannot hold $x\ne y$ for $k>15$); $x=y(1+U(0,3))$; and $x/y=10^{[6,12]}$.
 *   The adversarial search maps $(x_0,x_1)$ to $\ell=10^{-3+3x_0}$ (clamped to
 *   $[10^{-30},30]$) and $y=10^{3x_1}$ and maximises the worse ratio.  Reported per $p$: the
 *   sharp constants of the instance, $c_L^*=M\,X/(X^p-Y^p)\ge\frac1p$ and
 *   $c_R^*=M\,Y/(X^p-Y^p)\le\frac1p$ with $M$ the middle term, next to the stated $\frac1p$
 *   (both tend to $\frac1p$ as $x\to y$: the constants cannot be improved).
 *   \texttt{lo\_scale} and \texttt{hi\_scale} multiply the left and right sides; values
 *   above resp.\ below $1$ must be violated.  Reading: the catalogue reconstructs both
 *   inequalities from the proof (``compare derivatives in $x$'') and their two uses; the
 *   paper may display only one of them, and each is checked as its own observation.  Readings: every configuration is a \texttt{paper} reading (the statement as the catalogue reconstructs it).}
 */
#include "lm_mdclaim.h"
#include <math.h>
#include <stdio.h>

static const char *const configs[] = {"p=1.001", "p=1.01", "p=1.1", "p=1.5",
                                      "p=2",     "p=3",    "p=10",  "p=50", NULL};
/* one reading per configuration (issue 16) */
static const lm_reading readings[] = {
    {LM_READ_PAPER, "p = 1.001, barely above 1: (x^p-y^p)/(p x) <= (x^(p-1)-y^(p-1))/(p-1) <= "
                    "(x^p-y^p)/(p y), where the middle term is nearly log(x/y).", NULL},
    {LM_READ_PAPER, "p = 1.01, next to 1: both sides of the scalar power comparison on "
                    "log-uniform, near-diagonal x = y(1+10^-k) and huge-ratio pairs.", NULL},
    {LM_READ_PAPER, "p = 1.1: both sides of (x^p-y^p)/(p x) <= (x^(p-1)-y^(p-1))/(p-1) <= "
                    "(x^p-y^p)/(p y) over the four pair kinds, without cancellation.", NULL},
    {LM_READ_PAPER, "p = 1.5, an interior p < 2: both sides of the scalar power comparison, log "
                    "domain and literal formula, over the four pair kinds.", NULL},
    {LM_READ_PAPER, "p = 2, the Euclidean case where the middle term is x - y: both sides of the "
                    "scalar power comparison over the four pair kinds.", NULL},
    {LM_READ_PAPER, "p = 3, the paper's largest experimental exponent: both sides of the scalar "
                    "power comparison over log-uniform, near-diagonal and huge-ratio pairs.", NULL},
    {LM_READ_PAPER, "p = 10, a large exponent: both sides of the scalar power comparison, with x/y "
                    "up to 1e12 so that x^p dominates.", NULL},
    {LM_READ_PAPER, "p = 50, the extreme exponent where powers can overflow double: both sides of "
                    "the scalar power comparison in the log domain.", NULL},
    LM_READINGS_END};

static const double PS[] = {1.001, 1.01, 1.1, 1.5, 2.0, 3.0, 10.0, 50.0};

#define PARAMS(NUM, SWITCH)                                                       \
    NUM(lo_scale, 1.0, "[0, 1e6]", "multiplies the left side (x^p - y^p)/(p x)")  \
    NUM(hi_scale, 1.0, "[0, 1e6]", "multiplies the right side (x^p - y^p)/(p y)") \
    NUM(tol_scale, 1.0, "[0, inf)", "multiplies the rounding tolerances")
LM_PARAMS(PARAMS)

enum { K_RANDOM, K_DIAG, K_MODERATE, K_HUGE, NKIND };
static const char *const kind_name[NKIND] = {"log-uniform x, y", "x = y(1+10^-k)", "x = y(1+U(0,3))",
                                             "x/y = 10^[6,12]"};

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    double p = PS[ev->config];
    const lm_ctx *c = ev->ctx;
    lm_rng *g = lm_eval_rng(ev);
    double lo_s = prm.lo_scale, hi_s = prm.hi_scale, ts = prm.tol_scale;
    double u = lm_ctx_eps(c);
    int kind = ev->x ? -1 : ev->index % NKIND;
    lm_num l, X, Y, z, lL, lM, lR, a, b, q, e;
    lm_num_inits(c, &l, &X, &Y, &z, &lL, &lM, &lR, &a, &b, &q, &e, (lm_num *)NULL);
    /* the pair: Y = min, X = max, l = log(X/Y) in the context */
    double x0 = pow(10.0, -6.0 + 12.0 * lm_rng_uniform(g)), y0 = pow(10.0, -6.0 + 12.0 * lm_rng_uniform(g));
    double f = 3.0 * lm_rng_uniform(g), big = pow(10.0, 6.0 + 6.0 * lm_rng_uniform(g));
    int kk = 1 + (7 * (ev->index / NKIND)) % 30;
    const char *what = ev->x ? "adversarial" : kind_name[kind];
    if (ev->x) {
        double ld = pow(10.0, fmax(-30.0, fmin(log10(30.0), -3.0 + 3.0 * ev->x[0])));
        double yd = pow(10.0, fmax(-6.0, fmin(6.0, 3.0 * ev->x[1])));
        lm_num_set_d(&l, ld);
        lm_num_set_d(&Y, yd);
        lm_num_exp(&X, &l);
        lm_num_mul(&X, &X, &Y);
    } else if (kind == K_DIAG) {
        char buf[32];
        snprintf(buf, sizeof buf, "1e-%d", kk);
        lm_num_set_str(&a, buf); /* delta = 10^-k in the context */
        lm_num_log1p(&l, &a);
        lm_num_set_d(&Y, y0);
        lm_num_add_d(&X, &a, 1.0);
        lm_num_mul(&X, &X, &Y);
    } else {
        double xd = kind == K_RANDOM ? x0 : kind == K_MODERATE ? y0 * (1.0 + f) : y0 * big;
        double hi = fmax(xd, y0), lo = fmin(xd, y0);
        /* the statement for x < y is the statement for (max, min) */
        lm_num_set_d(&X, hi);
        lm_num_set_d(&Y, lo);
        lm_num_sub(&a, &X, &Y);
        lm_num_div(&a, &a, &Y);
        lm_num_log1p(&l, &a);
    }
    if (lm_num_sgn(&l) <= 0) {
        lm_assume(ev, 0, "x = y: all three sides vanish");
        goto out;
    }
    /* (A) the reduced form: sides / (Y^(p-1) l) */
    lm_num_mul_d(&z, &l, p);
    lm_md_log_E(&lR, &z, c);                /* log E(p l) */
    lm_num_sub(&lL, &lR, &l);         /* log E(p l) - l */
    lm_num_add_d(&lL, &lL, log(lo_s));
    lm_num_set_d(&e, p);
    lm_num_add_d(&e, &e, -1.0);
    lm_num_mul(&z, &l, &e);
    lm_md_log_E(&lM, &z, c);                /* log E((p-1) l) */
    double Lp = lm_num_get_d(&lR), Lm = lm_num_get_d(&lM), ld = lm_num_get_d(&l);
    lm_num_add_d(&lR, &lR, log(hi_s));
    if (!lm_num_isfinite(&lL) || !lm_num_isfinite(&lM) || !lm_num_isfinite(&lR)) {
        lm_fail(ev, "non-finite log E (p=%g)", p);
        goto out;
    }
    double tA = ts * 16.0 * u * (1.0 + fabs(Lp) + ld + fabs(Lm));
    lm_obs_le_log(ev, -1, &lL, &lM, tA, "(x^p-y^p)/(p x) <= (x^(p-1)-y^(p-1))/(p-1), reduced (%s, l=%.3g)",
                  what, ld);
    lm_obs_le_log(ev, -1, &lM, &lR, tA, "(x^(p-1)-y^(p-1))/(p-1) <= (x^p-y^p)/(p y), reduced (%s, l=%.3g)",
                  what, ld);
    /* (B) the literal formula where it is well conditioned */
    double lx = lm_num_log_abs_d(&X) / M_LN10, ly = lm_num_log_abs_d(&Y) / M_LN10;
    if (ld >= log1p(1e-3) && p * lx < 300.0 && p * ly > -300.0 && (p - 1.0) * ly > -300.0) {
        double cond = 1.0 / (-expm1(-p * ld)) + 1.0 / (-expm1(-(p - 1.0) * ld));
        double tB = ts * 16.0 * (p + 1.0) * u * (1.0 + cond);
        lm_num P;
        lm_num_init(&P, c);
        lm_num_set_d(&P, p);
        lm_num_pow(&a, &X, &P);
        lm_num_pow(&b, &Y, &P);
        lm_num_sub(&a, &a, &b);       /* x^p - y^p */
        lm_num_pow(&b, &X, &e);
        lm_num_pow(&q, &Y, &e);
        lm_num_sub(&b, &b, &q);
        lm_num_div(&b, &b, &e);       /* M = (x^(p-1) - y^(p-1))/(p-1) */
        lm_num_div(&q, &a, &P);
        lm_num_div(&q, &q, &X);
        lm_num_mul_d(&q, &q, lo_s);
        lm_obs_le(ev, -1, &q, &b, tB, "(x^p-y^p)/(p x) <= (x^(p-1)-y^(p-1))/(p-1), literal (%s)", what);
        lm_num_div(&q, &a, &P);
        lm_num_div(&q, &q, &Y);
        lm_num_mul_d(&q, &q, hi_s);
        lm_obs_le(ev, -1, &b, &q, tB, "(x^(p-1)-y^(p-1))/(p-1) <= (x^p-y^p)/(p y), literal (%s)", what);
        lm_num_clear(&P);
    }
    {
        char nm[96];
        lm_num_sub(&a, &lM, &lR);
        lm_num_add_d(&a, &a, log(hi_s)); /* log M - log E(p l) */
        double cR = exp(lm_num_get_d(&a)) / p, cL = cR * exp(ld);
        snprintf(nm, sizeof nm, "stated constant 1/p (p=%g)", p);
        lm_measure(ev, nm, 1.0 / p);
        snprintf(nm, sizeof nm, "sharp left constant c_L*(p=%g)", p);
        lm_measure(ev, nm, cL);
        snprintf(nm, sizeof nm, "sharp right constant c_R*(p=%g)", p);
        lm_measure(ev, nm, cR);
        lm_measure(ev, "log(x/y)", ld);
        lm_measure(ev, "log10 y", ly);
    }
out:
    lm_num_clears(&l, &X, &Y, &z, &lL, &lM, &lR, &a, &b, &q, &e, (lm_num *)NULL);
    return 0;
}

LM_CLAIM(claim_mirror_lemma14) = {
    .kind = LM_KIND_POINTWISE,
    .source = "Lemma 14, Appendix A.2",
    .origin = "reconstructed",
    .confidence = "medium",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 1.0,
    .search_dim = 2,
    .eval = eval,
};
