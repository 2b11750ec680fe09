/* tests/test_ib_joint5.c -- implicit/lemma3 and implicit/lemma15 (loss landscape
 * along joint training) and their shared probes (lm_ibland.h). */
#include "test_support.h"
#include "lm_ibgen.h"
#include "lm_ibland.h"
#include <math.h>

static const char *const L3 = "implicit/lemma3";
static const char *const L15 = "implicit/lemma15";
#define L3_CFG "R4: DM d=600 n=8, joint (13) eta=0.5 alpha=2/3"
#define L15_CFG1 "R4, kappa = c14 zeta sigma sqrt(d/2n) [Lemma 11 bound]"
#define L15_CFG2 "R4, kappa = c14 zeta^2 sigma^2 d/||u~|| [norm of the draw]"

/* ---- the probes ---- */

/* small DM data set with random coefficients in the engine */
static lm_ibj *toy_engine(lm_attn_data **Dp, int d, int n, uint64_t seed, double scale, const lm_ctx *c)
{
    lm_rng g;
    lm_rng_init(&g, seed);
    lm_ibgen_dm_opts o;
    lm_ibgen_dm_defaults(&o);
    o.d = d;
    o.n = n;
    *Dp = lm_ibgen_dm(&o, &g, c);
    lm_ibj *J = lm_ibj_new(*Dp, NULL, 1, LM_ATTN_EXP);
    cr_assert_not_null(J);
    for (int i = 0; i < n; i++)
        for (int t = 0; t < 2; t++) {
            lm_mat_set_d(J->C, i, t, scale * lm_rng_normal(&g));
            lm_mat_set_d(J->U, i, t, scale * lm_rng_normal(&g));
        }
    cr_assert_eq(lm_ibj_refresh(J), 0);
    return J;
}

/* explicit gradient (W d x d, u d x 1 stacked into a (d*d+d) x 1 vector) / L */
static void explicit_grad(lm_mat *g, lm_attn_fwd *F, const lm_attn_data *D, const lm_mat *W, const lm_mat *u)
{
    const lm_ctx *c = &D->ctx;
    int d = D->d;
    lm_mat *GW = lm_mat_new(d, d, c), *gu = lm_mat_new(d, 1, c);
    cr_assert_eq(lm_attn_forward(F, D, W, u, LM_ATTN_EXP), 0);
    lm_attn_grad_W(GW, F, D);
    lm_attn_grad_u(gu, F, D);
    lm_num v;
    lm_num_init(&v, c);
    for (int a = 0; a < d; a++) {
        for (int b = 0; b < d; b++) {
            lm_mat_get(&v, GW, a, b);
            lm_mat_set(g, a * d + b, 0, &v);
        }
        lm_mat_get(&v, gu, a, 0);
        lm_mat_set(g, d * d + a, 0, &v);
    }
    lm_num_clear(&v);
    lm_mat_free(GW);
    lm_mat_free(gu);
}

Test(ib_joint5, hessian_power_iteration_matches_explicit_fd_hessian)
{
    /* d = 5, n = 2, T = 2: theta = (W, u) has 30 coordinates.  The explicit
     * Hessian by MPFR central differences of the explicit d x d gradient, its
     * spectral norm by a symmetric eigensolver, against the probe's power
     * iteration in the coefficient span with the Gram norm. */
    lm_ctx c = lm_ctx_mpfr(256);
    lm_attn_data *D;
    lm_ibj *J = toy_engine(&D, 5, 2, 71, 1.5, &c);
    int d = D->d, P = d * d + d;
    lm_mat *W = lm_mat_new(d, d, &c), *u = lm_mat_new(d, 1, &c);
    lm_ibj_W(W, J, NULL);
    lm_ibj_u(u, J);
    lm_attn_fwd *F = lm_attn_fwd_new(D);
    lm_mat *Hx = lm_mat_new(P, P, &c), *gp = lm_mat_new(P, 1, &c), *gm = lm_mat_new(P, 1, &c);
    lm_mat *Wp = lm_mat_new(d, d, &c), *up = lm_mat_new(d, 1, &c);
    const double h = 1e-25;
    lm_num v, w, L;
    lm_num_inits(&c, &v, &w, &L, (lm_num *)NULL);
    cr_assert_eq(lm_attn_forward(F, D, W, u, LM_ATTN_EXP), 0);
    lm_attn_lossval(&L, F);
    for (int k = 0; k < P; k++) {
        for (int s = 0; s < 2; s++) {
            lm_mat_copy(Wp, W);
            lm_mat_copy(up, u);
            double step = s == 0 ? h : -h;
            /* perturb one coordinate in the context */
            if (k < d * d) {
                lm_mat_get(&v, W, k / d, k % d);
                lm_num_add_d(&v, &v, step);
                lm_mat_set(Wp, k / d, k % d, &v);
            } else {
                lm_mat_get(&v, u, k - d * d, 0);
                lm_num_add_d(&v, &v, step);
                lm_mat_set(up, k - d * d, 0, &v);
            }
            explicit_grad(s == 0 ? gp : gm, F, D, Wp, up);
        }
        for (int r = 0; r < P; r++) {
            lm_mat_get(&v, gp, r, 0);
            lm_mat_get(&w, gm, r, 0);
            lm_num_sub(&v, &v, &w);
            lm_num_div_d(&v, &v, 2.0 * h);
            lm_num_div(&v, &v, &L);
            lm_mat_set(Hx, r, k, &v);
        }
    }
    /* symmetry of the explicit Hessian (a check of the differences) */
    double asym = 0, mx = 0;
    for (int a = 0; a < P; a++)
        for (int b = 0; b < P; b++) {
            asym = fmax(asym, fabs(lm_mat_get_d(Hx, a, b) - lm_mat_get_d(Hx, b, a)));
            mx = fmax(mx, fabs(lm_mat_get_d(Hx, a, b)));
        }
    cr_expect(asym <= 1e-30 * fmax(1.0, mx), "explicit FD Hessian asymmetric: %g", asym);
    lm_ctx dc = lm_ctx_double();
    lm_mat *Hd = lm_mat_new(P, P, &dc);
    lm_mat_copy(Hd, Hx);
    lm_num *ev = lm_nums_new(P, &dc);
    cr_assert_eq(lm_mat_symeig(ev, NULL, Hd), 0);
    double hn = fmax(fabs(lm_num_get_d(&ev[0])), fabs(lm_num_get_d(&ev[P - 1])));
    cr_assert(hn > 0);
    /* the probe: converged power iteration and the claim's 20 iterations */
    lm_ibland_hess *H = lm_ibland_hess_new(D, 1, LM_ATTN_EXP, 256, 1e-25, 400);
    cr_assert_not_null(H);
    lm_num r, lL;
    lm_num_inits(&c, &r, &lL, (lm_num *)NULL);
    cr_assert_eq(lm_ibland_hess_norm(&r, &lL, H, J->C, J->U, 5), 0);
    double est = lm_num_get_d(&r);
    cr_expect(fabs(est - hn) <= 1e-8 * hn, "power iteration %.15g vs explicit %.15g", est, hn);
    cr_expect(fabs(lm_num_get_d(&lL) - lm_num_get_d(&F->logL)) < 1e-12, "log L at the probe point");
    H->iters = 20;
    cr_assert_eq(lm_ibland_hess_norm(&r, NULL, H, J->C, J->U, 5), 0);
    est = lm_num_get_d(&r);
    cr_expect(est <= hn * (1 + 1e-12) && est >= 0.5 * hn, "20 iterations: %.6g vs %.6g", est, hn);
    /* the pointwise self-bound holds at this point */
    lm_num B, un, beta;
    lm_num_inits(&c, &B, &un, &beta, (lm_num *)NULL);
    lm_ibland_B(&B, J);
    lm_ibj_norm_u(&un, J);
    lm_ibland_hess_beta(&beta, &B, &un, &c);
    cr_expect(hn <= lm_num_get_d(&beta), "||H||/L = %g above beta = %g", hn, lm_num_get_d(&beta));
    lm_num_clears(&B, &un, &beta, &r, &lL, &v, &w, &L, (lm_num *)NULL);
    lm_nums_free(ev, P);
    lm_ibland_hess_free(H);
    lm_mat_free(Hd);
    lm_mat_free(Hx);
    lm_mat_free(gp);
    lm_mat_free(gm);
    lm_mat_free(Wp);
    lm_mat_free(up);
    lm_mat_free(W);
    lm_mat_free(u);
    lm_attn_fwd_free(F);
    lm_ibj_free(J);
    lm_attn_data_free(D);
}

Test(ib_joint5, hvp_is_linear_and_symmetric)
{
    /* <a, H b> = <H a, b> in the Gram inner product, at a point of R4's scale */
    lm_ctx c = lm_ctx_double();
    lm_attn_data *D;
    lm_ibj *J = toy_engine(&D, 40, 4, 72, 2.0, &c);
    lm_ibland_hess *H = lm_ibland_hess_new(D, 1, LM_ATTN_EXP, 256, 1e-25, 20);
    cr_assert_eq(lm_ibland_hess_at(H, J->C, J->U), 0);
    lm_rng g;
    lm_rng_init(&g, 9);
    int n = D->n;
    lm_mat *ac = lm_mat_new(n, 2, &H->ctx), *au = lm_mat_new(n, 2, &H->ctx);
    lm_mat *bc = lm_mat_new(n, 2, &H->ctx), *bu = lm_mat_new(n, 2, &H->ctx);
    for (int i = 0; i < n; i++)
        for (int t = 0; t < 2; t++) {
            lm_mat_set_d(ac, i, t, lm_rng_normal(&g));
            lm_mat_set_d(au, i, t, lm_rng_normal(&g));
            lm_mat_set_d(bc, i, t, lm_rng_normal(&g));
            lm_mat_set_d(bu, i, t, lm_rng_normal(&g));
        }
    lm_num x, y, z;
    lm_num_inits(&H->ctx, &x, &y, &z, (lm_num *)NULL);
    /* <a, H b> */
    lm_mat_copy(H->Vc, bc);
    lm_mat_copy(H->Vu, bu);
    cr_assert_eq(lm_ibland_hvp(H), 0);
    lm_ibj_inner_W(&x, H->J, NULL, ac, NULL, H->Hc);
    lm_ibj_inner_u(&z, H->J, au, H->Hu);
    lm_num_add(&x, &x, &z);
    /* <H a, b> */
    lm_mat_copy(H->Vc, ac);
    lm_mat_copy(H->Vu, au);
    cr_assert_eq(lm_ibland_hvp(H), 0);
    lm_ibj_inner_W(&y, H->J, NULL, H->Hc, NULL, bc);
    lm_ibj_inner_u(&z, H->J, H->Hu, bu);
    lm_num_add(&y, &y, &z);
    double xd = lm_num_get_d(&x), yd = lm_num_get_d(&y);
    cr_expect(fabs(xd - yd) <= 1e-40 + 1e-40 * fabs(xd), "<a,Hb> = %.17g, <Ha,b> = %.17g", xd, yd);
    cr_expect(fabs(xd) > 1e-6, "degenerate test");
    lm_num_clears(&x, &y, &z, (lm_num *)NULL);
    lm_mat_free(ac);
    lm_mat_free(au);
    lm_mat_free(bc);
    lm_mat_free(bu);
    lm_ibland_hess_free(H);
    lm_ibj_free(J);
    lm_attn_data_free(D);
}

Test(ib_joint5, segment_max_finds_the_brute_force_maximum)
{
    /* random segments (some rising, some with an interior maximum): the grid +
     * golden section must agree with a 4001-point scan */
    lm_ctx c = lm_ctx_double();
    lm_attn_data *D;
    lm_ibj *J = toy_engine(&D, 30, 4, 73, 1.0, &c);
    int n = D->n, rising = 0, interior = 0;
    lm_mat *C1 = lm_mat_new(n, 2, &c), *U1 = lm_mat_new(n, 2, &c);
    lm_mat *Pc = lm_mat_new(n, 2, &c), *Pu = lm_mat_new(n, 2, &c), *dC = lm_mat_new(n, 2, &c),
           *dU = lm_mat_new(n, 2, &c);
    lm_attn_fwd *F = lm_attn_fwd_new(D);
    lm_num dm;
    lm_num_init(&dm, &c);
    lm_rng g;
    lm_rng_init(&g, 10);
    for (int rep = 0; rep < 12; rep++) {
        double sc = rep < 6 ? 6.0 : 2.0, su = rep < 6 ? 0.3 : 2.0;
        for (int i = 0; i < n; i++)
            for (int t = 0; t < 2; t++) {
                lm_mat_set_d(C1, i, t, lm_mat_get_d(J->C, i, t) + sc * lm_rng_normal(&g));
                lm_mat_set_d(U1, i, t, lm_mat_get_d(J->U, i, t) + su * lm_rng_normal(&g));
            }
        double lam;
        cr_assert_eq(lm_ibland_segment_max(&dm, &lam, F, J, J->C, J->U, C1, U1, 17, 40), 0);
        lm_mat_sub(dC, C1, J->C);
        lm_mat_sub(dU, U1, J->U);
        double l0 = lm_num_get_d(&J->F->logL), best = -INFINITY, lb = 0;
        for (int k = 0; k <= 4000; k++) {
            double s = k / 4000.0;
            lm_mat_copy(Pc, J->C);
            lm_mat_axpy_d(Pc, s, dC);
            lm_mat_copy(Pu, J->U);
            lm_mat_axpy_d(Pu, s, dU);
            cr_assert_eq(lm_ibj_forward_at(F, J, Pc, Pu), 0);
            double v = lm_num_get_d(&F->logL) - l0;
            if (v > best) { best = v; lb = s; }
        }
        if (best > 0.05) rising++;
        if (best > 0.05 && lb > 0.05 && lb < 0.95) interior++;
        cr_expect(lm_num_get_d(&dm) >= best - 1e-6 && lm_num_get_d(&dm) <= best + 1e-3,
                  "rep %d: segment max %.9g at %.4f vs scan %.9g at %.4f", rep, lm_num_get_d(&dm), lam,
                  best, lb);
    }
    cr_expect(rising > 0 && interior > 0, "degenerate test: %d rising, %d interior maxima", rising, interior);
    lm_num_clear(&dm);
    lm_mat_free(Pc); lm_mat_free(Pu); lm_mat_free(dC); lm_mat_free(dU);
    lm_mat_free(C1); lm_mat_free(U1);
    lm_attn_fwd_free(F);
    lm_ibj_free(J);
    lm_attn_data_free(D);
}

Test(ib_joint5, gradient_ratios_match_explicit_gradients)
{
    lm_ctx c = lm_ctx_double();
    lm_attn_data *D;
    lm_ibj *J = toy_engine(&D, 30, 4, 74, 1.0, &c);
    int d = D->d, n = D->n;
    lm_mat *W = lm_mat_new(d, d, &c), *u = lm_mat_new(d, 1, &c), *GW = lm_mat_new(d, d, &c),
           *gu = lm_mat_new(d, 1, &c), *M = lm_mat_new(n, 2, &c), *um = lm_mat_new(d, 1, &c);
    lm_ibj_W(W, J, NULL);
    lm_ibj_u(u, J);
    lm_attn_fwd *F = lm_attn_fwd_new(D);
    cr_assert_eq(lm_attn_forward(F, D, W, u, LM_ATTN_EXP), 0);
    lm_attn_grad_W(GW, F, D);
    lm_attn_grad_u(gu, F, D);
    lm_num L, a, b, gU, gT, co;
    lm_num_inits(&c, &L, &a, &b, &gU, &gT, &co, (lm_num *)NULL);
    lm_attn_lossval(&L, F);
    lm_mat_frob(&a, gu);
    lm_mat_frob(&b, GW);
    double eu = lm_num_get_d(&a) / lm_num_get_d(&L);
    double et = hypot(lm_num_get_d(&a), lm_num_get_d(&b)) / lm_num_get_d(&L);
    /* <-grad_u L, sum M x> for M = y_j at opt_j (u~) */
    for (int j = 0; j < n; j++) lm_mat_set_d(M, j, D->opt[j], (double)D->y[j]);
    lm_mat *Us = lm_mat_dup(J->U);
    lm_mat_copy(J->U, M);
    lm_ibj_u(um, J);
    lm_mat_copy(J->U, Us);
    lm_mat_free(Us);
    lm_mat_dot(&a, gu, um);
    double ec = -lm_num_get_d(&a) / lm_num_get_d(&L);
    lm_ibland_grad_ratios(&gU, &gT, &co, J, J->F, M);
    cr_expect(fabs(lm_num_get_d(&gU) - eu) <= 1e-12 * eu, "||grad_u||/L %g vs %g", lm_num_get_d(&gU), eu);
    cr_expect(fabs(lm_num_get_d(&gT) - et) <= 1e-12 * et, "||grad||/L %g vs %g", lm_num_get_d(&gT), et);
    cr_expect(fabs(lm_num_get_d(&co) - ec) <= 1e-12 * fabs(ec), "corr %g vs %g", lm_num_get_d(&co), ec);
    lm_num_clears(&L, &a, &b, &gU, &gT, &co, (lm_num *)NULL);
    lm_mat_free(W); lm_mat_free(u); lm_mat_free(GW); lm_mat_free(gu); lm_mat_free(M); lm_mat_free(um);
    lm_attn_fwd_free(F);
    lm_ibj_free(J);
    lm_attn_data_free(D);
}

/* ---- the claims ---- */

Test(ib_joint5, lemma3_as_stated_not_error)
{
    lm_test_not_error(L3, L3_CFG, 2);
}

Test(ib_joint5, lemma3_wrong_kappa_is_violated)
{
    /* twice the derived kappa(theta): above ||grad_u L||/L already at t = 0 */
    const char *sets[] = {"kappa_scale=2", "steps=400", NULL};
    lm_test_expect(L3, sets, L3_CFG, 2, LM_V_VIOLATED);
}

Test(ib_joint5, lemma3_wrong_log_lipschitz_constant_is_violated)
{
    /* C_L = 0.3 e < 1 is refuted by theta' = theta_t */
    const char *sets[] = {"cl_scale=0.3", "steps=400", NULL};
    lm_test_expect(L3, sets, L3_CFG, 2, LM_V_VIOLATED);
}

Test(ib_joint5, lemma3_wrong_hessian_constant_is_violated)
{
    /* the empirical C_H is about 0.03 at t = 0 */
    const char *sets[] = {"C_H=0.01", "steps=400", NULL};
    lm_test_expect(L3, sets, L3_CFG, 2, LM_V_VIOLATED);
}

Test(ib_joint5, lemma15_as_stated_not_error)
{
    lm_test_not_error(L15, L15_CFG1, 2);
    lm_test_not_error(L15, L15_CFG2, 2);
}

Test(ib_joint5, lemma15_wrong_kappa_is_violated)
{
    /* 5 kappa is about 0.47 (0.66 in the second reading), above the empirical ~0.26 */
    const char *sets[] = {"kappa_scale=5", "steps=400", NULL};
    lm_test_expect(L15, sets, L15_CFG1, 2, LM_V_VIOLATED);
    lm_test_expect(L15, sets, L15_CFG2, 2, LM_V_VIOLATED);
}

Test(ib_joint5, lemma15_wrong_pointwise_hessian_constant_is_violated)
{
    /* the empirical pointwise constant ||H||/(beta L) is about 0.03 */
    const char *sets[] = {"hp_scale=0.01", "steps=400", NULL};
    lm_test_expect(L15, sets, L15_CFG1, 2, LM_V_VIOLATED);
}
