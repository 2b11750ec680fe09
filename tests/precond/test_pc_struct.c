/* tests/test_pc_struct.c -- the structural claims of the preconditioning paper:
 * every claim as stated is not error, and a deliberately wrong constant or
 * flipped formula comes out violated. */
/* claim files checked here: lemmas/precond/lemma1-1.c, lemmas/precond/lemma1-2.c,
 * lemmas/precond/theorem1-1.c, lemmas/precond/theorem1-2.c */
#include "test_support.h"

static const char *const one[] = {NULL};

/* ---- precond/fact8 ---- */
Test(pc_struct, fact8_as_stated)
{
    lm_test_not_error("precond/fact8", NULL, 4);
    lm_test_expect("precond/fact8", one, NULL, 4, LM_V_HOLDS);
}
Test(pc_struct, fact8_wrong_coef)
{
    static const char *const s[] = {"coef=0.99", NULL};
    lm_test_expect("precond/fact8", s, NULL, 4, LM_V_VIOLATED);
}

/* ---- precond/fact9 ---- */
Test(pc_struct, fact9_as_stated)
{
    lm_test_expect("precond/fact9", one, NULL, 3, LM_V_HOLDS);
}
Test(pc_struct, fact9_wrong_variance)
{
    static const char *const s[] = {"var_scale=0.99", NULL};
    lm_test_expect("precond/fact9", s, NULL, 3, LM_V_VIOLATED);
}

/* ---- precond/fact10 ---- */
Test(pc_struct, fact10_as_stated)
{
    lm_test_expect("precond/fact10", one, NULL, 4, LM_V_HOLDS);
}
Test(pc_struct, fact10_wrong_coef)
{
    static const char *const s[] = {"coef=0.99", NULL};
    lm_test_expect("precond/fact10", s, NULL, 4, LM_V_VIOLATED);
}

/* ---- precond/assumption1 ---- */
Test(pc_struct, assumption1_as_stated)
{
    lm_test_expect("precond/assumption1", one, NULL, 4, LM_V_HOLDS);
}
Test(pc_struct, assumption1_planted_singular)
{
    static const char *const s[] = {"plant=singular", NULL};
    lm_test_expect("precond/assumption1", s, "c=1", 4, LM_V_VIOLATED);
}

/* ---- precond/assumption2 ---- */
Test(pc_struct, assumption2_as_stated)
{
    lm_test_expect("precond/assumption2", one, NULL, 4, LM_V_HOLDS);
}
Test(pc_struct, assumption2_planted_k_lt_d)
{
    static const char *const s[] = {"plant=k<d", NULL};
    lm_test_expect("precond/assumption2", s, "c=0.5", 4, LM_V_VIOLATED);
}
Test(pc_struct, assumption2_planted_rank_deficient)
{
    static const char *const s[] = {"plant=rank-deficient", NULL};
    lm_test_expect("precond/assumption2", s, "kappa=1e2", 4, LM_V_VIOLATED);
}

/* ---- precond/assumption3 ---- */
Test(pc_struct, assumption3_as_stated)
{
    lm_test_expect("precond/assumption3", one, NULL, 4, LM_V_HOLDS);
}
Test(pc_struct, assumption3_wrong_tau_int)
{
    static const char *const s[] = {"tau_int=0.09", NULL};
    lm_test_expect("precond/assumption3", s, "A3-copy", 4, LM_V_VIOLATED);
}

/* ---- precond/lemma1.2 ---- */
Test(pc_struct, lemma1_2_as_stated)
{
    lm_test_expect("precond/lemma1.2", one, NULL, 4, LM_V_HOLDS);
}
Test(pc_struct, lemma1_2_wrong_upper)
{
    static const char *const s[] = {"hi_coef=0.99", NULL};
    lm_test_expect("precond/lemma1.2", s, "aligned", 3, LM_V_VIOLATED);
}
Test(pc_struct, lemma1_2_wrong_lower)
{
    static const char *const s[] = {"lo_coef=1.01", NULL};
    lm_test_expect("precond/lemma1.2", s, "aligned", 3, LM_V_VIOLATED);
}

/* ---- precond/lemma1.1 ---- */
Test(pc_struct, lemma1_1_as_stated)
{
    lm_test_expect("precond/lemma1.1", one, NULL, 3, LM_V_HOLDS);
}
Test(pc_struct, lemma1_1_wrong_polar_factor)
{
    static const char *const s[] = {"formula=wrong", NULL};
    lm_test_expect("precond/lemma1.1", s, "random", 3, LM_V_VIOLATED);
}

/* ---- precond/theorem1.2 ---- */
Test(pc_struct, theorem1_2_as_stated)
{
    /* Theorem 1.2 itself (parts (i)-(iv)) holds; the introduction's "connected" does not
     * (issue 16: its own paper configuration, so the claim as a whole is violated) */
    lm_test_expect("precond/theorem1.2", one, "on-manifold", 3, LM_V_HOLDS);
    lm_test_expect("precond/theorem1.2", one, "converse", 3, LM_V_HOLDS);
}
Test(pc_struct, theorem1_2_connected_as_printed)
{
    lm_test_expect("precond/theorem1.2", one, "connected (introduction)", 3, LM_V_VIOLATED);
    lm_test_expect("precond/theorem1.2", one, NULL, 3, LM_V_VIOLATED);
}
Test(pc_struct, theorem1_2_wrong_manifold)
{
    static const char *const s[] = {"manifold=wrong", NULL};
    lm_test_expect("precond/theorem1.2", s, "on-manifold", 3, LM_V_VIOLATED);
}

/* ---- precond/remark2 ---- */
#define R2_REPAIRED "full-rank blocks (random theta)"
Test(pc_struct, remark2_as_stated)
{
    /* with the rank condition the paper leaves implicit (the repaired reading) it holds;
     * as printed (every fixed block, W_KQ = 0 included) it is violated (issue 16) */
    lm_test_expect("precond/remark2", one, R2_REPAIRED, 3, LM_V_HOLDS);
}
Test(pc_struct, remark2_as_printed)
{
    lm_test_expect("precond/remark2", one, "as printed: every fixed block", 3, LM_V_VIOLATED);
    lm_claim_result r = lm_test_run("precond/remark2", one, NULL, 3);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "got %s", lm_verdict_name(r.verdict));
    cr_expect_eq(r.repaired_verdict, LM_V_HOLDS, "got %s", lm_verdict_name(r.repaired_verdict));
    lm_claim_result_clear(&r);
}
Test(pc_struct, remark2_wrong_hessian)
{
    static const char *const s[] = {"formula=wrong", NULL};
    lm_test_expect("precond/remark2", s, R2_REPAIRED, 3, LM_V_VIOLATED);
}

/* ---- precond/theorem1.1 ---- */
Test(pc_struct, theorem1_1_as_stated)
{
    lm_test_expect("precond/theorem1.1", one, NULL, 2, LM_V_HOLDS);
}
Test(pc_struct, theorem1_1_drop_sigma_quadrature)
{
    static const char *const s[] = {"formula=drop-Sigma", NULL};
    lm_test_expect("precond/theorem1.1", s, "per-x-quadrature", 2, LM_V_VIOLATED);
}
Test(pc_struct, theorem1_1_drop_sigma_mc)
{
    static const char *const s[] = {"formula=drop-Sigma", NULL};
    lm_test_expect("precond/theorem1.1", s, "full-MC-nonisotropic", 2, LM_V_VIOLATED);
}
Test(pc_struct, theorem1_1_drop_sigma_invisible_when_isotropic)
{
    static const char *const s[] = {"formula=drop-Sigma", NULL};
    lm_test_expect("precond/theorem1.1", s, "full-MC-isotropic", 2, LM_V_HOLDS);
}

/* ---- precond/remark1 ---- */
Test(pc_struct, remark1_as_stated)
{
    lm_test_expect("precond/remark1", one, NULL, 2, LM_V_CONSISTENT);
}
Test(pc_struct, remark1_wrong_rate)
{
    static const char *const s[] = {"rate=2", NULL};
    lm_test_expect("precond/remark1", s, NULL, 2, LM_V_INCONSISTENT);
}
Test(pc_struct, remark2_wrong_constants)
{
    static const char *const s1[] = {"hess_coef=2.02", NULL};
    lm_test_expect("precond/remark2", s1, R2_REPAIRED, 2, LM_V_VIOLATED);
    static const char *const s2[] = {"curv=3.96", NULL};
    lm_test_expect("precond/remark2", s2, R2_REPAIRED, 2, LM_V_VIOLATED);
}
