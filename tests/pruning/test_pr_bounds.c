/* tests/test_pr_bounds.c -- the attention-pruning pointwise bounds, facts and
 * structural claims: each claim as stated gives a real verdict, and a
 * deliberately wrong constant (or a dropped hypothesis) comes out violated. */
/* claim files checked here: lemmas/pruning/assumptionD-1.c, lemmas/pruning/definition5-1.c,
 * lemmas/pruning/factF-1.c, lemmas/pruning/lemma5-6.c, lemmas/pruning/lemma5-7.c,
 * lemmas/pruning/lemmaD-2.c, lemmas/pruning/lemmaD-3.c, lemmas/pruning/lemmaF-4.c,
 * lemmas/pruning/lemmaF-5.c, lemmas/pruning/lemmaF-7.c, lemmas/pruning/lemmaF-8.c,
 * lemmas/pruning/lemmaF-9.c */
#include "test_support.h"
#include "lm_prbd.h"
#include <math.h>

static void wrong(const char *id, const char *set, const char *config, int budget)
{
    const char *sets[] = {set, NULL};
    lm_test_expect(id, sets, config, budget, LM_V_VIOLATED);
}

Test(pr_bounds, lemma5_6)
{
    lm_test_not_error("pruning/lemma5.6", NULL, 4);
    wrong("pruning/lemma5.6", "coef=1.001", NULL, 4);
    const char *s[] = {"regime=n>d", NULL};
    lm_test_expect("pruning/lemma5.6", s, NULL, 3, LM_V_ASSUMPTION_FAILED);
}

Test(pr_bounds, lemmaF_4)
{
    lm_test_not_error("pruning/lemmaF.4", NULL, 4);
    wrong("pruning/lemmaF.4", "coef=1.001", NULL, 4);
}

Test(pr_bounds, lemmaF_7)
{
    lm_test_not_error("pruning/lemmaF.7", NULL, 4);
    wrong("pruning/lemmaF.7", "coef=1.001", "full", 4);
    wrong("pruning/lemmaF.7", "coef=1.001", "causal", 8);
    wrong("pruning/lemmaF.7", "control=drop-B1=0", "full", 4);
}

Test(pr_bounds, lemma5_7)
{
    lm_test_not_error("pruning/lemma5.7", NULL, 4);
    wrong("pruning/lemma5.7", "coef=1.001", NULL, 4);
}

Test(pr_bounds, lemmaD_3)
{
    lm_test_not_error("pruning/lemmaD.3", NULL, 3);
    wrong("pruning/lemmaD.3", "c1=0.99", "part1", 4);
    wrong("pruning/lemmaD.3", "c2=1", "part2", 8);
    wrong("pruning/lemmaD.3", "c3=0.3", "part3", 8);
    wrong("pruning/lemmaD.3", "c4=0.9", "part4", 4);
    wrong("pruning/lemmaD.3", "c5=1", "part5", 8);
    wrong("pruning/lemmaD.3", "c6=0.5", "part6", 4);
    wrong("pruning/lemmaD.3", "c7=1.001", "part7", 2);
    wrong("pruning/lemmaD.3", "c8=0.5", "part8", 4);
    wrong("pruning/lemmaD.3", "c9=0.3", "part9", 16);
    wrong("pruning/lemmaD.3", "c10=0.1", "part10", 4);
}

Test(pr_bounds, lemmaF_8)
{
    lm_test_not_error("pruning/lemmaF.8", NULL, 3);
    wrong("pruning/lemmaF.8", "c_entry=0.9", "entry", 4);
    wrong("pruning/lemmaF.8", "c_frob=0.3", "frobenius", 4);
}

Test(pr_bounds, lemmaF_9)
{
    lm_test_not_error("pruning/lemmaF.9", NULL, 3);
    wrong("pruning/lemmaF.9", "c_p1=0.2", "p1", 8);
    wrong("pruning/lemmaF.9", "c_p2=0.5", "alt-p2", 4);
}

Test(pr_bounds, lemmaD_2)
{
    lm_test_not_error("pruning/lemmaD.2", NULL, 4);
    wrong("pruning/lemmaD.2", "cX=0.999", NULL, 4);
    wrong("pruning/lemmaD.2", "cW=0.999", NULL, 4);
}

Test(pr_bounds, assumptionD_1)
{
    lm_test_not_error("pruning/assumptionD.1", NULL, 4);
    wrong("pruning/assumptionD.1", "gen_scale=1.01", "rademacher", 2);
    wrong("pruning/assumptionD.1", "gen_scale=1.01", "pl-regime", 4);
}

Test(pr_bounds, factF_1)
{
    lm_test_not_error("pruning/factF.1", NULL, 4);
    wrong("pruning/factF.1", "coef=0.999", "part1", 4);
    wrong("pruning/factF.1", "coef=0.999", "part1-alt", 4);
    wrong("pruning/factF.1", "coef=0.999", "part2", 4);
}

Test(pr_bounds, lemmaF_5)
{
    lm_test_not_error("pruning/lemmaF.5", NULL, 4);
    wrong("pruning/lemmaF.5", "coef=1.001", "lower", 4);
    wrong("pruning/lemmaF.5", "coef=0.999", "upper", 4);
}

Test(pr_bounds, definition5_1)
{
    lm_test_not_error("pruning/definition5.1", NULL, 4);
    wrong("pruning/definition5.1", "mu_quad=8.01", "x^2", 4);
    wrong("pruning/definition5.1", "mu_sin=0.75", "x^2+3sin^2x", 4);
    cr_expect(lm_pr_pl_slack(2.0, 2.0, 8.0, 1.0, 0.0) == 0.0);
    cr_expect(lm_pr_pl_slack(2.0, 2.0, 9.0, 1.0, 0.0) < 0.0);
}
