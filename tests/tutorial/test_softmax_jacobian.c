/* tests/tutorial/test_softmax_jacobian.c -- the wrong-constant test of tutorial/softmax-jacobian: it holds as stated
 * and comes out violated with a deliberately wrong constant (c=0.49). */
#include "test_support.h"

Test(tutorial, softmax_jacobian_holds_and_a_wrong_constant_is_violated)
{
    lm_test_expect("tutorial/softmax-jacobian", NULL, NULL, 8, LM_V_HOLDS);
    static const char *const wrong[] = {"c=0.49", NULL};
    lm_test_expect("tutorial/softmax-jacobian", wrong, NULL, 8, LM_V_VIOLATED);
}
