/* tests/test_pr_identities.c -- the algebraic identities and definitions of the
 * attention-pruning paper (lemmas/pruning/definition*, lemmaC-2..4, factA-1/2/4/6):
 * every claim comes out violated with a wrong constant or a flipped formula,
 * and holds (never error) as stated.  Budget 4 (quick): a few instances each. */
/* claim files checked here: lemmas/pruning/definition1-1.c, lemmas/pruning/definition1-2.c,
 * lemmas/pruning/definition3-1.c, lemmas/pruning/definition3-2.c, lemmas/pruning/definitionB-1.c,
 * lemmas/pruning/definitionB-2.c, lemmas/pruning/definitionB-3.c, lemmas/pruning/definitionB-4.c,
 * lemmas/pruning/definitionB-5.c, lemmas/pruning/definitionB-6.c, lemmas/pruning/definitionB-7.c,
 * lemmas/pruning/definitionC-1.c, lemmas/pruning/factA-2.c, lemmas/pruning/factA-4.c,
 * lemmas/pruning/factA-6.c, lemmas/pruning/lemmaC-3.c, lemmas/pruning/lemmaC-4.c */
#include "test_support.h"

static void expect_holds(const char *id, const char *config)
{
    lm_claim_result r = lm_test_run(id, NULL, config, 4);
    for (int k = 0; k < r.nconfig; k++)
        cr_expect_eq(r.cfg[k].verdict, LM_V_HOLDS, "%s [%s] got %s: %s", id, r.cfg[k].config,
                     lm_verdict_name(r.cfg[k].verdict), r.cfg[k].detail);
    lm_claim_result_clear(&r);
}

/* ---- pruning/definition1.1 ---- */

Test(pr_identities, definition1_1_wrong_is_violated)
{
    /* column normalisation exp(H) D_col^-1 */
    const char *sets[] = {"formula=column", NULL};
    lm_test_expect("pruning/definition1.1", sets, "R=2", 4, LM_V_VIOLATED);
}

Test(pr_identities, definition1_1_as_stated)
{
    lm_test_not_error("pruning/definition1.1", NULL, 4);
    expect_holds("pruning/definition1.1", NULL);
}

/* ---- pruning/definition1.2 ---- */

Test(pr_identities, definition1_2_wrong_is_violated)
{
    /* no 1/2 in front of the reconstruction term */
    const char *sets[] = {"rec_factor=1", NULL};
    lm_test_expect("pruning/definition1.2", sets, "full", 4, LM_V_VIOLATED);
}

Test(pr_identities, definition1_2_as_stated)
{
    lm_test_not_error("pruning/definition1.2", NULL, 4);
    expect_holds("pruning/definition1.2", NULL);
}

/* ---- pruning/definition3.1 ---- */

Test(pr_identities, definition3_1_wrong_is_violated)
{
    /* the anti-causal mask C_ij = [i <= j] */
    const char *sets[] = {"mask=anti-causal", NULL};
    lm_test_expect("pruning/definition3.1", sets, "causal", 4, LM_V_VIOLATED);
}

Test(pr_identities, definition3_1_as_stated)
{
    lm_test_not_error("pruning/definition3.1", NULL, 4);
    expect_holds("pruning/definition3.1", NULL);
}

/* ---- pruning/definition3.2 ---- */

Test(pr_identities, definition3_2_wrong_is_violated)
{
    /* no 1/2 in front of the reconstruction term */
    const char *sets[] = {"rec_factor=1", NULL};
    lm_test_expect("pruning/definition3.2", sets, "causal", 4, LM_V_VIOLATED);
}

Test(pr_identities, definition3_2_as_stated)
{
    lm_test_not_error("pruning/definition3.2", NULL, 4);
    expect_holds("pruning/definition3.2", NULL);
}

/* ---- pruning/definitionB.1 ---- */

Test(pr_identities, definitionB_1_wrong_is_violated)
{
    /* row formula without the transpose of M o W */
    const char *sets[] = {"transpose=1", NULL};
    lm_test_expect("pruning/definitionB.1", sets, "full", 4, LM_V_VIOLATED);
}

Test(pr_identities, definitionB_1_as_stated)
{
    lm_test_not_error("pruning/definitionB.1", NULL, 4);
    expect_holds("pruning/definitionB.1", NULL);
}

/* ---- pruning/definitionB.2 ---- */

Test(pr_identities, definitionB_2_wrong_is_violated)
{
    /* alpha = u^T 1 */
    const char *sets[] = {"sum=columns", NULL};
    lm_test_expect("pruning/definitionB.2", sets, "causal", 4, LM_V_VIOLATED);
}

Test(pr_identities, definitionB_2_as_stated)
{
    lm_test_not_error("pruning/definitionB.2", NULL, 4);
    expect_holds("pruning/definitionB.2", NULL);
}

/* ---- pruning/definitionB.3 ---- */

Test(pr_identities, definitionB_3_wrong_is_violated)
{
    /* f normalised by column sums */
    const char *sets[] = {"normalise=columns", NULL};
    lm_test_expect("pruning/definitionB.3", sets, "block", 4, LM_V_VIOLATED);
}

Test(pr_identities, definitionB_3_as_stated)
{
    lm_test_not_error("pruning/definitionB.3", NULL, 4);
    expect_holds("pruning/definitionB.3", NULL);
}

/* ---- pruning/definitionB.4 ---- */

Test(pr_identities, definitionB_4_wrong_is_violated)
{
    /* c = f0 - f */
    const char *sets[] = {"sign=-1", NULL};
    lm_test_expect("pruning/definitionB.4", sets, "causal", 4, LM_V_VIOLATED);
}

Test(pr_identities, definitionB_4_as_stated)
{
    lm_test_not_error("pruning/definitionB.4", NULL, 4);
    expect_holds("pruning/definitionB.4", NULL);
}

/* ---- pruning/definitionB.5 ---- */

Test(pr_identities, definitionB_5_wrong_is_violated)
{
    /* L_rec = ||c||^2 without the 1/2 */
    const char *sets[] = {"half=1", NULL};
    lm_test_expect("pruning/definitionB.5", sets, "causal", 4, LM_V_VIOLATED);
}

Test(pr_identities, definitionB_5_as_stated)
{
    lm_test_not_error("pruning/definitionB.5", NULL, 4);
    expect_holds("pruning/definitionB.5", NULL);
}

/* ---- pruning/definitionB.6 ---- */

Test(pr_identities, definitionB_6_wrong_is_violated)
{
    /* L_reg = lambda ||M||^2 without the 1/2 */
    const char *sets[] = {"half=1", NULL};
    lm_test_expect("pruning/definitionB.6", sets, "causal", 4, LM_V_VIOLATED);
}

Test(pr_identities, definitionB_6_as_stated)
{
    lm_test_not_error("pruning/definitionB.6", NULL, 4);
    expect_holds("pruning/definitionB.6", NULL);
}

/* ---- pruning/definitionB.7 ---- */

Test(pr_identities, definitionB_7_wrong_is_violated)
{
    /* L = L_rec + 2 L_reg */
    const char *sets[] = {"reg_weight=2", NULL};
    lm_test_expect("pruning/definitionB.7", sets, "full", 4, LM_V_VIOLATED);
}

Test(pr_identities, definitionB_7_as_stated)
{
    lm_test_not_error("pruning/definitionB.7", NULL, 4);
    expect_holds("pruning/definitionB.7", NULL);
}

/* ---- pruning/definitionC.1 ---- */

Test(pr_identities, definitionC_1_wrong_is_violated)
{
    /* diag(f_j) + f_j f_j^T */
    const char *sets[] = {"jac_sign=1", NULL};
    lm_test_expect("pruning/definitionC.1", sets, "causal", 4, LM_V_VIOLATED);
}

Test(pr_identities, definitionC_1_as_stated)
{
    lm_test_not_error("pruning/definitionC.1", NULL, 4);
    expect_holds("pruning/definitionC.1", NULL);
}

/* ---- pruning/lemmaC.2 ---- */

Test(pr_identities, lemmaC_2_wrong_is_violated)
{
    /* W_{j1,i0} in the entries */
    const char *sets[] = {"transpose_W=1", NULL};
    lm_test_expect("pruning/lemmaC.2", sets, "causal", 4, LM_V_VIOLATED);
}

Test(pr_identities, lemmaC_2_as_stated)
{
    lm_test_not_error("pruning/lemmaC.2", NULL, 4);
    expect_holds("pruning/lemmaC.2", NULL);
}

/* ---- pruning/lemmaC.3 ---- */

Test(pr_identities, lemmaC_3_wrong_is_violated)
{
    /* W_{j1,i0} in the entries */
    const char *sets[] = {"transpose_W=1", NULL};
    lm_test_expect("pruning/lemmaC.3", sets, "full", 4, LM_V_VIOLATED);
}

Test(pr_identities, lemmaC_3_as_stated)
{
    lm_test_not_error("pruning/lemmaC.3", NULL, 4);
    expect_holds("pruning/lemmaC.3", NULL);
}

/* ---- pruning/lemmaC.4 ---- */

Test(pr_identities, lemmaC_4_wrong_is_violated)
{
    /* gradient 2 lambda M */
    const char *sets[] = {"lambda_factor=2", NULL};
    lm_test_expect("pruning/lemmaC.4", sets, "causal", 4, LM_V_VIOLATED);
}

Test(pr_identities, lemmaC_4_as_stated)
{
    lm_test_not_error("pruning/lemmaC.4", NULL, 4);
    expect_holds("pruning/lemmaC.4", NULL);
}

/* ---- pruning/factA.1 ---- */

Test(pr_identities, factA_1_wrong_is_violated)
{
    /* X (M o W) X_j0^T without the transpose */
    const char *sets[] = {"transpose=1", NULL};
    lm_test_expect("pruning/factA.1", sets, "default", 4, LM_V_VIOLATED);
}

Test(pr_identities, factA_1_as_stated)
{
    lm_test_not_error("pruning/factA.1", NULL, 4);
    expect_holds("pruning/factA.1", NULL);
}

/* ---- pruning/factA.2 ---- */

Test(pr_identities, factA_2_wrong_is_violated)
{
    /* columns p_{*,j0} in the C.2 form */
    const char *sets[] = {"transpose=1", NULL};
    lm_test_expect("pruning/factA.2", sets, "causal", 4, LM_V_VIOLATED);
}

Test(pr_identities, factA_2_as_stated)
{
    lm_test_not_error("pruning/factA.2", NULL, 4);
    expect_holds("pruning/factA.2", NULL);
}

/* ---- pruning/factA.4 ---- */

Test(pr_identities, factA_4_wrong_is_violated)
{
    /* tr(AB) = tr(B^T A) */
    const char *sets[] = {"formula=trace-transpose", NULL};
    lm_test_expect("pruning/factA.4", sets, "default", 4, LM_V_VIOLATED);
}

Test(pr_identities, factA_4_as_stated)
{
    lm_test_not_error("pruning/factA.4", NULL, 4);
    expect_holds("pruning/factA.4", NULL);
}

/* ---- pruning/factA.6 ---- */

Test(pr_identities, factA_6_wrong_is_violated)
{
    /* cross term <A,B> instead of 2<A,B> */
    const char *sets[] = {"cross_factor=1", NULL};
    lm_test_expect("pruning/factA.6", sets, "causal", 4, LM_V_VIOLATED);
}

Test(pr_identities, factA_6_as_stated)
{
    lm_test_not_error("pruning/factA.6", NULL, 4);
    expect_holds("pruning/factA.6", NULL);
}
