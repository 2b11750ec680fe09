/* tests/test_ib_ratefit.c -- the rate rule of lm_stats.h (issue 16, item 6) in the fitted-rate
 * observations of the implicit-bias paper: a fit that drifts when the horizon doubles is
 * not-checkable at the run-length bound (never inconsistent, even against a wrong rate), a
 * drifting fit below the bound runs the same trajectory on to twice the horizon, and the rate
 * observation alone catches a wrong constant. */
#include "test_support.h"
#include <math.h>

/* one instance of a claim at the default budget (not quick) */
static lm_claim_result run_instance(const char *id, const char *config, int instance, const char *set)
{
    const lm_claim *c = lm_claim_find(id);
    cr_assert_not_null(c);
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.only_config = config;
    o.only_instance = instance;
    o.shrink = 0;
    if (set) {
        int idx;
        double v;
        char err[256];
        cr_assert_eq(lm_claim_parse_set(c, set, &idx, &v, err, sizeof err), 0, "%s", err);
        o.set_name[o.nset] = c->params[idx].name;
        o.set_val[o.nset++] = v;
    }
    lm_claim_result r;
    cr_assert_eq(lm_run_claim(&r, c, &o), 0);
    return r;
}

Test(ib_ratefit, theorem1_drifting_fit_at_the_bound_is_not_checkable)
{
    /* instance 2 of EX1-hetero: the slope of log e_t moves from -1.82 (T = 1000) to -1.94
     * (T = 2000), more than slope_tol = 0.1, and steps = 2000 is the range's bound */
    const char *sets[] = {NULL, "rate=3"};
    for (int k = 0; k < 2; k++) {
        lm_claim_result r = run_instance("implicit/theorem1", "EX1-hetero", 2, sets[k]);
        cr_assert_eq(r.nconfig, 1);
        cr_expect_eq(r.cfg[0].verdict, LM_V_NOT_CHECKABLE, "%s: got %s (%s)", sets[k] ? sets[k] : "as stated",
                     lm_verdict_name(r.cfg[0].verdict), r.cfg[0].detail);
        cr_expect(strstr(r.cfg[0].detail, "horizon too short"), "%s", r.cfg[0].detail);
        lm_claim_result_clear(&r);
    }
}

Test(ib_ratefit, theorem4_drifting_quick_fit_runs_on_to_twice_the_horizon)
{
    /* quick: T = 10^4; the slope of log(1 - cos(u_t, u_mm)) still moves by more than 0.1 per
     * doubling there, and is stable at 2 10^4 (within the bound 2 10^5 of steps) */
    lm_claim_result r = lm_test_run("implicit/theorem4", NULL, "R4 W_0=0", 2);
    cr_assert_eq(r.nconfig, 1);
    cr_expect_eq(r.cfg[0].verdict, LM_V_CONSISTENT, "got %s (%s)", lm_verdict_name(r.cfg[0].verdict),
                 r.cfg[0].detail);
    cr_expect_eq(lm_test_measure(r.cfg[0].measures, "steps run"), 10000.0);
    cr_expect_eq(lm_test_measure(r.cfg[0].measures, "(c) horizon T of the fit"), 20000.0);
    lm_claim_result_clear(&r);
}

Test(ib_ratefit, lemma1_wrong_c1_is_caught_by_the_rate_alone)
{
    /* init_scale = 1e6 makes the explicit form (b) vacuous: only the fitted rate (a) can break */
    const char *sets[] = {"c1_scale=30", "init_scale=1e6", "steps=300", NULL};
    lm_claim_result r = lm_test_run("implicit/lemma1", sets, "EX1-hetero", 2);
    cr_expect_eq(r.verdict, LM_V_INCONSISTENT, "got %s (%s)", lm_verdict_name(r.verdict), r.cfg[0].detail);
    cr_expect(strstr(r.cfg[0].worst_where, "(a)"), "%s", r.cfg[0].worst_where);
    lm_claim_result_clear(&r);
}
