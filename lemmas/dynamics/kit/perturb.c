/* perturb.c -- machinery shared by the perturbation-bound claims dynamics/lemma2,
 * lemma3, lemma7 and lemma8 (see lm_perturb.h). */
#include "lm_perturb.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- numerics ---- */

static double logistic(double z) { return 1.0 / (1.0 + exp(-z)); }

static double logistic_range(double lo, double hi, double z) { return lo + (hi - lo) * logistic(z); }

/* scale exponent u in [lo,hi]: a uniform draw moved smoothly by the search offset */
static double pick_scale(double lo, double hi, double frac, const lm_eval *ev, int j)
{
    if (ev->x && j < ev->nx) frac = logistic(log(frac / (1.0 - frac)) + ev->x[j]);
    return pow(10.0, lo + (hi - lo) * frac);
}

/* sc[j] = 10^u, u = lo[j] + (hi[j] - lo[j]) U, U uniform from ev's stream moved by the
 * search offset x[j] (j = 0..4: X, W^Q, W^K, W^V, W^O) */
static void draw_scales(double sc[5], const double lo[5], const double hi[5], lm_eval *ev)
{
    lm_rng *g = lm_eval_rng(ev);
    for (int j = 0; j < 5; j++) sc[j] = pick_scale(lo[j], hi[j], lm_rng_uniform(g), ev, j);
}

static void measure_scales(lm_eval *ev, const double sc[5])
{
    const char *nm[5] = {"scale_X", "scale_WQ", "scale_WK", "scale_WV", "scale_WO"};
    for (int j = 0; j < 5; j++) lm_measure(ev, nm[j], sc[j]);
}

static void mat_pow2(lm_mat *B, long e) /* B *= 2^e, exactly, in steps of at most 2^1000 */
{
    while (e != 0) {
        long st = e > 1000 ? 1000 : (e < -1000 ? -1000 : e);
        lm_mat_scale_d(B, B, ldexp(1.0, (int)st));
        e -= st;
    }
}

static void num_pow2(lm_num *x, long e)
{
    while (e != 0) {
        long st = e > 1000 ? 1000 : (e < -1000 ? -1000 : e);
        lm_num_mul_d(x, x, ldexp(1.0, (int)st));
        e -= st;
    }
}

/* A is first scaled by a power of two (exact) and entries below 2^-(2p+64) times the
 * largest are set to zero, which moves sigma_max by a relative amount below 2^-2p.  When
 * the SVD reports non-convergence, the largest eigenpair of A^T A is used instead.  Reason:
 * the core's Jacobi SVDs did not converge on saturated softmax Jacobians (double: entries
 * below ~1e-150, whose squares underflow; MPFR: rank-deficient matrices whose entries span
 * many orders of magnitude), while the symmetric eigensolver did. */
int lm_pert_top_sv(lm_num *smax, lm_mat *v, const lm_mat *A)
{
    lm_ctx c = lm_mat_ctx(A);
    const int k = A->r < A->c ? A->r : A->c;
    int rc = 0;
    lm_num mx, t;
    lm_num_inits(&c, &mx, &t, (lm_num *)NULL);
    lm_mat_max_abs(&mx, A);
    if (v) { lm_mat_zero(v); lm_mat_set_d(v, 0, 0, 1.0); }
    lm_num_set_d(smax, 0.0);
    if (k == 0 || lm_num_iszero(&mx)) goto done;
    if (!lm_num_isfinite(&mx) || !lm_mat_isfinite(A)) { rc = 1; goto done; }
    const long e = (long)floor(lm_num_log_abs_d(&mx) / M_LN2) + 1; /* max ~ 2^(e-1) */
    lm_mat *B = lm_mat_dup(A);
    mat_pow2(B, -e);
    const double tiny = ldexp(1.0, -(int)(2 * c.prec + 64));
    for (int i = 0; i < B->r; i++)
        for (int j = 0; j < B->c; j++)
            if (fabs(lm_mat_get_d(B, i, j)) < tiny) lm_mat_set_d(B, i, j, 0.0);
    lm_num *s = lm_nums_new(k, &c);
    lm_mat *V = v ? lm_mat_new(A->c, k, &c) : NULL;
    rc = lm_mat_svd(s, NULL, V, B);
    if (!rc) {
        lm_num_set(smax, &s[0]);
        if (v) lm_mat_get_block(v, V, 0, 0);
    } else { /* fallback: sigma_max^2 = lambda_max(B^T B) */
        lm_mat *G = lm_mat_new(A->c, A->c, &c), *W = v ? lm_mat_new(A->c, A->c, &c) : NULL;
        lm_num *w = lm_nums_new(A->c, &c);
        lm_mat_mul(G, B, 1, B, 0);
        rc = lm_mat_symeig(w, W, G);
        if (!rc) {
            lm_num_set_d(&t, 0.0);
            lm_num_max(smax, &w[A->c - 1], &t);
            lm_num_sqrt(smax, smax);
            if (v) lm_mat_get_block(v, W, 0, A->c - 1);
        }
        lm_nums_free(w, A->c);
        lm_mat_free(G);
        lm_mat_free(W);
    }
    num_pow2(smax, e);
    lm_nums_free(s, k);
    lm_mat_free(V);
    lm_mat_free(B);
done:
    lm_num_clears(&mx, &t, (lm_num *)NULL);
    return rc;
}

void lm_pert_normalize(lm_mat *E)
{
    lm_ctx c = lm_mat_ctx(E);
    lm_num t, one;
    lm_num_inits(&c, &t, &one, (lm_num *)NULL);
    lm_mat_frob(&t, E);
    if (!lm_num_iszero(&t)) {
        lm_num_set_d(&one, 1.0);
        lm_num_div(&t, &one, &t);
        lm_mat_scale(E, E, &t);
    }
    lm_num_clears(&t, &one, (lm_num *)NULL);
}

void lm_pert_sub_jvp(lm_mat *dX, const lm_mat *Jd)
{
    lm_ctx c = lm_mat_ctx(dX);
    lm_num a, t;
    lm_num_inits(&c, &a, &t, (lm_num *)NULL);
    for (int k = 0; k < dX->r; k++)
        for (int j = 0; j < dX->c; j++) {
            lm_mat_get(&a, dX, k, j);
            lm_mat_get(&t, Jd, k * dX->c + j, 0);
            lm_num_sub(&a, &a, &t);
            lm_mat_set(dX, k, j, &a);
        }
    lm_num_clears(&a, &t, (lm_num *)NULL);
}

static void dnormalize(double *v, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) s += v[i] * v[i];
    s = sqrt(s);
    if (s > 0)
        for (int i = 0; i < n; i++) v[i] /= s;
}

/* ---- random models ---- */

void lm_pert_draw_weights(lm_mha *m, lm_rng *g, const double sc[5])
{
    const int H = m->H, D = m->D, d = m->d;
    for (int h = 0; h < H; h++) lm_mat_randn(m->Wq[h], g, sc[1]);
    for (int h = 0; h < H; h++) lm_mat_randn(m->Wk[h], g, sc[2]);
    for (int h = 0; h < H; h++) /* block diagonal at the start in both modes (eq. 5) */
        for (int a = 0; a < D; a++)
            for (int b = 0; b < d; b++)
                lm_mat_set_d(m->Wv, h * D + a, h * d + b, sc[3] * lm_rng_normal(g));
    lm_mat_randn(m->Wo, g, sc[4]);
    lm_mat_randn(m->y, g, 1.0);
}

void lm_pert_draw(lm_mha *m, lm_rng *g, const double sc[5])
{
    for (int i = 0; i < m->N; i++) lm_mat_randn(m->X[i], g, sc[0]);
    lm_pert_draw_weights(m, g, sc);
}

int lm_pert_weight_sigmas(lm_num *sQ, lm_num *sK, const lm_mha *m)
{
    int rc = 0;
    for (int h = 0; h < m->H; h++) {
        rc |= lm_pert_top_sv(&sQ[h], NULL, m->Wq[h]);
        rc |= lm_pert_top_sv(&sK[h], NULL, m->Wk[h]);
    }
    return rc;
}

/* ---- one-sample instances ---- */

lm_mha *lm_pert_one_new(lm_pert_one *I, lm_eval *ev, const int size[4], lm_kernel k,
                        double sc[5])
{
    memset(I, 0, sizeof *I);
    I->n = size[0]; I->D = size[1]; I->d = size[2]; I->H = size[3];
    const double lo = lm_par(ev, "logscale_lo"), hi = lm_par(ev, "logscale_hi");
    const double los[5] = {lo, lo, lo, lo, lo}, his[5] = {hi, hi, hi, hi, hi};
    draw_scales(sc, los, his, ev);
    I->m = lm_mha_new(1, I->n, I->D, I->d, I->H, k, LM_WV_BLOCK, ev->ctx);
    return I->m;
}

int lm_pert_one_finish(lm_pert_one *I, lm_eval *ev, const double sc[5])
{
    const lm_ctx *c = ev->ctx;
    lm_mha *m = I->m;
    lm_mha_forward(m);
    lm_num_inits(c, &I->sqd, &I->nX, &I->nX2, &I->sV, &I->nWo, (lm_num *)NULL);
    I->sQ = lm_nums_new(I->H, c);
    I->sK = lm_nums_new(I->H, c);
    lm_num_set_d(&I->sqd, (double)I->d);
    lm_num_sqrt(&I->sqd, &I->sqd);
    lm_mat_frob(&I->nX, m->X[0]);
    lm_num_sqr(&I->nX2, &I->nX);
    lm_mat_frob(&I->nWo, m->Wo);
    int rc = lm_pert_weight_sigmas(I->sQ, I->sK, m);
    rc |= lm_pert_top_sv(&I->sV, NULL, m->Wv);
    measure_scales(ev, sc);
    lm_measure(ev, "n", I->n);
    lm_measure(ev, "D", I->D);
    lm_measure(ev, "d", I->d);
    lm_measure(ev, "H", I->H);
    return rc;
}

void lm_pert_one_clear(lm_pert_one *I)
{
    if (!I->m) return;
    lm_nums_free(I->sQ, I->H);
    lm_nums_free(I->sK, I->H);
    lm_num_clears(&I->sqd, &I->nX, &I->nX2, &I->sV, &I->nWo, (lm_num *)NULL);
    lm_mha_free(I->m);
    I->m = NULL;
}

/* ---- finite forms ---- */

void lm_pert_steps_init(lm_pert_steps *S, const lm_eval *ev)
{
    const double dmax = lm_par(ev, "dmax");
    S->step[0] = 1e-3;
    S->step[1] = 1e-1;
    S->step[2] = 1.0;
    S->step[3] = dmax;
    S->nsteps = 4;
    S->ndirs = 2;
    S->theta = 0.0;
    S->search = ev->x != NULL;
    if (ev->x) { /* adversarial: one step length and one direction between top and random */
        S->step[0] = pow(10.0, logistic_range(-3.0, log10(dmax), ev->nx > 5 ? ev->x[5] : 0.0));
        S->nsteps = 1;
        S->ndirs = 1;
        S->theta = 0.5 * M_PI * logistic(ev->nx > 6 ? ev->x[6] : 0.0);
    }
}

void lm_pert_steps_dir(lm_mat *E, const lm_pert_steps *S, int dd, const lm_mat *Etop,
                       const lm_mat *Er, int fallback)
{
    double ct = S->search ? cos(S->theta) : (dd == 0 ? 1.0 : 0.0);
    double st = S->search ? sin(S->theta) : (dd == 0 ? 0.0 : 1.0);
    lm_mat_zero(E);
    lm_mat_axpy_d(E, ct, Etop);
    lm_mat_axpy_d(E, st, Er);
    if (fallback) {
        lm_ctx c = lm_mat_ctx(E);
        lm_num t;
        lm_num_init(&t, &c);
        lm_mat_frob(&t, E);
        if (lm_num_iszero(&t)) lm_mat_copy(E, Er); /* no worst direction */
        lm_num_clear(&t);
    }
    lm_pert_normalize(E);
}

const char *lm_pert_steps_name(const lm_pert_steps *S, int dd)
{
    return S->search ? "mixed" : (dd == 0 ? "worst" : "random");
}

/* ---- labels ---- */

void lm_pert_unit_residual(lm_mha *m, int k)
{
    lm_num t;
    lm_num_init(&t, &m->ctx);
    lm_mat_copy(m->y, m->mh);
    lm_mat_get(&t, m->y, k, 0);
    lm_num_add_d(&t, &t, -1.0);
    lm_mat_set(m->y, k, 0, &t);
    lm_mha_forward(m);
    lm_num_clear(&t);
}

void lm_pert_label_maps(lm_mat **G, int stacked, lm_mha *m, int which)
{
    const lm_ctx c = m->ctx;
    const int n = m->n, H = m->H, D = m->D, d = m->d, Dd = D * d;
    lm_mat **g = lm_xcalloc((size_t)H, sizeof *g);
    for (int h = 0; h < H; h++) g[h] = lm_mat_new(D, d, &c);
    lm_mat *y0 = lm_mat_dup(m->y);
    lm_num t;
    lm_num_init(&t, &c);
    for (int k = 0; k < n; k++) {
        lm_pert_unit_residual(m, k);
        lm_mha_grad(m, which == 0 ? g : NULL, which == 0 ? NULL : g, NULL);
        for (int h = 0; h < H; h++)
            for (int q = 0; q < Dd; q++) {
                lm_mat_get(&t, g[h], q % D, q / D);
                if (stacked) lm_mat_set(G[0], h * Dd + q, k, &t);
                else lm_mat_set(G[h], q, k, &t);
            }
    }
    lm_mat_copy(m->y, y0);
    lm_mha_forward(m);
    lm_num_clear(&t);
    for (int h = 0; h < H; h++) lm_mat_free(g[h]);
    free(g);
    lm_mat_free(y0);
}

/* ---- the pair engine ---- */

/* flat parameters (doubles) <-> model, in the model's context */
static void put_params(lm_mha *m, int mask, const double *p, int np)
{
    lm_mat *v = lm_mat_new(np, 1, &m->ctx);
    for (int i = 0; i < np; i++) lm_mat_set_d(v, i, 0, p[i]);
    lm_mha_set_params(m, mask, v);
    lm_mat_free(v);
}

static void get_params(double *p, const lm_mha *m, int mask, int np)
{
    lm_mat *v = lm_mat_new(np, 1, &m->ctx);
    lm_mha_get_params(v, m, mask);
    for (int i = 0; i < np; i++) p[i] = lm_mat_get_d(v, i, 0);
    lm_mat_free(v);
}

static void pairs_add(lm_pert_pairs *P, const double *p, const double *q, const char *what,
                      const char *series)
{
    if (P->n == P->cap) {
        P->cap = P->cap ? 2 * P->cap : 16;
        P->a = lm_xrealloc(P->a, (size_t)P->cap * sizeof *P->a);
    }
    lm_pert_pair *e = &P->a[P->n++];
    e->p = lm_xmalloc((size_t)P->np * sizeof *e->p);
    e->q = lm_xmalloc((size_t)P->np * sizeof *e->q);
    memcpy(e->p, p, (size_t)P->np * sizeof *e->p);
    memcpy(e->q, q, (size_t)P->np * sizeof *e->q);
    snprintf(e->what, sizeof e->what, "%s", what);
    snprintf(e->series, sizeof e->series, "%s", series);
}

int lm_pert_lip_build(lm_pert_lip *I, lm_eval *ev, const int sizes[4][5], lm_kernel k,
                      double cG, int mask, const lm_pert_reading *rd)
{
    lm_rng *g = lm_eval_rng(ev);
    const lm_ctx dc = lm_ctx_double();
    int z[5]; /* the shrinker may ask for smaller sizes */
    lm_sizes(ev, z, sizes[(ev->index + ev->index / 4) % 4], 5, lm_nm5, lm_nm5_max);
    const int N = z[0], n = z[1], D = z[2], d = z[3], H = z[4];
    memset(I, 0, sizeof *I);
    I->rd = rd;
    lm_num_inits(ev->ctx, &I->lhs, &I->rhs, &I->dist, &I->nval, (lm_num *)NULL);
    I->regime = ev->x ? (ev->index % 2 ? 2 : 0) : ev->index % 4;
    /* log10 ranges of the scales of X, W^Q, W^K, W^V, W^O */
    double lo[5] = {-0.5, -1.0, -1.0, -1.0, -1.0}, hi[5] = {0.5, 0.5, 0.5, 0.5, 1.0};
    if (I->regime == 2) { /* Remark 3 (and 6): large W^O, small W^V and W^K */
        const double wo = lm_par(ev, "wo_logscale");
        lo[1] = -2.0;
        hi[1] = 0.0;
        lo[2] = lo[3] = -2.5;
        hi[2] = hi[3] = -1.5;
        lo[4] = wo - 0.5;
        hi[4] = wo + 0.5;
    }
    double sc[5];
    draw_scales(sc, lo, hi, ev);
    lm_mha *md = lm_mha_new(N, n, D, d, H, k, lm_par_i(ev, "wv") ? LM_WV_BLOCK : LM_WV_DENSE, &dc);
    if (cG > 0) md->cG = cG;
    I->md = md;
    lm_pert_draw(md, g, sc);
    lm_mha_data(ev, md, 1); /* fresh: nothing below has read it yet, so a file may replace it */
    I->mask = mask;
    I->np = lm_mha_nparams(md, I->mask);
    I->p0 = lm_xmalloc((size_t)I->np * sizeof *I->p0);
    get_params(I->p0, md, I->mask, I->np);
    I->m = lm_mha_convert(md, ev->ctx);
    int rc = lm_dyn_consts_eval(&I->k0, md, NULL);
    lm_dyn_induction_bounds(&I->bc, &I->k0, H, lm_par_i(ev, "lamV"));
    measure_scales(ev, sc);
    lm_measure(ev, "regime (0,1 generic, 2 Remark 3, 3 GD pairs)", I->regime);
    I->use_n = ev->ctx->backend != LM_DOUBLE && rd->nvalue != NULL;
    if (I->use_n) { /* the induction bounds at M_0 (the exact doubles p0) in the working context */
        lm_dyn_nconsts k0;
        lm_dyn_nconsts_init(&k0, I->m);
        lm_dyn_nconsts_init(&I->nbc, I->m);
        rc |= lm_dyn_nconsts_norms(&k0, I->m, 0);
        lm_dyn_nconsts_induction(&I->nbc, &k0, lm_par_i(ev, "lamV"));
        lm_dyn_nconsts_clear(&k0);
    }
    if (rc) I->rc = lm_fail(ev, "SVD failed in the S5 constants");
    return I->rc;
}

/* MH of the double model at p */
static void mh_at(double *out, lm_mha *md, int mask, const double *p, int np)
{
    put_params(md, mask, p, np);
    lm_mha_forward(md);
    for (int k = 0; k < md->r->r; k++) out[k] = lm_mat_get_d(md->mh, k, 0);
}

static void grad_at(double *out, lm_mha *md, int mask, const double *p, int np)
{
    lm_mat *g = lm_mat_new(np, 1, &md->ctx);
    put_params(md, mask, p, np);
    lm_mha_flat_grad(g, md, mask);
    for (int k = 0; k < np; k++) out[k] = lm_mat_get_d(g, k, 0);
    lm_mat_free(g);
}

/* locally worst direction for Z: top right singular vector of the central-difference
 * Jacobian of MH at M_0 (double); *lip = its norm */
static int worst_dir_mh(double *dir, double *lip, lm_pert_lip *I)
{
    const lm_ctx dc = lm_ctx_double();
    const int np = I->np, R = I->md->r->r;
    lm_mat *J = lm_mat_new(R, np, &dc), *v = lm_mat_new(np, 1, &dc);
    double *pp = lm_xmalloc((size_t)np * sizeof *pp), *a = lm_xmalloc((size_t)R * sizeof *a),
           *b = lm_xmalloc((size_t)R * sizeof *b);
    memcpy(pp, I->p0, (size_t)np * sizeof *pp);
    for (int q = 0; q < np; q++) {
        double h = 1e-6 * fmax(1.0, fabs(I->p0[q]));
        pp[q] = I->p0[q] + h;
        mh_at(a, I->md, I->mask, pp, np);
        double hp = pp[q];
        pp[q] = I->p0[q] - h;
        mh_at(b, I->md, I->mask, pp, np);
        double span = hp - pp[q];
        pp[q] = I->p0[q];
        for (int k = 0; k < R; k++) lm_mat_set_d(J, k, q, (a[k] - b[k]) / span);
    }
    lm_num s;
    lm_num_init(&s, &dc);
    int rc = lm_pert_top_sv(&s, v, J);
    *lip = lm_num_get_d(&s);
    for (int q = 0; q < np; q++) dir[q] = lm_mat_get_d(v, q, 0);
    dnormalize(dir, np);
    put_params(I->md, I->mask, I->p0, np);
    lm_num_clear(&s);
    lm_mat_free(J); lm_mat_free(v);
    free(pp); free(a); free(b);
    return rc;
}

/* locally worst direction for G: power iteration on central-difference Hessian-vector
 * products at M_0 (double); *lip = the estimate of the Hessian's spectral norm */
static void worst_dir_grad(double *dir, double *lip, lm_pert_lip *I, lm_rng *g)
{
    const int np = I->np;
    double *pp = lm_xmalloc((size_t)np * sizeof *pp), *ga = lm_xmalloc((size_t)np * sizeof *ga),
           *gb = lm_xmalloc((size_t)np * sizeof *gb);
    double pn = 0;
    for (int q = 0; q < np; q++) { dir[q] = lm_rng_normal(g); pn = fmax(pn, fabs(I->p0[q])); }
    dnormalize(dir, np);
    const double h = 1e-5 * fmax(1.0, pn);
    double lam = 0;
    for (int it = 0; it < 30; it++) {
        for (int q = 0; q < np; q++) pp[q] = I->p0[q] + h * dir[q];
        grad_at(ga, I->md, I->mask, pp, np);
        for (int q = 0; q < np; q++) pp[q] = I->p0[q] - h * dir[q];
        grad_at(gb, I->md, I->mask, pp, np);
        double s = 0;
        for (int q = 0; q < np; q++) { dir[q] = (ga[q] - gb[q]) / (2 * h); s += dir[q] * dir[q]; }
        lam = sqrt(s);
        if (!(lam > 0)) { for (int q = 0; q < np; q++) dir[q] = q == 0; break; }
        dnormalize(dir, np);
    }
    *lip = lam;
    put_params(I->md, I->mask, I->p0, np);
    free(pp); free(ga); free(gb);
}

/* the catalogue's adversarial direction: W^V moved along v (W^O)^T/||W^O||, v the top right
 * singular vector of B (masked to the diagonal blocks in block mode) */
static int wv_dir(double *dir, lm_pert_lip *I)
{
    const lm_ctx dc = lm_ctx_double();
    lm_mha *md = I->md;
    const int Nn = md->N * md->n, HD = md->H * md->D, Hd = md->H * md->d;
    lm_mat *B = lm_mat_new(Nn, HD, &dc), *v = lm_mat_new(HD, 1, &dc);
    lm_num s;
    lm_num_init(&s, &dc);
    put_params(md, I->mask, I->p0, I->np);
    lm_mha_forward(md);
    lm_mha_B(B, md);
    int rc = lm_pert_top_sv(&s, v, B);
    lm_mha *t = lm_mha_convert(md, &dc);
    for (int h = 0; h < md->H; h++) { lm_mat_zero(t->Wq[h]); lm_mat_zero(t->Wk[h]); }
    double nwo = 0;
    for (int b = 0; b < Hd; b++) nwo += pow(lm_mat_get_d(md->Wo, b, 0), 2);
    nwo = sqrt(nwo);
    for (int a = 0; a < HD; a++)
        for (int b = 0; b < Hd; b++) {
            double e = lm_mat_get_d(v, a, 0) * lm_mat_get_d(md->Wo, b, 0) / nwo;
            if (md->wv == LM_WV_BLOCK && a / md->D != b / md->d) e = 0;
            lm_mat_set_d(t->Wv, a, b, e);
        }
    get_params(dir, t, I->mask, I->np);
    dnormalize(dir, I->np);
    lm_mha_free(t);
    lm_num_clear(&s);
    lm_mat_free(B); lm_mat_free(v);
    return rc;
}

/* the pairs of the instance; nonzero when an SVD failed */
static int make_pairs(lm_pert_pairs *P, lm_pert_lip *I, lm_eval *ev, int grad, double G0,
                      const char *gname)
{
    const int np = I->np;
    lm_rng *g = lm_eval_rng(ev);
    double *er = lm_xmalloc((size_t)np * sizeof *er), *ew = lm_xmalloc((size_t)np * sizeof *ew),
           *e = lm_xmalloc((size_t)np * sizeof *e), *q = lm_xmalloc((size_t)np * sizeof *q);
    int rc = 0;
    P->np = np;
    for (int i = 0; i < np; i++) er[i] = lm_rng_normal(g);
    dnormalize(er, np);
    if (I->mask & LM_VAR_V) rc |= wv_dir(ew, I);
    else { /* W^Q radially: sharpen the kernel */
        memcpy(ew, I->p0, (size_t)np * sizeof *ew);
        dnormalize(ew, np);
    }
    const double dlo = lm_par(ev, "logdist_lo"), dhi = lm_par(ev, "logdist_hi");
    if (ev->x) { /* adversarial: one distance, a mix of the W^V direction and the random one */
        double t = pow(10.0, logistic_range(dlo, dhi, ev->nx > 5 ? ev->x[5] : 0.0));
        double th = 0.5 * M_PI * logistic(ev->nx > 6 ? ev->x[6] : 0.0);
        for (int i = 0; i < np; i++) e[i] = cos(th) * ew[i] + sin(th) * er[i];
        dnormalize(e, np);
        for (int i = 0; i < np; i++) q[i] = I->p0[i] + t * e[i];
        pairs_add(P, I->p0, q, "search", "adversarial");
        goto out;
    }
    if (I->regime == 3) { /* consecutive GD iterates, eta = 1/(2G) and eta from the Hessian */
        double lip;
        worst_dir_grad(e, &lip, I, g);
        I->lip_grad = lip;
        const double etas[2] = {0.5 / G0, lip > 0 ? 0.5 / lip : 0.5 / G0};
        const int T = lm_par_i(ev, "T_gd");
        const lm_ctx dc = lm_ctx_double();
        char w0[48], s0[40], m0[32];
        snprintf(w0, sizeof w0, "GD eta=1/(2%s)", gname);
        snprintf(s0, sizeof s0, "GD iterates, eta=1/(2%s)", gname);
        snprintf(m0, sizeof m0, "eta=1/(2%s)", gname);
        lm_num eta;
        lm_num_init(&eta, &dc);
        for (int s = 0; s < 2; s++) {
            memcpy(e, I->p0, (size_t)np * sizeof *e);
            lm_num_set_d(&eta, etas[s]);
            for (int t = 0; t < T; t++) {
                put_params(I->md, I->mask, e, np);
                lm_mha_gd_step(I->md, I->mask, &eta);
                get_params(q, I->md, I->mask, np);
                pairs_add(P, e, q, s ? "GD eta=1/(2 L_loc)" : w0,
                          s ? "GD iterates, eta=1/(2 L_loc)" : s0);
                memcpy(e, q, (size_t)np * sizeof *e);
            }
        }
        lm_num_clear(&eta);
        put_params(I->md, I->mask, I->p0, np);
        lm_measure(ev, m0, etas[0]);
        goto out;
    }
    double *ek = lm_xmalloc((size_t)np * sizeof *ek);
    if (grad) worst_dir_grad(ek, &I->lip_grad, I, g);
    else rc |= worst_dir_mh(ek, &I->lip_mh, I);
    const double *dirs[3] = {er, ek, ew};
    const char *names[3] = {"random", "locally worst",
                            I->mask & LM_VAR_V ? "W^V along B's top singular vector" : "W^Q radial"};
    for (int k = 0; k < 3; k++)
        for (int s = 0; s < 4; s++) {
            double lt = dlo + (dhi - dlo) * s / 3.0, t = pow(10.0, lt);
            char w[48];
            for (int i = 0; i < np; i++) q[i] = I->p0[i] + t * dirs[k][i];
            snprintf(w, sizeof w, "%s, |dM|=1e%+.0f", names[k], lt);
            pairs_add(P, I->p0, q, w, names[k]);
        }
    free(ek);
out:
    free(er); free(ew); free(e); free(q);
    return rc;
}

int lm_pert_lip_pairs(lm_pert_lip *I, lm_eval *ev, double G0, const char *gname)
{
    if (I->rc) return I->rc;
    if (make_pairs(&I->P, I, ev, I->rd->grad, G0, gname))
        I->rc = lm_fail(ev, "SVD failed while choosing directions");
    return I->rc;
}

/* the constant for the pair in the reading, from the S5 formulas (double); returns 0 and
 * sets *inside = 0 when the pair leaves the induction bounds */
static int pair_const(double *val, int *inside, lm_pert_lip *I, const lm_pert_pair *pr,
                      const lm_pert_reading *rd)
{
    lm_dyn_consts kp, kq, k, b;
    const int H = I->md->H;
    int rc = 0;
    *inside = 1;
    put_params(I->md, I->mask, pr->p, I->np);
    rc |= lm_dyn_consts_eval(&kp, I->md, NULL);
    k = kp;
    if (rd->sig != LM_PERT_SIG_AT_M) {
        put_params(I->md, I->mask, pr->q, I->np);
        rc |= lm_dyn_consts_eval(&kq, I->md, NULL);
        put_params(I->md, I->mask, pr->p, I->np);
        if (rd->sig == LM_PERT_SIG_MAX) {
            memset(&b, 0, sizeof b);
            for (int h = 0; h < H; h++) {
                b.sQ[h] = fmax(kp.sQ[h], kq.sQ[h]);
                b.sK[h] = fmax(kp.sK[h], kq.sK[h]);
            }
            b.sV = fmax(kp.sV, kq.sV);
        } else {
            b = I->bc;
            for (int h = 0; h < H; h++)
                if (kp.sQ[h] > b.sQ[h] || kq.sQ[h] > b.sQ[h] || kp.sK[h] > b.sK[h] || kq.sK[h] > b.sK[h])
                    *inside = 0;
            if (kp.sV > b.sV || kq.sV > b.sV) *inside = 0;
            if (!*inside) return rc;
        }
        rc |= lm_dyn_consts_eval(&k, I->md, &b);
    }
    *val = rd->value(&k, rd->kind, I->mask);
    return rc;
}

/* The constant of the pair in the working context (I->use_n): the S5 formulas through
 * lm_num from the norms and sigma's of the working model at M (and M'), the reading's
 * sigma's combined with the rigorous lm_num_max or replaced by the induction bounds.
 * Whether the pair is inside the bounds was decided in double (pair_const, the same
 * decision in every context); in Arb *certain = 0 when the balls do not confirm it. */
static int pair_nconst(lm_num *val, int *certain, lm_pert_lip *I, const lm_pert_pair *pr,
                       const lm_pert_reading *rd)
{
    lm_mha *m = I->m;
    const int H = m->H;
    lm_dyn_nconsts kp, kq;
    int rc = 0;
    *certain = 1;
    lm_dyn_nconsts_init(&kp, m);
    lm_dyn_nconsts_init(&kq, m);
    put_params(m, I->mask, pr->p, I->np);
    rc |= lm_dyn_nconsts_norms(&kp, m, 0);
    if (rd->sig != LM_PERT_SIG_AT_M) {
        put_params(m, I->mask, pr->q, I->np);
        rc |= lm_dyn_nconsts_norms(&kq, m, 0);
        put_params(m, I->mask, pr->p, I->np);
        if (rd->sig == LM_PERT_SIG_MAX) {
            for (int h = 0; h < H; h++) {
                lm_num_max(&kp.sQ[h], &kp.sQ[h], &kq.sQ[h]);
                lm_num_max(&kp.sK[h], &kp.sK[h], &kq.sK[h]);
            }
            lm_num_max(&kp.sV, &kp.sV, &kq.sV);
        } else {
            const lm_dyn_nconsts *b = &I->nbc;
            if (m->ctx.backend == LM_ARB) {
                for (int h = 0; h < H; h++)
                    *certain &= lm_num_certainly_gt(&b->sQ[h], &kp.sQ[h]) &&
                                lm_num_certainly_gt(&b->sQ[h], &kq.sQ[h]) &&
                                lm_num_certainly_gt(&b->sK[h], &kp.sK[h]) &&
                                lm_num_certainly_gt(&b->sK[h], &kq.sK[h]);
                *certain &= lm_num_certainly_gt(&b->sV, &kp.sV) && lm_num_certainly_gt(&b->sV, &kq.sV);
            }
            for (int h = 0; h < H; h++) {
                lm_num_set(&kp.sQ[h], &b->sQ[h]);
                lm_num_set(&kp.sK[h], &b->sK[h]);
            }
            lm_num_set(&kp.sV, &b->sV);
        }
    }
    lm_dyn_nconsts_derive(&kp);
    rd->nvalue(val, &kp, rd->kind, I->mask);
    lm_dyn_nconsts_clear(&kp);
    lm_dyn_nconsts_clear(&kq);
    return rc;
}

/* both sides in the working context: lhs = ||MH(M')-MH(M)|| or ||grad f(M')-grad f(M)||,
 * dist = ||M'-M||_F from the two parameter vectors */
static void pair_lhs(lm_num *lhs, lm_num *dist, lm_pert_lip *I, const lm_pert_pair *pr, int grad)
{
    lm_mha *m = I->m;
    const lm_ctx c = m->ctx;
    const int np = I->np, R = m->r->r;
    lm_mat *a = lm_mat_new(grad ? np : R, 1, &c), *b = lm_mat_new(grad ? np : R, 1, &c);
    lm_mat *vp = lm_mat_new(np, 1, &c), *vq = lm_mat_new(np, 1, &c);
    for (int i = 0; i < np; i++) {
        lm_mat_set_d(vp, i, 0, pr->p[i]);
        lm_mat_set_d(vq, i, 0, pr->q[i]);
    }
    lm_mha_set_params(m, I->mask, vp);
    if (grad) lm_mha_flat_grad(a, m, I->mask);
    else { lm_mha_forward(m); lm_mat_copy(a, m->mh); }
    lm_mha_set_params(m, I->mask, vq);
    if (grad) lm_mha_flat_grad(b, m, I->mask);
    else { lm_mha_forward(m); lm_mat_copy(b, m->mh); }
    lm_mat_sub(a, b, a);
    lm_mat_frob(lhs, a);
    lm_mat_sub(vq, vq, vp);
    lm_mat_frob(dist, vq);
    lm_mat_free(a); lm_mat_free(b); lm_mat_free(vp); lm_mat_free(vq);
}

/* count the observed pair: worst ratio, difference quotient, the figure series */
static void count(lm_pert_lip *I, lm_eval *ev)
{
    const lm_num *lhs = &I->lhs, *rhs = &I->rhs, *dist = &I->dist;
    I->pending = 0;
    I->nobs++;
    if (lm_num_sgn(rhs) > 0 && lm_num_sgn(lhs) > 0) {
        double ratio = exp(lm_num_log_abs_d(lhs) - lm_num_log_abs_d(rhs));
        I->worst = fmax(I->worst, ratio);
        lm_series(ev, I->pair->series, lm_num_log_abs_d(dist) / M_LN10, ratio);
    }
    if (lm_num_sgn(lhs) > 0) I->emp = fmax(I->emp, exp(lm_num_log_abs_d(lhs) - lm_num_log_abs_d(dist)));
}

int lm_pert_lip_next(lm_pert_lip *I, lm_eval *ev)
{
    if (I->pending) count(I, ev);
    while (!I->rc && I->next < I->P.n) {
        const lm_pert_pair *pr = &I->P.a[I->next++];
        double val;
        int inside;
        if (pair_const(&val, &inside, I, pr, I->rd)) {
            I->rc = lm_fail(ev, "SVD failed in the S5 constants");
            break;
        }
        if (!inside) continue;
        if (I->use_n) {
            int certain;
            if (pair_nconst(&I->nval, &certain, I, pr, I->rd)) {
                I->rc = lm_fail(ev, "SVD failed in the S5 constants");
                break;
            }
            if (!certain) continue; /* Arb: not certainly inside the bounds: no observation */
        }
        pair_lhs(&I->lhs, &I->dist, I, pr, I->rd->grad);
        if (lm_num_sgn(&I->dist) <= 0) continue; /* a step below one ulp: no pair */
        if (I->use_n) {
            lm_num_mul(&I->rhs, &I->dist, &I->nval);
            lm_num_mul_d(&I->rhs, &I->rhs, I->rd->scale);
        } else {
            lm_num_mul_d(&I->rhs, &I->dist, val * I->rd->scale);
        }
        I->pair = pr;
        I->pending = 1;
        return 1;
    }
    return 0;
}

int lm_pert_lip_end(lm_pert_lip *I, lm_eval *ev)
{
    if (I->pending) count(I, ev);
    if (!I->rc) {
        if (I->nobs == 0) {
            lm_assume(ev, 0, "no pair with M' != M stays inside the induction bounds");
        } else {
            lm_measure(ev, "worst ratio LHS/RHS", I->worst);
            lm_measure(ev, "largest difference quotient |dLHS|/|M'-M| over the pairs", I->emp);
            lm_series_axes(ev, "log10 ||M'-M||_F", "LHS / (constant ||M'-M||_F)", 1);
            if (I->lip_mh > 0) lm_measure(ev, "local Lipschitz of MH at M0 (FD Jacobian)", I->lip_mh);
            if (I->lip_grad > 0)
                lm_measure(ev, "local Lipschitz of grad f at M0 (Hessian power iteration)", I->lip_grad);
        }
    }
    for (int i = 0; i < I->P.n; i++) { free(I->P.a[i].p); free(I->P.a[i].q); }
    free(I->P.a);
    lm_mha_free(I->md);
    lm_mha_free(I->m);
    free(I->p0);
    lm_num_clears(&I->lhs, &I->rhs, &I->dist, &I->nval, (lm_num *)NULL);
    if (I->use_n) lm_dyn_nconsts_clear(&I->nbc);
    return I->rc;
}
