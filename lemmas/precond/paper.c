/* lemmas/precond/paper.c -- the paper, and its live runs for `lemmata train` and `lemmata verify`
 * (the same three runs: `lemmata train` writes their figure series as CSV). */
#include "lm_paper.h"
#include "lm_pcruns.h"
#include <stdio.h>
#include <stdlib.h>

static const char *live_name(int k) { return lm_name_at(lm_pclive_names, k); }

static const char *run_doc(int k)
{
    static const char *const doc[] = {
        "Figure 1: Algorithm 1 from the spectral initialisation vs SGD from N(0,1); CSV of the figure series",
        "Figure 2: Algorithm 1 and SGD from a common N(0,1) start; CSV of the figure series",
        "the scaling law: plateau excess of Algorithm 1 against N; CSV of the figure series"};
    return k >= 0 && k < 3 ? doc[k] : "";
}

static void *run_alloc(int k)
{
    int *r = malloc(sizeof *r);
    if (r) *r = k;
    return r;
}

static int run_set(void *r, const char *kv, char *err, int errlen)
{
    (void)r;
    snprintf(err, (size_t)errlen, "the preconditioning runs take no --set (got '%s')", kv);
    return -1;
}

static void run_steps(void *r, int steps) { (void)r, (void)steps; }

static int run_train(void *r, FILE *f, const lm_train_args *a, char *err, int errlen)
{
    return lm_pcr_run(f, *(int *)r, a->seed, err, errlen);
}

static const lm_train_type train = {
    .heading = "preconditioning runs",
    .settings = NULL,
    .flags = LM_TRAIN_DOUBLE_ONLY | LM_TRAIN_FIXED_LENGTH,
    .name = live_name, .doc = run_doc, .alloc = run_alloc, .set = run_set, .set_steps = run_steps,
    .train = run_train, .free = free,
};

LM_PAPER(paper_precond) = {
    .id = "precond",
    .catalogue = "preconditioned-softmax-regression",
    .title = "Training Dynamics of Softmax Self-Attention: Fast Global Convergence via Preconditioning",
    .authors = "Gautam Goel, Mahdi Soltanolkotabi, Peter Bartlett",
    .venue = "arXiv:2603.01514 (v1)",
    .about = "A softmax self-attention layer trained on linear regression: in the infinite-data "
             "limit the problem is a nonconvex matrix factorization, and a preconditioned, "
             "regularised first-order method from a spectral initialisation converges to the "
             "global optimum at a geometric rate; finite-sample bounds.",
    .live_about = "The runs of the preconditioning paper (names \\texttt{pc-}) train softmax "
                  "attention on random linear regression with Algorithm 1 (spectral "
                  "initialisation, preconditioned and regularised steps) against SGD, and show "
                  "the scaling of the excess population loss with the sample size.",
    .train = &train,
    .live_name = live_name,
    .live_run = lm_pclive_run,
};
