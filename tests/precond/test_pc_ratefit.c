/* tests/test_pc_ratefit.c -- the rate proxy of the preconditioning paper's bias claims
 * (lm_pcb_rate: precond/theorem3-5, lemma11-14) follows the rate rule of lm_stats.h, on planted
 * sequences v_N = 1/N + 40/N^2 (slope -1 only for N >> 40):
 *   - on N = 8..128 the slope drifts (about -1.63 on [8, 64], -1.48 on [16, 128]): not-checkable,
 *     for the true exponent -1 and a wrong -2 alike (a short horizon never says inconsistent);
 *   - on N = 8..16384 it is stable: consistent with -1, inconsistent with -2;
 *   - an interval wider than maxw is assumption-failed (the Monte Carlo admissibility gate). */
#include "test_support.h"
#include "lm_pcb.h"
#include <math.h>

static int eval_planted(lm_eval *ev)
{
    double N[16], v[16];
    int n = 0;
    for (int k = 8; k <= (ev->config == 0 ? 128 : 16384); k *= 2, n++) {
        N[n] = k;
        v[n] = 1.0 / k + 40.0 / ((double)k * k);
    }
    int r = lm_pcb_rate(ev, "planted", N, v, n, lm_par(ev, "claimed"), 0.1, lm_par(ev, "maxw"));
    return r < 0 ? -1 : 0;
}

static const char *const cfgs[] = {"N to 128", "N to 16384", NULL};
static const lm_param_def pars[] = {{"claimed", -1.0, "claimed exponent", NULL, "exponent [-10, 10]"},
                                    {"maxw", 0.5, "largest admissible CI width", NULL, "setting [0, 100]"},
                                    {NULL, 0, NULL, NULL, NULL}};

static lm_claim_result run_planted(double claimed, double maxw)
{
    static lm_claim keep;
    keep = (lm_claim){.id = "test/pc_rate", .title = "planted 1/N + 40/N^2", .file = __FILE__,
                      .kind = LM_KIND_RATE, .source = "test", .origin = "verbatim", .confidence = "high",
                      .configs = cfgs, .params = pars, .proxy = 1, .no_replay = 1, .inst_scale = 0.125,
                      .eval = eval_planted};
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.budget = 1;
    o.shrink = 0;
    o.set_name[0] = "claimed";
    o.set_val[0] = claimed;
    o.set_name[1] = "maxw";
    o.set_val[1] = maxw;
    o.nset = 2;
    lm_claim_result r;
    cr_assert_eq(lm_run_claim(&r, &keep, &o), 0);
    return r;
}

Test(pc_ratefit, short_grid_is_not_checkable_long_grid_decides)
{
    lm_claim_result r = run_planted(-1.0, 0.5);
    cr_expect_eq(r.cfg[0].verdict, LM_V_NOT_CHECKABLE, "%s", r.cfg[0].detail);
    cr_expect(strstr(r.cfg[0].detail, "horizon too short") != NULL, "%s", r.cfg[0].detail);
    cr_expect_eq(r.cfg[1].verdict, LM_V_CONSISTENT, "%s", r.cfg[1].detail);
    lm_claim_result_clear(&r);
    r = run_planted(-2.0, 0.5);
    cr_expect_eq(r.cfg[0].verdict, LM_V_NOT_CHECKABLE, "a drifting slope never says inconsistent: %s",
                 r.cfg[0].detail);
    cr_expect_eq(r.cfg[1].verdict, LM_V_INCONSISTENT, "%s", r.cfg[1].detail);
    lm_claim_result_clear(&r);
}

Test(pc_ratefit, wide_interval_is_assumption_failed)
{
    lm_claim_result r = run_planted(-1.0, 0.0);
    cr_expect_eq(r.cfg[1].verdict, LM_V_ASSUMPTION_FAILED, "%s", r.cfg[1].detail);
    lm_claim_result_clear(&r);
}
