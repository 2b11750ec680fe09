/* t3ball.c -- delta_h, min|V'W^O| and LHS(12) of Theorem 3 through the
 * lm_num/lm_mat API, so that in Arb they are balls (see lm_t3ball.h). */
#include "lm_t3ball.h"

int lm_t3b_delta_h(lm_num *dh, const lm_mha *m)
{
    const int rows = m->N * m->n * m->n, cols = m->D * m->d;
    int rc = 0;
    for (int h = 0; h < m->H; h++) {
        if (cols < rows) { /* J_h is wide-rank-deficient: sigma_{Nn^2} = 0 exactly */
            lm_num_set_d(&dh[h], 0.0);
            continue;
        }
        lm_mat *J = lm_mat_new(rows, cols, &m->ctx);
        lm_mha_jacQ(J, m, h);
        rc |= lm_mat_smin(&dh[h], J);
        lm_mat_free(J);
    }
    return rc;
}

void lm_t3b_min_VWo(lm_num *r, const lm_mha *m)
{
    lm_num s, x, u;
    lm_num_inits(&m->ctx, &s, &x, &u, (lm_num *)NULL);
    int first = 1;
    for (int i = 0; i < m->N; i++)
        for (int h = 0; h < m->H; h++)
            for (int k = 0; k < m->n; k++) {
                lm_num_set_d(&s, 0.0);
                for (int a = 0; a < m->D; a++) {
                    lm_mat_get(&x, m->X[i], k, a);
                    lm_mat_get(&u, m->u, h * m->D + a, 0);
                    lm_num_fma(&s, &x, &u, &s);
                }
                lm_num_abs(&s, &s);
                /* lm_num_min is the rigorous arb_min: no branch on a midpoint */
                if (first) lm_num_set(r, &s);
                else lm_num_min(r, r, &s);
                first = 0;
            }
    lm_num_clears(&s, &x, &u, (lm_num *)NULL);
}

void lm_t3b_log_cond12(lm_num *r, const lm_dyn_nconsts *k, const lm_num *dh,
                       const lm_num *minVWo, int app)
{
    const lm_ctx *c = &k->ctx;
    lm_num lX, x2, base, t, e, q2;
    lm_num_inits(c, &lX, &x2, &base, &t, &e, &q2, (lm_num *)NULL);
    /* the head-independent part: log n + 5 log||X|| - 2 log minVWo + log lamV + log||W^O|| + log||r|| */
    lm_num_log(&lX, &k->nrmX);
    lm_num_set_si(&base, k->n);
    lm_num_log(&base, &base);
    lm_num_mul_d(&t, &lX, 5.0);
    lm_num_add(&base, &base, &t);
    lm_num_log(&t, minVWo);
    lm_num_mul_d(&t, &t, 2.0);
    lm_num_sub(&base, &base, &t);
    if (app) { /* 2/3 (1 + sigma_max(W^V)) */
        lm_num_add_d(&t, &k->sV, 1.0);
        lm_num_mul_d(&t, &t, 2.0);
        lm_num_div_d(&t, &t, 3.0);
        lm_num_log(&t, &t);
    } else {
        lm_num_log(&t, &k->sV);
    }
    lm_num_add(&base, &base, &t);
    lm_num_log(&t, &k->nrmWo);
    lm_num_add(&base, &base, &t);
    lm_num_log(&t, &k->nrm_r);
    lm_num_add(&base, &base, &t);
    lm_num_sqr(&x2, &k->nrmX);
    for (int h = 0; h < k->H; h++) {
        /* e = 9/4 ||X||^2 (lQ^2 + lK^2), in the exponent: kept as a log */
        lm_num_sqr(&q2, &k->sQ[h]);
        lm_num_fma(&q2, &k->sK[h], &k->sK[h], &q2);
        lm_num_mul(&e, &x2, &q2);
        lm_num_mul_d(&e, &e, 2.25);
        lm_num_add(&e, &e, &base);
        lm_num_add(&t, &k->sQ[h], &k->sK[h]);
        lm_num_log(&t, &t);
        lm_num_add(&e, &e, &t);
        lm_num_min(&t, &dh[h], &k->sQ[h]);
        lm_num_log(&t, &t);
        lm_num_sub(&e, &e, &t);
        if (h == 0) lm_num_set(r, &e);
        else lm_num_max(r, r, &e);
    }
    lm_num_clears(&lX, &x2, &base, &t, &e, &q2, (lm_num *)NULL);
}
