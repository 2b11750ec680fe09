/* Tests for the ball-arithmetic certification of dynamics/remark1 (issue 20): each counted
 * draw's rank decision is taken on rigorous enclosures, undecided draws count neither way. */
#include "test_support.h"

/* the first "key": <int> in s, -1 when absent */
static long json_int(const char *s, const char *key)
{
    char k[64];
    snprintf(k, sizeof k, "\"%s\":", key);
    const char *p = strstr(s, k);
    return p ? strtol(p + strlen(k), NULL, 10) : -1;
}

/* run one configuration by the command line, --quick --json, into out */
static void run_config(char *out, size_t cap, const char *config, const char *extra)
{
    char args[512];
    snprintf(args, sizeof args, "check dynamics/remark1 --quick --json --config '%s' %s", config, extra);
    lm_test_cli(out, cap, args);
}

Test(dynamics_remark1_cert, appendix_literal_is_certified)
{
    /* H = 1, D < Nn: B_0 is deficient by dimension, the S_ih are decided in balls */
    static char out[1 << 20];
    run_config(out, sizeof out, "appendix (c) literal: H=1, D in [2N, Nn)", "");
    cr_expect(strstr(out, "\"verdict\":\"violated\"") != NULL, "%.400s", out);
    cr_expect(strstr(out, "\"certified\":true") != NULL, "%.600s", out);
    cr_expect(json_int(out, "certified_bits") > 0, "certified_bits: %ld", json_int(out, "certified_bits"));
}

Test(dynamics_remark1_cert, n1_multihead_certified_only_once_the_balls_decide)
{
    /* B_0 = [X ... X] is exactly rank deficient, but at 128 bits no ball can show
     * sigma_Nn^2 < 2^-256 sigma_1^2 (every draw undecided) and at 256 bits too few
     * draws of the quick batch are decided: counting undecided draws as deficient
     * would certify at 128 bits already */
    static char out[1 << 20];
    run_config(out, sizeof out, "n=1 multi-head: D in [N/H, N)", "");
    cr_expect(strstr(out, "\"verdict\":\"violated\"") != NULL, "%.400s", out);
    cr_expect(strstr(out, "\"certified\":true") != NULL, "%.600s", out);
    cr_expect(json_int(out, "certified_bits") >= 512, "certified_bits: %ld", json_int(out, "certified_bits"));
}

Test(dynamics_remark1_cert, undecided_draws_do_not_certify)
{
    /* threshold tau^2 = 2^-1024 and balls of at most 256 bits: no draw can be shown
     * deficient, so the worst Wilson bound over the undecided draws is 1 and the break,
     * real in MPFR, must stay uncertified */
    const lm_claim *c = lm_claim_find("dynamics/remark1");
    cr_assert_not_null(c);
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.budget = 8;
    o.quick = 1;
    o.shrink = 0;
    o.only_config = "n=1 multi-head: D in [N/H, N)";
    o.cert_max_prec = 256;
    int idx;
    double v;
    char err[256];
    cr_assert_eq(lm_claim_parse_set(c, "rank_prec=1024", &idx, &v, err, sizeof err), 0, "%s", err);
    o.set_name[o.nset] = c->params[idx].name;
    o.set_val[o.nset++] = v;
    lm_claim_result r;
    cr_assert_eq(lm_run_claim(&r, c, &o), 0);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "got %s", lm_verdict_name(r.verdict));
    cr_expect(r.nconfig == 1 && !r.cfg[0].certified, "certified: %s", r.nconfig ? r.cfg[0].cert_note : "");
    lm_claim_result_clear(&r);
}
