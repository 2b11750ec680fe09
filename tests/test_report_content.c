/* test_report_content.c -- what the report says and draws: the scripts of the figures (log
 * axes, powers of ten, coinciding curves drawn once, the break of a violated trajectory
 * marked), the configuration lines with the sentence of each reading, "Where it broke"
 * with paper, reading and sentence, and a paper's summary page with its slack figure. */
#include "test_support.h"
#include <criterion/criterion.h>

#include "../src/report/report_priv.h"
#include "lm_constants.h"
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
    snprintf(root, sizeof root, "/tmp/lm_content_XXXXXX");
    cr_assert_not_null(mkdtemp(root));
    char fig[128];
    snprintf(fig, sizeof fig, "%s/figures", root);
    cr_assert_eq(mkdir(fig, 0777), 0);
}

static void rmroot(void)
{
    lm_test_rmtree(root);
}

TestSuite(report_content, .init = mkroot, .fini = rmroot);

static char *read_rel(const char *rel)
{
    return lm_test_read_under(root, rel);
}

static void write_rel(const char *rel, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = 0;
        mkdir(path, 0777);
        *p = '/';
    }
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

static void has(const char *text, const char *want)
{
    cr_assert_not_null(strstr(text, want), "missing: %s", want);
}

static void lacks(const char *text, const char *bad)
{
    cr_assert_null(strstr(text, bad), "should not be there: %s", bad);
}

/* the number of curves a gnuplot script plots: its "index N using" clauses */
static int curves(const char *gp)
{
    int n = 0;
    for (const char *p = gp; (p = strstr(p, " index ")); p++) n++;
    return n;
}

/* writes the series figure of a configuration (and its histogram) under root */
static void draw(lm_config_result *c, lm_figure *fig, int *nfig)
{
    char err[256] = "";
    *nfig = 0;
    cr_assert_eq(lm_fig_write(root, "fake/claim", "cfg", c, fig, nfig, 2, err, sizeof err), 0, "%s", err);
    cr_assert_geq(*nfig, 1);
}

static lm_config_result config(const char *series, const char *axes, lm_verdict v, const char *where)
{
    lm_config_result c;
    memset(&c, 0, sizeof c);
    snprintf(c.config, sizeof c.config, "cfg");
    c.verdict = v;
    c.worst_index = 3;
    c.worst_ratio = 2;
    c.series = (char *)series;
    c.ratios = "";
    snprintf(c.axes, sizeof c.axes, "%s", axes);
    snprintf(c.worst_where, sizeof c.worst_where, "%s", where);
    return c;
}

/* values over five decades go on a log axis with powers of ten; one decade stays linear even
 * when the check asked for a log axis; every string from the database is noenhanced */
Test(report_content, log_axes_and_powers_of_ten)
{
    char s[4096] = "";
    for (int t = 0; t <= 10; t++) {
        size_t n = strlen(s);
        snprintf(s + n, sizeof s - n, "loss_t\t%d\t%.6g\nbound\t%d\t%.6g\n", t, pow(10, -0.5 * t), t, 2 * pow(10, -0.5 * t));
    }
    lm_config_result c = config(s, "iterate t\tloss\t0", LM_V_HOLDS, "instance 3: t=10");
    lm_figure fig[2];
    int nfig;
    draw(&c, fig, &nfig);
    char *gp = read_rel("figures/fake-claim-cfg.gp");
    cr_assert_not_null(gp);
    has(gp, "set terminal pdfcairo enhanced");
    has(gp, "set logscale y\n");
    has(gp, "set format y '10^{%L}'");
    lacks(gp, "set logscale x");   /* t from 0: not positive */
    has(gp, "set format x '%h'");  /* 2x10^{25}, never 2e+25 */
    has(gp, "set xlabel 'iterate t' noenhanced");
    has(gp, "set key outside top center horizontal samplen 2 width -1 noenhanced");
    lacks(gp, "set arrow");        /* it holds: no break to mark */
    cr_assert_eq(curves(gp), 2);
    free(gp);

    /* a third of a decade, log asked: linear, with the digits that tell the ticks apart */
    char s2[1024] = "";
    for (int t = 0; t <= 4; t++) {
        size_t n = strlen(s2);
        snprintf(s2 + n, sizeof s2 - n, "f\t%d\t%.10g\n", t, 0.5 - 1e-5 * t);
    }
    c = config(s2, "iterate t\tloss\t1", LM_V_HOLDS, "");
    draw(&c, fig, &nfig);
    gp = read_rel("figures/fake-claim-cfg.gp");
    cr_assert_not_null(gp);
    lacks(gp, "set logscale y");
    has(gp, "set format y '%.7g'"); /* spread 4e-5 of 0.5: 5 digits + 2 */
    free(gp);
}

/* two curves equal to 1e-12 are drawn once, the legend names both, the caption says so */
Test(report_content, coinciding_curves_drawn_once)
{
    char s[4096] = "";
    for (int t = 0; t <= 30; t++) {
        size_t n = strlen(s);
        double f = 0.5 * exp(-1e-11 * t);
        snprintf(s + n, sizeof s - n, "f_t\t%d\t%.17g\n(1-eta alpha)^t f_0\t%d\t%.17g\nother\t%d\t%.17g\n", t, f, t,
                 f * (1 + 1e-12), t, 0.4 + 0.001 * t);
    }
    lm_config_result c = config(s, "iterate t\tloss\t1", LM_V_HOLDS, "");
    lm_figure fig[2];
    int nfig;
    draw(&c, fig, &nfig);
    char *gp = read_rel("figures/fake-claim-cfg.gp");
    cr_assert_not_null(gp);
    cr_assert_eq(curves(gp), 2, "%s", gp);
    has(gp, "title 'f_t = (1-eta alpha)^t f_0'");
    free(gp);
    has(fig[0].caption, "``f\\_t'' and ``(1-eta alpha)\\textasciicircum{}t f\\_0'' coincide (relative difference below "
                        "$10^{-9}$ at every point) and are drawn once.");
    /* 1e-6 apart: two curves */
    char s2[2048] = "";
    for (int t = 0; t <= 10; t++) {
        size_t n = strlen(s2);
        snprintf(s2 + n, sizeof s2 - n, "a\t%d\t%.17g\nb\t%d\t%.17g\n", t, 1.0 + t, t, (1.0 + t) * (1 + 1e-6));
    }
    c = config(s2, "iterate t\tloss\t0", LM_V_HOLDS, "");
    draw(&c, fig, &nfig);
    gp = read_rel("figures/fake-claim-cfg.gp");
    cr_assert_eq(curves(gp), 2);
    lacks(fig[0].caption, "coincide");
    free(gp);
}

/* the break of a violated trajectory is marked: at the worst observation's iterate read from
 * "t=5", or at a "!label" line of the series; a series that ends there says so */
Test(report_content, break_marked)
{
    char s[4096] = "";
    for (int t = 0; t <= 20; t++) {
        size_t n = strlen(s);
        snprintf(s + n, sizeof s - n, "f_t\t%d\t%.6g\nbound\t%d\t%.6g\n", t, 1.0 + (t >= 5 ? t : 0), t, 1.0);
    }
    lm_config_result c = config(s, "iterate t\tloss\t1", LM_V_VIOLATED, "instance 3: t=5");
    lm_figure fig[2];
    int nfig;
    draw(&c, fig, &nfig);
    char *gp = read_rel("figures/fake-claim-cfg.gp");
    cr_assert_not_null(gp);
    has(gp, "set arrow from 5, graph 0 to 5, graph 1 nohead");
    has(gp, "set label 'break (t=5)' at 5,");
    free(gp);
    has(fig[0].caption, "Dashed red line: break (t=5).");
    lacks(fig[0].caption, "ends at the break"); /* drawn past it, to t = 20 */

    /* recorded only up to the break: said in the caption */
    c = config("f_t\t0\t1\nbound\t0\t1\nf_t\t1\t2\nbound\t1\t1\n", "iterate t\tloss\t1", LM_V_VIOLATED,
               "instance 3: t=1");
    draw(&c, fig, &nfig);
    has(fig[0].caption, "The series ends at the break");

    /* the x axis is log10 k: "k=5" is no point of it */
    c = config(s, "log10 k\tD\t1", LM_V_VIOLATED, "instance 3: k=5");
    draw(&c, fig, &nfig);
    gp = read_rel("figures/fake-claim-cfg.gp");
    lacks(gp, "set arrow");
    free(gp);

    /* a marker line of the series */
    char s2[4200];
    snprintf(s2, sizeof s2, "%s!first break (MPFR)\t7\t0\n", s);
    c = config(s2, "iterate t\tloss\t1", LM_V_VIOLATED, "instance 3: t=5");
    draw(&c, fig, &nfig);
    gp = read_rel("figures/fake-claim-cfg.gp");
    has(gp, "set arrow from 7, graph 0");
    has(gp, "set label 'first break (MPFR)' at 7,");
    lacks(gp, "set arrow from 5,"); /* the series' own marker replaces the guess */
    cr_assert_eq(curves(gp), 2);    /* the marker is no curve */
    free(gp);
}

/* ---- a whole report: configuration lines, where it broke, a paper's summary page ---- */

static lm_claim fake_a = {.id = "fake/lemma_1",
                          .title = "Bound",
                          .file = "lemmas/fake/lemma_1.c",
                          .kind = LM_KIND_TRAJECTORY,
                          .source = "Fake, Lemma 1",
                          .origin = "verbatim",
                          .confidence = "high"};
static lm_claim fake_b = {.id = "fake/theorem_2",
                          .title = "Rate",
                          .file = "lemmas/fake/theorem_2.c",
                          .kind = LM_KIND_POINTWISE,
                          .source = "Fake, Theorem 2",
                          .origin = "verbatim",
                          .confidence = "high"};

static void save_constant(lm_constdb *cdb, const char *claim, const char *param, uint64_t seed, int budget,
                          int quick, double sharpest, lm_verdict v, const char *msg)
{
    lm_constant_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.claim_id, sizeof r.claim_id, "%s", claim);
    snprintf(r.param, sizeof r.param, "%s", param);
    r.seed = seed;
    r.budget = budget;
    r.quick = quick;
    r.stated = 1;
    r.sharpest = sharpest;
    r.breaks_at = NAN;
    r.direction = isnan(sharpest) ? 0 : -1;
    r.runs = 6;
    r.decided = !isnan(sharpest);
    r.stated_verdict = v;
    r.max_runs = 24;
    r.rtol = 0.05;
    snprintf(r.msg, sizeof r.msg, "%s", msg);
    snprintf(r.commit, sizeof r.commit, "abc");
    cr_assert_eq(lm_constdb_save(cdb, &r), 0);
}

static void save_paper(const char *db)
{
    char err[256] = "";
    lm_store *s = lm_store_open(db, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    lm_run_meta m;
    memset(&m, 0, sizeof m);
    snprintf(m.commit, sizeof m.commit, "abc");
    m.seed = 42;
    m.budget = 8;
    m.quick = 1;
    long long run = lm_store_begin_run(s, &m, NULL);
    cr_assert_gt(run, 0);

    lm_claim_result r;
    lm_config_result cfg[4];
    memset(&r, 0, sizeof r);
    memset(cfg, 0, sizeof cfg);
    r.claim = &fake_a;
    r.verdict = LM_V_VIOLATED;
    r.repaired_verdict = LM_V_HOLDS;
    r.probe_verdict = LM_V_ERROR;
    r.mutants_run = 5;
    r.mutants_killed = 5;
    r.worst_ratio = 1.5;
    r.instances = 24;
    r.nconfig = 4;
    r.cfg = cfg;
    const char *name[4] = {"block,eta=1/(2G)", "eta/2", "huge eta", "eta=0.9/alpha"};
    const char *note[4] = {"block W^V, the appendix's step size eta = 1/(2G)",
                           "step size halved: the repaired condition", "eta = 10/G, far beyond the hypotheses",
                           "far past the threshold"};
    const lm_verdict v[4] = {LM_V_VIOLATED, LM_V_HOLDS, LM_V_ERROR, LM_V_VIOLATED};
    const lm_reading_kind kind[4] = {LM_READ_PAPER, LM_READ_REPAIRED, LM_READ_PROBE, LM_READ_PROBE};
    const double worst[4] = {1.5, 0.5, NAN, 1e29};
    for (int k = 0; k < 4; k++) {
        snprintf(cfg[k].config, sizeof cfg[k].config, "%s", name[k]);
        snprintf(cfg[k].reading_note, sizeof cfg[k].reading_note, "%s", note[k]);
        cfg[k].verdict = v[k];
        cfg[k].reading = kind[k];
        cfg[k].instances = 8;
        cfg[k].worst_ratio = worst[k];
        cfg[k].worst_index = 0;
        cfg[k].ratios = "";
    }
    snprintf(cfg[2].detail, sizeof cfg[2].detail, "instance 0: loss not finite at t=3");
    snprintf(cfg[0].shrunk, sizeof cfg[0].shrunk, "N=1 n=2 D=2 (was N=3 n=4 D=4); first break at iterate 1; worst: t=1");
    snprintf(cfg[0].shrunk_reproduce, sizeof cfg[0].shrunk_reproduce,
             "bin/lemmata check fake/lemma_1 --seed 42 --config 'block,eta=1/(2G)' --size N=1");
    /* the store keeps the certification in the detail line (results.c reads it back) */
    snprintf(cfg[0].detail, sizeof cfg[0].detail, "certified in ball arithmetic at 128 bits");
    /* a probe, not shrunk, certified only at 2048 bits: the counterexamples table's row is the
     * shrunk configuration's and says its own 128 bits */
    snprintf(cfg[3].detail, sizeof cfg[3].detail, "certified in ball arithmetic at 2048 bits");
    cr_assert_eq(lm_store_save_claim(s, run, &r), 0);

    memset(&r, 0, sizeof r);
    memset(cfg, 0, sizeof cfg);
    r.claim = &fake_b;
    r.verdict = LM_V_HOLDS;
    r.repaired_verdict = r.probe_verdict = -1;
    r.worst_ratio = 0.25;
    r.instances = 8;
    r.nconfig = 1;
    r.cfg = cfg;
    snprintf(cfg[0].config, sizeof cfg[0].config, "default");
    cfg[0].verdict = LM_V_HOLDS;
    cfg[0].instances = 8;
    cfg[0].worst_ratio = 0.25;
    cfg[0].worst_index = -1;
    cfg[0].ratios = "";
    cr_assert_eq(lm_store_save_claim(s, run, &r), 0);
    cr_assert_eq(lm_store_finish_run(s, run, 1.0), 0);
    lm_store_close(s);

    lm_constdb *cdb = lm_constdb_open(db, err, sizeof err);
    cr_assert_not_null(cdb, "%s", err);
    /* the run's own settings: loose (slack 4) and failing (slack 0.5) */
    save_constant(cdb, "fake/lemma_1", "alpha_scale", 42, 8, 1, 0.25, LM_V_HOLDS, "");
    save_constant(cdb, "fake/lemma_1", "eps_scale", 42, 8, 1, 2, LM_V_VIOLATED, "fails as stated");
    /* the same seed at another budget; another seed only */
    save_constant(cdb, "fake/lemma_1", "beta_scale", 42, 64, 0, 0.9, LM_V_HOLDS, "");
    save_constant(cdb, "fake/theorem_2", "gamma_scale", 7, 16, 1, 0.001, LM_V_HOLDS, "");
    /* undecided, with its reason */
    save_constant(cdb, "fake/theorem_2", "delta_scale", 42, 8, 1, NAN, LM_V_ASSUMPTION_FAILED,
                  "at the stated delta_scale = 1 the claim is assumption-failed: nothing to tighten");
    /* a name with a quote stays inside its gnuplot string */
    save_constant(cdb, "fake/theorem_2", "q'uote_scale", 42, 8, 1, 0.5, LM_V_HOLDS, "");
    lm_constdb_close(cdb);
}

Test(report_content, paper_summary_and_readings, .timeout = 300)
{
    write_rel("lemmas/fake/lemma_1.c", "/* \\claim{fake/lemma_1}{Bound}\n * \\statement{$f_t \\le g_t$.}\n */\nint a;\n");
    write_rel("lemmas/fake/theorem_2.c", "/* \\claim{fake/theorem_2}{Rate}\n * \\statement{$x \\le y$.}\n */\nint b;\n");
    char db[160], err[512] = "";
    snprintf(db, sizeof db, "%s/results.db", root);
    save_paper(db);
    cr_assert_eq(lm_report_build(db, -1, root, err, sizeof err), 0, "%s", err);
    char *tex = read_rel("report/lemmata.tex");
    cr_assert_not_null(tex);

    /* the claim's section: one line per configuration with its reading and sentence */
    has(tex, "\\texttt{block,\\allowbreak{}eta=\\allowbreak{}1/\\allowbreak{}(2G)\\allowbreak{}} & paper & block W\\textasciicircum{}V, the "
             "appendix's step size eta = 1/(2G) & \\vd{vviolated}{violated}");
    has(tex, "\\texttt{eta/\\allowbreak{}2} & repaired & step size halved: the repaired condition & "
             "\\vd{vholds}{holds} & 0.5 & 8\\\\");
    has(tex, "\\texttt{default} & paper & \\emph{the statement as printed} & \\vd{vholds}{holds}");
    /* the verdict names the readings that failed and held, check strength beside it */
    has(tex, "check strength \\textbf{5/5} mutants killed");
    has(tex, "\\vd{vviolated}{violated} \\textbf{as printed}: \\texttt{block,\\allowbreak{}eta=\\allowbreak{}1/"
             "\\allowbreak{}(2G)\\allowbreak{}} (block W\\textasciicircum{}V, the appendix's step size eta = 1/(2G)).");
    has(tex, "\\vd{vholds}{holds} \\textbf{when repaired}: \\texttt{eta/\\allowbreak{}2} (step size halved: the "
             "repaired condition).");
    has(tex, "\\vd{verror}{error} \\textbf{in probes} beyond the hypotheses: \\texttt{huge eta} (eta = 10/G, far "
             "beyond the hypotheses).");

    /* where it broke: paper column, reading, sentence, the reason of a verdict that is no ratio */
    has(tex, "paper & claim & configuration & what it tests & verdict & worst ratio");
    has(tex, "fake & \\hyperref[claim:0]{\\texttt{lemma{\\char95}\\allowbreak{}1}} & \\texttt{block,");
    has(tex, "\\newline{\\scriptsize\\emph{paper reading}} & block W\\textasciicircum{}V");
    has(tex, "\\newline{\\scriptsize\\emph{probe}} & eta = 10/G, far beyond the hypotheses\\newline{\\scriptsize "
             "why: instance 0: loss not finite at t=3}");

    /* the counterexamples table: the shrunk configuration and its own certification */
    has(tex, "\\section*{Counterexamples}");
    has(tex, "N=1 n=2 D=2 (was N=3 n=4 D=4); first break at iterate 1 & yes (128 bits)\\\\");
    lacks(tex, "yes (2048 bits)");

    /* the paper's summary page */
    has(tex, "\\subsection*{Summary of this paper}");
    has(tex, "\\textbf{2 claims} as printed: 1 \\vd{vviolated}{violated}, 1 \\vd{vholds}{holds}.");
    has(tex, "3 configurations did not pass: 1 reading the paper as printed, 0 repaired, 2 probes beyond the "
             "hypotheses.");
    has(tex, "N=1 n=2 D=2 (was N=3 n=4 D=4); first break at iterate 1; certified in ball arithmetic (128 bits).");
    has(tex, "bin/\\allowbreak{}lemmata check fake/\\allowbreak{}lemma{\\char95}\\allowbreak{}1");
    /* its slack: counts, the figure, the undecided one with its reason */
    has(tex, "6 of the 6 named constants are measured: 1 \\vd{vholds}{tight}, 2 \\vd{vconsistent}{loose}, 1 "
             "\\vd{vartifact}{very loose}, 1 \\vd{vviolated}{fails}, 1 \\vd{vassumption}{undecided}. 2 were "
             "measured with another budget or seed");
    has(tex, "\\includegraphics[width=0.92\\linewidth]{figures/slack-fake.pdf}");
    has(tex, "\\texttt{delta{\\char95}\\allowbreak{}scale}: at the stated delta\\_scale = 1 the claim is assumption-failed: nothing to "
             "tighten");
    /* the section Constant slack: rows measured otherwise say how */
    has(tex, "\\newline{\\tiny budget 64}");
    has(tex, "\\newline{\\tiny seed 7, budget 16 quick}");
    free(tex);

    /* the figure: one row per constant with a place on the axis, coloured by class */
    char *gp = read_rel("figures/slack-fake.gp");
    cr_assert_not_null(gp);
    has(gp, "set logscale x");
    has(gp, "set format x '10^{%L}'");
    has(gp, "'lemma_1 alpha_scale'");
    has(gp, "'theorem_2 gamma_scale'");
    lacks(gp, "delta_scale"); /* undecided: listed, not drawn */
    has(gp, "'theorem_2 q''uote_scale' ");
    has(gp, "lc rgb '#d20000' title 'fails (1)'");
    free(gp);
    struct stat sb;
    char pdf[200];
    snprintf(pdf, sizeof pdf, "%s/figures/slack-fake.pdf", root);
    cr_assert_eq(stat(pdf, &sb), 0, "the slack figure was not drawn");
}
