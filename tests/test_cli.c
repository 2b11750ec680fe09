/* The command line as a user meets it: bad input gets a one-line error and
 * exit status 2, results are reproducible, nothing half-written is left. */
#include "lm_paper.h"
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
    /* and "phases":{...}, the same seconds split by phase (no nested braces) */
    for (int k = 0; k < 2; k++)
        for (char *s = bufs[k]; (s = strstr(s, "\"phases\":{")); s += 10) {
            char *q = s + 10, *e = strchr(q, '}');
            if (e) memmove(q, e, strlen(e) + 1);
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

/* "bin args" with stdout into out and stderr into err (each up to its cap): the exit status */
static int run_split(char *out, size_t cap, char *err, size_t ecap, const char *args)
{
    char ef[] = "/tmp/lm_cli_err_XXXXXX";
    int fd = mkstemp(ef);
    cr_assert_geq(fd, 0);
    close(fd);
    size_t L = strlen(lm_test_bin()) + strlen(args) + sizeof ef + 16;
    char *cmd = malloc(L); /* args may be long (hostile input) */
    cr_assert_not_null(cmd);
    snprintf(cmd, L, "%s %s 2>%s", lm_test_bin(), args, ef);
    FILE *p = popen(cmd, "r");
    free(cmd);
    cr_assert_not_null(p);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    int st = pclose(p);
    FILE *e = fopen(ef, "r");
    cr_assert_not_null(e);
    n = fread(err, 1, ecap - 1, e);
    err[n] = 0;
    fclose(e);
    unlink(ef);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* the lines of out */
static int count_lines(const char *out)
{
    int n = 0;
    for (; *out; out++) n += *out == '\n';
    return n;
}

/* list --paper takes the paper's id, its claim-id prefix, its catalogue name (any case) and its
 * folder, and lists the same claims for each; the tutorial has no catalogue name */
Test(cli, list_paper_takes_id_prefix_and_catalogue_name)
{
    char ref[16384], out[16384], err[4096];
    cr_assert_eq(run_split(ref, sizeof ref, err, sizeof err, "list --paper dynamics"), 0, "%s", err);
    cr_expect_eq(count_lines(ref), lm_paper_nclaims(lm_paper_find("dynamics")));
    static const char *const names[] = {"dynamics/", "transformer-gd-dynamics", "Transformer-GD-Dynamics",
                                        "transformer-gd-dynamics/", "lemmas/dynamics/", "lemmas/dynamics"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        char args[200];
        snprintf(args, sizeof args, "list --paper '%s'", names[k]);
        cr_expect_eq(run_split(out, sizeof out, err, sizeof err, args), 0, "%s: %s", args, err);
        cr_expect_str_eq(out, ref, "%s", args);
    }
    /* every paper with a catalogue name answers to it, and `papers` shows it */
    char papers[8192];
    cr_assert_eq(run_split(papers, sizeof papers, err, sizeof err, "papers"), 0, "%s", err);
    for (int k = 0; k < lm_paper_count; k++) {
        const lm_paper *p = lm_papers[k];
        char args[200];
        snprintf(args, sizeof args, "list --paper %s/", p->id);
        cr_expect_eq(run_split(ref, sizeof ref, err, sizeof err, args), 0, "%s: %s", args, err);
        cr_expect_eq(count_lines(ref), lm_paper_nclaims(p), "%s", args);
        if (!p->catalogue) continue;
        cr_expect(strstr(papers, p->catalogue), "papers does not show %s: %s", p->catalogue, papers);
        snprintf(args, sizeof args, "list --paper %s", p->catalogue);
        cr_expect_eq(run_split(out, sizeof out, err, sizeof err, args), 0, "%s: %s", args, err);
        cr_expect_str_eq(out, ref, "%s", args);
    }
    /* mutate and check take the same names */
    cr_expect_eq(lm_test_cli(out, sizeof out, "check transformer-gd-dynamics/ --frobnicate"), 2, "%s", out);
    cr_expect(strstr(out, "unknown option '--frobnicate'"), "%s", out);
    cr_expect_eq(lm_test_cli(out, sizeof out, "check dynamics"), 2, "%s", out);
    cr_expect(strstr(out, "is a paper") && strstr(out, "check dynamics/"), "%s", out);
}

/* an unknown paper is exit 2 with one line naming every valid prefix and catalogue name */
Test(cli, unknown_paper_lists_the_valid_ones)
{
    static const char *const bad[] = {"list --paper nosuch", "list --paper dyn", "list --paper NaN",
                                      "list --paper lemmas/", "list --paper /", "list --paper 'a b'",
                                      "mutate --paper nosuch --quick"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char out[8192];
        int rc = lm_test_cli(out, sizeof out, bad[k]);
        cr_expect_eq(rc, 2, "'%s' exited %d: %s", bad[k], rc, out);
        cr_expect(strchr(out, '\n') == out + strlen(out) - 1, "'%s': want one line, got: %s", bad[k], out);
        cr_expect(strstr(out, "no paper"), "'%s': %s", bad[k], out);
        for (int j = 0; j < lm_paper_count; j++) {
            char want[80];
            snprintf(want, sizeof want, " %s/", lm_papers[j]->id);
            cr_expect(strstr(out, want), "'%s' does not name %s: %s", bad[k], want, out);
            if (lm_papers[j]->catalogue)
                cr_expect(strstr(out, lm_papers[j]->catalogue), "'%s' does not name %s: %s", bad[k],
                          lm_papers[j]->catalogue, out);
        }
    }
    /* an empty or missing value is a missing value */
    char out[8192];
    cr_expect_eq(lm_test_cli(out, sizeof out, "list --paper ''"), 2, "%s", out);
    cr_expect(strstr(out, "--paper needs a paper"), "%s", out);
    cr_expect_eq(lm_test_cli(out, sizeof out, "list --paper"), 2, "%s", out);
    cr_expect(strstr(out, "got nothing"), "%s", out);
}

/* hostile arguments are echoed in one line, cut short, control characters shown as '?' */
Test(cli, hostile_arguments_are_one_short_line)
{
    static char args[12000];
    char out[16384], err[16384];
    static const char *const fmt[] = {"list --paper %s", "check %s", "check dynamics/lemma1 --frob%s",
                                      "train tut-gd --frob%s", "params %s", "mutate --paper %s"};
    for (size_t k = 0; k < sizeof fmt / sizeof fmt[0]; k++) {
        char huge[8001];
        memset(huge, 'x', 8000);
        huge[8000] = 0;
        snprintf(args, sizeof args, fmt[k], huge);
        int rc = run_split(out, sizeof out, err, sizeof err, args);
        cr_expect_eq(rc, 2, "'%.60s...' exited %d", args, rc);
        cr_expect(!out[0] && strchr(err, '\n') == err + strlen(err) - 1 && strlen(err) < 1000, "'%.60s...': %.300s",
                  args, err);
        snprintf(args, sizeof args, fmt[k], "\"$(printf 'a\\nb\\033[2J')\"");
        rc = run_split(out, sizeof out, err, sizeof err, args);
        cr_expect_eq(rc, 2, "'%s' exited %d: %s", args, rc, err);
        cr_expect(!out[0] && strchr(err, '\n') == err + strlen(err) - 1 && !strchr(err, '\033'), "'%s': %s", args,
                  err);
    }
}

/* Minimal JSON reading for the test: the value at *p is skipped, 0 when it is well formed. */
static int json_skip(const char **p);

static void json_ws(const char **p)
{
    while (**p == ' ' || **p == '\n' || **p == '\t' || **p == '\r') (*p)++;
}

static int json_string(const char **p)
{
    if (**p != '"') return -1;
    for ((*p)++; **p && **p != '"'; (*p)++) {
        if ((unsigned char)**p < 0x20) return -1;
        if (**p == '\\') {
            (*p)++;
            if (!strchr("\"\\/bfnrtu", **p) || !**p) return -1;
        }
    }
    if (**p != '"') return -1;
    (*p)++;
    return 0;
}

static int json_skip(const char **p)
{
    json_ws(p);
    char ch = **p;
    if (ch == '{' || ch == '[') {
        char close = ch == '{' ? '}' : ']';
        (*p)++;
        json_ws(p);
        if (**p == close) {
            (*p)++;
            return 0;
        }
        for (;;) {
            if (ch == '{') {
                json_ws(p);
                if (json_string(p)) return -1;
                json_ws(p);
                if (**p != ':') return -1;
                (*p)++;
            }
            if (json_skip(p)) return -1;
            json_ws(p);
            if (**p == ',') {
                (*p)++;
                continue;
            }
            if (**p != close) return -1;
            (*p)++;
            return 0;
        }
    }
    if (ch == '"') return json_string(p);
    for (const char *w = "true\0false\0null\0"; *w; w += strlen(w) + 1)
        if (!strncmp(*p, w, strlen(w))) {
            *p += strlen(w);
            return 0;
        }
    char *e;
    strtod(*p, &e);
    if (e == *p || !(ch == '-' || (ch >= '0' && ch <= '9'))) return -1;
    *p = e;
    return 0;
}

/* the text of the value of key (its first occurrence after from) into buf: 0, or -1 */
static int json_value(const char *from, const char *key, char *buf, size_t n)
{
    char k[80];
    snprintf(k, sizeof k, "\"%s\":", key);
    const char *s = strstr(from, k);
    if (!s) return -1;
    s += strlen(k);
    const char *e = s;
    if (json_skip(&e)) return -1;
    snprintf(buf, n, "%.*s", (int)(e - s), s);
    return 0;
}

/* check --json: well formed, the counterexample at claim level with its reproduce command (which
 * reproduces: the break comes back), each configuration's sentence, and every worst ratio
 * printed so that it reads back as the same double (17 significant digits) */
Test(cli, check_json_carries_the_counterexample_and_full_precision, .timeout = 120)
{
    static char out[1 << 20];
    char err[16384], v[4096];
    int rc = run_split(out, sizeof out, err, sizeof err, "check dynamics/theorem1 --json");
    cr_assert_eq(rc, 0, "%s", err);
    const char *p = out;
    cr_assert_eq(json_skip(&p), 0, "not JSON near: %.80s", p);
    json_ws(&p);
    cr_expect_eq(*p, 0, "more than one object: %.80s", p);
    cr_assert_eq(json_value(out, "counterexample", v, sizeof v), 0, "%s", out);
    cr_assert_neq(strcmp(v, "null"), 0, "dynamics/theorem1 has violated configurations, but no counterexample");
    char repro[1024], cfg[200], ratio[64];
    cr_assert_eq(json_value(v, "reproduce", repro, sizeof repro), 0, "%s", v);
    cr_assert_eq(json_value(v, "config", cfg, sizeof cfg), 0, "%s", v);
    cr_expect(strncmp(repro, "\"bin/lemmata check dynamics/theorem1 ", 37) == 0, "%s", repro);
    cr_expect(strstr(repro, "--instance "), "%s", repro);
    cr_assert_eq(json_value(v, "worst_ratio", ratio, sizeof ratio), 0, "%s", v);
    cr_expect_gt(strtod(ratio, NULL), 1.0, "a counterexample that does not break: %s", ratio);
    char shrunk[16];
    cr_assert_eq(json_value(v, "shrunk", shrunk, sizeof shrunk), 0, "%s", v);
    if (!strcmp(shrunk, "true")) cr_expect(strstr(repro, "--size "), "a shrunk reproduce without sizes: %s", repro);
    /* the command reproduces a violation (run in the source tree, as printed) */
    char cmd[1200];
    repro[strlen(repro) - 1] = 0;
    snprintf(cmd, sizeof cmd, "%s --json", repro + strlen("\"bin/lemmata "));
    for (char *q = cmd; (q = strstr(q, "\\\"")); q++) memmove(q, q + 1, strlen(q)); /* JSON \" */
    static char out2[1 << 18];
    cr_assert_eq(run_split(out2, sizeof out2, err, sizeof err, cmd), 0, "%s: %s", cmd, err);
    cr_expect(strstr(out2, "\"verdict\":\"violated\""), "%s did not reproduce the break: %.300s", cmd, out2);
    /* every configuration says what it tests, under "tests" and "reading_note" alike */
    int ncfg = 0, n17 = 0;
    const char *cfgs = strstr(out, "\"configs\":[");
    cr_assert_not_null(cfgs);
    for (const char *s = strstr(cfgs, "{\"config\":"); s; s = strstr(s + 1, "{\"config\":")) {
        char t[400], r[400];
        cr_assert_eq(json_value(s, "tests", t, sizeof t), 0);
        cr_assert_eq(json_value(s, "reading_note", r, sizeof r), 0);
        cr_expect_str_eq(t, r);
        ncfg++;
    }
    cr_expect_geq(ncfg, 2);
    /* every worst ratio reads back as itself in %.17g, and some need all 17 digits */
    for (const char *s = strstr(out, "\"worst_ratio\":"); s; s = strstr(s + 1, "\"worst_ratio\":")) {
        char num[64], again[64];
        cr_assert_eq(json_value(s, "worst_ratio", num, sizeof num), 0);
        if (!strcmp(num, "null")) continue;
        snprintf(again, sizeof again, "%.17g", strtod(num, NULL));
        /* the digits of %.17g; Jansson writes the exponent without '+' and leading zeros
         * (1e+25 as 1e25) and an integral real as 2.0 */
        const char *e1 = strpbrk(num, "eE"), *e2 = strpbrk(again, "eE");
        size_t m1 = e1 ? (size_t)(e1 - num) : strlen(num), m2 = e2 ? (size_t)(e2 - again) : strlen(again);
        if (!e1 && m1 > 2 && !strcmp(num + m1 - 2, ".0") && !strchr(again, '.')) m1 -= 2;
        cr_expect(m1 == m2 && !strncmp(num, again, m1) && (e1 ? atoi(e1 + 1) : 0) == (e2 ? atoi(e2 + 1) : 0),
                  "a ratio not printed with 17 significant digits: %s (%s)", num, again);
        int digits = 0;
        for (const char *q = num; *q && *q != 'e'; q++) digits += *q >= '0' && *q <= '9';
        n17 += digits >= 16;
    }
    cr_expect_gt(n17, 0, "no worst ratio printed with 16-17 significant digits: %.400s", out);
}

/* train: a summary on stderr and no CSV on stdout unless --csv; --csv with --out is refused */
Test(cli, train_summarises_and_writes_csv_only_when_asked, .timeout = 120)
{
    char out[65536], err[8192];
    cr_assert_eq(run_split(out, sizeof out, err, sizeof err, "train tut-gd --steps 7"), 0, "%s", err);
    cr_expect_str_eq(out, "", "CSV on stdout without --csv");
    cr_expect(strstr(err, "train tut-gd (tutorial)"), "%s", err);
    cr_expect(strstr(err, "7 steps"), "%s", err);
    cr_expect(strstr(err, "loss "), "%s", err);
    cr_expect(strstr(err, "->"), "%s", err);
    cr_expect(strstr(err, "never rose"), "GD with step 1/L on least squares descends: %s", err);
    cr_expect(strstr(err, "--csv"), "the summary does not say how to get the CSV: %s", err);
    /* with --csv: the CSV on stdout, the summary still on stderr */
    cr_assert_eq(run_split(out, sizeof out, err, sizeof err, "train tut-gd --steps 7 --csv"), 0, "%s", err);
    cr_expect(strncmp(out, "iterate,loss,grad_norm\n0,", 25) == 0, "%s", out);
    cr_expect_eq(count_lines(out), 9, "%s", out);
    cr_expect(strstr(err, "7 steps") && !strstr(err, "\n0,1"), "CSV rows on stderr: %s", err);
    /* a run whose loss rises says so */
    cr_assert_eq(run_split(out, sizeof out, err, sizeof err, "train t2-softmax --steps 20 --set eta=0.5 --set sx=2"),
                 0, "%s", err);
    cr_expect(strstr(err, "rose from one row to the next"), "a diverging run reads as descending: %s", err);
    cr_expect(strstr(err, "--set eta=0.5 --set sx=2"), "%s", err);
    /* both destinations, or either twice in the wrong order: one line, exit 2, nothing written */
    char d[] = "/tmp/lm_cli_csv_XXXXXX", args[400], csv[300];
    cr_assert_not_null(mkdtemp(d));
    snprintf(csv, sizeof csv, "%s/x.csv", d);
    static const char *const both[] = {"train tut-gd --csv --out %s", "train tut-gd --out %s --csv"};
    for (int k = 0; k < 2; k++) {
        snprintf(args, sizeof args, both[k], csv);
        int rc = run_split(out, sizeof out, err, sizeof err, args);
        cr_expect_eq(rc, 2, "'%s' exited %d: %s", args, rc, err);
        cr_expect(strstr(err, "--csv") && strchr(err, '\n') == err + strlen(err) - 1, "%s", err);
        cr_expect_str_eq(out, "");
        cr_expect_neq(access(csv, F_OK), 0, "'%s' wrote %s", args, csv);
    }
    /* --out: the file, the summary naming it, nothing on stdout */
    snprintf(args, sizeof args, "train tut-gd --steps 3 --out %s", csv);
    cr_assert_eq(run_split(out, sizeof out, err, sizeof err, args), 0, "%s", err);
    cr_expect_str_eq(out, "");
    cr_expect(strstr(err, csv), "%s", err);
    cr_expect_eq(access(csv, F_OK), 0);
    unlink(csv);
    rmdir(d);
}

/* a paper's catalogue name is the one its claims cite in \source{NAME, ...}: the name a reader
 * of the report (or of a claim file) types into `list --paper` */
Test(cli, catalogue_names_are_the_ones_the_claims_cite)
{
    int checked = 0;
    for (int k = 0; k < lm_registry_count; k++) {
        const lm_claim *c = lm_registry[k];
        const lm_paper *p = lm_paper_of_claim(c->id);
        if (!p || !p->catalogue) continue;
        FILE *f = fopen(c->file, "r");
        cr_assert_not_null(f, "%s: cannot read %s (run the tests at the top of the source tree)", c->id, c->file);
        char line[1024], want[128];
        snprintf(want, sizeof want, "\\source{%s,", p->catalogue);
        int found = 0;
        while (!found && fgets(line, sizeof line, f)) found = strstr(line, want) != NULL;
        fclose(f);
        cr_expect(found, "%s (%s) does not cite %s", c->id, c->file, want);
        checked++;
    }
    cr_expect_gt(checked, 150);
}
