/* Tests for the Theorem-3 group: dynamics/theorem3-part1, dynamics/theorem3-part2,
 * dynamics/proof-theorem3-invariants, dynamics/remark4, dynamics/example1. */
#include "test_support.h"

/* ---- theorem3-part1 ---- */

Test(dynamics_theorem3_part1, wrong_constant_is_violated)
{
    /* gamma 1e12 times too large: eta*gamma >= 1, so (1-eta gamma)^t f_0 <= 0 at t = 1 */
    const char *sets[] = {"gamma_scale=1e12", NULL};
    lm_test_expect("dynamics/theorem3-part1", sets, "cond12,eta=0.5/Gp", 4, LM_V_VIOLATED);
}

Test(dynamics_theorem3_part1, as_stated_not_error)
{
    lm_test_not_error("dynamics/theorem3-part1", "cond12-app,eta=0.5/Gp", 4);
    lm_test_not_error("dynamics/theorem3-part1", "cond12,eta=1e-1", 4);
    lm_test_not_error("dynamics/theorem3-part1", "hypothesis-not-enforced,eta=1e-2", 4);
}

/* ---- theorem3-part2 ---- */

Test(dynamics_theorem3_part2, wrong_constant_is_violated)
{
    /* 100 eta/2: GD cannot decrease f by 50 eta ||grad||^2 per step */
    const char *sets[] = {"c_scale=100", NULL};
    lm_test_expect("dynamics/theorem3-part2", sets, "c=eta/2,eta=0.03", 4, LM_V_VIOLATED);
}

Test(dynamics_theorem3_part2, as_stated_not_error)
{
    lm_test_not_error("dynamics/theorem3-part2", "c=eta/2,eta=0.5/Gp", 4);
    lm_test_not_error("dynamics/theorem3-part2", "c=eta,eta=0.03", 4);
}

/* ---- proof-theorem3-invariants ---- */

Test(dynamics_proof_theorem3_invariants, wrong_constant_is_violated)
{
    /* kappa 1e6 times too large exceeds 1 >= min S */
    const char *sets[] = {"kappa_scale=1e6", NULL};
    lm_test_expect("dynamics/proof-theorem3-invariants", sets, "pointwise-minS", 4, LM_V_VIOLATED);
}

Test(dynamics_proof_theorem3_invariants, wrong_bound_along_run_is_violated)
{
    /* sigma_max(W^Q_r) <= 0.6 x 3/2 lambda^Q fails at r = 1 already */
    const char *sets[] = {"bound_scale=0.6", NULL};
    lm_test_expect("dynamics/proof-theorem3-invariants", sets, "cond12-app-violated", 4,
                   LM_V_VIOLATED);
}

Test(dynamics_proof_theorem3_invariants, as_stated_not_error)
{
    lm_test_not_error("dynamics/proof-theorem3-invariants", "cond12-app-satisfied", 4);
    lm_test_not_error("dynamics/proof-theorem3-invariants", "cond12-app-violated", 2);
    lm_test_not_error("dynamics/proof-theorem3-invariants", "pointwise-minS", 4);
}

/* ---- remark4 ---- */

Test(dynamics_remark4, wrong_size_is_violated)
{
    /* claiming sigma_{Nn^2}(J) = 0 where Dd >= Nn^2 is false */
    const char *sets[] = {"probe_size=1", NULL};
    lm_test_expect("dynamics/remark4", sets, "necessity,gauss", 2, LM_V_VIOLATED);
}

Test(dynamics_remark4, negative_tolerance_is_violated)
{
    const char *sets[] = {"tol_scale=-1", NULL};
    lm_test_expect("dynamics/remark4", sets, "necessity,softmax", 2, LM_V_VIOLATED);
}

Test(dynamics_remark4, as_stated_holds)
{
    lm_claim_result r = lm_test_run("dynamics/remark4", NULL, "necessity,softmax", 4);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "got %s", lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
    lm_test_not_error("dynamics/remark4", "necessity,gauss", 4);
}

/* ---- example1 ---- */

Test(dynamics_example1, broken_witness_is_violated)
{
    /* W^V_12 + 0.01: X W^V W^O is no longer proportional to 1, the gradient is not zero */
    const char *sets[] = {"wv_perturb=0.01", NULL};
    lm_test_expect("dynamics/example1", sets, "a=1", 4, LM_V_VIOLATED);
}

Test(dynamics_example1, zero_tolerance_does_not_hold)
{
    /* in floating point the softmax rows sum to 1 +- O(2^-p): the gradient is tiny but
     * mostly not 0, in double and in MPFR alike (some instances are exactly 0 in MPFR,
     * so the verdict is violated or, on a small budget, artifact) */
    const char *sets[] = {"tau_scale=0", NULL};
    lm_claim_result r = lm_test_run("dynamics/example1", sets, "a=2", 4);
    cr_expect(r.verdict == LM_V_VIOLATED || r.verdict == LM_V_ARTIFACT, "got %s",
              lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
}

Test(dynamics_example1, as_stated_holds)
{
    lm_claim_result r = lm_test_run("dynamics/example1", NULL, "a=0.37", 4);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "got %s", lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
    lm_test_not_error("dynamics/example1", "a=1", 4);
}
