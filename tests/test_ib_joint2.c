/* tests/test_ib_joint2.c -- implicit-bias rate claims under joint training (13) */
#include "test_support.h"

#define T3_CFG "R4 joint (13), eta=0.5, alpha=2/3"

Test(ib_joint2, theorem3_wrong_slope_is_inconsistent)
{
    /* the norm cannot grow by 100 per unit of log t with steps eta t^-2/3 */
    const char *sets[] = {"slope_min=100", "d=20", "steps=1024", "t_fit0=128", NULL};
    lm_test_expect("implicit/theorem3", sets, T3_CFG, 2, LM_V_INCONSISTENT);
}

Test(ib_joint2, theorem3_wrong_decay_is_inconsistent)
{
    /* e_t log t cannot drop tenfold between dyadic blocks under a 1/log t rate */
    const char *sets[] = {"e_decay=0.1", "d=20", "steps=1024", "t_fit0=128", NULL};
    lm_test_expect("implicit/theorem3", sets, T3_CFG, 2, LM_V_INCONSISTENT);
}

Test(ib_joint2, theorem3_as_stated_not_error)
{
    const char *sets[] = {"d=20", "steps=1024", "t_fit0=128", NULL};
    lm_claim_result r = lm_test_run("implicit/theorem3", sets, T3_CFG, 2);
    cr_expect(r.verdict != LM_V_ERROR && r.verdict != LM_V_ASSUMPTION_FAILED, "got %s (%s)",
              lm_verdict_name(r.verdict), r.nconfig ? r.cfg[0].detail : "");
    lm_claim_result_clear(&r);
}
