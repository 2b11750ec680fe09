/* mha.c -- forward pass and closed-form gradients of the multi-head
 * attention regression model (catalogue S2, S3), in any context.
 *
 * Numerical notes.  Softmax rows use log-sum-exp (lm_mat_softmax_rows), so
 * logits of any finite size give finite S.  Gaussian logits are formed from
 * the difference vector q_k - k_j (no cancellation of ||q||^2+||k||^2-2q.k).
 * The softmax backward pass uses Gamma_kj = S_kj (G_kj - sum_p G_kp S_kp),
 * which never forms exp(C) and so never overflows (Lemma 1(4) written
 * literally does; dynamics/lemma1 checks the literal form in MPFR).
 */
#include "lm_mha.h"
#include "lm_claim.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    lm_mat *Q, *K, *v, *uh, *G, *Gam, *T1, *T2, *T3, *XtT, *gacc;
    lm_mat *Bt;  /* HD x Nn scratch */
    lm_mat *T;   /* n x D scratch of lm_mha_B */
    lm_mat *Btr; /* HD x 1 scratch of lm_mha_grad */
    lm_mat **gq, **gk, *gv; /* gradients of lm_mha_gd_step */
    lm_num sqd;  /* sqrt(d) */
    lm_num t0, t1;
} ws_t;

static void ws_alloc(lm_mha *m)
{
    ws_t *w = lm_xcalloc(1, sizeof *w);
    const lm_ctx *c = &m->ctx;
    w->Q = lm_mat_new(m->n, m->d, c);
    w->K = lm_mat_new(m->n, m->d, c);
    w->v = lm_mat_new(m->n, 1, c);
    w->uh = lm_mat_new(m->D, 1, c);
    w->G = lm_mat_new(m->n, m->n, c);
    w->Gam = lm_mat_new(m->n, m->n, c);
    w->T1 = lm_mat_new(m->n, m->d, c);
    w->T2 = lm_mat_new(m->n, m->d, c);
    w->T3 = lm_mat_new(m->n, m->d, c);
    w->XtT = lm_mat_new(m->D, m->d, c);
    w->gacc = lm_mat_new(m->D, m->d, c);
    w->Bt = lm_mat_new(m->N * m->n, m->H * m->D, c);
    w->T = lm_mat_new(m->n, m->D, c);
    w->Btr = lm_mat_new(m->H * m->D, 1, c);
    w->gq = lm_xcalloc((size_t)(m->H > 0 ? m->H : 1), sizeof *w->gq);
    w->gk = lm_xcalloc((size_t)(m->H > 0 ? m->H : 1), sizeof *w->gk);
    for (int h = 0; h < m->H; h++) {
        w->gq[h] = lm_mat_new(m->D, m->d, c);
        w->gk[h] = lm_mat_new(m->D, m->d, c);
    }
    w->gv = lm_mat_new(m->H * m->D, m->H * m->d, c);
    lm_num_inits(c, &w->sqd, &w->t0, &w->t1, (lm_num *)NULL);
    lm_num_set_d(&w->sqd, (double)m->d);
    lm_num_sqrt(&w->sqd, &w->sqd);
    m->ws = w;
}

lm_mha *lm_mha_new(int N, int n, int D, int d, int H, lm_kernel k, lm_wvmode wv,
                   const lm_ctx *ctx)
{
    lm_mha *m = lm_xcalloc(1, sizeof *m);
    m->N = N; m->n = n; m->D = D; m->d = d; m->H = H;
    m->kernel = k; m->cG = 2.0; m->wv = wv; m->ctx = *ctx;
    m->X = lm_xcalloc((size_t)N, sizeof *m->X);
    for (int i = 0; i < N; i++) m->X[i] = lm_mat_new(n, D, ctx);
    m->y = lm_mat_new(N * n, 1, ctx);
    m->Wq = lm_xcalloc((size_t)H, sizeof *m->Wq);
    m->Wk = lm_xcalloc((size_t)H, sizeof *m->Wk);
    for (int h = 0; h < H; h++) {
        m->Wq[h] = lm_mat_new(D, d, ctx);
        m->Wk[h] = lm_mat_new(D, d, ctx);
    }
    m->Wv = lm_mat_new(H * D, H * d, ctx);
    m->Wo = lm_mat_new(H * d, 1, ctx);
    m->C = lm_xcalloc((size_t)(N * H), sizeof *m->C);
    m->S = lm_xcalloc((size_t)(N * H), sizeof *m->S);
    for (int q = 0; q < N * H; q++) {
        m->C[q] = lm_mat_new(n, n, ctx);
        m->S[q] = lm_mat_new(n, n, ctx);
    }
    m->u = lm_mat_new(H * D, 1, ctx);
    m->mh = lm_mat_new(N * n, 1, ctx);
    m->r = lm_mat_new(N * n, 1, ctx);
    lm_num_init(&m->f, ctx);
    ws_alloc(m);
    return m;
}

void lm_mha_free(lm_mha *m)
{
    if (!m) return;
    ws_t *w = m->ws;
    lm_mat *ms[] = {w->Q, w->K, w->v, w->uh, w->G, w->Gam, w->T1, w->T2, w->T3,
                    w->XtT, w->gacc, w->Bt, w->T, w->Btr, w->gv};
    for (size_t k = 0; k < sizeof ms / sizeof *ms; k++) lm_mat_free(ms[k]);
    for (int h = 0; h < m->H; h++) {
        lm_mat_free(w->gq[h]);
        lm_mat_free(w->gk[h]);
    }
    free(w->gq);
    free(w->gk);
    lm_num_clears(&w->sqd, &w->t0, &w->t1, (lm_num *)NULL);
    free(w);
    for (int i = 0; i < m->N; i++) lm_mat_free(m->X[i]);
    for (int h = 0; h < m->H; h++) { lm_mat_free(m->Wq[h]); lm_mat_free(m->Wk[h]); }
    for (int q = 0; q < m->N * m->H; q++) { lm_mat_free(m->C[q]); lm_mat_free(m->S[q]); }
    free(m->X); free(m->Wq); free(m->Wk); free(m->C); free(m->S);
    lm_mat_free(m->y); lm_mat_free(m->Wv); lm_mat_free(m->Wo);
    lm_mat_free(m->u); lm_mat_free(m->mh); lm_mat_free(m->r);
    lm_num_clear(&m->f);
    free(m);
}

lm_mha *lm_mha_convert(const lm_mha *s, const lm_ctx *ctx)
{
    lm_mha *m = lm_mha_new(s->N, s->n, s->D, s->d, s->H, s->kernel, s->wv, ctx);
    m->cG = s->cG;
    for (int i = 0; i < s->N; i++) lm_mat_copy(m->X[i], s->X[i]);
    for (int h = 0; h < s->H; h++) {
        lm_mat_copy(m->Wq[h], s->Wq[h]);
        lm_mat_copy(m->Wk[h], s->Wk[h]);
    }
    lm_mat_copy(m->y, s->y);
    lm_mat_copy(m->Wv, s->Wv);
    lm_mat_copy(m->Wo, s->Wo);
    return m;
}

void lm_mha_randomize(lm_mha *m, lm_rng *g, double sX, double sQK, double sV, double sO)
{
    for (int i = 0; i < m->N; i++) lm_mat_randn(m->X[i], g, sX);
    for (int h = 0; h < m->H; h++) {
        lm_mat_randn(m->Wq[h], g, sQK);
        lm_mat_randn(m->Wk[h], g, sQK);
    }
    lm_mat_zero(m->Wv);
    for (int h = 0; h < m->H; h++)
        for (int a = 0; a < m->D; a++)
            for (int b = 0; b < m->d; b++)
                lm_mat_set_d(m->Wv, h * m->D + a, h * m->d + b, sV * lm_rng_normal(g));
    /* dense mode starts block-diagonal too (eq. 5) and leaves it under GD */
    for (int k = 0; k < m->H * m->d; k++)
        lm_mat_set_d(m->Wo, k, 0, sO == 0.0 ? 1.0 : sO * lm_rng_normal(g));
}

static lm_mat *S_of(const lm_mha *m, int i, int h) { return m->S[i * m->H + h]; }

/* 1 on the double backend, where the hot loops below read and write the
 * arrays directly: the same operations in the same order as the lm_num
 * path (fma for lm_num_fma, plain * and - otherwise), so the same bits */
static int is_d(const lm_mat *A) { return !A->mp && !A->ab; }

void lm_mha_forward(lm_mha *m)
{
    ws_t *w = m->ws;
    const int n = m->n;
    lm_num scale, x, y;
    lm_num_inits(&m->ctx, &scale, &x, &y, (lm_num *)NULL);
    if (m->kernel == LM_GAUSS) {
        lm_num_mul_d(&scale, &w->sqd, m->cG); /* c_G sqrt(d) */
    } else {
        lm_num_set_d(&scale, 1.0);
        lm_num_div(&scale, &scale, &w->sqd); /* 1/sqrt(d) */
    }
    lm_mat_mul(m->u, m->Wv, 0, m->Wo, 0);
    lm_mat_zero(m->mh);
    for (int i = 0; i < m->N; i++) {
        for (int h = 0; h < m->H; h++) {
            lm_mat *C = m->C[i * m->H + h], *S = m->S[i * m->H + h];
            lm_mat_mul(w->Q, m->X[i], 0, m->Wq[h], 0);
            lm_mat_mul(w->K, m->X[i], 0, m->Wk[h], 0);
            if (m->kernel == LM_SOFTMAX) {
                lm_mat_mul(C, w->Q, 0, w->K, 1);
                lm_mat_scale(C, C, &scale);
                lm_mat_softmax_rows(S, C);
            } else {
                lm_mat_gauss_logits(C, w->Q, w->K, &scale);
                lm_mat_exp(S, C);
            }
            lm_mat_get_block(w->uh, m->u, h * m->D, 0);
            lm_mat_mul(w->v, m->X[i], 0, w->uh, 0);
            /* mh_i += S_ih v_ih */
            if (is_d(m->mh) && is_d(S) && is_d(w->v)) {
                const double *Sd = S->d, *vd = w->v->d;
                for (int k = 0; k < n; k++) {
                    double yk = m->mh->d[i * n + k];
                    for (int j = 0; j < n; j++) yk = fma(Sd[(size_t)k * n + j], vd[j], yk);
                    m->mh->d[i * n + k] = yk;
                }
                continue;
            }
            for (int k = 0; k < n; k++) {
                lm_mat_get(&y, m->mh, i * n + k, 0);
                for (int j = 0; j < n; j++) {
                    lm_mat_get(&x, S, k, j);
                    lm_mat_get(&w->t1, w->v, j, 0);
                    lm_num_fma(&y, &x, &w->t1, &y);
                }
                lm_mat_set(m->mh, i * n + k, 0, &y);
            }
        }
    }
    lm_mat_sub(m->r, m->mh, m->y);
    lm_mat_frob(&m->f, m->r);
    lm_num_sqr(&m->f, &m->f);
    lm_num_mul_d(&m->f, &m->f, 0.5);
    lm_num_clears(&scale, &x, &y, (lm_num *)NULL);
}

void lm_mha_dfdC(lm_mat *Gam, lm_mha *m, int i, int h)
{
    ws_t *w = m->ws;
    const int n = m->n;
    const lm_mat *S = S_of(m, i, h);
    lm_num a, b, s;
    lm_num_inits(&m->ctx, &a, &b, &s, (lm_num *)NULL);
    lm_mat_get_block(w->uh, m->u, h * m->D, 0);
    lm_mat_mul(w->v, m->X[i], 0, w->uh, 0);
    if (is_d(Gam) && is_d(S) && is_d(w->v) && is_d(m->r)) {
        double *g = Gam->d;
        const double *Sd = S->d, *vd = w->v->d, *rd = m->r->d + (size_t)i * n;
        for (int k = 0; k < n; k++)
            for (int j = 0; j < n; j++) g[(size_t)k * n + j] = rd[k] * vd[j];
        if (m->kernel == LM_GAUSS) {
            lm_mat_hadamard(Gam, Gam, S);
        } else {
            for (int k = 0; k < n; k++) {
                double *gk = g + (size_t)k * n;
                const double *sk = Sd + (size_t)k * n;
                double sum = 0.0;
                for (int p = 0; p < n; p++) sum = fma(gk[p], sk[p], sum);
                for (int j = 0; j < n; j++) gk[j] = (gk[j] - sum) * sk[j];
            }
        }
        lm_num_clears(&a, &b, &s, (lm_num *)NULL);
        return;
    }
    /* G = r_i v^T */
    for (int k = 0; k < n; k++) {
        lm_mat_get(&a, m->r, i * n + k, 0);
        for (int j = 0; j < n; j++) {
            lm_mat_get(&b, w->v, j, 0);
            lm_num_mul(&b, &a, &b);
            lm_mat_set(Gam, k, j, &b);
        }
    }
    if (m->kernel == LM_GAUSS) {
        lm_mat_hadamard(Gam, Gam, S);
    } else {
        for (int k = 0; k < n; k++) {
            lm_num_set_d(&s, 0.0);
            for (int p = 0; p < n; p++) {
                lm_mat_get(&a, Gam, k, p);
                lm_mat_get(&b, S, k, p);
                lm_num_fma(&s, &a, &b, &s);
            }
            for (int j = 0; j < n; j++) {
                lm_mat_get(&a, Gam, k, j);
                lm_num_sub(&a, &a, &s);
                lm_mat_get(&b, S, k, j);
                lm_num_mul(&a, &a, &b);
                lm_mat_set(Gam, k, j, &a);
            }
        }
    }
    lm_num_clears(&a, &b, &s, (lm_num *)NULL);
}

/* T1 <- the W^Q_h (which=0) or W^K_h (which=1) factor of sample i, from
 * Gamma (in w->Gam) and Q, K (in w->Q, w->K); then g += X_i^T T1 */
static void grad_qk_add(lm_mat *g, lm_mha *m, int i, int which, lm_num *a, lm_num *b, lm_num *c)
{
    ws_t *w = m->ws;
    const int n = m->n;
    const lm_mat *own = which == 0 ? w->Q : w->K;
    const lm_mat *other = which == 0 ? w->K : w->Q;
    /* T1 = Gamma^(T?) other */
    lm_mat_mul(w->T1, w->Gam, which, other, 0);
    if (m->kernel == LM_GAUSS) {
        /* T1 <- diag(Gamma^(T?) 1) own - T1 */
        for (int k = 0; k < n; k++) {
            lm_num_set_d(a, 0.0);
            for (int j = 0; j < n; j++) {
                lm_mat_get(b, w->Gam, which ? j : k, which ? k : j);
                lm_num_add(a, a, b);
            }
            for (int e = 0; e < m->d; e++) {
                lm_mat_get(b, own, k, e);
                lm_mat_get(c, w->T1, k, e);
                lm_num_mul(b, a, b);
                lm_num_sub(b, b, c);
                lm_mat_set(w->T1, k, e, b);
            }
        }
    }
    lm_mat_mul(w->XtT, m->X[i], 1, w->T1, 0);
    lm_mat_add(g, g, w->XtT);
}

/* gradients of W^Q_h (gq) and W^K_h (gk), either may be NULL; Gamma, Q and
 * K of each sample are formed once for both */
static void grad_qk(lm_mat *gq, lm_mat *gk, lm_mha *m, int h)
{
    ws_t *w = m->ws;
    lm_num c, a, b;
    lm_num_inits(&m->ctx, &c, &a, &b, (lm_num *)NULL);
    if (gq) lm_mat_zero(gq);
    if (gk) lm_mat_zero(gk);
    for (int i = 0; i < m->N; i++) {
        lm_mha_dfdC(w->Gam, m, i, h);
        lm_mat_mul(w->Q, m->X[i], 0, m->Wq[h], 0);
        lm_mat_mul(w->K, m->X[i], 0, m->Wk[h], 0);
        if (gq) grad_qk_add(gq, m, i, 0, &a, &b, &c);
        if (gk) grad_qk_add(gk, m, i, 1, &a, &b, &c);
    }
    if (m->kernel == LM_SOFTMAX) {
        lm_num_set_d(&c, 1.0);
        lm_num_div(&c, &c, &w->sqd);
    } else {
        lm_num_mul_d(&c, &w->sqd, m->cG);
        lm_num_d_sub(&a, 0.0, &c);   /* -cG sqrt(d) */
        lm_num_set_d(&c, 2.0);
        lm_num_div(&c, &c, &a);      /* -2/(cG sqrt d) */
    }
    if (gq) lm_mat_scale(gq, gq, &c);
    if (gk) lm_mat_scale(gk, gk, &c);
    lm_num_clears(&c, &a, &b, (lm_num *)NULL);
}

void lm_mha_B(lm_mat *B, const lm_mha *m)
{
    ws_t *w = m->ws;
    lm_mat *T = w->T;
    for (int i = 0; i < m->N; i++)
        for (int h = 0; h < m->H; h++) {
            lm_mat_mul(T, S_of(m, i, h), 0, m->X[i], 0);
            lm_mat_set_block(B, i * m->n, h * m->D, T);
        }
}

void lm_mha_grad(lm_mha *m, lm_mat **gQ, lm_mat **gK, lm_mat *gV)
{
    for (int h = 0; h < m->H; h++)
        if (gQ || gK) grad_qk(gQ ? gQ[h] : NULL, gK ? gK[h] : NULL, m, h);
    if (gV) {
        ws_t *w = m->ws;
        lm_mat *Btr = w->Btr;
        lm_mha_B(w->Bt, m);
        lm_mat_mul(Btr, w->Bt, 1, m->r, 0);
        lm_mat_mul(gV, Btr, 0, m->Wo, 1);
        if (m->wv == LM_WV_BLOCK && is_d(gV)) {
            for (int a = 0; a < m->H * m->D; a++)
                for (int b = 0; b < m->H * m->d; b++)
                    if (a / m->D != b / m->d) gV->d[(size_t)a * (size_t)gV->c + (size_t)b] = 0.0;
        } else if (m->wv == LM_WV_BLOCK)
            for (int a = 0; a < m->H * m->D; a++)
                for (int b = 0; b < m->H * m->d; b++)
                    if (a / m->D != b / m->d) lm_mat_set_d(gV, a, b, 0.0);
    }
}

void lm_mha_jacQ(lm_mat *J, const lm_mha *m, int h)
{
    ws_t *w = m->ws;
    const int n = m->n, D = m->D, d = m->d;
    lm_num c, a, b;
    lm_num_inits(&m->ctx, &c, &a, &b, (lm_num *)NULL);
    if (m->kernel == LM_SOFTMAX) {
        lm_num_set_d(&c, 1.0);
        lm_num_div(&c, &c, &w->sqd);
    } else {
        lm_num_mul_d(&c, &w->sqd, m->cG);
        lm_num_d_sub(&a, 0.0, &c);
        lm_num_set_d(&c, 2.0);
        lm_num_div(&c, &c, &a);
    }
    lm_mat_zero(J);
    for (int i = 0; i < m->N; i++) {
        lm_mat_mul(w->Q, m->X[i], 0, m->Wq[h], 0);
        lm_mat_mul(w->K, m->X[i], 0, m->Wk[h], 0);
        for (int k = 0; k < n; k++)
            for (int j = 0; j < n; j++) {
                int row = (i * n + k) * n + j;
                for (int bb = 0; bb < d; bb++) {
                    /* factor(b) = K_jb (softmax) or (Q_kb - K_jb) (Gaussian) */
                    lm_mat_get(&b, w->K, j, bb);
                    if (m->kernel == LM_GAUSS) {
                        lm_mat_get(&a, w->Q, k, bb);
                        lm_num_sub(&b, &a, &b);
                    }
                    lm_num_mul(&b, &b, &c);
                    for (int aa = 0; aa < D; aa++) {
                        lm_mat_get(&a, m->X[i], k, aa);
                        lm_num_mul(&a, &a, &b);
                        lm_mat_set(J, row, aa + D * bb, &a);
                    }
                }
            }
    }
    lm_num_clears(&c, &a, &b, (lm_num *)NULL);
}

void lm_mha_set_y_to_output(lm_mha *m)
{
    lm_mat_zero(m->y);
    lm_mha_forward(m);
    lm_mat_copy(m->y, m->mh);
    lm_mha_forward(m);
}

/* ---- flat parameter vectors ---- */
static int v_free(const lm_mha *m, int a, int b)
{
    return m->wv == LM_WV_DENSE || a / m->D == b / m->d;
}

int lm_mha_nparams(const lm_mha *m, int mask)
{
    int k = 0;
    if (mask & LM_VAR_Q) k += m->H * m->D * m->d;
    if (mask & LM_VAR_K) k += m->H * m->D * m->d;
    if (mask & LM_VAR_V)
        k += m->wv == LM_WV_DENSE ? m->H * m->D * m->H * m->d : m->H * m->D * m->d;
    return k;
}

/* walk every free parameter; dir 0: M -> v, 1: v -> M */
static void walk(lm_mat *v, lm_mha *m, int mask, int dir)
{
    lm_num x;
    lm_num_init(&x, &m->ctx);
    int k = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (!(mask & (pass ? LM_VAR_K : LM_VAR_Q))) continue;
        for (int h = 0; h < m->H; h++) {
            lm_mat *W = pass ? m->Wk[h] : m->Wq[h];
            for (int a = 0; a < m->D; a++)
                for (int b = 0; b < m->d; b++, k++) {
                    if (dir == 0) { lm_mat_get(&x, W, a, b); lm_mat_set(v, k, 0, &x); }
                    else { lm_mat_get(&x, v, k, 0); lm_mat_set(W, a, b, &x); }
                }
        }
    }
    if (mask & LM_VAR_V)
        for (int a = 0; a < m->H * m->D; a++)
            for (int b = 0; b < m->H * m->d; b++) {
                if (!v_free(m, a, b)) continue;
                if (dir == 0) { lm_mat_get(&x, m->Wv, a, b); lm_mat_set(v, k, 0, &x); }
                else { lm_mat_get(&x, v, k, 0); lm_mat_set(m->Wv, a, b, &x); }
                k++;
            }
    lm_num_clear(&x);
}

void lm_mha_get_params(lm_mat *v, const lm_mha *m, int mask)
{
    walk(v, (lm_mha *)m, mask, 0);
}

void lm_mha_set_params(lm_mha *m, int mask, const lm_mat *v)
{
    walk((lm_mat *)v, m, mask, 1);
}

void lm_mha_flat_grad(lm_mat *g, lm_mha *m, int mask)
{
    lm_mat **gQ = lm_xcalloc((size_t)m->H, sizeof *gQ), **gK = lm_xcalloc((size_t)m->H, sizeof *gK);
    for (int h = 0; h < m->H; h++) {
        gQ[h] = lm_mat_new(m->D, m->d, &m->ctx);
        gK[h] = lm_mat_new(m->D, m->d, &m->ctx);
    }
    lm_mat *gV = lm_mat_new(m->H * m->D, m->H * m->d, &m->ctx);
    lm_mha_forward(m);
    lm_mha_grad(m, (mask & LM_VAR_Q) ? gQ : NULL, (mask & LM_VAR_K) ? gK : NULL,
                (mask & LM_VAR_V) ? gV : NULL);
    /* reuse walk on a shadow model holding the gradients */
    lm_mha sh = *m;
    sh.Wq = gQ; sh.Wk = gK; sh.Wv = gV;
    walk(g, &sh, mask, 0);
    for (int h = 0; h < m->H; h++) { lm_mat_free(gQ[h]); lm_mat_free(gK[h]); }
    free(gQ); free(gK);
    lm_mat_free(gV);
}

/* Each trained matrix is updated in place, M += (-eta) G, with the same
 * lm_mat_axpy as on the flat vector (make bench: 2.5x faster at D = 32 than
 * flattening, axpy and unflattening, same values bit for bit: the masked
 * entries of a block W^V have G = 0 exactly and fma(-eta, 0, w) = w). */
void lm_mha_gd_step(lm_mha *m, int mask, const lm_num *eta)
{
    /* the gradients live in the workspace (every entry is overwritten) */
    ws_t *w = m->ws;
    lm_mat **gQ = (mask & LM_VAR_Q) ? w->gq : NULL, **gK = (mask & LM_VAR_K) ? w->gk : NULL;
    lm_mat *gV = (mask & LM_VAR_V) ? w->gv : NULL;
    lm_num neta;
    lm_num_init(&neta, &m->ctx);
    lm_mha_forward(m);
    lm_mha_grad(m, gQ, gK, gV);
    lm_num_neg(&neta, eta);
    for (int h = 0; h < m->H; h++) {
        if (gQ) lm_mat_axpy(m->Wq[h], &neta, gQ[h]);
        if (gK) lm_mat_axpy(m->Wk[h], &neta, gK[h]);
    }
    if (gV) lm_mat_axpy(m->Wv, &neta, gV);
    lm_num_clear(&neta);
}

/* lm_data_mat with lm_input_mat's signature (the matrix is not written) */
static void put_reported(lm_eval *ev, const char *name, lm_mat *M) { lm_data_mat(ev, name, M); }

void lm_mha_data(lm_eval *ev, const lm_mha *m, int input)
{
    void (*put)(lm_eval *, const char *, lm_mat *) = input ? lm_input_mat : put_reported;
    if (!lm_want_data(ev)) return;
    char nm[32];
    for (int i = 0; i < m->N; i++) {
        snprintf(nm, sizeof nm, "X_%d", i + 1);
        put(ev, nm, m->X[i]);
    }
    put(ev, "y", m->y);
    for (int h = 0; h < m->H; h++) {
        snprintf(nm, sizeof nm, "W^Q_%d", h + 1);
        put(ev, nm, m->Wq[h]);
        snprintf(nm, sizeof nm, "W^K_%d", h + 1);
        put(ev, nm, m->Wk[h]);
    }
    put(ev, "W^V", m->Wv);
    put(ev, "W^O", m->Wo);
}
