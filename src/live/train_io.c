/* src/live/train_io.c -- the --iterates writer of `lemmata train` (lm_paper.h).
 *
 * The file is one JSON object, written as it goes rather than built and dumped: a run of 10^6
 * steps at d = 32 would otherwise hold gigabytes of JSON text in memory.  The head (the run's
 * fields, then "every") and each iterate are Jansson values dumped on their own, so every
 * number still goes through lm_jsonio.h's exact forms; only the brackets and commas between
 * them are written here.  Each iterate sits on one line, so a peer may also read the file line
 * by line. */
#include "lm_jsonio.h"
#include "lm_paper.h"
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

int lm_iterates_want(const lm_train_iterates *w, long k, long last)
{
    if (!w) return 0;
    return k == last || (w->every > 0 && k % w->every == 0);
}

/* v compactly on f: 0, or -1 */
static int dump(FILE *f, const json_t *v)
{
    char *s = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
    if (!s) return -1;
    int rc = fputs(s, f) < 0 ? -1 : 0;
    free(s);
    return rc;
}

int lm_iterates_begin(lm_train_iterates *w, json_t *head)
{
    int rc = head && json_is_object(head) && w->state == 0 ? 0 : -1;
    const char *key;
    json_t *val;
    if (!rc && fputs("{\n", w->f) < 0) rc = -1;
    json_object_foreach(head, key, val)
    {
        if (rc) break;
        json_t *k = json_string(key);
        if (!k || fputs("  ", w->f) < 0 || dump(w->f, k) || fputs(": ", w->f) < 0 || dump(w->f, val) ||
            fputs(",\n", w->f) < 0)
            rc = -1;
        json_decref(k);
    }
    if (!rc && fprintf(w->f, "  \"every\": %ld,\n  \"iterates\": [", w->every) < 0) rc = -1;
    json_decref(head);
    if (!rc) w->state = 1;
    return rc;
}

int lm_iterates_put(lm_train_iterates *w, json_t *it)
{
    int rc = it && w->state == 1 ? 0 : -1;
    if (!rc && (fputs(w->written ? ",\n    " : "\n    ", w->f) < 0 || dump(w->f, it))) rc = -1;
    json_decref(it);
    if (!rc) w->written++;
    return rc;
}

int lm_iterates_end(lm_train_iterates *w)
{
    if (w->state != 1) return -1;
    w->state = 2;
    return fputs("\n  ]\n}\n", w->f) < 0 ? -1 : 0;
}

int lm_train_io_export(const lm_train_io *io, json_t *data, json_t *init, char *err, int errlen)
{
    int rc = 0;
    if (io->export_data) {
        rc = data ? lm_json_save_file(data, io->export_data, err, errlen) : -1;
        if (!data) snprintf(err, (size_t)errlen, "%s: out of memory", io->export_data);
    }
    if (!rc && io->export_init) {
        rc = init ? lm_json_save_file(init, io->export_init, err, errlen) : -1;
        if (!init) snprintf(err, (size_t)errlen, "%s: out of memory", io->export_init);
        if (rc && io->export_data) remove(io->export_data); /* both or neither */
    }
    json_decref(data);
    json_decref(init);
    return rc;
}

int lm_train_io_root(const json_t *root, const char *what, char *err, int errlen)
{
    if (!json_is_object(root)) {
        snprintf(err, (size_t)errlen, "not a JSON object (%s)", what);
        return -1;
    }
    const json_t *run = json_object_get(root, "run");
    if (run && !json_is_string(run)) {
        snprintf(err, (size_t)errlen, "run: not a string (the name of the run the file is for)");
        return -1;
    }
    return 0;
}

const json_t *lm_train_io_matrices(const json_t *root, const char *name, char *err, int errlen)
{
    const json_t *v = json_object_get(root, name);
    if (!v || !json_is_object(v)) {
        snprintf(err, (size_t)errlen, "%s: %s", name, v ? "not an object of named matrices" : "missing");
        return NULL;
    }
    return v;
}

int lm_train_io_refuse(char *err, int errlen, const char *path, const char *msg)
{
    char m[512];
    snprintf(m, sizeof m, "%s", msg); /* msg may be err itself */
    snprintf(err, (size_t)errlen, "%s: %s", path, m);
    return LM_TRAIN_IO_REFUSED;
}

lm_mat *lm_train_io_mat(const json_t *obj, const char *prefix, const char *name, int rows, int cols,
                        const char *what, const lm_ctx *ctx, int maxdim, char *err, int errlen)
{
    char field[96];
    snprintf(field, sizeof field, "%s.%s", prefix, name);
    const json_t *v = json_object_get(obj, name);
    if (!v) {
        snprintf(err, (size_t)errlen, "%s: missing (a %dx%d matrix, %s)", field, rows, cols, what);
        return NULL;
    }
    lm_mat *M = lm_json_new_mat(v, ctx, maxdim, field, err, errlen);
    if (!M) return NULL;
    if (M->r != rows || M->c != cols) {
        snprintf(err, (size_t)errlen, "%s: is %dx%d, the run needs %dx%d (%s)", field, M->r, M->c,
                 rows, cols, what);
        lm_mat_free(M);
        return NULL;
    }
    /* finite in the run's own precision: an MPFR entry beyond double's range is finite */
    lm_num x;
    lm_num_init(&x, ctx);
    int bad = 0;
    for (int i = 0; i < rows && !bad; i++)
        for (int j = 0; j < cols && !bad; j++) {
            lm_mat_get(&x, M, i, j);
            if (lm_num_isfinite(&x)) continue;
            bad = 1;
            if (json_is_array(v))
                snprintf(err, (size_t)errlen, "%s[%d]: not finite: %g", field, i, lm_num_get_d(&x));
            else
                snprintf(err, (size_t)errlen, "%s.values[%d][%d]: not finite: %g", field, i, j,
                         lm_num_get_d(&x));
        }
    lm_num_clear(&x);
    if (bad) {
        lm_mat_free(M);
        return NULL;
    }
    return M;
}
