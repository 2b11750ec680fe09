/* tests/test_pr_traj.c -- the trajectory / PL / rate claims of the
 * attention-pruning paper: each as stated is a real verdict (never error),
 * and each with a deliberately wrong constant comes out violated
 * (inconsistent for the rate claim). */
/* claim files checked here: lemmas/pruning/lemma5-5.c, lemmas/pruning/lemmaF-10.c,
 * lemmas/pruning/remark4-2.c, lemmas/pruning/theorem1-3.c, lemmas/pruning/theorem4-1.c,
 * lemmas/pruning/theorem5-2.c */
#include "test_support.h"

Test(pr_traj, theorem4_1_as_stated)
{
    lm_test_not_error("pruning/theorem4.1", NULL, 2);
}

Test(pr_traj, theorem4_1_step_far_above_1_over_L_breaks_descent)
{
    const char *const s[] = {"eta_scale=1e5", NULL};
    lm_test_expect("pruning/theorem4.1", s, "non-causal,eta=1/L,projected", 4, LM_V_VIOLATED);
}

Test(pr_traj, theorem4_1_xi_zero_huge_mu_breaks_conclusion)
{
    const char *const s[] = {"xi_scale=1e-300", "mu_coef=1e300", "eps=1e-12", NULL};
    lm_test_expect("pruning/theorem4.1", s, "non-causal,eta=1/L", 4, LM_V_VIOLATED);
}

Test(pr_traj, theorem5_2_as_stated)
{
    lm_test_not_error("pruning/theorem5.2", NULL, 2);
}

Test(pr_traj, theorem5_2_too_few_steps_breaks_conclusion)
{
    const char *const s[] = {"T_scale=1e-9", NULL};
    lm_test_expect("pruning/theorem5.2", s, "toy: x^2+3 sin^2 x", 4, LM_V_VIOLATED);
}

/* issue 15: a tiny eps (or a huge T_scale) made the formula T = 2 f(w0)/eta (2/(mu eps))
 * overflow a long in the cast (undefined behaviour, caught by UBSan): T now saturates and
 * the run is the capped one, judged vacuous */
Test(pr_traj, theorem5_2_formula_T_beyond_a_long)
{
    const char *const s[] = {"eps=1e-300", "T_scale=1e6", NULL};
    lm_claim_result r = lm_test_run("pruning/theorem5.2", s, "toy: a x^2", 2);
    cr_expect_neq(r.verdict, LM_V_ERROR, "%s", r.nconfig ? r.cfg[0].detail : "");
    lm_claim_result_clear(&r);
}

Test(pr_traj, theorem5_2_step_far_above_1_over_L_breaks_descent)
{
    const char *const s[] = {"eta_c=1e6", "steps=40", NULL};
    lm_test_expect("pruning/theorem5.2", s, "pruning: eta=c/L_E8", 4, LM_V_VIOLATED);
}

Test(pr_traj, lemmaF_10_as_stated)
{
    lm_test_not_error("pruning/lemmaF.10", NULL, 2);
}

Test(pr_traj, lemmaF_10_tiny_U_breaks_F10b)
{
    const char *const s[] = {"U_coef=1e-6", NULL};
    lm_test_expect("pruning/lemmaF.10", s, "pointwise,non-causal", 4, LM_V_VIOLATED);
}

Test(pr_traj, lemmaF_10_huge_mu_breaks_pl)
{
    const char *const s[] = {"xi_scale=1e-300", "mu_coef=1e300", NULL};
    lm_test_expect("pruning/lemmaF.10", s, "along projected GD", 4, LM_V_VIOLATED);
}

Test(pr_traj, lemma5_5_as_stated)
{
    lm_test_not_error("pruning/lemma5.5", NULL, 2);
}

Test(pr_traj, lemma5_5_tiny_U_breaks)
{
    const char *const s[] = {"U_coef=1e-6", NULL};
    lm_test_expect("pruning/lemma5.5", s, "pointwise,non-causal", 4, LM_V_VIOLATED);
}

Test(pr_traj, remark4_2_as_stated)
{
    lm_test_not_error("pruning/remark4.2", NULL, 2);
}

Test(pr_traj, remark4_2_sharper_exponent_breaks)
{
    const char *const s[] = {"c_exp=0.01", NULL};
    lm_test_expect("pruning/remark4.2", s, "(i) natural delta bound", 4, LM_V_VIOLATED);
}

Test(pr_traj, remark4_2_wrong_count_breaks)
{
    const char *const s[] = {"rho_shift=1", NULL};
    lm_test_expect("pruning/remark4.2", s, "(iv) binarisation count", 2, LM_V_VIOLATED);
}

Test(pr_traj, theorem1_3_as_stated)
{
    lm_test_not_error("pruning/theorem1.3", NULL, 2);
}

Test(pr_traj, theorem1_3_impossible_slope_is_inconsistent)
{
    const char *const s[] = {"slope_max=0.01", NULL};
    lm_test_expect("pruning/theorem1.3", s, NULL, 4, LM_V_INCONSISTENT);
}
