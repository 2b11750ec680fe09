/* Tests for the claims implicit/lemma2, lemma5, lemma6, lemma7 and lemma9 (NGD-related
 * lemmas of the implicit-bias paper): each must come out violated with a
 * deliberately wrong constant and must not come out error as stated. */
#include "test_support.h"

Test(implicit_lemma6, wrong_constant_is_violated)
{
    const char *s1[] = {"c_scale=1.5", NULL};
    lm_test_expect("implicit/lemma6", s1, "random", 4, LM_V_VIOLATED);
    const char *s2[] = {"D_scale=0.05", NULL};
    lm_test_expect("implicit/lemma6", s2, "saturate", 4, LM_V_VIOLATED);
}

Test(implicit_lemma6, as_stated_not_error)
{
    lm_test_not_error("implicit/lemma6", "random", 4);
    lm_test_not_error("implicit/lemma6", "anti-saturate", 4);
}

Test(implicit_lemma7, wrong_constant_is_violated)
{
    const char *s1[] = {"c_scale=10", NULL};
    lm_test_expect("implicit/lemma7", s1, "R1 eta=0.5", 4, LM_V_VIOLATED);
    const char *s2[] = {"up_scale=0.9", NULL};
    lm_test_expect("implicit/lemma7", s2, "R5 antipodal", 4, LM_V_VIOLATED);
}

Test(implicit_lemma7, as_stated_not_error)
{
    lm_test_not_error("implicit/lemma7", "R1 eta=0.5", 4);
    lm_test_not_error("implicit/lemma7", "R1 eta=5", 4);
}

/* budget 12 x inst_scale 0.25 = 3 instances: some draws miss the A1 gate */
Test(implicit_lemma5, wrong_constant_is_violated)
{
    const char *s1[] = {"lb_scale=1.5", NULL};
    lm_test_expect("implicit/lemma5", s1, "eta=0.5", 12, LM_V_VIOLATED);
}

Test(implicit_lemma5, as_stated_not_error)
{
    lm_test_not_error("implicit/lemma5", "eta=1/D", 12);
}

/* budget 12: some draws miss the A1 gate */
Test(implicit_lemma2, wrong_constant_is_violated)
{
    const char *s1[] = {"flip=1", NULL};
    lm_test_expect("implicit/lemma2", s1, "perturb", 12, LM_V_VIOLATED);
}

Test(implicit_lemma2, as_stated_not_error)
{
    lm_test_not_error("implicit/lemma2", "perturb", 12);
}

/* budget 12 x inst_scale 0.25 = 3 runs: some draws miss the A1 gate */
Test(implicit_lemma9, wrong_constant_is_violated)
{
    const char *s1[] = {"flip=1", NULL};
    lm_test_expect("implicit/lemma9", s1, "R1 eta=0.5", 12, LM_V_VIOLATED);
}

Test(implicit_lemma9, as_stated_not_error)
{
    lm_test_not_error("implicit/lemma9", "R1 eta=0.5", 12);
}
