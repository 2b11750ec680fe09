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
