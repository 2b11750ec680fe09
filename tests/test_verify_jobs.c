/* `lemmata verify -j N` and incremental verify (issue 8, parts 5 and 6), on the eight
 * fast claims mirror/lemma12..19 (--only mirror/lemma1, no report):
 *   - two workers store exactly what one worker stores (verdicts, ratios, measures, series,
 *     per-instance ratios), whatever order they finish in;
 *   - a second run with nothing changed re-runs nothing and stores the same rows, marked as
 *     reused from the first run; --force re-runs everything; another seed re-runs everything;
 *   - bad -j / --only values are one-line errors.
 * Claim files checked here: lemmas/mirror/lemma12.c ... lemma19.c (as a set). */
#include "test_support.h"
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

/* every stored field of run `run` that must not depend on scheduling, as one string */
static char *rows(const char *db, int run)
{
    sqlite3 *h = NULL;
    cr_assert_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    cr_assert_eq(sqlite3_prepare_v2(h,
                                    "SELECT c.claim_id, c.verdict, c.worst_ratio, c.instances, g.config, g.verdict, "
                                    "g.worst_ratio, g.observations, g.breaks_double, g.confirmed, g.near_misses, "
                                    "g.worst_where, g.measures, g.series, g.ratios FROM claims c JOIN configs g "
                                    "ON g.run_id=c.run_id AND g.claim_id=c.claim_id WHERE c.run_id=?1 "
                                    "ORDER BY c.claim_id, g.seq",
                                    -1, &st, NULL),
                 SQLITE_OK, "%s", sqlite3_errmsg(h));
    sqlite3_bind_int(st, 1, run);
    size_t cap = 1 << 20, n = 0;
    char *out = malloc(cap);
    out[0] = 0;
    int nrow = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        nrow++;
        for (int i = 0; i < 15; i++) {
            const char *t = (const char *)sqlite3_column_text(st, i);
            size_t l = t ? strlen(t) : 4;
            if (n + l + 2 >= cap) {
                cap = 2 * (n + l + 2);
                out = realloc(out, cap);
            }
            memcpy(out + n, t ? t : "NULL", l);
            n += l;
            out[n++] = i == 14 ? '\n' : '|';
            out[n] = 0;
        }
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
    cr_assert_gt(nrow, 2, "run %d of %s has %d configuration rows", run, db, nrow);
    return out;
}

/* COUNT(*) of the claims of run `run` matching `cond` (an SQL condition); -1 when the database
 * cannot be read yet */
static int count_claims(const char *db, int run, const char *cond)
{
    sqlite3 *h = NULL;
    int n = -1;
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
        sqlite3_busy_timeout(h, 2000); /* a verify may be writing it */
        char sql[300];
        snprintf(sql, sizeof sql, "SELECT COUNT(*) FROM claims WHERE run_id=?1 AND %s", cond);
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_bind_int(st, 1, run) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
            n = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(h);
    return n;
}

Test(verify_jobs, two_workers_store_what_one_stores_and_unchanged_claims_are_reused, .timeout = 300)
{
    char d[] = "/tmp/lm_jobs_XXXXXX";
    cr_assert_not_null(mkdtemp(d));
    char db1[300], db2[300], args[800], out[16384];
    snprintf(db1, sizeof db1, "%s/j1.db", d);
    snprintf(db2, sizeof db2, "%s/j2.db", d);
    const char *base = "verify --quick --no-report --only mirror/lemma1";
    snprintf(args, sizeof args, "%s -j 1 --db %s", base, db1);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    cr_assert(strstr(out, "8 items run, 0 unchanged"), "%s", out);
    snprintf(args, sizeof args, "%s -j 2 --db %s", base, db2);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    cr_assert(strstr(out, "on 2 workers"), "%s", out);
    char *a = rows(db1, 1), *b = rows(db2, 1);
    cr_assert_str_eq(a, b);
    /* nothing changed: nothing re-runs, the same rows are stored, marked as reused */
    snprintf(args, sizeof args, "%s -j 2 --db %s", base, db2);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    cr_assert(strstr(out, "0 items run, 8 unchanged and reused"), "%s", out);
    char *c = rows(db2, 2);
    cr_assert_str_eq(a, c);
    cr_assert_eq(count_claims(db2, 2, "reused_from IS NOT NULL"), 8);
    /* --force re-runs; so does another seed */
    snprintf(args, sizeof args, "%s -j 2 --force --db %s", base, db2);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    cr_assert(strstr(out, "8 items run, 0 unchanged"), "%s", out);
    cr_assert_eq(count_claims(db2, 3, "reused_from IS NOT NULL"), 0);
    snprintf(args, sizeof args, "%s -j 2 --seed 7 --db %s", base, db2);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    cr_assert(strstr(out, "8 items run, 0 unchanged"), "%s", out);
    free(a);
    free(b);
    free(c);
    cr_assert_eq(lm_test_rmtree(d), 0);
}

Test(verify_jobs, bad_values_are_one_line_errors)
{
    char out[4096];
    cr_assert_eq(lm_test_cli(out, sizeof out, "verify --no-report -j 0 --db /tmp/lm_never.db"), 2, "%s", out);
    cr_assert(strstr(out, "-j needs a number of worker processes"), "%s", out);
    cr_assert_eq(lm_test_cli(out, sizeof out, "verify --no-report -j many"), 2, "%s", out);
    cr_assert_eq(lm_test_cli(out, sizeof out, "verify --no-report --only nosuch/ --db /tmp/lm_never.db"), 2, "%s", out);
    cr_assert(strstr(out, "no claim id starts with 'nosuch/'"), "%s", out);
    cr_assert_eq(access("/tmp/lm_never.db", F_OK), -1, "a rejected command must not create a database");
}

/* issue 15, item 18: -j 1 and -j 2 disagreed on worst ratios (precond/lemma1.1 0.00507 vs
 * 0.00659) because workers forced one OpenBLAS thread and -j 1 did not.  Every command now runs
 * one BLAS thread: the stored rows of -j 1 and -j 2 are identical field by field, and `check`
 * prints the same worst ratios (17 significant digits) as the database holds. */
Test(verify_jobs, same_numbers_on_any_number_of_jobs_and_in_check, .timeout = 300)
{
    char d[] = "/tmp/lm_det_XXXXXX";
    cr_assert_not_null(mkdtemp(d));
    char db1[300], db2[300], args[800], out[65536];
    snprintf(db1, sizeof db1, "%s/j1.db", d);
    snprintf(db2, sizeof db2, "%s/j2.db", d);
    const char *base = "verify --quick --no-report --only precond/lemma1.";
    snprintf(args, sizeof args, "%s -j 1 --db %s", base, db1);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    snprintf(args, sizeof args, "%s -j 2 --db %s", base, db2);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    char *a = rows(db1, 1), *b = rows(db2, 1);
    cr_assert_str_eq(a, b);
    /* check of the same claims: the worst ratio of each configuration, as stored */
    cr_assert_eq(lm_test_cli(out, sizeof out, "check precond/lemma1.1 precond/lemma1.2 --quick --json"), 0,
                 "%s", out);
    sqlite3 *h = NULL;
    cr_assert_eq(sqlite3_open_v2(db1, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    cr_assert_eq(sqlite3_prepare_v2(h, "SELECT claim_id, config, worst_ratio FROM configs WHERE run_id=1",
                                    -1, &st, NULL), SQLITE_OK);
    int n = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        double w = sqlite3_column_double(st, 2);
        if (sqlite3_column_type(st, 2) == SQLITE_NULL) continue;
        char idn[200], needle[400];
        snprintf(idn, sizeof idn, "{\"id\":\"%s\"", (const char *)sqlite3_column_text(st, 0));
        snprintf(needle, sizeof needle, "\"config\":\"%s\",\"verdict\":", (const char *)sqlite3_column_text(st, 1));
        const char *p = strstr(out, idn);
        cr_assert_not_null(p, "no %s in %s", idn, out);
        p = strstr(p, needle);
        cr_assert_not_null(p, "no %s in %s", needle, out);
        p = strstr(p, "\"worst_ratio\":");
        cr_assert_not_null(p);
        double v = strtod(p + 14, NULL);
        cr_assert(v == w, "%s %s: check says %.17g, verify stored %.17g", sqlite3_column_text(st, 0),
                  sqlite3_column_text(st, 1), v, w);
        n++;
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
    cr_assert_gt(n, 1);
    free(a);
    free(b);
    cr_assert_eq(lm_test_rmtree(d), 0);
}

/* issue 15: kill -9 in the middle of a verify, then verify again: it resumes the same run and
 * ends with exactly the rows of an uninterrupted run (the claims saved before the kill are not
 * redone, the others are run). */
Test(verify_jobs, killed_run_resumes_to_the_uninterrupted_result, .timeout = 300)
{
    char d[] = "/tmp/lm_kill_XXXXXX";
    cr_assert_not_null(mkdtemp(d));
    char db1[300], db2[300], args[800], out[16384];
    snprintf(db1, sizeof db1, "%s/whole.db", d);
    snprintf(db2, sizeof db2, "%s/killed.db", d);
    const char *base = "verify --quick --no-report --only mirror/lemma1 -j 1";
    snprintf(args, sizeof args, "%s --db %s", base, db1);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    for (int attempt = 0; attempt < 2; attempt++) {
        pid_t p = fork();
        cr_assert_neq(p, -1);
        if (p == 0) {
            if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) _exit(99);
            execl(lm_test_bin(), lm_test_bin(), "verify", "--quick", "--no-report", "--only", "mirror/lemma1",
                  "-j", "1", "--db", db2, (char *)NULL);
            _exit(98);
        }
        /* kill it once some claims (not all eight) are saved */
        int have = 0;
        for (int t = 0; t < 6000 && (have = count_claims(db2, 1, "1")) < 2 + 3 * attempt; t++) usleep(10000);
        kill(p, SIGKILL);
        int st;
        waitpid(p, &st, 0);
        cr_assert(WIFSIGNALED(st) || have >= 8, "the run ended before it could be killed");
    }
    snprintf(args, sizeof args, "%s --db %s", base, db2);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    cr_assert(strstr(out, "resuming run 1"), "%s", out);
    char *a = rows(db1, 1), *b = rows(db2, 1);
    cr_assert_str_eq(a, b);
    free(a);
    free(b);
    cr_assert_eq(lm_test_rmtree(d), 0);
}
