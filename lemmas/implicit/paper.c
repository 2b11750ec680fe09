/* lemmas/implicit/paper.c -- the paper, and its live runs for `lemmata train` and `lemmata verify`. */
#include "lm_ibruns.h"
#include "lm_paper.h"
#include <stdlib.h>

/* ---- lemmata train: the runs of lm_ibruns (runs/ib_runs.c) ---- */

static const char *run_name(int k)
{
    for (int j = 0; j <= k; j++)
        if (!lm_ibruns[j].name) return NULL;
    return lm_ibruns[k].name;
}

static const char *run_doc(int k) { return lm_ibruns[k].doc; }

static void *run_alloc(int k)
{
    lm_ibrun_def *r = malloc(sizeof *r);
    if (r) *r = lm_ibruns[k];
    return r;
}

static int run_set(void *r, const char *kv, char *err, int errlen) { return lm_ibrun_set(r, kv, err, errlen); }

static void run_steps(void *r, int steps) { ((lm_ibrun_def *)r)->steps = steps; }

/* CSV of the run in a->ctx, or with --drift the double run against its MPFR repeat */
static int run_train(void *rp, FILE *f, const lm_train_args *a, char *err, int errlen)
{
    const lm_ibrun_def *r = rp;
    int rc;
    if (a->drift) {
        lm_ibrun_rec *xd = NULL, *xm = NULL;
        lm_ibrun_drift_rec *x = NULL;
        rc = lm_ibrun_drift(&xd, &xm, &x, r, a->seed, (mpfr_prec_t)a->drift, err, errlen);
        if (!rc) {
            fprintf(f, "iterate,log_loss,coef_rel_drift,e_W_double,e_W_mpfr,e_W_rel_diff,"
                       "max_log_1m_s_opt_double,max_log_1m_s_opt_mpfr,log_1m_s_opt_rel_diff\n");
            for (int t = 0; t <= r->steps; t++)
                fprintf(f, "%d,%.17g,%.6e,%.17g,%.17g,%.6e,%.17g,%.17g,%.6e\n", t, xd[t].log_loss,
                        x[t].coef, xd[t].e_W, xm[t].e_W, x[t].e_rel, xd[t].max_lomso,
                        xm[t].max_lomso, x[t].lomso_rel);
        }
        free(xd);
        free(xm);
        free(x);
    } else {
        lm_ibrun_rec *x = NULL;
        rc = lm_ibrun_exec(&x, r, a->seed, &a->ctx, err, errlen);
        if (!rc) {
            lm_ibrun_csv_header(f, r);
            for (int t = 0; t <= r->steps; t++) lm_ibrun_csv_row(f, r, &x[t]);
        }
        free(x);
    }
    return rc;
}

static const lm_train_type train = {
    .heading = "implicit-bias runs",
    .settings = "eta|steps|d|n|T|eta_max|alpha|init",
    .name = run_name, .doc = run_doc, .alloc = run_alloc, .set = run_set, .set_steps = run_steps,
    .train = run_train, .free = free,
    .train_io = lm_ibrun_train_io, /* runs/ib_io.c: --data --init --iterates --export-* */
};

/* ---- lemmata verify: NGD in double and wholly in MPFR-256, GD vs NGD vs Polyak, the joint run ---- */

static const char *live_name(int k) { return lm_name_at(lm_iblive_names, k); }

LM_PAPER(paper_implicit) = {
    .id = "implicit",
    .catalogue = "implicit-bias-self-attention",
    .title = "Implicit Bias and Fast Convergence Rates for Self-attention",
    .authors = "Bhavya Vasudeva, Puneesh Deora, Christos Thrampoulidis",
    .venue = "arXiv:2402.05738 (v1)",
    .about = "Gradient descent and normalized gradient descent on a one-layer softmax-attention "
             "classifier with a fixed linear decoder converge in direction to the max-margin "
             "solution of an SVM over the tokens (W-SVM), with finite-time rates; joint training "
             "of the decoder, and Polyak step sizes.",
    .live_about = "The runs of the implicit-bias paper (names \\texttt{ib-}) run on the exact "
                  "coefficient representation $W_t=W_0+\\sum_{i,t}C_{it}x_{it}x_{i1}^\\top$, so a "
                  "step costs $O((nT)^2)$ whatever $d$ is and the long NGD run is repeated wholly "
                  "in MPFR at 256 bits; each caption says what its figure shows.",
    .train = &train,
    .live_name = live_name,
    .live_run = lm_iblive_run,
};
