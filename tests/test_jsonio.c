/* test_jsonio.c -- exact numbers and matrices through JSON (lm_jsonio.h).
 *
 * What must hold: a double written and read back is the same double (every bit, signed zero,
 * subnormals, the largest finite); an MPFR value at p bits and an Arb midpoint come back
 * equal at p bits; a matrix keeps its shape and every entry; another tool's plain JSON
 * numbers are read; every malformed value is refused with an error naming its field. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lm_jsonio.h"
#include "test_support.h"
#include <sys/stat.h>

static double back_d(double x)
{
    json_t *j = lm_json_double(x);
    cr_assert(j);
    double y = -1;
    char err[200];
    cr_assert_eq(lm_json_get_double(j, &y, "x", err, sizeof err), 0, "%s", err);
    json_decref(j);
    return y;
}

Test(jsonio, doubles_round_trip_bit_for_bit)
{
    const double xs[] = {0.1, -0.0, 0.0, 1.0 / 3.0, 0x1p-1074, 0x1.fffffffffffffp+1023, -2.5e-300,
                         M_PI, 6.02214076e23};
    for (size_t k = 0; k < sizeof xs / sizeof xs[0]; k++) {
        double y = back_d(xs[k]);
        cr_assert(memcmp(&y, &xs[k], sizeof y) == 0, "%a came back as %a", xs[k], y);
    }
    cr_assert(isnan(back_d(NAN)));
    cr_assert(isinf(back_d(HUGE_VAL)) && back_d(HUGE_VAL) > 0 && back_d(-HUGE_VAL) < 0);
    json_t *j = lm_json_double(0.1);
    cr_assert_str_eq(json_string_value(j), "0x1.999999999999ap-4");
    json_decref(j);
}

Test(jsonio, mpfr_and_arb_round_trip_at_their_precision)
{
    for (int bits = 64; bits <= 1024; bits *= 2) {
        lm_ctx c = lm_ctx_mpfr(bits), a = lm_ctx_arb(bits);
        lm_num x, y, z;
        lm_num_init(&x, &c);
        lm_num_init(&y, &c);
        lm_num_set_d(&x, 1.0);
        lm_num_div_d(&x, &x, 3.0); /* 1/3 at `bits`: not a double */
        json_t *j = lm_json_num(&x);
        char err[200];
        cr_assert_eq(lm_json_get_num(j, &y, "x", err, sizeof err), 0, "%s", err);
        cr_assert(mpfr_equal_p(x.m, y.m), "1/3 at %d bits changed through %s", bits, json_string_value(j));
        cr_assert_neq(lm_num_get_d(&x), 0.0);
        json_decref(j);
        /* an Arb ball's midpoint: exact, read into a ball of radius 0 */
        lm_num_init(&z, &a);
        lm_num_set(&z, &x);
        j = lm_json_num(&z);
        lm_num w;
        lm_num_init(&w, &c);
        cr_assert_eq(lm_json_get_num(j, &w, "x", err, sizeof err), 0, "%s", err);
        cr_assert(mpfr_equal_p(x.m, w.m), "an Arb midpoint at %d bits changed", bits);
        json_decref(j);
        lm_num_clears(&x, &y, &w, (lm_num *)NULL);
        lm_num_clear(&z);
    }
}

Test(jsonio, matrices_keep_shape_and_entries)
{
    lm_ctx d = lm_ctx_double(), m = lm_ctx_mpfr(200);
    lm_mat *A = lm_mat_new(3, 2, &d), *B = lm_mat_new(3, 2, &m);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++) {
            lm_mat_set_d(A, i, j, (i + 1) / (j + 7.0));
            lm_mat_set_d(B, i, j, 1.0);
        }
    lm_mat_scale_d(B, B, 1.0 / 3.0); /* 200-bit entries */
    json_t *ja = lm_json_mat(A), *jb = lm_json_mat(B);
    cr_assert_eq(json_integer_value(json_object_get(ja, "prec")), 53);
    cr_assert_eq(json_integer_value(json_object_get(jb, "prec")), 200);
    char err[200];
    lm_mat *A2 = lm_json_new_mat(ja, &d, 100, "A", err, sizeof err);
    cr_assert(A2, "%s", err);
    lm_mat *B2 = lm_mat_new(3, 2, &m);
    cr_assert_eq(lm_json_get_mat(jb, B2, 0, "B", err, sizeof err), 0, "%s", err);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++) {
            cr_assert(lm_mat_get_d(A2, i, j) == lm_mat_get_d(A, i, j));
            cr_assert(mpfr_equal_p(B2->m[i * 2 + j], B->m[i * 2 + j]));
        }
    /* a wrong shape is refused, naming the field; with resize it is taken */
    lm_mat *C = lm_mat_new(2, 2, &d);
    cr_assert_eq(lm_json_get_mat(ja, C, 0, "data.W", err, sizeof err), -1);
    cr_assert(strstr(err, "data.W") && strstr(err, "3x2"), "%s", err);
    cr_assert_eq(lm_json_get_mat(ja, C, 1, "data.W", err, sizeof err), 0);
    cr_assert_eq(C->r, 3);
    lm_mat_free(A);
    lm_mat_free(A2);
    lm_mat_free(B);
    lm_mat_free(B2);
    lm_mat_free(C);
    json_decref(ja);
    json_decref(jb);
}

Test(jsonio, plain_numbers_and_bad_values)
{
    json_error_t je;
    json_t *v = json_loads("{\"rows\":2,\"cols\":1,\"values\":[[0.1],[3]]}", 0, &je);
    cr_assert(v);
    lm_ctx d = lm_ctx_double();
    char err[200];
    lm_mat *M = lm_json_new_mat(v, &d, 10, "y", err, sizeof err);
    cr_assert(M, "%s", err);
    cr_assert(lm_mat_get_d(M, 0, 0) == 0.1 && lm_mat_get_d(M, 1, 0) == 3.0);
    lm_mat_free(M);
    json_decref(v);
    /* a flat list is a column */
    v = json_loads("[\"0x1p-1\", \"-2\", 7]", 0, &je);
    M = lm_json_new_mat(v, &d, 10, "v", err, sizeof err);
    cr_assert(M && M->r == 3 && M->c == 1 && lm_mat_get_d(M, 0, 0) == 0.5 && lm_mat_get_d(M, 1, 0) == -2.0);
    lm_mat_free(M);
    json_decref(v);
    const char *bad[] = {"{\"rows\":2,\"cols\":1,\"values\":[[\"abc\"],[1]]}",
                         "{\"rows\":2,\"cols\":1,\"values\":[[1]]}",
                         "{\"rows\":0,\"cols\":1,\"values\":[]}",
                         "{\"rows\":1,\"cols\":2,\"values\":[[1,true]]}",
                         "{\"rows\":1,\"cols\":1,\"values\":[[\"1.5x\"]]}",
                         "{\"rows\":1,\"cols\":1,\"values\":[[\"1e999999\"]]}",
                         "{\"rows\":100000,\"cols\":1,\"values\":[]}",
                         "\"a string\""};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        v = json_loads(bad[k], JSON_DECODE_ANY, &je);
        cr_assert(v, "%s", bad[k]);
        err[0] = 0;
        M = lm_json_new_mat(v, &d, 10, "data.X_1", err, sizeof err);
        cr_assert_null(M, "accepted %s", bad[k]);
        cr_assert(strstr(err, "data.X_1"), "error for %s does not name the field: %s", bad[k], err);
        json_decref(v);
    }
    /* an integer field given a real, or a string: the message shows the value */
    long n;
    v = json_real(1e300);
    cr_assert_eq(lm_json_get_int(v, 1, 32, &n, "n", err, sizeof err), -1);
    cr_expect_str_eq(err, "n: not an integer: \"1e+300\"");
    json_decref(v);
    v = json_real(2.5);
    cr_assert_eq(lm_json_get_int(v, 1, 32, &n, "n", err, sizeof err), -1);
    cr_expect_str_eq(err, "n: not an integer: \"2.5\"");
    json_decref(v);
    v = json_integer(40);
    cr_assert_eq(lm_json_get_int(v, 1, 32, &n, "n", err, sizeof err), -1);
    cr_expect_str_eq(err, "n: 40 is outside [1, 32]");
    json_decref(v);
}

Test(jsonio, files_load_and_save_with_errors_named)
{
    char dir[] = "/tmp/lm-jsonio-XXXXXX";
    cr_assert(mkdtemp(dir));
    char p[128], err[300];
    snprintf(p, sizeof p, "%s/a.json", dir);
    json_t *root = json_pack("{s:s,s:o}", "claim", "x/y", "v", lm_json_double(0.1));
    cr_assert_eq(lm_json_save_file(root, p, err, sizeof err), 0, "%s", err);
    json_decref(root);
    root = lm_json_load_file(p, 1 << 20, err, sizeof err);
    cr_assert(root, "%s", err);
    cr_assert_str_eq(json_string_value(json_object_get(root, "claim")), "x/y");
    json_decref(root);
    cr_assert_null(lm_json_load_file(p, 4, err, sizeof err)); /* over the size bound */
    cr_assert(strstr(err, "bytes"), "%s", err);
    FILE *f = fopen(p, "w");
    fputs("{\"a\": 1,\n \"a\": 2}\n", f); /* a duplicate key */
    fclose(f);
    cr_assert_null(lm_json_load_file(p, 1 << 20, err, sizeof err));
    cr_assert(strstr(err, "a.json:2:"), "%s", err);
    cr_assert_null(lm_json_load_file(dir, 1 << 20, err, sizeof err));
    snprintf(p, sizeof p, "%s/missing.json", dir);
    cr_assert_null(lm_json_load_file(p, 1 << 20, err, sizeof err));
    cr_assert(strstr(err, "missing.json"), "%s", err);
    /* a target that is a link or a directory is refused, the link's target untouched */
    snprintf(p, sizeof p, "%s/a.json", dir);
    char l[160];
    snprintf(l, sizeof l, "%s/link.json", dir);
    cr_assert_eq(symlink(p, l), 0);
    root = json_pack("{s:i}", "new", 1);
    cr_expect_eq(lm_json_save_file(root, l, err, sizeof err), -1, "wrote through or over a link");
    cr_expect(strstr(err, "link.json: is a symbolic link; only a regular file is replaced"), "%s", err);
    cr_expect_eq(lm_json_save_file(root, dir, err, sizeof err), -1, "wrote over a directory");
    cr_expect(strstr(err, "is a directory"), "%s", err);
    json_decref(root);
    struct stat st;
    cr_expect(lstat(l, &st) == 0 && S_ISLNK(st.st_mode), "the link was replaced");
    char *text = lm_test_read_under("/", p);
    cr_expect(text && strstr(text, "\"a\": 2"), "the link's target changed: %s", text ? text : "(gone)");
    free(text);
    unlink(l);
    unlink(p);
    cr_expect_eq(lm_test_entries(dir), 0, "a temporary file was left behind");
    rmdir(dir);
}
