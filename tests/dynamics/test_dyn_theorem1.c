/* Tests for dynamics/theorem1. */
#include "test_support.h"

Test(dynamics_theorem1, wrong_constant_is_violated)
{
    /* alpha ten times too large: the bound (1-10 eta alpha)^t decays faster
     * than any GD run can, so the check must find the break (and MPFR must
     * confirm it). */
    const char *sets[] = {"alpha_scale=10", NULL};
    lm_test_expect("dynamics/theorem1", sets, "dense,eta=1/G_V", 4, LM_V_VIOLATED);
}

Test(dynamics_theorem1, as_stated_not_error)
{
    lm_test_not_error("dynamics/theorem1", "dense,eta=1/G_V", 4);
    lm_test_not_error("dynamics/theorem1", "block,eta=eta*(1-1e-6)", 4);
}

Test(dynamics_theorem1, eta_just_below_threshold_holds)
{
    /* eta*(1-1e-6) is inside the exact threshold for the dense mode: holds */
    lm_claim_result r = lm_test_run("dynamics/theorem1", NULL, "dense,eta=eta*(1-1e-6)", 4);
    cr_expect(r.verdict == LM_V_HOLDS || r.verdict == LM_V_ASSUMPTION_FAILED, "got %s",
              lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
}

Test(dynamics_theorem1, wrong_constant_violation_is_certified)
{
    /* audited claim (.certifiable = 1): the wrong-constant break re-evaluated in Arb ball
     * arithmetic must come out certified (left ball wholly above the right one, no taint) */
    const char *sets[] = {"alpha_scale=10", NULL};
    lm_claim_result r = lm_test_run("dynamics/theorem1", sets, "dense,eta=1/G_V", 4);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "got %s", lm_verdict_name(r.verdict));
    cr_expect(r.certified, "not certified: %s", r.nconfig ? r.cfg[0].cert_note : "");
    cr_expect(r.nconfig == 1 && r.cfg[0].certified && r.cfg[0].cert_prec >= 128);
    lm_claim_result_clear(&r);
}

Test(dynamics_theorem1, real_violation_is_certified)
{
    /* the stated constant breaks with eta = 0.9/alpha (the main-text condition eta alpha < 1
     * alone; a real violation, see the report); certified in balls */
    lm_claim_result r = lm_test_run("dynamics/theorem1", NULL, "dense,eta=0.9/alpha", 8);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "got %s", lm_verdict_name(r.verdict));
    cr_expect(r.certified, "not certified: %s", r.nconfig ? r.cfg[0].cert_note : "");
    lm_claim_result_clear(&r);
}

/* issue 15: the dynamics runs' settings (lm_dynrun_set) are ranged like a claim's parameters */
Test(dynamics_theorem1, train_settings_are_ranged, .timeout = 120)
{
    char out[8192];
    const char *bad[][2] = {{"train t1-softmax-dense --set steps=-1", "steps takes an integer in [0, 10000000]"},
                            {"train t1-softmax-dense --set eta=NaN", "eta takes a number in [0, 1e+300]"},
                            {"train t1-softmax-dense --set eta=abc", "eta takes a number"},
                            {"train t1-softmax-dense --set 'eta= 1'", "eta takes a number"},
                            {"train t1-softmax-dense --set eta=1x", "eta takes a number"},
                            {"train t1-softmax-dense --set eta=0x10", "eta takes a number"},
                            {"train t1-softmax-dense --set N=17", "N takes an integer in [1, 16]"},
                            {"train t1-softmax-dense --set D=0", "D takes an integer in [1, 32]"},
                            {"train t1-softmax-dense --set sx=-1", "sx takes a number in [0, 1000000]"},
                            {"train t1-softmax-dense --set kernel=cubic", "kernel takes one of softmax|gauss"}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        int rc = lm_test_cli(out, sizeof out, bad[k][0]);
        cr_expect_eq(rc, 2, "'%s' exit %d: %s", bad[k][0], rc, out);
        cr_expect(strstr(out, bad[k][1]) != NULL, "'%s': %s", bad[k][0], out);
        cr_expect(strchr(out, '\n') == out + strlen(out) - 1, "want one line, got: %s", out);
    }
    /* the ends of the ranges run (or fail cleanly: a diverging step, exit 3) */
    const char *ok[] = {"train t1-softmax-dense --steps 2 --set N=16", "train t1-softmax-dense --steps 2 --set H=8",
                        "train t2-gauss --steps 2 --set D=32",         "train t2-gauss --steps 2 --set d=16",
                        "train t2-softmax --steps 0",                  "train t2-softmax --steps 2 --set sx=0",
                        "train t2-softmax --steps 2 --set sqk=1e6",    "train t3-softmax --steps 2 --set so=1e6",
                        "train t1-softmax-block --steps 2 --set eta=1e300"};
    for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
        int rc = lm_test_cli(out, sizeof out, ok[k]);
        cr_expect(rc == 0 || rc == 3, "'%s' exit %d: %s", ok[k], rc, out);
    }
    /* the automatic step size forms the Hessian: refused past 512 trained parameters */
    int rc = lm_test_cli(out, sizeof out, "train t1-softmax-dense --steps 2 --set H=8 --set D=32 --set d=16");
    cr_expect_eq(rc, 3, "exit %d: %s", rc, out);
    cr_expect(strstr(out, "more than 512") != NULL, "%s", out);
}
