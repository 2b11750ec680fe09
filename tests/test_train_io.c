/* tests/test_train_io.c -- `lemmata train --data --init --iterates` against hostile files.
 *
 * Every malformed input is refused before anything runs: exit 2, one line naming the file and
 * the field, no CSV and no iterates file left behind (not even a temporary one), the run's own
 * output ("selected tokens") never printed.  The option combinations that cannot work are
 * refused the same way, and a run type without these options names the runs that take them. */
#include "test_support.h"
#include "test_json_support.h"
#include <criterion/criterion.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64], good_d[128], good_i[128];

/* a fresh directory with the start of md-p2 (n = 6, T = 8, d = 10) in d.json and i.json */
static void mk(void)
{
    snprintf(dir, sizeof dir, "/tmp/lemmata-trainio-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(good_d, sizeof good_d, "%s/d.json", dir);
    snprintf(good_i, sizeof good_i, "%s/i.json", dir);
    char out[4096], args[512];
    snprintf(args, sizeof args, "train md-p2 --export-data %s --export-init %s", good_d, good_i);
    int rc = lm_test_cli(out, sizeof out, args);
    cr_assert_eq(rc, 0, "%s", out);
}

static void rm(void)
{
    lm_test_rmtree(dir);
}

/* a refused mirror-descent run: it never printed its selected tokens */
static void refused_md(const char *args, const char *needle, const char *needle2)
{
    lm_test_train_refused(dir, args, needle, needle2, "selected tokens");
}

typedef lm_test_json_edit edit_fn;

static json_t *data_of(json_t *r) { return json_object_get(r, "data"); }
static json_t *vals(json_t *r, const char *m) { return json_object_get(json_object_get(data_of(r), m), "values"); }

static void no_n(json_t *r) { json_object_del(r, "n"); }
static void no_x3(json_t *r) { json_object_del(data_of(r), "X_3"); }
static void no_data(json_t *r) { json_object_del(r, "data"); }
static void short_x1(json_t *r)
{
    json_t *x = json_object_get(data_of(r), "X_1");
    json_array_remove(json_object_get(x, "values"), 7);
    json_object_set_new(x, "rows", json_integer(7));
}
static void ragged_x1(json_t *r) { json_array_remove(json_array_get(vals(r, "X_1"), 2), 0); }
static void abc(json_t *r) { json_array_set_new(json_array_get(vals(r, "X_1"), 2), 0, json_string("abc")); }
static void nan_entry(json_t *r) { json_array_set_new(json_array_get(vals(r, "X_1"), 0), 1, json_string("nan")); }
static void inf_z(json_t *r) { json_array_set_new(json_array_get(vals(r, "Z (query tokens)"), 5), 9, json_string("-inf")); }
static void bad_label(json_t *r) { json_array_set_new(json_array_get(vals(r, "y"), 4), 0, json_real(0.5)); }
static void extra_x(json_t *r) { json_object_set(data_of(r), "X_9", json_object_get(data_of(r), "X_1")); }
static void big_n(json_t *r) { json_object_set_new(r, "n", json_integer(17)); }
static void str_T(json_t *r) { json_object_set_new(r, "T", json_string("8")); }
static void null_v(json_t *r) { json_object_set_new(data_of(r), "v (head)", json_null()); }
static void huge_rows(json_t *r) { json_object_set_new(json_object_get(data_of(r), "X_2"), "rows", json_integer(1L << 40)); }
static void wide_w0(json_t *r)
{
    json_t *w = json_object_get(json_object_get(r, "init"), "W(0)");
    json_object_set_new(w, "rows", json_integer(9));
    json_array_remove(json_object_get(w, "values"), 0);
}
static void nan_w0(json_t *r)
{
    json_t *w = json_object_get(json_object_get(r, "init"), "W(0)");
    json_array_set_new(json_array_get(json_object_get(w, "values"), 9), 9, json_string("NaN"));
}
static void no_w0(json_t *r) { json_object_del(json_object_get(r, "init"), "W(0)"); }
static void init_d(json_t *r) { json_object_set_new(r, "d", json_integer(11)); }

Test(train_io, hostile_data_files_are_refused_naming_the_field, .init = mk, .fini = rm, .timeout = 120)
{
    static const struct {
        const char *name;
        edit_fn edit;
        const char *needle;
    } C[] = {
        {"no_n", no_n, "n: missing"},
        {"no_x3", no_x3, "data.X_3: missing"},
        {"no_data", no_data, "data: missing"},
        {"short_x1", short_x1, "data.X_1: is 7x10, the run needs 8x10"},
        {"ragged_x1", ragged_x1, "data.X_1.values[2]: must be a list of 10 numbers"},
        {"abc", abc, "data.X_1.values[2][0]: not a number: \"abc\""},
        {"nan", nan_entry, "data.X_1.values[0][1]: not finite"},
        {"inf_z", inf_z, "data.Z (query tokens).values[5][9]: not finite"},
        {"bad_label", bad_label, "data.y: entry 4 is 0.5"},
        {"extra_x", extra_x, "data.X_9: not a matrix of this run"},
        {"big_n", big_n, "n: 17 is outside [1, 16]"},
        {"str_T", str_T, "T: not an integer"},
        {"null_v", null_v, "data.v (head): not a matrix"},
        {"huge_rows", huge_rows, "data.X_2.rows"},
    };
    char path[256], args[768];
    for (size_t k = 0; k < sizeof C / sizeof C[0]; k++) {
        char name[64];
        snprintf(name, sizeof name, "%s.json", C[k].name);
        lm_test_json_variant(path, sizeof path, dir, good_d, name, C[k].edit);
        snprintf(args, sizeof args, "md-p2 --steps 3 --data %s --init %s", path, good_i);
        refused_md(args, C[k].needle, path);
    }
}

Test(train_io, hostile_init_files_are_refused_naming_the_field, .init = mk, .fini = rm, .timeout = 120)
{
    static const struct {
        const char *name;
        edit_fn edit;
        const char *needle;
    } C[] = {
        {"wide", wide_w0, "init.W(0): is 9x10, the run needs 10x10"},
        {"nan", nan_w0, "init.W(0).values[9][9]: not finite"},
        {"none", no_w0, "init.W(0): missing"},
        {"d11", init_d, "d: is 11, the run's dimension is 10"},
    };
    char path[256], args[768];
    for (size_t k = 0; k < sizeof C / sizeof C[0]; k++) {
        char name[64];
        snprintf(name, sizeof name, "init_%s.json", C[k].name);
        lm_test_json_variant(path, sizeof path, dir, good_i, name, C[k].edit);
        snprintf(args, sizeof args, "md-p2 --steps 3 --data %s --init %s", good_d, path);
        refused_md(args, C[k].needle, path);
        snprintf(args, sizeof args, "md-p2 --steps 3 --init %s", path); /* the run's own data */
        refused_md(args, C[k].needle, path);
    }
}

static void write_text(char *path, size_t n, const char *name, const char *text)
{
    snprintf(path, n, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

Test(train_io, unreadable_and_non_json_files, .init = mk, .fini = rm, .timeout = 60)
{
    char p[256], args[768];
    write_text(p, sizeof p, "empty.json", "");
    snprintf(args, sizeof args, "md-p2 --data %s", p);
    refused_md(args, p, NULL);
    write_text(p, sizeof p, "trunc.json", "{\"n\": 6,\n \"T\": 8,\n \"data\": {\"X_1\": [");
    snprintf(args, sizeof args, "md-p2 --data %s", p);
    refused_md(args, "trunc.json:3:", NULL);
    write_text(p, sizeof p, "array.json", "[1, 2, 3]\n");
    snprintf(args, sizeof args, "md-p2 --data %s", p);
    refused_md(args, "not a JSON object", NULL);
    write_text(p, sizeof p, "dup.json", "{\"n\": 6, \"n\": 7}\n");
    snprintf(args, sizeof args, "md-p2 --data %s", p);
    refused_md(args, "duplicate", NULL);
    snprintf(args, sizeof args, "md-p2 --init %s/missing.json", dir);
    refused_md(args, "missing.json", NULL);
    snprintf(args, sizeof args, "md-p2 --data %s", dir); /* a directory */
    refused_md(args, "not a regular file", NULL);
}

Test(train_io, combinations_that_cannot_work, .init = mk, .fini = rm, .timeout = 60)
{
    char args[768];
    /* sizes of the file against a --set of them */
    snprintf(args, sizeof args, "md-p2 --set n=5 --data %s --init %s", good_d, good_i);
    refused_md(args, "n: is 6, but --set n=5 was given", NULL);
    /* --init at another d than the run's */
    snprintf(args, sizeof args, "md-p2 --set d=9 --init %s", good_i);
    refused_md(args, "d: is 10, the run's dimension is 9", NULL);
    /* an R1 run builds W(0) from its own data */
    snprintf(args, sizeof args, "md-r1-p2 --data %s", good_d);
    refused_md(args, "give --init with --data", NULL);
    snprintf(args, sizeof args, "md-p2 --data %s --drift 128", good_d);
    refused_md(args, "--drift", NULL);
    refused_md("md-p2 --every 0", "--every", NULL);
    char out[4096];
    snprintf(args, sizeof args, "train md-p2 --every 5");
    cr_expect_eq(lm_test_cli(out, sizeof out, args), 2, "%s", out);
    cr_expect(strstr(out, "give --iterates") != NULL, "%s", out);
    snprintf(args, sizeof args, "train md-p2 --export-data %s/x.json --csv", dir);
    cr_expect_eq(lm_test_cli(out, sizeof out, args), 2, "%s", out);
    cr_expect(strstr(out, "run nothing") != NULL, "%s", out);
    snprintf(args, sizeof args, "train md-p2 --steps 2 --out %s/same --iterates %s/same", dir, dir);
    cr_expect_eq(lm_test_cli(out, sizeof out, args), 2, "%s", out);
    cr_expect(strstr(out, "same file") != NULL, "%s", out);
    /* a run type without these options names the runs that take them */
    snprintf(args, sizeof args, "train tut-gd --data %s", good_d);
    cr_expect_eq(lm_test_cli(out, sizeof out, args), 2, "%s", out);
    cr_expect(strstr(out, "taken only by the runs") && strstr(out, "md-p2"), "%s", out);
    cr_expect(strchr(out, '\n') == out + strlen(out) - 1, "want one line: %s", out);
    /* an --iterates target that is a directory: refused, nothing run */
    snprintf(args, sizeof args, "train md-p2 --steps 2 --iterates %s", dir);
    cr_expect_eq(lm_test_cli(out, sizeof out, args), 2, "%s", out);
    cr_expect(strstr(out, "selected tokens") == NULL, "%s", out);
    /* the message names the option the user gave, not --out */
    cr_expect(strstr(out, "is a directory; --iterates replaces only a regular file") && !strstr(out, "--out"), "%s",
              out);
    cr_expect(strchr(out, '\n') == out + strlen(out) - 1, "want one line: %s", out);
}

/* a run that fails numerically removes both outputs (exit 3) */
Test(train_io, failed_run_leaves_nothing, .init = mk, .fini = rm, .timeout = 60)
{
    char out[8192], args[768];
    int before = lm_test_entries(dir);
    snprintf(args, sizeof args,
             "train md-p2 --set eta=1e300 --set p=1.5 --steps 5 --data %s --init %s --out %s/o.csv "
             "--iterates %s/it.json",
             good_d, good_i, dir, dir);
    int rc = lm_test_cli(out, sizeof out, args);
    cr_expect_eq(rc, 3, "%s", out);
    cr_expect_eq(lm_test_entries(dir), before, "a failed run left a file behind: %s", out);
}

/* a value wider than a double reads at --prec: the iterates are written as decimal strings */
Test(train_io, mpfr_run_writes_decimal_iterates, .init = mk, .fini = rm, .timeout = 60)
{
    char out[8192], args[768], it[256];
    snprintf(it, sizeof it, "%s/it.json", dir);
    snprintf(args, sizeof args, "train md-p2 --prec 128 --steps 2 --data %s --init %s --iterates %s", good_d,
             good_i, it);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    json_error_t e;
    json_t *j = json_load_file(it, 0, &e);
    cr_assert_not_null(j, "%s", e.text);
    cr_expect_eq(json_integer_value(json_object_get(j, "prec")), 128);
    const json_t *W1 = json_object_get(json_array_get(json_object_get(j, "iterates"), 1), "W");
    cr_expect_eq(json_integer_value(json_object_get(W1, "prec")), 128);
    const char *s = json_string_value(json_array_get(json_array_get(json_object_get(W1, "values"), 0), 0));
    cr_assert_not_null(s);
    cr_expect(strchr(s, 'e') && !strstr(s, "0x"), "a 128-bit entry as a decimal string: %s", s);
    json_decref(j);
}

/* ---- the dynamics paper's runs (runs/dyn_io.c) ---- */

static char dyn_d[128], dyn_i[128];

static void mk_dyn(void)
{
    snprintf(dir, sizeof dir, "/tmp/lemmata-trainio-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    snprintf(dyn_d, sizeof dyn_d, "%s/dd.json", dir);
    snprintf(dyn_i, sizeof dyn_i, "%s/di.json", dir);
    char out[4096], args[512];
    snprintf(args, sizeof args, "train t2-softmax --export-data %s --export-init %s", dyn_d, dyn_i);
    int rc = lm_test_cli(out, sizeof out, args);
    cr_assert_eq(rc, 0, "%s", out);
}

static char *slurp_abs(const char *path)
{
    char *s = lm_test_read_under("/", path);
    cr_assert_not_null(s, "cannot read %s", path);
    return s;
}

/* t2-softmax from its exported start is t2-softmax; the start round-trips; a changed token moves
 * the written iterates */
Test(train_io, dynamics_start_round_trips_and_is_used, .init = mk_dyn, .fini = rm, .timeout = 120)
{
    char out[8192], args[1024], p1[256], p2[256], p3[256], p4[256];
    snprintf(p1, sizeof p1, "%s/own.csv", dir);
    snprintf(p2, sizeof p2, "%s/given.csv", dir);
    snprintf(args, sizeof args, "train t2-softmax --steps 25 --out %s", p1);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    snprintf(p3, sizeof p3, "%s/it.json", dir);
    snprintf(args, sizeof args, "train t2-softmax --steps 25 --data %s --init %s --out %s --iterates %s", dyn_d, dyn_i,
             p2, p3);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    char *a = slurp_abs(p1), *b = slurp_abs(p2);
    cr_expect_str_eq(a, b, "t2-softmax from its exported start is not the run");
    free(a);
    free(b);
    snprintf(p1, sizeof p1, "%s/dd2.json", dir);
    snprintf(p2, sizeof p2, "%s/di2.json", dir);
    snprintf(args, sizeof args, "train t2-softmax --data %s --init %s --export-data %s --export-init %s", dyn_d,
             dyn_i, p1, p2);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    a = slurp_abs(dyn_d);
    b = slurp_abs(p1);
    cr_expect_str_eq(a, b);
    free(a);
    free(b);
    a = slurp_abs(dyn_i);
    b = slurp_abs(p2);
    cr_expect_str_eq(a, b);
    free(a);
    free(b);
    /* X_2's first token moved: the iterates after the first move too */
    json_error_t e;
    json_t *D = json_load_file(dyn_d, 0, &e);
    cr_assert_not_null(D, "%s", e.text);
    json_t *row = json_array_get(json_object_get(json_object_get(json_object_get(D, "data"), "X_2"), "values"), 0);
    json_array_set_new(row, 1, json_string("0x1.8p-1"));
    snprintf(p1, sizeof p1, "%s/ddp.json", dir);
    cr_assert_eq(json_dump_file(D, p1, 0), 0);
    json_decref(D);
    snprintf(p4, sizeof p4, "%s/itp.json", dir);
    snprintf(args, sizeof args, "train t2-softmax --steps 25 --data %s --init %s --iterates %s", p1, dyn_i, p4);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    json_t *A = json_load_file(p3, 0, &e), *B = json_load_file(p4, 0, &e);
    cr_assert(A && B);
    cr_assert_eq(json_array_size(json_object_get(A, "iterates")), 26);
    for (size_t k = 0; k <= 25; k++) {
        char *x = json_dumps(json_object_get(json_array_get(json_object_get(A, "iterates"), k), "W^Q_1"), JSON_COMPACT);
        char *y = json_dumps(json_object_get(json_array_get(json_object_get(B, "iterates"), k), "W^Q_1"), JSON_COMPACT);
        cr_assert(x && y);
        if (k == 0) cr_expect_str_eq(x, y);
        else cr_expect_str_neq(x, y, "iterate %zu did not move with the data", k);
        free(x);
        free(y);
    }
    json_decref(A);
    json_decref(B);
}

static void dyn_h2(json_t *r) { json_object_set_new(r, "H", json_integer(2)); }
/* t1-softmax-block (H = 2, D = 4, d = 2): an entry of W^V between the blocks */
static void wv_off_block(json_t *r)
{
    json_t *v = json_object_get(json_object_get(json_object_get(r, "init"), "W^V"), "values");
    json_array_set_new(json_array_get(v, 1), 3, json_string("0x1p-3"));
}
static void dyn_D(json_t *r) { json_object_set_new(r, "D", json_integer(4)); }
static void dyn_nan_y(json_t *r) { json_array_set_new(json_array_get(json_object_get(json_object_get(json_object_get(r, "data"), "y"), "values"), 3), 0, json_string("nan")); }
static void dyn_no_wo(json_t *r) { json_object_del(json_object_get(r, "init"), "W^O"); }
static void dyn_wq3(json_t *r)
{
    json_t *in = json_object_get(r, "init");
    json_object_set(in, "W^Q_3", json_object_get(in, "W^Q_1"));
}

Test(train_io, dynamics_hostile_files, .init = mk_dyn, .fini = rm, .timeout = 120)
{
    char path[256], args[768];
    lm_test_json_variant(path, sizeof path, dir, dyn_d, "D4.json", dyn_D);
    snprintf(args, sizeof args, "t2-softmax --steps 3 --data %s --init %s", path, dyn_i);
    refused_md(args, "D: is 5, but", path);
    lm_test_json_variant(path, sizeof path, dir, dyn_d, "nany.json", dyn_nan_y);
    snprintf(args, sizeof args, "t2-softmax --steps 3 --data %s --init %s", path, dyn_i);
    refused_md(args, "data.y.values[3][0]: not finite", path);
    lm_test_json_variant(path, sizeof path, dir, dyn_i, "nowo.json", dyn_no_wo);
    snprintf(args, sizeof args, "t2-softmax --steps 3 --data %s --init %s", dyn_d, path);
    refused_md(args, "init.W^O: missing", path);
    lm_test_json_variant(path, sizeof path, dir, dyn_i, "wq3.json", dyn_wq3);
    snprintf(args, sizeof args, "t2-softmax --steps 3 --init %s", path);
    refused_md(args, "init.W^Q_3: not a matrix of this run", path);
    /* H = 2 with the one-head W^V: its shape is refused */
    lm_test_json_variant(path, sizeof path, dir, dyn_i, "h2.json", dyn_h2);
    snprintf(args, sizeof args, "t2-softmax --steps 3 --init %s", path);
    refused_md(args, "init.W^Q_2: missing", path);
    /* a W^V off the block-diagonal form a wv=block run keeps */
    char bi[256], out[4096];
    snprintf(bi, sizeof bi, "%s/bi.json", dir);
    snprintf(args, sizeof args, "train t1-softmax-block --export-init %s", bi);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    lm_test_json_variant(path, sizeof path, dir, bi, "offblock.json", wv_off_block);
    snprintf(args, sizeof args, "t1-softmax-block --steps 3 --init %s", path);
    refused_md(args, "init.W^V.values[1][3]: is 0.125 off the diagonal blocks", path);
    snprintf(args, sizeof args, "train t1-softmax-dense --steps 3 --init %s", path); /* dense: a start */
    cr_expect_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
}
