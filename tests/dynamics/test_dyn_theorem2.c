/* Tests for the Theorem-2 group: dynamics/theorem2, proof-theorem2-invariants,
 * remark2, corollary1, remark3, section4.1-gaussian-analogue, and the MLP
 * chain of src/models/t2.c. */
#include "lm_t2.h"
#include "test_support.h"
#include <math.h>

/* ---- the MLP chain: the GD step must move along the exact gradient ---- */

/* f of the chain after setting W^l(i,j) += h (restored afterwards) */
static void f_at(lm_num *f, lm_c1 *c1, lm_mat *W, int i, int j, const lm_num *h)
{
    lm_ctx c = lm_mat_ctx(W);
    lm_num x, x0;
    lm_num_inits(&c, &x, &x0, (lm_num *)NULL);
    lm_mat_get(&x0, W, i, j);
    lm_num_add(&x, &x0, h);
    lm_mat_set(W, i, j, &x);
    lm_c1_forward(c1);
    lm_num_set(f, &c1->m->f);
    lm_mat_set(W, i, j, &x0);
    lm_c1_forward(c1);
    lm_num_clears(&x, &x0, (lm_num *)NULL);
}

Test(dynamics_theorem2, mlp_chain_gradient_matches_finite_differences)
{
    lm_ctx c = lm_ctx_mpfr(256);
    lm_rng g;
    lm_rng_init(&g, 11);
    lm_mha *m = lm_mha_new(2, 3, 4, 2, 2, LM_SOFTMAX, LM_WV_DENSE, &c);
    lm_mha_randomize(m, &g, 1.0, 1.0, 1.0, 1.0);
    for (int k = 0; k < 6; k++) lm_mat_set_d(m->y, k, 0, lm_rng_normal(&g));
    const int mid[2] = {4, 2};
    lm_c1 *c1 = lm_c1_new(m, 3, mid, &g);
    cr_expect(fabs(lm_num_get_d(&c1->c) - 1.0) < 1e-14, "product of the chain is %.17g, not 1",
              lm_num_get_d(&c1->c));
    /* move off the balanced point so that every gradient is generic */
    lm_mat_set_d(c1->W[1], 0, 0, lm_mat_get_d(c1->W[1], 0, 0) + 0.3);
    lm_c1_forward(c1);
    /* one GD step with tiny eta: (W - W') / eta is the gradient the step used */
    lm_mat *W0[3], *W1[3];
    for (int l = 0; l < 3; l++) W0[l] = lm_mat_dup(c1->W[l]);
    const int np = lm_mha_nparams(c1->m, LM_VAR_ALL);
    lm_mat *p0 = lm_mat_new(np, 1, &c), *p1 = lm_mat_new(np, 1, &c);
    lm_mha_get_params(p0, c1->m, LM_VAR_ALL);
    lm_num eta, h, fp, fm, gd, gs, ten;
    lm_num_inits(&c, &eta, &h, &fp, &fm, &gd, &gs, &ten, (lm_num *)NULL);
    lm_num_set_d(&eta, 1e-30);
    lm_num_set_d(&h, 1e-25);
    lm_c1_gd_step(c1, &eta);
    for (int l = 0; l < 3; l++) W1[l] = lm_mat_dup(c1->W[l]);
    lm_mha_get_params(p1, c1->m, LM_VAR_ALL);
    /* restore the start */
    lm_mha_set_params(c1->m, LM_VAR_ALL, p0);
    for (int l = 0; l < 3; l++) lm_mat_copy(c1->W[l], W0[l]);
    lm_c1_forward(c1);
    double worst = 0;
    for (int l = 0; l < 3; l++)
        for (int i = 0; i < W0[l]->r; i++)
            for (int j = 0; j < W0[l]->c; j++) {
                f_at(&fp, c1, c1->W[l], i, j, &h);
                lm_num_neg(&gd, &h);
                f_at(&fm, c1, c1->W[l], i, j, &gd);
                lm_num_sub(&gd, &fp, &fm);
                lm_num_div(&gd, &gd, &h);
                lm_num_mul_d(&gd, &gd, 0.5); /* central difference */
                lm_mat_get(&gs, W0[l], i, j);
                lm_mat_get(&fp, W1[l], i, j);
                lm_num_sub(&gs, &gs, &fp);
                lm_num_div(&gs, &gs, &eta); /* gradient used by the step */
                lm_num_sub(&gd, &gd, &gs);
                worst = fmax(worst, fabs(lm_num_get_d(&gd)) / (1.0 + fabs(lm_num_get_d(&gs))));
            }
    cr_expect(worst < 1e-20, "chain gradient differs from central differences by %.3g", worst);
    /* attention parameters: the step must use the gradient of the model with W^O = c W^O_0 */
    lm_mha *mm = lm_mha_convert(c1->m, &c);
    lm_mat *g2 = lm_mat_new(np, 1, &c);
    lm_c1_forward(c1);
    lm_mat_copy(mm->Wo, c1->m->Wo);
    lm_mha_flat_grad(g2, mm, LM_VAR_ALL);
    worst = 0;
    for (int k = 0; k < np; k++) {
        lm_mat_get(&gs, p0, k, 0);
        lm_mat_get(&fp, p1, k, 0);
        lm_num_sub(&gs, &gs, &fp);
        lm_num_div(&gs, &gs, &eta);
        lm_mat_get(&gd, g2, k, 0);
        lm_num_sub(&gd, &gd, &gs);
        worst = fmax(worst, fabs(lm_num_get_d(&gd)) / (1.0 + fabs(lm_num_get_d(&gs))));
    }
    cr_expect(worst < 1e-20, "attention gradient of the chain differs by %.3g", worst);
    lm_num_clears(&eta, &h, &fp, &fm, &gd, &gs, &ten, (lm_num *)NULL);
    for (int l = 0; l < 3; l++) { lm_mat_free(W0[l]); lm_mat_free(W1[l]); }
    lm_mat_free(p0); lm_mat_free(p1); lm_mat_free(g2);
    lm_mha_free(mm);
    lm_c1_free(c1);
    lm_mha_free(m);
}

/* ---- dynamics/theorem2 ---- */

Test(dynamics_theorem2, wrong_constant_is_violated)
{
    /* beta a million times too large: the demanded decrease is far beyond GD's */
    const char *sets[] = {"beta_scale=1e6", NULL};
    lm_test_expect("dynamics/theorem2", sets, "beta,dense,eta=0.99/(2G)", 4, LM_V_VIOLATED);
}

Test(dynamics_theorem2, as_stated_not_error)
{
    lm_test_not_error("dynamics/theorem2", "beta,dense,eta=0.99/(2G)", 4);
    lm_test_not_error("dynamics/theorem2", "mu,block,eta=0.99/(2G)", 4);
}

Test(dynamics_theorem2, dense_beta_rate_holds)
{
    lm_claim_result r = lm_test_run("dynamics/theorem2", NULL, "beta,dense,eta=0.99/(2G)", 4);
    cr_expect(r.verdict == LM_V_HOLDS, "got %s (%s)", lm_verdict_name(r.verdict), r.cfg[0].detail);
    lm_claim_result_clear(&r);
}

/* ---- dynamics/proof-theorem2-invariants ---- */

Test(dynamics_theorem2, invariants_wrong_constants_are_violated)
{
    const char *s1[] = {"inv_scale=0.5", NULL}; /* sigma_max(W^Q_0) <= 3/4 lambda^Q fails at r=0 */
    lm_test_expect("dynamics/proof-theorem2-invariants", s1, "sigma_max(W^Q_h,r)<=3/2 lambda^Q_h", 2,
                   LM_V_VIOLATED);
    const char *s2[] = {"inv_scale=0.5", "lamV=1", NULL};
    lm_test_expect("dynamics/proof-theorem2-invariants", s2, "sigma_max(W^V_r)<=3/2 lambda^V", 2,
                   LM_V_VIOLATED);
    const char *s3[] = {"B_factor=2", NULL};
    lm_test_expect("dynamics/proof-theorem2-invariants", s3, "sigma_min(B_r)>=lambda^B/2", 2, LM_V_VIOLATED);
    const char *s4[] = {"mu_factor=1e6", NULL};
    lm_test_expect("dynamics/proof-theorem2-invariants", s4, "f(M_r)<=(1-eta mu)^r f(M_0)", 2,
                   LM_V_VIOLATED);
    const char *s5[] = {"nrmB_scale=0.01", NULL};
    lm_test_expect("dynamics/proof-theorem2-invariants", s5, "pointwise ||B||_F<=sqrt(HN)||X||_F", 4,
                   LM_V_VIOLATED);
}

Test(dynamics_theorem2, invariants_as_stated_not_error)
{
    lm_test_not_error("dynamics/proof-theorem2-invariants", "sigma_max(W^V_r)<=3/2 lambda^V", 2);
    lm_test_not_error("dynamics/proof-theorem2-invariants", "sigma_min(B_r)>=lambda^B/2", 2);
    lm_test_not_error("dynamics/proof-theorem2-invariants", "f(M_r)<=(1-eta mu)^r f(M_0)", 2);
    lm_test_not_error("dynamics/proof-theorem2-invariants", "pointwise ||B||_F<=sqrt(HN)||X||_F", 4);
}

Test(dynamics_theorem2, nrmB_step_with_sqrt_HN_fails_for_one_sample)
{
    /* the printed step: with N = 1 < n and every query on one token the ratio
     * exceeds 1 (a finding about the proof, confirmed in MPFR) */
    lm_claim_result r = lm_test_run("dynamics/proof-theorem2-invariants", NULL,
                                    "pointwise ||B||_F<=sqrt(HN)||X||_F", 32);
    cr_expect(r.verdict == LM_V_VIOLATED, "got %s", lm_verdict_name(r.verdict));
    cr_expect(r.cfg[0].worst_ratio > 1.5, "worst ratio %.4g", r.cfg[0].worst_ratio);
    lm_claim_result_clear(&r);
}

Test(dynamics_theorem2, nrmB_step_holds_with_sqrt_nH)
{
    /* ||S||_2 <= sqrt(n) for a row-stochastic S, so ||B||_F <= sqrt(nH)||X||_F always */
    const char *sets[] = {"nrmB_reading=1", NULL};
    lm_claim_result r = lm_test_run("dynamics/proof-theorem2-invariants", sets,
                                    "pointwise ||B||_F<=sqrt(HN)||X||_F", 32);
    cr_expect(r.verdict == LM_V_HOLDS, "got %s", lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
}

/* ---- dynamics/remark2 ---- */

Test(dynamics_theorem2, remark2_empty_band_is_inconsistent)
{
    /* a factor below 1 demands rate_C1/rate_T2 in [1/0.9, 0.9]: empty */
    const char *sets[] = {"factor=0.9", NULL};
    lm_test_expect("dynamics/remark2", sets, "L=2,init (8)", 3, LM_V_INCONSISTENT);
}

Test(dynamics_theorem2, remark2_as_stated_not_error)
{
    lm_test_not_error("dynamics/remark2", "L=3,init (8)", 3);
    lm_test_not_error("dynamics/remark2", "L=1,init (8)", 3);
}

/* ---- dynamics/corollary1 ---- */

Test(dynamics_theorem2, corollary1_wrong_constants_are_violated)
{
    const char *s1[] = {"C_max=1e-3", NULL}; /* C >= 1 at t = 0 */
    lm_test_expect("dynamics/corollary1", s1, "L=2", 2, LM_V_VIOLATED);
    const char *s2[] = {"rate_min=10", NULL}; /* rho <= e^-10 per step */
    lm_test_expect("dynamics/corollary1", s2, "L=1", 2, LM_V_VIOLATED);
}

Test(dynamics_theorem2, corollary1_as_stated_holds)
{
    lm_claim_result r = lm_test_run("dynamics/corollary1", NULL, "L=3", 3);
    cr_expect(r.verdict == LM_V_HOLDS, "got %s (%s)", lm_verdict_name(r.verdict), r.cfg[0].detail);
    lm_claim_result_clear(&r);
}

/* ---- dynamics/remark3 ---- */

Test(dynamics_theorem2, remark3_wrong_slope_is_violated)
{
    const char *s1[] = {"slope_main=-3", NULL};
    lm_test_expect("dynamics/remark3", s1, "(8) main lambda^V vs c: slope -2", 4, LM_V_VIOLATED);
    const char *s2[] = {"slope12_main=-2", NULL}; /* the balancing does not move (12) */
    lm_test_expect("dynamics/remark3", s2, "(12) main lambda^V vs c: slope 0", 3, LM_V_VIOLATED);
}

/* issue 16: the configurations also judge the remarks' claim that the balancing meets the
 * condition; it does for (8) and option (1), never for (12) (slope 0 or +1), which Remark 6
 * says it does: the claim as printed is violated, on the (12) configurations only */
Test(dynamics_theorem2, remark3_as_stated_holds_for_8_not_for_12)
{
    lm_claim_result r = lm_test_run("dynamics/remark3", NULL, NULL, 4);
    cr_expect(r.verdict == LM_V_VIOLATED, "got %s", lm_verdict_name(r.verdict));
    for (int k = 0; k < r.nconfig; k++) {
        int is12 = strstr(r.cfg[k].config, "(12)") != NULL;
        cr_expect_eq(r.cfg[k].verdict, is12 ? LM_V_VIOLATED : LM_V_HOLDS, "%s: got %s", r.cfg[k].config,
                     lm_verdict_name(r.cfg[k].verdict));
    }
    lm_claim_result_clear(&r);
}

/* ---- dynamics/section4.1-gaussian-analogue ---- */

Test(dynamics_theorem2, gaussian_analogue_wrong_constants_are_inconsistent)
{
    const char *s1[] = {"alpha_scale=10", NULL};
    lm_test_expect("dynamics/section4.1-gaussian-analogue", s1, "T1 analogue, dense, eta=1/G_V", 4,
                   LM_V_INCONSISTENT);
    const char *s2[] = {"beta_scale=1e6", NULL};
    lm_test_expect("dynamics/section4.1-gaussian-analogue", s2, "T2 analogue, dense, eta=0.99/(2G')", 3,
                   LM_V_INCONSISTENT);
    const char *s3[] = {"target=1e-300", "T_run=40", "T_max=40", NULL};
    lm_test_expect("dynamics/section4.1-gaussian-analogue", s3, "global optimum, M={W^V}", 2,
                   LM_V_INCONSISTENT);
}

Test(dynamics_theorem2, gaussian_analogue_as_stated_not_error)
{
    lm_test_not_error("dynamics/section4.1-gaussian-analogue", "T1 analogue, block, eta=1/G_V", 3);
    lm_test_not_error("dynamics/section4.1-gaussian-analogue", "T2 analogue, block, eta=0.99/(2G')", 3);
    lm_test_not_error("dynamics/section4.1-gaussian-analogue", "global optimum, M={W^Q,W^K,W^V}", 2);
}

/* issue 15: T_run = -1 overflowed the global-optimum run's history (T+1 doubles; the loop
 * stopped only at t == T).  T_run is ranged now, and the run stops at t >= T. */
Test(dynamics_theorem2, gaussian_analogue_run_length_is_ranged_and_short_runs_stop)
{
    const lm_claim *c = lm_claim_find("dynamics/section4.1-gaussian-analogue");
    cr_assert_not_null(c);
    const char *bad[] = {"T_run=-1", "T_run=0", "T_run=100001", "T_run=1.5"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        int idx;
        double v;
        char err[256] = "";
        cr_assert_neq(lm_claim_parse_set(c, bad[k], &idx, &v, err, sizeof err), 0, "%s accepted", bad[k]);
        cr_expect(strstr(err, "[1, 100000]") != NULL, "%s: '%s'", bad[k], err);
    }
    const char *s[] = {"T_run=1", NULL};
    lm_claim_result r = lm_test_run("dynamics/section4.1-gaussian-analogue", s, "global optimum, M={W^V}", 2);
    cr_expect_gt(r.instances, 0);
    lm_claim_result_clear(&r);
}

/* ---- certification (issue 7): dynamics/theorem2 is audited (.certifiable = 1) ---- */

Test(dynamics_theorem2, wrong_constant_violation_is_certified)
{
    const char *sets[] = {"beta_scale=1e6", NULL};
    lm_claim_result r = lm_test_run("dynamics/theorem2", sets, "beta,dense,eta=0.99/(2G)", 4);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "got %s", lm_verdict_name(r.verdict));
    cr_expect(r.nconfig == 1 && r.cfg[0].certified && r.cfg[0].cert_prec >= 128, "not certified: %s",
              r.nconfig ? r.cfg[0].cert_note : "");
    lm_claim_result_clear(&r);
}

Test(dynamics_theorem2, block_violation_is_certified)
{
    /* the real violation with the block-diagonal W^V (instance 35 of the seed) */
    lm_claim_result r = lm_test_run("dynamics/theorem2", NULL, "beta,block,eta=0.99/(2G)", 36);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "got %s", lm_verdict_name(r.verdict));
    cr_expect(r.nconfig == 1 && r.cfg[0].certified, "not certified: %s", r.nconfig ? r.cfg[0].cert_note : "");
    lm_claim_result_clear(&r);
}

Test(dynamics_theorem2, step_beyond_1_over_2G_is_not_certified)
{
    /* eta = 2 * 0.99/(2G) > 1/(2G): the break is real in double, but the theorem's step-size
     * hypothesis fails, which the ball check of lm_t2_ball_hyp must refuse to certify */
    const char *sets[] = {"beta_scale=1e6", "eta_scale=2", NULL};
    lm_claim_result r = lm_test_run("dynamics/theorem2", sets, "beta,dense,eta=0.99/(2G)", 4);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "got %s", lm_verdict_name(r.verdict));
    cr_expect(r.nconfig == 1 && !r.cfg[0].certified, "certified although eta > 1/(2G)");
    lm_claim_result_clear(&r);
}

/* ---- certification (issue 7): dynamics/proof-theorem2-invariants is audited ---- */

Test(dynamics_theorem2, invariants_pointwise_violation_is_certified)
{
    /* ||B||_F <= sqrt(HN)||X||_F fails as printed when n > N; certified in balls */
    lm_claim_result r = lm_test_run("dynamics/proof-theorem2-invariants", NULL,
                                    "pointwise ||B||_F<=sqrt(HN)||X||_F", 8);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "got %s", lm_verdict_name(r.verdict));
    cr_expect(r.nconfig == 1 && r.cfg[0].certified, "not certified: %s", r.nconfig ? r.cfg[0].cert_note : "");
    lm_claim_result_clear(&r);
}

Test(dynamics_theorem2, invariants_trajectory_breaks_are_certified)
{
    /* wrong constants on the trajectory invariants: the hypotheses (46), eta < 1/(2G) are
     * confirmed in balls and the break at the iterate is certified */
    const char *s1[] = {"inv_scale=0.5", NULL};
    lm_claim_result r = lm_test_run("dynamics/proof-theorem2-invariants", s1, "sigma_max(W^Q_h,r)<=3/2 lambda^Q_h", 2);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "got %s", lm_verdict_name(r.verdict));
    cr_expect(r.nconfig == 1 && r.cfg[0].certified, "not certified: %s", r.nconfig ? r.cfg[0].cert_note : "");
    lm_claim_result_clear(&r);
    const char *s2[] = {"B_factor=1.5", NULL};
    r = lm_test_run("dynamics/proof-theorem2-invariants", s2, "sigma_min(B_r)>=lambda^B/2", 2);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "got %s", lm_verdict_name(r.verdict));
    cr_expect(r.nconfig == 1 && r.cfg[0].certified, "not certified: %s", r.nconfig ? r.cfg[0].cert_note : "");
    lm_claim_result_clear(&r);
    const char *s3[] = {"mu_factor=1e6", NULL};
    r = lm_test_run("dynamics/proof-theorem2-invariants", s3, "f(M_r)<=(1-eta mu)^r f(M_0)", 2);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "got %s", lm_verdict_name(r.verdict));
    cr_expect(r.nconfig == 1 && r.cfg[0].certified, "not certified: %s", r.nconfig ? r.cfg[0].cert_note : "");
    lm_claim_result_clear(&r);
}
