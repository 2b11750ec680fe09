/* Mutants and readings of the dynamics paper (issue 16):
 *   - `--mutate flip` and `--mutate scale=F` (no claim code) kill checks of the paper;
 *   - the paper configurations added for the printed statements give the verdicts found:
 *     dynamics/lemma1's printed (2) with I_N is unsatisfiable (assumption-failed), the
 *     printed ||B||_F <= sqrt(HN)||X||_F step breaks while the repaired sqrt(nH) holds;
 *   - the readings are declared where the printed statement and the checked one differ. */
#include "test_support.h"
#include <math.h>

static lm_claim_result run_mut(const char *id, const char *config, int budget, double scale, int flip)
{
    return lm_test_run_mutant(id, NULL, config, budget, scale, flip);
}

/* Lemma 2(1): ||dS_i|| <= phi_i ||dW^Q|| holds with ratios ~0.1; reversed it breaks */
Test(mutate_dynamics, flip_kills_lemma2_item1)
{
    lm_claim_result r = run_mut("dynamics/lemma2", "item1,differential", 4, 1.0, 0);
    cr_assert_eq(r.verdict, LM_V_HOLDS, "unmutated: got %s", lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
    r = run_mut("dynamics/lemma2", "item1,differential", 4, 1.0, 1);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "flip: got %s", lm_verdict_name(r.verdict));
    cr_expect_str_eq(r.mutation, "flip");
    lm_claim_result_clear(&r);
}

/* Lemma 2(4): worst ratio ~0.03 at budget 4; every right-hand side times 1e-3 breaks */
Test(mutate_dynamics, scale_kills_lemma2_item4)
{
    lm_claim_result r = run_mut("dynamics/lemma2", "item4,grad-WQ", 4, 1e-3, 0);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "scale=1e-3: got %s", lm_verdict_name(r.verdict));
    cr_expect_gt(r.worst_ratio, 1.0);
    lm_claim_result_clear(&r);
}

/* Theorem 1 at the appendix step eta = 1/(2G): tight (ratio ~1), so halving the bound
 * (1-eta alpha)^t f_0 breaks it */
Test(mutate_dynamics, scale_half_kills_theorem1_paper_step)
{
    lm_claim_result r = run_mut("dynamics/theorem1", "dense,eta=1/(2G)", 4, 0.5, 0);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "scale=0.5: got %s", lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
}

/* Lemma 1 (2) as printed, (I_Hd x B')(W^O x I_N) r: dimensionally invalid for n > 1, so its
 * paper configuration is assumption-failed (never holds), and so is the claim; a wrong sign in (4)
 * still breaks the claim (violated is worse than assumption-failed), so its mutants stay decidable */
Test(mutate_dynamics, lemma1_printed_kron_is_unsatisfiable)
{
    const lm_claim *c = lm_claim_find("dynamics/lemma1");
    cr_assert_not_null(c);
    int k = lm_claim_nconfigs(c) - 1;
    cr_assert_str_eq(lm_claim_config(c, k), "(2) as printed: I_N");
    cr_assert_eq(lm_claim_reading(c, k).kind, LM_READ_PAPER);
    cr_assert_eq(lm_claim_reading(c, 0).kind, LM_READ_PAPER); /* (1), (3)-(5) as printed, (2) with I_Nn */
    lm_claim_result r = lm_test_run("dynamics/lemma1", NULL, "(2) as printed: I_N", 2);
    cr_expect_eq(r.verdict, LM_V_ASSUMPTION_FAILED, "got %s: %s", lm_verdict_name(r.verdict),
                 r.nconfig ? r.cfg[0].detail : "");
    cr_expect(r.nconfig && strstr(r.cfg[0].detail, "unsatisfiable"), "%s", r.nconfig ? r.cfg[0].detail : "");
    lm_claim_result_clear(&r);
    r = lm_test_run("dynamics/lemma1", NULL, NULL, 2);
    cr_expect_eq(r.verdict, LM_V_ASSUMPTION_FAILED, "claim: got %s", lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
    const char *const sets[] = {"term2_sign=0.5", NULL};
    lm_test_expect("dynamics/lemma1", sets, NULL, 2, LM_V_VIOLATED);
}

/* the proof of Theorem 2's step ||B||_F <= sqrt(HN)||X||_F breaks as printed (n > N);
 * the repaired sqrt(nH) holds (rows of a softmax sum to one) */
Test(mutate_dynamics, nrmB_printed_breaks_repaired_holds)
{
    lm_claim_result r = lm_test_run("dynamics/proof-theorem2-invariants", NULL,
                                    "pointwise ||B||_F<=sqrt(HN)||X||_F", 4);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "printed: got %s", lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
    r = lm_test_run("dynamics/proof-theorem2-invariants", NULL, "pointwise ||B||_F<=sqrt(nH)||X||_F", 4);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "repaired: got %s", lm_verdict_name(r.verdict));
    cr_expect_eq(r.repaired_verdict, LM_V_HOLDS);
    lm_claim_result_clear(&r);
}

/* the readings: the corrected constants are repaired, steps beyond the hypotheses probes */
Test(mutate_dynamics, readings_declared)
{
    static const struct {
        const char *id, *config;
        lm_reading_kind kind;
    } want[] = {
        {"dynamics/theorem1", "dense,eta=1/(2G)", LM_READ_PAPER},
        {"dynamics/theorem1", "block,eta=0.9/alpha", LM_READ_PROBE},
        {"dynamics/theorem2", "beta,block,eta=0.99/(2G)", LM_READ_PAPER},
        {"dynamics/theorem2", "mu,dense,eta=0.99/(2G)", LM_READ_REPAIRED},
        {"dynamics/theorem3-part2", "c=eta,eta=0.5/Gp", LM_READ_PAPER},
        {"dynamics/theorem3-part2", "c=eta/2,eta=0.5/Gp", LM_READ_REPAIRED},
        {"dynamics/lemma3", "Z90,sigma-at-max", LM_READ_PAPER},
        {"dynamics/lemma3", "Z89sum,sigma-at-max", LM_READ_REPAIRED},
        {"dynamics/lemma3", "Z90,sigma-at-M", LM_READ_PROBE},
        {"dynamics/lemma6", "formula-cG2-vs-model-cG1", LM_READ_PROBE},
        {"dynamics/lemma8", "Gp,all,sigma-at-max", LM_READ_PROBE},
        {"dynamics/proof-theorem2-invariants", "pointwise ||B||_F<=sqrt(nH)||X||_F", LM_READ_REPAIRED},
    };
    for (size_t q = 0; q < sizeof want / sizeof *want; q++) {
        const lm_claim *c = lm_claim_find(want[q].id);
        cr_assert_not_null(c, "%s", want[q].id);
        int found = -1;
        for (int k = 0; k < lm_claim_nconfigs(c); k++)
            if (!strcmp(lm_claim_config(c, k), want[q].config)) found = k;
        cr_assert_geq(found, 0, "%s has no configuration %s", want[q].id, want[q].config);
        cr_expect_eq(lm_claim_reading(c, found).kind, want[q].kind, "%s [%s]: %s", want[q].id, want[q].config,
                     lm_reading_name(lm_claim_reading(c, found).kind));
    }
}

/* Remark 3 / Remark 6: the balancing (W^V/c, cW^O) meets (8) (slope -2) but never (12)
 * (slope 0: lambda^V ||W^O|| is invariant), which Remark 6 says it does: the (12) paper
 * configuration is violated; a wrong expected slope is violated too */
Test(mutate_dynamics, remark3_balancing_meets_8_not_12)
{
    lm_claim_result r = lm_test_run("dynamics/remark3", NULL, "(8) main lambda^V vs c: slope -2", 2);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "(8): got %s", lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
    r = lm_test_run("dynamics/remark3", NULL, "(12) main lambda^V vs c: slope 0", 2);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "(12): got %s", lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
    const char *const sets[] = {"slope_main=-1", NULL};
    lm_test_expect("dynamics/remark3", sets, "(8) main lambda^V vs c: slope -2", 2, LM_V_VIOLATED);
}

/* Lemma 2 finite form: with ||Delta|| = dmax = 1000 every pair's bound is above the
 * a-priori maximum sqrt(2nH) of ||S_i(W+D)-S_i(W)||_F: only vacuous instances */
Test(mutate_dynamics, lemma2_trivial_bounds_are_vacuous)
{
    const char *const sets[] = {"dmax=1000", "logscale_lo=1", "logscale_hi=1.5", NULL};
    lm_claim_result r = lm_test_run("dynamics/lemma2", sets, "item1,finite", 2);
    cr_expect(r.nconfig == 1 && r.cfg[0].vacuous > 0, "no vacuous instance: %s", r.nconfig ? r.cfg[0].detail : "");
    lm_claim_result_clear(&r);
}
