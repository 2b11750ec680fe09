/* Near-miss escalation (issue 7, part 4): a margin within double's rounding is
 * replayed in MPFR-256, and one still within MPFR's rounding there is re-decided at
 * 512 and 1024 bits (Ziv), on planted claims:
 *   hidden-break   a = 1 + 2^-300 > b = 1: double and MPFR-256 both see a = b; only
 *                  512 bits see the break -> violated, "1 broke there";
 *   hidden-hold    a = 1 - 2^-300 < b = 1: decided (held) at 512 bits;
 *   equality       a = b = 1/3 computed alike: within rounding at every precision ->
 *                  holds, reported as an equality case.
 * Claim files checked here: none (planted claims). */
#include "lm_verify.h"
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

static int eval_near(lm_eval *ev)
{
    lm_num a, b, e;
    lm_num_inits(ev->ctx, &a, &b, &e, (lm_num *)NULL);
    lm_num_set_d(&b, 1.0);
    lm_num_set_d(&e, ldexp(1.0, -300));
    if (ev->config == 0) lm_num_add(&a, &b, &e);
    else if (ev->config == 1) lm_num_sub(&a, &b, &e);
    else {
        lm_num_set_d(&a, 1.0);
        lm_num_div_d(&a, &a, 3.0);
        lm_num_set_d(&b, 1.0);
        lm_num_div_d(&b, &b, 3.0);
    }
    lm_obs_le(ev, -1, &a, &b, 0.0, "planted near miss");
    lm_num_clears(&a, &b, &e, (lm_num *)NULL);
    return 0;
}

static const char *const cfgs[] = {"hidden-break", "hidden-hold", "equality", NULL};

Test(escalation, near_misses_are_decided_at_higher_precision)
{
    static const lm_claim c = {.id = "test/near", .title = "planted near misses", .file = __FILE__,
                               .kind = LM_KIND_POINTWISE, .source = "test", .origin = "verbatim",
                               .confidence = "high", .configs = cfgs, .inst_scale = 1.0,
                               .eval = eval_near};
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.budget = 1;
    o.shrink = 0;
    lm_claim_result r;
    cr_assert_eq(lm_run_claim(&r, &c, &o), 0);
    cr_assert_eq(r.cfg[0].verdict, LM_V_VIOLATED, "%s", r.cfg[0].escalation);
    cr_assert(strstr(r.cfg[0].escalation, "1 broke there"), "%s", r.cfg[0].escalation);
    cr_assert(strstr(r.cfg[0].precisions, "mpfr512"), "%s", r.cfg[0].precisions);
    cr_assert_eq(r.cfg[1].verdict, LM_V_HOLDS);
    cr_assert(strstr(r.cfg[1].escalation, "re-decided at up to 512 bits"), "%s", r.cfg[1].escalation);
    cr_assert_null(strstr(r.cfg[1].escalation, "equality"), "%s", r.cfg[1].escalation);
    cr_assert_eq(r.cfg[2].verdict, LM_V_HOLDS);
    cr_assert(strstr(r.cfg[2].escalation, "1 stayed within rounding of equality up to 1024 bits"), "%s",
              r.cfg[2].escalation);
    lm_claim_result_clear(&r);
}
