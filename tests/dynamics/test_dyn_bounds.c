/* Tests for the perturbation-bound claims: dynamics/lemma2, lemma3, lemma7, lemma8.
 * Every claim must be able to fail: each gets a run with a deliberately wrong constant that
 * must come out `violated`, and runs as stated that must not come out `error`. */
#include "test_support.h"

/* ---- dynamics/lemma2 ---- */

Test(dynamics_lemma2, phi_too_small_is_violated)
{
    /* phi_i / 100: the softmax Jacobian's norm exceeds it on generic instances */
    const char *sets[] = {"phi_scale=0.01", NULL};
    lm_test_expect("dynamics/lemma2", sets, "item1,differential", 4, LM_V_VIOLATED);
    lm_test_expect("dynamics/lemma2", sets, "item1,finite", 4, LM_V_VIOLATED);
}

Test(dynamics_lemma2, psi_and_Q_too_small_are_violated)
{
    /* item 3's constant is sqrt(phi^2 + psi^2): both must shrink */
    const char *s1[] = {"phi_scale=0.01", "psi_scale=0.01", NULL};
    lm_test_expect("dynamics/lemma2", s1, "item3,differential", 4, LM_V_VIOLATED);
    const char *s2[] = {"Q_scale=0.001", NULL};
    lm_test_expect("dynamics/lemma2", s2, "item4,grad-WQ", 4, LM_V_VIOLATED);
    const char *s3[] = {"K_scale=0.0001", NULL};
    lm_test_expect("dynamics/lemma2", s3, "item5,grad-WK", 4, LM_V_VIOLATED);
}

Test(dynamics_lemma2, as_stated_not_error)
{
    lm_test_not_error("dynamics/lemma2", "item2,differential", 4);
    lm_test_not_error("dynamics/lemma2", "item3,finite", 4);
    lm_test_not_error("dynamics/lemma2", "item5,grad-WK", 4);
}

Test(dynamics_lemma2, as_stated_holds)
{
    lm_claim_result r = lm_test_run("dynamics/lemma2", NULL, "item1,differential", 4);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "got %s", lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
}

/* ---- dynamics/lemma3 ---- */

Test(dynamics_lemma3, G_tiny_is_violated)
{
    const char *sets[] = {"G_scale=1e-6", NULL};
    lm_test_expect("dynamics/lemma3", sets, "G,sigma-at-max", 2, LM_V_VIOLATED);
}

Test(dynamics_lemma3, Z89_tiny_is_violated)
{
    const char *sets[] = {"Z_scale=1e-3", NULL};
    lm_test_expect("dynamics/lemma3", sets, "Z89sum,sigma-at-bounds", 2, LM_V_VIOLATED);
}

Test(dynamics_lemma3, as_stated_not_error)
{
    lm_test_not_error("dynamics/lemma3", "G,sigma-at-bounds", 4);
    lm_test_not_error("dynamics/lemma3", "Z89sum,sigma-at-M", 4);
}

/* ---- dynamics/lemma7 ---- */

Test(dynamics_lemma7, Qp_too_small_is_violated)
{
    const char *sets[] = {"Qp_scale=0.01", NULL};
    lm_test_expect("dynamics/lemma7", sets, "item4,grad-WQh", 4, LM_V_VIOLATED);
}

Test(dynamics_lemma7, lower_bound_rhs_too_large_is_violated)
{
    /* (3) is an equality for n = H = 1 (instance 0): any factor > 1 on its right side breaks */
    const char *sets[] = {"rhs3_scale=1.001", NULL};
    lm_test_expect("dynamics/lemma7", sets, "item3,lower-bound", 4, LM_V_VIOLATED);
}

Test(dynamics_lemma7, equality_witnesses_catch_small_errors)
{
    /* the witnesses of (1) and (2) are tight: 1% (resp. 0.1%) too small a constant breaks */
    const char *s1[] = {"c1_scale=0.99", NULL};
    lm_test_expect("dynamics/lemma7", s1, "item1,differential", 4, LM_V_VIOLATED);
    const char *s2[] = {"c2_scale=0.999", NULL};
    lm_test_expect("dynamics/lemma7", s2, "item2,equality-witness", 4, LM_V_VIOLATED);
}

Test(dynamics_lemma7, equality_witnesses_hold_as_stated)
{
    /* at the equality witnesses the tolerance handling must not turn rounding into a break */
    const char *cfg[] = {"item1,differential", "item2,equality-witness", "item3,lower-bound"};
    for (int k = 0; k < 3; k++) {
        lm_claim_result r = lm_test_run("dynamics/lemma7", NULL, cfg[k], 4);
        cr_expect_eq(r.verdict, LM_V_HOLDS, "%s: got %s", cfg[k], lm_verdict_name(r.verdict));
        lm_claim_result_clear(&r);
    }
}

Test(dynamics_lemma7, as_stated_not_error)
{
    lm_test_not_error("dynamics/lemma7", "item1,finite", 4);
    lm_test_not_error("dynamics/lemma7", "item2,random", 4);
    lm_test_not_error("dynamics/lemma7", "item4,grad-WQh", 4);
}

/* ---- dynamics/lemma8 ---- */

Test(dynamics_lemma8, Gp_tiny_is_violated)
{
    const char *sets[] = {"Gp_scale=1e-6", NULL};
    lm_test_expect("dynamics/lemma8", sets, "Gp,WQ,sigma-at-max", 2, LM_V_VIOLATED);
}

Test(dynamics_lemma8, Zp_tiny_is_violated)
{
    const char *sets[] = {"Zp_scale=1e-3", NULL};
    lm_test_expect("dynamics/lemma8", sets, "Zp,WQ,sigma-at-bounds", 2, LM_V_VIOLATED);
}

Test(dynamics_lemma8, as_stated_not_error)
{
    lm_test_not_error("dynamics/lemma8", "Gp,WQ,sigma-at-bounds", 4);
    lm_test_not_error("dynamics/lemma8", "Zp,all,sigma-at-M", 4);
}

/* ---- certification (issue 7): dynamics/lemma3 and lemma8 are audited (.certifiable = 1) ---- */

#include "lm_dyn.h"
#include <math.h>

/* the smoothness constants in Arb (lm_dyn_nconsts) enclose the same formulas evaluated in
 * MPFR at 1024 bits, and their midpoints agree with the double S5 values (lm_dyn_consts),
 * so the ball path is the very constant the double path checks */
Test(dynamics_lemma3, ball_constants_enclose_mpfr_and_match_double)
{
    const int sz[3][5] = {{2, 2, 4, 2, 1}, {2, 3, 4, 2, 2}, {1, 3, 2, 1, 2}};
    const lm_ctx dc = lm_ctx_double(), ac = lm_ctx_arb(256), mc = lm_ctx_mpfr(1024);
    for (int t = 0; t < 6; t++) {
        const int *z = sz[t % 3];
        lm_rng g;
        lm_rng_init(&g, 77 + (uint64_t)t);
        lm_mha *md = lm_mha_new(z[0], z[1], z[2], z[3], z[4], t % 2 ? LM_GAUSS : LM_SOFTMAX,
                                t % 2 ? LM_WV_BLOCK : LM_WV_DENSE, &dc);
        lm_mha_randomize(md, &g, 1.0, 0.7, 1.3, 2.0);
        lm_dyn_consts kd, bd, kbd;
        cr_assert_eq(lm_dyn_consts_eval(&kd, md, NULL), 0);
        lm_dyn_induction_bounds(&bd, &kd, z[4], 1);
        cr_assert_eq(lm_dyn_consts_eval(&kbd, md, &bd), 0);
        lm_mha *ma = lm_mha_convert(md, &ac), *mm = lm_mha_convert(md, &mc);
        lm_dyn_nconsts ka, km, ba, bm;
        lm_dyn_nconsts_init(&ka, ma);
        lm_dyn_nconsts_init(&km, mm);
        lm_dyn_nconsts_init(&ba, ma);
        lm_dyn_nconsts_init(&bm, mm);
        lm_arb_taint_reset();
        cr_assert_eq(lm_dyn_nconsts_norms(&ka, ma, 1), 0);
        cr_assert_eq(lm_dyn_nconsts_norms(&km, mm, 1), 0);
        lm_dyn_nconsts_derive(&ka);
        lm_dyn_nconsts_derive(&km);
        /* the induction-bound reading: norms at M, sigma's replaced */
        lm_dyn_nconsts_norms(&ba, ma, 1);
        lm_dyn_nconsts_norms(&bm, mm, 1);
        lm_dyn_nconsts_induction(&ba, &ka, 1);
        lm_dyn_nconsts_induction(&bm, &km, 1);
        lm_dyn_nconsts_derive(&ba);
        lm_dyn_nconsts_derive(&bm);
        cr_expect_eq(lm_arb_taint(), 0, "the constants took a tainting decomposition");
        const lm_num *A[] = {&ka.Z90, &ka.Z89, &ka.G, &ka.Zp, &ka.Gp, &ka.Gp3, &ba.G, &ba.Z90, &ba.Gp3};
        const lm_num *M[] = {&km.Z90, &km.Z89, &km.G, &km.Zp, &km.Gp, &km.Gp3, &bm.G, &bm.Z90, &bm.Gp3};
        const double D[] = {kd.Z90, kd.Z89, kd.G, kd.Zp, kd.Gp, kd.Gp3, kbd.G, kbd.Z90, kbd.Gp3};
        for (int j = 0; j < 9; j++) {
            cr_expect(lm_num_contains_mpfr(A[j], M[j]->m), "case %d constant %d: ball misses MPFR", t, j);
            double v = lm_num_get_d(A[j]);
            cr_expect(isfinite(v) && v > 0 && arb_rel_accuracy_bits(A[j]->b) >= 150,
                      "case %d constant %d: %g, only %ld accurate bits at 256", t, j, v,
                      (long)arb_rel_accuracy_bits(A[j]->b));
            cr_expect(fabs(v - D[j]) <= 1e-12 * D[j], "case %d constant %d: ball %.17g vs double %.17g",
                      t, j, v, D[j]);
        }
        /* conditions (8) and (46) against the log-domain double versions */
        lm_num ca, cm;
        lm_num_init(&ca, &ac);
        lm_num_init(&cm, &mc);
        const int cond[4] = {8, 8, 46, 46}, app[4] = {0, 1, 1, 1}, wr[4] = {1, 1, 0, 1};
        for (int j = 0; j < 4; j++) {
            lm_dyn_nconsts_cond(&ca, &ka, cond[j], app[j], wr[j]);
            lm_dyn_nconsts_cond(&cm, &km, cond[j], app[j], wr[j]);
            double ld = cond[j] == 8 ? lm_dyn_log_cond8(&kd, z[4], z[1], z[0], app[j])
                                     : lm_dyn_log_cond46(&kd, z[4], z[1], z[0], app[j], wr[j]);
            cr_expect(lm_num_contains_mpfr(&ca, cm.m), "case %d cond %d: ball misses MPFR", t, j);
            cr_expect(fabs(lm_num_log_abs_d(&ca) - ld) <= 1e-10 * fmax(1.0, fabs(ld)),
                      "case %d cond %d: log %.17g vs double %.17g", t, j, lm_num_log_abs_d(&ca), ld);
        }
        lm_num_clear(&ca);
        lm_num_clear(&cm);
        lm_dyn_nconsts_clear(&ka); lm_dyn_nconsts_clear(&km);
        lm_dyn_nconsts_clear(&ba); lm_dyn_nconsts_clear(&bm);
        lm_mha_free(ma); lm_mha_free(mm); lm_mha_free(md);
    }
}

Test(dynamics_lemma3, real_violation_is_certified)
{
    /* Z of eq. (90) breaks as stated (its last term has no ||W^O||_2, unlike eq. 89); the break
     * re-evaluated in balls must be certified */
    lm_claim_result r = lm_test_run("dynamics/lemma3", NULL, "Z90,sigma-at-M", 4);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "got %s", lm_verdict_name(r.verdict));
    cr_expect(r.nconfig == 1 && r.cfg[0].certified && r.cfg[0].cert_prec >= 128, "not certified: %s",
              r.nconfig ? r.cfg[0].cert_note : "");
    cr_expect(r.certified);
    lm_claim_result_clear(&r);
}

Test(dynamics_lemma3, wrong_G_at_bounds_is_certified)
{
    /* the induction-bound reading: bounds, inside-ness and G all in balls */
    const char *sets[] = {"G_scale=1e-3", NULL};
    lm_claim_result r = lm_test_run("dynamics/lemma3", sets, "G,sigma-at-bounds", 2);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "got %s", lm_verdict_name(r.verdict));
    cr_expect(r.nconfig == 1 && r.cfg[0].certified, "not certified: %s", r.nconfig ? r.cfg[0].cert_note : "");
    lm_claim_result_clear(&r);
}

Test(dynamics_lemma8, real_violation_is_certified)
{
    /* the three-block reading 3G' breaks as stated for the full set; certified in balls */
    lm_claim_result r = lm_test_run("dynamics/lemma8", NULL, "Gp,all,sigma-at-M", 4);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "got %s", lm_verdict_name(r.verdict));
    cr_expect(r.nconfig == 1 && r.cfg[0].certified, "not certified: %s", r.nconfig ? r.cfg[0].cert_note : "");
    lm_claim_result_clear(&r);
}

Test(dynamics_lemma8, wrong_Zp_at_bounds_is_certified)
{
    const char *sets[] = {"Zp_scale=1e-3", NULL};
    lm_claim_result r = lm_test_run("dynamics/lemma8", sets, "Zp,WQ,sigma-at-bounds", 2);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "got %s", lm_verdict_name(r.verdict));
    cr_expect(r.nconfig == 1 && r.cfg[0].certified, "not certified: %s", r.nconfig ? r.cfg[0].cert_note : "");
    lm_claim_result_clear(&r);
}
