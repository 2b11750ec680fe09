/* tests/test_mutate_precond.c -- the core mutants (issue 16) on claims of the preconditioning
 * paper: `--mutate scale=F` (every right-hand side times F) and `--mutate flip` (every
 * inequality reversed) must turn a claim that holds into `violated`; and the paper / repaired /
 * probe configurations added for issue 16 give the verdicts found. */
#include "test_support.h"

static lm_claim_result run_mutb(const char *id, const char *config, double scale, int flip, int budget)
{
    return lm_test_run_mutant(id, NULL, config, budget, scale, flip);
}

static lm_claim_result run_mut(const char *id, const char *config, double scale, int flip)
{
    return run_mutb(id, config, scale, flip, 2);
}

/* lemma5 holds with worst ratio about 0.5: every right-hand side times 1/8 breaks it */
Test(mutate_precond, lemma5_scale)
{
    lm_claim_result r = run_mut("precond/lemma5", NULL, 1.0, 0);
    cr_assert_eq(r.verdict, LM_V_HOLDS, "as stated: %s", lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
    r = run_mut("precond/lemma5", NULL, 0.125, 0);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "scale=0.125: got %s", lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
}

/* lemma5's inequality holds strictly: reversed, it must break */
Test(mutate_precond, lemma5_flip)
{
    lm_claim_result r = run_mut("precond/lemma5", NULL, 1.0, 1);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "flip: got %s", lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
}

/* fact8 is tight (all a_i equal): any scale below 1 breaks it; flipped, the random and hill-climb
 * instances break (budget 8: the first instances alone can be the n = 1 equality case) */
Test(mutate_precond, fact8_scale_and_flip)
{
    lm_claim_result r = run_mut("precond/fact8", NULL, 0.9, 0);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "scale=0.9: got %s", lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
    r = run_mutb("precond/fact8", NULL, 1.0, 1, 8);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "flip: got %s", lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
}

/* theorem1.3a (one-point strong convexity, alpha_r) holds with worst ratio about 0.24 */
Test(mutate_precond, theorem1_3a_scale)
{
    lm_claim_result r = run_mut("precond/theorem1.3a", "k>d (d=4,k=6)", 0.05, 0);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "scale=0.05: got %s", lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
}

/* the configurations added for issue 16 */
Test(mutate_precond, theorem1_2_connected_is_a_paper_reading_and_violated)
{
    lm_claim_result r = run_mut("precond/theorem1.2", NULL, 1.0, 0);
    cr_assert_eq(r.nconfig, 3);
    for (int k = 0; k < 3; k++) cr_expect_eq(r.cfg[k].reading, LM_READ_PAPER, "%s", r.cfg[k].config);
    cr_expect_eq(r.cfg[0].verdict, LM_V_HOLDS, "on-manifold: %s", lm_verdict_name(r.cfg[0].verdict));
    cr_expect_eq(r.cfg[1].verdict, LM_V_HOLDS, "converse: %s", lm_verdict_name(r.cfg[1].verdict));
    cr_expect_eq(r.cfg[2].verdict, LM_V_VIOLATED, "connected: %s", lm_verdict_name(r.cfg[2].verdict));
    cr_expect_eq(r.verdict, LM_V_VIOLATED);
    lm_claim_result_clear(&r);
}

Test(mutate_precond, remark2_false_as_printed_holds_repaired)
{
    lm_claim_result r = run_mut("precond/remark2", NULL, 1.0, 0);
    cr_assert_eq(r.nconfig, 2);
    cr_expect_eq(r.cfg[0].reading, LM_READ_REPAIRED);
    cr_expect_eq(r.cfg[0].verdict, LM_V_HOLDS, "repaired: %s", lm_verdict_name(r.cfg[0].verdict));
    cr_expect_eq(r.cfg[1].reading, LM_READ_PAPER);
    cr_expect_eq(r.cfg[1].verdict, LM_V_VIOLATED, "as printed: %s", lm_verdict_name(r.cfg[1].verdict));
    cr_expect_eq(r.verdict, LM_V_VIOLATED);
    cr_expect_eq(r.repaired_verdict, LM_V_HOLDS);
    lm_claim_result_clear(&r);
}

/* theorem2 / remark3: the practical-step runs are probes, the tube start and TR-B read the paper */
Test(mutate_precond, theorem2_readings)
{
    const lm_claim *c = lm_claim_find("precond/theorem2");
    cr_assert_not_null(c);
    cr_assert_eq(lm_claim_nreadings(c), 4);
    cr_expect_eq(c->readings[0].kind, LM_READ_PAPER);
    cr_expect_eq(c->readings[1].kind, LM_READ_PROBE);
    cr_expect_eq(c->readings[2].kind, LM_READ_PROBE);
    cr_expect_eq(c->readings[3].kind, LM_READ_PAPER);
}
