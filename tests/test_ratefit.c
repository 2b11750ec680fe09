/* Rate proxies without false alarms (issue 16, item 6): the rule of lm_stats.h on
 * synthetic sequences with a known rate.
 *   e_t = 1/t + exp(-t/200): rate -1 after a long transient (the exponential dominates
 *   until t ~ 1500).  A short horizon must not be `inconsistent` (it is "too short"),
 *   doubling the horizon within a budget reaches a stable fit that is consistent with the
 *   true rate -1 and inconsistent with a wrong rate -2; and through the claim API an
 *   unstable fit is not-checkable, a stable wrong one inconsistent. */
#include "lm_stats.h"
#include "test_support.h"
#include <math.h>

static int seq(double *t, double *y, int T)
{
    int n = 0;
    for (int k = 1; k <= T; k = k < 64 ? k + 1 : (int)(k * 1.02) + 1) {
        t[n] = k;
        y[n++] = log(1.0 / k + exp(-k / 200.0));
    }
    return n;
}

/* the driver a claim uses: double the horizon within the budget until the fit is stable */
static lm_rate_decision judge_within(int T0, int Tmax, double claimed, int *Tused, lm_rate_fit *r)
{
    static double t[4096], y[4096];
    int T = T0;
    for (;;) {
        int n = seq(t, y, T);
        lm_rate_fit_seq(r, t, y, n, claimed, -1, 0.05, 0.95, 0.02);
        if (r->decision != LM_RATE_TOO_SHORT || 2 * T > Tmax) break;
        T *= 2;
    }
    *Tused = T;
    return r->decision;
}

Test(ratefit, a_long_transient_is_too_short_not_inconsistent)
{
    lm_rate_fit r;
    int T;
    /* T = 400: e_t is still exp(-t/200) there; its slope against log t is -t/200, not stable */
    cr_assert_eq(judge_within(400, 400, -1.0, &T, &r), LM_RATE_TOO_SHORT, "%s", r.why);
    cr_assert(strstr(r.why, "horizon too short"), "%s", r.why);
    /* a wrong claim is not called inconsistent on that horizon either */
    cr_assert_eq(judge_within(400, 400, -2.0, &T, &r), LM_RATE_TOO_SHORT, "%s", r.why);
}

Test(ratefit, a_longer_horizon_within_budget_decides)
{
    lm_rate_fit r;
    int T;
    cr_assert_eq(judge_within(400, 1 << 20, -1.0, &T, &r), LM_RATE_CONSISTENT, "%s", r.why);
    cr_assert(T > 400 && T <= (1 << 20), "T = %d", T);
    cr_assert_float_eq(r.slope, -1.0, 0.02, "%s", r.why);
    /* the true rate is consistent; a wrong one (decay like t^-2) is not */
    cr_assert_eq(judge_within(400, 1 << 20, -2.0, &T, &r), LM_RATE_INCONSISTENT, "%s", r.why);
    cr_assert_gt(r.excess, r.tol);
    /* "at least t^-0.5" is a true, weaker claim: consistent */
    cr_assert_eq(judge_within(400, 1 << 20, -0.5, &T, &r), LM_RATE_CONSISTENT, "%s", r.why);
}

Test(ratefit, too_few_points_is_too_short)
{
    double t[3] = {1, 2, 3}, y[3] = {0, -1, -2};
    lm_rate_fit r;
    lm_rate_fit_seq(&r, t, y, 3, -1.0, 0, 0.05, 0.95, 0.02);
    cr_assert_eq(r.decision, LM_RATE_TOO_SHORT);
}

/* through the claim API: config 0 stops at T = 400 (unstable), 1 at T = 409600 with the
 * claimed rate from the parameter */
static int eval_rate(lm_eval *ev)
{
    static double t[4096], y[4096];
    int n = seq(t, y, ev->config == 0 ? 400 : 409600);
    lm_rate_fit r;
    lm_rate_fit_seq(&r, t, y, n, lm_par(ev, "rate"), -1, 0.05, 0.95, 0.02);
    lm_rate_judge(ev, &r, "e_t");
    return 0;
}
static const char *const rcfgs[] = {"short", "long", NULL};
static const lm_param_def rpars[] = {{"rate", -1.0, "exponent of t (claimed)", NULL, "exponent [-10, 10]"},
                                     {NULL, 0, NULL, NULL, NULL}};

static lm_claim_result run_rate(double rate)
{
    lm_claim c = {.id = "test/rate", .title = "planted rate", .file = __FILE__, .kind = LM_KIND_RATE,
                  .source = "test", .origin = "verbatim", .confidence = "high", .configs = rcfgs,
                  .params = rpars, .proxy = 1, .no_replay = 1, .inst_scale = 0.125, .eval = eval_rate};
    static lm_claim keep;
    keep = c;
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.budget = 1;
    o.shrink = 0;
    o.set_name[0] = "rate";
    o.set_val[0] = rate;
    o.nset = 1;
    lm_claim_result r;
    cr_assert_eq(lm_run_claim(&r, &keep, &o), 0);
    return r;
}

Test(ratefit, claim_api_unstable_is_not_checkable_stable_wrong_is_inconsistent)
{
    lm_claim_result r = run_rate(-1.0);
    cr_assert_eq(r.cfg[0].verdict, LM_V_NOT_CHECKABLE, "%s", r.cfg[0].detail);
    cr_assert(strstr(r.cfg[0].detail, "horizon too short"), "%s", r.cfg[0].detail);
    cr_assert_eq(r.cfg[1].verdict, LM_V_CONSISTENT, "%s", r.cfg[1].detail);
    lm_claim_result_clear(&r);
    r = run_rate(-2.0);
    cr_assert_eq(r.cfg[0].verdict, LM_V_NOT_CHECKABLE, "a short horizon never says inconsistent");
    cr_assert_eq(r.cfg[1].verdict, LM_V_INCONSISTENT);
    lm_claim_result_clear(&r);
}

/* a geometric rate after a transient that looks like growth: f_t = (t + 10)^5 exp(-0.1 t), so
 * log f_t = 5 log(t + 10) - 0.1 t has slope -0.1 + 5/(t + 10) against t: positive up to t = 40,
 * near -0.1 only late.  The linear-time rule calls a horizon of 40 too short (for the true
 * log rho = -0.1 and a wrong -0.2 alike), and a horizon of 40000 consistent with -0.1 and
 * inconsistent with -0.2 */
static int geo(double *t, double *y, int T)
{
    int n = 0;
    for (int k = 0; k <= T; k += T > 400 ? T / 400 : 1) {
        t[n] = k;
        y[n++] = 5.0 * log(k + 10.0) - 0.1 * k;
    }
    return n;
}

Test(ratefit, a_geometric_rate_after_a_transient)
{
    static double t[1024], y[1024];
    lm_rate_fit r;
    int n = geo(t, y, 40);
    lm_rate_fit_seq_lin(&r, t, y, n, -0.1, -1, 0.001, 0.95, 0.001);
    cr_assert_eq(r.decision, LM_RATE_TOO_SHORT, "%s", r.why);
    lm_rate_fit_seq_lin(&r, t, y, n, -0.2, -1, 0.001, 0.95, 0.001);
    cr_assert_eq(r.decision, LM_RATE_TOO_SHORT, "a wrong rate on a short horizon: %s", r.why);
    n = geo(t, y, 40000);
    lm_rate_fit_seq_lin(&r, t, y, n, -0.1, -1, 0.001, 0.95, 0.001);
    cr_assert_eq(r.decision, LM_RATE_CONSISTENT, "%s", r.why);
    cr_assert_float_eq(r.slope, -0.1, 1e-3, "%s", r.why);
    lm_rate_fit_seq_lin(&r, t, y, n, -0.2, -1, 0.001, 0.95, 0.001);
    cr_assert_eq(r.decision, LM_RATE_INCONSISTENT, "%s", r.why);
}

/* a rate fit that is too short does not hide the instance's other observations: a real
 * break among them stands (inconsistent), and a pass among them is not read as a pass of the
 * claim (not-checkable) */
static int eval_rate_and_final(lm_eval *ev)
{
    static double t[4096], y[4096];
    int n = seq(t, y, 400);
    lm_rate_fit r;
    lm_rate_fit_seq(&r, t, y, n, -1.0, -1, 0.05, 0.95, 0.02);
    lm_rate_judge(ev, &r, "e_t");
    lm_obs_le_d(ev, -1, exp(y[n - 1]), lm_par(ev, "e_final"), 0.0, "final e_T <= e_final");
    return 0;
}

Test(ratefit, a_short_fit_keeps_the_other_observations)
{
    static const char *const one[] = {"short", NULL};
    static const lm_param_def fp[] = {{"e_final", 1.0, "required final error", NULL, "constant [0, 10]"},
                                      {NULL, 0, NULL, NULL, NULL}};
    lm_claim c = {.id = "test/rate-final", .title = "planted", .file = __FILE__, .kind = LM_KIND_RATE,
                  .source = "test", .origin = "verbatim", .confidence = "high", .configs = one,
                  .params = fp, .proxy = 1, .no_replay = 1, .inst_scale = 1.0, .eval = eval_rate_and_final};
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.budget = 1;
    o.shrink = 0;
    lm_claim_result r;
    cr_assert_eq(lm_run_claim(&r, &c, &o), 0);
    cr_assert_eq(r.verdict, LM_V_NOT_CHECKABLE, "e_T = %g <= 1 holds, the rate is undecided: %s",
                 1.0 / 400 + exp(-2.0), r.cfg[0].detail);
    lm_claim_result_clear(&r);
    o.set_name[0] = "e_final";
    o.set_val[0] = 1e-3;
    o.nset = 1;
    cr_assert_eq(lm_run_claim(&r, &c, &o), 0);
    cr_assert_eq(r.verdict, LM_V_INCONSISTENT, "the final value broke: %s", r.cfg[0].detail);
    lm_claim_result_clear(&r);
}

/* a fitted rate is judged in double: a claim that otherwise replays its breaks in MPFR does not
 * replay an instance whose only break is the rate (rounding moves a fitted slope far less than
 * its standard error; the whole-run MPFR replay of a long trajectory is what costs) */
Test(ratefit, a_rate_break_is_not_replayed_in_mpfr)
{
    lm_claim c = {.id = "test/rate-replay", .title = "planted", .file = __FILE__, .kind = LM_KIND_RATE,
                  .source = "test", .origin = "verbatim", .confidence = "high", .configs = rcfgs,
                  .params = rpars, .proxy = 1, .inst_scale = 1.0, .eval = eval_rate};
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.budget = 1;
    o.shrink = 0;
    o.only_config = "long";
    o.set_name[0] = "rate";
    o.set_val[0] = -2.0;
    o.nset = 1;
    lm_claim_result r;
    cr_assert_eq(lm_run_claim(&r, &c, &o), 0);
    cr_assert_eq(r.nconfig, 1);
    cr_assert_eq(r.verdict, LM_V_INCONSISTENT, "%s", r.cfg[0].detail);
    cr_assert(!strstr(r.cfg[0].precisions, "mpfr"), "replayed: %s", r.cfg[0].precisions);
    lm_claim_result_clear(&r);
}

/* two rate fits on one instance, one too short and one stable and wrong: the wrong one is a
 * break that stands (a rate break counts like any other) */
static int eval_two_rates(lm_eval *ev)
{
    static double t[4096], y[4096];
    lm_rate_fit r;
    int n = seq(t, y, 400);
    lm_rate_fit_seq(&r, t, y, n, -1.0, -1, 0.05, 0.95, 0.02);
    lm_rate_judge(ev, &r, "short");
    n = seq(t, y, 409600);
    lm_rate_fit_seq(&r, t, y, n, -2.0, -1, 0.05, 0.95, 0.02);
    lm_rate_judge(ev, &r, "long, wrong");
    return 0;
}

Test(ratefit, a_short_fit_beside_a_broken_fit_is_a_break)
{
    static const char *const one[] = {"two", NULL};
    lm_claim c = {.id = "test/two-rates", .title = "planted", .file = __FILE__, .kind = LM_KIND_RATE,
                  .source = "test", .origin = "verbatim", .confidence = "high", .configs = one, .proxy = 1,
                  .inst_scale = 1.0, .eval = eval_two_rates};
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.budget = 1;
    o.shrink = 0;
    lm_claim_result r;
    cr_assert_eq(lm_run_claim(&r, &c, &o), 0);
    cr_assert_eq(r.verdict, LM_V_INCONSISTENT, "%s", r.cfg[0].detail);
    cr_assert_gt(r.worst_ratio, 1.0, "the broken fit's ratio is the instance's worst: %g", r.worst_ratio);
    lm_claim_result_clear(&r);
}
