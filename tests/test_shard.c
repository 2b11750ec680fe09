/* `lemmata verify --shard K/N` and `lemmata merge` (deep audits on a cluster), without Slurm:
 *   - the plan: every item in exactly one shard whatever N, balanced (no shard heavier than
 *     the lightest by more than the heaviest item), a pure function of names, weights and N;
 *   - three shards of the eight fast claims mirror/lemma1*, merged, store field by field what
 *     one verify of the same seed and budget stores; merging them again writes nothing;
 *   - every refusal of merge is one line, exit 2, and leaves the output untouched.
 * Claim files run here: lemmas/mirror/lemma12.c ... lemma19.c (as a set). */
#include "lm_schedule.h"
#include "../src/report/report_priv.h"
#include "test_support.h"
#include <criterion/criterion.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the plan ---------------------------------------------------------------------------- */

Test(shard, every_item_in_exactly_one_shard_and_balanced)
{
    enum { NI = 97 };
    char *names[NI];
    double w[NI];
    for (int k = 0; k < NI; k++) {
        names[k] = malloc(32);
        snprintf(names[k], 32, "claim p/c%02d", k);
        /* seconds spread over three decades, a few unknown (NaN: the median stands in) */
        w[k] = k % 11 == 5 ? (double)NAN : 0.05 * pow(1.09, (double)((k * 37) % NI));
    }
    double wmax = 0;
    for (int k = 0; k < NI; k++)
        if (isfinite(w[k]) && w[k] > wmax) wmax = w[k];
    for (int n = 1; n <= 12; n++) {
        int of[NI], of2[NI];
        double load[12], load2[12];
        char h[24], h2[24];
        cr_assert_eq(lm_shard_plan(names, w, NI, n, of, load, h), 0);
        cr_assert_eq(lm_shard_plan(names, w, NI, n, of2, load2, h2), 0);
        cr_expect_str_eq(h, h2, "the same plan twice");
        int count[12] = {0};
        for (int k = 0; k < NI; k++) {
            cr_assert(of[k] >= 0 && of[k] < n, "item %d in shard %d of %d", k, of[k], n);
            cr_expect_eq(of[k], of2[k]);
            count[of[k]]++;
        }
        int total = 0;
        double lo = INFINITY, hi = 0;
        for (int K = 0; K < n; K++) {
            total += count[K];
            cr_expect_gt(count[K], 0, "shard %d/%d is empty", K, n);
            lo = fmin(lo, load[K]);
            hi = fmax(hi, load[K]);
        }
        cr_expect_eq(total, NI, "every item once");
        cr_expect_leq(hi - lo, wmax * (1 + 1e-12), "N=%d: loads %g..%g differ by more than the heaviest item %g", n, lo,
                      hi, wmax);
    }
    /* the plan's name changes with N and with the weights */
    int of[NI];
    char a[24], b[24], c[24];
    lm_shard_plan(names, w, NI, 4, of, NULL, a);
    lm_shard_plan(names, w, NI, 5, of, NULL, b);
    w[0] *= 1000;
    lm_shard_plan(names, w, NI, 4, of, NULL, c);
    cr_expect_str_neq(a, b);
    cr_expect_str_neq(a, c);
    cr_expect_eq(lm_shard_plan(names, w, NI, 0, of, NULL, a), -1, "zero shards is refused");
    for (int k = 0; k < NI; k++) free(names[k]);
}

Test(shard, the_real_items_all_land_somewhere)
{
    char **names = NULL;
    int n = lm_sched_items(NULL, &names);
    int nclaims = 0;
    cr_assert_eq(n, lm_sched_count(NULL, &nclaims));
    cr_assert_gt(nclaims, 100);
    int *of = malloc((size_t)n * sizeof *of);
    char h[24];
    cr_assert_eq(lm_shard_plan(names, NULL, n, 7, of, NULL, h), 0);
    int count[7] = {0};
    for (int k = 0; k < n; k++) count[of[k]]++;
    for (int K = 0; K < 7; K++) cr_expect(count[K] == n / 7 || count[K] == n / 7 + 1, "equal weights: %d", count[K]);
    free(of);
    lm_sched_items_free(names, n);
}

/* ---- shards, merged, against one verify ------------------------------------------------ */

/* every column of table t for the newest run of db, but the ones that name the run or time
 * it, one line per row in key order */
static char *dump(const char *db, const char *t, const char *order)
{
    sqlite3 *h = NULL;
    cr_assert_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    char sql[4096] = "SELECT ";
    char q[300];
    snprintf(q, sizeof q, "SELECT name FROM pragma_table_info('%s')", t);
    sqlite3_stmt *st = NULL;
    cr_assert_eq(sqlite3_prepare_v2(h, q, -1, &st, NULL), SQLITE_OK);
    int ncol = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *c = (const char *)sqlite3_column_text(st, 0);
        if (!strcmp(c, "run_id") || !strcmp(c, "seq") || !strcmp(c, "seconds") || !strcmp(c, "saved") ||
            !strcmp(c, "reused_from"))
            continue;
        /* quote(): a REAL's exact value, a NULL as NULL */
        snprintf(sql + strlen(sql), sizeof sql - strlen(sql), "%squote(\"%s\")", ncol++ ? " || '|' || " : "", c);
    }
    sqlite3_finalize(st);
    snprintf(sql + strlen(sql), sizeof sql - strlen(sql),
             " FROM \"%s\" WHERE run_id=(SELECT MAX(id) FROM runs) ORDER BY %s", t, order);
    cr_assert_eq(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(h));
    size_t cap = 1 << 16, n = 0;
    char *out = malloc(cap);
    out[0] = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *r = (const char *)sqlite3_column_text(st, 0);
        size_t l = strlen(r);
        if (n + l + 2 >= cap) out = realloc(out, cap = 2 * (n + l + 2));
        memcpy(out + n, r, l);
        n += l;
        out[n++] = '\n';
        out[n] = 0;
    }
    sqlite3_finalize(st);
    sqlite3_close(h);
    return out;
}

static long long scalar(const char *db, const char *sql)
{
    sqlite3 *h = NULL;
    long long v = -1;
    sqlite3_stmt *st = NULL;
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return v;
}

static void exec(const char *db, const char *sql)
{
    sqlite3 *h = NULL;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    char *msg = NULL;
    cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, &msg), SQLITE_OK, "%s: %s", sql, msg ? msg : "");
    sqlite3_close(h);
}

static void copy_file(const char *from, const char *to)
{
    FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
    cr_assert(a && b);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, a)) > 0) cr_assert_eq(fwrite(buf, 1, n, b), n);
    fclose(a);
    fclose(b);
}

static long file_bytes(const char *path, unsigned long long *sum)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    long n = 0;
    unsigned long long h = 1469598103934665603ULL;
    int ch;
    while ((ch = fgetc(f)) != EOF) {
        h = (h ^ (unsigned)ch) * 1099511628211ULL;
        n++;
    }
    fclose(f);
    *sum = h;
    return n;
}

static const char *const base = "verify --quick --no-report --only mirror/lemma1 -j 1";

/* dir/name */
static const char *at(const char *dir, const char *name)
{
    static char buf[8][400];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, 400, "%s/%s", dir, name);
    return p;
}

/* merge refused: exit 2, one line mentioning needle, out untouched (or still absent) */
static void refused(const char *dir, const char *shards, const char *needle)
{
    char args[2000], out[8192];
    const char *o = at(dir, "refused.db");
    unsigned long long s0 = 0, s1 = 0;
    long n0 = file_bytes(o, &s0);
    snprintf(args, sizeof args, "merge %s %s", o, shards);
    int rc = lm_test_cli(out, sizeof out, args);
    cr_expect_eq(rc, 2, "merge %s: exit %d: %s", shards, rc, out);
    cr_expect(strstr(out, needle) != NULL, "merge %s said '%s', want '%s'", shards, out, needle);
    cr_expect(strchr(out, '\n') == out + strlen(out) - 1, "one line: %s", out);
    long n1 = file_bytes(o, &s1);
    cr_expect(n0 == n1 && s0 == s1, "%s changed by a refused merge", o);
}

Test(shard, three_shards_merged_equal_one_verify_and_every_refusal, .timeout = 600)
{
    char d[] = "/tmp/lm_shard_XXXXXX";
    cr_assert_not_null(mkdtemp(d));
    char args[2000], out[16384];
    /* one verify */
    snprintf(args, sizeof args, "%s --db %s", base, at(d, "one.db"));
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    /* three shards, balanced by the seconds of that run */
    for (int k = 0; k < 3; k++) {
        char name[32];
        snprintf(name, sizeof name, "s%d.db", k);
        snprintf(args, sizeof args, "%s --shard %d/3 --weights %s --db %s", base, k, at(d, "one.db"), at(d, name));
        cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
        cr_expect(strstr(out, "of 8 items"), "%s", out);
    }
    char shards[1200];
    snprintf(shards, sizeof shards, "%s %s/s1.db %s/s2.db", at(d, "s0.db"), d, d);
    snprintf(args, sizeof args, "merge %s %s", at(d, "m.db"), shards);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    cr_expect(strstr(out, "merged 3 shards (8 claims, 0 live runs"), "%s", out);
    /* field by field */
    static const char *const tabs[][2] = {{"claims", "claim_id"}, {"configs", "claim_id, seq"}};
    for (int t = 0; t < 2; t++) {
        char *a = dump(at(d, "one.db"), tabs[t][0], tabs[t][1]), *b = dump(at(d, "m.db"), tabs[t][0], tabs[t][1]);
        cr_expect_gt(strlen(a), 100);
        cr_expect_str_eq(a, b, "table %s differs", tabs[t][0]);
        free(a);
        free(b);
    }
    cr_expect_eq(scalar(at(d, "m.db"), "SELECT COUNT(*) FROM shards WHERE run_id=1"), 3);
    cr_expect_eq(scalar(at(d, "m.db"), "SELECT finished FROM runs WHERE id=1"), 1);
    cr_expect_eq(scalar(at(d, "m.db"), "SELECT SUM(claims) FROM shards"), 8);
    /* the report's provenance names the shards */
    lm_results R;
    char err[300];
    cr_assert_eq(lm_results_load(&R, at(d, "m.db"), -1, err, sizeof err), 0, "%s", err);
    cr_assert_eq(R.nruns, 1);
    cr_expect_eq(R.runs[0].nshards, 3);
    cr_expect(strstr(R.runs[0].shards, "shard 0/3 on ") && strstr(R.runs[0].shards, "; shard 2/3 on "), "%s",
              R.runs[0].shards);
    lm_results_free(&R);
    /* merging them again writes nothing; into a new file, the same rows */
    unsigned long long h0 = 0, h1 = 0;
    long n0 = file_bytes(at(d, "m.db"), &h0);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    cr_expect(strstr(out, "already merged"), "%s", out);
    long n1 = file_bytes(at(d, "m.db"), &h1);
    cr_expect(n0 == n1 && h0 == h1, "a second merge changed the file");
    snprintf(args, sizeof args, "merge %s %s", at(d, "m2.db"), shards);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    char *a = dump(at(d, "m.db"), "claims", "claim_id"), *b = dump(at(d, "m2.db"), "claims", "claim_id");
    cr_expect_str_eq(a, b);
    free(a);
    free(b);
    /* the shards' order on the command line does not matter */
    snprintf(args, sizeof args, "merge %s %s/s2.db %s/s0.db %s/s1.db", at(d, "m3.db"), d, d, d);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);

    /* ---- refusals ---- */
    char buf[1400];
    snprintf(buf, sizeof buf, "%s/s0.db %s/s1.db", d, d);
    refused(d, buf, "shard 2/3 is missing");
    snprintf(buf, sizeof buf, "%s/s0.db %s/s1.db %s/s1.db", d, d, d);
    refused(d, buf, "shard 1/3 is given twice");
    snprintf(buf, sizeof buf, "%s/s0.db %s/s1.db %s/s2.db %s/nosuch.db", d, d, d, d);
    refused(d, buf, "no results database");
    snprintf(buf, sizeof buf, "%s/s0.db %s/one.db", d, d);
    refused(d, buf, "is not a shard");
    FILE *e = fopen(at(d, "empty.db"), "w");
    cr_assert_not_null(e);
    fclose(e);
    snprintf(buf, sizeof buf, "%s/s0.db %s/s1.db %s/empty.db", d, d, d);
    refused(d, buf, "empty.db holds no run: not a shard");
    /* a shard of another seed, budget or plan */
    snprintf(args, sizeof args, "%s --shard 2/3 --weights %s --seed 7 --db %s", base, at(d, "one.db"), at(d, "seed7.db"));
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    snprintf(buf, sizeof buf, "%s/s0.db %s/s1.db %s/seed7.db", d, d, d);
    refused(d, buf, "shards differ in seed");
    snprintf(args, sizeof args, "%s --shard 2/3 --db %s", base, at(d, "equal.db")); /* no --weights: another plan */
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    snprintf(buf, sizeof buf, "%s/s0.db %s/s1.db %s/equal.db", d, d, d);
    refused(d, buf, "shards differ in shard plan");
    /* tampered copies: another budget, versions, commit; an item twice, missing, unknown */
    static const struct {
        const char *sql, *needle;
    } tamper[] = {
        {"UPDATE runs SET budget=9", "shards differ in budget"},
        {"UPDATE runs SET versions='gsl 0.1'", "shards differ in library versions"},
        {"UPDATE runs SET shard='2/4'", "shards differ in shard count"},
        {"DELETE FROM claims WHERE claim_id=(SELECT MIN(claim_id) FROM claims)", "is in no shard"},
        {"UPDATE claims SET claim_id='mirror/lemma1nosuch' WHERE claim_id=(SELECT MIN(claim_id) FROM claims)",
         "is not among the items"},
        {"UPDATE runs SET finished=0", "did not finish"},
    };
    for (size_t t = 0; t < sizeof tamper / sizeof *tamper; t++) {
        copy_file(at(d, "s2.db"), at(d, "bad.db"));
        exec(at(d, "bad.db"), tamper[t].sql);
        snprintf(buf, sizeof buf, "%s/s0.db %s/s1.db %s/bad.db", d, d, d);
        refused(d, buf, tamper[t].needle);
    }
    /* one claim in two shards: s0's first claim copied into s2 */
    copy_file(at(d, "s2.db"), at(d, "bad.db"));
    snprintf(args, sizeof args,
             "ATTACH '%s/s0.db' AS z; INSERT INTO claims(run_id, claim_id, verdict) SELECT (SELECT MAX(id) FROM runs), "
             "claim_id, verdict FROM z.claims LIMIT 1;",
             d);
    exec(at(d, "bad.db"), args);
    snprintf(buf, sizeof buf, "%s/s0.db %s/s1.db %s/bad.db", d, d, d);
    refused(d, buf, "is in two shards");
    /* every shard of another commit */
    for (int k = 0; k < 3; k++) {
        char name[32], from[32];
        snprintf(name, sizeof name, "c%d.db", k);
        snprintf(from, sizeof from, "s%d.db", k);
        copy_file(at(d, from), at(d, name));
        exec(at(d, name), "UPDATE runs SET commit_id='0123456789ab'");
    }
    snprintf(buf, sizeof buf, "%s/c0.db %s/c1.db %s/c2.db", d, d, d);
    refused(d, buf, "were made by commit 0123456789ab");
    /* a damaged shard */
    copy_file(at(d, "s2.db"), at(d, "bad.db"));
    FILE *f = fopen(at(d, "bad.db"), "r+b");
    cr_assert_not_null(f);
    fseek(f, 0, SEEK_SET);
    fputs("this is no database at all, just some text in its place", f);
    fclose(f);
    snprintf(buf, sizeof buf, "%s/s0.db %s/s1.db %s/bad.db", d, d, d);
    refused(d, buf, "bad.db");
    /* usage */
    refused(d, "", "at least one shard");
    snprintf(buf, sizeof buf, "%s/s0.db --frob", d);
    refused(d, buf, "unknown option");
    cr_assert_eq(lm_test_rmtree(d), 0);
}

Test(shard, bad_shard_options_are_one_line_errors)
{
    static const char *const bad[] = {"--shard 3/3", "--shard -1/3", "--shard 1/0", "--shard 1", "--shard a/b",
                                      "--shard 1/3x", "--shard 0/10001", "--shard", "--weights x.db",
                                      "--shard 0/2 --weights /nonexistent/x.db"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        char args[400], out[4096];
        snprintf(args, sizeof args, "verify --quick --no-report --only tutorial/ --db /tmp/lm_shard_never.db %s", bad[k]);
        int rc = lm_test_cli(out, sizeof out, args);
        cr_expect_eq(rc, 2, "%s: exit %d: %s", bad[k], rc, out);
        cr_expect(strchr(out, '\n') == out + strlen(out) - 1, "%s: one line: %s", bad[k], out);
    }
    struct stat sb;
    cr_expect(stat("/tmp/lm_shard_never.db", &sb) != 0, "a refused verify created its database");
}

Test(shard, the_reference_costs_cover_the_claims)
{
    int known = 0;
    for (int k = 0; k < lm_registry_count; k++) {
        double c = lm_claim_cost(lm_registry[k]->id);
        if (isnan(c)) continue;
        cr_expect(c >= 0 && c < 1e5, "%s: %g s", lm_registry[k]->id, c);
        known++;
    }
    /* data/costs.tsv is regenerated now and then (tools/gen_costs.sh): a claim added since
     * falls back to its measured time, but most must be there */
    cr_expect_geq(known, lm_registry_count * 9 / 10, "%d of %d claims have a reference cost", known,
                  lm_registry_count);
    cr_expect(isnan(lm_claim_cost("nosuch/claim")));
    cr_expect(isnan(lm_item_cost(NULL)));
}
