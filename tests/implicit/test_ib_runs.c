/* tests/test_ib_runs.c -- the implicit-bias paper's live runs (lm_ibruns.h):
 * each run's first iterates against the explicit d x d optimizers of
 * src/train/ib_opt.c on the same data, the double-vs-MPFR drift of an NGD
 * run, the live figures' directives, and `lemmata train` on these runs. */
#include "test_support.h"
#include <criterion/criterion.h>

#include "../src/report/report_priv.h"
#include "lm_attn.h"
#include "lm_ibgen.h"
#include "lm_ibruns.h"
#include "lm_svm.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const uint64_t SEED = 20241122;

/* relative difference, or absolute below 1 */
static double rdiff(double a, double b)
{
    if (isnan(a) && isnan(b)) return 0.0;
    return fabs(a - b) / fmax(1.0, fabs(b));
}

/* the run's data, built independently of ib_runs.c from the documented
 * generators (EX1-hetero / EX1-antipodal / DM, then the Lemma-4 W_0) */
static lm_attn_data *data_of(const lm_ibrun_def *r, uint64_t seed, const lm_ctx *c, lm_mat **W0)
{
    lm_rng g;
    lm_rng_init(&g, seed);
    lm_attn_data *D;
    if (r->data == LM_IBR_DM) {
        lm_ibgen_dm_opts o;
        lm_ibgen_dm_defaults(&o);
        o.n = r->n;
        o.d = r->d;
        D = lm_ibgen_dm(&o, &g, c);
    } else {
        lm_ibgen_ex1_opts o;
        lm_ibgen_ex1_defaults(&o, 1);
        o.n = r->n;
        o.T = r->T;
        o.d = r->d;
        o.antipodal = r->data == LM_IBR_EX1_ANTIPODAL;
        D = lm_ibgen_ex1(&o, &g, c);
    }
    *W0 = r->init > 0 ? lm_ibgen_w0(r->d, r->init * 0.01 / r->d, &g, c)
                      : lm_mat_new(r->d, r->d, c);
    return D;
}

/* worst difference between the run's records and the explicit optimizer */
static double against_explicit(const lm_ibrun_def *r0, double init, int steps)
{
    lm_ibrun_def r = *r0;
    r.d = r.data == LM_IBR_DM ? 40 : 30;
    r.steps = steps;
    r.init = init;
    lm_ctx c = lm_ctx_double();
    lm_ibrun_rec *x = NULL;
    char err[256];
    cr_assert_eq(lm_ibrun_exec(&x, &r, SEED, &c, err, sizeof err), 0, "%s: %s", r.name, err);
    lm_mat *W0;
    lm_attn_data *D = data_of(&r, SEED, &c, &W0);
    int joint = lm_ibrun_joint(&r);
    lm_mat *u0 = joint ? lm_mat_new(D->d, 1, &c) : lm_mat_dup(D->u);
    lm_attn_state *S = lm_attn_state_new(W0, u0);
    lm_attn_fwd *F = lm_attn_fwd_new(D);
    lm_attn_opt_par p;
    lm_attn_opt_par_default(&p);
    p.eta = r.eta;
    p.eta_max = r.eta_max;
    p.alpha = r.alpha;
    const lm_attn_opt *opt = lm_attn_opt_find(r.opt);
    cr_assert_not_null(opt);
    lm_svm_sol sw, su;
    memset(&sw, 0, sizeof sw);
    memset(&su, 0, sizeof su);
    cr_assert_eq(lm_svm_w(&sw, D, NULL), 0);
    lm_mat *Wmm = lm_mat_new(D->d, D->d, &c), *umm = lm_mat_new(D->d, 1, &c);
    lm_svm_w_matrix(Wmm, &sw, D);
    if (joint) {
        cr_assert_eq(lm_svm_u(&su, D, NULL), 0);
        lm_svm_u_vector(umm, &su, D);
    }
    lm_num v;
    lm_num_init(&v, &c);
    double worst = 0;
    for (int t = 0; t <= steps; t++) {
        cr_assert_eq(lm_attn_forward(F, D, S->W, S->u, p.loss), 0);
        cr_assert_eq(x[t].t, t);
        worst = fmax(worst, rdiff(x[t].log_loss, lm_num_get_d(&F->logL)));
        lm_mat_frob(&v, S->W);
        double nw = lm_num_get_d(&v);
        worst = fmax(worst, rdiff(x[t].norm_W, nw));
        lm_mat_frob(&v, S->u);
        worst = fmax(worst, rdiff(x[t].norm_u, lm_num_get_d(&v)));
        if (nw > 0) {
            lm_attn_one_minus_cos(&v, S->W, Wmm);
            worst = fmax(worst, rdiff(x[t].e_W, lm_num_get_d(&v)));
        }
        if (joint && t > 0) {
            lm_attn_one_minus_cos(&v, S->u, umm);
            worst = fmax(worst, rdiff(x[t].e_u, lm_num_get_d(&v)));
        }
        /* s_opt of the designated optimal tokens */
        double mean = 0;
        for (int i = 0; i < D->n; i++) {
            lm_mat_get(&v, F->logs, i, D->opt[i]);
            mean += exp(lm_num_get_d(&v)) / D->n;
        }
        worst = fmax(worst, rdiff(x[t].mean_sopt, mean));
        if (t == steps) break;
        cr_assert_eq(opt->step(S, F, D, &p), 0, "%s explicit step %d", r.name, t);
        if (!isinf(S->last_step) && !isinf(x[t].step))
            worst = fmax(worst, fabs(x[t].step - S->last_step) / fmax(1.0, fabs(S->last_step)));
    }
    lm_num_clear(&v);
    lm_svm_sol_clear(&sw);
    lm_svm_sol_clear(&su);
    lm_mat_free(Wmm);
    lm_mat_free(umm);
    lm_attn_fwd_free(F);
    lm_attn_state_free(S);
    lm_mat_free(u0);
    lm_mat_free(W0);
    lm_attn_data_free(D);
    free(x);
    return worst;
}

Test(ib_runs, first_iterates_match_the_explicit_optimizers)
{
    for (int k = 0; lm_ibruns[k].name; k++) {
        double w = against_explicit(&lm_ibruns[k], 0.0, 25);
        cr_expect(w < 1e-9, "%s: run and explicit optimizer differ by %g", lm_ibruns[k].name, w);
    }
    /* the Lemma-4 start */
    double w = against_explicit(lm_ibrun_find("ib-ngd"), 1.0, 25);
    cr_expect(w < 1e-9, "ib-ngd from the Lemma-4 W_0: differ by %g", w);
}

Test(ib_runs, ngd_drift_is_small_but_not_zero)
{
    lm_ibrun_def r = *lm_ibrun_find("ib-ngd");
    r.steps = 200;
    lm_ibrun_rec *xd, *xm;
    lm_ibrun_drift_rec *x;
    char err[256];
    cr_assert_eq(lm_ibrun_drift(&xd, &xm, &x, &r, SEED, 256, err, sizeof err), 0, "%s", err);
    double mc = 0, me = 0;
    for (int t = 0; t <= r.steps; t++) {
        cr_assert(isfinite(x[t].coef), "drift not finite at %d", t);
        mc = fmax(mc, x[t].coef);
        if (t > 0) me = fmax(me, x[t].e_rel);
    }
    cr_expect(mc < 1e-10, "coefficient drift %g", mc);
    cr_expect(mc > 0, "a double run identical to MPFR-256 means the drift is not measured");
    cr_expect(me < 1e-10, "relative e_t difference %g", me);
    /* the MPFR run is the same run: loss and e_t agree to double accuracy */
    cr_expect(rdiff(xd[r.steps].log_loss, xm[r.steps].log_loss) < 1e-12);
    /* a precision-sensitive reading: the double run saturates (1 - s_opt < 2^-53) */
    cr_expect(xd[r.steps].min_lomso < -53.0 * log(2.0));
    free(xd);
    free(xm);
    free(x);
}

/* the drift measure sees a real difference: another step size */
Test(ib_runs, drift_measure_is_not_blind)
{
    lm_ibrun_def r = *lm_ibrun_find("ib-ngd");
    r.steps = 10;
    r.d = 50;
    lm_ctx c = lm_ctx_double();
    lm_ibrun_rec *a, *b;
    char err[256];
    cr_assert_eq(lm_ibrun_exec(&a, &r, SEED, &c, err, sizeof err), 0);
    r.eta *= 1.0 + 1e-6;
    cr_assert_eq(lm_ibrun_exec(&b, &r, SEED, &c, err, sizeof err), 0);
    cr_expect(fabs(a[10].norm_W - b[10].norm_W) > 1e-8);
    free(a);
    free(b);
}

Test(ib_runs, settings_parse_and_reject)
{
    lm_ibrun_def r = *lm_ibrun_find("ib-joint13");
    char err[256];
    cr_expect_eq(lm_ibrun_set(&r, "eta=0.25", err, sizeof err), 0);
    cr_expect_eq(r.eta, 0.25);
    cr_expect_eq(lm_ibrun_set(&r, "d=64", err, sizeof err), 0);
    cr_expect_eq(r.d, 64);
    cr_expect_neq(lm_ibrun_set(&r, "T=3", err, sizeof err), 0); /* DM has T = 2 */
    cr_expect_neq(lm_ibrun_set(&r, "eta=-1", err, sizeof err), 0);
    cr_expect_neq(lm_ibrun_set(&r, "n=2.5", err, sizeof err), 0);
    cr_expect_neq(lm_ibrun_set(&r, "nosuch=1", err, sizeof err), 0);
    cr_expect(strstr(err, "unknown run setting") != NULL, "%s", err);
}

Test(ib_runs, fit_recovers_a_cube_root_rate)
{
    int T = 1000;
    lm_ibrun_rec *x = calloc((size_t)T + 1, sizeof *x);
    for (int t = 0; t <= T; t++) x[t].log_loss = 0.7 - 0.3 * cbrt((double)t);
    double a2, c2, c = lm_ibrun_fit_cuberoot(x, T, &a2, &c2);
    cr_expect(fabs(c2 - 0.3) < 1e-9 && fabs(a2 - 0.7) < 1e-9, "c2 %g a %g", c2, a2);
    cr_expect(c > 0.2 && c < 0.3, "one-parameter c %g", c);
    free(x);
}

/* the comparison entry of `lemmata verify` carries four figures with axes,
 * log x and its labels, and the report writes four gnuplot scripts */
Test(ib_runs, live_compare_has_four_labelled_log_figures)
{
    lm_iblive L;
    char err[256];
    cr_assert_eq(lm_iblive_run(&L, 1, 1, SEED, err, sizeof err), 0, "%s", err);
    cr_expect_eq(lm_fig_live_count(L.series), 4);
    char root[] = "/tmp/lemmata-ibruns-XXXXXX";
    cr_assert_not_null(mkdtemp(root));
    char dir[300];
    snprintf(dir, sizeof dir, "%s/figures", root);
    cr_assert_eq(mkdir(dir, 0777), 0);
    lm_figure fig[8];
    int nfig = 0;
    cr_assert_eq(lm_fig_write_live(root, L.name, L.series, fig, &nfig, 8, err, sizeof err), 0,
                 "%s", err);
    cr_expect_eq(nfig, 4);
    const char *want[4] = {"loss", "normW", "sopt", "align"};
    for (int k = 0; k < nfig; k++) {
        char path[600], buf[8192];
        cr_expect(strstr(fig[k].path, want[k]) != NULL, "%s", fig[k].path);
        cr_expect(fig[k].caption[0] != 0);
        cr_assert((size_t)snprintf(path, sizeof path, "%s/%s.gp", root, fig[k].path) < sizeof path);
        FILE *f = fopen(path, "r");
        cr_assert_not_null(f, "%s", path);
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        fclose(f);
        cr_expect(strstr(buf, "set logscale x") != NULL, "%s: no log x axis", fig[k].path);
        cr_expect(strstr(buf, "set xlabel 'iterate t'") != NULL, "%s", fig[k].path);
        cr_expect(strstr(buf, "title 'NGD (eta 0.5)'") != NULL, "%s: no legend entry", fig[k].path);
        unlink(path);
        cr_assert((size_t)snprintf(path, sizeof path, "%s/%s.dat", root, fig[k].path) < sizeof path);
        unlink(path);
    }
    rmdir(dir);
    rmdir(root);
    lm_live_clear(&L);
}

/* ---- the command line ---- */

Test(ib_runs, train_writes_a_csv_with_header_and_rows)
{
    char out[8192], path[] = "/tmp/lemmata-ibtrain-XXXXXX";
    cr_assert_not_null(mkdtemp(path));
    char args[1024], csv[600];
    snprintf(csv, sizeof csv, "%s/ngd.csv", path);
    snprintf(args, sizeof args, "train ib-ngd --steps 50 --out %s", csv);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    FILE *f = fopen(csv, "r");
    cr_assert_not_null(f);
    char line[1024];
    cr_assert_not_null(fgets(line, sizeof line, f));
    cr_expect(strncmp(line, "iterate,loss,log_loss,log_excess,norm_W", 39) == 0, "header: %s", line);
    int rows = 0, last = -1;
    while (fgets(line, sizeof line, f)) {
        rows++;
        last = atoi(line);
    }
    fclose(f);
    cr_expect_eq(rows, 51, "want 51 rows (iterates 0..50), got %d", rows);
    cr_expect_eq(last, 50);
    unlink(csv);
    /* a diverging run fails and leaves no file */
    snprintf(args, sizeof args, "train ib-gd --steps 5 --set eta=1e300 --out %s", csv);
    int rc = lm_test_cli(out, sizeof out, args);
    cr_expect_eq(rc, 3, "exit %d: %s", rc, out); /* 3: the run failed (issue 15 exit statuses) */
    cr_expect(strstr(out, "not finite") != NULL, "%s", out);
    cr_expect_neq(access(csv, F_OK), 0, "a failed run left %s", csv);
    rmdir(path);
}

Test(ib_runs, unknown_run_is_a_one_line_error)
{
    char out[8192];
    int rc = lm_test_cli(out, sizeof out, "train ib-nosuch --steps 5");
    cr_expect_eq(rc, 2, "exit %d: %s", rc, out);
    cr_expect(strstr(out, "unknown run 'ib-nosuch'") != NULL, "%s", out);
    cr_expect(strchr(out, '\n') == out + strlen(out) - 1, "want one line, got: %s", out);
    rc = lm_test_cli(out, sizeof out, "train ib-ngd --set nosuch=1");
    cr_expect_eq(rc, 2, "exit %d: %s", rc, out);
    cr_expect(strstr(out, "unknown run setting") != NULL, "%s", out);
    cr_expect(strchr(out, '\n') == out + strlen(out) - 1, "want one line, got: %s", out);
}

Test(ib_runs, train_lists_the_implicit_runs)
{
    char out[8192];
    cr_assert_eq(lm_test_cli(out, sizeof out, "train"), 0);
    for (int k = 0; lm_ibruns[k].name; k++)
        cr_expect(strstr(out, lm_ibruns[k].name) != NULL, "%s not listed", lm_ibruns[k].name);
    cr_expect(strstr(out, "t1-softmax-block") != NULL, "the dynamics runs must stay listed");
}

/* issue 15: every run setting has a declared range, and a value outside it (or not a
 * plain number) is a one-line error naming the range */
Test(ib_runs, settings_outside_their_range_are_refused)
{
    lm_ibrun_def r = *lm_ibrun_find("ib-ngd");
    char err[256];
    const char *bad[] = {"steps=-1", "steps=1e300", "steps=2.5", "d=0", "d=1e9", "n=0", "n=33", "T=1", "T=9",
                         "eta=0", "eta=NaN", "eta=abc", "eta= 1", "eta=1x", "eta=inf", "eta=0x1p3",
                         "alpha=-1", "init=-1", "eta_max=0", NULL};
    for (int k = 0; bad[k]; k++) {
        err[0] = 0;
        cr_expect_neq(lm_ibrun_set(&r, bad[k], err, sizeof err), 0, "%s accepted", bad[k]);
        cr_expect(strstr(err, "run ib-ngd: ") == err && strstr(err, " takes ") && strstr(err, ", not '"),
                  "%s: %s", bad[k], err);
        cr_expect(strchr(err, '\n') == NULL, "%s: %s", bad[k], err);
    }
    cr_expect_eq(memcmp(&r, lm_ibrun_find("ib-ngd"), sizeof r), 0, "a refused value changed the run");
    const char *good[] = {"steps=0", "steps=1000000", "d=1", "d=4096", "n=1", "n=32", "T=2", "T=8",
                          "eta=1e300", "alpha=0", "alpha=1", "init=0", "eta_max=1e300", NULL};
    for (int k = 0; good[k]; k++)
        cr_expect_eq(lm_ibrun_set(&r, good[k], err, sizeof err), 0, "%s: %s", good[k], err);
    lm_ibrun_def j = *lm_ibrun_find("ib-joint13");
    cr_expect_neq(lm_ibrun_set(&j, "T=3", err, sizeof err), 0);
    cr_expect(strstr(err, "only 2") != NULL, "%s", err);
    cr_expect_eq(lm_ibrun_set(&j, "T=2", err, sizeof err), 0, "%s", err);
}

/* the smallest sizes, the largest values and a zero-step run come back (no crash, one-line
 * error at most) */
Test(ib_runs, extreme_settings_run, .timeout = 120)
{
    const char *cmds[] = {"train ib-ngd --steps 3 --set d=1", "train ib-ngd --steps 3 --set n=1 --set T=2",
                          "train ib-joint13 --steps 3 --set n=1 --set d=1", "train ib-gd --steps 0",
                          "train ib-polyak-cap --steps 3 --set eta_max=1e300 --set init=1e6",
                          "train ib-joint13 --steps 3 --set alpha=0 --set eta=1e6",
                          "train ib-ngd --steps 3 --set n=32 --set T=8 --set d=4096",
                          "train ib-polyak --steps 3 --drift 256", NULL};
    for (int k = 0; cmds[k]; k++) {
        char out[65536];
        int rc = lm_test_cli(out, sizeof out, cmds[k]);
        /* 3: a run that cannot go on (e.g. d = 1 leaves the W-SVM infeasible), said in one line */
        cr_expect(rc == 0 || rc == 3, "`%s` exited %d: %.300s", cmds[k], rc, out);
        if (rc) cr_expect(strchr(out, '\n') == out + strlen(out) - 1, "`%s`: %s", cmds[k], out);
    }
}
