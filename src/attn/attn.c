/* attn.c -- the one-layer softmax-attention classifier (lm_attn.h), a building block any
 * attention paper can use: forward pass, losses, closed-form gradients (general centred-score form
 * and Assumption-2 form), stable 1 - s_opt and L - L*, logit gaps, the
 * exact low-dimensional representation, and small data fixtures.
 * All of it runs in the data set's context (double or MPFR). */
#include "lm_attn.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------- forward ---------- */

lm_attn_fwd *lm_attn_fwd_new_dims(int n, int T, int d, const lm_ctx *c)
{
    lm_attn_fwd *F = lm_xcalloc(1, sizeof *F);
    F->n = n;
    F->T = T;
    F->gam = lm_mat_new(n, T, c);
    F->a = lm_mat_new(n, T, c);
    F->logs = lm_mat_new(n, T, c);
    F->lomso = lm_mat_new(n, 1, c);
    F->logdel = lm_mat_new(n, 1, c);
    F->marg = lm_mat_new(n, 1, c);
    F->logl = lm_mat_new(n, 1, c);
    F->logdl = lm_mat_new(n, 1, c);
    F->opt = lm_xcalloc((size_t)n, sizeof *F->opt);
    lm_num_init(&F->logL, c);
    F->q = lm_mat_new(d, 1, c);
    F->av = lm_mat_new(T, 1, c);
    F->gv = lm_mat_new(T, 1, c);
    return F;
}

lm_attn_fwd *lm_attn_fwd_new(const lm_attn_data *D) { return lm_attn_fwd_new_dims(D->n, D->T, D->d, &D->ctx); }

void lm_attn_fwd_free(lm_attn_fwd *F)
{
    if (!F) return;
    lm_mat_free(F->gam);
    lm_mat_free(F->a);
    lm_mat_free(F->logs);
    lm_mat_free(F->lomso);
    lm_mat_free(F->logdel);
    lm_mat_free(F->marg);
    lm_mat_free(F->logl);
    lm_mat_free(F->logdl);
    free(F->opt);
    lm_num_clear(&F->logL);
    lm_mat_free(F->q);
    lm_mat_free(F->av);
    lm_mat_free(F->gv);
    free(F);
}

/* x1 (d x 1) = row 0 of X */
static void query_col(lm_mat *x1, const lm_mat *X)
{
    lm_ctx c = lm_mat_ctx(X);
    lm_num v;
    lm_num_init(&v, &c);
    for (int k = 0; k < X->c; k++) {
        lm_mat_get(&v, X, 0, k);
        lm_mat_set(x1, k, 0, &v);
    }
    lm_num_clear(&v);
}

/* log(exp(a)+exp(b)) into r (a may be -inf) */
static void lse2(lm_num *r, const lm_num *a, const lm_num *b, lm_num *w)
{
    if (lm_num_isfinite(a) == 0 && lm_num_sgn(a) < 0) { lm_num_set(r, b); return; }
    if (lm_num_isfinite(b) == 0 && lm_num_sgn(b) < 0) { lm_num_set(r, a); return; }
    /* r = max + log1p(exp(-|a-b|)) */
    lm_num_sub(w, a, b);
    lm_num_abs(w, w);
    lm_num_neg(w, w);
    lm_num_exp(w, w);
    lm_num_log1p(w, w);
    if (lm_num_cmp(a, b) >= 0) lm_num_add(r, a, w);
    else lm_num_add(r, b, w);
}

/* softplus(z) = log(1+e^z), stable */
static void softplus(lm_num *r, const lm_num *z, lm_num *w)
{
    lm_num_abs(w, z);
    lm_num_neg(w, w);
    lm_num_exp(w, w);
    lm_num_log1p(w, w);
    if (lm_num_sgn(z) > 0) lm_num_add(r, z, w);
    else lm_num_set(r, w);
}

static void set_minf(lm_num *r) { lm_num_set_d(r, -INFINITY); }

/* r = a - log(n), with log(n) formed in the context (not rounded to double) */
static void sub_logn(lm_num *r, const lm_num *a, int n, const lm_ctx *c)
{
    lm_num l;
    lm_num_init(&l, c);
    lm_num_set_si(&l, n);
    lm_num_log(&l, &l);
    lm_num_sub(r, a, &l);
    lm_num_clear(&l);
}

static _Thread_local int fast_off;

int lm_attn_fast_paths(int on)
{
    int was = !fast_off;
    fast_off = !on;
    return was;
}

/* every array and the loss of F in double (the fast paths read their raw arrays) */
static int fwd_is_d(const lm_attn_fwd *F)
{
    if (fast_off) return 0;
    const lm_mat *all[] = {F->gv, F->av, F->a, F->logs, F->gam, F->lomso, F->logdel, F->marg, F->logl, F->logdl};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        if (all[k]->mp || all[k]->ab) return 0;
    return !F->logL.mp && !F->logL.ab;
}

/* lse2 in double, operation for operation (a = -inf: b; b = -inf: a) */
static double lse2_d(double a, double b)
{
    if (!isfinite(a) && a < 0.0) return b;
    if (!isfinite(b) && b < 0.0) return a;
    double w = log1p(exp(-fabs(a - b)));
    return !(a < b) ? a + w : b + w;
}

static double softplus_d(double z)
{
    double w = log1p(exp(-fabs(z)));
    return z > 0.0 ? z + w : w;
}

/* forward_row in double: the same IEEE operations in the same order on the raw arrays (a
 * comparison with a NaN counts as "equal", as lm_num_cmp's does; lm_mat_max returns the first
 * NaN, else the first largest entry) */
static void forward_row_d(lm_attn_fwd *F, int i, int *bad, lm_attn_loss loss)
{
    const int T = F->T;
    const double *gv = F->gv->d, *av = F->av->d;
    const size_t row = (size_t)i * (size_t)T;
    int o = 0;
    for (int t = 1; t < T; t++)
        if (gv[t] > gv[o]) o = t;
    double go = gv[o];
    for (int t = 0; t < T; t++)
        if (t != o && gv[t] > go) {
            o = t;
            go = gv[t];
        }
    F->opt[i] = o;
    double gap = INFINITY;
    for (int t = 0; t < T; t++) {
        if (t == o) continue;
        if (!(gv[t] > go || gv[t] < go)) F->unique = 0;
        double gd = go - gv[t];
        if (gd < gap) gap = gd;
    }
    if (gap < F->mingap) F->mingap = gap;
    double m = -INFINITY;
    for (int t = 0, best = -1; t < T; t++) {
        if (isnan(av[t])) {
            m = av[t];
            break;
        }
        if (best < 0 || av[t] > av[best]) best = t, m = av[t];
    }
    double s = 0.0;
    for (int t = 0; t < T; t++) s = s + exp(av[t] - m);
    s = log(s);
    s = s + m;
    for (int t = 0; t < T; t++) {
        F->a->d[row + (size_t)t] = av[t];
        F->logs->d[row + (size_t)t] = av[t] - s;
        F->gam->d[row + (size_t)t] = gv[t];
    }
    double lom = -INFINITY, ld = -INFINITY;
    for (int t = 0; t < T; t++) {
        if (t == o) continue;
        const double v = F->logs->d[row + (size_t)t];
        lom = lse2_d(lom, v);
        double tmp = go - gv[t];
        if (tmp > 0.0) ld = lse2_d(ld, log(tmp) + v);
    }
    F->lomso->d[i] = lom;
    F->logdel->d[i] = ld;
    const double tmp = go - exp(ld);
    F->marg->d[i] = tmp;
    double v;
    if (loss == LM_ATTN_EXP) {
        v = -tmp;
        F->logl->d[i] = v;
        F->logdl->d[i] = v;
    } else {
        v = log(softplus_d(-tmp));
        F->logl->d[i] = v;
        F->logdl->d[i] = -softplus_d(tmp);
    }
    F->logL.d = lse2_d(F->logL.d, v);
    if (!isfinite(v) || !isfinite(tmp)) *bad = 1;
}

/* Everything of the forward pass that follows from the logits F->av and the
 * signed scores F->gv (T x 1) of sequence i. */
static void forward_row(lm_attn_fwd *F, int i, int *bad, lm_attn_loss loss, const lm_ctx *c)
{
    int T = F->T;
    if (fwd_is_d(F)) {
        forward_row_d(F, i, bad, loss);
        return;
    }
    lm_num v, w, m, s, g, go, tmp;
    lm_num_inits(c, &v, &w, &m, &s, &g, &go, &tmp, (lm_num *)NULL);
    /* opt = argmax gamma */
    int o = 0;
    for (int t = 1; t < T; t++)
        if (lm_mat_get_d(F->gv, t, 0) > lm_mat_get_d(F->gv, o, 0)) o = t;
    /* exact comparison in the context for ties / the real argmax */
    lm_mat_get(&go, F->gv, o, 0);
    for (int t = 0; t < T; t++) {
        if (t == o) continue;
        lm_mat_get(&g, F->gv, t, 0);
        if (lm_num_cmp(&g, &go) > 0) { o = t; lm_num_set(&go, &g); }
    }
    F->opt[i] = o;
    double gap = INFINITY;
    for (int t = 0; t < T; t++) {
        if (t == o) continue;
        lm_mat_get(&g, F->gv, t, 0);
        if (lm_num_cmp(&g, &go) == 0) F->unique = 0;
        lm_num_sub(&tmp, &go, &g);
        double gd = lm_num_get_d(&tmp);
        if (gd < gap) gap = gd;
    }
    if (gap < F->mingap) F->mingap = gap;
    /* log-softmax */
    lm_mat_max(&m, F->av);
    lm_num_set_d(&s, 0.0);
    for (int t = 0; t < T; t++) {
        lm_mat_get(&v, F->av, t, 0);
        lm_num_sub(&v, &v, &m);
        lm_num_exp(&v, &v);
        lm_num_add(&s, &s, &v);
    }
    lm_num_log(&s, &s);
    lm_num_add(&s, &s, &m); /* LSE */
    for (int t = 0; t < T; t++) {
        lm_mat_get(&v, F->av, t, 0);
        lm_mat_set(F->a, i, t, &v);
        lm_num_sub(&v, &v, &s);
        lm_mat_set(F->logs, i, t, &v);
        lm_mat_get(&g, F->gv, t, 0);
        lm_mat_set(F->gam, i, t, &g);
    }
    /* log(1 - s_opt) and log delta, both as LSE over tau != opt */
    lm_num lom, ld;
    lm_num_inits(c, &lom, &ld, (lm_num *)NULL);
    set_minf(&lom);
    set_minf(&ld);
    for (int t = 0; t < T; t++) {
        if (t == o) continue;
        lm_mat_get(&v, F->logs, i, t);
        lse2(&lom, &lom, &v, &w);
        lm_mat_get(&g, F->gv, t, 0);
        lm_num_sub(&tmp, &go, &g); /* gamma_opt - gamma_tau >= 0 */
        if (lm_num_sgn(&tmp) > 0) {
            lm_num_log(&tmp, &tmp);
            lm_num_add(&tmp, &tmp, &v);
            lse2(&ld, &ld, &tmp, &w);
        }
    }
    lm_mat_set(F->lomso, i, 0, &lom);
    lm_mat_set(F->logdel, i, 0, &ld);
    /* margin = gamma_opt - delta */
    lm_num_exp(&tmp, &ld);
    lm_num_sub(&tmp, &go, &tmp);
    lm_mat_set(F->marg, i, 0, &tmp);
    if (loss == LM_ATTN_EXP) {
        lm_num_neg(&v, &tmp);
        lm_mat_set(F->logl, i, 0, &v);
        lm_mat_set(F->logdl, i, 0, &v);
    } else {
        lm_num_neg(&v, &tmp);
        softplus(&v, &v, &w); /* ell = log(1+e^-z) */
        lm_num_log(&v, &v);
        lm_mat_set(F->logl, i, 0, &v);
        softplus(&v, &tmp, &w); /* |ell'| = 1/(1+e^z) */
        lm_num_neg(&v, &v);
        lm_mat_set(F->logdl, i, 0, &v);
    }
    lm_mat_get(&v, F->logl, i, 0);
    lse2(&F->logL, &F->logL, &v, &w);
    if (!lm_num_isfinite(&v) || !lm_num_isfinite(&tmp)) *bad = 1;
    lm_num_clears(&lom, &ld, (lm_num *)NULL);
    lm_num_clears(&v, &w, &m, &s, &g, &go, &tmp, (lm_num *)NULL);
}

static void forward_begin(lm_attn_fwd *F, lm_attn_loss loss)
{
    F->loss = loss;
    F->unique = 1;
    F->mingap = INFINITY;
    set_minf(&F->logL);
}

static int forward_end(lm_attn_fwd *F, int bad, const lm_ctx *c)
{
    sub_logn(&F->logL, &F->logL, F->n, c);
    if (!lm_num_isfinite(&F->logL) || !lm_mat_isfinite(F->logs)) bad = 1;
    return bad;
}

/* ---------- double fast paths ----------
 *
 * The queries q_i = W x_i1 of all n sequences in one pass over W, with no
 * BLAS call: a d x d times d x 1 dgemm per sequence read W n times and, from
 * d = 512 up, handed work to OpenBLAS threads for a product of ~1 Mflop.
 * Each entry is summed as OpenBLAS's single-threaded dgemm sums it on the
 * Haswell-class kernels (those this project's OpenBLAS runs): the inner
 * dimension cut into blocks of GEMM_Q = 256 (a remainder between 256 and
 * 512 halved and rounded up to the kernel's unroll of 4), each block an fma
 * chain from 0 in index order, the block sums added in order to a +0 start.
 * So the bits are those of the former per-sequence dgemm whenever that ran
 * single-threaded (d <= 512, or OpenBLAS at one thread) and wherever its
 * threaded driver cuts the same blocks (d = 800 among them); they no longer
 * depend on the thread count.  fma is correctly rounded, so the vector and
 * scalar versions give the same bits. */
static int kblock(int rem)
{
    if (rem >= 512) return 256;
    if (rem > 256) return ((rem / 2 + 3) / 4) * 4;
    return rem;
}

/* rows [a0, a1) of Qt (d x np, Qt[a][i] = q_i[a]) from XT (d x np, XT[k][i] = x_i1[k]) */
static void queries_scalar(double *Qt, const double *W, const double *XT, int d, int np, int a0, int a1)
{
    for (int a = a0; a < a1; a++) {
        const double *w = W + (size_t)a * (size_t)d;
        for (int i = 0; i < np; i++) {
            double c = 0.0;
            for (int ls = 0; ls < d;) {
                int ml = kblock(d - ls);
                double acc = 0.0;
                for (int k = ls; k < ls + ml; k++) acc = fma(w[k], XT[(size_t)k * (size_t)np + (size_t)i], acc);
                c = c + acc;
                ls += ml;
            }
            Qt[(size_t)a * (size_t)np + (size_t)i] = c;
        }
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ATTN_SIMD 1
/* four rows of W at a time against eight (then four) queries: 8 (4) independent fma chains */
__attribute__((target("avx2,fma"))) static void queries_avx2(double *Qt, const double *W, const double *XT, int d,
                                                            int np)
{
    int a = 0;
    for (; a + 4 <= d; a += 4) {
        const double *w0 = W + (size_t)a * (size_t)d, *w1 = w0 + d, *w2 = w1 + d, *w3 = w2 + d;
        int i = 0;
        for (; i + 8 <= np; i += 8) {
            __m256d c0 = _mm256_setzero_pd(), c1 = c0, c2 = c0, c3 = c0, e0 = c0, e1 = c0, e2 = c0, e3 = c0;
            for (int ls = 0; ls < d;) {
                int ml = kblock(d - ls);
                __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0, t0 = s0, t1 = s0, t2 = s0, t3 = s0;
                for (int k = ls; k < ls + ml; k++) {
                    const double *xk = XT + (size_t)k * (size_t)np + (size_t)i;
                    __m256d x = _mm256_loadu_pd(xk), y = _mm256_loadu_pd(xk + 4);
                    __m256d b0 = _mm256_broadcast_sd(w0 + k), b1 = _mm256_broadcast_sd(w1 + k);
                    __m256d b2 = _mm256_broadcast_sd(w2 + k), b3 = _mm256_broadcast_sd(w3 + k);
                    s0 = _mm256_fmadd_pd(b0, x, s0);
                    t0 = _mm256_fmadd_pd(b0, y, t0);
                    s1 = _mm256_fmadd_pd(b1, x, s1);
                    t1 = _mm256_fmadd_pd(b1, y, t1);
                    s2 = _mm256_fmadd_pd(b2, x, s2);
                    t2 = _mm256_fmadd_pd(b2, y, t2);
                    s3 = _mm256_fmadd_pd(b3, x, s3);
                    t3 = _mm256_fmadd_pd(b3, y, t3);
                }
                c0 = _mm256_add_pd(c0, s0);
                c1 = _mm256_add_pd(c1, s1);
                c2 = _mm256_add_pd(c2, s2);
                c3 = _mm256_add_pd(c3, s3);
                e0 = _mm256_add_pd(e0, t0);
                e1 = _mm256_add_pd(e1, t1);
                e2 = _mm256_add_pd(e2, t2);
                e3 = _mm256_add_pd(e3, t3);
                ls += ml;
            }
            double *q = Qt + (size_t)a * (size_t)np + (size_t)i;
            _mm256_storeu_pd(q, c0);
            _mm256_storeu_pd(q + 4, e0);
            _mm256_storeu_pd(q + np, c1);
            _mm256_storeu_pd(q + np + 4, e1);
            _mm256_storeu_pd(q + 2 * np, c2);
            _mm256_storeu_pd(q + 2 * np + 4, e2);
            _mm256_storeu_pd(q + 3 * np, c3);
            _mm256_storeu_pd(q + 3 * np + 4, e3);
        }
        for (; i < np; i += 4) {
            __m256d c0 = _mm256_setzero_pd(), c1 = c0, c2 = c0, c3 = c0;
            for (int ls = 0; ls < d;) {
                int ml = kblock(d - ls);
                __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
                for (int k = ls; k < ls + ml; k++) {
                    __m256d x = _mm256_loadu_pd(XT + (size_t)k * (size_t)np + (size_t)i);
                    s0 = _mm256_fmadd_pd(_mm256_broadcast_sd(w0 + k), x, s0);
                    s1 = _mm256_fmadd_pd(_mm256_broadcast_sd(w1 + k), x, s1);
                    s2 = _mm256_fmadd_pd(_mm256_broadcast_sd(w2 + k), x, s2);
                    s3 = _mm256_fmadd_pd(_mm256_broadcast_sd(w3 + k), x, s3);
                }
                c0 = _mm256_add_pd(c0, s0);
                c1 = _mm256_add_pd(c1, s1);
                c2 = _mm256_add_pd(c2, s2);
                c3 = _mm256_add_pd(c3, s3);
                ls += ml;
            }
            double *q = Qt + (size_t)a * (size_t)np + (size_t)i;
            _mm256_storeu_pd(q, c0);
            _mm256_storeu_pd(q + np, c1);
            _mm256_storeu_pd(q + 2 * np, c2);
            _mm256_storeu_pd(q + 3 * np, c3);
        }
    }
    queries_scalar(Qt, W, XT, d, np, a, d);
}

static int have_avx2_fma(void)
{
    static int have = -1;
    if (have < 0) have = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 1 : 0;
    return have;
}
#endif

void lm_attn_queries_d(double *Q, const double *W, const double *X1, int n, int d)
{
    int np = (n + 3) / 4 * 4;
    double *XT = lm_xcalloc((size_t)d * (size_t)np, sizeof *XT);
    double *Qt = lm_xmalloc((size_t)d * (size_t)np * sizeof *Qt);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < d; k++) XT[(size_t)k * (size_t)np + (size_t)i] = X1[(size_t)i * (size_t)d + (size_t)k];
#ifdef ATTN_SIMD
    if (have_avx2_fma()) queries_avx2(Qt, W, XT, d, np);
    else
#endif
        queries_scalar(Qt, W, XT, d, np, 0, d);
    for (int i = 0; i < n; i++)
        for (int a = 0; a < d; a++) Q[(size_t)i * (size_t)d + (size_t)a] = Qt[(size_t)a * (size_t)np + (size_t)i];
    free(XT);
    free(Qt);
}

/* g = row a of sum_i v_i x_i1^T: g_b = (((0 + v_0a x_0b) + v_1a x_1b) + ...), each
 * product and sum rounded on its own (no fma), as n rank-one products added
 * to a zero matrix round them */
static void expand_row_scalar(double *g, const double *V, const double *X1, int n, int d, int a, int b0)
{
    for (int b = b0; b < d; b++) g[b] = 0.0;
    for (int i = 0; i < n; i++) {
        const double va = V[(size_t)i * (size_t)d + (size_t)a];
        const double *xb = X1 + (size_t)i * (size_t)d;
        for (int b = b0; b < d; b++) {
            double o = va * xb[b];
            g[b] = g[b] + o;
        }
    }
}

#ifdef ATTN_SIMD
/* the same sums, 16 (then 8) columns at a time held in registers across i:
 * four independent add chains hide most of the add latency */
__attribute__((target("avx2"))) static void expand_row_avx2(double *g, const double *V, const double *X1, int n,
                                                           int d, int a)
{
    int b = 0;
    for (; b + 16 <= d; b += 16) {
        __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
        for (int i = 0; i < n; i++) {
            const double *xb = X1 + (size_t)i * (size_t)d + (size_t)b;
            __m256d va = _mm256_broadcast_sd(V + (size_t)i * (size_t)d + (size_t)a);
            s0 = _mm256_add_pd(s0, _mm256_mul_pd(va, _mm256_loadu_pd(xb)));
            s1 = _mm256_add_pd(s1, _mm256_mul_pd(va, _mm256_loadu_pd(xb + 4)));
            s2 = _mm256_add_pd(s2, _mm256_mul_pd(va, _mm256_loadu_pd(xb + 8)));
            s3 = _mm256_add_pd(s3, _mm256_mul_pd(va, _mm256_loadu_pd(xb + 12)));
        }
        _mm256_storeu_pd(g + b, s0);
        _mm256_storeu_pd(g + b + 4, s1);
        _mm256_storeu_pd(g + b + 8, s2);
        _mm256_storeu_pd(g + b + 12, s3);
    }
    for (; b + 8 <= d; b += 8) {
        __m256d s0 = _mm256_setzero_pd(), s1 = s0;
        for (int i = 0; i < n; i++) {
            const double *xb = X1 + (size_t)i * (size_t)d + (size_t)b;
            __m256d va = _mm256_broadcast_sd(V + (size_t)i * (size_t)d + (size_t)a);
            s0 = _mm256_add_pd(s0, _mm256_mul_pd(va, _mm256_loadu_pd(xb)));
            s1 = _mm256_add_pd(s1, _mm256_mul_pd(va, _mm256_loadu_pd(xb + 4)));
        }
        _mm256_storeu_pd(g + b, s0);
        _mm256_storeu_pd(g + b + 4, s1);
    }
    expand_row_scalar(g, V, X1, n, d, a, b);
}
#endif

void lm_attn_expand_row_d(double *g, const double *V, const double *X1, int n, int d, int a)
{
#ifdef ATTN_SIMD
    if (have_avx2_fma()) {
        expand_row_avx2(g, V, X1, n, d, a);
        return;
    }
#endif
    expand_row_scalar(g, V, X1, n, d, a, 0);
}

static int fwd_fast(const lm_attn_data *D, const lm_mat *W)
{
    if (D->ctx.backend != LM_DOUBLE || W->mp || W->ab || W->r != D->d || W->c != D->d) return 0;
    for (int i = 0; i < D->n; i++)
        if (D->X[i]->mp || D->X[i]->ab) return 0;
    return 1;
}

int lm_attn_forward(lm_attn_fwd *F, const lm_attn_data *D, const lm_mat *W, const lm_mat *u,
                  lm_attn_loss loss)
{
    const lm_ctx *c = &D->ctx;
    lm_mat *x1 = lm_mat_new(D->d, 1, c);
    int bad = 0;
    double *Q = NULL;
    if (fwd_fast(D, W) && !F->q->mp && !F->q->ab && D->d > 0 && D->n > 0) {
        size_t nd = (size_t)D->n * (size_t)D->d;
        Q = lm_xmalloc(2 * nd * sizeof *Q);
        for (int i = 0; i < D->n; i++) memcpy(Q + nd + (size_t)i * (size_t)D->d, D->X[i]->d, (size_t)D->d * sizeof *Q);
        lm_attn_queries_d(Q, W->d, Q + nd, D->n, D->d);
    }
    forward_begin(F, loss);
    for (int i = 0; i < D->n; i++) {
        if (Q) {
            memcpy(F->q->d, Q + (size_t)i * (size_t)D->d, (size_t)D->d * sizeof *Q);
        } else {
            query_col(x1, D->X[i]);
            lm_mat_mul(F->q, W, 0, x1, 0);
        }
        lm_mat_mul(F->av, D->X[i], 0, F->q, 0);
        lm_mat_mul(F->gv, D->X[i], 0, u, 0);
        if (D->y[i] < 0) lm_mat_scale_d(F->gv, F->gv, -1.0);
        forward_row(F, i, &bad, loss, c);
    }
    free(Q);
    lm_mat_free(x1);
    return forward_end(F, bad, c);
}

int lm_attn_forward_scores(lm_attn_fwd *F, const lm_mat *A, const lm_mat *G, lm_attn_loss loss)
{
    lm_ctx c = lm_mat_ctx(A);
    lm_num v;
    lm_num_init(&v, &c);
    int bad = 0;
    forward_begin(F, loss);
    for (int i = 0; i < F->n; i++) {
        for (int t = 0; t < F->T; t++) {
            lm_mat_get(&v, A, i, t);
            lm_mat_set(F->av, t, 0, &v);
            lm_mat_get(&v, G, i, t);
            lm_mat_set(F->gv, t, 0, &v);
        }
        forward_row(F, i, &bad, loss, &c);
    }
    lm_num_clear(&v);
    return forward_end(F, bad, &c);
}

void lm_attn_lossval(lm_num *L, const lm_attn_fwd *F) { lm_num_exp(L, &F->logL); }

void lm_attn_margin_direct(lm_num *r, const lm_attn_data *D, const lm_mat *W, const lm_mat *u, int i)
{
    const lm_ctx *c = &D->ctx;
    lm_mat *x1 = lm_mat_new(D->d, 1, c), *q = lm_mat_new(D->d, 1, c);
    lm_mat *a = lm_mat_new(D->T, 1, c), *S = lm_mat_new(1, D->T, c), *at = lm_mat_new(1, D->T, c);
    lm_mat *z = lm_mat_new(D->d, 1, c), *p = lm_mat_new(1, 1, c);
    query_col(x1, D->X[i]);
    lm_mat_mul(q, W, 0, x1, 0);
    lm_mat_mul(a, D->X[i], 0, q, 0);
    lm_mat_transpose(at, a);
    lm_mat_softmax_rows(S, at);
    lm_mat_mul(z, D->X[i], 1, S, 1); /* X^T s */
    lm_mat_mul(p, u, 1, z, 0);
    lm_mat_get(r, p, 0, 0);
    if (D->y[i] < 0) lm_num_neg(r, r);
    lm_mat_free(x1); lm_mat_free(q); lm_mat_free(a); lm_mat_free(S);
    lm_mat_free(at); lm_mat_free(z); lm_mat_free(p);
}

void lm_attn_log_excess(lm_num *r, const lm_attn_fwd *F)
{
    lm_ctx c = lm_mat_ctx(F->gam);
    lm_num ld, go, v, w, acc, z;
    lm_num_inits(&c, &ld, &go, &v, &w, &acc, &z, (lm_num *)NULL);
    set_minf(&acc);
    for (int i = 0; i < F->n; i++) {
        lm_mat_get(&ld, F->logdel, i, 0);
        if (!lm_num_isfinite(&ld)) continue; /* delta = 0: no excess */
        lm_mat_get(&go, F->gam, i, F->opt[i]);
        /* log expm1(delta) = log delta + log(expm1(delta)/delta) */
        lm_num_exp(&v, &ld);
        if (c.backend == LM_DOUBLE && lm_num_get_d(&ld) < -40.0) {
            lm_num_mul_d(&v, &v, 0.5); /* log(expm1(x)/x) = x/2 + O(x^2) */
            lm_num_add(&v, &v, &ld);
        } else {
            lm_num_expm1(&v, &v);
            lm_num_log(&v, &v);
        }
        lm_num_sub(&v, &v, &go); /* log(e^{-g} expm1(delta)) */
        if (F->loss == LM_ATTN_LOGISTIC) {
            /* log log1p(y), y = e^{-g} expm1(delta) / (1 + e^{-g}) */
            lm_num_neg(&z, &go);
            softplus(&w, &z, &ld);
            lm_num_sub(&v, &v, &w); /* log y */
            lm_num_exp(&w, &v);
            if (c.backend == LM_DOUBLE && lm_num_get_d(&v) < -40.0) {
                lm_num_mul_d(&w, &w, -0.5);
                lm_num_add(&v, &v, &w);
            } else {
                lm_num_log1p(&w, &w);
                lm_num_log(&v, &w);
            }
        }
        lse2(&acc, &acc, &v, &w);
    }
    sub_logn(r, &acc, F->n, &c);
    lm_num_clears(&ld, &go, &v, &w, &acc, &z, (lm_num *)NULL);
}

/* ---------- gradients ---------- */

/* C_it = sign * exp(logmag_it - max): scaled coefficients */
static void finish_scaled(lm_mat *C, lm_num *logscale, lm_mat *LM, const int *sg)
{
    lm_ctx c = lm_mat_ctx(C);
    lm_num m, v;
    lm_num_inits(&c, &m, &v, (lm_num *)NULL);
    set_minf(&m);
    int any = 0;
    for (int i = 0; i < C->r; i++)
        for (int t = 0; t < C->c; t++) {
            if (!sg[i * C->c + t]) continue;
            lm_mat_get(&v, LM, i, t);
            if (!any || lm_num_cmp(&v, &m) > 0) lm_num_set(&m, &v);
            any = 1;
        }
    lm_mat_zero(C);
    for (int i = 0; any && i < C->r; i++)
        for (int t = 0; t < C->c; t++) {
            if (!sg[i * C->c + t]) continue;
            lm_mat_get(&v, LM, i, t);
            lm_num_sub(&v, &v, &m);
            lm_num_exp(&v, &v);
            if (sg[i * C->c + t] < 0) lm_num_neg(&v, &v);
            lm_mat_set(C, i, t, &v);
        }
    lm_num_set(logscale, &m);
    lm_num_clears(&m, &v, (lm_num *)NULL);
}

/* lm_attn_grad_coef in double: the same IEEE operations in the same order on the raw arrays
 * (lm_num's double backend is plain exp/log/fma/+; a comparison with a NaN counts as "equal",
 * as lm_num_cmp's does).  At the papers' small sizes the generic lm_num calls were most of a
 * mirror-descent step. */
static void grad_coef_d(lm_mat *C, lm_num *logscale, const lm_attn_fwd *F)
{
    const int n = F->n, T = F->T;
    const double *gam = F->gam->d, *logs = F->logs->d, *logdl = F->logdl->d;
    double *LM = lm_xmalloc(sizeof(double) * (size_t)(n * T) + 1);
    int *sg = lm_xcalloc((size_t)(n * T), sizeof *sg);
    const double logn = log((double)n);
    for (int i = 0; i < n; i++) {
        const double base = logdl[i] - logn;
        const double *gi = gam + (size_t)i * (size_t)T, *li = logs + (size_t)i * (size_t)T;
        for (int t = 0; t < T; t++) {
            const double g = gi[t];
            double M = 0.0;
            int first = 1;
            for (int tp = 0; tp < T; tp++) {
                if (tp == t || !(gi[tp] > g || gi[tp] < g)) continue;
                if (first || li[tp] > M) M = li[tp];
                first = 0;
            }
            if (first) continue;
            double S = 0.0;
            for (int tp = 0; tp < T; tp++) {
                if (tp == t) continue;
                const double d2 = g - gi[tp];
                if (d2 == 0.0) continue;
                S = fma(exp(li[tp] - M), d2, S);
            }
            const int sgn = (S > 0.0) - (S < 0.0);
            if (sgn == 0 || T < 2) continue;
            sg[i * T + t] = -sgn;
            double v = log(fabs(S)) + M;
            v = v + li[t];
            LM[i * T + t] = v + base;
        }
    }
    /* finish_scaled */
    double m = -INFINITY;
    int any = 0;
    for (int k = 0; k < n * T; k++) {
        if (!sg[k]) continue;
        if (!any || LM[k] > m) m = LM[k];
        any = 1;
    }
    lm_mat_zero(C);
    for (int k = 0; any && k < n * T; k++) {
        if (!sg[k]) continue;
        const double v = exp(LM[k] - m);
        C->d[k] = sg[k] < 0 ? -v : v;
    }
    lm_num_set_d(logscale, m);
    free(LM);
    free(sg);
}

void lm_attn_grad_coef(lm_mat *C, lm_num *logscale, const lm_attn_fwd *F)
{
    if (!C->mp && !C->ab && fwd_is_d(F) && !logscale->mp && !logscale->ab) {
        grad_coef_d(C, logscale, F);
        return;
    }
    lm_ctx c = lm_mat_ctx(F->gam);
    int n = F->n, T = F->T;
    lm_mat *LM = lm_mat_new(n, T, &c);
    int *sg = lm_xcalloc((size_t)(n * T), sizeof *sg);
    lm_num M, S, v, g, g2, base;
    lm_num_inits(&c, &M, &S, &v, &g, &g2, &base, (lm_num *)NULL);
    for (int i = 0; i < n; i++) {
        lm_mat_get(&base, F->logdl, i, 0);
        sub_logn(&base, &base, n, &c);
        for (int t = 0; t < T; t++) {
            /* centred score c_it = sum_{t' != t} s_it' (gamma_t - gamma_t'),
             * scaled by exp(-M), M = max log s_it' over the terms that
             * contribute (gamma_t' != gamma_t): scaling by a term whose score
             * difference is zero lets the others underflow to exactly 0 */
            int first = 1;
            lm_mat_get(&g, F->gam, i, t);
            for (int tp = 0; tp < T; tp++) {
                if (tp == t) continue;
                lm_mat_get(&g2, F->gam, i, tp);
                if (lm_num_cmp(&g2, &g) == 0) continue;
                lm_mat_get(&v, F->logs, i, tp);
                if (first || lm_num_cmp(&v, &M) > 0) lm_num_set(&M, &v);
                first = 0;
            }
            if (first) continue; /* every difference is zero: c_it = 0 exactly */
            lm_num_set_d(&S, 0.0);
            for (int tp = 0; tp < T; tp++) {
                if (tp == t) continue;
                lm_mat_get(&g2, F->gam, i, tp);
                lm_num_sub(&g2, &g, &g2);
                if (lm_num_iszero(&g2)) continue; /* exactly 0 (and exp could overflow) */
                lm_mat_get(&v, F->logs, i, tp);
                lm_num_sub(&v, &v, &M);
                lm_num_exp(&v, &v);
                lm_num_fma(&S, &v, &g2, &S);
            }
            int sgn = lm_num_sgn(&S);
            if (sgn == 0 || T < 2) continue;
            sg[i * T + t] = -sgn; /* ell' < 0 */
            lm_num_abs(&S, &S);
            lm_num_log(&S, &S);
            lm_num_add(&S, &S, &M);
            lm_mat_get(&v, F->logs, i, t);
            lm_num_add(&S, &S, &v);
            lm_num_add(&S, &S, &base);
            lm_mat_set(LM, i, t, &S);
        }
    }
    finish_scaled(C, logscale, LM, sg);
    lm_num_clears(&M, &S, &v, &g, &g2, &base, (lm_num *)NULL);
    lm_mat_free(LM);
    free(sg);
}

void lm_attn_grad_coef_a2(lm_mat *C, lm_num *logscale, const lm_attn_fwd *F)
{
    lm_ctx c = lm_mat_ctx(F->gam);
    int n = F->n, T = F->T;
    lm_mat *LM = lm_mat_new(n, T, &c);
    int *sg = lm_xcalloc((size_t)(n * T), sizeof *sg);
    lm_num v, g, base, lso;
    lm_num_inits(&c, &v, &g, &base, &lso, (lm_num *)NULL);
    for (int i = 0; i < n && T > 1; i++) {
        int o = F->opt[i], tau = o == 0 ? 1 : 0;
        lm_mat_get(&v, F->gam, i, o);
        lm_mat_get(&g, F->gam, i, tau);
        lm_num_sub(&g, &v, &g); /* Gamma_i */
        if (lm_num_sgn(&g) <= 0) continue;
        lm_num_log(&g, &g);
        lm_mat_get(&base, F->logdl, i, 0);
        sub_logn(&base, &base, n, &c);
        lm_num_add(&base, &base, &g);
        lm_mat_get(&lso, F->logs, i, o);
        lm_num_add(&base, &base, &lso); /* log(|ell'| Gamma s_opt / n) */
        for (int t = 0; t < T; t++) {
            if (t == o) lm_mat_get(&v, F->lomso, i, 0); /* 1 - s_opt */
            else lm_mat_get(&v, F->logs, i, t);
            if (!lm_num_isfinite(&v)) continue;
            lm_num_add(&v, &v, &base);
            lm_mat_set(LM, i, t, &v);
            sg[i * T + t] = t == o ? -1 : 1;
        }
    }
    finish_scaled(C, logscale, LM, sg);
    lm_num_clears(&v, &g, &base, &lso, (lm_num *)NULL);
    lm_mat_free(LM);
    free(sg);
}

int lm_attn_expand_factors(double *V, double *X1, const lm_mat *C, const lm_attn_data *D)
{
    const lm_ctx *c = &D->ctx;
    if (c->backend != LM_DOUBLE) return 1;
    lm_mat *ci = lm_mat_new(D->T, 1, c), *vi = lm_mat_new(D->d, 1, c);
    lm_num v;
    lm_num_init(&v, c);
    for (int i = 0; i < D->n; i++) {
        for (int t = 0; t < D->T; t++) {
            lm_mat_get(&v, C, i, t);
            lm_mat_set(ci, t, 0, &v);
        }
        lm_mat_mul(vi, D->X[i], 1, ci, 0);
        memcpy(V + (size_t)i * (size_t)D->d, vi->d, (size_t)D->d * sizeof *V);
        memcpy(X1 + (size_t)i * (size_t)D->d, D->X[i]->d, (size_t)D->d * sizeof *X1);
    }
    lm_num_clear(&v);
    lm_mat_free(ci);
    lm_mat_free(vi);
    return 0;
}

void lm_attn_expand(lm_mat *G, const lm_mat *C, const lm_num *logscale, const lm_attn_data *D)
{
    const lm_ctx *c = &D->ctx;
    lm_num v;
    lm_num_init(&v, c);
    /* double: G_ab = (((0 + v_0a x_0b) + v_1a x_1b) + ...), each product and
     * sum rounded as the rank-one products and matrix additions below round
     * them, but in one pass over G instead of 2n passes over d x d matrices */
    if (c->backend == LM_DOUBLE && !G->mp && !G->ab) {
        const int d = D->d, n = D->n;
        double *V = lm_xmalloc((size_t)n * (size_t)d * 2 * sizeof *V);
        lm_attn_expand_factors(V, V + (size_t)n * (size_t)d, C, D);
        for (int a = 0; a < d; a++)
            lm_attn_expand_row_d(G->d + (size_t)a * (size_t)G->c, V, V + (size_t)n * (size_t)d, n, d, a);
        free(V);
    } else {
        lm_mat *ci = lm_mat_new(D->T, 1, c), *vi = lm_mat_new(D->d, 1, c);
        lm_mat *x1 = lm_mat_new(D->d, 1, c), *O = lm_mat_new(D->d, D->d, c);
        lm_mat_zero(G);
        for (int i = 0; i < D->n; i++) {
            for (int t = 0; t < D->T; t++) {
                lm_mat_get(&v, C, i, t);
                lm_mat_set(ci, t, 0, &v);
            }
            lm_mat_mul(vi, D->X[i], 1, ci, 0);
            query_col(x1, D->X[i]);
            lm_mat_mul(O, vi, 0, x1, 1);
            lm_mat_add(G, G, O);
        }
        lm_mat_free(ci); lm_mat_free(vi); lm_mat_free(x1); lm_mat_free(O);
    }
    if (logscale) {
        lm_num_exp(&v, logscale);
        lm_mat_scale(G, G, &v);
    }
    lm_num_clear(&v);
}

void lm_attn_grad_W(lm_mat *G, const lm_attn_fwd *F, const lm_attn_data *D)
{
    lm_mat *C = lm_mat_new(D->n, D->T, &D->ctx);
    lm_num ls;
    lm_num_init(&ls, &D->ctx);
    lm_attn_grad_coef(C, &ls, F);
    if (lm_num_isfinite(&ls)) lm_attn_expand(G, C, &ls, D);
    else lm_mat_zero(G);
    lm_num_clear(&ls);
    lm_mat_free(C);
}

void lm_attn_grad_u(lm_mat *g, const lm_attn_fwd *F, const lm_attn_data *D)
{
    const lm_ctx *c = &D->ctx;
    lm_mat *ci = lm_mat_new(D->T, 1, c), *vi = lm_mat_new(D->d, 1, c);
    lm_num v, b;
    lm_num_inits(c, &v, &b, (lm_num *)NULL);
    lm_mat_zero(g);
    for (int i = 0; i < D->n; i++) {
        lm_mat_get(&b, F->logdl, i, 0);
        sub_logn(&b, &b, D->n, c);
        for (int t = 0; t < D->T; t++) {
            lm_mat_get(&v, F->logs, i, t);
            lm_num_add(&v, &v, &b);
            lm_num_exp(&v, &v);
            if (D->y[i] > 0) lm_num_neg(&v, &v); /* ell' y_i s_it, ell' < 0 */
            lm_mat_set(ci, t, 0, &v);
        }
        lm_mat_mul(vi, D->X[i], 1, ci, 0);
        lm_mat_add(g, g, vi);
    }
    lm_num_clears(&v, &b, (lm_num *)NULL);
    lm_mat_free(ci); lm_mat_free(vi);
}

/* ---------- gaps, cosines ---------- */

void lm_attn_gaps(lm_mat *h, const lm_attn_data *D, const lm_mat *W, const int *opt)
{
    const lm_ctx *c = &D->ctx;
    lm_mat *x1 = lm_mat_new(D->d, 1, c), *q = lm_mat_new(D->d, 1, c);
    lm_mat *df = lm_mat_new(1, D->d, c), *r = lm_mat_new(1, 1, c);
    lm_num v, w;
    lm_num_inits(c, &v, &w, (lm_num *)NULL);
    lm_mat_zero(h);
    for (int i = 0; i < D->n; i++) {
        int o = opt ? opt[i] : D->opt[i];
        if (o < 0) continue;
        query_col(x1, D->X[i]);
        lm_mat_mul(q, W, 0, x1, 0);
        for (int t = 0; t < D->T; t++) {
            if (t == o) continue;
            for (int k = 0; k < D->d; k++) {
                lm_mat_get(&v, D->X[i], o, k);
                lm_mat_get(&w, D->X[i], t, k);
                lm_num_sub(&v, &v, &w);
                lm_mat_set(df, 0, k, &v);
            }
            lm_mat_mul(r, df, 0, q, 0);
            lm_mat_get(&v, r, 0, 0);
            lm_mat_set(h, i, t, &v);
        }
    }
    lm_num_clears(&v, &w, (lm_num *)NULL);
    lm_mat_free(x1); lm_mat_free(q); lm_mat_free(df); lm_mat_free(r);
}

void lm_attn_one_minus_cos(lm_num *r, const lm_mat *A, const lm_mat *B)
{
    lm_ctx c = lm_mat_ctx(A);
    lm_mat *Dm = lm_mat_new(A->r, A->c, &c), *Bn = lm_mat_new(A->r, A->c, &c);
    lm_num na, nb;
    lm_num_inits(&c, &na, &nb, (lm_num *)NULL);
    lm_mat_frob(&na, A);
    lm_num_set_d(&nb, 1.0);
    lm_num_div(&na, &nb, &na);
    lm_mat_scale(Dm, A, &na);
    lm_mat_frob(&nb, B);
    lm_num_set_d(&na, 1.0);
    lm_num_div(&nb, &na, &nb);
    lm_mat_scale(Bn, B, &nb);
    lm_mat_sub(Dm, Dm, Bn);
    lm_mat_frob(r, Dm);
    lm_num_sqr(r, r);
    lm_num_mul_d(r, r, 0.5);
    lm_num_clears(&na, &nb, (lm_num *)NULL);
    lm_mat_free(Dm);
    lm_mat_free(Bn);
}

/* ---------- low-dimensional representation ---------- */

lm_attn_lowdim *lm_attn_lowdim_new(const lm_attn_data *D, const lm_mat *W0)
{
    const lm_ctx *c = &D->ctx;
    int n = D->n, T = D->T, N = n * T;
    lm_attn_lowdim *R = lm_xcalloc(1, sizeof *R);
    R->n = n;
    R->T = T;
    R->K = lm_mat_new(N, N, c);
    R->P = lm_mat_new(n, T, c);
    lm_num_init(&R->w0n2, c);
    lm_mat *A = lm_mat_new(N, D->d, c);
    for (int i = 0; i < n; i++) lm_mat_set_block(A, i * T, 0, D->X[i]);
    lm_mat_mul(R->K, A, 0, A, 1);
    if (!W0) { /* W_0 = 0: P = 0, ||W_0|| = 0 without a d x d product */
        lm_num_set_d(&R->w0n2, 0.0);
        lm_mat_free(A);
        return R;
    }
    lm_mat *x1 = lm_mat_new(D->d, 1, c), *q = lm_mat_new(D->d, 1, c), *a = lm_mat_new(T, 1, c);
    lm_num v;
    lm_num_init(&v, c);
    for (int i = 0; i < n; i++) {
        query_col(x1, D->X[i]);
        lm_mat_mul(q, W0, 0, x1, 0);
        lm_mat_mul(a, D->X[i], 0, q, 0);
        for (int t = 0; t < T; t++) {
            lm_mat_get(&v, a, t, 0);
            lm_mat_set(R->P, i, t, &v);
        }
    }
    lm_mat_frob(&R->w0n2, W0);
    lm_num_sqr(&R->w0n2, &R->w0n2);
    lm_num_clear(&v);
    lm_mat_free(A); lm_mat_free(x1); lm_mat_free(q); lm_mat_free(a);
    return R;
}

void lm_attn_lowdim_free(lm_attn_lowdim *R)
{
    if (!R) return;
    lm_mat_free(R->K);
    lm_mat_free(R->P);
    lm_num_clear(&R->w0n2);
    free(R);
}

void lm_attn_lowdim_logits(lm_mat *a, const lm_attn_lowdim *R, double w, const lm_mat *C)
{
    lm_ctx c = lm_mat_ctx(R->K);
    int n = R->n, T = R->T;
    lm_num s, k1, k2, cc;
    lm_num_inits(&c, &s, &k1, &k2, &cc, (lm_num *)NULL);
    for (int i = 0; i < n; i++)
        for (int si = 0; si < T; si++) {
            lm_mat_get(&s, R->P, i, si);
            lm_num_mul_d(&s, &s, w);
            for (int j = 0; j < n; j++) {
                lm_mat_get(&k2, R->K, j * T, i * T); /* x_j1 . x_i1 */
                for (int t = 0; t < T; t++) {
                    lm_mat_get(&cc, C, j, t);
                    if (lm_num_iszero(&cc)) continue;
                    lm_mat_get(&k1, R->K, i * T + si, j * T + t);
                    lm_num_mul(&k1, &k1, &k2);
                    lm_num_fma(&s, &cc, &k1, &s);
                }
            }
            lm_mat_set(a, i, si, &s);
        }
    lm_num_clears(&s, &k1, &k2, &cc, (lm_num *)NULL);
}

void lm_attn_lowdim_inner(lm_num *r, const lm_attn_lowdim *R, const lm_num *w, const lm_mat *C,
                        const lm_num *v, const lm_mat *C2)
{
    lm_ctx c = lm_mat_ctx(R->K);
    int n = R->n, T = R->T, N = n * T;
    lm_num s, t1, p, k;
    lm_num_inits(&c, &s, &t1, &p, &k, (lm_num *)NULL);
    lm_num_mul(&s, w, v);
    lm_num_mul(&s, &s, &R->w0n2);
    for (int a = 0; a < N; a++) {
        lm_mat_get(&p, R->P, a / T, a % T);
        lm_mat_get(&t1, C2, a / T, a % T);
        lm_num_mul(&t1, &t1, w);
        lm_num_fma(&s, &t1, &p, &s);
        lm_mat_get(&t1, C, a / T, a % T);
        lm_num_mul(&t1, &t1, v);
        lm_num_fma(&s, &t1, &p, &s);
    }
    for (int a = 0; a < N; a++) {
        lm_mat_get(&t1, C, a / T, a % T);
        if (lm_num_iszero(&t1)) continue;
        for (int b = 0; b < N; b++) {
            lm_mat_get(&p, C2, b / T, b % T);
            if (lm_num_iszero(&p)) continue;
            lm_mat_get(&k, R->K, (a / T) * T, (b / T) * T);
            lm_num_mul(&p, &p, &k);
            lm_mat_get(&k, R->K, a, b);
            lm_num_mul(&p, &p, &k);
            lm_num_fma(&s, &t1, &p, &s);
        }
    }
    lm_num_set(r, &s);
    lm_num_clears(&s, &t1, &p, &k, (lm_num *)NULL);
}

void lm_attn_lowdim_expand(lm_mat *W, const lm_mat *C, double w, const lm_mat *W0,
                         const lm_attn_data *D)
{
    lm_attn_expand(W, C, NULL, D);
    if (W0 && w != 0.0) lm_mat_axpy_d(W, w, W0);
}

/* ---------- fixtures ---------- */

int lm_attn_set_opt(lm_attn_data *D)
{
    lm_mat *g = lm_mat_new(D->T, 1, &D->ctx);
    lm_num a, b;
    lm_num_inits(&D->ctx, &a, &b, (lm_num *)NULL);
    int all = 1;
    for (int i = 0; i < D->n; i++) {
        lm_mat_mul(g, D->X[i], 0, D->u, 0);
        int o = 0, tie = 0;
        for (int t = 1; t < D->T; t++) {
            lm_mat_get(&a, g, t, 0);
            lm_mat_get(&b, g, o, 0);
            int cmp = lm_num_cmp(&a, &b) * D->y[i];
            if (cmp > 0) { o = t; tie = 0; }
            else if (cmp == 0) tie = 1;
        }
        D->opt[i] = tie ? -1 : o;
        if (tie) all = 0;
    }
    lm_num_clears(&a, &b, (lm_num *)NULL);
    lm_mat_free(g);
    return all;
}

lm_attn_data *lm_attn_toy_data(lm_rng *g, int n, int T, int d, int a2, const lm_ctx *ctx)
{
    lm_attn_data *D = lm_attn_data_new(n, T, d, ctx);
    double sig = 1.0 / sqrt((double)d);
    if (a2) {
        lm_mat_set_d(D->u, 0, 0, 3.0);
        for (int i = 0; i < n; i++) {
            D->y[i] = lm_rng_uniform(g) < 0.5 ? -1 : 1;
            int o = lm_rng_int(g, 0, T - 1);
            double mu = 0.1 + 0.5 * lm_rng_uniform(g);
            double ci = -0.2 + 0.25 * lm_rng_uniform(g);
            for (int t = 0; t < T; t++) {
                double ct = 0.5 + 1.5 * lm_rng_uniform(g);
                lm_mat_set_d(D->X[i], t, 0, D->y[i] * (t == o ? mu : ci));
                for (int k = 1; k < d; k++)
                    lm_mat_set_d(D->X[i], t, k, ct * sig * lm_rng_normal(g));
            }
        }
    } else {
        for (int k = 0; k < d; k++) lm_mat_set_d(D->u, k, 0, lm_rng_normal(g));
        for (int i = 0; i < n; i++) {
            D->y[i] = lm_rng_uniform(g) < 0.5 ? -1 : 1;
            for (int t = 0; t < T; t++)
                for (int k = 0; k < d; k++) lm_mat_set_d(D->X[i], t, k, sig * lm_rng_normal(g));
        }
    }
    lm_attn_set_opt(D);
    return D;
}

int lm_attn_sep_direction(lm_mat *C, const lm_attn_data *D, const int *opt)
{
    const lm_ctx *c = &D->ctx;
    int n = D->n, T = D->T, m = n * (T - 1);
    if (m <= 0) return 1;
    lm_mat *Df = lm_mat_new(m, D->d, c), *X1 = lm_mat_new(m, D->d, c);
    lm_mat *Q = lm_mat_new(m, m, c), *Q1 = lm_mat_new(m, m, c);
    lm_mat *one = lm_mat_new(m, 1, c), *al = lm_mat_new(m, 1, c);
    int *ci = lm_xcalloc((size_t)m, sizeof *ci), *ct = lm_xcalloc((size_t)m, sizeof *ct);
    lm_num v, w;
    lm_num_inits(c, &v, &w, (lm_num *)NULL);
    int a = 0, rc = 0;
    for (int i = 0; i < n; i++) {
        int o = opt ? opt[i] : D->opt[i];
        if (o < 0) { rc = 1; goto out; }
        for (int t = 0; t < T; t++) {
            if (t == o) continue;
            for (int k = 0; k < D->d; k++) {
                lm_mat_get(&v, D->X[i], o, k);
                lm_mat_get(&w, D->X[i], t, k);
                lm_num_sub(&v, &v, &w);
                lm_mat_set(Df, a, k, &v);
                lm_mat_get(&v, D->X[i], 0, k);
                lm_mat_set(X1, a, k, &v);
            }
            ci[a] = i;
            ct[a] = t;
            a++;
        }
    }
    lm_mat_mul(Q, Df, 0, Df, 1);
    lm_mat_mul(Q1, X1, 0, X1, 1);
    lm_mat_hadamard(Q, Q, Q1);
    for (int k = 0; k < m; k++) lm_mat_set_d(one, k, 0, 1.0);
    rc = lm_mat_solve(al, Q, one);
    if (rc || !lm_mat_isfinite(al)) { rc = 1; goto out; }
    lm_mat_zero(C);
    for (int k = 0; k < m; k++) {
        int i = ci[k], o = opt ? opt[i] : D->opt[i];
        lm_mat_get(&v, al, k, 0);
        lm_mat_get(&w, C, i, o);
        lm_num_add(&w, &w, &v);
        lm_mat_set(C, i, o, &w);
        lm_mat_get(&w, C, i, ct[k]);
        lm_num_sub(&w, &w, &v);
        lm_mat_set(C, i, ct[k], &w);
    }
out:
    lm_num_clears(&v, &w, (lm_num *)NULL);
    lm_mat_free(Df); lm_mat_free(X1); lm_mat_free(Q); lm_mat_free(Q1);
    lm_mat_free(one); lm_mat_free(al);
    free(ci);
    free(ct);
    return rc;
}
