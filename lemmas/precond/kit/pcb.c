/* src/models/pcb.c -- see lm_pcb.h */
#include "lm_pcb.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lm_pcb_tube_point(lm_pcth *th, const lm_pcdata *P, double rho, lm_rng *g)
{
    const lm_ctx *c = &P->ctx;
    int d = P->d, k = P->k;
    lm_mat *R = lm_mat_new(d, d, c), *A = lm_mat_new(k, d, c), *B = lm_mat_new(d, d, c);
    lm_pc_rand_orth(R, g);
    lm_pc_manifold(th, P, R);
    lm_pc_to_AB(A, B, P, th);
    double dA[64 * 64], dB[64 * 64], nn = 0;
    for (int i = 0; i < k * d; i++) { dA[i] = lm_rng_normal(g); nn += dA[i] * dA[i]; }
    for (int i = 0; i < d * d; i++) { dB[i] = lm_rng_normal(g); nn += dB[i] * dB[i]; }
    double s1 = lm_num_get_d(&P->s[0]), sd = lm_num_get_d(&P->s[d - 1]);
    double r = rho * lm_pc_delta_r(s1, sd, P->lambda) / sqrt(nn);
    lm_mat *D = lm_mat_new(k, d, c);
    for (int i = 0; i < k * d; i++) dA[i] *= r;
    lm_mat_set_array(D, dA);
    lm_mat_add(A, A, D);
    lm_mat_free(D);
    D = lm_mat_new(d, d, c);
    for (int i = 0; i < d * d; i++) dB[i] *= r;
    lm_mat_set_array(D, dB);
    lm_mat_add(B, B, D);
    lm_mat_free(D);
    lm_pc_from_AB(th, P, A, B);
    lm_mat_free(R); lm_mat_free(A); lm_mat_free(B);
}

lm_pcdata *lm_pcb_inst(lm_pcth *th, int d, int k, double csig, double tau, double rho, lm_rng *g,
                       const lm_ctx *c)
{
    lm_pcdata *P = lm_pc_gen(d, k, csig, 0.0, tau, 0.1, 0.25, g, c);
    if (!P) return NULL;
    *th = lm_pc_th_new(P);
    lm_pcb_tube_point(th, P, rho, g);
    return P;
}

static lm_ctx mctx(const lm_mat *A)
{
    return lm_mat_ctx(A);
}

/* ---- Wick moments ---- */
typedef struct {
    int m, d;
    const lm_mat *Sig;
    const lm_mat *const *A;
    lm_mat **T;
    int pair[10];
    lm_mat *M, *Tmp, *C, *Ct;
} wick_t;

static int uf_find(int *p, int a)
{
    while (p[a] != a) a = p[a] = p[p[a]];
    return a;
}

static void mul_right(lm_mat *M, lm_mat *Tmp, const lm_mat *X, int tx)
{
    lm_mat_mul(Tmp, M, 0, X, tx);
    lm_mat_copy(M, Tmp);
}

static void wick_term(wick_t *W)
{
    int m = W->m, ns = 2 * m, seen[10] = {0};
    /* components of the factor graph */
    int uf[5];
    for (int t = 0; t < m; t++) uf[t] = t;
    for (int s = 0; s < ns; s++) {
        int a = uf_find(uf, s / 2), b = uf_find(uf, W->pair[s] / 2);
        if (a != b) uf[a] = b;
    }
    int comp = 0;
    for (int t = 0; t < m; t++) comp += uf_find(uf, t) == t;
    /* the open path from slot 0 to slot 2m-1 */
    lm_mat_set_identity(W->M);
    int cur = 0;
    for (;;) {
        int p = W->pair[cur];
        seen[cur] = seen[p] = 1;
        mul_right(W->M, W->Tmp, W->Sig, 0);
        if (p == ns - 1) break;
        if (p & 1) { mul_right(W->M, W->Tmp, W->A[p / 2], 0); cur = p + 1; }
        else { mul_right(W->M, W->Tmp, W->A[p / 2 - 1], 1); cur = p - 1; }
    }
    /* closed cycles: traces */
    lm_num tr, prod, e;
    lm_ctx cx = mctx(W->Sig);
    lm_num_inits(&cx, &tr, &prod, &e, (lm_num *)NULL);
    lm_num_set_d(&prod, 1.0);
    for (int s0 = 0; s0 < ns; s0++) {
        if (seen[s0]) continue;
        lm_mat_set_identity(W->C);
        cur = s0;
        do {
            int p = W->pair[cur];
            seen[cur] = seen[p] = 1;
            mul_right(W->C, W->Ct, W->Sig, 0);
            if (p & 1) { mul_right(W->C, W->Ct, W->A[p / 2], 0); cur = p + 1; }
            else { mul_right(W->C, W->Ct, W->A[p / 2 - 1], 1); cur = p - 1; }
        } while (cur != s0);
        lm_num_set_d(&tr, 0.0);
        for (int a = 0; a < W->d; a++) {
            lm_mat_get(&e, W->C, a, a);
            lm_num_add(&tr, &tr, &e);
        }
        lm_num_mul(&prod, &prod, &tr);
    }
    lm_mat_scale(W->M, W->M, &prod);
    lm_mat_add(W->T[comp], W->T[comp], W->M);
    lm_num_clears(&tr, &prod, &e, (lm_num *)NULL);
}

static void wick_rec(wick_t *W, int *used)
{
    int ns = 2 * W->m, first = -1;
    for (int s = 0; s < ns; s++)
        if (!used[s]) { first = s; break; }
    if (first < 0) { wick_term(W); return; }
    used[first] = 1;
    for (int s = first + 1; s < ns; s++) {
        if (used[s]) continue;
        used[s] = 1;
        W->pair[first] = s;
        W->pair[s] = first;
        wick_rec(W, used);
        used[s] = 0;
    }
    used[first] = 0;
}

void lm_pcb_wick(lm_mat **T, const lm_mat *Sig, const lm_mat *const *A, int m)
{
    int d = Sig->r;
    lm_ctx cx = mctx(Sig);
    const lm_ctx *c = &cx;
    wick_t W = {.m = m, .d = d, .Sig = Sig, .A = A, .T = T};
    W.M = lm_mat_new(d, d, c); W.Tmp = lm_mat_new(d, d, c);
    W.C = lm_mat_new(d, d, c); W.Ct = lm_mat_new(d, d, c);
    for (int q = 1; q <= m; q++) lm_mat_zero(T[q]);
    int used[10] = {0};
    wick_rec(&W, used);
    lm_mat_free(W.M); lm_mat_free(W.Tmp); lm_mat_free(W.C); lm_mat_free(W.Ct);
}

/* ---- exact bias of grad R_hat ----
 * grad_V R_hat  =  4 lambda W_V (S P S - S K S K^T S),           P = W_V^T W_V
 * grad_KQ R_hat = -4 lambda (S P S K S - S K S K^T S K S)                       */
void lm_pcb_rbias_init(lm_pcb_rbias *B, const lm_pcdata *P, const lm_pcth *th)
{
    const lm_ctx *c = &P->ctx;
    int d = P->d;
    memset(B, 0, sizeof *B);
    B->d = d;
    B->k = P->k;
    B->P = P;
    B->th = th;
    lm_mat *Pm = lm_mat_new(d, d, c), *Kt = lm_mat_new(d, d, c);
    lm_mat_mul(Pm, th->V, 1, th->V, 0);
    lm_mat_transpose(Kt, th->KQ);
    for (int q = 0; q < 5; q++) B->TK2[q] = lm_mat_new(d, d, c);
    for (int q = 0; q < 4; q++) { B->TV[q] = lm_mat_new(d, d, c); B->TK1[q] = lm_mat_new(d, d, c); }
    for (int q = 0; q < 3; q++) B->TV2[q] = lm_mat_new(d, d, c);
    const lm_mat *a2[1] = {Pm};
    lm_pcb_wick(B->TV2, P->Sig, a2, 2); /* S P S */
    const lm_mat *a3[2] = {th->KQ, Kt};
    lm_pcb_wick(B->TV, P->Sig, a3, 3); /* S K S K^T S */
    const lm_mat *b3[2] = {Pm, th->KQ};
    lm_pcb_wick(B->TK1, P->Sig, b3, 3); /* S P S K S */
    const lm_mat *b4[3] = {th->KQ, Kt, th->KQ};
    lm_pcb_wick(B->TK2, P->Sig, b4, 4); /* S K S K^T S K S */
    lm_mat_free(Pm);
    lm_mat_free(Kt);
}

void lm_pcb_rbias_clear(lm_pcb_rbias *B)
{
    for (int q = 0; q < 5; q++) lm_mat_free(B->TK2[q]);
    for (int q = 0; q < 4; q++) { lm_mat_free(B->TV[q]); lm_mat_free(B->TK1[q]); }
    for (int q = 0; q < 3; q++) lm_mat_free(B->TV2[q]);
}

/* sum_{c < m} N^(c-m) T[c]  (or T[m] when population) */
static void poly(lm_mat *out, lm_mat *const *T, int m, double N, int population)
{
    lm_mat_zero(out);
    if (population) { lm_mat_copy(out, T[m]); return; }
    lm_num w;
    lm_ctx cx = mctx(out);
    lm_num_init(&w, &cx);
    for (int q = 1; q < m; q++) {
        lm_num_set_d(&w, N);
        lm_num_pow_si(&w, &w, q - m);
        lm_mat_axpy(out, &w, T[q]);
    }
    lm_num_clear(&w);
}

void lm_pcb_rbias_at(lm_pcth *G, const lm_pcb_rbias *B, double N, int population)
{
    const lm_ctx *c = &B->P->ctx;
    int d = B->d;
    double lam = B->P->lambda;
    lm_mat *X = lm_mat_new(d, d, c), *Y = lm_mat_new(d, d, c);
    poly(X, B->TV2, 2, N, population);
    poly(Y, B->TV, 3, N, population);
    lm_mat_sub(X, X, Y);
    lm_mat_mul(G->V, B->th->V, 0, X, 0);
    lm_mat_scale_d(G->V, G->V, 4.0 * lam);
    poly(X, B->TK1, 3, N, population);
    poly(Y, B->TK2, 4, N, population);
    lm_mat_sub(G->KQ, X, Y);
    lm_mat_scale_d(G->KQ, G->KQ, -4.0 * lam);
    lm_mat_free(X);
    lm_mat_free(Y);
}

/* ---- Monte Carlo bias of grad L_hat ---- */
void lm_pcb_lbias_mc(double *bias, double *var, const lm_pcdata *P, const lm_pcth *th, int N, int M,
                     uint64_t key, double noise)
{
    int d = P->d, k = P->k, nv = k * d + d * d;
    double *Sig = lm_xmalloc(sizeof(double) * (size_t)(d * d)), *Lc = lm_xmalloc(sizeof(double) * (size_t)(d * d));
    double *Ws = lm_xmalloc(sizeof(double) * (size_t)(k * d)), *WV = lm_xmalloc(sizeof(double) * (size_t)(k * d));
    double *K = lm_xmalloc(sizeof(double) * (size_t)(d * d));
    double *X = lm_xmalloc(sizeof(double) * (size_t)(N * d)), *Y = lm_xmalloc(sizeof(double) * (size_t)(N * k));
    double *g = lm_xmalloc(sizeof(double) * (size_t)nv), *mean = lm_xcalloc((size_t)nv, sizeof(double));
    double *m2 = lm_xcalloc((size_t)nv, sizeof(double)), *p = lm_xmalloc(sizeof(double) * (size_t)N);
    double *SWt = lm_xmalloc(sizeof(double) * (size_t)(d * k)); /* Sigma W_V^T */
    lm_mat_get_array(Sig, P->Sig);
    lm_mat_get_array(Lc, P->Lc);
    lm_mat_get_array(Ws, P->Ws);
    lm_mat_get_array(WV, th->V);
    lm_mat_get_array(K, th->KQ);
    for (int a = 0; a < d; a++)
        for (int b = 0; b < k; b++) {
            double v = 0;
            for (int e = 0; e < d; e++) v += Sig[a * d + e] * WV[b * d + e];
            SWt[a * k + b] = v;
        }
    double sg = P->sigma * noise;
    for (int bt = 0; bt < M; bt++) {
        lm_rng G;
        lm_rng_init(&G, lm_hash_u64(key, (uint64_t)bt));
        for (int i = 0; i < N; i++) {
            double xi[64];
            for (int a = 0; a < d; a++) xi[a] = lm_rng_normal(&G);
            for (int a = 0; a < d; a++) {
                double v = 0;
                for (int b = 0; b <= a; b++) v += Lc[a * d + b] * xi[b];
                X[i * d + a] = v;
            }
            for (int r = 0; r < k; r++) {
                double v = 0;
                for (int a = 0; a < d; a++) v += Ws[r * d + a] * X[i * d + a];
                Y[i * k + r] = v + sg * lm_rng_normal(&G);
            }
        }
        memset(g, 0, sizeof(double) * (size_t)nv);
        double *gV = g, *gK = g + k * d;
        for (int j = 0; j < N; j++) {
            double aj[64], mu[64], z[64], C[64 * 64], r[64], ycv[64], u[64], w[64];
            const double *xj = X + j * d;
            for (int a = 0; a < d; a++) {
                double v = 0;
                for (int b = 0; b < d; b++) v += K[a * d + b] * xj[b];
                aj[a] = v;
            }
            for (int a = 0; a < d; a++) {
                double v = 0;
                for (int b = 0; b < d; b++) v += Sig[a * d + b] * aj[b];
                mu[a] = v;
            }
            double mx = -HUGE_VAL;
            for (int i = 0; i < N; i++) {
                double l = 0;
                for (int a = 0; a < d; a++) l += X[i * d + a] * aj[a];
                p[i] = l;
                if (l > mx) mx = l;
            }
            double s = 0;
            for (int i = 0; i < N; i++) { p[i] = exp(p[i] - mx); s += p[i]; }
            for (int i = 0; i < N; i++) p[i] /= s;
            for (int a = 0; a < d; a++) {
                double v = 0;
                for (int i = 0; i < N; i++) v += p[i] * X[i * d + a];
                z[a] = v;
            }
            memset(C, 0, sizeof(double) * (size_t)(d * d));
            for (int i = 0; i < N; i++)
                for (int a = 0; a < d; a++) {
                    double da = p[i] * (X[i * d + a] - z[a]);
                    for (int b = 0; b < d; b++) C[a * d + b] += da * (X[i * d + b] - z[b]);
                }
            for (int q = 0; q < k; q++) {
                double v1 = 0, v2 = 0;
                for (int a = 0; a < d; a++) { v1 += WV[q * d + a] * z[a]; v2 += WV[q * d + a] * mu[a]; }
                r[q] = Y[j * k + q] - v1;
                ycv[q] = Y[j * k + q] - v2;
            }
            for (int q = 0; q < k; q++)
                for (int a = 0; a < d; a++) gV[q * d + a] += -2.0 / N * (r[q] * z[a] - ycv[q] * mu[a]);
            /* u = C W_V^T r, w = Sigma W_V^T ycv */
            for (int a = 0; a < d; a++) {
                double t = 0;
                for (int q = 0; q < k; q++) t += WV[q * d + a] * r[q];
                z[a] = t; /* reuse: W_V^T r */
            }
            for (int a = 0; a < d; a++) {
                double v = 0, v2 = 0;
                for (int b = 0; b < d; b++) v += C[a * d + b] * z[b];
                for (int q = 0; q < k; q++) v2 += SWt[a * k + q] * ycv[q];
                u[a] = v;
                w[a] = v2;
            }
            for (int a = 0; a < d; a++)
                for (int b = 0; b < d; b++) gK[a * d + b] += -2.0 / N * (u[a] - w[a]) * xj[b];
        }
        for (int e = 0; e < nv; e++) {
            double dl = g[e] - mean[e];
            mean[e] += dl / (bt + 1);
            m2[e] += dl * (g[e] - mean[e]);
        }
    }
    for (int e = 0; e < nv; e++) {
        bias[e] = mean[e];
        var[e] = M > 1 ? m2[e] / (M - 1) / M : HUGE_VAL;
    }
    free(Sig); free(Lc); free(Ws); free(WV); free(K); free(X); free(Y); free(g); free(mean);
    free(m2); free(p); free(SWt);
}

int lm_pcb_rate(lm_eval *ev, const char *tag, const double *N, const double *v, int n, double claimed,
                double tol, double maxw)
{
    double ly[64] = {0};
    char nm[160];
    if (n > 64) n = 64;
    for (int i = 0; i < n; i++) {
        if (!(v[i] > 0) || !isfinite(v[i]))
            return lm_assume(ev, 0, "%s: estimate at N=%g not positive (%g): MC too noisy", tag, N[i], v[i])
                       ? 0
                       : 1;
        ly[i] = log(v[i]);
    }
    /* the rate rule of lm_stats.h: the window N in [N_max/8, N_max] (the smaller N are the
     * pre-asymptotic part), stable against the window [N_max/16, N_max/2] */
    lm_rate_fit r;
    lm_rate_fit_seq(&r, N, ly, n, claimed, -1, tol, 0.95, LM_PCB_STAB_TOL);
    if (r.n >= 4 && r.n_half >= 4 && !(isfinite(r.slope) && isfinite(r.slope_half)))
        return lm_fail(ev, "%s: slope fit failed", tag);
    if (r.n >= 4) {
        snprintf(nm, sizeof nm, "%s slope CI lo", tag);
        lm_measure(ev, nm, r.lo);
        snprintf(nm, sizeof nm, "%s slope CI hi", tag);
        lm_measure(ev, nm, r.hi);
        /* the Monte Carlo admissibility gate on the interval of the judged window */
        if (!lm_assume(ev, r.hi - r.lo <= maxw,
                       "%s: 95%% CI of the slope on N in [%g, %g], [%.3g, %.3g], wider than %g: MC too noisy", tag,
                       r.t_lo, r.t_hi, r.lo, r.hi, maxw))
            return 1;
    }
    lm_rate_judge(ev, &r, tag);
    return r.decision == LM_RATE_TOO_SHORT ? 1 : 0;
}

int lm_pcb_wkq(double *W, const lm_pcdata *P, const lm_pcth *th, int config, double bop, lm_rng *g)
{
    int d = P->d;
    if (config == 0) {
        lm_mat_get_array(W, th->KQ);
        return 0;
    }
    const lm_ctx *c = &P->ctx;
    lm_mat *B = lm_mat_new(d, d, c), *T = lm_mat_new(d, d, c), *Wm = lm_mat_new(d, d, c);
    lm_mat_randn(B, g, 1.0);
    lm_num n;
    lm_num_init(&n, c);
    int rc = lm_mat_smax(&n, B);
    lm_mat_scale_d(B, B, bop / lm_num_get_d(&n));
    lm_mat_mul(T, P->Sih, 0, B, 0);
    lm_mat_mul(Wm, T, 0, P->Sih, 0);
    lm_mat_get_array(W, Wm);
    lm_num_clear(&n);
    lm_mat_free(B); lm_mat_free(T); lm_mat_free(Wm);
    return rc;
}

