/* md.c -- the mirror-descent paper's potential, model, l_p-AttGD and
 * l_p-AttSVM (see lm_md.h). */
#include "lm_md.h"
#include "lm_vmath.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------- data ---------- */

lm_mddata *lm_md_data_new(int n, int T, int d, const lm_ctx *ctx)
{
    lm_mddata *D = lm_xcalloc(1, sizeof *D);
    D->n = n;
    D->T = T;
    D->d = d;
    D->ctx = *ctx;
    D->X = lm_xcalloc((size_t)n, sizeof *D->X);
    for (int i = 0; i < n; i++) D->X[i] = lm_mat_new(T, d, ctx);
    D->Z = lm_mat_new(n, d, ctx);
    D->y = lm_xmalloc((size_t)n * sizeof *D->y);
    D->alpha = lm_xmalloc((size_t)n * sizeof *D->alpha);
    for (int i = 0; i < n; i++) {
        D->y[i] = 1;
        D->alpha[i] = -1;
    }
    D->v = lm_mat_new(d, 1, ctx);
    return D;
}

void lm_md_data_free(lm_mddata *D)
{
    if (!D) return;
    for (int i = 0; i < D->n; i++) lm_mat_free(D->X[i]);
    free(D->X);
    lm_mat_free(D->Z);
    lm_mat_free(D->v);
    free(D->y);
    free(D->alpha);
    free(D);
}

lm_mddata *lm_md_data_convert(const lm_mddata *D, const lm_ctx *ctx)
{
    lm_mddata *E = lm_md_data_new(D->n, D->T, D->d, ctx);
    for (int i = 0; i < D->n; i++) {
        lm_mat_copy(E->X[i], D->X[i]);
        E->y[i] = D->y[i];
        E->alpha[i] = D->alpha[i];
    }
    lm_mat_copy(E->Z, D->Z);
    lm_mat_copy(E->v, D->v);
    return E;
}

/* a N(0, I_k) vector scaled to unit l2 norm, in double */
static void unit_gauss(double *x, int k, lm_rng *g)
{
    double s = 0;
    for (int j = 0; j < k; j++) {
        x[j] = lm_rng_normal(g);
        s += x[j] * x[j];
    }
    s = sqrt(s);
    for (int j = 0; j < k; j++) x[j] /= s;
}

int lm_md_set_alpha_opt(lm_mddata *D)
{
    lm_attn_fwd *F = lm_md_fwd_new(D);
    lm_mat *W = lm_mat_new(D->d, D->d, &D->ctx);
    lm_md_forward(F, D, W, LM_ATTN_LOGISTIC);
    for (int i = 0; i < D->n; i++) D->alpha[i] = F->opt[i];
    int u = F->unique;
    if (!u) /* ties: mark the samples whose maximum is not strict */
        for (int i = 0; i < D->n; i++)
            for (int t = 0; t < D->T; t++)
                if (t != F->opt[i] && lm_mat_get_d(F->gam, i, t) == lm_mat_get_d(F->gam, i, F->opt[i]))
                    D->alpha[i] = -1;
    lm_mat_free(W);
    lm_attn_fwd_free(F);
    return u;
}

lm_mddata *lm_md_gen_paper(lm_rng *g, int n, int T, int d, const lm_ctx *ctx)
{
    lm_mddata *D = lm_md_data_new(n, T, d, ctx);
    double *x = lm_xmalloc((size_t)d * sizeof *x);
    unit_gauss(x, d, g);
    for (int k = 0; k < d; k++) lm_mat_set_d(D->v, k, 0, x[k]);
    for (int i = 0; i < n; i++) {
        D->y[i] = lm_rng_normal(g) >= 0 ? 1 : -1;
        for (int t = 0; t < T; t++) {
            unit_gauss(x, d, g);
            for (int k = 0; k < d; k++) lm_mat_set_d(D->X[i], t, k, x[k]);
        }
        unit_gauss(x, d, g);
        for (int k = 0; k < d; k++) lm_mat_set_d(D->Z, i, k, x[k]);
    }
    free(x);
    lm_md_set_alpha_opt(D);
    return D;
}

lm_mddata *lm_md_gen_i1(int T, const lm_ctx *ctx)
{
    lm_mddata *D = lm_md_data_new(1, T, T, ctx);
    for (int t = 0; t < T; t++) lm_mat_set_d(D->X[0], t, t, 1.0);
    lm_mat_set_d(D->Z, 0, 0, 1.0);
    lm_mat_set_d(D->v, 0, 0, 1.0);
    D->alpha[0] = 0;
    return D;
}

lm_mddata *lm_md_gen_i2(const lm_ctx *ctx)
{
    lm_mddata *D = lm_md_data_new(1, 4, 3, ctx);
    for (int t = 0; t < 3; t++) lm_mat_set_d(D->X[0], t, t, 1.0);
    lm_mat_set_d(D->X[0], 3, 0, -1.0);
    lm_mat_set_d(D->Z, 0, 0, 1.0);
    lm_mat_set_d(D->v, 0, 0, 1.0);
    D->alpha[0] = 0;
    return D;
}

/* ---------- potential ---------- */

/* the exponents of p in the context */
typedef struct {
    lm_num p, pm1, inv, q; /* p, p-1, 1/(p-1), p/(p-1) */
} expo;

static void expo_init(expo *e, double p, const lm_ctx *c)
{
    lm_num_inits(c, &e->p, &e->pm1, &e->inv, &e->q, (lm_num *)NULL);
    lm_num_set_d(&e->p, p);
    lm_num_add_d(&e->pm1, &e->p, -1.0);
    lm_num_set_d(&e->inv, 1.0);
    lm_num_div(&e->inv, &e->inv, &e->pm1);
    lm_num_div(&e->q, &e->p, &e->pm1);
}

/* a plain-double matrix (the fast paths below) */
static int is_dbl(const lm_mat *A) { return !A->mp && !A->ab; }

static void expo_clear(expo *e) { lm_num_clears(&e->p, &e->pm1, &e->inv, &e->q, (lm_num *)NULL); }

/* ||W||_e = m (sum (|w|/m)^e)^(1/e), m = max |w| */
void lm_md_pnorm_e(lm_num *r, const lm_mat *W, const lm_num *e)
{
    lm_ctx c = lm_mat_ctx(W);
    lm_num m, s, v, ie;
    lm_num_inits(&c, &m, &s, &v, &ie, (lm_num *)NULL);
    lm_mat_max_abs(&m, W);
    if (lm_num_sgn(&m) == 0 || !lm_num_isfinite(&m)) {
        lm_num_set(r, &m);
    } else {
        lm_num_set_d(&s, 0.0);
        if (is_dbl(W)) { /* the same operations on the raw array */
            /* pow from lm_vmath: the same bits on every machine (lm_vmath.h) */
            s.d = lm_vsum_abspow(W->d, lm_num_get_d(&m), lm_num_get_d(e), (size_t)W->r * (size_t)W->c);
        } else
        for (int i = 0; i < W->r; i++)
            for (int j = 0; j < W->c; j++) {
                lm_mat_get(&v, W, i, j);
                if (lm_num_iszero(&v)) continue;
                lm_num_abs(&v, &v);
                lm_num_div(&v, &v, &m);
                lm_num_pow(&v, &v, e);
                lm_num_add(&s, &s, &v);
            }
        lm_num_set_d(&ie, 1.0);
        lm_num_div(&ie, &ie, e);
        lm_num_pow(&s, &s, &ie);
        lm_num_mul(r, &s, &m);
    }
    lm_num_clears(&m, &s, &v, &ie, (lm_num *)NULL);
}

void lm_md_pnorm(lm_num *r, const lm_mat *W, double p)
{
    lm_ctx c = lm_mat_ctx(W);
    lm_num e;
    lm_num_init(&e, &c);
    lm_num_set_d(&e, p);
    lm_md_pnorm_e(r, W, &e);
    lm_num_clear(&e);
}

/* sum |w|^e */
static void sum_pow(lm_num *r, const lm_mat *W, const lm_num *e)
{
    lm_ctx c = lm_mat_ctx(W);
    lm_num s, v;
    lm_num_inits(&c, &s, &v, (lm_num *)NULL);
    lm_num_set_d(&s, 0.0);
    if (is_dbl(W)) { /* the same operations on the raw array */
        s.d = lm_vsum_abspow(W->d, 1.0, lm_num_get_d(e), (size_t)W->r * (size_t)W->c);
    } else
    for (int i = 0; i < W->r; i++)
        for (int j = 0; j < W->c; j++) {
            lm_mat_get(&v, W, i, j);
            if (lm_num_iszero(&v)) continue;
            lm_num_abs(&v, &v);
            lm_num_pow(&v, &v, e);
            lm_num_add(&s, &s, &v);
        }
    lm_num_set(r, &s);
    lm_num_clears(&s, &v, (lm_num *)NULL);
}

void lm_md_psi(lm_num *r, const lm_mat *W, double p)
{
    lm_ctx c = lm_mat_ctx(W);
    expo e;
    expo_init(&e, p, &c);
    sum_pow(r, W, &e.p);
    lm_num_div(r, r, &e.p);
    expo_clear(&e);
}

/* B = sgn(A)|A|^e entrywise */
static void signed_pow(lm_mat *B, const lm_mat *A, const lm_num *e)
{
    lm_ctx c = lm_mat_ctx(A);
    lm_num v;
    lm_num_init(&v, &c);
    if (is_dbl(A) && is_dbl(B)) { /* the same operations on the raw arrays */
        /* p = 2 and p = 3 take the exact forms x, x*x, sqrt (lm_vpow) */
        lm_vspow(B->d, A->d, lm_num_get_d(e), (size_t)A->r * (size_t)A->c);
        lm_num_clear(&v);
        return;
    }
    for (int i = 0; i < A->r; i++)
        for (int j = 0; j < A->c; j++) {
            lm_mat_get(&v, A, i, j);
            int s = lm_num_sgn(&v);
            if (s != 0) {
                lm_num_abs(&v, &v);
                lm_num_pow(&v, &v, e);
                if (s < 0) lm_num_neg(&v, &v);
            }
            lm_mat_set(B, i, j, &v);
        }
    lm_num_clear(&v);
}

void lm_md_grad_psi(lm_mat *Th, const lm_mat *W, double p)
{
    lm_ctx c = lm_mat_ctx(W);
    expo e;
    expo_init(&e, p, &c);
    signed_pow(Th, W, &e.pm1);
    expo_clear(&e);
}

void lm_md_grad_psi_star(lm_mat *W, const lm_mat *Th, double p)
{
    lm_ctx c = lm_mat_ctx(Th);
    expo e;
    expo_init(&e, p, &c);
    signed_pow(W, Th, &e.inv);
    expo_clear(&e);
}

void lm_md_bregman(lm_num *r, const lm_mat *W, const lm_mat *V, double p)
{
    lm_ctx c = lm_mat_ctx(W);
    expo e;
    expo_init(&e, p, &c);
    lm_num s, w, v, a, b;
    lm_num_inits(&c, &s, &w, &v, &a, &b, (lm_num *)NULL);
    lm_num_set_d(&s, 0.0);
    for (int i = 0; i < W->r; i++)
        for (int j = 0; j < W->c; j++) {
            lm_mat_get(&w, W, i, j);
            lm_mat_get(&v, V, i, j);
            /* |w|^p/p + (p-1)|v|^p/p - sgn(v)|v|^(p-1) w */
            lm_num_abs(&a, &w);
            lm_num_pow(&a, &a, &e.p);
            lm_num_abs(&b, &v);
            lm_num_pow(&b, &b, &e.p);
            lm_num_fma(&a, &b, &e.pm1, &a);
            lm_num_div(&a, &a, &e.p);
            int sv = lm_num_sgn(&v);
            if (sv != 0) {
                lm_num_abs(&b, &v);
                lm_num_pow(&b, &b, &e.pm1);
                if (sv < 0) lm_num_neg(&b, &b);
                lm_num_neg(&b, &b);
                lm_num_fma(&a, &b, &w, &a);
            }
            lm_num_add(&s, &s, &a);
        }
    lm_num_set(r, &s);
    lm_num_clears(&s, &w, &v, &a, &b, (lm_num *)NULL);
    expo_clear(&e);
}

void lm_md_dir_bregman(lm_num *r, const lm_mat *U, const lm_mat *W, double p)
{
    lm_ctx c = lm_mat_ctx(W);
    lm_mat *Ub = lm_mat_dup(U), *Wb = lm_mat_dup(W);
    lm_num nu;
    lm_num_init(&nu, &c);
    lm_md_pnorm(&nu, U, p);
    lm_num_set_d(r, 1.0);
    lm_num_div(&nu, r, &nu);
    lm_mat_scale(Ub, Ub, &nu);
    lm_md_pnorm(&nu, W, p);
    lm_num_set_d(r, 1.0);
    lm_num_div(&nu, r, &nu);
    lm_mat_scale(Wb, Wb, &nu);
    lm_md_bregman(r, Ub, Wb, p);
    lm_num_clear(&nu);
    lm_mat_free(Ub);
    lm_mat_free(Wb);
}

/* ---------- model ---------- */

lm_attn_fwd *lm_md_fwd_new(const lm_mddata *D) { return lm_attn_fwd_new_dims(D->n, D->T, D->d, &D->ctx); }

static void query(lm_mat *z, const lm_mddata *D, int i)
{
    lm_num v;
    lm_num_init(&v, &D->ctx);
    for (int k = 0; k < D->d; k++) {
        lm_mat_get(&v, D->Z, i, k);
        lm_mat_set(z, k, 0, &v);
    }
    lm_num_clear(&v);
}

int lm_md_forward(lm_attn_fwd *F, const lm_mddata *D, const lm_mat *W, lm_attn_loss loss)
{
    const lm_ctx *c = &D->ctx;
    int n = D->n, T = D->T;
    lm_mat *A = lm_mat_new(n, T, c), *G = lm_mat_new(n, T, c);
    lm_mat *z = lm_mat_new(D->d, 1, c), *q = lm_mat_new(D->d, 1, c), *a = lm_mat_new(T, 1, c);
    lm_num v;
    lm_num_init(&v, c);
    for (int i = 0; i < n; i++) {
        query(z, D, i);
        lm_mat_mul(q, W, 0, z, 0);
        lm_mat_mul(a, D->X[i], 0, q, 0);
        for (int t = 0; t < T; t++) {
            lm_mat_get(&v, a, t, 0);
            lm_mat_set(A, i, t, &v);
        }
        lm_mat_mul(a, D->X[i], 0, D->v, 0);
        for (int t = 0; t < T; t++) {
            lm_mat_get(&v, a, t, 0);
            if (D->y[i] < 0) lm_num_neg(&v, &v);
            lm_mat_set(G, i, t, &v);
        }
    }
    int rc = lm_attn_forward_scores(F, A, G, loss);
    lm_num_clear(&v);
    lm_mat_free(A); lm_mat_free(G); lm_mat_free(z); lm_mat_free(q); lm_mat_free(a);
    return rc;
}

/* G = sum_i (X_i^T c_i) z_i^T */
static void expand(lm_mat *G, const lm_mat *C, const lm_mddata *D)
{
    const lm_ctx *c = &D->ctx;
    lm_mat *ci = lm_mat_new(D->T, 1, c), *w = lm_mat_new(D->d, 1, c), *z = lm_mat_new(D->d, 1, c);
    lm_mat *O = lm_mat_new(D->d, D->d, c);
    lm_num v;
    lm_num_init(&v, c);
    lm_mat_zero(G);
    for (int i = 0; i < D->n; i++) {
        for (int t = 0; t < D->T; t++) {
            lm_mat_get(&v, C, i, t);
            lm_mat_set(ci, t, 0, &v);
        }
        lm_mat_mul(w, D->X[i], 1, ci, 0);
        query(z, D, i);
        lm_mat_mul(O, w, 0, z, 1);
        lm_mat_add(G, G, O);
    }
    lm_num_clear(&v);
    lm_mat_free(ci); lm_mat_free(w); lm_mat_free(z); lm_mat_free(O);
}

void lm_md_grad_scaled(lm_mat *G, lm_num *ls, const lm_attn_fwd *F, const lm_mddata *D)
{
    lm_mat *C = lm_mat_new(D->n, D->T, &D->ctx);
    lm_attn_grad_coef(C, ls, F);
    if (lm_num_isfinite(ls)) expand(G, C, D);
    else lm_mat_zero(G);
    lm_mat_free(C);
}

void lm_md_grad(lm_mat *G, const lm_attn_fwd *F, const lm_mddata *D)
{
    lm_num ls;
    lm_num_init(&ls, &D->ctx);
    lm_md_grad_scaled(G, &ls, F, D);
    if (lm_num_isfinite(&ls)) {
        lm_num_exp(&ls, &ls);
        lm_mat_scale(G, G, &ls);
    }
    lm_num_clear(&ls);
}

/* ---------- l_p-AttGD ---------- */

int lm_md_step(lm_mat *W, lm_mat *Th, lm_attn_fwd *F, const lm_mddata *D, const lm_md_par *par)
{
    const lm_ctx *c = &D->ctx;
    if (lm_md_forward(F, D, W, par->loss)) return 1;
    lm_mat *G = lm_mat_new(D->d, D->d, c);
    lm_num ls, f, nq;
    lm_num_inits(c, &ls, &f, &nq, (lm_num *)NULL);
    lm_md_grad_scaled(G, &ls, F, D);
    int rc = 0;
    if (lm_num_isfinite(&ls)) {
        lm_num_exp(&f, &ls); /* e^ls (0 when it underflows in double: a frozen step) */
        if (par->normalized) {
            /* eta e^ls / (e^ls ||G||_q + 2^-52) */
            expo e;
            expo_init(&e, par->p, c);
            lm_md_pnorm_e(&nq, G, &e.q);
            expo_clear(&e);
            lm_num_mul(&nq, &nq, &f);
            lm_num_add_d(&nq, &nq, ldexp(1.0, -52));
            lm_num_div(&f, &f, &nq);
        }
        lm_num_mul_d(&f, &f, -par->eta);
        lm_mat_axpy(Th, &f, G);
        lm_md_grad_psi_star(W, Th, par->p);
        if (!lm_mat_isfinite(W) || !lm_mat_isfinite(Th)) rc = 1;
    } else if (lm_num_sgn(&ls) > 0) {
        rc = 1;
    }
    lm_num_clears(&ls, &f, &nq, (lm_num *)NULL);
    lm_mat_free(G);
    return rc;
}

/* ---------- l_p-AttSVM ---------- */

void lm_md_margins(lm_mat *r, const lm_mat *W, const lm_mddata *D)
{
    const lm_ctx *c = &D->ctx;
    lm_mat *z = lm_mat_new(D->d, 1, c), *q = lm_mat_new(D->d, 1, c), *a = lm_mat_new(D->T, 1, c);
    lm_num v, o;
    lm_num_inits(c, &v, &o, (lm_num *)NULL);
    int k = 0;
    for (int i = 0; i < D->n; i++) {
        query(z, D, i);
        lm_mat_mul(q, W, 0, z, 0);
        lm_mat_mul(a, D->X[i], 0, q, 0);
        lm_mat_get(&o, a, D->alpha[i], 0);
        for (int t = 0; t < D->T; t++) {
            if (t == D->alpha[i]) continue;
            lm_mat_get(&v, a, t, 0);
            lm_num_sub(&v, &o, &v);
            lm_mat_set(r, k++, 0, &v);
        }
    }
    lm_num_clears(&v, &o, (lm_num *)NULL);
    lm_mat_free(z); lm_mat_free(q); lm_mat_free(a);
}

void lm_md_svm_clear(lm_md_svm *s)
{
    if (!s) return;
    free(s->ci);
    free(s->ct);
    lm_mat_free(s->lambda);
    lm_mat_free(s->W);
    if (s->have) lm_num_clear(&s->norm);
    memset(s, 0, sizeof *s);
}

/* constraint matrices A_k (d x d, context) */
static lm_mat **constraint_mats(const lm_mddata *D, int m, const int *ci, const int *ct)
{
    const lm_ctx *c = &D->ctx;
    lm_mat **A = lm_xcalloc((size_t)m, sizeof *A);
    lm_mat *dx = lm_mat_new(D->d, 1, c), *z = lm_mat_new(D->d, 1, c);
    lm_num a, b;
    lm_num_inits(c, &a, &b, (lm_num *)NULL);
    for (int k = 0; k < m; k++) {
        int i = ci[k];
        for (int j = 0; j < D->d; j++) {
            lm_mat_get(&a, D->X[i], D->alpha[i], j);
            lm_mat_get(&b, D->X[i], ct[k], j);
            lm_num_sub(&a, &a, &b);
            lm_mat_set(dx, j, 0, &a);
        }
        query(z, D, i);
        A[k] = lm_mat_new(D->d, D->d, c);
        lm_mat_mul(A[k], dx, 0, z, 1);
    }
    lm_num_clears(&a, &b, (lm_num *)NULL);
    lm_mat_free(dx);
    lm_mat_free(z);
    return A;
}

/* double phase: coordinate ascent, each coordinate by safeguarded Newton */
static int svm_double(double *lam, const double *A, int m, int dd, double p, int max_sweeps, int *sweeps)
{
    const double inv = 1.0 / (p - 1.0);
    double *M = lm_xcalloc((size_t)dd, sizeof *M);
    for (int k = 0; k < m; k++)
        for (int e = 0; e < dd; e++) M[e] += lam[k] * A[(size_t)k * dd + e];
    int s;
    for (s = 0; s < max_sweeps; s++) {
        double change = 0, scale = 0;
        for (int k = 0; k < m; k++) {
            const double *a = A + (size_t)k * dd;
            /* g(t) = 1 - <psi*'(M - lam_k a + t a), a>, decreasing in t */
            double l0 = lam[k];
#define GVAL(t, gp)                                                                 \
    do {                                                                            \
        double g_ = 1.0, d_ = 0.0;                                                  \
        for (int e = 0; e < dd; e++) {                                              \
            if (a[e] == 0.0) continue;                                              \
            double th = M[e] + ((t)-l0) * a[e], at = fabs(th);                      \
            double w = at > 0 ? copysign(pow(at, inv), th) : 0.0;                   \
            g_ -= w * a[e];                                                         \
            d_ += (at > 0 ? inv * pow(at, inv - 1.0) : (inv >= 1.0 ? 0.0 : 1e300)) * a[e] * a[e]; \
        }                                                                           \
        gval = g_;                                                                  \
        (gp) = d_;                                                                  \
    } while (0)
            double gval, gd;
            GVAL(0.0, gd);
            double t;
            if (gval <= 0) {
                t = 0.0;
            } else {
                double lo = 0.0, hi = fmax(1.0, 2.0 * l0);
                double gh;
                for (int it = 0; it < 200; it++) {
                    GVAL(hi, gd);
                    gh = gval;
                    if (gh < 0) break;
                    lo = hi;
                    hi *= 2.0;
                }
                if (!(hi < 1e30)) { free(M); return LM_MDSVM_INFEASIBLE; }
                t = l0 > lo && l0 < hi ? l0 : 0.5 * (lo + hi);
                for (int it = 0; it < 200; it++) {
                    const double t0 = t, lo0 = lo, hi0 = hi;
                    GVAL(t, gd);
                    if (gval > 0) lo = t;
                    else hi = t;
                    double tn = gd > 0 ? t + gval / gd : 0.5 * (lo + hi);
                    if (!(tn > lo && tn < hi)) tn = 0.5 * (lo + hi);
                    if (fabs(tn - t) <= 1e-16 * fmax(1.0, fabs(t)) || hi - lo <= 1e-16 * hi) {
                        t = tn;
                        break;
                    }
                    t = tn;
                    /* a fixed point (the bracket down to adjacent doubles): the remaining
                     * iterations would repeat this one and end on the same t */
                    if (t == t0 && lo == lo0 && hi == hi0) break;
                }
            }
#undef GVAL
            if (t != l0) {
                for (int e = 0; e < dd; e++) M[e] += (t - l0) * a[e];
                change = fmax(change, fabs(t - l0));
                lam[k] = t;
            }
            scale = fmax(scale, lam[k]);
        }
        if (scale > 1e15) { free(M); return LM_MDSVM_INFEASIBLE; }
        if (change <= 1e-15 * fmax(scale, 1e-300)) break;
    }
    *sweeps = s;
    free(M);
    return s >= max_sweeps ? LM_MDSVM_NOCONV : LM_MDSVM_OK;
}

/* M = sum lambda_k A_k; W = grad psi^*(M); r_k = <W, A_k> */
static void primal(lm_mat *M, lm_mat *W, lm_mat *r, lm_mat *const *A, const lm_mat *lam, int m, double p)
{
    lm_ctx c = lm_mat_ctx(M);
    lm_num v;
    lm_num_init(&v, &c);
    lm_mat_zero(M);
    for (int k = 0; k < m; k++) {
        lm_mat_get(&v, lam, k, 0);
        if (!lm_num_iszero(&v)) lm_mat_axpy(M, &v, A[k]);
    }
    lm_md_grad_psi_star(W, M, p);
    for (int k = 0; k < m; k++) {
        lm_mat_dot(&v, W, A[k]);
        lm_mat_set(r, k, 0, &v);
    }
    lm_num_clear(&v);
}

int lm_md_svm_solve(lm_md_svm *s, const lm_mddata *D, double p, int max_sweeps)
{
    memset(s, 0, sizeof *s);
    s->p = p;
    const lm_ctx *c = &D->ctx;
    if (!(p > 1.0) || !isfinite(p)) return LM_MDSVM_BADINPUT;
    int m = 0;
    for (int i = 0; i < D->n; i++) {
        if (D->alpha[i] < 0 || D->alpha[i] >= D->T) return LM_MDSVM_BADINPUT;
        m += D->T - 1;
    }
    if (m == 0) return LM_MDSVM_BADINPUT;
    if (max_sweeps <= 0) max_sweeps = 20000;
    s->m = m;
    s->ci = lm_xmalloc((size_t)m * sizeof *s->ci);
    s->ct = lm_xmalloc((size_t)m * sizeof *s->ct);
    for (int i = 0, k = 0; i < D->n; i++)
        for (int t = 0; t < D->T; t++)
            if (t != D->alpha[i]) {
                s->ci[k] = i;
                s->ct[k++] = t;
            }
    int dd = D->d * D->d;
    lm_mat **A = constraint_mats(D, m, s->ci, s->ct);
    double *Ad = lm_xmalloc((size_t)m * (size_t)dd * sizeof *Ad), *lam = lm_xcalloc((size_t)m, sizeof *lam);
    for (int k = 0; k < m; k++) lm_mat_get_array(Ad + (size_t)k * dd, A[k]);
    int rc = svm_double(lam, Ad, m, dd, p, max_sweeps, &s->sweeps);
    s->lambda = lm_mat_new(m, 1, c);
    s->W = lm_mat_new(D->d, D->d, c);
    lm_mat *M = lm_mat_new(D->d, D->d, c), *r = lm_mat_new(m, 1, c);
    lm_num v, w, sum, phi;
    lm_num_inits(c, &v, &w, &sum, &phi, (lm_num *)NULL);
    if (rc == LM_MDSVM_INFEASIBLE) goto out;
    for (int k = 0; k < m; k++) lm_mat_set_d(s->lambda, k, 0, lam[k]);
    {
        /* Newton on the active set in the context:
         * F_k = <grad psi^*(M), A_k> - 1 = 0 for k in S,
         * J_kl = sum_e (1/(p-1)) |M_e|^(1/(p-1)-1) A_k,e A_l,e */
        expo e;
        expo_init(&e, p, c);
        lm_num ex;
        lm_num_init(&ex, c);
        lm_num_add_d(&ex, &e.inv, -1.0);
        int *S = lm_xmalloc((size_t)m * sizeof *S);
        for (int it = 0; it < 60; it++) {
            primal(M, s->W, r, A, s->lambda, m, p);
            int ns = 0;
            double res = 0;
            for (int k = 0; k < m; k++) {
                lm_mat_get(&v, r, k, 0);
                lm_num_add_d(&v, &v, -1.0);
                double lk = lm_mat_get_d(s->lambda, k, 0), rk = lm_num_get_d(&v);
                if (lk > 0) {
                    S[ns++] = k;
                    res = fmax(res, fabs(rk));
                } else if (rk < 0) {
                    S[ns++] = k; /* violated constraint: bring it in */
                    res = fmax(res, fabs(rk));
                }
            }
            if (ns == 0) break;
            if (res <= ldexp(1.0, -(int)(0.9 * (double)c->prec))) break;
            lm_mat *J = lm_mat_new(ns, ns, c), *Fv = lm_mat_new(ns, 1, c), *X = lm_mat_new(ns, 1, c);
            lm_mat *phid = lm_mat_new(D->d, D->d, c);
            for (int a = 0; a < D->d; a++)
                for (int b = 0; b < D->d; b++) {
                    lm_mat_get(&v, M, a, b);
                    if (lm_num_iszero(&v)) {
                        lm_num_set_d(&v, 0.0); /* structural zero: no constraint moves it */
                    } else {
                        lm_num_abs(&v, &v);
                        lm_num_pow(&v, &v, &ex);
                        lm_num_mul(&v, &v, &e.inv);
                    }
                    lm_mat_set(phid, a, b, &v);
                }
            lm_mat *tmp = lm_mat_new(D->d, D->d, c);
            for (int x = 0; x < ns; x++) {
                lm_mat_hadamard(tmp, phid, A[S[x]]);
                for (int y = x; y < ns; y++) {
                    lm_mat_dot(&v, tmp, A[S[y]]);
                    lm_mat_set(J, x, y, &v);
                    lm_mat_set(J, y, x, &v);
                }
                lm_mat_get(&v, r, S[x], 0);
                lm_num_add_d(&v, &v, -1.0);
                lm_mat_set(Fv, x, 0, &v);
            }
            int bad = lm_mat_solve(X, J, Fv);
            if (!bad) {
                /* lambda_S -= X; a coordinate that would turn negative is set to 0 */
                for (int x = 0; x < ns; x++) {
                    lm_mat_get(&v, s->lambda, S[x], 0);
                    lm_mat_get(&w, X, x, 0);
                    lm_num_sub(&v, &v, &w);
                    if (lm_num_sgn(&v) < 0) lm_num_set_d(&v, 0.0);
                    lm_mat_set(s->lambda, S[x], 0, &v);
                }
            }
            s->newton = it + 1;
            lm_mat_free(J); lm_mat_free(Fv); lm_mat_free(X); lm_mat_free(phid); lm_mat_free(tmp);
            if (bad) break;
        }
        free(S);
        lm_num_clear(&ex);
        expo_clear(&e);
    }
    primal(M, s->W, r, A, s->lambda, m, p);
    /* certificate */
    {
        double mn = INFINITY, cs = 0;
        int kmin = 0;
        for (int k = 0; k < m; k++) {
            lm_mat_get(&v, r, k, 0);
            lm_num_add_d(&v, &v, -1.0);
            double rk = lm_num_get_d(&v); /* margin - 1, formed in the context */
            if (rk < mn) { mn = rk; kmin = k; }
            cs = fmax(cs, fabs(lm_mat_get_d(s->lambda, k, 0) * rk));
        }
        s->min_margin = mn;
        mn += 1.0;
        s->max_cs = cs;
        lm_mat_get(&w, r, kmin, 0);
        if (!(mn > 0) || !lm_mat_isfinite(s->W)) {
            rc = LM_MDSVM_NOCONV;
            goto out;
        }
        /* Phi = sum lambda - ||M||_q^q / q;  psi(W / min_k r_k) */
        expo e;
        expo_init(&e, p, c);
        lm_mat_sum(&sum, s->lambda);
        sum_pow(&phi, M, &e.q);
        lm_num_div(&phi, &phi, &e.q);
        lm_num_sub(&phi, &sum, &phi);
        sum_pow(&v, s->W, &e.p);
        lm_num_pow(&w, &w, &e.p);
        lm_num_div(&v, &v, &w);
        lm_num_div(&v, &v, &e.p);
        lm_num_sub(&v, &v, &phi);
        s->gap = lm_num_get_d(&v);
        lm_num_init(&s->norm, c);
        s->have = 1;
        lm_md_pnorm(&s->norm, s->W, p);
        expo_clear(&e);
        double tol = fmax(1e-9, ldexp(1.0, -(int)(0.45 * (double)c->prec)));
        /* the certificate decides: a sweep cap reached by the double phase is
         * harmless when Newton finished the job, and a converged-looking
         * double phase is worthless when the certificate fails */
        int certified = s->min_margin >= -tol && fabs(s->gap) <= tol * fmax(1.0, lm_num_get_d(&sum));
        rc = certified ? LM_MDSVM_OK : LM_MDSVM_NOCONV;
    }
out:
    lm_num_clears(&v, &w, &sum, &phi, (lm_num *)NULL);
    lm_mat_free(M);
    lm_mat_free(r);
    for (int k = 0; k < m; k++) lm_mat_free(A[k]);
    free(A);
    free(Ad);
    free(lam);
    return rc;
}

/* ---------- constants and cones ---------- */

double lm_md_eps_p(double mu, double p, int d)
{
    if (p >= 2.0) return pow(p * pow(2.0, p) * mu, 1.0 / p);
    return pow((double)d, 2.0 / p - 1.0) * sqrt(2.0 * mu / (p - 1.0));
}

void lm_md_consts_clear(lm_md_consts *k)
{
    if (!k) return;
    free(k->support);
    memset(k, 0, sizeof *k);
}

void lm_md_consts_compute(lm_md_consts *k, const lm_md_svm *s, const lm_mddata *D)
{
    const lm_ctx *c = &D->ctx;
    memset(k, 0, sizeof *k);
    k->m = s->m;
    k->support = lm_xcalloc((size_t)s->m, sizeof *k->support);
    lm_mat *r = lm_mat_new(s->m, 1, c);
    lm_md_margins(r, s->W, D);
    lm_num v;
    lm_num_init(&v, c);
    double tol = fmax(1e-9, ldexp(1.0, -(int)(0.3 * (double)c->prec)));
    for (int a = 0; a < s->m; a++) {
        lm_mat_get(&v, r, a, 0);
        lm_num_add_d(&v, &v, -1.0);
        k->support[a] = lm_mat_get_d(s->lambda, a, 0) > 0 || fabs(lm_num_get_d(&v)) <= tol;
        k->nsupport += k->support[a];
    }
    /* delta: (x_it - x_itau)^T W z_i = margin_tau - margin_t */
    /* computed in double from the context margins (the gap is O(1)) */
    k->delta = INFINITY;
    for (int a = 0; a < s->m; a++)
        for (int b = 0; b < s->m; b++)
            if (s->ci[a] == s->ci[b] && k->support[a] && !k->support[b])
                k->delta = fmin(k->delta, 0.5 * (lm_mat_get_d(r, b, 0) - lm_mat_get_d(r, a, 0)));
    if (!isfinite(k->delta)) {
        k->delta = 1.0;
        k->no_pair = 1;
    }
    /* A = max ||x_it||_q ||z_i||_q */
    double q = s->p / (s->p - 1.0);
    k->A = 0;
    for (int i = 0; i < D->n; i++) {
        double zq = 0;
        for (int j = 0; j < D->d; j++) zq += pow(fabs(lm_mat_get_d(D->Z, i, j)), q);
        for (int t = 0; t < D->T; t++) {
            double xq = 0;
            for (int j = 0; j < D->d; j++) xq += pow(fabs(lm_mat_get_d(D->X[i], t, j)), q);
            k->A = fmax(k->A, pow(xq, 1.0 / q) * pow(zq, 1.0 / q));
        }
    }
    k->wnorm = lm_num_get_d(&s->norm);
    double p = s->p, x = k->delta / (4.0 * k->A * k->wnorm);
    if (p >= 2.0) k->mu0 = pow(x, p) / (p * pow(2.0, p));
    else k->mu0 = 0.5 * (p - 1.0) * pow(x / pow((double)D->d, 2.0 / p - 1.0), 2.0);
    /* scores */
    lm_mat *g = lm_mat_new(D->T, 1, c);
    k->gbar = INFINITY;
    k->Gamma = 0;
    for (int i = 0; i < D->n; i++) {
        lm_mat_mul(g, D->X[i], 0, D->v, 0);
        double sg = D->y[i] > 0 ? 1.0 : -1.0, lo = INFINITY, hi = -INFINITY;
        for (int t = 0; t < D->T; t++) {
            double gt = sg * lm_mat_get_d(g, t, 0);
            lo = fmin(lo, gt);
            hi = fmax(hi, gt);
        }
        k->Gamma = fmax(k->Gamma, hi - lo);
        double ga = sg * lm_mat_get_d(g, D->alpha[i], 0);
        for (int a = 0; a < s->m; a++)
            if (s->ci[a] == i && k->support[a]) k->gbar = fmin(k->gbar, ga - sg * lm_mat_get_d(g, s->ct[a], 0));
    }
    lm_mat_free(g);
    lm_num_clear(&v);
    lm_mat_free(r);
}

int lm_md_cone_init(lm_mat *W0, const lm_mat *Wmm, double p, double mu, double R0, lm_rng *g)
{
    lm_ctx c = lm_mat_ctx(Wmm);
    int r = Wmm->r, cc = Wmm->c;
    lm_mat *E = lm_mat_new(r, cc, &c), *Wb = lm_mat_dup(Wmm), *U = lm_mat_new(r, cc, &c);
    for (int i = 0; i < r; i++)
        for (int j = 0; j < cc; j++) lm_mat_set_d(E, i, j, lm_rng_normal(g));
    lm_num nv, one, dv;
    lm_num_inits(&c, &nv, &one, &dv, (lm_num *)NULL);
    lm_num_set_d(&one, 1.0);
    lm_md_pnorm(&nv, Wmm, p);
    lm_num_div(&nv, &one, &nv);
    lm_mat_scale(Wb, Wmm, &nv);
    /* D(rho) = D_psi(Wbar_mm, normalise(Wbar_mm + rho E)), increasing from 0 */
    double lo = 0, hi = 1e6, rho = 1.0;
#define DIV_AT(rh)                                   \
    do {                                             \
        lm_mat_copy(U, Wb);                          \
        lm_mat_axpy_d(U, (rh), E);                   \
        lm_md_dir_bregman(&dv, Wb, U, p);            \
    } while (0)
    DIV_AT(hi);
    int rc = 0;
    if (!(lm_num_get_d(&dv) > mu)) {
        rc = 1;
    } else {
        for (int it = 0; it < 200; it++) {
            rho = 0.5 * (lo + hi);
            if (it < 40 && hi > 1) rho = sqrt(fmax(lo, 1e-12) * hi); /* geometric first */
            DIV_AT(rho);
            if (lm_num_get_d(&dv) > mu) hi = rho;
            else lo = rho;
            if (hi - lo <= 1e-15 * hi) break;
        }
        rho = lo;
        DIV_AT(rho);
        lm_md_pnorm(&nv, U, p);
        lm_num_set_d(&dv, R0);
        lm_num_div(&nv, &dv, &nv);
        lm_mat_scale(W0, U, &nv);
    }
#undef DIV_AT
    lm_num_clears(&nv, &one, &dv, (lm_num *)NULL);
    lm_mat_free(E);
    lm_mat_free(Wb);
    lm_mat_free(U);
    return rc;
}

/* ---------- R1 instances ---------- */

void lm_md_inst_clear(lm_md_inst *I)
{
    if (!I) return;
    lm_md_data_free(I->D);
    if (I->have_svm) lm_md_svm_clear(&I->svm);
    if (I->have_k) lm_md_consts_clear(&I->k);
    lm_mat_free(I->W);
    lm_mat_free(I->Th);
    memset(I, 0, sizeof *I);
}

int lm_md_inst_r1(lm_md_inst *I, lm_rng *g, const lm_ctx *c, int n, int T, int d, double p, double mu,
                  double R0, char *why, int whylen)
{
    memset(I, 0, sizeof *I);
    I->p = p;
    I->D = lm_md_gen_paper(g, n, T, d, c);
    for (int i = 0; i < n; i++)
        if (I->D->alpha[i] < 0) {
            snprintf(why, (size_t)whylen, "tied token scores in sample %d", i);
            return 1;
        }
    int rc = lm_md_svm_solve(&I->svm, I->D, p, 0);
    I->have_svm = 1;
    if (rc == LM_MDSVM_INFEASIBLE) {
        snprintf(why, (size_t)whylen, "the l_p-AttSVM is infeasible (d^2 = %d, %d constraints)", d * d,
                 n * (T - 1));
        return 1;
    }
    if (rc != LM_MDSVM_OK) {
        snprintf(why, (size_t)whylen, "l_p-AttSVM solver failed (code %d, gap %.3g, min margin-1 %.3g)", rc,
                 I->svm.gap, I->svm.min_margin);
        return -1;
    }
    lm_md_consts_compute(&I->k, &I->svm, I->D);
    I->have_k = 1;
    if (!(I->k.gbar > 0)) {
        snprintf(why, (size_t)whylen, "alpha is not locally optimal (gamma gap over supports %.3g)", I->k.gbar);
        return 1;
    }
    I->mu = mu > 0 ? mu : -mu * I->k.mu0;
    I->W = lm_mat_new(d, d, c);
    I->Th = lm_mat_new(d, d, c);
    if (lm_md_cone_init(I->W, I->svm.W, p, I->mu, R0 * I->k.wnorm, g)) {
        snprintf(why, (size_t)whylen, "cone level mu = %.3g unreachable", I->mu);
        return 1;
    }
    lm_md_grad_psi(I->Th, I->W, p);
    return 0;
}
