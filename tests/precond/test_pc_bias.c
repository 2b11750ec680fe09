/* tests/test_pc_bias.c -- the gradient-bias and softmax-moment claims of the
 * preconditioning paper (precond/theorem3-5, lemma9-14): each claim as stated
 * is not error and passes, and a deliberately wrong constant or exponent comes
 * out violated / inconsistent. */
#include "test_support.h"

static const char *const one[] = {NULL};

/* ---- precond/theorem5 ---- */
Test(pc_bias, theorem5_as_stated)
{
    lm_test_not_error("precond/theorem5", NULL, 2);
    lm_test_expect("precond/theorem5", one, NULL, 2, LM_V_CONSISTENT);
}
Test(pc_bias, theorem5_wrong_exponent)
{
    static const char *const s[] = {"claimed=-3", NULL};
    lm_test_expect("precond/theorem5", s, NULL, 2, LM_V_INCONSISTENT);
}

/* ---- precond/theorem4 ---- */
Test(pc_bias, theorem4_as_stated)
{
    lm_test_not_error("precond/theorem4", NULL, 2);
    lm_test_expect("precond/theorem4", one, NULL, 2, LM_V_CONSISTENT);
}
Test(pc_bias, theorem4_wrong_exponent)
{
    static const char *const s[] = {"claimed=-3", NULL};
    lm_test_expect("precond/theorem4", s, NULL, 2, LM_V_INCONSISTENT);
}

/* ---- precond/theorem3 ---- */
Test(pc_bias, theorem3_as_stated)
{
    lm_test_not_error("precond/theorem3", NULL, 2);
    lm_test_expect("precond/theorem3", one, NULL, 2, LM_V_CONSISTENT);
}
Test(pc_bias, theorem3_wrong_exponent)
{
    static const char *const s[] = {"claimed=-3", NULL};
    lm_test_expect("precond/theorem3", s, NULL, 2, LM_V_INCONSISTENT);
}

/* ---- precond/lemma9 ---- */
Test(pc_bias, lemma9_as_stated)
{
    lm_test_not_error("precond/lemma9", NULL, 2);
    lm_test_expect("precond/lemma9", one, NULL, 2, LM_V_HOLDS);
}
Test(pc_bias, lemma9_wrong_coef)
{
    static const char *const s[] = {"coef=0.01", NULL};
    lm_test_expect("precond/lemma9", s, NULL, 2, LM_V_VIOLATED);
}

/* ---- precond/lemma10 ---- */
Test(pc_bias, lemma10_as_stated)
{
    lm_test_not_error("precond/lemma10", NULL, 2);
    lm_test_expect("precond/lemma10", one, NULL, 2, LM_V_HOLDS);
}
Test(pc_bias, lemma10_wrong_coef)
{
    static const char *const s[] = {"coef=0.01", NULL};
    lm_test_expect("precond/lemma10", s, NULL, 2, LM_V_VIOLATED);
}

/* ---- precond/lemma11 ---- */
Test(pc_bias, lemma11_as_stated)
{
    lm_test_not_error("precond/lemma11", NULL, 2);
    lm_test_expect("precond/lemma11", one, NULL, 2, LM_V_HOLDS);
}
Test(pc_bias, lemma11_wrong_coef)
{
    static const char *const s[] = {"coef=0.01", NULL};
    lm_test_expect("precond/lemma11", s, NULL, 2, LM_V_VIOLATED);
}
Test(pc_bias, lemma11_flipped_stein)
{
    static const char *const s[] = {"stein_sign=-1", NULL};
    lm_test_expect("precond/lemma11", s, NULL, 2, LM_V_VIOLATED);
}

/* ---- precond/lemma12 ---- */
Test(pc_bias, lemma12_as_stated)
{
    lm_test_not_error("precond/lemma12", NULL, 2);
    lm_test_expect("precond/lemma12", one, NULL, 2, LM_V_CONSISTENT);
}
Test(pc_bias, lemma12_wrong_exponent)
{
    static const char *const s[] = {"claimed=-3", NULL};
    lm_test_expect("precond/lemma12", s, NULL, 2, LM_V_INCONSISTENT);
}

/* ---- precond/lemma13 ---- */
Test(pc_bias, lemma13_as_stated)
{
    lm_test_not_error("precond/lemma13", NULL, 2);
    lm_test_expect("precond/lemma13", one, NULL, 2, LM_V_CONSISTENT);
}
Test(pc_bias, lemma13_wrong_exponent)
{
    static const char *const s[] = {"claimed=-2", NULL};
    lm_test_expect("precond/lemma13", s, NULL, 2, LM_V_INCONSISTENT);
}

/* ---- precond/lemma14 ---- */
Test(pc_bias, lemma14_as_stated)
{
    lm_test_not_error("precond/lemma14", NULL, 2);
    lm_test_expect("precond/lemma14", one, NULL, 2, LM_V_CONSISTENT);
}
Test(pc_bias, lemma14_wrong_exponent)
{
    static const char *const s[] = {"claimed=-2", NULL};
    lm_test_expect("precond/lemma14", s, NULL, 2, LM_V_INCONSISTENT);
}
