/* lm_jsonio.h -- numbers and matrices as JSON, exactly, through Jansson.
 *
 * Everything lemmata writes for another tool, and everything it reads from one (instances,
 * initial points, data sets, iterates), carries its numbers in one of two exact forms:
 *
 *   a double     a C99 hexadecimal float string, "0x1.999999999999ap-4" (printf %a): the
 *                bits, with no decimal rounding on either side;
 *   a wider value (MPFR at p > 53 bits, an Arb ball's midpoint) a decimal string with enough
 *                significant digits to round-trip at p bits (mpfr_get_str_ndigits),
 *                "1.0000000000000000000000000000000000000000000000000000000000000000000000000001e-1";
 *   not finite   "nan", "inf", "-inf" (JSON has no such numbers).
 *
 * A reader takes any of those strings (hexadecimal or decimal, read by strtod or, for a wider
 * target, mpfr_strtofr at the target's precision: rounded once, to nearest), and a plain JSON
 * number as well (another tool's output): Jansson reads that as a double, so a value wider
 * than a double must come as a string.  A matrix is the object
 *
 *   {"rows": R, "cols": C, "prec": P, "values": [[v00, v01, ...], [v10, ...], ...]}
 *
 * with P the precision of its values in bits (53: doubles); a column vector may also be
 * given as a flat list [v0, v1, ...] where a reader expects one.  Readers name the failing
 * field in their one-line error ("data.X_1.values[2][0]: not a number: \"abc\"").
 */
#ifndef LM_JSONIO_H
#define LM_JSONIO_H

#include "lm_mat.h"
#include <jansson.h>

/* JSON values (new references; NULL only when out of memory) */
json_t *lm_json_double(double x);        /* hex float string, or "nan"/"inf"/"-inf" */
json_t *lm_json_num(const lm_num *x);    /* a double as lm_json_double, wider as decimal */
json_t *lm_json_mat(const lm_mat *M);    /* the matrix object above */

/* the precision, in bits, of a number as lm_json_num writes it (53 for a double) */
mpfr_prec_t lm_num_bits(const lm_num *x);

/* Readers: 0, or -1 with a one-line error in err ("FIELD: what is wrong"); field names the
 * value in the error. */
int lm_json_get_double(const json_t *v, double *out, const char *field, char *err, int errlen);
/* into x at x's own precision (a double context rounds once, to nearest) */
int lm_json_get_num(const json_t *v, lm_num *x, const char *field, char *err, int errlen);
/* an integer in [lo, hi] */
int lm_json_get_int(const json_t *v, long lo, long hi, long *out, const char *field, char *err,
                    int errlen);
/* A matrix into M, which must already have the shape the file states unless resize is 1
 * (then M is resized to it).  Values are rounded once to M's precision. */
int lm_json_get_mat(const json_t *v, lm_mat *M, int resize, const char *field, char *err, int errlen);
/* A new matrix in ctx with the file's shape (NULL with err on any error); at most maxdim
 * rows and columns (a resource bound the caller states). */
lm_mat *lm_json_new_mat(const json_t *v, const lm_ctx *ctx, int maxdim, const char *field, char *err,
                        int errlen);

/* A whole JSON file, at most maxbytes long: the root value, or NULL with a one-line error
 * naming the file and, for a syntax error, its line and column. */
json_t *lm_json_load_file(const char *path, size_t maxbytes, char *err, int errlen);
/* Writes root to path atomically (a temporary file, synced, renamed over it): 0, or -1 with
 * err.  A path that exists and is not a regular file (a symbolic link, a directory, a device)
 * is refused.  Keys in insertion order, two-space indent, one trailing newline. */
int lm_json_save_file(const json_t *root, const char *path, char *err, int errlen);

#endif
