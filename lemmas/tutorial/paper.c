/* lemmas/tutorial/paper.c -- the tutorial paper (lm_paper.h): the worked example of
 * docs/authoring.md, with one live run, gradient descent on the descent lemma's least squares. */
#include "lm_paper.h"
#include "lm_tutls.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the training run "tut-gd" (lemmata train tut-gd --set eta=0.5 --steps 100) ---- */

typedef struct {
    double eta; /* the step size in units of 1/L */
    int steps, m, d;
} tut_run;

static const char *run_name(int k) { return k == 0 ? "tut-gd" : NULL; }
static const char *run_doc(int k)
{
    return k == 0 ? "GD with step eta/L on least squares ||Ax||^2/(2m), A 32 x 8 Gaussian (the descent lemma's loss)"
                  : NULL;
}

static void *run_alloc(int k)
{
    tut_run *r = k == 0 ? malloc(sizeof *r) : NULL;
    if (r) *r = (tut_run){.eta = 1.0, .steps = 100, .m = 32, .d = 8};
    return r;
}

static int run_set(void *run, const char *kv, char *err, int errlen)
{
    tut_run *r = run;
    size_t nl;
    const char *val;
    double v;
    if (lm_live_split(kv, &nl, &val, err, errlen)) return -1;
    if (lm_live_parse_num(val, &v)) {
        snprintf(err, (size_t)errlen, "--set %s: not a number", kv);
        return -1;
    }
    if (nl == 3 && !strncmp(kv, "eta", 3)) {
        if (!(v > 0 && v < 2)) {
            snprintf(err, (size_t)errlen, "--set %s: eta (in units of 1/L) must be in (0, 2)", kv);
            return -1;
        }
        r->eta = v;
    } else if (nl == 5 && !strncmp(kv, "steps", 5)) {
        if (!(v >= 1 && v <= 100000 && v == (int)v)) {
            snprintf(err, (size_t)errlen, "--set %s: steps must be an integer in [1, 100000]", kv);
            return -1;
        }
        r->steps = (int)v;
    } else {
        snprintf(err, (size_t)errlen, "--set %s: tut-gd takes eta|steps", kv);
        return -1;
    }
    return 0;
}

static void run_steps(void *run, int steps) { ((tut_run *)run)->steps = steps; }
static void run_free(void *run) { free(run); }

/* One GD run in ctx from the seed: calls row(t, f(x_t), ||grad f(x_t)||, arg) for t = 0..steps. */
static int gd(const tut_run *r, uint64_t seed, const lm_ctx *ctx,
              void (*row)(int, double, double, void *), void *arg, char *err, int errlen)
{
    lm_rng g;
    lm_rng_init(&g, seed);
    lm_tutls F;
    if (lm_tutls_init(&F, r->m, r->d, &g, ctx)) {
        snprintf(err, (size_t)errlen, "out of memory");
        return -1;
    }
    lm_mat *x = lm_mat_new(r->d, 1, ctx), *gr = lm_mat_new(r->d, 1, ctx);
    lm_mat_randn(x, &g, 1.0);
    lm_num L, meta, f, gn;
    lm_num_inits(ctx, &L, &meta, &f, &gn, (lm_num *)NULL);
    int rc = 0;
    if (lm_tutls_smooth(&L, &F)) {
        snprintf(err, (size_t)errlen, "the SVD of A did not converge");
        rc = -1;
    }
    lm_num_set_d(&meta, -r->eta);
    lm_num_div(&meta, &meta, &L);
    for (int t = 0; !rc && t <= r->steps; t++) {
        lm_tutls_loss(&f, &F, x);
        lm_tutls_grad(gr, &F, x);
        lm_mat_frob(&gn, gr);
        if (!lm_num_isfinite(&f)) {
            snprintf(err, (size_t)errlen, "the loss is not finite at iterate %d", t);
            rc = -1;
            break;
        }
        row(t, lm_num_get_d(&f), lm_num_get_d(&gn), arg);
        lm_mat_axpy(x, &meta, gr);
    }
    lm_num_clears(&L, &meta, &f, &gn, (lm_num *)NULL);
    lm_mat_free(x);
    lm_mat_free(gr);
    lm_tutls_free(&F);
    return rc;
}

static void csv_row(int t, double f, double gn, void *arg) { fprintf(arg, "%d,%.17g,%.17g\n", t, f, gn); }

static int run_train(void *run, FILE *f, const lm_train_args *a, char *err, int errlen)
{
    fprintf(f, "iterate,loss,grad_norm\n");
    return gd(run, a->seed, &a->ctx, csv_row, f, err, errlen);
}

static const lm_train_type train = {
    .heading = "tutorial runs",
    .settings = "eta|steps",
    .flags = LM_TRAIN_DOUBLE_ONLY,
    .name = run_name,
    .doc = run_doc,
    .alloc = run_alloc,
    .set = run_set,
    .set_steps = run_steps,
    .train = run_train,
    .free = run_free,
};

/* ---- the live entry of lemmata verify: the same run, drawn as a figure ---- */

typedef struct {
    lm_sbuf fig;
    double f0, fT;
} tut_live;

static void fig_row(int t, double f, double gn, void *arg)
{
    tut_live *l = arg;
    if (t == 0) l->f0 = f;
    l->fT = f;
    lm_live_pt(&l->fig, "loss", t, f);
    lm_live_pt(&l->fig, "squared-gradient-norm", t, gn * gn);
}

static const char *live_name(int k) { return run_name(k); }

static int live_run(lm_live *L, int k, int quick, uint64_t seed, char *err, int errlen)
{
    tut_run *r = run_alloc(k);
    if (!r) {
        snprintf(err, (size_t)errlen, "out of memory");
        return -1;
    }
    r->steps = quick ? 50 : 200;
    const lm_ctx dbl = lm_ctx_double();
    tut_live l = {{0}, 0, 0};
    lm_sbuf sum = {0};
    lm_live_fig_begin(&l.fig, "tut-gd", 0, 1, "iterate t", "loss", "Gradient descent on least squares",
                      "GD with step $1/L$ on $f(x)=\\frac1{2m}\\|Ax\\|^2$, $A\\in\\mathbb R^{32\\times8}$ "
                      "Gaussian: the loss and the squared gradient norm decay linearly.");
    int rc = gd(r, seed, &dbl, fig_row, &l, err, errlen);
    if (!rc)
        lm_live_printf(&sum, "%d GD steps with eta = 1/L: f(x_t) from %.3g to %.3g, a factor %.3g per step.",
                       r->steps, l.f0, l.fT, pow(l.fT / l.f0, 1.0 / r->steps));
    *L = (lm_live){.name = "tut-gd", .doc = run_doc(0), .steps = r->steps, .prec = 53,
                   .series = l.fig.s, .summary = sum.s};
    free(r);
    if (rc) lm_live_clear(L);
    return rc;
}

LM_PAPER(paper_tutorial) = {
    .id = "tutorial",
    .title = "A tutorial paper: classic facts about softmax and gradient descent",
    .authors = "the lemmata authors",
    .venue = "docs/authoring.md",
    .about = "The worked example of the authoring guide: four classic facts, one of each kind of "
             "claim. The softmax Jacobian $J(z)=\\mathrm{diag}(s)-ss^\\top$ has spectral norm at most "
             "$\\frac12$ (pointwise) and its rows sum to zero (an identity); gradient descent with "
             "step $\\eta\\le1/L$ on an $L$-smooth loss decreases it by at least "
             "$\\eta(1-\\frac{L\\eta}2)\\|\\nabla f\\|^2$ per step (the descent lemma, along a "
             "trajectory); and on separable logistic regression its loss decays as $\\Theta(1/t)$ "
             "(a rate, checked as a fitted exponent).",
    .live_about = "One live run: gradient descent with step $1/L$ on the least-squares loss of the "
                  "descent lemma, in double; the figure shows the loss and the squared gradient "
                  "norm against the iterate on a logarithmic axis.",
    .train = &train,
    .live_name = live_name,
    .live_run = live_run,
};
