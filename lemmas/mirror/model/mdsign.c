/* mdsign.c -- the cancellation-free gradient correlation of the
 * mirror-descent paper, its certified sign, an accurate Bregman divergence,
 * cone directions and the cone-lemma instances (see lm_mdsign.h). */
#include "lm_mdsign.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------- small helpers ---------- */

/* softplus(x) = log(1 + e^x) = max(x, 0) + log1p(e^-|x|) */
static void softplus(lm_num *r, const lm_num *x, lm_num *tmp)
{
    lm_num_abs(tmp, x);
    lm_num_neg(tmp, tmp);
    lm_num_exp(tmp, tmp);
    lm_num_log1p(tmp, tmp);
    if (lm_num_sgn(x) > 0) lm_num_add(r, x, tmp);
    else lm_num_set(r, tmp);
}

void lm_md_corr_init(lm_md_corr *o, const lm_ctx *ctx)
{
    lm_num_inits(ctx, &o->logscale, &o->tot, &o->pos, &o->neg, &o->absum, (lm_num *)NULL);
    o->kappa = 0;
}

void lm_md_corr_clear(lm_md_corr *o)
{
    lm_num_clears(&o->logscale, &o->tot, &o->pos, &o->neg, &o->absum, (lm_num *)NULL);
}

/* ---------- the correlation in one context ---------- */

int lm_md_corr_eval(lm_md_corr *o, const lm_mddata *D, const lm_mat *W, const lm_mat *M,
                    const lm_mat *Msub, lm_attn_loss loss)
{
    const lm_ctx *c = &D->ctx;
    const int n = D->n, T = D->T, d = D->d;
    if (T < 2 || n < 1) return 2;
    for (int i = 0; i < n; i++)
        if (D->alpha[i] < 0 || D->alpha[i] >= T) return 2;
    lm_mat *Wc = lm_mat_new(d, d, c), *Mc = lm_mat_new(d, d, c);
    lm_mat_copy(Wc, W);
    lm_mat_copy(Mc, M);
    double *Wa = lm_xmalloc((size_t)(d * d) * sizeof *Wa), *Ma = lm_xmalloc((size_t)(d * d) * sizeof *Ma);
    lm_mat_get_array(Wa, Wc);
    lm_mat_get_array(Ma, Mc);
    for (int k = 0; k < d * d; k++) {
        Wa[k] = fabs(Wa[k]);
        Ma[k] = fabs(Ma[k]);
    }
    if (Msub) { /* M - Msub is formed here: its rounding scales with |M| + |Msub| */
        lm_mat *S = lm_mat_new(d, d, c);
        lm_mat_copy(S, Msub);
        lm_mat_sub(Mc, Mc, S);
        for (int i = 0; i < d; i++)
            for (int j = 0; j < d; j++) Ma[i * d + j] += fabs(lm_mat_get_d(S, i, j));
        lm_mat_free(S);
    }
    double *za = lm_xmalloc((size_t)d * sizeof *za), *wza = lm_xmalloc((size_t)d * sizeof *wza);
    double *mza = lm_xmalloc((size_t)d * sizeof *mza), *va = lm_xmalloc((size_t)d * sizeof *va);
    double *ahat = lm_xmalloc((size_t)T * sizeof *ahat), *bhat = lm_xmalloc((size_t)T * sizeof *bhat);
    for (int k = 0; k < d; k++) va[k] = fabs(lm_mat_get_d(D->v, k, 0));
    lm_mat *z = lm_mat_new(d, 1, c), *wz = lm_mat_new(d, 1, c), *mz = lm_mat_new(d, 1, c);
    lm_num *g = lm_nums_new(T, c), *a = lm_nums_new(T, c), *b = lm_nums_new(T, c);
    lm_num *Li = lm_nums_new(n, c), *br = lm_nums_new(n, c), *ps = lm_nums_new(n, c);
    lm_num *ng = lm_nums_new(n, c), *ab = lm_nums_new(n, c);
    lm_num xa, xt, dx, e1, e2, m, sig, ssig, sab, sa, sb, asab, asa, asb, w, lw, tmp, ga;
    lm_num_inits(c, &xa, &xt, &dx, &e1, &e2, &m, &sig, &ssig, &sab, &sa, &sb, &asab, &asa, &asb, &w,
                 &lw, &tmp, &ga, (lm_num *)NULL);
    double ghmax = 0;
    int bad = 0;
    for (int i = 0; i < n; i++) {
        const int al = D->alpha[i];
        for (int k = 0; k < d; k++) {
            lm_mat_get(&e1, D->Z, i, k);
            lm_mat_set(z, k, 0, &e1);
            za[k] = fabs(lm_num_get_d(&e1));
        }
        lm_mat_mul(wz, Wc, 0, z, 0);
        lm_mat_mul(mz, Mc, 0, z, 0);
        for (int k = 0; k < d; k++) {
            double sw = 0, sm = 0;
            for (int j = 0; j < d; j++) {
                sw += Wa[k * d + j] * za[j];
                sm += Ma[k * d + j] * za[j];
            }
            wza[k] = sw;
            mza[k] = sm;
        }
        /* gamma_alpha = Y v^T x_alpha */
        lm_num_set_d(&ga, 0.0);
        for (int k = 0; k < d; k++) {
            lm_mat_get(&xa, D->X[i], al, k);
            lm_mat_get(&e1, D->v, k, 0);
            lm_num_fma(&ga, &xa, &e1, &ga);
        }
        if (D->y[i] < 0) lm_num_neg(&ga, &ga);
        int first = 1;
        for (int t = 0; t < T; t++) {
            if (t == al) continue;
            lm_num_set_d(&g[t], 0.0);
            lm_num_set_d(&a[t], 0.0);
            lm_num_set_d(&b[t], 0.0);
            double gh = 0, ah = 0, bh = 0;
            for (int k = 0; k < d; k++) {
                lm_mat_get(&xa, D->X[i], al, k);
                lm_mat_get(&xt, D->X[i], t, k);
                lm_num_sub(&dx, &xa, &xt); /* token difference first */
                double adx = fabs(lm_num_get_d(&dx));
                lm_mat_get(&e1, wz, k, 0);
                lm_num_fma(&g[t], &dx, &e1, &g[t]);
                lm_mat_get(&e1, mz, k, 0);
                lm_num_fma(&a[t], &dx, &e1, &a[t]);
                lm_mat_get(&e1, D->v, k, 0);
                lm_num_fma(&b[t], &dx, &e1, &b[t]);
                gh += adx * wza[k];
                ah += adx * mza[k];
                bh += adx * va[k];
            }
            if (D->y[i] < 0) lm_num_neg(&b[t], &b[t]);
            ahat[t] = ah;
            bhat[t] = bh;
            ghmax = fmax(ghmax, gh);
            if (first || lm_num_cmp(&g[t], &m) < 0) lm_num_set(&m, &g[t]);
            first = 0;
        }
        /* sigma_t = e^{m - g_t} in (0, 1]; s_t = w sigma_t with
         * w = e^{-m} / (1 + e^{-m} sum sigma) = exp(-m - softplus(log sum sigma - m)) */
        lm_num_set_d(&ssig, 0.0);
        lm_num_set_d(&sab, 0.0);
        lm_num_set_d(&sa, 0.0);
        lm_num_set_d(&sb, 0.0);
        lm_num_set_d(&asab, 0.0);
        lm_num_set_d(&asa, 0.0);
        lm_num_set_d(&asb, 0.0);
        lm_num_set_d(&ps[i], 0.0);
        lm_num_set_d(&ng[i], 0.0);
        for (int t = 0; t < T; t++) {
            if (t == al) continue;
            lm_num_sub(&sig, &m, &g[t]);
            lm_num_exp(&sig, &sig);
            lm_num_add(&ssig, &ssig, &sig);
            lm_num_mul(&e1, &sig, &a[t]);
            lm_num_add(&sa, &sa, &e1);
            lm_num_mul(&e2, &e1, &b[t]);
            lm_num_add(&sab, &sab, &e2);
            if (lm_num_sgn(&e2) > 0) lm_num_add(&ps[i], &ps[i], &e2);
            else lm_num_sub(&ng[i], &ng[i], &e2);
            lm_num_mul(&e1, &sig, &b[t]);
            lm_num_add(&sb, &sb, &e1);
            lm_num_mul_d(&e1, &sig, ahat[t]);
            lm_num_add(&asa, &asa, &e1);
            lm_num_mul_d(&e2, &e1, bhat[t]);
            lm_num_add(&asab, &asab, &e2);
            lm_num_mul_d(&e1, &sig, bhat[t]);
            lm_num_add(&asb, &asb, &e1);
        }
        lm_num_log(&e1, &ssig);
        lm_num_sub(&e1, &e1, &m);
        softplus(&e2, &e1, &tmp); /* log Z */
        lm_num_neg(&lw, &m);
        lm_num_sub(&lw, &lw, &e2); /* log w */
        lm_num_exp(&w, &lw);
        /* bracket = S_ab - w S_a S_b */
        lm_num_mul(&e1, &sa, &sb);
        lm_num_mul(&e1, &e1, &w);
        lm_num_sub(&br[i], &sab, &e1);
        if (lm_num_sgn(&e1) > 0) lm_num_add(&ng[i], &ng[i], &e1);
        else lm_num_sub(&ps[i], &ps[i], &e1);
        lm_num_mul(&e2, &asa, &asb);
        lm_num_mul(&e2, &e2, &w);
        lm_num_add(&ab[i], &asab, &e2);
        /* margin u = gamma_alpha - w S_b; log|ell'(u)| */
        lm_num_mul(&e1, &w, &sb);
        lm_num_sub(&e1, &ga, &e1);
        if (loss == LM_ATTN_LOGISTIC) {
            softplus(&e2, &e1, &tmp);
            lm_num_neg(&e2, &e2);
        } else {
            lm_num_neg(&e2, &e1);
        }
        lm_num_add(&Li[i], &e2, &lw);
        if (!lm_num_isfinite(&Li[i]) || !lm_num_isfinite(&br[i]) || !lm_num_isfinite(&ab[i])) bad = 1;
    }
    if (!bad) {
        lm_num_set(&m, &Li[0]);
        for (int i = 1; i < n; i++) lm_num_max(&m, &m, &Li[i]);
        lm_num_set_d(&o->tot, 0.0);
        lm_num_set_d(&o->pos, 0.0);
        lm_num_set_d(&o->neg, 0.0);
        lm_num_set_d(&o->absum, 0.0);
        for (int i = 0; i < n; i++) {
            lm_num_sub(&e1, &Li[i], &m);
            lm_num_exp(&e1, &e1);
            lm_num_fma(&o->tot, &e1, &br[i], &o->tot);
            lm_num_fma(&o->pos, &e1, &ps[i], &o->pos);
            lm_num_fma(&o->neg, &e1, &ng[i], &o->neg);
            lm_num_fma(&o->absum, &e1, &ab[i], &o->absum);
        }
        lm_num_set_d(&e1, (double)n);
        lm_num_log(&e1, &e1);
        lm_num_sub(&o->logscale, &m, &e1);
        o->kappa = 4.0 * (double)(d + T + n + 8) * (1.0 + ghmax);
        if (!lm_num_isfinite(&o->logscale) || !lm_num_isfinite(&o->tot) || !lm_num_isfinite(&o->absum))
            bad = 1;
    }
    lm_num_clears(&xa, &xt, &dx, &e1, &e2, &m, &sig, &ssig, &sab, &sa, &sb, &asab, &asa, &asb, &w, &lw,
                  &tmp, &ga, (lm_num *)NULL);
    lm_nums_free(g, T);
    lm_nums_free(a, T);
    lm_nums_free(b, T);
    lm_nums_free(Li, n);
    lm_nums_free(br, n);
    lm_nums_free(ps, n);
    lm_nums_free(ng, n);
    lm_nums_free(ab, n);
    lm_mat_free(z);
    lm_mat_free(wz);
    lm_mat_free(mz);
    lm_mat_free(Wc);
    lm_mat_free(Mc);
    free(Wa);
    free(Ma);
    free(za);
    free(wza);
    free(mza);
    free(va);
    free(ahat);
    free(bhat);
    return bad;
}

/* ---------- certified sign ---------- */

int lm_md_sign_decide(lm_md_sign *r, const lm_mddata *D, const lm_mat *W, const lm_mat *M,
                      const lm_mat *Msub, lm_attn_loss loss, int prec_cap)
{
    memset(r, 0, sizeof *r);
    r->prec = -1;
    r->logabs = -INFINITY;
    int prev_pass = 0, prev_sign = 0, prev_prec = 0, rc = 0;
    if (prec_cap < 128) prec_cap = 128;
    if (prec_cap > LM_PREC_MAX) prec_cap = LM_PREC_MAX;
    for (int P = 64; P <= prec_cap; P *= 2) {
        lm_ctx c = lm_ctx_mpfr(P);
        lm_mddata *Dc = lm_md_data_convert(D, &c);
        lm_md_corr o;
        lm_md_corr_init(&o, &c);
        int e = lm_md_corr_eval(&o, Dc, W, M, Msub, loss);
        r->prec_max = P;
        int done = 0;
        if (e) {
            rc = 1;
            done = 1;
        } else if (lm_num_iszero(&o.absum)) { /* every term is exactly 0 */
            r->sign = 0;
            r->decided = 1;
            r->prec = P;
            r->lognp = 0;
            r->relmag = 0;
            done = 1;
        } else {
            int s = lm_num_sgn(&o.tot);
            double lt = lm_num_log_abs_d(&o.tot), la = lm_num_log_abs_d(&o.absum);
            int pass = s != 0 && lt - la > log(o.kappa) + (10.0 - (double)P) * M_LN2;
            if (pass && prev_pass && s == prev_sign) {
                r->sign = s;
                r->decided = 1;
                r->prec = prev_prec;
                r->logabs = lm_num_get_d(&o.logscale) + lt;
                r->relmag = exp(lt - la);
                /* log(neg/pos) = log1p(-tot/pos) */
                lm_num q;
                lm_num_init(&q, &c);
                if (lm_num_sgn(&o.pos) <= 0) {
                    r->lognp = 1e4;
                } else {
                    lm_num_div(&q, &o.tot, &o.pos);
                    lm_num_neg(&q, &q);
                    lm_num_log1p(&q, &q);
                    double l = lm_num_get_d(&q);
                    r->lognp = isfinite(l) ? fmax(-1e4, fmin(1e4, l)) : (l < 0 ? -1e4 : 1e4);
                }
                lm_num_clear(&q);
                /* the certified sign wins over a double that rounded to 0 */
                if (s > 0 && !(r->lognp < 0)) r->lognp = -DBL_MIN;
                if (s < 0 && !(r->lognp > 0)) r->lognp = DBL_MIN;
                done = 1;
            }
            prev_pass = pass;
            prev_sign = s;
            prev_prec = P;
        }
        lm_md_corr_clear(&o);
        lm_md_data_free(Dc);
        if (done) break;
    }
    return rc;
}

/* ---------- the naive formula (double) ---------- */

double lm_md_corr_naive_d(const lm_mddata *D, const lm_mat *W, const lm_mat *M)
{
    const int n = D->n, T = D->T, d = D->d;
    double *h = lm_xmalloc((size_t)T * sizeof *h), *s = lm_xmalloc((size_t)T * sizeof *s);
    double *gm = lm_xmalloc((size_t)T * sizeof *gm), *u = lm_xmalloc((size_t)d * sizeof *u);
    double *G = lm_xcalloc((size_t)(d * d), sizeof *G);
    for (int i = 0; i < n; i++) {
        double mx = -INFINITY;
        for (int t = 0; t < T; t++) {
            double acc = 0, gg = 0;
            for (int a = 0; a < d; a++) {
                double wz = 0;
                for (int b = 0; b < d; b++) wz += lm_mat_get_d(W, a, b) * lm_mat_get_d(D->Z, i, b);
                acc += lm_mat_get_d(D->X[i], t, a) * wz;
                gg += lm_mat_get_d(D->X[i], t, a) * lm_mat_get_d(D->v, a, 0);
            }
            h[t] = acc;
            gm[t] = D->y[i] * gg;
            mx = fmax(mx, acc);
        }
        double Z = 0;
        for (int t = 0; t < T; t++) Z += (s[t] = exp(h[t] - mx));
        double gbar = 0;
        for (int t = 0; t < T; t++) {
            s[t] /= Z;
            gbar += s[t] * gm[t];
        }
        double lp = -1.0 / (1.0 + exp(gbar));
        for (int a = 0; a < d; a++) u[a] = 0;
        for (int t = 0; t < T; t++) {
            double ct = s[t] * (gm[t] - gbar);
            for (int a = 0; a < d; a++) u[a] += ct * lm_mat_get_d(D->X[i], t, a);
        }
        for (int a = 0; a < d; a++)
            for (int b = 0; b < d; b++) G[a * d + b] += lp * u[a] * lm_mat_get_d(D->Z, i, b) / n;
    }
    double r = 0;
    for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++) r -= G[a * d + b] * lm_mat_get_d(M, a, b);
    free(h);
    free(s);
    free(gm);
    free(u);
    free(G);
    return r;
}

/* ---------- Bregman divergence without cancellation ---------- */

void lm_md_breg_acc(lm_num *r, const lm_mat *W, const lm_mat *V, double p)
{
    lm_ctx c = lm_mat_ctx(W);
    const int kmax = (int)c.prec / 3 + 6;
    lm_num P, pm1, w, v, acc, x, y, e, ek, ck, s, term;
    lm_num_inits(&c, &P, &pm1, &w, &v, &acc, &x, &y, &e, &ek, &ck, &s, &term, (lm_num *)NULL);
    lm_num_set_d(&P, p);
    lm_num_add_d(&pm1, &P, -1.0);
    lm_num_set_d(&acc, 0.0);
    for (int i = 0; i < W->r; i++)
        for (int j = 0; j < W->c; j++) {
            lm_mat_get(&w, W, i, j);
            lm_mat_get(&v, V, i, j);
            int sw = lm_num_sgn(&w), sv = lm_num_sgn(&v);
            if (sw == 0 && sv == 0) continue;
            if (sv == 0) { /* |w|^p / p */
                lm_num_abs(&x, &w);
                lm_num_pow(&x, &x, &P);
                lm_num_div(&x, &x, &P);
                lm_num_add(&acc, &acc, &x);
                continue;
            }
            lm_num_abs(&y, &v);
            if (sw == sv) {
                lm_num_sub(&e, &w, &v);
                lm_num_div(&e, &e, &v);
                lm_num_abs(&x, &e);
                if (lm_num_get_d(&x) <= 0.125) {
                    /* |v|^p sum_{k>=2} c_k e^k */
                    lm_num_mul(&ek, &e, &e);
                    lm_num_mul_d(&ck, &pm1, 0.5);
                    lm_num_set_d(&s, 0.0);
                    for (int k = 2; k <= kmax; k++) {
                        lm_num_mul(&term, &ck, &ek);
                        lm_num_add(&s, &s, &term);
                        if (lm_num_iszero(&ck)) break;
                        lm_num_add_d(&x, &P, -(double)k);
                        lm_num_mul(&ck, &ck, &x);
                        lm_num_div_d(&ck, &ck, (double)(k + 1));
                        lm_num_mul(&ek, &ek, &e);
                    }
                    lm_num_pow(&x, &y, &P);
                    lm_num_mul(&x, &x, &s);
                    lm_num_add(&acc, &acc, &x);
                    continue;
                }
            }
            /* closed sum: |w|^p/p + (p-1)|v|^p/p - sgn(v)|v|^(p-1) w */
            lm_num_abs(&x, &w);
            lm_num_pow(&x, &x, &P);
            lm_num_pow(&s, &y, &P);
            lm_num_fma(&x, &s, &pm1, &x);
            lm_num_div(&x, &x, &P);
            lm_num_pow(&s, &y, &pm1);
            lm_num_mul(&s, &s, &w);
            if (sv > 0) lm_num_sub(&x, &x, &s);
            else lm_num_add(&x, &x, &s);
            lm_num_add(&acc, &acc, &x);
        }
    lm_num_set(r, &acc);
    lm_num_clears(&P, &pm1, &w, &v, &acc, &x, &y, &e, &ek, &ck, &s, &term, (lm_num *)NULL);
}

double lm_md_normalize(lm_mat *A, double p)
{
    lm_ctx c = lm_mat_ctx(A);
    lm_num nv, one;
    lm_num_inits(&c, &nv, &one, (lm_num *)NULL);
    lm_md_pnorm(&nv, A, p);
    double r = lm_num_get_d(&nv);
    if (lm_num_sgn(&nv) > 0) {
        lm_num_set_d(&one, 1.0);
        lm_num_div(&nv, &one, &nv);
        lm_mat_scale(A, A, &nv);
    }
    lm_num_clears(&nv, &one, (lm_num *)NULL);
    return r;
}

void lm_md_dir_breg_acc(lm_num *r, const lm_mat *U, const lm_mat *W, double p)
{
    lm_mat *Ub = lm_mat_dup(U), *Wb = lm_mat_dup(W);
    lm_md_normalize(Ub, p);
    lm_md_normalize(Wb, p);
    lm_md_breg_acc(r, Ub, Wb, p);
    lm_mat_free(Ub);
    lm_mat_free(Wb);
}

void lm_md_holder_dual(lm_mat *H, const lm_mat *B, double p)
{
    lm_md_grad_psi_star(H, B, p); /* sgn(B)|B|^(1/(p-1)) = sgn(B)|B|^(q-1) */
    lm_md_normalize(H, p);
}

/* ---------- cone directions ---------- */

int lm_md_cone_dir(lm_mat *U, double *rho, const lm_mat *Wbar, const lm_mat *E, double p, double mu)
{
    lm_ctx cd = lm_ctx_double(), cu = lm_mat_ctx(U);
    int r = Wbar->r, cc = Wbar->c;
    lm_mat *Wd = lm_mat_new(r, cc, &cd), *Ed = lm_mat_new(r, cc, &cd), *Ud = lm_mat_new(r, cc, &cd);
    lm_mat_copy(Wd, Wbar);
    lm_mat_copy(Ed, E);
    lm_num dv;
    lm_num_init(&dv, &cd);
    const double target = mu * (1.0 - 1e-6);
#define DIV_AT(rh)                               \
    (lm_mat_copy(Ud, Wd), lm_mat_axpy_d(Ud, (rh), Ed), \
     lm_md_dir_breg_acc(&dv, Wd, Ud, p), lm_num_get_d(&dv))
    int rc = 0;
    double hi = 1.0, lo;
    while (!(DIV_AT(hi) > target) && hi < 1e8) hi *= 10.0;
    if (!(DIV_AT(hi) > target)) {
        rc = 1;
    } else {
        lo = hi;
        while (lo > 1e-40 && DIV_AT(lo) > target) lo /= 10.0;
        if (lo <= 1e-40) lo = 0.0;
        hi = lo > 0 ? 10.0 * lo : hi;
        for (int it = 0; it < 64 && hi - lo > 1e-15 * hi; it++) {
            double mid = 0.5 * (lo + hi);
            if (DIV_AT(mid) > target) hi = mid;
            else lo = mid;
        }
        *rho = lo;
        lm_mat *Ec = lm_mat_new(r, cc, &cu);
        lm_mat_copy(Ec, E);
        lm_mat_copy(U, Wbar);
        lm_mat_axpy_d(U, lo, Ec);
        lm_md_normalize(U, p);
        lm_mat_free(Ec);
    }
#undef DIV_AT
    lm_num_clear(&dv);
    lm_mat_free(Wd);
    lm_mat_free(Ed);
    lm_mat_free(Ud);
    return rc;
}

/* ---------- instances ---------- */

void lm_mdcone_clear(lm_mdcone *C)
{
    if (!C) return;
    lm_md_data_free(C->D);
    if (C->have_svm) lm_md_svm_clear(&C->svm);
    if (C->have_k) lm_md_consts_clear(&C->k);
    lm_mat_free(C->Wbar);
    free(C->marg);
    free(C->bgap);
    memset(C, 0, sizeof *C);
}

static double score(const lm_mddata *D, int i, int t)
{
    double s = 0;
    for (int k = 0; k < D->d; k++) s += lm_mat_get_d(D->X[i], t, k) * lm_mat_get_d(D->v, k, 0);
    return D->y[i] * s;
}

/* solve the SVM for the current alpha; 0 ok, 1 infeasible, -1 solver failure */
static int solve_svm(lm_mdcone *C, char *why, int whylen)
{
    int rc = lm_md_svm_solve(&C->svm, C->D, C->p, 0);
    C->have_svm = 1;
    if (rc == LM_MDSVM_INFEASIBLE) {
        snprintf(why, (size_t)whylen, "the l_p-AttSVM is infeasible");
        return 1;
    }
    if (rc != LM_MDSVM_OK) {
        snprintf(why, (size_t)whylen, "l_p-AttSVM solver failed (code %d, gap %.3g, min margin-1 %.3g)", rc,
                 C->svm.gap, C->svm.min_margin);
        return -1;
    }
    lm_md_consts_compute(&C->k, &C->svm, C->D);
    C->have_k = 1;
    return 0;
}

static void drop_svm(lm_mdcone *C)
{
    if (C->have_svm) lm_md_svm_clear(&C->svm);
    if (C->have_k) lm_md_consts_clear(&C->k);
    C->have_svm = C->have_k = 0;
}

int lm_mdcone_setup(lm_mdcone *C, lm_rng *g, const lm_ctx *c, int n, int T, int d, double p,
                    int mode, char *why, int whylen)
{
    memset(C, 0, sizeof *C);
    C->p = p;
    C->moved = -1;
    C->D = mode == 2 ? lm_md_gen_i2(c) : lm_md_gen_paper(g, n, T, d, c);
    lm_mddata *D = C->D;
    for (int i = 0; i < D->n; i++)
        if (D->alpha[i] < 0) {
            snprintf(why, (size_t)whylen, "tied token scores in sample %d", i);
            return 1;
        }
    int rc = 0;
    if (mode == 1) {
        /* move one sample's alpha to its second-best token, keeping alpha locally optimal */
        int found = 0;
        for (int i = 0; i < D->n && !found; i++) {
            int best = D->alpha[i], second = -1;
            for (int t = 0; t < D->T; t++)
                if (t != best && (second < 0 || score(D, i, t) > score(D, i, second))) second = t;
            D->alpha[i] = second;
            rc = solve_svm(C, why, whylen);
            if (rc < 0) return -1;
            int ok = rc == 0 && C->k.gbar > 0;
            if (ok) { /* sample i keeps a support (the derivation of R_delta needs it) */
                int hs = 0;
                for (int k = 0; k < C->svm.m; k++) hs |= C->svm.ci[k] == i && C->k.support[k];
                ok = hs;
            }
            if (ok) {
                found = 1;
                C->moved = i;
            } else {
                drop_svm(C);
                D->alpha[i] = best;
            }
        }
        if (!found) {
            snprintf(why, (size_t)whylen, "no sample admits a locally optimal second-best alpha");
            return 1;
        }
    } else {
        rc = solve_svm(C, why, whylen);
        if (rc) return rc;
    }
    if (!(C->k.gbar > 0)) {
        snprintf(why, (size_t)whylen, "alpha is not locally optimal (gamma gap over supports %.3g)", C->k.gbar);
        return 1;
    }
    C->m = C->svm.m;
    C->Wbar = lm_mat_dup(C->svm.W);
    lm_md_normalize(C->Wbar, p);
    C->marg = lm_xmalloc((size_t)C->m * sizeof *C->marg);
    C->bgap = lm_xmalloc((size_t)C->m * sizeof *C->bgap);
    lm_mat *r = lm_mat_new(C->m, 1, c);
    lm_md_margins(r, C->svm.W, D);
    for (int k = 0; k < C->m; k++) {
        int i = C->svm.ci[k];
        C->marg[k] = lm_mat_get_d(r, k, 0);
        C->bgap[k] = score(D, i, D->alpha[i]) - score(D, i, C->svm.ct[k]);
    }
    lm_mat_free(r);
    return 0;
}

/* ---------- the reconstructed Lemma 20 constants ---------- */

int lm_mdcone_rdelta(double *R, double *c20, const lm_mdcone *C, int companion, lm_attn_loss loss,
                     char *why, int whylen)
{
    const lm_mddata *D = C->D;
    const double dl = C->k.delta, wn = C->k.wnorm, T1 = (double)(D->T - 1);
    if (!(dl < 2.0)) {
        snprintf(why, (size_t)whylen, "delta = %.3g >= 2: the derivation needs 1 - delta/2 > 0", dl);
        return 1;
    }
    double mmax = 0;
    for (int k = 0; k < C->m; k++) mmax = fmax(mmax, C->marg[k]);
    double alo = companion ? (1.0 - dl / 2) / wn : 1.0 / wn;
    double ahi = companion ? (mmax + dl / 2) / wn : mmax / wn;
    double rt = log(fmax(T1, 1.0)) / (1.0 - dl / 2); /* C1: Z <= 2 */
    double c = 0;
    for (int i = 0; i < D->n; i++) {
        double gb = INFINITY, gm = 0, gp = 0, bmin = INFINITY, bmax = 0, gmax = -INFINITY;
        int ns = 0, nneg = 0;
        for (int t = 0; t < D->T; t++) gmax = fmax(gmax, score(D, i, t));
        for (int k = 0; k < C->m; k++) {
            if (C->svm.ci[k] != i) continue;
            double b = C->bgap[k];
            gp = fmax(gp, b);
            bmin = fmin(bmin, b);
            bmax = fmax(bmax, b);
            if (C->k.support[k]) {
                ns++;
                gb = fmin(gb, b);
            } else if (b < 0) {
                nneg++;
                gm = fmax(gm, -b);
            }
        }
        double llo = loss == LM_ATTN_LOGISTIC ? 1.0 / (1.0 + exp(gmax)) : exp(-gmax);
        if (ns > 0) {
            if (!(gb > 0)) {
                snprintf(why, (size_t)whylen, "sample %d: a support scores above alpha", i);
                return 1;
            }
            if (nneg > 0) rt = fmax(rt, log(4.0 * nneg * ahi * gm / (alo * gb)) / dl); /* C2 */
            if (gp > 0) rt = fmax(rt, log(8.0 * T1 * T1 * ahi * gp / (alo * gb)) / (1.0 - dl / 2)); /* C3 */
            c += llo * alo * gb / 4.0;
        } else {
            if (!(bmin > 0)) {
                snprintf(why, (size_t)whylen,
                         "sample %d has no support but a token scoring above its alpha", i);
                return 1;
            }
            rt = fmax(rt, log(T1 * bmax / bmin) / (1.0 - dl / 2)); /* C4 */
        }
    }
    if (!(c > 0)) {
        snprintf(why, (size_t)whylen, "no sample has a support");
        return 1;
    }
    *R = wn * fmax(rt, 0.0);
    *c20 = c / D->n;
    return 0;
}
