/* tests/test_mutate_mirror.c -- the mirror-descent paper (mirror/...) under the core's mutants
 * and its readings (issue 16):
 *   - `--mutate flip` (every inequality reversed) and `--mutate scale=F` (every right-hand side
 *     multiplied by F) must turn claims of the paper into `violated`;
 *   - the configurations added for issue 16 give the verdicts found: lemma13's alternative
 *     printed L1 constant 1/(p 2^(p-1)) (paper readings) holds, its probe without the L2 norm
 *     hypothesis is violated (the hypothesis is necessary) while the claim's verdict, taken over
 *     the paper readings, stays `holds`. */
#include "test_support.h"
#include <math.h>

/* run claim `id` at configuration `config` with a small budget under a mutant */
static lm_claim_result run_mutant(const char *id, const char *config, int budget, double scale, int flip)
{
    return lm_test_run_mutant(id, NULL, config, budget, scale, flip);
}

static void expect_mutant(const char *id, const char *config, int budget, double scale, int flip,
                          lm_verdict want)
{
    lm_claim_result r = run_mutant(id, config, budget, scale, flip);
    cr_expect_eq(r.verdict, want, "%s [%s] under %s: got %s, want %s (%s)", id, config,
                 flip ? "flip" : "scale", lm_verdict_name(r.verdict), lm_verdict_name(want),
                 r.nconfig ? r.cfg[0].detail : "");
    lm_claim_result_clear(&r);
}

/* ---- flip: every inequality reversed ---- */

Test(mutate_mirror, lemma14_flipped_is_violated)
{
    /* both sides of the power comparison hold strictly off the diagonal x = y */
    expect_mutant("mirror/lemma14", "p=3", 4, 1.0, 1, LM_V_VIOLATED);
}

Test(mutate_mirror, lemma22_flipped_is_violated)
{
    /* the norm-growth inequality holds strictly unless W(k+1) is parallel to W(k) */
    expect_mutant("mirror/lemma22", "pointwise,p=3", 4, 1.0, 1, LM_V_VIOLATED);
}

Test(mutate_mirror, lemma16_flipped_is_violated)
{
    expect_mutant("mirror/lemma16", "paper(3,4,4),logistic", 3, 1.0, 1, LM_V_VIOLATED);
}

/* ---- scale: every right-hand side multiplied by F ---- */

Test(mutate_mirror, lemma12_scaled_is_violated)
{
    /* both ends are attained (1-sparse and equal-magnitude matrices): half of them breaks */
    expect_mutant("mirror/lemma12", "p=3", 4, 0.5, 0, LM_V_VIOLATED);
}

Test(mutate_mirror, lemma18_scaled_is_violated)
{
    /* the designed near-tight case: worst ratio about 0.997 */
    expect_mutant("mirror/lemma18", "antipodal,T=2,logistic", 3, 0.5, 0, LM_V_VIOLATED);
}

Test(mutate_mirror, lemma13_scaled_is_violated)
{
    /* L2's constant (p-1)/2 is approached as w, v -> 1 with the same sign */
    expect_mutant("mirror/lemma13", "L2,p=1.5", 4, 0.5, 0, LM_V_VIOLATED);
}

Test(mutate_mirror, unmutated_runs_hold)
{
    /* the same configurations without a mutant hold: the mutants, not the data, break them */
    expect_mutant("mirror/lemma14", "p=3", 4, 1.0, 0, LM_V_HOLDS);
    expect_mutant("mirror/lemma12", "p=3", 4, 1.0, 0, LM_V_HOLDS);
}

/* ---- the configurations added for issue 16 ---- */

Test(mutate_mirror, lemma13_alternative_printed_constant_holds)
{
    lm_claim_result r = lm_test_run("mirror/lemma13", NULL, "L1,p=3,1/(p 2^(p-1))", 4);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "got %s: %s", lm_verdict_name(r.verdict), r.cfg[0].detail);
    cr_expect_eq(r.cfg[0].reading, LM_READ_PAPER);
    lm_claim_result_clear(&r);
    r = lm_test_run("mirror/lemma13", NULL, "L1,p=12,1/(p 2^(p-1))", 4);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "got %s: %s", lm_verdict_name(r.verdict), r.cfg[0].detail);
    lm_claim_result_clear(&r);
}

Test(mutate_mirror, lemma13_alternative_constant_still_breaks_when_doubled)
{
    /* 4/(p 2^(p-1)) = 1/3 at p = 3 exceeds the sharp constant c*(3) ~ 0.19526 */
    const char *sets[] = {"c_scale=4", NULL};
    lm_test_expect("mirror/lemma13", sets, "L1,p=3,1/(p 2^(p-1))", 4, LM_V_VIOLATED);
}

Test(mutate_mirror, lemma13_probe_without_norm_hypothesis_is_violated)
{
    lm_claim_result r = lm_test_run("mirror/lemma13", NULL, "L2,p=1.5,no norm hypothesis", 4);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "got %s: %s", lm_verdict_name(r.verdict), r.cfg[0].detail);
    cr_expect_eq(r.cfg[0].reading, LM_READ_PROBE);
    lm_claim_result_clear(&r);
}

Test(mutate_mirror, probe_readings_do_not_decide_the_claim)
{
    /* lemma13 over its L2 p=1.5 paper configuration and the probe: the claim holds, the probe's
     * violation is kept beside it */
    lm_claim_result r = lm_test_run("mirror/lemma13", NULL, NULL, 2);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "got %s", lm_verdict_name(r.verdict));
    cr_expect_eq(r.probe_verdict, LM_V_VIOLATED, "got %s", lm_verdict_name(r.probe_verdict));
    lm_claim_result_clear(&r);
}

Test(mutate_mirror, probe_configurations_run)
{
    /* the normalised-step runs of lemma24/25 and lemma4's arbitrary-G stress test are probes,
     * definition3's post-hoc alpha too: each still produces a real verdict */
    lm_test_not_error("mirror/lemma24", "R2,p=1.75,normalised,eta=0.1", 2);
    lm_test_not_error("mirror/lemma4", "pointwise,p=1.5", 2);
    const lm_claim *c = lm_claim_find("mirror/lemma4");
    cr_assert_not_null(c);
    int probes = 0, papers = 0;
    for (int k = 0; k < lm_claim_nconfigs(c); k++) {
        lm_reading rd = lm_claim_reading(c, k);
        probes += rd.kind == LM_READ_PROBE;
        papers += rd.kind == LM_READ_PAPER;
    }
    cr_expect_eq(probes, 6);
    cr_expect_eq(papers, 7);
}

Test(mutate_mirror, lemma24_parenthetical_reading_is_assumption_failed)
{
    /* the catalogue's gloss D_{psi-eta L}(W(k+1),W(k)) >= 0 is (24a) itself: the failing R3 run is
     * excluded by its own hypothesis, never a pass; the shrink reading keeps the break */
    lm_claim_result r = lm_test_run("mirror/lemma24", NULL, "R3,p=10,eta=0.1,parenthetical", 2);
    cr_expect_eq(r.verdict, LM_V_ASSUMPTION_FAILED, "got %s: %s", lm_verdict_name(r.verdict), r.cfg[0].detail);
    cr_expect_eq(r.cfg[0].reading, LM_READ_PAPER);
    lm_claim_result_clear(&r);
    r = lm_test_run("mirror/lemma24", NULL, "R3,p=10,eta=0.1", 2);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "got %s: %s", lm_verdict_name(r.verdict), r.cfg[0].detail);
    lm_claim_result_clear(&r);
}

Test(mutate_mirror, lemma27_cone_reading_holds_and_observes_only_cone_steps)
{
    lm_claim_result r = lm_test_run("mirror/lemma27", NULL, "p=2,eta=1", 2);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "got %s: %s", lm_verdict_name(r.verdict), r.cfg[0].detail);
    cr_expect_eq(r.cfg[0].reading, LM_READ_PAPER);
    lm_claim_result_clear(&r);
    r = lm_test_run("mirror/lemma27", NULL, "p=2,eta=1,all steps", 2);
    cr_expect_eq(r.cfg[0].reading, LM_READ_PROBE);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "got %s: %s", lm_verdict_name(r.verdict), r.cfg[0].detail);
    lm_claim_result_clear(&r);
    /* a wrong constant still breaks the cone reading */
    const char *sets[] = {"gain_scale=2", NULL};
    lm_test_expect("mirror/lemma27", sets, "p=2,eta=1", 2, LM_V_VIOLATED);
}

Test(mutate_mirror, lemma27_flipped_is_violated)
{
    expect_mutant("mirror/lemma27", "p=2,eta=1", 2, 1.0, 1, LM_V_VIOLATED);
}

Test(mutate_mirror, lemma28_invariance_witness)
{
    /* from radius 10 ||W_mm||_p the run stays in the mu_0-cone (the probe holds); from radius 2
     * it leaves it within a few steps, which the same observation catches */
    lm_claim_result r = lm_test_run("mirror/lemma28", NULL, "p=2,eta=1,invariance at R0=10", 2);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "got %s: %s", lm_verdict_name(r.verdict), r.cfg[0].detail);
    cr_expect_eq(r.cfg[0].reading, LM_READ_PROBE);
    lm_claim_result_clear(&r);
    const char *sets[] = {"R0=2", NULL};
    lm_test_expect("mirror/lemma28", sets, "p=2,eta=1,invariance at R0=10", 2, LM_V_VIOLATED);
}
