/* Tests for the perturbation-bound claims: dynamics/lemma2, lemma3, lemma7, lemma8.
 * Every claim must be able to fail: each gets a run with a deliberately wrong constant that
 * must come out `violated`, and runs as stated that must not come out `error`. */
#include "test_support.h"

/* ---- dynamics/lemma2 ---- */

Test(dynamics_lemma2, phi_too_small_is_violated)
{
    /* phi_i / 100: the softmax Jacobian's norm exceeds it on generic instances */
    const char *sets[] = {"phi_scale=0.01", NULL};
    lm_test_expect("dynamics/lemma2", sets, "item1,differential", 4, LM_V_VIOLATED);
    lm_test_expect("dynamics/lemma2", sets, "item1,finite", 4, LM_V_VIOLATED);
}

Test(dynamics_lemma2, psi_and_Q_too_small_are_violated)
{
    /* item 3's constant is sqrt(phi^2 + psi^2): both must shrink */
    const char *s1[] = {"phi_scale=0.01", "psi_scale=0.01", NULL};
    lm_test_expect("dynamics/lemma2", s1, "item3,differential", 4, LM_V_VIOLATED);
    const char *s2[] = {"Q_scale=0.001", NULL};
    lm_test_expect("dynamics/lemma2", s2, "item4,grad-WQ", 4, LM_V_VIOLATED);
    const char *s3[] = {"K_scale=0.0001", NULL};
    lm_test_expect("dynamics/lemma2", s3, "item5,grad-WK", 4, LM_V_VIOLATED);
}

Test(dynamics_lemma2, as_stated_not_error)
{
    lm_test_not_error("dynamics/lemma2", "item2,differential", 4);
    lm_test_not_error("dynamics/lemma2", "item3,finite", 4);
    lm_test_not_error("dynamics/lemma2", "item5,grad-WK", 4);
}

Test(dynamics_lemma2, as_stated_holds)
{
    lm_claim_result r = lm_test_run("dynamics/lemma2", NULL, "item1,differential", 4);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "got %s", lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
}

/* ---- dynamics/lemma3 ---- */

Test(dynamics_lemma3, G_tiny_is_violated)
{
    const char *sets[] = {"G_scale=1e-6", NULL};
    lm_test_expect("dynamics/lemma3", sets, "G,sigma-at-max", 2, LM_V_VIOLATED);
}

Test(dynamics_lemma3, Z89_tiny_is_violated)
{
    const char *sets[] = {"Z_scale=1e-3", NULL};
    lm_test_expect("dynamics/lemma3", sets, "Z89sum,sigma-at-bounds", 2, LM_V_VIOLATED);
}

Test(dynamics_lemma3, as_stated_not_error)
{
    lm_test_not_error("dynamics/lemma3", "G,sigma-at-bounds", 4);
    lm_test_not_error("dynamics/lemma3", "Z89sum,sigma-at-M", 4);
}

/* ---- dynamics/lemma7 ---- */

Test(dynamics_lemma7, Qp_too_small_is_violated)
{
    const char *sets[] = {"Qp_scale=0.01", NULL};
    lm_test_expect("dynamics/lemma7", sets, "item4,grad-WQh", 4, LM_V_VIOLATED);
}

Test(dynamics_lemma7, lower_bound_rhs_too_large_is_violated)
{
    /* (3) is an equality for n = H = 1 (instance 0): any factor > 1 on its right side breaks */
    const char *sets[] = {"rhs3_scale=1.001", NULL};
    lm_test_expect("dynamics/lemma7", sets, "item3,lower-bound", 4, LM_V_VIOLATED);
}

Test(dynamics_lemma7, equality_witnesses_catch_small_errors)
{
    /* the witnesses of (1) and (2) are tight: 1% (resp. 0.1%) too small a constant breaks */
    const char *s1[] = {"c1_scale=0.99", NULL};
    lm_test_expect("dynamics/lemma7", s1, "item1,differential", 4, LM_V_VIOLATED);
    const char *s2[] = {"c2_scale=0.999", NULL};
    lm_test_expect("dynamics/lemma7", s2, "item2,equality-witness", 4, LM_V_VIOLATED);
}

Test(dynamics_lemma7, equality_witnesses_hold_as_stated)
{
    /* at the equality witnesses the tolerance handling must not turn rounding into a break */
    const char *cfg[] = {"item1,differential", "item2,equality-witness", "item3,lower-bound"};
    for (int k = 0; k < 3; k++) {
        lm_claim_result r = lm_test_run("dynamics/lemma7", NULL, cfg[k], 4);
        cr_expect_eq(r.verdict, LM_V_HOLDS, "%s: got %s", cfg[k], lm_verdict_name(r.verdict));
        lm_claim_result_clear(&r);
    }
}

Test(dynamics_lemma7, as_stated_not_error)
{
    lm_test_not_error("dynamics/lemma7", "item1,finite", 4);
    lm_test_not_error("dynamics/lemma7", "item2,random", 4);
    lm_test_not_error("dynamics/lemma7", "item4,grad-WQh", 4);
}

/* ---- dynamics/lemma8 ---- */

Test(dynamics_lemma8, Gp_tiny_is_violated)
{
    const char *sets[] = {"Gp_scale=1e-6", NULL};
    lm_test_expect("dynamics/lemma8", sets, "Gp,WQ,sigma-at-max", 2, LM_V_VIOLATED);
}

Test(dynamics_lemma8, Zp_tiny_is_violated)
{
    const char *sets[] = {"Zp_scale=1e-3", NULL};
    lm_test_expect("dynamics/lemma8", sets, "Zp,WQ,sigma-at-bounds", 2, LM_V_VIOLATED);
}

Test(dynamics_lemma8, as_stated_not_error)
{
    lm_test_not_error("dynamics/lemma8", "Gp,WQ,sigma-at-bounds", 4);
    lm_test_not_error("dynamics/lemma8", "Zp,all,sigma-at-M", 4);
}
