/* lemmas/mirror/lemma26.c
 *
 * \claim{mirror/lemma26}{Bregman ``cosine law'' (three-point identity)}
 * \source{mirror-descent-attention, Lemma 26 (Appendix A.5; stated without proof, from
 *   Azizan \& Hassibi 2018 and Sun et al.\ 2022)}
 * \statement{For any $W,V,U$ of equal shape:
 *   $D_\psi(W,V)=D_\psi(W,U)+D_\psi(U,V)-\langle\nabla\psi(V)-\nabla\psi(U),W-U\rangle$.}
 * \check{One configuration per $p\in\{1.01,1.05,1.5,2,3,6,20\}$.  An instance is a triple
 *   $W,V,U\in\mathbb R^{d\times d}$, $d\in\{10,2,1\}$, drawn as doubles from one of seven
 *   kinds that cycle with the index: Gaussian with exact zeros at a common scale; a separate
 *   scale $10^{[-8,8]}$ for each of $W$, $V$, $U$; entries of magnitude $10^{[-8,8]}$ with
 *   random signs; $U=W$ and $U=V$ (the degenerate cases); $W\approx U\approx V$ (relative
 *   distance $10^{[-12,-2]}$); and sparse triples.  Random instances are evaluated in IEEE
 *   double, MPFR 128 or MPFR 256 bits in turn (never below the runner's precision; the measure
 *   ``working precision'' names it).  The
 *   divergences are the closed sums of the core (\texttt{lm\_md\_bregman}), the gradients
 *   $\mathrm{sgn}(\cdot)|\cdot|^{p-1}$ (\texttt{lm\_md\_grad\_psi}).  Terms reach
 *   $10^{8p}$ while the residual should vanish, so the residual is taken relative to the
 *   scale of every term, $S=\sum_{ab}\big[|W_{ab}|^p+|U_{ab}|^p+|V_{ab}|^p
 *   +(|V_{ab}|^{p-1}+|U_{ab}|^{p-1})(|W_{ab}|+|U_{ab}|+|V_{ab}|)\big]$, and must be at most
 *   $\tau=4(n+8)u$, $n=d^2$, $u$ the unit roundoff of the working precision.  The adversarial
 *   search (three coordinates: the scales $10^{2x_k}$ of $W$, $U$, $V$ on a random
 *   $2\times2$ triple) maximises the residual ratio.  \texttt{tol\_scale} multiplies $\tau$;
 *   \texttt{formula}$=$plus adds the inner product instead of subtracting it, which must be
 *   caught.  Readings: every configuration is a \texttt{paper} reading (the statement as the catalogue reconstructs it).}
 */
#include "lm_mdclaim.h"
#include <math.h>
#include <stdio.h>

static const char *const configs[] = {"p=1.01", "p=1.05", "p=1.5", "p=2", "p=3", "p=6", "p=20", NULL};
/* one reading per configuration (issue 16) */
static const lm_reading readings[] = {
    {LM_READ_PAPER, "p = 1.01, next to the p -> 1 limit: residual of the three-point identity over "
                    "the seven triple kinds, gradients near sign(.).", NULL},
    {LM_READ_PAPER, "p = 1.05, just above 1: residual of the three-point identity over the seven "
                    "triple kinds, gradients close to sign(.).", NULL},
    {LM_READ_PAPER, "p = 1.5, an interior exponent below 2: residual of the three-point identity "
                    "over the seven triple kinds, including the W ~ U ~ V near-coincident triples.",
     NULL},
    {LM_READ_PAPER, "p = 2, the Euclidean potential: residual of the three-point identity over the "
                    "seven triple kinds, where the identity is the Euclidean cosine law.", NULL},
    {LM_READ_PAPER, "p = 3, the paper's largest experimental exponent: residual of the three-point "
                    "identity over the seven triple kinds, including the U = W and U = V "
                    "degenerate cases.", NULL},
    {LM_READ_PAPER, "p = 6, a large exponent: residual of the three-point identity over the seven "
                    "triple kinds, terms up to 1e48 against a vanishing residual.", NULL},
    {LM_READ_PAPER, "p = 20, the extreme exponent: residual of the three-point identity over the "
                    "seven triple kinds, terms reach 1e160 while the residual must vanish.", NULL},
    LM_READINGS_END};

static const double PS[] = {1.01, 1.05, 1.5, 2.0, 3.0, 6.0, 20.0};

#define PARAMS(NUM, SWITCH)                                                                    \
    NUM(tol_scale, 1.0, "[0, inf)", "multiplies the rounding tolerance 4(n+8)u")               \
    SWITCH(formula, 0, "minus|plus", "sign of the inner-product term (plus: a wrong formula)")
LM_PARAMS(PARAMS)

enum { K_GAUSS, K_SCALES, K_WIDE, K_U_IS_W, K_U_IS_V, K_NEAR, K_SPARSE, NKIND };
static const char *const kind_name[NKIND] = {"gaussian with zeros", "separate scales",
                                             "entries 1e-8..1e8",   "U = W",
                                             "U = V",               "W ~ U ~ V",
                                             "sparse"};

static void gen(double *w, double *v, double *u, int n, int kind, lm_rng *g)
{
    double s = lm_md_logu(g, -3.0, 3.0), h = lm_md_logu(g, -12.0, -2.0);
    double sw = lm_md_logu(g, -8.0, 8.0), sv = lm_md_logu(g, -8.0, 8.0), su = lm_md_logu(g, -8.0, 8.0);
    for (int k = 0; k < n; k++) {
        double a = lm_rng_normal(g), b = lm_rng_normal(g), e = lm_rng_normal(g), r = lm_rng_uniform(g);
        switch (kind) {
        case K_GAUSS:
            w[k] = r < 0.15 ? 0.0 : s * a;
            v[k] = r > 0.85 ? 0.0 : s * b;
            u[k] = (r > 0.4 && r < 0.55) ? 0.0 : s * e;
            break;
        case K_SCALES: w[k] = sw * a; v[k] = sv * b; u[k] = su * e; break;
        case K_WIDE:
            w[k] = lm_md_rsign(g) * lm_md_logu(g, -8.0, 8.0);
            v[k] = lm_md_rsign(g) * lm_md_logu(g, -8.0, 8.0);
            u[k] = lm_md_rsign(g) * lm_md_logu(g, -8.0, 8.0);
            break;
        case K_U_IS_W: w[k] = u[k] = s * a; v[k] = s * b; break;
        case K_U_IS_V: w[k] = s * a; v[k] = u[k] = s * b; break;
        case K_NEAR: v[k] = s * a; w[k] = v[k] * (1.0 + h * b); u[k] = v[k] * (1.0 + h * e); break;
        default: /* K_SPARSE */
            w[k] = r < 0.5 ? 0.0 : s * a;
            v[k] = (r > 0.3 && r < 0.8) ? 0.0 : s * b;
            u[k] = r > 0.6 ? 0.0 : s * e;
            break;
        }
    }
    int nz = 0;
    for (int k = 0; k < n; k++) nz |= w[k] != 0.0 || v[k] != 0.0 || u[k] != 0.0;
    if (!nz) w[0] = 1.0; /* S > 0 */
}

/* S = sum |w|^p + |u|^p + |v|^p + (|v|^(p-1) + |u|^(p-1)) (|w| + |u| + |v|) */
static void term_scale(lm_num *S, const lm_mat *W, const lm_mat *V, const lm_mat *U, double p,
                       const lm_ctx *c)
{
    lm_num e, em1, w, v, u, a, b;
    lm_num_inits(c, &e, &em1, &w, &v, &u, &a, &b, (lm_num *)NULL);
    lm_num_set_d(&e, p);
    lm_num_add_d(&em1, &e, -1.0);
    lm_num_set_d(S, 0.0);
    for (int i = 0; i < W->r; i++)
        for (int j = 0; j < W->c; j++) {
            lm_mat_get(&w, W, i, j);
            lm_mat_get(&v, V, i, j);
            lm_mat_get(&u, U, i, j);
            lm_num_abs(&w, &w);
            lm_num_abs(&v, &v);
            lm_num_abs(&u, &u);
            lm_num_pow(&a, &w, &e);
            lm_num_add(S, S, &a);
            lm_num_pow(&a, &v, &e);
            lm_num_add(S, S, &a);
            lm_num_pow(&a, &u, &e);
            lm_num_add(S, S, &a);
            lm_num_add(&b, &w, &u);
            lm_num_add(&b, &b, &v);
            lm_num_pow(&a, &v, &em1);
            lm_num_fma(S, &a, &b, S);
            lm_num_pow(&a, &u, &em1);
            lm_num_fma(S, &a, &b, S);
        }
    lm_num_clears(&e, &em1, &w, &v, &u, &a, &b, (lm_num *)NULL);
}

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    double p = PS[ev->config];
    int plus = lm_int(P.formula) == 1;
    double tol_scale = P.tol_scale;
    lm_rng *g = lm_eval_rng(ev);
    int kind, d, tier;
    lm_md_ident_plan(ev, NKIND, K_GAUSS, &kind, &d, &tier);
    int n = d * d;
    double w[100], v[100], u[100];
    gen(w, v, u, n, kind, g);
    if (ev->x) { /* scales 10^(2 x_k) of W, U, V */
        double s[3];
        for (int k = 0; k < 3; k++) s[k] = pow(10.0, 2.0 * fmax(-3.0, fmin(3.0, ev->x[k])));
        for (int k = 0; k < n; k++) {
            w[k] *= s[0];
            u[k] *= s[1];
            v[k] *= s[2];
        }
    }
    lm_ctx cw = lm_md_work_ctx(ev, tier);
    const lm_ctx *c = &cw;
    int bits = lm_md_ctx_bits(c);
    lm_mat *W = lm_mat_new(d, d, c), *V = lm_mat_new(d, d, c), *U = lm_mat_new(d, d, c);
    lm_mat *G1 = lm_mat_new(d, d, c), *G2 = lm_mat_new(d, d, c);
    lm_mat_set_array(W, w);
    lm_mat_set_array(V, v);
    lm_mat_set_array(U, u);
    lm_num dwv, dwu, duv, ip, S, x, y;
    lm_num_inits(c, &dwv, &dwu, &duv, &ip, &S, &x, &y, (lm_num *)NULL);
    lm_md_bregman(&dwv, W, V, p);
    lm_md_bregman(&dwu, W, U, p);
    lm_md_bregman(&duv, U, V, p);
    lm_md_grad_psi(G1, V, p);
    lm_md_grad_psi(G2, U, p);
    lm_mat_sub(G1, G1, G2); /* grad psi(V) - grad psi(U) */
    lm_mat_sub(G2, W, U);   /* W - U */
    lm_mat_dot(&ip, G1, G2);
    term_scale(&S, W, V, U, p, c);
    int rc = 0;
    if (!lm_num_isfinite(&dwv) || !lm_num_isfinite(&dwu) || !lm_num_isfinite(&duv) ||
        !lm_num_isfinite(&ip) || !lm_num_isfinite(&S) || lm_num_sgn(&S) <= 0) {
        rc = lm_fail(ev, "non-finite terms (p=%g, %s)", p, kind_name[kind]);
        goto out;
    }
    /* residual D(W,V) - [D(W,U) + D(U,V) -+ <grad psi(V) - grad psi(U), W - U>] */
    lm_num_add(&x, &dwu, &duv);
    if (plus) lm_num_add(&x, &x, &ip);
    else lm_num_sub(&x, &x, &ip);
    lm_num_sub(&x, &dwv, &x);
    lm_num_abs(&x, &x);
    lm_num_div(&x, &x, &S);
    double uu = lm_ctx_eps(c);
    double tau = tol_scale * 4.0 * (n + 8) * uu;
    {
        lm_num a, b;
        lm_num_inits(ev->ctx, &a, &b, (lm_num *)NULL);
        lm_num_set(&a, &x);
        lm_num_set_d(&b, tau);
        lm_obs_le(ev, -1, &a, &b, 0.0, "|three-point residual| / S (%s, d=%d, %d bits)", kind_name[kind],
                  d, bits);
        lm_num_clears(&a, &b, (lm_num *)NULL);
    }
    lm_measure(ev, "working precision (bits)", bits);
    lm_measure(ev, "d", d);
    lm_measure(ev, "kind", kind);
    lm_measure(ev, "|residual| / (S u)", lm_num_get_d(&x) / uu);
    lm_measure(ev, "log10 S", lm_num_log_abs_d(&S) / M_LN10);
    lm_num_div(&y, &dwv, &S);
    lm_measure(ev, "D(W,V) / S", lm_num_get_d(&y));
    lm_measure(ev, "tolerance tau", tau);
out:
    lm_num_clears(&dwv, &dwu, &duv, &ip, &S, &x, &y, (lm_num *)NULL);
    lm_mat_free(W); lm_mat_free(V); lm_mat_free(U); lm_mat_free(G1); lm_mat_free(G2);
    return rc;
}

LM_CLAIM(claim_mirror_lemma26) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Lemma 26, Appendix A.5 (Azizan & Hassibi 2018; Sun et al. 2022)",
    .origin = "reconstructed",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 1.0,
    .search_dim = 3,
    .eval = eval,
};
