/* The run options every command shares (lm_cli_common_opt): one parser, one message, one
 * meaning of --quick whatever the order. */
#include "test_support.h"

static const char *const cmds[] = {"check dynamics/remark4", "tighten dynamics/remark4 tol_scale",
                                   "mutate dynamics/remark4", "verify --no-report --db /nonexistent/x.db",
                                   "constants --list"};

Test(cli_opts, seed_and_budget_are_refused_the_same_way_by_every_command)
{
    char out[4096], args[256];
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        snprintf(args, sizeof args, "%s --seed -1", cmds[k]);
        cr_expect_eq(lm_test_cli(out, sizeof out, args), 2, "%s: %s", args, out);
        cr_expect(strstr(out, "--seed needs a non-negative integer (digits only, below 2^64), got '-1'"), "%s: %s", args, out);
        snprintf(args, sizeof args, "%s --budget 0", cmds[k]);
        cr_expect_eq(lm_test_cli(out, sizeof out, args), 2, "%s: %s", args, out);
        cr_expect(strstr(out, "--budget needs an integer in [1, 100000], got '0'"), "%s: %s", args, out);
        snprintf(args, sizeof args, "%s --budget", cmds[k]);
        cr_expect_eq(lm_test_cli(out, sizeof out, args), 2, "%s: %s", args, out);
        cr_expect(strstr(out, "--budget needs an integer in [1, 100000], got nothing"), "%s: %s", args, out);
    }
    /* -j where workers apply (verify, constants), as --jobs */
    cr_expect_eq(lm_test_cli(out, sizeof out, "constants --list -j 0"), 2, "%s", out);
    cr_expect(strstr(out, "-j needs a number of worker processes in [1, 64], got '0'"), "%s", out);
    cr_expect_eq(lm_test_cli(out, sizeof out, "verify --no-report --jobs 65"), 2, "%s", out);
}

/* --quick is the budget 8 unless --budget is given, before or after it */
Test(cli_opts, quick_and_budget_in_either_order)
{
    char a[8192], b[8192], c[8192];
    cr_assert_eq(lm_test_cli(a, sizeof a, "check dynamics/remark4 --budget 3 --quick --json"), 0, "%s", a);
    cr_assert_eq(lm_test_cli(b, sizeof b, "check dynamics/remark4 --quick --budget 3 --json"), 0, "%s", b);
    cr_assert_eq(lm_test_cli(c, sizeof c, "check dynamics/remark4 --quick --json"), 0, "%s", c);
    const char *ia = strstr(a, "\"instances\":"), *ib = strstr(b, "\"instances\":"), *ic = strstr(c, "\"instances\":");
    cr_assert(ia && ib && ic);
    cr_expect_eq(atol(ia + 12), atol(ib + 12), "--budget 3 --quick vs --quick --budget 3");
    cr_expect_neq(atol(ia + 12), atol(ic + 12), "--budget 3 must differ from the quick budget 8");
}
