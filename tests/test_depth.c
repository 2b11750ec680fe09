/* test_depth.c -- search saturation on a paper's summary page (src/report/depth.c).
 *
 *   planted:  runs of one commit at budgets 8 (quick), 32 and 128, two seeds each, written
 *             through the store: a claim whose verdict flips from holds to violated at 128 (the
 *             seeds disagreeing there), one whose ratio keeps rising, one that fails without a
 *             ratio at the deepest budget (+inf, at the top of the axis), a flat one, one with
 *             no ratio at all, one run at one budget only, a hostile id; runs of another commit
 *             and an unfinished run that must not count; a second paper searched at one budget.
 *   one budget: the one-sentence form, no figure.
 *   a real ladder: `verify --only tutorial/` at budgets 8, 32 and 128, then a whole weave. */
#include "test_support.h"
#include <criterion/criterion.h>

#include "../src/report/depth.h"
#include "../src/report/report_priv.h"
#include "lm_report.h"
#include "lm_store.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char root[64];

static void mkroot(void)
{
    snprintf(root, sizeof root, "/tmp/lm_depth_XXXXXX");
    cr_assert_not_null(mkdtemp(root));
    char fig[128];
    snprintf(fig, sizeof fig, "%s/figures", root);
    cr_assert_eq(mkdir(fig, 0777), 0);
}

static void rmroot(void)
{
    lm_test_rmtree(root);
}

TestSuite(depth, .init = mkroot, .fini = rmroot);

static char *read_rel(const char *rel)
{
    return lm_test_read_under(root, rel);
}

static int exists_rel(const char *rel)
{
    char path[256];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", root, rel);
    return stat(path, &sb) == 0;
}

static void has(const char *text, const char *want)
{
    cr_assert_not_null(strstr(text, want), "missing: %s\n--- in:\n%s", want, text);
}

static void lacks(const char *text, const char *bad)
{
    cr_assert_null(strstr(text, bad), "should not be there: %s\n--- in:\n%s", bad, text);
}

/* ---- writing runs ----------------------------------------------------------------------- */

typedef struct {
    const char *id;
    lm_verdict v;
    double worst; /* NaN: stored as NULL */
    long instances;
} row;

/* one run of `commit` holding rows[0..n), finished or not */
static void save_run(const char *db, const char *commit, uint64_t seed, int budget, int quick, int finished,
                     const row *rows, int n)
{
    char err[256] = "";
    lm_store *s = lm_store_open(db, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    lm_run_meta m;
    memset(&m, 0, sizeof m);
    snprintf(m.commit, sizeof m.commit, "%s", commit);
    m.seed = seed;
    m.budget = budget;
    m.quick = quick;
    long long run = lm_store_begin_run(s, &m, NULL);
    cr_assert_gt(run, 0);
    for (int k = 0; k < n; k++) {
        lm_claim c = {.id = rows[k].id, .title = "planted", .file = "", .kind = LM_KIND_POINTWISE,
                      .source = "test", .origin = "verbatim", .confidence = "high"};
        lm_config_result cfg;
        memset(&cfg, 0, sizeof cfg);
        snprintf(cfg.config, sizeof cfg.config, "default");
        cfg.verdict = rows[k].v;
        cfg.instances = rows[k].instances;
        cfg.worst_ratio = rows[k].worst;
        cfg.worst_index = -1;
        cfg.ratios = "";
        lm_claim_result r;
        memset(&r, 0, sizeof r);
        r.claim = &c;
        r.verdict = rows[k].v;
        r.repaired_verdict = r.probe_verdict = -1;
        r.worst_ratio = rows[k].worst;
        r.instances = rows[k].instances;
        r.nconfig = 1;
        r.cfg = &cfg;
        cr_assert_eq(lm_store_save_claim(s, run, &r), 0);
    }
    if (finished) cr_assert_eq(lm_store_finish_run(s, run, 1.0), 0);
    lm_store_close(s);
}

/* what the weave does up to the summary page: the results, one doc per claim (sorted by id,
 * so by paper), rp_depth_prepare */
typedef struct {
    lm_results R;
    rp_doc *docs;
    lm_figure fig[8];
    int nfig;
    rp_depth *D;
} woven;

static void prepare(woven *W, const char *db)
{
    char err[512] = "";
    memset(W, 0, sizeof *W);
    cr_assert_eq(lm_results_load(&W->R, db, -1, err, sizeof err), 0, "%s", err);
    W->docs = calloc((size_t)W->R.nclaims, sizeof *W->docs);
    cr_assert_not_null(W->docs);
    for (int k = 0; k < W->R.nclaims; k++) {
        W->docs[k].c = &W->R.claims[k];
        const char *id = W->R.claims[k].claim.id, *slash = strchr(id, '/');
        snprintf(W->docs[k].paper, sizeof W->docs[k].paper, "%.*s", (int)(slash - id), id);
    }
    W->D = rp_depth_prepare(root, db, &W->R, W->docs, W->R.nclaims, W->fig, &W->nfig, 8, err, sizeof err);
    cr_assert_not_null(W->D, "%s", err);
}

/* the paragraph of the paper whose claims are docs[first..first+count) */
static char *paragraph(const woven *W, int first, int count)
{
    rp_writer w;
    memset(&w, 0, sizeof w);
    lm_tbuf_init(&w.b);
    rp_depth_put_paper(&w, W->D, W->docs, first, count);
    cr_assert(!w.b.oom);
    return lm_tbuf_take(&w.b);
}

static void release(woven *W)
{
    rp_depth_free(W->D);
    free(W->docs);
    lm_results_free(&W->R);
}

static int index_of(const woven *W, const char *id)
{
    for (int k = 0; k < W->R.nclaims; k++)
        if (!strcmp(W->R.claims[k].claim.id, id)) return k;
    cr_assert_fail("no claim %s", id);
    return -1;
}

/* ---- a planted ladder --------------------------------------------------------------------- */

#define HOSTILE "syn/q'x^y_z"

static void plant(const char *db)
{
    /* another commit, older: its budget 1024 and its violated "flat" must not count */
    const row other[] = {{"syn/flat", LM_V_VIOLATED, 5.0, 4096}, {"syn/rise", LM_V_HOLDS, 0.1, 4096}};
    save_run(db, "oldcommit", 1, 1024, 0, 1, other, 2);
    for (int seed = 1; seed <= 2; seed++) {
        const row b8[] = {
            {"syn/flip", LM_V_HOLDS, 0.5, 8},
            {"syn/rise", LM_V_HOLDS, 0.1, 8},
            {"syn/late-fail", LM_V_HOLDS, 0.9, 8},
            {"syn/flat", LM_V_HOLDS, seed == 1 ? 0.3 : 0.25, 8},
            {"syn/nocheck", LM_V_NOT_CHECKABLE, NAN, 0},
            {HOSTILE, LM_V_HOLDS, 0.01, 8},
        };
        save_run(db, "abc123", (uint64_t)seed, 8, 1, 1, b8, 6);
        const row b32[] = {
            {"syn/flip", LM_V_HOLDS, 0.7, 32},
            {"syn/rise", LM_V_HOLDS, seed == 1 ? 0.2 : 0.15, 32},
            {"syn/late-fail", LM_V_HOLDS, 0.9, 32},
            {"syn/flat", LM_V_HOLDS, 0.3, 32},
            {"syn/nocheck", LM_V_NOT_CHECKABLE, NAN, 0},
            {HOSTILE, LM_V_HOLDS, 0.02, 32},
        };
        save_run(db, "abc123", (uint64_t)seed, 32, 0, 1, b32, 6);
        /* the flip: seed 1 breaks the bound at 128, seed 2 does not; "rise": max over the seeds */
        const row b128[] = {
            {"syn/flip", seed == 1 ? LM_V_VIOLATED : LM_V_HOLDS, seed == 1 ? 1.4 : 0.8, 128},
            {"syn/rise", LM_V_HOLDS, seed == 1 ? 0.4 : 0.35, 128},
            {"syn/late-fail", LM_V_VIOLATED, NAN, 128},
            {"syn/flat", LM_V_HOLDS, 0.301, 128},
            {"syn/nocheck", LM_V_NOT_CHECKABLE, NAN, 0},
            {HOSTILE, LM_V_HOLDS, 0.03, 128},
            {"syn/once", LM_V_HOLDS, 0.5, 128},
            {"zone/single", LM_V_HOLDS, 0.5, 128},
        };
        save_run(db, "abc123", (uint64_t)seed, 128, 0, 1, b128, 8);
    }
    /* an unfinished run of the same commit: its budget 512 must not count */
    const row part[] = {{"syn/flat", LM_V_VIOLATED, 9.0, 512}};
    save_run(db, "abc123", 1, 512, 0, 0, part, 1);
}

Test(depth, planted_ladder_names_flips_and_rising_claims, .timeout = 120)
{
    char db[160];
    snprintf(db, sizeof db, "%s/results.db", root);
    plant(db);
    woven W;
    prepare(&W, db);
    cr_assert_str_eq(W.R.meta.commit, "abc123");
    /* syn (8 claims) is searched at three depths: one figure; zone at one: none */
    cr_assert_eq(W.nfig, 1);
    cr_assert_str_eq(W.fig[0].path, "figures/depth-syn");
    int zone = index_of(&W, "zone/single");
    cr_assert_eq(zone, W.R.nclaims - 1);
    char *t = paragraph(&W, 0, zone);
    cr_assert_not_null(t);

    has(t, "\\paragraph{Search depth} Searched at 3 budgets: 8 quick, 32 and 128 instances per configuration, "
           "with 2 seeds each (1 and 2), in the finished runs of commit \\texttt{abc123}.");
    lacks(t, "1024"); /* another commit's run */
    lacks(t, "512");  /* an unfinished run */
    lacks(t, "not run with the same seeds");
    has(t, "\\includegraphics[width=\\linewidth]{figures/depth-syn.pdf}");

    /* the flip: from what to what, at which budget, and the seeds that disagree */
    char want[600];
    snprintf(want, sizeof want,
             "\\item \\hyperref[claim:%d]{\\texttt{flip}}: \\vd{vholds}{holds} at budgets 8 quick and 32, "
             "\\vd{vviolated}{violated} at 128; at 128 the seeds disagree: 1 \\vd{vviolated}{violated}, 1 "
             "\\vd{vholds}{holds}.",
             index_of(&W, "syn/flip"));
    has(t, want);
    has(t, "\\textbf{Verdict changed with the budget} (2)");
    snprintf(want, sizeof want, "\\item \\hyperref[claim:%d]{\\texttt{late-\\allowbreak{}fail}}: \\vd{vholds}{holds} "
                                "at budgets 8 quick and 32, \\vd{vviolated}{violated} at 128.",
             index_of(&W, "syn/late-fail"));
    has(t, want);

    /* still rising: the max over the seeds, relative rise; across 1; to a failure without ratio */
    has(t, "\\textbf{Still rising, not saturated} (4)");
    snprintf(want, sizeof want, "\\item \\hyperref[claim:%d]{\\texttt{rise}} (\\vd{vholds}{holds}): 0.2 at 32 $\\to$ "
                                "0.4 at 128 (+100\\%%).",
             index_of(&W, "syn/rise"));
    has(t, want);
    has(t, "(\\vd{vviolated}{violated}): 0.7 at 32 $\\to$ 1.4 at 128 (+100\\%), across the bound.");
    has(t, "0.9 at 32 $\\to$ no ratio (failed) at 128, across the bound.");
    has(t, "(\\vd{vholds}{holds}): 0.02 at 32 $\\to$ 0.03 at 128 (+50\\%).");
    /* the hostile id, escaped */
    has(t, "\\texttt{q'x{\\char94}y{\\char95}\\allowbreak{}z}");
    for (const char *p = t; (p = strchr(p, '^')); p++) cr_assert_fail("a bare ^ in the paragraph: %s", t);

    /* flat (0.3 -> 0.301: +0.33%) is saturated, nocheck has no ratio, once one budget */
    snprintf(want, sizeof want, "claim:%d]", index_of(&W, "syn/flat"));
    lacks(t, want);
    has(t, "\\textbf{The seeds disagree} at the deepest budget (1;");
    has(t, "\\textbf{Saturated}: 1 of the 6 claims checked at two budgets or more");
    has(t, " 1 has no worst ratio at one of the two deepest budgets");
    has(t, " 1 was checked at one budget only.");
    free(t);

    /* the other paper: one budget, one sentence, no figure */
    t = paragraph(&W, zone, 1);
    has(t, "\\paragraph{Search depth} Searched at one budget (128, seeds 1 and 2): \\texttt{make verify "
           "BUDGET=64,256,1024} shows whether deeper searches find worse instances.");
    lacks(t, "includegraphics");
    free(t);
    cr_assert(!exists_rel("figures/depth-zone.gp"));

    /* the figure: log axes with powers of ten, the bound, one block per verdict at the deepest
     * budget, the failure without a ratio at the top of the axis as a clamped point */
    char *gp = read_rel("figures/depth-syn.gp");
    cr_assert_not_null(gp);
    has(gp, "set terminal pdfcairo enhanced color size 9.6cm,5.6cm font 'Sans,9'");
    has(gp, "set logscale xy\nset format x '10^{%L}'\nset format y '10^{%L}'");
    has(gp, "set xlabel 'instances evaluated per claim (all its configurations)'");
    has(gp, "set ylabel 'worst LHS/RHS'");
    has(gp, "set yrange [0.01:10]");
    has(gp, "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 1.5 lc rgb '#d20000'");
    has(gp, "lc rgb '#008228' title 'holds (4)'");
    has(gp, "lc rgb '#d20000' title 'violated (2)'");
    lacks(gp, "not-checkable"); /* no ratio anywhere: nothing drawn */
    has(gp, "set label 'q''x^y_z' at ");
    has(gp, "set label 'late-fail' at 128, 10 ");
    lacks(gp, "set label 'flat'");
    free(gp);
    char *dat = read_rel("figures/depth-syn.dat");
    cr_assert_not_null(dat);
    has(dat, "# claim syn/late-fail\n8 0.90000000000000002 0\n32 0.90000000000000002 0\n128 10 1\n");
    has(dat, "# claim syn/rise\n8 0.10000000000000001 0\n32 0.20000000000000001 0\n128 0.40000000000000002 0\n");
    lacks(dat, "4096");
    free(dat);
    release(&W);

    /* the whole weave: the paragraph reaches the summary page, LaTeX and gnuplot accept it */
    char err[512] = "";
    cr_assert_eq(lm_report_build(db, -1, root, err, sizeof err), 0, "%s", err);
    char *tex = read_rel("report/lemmata.tex");
    cr_assert_not_null(tex);
    has(tex, "\\paragraph{Search depth} Searched at 3 budgets");
    has(tex, "\\paragraph{Search depth} Searched at one budget (128, seeds 1 and 2)");
    free(tex);
    cr_assert(exists_rel("figures/depth-syn.pdf"), "the depth figure was not drawn");
}

Test(depth, one_budget_is_one_sentence_and_no_figure)
{
    char db[160];
    snprintf(db, sizeof db, "%s/results.db", root);
    const row rows[] = {{"solo/a", LM_V_HOLDS, 0.5, 64}, {"solo/b", LM_V_VIOLATED, 2.0, 64}};
    save_run(db, "c1", 7, 64, 0, 1, rows, 2);
    woven W;
    prepare(&W, db);
    cr_assert_eq(W.nfig, 0);
    char *t = paragraph(&W, 0, W.R.nclaims);
    cr_assert_str_eq(t, "\\Needspace{6\\baselineskip}\\paragraph{Search depth} Searched at one budget (64, seed 7): "
                        "\\texttt{make verify BUDGET=64,256,1024} shows whether deeper searches find worse "
                        "instances.\n\n");
    free(t);
    cr_assert(!exists_rel("figures/depth-solo.gp"));
    cr_assert(!exists_rel("figures/depth-solo.dat"));
    /* no database: nothing known, nothing written */
    rp_depth_free(W.D);
    char err[256] = "";
    W.nfig = 0;
    W.D = rp_depth_prepare(root, NULL, &W.R, W.docs, W.R.nclaims, W.fig, &W.nfig, 8, err, sizeof err);
    cr_assert_not_null(W.D, "%s", err);
    t = paragraph(&W, 0, W.R.nclaims);
    has(t, "No finished run of commit \\texttt{c1} holds this paper's claims");
    free(t);
    release(&W);
}

/* depths run with other seeds: said, since a verdict may then change with the seed rather than
 * the budget; the seeds' verdicts at each depth are named where they disagree */
Test(depth, different_seeds_are_said)
{
    char db[160];
    snprintf(db, sizeof db, "%s/results.db", root);
    const row a1[] = {{"mix/a", LM_V_HOLDS, 0.5, 64}}, a2[] = {{"mix/a", LM_V_ARTIFACT, 0.6, 64}};
    save_run(db, "c2", 1, 64, 0, 1, a1, 1);
    save_run(db, "c2", 2, 64, 0, 1, a2, 1);
    const row b1[] = {{"mix/a", LM_V_HOLDS, 0.6, 256}};
    save_run(db, "c2", 1, 256, 0, 1, b1, 1);
    woven W;
    prepare(&W, db);
    cr_assert_eq(W.nfig, 1);
    char *t = paragraph(&W, 0, W.R.nclaims);
    has(t, "Searched at 2 budgets: 64 (2 seeds) and 256 (1 seed) instances per configuration, in the finished "
           "runs of commit \\texttt{c2}.");
    has(t, "\\emph{The budgets were not run with the same seeds}");
    has(t, "\\vd{vartifact}{artifact} at budget 64, \\vd{vholds}{holds} at 256; at 64 the seeds disagree: 1 "
           "\\vd{vartifact}{artifact}, 1 \\vd{vholds}{holds}.");
    /* 0.6 -> 0.6: flat, though the verdict changed */
    has(t, "\\textbf{Saturated}: 1 of the 1 claim checked at two budgets or more");
    lacks(t, "Still rising");
    free(t);
    release(&W);
}

/* a real ladder: three budgets of the tutorial's claims, then a whole weave */
Test(depth, tutorial_ladder_draws_the_figure, .timeout = 300)
{
    char db[160], args[600], out[8192];
    snprintf(db, sizeof db, "%s/ladder.db", root);
    const int budgets[] = {8, 32, 128};
    for (int k = 0; k < 3; k++) {
        snprintf(args, sizeof args, "verify --only tutorial/ --budget %d --seed 1 --no-report --no-mutants --db %s",
                 budgets[k], db);
        int rc = lm_test_cli(out, sizeof out, args);
        cr_assert(rc == 0 || rc == 1, "verify at budget %d: exit %d\n%s", budgets[k], rc, out);
    }
    char err[512] = "";
    cr_assert_eq(lm_report_build(db, -1, root, err, sizeof err), 0, "%s", err);
    char *tex = read_rel("report/lemmata.tex");
    cr_assert_not_null(tex);
    has(tex, "\\paragraph{Search depth} Searched at 3 budgets: 8, 32 and 128 instances per configuration, with 1 "
             "seed each (1), in the finished runs of commit \\texttt{");
    has(tex, "{figures/depth-tutorial.pdf}");
    has(tex, "claims checked at two budgets or more");
    free(tex);
    cr_assert(exists_rel("figures/depth-tutorial.gp"));
    cr_assert(exists_rel("figures/depth-tutorial.pdf"), "the depth figure was not drawn");
    char *dat = read_rel("figures/depth-tutorial.dat");
    cr_assert_not_null(dat);
    /* every claim of the tutorial is a polyline through three budgets */
    int claims = 0;
    for (const char *p = dat; (p = strstr(p, "# claim tutorial/")); p++) claims++;
    cr_assert_eq(claims, 4, "%s", dat);
    free(dat);
}
