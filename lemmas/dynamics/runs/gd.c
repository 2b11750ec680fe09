/* gd.c -- optimizers as static const vtables, and per-iterate monitors. */
#include "lm_dyntrain.h"
#include <string.h>

static void gd_step(lm_mha *m, int mask, const lm_num *eta) { lm_mha_gd_step(m, mask, eta); }

const lm_optimizer lm_opt_gd = {"gd", "vanilla full-batch gradient descent M -= eta grad f",
                                gd_step};

static const lm_optimizer *const optimizers[] = {&lm_opt_gd, NULL};

const lm_optimizer *lm_optimizer_find(const char *name)
{
    for (int k = 0; optimizers[k]; k++)
        if (strcmp(optimizers[k]->name, name) == 0) return optimizers[k];
    return NULL;
}

int lm_monitor_eval(lm_monitor *mo, lm_mha *m, int mask)
{
    const lm_ctx *c = &m->ctx;
    lm_num x;
    lm_num_init(&x, c);
    int rc = 0;
    lm_mat *g = lm_mat_new(lm_mha_nparams(m, mask), 1, c);
    lm_mha_flat_grad(g, m, mask); /* also runs forward */
    lm_mat_frob(&x, g);
    mo->gnorm = lm_num_get_d(&x);
    mo->f = lm_num_get_d(&m->f);
    lm_mat *B = lm_mat_new(m->N * m->n, m->H * m->D, c);
    lm_mha_B(B, m);
    rc |= lm_mat_smin(&x, B);
    mo->smin_B = lm_num_get_d(&x);
    mo->smax_Q = mo->smax_K = 0;
    for (int h = 0; h < m->H; h++) {
        rc |= lm_mat_smax(&x, m->Wq[h]);
        if (lm_num_get_d(&x) > mo->smax_Q) mo->smax_Q = lm_num_get_d(&x);
        rc |= lm_mat_smax(&x, m->Wk[h]);
        if (lm_num_get_d(&x) > mo->smax_K) mo->smax_K = lm_num_get_d(&x);
    }
    rc |= lm_mat_smax(&x, m->Wv);
    mo->smax_V = lm_num_get_d(&x);
    mo->min_S = 1.0;
    for (int q = 0; q < m->N * m->H; q++) {
        lm_mat_min(&x, m->S[q]);
        if (lm_num_get_d(&x) < mo->min_S) mo->min_S = lm_num_get_d(&x);
    }
    lm_mat_free(B);
    lm_mat_free(g);
    lm_num_clear(&x);
    return rc;
}
