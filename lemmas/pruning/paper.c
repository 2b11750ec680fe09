/* lemmas/pruning/paper.c -- the paper, and its live runs for `lemmata train` and `lemmata verify`. */
#include "lm_paper.h"
#include "lm_prruns.h"
#include <stdlib.h>

/* ---- lemmata train: the runs of lm_prr_runs (runs/pr_runs.c), one CSV row per sweep point ---- */

static const char *run_name(int k)
{
    for (int j = 0; j <= k; j++)
        if (!lm_prr_runs[j].name) return NULL;
    return lm_prr_runs[k].name;
}

static const char *run_doc(int k) { return lm_prr_runs[k].doc; }

static void *run_alloc(int k)
{
    lm_prr_def *r = malloc(sizeof *r);
    if (r) *r = lm_prr_runs[k];
    return r;
}

static int run_set(void *r, const char *kv, char *err, int errlen) { return lm_prr_set(r, kv, err, errlen); }

static void run_steps(void *r, int steps) { ((lm_prr_def *)r)->steps = steps; }

static int run_train(void *r, FILE *f, const lm_train_args *a, char *err, int errlen)
{
    return lm_prr_run(f, r, a->seed, err, errlen);
}

static const lm_train_type train = {
    .heading = "attention-pruning runs",
    .settings = "steps|n|d|rho|lambda|lambda_scale|momentum|eta_c|logit_rms|causal",
    .flags = LM_TRAIN_DOUBLE_ONLY,
    .name = run_name, .doc = run_doc, .alloc = run_alloc, .set = run_set, .set_steps = run_steps,
    .train = run_train, .free = free,
};

/* ---- lemmata verify: the panels of Figure 2 ---- */

static const char *live_name(int k) { return lm_name_at(lm_prlive_names, k); }

LM_PAPER(paper_pruning) = {
    .id = "pruning",
    .catalogue = "attention-pruning",
    .title = "Beyond Linear Approximations: A Novel Pruning Approach for Attention Matrix",
    .authors = "Yingyu Liang, Jiangxuan Long, Zhenmei Shi, Zhao Song, Yufa Zhou",
    .venue = "arXiv:2410.11261 (v1); ICLR 2025",
    .about = "Pruning the weights of an attention layer by gradient descent on a relaxed mask, "
             "so as to approximate the softmax attention matrix itself rather than a linear "
             "output: the gradient, its Lipschitz and smoothness constants, and the convergence "
             "of the masked descent.",
    .live_about = "The runs of the attention-pruning paper (names \\texttt{pr-}) reproduce its "
                  "Figure~2 in double: the relative error of the pruned attention matrix for the "
                  "mask found by gradient descent, for magnitude pruning and for Wanda on the same "
                  "synthetic rank-4 weights, on the calibration data and on held-out data.",
    .train = &train,
    .live_name = live_name,
    .live_run = lm_prlive_run,
};
