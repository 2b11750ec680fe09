/* `make verify BUDGET=... SEEDS=...` (tools/verify-ladder.sh): one run per budget and seed,
 * budgets ascending, into one database, then one weave into the same place; bad lists are
 * one-line errors that run nothing.  On tutorial/ (four claims of a few milliseconds). */
#include "test_support.h"
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* runs the ladder script with the binary under test; output in out, exit status returned */
static int ladder(char *out, size_t cap, const char *budgets, const char *seeds, const char *rest)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "sh tools/verify-ladder.sh %s '%s' '%s' %s 2>&1", lm_test_bin(), budgets, seeds, rest);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

Test(ladder, one_run_per_budget_and_seed_ascending_then_one_weave, .timeout = 300)
{
    char d[] = "/tmp/lm_ladder_XXXXXX";
    cr_assert_not_null(mkdtemp(d));
    char rest[600], out[65536], db[400];
    snprintf(db, sizeof db, "%s/results/lemmata.db", d);
    snprintf(rest, sizeof rest, "--only tutorial/ --no-mutants --db %s --out-dir %s", db, d);
    int rc = ladder(out, sizeof out, "32,8", "1..2", rest);
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "search depth: run 4 of 4 (budget 32, seed 2)"), "%s", out);
    sqlite3 *h = NULL;
    cr_assert_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    cr_assert_eq(sqlite3_prepare_v2(h, "SELECT budget, seed, finished FROM runs ORDER BY id", -1, &st, NULL), SQLITE_OK);
    static const int want_b[] = {8, 8, 32, 32};
    static const char *const want_s[] = {"1", "2", "1", "2"};
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        cr_assert_lt(n, 4);
        cr_expect_eq(sqlite3_column_int(st, 0), want_b[n], "run %d", n + 1);
        cr_expect_str_eq((const char *)sqlite3_column_text(st, 1), want_s[n], "run %d", n + 1);
        cr_expect_eq(sqlite3_column_int(st, 2), 1);
        n++;
    }
    cr_expect_eq(n, 4);
    sqlite3_finalize(st);
    sqlite3_close(h);
    char pdf[500];
    snprintf(pdf, sizeof pdf, "%s/report/lemmata.pdf", d);
    struct stat sb;
    cr_expect(stat(pdf, &sb) == 0 && sb.st_size > 1000, "the weave went where the runs wrote: %s", pdf);
    cr_assert_eq(lm_test_rmtree(d), 0);
}

Test(ladder, bad_lists_run_nothing)
{
    static const char *const bad[][2] = {{"0", ""},     {"8,,16", ""}, {"abc", ""},  {"8,", ""},
                                         {"", "3..1"}, {"", "x"},     {"", "1..5000"}, {"100001", ""}};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        char out[4096];
        int rc = ladder(out, sizeof out, bad[k][0], bad[k][1], "--only tutorial/ --db /tmp/lm_ladder_never.db");
        cr_expect_eq(rc, 2, "'%s' '%s': exit %d: %s", bad[k][0], bad[k][1], rc, out);
        cr_expect(strchr(out, '\n') == out + strlen(out) - 1, "one line: %s", out);
    }
    char out[4096];
    cr_expect_eq(ladder(out, sizeof out, "", "1..2", "--seed 3 --only tutorial/ --db /tmp/lm_ladder_never.db"), 2,
                 "%s", out);
    struct stat sb;
    cr_expect(stat("/tmp/lm_ladder_never.db", &sb) != 0, "a refused ladder created its database");
}
