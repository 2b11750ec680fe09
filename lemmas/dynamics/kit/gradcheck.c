/* gradcheck.c -- the machinery of the closed-form gradient identities
 * (dynamics/lemma1, dynamics/lemma6) and vec/Kronecker (dynamics/lemma5);
 * see lm_gradcheck.h. */
#include "lm_gradcheck.h"
#include <math.h>
#include <stdlib.h>

/* ------------------------------------------------------ matrix helpers */

void lm_gc_absm(lm_mat *B, const lm_mat *A)
{
    lm_ctx c = lm_mat_ctx(A);
    lm_num x;
    lm_num_init(&x, &c);
    for (int i = 0; i < A->r; i++)
        for (int j = 0; j < A->c; j++) {
            lm_mat_get(&x, A, i, j);
            lm_num_abs(&x, &x);
            lm_mat_set(B, i, j, &x);
        }
    lm_num_clear(&x);
}

void lm_gc_kron(lm_mat *R, const lm_mat *P, const lm_mat *Q)
{
    lm_ctx c = lm_mat_ctx(R);
    lm_num p, q;
    lm_num_inits(&c, &p, &q, (lm_num *)NULL);
    for (int i1 = 0; i1 < P->r; i1++)
        for (int j1 = 0; j1 < P->c; j1++) {
            lm_mat_get(&p, P, i1, j1);
            for (int i2 = 0; i2 < Q->r; i2++)
                for (int j2 = 0; j2 < Q->c; j2++) {
                    lm_mat_get(&q, Q, i2, j2);
                    lm_num_mul(&q, &p, &q);
                    lm_mat_set(R, i1 * Q->r + i2, j1 * Q->c + j2, &q);
                }
        }
    lm_num_clears(&p, &q, (lm_num *)NULL);
}

void lm_gc_vec(lm_mat *v, const lm_mat *A, int row)
{
    lm_ctx c = lm_mat_ctx(v);
    lm_num x;
    lm_num_init(&x, &c);
    for (int a = 0; a < A->r; a++)
        for (int b = 0; b < A->c; b++) {
            lm_mat_get(&x, A, a, b);
            lm_mat_set(v, row ? b + A->c * a : a + A->r * b, 0, &x);
        }
    lm_num_clear(&x);
}

double lm_gc_log2_frob(const lm_mat *A)
{
    lm_ctx c = lm_mat_ctx(A);
    lm_num x;
    lm_num_init(&x, &c);
    lm_mat_frob(&x, A);
    double l = lm_num_log_abs_d(&x) / M_LN2;
    lm_num_clear(&x);
    return l;
}

static void free_mats(lm_mat **ms, size_t k)
{
    for (size_t q = 0; q < k; q++)
        if (ms[q]) lm_mat_free(ms[q]);
}
#define FREE_MATS(...)                                                                        \
    do {                                                                                      \
        lm_mat *ms_[] = {__VA_ARGS__};                                                        \
        free_mats(ms_, sizeof ms_ / sizeof *ms_);                                             \
    } while (0)

/* ------------------------------------------------------ the check */

int lm_gc_begin(lm_gc_check *c, lm_eval *ev, lm_mha *m0, int promote, double tol_scale,
                const char *why)
{
    c->ev = ev;
    c->why = why;
    c->k = 0;
    c->w = promote ? lm_ctx_mpfr(256) : *ev->ctx;
    const int pw_bits = (int)c->w.prec;
    c->tau = tol_scale * pow(2.0, -pw_bits / 3.0);
    c->m = lm_mha_convert(m0, &c->w);
    lm_mha_free(m0);
    lm_mha_forward(c->m);
    if (!lm_num_isfinite(&c->m->f)) {
        lm_mha_free(c->m);
        c->m = NULL;
        return -1;
    }
    return 0;
}

void lm_gc_end(lm_gc_check *c)
{
    if (c->m) lm_mha_free(c->m);
    c->m = NULL;
}

double lm_gc_resid(lm_gc_check *c, const lm_mat *F, const lm_mat *R, const lm_mat *nat,
                   const char *label)
{
    lm_eval *ev = c->ev;
    lm_ctx w = lm_mat_ctx(F);
    lm_mat *Dm = lm_mat_new(F->r, F->c, &w);
    lm_num a, b, t;
    lm_num_inits(&w, &a, &b, &t, (lm_num *)NULL);
    lm_mat_sub(Dm, F, R);
    lm_mat_frob(&a, Dm);
    lm_mat_frob(&b, R);
    lm_mat_frob(&t, nat);
    lm_num_add(&b, &b, &t);
    lm_num_div(&t, &a, &b);
    double rel = lm_num_get_d(&t);
    lm_num_mul_d(&b, &b, c->tau);
    if (w.backend == ev->ctx->backend && w.prec == ev->ctx->prec) {
        lm_obs_le(ev, -1, &a, &b, 0.0, "%s", label);
    } else {
        lm_num_div(&t, &a, &b);
        lm_obs_le_d(ev, -1, lm_num_get_d(&t), 1.0, 0.0, "%s [mpfr%ld: %s]", label, (long)w.prec,
                    c->why);
    }
    lm_num_clears(&a, &b, &t, (lm_num *)NULL);
    lm_mat_free(Dm);
    if (c->k < LM_GC_MAXRES) c->rel[c->k++] = rel;
    return rel;
}

void lm_gc_measures(lm_gc_check *c, const char *const *names, int pfd)
{
    lm_eval *ev = c->ev;
    const lm_mha *m = c->m;
    for (int q = 0; q < c->k && names[q]; q++) lm_measure(ev, names[q], c->rel[q]);
    lm_measure(ev, "tolerance tau", c->tau);
    lm_measure(ev, "FD precision (bits)", pfd);
    lm_measure(ev, "N", m->N);
    lm_measure(ev, "n", m->n);
    lm_measure(ev, "D", m->D);
    lm_measure(ev, "d", m->d);
    lm_measure(ev, "H", m->H);
}

/* ------------------------------------------------------ literal pieces */

void lm_gc_Ri(lm_mat *R, const lm_mha *m, int i)
{
    const lm_ctx *c = &m->ctx;
    const int n = m->n, H = m->H, D = m->D, d = m->d, Hn = H * n;
    lm_mat *Vp = lm_mat_new(Hn, H * d, c), *Wvh = lm_mat_new(D, d, c), *T = lm_mat_new(n, d, c);
    for (int h = 0; h < H; h++) {
        lm_mat_get_block(Wvh, m->Wv, h * D, h * d);
        lm_mat_mul(T, m->X[i], 0, Wvh, 0);
        lm_mat_set_block(Vp, h * n, h * d, T);
    }
    lm_mat *ri = lm_mat_new(n, 1, c), *w = lm_mat_new(1, Hn, c);
    lm_mat_get_block(ri, m->r, i * n, 0);
    lm_mat_mul(w, m->Wo, 1, Vp, 1); /* (W^O)^T (V'_i)^T */
    lm_mat_mul(R, ri, 0, w, 0);
    FREE_MATS(Vp, Wvh, T, ri, w);
}

void lm_gc_heads(lm_mat *A, lm_mat *const *Ms, int H, int i)
{
    for (int h = 0; h < H; h++) lm_mat_set_block(A, 0, h * Ms[0]->c, Ms[i * H + h]);
}

void lm_gc_wv_literal(lm_mat *gV, lm_mat *v2a, lm_mat *v2b, const lm_mha *m)
{
    const lm_ctx *w = &m->ctx;
    const int Nn = m->N * m->n, H = m->H, D = m->D, d = m->d;
    lm_mat *B = lm_mat_new(Nn, H * D, w), *Btr = lm_mat_new(H * D, 1, w);
    lm_mha_B(B, m);
    lm_mat_mul(Btr, B, 1, m->r, 0);
    lm_mat_mul(gV, Btr, 0, m->Wo, 1); /* (1) */
    /* (2): (I_Hd (x) B^T)(W^O (x) I_Nn) r and (W^O (x) B^T) r */
    lm_mat *Bt = lm_mat_new(H * D, Nn, w), *IHd = lm_mat_new(H * d, H * d, w);
    lm_mat *INn = lm_mat_new(Nn, Nn, w);
    lm_mat *K1 = lm_mat_new(H * d * H * D, H * d * Nn, w), *K2 = lm_mat_new(H * d * Nn, Nn, w);
    lm_mat *K3 = lm_mat_new(H * d * H * D, Nn, w);
    lm_mat *t2 = lm_mat_new(H * d * Nn, 1, w);
    lm_mat_transpose(Bt, B);
    lm_mat_set_identity(IHd);
    lm_mat_set_identity(INn);
    lm_gc_kron(K1, IHd, Bt);
    lm_gc_kron(K2, m->Wo, INn);
    lm_gc_kron(K3, m->Wo, Bt);
    lm_mat_mul(t2, K2, 0, m->r, 0);
    lm_mat_mul(v2a, K1, 0, t2, 0);
    lm_mat_mul(v2b, K3, 0, m->r, 0);
    FREE_MATS(B, Btr, Bt, IHd, INn, K1, K2, K3, t2);
}

/* ------------------------------------------------------ references */

void lm_gc_dfdC_s3(lm_mat *G, lm_mha *m)
{
    const int n = m->n;
    lm_mat *Gih = lm_mat_new(n, n, &m->ctx);
    for (int i = 0; i < m->N; i++)
        for (int h = 0; h < m->H; h++) {
            lm_mha_dfdC(Gih, m, i, h);
            lm_mat_set_block(G, i * n, h * n, Gih);
        }
    lm_mat_free(Gih);
}

void lm_gc_grad_s3(lm_mat *gQ, lm_mat *gK, lm_mha *m)
{
    const int H = m->H, D = m->D, d = m->d;
    size_t Hs = (size_t)(H > 0 ? H : 1);
    lm_mat **sQ = lm_xcalloc(Hs, sizeof *sQ), **sK = lm_xcalloc(Hs, sizeof *sK);
    for (int h = 0; h < H; h++) {
        sQ[h] = lm_mat_new(D, d, &m->ctx);
        if (gK) sK[h] = lm_mat_new(D, d, &m->ctx);
    }
    lm_mha_grad(m, sQ, gK ? sK : NULL, NULL);
    for (int h = 0; h < H; h++) {
        lm_mat_set_block(gQ, h * D, 0, sQ[h]);
        if (gK) lm_mat_set_block(gK, h * D, 0, sK[h]);
    }
    for (int h = 0; h < H; h++) FREE_MATS(sQ[h], sK[h]);
    free(sQ);
    free(sK);
}

int lm_gc_fd_prec(lm_gc_check *c, const lm_mat *const *nats)
{
    lm_eval *ev = c->ev;
    if (ev->searching) return 0;
    /* Arb (certification): central differences approximate a derivative (truncation error)
     * and are formed in MPFR, so they are no enclosure: no finite-difference references in
     * balls; only the comparisons with exact formulas remain */
    if (c->w.backend == LM_ARB) return 0;
    const int pw_bits = (int)c->w.prec;
    double lf = lm_num_log_abs_d(&c->m->f) / M_LN2;
    double lnat = lm_gc_log2_frob(nats[0]);
    for (int q = 1; nats[q]; q++) lnat = fmin(lnat, lm_gc_log2_frob(nats[q]));
    double need = pw_bits / 2.0 + 64.0 + 1.5 * fmax(0.0, lf - lnat);
    int pfd = 2 * pw_bits > 256 ? 2 * pw_bits : 256;
    if (need > pfd) pfd = (int)ceil(need);
    if (!lm_assume(ev, pfd <= LM_PREC_MAX,
                   "central differences would need %d > %d bits (gradients 2^%.0f of f)", pfd,
                   LM_PREC_MAX, lnat - lf))
        return 0;
    return pfd;
}

/* central difference of a scalar function of one entry: (fp - fm)/(xp - xm) */
typedef struct {
    lm_num x, h, xp, xm, fp, fm, den;
} fd_ws;

static void fd_init(fd_ws *w, const lm_ctx *c)
{
    lm_num_inits(c, &w->x, &w->h, &w->xp, &w->xm, &w->fp, &w->fm, &w->den, (lm_num *)NULL);
}
static void fd_clear(fd_ws *w)
{
    lm_num_clears(&w->x, &w->h, &w->xp, &w->xm, &w->fp, &w->fm, &w->den, (lm_num *)NULL);
}

/* central differences of f over W^Q_h, W^K_h (HD x d stacked) and the dense
 * W^V; a NULL output skips its block */
static void fd_weights(lm_mat *gQ, lm_mat *gK, lm_mat *gV, lm_mha *m, int pfd)
{
    fd_ws w;
    fd_init(&w, &m->ctx);
    double h0 = ldexp(1.0, -pfd / 3);
    for (int blk = 0; blk < 2 * m->H + 1; blk++) {
        lm_mat *W = blk < m->H ? m->Wq[blk] : blk < 2 * m->H ? m->Wk[blk - m->H] : m->Wv;
        lm_mat *G = blk < m->H ? gQ : blk < 2 * m->H ? gK : gV;
        int roff = blk < 2 * m->H ? (blk % m->H) * m->D : 0;
        if (!G) continue;
        for (int a = 0; a < W->r; a++)
            for (int b = 0; b < W->c; b++) {
                lm_mat_get(&w.x, W, a, b);
                lm_num_set_d(&w.h, h0 * fmax(1.0, fabs(lm_num_get_d(&w.x))));
                lm_num_add(&w.xp, &w.x, &w.h);
                lm_num_sub(&w.xm, &w.x, &w.h);
                lm_mat_set(W, a, b, &w.xp);
                lm_mha_forward(m);
                lm_num_set(&w.fp, &m->f);
                lm_mat_set(W, a, b, &w.xm);
                lm_mha_forward(m);
                lm_num_set(&w.fm, &m->f);
                lm_mat_set(W, a, b, &w.x);
                lm_num_sub(&w.fp, &w.fp, &w.fm);
                lm_num_sub(&w.den, &w.xp, &w.xm);
                lm_num_div(&w.fp, &w.fp, &w.den);
                lm_mat_set(G, roff + a, b, &w.fp);
            }
    }
    lm_mha_forward(m);
    fd_clear(&w);
}

/* f_i with C_{i h0} replaced by C0 (S = softmax rows or exp C, by the kernel) */
static void sample_loss(lm_num *f, const lm_mha *m, int i, int h0, const lm_mat *C0)
{
    const lm_ctx *c = &m->ctx;
    const int n = m->n;
    lm_mat *S = lm_mat_new(n, n, c), *uh = lm_mat_new(m->D, 1, c), *v = lm_mat_new(n, 1, c);
    lm_mat *mh = lm_mat_new(n, 1, c), *t = lm_mat_new(n, 1, c), *yi = lm_mat_new(n, 1, c);
    for (int h = 0; h < m->H; h++) {
        const lm_mat *C = h == h0 ? C0 : m->C[i * m->H + h];
        if (m->kernel == LM_SOFTMAX) lm_mat_softmax_rows(S, C);
        else lm_mat_exp(S, C);
        lm_mat_get_block(uh, m->u, h * m->D, 0);
        lm_mat_mul(v, m->X[i], 0, uh, 0);
        lm_mat_mul(t, S, 0, v, 0);
        lm_mat_add(mh, mh, t);
    }
    lm_mat_get_block(yi, m->y, i * n, 0);
    lm_mat_sub(mh, mh, yi);
    lm_mat_frob(f, mh);
    lm_num_sqr(f, f);
    lm_num_mul_d(f, f, 0.5);
    FREE_MATS(S, uh, v, mh, t, yi);
}

/* central differences of f over every logit: G is Nn x Hn (row i*n+k, column h*n+j) */
static void fd_logits(lm_mat *G, lm_mha *m, int pfd)
{
    fd_ws w;
    fd_init(&w, &m->ctx);
    double h0 = ldexp(1.0, -pfd / 3);
    const int n = m->n;
    lm_mat *C0 = lm_mat_new(n, n, &m->ctx);
    for (int i = 0; i < m->N; i++)
        for (int h = 0; h < m->H; h++) {
            lm_mat_copy(C0, m->C[i * m->H + h]);
            for (int k = 0; k < n; k++)
                for (int j = 0; j < n; j++) {
                    lm_mat_get(&w.x, C0, k, j);
                    lm_num_set_d(&w.h, h0 * fmax(1.0, fabs(lm_num_get_d(&w.x))));
                    lm_num_add(&w.xp, &w.x, &w.h);
                    lm_num_sub(&w.xm, &w.x, &w.h);
                    lm_mat_set(C0, k, j, &w.xp);
                    sample_loss(&w.fp, m, i, h, C0);
                    lm_mat_set(C0, k, j, &w.xm);
                    sample_loss(&w.fm, m, i, h, C0);
                    lm_mat_set(C0, k, j, &w.x);
                    lm_num_sub(&w.fp, &w.fp, &w.fm);
                    lm_num_sub(&w.den, &w.xp, &w.xm);
                    lm_num_div(&w.fp, &w.fp, &w.den);
                    lm_mat_set(G, i * n + k, h * n + j, &w.fp);
                }
        }
    lm_mat_free(C0);
    fd_clear(&w);
}

/* central differences of the Gaussian logits over W^Q_h: J (Nn^2 x Dd) */
static void fd_jac(lm_mat *J, lm_mha *m, int h, int pfd)
{
    fd_ws w;
    fd_init(&w, &m->ctx);
    double h0 = ldexp(1.0, -pfd / 3);
    const int n = m->n, D = m->D;
    lm_mat *Cp = lm_mat_new(n, n, &m->ctx), *Cm = lm_mat_new(n, n, &m->ctx);
    lm_mat *Q = lm_mat_new(n, m->d, &m->ctx), *K = lm_mat_new(n, m->d, &m->ctx);
    lm_num sc, a, b;
    lm_num_inits(&m->ctx, &sc, &a, &b, (lm_num *)NULL);
    lm_num_set_d(&sc, (double)m->d);
    lm_num_sqrt(&sc, &sc);
    lm_num_mul_d(&sc, &sc, m->cG);
    for (int aa = 0; aa < D; aa++)
        for (int bb = 0; bb < m->d; bb++) {
            lm_mat_get(&w.x, m->Wq[h], aa, bb);
            lm_num_set_d(&w.h, h0 * fmax(1.0, fabs(lm_num_get_d(&w.x))));
            lm_num_add(&w.xp, &w.x, &w.h);
            lm_num_sub(&w.xm, &w.x, &w.h);
            lm_num_sub(&w.den, &w.xp, &w.xm);
            for (int i = 0; i < m->N; i++) {
                lm_mat_mul(K, m->X[i], 0, m->Wk[h], 0);
                lm_mat_set(m->Wq[h], aa, bb, &w.xp);
                lm_mat_mul(Q, m->X[i], 0, m->Wq[h], 0);
                lm_mat_gauss_logits(Cp, Q, K, &sc);
                lm_mat_set(m->Wq[h], aa, bb, &w.xm);
                lm_mat_mul(Q, m->X[i], 0, m->Wq[h], 0);
                lm_mat_gauss_logits(Cm, Q, K, &sc);
                lm_mat_set(m->Wq[h], aa, bb, &w.x);
                for (int k = 0; k < n; k++)
                    for (int j = 0; j < n; j++) {
                        lm_mat_get(&a, Cp, k, j);
                        lm_mat_get(&b, Cm, k, j);
                        lm_num_sub(&a, &a, &b);
                        lm_num_div(&a, &a, &w.den);
                        lm_mat_set(J, (i * n + k) * n + j, aa + D * bb, &a);
                    }
            }
        }
    lm_num_clears(&sc, &a, &b, (lm_num *)NULL);
    FREE_MATS(Cp, Cm, Q, K);
    fd_clear(&w);
}

void lm_gc_fd_refs(lm_mat *gQ, lm_mat *gK, lm_mat *gV, lm_mat *gG, lm_mat *J, const lm_mha *m,
                   int pfd)
{
    const int Nn = m->N * m->n, n = m->n, H = m->H, D = m->D, d = m->d, nr = Nn * n;
    lm_ctx fc = lm_ctx_mpfr(pfd);
    lm_mha *mf = lm_mha_convert(m, &fc);
    lm_mha_forward(mf);
    lm_mat *fQ = gQ ? lm_mat_new(H * D, d, &fc) : NULL, *fK = gK ? lm_mat_new(H * D, d, &fc) : NULL,
           *fV = gV ? lm_mat_new(H * D, H * d, &fc) : NULL,
           *fG = gG ? lm_mat_new(Nn, H * n, &fc) : NULL;
    fd_weights(fQ, fK, fV, mf, pfd);
    if (gG) fd_logits(fG, mf, pfd);
    if (J) {
        lm_mat *fJ = lm_mat_new(nr, D * d, &fc), *Jh = lm_mat_new(nr, D * d, &m->ctx);
        for (int h = 0; h < H; h++) {
            fd_jac(fJ, mf, h, pfd);
            lm_mat_copy(Jh, fJ);
            lm_mat_set_block(J, h * nr, 0, Jh);
        }
        FREE_MATS(fJ, Jh);
    }
    if (gQ) lm_mat_copy(gQ, fQ);
    if (gK) lm_mat_copy(gK, fK);
    if (gV) lm_mat_copy(gV, fV);
    if (gG) lm_mat_copy(gG, fG);
    FREE_MATS(fQ, fK, fV, fG);
    lm_mha_free(mf);
}

/* ------------------------------------------------------ natural scales */

void lm_gc_natural_scales(lm_mat *natG, lm_mat *natV, const lm_mha *m)
{
    const lm_ctx *c = &m->ctx;
    const int N = m->N, n = m->n, H = m->H, D = m->D, d = m->d;
    lm_mat *aWv = lm_mat_new(H * D, H * d, c), *aWo = lm_mat_new(H * d, 1, c);
    lm_mat *au = lm_mat_new(H * D, 1, c), *auh = lm_mat_new(D, 1, c);
    lm_mat *aX = lm_mat_new(n, D, c), *av = lm_mat_new(N * n, H, c), *t = lm_mat_new(n, 1, c);
    lm_mat *rabs = lm_mat_new(N * n, 1, c), *ay = lm_mat_new(n, 1, c), *col = lm_mat_new(n, 1, c);
    lm_mat *G = lm_mat_new(n, n, c), *aB = lm_mat_new(N * n, H * D, c), *SX = lm_mat_new(n, D, c);
    lm_mat *Btr = lm_mat_new(H * D, 1, c);
    lm_num a, b, s;
    lm_num_inits(c, &a, &b, &s, (lm_num *)NULL);
    lm_gc_absm(aWv, m->Wv);
    lm_gc_absm(aWo, m->Wo);
    lm_mat_mul(au, aWv, 0, aWo, 0);
    /* r_abs = |y_i| + sum_h S_ih |X_i||u_h| and |B|, per sample */
    for (int i = 0; i < N; i++) {
        lm_gc_absm(aX, m->X[i]);
        lm_mat_get_block(ay, m->y, i * n, 0);
        lm_gc_absm(ay, ay);
        for (int h = 0; h < H; h++) {
            lm_mat_get_block(auh, au, h * D, 0);
            lm_mat_mul(t, aX, 0, auh, 0);
            lm_mat_set_block(av, i * n, h, t);
            lm_mat_mul(col, m->S[i * H + h], 0, t, 0);
            lm_mat_add(ay, ay, col); /* r_abs accumulates in ay */
            lm_mat_mul(SX, m->S[i * H + h], 0, aX, 0);
            lm_mat_set_block(aB, i * n, h * D, SX);
        }
        lm_mat_set_block(rabs, i * n, 0, ay);
    }
    /* natG: G = r_abs,i v^T (v = |X_i||u_h|) times S (Gaussian) or the softmax
     * Jacobian on absolute values, S .* (G + rowsum(G .* S)) */
    for (int i = 0; i < N; i++) {
        lm_mat_get_block(ay, rabs, i * n, 0);
        for (int h = 0; h < H; h++) {
            const lm_mat *S = m->S[i * H + h];
            lm_mat_get_block(t, av, i * n, h);
            lm_mat_mul(G, ay, 0, t, 1);
            if (m->kernel == LM_SOFTMAX) {
                for (int k = 0; k < n; k++) {
                    lm_num_set_d(&s, 0.0);
                    for (int p = 0; p < n; p++) {
                        lm_mat_get(&a, G, k, p);
                        lm_mat_get(&b, S, k, p);
                        lm_num_fma(&s, &a, &b, &s);
                    }
                    for (int j = 0; j < n; j++) {
                        lm_mat_get(&a, G, k, j);
                        lm_num_add(&a, &a, &s);
                        lm_mat_get(&b, S, k, j);
                        lm_num_mul(&a, &a, &b);
                        lm_mat_set(G, k, j, &a);
                    }
                }
            } else {
                lm_mat_hadamard(G, G, S);
            }
            lm_mat_set_block(natG, i * n, h * n, G);
        }
    }
    lm_mat_mul(Btr, aB, 1, rabs, 0);
    lm_mat_mul(natV, Btr, 0, aWo, 1);
    lm_num_clears(&a, &b, &s, (lm_num *)NULL);
    FREE_MATS(aWv, aWo, au, auh, aX, av, t, rabs, ay, col, G, aB, SX, Btr);
}
