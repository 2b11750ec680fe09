/* Tests for the identity group of transformer-gd-dynamics: dynamics/lemma1,
 * dynamics/lemma4, dynamics/lemma5, dynamics/lemma6.  Every claim must come
 * out violated with a deliberately wrong constant or formula, and must not
 * come out `error` as stated. */
#include "test_support.h"

/* ---- dynamics/lemma1 ---- */

Test(dynamics_lemma1, wrong_sign_in_4_is_violated)
{
    /* the second term of Lemma 1(4) with the wrong sign */
    const char *sets[] = {"term2_sign=-1", NULL};
    lm_test_expect("dynamics/lemma1", sets, "random", 4, LM_V_VIOLATED);
}

Test(dynamics_lemma1, dropped_inv_sqrt_d_is_violated)
{
    /* (3) without its 1/sqrt(d) factor (every size of the first instances has d >= 2) */
    const char *sets[] = {"inv_sqrt_d_power=0", NULL};
    lm_test_expect("dynamics/lemma1", sets, "saturated", 4, LM_V_VIOLATED);
}

Test(dynamics_lemma1, kron_with_I_N_is_assumption_failed)
{
    /* (2) as printed, with I_N: dimensionally invalid for n > 1, never a pass */
    const char *sets[] = {"kron_I=N", NULL};
    lm_test_expect("dynamics/lemma1", sets, "near-tied", 4, LM_V_ASSUMPTION_FAILED);
}

Test(dynamics_lemma1, as_stated_not_error)
{
    lm_test_not_error("dynamics/lemma1", "random", 4);
    lm_test_not_error("dynamics/lemma1", "saturated", 4);
    lm_test_not_error("dynamics/lemma1", "near-tied", 4);
}

Test(dynamics_lemma1, as_stated_holds)
{
    lm_claim_result r = lm_test_run("dynamics/lemma1", NULL, "random", 4);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "got %s: %s", lm_verdict_name(r.verdict),
                 r.nconfig ? r.cfg[0].detail : "");
    lm_claim_result_clear(&r);
}

/* ---- dynamics/lemma4 ---- */

Test(dynamics_lemma4, half_constant_is_violated)
{
    /* C/2 replaced by C/4: the exact equality witness breaks by a factor 2 */
    const char *sets[] = {"C_scale=0.5", NULL};
    lm_test_expect("dynamics/lemma4", sets, "witness-T1-dense-topeig", 4, LM_V_VIOLATED);
}

Test(dynamics_lemma4, half_constant_is_violated_on_the_loss)
{
    const char *sets[] = {"C_scale=0.5", NULL};
    lm_test_expect("dynamics/lemma4", sets, "softmax-V-gd", 4, LM_V_VIOLATED);
}

Test(dynamics_lemma4, as_stated_not_error)
{
    lm_test_not_error("dynamics/lemma4", "softmax-QKV-gd", 4);
    lm_test_not_error("dynamics/lemma4", "gauss-Q-rand", 4);
    lm_test_not_error("dynamics/lemma4", "witness-T1-dense-topeig", 4);
}

Test(dynamics_lemma4, witness_holds_within_tolerance)
{
    /* LHS = RHS exactly: the double near misses are decided in MPFR */
    lm_claim_result r = lm_test_run("dynamics/lemma4", NULL, "witness-T1-dense-topeig", 4);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "got %s: %s", lm_verdict_name(r.verdict),
                 r.nconfig ? r.cfg[0].detail : "");
    cr_expect(r.nconfig == 1 && r.cfg[0].worst_ratio > 0.999999, "witness ratio %g is not 1",
              r.nconfig ? r.cfg[0].worst_ratio : 0.0);
    lm_claim_result_clear(&r);
}

/* ---- dynamics/lemma5 ---- */

Test(dynamics_lemma5, row_major_vec_is_violated)
{
    const char *sets[] = {"vec_order=row", NULL};
    lm_test_expect("dynamics/lemma5", sets, "integer", 2, LM_V_VIOLATED);
    lm_test_expect("dynamics/lemma5", sets, "real", 2, LM_V_VIOLATED);
}

Test(dynamics_lemma5, as_stated_holds_bit_exactly)
{
    lm_claim_result r = lm_test_run("dynamics/lemma5", NULL, "integer", 2);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "got %s", lm_verdict_name(r.verdict));
    /* integer residuals are exactly zero: the worst ratio is 0 */
    cr_expect(r.nconfig == 1 && r.cfg[0].worst_ratio == 0.0, "integer residual not zero: %g",
              r.nconfig ? r.cfg[0].worst_ratio : -1.0);
    lm_claim_result_clear(&r);
    lm_test_not_error("dynamics/lemma5", "real", 2);
}

/* ---- dynamics/lemma6 ---- */

Test(dynamics_lemma6, wrong_factor_is_violated)
{
    /* the printed Jacobian factor -1/sqrt(d) halved, on the appendix model */
    const char *sets[] = {"fac_scale=0.5", NULL};
    lm_test_expect("dynamics/lemma6", sets, "formula-cG2-vs-model-cG2", 4, LM_V_VIOLATED);
}

Test(dynamics_lemma6, appendix_reading_holds)
{
    lm_claim_result r = lm_test_run("dynamics/lemma6", NULL, "formula-cG2-vs-model-cG2", 4);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "got %s: %s", lm_verdict_name(r.verdict),
                 r.nconfig ? r.cfg[0].detail : "");
    lm_claim_result_clear(&r);
}

Test(dynamics_lemma6, main_text_kernel_breaks_the_printed_factor)
{
    /* eq. (11) (c_G = 1) with the appendix's formulas: off by the factor 2 */
    lm_test_expect("dynamics/lemma6", NULL, "formula-cG2-vs-model-cG1", 4, LM_V_VIOLATED);
    /* ... and the factor 2 repairs it: the reading, not the check, decides */
    const char *sets[] = {"fac_scale=2", NULL};
    lm_claim_result r = lm_test_run("dynamics/lemma6", sets, "formula-cG2-vs-model-cG1", 4);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "got %s", lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
}

Test(dynamics_lemma6, as_stated_not_error)
{
    lm_test_not_error("dynamics/lemma6", "formula-cG2-vs-model-cG2", 4);
    lm_test_not_error("dynamics/lemma6", "formula-cG2-vs-model-cG1", 4);
}

/* ---- certification (issue 7): dynamics/lemma6 is audited (.certifiable = 1) ---- */

Test(dynamics_lemma6, main_text_kernel_break_is_certified)
{
    /* the printed factor against the main-text kernel c_G = 1: certified in balls from the
     * comparisons with the exact S3 formulas (no finite differences in Arb) */
    lm_claim_result r = lm_test_run("dynamics/lemma6", NULL, "formula-cG2-vs-model-cG1", 4);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "got %s", lm_verdict_name(r.verdict));
    cr_expect(r.nconfig == 1 && r.cfg[0].certified && r.cfg[0].cert_prec >= 128, "not certified: %s",
              r.nconfig ? r.cfg[0].cert_note : "");
    lm_claim_result_clear(&r);
}

Test(dynamics_lemma6, wrong_factor_is_certified)
{
    const char *sets[] = {"fac_scale=1.001", NULL};
    lm_claim_result r = lm_test_run("dynamics/lemma6", sets, "formula-cG2-vs-model-cG2", 4);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "got %s", lm_verdict_name(r.verdict));
    cr_expect(r.nconfig == 1 && r.cfg[0].certified, "not certified: %s", r.nconfig ? r.cfg[0].cert_note : "");
    lm_claim_result_clear(&r);
}
