/* tests/test_ib_gd2.c -- GD asymptotics and capped Polyak (implicit-bias paper) */
#include "test_support.h"

Test(ib_gd2, polyak_cap_huge_cap_is_violated)
{
    /* a cap the uncapped Polyak steps never reach cannot bind */
    const char *sets[] = {"eta_max=1e30", "steps=30", NULL};
    lm_test_expect("implicit/text-polyak-cap", sets, "R3b", 2, LM_V_VIOLATED);
}

Test(ib_gd2, polyak_cap_as_stated_holds)
{
    const char *sets[] = {"steps=120", NULL};
    lm_claim_result r = lm_test_run("implicit/text-polyak-cap", sets, "R3b", 2);
    cr_expect(r.verdict == LM_V_HOLDS, "got %s (%s)", lm_verdict_name(r.verdict),
              r.nconfig ? r.cfg[0].detail : "");
    lm_claim_result_clear(&r);
}

Test(ib_gd2, theorem6_geometric_decay_is_inconsistent)
{
    /* block maxima shrinking tenfold per dyadic block: far faster than 1/log t */
    const char *sets[] = {"e_decay=0.1", "steps=1024", NULL};
    lm_test_expect("implicit/theorem6", sets, "eta=5 Lemma-4 init", 2, LM_V_INCONSISTENT);
}

Test(ib_gd2, theorem6_norm_growth_is_inconsistent)
{
    const char *sets[] = {"norm_growth=100", "steps=1024", NULL};
    lm_test_expect("implicit/theorem6", sets, "eta=1 Lemma-4 init", 2, LM_V_INCONSISTENT);
}

Test(ib_gd2, theorem6_as_stated_consistent)
{
    const char *sets[] = {"steps=1024", NULL};
    lm_claim_result r = lm_test_run("implicit/theorem6", sets, "eta=5 random direction", 2);
    cr_expect(r.verdict == LM_V_CONSISTENT, "got %s (%s)", lm_verdict_name(r.verdict),
              r.nconfig ? r.cfg[0].detail : "");
    lm_claim_result_clear(&r);
}
