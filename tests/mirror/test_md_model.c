/* tests/test_md_model.c -- the mirror-descent paper's model-level claims:
 * assumptionA, definition2, svm, definition3, eq4a, lemma16, lemma17, lemma18.
 * Each claim must come out violated with a deliberately wrong constant, and
 * must not come out error as stated. */
#include "test_support.h"

Test(md_model, assumptionA_wrong_lipschitz_is_violated)
{
    const char *sets[] = {"lip_scale=0.5", NULL};
    lm_test_expect("mirror/assumptionA", sets, "logistic", 2, LM_V_VIOLATED);
}

Test(md_model, assumptionA_as_stated_not_error)
{
    lm_test_not_error("mirror/assumptionA", "exponential", 2);
    lm_test_not_error("mirror/assumptionA", "correlation", 2);
}

Test(md_model, definition2_wrong_rate_is_violated)
{
    const char *sets[] = {"rate_scale=2", NULL};
    lm_test_expect("mirror/definition2", sets, "paper(3,4,4)", 3, LM_V_VIOLATED);
}

Test(md_model, definition2_unsigned_scores_are_violated)
{
    const char *sets[] = {"score_sign=-1", NULL};
    lm_test_expect("mirror/definition2", sets, "paper(3,4,4)", 3, LM_V_VIOLATED);
}

Test(md_model, definition2_as_stated_not_error)
{
    lm_test_not_error("mirror/definition2", "paper(3,4,4)", 3);
}

Test(md_model, svm_wrong_closed_form_is_violated)
{
    const char *sets[] = {"closed_scale=1.1", NULL};
    lm_test_expect("mirror/svm", sets, "closed-form", 3, LM_V_VIOLATED);
}

Test(md_model, svm_wrong_margin_bound_is_violated)
{
    const char *sets[] = {"margin_scale=0.99", NULL};
    lm_test_expect("mirror/svm", sets, "paper(3,4,4)", 3, LM_V_VIOLATED);
}

Test(md_model, svm_as_stated_not_error)
{
    lm_test_not_error("mirror/svm", "closed-form", 4);
    lm_test_not_error("mirror/svm", "paper(3,4,4)", 3);
}

Test(md_model, definition3_wrong_gap_is_violated)
{
    const char *sets[] = {"gbar_margin=3", NULL};
    lm_test_expect("mirror/definition3", sets, "opt,paper(3,4,4)", 3, LM_V_VIOLATED);
}

Test(md_model, definition3_too_many_supports_is_violated)
{
    const char *sets[] = {"min_supports=100", NULL};
    lm_test_expect("mirror/definition3", sets, "opt,paper(3,4,4)", 3, LM_V_VIOLATED);
}

Test(md_model, definition3_as_stated_not_error)
{
    lm_test_not_error("mirror/definition3", "opt,paper(3,4,4)", 3);
    lm_test_not_error("mirror/definition3", "post-hoc,R2(6,8,10)", 2);
}

Test(md_model, eq4a_wrong_level_is_violated)
{
    const char *sets[] = {"mu_scale=0.5", NULL};
    lm_test_expect("mirror/eq4a", sets, "p=2", 4, LM_V_VIOLATED);
}

Test(md_model, eq4a_unnormalised_cone_is_violated)
{
    const char *sets[] = {"normalize=0", NULL};
    lm_test_expect("mirror/eq4a", sets, "p=1.75", 2, LM_V_VIOLATED);
}

Test(md_model, eq4a_as_stated_not_error)
{
    lm_test_not_error("mirror/eq4a", "p=3", 4);
}

Test(md_model, eq4a_mpfr_path_holds)
{
    /* every level decided in MPFR from the start (the catalogue's small-mu path) */
    const char *sets[] = {"mpfr_below=1", NULL};
    lm_claim_result r = lm_test_run("mirror/eq4a", sets, "p=1.75", 2);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "got %s (%s)", lm_verdict_name(r.verdict), r.cfg[0].detail);
    lm_claim_result_clear(&r);
}

Test(md_model, lemma16_wrong_upper_bound_is_violated)
{
    const char *sets[] = {"upper_scale=0.999", NULL};
    lm_test_expect("mirror/lemma16", sets, "paper(3,4,4),logistic", 2, LM_V_VIOLATED);
}

Test(md_model, lemma16_wrong_lower_bound_is_violated)
{
    const char *sets[] = {"lower_scale=1.001", NULL};
    lm_test_expect("mirror/lemma16", sets, "paper(3,4,4),exp", 2, LM_V_VIOLATED);
}

Test(md_model, lemma16_as_stated_not_error)
{
    lm_test_not_error("mirror/lemma16", "large-v(3,4,4),logistic", 3);
}

Test(md_model, lemma17_wrong_gradient_is_violated)
{
    const char *sets[] = {"grad_scale=1.001", NULL};
    lm_test_expect("mirror/lemma17", sets, "T=8", 2, LM_V_VIOLATED);
}

Test(md_model, lemma17_as_stated_not_error)
{
    lm_test_not_error("mirror/lemma17", "saturated,T=8", 3);
}

Test(md_model, lemma18_wrong_bound_is_violated)
{
    const char *sets[] = {"G_scale=0.5", NULL};
    lm_test_expect("mirror/lemma18", sets, "antipodal,T=2,logistic", 2, LM_V_VIOLATED);
}

Test(md_model, lemma18_as_stated_not_error)
{
    lm_test_not_error("mirror/lemma18", "paper(3,4,4),exp", 3);
}

/* issue 15: T = 0 or -1, d = 0, -1 or 1e300 aborted mirror/assumptionA in the matrix index
 * assertion; fd_prec = 0 or -1 aborted mirror/lemma17 inside MPFR (below MPFR_PREC_MIN).
 * They are refused by the declared ranges now, and the smallest values inside them run. */
static void expect_refused(const char *id, const char *kv, const char *range)
{
    const lm_claim *c = lm_claim_find(id);
    cr_assert_not_null(c);
    int idx;
    double v;
    char err[256] = "";
    cr_assert_neq(lm_claim_parse_set(c, kv, &idx, &v, err, sizeof err), 0, "%s %s accepted", id, kv);
    cr_expect(strstr(err, range) != NULL, "%s %s: '%s' (want the range %s)", id, kv, err, range);
}

Test(md_model, assumptionA_sizes_are_ranged_and_the_smallest_run)
{
    expect_refused("mirror/assumptionA", "T=0", "[1, 64]");
    expect_refused("mirror/assumptionA", "T=-1", "[1, 64]");
    expect_refused("mirror/assumptionA", "d=0", "[1, 64]");
    expect_refused("mirror/assumptionA", "d=-1", "[1, 64]");
    expect_refused("mirror/assumptionA", "d=1e300", "[1, 64]");
    expect_refused("mirror/assumptionA", "n=0", "[1, 256]");
    const char *s1[] = {"T=1", "d=1", "n=1", NULL};
    lm_claim_result r = lm_test_run("mirror/assumptionA", s1, "logistic", 2);
    lm_claim_result_clear(&r);
    const char *s2[] = {"T=64", "d=64", NULL};
    r = lm_test_run("mirror/assumptionA", s2, "logistic", 2);
    cr_expect_neq(r.verdict, LM_V_ERROR, "%s", r.nconfig ? r.cfg[0].detail : "");
    lm_claim_result_clear(&r);
}

Test(md_model, lemma17_precision_is_ranged_and_53_bits_run)
{
    expect_refused("mirror/lemma17", "fd_prec=0", "[53, 2048]");
    expect_refused("mirror/lemma17", "fd_prec=-1", "[53, 2048]");
    expect_refused("mirror/lemma17", "fd_prec=52", "[53, 2048]");
    const char *s[] = {"fd_prec=53", NULL};
    lm_claim_result r = lm_test_run("mirror/lemma17", s, "T=8", 2);
    cr_expect_neq(r.verdict, LM_V_ERROR, "%s", r.nconfig ? r.cfg[0].detail : "");
    lm_claim_result_clear(&r);
}

Test(md_model, svm_p_override_at_most_one_is_an_error_not_a_crash)
{
    const char *s1[] = {"p_override=1", NULL};
    lm_claim_result r = lm_test_run("mirror/svm", s1, "paper(3,4,4)", 2);
    cr_expect_eq(r.verdict, LM_V_ERROR);
    lm_claim_result_clear(&r);
    const char *s2[] = {"p_override=1.5", NULL};
    r = lm_test_run("mirror/svm", s2, "paper(3,4,4)", 2);
    cr_expect_neq(r.verdict, LM_V_ERROR, "%s", r.nconfig ? r.cfg[0].detail : "");
    lm_claim_result_clear(&r);
}
