/* Tests for the W-SVM / u-SVM solvers (src/models/svm.c) and the claims
 * implicit/wsvm and implicit/usvm. */
#include "lm_svm.h"
#include "test_support.h"
#include <math.h>

static void set_row(lm_attn_data *D, int i, int t, const double *v)
{
    for (int c = 0; c < D->d; c++) lm_mat_set_d(D->X[i], t, c, v[c]);
}

static double max_abs_diff(const lm_mat *A, const lm_mat *B)
{
    double m = 0;
    for (int i = 0; i < A->r; i++)
        for (int j = 0; j < A->c; j++)
            m = fmax(m, fabs(lm_mat_get_d(A, i, j) - lm_mat_get_d(B, i, j)));
    return m;
}

/* (a) one constraint: W_mm = A/||A||^2, A = (x_opt - x_2) x_1^T */
Test(ib_svm, single_constraint_closed_form)
{
    lm_ctx ctx = lm_ctx_double();
    double x1[3] = {1.0, 2.0, -0.5}, x2[3] = {0.3, -1.0, 2.0};
    for (int opt = 0; opt < 2; opt++) {
        lm_attn_data *D = lm_attn_data_new(1, 2, 3, &ctx);
        set_row(D, 0, 0, x1);
        set_row(D, 0, 1, x2);
        D->opt[0] = opt;
        lm_svm_sol s;
        cr_assert_eq(lm_svm_w(&s, D, NULL), LM_SVM_OK);
        lm_mat *W = lm_mat_new(3, 3, &ctx), *A = lm_mat_new(3, 3, &ctx);
        lm_svm_w_matrix(W, &s, D);
        double an2 = 0, df[3];
        for (int r = 0; r < 3; r++) df[r] = opt == 0 ? x1[r] - x2[r] : x2[r] - x1[r];
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) {
                lm_mat_set_d(A, r, c, df[r] * x1[c]);
                an2 += df[r] * x1[c] * df[r] * x1[c];
            }
        lm_mat_scale_d(A, A, 1.0 / an2);
        cr_expect_leq(max_abs_diff(W, A), 1e-14, "opt=%d: W_mm differs from A/||A||^2", opt);
        cr_expect_leq(fabs(lm_num_get_d(&s.norm2) - 1.0 / an2), 1e-14);
        cr_expect_leq(fabs(lm_mat_get_d(s.alpha, 0, 0) - 1.0 / an2), 1e-14);
        lm_num h;
        lm_num_init(&h, &ctx);
        lm_svm_w_margin(&h, W, D);
        cr_expect_leq(fabs(lm_num_get_d(&h) - 1.0), 1e-14);
        lm_num_clear(&h);
        lm_mat_free(W);
        lm_mat_free(A);
        lm_svm_sol_clear(&s);
        lm_attn_data_free(D);
    }
}

/* (b) orthogonal tokens: the constraints decouple.
 * seq 0: x00 = 2e0 (query, opt), x01 = e1;  A0 = (2e0-e1)(2e0)^T, ||A0||^2 = 20.
 * seq 1: x10 = e2 (query), x11 = 3e3 (opt); A1 = (3e3-e2) e2^T,   ||A1||^2 = 10.
 * <A0,A1> = 0, so alpha = (1/20, 1/10), W = A0/20 + A1/10, ||W||^2 = 0.15. */
Test(ib_svm, orthogonal_tokens_decouple)
{
    lm_ctx ctx = lm_ctx_double();
    lm_attn_data *D = lm_attn_data_new(2, 2, 4, &ctx);
    lm_mat_set_d(D->X[0], 0, 0, 2.0);
    lm_mat_set_d(D->X[0], 1, 1, 1.0);
    lm_mat_set_d(D->X[1], 0, 2, 1.0);
    lm_mat_set_d(D->X[1], 1, 3, 3.0);
    D->opt[0] = 0;
    D->opt[1] = 1;
    lm_svm_sol s;
    cr_assert_eq(lm_svm_w(&s, D, NULL), LM_SVM_OK);
    cr_expect_leq(fabs(lm_mat_get_d(s.alpha, 0, 0) - 0.05), 1e-15);
    cr_expect_leq(fabs(lm_mat_get_d(s.alpha, 1, 0) - 0.1), 1e-15);
    cr_expect_leq(fabs(lm_num_get_d(&s.norm2) - 0.15), 1e-15);
    /* coefficients of section 2.3 */
    cr_expect_leq(fabs(lm_mat_get_d(s.M, 0, 0) - 0.05), 1e-15);
    cr_expect_leq(fabs(lm_mat_get_d(s.M, 0, 1) + 0.05), 1e-15);
    cr_expect_leq(fabs(lm_mat_get_d(s.M, 1, 1) - 0.1), 1e-15);
    cr_expect_leq(fabs(lm_mat_get_d(s.M, 1, 0) + 0.1), 1e-15);
    lm_mat *W = lm_mat_new(4, 4, &ctx), *E = lm_mat_new(4, 4, &ctx);
    lm_svm_w_matrix(W, &s, D);
    lm_mat_set_d(E, 0, 0, 4.0 / 20);  /* (2e0)(2e0)^T / 20 */
    lm_mat_set_d(E, 1, 0, -2.0 / 20); /* (-e1)(2e0)^T / 20 */
    lm_mat_set_d(E, 3, 2, 3.0 / 10);  /* (3e3) e2^T / 10 */
    lm_mat_set_d(E, 2, 2, -1.0 / 10); /* (-e2) e2^T / 10 */
    cr_expect_leq(max_abs_diff(W, E), 1e-15);
    lm_mat_free(W);
    lm_mat_free(E);
    lm_svm_sol_clear(&s);
    lm_attn_data_free(D);
}

/* an inactive constraint: x0 = e0 (query, opt), x1 = -e0, x2 = 0:
 * constraints 2 W00 >= 1 and W00 >= 1, so W_mm = e0 e0^T, alpha = (0, 1). */
Test(ib_svm, inactive_constraint)
{
    lm_ctx ctx = lm_ctx_double();
    lm_attn_data *D = lm_attn_data_new(1, 3, 2, &ctx);
    lm_mat_set_d(D->X[0], 0, 0, 1.0);
    lm_mat_set_d(D->X[0], 1, 0, -1.0);
    D->opt[0] = 0;
    lm_svm_sol s;
    cr_assert_eq(lm_svm_w(&s, D, NULL), LM_SVM_OK);
    cr_expect_eq(lm_mat_get_d(s.alpha, 0, 0), 0.0);
    cr_expect_leq(fabs(lm_mat_get_d(s.alpha, 1, 0) - 1.0), 1e-15);
    cr_expect_leq(fabs(lm_num_get_d(&s.norm2) - 1.0), 1e-15);
    cr_expect_eq(s.cert.nactive, 1);
    lm_svm_sol_clear(&s);
    lm_attn_data_free(D);
}

/* (c) u-SVM with one support vector: opt tokens e0 (y=+1) and -2e0 (y=-1):
 * constraints u0 >= 1 and 2 u0 >= 1, so u_mm = e0, alpha = (1, 0). */
Test(ib_svm, usvm_one_support_vector)
{
    lm_ctx ctx = lm_ctx_double();
    lm_attn_data *D = lm_attn_data_new(2, 2, 2, &ctx);
    lm_mat_set_d(D->X[0], 1, 0, 1.0);
    lm_mat_set_d(D->X[0], 0, 1, 5.0);
    lm_mat_set_d(D->X[1], 0, 0, -2.0);
    lm_mat_set_d(D->X[1], 1, 1, 7.0);
    D->opt[0] = 1;
    D->opt[1] = 0;
    D->y[0] = 1;
    D->y[1] = -1;
    lm_svm_sol s;
    cr_assert_eq(lm_svm_u(&s, D, NULL), LM_SVM_OK);
    lm_mat *u = lm_mat_new(2, 1, &ctx);
    lm_svm_u_vector(u, &s, D);
    cr_expect_leq(fabs(lm_mat_get_d(u, 0, 0) - 1.0), 1e-15);
    cr_expect_leq(fabs(lm_mat_get_d(u, 1, 0)), 1e-15);
    cr_expect_leq(fabs(lm_mat_get_d(s.alpha, 0, 0) - 1.0), 1e-15);
    cr_expect_eq(lm_mat_get_d(s.alpha, 1, 0), 0.0);
    cr_expect_eq(s.cert.nactive, 1);
    lm_num h;
    lm_num_init(&h, &ctx);
    lm_svm_u_margin(&h, u, D);
    cr_expect_leq(fabs(lm_num_get_d(&h) - 1.0), 1e-15);
    lm_num_clear(&h);
    lm_mat_free(u);
    lm_svm_sol_clear(&s);
    lm_attn_data_free(D);
}

static lm_attn_data *random_data(int n, int T, int d, uint64_t seed, const lm_ctx *ctx)
{
    lm_rng g;
    lm_rng_init(&g, seed);
    lm_attn_data *D = lm_attn_data_new(n, T, d, ctx);
    for (int i = 0; i < n; i++) {
        lm_mat_randn(D->X[i], &g, 1.0 / sqrt((double)d));
        D->y[i] = lm_rng_uniform(&g) < 0.5 ? -1 : 1;
        D->opt[i] = lm_rng_int(&g, 0, T - 1);
    }
    return D;
}

/* (d) certificates at the rounding level in double and MPFR-256 */
Test(ib_svm, certificate_rounding_level)
{
    for (int prec = 53; prec <= 256; prec += 203) {
        lm_ctx ctx = prec == 53 ? lm_ctx_double() : lm_ctx_mpfr(256);
        double bar = prec == 53 ? 1e-12 : ldexp(1.0, -(256 - 20));
        for (uint64_t seed = 1; seed <= 4; seed++) {
            lm_attn_data *D = random_data(4, 3, 16, seed, &ctx);
            for (int kind = 0; kind < 2; kind++) {
                lm_svm_sol s;
                int st = kind ? lm_svm_u(&s, D, NULL) : lm_svm_w(&s, D, NULL);
                cr_assert_eq(st, LM_SVM_OK, "seed %d kind %d prec %d", (int)seed, kind, prec);
                if (prec > 53) cr_expect(s.cert.polished, "MPFR polish not accepted");
                cr_expect_leq(fabs(s.cert.min_slack), bar, "slack %g", s.cert.min_slack);
                cr_expect_geq(s.cert.min_alpha, 0.0);
                cr_expect_leq(s.cert.max_cs, bar, "cs %g", s.cert.max_cs);
                cr_expect_leq(s.cert.duality, bar, "duality %g", s.cert.duality);
                lm_svm_sol_clear(&s);
            }
            lm_attn_data_free(D);
        }
    }
}

/* (e) infeasible instances are reported, never answered */
Test(ib_svm, infeasible_reported)
{
    lm_ctx ctx = lm_ctx_double();
    lm_svm_sol s;
    /* identical tokens: constraint 0 >= 1 */
    lm_attn_data *D = lm_attn_data_new(1, 2, 3, &ctx);
    lm_mat_set_d(D->X[0], 0, 0, 1.0);
    lm_mat_set_d(D->X[0], 1, 0, 1.0);
    D->opt[0] = 1;
    cr_expect_eq(lm_svm_w(&s, D, NULL), LM_SVM_INFEASIBLE);
    lm_svm_sol_clear(&s);
    lm_attn_data_free(D);
    /* contradictory constraints W00 >= 1 and -W00 >= 1 */
    D = lm_attn_data_new(2, 2, 3, &ctx);
    lm_mat_set_d(D->X[0], 0, 0, 1.0);
    D->opt[0] = 0;
    lm_mat_set_d(D->X[1], 0, 0, 1.0);
    D->opt[1] = 1;
    cr_expect_eq(lm_svm_w(&s, D, NULL), LM_SVM_INFEASIBLE);
    lm_svm_sol_clear(&s);
    /* u-SVM: the same token with both labels */
    D->y[1] = -1;
    D->opt[1] = 0;
    cr_expect_eq(lm_svm_u(&s, D, NULL), LM_SVM_INFEASIBLE);
    lm_svm_sol_clear(&s);
    /* missing opt */
    D->opt[1] = -1;
    cr_expect_eq(lm_svm_u(&s, D, NULL), LM_SVM_BADINPUT);
    lm_svm_sol_clear(&s);
    lm_attn_data_free(D);
}

/* (f) MPFR and double solutions agree */
Test(ib_svm, mpfr_matches_double)
{
    lm_ctx cd = lm_ctx_double(), cm = lm_ctx_mpfr(256);
    for (uint64_t seed = 11; seed <= 13; seed++) {
        lm_attn_data *D = random_data(5, 4, 24, seed, &cd), *Dm = lm_attn_data_convert(D, &cm);
        lm_svm_sol s, sm;
        cr_assert_eq(lm_svm_w(&s, D, NULL), LM_SVM_OK);
        cr_assert_eq(lm_svm_w(&sm, Dm, NULL), LM_SVM_OK);
        lm_mat *W = lm_mat_new(24, 24, &cd), *Wm = lm_mat_new(24, 24, &cm);
        lm_svm_w_matrix(W, &s, D);
        lm_svm_w_matrix(Wm, &sm, Dm);
        double nw = sqrt(lm_num_get_d(&s.norm2));
        cr_expect_leq(max_abs_diff(W, Wm), 1e-12 * nw, "seed %d", (int)seed);
        lm_mat_free(W);
        lm_mat_free(Wm);
        lm_svm_sol_clear(&s);
        lm_svm_sol_clear(&sm);
        cr_assert_eq(lm_svm_u(&s, D, NULL), LM_SVM_OK);
        cr_assert_eq(lm_svm_u(&sm, Dm, NULL), LM_SVM_OK);
        lm_mat *u = lm_mat_new(24, 1, &cd), *um = lm_mat_new(24, 1, &cm);
        lm_svm_u_vector(u, &s, D);
        lm_svm_u_vector(um, &sm, Dm);
        cr_expect_leq(max_abs_diff(u, um), 1e-12 * sqrt(lm_num_get_d(&s.norm2)));
        lm_mat_free(u);
        lm_mat_free(um);
        lm_svm_sol_clear(&s);
        lm_svm_sol_clear(&sm);
        lm_attn_data_free(D);
        lm_attn_data_free(Dm);
    }
}

/* ---- claims ---- */

Test(implicit_wsvm, larger_margin_is_violated)
{
    const char *sets[] = {"margin_scale=1.1", NULL};
    lm_test_expect("implicit/wsvm", sets, "gaussian", 2, LM_V_VIOLATED);
}

Test(implicit_wsvm, smaller_margin_is_violated)
{
    const char *sets[] = {"margin_scale=0.9", NULL};
    lm_test_expect("implicit/wsvm", sets, "ex1-hetero", 2, LM_V_VIOLATED);
}

Test(implicit_wsvm, tiny_tolerance_is_violated)
{
    const char *sets[] = {"tol_scale=1e-30", NULL};
    lm_test_expect("implicit/wsvm", sets, "gaussian", 2, LM_V_VIOLATED);
}

Test(implicit_wsvm, as_stated_not_error)
{
    lm_test_not_error("implicit/wsvm", "gaussian", 4);
    lm_test_not_error("implicit/wsvm", "ex1-hetero", 4);
}

Test(implicit_usvm, larger_margin_is_violated)
{
    const char *sets[] = {"margin_scale=1.1", NULL};
    lm_test_expect("implicit/usvm", sets, "dm", 2, LM_V_VIOLATED);
}

Test(implicit_usvm, smaller_margin_is_violated)
{
    const char *sets[] = {"margin_scale=0.9", NULL};
    lm_test_expect("implicit/usvm", sets, "gaussian", 2, LM_V_VIOLATED);
}

Test(implicit_usvm, as_stated_not_error)
{
    lm_test_not_error("implicit/usvm", "dm", 4);
    lm_test_not_error("implicit/usvm", "gaussian", 4);
}

Test(implicit_usvm, tiny_tolerance_is_violated)
{
    const char *sets[] = {"tol_scale=1e-30", NULL};
    lm_test_expect("implicit/usvm", sets, "dm", 2, LM_V_VIOLATED);
}
