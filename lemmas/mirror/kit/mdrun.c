/* mdrun.c -- training runs of the mirror-descent paper with the per-step
 * quantities of its trajectory and rate claims (see lm_mdrun.h). */
#include "lm_stats.h"
#include "lm_mdrun.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------- exponents of p in the context ---------- */

typedef struct {
    lm_num p, pm1, q, iq, ip, inv; /* p, p-1, q = p/(p-1), 1/q, 1/p, 1/(p-1) */
} mexpo;

static void mexpo_init(mexpo *e, double p, const lm_ctx *c)
{
    lm_num_inits(c, &e->p, &e->pm1, &e->q, &e->iq, &e->ip, &e->inv, (lm_num *)NULL);
    lm_num_set_d(&e->p, p);
    lm_num_add_d(&e->pm1, &e->p, -1.0);
    lm_num_div(&e->q, &e->p, &e->pm1);
    lm_num_div(&e->iq, &e->pm1, &e->p);
    lm_num_set_d(&e->ip, 1.0);
    lm_num_div(&e->ip, &e->ip, &e->p);
    lm_num_set_d(&e->inv, 1.0);
    lm_num_div(&e->inv, &e->inv, &e->pm1);
}

static void mexpo_clear(mexpo *e)
{
    lm_num_clears(&e->p, &e->pm1, &e->q, &e->iq, &e->ip, &e->inv, (lm_num *)NULL);
}

/* ||A||_e = m (sum (|a|/m)^e)^(1/e), m = max |a| (no overflow) */
static void pnorm_num(lm_num *r, const lm_mat *A, const lm_num *e)
{
    lm_ctx c = lm_mat_ctx(A);
    lm_num m, s, v;
    lm_num_inits(&c, &m, &s, &v, (lm_num *)NULL);
    lm_mat_max_abs(&m, A);
    if (lm_num_sgn(&m) == 0 || !lm_num_isfinite(&m)) {
        lm_num_set(r, &m);
    } else {
        lm_num_set_d(&s, 0.0);
        for (int i = 0; i < A->r; i++)
            for (int j = 0; j < A->c; j++) {
                lm_mat_get(&v, A, i, j);
                if (lm_num_iszero(&v)) continue;
                lm_num_abs(&v, &v);
                lm_num_div(&v, &v, &m);
                lm_num_pow(&v, &v, e);
                lm_num_add(&s, &s, &v);
            }
        lm_num_set_d(&v, 1.0);
        lm_num_div(&v, &v, e);
        lm_num_pow(&s, &s, &v);
        lm_num_mul(r, &s, &m);
    }
    lm_num_clears(&m, &s, &v, (lm_num *)NULL);
}

/* ---------- accurate scalar Bregman divergence ---------- */

typedef struct {
    lm_num a, b, s, t, term, sum, c, x;
} bws;

static void bws_init(bws *w, const lm_ctx *c)
{
    lm_num_inits(c, &w->a, &w->b, &w->s, &w->t, &w->term, &w->sum, &w->c, &w->x, (lm_num *)NULL);
}

static void bws_clear(bws *w)
{
    lm_num_clears(&w->a, &w->b, &w->s, &w->t, &w->term, &w->sum, &w->c, &w->x, (lm_num *)NULL);
}

/* phi(w, v) = |w|^p/p + (p-1)|v|^p/p - sgn(v)|v|^(p-1) w >= 0 into r.
 * Same signs: phi = |v|^p g(s), s = log(|w|/|v|) = log1p((|w|-|v|)/|v|),
 * g(s) = (e^{ps}-1)/p - (e^s-1) = sum_{n>=2} (p^{n-1}-1) s^n/n!  (series when
 * p|s| < 1, with p^{n-1}-1 by the recurrence c_n = p c_{n-1} + (p-1): no
 * cancellation); opposite signs or a zero: three nonnegative terms. */
static void phi_acc(lm_num *r, const lm_num *w, const lm_num *v, const mexpo *e, double p,
                    double log_eps, bws *k)
{
    int sw = lm_num_sgn(w), sv = lm_num_sgn(v);
    if (sv == 0) { /* |w|^p / p */
        lm_num_abs(&k->a, w);
        if (sw) lm_num_pow(&k->a, &k->a, &e->p);
        lm_num_div(r, &k->a, &e->p);
        return;
    }
    lm_num_abs(&k->b, v);
    if (sw == 0 || sw != sv) {
        /* |w|^p/p + (p-1)|v|^p/p + |v|^(p-1)|w| */
        lm_num_pow(&k->t, &k->b, &e->p);
        lm_num_mul(&k->t, &k->t, &e->pm1);
        if (sw) {
            lm_num_abs(&k->a, w);
            lm_num_pow(&k->c, &k->a, &e->p);
            lm_num_add(&k->t, &k->t, &k->c);
        }
        lm_num_div(&k->t, &k->t, &e->p);
        if (sw) {
            lm_num_pow(&k->c, &k->b, &e->pm1);
            lm_num_mul(&k->c, &k->c, &k->a);
            lm_num_add(&k->t, &k->t, &k->c);
        }
        lm_num_set(r, &k->t);
        return;
    }
    lm_num_abs(&k->a, w);
    lm_num_sub(&k->s, &k->a, &k->b);
    lm_num_div(&k->s, &k->s, &k->b);
    lm_num_log1p(&k->s, &k->s); /* s = log(|w|/|v|) */
    double sd = fabs(lm_num_get_d(&k->s));
    if (sd * fmax(p, 1.0) < 1.0) {
        /* series: a_n = s^n/n!, c_n = p^{n-1} - 1 */
        lm_num_set(&k->x, &k->s);  /* a_1 */
        lm_num_set_d(&k->c, 0.0);  /* c_1 */
        lm_num_set_d(&k->sum, 0.0);
        for (int n = 2; n < 2000; n++) {
            lm_num_mul(&k->x, &k->x, &k->s);
            lm_num_div_d(&k->x, &k->x, (double)n);
            lm_num_mul(&k->c, &k->c, &e->p);
            lm_num_add(&k->c, &k->c, &e->pm1);
            lm_num_mul(&k->term, &k->x, &k->c);
            lm_num_add(&k->sum, &k->sum, &k->term);
            if (lm_num_iszero(&k->term)) break;
            if (n >= 3 && !lm_num_iszero(&k->sum) &&
                lm_num_log_abs_d(&k->term) - lm_num_log_abs_d(&k->sum) < log_eps)
                break;
        }
        lm_num_set(&k->t, &k->sum);
    } else {
        lm_num_mul(&k->t, &k->s, &e->p);
        lm_num_expm1(&k->t, &k->t);
        lm_num_div(&k->t, &k->t, &e->p);
        lm_num_expm1(&k->c, &k->s);
        lm_num_sub(&k->t, &k->t, &k->c);
    }
    lm_num_pow(&k->c, &k->b, &e->p);
    lm_num_mul(r, &k->t, &k->c);
}

/* sum_ab phi(su U_ab, sv V_ab) (su, sv may be NULL: 1) */
static void breg_sum(lm_num *r, const lm_mat *U, const lm_num *su, const lm_mat *V, const lm_num *sv,
                     double p)
{
    lm_ctx c = lm_mat_ctx(V);
    mexpo e;
    mexpo_init(&e, p, &c);
    bws k;
    bws_init(&k, &c);
    lm_num u, v, f, acc;
    lm_num_inits(&c, &u, &v, &f, &acc, (lm_num *)NULL);
    lm_num_set_d(&acc, 0.0);
    double log_eps = (lm_ctx_log2eps(&c) - 4.0) * M_LN2;
    for (int i = 0; i < V->r; i++)
        for (int j = 0; j < V->c; j++) {
            lm_mat_get(&u, U, i, j);
            if (su) lm_num_mul(&u, &u, su);
            lm_mat_get(&v, V, i, j);
            if (sv) lm_num_mul(&v, &v, sv);
            if (lm_num_iszero(&u) && lm_num_iszero(&v)) continue;
            phi_acc(&f, &u, &v, &e, p, log_eps, &k);
            lm_num_add(&acc, &acc, &f);
        }
    lm_num_set(r, &acc);
    lm_num_clears(&u, &v, &f, &acc, (lm_num *)NULL);
    bws_clear(&k);
    mexpo_clear(&e);
}

void lm_mdgd_bregman(lm_num *r, const lm_mat *U, const lm_mat *V, double p)
{
    breg_sum(r, U, NULL, V, NULL, p);
}

void lm_mdgd_dirbreg(lm_num *r, const lm_mat *U, const lm_mat *W, double p)
{
    lm_ctx c = lm_mat_ctx(W);
    lm_num su, sw;
    lm_num_inits(&c, &su, &sw, (lm_num *)NULL);
    lm_md_pnorm(&su, U, p);
    lm_md_pnorm(&sw, W, p);
    lm_num_set_d(r, 1.0);
    lm_num_div(&su, r, &su);
    lm_num_div(&sw, r, &sw);
    breg_sum(r, U, &su, W, &sw, p);
    lm_num_clears(&su, &sw, (lm_num *)NULL);
}

/* ---------- loss differences ---------- */

/* ell(u) - ell(u'), du = u' - u given accurately */
static void dell(lm_num *r, const lm_num *u, const lm_num *du, const lm_num *up, lm_attn_loss loss,
                 lm_num *w)
{
    if (loss == LM_ATTN_LOGISTIC) {
        /* log1p(expm1(du) / (1 + e^{u'})) */
        lm_num_exp(w, up);
        lm_num_add_d(w, w, 1.0);
        lm_num_expm1(r, du);
        lm_num_div(r, r, w);
        lm_num_log1p(r, r);
    } else {
        /* e^{-u} - e^{-u'} = -e^{-u} expm1(-du) */
        lm_num_neg(w, du);
        lm_num_expm1(w, w);
        lm_num_neg(r, u);
        lm_num_exp(r, r);
        lm_num_mul(r, r, w);
        lm_num_neg(r, r);
    }
}

void lm_mdgd_dloss(lm_num *r, const lm_attn_fwd *F0, const lm_attn_fwd *F1)
{
    lm_ctx c = lm_mat_ctx(F0->marg);
    lm_num l0, l1, du, u, up, w, acc;
    lm_num_inits(&c, &l0, &l1, &du, &u, &up, &w, &acc, (lm_num *)NULL);
    lm_num_set_d(&acc, 0.0);
    for (int i = 0; i < F0->n; i++) {
        lm_mat_get(&l0, F0->logdel, i, 0);
        lm_mat_get(&l1, F1->logdel, i, 0);
        lm_mat_get(&u, F0->marg, i, 0);
        lm_mat_get(&up, F1->marg, i, 0);
        /* u' - u = delta0 - delta1 */
        if (lm_num_isfinite(&l0) && lm_num_isfinite(&l1)) {
            lm_num_sub(&du, &l1, &l0);
            lm_num_expm1(&du, &du);
            lm_num_exp(&w, &l0);
            lm_num_mul(&du, &du, &w);
            lm_num_neg(&du, &du);
        } else {
            lm_num_sub(&du, &up, &u);
        }
        dell(&w, &u, &du, &up, F0->loss, &l0);
        lm_num_add(&acc, &acc, &w);
    }
    lm_num_div_d(r, &acc, (double)F0->n);
    lm_num_clears(&l0, &l1, &du, &u, &up, &w, &acc, (lm_num *)NULL);
}

void lm_mdgd_excess(lm_num *r, const lm_attn_fwd *F)
{
    lm_ctx c = lm_mat_ctx(F->marg);
    lm_num ld, du, u, up, w, acc;
    lm_num_inits(&c, &ld, &du, &u, &up, &w, &acc, (lm_num *)NULL);
    lm_num_set_d(&acc, 0.0);
    for (int i = 0; i < F->n; i++) {
        lm_mat_get(&ld, F->logdel, i, 0);
        if (!lm_num_isfinite(&ld)) continue; /* delta = 0 */
        lm_mat_get(&u, F->marg, i, 0);
        lm_mat_get(&up, F->gam, i, F->opt[i]);
        lm_num_exp(&du, &ld); /* gamma_opt - u = delta */
        dell(&w, &u, &du, &up, F->loss, &ld);
        lm_num_add(&acc, &acc, &w);
    }
    lm_num_div_d(r, &acc, (double)F->n);
    lm_num_clears(&ld, &du, &u, &up, &w, &acc, (lm_num *)NULL);
}

int lm_mdgd_fit(double *slope, double *se, const double *x, const double *y, int n)
{
    *slope = NAN;
    *se = NAN;
    lm_fit f;
    if (n < 3 || lm_fit_line(&f, x, y, n, 0.95)) return 1;
    *slope = f.slope;
    *se = f.se;
    return 0;
}

/* ---------- unnormalised l_p-AttGD ---------- */

/* S = sum |Th|^q, P_ab = |Th_ab|^q */
static void powers(lm_mat *P, lm_num *S, const lm_mat *Th, const lm_num *q)
{
    lm_ctx c = lm_mat_ctx(Th);
    lm_num v;
    lm_num_init(&v, &c);
    lm_num_set_d(S, 0.0);
    for (int i = 0; i < Th->r; i++)
        for (int j = 0; j < Th->c; j++) {
            lm_mat_get(&v, Th, i, j);
            if (!lm_num_iszero(&v)) {
                lm_num_abs(&v, &v);
                lm_num_pow(&v, &v, q);
            }
            lm_mat_set(P, i, j, &v);
            lm_num_add(S, S, &v);
        }
    lm_num_clear(&v);
}

int lm_mdgd_init(lm_mdgd *R, const lm_mddata *D, const lm_mat *W0, const lm_mat *Th0,
                  const lm_mat *Wmm, double p, double eta, lm_attn_loss loss)
{
    memset(R, 0, sizeof *R);
    const lm_ctx *c = &D->ctx;
    R->ctx = *c;
    R->D = D;
    R->p = p;
    R->eta = eta;
    R->loss = loss;
    R->frozen_at = -1;
    int d = D->d;
    R->W = lm_mat_dup(W0);
    R->Th = lm_mat_dup(Th0);
    R->Wbmm = lm_mat_new(d, d, c);
    R->G = lm_mat_new(d, d, c);
    R->P = lm_mat_new(d, d, c);
    R->Thn = lm_mat_new(d, d, c);
    R->dTh = lm_mat_new(d, d, c);
    R->Wprev = lm_mat_new(d, d, c);
    R->F = lm_md_fwd_new(D);
    R->Fn = lm_md_fwd_new(D);
    R->F0 = lm_md_fwd_new(D);
    lm_num_inits(c, &R->S, &R->r, &R->rpm1, &R->r_prev, &R->rpm1_prev, &R->drpm1, &R->dL, &R->lhs_mm,
                 &R->corr_w, &R->logscale, &R->Dk, (lm_num *)NULL);
    lm_num nm;
    lm_num_init(&nm, c);
    lm_md_pnorm(&nm, Wmm, p);
    lm_num_set_d(&R->r, 1.0);
    lm_num_div(&nm, &R->r, &nm);
    lm_mat_scale(R->Wbmm, Wmm, &nm);
    lm_num_clear(&nm);
    mexpo e;
    mexpo_init(&e, p, c);
    powers(R->P, &R->S, R->Th, &e.q);
    lm_num_pow(&R->rpm1, &R->S, &e.iq);
    lm_num_pow(&R->r, &R->S, &e.ip);
    mexpo_clear(&e);
    int rc = lm_md_forward(R->F, D, R->W, loss);
    rc |= lm_md_forward(R->F0, D, R->W, loss);
    return rc;
}

int lm_mdgd_step(lm_mdgd *R)
{
    const lm_ctx *c = &R->ctx;
    const lm_mddata *D = R->D;
    mexpo e;
    mexpo_init(&e, R->p, c);
    lm_num f, v, th, dth, dS, Sn, pn;
    lm_num_inits(c, &f, &v, &th, &dth, &dS, &Sn, &pn, (lm_num *)NULL);
    /* gradient at W(k), scaled: grad L = e^ls G */
    lm_md_grad_scaled(R->G, &R->logscale, R->F, D);
    lm_mat_copy(R->Thn, R->Th);
    int nonzero = lm_num_isfinite(&R->logscale);
    if (!nonzero && lm_num_sgn(&R->logscale) > 0) goto bad;
    if (nonzero) {
        lm_num_exp(&f, &R->logscale);
        lm_num_mul_d(&f, &f, -R->eta);
        lm_mat_axpy(R->Thn, &f, R->G);
    }
    lm_mat_sub(R->dTh, R->Thn, R->Th);
    /* frozen: Theta unchanged although the gradient is nonzero */
    R->frozen = 0;
    if (nonzero) {
        lm_mat_max_abs(&v, R->dTh);
        if (lm_num_iszero(&v)) {
            R->frozen = 1;
            R->nfrozen++;
            if (R->frozen_at < 0) R->frozen_at = R->k + 1;
        }
    }
    /* step quantities that use W(k): <dTheta, Wbar_mm>, <dTheta, W(k)>/r_k */
    lm_mat_dot(&R->lhs_mm, R->dTh, R->Wbmm);
    lm_mat_dot(&R->corr_w, R->dTh, R->W);
    lm_num_div(&R->corr_w, &R->corr_w, &R->r);
    /* increments of |Theta|^q entrywise, and the new powers */
    lm_num_set_d(&dS, 0.0);
    lm_num_set_d(&Sn, 0.0);
    R->frozen_entries = 0;
    for (int i = 0; i < D->d; i++)
        for (int j = 0; j < D->d; j++) {
            lm_mat_get(&th, R->Th, i, j);
            lm_mat_get(&dth, R->dTh, i, j);
            if (nonzero && lm_num_iszero(&dth) && lm_mat_get_d(R->G, i, j) != 0.0) R->frozen_entries++;
            lm_mat_get(&f, R->Thn, i, j); /* Theta' */
            int s0 = lm_num_sgn(&th), s1 = lm_num_sgn(&f);
            lm_num_set_d(&pn, 0.0);
            if (s1 != 0) {
                lm_num_abs(&pn, &f);
                lm_num_pow(&pn, &pn, &e.q);
            }
            if (s0 != 0 && s0 == s1) {
                /* |Th|^q expm1(q log1p(dTh/Th)) */
                lm_num_div(&v, &dth, &th);
                lm_num_log1p(&v, &v);
                lm_num_mul(&v, &v, &e.q);
                lm_num_expm1(&v, &v);
                lm_mat_get(&th, R->P, i, j);
                lm_num_mul(&v, &v, &th);
            } else {
                lm_mat_get(&th, R->P, i, j);
                lm_num_sub(&v, &pn, &th);
            }
            lm_num_add(&dS, &dS, &v);
            lm_num_add(&Sn, &Sn, &pn);
            lm_mat_set(R->P, i, j, &pn);
        }
    if (R->frozen_entries > R->max_frozen_entries) R->max_frozen_entries = R->frozen_entries;
    /* r^{p-1} increment: rpm1 expm1(log1p(dS/S)/q) */
    lm_num_set(&R->r_prev, &R->r);
    lm_num_set(&R->rpm1_prev, &R->rpm1);
    lm_num_div(&v, &dS, &R->S);
    lm_num_log1p(&v, &v);
    lm_num_mul(&v, &v, &e.iq);
    lm_num_expm1(&v, &v);
    lm_num_mul(&R->drpm1, &v, &R->rpm1);
    lm_num_set(&R->S, &Sn);
    lm_num_pow(&R->rpm1, &Sn, &e.iq);
    lm_num_pow(&R->r, &Sn, &e.ip);
    /* new iterate and its forward pass */
    lm_mat_copy(R->Wprev, R->W);
    lm_md_grad_psi_star(R->W, R->Thn, R->p);
    {
        lm_mat *t = R->Th;
        R->Th = R->Thn;
        R->Thn = t;
    }
    if (lm_md_forward(R->Fn, D, R->W, R->loss)) goto bad;
    lm_mdgd_dloss(&R->dL, R->F, R->Fn);
    {
        lm_attn_fwd *t = R->F;
        R->F = R->Fn;
        R->Fn = t;
    }
    R->k++;
    int rc = 0;
    if (!lm_mat_isfinite(R->W) || !lm_mat_isfinite(R->Th) || !lm_num_isfinite(&R->drpm1) ||
        !lm_num_isfinite(&R->dL) || !lm_num_isfinite(&R->r))
        rc = 1;
    lm_num_clears(&f, &v, &th, &dth, &dS, &Sn, &pn, (lm_num *)NULL);
    mexpo_clear(&e);
    return rc;
bad:
    lm_num_clears(&f, &v, &th, &dth, &dS, &Sn, &pn, (lm_num *)NULL);
    mexpo_clear(&e);
    return 1;
}

void lm_mdgd_dir(lm_num *r, const lm_mdgd *R)
{
    lm_num s;
    lm_num_init(&s, &R->ctx);
    lm_num_set_d(&s, 1.0);
    lm_num_div(&s, &s, &R->r);
    breg_sum(r, R->Wbmm, NULL, R->W, &s, R->p);
    lm_num_clear(&s);
}

void lm_mdgd_loss_drop(lm_num *r, const lm_mdgd *R) { lm_mdgd_dloss(r, R->F0, R->F); }

void lm_mdgd_clear(lm_mdgd *R)
{
    if (!R || !R->W) return;
    lm_mat_free(R->W);
    lm_mat_free(R->Th);
    lm_mat_free(R->Wbmm);
    lm_mat_free(R->G);
    lm_mat_free(R->P);
    lm_mat_free(R->Thn);
    lm_mat_free(R->dTh);
    lm_mat_free(R->Wprev);
    lm_attn_fwd_free(R->F);
    lm_attn_fwd_free(R->Fn);
    lm_attn_fwd_free(R->F0);
    lm_num_clears(&R->S, &R->r, &R->rpm1, &R->r_prev, &R->rpm1_prev, &R->drpm1, &R->dL, &R->lhs_mm,
                  &R->corr_w, &R->logscale, &R->Dk, (lm_num *)NULL);
    memset(R, 0, sizeof *R);
}

/* ---------- runs with checkpoints ---------- */

void lm_mdgd_trace_clear(lm_mdgd_trace *t)
{
    free(t->k);
    free(t->r);
    free(t->D);
    free(t->logdr);
    memset(t, 0, sizeof *t);
}

static void trace_push(lm_mdgd_trace *t, double k, double r, double D, double logdr)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 256;
        t->k = lm_xrealloc(t->k, (size_t)t->cap * sizeof *t->k);
        t->r = lm_xrealloc(t->r, (size_t)t->cap * sizeof *t->r);
        t->D = lm_xrealloc(t->D, (size_t)t->cap * sizeof *t->D);
        t->logdr = lm_xrealloc(t->logdr, (size_t)t->cap * sizeof *t->logdr);
    }
    t->k[t->n] = k;
    t->r[t->n] = r;
    t->D[t->n] = D;
    t->logdr[t->n] = logdr;
    t->n++;
}

int lm_mdgd_run(lm_mdgd *R, long K, long kmax, double ratio, lm_mdgd_trace *tr, lm_mdgd_hook hook,
                void *arg)
{
    long next = R->k + 1;
    if (tr && tr->n == 0) {
        lm_mdgd_dir(&R->Dk, R);
        trace_push(tr, (double)R->k, lm_num_get_d(&R->r), lm_num_get_d(&R->Dk), NAN);
    }
    while (R->k < K) {
        if (kmax >= 0 && R->k >= kmax) break;
        if (lm_mdgd_step(R)) return 1;
        if (R->frozen && R->ctx.backend == LM_DOUBLE) return 2;
        R->ck = R->k >= next || R->k == K;
        if (R->ck) {
            double nx = ceil(ratio * (double)R->k);
            next = nx > (double)(R->k + 1) ? (long)nx : R->k + 1;
            lm_mdgd_dir(&R->Dk, R);
            if (tr) {
                double ld = lm_num_log_abs_d(&R->drpm1) - log(R->eta);
                if (lm_num_sgn(&R->drpm1) <= 0) ld = NAN;
                trace_push(tr, (double)R->k, lm_num_get_d(&R->r), lm_num_get_d(&R->Dk), ld);
            }
        }
        if (hook) {
            int h = hook(R, arg);
            if (h) return h;
        }
    }
    return 0;
}

void lm_mdgd_rates_compute(lm_mdgd_rates *q, const lm_mdgd_trace *tr, double w)
{
    memset(q, 0, sizeof *q);
    int n = tr->n;
    if (n < 2) return;
    double K = tr->k[n - 1];
    q->growth = (tr->r[n - 1] - tr->r[0]) / w;
    int h = 0; /* first checkpoint of the second half */
    while (h < n - 1 && tr->k[h] < 0.5 * K) h++;
    q->Dmax = -1;
    q->first_max = q->second_max = 0;
    for (int j = 0; j < n; j++) {
        if (tr->D[j] > q->Dmax) {
            q->Dmax = tr->D[j];
            q->kpeak = (long)tr->k[j];
            q->rpeak = tr->r[j];
        }
        if (j < h) q->first_max = fmax(q->first_max, tr->D[j]);
        else q->second_max = fmax(q->second_max, tr->D[j]);
    }
    q->drop = tr->D[h] > 0 ? q->Dmax / tr->D[h] : (double)INFINITY;
}

void lm_mdgd_fit_D(lm_rate_fit *f, const lm_mdgd_trace *tr, double claimed, int side, double tol,
                   double stab_tol)
{
    int n = tr->n > 0 ? tr->n : 1;
    double *k = lm_xmalloc(sizeof(double) * (size_t)n * 3), *x = k + n, *y = x + n;
    int m = 0;
    for (int j = 0; j < tr->n; j++)
        if (tr->D[j] > 0 && tr->r[j] > 0) {
            k[m] = tr->k[j];
            x[m] = log(tr->r[j]);
            y[m++] = log(tr->D[j]);
        }
    lm_rate_fit_xy(f, k, x, y, m, claimed, side, tol, LM_MDGD_RATE_CONF, stab_tol);
    free(k);
}

void lm_mdgd_fit_r(lm_rate_fit *f, const lm_mdgd_trace *tr, double w, double claimed, int side, double tol,
                   double stab_tol)
{
    int n = tr->n > 0 ? tr->n : 1;
    double *k = lm_xmalloc(sizeof(double) * (size_t)n * 2), *y = k + n;
    int m = 0;
    for (int j = 0; j < tr->n; j++)
        if (tr->k[j] >= 1) {
            k[m] = tr->k[j];
            y[m++] = tr->r[j] / w;
        }
    lm_rate_fit_seq(f, k, y, m, claimed, side, tol, LM_MDGD_RATE_CONF, stab_tol);
    free(k);
}

void lm_mdgd_fit_c1(lm_rate_fit *f, const lm_mdgd_trace *tr, double w, double c2, double claimed, int side,
                    double tol, double stab_tol)
{
    int n = tr->n > 0 ? tr->n : 1;
    double *k = lm_xmalloc(sizeof(double) * (size_t)n * 3), *x = k + n, *y = x + n;
    int m = 0;
    for (int j = 1; j < tr->n; j++)
        if (isfinite(tr->logdr[j])) {
            /* the increment of step k-1 -> k against r_{k-1}: the previous checkpoint's r only
             * when it is the previous iterate; otherwise r_k (the difference is one step's
             * growth, O(eta e^{-r/w})) */
            double rp = tr->k[j - 1] == tr->k[j] - 1 ? tr->r[j - 1] : tr->r[j];
            k[m] = tr->k[j];
            x[m] = rp / w;
            y[m++] = tr->logdr[j] + c2 * rp;
        }
    lm_rate_fit_xy(f, k, x, y, m, claimed, side, tol, LM_MDGD_RATE_CONF, stab_tol);
    free(k);
}

long lm_mdgd_par_cap(const lm_eval *ev, const char *name)
{
    for (const lm_param_def *p = ev->claim->params; p && p->name; p++) {
        if (strcmp(p->name, name)) continue;
        lm_range rg;
        if (lm_param_range(&rg, p) == 0 && isfinite(rg.hi)) return (long)rg.hi;
        break;
    }
    return lm_par_i(ev, name); /* no declared bound: the value itself */
}

int lm_mdgd_setup_r1(lm_md_inst *I, lm_mdgd *R, lm_eval *ev, int n, int T, int d, double p,
                     double mu, double R0, double eta)
{
    char why[300];
    memset(R, 0, sizeof *R);
    int rc = lm_md_inst_r1(I, lm_eval_rng(ev), ev->ctx, n, T, d, p, mu, R0, why, sizeof why);
    if (rc > 0) {
        lm_assume(ev, 0, "%s", why);
        return 1;
    }
    if (rc < 0) {
        lm_fail(ev, "%s", why);
        return -1;
    }
    lm_measure(ev, "||W_mm||_p", I->k.wnorm);
    lm_measure(ev, "mu_0", I->k.mu0);
    lm_measure(ev, "delta", I->k.delta);
    lm_measure(ev, "gamma_gap_support", I->k.gbar);
    lm_measure(ev, "svm_gap", I->svm.gap);
    lm_measure(ev, "supports", I->k.nsupport);
    if (lm_mdgd_init(R, I->D, I->W, I->Th, I->svm.W, p, eta, LM_ATTN_LOGISTIC)) {
        lm_fail(ev, "forward pass at W(0) not finite");
        return -1;
    }
    return 0;
}

int lm_mdgd_rate_run(lm_md_inst *I, lm_mdgd *R, lm_mdgd_trace *tr, lm_eval *ev, double p, double eta,
                     double mu_start, double R0, long K, long Kcap, lm_mdgd_hook hook, void *arg,
                     lm_mdgd_done done, void *darg)
{
    memset(tr, 0, sizeof *tr);
    int rc = lm_mdgd_setup_r1(I, R, ev, 3, 4, 4, p, -mu_start, R0, eta);
    if (rc) return rc;
    int r = lm_mdgd_run(R, K, ev->tmax, 1.02, tr, hook, arg);
    int doublings = 0;
    /* the rate rule: a run that is not conclusive yet is continued to twice its horizon,
     * within the claim's run-length bound */
    while (r == 0 && done && ev->tmax < 0 && 2 * K <= Kcap && !done(tr, darg)) {
        K *= 2;
        doublings++;
        r = lm_mdgd_run(R, K, -1, 1.02, tr, hook, arg);
    }
    if (r == 1) return lm_fail(ev, "non-finite value at step %d", R->k);
    if (r == 2) lm_measure(ev, "double_frozen_at_step", R->frozen_at);
    lm_measure(ev, "steps", R->k);
    lm_measure(ev, "horizon doublings (rate rule)", doublings);
    lm_measure(ev, "max entries left unchanged by a step (partial freeze)", R->max_frozen_entries);
    if (tr->n > 0) {
        lm_measure(ev, "||W(0)||_p/||W_mm||_p", tr->r[0] / I->k.wnorm);
        lm_measure(ev, "||W(K)||_p/||W_mm||_p", tr->r[tr->n - 1] / I->k.wnorm);
    }
    return 0;
}

double lm_mdgd_phi(double p, double r)
{
    if (p > 2.0) return log(r) / r;
    if (p == 2.0) return log(r) * log(r) / r;
    return pow(r, 1.0 - p);
}

/* ---------- joint experiment ---------- */

lm_mddata *lm_mdjoint_data(lm_rng *g, double noise, const lm_ctx *ctx)
{
    static const double X[2][3][2] = {{{-2.7, 1.2}, {1.4, 2.1}, {1.3, -0.1}},
                                      {{0.4, -2.2}, {-1.1, -0.4}, {0.9, 0.1}}};
    static const int Y[2] = {1, -1};
    lm_mddata *D = lm_md_data_new(2, 3, 2, ctx);
    for (int i = 0; i < 2; i++) {
        D->y[i] = Y[i];
        for (int t = 0; t < 3; t++)
            for (int j = 0; j < 2; j++) {
                double x = X[i][t][j];
                if (noise > 0) x += noise * lm_rng_normal(g);
                lm_mat_set_d(D->X[i], t, j, x);
            }
        for (int j = 0; j < 2; j++) lm_mat_set_d(D->Z, i, j, lm_mat_get_d(D->X[i], 0, j));
    }
    return D;
}

int lm_mdjoint_init(lm_mdjoint *J, const lm_mddata *D, double p, double eta)
{
    memset(J, 0, sizeof *J);
    J->D = lm_md_data_convert(D, &D->ctx);
    J->ctx = &J->D->ctx;
    J->p = p;
    J->eta = eta;
    int d = D->d;
    J->W = lm_mat_new(d, d, J->ctx);
    J->ThW = lm_mat_new(d, d, J->ctx);
    J->v = lm_mat_new(d, 1, J->ctx);
    J->Thv = lm_mat_new(d, 1, J->ctx);
    J->G = lm_mat_new(d, d, J->ctx);
    J->gv = lm_mat_new(d, 1, J->ctx);
    J->F = lm_md_fwd_new(J->D);
    lm_mat_zero(J->D->v);
    return lm_md_forward(J->F, J->D, J->W, LM_ATTN_LOGISTIC);
}

/* grad_v L = (1/n) sum_i ell'(u_i) Y_i X_i^T s_i, ell' = -e^{logdl} */
static void grad_v(lm_mat *g, const lm_attn_fwd *F, const lm_mddata *D)
{
    const lm_ctx *c = &D->ctx;
    lm_num w, s, x, a;
    lm_num_inits(c, &w, &s, &x, &a, (lm_num *)NULL);
    lm_mat_zero(g);
    for (int i = 0; i < D->n; i++) {
        lm_mat_get(&w, F->logdl, i, 0);
        lm_num_exp(&w, &w);
        lm_num_div_d(&w, &w, (double)D->n);
        if (D->y[i] > 0) lm_num_neg(&w, &w);
        for (int t = 0; t < D->T; t++) {
            lm_mat_get(&s, F->logs, i, t);
            lm_num_exp(&s, &s);
            lm_num_mul(&s, &s, &w);
            for (int j = 0; j < D->d; j++) {
                lm_mat_get(&x, D->X[i], t, j);
                lm_mat_get(&a, g, j, 0);
                lm_num_fma(&a, &s, &x, &a);
                lm_mat_set(g, j, 0, &a);
            }
        }
    }
    lm_num_clears(&w, &s, &x, &a, (lm_num *)NULL);
}

int lm_mdjoint_step(lm_mdjoint *J)
{
    const lm_ctx *c = J->ctx;
    mexpo e;
    mexpo_init(&e, J->p, c);
    lm_num ls, f, nq, eps;
    lm_num_inits(c, &ls, &f, &nq, &eps, (lm_num *)NULL);
    lm_num_set_d(&eps, ldexp(1.0, -52));
    int rc = 0;
    /* both gradients at the current (W, v) (forward pass from the last step) */
    lm_md_grad_scaled(J->G, &ls, J->F, J->D);
    grad_v(J->gv, J->F, J->D);
    if (lm_num_isfinite(&ls)) {
        /* eta e^ls / (e^ls ||G||_q + eps) */
        lm_num_exp(&f, &ls);
        pnorm_num(&nq, J->G, &e.q);
        lm_num_mul(&nq, &nq, &f);
        lm_num_add(&nq, &nq, &eps);
        lm_num_div(&f, &f, &nq);
        lm_num_mul_d(&f, &f, -J->eta);
        lm_mat_axpy(J->ThW, &f, J->G);
        lm_md_grad_psi_star(J->W, J->ThW, J->p);
    } else if (lm_num_sgn(&ls) > 0) {
        rc = 1;
    }
    pnorm_num(&nq, J->gv, &e.q);
    lm_num_add(&nq, &nq, &eps);
    lm_num_set_d(&f, -J->eta);
    lm_num_div(&f, &f, &nq);
    lm_mat_axpy(J->Thv, &f, J->gv);
    lm_md_grad_psi_star(J->v, J->Thv, J->p);
    lm_mat_copy(J->D->v, J->v);
    if (!rc) rc = lm_md_forward(J->F, J->D, J->W, LM_ATTN_LOGISTIC);
    if (!lm_mat_isfinite(J->W) || !lm_mat_isfinite(J->v)) rc = 1;
    J->k++;
    lm_num_clears(&ls, &f, &nq, &eps, (lm_num *)NULL);
    mexpo_clear(&e);
    return rc;
}

void lm_mdjoint_clear(lm_mdjoint *J)
{
    if (!J || !J->D) return;
    lm_md_data_free(J->D);
    lm_mat_free(J->W);
    lm_mat_free(J->ThW);
    lm_mat_free(J->v);
    lm_mat_free(J->Thv);
    lm_mat_free(J->G);
    lm_mat_free(J->gv);
    lm_attn_fwd_free(J->F);
    memset(J, 0, sizeof *J);
}

int lm_mdjoint_vsvm(lm_mat *vmm, const lm_mddata *D, double p, double *gap, double *minmarg)
{
    /* the same problem as an l_p-AttSVM: tokens (Y_i x_{i alpha_i}, 0), query e_1,
     * alpha = 0: <W, Y_i x_{i alpha_i} e_1^T> = Y_i x_{i alpha_i}^T W[:,0] >= 1; the
     * minimum-norm W vanishes outside column 0, which is v_mm */
    const lm_ctx *c = &D->ctx;
    lm_mddata *E = lm_md_data_new(D->n, 2, D->d, c);
    lm_num x;
    lm_num_init(&x, c);
    for (int i = 0; i < D->n; i++) {
        if (D->alpha[i] < 0) {
            lm_num_clear(&x);
            lm_md_data_free(E);
            return LM_MDSVM_BADINPUT;
        }
        for (int j = 0; j < D->d; j++) {
            lm_mat_get(&x, D->X[i], D->alpha[i], j);
            if (D->y[i] < 0) lm_num_neg(&x, &x);
            lm_mat_set(E->X[i], 0, j, &x);
        }
        lm_mat_set_d(E->Z, i, 0, 1.0);
        E->alpha[i] = 0;
    }
    lm_md_svm s;
    int rc = lm_md_svm_solve(&s, E, p, 0);
    *gap = s.gap;
    *minmarg = s.min_margin;
    if (rc == LM_MDSVM_OK)
        for (int j = 0; j < D->d; j++) {
            lm_mat_get(&x, s.W, j, 0);
            lm_mat_set(vmm, j, 0, &x);
        }
    lm_md_svm_clear(&s);
    lm_num_clear(&x);
    lm_md_data_free(E);
    return rc;
}
