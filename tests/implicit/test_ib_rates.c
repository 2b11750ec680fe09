/* tests/test_ib_rates.c -- rate claims of the implicit-bias paper */
#include "test_support.h"

Test(ib_rates, theorem1_wrong_rate_is_inconsistent)
{
    /* a t^-3 rate is faster than the measured t^-2: P1 must fail */
    const char *sets[] = {"rate=3", "steps=400", "e_final=1", NULL};
    lm_test_expect("implicit/theorem1", sets, "EX1-hetero", 2, LM_V_INCONSISTENT);
}

Test(ib_rates, theorem1_as_stated_not_error)
{
    const char *sets[] = {"steps=2000", NULL};
    lm_claim_result r = lm_test_run("implicit/theorem1", sets, "EX1-hetero", 2);
    cr_expect(r.verdict == LM_V_CONSISTENT, "got %s (%s)", lm_verdict_name(r.verdict),
              r.nconfig ? r.cfg[0].detail : "");
    lm_claim_result_clear(&r);
}

Test(ib_rates, lemma1_wrong_c1_is_inconsistent)
{
    /* c1 thirty times the derived 1/2: claimed rate above the measured one */
    const char *sets[] = {"c1_scale=30", "steps=300", NULL};
    lm_test_expect("implicit/lemma1", sets, "EX1-hetero", 2, LM_V_INCONSISTENT);
}

Test(ib_rates, lemma1_as_stated_consistent)
{
    lm_claim_result r = lm_test_run("implicit/lemma1", NULL, "EX1-hetero", 2);
    cr_expect(r.verdict == LM_V_CONSISTENT, "got %s (%s)", lm_verdict_name(r.verdict),
              r.nconfig ? r.cfg[0].detail : "");
    lm_claim_result_clear(&r);
}

Test(ib_rates, lemma10_wrong_margin_is_violated)
{
    /* a margin 3/||W_mm|| is impossible at W proportional to W_mm */
    const char *sets[] = {"margin_scale=3", NULL};
    lm_test_expect("implicit/lemma10", sets, "pointwise", 4, LM_V_VIOLATED);
}

Test(ib_rates, lemma10_as_stated_not_error)
{
    lm_test_not_error("implicit/lemma10", "pointwise", 4);
    lm_test_not_error("implicit/lemma10", "NGD run", 2);
}

Test(ib_rates, theorem5_wrong_constant_is_violated)
{
    const char *sets[] = {"bound_scale=0.001", "steps=300", NULL};
    lm_test_expect("implicit/theorem5", sets, NULL, 2, LM_V_VIOLATED);
}

Test(ib_rates, theorem5_as_stated_not_error)
{
    const char *sets[] = {"steps=600", "mpfr_steps=60", NULL};
    lm_claim_result r = lm_test_run("implicit/theorem5", sets, NULL, 2);
    cr_expect(r.verdict == LM_V_HOLDS, "got %s (%s)", lm_verdict_name(r.verdict),
              r.nconfig ? r.cfg[0].detail : "");
    lm_claim_result_clear(&r);
}
