/* tests/test_ib_joint4.c -- joint-training slice of the implicit-bias paper:
 * implicit/lemma12 (iterate norms), implicit/lemma13 (invariants of joint
 * training) and implicit/condition2 (complete Condition 1, derived). */
#include "test_support.h"
#include "lm_ibcond.h"
#include <math.h>

#define R4_12 "R4: DM d=600, n=8, zeta=1.5, eta=0.5"
#define PER_RUN "R4 per run: every iterate of every run"
#define WITH_P "R4 with probability 1-delta over data sets"

/* ---- lemma12 ---- */

Test(ib_joint4, lemma12_wrong_u_constant_is_violated)
{
    /* ||u_1|| = eta ||grad_u L(theta_0)|| / L is about 0.2 eta B: a tenth of the constant breaks (a) at t=1 */
    const char *sets[] = {"u_scale=0.1", NULL};
    lm_test_expect("implicit/lemma12", sets, R4_12, 2, LM_V_VIOLATED);
}

Test(ib_joint4, lemma12_wrong_w_constant_is_violated)
{
    /* the measured ||W_t|| / (eta^2 B^4 t^(2/3)) stays near 0.015: 9/2 * 1e-3 is far below it */
    const char *sets[] = {"w_scale=1e-3", NULL};
    lm_test_expect("implicit/lemma12", sets, R4_12, 2, LM_V_VIOLATED);
}

Test(ib_joint4, lemma12_wrong_gradient_bound_is_violated)
{
    const char *sets[] = {"g_scale=0.05", NULL};
    lm_test_expect("implicit/lemma12", sets, R4_12, 2, LM_V_VIOLATED);
}

Test(ib_joint4, lemma12_as_stated_holds)
{
    lm_claim_result r = lm_test_run("implicit/lemma12", NULL, NULL, 2);
    cr_expect(r.verdict == LM_V_HOLDS, "got %s (%s)", lm_verdict_name(r.verdict),
              r.nconfig ? r.cfg[0].detail : "");
    lm_claim_result_clear(&r);
}

/* ---- lemma13 ---- */

Test(ib_joint4, lemma13_small_loss_ratio_constant_is_violated)
{
    /* C_r = e/2: the log loss ratio climbs past 0.31 within a few hundred steps */
    const char *sets[] = {"cr_scale=0.5", NULL};
    lm_test_expect("implicit/lemma13", sets, PER_RUN, 2, LM_V_VIOLATED);
    lm_test_expect("implicit/lemma13", sets, WITH_P, 2, LM_V_VIOLATED);
}

Test(ib_joint4, lemma13_large_gap_constant_is_violated)
{
    const char *sets[] = {"c13_scale=20", NULL};
    lm_test_expect("implicit/lemma13", sets, PER_RUN, 2, LM_V_VIOLATED);
}

Test(ib_joint4, lemma13_high_softmax_floor_is_violated)
{
    /* s_opt >= 0.95 cannot hold right after s_opt = 1/2 */
    const char *sets[] = {"smin_scale=1.9", NULL};
    lm_test_expect("implicit/lemma13", sets, PER_RUN, 2, LM_V_VIOLATED);
}

Test(ib_joint4, lemma13_other_token_called_optimal_is_violated)
{
    /* flipped: the smaller-variance token designated optimal breaks (o), (i) and (iii) */
    const char *sets[] = {"opt_ref=other", NULL};
    lm_test_expect("implicit/lemma13", sets, PER_RUN, 2, LM_V_VIOLATED);
    lm_test_expect("implicit/lemma13", sets, WITH_P, 2, LM_V_VIOLATED);
}

Test(ib_joint4, lemma13_as_stated_not_error)
{
    lm_test_not_error("implicit/lemma13", PER_RUN, 2);
    lm_test_not_error("implicit/lemma13", WITH_P, 2);
}

Test(ib_joint4, lemma13_gate_makes_r4_assumption_failed)
{
    const char *sets[] = {"gate=condition2", NULL};
    lm_test_expect("implicit/lemma13", sets, PER_RUN, 2, LM_V_ASSUMPTION_FAILED);
}

/* ---- condition2 ---- */

Test(ib_joint4, condition2_weak_thresholds_are_violated)
{
    /* C_d = 1e-3 and eta0 x 100 let R4 pass the gate, where the derived events fail */
    const char *sets[] = {"C_d=1e-3", "eta0_scale=100", NULL};
    lm_test_expect("implicit/condition2", sets, "R4: DM d=600, n=8, zeta=1.5, eta=0.5", 4, LM_V_VIOLATED);
}

Test(ib_joint4, condition2_as_stated)
{
    lm_claim_result r = lm_test_run("implicit/condition2", NULL, NULL, 4);
    cr_assert_eq(r.nconfig, 2);
    cr_expect_eq(r.cfg[0].verdict, LM_V_ASSUMPTION_FAILED, "R4 misses the derived gate: %s",
                 lm_verdict_name(r.cfg[0].verdict));
    cr_expect_eq(r.cfg[1].verdict, LM_V_HOLDS, "Condition-2 regime: %s (%s)", lm_verdict_name(r.cfg[1].verdict),
                 r.cfg[1].detail);
    lm_claim_result_clear(&r);
}

Test(ib_joint4, condition2_thresholds_are_consistent)
{
    lm_ibcond2 g;
    lm_ibcond2_defaults(&g);
    g.n = 2;
    g.zeta = 2.0;
    g.sigma2d = 1.0;
    g.eta = 0.005;
    g.delta = 0.05;
    g.d = 40000;
    lm_ibcond2_eval(&g);
    cr_expect(lm_ibcond2_met(&g));
    /* d_min is the smallest dimension meeting the clause */
    g.d = (int)g.d_min;
    lm_ibcond2_eval(&g);
    cr_expect(g.ok_d, "d_min = %g does not meet the clause", g.d_min);
    g.d = (int)g.d_min - 1;
    lm_ibcond2_eval(&g);
    cr_expect(!g.ok_d, "d_min - 1 meets the clause");
    /* eta0 solves eta C_H C_L B^4 (1 + 3 eta B^2)^2 = 1 */
    const double e0 = g.eta0, f = 1.0 + 3.0 * e0 * g.B2;
    cr_expect_float_eq(e0 * g.C_H * g.C_L * g.B2 * g.B2 * f * f, 1.0, 1e-9);
}
