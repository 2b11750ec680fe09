/* Tests for the probabilistic and experimental claims of transformer-gd-dynamics:
 * dynamics/remark1, dynamics/experiment-fig2-fig3, dynamics/experiment-fig4. */
#include "test_support.h"

/* ---- dynamics/remark1 ---- */

Test(dynamics_remark1, wrong_rank_threshold_is_violated)
{
    /* tau_scale = 1e38 turns tau = 2^-128 into ~0.29: claiming that B_0 has
     * sigma_Nn > 0.29 sigma_1 with probability 0.99 is false for random
     * inits, and the Wilson bound must say so (confirmed in MPFR). */
    const char *sets[] = {"tau_scale=1e38", NULL};
    lm_test_expect("dynamics/remark1", sets, "random init s=0.3", 4, LM_V_VIOLATED);
}

Test(dynamics_remark1, wrong_necessity_tolerance_is_violated)
{
    /* a tolerance 1e-6 times the rounding size of B B^T cannot be met by the
     * computed lambda_min of a singular Gram matrix */
    const char *sets[] = {"tol_scale=1e-6", NULL};
    lm_test_expect("dynamics/remark1", sets, "necessity: HD below Nn", 4, LM_V_VIOLATED);
}

Test(dynamics_remark1, random_init_holds)
{
    lm_claim_result r = lm_test_run("dynamics/remark1", NULL, "random init s=0.3", 4);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "got %s (%s)", lm_verdict_name(r.verdict),
                 r.nconfig ? r.cfg[0].worst_where : "");
    lm_claim_result_clear(&r);
}

Test(dynamics_remark1, one_token_heads_coincide)
{
    /* n = 1: S_ih = [1] for every head, rank B_0 <= min(N, D) < Nn */
    lm_test_expect("dynamics/remark1", NULL, "n=1 multi-head: D in [N/H, N)", 4, LM_V_VIOLATED);
}

Test(dynamics_remark1, as_stated_not_error)
{
    lm_test_not_error("dynamics/remark1", "necessity: HD below Nn", 4);
    lm_test_not_error("dynamics/remark1", "random init s=1e-3", 4);
    lm_test_not_error("dynamics/remark1", "random init s=10", 4);
    lm_test_not_error("dynamics/remark1", "appendix (c) literal: H=1, D in [2N, Nn)", 4);
    lm_test_not_error("dynamics/remark1", "edges: W^Q=0, W^K=0, equal tokens", 4);
}

Test(dynamics_remark1, edges_are_assumption_failures)
{
    lm_claim_result r = lm_test_run("dynamics/remark1", NULL, "edges: W^Q=0, W^K=0, equal tokens", 4);
    cr_expect_eq(r.verdict, LM_V_ASSUMPTION_FAILED, "got %s", lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
}

/* ---- dynamics/experiment-fig2-fig3 ---- */

Test(dynamics_experiment_fig2_fig3, wrong_margin_is_inconsistent)
{
    /* requiring the Gaussian runs to end 1e6 times lower than the Softmax runs */
    const char *sets[] = {"margin=1e6", NULL};
    lm_test_expect("dynamics/experiment-fig2-fig3", sets, "M=W^Q+W^K+W^V", 4,
                   LM_V_INCONSISTENT);
}

Test(dynamics_experiment_fig2_fig3, tiny_margin_is_consistent)
{
    /* the check can pass: with margin 1e-6 both proxies hold */
    const char *sets[] = {"margin=1e-6", NULL};
    lm_test_expect("dynamics/experiment-fig2-fig3", sets, "M=W^Q", 4, LM_V_CONSISTENT);
}

Test(dynamics_experiment_fig2_fig3, as_stated_not_error)
{
    lm_test_not_error("dynamics/experiment-fig2-fig3", "M=W^Q", 4);
    lm_test_not_error("dynamics/experiment-fig2-fig3", "M=W^Q+W^K+W^V", 4);
}

/* ---- dynamics/experiment-fig4 ---- */

Test(dynamics_experiment_fig4, wrong_margin_is_inconsistent)
{
    const char *sets[] = {"margin=1e6", NULL};
    lm_test_expect("dynamics/experiment-fig4", sets, NULL, 4, LM_V_INCONSISTENT);
}

Test(dynamics_experiment_fig4, tiny_margin_is_consistent)
{
    const char *sets[] = {"margin=1e-6", NULL};
    lm_test_expect("dynamics/experiment-fig4", sets, NULL, 4, LM_V_CONSISTENT);
}

Test(dynamics_experiment_fig4, as_stated_not_error)
{
    lm_test_not_error("dynamics/experiment-fig4", NULL, 4);
}
