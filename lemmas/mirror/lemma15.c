/* lemmas/mirror/lemma15.c
 *
 * \claim{mirror/lemma15}{Mean-value bounds for $t\mapsto t^{p-1}$}
 * \source{mirror-descent-attention, Lemma 15 (Appendix A.2); used in Lemma 4 and Lemma 29}
 * \statement{(reconstructed) For $x\ge y>0$: if $p\ge2$,
 *   $(p-1)y^{p-2}(x-y)\le x^{p-1}-y^{p-1}\le(p-1)x^{p-2}(x-y)$; if $1<p<2$,
 *   $(p-1)x^{p-2}(x-y)\le x^{p-1}-y^{p-1}\le(p-1)y^{p-2}(x-y)$.}
 * \check{One configuration per
 *   $p\in\{1.001,1.01,1.1,1.5,2-10^{-9},2,2+10^{-9},3,10,50\}$ ($p=2$ exactly: all four sides
 *   equal $x-y$).  As in \texttt{mirror/lemma14}, with $X=\max$, $Y=\min$ (for $x<y$ the
 *   statement read for $(X,Y)$) and $\ell=\log(X/Y)$ formed as $\mathrm{log1p}((X-Y)/Y)$, the
 *   three sides are $(p-1)Y^{p-1}\mathrm{expm1}(\ell)$ times $e^{\min(0,(p-2)\ell)}$,
 *   $E((p-1)\ell)/E(\ell)$ and $e^{\max(0,(p-2)\ell)}$, $E(z)=\mathrm{expm1}(z)/z$; dividing
 *   by the positive common factor removes the cancellation of $x^{p-1}-y^{p-1}$ and of
 *   $x-y$ (the catalogue's precision trap), and the comparisons are made in the log domain
 *   with $\log E$ to full relative accuracy and the rounding tolerance
 *   $16u(1+|\log E((p-1)\ell)|+|\log E(\ell)|+|(p-2)\ell|)$.  The ratios tend to $1$ as
 *   $\ell\to0$ (and are exactly $1$ at $p=2$), so such near misses are re-decided in MPFR at
 *   256 bits.  Where the literal formula is well conditioned ($X/Y\ge1.001$, no overflow) it
 *   is also evaluated as written with powers in the working precision and the tolerance
 *   $16(p+1)u(1+X^{p-1}/(X^{p-1}-Y^{p-1}))$.  Instances: $x,y$ log-uniform in
 *   $[10^{-6},10^6]$; $x=y(1+10^{-k})$, $k=1..30$ (exact through $\ell$); $x=y(1+U(0,3))$; and
 *   $y\to0$: $x/y=10^{[6,12]}$ (where the upper bound blows up for $p<2$).  The adversarial
 *   search maps $(x_0,x_1)$ to $\ell=10^{-3+3x_0}\in[10^{-30},30]$ and $y=10^{3x_1}$.
 *   Reported per $p$: the sharp constants of the instance,
 *   $c^*_{lo}=(x^{p-1}-y^{p-1})/(\text{lower side}/(p-1))\ge p-1$ and
 *   $c^*_{hi}=(x^{p-1}-y^{p-1})/(\text{upper side}/(p-1))\le p-1$, next to the stated $p-1$
 *   (both tend to $p-1$ as $x\to y$).  \texttt{lo\_scale} and \texttt{hi\_scale} multiply the
 *   lower and upper sides; values above resp.\ below $1$ must be violated.  Reading: the
 *   exact display of the paper is not recovered (catalogue confidence low--medium); the
 *   catalogue believes the upper bounds are the displayed ones and all four inequalities are
 *   checked, each as its own observation.  Readings: every configuration is a \texttt{paper} reading (the statement as the catalogue reconstructs it).}
 */
#include "lm_mdclaim.h"
#include <math.h>
#include <stdio.h>

static const char *const configs[] = {"p=1.001",  "p=1.01", "p=1.1",    "p=1.5", "p=2-1e-9",
                                      "p=2",      "p=2+1e-9", "p=3",    "p=10",  "p=50", NULL};
/* one reading per configuration (issue 16) */
static const lm_reading readings[] = {
    {LM_READ_PAPER, "p = 1.001, barely above 1: the p < 2 mean-value bounds (p-1)x^(p-2)(x-y) <= "
                    "x^(p-1)-y^(p-1) <= (p-1)y^(p-2)(x-y) over the four pair kinds.", NULL},
    {LM_READ_PAPER, "p = 1.01: both p < 2 mean-value bounds for t^(p-1), including y -> 0 with x/y "
                    "up to 1e12 where the upper bound blows up.", NULL},
    {LM_READ_PAPER, "p = 1.1: both p < 2 mean-value bounds for t^(p-1) on log-uniform, "
                    "near-diagonal x = y(1+10^-k) and huge-ratio pairs.", NULL},
    {LM_READ_PAPER, "p = 1.5, an interior p < 2: both mean-value bounds for t^(p-1), log domain "
                    "and literal formula, over the four pair kinds.", NULL},
    {LM_READ_PAPER, "p = 2 - 1e-9, just below 2: the p < 2 bounds where all sides nearly coincide, "
                    "a boundary test of the branch switch.", NULL},
    {LM_READ_PAPER, "p = 2 exactly, where all four sides equal x - y: the mean-value bounds hold "
                    "with equality, testing the rounding tolerance.", NULL},
    {LM_READ_PAPER, "p = 2 + 1e-9, just above 2: the p >= 2 bounds (p-1)y^(p-2)(x-y) <= "
                    "x^(p-1)-y^(p-1) <= (p-1)x^(p-2)(x-y) at the branch switch.", NULL},
    {LM_READ_PAPER, "p = 3, the paper's largest experimental exponent: both p >= 2 mean-value "
                    "bounds for t^(p-1) over the four pair kinds.", NULL},
    {LM_READ_PAPER, "p = 10, a large exponent: both p >= 2 mean-value bounds for t^(p-1), with x/y "
                    "up to 1e12 so that the bounds are far apart.", NULL},
    {LM_READ_PAPER, "p = 50, the extreme exponent where powers can overflow double: both p >= 2 "
                    "mean-value bounds for t^(p-1) in the log domain.", NULL},
    LM_READINGS_END};

static const double PS[] = {1.001, 1.01, 1.1, 1.5, 2.0 - 1e-9, 2.0, 2.0 + 1e-9, 3.0, 10.0, 50.0};

#define PARAMS(NUM, SWITCH)                                               \
    NUM(lo_scale, 1.0, "[0, 1e6]", "multiplies the lower side")           \
    NUM(hi_scale, 1.0, "[0, 1e6]", "multiplies the upper side")           \
    NUM(tol_scale, 1.0, "[0, inf)", "multiplies the rounding tolerances")
LM_PARAMS(PARAMS)

enum { K_RANDOM, K_DIAG, K_MODERATE, K_HUGE, NKIND };
static const char *const kind_name[NKIND] = {"log-uniform x, y", "x = y(1+10^-k)", "x = y(1+U(0,3))",
                                             "y -> 0: x/y = 10^[6,12]"};

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    double p = PS[ev->config];
    const lm_ctx *c = ev->ctx;
    lm_rng *g = lm_eval_rng(ev);
    double lo_s = P.lo_scale, hi_s = P.hi_scale, ts = P.tol_scale;
    double u = lm_ctx_eps(c);
    int kind = ev->x ? -1 : ev->index % NKIND;
    lm_num l, X, Y, z, lo, mid, hi, a, b, q, e, dx;
    lm_num_inits(c, &l, &X, &Y, &z, &lo, &mid, &hi, &a, &b, &q, &e, &dx, (lm_num *)NULL);
    double x0 = pow(10.0, -6.0 + 12.0 * lm_rng_uniform(g)), y0 = pow(10.0, -6.0 + 12.0 * lm_rng_uniform(g));
    double f = 3.0 * lm_rng_uniform(g), big = pow(10.0, 6.0 + 6.0 * lm_rng_uniform(g));
    int kk = 1 + (7 * (ev->index / NKIND)) % 30;
    const char *what = ev->x ? "adversarial" : kind_name[kind];
    /* Y = min, X = max, dx = X - Y, l = log(X/Y), all in the context */
    if (ev->x) {
        double ld = pow(10.0, fmax(-30.0, fmin(log10(30.0), -3.0 + 3.0 * ev->x[0])));
        double yd = pow(10.0, fmax(-6.0, fmin(6.0, 3.0 * ev->x[1])));
        lm_num_set_d(&l, ld);
        lm_num_set_d(&Y, yd);
        lm_num_expm1(&dx, &l);
        lm_num_mul(&dx, &dx, &Y);
        lm_num_add(&X, &Y, &dx);
    } else if (kind == K_DIAG) {
        char buf[32];
        snprintf(buf, sizeof buf, "1e-%d", kk);
        lm_num_set_str(&a, buf); /* delta = 10^-k in the context */
        lm_num_log1p(&l, &a);
        lm_num_set_d(&Y, y0);
        lm_num_mul(&dx, &a, &Y);
        lm_num_add(&X, &Y, &dx);
    } else {
        double xd = kind == K_RANDOM ? x0 : kind == K_MODERATE ? y0 * (1.0 + f) : y0 * big;
        lm_num_set_d(&X, fmax(xd, y0));
        lm_num_set_d(&Y, fmin(xd, y0));
        lm_num_sub(&dx, &X, &Y);
        lm_num_div(&a, &dx, &Y);
        lm_num_log1p(&l, &a);
    }
    if (lm_num_sgn(&l) <= 0) {
        lm_assume(ev, 0, "x = y: all three sides vanish");
        goto out;
    }
    double ld = lm_num_get_d(&l);
    /* (A) reduced: sides / ((p-1) Y^(p-1) expm1(l)) */
    lm_num_set_d(&e, p);
    lm_num_add_d(&e, &e, -1.0); /* p - 1 */
    lm_num_mul(&z, &l, &e);
    lm_md_log_E(&mid, &z, c);         /* log E((p-1) l) */
    lm_md_log_E(&a, &l, c);           /* log E(l) */
    double Lm = lm_num_get_d(&mid), L1 = lm_num_get_d(&a);
    lm_num_sub(&mid, &mid, &a);
    lm_num_add_d(&z, &e, -1.0); /* p - 2 */
    lm_num_mul(&z, &z, &l);     /* (p-2) l */
    lm_num_set_d(&q, 0.0);
    lm_num_min(&lo, &z, &q);
    lm_num_max(&hi, &z, &q);
    lm_num_add_d(&lo, &lo, log(lo_s));
    lm_num_add_d(&hi, &hi, log(hi_s));
    if (!lm_num_isfinite(&mid) || !lm_num_isfinite(&lo) || !lm_num_isfinite(&hi)) {
        lm_fail(ev, "non-finite log E (p=%g)", p);
        goto out;
    }
    double tA = ts * 16.0 * u * (1.0 + fabs(Lm) + fabs(L1) + fabs(lm_num_get_d(&z)));
    lm_obs_le_log(ev, -1, &lo, &mid, tA, "lower <= x^(p-1)-y^(p-1), reduced (%s, l=%.3g)", what, ld);
    lm_obs_le_log(ev, -1, &mid, &hi, tA, "x^(p-1)-y^(p-1) <= upper, reduced (%s, l=%.3g)", what, ld);
    /* (B) the literal formula where it is well conditioned */
    double lx = lm_num_log_abs_d(&X) / M_LN10, ly = lm_num_log_abs_d(&Y) / M_LN10;
    if (ld >= log1p(1e-3) && fabs(p * lx) < 300.0 && fabs(p * ly) < 300.0) {
        double tB = ts * 16.0 * (p + 1.0) * u * (1.0 + 1.0 / (-expm1(-(p - 1.0) * ld)));
        lm_num pm2;
        lm_num_init(&pm2, c);
        lm_num_add_d(&pm2, &e, -1.0);
        lm_num_pow(&b, &X, &e);
        lm_num_pow(&q, &Y, &e);
        lm_num_sub(&b, &b, &q); /* x^(p-1) - y^(p-1) */
        /* y^(p-2) and x^(p-2) sides: which one is lower depends on p */
        lm_num_pow(&a, p >= 2.0 ? &Y : &X, &pm2);
        lm_num_mul(&a, &a, &e);
        lm_num_mul(&a, &a, &dx);
        lm_num_mul_d(&a, &a, lo_s);
        lm_obs_le(ev, -1, &a, &b, tB, "lower <= x^(p-1)-y^(p-1), literal (%s)", what);
        lm_num_pow(&a, p >= 2.0 ? &X : &Y, &pm2);
        lm_num_mul(&a, &a, &e);
        lm_num_mul(&a, &a, &dx);
        lm_num_mul_d(&a, &a, hi_s);
        lm_obs_le(ev, -1, &b, &a, tB, "x^(p-1)-y^(p-1) <= upper, literal (%s)", what);
        lm_num_clear(&pm2);
    }
    {
        char nm[96];
        double r = lm_num_get_d(&mid), zl = lm_num_get_d(&z);
        double clo = (p - 1.0) * exp(r - fmin(0.0, zl)), chi = (p - 1.0) * exp(r - fmax(0.0, zl));
        snprintf(nm, sizeof nm, "stated constant p-1 (p=%.10g)", p);
        lm_measure(ev, nm, p - 1.0);
        snprintf(nm, sizeof nm, "sharp lower constant c_lo*(p=%.10g)", p);
        lm_measure(ev, nm, clo);
        snprintf(nm, sizeof nm, "sharp upper constant c_hi*(p=%.10g)", p);
        lm_measure(ev, nm, chi);
        lm_measure(ev, "log(x/y)", ld);
        lm_measure(ev, "log10 y", ly);
    }
out:
    lm_num_clears(&l, &X, &Y, &z, &lo, &mid, &hi, &a, &b, &q, &e, &dx, (lm_num *)NULL);
    return 0;
}

LM_CLAIM(claim_mirror_lemma15) = {
    .kind = LM_KIND_POINTWISE,
    .source = "Lemma 15, Appendix A.2",
    .origin = "reconstructed",
    .confidence = "low-medium",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 1.0,
    .search_dim = 2,
    .eval = eval,
};
