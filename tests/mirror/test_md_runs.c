/* tests/test_md_runs.c -- the mirror-descent paper's live runs
 * (lm_mdruns.h): the runs' first iterates against the core's l_p-AttGD step
 * and directional divergence on independently rebuilt data, the
 * cancellation-free norm growth, the double-vs-MPFR drift and the frozen
 * iterate, the paper's 3x3 reading, the live figures' directives (with the
 * y-range field of figures.c), and `lemmata train` on these runs. */
#include "test_support.h"
#include <criterion/criterion.h>

#include "../src/report/report_priv.h"
#include "lm_md.h"
#include "lm_mdruns.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const uint64_t SEED = 20241122;

static double rdiff(double a, double b)
{
    if (isnan(a) && isnan(b)) return 0.0;
    return fabs(a - b) / fmax(1e-300, fabs(b));
}

/* md-p2's records against the core, rebuilt independently of md_runs.c:
 * the paper's generator from the seed, W(0) = 0, lm_md_step, and the
 * l_p'-AttSVMs of the final argmax softmax with lm_md_dir_bregman */
static void paper_against_core(const char *name, const lm_ctx *c, int steps, double tol)
{
    lm_mdr_def r = *lm_mdr_find(name);
    r.steps = steps;
    lm_mdr_rec *x = NULL;
    lm_mdr_info I;
    char err[256];
    cr_assert_eq(lm_mdr_exec(&x, &I, &r, SEED, c, 0, err, sizeof err), 0, "%s: %s", name, err);
    lm_rng g;
    lm_rng_init(&g, SEED);
    lm_mddata *D = lm_md_gen_paper(&g, r.n, r.T, r.d, c);
    lm_mat *W = lm_mat_new(r.d, r.d, c), *Th = lm_mat_new(r.d, r.d, c);
    lm_mat **keep = calloc((size_t)steps + 1, sizeof *keep);
    lm_attn_fwd *F = lm_md_fwd_new(D);
    lm_md_par par = {r.p, r.eta, 1, LM_ATTN_LOGISTIC};
    lm_num v;
    lm_num_init(&v, c);
    double worst = 0;
    for (int t = 0; t <= steps; t++) {
        keep[t] = lm_mat_dup(W);
        lm_md_pnorm(&v, W, r.p);
        worst = fmax(worst, fabs(x[t].norm - lm_num_get_d(&v)) / fmax(1.0, lm_num_get_d(&v)));
        worst = fmax(worst, fabs(x[t].growth - lm_num_get_d(&v)) / fmax(1.0, lm_num_get_d(&v)));
        if (t == steps)
            cr_assert_eq(lm_md_forward(F, D, W, LM_ATTN_LOGISTIC), 0);
        else
            cr_assert_eq(lm_md_step(W, Th, F, D, &par), 0);
        worst = fmax(worst, rdiff(x[t].log_loss, lm_num_get_d(&F->logL)));
    }
    cr_expect_lt(worst, tol, "%s: records and core differ by %g", name, worst);
    /* alpha = argmax of the final softmax; the three references */
    for (int i = 0; i < r.n; i++) {
        int a = 0;
        for (int t = 1; t < r.T; t++)
            if (lm_mat_get_d(F->logs, i, t) > lm_mat_get_d(F->logs, i, a)) a = t;
        cr_expect_eq(I.alpha[i], a, "sample %d", i);
        D->alpha[i] = a;
    }
    double wD = 0;
    for (int j = 0; j < LM_MDR_NPP; j++) {
        lm_md_svm s;
        cr_assert_eq(lm_md_svm_solve(&s, D, lm_mdr_pprime[j], 0), LM_MDSVM_OK);
        for (int t = 1; t <= steps; t++) {
            lm_md_dir_bregman(&v, s.W, keep[t], r.p);
            wD = fmax(wD, fabs(x[t].D[j] - lm_num_get_d(&v)));
            if (lm_mdr_pprime[j] == r.p) wD = fmax(wD, fabs(x[t].D_own - lm_num_get_d(&v)));
        }
        lm_md_svm_clear(&s);
    }
    cr_expect_lt(wD, tol, "%s: directional divergences differ from lm_md_dir_bregman by %g", name,
                 wD);
    cr_expect(isnan(x[0].D[0]), "D at W(0) = 0 must be NaN");
    lm_num_clear(&v);
    for (int t = 0; t <= steps; t++) lm_mat_free(keep[t]);
    free(keep);
    lm_attn_fwd_free(F);
    lm_mat_free(W);
    lm_mat_free(Th);
    lm_md_data_free(D);
    lm_mdr_info_clear(&I);
    free(x);
}

Test(md_runs, paper_runs_match_the_core_in_double)
{
    lm_ctx c = lm_ctx_double();
    paper_against_core("md-p1.75", &c, 40, 1e-12);
    paper_against_core("md-p2", &c, 40, 1e-12);
    paper_against_core("md-p3", &c, 40, 1e-12);
}

Test(md_runs, paper_run_matches_the_core_in_mpfr)
{
    lm_ctx c = lm_ctx_mpfr(128);
    paper_against_core("md-p1.75", &c, 6, 1e-30);
}

/* R1: the start is on the cone level mu_0 at radius R0 ||W_mm||_p, and the
 * steps are the core's unnormalised l_p-AttGD */
Test(md_runs, r1_start_and_steps)
{
    lm_mdr_def r = *lm_mdr_find("md-r1-p2");
    r.steps = 30;
    lm_ctx c = lm_ctx_double();
    lm_mdr_rec *x = NULL;
    lm_mdr_info I;
    char err[256];
    cr_assert_eq(lm_mdr_exec(&x, &I, &r, SEED, &c, 0, err, sizeof err), 0, "%s", err);
    cr_expect_gt(I.mu0, 0);
    cr_expect_lt(fabs(x[0].D_own / I.mu - 1.0), 1e-6, "D(0) = %g, mu = %g", x[0].D_own, I.mu);
    cr_expect_lt(fabs(x[0].norm / (r.R0 * I.wmm_norm[LM_MDR_NPP]) - 1.0), 1e-12);
    cr_expect_eq(I.alpha_opt, I.n, "R1 selects the argmax of the scores");
    cr_expect(isnan(x[5].D[0]), "R1 has no p' grid");
    /* unnormalised: the step is eta ||grad L||_q */
    for (int t = 0; t < r.steps; t++)
        cr_expect_lt(fabs(x[t].step / (r.eta * exp(x[t].log_grad)) - 1.0), 1e-10, "t = %d", t);
    /* the norm grows at every step */
    for (int t = 1; t <= r.steps; t++) cr_expect_gt(x[t].growth, x[t - 1].growth, "t = %d", t);
    lm_mdr_info_clear(&I);
    free(x);
}

/* ||W(k)||_p - ||W(0)||_p in double from entrywise differences agrees with
 * the MPFR evaluation of the same double iterate, where a difference of two
 * rounded norms has no correct digit */
Test(md_runs, growth_is_cancellation_free_in_double)
{
    lm_mdr_def r = *lm_mdr_find("md-r1-p2");
    r.steps = 12;
    r.R0 = 24;
    lm_mdr_rec *xd, *xm;
    lm_mdr_drift_rec *x;
    lm_mdr_info I;
    char err[256];
    cr_assert_eq(lm_mdr_drift(&xd, &xm, &x, &I, &r, SEED, 256, 0, err, sizeof err), 0, "%s", err);
    double naive_worst = 0;
    for (int t = 1; t <= r.steps; t++) {
        cr_expect_gt(x[t].growth_d, 0);
        cr_expect_lt(rdiff(xd[t].growth, x[t].growth_d), 1e-9, "t = %d: %.17g vs %.17g", t,
                     xd[t].growth, x[t].growth_d);
        naive_worst = fmax(naive_worst, rdiff(xd[t].norm - xd[0].norm, x[t].growth_d));
    }
    cr_expect_gt(naive_worst, 1e-3, "the naive difference should be visibly wrong here (%g)",
                 naive_worst);
    free(xd);
    free(xm);
    free(x);
    lm_mdr_info_clear(&I);
}

Test(md_runs, paper_drift_is_small_but_measured)
{
    lm_mdr_def r = *lm_mdr_find("md-p2");
    r.steps = 40;
    lm_mdr_rec *xd, *xm;
    lm_mdr_drift_rec *x;
    lm_mdr_info I;
    char err[256];
    cr_assert_eq(lm_mdr_drift(&xd, &xm, &x, &I, &r, SEED, 256, 1, err, sizeof err), 0, "%s", err);
    double mt = 0, mD = 0;
    for (int t = 0; t <= r.steps; t++) {
        cr_assert(isfinite(x[t].theta));
        mt = fmax(mt, x[t].theta);
        if (t > 0 && lm_mdr_keep(t, r.steps)) mD = fmax(mD, fabs(x[t].D_d - x[t].D_m) / x[t].D_m);
        if (t < r.steps) {
            cr_expect_eq(x[t].frozen, 0, "t = %d", t);
            cr_expect_eq(x[t].changed, 100, "t = %d", t);
        }
    }
    cr_expect_lt(mt, 1e-13, "Theta drift %g", mt);
    cr_expect_gt(mt, 0, "a double run identical to MPFR-256 means the drift is not measured");
    cr_expect_lt(mD, 1e-12, "D drift %g", mD);
    cr_expect(I.alpha_agree);
    cr_expect_eq(lm_mdr_frozen_from(x, r.steps), -1);
    cr_expect_lt(fabs(xd[r.steps].log_loss - xm[r.steps].log_loss), 1e-13);
    free(xd);
    free(xm);
    free(x);
    lm_mdr_info_clear(&I);
}

/* far out in the cone the double run does not move at all; near the
 * solution it is faithful */
Test(md_runs, far_start_freezes_from_the_first_iterate)
{
    lm_mdr_def r = *lm_mdr_find("md-r1-p2");
    r.steps = 6;
    const double R0[2] = {40.0, 2.0};
    for (int k = 0; k < 2; k++) {
        r.R0 = R0[k];
        lm_mdr_rec *xd, *xm;
        lm_mdr_drift_rec *x;
        char err[256];
        cr_assert_eq(lm_mdr_drift(&xd, &xm, &x, NULL, &r, SEED, 256, 0, err, sizeof err), 0, "%s",
                     err);
        int ff = lm_mdr_frozen_from(x, r.steps);
        if (k == 0) {
            cr_expect_eq(ff, 0, "R0 = 40: frozen from %d", ff);
            for (int t = 1; t <= r.steps; t++) {
                cr_expect_eq(x[t].growth_d, 0.0);
                cr_expect_eq(xd[t].growth, 0.0);
                cr_expect_gt(x[t].growth_m, 0.0);
                cr_expect_eq(x[t].disp, 1.0);
            }
            cr_expect_eq(x[0].moved, 100);
        } else {
            cr_expect_eq(ff, -1);
            for (int t = 1; t <= r.steps; t++) {
                cr_expect_lt(x[t].disp, 1e-10, "R0 = 2, t = %d: %g", t, x[t].disp);
                cr_expect_lt(rdiff(x[t].growth_d, x[t].growth_m), 1e-10);
            }
        }
        free(xd);
        free(xm);
        free(x);
    }
}

/* frozen_from is the start of the final all-frozen stretch */
Test(md_runs, frozen_from_reads_the_last_stretch)
{
    lm_mdr_drift_rec x[6];
    memset(x, 0, sizeof x);
    int ch[5] = {3, 0, 2, 0, 0};
    for (int t = 0; t < 5; t++) {
        x[t].moved = 4;
        x[t].changed = ch[t];
        x[t].frozen = 4 - ch[t];
    }
    x[5].moved = x[5].changed = x[5].frozen = -1;
    cr_expect_eq(lm_mdr_frozen_from(x, 5), 3);
    x[4].changed = 1;
    cr_expect_eq(lm_mdr_frozen_from(x, 5), -1);
    /* an exact stationary point (MPFR does not move either) is not a freeze */
    x[4].changed = 0;
    x[4].moved = 0;
    cr_expect_eq(lm_mdr_frozen_from(x, 5), -1);
}

/* the paper's 3x3 reading at the paper's lengths, in double: on each
 * trajectory the matched p' = p is the smallest divergence at the end */
Test(md_runs, matched_pprime_is_smallest_at_the_paper_lengths)
{
    const char *names[2] = {"md-p1.75", "md-p2"};
    lm_ctx c = lm_ctx_double();
    for (int k = 0; k < 2; k++) {
        const lm_mdr_def *r = lm_mdr_find(names[k]);
        lm_mdr_rec *x;
        char err[256];
        cr_assert_eq(lm_mdr_exec(&x, NULL, r, SEED, &c, 1, err, sizeof err), 0, "%s", err);
        const double *D = x[r->steps].D;
        for (int j = 0; j < LM_MDR_NPP; j++)
            if (j != k)
                cr_expect_lt(D[k], D[j], "%s: D(p' = %g) = %g vs D(p' = %g) = %g", names[k],
                             lm_mdr_pprime[k], D[k], lm_mdr_pprime[j], D[j]);
        cr_expect(isnan(x[r->steps - 1].D[0]) || lm_mdr_keep(r->steps - 1, r->steps),
                  "a sparse run evaluates D only at the kept iterates");
        free(x);
    }
}

Test(md_runs, settings_parse_and_reject)
{
    lm_mdr_def r = *lm_mdr_find("md-r1-p3");
    char err[256];
    cr_expect_eq(lm_mdr_set(&r, "R0=5", err, sizeof err), 0);
    cr_expect_eq(r.R0, 5.0);
    cr_expect_eq(lm_mdr_set(&r, "p=1.5", err, sizeof err), 0);
    cr_expect_eq(r.p, 1.5);
    cr_expect_eq(lm_mdr_set(&r, "normalized=1", err, sizeof err), 0);
    cr_expect_eq(r.normalized, 1);
    cr_expect_neq(lm_mdr_set(&r, "normalized=2", err, sizeof err), 0);
    cr_expect_neq(lm_mdr_set(&r, "p=1", err, sizeof err), 0);
    cr_expect_neq(lm_mdr_set(&r, "eta=0", err, sizeof err), 0);
    cr_expect_neq(lm_mdr_set(&r, "T=1", err, sizeof err), 0);
    cr_expect_neq(lm_mdr_set(&r, "steps=2.5", err, sizeof err), 0);
    cr_expect_neq(lm_mdr_set(&r, "mu=1", err, sizeof err), 0);
    cr_expect_neq(lm_mdr_set(&r, "nosuch=1", err, sizeof err), 0);
    cr_expect(strstr(err, "unknown run setting") != NULL, "%s", err);
    cr_expect_neq(lm_mdr_set(&r, "init=1", err, sizeof err), 0);
    cr_expect(strstr(err, "does not apply") != NULL, "%s", err);
    lm_mdr_def q = *lm_mdr_find("md-p2");
    cr_expect_neq(lm_mdr_set(&q, "R0=3", err, sizeof err), 0);
    cr_expect(strstr(err, "does not apply") != NULL, "%s", err);
    cr_expect_eq(lm_mdr_set(&q, "init=0.5", err, sizeof err), 0);
    cr_expect_null(lm_mdr_find("md-nosuch"));
}

/* Gaussian start (the paper's 100-seed runs): W(0) != 0, same numbers in
 * double and MPFR */
Test(md_runs, gaussian_init_is_a_setting)
{
    lm_mdr_def r = *lm_mdr_find("md-p3");
    r.steps = 3;
    char err[256];
    cr_assert_eq(lm_mdr_set(&r, "init=1", err, sizeof err), 0);
    lm_mdr_rec *xd, *xm;
    lm_mdr_drift_rec *x;
    cr_assert_eq(lm_mdr_drift(&xd, &xm, &x, NULL, &r, SEED, 128, 0, err, sizeof err), 0, "%s", err);
    cr_expect_gt(xd[0].norm, 5.0, "||W(0)||_3 of a 10 x 10 N(0,1) matrix: %g", xd[0].norm);
    cr_expect_lt(rdiff(xd[0].norm, xm[0].norm), 1e-14);
    cr_expect_lt(x[3].theta, 1e-14);
    free(xd);
    free(xm);
    free(x);
}

/* read a generated file into buf */
static void slurp(char *buf, size_t cap, const char *root, const char *rel, const char *ext)
{
    char path[700];
    cr_assert((size_t)snprintf(path, sizeof path, "%s/%s%s", root, rel, ext) < sizeof path);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = 0;
    fclose(f);
    unlink(path);
}

/* every live entry carries labelled figures, and the report writes a
 * gnuplot script for each (log axes, legends, the fixed y ranges) */
Test(md_runs, live_entries_write_labelled_figures)
{
    const int want[3] = {7, 1, 4};
    const char *tags[3][7] = {
        {"dirbreg-p1-75", "dirbreg-p2", "dirbreg-p3", "norm", "loss", "saturation", "grad"},
        {"drift"},
        {"growth", "growth-ratio", "disp", "frozen"}};
    char root[] = "/tmp/lemmata-mdruns-XXXXXX";
    cr_assert_not_null(mkdtemp(root));
    char dir[300];
    snprintf(dir, sizeof dir, "%s/figures", root);
    cr_assert_eq(mkdir(dir, 0777), 0);
    for (int k = 0; k < 3; k++) {
        lm_mdlive L;
        char err[256];
        cr_assert_eq(lm_mdlive_run(&L, k, 1, SEED, err, sizeof err), 0, "%s: %s",
                     lm_mdlive_names[k], err);
        cr_expect_str_eq(L.name, lm_mdlive_names[k]);
        cr_expect(L.summary && strlen(L.summary) > 40);
        cr_expect(strstr(L.summary, "Repeat: lemmata train") != NULL, "%s", L.summary);
        cr_expect_eq(lm_fig_live_count(L.series), want[k], "%s", L.name);
        lm_figure fig[8];
        int nfig = 0;
        cr_assert_eq(lm_fig_write_live(root, L.name, L.series, fig, &nfig, 8, err, sizeof err), 0,
                     "%s", err);
        cr_expect_eq(nfig, want[k]);
        for (int j = 0; j < nfig; j++) {
            char buf[16384];
            cr_expect(strstr(fig[j].path, tags[k][j]) != NULL, "%s", fig[j].path);
            cr_expect(fig[j].caption[0] != 0);
            slurp(buf, sizeof buf, root, fig[j].path, ".gp");
            cr_expect(strstr(buf, "set logscale x") != NULL, "%s: no log x axis", fig[j].path);
            cr_expect(strstr(buf, "set xlabel 'iterate k'") != NULL, "%s", fig[j].path);
            cr_expect(strstr(buf, " title '") != NULL, "%s: no legend entry", fig[j].path);
            if (k == 2 && !strcmp(tags[k][j], "frozen"))
                cr_expect(strstr(buf, "set yrange [-2:108]") != NULL, "%s", buf);
            if (k == 0 && j < 3) {
                cr_expect(strstr(buf, "set logscale y") != NULL, "%s", fig[j].path);
                cr_expect(strstr(buf, "(matched)") != NULL, "%s", fig[j].path);
            }
            slurp(buf, sizeof buf, root, fig[j].path, ".dat");
        }
        if (k == 2) {
            cr_expect(strstr(L.summary, "R0 = 36: the double run is frozen from iterate 0") != NULL,
                      "%s", L.summary);
            cr_expect(strstr(L.summary, "R0 = 2: never frozen") != NULL, "%s", L.summary);
        }
        lm_live_clear(&L);
    }
    rmdir(dir);
    rmdir(root);
}

/* the optional y-range field of a #figure directive: used when it parses,
 * ignored otherwise (and on a log axis with a non-positive lower end) */
Test(md_runs, figure_yrange_field)
{
    char root[] = "/tmp/lemmata-mdfig-XXXXXX";
    cr_assert_not_null(mkdtemp(root));
    char dir[300];
    snprintf(dir, sizeof dir, "%s/figures", root);
    cr_assert_eq(mkdir(dir, 0777), 0);
    const char *blob = "#figure\ta\t0\t0\tx\ty\tT\tcap\t-1:2\n"
                       "s\t1\t0.5\ns\t2\t1\n"
                       "#figure\tb\t0\t1\tx\ty\tT\tcap\t0:2\n"
                       "s\t1\t0.5\ns\t2\t1\n"
                       "#figure\tc\t0\t0\tx\ty\tT\tcap\tnonsense\n"
                       "s\t1\t0.5\ns\t2\t1\n"
                       "#figure\td\t0\t0\tx\ty\tT\tcap\n"
                       "s\t1\t0.5\ns\t2\t1\n";
    lm_figure fig[4];
    int nfig = 0;
    char err[256];
    cr_assert_eq(lm_fig_write_live(root, "yr", blob, fig, &nfig, 4, err, sizeof err), 0, "%s", err);
    cr_assert_eq(nfig, 4);
    for (int j = 0; j < 4; j++) {
        char buf[8192];
        slurp(buf, sizeof buf, root, fig[j].path, ".gp");
        int has = strstr(buf, "set yrange") != NULL;
        cr_expect_eq(has, j == 0, "figure %d: %s", j, buf);
        if (j == 0) cr_expect(strstr(buf, "set yrange [-1:2]") != NULL, "%s", buf);
        cr_expect_str_eq(fig[j].caption, "cap");
        slurp(buf, sizeof buf, root, fig[j].path, ".dat");
    }
    rmdir(dir);
    rmdir(root);
}

/* ---- the command line ---- */

Test(md_runs, train_writes_a_csv_with_header_and_rows)
{
    char out[16384], path[] = "/tmp/lemmata-mdtrain-XXXXXX";
    cr_assert_not_null(mkdtemp(path));
    char args[1024], csv[600];
    snprintf(csv, sizeof csv, "%s/p2.csv", path);
    snprintf(args, sizeof args, "train md-p2 --steps 30 --out %s", csv);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    cr_expect(strstr(out, "selected tokens alpha =") != NULL, "%s", out);
    FILE *f = fopen(csv, "r");
    cr_assert_not_null(f);
    char line[2048];
    cr_assert_not_null(fgets(line, sizeof line, f));
    cr_expect(strncmp(line, "iterate,loss,log_loss,norm_p,norm_growth,D_p1.75,D_p2,D_p3", 58) == 0,
              "header: %s", line);
    int rows = 0, last = -1, nan_d = 0;
    while (fgets(line, sizeof line, f)) {
        rows++;
        last = atoi(line);
        if (rows > 1 && strstr(line, "nan")) nan_d += rows < 31; /* only the last step is NaN */
    }
    fclose(f);
    cr_expect_eq(rows, 31, "want 31 rows (iterates 0..30), got %d", rows);
    cr_expect_eq(last, 30);
    cr_expect_eq(nan_d, 0, "a full run has every quantity at every iterate");
    unlink(csv);
    /* a diverging run fails and leaves no file */
    snprintf(args, sizeof args, "train md-p2 --steps 5 --set eta=1e300 --set p=1.5 --out %s", csv);
    int rc = lm_test_cli(out, sizeof out, args);
    cr_expect_eq(rc, 3, "exit %d: %s", rc, out); /* 3: the run failed */
    cr_expect(strstr(out, "not finite") != NULL, "%s", out);
    cr_expect_neq(access(csv, F_OK), 0, "a failed run left %s", csv);
    rmdir(path);
}

Test(md_runs, train_drift_reports_the_frozen_iterate)
{
    char out[16384];
    int rc = lm_test_cli(out, sizeof out, "train md-r1-p2 --steps 3 --set R0=40 --drift 256 --csv");
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "iterate,log_loss_double,log_loss_mpfr") != NULL, "%s", out);
    cr_expect(strstr(out, "frozen from iterate 0") != NULL, "%s", out);
    rc = lm_test_cli(out, sizeof out, "train md-r1-p2 --steps 3 --drift 256");
    cr_assert_eq(rc, 0, "%s", out);
    cr_expect(strstr(out, "not frozen at its end") != NULL, "%s", out);
}

Test(md_runs, train_lists_and_rejects)
{
    char out[16384];
    cr_assert_eq(lm_test_cli(out, sizeof out, "train"), 0);
    for (int k = 0; lm_mdr_runs[k].name; k++)
        cr_expect(strstr(out, lm_mdr_runs[k].name) != NULL, "%s not listed", lm_mdr_runs[k].name);
    cr_expect(strstr(out, "ib-ngd") != NULL && strstr(out, "t1-softmax-block") != NULL,
              "the other papers' runs must stay listed");
    const char *bad[][2] = {{"train md-p2 --set nosuch=1", "unknown run setting"},
                            {"train md-p2 --set p=0.5", "bad value in --set"},
                            {"train md-p2 --set p=0.5", "p takes a number in [1.05, 4], not '0.5'"},
                            {"train md-p2 --set n=17", "n takes an integer in [1, 16], not '17'"},
                            {"train md-p2 --set 'n= 1'", "n takes an integer"},
                            {"train md-p2 --set n=1x", "n takes an integer"},
                            {"train md-p2 --set eta=NaN", "eta takes a number in (0, 1e+300]"},
                            {"train md-p2 --set eta=0x10", "eta takes a number"},
                            {"train md-p2 --set steps=-1", "steps takes an integer in [0, 1000000]"},
                            {"train md-r1-p2 --set mu=1", "mu takes a number in [-1000000, 1)"},
                            {"train md-r1-p3 --drift 8", "--drift"},
                            {"train md-nosuch", "unknown run 'md-nosuch'"}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        int rc = lm_test_cli(out, sizeof out, bad[k][0]);
        cr_expect_eq(rc, 2, "'%s' exit %d: %s", bad[k][0], rc, out);
        cr_expect(strstr(out, bad[k][1]) != NULL, "'%s': %s", bad[k][0], out);
        cr_expect(strchr(out, '\n') == out + strlen(out) - 1, "want one line, got: %s", out);
    }
}

/* issue 15: every setting has a range; the sizes' ends are resource bounds (the l_p-AttSVMs),
 * and a run whose record of W(k) would not fit is refused before it starts */
Test(md_runs, train_settings_at_the_ends_of_their_ranges_run, .timeout = 240)
{
    char out[16384];
    const char *ok[] = {"train md-p2 --steps 2 --set n=16",      "train md-p2 --steps 2 --set T=32",
                        "train md-p2 --steps 2 --set d=32",      "train md-p2 --steps 2 --set p=4",
                        "train md-p2 --steps 2 --set p=1.05",    "train md-p2 --steps 0",
                        "train md-r1-p2 --steps 2 --set n=16",   "train md-r1-p2 --steps 2 --set mu=-1e6",
                        "train md-r1-p2 --steps 2 --set R0=1e6", "train md-p2 --steps 2 --set init=1e6"};
    for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
        int rc = lm_test_cli(out, sizeof out, ok[k]);
        cr_expect(rc == 0 || rc == 3, "'%s' exit %d: %s", ok[k], rc, out); /* 3: a run that failed cleanly */
    }
    int rc = lm_test_cli(out, sizeof out, "train md-p2 --steps 1000000 --set d=32");
    cr_expect_eq(rc, 3, "exit %d: %s", rc, out);
    cr_expect(strstr(out, "at most 1024 MB") != NULL, "%s", out);
}
