/* tests/test_tighten.c -- lm_tighten recovers known sharp constants on planted
 * claims: an upper-bound coefficient (smaller is tighter), a lower-bound one
 * (larger is tighter), a stated value that already fails, and a constant no
 * instance depends on.  Plus the command line's errors. */
#include "test_support.h"
#include <math.h>

/* a <= c b with a/b = 0.3 + 0.05 (u - 1/2) over instances: sup a/b -> 0.325 */
static int eval_upper(lm_eval *ev)
{
    double u = lm_rng_uniform(lm_eval_rng(ev));
    double ratio = 0.3 + 0.05 * (u - 0.5);
    lm_obs_le_d(ev, -1, ratio * 2.0, lm_par(ev, "c") * 2.0, 0.0, "a <= c b");
    lm_obs_le_d(ev, -1, lm_par(ev, "k") * 0.5, 0.35, 0.0, "k/2 <= 0.35 (sharp k = 0.7)");
    lm_obs_le_d(ev, -1, 0.0, lm_par(ev, "unused"), 0.0, "0 <= unused");
    return 0;
}

static const lm_param_def params[] = {{"c", 1.0, "upper-bound coefficient", NULL, "(0, 1e6]"},
                                      {"k", 0.1, "lower-bound coefficient", NULL, "(0, 1e6]"},
                                      {"unused", 1.0, "a constant nothing depends on", NULL, "(0, 1e6]"},
                                      {NULL, 0, NULL, NULL, NULL}};

static lm_claim planted(void)
{
    lm_claim c = {.id = "test/tighten", .title = "planted", .file = __FILE__, .kind = LM_KIND_POINTWISE,
                  .source = "test", .origin = "verbatim", .confidence = "high", .params = params,
                  .inst_scale = 1.0, .eval = eval_upper};
    return c;
}

static lm_run_opts opts(void)
{
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.budget = 64;
    o.quick = 1;
    return o;
}

Test(tighten, recovers_an_upper_bound_coefficient)
{
    lm_claim c = planted();
    lm_run_opts o = opts();
    /* the sharp value is the largest ratio over the same 64 instances */
    double want = 0;
    {
        lm_claim_result r;
        cr_assert_eq(lm_run_claim(&r, &c, &o), 0);
        want = r.worst_ratio; /* = max a/b at c = 1, i.e. the sharp c */
        lm_claim_result_clear(&r);
    }
    lm_tighten_result t;
    cr_assert_eq(lm_tighten(&t, &c, 0, &o, 1e-4, 60), 0, "%s", t.msg);
    cr_expect_eq(t.direction, -1);
    cr_expect(fabs(t.sharpest / want - 1) <= 1e-4, "sharpest %g, sharp %g (%s)", t.sharpest, want, t.msg);
    cr_expect(t.breaks_at < t.sharpest && t.breaks_at >= t.sharpest / (1 + 1e-4));
    cr_expect(want > 0.3 && want < 0.325);
}

Test(tighten, recovers_a_lower_bound_coefficient)
{
    lm_claim c = planted();
    lm_run_opts o = opts();
    lm_tighten_result t;
    cr_assert_eq(lm_tighten(&t, &c, 1, &o, 1e-4, 60), 0, "%s", t.msg);
    cr_expect_eq(t.direction, 1);
    cr_expect(fabs(t.sharpest / 0.7 - 1) <= 1e-4, "sharpest %g (%s)", t.sharpest, t.msg);
}

Test(tighten, a_failing_stated_value_is_reported)
{
    lm_claim c = planted();
    lm_run_opts o = opts();
    o.set_name[0] = "c";
    o.set_val[0] = 0.1; /* below the sharp 0.3.. : violated as stated */
    o.nset = 1;
    lm_tighten_result t;
    cr_assert_eq(lm_tighten(&t, &c, 0, &o, 1e-3, 60), 0, "%s", t.msg);
    cr_expect_eq(t.stated_verdict, LM_V_VIOLATED);
    cr_expect(t.sharpest > 0.3 && t.sharpest < 0.33, "%s", t.msg);
    cr_expect(strstr(t.msg, "FAILS") != NULL, "%s", t.msg);
}

Test(tighten, an_unused_constant_is_not_load_bearing)
{
    lm_claim c = planted();
    lm_run_opts o = opts();
    lm_tighten_result t;
    cr_expect_eq(lm_tighten(&t, &c, 2, &o, 1e-3, 60), 1);
    cr_expect(strstr(t.msg, "not load-bearing") != NULL, "%s", t.msg);
}

Test(tighten, command_line_errors)
{
    char out[4096];
    cr_expect_eq(lm_test_cli(out, sizeof out, "tighten pruning/nothing coef"), 2, "%s", out);
    cr_expect_eq(lm_test_cli(out, sizeof out, "tighten pruning/lemmaD.4 nosuchparam"), 2, "%s", out);
    cr_expect_eq(lm_test_cli(out, sizeof out, "tighten pruning/lemmaD.4"), 2, "%s", out);
    cr_expect_eq(lm_test_cli(out, sizeof out, "tighten pruning/lemmaD.4 coef --rtol 7"), 2, "%s", out);
}

Test(tighten, command_line_on_a_real_claim, .timeout = 120)
{
    /* lemmaD.4's RECON coefficient 2 (of 2 sqrt(n) R^3) is reached to 1/(2 sqrt 2) of itself by a
     * corner witness: the sharpest coefficient lies below the stated 2 and above 0.6 */
    char out[8192];
    cr_assert_eq(lm_test_cli(out, sizeof out, "tighten pruning/lemmaD.4 coef --quick --json"), 0, "%s", out);
    cr_expect(strstr(out, "\"decided\":true") != NULL, "%s", out);
    const char *q = strstr(out, "\"sharpest\":");
    cr_assert_not_null(q, "%s", out);
    double v = strtod(q + 11, NULL);
    cr_expect(v > 0.6 && v < 2.0, "sharpest %g (%s)", v, out);
}
