/* tests/test_md_rate.c -- the mirror-descent run module (lm_mdrun.h) and the
 * trajectory/rate claims built on it: mirror/lemma27, lemma28, lemma29,
 * lemma30, theorem-localconv, theorem-rate, theorem-joint.  Every claim is
 * run once as stated (must not be `error`) and once with a deliberately
 * wrong constant (must be `violated` / `inconsistent`). */
#include "test_support.h"
#include "lm_mdrun.h"
#include <math.h>

/* ---------- the module ---------- */

static lm_mat *rand_mat(lm_rng *g, int r, int c, double s, const lm_ctx *ctx)
{
    lm_mat *A = lm_mat_new(r, c, ctx);
    for (int i = 0; i < r; i++)
        for (int j = 0; j < c; j++) lm_mat_set_d(A, i, j, s * lm_rng_normal(g));
    lm_mat_set_d(A, 0, 0, 0.0); /* an exact zero */
    return A;
}

Test(md_rate, accurate_bregman_agrees_with_mpfr_also_near_equal_arguments)
{
    static const double P[] = {1.25, 1.5, 2.0, 3.0, 6.0};
    lm_ctx cd = lm_ctx_double(), cm = lm_ctx_mpfr(512);
    for (int j = 0; j < 5; j++)
        for (int near = 0; near < 2; near++) {
            double p = P[j];
            lm_rng g;
            lm_rng_init(&g, 700 + (uint64_t)(10 * j + near));
            lm_mat *U = rand_mat(&g, 4, 4, 1.0, &cd), *V = lm_mat_dup(U);
            for (int a = 0; a < 4; a++)
                for (int b = 0; b < 4; b++) {
                    double u = lm_mat_get_d(U, a, b);
                    /* near: relative perturbations 1e-9 (the closed sum loses ~9 digits in
                     * double there); else: independent entries with mixed signs */
                    double v = near ? u * (1.0 + 1e-9 * lm_rng_normal(&g)) : lm_rng_normal(&g);
                    lm_mat_set_d(V, a, b, v);
                }
            lm_mat_set_d(V, 1, 1, 0.0);
            lm_mat *Um = lm_mat_new(4, 4, &cm), *Vm = lm_mat_new(4, 4, &cm);
            lm_mat_copy(Um, U);
            lm_mat_copy(Vm, V);
            lm_num dd, dm, dm2;
            lm_num_init(&dd, &cd);
            lm_num_inits(&cm, &dm, &dm2, (lm_num *)NULL);
            lm_mdgd_bregman(&dd, U, V, p);
            lm_md_bregman(&dm, Um, Vm, p);   /* reference: the closed sum at 512 bits */
            lm_mdgd_bregman(&dm2, Um, Vm, p); /* the accurate form in MPFR */
            double ref = lm_num_get_d(&dm);
            cr_expect_gt(ref, 0.0);
            cr_expect_lt(fabs(lm_num_get_d(&dd) / ref - 1.0), 1e-12, "p=%g near=%d: %.17g vs %.17g", p, near,
                         lm_num_get_d(&dd), ref);
            cr_expect_lt(fabs(lm_num_get_d(&dm2) / ref - 1.0), 1e-60, "p=%g near=%d (mpfr)", p, near);
            lm_num_clear(&dd);
            lm_num_clears(&dm, &dm2, (lm_num *)NULL);
            lm_mat_free(U); lm_mat_free(V); lm_mat_free(Um); lm_mat_free(Vm);
        }
}

Test(md_rate, directional_divergence_is_scale_free_and_zero_on_the_ray)
{
    lm_ctx c = lm_ctx_mpfr(256);
    lm_rng g;
    lm_rng_init(&g, 801);
    lm_mat *U = rand_mat(&g, 3, 3, 1.0, &c), *W = lm_mat_dup(U), *V = rand_mat(&g, 3, 3, 1.0, &c);
    lm_mat_scale_d(W, U, 7.5);
    lm_num r, s;
    lm_num_inits(&c, &r, &s, (lm_num *)NULL);
    lm_mdgd_dirbreg(&r, U, W, 1.5);
    cr_expect_lt(fabs(lm_num_get_d(&r)), 1e-70);
    lm_mdgd_dirbreg(&r, U, V, 3.0);
    lm_mat_scale_d(V, V, 1e3);
    lm_mdgd_dirbreg(&s, U, V, 3.0);
    cr_expect_lt(fabs(lm_num_get_d(&r) - lm_num_get_d(&s)), 1e-60);
    cr_expect(lm_num_get_d(&r) > 0 && lm_num_get_d(&r) <= 2.0);
    lm_num_clears(&r, &s, (lm_num *)NULL);
    lm_mat_free(U); lm_mat_free(W); lm_mat_free(V);
}

/* one step from an R1 start: the cancellation-free step quantities against
 * direct differences at 512 bits, and the double values against them */
Test(md_rate, step_quantities_match_direct_differences)
{
    static const double P[] = {1.5, 2.0, 3.0};
    for (int j = 0; j < 3; j++) {
        double p = P[j], eta = 1.0;
        lm_ctx cm = lm_ctx_mpfr(512), cd = lm_ctx_double();
        lm_md_inst Im, Id;
        lm_mdgd Rm, Rd;
        char why[256];
        lm_rng g;
        lm_rng_init(&g, 900 + (uint64_t)j);
        cr_assert_eq(lm_md_inst_r1(&Im, &g, &cm, 3, 4, 4, p, -0.25, 2.0, why, 256), 0, "%s", why);
        lm_rng_init(&g, 900 + (uint64_t)j);
        cr_assert_eq(lm_md_inst_r1(&Id, &g, &cd, 3, 4, 4, p, -0.25, 2.0, why, 256), 0, "%s", why);
        cr_assert_eq(lm_mdgd_init(&Rm, Im.D, Im.W, Im.Th, Im.svm.W, p, eta, LM_ATTN_LOGISTIC), 0);
        cr_assert_eq(lm_mdgd_init(&Rd, Id.D, Id.W, Id.Th, Id.svm.W, p, eta, LM_ATTN_LOGISTIC), 0);
        for (int k = 0; k < 5; k++) {
            cr_assert_eq(lm_mdgd_step(&Rm), 0);
            cr_assert_eq(lm_mdgd_step(&Rd), 0);
        }
        lm_num a, b, q;
        lm_num_inits(&cm, &a, &b, &q, (lm_num *)NULL);
        /* ||Theta_k||_q - ||Theta_{k-1}||_q directly */
        lm_mat *Tp = lm_mat_dup(Rm.Th);
        lm_mat_sub(Tp, Rm.Th, Rm.dTh); /* Theta_{k-1} */
        double qd = p / (p - 1.0);
        lm_md_pnorm(&a, Rm.Th, qd);
        lm_md_pnorm(&b, Tp, qd);
        lm_num_sub(&a, &a, &b);
        double ref = lm_num_get_d(&a);
        cr_expect_lt(fabs(lm_num_get_d(&Rm.drpm1) / ref - 1.0), 1e-30, "p=%g drpm1 (mpfr)", p);
        cr_expect_lt(fabs(lm_num_get_d(&Rd.drpm1) / ref - 1.0), 1e-9, "p=%g drpm1 (double) %.17g vs %.17g", p,
                     lm_num_get_d(&Rd.drpm1), ref);
        /* L(W_{k-1}) - L(W_k) directly */
        lm_attn_fwd *F = lm_md_fwd_new(Im.D);
        lm_mat *Wp = lm_mat_new(4, 4, &cm);
        lm_md_grad_psi_star(Wp, Tp, p);
        cr_assert_eq(lm_md_forward(F, Im.D, Wp, LM_ATTN_LOGISTIC), 0);
        lm_num_exp(&a, &F->logL);
        lm_num_exp(&b, &Rm.F->logL);
        lm_num_sub(&a, &a, &b);
        ref = lm_num_get_d(&a);
        cr_expect_gt(ref, 0.0);
        cr_expect_lt(fabs(lm_num_get_d(&Rm.dL) / ref - 1.0), 1e-30, "p=%g dL (mpfr)", p);
        cr_expect_lt(fabs(lm_num_get_d(&Rd.dL) / ref - 1.0), 1e-9, "p=%g dL (double)", p);
        /* lhs_mm = eta <-grad L(W_{k-1}), Wbar_mm> */
        lm_mat *G = lm_mat_new(4, 4, &cm);
        lm_md_grad(G, F, Im.D);
        lm_mat_dot(&a, G, Rm.Wbmm);
        ref = -eta * lm_num_get_d(&a);
        cr_expect_lt(fabs(lm_num_get_d(&Rm.lhs_mm) / ref - 1.0), 1e-30, "p=%g lhs (mpfr)", p);
        /* D_k: accurate form vs the core's directional divergence at 512 bits */
        lm_mdgd_dir(&a, &Rm);
        lm_md_dir_bregman(&b, Im.svm.W, Rm.W, p);
        cr_expect_lt(fabs(lm_num_get_d(&a) / lm_num_get_d(&b) - 1.0), 1e-30, "p=%g D", p);
        lm_mdgd_dir(&q, &Rd);
        cr_expect_lt(fabs(lm_num_get_d(&q) / lm_num_get_d(&b) - 1.0), 1e-8, "p=%g D (double)", p);
        cr_expect_eq(Rm.nfrozen, 0);
        lm_num_clears(&a, &b, &q, (lm_num *)NULL);
        lm_mat_free(Tp); lm_mat_free(Wp); lm_mat_free(G);
        lm_attn_fwd_free(F);
        lm_mdgd_clear(&Rm); lm_mdgd_clear(&Rd);
        lm_md_inst_clear(&Im); lm_md_inst_clear(&Id);
    }
}

/* far out in the cone the double update falls below one ulp of Theta: the
 * step must be reported frozen (and the run stopped), not taken as a norm
 * that stopped growing; in MPFR the same step moves */
Test(md_rate, frozen_double_step_is_detected)
{
    lm_ctx cd = lm_ctx_double(), cm = lm_ctx_mpfr(256);
    const lm_ctx *cs[2] = {&cd, &cm};
    for (int b = 0; b < 2; b++) {
        lm_md_inst I;
        lm_mdgd R;
        char why[256];
        lm_rng g;
        lm_rng_init(&g, 950);
        cr_assert_eq(lm_md_inst_r1(&I, &g, cs[b], 3, 4, 4, 2.0, -0.25, 80.0, why, 256), 0, "%s", why);
        cr_assert_eq(lm_mdgd_init(&R, I.D, I.W, I.Th, I.svm.W, 2.0, 1.0, LM_ATTN_LOGISTIC), 0);
        int r = lm_mdgd_run(&R, 3, -1, 1.05, NULL, NULL, NULL);
        if (b == 0) {
            cr_expect_eq(r, 2, "double run returned %d", r);
            cr_expect_eq(R.frozen_at, 1);
        } else {
            cr_expect_eq(r, 0);
            cr_expect_eq(R.nfrozen, 0);
            cr_expect_gt(lm_num_get_d(&R.drpm1), 0.0);
        }
        lm_mdgd_clear(&R);
        lm_md_inst_clear(&I);
    }
}

Test(md_rate, v_svm_closed_forms)
{
    lm_ctx c = lm_ctx_mpfr(256);
    /* Y_1 x_1 = (2, 0), Y_2 x_2 = (0, 1) (x_2 = (0,-1), Y_2 = -1): v_mm = (1/2, 1) for every p */
    lm_mddata *D = lm_md_data_new(2, 3, 2, &c);
    lm_mat_set_d(D->X[0], 0, 0, 2.0);
    lm_mat_set_d(D->X[0], 1, 1, 1.0);
    lm_mat_set_d(D->X[1], 0, 1, -1.0);
    lm_mat_set_d(D->X[1], 2, 0, 1.0);
    D->y[1] = -1;
    D->alpha[0] = D->alpha[1] = 0;
    lm_mat *v = lm_mat_new(2, 1, &c);
    static const double P[] = {1.25, 1.75, 2.0, 3.0};
    for (int j = 0; j < 4; j++) {
        double gap, mm;
        cr_assert_eq(lm_mdjoint_vsvm(v, D, P[j], &gap, &mm), LM_MDSVM_OK, "p=%g", P[j]);
        cr_expect_lt(fabs(lm_mat_get_d(v, 0, 0) - 0.5), 1e-12, "p=%g v0=%.17g", P[j], lm_mat_get_d(v, 0, 0));
        cr_expect_lt(fabs(lm_mat_get_d(v, 1, 0) - 1.0), 1e-12, "p=%g v1=%.17g", P[j], lm_mat_get_d(v, 1, 0));
    }
    /* one sample, Y x = (1, 1): v_mm = (1/2, 1/2) */
    lm_mddata *E = lm_md_data_new(1, 2, 2, &c);
    lm_mat_set_d(E->X[0], 1, 0, 1.0);
    lm_mat_set_d(E->X[0], 1, 1, 1.0);
    E->alpha[0] = 1;
    double gap, mm;
    cr_assert_eq(lm_mdjoint_vsvm(v, E, 1.5, &gap, &mm), LM_MDSVM_OK);
    cr_expect_lt(fabs(lm_mat_get_d(v, 0, 0) - 0.5), 1e-12);
    cr_expect_lt(fabs(lm_mat_get_d(v, 1, 0) - 0.5), 1e-12);
    lm_mat_free(v);
    lm_md_data_free(D);
    lm_md_data_free(E);
}

Test(md_rate, joint_first_step_moves_v_by_eta_in_the_dual)
{
    lm_ctx c = lm_ctx_mpfr(256);
    lm_rng g;
    lm_rng_init(&g, 1);
    lm_mddata *D = lm_mdjoint_data(&g, 0.0, &c);
    cr_expect_float_eq(lm_mat_get_d(D->X[0], 0, 0), -2.7, 1e-15);
    cr_expect_float_eq(lm_mat_get_d(D->Z, 1, 1), -2.2, 1e-15);
    lm_mdjoint J;
    cr_assert_eq(lm_mdjoint_init(&J, D, 3.0, 0.1), 0);
    cr_assert_eq(lm_mdjoint_step(&J), 0);
    /* at v = 0 every score vanishes: grad_W = 0, W stays 0; ||Theta_v||_q = eta up to eps */
    lm_num r;
    lm_num_init(&r, &c);
    lm_mat_max_abs(&r, J.W);
    cr_expect_eq(lm_num_get_d(&r), 0.0);
    lm_md_pnorm(&r, J.Thv, 1.5); /* q = 3/2 */
    cr_expect_lt(fabs(lm_num_get_d(&r) - 0.1), 1e-14);
    cr_assert_eq(lm_mdjoint_step(&J), 0);
    lm_mat_max_abs(&r, J.W);
    cr_expect_gt(lm_num_get_d(&r), 0.0); /* now W moves */
    lm_num_clear(&r);
    lm_mdjoint_clear(&J);
    lm_md_data_free(D);
}

Test(md_rate, fit_and_rate_helpers)
{
    double x[6] = {0, 1, 2, 3, 4, 5}, y[6];
    for (int i = 0; i < 6; i++) y[i] = 3.0 * x[i] + 1.0;
    double s, se;
    cr_assert_eq(lm_mdgd_fit(&s, &se, x, y, 6), 0);
    cr_expect_float_eq(s, 3.0, 1e-12);
    cr_expect_lt(se, 1e-10);
    cr_expect_neq(lm_mdgd_fit(&s, &se, x, y, 2), 0);
    /* a synthetic trace: D = 1/r^2 after a peak, r = log k */
    lm_mdgd_trace tr = {0};
    tr.cap = 64;
    tr.k = calloc(64, sizeof(double));
    tr.r = calloc(64, sizeof(double));
    tr.D = calloc(64, sizeof(double));
    tr.logdr = calloc(64, sizeof(double));
    for (int j = 0; j < 40; j++) {
        double k = exp(0.25 * j) + 1.0;
        tr.k[j] = floor(k);
        tr.r[j] = 2.0 + log(k);
        tr.D[j] = j < 5 ? 1e-3 * (j + 1) : 1.0 / (tr.r[j] * tr.r[j]);
        tr.logdr[j] = -tr.r[j]; /* increments e^{-r} */
        tr.n++;
    }
    lm_mdgd_rates q;
    lm_mdgd_rates_compute(&q, &tr, 1.0);
    cr_expect_gt(q.growth, 8.0);
    /* the rate rule (issue 16, item 6) on the trace: windows k in [K/8, K] and [K/16, K/2] */
    lm_rate_fit f;
    lm_mdgd_fit_D(&f, &tr, -2.0, -1, 0.05, 0.02);
    cr_expect_eq(f.decision, LM_RATE_CONSISTENT, "%s", f.why);
    cr_expect_float_eq(f.slope, -2.0, 1e-9);
    cr_expect_float_eq(f.slope_half, -2.0, 1e-9);
    cr_expect_geq(f.t_lo, tr.k[tr.n - 1] / 8 - 1e-9);
    lm_mdgd_fit_D(&f, &tr, -3.0, -1, 0.05, 0.02); /* a faster claimed decay */
    cr_expect_eq(f.decision, LM_RATE_INCONSISTENT, "%s", f.why);
    lm_mdgd_fit_r(&f, &tr, 1.0, 0.0, 1, 1e-3, 0.02);
    cr_expect_eq(f.decision, LM_RATE_CONSISTENT, "%s", f.why);
    cr_expect_gt(f.slope, 0.99);
    lm_mdgd_fit_c1(&f, &tr, 1.0, 1.0, -0.2, 1, 1e-3, 0.02);
    cr_expect_neq(f.decision, LM_RATE_INCONSISTENT, "%s", f.why);
    cr_expect_lt(fabs(f.slope), 0.05); /* log increment + c2 r with c2 = 1: flat */
    /* c2 half the true exponent: log c_1 falls like -r/2, beyond the allowed drift 0.2 */
    lm_mdgd_fit_c1(&f, &tr, 1.0, 0.5, -0.2, 1, 1e-3, 0.02);
    cr_expect_eq(f.decision, LM_RATE_INCONSISTENT, "%s", f.why);
    cr_expect_float_eq(f.slope, -0.5, 0.05);
    lm_mdgd_trace_clear(&tr);
}

/* lm_rate_fit_xy sets its windows by the iterate k, not by x: a transient before k = K/16
 * is discarded whatever x is; one that reaches into [K/16, K/2] makes the fit too short */
Test(md_rate, rate_fit_windows_are_in_k)
{
    static double k[1024], x[1024], y[1024];
    int n = 0;
    for (int i = 1; i <= 1024; i++, n++) {
        k[n] = i;
        x[n] = sqrt((double)i); /* not a time: [x_max/8, x_max] would start at k = 16 */
        y[n] = i >= 64 ? 3.0 * x[n] : 0.0;
    }
    lm_rate_fit f;
    lm_rate_fit_xy(&f, k, x, y, n, 3.0, 0, 0.01, 0.95, 0.01);
    cr_expect_eq(f.decision, LM_RATE_CONSISTENT, "%s", f.why);
    cr_expect_float_eq(f.slope, 3.0, 1e-9);
    cr_expect_float_eq(f.slope_half, 3.0, 1e-9);
    /* the transient up to k = 200 lies in the half window [64, 512]: too short, not inconsistent */
    for (int i = 0; i < n; i++) y[i] = k[i] >= 200 ? 3.0 * x[i] : 0.0;
    lm_rate_fit_xy(&f, k, x, y, n, 1.0, 0, 0.01, 0.95, 0.01);
    cr_expect_eq(f.decision, LM_RATE_TOO_SHORT, "%s", f.why);
    cr_expect(strstr(f.why, "horizon too short") != NULL, "%s", f.why);
    /* fewer than 4 points in a window */
    lm_rate_fit_xy(&f, k, x, y, 3, 3.0, 0, 0.01, 0.95, 0.01);
    cr_expect_eq(f.decision, LM_RATE_TOO_SHORT);
}

/* ---------- the claims ---------- */

Test(md_rate, lemma27_as_stated_and_wrong_constant)
{
    lm_test_not_error("mirror/lemma27", "p=3,eta=0.1", 2);
    /* the right side of (25) 1% larger: (25) is tight to 1e-4 in the late steps */
    const char *s1[] = {"gain_scale=1.01", NULL};
    lm_test_expect("mirror/lemma27", s1, "p=2,eta=1", 2, LM_V_VIOLATED);
    /* without the Lemma 21 factor (pi = 0) the inequality fails where pi_eff > 0 */
    const char *s2[] = {"pi_scale=0", NULL};
    lm_test_expect("mirror/lemma27", s2, "p=1.5,eta=1", 2, LM_V_VIOLATED);
}

Test(md_rate, lemma28_as_stated_and_wrong_constant)
{
    lm_test_not_error("mirror/lemma28", "p=2,eta=0.1", 2);
    const char *s[] = {"pi_scale=0", NULL};
    lm_test_expect("mirror/lemma28", s, "p=2,eta=1", 2, LM_V_VIOLATED);
}

Test(md_rate, lemma29_as_stated_and_wrong_constant)
{
    lm_test_not_error("mirror/lemma29", "p=2,eta=1,inequalities", 2);
    lm_test_not_error("mirror/lemma29", "p=2,eta=1,slope", 2);
    const char *s1[] = {"c_scale=0.5", NULL};
    lm_test_expect("mirror/lemma29", s1, "p=3,eta=1,inequalities", 2, LM_V_INCONSISTENT);
    /* a decay exponent 5 min(1, p-1): no run decays that fast */
    const char *s2[] = {"rate_scale=5", "regime_drop=1", NULL};
    lm_test_expect("mirror/lemma29", s2, "p=2,eta=1,slope", 2, LM_V_INCONSISTENT);
}

Test(md_rate, lemma30_as_stated_and_wrong_constant)
{
    lm_test_not_error("mirror/lemma30", "p=2,eta=1", 2);
    /* c_2 half of Lemma 20's exponent: c_1(k) decays like e^{-r/(2||W_mm||)} */
    const char *s[] = {"c2_scale=0.5", NULL};
    lm_test_expect("mirror/lemma30", s, "p=3,eta=1", 2, LM_V_INCONSISTENT);
}

Test(md_rate, theorem_localconv_as_stated_and_wrong_constant)
{
    lm_test_not_error("mirror/theorem-localconv", "p=2,eta=1", 2);
    const char *s[] = {"decay_min=5", NULL};
    lm_test_expect("mirror/theorem-localconv", s, "p=2,eta=1", 2, LM_V_INCONSISTENT);
}

Test(md_rate, theorem_rate_as_stated_and_wrong_constant)
{
    lm_test_not_error("mirror/theorem-rate", "p=1.5,eta=1", 2);
    const char *s[] = {"rate_scale=5", "regime_drop=1", NULL};
    lm_test_expect("mirror/theorem-rate", s, "p=2,eta=1", 2, LM_V_INCONSISTENT);
}

Test(md_rate, theorem_joint_as_stated_and_wrong_constant)
{
    lm_test_not_error("mirror/theorem-joint", "p=2,K=2000", 2);
    const char *s[] = {"div_tol=1e-6", NULL};
    lm_test_expect("mirror/theorem-joint", s, "p=2,K=2000", 2, LM_V_INCONSISTENT);
}
