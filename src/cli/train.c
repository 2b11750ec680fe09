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

/* what a kind of run refuses (train_begin) */
enum { TR_DOUBLE_ONLY = 1, TR_FIXED_LENGTH = 2 };

/* lm_run_set, lm_ibrun_set or lm_mdr_set on the run being set up */
typedef int (*train_set_fn)(void *run, const char *kv, char *err, int errlen);

static int set_dyn_run(void *r, const char *kv, char *err, int errlen)
{
    return lm_run_set(r, kv, err, errlen);
}

static int set_ib_run(void *r, const char *kv, char *err, int errlen)
{
    return lm_ibrun_set(r, kv, err, errlen);
}

static int set_md_run(void *r, const char *kv, char *err, int errlen)
{
    return lm_mdr_set(r, kv, err, errlen);
}

static int set_pr_run(void *r, const char *kv, char *err, int errlen)
{
    return lm_prr_set(r, kv, err, errlen);
}

static int train_usage(const char *opt, const char *what, const char *v)
{
    fprintf(stderr, "lemmata: %s needs %s, got %s%s%s\n", opt, what, v ? "'" : "nothing", v ? v : "",
            v ? "'" : "");
    return LM_EXIT_USAGE;
}

/* parses argv[1..] into o (--steps into *steps, --set through set on run), refuses what the
 * run cannot take (refuse: TR_* flags) and opens the output: -1 when the run may go ahead,
 * else the exit status */
static int train_begin(train_opts *o, int *steps, train_set_fn set, void *run, unsigned refuse, int argc,
                       char **argv)
{
    memset(o, 0, sizeof *o);
    o->seed = 20241122;
    for (int k = 1; k < argc; k++) {
        const char *a = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;
        if (lm_cli_is_help(a)) return lm_cli_help("train");
        if (!strcmp(a, "--steps")) {
            long s;
            if (parse_long(v, 0, 10000000, &s)) return train_usage(a, "an integer in [0, 1e7]", v);
            *steps = (int)s;
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
            if (set(run, v, o->err, sizeof o->err)) { fprintf(stderr, "lemmata: %s\n", o->err); return LM_EXIT_USAGE; }
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
    if ((refuse & TR_DOUBLE_ONLY) && (o->prec || o->drift))
        return die_usage("%s: this run is computed in double only (no --prec, --drift)", argv[0]);
    if ((refuse & TR_FIXED_LENGTH) && o->steps_given)
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

/* an implicit-bias run (lm_ibruns.h): same options as the dynamics runs */
static int cmd_train_ib(const lm_ibrun_def *base, int argc, char **argv)
{
    lm_ibrun_def r = *base;
    train_opts o;
    int st = train_begin(&o, &r.steps, set_ib_run, &r, 0, argc, argv);
    if (st >= 0) return st;
    lm_ctx ctx = train_ctx(&o);
    FILE *f = o.f;
    int rc;
    if (o.drift) {
        lm_ibrun_rec *xd = NULL, *xm = NULL;
        lm_ibrun_drift_rec *x = NULL;
        train_drift_note(&o, r.name);
        rc = lm_ibrun_drift(&xd, &xm, &x, &r, o.seed, (mpfr_prec_t)o.drift, o.err, sizeof o.err);
        if (!rc) {
            fprintf(f, "iterate,log_loss,coef_rel_drift,e_W_double,e_W_mpfr,e_W_rel_diff,"
                       "max_log_1m_s_opt_double,max_log_1m_s_opt_mpfr,log_1m_s_opt_rel_diff\n");
            for (int t = 0; t <= r.steps; t++)
                fprintf(f, "%d,%.17g,%.6e,%.17g,%.17g,%.6e,%.17g,%.17g,%.6e\n", t, xd[t].log_loss,
                        x[t].coef, xd[t].e_W, xm[t].e_W, x[t].e_rel, xd[t].max_lomso,
                        xm[t].max_lomso, x[t].lomso_rel);
        }
        free(xd);
        free(xm);
        free(x);
    } else {
        lm_ibrun_rec *x = NULL;
        rc = lm_ibrun_exec(&x, &r, o.seed, &ctx, o.err, sizeof o.err);
        if (!rc) {
            lm_ibrun_csv_header(f, &r);
            for (int t = 0; t <= r.steps; t++) lm_ibrun_csv_row(f, &r, &x[t]);
        }
        free(x);
    }
    return train_end(&o, rc, r.name);
}

/* a mirror-descent run (lm_mdruns.h): same options as the other runs */
static int cmd_train_md(const lm_mdr_def *base, int argc, char **argv)
{
    lm_mdr_def r = *base;
    train_opts o;
    int st = train_begin(&o, &r.steps, set_md_run, &r, 0, argc, argv);
    if (st >= 0) return st;
    lm_ctx ctx = train_ctx(&o);
    FILE *f = o.f;
    int rc;
    lm_mdr_info I;
    memset(&I, 0, sizeof I);
    if (o.drift) {
        lm_mdr_rec *xd = NULL, *xm = NULL;
        lm_mdr_drift_rec *x = NULL;
        train_drift_note(&o, r.name);
        rc = lm_mdr_drift(&xd, &xm, &x, &I, &r, o.seed, (mpfr_prec_t)o.drift, 0, o.err, sizeof o.err);
        if (!rc) {
            fprintf(f, "iterate,log_loss_double,log_loss_mpfr,norm_p_double,norm_p_mpfr,"
                       "growth_double,growth_mpfr,theta_rel_drift,disp_rel_err,D_double,D_mpfr,"
                       "frozen_entries,moved_entries_mpfr,changed_entries_double\n");
            for (int t = 0; t <= r.steps; t++)
                fprintf(f, "%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.6e,%.6e,%.17g,%.17g,%d,%d,%d\n", t,
                        xd[t].log_loss, xm[t].log_loss, xd[t].norm, xm[t].norm, x[t].growth_d,
                        x[t].growth_m, x[t].theta, x[t].disp, x[t].D_d, x[t].D_m, x[t].frozen,
                        x[t].moved, x[t].changed);
            int ff = lm_mdr_frozen_from(x, r.steps);
            if (ff >= 0)
                fprintf(stderr, "lemmata: the double run is frozen from iterate %d (Theta unchanged "
                                "in double while the MPFR run moves)\n", ff);
            else
                fprintf(stderr, "lemmata: the double run is not frozen at its end\n");
        }
        free(xd);
        free(xm);
        free(x);
    } else {
        lm_mdr_rec *x = NULL;
        rc = lm_mdr_exec(&x, &I, &r, o.seed, &ctx, 0, o.err, sizeof o.err);
        if (!rc) {
            lm_mdr_csv_header(f);
            for (int t = 0; t <= r.steps; t++) lm_mdr_csv_row(f, &x[t]);
        }
        free(x);
    }
    if (!rc && I.alpha) {
        fprintf(stderr, "lemmata: selected tokens alpha =");
        for (int i = 0; i < I.n; i++) fprintf(stderr, " %d", I.alpha[i]);
        fprintf(stderr, " (%d of %d the argmax of the scores)", I.alpha_opt, I.n);
        if (r.kind == LM_MDR_R1)
            fprintf(stderr, "; mu_0 = %.4g, ||W(0)||_p = %.6g%s", I.mu0, I.R0norm,
                    I.attempt ? " (a derived data seed)" : "");
        fprintf(stderr, "\n");
    }
    lm_mdr_info_clear(&I);
    return train_end(&o, rc, r.name);
}

/* an attention-pruning run (lm_prruns.h): one CSV row per point of its sweep, in double */
static int cmd_train_pr(const lm_prr_def *base, int argc, char **argv)
{
    lm_prr_def r = *base;
    train_opts o;
    int st = train_begin(&o, &r.steps, set_pr_run, &r, TR_DOUBLE_ONLY, argc, argv);
    if (st >= 0) return st;
    int rc = lm_prr_run(o.f, &r, o.seed, o.err, sizeof o.err);
    return train_end(&o, rc, r.name);
}

/* a preconditioning-paper run (lm_pcruns.h): its figure series as CSV, in double */
static int set_pc_run(void *r, const char *kv, char *err, int errlen)
{
    (void)r;
    snprintf(err, (size_t)errlen, "the preconditioning runs take no --set (got '%s')", kv);
    return -1;
}

static int cmd_train_pc(int k, int argc, char **argv)
{
    int steps = 0;
    train_opts o;
    int st = train_begin(&o, &steps, set_pc_run, NULL, TR_DOUBLE_ONLY | TR_FIXED_LENGTH, argc, argv);
    if (st >= 0) return st;
    int rc = lm_pcr_run(o.f, k, o.seed, o.err, sizeof o.err);
    return train_end(&o, rc, lm_pclive_names[k]);
}

int lm_cmd_train(int argc, char **argv)
{
    if (argc > 0 && lm_cli_is_help(argv[0])) return lm_cli_help("train");
    if (argc == 0) {
        printf("runs (lemmata train RUN):\n");
        for (int k = 0; lm_runs[k].name; k++) printf("  %-18s %s\n", lm_runs[k].name, lm_runs[k].doc);
        printf("implicit-bias runs (--set eta|steps|d|n|T|eta_max|alpha|init=V):\n");
        for (int k = 0; lm_ibruns[k].name; k++) printf("  %-18s %s\n", lm_ibruns[k].name, lm_ibruns[k].doc);
        printf("mirror-descent runs (--set steps|eta|p|n|T|d|init|R0|mu|normalized=V):\n");
        for (int k = 0; lm_mdr_runs[k].name; k++) printf("  %-18s %s\n", lm_mdr_runs[k].name, lm_mdr_runs[k].doc);
        printf("attention-pruning runs (--set steps|n|d|rho|lambda|lambda_scale|momentum|eta_c|logit_rms|causal=V):\n");
        for (int k = 0; lm_prr_runs[k].name; k++) printf("  %-18s %s\n", lm_prr_runs[k].name, lm_prr_runs[k].doc);
        printf("preconditioning runs (no --set; double):\n");
        for (int k = 0; lm_pclive_names[k]; k++) printf("  %s\n", lm_pclive_names[k]);
        return 0;
    }
    const lm_run_def *base = lm_run_find(argv[0]);
    if (!base) {
        const lm_ibrun_def *ib = lm_ibrun_find(argv[0]);
        if (ib) return cmd_train_ib(ib, argc, argv);
        const lm_mdr_def *md = lm_mdr_find(argv[0]);
        if (md) return cmd_train_md(md, argc, argv);
        const lm_prr_def *pr = lm_prr_find(argv[0]);
        if (pr) return cmd_train_pr(pr, argc, argv);
        const int pc = lm_pcr_find(argv[0]);
        if (pc >= 0) return cmd_train_pc(pc, argc, argv);
        return die_usage("unknown run '%s' (see: lemmata train)", argv[0]);
    }
    lm_run_def r = *base;
    train_opts o;
    int st = train_begin(&o, &r.steps, set_dyn_run, &r, 0, argc, argv);
    if (st >= 0) return st;
    lm_ctx ctx = train_ctx(&o);
    FILE *f = o.f;
    int rc;
    if (o.drift) {
        double *pd = NULL, *ld = NULL, *fl = NULL;
        train_drift_note(&o, r.name);
        rc = lm_run_drift(&r, o.seed, (mpfr_prec_t)o.drift, &pd, &ld, &fl, o.err, sizeof o.err);
        if (!rc) {
            fprintf(f, "iterate,loss,param_rel_drift,loss_rel_drift\n");
            for (int t = 0; t <= r.steps; t++)
                fprintf(f, "%d,%.17g,%.6e,%.6e\n", t, fl[t], pd[t], ld[t]);
        }
        free(pd);
        free(ld);
        free(fl);
    } else {
        rc = lm_run_exec(&r, o.seed, &ctx, f, 1, o.err, sizeof o.err);
    }
    return train_end(&o, rc, r.name);
}
