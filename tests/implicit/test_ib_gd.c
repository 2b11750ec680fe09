/* tests of the claims implicit/theorem7 and implicit/text-loss-infimum */
#include "test_support.h"

Test(implicit_theorem7, larger_lower_bound_is_violated)
{
    const char *sets[] = {"a_scale=1.5", "steps=60", NULL};
    lm_test_expect("implicit/theorem7", sets, "polyak run", 2, LM_V_VIOLATED);
}

Test(implicit_theorem7, smaller_upper_bound_is_violated)
{
    const char *sets[] = {"b_scale=1e-3", NULL};
    lm_test_expect("implicit/theorem7", sets, "random W", 4, LM_V_VIOLATED);
}

Test(implicit_theorem7, as_stated_not_error)
{
    const char *sets[] = {"steps=60", NULL};
    lm_claim_result r = lm_test_run("implicit/theorem7", sets, "polyak run", 2);
    cr_expect_neq(r.verdict, LM_V_ERROR, "%s", r.nconfig ? r.cfg[0].detail : "");
    lm_claim_result_clear(&r);
    lm_test_not_error("implicit/theorem7", "random W", 4);
}

Test(implicit_text_loss_infimum, larger_lstar_is_violated)
{
    const char *sets[] = {"Lstar_scale=1.01", NULL};
    lm_test_expect("implicit/text-loss-infimum", sets, "random W", 24, LM_V_VIOLATED);
}

Test(implicit_text_loss_infimum, tiny_inf_tol_is_violated)
{
    const char *sets[] = {"inf_tol=1e-300", NULL};
    lm_test_expect("implicit/text-loss-infimum", sets, "infimum", 4, LM_V_VIOLATED);
}

Test(implicit_text_loss_infimum, as_stated_not_error)
{
    lm_test_not_error("implicit/text-loss-infimum", "random W", 4);
    lm_test_not_error("implicit/text-loss-infimum", "infimum", 4);
}
