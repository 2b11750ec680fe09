/* tests/test_ib_joint7.c -- implicit/theorem9: Theorem 3 with exact constants
 * (proxies of the rate and Lemma 2's (60) along the joint-training run R4) */
#include "test_support.h"

#define T9_PROXY "R4 proxies of Theorem 3"
#define T9_EPS "R4 Lemma 2 (60) along the run"

Test(ib_joint7, theorem9_wrong_slope_is_inconsistent)
{
    /* the norm cannot grow by 100 per unit of log t with steps eta t^-2/3 */
    const char *sets[] = {"slope_min=100", "n=4", "steps=6000", "t_fit0=300", NULL};
    lm_test_expect("implicit/theorem9", sets, T9_PROXY, 2, LM_V_INCONSISTENT);
}

Test(ib_joint7, theorem9_wrong_norm_growth_is_inconsistent)
{
    /* Theta(log t): the last doubling adds about the mean increment, not half of it */
    const char *sets[] = {"inc_growth=0.5", "n=4", "steps=6000", "t_fit0=300", NULL};
    lm_test_expect("implicit/theorem9", sets, T9_PROXY, 2, LM_V_INCONSISTENT);
}

Test(ib_joint7, theorem9_small_R_eps_is_inconsistent)
{
    /* R_eps 1000 times too small: (60) is then asked of early iterates, where
     * ||W_t|| < 1 and eps*_t > 0 exceeds eps(||W_t||) */
    const char *sets[] = {"C_scale=0.001", "steps=3000", "t_fit0=100", NULL};
    lm_test_expect("implicit/theorem9", sets, T9_EPS, 2, LM_V_INCONSISTENT);
}

Test(ib_joint7, theorem9_flipped_60_is_inconsistent)
{
    /* eps(||W_t||) <-g, bar W_mm> <= <-g, bar W_t - bar W_mm> is false wherever (60) is checked */
    const char *sets[] = {"flip=1", "Cp_scale=0.05", "steps=3000", "t_fit0=100", NULL};
    lm_test_expect("implicit/theorem9", sets, T9_EPS, 2, LM_V_INCONSISTENT);
}

Test(ib_joint7, theorem9_as_stated_consistent)
{
    lm_claim_result r = lm_test_run("implicit/theorem9", NULL, NULL, 2);
    cr_expect(r.verdict == LM_V_CONSISTENT, "got %s (%s | %s)", lm_verdict_name(r.verdict),
              r.nconfig ? r.cfg[0].detail : "", r.nconfig > 1 ? r.cfg[1].detail : "");
    for (int k = 0; k < r.nconfig; k++)
        cr_expect_neq(r.cfg[k].verdict, LM_V_ERROR, "[%s] error: %s", r.cfg[k].config, r.cfg[k].detail);
    lm_claim_result_clear(&r);
}

Test(ib_joint7, theorem9_gamma_reading_is_silent)
{
    /* kappa_l = e^{Gamma_max(t)} grows like t^(1/3): R_eps is never reached along R4 */
    const char *sets[] = {"kappa_l=2", "steps=10000", "t_fit0=100", NULL};
    lm_test_expect("implicit/theorem9", sets, T9_EPS, 2, LM_V_ASSUMPTION_FAILED);
}
