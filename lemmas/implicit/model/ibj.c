/* ibj.c -- training runs of the implicit-bias classifier in the exact
 * low-dimensional representation (see lm_ibj.h).  The optimizers repeat the
 * semantics of src/train/ib_opt.c on coefficients; tests/test_ib_lowdim.c
 * checks the two against each other on explicit d x d runs. */
#include "lm_ibj.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* an N x 1 view of an n x T coefficient matrix (same row-major storage) */
static lm_mat vec_view(const lm_mat *A)
{
    lm_mat v = *A;
    v.r = A->r * A->c;
    v.c = 1;
    return v;
}

lm_ibj *lm_ibj_new(const lm_attn_data *D, const lm_mat *W0, int train_u, lm_attn_loss loss)
{
    const lm_ctx *c = &D->ctx;
    int n = D->n, T = D->T, N = n * T;
    lm_ibj *J = lm_xcalloc(1, sizeof *J);
    J->D = D;
    J->ctx = *c;
    J->n = n;
    J->T = T;
    J->N = N;
    J->train_u = train_u;
    J->loss = loss;
    J->R = lm_attn_lowdim_new(D, W0);
    J->G = lm_mat_new(N, N, c);
    lm_num k1, k2;
    lm_num_inits(c, &k1, &k2, (lm_num *)NULL);
    for (int a = 0; a < N; a++)
        for (int b = 0; b < N; b++) {
            lm_mat_get(&k1, J->R->K, a, b);
            lm_mat_get(&k2, J->R->K, (a / T) * T, (b / T) * T);
            lm_num_mul(&k1, &k1, &k2);
            lm_mat_set(J->G, a, b, &k1);
        }
    lm_num_clears(&k1, &k2, (lm_num *)NULL);
    J->C = lm_mat_new(n, T, c);
    J->U = lm_mat_new(n, T, c);
    J->vC = lm_mat_new(n, T, c);
    J->A = lm_mat_new(n, T, c);
    J->Gs = lm_mat_new(n, T, c);
    if (!train_u) {
        /* fixed signed scores y_i x_it^T u */
        J->gam0 = lm_mat_new(n, T, c);
        lm_mat *g = lm_mat_new(T, 1, c);
        lm_num v;
        lm_num_init(&v, c);
        for (int i = 0; i < n; i++) {
            lm_mat_mul(g, D->X[i], 0, D->u, 0);
            for (int t = 0; t < T; t++) {
                lm_mat_get(&v, g, t, 0);
                if (D->y[i] < 0) lm_num_neg(&v, &v);
                lm_mat_set(J->gam0, i, t, &v);
            }
        }
        lm_num_clear(&v);
        lm_mat_free(g);
    }
    J->F = lm_attn_fwd_new(D);
    if (lm_ibj_refresh(J)) {
        lm_ibj_free(J);
        return NULL;
    }
    return J;
}

void lm_ibj_free(lm_ibj *J)
{
    if (!J) return;
    lm_attn_lowdim_free(J->R);
    lm_mat_free(J->G);
    lm_mat_free(J->gam0);
    lm_mat_free(J->C);
    lm_mat_free(J->U);
    lm_mat_free(J->vC);
    lm_mat_free(J->A);
    lm_mat_free(J->Gs);
    lm_attn_fwd_free(J->F);
    free(J);
}

int lm_ibj_forward_at(lm_attn_fwd *F, const lm_ibj *J, const lm_mat *C, const lm_mat *U)
{
    lm_mat cv = vec_view(C), av = vec_view(J->A);
    lm_mat_mul(&av, J->G, 0, &cv, 0);
    lm_mat_add(J->A, J->A, J->R->P);
    if (J->train_u) {
        lm_mat uv = vec_view(U), gv = vec_view(J->Gs);
        lm_num v;
        lm_num_init(&v, &J->ctx);
        lm_mat_mul(&gv, J->R->K, 0, &uv, 0); /* u^T x_it; signed by y_i below */
        for (int i = 0; i < J->n; i++) {
            if (J->D->y[i] > 0) continue;
            for (int t = 0; t < J->T; t++) {
                lm_mat_get(&v, J->Gs, i, t);
                lm_num_neg(&v, &v);
                lm_mat_set(J->Gs, i, t, &v);
            }
        }
        lm_num_clear(&v);
        return lm_attn_forward_scores(F, J->A, J->Gs, J->loss);
    }
    return lm_attn_forward_scores(F, J->A, J->gam0, J->loss);
}

int lm_ibj_refresh(lm_ibj *J) { return lm_ibj_forward_at(J->F, J, J->C, J->U); }

void lm_ibj_grads(lm_mat *gC, lm_mat *gU, lm_num *ls, const lm_ibj *J, const lm_attn_fwd *F)
{
    const lm_ctx *c = &J->ctx;
    int n = J->n, T = J->T;
    lm_num lsW, m, v, b, logn;
    lm_num_inits(c, &lsW, &m, &v, &b, &logn, (lm_num *)NULL);
    lm_attn_grad_coef(gC, &lsW, F);
    lm_num_set(ls, &lsW);
    lm_mat_zero(gU);
    if (J->train_u) {
        /* grad_u coefficient of x_it: ell'_i y_i s_it / n, log-magnitude
         * log|ell'_i| - log n + log s_it */
        lm_num_set_si(&logn, n);
        lm_num_log(&logn, &logn);
        int first = 1;
        for (int i = 0; i < n; i++)
            for (int t = 0; t < T; t++) {
                lm_mat_get(&v, F->logdl, i, 0);
                lm_mat_get(&b, F->logs, i, t);
                lm_num_add(&v, &v, &b);
                lm_num_sub(&v, &v, &logn);
                lm_mat_set(gU, i, t, &v);
                if (!lm_num_isfinite(&v)) continue;
                if (first || lm_num_cmp(&v, &m) > 0) lm_num_set(&m, &v);
                first = 0;
            }
        if (!first) {
            if (!lm_num_isfinite(&lsW) || lm_num_cmp(&m, &lsW) > 0) lm_num_set(ls, &m);
            for (int i = 0; i < n; i++)
                for (int t = 0; t < T; t++) {
                    lm_mat_get(&v, gU, i, t);
                    if (lm_num_isfinite(&v)) {
                        lm_num_sub(&v, &v, ls);
                        lm_num_exp(&v, &v);
                        if (J->D->y[i] > 0) lm_num_neg(&v, &v); /* ell' < 0 */
                    } else {
                        lm_num_set_d(&v, 0.0);
                    }
                    lm_mat_set(gU, i, t, &v);
                }
            if (lm_num_isfinite(&lsW)) {
                lm_num_sub(&v, &lsW, ls);
                lm_num_exp(&v, &v);
                lm_mat_scale(gC, gC, &v);
            }
        } else {
            lm_mat_zero(gU);
        }
    }
    lm_num_clears(&lsW, &m, &v, &b, &logn, (lm_num *)NULL);
}

/* r = vec(A)^T M vec(B) */
static void qform(lm_num *r, const lm_mat *M, const lm_mat *A, const lm_mat *B, const lm_ctx *c)
{
    lm_mat *tmp = lm_mat_new(M->r, 1, c);
    lm_mat bv = vec_view(B), av = vec_view(A);
    lm_mat_mul(tmp, M, 0, &bv, 0);
    lm_mat_dot(r, &av, tmp);
    lm_mat_free(tmp);
}

void lm_ibj_inner_W(lm_num *r, const lm_ibj *J, const lm_num *w, const lm_mat *A, const lm_num *v,
                    const lm_mat *B)
{
    const lm_ctx *c = &J->ctx;
    lm_num s, p;
    lm_num_inits(c, &s, &p, (lm_num *)NULL);
    qform(&s, J->G, A, B, c);
    if (w) {
        lm_mat_dot(&p, B, J->R->P);
        lm_num_fma(&s, w, &p, &s);
    }
    if (v) {
        lm_mat_dot(&p, A, J->R->P);
        lm_num_fma(&s, v, &p, &s);
    }
    if (w && v) {
        lm_num_mul(&p, w, v);
        lm_num_fma(&s, &p, &J->R->w0n2, &s);
    }
    lm_num_set(r, &s);
    lm_num_clears(&s, &p, (lm_num *)NULL);
}

void lm_ibj_inner_u(lm_num *r, const lm_ibj *J, const lm_mat *A, const lm_mat *B)
{
    qform(r, J->R->K, A, B, &J->ctx);
}

void lm_ibj_norm_W(lm_num *r, const lm_ibj *J)
{
    lm_num one;
    lm_num_init(&one, &J->ctx);
    lm_num_set_d(&one, 1.0);
    lm_ibj_inner_W(r, J, &one, J->C, &one, J->C);
    if (lm_num_sgn(r) < 0) lm_num_set_d(r, 0.0);
    lm_num_sqrt(r, r);
    lm_num_clear(&one);
}

void lm_ibj_norm_u(lm_num *r, const lm_ibj *J)
{
    if (!J->train_u) {
        lm_mat_frob(r, J->D->u);
        return;
    }
    lm_ibj_inner_u(r, J, J->U, J->U);
    if (lm_num_sgn(r) < 0) lm_num_set_d(r, 0.0);
    lm_num_sqrt(r, r);
}

/* e = ||a/|a| - b/|b|||^2 / 2 for a = w0 W_0 + sum A (W side, w0 = 1 when
 * with_w0) or sum A x (u side), b = sum M */
static int align(lm_num *e, const lm_ibj *J, const lm_mat *A, const lm_mat *M, int wside, int with_w0)
{
    const lm_ctx *c = &J->ctx;
    lm_num na, nb, ia, ib, z;
    lm_num_inits(c, &na, &nb, &ia, &ib, &z, (lm_num *)NULL);
    lm_num_set_d(&z, 1.0);
    if (wside) {
        lm_ibj_inner_W(&na, J, with_w0 ? &z : NULL, A, with_w0 ? &z : NULL, A);
        lm_ibj_inner_W(&nb, J, NULL, M, NULL, M);
    } else {
        lm_ibj_inner_u(&na, J, A, A);
        lm_ibj_inner_u(&nb, J, M, M);
    }
    int rc = 0;
    if (lm_num_sgn(&na) <= 0 || lm_num_sgn(&nb) <= 0) {
        rc = 1;
    } else {
        lm_num_sqrt(&na, &na);
        lm_num_sqrt(&nb, &nb);
        lm_num_set_d(&ia, 1.0);
        lm_num_div(&ia, &ia, &na);
        lm_num_set_d(&ib, -1.0);
        lm_num_div(&ib, &ib, &nb);
        lm_mat *Dl = lm_mat_new(J->n, J->T, c);
        lm_mat_scale(Dl, A, &ia);
        lm_mat_axpy(Dl, &ib, M); /* A/|a| - M/|b| */
        if (wside) lm_ibj_inner_W(e, J, with_w0 ? &ia : NULL, Dl, with_w0 ? &ia : NULL, Dl);
        else lm_ibj_inner_u(e, J, Dl, Dl);
        lm_num_mul_d(e, e, 0.5);
        if (lm_num_sgn(e) < 0) lm_num_set_d(e, 0.0);
        lm_mat_free(Dl);
    }
    lm_num_clears(&na, &nb, &ia, &ib, &z, (lm_num *)NULL);
    return rc;
}

int lm_ibj_align_W(lm_num *e, const lm_ibj *J, const lm_mat *M)
{
    return align(e, J, J->C, M, 1, 1);
}

int lm_ibj_align_u(lm_num *e, const lm_ibj *J, const lm_mat *M)
{
    if (!J->train_u) return 1;
    return align(e, J, J->U, M, 0, 0);
}

void lm_ibj_W(lm_mat *W, const lm_ibj *J, const lm_mat *W0)
{
    lm_attn_lowdim_expand(W, J->C, 1.0, W0, J->D);
}

void lm_ibj_u(lm_mat *u, const lm_ibj *J)
{
    if (!J->train_u) {
        lm_mat_copy(u, J->D->u);
        return;
    }
    const lm_attn_data *D = J->D;
    lm_mat *ci = lm_mat_new(D->T, 1, &J->ctx), *vi = lm_mat_new(D->d, 1, &J->ctx);
    lm_num v;
    lm_num_init(&v, &J->ctx);
    lm_mat_zero(u);
    for (int i = 0; i < D->n; i++) {
        for (int t = 0; t < D->T; t++) {
            lm_mat_get(&v, J->U, i, t);
            lm_mat_set(ci, t, 0, &v);
        }
        lm_mat_mul(vi, D->X[i], 1, ci, 0);
        lm_mat_add(u, u, vi);
    }
    lm_num_clear(&v);
    lm_mat_free(ci);
    lm_mat_free(vi);
}

/* ---------- optimizers ---------- */

/* ||sum A x x^T|| (no W_0 part) */
static void coef_norm_W(lm_num *r, const lm_ibj *J, const lm_mat *A)
{
    lm_ibj_inner_W(r, J, NULL, A, NULL, A);
    if (lm_num_sgn(r) < 0) lm_num_set_d(r, 0.0);
    lm_num_sqrt(r, r);
}

int lm_ibj_step(lm_ibj *J, const char *name, const lm_attn_opt_par *p)
{
    const lm_ctx *c = &J->ctx;
    int joint = !strcmp(name, "joint13") || !strcmp(name, "ngd-joint");
    int known = joint || !strcmp(name, "gd") || !strcmp(name, "ngd") || !strcmp(name, "ngd-mom") ||
                !strcmp(name, "polyak") || !strcmp(name, "polyak-cap");
    if (!known || (joint && !J->train_u)) return 2;
    if (J->F->loss != p->loss) {
        J->loss = p->loss;
        if (lm_ibj_refresh(J)) return 1;
    }
    lm_mat *gC = lm_mat_new(J->n, J->T, c), *gU = lm_mat_new(J->n, J->T, c);
    lm_num ls, f, a, b;
    lm_num_inits(c, &ls, &f, &a, &b, (lm_num *)NULL);
    int rc = 0;
    if (joint) lm_ibj_grads(gC, gU, &ls, J, J->F);
    else lm_attn_grad_coef(gC, &ls, J->F);
    if (!lm_num_isfinite(&ls)) {
        /* exactly stationary: no step (as ib_opt.c) */
        if (lm_num_sgn(&ls) > 0 || !lm_num_isfinite(&J->F->logL)) rc = 1;
        goto done;
    }
    if (!strcmp(name, "gd")) {
        lm_num_exp(&f, &ls);
        lm_num_mul_d(&f, &f, -p->eta);
        lm_mat_axpy(J->C, &f, gC);
        J->last_step = p->eta;
    } else if (!strcmp(name, "ngd") || !strcmp(name, "ngd-mom")) {
        coef_norm_W(&a, J, gC);
        if (lm_num_sgn(&a) <= 0) goto done;
        lm_num_set_d(&f, 1.0);
        lm_num_div(&f, &f, &a);
        lm_mat_scale(gC, gC, &f);
        if (!strcmp(name, "ngd-mom")) {
            lm_mat_scale_d(J->vC, J->vC, p->beta);
            lm_mat_add(J->vC, J->vC, gC);
            lm_mat_axpy_d(J->C, -p->eta, J->vC);
        } else {
            lm_mat_axpy_d(J->C, -p->eta, gC);
        }
        J->last_step = p->eta;
    } else if (!strcmp(name, "polyak") || !strcmp(name, "polyak-cap")) {
        /* log eta_t = log(L - L*) - 2 ls - 2 log ||gC|| */
        lm_num lex;
        lm_num_init(&lex, c);
        lm_attn_log_excess(&lex, J->F);
        coef_norm_W(&a, J, gC);
        lm_num_log(&a, &a);
        lm_num_mul_d(&b, &ls, -2.0);
        lm_num_add(&b, &b, &lex);
        lm_num_mul_d(&a, &a, -2.0);
        lm_num_add(&b, &b, &a); /* log eta_t */
        int capped = !strcmp(name, "polyak-cap") && lm_num_get_d(&b) > log(p->eta_max);
        J->last_step = capped ? p->eta_max : exp(lm_num_get_d(&b));
        if (capped) {
            lm_num_exp(&f, &ls);
            lm_num_mul_d(&f, &f, -p->eta_max);
        } else {
            lm_num_add(&f, &b, &ls);
            lm_num_exp(&f, &f);
            lm_num_neg(&f, &f);
        }
        if (lm_num_isfinite(&f)) lm_mat_axpy(J->C, &f, gC);
        else rc = lm_num_isfinite(&lex) ? 1 : 0; /* L = L* exactly: no step */
        lm_num_clear(&lex);
    } else if (!strcmp(name, "ngd-joint")) {
        lm_num_set_d(&b, 0.0);
        lm_ibj_inner_W(&a, J, NULL, gC, NULL, gC);
        lm_ibj_inner_u(&b, J, gU, gU);
        lm_num_add(&a, &a, &b);
        if (lm_num_sgn(&a) > 0) {
            lm_num_sqrt(&a, &a);
            lm_num_set_d(&f, -p->eta);
            lm_num_div(&f, &f, &a);
            lm_mat_axpy(J->C, &f, gC);
            lm_mat_axpy(J->U, &f, gU);
        }
        J->last_step = p->eta;
    } else { /* joint13: theta -= eta / ((t+1)^alpha L) grad */
        lm_num_set_si(&a, J->t + 1);
        lm_num_set_d(&b, p->alpha);
        lm_num_pow(&a, &a, &b);
        lm_num_sub(&f, &ls, &J->F->logL);
        lm_num_exp(&f, &f);
        lm_num_mul_d(&f, &f, p->eta);
        lm_num_div(&f, &f, &a);
        lm_num_neg(&b, &J->F->logL); /* step length eta_t = eta / ((t+1)^alpha L) */
        lm_num_exp(&b, &b);
        lm_num_mul_d(&b, &b, p->eta);
        lm_num_div(&b, &b, &a);
        J->last_step = lm_num_get_d(&b);
        lm_num_neg(&f, &f);
        lm_mat_axpy(J->C, &f, gC);
        lm_mat_axpy(J->U, &f, gU);
    }
done:
    J->t++;
    if (!rc && lm_ibj_refresh(J)) rc = 1;
    if (!rc && !(lm_mat_isfinite(J->C) && lm_mat_isfinite(J->U))) rc = 1;
    lm_num_clears(&ls, &f, &a, &b, (lm_num *)NULL);
    lm_mat_free(gC);
    lm_mat_free(gU);
    return rc;
}
