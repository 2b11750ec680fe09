/* src/linalg/jsonio.c -- numbers and matrices as exact JSON strings (lm_jsonio.h).
 *
 * Why strings: a JSON number is a decimal text that every reader rounds on its own terms,
 * and Jansson itself keeps only a double.  A hexadecimal float is the double's bits; a
 * decimal string of mpfr_get_str_ndigits(10, p) digits reads back to the same p-bit value.
 * So an instance written here and read back is the same instance, bit for bit, which is
 * what `check --export` followed by `check --instances` promises. */
#include "lm_jsonio.h"
#include "../num/num_priv.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void errf(char *err, int n, const char *field, const char *what, const char *got)
{
    if (!err || n <= 0) return;
    if (got) snprintf(err, (size_t)n, "%s: %s: \"%.40s\"", field ? field : "value", what, got);
    else snprintf(err, (size_t)n, "%s: %s", field ? field : "value", what);
}

json_t *lm_json_double(double x)
{
    char b[48];
    if (isnan(x)) return json_string("nan");
    if (isinf(x)) return json_string(x > 0 ? "inf" : "-inf");
    snprintf(b, sizeof b, "%a", x);
    return json_string(b);
}

/* y (exact) as the shortest decimal string of ndigits(prec) digits, trailing zeros cut */
static json_t *mpfr_json(mpfr_srcptr y, mpfr_prec_t prec)
{
    if (mpfr_nan_p(y)) return json_string("nan");
    if (mpfr_inf_p(y)) return json_string(mpfr_sgn(y) > 0 ? "inf" : "-inf");
    if (mpfr_zero_p(y)) return json_string(mpfr_signbit(y) ? "-0" : "0");
    size_t nd = mpfr_get_str_ndigits(10, prec);
    mpfr_exp_t e;
    char *dig = mpfr_get_str(NULL, &e, 10, nd, y, MPFR_RNDN);
    if (!dig) return NULL;
    const char *d = dig;
    int neg = *d == '-';
    if (neg) d++;
    size_t L = strlen(d);
    while (L > 1 && d[L - 1] == '0') L--;
    size_t cap = L + 40;
    char *s = malloc(cap);
    if (!s) {
        mpfr_free_str(dig);
        return NULL;
    }
    /* 0.d1d2... x 10^e  =  d1.d2... x 10^(e-1) */
    if (L > 1) snprintf(s, cap, "%s%c.%.*se%ld", neg ? "-" : "", d[0], (int)(L - 1), d + 1, (long)(e - 1));
    else snprintf(s, cap, "%s%ce%ld", neg ? "-" : "", d[0], (long)(e - 1));
    mpfr_free_str(dig);
    json_t *j = json_string(s);
    free(s);
    return j;
}

mpfr_prec_t lm_num_bits(const lm_num *x)
{
    if (x->ab) {
        slong b = arf_bits(arb_midref(x->b));
        return x->ap > b ? x->ap : (mpfr_prec_t)b;
    }
    if (x->mp) return mpfr_get_prec(x->m);
    return 53;
}

json_t *lm_json_num(const lm_num *x)
{
    if (x->ab) { /* the midpoint, exactly: its own bits decide the digits */
        mpfr_t y;
        lm_arf_init_mpfr(y, arb_midref(x->b));
        json_t *j = mpfr_json(y, lm_num_bits(x) > mpfr_get_prec(y) ? lm_num_bits(x) : mpfr_get_prec(y));
        mpfr_clear(y);
        return j;
    }
    if (x->mp) return mpfr_json(x->m, mpfr_get_prec(x->m));
    return lm_json_double(x->d);
}

json_t *lm_json_mat(const lm_mat *M)
{
    lm_ctx ctx = lm_mat_ctx(M);
    lm_num x;
    lm_num_init(&x, &ctx);
    json_t *rows = json_array();
    mpfr_prec_t bits = ctx.backend == LM_DOUBLE ? 53 : ctx.prec;
    for (int i = 0; rows && i < M->r; i++) {
        json_t *row = json_array();
        for (int j = 0; row && j < M->c; j++) {
            lm_mat_get(&x, M, i, j);
            json_array_append_new(row, lm_json_num(&x));
        }
        json_array_append_new(rows, row);
    }
    lm_num_clear(&x);
    return json_pack("{s:i,s:i,s:i,s:o}", "rows", M->r, "cols", M->c, "prec", (int)bits, "values", rows);
}

/* the text of a number value: a string as given, a JSON number printed back exactly (a real
 * with %a, so nothing is rounded twice) */
static int num_text(const json_t *v, char *buf, size_t n, const char **out)
{
    if (json_is_string(v)) {
        *out = json_string_value(v);
        return 0;
    }
    if (json_is_integer(v)) {
        snprintf(buf, n, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        *out = buf;
        return 0;
    }
    if (json_is_real(v)) {
        snprintf(buf, n, "%a", json_real_value(v));
        *out = buf;
        return 0;
    }
    return -1;
}

/* "nan", "inf", "+inf", "-inf" (any case): 1 and *x set */
static int special(const char *s, double *x)
{
    const char *t = s + (*s == '+' || *s == '-');
    int neg = *s == '-';
    if (!strcasecmp(t, "nan")) *x = NAN;
    else if (!strcasecmp(t, "inf") || !strcasecmp(t, "infinity")) *x = neg ? -INFINITY : INFINITY;
    else return 0;
    return 1;
}

/* what a refused value was, for the message: a string as given, a number in full (1e300 for
 * an integer field), or its JSON kind; in a thread-local buffer, one value per message */
static const char *vshow(const json_t *v)
{
    static _Thread_local char buf[40];
    if (json_is_real(v)) { /* the shortest form that reads back to it */
        double x = json_real_value(v);
        for (int p = 1; p <= 17; p++) {
            snprintf(buf, sizeof buf, "%.*g", p, x);
            if (strtod(buf, NULL) == x) break;
        }
        return buf;
    }
    if (json_is_integer(v)) {
        snprintf(buf, sizeof buf, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return buf;
    }
    return json_is_string(v) ? json_string_value(v)
           : json_is_null(v) ? "null"
           : json_is_boolean(v) ? "boolean"
           : json_is_array(v) ? "array"
           : json_is_object(v) ? "object"
                               : "?";
}

int lm_json_get_double(const json_t *v, double *out, const char *field, char *err, int errlen)
{
    char buf[64];
    const char *s;
    if (!v || num_text(v, buf, sizeof buf, &s)) {
        errf(err, errlen, field, v ? "not a number" : "missing", v ? vshow(v) : NULL);
        return -1;
    }
    if (special(s, out)) return 0;
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (end == s || *end || (errno == ERANGE && isinf(x))) {
        errf(err, errlen, field, "not a number", s);
        return -1;
    }
    *out = x;
    return 0;
}

int lm_json_get_num(const json_t *v, lm_num *x, const char *field, char *err, int errlen)
{
    if (!x->mp && !x->ab) return lm_json_get_double(v, &x->d, field, err, errlen);
    char buf[64];
    const char *s;
    if (!v || num_text(v, buf, sizeof buf, &s)) {
        errf(err, errlen, field, v ? "not a number" : "missing", v ? vshow(v) : NULL);
        return -1;
    }
    mpfr_prec_t p = x->ab ? x->ap : mpfr_get_prec(x->m);
    mpfr_t y;
    mpfr_init2(y, p);
    double sp;
    int bad = 0;
    if (special(s, &sp)) mpfr_set_d(y, sp, MPFR_RNDN);
    else {
        char *end;
        mpfr_strtofr(y, s, &end, 0, MPFR_RNDN);
        bad = end == s || *end;
    }
    if (bad) {
        mpfr_clear(y);
        errf(err, errlen, field, "not a number", s);
        return -1;
    }
    if (x->ab) lm_arb_set_mpfr(x->b, y);
    else mpfr_set(x->m, y, MPFR_RNDN);
    mpfr_clear(y);
    return 0;
}

int lm_json_get_int(const json_t *v, long lo, long hi, long *out, const char *field, char *err, int errlen)
{
    if (!v || !json_is_integer(v)) {
        errf(err, errlen, field, v ? "not an integer" : "missing", v ? vshow(v) : NULL);
        return -1;
    }
    json_int_t k = json_integer_value(v);
    if (k < lo || k > hi) {
        char w[96];
        snprintf(w, sizeof w, "%" JSON_INTEGER_FORMAT " is outside [%ld, %ld]", k, lo, hi);
        errf(err, errlen, field, w, NULL);
        return -1;
    }
    *out = (long)k;
    return 0;
}

/* the shape a matrix value states: 0, or -1 with err */
static int mat_shape(const json_t *v, long *r, long *c, const json_t **vals, long maxdim, const char *field,
                     char *err, int errlen)
{
    char f[160];
    if (json_is_array(v)) { /* a flat list: a column vector */
        *r = (long)json_array_size(v);
        *c = 1;
        *vals = v;
        if (*r < 1 || *r > maxdim) {
            errf(err, errlen, field, *r < 1 ? "empty" : "too long", NULL);
            return -1;
        }
        return 0;
    }
    if (!json_is_object(v)) {
        errf(err, errlen, field, v ? "not a matrix (an object with rows, cols, values)" : "missing",
             v ? vshow(v) : NULL);
        return -1;
    }
    snprintf(f, sizeof f, "%s.rows", field);
    if (lm_json_get_int(json_object_get(v, "rows"), 1, maxdim, r, f, err, errlen)) return -1;
    snprintf(f, sizeof f, "%s.cols", field);
    if (lm_json_get_int(json_object_get(v, "cols"), 1, maxdim, c, f, err, errlen)) return -1;
    *vals = json_object_get(v, "values");
    snprintf(f, sizeof f, "%s.values", field);
    if (!json_is_array(*vals) || (long)json_array_size(*vals) != *r) {
        char w[80];
        snprintf(w, sizeof w, "must be a list of %ld rows", *r);
        errf(err, errlen, f, w, NULL);
        return -1;
    }
    for (long i = 0; i < *r; i++) {
        const json_t *row = json_array_get(*vals, (size_t)i);
        if (!json_is_array(row) || (long)json_array_size(row) != *c) {
            char w[80];
            snprintf(f, sizeof f, "%s.values[%ld]", field, i);
            snprintf(w, sizeof w, "must be a list of %ld numbers", *c);
            errf(err, errlen, f, w, NULL);
            return -1;
        }
    }
    return 0;
}

static int mat_fill(lm_mat *M, const json_t *vals, long r, long c, int flat, const char *field, char *err,
                    int errlen)
{
    lm_ctx ctx = lm_mat_ctx(M);
    lm_num x;
    lm_num_init(&x, &ctx);
    int rc = 0;
    char f[200];
    for (long i = 0; i < r && !rc; i++)
        for (long j = 0; j < c && !rc; j++) {
            const json_t *e = flat ? json_array_get(vals, (size_t)i)
                                   : json_array_get(json_array_get(vals, (size_t)i), (size_t)j);
            if (flat) snprintf(f, sizeof f, "%s[%ld]", field, i);
            else snprintf(f, sizeof f, "%s.values[%ld][%ld]", field, i, j);
            rc = lm_json_get_num(e, &x, f, err, errlen);
            if (!rc) lm_mat_set(M, (int)i, (int)j, &x);
        }
    lm_num_clear(&x);
    return rc;
}

int lm_json_get_mat(const json_t *v, lm_mat *M, int resize, const char *field, char *err, int errlen)
{
    long r, c;
    const json_t *vals;
    if (mat_shape(v, &r, &c, &vals, 1L << 20, field, err, errlen)) return -1;
    if (r != M->r || c != M->c) {
        if (!resize) {
            char w[120];
            snprintf(w, sizeof w, "is %ldx%ld, the check needs %dx%d", r, c, M->r, M->c);
            errf(err, errlen, field, w, NULL);
            return -1;
        }
        lm_mat_resize(M, (int)r, (int)c);
    }
    return mat_fill(M, vals, r, c, json_is_array(v), field, err, errlen);
}

lm_mat *lm_json_new_mat(const json_t *v, const lm_ctx *ctx, int maxdim, const char *field, char *err, int errlen)
{
    long r, c;
    const json_t *vals;
    if (mat_shape(v, &r, &c, &vals, maxdim, field, err, errlen)) return NULL;
    lm_mat *M = lm_mat_new((int)r, (int)c, ctx);
    if (mat_fill(M, vals, r, c, json_is_array(v), field, err, errlen)) {
        lm_mat_free(M);
        return NULL;
    }
    return M;
}

json_t *lm_json_load_file(const char *path, size_t maxbytes, char *err, int errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, (size_t)errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, (size_t)errlen, "%s: not a regular file", path);
        return NULL;
    }
    if ((size_t)st.st_size > maxbytes) {
        snprintf(err, (size_t)errlen, "%s: %lld bytes, more than the %zu this reader takes", path,
                 (long long)st.st_size, maxbytes);
        return NULL;
    }
    json_error_t je;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        if (je.line > 0) snprintf(err, (size_t)errlen, "%s:%d:%d: %s", path, je.line, je.column, je.text);
        else snprintf(err, (size_t)errlen, "%s: %s", path, je.text);
    }
    return root;
}

int lm_json_save_file(const json_t *root, const char *path, char *err, int errlen)
{
    /* as --out: a target that exists is replaced only when it is a regular file (a link, a
     * directory, a device is refused, never written through or over) */
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        const char *kind = S_ISLNK(st.st_mode)   ? "a symbolic link"
                           : S_ISDIR(st.st_mode) ? "a directory"
                                                 : "not a regular file";
        snprintf(err, (size_t)errlen, "%s: is %s; only a regular file is replaced", path, kind);
        return -1;
    }
    size_t n = strlen(path) + 32;
    char *tmp = malloc(n);
    if (!tmp) {
        snprintf(err, (size_t)errlen, "%s: out of memory", path);
        return -1;
    }
    snprintf(tmp, n, "%s.tmp.%ld", path, (long)getpid());
    int rc = json_dump_file(root, tmp, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    if (rc == 0) {
        FILE *f = fopen(tmp, "a"); /* the trailing newline json_dump_file leaves out */
        if (!f || fputc('\n', f) == EOF || fflush(f) != 0 || fsync(fileno(f)) != 0) rc = -1;
        if (f && fclose(f) != 0) rc = -1; /* on disk before it replaces the target */
    }
    if (rc == 0 && rename(tmp, path) != 0) rc = -1;
    if (rc != 0) {
        snprintf(err, (size_t)errlen, "%s: cannot write: %s", path, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
    return rc;
}
