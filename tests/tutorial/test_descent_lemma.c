/* tests/tutorial/test_descent_lemma.c -- the wrong-constant test of tutorial/descent-lemma: it holds as stated
 * and comes out violated with a deliberately wrong constant (c=1.1). */
#include "test_support.h"

Test(tutorial, descent_lemma_holds_and_a_wrong_constant_is_violated)
{
    lm_test_expect("tutorial/descent-lemma", NULL, NULL, 8, LM_V_HOLDS);
    static const char *const wrong[] = {"c=1.1", NULL};
    lm_test_expect("tutorial/descent-lemma", wrong, NULL, 8, LM_V_VIOLATED);
}
