/* The command line as a user meets it: bad input gets a one-line error and
 * exit status 2, results are reproducible, nothing half-written is left. */
#include "test_support.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void expect_usage_error(const char *args, const char *needle)
{
    char out[8192];
    int rc = lm_test_cli(out, sizeof out, args);
    cr_expect_eq(rc, 2, "'%s' exited %d, want 2: %s", args, rc, out);
    cr_expect(strstr(out, needle) != NULL, "'%s' said '%s', want it to mention '%s'", args, out, needle);
    cr_expect(strchr(out, '\n') == out + strlen(out) - 1, "'%s': want one line, got: %s", args, out);
}

Test(cli, bad_input_is_a_one_line_error)
{
    expect_usage_error("check dynamics/nope", "unknown claim id");
    expect_usage_error("check dynamics/theorem1 --prec 20", "--prec");
    expect_usage_error("check dynamics/theorem1 --prec 9000", "--prec");
    expect_usage_error("check dynamics/theorem1 --set alpha_scale", "malformed --set");
    expect_usage_error("check dynamics/theorem1 --set nosuch=1", "no parameter 'nosuch'");
    expect_usage_error("check dynamics/theorem1 --set alpha_scale=abc", "takes a number in");
    expect_usage_error("check dynamics/theorem1 --set T=-1", "takes an integer in");
    expect_usage_error("check dynamics/theorem1 --set kernel=cubic", "softmax|gauss");
    expect_usage_error("check dynamics/theorem1 --config nosuch", "no configuration");
    expect_usage_error("params dynamics/nope", "unknown claim id");
    expect_usage_error("train nosuchrun", "unknown run");
    expect_usage_error("train ib-ngd --set eta=-1", "bad value in --set");
    expect_usage_error("train ib-joint13 --set T=3", "bad value in --set");
    expect_usage_error("train ib-ngd --set zeta=2", "unknown run setting");
    expect_usage_error("train ib-ngd --steps many", "--steps");
    expect_usage_error("train ib-ngd --drift 8", "--drift");
    expect_usage_error("frobnicate", "unknown command");
}

Test(cli, list_has_all_dynamics_claims_id_first)
{
    char out[16384];
    cr_assert_eq(lm_test_cli(out, sizeof out, "list --paper dynamics"), 0);
    int lines = 0;
    for (char *l = out; *l; l = strchr(l, '\n') + 1) {
        cr_expect(strncmp(l, "dynamics/", 9) == 0, "line does not start with an id: %.60s", l);
        lines++;
        if (!strchr(l, '\n')) break;
    }
    cr_expect_eq(lines, 23);
}

/* same seed, same results (the timing field aside) */
Test(cli, same_seed_same_json)
{
    char a[65536], b[65536];
    cr_assert_eq(lm_test_cli(a, sizeof a, "check dynamics/lemma2 dynamics/theorem1 --quick --seed 5 --json"), 0);
    cr_assert_eq(lm_test_cli(b, sizeof b, "check dynamics/lemma2 dynamics/theorem1 --quick --seed 5 --json"), 0);
    /* blank out "seconds":<number> */
    char *bufs[2] = {a, b};
    for (int k = 0; k < 2; k++)
        for (char *s = bufs[k]; (s = strstr(s, "\"seconds\":")); s += 10) {
            char *q = s + 10, *e = q;
            while (*e && *e != ',') e++;
            memmove(q, e, strlen(e) + 1); /* drop the number */
        }
    cr_expect_str_eq(a, b);
    cr_expect(strstr(a, "\"verdict\":") && strstr(a, "\"reproduce\":") && strstr(a, "\"worst_ratio\":"));
}

/* a failed training run leaves no CSV behind; a good one writes the header */
Test(cli, train_writes_whole_files_only)
{
    char out[8192], path[] = "/tmp/lemmata-cli-XXXXXX";
    cr_assert_not_null(mkdtemp(path));
    char args[1024], csv[600];
    snprintf(csv, sizeof csv, "%s/run.csv", path);
    snprintf(args, sizeof args, "train t2-softmax --steps 3 --set eta=1e300 --out %s", csv);
    cr_expect_neq(lm_test_cli(out, sizeof out, args), 0, "a diverging run must fail: %s", out);
    cr_expect_neq(access(csv, F_OK), 0, "a failed run left %s", csv);
    snprintf(args, sizeof args, "train t2-softmax --steps 3 --out %s", csv);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    FILE *f = fopen(csv, "r");
    cr_assert_not_null(f);
    char line[256];
    cr_assert_not_null(fgets(line, sizeof line, f));
    cr_expect(strncmp(line, "iterate,loss,grad_norm", 22) == 0, "header: %s", line);
    int n = 1;
    while (fgets(line, sizeof line, f)) n++;
    fclose(f);
    cr_expect_eq(n, 5, "header + 4 iterates, got %d lines", n);
    unlink(csv);
    rmdir(path);
}

/* without pdflatex/gnuplot verify refuses before doing any work */
Test(cli, verify_without_tools_fails_cleanly)
{
    char out[8192], cmd[1024];
    snprintf(cmd, sizeof cmd, "PATH=/nonexistent %s verify --quick --db /tmp/lemmata-cli-none.db 2>&1",
             lm_test_bin());
    FILE *p = popen(cmd, "r");
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    int st = pclose(p);
    cr_expect_eq(WEXITSTATUS(st), 2, "%s", out);
    cr_expect(strstr(out, "not found") != NULL, "%s", out);
    cr_expect_neq(access("/tmp/lemmata-cli-none.db", F_OK), 0, "verify created a database anyway");
}

/* --size that the paper's 2 x 2 Example cannot take (theorem 3's kind 0)
 * is an unmet hypothesis, not an assertion failure */
Test(cli, size_the_example_cannot_take_is_assumption_failed)
{
    char out[8192];
    int rc = lm_test_cli(out, sizeof out, "check dynamics/theorem3-part1 --size n=1 --budget 4 --quick");
    cr_expect_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "assumption-failed") != NULL, "%s", out);
    cr_expect(strstr(out, "Assertion") == NULL, "%s", out);
}
