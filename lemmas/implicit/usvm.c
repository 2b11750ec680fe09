/* lemmas/implicit/usvm.c
 *
 * \claim{implicit/usvm}{u-SVM: existence, optimality and the max-margin property of $u_{mm}$}
 * \source{implicit-bias-self-attention, Section 4.2 (u-SVM); max-margin property as stated
 *   in the catalogue (implicit/usvm)}
 * \statement{$u_{mm}=\arg\min_u\|u\|$ subject to $y_iu^\top x_{i,\mathrm{opt}_i}\ge1$ for all
 *   $i\in[n]$; it is feasible w.h.p.\ under DM.  Max-margin property: for every $u\ne0$,
 *   $\min_iy_iu^\top x_{i,\mathrm{opt}_i}/\|u\|\le1/\|u_{mm}\|$, with equality at
 *   $u=u_{mm}$.}
 * \check{Configuration \texttt{dm}: the catalogue's data model DM with $T=2$,
 *   $n\in\{2,\dots,8\}$, $d\in\{8,\dots,40\}$, $\sigma=d^{-1/2}$, $\zeta=1.5$:
 *   $x_{i,\mathrm{opt}_i}\sim\mathcal N(0,\zeta^2\sigma^2I_d)$, the other token
 *   $\mathcal N(0,\sigma^2I_d)$, $y_i=\mathrm{sign}(u_\star^\top x_{i,\mathrm{opt}_i})$ with
 *   $u_\star\sim\mathcal N(0,I_d)$, $\mathrm{opt}_i$ uniform in $\{1,2\}$.  Configuration
 *   \texttt{gaussian}: $n\in\{2,\dots,6\}$, $T\in\{2,3,4\}$, $d\in\{8,\dots,40\}$, tokens
 *   $\mathcal N(0,I_d/d)$, random labels, decoder $u=\beta e_1$ ($\beta=$ \texttt{beta}) and
 *   $\mathrm{opt}_i=\arg\max_ty_iu^\top x_{it}$ (a tie fails the assumptions).  Since
 *   $n\le d$ the optimal tokens are linearly independent and the u-SVM is feasible.  It is
 *   solved by Hildreth's dual coordinate ascent on $Q^u_{ij}=y_iy_jx_{i,\mathrm{opt}}^\top
 *   x_{j,\mathrm{opt}}$ in double and polished in the running precision by the active-set
 *   solve $Q_{SS}\alpha_S=\mathbf 1$ (required in MPFR).  With $\epsilon=2^{-p}$ the unit
 *   roundoff and $\delta=$ \texttt{tol\_scale}$\cdot2^{20}\epsilon$: (1) the KKT
 *   certificate ($|\min_i(Q\alpha)_i-1|$, $\max(0,-\min\alpha)$, complementary slackness,
 *   $|\alpha^\top Q\alpha-\mathbf 1^\top\alpha|$) is below $\delta(1+\mathbf 1^\top\alpha
 *   \max|Q|)$; (2) the explicit vector $u_{mm}=\sum_iy_i\alpha_ix_{i,\mathrm{opt}}$ has
 *   $\|u_{mm}\|^2=\alpha^\top Q\alpha$ to relative $\delta$; (3) attainment: the claimed
 *   largest margin $\gamma^\star=$ \texttt{margin\_scale}$/\|u_{mm}\|$ is at most the margin
 *   of $\bar u_{mm}$; (4) for $u=u_{mm}+\varepsilon g$ with $\varepsilon$ log-spaced in
 *   $[10^{-6},10]$, $g$ alternately Gaussian in $\mathbb R^d$ and a Gaussian combination of
 *   the optimal tokens, and one pure Gaussian $u$, the margin of $\bar u$ is at most
 *   $\gamma^\star(1+\delta)$; the adversarial search maximises the same ratio over
 *   $u=u_{mm}+\sum_kx_kb_k$ with fixed random $b_k$.  All margins and norms are computed
 *   in the running precision.  (5) Projected supergradient ascent (double, on the unit
 *   sphere of the span of the optimal tokens, \texttt{ascent\_iters} steps) maximises the
 *   margin of $\bar u$; its best iterate, evaluated in the running precision, must have
 *   margin at most $\gamma^\star(1+\delta)$ (figure: the ascent against $\gamma^\star$).
 *   \texttt{margin\_scale}$>1$ breaks (3), \texttt{margin\_scale}$<1$ breaks (4) and (5).}
 */
#include "lm_claim.h"
#include "lm_svm.h"
#include <math.h>
#include <stdlib.h>

static const char *const configs[] = {"dm", "gaussian", NULL};

#define PARAMS(NUM, SWITCH)                                                                                                              \
    NUM(margin_scale, 1.0, "[0, 1e6]", "claimed max margin = margin_scale / ||u_mm||")                                                   \
    NUM(tol_scale, 1.0, "[0, 1e6]", "residual tolerance = tol_scale * 2^20 * unit roundoff")                                             \
    NUM(beta, 3.0, "[-1e6, 1e6]", "decoder u = beta e_1 (gaussian configuration)")                                                       \
    NUM(zeta, 1.5, "(0, 1e3]", "DM: std ratio of optimal to other token")                                                                \
    NUM(ascent_iters, 2000, "int [1, 20000]", "projected supergradient ascent iterations (quick: 200; at most 20000: run length bound)") \
    NUM(nperturb, 128, "int [1, 1280]", "random perturbations of u_mm per instance (quick: 16; at most 1280: run time bound)")
LM_PARAMS(PARAMS)

#define SEARCH_DIM 6

static lm_attn_data *make_instance(lm_rng *g, int config, double beta, double zeta,
                                const lm_ctx *ctx)
{
    int dm = config == 0;
    int n = lm_rng_int(g, 2, dm ? 8 : 6), T = dm ? 2 : lm_rng_int(g, 2, 4);
    int d = lm_rng_int(g, 8, 40);
    double sd = 1.0 / sqrt((double)d);
    lm_attn_data *D = lm_attn_data_new(n, T, d, ctx);
    double *x = lm_xmalloc((size_t)(T * d) * sizeof *x), *us = lm_xmalloc((size_t)d * sizeof *us);
    int ok = 1;
    if (dm)
        for (int c = 0; c < d; c++) us[c] = lm_rng_normal(g);
    else
        lm_mat_set_d(D->u, 0, 0, beta);
    for (int i = 0; i < n; i++) {
        if (dm) {
            int op = lm_rng_int(g, 0, 1);
            for (int t = 0; t < 2; t++)
                for (int c = 0; c < d; c++)
                    x[t * d + c] = (t == op ? zeta : 1.0) * sd * lm_rng_normal(g);
            double p = 0;
            for (int c = 0; c < d; c++) p += us[c] * x[op * d + c];
            D->y[i] = p >= 0 ? 1 : -1;
            D->opt[i] = op;
        } else {
            int y = lm_rng_uniform(g) < 0.5 ? -1 : 1;
            D->y[i] = y;
            for (int k = 0; k < T * d; k++) x[k] = sd * lm_rng_normal(g);
            int best = 0;
            for (int t = 1; t < T; t++)
                if (y * x[t * d] > y * x[best * d]) best = t;
            for (int t = 0; t < T; t++)
                if (t != best && !(y * beta * x[best * d] > y * beta * x[t * d])) ok = 0;
            D->opt[i] = best;
        }
        lm_mat_set_array(D->X[i], x);
    }
    if (dm) {
        D->ustar = lm_mat_new(d, 1, ctx);
        lm_mat_set_array(D->ustar, us);
    }
    free(x);
    free(us);
    if (!ok) {
        lm_attn_data_free(D);
        return NULL;
    }
    return D;
}

static void dir_margin(lm_num *r, const lm_mat *u, const lm_attn_data *D)
{
    lm_num nu;
    lm_num_init(&nu, &D->ctx);
    lm_svm_u_margin(r, u, D);
    lm_mat_frob(&nu, u);
    lm_num_div(r, r, &nu);
    lm_num_clear(&nu);
}

/* v = sum_i R_i x_{i,opt} */
static void opt_combo(lm_mat *v, const lm_attn_data *D, const double *R)
{
    lm_ctx ctx = D->ctx;
    lm_mat *row = lm_mat_new(D->d, 1, &ctx), *r = lm_mat_new(1, D->d, &ctx);
    lm_mat_zero(v);
    for (int i = 0; i < D->n; i++) {
        lm_mat_get_block(r, D->X[i], D->opt[i], 0);
        lm_mat_transpose(row, r);
        lm_mat_axpy_d(v, R[i], row);
    }
    lm_mat_free(row);
    lm_mat_free(r);
}

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    const lm_ctx *ctx = ev->ctx;
    double mscale = P.margin_scale;
    double tol = P.tol_scale * 1048576.0 * lm_ctx_eps(ctx);
    lm_attn_data *D = make_instance(g, ev->config, P.beta, P.zeta, ctx);
    if (!D) {
        lm_assume(ev, 0, "optimal token not unique");
        return 0;
    }
    int n = D->n, d = D->d;
    lm_svm_sol s;
    int st = lm_svm_u(&s, D, NULL);
    if (st) {
        lm_svm_sol_clear(&s);
        lm_attn_data_free(D);
        return lm_fail(ev, "u-SVM solver returned %d (n=%d d=%d; feasible by construction)", st,
                       n, d);
    }
    if (ctx->backend == LM_MPFR && !s.cert.polished) {
        lm_svm_sol_clear(&s);
        lm_attn_data_free(D);
        return lm_fail(ev, "MPFR active-set polishing failed");
    }
    double s1 = 0, qmax = 0;
    for (int a = 0; a < s.m; a++) {
        s1 += lm_mat_get_d(s.alpha, a, 0);
        for (int b = 0; b < s.m; b++) qmax = fmax(qmax, fabs(lm_mat_get_d(s.Q, a, b)));
    }
    double sc = 1 + s1 * qmax;
    lm_obs_le_d(ev, -1, fabs(s.cert.min_slack), tol * sc, 0.0, "KKT |min_i (Q alpha)_i - 1|");
    lm_obs_le_d(ev, -1, fmax(0.0, -s.cert.min_alpha), tol * sc, 0.0, "KKT alpha >= 0");
    lm_obs_le_d(ev, -1, s.cert.max_cs, tol * sc, 0.0, "KKT complementary slackness");
    lm_obs_le_d(ev, -1, s.cert.duality, tol * sc, 0.0, "duality | ||u||^2 - 1^T alpha |");

    lm_mat *u = lm_mat_new(d, 1, ctx), *up = lm_mat_new(d, 1, ctx), *gv = lm_mat_new(d, 1, ctx);
    lm_svm_u_vector(u, &s, D);
    lm_num nu, t1, t2, gam, mg;
    lm_num_inits(ctx, &nu, &t1, &t2, &gam, &mg, (lm_num *)NULL);
    lm_mat_frob(&nu, u);
    lm_num_sqr(&t1, &nu);
    lm_num_sub(&t1, &t1, &s.norm2);
    lm_num_abs(&t1, &t1);
    lm_num_mul_d(&t2, &s.norm2, tol);
    lm_obs_le(ev, -1, &t1, &t2, 0.0, "explicit ||u_mm||^2 vs alpha^T Q alpha");

    lm_num_set_d(&gam, mscale);
    lm_num_div(&gam, &gam, &nu);
    dir_margin(&mg, u, D);
    lm_obs_le(ev, -1, &gam, &mg, tol, "claimed max margin <= margin of u_mm/||u_mm||");
    double nud = lm_num_get_d(&nu);
    if (!ev->searching) {
        lm_measure(ev, "norm_umm", nud);
        lm_measure(ev, "max_margin", 1.0 / nud);
        lm_measure(ev, "sweeps", s.cert.sweeps);
        lm_measure(ev, "n_active", s.cert.nactive);
        lm_measure(ev, "kkt_max",
                   fmax(fmax(fabs(s.cert.min_slack), s.cert.max_cs), s.cert.duality));
    }

    /* (5) projected supergradient ascent on the direction margin (double),
     * its best iterate re-evaluated in the running precision */
    if (!ev->x) {
        int m = s.m, iters = ev->quick ? 200 : lm_int(P.ascent_iters);
        double *Qd = lm_xmalloc((size_t)(m * m) * sizeof *Qd), *c = lm_xmalloc((size_t)m * sizeof *c),
               *tr = lm_xmalloc((size_t)(iters > 0 ? iters : 1) * sizeof *tr);
        lm_mat_get_array(Qd, s.Q);
        for (int a = 0; a < m; a++) c[a] = lm_rng_normal(g);
        double best = lm_svm_ascent(c, tr, Qd, m, iters);
        if (!isfinite(best)) {
            free(Qd);
            free(c);
            free(tr);
            lm_num_clears(&nu, &t1, &t2, &gam, &mg, (lm_num *)NULL);
            lm_mat_free(u);
            lm_mat_free(up);
            lm_mat_free(gv);
            lm_svm_sol_clear(&s);
            lm_attn_data_free(D);
            return lm_fail(ev, "supergradient ascent produced a non-finite margin");
        }
        lm_mat *cm = lm_mat_new(m, 1, ctx);
        lm_mat_set_array(cm, c);
        lm_mat *Mc = lm_mat_new(n, D->T, ctx);
        lm_svm_coef(Mc, &s, cm, D);
        lm_svm_sol s2 = s;
        s2.M = Mc;
        lm_svm_u_vector(up, &s2, D);
        lm_mat_free(Mc);
        dir_margin(&mg, up, D);
        lm_obs_le(ev, -1, &mg, &gam, tol, "margin of supergradient-ascent iterate <= claimed max margin");
        if (!ev->searching) {
            double gd = lm_num_get_d(&gam);
            for (int k = 0; k < iters; k += (iters + 99) / 100) {
                lm_series(ev, "ascent margin", k, tr[k]);
                lm_series(ev, "claimed max margin", k, gd);
            }
            lm_series_axes(ev, "supergradient iteration", "margin of u/||u||", 0);
            lm_measure(ev, "ascent_margin_over_max", lm_num_get_d(&mg) / gd);
        }
        lm_mat_free(cm);
        free(Qd);
        free(c);
        free(tr);
    }

    double *R = lm_xmalloc((size_t)n * sizeof *R);
    if (ev->x) {
        lm_rng h;
        lm_rng_init(&h, lm_hash_u64(ev->seed, 0x5eedULL));
        lm_mat_copy(up, u);
        for (int j = 0; j < ev->nx; j++) {
            lm_mat_randn(gv, &h, nud / sqrt((double)d));
            lm_mat_axpy_d(up, ev->x[j], gv);
        }
        dir_margin(&mg, up, D);
        lm_obs_le(ev, -1, &mg, &gam, tol, "margin of searched u <= claimed max margin");
    } else {
        int K = ev->quick ? 16 : lm_int(P.nperturb);
        if (K < 2) K = 2;
        double worst = -INFINITY;
        for (int k = 0; k <= K; k++) {
            double eps = pow(10.0, -6.0 + 7.0 * k / (K - 1));
            const char *kind;
            if (k == K) {
                lm_mat_randn(up, g, nud / sqrt((double)d));
                kind = "Gaussian u";
                eps = 0;
            } else {
                if (k % 2 == 0) {
                    lm_mat_randn(gv, g, nud / sqrt((double)d));
                    kind = "u_mm + eps*Gaussian";
                } else {
                    for (int i = 0; i < n; i++) R[i] = lm_rng_normal(g);
                    opt_combo(gv, D, R);
                    lm_mat_frob(&t1, gv);
                    lm_num_set_d(&t2, nud);
                    lm_num_div(&t1, &t2, &t1);
                    lm_mat_scale(gv, gv, &t1);
                    kind = "u_mm + eps*span";
                }
                lm_mat_copy(up, u);
                lm_mat_axpy_d(up, eps, gv);
            }
            dir_margin(&mg, up, D);
            lm_obs_le(ev, -1, &mg, &gam, tol, "margin of %s (eps=%.1e) <= claimed max margin",
                      kind, eps);
            double r = lm_num_get_d(&mg) / lm_num_get_d(&gam);
            if (r > worst) worst = r;
        }
        lm_measure(ev, "worst_perturbed_margin_over_max", worst);
    }
    free(R);
    lm_num_clears(&nu, &t1, &t2, &gam, &mg, (lm_num *)NULL);
    lm_mat_free(u);
    lm_mat_free(up);
    lm_mat_free(gv);
    lm_svm_sol_clear(&s);
    lm_attn_data_free(D);
    return 0;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "DM data (T = 2, n in 2..8, d in 8..40, zeta = 1.5): u-SVM KKT certificate, ||u_mm||, "
     "attainment of 1/||u_mm||, and no perturbed, random or ascended u with a larger margin.",
     NULL},
    {LM_READ_PAPER,
     "Gaussian tokens N(0, I/d) with decoder u = 3 e_1 (n in 2..6, T in 2..4, d in 8..40): u-SVM "
     "KKT certificate, attainment of 1/||u_mm||, and no direction with a larger margin.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_implicit_usvm) = {
    .kind = LM_KIND_STRUCTURAL,
    .source = "Section 4.2 (u-SVM); max-margin property",
    .origin = "reconstructed",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 1.0,
    .search_dim = SEARCH_DIM,
    .eval = eval,
};
