/* tests/test_pr_gradient.c -- the derivative identities of the attention-pruning
 * paper (pruning/factA.3, lemmaA.7, lemmaB.8-B.15, theorem5.3, theoremC.5): each
 * as stated is a real verdict (not error), and each with a wrong coefficient or
 * formula -- and every mutation canary of the closed-form gradient -- comes out
 * violated. */
/* claim files checked here: lemmas/pruning/factA-3.c, lemmas/pruning/lemmaA-7.c,
 * lemmas/pruning/lemmaB-10.c, lemmas/pruning/lemmaB-11.c, lemmas/pruning/lemmaB-12.c,
 * lemmas/pruning/lemmaB-13.c, lemmas/pruning/lemmaB-14.c, lemmas/pruning/lemmaB-15.c,
 * lemmas/pruning/lemmaB-8.c, lemmas/pruning/lemmaB-9.c, lemmas/pruning/theorem5-3.c,
 * lemmas/pruning/theoremC-5.c */
#include "test_support.h"

Test(pr_gradient, factA_3_as_stated_not_error)
{
    lm_test_not_error("pruning/factA.3", NULL, 2);
}

Test(pr_gradient, factA_3_wrong_scale_is_violated)
{
    const char *sets[] = {"scale=1.01", NULL};
    lm_test_expect("pruning/factA.3", sets, NULL, 2, LM_V_VIOLATED);
}

Test(pr_gradient, lemmaA_7_as_stated_not_error)
{
    lm_test_not_error("pruning/lemmaA.7", NULL, 2);
}

Test(pr_gradient, lemmaA_7_wrong_scale_is_violated)
{
    const char *sets[] = {"scale=1.01", NULL};
    lm_test_expect("pruning/lemmaA.7", sets, NULL, 2, LM_V_VIOLATED);
}

Test(pr_gradient, lemmaB_8_as_stated_not_error)
{
    lm_test_not_error("pruning/lemmaB.8", NULL, 2);
}

Test(pr_gradient, lemmaB_8_wrong_scale_is_violated)
{
    const char *sets[] = {"scale=1.01", NULL};
    lm_test_expect("pruning/lemmaB.8", sets, NULL, 2, LM_V_VIOLATED);
}

Test(pr_gradient, lemmaB_9_as_stated_not_error)
{
    lm_test_not_error("pruning/lemmaB.9", NULL, 2);
}

Test(pr_gradient, lemmaB_9_wrong_scale_is_violated)
{
    const char *sets[] = {"scale=1.01", NULL};
    lm_test_expect("pruning/lemmaB.9", sets, NULL, 2, LM_V_VIOLATED);
}

Test(pr_gradient, lemmaB_10_as_stated_not_error)
{
    lm_test_not_error("pruning/lemmaB.10", NULL, 2);
}

Test(pr_gradient, lemmaB_10_wrong_scale_is_violated)
{
    const char *sets[] = {"scale=1.01", NULL};
    lm_test_expect("pruning/lemmaB.10", sets, NULL, 2, LM_V_VIOLATED);
}

Test(pr_gradient, lemmaB_11_as_stated_not_error)
{
    lm_test_not_error("pruning/lemmaB.11", NULL, 2);
}

Test(pr_gradient, lemmaB_11_wrong_scale_is_violated)
{
    const char *sets[] = {"scale=1.01", NULL};
    lm_test_expect("pruning/lemmaB.11", sets, NULL, 2, LM_V_VIOLATED);
}

Test(pr_gradient, lemmaB_12_as_stated_not_error)
{
    lm_test_not_error("pruning/lemmaB.12", NULL, 2);
}

Test(pr_gradient, lemmaB_12_wrong_scale_is_violated)
{
    const char *sets[] = {"scale=1.01", NULL};
    lm_test_expect("pruning/lemmaB.12", sets, NULL, 2, LM_V_VIOLATED);
}

Test(pr_gradient, lemmaB_13_as_stated_not_error)
{
    lm_test_not_error("pruning/lemmaB.13", NULL, 2);
}

Test(pr_gradient, lemmaB_13_wrong_scale_is_violated)
{
    const char *sets[] = {"scale=1.01", NULL};
    lm_test_expect("pruning/lemmaB.13", sets, NULL, 2, LM_V_VIOLATED);
}

Test(pr_gradient, lemmaB_14_as_stated_not_error)
{
    lm_test_not_error("pruning/lemmaB.14", NULL, 2);
}

Test(pr_gradient, lemmaB_14_wrong_scale_is_violated)
{
    const char *sets[] = {"scale=1.01", NULL};
    lm_test_expect("pruning/lemmaB.14", sets, NULL, 2, LM_V_VIOLATED);
}

Test(pr_gradient, lemmaB_15_as_stated_not_error)
{
    lm_test_not_error("pruning/lemmaB.15", NULL, 2);
}

Test(pr_gradient, lemmaB_15_wrong_scale_is_violated)
{
    const char *sets[] = {"scale=1.01", NULL};
    lm_test_expect("pruning/lemmaB.15", sets, NULL, 2, LM_V_VIOLATED);
}

Test(pr_gradient, theorem5_3_as_stated_not_error)
{
    lm_test_not_error("pruning/theorem5.3", NULL, 2);
}

Test(pr_gradient, theorem5_3_wrong_scale_is_violated)
{
    const char *sets[] = {"scale=1.01", NULL};
    lm_test_expect("pruning/theorem5.3", sets, NULL, 2, LM_V_VIOLATED);
}

Test(pr_gradient, theoremC_5_as_stated_not_error)
{
    lm_test_not_error("pruning/theoremC.5", NULL, 2);
}

Test(pr_gradient, theoremC_5_wrong_scale_is_violated)
{
    const char *sets[] = {"scale=1.01", NULL};
    lm_test_expect("pruning/theoremC.5", sets, NULL, 2, LM_V_VIOLATED);
}

Test(pr_gradient, lemmaA_7_transposed_formula_is_violated)
{
    const char *sets[] = {"formula=transpose", NULL};
    lm_test_expect("pruning/lemmaA.7", sets, NULL, 2, LM_V_VIOLATED);
}

Test(pr_gradient, lemmaB_8_swapped_formula_is_violated)
{
    const char *sets[] = {"formula=swap", NULL};
    lm_test_expect("pruning/lemmaB.8", sets, NULL, 2, LM_V_VIOLATED);
}

Test(pr_gradient, lemmaB_15_dropped_p2_is_violated)
{
    const char *sets[] = {"formula=drop-p2", NULL};
    lm_test_expect("pruning/lemmaB.15", sets, NULL, 2, LM_V_VIOLATED);
}

Test(pr_gradient, factA_3_wrong_rules_is_violated)
{
    const char *sets[] = {"formula=wrong", NULL};
    lm_test_expect("pruning/factA.3", sets, NULL, 2, LM_V_VIOLATED);
}

Test(pr_gradient, theorem5_3_mutation_p_transpose_is_violated)
{
    const char *sets[] = {"mutation=p-transpose", NULL};
    lm_test_expect("pruning/theorem5.3", sets, NULL, 2, LM_V_VIOLATED);
}

Test(pr_gradient, theorem5_3_mutation_drop_p2_is_violated)
{
    const char *sets[] = {"mutation=drop-p2", NULL};
    lm_test_expect("pruning/theorem5.3", sets, NULL, 2, LM_V_VIOLATED);
}

Test(pr_gradient, theorem5_3_mutation_double_lambda_is_violated)
{
    const char *sets[] = {"mutation=double-lambda", NULL};
    lm_test_expect("pruning/theorem5.3", sets, NULL, 2, LM_V_VIOLATED);
}

Test(pr_gradient, theorem5_3_mutation_W_transpose_is_violated)
{
    const char *sets[] = {"mutation=W-transpose", NULL};
    lm_test_expect("pruning/theorem5.3", sets, NULL, 2, LM_V_VIOLATED);
}

Test(pr_gradient, theoremC_5_mutation_p_transpose_is_violated)
{
    const char *sets[] = {"mutation=p-transpose", NULL};
    lm_test_expect("pruning/theoremC.5", sets, NULL, 2, LM_V_VIOLATED);
}

Test(pr_gradient, theoremC_5_mutation_drop_p2_is_violated)
{
    const char *sets[] = {"mutation=drop-p2", NULL};
    lm_test_expect("pruning/theoremC.5", sets, NULL, 2, LM_V_VIOLATED);
}

Test(pr_gradient, theoremC_5_mutation_double_lambda_is_violated)
{
    const char *sets[] = {"mutation=double-lambda", NULL};
    lm_test_expect("pruning/theoremC.5", sets, NULL, 2, LM_V_VIOLATED);
}

Test(pr_gradient, theoremC_5_mutation_W_transpose_is_violated)
{
    const char *sets[] = {"mutation=W-transpose", NULL};
    lm_test_expect("pruning/theoremC.5", sets, NULL, 2, LM_V_VIOLATED);
}

Test(pr_gradient, stated_claims_hold)
{
    const char *ids[] = {"pruning/theoremC.5", "pruning/lemmaB.11", "pruning/factA.3", NULL};
    for (int k = 0; ids[k]; k++) {
        lm_claim_result r = lm_test_run(ids[k], NULL, NULL, 3);
        cr_expect_eq(r.verdict, LM_V_HOLDS, "%s as stated: %s", ids[k], lm_verdict_name(r.verdict));
        lm_claim_result_clear(&r);
    }
}
