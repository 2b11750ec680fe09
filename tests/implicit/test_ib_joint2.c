/* tests/test_ib_joint2.c -- implicit-bias rate claims under joint training (13) */
#include "test_support.h"

#define T3_CFG "R4 joint (13), eta=0.5, alpha=2/3"

Test(ib_joint2, theorem3_wrong_slope_is_inconsistent)
{
    /* the norm cannot grow by 100 per unit of log t with steps eta t^-2/3 */
    const char *sets[] = {"slope_min=100", "n=4", "steps=6000", "t_fit0=300", NULL};
    lm_test_expect("implicit/theorem3", sets, T3_CFG, 2, LM_V_INCONSISTENT);
}

Test(ib_joint2, theorem3_wrong_decay_is_inconsistent)
{
    /* e_t log t cannot drop tenfold between dyadic blocks under a 1/log t rate */
    const char *sets[] = {"e_decay=0.1", "n=4", "steps=6000", "t_fit0=300", NULL};
    lm_test_expect("implicit/theorem3", sets, T3_CFG, 2, LM_V_INCONSISTENT);
}

Test(ib_joint2, theorem3_wrong_norm_growth_is_inconsistent)
{
    /* Theta(log t): the last doubling adds about the mean increment, not half of it */
    const char *sets[] = {"inc_growth=0.5", "n=4", "steps=6000", "t_fit0=300", NULL};
    lm_test_expect("implicit/theorem3", sets, T3_CFG, 2, LM_V_INCONSISTENT);
}

Test(ib_joint2, theorem3_as_stated_consistent)
{
    /* the catalogue's R4 (d = 600, n = 8, 4e4 steps, window [400, 4e4]) */
    lm_claim_result r = lm_test_run("implicit/theorem3", NULL, T3_CFG, 2);
    cr_expect(r.verdict == LM_V_CONSISTENT, "got %s (%s)", lm_verdict_name(r.verdict),
              r.nconfig ? r.cfg[0].detail : "");
    lm_claim_result_clear(&r);
}
