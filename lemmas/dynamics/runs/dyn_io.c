/* dyn_io.c -- the runs of the gradient-descent dynamics paper exchangeable with other tools
 * (lm_paper.h's train_io, docs/train-io.md): the data (X_i, y) and the start (W^Q_h, W^K_h,
 * W^V, W^O) read from JSON or written in the same form, and the trained parameters written at
 * every iterate, all exact through lm_jsonio.h.
 *
 * The names are those of the claims' counterexample data (lm_mha_data in model/mha.c).  As
 * for the mirror-descent runs (runs/md_io.c), everything read is checked before anything runs:
 * sizes in the --set ranges, shapes, finite entries, and W^V block-diagonal when the run keeps
 * it so (wv=block: GD never leaves that form, so a start off it is not a start of this run). */
#include "lm_dyntrain.h"
#include "lm_jsonio.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the sizes' ranges: those of --set (runs.c) */
enum { SZ_N, SZ_n, SZ_D, SZ_d, SZ_H };
static const long SZ_HI[5] = {16, 16, 32, 16, 8};
static const char *const SZ_NAME[5] = {"N", "n", "D", "d", "H"};

/* prefix.name, rows x cols, every entry finite, into M (already of that shape): 0, or -1 */
static int get_into(lm_mat *M, const json_t *obj, const char *prefix, const char *name, const char *what,
                    char *err, int errlen)
{
    lm_ctx c = lm_mat_ctx(M);
    lm_mat *A = lm_train_io_mat(obj, prefix, name, M->r, M->c, what, &c, 512, err, errlen);
    if (!A) return -1;
    lm_mat_copy(M, A);
    lm_mat_free(A);
    return 0;
}

/* every key of obj is one of the names the run reads: 0, or -1 naming the stray one */
static int only_known(const json_t *obj, const char *prefix, const lm_mha *m, int init, char *err, int errlen)
{
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)obj, key, val)
    {
        int ok = 0, i;
        char tail, canon[32];
        if (!init) {
            ok = !strcmp(key, "y");
            if (!ok && sscanf(key, "X_%d%c", &i, &tail) == 1 && i >= 1 && i <= m->N) {
                snprintf(canon, sizeof canon, "X_%d", i);
                ok = !strcmp(canon, key);
            }
        } else {
            ok = !strcmp(key, "W^V") || !strcmp(key, "W^O");
            for (int h = 1; !ok && h <= m->H; h++) {
                snprintf(canon, sizeof canon, "W^Q_%d", h);
                ok = !strcmp(canon, key);
                snprintf(canon, sizeof canon, "W^K_%d", h);
                ok = ok || !strcmp(canon, key);
            }
        }
        if (!ok) {
            snprintf(err, (size_t)errlen, "%s.%.60s: not a matrix of this run (it reads %s)", prefix, key,
                     init ? "W^Q_h, W^K_h (h = 1..H), W^V, W^O" : "X_1..X_N, y");
            return -1;
        }
    }
    return 0;
}

/* sizes k0..k1 of root into z (each in [1, its --set bound]): 0, or -1 */
static int get_sizes(long *z, const json_t *root, int k0, int k1, char *err, int errlen)
{
    for (int k = k0; k <= k1; k++)
        if (lm_json_get_int(json_object_get(root, SZ_NAME[k]), 1, SZ_HI[k], &z[k], SZ_NAME[k], err, errlen)) return -1;
    return 0;
}

static int read_data(lm_mha *m, const json_t *root, char *err, int errlen)
{
    const json_t *dat = lm_train_io_matrices(root, "data", err, errlen);
    if (!dat || only_known(dat, "data", m, 0, err, errlen)) return -1;
    char nm[32], what[64];
    for (int i = 0; i < m->N; i++) {
        snprintf(nm, sizeof nm, "X_%d", i + 1);
        snprintf(what, sizeof what, "n x D: the tokens of sample %d", i + 1);
        if (get_into(m->X[i], dat, "data", nm, what, err, errlen)) return -1;
    }
    return get_into(m->y, dat, "data", "y", "Nn x 1: the targets, sample by sample", err, errlen);
}

static int read_init(lm_mha *m, const json_t *root, char *err, int errlen)
{
    const json_t *in = lm_train_io_matrices(root, "init", err, errlen);
    if (!in || only_known(in, "init", m, 1, err, errlen)) return -1;
    char nm[32];
    for (int h = 0; h < m->H; h++) {
        snprintf(nm, sizeof nm, "W^Q_%d", h + 1);
        if (get_into(m->Wq[h], in, "init", nm, "D x d: the query weights of a head", err, errlen)) return -1;
        snprintf(nm, sizeof nm, "W^K_%d", h + 1);
        if (get_into(m->Wk[h], in, "init", nm, "D x d: the key weights of a head", err, errlen)) return -1;
    }
    if (get_into(m->Wv, in, "init", "W^V", "HD x Hd: the value weights", err, errlen)) return -1;
    if (m->wv == LM_WV_BLOCK)
        for (int a = 0; a < m->Wv->r; a++)
            for (int b = 0; b < m->Wv->c; b++)
                if (a / m->D != b / m->d && lm_mat_get_d(m->Wv, a, b) != 0.0) {
                    snprintf(err, (size_t)errlen,
                             "init.W^V.values[%d][%d]: is %g off the diagonal blocks, but this run keeps W^V "
                             "block-diagonal (--set wv=dense trains it whole)",
                             a, b, lm_mat_get_d(m->Wv, a, b));
                    return -1;
                }
    return get_into(m->Wo, in, "init", "W^O", "Hd x 1: the output weights", err, errlen);
}

/* ---- writing ---- */

static json_t *data_json(const lm_dynrun_def *r, const lm_mha *m)
{
    json_t *root = json_pack("{s:s,s:s,s:i,s:i,s:i}", "format", "lemmata train data", "run", r->name, "N", m->N,
                             "n", m->n, "D", m->D);
    json_t *o = json_object();
    char nm[32];
    for (int i = 0; i < m->N; i++) {
        snprintf(nm, sizeof nm, "X_%d", i + 1);
        json_object_set_new(o, nm, lm_json_mat(m->X[i]));
    }
    json_object_set_new(o, "y", lm_json_mat(m->y));
    json_object_set_new(root, "data", o);
    return root;
}

/* the parameters (all, or the trained ones of mask) into o */
static void params_into(json_t *o, const lm_mha *m, int mask, int all)
{
    char nm[32];
    for (int h = 0; h < m->H; h++) {
        snprintf(nm, sizeof nm, "W^Q_%d", h + 1);
        if (all || (mask & LM_VAR_Q)) json_object_set_new(o, nm, lm_json_mat(m->Wq[h]));
        snprintf(nm, sizeof nm, "W^K_%d", h + 1);
        if (all || (mask & LM_VAR_K)) json_object_set_new(o, nm, lm_json_mat(m->Wk[h]));
    }
    if (all || (mask & LM_VAR_V)) json_object_set_new(o, "W^V", lm_json_mat(m->Wv));
    if (all) json_object_set_new(o, "W^O", lm_json_mat(m->Wo));
}

static json_t *init_json(const lm_dynrun_def *r, const lm_mha *m)
{
    json_t *root = json_pack("{s:s,s:s,s:i,s:i,s:i}", "format", "lemmata train init", "run", r->name, "D", m->D,
                             "d", m->d, "H", m->H);
    json_t *o = json_object();
    params_into(o, m, 0, 1);
    json_object_set_new(root, "init", o);
    return root;
}

typedef struct {
    lm_train_iterates *w;
    int last, mask;
} iter_cx;

static int put_iterate(void *cxp, int t, const lm_mha *m, char *err, int errlen)
{
    iter_cx *cx = cxp;
    if (!lm_iterates_want(cx->w, t, cx->last)) return 0;
    json_t *it = json_pack("{s:i}", "k", t);
    params_into(it, m, cx->mask, 0);
    json_object_set_new(it, "loss", lm_json_num(&m->f));
    if (lm_iterates_put(cx->w, it)) {
        snprintf(err, (size_t)errlen, "the iterates could not be written (at iterate %d)", t);
        return -1;
    }
    return 0;
}

static const char *mask_names(int mask)
{
    static const char *const s[8] = {"", "W^Q", "W^K", "W^Q W^K", "W^V", "W^Q W^V", "W^K W^V", "W^Q W^K W^V"};
    return s[mask & 7];
}

int lm_dynrun_train_io(void *run, FILE *f, const lm_train_args *a, const lm_train_io *io, char *err, int errlen)
{
    lm_dynrun_def *r = run;
    const lm_dynrun_def *def = lm_dynrun_find(r->name);
    char e[400];
    if (a->drift) {
        snprintf(err, (size_t)errlen, "--drift is not taken with --data, --init, --iterates or --export-*");
        return LM_TRAIN_IO_REFUSED;
    }
    /* the sizes first: the data give N, n, D; the start D, d, H */
    int *cur[5] = {&r->N, &r->n, &r->D, &r->d, &r->H};
    const int dflt[5] = {def->N, def->n, def->D, def->d, def->H};
    long z[5];
    for (int k = 0; k < 5; k++) z[k] = *cur[k];
    const struct {
        const json_t *root;
        const char *path, *what;
        int k0, k1;
    } F[2] = {{io->data, io->data_path, "the data of a run: run, N, n, D, data", SZ_N, SZ_D},
              {io->init, io->init_path, "the start of a run: run, D, d, H, init", SZ_D, SZ_H}};
    int from[5] = {-1, -1, -1, -1, -1};
    for (int j = 0; j < 2; j++) {
        if (!F[j].root) continue;
        long y[5];
        if (lm_train_io_root(F[j].root, F[j].what, e, sizeof e) || get_sizes(y, F[j].root, F[j].k0, F[j].k1, e, sizeof e))
            return lm_train_io_refuse(err, errlen, F[j].path, e);
        for (int k = F[j].k0; k <= F[j].k1; k++) {
            if (from[k] >= 0 && y[k] != z[k])
                snprintf(e, sizeof e, "%s: is %ld, but %s gives %ld", SZ_NAME[k], y[k], F[from[k]].path, z[k]);
            else if (from[k] < 0 && *cur[k] != dflt[k] && *cur[k] != y[k])
                snprintf(e, sizeof e, "%s: is %ld, but --set %s=%d was given", SZ_NAME[k], y[k], SZ_NAME[k], *cur[k]);
            else {
                z[k] = y[k];
                from[k] = j;
                continue;
            }
            return lm_train_io_refuse(err, errlen, F[j].path, e);
        }
    }
    for (int k = 0; k < 5; k++) *cur[k] = (int)z[k];
    /* the run's own model at these sizes, then what is given in its place */
    lm_mha *m = lm_dynrun_model(r, a->seed, &a->ctx);
    if (io->data && read_data(m, io->data, e, sizeof e)) {
        lm_mha_free(m);
        return lm_train_io_refuse(err, errlen, io->data_path, e);
    }
    if (io->init && read_init(m, io->init, e, sizeof e)) {
        lm_mha_free(m);
        return lm_train_io_refuse(err, errlen, io->init_path, e);
    }
    lm_mha_forward(m);
    int rc = 0;
    if (io->export_data || io->export_init) {
        rc = lm_train_io_export(io, io->export_data ? data_json(r, m) : NULL,
                                io->export_init ? init_json(r, m) : NULL, err, errlen);
        lm_mha_free(m);
        return rc;
    }
    if (lm_dynrun_eta_fits(r, m, err, errlen)) {
        lm_mha_free(m);
        return -1;
    }
    /* the automatic step size of the given start (the run's own: that of its own start, as
     * lm_dynrun_exec forms it, so a run from its exported start is the run itself) */
    double eta = r->eta > 0                   ? r->eta
                 : io->data || io->init ? lm_dynrun_auto_eta_of(r, m)
                                        : lm_dynrun_auto_eta(r, a->seed);
    iter_cx cx = {io->iterates, r->steps, r->mask};
    if (io->iterates) {
        json_t *h = json_pack("{s:s,s:s,s:s,s:s,s:s,s:o,s:s,s:i,s:i,s:i,s:i,s:i,s:i,s:i}", "format",
                              "lemmata train iterates", "run", r->name, "kernel",
                              r->kernel == LM_GAUSS ? "gauss" : "softmax", "wv",
                              r->wv == LM_WV_DENSE ? "dense" : "block", "trained", mask_names(r->mask), "eta",
                              lm_json_double(eta), "loss", "1/2 ||MH - y||^2", "N", r->N, "n", r->n, "D", r->D,
                              "d", r->d, "H", r->H, "steps", r->steps, "prec",
                              a->ctx.backend == LM_DOUBLE ? 53 : (int)a->ctx.prec);
        if (lm_iterates_begin(io->iterates, h)) {
            snprintf(err, (size_t)errlen, "the iterates could not be written");
            lm_mha_free(m);
            return -1;
        }
    }
    rc = lm_dynrun_exec_model(r, m, eta, f, 1, io->iterates ? put_iterate : NULL, &cx, err, errlen);
    if (!rc && io->iterates && lm_iterates_end(io->iterates)) {
        snprintf(err, (size_t)errlen, "the iterates could not be written");
        rc = -1;
    }
    return rc;
}
