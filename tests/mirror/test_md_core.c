/* tests/test_md_core.c -- the mirror-descent paper's core (lm_md.h): mirror
 * maps in both precisions, Bregman identities as residuals, the gradient
 * against MPFR finite differences, l_p-AttGD at p = 2 against plain GD, and
 * the l_p-AttSVM on the closed-form instances I1/I2 and on random data. */
#include "test_support.h"
#include "lm_md.h"
#include <math.h>

static const double P_GRID[] = {1.25, 1.5, 1.75, 2.0, 3.0, 6.0};
#define NP ((int)(sizeof P_GRID / sizeof P_GRID[0]))

static lm_mat *rand_mat(lm_rng *g, int r, int c, double s, const lm_ctx *ctx)
{
    lm_mat *A = lm_mat_new(r, c, ctx);
    for (int i = 0; i < r; i++)
        for (int j = 0; j < c; j++) lm_mat_set_d(A, i, j, s * lm_rng_normal(g));
    lm_mat_set_d(A, 0, 0, 0.0); /* an exact zero */
    return A;
}

/* max |A - B| / max |A| */
static double rel(const lm_mat *A, const lm_mat *B)
{
    lm_ctx c = lm_mat_ctx(A);
    lm_mat *D = lm_mat_new(A->r, A->c, &c);
    lm_mat_sub(D, A, B);
    lm_num a, b;
    lm_num_inits(&c, &a, &b, (lm_num *)NULL);
    lm_mat_max_abs(&a, D);
    lm_mat_max_abs(&b, A);
    lm_num_div(&a, &a, &b);
    double r = lm_num_get_d(&a);
    lm_num_clears(&a, &b, (lm_num *)NULL);
    lm_mat_free(D);
    return r;
}

Test(md_core, mirror_map_round_trip_in_both_precisions)
{
    lm_ctx ctx[2] = {lm_ctx_double(), lm_ctx_mpfr(256)};
    double tol[2] = {1e-13, 1e-70};
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < NP; j++) {
            lm_rng g;
            lm_rng_init(&g, 100 + (uint64_t)j);
            lm_mat *W = rand_mat(&g, 5, 5, 3.0, &ctx[k]), *Th = lm_mat_new(5, 5, &ctx[k]);
            lm_mat *W2 = lm_mat_new(5, 5, &ctx[k]);
            lm_md_grad_psi(Th, W, P_GRID[j]);
            lm_md_grad_psi_star(W2, Th, P_GRID[j]);
            cr_expect_lt(rel(W, W2), tol[k], "p=%g prec %d: %g", P_GRID[j], (int)ctx[k].prec, rel(W, W2));
            cr_expect_eq(lm_mat_get_d(W2, 0, 0), 0.0);
            /* <grad psi(W), W> = ||W||_p^p */
            lm_num a, b, e;
            lm_num_inits(&ctx[k], &a, &b, &e, (lm_num *)NULL);
            lm_mat_dot(&a, Th, W);
            lm_md_pnorm(&b, W, P_GRID[j]);
            lm_num_set_d(&e, P_GRID[j]);
            lm_num_pow(&b, &b, &e);
            cr_expect_lt(fabs(lm_num_get_d(&a) / lm_num_get_d(&b) - 1.0), 100 * tol[k] + 1e-15);
            lm_num_clears(&a, &b, &e, (lm_num *)NULL);
            lm_mat_free(W); lm_mat_free(Th); lm_mat_free(W2);
        }
}

Test(md_core, bregman_definition_three_point_and_p2_identities)
{
    lm_ctx c = lm_ctx_mpfr(256);
    for (int j = 0; j < NP; j++) {
        double p = P_GRID[j];
        lm_rng g;
        lm_rng_init(&g, 200 + (uint64_t)j);
        lm_mat *A = rand_mat(&g, 4, 4, 1.0, &c), *B = rand_mat(&g, 4, 4, 1.0, &c);
        lm_mat *C = rand_mat(&g, 4, 4, 1.0, &c), *T1 = lm_mat_new(4, 4, &c), *T2 = lm_mat_new(4, 4, &c);
        lm_num dab, dbc, dac, x, y;
        lm_num_inits(&c, &dab, &dbc, &dac, &x, &y, (lm_num *)NULL);
        /* definition: psi(A) - psi(B) - <grad psi(B), A - B> */
        lm_md_bregman(&dab, A, B, p);
        lm_md_psi(&x, A, p);
        lm_md_psi(&y, B, p);
        lm_num_sub(&x, &x, &y);
        lm_md_grad_psi(T1, B, p);
        lm_mat_sub(T2, A, B);
        lm_mat_dot(&y, T1, T2);
        lm_num_sub(&x, &x, &y);
        lm_num_sub(&x, &x, &dab);
        cr_expect_lt(fabs(lm_num_get_d(&x)), 1e-70, "definition residual p=%g: %g", p, lm_num_get_d(&x));
        cr_expect_gt(lm_num_get_d(&dab), 0.0);
        /* three-point: D(a,b) + D(b,c) - D(a,c) = <grad psi(c) - grad psi(b), a - b> */
        lm_md_bregman(&dbc, B, C, p);
        lm_md_bregman(&dac, A, C, p);
        lm_num_add(&x, &dab, &dbc);
        lm_num_sub(&x, &x, &dac);
        lm_md_grad_psi(T1, C, p);
        lm_md_grad_psi(T2, B, p);
        lm_mat_sub(T1, T1, T2);
        lm_mat_sub(T2, A, B);
        lm_mat_dot(&y, T1, T2);
        lm_num_sub(&x, &x, &y);
        cr_expect_lt(fabs(lm_num_get_d(&x)), 1e-70, "three-point residual p=%g", p);
        /* directional identity: D(U, W/|W|) = 1 - <grad psi(W), U>/|W|^(p-1), |U|_p = 1 */
        lm_md_dir_bregman(&x, A, B, p);
        lm_md_pnorm(&y, A, p);
        lm_num_set_d(&dbc, 1.0);
        lm_num_div(&y, &dbc, &y);
        lm_mat_scale(T1, A, &y); /* U */
        lm_md_grad_psi(T2, B, p);
        lm_mat_dot(&y, T2, T1);
        lm_md_pnorm(&dac, B, p);
        lm_num_set_d(&dbc, p - 1.0);
        lm_num_pow(&dac, &dac, &dbc);
        lm_num_div(&y, &y, &dac);
        lm_num_d_sub(&y, 1.0, &y);
        lm_num_sub(&x, &x, &y);
        cr_expect_lt(fabs(lm_num_get_d(&x)), 1e-70, "directional identity p=%g", p);
        lm_num_clears(&dab, &dbc, &dac, &x, &y, (lm_num *)NULL);
        lm_mat_free(A); lm_mat_free(B); lm_mat_free(C); lm_mat_free(T1); lm_mat_free(T2);
    }
    /* p = 2: D = ||W - V||^2 / 2 */
    lm_ctx cd = lm_ctx_double();
    lm_rng g;
    lm_rng_init(&g, 299);
    lm_mat *A = rand_mat(&g, 3, 3, 1.0, &cd), *B = rand_mat(&g, 3, 3, 1.0, &cd), *Dm = lm_mat_new(3, 3, &cd);
    lm_num x, y;
    lm_num_inits(&cd, &x, &y, (lm_num *)NULL);
    lm_md_bregman(&x, A, B, 2.0);
    lm_mat_sub(Dm, A, B);
    lm_mat_frob(&y, Dm);
    cr_expect_float_eq(lm_num_get_d(&x), 0.5 * lm_num_get_d(&y) * lm_num_get_d(&y), 1e-13);
    lm_num_clears(&x, &y, (lm_num *)NULL);
    lm_mat_free(A); lm_mat_free(B); lm_mat_free(Dm);
}

Test(md_core, gradient_matches_mpfr_finite_differences)
{
    lm_ctx c = lm_ctx_mpfr(512);
    lm_rng g;
    lm_rng_init(&g, 300);
    lm_mddata *D = lm_md_gen_paper(&g, 3, 4, 4, &c);
    lm_mat *W = rand_mat(&g, 4, 4, 2.0, &c), *G = lm_mat_new(4, 4, &c), *Wp = lm_mat_dup(W);
    lm_attn_fwd *F = lm_md_fwd_new(D);
    for (int loss = 0; loss < 2; loss++) {
        cr_assert_eq(lm_md_forward(F, D, W, (lm_attn_loss)loss), 0);
        lm_md_grad(G, F, D);
        lm_num h, fp, fm, v, x;
        lm_num_inits(&c, &h, &fp, &fm, &v, &x, (lm_num *)NULL);
        lm_num_set_d(&h, 1e-50);
        double worst = 0;
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++) {
                lm_mat_copy(Wp, W);
                lm_mat_get(&x, W, a, b);
                lm_num_add(&v, &x, &h);
                lm_mat_set(Wp, a, b, &v);
                lm_md_forward(F, D, Wp, (lm_attn_loss)loss);
                lm_num_exp(&fp, &F->logL);
                lm_num_sub(&v, &x, &h);
                lm_mat_set(Wp, a, b, &v);
                lm_md_forward(F, D, Wp, (lm_attn_loss)loss);
                lm_num_exp(&fm, &F->logL);
                lm_num_sub(&v, &fp, &fm);
                lm_num_div(&v, &v, &h);
                lm_num_mul_d(&v, &v, 0.5);
                lm_mat_get(&x, G, a, b);
                lm_num_sub(&v, &v, &x);
                worst = fmax(worst, fabs(lm_num_get_d(&v)));
            }
        cr_expect_lt(worst, 1e-80, "loss %d: finite differences off by %g", loss, worst);
        lm_num_clears(&h, &fp, &fm, &v, &x, (lm_num *)NULL);
    }
    lm_attn_fwd_free(F);
    lm_mat_free(W); lm_mat_free(G); lm_mat_free(Wp);
    lm_md_data_free(D);
}

Test(md_core, attgd_at_p2_is_gradient_descent)
{
    lm_ctx c = lm_ctx_double();
    lm_rng g;
    lm_rng_init(&g, 400);
    lm_mddata *D = lm_md_gen_paper(&g, 4, 5, 6, &c);
    lm_mat *W = rand_mat(&g, 6, 6, 1.0, &c), *Th = lm_mat_new(6, 6, &c);
    lm_mat *V = lm_mat_dup(W), *G = lm_mat_new(6, 6, &c);
    lm_md_grad_psi(Th, W, 2.0);
    lm_attn_fwd *F = lm_md_fwd_new(D);
    lm_md_par par = {2.0, 0.3, 0, LM_ATTN_LOGISTIC};
    for (int t = 0; t < 20; t++) {
        lm_md_forward(F, D, V, LM_ATTN_LOGISTIC);
        lm_md_grad(G, F, D);
        lm_mat_axpy_d(V, -0.3, G);
        cr_assert_eq(lm_md_step(W, Th, F, D, &par), 0);
    }
    cr_expect_lt(rel(V, W), 1e-13, "p=2 AttGD vs GD: %g", rel(V, W));
    /* normalised p-MD: ||Theta||_q grows at most eta per step */
    lm_md_par pn = {3.0, 0.1, 1, LM_ATTN_LOGISTIC};
    lm_mat_zero(W);
    lm_mat_zero(Th);
    lm_num nq;
    lm_num_init(&nq, &c);
    for (int t = 0; t < 50; t++) cr_assert_eq(lm_md_step(W, Th, F, D, &pn), 0);
    lm_md_pnorm(&nq, Th, 1.5);
    cr_expect_leq(lm_num_get_d(&nq), 50 * 0.1 * (1 + 1e-12));
    cr_expect_gt(lm_num_get_d(&nq), 0.0);
    lm_num_clear(&nq);
    lm_attn_fwd_free(F);
    lm_mat_free(W); lm_mat_free(Th); lm_mat_free(V); lm_mat_free(G);
    lm_md_data_free(D);
}

Test(md_core, svm_closed_form_instance_i1)
{
    const double ps[] = {1.25, 1.5, 2.0, 3.0, 6.0};
    lm_ctx ctx[2] = {lm_ctx_double(), lm_ctx_mpfr(256)};
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 5; j++) {
            double p = ps[j], cc = pow(3.0, 1.0 / (p - 1.0)), a = cc / (1.0 + cc);
            lm_mddata *D = lm_md_gen_i1(4, &ctx[k]);
            lm_md_svm s;
            int rc = lm_md_svm_solve(&s, D, p, 0);
            cr_assert_eq(rc, LM_MDSVM_OK, "p=%g prec %d rc %d", p, (int)ctx[k].prec, rc);
            cr_expect_float_eq(lm_mat_get_d(s.W, 0, 0), a, 1e-12, "p=%g: %.17g vs %.17g", p,
                               lm_mat_get_d(s.W, 0, 0), a);
            for (int t = 1; t < 4; t++) cr_expect_float_eq(lm_mat_get_d(s.W, t, 0), a - 1.0, 1e-12);
            cr_expect_eq(lm_mat_get_d(s.W, 1, 1), 0.0);
            cr_expect_lt(fabs(s.gap), k ? 1e-60 : 1e-12, "gap %g", s.gap);
            cr_expect_gt(s.min_margin, k ? -1e-60 : -1e-12);
            lm_md_svm_clear(&s);
            lm_md_data_free(D);
        }
    /* the catalogue's numbers: T = 4, p = 1.5 -> a = 0.9; p = 3 -> a = 0.6339745962 */
    lm_ctx cd = lm_ctx_double();
    lm_mddata *D = lm_md_gen_i1(4, &cd);
    lm_md_svm s;
    cr_assert_eq(lm_md_svm_solve(&s, D, 3.0, 0), LM_MDSVM_OK);
    cr_expect_float_eq(lm_mat_get_d(s.W, 0, 0), 0.6339745962, 1e-10);
    lm_md_svm_clear(&s);
    lm_md_data_free(D);
}

Test(md_core, svm_i2_has_a_non_support_token)
{
    lm_ctx c = lm_ctx_mpfr(128);
    lm_mddata *D = lm_md_gen_i2(&c);
    lm_md_svm s;
    cr_assert_eq(lm_md_svm_solve(&s, D, 2.0, 0), LM_MDSVM_OK);
    lm_mat *r = lm_mat_new(s.m, 1, &c);
    lm_md_margins(r, s.W, D);
    /* constraints: tokens 1, 2 (support, margin 1) and 3 = -e_1 (margin 2a = 4/3) */
    cr_expect_float_eq(lm_mat_get_d(r, 0, 0), 1.0, 1e-30);
    cr_expect_float_eq(lm_mat_get_d(r, 1, 0), 1.0, 1e-30);
    cr_expect_float_eq(lm_mat_get_d(r, 2, 0), 4.0 / 3.0, 1e-15);
    cr_expect_eq(lm_mat_get_d(s.lambda, 2, 0), 0.0);
    lm_mat_free(r);
    lm_md_svm_clear(&s);
    lm_md_data_free(D);
}

Test(md_core, svm_random_data_double_and_mpfr_agree_with_certificate)
{
    for (int j = 0; j < 3; j++) {
        double p = (double[]){1.75, 2.0, 3.0}[j];
        lm_ctx cd = lm_ctx_double(), cm = lm_ctx_mpfr(256);
        lm_rng g;
        lm_rng_init(&g, 500 + (uint64_t)j);
        lm_mddata *D = lm_md_gen_paper(&g, 6, 8, 10, &cd);
        lm_mddata *Dm = lm_md_data_convert(D, &cm);
        lm_md_svm s, sm;
        int rc = lm_md_svm_solve(&s, D, p, 0), rcm = lm_md_svm_solve(&sm, Dm, p, 0);
        cr_assert_eq(rc, LM_MDSVM_OK, "p=%g double rc %d", p, rc);
        cr_assert_eq(rcm, LM_MDSVM_OK, "p=%g mpfr rc %d (gap %g)", p, rcm, sm.gap);
        cr_expect_lt(fabs(sm.gap), 1e-60, "p=%g mpfr gap %g", p, sm.gap);
        cr_expect_lt(sm.max_cs, 1e-60, "p=%g complementary slackness %g", p, sm.max_cs);
        lm_mat *Wd = lm_mat_new(10, 10, &cd);
        lm_mat_copy(Wd, sm.W);
        cr_expect_lt(rel(Wd, s.W), 1e-9, "p=%g double vs mpfr W_mm: %g", p, rel(Wd, s.W));
        /* ||W_mm||_p^p = sum lambda at the optimum */
        lm_num a, b, e;
        lm_num_inits(&cm, &a, &b, &e, (lm_num *)NULL);
        lm_mat_sum(&a, sm.lambda);
        lm_num_set_d(&e, p);
        lm_num_pow(&b, &sm.norm, &e);
        lm_num_sub(&a, &a, &b);
        cr_expect_lt(fabs(lm_num_get_d(&a)), 1e-60);
        lm_num_clears(&a, &b, &e, (lm_num *)NULL);
        lm_mat_free(Wd);
        lm_md_svm_clear(&s);
        lm_md_svm_clear(&sm);
        lm_md_data_free(Dm);
        lm_md_data_free(D);
    }
}

Test(md_core, svm_refuses_bad_input)
{
    lm_ctx c = lm_ctx_double();
    lm_mddata *D = lm_md_gen_i1(3, &c);
    lm_md_svm s;
    cr_expect_eq(lm_md_svm_solve(&s, D, 1.0, 0), LM_MDSVM_BADINPUT);
    lm_md_svm_clear(&s);
    D->alpha[0] = -1;
    cr_expect_eq(lm_md_svm_solve(&s, D, 2.0, 0), LM_MDSVM_BADINPUT);
    lm_md_svm_clear(&s);
    lm_md_data_free(D);
}

Test(md_core, constants_of_i2_and_cone_initialisation)
{
    lm_ctx c = lm_ctx_mpfr(128);
    lm_mddata *D = lm_md_gen_i2(&c);
    lm_md_svm s;
    cr_assert_eq(lm_md_svm_solve(&s, D, 2.0, 0), LM_MDSVM_OK);
    lm_md_consts k;
    lm_md_consts_compute(&k, &s, D);
    cr_expect_eq(k.nsupport, 2);
    cr_expect_float_eq(k.delta, 1.0 / 6.0, 1e-12, "delta %g", k.delta);
    cr_expect_float_eq(k.gbar, 1.0, 1e-15); /* gamma = (1, 0, 0, -1) */
    cr_expect_float_eq(k.Gamma, 2.0, 1e-15);
    cr_expect_gt(k.mu0, 0.0);
    cr_expect_float_eq(lm_md_eps_p(k.mu0, 2.0, 3), k.delta / (4 * k.A * k.wnorm), 1e-12);
    /* a cone start: D_psi(Wbar_mm, Wbar_0) = mu, ||W_0||_p = R0 */
    lm_rng g;
    lm_rng_init(&g, 600);
    lm_mat *W0 = lm_mat_new(3, 3, &c);
    cr_assert_eq(lm_md_cone_init(W0, s.W, 2.0, 1e-3, 5.0, &g), 0);
    lm_num x;
    lm_num_init(&x, &c);
    lm_md_dir_bregman(&x, s.W, W0, 2.0);
    cr_expect_float_eq(lm_num_get_d(&x), 1e-3, 1e-12, "cone divergence %g", lm_num_get_d(&x));
    lm_md_pnorm(&x, W0, 2.0);
    cr_expect_float_eq(lm_num_get_d(&x), 5.0, 1e-14);
    lm_num_clear(&x);
    lm_mat_free(W0);
    lm_md_consts_clear(&k);
    lm_md_svm_clear(&s);
    lm_md_data_free(D);
}

Test(md_core, r1_instance_starts_in_the_cone)
{
    lm_ctx c = lm_ctx_double();
    lm_rng g;
    lm_rng_init(&g, 700);
    lm_md_inst I;
    char why[200];
    int rc = lm_md_inst_r1(&I, &g, &c, 3, 4, 4, 1.5, -1.0, 2.0, why, sizeof why);
    cr_assert_eq(rc, 0, "%s", why);
    lm_num x;
    lm_num_init(&x, &c);
    lm_md_dir_bregman(&x, I.svm.W, I.W, 1.5);
    cr_expect_float_eq(lm_num_get_d(&x), I.k.mu0, 1e-9 * I.k.mu0);
    lm_md_pnorm(&x, I.W, 1.5);
    cr_expect_float_eq(lm_num_get_d(&x), 2.0 * I.k.wnorm, 1e-12);
    lm_num_clear(&x);
    /* AttGD from there keeps the dual variable consistent: W = grad psi^*(Th) */
    lm_attn_fwd *F = lm_md_fwd_new(I.D);
    lm_md_par par = {1.5, 0.1, 0, LM_ATTN_LOGISTIC};
    for (int t = 0; t < 10; t++) cr_assert_eq(lm_md_step(I.W, I.Th, F, I.D, &par), 0);
    lm_mat *W2 = lm_mat_new(4, 4, &c);
    lm_md_grad_psi_star(W2, I.Th, 1.5);
    cr_expect_lt(rel(I.W, W2), 1e-15);
    lm_mat_free(W2);
    lm_attn_fwd_free(F);
    lm_md_inst_clear(&I);
}
