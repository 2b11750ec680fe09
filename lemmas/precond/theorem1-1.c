/* lemmas/precond/theorem1-1.c
 *
 * \claim{precond/theorem1.1}{Closed form of the population loss}
 * \source{preconditioned-softmax-regression, Theorem 1.1 (Section 3)}
 * \statement{For all $\theta$, $L(\theta)=\mathbb E_{x,\varepsilon}\big\|W_\star x+\varepsilon-W_V
 *   \frac{\mathbb E_{x'}[x'e^{x'^\top W_{KQ}x}]}{\mathbb E_{x'}[e^{x'^\top W_{KQ}x}]}\big\|^2
 *   =\|(W_V\Sigma W_{KQ}-W_\star)\Sigma^{1/2}\|_F^2+L_0$ with $L_0=k\sigma^2$.  The proof uses the
 *   completion-of-squares identities $\mathbb E_{x'}e^{x'^\top a}=e^{a^\top\Sigma a/2}$ and
 *   $\mathbb E_{x'}x'e^{x'^\top a}=\Sigma a\,e^{a^\top\Sigma a/2}$ with $a=W_{KQ}x$, so the population predictor is
 *   $W_V\Sigma W_{KQ}x$.}
 * \check{Three configurations.  \texttt{per-x-quadrature} (part (i), an identity under the
 *   identity policy): $d\in\{1,2\}$, $\Sigma$ from the S1 families; $a=\Sigma^{-1/2}$-scaled so that
 *   $s=a^\top\Sigma a$ is uniform in $[0,20]$ (drawn as doubles, the same in every precision).  With
 *   $x'=L_\Sigma\xi$, $\xi\sim\mathcal N(0,I_d)$, both inner expectations are computed by the tensor
 *   Gauss--Hermite rule (Golub--Welsch: nodes as eigenvalues of the Jacobi matrix by the symmetric
 *   eigensolver in double, then refined by Newton on the orthonormal Hermite recurrence to the
 *   precision of the tier, weights $1/(n\,h_{n-1}(t)^2)$; the MPFR eigensolver itself took 36~s per
 *   instance at 150 nodes), literally summing over all $n^d$ grid points, in the
 *   log domain: $\log\sum_{\rm grid}w\,e^{\xi^\top L^\top a}$ against $s/2$ (absolute log residual,
 *   i.e.\ relative) and $\sum w\,x'e^{\xi^\top L^\top a-s/2}$ against $\Sigma a$ (relative to
 *   $\|L_\Sigma\|_F(1+\sqrt s)$).  Nodes: $n=50$ in double, 80 in MPFR-128, 120 in MPFR-256, enough
 *   that the quadrature error ($\approx n!\,|b|^{2n}e^{|b|^2}/(2n)!$, $|b|^2=s\le20$) is below $u_p$;
 *   residual $\le\texttt{tol\_scale}\cdot16\,nd(1+s)\,u_p$ in each precision and shrinking from
 *   double to MPFR-256 (the catalogue's $10^{-25}$ is far above these tolerances).
 *   \texttt{full-MC-isotropic} and \texttt{full-MC-nonisotropic} (part (ii)): $d\in\{2,3\}$, $k\in[d,d+2]$,
 *   $\Sigma=I$ resp.\ $GG^\top/d+cI$ ($c\in\{0.3,0.5,1\}$), $\tau\in\{0.1,1\}$, $\sigma=0.1$, $\theta$ entries
 *   $\mathcal N(0,s_\theta^2)$ with $s_\theta\in[0.2,0.5]$ (a reduced stand-in for the catalogue's
 *   Nelder--Mead search over $\theta$, part (iii), which we do not run).  The definition (2) is
 *   estimated by nested Monte Carlo: \texttt{outer}$=4000$ outer samples $(x,\varepsilon)$ (the
 *   catalogue's $10^6$ is out of the time budget) and the inner ratio by the tensor Gauss--Hermite
 *   rule with \texttt{inner\_nodes}$=24$ nodes per dimension (doubled up to $32\times$ when $|b_r|$ is
 *   large: the smallest rule with $2.3b_r^2\le n$, so that the one-dimensional error
 *   $\approx(eb_r^2/4n)^n$ stays below $10^{-12}$; 24 nodes alone under-estimated $L$ by 8\% on an
 *   instance with $|b|=14.6$), evaluated through the separability of
 *   $e^{\xi^\top b}$ over the coordinates of $\xi$ (the same tensor sum, $O(nd)$ instead of $O(n^d)$); the
 *   ratio is then $L_\Sigma(S_1^{(r)}/S_0^{(r)})_r$ with one-dimensional sums.  Observed:
 *   $|L_{\rm MC}-L_{\rm closed}|\le z\,{\rm SE}$ with $z=$\texttt{z}$=5$, the catalogue's own failure
 *   threshold (part (iii)); we first used 4.5, but one instance in 40 deviated by 4.44 SE from the
 *   sampling alone (the same samples with the exact predictor $W_V\Sigma W_{KQ}x$ deviate identically),
 *   so the tail of the estimate at $M=4000$ is heavier than the normal one;
 *   computed in the working precision (an MPFR replay recomputes the same samples).  Measured:
 *   $|L_{\rm MC}-L_{\rm closed}|/{\rm SE}$, ${\rm SE}/L$, and the largest inner $|b|$.  The switch
 *   \texttt{formula}$=$\texttt{drop-Sigma} drops a $\Sigma$ factor ($e^{a^\top a/2}$ in (i),
 *   $\|(W_VW_{KQ}-W_\star)\Sigma^{1/2}\|_F^2$ in (ii)): invisible when $\Sigma=I$ (that configuration keeps
 *   holding), it must come out violated on the non-isotropic ones.}
 */
#include "lm_pcst.h"
#include <math.h>

static const char *const configs[] = {"per-x-quadrature", "full-MC-isotropic", "full-MC-nonisotropic", NULL};
#define PARAMS(NUM, SWITCH)                                                                                                                                                                                                         \
    NUM(tol_scale, 1.0, "[0, 1e6]", "multiplies the tolerance 16 n d (1 + s) u_p of part (i)")                                                                                                                                      \
    SWITCH(formula, 0, "stated|drop-Sigma", "stated closed form, or drop-Sigma: a Sigma factor dropped")                                                                                                                            \
    NUM(outer, 4000, "int [2, 200000]", "part (ii): outer Monte Carlo samples (x, eps) (at least 2 for a standard error; at most 200000: run length bound)")                                                                        \
    NUM(inner_nodes, 24, "int [23, 200]", "part (ii): Gauss-Hermite nodes per dimension of the inner ratio (rules n, 2n, .., 32n; at least 23: the smallest rule's error (e/9.2)^n is below 1e-12; at most 200: run length bound)") \
    NUM(z, 5.0, "setting [0, 100]", "part (ii): |L_MC - L_closed| <= z SE (the catalogue's failure threshold)")
LM_PARAMS(PARAMS)

#define RULES 6

static int nodes_for(int bits)
{
    return bits <= 53 ? 50 : (bits <= 128 ? 80 : 120);
}

/* part (i): one tier */
static int quad_tier(lm_pcst_id *S, int t, const lm_pcdata *P0, const double *a0, int wrong)
{
    const lm_ctx *c = &S->tiers[t];
    lm_pcdata *P = lm_pc_convert(P0, c);
    int d = P->d, n = nodes_for(lm_pcst_bits(c)), rc = 0;
    lm_num *tn = lm_nums_new(n, c), *wn = lm_nums_new(n, c), *lw = lm_nums_new(n, c);
    lm_num a[2], b[2], Sa[2], q1[2], s, x, y, lse, mx, e, sc;
    lm_num_inits(c, &s, &x, &y, &lse, &mx, &e, &sc, (lm_num *)NULL);
    for (int r = 0; r < 2; r++) {
        lm_num_inits(c, &a[r], &b[r], &Sa[r], &q1[r], (lm_num *)NULL);
        lm_num_set_d(&a[r], r < d ? a0[r] : 0.0);
    }
    if (lm_pcst_gauss_hermite(tn, wn, n, c)) {
        rc = 1;
        goto out;
    }
    for (int i = 0; i < n; i++) lm_num_log(&lw[i], &wn[i]);
    /* s = a' Sigma a (or a' a for the wrong formula), b = L' a, Sigma a */
    lm_num_set_d(&s, 0.0);
    for (int r = 0; r < d; r++) {
        lm_num_set_d(&b[r], 0.0);
        lm_num_set_d(&Sa[r], 0.0);
        for (int q = 0; q < d; q++) {
            lm_mat_get(&x, P->Lc, q, r);
            lm_num_fma(&b[r], &x, &a[q], &b[r]);
            lm_mat_get(&x, P->Sig, r, q);
            lm_num_fma(&Sa[r], &x, &a[q], &Sa[r]);
        }
        lm_num_fma(&s, &a[r], wrong ? &a[r] : &Sa[r], &s);
    }
    /* Sigma = L L' exactly only for the double Cholesky factor: use LL' as Sigma here so the
     * identity is exact in every tier (Lc holds the double Cholesky factor) */
    if (!wrong) {
        lm_num_set_d(&s, 0.0);
        for (int r = 0; r < d; r++) lm_num_fma(&s, &b[r], &b[r], &s);
        for (int r = 0; r < d; r++) {
            lm_num_set_d(&Sa[r], 0.0);
            for (int q = 0; q < d; q++) {
                lm_mat_get(&x, P->Lc, r, q);
                lm_num_fma(&Sa[r], &x, &b[q], &Sa[r]);
            }
        }
    }
    /* log-sum-exp over the tensor grid of log w + xi' b; max exponent first */
    int np = d == 1 ? n : n * n;
    lm_num_set_d(&mx, -1e300);
    for (int p = 0; p < np; p++) {
        int i = p % n, j = p / n;
        lm_num_mul(&x, &tn[i], &b[0]);
        lm_num_add(&x, &x, &lw[i]);
        if (d == 2) {
            lm_num_fma(&x, &tn[j], &b[1], &x);
            lm_num_add(&x, &x, &lw[j]);
        }
        lm_num_max(&mx, &mx, &x);
    }
    lm_num_set_d(&lse, 0.0);
    for (int r = 0; r < 2; r++) lm_num_set_d(&q1[r], 0.0);
    lm_num_mul_d(&y, &s, 0.5);
    for (int p = 0; p < np; p++) {
        int i = p % n, j = p / n;
        lm_num_mul(&x, &tn[i], &b[0]);
        lm_num_add(&x, &x, &lw[i]);
        if (d == 2) {
            lm_num_fma(&x, &tn[j], &b[1], &x);
            lm_num_add(&x, &x, &lw[j]);
        }
        lm_num_sub(&e, &x, &mx);
        lm_num_exp(&e, &e);
        lm_num_add(&lse, &lse, &e);
        /* w x' e^{xi'b - s/2}, x' = L xi */
        lm_num_sub(&e, &x, &y);
        lm_num_exp(&e, &e);
        for (int r = 0; r < d; r++) {
            lm_mat_get(&x, P->Lc, r, 0);
            lm_num_mul(&x, &x, &tn[i]);
            if (d == 2) {
                lm_mat_get(&sc, P->Lc, r, 1);
                lm_num_fma(&x, &sc, &tn[j], &x);
            }
            lm_num_fma(&q1[r], &x, &e, &q1[r]);
        }
    }
    lm_num_log(&lse, &lse);
    lm_num_add(&lse, &lse, &mx);
    /* the wrong formula compares with a' a / 2 */
    lm_num_set_d(&y, 0.0);
    if (wrong)
        for (int r = 0; r < d; r++) lm_num_fma(&y, &a[r], &a[r], &y);
    else
        lm_num_set(&y, &s);
    lm_num_mul_d(&y, &y, 0.5);
    lm_num_sub(&x, &lse, &y);
    lm_num_abs(&x, &x);
    double sd = lm_num_get_d(&s), K = 16.0 * n * d * (1.0 + sd);
    lm_num_set_d(&sc, 1.0);
    lm_pcst_id_rec(S, t, "(i) log E e^{x'a} = a' Sigma a / 2 (tensor Gauss-Hermite)", lm_pcst_rel(&x, &sc), K);
    /* E x' e^{x'a} e^{-s/2} = Sigma a (the wrong formula: s = a'a) */
    lm_num_set_d(&x, 0.0);
    for (int r = 0; r < d; r++) {
        lm_num_sub(&e, &q1[r], &Sa[r]);
        lm_num_fma(&x, &e, &e, &x);
    }
    lm_num_sqrt(&x, &x);
    lm_mat_frob(&sc, P->Lc);
    lm_num_sqrt(&y, &s);
    lm_num_add_d(&y, &y, 1.0);
    lm_num_mul(&sc, &sc, &y);
    lm_pcst_id_rec(S, t, "(i) E x' e^{x'a} = Sigma a e^{a' Sigma a/2} (tensor Gauss-Hermite)",
                   lm_pcst_rel(&x, &sc), K);
out:
    for (int r = 0; r < 2; r++) lm_num_clears(&a[r], &b[r], &Sa[r], &q1[r], (lm_num *)NULL);
    lm_num_clears(&s, &x, &y, &lse, &mx, &e, &sc, (lm_num *)NULL);
    lm_nums_free(tn, n);
    lm_nums_free(wn, n);
    lm_nums_free(lw, n);
    lm_pc_free(P);
    return rc;
}

static int eval_quad(lm_eval *ev, lm_rng *g)
{
    const lm_params prm = lm_params_of(ev);
    static const double taus[] = {0.1, 1.0};
    lm_pcst_spec sp;
    lm_pcst_spec_draw(&sp, ev->index % 4 == 3 ? LM_PCST_K1E2 : ev->index % 3, 2, taus, 2, g);
    lm_ctx cd = lm_ctx_double();
    lm_pcdata *P0 = lm_pcst_make(&sp, g, &cd);
    int d = P0->d;
    /* a with a' Sigma a = s uniform in [0, 20]: b = sqrt(s) u, a = L^-T b (in double) */
    double s = 20.0 * lm_rng_uniform(g), u[2] = {lm_rng_normal(g), lm_rng_normal(g)}, a[2] = {0, 0};
    if (d == 1) u[1] = 0.0;
    double nu = sqrt(u[0] * u[0] + u[1] * u[1]);
    double b0 = sqrt(s) * u[0] / nu, b1 = sqrt(s) * u[1] / nu;
    double L00 = lm_mat_get_d(P0->Lc, 0, 0);
    if (d == 1) a[0] = b0 / L00;
    else { /* L' a = b with L lower triangular: a1 = b1 / L11, a0 = (b0 - L10 a1) / L00 */
        double L10 = lm_mat_get_d(P0->Lc, 1, 0), L11 = lm_mat_get_d(P0->Lc, 1, 1);
        a[1] = b1 / L11;
        a[0] = (b0 - L10 * a[1]) / L00;
    }
    lm_pcst_id S;
    lm_pcst_id_init(&S, ev);
    int rc = 0, wrong = lm_int(prm.formula);
    for (int t = 0; t < S.nt && !rc; t++)
        if (quad_tier(&S, t, P0, a, wrong)) rc = lm_fail(ev, "Golub-Welsch eigensolver failed");
    if (!rc) {
        lm_pcst_id_finish(&S, ev, prm.tol_scale, "per-x quadrature");
        lm_measure(ev, "s = a' Sigma a", s);
        lm_measure(ev, "d", d);
    }
    lm_pc_free(P0);
    return rc;
}

/* part (ii) */
static int eval_mc(lm_eval *ev, lm_rng *g)
{
    const lm_params prm = lm_params_of(ev);
    static const double taus[] = {0.1, 1.0};
    lm_pcst_spec sp;
    lm_pcst_spec_draw(&sp, ev->index % 3, 3, taus, 2, g);
    sp.d = 2 + ev->index % 2;
    if (sp.k < sp.d) sp.k = sp.d;
    const lm_ctx *c = ev->ctx;
    lm_ctx cd = lm_ctx_double();
    lm_pcdata *P0 = lm_pcst_make(&sp, g, &cd);
    if (ev->config == 1) { /* Sigma = I: the same W* rescaled to s_1 = tau */
        lm_mat_set_identity(P0->Sig);
        lm_pc_prepare(P0);
        double s1 = lm_num_get_d(&P0->s[0]);
        lm_mat_scale_d(P0->Ws, P0->Ws, sp.tau / s1);
        lm_pc_prepare(P0);
    }
    lm_pcdata *P = lm_pc_convert(P0, c);
    int d = P->d, k = P->k, M = lm_int(prm.outer), n = lm_int(prm.inner_nodes);
    int wrong = lm_int(prm.formula), rc = 0;
    double sth = 0.2 + 0.3 * lm_rng_uniform(g);
    lm_pcth th = lm_pc_th_new(P);
    lm_pc_th_randn(&th, g, sth);
    lm_pcbatch bt = lm_pc_batch(P0, M, g);
    /* Gauss-Hermite rules n, 2n, 4n, ... (built on first use): the inner ratio at |b| uses the
     * smallest rule with 2.3 b^2 <= n_rule, where the 1-D error (e b^2 / 4n)^n is below 1e-12 */
    lm_num *tn[RULES] = {NULL}, *wn[RULES] = {NULL};
    int nr[RULES];
    for (int q = 0; q < RULES; q++) nr[q] = n << q;
    lm_mat *KL = lm_mat_new(d, d, c), *x = lm_mat_new(d, 1, c), *bv = lm_mat_new(d, 1, c),
           *r = lm_mat_new(d, 1, c), *m = lm_mat_new(d, 1, c), *yh = lm_mat_new(k, 1, c);
    lm_mat_mul(KL, P->Lc, 1, th.KQ, 0); /* b = L' W_KQ x */
    lm_mat *SK = lm_mat_new(d, d, c);
    lm_mat_mul(SK, P->Sig, 0, th.KQ, 0);
    lm_num v, e, s0, s1, mx, sum, sum2, tot, l;
    lm_num_inits(c, &v, &e, &s0, &s1, &mx, &sum, &sum2, &tot, &l, (lm_num *)NULL);
    lm_num_set_d(&sum, 0.0);
    lm_num_set_d(&sum2, 0.0);
    double bmax = 0.0, lmax = 0.0, lexact = 0.0;
    int gh_fail = 0, nmax = 0;
    for (int j = 0; j < M; j++) {
        for (int q = 0; q < d; q++) {
            lm_mat_get(&v, bt.X, j, q);
            lm_mat_set(x, q, 0, &v);
        }
        lm_mat_mul(bv, KL, 0, x, 0);
        for (int q = 0; q < d; q++) { /* S1/S0 along coordinate q, shifted by the max exponent */
            lm_num bq;
            lm_num_init(&bq, c);
            lm_mat_get(&bq, bv, q, 0);
            bmax = fmax(bmax, fabs(lm_num_get_d(&bq)));
            int ru = 0;
            while (ru < RULES - 1 && 2.3 * lm_num_get_d(&bq) * lm_num_get_d(&bq) > nr[ru]) ru++;
            if (!tn[ru]) {
                tn[ru] = lm_nums_new(nr[ru], c);
                wn[ru] = lm_nums_new(nr[ru], c);
                if (lm_pcst_gauss_hermite(tn[ru], wn[ru], nr[ru], c)) gh_fail = 1;
            }
            nmax = nr[ru] > nmax ? nr[ru] : nmax;
            const lm_num *T = tn[ru], *Wt = wn[ru];
            int nn = nr[ru];
            lm_num_set_d(&mx, -1e300);
            for (int i = 0; i < nn; i++) {
                lm_num_mul(&e, &T[i], &bq);
                lm_num_max(&mx, &mx, &e);
            }
            lm_num_set_d(&s0, 0.0);
            lm_num_set_d(&s1, 0.0);
            for (int i = 0; i < nn; i++) {
                lm_num_mul(&e, &T[i], &bq);
                lm_num_sub(&e, &e, &mx);
                lm_num_exp(&e, &e);
                lm_num_mul(&e, &e, &Wt[i]);
                lm_num_add(&s0, &s0, &e);
                lm_num_fma(&s1, &e, &T[i], &s1);
            }
            lm_num_div(&s1, &s1, &s0);
            lm_mat_set(r, q, 0, &s1);
            lm_num_clear(&bq);
        }
        lm_mat_mul(m, P->Lc, 0, r, 0);   /* the inner ratio E x' e / E e */
        lm_mat_mul(yh, th.V, 0, m, 0);
        lm_num_set_d(&l, 0.0);
        for (int i = 0; i < k; i++) {
            lm_mat_get(&v, bt.Y, j, i);
            lm_mat_get(&e, yh, i, 0);
            lm_num_sub(&v, &v, &e);
            lm_num_fma(&l, &v, &v, &l);
        }
        lm_num_add(&sum, &sum, &l);
        lm_num_fma(&sum2, &l, &l, &sum2);
        lmax = fmax(lmax, lm_num_get_d(&l));
        { /* the same sample with the closed-form predictor W_V Sigma W_KQ x (a diagnostic) */
            double lx = 0.0;
            lm_mat_mul(r, SK, 0, x, 0);
            lm_mat_mul(yh, th.V, 0, r, 0);
            for (int i = 0; i < k; i++) {
                double q = lm_mat_get_d(bt.Y, j, i) - lm_mat_get_d(yh, i, 0);
                lx += q * q;
            }
            lexact += lx;
        }
    }
    /* mean and SE */
    lm_num_div_d(&sum, &sum, (double)M);
    lm_num_div_d(&sum2, &sum2, (double)M);
    lm_num_mul(&v, &sum, &sum);
    lm_num_sub(&v, &sum2, &v);
    lm_num_mul_d(&v, &v, (double)M / (M - 1.0));
    lm_num_div_d(&v, &v, (double)M);
    lm_num_sqrt(&v, &v); /* SE */
    /* closed form: ||E Sigma^1/2||^2 + k sigma^2, or the wrong ||(W_V W_KQ - W*) Sigma^1/2||^2 */
    if (wrong) {
        lm_mat *E = lm_mat_new(k, d, c);
        lm_mat_mul(E, th.V, 0, th.KQ, 0);
        lm_mat_sub(E, E, P->Ws);
        lm_pc_excess_E(&tot, P, E);
        lm_mat_free(E);
    } else
        lm_pc_excess(&tot, P, &th);
    lm_num_add_d(&tot, &tot, k * P->sigma * P->sigma);
    lm_num_sub(&e, &sum, &tot);
    lm_num_abs(&e, &e);
    lm_num_mul_d(&l, &v, prm.z);
    if (gh_fail) rc = lm_fail(ev, "Gauss-Hermite rule failed");
    else if (!lm_num_isfinite(&sum) || !lm_num_isfinite(&v) || !lm_num_isfinite(&tot))
        rc = lm_fail(ev, "non-finite Monte Carlo estimate");
    else {
        lm_obs_le(ev, -1, &e, &l, 0.0, "(ii) |L_MC - L_closed| <= z SE (%s, d=%d, k=%d, M=%d, %d nodes)",
                  configs[ev->config], d, k, M, n);
        lm_measure(ev, "|L_MC - L_closed| / SE", lm_num_get_d(&e) / lm_num_get_d(&v));
        lm_measure(ev, "SE / L", lm_num_get_d(&v) / lm_num_get_d(&tot));
        lm_measure(ev, "max inner |b|", bmax);
        lm_measure(ev, "largest sample loss / L_closed", lmax / lm_num_get_d(&tot));
        lm_measure(ev, "L_MC / L_closed", lm_num_get_d(&sum) / lm_num_get_d(&tot));
        lm_measure(ev, "same samples, closed-form predictor: mean / L_closed", lexact / M / lm_num_get_d(&tot));
        lm_measure(ev, "theta entry scale", sth);
        lm_measure(ev, "largest inner rule (nodes)", nmax);
    }
    lm_num_clears(&v, &e, &s0, &s1, &mx, &sum, &sum2, &tot, &l, (lm_num *)NULL);
    lm_mat_free(SK);
    lm_mat_free(KL); lm_mat_free(x); lm_mat_free(bv); lm_mat_free(r); lm_mat_free(m); lm_mat_free(yh);
    for (int q = 0; q < RULES; q++)
        if (tn[q]) {
            lm_nums_free(tn[q], nr[q]);
            lm_nums_free(wn[q], nr[q]);
        }
    lm_pc_batch_free(&bt);
    lm_pc_th_free(&th);
    lm_pc_free(P);
    lm_pc_free(P0);
    return rc;
}

static int eval(lm_eval *ev)
{
    lm_rng *g = lm_eval_rng(ev);
    return ev->config == 0 ? eval_quad(ev, g) : eval_mc(ev, g);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "Part (i) per query: the Gauss-Hermite inner expectations of e^(x'^T a) and x' e^(x'^T a) "
     "equal e^(s/2) and Sigma a e^(s/2) for s in [0, 20], d in {1, 2}, in three precisions.",
     NULL},
    {LM_READ_PAPER,
     "Part (ii) with isotropic Sigma = I (d in {2, 3}): the nested-MC loss of definition (2) must "
     "match the closed form ||(W_V Sigma W_KQ - W_star) Sigma^(1/2)||_F^2 + L_0 within 5 SE.",
     NULL},
    {LM_READ_PAPER,
     "Part (ii) with non-isotropic Sigma = G G^T/d + c I, c in {0.3, 0.5, 1}: the nested-MC loss "
     "of definition (2) must match the closed form within 5 SE.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_precond_theorem1_1) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Theorem 1.1",
    .origin = "reconstructed",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.125,
    .eval = eval,
};
