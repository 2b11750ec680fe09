/* pctr.c -- training runs of the preconditioning paper (see lm_pctr.h). */
#include "lm_stats.h"
#include "lm_pctr.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static lm_mat *mnew(int r, int c, const lm_ctx *ctx)
{
    return lm_mat_new(r, c, ctx);
}

/* ------------------------------------------------------------ statistics */

int lm_pctr_fit(double *b, double *se, double *a, const double *x, const double *y, int n)
{
    lm_fit f;
    if (n < 3 || lm_fit_line(&f, x, y, n, 0.95)) return -1;
    *b = f.slope;
    if (a) *a = f.intercept;
    if (se) *se = f.se;
    return 0;
}

static int cmpd(const void *p, const void *q)
{
    double a = *(const double *)p, b = *(const double *)q;
    return (a > b) - (a < b);
}

double lm_pctr_quantile(double *v, int n, double q)
{
    if (n <= 0) return 0.0;
    qsort(v, (size_t)n, sizeof *v, cmpd);
    int i = (int)ceil(q * n) - 1;
    if (i < 0) i = 0;
    if (i > n - 1) i = n - 1;
    return v[i];
}

double lm_pctr_median(double *v, int n)
{
    if (n <= 0) return 0.0;
    qsort(v, (size_t)n, sizeof *v, cmpd);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double wilson(long k, long m, double z, int up)
{
    if (m <= 0) return up ? 1.0 : 0.0;
    double p = (double)k / (double)m, z2 = z * z, den = 1 + z2 / m;
    double c = (p + z2 / (2.0 * m)) / den;
    double h = z * sqrt(p * (1 - p) / m + z2 / (4.0 * m * m)) / den;
    double r = up ? c + h : c - h;
    return r < 0 ? 0.0 : r > 1 ? 1.0 : r;
}

double lm_pctr_wilson_lo(long k, long m, double z)
{
    return wilson(k, m, z, 0);
}

double lm_pctr_wilson_hi(long k, long m, double z)
{
    return wilson(k, m, z, 1);
}

/* ------------------------------------------------------------ sampling */

static double gamma1(lm_rng *g, double a) /* Marsaglia-Tsang, a >= 1 */
{
    double d = a - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x = lm_rng_normal(g), v = 1.0 + c * x;
        if (v <= 0) continue;
        v = v * v * v;
        double u = lm_rng_uniform(g);
        if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
        if (log(u) < 0.5 * x * x + d * (1.0 - v + log(v))) return d * v;
    }
}

double lm_pctr_chi2(lm_rng *g, double nu)
{
    double a = 0.5 * nu;
    if (a >= 1.0) return 2.0 * gamma1(g, a);
    double u = lm_rng_uniform(g);
    return 2.0 * gamma1(g, a + 1.0) * pow(u, 1.0 / a);
}

int lm_pctr_suffstat(lm_mat *Shat, lm_mat *What, const lm_pcdata *P, double N, lm_rng *g)
{
    int d = P->d, k = P->k;
    if (N < d + 1) return 1;
    double *L = lm_xcalloc((size_t)(d * d), sizeof(double)), *A = lm_xcalloc((size_t)(d * d), sizeof(double));
    double *C = lm_xcalloc((size_t)(d * d), sizeof(double)), *S = lm_xcalloc((size_t)(d * d), sizeof(double));
    double *W = lm_xcalloc((size_t)(k * d), sizeof(double)), *Z = lm_xcalloc((size_t)(k * d), sizeof(double));
    lm_mat_get_array(L, P->Lc);
    lm_mat_get_array(W, P->Ws);
    for (int i = 0; i < d; i++) {
        A[i * d + i] = sqrt(lm_pctr_chi2(g, N - i));
        for (int j = 0; j < i; j++) A[i * d + j] = lm_rng_normal(g);
    }
    for (int i = 0; i < k * d; i++) Z[i] = lm_rng_normal(g);
    for (int i = 0; i < d; i++) /* C = L A (lower triangular) */
        for (int j = 0; j <= i; j++) {
            double v = 0;
            for (int q = j; q <= i; q++) v += L[i * d + q] * A[q * d + j];
            C[i * d + j] = v;
        }
    for (int i = 0; i < d; i++)
        for (int j = 0; j <= i; j++) {
            double v = 0;
            for (int q = 0; q <= j; q++) v += C[i * d + q] * C[j * d + q];
            S[i * d + j] = S[j * d + i] = v / N;
        }
    int rc = 0;
    for (int i = 0; i < d; i++) rc |= !(C[i * d + i] > 0) || !isfinite(C[i * d + i]);
    /* W_hat = W* + sigma Z C^{-1}: solve Y C = Z row by row (C lower triangular) */
    for (int r = 0; r < k && !rc; r++)
        for (int j = d - 1; j >= 0; j--) {
            double v = Z[r * d + j];
            for (int q = j + 1; q < d; q++) v -= Z[r * d + q] * C[q * d + j];
            Z[r * d + j] = v / C[j * d + j]; /* Z row now holds Y */
        }
    for (int i = 0; i < k * d; i++) W[i] += P->sigma * Z[i];
    lm_mat_set_array(Shat, S);
    lm_mat_set_array(What, W);
    free(L); free(A); free(C); free(S); free(W); free(Z);
    return rc;
}

int lm_pctr_spectral(lm_pcth *t0, lm_mat *Shat_inv, const lm_pcdata *P, const lm_mat *Shat,
                     const lm_mat *What)
{
    const lm_ctx *c = &P->ctx;
    int d = P->d, k = P->k;
    lm_mat *Sh = mnew(d, d, c), *Sih = mnew(d, d, c), *Si = mnew(d, d, c), *Mh = mnew(k, d, c);
    lm_mat *U = mnew(k, d, c), *V = mnew(d, d, c), *T = mnew(d, d, c);
    lm_num *s = lm_nums_new(d, c);
    int rc = lm_pc_sympow(Sh, Shat, 0.5) | lm_pc_sympow(Sih, Shat, -0.5) | lm_pc_sympow(Si, Shat, -1.0);
    lm_mat_mul(Mh, What, 0, Sh, 0);
    rc |= lm_mat_svd(s, U, V, Mh);
    if (!rc) {
        lm_num x, y;
        lm_num_inits(c, &x, &y, (lm_num *)NULL);
        for (int j = 0; j < d; j++) {
            lm_num_sqrt(&y, &s[j]);
            for (int i = 0; i < k; i++) {
                lm_mat_get(&x, U, i, j);
                lm_num_mul(&x, &x, &y);
                lm_mat_set(U, i, j, &x);
            }
            for (int i = 0; i < d; i++) {
                lm_mat_get(&x, V, i, j);
                lm_num_mul(&x, &x, &y);
                lm_mat_set(T, j, i, &x);
            }
        }
        lm_num_clears(&x, &y, (lm_num *)NULL);
        lm_mat_mul(t0->V, U, 0, Sih, 0);
        lm_mat_mul(V, Sih, 0, T, 0);
        lm_mat_mul(t0->KQ, V, 0, Sih, 0);
        if (Shat_inv) lm_mat_copy(Shat_inv, Si);
    }
    lm_nums_free(s, d);
    lm_mat_free(Sh); lm_mat_free(Sih); lm_mat_free(Si); lm_mat_free(Mh);
    lm_mat_free(U); lm_mat_free(V); lm_mat_free(T);
    return rc;
}

/* ------------------------------------------------------------ runs */

lm_pcbatch *lm_pctr_pool_new(const lm_pcdata *P, int N, int M, uint64_t key)
{
    if (M < 0) M = 0;
    lm_pcbatch *pool = lm_xcalloc((size_t)M, sizeof(lm_pcbatch));
    for (int m = 0; m < M; m++) {
        lm_rng g;
        lm_rng_init(&g, lm_hash_u64(key, (uint64_t)m));
        pool[m] = lm_pc_batch(P, N, &g);
    }
    return pool;
}

void lm_pctr_pool_free(lm_pcbatch *pool, int M)
{
    for (int m = 0; m < M; m++) lm_pc_batch_free(&pool[m]);
    free(pool);
}

/* double fast path of grad(L_hat + R_hat) on one batch (variant V0), raw row-major arrays:
 * X (N x d), Y (N x k), V (k x d), KQ (d x d); adds into gV, gK; returns ||g||_F^2 of this batch */
static double emp_reg_d(double *gV, double *gK, const double *X, const double *Y, int N, int d, int k,
                        const double *V, const double *KQ, double lam, double *w)
{
    double *XK = w, *p = XK + N * d, *z = p + N, *r = z + d, *v = r + k, *cv = v + d;
    double *S = cv + d, *M = S + d * d, *T1 = M + d * d, *T2 = T1 + d * d, *bV = T2 + d * d, *bK = bV + k * d;
    for (int i = 0; i < k * d; i++) bV[i] = 0;
    for (int i = 0; i < d * d; i++) bK[i] = 0;
    for (int i = 0; i < N; i++) /* XK row i = x_i^T KQ */
        for (int b = 0; b < d; b++) {
            double t = 0;
            for (int a = 0; a < d; a++) t += X[i * d + a] * KQ[a * d + b];
            XK[i * d + b] = t;
        }
    const double c2 = -2.0 / N;
    for (int j = 0; j < N; j++) {
        const double *xj = X + j * d;
        double m = -HUGE_VAL;
        for (int i = 0; i < N; i++) {
            double l = 0;
            for (int b = 0; b < d; b++) l += XK[i * d + b] * xj[b];
            p[i] = l;
            if (l > m) m = l;
        }
        double sum = 0;
        for (int i = 0; i < N; i++) {
            p[i] = exp(p[i] - m);
            sum += p[i];
        }
        for (int a = 0; a < d; a++) z[a] = 0;
        for (int i = 0; i < N; i++) {
            p[i] /= sum;
            for (int a = 0; a < d; a++) z[a] += p[i] * X[i * d + a];
        }
        for (int q = 0; q < k; q++) {
            double t = Y[j * k + q];
            for (int a = 0; a < d; a++) t -= V[q * d + a] * z[a];
            r[q] = t;
        }
        for (int q = 0; q < k; q++)
            for (int a = 0; a < d; a++) bV[q * d + a] += c2 * r[q] * z[a];
        for (int a = 0; a < d; a++) {
            double t = 0;
            for (int q = 0; q < k; q++) t += V[q * d + a] * r[q];
            v[a] = t;
        }
        double zv = 0;
        for (int a = 0; a < d; a++) {
            zv += z[a] * v[a];
            cv[a] = 0;
        }
        for (int i = 0; i < N; i++) {
            double xv = 0;
            for (int a = 0; a < d; a++) xv += X[i * d + a] * v[a];
            for (int a = 0; a < d; a++) cv[a] += p[i] * xv * X[i * d + a];
        }
        for (int a = 0; a < d; a++) cv[a] -= z[a] * zv;
        for (int a = 0; a < d; a++)
            for (int b = 0; b < d; b++) bK[a * d + b] += c2 * cv[a] * xj[b];
    }
    /* R_hat with S = X^T X / N: M = V^T V - KQ S KQ^T, grad_V = 4 lam V S M S,
     * grad_KQ = -4 lam S M S KQ S */
    for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++) {
            double t = 0;
            for (int i = 0; i < N; i++) t += X[i * d + a] * X[i * d + b];
            S[a * d + b] = t / N;
        }
    for (int a = 0; a < d; a++) /* T1 = KQ S */
        for (int b = 0; b < d; b++) {
            double t = 0;
            for (int c = 0; c < d; c++) t += KQ[a * d + c] * S[c * d + b];
            T1[a * d + b] = t;
        }
    for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++) {
            double t = 0;
            for (int q = 0; q < k; q++) t += V[q * d + a] * V[q * d + b];
            for (int c = 0; c < d; c++) t -= T1[a * d + c] * KQ[b * d + c];
            M[a * d + b] = t;
        }
    for (int a = 0; a < d; a++) /* T2 = S M S */
        for (int b = 0; b < d; b++) {
            double t = 0;
            for (int c = 0; c < d; c++) t += S[a * d + c] * M[c * d + b];
            T1[a * d + b] = t;
        }
    for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++) {
            double t = 0;
            for (int c = 0; c < d; c++) t += T1[a * d + c] * S[c * d + b];
            T2[a * d + b] = t;
        }
    for (int q = 0; q < k; q++)
        for (int b = 0; b < d; b++) {
            double t = 0;
            for (int c = 0; c < d; c++) t += V[q * d + c] * T2[c * d + b];
            bV[q * d + b] += 4 * lam * t;
        }
    for (int a = 0; a < d; a++) /* T1 = T2 KQ */
        for (int b = 0; b < d; b++) {
            double t = 0;
            for (int c = 0; c < d; c++) t += T2[a * d + c] * KQ[c * d + b];
            T1[a * d + b] = t;
        }
    for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++) {
            double t = 0;
            for (int c = 0; c < d; c++) t += T1[a * d + c] * S[c * d + b];
            bK[a * d + b] -= 4 * lam * t;
        }
    double ss = 0;
    for (int i = 0; i < k * d; i++) {
        gV[i] += bV[i];
        ss += bV[i] * bV[i];
    }
    for (int i = 0; i < d * d; i++) {
        gK[i] += bK[i];
        ss += bK[i] * bK[i];
    }
    return ss;
}

/* batch m of the oracle: pool[m], or (pool NULL) drawn now exactly as lm_pctr_pool_new draws it */
static const lm_pcbatch *oracle_batch(lm_pcbatch *tmp, const lm_pcdata *P, const lm_pcbatch *pool, int m, int N,
                                      uint64_t key)
{
    if (pool) return &pool[m];
    lm_rng g;
    lm_rng_init(&g, lm_hash_u64(key, (uint64_t)m));
    *tmp = lm_pc_batch(P, N, &g);
    return tmp;
}

static void oracle(lm_pcth *G, double *se, const lm_pcdata *P, const lm_pcth *t, const lm_pcbatch *pool, int M,
                   int Nb, uint64_t key)
{
    const lm_ctx *c = &P->ctx;
    int d = P->d, k = P->k;
    double ss = 0.0;
    if (M < 1) { /* no batch: no estimate (zero gradient, infinite standard error) */
        lm_mat_zero(G->V);
        lm_mat_zero(G->KQ);
        if (se) *se = HUGE_VAL;
        return;
    }
    if (c->backend == LM_DOUBLE && P->variant == 0) {
        int N = pool ? pool[0].N : Nb;
        double *V = lm_xmalloc(sizeof(double) * (size_t)(k * d)), *KQ = lm_xmalloc(sizeof(double) * (size_t)(d * d));
        double *gV = lm_xcalloc((size_t)(k * d), sizeof(double)), *gK = lm_xcalloc((size_t)(d * d), sizeof(double));
        double *X = lm_xmalloc(sizeof(double) * (size_t)(N * d)), *Y = lm_xmalloc(sizeof(double) * (size_t)(N * k));
        double *w = lm_xmalloc(sizeof(double) * (size_t)(N * d + N + 2 * d + k + d + 5 * d * d + k * d + d * d));
        lm_mat_get_array(V, t->V);
        lm_mat_get_array(KQ, t->KQ);
        for (int m = 0; m < M; m++) {
            lm_pcbatch tmp;
            const lm_pcbatch *b = oracle_batch(&tmp, P, pool, m, Nb, key);
            lm_mat_get_array(X, b->X);
            lm_mat_get_array(Y, b->Y);
            ss += emp_reg_d(gV, gK, X, Y, b->N, d, k, V, KQ, P->lambda, w);
            if (!pool) lm_pc_batch_free(&tmp);
        }
        double g2 = 0;
        for (int i = 0; i < k * d; i++) {
            gV[i] /= M;
            g2 += gV[i] * gV[i];
        }
        for (int i = 0; i < d * d; i++) {
            gK[i] /= M;
            g2 += gK[i] * gK[i];
        }
        lm_mat_set_array(G->V, gV);
        lm_mat_set_array(G->KQ, gK);
        if (se) {
            double var = (ss / M - g2) * M / (M > 1 ? M - 1 : 1);
            *se = sqrt(fmax(var, 0.0) / M);
        }
        free(V); free(KQ); free(gV); free(gK); free(X); free(Y); free(w);
        return;
    }
    lm_pcth g1 = lm_pc_th_new(P), g2 = lm_pc_th_new(P);
    lm_mat *S = mnew(d, d, c);
    lm_num x;
    lm_num_init(&x, c);
    lm_mat_zero(G->V);
    lm_mat_zero(G->KQ);
    for (int m = 0; m < M; m++) {
        lm_pcbatch tmp;
        const lm_pcbatch *b = oracle_batch(&tmp, P, pool, m, Nb, key);
        lm_pc_emp(NULL, &g1, P, t, b, 0);
        lm_pc_sigma_hat(S, b);
        if (!pool) lm_pc_batch_free(&tmp);
        lm_pc_reg_S(NULL, &g2, P, t, S);
        lm_mat_add(g1.V, g1.V, g2.V);
        lm_mat_add(g1.KQ, g1.KQ, g2.KQ);
        lm_mat_add(G->V, G->V, g1.V);
        lm_mat_add(G->KQ, G->KQ, g1.KQ);
        lm_pc_dot(&x, &g1, &g1);
        ss += lm_num_get_d(&x);
    }
    lm_mat_scale_d(G->V, G->V, 1.0 / M);
    lm_mat_scale_d(G->KQ, G->KQ, 1.0 / M);
    if (se) {
        lm_pc_dot(&x, G, G);
        double var = (ss / M - lm_num_get_d(&x)) * M / (M > 1 ? M - 1 : 1);
        *se = sqrt(fmax(var, 0.0) / M);
    }
    lm_num_clear(&x);
    lm_pc_th_free(&g1);
    lm_pc_th_free(&g2);
    lm_mat_free(S);
}

void lm_pctr_oracle_pool(lm_pcth *G, double *se, const lm_pcdata *P, const lm_pcth *t,
                         const lm_pcbatch *pool, int M)
{
    oracle(G, se, P, t, pool, M, M > 0 ? pool[0].N : 0, 0);
}

void lm_pctr_oracle_stream(lm_pcth *G, double *se, const lm_pcdata *P, const lm_pcth *t, int N, int M,
                           uint64_t key)
{
    oracle(G, se, P, t, NULL, M, N, key);
}

void lm_pctr_rec_clear(lm_pctr_rec *r)
{
    free(r->exc); free(r->reg); free(r->phi); free(r->se);
    memset(r, 0, sizeof *r);
}

/* B of the N training rows without replacement (partial Fisher-Yates) */
static void minibatch(lm_pcbatch *mb, const lm_pcbatch *tr, int B, lm_rng *g, int *idx, lm_num *x)
{
    int N = tr->N, d = tr->X->c, k = tr->Y->c;
    for (int i = 0; i < N; i++) idx[i] = i;
    for (int i = 0; i < B; i++) {
        int j = i + (int)(lm_rng_uniform(g) * (N - i));
        if (j > N - 1) j = N - 1;
        int s = idx[i];
        idx[i] = idx[j];
        idx[j] = s;
        for (int a = 0; a < d; a++) {
            lm_mat_get(x, tr->X, idx[i], a);
            lm_mat_set(mb->X, i, a, x);
        }
        for (int a = 0; a < k; a++) {
            lm_mat_get(x, tr->Y, idx[i], a);
            lm_mat_set(mb->Y, i, a, x);
        }
    }
}

int lm_pctr_run(lm_pctr_rec *rec, const lm_pcdata *P, lm_pcth *th, const lm_pctr_opts *o,
                lm_pctr_hook hook, void *arg)
{
    const lm_ctx *c = &P->ctx;
    int d = P->d, T = o->T;
    double cap = o->cap > 0 ? o->cap : 1e100;
    memset(rec, 0, sizeof *rec);
    rec->diverged = -1;
    rec->exc = lm_xcalloc((size_t)T + 1, sizeof(double));
    rec->reg = lm_xcalloc((size_t)T + 1, sizeof(double));
    rec->phi = lm_xcalloc((size_t)T + 1, sizeof(double));
    rec->se = lm_xcalloc((size_t)T + 1, sizeof(double));
    lm_pcth G = lm_pc_th_new(P), G2 = lm_pc_th_new(P);
    lm_mat *S = mnew(d, d, c);
    lm_num e, r, ph, x;
    lm_num_inits(c, &e, &r, &ph, &x, (lm_num *)NULL);
    lm_pcbatch mb = {0, NULL, NULL};
    int *idx = NULL;
    if (o->mode == LM_PCTR_MINIBATCH || o->mode == LM_PCTR_SGD) {
        mb.N = o->B;
        mb.X = mnew(o->B, d, c);
        mb.Y = mnew(o->B, P->k, c);
        idx = lm_xmalloc(sizeof(int) * (size_t)o->train->N);
    }
    /* double fast path of the minibatch gradient (variant V0) */
    const int fast = idx && c->backend == LM_DOUBLE && P->variant == 0;
    double *tX = NULL, *tY = NULL, *fX = NULL, *fY = NULL, *fV = NULL, *fK = NULL, *gV = NULL, *gK = NULL,
           *fw = NULL;
    if (fast) {
        const int Nt = o->train->N, B = o->B, k = P->k;
        tX = lm_xmalloc(sizeof(double) * (size_t)(Nt * d));
        tY = lm_xmalloc(sizeof(double) * (size_t)(Nt * k));
        lm_mat_get_array(tX, o->train->X);
        lm_mat_get_array(tY, o->train->Y);
        fX = lm_xmalloc(sizeof(double) * (size_t)(B * d));
        fY = lm_xmalloc(sizeof(double) * (size_t)(B * k));
        fV = lm_xmalloc(sizeof(double) * (size_t)(k * d));
        gV = lm_xmalloc(sizeof(double) * (size_t)(k * d));
        fK = lm_xmalloc(sizeof(double) * (size_t)(d * d));
        gK = lm_xmalloc(sizeof(double) * (size_t)(d * d));
        fw = lm_xmalloc(sizeof(double) * (size_t)(B * d + B + 2 * d + k + d + 5 * d * d + k * d + d * d));
    }
    int rc = 0;
    for (int t = 0; t <= T; t++) {
        lm_pc_excess(&e, P, th);
        lm_pc_reg(&r, P, th);
        double ed = lm_num_get_d(&e), rd = lm_num_get_d(&r);
        if (!lm_mat_isfinite(th->V) || !lm_mat_isfinite(th->KQ) || !isfinite(ed) || !isfinite(rd) ||
            ed > cap) {
            rec->diverged = t;
            break;
        }
        rec->exc[t] = ed;
        rec->reg[t] = rd;
        if (o->proj) {
            if (lm_pc_project(NULL, NULL, &x, NULL, P, th)) {
                rec->failed = 1;
                rc = 1;
                break;
            }
            lm_num_sqr(&ph, &x);
            rec->phi[t] = lm_num_get_d(&ph);
        }
        rec->n = t + 1;
        if (hook && hook(t, th, &e, &r, o->proj ? &ph : NULL, arg)) break;
        if (t == T) break;
        switch (o->mode) {
        case LM_PCTR_POP:
            lm_pc_grad_Lreg(&G, P, th);
            break;
        case LM_PCTR_MC: {
            if (o->pool && !o->fresh) {
                lm_pctr_oracle_pool(&G, &rec->se[t], P, th, o->pool, o->M);
            } else {
                uint64_t key = o->fresh ? lm_hash_u64(o->key, (uint64_t)t + 1) : o->key;
                lm_pc_oracle_mc(&G, &rec->se[t], P, th, o->N, o->M, key, 0);
            }
            break;
        }
        case LM_PCTR_MINIBATCH:
        case LM_PCTR_SGD: {
            lm_rng g;
            lm_rng_init(&g, lm_hash_u64(o->key, (uint64_t)t + 1));
            if (fast) {
                const int Nt = o->train->N, B = o->B, k = P->k;
                for (int i = 0; i < Nt; i++) idx[i] = i;
                for (int i = 0; i < B; i++) {
                    int j = i + (int)(lm_rng_uniform(&g) * (Nt - i));
                    if (j > Nt - 1) j = Nt - 1;
                    int sw = idx[i];
                    idx[i] = idx[j];
                    idx[j] = sw;
                    memcpy(fX + i * d, tX + idx[i] * d, sizeof(double) * (size_t)d);
                    memcpy(fY + i * k, tY + idx[i] * k, sizeof(double) * (size_t)k);
                }
                lm_mat_get_array(fV, th->V);
                lm_mat_get_array(fK, th->KQ);
                memset(gV, 0, sizeof(double) * (size_t)(k * d));
                memset(gK, 0, sizeof(double) * (size_t)(d * d));
                emp_reg_d(gV, gK, fX, fY, B, d, k, fV, fK, o->mode == LM_PCTR_MINIBATCH ? P->lambda : 0.0, fw);
                lm_mat_set_array(G.V, gV);
                lm_mat_set_array(G.KQ, gK);
                break;
            }
            minibatch(&mb, o->train, o->B, &g, idx, &x);
            lm_pc_emp(NULL, &G, P, th, &mb, 0);
            if (o->mode == LM_PCTR_MINIBATCH) {
                lm_pc_sigma_hat(S, &mb);
                lm_pc_reg_S(NULL, &G2, P, th, S);
                lm_mat_add(G.V, G.V, G2.V);
                lm_mat_add(G.KQ, G.KQ, G2.KQ);
            }
            break;
        }
        }
        if (o->mode != LM_PCTR_SGD && o->Pinv)
            lm_pc_precond_step(th, &G, o->Pinv, o->eta);
        else
            lm_pc_th_axpy(th, th, -o->eta, &G);
    }
    lm_num_clears(&e, &r, &ph, &x, (lm_num *)NULL);
    if (mb.X) lm_pc_batch_free(&mb);
    free(idx);
    free(tX); free(tY); free(fX); free(fY); free(fV); free(fK); free(gV); free(gK); free(fw);
    lm_pc_th_free(&G);
    lm_pc_th_free(&G2);
    lm_mat_free(S);
    return rc;
}

/* ------------------------------------------------------------ TR-D */

int lm_pctr_trd_run(lm_pctr_trd *R, const lm_ctx *c, uint64_t seed, int shared, int T, double eta,
                    int N, int B, char *err, int errlen)
{
    memset(R, 0, sizeof *R);
    lm_rng g;
    lm_rng_init(&g, seed);
    R->P = lm_pc_gen(4, 6, 1.0, 0.0, 0.05, 0.1, 0.25, &g, c);
    R->L0 = R->P->k * R->P->sigma * R->P->sigma;
    R->eta = eta;
    R->T = T;
    R->N = N;
    R->B = B;
    R->shared = shared;
    lm_pcdata *P = R->P;
    if (B > N || B < 1) {
        snprintf(err, (size_t)errlen, "minibatch B=%d not in [1, N=%d]", B, N);
        return -1;
    }
    lm_rng gt;
    lm_rng_init(&gt, lm_hash_u64(seed, 11));
    lm_pcbatch tr = lm_pc_batch(P, N, &gt);
    lm_pcth ta = lm_pc_th_new(P), ts = lm_pc_th_new(P);
    lm_mat *Shi = lm_mat_new(P->d, P->d, &P->ctx);
    int rc = lm_pc_spectral_init(&ta, Shi, P, &tr);
    if (rc) snprintf(err, (size_t)errlen, "spectral initialisation failed");
    lm_rng gi;
    lm_rng_init(&gi, lm_hash_u64(seed, 12));
    lm_pc_th_randn(&ts, &gi, 1.0);
    if (shared) lm_pc_th_copy(&ta, &ts);
    if (!rc) {
        lm_pctr_opts o = {.mode = LM_PCTR_MINIBATCH, .eta = eta, .T = T, .Pinv = Shi, .train = &tr, .B = B,
                          .key = lm_hash_u64(seed, 13), .cap = 1e30};
        lm_pctr_run(&R->alg, P, &ta, &o, NULL, NULL);
        o.mode = LM_PCTR_SGD;
        o.Pinv = NULL;
        lm_pctr_run(&R->sgd, P, &ts, &o, NULL, NULL);
    }
    lm_mat_free(Shi);
    lm_pc_th_free(&ta);
    lm_pc_th_free(&ts);
    lm_pc_batch_free(&tr);
    return rc ? -1 : 0;
}

void lm_pctr_trd_clear(lm_pctr_trd *R)
{
    lm_pctr_rec_clear(&R->alg);
    lm_pctr_rec_clear(&R->sgd);
    if (R->P) lm_pc_free(R->P);
    memset(R, 0, sizeof *R);
}
