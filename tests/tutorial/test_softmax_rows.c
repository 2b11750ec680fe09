/* tests/tutorial/test_softmax_rows.c -- the wrong-constant test of tutorial/softmax-rows: it holds as stated
 * and comes out violated with a deliberately wrong constant (shift=1e-12). */
#include "test_support.h"

Test(tutorial, softmax_rows_holds_and_a_wrong_constant_is_violated)
{
    lm_test_expect("tutorial/softmax-rows", NULL, NULL, 8, LM_V_HOLDS);
    static const char *const wrong[] = {"shift=1e-12", NULL};
    lm_test_expect("tutorial/softmax-rows", wrong, NULL, 8, LM_V_VIOLATED);
}

/* the trace identity's constant: 1 + 1e-9 is far outside rounding in double */
Test(tutorial, softmax_rows_trace_with_a_wrong_coefficient_is_violated)
{
    static const char *const wrong[] = {"coef=1.000000001", NULL};
    lm_test_expect("tutorial/softmax-rows", wrong, NULL, 8, LM_V_VIOLATED);
}
