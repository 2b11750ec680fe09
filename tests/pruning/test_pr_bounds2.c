/* tests/test_pr_bounds2.c -- the remaining attention-pruning pointwise bounds and facts
 * (pruning/lemmaD.4, factA.5, factE.1, factE.2, lemmaF.2, factF.3, lemmaF.6): each claim
 * as stated gives a real verdict, and a deliberately wrong constant (or flipped formula)
 * comes out violated. */
/* claim files checked here: lemmas/pruning/factA-5.c, lemmas/pruning/factE-1.c,
 * lemmas/pruning/factE-2.c, lemmas/pruning/factF-3.c, lemmas/pruning/lemmaD-4.c,
 * lemmas/pruning/lemmaF-2.c, lemmas/pruning/lemmaF-6.c */
#include "test_support.h"
#include "lm_prbd.h"

static void wrong(const char *id, const char *set, const char *config, int budget)
{
    const char *sets[] = {set, NULL};
    lm_test_expect(id, sets, config, budget, LM_V_VIOLATED);
}

static void holds(const char *id, int budget)
{
    lm_claim_result r = lm_test_run(id, NULL, NULL, budget);
    cr_expect(r.verdict == LM_V_HOLDS, "%s as stated: got %s (%s)", id, lm_verdict_name(r.verdict),
              r.nconfig ? r.cfg[0].detail : "");
    lm_claim_result_clear(&r);
}

Test(pr_bounds2, lemmaF_6)
{
    lm_test_not_error("pruning/lemmaF.6", NULL, 3);
    holds("pruning/lemmaF.6", 3);
    wrong("pruning/lemmaF.6", "coef=1.001", "inequality", 3);
    wrong("pruning/lemmaF.6", "formula=c2", "causal", 3);
}

Test(pr_bounds2, factF_3)
{
    lm_test_not_error("pruning/factF.3", NULL, 4);
    holds("pruning/factF.3", 4);
    wrong("pruning/factF.3", "coef=1.001", NULL, 4);
}

Test(pr_bounds2, lemmaF_2)
{
    lm_test_not_error("pruning/lemmaF.2", NULL, 4);
    holds("pruning/lemmaF.2", 4);
    wrong("pruning/lemmaF.2", "c_ab=1.99", "part1", 4);
    wrong("pruning/lemmaF.2", "c_ab=1.9", "part2", 4);
    const char *s[] = {"bounds=exceed", NULL};
    lm_test_expect("pruning/lemmaF.2", s, "part2", 4, LM_V_ASSUMPTION_FAILED);
}

Test(pr_bounds2, factA_5)
{
    static const char *const cf[] = {"1-scaling", "2-triangle", "3-cauchy-schwarz", "4-spectral",
                                     "4-frobenius", "5-hadamard", "6-matvec", "7-lower",
                                     "7-upper", "8-transpose"};
    lm_test_not_error("pruning/factA.5", NULL, 4);
    holds("pruning/factA.5", 4);
    for (int k = 0; k < 10; k++) wrong("pruning/factA.5", "coef=0.999", cf[k], 4);
}

Test(pr_bounds2, lemmaD_4)
{
    lm_test_not_error("pruning/lemmaD.4", NULL, 8);
    holds("pruning/lemmaD.4", 8);
    wrong("pruning/lemmaD.4", "coef=0.6", NULL, 8);
    const char *s[] = {"n_exp=1", NULL}; /* the printed alternative 2 n R^3 */
    lm_test_expect("pruning/lemmaD.4", s, NULL, 8, LM_V_HOLDS);
}

Test(pr_bounds2, factE_2)
{
    lm_test_not_error("pruning/factE.2", NULL, 4);
    holds("pruning/factE.2", 4);
    const char *s[] = {"factor=2^(k-1)", NULL};
    lm_test_expect("pruning/factE.2", s, NULL, 4, LM_V_HOLDS);
    wrong("pruning/factE.2", "coef=0.99", "scalar", 12);
    wrong("pruning/factE.2", "coef=0.99", "hadamard", 12);
    wrong("pruning/factE.2", "coef=0.99", "matrix", 12);
}

Test(pr_bounds2, factE_1)
{
    lm_test_not_error("pruning/factE.1", NULL, 4);
    holds("pruning/factE.1", 4);
    wrong("pruning/factE.1", "coef=0.99", "linear", 4);
    wrong("pruning/factE.1", "coef=0.99", "tanh", 6);
}
