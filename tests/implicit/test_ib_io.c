/* tests/implicit/test_ib_io.c -- the implicit-bias runs exchangeable with other tools
 * (lemmas/implicit/runs/ib_io.c, docs/train-io.md).
 *
 * A run's exported start reproduces the run to the last byte of its CSV (at the default sizes,
 * with a random W(0), in MPFR); --iterates writes steps+1 iterates whose first is the exported
 * W(0) (and u(0)) exactly and whose losses are the CSV's; --every thins without changing an
 * iterate; a perturbed W(0) or token moves the iterates (the files are really read); hostile
 * files are refused before anything runs, in one line naming the file and the field, with no
 * output left; and tests/implicit/xcheck_ngd.py -- numpy, written from the paper's model,
 * sharing no code with lemmata -- repeats the NGD (and GD) update from the exported files and
 * agrees with the iterates to 1e-12 relative. */
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
#define XCHECK "tests/implicit/xcheck_ngd.py"

static char dir[64];

static void mk(void)
{
    snprintf(dir, sizeof dir, "/tmp/lemmata-ibio-XXXXXX");
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

/* the compact JSON text of member `name` of the iterate k (caller frees; NULL when absent) */
static char *iterate_field(const json_t *its, int k, const char *name)
{
    const json_t *a = json_object_get(its, "iterates");
    for (size_t j = 0; j < json_array_size(a); j++) {
        const json_t *it = json_array_get(a, j);
        if (json_integer_value(json_object_get(it, "k")) == k) {
            const json_t *v = json_object_get(it, name);
            return v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
        }
    }
    return NULL;
}

/* a hex or decimal number string as lemmata writes it */
static double hexnum(const json_t *v)
{
    cr_assert(json_is_string(v), "not a number string");
    return strtod(json_string_value(v), NULL);
}

/* export run's start (extra: its --set options) into DIR/d.json, DIR/i.json */
static void export_start(const char *run, const char *extra, char *d, char *i)
{
    char args[1024];
    snprintf(args, sizeof args, "train %s %s --export-data %s --export-init %s", run, extra,
             at(d, 128, "d.json"), at(i, 128, "i.json"));
    lm_test_ok(args);
}

/* ---- the round trip: the exported start is the run ---- */

/* `train RUN EXTRA --steps S` and the same from its own export give one CSV, byte for byte;
 * and re-exporting the imported start writes the same files again */
static void round_trip(const char *run, const char *extra, int steps)
{
    char d[128], i[128], d2[128], i2[128], c1[128], c2[128], args[1024];
    export_start(run, extra, d, i);
    snprintf(args, sizeof args, "train %s %s --steps %d --out %s", run, extra, steps,
             at(c1, sizeof c1, "own.csv"));
    lm_test_ok(args);
    /* the sizes come from the file; the rest of extra (init, prec) stays */
    const char *keep = strstr(extra, "--prec") ? strstr(extra, "--prec") : "";
    snprintf(args, sizeof args, "train %s %s --data %s --init %s --steps %d --out %s", run, keep, d,
             i, steps, at(c2, sizeof c2, "given.csv"));
    lm_test_ok(args);
    char *a = lm_test_slurp(c1), *b = lm_test_slurp(c2);
    cr_expect(strlen(a) > 200, "%s: a short CSV: %s", run, a);
    cr_expect_str_eq(a, b, "%s %s: the run from its exported start differs from the run", run,
                     extra);
    free(a);
    free(b);
    snprintf(args, sizeof args, "train %s %s --data %s --init %s --export-data %s --export-init %s",
             run, keep, d, i, at(d2, sizeof d2, "d2.json"), at(i2, sizeof i2, "i2.json"));
    lm_test_ok(args);
    a = lm_test_slurp(d);
    b = lm_test_slurp(d2);
    cr_expect_str_eq(a, b, "%s: the data do not round-trip", run);
    free(a);
    free(b);
    a = lm_test_slurp(i);
    b = lm_test_slurp(i2);
    cr_expect_str_eq(a, b, "%s: the start does not round-trip", run);
    free(a);
    free(b);
}

Test(ib_io, export_then_import_reproduces_the_csv, .init = mk, .fini = rm, .timeout = 120)
{
    /* the paper's sizes (d = 800 and 600: W(0) files of 13 and 7 MB) */
    round_trip("ib-ngd", "", 300);
    round_trip("ib-gd", "", 300);
    round_trip("ib-joint13", "", 300);
}

Test(ib_io, round_trip_with_random_start_mpfr_and_the_other_runs, .init = mk, .fini = rm,
     .timeout = 120)
{
    round_trip("ib-ngd", "--set d=24 --set init=1", 100);
    round_trip("ib-joint13", "--set d=24 --set init=1", 100);
    round_trip("ib-gd", "--set d=12 --set n=3 --set T=5 --prec 113", 20);
    round_trip("ib-polyak", "--set d=40", 100);
    round_trip("ib-polyak-cap", "--set d=40", 100);
    round_trip("ib-ngd-antipodal", "--set d=40", 100);
}

/* data without --init and --set init=s: the run's own W(0), drawn as the run draws it */
Test(ib_io, data_alone_takes_the_runs_own_start, .init = mk, .fini = rm, .timeout = 60)
{
    char d[128], i[128], c1[128], c2[128], args[1024];
    export_start("ib-ngd", "--set d=24 --set init=1", d, i);
    snprintf(args, sizeof args, "train ib-ngd --set d=24 --set init=1 --steps 40 --out %s",
             at(c1, sizeof c1, "own.csv"));
    lm_test_ok(args);
    snprintf(args, sizeof args, "train ib-ngd --set init=1 --data %s --steps 40 --out %s", d,
             at(c2, sizeof c2, "given.csv"));
    lm_test_ok(args);
    char *a = lm_test_slurp(c1), *b = lm_test_slurp(c2);
    cr_expect_str_eq(a, b, "--data alone with --set init=1 is not the run's own start");
    free(a);
    free(b);
}

/* ---- the iterates ---- */

/* steps+1 iterates k = 0..steps, the first the exported W(0) (and u(0)) exactly, each loss the
 * CSV's */
static void iterates_of(const char *run, const char *extra, int steps, int joint)
{
    char d[128], i[128], it[128], csv[128], args[1024];
    export_start(run, extra, d, i);
    snprintf(args, sizeof args, "train %s --data %s --init %s --steps %d --iterates %s --out %s",
             run, d, i, steps, at(it, sizeof it, "it.json"), at(csv, sizeof csv, "o.csv"));
    lm_test_ok(args);
    json_t *I = lm_test_json_load(i), *S = lm_test_json_load(it);
    const json_t *a = json_object_get(S, "iterates");
    cr_assert_eq(json_array_size(a), (size_t)steps + 1, "%s: %zu iterates for %d steps", run,
                 json_array_size(a), steps);
    cr_expect_str_eq(json_string_value(json_object_get(S, "run")), run);
    cr_expect_eq(json_integer_value(json_object_get(S, "steps")), steps);
    cr_expect_str_eq(json_string_value(json_object_get(S, "data")), "given");
    char *w0 = json_dumps(json_object_get(json_object_get(I, "init"), "W(0)"), JSON_COMPACT);
    char *f0 = iterate_field(S, 0, "W");
    cr_assert(w0 && f0);
    cr_expect_str_eq(f0, w0, "%s: the first iterate is not the exported W(0)", run);
    free(w0);
    free(f0);
    if (joint) {
        char *u0 = json_dumps(json_object_get(json_object_get(I, "init"), "u(0)"), JSON_COMPACT);
        char *g0 = iterate_field(S, 0, "u");
        cr_assert(u0 && g0, "%s: no u(0) or no u in the first iterate", run);
        cr_expect_str_eq(g0, u0, "%s: the first iterate's u is not the exported u(0)", run);
        free(u0);
        free(g0);
    }
    /* iterate k's log loss is the CSV's row k (%.17g round-trips a double) */
    char *c = lm_test_slurp(csv), *line = strchr(c, '\n');
    for (int k = 0; k <= steps; k++) {
        cr_assert_not_null(line);
        line++;
        int t;
        double loss, logl;
        cr_assert_eq(sscanf(line, "%d,%lf,%lf", &t, &loss, &logl), 3, "%s", line);
        const json_t *x = json_array_get(a, (size_t)k);
        cr_expect_eq(json_integer_value(json_object_get(x, "k")), k);
        cr_expect_eq(hexnum(json_object_get(x, "log_loss")), logl,
                     "%s: iterate %d: log loss %s, CSV %.17g", run, k,
                     json_string_value(json_object_get(x, "log_loss")), logl);
        line = strchr(line, '\n');
    }
    free(c);
    json_decref(I);
    json_decref(S);
}

Test(ib_io, iterates_start_at_the_exported_w0, .init = mk, .fini = rm, .timeout = 60)
{
    iterates_of("ib-ngd", "--set d=16 --set init=1", 25, 0);
    iterates_of("ib-gd", "--set d=16 --set init=1", 25, 0);
    iterates_of("ib-joint13", "--set d=16 --set init=1", 25, 1);
    iterates_of("ib-ngd", "--set d=16", 5, 0); /* W(0) = 0 */
}

Test(ib_io, every_thins_without_changing_an_iterate, .init = mk, .fini = rm, .timeout = 60)
{
    static const char *const runs[] = {"ib-ngd", "ib-joint13"};
    for (int r = 0; r < 2; r++) {
        char all[128], thin[128], args[512];
        snprintf(args, sizeof args, "train %s --set d=12 --steps 30 --iterates %s", runs[r],
                 at(all, sizeof all, "all.json"));
        lm_test_ok(args);
        snprintf(args, sizeof args, "train %s --set d=12 --steps 30 --iterates %s --every 7",
                 runs[r], at(thin, sizeof thin, "thin.json"));
        lm_test_ok(args);
        json_t *A = lm_test_json_load(all), *T = lm_test_json_load(thin);
        const json_t *ta = json_object_get(T, "iterates");
        static const int want[] = {0, 7, 14, 21, 28, 30};
        cr_assert_eq(json_array_size(json_object_get(A, "iterates")), 31);
        cr_assert_eq(json_array_size(ta), 6, "--every 7 over 30 steps: 0, 7, ..., 28 and the last");
        cr_expect_eq(json_integer_value(json_object_get(T, "every")), 7);
        for (int j = 0; j < 6; j++) {
            cr_expect_eq(json_integer_value(json_object_get(json_array_get(ta, (size_t)j), "k")),
                         want[j]);
            char *a = json_dumps(json_array_get(json_object_get(A, "iterates"), (size_t)want[j]),
                                 JSON_COMPACT);
            char *b = json_dumps(json_array_get(ta, (size_t)j), JSON_COMPACT);
            cr_assert(a && b);
            cr_expect_str_eq(a, b, "%s: iterate %d differs between --every 1 and --every 7",
                             runs[r], want[j]);
            free(a);
            free(b);
        }
        json_decref(A);
        json_decref(T);
    }
}

/* one entry of a file's matrix (obj.name.values[r][c]) set to the string v */
static void set_entry(json_t *root, const char *obj, const char *name, int r, int c, const char *v)
{
    json_t *m = json_object_get(json_object_get(root, obj), name);
    json_t *row = json_array_get(json_object_get(m, "values"), (size_t)r);
    cr_assert_not_null(row, "%s.%s has no row %d", obj, name, r);
    cr_assert_eq(json_array_set_new(row, (size_t)c, json_string(v)), 0);
}

Test(ib_io, perturbed_start_moves_the_iterates, .init = mk, .fini = rm, .timeout = 60)
{
    static const char *const runs[] = {"ib-ngd", "ib-gd", "ib-joint13"};
    for (int r = 0; r < 3; r++) {
        char d[128], i[128], dp[128], ip[128], it[128], itd[128], iti[128], args[1024];
        export_start(runs[r], "--set d=16", d, i);
        /* one entry of W(0) set to 1/4; one token entry moved by 2^-20 relative */
        json_t *I = lm_test_json_load(i);
        set_entry(I, "init", "W(0)", 1, 0, "0x1p-2");
        lm_test_json_save(I, at(ip, sizeof ip, "ip.json"));
        json_decref(I);
        json_t *D = lm_test_json_load(d);
        const json_t *row = json_array_get(
            json_object_get(json_object_get(json_object_get(D, "data"), "X_2"), "values"), 1);
        char hx[48];
        snprintf(hx, sizeof hx, "%a",
                 strtod(json_string_value(json_array_get(row, 3)), NULL) * (1.0 + ldexp(1.0, -20)));
        set_entry(D, "data", "X_2", 1, 3, hx);
        lm_test_json_save(D, at(dp, sizeof dp, "dp.json"));
        json_decref(D);
        snprintf(args, sizeof args, "train %s --data %s --init %s --iterates %s --steps 10",
                 runs[r], d, i, at(it, sizeof it, "it.json"));
        lm_test_ok(args);
        snprintf(args, sizeof args, "train %s --data %s --init %s --iterates %s --steps 10",
                 runs[r], d, ip, at(iti, sizeof iti, "iti.json"));
        lm_test_ok(args);
        snprintf(args, sizeof args, "train %s --data %s --init %s --iterates %s --steps 10",
                 runs[r], dp, i, at(itd, sizeof itd, "itd.json"));
        lm_test_ok(args);
        json_t *A = lm_test_json_load(it), *B = lm_test_json_load(iti), *C = lm_test_json_load(itd);
        for (int k = 0; k <= 10; k++) {
            char *a = iterate_field(A, k, "W"), *b = iterate_field(B, k, "W"),
                 *c = iterate_field(C, k, "W");
            cr_assert(a && b && c, "%s: iterate %d missing", runs[r], k);
            cr_expect_str_neq(a, b, "%s: iterate %d did not move with W(0)", runs[r], k);
            /* the joint run's first step moves u only (grad_W L = 0 at u(0) = 0): W from k = 2 */
            int first = r == 2 ? 2 : 1;
            if (k == 0)
                cr_expect_str_eq(a, c, "%s: W(0) changed with the data", runs[r]);
            else if (k >= first)
                cr_expect_str_neq(a, c, "%s: iterate %d did not move with the data", runs[r], k);
            free(a);
            free(b);
            free(c);
            /* not only W(0) added to the same steps: the steps themselves moved */
            a = iterate_field(A, k, "C");
            b = iterate_field(B, k, "C");
            cr_assert(a && b);
            if (k >= first)
                cr_expect_str_neq(a, b, "%s: the steps to iterate %d ignore W(0)", runs[r], k);
            free(a);
            free(b);
            if (r == 2 && k >= 1) { /* u moves with the data from the first step */
                a = iterate_field(A, k, "u");
                c = iterate_field(C, k, "u");
                cr_assert(a && c);
                cr_expect_str_neq(a, c, "%s: u(%d) did not move with the data", runs[r], k);
                free(a);
                free(c);
            }
        }
        /* the perturbed W(0) is the file's first iterate, exactly */
        const json_t *w0 = json_object_get(json_array_get(json_object_get(B, "iterates"), 0), "W");
        cr_expect_str_eq(
            json_string_value(json_array_get(json_array_get(json_object_get(w0, "values"), 1), 0)),
            "0x1p-2");
        json_decref(A);
        json_decref(B);
        json_decref(C);
    }
}

/* ---- hostile files ---- */

static void refused_ib(const char *args, const char *needle, const char *needle2)
{
    lm_test_train_refused(dir, args, needle, needle2, NULL);
}

typedef lm_test_json_edit edit_fn;

static json_t *dat(json_t *r)
{
    return json_object_get(r, "data");
}
static json_t *row_of(json_t *r, const char *obj, const char *m, int i)
{
    return json_array_get(json_object_get(json_object_get(json_object_get(r, obj), m), "values"),
                          (size_t)i);
}

static void no_n(json_t *r)
{
    json_object_del(r, "n");
}
static void no_data(json_t *r)
{
    json_object_del(r, "data");
}
static void no_x3(json_t *r)
{
    json_object_del(dat(r), "X_3");
}
static void no_y(json_t *r)
{
    json_object_del(dat(r), "y");
}
static void no_opt(json_t *r)
{
    json_object_del(dat(r), "opt");
}
static void no_u(json_t *r)
{
    json_object_del(dat(r), "u (head)");
}
static void short_x1(json_t *r)
{
    json_t *x = json_object_get(dat(r), "X_1");
    json_array_remove(json_object_get(x, "values"), 3);
    json_object_set_new(x, "rows", json_integer(3));
}
static void ragged_x2(json_t *r)
{
    json_array_remove(row_of(r, "data", "X_2", 1), 0);
}
static void nan_x1(json_t *r)
{
    json_array_set_new(row_of(r, "data", "X_1", 2), 5, json_string("nan"));
}
static void inf_u(json_t *r)
{
    json_array_set_new(row_of(r, "data", "u (head)", 7), 0, json_string("inf"));
}
static void abc_x4(json_t *r)
{
    json_array_set_new(row_of(r, "data", "X_4", 0), 0, json_string("abc"));
}
static void half_label(json_t *r)
{
    json_array_set_new(row_of(r, "data", "y", 4), 0, json_real(0.5));
}
static void zero_label(json_t *r)
{
    json_array_set_new(row_of(r, "data", "y", 0), 0, json_string("0x0p+0"));
}
static void big_n(json_t *r)
{
    json_object_set_new(r, "n", json_integer(33));
}
static void big_T(json_t *r)
{
    json_object_set_new(r, "T", json_integer(9));
}
static void str_d(json_t *r)
{
    json_object_set_new(r, "d", json_string("16"));
}
static void opt_5(json_t *r)
{
    json_array_set_new(json_object_get(dat(r), "opt"), 2, json_integer(5));
}
static void opt_half(json_t *r)
{
    json_array_set_new(json_object_get(dat(r), "opt"), 1, json_real(1.5));
}
static void extra_x(json_t *r)
{
    json_object_set(dat(r), "X_7", json_object_get(dat(r), "X_1"));
}
static void ustar_ex1(json_t *r)
{
    json_object_set(dat(r), "u_star", json_object_get(dat(r), "u (head)"));
}
static void run_num(json_t *r)
{
    json_object_set_new(r, "run", json_integer(3));
}
/* opt of sequence 1 moved to another token: not the argmax of the scores any more */
static void opt_not_argmax(json_t *r)
{
    json_t *o = json_object_get(dat(r), "opt");
    json_int_t v = json_integer_value(json_array_get(o, 0));
    json_array_set_new(o, 0, json_integer(v == 1 ? 2 : 1));
}

Test(ib_io, hostile_data_files_are_refused_naming_the_field, .init = mk, .fini = rm, .timeout = 120)
{
    char d[128], i[128];
    export_start("ib-ngd", "--set d=16", d, i); /* n = 6, T = 4, d = 16 */
    static const struct {
        const char *name;
        edit_fn edit;
        const char *needle;
    } C[] = {
        {"no_n", no_n, "n: missing"},
        {"no_data", no_data, "data: missing"},
        {"no_x3", no_x3, "data.X_3: missing (a 4x16 matrix"},
        {"no_y", no_y, "data.y: missing"},
        {"no_opt", no_opt, "data.opt: missing"},
        {"no_u", no_u, "data.u (head): missing (a 16x1 matrix"},
        {"short_x1", short_x1, "data.X_1: is 3x16, the run needs 4x16"},
        {"ragged_x2", ragged_x2, "data.X_2.values[1]: must be a list of 16 numbers"},
        {"nan_x1", nan_x1, "data.X_1.values[2][5]: not finite"},
        {"inf_u", inf_u, "data.u (head).values[7][0]: not finite"},
        {"abc_x4", abc_x4, "data.X_4.values[0][0]: not a number: \"abc\""},
        {"half_label", half_label, "data.y: entry 4 is 0.5, a label must be +1 or -1"},
        {"zero_label", zero_label, "data.y: entry 0 is 0, a label must be +1 or -1"},
        {"big_n", big_n, "n: 33 is outside [1, 32]"},
        {"big_T", big_T, "T: 9 is outside [2, 8]"},
        {"str_d", str_d, "d: not an integer"},
        {"opt_5", opt_5, "data.opt: entry 2 is 5, an optimal token is an integer in [1, 4]"},
        {"opt_half", opt_half, "data.opt: entry 1 is 1.5"},
        {"opt_argmax", opt_not_argmax, "data.opt: entry 0 is"},
        {"extra_x", extra_x, "data.X_7: not a matrix of this run"},
        {"ustar_ex1", ustar_ex1, "data.u_star: not a matrix of this run"},
        {"run_num", run_num, "run: not a string"},
    };
    char path[256], args[768];
    for (size_t k = 0; k < sizeof C / sizeof C[0]; k++) {
        char name[64];
        snprintf(name, sizeof name, "%s.json", C[k].name);
        lm_test_json_variant(path, sizeof path, dir, d, name, C[k].edit);
        snprintf(args, sizeof args, "ib-ngd --steps 3 --data %s --init %s", path, i);
        refused_ib(args, C[k].needle, path);
    }
    /* not JSON at all, and an empty file */
    FILE *f = fopen(at(path, sizeof path, "text.json"), "w");
    cr_assert_not_null(f);
    fputs("n = 6\n", f);
    fclose(f);
    snprintf(args, sizeof args, "ib-ngd --data %s", path);
    refused_ib(args, "text.json:1:", NULL);
    snprintf(args, sizeof args, "ib-ngd --init %s", path);
    refused_ib(args, "text.json:1:", NULL);
    /* sizes of the file against a --set of them, even one at the default */
    snprintf(args, sizeof args, "ib-ngd --set n=5 --data %s --init %s", d, i);
    refused_ib(args, "n: is 6, but --set n=5 was given", d);
    snprintf(args, sizeof args, "ib-ngd --set d=800 --data %s --init %s", d, i);
    refused_ib(args, "d: is 16, but --set d=800 was given", d);
    snprintf(args, sizeof args, "ib-ngd --set T=4 --set T=3 --data %s", d);
    refused_ib(args, "T: is 4, but --set T=3 was given", d);
}

static void wide_w0(json_t *r)
{
    json_t *w = json_object_get(json_object_get(r, "init"), "W(0)");
    json_object_set_new(w, "rows", json_integer(15));
    json_array_remove(json_object_get(w, "values"), 0);
}
static void nan_w0(json_t *r)
{
    json_array_set_new(row_of(r, "init", "W(0)", 15), 15, json_string("nan"));
}
static void inf_w0(json_t *r)
{
    json_array_set_new(row_of(r, "init", "W(0)", 3), 2, json_string("-inf"));
}
static void no_w0(json_t *r)
{
    json_object_del(json_object_get(r, "init"), "W(0)");
}
static void no_init(json_t *r)
{
    json_object_del(r, "init");
}
static void init_d(json_t *r)
{
    json_object_set_new(r, "d", json_integer(17));
}
static void no_u0(json_t *r)
{
    json_object_del(json_object_get(r, "init"), "u(0)");
}
static void u0_nonzero(json_t *r)
{
    json_array_set_new(row_of(r, "init", "u(0)", 2), 0, json_string("0x1p-3"));
}
static void u0_nan(json_t *r)
{
    json_array_set_new(row_of(r, "init", "u(0)", 5), 0, json_string("nan"));
}
static void extra_u0(json_t *r)
{
    json_t *in = json_object_get(r, "init");
    json_object_set_new(in, "u(0)", json_pack("[i,i]", 0, 0));
}

Test(ib_io, hostile_init_files_and_joint_data_are_refused, .init = mk, .fini = rm, .timeout = 120)
{
    char d[128], i[128], path[256], args[768];
    export_start("ib-ngd", "--set d=16", d, i);
    static const struct {
        const char *name;
        edit_fn edit;
        const char *needle;
    } C[] = {
        {"wide", wide_w0, "init.W(0): is 15x16, the run needs 16x16"},
        {"nan", nan_w0, "init.W(0).values[15][15]: not finite"},
        {"inf", inf_w0, "init.W(0).values[3][2]: not finite"},
        {"none", no_w0, "init.W(0): missing"},
        {"noinit", no_init, "init: missing"},
        {"d17", init_d, "d: is 17, the run's dimension is 16"},
        {"u0", extra_u0, "init.u(0): not a matrix of this run"},
    };
    for (size_t k = 0; k < sizeof C / sizeof C[0]; k++) {
        char name[64];
        snprintf(name, sizeof name, "init_%s.json", C[k].name);
        lm_test_json_variant(path, sizeof path, dir, i, name, C[k].edit);
        snprintf(args, sizeof args, "ib-ngd --steps 3 --data %s --init %s", d, path);
        refused_ib(args, C[k].needle, path);
        snprintf(args, sizeof args, "ib-ngd --set d=16 --steps 3 --init %s",
                 path); /* the run's own data */
        refused_ib(args, C[k].needle, path);
    }
    /* the joint run: its u(0), DM's two tokens, no fixed head */
    char jd[128], ji[128];
    snprintf(args, sizeof args, "train ib-joint13 --set d=16 --export-data %s --export-init %s",
             at(jd, sizeof jd, "jd.json"), at(ji, sizeof ji, "ji.json"));
    lm_test_ok(args);
    static const struct {
        const char *name;
        edit_fn edit;
        const char *needle;
        int data;
    } J[] = {
        {"no_u0", no_u0, "init.u(0): missing (a 16x1 matrix", 0},
        {"u0_nonzero", u0_nonzero,
         "init.u(0): entry 2 is 0.125, but ib-joint13 trains u from u(0) = 0", 0},
        {"u0_nan", u0_nan, "init.u(0).values[5][0]: not finite", 0},
        {"big_T", big_T, "T: 9 is outside [2, 8]", 1},
    };
    for (size_t k = 0; k < sizeof J / sizeof J[0]; k++) {
        char name[64];
        snprintf(name, sizeof name, "joint_%s.json", J[k].name);
        lm_test_json_variant(path, sizeof path, dir, J[k].data ? jd : ji, name, J[k].edit);
        snprintf(args, sizeof args, "ib-joint13 --steps 3 --data %s --init %s",
                 J[k].data ? path : jd, J[k].data ? ji : path);
        refused_ib(args, J[k].needle, path);
    }
    /* DM data have two tokens; a joint run reads no fixed head */
    json_t *D = lm_test_json_load(jd);
    json_object_set_new(D, "T", json_integer(3));
    lm_test_json_save(D, at(path, sizeof path, "joint_T3.json"));
    snprintf(args, sizeof args, "ib-joint13 --data %s --init %s", path, ji);
    refused_ib(args, "T: is 3, but the DM data of ib-joint13 have 2 tokens per sequence", path);
    json_object_set_new(D, "T", json_integer(2));
    json_object_set(dat(D), "u (head)", json_object_get(dat(D), "u_star"));
    lm_test_json_save(D, at(path, sizeof path, "joint_head.json"));
    snprintf(args, sizeof args, "ib-joint13 --data %s --init %s", path, ji);
    refused_ib(args, "data.u (head): not a matrix of this run", path);
    json_decref(D);
    /* --drift with a file, and iterates that would not fit anywhere */
    snprintf(args, sizeof args, "ib-ngd --data %s --drift 128", d);
    refused_ib(args, "--drift", NULL);
    refused_ib("ib-ngd", "--iterates: 3001 iterates of a 800x800 W would be about", "--every");
}

/* ---- the independent reference ---- */

typedef struct {
    int compared;
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
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "xcheck_ngd.py failed: %s", line);
    xres r;
    cr_assert_eq(sscanf(line, "xcheck compared=%d maxrel=%lf maxrel_loss=%lf minprob=%lf",
                        &r.compared, &r.maxrel, &r.maxrel_loss, &r.minprob),
                 4, "unexpected output of xcheck_ngd.py: %s", line);
    return r;
}

static xres cross(const char *run, const char *extra, int steps)
{
    char d[128], i[128], it[128], args[1024];
    export_start(run, extra, d, i);
    snprintf(args, sizeof args, "train %s --data %s --init %s --iterates %s --steps %d", run, d, i,
             at(it, sizeof it, "it.json"), steps);
    lm_test_ok(args);
    xres r = xcheck(d, i, it);
    cr_log_info("xcheck %s %s, %d steps: %d iterates compared, max rel diff of W %.3g (loss %.3g), "
                "smallest "
                "softmax probability %.3g",
                run, extra, steps, r.compared, r.maxrel, r.maxrel_loss, r.minprob);
    return r;
}

Test(ib_io, ngd_matches_numpy_reference, .init = mk, .fini = rm, .timeout = 120)
{
    if (!lm_test_have_numpy()) {
        cr_log_warn("ib_io: skipped: " PY
                    " cannot import numpy (Debian: apt-get install python3-numpy)");
        cr_skip_test("no numpy for " PY);
    }
    static const struct {
        const char *run, *extra;
    } R[] = {{"ib-ngd", "--set d=40"},
             {"ib-ngd", "--set d=40 --set init=1"},
             {"ib-ngd", "--set d=16 --set n=3 --set T=5 --seed 7"},
             {"ib-ngd-antipodal", "--set d=40"},
             {"ib-gd", "--set d=40"}};
    for (size_t k = 0; k < sizeof R / sizeof R[0]; k++) {
        xres r = cross(R[k].run, R[k].extra, 30);
        cr_expect_eq(r.compared, 31, "%s %s: %d iterates compared", R[k].run, R[k].extra,
                     r.compared);
        cr_expect_leq(r.maxrel, 1e-12, "%s %s: iterates differ from the numpy reference by %.3g",
                      R[k].run, R[k].extra, r.maxrel);
        cr_expect_leq(r.maxrel_loss, 1e-12, "%s %s: losses differ from the numpy reference by %.3g",
                      R[k].run, R[k].extra, r.maxrel_loss);
    }
}

/* the comparison can fail: iterates of eta = 0.5 (1 + 2^-30) under a head that says 0.5 */
Test(ib_io, a_wrong_step_size_is_caught_by_the_reference, .init = mk, .fini = rm, .timeout = 60)
{
    if (!lm_test_have_numpy()) {
        cr_log_warn("ib_io: skipped: " PY " cannot import numpy");
        cr_skip_test("no numpy for " PY);
    }
    char d[128], i[128], it[128], args[1024];
    export_start("ib-ngd", "--set d=40", d, i);
    snprintf(args, sizeof args,
             "train ib-ngd --set eta=%.17g --data %s --init %s --iterates %s --steps 20",
             0.5 * (1.0 + ldexp(1.0, -30)), d, i, at(it, sizeof it, "it.json"));
    lm_test_ok(args);
    json_t *j = lm_test_json_load(it);
    json_object_set_new(j, "eta", json_string("0x1p-1"));
    lm_test_json_save(j, it);
    json_decref(j);
    xres r = xcheck(d, i, it);
    cr_expect_gt(r.maxrel, 1e-10, "a step size off by 2^-30 went unnoticed (max rel %.3g)",
                 r.maxrel);
}
