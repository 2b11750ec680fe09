/* ib_io.c -- the implicit-bias runs exchangeable with other tools (lm_paper.h's train_io,
 * docs/train-io.md): a run's data and start read from JSON (--data, --init) or written in the
 * same form (--export-data, --export-init), and its iterates W(k) (and u(k) for a joint run)
 * written as they are made (--iterates, --every), every number exact through lm_jsonio.h.
 *
 * The data are the data set the runs train on (lm_attn_data): X_1..X_n (T x d, row t the
 * token x_it, row 1 the query token x_i1), the labels y, the designated optimal tokens
 * opt (1-based), the fixed head "u (head)" of a run with u fixed, and for the DM data of a
 * joint run the direction u_star the labels were drawn from (kept with the data, optional,
 * not used by the run).  The start is "W(0)" and, for a joint run, "u(0)".  The implicit-bias
 * claims report no data of their own (no lm_data_mat there), so the names follow the
 * mirror-descent runs and claims (X_i, y, "v (head)" -> "u (head)", "W(0)") with the paper's
 * letters.
 *
 * Everything read is checked before anything runs or is written: the sizes against the
 * settings' ranges (and against a --set of them), every matrix's shape, every entry finite,
 * the labels exactly +-1, opt an integer in [1, T] and, where u is fixed, the token of the
 * largest score y_i u^T x_it (the data's own designation, which the run's L*, s_opt and W-SVM
 * read); for a joint run u(0) = 0 (the exact engine keeps u_t in the span of the tokens, from
 * u_0 = 0).  A failure is one line naming the file and the field, and the command exits 2
 * with its outputs removed. */
#include "lm_ibgen.h"
#include "lm_ibruns.h"
#include "lm_jsonio.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NAME_U "u (head)"
#define NAME_USTAR "u_star"
#define NAME_W0 "W(0)"
#define NAME_U0 "u(0)"

/* the largest matrix side a file may state: the largest d of --set d */
#define MAXDIM 4096
/* --iterates refuses a file of more matrix entries than this (about 3 GB of JSON) */
#define ITER_MAX_ENTRIES ((double)(1L << 27))

static const char *const SZ_NAME[3] = {"n", "T", "d"};
static const unsigned SZ_BIT[3] = {LM_IBR_SET_N, LM_IBR_SET_T, LM_IBR_SET_D};

/* the first nonzero entry of M (row-major) into *i, *j: 1, or 0 when M = 0 */
static int nonzero_at(const lm_mat *M, int *i, int *j)
{
    lm_ctx c = lm_mat_ctx(M);
    lm_num x;
    lm_num_init(&x, &c);
    int found = 0;
    for (int a = 0; a < M->r && !found; a++)
        for (int b = 0; b < M->c && !found; b++) {
            lm_mat_get(&x, M, a, b);
            if (lm_num_sgn(&x) != 0) {
                *i = a;
                *j = b;
                found = 1;
            }
        }
    lm_num_clear(&x);
    return found;
}

/* ---- reading ---- */

/* the data file's sizes into nTd (each in its --set range; T = 2 for DM data): 0, or -1 */
static int read_sizes(long nTd[3], const lm_ibrun_def *r, const json_t *root, char *err, int errlen)
{
    if (lm_train_io_root(root, "the data of a run: run, n, T, d, data", err, errlen)) return -1;
    for (int k = 0; k < 3; k++) {
        long lo, hi;
        if (lm_ibrun_size_range(SZ_NAME[k], &lo, &hi)) {
            snprintf(err, (size_t)errlen, "internal error: no range for %s", SZ_NAME[k]);
            return -1;
        }
        if (lm_json_get_int(json_object_get(root, SZ_NAME[k]), lo, hi, &nTd[k], SZ_NAME[k], err,
                            errlen))
            return -1;
    }
    if (r->data == LM_IBR_DM && nTd[1] != 2) {
        snprintf(err, (size_t)errlen, "T: is %ld, but the DM data of %s have 2 tokens per sequence",
                 nTd[1], r->name);
        return -1;
    }
    return 0;
}

/* 1 when key names a matrix the data of run r hold */
static int data_key(const char *key, const lm_ibrun_def *r, int n)
{
    int i;
    char tail, canon[32];
    if (!strcmp(key, "y") || !strcmp(key, "opt")) return 1;
    if (!strcmp(key, NAME_U)) return !lm_ibrun_joint(r);
    if (!strcmp(key, NAME_USTAR)) return r->data == LM_IBR_DM;
    if (sscanf(key, "X_%d%c", &i, &tail) != 1 || i < 1 || i > n) return 0;
    snprintf(canon, sizeof canon, "X_%d", i);
    return !strcmp(canon, key);
}

/* opt (n x 1, 1-based) into D->opt; with u fixed, each must be the token of the strictly
 * largest score y_i u^T x_it: 0, or -1 with err */
static int read_opt(lm_attn_data *D, const json_t *dat, int fixed_u, char *err, int errlen)
{
    lm_ctx cd = lm_ctx_double();
    char what[96];
    snprintf(what, sizeof what, "n x 1: the index 1..%d of each sequence's optimal token", D->T);
    lm_mat *O = lm_train_io_mat(dat, "data", "opt", D->n, 1, what, &cd, MAXDIM, err, errlen);
    if (!O) return -1;
    int rc = 0;
    for (int i = 0; i < D->n && !rc; i++) {
        double o = lm_mat_get_d(O, i, 0);
        if (o != floor(o) || o < 1 || o > D->T) {
            snprintf(err, (size_t)errlen,
                     "data.opt: entry %d is %g, an optimal token is an integer in [1, %d]", i, o,
                     D->T);
            rc = -1;
        } else
            D->opt[i] = (int)o - 1;
    }
    lm_mat_free(O);
    if (rc || !fixed_u) return rc;
    lm_mat *G = lm_mat_new(D->n, D->T, &D->ctx);
    lm_ibgen_scores(G, D, 0);
    lm_num a, b;
    lm_num_inits(&D->ctx, &a, &b, (lm_num *)NULL);
    for (int i = 0; i < D->n && !rc; i++) {
        int o = D->opt[i];
        lm_mat_get(&a, G, i, o);
        for (int t = 0; t < D->T && !rc; t++) {
            if (t == o) continue;
            lm_mat_get(&b, G, i, t);
            if (lm_num_cmp(&b, &a) < 0) continue;
            snprintf(err, (size_t)errlen,
                     "data.opt: entry %d is %d, but token %d of X_%d scores %s (the optimal token "
                     "is the one of the strictly largest score y_i u^T x_it)",
                     i, o + 1, t + 1, i + 1, lm_num_cmp(&b, &a) > 0 ? "higher" : "as high");
            rc = -1;
        }
    }
    lm_num_clears(&a, &b, (lm_num *)NULL);
    lm_mat_free(G);
    return rc;
}

/* the data file's matrices at sizes nTd, in ctx, into *out: 0, or -1 with err */
static int read_data(lm_attn_data **out, const lm_ibrun_def *r, const json_t *root,
                     const long nTd[3], const lm_ctx *ctx, char *err, int errlen)
{
    *out = NULL;
    const json_t *dat = lm_train_io_matrices(root, "data", err, errlen);
    if (!dat) return -1;
    const int n = (int)nTd[0], T = (int)nTd[1], d = (int)nTd[2], joint = lm_ibrun_joint(r);
    /* a matrix the run would not read is a mistake of the writer, not something to skip */
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)dat, key, val)
    {
        if (data_key(key, r, n)) continue;
        snprintf(err, (size_t)errlen,
                 "data.%.60s: not a matrix of this run (it reads X_1..X_%d, y, opt%s)", key, n,
                 joint ? ", \"" NAME_USTAR "\" (optional)" : ", \"" NAME_U "\"");
        return -1;
    }
    lm_attn_data *D = lm_attn_data_new(n, T, d, ctx);
    lm_mat *M = NULL;
    char nm[32], what[64];
    for (int i = 0; i < n; i++) {
        snprintf(nm, sizeof nm, "X_%d", i + 1);
        snprintf(what, sizeof what, "T x d: the tokens of sequence %d", i + 1);
        if (!(M = lm_train_io_mat(dat, "data", nm, T, d, what, ctx, MAXDIM, err, errlen)))
            goto fail;
        lm_mat_copy(D->X[i], M);
        lm_mat_free(M);
    }
    if (!(M = lm_train_io_mat(dat, "data", "y", n, 1, "n x 1: the labels, +1 or -1", ctx, MAXDIM,
                              err, errlen)))
        goto fail;
    lm_num one, y;
    lm_num_inits(ctx, &one, &y, (lm_num *)NULL);
    lm_num_set_d(&one, 1.0);
    int bad = -1;
    for (int i = 0; i < n && bad < 0; i++) {
        lm_mat_get(&y, M, i, 0);
        lm_num_abs(&y, &y);
        if (lm_num_cmp(&y, &one))
            bad = i;
        else
            D->y[i] = lm_mat_get_d(M, i, 0) > 0 ? 1 : -1;
    }
    if (bad >= 0)
        snprintf(err, (size_t)errlen, "data.y: entry %d is %.17g, a label must be +1 or -1", bad,
                 lm_mat_get_d(M, bad, 0));
    lm_num_clears(&one, &y, (lm_num *)NULL);
    lm_mat_free(M);
    if (bad >= 0) goto fail;
    if (!joint) {
        if (!(M = lm_train_io_mat(dat, "data", NAME_U, d, 1, "d x 1: the fixed head", ctx, MAXDIM,
                                  err, errlen)))
            goto fail;
        lm_mat_copy(D->u, M);
        lm_mat_free(M);
    }
    if (r->data == LM_IBR_DM && json_object_get(dat, NAME_USTAR)) {
        if (!(D->ustar = lm_train_io_mat(dat, "data", NAME_USTAR, d, 1,
                                         "d x 1: the direction the labels were drawn from", ctx,
                                         MAXDIM, err, errlen)))
            goto fail;
    }
    if (read_opt(D, dat, !joint, err, errlen)) goto fail;
    *out = D;
    return 0;
fail:
    lm_attn_data_free(D);
    return -1;
}

/* the initial-point file: W(0) (d x d; *W0 = NULL when it is 0, as the run's own W_0 = 0 is)
 * and for a joint run u(0), which must be 0.  0, or -1 with err */
static int read_init(lm_mat **W0, const lm_ibrun_def *r, const json_t *root, const lm_ctx *ctx,
                     char *err, int errlen)
{
    *W0 = NULL;
    const int joint = lm_ibrun_joint(r), d = r->d;
    if (lm_train_io_root(root,
                         joint ? "the initial point of a run: run, d, init (W(0), u(0))"
                               : "the initial point of a run: run, d, init (W(0))",
                         err, errlen))
        return -1;
    const json_t *dv = json_object_get(root, "d");
    long dd, lo, hi;
    if (dv &&
        (lm_ibrun_size_range("d", &lo, &hi) || lm_json_get_int(dv, lo, hi, &dd, "d", err, errlen)))
        return -1;
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
        if (!strcmp(key, NAME_W0) || (joint && !strcmp(key, NAME_U0))) continue;
        snprintf(err, (size_t)errlen,
                 "init.%.60s: not a matrix of this run (it reads \"" NAME_W0 "\"%s)", key,
                 joint ? ", \"" NAME_U0 "\"" : "");
        return -1;
    }
    lm_mat *W = lm_train_io_mat(in, "init", NAME_W0, d, d, "d x d: the initial point", ctx, MAXDIM,
                                err, errlen);
    if (!W) return -1;
    int i, j;
    if (joint) {
        lm_mat *u = lm_train_io_mat(in, "init", NAME_U0, d, 1, "d x 1: the initial head", ctx,
                                    MAXDIM, err, errlen);
        if (!u) {
            lm_mat_free(W);
            return -1;
        }
        int nz = nonzero_at(u, &i, &j);
        if (nz)
            snprintf(err, (size_t)errlen,
                     "init.u(0): entry %d is %g, but %s trains u from u(0) = 0 (its exact engine "
                     "keeps u(k) in the span of the tokens)",
                     i, lm_mat_get_d(u, i, 0), r->name);
        lm_mat_free(u);
        if (nz) {
            lm_mat_free(W);
            return -1;
        }
    }
    if (nonzero_at(W, &i, &j))
        *W0 = W;
    else
        lm_mat_free(W);
    return 0;
}

/* ---- writing the start ---- */

static json_t *head(const lm_ibrun_def *r, const char *format)
{
    return json_pack("{s:s,s:s}", "format", format, "run", r->name);
}

static json_t *data_json(const lm_ibrun_def *r, const lm_attn_data *D)
{
    json_t *root = head(r, "lemmata train data");
    json_object_set_new(root, "n", json_integer(D->n));
    json_object_set_new(root, "T", json_integer(D->T));
    json_object_set_new(root, "d", json_integer(D->d));
    json_t *m = json_object(), *opt = json_array();
    char nm[32];
    for (int i = 0; i < D->n; i++) {
        snprintf(nm, sizeof nm, "X_%d", i + 1);
        json_object_set_new(m, nm, lm_json_mat(D->X[i]));
    }
    lm_mat *y = lm_mat_new(D->n, 1, &D->ctx);
    for (int i = 0; i < D->n; i++) {
        lm_mat_set_d(y, i, 0, (double)D->y[i]);
        json_array_append_new(opt, json_integer(D->opt[i] + 1));
    }
    json_object_set_new(m, "y", lm_json_mat(y));
    lm_mat_free(y);
    json_object_set_new(m, "opt", opt);
    if (!lm_ibrun_joint(r)) json_object_set_new(m, NAME_U, lm_json_mat(D->u));
    if (D->ustar) json_object_set_new(m, NAME_USTAR, lm_json_mat(D->ustar));
    json_object_set_new(root, "data", m);
    return root;
}

static json_t *init_json(const lm_ibrun_def *r, const lm_mat *W0, const lm_ctx *ctx)
{
    json_t *root = head(r, "lemmata train init");
    json_object_set_new(root, "d", json_integer(r->d));
    json_t *m = json_object();
    lm_mat *Z = W0 ? NULL : lm_mat_new(r->d, r->d, ctx);
    json_object_set_new(m, NAME_W0, lm_json_mat(W0 ? W0 : Z));
    lm_mat_free(Z);
    if (lm_ibrun_joint(r)) {
        Z = lm_mat_new(r->d, 1, ctx);
        json_object_set_new(m, NAME_U0, lm_json_mat(Z));
        lm_mat_free(Z);
    }
    json_object_set_new(root, "init", m);
    return root;
}

/* ---- the iterates ---- */

typedef struct {
    lm_train_iterates *w;
    int last, joint;
    lm_mat *W, *u; /* work: W(k) (d x d), u(k) (d x 1) */
} iter_cx;

static int put_iterate(void *cxp, int t, const lm_ibj *J, const lm_mat *W0, char *err, int errlen)
{
    iter_cx *cx = cxp;
    if (!lm_iterates_want(cx->w, t, cx->last)) return 0;
    lm_ibj_W(cx->W, J, W0);
    json_t *it = json_pack("{s:i,s:o}", "k", t, "W", lm_json_mat(cx->W));
    if (cx->joint) {
        lm_ibj_u(cx->u, J);
        json_object_set_new(it, "u", lm_json_mat(cx->u));
    }
    json_object_set_new(it, "C", lm_json_mat(J->C));
    if (cx->joint) json_object_set_new(it, "U", lm_json_mat(J->U));
    lm_num L;
    lm_num_init(&L, &J->ctx);
    lm_num_exp(&L, &J->F->logL);
    json_object_set_new(it, "loss", lm_json_num(&L));
    json_object_set_new(it, "log_loss", lm_json_num(&J->F->logL));
    lm_num_clear(&L);
    if (lm_iterates_put(cx->w, it)) {
        snprintf(err, (size_t)errlen, "the iterates could not be written (at iterate %d)", t);
        return -1;
    }
    return 0;
}

/* the update of each optimizer, as the head of the iterates states it */
static const char *update_rule(const char *opt)
{
    if (!strcmp(opt, "gd")) return "W(k+1) = W(k) - eta grad_W L(W(k))";
    if (!strcmp(opt, "ngd")) return "W(k+1) = W(k) - eta grad_W L(W(k)) / ||grad_W L(W(k))||_F";
    if (!strcmp(opt, "polyak"))
        return "W(k+1) = W(k) - eta_k grad_W L(W(k)), eta_k = (L(W(k)) - L*) / "
               "||grad_W L(W(k))||_F^2, L* = (1/n) sum_i exp(-gamma_i,opt)";
    if (!strcmp(opt, "polyak-cap"))
        return "W(k+1) = W(k) - eta_k grad_W L(W(k)), eta_k = min(eta_max, (L(W(k)) - L*) / "
               "||grad_W L(W(k))||_F^2), L* = (1/n) sum_i exp(-gamma_i,opt)";
    if (!strcmp(opt, "joint13"))
        return "(W, u)(k+1) = (W, u)(k) - eta / ((k+1)^alpha L(k)) grad_(W,u) L(k)";
    return opt;
}

static json_t *iter_head(const lm_ibrun_def *r, const lm_ctx *ctx, const lm_train_io *io,
                         uint64_t seed)
{
    const int joint = lm_ibrun_joint(r);
    json_t *h = json_pack("{s:s,s:s,s:s,s:s,s:o}", "format", "lemmata train iterates", "run",
                          r->name, "optimizer", r->opt, "update", update_rule(r->opt), "eta",
                          lm_json_double(r->eta));
    if (!h) return NULL;
    if (!strcmp(r->opt, "polyak-cap"))
        json_object_set_new(h, "eta_max", lm_json_double(r->eta_max));
    if (joint) json_object_set_new(h, "alpha", lm_json_double(r->alpha));
    json_object_set_new(h, "loss", json_string("exp"));
    json_object_set_new(
        h, "model",
        json_string("L(W, u) = (1/n) sum_i exp(-y_i u^T X_i^T softmax(X_i W x_i1)), "
                    "x_i1 the first row of X_i"));
    json_object_set_new(h, "trained", json_string(joint ? "W u" : "W"));
    json_object_set_new(h, "n", json_integer(r->n));
    json_object_set_new(h, "T", json_integer(r->T));
    json_object_set_new(h, "d", json_integer(r->d));
    json_object_set_new(h, "steps", json_integer(r->steps));
    json_object_set_new(h, "prec",
                        json_integer(ctx->backend == LM_DOUBLE ? 53 : (json_int_t)ctx->prec));
    char s[32];
    snprintf(s, sizeof s, "%llu", (unsigned long long)seed);
    json_object_set_new(h, "data",
                        json_string(io->data ? "given" : "the run's own, from the seed"));
    json_object_set_new(h, "init", json_string(io->init ? "given" : "the run's own"));
    json_object_set_new(h, "seed", json_string(s));
    return h;
}

/* the number of iterates --iterates writes */
static double iterates_written(const lm_train_iterates *w, int steps)
{
    long e = w->every > 0 ? w->every : 1;
    return (double)(steps / e + 1 + (steps % e != 0));
}

int lm_ibrun_train_io(void *run, FILE *f, const lm_train_args *a, const lm_train_io *io, char *err,
                      int errlen)
{
    lm_ibrun_def *r = run;
    const int joint = lm_ibrun_joint(r);
    char e[400];
    if (a->drift) {
        snprintf(err, (size_t)errlen,
                 "--drift is not taken with --data, --init, --iterates or --export-*");
        return LM_TRAIN_IO_REFUSED;
    }
    /* the sizes first: the data give n, T, d (a --set of one must agree) */
    long nTd[3];
    if (io->data) {
        if (read_sizes(nTd, r, io->data, e, sizeof e))
            return lm_train_io_refuse(err, errlen, io->data_path, e);
        int *cur[3] = {&r->n, &r->T, &r->d};
        for (int k = 0; k < 3; k++) {
            if ((r->sizes_set & SZ_BIT[k]) && *cur[k] != nTd[k]) {
                snprintf(e, sizeof e, "%s: is %ld, but --set %s=%d was given", SZ_NAME[k], nTd[k],
                         SZ_NAME[k], *cur[k]);
                return lm_train_io_refuse(err, errlen, io->data_path, e);
            }
            *cur[k] = (int)nTd[k];
        }
    }
    lm_attn_data *D = NULL;
    lm_mat *W0 = NULL;
    if (io->data && read_data(&D, r, io->data, nTd, &a->ctx, e, sizeof e))
        return lm_train_io_refuse(err, errlen, io->data_path, e);
    if (io->init && read_init(&W0, r, io->init, &a->ctx, e, sizeof e)) {
        lm_attn_data_free(D);
        return lm_train_io_refuse(err, errlen, io->init_path, e);
    }
    iter_cx cx = {io->iterates, r->steps, joint, NULL, NULL};
    if (io->iterates) {
        double nw = iterates_written(io->iterates, r->steps),
               per = (double)r->d * r->d + (joint ? r->d : 0);
        if (nw * per > ITER_MAX_ENTRIES) {
            snprintf(err, (size_t)errlen,
                     "--iterates: %.0f iterates of a %dx%d W would be about %.1f GB of JSON; write "
                     "fewer (--every, --steps) or take a smaller d (--set d)",
                     nw, r->d, r->d, nw * per * 24e-9);
            lm_attn_data_free(D);
            lm_mat_free(W0);
            return LM_TRAIN_IO_REFUSED;
        }
    }
    /* what is not given is the run's own: its data from the seed, its rule for W_0 (0, or with
     * --set init=s drawn from the seed's stream after the data, as the run draws it) */
    if (!D || (!io->init && r->init > 0)) {
        lm_attn_data *Down;
        lm_mat *W0own;
        lm_ibrun_start(&Down, &W0own, r, a->seed, &a->ctx);
        if (!D)
            D = Down;
        else
            lm_attn_data_free(Down);
        if (!io->init)
            W0 = W0own;
        else
            lm_mat_free(W0own);
    }
    int rc = 0;
    if (io->export_data || io->export_init) {
        rc = lm_train_io_export(io, io->export_data ? data_json(r, D) : NULL,
                                io->export_init ? init_json(r, W0, &a->ctx) : NULL, err, errlen);
        lm_attn_data_free(D);
        lm_mat_free(W0);
        return rc;
    }
    if (io->iterates) {
        cx.W = lm_mat_new(r->d, r->d, &a->ctx);
        cx.u = lm_mat_new(r->d, 1, &a->ctx);
        if (lm_iterates_begin(io->iterates, iter_head(r, &a->ctx, io, a->seed))) {
            snprintf(err, (size_t)errlen, "the iterates could not be written");
            rc = -1;
        }
    }
    lm_ibrun_rec *x = NULL;
    if (!rc)
        rc = lm_ibrun_exec_from(&x, r, D, W0, io->iterates ? put_iterate : NULL, &cx, err, errlen);
    else {
        lm_attn_data_free(D);
        lm_mat_free(W0);
    }
    if (!rc && io->iterates && lm_iterates_end(io->iterates)) {
        snprintf(err, (size_t)errlen, "the iterates could not be written");
        rc = -1;
    }
    if (!rc) {
        lm_ibrun_csv_header(f, r);
        for (int t = 0; t <= r->steps; t++) lm_ibrun_csv_row(f, r, &x[t]);
    }
    free(x);
    lm_mat_free(cx.W);
    lm_mat_free(cx.u);
    return rc;
}
