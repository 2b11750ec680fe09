/* Tests for dynamics/theorem1. */
#include "test_support.h"

Test(dynamics_theorem1, wrong_constant_is_violated)
{
    /* alpha ten times too large: the bound (1-10 eta alpha)^t decays faster
     * than any GD run can, so the check must find the break (and MPFR must
     * confirm it). */
    const char *sets[] = {"alpha_scale=10", NULL};
    lm_test_expect("dynamics/theorem1", sets, "dense,eta=1/G_V", 4, LM_V_VIOLATED);
}

Test(dynamics_theorem1, as_stated_not_error)
{
    lm_test_not_error("dynamics/theorem1", "dense,eta=1/G_V", 4);
    lm_test_not_error("dynamics/theorem1", "block,eta=eta*(1-1e-6)", 4);
}

Test(dynamics_theorem1, eta_just_below_threshold_holds)
{
    /* eta*(1-1e-6) is inside the exact threshold for the dense mode: holds */
    lm_claim_result r = lm_test_run("dynamics/theorem1", NULL, "dense,eta=eta*(1-1e-6)", 4);
    cr_expect(r.verdict == LM_V_HOLDS || r.verdict == LM_V_ASSUMPTION_FAILED, "got %s",
              lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
}

Test(dynamics_theorem1, wrong_constant_violation_is_certified)
{
    /* audited claim (.certifiable = 1): the wrong-constant break re-evaluated in Arb ball
     * arithmetic must come out certified (left ball wholly above the right one, no taint) */
    const char *sets[] = {"alpha_scale=10", NULL};
    lm_claim_result r = lm_test_run("dynamics/theorem1", sets, "dense,eta=1/G_V", 4);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "got %s", lm_verdict_name(r.verdict));
    cr_expect(r.certified, "not certified: %s", r.nconfig ? r.cfg[0].cert_note : "");
    cr_expect(r.nconfig == 1 && r.cfg[0].certified && r.cfg[0].cert_prec >= 128);
    lm_claim_result_clear(&r);
}

Test(dynamics_theorem1, real_violation_is_certified)
{
    /* the stated constant breaks with eta = 0.9/alpha (the main-text condition eta alpha < 1
     * alone; a real violation, see the report); certified in balls */
    lm_claim_result r = lm_test_run("dynamics/theorem1", NULL, "dense,eta=0.9/alpha", 8);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "got %s", lm_verdict_name(r.verdict));
    cr_expect(r.certified, "not certified: %s", r.nconfig ? r.cfg[0].cert_note : "");
    lm_claim_result_clear(&r);
}
