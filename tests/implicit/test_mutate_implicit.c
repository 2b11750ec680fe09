/* tests/test_mutate_implicit.c -- issue 16 for the implicit-bias paper: the core mutants
 * (`--mutate flip`, `--mutate scale=F`) kill checks of the paper's claims, and the
 * configurations that read the printed statement give the verdicts found. */
#include "test_support.h"

static lm_claim_result run_mut(const char *id, const char *config, double scale, int flip)
{
    return lm_test_run_mutant(id, NULL, config, 2, scale, flip);
}

/* Lemma 6: <-grad, W_mm> >= ... >= ||grad||/D holds with slack (ratio ~ 0.2-0.3); reversed,
 * the strict slack breaks it */
Test(mutate_implicit, lemma6_flip_is_violated)
{
    lm_claim_result r = run_mut("implicit/lemma6", "random", 1.0, 1);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "flip: got %s (%s)", lm_verdict_name(r.verdict),
                 r.nconfig ? r.cfg[0].detail : "");
    cr_expect_str_eq(r.mutation, "flip");
    lm_claim_result_clear(&r);
}

/* Lemma 7: ||W_t|| <= ||W_0|| + eta t is nearly tight (||W_t|| ~ 0.9998 eta t): half the
 * right-hand side breaks it */
Test(mutate_implicit, lemma7_half_rhs_is_violated)
{
    lm_claim_result r = run_mut("implicit/lemma7", "R1 eta=0.5", 0.5, 0);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "scale=0.5: got %s (%s)", lm_verdict_name(r.verdict),
                 r.nconfig ? r.cfg[0].detail : "");
    cr_expect_str_eq(r.mutation, "scale=0.5");
    lm_claim_result_clear(&r);
}

/* Lemma 12: the u bound is reached at t = 1 up to the factor eta B sum (s+1)^-2/3 / ||u_1||;
 * a hundredth of every right-hand side breaks it */
Test(mutate_implicit, lemma12_scaled_rhs_is_violated)
{
    lm_claim_result r = run_mut("implicit/lemma12", "R4: DM d=600, n=8, zeta=1.5, eta=0.5", 0.01, 0);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "scale=0.01: got %s", lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
}

/* the paper readings added by issue 16 */
Test(mutate_implicit, theorem1_printed_log_t_over_t_on_a1_data)
{
    lm_claim_result r = lm_test_run("implicit/theorem1", NULL, "A1 data: EX1 n=2, T=2, d=256", 1);
    cr_assert_eq(r.nconfig, 1);
    cr_expect_eq(r.cfg[0].reading, LM_READ_PAPER);
    cr_expect_eq(r.verdict, LM_V_CONSISTENT, "got %s (%s)", lm_verdict_name(r.verdict), r.cfg[0].detail);
    lm_claim_result_clear(&r);
    /* the printed power k = 1 is the default of every configuration */
    const lm_claim *c = lm_claim_find("implicit/theorem1");
    double par[64];
    char err[256];
    int nc = lm_claim_nconfigs(c), kp = -1;
    for (int k = 0; c->params[k].name; k++)
        if (!strcmp(c->params[k].name, "log_power")) kp = k;
    cr_assert_geq(kp, 0);
    for (int k = 0; k < nc; k++) {
        for (int j = 0; c->params[j].name; j++) par[j] = c->params[j].def;
        cr_assert_eq(lm_claim_config_params(c, k, par, err, sizeof err), 0, "%s", err);
        lm_reading rd = lm_claim_reading(c, k);
        if (rd.kind == LM_READ_PAPER) cr_expect_eq(par[kp], 1.0, "%s", lm_claim_config(c, k));
        else if (rd.kind == LM_READ_REPAIRED) cr_expect_eq(par[kp], 2.0, "%s", lm_claim_config(c, k));
    }
}

Test(mutate_implicit, lemma1_and_lemma10_on_a1_data)
{
    lm_claim_result r = lm_test_run("implicit/lemma1", NULL, "A1 data: EX1 n=2, T=2, d=256", 1);
    cr_expect_eq(r.cfg[0].reading, LM_READ_PAPER);
    cr_expect_eq(r.verdict, LM_V_CONSISTENT, "lemma1: got %s (%s)", lm_verdict_name(r.verdict), r.cfg[0].detail);
    lm_claim_result_clear(&r);
    r = lm_test_run("implicit/lemma10", NULL, "NGD run, A1 data: EX1 n=2, T=2, d=256", 1);
    cr_expect_eq(r.cfg[0].reading, LM_READ_PAPER);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "lemma10: got %s (%s)", lm_verdict_name(r.verdict), r.cfg[0].detail);
    lm_claim_result_clear(&r);
}

/* gates: the set-ups outside the derived conditions are probes now, the claim's verdict is
 * that of the configuration meeting them */
Test(mutate_implicit, condition_gates_probe_readings)
{
    lm_claim_result r = lm_test_run("implicit/condition1", NULL, NULL, 4);
    cr_assert_eq(r.nconfig, 3);
    cr_expect_eq(r.cfg[1].reading, LM_READ_PROBE);
    cr_expect_eq(r.cfg[2].reading, LM_READ_PAPER);
    cr_expect_eq(r.cfg[2].verdict, LM_V_HOLDS, "boundary zeta = zeta0: %s", lm_verdict_name(r.cfg[2].verdict));
    cr_expect_eq(r.cfg[1].verdict, LM_V_ASSUMPTION_FAILED);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "condition1: got %s", lm_verdict_name(r.verdict));
    cr_expect_eq(r.probe_verdict, LM_V_ASSUMPTION_FAILED);
    lm_claim_result_clear(&r);
}

/* condition1 at the boundary zeta = zeta0: a lower threshold lowers zeta itself and the clause
 * (every optimal token longer, w.p. 1 - delta) breaks */
Test(mutate_implicit, condition1_boundary_low_threshold_is_violated)
{
    const char *sets[] = {"zeta0_scale=0.8", NULL};
    lm_test_expect("implicit/condition1", sets, "DM d=600, n=8, zeta at the derived threshold zeta0", 4,
                   LM_V_VIOLATED);
}

/* condition2: the R4 set-up is a probe (outside the derived Condition 2), the regime reads the paper */
Test(mutate_implicit, condition2_r4_is_a_probe)
{
    lm_claim_result r = lm_test_run("implicit/condition2", NULL, NULL, 4);
    cr_assert_eq(r.nconfig, 2);
    cr_expect_eq(r.cfg[0].reading, LM_READ_PROBE);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "condition2: got %s", lm_verdict_name(r.verdict));
    cr_expect_eq(r.probe_verdict, LM_V_ASSUMPTION_FAILED);
    lm_claim_result_clear(&r);
}

/* lemma13: the printed t >= 1 of the gap bound is the paper configuration and holds on R4 */
Test(mutate_implicit, lemma13_printed_gap_from_t1)
{
    lm_claim_result r = lm_test_run("implicit/lemma13", NULL, "R4 with probability 1-delta over data sets", 2);
    cr_expect_eq(r.cfg[0].reading, LM_READ_PAPER);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "lemma13 t>=1: got %s (%s)", lm_verdict_name(r.verdict), r.cfg[0].detail);
    lm_claim_result_clear(&r);
}
