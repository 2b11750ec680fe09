/* mdstep.c -- one l_p-AttGD step and its per-step quantities without
 * cancellation, the runs R1/R2/R3, the eta-shrinking test and pointwise
 * instances (see lm_mdstep.h). */
#include "lm_mdstep.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---------- exponents ---------- */

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

static void expo_clear(expo *e) { lm_num_clears(&e->p, &e->pm1, &e->inv, &e->q, (lm_num *)NULL); }

/* ---------- phi_e(x) = (1+x)^e - 1 - e x ---------- */

/* below 2^(-prec/5) (over max(1,|e|)) the series; above it the direct form
 * expm1(e log1p(x)) - e x loses at most prec/5 + log2(1/|e-1|) bits */
static double phi_small(const lm_ctx *c) { return ldexp(1.0, (int)(lm_ctx_log2eps(c) / 5.0)); }

void lm_md_phi(lm_num *r, const lm_num *x, const lm_num *e, const lm_ctx *c)
{
    double xd = fabs(lm_num_get_d(x)), ed = fabs(lm_num_get_d(e));
    lm_num t, s, k;
    lm_num_inits(c, &t, &s, &k, (lm_num *)NULL);
    if (xd <= phi_small(c) / fmax(1.0, ed)) {
        /* series sum_{j>=2} binom(e, j) x^j: ~5 terms at any precision */
        double eps = lm_ctx_eps(c);
        lm_num_add_d(&t, e, -1.0);
        lm_num_mul(&t, &t, e);
        lm_num_mul_d(&t, &t, 0.5);
        lm_num_sqr(&s, x);
        lm_num_mul(&t, &t, &s); /* e(e-1)/2 x^2 */
        lm_num_set(&s, &t);
        for (int j = 3; j < 400; j++) {
            lm_num_add_d(&k, e, (double)(1 - j)); /* e - j + 1 */
            lm_num_mul(&t, &t, &k);
            lm_num_mul(&t, &t, x);
            lm_num_div_d(&t, &t, (double)j);
            lm_num_add(&s, &s, &t);
            if (lm_num_iszero(&t)) break;
            if (fabs(lm_num_get_d(&t)) <= eps * fabs(lm_num_get_d(&s))) break;
        }
        if (s.ab) {
            /* a ball must hold the truncated tail too: |t_{j+1}/t_j| = |e-j| |x|/(j+1) <=
             * (|e|+1)|x| = rho, so the tail past the last term t is at most |t| rho/(1-rho) */
            double lo, hi, xb, eb, tb;
            lm_num_bounds_d(x, &lo, &hi);
            xb = fmax(fabs(lo), fabs(hi));
            lm_num_bounds_d(e, &lo, &hi);
            eb = fmax(fabs(lo), fabs(hi));
            lm_num_bounds_d(&t, &lo, &hi);
            tb = fmax(fabs(lo), fabs(hi));
            double rho = (eb + 1.0) * xb * (1.0 + 0x1p-50);
            mag_t err;
            mag_init(err);
            if (rho < 0.5 && isfinite(tb)) mag_set_d(err, tb * rho / (1.0 - rho) * (1.0 + 0x1p-50));
            else mag_inf(err);
            arb_add_error_mag(s.b, err);
            mag_clear(err);
        }
        lm_num_set(r, &s);
    } else {
        lm_num_log1p(&t, x);
        lm_num_mul(&t, &t, e);
        lm_num_expm1(&t, &t);
        lm_num_mul(&s, e, x);
        lm_num_sub(r, &t, &s);
    }
    lm_num_clears(&t, &s, &k, (lm_num *)NULL);
}

/* ---------- the exact pair ---------- */

void lm_mdpair_init(lm_mdpair *P, int r, int c, const lm_ctx *ctx)
{
    memset(P, 0, sizeof *P);
    P->r = r;
    P->c = c;
    lm_num_inits(ctx, &P->yp, &P->y, &P->ypm1, &P->S, &P->dpm1, &P->dx, &P->x, &P->b01, &P->b10,
                 &P->corr, &P->dqn, &P->lin, (lm_num *)NULL);
    P->W1 = lm_mat_new(r, c, ctx);
    P->dW = lm_mat_new(r, c, ctx);
}

void lm_mdpair_clear(lm_mdpair *P)
{
    lm_num_clears(&P->yp, &P->y, &P->ypm1, &P->S, &P->dpm1, &P->dx, &P->x, &P->b01, &P->b10,
                  &P->corr, &P->dqn, &P->lin, (lm_num *)NULL);
    lm_mat_free(P->W1);
    lm_mat_free(P->dW);
    memset(P, 0, sizeof *P);
}

/* r = a^e for a >= 0 (0 at 0) */
static void powe(lm_num *r, const lm_num *a, const lm_num *e)
{
    if (lm_num_iszero(a)) lm_num_set_d(r, 0.0);
    else lm_num_pow(r, a, e);
}

void lm_mdpair_compute(lm_mdpair *P, const lm_mat *W0, const lm_mat *Th0, const lm_mat *dTh, double p,
                       int need)
{
    lm_ctx c = lm_mat_ctx(Th0);
    expo e;
    expo_init(&e, p, &c);
    lm_num th0, d, w0, th1, x, l, a0, a1, v, u, dw, sq, E, X, w1v;
    lm_num_inits(&c, &th0, &d, &w0, &th1, &x, &l, &a0, &a1, &v, &u, &dw, &sq, &E, &X, &w1v, (lm_num *)NULL);
    lm_num_set_d(&X, 0.0); /* ||W_1||_p^p, summed directly */
    lm_num_set_d(&P->yp, 0.0);
    lm_num_set_d(&P->S, 0.0);
    lm_num_set_d(&P->b01, 0.0);
    lm_num_set_d(&P->b10, 0.0);
    lm_num_set_d(&P->corr, 0.0);
    lm_num_set_d(&P->lin, 0.0);
    lm_num_set_d(&sq, 0.0);
    P->crossings = 0;
    P->underflows = 0;
    const int breg = need & LM_MDPAIR_BREG, w1 = need & LM_MDPAIR_W1;
    const double qd = p / (p - 1.0);
    for (int i = 0; i < Th0->r; i++)
        for (int j = 0; j < Th0->c; j++) {
            lm_mat_get(&th0, Th0, i, j);
            lm_mat_get(&d, dTh, i, j);
            lm_mat_get(&w0, W0, i, j);
            lm_num_mul(&a0, &th0, &w0);
            lm_num_abs(&a0, &a0); /* |th0|^q = |th0|^(1 + 1/(p-1)) = |w0|^p */
            lm_num_add(&P->yp, &P->yp, &a0);
            if (need & LM_MDPAIR_DQN) {
                lm_num_abs(&v, &d);
                powe(&v, &v, &e.q);
                lm_num_add(&sq, &sq, &v);
            }
            lm_num_fma(&P->corr, &d, &w0, &P->corr);
            if ((!lm_num_iszero(&th0) && lm_num_iszero(&w0)) || !lm_num_isfinite(&w0)) P->underflows++;
            if (lm_num_iszero(&d)) {
                lm_num_add(&X, &X, &a0);
                if (w1) {
                    lm_num_set_d(&dw, 0.0);
                    lm_mat_set(P->dW, i, j, &dw);
                    lm_mat_set(P->W1, i, j, &w0);
                }
                continue;
            }
            lm_num_add(&th1, &th0, &d);
            int s0 = lm_num_sgn(&th0), s1 = lm_num_sgn(&th1);
            if (s0 != 0 && s0 == s1) {
                /* x = d/th0 > -1: everything from log1p(x) */
                lm_num_div(&x, &d, &th0);
                lm_num_log1p(&l, &x);
                lm_num_mul(&v, &l, &e.q);
                lm_num_expm1(&E, &v);
                lm_num_mul(&v, &E, &a0); /* |th1|^q - |th0|^q */
                lm_num_add(&P->S, &P->S, &v);
                if (lm_num_get_d(&E) > -0.5) {
                    lm_num_add(&a1, &a0, &v); /* |th1|^q */
                } else { /* |th1| << |th0|: a1 directly */
                    lm_num_mul(&a1, &l, &e.q);
                    lm_num_exp(&a1, &a1);
                    lm_num_mul(&a1, &a1, &a0);
                }
                lm_num_add(&X, &X, &a1);
                if (w1) {
                    lm_num_mul(&u, &l, &e.inv);
                    lm_num_expm1(&dw, &u);
                    if (lm_num_get_d(&dw) > -0.5) {
                        lm_num_mul(&dw, &w0, &dw); /* w1 - w0 */
                        lm_num_add(&w1v, &w0, &dw);
                    } else { /* |w1| << |w0|: w1 directly (with p near 1 its tiny entries matter) */
                        lm_num_exp(&u, &u);
                        lm_num_mul(&w1v, &w0, &u);
                        lm_num_sub(&dw, &w1v, &w0);
                    }
                }
                if (breg) {
                    /* D_psi(W0,W1) = D_psi*(th1, th0) = |th0|^q phi_q(x) / q */
                    int small = fabs(lm_num_get_d(&x)) <= phi_small(&c) / fmax(1.0, qd);
                    if (small) {
                        lm_md_phi(&v, &x, &e.q, &c);
                    } else { /* expm1(q log1p(x)) - q x */
                        lm_num_mul(&u, &e.q, &x);
                        lm_num_sub(&v, &E, &u);
                    }
                    lm_num_mul(&v, &v, &a0);
                    lm_num_div(&v, &v, &e.q);
                    lm_num_add(&P->b01, &P->b01, &v);
                    /* D_psi(W1,W0) = D_psi*(th0, th1) = |th1|^q phi_q(x') / q,
                     * x' = -d/th1, log1p(x') = -log1p(x) */
                    lm_num_div(&x, &d, &th1);
                    lm_num_neg(&x, &x);
                    if (small) {
                        lm_md_phi(&v, &x, &e.q, &c);
                    } else {
                        lm_num_mul(&v, &l, &e.q);
                        lm_num_neg(&v, &v);
                        lm_num_expm1(&v, &v);
                        lm_num_mul(&u, &e.q, &x);
                        lm_num_sub(&v, &v, &u);
                    }
                    lm_num_mul(&v, &v, &a1);
                    lm_num_div(&v, &v, &e.q);
                    lm_num_add(&P->b10, &P->b10, &v);
                }
            } else {
                /* a crossing (or a start at 0): the terms are not close */
                P->crossings++;
                lm_num_abs(&u, &th1);
                powe(&u, &u, &e.inv);
                if (s1 < 0) lm_num_neg(&u, &u); /* w1 */
                lm_num_mul(&a1, &th1, &u);
                lm_num_abs(&a1, &a1);
                lm_num_add(&X, &X, &a1);
                lm_num_sub(&v, &a1, &a0);
                lm_num_add(&P->S, &P->S, &v);
                lm_num_sub(&dw, &u, &w0);
                lm_num_set(&w1v, &u);
                if (breg) {
                    /* b01 = a1/q - a0/q - w0 d ;  b10 = a0/q - a1/q + w1 d */
                    lm_num_div(&v, &v, &e.q);
                    lm_num_mul(&l, &w0, &d);
                    lm_num_sub(&l, &v, &l);
                    lm_num_add(&P->b01, &P->b01, &l);
                    lm_num_mul(&l, &u, &d);
                    lm_num_sub(&l, &l, &v);
                    lm_num_add(&P->b10, &P->b10, &l);
                }
            }
            if (w1) {
                if ((!lm_num_iszero(&th1) && lm_num_iszero(&w1v)) || !lm_num_isfinite(&w1v)) P->underflows++;
                lm_mat_set(P->dW, i, j, &dw);
                lm_mat_set(P->W1, i, j, &w1v);
                lm_num_fma(&P->lin, &d, &dw, &P->lin);
            }
        }
    /* norms and their increments */
    lm_num_set_d(&v, 1.0);
    lm_num_div(&u, &v, &e.q); /* 1/q */
    if (need & LM_MDPAIR_DQN) powe(&P->dqn, &sq, &u);
    else lm_num_set_d(&P->dqn, 0.0);
    lm_num_div(&l, &v, &e.p); /* 1/p */
    if (lm_num_iszero(&P->yp)) {
        lm_num_set_d(&P->y, 0.0);
        lm_num_set_d(&P->ypm1, 0.0);
        powe(&P->dpm1, &P->S, &u);
        powe(&P->dx, &P->S, &l);
        lm_num_set(&P->x, &P->dx);
    } else {
        lm_num_pow(&P->y, &P->yp, &l);
        lm_num_pow(&P->ypm1, &P->yp, &u);
        lm_num_div(&x, &P->S, &P->yp);
        if (lm_num_get_d(&x) > -0.5) {
            lm_num_log1p(&x, &x); /* log(x^p / y^p) from the accurate difference */
        } else { /* x^p << y^p: the direct sum has no cancellation */
            lm_num_div(&x, &X, &P->yp);
            lm_num_log(&x, &x);
        }
        lm_num_mul(&a0, &x, &u);
        lm_num_expm1(&a0, &a0);
        lm_num_mul(&P->dpm1, &a0, &P->ypm1);
        lm_num_mul(&a0, &x, &l);
        lm_num_expm1(&a0, &a0);
        lm_num_mul(&P->dx, &a0, &P->y);
        lm_num_add(&P->x, &P->y, &P->dx);
    }
    lm_num_clears(&th0, &d, &w0, &th1, &x, &l, &a0, &a1, &v, &u, &dw, &sq, &E, &X, &w1v, (lm_num *)NULL);
    expo_clear(&e);
}

/* ---------- the loss drop ---------- */

static void query_vec(lm_mat *z, const lm_mddata *D, int i)
{
    lm_num v;
    lm_num_init(&v, &D->ctx);
    for (int k = 0; k < D->d; k++) {
        lm_mat_get(&v, D->Z, i, k);
        lm_mat_set(z, k, 0, &v);
    }
    lm_num_clear(&v);
}

/* log(1 + e^z) */
static void softplus(lm_num *r, const lm_num *z, lm_num *w)
{
    lm_num_abs(w, z);
    lm_num_neg(w, w);
    lm_num_exp(w, w);
    lm_num_log1p(w, w);
    if (lm_num_sgn(z) > 0) lm_num_add(r, z, w);
    else lm_num_set(r, w);
}

int lm_md_loss_drop(lm_num *dL, const lm_attn_fwd *F0, const lm_mddata *D, const lm_mat *dW)
{
    const lm_ctx *c = &D->ctx;
    int T = D->T;
    lm_mat *z = lm_mat_new(D->d, 1, c), *q = lm_mat_new(D->d, 1, c), *da = lm_mat_new(T, 1, c);
    lm_num sig, v, w, s0, du, go, u1, acc;
    lm_num_inits(c, &sig, &v, &w, &s0, &du, &go, &u1, &acc, (lm_num *)NULL);
    lm_num_set_d(&acc, 0.0);
    int bad = 0;
    for (int i = 0; i < D->n; i++) {
        query_vec(z, D, i);
        lm_mat_mul(q, dW, 0, z, 0);
        lm_mat_mul(da, D->X[i], 0, q, 0); /* logit differences */
        /* change of the log-sum-exp: log1p(sum_t s0_t expm1(da_t)) */
        lm_num_set_d(&sig, 0.0);
        for (int t = 0; t < T; t++) {
            lm_mat_get(&v, da, t, 0);
            lm_num_expm1(&v, &v);
            lm_mat_get(&s0, F0->logs, i, t);
            lm_num_exp(&s0, &s0);
            lm_num_fma(&sig, &s0, &v, &sig);
        }
        lm_num_log1p(&sig, &sig);
        /* du = sum_t (gamma_t - gamma_opt) (s1_t - s0_t), s1 - s0 = s0 expm1(da - dLSE) */
        lm_num_set_d(&du, 0.0);
        lm_mat_get(&go, F0->gam, i, F0->opt[i]);
        for (int t = 0; t < T; t++) {
            if (t == F0->opt[i]) continue;
            lm_mat_get(&v, da, t, 0);
            lm_num_sub(&v, &v, &sig);
            lm_num_expm1(&v, &v);
            lm_mat_get(&s0, F0->logs, i, t);
            lm_num_exp(&s0, &s0);
            lm_num_mul(&v, &v, &s0);
            lm_mat_get(&w, F0->gam, i, t);
            lm_num_sub(&w, &w, &go);
            lm_num_fma(&du, &v, &w, &du);
        }
        lm_mat_get(&u1, F0->marg, i, 0);
        if (F0->loss == LM_ATTN_LOGISTIC) {
            /* l(u0) - l(u1) = log1p(expm1(du) / (1 + e^u1)) */
            lm_num_add(&u1, &u1, &du);
            softplus(&w, &u1, &v);
            lm_num_neg(&w, &w);
            lm_num_exp(&w, &w);
            lm_num_expm1(&v, &du);
            lm_num_mul(&v, &v, &w);
            lm_num_log1p(&v, &v);
        } else {
            /* e^-u0 - e^-u1 = -e^-u0 expm1(-du) */
            lm_num_neg(&w, &u1);
            lm_num_exp(&w, &w);
            lm_num_neg(&v, &du);
            lm_num_expm1(&v, &v);
            lm_num_mul(&v, &v, &w);
            lm_num_neg(&v, &v);
        }
        if (!lm_num_isfinite(&v)) bad = 1;
        lm_num_add(&acc, &acc, &v);
    }
    lm_num_div_d(dL, &acc, (double)D->n);
    lm_num_clears(&sig, &v, &w, &s0, &du, &go, &u1, &acc, (lm_num *)NULL);
    lm_mat_free(z);
    lm_mat_free(q);
    lm_mat_free(da);
    return bad;
}

/* ---------- runs ---------- */

void lm_mdrun_r1_size(int index, int *n, int *T, int *d, double *mu, double *R0)
{
    static const double mus[3] = {-1.0, 1e-3, 1e-2}, r0s[3] = {2.0, 3.0, 5.0};
    int big = index % 8 == 7;
    *n = big ? 6 : 3;
    *T = big ? 8 : 4;
    *d = big ? 10 : 4;
    *mu = mus[index % 3];
    *R0 = r0s[(index / 3) % 3];
}

static void eval_objects(lm_mdrun *R, int d, const lm_ctx *c)
{
    lm_num_inits(c, &R->ls, &R->f, &R->eta_k, (lm_num *)NULL);
    R->G = lm_mat_new(d, d, c);
    R->dTh = lm_mat_new(d, d, c);
}

int lm_mdrun_init(lm_mdrun *R, const lm_mdrun_spec *s, int index, lm_rng *g, char *why, int whylen)
{
    static const int own[3] = {0, 0, 0};
    return lm_mdrun_init_sized(R, s, own, index, g, why, whylen);
}

int lm_mdrun_init_sized(lm_mdrun *R, const lm_mdrun_spec *s, const int nTd[3], int index, lm_rng *g,
                        char *why, int whylen)
{
    memset(R, 0, sizeof *R);
    R->s = *s;
    R->ctx = lm_ctx_double();
    const lm_ctx *c = &R->ctx;
    int d;
    if (s->kind == LM_MDRUN_R1) {
        int n, T;
        double mu, R0;
        lm_mdrun_r1_size(index, &n, &T, &d, &mu, &R0);
        if (nTd[0]) n = nTd[0];
        if (nTd[1]) T = nTd[1];
        if (nTd[2]) d = nTd[2];
        R->big = index % 8 == 7;
        R->have_inst = 1;
        eval_objects(R, d, c);
        int rc = lm_md_inst_r1(&R->I, g, c, n, T, d, s->p, mu, R0, why, whylen);
        if (rc) return rc;
        R->Dd = R->I.D;
        R->Wd = R->I.W;
        R->Thd = R->I.Th;
        R->wnorm = R->I.k.wnorm;
        R->Wmm = lm_mat_dup(R->I.svm.W);
    } else {
        d = nTd[2] ? nTd[2] : 10;
        eval_objects(R, d, c);
        R->Dd = lm_md_gen_paper(g, nTd[0] ? nTd[0] : 6, nTd[1] ? nTd[1] : 8, d, c);
        R->Wd = lm_mat_new(d, d, c);
        R->Thd = lm_mat_new(d, d, c);
        if (s->kind == LM_MDRUN_R2) lm_mat_randn(R->Wd, g, 1.0);
        lm_md_grad_psi(R->Thd, R->Wd, s->p);
    }
    R->D = R->Dd;
    R->W = R->Wd;
    R->Th = R->Thd;
    R->F = lm_md_fwd_new(R->D);
    R->W0 = lm_mat_dup(R->W);
    return 0;
}

void lm_mdrun_shadow(lm_mdrun *S, const lm_mdrun *R, const lm_ctx *c)
{
    memset(S, 0, sizeof *S);
    S->s = R->s;
    S->ctx = *c;
    S->shadow = 1;
    int d = R->W->r;
    eval_objects(S, d, c);
    S->Dd = R->Dd;
    S->Thd = R->Thd;
    S->Wd = R->Wd;
    S->D = lm_md_data_convert(R->Dd, c);
    S->W = lm_mat_new(d, d, c);
    S->Th = lm_mat_new(d, d, c);
    S->F = lm_md_fwd_new(S->D);
    S->W0 = lm_mat_new(d, d, c);
    lm_mat_copy(S->W0, R->W0);
    if (R->Wmm) {
        S->Wmm = lm_mat_new(d, d, c);
        lm_mat_copy(S->Wmm, R->Wmm);
    }
    S->wnorm = R->wnorm;
    S->big = R->big;
    S->k = R->k;
}

void lm_mdrun_free(lm_mdrun *R)
{
    if (!R) return;
    if (R->shadow) {
        lm_md_data_free(R->D);
        lm_mat_free(R->W);
        lm_mat_free(R->Th);
    } else if (R->have_inst) {
        lm_md_inst_clear(&R->I);
    } else {
        lm_md_data_free(R->Dd);
        lm_mat_free(R->Wd);
        lm_mat_free(R->Thd);
    }
    if (R->F) lm_attn_fwd_free(R->F);
    lm_mat_free(R->Wmm);
    lm_mat_free(R->W0);
    lm_mat_free(R->G);
    lm_mat_free(R->dTh);
    lm_num_clears(&R->ls, &R->f, &R->eta_k, (lm_num *)NULL);
    memset(R, 0, sizeof *R);
}

/* ||G||_e = m (sum (|g|/m)^e)^(1/e), m = max |g|: the operations of lm_md_step */
static void pnorm_e(lm_num *r, const lm_mat *W, const lm_num *e)
{
    lm_ctx c = lm_mat_ctx(W);
    lm_num m, s, v, ie;
    lm_num_inits(&c, &m, &s, &v, &ie, (lm_num *)NULL);
    lm_mat_max_abs(&m, W);
    if (lm_num_sgn(&m) == 0 || !lm_num_isfinite(&m)) {
        lm_num_set(r, &m);
    } else {
        lm_num_set_d(&s, 0.0);
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

int lm_mdrun_prepare(lm_mdrun *R)
{
    const lm_ctx *c = &R->ctx;
    if (R->shadow) { /* the driver's state, exactly, in the context */
        lm_mat_copy(R->Th, R->Thd);
        lm_md_grad_psi_star(R->W, R->Th, R->s.p);
    }
    if (lm_md_forward(R->F, R->D, R->W, LM_ATTN_LOGISTIC)) return 1;
    lm_md_grad_scaled(R->G, &R->ls, R->F, R->D);
    lm_num_set_d(&R->eta_k, R->s.eta);
    lm_num_set_d(&R->f, 0.0);
    if (!lm_num_isfinite(&R->ls)) {
        lm_mat_zero(R->dTh);
        return lm_num_sgn(&R->ls) > 0;
    }
    lm_num f, nq;
    lm_num_inits(c, &f, &nq, (lm_num *)NULL);
    lm_num_exp(&f, &R->ls); /* as lm_md_step */
    if (R->s.normalized) {
        expo e;
        expo_init(&e, R->s.p, c);
        pnorm_e(&nq, R->G, &e.q);
        expo_clear(&e);
        lm_num_mul(&nq, &nq, &f);
        lm_num_add_d(&nq, &nq, ldexp(1.0, -52));
        lm_num_div(&f, &f, &nq);
        lm_num_set_d(&R->eta_k, R->s.eta);
        lm_num_div(&R->eta_k, &R->eta_k, &nq);
    }
    lm_num_mul_d(&f, &f, -R->s.eta);
    lm_num_set(&R->f, &f);
    lm_mat_scale(R->dTh, R->G, &f);
    lm_num_clears(&f, &nq, (lm_num *)NULL);
    return !lm_mat_isfinite(R->dTh);
}

int lm_mdrun_advance(lm_mdrun *R)
{
    if (R->shadow) return 1;
    int moving = 0, same = 1;
    for (int i = 0; i < R->dTh->r; i++)
        for (int j = 0; j < R->dTh->c; j++)
            if (lm_mat_get_d(R->dTh, i, j) != 0.0) moving = 1;
    if (lm_num_isfinite(&R->ls)) { /* the rest of lm_md_step */
        lm_mat *old = moving ? lm_mat_dup(R->Th) : NULL;
        lm_mat_axpy(R->Th, &R->f, R->G);
        lm_md_grad_psi_star(R->W, R->Th, R->s.p);
        for (int i = 0; old && i < old->r && same; i++)
            for (int j = 0; j < old->c && same; j++)
                if (lm_mat_get_d(R->Th, i, j) != lm_mat_get_d(old, i, j)) same = 0;
        lm_mat_free(old);
    }
    if (moving && same) R->frozen++;
    R->k++;
    return !(lm_mat_isfinite(R->W) && lm_mat_isfinite(R->Th));
}

/* ---------- observations ---------- */

void lm_mdobs_set_init(lm_mdobs_set *O, const lm_ctx *c)
{
    memset(O, 0, sizeof *O);
    for (int i = 0; i < LM_MDOBS_MAX; i++) lm_num_inits(c, &O->lo[i], &O->hi[i], (lm_num *)NULL);
}

void lm_mdobs_set_clear(lm_mdobs_set *O)
{
    for (int i = 0; i < LM_MDOBS_MAX; i++) lm_num_clears(&O->lo[i], &O->hi[i], (lm_num *)NULL);
    memset(O, 0, sizeof *O);
}

int lm_mdobs_add(lm_mdobs_set *O, double tol, const char *fmt, ...)
{
    int i = O->n < LM_MDOBS_MAX ? O->n++ : LM_MDOBS_MAX - 1;
    O->tol[i] = tol;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(O->lab[i], sizeof O->lab[i], fmt, ap);
    va_end(ap);
    lm_num_set_d(&O->lo[i], 0.0);
    lm_num_set_d(&O->hi[i], 0.0);
    return i;
}

void lm_mdobs_le(lm_eval *ev, int t, const lm_num *lo, const lm_num *hi, double reltol,
                 const char *where, ...)
{
    if (lm_num_iszero(lo) && lm_num_iszero(hi)) return; /* a null step: no information */
    char lab[160];
    va_list ap;
    va_start(ap, where);
    vsnprintf(lab, sizeof lab, where, ap);
    va_end(ap);
    lm_num a, b;
    lm_num_inits(ev->ctx, &a, &b, (lm_num *)NULL);
    if (hi->ab && !lm_num_iszero(hi)) {
        /* a ball of hi around 0 has no sign to pick a form by: lo <= hi + |hi| tol is both forms
         * at once (hi(1+tol) for hi > 0, hi(1-tol) for hi < 0), so a certificate holds for every
         * point of the ball */
        lm_num_set_d(&b, 0.0);
        if (!lm_num_certainly_gt(hi, &b) && !lm_num_certainly_gt(&b, hi)) {
            lm_num_abs(&b, hi);
            lm_num_mul_d(&b, &b, reltol);
            lm_num_add(&b, &b, hi);
            lm_obs_le(ev, t, lo, &b, 0.0, "%s", lab);
            lm_num_clears(&a, &b, (lm_num *)NULL);
            return;
        }
    }
    if (lm_num_sgn(hi) > 0) {
        lm_obs_le(ev, t, lo, hi, reltol, "%s", lab);
        lm_num_clears(&a, &b, (lm_num *)NULL);
        return;
    }
    lm_num_mul_d(&b, hi, reltol); /* -hi(1 - tol) formed in the context: a tolerance */
    lm_num_sub(&a, &b, hi);       /* below 2^-53 must survive an MPFR evaluation  */
    lm_num_neg(&b, lo);
    lm_obs_le(ev, t, &a, &b, 0.0, "%s", lab);
    lm_num_clears(&a, &b, (lm_num *)NULL);
}

void lm_mdobs_undecided(lm_eval *ev, int t, const char *where)
{
    lm_num a;
    lm_num_init(&a, ev->ctx);
    lm_num_set_d(&a, 1.0);
    lm_obs_le(ev, t, &a, &a, 0.0, "%s (undecided in double: exponent range)", where);
    lm_num_clear(&a);
}

int lm_mdobs_record(lm_eval *ev, int t, const lm_mdobs_set *O, const lm_mdpair *P, const char *prefix)
{
    int n = 0;
    for (int i = 0; i < O->n; i++)
        if (!lm_num_isfinite(&O->lo[i]) || !lm_num_isfinite(&O->hi[i])) return -1;
    for (int i = 0; i < O->n; i++) {
        if (lm_num_iszero(&O->lo[i]) && lm_num_iszero(&O->hi[i])) continue;
        char lab[160];
        snprintf(lab, sizeof lab, "%s%s", prefix, O->lab[i]);
        if (P && P->underflows && ev->ctx->backend == LM_DOUBLE) lm_mdobs_undecided(ev, t, lab);
        else lm_mdobs_le(ev, t, &O->lo[i], &O->hi[i], O->tol[i], "%s", lab);
        n++;
    }
    return n;
}

void lm_mdobs_le_d(lm_eval *ev, int t, double lo, double hi, double reltol, const char *where)
{
    if (lo == 0.0 && hi == 0.0) return;
    if (hi > 0) lm_obs_le_d(ev, t, lo, hi, reltol, "%s", where);
    else lm_obs_le_d(ev, t, -hi * (1.0 - reltol), -lo, 0.0, "%s", where);
}

/* the (a, b) of "a <= b" that lm_mdobs_le records */
static void obs_ab(double *a, double *b, double lo, double hi, double reltol)
{
    if (hi > 0) {
        *a = lo;
        *b = hi * (1.0 + reltol);
    } else {
        *a = -hi * (1.0 - reltol);
        *b = -lo;
    }
}

double lm_mdobs_log10(double lo, double hi, double reltol)
{
    if (lo == 0.0 && hi == 0.0) return -400.0;
    double a, b;
    obs_ab(&a, &b, lo, hi, reltol);
    if (b > 0) return a > 0 ? log10(a / b) : -400.0;
    return a > b ? 400.0 : 0.0;
}

int lm_mdobs_clear(double lo, double hi, double reltol, double m)
{
    if (lo == 0.0 && hi == 0.0) return 1;
    double a, b;
    obs_ab(&a, &b, lo, hi, reltol);
    return b - a > m * fmax(fabs(a), fabs(b));
}

/* broken in the context: a > b */
static int obs_broke(const lm_num *lo, const lm_num *hi, double reltol, const lm_ctx *c)
{
    if (lm_num_iszero(lo) && lm_num_iszero(hi)) return 0;
    lm_num a, b;
    lm_num_inits(c, &a, &b, (lm_num *)NULL);
    if (lm_num_sgn(hi) > 0) {
        lm_num_set(&a, lo);
        lm_num_mul_d(&b, hi, reltol);
        lm_num_add(&b, &b, hi);
    } else {
        lm_num_mul_d(&b, hi, reltol);
        lm_num_sub(&a, &b, hi);
        lm_num_neg(&b, lo);
    }
    int r = lm_num_cmp(&a, &b) > 0;
    lm_num_clears(&a, &b, (lm_num *)NULL);
    return r;
}

/* ---------- a checked run ---------- */

/* one step's observations in R's context: P, dL, O filled */
static int step_eval(lm_mdobs_set *O, lm_mdpair *P, lm_num *dL, lm_mdrun *R, const lm_mdcheck *C,
                     int prepare)
{
    if (prepare && lm_mdrun_prepare(R)) return 1;
    int need = C->need | (C->need_dL ? LM_MDPAIR_W1 : 0);
    lm_mdpair_compute(P, R->W, R->Th, R->dTh, R->s.p, need);
    if (C->need_dL && lm_md_loss_drop(dL, R->F, R->D, P->dW)) return 1;
    O->n = 0;
    C->obs(O, R, P, dL, C->data);
    for (int i = 0; i < O->n; i++)
        if (!lm_num_isfinite(&O->lo[i]) || !lm_num_isfinite(&O->hi[i])) return 1;
    return 0;
}

int lm_mdrun_check(lm_mdcheck_out *out, lm_eval *ev, lm_mdrun *R, int K, int flags,
                   const lm_mdcheck *C, char *why, int whylen)
{
    memset(out, 0, sizeof *out);
    out->first_fail = out->last_fail = -1;
    out->worst = -INFINITY;
    const lm_ctx *c = ev->ctx;
    const int record = flags & LM_MDCHECK_RECORD, stop_at_fail = flags & LM_MDCHECK_STOP;
    int mp = c->backend != LM_DOUBLE && !(flags & LM_MDCHECK_DOUBLE);
    if (record && !(flags & LM_MDCHECK_ALL) && ev->tmax >= 0 && ev->tmax + 1 < K) K = ev->tmax + 1;
    int d = R->W->r;
    lm_mdpair P, Pm;
    lm_mdobs_set O, Om;
    lm_num dL, dLm;
    lm_mdpair_init(&P, d, d, &R->ctx);
    lm_mdobs_set_init(&O, &R->ctx);
    lm_num_init(&dL, &R->ctx);
    lm_num_set_d(&dL, 0.0);
    lm_mdrun S;
    int have_shadow = 0;
    int rc = 0;
    for (int k = 0; k < K; k++) {
        /* the state a certificate starts from: the driver's Theta(k), exactly (W(k) and the step
         * follow from it and the data; lm_mdrun_check_state) */
        if (record && !R->shadow && lm_state_wanted(ev, k)) lm_state_keep(ev, LM_MDRUN_STATE, R->Th);
        if (step_eval(&O, &P, &dL, R, C, 1)) {
            snprintf(why, (size_t)whylen, "non-finite value at step %d (double)", k);
            rc = -1;
            break;
        }
        int failed = 0, clear = 1;
        double w = -INFINITY;
        for (int i = 0; i < O.n; i++) {
            double lo = lm_num_get_d(&O.lo[i]), hi = lm_num_get_d(&O.hi[i]);
            w = fmax(w, lm_mdobs_log10(lo, hi, O.tol[i]));
            if (!lm_mdobs_clear(lo, hi, O.tol[i], LM_MDCLEAR)) clear = 0;
        }
        if (P.underflows) clear = 0;
        if (!mp) {
            const int dctx = c->backend == LM_DOUBLE; /* else: decided in double on request */
            for (int i = 0; i < O.n; i++) {
                if (P.underflows) { /* the double evaluation cannot decide: the replay will */
                    if (record && dctx) lm_mdobs_undecided(ev, k, O.lab[i]);
                    continue;
                }
                if (obs_broke(&O.lo[i], &O.hi[i], O.tol[i], &R->ctx)) failed = 1;
                if (record && dctx) lm_mdobs_le(ev, k, &O.lo[i], &O.hi[i], O.tol[i], "%s", O.lab[i]);
                else if (record)
                    lm_mdobs_le_d(ev, k, lm_num_get_d(&O.lo[i]), lm_num_get_d(&O.hi[i]), O.tol[i], O.lab[i]);
            }
        } else if (clear) {
            for (int i = 0; record && i < O.n; i++)
                lm_mdobs_le_d(ev, k, lm_num_get_d(&O.lo[i]), lm_num_get_d(&O.hi[i]), O.tol[i], O.lab[i]);
        } else {
            if (!have_shadow) {
                lm_mdrun_shadow(&S, R, c);
                lm_mdpair_init(&Pm, d, d, c);
                lm_mdobs_set_init(&Om, c);
                lm_num_init(&dLm, c);
                lm_num_set_d(&dLm, 0.0);
                have_shadow = 1;
            }
            S.k = k;
            out->ctx_evals++;
            if (step_eval(&Om, &Pm, &dLm, &S, C, 1)) {
                snprintf(why, (size_t)whylen, "non-finite value at step %d (context)", k);
                rc = -1;
                break;
            }
            w = -INFINITY;
            for (int i = 0; i < Om.n; i++) {
                if (obs_broke(&Om.lo[i], &Om.hi[i], Om.tol[i], c)) failed = 1;
                w = fmax(w, lm_mdobs_log10(lm_num_get_d(&Om.lo[i]), lm_num_get_d(&Om.hi[i]), Om.tol[i]));
                if (record) lm_mdobs_le(ev, k, &Om.lo[i], &Om.hi[i], Om.tol[i], "%s", Om.lab[i]);
            }
        }
        if (w > out->worst) out->worst = w;
        out->steps = k + 1;
        if (failed) {
            out->nfail++;
            if (out->first_fail < 0) out->first_fail = k;
            out->last_fail = k;
        }
        if (C->hook && C->hook(ev, R, &P, &dL, failed, C->data)) break;
        if (failed && stop_at_fail) break;
        if (k + 1 < K && lm_mdrun_advance(R)) {
            snprintf(why, (size_t)whylen, "non-finite iterate after step %d", k);
            rc = -1;
            break;
        }
    }
    if (have_shadow) {
        lm_mdrun_free(&S);
        lm_mdpair_clear(&Pm);
        lm_mdobs_set_clear(&Om);
        lm_num_clear(&dLm);
    }
    lm_num_clear(&dL);
    lm_mdobs_set_clear(&O);
    lm_mdpair_clear(&P);
    return rc;
}

int lm_mdrun_check_state(lm_eval *ev, lm_mdrun *R, const lm_mdcheck *C)
{
    int t = lm_state_given(ev);
    if (t < 0 || R->shadow) return lm_fail(ev, "no state given to evaluate");
    if (lm_state_get(ev, LM_MDRUN_STATE, R->Thd)) return -1; /* recorded by lm_state_get */
    lm_md_grad_psi_star(R->Wd, R->Thd, R->s.p);
    R->k = t;
    int d = R->W->r;
    const lm_ctx *c = ev->ctx;
    lm_mdrun S;
    lm_mdpair P;
    lm_mdobs_set O;
    lm_num dL;
    lm_mdrun_shadow(&S, R, c);
    S.k = t;
    lm_mdpair_init(&P, d, d, c);
    lm_mdobs_set_init(&O, c);
    lm_num_init(&dL, c);
    lm_num_set_d(&dL, 0.0);
    int rc = 0;
    if (step_eval(&O, &P, &dL, &S, C, 1))
        rc = lm_fail(ev, "non-finite value at step %d from the given state", t);
    for (int i = 0; !rc && i < O.n; i++)
        lm_mdobs_le(ev, t, &O.lo[i], &O.hi[i], O.tol[i], "%s", O.lab[i]);
    lm_num_clear(&dL);
    lm_mdobs_set_clear(&O);
    lm_mdpair_clear(&P);
    lm_mdrun_free(&S);
    return rc;
}

/* ---------- the eta-shrinking test ---------- */

/* the run's sizes through lm_size, so the shrinker can ask for a smaller run */
static void run_sizes(int nTd[3], lm_eval *ev, const lm_mdrun_spec *s)
{
    int n = 6, T = 8, d = 10;
    if (s->kind == LM_MDRUN_R1) {
        double mu, R0;
        lm_mdrun_r1_size(ev->index, &n, &T, &d, &mu, &R0);
    }
    /* resource bounds: past about 10 samples the l_p-AttSVM's double phase (coordinate
     * ascent on a dual with more constraints than dimensions) can take its full 20000
     * sweeps, tens of seconds per solve */
    nTd[0] = lm_size(ev, "n", n, 1, 8);
    nTd[1] = lm_size(ev, "T", T, 1, 64);
    nTd[2] = lm_size(ev, "d", d, 1, 64);
}

static int shrunk_run(lm_mdcheck_out *o, lm_eval *ev, const lm_mdrun_spec *s, const lm_rng *g0,
                      double div, int steps, int flags, const lm_mdcheck *C, char *why, int whylen)
{
    lm_rng g = *g0; /* the same data and start as the main run */
    lm_mdrun_spec s2 = *s;
    s2.eta = s->eta / div;
    lm_mdrun R;
    int nTd[3];
    run_sizes(nTd, ev, s);
    int rc = lm_mdrun_init_sized(&R, &s2, nTd, ev->index, &g, why, whylen);
    if (rc) {
        lm_mdrun_free(&R);
        return -1;
    }
    lm_mdcheck C2 = *C;
    C2.hook = NULL;
    rc = lm_mdrun_check(o, ev, &R, steps, flags, &C2, why, whylen);
    lm_mdrun_free(&R);
    return rc;
}

int lm_mdrun_shrink_test(int *persist, char *msg, int msglen, lm_eval *ev, const lm_mdrun_spec *s,
                         const lm_rng *g0, int K, int cap, const lm_mdcheck *C, char *why, int whylen)
{
    *persist = 0;
    msg[0] = 0;
    lm_mdcheck_out o;
    /* the last failure of the main run, decided in double over all K steps */
    if (shrunk_run(&o, ev, s, g0, 1.0, K, LM_MDCHECK_DOUBLE | LM_MDCHECK_ALL, C, why, whylen)) return -1;
    if (o.last_fail < 0) {
        snprintf(msg, (size_t)msglen, "no failure in the double scan of the run");
        return 0;
    }
    int klast = o.last_fail;
    lm_measure(ev, "last failing step (double scan)", klast);
    static const double divs[2] = {10.0, 100.0};
    static const char *const names[2] = {"first failure at eta/10 (step)", "first failure at eta/100 (step)"};
    for (int j = 0; j < 2; j++) {
        long n = (long)divs[j] * (klast + 1);
        int steps = n > cap ? cap : (int)n;
        if (shrunk_run(&o, ev, s, g0, divs[j], steps, LM_MDCHECK_STOP, C, why, whylen)) return -1;
        lm_measure(ev, names[j], o.first_fail);
        if (o.first_fail < 0) {
            snprintf(msg, (size_t)msglen, "none at eta/%g over the same time span %.3g (%d steps%s)", divs[j],
                     s->eta / divs[j] * o.steps, o.steps, steps < n ? ", capped" : "");
            return 0;
        }
    }
    *persist = 1;
    return 0;
}

/* ---------- claim plumbing ---------- */

int lm_mdrun_begin(lm_mdrun *R, lm_eval *ev, const lm_mdrun_spec *s)
{
    char why[300];
    int nTd[3];
    run_sizes(nTd, ev, s);
    int rc = lm_mdrun_init_sized(R, s, nTd, ev->index, lm_eval_rng(ev), why, sizeof why);
    if (rc > 0) lm_assume(ev, 0, "%s", why);
    else if (rc < 0) lm_fail(ev, "%s", why);
    if (rc == 0 && lm_want_data(ev)) { /* the run's data and start, for a shrunk counterexample */
        const lm_mddata *D = R->D;
        char nm[32];
        lm_mat *yv = lm_mat_new(D->n, 1, &R->ctx);
        for (int i = 0; i < D->n; i++) {
            snprintf(nm, sizeof nm, "X_%d", i + 1);
            lm_data_mat(ev, nm, D->X[i]);
            lm_mat_set_d(yv, i, 0, (double)D->y[i]);
        }
        lm_data_mat(ev, "Z (query tokens)", D->Z);
        lm_data_mat(ev, "y", yv);
        lm_data_mat(ev, "v (head)", D->v);
        lm_data_mat(ev, "W(0)", R->W0);
        lm_mat_free(yv);
    }
    return rc;
}

int lm_mdrun_steps(const lm_eval *ev, int K)
{
    if (ev->quick) K /= 4;
    return K < 8 ? 8 : K;
}

void lm_mdrun_measures(lm_eval *ev, const lm_mdrun *R, const lm_mdcheck_out *o)
{
    lm_num a;
    lm_num_init(&a, &R->ctx);
    lm_measure(ev, "steps", o->steps);
    lm_measure(ev, "frozen double steps", R->frozen);
    lm_measure(ev, "steps re-evaluated in the context", o->ctx_evals);
    lm_md_pnorm(&a, R->W0, R->s.p);
    lm_measure(ev, "||W(0)||_p", lm_num_get_d(&a));
    lm_md_pnorm(&a, R->W, R->s.p);
    lm_measure(ev, "||W(last)||_p", lm_num_get_d(&a));
    if (R->wnorm > 0) lm_measure(ev, "||W_mm||_p", R->wnorm);
    lm_num_clear(&a);
}

/* ---------- pointwise instances ---------- */

/* a random entry: exact zero (1 in 8, when zeros are allowed), else a signed
 * magnitude over ~4 decades */
static double rand_entry(lm_rng *g, double scale, int zeros)
{
    double u = lm_rng_uniform(g);
    if (zeros && u < 0.125) return 0.0;
    double m = scale * exp(2.3 * (2.0 * lm_rng_uniform(g) - 1.0));
    return lm_rng_uniform(g) < 0.5 ? -m : m;
}

void lm_md_pointwise(lm_mat *W0, lm_mat *Th0, lm_mat *dTh, lm_num *eta, double p, lm_rng *g,
                     const double *x, int nx)
{
    int r = W0->r, c = W0->c, rc = r * c;
    lm_ctx ctx = lm_mat_ctx(W0);
    double sw = exp(2.3 * (2.0 * lm_rng_uniform(g) - 1.0)); /* scale of W0 */
    double et = exp(log(1e-3) + lm_rng_uniform(g) * log(1e4));
    int mode = lm_rng_int(g, 0, 2); /* 0: free G, 1: radial growth, 2: flips signs */
    double kap = exp(log(1e-4) + lm_rng_uniform(g) * log(1e4));
    double wv[64], gv[64], gs = pow(sw, p - 1.0) / et; /* G in units of Theta0 / eta */
    for (int k = 0; k < rc && k < 64; k++) wv[k] = rand_entry(g, sw, rc > 1);
    for (int k = 0; k < rc && k < 64; k++) {
        double th = (wv[k] < 0 ? -1.0 : 1.0) * pow(fabs(wv[k]), p - 1.0);
        double e = rand_entry(g, 1.0, rc > 1);
        if (mode == 0) gv[k] = e * gs * kap;
        else if (mode == 1) gv[k] = -(th / et) * kap * (1.0 + 0.01 * e);
        else gv[k] = (th / et) * (1.0 + 0.5 * lm_rng_uniform(g)) + 0.01 * e * gs; /* overshoots 0 */
    }
    if (x && nx >= 2 * rc + 1) {
        for (int k = 0; k < rc; k++) {
            wv[k] += x[k] * sw;
            gv[k] += x[rc + k] * gs;
        }
        et *= exp(x[2 * rc]);
    }
    for (int k = 0; k < rc; k++) {
        lm_mat_set_d(W0, k / c, k % c, wv[k]);
        lm_mat_set_d(dTh, k / c, k % c, gv[k]);
    }
    lm_md_grad_psi(Th0, W0, p);
    lm_md_grad_psi_star(W0, Th0, p); /* the state is Theta: W0 = grad psi^*(Theta0) */
    lm_num_set_d(eta, et);
    lm_num m;
    lm_num_init(&m, &ctx);
    lm_num_neg(&m, eta);
    lm_mat_scale(dTh, dTh, &m); /* dTh = -eta G */
    lm_num_clear(&m);
}
