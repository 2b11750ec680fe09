/* md_io.c -- the mirror-descent runs exchangeable with other tools (lm_paper.h's train_io,
 * docs/train-io.md): a run's data and W(0) read from JSON (--data, --init) or written in the
 * same form (--export-data, --export-init), and its iterates W(k) written as they are made
 * (--iterates, --every), every number exact through lm_jsonio.h.
 *
 * The names are those the claims give the same objects in a counterexample's data
 * (lm_data_mat in kit/mdstep.c): X_1..X_n, "Z (query tokens)", y, "v (head)", "W(0)", so an
 * instance and a run speak one language.
 *
 * Everything read is checked before anything runs or is written: the sizes against the
 * settings' ranges (and against a --set of them), every matrix's shape, every entry finite,
 * the labels exactly +-1.  A failure is one line naming the file and the field, and the
 * command exits 2 with its outputs removed. */
#include "lm_jsonio.h"
#include "lm_md.h"
#include "lm_mdruns.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NAME_Z "Z (query tokens)"
#define NAME_V "v (head)"
#define NAME_W0 "W(0)"

/* the sizes' ranges: those of --set n, T, d (md_runs.c) */
static const long SZ_LO[3] = {1, 2, 1}, SZ_HI[3] = {16, 32, 32};
static const char *const SZ_NAME[3] = {"n", "T", "d"};

/* the data file: the sizes into nTd, the data in ctx into *out.  0, or -1 with err */
static int read_data(lm_mddata **out, long nTd[3], const json_t *root, const lm_ctx *ctx, char *err,
                     int errlen)
{
    *out = NULL;
    if (lm_train_io_root(root, "the data of a run: run, n, T, d, data", err, errlen)) return -1;
    for (int k = 0; k < 3; k++)
        if (lm_json_get_int(json_object_get(root, SZ_NAME[k]), SZ_LO[k], SZ_HI[k], &nTd[k], SZ_NAME[k], err,
                            errlen))
            return -1;
    const json_t *dat = lm_train_io_matrices(root, "data", err, errlen);
    if (!dat) return -1;
    int n = (int)nTd[0], T = (int)nTd[1], d = (int)nTd[2];
    /* a matrix the run would not read is a mistake of the writer, not something to skip */
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)dat, key, val)
    {
        int i = 0, used = !strcmp(key, NAME_Z) || !strcmp(key, "y") || !strcmp(key, NAME_V);
        char tail;
        if (!used && sscanf(key, "X_%d%c", &i, &tail) == 1 && i >= 1 && i <= n) {
            char canon[32];
            snprintf(canon, sizeof canon, "X_%d", i);
            used = !strcmp(canon, key);
        }
        if (!used) {
            snprintf(err, (size_t)errlen,
                     "data.%.60s: not a matrix of this run (it reads X_1..X_%d, \"" NAME_Z "\", y, \"" NAME_V
                     "\")",
                     key, n);
            return -1;
        }
    }
    lm_mddata *D = lm_md_data_new(n, T, d, ctx);
    lm_mat *M = NULL;
    char nm[32], what[64];
    for (int i = 0; i < n; i++) {
        snprintf(nm, sizeof nm, "X_%d", i + 1);
        snprintf(what, sizeof what, "T x d: the tokens of sample %d", i + 1);
        if (!(M = lm_train_io_mat(dat, "data", nm, T, d, what, ctx, 64, err, errlen))) goto fail;
        lm_mat_copy(D->X[i], M);
        lm_mat_free(M);
    }
    if (!(M = lm_train_io_mat(dat, "data", NAME_Z, n, d, "n x d: row i the query token of sample i", ctx, 64,
                              err, errlen)))
        goto fail;
    lm_mat_copy(D->Z, M);
    lm_mat_free(M);
    if (!(M = lm_train_io_mat(dat, "data", NAME_V, d, 1, "d x 1: the fixed head", ctx, 64, err, errlen))) goto fail;
    lm_mat_copy(D->v, M);
    lm_mat_free(M);
    if (!(M = lm_train_io_mat(dat, "data", "y", n, 1, "n x 1: the labels, +1 or -1", ctx, 64, err, errlen))) goto fail;
    for (int i = 0; i < n; i++) {
        double y = lm_mat_get_d(M, i, 0);
        if (y != 1.0 && y != -1.0) {
            snprintf(err, (size_t)errlen, "data.y: entry %d is %g, a label must be +1 or -1", i, y);
            lm_mat_free(M);
            goto fail;
        }
        D->y[i] = y > 0 ? 1 : -1;
    }
    lm_mat_free(M);
    lm_md_set_alpha_opt(D);
    *out = D;
    return 0;
fail:
    lm_md_data_free(D);
    return -1;
}

/* the initial-point file: W(0), d x d, in ctx.  0, or -1 with err */
static int read_init(lm_mat **out, const json_t *root, int d, const lm_ctx *ctx, char *err, int errlen)
{
    *out = NULL;
    if (lm_train_io_root(root, "the initial point of a run: run, d, init", err, errlen)) return -1;
    const json_t *dv = json_object_get(root, "d");
    long dd;
    if (dv && lm_json_get_int(dv, 1, 32, &dd, "d", err, errlen)) return -1;
    if (dv && dd != d) {
        snprintf(err, (size_t)errlen, "d: is %ld, the run's dimension is %d", dd, d);
        return -1;
    }
    const json_t *in = lm_train_io_matrices(root, "init", err, errlen);
    if (!in) return -1;
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)in, key, val)
    {
        if (strcmp(key, NAME_W0)) {
            snprintf(err, (size_t)errlen, "init.%.60s: not a matrix of this run (it reads \"" NAME_W0 "\")", key);
            return -1;
        }
    }
    *out = lm_train_io_mat(in, "init", NAME_W0, d, d, "d x d: the initial point", ctx, 64, err, errlen);
    return *out ? 0 : -1;
}

/* ---- writing the start ---- */

static json_t *head(const lm_mdr_def *r, const char *format)
{
    return json_pack("{s:s,s:s}", "format", format, "run", r->name);
}

static json_t *data_json(const lm_mdr_def *r, const lm_mddata *D)
{
    json_t *root = head(r, "lemmata train data");
    json_object_set_new(root, "n", json_integer(D->n));
    json_object_set_new(root, "T", json_integer(D->T));
    json_object_set_new(root, "d", json_integer(D->d));
    json_t *m = json_object();
    char nm[32];
    for (int i = 0; i < D->n; i++) {
        snprintf(nm, sizeof nm, "X_%d", i + 1);
        json_object_set_new(m, nm, lm_json_mat(D->X[i]));
    }
    json_object_set_new(m, NAME_Z, lm_json_mat(D->Z));
    lm_mat *y = lm_mat_new(D->n, 1, &D->ctx);
    for (int i = 0; i < D->n; i++) lm_mat_set_d(y, i, 0, (double)D->y[i]);
    json_object_set_new(m, "y", lm_json_mat(y));
    lm_mat_free(y);
    json_object_set_new(m, NAME_V, lm_json_mat(D->v));
    json_object_set_new(root, "data", m);
    return root;
}

static json_t *init_json(const lm_mdr_def *r, const lm_mat *W0)
{
    json_t *root = head(r, "lemmata train init");
    json_object_set_new(root, "d", json_integer(W0->r));
    json_t *m = json_object();
    json_object_set_new(m, NAME_W0, lm_json_mat(W0));
    json_object_set_new(root, "init", m);
    return root;
}

/* the start as the run would use it, to io's export files: 0, or -1 with err */
static int export_start(const lm_mdr_def *r, const lm_train_args *a, const lm_mdr_given *G,
                        const lm_train_io *io, char *err, int errlen)
{
    lm_mddata *D;
    lm_mat *W0;
    if (lm_mdr_start(&D, &W0, r, a->seed, G, err, errlen)) return -1;
    int rc = lm_train_io_export(io, io->export_data ? data_json(r, D) : NULL,
                                io->export_init ? init_json(r, W0) : NULL, err, errlen);
    lm_md_data_free(D);
    lm_mat_free(W0);
    return rc;
}

/* ---- the iterates ---- */

typedef struct {
    lm_train_iterates *w;
    int last;
} iter_cx;

static int put_iterate(void *cxp, int k, const lm_mat *W, const lm_num *logL, char *err, int errlen)
{
    iter_cx *cx = cxp;
    if (!lm_iterates_want(cx->w, k, cx->last)) return 0;
    lm_ctx c = lm_mat_ctx(W);
    lm_num L;
    lm_num_init(&L, &c);
    lm_num_exp(&L, logL);
    json_t *it = json_pack("{s:i,s:o,s:o,s:o}", "k", k, "W", lm_json_mat(W), "loss", lm_json_num(&L), "log_loss",
                           lm_json_num(logL));
    lm_num_clear(&L);
    if (lm_iterates_put(cx->w, it)) {
        snprintf(err, (size_t)errlen, "the iterates could not be written (at iterate %d)", k);
        return -1;
    }
    return 0;
}

static json_t *iter_head(const lm_mdr_def *r, const lm_ctx *ctx, const lm_train_io *io, uint64_t seed)
{
    json_t *h = json_pack("{s:s,s:s,s:o,s:o,s:i,s:s,s:i,s:i,s:i,s:i,s:i}", "format", "lemmata train iterates",
                          "run", r->name, "p", lm_json_double(r->p), "eta", lm_json_double(r->eta), "normalized",
                          r->normalized, "loss", "logistic", "n", r->n, "T", r->T, "d", r->d, "steps", r->steps,
                          "prec", ctx->backend == LM_DOUBLE ? 53 : (int)ctx->prec);
    if (!h) return NULL;
    char s[32];
    snprintf(s, sizeof s, "%llu", (unsigned long long)seed);
    json_object_set_new(h, "data", json_string(io->data ? "given" : "the run's own, from the seed"));
    json_object_set_new(h, "init", json_string(io->init ? "given" : "the run's own"));
    json_object_set_new(h, "seed", json_string(s));
    return h;
}

int lm_mdr_train_io(void *run, FILE *f, const lm_train_args *a, const lm_train_io *io, char *err, int errlen)
{
    lm_mdr_def *r = run;
    const lm_mdr_def *def = lm_mdr_find(r->name);
    char e[400];
    if (a->drift) {
        snprintf(err, (size_t)errlen, "--drift is not taken with --data, --init, --iterates or --export-*");
        return LM_TRAIN_IO_REFUSED;
    }
    lm_mddata *D = NULL;
    lm_mat *W0 = NULL;
    int rc = 0;
    if (io->data) {
        long nTd[3];
        if (read_data(&D, nTd, io->data, &a->ctx, e, sizeof e))
            return lm_train_io_refuse(err, errlen, io->data_path, e);
        int *cur[3] = {&r->n, &r->T, &r->d};
        const int dflt[3] = {def->n, def->T, def->d};
        for (int k = 0; k < 3; k++) {
            if (*cur[k] != dflt[k] && *cur[k] != nTd[k]) {
                snprintf(e, sizeof e, "%s: is %ld, but --set %s=%d was given", SZ_NAME[k], nTd[k], SZ_NAME[k],
                         *cur[k]);
                lm_md_data_free(D);
                return lm_train_io_refuse(err, errlen, io->data_path, e);
            }
            *cur[k] = (int)nTd[k];
        }
    }
    if (io->init && read_init(&W0, io->init, r->d, &a->ctx, e, sizeof e)) {
        lm_md_data_free(D);
        return lm_train_io_refuse(err, errlen, io->init_path, e);
    }
    if (D && !W0 && r->kind == LM_MDR_R1) {
        lm_md_data_free(D);
        snprintf(err, (size_t)errlen, "%s builds W(0) from the l_p-AttSVM of its own data: give --init with --data",
                 r->name);
        return LM_TRAIN_IO_REFUSED;
    }
    iter_cx cx = {io->iterates, r->steps};
    lm_mdr_given G = {D, W0, io->iterates ? put_iterate : NULL, &cx};
    if (io->export_data || io->export_init) {
        rc = export_start(r, a, &G, io, err, errlen);
        lm_md_data_free(D);
        lm_mat_free(W0);
        return rc;
    }
    if (io->iterates && lm_iterates_begin(io->iterates, iter_head(r, &a->ctx, io, a->seed))) {
        snprintf(err, (size_t)errlen, "the iterates could not be written");
        rc = -1;
    }
    lm_mdr_rec *x = NULL;
    lm_mdr_info I;
    memset(&I, 0, sizeof I);
    if (!rc) rc = lm_mdr_exec_given(&x, &I, r, a->seed, &a->ctx, 0, &G, err, errlen);
    if (!rc && io->iterates && lm_iterates_end(io->iterates)) {
        snprintf(err, (size_t)errlen, "the iterates could not be written");
        rc = -1;
    }
    if (!rc) {
        lm_mdr_csv_header(f);
        for (int t = 0; t <= r->steps; t++) lm_mdr_csv_row(f, &x[t]);
        if (I.alpha) {
            fprintf(stderr, "lemmata: selected tokens alpha =");
            for (int i = 0; i < I.n; i++) fprintf(stderr, " %d", I.alpha[i]);
            fprintf(stderr, " (%d of %d the argmax of the scores)\n", I.alpha_opt, I.n);
        }
    }
    free(x);
    lm_mdr_info_clear(&I);
    lm_md_data_free(D);
    lm_mat_free(W0);
    return rc;
}
