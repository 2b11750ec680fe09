/* train.c -- lemmata train: the live training runs.  A run prints a short summary on stderr
 * (what ran, its steps and step size, the loss first -> last and whether it ever rose); its CSV
 * -- thousands of lines -- goes to stdout only with --csv, or to a file with --out. */
#include "cli.h"
#include "lm_jsonio.h"

/* the largest --data / --init file read (a resource bound: the largest run, n = 16 samples of
 * T = 32 tokens in d = 32, is about 20 MB of hexadecimal floats with the widest layout) */
#define TRAIN_JSON_MAX ((size_t)64 << 20)

/* the options every run of `lemmata train` takes (--steps --prec --seed --set --drift --out
 * --csv), and where its CSV goes: with --csv to stdout, with --out to the temporary file that
 * becomes FILE, else nowhere (the summary on stderr is then all the run prints) */
typedef struct {
    uint64_t seed;
    mpfr_prec_t prec;
    const char *out;
    int csv;   /* --csv: the CSV on standard output */
    long drift;
    int steps_given;
    char sets[512]; /* the --set options given, for the summary */
    char err[256];
    FILE *f;   /* where the CSV goes: stdout, the temporary file of --out, or NULL (nowhere) */
    lm_outfile file;
    /* runs exchangeable with other tools (lm_train_io, docs/train-io.md) */
    const char *data_path, *init_path, *iter_path, *export_data, *export_init;
    long every; /* --every K (0: not given) */
    json_t *data, *init;
    lm_outfile ifile; /* the temporary file of --iterates */
    lm_train_iterates itw;
} train_opts;

/* ---- the summary of a run, read off its CSV as it is written ----
 * A run writes CSV and nothing else (lm_train_type.train), in a layout of its own: a header
 * line, one row per iterate or per point of a figure, and perhaps "# ..." lines of its own
 * summary.  The stream the run writes to passes everything on to the CSV's destination (or
 * nowhere) and reads it on the way: the header, the row count, the iterate range, and the
 * loss column's first, last and smallest values and how often it rose.  Nothing is kept but
 * one line, so a run of 10^7 steps costs no memory. */
typedef struct {
    FILE *dest;      /* NULL: the CSV goes nowhere */
    char line[4096]; /* the line being read (longer ones are cut: their tail is not parsed) */
    size_t n;
    char header[4096];
    int ncols, col_iter, col_loss, col_step;
    char loss_name[64], step_name[64];
    long rows;
    double iter0, iter1;
    double loss0, loss1, loss_min, loss_prev, rise_max;
    long loss_n, loss_ups, loss_nonfinite;
    double step_min, step_max;
    char comment[4][600];
    int ncomment;
} csv_summary;

/* field k of a CSV line (double quotes may hold commas) into buf: 0, or -1 when it has none */
static int csv_field(const char *l, int k, char *buf, size_t n)
{
    int col = 0, q = 0;
    size_t w = 0;
    for (const char *p = l;; p++) {
        if (!*p || (*p == ',' && !q)) {
            if (col == k) {
                buf[w < n ? w : n - 1] = 0;
                return 0;
            }
            if (!*p) return -1;
            col++;
            continue;
        }
        if (*p == '"') q = !q;
        else if (col == k && w + 1 < n) buf[w++] = *p;
    }
}

static double csv_num(const char *l, int k)
{
    char f[64], *e;
    if (k < 0 || csv_field(l, k, f, sizeof f)) return NAN;
    double v = strtod(f, &e);
    return e == f ? (double)NAN : v;
}

static void csv_header(csv_summary *S, const char *l)
{
    snprintf(S->header, sizeof S->header, "%s", l);
    S->col_iter = S->col_loss = S->col_step = -1;
    char f[64];
    for (int k = 0; !csv_field(l, k, f, sizeof f); k++) {
        S->ncols = k + 1;
        if (S->col_iter < 0 && (!strcmp(f, "iterate") || !strcmp(f, "t"))) S->col_iter = k;
        /* "loss" itself, else the first column that names one (log_loss_double, ...) */
        if (!strcmp(f, "loss") || (S->col_loss < 0 && strstr(f, "loss"))) {
            if (S->col_loss < 0 || strcmp(S->loss_name, "loss")) snprintf(S->loss_name, sizeof S->loss_name, "%s", f);
            S->col_loss = k;
        }
        if (S->col_step < 0 && (!strcmp(f, "eta") || !strcmp(f, "step"))) {
            S->col_step = k;
            snprintf(S->step_name, sizeof S->step_name, "%s", f);
        }
    }
}

static void csv_line(csv_summary *S, const char *l)
{
    if (l[0] == '#') {
        if (S->ncomment < 4) snprintf(S->comment[S->ncomment++], sizeof S->comment[0], "%s", l);
        return;
    }
    if (!l[0]) return;
    if (!S->header[0]) {
        csv_header(S, l);
        return;
    }
    double it = csv_num(l, S->col_iter), lo = csv_num(l, S->col_loss), st = csv_num(l, S->col_step);
    if (S->rows++ == 0) S->iter0 = it;
    S->iter1 = it;
    if (S->col_loss >= 0) {
        if (!isfinite(lo)) S->loss_nonfinite++;
        else {
            if (S->loss_n == 0) S->loss0 = S->loss_min = lo;
            else {
                if (lo > S->loss_prev) {
                    S->loss_ups++;
                    double rise = lo - S->loss_prev;
                    if (rise > S->rise_max) S->rise_max = rise;
                }
                if (lo < S->loss_min) S->loss_min = lo;
            }
            S->loss_prev = S->loss1 = lo;
            S->loss_n++;
        }
    }
    if (isfinite(st)) {
        if (!(st >= S->step_min)) S->step_min = st;
        if (!(st <= S->step_max)) S->step_max = st;
    }
}

static ssize_t tee_write(void *cookie, const char *buf, size_t size)
{
    csv_summary *S = cookie;
    /* a write error of the destination is its stream's (stdout, lm_outfile): reported there */
    if (S->dest) fwrite(buf, 1, size, S->dest);
    for (size_t k = 0; k < size; k++) {
        if (buf[k] == '\n') {
            S->line[S->n < sizeof S->line ? S->n : sizeof S->line - 1] = 0;
            csv_line(S, S->line);
            S->n = 0;
        } else if (S->n + 1 < sizeof S->line)
            S->line[S->n++] = buf[k] == '\r' ? '\0' : buf[k];
    }
    return (ssize_t)size;
}

static int tee_close(void *cookie)
{
    csv_summary *S = cookie;
    if (S->n) { /* a last line without its newline */
        S->line[S->n] = 0;
        csv_line(S, S->line);
        S->n = 0;
    }
    return 0;
}

/* the summary on stderr: what ran, the CSV's shape, the loss and whether it fell at every step */
static void print_summary(const csv_summary *S, const lm_train_type *ty, int k, const char *paper,
                          const train_opts *o)
{
    fprintf(stderr, "lemmata: train %s (%s): %s\n", ty->name(k), paper, ty->doc(k));
    fprintf(stderr, "  seed %llu, %s", (unsigned long long)o->seed, o->drift ? "double against MPFR" : o->prec ? "MPFR" : "double");
    if (o->drift) fprintf(stderr, "-%ld", o->drift);
    else if (o->prec) fprintf(stderr, "-%ld", (long)o->prec);
    if (S->col_iter >= 0 && S->rows)
        fprintf(stderr, ", %.0f step%s (iterates %.0f..%.0f)", S->iter1 - S->iter0,
                S->iter1 - S->iter0 == 1 ? "" : "s", S->iter0, S->iter1);
    if (S->col_step >= 0 && S->step_max >= S->step_min) {
        if (S->step_min == S->step_max) fprintf(stderr, ", %s %.6g", S->step_name, S->step_min);
        else fprintf(stderr, ", %s %.6g..%.6g", S->step_name, S->step_min, S->step_max);
    }
    fprintf(stderr, "%s%s\n", o->sets[0] ? ", " : "", o->sets);
    fprintf(stderr, "  CSV: %ld row%s of %d column%s: %.100s%s\n", S->rows, S->rows == 1 ? "" : "s", S->ncols,
            S->ncols == 1 ? "" : "s", S->header, strlen(S->header) > 100 ? "..." : "");
    if (S->col_loss >= 0 && S->loss_n) {
        fprintf(stderr, "  %s %.6g -> %.6g (smallest %.6g)", S->loss_name, S->loss0, S->loss1, S->loss_min);
        if (S->loss_n < 2) fprintf(stderr, "\n");
        else if (!S->loss_ups) fprintf(stderr, "; it never rose from one row to the next\n");
        else
            fprintf(stderr, "; it rose from one row to the next %ld time%s in %ld (largest rise %.3g)\n",
                    S->loss_ups, S->loss_ups == 1 ? "" : "s", S->loss_n - 1, S->rise_max);
        if (S->loss_nonfinite)
            fprintf(stderr, "  %ld row%s with a %s that is not finite\n", S->loss_nonfinite,
                    S->loss_nonfinite == 1 ? "" : "s", S->loss_name);
    }
    for (int j = 0; j < S->ncomment; j++) fprintf(stderr, "  the run: %s\n", S->comment[j] + 1 + (S->comment[j][1] == ' '));
    if (o->out) fprintf(stderr, "  CSV written to %s\n", o->out);
    else if (!o->csv) fprintf(stderr, "  CSV not written: --csv prints it, --out FILE saves it\n");
}

#define train_usage lm_cli_needs

static int io_given(const train_opts *o)
{
    return o->data_path || o->init_path || o->iter_path || o->export_data || o->export_init;
}

/* "train RUN: --data ... are taken only by the runs a, b, ..." (one line): 2 */
static int io_refused(const char *run)
{
    char names[1024];
    size_t n = 0;
    names[0] = 0;
    for (int p = 0; p < lm_paper_count; p++) {
        const lm_train_type *t = lm_papers[p]->train;
        if (!t || !t->train_io) continue;
        for (int k = 0; t->name(k) && n + 1 < sizeof names; k++) {
            n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", n ? ", " : "", t->name(k));
            if (n >= sizeof names) n = sizeof names - 1;
        }
    }
    fprintf(stderr,
            "lemmata: train %s: --data, --init, --iterates, --every, --export-data and --export-init "
            "are taken only by the runs %s\n",
            run, names[0] ? names : "(none)");
    return LM_EXIT_USAGE;
}

/* --data / --init: the file's JSON root, or 2 with the reader's one-line error */
static int load_root(json_t **root, const char *path)
{
    char err[600];
    *root = lm_json_load_file(path, TRAIN_JSON_MAX, err, sizeof err);
    if (*root) return 0;
    fprintf(stderr, "lemmata: %s\n", err);
    return LM_EXIT_USAGE;
}

/* parses argv[1..] into o (--steps into *steps, --set through set on run), refuses what the
 * run cannot take (refuse: TR_* flags) and opens the output: -1 when the run may go ahead,
 * else the exit status */
static int train_begin(train_opts *o, const lm_train_type *ty, void *run, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    o->seed = 20241122;
    size_t nset = 0;
    for (int k = 1; k < argc; k++) {
        const char *a = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;
        if (lm_cli_is_help(a)) return lm_cli_help("train");
        if (!strcmp(a, "--steps")) {
            long s;
            if (parse_long(v, 0, 10000000, &s)) return train_usage(a, "an integer in [0, 1e7]", v);
            ty->set_steps(run, (int)s);
            o->steps_given = 1;
            k++;
        } else if (!strcmp(a, "--prec")) {
            if (parse_prec(v, &o->prec)) return train_usage(a, "an integer number of bits in [53, 8192]", v);
            k++;
        } else if (!strcmp(a, "--seed")) {
            if (parse_u64(v, &o->seed)) return train_usage(a, "a non-negative integer (digits only, below 2^64)", v);
            k++;
        } else if (!strcmp(a, "--set")) {
            if (!v) return train_usage(a, "name=value", v);
            if (ty->set(run, v, o->err, sizeof o->err)) return die_usage("%s", o->err);
            if (nset + 1 < sizeof o->sets) {
                char shown[80];
                nset += (size_t)snprintf(o->sets + nset, sizeof o->sets - nset, "%s--set %s", nset ? " " : "",
                                         lm_cli_shown(shown, sizeof shown, v));
                if (nset >= sizeof o->sets) nset = sizeof o->sets - 1;
            }
            k++;
        } else if (!strcmp(a, "--drift")) {
            if (parse_long(v, 64, LM_PREC_MAX, &o->drift)) return train_usage(a, "MPFR bits in [64, 8192]", v);
            k++;
        } else if (!strcmp(a, "--out")) {
            if (!lm_cli_name_value(v)) return train_usage(a, "a file name", v);
            o->out = v;
            k++;
        } else if (!strcmp(a, "--data") || !strcmp(a, "--init") || !strcmp(a, "--iterates") ||
                   !strcmp(a, "--export-data") || !strcmp(a, "--export-init")) {
            if (!lm_cli_name_value(v)) return train_usage(a, "a file name", v);
            const char **slot = !strcmp(a, "--data")          ? &o->data_path
                                : !strcmp(a, "--init")        ? &o->init_path
                                : !strcmp(a, "--iterates")    ? &o->iter_path
                                : !strcmp(a, "--export-data") ? &o->export_data
                                                              : &o->export_init;
            *slot = v;
            k++;
        } else if (!strcmp(a, "--every")) {
            if (parse_long(v, 1, 10000000, &o->every)) return train_usage(a, "an integer in [1, 1e7]", v);
            k++;
        } else if (!strcmp(a, "--csv")) o->csv = 1;
        else return die_usage("train: unknown option '%s' (see: lemmata train --help)", a);
    }
    if (o->csv && o->out)
        return die_usage("%s", "train: --csv (the CSV on standard output) and --out FILE both given: choose one");
    const unsigned refuse = ty->flags;
    if ((refuse & LM_TRAIN_DOUBLE_ONLY) && (o->prec || o->drift))
        return die_usage("%s: this run is computed in double only (no --prec, --drift)", argv[0]);
    if ((refuse & LM_TRAIN_FIXED_LENGTH) && o->steps_given)
        return die_usage("%s: this run has a fixed length (no --steps)", argv[0]);
    if (io_given(o) && !ty->train_io) return io_refused(argv[0]);
    if (o->every && !o->iter_path)
        return die_usage("%s", "train: --every K thins the iterates of --iterates FILE: give --iterates");
    if (o->iter_path && o->drift)
        return die_usage("%s", "train: --iterates writes one run's iterates, --drift runs two: choose one");
    if ((o->export_data || o->export_init) && (o->out || o->csv || o->iter_path || o->drift))
        return die_usage("%s", "train: --export-data/--export-init write the start and run nothing "
                               "(no --out, --csv, --iterates, --drift)");
    if ((o->out && o->iter_path && !strcmp(o->out, o->iter_path)) ||
        (o->export_data && o->export_init && !strcmp(o->export_data, o->export_init)))
        return die_usage("%s", "train: two outputs name the same file");
    /* the inputs before any output exists: a malformed file leaves nothing behind */
    int rc;
    if (o->data_path && (rc = load_root(&o->data, o->data_path))) return rc;
    if (o->init_path && (rc = load_root(&o->init, o->init_path))) return rc;
    o->f = o->csv ? stdout : NULL;
    if (o->out) {
        rc = lm_outfile_open(&o->file, o->out);
        if (rc) return rc;
        o->f = o->file.f;
    }
    if (o->iter_path) {
        rc = lm_outfile_open_opt(&o->ifile, o->iter_path, "--iterates");
        if (rc) {
            if (o->out) lm_outfile_abort(&o->file);
            return rc;
        }
        o->itw.f = o->ifile.f;
        o->itw.every = o->every ? o->every : 1;
    }
    return -1;
}

static void train_opts_free(train_opts *o)
{
    json_decref(o->data);
    json_decref(o->init);
    o->data = o->init = NULL;
}

static lm_ctx train_ctx(const train_opts *o)
{
    return o->prec ? lm_ctx_mpfr(o->prec) : lm_ctx_double();
}

static void train_drift_note(const train_opts *o, const char *name)
{
    fprintf(stderr, "lemmata: %s in double and wholly in MPFR-%ld ...\n", name, o->drift);
}

/* closes the output (renamed into place on success, removed on failure): the exit status,
 * 3 when the run failed (diverged, an inner solver failed, out of memory) or its CSV could not
 * be written */
static int train_end(train_opts *o, int rc, const char *name)
{
    if (rc) {
        if (o->out) lm_outfile_abort(&o->file);
        if (o->iter_path) lm_outfile_abort(&o->ifile);
        fprintf(stderr, "lemmata: train %s: %s\n", name, o->err[0] ? o->err : "the run failed");
        return rc == LM_TRAIN_IO_REFUSED ? LM_EXIT_USAGE : LM_EXIT_FAILED;
    }
    int st = LM_EXIT_OK;
    if (o->iter_path && o->itw.state != 2) { /* a run that never closed its list wrote no file */
        lm_outfile_abort(&o->ifile);
        if (o->out) lm_outfile_abort(&o->file);
        fprintf(stderr, "lemmata: train %s: the run wrote no iterates (internal error)\n", name);
        return LM_EXIT_FAILED;
    }
    /* both outputs or neither: the CSV first, the iterates only when it is in place */
    if (o->out) st = lm_outfile_commit(&o->file);
    if (o->iter_path) {
        if (st == LM_EXIT_OK) st = lm_outfile_commit(&o->ifile);
        else lm_outfile_abort(&o->ifile);
    }
    return st;
}

int lm_cmd_train(int argc, char **argv)
{
    if (argc > 0 && lm_cli_is_help(argv[0])) return lm_cli_help("train");
    if (argc == 0) {
        for (int p = 0; p < lm_paper_count; p++) {
            const lm_train_type *t = lm_papers[p]->train;
            if (!t) continue;
            printf("%s (%s; --set %s)%s%s\n", t->heading, lm_papers[p]->id, t->settings ? t->settings : "nothing",
                   t->flags & LM_TRAIN_DOUBLE_ONLY ? ", in double" : "",
                   t->train_io ? ", with --data --init --iterates --export-data --export-init" : "");
            for (int k = 0; t->name(k); k++) printf("  %-18s %s\n", t->name(k), t->doc(k));
        }
        return 0;
    }
    int k;
    const lm_paper *p = lm_paper_of_run(argv[0], &k);
    if (!p) return die_usage("unknown run '%s' (see: lemmata train)", argv[0]);
    const lm_train_type *ty = p->train;
    void *run = ty->alloc(k);
    if (!run) {
        fprintf(stderr, "lemmata: train %s: out of memory\n", argv[0]);
        return LM_EXIT_FAILED;
    }
    train_opts o;
    int st = train_begin(&o, ty, run, argc, argv);
    if (st >= 0) {
        train_opts_free(&o);
        ty->free(run);
        return st;
    }
    lm_train_args a = {.seed = o.seed, .ctx = train_ctx(&o), .drift = o.drift};
    if (o.drift) train_drift_note(&o, argv[0]);
    csv_summary *S = lm_xcalloc(1, sizeof *S);
    S->dest = o.f;
    S->col_iter = S->col_loss = S->col_step = -1;
    S->step_min = INFINITY;
    S->step_max = -INFINITY;
    cookie_io_functions_t io = {NULL, tee_write, NULL, tee_close};
    FILE *tee = fopencookie(S, "w", io);
    if (!tee) {
        free(S);
        ty->free(run);
        if (o.out) lm_outfile_abort(&o.file);
        if (o.iter_path) lm_outfile_abort(&o.ifile);
        train_opts_free(&o);
        fprintf(stderr, "lemmata: train %s: out of memory\n", argv[0]);
        return LM_EXIT_FAILED;
    }
    int rc;
    if (io_given(&o)) {
        lm_train_io tio = {.data = o.data, .init = o.init, .data_path = o.data_path, .init_path = o.init_path,
                          .iterates = o.iter_path ? &o.itw : NULL, .export_data = o.export_data,
                          .export_init = o.export_init};
        rc = ty->train_io(run, tee, &a, &tio, o.err, sizeof o.err);
    } else
        rc = ty->train(run, tee, &a, o.err, sizeof o.err);
    fclose(tee); /* passes the rest on to o.f */
    ty->free(run);
    if (o.f) fflush(o.f); /* the CSV before the summary when both go to one terminal */
    st = train_end(&o, rc, argv[0]);
    /* a CSV that could not reach stdout is the error main reports (exit 3), alone */
    if (st == LM_EXIT_OK && (o.export_data || o.export_init)) {
        if (o.export_data) fprintf(stderr, "lemmata: train %s: data written to %s\n", argv[0], o.export_data);
        if (o.export_init) fprintf(stderr, "lemmata: train %s: initial point written to %s\n", argv[0], o.export_init);
    } else if (st == LM_EXIT_OK && !(o.csv && ferror(stdout))) {
        print_summary(S, ty, k, p->id, &o);
        if (o.data_path || o.init_path)
            fprintf(stderr, "  started from %s%s%s%s%s\n", o.data_path ? "the data of " : "",
                    o.data_path ? o.data_path : "", o.data_path && o.init_path ? " and " : "",
                    o.init_path ? "the initial point of " : "", o.init_path ? o.init_path : "");
        if (o.iter_path)
            fprintf(stderr, "  %ld iterate%s written to %s (every %ld%s)\n", o.itw.written,
                    o.itw.written == 1 ? "" : "s", o.iter_path, o.itw.every, o.itw.every > 1 ? ", and the last" : "");
    }
    train_opts_free(&o);
    free(S);
    return st;
}
