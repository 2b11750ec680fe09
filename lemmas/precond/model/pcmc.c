/* src/models/pcmc.c -- see lm_pcmc.h */
#include "lm_pcmc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double *dalloc(int n)
{
    return lm_xcalloc((size_t)(n > 0 ? n : 1), sizeof(double));
}

lm_pcmc *lm_pcmc_new(const lm_pcdata *P, int N, const double *xj, const double *WKQ)
{
    int d = P->d;
    lm_pcmc *m = lm_xcalloc(1, sizeof *m);
    m->N = N;
    m->d = d;
    m->Sig = dalloc(d * d);
    m->L = dalloc(d * d);
    m->W = dalloc(d * d);
    m->xj = dalloc(d);
    m->a = dalloc(d);
    m->mu = dalloc(d);
    m->X = dalloc(N * d);
    m->p = dalloc(N);
    m->z = dalloc(d);
    m->C = dalloc(d * d);
    lm_mat_get_array(m->Sig, P->Sig);
    lm_mat_get_array(m->L, P->Lc);
    memcpy(m->W, WKQ, sizeof(double) * (size_t)(d * d));
    lm_pcmc_set_query(m, xj);
    return m;
}

void lm_pcmc_free(lm_pcmc *m)
{
    if (!m) return;
    free(m->Sig); free(m->L); free(m->W); free(m->xj); free(m->a); free(m->mu);
    free(m->X); free(m->p); free(m->z); free(m->C);
    free(m);
}

void lm_pcmc_set_query(lm_pcmc *m, const double *xj)
{
    int d = m->d;
    memcpy(m->xj, xj, sizeof(double) * (size_t)d);
    m->q = 0;
    for (int a = 0; a < d; a++) {
        double v = 0;
        for (int b = 0; b < d; b++) v += m->W[a * d + b] * xj[b];
        m->a[a] = v;
        m->q += xj[a] * v;
    }
    m->s = 0;
    for (int a = 0; a < d; a++) {
        double v = 0;
        for (int b = 0; b < d; b++) v += m->Sig[a * d + b] * m->a[b];
        m->mu[a] = v;
        m->s += m->a[a] * v;
    }
    memcpy(m->X, xj, sizeof(double) * (size_t)d);
}

void lm_pcmc_sample_x(const lm_pcmc *m, double *x, lm_rng *g)
{
    int d = m->d;
    double xi[64];
    double *t = d <= 64 ? xi : dalloc(d);
    for (int a = 0; a < d; a++) t[a] = lm_rng_normal(g);
    for (int a = 0; a < d; a++) {
        double v = 0;
        for (int b = 0; b <= a; b++) v += m->L[a * d + b] * t[b];
        x[a] = v;
    }
    if (t != xi) free(t);
}

void lm_pcmc_draw(lm_pcmc *m, lm_rng *g)
{
    int N = m->N, d = m->d;
    for (int i = 1; i < N; i++) lm_pcmc_sample_x(m, m->X + (size_t)i * (size_t)d, g);
    /* logits l_i = x_i . a_j; log-sum-exp */
    double mx = -HUGE_VAL;
    for (int i = 0; i < N; i++) {
        double l = 0;
        for (int a = 0; a < d; a++) l += m->X[i * d + a] * m->a[a];
        m->p[i] = l;
        if (l > mx) mx = l;
    }
    double s = 0;
    for (int i = 0; i < N; i++) {
        m->p[i] = exp(m->p[i] - mx);
        s += m->p[i];
    }
    for (int i = 0; i < N; i++) m->p[i] /= s;
    for (int a = 0; a < d; a++) {
        double v = 0;
        for (int i = 0; i < N; i++) v += m->p[i] * m->X[i * d + a];
        m->z[a] = v;
    }
    memset(m->C, 0, sizeof(double) * (size_t)(d * d));
    for (int i = 0; i < N; i++)
        for (int a = 0; a < d; a++) {
            double da = m->X[i * d + a] - m->z[a];
            for (int b = 0; b < d; b++) m->C[a * d + b] += m->p[i] * da * (m->X[i * d + b] - m->z[b]);
        }
}
