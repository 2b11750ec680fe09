/* Tests for the ball-arithmetic certification of precond/remark2 and precond/theorem1.2
 * (issue 20). */
#include "test_support.h"

static long json_int(const char *s, const char *key)
{
    char k[64];
    snprintf(k, sizeof k, "\"%s\":", key);
    const char *p = strstr(s, k);
    return p ? strtol(p + strlen(k), NULL, 10) : -1;
}

static void run_config(char *out, size_t cap, const char *id, const char *config, const char *extra)
{
    char args[512];
    snprintf(args, sizeof args, "check %s --quick --json --config '%s' %s", id, config, extra);
    lm_test_cli(out, cap, args);
}

Test(pc_cert, remark2_as_printed_is_certified)
{
    /* the W_V block at W_KQ = 0 is exactly 0: 1e-12 lambda_max > lambda_min in balls */
    static char out[1 << 20];
    run_config(out, sizeof out, "precond/remark2", "as printed: every fixed block", "");
    cr_expect(strstr(out, "\"verdict\":\"violated\"") != NULL, "%.400s", out);
    cr_expect(strstr(out, "\"certified\":true") != NULL, "%.600s", out);
    cr_expect(json_int(out, "certified_bits") > 0, "certified_bits: %ld", json_int(out, "certified_bits"));
}

Test(pc_cert, remark2_identity_break_is_not_certified)
{
    /* the wrong transposed factor breaks identity residuals that need midpoint
     * eigenvectors (Sigma^1/2, the SVD of M*): they are not re-run in balls, and the
     * pointwise observations hold, so this violation must not come out certified */
    static char out[1 << 20];
    run_config(out, sizeof out, "precond/remark2", "full-rank blocks (random theta)", "--set formula=wrong");
    cr_expect(strstr(out, "\"verdict\":\"violated\"") != NULL, "%.400s", out);
    cr_expect(strstr(out, "\"certified\":false") != NULL, "%.600s", out);
}

Test(pc_cert, theorem1_2_connected_is_certified)
{
    /* Sigma > 0 and rank W* = d decided exactly: M = O(d) has two components */
    static char out[1 << 20];
    run_config(out, sizeof out, "precond/theorem1.2", "connected (introduction)", "");
    cr_expect(strstr(out, "\"verdict\":\"violated\"") != NULL, "%.400s", out);
    cr_expect(strstr(out, "\"certified\":true") != NULL, "%.600s", out);
    cr_expect(json_int(out, "certified_bits") > 0, "certified_bits: %ld", json_int(out, "certified_bits"));
}

Test(pc_cert, theorem1_2_midpoint_readback_is_not_certified)
{
    /* with the wrong parametrisation the exact argument does not apply and the read-back
     * takes midpoint eigenvectors in balls: the break must stay uncertified (tainted) */
    static char out[1 << 20];
    run_config(out, sizeof out, "precond/theorem1.2", "connected (introduction)", "--set manifold=wrong");
    cr_expect(strstr(out, "\"verdict\":\"violated\"") != NULL, "%.400s", out);
    cr_expect(strstr(out, "\"certified\":false") != NULL, "%.600s", out);
}
