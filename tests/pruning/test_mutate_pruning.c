/* Mutants and readings of the pruning paper's claims (issue 16).
 *   - `--mutate flip` (every inequality reversed) and `--mutate scale=F` (every right-hand
 *     side times F) must kill checks that hold strictly / tightly: pruning/lemma5.6 (tight:
 *     the equality family X = sqrt(beta)[I|0]Q), pruning/lemmaF.7 (tight at uniform S),
 *     pruning/lemmaD.3 part 1 (tight at one-hot rows);
 *   - the paper configurations and the repaired/probe readings give the verdicts found:
 *     theorem4.1, lemmaF.10, lemma5.5 and theorem1.3 are vacuous as printed with the RECON
 *     constants (xi far above L(M0) and above the sup of L over the box);
 *     lemma5.6 / lemmaF.4 hold on the paper configuration, their n > d probe misses beta > 0. */
#include "test_support.h"

static lm_claim_result run_mut(const char *id, const char *config, int budget, double scale, int flip)
{
    return lm_test_run_mutant(id, NULL, config, budget, scale, flip);
}

static void expect_cfg(const lm_claim_result *r, const char *config, lm_reading_kind kind, lm_verdict want)
{
    for (int k = 0; k < r->nconfig; k++)
        if (strcmp(r->cfg[k].config, config) == 0) {
            cr_expect_eq(r->cfg[k].reading, kind, "[%s] reading %s", config, lm_reading_name(r->cfg[k].reading));
            cr_expect_eq(r->cfg[k].verdict, want, "[%s] got %s, want %s (%s)", config,
                         lm_verdict_name(r->cfg[k].verdict), lm_verdict_name(want), r->cfg[k].detail);
            return;
        }
    cr_assert_fail("configuration %s not run", config);
}

Test(mutate_pruning, flip_kills_lemma5_6)
{
    lm_claim_result r = run_mut("pruning/lemma5.6", "mixed", 8, 1.0, 1);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "flip: got %s", lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
}

Test(mutate_pruning, flip_kills_lemmaF_7)
{
    lm_claim_result r = run_mut("pruning/lemmaF.7", "full", 8, 1.0, 1);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "flip: got %s", lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
}

Test(mutate_pruning, scale_half_kills_lemma5_6)
{
    lm_claim_result r = run_mut("pruning/lemma5.6", "mixed", 8, 0.5, 0);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "scale=0.5: got %s", lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
}

Test(mutate_pruning, scale_half_kills_lemmaD_3_part1)
{
    lm_claim_result r = run_mut("pruning/lemmaD.3", "part1", 8, 0.5, 0);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "scale=0.5: got %s", lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
}

Test(mutate_pruning, unmutated_lemma5_6_holds)
{
    lm_claim_result r = run_mut("pruning/lemma5.6", NULL, 8, 1.0, 0);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "got %s", lm_verdict_name(r.verdict));
    expect_cfg(&r, "mixed", LM_READ_PAPER, LM_V_HOLDS);
    expect_cfg(&r, "n>d", LM_READ_PROBE, LM_V_ASSUMPTION_FAILED);
    cr_expect_eq(r.probe_verdict, LM_V_ASSUMPTION_FAILED);
    lm_claim_result_clear(&r);
}

Test(mutate_pruning, lemmaF_4_probe_n_gt_d)
{
    lm_claim_result r = run_mut("pruning/lemmaF.4", NULL, 8, 1.0, 0);
    expect_cfg(&r, "mixed", LM_READ_PAPER, LM_V_HOLDS);
    expect_cfg(&r, "n>d", LM_READ_PROBE, LM_V_ASSUMPTION_FAILED);
    lm_claim_result_clear(&r);
}

Test(mutate_pruning, theorem4_1_paper_reading_is_vacuous)
{
    lm_claim_result r = run_mut("pruning/theorem4.1", "non-causal,eta=1/L", 4, 1.0, 0);
    expect_cfg(&r, "non-causal,eta=1/L", LM_READ_PAPER, LM_V_VACUOUS);
    cr_expect(strstr(r.cfg[0].detail, "vacuous-xi"), "%s", r.cfg[0].detail);
    cr_expect_eq(r.verdict, LM_V_VACUOUS, "got %s", lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
}

Test(mutate_pruning, theorem4_1_causal_is_repaired)
{
    lm_claim_result r = run_mut("pruning/theorem4.1", "causal,eta=1/L", 4, 1.0, 0);
    expect_cfg(&r, "causal,eta=1/L", LM_READ_REPAIRED, LM_V_VACUOUS);
    lm_claim_result_clear(&r);
}

Test(mutate_pruning, lemmaF_10_paper_reading_is_vacuous)
{
    lm_claim_result r = run_mut("pruning/lemmaF.10", "pointwise,non-causal", 4, 1.0, 0);
    expect_cfg(&r, "pointwise,non-causal", LM_READ_PAPER, LM_V_VACUOUS);
    lm_claim_result_clear(&r);
}

Test(mutate_pruning, lemma5_5_paper_reading_is_vacuous)
{
    lm_claim_result r = run_mut("pruning/lemma5.5", "pointwise,non-causal", 4, 1.0, 0);
    expect_cfg(&r, "pointwise,non-causal", LM_READ_PAPER, LM_V_VACUOUS);
    lm_claim_result_clear(&r);
}

Test(mutate_pruning, theorem1_3_paper_vacuous_rate_repaired_consistent)
{
    lm_claim_result r = run_mut("pruning/theorem1.3", NULL, 16, 1.0, 0);
    expect_cfg(&r, "conclusion vs xi + eps", LM_READ_PAPER, LM_V_VACUOUS);
    expect_cfg(&r, "rate vs L* + eps", LM_READ_REPAIRED, LM_V_CONSISTENT);
    cr_expect_eq(r.verdict, LM_V_VACUOUS, "got %s", lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
}

/* RECON constants at or above the elementary supremum of the left-hand side: vacuous; a
 * constant below the supremum breaks (the constant enters the compared inequality) */
Test(mutate_pruning, lemmaF_8_recon_constants_are_vacuous)
{
    lm_claim_result r = run_mut("pruning/lemmaF.8", NULL, 4, 1.0, 0);
    expect_cfg(&r, "entry", LM_READ_PAPER, LM_V_VACUOUS);
    expect_cfg(&r, "frobenius", LM_READ_PAPER, LM_V_VACUOUS);
    lm_claim_result_clear(&r);
    const char *s[] = {"c_entry=0.5", NULL};
    lm_test_expect("pruning/lemmaF.8", s, "entry", 4, LM_V_VIOLATED);
}

Test(mutate_pruning, lemmaF_9_recon_constants_are_vacuous)
{
    lm_claim_result r = run_mut("pruning/lemmaF.9", NULL, 4, 1.0, 0);
    expect_cfg(&r, "p1", LM_READ_PAPER, LM_V_VACUOUS);
    expect_cfg(&r, "alt-p2", LM_READ_PAPER, LM_V_VACUOUS);
    lm_claim_result_clear(&r);
}

Test(mutate_pruning, lemmaD_3_sharp_parts_hold_recon_parts_vacuous)
{
    lm_claim_result r = run_mut("pruning/lemmaD.3", NULL, 4, 1.0, 0);
    expect_cfg(&r, "part1", LM_READ_PAPER, LM_V_HOLDS);
    expect_cfg(&r, "part4", LM_READ_PAPER, LM_V_HOLDS);
    expect_cfg(&r, "part2", LM_READ_PAPER, LM_V_VACUOUS);
    expect_cfg(&r, "part3", LM_READ_PAPER, LM_V_VACUOUS);
    expect_cfg(&r, "part10", LM_READ_PAPER, LM_V_VACUOUS);
    cr_expect_eq(r.verdict, LM_V_VACUOUS, "got %s", lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
}
