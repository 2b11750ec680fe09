/* dyn.c -- explicit constants of the dynamics paper (catalogue S5, S6). */
#include "lm_dyn.h"
#include <math.h>
#include <string.h>

static double frob_d(const lm_mat *A)
{
    lm_ctx c = lm_mat_ctx(A);
    lm_num x;
    lm_num_init(&x, &c);
    lm_mat_frob(&x, A);
    double v = lm_num_get_d(&x);
    lm_num_clear(&x);
    return v;
}

static int smax_d(double *out, const lm_mat *A)
{
    lm_ctx c = lm_mat_ctx(A);
    lm_num x;
    lm_num_init(&x, &c);
    int rc = lm_mat_smax(&x, A);
    *out = lm_num_get_d(&x);
    lm_num_clear(&x);
    return rc;
}

int lm_dyn_consts_eval(lm_dyn_consts *k, lm_mha *m, const lm_dyn_consts *bounds)
{
    const int N = m->N, n = m->n, H = m->H, d = m->d;
    if (N > LM_DYN_MAXN || H > LM_DYN_MAXH) return -1;
    memset(k, 0, sizeof *k);
    int rc = 0;
    lm_mha_forward(m);
    double sx = 0, sy = 0;
    for (int i = 0; i < N; i++) {
        k->nrmXi[i] = frob_d(m->X[i]);
        rc |= smax_d(&k->smaxXi[i], m->X[i]);
        sx += k->nrmXi[i] * k->nrmXi[i];
        double yy = 0;
        for (int j = 0; j < n; j++) yy += pow(lm_mat_get_d(m->y, i * n + j, 0), 2);
        k->nrmyi[i] = sqrt(yy);
        sy += yy;
    }
    k->nrmX = sqrt(sx);
    k->nrmy = sqrt(sy);
    k->nrmWo = frob_d(m->Wo);
    for (int h = 0; h < H; h++) {
        rc |= smax_d(&k->sQ[h], m->Wq[h]);
        rc |= smax_d(&k->sK[h], m->Wk[h]);
    }
    rc |= smax_d(&k->sV, m->Wv);
    if (bounds) {
        for (int h = 0; h < H; h++) { k->sQ[h] = bounds->sQ[h]; k->sK[h] = bounds->sK[h]; }
        k->sV = bounds->sV;
    }
    k->fval = lm_num_get_d(&m->f);
    k->nrm_r = frob_d(m->r);
    if (m->H * m->D >= N * n) {
        lm_mat *B = lm_mat_new(N * n, H * m->D, &m->ctx);
        lm_num x;
        lm_num_init(&x, &m->ctx);
        lm_mha_B(B, m);
        rc |= lm_mat_smin(&x, B);
        k->sminB = lm_num_get_d(&x);
        lm_num_clear(&x);
        lm_mat_free(B);
    }
    double sumK2 = 0, sumQ2 = 0;
    for (int h = 0; h < H; h++) { sumK2 += k->sK[h] * k->sK[h]; sumQ2 += k->sQ[h] * k->sQ[h]; }
    const double sqH = sqrt((double)H), sqd = sqrt((double)d);
    const double Wo = k->nrmWo, sV = k->sV;
    /* Lemma 2 and Lemma 3 (eqs. 89-100) */
    k->Rbar = (n * sqH * sV * k->nrmX * Wo + k->nrmy) * Wo * k->nrmX * sV;
    double mQ2 = 0, mK2 = 0, mX2 = 0, mLQ = 0, mLV = 0;
    for (int i = 0; i < N; i++) {
        double x = k->nrmXi[i];
        k->phi[i] = n / sqd * x * x * sqrt(sumK2);
        k->psi[i] = n / sqd * x * x * sqrt(sumQ2);
        k->Qi[i] = n * sqH * x * x * x * Wo * sqrt(sumK2) * sV;
        k->Ki[i] = n * sqH * x * x * x * Wo * sqrt(sumQ2) * sV;
        k->Zi[i] = sqrt(k->Qi[i] * k->Qi[i] + k->Ki[i] * k->Ki[i] +
                        (double)(n * n * H) * k->smaxXi[i] * k->smaxXi[i] * Wo * Wo);
        double lin = (n * sqH * sV * x * Wo + k->nrmyi[i]) * x * Wo;
        k->Pi[i] = k->Zi[i] * x * sV * Wo + lin;
        double pp = sqrt(k->phi[i] * k->phi[i] + k->psi[i] * k->psi[i]);
        k->LQ[i] = n * sqH * k->Pi[i] + 2 * k->Rbar * n * sqH * pp;
        k->LV[i] = pp * x * Wo * (n * sqH * sV * x * Wo + k->nrmyi[i]) + n * sqH * Wo * k->Zi[i];
        mQ2 = fmax(mQ2, k->Qi[i] * k->Qi[i]);
        mK2 = fmax(mK2, k->Ki[i] * k->Ki[i]);
        mX2 = fmax(mX2, x * x);
        mLQ = fmax(mLQ, k->LQ[i]);
        mLV = fmax(mLV, k->LV[i]);
        k->Z89 += k->Zi[i];
    }
    k->Z90 = N * sqrt(mQ2 + mK2 + (double)(n * n * H) * mX2);
    k->G = N * (mLQ + mLQ + mLV);
    /* Lemma 7/8 (Gaussian) */
    double mQp2 = 0, mLQp = 0;
    for (int i = 0; i < N; i++)
        for (int h = 0; h < H; h++) {
            double x = k->nrmXi[i];
            double q = sqrt(2.0 * n / d) * x * x * x * Wo * sV *
                       sqrt(k->sQ[h] * k->sQ[h] + k->sK[h] * k->sK[h]);
            k->Qp[i * H + h] = q;
            mQp2 = fmax(mQp2, q * q);
        }
    k->Zp = N * sqrt(mQp2 + mQp2 + (double)(n * n * H) * mX2 * Wo * Wo);
    for (int i = 0; i < N; i++)
        for (int h = 0; h < H; h++) {
            double x = k->nrmXi[i], q = k->Qp[i * H + h];
            double Zpi = sqrt(q * q + q * q + (double)(n * n * H) * x * x * Wo * Wo);
            double Pp = Zpi * x * sV * Wo + (n * sqH * sV * x * Wo + k->nrmyi[i]) * x * Wo;
            double s = k->sQ[h] + k->sK[h], sn = sqrt((double)n);
            double L = k->Rbar * sn * x * x + sn * x * x * s * (Pp + sn * k->Rbar * x * x * s);
            mLQp = fmax(mLQp, L);
        }
    k->Gp = N * mLQp;
    k->Gp3 = 3 * k->Gp;
    return rc;
}

void lm_dyn_induction_bounds(lm_dyn_consts *b, const lm_dyn_consts *k0, int H, int app)
{
    memset(b, 0, sizeof *b);
    for (int h = 0; h < H; h++) { b->sQ[h] = 1.5 * k0->sQ[h]; b->sK[h] = 1.5 * k0->sK[h]; }
    b->sV = app ? 1.0 + k0->sV : 1.5 * k0->sV;
}

int lm_dyn_t3_eval(lm_dyn_t3 *t, lm_mha *m, const lm_dyn_consts *k)
{
    memset(t, 0, sizeof *t);
    int rc = 0;
    const int rows = m->N * m->n * m->n, cols = m->D * m->d;
    lm_mha_forward(m);
    t->delta = INFINITY;
    for (int h = 0; h < m->H; h++) {
        if (cols >= rows) {
            lm_mat *J = lm_mat_new(rows, cols, &m->ctx);
            lm_num x;
            lm_num_init(&x, &m->ctx);
            lm_mha_jacQ(J, m, h);
            rc |= lm_mat_smin(&x, J);
            t->delta_h[h] = lm_num_get_d(&x);
            lm_num_clear(&x);
            lm_mat_free(J);
        }
        t->delta = fmin(t->delta, t->delta_h[h]);
    }
    /* min |V'W^O|: entries (X_i u_h)_k */
    t->minVWo = INFINITY;
    for (int i = 0; i < m->N; i++)
        for (int h = 0; h < m->H; h++)
            for (int kk = 0; kk < m->n; kk++) {
                double s = 0;
                for (int a = 0; a < m->D; a++)
                    s += lm_mat_get_d(m->X[i], kk, a) * lm_mat_get_d(m->u, h * m->D + a, 0);
                t->minVWo = fmin(t->minVWo, fabs(s));
            }
    double worst = INFINITY;
    for (int h = 0; h < m->H; h++)
        worst = fmin(worst, -2.25 * k->nrmX * k->nrmX * (k->sQ[h] * k->sQ[h] + k->sK[h] * k->sK[h]));
    t->log_kappa = worst;
    t->log_gamma = log(0.5) + 2 * log(t->delta) + 2 * t->log_kappa + 2 * log(t->minVWo);
    return rc;
}

static double lamV(const lm_dyn_consts *k, int app) { return app ? (2.0 / 3.0) * (1 + k->sV) : k->sV; }

double lm_dyn_log_cond8(const lm_dyn_consts *k, int H, int n, int N, int app)
{
    double s = 0, mn = INFINITY;
    for (int h = 0; h < H; h++) {
        s += k->sQ[h] * k->sQ[h] + k->sK[h] * k->sK[h];
        mn = fmin(mn, fmin(fmin(k->sQ[h], k->sK[h]), k->sminB));
    }
    return 2 * log((double)n) + 0.5 * log((double)N * H) + 5 * log(k->nrmX) + log(s) +
           log(lamV(k, app)) - log(k->nrmWo) - 2 * log(k->sminB) - log(mn) + log(k->nrm_r);
}

double lm_dyn_log_cond46(const lm_dyn_consts *k, int H, int n, int N, int app, int with_r)
{
    double s = 0, mn = INFINITY;
    for (int h = 0; h < H; h++) {
        s += k->sQ[h] * k->sQ[h] + k->sK[h] * k->sK[h];
        mn = fmin(mn, fmin(fmin(k->sQ[h], k->sK[h]), fmin(1.0, k->sminB)));
    }
    double l = log(54.0) + 2 * log((double)n) + 0.5 * log((double)N * H) + 6 * log(k->nrmX) +
               log(lamV(k, app)) + log(s) - 2 * log(k->sminB) - log(k->nrmWo) - log(mn);
    return with_r ? l + log(k->nrm_r) : l;
}

double lm_dyn_log_cond12(const lm_dyn_consts *k, const lm_dyn_t3 *t, int H, int n, int app)
{
    double worst = -INFINITY;
    for (int h = 0; h < H; h++) {
        double e = 2.25 * k->nrmX * k->nrmX * (k->sQ[h] * k->sQ[h] + k->sK[h] * k->sK[h]);
        double l = log((double)n) + 5 * log(k->nrmX) + log(k->sQ[h] + k->sK[h]) + e -
                   2 * log(t->minVWo) - log(fmin(t->delta_h[h], k->sQ[h])) +
                   log(lamV(k, app)) + log(k->nrmWo) + log(k->nrm_r);
        worst = fmax(worst, l);
    }
    return worst;
}

double lm_dyn_log_cond12app(const lm_dyn_consts *k, const lm_dyn_t3 *t, int H, int n, int app)
{
    double worst = -INFINITY;
    for (int h = 0; h < H; h++) {
        double e = 2.25 * k->nrmX * k->nrmX * (k->sQ[h] * k->sQ[h] + k->sK[h] * k->sK[h]);
        double l = log(8.0 * n) + 5 * log(k->nrmX) + log(k->nrmWo) + log(lamV(k, app)) +
                   log(k->sQ[h] + k->sK[h]) + e - 2 * log(t->delta) - 2 * log(t->minVWo) -
                   log(fmin(t->delta, k->sQ[h])) + log(k->nrm_r);
        worst = fmax(worst, l);
    }
    return worst;
}
