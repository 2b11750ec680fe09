/* tests/test_ib_joint3.c -- joint-training slice 3 of the implicit-bias paper */
#include "test_support.h"

Test(ib_joint3, lemma14_wrong_constant_is_violated)
{
    const char *sets[] = {"c14_scale=4", NULL};
    lm_test_expect("implicit/lemma14", sets, "DM d=1200 n=8", 4, LM_V_VIOLATED);
}

Test(ib_joint3, lemma14_as_stated_not_error)
{
    lm_test_not_error("implicit/lemma14", "DM d=1200 n=8", 4);
}
