/* train.c -- lemmata train: the live training runs. */
#include "cli.h"

/* the options every run of `lemmata train` takes (--steps --prec --seed --set --drift --out),
 * and where its CSV goes (stdout, or the temporary file of --out) */
typedef struct {
    uint64_t seed;
    mpfr_prec_t prec;
    const char *out;
    long drift;
    int steps_given;
    char err[256];
    FILE *f;
    lm_outfile file;
} train_opts;

#define train_usage lm_cli_needs

/* parses argv[1..] into o (--steps into *steps, --set through set on run), refuses what the
 * run cannot take (refuse: TR_* flags) and opens the output: -1 when the run may go ahead,
 * else the exit status */
static int train_begin(train_opts *o, const lm_train_type *ty, void *run, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    o->seed = 20241122;
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
            if (ty->set(run, v, o->err, sizeof o->err)) { fprintf(stderr, "lemmata: %s\n", o->err); return LM_EXIT_USAGE; }
            k++;
        } else if (!strcmp(a, "--drift")) {
            if (parse_long(v, 64, LM_PREC_MAX, &o->drift)) return train_usage(a, "MPFR bits in [64, 8192]", v);
            k++;
        } else if (!strcmp(a, "--out")) {
            if (!lm_cli_name_value(v)) return train_usage(a, "a file name", v);
            o->out = v;
            k++;
        } else return die_usage("train: unknown option '%s' (see: lemmata train --help)", a);
    }
    const unsigned refuse = ty->flags;
    if ((refuse & LM_TRAIN_DOUBLE_ONLY) && (o->prec || o->drift))
        return die_usage("%s: this run is computed in double only (no --prec, --drift)", argv[0]);
    if ((refuse & LM_TRAIN_FIXED_LENGTH) && o->steps_given)
        return die_usage("%s: this run has a fixed length (no --steps)", argv[0]);
    o->f = stdout;
    if (o->out) {
        int rc = lm_outfile_open(&o->file, o->out);
        if (rc) return rc;
        o->f = o->file.f;
    }
    return -1;
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
        fprintf(stderr, "lemmata: train %s: %s\n", name, o->err[0] ? o->err : "the run failed");
        return LM_EXIT_FAILED;
    }
    if (o->out) return lm_outfile_commit(&o->file);
    return LM_EXIT_OK;
}

int lm_cmd_train(int argc, char **argv)
{
    if (argc > 0 && lm_cli_is_help(argv[0])) return lm_cli_help("train");
    if (argc == 0) {
        for (int p = 0; p < lm_paper_count; p++) {
            const lm_train_type *t = lm_papers[p]->train;
            if (!t) continue;
            printf("%s (%s; --set %s)%s\n", t->heading, lm_papers[p]->id, t->settings ? t->settings : "nothing",
                   t->flags & LM_TRAIN_DOUBLE_ONLY ? ", in double" : "");
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
        ty->free(run);
        return st;
    }
    lm_train_args a = {.seed = o.seed, .ctx = train_ctx(&o), .drift = o.drift};
    if (o.drift) train_drift_note(&o, argv[0]);
    int rc = ty->train(run, o.f, &a, o.err, sizeof o.err);
    ty->free(run);
    return train_end(&o, rc, argv[0]);
}
