/* lemmas/mirror/identity-dirbreg.c
 *
 * \claim{mirror/identity-dirbreg}{Directional Bregman divergence as a correlation}
 * \source{mirror-descent-attention, proof of Lemma 28 (Appendix A.5); the convergence measure
 *   of the figure ``Dir.\ Bregman Div.''}
 * \statement{For $W\ne0$ and any $U$ with $\|U\|_p=1$:
 *   $D_\psi(U,\bar W)=1-\dfrac{\langle\nabla\psi(W),U\rangle}{\|W\|_p^{p-1}}\in[0,2]$,
 *   $\bar W=W/\|W\|_p$.  In particular $W\in\mathcal C_{p,\mu,R}$ iff $\|W\|_p\ge R$ and
 *   $\langle\nabla\psi(W),\bar W_{mm}\rangle\ge(1-\mu)\|W\|_p^{p-1}$.}
 * \check{One configuration per $p\in\{1.01,1.05,1.5,2,3,6,20\}$.  An instance is a matrix
 *   $W\in\mathbb R^{d\times d}$, $d\in\{10,2,1\}$, with mixed signs and exact zeros at a
 *   scale $10^{[-6,6]}$, and a direction $U_0$, both drawn as doubles; $U=U_0/\|U_0\|_p$ is
 *   formed in the working precision.  Seven kinds cycle with the index: Gaussian $W$ and
 *   $U_0$; $U=\bar W$ (value $0$); $U=-\bar W$ (value $2$); $U_0=W\odot(1+hN)$ with
 *   $h=10^{[-12,-2]}$ (both sides are then differences of $O(1)$ numbers, the catalogue's
 *   precision trap); $U_0$ supported where $W$ vanishes (value $1$); a one-entry $W$; and
 *   entries of magnitude $10^{[-300,-3]}$ relative to the largest one.  Random instances are evaluated in IEEE double,
 *   MPFR 128 or MPFR 256 bits in turn (never below the runner's precision; the measure
 *   ``working precision'' names it).  The left side is
 *   the core's \texttt{lm\_md\_dir\_bregman}$(U,W)$, i.e.\ the closed Bregman sum at
 *   $(U/\|U\|_p,W/\|W\|_p)$, exactly the quantity the trajectory claims report; the right
 *   side is formed from $W$ itself.  With $u$ the unit roundoff and $n=d^2$, the residual must
 *   be at most $\tau=4(p+2)(n+8)u$ (both sides are $O(1)$; the normalisations carry a
 *   relative error $(n+2)u$ that $|\cdot|^p$ amplifies $p$-fold), the range is checked as
 *   $-D\le\tau$ and $D\le2(1+\tau)$, and the special kinds are checked against their exact
 *   values $0$, $2$, $1$ within $\tau$.  The ``in particular'' is this identity rearranged
 *   (membership in the cone is $D\le\mu$), so the residual covers it.  The worst ratio of
 *   this claim is $1$: the upper end of the range, $D=2$ at $U=-\bar W$, is attained.  The adversarial
 *   search (two coordinates: the scale $10^{3x_0}$ of $W$ and the distance $10^{2x_1-3}$ of
 *   $U_0$ from $\bar W$) maximises the residual ratio.  \texttt{tol\_scale} multiplies
 *   $\tau$; \texttt{formula}$=$exponent-p divides by $\|W\|_p^p$ instead of
 *   $\|W\|_p^{p-1}$ (a wrong homogeneity), which must be caught.  Readings: every configuration is a \texttt{paper} reading (the statement as the catalogue reconstructs it).}
 */
#include "lm_mdclaim.h"
#include <math.h>
#include <stdio.h>

static const char *const configs[] = {"p=1.01", "p=1.05", "p=1.5", "p=2", "p=3", "p=6", "p=20", NULL};
/* one reading per configuration (issue 16) */
static const lm_reading readings[] = {
    {LM_READ_PAPER, "p = 1.01, next to the p -> 1 limit: directional Bregman divergence equals 1 - "
                    "<grad psi(W),U>/||W||_p^(p-1) and lies in [0,2], over the seven kinds of "
                    "(W,U).", NULL},
    {LM_READ_PAPER, "p = 1.05, just above 1: the correlation form of the directional Bregman "
                    "divergence and its range [0,2], including the exact values 0, 2, 1 of the "
                    "special kinds.", NULL},
    {LM_READ_PAPER, "p = 1.5, an interior exponent below 2: correlation identity and range [0,2] "
                    "of the directional divergence, including the U ~ Wbar cancellation trap.",
     NULL},
    {LM_READ_PAPER, "p = 2, the Euclidean case: correlation identity 1 - <W,U>/||W||_2 and range "
                    "[0,2] of the directional divergence over the seven kinds of (W,U).", NULL},
    {LM_READ_PAPER, "p = 3, the paper's largest experimental exponent: correlation identity and "
                    "range [0,2] of the directional divergence over the seven kinds of (W,U).",
     NULL},
    {LM_READ_PAPER, "p = 6, a large exponent amplifying the normalisation error 6-fold: "
                    "correlation identity and range [0,2] of the directional divergence.", NULL},
    {LM_READ_PAPER, "p = 20, the extreme exponent with entries down to 1e-300 of the largest: "
                    "correlation identity and range [0,2] under the strongest rounding "
                    "amplification.", NULL},
    LM_READINGS_END};

static const double PS[] = {1.01, 1.05, 1.5, 2.0, 3.0, 6.0, 20.0};

#define PARAMS(NUM, SWITCH)                                                                                                        \
    NUM(tol_scale, 1.0, "[0, inf)", "multiplies the rounding tolerance 4(p+2)(n+8)u")                                              \
    SWITCH(formula, 0, "exponent-(p-1)|exponent-p", "the right side: 1 - <grad psi(W),U>/||W||_p^(p-1) (exponent-p: a wrong one)")
LM_PARAMS(PARAMS)

enum { K_GAUSS, K_SAME, K_OPP, K_NEAR, K_DISJOINT, K_ONE, K_TINY, NKIND };
static const char *const kind_name[NKIND] = {"gaussian",        "U = Wbar", "U = -Wbar",
                                             "U ~ Wbar",        "disjoint supports",
                                             "one-entry W",     "tiny entries"};

/* W and U_0 as doubles; returns the kind actually used (d = 1 has no disjoint support) */
static int gen(double *w, double *u, int n, int kind, double s, double h, lm_rng *g)
{
    if (kind == K_DISJOINT && n == 1) kind = K_OPP;
    int one = lm_rng_int(g, 0, n - 1);
    for (int k = 0; k < n; k++) {
        double a = lm_rng_normal(g), b = lm_rng_normal(g), r = lm_rng_uniform(g);
        switch (kind) {
        case K_GAUSS:
            w[k] = r < 0.2 ? 0.0 : s * a;
            u[k] = r > 0.8 ? 0.0 : b;
            break;
        case K_SAME: case K_OPP: w[k] = r < 0.2 ? 0.0 : s * a; u[k] = 0.0; break;
        case K_NEAR: w[k] = s * a; u[k] = w[k] * (1.0 + h * b); break;
        case K_DISJOINT:
            w[k] = k % 2 == 0 ? s * a : 0.0;
            u[k] = k % 2 == 1 ? b : 0.0;
            break;
        case K_ONE: w[k] = k == one ? s * a : 0.0; u[k] = b; break;
        default: /* K_TINY: magnitudes s 10^[-300,-3], the largest one s */
            w[k] = k == one ? s : (r < 0.1 ? 0.0 : lm_md_rsign(g) * s * lm_md_logu(g, -300.0, -3.0));
            u[k] = b;
            break;
        }
    }
    int nz = 0;
    for (int k = 0; k < n; k++) nz |= w[k] != 0.0;
    if (!nz) w[one] = s; /* W != 0 */
    if (kind != K_SAME && kind != K_OPP) {
        nz = 0;
        for (int k = 0; k < n; k++) nz |= u[k] != 0.0;
        if (!nz) u[n - 1] = 1.0;
    }
    return kind;
}

/* record a <= b (1 + reltol) in the runner's context, both formed in the working precision */
static void obs(lm_eval *ev, const lm_num *a, const lm_num *b, double reltol, const char *what,
                const char *kind, int d, int bits)
{
    lm_num x, y;
    lm_num_inits(ev->ctx, &x, &y, (lm_num *)NULL);
    lm_num_set(&x, a);
    lm_num_set(&y, b);
    lm_obs_le(ev, -1, &x, &y, reltol, "%s (%s, d=%d, %d bits)", what, kind, d, bits);
    lm_num_clears(&x, &y, (lm_num *)NULL);
}

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    double p = PS[ev->config];
    int formula = lm_int(P.formula);
    double tol_scale = P.tol_scale;
    lm_rng *g = lm_eval_rng(ev);
    int kind, d, tier;
    double s = lm_md_logu(g, -6.0, 6.0), h = lm_md_logu(g, -12.0, -2.0);
    lm_md_ident_plan(ev, NKIND, K_NEAR, &kind, &d, &tier);
    if (ev->x) {
        s = pow(10.0, 3.0 * fmax(-4.0, fmin(4.0, ev->x[0])));
        h = pow(10.0, fmax(-16.0, fmin(1.0, 2.0 * ev->x[1] - 3.0)));
    }
    int n = d * d;
    double w[100], u0[100];
    kind = gen(w, u0, n, kind, s, h, g);
    lm_ctx cw = lm_md_work_ctx(ev, tier);
    const lm_ctx *c = &cw;
    int bits = lm_md_ctx_bits(c);
    lm_mat *W = lm_mat_new(d, d, c), *U = lm_mat_new(d, d, c), *G = lm_mat_new(d, d, c);
    lm_num lhs, rhs, nw, x, y, e;
    lm_num_inits(c, &lhs, &rhs, &nw, &x, &y, &e, (lm_num *)NULL);
    lm_mat_set_array(W, w);
    lm_md_pnorm(&nw, W, p);
    if (kind == K_SAME || kind == K_OPP) { /* U = +-W / ||W||_p */
        lm_num_set_d(&x, kind == K_SAME ? 1.0 : -1.0);
        lm_num_div(&x, &x, &nw);
        lm_mat_scale(U, W, &x);
    } else {
        lm_mat_set_array(U, u0);
        lm_md_pnorm(&x, U, p);
        lm_num_set_d(&y, 1.0);
        lm_num_div(&x, &y, &x);
        lm_mat_scale(U, U, &x);
    }
    /* left: D_psi(U/||U||_p, W/||W||_p) */
    lm_md_dir_bregman(&lhs, U, W, p);
    /* right: 1 - <grad psi(W), U> / ||W||_p^(p-1) */
    lm_md_grad_psi(G, W, p);
    lm_mat_dot(&x, G, U);
    lm_num_set_d(&e, formula == 1 ? p : p - 1.0);
    lm_num_pow(&y, &nw, &e);
    lm_num_div(&x, &x, &y);
    lm_num_d_sub(&rhs, 1.0, &x);
    if (!lm_num_isfinite(&lhs) || !lm_num_isfinite(&rhs)) {
        int rc = lm_fail(ev, "non-finite directional Bregman divergence (p=%g, %s)", p, kind_name[kind]);
        lm_num_clears(&lhs, &rhs, &nw, &x, &y, &e, (lm_num *)NULL);
        lm_mat_free(W); lm_mat_free(U); lm_mat_free(G);
        return rc;
    }
    double uu = lm_ctx_eps(c);
    double tau = tol_scale * 4.0 * (p + 2.0) * (n + 8) * uu;
    lm_num_set_d(&y, tau);
    /* the identity */
    lm_num_sub(&x, &lhs, &rhs);
    lm_num_abs(&x, &x);
    obs(ev, &x, &y, 0.0, "|D(U,Wbar) - (1 - <grad psi(W),U>/||W||^(p-1))|", kind_name[kind], d, bits);
    double res = lm_num_get_d(&x);
    /* the range [0, 2] */
    lm_num_neg(&x, &lhs);
    obs(ev, &x, &y, 0.0, "-D(U,Wbar) (nonnegativity)", kind_name[kind], d, bits);
    lm_num_set_d(&x, 2.0);
    obs(ev, &lhs, &x, tau, "D(U,Wbar) <= 2", kind_name[kind], d, bits);
    /* exact values of the special kinds */
    double exact = kind == K_SAME ? 0.0 : kind == K_OPP ? 2.0 : kind == K_DISJOINT ? 1.0 : -1.0;
    if (exact >= 0.0) {
        lm_num_add_d(&x, &rhs, -exact);
        lm_num_abs(&x, &x);
        obs(ev, &x, &y, 0.0, "|1 - <grad psi(W),U>/||W||^(p-1) - exact value|", kind_name[kind], d,
            bits);
        lm_num_add_d(&x, &lhs, -exact);
        lm_num_abs(&x, &x);
        obs(ev, &x, &y, 0.0, "|D(U,Wbar) - exact value|", kind_name[kind], d, bits);
    }
    lm_measure(ev, "working precision (bits)", bits);
    lm_measure(ev, "d", d);
    lm_measure(ev, "kind", kind);
    lm_measure(ev, "D(U, Wbar)", lm_num_get_d(&lhs));
    lm_measure(ev, "log10 ||W||_p", lm_num_log_abs_d(&nw) / M_LN10);
    lm_measure(ev, "residual / u", res / uu);
    lm_measure(ev, "tolerance tau", tau);
    lm_num_clears(&lhs, &rhs, &nw, &x, &y, &e, (lm_num *)NULL);
    lm_mat_free(W); lm_mat_free(U); lm_mat_free(G);
    return 0;
}

LM_CLAIM(claim_mirror_identity_dirbreg) = {
    .kind = LM_KIND_IDENTITY,
    .source = "proof of Lemma 28 (Appendix A.5); catalogue 1.4",
    .origin = "reconstructed",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 1.0,
    .search_dim = 2,
    .eval = eval,
};
