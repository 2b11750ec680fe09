/* tests/test_constants.c -- `lemmata constants` and the report's "Constant slack"
 * section: which parameters count as constants, slack and its classes, the
 * table `constants` round-tripping through save/load, the LaTeX of
 * lm_report_slack on a synthetic run, one real claim measured through the
 * command line (same seed, same row, with one or two workers), and bad input. */
/* claim files checked here: lemmas/pruning/lemmaD-4.c */
#include "test_support.h"

#include "../src/report/report_priv.h"
#include "lm_constants.h"

#include <math.h>
#include <unistd.h>

static lm_constant_row mkrow(const char *id, const char *param, double stated, double sharpest,
                             double breaks_at, int dir, lm_verdict v)
{
    lm_constant_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.claim_id, sizeof r.claim_id, "%s", id);
    snprintf(r.param, sizeof r.param, "%s", param);
    r.stated = stated;
    r.sharpest = sharpest;
    r.breaks_at = breaks_at;
    r.direction = dir;
    r.runs = 7;
    r.decided = !isnan(sharpest) && !isnan(breaks_at);
    r.stated_verdict = v;
    snprintf(r.msg, sizeof r.msg, "synthetic %s", param);
    r.seconds = 0.25;
    r.seed = 42;
    r.budget = 8;
    r.quick = 1;
    r.rtol = 0.05;
    r.max_runs = 24;
    snprintf(r.commit, sizeof r.commit, "abc123");
    return r;
}

static void tmp_db(char *path, size_t n, const char *tag)
{
    snprintf(path, n, "/tmp/lm_constants_%s_%ld.db", tag, (long)getpid());
    unlink(path);
}

/* ---- the rule ------------------------------------------------------------------------ */

Test(constants, which_parameters_are_constants)
{
    cr_expect(lm_param_is_constant("coef", 2, NULL, "coefficient of the bound"));
    cr_expect(lm_param_is_constant("Z_scale", 1, NULL, "multiplies Z"));
    cr_expect(lm_param_is_constant("B_factor", 0.5, NULL, "sigma_min(B_r) >= B_factor lambda"));
    cr_expect(lm_param_is_constant("c_op", 1, "", "multiplies sqrt(s_1) + dist"));
    /* settings of the harness */
    cr_expect(!lm_param_is_constant("tol_scale", 1, NULL, "multiplies the rounding tolerance"));
    cr_expect(!lm_param_is_constant("tau_scale", 1, NULL, "multiplies the threshold tau"));
    cr_expect(!lm_param_is_constant("eta_scale", 1, NULL, "multiplies the step size"));
    cr_expect(!lm_param_is_constant("steps_scale", 1, NULL, "multiplies the iteration counts"));
    cr_expect(!lm_param_is_constant("umm_scale", 1, NULL, "multiplies ||u|| (a deliberately wrong norm if != 1)"));
    /* sizes, switches, non-positive defaults */
    cr_expect(!lm_param_is_constant("T", 100, NULL, "iterations"));
    cr_expect(!lm_param_is_constant("mode_scale", 0, "a|b", "multiplies nothing"));
    cr_expect(!lm_param_is_constant("x_scale", 0, NULL, "multiplies x"));
    cr_expect(!lm_param_is_constant("x_scale", -1, NULL, "multiplies x"));
    cr_expect(!lm_param_is_constant("x_scale", INFINITY, NULL, "multiplies x"));
    /* a real claim: pruning/lemmaD.4 has exactly one, its RECON coefficient */
    const lm_claim *c = lm_claim_find("pruning/lemmaD.4");
    cr_assert_not_null(c);
    int idx[8];
    cr_assert_eq(lm_claim_constants(c, idx, 8), 1);
    cr_expect_str_eq(c->params[idx[0]].name, "coef");
}

Test(constants, slack_and_classes)
{
    /* an upper-bound coefficient (smaller is sharper): slack = stated / sharpest */
    lm_constant_row r = mkrow("p/a", "c", 2, 0.5, 0.48, -1, LM_V_HOLDS);
    cr_expect_float_eq(lm_constant_slack(&r), 4.0, 1e-12);
    cr_expect_eq(lm_constant_class(&r), LM_SLACK_LOOSE);
    /* a lower-bound one (larger is sharper): slack = sharpest / stated */
    r = mkrow("p/a", "c", 1, 1.5, 1.55, 1, LM_V_HOLDS);
    cr_expect_float_eq(lm_constant_slack(&r), 1.5, 1e-12);
    cr_expect_eq(lm_constant_class(&r), LM_SLACK_TIGHT);
    r = mkrow("p/a", "c", 1, 1e-3, 9e-4, -1, LM_V_CONSISTENT);
    cr_expect_eq(lm_constant_class(&r), LM_SLACK_VERY_LOOSE);
    /* failing at the stated value: slack < 1 when the claim first holds further out */
    r = mkrow("p/a", "c", 1, 4, 3.9, -1, LM_V_VIOLATED);
    cr_expect_float_eq(lm_constant_slack(&r), 0.25, 1e-12);
    cr_expect_eq(lm_constant_class(&r), LM_SLACK_FAILS);
    r = mkrow("p/a", "c", 1, NAN, 1, 0, LM_V_INCONSISTENT);
    cr_expect(isnan(lm_constant_slack(&r)));
    cr_expect_eq(lm_constant_class(&r), LM_SLACK_FAILS);
    /* passes and nothing breaks it */
    r = mkrow("p/a", "c", 1, 1, NAN, 0, LM_V_HOLDS);
    r.runs = 15;
    cr_expect_eq(lm_constant_class(&r), LM_SLACK_NO_BREAK);
    /* ... unless the run cap cut the walk short */
    r.runs = r.max_runs;
    cr_expect_eq(lm_constant_class(&r), LM_SLACK_UNDECIDED);
    /* ... or nothing was run: a search skipped for time (or stopped by a failed run) has seen no
     * value pass, and is no evidence that nothing breaks the claim */
    r = mkrow("p/a", "c", 1, NAN, NAN, 0, LM_V_HOLDS);
    r.runs = 0;
    r.max_runs = 2;
    cr_expect_eq(lm_constant_class(&r), LM_SLACK_UNDECIDED);
    r.runs = 1;
    cr_expect_eq(lm_constant_class(&r), LM_SLACK_UNDECIDED);
    /* the slack walk's "nothing it tried broke it" is decided with the stated value passing */
    r = mkrow("p/a", "c", 1, 1, NAN, 0, LM_V_CONSISTENT);
    r.decided = 1;
    r.runs = r.max_runs = 1;
    cr_expect_eq(lm_constant_class(&r), LM_SLACK_NO_BREAK);
    /* no verdict at the stated value (time-out, assumption failed, error) */
    r = mkrow("p/a", "c", 1, NAN, NAN, 0, LM_V_ASSUMPTION_FAILED);
    cr_expect_eq(lm_constant_class(&r), LM_SLACK_UNDECIDED);
    r = mkrow("p/a", "c", 1, NAN, NAN, 0, LM_V_ERROR);
    cr_expect_eq(lm_constant_class(&r), LM_SLACK_UNDECIDED);
    cr_expect_str_eq(lm_slack_class_name(LM_SLACK_VERY_LOOSE), "very loose");
    /* measured: a known slack, or no break; failing as stated counts only with where it first holds */
    r = mkrow("p/a", "c", 1, 4, 3.9, -1, LM_V_VIOLATED);
    cr_expect(lm_constant_measured(&r));
    r = mkrow("p/a", "c", 1, NAN, NAN, 0, LM_V_VIOLATED);
    cr_expect_eq(lm_constant_class(&r), LM_SLACK_FAILS);
    cr_expect(!lm_constant_measured(&r), "failing as stated with no value where it holds is not a measurement");
    r = mkrow("p/a", "c", 2, 0.5, 0.48, -1, LM_V_HOLDS);
    cr_expect(lm_constant_measured(&r));
    r = mkrow("p/a", "c", 1, NAN, NAN, 0, LM_V_VACUOUS);
    cr_expect(!lm_constant_measured(&r));
    r = mkrow("p/a", "c", 1, 1, NAN, 0, LM_V_HOLDS);
    r.runs = 3;
    r.max_runs = 12;
    cr_expect_eq(lm_constant_class(&r), LM_SLACK_NO_BREAK);
    cr_expect(lm_constant_measured(&r));
}

/* ---- the table ------------------------------------------------------------------------ */

Test(constants, table_round_trips)
{
    char path[128], err[512];
    tmp_db(path, sizeof path, "rt");
    lm_constdb *db = lm_constdb_open(path, err, sizeof err);
    cr_assert_not_null(db, "%s", err);
    lm_constant_row a = mkrow("pruning/lemmaD.4", "coef", 2, 0.707107, 0.677128, -1, LM_V_HOLDS);
    lm_constant_row b = mkrow("dynamics/lemma3", "Z_scale", 1, 25.5, NAN, -1, LM_V_VIOLATED);
    lm_constant_row c = mkrow("pruning/lemmaD.4", "coef", 2, 0.9, 0.8, -1, LM_V_HOLDS);
    c.budget = 64; /* same constant, another budget */
    c.quick = 0;
    lm_constant_row other = mkrow("pruning/lemmaD.4", "coef", 2, 0.5, 0.4, -1, LM_V_HOLDS);
    other.seed = 7;
    cr_expect_eq(lm_constdb_has(db, &a), 0);
    cr_assert_eq(lm_constdb_save(db, &a), 0);
    cr_assert_eq(lm_constdb_save(db, &b), 0);
    cr_assert_eq(lm_constdb_save(db, &c), 0);
    cr_assert_eq(lm_constdb_save(db, &other), 0);
    cr_expect(a.saved[0] != 0, "save stamps the row");
    cr_expect_eq(lm_constdb_has(db, &a), 1);
    lm_constant_row a2 = a;
    snprintf(a2.commit, sizeof a2.commit, "def456");
    cr_expect_eq(lm_constdb_has(db, &a2), 0, "another commit is measured again");
    a2 = a;
    a2.rtol = 0.01;
    cr_expect_eq(lm_constdb_has(db, &a2), 0, "another rtol is measured again");
    /* a time-out (no run finished) is not a measurement: it is redone */
    lm_constant_row to = mkrow("mirror/lemma29", "c_scale", 1, NAN, NAN, 0, LM_V_ERROR);
    to.runs = 0;
    cr_assert_eq(lm_constdb_save(db, &to), 0);
    cr_expect_eq(lm_constdb_has(db, &to), 0);
    /* the same key replaces */
    a.sharpest = 0.70;
    cr_assert_eq(lm_constdb_save(db, &a), 0);
    lm_constdb_close(db);

    lm_constant_row *rows = NULL;
    int n = -1;
    cr_assert_eq(lm_constdb_load(path, 42, 8, 1, &rows, &n, err, sizeof err), 0, "%s", err);
    cr_assert_eq(n, 3, "one row per constant, got %d", n);
    /* ordered by claim id: dynamics before pruning */
    cr_expect_str_eq(rows[0].claim_id, "dynamics/lemma3");
    cr_expect_str_eq(rows[0].param, "Z_scale");
    cr_expect_eq(rows[0].stated_verdict, LM_V_VIOLATED);
    cr_expect(isnan(rows[0].breaks_at), "NaN survives as NULL");
    cr_expect_float_eq(rows[0].sharpest, 25.5, 1e-12);
    cr_expect_str_eq(rows[1].claim_id, "mirror/lemma29");
    cr_expect(isnan(rows[1].sharpest) && rows[1].runs == 0);
    memmove(&rows[1], &rows[2], sizeof *rows); /* the pruning row next */
    cr_expect_str_eq(rows[1].param, "coef");
    cr_expect_eq(rows[1].budget, 8, "the row with the asked budget wins");
    cr_expect_float_eq(rows[1].sharpest, 0.70, 1e-12);
    cr_expect_float_eq(rows[1].breaks_at, 0.677128, 1e-12);
    cr_expect_eq(rows[1].direction, -1);
    cr_expect_eq(rows[1].runs, 7);
    cr_expect_eq(rows[1].decided, 1);
    cr_expect_eq(rows[1].seed, 42u);
    cr_expect_eq(rows[1].quick, 1);
    cr_expect_float_eq(rows[1].rtol, 0.05, 1e-15);
    cr_expect_eq(rows[1].max_runs, 24);
    cr_expect_str_eq(rows[1].commit, "abc123");
    cr_expect_str_eq(rows[1].msg, "synthetic coef");
    free(rows);
    /* another budget asked: its row */
    cr_assert_eq(lm_constdb_load(path, 42, 64, 0, &rows, &n, err, sizeof err), 0, "%s", err);
    cr_assert_eq(n, 3);
    cr_expect_eq(rows[2].budget, 64);
    cr_expect_float_eq(rows[2].sharpest, 0.9, 1e-12);
    free(rows);
    /* another seed: only its own */
    cr_assert_eq(lm_constdb_load(path, 7, 8, 1, &rows, &n, err, sizeof err), 0, "%s", err);
    cr_expect_eq(n, 1);
    free(rows);
    unlink(path);
    /* no file: an error; a database without the table: nothing measured */
    cr_expect_eq(lm_constdb_load("/nonexistent/dir/x.db", 42, 8, 1, &rows, &n, err, sizeof err), -1);
    char empty[128];
    tmp_db(empty, sizeof empty, "empty");
    char err2[512];
    lm_store *st = lm_store_open(empty, err2, sizeof err2);
    cr_assert_not_null(st, "%s", err2);
    lm_store_close(st);
    cr_expect_eq(lm_constdb_load(empty, 42, 8, 1, &rows, &n, err, sizeof err), 0, "%s", err);
    cr_expect_eq(n, 0);
    free(rows);
    unlink(empty);
}

/* ---- the report section --------------------------------------------------------------------- */

/* every '_' of the LaTeX must be escaped */
static int unescaped_underscore(const char *s)
{
    for (const char *p = s; (p = strchr(p, '_')) != NULL; p++)
        if (p == s || p[-1] != '\\') return 1;
    return 0;
}

/* name as the report typesets it in \\texttt (lm_tex_escape_tt); the caller frees */
static char *tt(const char *name)
{
    lm_tbuf b;
    lm_tbuf_init(&b);
    lm_tex_escape_tt(&b, name);
    return lm_tbuf_take(&b);
}

Test(constants, report_section_on_a_synthetic_run)
{
    char path[128], err[512];
    tmp_db(path, sizeof path, "rep");
    lm_constdb *db = lm_constdb_open(path, err, sizeof err);
    cr_assert_not_null(db, "%s", err);
    lm_constant_row rows[] = {
        mkrow("pruning/lemmaD.4", "coef", 2, 1.9, 1.85, -1, LM_V_HOLDS),         /* tight */
        mkrow("pruning/lemma10", "lo_coef", 1, 300, 310, 1, LM_V_HOLDS),         /* very loose */
        mkrow("dynamics/lemma3", "Z_scale", 1, 25.5, 24.3, -1, LM_V_VIOLATED),   /* fails */
        mkrow("dynamics/lemma3", "Y_scale", 1, 1, NAN, 0, LM_V_HOLDS),           /* no break */
    };
    rows[3].runs = 15;
    for (int k = 0; k < 4; k++) cr_assert_eq(lm_constdb_save(db, &rows[k]), 0);
    lm_constdb_close(db);

    /* four claims, unsorted: one without any named constant, one whose second
     * constant was never measured */
    lm_results_claim cl[4];
    memset(cl, 0, sizeof cl);
    const char *ids[4] = {"pruning/lemma10", "dynamics/lemma3", "pruning/lemmaD.4", "pruning/lemma2"};
    const char *params[4] = {
        "lo_coef\t1\t\tmultiplies the lower bound of the sum over all tokens and all heads of the model\n"
        "hi_coef\t1\t\tmultiplies the upper bound\n"
        "tol_scale\t1\t\tmultiplies the rounding tolerance\n",
        "Z_scale\t1\t\tmultiplies Z (eq. 90)\nmode\t0\ta|b\ta switch\nY_scale\t1\t\tmultiplies Y\n",
        "coef\t2\t\tcoefficient of the bound coef n^n_exp R^R_exp\n",
        "T\t100\t\tsteps of the run\n"};
    double worst[4] = {0.0031, 25.3, 0.97, 0.5};
    for (int k = 0; k < 4; k++) {
        cl[k].claim.id = ids[k];
        cl[k].params = (char *)params[k];
        cl[k].res.verdict = worst[k] > 1 ? LM_V_VIOLATED : LM_V_HOLDS;
        cl[k].res.worst_ratio = worst[k];
    }
    lm_results R;
    memset(&R, 0, sizeof R);
    R.meta.seed = 42;
    R.meta.budget = 64;
    R.nclaims = 4;
    R.claims = cl;

    lm_tbuf b;
    lm_tbuf_init(&b);
    lm_report_slack(&b, &R, path);
    char *tex = lm_tbuf_take(&b);
    cr_assert_not_null(tex);
    cr_expect(strstr(tex, "Constant slack") != NULL);
    /* the class words as table cells ("\\vd{colour}{word}"), not the explanation above */
    cr_expect(strstr(tex, "}{tight}") != NULL, "%s", tex);
    cr_expect(strstr(tex, "}{very loose}") != NULL, "%s", tex);
    cr_expect(strstr(tex, "}{fails}") != NULL, "%s", tex);
    cr_expect(strstr(tex, "}{loose}") == NULL, "nothing is loose here:\n%s", tex);
    cr_expect(strstr(tex, "no named constant") != NULL, "%s", tex);
    cr_expect(!unescaped_underscore(tex), "an unescaped _ in:\n%s", tex);
    /* ids, names, the slack of the very loose one, and the linear reading */
    cr_expect(strstr(tex, "lemmaD.4") != NULL);
    char *lo = tt("lo_coef"), *hi = tt("hi_coef"), *tol = tt("tol_scale");
    cr_expect(strstr(tex, lo) != NULL, "%s", tex);
    cr_expect(strstr(tex, "& 300 & ") != NULL, "slack 300/1 of lo_coef:\n%s", tex);
    cr_expect(strstr(tex, "0.0392") != NULL, "slack 1/25.5 of the failing Z_scale:\n%s", tex);
    cr_expect(strstr(tex, "0.0031") != NULL, "the worst ratio of lemma10:\n%s", tex);
    /* the tolerance is not a constant, the unmeasured hi_coef shows dashes */
    cr_expect(strstr(tex, tol) == NULL, "%s", tex);
    const char *h = strstr(tex, hi);
    const char *q = h ? strstr(h, "} & ") : NULL;
    cr_expect(q && !strncmp(q, "} & 1 & -- & -- & --", 20), "%s", tex);
    free(lo);
    free(hi);
    free(tol);
    /* nothing broke Y_scale: no sharpest value, no slack */
    char *y = tt("Y_scale");
    const char *yr = strstr(tex, y);
    const char *yq = yr ? strstr(yr, "} & ") : NULL;
    const char *nb = yq ? strstr(yq, "{no break}") : NULL, *eol = yq ? strstr(yq, "\\\\") : NULL;
    cr_expect(yq && !strncmp(yq, "} & 1 & -- & -- & \\vd{", 20) && nb && eol && nb < eol, "%s", tex);
    free(y);
    /* 4 of the 5 constants measured, bisection budget 8 quick */
    cr_expect(strstr(tex, "4 of the 5 constants") != NULL, "%s", tex);
    cr_expect(strstr(tex, "budget 8 quick") != NULL, "%s", tex);
    /* papers in order, claims in natural order within a paper: lemma2 < lemma10 < lemmaD.4 */
    const char *pd = strstr(tex, "\\subsection*{dynamics}"), *pp = strstr(tex, "\\subsection*{pruning}");
    cr_assert(pd && pp && pd < pp, "%s", tex);
    const char *l2 = strstr(pp, "{lemma2}"), *l10 = strstr(pp, "{lemma10}"), *ld = strstr(pp, "{lemmaD.4}");
    cr_expect(l2 && l10 && ld && l2 < l10 && l10 < ld, "%s", tex);
    /* long docs are shortened */
    cr_expect(strstr(tex, "all heads of the model") == NULL, "%s", tex);
    cr_expect(strstr(tex, "...") != NULL);
    free(tex);

    /* a run with another seed: no row matches it, so each constant shows its newest row of
     * any seed, saying with which seed and budget it was measured */
    R.meta.seed = 43;
    lm_tbuf_init(&b);
    lm_report_slack(&b, &R, path);
    tex = lm_tbuf_take(&b);
    cr_assert_not_null(tex);
    cr_expect(strstr(tex, "No constant is measured") == NULL, "%s", tex);
    cr_expect(strstr(tex, "}{tight}") != NULL && strstr(tex, "}{fails}") != NULL, "%s", tex);
    cr_expect(strstr(tex, "seed 42, budget 8 quick") != NULL, "%s", tex);
    cr_expect(strstr(tex, "0.0031") != NULL, "the linear reading stays:\n%s", tex);
    free(tex);
    /* a database without the constants table: nothing measured, the linear reading stays */
    char bare[128];
    tmp_db(bare, sizeof bare, "bare");
    lm_store *st = lm_store_open(bare, err, sizeof err);
    cr_assert_not_null(st, "%s", err);
    lm_store_close(st);
    lm_tbuf_init(&b);
    lm_report_slack(&b, &R, bare);
    tex = lm_tbuf_take(&b);
    cr_assert_not_null(tex);
    cr_expect(strstr(tex, "No constant is measured") != NULL, "%s", tex);
    cr_expect(strstr(tex, "}{tight}") == NULL && strstr(tex, "}{fails}") == NULL, "%s", tex);
    cr_expect(strstr(tex, "0.0031") != NULL, "the linear reading stays:\n%s", tex);
    free(tex);
    unlink(bare);
    unlink(path);
}

/* ---- the command line ---------------------------------------------------------------------- */

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

Test(constants, command_line_on_a_real_claim, .timeout = 120)
{
    char path[128], args[512], out[16384], err[512];
    tmp_db(path, sizeof path, "cli");
    snprintf(args, sizeof args, "constants --quick --jobs 1 --db %s pruning/lemmaD.4", path);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    cr_expect(strstr(out, "pruning/lemmaD.4") != NULL && strstr(out, "[1/1]") != NULL, "%s", out);
    lm_constant_row *rows = NULL;
    int n = 0;
    lm_run_opts o;
    lm_run_opts_default(&o);
    cr_assert_eq(lm_constdb_load(path, o.seed, 8, 1, &rows, &n, err, sizeof err), 0, "%s", err);
    cr_assert_eq(n, 1);
    /* the RECON coefficient 2 of 2 sqrt(n) R^3 is reached to about 1/(2 sqrt 2) of itself: the
     * sharpest value is finite, below the stated 2 (an upper bound: smaller is sharper) and
     * above the value where it breaks */
    cr_expect_str_eq(rows[0].param, "coef");
    cr_expect_float_eq(rows[0].stated, 2.0, 0);
    cr_expect(isfinite(rows[0].sharpest) && rows[0].sharpest > 0.6 && rows[0].sharpest < 2.0, "sharpest %g: %s",
              rows[0].sharpest, rows[0].msg);
    cr_expect_eq(rows[0].direction, -1);
    cr_expect(rows[0].breaks_at < rows[0].sharpest && rows[0].breaks_at > rows[0].sharpest / 1.06, "%g %g",
              rows[0].breaks_at, rows[0].sharpest);
    cr_expect_eq(rows[0].stated_verdict, LM_V_HOLDS);
    cr_expect_eq(rows[0].decided, 1);
    cr_expect_eq(rows[0].quick, 1);
    cr_expect_eq(rows[0].budget, 8);
    lm_slack_class k = lm_constant_class(&rows[0]);
    cr_expect(k == LM_SLACK_TIGHT || k == LM_SLACK_LOOSE, "%s", lm_slack_class_name(k));
    double first = rows[0].sharpest, brk = rows[0].breaks_at;
    int runs = rows[0].runs;
    free(rows);

    /* measured already: skipped */
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    cr_expect(strstr(out, "already measured") != NULL, "%s", out);
    /* same seed, two workers, measured again: the same row */
    snprintf(args, sizeof args, "constants --quick --jobs 2 --redo --db %s pruning/lemmaD.4 pruning/factA.5", path);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    cr_assert_eq(lm_constdb_load(path, o.seed, 8, 1, &rows, &n, err, sizeof err), 0, "%s", err);
    cr_assert_eq(n, 2);
    cr_expect_str_eq(rows[1].claim_id, "pruning/lemmaD.4");
    cr_expect(rows[1].sharpest == first && rows[1].breaks_at == brk && rows[1].runs == runs,
              "same seed, another table: %g %g %d vs %g %g %d", rows[1].sharpest, rows[1].breaks_at, rows[1].runs,
              first, brk, runs);
    free(rows);
    unlink(path);
}

Test(constants, command_line_errors)
{
    char out[1 << 16]; /* --list of a paper runs to a few hundred lines */
    const char *bad[] = {"constants pruning/nothing", "constants --paper nosuchpaper", "constants --jobs x",
                         "constants --jobs 0", "constants --budget -3", "constants --rtol 7",
                         "constants --frobnicate", NULL};
    for (int k = 0; bad[k]; k++) {
        int rc = lm_test_cli(out, sizeof out, bad[k]);
        cr_expect_eq(rc, 2, "%s: exit %d: %s", bad[k], rc, out);
        cr_expect_eq(count_lines(out), 1, "%s: not one line: %s", bad[k], out);
        cr_expect(strncmp(out, "lemmata: ", 9) == 0, "%s: %s", bad[k], out);
    }
    /* --list names the constants without measuring them */
    cr_assert_eq(lm_test_cli(out, sizeof out, "constants --list --paper pruning"), 0, "%s", out);
    cr_expect(strstr(out, "pruning/lemmaD.4") != NULL && strstr(out, "coef") != NULL, "%s", out);
    cr_expect(strstr(out, "tol_scale") == NULL, "%s", out);
    cr_expect(strstr(out, "dynamics/") == NULL, "%s", out);
}
