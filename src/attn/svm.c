/* svm.c -- the W-SVM and u-SVM of lm_svm.h: Hildreth dual
 * coordinate ascent in double, active-set polishing and KKT certificate in
 * the data set's context (see lm_svm.h). */
#include "lm_svm.h"
#include "lm_claim.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void lm_svm_opts_default(lm_svm_opts *o)
{
    o->max_sweeps = 200000;
    o->tol = 1e-13;
    o->polish = 1;
}

/* ---- constraint vectors: rows of Dm (difference/opt token) and Zm (query) ---- */

/* number of constraints; -1 on bad opt */
static int count_constraints(const lm_attn_data *D, lm_svm_kind kind)
{
    if (D->n <= 0 || D->T <= 0 || D->d <= 0) return -1;
    for (int i = 0; i < D->n; i++)
        if (D->opt[i] < 0 || D->opt[i] >= D->T) return -1;
    return kind == LM_SVM_W ? D->n * (D->T - 1) : D->n;
}

static void index_constraints(int *ci, int *ct, const lm_attn_data *D, lm_svm_kind kind)
{
    int a = 0;
    for (int i = 0; i < D->n; i++) {
        if (kind == LM_SVM_U) {
            ci[a] = i;
            ct[a++] = D->opt[i];
            continue;
        }
        for (int t = 0; t < D->T; t++)
            if (t != D->opt[i]) {
                ci[a] = i;
                ct[a++] = t;
            }
    }
}

/* Dm (m x d): W-SVM rows x_{i,opt} - x_{i tau}; u-SVM rows y_i x_{i,opt}.
 * Zm (m x d, W-SVM only): rows x_{i1}.  Formed in D->ctx. */
static void constraint_rows(lm_mat *Dm, lm_mat *Zm, const int *ci, const int *ct, int m,
                            const lm_attn_data *D, lm_svm_kind kind)
{
    lm_num a, b;
    lm_num_inits(&D->ctx, &a, &b, (lm_num *)NULL);
    for (int k = 0; k < m; k++) {
        int i = ci[k], o = D->opt[i];
        for (int c = 0; c < D->d; c++) {
            lm_mat_get(&a, D->X[i], o, c);
            if (kind == LM_SVM_W) {
                lm_mat_get(&b, D->X[i], ct[k], c);
                lm_num_sub(&a, &a, &b);
                lm_mat_set(Dm, k, c, &a);
                lm_mat_get(&b, D->X[i], 0, c);
                lm_mat_set(Zm, k, c, &b);
            } else {
                if (D->y[i] < 0) lm_num_neg(&a, &a);
                lm_mat_set(Dm, k, c, &a);
            }
        }
    }
    lm_num_clears(&a, &b, (lm_num *)NULL);
}

/* ---- Hildreth in double ---- */

static double farkas_ratio(const double *alpha, const double *Q, int m, double maxq)
{
    double s1 = 0, q = 0;
    for (int a = 0; a < m; a++) s1 += alpha[a];
    if (!(s1 > 0)) return INFINITY;
    for (int a = 0; a < m; a++)
        for (int b = 0; b < m; b++) q += alpha[a] / s1 * Q[a * m + b] * (alpha[b] / s1);
    return q / maxq;
}

/* returns status; alpha (length m) starts at 0 */
static int hildreth(double *alpha, int *sweeps, const double *Q, int m, const lm_svm_opts *o)
{
    double maxq = 0;
    for (int a = 0; a < m; a++) {
        if (!isfinite(Q[a * m + a])) return LM_SVM_NONFINITE;
        if (Q[a * m + a] > maxq) maxq = Q[a * m + a];
    }
    for (int a = 0; a < m; a++)
        if (!(Q[a * m + a] > 0)) return LM_SVM_INFEASIBLE; /* A_a = 0: 0 >= 1 */
    double *Qa = lm_xcalloc((size_t)m, sizeof *Qa);
    memset(alpha, 0, (size_t)m * sizeof *alpha);
    int st = LM_SVM_NOCONV;
    *sweeps = 0;
    for (int s = 1; s <= o->max_sweeps; s++) {
        double ch = 0;
        for (int a = 0; a < m; a++) {
            double qaa = Q[a * m + a];
            double na = alpha[a] + (1.0 - Qa[a]) / qaa;
            if (na < 0) na = 0;
            double dl = na - alpha[a];
            if (dl != 0) {
                alpha[a] = na;
                for (int b = 0; b < m; b++) Qa[b] += dl * Q[b * m + a];
            }
            /* change in units of the constraint value it causes */
            double c = fabs(dl) * qaa;
            if (c > ch) ch = c;
        }
        *sweeps = s;
        if (!isfinite(ch)) {
            st = LM_SVM_NONFINITE;
            break;
        }
        if (ch <= o->tol) {
            /* recompute Q alpha exactly and require approximate feasibility */
            double mins = INFINITY;
            for (int a = 0; a < m; a++) {
                double v = 0;
                for (int b = 0; b < m; b++) v += Q[a * m + b] * alpha[b];
                Qa[a] = v;
                if (v - 1 < mins) mins = v - 1;
            }
            if (mins >= -1e-9) {
                st = LM_SVM_OK;
                break;
            }
        }
        if (s % 64 == 0) {
            double s1 = 0;
            for (int a = 0; a < m; a++) s1 += alpha[a];
            /* feasible problems have 1^T alpha* = ||W_mm||^2 and a Farkas
             * ratio 1/(||W_mm||^2 maxq), i.e. the squared relative margin */
            if (s1 * maxq > 1e6 && farkas_ratio(alpha, Q, m, maxq) < 1e-12) {
                st = LM_SVM_INFEASIBLE;
                break;
            }
        }
    }
    if (st == LM_SVM_NOCONV && farkas_ratio(alpha, Q, m, maxq) < 1e-8) st = LM_SVM_INFEASIBLE;
    free(Qa);
    return st;
}

/* ---- certificate in the context ---- */

static int certify(lm_svm_cert *c, lm_num *norm2, const lm_mat *Q, const lm_mat *alpha)
{
    lm_ctx ctx = lm_mat_ctx(Q);
    int m = Q->r;
    lm_mat *Qa = lm_mat_new(m, 1, &ctx);
    lm_mat_mul(Qa, Q, 0, alpha, 0);
    lm_num v, al, t, s1, mins, mina, cs;
    lm_num_inits(&ctx, &v, &al, &t, &s1, &mins, &mina, &cs, (lm_num *)NULL);
    lm_num_set_d(&s1, 0);
    lm_num_set_d(&cs, 0);
    lm_num_set_d(norm2, 0);
    for (int a = 0; a < m; a++) {
        lm_mat_get(&v, Qa, a, 0);
        lm_mat_get(&al, alpha, a, 0);
        lm_num_add(&s1, &s1, &al);
        lm_num_fma(norm2, &al, &v, norm2);
        lm_num_add_d(&v, &v, -1.0);
        if (a == 0 || lm_num_cmp(&v, &mins) < 0) lm_num_set(&mins, &v);
        if (a == 0 || lm_num_cmp(&al, &mina) < 0) lm_num_set(&mina, &al);
        lm_num_mul(&t, &al, &v);
        lm_num_abs(&t, &t);
        lm_num_max(&cs, &cs, &t);
    }
    c->min_slack = m ? lm_num_get_d(&mins) : 0;
    c->min_alpha = m ? lm_num_get_d(&mina) : 0;
    c->max_cs = lm_num_get_d(&cs);
    lm_num_sub(&t, norm2, &s1);
    lm_num_abs(&t, &t);
    c->duality = lm_num_get_d(&t);
    int ok = lm_num_isfinite(norm2) && isfinite(c->min_slack) && isfinite(c->max_cs) &&
             isfinite(c->duality);
    lm_num_clears(&v, &al, &t, &s1, &mins, &mina, &cs, (lm_num *)NULL);
    lm_mat_free(Qa);
    return ok ? 0 : LM_SVM_NONFINITE;
}

/* active-set polishing in the context of Q: alpha (context) is replaced by
 * the solution of Q_SS alpha_S = 1 when that solution is dual and primal
 * feasible.  Returns 1 when accepted. */
static int polish(lm_mat *alpha, int *nactive, const lm_mat *Q, const double *a0)
{
    lm_ctx ctx = lm_mat_ctx(Q);
    int m = Q->r, ok = 0;
    int *in = lm_xcalloc((size_t)m, sizeof *in), *idx = lm_xcalloc((size_t)m, sizeof *idx);
    double amax = 0;
    for (int a = 0; a < m; a++)
        if (a0[a] > amax) amax = a0[a];
    for (int a = 0; a < m; a++) in[a] = a0[a] > 1e-9 * amax;
    lm_mat *x = lm_mat_new(m, 1, &ctx), *Qa = lm_mat_new(m, 1, &ctx);
    lm_num v;
    lm_num_init(&v, &ctx);
    for (int round = 0; round < 2 * m + 4; round++) {
        int k = 0;
        for (int a = 0; a < m; a++)
            if (in[a]) idx[k++] = a;
        if (k == 0) break;
        lm_mat *Qs = lm_mat_new(k, k, &ctx), *one = lm_mat_new(k, 1, &ctx),
               *xs = lm_mat_new(k, 1, &ctx);
        for (int p = 0; p < k; p++) {
            lm_mat_set_d(one, p, 0, 1.0);
            for (int q = 0; q < k; q++) {
                lm_mat_get(&v, Q, idx[p], idx[q]);
                lm_mat_set(Qs, p, q, &v);
            }
        }
        int bad = lm_mat_solve(xs, Qs, one);
        int worst = -1;
        double wv = 0;
        if (!bad) {
            lm_mat_zero(x);
            for (int p = 0; p < k; p++) {
                lm_mat_get(&v, xs, p, 0);
                lm_mat_set(x, idx[p], 0, &v);
                double dv = lm_num_get_d(&v);
                if (dv < wv) { /* negative multiplier: leave S */
                    wv = dv;
                    worst = idx[p];
                }
            }
        }
        lm_mat_free(Qs);
        lm_mat_free(one);
        lm_mat_free(xs);
        if (bad) break;
        if (worst >= 0) {
            in[worst] = 0;
            continue;
        }
        /* most violated constraint outside S enters S */
        lm_mat_mul(Qa, Q, 0, x, 0);
        wv = -1e-9;
        for (int a = 0; a < m; a++) {
            if (in[a]) continue;
            double dv = lm_mat_get_d(Qa, a, 0) - 1.0;
            if (dv < wv) {
                wv = dv;
                worst = a;
            }
        }
        if (worst >= 0) {
            in[worst] = 1;
            continue;
        }
        lm_mat_copy(alpha, x);
        *nactive = k;
        ok = 1;
        break;
    }
    lm_num_clear(&v);
    lm_mat_free(x);
    lm_mat_free(Qa);
    free(in);
    free(idx);
    return ok;
}

int lm_svm_dual(lm_mat *alpha, lm_svm_cert *c, const lm_mat *Q, const lm_svm_opts *o)
{
    lm_svm_opts od;
    if (!o) {
        lm_svm_opts_default(&od);
        o = &od;
    }
    memset(c, 0, sizeof *c);
    int m = Q->r;
    if (m <= 0 || Q->c != m) return LM_SVM_BADINPUT;
    if (!lm_mat_isfinite(Q)) return LM_SVM_NONFINITE;
    double *Qd = lm_xmalloc((size_t)m * (size_t)m * sizeof *Qd), *a0 = lm_xcalloc((size_t)m, sizeof *a0);
    lm_mat_get_array(Qd, Q);
    int st = hildreth(a0, &c->sweeps, Qd, m, o);
    if (st == LM_SVM_OK) {
        int na = 0;
        for (int a = 0; a < m; a++) na += a0[a] > 0;
        c->nactive = na;
        lm_mat_set_array(alpha, a0);
        if (o->polish) c->polished = polish(alpha, &c->nactive, Q, a0);
        lm_ctx ctx = lm_mat_ctx(Q);
        lm_num n2;
        lm_num_init(&n2, &ctx);
        st = certify(c, &n2, Q, alpha);
        /* a loose sanity bar; callers check the certificate tightly */
        double sc = 1 + lm_num_get_d(&n2);
        if (!st && (c->min_slack < -1e-8 || c->min_alpha < 0 || c->max_cs > 1e-8 * sc ||
                    c->duality > 1e-8 * sc))
            st = LM_SVM_NOCONV;
        lm_num_clear(&n2);
    }
    free(Qd);
    free(a0);
    return st;
}

static int solve(lm_svm_sol *s, const lm_attn_data *D, const lm_svm_opts *o, lm_svm_kind kind)
{
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->ctx = D->ctx;
    s->n = D->n;
    s->T = D->T;
    s->d = D->d;
    int m = count_constraints(D, kind);
    if (m <= 0) return LM_SVM_BADINPUT;
    s->m = m;
    s->ci = lm_xcalloc((size_t)m, sizeof *s->ci);
    s->ct = lm_xcalloc((size_t)m, sizeof *s->ct);
    index_constraints(s->ci, s->ct, D, kind);
    lm_mat *Dm = lm_mat_new(m, D->d, &D->ctx), *Zm = NULL;
    if (kind == LM_SVM_W) Zm = lm_mat_new(m, D->d, &D->ctx);
    constraint_rows(Dm, Zm, s->ci, s->ct, m, D, kind);
    s->Q = lm_mat_new(m, m, &D->ctx);
    lm_mat_mul(s->Q, Dm, 0, Dm, 1);
    if (Zm) {
        lm_mat *H = lm_mat_new(m, m, &D->ctx);
        lm_mat_mul(H, Zm, 0, Zm, 1);
        lm_mat_hadamard(s->Q, s->Q, H);
        lm_mat_free(H);
    }
    lm_mat_free(Dm);
    lm_mat_free(Zm);
    s->alpha = lm_mat_new(m, 1, &D->ctx);
    int st = lm_svm_dual(s->alpha, &s->cert, s->Q, o);
    if (st) return st;
    lm_num_init(&s->norm2, &D->ctx);
    s->have_norm = 1;
    lm_svm_cert tmp;
    certify(&tmp, &s->norm2, s->Q, s->alpha);
    /* token coefficients */
    s->M = lm_mat_new(D->n, D->T, &D->ctx);
    lm_svm_coef(s->M, s, s->alpha, D);
    return LM_SVM_OK;
}

void lm_svm_coef(lm_mat *M, const lm_svm_sol *s, const lm_mat *c, const lm_attn_data *D)
{
    lm_ctx ctx = lm_mat_ctx(M);
    lm_num v, w;
    lm_num_inits(&ctx, &v, &w, (lm_num *)NULL);
    lm_mat_zero(M);
    for (int a = 0; a < s->m; a++) {
        int i = s->ci[a], op = D->opt[i];
        lm_mat_get(&v, c, a, 0);
        if (s->kind == LM_SVM_U) {
            if (D->y[i] < 0) lm_num_neg(&v, &v);
            lm_mat_set(M, i, op, &v);
        } else {
            lm_mat_get(&w, M, i, op);
            lm_num_add(&w, &w, &v);
            lm_mat_set(M, i, op, &w);
            lm_num_neg(&v, &v);
            lm_mat_set(M, i, s->ct[a], &v);
        }
    }
    lm_num_clears(&v, &w, (lm_num *)NULL);
}

int lm_svm_w(lm_svm_sol *s, const lm_attn_data *D, const lm_svm_opts *o)
{
    return solve(s, D, o, LM_SVM_W);
}

int lm_svm_u(lm_svm_sol *s, const lm_attn_data *D, const lm_svm_opts *o)
{
    return solve(s, D, o, LM_SVM_U);
}

void lm_svm_sol_clear(lm_svm_sol *s)
{
    free(s->ci);
    free(s->ct);
    lm_mat_free(s->Q);
    lm_mat_free(s->alpha);
    lm_mat_free(s->M);
    if (s->have_norm) lm_num_clear(&s->norm2);
    memset(s, 0, sizeof *s);
}

/* v_i^T = M_i X_i (1 x d): the token combination of sequence i */
static void combo(lm_mat *v, const lm_svm_sol *s, const lm_attn_data *D, int i)
{
    lm_ctx ctx = lm_mat_ctx(v);
    lm_mat *Mi = lm_mat_new(1, D->T, &ctx);
    lm_mat_get_block(Mi, s->M, i, 0);
    lm_mat_mul(v, Mi, 0, D->X[i], 0);
    lm_mat_free(Mi);
}

void lm_svm_w_matrix(lm_mat *W, const lm_svm_sol *s, const lm_attn_data *D)
{
    lm_ctx ctx = lm_mat_ctx(W);
    lm_mat *v = lm_mat_new(1, D->d, &ctx), *q = lm_mat_new(1, D->d, &ctx),
           *O = lm_mat_new(D->d, D->d, &ctx);
    lm_mat_zero(W);
    for (int i = 0; i < D->n; i++) {
        combo(v, s, D, i);
        lm_mat_get_block(q, D->X[i], 0, 0);
        lm_mat_mul(O, v, 1, q, 0);
        lm_mat_add(W, W, O);
    }
    lm_mat_free(v);
    lm_mat_free(q);
    lm_mat_free(O);
}

void lm_svm_u_vector(lm_mat *u, const lm_svm_sol *s, const lm_attn_data *D)
{
    lm_ctx ctx = lm_mat_ctx(u);
    lm_mat *v = lm_mat_new(1, D->d, &ctx), *vt = lm_mat_new(D->d, 1, &ctx);
    lm_mat_zero(u);
    for (int i = 0; i < D->n; i++) {
        combo(v, s, D, i);
        lm_mat_transpose(vt, v);
        lm_mat_add(u, u, vt);
    }
    lm_mat_free(v);
    lm_mat_free(vt);
}

static void margin(lm_num *r, const lm_mat *P, lm_svm_kind kind, const lm_attn_data *D)
{
    int m = count_constraints(D, kind);
    if (m <= 0) {
        lm_num_set_d(r, NAN);
        return;
    }
    int *ci = lm_xcalloc((size_t)m, sizeof *ci), *ct = lm_xcalloc((size_t)m, sizeof *ct);
    index_constraints(ci, ct, D, kind);
    lm_mat *Dm = lm_mat_new(m, D->d, &D->ctx), *Zm = NULL;
    if (kind == LM_SVM_W) Zm = lm_mat_new(m, D->d, &D->ctx);
    constraint_rows(Dm, Zm, ci, ct, m, D, kind);
    lm_num h;
    lm_num_init(&h, &D->ctx);
    if (kind == LM_SVM_W) {
        /* h_a = (Dm W)_a . Zm_a */
        lm_mat *DW = lm_mat_new(m, D->d, &D->ctx), *row = lm_mat_new(1, D->d, &D->ctx),
               *zr = lm_mat_new(1, D->d, &D->ctx);
        lm_mat_mul(DW, Dm, 0, P, 0);
        for (int a = 0; a < m; a++) {
            lm_mat_get_block(row, DW, a, 0);
            lm_mat_get_block(zr, Zm, a, 0);
            lm_mat_dot(&h, row, zr);
            if (a == 0 || lm_num_cmp(&h, r) < 0) lm_num_set(r, &h);
        }
        lm_mat_free(DW);
        lm_mat_free(row);
        lm_mat_free(zr);
    } else {
        lm_mat *g = lm_mat_new(m, 1, &D->ctx);
        lm_mat_mul(g, Dm, 0, P, 0);
        lm_mat_min(r, g);
        lm_mat_free(g);
    }
    lm_num_clear(&h);
    lm_mat_free(Dm);
    lm_mat_free(Zm);
    free(ci);
    free(ct);
}

void lm_svm_w_margin(lm_num *r, const lm_mat *W, const lm_attn_data *D)
{
    margin(r, W, LM_SVM_W, D);
}

void lm_svm_u_margin(lm_num *r, const lm_mat *u, const lm_attn_data *D)
{
    margin(r, u, LM_SVM_U, D);
}

static double qform(const double *a, const double *Q, const double *b, int m)
{
    double r = 0;
    for (int i = 0; i < m; i++) {
        double t = 0;
        for (int j = 0; j < m; j++) t += Q[i * m + j] * b[j];
        r += a[i] * t;
    }
    return r;
}

double lm_svm_ascent(double *c, double *trace, const double *Q, int m, int iters)
{
    double *best = lm_xmalloc((size_t)m * sizeof *best), *gr = lm_xmalloc((size_t)m * sizeof *gr);
    double bm = NAN;
    for (int k = 0; k < iters; k++) {
        double nn = qform(c, Q, c, m);
        if (!(nn > 0) || !isfinite(nn)) break;
        for (int a = 0; a < m; a++) c[a] /= sqrt(nn);
        /* margin and its minimising constraint */
        int am = 0;
        double h = INFINITY;
        for (int a = 0; a < m; a++) {
            double v = 0;
            for (int b = 0; b < m; b++) v += Q[a * m + b] * c[b];
            if (v < h) {
                h = v;
                am = a;
            }
        }
        if (trace) trace[k] = h;
        if (!(h <= bm)) { /* also true while bm is NaN */
            bm = h;
            memcpy(best, c, (size_t)m * sizeof *c);
        }
        /* supergradient on the sphere: A_am - h W */
        for (int a = 0; a < m; a++) gr[a] = (a == am ? 1.0 : 0.0) - h * c[a];
        double gn = qform(gr, Q, gr, m);
        if (!(gn > 0)) break;
        double eta = 0.3 / sqrt(k + 1.0);
        for (int a = 0; a < m; a++) c[a] += eta * gr[a] / sqrt(gn);
    }
    if (isfinite(bm)) memcpy(c, best, (size_t)m * sizeof *c);
    free(best);
    free(gr);
    return bm;
}

int lm_svm_w_claim(lm_eval *ev, lm_svm_sol *s, const lm_attn_data *D)
{
    int src = lm_svm_w(s, D, NULL);
    if (src == LM_SVM_INFEASIBLE || src == LM_SVM_BADINPUT)
        return !lm_assume(ev, 0, "W-SVM infeasible or optimal tokens not unique (code %d)", src);
    if (src) return lm_fail(ev, "W-SVM solver failed (code %d)", src);
    return 0;
}
