/* src/models/pc.c -- the preconditioned softmax-regression model (see lm_pc.h) */
#include "lm_pc.h"
#include "lm_vmath.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ helpers */

static lm_mat *mnew(int r, int c, const lm_ctx *ctx)
{
    return lm_mat_new(r, c, ctx);
}

/* A *= a / n with a / n formed in A's context (1/7 is not a double) */
static void scale_frac(lm_mat *A, double a, double n)
{
    lm_ctx c = lm_mat_ctx(A);
    lm_num x;
    lm_num_init(&x, &c);
    lm_num_set_d(&x, a);
    lm_num_div_d(&x, &x, n);
    lm_mat_scale(A, A, &x);
    lm_num_clear(&x);
}

int lm_pc_sympow(lm_mat *out, const lm_mat *S, double pw)
{
    int n = S->r;
    lm_ctx c = lm_mat_ctx(S);
    lm_num *w = lm_nums_new(n, &c);
    lm_mat *Q = mnew(n, n, &c), *T = mnew(n, n, &c);
    int rc = lm_mat_symeig(w, Q, S);
    lm_num x, e;
    lm_num_inits(&c, &x, &e, (lm_num *)NULL);
    lm_num_set_d(&e, pw);
    for (int j = 0; !rc && j < n; j++) {
        if (lm_num_sgn(&w[j]) <= 0) {
            rc = 1;
            break;
        }
        if (pw == 0.5) lm_num_sqrt(&x, &w[j]);
        else if (pw == -1.0) {
            lm_num_set_d(&x, 1.0);
            lm_num_div(&x, &x, &w[j]);
        } else if (pw == -0.5) {
            lm_num_sqrt(&x, &w[j]);
            lm_num_set_d(&e, 1.0);
            lm_num_div(&x, &e, &x);
            lm_num_set_d(&e, pw);
        } else lm_num_pow(&x, &w[j], &e);
        for (int i = 0; i < n; i++) {
            lm_num q;
            lm_num_init(&q, &c);
            lm_mat_get(&q, Q, i, j);
            lm_num_mul(&q, &q, &x);
            lm_mat_set(T, i, j, &q);
            lm_num_clear(&q);
        }
    }
    if (!rc) lm_mat_mul(out, T, 0, Q, 1);
    lm_num_clears(&x, &e, (lm_num *)NULL);
    lm_nums_free(w, n);
    lm_mat_free(Q);
    lm_mat_free(T);
    return rc;
}

/* lower Cholesky factor in double; 1 if not positive definite */
static int chol_d(double *L, const double *A, int n)
{
    memset(L, 0, sizeof(double) * (size_t)(n * n));
    for (int j = 0; j < n; j++) {
        double s = A[j * n + j];
        for (int k = 0; k < j; k++) s -= L[j * n + k] * L[j * n + k];
        if (!(s > 0)) return 1;
        L[j * n + j] = sqrt(s);
        for (int i = j + 1; i < n; i++) {
            double t = A[i * n + j];
            for (int k = 0; k < j; k++) t -= L[i * n + k] * L[j * n + k];
            L[i * n + j] = t / L[j * n + j];
        }
    }
    return 0;
}

/* ------------------------------------------------------------ instance */

static lm_pcdata *alloc_data(int d, int k, const lm_ctx *c)
{
    lm_pcdata *P = lm_xcalloc(1, sizeof *P);
    P->d = d;
    P->k = k;
    P->ctx = *c;
    P->Sig = mnew(d, d, c);
    P->Sh = mnew(d, d, c);
    P->Sih = mnew(d, d, c);
    P->Si = mnew(d, d, c);
    P->Lc = mnew(d, d, c);
    P->Ws = mnew(k, d, c);
    P->Ms = mnew(k, d, c);
    P->U = mnew(k, d, c);
    P->s = lm_nums_new(d, c);
    P->V = mnew(d, d, c);
    P->lambda = 0.25;
    P->sigma = 0.1;
    return P;
}

void lm_pc_free(lm_pcdata *P)
{
    if (!P) return;
    lm_mat_free(P->Sig); lm_mat_free(P->Sh); lm_mat_free(P->Sih); lm_mat_free(P->Si);
    lm_mat_free(P->Lc); lm_mat_free(P->Ws); lm_mat_free(P->Ms); lm_mat_free(P->U);
    lm_mat_free(P->V);
    lm_nums_free(P->s, P->d);
    free(P);
}

int lm_pc_prepare(lm_pcdata *P)
{
    int d = P->d;
    int rc = lm_pc_sympow(P->Sh, P->Sig, 0.5);
    rc |= lm_pc_sympow(P->Sih, P->Sig, -0.5);
    rc |= lm_pc_sympow(P->Si, P->Sig, -1.0);
    lm_mat_mul(P->Ms, P->Ws, 0, P->Sh, 0);
    rc |= lm_mat_svd(P->s, P->U, P->V, P->Ms);
    /* Cholesky of Sigma (rounded to double) for sampling */
    double *A = lm_xmalloc(sizeof(double) * (size_t)(d * d)), *L = lm_xmalloc(sizeof(double) * (size_t)(d * d));
    lm_mat_get_array(A, P->Sig);
    rc |= chol_d(L, A, d);
    lm_mat_set_array(P->Lc, L);
    free(A);
    free(L);
    return rc;
}

lm_pcdata *lm_pc_gen(int d, int k, double csig, double kappa, double tau, double sigma, double lambda,
                     lm_rng *g, const lm_ctx *c)
{
    lm_ctx cd = lm_ctx_double();
    lm_pcdata *P = alloc_data(d, k, &cd);
    P->sigma = sigma;
    P->lambda = lambda;
    lm_mat *G = mnew(d, d, &cd);
    lm_mat_randn(G, g, 1.0);
    if (kappa > 0) { /* Q diag(kappa^(-(a-1)/(d-1))) Q^T */
        lm_mat *Q = mnew(d, d, &cd), *Vv = mnew(d, d, &cd), *T = mnew(d, d, &cd);
        lm_num *sv = lm_nums_new(d, &cd);
        lm_mat_svd(sv, Q, Vv, G);
        for (int i = 0; i < d; i++)
            for (int j = 0; j < d; j++) {
                double e = d > 1 ? pow(kappa, -(double)j / (d - 1)) : 1.0;
                lm_mat_set_d(T, i, j, lm_mat_get_d(Q, i, j) * e);
            }
        lm_mat_mul(P->Sig, T, 0, Q, 1);
        lm_nums_free(sv, d);
        lm_mat_free(Q); lm_mat_free(Vv); lm_mat_free(T);
    } else {
        lm_mat_mul(P->Sig, G, 0, G, 1);
        lm_mat_scale_d(P->Sig, P->Sig, 1.0 / d);
        for (int i = 0; i < d; i++) lm_mat_set_d(P->Sig, i, i, lm_mat_get_d(P->Sig, i, i) + csig);
    }
    /* exact symmetry of the stored doubles */
    for (int i = 0; i < d; i++)
        for (int j = i + 1; j < d; j++) lm_mat_set_d(P->Sig, j, i, lm_mat_get_d(P->Sig, i, j));
    lm_mat *B0 = mnew(k, d, &cd), *Sh = mnew(d, d, &cd), *T = mnew(k, d, &cd);
    lm_mat_randn(B0, g, 1.0);
    lm_pc_sympow(Sh, P->Sig, 0.5);
    lm_mat_mul(T, B0, 0, Sh, 0);
    lm_num s1;
    lm_num_init(&s1, &cd);
    lm_mat_smax(&s1, T);
    lm_mat_scale_d(P->Ws, B0, tau / lm_num_get_d(&s1));
    lm_num_clear(&s1);
    lm_mat_free(B0); lm_mat_free(Sh); lm_mat_free(T); lm_mat_free(G);
    lm_pcdata *Q = lm_pc_convert(P, c);
    lm_pc_free(P);
    return Q;
}

lm_pcdata *lm_pc_convert(const lm_pcdata *P, const lm_ctx *c)
{
    lm_pcdata *Q = alloc_data(P->d, P->k, c);
    Q->variant = P->variant;
    Q->sigma = P->sigma;
    Q->lambda = P->lambda;
    lm_mat_copy(Q->Sig, P->Sig);
    lm_mat_copy(Q->Ws, P->Ws);
    if (lm_pc_prepare(Q)) { /* keep the object; callers test s_d > 0 and finiteness */
    }
    /* the SVD in the new precision may return a singular pair (u_j, v_j) with the opposite
     * sign: align it with P's, so theta_R is the same manifold point in every context */
    for (int j = 0; j < Q->d; j++) {
        double dot = 0;
        for (int i = 0; i < Q->k; i++) dot += lm_mat_get_d(Q->U, i, j) * lm_mat_get_d(P->U, i, j);
        if (dot >= 0) continue;
        lm_num x;
        lm_num_init(&x, c);
        for (int i = 0; i < Q->k; i++) {
            lm_mat_get(&x, Q->U, i, j);
            lm_num_neg(&x, &x);
            lm_mat_set(Q->U, i, j, &x);
        }
        for (int i = 0; i < Q->d; i++) {
            lm_mat_get(&x, Q->V, i, j);
            lm_num_neg(&x, &x);
            lm_mat_set(Q->V, i, j, &x);
        }
        lm_num_clear(&x);
    }
    return Q;
}

/* ------------------------------------------------------------ parameters */

lm_pcth lm_pc_th_new(const lm_pcdata *P)
{
    lm_pcth t = {mnew(P->k, P->d, &P->ctx), mnew(P->d, P->d, &P->ctx)};
    return t;
}

void lm_pc_th_free(lm_pcth *t)
{
    lm_mat_free(t->V);
    lm_mat_free(t->KQ);
    t->V = t->KQ = NULL;
}

void lm_pc_th_copy(lm_pcth *dst, const lm_pcth *src)
{
    lm_mat_copy(dst->V, src->V);
    lm_mat_copy(dst->KQ, src->KQ);
}

void lm_pc_th_randn(lm_pcth *t, lm_rng *g, double s)
{
    lm_mat_randn(t->V, g, s);
    lm_mat_randn(t->KQ, g, s);
}

void lm_pc_th_axpy(lm_pcth *dst, const lm_pcth *a, double c, const lm_pcth *b)
{
    if (dst->V != a->V) lm_pc_th_copy(dst, a);
    lm_mat_axpy_d(dst->V, c, b->V);
    lm_mat_axpy_d(dst->KQ, c, b->KQ);
}

/* ------------------------------------------------------------ population */

void lm_pc_E(lm_mat *E, const lm_pcdata *P, const lm_pcth *t)
{
    lm_mat *T = mnew(P->k, P->d, &P->ctx);
    lm_mat_mul(T, t->V, 0, P->Sig, 0);
    lm_mat_mul(E, T, 0, t->KQ, 0);
    lm_mat_sub(E, E, P->Ws);
    lm_mat_free(T);
}

void lm_pc_excess_E(lm_num *r, const lm_pcdata *P, const lm_mat *E)
{
    lm_mat *T = mnew(P->k, P->d, &P->ctx);
    lm_mat_mul(T, E, 0, P->Sh, 0);
    lm_mat_dot(r, T, T);
    lm_mat_free(T);
}

void lm_pc_excess(lm_num *r, const lm_pcdata *P, const lm_pcth *t)
{
    lm_mat *E = mnew(P->k, P->d, &P->ctx);
    lm_pc_E(E, P, t);
    lm_pc_excess_E(r, P, E);
    lm_mat_free(E);
}

/* the regulariser's symmetric matrix and its weighted form, for a covariance S:
 * V0: M = W_V^T W_V - W_KQ S W_KQ^T, R = lambda tr(M S M S);
 * V1: M = W_V^T W_V - S W_KQ W_KQ^T S, R = lambda ||M||^2 */
void lm_pc_reg_S(lm_num *r, lm_pcth *G, const lm_pcdata *P, const lm_pcth *t, const lm_mat *S)
{
    const lm_ctx *c = &P->ctx;
    int d = P->d;
    lm_mat *M = mnew(d, d, c), *T = mnew(d, d, c), *T2 = mnew(d, d, c);
    lm_mat_mul(M, t->V, 1, t->V, 0);
    if (P->variant == 0) {
        lm_mat_mul(T, t->KQ, 0, S, 0);
        lm_mat_mul(T2, T, 0, t->KQ, 1);
    } else {
        lm_mat_mul(T, S, 0, t->KQ, 0);
        lm_mat_mul(T2, T, 0, T, 1);
    }
    lm_mat_sub(M, M, T2);
    if (P->variant == 0) {
        lm_mat_mul(T, M, 0, S, 0);  /* M S */
        lm_mat_mul(T2, S, 0, T, 0); /* S M S */
        if (r) {
            /* tr(MS MS) = sum_ij (MS)_ij (MS)_ji */
            lm_mat *T3 = mnew(d, d, c);
            lm_mat_transpose(T3, T);
            lm_mat_dot(r, T, T3);
            lm_mat_free(T3);
            lm_num_mul_d(r, r, P->lambda);
        }
        if (G) {
            lm_mat *T3 = mnew(d, d, c);
            lm_mat_mul(T3, S, 0, T, 0);          /* S M S */
            lm_mat_mul(G->V, t->V, 0, T3, 0);    /* W_V S M S */
            lm_mat_scale_d(G->V, G->V, 4.0 * P->lambda);
            lm_mat_mul(T2, T3, 0, t->KQ, 0);     /* S M S W_KQ */
            lm_mat_mul(G->KQ, T2, 0, S, 0);      /* S M S W_KQ S */
            lm_mat_scale_d(G->KQ, G->KQ, -4.0 * P->lambda);
            lm_mat_free(T3);
        }
    } else {
        if (r) {
            lm_mat_dot(r, M, M);
            lm_num_mul_d(r, r, P->lambda);
        }
        if (G) {
            lm_mat_mul(G->V, t->V, 0, M, 0);
            lm_mat_scale_d(G->V, G->V, 4.0 * P->lambda);
            lm_mat_mul(T, S, 0, M, 0);
            lm_mat_mul(T2, T, 0, S, 0);
            lm_mat_mul(G->KQ, T2, 0, t->KQ, 0);
            lm_mat_scale_d(G->KQ, G->KQ, -4.0 * P->lambda);
        }
    }
    lm_mat_free(M); lm_mat_free(T); lm_mat_free(T2);
}

void lm_pc_reg(lm_num *r, const lm_pcdata *P, const lm_pcth *t)
{
    lm_pc_reg_S(r, NULL, P, t, P->Sig);
}

void lm_pc_grad_L(lm_pcth *G, const lm_pcdata *P, const lm_pcth *t)
{
    const lm_ctx *c = &P->ctx;
    int d = P->d, k = P->k;
    lm_mat *E = mnew(k, d, c), *ES = mnew(k, d, c), *T = mnew(d, d, c), *T2 = mnew(d, k, c);
    lm_pc_E(E, P, t);
    lm_mat_mul(ES, E, 0, P->Sig, 0);          /* E Sigma */
    lm_mat_mul(T, t->KQ, 1, P->Sig, 0);       /* W_KQ^T Sigma */
    lm_mat_mul(G->V, ES, 0, T, 0);            /* E Sigma W_KQ^T Sigma */
    lm_mat_scale_d(G->V, G->V, 2.0);
    lm_mat_mul(T2, P->Sig, 0, t->V, 1);       /* Sigma W_V^T */
    lm_mat_mul(G->KQ, T2, 0, ES, 0);          /* Sigma W_V^T E Sigma */
    lm_mat_scale_d(G->KQ, G->KQ, 2.0);
    lm_mat_free(E); lm_mat_free(ES); lm_mat_free(T); lm_mat_free(T2);
}

void lm_pc_grad_R(lm_pcth *G, const lm_pcdata *P, const lm_pcth *t)
{
    lm_pc_reg_S(NULL, G, P, t, P->Sig);
}

void lm_pc_grad_Lreg(lm_pcth *G, const lm_pcdata *P, const lm_pcth *t)
{
    lm_pcth H = lm_pc_th_new(P);
    lm_pc_grad_L(G, P, t);
    lm_pc_grad_R(&H, P, t);
    lm_mat_add(G->V, G->V, H.V);
    lm_mat_add(G->KQ, G->KQ, H.KQ);
    lm_pc_th_free(&H);
}

/* ------------------------------------------------------------ geometry */

void lm_pc_to_AB(lm_mat *A, lm_mat *B, const lm_pcdata *P, const lm_pcth *t)
{
    lm_mat *T = mnew(P->d, P->d, &P->ctx);
    lm_mat_mul(A, t->V, 0, P->Sh, 0);
    lm_mat_mul(T, P->Sh, 0, t->KQ, 0);
    lm_mat_mul(B, T, 0, P->Sh, 0);
    lm_mat_free(T);
}

void lm_pc_from_AB(lm_pcth *t, const lm_pcdata *P, const lm_mat *A, const lm_mat *B)
{
    lm_mat *T = mnew(P->d, P->d, &P->ctx);
    lm_mat_mul(t->V, A, 0, P->Sih, 0);
    lm_mat_mul(T, P->Sih, 0, B, 0);
    lm_mat_mul(t->KQ, T, 0, P->Sih, 0);
    lm_mat_free(T);
}

void lm_pc_norm(lm_num *r, const lm_pcdata *P, const lm_pcth *t)
{
    lm_mat *A = mnew(P->k, P->d, &P->ctx), *B = mnew(P->d, P->d, &P->ctx);
    lm_num x;
    lm_num_init(&x, &P->ctx);
    lm_pc_to_AB(A, B, P, t);
    lm_mat_dot(r, A, A);
    lm_mat_dot(&x, B, B);
    lm_num_add(r, r, &x);
    lm_num_sqrt(r, r);
    lm_num_clear(&x);
    lm_mat_free(A);
    lm_mat_free(B);
}

void lm_pc_dual_norm(lm_num *r, const lm_pcdata *P, const lm_pcth *G)
{
    lm_mat *A = mnew(P->k, P->d, &P->ctx), *B = mnew(P->d, P->d, &P->ctx), *T = mnew(P->d, P->d, &P->ctx);
    lm_num x;
    lm_num_init(&x, &P->ctx);
    lm_mat_mul(A, G->V, 0, P->Sih, 0);
    lm_mat_mul(T, P->Sih, 0, G->KQ, 0);
    lm_mat_mul(B, T, 0, P->Sih, 0);
    lm_mat_dot(r, A, A);
    lm_mat_dot(&x, B, B);
    lm_num_add(r, r, &x);
    lm_num_sqrt(r, r);
    lm_num_clear(&x);
    lm_mat_free(A); lm_mat_free(B); lm_mat_free(T);
}

void lm_pc_dot(lm_num *r, const lm_pcth *a, const lm_pcth *b)
{
    lm_ctx c = lm_mat_ctx(a->V);
    lm_num x;
    lm_num_init(&x, &c);
    lm_mat_dot(r, a->V, b->V);
    lm_mat_dot(&x, a->KQ, b->KQ);
    lm_num_add(r, r, &x);
    lm_num_clear(&x);
}

/* U S^1/2 (k x d) and S^1/2 V^T (d x d) */
static void half_factors(lm_mat *US, lm_mat *SV, const lm_pcdata *P, const double *zero_i)
{
    int d = P->d, k = P->k;
    lm_num x, y;
    lm_num_inits(&P->ctx, &x, &y, (lm_num *)NULL);
    for (int j = 0; j < d; j++) {
        lm_num_sqrt(&y, &P->s[j]);
        if (zero_i && (int)*zero_i == j) lm_num_set_d(&y, 0.0);
        for (int i = 0; i < k; i++) {
            lm_mat_get(&x, P->U, i, j);
            lm_num_mul(&x, &x, &y);
            lm_mat_set(US, i, j, &x);
        }
        for (int i = 0; i < d; i++) {
            lm_mat_get(&x, P->V, i, j);
            lm_num_mul(&x, &x, &y);
            lm_mat_set(SV, j, i, &x);
        }
    }
    lm_num_clears(&x, &y, (lm_num *)NULL);
}

static void manifold_AB(lm_mat *A, lm_mat *B, const lm_pcdata *P, const lm_mat *R, const double *zero_i)
{
    lm_mat *US = mnew(P->k, P->d, &P->ctx), *SV = mnew(P->d, P->d, &P->ctx);
    half_factors(US, SV, P, zero_i);
    if (R) {
        lm_mat_mul(A, US, 0, R, 0);
        lm_mat_mul(B, R, 1, SV, 0);
    } else {
        lm_mat_copy(A, US);
        lm_mat_copy(B, SV);
    }
    lm_mat_free(US);
    lm_mat_free(SV);
}

void lm_pc_manifold(lm_pcth *t, const lm_pcdata *P, const lm_mat *R)
{
    lm_mat *A = mnew(P->k, P->d, &P->ctx), *B = mnew(P->d, P->d, &P->ctx);
    manifold_AB(A, B, P, R, NULL);
    lm_pc_from_AB(t, P, A, B);
    lm_mat_free(A);
    lm_mat_free(B);
}

void lm_pc_saddle(lm_pcth *t, const lm_pcdata *P, int i)
{
    lm_mat *A = mnew(P->k, P->d, &P->ctx), *B = mnew(P->d, P->d, &P->ctx);
    double zi = i;
    manifold_AB(A, B, P, NULL, &zi);
    lm_pc_from_AB(t, P, A, B);
    lm_mat_free(A);
    lm_mat_free(B);
}

void lm_pc_rand_orth(lm_mat *R, lm_rng *g)
{
    /* the polar factor of a Gaussian drawn as doubles, computed in R's context so R is
     * orthogonal to the working precision */
    int d = R->r;
    lm_ctx cd = lm_mat_ctx(R);
    lm_mat *G = mnew(d, d, &cd), *Q = mnew(d, d, &cd), *V = mnew(d, d, &cd), *T = mnew(d, d, &cd);
    lm_num *s = lm_nums_new(d, &cd);
    lm_mat_randn(G, g, 1.0);
    lm_mat_svd(s, Q, V, G);
    lm_mat_mul(T, Q, 0, V, 1); /* polar factor of a Gaussian: Haar, both signs */
    lm_mat_copy(R, T);
    lm_nums_free(s, d);
    lm_mat_free(G); lm_mat_free(Q); lm_mat_free(V); lm_mat_free(T);
}

int lm_pc_project(lm_pcth *tp, lm_mat *Rs, lm_num *dist, lm_num *lam_min, const lm_pcdata *P,
                  const lm_pcth *t)
{
    const lm_ctx *c = &P->ctx;
    int d = P->d, k = P->k;
    lm_mat *A = mnew(k, d, c), *B = mnew(d, d, c), *US = mnew(k, d, c), *SV = mnew(d, d, c);
    lm_mat *K = mnew(d, d, c), *T = mnew(d, d, c), *Pm = mnew(d, d, c), *Q = mnew(d, d, c);
    lm_mat *R = mnew(d, d, c), *AP = mnew(k, d, c), *BP = mnew(d, d, c);
    lm_num *lam = lm_nums_new(d, c);
    lm_pc_to_AB(A, B, P, t);
    half_factors(US, SV, P, NULL);
    lm_mat_mul(K, US, 1, A, 0);  /* S^1/2 U^T A */
    lm_mat_mul(T, SV, 0, B, 1);  /* S^1/2 V^T B^T */
    lm_mat_add(K, K, T);
    int rc = lm_mat_svd(lam, Pm, Q, K);
    lm_mat_mul(R, Pm, 0, Q, 1);
    if (Rs) lm_mat_copy(Rs, R);
    if (lam_min) lm_num_set(lam_min, &lam[d - 1]);
    lm_mat_mul(AP, US, 0, R, 0);
    lm_mat_mul(BP, R, 1, SV, 0);
    if (dist) {
        lm_num x;
        lm_num_init(&x, c);
        lm_mat_sub(A, A, AP);
        lm_mat_sub(B, B, BP);
        lm_mat_dot(dist, A, A);
        lm_mat_dot(&x, B, B);
        lm_num_add(dist, dist, &x);
        lm_num_sqrt(dist, dist);
        lm_num_clear(&x);
    }
    if (tp) lm_pc_from_AB(tp, P, AP, BP);
    lm_nums_free(lam, d);
    lm_mat_free(A); lm_mat_free(B); lm_mat_free(US); lm_mat_free(SV); lm_mat_free(K);
    lm_mat_free(T); lm_mat_free(Pm); lm_mat_free(Q); lm_mat_free(R); lm_mat_free(AP); lm_mat_free(BP);
    return rc;
}

/* ------------------------------------------------------------ constants (S8) */

double lm_pc_alpha_r(double s1, double sd, double lambda)
{
    (void)s1;
    return (sqrt(2.0) - 1.0) * fmin(1.0, 4.0 * lambda) * sd;
}

double lm_pc_beta_r(double s1, double lambda)
{
    if (lambda == 0.25) return (16.0 + 4.0 * sqrt(2.0)) * s1;
    return sqrt(2.0) * s1 * (4.0 * sqrt(2.0) + 2.0 + 8.0 * lambda * (2.0 * sqrt(2.0) + 1.0));
}

double lm_pc_delta_r(double s1, double sd, double lambda)
{
    return sqrt(lm_pc_alpha_r(s1, sd, lambda) / (1.0 + 4.0 * lambda));
}

/* ------------------------------------------------------------ empirical */

lm_pcbatch lm_pc_batch(const lm_pcdata *P, int N, lm_rng *g)
{
    int d = P->d, k = P->k;
    lm_pcbatch b = {N, mnew(N, d, &P->ctx), mnew(N, k, &P->ctx)};
    double *L = lm_xmalloc(sizeof(double) * (size_t)(d * d)), *W = lm_xmalloc(sizeof(double) * (size_t)(k * d));
    double *xi = lm_xmalloc(sizeof(double) * (size_t)d), *x = lm_xmalloc(sizeof(double) * (size_t)d);
    lm_mat_get_array(L, P->Lc);
    lm_mat_get_array(W, P->Ws);
    for (int n = 0; n < N; n++) {
        for (int a = 0; a < d; a++) xi[a] = lm_rng_normal(g);
        for (int a = 0; a < d; a++) {
            double v = 0;
            for (int q = 0; q <= a; q++) v += L[a * d + q] * xi[q];
            x[a] = v;
            lm_mat_set_d(b.X, n, a, v);
        }
        for (int i = 0; i < k; i++) {
            double v = P->sigma * lm_rng_normal(g);
            for (int a = 0; a < d; a++) v += W[i * d + a] * x[a];
            lm_mat_set_d(b.Y, n, i, v);
        }
    }
    free(L); free(W); free(xi); free(x);
    return b;
}

void lm_pc_batch_free(lm_pcbatch *b)
{
    lm_mat_free(b->X);
    lm_mat_free(b->Y);
    b->X = b->Y = NULL;
}

void lm_pc_sigma_hat(lm_mat *Sh, const lm_pcbatch *b)
{
    lm_mat_mul(Sh, b->X, 1, b->X, 0);
    scale_frac(Sh, 1.0, b->N);
}

void lm_pc_emp(lm_num *Lhat, lm_pcth *G, const lm_pcdata *P, const lm_pcth *t, const lm_pcbatch *b,
               int loo)
{
    const lm_ctx *c = &P->ctx;
    int N = b->N, d = P->d, k = P->k;
    lm_mat *XW = mnew(N, d, c), *Lg = mnew(N, N, c), *Pm = mnew(N, N, c), *Z = mnew(N, d, c);
    lm_mat *Rr = mnew(N, k, c), *Vr = mnew(N, d, c), *CV = mnew(N, d, c);
    unsigned char *sup = lm_xmalloc((size_t)N * (size_t)N);
    lm_mat_mul(XW, b->X, 0, t->KQ, 0); /* row i: x_i^T W_KQ */
    /* column j of the logits = query j; stored transposed: Lg[j][i] = x_i^T W_KQ x_j */
    lm_mat_mul(Lg, b->X, 0, XW, 1);    /* Lg[j][i] = x_j^T (x_i^T W_KQ)^T = x_i^T W_KQ x_j */
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) sup[j * N + i] = (unsigned char)(!loo || i != j || N == 1);
    /* row softmax with support (reuse of the pruning core's softmax would add a dependency) */
    lm_num m, v, s;
    lm_num_inits(c, &m, &v, &s, (lm_num *)NULL);
    /* double: the same operations in the same order on the raw arrays (the
     * N x N softmax is most of a double step, and lm_num calls tripled it) */
    const int dbl = c->backend == LM_DOUBLE; /* every matrix here is in c */
    for (int j = 0; dbl && j < N; j++) {
        const double *L = Lg->d + (size_t)j * (size_t)N;
        double *Pr = Pm->d + (size_t)j * (size_t)N, mx = 0.0, sum = 0.0;
        const unsigned char *sp = sup + (size_t)j * (size_t)N;
        int first = 1;
        for (int i = 0; i < N; i++) {
            if (!sp[i]) continue;
            if (first || L[i] > mx) mx = L[i];
            first = 0;
        }
        /* exp by the reproducible vector exp (lm_vmath.h), then the support applied */
        lm_vexp_shift(Pr, L, mx, (size_t)N);
        for (int i = 0; i < N; i++) {
            if (!sp[i]) {
                Pr[i] = 0.0;
                continue;
            }
            sum += Pr[i];
        }
        for (int i = 0; i < N; i++) Pr[i] /= sum;
    }
    for (int j = 0; !dbl && j < N; j++) {
        int first = 1;
        for (int i = 0; i < N; i++) {
            if (!sup[j * N + i]) continue;
            lm_mat_get(&v, Lg, j, i);
            if (first || lm_num_cmp(&v, &m) > 0) lm_num_set(&m, &v);
            first = 0;
        }
        lm_num_set_d(&s, 0.0);
        for (int i = 0; i < N; i++) {
            if (!sup[j * N + i]) {
                lm_mat_set_d(Pm, j, i, 0.0);
                continue;
            }
            lm_mat_get(&v, Lg, j, i);
            lm_num_sub(&v, &v, &m);
            lm_num_exp(&v, &v);
            lm_num_add(&s, &s, &v);
            lm_mat_set(Pm, j, i, &v);
        }
        for (int i = 0; i < N; i++) {
            lm_mat_get(&v, Pm, j, i);
            lm_num_div(&v, &v, &s);
            lm_mat_set(Pm, j, i, &v);
        }
    }
    lm_mat_mul(Z, Pm, 0, b->X, 0);     /* z_j */
    lm_mat_mul(Rr, Z, 0, t->V, 1);     /* W_V z_j */
    lm_mat_sub(Rr, b->Y, Rr);          /* r_j */
    if (Lhat) {
        lm_mat_dot(Lhat, Rr, Rr);
        lm_num_div_d(Lhat, Lhat, (double)N);
    }
    if (G) {
        lm_mat_mul(G->V, Rr, 1, Z, 0); /* sum r_j z_j^T */
        scale_frac(G->V, -2.0, N);
        lm_mat_mul(Vr, Rr, 0, t->V, 0); /* v_j = W_V^T r_j (rows) */
        /* C_j v_j = sum_i p_ji x_i (x_i . v_j) - z_j (z_j . v_j) */
        lm_mat *XV = mnew(N, N, c); /* XV[j][i] = x_i . v_j */
        lm_mat_mul(XV, Vr, 0, b->X, 1);
        lm_mat_hadamard(XV, XV, Pm);
        lm_mat_mul(CV, XV, 0, b->X, 0);
        lm_num w;
        lm_num_init(&w, c);
        for (int j = 0; dbl && j < N; j++) { /* as below, raw doubles */
            const double *zr = Z->d + (size_t)j * (size_t)d, *vr = Vr->d + (size_t)j * (size_t)d;
            double *cr = CV->d + (size_t)j * (size_t)d, wj = 0.0;
            for (int a = 0; a < d; a++) wj = fma(zr[a], vr[a], wj);
            for (int a = 0; a < d; a++) cr[a] = cr[a] - zr[a] * wj;
        }
        for (int j = 0; !dbl && j < N; j++) {
            lm_num_set_d(&w, 0.0);
            for (int a = 0; a < d; a++) {
                lm_mat_get(&v, Z, j, a);
                lm_mat_get(&s, Vr, j, a);
                lm_num_fma(&w, &v, &s, &w);
            }
            for (int a = 0; a < d; a++) {
                lm_mat_get(&v, Z, j, a);
                lm_num_mul(&v, &v, &w);
                lm_mat_get(&s, CV, j, a);
                lm_num_sub(&s, &s, &v);
                lm_mat_set(CV, j, a, &s);
            }
        }
        lm_num_clear(&w);
        lm_mat_mul(G->KQ, CV, 1, b->X, 0); /* sum_j (C_j v_j) x_j^T */
        scale_frac(G->KQ, -2.0, N);
        lm_mat_free(XV);
    }
    lm_num_clears(&m, &v, &s, (lm_num *)NULL);
    free(sup);
    lm_mat_free(XW); lm_mat_free(Lg); lm_mat_free(Pm); lm_mat_free(Z);
    lm_mat_free(Rr); lm_mat_free(Vr); lm_mat_free(CV);
}

/* ------------------------------------------------------------ Algorithm 1 */

int lm_pc_spectral_init(lm_pcth *t0, lm_mat *Shat_inv, const lm_pcdata *P, const lm_pcbatch *train)
{
    const lm_ctx *c = &P->ctx;
    int d = P->d, k = P->k;
    lm_mat *S = mnew(d, d, c), *Sh = mnew(d, d, c), *Sih = mnew(d, d, c), *Si = mnew(d, d, c);
    lm_mat *YX = mnew(k, d, c), *Wh = mnew(k, d, c), *Mh = mnew(k, d, c), *U = mnew(k, d, c),
           *V = mnew(d, d, c), *T = mnew(d, d, c);
    lm_num *s = lm_nums_new(d, c);
    lm_pc_sigma_hat(S, train);
    int rc = lm_pc_sympow(Sh, S, 0.5) | lm_pc_sympow(Sih, S, -0.5) | lm_pc_sympow(Si, S, -1.0);
    /* W_hat = (Y^T X / N) Sigma_hat^{-1} */
    lm_mat_mul(YX, train->Y, 1, train->X, 0);
    scale_frac(YX, 1.0, train->N);
    lm_mat_mul(Wh, YX, 0, Si, 0);
    lm_mat_mul(Mh, Wh, 0, Sh, 0);
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
                lm_mat_set(T, j, i, &x); /* S^1/2 V^T */
            }
        }
        lm_num_clears(&x, &y, (lm_num *)NULL);
        lm_mat_mul(t0->V, U, 0, Sih, 0);
        lm_mat_mul(V, Sih, 0, T, 0);
        lm_mat_mul(t0->KQ, V, 0, Sih, 0);
        if (Shat_inv) lm_mat_copy(Shat_inv, Si);
    }
    lm_nums_free(s, d);
    lm_mat_free(S); lm_mat_free(Sh); lm_mat_free(Sih); lm_mat_free(Si); lm_mat_free(YX);
    lm_mat_free(Wh); lm_mat_free(Mh); lm_mat_free(U); lm_mat_free(V); lm_mat_free(T);
    return rc;
}

void lm_pc_precond_step(lm_pcth *t, const lm_pcth *G, const lm_mat *Pinv, double eta)
{
    lm_ctx c = lm_mat_ctx(t->V);
    int d = t->KQ->r;
    lm_mat *A = mnew(t->V->r, d, &c), *T = mnew(d, d, &c), *B = mnew(d, d, &c);
    lm_mat_mul(A, G->V, 0, Pinv, 0);
    lm_mat_mul(T, Pinv, 0, G->KQ, 0);
    lm_mat_mul(B, T, 0, Pinv, 0);
    lm_mat_axpy_d(t->V, -eta, A);
    lm_mat_axpy_d(t->KQ, -eta, B);
    lm_mat_free(A); lm_mat_free(T); lm_mat_free(B);
}

void lm_pc_oracle_mc(lm_pcth *G, double *se, const lm_pcdata *P, const lm_pcth *t, int N, int M,
                     uint64_t key, int loo)
{
    const lm_ctx *c = &P->ctx;
    int d = P->d;
    lm_pcth g1 = lm_pc_th_new(P), g2 = lm_pc_th_new(P);
    lm_mat *S = mnew(d, d, c);
    lm_mat_zero(G->V);
    lm_mat_zero(G->KQ);
    double ss = 0.0;
    for (int m = 0; m < M; m++) {
        lm_rng g;
        lm_rng_init(&g, lm_hash_u64(key, (uint64_t)m));
        lm_pcbatch b = lm_pc_batch(P, N, &g);
        lm_pc_emp(NULL, &g1, P, t, &b, loo);
        lm_pc_sigma_hat(S, &b);
        lm_pc_reg_S(NULL, &g2, P, t, S);
        lm_mat_add(g1.V, g1.V, g2.V);
        lm_mat_add(g1.KQ, g1.KQ, g2.KQ);
        lm_mat_add(G->V, G->V, g1.V);
        lm_mat_add(G->KQ, G->KQ, g1.KQ);
        lm_num x;
        lm_num_init(&x, c);
        lm_pc_dot(&x, &g1, &g1);
        ss += lm_num_get_d(&x);
        lm_num_clear(&x);
        lm_pc_batch_free(&b);
    }
    scale_frac(G->V, 1.0, M);
    scale_frac(G->KQ, 1.0, M);
    if (se) {
        lm_num x;
        lm_num_init(&x, c);
        lm_pc_dot(&x, G, G);
        double var = (ss / M - lm_num_get_d(&x)) * M / (M > 1 ? M - 1 : 1);
        *se = sqrt(fmax(var, 0.0) / M);
        lm_num_clear(&x);
    }
    lm_pc_th_free(&g1); lm_pc_th_free(&g2);
    lm_mat_free(S);
}
