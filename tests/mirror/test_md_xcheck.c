/* tests/mirror/test_md_xcheck.c -- the mirror-descent runs against an independent reference.
 *
 * lemmata writes a run's data and W(0) (--export-data, --export-init), runs from them with
 * --data --init --iterates, and tests/mirror/xcheck_lp.py -- numpy, written from the paper's
 * l_p update rule, sharing no code with lemmata -- runs the same update on the same files and
 * compares every iterate while the softmax is unsaturated (smallest probability above 1e-8;
 * past that the two programs' different roundings of tiny probabilities are no longer shared
 * to 12 digits, so the comparison stops there, and the script says where).  Also: the start
 * round-trips exactly, --data and --init are really used (a perturbed file moves the
 * iterates), and --every thins the file without changing a written iterate.  The reader and
 * writer under test are lemmas/mirror/runs/md_io.c. */
#include "test_support.h"
#include "test_json_support.h"
#include <criterion/criterion.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PY LM_TEST_PY
#define XCHECK "tests/mirror/xcheck_lp.py"

static char dir[64];

static void mk(void)
{
    snprintf(dir, sizeof dir, "/tmp/lemmata-xcheck-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void rm(void)
{
    lm_test_rmtree(dir);
}

/* "DIR/name" */
static const char *at(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", dir, name);
    return buf;
}

/* the numbers of the script's line */
typedef struct {
    int compared, stop;
    double maxrel, maxrel_loss, minprob;
} xres;

static xres xcheck(const char *data, const char *init, const char *its)
{
    char cmd[1024], line[512] = "";
    snprintf(cmd, sizeof cmd, PY " " XCHECK " %s %s %s 2>&1", data, init, its);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t n = fread(line, 1, sizeof line - 1, p);
    line[n] = 0;
    int st = pclose(p);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "xcheck_lp.py failed: %s", line);
    xres r;
    cr_assert_eq(sscanf(line, "xcheck compared=%d maxrel=%lf maxrel_loss=%lf stop=%d minprob=%lf", &r.compared,
                        &r.maxrel, &r.maxrel_loss, &r.stop, &r.minprob),
                 5, "unexpected output of xcheck_lp.py: %s", line);
    return r;
}

/* export run's start, run it from the export for `steps` with --iterates, check with numpy */
static xres cross(const char *run, int steps, const char *extra)
{
    char d[128], i[128], it[128], args[1024];
    snprintf(args, sizeof args, "train %s %s --export-data %s --export-init %s", run, extra,
             at(d, sizeof d, "d.json"), at(i, sizeof i, "i.json"));
    lm_test_ok(args);
    snprintf(args, sizeof args, "train %s %s --data %s --init %s --iterates %s --steps %d", run, extra, d, i,
             at(it, sizeof it, "it.json"), steps);
    lm_test_ok(args);
    xres r = xcheck(d, i, it);
    cr_log_info("xcheck %s%s%s, %d steps: %d iterates compared, max rel diff of W %.3g (loss %.3g), "
                "saturated from %d, smallest softmax probability %.3g",
                run, extra[0] ? " " : "", extra, steps, r.compared, r.maxrel, r.maxrel_loss, r.stop, r.minprob);
    return r;
}

Test(md_xcheck, lp_update_matches_numpy_reference, .init = mk, .fini = rm, .timeout = 120)
{
    if (!lm_test_have_numpy()) {
        cr_log_warn("md_xcheck: skipped: " PY " cannot import numpy (Debian: apt-get install python3-numpy)");
        cr_skip_test("no numpy for " PY);
    }
    /* the paper's normalised runs at three p, an unnormalised R1 run, a Gaussian start */
    static const struct {
        const char *run, *extra;
    } R[] = {{"md-p2", ""}, {"md-p1.75", ""}, {"md-p3", ""}, {"md-r1-p2", ""}, {"md-p3", "--set init=0.5"}};
    for (size_t k = 0; k < sizeof R / sizeof R[0]; k++) {
        xres r = cross(R[k].run, 50, R[k].extra);
        cr_expect_geq(r.compared, 10, "%s: only %d iterates compared (saturated from %d)", R[k].run, r.compared,
                      r.stop);
        cr_expect_leq(r.maxrel, 1e-12, "%s %s: iterates differ from the numpy reference by %.3g", R[k].run,
                      R[k].extra, r.maxrel);
        cr_expect_leq(r.maxrel_loss, 1e-12, "%s %s: losses differ from the numpy reference by %.3g", R[k].run,
                      R[k].extra, r.maxrel_loss);
    }
}

/* the comparison can fail: iterates of eta = 0.1 + 2^-30 under a head that says 0.1 */
Test(md_xcheck, a_wrong_step_size_is_caught, .init = mk, .fini = rm, .timeout = 120)
{
    if (!lm_test_have_numpy()) {
        cr_log_warn("md_xcheck: skipped: " PY " cannot import numpy");
        cr_skip_test("no numpy for " PY);
    }
    char d[128], i[128], it[128], args[1024];
    snprintf(args, sizeof args, "train md-p2 --export-data %s --export-init %s", at(d, sizeof d, "d.json"),
             at(i, sizeof i, "i.json"));
    lm_test_ok(args);
    snprintf(args, sizeof args, "train md-p2 --set eta=%.17g --data %s --init %s --iterates %s --steps 20",
             0.1 + ldexp(1.0, -30), d, i, at(it, sizeof it, "it.json"));
    lm_test_ok(args);
    json_error_t e;
    json_t *j = json_load_file(it, 0, &e);
    cr_assert_not_null(j, "%s", e.text);
    json_object_set_new(j, "eta", json_string("0x1.999999999999ap-4"));
    cr_assert_eq(json_dump_file(j, it, 0), 0);
    json_decref(j);
    xres r = xcheck(d, i, it);
    cr_expect_gt(r.maxrel, 1e-10, "a step size off by 2^-30 went unnoticed (max rel %.3g)", r.maxrel);
}

/* a long run saturates: the comparison stops there and agrees before it */
Test(md_xcheck, comparison_stops_at_saturation, .init = mk, .fini = rm, .timeout = 120)
{
    if (!lm_test_have_numpy()) {
        cr_log_warn("md_xcheck: skipped: " PY " cannot import numpy");
        cr_skip_test("no numpy for " PY);
    }
    char d[128], i[128], it[128], args[1024];
    snprintf(args, sizeof args, "train md-p2 --export-data %s --export-init %s", at(d, sizeof d, "d.json"),
             at(i, sizeof i, "i.json"));
    lm_test_ok(args);
    snprintf(args, sizeof args, "train md-p2 --data %s --init %s --iterates %s --every 10 --steps 600", d, i,
             at(it, sizeof it, "it.json"));
    lm_test_ok(args);
    xres r = xcheck(d, i, it);
    cr_log_info("md-p2, 600 steps every 10: %d compared, max rel %.3g, saturated from iterate %d", r.compared,
                r.maxrel, r.stop);
    cr_expect_gt(r.stop, 0, "md-p2 did not saturate within 600 steps (min probability %.3g)", r.minprob);
    cr_expect_geq(r.compared, 10);
    cr_expect_leq(r.maxrel, 1e-12);
}

/* ---- the files themselves: exactness and use ---- */

/* iterate k's W as compact JSON text (caller frees) */
static char *iterate_W(const json_t *its, int k)
{
    const json_t *a = json_object_get(its, "iterates");
    for (size_t j = 0; j < json_array_size(a); j++) {
        const json_t *it = json_array_get(a, j);
        if (json_integer_value(json_object_get(it, "k")) == k)
            return json_dumps(json_object_get(it, "W"), JSON_COMPACT);
    }
    return NULL;
}

Test(md_xcheck, start_round_trips_and_runs_identically, .init = mk, .fini = rm, .timeout = 120)
{
    char d[128], i[128], d2[128], i2[128], c1[128], c2[128], args[1024];
    snprintf(args, sizeof args, "train md-p3 --set init=1 --export-data %s --export-init %s",
             at(d, sizeof d, "d.json"), at(i, sizeof i, "i.json"));
    lm_test_ok(args);
    snprintf(args, sizeof args, "train md-p3 --data %s --init %s --export-data %s --export-init %s", d, i,
             at(d2, sizeof d2, "d2.json"), at(i2, sizeof i2, "i2.json"));
    lm_test_ok(args);
    char *a = lm_test_slurp(d), *b = lm_test_slurp(d2);
    cr_expect_str_eq(a, b, "the data do not round-trip");
    free(a);
    free(b);
    a = lm_test_slurp(i);
    b = lm_test_slurp(i2);
    cr_expect_str_eq(a, b, "W(0) does not round-trip");
    free(a);
    free(b);
    /* the run from its exported start is the run itself, to the last digit of its CSV */
    snprintf(args, sizeof args, "train md-p3 --set init=1 --steps 20 --out %s", at(c1, sizeof c1, "own.csv"));
    lm_test_ok(args);
    snprintf(args, sizeof args, "train md-p3 --data %s --init %s --steps 20 --out %s", d, i,
             at(c2, sizeof c2, "given.csv"));
    lm_test_ok(args);
    a = lm_test_slurp(c1);
    b = lm_test_slurp(c2);
    cr_expect_str_eq(a, b, "the run from its exported start differs from the run");
    free(a);
    free(b);
}

Test(md_xcheck, perturbed_data_and_init_move_the_iterates, .init = mk, .fini = rm, .timeout = 120)
{
    char d[128], i[128], dp[128], ip[128], it[128], itd[128], iti[128], args[1024];
    snprintf(args, sizeof args, "train md-p2 --export-data %s --export-init %s", at(d, sizeof d, "d.json"),
             at(i, sizeof i, "i.json"));
    lm_test_ok(args);
    /* one token entry moved by 2^-20 relative; one entry of W(0) set to 1/4 */
    json_t *D = lm_test_json_load(d);
    json_t *row = json_array_get(json_object_get(json_object_get(json_object_get(D, "data"), "X_2"), "values"), 3);
    double x = strtod(json_string_value(json_array_get(row, 4)), NULL) * (1.0 + ldexp(1.0, -20));
    char hx[48];
    snprintf(hx, sizeof hx, "%a", x);
    json_array_set_new(row, 4, json_string(hx));
    lm_test_json_save(D, at(dp, sizeof dp, "dp.json"));
    json_decref(D);
    json_t *I = lm_test_json_load(i);
    row = json_array_get(json_object_get(json_object_get(json_object_get(I, "init"), "W(0)"), "values"), 1);
    json_array_set_new(row, 2, json_string("0x1p-2"));
    lm_test_json_save(I, at(ip, sizeof ip, "ip.json"));
    json_decref(I);
    snprintf(args, sizeof args, "train md-p2 --data %s --init %s --iterates %s --steps 10", d, i,
             at(it, sizeof it, "it.json"));
    lm_test_ok(args);
    snprintf(args, sizeof args, "train md-p2 --data %s --init %s --iterates %s --steps 10", dp, i,
             at(itd, sizeof itd, "itd.json"));
    lm_test_ok(args);
    snprintf(args, sizeof args, "train md-p2 --data %s --init %s --iterates %s --steps 10", d, ip,
             at(iti, sizeof iti, "iti.json"));
    lm_test_ok(args);
    json_t *A = lm_test_json_load(it), *B = lm_test_json_load(itd), *C = lm_test_json_load(iti);
    for (int k = 0; k <= 10; k++) {
        char *a = iterate_W(A, k), *b = iterate_W(B, k), *c = iterate_W(C, k);
        cr_assert(a && b && c, "iterate %d missing", k);
        if (k == 0) cr_expect_str_eq(a, b, "W(0) changed with the data");
        else cr_expect_str_neq(a, b, "iterate %d did not move with the data", k);
        cr_expect_str_neq(a, c, "iterate %d did not move with W(0)", k);
        free(a);
        free(b);
        free(c);
    }
    /* the perturbed W(0) is the file's first iterate, exactly */
    const json_t *w0 = json_object_get(json_array_get(json_object_get(C, "iterates"), 0), "W");
    cr_expect_str_eq(json_string_value(json_array_get(json_array_get(json_object_get(w0, "values"), 1), 2)),
                     "0x1p-2");
    json_decref(A);
    json_decref(B);
    json_decref(C);
}

Test(md_xcheck, every_thins_without_changing_an_iterate, .init = mk, .fini = rm, .timeout = 120)
{
    char all[128], thin[128], args[512];
    snprintf(args, sizeof args, "train md-p1.75 --steps 30 --iterates %s", at(all, sizeof all, "all.json"));
    lm_test_ok(args);
    snprintf(args, sizeof args, "train md-p1.75 --steps 30 --iterates %s --every 7",
             at(thin, sizeof thin, "thin.json"));
    lm_test_ok(args);
    json_t *A = lm_test_json_load(all), *T = lm_test_json_load(thin);
    const json_t *ta = json_object_get(T, "iterates");
    static const int want[] = {0, 7, 14, 21, 28, 30};
    cr_assert_eq(json_array_size(json_object_get(A, "iterates")), 31);
    cr_assert_eq(json_array_size(ta), 6, "--every 7 over 30 steps: 0, 7, ..., 28 and the last");
    cr_expect_eq(json_integer_value(json_object_get(T, "every")), 7);
    for (int j = 0; j < 6; j++) {
        cr_expect_eq(json_integer_value(json_object_get(json_array_get(ta, (size_t)j), "k")), want[j]);
        char *a = iterate_W(A, want[j]), *b = iterate_W(T, want[j]);
        cr_assert(a && b);
        cr_expect_str_eq(a, b, "iterate %d differs between --every 1 and --every 7", want[j]);
        free(a);
        free(b);
    }
    json_decref(A);
    json_decref(T);
}
