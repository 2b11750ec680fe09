/* tests/test_pr_runs.c -- the attention-pruning paper's Figure 2 as live runs
 * (lm_prruns.h): finite errors, the exact edge cases (rho = 0 prunes nothing:
 * error exactly 0 for every method; magnitude pruning at rho = 1 prunes
 * everything: uniform attention), the data scaling, Wanda against an
 * independent rebuild, reproducibility of the figure blobs, the run
 * settings, and the registry used by `lemmata train`. */
#include "test_support.h"
#include <criterion/criterion.h>

#include "lm_prruns.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint64_t SEED = 20241122;

static lm_prr_def small_def(const char *name)
{
    lm_prr_def r = *lm_prr_find(name);
    r.n = 6;
    r.d = 6;
    r.steps = 150;
    return r;
}

Test(pr_runs, registry_and_names)
{
    cr_assert_not_null(lm_prr_find("pr-fig2c"));
    cr_assert_not_null(lm_prr_find("pr-fig2a"));
    cr_assert_not_null(lm_prr_find("pr-fig2b"));
    cr_assert_null(lm_prr_find("pr-nope"));
    int k = 0;
    while (lm_prlive_names[k]) {
        cr_assert_not_null(lm_prr_find(lm_prlive_names[k]));
        k++;
    }
    cr_assert_eq(k, 3);
}

Test(pr_runs, settings_parse_and_reject)
{
    lm_prr_def r = *lm_prr_find("pr-fig2c");
    char err[256];
    cr_assert_eq(lm_prr_set(&r, "d=8", err, sizeof err), 0);
    cr_assert_eq(r.d, 8);
    cr_assert_eq(lm_prr_set(&r, "lambda=0.01", err, sizeof err), 0);
    cr_assert_float_eq(r.lambda, 0.01, 0.0);
    cr_assert_eq(lm_prr_set(&r, "causal=1", err, sizeof err), 0);
    cr_assert_eq(r.causal, 1);
    err[0] = 0;
    cr_assert_eq(lm_prr_set(&r, "d", err, sizeof err), -1);
    cr_assert(strstr(err, "malformed"), "%s", err);
    cr_assert_eq(lm_prr_set(&r, "=3", err, sizeof err), -1);
    cr_assert_eq(lm_prr_set(&r, "d=", err, sizeof err), -1);
    cr_assert_eq(lm_prr_set(&r, "d=2.5", err, sizeof err), -1);
    cr_assert(strstr(err, "run pr-fig2c: d takes an integer in [1, 32], not '2.5'"), "%s", err);
    cr_assert_eq(lm_prr_set(&r, "rho=1.5", err, sizeof err), -1);
    cr_assert_eq(lm_prr_set(&r, "momentum=1", err, sizeof err), -1);
    cr_assert_eq(lm_prr_set(&r, "steps=abc", err, sizeof err), -1);
    cr_assert_eq(lm_prr_set(&r, "wibble=1", err, sizeof err), -1);
    cr_assert(strstr(err, "unknown run setting"), "%s", err);
    cr_assert_eq(r.d, 8, "a rejected setting must not change the run");
}

/* issue 15: every run setting has a range; values outside it (or not plain numbers) are
 * refused with a one-line message naming the range, and a rejected value changes nothing */
Test(pr_runs, settings_ranges)
{
    lm_prr_def r = *lm_prr_find("pr-fig2a");
    const lm_prr_def r0 = r;
    char err[256];
    const char *bad[] = {"steps=-1", "steps=1e300", "steps=NaN", "steps=abc", "steps= 1", "steps=1x",
                         "n=0", "n=257", "d=0", "d=33", "rho=-0.1", "lambda=-2", "lambda=inf",
                         "lambda_scale=0", "momentum=-0.5", "eta_c=0", "logit_rms=51", "causal=2",
                         "steps=0x10"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        err[0] = 0;
        cr_assert_eq(lm_prr_set(&r, bad[k], err, sizeof err), -1, "%s accepted", bad[k]);
        cr_assert(strncmp(err, "run pr-fig2a: ", 14) == 0 && strstr(err, " takes ") && !strchr(err, '\n'),
                  "%s: %s", bad[k], err);
    }
    cr_assert(!memcmp(&r, &r0, sizeof r), "a rejected setting changed the run");
    cr_assert_eq(lm_prr_set(&r, "steps=-1", err, sizeof err), -1);
    cr_assert_str_eq(err, "run pr-fig2a: steps takes an integer in [0, 1000000], not '-1'");
    const char *good[] = {"steps=0", "steps=1000000", "n=1", "n=256", "d=1", "d=32", "rho=0", "rho=1",
                          "lambda=-1", "lambda=0", "lambda=1e6", "momentum=0", "momentum=0.999",
                          "eta_c=1000", "logit_rms=50", "causal=0"};
    for (size_t k = 0; k < sizeof good / sizeof good[0]; k++)
        cr_assert_eq(lm_prr_set(&r, good[k], err, sizeof err), 0, "%s: %s", good[k], err);
}

/* the ends of the size ranges run: d = 1 and n = 1 (a 1 x 1 mask, one token) and short runs */
Test(pr_runs, size_extremes_run, .timeout = 120)
{
    static const char *const sets[][3] = {{"d=1", "steps=3", NULL}, {"n=1", "steps=3", NULL},
                                          {"steps=0", NULL, NULL}, {"d=32", "steps=2", NULL}};
    for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++) {
        lm_prr_def r = *lm_prr_find("pr-fig2c");
        char err[256] = "";
        for (int j = 0; sets[k][j]; j++) cr_assert_eq(lm_prr_set(&r, sets[k][j], err, sizeof err), 0, "%s", err);
        lm_prr_out o;
        int rc = lm_prr_exec(&o, &r, 7, 1, err, sizeof err);
        if (rc == 0) lm_prr_out_clear(&o);
        else cr_expect(err[0] != 0, "set %zu failed without a message", k);
    }
}

/* the data: max-abs and rms scaling, rank of W, W = WQ WK^T */
Test(pr_runs, instance_scaling_and_rank)
{
    lm_prr_def r = small_def("pr-fig2c");
    r.d = 8;
    r.n = 8;
    lm_prr_inst I;
    char err[256];
    cr_assert_eq(lm_prr_inst_build(&I, &r, r.n, SEED, err, sizeof err), 0, "%s", err);
    int n = I.n, d = I.d;
    double ss = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double h = 0;
            for (int a = 0; a < d; a++)
                for (int b = 0; b < d; b++)
                    h += lm_mat_get_d(I.P->X, i, a) * lm_mat_get_d(I.P->W, a, b) * lm_mat_get_d(I.P->X, j, b);
            ss += h * h;
        }
    cr_expect(fabs(sqrt(ss / (n * n)) - r.logit_rms) < 1e-9 * r.logit_rms, "rms %g", sqrt(ss / (n * n)));
    lm_ctx cd = lm_ctx_double();
    lm_num *s = lm_nums_new(d, &cd);
    lm_mat *U = lm_mat_new(d, d, &cd), *V = lm_mat_new(d, d, &cd);
    lm_mat_svd(s, U, V, I.P->W);
    cr_expect(lm_num_get_d(&s[3]) > 1e-8 * lm_num_get_d(&s[0]));
    cr_expect(lm_num_get_d(&s[4]) < 1e-12 * lm_num_get_d(&s[0]), "W has rank <= 4: s5/s1 = %g",
              lm_num_get_d(&s[4]) / lm_num_get_d(&s[0]));
    lm_nums_free(s, d);
    lm_mat_free(U);
    lm_mat_free(V);
    cr_expect(I.theta > 0 && I.reff > 0 && I.beta > 0);
    /* the held-out data share W but not X */
    cr_expect(lm_mat_get_d(I.P->W, 1, 2) == lm_mat_get_d(I.Ph->W, 1, 2));
    cr_expect(lm_mat_get_d(I.P->X, 0, 0) != lm_mat_get_d(I.Ph->X, 0, 0));
    lm_prr_inst_clear(&I);
}

/* rho = 0 prunes nothing: every method's error is exactly 0 on both data sets;
 * magnitude at rho = 1 prunes everything: the uniform attention */
Test(pr_runs, edge_ratios_exact)
{
    for (int causal = 0; causal <= 1; causal++) {
        lm_prr_def r = small_def("pr-fig2c");
        r.causal = causal;
        lm_prr_inst I;
        char err[256];
        cr_assert_eq(lm_prr_inst_build(&I, &r, r.n, SEED, err, sizeof err), 0, "%s", err);
        lm_ctx cd = lm_ctx_double();
        lm_mat *M = lm_mat_new(r.d, r.d, &cd);
        lm_prr_gdinfo gi;
        cr_assert_eq(lm_prr_gd_mask(M, &gi, &I, &r, 1e-2, err, sizeof err), 0, "%s", err);
        cr_expect(gi.Lbest < gi.L0, "GD lowered the loss: %g -> %g", gi.L0, gi.Lbest);
        double e[LM_PRR_NMETH][2];
        lm_prr_errors(e, &I, M, 0.0);
        for (int m = 0; m < LM_PRR_NMETH; m++)
            for (int s = 0; s < 2; s++) cr_expect(e[m][s] == 0.0, "method %d set %d: %g", m, s, e[m][s]);
        lm_prr_errors(e, &I, M, 1.0);
        for (int s = 0; s < 2; s++) {
            const lm_prdata *P = s ? I.Ph : I.P;
            int n = P->n;
            double num = 0, den = 0;
            for (int i = 0; i < n; i++) {
                int cnt = 0;
                for (int j = 0; j < n; j++) cnt += P->C[i * n + j];
                for (int j = 0; j < n; j++) {
                    double u = P->C[i * n + j] ? 1.0 / cnt : 0.0, f = lm_mat_get_d(P->f0, i, j);
                    num += (u - f) * (u - f);
                    den += f * f;
                }
            }
            double want = sqrt(num / den);
            cr_expect(fabs(e[1][s] - want) <= 1e-13 * want, "magnitude at rho = 1: %.17g vs %.17g",
                      e[1][s], want);
            /* every method prunes everything at rho = 1 */
            cr_expect(fabs(e[0][s] - want) <= 1e-13 * want);
            cr_expect(fabs(e[2][s] - want) <= 1e-13 * want);
        }
        lm_mat_free(M);
        lm_prr_inst_clear(&I);
    }
}

/* Wanda against an independent rebuild at rho = 0.5 */
Test(pr_runs, wanda_independent)
{
    lm_prr_def r = small_def("pr-fig2c");
    lm_prr_inst I;
    char err[256];
    cr_assert_eq(lm_prr_inst_build(&I, &r, r.n, SEED, err, sizeof err), 0, "%s", err);
    int d = r.d, n = r.n, z = d / 2;
    double xn[64], Q[64][64], K[64][64];
    for (int a = 0; a < d; a++) {
        xn[a] = 0;
        for (int i = 0; i < n; i++) xn[a] += lm_mat_get_d(I.P->X, i, a) * lm_mat_get_d(I.P->X, i, a);
        xn[a] = sqrt(xn[a]);
    }
    for (int w = 0; w < 2; w++) {
        const lm_mat *F = w ? I.WK : I.WQ;
        double(*O)[64] = w ? K : Q;
        for (int b = 0; b < d; b++) {
            for (int a = 0; a < d; a++) {
                double sc = fabs(lm_mat_get_d(F, a, b)) * xn[a];
                int rank = 0; /* entries strictly below (ties by index) */
                for (int q = 0; q < d; q++) {
                    double t = fabs(lm_mat_get_d(F, q, b)) * xn[q];
                    rank += t < sc || (t == sc && q < a);
                }
                O[a][b] = rank < z ? 0.0 : lm_mat_get_d(F, a, b);
            }
        }
    }
    lm_prdata *P2 = lm_pr_convert(I.P, &I.P->ctx);
    for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++) {
            double v = 0;
            for (int e = 0; e < d; e++) v += Q[a][e] * K[b][e];
            lm_mat_set_d(P2->W, a, b, v);
        }
    lm_pr_prepare(P2);
    double num = 0, den = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double f = lm_mat_get_d(I.P->f0, i, j), g = lm_mat_get_d(P2->f0, i, j);
            num += (g - f) * (g - f);
            den += f * f;
        }
    double want = sqrt(num / den);
    lm_ctx cd = lm_ctx_double();
    lm_mat *M = lm_mat_new(d, d, &cd);
    lm_pr_fill_mask(M, LM_PR_M_ONES, NULL);
    double e[LM_PRR_NMETH][2];
    lm_prr_errors(e, &I, M, 0.5);
    cr_expect(fabs(e[2][0] - want) <= 1e-10 * want + 1e-15, "Wanda %.17g vs rebuilt %.17g", e[2][0], want);
    cr_expect(e[2][0] > 0);
    lm_mat_free(M);
    lm_pr_free(P2);
    lm_prr_inst_clear(&I);
}

/* the sweeps: finite errors in [0, 2) (Wanda prunes nothing at floor(rho d) = 0); rho sweep of magnitude on X: the kept
 * set shrinks, so nothing but finiteness is asserted about monotonicity */
Test(pr_runs, sweeps_finite)
{
    const char *names[3] = {"pr-fig2c", "pr-fig2a", "pr-fig2b"};
    for (int k = 0; k < 3; k++) {
        lm_prr_def r = small_def(names[k]);
        r.steps = 60;
        lm_prr_out o;
        char err[256];
        cr_assert_eq(lm_prr_exec(&o, &r, SEED, 1, err, sizeof err), 0, "%s: %s", names[k], err);
        cr_expect(o.npts == (k == 0 ? 9 : k == 1 ? 13 : 3));
        for (int q = 0; q < o.npts; q++)
            for (int m = 0; m < LM_PRR_NMETH; m++)
                for (int s = 0; s < 2; s++)
                    cr_expect(isfinite(o.e[q][m][s]) && o.e[q][m][s] >= 0 && o.e[q][m][s] < 2,
                              "%s point %d method %d: %g", names[k], q, m, o.e[q][m][s]);
        lm_prr_out_clear(&o);
    }
}

/* the live entries: same seed, byte-identical blobs; a figure directive; a
 * different seed, different numbers */
Test(pr_runs, live_reproducible)
{
    for (int k = 0; lm_prlive_names[k]; k++) {
        lm_prlive A, B, C;
        char err[256];
        cr_assert_eq(lm_prlive_run(&A, k, 1, SEED, err, sizeof err), 0, "%s", err);
        cr_assert_eq(lm_prlive_run(&B, k, 1, SEED, err, sizeof err), 0, "%s", err);
        cr_assert_eq(lm_prlive_run(&C, k, 1, SEED + 1, err, sizeof err), 0, "%s", err);
        cr_assert_not_null(A.series);
        cr_expect_str_eq(A.series, B.series);
        cr_expect_str_eq(A.summary, B.summary);
        cr_expect_str_neq(A.series, C.series);
        cr_expect(strncmp(A.series, "#figure\t", 8) == 0);
        cr_expect(strstr(A.series, "GD mask (held-out X')") != NULL);
        cr_expect(strstr(A.series, "Wanda (X)") != NULL);
        cr_expect(strstr(A.series, "nan") == NULL && strstr(A.series, "inf") == NULL);
        cr_expect_str_eq(A.name, lm_prlive_names[k]);
        cr_expect_eq(A.prec, 53);
        lm_live_clear(&A);
        lm_live_clear(&B);
        lm_live_clear(&C);
    }
    lm_prlive L;
    char err[256];
    cr_expect_eq(lm_prlive_run(&L, 3, 1, SEED, err, sizeof err), -1);
}

/* the CSV of `lemmata train pr-fig2c` */
Test(pr_runs, csv_rows)
{
    lm_prr_def r = small_def("pr-fig2c");
    r.lambda = 0.01;
    lm_prr_out o;
    char err[256];
    cr_assert_eq(lm_prr_exec(&o, &r, SEED, 0, err, sizeof err), 0, "%s", err);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    lm_prr_csv(f, &r, &o);
    fclose(f);
    int lines = 0;
    for (size_t i = 0; i < len; i++) lines += buf[i] == '\n';
    cr_expect_eq(lines, 10);
    cr_expect(strncmp(buf, "rho,gd_X,gd_Xheld,", 18) == 0);
    cr_expect(o.lambda_used[0] == 0.01);
    /* lm_prr_run writes the same text */
    char *buf2 = NULL;
    size_t len2 = 0;
    f = open_memstream(&buf2, &len2);
    cr_assert_eq(lm_prr_run(f, &r, SEED, err, sizeof err), 0, "%s", err);
    fclose(f);
    cr_expect_str_eq(buf, buf2);
    free(buf2);
    /* a run that cannot be built reports an error */
    r.n = 0;
    f = open_memstream(&buf2, &len2);
    cr_expect_eq(lm_prr_run(f, &r, SEED, err, sizeof err), -1);
    fclose(f);
    cr_expect(strstr(err, "bad shape") != NULL, "%s", err);
    free(buf2);
    free(buf);
    lm_prr_out_clear(&o);
}

/* the step's L_hat: power iteration against the assembled Jacobian of the gradient map */
Test(pr_runs, hessian_norm_power_iteration)
{
    lm_prr_def r = small_def("pr-fig2c");
    lm_prr_inst I;
    char err[256];
    cr_assert_eq(lm_prr_inst_build(&I, &r, r.n, SEED, err, sizeof err), 0, "%s", err);
    lm_ctx cd = lm_ctx_double();
    lm_mat *M = lm_mat_new(r.d, r.d, &cd);
    lm_pr_fill_mask(M, LM_PR_M_ONES, NULL);
    for (int k = 0; k < 2; k++) {
        I.P->lambda = k ? 0.3 : 0.0;
        double p;
        lm_num j;
        lm_num_init(&j, &cd);
        cr_assert_eq(lm_prr_hess_norm(&p, I.P, M), 0);
        cr_assert_eq(lm_pr_jac_norm(&j, LM_PR_MAP_GRAD, I.P, M, 1e-5), 0);
        double jv = lm_num_get_d(&j);
        cr_expect(fabs(p - jv) <= 1e-4 * jv, "power %.10g vs assembled %.10g", p, jv);
        lm_num_clear(&j);
    }
    lm_mat_free(M);
    lm_prr_inst_clear(&I);
}
