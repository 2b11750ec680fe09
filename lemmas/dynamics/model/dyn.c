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

/* ---- the constants in a precision context ---- */

void lm_dyn_nconsts_init(lm_dyn_nconsts *k, const lm_mha *m)
{
    memset(k, 0, sizeof *k);
    k->ctx = m->ctx;
    k->N = m->N; k->n = m->n; k->d = m->d; k->H = m->H;
    k->nrmXi = lm_nums_new(k->N, &k->ctx);
    k->smaxXi = lm_nums_new(k->N, &k->ctx);
    k->nrmyi = lm_nums_new(k->N, &k->ctx);
    k->sQ = lm_nums_new(k->H, &k->ctx);
    k->sK = lm_nums_new(k->H, &k->ctx);
    lm_num_inits(&k->ctx, &k->nrmX, &k->nrmy, &k->nrmWo, &k->sV, &k->sminB, &k->nrm_r, &k->Rbar,
                 &k->Z90, &k->Z89, &k->G, &k->Zp, &k->Gp, &k->Gp3, (lm_num *)NULL);
}

void lm_dyn_nconsts_clear(lm_dyn_nconsts *k)
{
    if (!k->nrmXi) return;
    lm_nums_free(k->nrmXi, k->N);
    lm_nums_free(k->smaxXi, k->N);
    lm_nums_free(k->nrmyi, k->N);
    lm_nums_free(k->sQ, k->H);
    lm_nums_free(k->sK, k->H);
    lm_num_clears(&k->nrmX, &k->nrmy, &k->nrmWo, &k->sV, &k->sminB, &k->nrm_r, &k->Rbar, &k->Z90,
                  &k->Z89, &k->G, &k->Zp, &k->Gp, &k->Gp3, (lm_num *)NULL);
    k->nrmXi = NULL;
}

int lm_dyn_nconsts_norms(lm_dyn_nconsts *k, lm_mha *m, int with_B)
{
    const int N = k->N, n = k->n;
    int rc = 0;
    lm_num t;
    lm_num_init(&t, &k->ctx);
    lm_mat *yi = lm_mat_new(n, 1, &k->ctx);
    lm_num_set_d(&k->nrmX, 0.0);
    for (int i = 0; i < N; i++) {
        lm_mat_frob(&k->nrmXi[i], m->X[i]);
        rc |= lm_mat_smax(&k->smaxXi[i], m->X[i]);
        lm_num_sqr(&t, &k->nrmXi[i]);
        lm_num_add(&k->nrmX, &k->nrmX, &t);
        lm_mat_get_block(yi, m->y, i * n, 0);
        lm_mat_frob(&k->nrmyi[i], yi);
    }
    lm_num_sqrt(&k->nrmX, &k->nrmX);
    lm_mat_frob(&k->nrmy, m->y);
    lm_mat_frob(&k->nrmWo, m->Wo);
    for (int h = 0; h < k->H; h++) {
        rc |= lm_mat_smax(&k->sQ[h], m->Wq[h]);
        rc |= lm_mat_smax(&k->sK[h], m->Wk[h]);
    }
    rc |= lm_mat_smax(&k->sV, m->Wv);
    lm_num_set_d(&k->sminB, 0.0);
    lm_num_set_d(&k->nrm_r, 0.0);
    if (with_B) {
        lm_mha_forward(m);
        lm_mat_frob(&k->nrm_r, m->r);
        if (m->H * m->D >= N * n) {
            lm_mat *B = lm_mat_new(N * n, m->H * m->D, &k->ctx);
            lm_mha_B(B, m);
            rc |= lm_mat_smin(&k->sminB, B);
            lm_mat_free(B);
        }
    }
    lm_mat_free(yi);
    lm_num_clear(&t);
    return rc;
}

void lm_dyn_nconsts_induction(lm_dyn_nconsts *k, const lm_dyn_nconsts *k0, int app)
{
    for (int h = 0; h < k->H; h++) {
        lm_num_mul_d(&k->sQ[h], &k0->sQ[h], 1.5);
        lm_num_mul_d(&k->sK[h], &k0->sK[h], 1.5);
    }
    if (app) lm_num_add_d(&k->sV, &k0->sV, 1.0);
    else lm_num_mul_d(&k->sV, &k0->sV, 1.5);
}

/* r = sqrt(a^2 + b^2 + c) */
static void hyp3(lm_num *r, const lm_num *a, const lm_num *b, const lm_num *c, lm_num *t)
{
    lm_num_sqr(t, a);
    lm_num_fma(r, b, b, t);
    lm_num_add(r, r, c);
    lm_num_sqrt(r, r);
}

void lm_dyn_nconsts_derive(lm_dyn_nconsts *k)
{
    const lm_ctx *c = &k->ctx;
    const int N = k->N, n = k->n, H = k->H;
    lm_num sqH, nsqH, nsqd, sumK2, sumQ2, rK, rQ, t, u, w, x, x2, x3;
    lm_num phi, psi, Qi, Ki, Zi, lin, Pi, pp, LQ, LV, mQ2, mK2, mX2, mLQ, mLV, n2H, Wo, sV;
    lm_num_inits(c, &sqH, &nsqH, &nsqd, &sumK2, &sumQ2, &rK, &rQ, &t, &u, &w, &x, &x2, &x3, &phi, &psi,
                 &Qi, &Ki, &Zi, &lin, &Pi, &pp, &LQ, &LV, &mQ2, &mK2, &mX2, &mLQ, &mLV, &n2H, &Wo, &sV,
                 (lm_num *)NULL);
    lm_num_set(&Wo, &k->nrmWo);
    lm_num_set(&sV, &k->sV);
    lm_num_set_si(&sqH, H);
    lm_num_sqrt(&sqH, &sqH);
    lm_num_mul_d(&nsqH, &sqH, (double)n);          /* n sqrt(H) */
    lm_num_set_si(&nsqd, k->d);
    lm_num_sqrt(&nsqd, &nsqd);
    lm_num_set_si(&t, n);
    lm_num_div(&nsqd, &t, &nsqd);                  /* n / sqrt(d) */
    lm_num_set_si(&n2H, (long)n * n * H);
    lm_num_set_d(&sumK2, 0.0);
    lm_num_set_d(&sumQ2, 0.0);
    for (int h = 0; h < H; h++) {
        lm_num_fma(&sumK2, &k->sK[h], &k->sK[h], &sumK2);
        lm_num_fma(&sumQ2, &k->sQ[h], &k->sQ[h], &sumQ2);
    }
    lm_num_sqrt(&rK, &sumK2);
    lm_num_sqrt(&rQ, &sumQ2);
    /* Rbar = (n sqH sV ||X|| Wo + ||y||) Wo ||X|| sV */
    lm_num_mul(&t, &nsqH, &sV);
    lm_num_mul(&t, &t, &k->nrmX);
    lm_num_mul(&t, &t, &Wo);
    lm_num_add(&t, &t, &k->nrmy);
    lm_num_mul(&t, &t, &Wo);
    lm_num_mul(&t, &t, &k->nrmX);
    lm_num_mul(&k->Rbar, &t, &sV);
    lm_num_set_d(&mQ2, 0.0); lm_num_set_d(&mK2, 0.0); lm_num_set_d(&mX2, 0.0);
    lm_num_set_d(&mLQ, 0.0); lm_num_set_d(&mLV, 0.0); lm_num_set_d(&k->Z89, 0.0);
    for (int i = 0; i < N; i++) {
        lm_num_set(&x, &k->nrmXi[i]);
        lm_num_sqr(&x2, &x);
        lm_num_mul(&x3, &x2, &x);
        lm_num_mul(&t, &nsqd, &x2);
        lm_num_mul(&phi, &t, &rK);
        lm_num_mul(&psi, &t, &rQ);
        lm_num_mul(&t, &nsqH, &x3);
        lm_num_mul(&t, &t, &Wo);
        lm_num_mul(&Qi, &t, &rK);
        lm_num_mul(&Qi, &Qi, &sV);
        lm_num_mul(&Ki, &t, &rQ);
        lm_num_mul(&Ki, &Ki, &sV);
        lm_num_mul(&t, &k->smaxXi[i], &Wo);
        lm_num_sqr(&t, &t);
        lm_num_mul(&t, &t, &n2H);
        hyp3(&Zi, &Qi, &Ki, &t, &u);
        /* lin = (n sqH sV x Wo + ||y_i||) x Wo */
        lm_num_mul(&w, &nsqH, &sV);
        lm_num_mul(&w, &w, &x);
        lm_num_mul(&w, &w, &Wo);
        lm_num_add(&w, &w, &k->nrmyi[i]);          /* kept: also in LV */
        lm_num_mul(&lin, &w, &x);
        lm_num_mul(&lin, &lin, &Wo);
        lm_num_mul(&Pi, &Zi, &x);
        lm_num_mul(&Pi, &Pi, &sV);
        lm_num_mul(&Pi, &Pi, &Wo);
        lm_num_add(&Pi, &Pi, &lin);
        lm_num_sqr(&t, &phi);
        lm_num_fma(&pp, &psi, &psi, &t);
        lm_num_sqrt(&pp, &pp);
        /* LQ = n sqH Pi + 2 Rbar n sqH pp */
        lm_num_mul(&t, &k->Rbar, &nsqH);
        lm_num_mul(&t, &t, &pp);
        lm_num_mul_d(&t, &t, 2.0);
        lm_num_fma(&LQ, &nsqH, &Pi, &t);
        /* LV = pp x Wo (n sqH sV x Wo + ||y_i||) + n sqH Wo Zi */
        lm_num_mul(&LV, &pp, &x);
        lm_num_mul(&LV, &LV, &Wo);
        lm_num_mul(&LV, &LV, &w);
        lm_num_mul(&t, &nsqH, &Wo);
        lm_num_fma(&LV, &t, &Zi, &LV);
        lm_num_sqr(&t, &Qi);
        lm_num_max(&mQ2, &mQ2, &t);
        lm_num_sqr(&t, &Ki);
        lm_num_max(&mK2, &mK2, &t);
        lm_num_max(&mX2, &mX2, &x2);
        lm_num_max(&mLQ, &mLQ, &LQ);
        lm_num_max(&mLV, &mLV, &LV);
        lm_num_add(&k->Z89, &k->Z89, &Zi);
    }
    /* Z90 = N sqrt(mQ2 + mK2 + n^2 H mX2); G = N (2 mLQ + mLV) */
    lm_num_mul(&t, &n2H, &mX2);
    lm_num_add(&t, &t, &mQ2);
    lm_num_add(&t, &t, &mK2);
    lm_num_sqrt(&t, &t);
    lm_num_mul_d(&k->Z90, &t, (double)N);
    lm_num_mul_d(&t, &mLQ, 2.0);
    lm_num_add(&t, &t, &mLV);
    lm_num_mul_d(&k->G, &t, (double)N);
    /* Lemma 7/8: q_ih = sqrt(2n/d) x^3 Wo sV sqrt(sQ_h^2 + sK_h^2) */
    lm_num sq2nd, sn, q, s, mQp2, mLQp, zero;
    lm_num_inits(c, &sq2nd, &sn, &q, &s, &mQp2, &mLQp, &zero, (lm_num *)NULL);
    lm_num_set_si(&sq2nd, 2L * n);
    lm_num_div_d(&sq2nd, &sq2nd, (double)k->d);
    lm_num_sqrt(&sq2nd, &sq2nd);
    lm_num_set_si(&sn, n);
    lm_num_sqrt(&sn, &sn);
    lm_num_set_d(&mQp2, 0.0);
    lm_num_set_d(&mLQp, 0.0);
    lm_num_set_d(&zero, 0.0);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < N; i++)
            for (int h = 0; h < H; h++) {
                lm_num_set(&x, &k->nrmXi[i]);
                lm_num_sqr(&x2, &x);
                lm_num_mul(&x3, &x2, &x);
                hyp3(&u, &k->sQ[h], &k->sK[h], &zero, &t);
                lm_num_mul(&q, &sq2nd, &x3);
                lm_num_mul(&q, &q, &Wo);
                lm_num_mul(&q, &q, &sV);
                lm_num_mul(&q, &q, &u);
                if (pass == 0) {
                    lm_num_sqr(&t, &q);
                    lm_num_max(&mQp2, &mQp2, &t);
                    continue;
                }
                /* Zpi = sqrt(2 q^2 + n^2 H x^2 Wo^2) */
                lm_num_mul(&t, &x, &Wo);
                lm_num_sqr(&t, &t);
                lm_num_mul(&t, &t, &n2H);
                hyp3(&Zi, &q, &q, &t, &u);
                /* Pp = Zpi x sV Wo + (n sqH sV x Wo + ||y_i||) x Wo */
                lm_num_mul(&w, &nsqH, &sV);
                lm_num_mul(&w, &w, &x);
                lm_num_mul(&w, &w, &Wo);
                lm_num_add(&w, &w, &k->nrmyi[i]);
                lm_num_mul(&w, &w, &x);
                lm_num_mul(&w, &w, &Wo);
                lm_num_mul(&Pi, &Zi, &x);
                lm_num_mul(&Pi, &Pi, &sV);
                lm_num_mul(&Pi, &Pi, &Wo);
                lm_num_add(&Pi, &Pi, &w);
                /* L = Rbar sn x^2 + sn x^2 s (Pp + sn Rbar x^2 s), s = sQ_h + sK_h */
                lm_num_add(&s, &k->sQ[h], &k->sK[h]);
                lm_num_mul(&u, &sn, &x2);             /* sn x^2 */
                lm_num_mul(&t, &u, &k->Rbar);
                lm_num_mul(&t, &t, &s);
                lm_num_add(&t, &t, &Pi);
                lm_num_mul(&t, &t, &u);
                lm_num_mul(&t, &t, &s);
                lm_num_fma(&t, &k->Rbar, &u, &t);
                lm_num_max(&mLQp, &mLQp, &t);
            }
    /* Zp = N sqrt(2 mQp2 + n^2 H mX2 Wo^2) */
    lm_num_sqr(&t, &Wo);
    lm_num_mul(&t, &t, &mX2);
    lm_num_mul(&t, &t, &n2H);
    lm_num_mul_d(&u, &mQp2, 2.0);
    lm_num_add(&t, &t, &u);
    lm_num_sqrt(&t, &t);
    lm_num_mul_d(&k->Zp, &t, (double)N);
    lm_num_mul_d(&k->Gp, &mLQp, (double)N);
    lm_num_mul_d(&k->Gp3, &k->Gp, 3.0);
    lm_num_clears(&sq2nd, &sn, &q, &s, &mQp2, &mLQp, &zero, (lm_num *)NULL);
    lm_num_clears(&sqH, &nsqH, &nsqd, &sumK2, &sumQ2, &rK, &rQ, &t, &u, &w, &x, &x2, &x3, &phi, &psi,
                  &Qi, &Ki, &Zi, &lin, &Pi, &pp, &LQ, &LV, &mQ2, &mK2, &mX2, &mLQ, &mLV, &n2H, &Wo, &sV,
                  (lm_num *)NULL);
}

void lm_dyn_nconsts_cond(lm_num *r, const lm_dyn_nconsts *k, int cond, int app, int with_r)
{
    const lm_ctx *c = &k->ctx;
    const int H = k->H, n = k->n, N = k->N;
    lm_num s, mn, t, one, lam;
    lm_num_inits(c, &s, &mn, &t, &one, &lam, (lm_num *)NULL);
    lm_num_set_d(&one, 1.0);
    lm_num_set_d(&s, 0.0);
    for (int h = 0; h < H; h++) {
        lm_num_sqr(&t, &k->sQ[h]);
        lm_num_add(&s, &s, &t);
        lm_num_sqr(&t, &k->sK[h]);
        lm_num_add(&s, &s, &t);
        lm_num_min(&t, &k->sQ[h], &k->sK[h]);
        lm_num_min(&t, &t, &k->sminB);
        if (cond == 46) lm_num_min(&t, &t, &one);
        if (h == 0) lm_num_set(&mn, &t);
        else lm_num_min(&mn, &mn, &t);
    }
    if (app) { /* 2/3 (1 + sigma_max(W^V)) */
        lm_num_add_d(&lam, &k->sV, 1.0);
        lm_num_mul_d(&lam, &lam, 2.0);
        lm_num_div_d(&lam, &lam, 3.0);
    } else {
        lm_num_set(&lam, &k->sV);
    }
    /* (8): n^2 sqrt(NH) ||X||^5 s lam / (Wo sminB^2 mn) * ||r||;
     * (46): 54 n^2 sqrt(NH) ||X||^6 lam s / (sminB^2 Wo mn) [* ||r||] */
    lm_num_set_si(r, (long)N * H);
    lm_num_sqrt(r, r);
    lm_num_mul_d(r, r, (double)n * n);
    if (cond == 46) lm_num_mul_d(r, r, 54.0);
    lm_num_pow_si(&t, &k->nrmX, cond == 46 ? 6 : 5);
    lm_num_mul(r, r, &t);
    lm_num_mul(r, r, &s);
    lm_num_mul(r, r, &lam);
    lm_num_sqr(&t, &k->sminB);
    lm_num_mul(&t, &t, &k->nrmWo);
    lm_num_mul(&t, &t, &mn);
    lm_num_div(r, r, &t);
    if (cond == 8 || with_r) lm_num_mul(r, r, &k->nrm_r);
    lm_num_clears(&s, &mn, &t, &one, &lam, (lm_num *)NULL);
}
