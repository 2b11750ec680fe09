/* tests/test_ib_joint1.c -- joint-training slice of the implicit-bias paper */
#include "test_support.h"

Test(ib_joint1, lemma4_wrong_bound_is_violated)
{
    /* tail bounds shrunk by 10%: the spectral norm sits near 2 sigma0 sqrt(d) */
    const char *sets[] = {"bound_scale=0.9", NULL};
    lm_test_expect("implicit/lemma4", sets, "W0 draws, d=100 (DM n=8)", 4, LM_V_VIOLATED);
}

Test(ib_joint1, lemma4_as_stated_not_error)
{
    lm_test_not_error("implicit/lemma4", "W0 draws, d=100 (DM n=8)", 4);
}

Test(ib_joint1, theorem2_wrong_rate_is_inconsistent)
{
    /* exp(-c t) instead of exp(-c t^(1/3)) */
    const char *sets[] = {"rate=1", "steps=600", NULL};
    lm_test_expect("implicit/theorem2", sets, NULL, 2, LM_V_INCONSISTENT);
}

Test(ib_joint1, theorem2_wrong_c2_is_inconsistent)
{
    const char *sets[] = {"c2_scale=20", "steps=1500", NULL};
    lm_test_expect("implicit/theorem2", sets, NULL, 2, LM_V_INCONSISTENT);
}

Test(ib_joint1, theorem2_wrong_descent_is_inconsistent)
{
    /* the actual decrease is about twice the proof's eta/(2(t+1)^(2/3)) ||grad||^2/L^2, not 3 times it */
    const char *sets[] = {"descent_scale=3", "steps=600", NULL};
    lm_test_expect("implicit/theorem2", sets, NULL, 2, LM_V_INCONSISTENT);
}

Test(ib_joint1, theorem2_as_stated_consistent)
{
    /* the catalogue's R4 (d = 600, n = 8, 4e4 steps) */
    lm_claim_result r = lm_test_run("implicit/theorem2", NULL, NULL, 2);
    cr_expect(r.verdict == LM_V_CONSISTENT, "got %s (%s)", lm_verdict_name(r.verdict),
              r.nconfig ? r.cfg[0].detail : "");
    lm_claim_result_clear(&r);
}

Test(ib_joint1, theorem8_wrong_contraction_is_inconsistent)
{
    const char *sets[] = {"c_scale=20", "steps=600", NULL};
    lm_test_expect("implicit/theorem8", sets, NULL, 2, LM_V_INCONSISTENT);
}

Test(ib_joint1, theorem8_wrong_rate_is_inconsistent)
{
    const char *sets[] = {"rate=1", "steps=600", NULL};
    lm_test_expect("implicit/theorem8", sets, NULL, 2, LM_V_INCONSISTENT);
}

Test(ib_joint1, theorem8_as_stated_consistent)
{
    lm_claim_result r = lm_test_run("implicit/theorem8", NULL, NULL, 2);
    cr_expect(r.verdict == LM_V_CONSISTENT, "got %s (%s)", lm_verdict_name(r.verdict),
              r.nconfig ? r.cfg[0].detail : "");
    lm_claim_result_clear(&r);
}

Test(ib_joint1, condition1_low_threshold_is_violated)
{
    /* zeta barely above 1 with the derived threshold halved: the clause fails often */
    const char *sets[] = {"zeta=1.02", "zeta0_scale=0.5", NULL};
    lm_test_expect("implicit/condition1", sets, "DM d=600, n=8 (catalogue default)", 4, LM_V_VIOLATED);
}

Test(ib_joint1, condition1_as_stated_not_error)
{
    lm_test_not_error("implicit/condition1", "DM d=600, n=8 (catalogue default)", 4);
    lm_test_not_error("implicit/condition1", "DM d=100, n=4 (below the derived threshold)", 4);
}
