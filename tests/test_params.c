/* Declared parameter ranges and size bounds (issue 15, items 1-6 and their class):
 *   - every numeric parameter of every claim declares a type and range that parses and
 *     holds its default; switches have their choices;
 *   - `--set` outside the range (0, -1, huge, NaN, "abc", " 1", hex) is refused before
 *     anything runs, with a one-line message that names the range;
 *   - a `--size` beyond a size's resource bound and an `--instance` past the count are
 *     refused by the runner (lm_run_claim returns 2) before any instance allocates;
 *   - the formerly crashing command lines of the issue are now one-line errors, exit 2;
 *   - `params ID` explains each configuration's instance count, and the count is the runner's.
 * The sweep over every claim x parameter x value is `make fuzz` (tools/fuzz.c). */
#include "test_support.h"
#include <math.h>

Test(params, every_parameter_declares_a_range_holding_its_default)
{
    int nnum = 0, nsw = 0;
    for (int i = 0; i < lm_registry_count; i++) {
        const lm_claim *c = lm_registry[i];
        for (int k = 0; c->params && c->params[k].name; k++) {
            const lm_param_def *p = &c->params[k];
            lm_range r;
            cr_assert_eq(lm_param_range(&r, p), 0, "%s %s: range '%s' does not parse", c->id, p->name,
                         p->range ? p->range : "(none)");
            cr_assert(lm_range_contains(&r, p->def), "%s %s: default %g outside %s", c->id, p->name,
                      p->def, p->range ? p->range : p->choices);
            if (p->choices) {
                nsw++;
                cr_assert_null(p->range, "%s %s: a switch takes no range", c->id, p->name);
            } else
                nnum++;
        }
    }
    cr_assert_gt(nnum, 400, "only %d numeric parameters", nnum);
    cr_assert_gt(nsw, 20);
}

Test(params, range_syntax)
{
    lm_param_def p = {"x", 1, "", NULL, "int [1, 20000]"};
    lm_range r;
    cr_assert_eq(lm_param_range(&r, &p), 0);
    cr_assert(r.integer && r.lo == 1 && r.hi == 20000);
    cr_assert(lm_range_contains(&r, 1) && lm_range_contains(&r, 20000));
    cr_assert(!lm_range_contains(&r, 0) && !lm_range_contains(&r, 20001) && !lm_range_contains(&r, 1.5));
    cr_assert(!lm_range_contains(&r, NAN));
    p.range = "(0, inf)";
    cr_assert_eq(lm_param_range(&r, &p), 0);
    cr_assert(!lm_range_contains(&r, 0) && lm_range_contains(&r, 1e300) && !lm_range_contains(&r, INFINITY));
    p.range = "[-1, 1)";
    cr_assert_eq(lm_param_range(&r, &p), 0);
    cr_assert(lm_range_contains(&r, -1) && !lm_range_contains(&r, 1));
    const char *bad[] = {NULL, "", "[1, 0]", "[0, inf]", "int [0, inf)", "[0 1]", "[0, 1] x", "1, 2",
                         "[nan, 1]"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        p.range = bad[k];
        cr_assert_neq(lm_param_range(&r, &p), 0, "'%s' parsed", bad[k] ? bad[k] : "NULL");
    }
}

/* the values of the issue's sweep, out of range for dynamics/theorem1's T */
Test(params, set_outside_the_range_is_refused_naming_it)
{
    const lm_claim *c = lm_claim_find("dynamics/theorem1");
    cr_assert_not_null(c);
    const char *bad[] = {"T=0", "T=-1", "T=1e300", "T=NaN", "T=nan", "T=inf", "T=abc", "T= 1", "T=1x",
                         "T=0x10", "T=2.5", "T=", "alpha_scale=-1", "alpha_scale=0", "alpha_scale=NaN"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        int idx;
        double v;
        char err[256] = "";
        cr_assert_neq(lm_claim_parse_set(c, bad[k], &idx, &v, err, sizeof err), 0, "%s accepted", bad[k]);
        cr_assert(err[0] && !strchr(err, '\n'), "%s: '%s'", bad[k], err);
        if (strchr(bad[k], '=')[1]) cr_assert(strstr(err, "in [") || strstr(err, "in ("), "%s: '%s'", bad[k], err);
    }
    int idx;
    double v;
    char err[256];
    cr_assert_eq(lm_claim_parse_set(c, "T=12", &idx, &v, err, sizeof err), 0, "%s", err);
    cr_assert_eq(v, 12);
    cr_assert_eq(lm_claim_parse_set(c, "alpha_scale=1.5", &idx, &v, err, sizeof err), 0, "%s", err);
}

static int run_with(lm_claim_result *r, const char *id, const char *size, int val, int instance,
                    const char *config)
{
    const lm_claim *c = lm_claim_find(id);
    cr_assert_not_null(c);
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.quick = 1;
    o.budget = 8;
    o.shrink = 0;
    o.only_config = config;
    o.only_instance = instance;
    if (size) {
        o.size_name[0] = size;
        o.size_val[0] = val;
        o.nsize = 1;
    }
    return lm_run_claim(r, c, &o);
}

/* issue 15, item 6: n = 100000 on lemma3 aborted out of memory; D = 100000 ran for minutes */
Test(params, size_past_its_bound_is_refused_before_allocating, .timeout = 60)
{
    const char *names[] = {"n", "H", "D", "d", "N"};
    for (int k = 0; k < 5; k++) {
        lm_claim_result r;
        int rc = run_with(&r, "dynamics/lemma3", names[k], 100000, 10, "Z90,sigma-at-M");
        cr_assert_eq(rc, 2, "--size %s=100000 was not refused", names[k]);
        cr_assert(strstr(r.error, "outside the range"), "%s", r.error);
        cr_assert_eq(r.nconfig, 0);
    }
    lm_claim_result r;
    cr_assert_eq(run_with(&r, "dynamics/remark1", "draws", 100000, 0, NULL), 2);
    cr_assert(strstr(r.error, "draws=100000"), "%s", r.error);
    /* inside the bound it runs */
    cr_assert_eq(run_with(&r, "dynamics/lemma3", "n", 3, 10, "Z90,sigma-at-M"), 0, "%s", r.error);
    cr_assert_gt(r.instances, 0);
    cr_assert(strstr(r.sizes, "n 1.."), "sizes '%s'", r.sizes);
    lm_claim_result_clear(&r);
}

/* issue 15, item 16: --instance 9999 ran nothing and exited 0 */
Test(params, instance_past_the_count_is_refused)
{
    lm_claim_result r;
    cr_assert_eq(run_with(&r, "dynamics/lemma1", NULL, 0, 9999, NULL), 2);
    cr_assert(strstr(r.error, "instance 9999 does not exist"), "%s", r.error);
    cr_assert_eq(run_with(&r, "dynamics/lemma1", NULL, 0, 0, NULL), 0, "%s", r.error);
    lm_claim_result_clear(&r);
}

/* the command lines of the issue: each a one-line error with exit 2, nothing run */
Test(params, the_issues_crashing_command_lines_are_usage_errors, .timeout = 120)
{
    const char *cmds[] = {
        "check dynamics/section4.1-gaussian-analogue --quick --set T_run=-1",
        "check precond/lemma4 --quick --set M=0",
        "check precond/lemma4 --quick --set M=-1",
        "check implicit/definition1 --quick --set T=0",
        "check implicit/eq17-gradient --quick --set T=-1",
        "check mirror/assumptionA --quick --set T=0",
        "check mirror/lemma17 --quick --set fd_prec=0",
        "check mirror/lemma17 --quick --set fd_prec=-1",
        "check implicit/eq17-gradient --quick --set n=1e9",
        "check dynamics/lemma3 --quick --config Z90,sigma-at-M --instance 10 --size n=100000",
        "check dynamics/lemma3 --quick --config Z90,sigma-at-M --instance 10 --size H=100000",
        "check dynamics/remark1 --quick --size draws=100000",
        "check dynamics/lemma1 --quick --instance 9999",
    };
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        char out[4096];
        int rc = lm_test_cli(out, sizeof out, cmds[k]);
        cr_assert_eq(rc, 2, "`%s` exited %d: %s", cmds[k], rc, out);
        cr_assert(strncmp(out, "lemmata: ", 9) == 0, "`%s`: %s", cmds[k], out);
        cr_assert(strchr(out, '\n') == out + strlen(out) - 1, "`%s` printed more than one line: %s",
                  cmds[k], out);
    }
}

/* "A" or "A+B" at *s: A + B, and *s past it; -1 when it is not there */
static int count_at(const char **s)
{
    char *e;
    long a = strtol(*s, &e, 10), b = 0;
    if (e == *s) return -1;
    if (*e == '+') {
        const char *q = e + 1;
        b = strtol(q, &e, 10);
        if (e == q) return -1;
    }
    *s = e;
    return (int)(a + b);
}

/* `params ID` gives each configuration's instance count at budget 64 and 8 and the rule behind
 * it; the counts are those the runner really evaluates (in-process runs at both budgets, where
 * cheap), and the rule's numbers are printed for this claim */
Test(params, instance_counts_are_explained_and_true, .timeout = 180)
{
    static const struct {
        const char *id;
        int run64; /* cheap enough to run at budget 64 too */
        const char *random_rule, *search_rule;
    } cases[] = {
        {"tutorial/softmax-jacobian", 1, "round(budget x 1), the claim's inst_scale, at least 1: 64 -> 64, 8 -> 8",
         "64 -> 4, 8 -> 1, in every configuration"},
        {"dynamics/theorem1", 1, "round(budget x 0.25), the claim's inst_scale, at least 1: 64 -> 16, 8 -> 2",
         "no adversarial search"},
        /* a search in one configuration only, and a scale that rounds to below one instance */
        {"dynamics/remark1", 0, "round(budget x 0.015625), the claim's inst_scale, at least 1: 64 -> 1, 8 -> 1",
         "in the configurations shown with '+'"},
    };
    for (size_t j = 0; j < sizeof cases / sizeof cases[0]; j++) {
        const lm_claim *c = lm_claim_find(cases[j].id);
        cr_assert_not_null(c);
        char args[200];
        static char out[65536];
        snprintf(args, sizeof args, "params %s", cases[j].id);
        cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
        cr_expect(strstr(out, cases[j].random_rule), "%s: want '%s' in:\n%s", args, cases[j].random_rule, out);
        cr_expect(strstr(out, cases[j].search_rule), "%s: want '%s' in:\n%s", args, cases[j].search_rule, out);
        cr_expect(strstr(out, "budget/16") || !strstr(out, "adversarial search ("), "%s", out);
        int n = lm_claim_nconfigs(c), want64[64], want8[64];
        cr_assert_leq(n, 64);
        for (int k = 0; k < n; k++) {
            /* "  NAME  READING  A[+B] | C[+D]  sentence" */
            char head[200];
            snprintf(head, sizeof head, "\n  %s ", lm_claim_config(c, k));
            const char *s = strstr(out, head);
            cr_assert_not_null(s, "%s: no line for configuration %s", args, lm_claim_config(c, k));
            s += strlen(head);
            while (*s == ' ') s++;
            s += strcspn(s, " "); /* the reading */
            while (*s == ' ') s++;
            want64[k] = count_at(&s);
            cr_assert(!strncmp(s, " | ", 3), "%s %s: %.40s", args, lm_claim_config(c, k), s);
            s += 3;
            want8[k] = count_at(&s);
            cr_assert(want64[k] > 0 && want8[k] > 0, "%s %s", args, lm_claim_config(c, k));
        }
        for (int b = 0; b < 2; b++) {
            if (b == 0 && !cases[j].run64) continue;
            lm_claim_result r = lm_test_run(cases[j].id, NULL, NULL, b == 0 ? 64 : 8);
            cr_assert_eq(r.nconfig, n);
            for (int k = 0; k < n; k++)
                cr_expect_eq(r.cfg[k].instances, (long)(b == 0 ? want64[k] : want8[k]),
                             "%s %s at budget %d: params says %d, the runner evaluated %ld", cases[j].id,
                             r.cfg[k].config, b == 0 ? 64 : 8, b == 0 ? want64[k] : want8[k], r.cfg[k].instances);
            lm_claim_result_clear(&r);
        }
    }
}
