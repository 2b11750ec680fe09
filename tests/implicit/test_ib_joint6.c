/* tests/test_ib_joint6.c -- joint-training slice 6 of the implicit-bias
 * paper: the decoder's implicit bias (implicit/theorem4, implicit/theorem10)
 * and the shared run of src/models/ibdec.c. */
#include "test_support.h"
#include "lm_ibdec.h"
#include "lm_ibgen.h"
#include "lm_svm.h"
#include <math.h>
#include <stdlib.h>

#define CFG0 "R4 W_0=0"

/* ---- the shared quantities against explicit d-dimensional computations ---- */

Test(ib_joint6, rho_and_softmax_gap_match_explicit_forms)
{
    lm_ctx c = lm_ctx_double();
    lm_rng g;
    lm_rng_init(&g, 61);
    lm_ibgen_dm_opts o;
    lm_ibgen_dm_defaults(&o);
    o.d = 60;
    o.n = 5;
    lm_attn_data *D = lm_ibgen_dm(&o, &g, &c);
    lm_svm_sol su = {0};
    cr_assert_eq(lm_svm_u(&su, D, NULL), LM_SVM_OK);
    lm_ibj *J = lm_ibj_new(D, NULL, 1, LM_ATTN_EXP);
    cr_assert_not_null(J);
    lm_attn_opt_par p;
    lm_attn_opt_par_default(&p);
    for (int t = 0; t < 50; t++) cr_assert_eq(lm_ibj_step(J, "joint13", &p), 0);
    lm_num umm, rho, r, lom;
    lm_num_inits(&c, &umm, &rho, &r, &lom, (lm_num *)NULL);
    lm_num_sqrt(&umm, &su.norm2);
    cr_assert_eq(lm_ibdec_rho(&rho, J, &umm), 0);
    /* explicit: ||u_mm|| min_i y_i u^T x_{i,opt} / ||u|| with u, u_mm as d-vectors */
    lm_mat *u = lm_mat_new(D->d, 1, &c), *um = lm_mat_new(D->d, 1, &c), *W = lm_mat_new(D->d, D->d, &c);
    lm_ibj_u(u, J);
    lm_svm_u_vector(um, &su, D);
    lm_svm_u_margin(&r, u, D);
    double nu = 0, nm = 0;
    for (int k = 0; k < D->d; k++) {
        nu += pow(lm_mat_get_d(u, k, 0), 2);
        nm += pow(lm_mat_get_d(um, k, 0), 2);
    }
    double want = sqrt(nm) * lm_num_get_d(&r) / sqrt(nu);
    cr_expect_float_eq(lm_num_get_d(&rho), want, 1e-11, "rho %.15g vs explicit %.15g", lm_num_get_d(&rho), want);
    cr_expect(lm_num_get_d(&rho) <= 1.0 && lm_num_get_d(&rho) > 0.0, "rho = %g", lm_num_get_d(&rho));
    /* u = u_mm gives rho = 1 (the max-margin property is tight at u_mm) */
    lm_mat_copy(J->U, su.M);
    cr_assert_eq(lm_ibj_refresh(J), 0);
    cr_assert_eq(lm_ibdec_rho(&rho, J, &umm), 0);
    cr_expect_float_eq(lm_num_get_d(&rho), 1.0, 1e-12, "rho(u_mm) = %.17g", lm_num_get_d(&rho));
    /* log(1 - s_opt) against the explicit forward pass (designated opt) */
    lm_ibj_W(W, J, NULL);
    lm_ibj_u(u, J);
    lm_attn_fwd *F = lm_attn_fwd_new(D);
    cr_assert_eq(lm_attn_forward(F, D, W, u, LM_ATTN_EXP), 0);
    lm_ibdec_log_one_minus_sopt(&lom, J);
    double wl = -INFINITY;
    for (int i = 0; i < D->n; i++) {
        /* T = 2: 1 - s_opt = s_other, computed explicitly from the logits */
        int oi = D->opt[i];
        double a0 = lm_mat_get_d(F->a, i, oi), a1 = lm_mat_get_d(F->a, i, 1 - oi);
        wl = fmax(wl, -log1p(exp(a0 - a1)));
    }
    cr_expect_float_eq(lm_num_get_d(&lom), wl, 1e-12, "log(1-s_opt) %.15g vs %.15g", lm_num_get_d(&lom), wl);
    lm_num_clears(&umm, &rho, &r, &lom, (lm_num *)NULL);
    lm_attn_fwd_free(F);
    lm_mat_free(u);
    lm_mat_free(um);
    lm_mat_free(W);
    lm_ibj_free(J);
    lm_svm_sol_clear(&su);
    lm_attn_data_free(D);
}

/* the same instance run wholly in MPFR agrees with the double run */
Test(ib_joint6, theorem10_double_and_mpfr_runs_agree)
{
    const lm_claim *cl = lm_claim_find("implicit/theorem10");
    cr_assert_not_null(cl);
    double v[2][3];
    for (int k = 0; k < 2; k++) {
        lm_run_opts o;
        lm_run_opts_default(&o);
        o.budget = 1;
        o.quick = 1;
        o.only_config = CFG0;
        o.prec = k ? 256 : 0;
        o.set_name[o.nset] = "steps";
        o.set_val[o.nset++] = 1200; /* quick: 300 iterations */
        o.set_name[o.nset] = "thr_scale";
        o.set_val[o.nset++] = 1000; /* gate open: (s) observed at every t >= 2 */
        lm_claim_result r;
        cr_assert_eq(lm_run_claim(&r, cl, &o), 0);
        cr_expect_eq(r.verdict, LM_V_CONSISTENT, "%s run: %s (%s)", k ? "MPFR" : "double",
                     lm_verdict_name(r.verdict), r.cfg[0].detail);
        v[k][0] = lm_test_measure(r.cfg[0].measures, "rho_T");
        v[k][1] = lm_test_measure(r.cfg[0].measures, "1 - cos(u_T, u_mm)");
        v[k][2] = lm_test_measure(r.cfg[0].measures, "(s) worst log(1 - s_opt) + c ||W_t||/||W_mm||");
        cr_expect_eq(lm_test_measure(r.cfg[0].measures, "(s) iterates checked"), 299.0);
        lm_claim_result_clear(&r);
    }
    for (int j = 0; j < 3; j++)
        cr_expect(isfinite(v[0][j]) && fabs(v[0][j] - v[1][j]) <= 1e-9 * fmax(1.0, fabs(v[1][j])),
                  "measure %d: double %.12g vs mpfr %.12g", j, v[0][j], v[1][j]);
}

/* ---- implicit/theorem4 ---- */

Test(ib_joint6, theorem4_as_stated_not_error)
{
    lm_test_not_error("implicit/theorem4", CFG0, 2);
    lm_test_not_error("implicit/theorem4", "R4 small random W_0", 2);
}

Test(ib_joint6, theorem4_wrong_c4_is_inconsistent)
{
    /* c4 = 1 with C4 = 0: rho_t >= 1, impossible short of u_t parallel to u_mm */
    const char *sets[] = {"c4_scale=4", NULL};
    lm_test_expect("implicit/theorem4", sets, CFG0, 2, LM_V_INCONSISTENT);
}

Test(ib_joint6, theorem4_wrong_svm_norm_is_inconsistent)
{
    /* doubling ||u_mm|| pushes rho_t above 1: (a) must catch it */
    const char *sets[] = {"umm_scale=2", NULL};
    lm_test_expect("implicit/theorem4", sets, CFG0, 2, LM_V_INCONSISTENT);
}

Test(ib_joint6, theorem4_wrong_direction_rate_is_inconsistent)
{
    /* 1 - cos(u_t, u_mm) cannot decay like t^-5 (short run: the break is at T) */
    const char *sets[] = {"cu_slope_min=5", "steps=2000", NULL};
    lm_test_expect("implicit/theorem4", sets, CFG0, 2, LM_V_INCONSISTENT);
}

Test(ib_joint6, theorem4_too_short_run_is_assumption_failed)
{
    const char *sets[] = {"steps=40", NULL}; /* quick: 10 iterations */
    lm_test_expect("implicit/theorem4", sets, CFG0, 2, LM_V_ASSUMPTION_FAILED);
}

/* ---- implicit/theorem10 ---- */

Test(ib_joint6, theorem10_as_stated_not_error)
{
    lm_test_not_error("implicit/theorem10", CFG0, 2);
}

Test(ib_joint6, theorem10_wrong_softmax_constant_is_inconsistent)
{
    /* c = 2 instead of 1/2 (gate opened so that the break comes early) */
    const char *sets[] = {"c_scale=4", "thr_scale=1000", NULL};
    lm_test_expect("implicit/theorem10", sets, CFG0, 2, LM_V_INCONSISTENT);
}

Test(ib_joint6, theorem10_says_when_the_regime_is_not_entered)
{
    const char *sets[] = {"steps=400", NULL}; /* quick: 100 iterations, e^W stays above the threshold */
    lm_claim_result r = lm_test_run("implicit/theorem10", sets, CFG0, 2);
    cr_expect_eq(r.verdict, LM_V_CONSISTENT, "got %s (%s)", lm_verdict_name(r.verdict), r.cfg[0].detail);
    cr_expect_eq(lm_test_measure(r.cfg[0].measures, "(s) regime entered (1/0)"), 0.0);
    cr_expect_eq(lm_test_measure(r.cfg[0].measures, "(s) iterates checked"), 0.0);
    lm_claim_result_clear(&r);
}

Test(ib_joint6, theorem10_wrong_c4_is_inconsistent)
{
    const char *sets[] = {"c4_scale=4", NULL};
    lm_test_expect("implicit/theorem10", sets, CFG0, 2, LM_V_INCONSISTENT);
}
