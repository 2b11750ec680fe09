/* test_store.c -- results database: round trip, resume, has_claim, counts. */
#include "test_support.h"
#include <criterion/criterion.h>

#include "../src/report/report_priv.h"
#include "lm_store.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

static const lm_param_def fake_params[] = {
    {.name = "alpha_scale", .def = 1.5, .doc = "multiplies the paper's alpha"},
    {.name = "kernel", .def = 1, .doc = "attention kernel", .choices = "softmax|gaussian"},
    {.name = NULL}};

static const lm_claim fake_claim = {
    .id = "fake/lemma_1",
    .title = "A fake lemma with 'quotes' & 100% specials",
    .file = "lemmas/fake/lemma_1.c",
    .kind = LM_KIND_TRAJECTORY,
    .source = "Fake paper, Lemma 1",
    .origin = "reconstructed",
    .confidence = "low",
    .params = fake_params,
};

static const lm_claim other_claim = {
    .id = "fake/theorem_2",
    .title = "Another fake",
    .file = NULL, /* NULL strings must be stored as NULL */
    .kind = LM_KIND_RATE,
    .proxy = 1,
};

static char dir[64];

static void mkdir_tmp(void)
{
    snprintf(dir, sizeof dir, "/tmp/lm_store_XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void rm_tmp(void)
{
    lm_test_rmtree(dir);
}

TestSuite(store, .init = mkdir_tmp, .fini = rm_tmp);

static void dbpath(char *buf, size_t n)
{
    snprintf(buf, n, "%s/results.db", dir);
}

static lm_run_meta meta(uint64_t seed)
{
    lm_run_meta m;
    memset(&m, 0, sizeof m);
    snprintf(m.commit, sizeof m.commit, "abc123def456");
    snprintf(m.date, sizeof m.date, "2024-01-02 03:04:05 UTC");
    m.seed = seed;
    snprintf(m.versions, sizeof m.versions, "MPFR 4.2.0, SQLite 3");
    m.prec = 0;
    m.budget = 64;
    m.quick = 0;
    return m;
}

/* two configurations: one violated with everything filled, one with NaN/NULLs */
static void fabricate(lm_claim_result *r, const lm_claim *c)
{
    memset(r, 0, sizeof *r);
    r->claim = c;
    r->verdict = LM_V_VIOLATED;
    r->worst_ratio = 1.25;
    r->instances = 72;
    snprintf(r->precisions, sizeof r->precisions, "double,mpfr256");
    r->seconds = 0.5;
    snprintf(r->reproduce, sizeof r->reproduce,
             "bin/lemmata check %s --seed 1 --config softmax --instance 3", c->id);
    r->nconfig = 2;
    r->cfg = calloc(2, sizeof *r->cfg);
    cr_assert_not_null(r->cfg);
    lm_config_result *g = &r->cfg[0];
    snprintf(g->config, sizeof g->config, "softmax");
    g->verdict = LM_V_VIOLATED;
    g->instances = 36;
    g->observations = 1234;
    g->assumption_failed = 2;
    g->errors = 1;
    g->breaks_double = 3;
    g->confirmed = 2;
    g->artifacts = 1;
    g->near_misses = 4;
    g->worst_ratio = 1.25;
    snprintf(g->worst_where, sizeof g->worst_where, "t=17: loss <= (1-eta*alpha)^t f0");
    g->worst_index = 3;
    snprintf(g->reproduce, sizeof g->reproduce, "%s", r->reproduce);
    snprintf(g->precisions, sizeof g->precisions, "double,mpfr256");
    g->seconds = 0.25;
    snprintf(g->detail, sizeof g->detail, "2 instances had B0 rank-deficient");
    g->measures = strdup("alpha=0.0123\neta=0.5\n");
    g->series = strdup("loss\t0\t1\nloss\t1\t0.5\nbound\t0\t1\nbound\t1\t0.6\n");
    g->ratios = strdup("-0.5\n0.0969\n-1.2\n");
    snprintf(g->axes, sizeof g->axes, "iteration t\tloss\t1");
    g = &r->cfg[1];
    snprintf(g->config, sizeof g->config, "gaussian");
    g->verdict = LM_V_ASSUMPTION_FAILED;
    g->worst_ratio = NAN;
    g->worst_index = -1;
    g->seconds = 0.25;
}

static void unfabricate(lm_claim_result *r)
{
    for (int k = 0; k < r->nconfig; k++) {
        free(r->cfg[k].measures);
        free(r->cfg[k].series);
        free(r->cfg[k].ratios);
    }
    free(r->cfg);
}

static void str_eq(const char *a, const char *b)
{
    if (!a || !b) cr_assert(a == b, "expected both NULL: %s vs %s", a ? a : "NULL", b ? b : "NULL");
    else cr_assert_str_eq(a, b);
}

Test(store, round_trip)
{
    char db[128], err[256] = "";
    dbpath(db, sizeof db);
    lm_store *s = lm_store_open(db, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    lm_run_meta m = meta(18446744073709551557ull); /* > 2^63: stored as text */
    int resumed = -1;
    long long run = lm_store_begin_run(s, &m, &resumed);
    cr_assert_gt(run, 0);
    cr_assert_eq(resumed, 0);
    lm_claim_result r;
    fabricate(&r, &fake_claim);
    cr_assert_eq(lm_store_save_claim(s, run, &r), 0);
    lm_claim_result r2;
    fabricate(&r2, &other_claim);
    r2.verdict = LM_V_CONSISTENT;
    r2.nconfig = 1; /* keep cfg[1] allocated for unfabricate */
    cr_assert_eq(lm_store_save_claim(s, run, &r2), 0);
    cr_assert_eq(lm_store_finish_run(s, run, 12.5), 0);
    lm_store_close(s);

    lm_results R;
    cr_assert_eq(lm_results_load(&R, db, run, err, sizeof err), 0, "%s", err);
    cr_assert_eq(R.id, run);
    cr_assert_str_eq(R.meta.commit, m.commit);
    cr_assert_str_eq(R.meta.date, m.date);
    cr_assert_eq(R.meta.seed, m.seed);
    cr_assert_str_eq(R.meta.versions, m.versions);
    cr_assert_eq(R.meta.budget, 64);
    cr_assert_eq(R.finished, 1);
    cr_assert_float_eq(R.seconds, 12.5, 1e-12);
    cr_assert_eq(R.nclaims, 2);
    /* natural order: lemma_1 before theorem_2 */
    const lm_results_claim *c = &R.claims[0];
    cr_assert_str_eq(c->claim.id, "fake/lemma_1");
    cr_assert_eq(c->res.claim, &c->claim);
    str_eq(c->claim.title, fake_claim.title);
    str_eq(c->claim.file, fake_claim.file);
    str_eq(c->claim.source, fake_claim.source);
    str_eq(c->claim.origin, "reconstructed");
    str_eq(c->claim.confidence, "low");
    cr_assert_eq(c->claim.kind, LM_KIND_TRAJECTORY);
    cr_assert_not_null(strstr(c->params, "alpha_scale\t1.5\t\tmultiplies"));
    cr_assert_not_null(strstr(c->params, "kernel\t1\tsoftmax|gaussian\tattention kernel"));
    cr_assert_eq(c->res.verdict, LM_V_VIOLATED);
    cr_assert_float_eq(c->res.worst_ratio, 1.25, 0);
    cr_assert_eq(c->res.instances, 72);
    cr_assert_str_eq(c->res.precisions, "double,mpfr256");
    cr_assert_str_eq(c->res.reproduce, r.reproduce);
    cr_assert_eq(c->res.nconfig, 2);
    for (int k = 0; k < 2; k++) {
        const lm_config_result *a = &r.cfg[k], *b = &c->res.cfg[k];
        cr_assert_str_eq(b->config, a->config);
        cr_assert_eq(b->verdict, a->verdict);
        if (isnan(a->worst_ratio)) cr_assert(isnan(b->worst_ratio));
        else cr_assert_float_eq(b->worst_ratio, a->worst_ratio, 0);
        cr_assert_eq(b->instances, a->instances);
        cr_assert_eq(b->observations, a->observations);
        cr_assert_eq(b->assumption_failed, a->assumption_failed);
        cr_assert_eq(b->errors, a->errors);
        cr_assert_eq(b->breaks_double, a->breaks_double);
        cr_assert_eq(b->confirmed, a->confirmed);
        cr_assert_eq(b->artifacts, a->artifacts);
        cr_assert_eq(b->near_misses, a->near_misses);
        cr_assert_str_eq(b->worst_where, a->worst_where);
        cr_assert_eq(b->worst_index, a->worst_index);
        cr_assert_str_eq(b->reproduce, a->reproduce);
        cr_assert_str_eq(b->precisions, a->precisions);
        cr_assert_float_eq(b->seconds, a->seconds, 0);
        cr_assert_str_eq(b->detail, a->detail);
        str_eq(b->measures, a->measures);
        str_eq(b->series, a->series);
        str_eq(b->ratios, a->ratios);
        cr_assert_str_eq(b->axes, a->axes);
    }
    c = &R.claims[1];
    cr_assert_str_eq(c->claim.id, "fake/theorem_2");
    cr_assert_null(c->claim.file);
    cr_assert_null(c->claim.origin);
    cr_assert_eq(c->claim.proxy, 1);
    cr_assert_eq(c->claim.kind, LM_KIND_RATE);
    cr_assert_eq(c->res.verdict, LM_V_CONSISTENT);
    cr_assert_eq(c->res.nconfig, 1);
    lm_results_free(&R);
    r2.nconfig = 2;
    unfabricate(&r);
    unfabricate(&r2);
}

Test(store, resume_semantics)
{
    char db[128], err[256] = "";
    dbpath(db, sizeof db);
    lm_store *s = lm_store_open(db, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    cr_assert_eq(lm_store_latest_run(s), -1);
    lm_run_meta m = meta(7);
    int resumed = -1;
    long long a = lm_store_begin_run(s, &m, &resumed);
    cr_assert_gt(a, 0);
    cr_assert_eq(resumed, 0);
    /* the same parameters without finish: the same run, resumed */
    long long b = lm_store_begin_run(s, &m, &resumed);
    cr_assert_eq(b, a);
    cr_assert_eq(resumed, 1);
    /* the same after closing and reopening (a killed process) */
    lm_store_close(s);
    s = lm_store_open(db, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    b = lm_store_begin_run(s, &m, &resumed);
    cr_assert_eq(b, a);
    cr_assert_eq(resumed, 1);
    /* a different seed, budget, precision, quick flag or commit: a new run */
    lm_run_meta m2 = m;
    m2.seed = 8;
    long long c = lm_store_begin_run(s, &m2, &resumed);
    cr_assert_neq(c, a);
    cr_assert_eq(resumed, 0);
    m2 = m;
    m2.budget = 8;
    m2.quick = 1;
    cr_assert_neq(lm_store_begin_run(s, &m2, &resumed), a);
    m2 = m;
    m2.prec = 256;
    cr_assert_neq(lm_store_begin_run(s, &m2, &resumed), a);
    m2 = m;
    snprintf(m2.commit, sizeof m2.commit, "other");
    cr_assert_neq(lm_store_begin_run(s, &m2, &resumed), a);
    /* none finished: latest is the newest at all */
    long long newest = lm_store_latest_run(s);
    cr_assert_gt(newest, c);
    /* after finish: a new run, and the finished one is the latest */
    cr_assert_eq(lm_store_finish_run(s, a, 3.0), 0);
    long long d = lm_store_begin_run(s, &m, &resumed);
    cr_assert_gt(d, newest);
    cr_assert_eq(resumed, 0);
    cr_assert_eq(lm_store_latest_run(s), a);
    cr_assert_neq(lm_store_finish_run(s, 9999, 1.0), 0);
    lm_store_close(s);
}

Test(store, has_claim_and_counts)
{
    char db[128], err[256] = "";
    dbpath(db, sizeof db);
    lm_store *s = lm_store_open(db, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    lm_run_meta m = meta(1);
    long long run = lm_store_begin_run(s, &m, NULL);
    cr_assert_gt(run, 0);
    cr_assert_eq(lm_store_has_claim(s, run, "fake/lemma_1"), 0);
    lm_claim_result r;
    fabricate(&r, &fake_claim);
    cr_assert_eq(lm_store_save_claim(s, run, &r), 0);
    cr_assert_eq(lm_store_has_claim(s, run, "fake/lemma_1"), 1);
    cr_assert_eq(lm_store_has_claim(s, run, "fake/theorem_2"), 0);
    cr_assert_eq(lm_store_has_claim(s, run + 1, "fake/lemma_1"), 0);
    /* saving again replaces the claim (no duplicated configurations) */
    r.verdict = LM_V_HOLDS;
    r.nconfig = 1;
    cr_assert_eq(lm_store_save_claim(s, run, &r), 0);
    r.nconfig = 2;
    lm_claim_result r2;
    fabricate(&r2, &other_claim);
    r2.verdict = LM_V_HOLDS;
    cr_assert_eq(lm_store_save_claim(s, run, &r2), 0);
    long counts[LM_V_COUNT];
    cr_assert_eq(lm_store_verdict_counts(s, run, counts), 0);
    cr_assert_eq(counts[LM_V_HOLDS], 2);
    cr_assert_eq(counts[LM_V_VIOLATED], 0);
    lm_store_close(s);
    lm_results R;
    cr_assert_eq(lm_results_load(&R, db, run, err, sizeof err), 0, "%s", err);
    cr_assert_eq(R.nclaims, 2);
    cr_assert_eq(R.claims[0].res.nconfig, 1);
    cr_assert_eq(R.finished, 0);
    lm_results_free(&R);
    unfabricate(&r);
    unfabricate(&r2);
}

Test(store, rejects_bad_input)
{
    char db[128], err[256] = "";
    dbpath(db, sizeof db);
    FILE *f = fopen(db, "w");
    cr_assert_not_null(f);
    fputs("this is not a database, just some text that is long enough to have a header\n", f);
    fclose(f);
    cr_assert_null(lm_store_open(db, err, sizeof err));
    cr_assert_not_null(strstr(err, db), "%s", err);
    cr_assert_not_null(strstr(err, "not an SQLite database"), "%s", err);
    unlink(db);
    lm_store *s = lm_store_open(db, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    long long run = lm_store_begin_run(s, &(lm_run_meta){.commit = "x"}, NULL);
    lm_claim_result r;
    memset(&r, 0, sizeof r);
    cr_assert_neq(lm_store_save_claim(s, run, &r), 0); /* no claim */
    lm_store_close(s);
    /* the report's reader: a missing database and a missing run */
    char missing[160];
    snprintf(missing, sizeof missing, "%s/none.db", dir);
    lm_results R;
    cr_assert_neq(lm_results_load(&R, missing, -1, err, sizeof err), 0);
    cr_assert_not_null(strstr(err, "none.db"), "%s", err);
    cr_assert_neq(lm_results_load(&R, db, 4242, err, sizeof err), 0);
    cr_assert_not_null(strstr(err, "no run 4242"), "%s", err);
    /* `report --run N` asks the store first: run 1 is there, 4242 is not, a missing file is
     * an error too, and nothing is created */
    cr_assert_eq(lm_store_check_run(db, run, err, sizeof err), 0, "%s", err);
    cr_assert_neq(lm_store_check_run(db, 4242, err, sizeof err), 0);
    cr_assert_not_null(strstr(err, "no run 4242"), "%s", err);
    cr_assert_not_null(strstr(err, "it holds run 1 only"), "%s", err);
    cr_assert_null(strchr(err, '\n'));
    cr_assert_neq(lm_store_check_run(missing, 1, err, sizeof err), 0);
    cr_assert_neq(access(missing, F_OK), 0);
}

Test(store, natural_order)
{
    cr_assert_lt(lm_natural_cmp("p/theorem2", "p/theorem10"), 0);
    cr_assert_gt(lm_natural_cmp("p/lemma10", "p/lemma9"), 0);
    cr_assert_eq(lm_natural_cmp("a/b", "a/b"), 0);
    cr_assert_lt(lm_natural_cmp("a", "a1"), 0);
}
