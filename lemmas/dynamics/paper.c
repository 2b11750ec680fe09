/* lemmas/dynamics/paper.c -- the paper, and its live runs for `lemmata train` and `lemmata verify`. */
#include "lm_dyntrain.h"
#include "lm_paper.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- lemmata train: the runs of lm_dynruns (runs/runs.c) ---- */

static const char *run_name(int k)
{
    for (int j = 0; j <= k; j++)
        if (!lm_dynruns[j].name) return NULL;
    return lm_dynruns[k].name;
}

static const char *run_doc(int k) { return lm_dynruns[k].doc; }

static void *run_alloc(int k)
{
    lm_dynrun_def *r = malloc(sizeof *r);
    if (r) *r = lm_dynruns[k];
    return r;
}

static int run_set(void *r, const char *kv, char *err, int errlen) { return lm_dynrun_set(r, kv, err, errlen); }

static void run_steps(void *r, int steps) { ((lm_dynrun_def *)r)->steps = steps; }

/* CSV of the run in a->ctx, or with --drift the double run against its MPFR repeat */
static int run_train(void *rp, FILE *f, const lm_train_args *a, char *err, int errlen)
{
    const lm_dynrun_def *r = rp;
    if (!a->drift) return lm_dynrun_exec(r, a->seed, &a->ctx, f, 1, err, errlen);
    double *pd = NULL, *ld = NULL, *fl = NULL;
    int rc = lm_dynrun_drift(r, a->seed, (mpfr_prec_t)a->drift, &pd, &ld, &fl, err, errlen);
    if (!rc) {
        fprintf(f, "iterate,loss,param_rel_drift,loss_rel_drift\n");
        for (int t = 0; t <= r->steps; t++) fprintf(f, "%d,%.17g,%.6e,%.6e\n", t, fl[t], pd[t], ld[t]);
    }
    free(pd);
    free(ld);
    free(fl);
    return rc;
}

static const lm_train_type train = {
    .heading = "runs of the gradient-descent dynamics paper",
    .settings = "N|n|D|d|H|steps|eta|sx|sqk|sv|so|kernel|wv|labels",
    .name = run_name, .doc = run_doc, .alloc = run_alloc, .set = run_set, .set_steps = run_steps,
    .train = run_train, .free = free,
    .train_io = lm_dynrun_train_io, /* runs/dyn_io.c: --data --init --iterates --export-* */
};

/* ---- lemmata verify: every run in double and wholly in MPFR-256 (100 steps quick, else 400) ---- */

static int live_run(lm_live *L, int k, int quick, uint64_t seed, char *err, int errlen)
{
    memset(L, 0, sizeof *L);
    lm_dynrun_def r = lm_dynruns[k];
    r.steps = quick ? 100 : 400;
    double *pd = NULL, *ld = NULL, *fl = NULL;
    if (lm_dynrun_drift(&r, seed, 256, &pd, &ld, &fl, err, errlen)) return -1;
    lm_sbuf b = {0};
    double maxd = 0;
    for (int t = 0; t <= r.steps; t++) {
        if (fl[t] > 0) lm_live_printf(&b, "loss f_t (double)\t%d\t%.8g\n", t, fl[t]);
        if (pd[t] > 0) lm_live_printf(&b, "parameter drift double vs MPFR\t%d\t%.4g\n", t, pd[t]);
        maxd = fmax(maxd, pd[t]);
    }
    lm_sbuf s = {0};
    lm_live_printf(&s, "Loss %.3g -> %.3g; largest relative parameter drift %.2g; final relative loss difference %.2g.",
                   fl[0], fl[r.steps], maxd, ld[r.steps]);
    free(pd);
    free(ld);
    free(fl);
    *L = (lm_live){.name = lm_dynruns[k].name, .doc = lm_dynruns[k].doc, .steps = r.steps, .prec = 256,
                   .series = b.s, .summary = s.s};
    if (!L->series || !L->summary) {
        lm_live_clear(L);
        snprintf(err, (size_t)errlen, "out of memory");
        return -1;
    }
    return 0;
}

LM_PAPER(paper_dynamics) = {
    .id = "dynamics",
    .catalogue = "transformer-gd-dynamics",
    .title = "Unraveling the Gradient Descent Dynamics of Transformers",
    .authors = "Bingqing Song, Boran Han, Shuai Zhang, Jie Ding, Mingyi Hong",
    .venue = "NeurIPS 2024; arXiv:2411.07538",
    .about = "Gradient descent on a multi-head softmax (or Gaussian-kernel) attention layer: "
             "conditions on the weights and the step size under which the loss converges to a "
             "global minimum at a linear rate, with explicit smoothness constants and "
             "induction bounds.",
    .live_about = "The runs of the dynamics paper were trained in IEEE double and, from the same "
                  "data and starting point, wholly in MPFR: their figures show the loss $f_t$ of "
                  "the double run and the relative drift "
                  "$\\|\\theta^{\\rm double}_t-\\theta^{\\rm MPFR}_t\\|/\\|\\theta^{\\rm MPFR}_t\\|$ "
                  "of the trained parameters per iterate (a drift at the level of $10^{-16}$ means "
                  "the double trajectory is the exact one to working accuracy).",
    .train = &train,
    .live_name = run_name,
    .live_run = live_run,
};
