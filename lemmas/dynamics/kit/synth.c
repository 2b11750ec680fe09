/* synth.c -- the synthetic proxy of the paper's experiments (catalogue R4/R5);
 * see lm_synth.h. */
#include "lm_synth.h"
#include <math.h>

lm_mha *lm_synth_student(lm_eval *ev, const lm_synth_setup *s)
{
    lm_rng *g = lm_eval_rng(ev);
    lm_mha *st = lm_mha_new(s->N, s->n, s->D, s->d, s->H, LM_SOFTMAX, s->wv, ev->ctx);
    st->cG = s->cG;
    lm_mha_randomize(st, g, s->sX, s->sQK, 1.0, 1.0);
    /* teacher: same X and W^O, independent W^Q*, W^K*, W^V* */
    lm_mha *te = lm_mha_convert(st, ev->ctx);
    lm_mha *tmp = lm_mha_new(s->N, s->n, s->D, s->d, s->H, LM_SOFTMAX, s->wv, ev->ctx);
    lm_mha_randomize(tmp, g, s->sX, s->sQK, 1.0, 1.0);
    for (int h = 0; h < s->H; h++) {
        lm_mat_copy(te->Wq[h], tmp->Wq[h]);
        lm_mat_copy(te->Wk[h], tmp->Wk[h]);
    }
    lm_mat_copy(te->Wv, tmp->Wv);
    lm_mha_free(tmp);
    lm_mat_zero(st->y);
    for (int k = 0; k < 2; k++) {
        if (s->teacher == 1 && k == 1) continue;
        if (s->teacher == 2 && k == 0) continue;
        te->kernel = k ? LM_GAUSS : LM_SOFTMAX;
        lm_mha_forward(te);
        lm_mat_axpy_d(st->y, s->teacher == 0 ? 0.5 : 1.0, te->mh);
    }
    lm_mha_free(te);
    return st;
}

double lm_synth_gn_lmax(lm_mha *m, int mask)
{
    const lm_ctx *c = &m->ctx;
    const int P = lm_mha_nparams(m, mask), Nn = m->N * m->n;
    lm_mat *th = lm_mat_new(P, 1, c), *J = lm_mat_new(Nn, P, c), *K = lm_mat_new(Nn, Nn, c);
    lm_mat *mp = lm_mat_new(Nn, 1, c);
    lm_num *w = lm_nums_new(Nn, c);
    lm_mha_get_params(th, m, mask);
    for (int p = 0; p < P; p++) {
        const double x = lm_mat_get_d(th, p, 0), h = 1e-6 * (1.0 + fabs(x));
        lm_mat_set_d(th, p, 0, x + h);
        lm_mha_set_params(m, mask, th);
        lm_mha_forward(m);
        lm_mat_copy(mp, m->mh);
        lm_mat_set_d(th, p, 0, x - h);
        lm_mha_set_params(m, mask, th);
        lm_mha_forward(m);
        for (int i = 0; i < Nn; i++)
            lm_mat_set_d(J, i, p, (lm_mat_get_d(mp, i, 0) - lm_mat_get_d(m->mh, i, 0)) / (2 * h));
        lm_mat_set_d(th, p, 0, x);
    }
    lm_mha_set_params(m, mask, th);
    lm_mha_forward(m);
    lm_mat_mul(K, J, 0, J, 1);
    double l = lm_mat_symeig(w, NULL, K) ? (double)NAN : lm_num_get_d(&w[Nn - 1]);
    lm_nums_free(w, Nn);
    lm_mat_free(th), lm_mat_free(J), lm_mat_free(K), lm_mat_free(mp);
    return l;
}

int lm_synth_seeds(const lm_eval *ev)
{
    int seeds = ev->quick ? 3 : lm_par_i(ev, "seeds");
    if (seeds < 1) seeds = 1;
    if (seeds > 64) seeds = 64;
    return seeds;
}

int lm_synth_steps(const lm_eval *ev, int T, int Tmin)
{
    int t = (int)lrint(T * (ev->budget / 128.0));
    if (t > T) t = T;
    if (t < Tmin) t = Tmin;
    return t;
}
