/* lemmas/mirror/definition1.c
 *
 * \claim{mirror/definition1}{Bregman divergence of the $\ell_p$ potential}
 * \source{mirror-descent-attention, Definition 1 (Section 2); the closed sum is the authors'
 *   \texttt{bregman\_div.py}}
 * \statement{For a strictly convex differentiable $\psi$,
 *   $D_\psi(W,V):=\psi(W)-\psi(V)-\langle\nabla\psi(V),W-V\rangle$.  With
 *   $\psi(W)=\frac1p\|W\|_p^p$ (entrywise, $p>1$):
 *   $D_\psi(W,V)=\sum_{a,b}\big[\frac1p|W_{ab}|^p+\frac{p-1}p|V_{ab}|^p
 *   -\mathrm{sgn}(V_{ab})|V_{ab}|^{p-1}W_{ab}\big]\ge0$, with equality iff $W=V$;
 *   $D_\psi(cW,cV)=c^pD_\psi(W,V)$ for $c>0$; for $p=2$, $D_\psi(W,V)=\frac12\|W-V\|_F^2$.}
 * \check{One configuration per $p\in\{1.01,1.05,1.5,2,3,6,20\}$.  An instance is a pair
 *   $W,V\in\mathbb R^{d\times d}$, $d\in\{10,2,1\}$, drawn as doubles (so the same pair is
 *   rebuilt in every precision) from one of seven kinds that cycle with the instance index:
 *   Gaussian with exact zeros and a common scale $10^{[-3,3]}$; tiny entries of magnitude
 *   $10^{[-300,-3]}$ with random signs (these underflow in double once raised to $p$);
 *   entries of magnitude $10^{[-8,8]}$; $W=V$; $W=-V$; $W=V\odot(1+hN)$ with
 *   $h=10^{[-12,-2]}$ (the cancellation regime of the catalogue's precision note); and
 *   sparse pairs with sign flips and zeros in one of the two matrices.  Random instances
 *   are evaluated in IEEE double, MPFR 128 or MPFR 256 bits in turn (the working precision
 *   is never below the runner's, so the MPFR replay of a break runs everything at 256
 *   bits; the measure ``working precision'' names it, while the precision column of the
 *   summary lists only the runner's own contexts).  With $S=\psi(W)+\psi(V)+\sum|V_{ab}|^{p-1}(|W_{ab}|+|V_{ab}|)$, the scale of
 *   every term involved, and $u$ the unit roundoff of the working precision, the
 *   observations are: (i) the closed sum (the core's \texttt{lm\_md\_bregman}) against the
 *   definition $\psi(W)-\psi(V)-\langle\nabla\psi(V),W-V\rangle$, relative residual
 *   $\le\tau:=4(n+8)u$ with $n=d^2$ (in double plus $4(n+8)2^{-1074}/S$, the absolute
 *   granularity of gradual underflow); at $W=V$ the definition is exactly $0$, so this is
 *   also the ``equality at $W=V$'' check; (ii) nonnegativity $-D_\psi/S\le\tau$ (the
 *   negative values of order $u\|V\|_p^p$ that the catalogue warns about near $W=V$ are
 *   rounding of the closed sum and stay inside $\tau$, while a genuine sign error does
 *   not); (iii) homogeneity at a random $c\in[10^{-3},10^3]$, relative to $c^pS$ with
 *   tolerance $(p+2)\tau$ (the rounding of $cW$ is amplified $p$-fold by $|\cdot|^p$);
 *   (iv) at $p=2$, $D_\psi$ against $\frac12\|W-V\|_F^2$.  Strict positivity away from
 *   $W=V$ is quantified by \texttt{mirror/lemma13}, which bounds $D_\psi$ below by a norm
 *   of $W-V$.  The adversarial search (two coordinates: the common scale $10^{2x_0}$ of a
 *   random $2\times2$ pair and the distance $10^{3x_1-2}$ of $W$ from $V$) maximises the
 *   residual ratios.  \texttt{tol\_scale} multiplies $\tau$; \texttt{formula}$=$no-sgn
 *   replaces the closed sum by one without $\mathrm{sgn}(V_{ab})$, which must be caught.  Readings: every configuration is a \texttt{paper} reading (the statement as the catalogue reconstructs it).}
 */
#include "lm_mdclaim.h"
#include <float.h>
#include <math.h>
#include <stdio.h>

static const char *const configs[] = {"p=1.01", "p=1.05", "p=1.5", "p=2", "p=3", "p=6", "p=20", NULL};
/* one reading per configuration (issue 16) */
static const lm_reading readings[] = {
    {LM_READ_PAPER, "p = 1.01, next to the p -> 1 limit: closed-sum Bregman divergence against its "
                    "definition, nonnegativity and c^p homogeneity over the seven pair kinds.",
     NULL},
    {LM_READ_PAPER, "p = 1.05, just above 1 where |V|^(p-1) is close to a sign: closed sum against "
                    "the definition, nonnegativity and homogeneity over the seven pair kinds.",
     NULL},
    {LM_READ_PAPER, "p = 1.5, an interior exponent below 2: closed-sum Bregman divergence against "
                    "its definition, nonnegativity and c^p homogeneity, including the W ~ V "
                    "cancellation pairs.", NULL},
    {LM_READ_PAPER, "p = 2, the Euclidean potential: besides definition, nonnegativity and "
                    "homogeneity, checks D_psi(W,V) = ||W - V||_F^2 / 2 on the seven pair kinds.",
     NULL},
    {LM_READ_PAPER, "p = 3, the paper's largest experimental exponent: closed-sum Bregman "
                    "divergence against its definition, nonnegativity and c^p homogeneity over the "
                    "seven pair kinds.", NULL},
    {LM_READ_PAPER, "p = 6, a large exponent where |W|^p spans many decades: closed sum against "
                    "the definition, nonnegativity and homogeneity with a 6-fold amplified "
                    "rounding.", NULL},
    {LM_READ_PAPER, "p = 20, the extreme exponent where tiny and wide entries underflow or "
                    "overflow when raised to p: stresses the rounding tolerance of the closed sum.",
     NULL},
    LM_READINGS_END};

static const double PS[] = {1.01, 1.05, 1.5, 2.0, 3.0, 6.0, 20.0};

#define PARAMS(NUM, SWITCH)                                                                                      \
    NUM(tol_scale, 1.0, "[0, inf)", "multiplies the rounding tolerance 4(n+8)u of every residual")               \
    SWITCH(formula, 0, "closed-sum|no-sgn", "closed sum compared with the definition (no-sgn: a wrong formula)")
LM_PARAMS(PARAMS)

enum { K_GAUSS, K_TINY, K_WIDE, K_EQUAL, K_OPPOSITE, K_NEAR, K_SPARSE, NKIND };
static const char *const kind_name[NKIND] = {"gaussian with zeros", "tiny entries", "entries 1e-8..1e8",
                                             "W = V", "W = -V", "W ~ V", "sparse, sign flips"};

/* the pair as doubles (the same numbers in every precision) */
static void gen_pair(double *w, double *v, int n, int kind, lm_rng *g)
{
    double s = lm_md_logu(g, -3.0, 3.0), h = lm_md_logu(g, -12.0, -2.0);
    for (int k = 0; k < n; k++) {
        double a = lm_rng_normal(g), b = lm_rng_normal(g), u1 = lm_rng_uniform(g), u2 = lm_rng_uniform(g);
        switch (kind) {
        case K_GAUSS:
            w[k] = u1 < 0.2 ? 0.0 : s * a;
            v[k] = u2 < 0.2 ? 0.0 : s * b;
            break;
        case K_TINY:
            w[k] = u1 < 0.1 ? 0.0 : lm_md_rsign(g) * lm_md_logu(g, -300.0, -3.0);
            v[k] = u2 < 0.1 ? 0.0 : lm_md_rsign(g) * lm_md_logu(g, -300.0, -3.0);
            break;
        case K_WIDE:
            w[k] = lm_md_rsign(g) * lm_md_logu(g, -8.0, 8.0);
            v[k] = lm_md_rsign(g) * lm_md_logu(g, -8.0, 8.0);
            break;
        case K_EQUAL: v[k] = w[k] = s * a; break;
        case K_OPPOSITE: v[k] = s * a; w[k] = -v[k]; break;
        case K_NEAR: v[k] = s * a; w[k] = v[k] * (1.0 + h * b); break;
        default: /* K_SPARSE */
            v[k] = s * a;
            w[k] = u1 < 0.3 ? -v[k] : (u1 < 0.6 ? 0.0 : v[k]);
            if (u2 < 0.2) v[k] = 0.0;
            break;
        }
    }
    int nz = 0;
    for (int k = 0; k < n; k++) nz |= w[k] != 0.0 || v[k] != 0.0;
    if (!nz) v[0] = 1.0; /* not both zero: the scale S must be positive */
}

/* the wrong closed sum: sum |w|^p/p + (p-1)|v|^p/p - |v|^(p-1) w (sgn(V) dropped) */
static void closed_nosgn(lm_num *r, const lm_mat *W, const lm_mat *V, double p, const lm_ctx *c)
{
    lm_num e, em1, w, v, a, b;
    lm_num_inits(c, &e, &em1, &w, &v, &a, &b, (lm_num *)NULL);
    lm_num_set_d(&e, p);
    lm_num_add_d(&em1, &e, -1.0);
    lm_num_set_d(r, 0.0);
    for (int i = 0; i < W->r; i++)
        for (int j = 0; j < W->c; j++) {
            lm_mat_get(&w, W, i, j);
            lm_mat_get(&v, V, i, j);
            lm_num_abs(&a, &w);
            lm_num_pow(&a, &a, &e);
            lm_num_abs(&v, &v);
            lm_num_pow(&b, &v, &e);
            lm_num_fma(&a, &b, &em1, &a);
            lm_num_div(&a, &a, &e);
            lm_num_pow(&b, &v, &em1);
            lm_num_mul(&b, &b, &w);
            lm_num_sub(&a, &a, &b);
            lm_num_add(r, r, &a);
        }
    lm_num_clears(&e, &em1, &w, &v, &a, &b, (lm_num *)NULL);
}

static void closed_sum(lm_num *r, const lm_mat *W, const lm_mat *V, double p, int formula,
                       const lm_ctx *c)
{
    if (formula == 1) closed_nosgn(r, W, V, p, c);
    else lm_md_bregman(r, W, V, p);
}

/* S = psi(W) + psi(V) + sum |v|^(p-1) (|w| + |v|) */
static void term_scale(lm_num *S, const lm_mat *W, const lm_mat *V, double p, const lm_ctx *c)
{
    lm_num e, w, v, a, b;
    lm_num_inits(c, &e, &w, &v, &a, &b, (lm_num *)NULL);
    lm_md_psi(S, W, p);
    lm_md_psi(&a, V, p);
    lm_num_add(S, S, &a);
    lm_num_set_d(&e, p);
    lm_num_add_d(&e, &e, -1.0);
    for (int i = 0; i < W->r; i++)
        for (int j = 0; j < W->c; j++) {
            lm_mat_get(&w, W, i, j);
            lm_mat_get(&v, V, i, j);
            lm_num_abs(&w, &w);
            lm_num_abs(&v, &v);
            if (lm_num_iszero(&v)) continue;
            lm_num_pow(&a, &v, &e);
            lm_num_add(&b, &w, &v);
            lm_num_fma(S, &a, &b, S);
        }
    lm_num_clears(&e, &w, &v, &a, &b, (lm_num *)NULL);
}

/* the context a scalar lives in */
static lm_ctx num_ctx(const lm_num *x)
{
    if (x->ab) return lm_ctx_arb(x->ap);
    return x->mp ? lm_ctx_mpfr(mpfr_get_prec(x->m)) : lm_ctx_double();
}

/* record |x| / S <= tol as an observation in the runner's context */
static void obs_rel(lm_eval *ev, const lm_num *x, const lm_num *S, double tol, int absval,
                    const char *what, const char *kind, int d, int bits)
{
    lm_ctx cw = num_ctx(x);
    lm_num r, a, b;
    lm_num_init(&r, &cw); /* the ratio in the working precision, then in the runner's */
    lm_num_set(&r, x);
    if (absval) lm_num_abs(&r, &r);
    if (lm_num_sgn(S) > 0) lm_num_div(&r, &r, S);
    lm_num_inits(ev->ctx, &a, &b, (lm_num *)NULL);
    lm_num_set(&a, &r);
    lm_num_set_d(&b, tol);
    lm_obs_le(ev, -1, &a, &b, 0.0, "%s (%s, d=%d, %d bits)", what, kind, d, bits);
    lm_num_clears(&r, &a, &b, (lm_num *)NULL);
}

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    double p = PS[ev->config];
    int formula = lm_int(P.formula);
    double tol_scale = P.tol_scale;
    lm_rng *g = lm_eval_rng(ev);
    int kind, d, tier;
    lm_md_ident_plan(ev, NKIND, K_NEAR, &kind, &d, &tier);
    lm_ctx cw = lm_md_work_ctx(ev, tier);
    const lm_ctx *c = &cw;
    int bits = lm_md_ctx_bits(c);
    int n = d * d;
    double w[100], v[100];
    gen_pair(w, v, n, kind, g);
    if (ev->x) { /* scale 10^(2 x0), W at relative distance 10^(3 x1 - 2) from V */
        double s = pow(10.0, 2.0 * fmax(-4.0, fmin(4.0, ev->x[0])));
        double h = pow(10.0, fmax(-16.0, fmin(1.0, 3.0 * ev->x[1] - 2.0)));
        for (int k = 0; k < n; k++) {
            v[k] = s * lm_rng_normal(g);
            w[k] = v[k] * (1.0 + h * lm_rng_normal(g));
        }
    }
    double c_hom = lm_md_logu(g, -3.0, 3.0);
    lm_mat *W = lm_mat_new(d, d, c), *V = lm_mat_new(d, d, c), *G = lm_mat_new(d, d, c);
    lm_mat *Dm = lm_mat_new(d, d, c);
    lm_mat_set_array(W, w);
    lm_mat_set_array(V, v);
    lm_num Dc, Ddef, S, x, y, cp;
    lm_num_inits(c, &Dc, &Ddef, &S, &x, &y, &cp, (lm_num *)NULL);

    double u = lm_ctx_eps(c);
    closed_sum(&Dc, W, V, p, formula, c);
    /* the definition: psi(W) - psi(V) - <grad psi(V), W - V> */
    lm_md_psi(&Ddef, W, p);
    lm_md_psi(&x, V, p);
    lm_num_sub(&Ddef, &Ddef, &x);
    lm_md_grad_psi(G, V, p);
    lm_mat_sub(Dm, W, V);
    lm_mat_dot(&x, G, Dm);
    lm_num_sub(&Ddef, &Ddef, &x);
    term_scale(&S, W, V, p, c);
    if (!lm_num_isfinite(&Dc) || !lm_num_isfinite(&Ddef) || !lm_num_isfinite(&S)) {
        int rc = lm_fail(ev, "non-finite Bregman divergence (p=%g, %s)", p, kind_name[kind]);
        lm_num_clears(&Dc, &Ddef, &S, &x, &y, &cp, (lm_num *)NULL);
        lm_mat_free(W); lm_mat_free(V); lm_mat_free(G); lm_mat_free(Dm);
        return rc;
    }
    double tau = tol_scale * 4.0 * (n + 8) * u;
    if (c->backend == LM_DOUBLE) { /* gradual underflow: absolute granularity 2^-1074 */
        double Sd = lm_num_get_d(&S);
        tau += tol_scale * 4.0 * (n + 8) * (Sd > 0.0 ? DBL_TRUE_MIN / Sd : 1.0);
    }
    /* (i) closed sum vs definition */
    lm_num_sub(&x, &Dc, &Ddef);
    obs_rel(ev, &x, &S, tau, 1, "|closed sum - definition| / S", kind_name[kind], d, bits);
    /* (ii) nonnegativity */
    lm_num_neg(&x, &Dc);
    obs_rel(ev, &x, &S, tau, 0, "-D / S (nonnegativity)", kind_name[kind], d, bits);
    /* (iii) homogeneity D(cW, cV) = c^p D(W, V) */
    lm_mat_scale_d(W, W, c_hom);
    lm_mat_scale_d(V, V, c_hom);
    closed_sum(&y, W, V, p, formula, c);
    lm_num_set_d(&cp, c_hom);
    lm_num_set_d(&x, p);
    lm_num_pow(&cp, &cp, &x);
    lm_num_mul(&x, &cp, &Dc);
    lm_num_sub(&x, &y, &x);
    lm_num_mul(&S, &S, &cp);
    obs_rel(ev, &x, &S, (p + 2.0) * tau, 1, "|D(cW,cV) - c^p D(W,V)| / (c^p S)", kind_name[kind], d,
            bits);
    lm_num_div(&S, &S, &cp);
    /* (iv) p = 2: D = ||W - V||_F^2 / 2 */
    if (p == 2.0) {
        lm_mat_frob(&x, Dm);
        lm_num_sqr(&x, &x);
        lm_num_mul_d(&x, &x, 0.5);
        lm_num_sub(&x, &Dc, &x);
        obs_rel(ev, &x, &S, tau, 1, "|D - ||W-V||_F^2/2| / S", kind_name[kind], d, bits);
    }
    lm_measure(ev, "working precision (bits)", bits);
    lm_measure(ev, "d", d);
    lm_measure(ev, "kind", kind);
    lm_num_sub(&x, &Dc, &Ddef);
    lm_num_abs(&x, &x);
    lm_num_div(&x, &x, &S);
    lm_measure(ev, "|closed sum - definition| / (S u)", lm_num_get_d(&x) / u);
    lm_num_div(&x, &Dc, &S);
    lm_measure(ev, "D / S", lm_num_get_d(&x));
    lm_measure(ev, "tolerance tau", tau);

    lm_num_clears(&Dc, &Ddef, &S, &x, &y, &cp, (lm_num *)NULL);
    lm_mat_free(W); lm_mat_free(V); lm_mat_free(G); lm_mat_free(Dm);
    return 0;
}

LM_CLAIM(claim_mirror_definition1) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Definition 1 (Section 2); bregman_div.py of the authors' code",
    .origin = "reconstructed",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 1.0,
    .search_dim = 2,
    .eval = eval,
};
