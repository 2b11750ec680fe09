/* src/verify/instances.c -- instances exchanged with other tools (lm_instances.h,
 * docs/instances.md): `check --export DIR` and `check --instances FILE`.
 *
 * Why the runner is not told "here is a list of instances" and left alone: an instance is more
 * than its seed.  Its sizes, its rounding, its parameters and, for a claim that reports its
 * inputs (lm_data_mat), the inputs themselves decide it, and every evaluation of it -- the
 * first precision, the MPFR replay of a break, the escalation of a near miss, the ball
 * certification -- must see the same.  So the hooks sit in the one place every evaluation goes
 * through (eval_once) and in the claim's own calls (lm_data_mat), and an imported instance is
 * looked up by (configuration, index) there.  Exporting reads the same hooks the other way:
 * the first evaluation's inputs, the last evaluation's sides, the judgement of the runner. */
#include "instances_priv.h"
#include "lm_alloc.h"
#include <errno.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INST 100000
#define MAX_FILE (256u << 20)

struct lm_inst_rec {
    lm_inst_io *io;
    int cfg, index, pos; /* pos: place in the file (import) */
    int has_seed;
    uint64_t seed;
    int nx;
    double x[64];
    int has_sizes, nsize;
    const char *size_name[16]; /* import: into the file's JSON */
    int size_val[16];
    unsigned size_used;
    int has_round, round_bits;
    double *par;       /* np values */
    json_t *data;      /* import: the file's data object (borrowed); export: captured (owned) */
    /* the inputs as the evaluations in other precisions saw them (MPFR replay, escalation, ball
     * certification), by context name: a claim may report a derived input (y = MH_0 - r_0)
     * computed in the evaluation's precision, and a replay given the first precision's rounded
     * value would be another instance (import: borrowed; export: owned) */
    json_t *data_prec;
    json_t *prec_eval; /* export: context name -> the evaluation that filled its data_prec entry */
    json_t *sizes_out; /* export: the sizes asked for */
    json_t *sides;     /* export: the worst observation's sides in the latest evaluation */
    json_t *outcome;   /* export */
    int evals;
    char prec[32];
};
typedef struct lm_inst_rec rec_t;

struct lm_inst_io {
    const lm_claim *c;
    int np, nc, importing;
    json_t *root; /* import: the file */
    char path[256];
    int n, cap;
    rec_t **r;    /* every record, in file (import) or judging (export) order */
    int *ncfg;    /* import: records per configuration ... */
    rec_t ***bycfg; /* ... sorted by index */
    rec_t *cur;   /* export: the instance being judged */
    json_t *names_read; /* every data name the claim read in this run */
    char err[600];      /* the first error found while running (import) */
};

static int nparams(const lm_claim *c)
{
    int n = 0;
    while (c->params && c->params[n].name) n++;
    return n;
}

static lm_inst_io *io_new(const lm_claim *c)
{
    lm_inst_io *io = lm_xcalloc(1, sizeof *io);
    io->c = c;
    io->np = nparams(c);
    io->nc = lm_claim_nconfigs(c);
    io->names_read = json_object();
    return io;
}

static rec_t *rec_add(lm_inst_io *io)
{
    if (io->n == io->cap) {
        io->cap = io->cap ? 2 * io->cap : 64;
        io->r = lm_xrealloc(io->r, sizeof *io->r * (size_t)io->cap);
    }
    rec_t *r = lm_xcalloc(1, sizeof *r);
    r->io = io;
    r->par = lm_xcalloc((size_t)(io->np ? io->np : 1), sizeof *r->par);
    io->r[io->n++] = r;
    return r;
}

void lm_inst_io_free(lm_inst_io *io)
{
    if (!io) return;
    for (int k = 0; k < io->n; k++) {
        rec_t *r = io->r[k];
        free(r->par);
        if (!io->importing) json_decref(r->data);
        if (!io->importing) json_decref(r->data_prec);
        json_decref(r->prec_eval);
        json_decref(r->sizes_out);
        json_decref(r->sides);
        json_decref(r->outcome);
        free(r);
    }
    free(io->r);
    for (int k = 0; io->bycfg && k < io->nc; k++) free(io->bycfg[k]);
    free(io->bycfg);
    free(io->ncfg);
    json_decref(io->names_read);
    json_decref(io->root);
    free(io);
}

void lm_inst_file_name(char *buf, size_t n, const char *id)
{
    size_t w = 0;
    for (const char *s = id; *s && w + 3 < n; s++) {
        if (*s == '/') {
            buf[w++] = '_';
            buf[w++] = '_';
        } else buf[w++] = *s;
    }
    buf[w] = 0;
    if (w + 6 <= n) memcpy(buf + w, ".json", 6);
}

/* ---------------------------------------------------------------- runner hooks ---- */

static rec_t *find(const lm_inst_io *io, int cfg, int index)
{
    if (!io || !io->importing || cfg < 0 || cfg >= io->nc) return NULL;
    int lo = 0, hi = io->ncfg[cfg] - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        rec_t *r = io->bycfg[cfg][mid];
        if (r->index == index) return r;
        if (r->index < index) lo = mid + 1;
        else hi = mid - 1;
    }
    return NULL;
}

int lm_io_count(const lm_inst_io *io, int cfg)
{
    if (!io || !io->importing) return -1;
    return cfg >= 0 && cfg < io->nc ? io->ncfg[cfg] : 0;
}

int lm_io_index(const lm_inst_io *io, int cfg, int j) { return io->bycfg[cfg][j]->index; }

int lm_io_point(const lm_inst_io *io, int cfg, int j, double *x)
{
    const rec_t *r = io->bycfg[cfg][j];
    memcpy(x, r->x, sizeof(double) * (size_t)r->nx);
    return r->nx;
}

int lm_io_seed(const lm_inst_io *io, int cfg, int k, uint64_t *s)
{
    const rec_t *r = find(io, cfg, k);
    if (!r || !r->has_seed) return 0;
    *s = r->seed;
    return 1;
}

void lm_io_eval_setup(lm_inst_io *io, struct lm_eval_priv *p, int cfg, int index, int searching,
                      int shrinking, const double **par, int *round_bits)
{
    p->io = NULL;
    if (io->importing) {
        rec_t *r = find(io, cfg, index);
        if (!r) return;
        p->io = r;
        *par = r->par;
        if (!shrinking && r->has_sizes) {
            p->ov->n = r->nsize;
            for (int k = 0; k < r->nsize; k++) {
                p->ov->name[k] = r->size_name[k];
                p->ov->val[k] = r->size_val[k];
            }
        }
        if (!shrinking && r->has_round) *round_bits = r->round_bits;
        return;
    }
    rec_t *r = io->cur;
    if (searching || shrinking) return;
    if (!r || r->cfg != cfg || r->index != index) /* an instance judged already: its certification */
        for (int k = io->n - 1; k >= 0 && (!r || r->cfg != cfg || r->index != index); k--) r = io->r[k];
    if (!r || r->cfg != cfg || r->index != index) return;
    p->io = r;
    json_decref(r->sides);
    r->sides = NULL;
}

void lm_io_eval_done(lm_inst_io *io, struct lm_eval_priv *p, const lm_ctx *ctx)
{
    rec_t *r = p->io;
    if (!r) return;
    if (io->importing) {
        if (r->evals++ == 0) lm_ctx_name(ctx, r->prec, sizeof r->prec); /* the first precision */
        if (!(p->ov && r->has_sizes)) return;
        r->size_used |= p->ov->used;
        return;
    }
    if (r->evals++ == 0) {
        lm_ctx_name(ctx, r->prec, sizeof r->prec);
        r->sizes_out = json_object();
        for (const char *q = p->sizes.buf; q && *q;) {
            const char *nl = strchr(q, '\n');
            char name[48];
            int v, mn, mx;
            if (sscanf(q, "%47[^\t]\t%d\t%d\t%d", name, &v, &mn, &mx) == 4)
                json_object_set_new(r->sizes_out, name, json_integer(v));
            q = nl ? nl + 1 : NULL;
        }
    }
}

void lm_io_begin(lm_inst_io *io, int cfg, int k, uint64_t seed, const double *x, int nx, const double *par,
                 int round_bits, const lm_ctx *prim)
{
    (void)prim;
    if (!io || io->importing) return;
    rec_t *r = rec_add(io);
    r->cfg = cfg;
    r->index = k;
    r->seed = seed;
    r->has_seed = 1;
    r->nx = nx > 64 ? 64 : nx;
    if (x && r->nx) memcpy(r->x, x, sizeof(double) * (size_t)r->nx);
    else r->nx = 0;
    memcpy(r->par, par, sizeof(double) * (size_t)io->np);
    r->round_bits = round_bits;
    r->data = json_object();
    io->cur = r;
}

void lm_io_end(lm_inst_io *io, const char *status, double log10r, const char *where, int broke_first,
               int confirmed, const char *why)
{
    if (!io || io->importing || !io->cur) return;
    rec_t *r = io->cur;
    io->cur = NULL;
    int judged = !strcmp(status, "judged") || !strcmp(status, "vacuous");
    json_t *o = json_object();
    json_object_set_new(o, "status", json_string(status));
    if (judged) {
        json_object_set_new(o, "worst", json_string(where ? where : ""));
        json_object_set_new(o, "log10_ratio", lm_json_double(log10r));
        json_object_set_new(o, "ratio", lm_json_double(pow(10.0, log10r)));
        json_object_set_new(o, "sides", r->sides ? json_incref(r->sides) : json_null());
    } else json_object_set_new(o, "why", json_string(why ? why : ""));
    json_object_set_new(o, "broke_first_precision", json_boolean(broke_first));
    json_object_set_new(o, "broke", json_boolean(confirmed));
    r->outcome = o;
}

/* ---------------------------------------------------------------- the claim's calls ---- */

static void note_read(lm_inst_io *io, const char *name)
{
    if (!json_object_get(io->names_read, name)) json_object_set_new(io->names_read, name, json_true());
}

static void io_error(lm_eval *ev, rec_t *r, const char *msg)
{
    lm_inst_io *io = r->io;
    if (!io->err[0]) snprintf(io->err, sizeof io->err, "%.180s: %.400s", io->path, msg);
    lm_fail(ev, "%s", msg);
}

/* import: the value of input name for this evaluation -- its precision's own when the file
 * gives one, else the instance's data -- with its field's name; NULL when the file has none.
 * *other is set when the value is the instance's data and this evaluation is not in the
 * instance's first precision (an MPFR replay, an escalation, a ball certification of a file
 * that gives no data_by_precision entry for it -- verify's counterexamples, which are written
 * without certifying, or another tool's file): the data then are true inputs still (exact
 * numbers, taken as they are), but a reported value the claim computed in this precision has
 * nothing in the file to be held to -- the first precision's was, and it matched. */
static const json_t *data_in(const lm_eval *ev, const rec_t *r, const char *name, char *field, size_t n,
                             int *other)
{
    char cn[32];
    lm_ctx_name(ev->ctx, cn, sizeof cn);
    *other = 0;
    const json_t *v = json_object_get(json_object_get(r->data_prec, cn), name);
    if (v) {
        snprintf(field, n, "instances[%d].data_by_precision.%s.\"%.80s\"", r->pos, cn, name);
        return v;
    }
    snprintf(field, n, "instances[%d].data.\"%.80s\"", r->pos, name);
    *other = r->evals > 0 && strcmp(cn, r->prec) != 0;
    return json_object_get(r->data, name);
}

/* export: where this evaluation's inputs go -- the instance's data for its first evaluation,
 * its precision's entry for the first evaluation in another precision; NULL when taken */
static json_t *data_out(const lm_eval *ev, rec_t *r)
{
    if (r->evals == 0) return r->data;
    char cn[32];
    lm_ctx_name(ev->ctx, cn, sizeof cn);
    if (!strcmp(cn, r->prec)) return NULL;
    if (!r->data_prec) r->data_prec = json_object();
    if (!r->prec_eval) r->prec_eval = json_object();
    json_t *d = json_object_get(r->data_prec, cn);
    if (!d) {
        d = json_object();
        json_object_set_new(r->data_prec, cn, d);
        json_object_set_new(r->prec_eval, cn, json_integer(r->evals));
    }
    return json_integer_value(json_object_get(r->prec_eval, cn)) == r->evals ? d : NULL;
}

/* a reported value (lm_data_*) the file gives differently: the claim computed with its own
 * value before it reported it, so it cannot take the file's -- refused, never run on data it
 * did not use */
static void not_an_input(lm_eval *ev, rec_t *r, const char *field)
{
    char msg[400];
    snprintf(msg, sizeof msg,
             "%.200s: %s takes this value from its seed only (it computes with it before reporting "
             "it), and the file's differs from the instance's own; give the seed and index alone",
             field, ev->claim->id);
    io_error(ev, r, msg);
}

/* equal entries (NaN equals NaN: an exported NaN reads back as NaN) */
static int same_num(const lm_num *a, const lm_num *b)
{
    int na = !lm_num_isfinite(a) && lm_num_cmp(a, a) != 0, nb = !lm_num_isfinite(b) && lm_num_cmp(b, b) != 0;
    if (na || nb) return na && nb;
    return lm_num_cmp(a, b) == 0;
}

void lm_io_data_mat(lm_eval *ev, const char *name, lm_mat *M, int input)
{
    rec_t *r = ev->p->io;
    if (!r || !name) return;
    lm_inst_io *io = r->io;
    note_read(io, name);
    char field[200], err[400];
    if (io->importing) {
        int other;
        const json_t *v = data_in(ev, r, name, field, sizeof field, &other);
        if (!v || (other && !input)) return;
        if (input) {
            if (lm_json_get_mat(v, M, 0, field, err, sizeof err)) io_error(ev, r, err);
            return;
        }
        lm_ctx cx = lm_mat_ctx(M);
        lm_mat *F = lm_mat_new(M->r, M->c, &cx);
        if (lm_json_get_mat(v, F, 0, field, err, sizeof err)) io_error(ev, r, err);
        else {
            lm_num a, b;
            lm_num_inits(&cx, &a, &b, (lm_num *)NULL);
            int same = 1;
            for (int i = 0; i < M->r && same; i++)
                for (int j = 0; j < M->c && same; j++) {
                    lm_mat_get(&a, M, i, j);
                    lm_mat_get(&b, F, i, j);
                    same = same_num(&a, &b);
                }
            lm_num_clears(&a, &b, (lm_num *)NULL);
            if (!same) not_an_input(ev, r, field);
        }
        lm_mat_free(F);
        return;
    }
    json_t *d = data_out(ev, r);
    if (d && !json_object_get(d, name)) json_object_set_new(d, name, lm_json_mat(M));
}

double lm_io_data_d(lm_eval *ev, const char *name, double v, int input)
{
    rec_t *r = ev->p->io;
    if (!r || !name) return v;
    lm_inst_io *io = r->io;
    note_read(io, name);
    if (io->importing) {
        char field[200], err[400];
        int other;
        const json_t *j = data_in(ev, r, name, field, sizeof field, &other);
        double x;
        if (!j || (other && !input)) return v;
        if (lm_json_get_double(j, &x, field, err, sizeof err)) {
            io_error(ev, r, err);
            return v;
        }
        if (!input && !(x == v || (isnan(x) && isnan(v)))) not_an_input(ev, r, field);
        return input ? x : v;
    }
    json_t *d = data_out(ev, r);
    if (d && !json_object_get(d, name)) json_object_set_new(d, name, lm_json_double(v));
    return v;
}

void lm_io_sides(lm_eval *ev, const char *form, const lm_num *a, const lm_num *b, double reltol)
{
    rec_t *r = ev->p->io;
    if (!r || r->io->importing) return;
    json_decref(r->sides);
    r->sides = json_pack("{s:s,s:o,s:o,s:o}", "form", form, "a", lm_json_num(a), "b", lm_json_num(b), "reltol",
                         lm_json_double(reltol));
}

void lm_io_sides_d(lm_eval *ev, double a, double b, double reltol)
{
    rec_t *r = ev->p->io;
    if (!r || r->io->importing) return;
    json_decref(r->sides);
    r->sides = json_pack("{s:s,s:o,s:o,s:o}", "form", "le", "a", lm_json_double(a), "b", lm_json_double(b),
                         "reltol", lm_json_double(reltol));
}

/* ---------------------------------------------------------------- export ---- */

lm_inst_io *lm_inst_export_new(const lm_claim *c) { return io_new(c); }

static json_t *u64_json(uint64_t s)
{
    char b[32];
    snprintf(b, sizeof b, "%llu", (unsigned long long)s);
    return json_string(b);
}

static json_t *params_json(const lm_claim *c, const double *par, int np)
{
    json_t *o = json_object();
    for (int k = 0; k < np; k++) {
        const lm_param_def *p = &c->params[k];
        if (p->choices) { /* a switch by its choice's name */
            int want = (int)lrint(par[k]), i = 0;
            const char *s = p->choices;
            while (i < want && (s = strchr(s, '|'))) s++, i++;
            if (s) {
                size_t l = strcspn(s, "|");
                json_object_set_new(o, p->name, json_stringn(s, l));
                continue;
            }
        }
        json_object_set_new(o, p->name, lm_json_double(par[k]));
    }
    return o;
}

static json_t *rec_json(const lm_inst_io *io, const rec_t *r)
{
    const lm_claim *c = io->c;
    json_t *x = json_null();
    if (r->nx) {
        x = json_array();
        for (int i = 0; i < r->nx; i++) json_array_append_new(x, lm_json_double(r->x[i]));
    }
    json_t *o = json_object();
    json_object_set_new(o, "config", json_string(lm_claim_config(c, r->cfg)));
    json_object_set_new(o, "reading", json_string(lm_reading_name(lm_claim_reading(c, r->cfg).kind)));
    json_object_set_new(o, "index", json_integer(r->index));
    json_object_set_new(o, "seed", u64_json(r->seed));
    json_object_set_new(o, "x", x);
    json_object_set_new(o, "sizes", r->sizes_out ? json_incref(r->sizes_out) : json_object());
    json_object_set_new(o, "round_bits", json_integer(r->round_bits));
    json_object_set_new(o, "params", params_json(c, r->par, io->np));
    json_object_set_new(o, "precision", json_string(r->prec[0] ? r->prec : "double"));
    json_object_set_new(o, "data", json_incref(r->data));
    if (r->data_prec) { /* only the precisions whose inputs differ from the first precision's */
        json_t *dp = json_object();
        const char *cn;
        json_t *d;
        json_object_foreach(r->data_prec, cn, d) if (!json_equal(d, r->data)) json_object_set(dp, cn, d);
        if (json_object_size(dp)) json_object_set_new(o, "data_by_precision", dp);
        else json_decref(dp);
    }
    json_object_set_new(o, "outcome", r->outcome ? json_incref(r->outcome) : json_null());
    return o;
}

json_t *lm_inst_export_json(const lm_inst_io *io, const lm_run_opts *o, const lm_claim_result *res,
                            const char *commit)
{
    const lm_claim *c = io->c;
    char prec[32];
    lm_ctx prim = o->prec ? lm_ctx_mpfr(o->prec) : lm_ctx_double();
    lm_ctx_name(&prim, prec, sizeof prec);
    json_t *root = json_object();
    json_object_set_new(root, "format", json_string(LM_INST_FORMAT));
    json_object_set_new(root, "version", json_integer(LM_INST_VERSION));
    json_object_set_new(root, "claim", json_string(c->id));
    json_object_set_new(root, "title", json_string(c->title ? c->title : ""));
    json_object_set_new(root, "lemmata", json_pack("{s:s,s:s}", "commit", commit ? commit : "", "versions",
                                                   lm_versions()));
    json_object_set_new(root, "seed", u64_json(o->seed));
    json_object_set_new(root, "budget", json_integer(o->budget));
    json_object_set_new(root, "quick", json_boolean(o->quick));
    json_object_set_new(root, "precision", json_string(prec));
    /* what the run came to, for a reader who compares (never read back) */
    json_t *cfgs = json_array();
    for (int k = 0; res && k < res->nconfig; k++) {
        const lm_config_result *cr = &res->cfg[k];
        json_array_append_new(cfgs, json_pack("{s:s,s:s,s:s,s:o,s:I}", "config", cr->config, "reading",
                                              lm_reading_name(cr->reading), "verdict",
                                              lm_verdict_name(cr->verdict), "worst_ratio",
                                              lm_json_double(cr->worst_ratio), "instances",
                                              (json_int_t)cr->instances));
    }
    json_object_set_new(root, "results", cfgs);
    json_t *arr = json_array();
    for (int k = 0; k < io->n; k++) json_array_append_new(arr, rec_json(io, io->r[k]));
    json_object_set_new(root, "instances", arr);
    return root;
}

/* ---------------------------------------------------------------- import ---- */

#define FAIL(...)                                                                                          \
    do {                                                                                                   \
        char m_[600];                                                                                      \
        snprintf(m_, sizeof m_, __VA_ARGS__); /* cut to fit: one line */                                                              \
        snprintf(err, (size_t)errlen, "%.200s: %.600s", path, m_);                                                 \
        goto fail;                                                                                         \
    } while (0)

static int allowed(const char *key, const char *const *keys)
{
    for (int k = 0; keys[k]; k++)
        if (!strcmp(key, keys[k])) return 1;
    return 0;
}

/* a non-negative 64-bit integer: a JSON integer, or a string of decimal digits */
static int get_u64(const json_t *v, uint64_t *out)
{
    if (json_is_integer(v)) {
        if (json_integer_value(v) < 0) return -1;
        *out = (uint64_t)json_integer_value(v);
        return 0;
    }
    if (!json_is_string(v)) return -1;
    const char *s = json_string_value(v);
    if (!*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 20) return -1;
    errno = 0;
    unsigned long long u = strtoull(s, NULL, 10);
    if (errno == ERANGE) return -1;
    *out = (uint64_t)u;
    return 0;
}

/* "double" -> 0, "mpfrN" -> N (53 -> 0); -1 on anything else */
static long parse_prec_name(const char *s)
{
    if (!strcmp(s, "double")) return 0;
    if (strncmp(s, "mpfr", 4) || !s[4] || strspn(s + 4, "0123456789") != strlen(s + 4) || strlen(s + 4) > 5)
        return -1;
    long b = atol(s + 4);
    if (b < 53 || b > 8192) return -1;
    return b == 53 ? 0 : b;
}

static int by_index(const void *a, const void *b)
{
    const rec_t *x = *(rec_t *const *)a, *y = *(rec_t *const *)b;
    return (x->index > y->index) - (x->index < y->index);
}

lm_inst_io *lm_inst_import_load(const char *path, const lm_claim *c, lm_run_opts *o, int cli_budget,
                                int cli_quick, long cli_prec, char *err, int errlen)
{
    static const char *const head_keys[] = {"format", "version", "claim", "title", "lemmata", "seed", "budget",
                                            "quick", "precision", "results", "instances", "note", "counterexamples", NULL};
    static const char *const inst_keys[] = {"config", "reading", "index", "seed", "x", "sizes", "round_bits",
                                            "params", "precision", "data", "data_by_precision", "outcome", "note",
                                            NULL};
    lm_inst_io *io = NULL;
    json_t *root = lm_json_load_file(path, MAX_FILE, err, errlen);
    if (!root) return NULL;
    io = io_new(c);
    io->importing = 1;
    io->root = root;
    snprintf(io->path, sizeof io->path, "%s", path);
    char e2[400], f[200];
    long lv;
    if (!json_is_object(root)) FAIL("the file must hold one JSON object (with \"instances\")");
    const char *key;
    json_t *val;
    json_object_foreach(root, key, val) if (!allowed(key, head_keys))
        FAIL("unknown field \"%.60s\" (the fields are: format, version, claim, seed, budget, quick, precision, "
             "instances, ...)", key);
    val = json_object_get(root, "format");
    if (val && (!json_is_string(val) || strcmp(json_string_value(val), LM_INST_FORMAT)))
        FAIL("format: must be \"%s\"", LM_INST_FORMAT);
    val = json_object_get(root, "version");
    if (val && lm_json_get_int(val, LM_INST_VERSION, LM_INST_VERSION, &lv, "version", e2, sizeof e2))
        FAIL("%.300s (this lemmata reads version %d)", e2, LM_INST_VERSION);
    val = json_object_get(root, "claim");
    if (val && (!json_is_string(val) || strcmp(json_string_value(val), c->id)))
        FAIL("claim: the file's instances are of %.80s, not of %s", json_is_string(val) ? json_string_value(val) : "?",
             c->id);
    val = json_object_get(root, "seed");
    if (val && get_u64(val, &o->seed)) FAIL("seed: must be a non-negative integer below 2^64 (a decimal string)");
    val = json_object_get(root, "budget");
    if (val) {
        if (lm_json_get_int(val, 1, 100000, &lv, "budget", e2, sizeof e2)) FAIL("%s", e2);
        if (cli_budget >= 0 && cli_budget != lv)
            FAIL("budget: the instances were drawn at budget %ld, the command line says %d (a claim reads its budget)",
                 lv, cli_budget);
        o->budget = (int)lv;
    }
    val = json_object_get(root, "quick");
    if (val) {
        if (!json_is_boolean(val)) FAIL("quick: must be true or false");
        if (cli_quick >= 0 && cli_quick != json_is_true(val))
            FAIL("quick: the instances were drawn with quick %s, the command line says otherwise",
                 json_is_true(val) ? "on" : "off");
        o->quick = json_is_true(val);
    }
    long prec = -1; /* the precision every instance states (-1: none stated yet) */
    val = json_object_get(root, "precision");
    if (val) {
        if (!json_is_string(val) || (prec = parse_prec_name(json_string_value(val))) < 0)
            FAIL("precision: must be \"double\" or \"mpfrN\" with N in [53, 8192]");
    }
    const json_t *arr = json_object_get(root, "instances");
    if (!arr) FAIL("instances: missing (a list of instances)");
    if (!json_is_array(arr)) FAIL("instances: must be a list");
    if (json_array_size(arr) == 0) FAIL("instances: empty (nothing to check)");
    if (json_array_size(arr) > MAX_INST) FAIL("instances: %zu of them, more than the %d this reader takes",
                                               json_array_size(arr), MAX_INST);
    /* each configuration's values: defaults, its reading's set, the command line's --set */
    double *cpar = lm_xcalloc((size_t)io->nc * (size_t)(io->np ? io->np : 1), sizeof *cpar);
    for (int k = 0; k < io->nc; k++) {
        double *par = cpar + (size_t)k * (size_t)io->np;
        for (int j = 0; j < io->np; j++) par[j] = c->params[j].def;
        if (lm_claim_config_params(c, k, par, e2, sizeof e2)) {
            free(cpar);
            FAIL("%s", e2);
        }
        for (int s = 0; s < o->nset; s++) {
            int j = lm_claim_param_index(c, o->set_name[s]);
            if (j >= 0 && j < io->np) par[j] = o->set_val[s];
        }
    }
    io->ncfg = lm_xcalloc((size_t)io->nc, sizeof *io->ncfg);
    size_t i;
    json_t *in;
    json_array_foreach(arr, i, in) {
        rec_t *r = rec_add(io);
        r->pos = (int)i;
        char at[32];
        snprintf(at, sizeof at, "instances[%zu]", i);
#undef FAIL
#define FAIL(...)                                                                                          \
    do {                                                                                                   \
        char m_[600];                                                                                      \
        snprintf(m_, sizeof m_, __VA_ARGS__); /* cut to fit: one line */                                                              \
        snprintf(err, (size_t)errlen, "%.200s: %.600s", path, m_);                                                 \
        free(cpar);                                                                                        \
        goto fail;                                                                                         \
    } while (0)
        if (!json_is_object(in)) FAIL("%s: must be an object", at);
        json_object_foreach(in, key, val) if (!allowed(key, inst_keys))
            FAIL("%s: unknown field \"%.60s\" (the fields are: config, index, seed, x, sizes, round_bits, params, "
                 "precision, data)", at, key);
        val = json_object_get(in, "config");
        r->cfg = -1;
        if (!val && io->nc == 1) r->cfg = 0;
        else if (!json_is_string(val)) FAIL("%s.config: missing or not a string (see: lemmata params %s)", at, c->id);
        else
            for (int k = 0; k < io->nc; k++)
                if (!strcmp(json_string_value(val), lm_claim_config(c, k))) r->cfg = k;
        if (r->cfg < 0) FAIL("%s.config: %s has no configuration \"%.60s\" (see: lemmata params %s)", at, c->id,
                             json_string_value(val), c->id);
        val = json_object_get(in, "index");
        snprintf(f, sizeof f, "%s.index", at);
        if (!val) r->index = io->ncfg[r->cfg];
        else if (lm_json_get_int(val, 0, 10000000, &lv, f, e2, sizeof e2)) FAIL("%s", e2);
        else r->index = (int)lv;
        io->ncfg[r->cfg]++;
        val = json_object_get(in, "seed");
        if (val && !json_is_null(val)) {
            if (get_u64(val, &r->seed))
                FAIL("%s.seed: must be a non-negative integer below 2^64 (a decimal string)", at);
            r->has_seed = 1;
        }
        val = json_object_get(in, "x");
        if (val && !json_is_null(val)) {
            int want = c->search_dim > 64 ? 64 : c->search_dim;
            if (!json_is_array(val)) FAIL("%s.x: must be null or a list of numbers", at);
            if (want == 0) FAIL("%s.x: %s has no search point (its x is null)", at, c->id);
            if ((int)json_array_size(val) != want)
                FAIL("%s.x: %zu numbers, %s takes %d", at, json_array_size(val), c->id, want);
            for (int k = 0; k < want; k++) {
                snprintf(f, sizeof f, "%s.x[%d]", at, k);
                if (lm_json_get_double(json_array_get(val, (size_t)k), &r->x[k], f, e2, sizeof e2)) FAIL("%s", e2);
                if (!isfinite(r->x[k])) FAIL("%s: not finite", f);
            }
            r->nx = want;
        }
        val = json_object_get(in, "sizes");
        if (val && !json_is_null(val)) {
            if (!json_is_object(val)) FAIL("%s.sizes: must be an object {\"NAME\": value}", at);
            if (json_object_size(val) > 16) FAIL("%s.sizes: more than 16 sizes", at);
            const char *sk;
            json_t *sv;
            json_object_foreach(val, sk, sv) {
                snprintf(f, sizeof f, "%s.sizes.\"%.40s\"", at, sk);
                if (!*sk || strlen(sk) > 40) FAIL("%s: a size name of 1 to 40 characters", f);
                if (lm_json_get_int(sv, 1, 100000, &lv, f, e2, sizeof e2)) FAIL("%s", e2);
                r->size_name[r->nsize] = sk;
                r->size_val[r->nsize++] = (int)lv;
            }
            r->has_sizes = 1;
        }
        val = json_object_get(in, "round_bits");
        snprintf(f, sizeof f, "%s.round_bits", at);
        if (val && !json_is_null(val)) {
            if (lm_json_get_int(val, 0, 52, &lv, f, e2, sizeof e2)) FAIL("%s", e2);
            r->has_round = 1;
            r->round_bits = (int)lv;
        }
        memcpy(r->par, cpar + (size_t)r->cfg * (size_t)io->np, sizeof(double) * (size_t)io->np);
        val = json_object_get(in, "params");
        if (val && !json_is_null(val)) {
            if (!json_is_object(val)) FAIL("%s.params: must be an object {\"name\": value}", at);
            const char *pk;
            json_t *pv;
            json_object_foreach(val, pk, pv) {
                snprintf(f, sizeof f, "%s.params.%.60s", at, pk);
                int j = lm_claim_param_index(c, pk);
                if (j < 0) FAIL("%s: %s has no parameter '%.60s' (see: lemmata params %s)", f, c->id, pk, c->id);
                const lm_param_def *pd = &c->params[j];
                double v;
                if (pd->choices && json_is_string(pv) && strncmp(json_string_value(pv), "0x", 2)) {
                    char kv[200];
                    int idx;
                    snprintf(kv, sizeof kv, "%.60s=%.120s", pk, json_string_value(pv));
                    if (lm_claim_parse_set(c, kv, &idx, &v, e2, sizeof e2)) FAIL("%.200s: %.300s", f, e2);
                } else {
                    lm_range rg;
                    char rs[96];
                    if (lm_json_get_double(pv, &v, f, e2, sizeof e2)) FAIL("%s", e2);
                    if (pd->choices) {
                        int nch = 1;
                        for (const char *s = pd->choices; *s; s++) nch += *s == '|';
                        if (!(v >= 0 && v < nch && v == floor(v)))
                            FAIL("%s: parameter %s of %s takes one of %s", f, pk, c->id, pd->choices);
                    } else if (lm_param_range(&rg, pd) || !isfinite(v) || !lm_range_contains(&rg, v))
                        FAIL("%s: parameter %s of %s takes %s", f, pk, c->id, lm_range_str(rs, sizeof rs, &rg));
                }
                r->par[j] = v;
            }
        }
        val = json_object_get(in, "precision");
        if (val && !json_is_null(val)) {
            long p;
            if (!json_is_string(val) || (p = parse_prec_name(json_string_value(val))) < 0)
                FAIL("%s.precision: must be \"double\" or \"mpfrN\" with N in [53, 8192]", at);
            if (prec >= 0 && p != prec)
                FAIL("%s.precision: \"%s\", but other instances state another (one first precision per file)", at,
                     json_string_value(val));
            prec = p;
        }
        val = json_object_get(in, "data");
        if (val && !json_is_null(val) && !json_is_object(val))
            FAIL("%s.data: must be an object {\"name\": matrix or number}", at);
        r->data = val && json_is_object(val) ? val : NULL;
        val = json_object_get(in, "data_by_precision");
        if (val && !json_is_null(val)) {
            const char *cn;
            json_t *d;
            if (!json_is_object(val)) FAIL("%s.data_by_precision: must be an object {\"mpfr256\": {\"name\": ...}}", at);
            json_object_foreach(val, cn, d) {
                if (!json_is_object(d)) FAIL("%s.data_by_precision.%.40s: must be an object {\"name\": ...}", at, cn);
                if (strncmp(cn, "mpfr", 4) && strncmp(cn, "arb", 3) && strcmp(cn, "double"))
                    FAIL("%s.data_by_precision.%.40s: not a precision (double, mpfrN, arbN)", at, cn);
            }
            r->data_prec = val;
        }
    }
    if (prec >= 0) {
        if (cli_prec >= 0 && cli_prec != prec)
            FAIL("precision: the instances state %s%ld, the command line's --prec says otherwise",
                 prec ? "mpfr" : "double", prec ? prec : 0L);
        o->prec = (mpfr_prec_t)prec;
    }
    free(cpar);
#undef FAIL
    io->bycfg = lm_xcalloc((size_t)io->nc, sizeof *io->bycfg);
    for (int k = 0; k < io->nc; k++) {
        io->bycfg[k] = lm_xcalloc((size_t)(io->ncfg[k] ? io->ncfg[k] : 1), sizeof **io->bycfg);
        int w = 0;
        for (int j = 0; j < io->n; j++)
            if (io->r[j]->cfg == k) io->bycfg[k][w++] = io->r[j];
        /* judged in index order: an export is in that order already, and ties of the worst
         * ratio go to the same instance */
        qsort(io->bycfg[k], (size_t)w, sizeof **io->bycfg, by_index);
        for (int j = 1; j < w; j++)
            if (io->bycfg[k][j]->index == io->bycfg[k][j - 1]->index) {
                snprintf(err, (size_t)errlen, "%s: instances[%d].index: %d is given twice for configuration %s "
                         "(also instances[%d])", path, io->bycfg[k][j]->pos > io->bycfg[k][j - 1]->pos ?
                         io->bycfg[k][j]->pos : io->bycfg[k][j - 1]->pos, io->bycfg[k][j]->index,
                         lm_claim_config(c, k), io->bycfg[k][j]->pos > io->bycfg[k][j - 1]->pos ?
                         io->bycfg[k][j - 1]->pos : io->bycfg[k][j]->pos);
                goto fail;
            }
    }
    o->inst_io = io;
    return io;
fail:
    lm_inst_io_free(io);
    return NULL;
}

int lm_inst_import_check(const lm_inst_io *io, const lm_claim_result *res, char *err, int errlen)
{
    if (io->err[0]) {
        snprintf(err, (size_t)errlen, "%s", io->err);
        return -1;
    }
    for (int k = 0; k < io->n; k++) {
        const rec_t *r = io->r[k];
        const char *name;
        json_t *v;
        int ran = 0; /* its configuration ran (--config may have skipped it) */
        for (int j = 0; res && j < res->nconfig && !ran; j++)
            ran = !strcmp(res->cfg[j].config, lm_claim_config(io->c, r->cfg));
        if (!ran) continue;
        const json_t *sets[40];
        char where[40][64];
        int ns = 0;
        if (r->data) {
            sets[ns] = r->data;
            snprintf(where[ns++], sizeof where[0], "data");
        }
        const char *cn;
        json_t *dv;
        if (r->data_prec) json_object_foreach((json_t *)r->data_prec, cn, dv) if (ns < 40) {
            sets[ns] = dv;
            snprintf(where[ns++], sizeof where[0], "data_by_precision.%.40s", cn);
        }
        for (int si = 0; si < ns; si++) json_object_foreach((json_t *)sets[si], name, v) {
            (void)v;
            if (json_object_get(io->names_read, name)) continue;
            char list[300] = "";
            size_t w = 0;
            const char *nm;
            json_t *u;
            json_object_foreach(io->names_read, nm, u) {
                (void)u;
                if (w + strlen(nm) + 8 >= sizeof list) {
                    snprintf(list + w, sizeof list - w, ", ...");
                    break;
                }
                w += (size_t)snprintf(list + w, sizeof list - w, "%s%s", w ? ", " : "", nm);
            }
            if (w) snprintf(err, (size_t)errlen, "%s: instances[%d].%s.\"%.80s\": %s reads no input of that name (it reads: %s)",
                            io->path, r->pos, where[si], name, io->c->id, list);
            else snprintf(err, (size_t)errlen, "%s: instances[%d].%s.\"%.80s\": %s reads no input data (it reports none "
                          "through lm_data_mat or lm_data_d)", io->path, r->pos, where[si], name, io->c->id);
            return -1;
        }
        /* a size only some instances ask for (an early exit) is not flagged: the claim's union is */
        for (int s = 0; s < r->nsize; s++) {
            int used = 0;
            for (int j = 0; j < io->n && !used; j++) {
                const rec_t *q = io->r[j];
                for (int t = 0; t < q->nsize && !used; t++)
                    used = (q->size_used >> t & 1u) && !strcmp(q->size_name[t], r->size_name[s]);
            }
            if (!used) {
                snprintf(err, (size_t)errlen, "%s: instances[%d].sizes.\"%.40s\": no instance of %s asked for a size of "
                         "that name (%s%s)", io->path, r->pos, r->size_name[s], io->c->id,
                         res && res->sizes[0] ? "it asks for: " : "it asks for no size",
                         res && res->sizes[0] ? res->sizes : "");
                return -1;
            }
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- verify's counterexamples ---- */

/* "--size N=2 --size n=1 --round 3" tokens of a reproduce command into q (names kept in names) */
static void reproduce_sizes(const char *cmd, lm_run_opts *q, char names[16][48])
{
    for (const char *s = cmd; s && (s = strstr(s, " --")); s++) {
        char nm[48];
        int v;
        if (sscanf(s, " --size %47[^= ]=%d", nm, &v) == 2 && q->nsize < 16) {
            snprintf(names[q->nsize], 48, "%s", nm);
            q->size_name[q->nsize] = names[q->nsize];
            q->size_val[q->nsize++] = v;
        } else if (sscanf(s, " --round %d", &v) == 1) q->round_bits = v;
    }
}

int lm_inst_write_counterexamples(const char *db, long long run, const lm_run_opts *o, const char *dir,
                                  const char *commit, int *nwritten, char *err, int errlen)
{
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    *nwritten = 0;
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        snprintf(err, (size_t)errlen, "%s: %s", db, h ? sqlite3_errmsg(h) : "cannot open");
        sqlite3_close(h);
        return -1;
    }
    sqlite3_busy_timeout(h, 10000);
    /* every claim of the run, its configurations violated first in json.c's order: a shrunk
     * one, then the paper's reading, then the larger ratio */
    const char *sql =
        "SELECT k.claim_id, k.verdict, c.config, c.worst_index, COALESCE(c.shrunk_reproduce, ''),"
        " COALESCE(c.reproduce, '') FROM claims k LEFT JOIN configs c ON c.run_id = k.run_id AND"
        " c.claim_id = k.claim_id AND c.verdict = 'violated' WHERE k.run_id = ?"
        " ORDER BY k.claim_id, COALESCE(c.shrunk_reproduce, '') = '', COALESCE(c.reading, 'paper') <> 'paper',"
        " c.worst_ratio IS NULL, c.worst_ratio DESC";
    if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, (size_t)errlen, "%s: %s", db, sqlite3_errmsg(h));
        sqlite3_close(h);
        return -1;
    }
    sqlite3_bind_int64(st, 1, run);
    char last[200] = "", path[4400] = "";
    int rc = 0;
    json_t *root = NULL; /* the claim being gathered: one instance per violated configuration */
    for (int more = 1; !rc && more;) {
        more = sqlite3_step(st) == SQLITE_ROW;
        const char *id = more ? (const char *)sqlite3_column_text(st, 0) : NULL;
        if (more && !id) continue;
        if (!more || strcmp(id, last)) { /* the previous claim is complete: write it */
            if (root) {
                /* made only when there is something to put in it (its parent is the database's) */
                if (mkdir(dir, 0777) && errno != EEXIST) {
                    snprintf(err, (size_t)errlen, "%.200s: %s", dir, strerror(errno));
                    rc = -1;
                } else if (lm_json_save_file(root, path, err, errlen)) rc = -1;
                else ++*nwritten;
                json_decref(root);
                root = NULL;
            }
            if (!more) break;
            snprintf(last, sizeof last, "%s", id);
            char name[256];
            lm_inst_file_name(name, sizeof name, id);
            snprintf(path, sizeof path, "%s/%s", dir, name);
        }
        const char *verdict = (const char *)sqlite3_column_text(st, 1);
        const char *cfg = (const char *)sqlite3_column_text(st, 2);
        const lm_claim *c = lm_claim_find(id);
        if (!c || !verdict || strcmp(verdict, "violated") || !cfg) {
            unlink(path); /* no longer violated: no stale counterexample */
            continue;
        }
        lm_run_opts q = *o;
        char names[16][48];
        q.only_config = cfg;
        q.only_instance = sqlite3_column_int(st, 3);
        q.nsize = 0;
        q.round_bits = 0;
        const char *shr = (const char *)sqlite3_column_text(st, 4);
        reproduce_sizes(shr, &q, names);
        /* the instance once more, captured: its replay decides, its certification and a new
         * shrink would add nothing to the file */
        q.shrink = 0;
        q.certify = 0;
        q.progress = 0;
        q.profile = 0;
        lm_inst_io *io = lm_inst_export_new(c);
        q.inst_io = io;
        lm_claim_result res;
        if (lm_run_claim(&res, c, &q) == 0) {
            json_t *one = lm_inst_export_json(io, &q, &res, commit);
            char note[1400];
            snprintf(note, sizeof note, "configuration %s, instance %d%s; reproduce: %s", cfg, q.only_instance,
                     shr[0] ? ", shrunk" : "", shr[0] ? shr : (const char *)sqlite3_column_text(st, 5));
            json_t *notes = json_array();
            json_array_append_new(notes, json_string(note));
            if (!root) { /* the claim's worst violated configuration comes first (the ORDER BY) */
                root = one;
                char head[300];
                snprintf(head, sizeof head, "the counterexamples of %s in run %lld: one instance per violated "
                         "configuration, the claim's own (json.c) first", id, run);
                json_object_set_new(root, "note", json_string(head));
                json_object_set_new(root, "counterexamples", notes);
            } else { /* its instance and result join the claim's file */
                json_array_extend(json_object_get(root, "instances"), json_object_get(one, "instances"));
                json_array_extend(json_object_get(root, "results"), json_object_get(one, "results"));
                json_array_extend(json_object_get(root, "counterexamples"), notes);
                json_decref(notes);
                json_decref(one);
            }
        }
        lm_claim_result_clear(&res);
        lm_inst_io_free(io);
    }
    json_decref(root);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return rc;
}
