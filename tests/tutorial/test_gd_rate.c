/* tests/tutorial/test_gd_rate.c -- the wrong-constant test of tutorial/gd-rate: it is consistent as stated
 * and comes out inconsistent (a proxy claim) with a deliberately wrong constant (p=2). */
#include "test_support.h"

Test(tutorial, gd_rate_consistent_and_a_wrong_exponent_is_inconsistent)
{
    lm_test_expect("tutorial/gd-rate", NULL, NULL, 8, LM_V_CONSISTENT);
    static const char *const wrong[] = {"p=2", NULL};
    lm_test_expect("tutorial/gd-rate", wrong, NULL, 8, LM_V_INCONSISTENT);
}
