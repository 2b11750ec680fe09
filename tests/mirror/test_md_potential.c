/* tests/test_md_potential.c -- the mirror-descent paper's potential-level claims:
 * mirror/definition1, mirror/identity-dirbreg, mirror/lemma26 (identities as residuals),
 * mirror/lemma12..15 (pointwise inequalities).  Every claim must come out as something other
 * than `error` as stated, and `violated` with a deliberately wrong constant or formula;
 * lemma13's measured sharp constants must reproduce the catalogue's reference values. */
#include "test_support.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- mirror/definition1 ---- */

Test(md_potential, definition1_as_stated_not_error)
{
    lm_test_not_error("mirror/definition1", "p=1.01", 4);
    lm_test_not_error("mirror/definition1", "p=2", 4);
    lm_test_not_error("mirror/definition1", "p=20", 4);
}

Test(md_potential, definition1_wrong_formula_is_violated)
{
    /* the closed sum without sgn(V): wrong wherever signs are mixed */
    const char *sets[] = {"formula=1", NULL};
    lm_test_expect("mirror/definition1", sets, "p=3", 4, LM_V_VIOLATED);
}

Test(md_potential, definition1_tiny_tolerance_is_violated)
{
    /* a tolerance 1e-30 times the rounding bound cannot be met even at 256 bits */
    const char *sets[] = {"tol_scale=1e-30", NULL};
    lm_test_expect("mirror/definition1", sets, "p=1.5", 4, LM_V_VIOLATED);
}

/* ---- mirror/identity-dirbreg ---- */

Test(md_potential, dirbreg_as_stated_holds)
{
    lm_claim_result r = lm_test_run("mirror/identity-dirbreg", NULL, "p=1.05", 4);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "got %s: %s", lm_verdict_name(r.verdict), r.cfg[0].detail);
    lm_claim_result_clear(&r);
    lm_test_not_error("mirror/identity-dirbreg", "p=6", 4);
}

Test(md_potential, dirbreg_wrong_homogeneity_is_violated)
{
    const char *sets[] = {"formula=1", NULL};
    lm_test_expect("mirror/identity-dirbreg", sets, "p=3", 4, LM_V_VIOLATED);
}

Test(md_potential, dirbreg_tiny_tolerance_is_violated)
{
    const char *sets[] = {"tol_scale=1e-30", NULL};
    lm_test_expect("mirror/identity-dirbreg", sets, "p=1.5", 4, LM_V_VIOLATED);
}

/* ---- mirror/lemma26 ---- */

Test(md_potential, lemma26_as_stated_not_error)
{
    lm_test_not_error("mirror/lemma26", "p=1.01", 4);
    lm_test_not_error("mirror/lemma26", "p=20", 4);
}

Test(md_potential, lemma26_wrong_sign_is_violated)
{
    const char *sets[] = {"formula=1", NULL};
    lm_test_expect("mirror/lemma26", sets, "p=3", 4, LM_V_VIOLATED);
}

Test(md_potential, lemma26_tiny_tolerance_is_violated)
{
    const char *sets[] = {"tol_scale=1e-30", NULL};
    lm_test_expect("mirror/lemma26", sets, "p=1.5", 4, LM_V_VIOLATED);
}

/* ---- mirror/lemma12 ---- */

Test(md_potential, lemma12_as_stated_holds_at_the_tight_ends)
{
    lm_claim_result r = lm_test_run("mirror/lemma12", NULL, "p=3", 4);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "got %s", lm_verdict_name(r.verdict));
    /* both ends are attained: the worst ratio is 1 up to rounding */
    cr_expect(fabs(r.worst_ratio - 1.0) < 1e-12, "worst ratio %.17g", r.worst_ratio);
    lm_claim_result_clear(&r);
    lm_test_not_error("mirror/lemma12", "p=1.01", 4);
    lm_test_not_error("mirror/lemma12", "p=50", 4);
}

Test(md_potential, lemma12_wrong_ends_are_violated)
{
    const char *hi[] = {"hi_scale=0.999", NULL};
    lm_test_expect("mirror/lemma12", hi, "p=3", 4, LM_V_VIOLATED);
    const char *lo[] = {"lo_scale=1.001", NULL};
    lm_test_expect("mirror/lemma12", lo, "p=1.5", 4, LM_V_VIOLATED);
}

/* ---- mirror/lemma13 ---- */

Test(md_potential, lemma13_as_stated_not_error)
{
    lm_test_not_error("mirror/lemma13", "L2,p=1.01", 4);
    lm_test_not_error("mirror/lemma13", "L1,p=20", 4);
}

Test(md_potential, lemma13_wrong_constants_are_violated)
{
    /* L2 with (p-1)/2 * 1.5: the sharp constant is (p-1)/2 */
    const char *l2[] = {"c_scale=1.5", NULL};
    lm_test_expect("mirror/lemma13", l2, "L2,p=1.5", 4, LM_V_VIOLATED);
    /* L1 at p = 3: c*(3) = 0.19526 = 4.686 / (3 * 2^3) */
    const char *l1[] = {"c_scale=4.75", NULL};
    lm_test_expect("mirror/lemma13", l1, "L1,p=3", 4, LM_V_VIOLATED);
}

Test(md_potential, lemma13_alternative_reading_and_slack_hold)
{
    /* 1/(p 2^(p-1)) (c_scale = 2), and just below the sharp constant at p = 3 */
    const char *alt[] = {"c_scale=2", NULL};
    lm_test_expect("mirror/lemma13", alt, "L1,p=12", 4, LM_V_HOLDS);
    const char *below[] = {"c_scale=4.6", NULL};
    lm_test_expect("mirror/lemma13", below, "L1,p=3", 4, LM_V_HOLDS);
}

Test(md_potential, lemma13_sharp_constants_reproduce_the_catalogue)
{
    /* catalogue: c*(2) = 0.5, c*(3) ~ 0.19526, c*(4) ~ 0.08333, c*(8) ~ 0.003655,
     * c*(12) ~ 1.874e-4 (L1); c*(p) = (p-1)/2 (L2).  Each to half a unit of its last digit. */
    static const struct { const char *cfg, *name; double ref, tol; } R[] = {
        {"L1,p=2", "sharp constant c*(p=2)", 0.5, 1e-12},
        {"L1,p=3", "sharp constant c*(p=3)", 0.19526, 5e-6},
        {"L1,p=4", "sharp constant c*(p=4)", 0.08333, 5e-6},
        {"L1,p=8", "sharp constant c*(p=8)", 0.003655, 5e-7},
        {"L1,p=12", "sharp constant c*(p=12)", 1.874e-4, 5e-8},
        {"L2,p=1.01", "sharp constant c*(p=1.01)", 0.005, 1e-9},
        {"L2,p=1.5", "sharp constant c*(p=1.5)", 0.25, 1e-7},
        {"L2,p=1.99", "sharp constant c*(p=1.99)", 0.495, 1e-7},
    };
    for (size_t k = 0; k < sizeof R / sizeof R[0]; k++) {
        lm_claim_result r = lm_test_run("mirror/lemma13", NULL, R[k].cfg, 2);
        cr_assert_eq(r.nconfig, 1);
        double m = lm_test_measure(r.cfg[0].measures, R[k].name);
        cr_expect(fabs(m - R[k].ref) <= R[k].tol, "%s: measured %.8g, catalogue %.8g", R[k].cfg, m,
                  R[k].ref);
        lm_claim_result_clear(&r);
    }
}

/* ---- mirror/lemma14 ---- */

Test(md_potential, lemma14_as_stated_not_error)
{
    lm_test_not_error("mirror/lemma14", "p=1.001", 4);
    lm_test_not_error("mirror/lemma14", "p=50", 4);
}

Test(md_potential, lemma14_wrong_constants_are_violated)
{
    const char *lo[] = {"lo_scale=1.001", NULL};
    lm_test_expect("mirror/lemma14", lo, "p=3", 4, LM_V_VIOLATED);
    const char *hi[] = {"hi_scale=0.999", NULL};
    lm_test_expect("mirror/lemma14", hi, "p=1.01", 4, LM_V_VIOLATED);
}

/* ---- mirror/lemma15 ---- */

Test(md_potential, lemma15_as_stated_not_error)
{
    lm_test_not_error("mirror/lemma15", "p=2", 4);
    lm_test_not_error("mirror/lemma15", "p=2+1e-9", 4);
    lm_test_not_error("mirror/lemma15", "p=1.001", 4);
}

Test(md_potential, lemma15_wrong_constants_are_violated)
{
    const char *lo[] = {"lo_scale=1.01", NULL};
    lm_test_expect("mirror/lemma15", lo, "p=3", 4, LM_V_VIOLATED);
    const char *hi[] = {"hi_scale=0.99", NULL};
    lm_test_expect("mirror/lemma15", hi, "p=1.5", 4, LM_V_VIOLATED);
}
