/* src/models/pr.c -- the attention-pruning model (see lm_pr.h) */
#include "lm_pr.h"
#include "lm_vmath.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ instance */

lm_prdata *lm_pr_new(int n, int d, const lm_ctx *c)
{
    lm_prdata *P = lm_xcalloc(1, sizeof *P);
    P->n = n;
    P->d = d;
    P->ctx = *c;
    P->C = lm_xmalloc((size_t)n * (size_t)n);
    P->X = lm_mat_new(n, d, c);
    P->W = lm_mat_new(d, d, c);
    P->f0 = lm_mat_new(n, n, c);
    lm_pr_set_full(P);
    return P;
}

void lm_pr_free(lm_prdata *P)
{
    if (!P) return;
    free(P->C);
    lm_mat_free(P->X);
    lm_mat_free(P->W);
    lm_mat_free(P->f0);
    free(P);
}

lm_prdata *lm_pr_convert(const lm_prdata *P, const lm_ctx *c)
{
    lm_prdata *Q = lm_pr_new(P->n, P->d, c);
    memcpy(Q->C, P->C, (size_t)P->n * (size_t)P->n);
    Q->causal = P->causal;
    Q->lambda = P->lambda;
    lm_mat_copy(Q->X, P->X);
    lm_mat_copy(Q->W, P->W);
    lm_pr_prepare(Q);
    return Q;
}

void lm_pr_set_full(lm_prdata *P)
{
    memset(P->C, 1, (size_t)P->n * (size_t)P->n);
    P->causal = 0;
}

void lm_pr_set_causal(lm_prdata *P)
{
    for (int i = 0; i < P->n; i++)
        for (int j = 0; j < P->n; j++) P->C[i * P->n + j] = (unsigned char)(i >= j);
    P->causal = 1;
}

void lm_pr_set_random_support(lm_prdata *P, lm_rng *g)
{
    int n = P->n;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) P->C[i * n + j] = (unsigned char)(i == j || lm_rng_uniform(g) < 0.5);
    P->causal = 0;
}

void lm_pr_prepare(lm_prdata *P)
{
    lm_mat *ones = lm_mat_new(P->d, P->d, &P->ctx);
    for (int a = 0; a < P->d; a++)
        for (int b = 0; b < P->d; b++) lm_mat_set_d(ones, a, b, 1.0);
    lm_prfwd *F = lm_pr_fwd_new(P);
    /* f0 must not be read by forward for this: compute H and f directly */
    lm_mat_hadamard(F->MW, ones, P->W);
    lm_mat_mul(F->XM, P->X, 0, F->MW, 0);
    lm_mat_mul(F->H, F->XM, 0, P->X, 1);
    lm_pr_softmax(P->f0, F->H, P->C);
    lm_pr_fwd_free(F);
    lm_mat_free(ones);
}

/* ------------------------------------------------------------ families */

const char *lm_pr_family_name(lm_pr_family f)
{
    static const char *const N[] = {"uniform", "rademacher", "gaussian", "rank-4"};
    return f >= 0 && f < LM_PR_NFAMILY ? N[f] : "?";
}

static void rescale_maxabs(double *a, int k, double R)
{
    double m = 0;
    for (int i = 0; i < k; i++) m = fmax(m, fabs(a[i]));
    if (m > 0) /* a/m * R can round above R by an ulp: clamp, so max |a| = R exactly */
        for (int i = 0; i < k; i++) a[i] = fmax(-R, fmin(R, a[i] / m * R));
}

/* rank-4 truncation of a d x d Gaussian (double, through the SVD) */
static void rank4_factor(double *out, int d, lm_rng *g)
{
    lm_ctx cd = lm_ctx_double();
    lm_mat *G = lm_mat_new(d, d, &cd), *U = lm_mat_new(d, d, &cd), *V = lm_mat_new(d, d, &cd);
    lm_num *s = lm_nums_new(d, &cd);
    lm_mat_randn(G, g, 1.0);
    lm_mat_svd(s, U, V, G);
    int k = d < 4 ? d : 4;
    for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++) {
            double v = 0;
            for (int q = 0; q < k; q++) v += lm_mat_get_d(U, a, q) * lm_num_get_d(&s[q]) * lm_mat_get_d(V, b, q);
            out[a * d + b] = v;
        }
    lm_nums_free(s, d);
    lm_mat_free(G); lm_mat_free(U); lm_mat_free(V);
}

void lm_pr_fill_rank4_W(lm_mat *W, double R, lm_rng *g)
{
    int d = W->r;
    double *q = lm_xmalloc(sizeof(double) * (size_t)(d * d)), *k = lm_xmalloc(sizeof(double) * (size_t)(d * d)),
           *w = lm_xmalloc(sizeof(double) * (size_t)(d * d));
    rank4_factor(q, d, g);
    rank4_factor(k, d, g);
    for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++) {
            double v = 0;
            for (int e = 0; e < d; e++) v += q[a * d + e] * k[b * d + e];
            w[a * d + b] = v;
        }
    rescale_maxabs(w, d * d, R);
    lm_mat_set_array(W, w);
    free(q); free(k); free(w);
}

void lm_pr_fill(lm_mat *A, lm_pr_family fam, double R, lm_rng *g)
{
    int k = A->r * A->c;
    if (fam == LM_PR_RANK4 && A->r == A->c) {
        lm_pr_fill_rank4_W(A, R, g);
        return;
    }
    double *a = lm_xmalloc(sizeof(double) * (size_t)(k > 0 ? k : 1));
    for (int i = 0; i < k; i++) {
        switch (fam) {
        case LM_PR_UNIFORM: a[i] = R * (2.0 * lm_rng_uniform(g) - 1.0); break;
        case LM_PR_RADEMACHER: a[i] = lm_rng_uniform(g) < 0.5 ? -R : R; break;
        default: a[i] = lm_rng_normal(g); break;
        }
    }
    if (fam == LM_PR_GAUSS || fam == LM_PR_RANK4) rescale_maxabs(a, k, R);
    lm_mat_set_array(A, a);
    free(a);
}

void lm_pr_fill_pl_X(lm_mat *X, double beta0, double sigma, double R, lm_rng *g)
{
    int n = X->r, d = X->c;
    lm_ctx cd = lm_ctx_double();
    lm_mat *G = lm_mat_new(d, d, &cd), *Q = lm_mat_new(d, d, &cd), *V = lm_mat_new(d, d, &cd);
    lm_num *s = lm_nums_new(d, &cd);
    lm_mat_randn(G, g, 1.0);
    lm_mat_svd(s, Q, V, G); /* Q orthogonal */
    double *x = lm_xmalloc(sizeof(double) * (size_t)(n * d > 0 ? n * d : 1));
    double sb = sqrt(beta0);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < d; j++) {
            double v = i < d ? sb * lm_mat_get_d(Q, j, i) : 0.0; /* row i of [I|0] Q^T-basis */
            v += sigma * lm_rng_normal(g);
            x[i * d + j] = fmax(-R, fmin(R, v));
        }
    lm_mat_set_array(X, x);
    free(x);
    lm_nums_free(s, d);
    lm_mat_free(G); lm_mat_free(Q); lm_mat_free(V);
}

const char *lm_pr_mkind_name(lm_pr_mkind k)
{
    static const char *const N[] = {"U[0,1]", "corner {0,1}", "M = 1", "M = 0", "off-domain U[-1,2]"};
    return k >= 0 && k < LM_PR_M_NKIND ? N[k] : "?";
}

void lm_pr_fill_mask(lm_mat *M, lm_pr_mkind k, lm_rng *g)
{
    for (int a = 0; a < M->r; a++)
        for (int b = 0; b < M->c; b++) {
            double v;
            switch (k) {
            case LM_PR_M_UNIFORM: v = lm_rng_uniform(g); break;
            case LM_PR_M_CORNER: v = lm_rng_uniform(g) < 0.5 ? 0.0 : 1.0; break;
            case LM_PR_M_ONES: v = 1.0; break;
            case LM_PR_M_ZERO: v = 0.0; break;
            default: v = 3.0 * lm_rng_uniform(g) - 1.0; break;
            }
            lm_mat_set_d(M, a, b, v);
        }
}

/* ------------------------------------------------------------ forward */

lm_prfwd *lm_pr_fwd_new(const lm_prdata *P)
{
    const lm_ctx *c = &P->ctx;
    int n = P->n, d = P->d;
    lm_prfwd *F = lm_xcalloc(1, sizeof *F);
    F->MW = lm_mat_new(d, d, c);
    F->XM = lm_mat_new(n, d, c);
    F->H = lm_mat_new(n, n, c);
    F->f = lm_mat_new(n, n, c);
    F->c = lm_mat_new(n, n, c);
    F->p1 = lm_mat_new(n, n, c);
    F->p2 = lm_mat_new(n, n, c);
    F->p = lm_mat_new(n, n, c);
    F->XtP = lm_mat_new(d, n, c);
    F->XtPX = lm_mat_new(d, d, c);
    F->G = lm_mat_new(d, d, c);
    lm_num_inits(c, &F->L, &F->Lrec, &F->Lreg, (lm_num *)NULL);
    return F;
}

void lm_pr_fwd_free(lm_prfwd *F)
{
    if (!F) return;
    lm_mat_free(F->MW); lm_mat_free(F->XM); lm_mat_free(F->H);
    lm_mat_free(F->f); lm_mat_free(F->c);
    lm_mat_free(F->p1); lm_mat_free(F->p2); lm_mat_free(F->p);
    lm_mat_free(F->XtP); lm_mat_free(F->XtPX); lm_mat_free(F->G);
    lm_num_clears(&F->L, &F->Lrec, &F->Lreg, (lm_num *)NULL);
    free(F);
}

void lm_pr_softmax(lm_mat *f, const lm_mat *H, const unsigned char *C)
{
    int n = H->r, m = H->c;
    if (!H->mp && !H->ab && !f->mp && !f->ab) {
        /* double: the same operations in the same order on the raw rows, exp by
         * the reproducible vector exp (lm_vmath.h); f may be H */
        for (int i = 0; i < n; i++) {
            const double *h = H->d + (size_t)i * (size_t)m;
            double *fr = f->d + (size_t)i * (size_t)m, mx = 0.0, s = 0.0;
            const unsigned char *ci = C + (size_t)i * (size_t)m;
            int first = 1;
            for (int j = 0; j < m; j++) {
                if (!ci[j]) continue;
                if (first || h[j] > mx) mx = h[j];
                first = 0;
            }
            if (m > 0) lm_vexp_shift(fr, h, mx, (size_t)m);
            for (int j = 0; j < m; j++) {
                if (!ci[j]) {
                    fr[j] = 0.0;
                    continue;
                }
                s += fr[j];
            }
            for (int j = 0; j < m; j++)
                if (ci[j]) fr[j] /= s;
        }
        return;
    }
    lm_ctx c = lm_mat_ctx(H);
    lm_num mx, v, s;
    lm_num_inits(&c, &mx, &v, &s, (lm_num *)NULL);
    for (int i = 0; i < n; i++) {
        int first = 1;
        for (int j = 0; j < m; j++) {
            if (!C[i * m + j]) continue;
            lm_mat_get(&v, H, i, j);
            if (first || lm_num_cmp(&v, &mx) > 0) lm_num_set(&mx, &v);
            first = 0;
        }
        lm_num_set_d(&s, 0.0);
        for (int j = 0; j < m; j++) {
            if (!C[i * m + j]) {
                lm_mat_set_d(f, i, j, 0.0);
                continue;
            }
            lm_mat_get(&v, H, i, j);
            lm_num_sub(&v, &v, &mx);
            lm_num_exp(&v, &v);
            lm_num_add(&s, &s, &v);
            lm_mat_set(f, i, j, &v);
        }
        for (int j = 0; j < m; j++) {
            if (!C[i * m + j]) continue;
            lm_mat_get(&v, f, i, j);
            lm_num_div(&v, &v, &s);
            lm_mat_set(f, i, j, &v);
        }
    }
    lm_num_clears(&mx, &v, &s, (lm_num *)NULL);
}

int lm_pr_forward(lm_prfwd *F, const lm_prdata *P, const lm_mat *M)
{
    lm_mat_hadamard(F->MW, M, P->W);
    lm_mat_mul(F->XM, P->X, 0, F->MW, 0);
    lm_mat_mul(F->H, F->XM, 0, P->X, 1);
    lm_pr_softmax(F->f, F->H, P->C);
    lm_mat_sub(F->c, F->f, P->f0);
    lm_mat_dot(&F->Lrec, F->c, F->c);
    lm_num_mul_d(&F->Lrec, &F->Lrec, 0.5);
    lm_mat_dot(&F->Lreg, M, M);
    lm_num_mul_d(&F->Lreg, &F->Lreg, 0.5 * P->lambda);
    lm_num_add(&F->L, &F->Lrec, &F->Lreg);
    return lm_num_isfinite(&F->L) ? 0 : 1;
}

void lm_pr_grad(lm_prfwd *F, const lm_prdata *P, const lm_mat *M)
{
    int n = P->n;
    lm_num r, v, w;
    lm_num_inits(&P->ctx, &r, &v, &w, (lm_num *)NULL);
    lm_mat_hadamard(F->p1, F->f, F->c);
    const int dbl = !F->p1->mp && !F->p1->ab && !F->f->mp && !F->f->ab && !F->p2->mp && !F->p2->ab;
    for (int i = 0; dbl && i < n; i++) { /* double: the same operations in order on the raw rows */
        const double *p1 = F->p1->d + (size_t)i * (size_t)n, *fr = F->f->d + (size_t)i * (size_t)n;
        double *p2 = F->p2->d + (size_t)i * (size_t)n, rs = 0.0;
        for (int j = 0; j < n; j++) rs = rs + p1[j];
        for (int j = 0; j < n; j++) p2[j] = rs * fr[j];
    }
    for (int i = 0; !dbl && i < n; i++) {
        lm_num_set_d(&r, 0.0);
        for (int j = 0; j < n; j++) {
            lm_mat_get(&v, F->p1, i, j);
            lm_num_add(&r, &r, &v);
        }
        for (int j = 0; j < n; j++) {
            lm_mat_get(&v, F->f, i, j);
            lm_num_mul(&w, &r, &v);
            lm_mat_set(F->p2, i, j, &w);
        }
    }
    lm_mat_sub(F->p, F->p1, F->p2);
    lm_mat_mul(F->XtP, P->X, 1, F->p, 0);
    lm_mat_mul(F->XtPX, F->XtP, 0, P->X, 0);
    lm_mat_hadamard(F->G, P->W, F->XtPX);
    lm_mat_axpy_d(F->G, P->lambda, M);
    lm_num_clears(&r, &v, &w, (lm_num *)NULL);
}

int lm_pr_loss_grad(lm_num *L, lm_mat *G, lm_prfwd *F, const lm_prdata *P, const lm_mat *M)
{
    int rc = lm_pr_forward(F, P, M);
    lm_pr_grad(F, P, M);
    if (L) lm_num_set(L, &F->L);
    if (G) lm_mat_copy(G, F->G);
    return rc;
}

int lm_pr_grad_fd(lm_mat *G, const lm_prdata *P, const lm_mat *M, double hrel)
{
    int d = P->d, rc = 0;
    lm_prfwd *F = lm_pr_fwd_new(P);
    lm_mat *Mp = lm_mat_dup(M);
    lm_num x, h, lp, lm, v;
    lm_num_inits(&P->ctx, &x, &h, &lp, &lm, &v, (lm_num *)NULL);
    for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++) {
            lm_mat_get(&x, M, a, b);
            lm_num_set_d(&h, hrel * fmax(1.0, fabs(lm_num_get_d(&x))));
            lm_num_add(&v, &x, &h);
            lm_mat_set(Mp, a, b, &v);
            rc |= lm_pr_forward(F, P, Mp);
            lm_num_set(&lp, &F->L);
            lm_num_sub(&v, &x, &h);
            lm_mat_set(Mp, a, b, &v);
            rc |= lm_pr_forward(F, P, Mp);
            lm_num_set(&lm, &F->L);
            lm_mat_set(Mp, a, b, &x);
            lm_num_sub(&v, &lp, &lm);
            lm_num_div(&v, &v, &h);
            lm_num_mul_d(&v, &v, 0.5);
            lm_mat_set(G, a, b, &v);
        }
    lm_num_clears(&x, &h, &lp, &lm, &v, (lm_num *)NULL);
    lm_mat_free(Mp);
    lm_pr_fwd_free(F);
    return rc;
}

/* ------------------------------------------------------------ maps */

const char *lm_pr_map_name(lm_pr_map m)
{
    static const char *const N[] = {"f", "c", "p1", "p2", "p", "grad L"};
    return m >= 0 && m < LM_PR_NMAP ? N[m] : "?";
}

int lm_pr_map_eval(lm_mat *out, lm_pr_map m, lm_prfwd *F, const lm_prdata *P, const lm_mat *M)
{
    int rc = lm_pr_forward(F, P, M);
    if (m >= LM_PR_MAP_P1) lm_pr_grad(F, P, M);
    const lm_mat *src = m == LM_PR_MAP_F ? F->f : m == LM_PR_MAP_C ? F->c : m == LM_PR_MAP_P1 ? F->p1
                      : m == LM_PR_MAP_P2 ? F->p2 : m == LM_PR_MAP_P ? F->p : F->G;
    lm_mat_copy(out, src);
    return rc || !lm_mat_isfinite(out);
}

int lm_pr_map_dir(lm_mat *out, lm_pr_map m, lm_prfwd *F, const lm_prdata *P, const lm_mat *M,
                  const lm_mat *V, double h)
{
    lm_mat *Mp = lm_mat_dup(M), *A = lm_mat_dup(out);
    lm_mat_axpy_d(Mp, h, V);
    int rc = lm_pr_map_eval(A, m, F, P, Mp);
    lm_mat_copy(Mp, M);
    lm_mat_axpy_d(Mp, -h, V);
    rc |= lm_pr_map_eval(out, m, F, P, Mp);
    lm_mat_sub(out, A, out);
    lm_mat_scale_d(out, out, 0.5 / h);
    lm_mat_free(Mp);
    lm_mat_free(A);
    return rc;
}

int lm_pr_jac_norm(lm_num *r, lm_pr_map m, const lm_prdata *P, const lm_mat *M, double h)
{
    int d = P->d, rows = m == LM_PR_MAP_GRAD ? d * d : P->n * P->n, rc = 0;
    const lm_ctx *c = &P->ctx;
    lm_mat *J = lm_mat_new(rows, d * d, c), *V = lm_mat_new(d, d, c);
    lm_mat *out = m == LM_PR_MAP_GRAD ? lm_mat_new(d, d, c) : lm_mat_new(P->n, P->n, c);
    lm_prfwd *F = lm_pr_fwd_new(P);
    lm_num v;
    lm_num_init(&v, c);
    for (int k = 0; k < d * d; k++) {
        lm_mat_zero(V);
        lm_mat_set_d(V, k / d, k % d, 1.0);
        rc |= lm_pr_map_dir(out, m, F, P, M, V, h);
        for (int q = 0; q < rows; q++) {
            lm_mat_get(&v, out, q / out->c, q % out->c);
            lm_mat_set(J, q, k, &v);
        }
    }
    if (!rc) rc = lm_mat_smax(r, J);
    lm_num_clear(&v);
    lm_pr_fwd_free(F);
    lm_mat_free(J); lm_mat_free(V); lm_mat_free(out);
    return rc;
}

int lm_pr_two_point(lm_num *r, lm_pr_map m, const lm_prdata *P, const lm_mat *M, const lm_mat *Mt)
{
    const lm_ctx *c = &P->ctx;
    int d = P->d;
    lm_mat *a = m == LM_PR_MAP_GRAD ? lm_mat_new(d, d, c) : lm_mat_new(P->n, P->n, c);
    lm_mat *b = lm_mat_dup(a), *dm = lm_mat_new(d, d, c);
    lm_prfwd *F = lm_pr_fwd_new(P);
    int rc = lm_pr_map_eval(a, m, F, P, M);
    rc |= lm_pr_map_eval(b, m, F, P, Mt);
    lm_mat_sub(a, a, b);
    lm_mat_sub(dm, M, Mt);
    lm_num x, y;
    lm_num_inits(c, &x, &y, (lm_num *)NULL);
    lm_mat_frob(&x, a);
    lm_mat_frob(&y, dm);
    if (lm_num_iszero(&y)) rc = 1;
    else lm_num_div(r, &x, &y);
    lm_num_clears(&x, &y, (lm_num *)NULL);
    lm_pr_fwd_free(F);
    lm_mat_free(a); lm_mat_free(b); lm_mat_free(dm);
    return rc;
}

/* ------------------------------------------------------------ quantities */

int lm_pr_beta(lm_num *beta, const lm_prdata *P)
{
    int n = P->n;
    if (n > P->d) {
        lm_num_set_d(beta, 0.0);
        return 0;
    }
    const lm_ctx *c = &P->ctx;
    lm_mat *G = lm_mat_new(n, n, c);
    lm_mat_mul(G, P->X, 0, P->X, 1);
    lm_num *w = lm_nums_new(n, c);
    int rc = lm_mat_symeig(w, NULL, G);
    if (!rc) {
        /* rank classification: an eigenvalue at the rounding level of the
         * largest is a zero, never a tiny positive beta */
        double lmax = fabs(lm_num_get_d(&w[n - 1]));
        if (lm_num_get_d(&w[0]) <= 64.0 * n * lm_ctx_eps(c) * lmax) lm_num_set_d(beta, 0.0);
        else lm_num_set(beta, &w[0]);
    }
    lm_nums_free(w, n);
    lm_mat_free(G);
    return rc;
}

void lm_pr_theta(lm_num *theta, const lm_prdata *P)
{
    lm_mat_min_abs(theta, P->W);
}

void lm_pr_delta(lm_num *delta, const lm_mat *f, const unsigned char *C)
{
    lm_ctx c = lm_mat_ctx(f);
    lm_num v;
    lm_num_init(&v, &c);
    int first = 1;
    for (int i = 0; i < f->r; i++)
        for (int j = 0; j < f->c; j++) {
            if (!C[i * f->c + j]) continue;
            lm_mat_get(&v, f, i, j);
            if (first || lm_num_cmp(&v, delta) < 0) lm_num_set(delta, &v);
            first = 0;
        }
    lm_num_clear(&v);
}

void lm_pr_delta_all(lm_num *delta, const lm_mat *f)
{
    lm_mat_min(delta, f);
}

double lm_pr_reff(const lm_prdata *P)
{
    lm_num a, b;
    lm_num_inits(&P->ctx, &a, &b, (lm_num *)NULL);
    lm_mat_max_abs(&a, P->X);
    lm_mat_max_abs(&b, P->W);
    double r = fmax(lm_num_get_d(&a), lm_num_get_d(&b));
    lm_num_clears(&a, &b, (lm_num *)NULL);
    return r;
}

/* ------------------------------------------------------------ RECON constants */

double lm_pr_log_Lf(int n, int d, double R)
{
    return log(2.0) + 0.5 * log((double)n) + log((double)d) + 3.0 * log(R);
}

double lm_pr_log_Lp1(int n, int d, double R)
{
    return log(4.0) + 0.5 * log((double)n) + log((double)d) + 3.0 * log(R);
}

double lm_pr_log_Lp2(int n, int d, double R)
{
    return log(4.0 * n + 2.0 * sqrt((double)n)) + log((double)d) + 3.0 * log(R);
}

double lm_pr_log_Lp(int n, int d, double R)
{
    return log(4.0 * n + 6.0 * sqrt((double)n)) + log((double)d) + 3.0 * log(R);
}

double lm_pr_LE8(int n, int d, double R, double lambda)
{
    double nn = (double)n;
    return (4.0 * nn * nn + 6.0 * pow(nn, 1.5)) * (double)d * (double)d * pow(R, 6.0) + lambda;
}

double lm_pr_log_U(int n, int d, double R)
{
    return log(4.0) + 1.5 * log((double)n) + log((double)d) + 3.0 * log(R);
}

double lm_pr_log_mu(double log_theta, double log_beta, double log_delta)
{
    return log(4.0) + 2.0 * (log_theta + log_beta + log_delta);
}

static double logaddexp(double a, double b)
{
    if (a == -HUGE_VAL) return b;
    if (b == -HUGE_VAL) return a;
    double m = fmax(a, b);
    return m + log1p(exp(-fabs(a - b)));
}

double lm_pr_log_xi(double lambda, int d, double log_U, double log_theta, double log_beta, double log_delta)
{
    if (lambda <= 0) return -HUGE_VAL;
    double a = log(lambda) + 2.0 * log((double)d) - log(2.0);
    double b = log(lambda) + log((double)d) + log_U - 2.0 * (log_theta + log_beta + log_delta);
    return logaddexp(a, b);
}

/* ------------------------------------------------------------ gradient descent */

static int in_box(const lm_mat *M)
{
    for (int a = 0; a < M->r; a++)
        for (int b = 0; b < M->c; b++) {
            double v = lm_mat_get_d(M, a, b);
            if (!(v >= 0.0 && v <= 1.0)) return 0;
        }
    return 1;
}

lm_pr_traj *lm_pr_gd(const lm_prdata *P, const lm_mat *M0, const lm_pr_gdopt *o)
{
    const lm_ctx *c = &P->ctx;
    int d = P->d, T = o->T;
    lm_pr_traj *tr = lm_xcalloc(1, sizeof *tr);
    tr->T = T;
    tr->L = lm_xcalloc((size_t)T + 1, sizeof(double));
    tr->Lrec = lm_xcalloc((size_t)T + 1, sizeof(double));
    tr->gnorm2 = lm_xcalloc((size_t)T + 1, sizeof(double));
    tr->log_delta = lm_xcalloc((size_t)T + 1, sizeof(double));
    tr->first_exit = tr->nonfinite = -1;
    tr->Mbest = lm_mat_dup(M0);
    tr->MT = lm_mat_dup(M0);
    lm_mat *M = tr->MT, *Vel = lm_mat_new(d, d, c);
    lm_prfwd *F = lm_pr_fwd_new(P);
    lm_num g2, del;
    lm_num_inits(c, &g2, &del, (lm_num *)NULL);
    double best = HUGE_VAL;
    for (int t = 0; t <= T; t++) {
        int bad = lm_pr_forward(F, P, M);
        lm_pr_grad(F, P, M);
        lm_mat_dot(&g2, F->G, F->G);
        lm_pr_delta(&del, F->f, P->C);
        tr->L[t] = lm_num_get_d(&F->L);
        tr->Lrec[t] = lm_num_get_d(&F->Lrec);
        tr->gnorm2[t] = lm_num_get_d(&g2);
        tr->log_delta[t] = lm_num_log_abs_d(&del);
        if (tr->first_exit < 0 && !in_box(M)) tr->first_exit = t;
        if (bad || !lm_num_isfinite(&g2)) {
            tr->nonfinite = t;
            tr->T = t;
            break;
        }
        if (tr->L[t] < best) {
            best = tr->L[t];
            tr->tbest = t;
            lm_mat_copy(tr->Mbest, M);
        }
        if (t == T) break;
        if (o->momentum != 0.0) {
            lm_mat_scale_d(Vel, Vel, o->momentum);
            lm_mat_add(Vel, Vel, F->G);
            lm_mat_axpy_d(M, -o->eta, Vel);
        } else {
            lm_mat_axpy_d(M, -o->eta, F->G);
        }
        if (o->project)
            for (int a = 0; a < d; a++)
                for (int b = 0; b < d; b++) {
                    double v = lm_mat_get_d(M, a, b);
                    if (v < 0.0) lm_mat_set_d(M, a, b, 0.0);
                    else if (v > 1.0) lm_mat_set_d(M, a, b, 1.0);
                }
    }
    lm_num_clears(&g2, &del, (lm_num *)NULL);
    lm_pr_fwd_free(F);
    lm_mat_free(Vel);
    return tr;
}

void lm_pr_traj_free(lm_pr_traj *tr)
{
    if (!tr) return;
    free(tr->L); free(tr->Lrec); free(tr->gnorm2); free(tr->log_delta);
    lm_mat_free(tr->Mbest); lm_mat_free(tr->MT);
    free(tr);
}

int lm_pr_minimise(lm_num *Lstar, lm_mat *Mstar, const lm_prdata *P, const lm_mat *M0, int gd_steps,
                   double tol)
{
    const lm_ctx *c = &P->ctx;
    int d = P->d, N = d * d;
    double R = lm_pr_reff(P);
    double eta = 1.0 / lm_pr_LE8(P->n, d, R > 1 ? R : 1.0, P->lambda);
    /* a cheaper, still safe step: 1/(estimated Hessian norm) found below; start with the theory step
     * scaled up while the loss keeps decreasing monotonically */
    lm_mat *M = lm_mat_dup(M0), *G = lm_mat_new(d, d, c), *Mt = lm_mat_new(d, d, c);
    lm_prfwd *F = lm_pr_fwd_new(P);
    lm_num L, Lt, v, gn;
    lm_num_inits(c, &L, &Lt, &v, &gn, (lm_num *)NULL);
    lm_pr_loss_grad(&L, G, F, P, M);
    for (int t = 0; t < gd_steps; t++) { /* GD with backtracking on the step */
        for (;;) {
            lm_mat_copy(Mt, M);
            lm_mat_axpy_d(Mt, -eta, G);
            lm_pr_forward(F, P, Mt);
            lm_num_set(&Lt, &F->L);
            if (lm_num_cmp(&Lt, &L) <= 0 || eta < 1e-300) break;
            eta *= 0.5;
        }
        lm_mat_copy(M, Mt);
        lm_pr_loss_grad(&L, G, F, P, M);
        eta *= 1.2;
    }
    /* Newton polishing with a central-difference Hessian */
    lm_mat *Hs = lm_mat_new(N, N, c), *gv = lm_mat_new(N, 1, c), *st = lm_mat_new(N, 1, c);
    lm_mat *E = lm_mat_new(d, d, c), *Gd = lm_mat_new(d, d, c);
    lm_prfwd *F2 = lm_pr_fwd_new(P);
    double h = c->backend == LM_DOUBLE ? 1e-5 : ldexp(1.0, -(int)c->prec / 3);
    int rc = 1;
    for (int it = 0; it < 30; it++) {
        lm_pr_loss_grad(&L, G, F, P, M);
        lm_mat_frob(&gn, G);
        if (lm_num_get_d(&gn) <= tol) {
            rc = 0;
            break;
        }
        for (int k = 0; k < N; k++) {
            lm_mat_zero(E);
            lm_mat_set_d(E, k / d, k % d, 1.0);
            lm_pr_map_dir(Gd, LM_PR_MAP_GRAD, F2, P, M, E, h);
            for (int q = 0; q < N; q++) {
                lm_mat_get(&v, Gd, q / d, q % d);
                lm_mat_set(Hs, q, k, &v);
            }
            lm_mat_get(&v, G, k / d, k % d);
            lm_mat_set(gv, k, 0, &v);
        }
        if (lm_mat_solve(st, Hs, gv)) break;
        lm_mat_copy(Mt, M);
        for (int k = 0; k < N; k++) {
            lm_mat_get(&v, st, k, 0);
            lm_num_neg(&v, &v);
            lm_mat_get(&Lt, Mt, k / d, k % d);
            lm_num_add(&v, &v, &Lt);
            lm_mat_set(Mt, k / d, k % d, &v);
        }
        lm_pr_forward(F, P, Mt);
        if (!lm_num_isfinite(&F->L)) break;
        lm_mat_copy(M, Mt);
    }
    lm_pr_forward(F, P, M);
    lm_num_set(Lstar, &F->L);
    lm_mat_copy(Mstar, M);
    lm_num_clears(&L, &Lt, &v, &gn, (lm_num *)NULL);
    lm_pr_fwd_free(F); lm_pr_fwd_free(F2);
    lm_mat_free(M); lm_mat_free(G); lm_mat_free(Mt);
    lm_mat_free(Hs); lm_mat_free(gv); lm_mat_free(st); lm_mat_free(E); lm_mat_free(Gd);
    return rc;
}

/* ------------------------------------------------------------ binarisation */

typedef struct {
    double v;
    int k;
} vk;

static int cmp_vk(const void *a, const void *b)
{
    const vk *x = a, *y = b;
    if (x->v < y->v) return -1;
    if (x->v > y->v) return 1;
    return x->k - y->k;
}

void lm_pr_binarise(lm_mat *Mhat, const lm_mat *M, double rho)
{
    int N = M->r * M->c, z = (int)floor(rho * N);
    vk *a = lm_xmalloc(sizeof *a * (size_t)(N > 0 ? N : 1));
    for (int k = 0; k < N; k++) {
        a[k].v = lm_mat_get_d(M, k / M->c, k % M->c);
        a[k].k = k;
    }
    qsort(a, (size_t)N, sizeof *a, cmp_vk);
    for (int q = 0; q < N; q++) lm_mat_set_d(Mhat, a[q].k / M->c, a[q].k % M->c, q < z ? 0.0 : 1.0);
    free(a);
}

void lm_pr_relerr(lm_num *r, const lm_prdata *P, const lm_mat *Mhat)
{
    lm_prfwd *F = lm_pr_fwd_new(P);
    lm_num a;
    lm_num_init(&a, &P->ctx);
    lm_pr_forward(F, P, Mhat);
    lm_mat_frob(r, F->c);
    lm_mat_frob(&a, P->f0);
    lm_num_div(r, r, &a);
    lm_num_clear(&a);
    lm_pr_fwd_free(F);
}
