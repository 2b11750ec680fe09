/* src/models/prid.c -- the identity driver of the attention-pruning claims (see lm_prid.h) */
#include "lm_prid.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRID_MAXRES 24
#define PRID_MAXTIER 3

struct lm_prid_state {
    int nres;
    char name[PRID_MAXRES][128];
    double val[PRID_MAXRES][PRID_MAXTIER];
    double K[PRID_MAXRES][PRID_MAXTIER];
    int have[PRID_MAXRES][PRID_MAXTIER];
    int tier;
};

static int slot(lm_prid_state *st, const char *name)
{
    for (int k = 0; k < st->nres; k++)
        if (!strcmp(st->name[k], name)) return k;
    if (st->nres == PRID_MAXRES) return -1;
    snprintf(st->name[st->nres], sizeof st->name[0], "%s", name);
    for (int t = 0; t < PRID_MAXTIER; t++) st->have[st->nres][t] = 0;
    return st->nres++;
}

void lm_prid_resid_d(lm_prid_inst *I, const char *name, double r, double K)
{
    int k = slot(I->st, name);
    if (k < 0) return;
    int t = I->st->tier;
    /* several records under one name: keep the worst, relative to its tolerance */
    if (I->st->have[k][t] == 1 && !(r / K > I->st->val[k][t] / I->st->K[k][t])) return;
    I->st->val[k][t] = isnan(r) ? HUGE_VAL : r;
    I->st->K[k][t] = K;
    I->st->have[k][t] = 1;
}

void lm_prid_skip(lm_prid_inst *I, const char *name)
{
    int k = slot(I->st, name);
    if (k >= 0 && !I->st->have[k][I->st->tier]) I->st->have[k][I->st->tier] = 2;
}

void lm_prid_resid(lm_prid_inst *I, const char *name, const lm_num *diff, const lm_num *scale, double K)
{
    double r;
    if (lm_num_iszero(diff)) r = 0.0;
    else if (lm_num_iszero(scale)) r = 1e300;
    else r = exp(lm_num_log_abs_d(diff) - lm_num_log_abs_d(scale));
    if (!lm_num_isfinite(diff) || !lm_num_isfinite(scale)) r = HUGE_VAL;
    lm_prid_resid_d(I, name, r, K);
}

void lm_prid_resid_mat(lm_prid_inst *I, const char *name, const lm_mat *A, const lm_mat *B,
                       const lm_num *scale, double K)
{
    lm_ctx c = lm_mat_ctx(A);
    lm_mat *D = lm_mat_dup(A);
    lm_mat_sub(D, A, B);
    lm_num x, s;
    lm_num_inits(&c, &x, &s, (lm_num *)NULL);
    lm_mat_frob(&x, D);
    if (scale) lm_num_set(&s, scale);
    else lm_mat_frob(&s, B);
    lm_prid_resid(I, name, &x, &s, K);
    lm_num_clears(&x, &s, (lm_num *)NULL);
    lm_mat_free(D);
}

void lm_prid_logits_alt(lm_mat *H, const lm_mat *X, const lm_mat *W, const lm_mat *M)
{
    int n = X->r, d = X->c;
    lm_ctx c = lm_mat_ctx(X);
    lm_mat *Y = lm_mat_new(d, n, &c); /* (M o W) X^T */
    lm_num s, a, b, w;
    lm_num_inits(&c, &s, &a, &b, &w, (lm_num *)NULL);
    for (int p = 0; p < d; p++)
        for (int i = 0; i < n; i++) {
            lm_num_set_d(&s, 0.0);
            for (int q = 0; q < d; q++) {
                lm_mat_get(&a, M, p, q);
                lm_mat_get(&w, W, p, q);
                lm_num_mul(&a, &a, &w);
                lm_mat_get(&b, X, i, q);
                lm_num_fma(&s, &a, &b, &s);
            }
            lm_mat_set(Y, p, i, &s);
        }
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            lm_num_set_d(&s, 0.0);
            for (int p = 0; p < d; p++) {
                lm_mat_get(&a, X, j, p);
                lm_mat_get(&b, Y, p, i);
                lm_num_fma(&s, &a, &b, &s);
            }
            lm_mat_set(H, j, i, &s);
        }
    lm_num_clears(&s, &a, &b, &w, (lm_num *)NULL);
    lm_mat_free(Y);
}

int lm_prid_naive_softmax(lm_mat *f, lm_mat *u, lm_num *alpha, const lm_mat *H, const unsigned char *C)
{
    int n = H->r, m = H->c, bad = 0;
    lm_ctx c = lm_mat_ctx(H);
    lm_num v, s;
    lm_num_inits(&c, &v, &s, (lm_num *)NULL);
    for (int i = 0; i < n; i++) {
        lm_num_set_d(&s, 0.0);
        for (int j = 0; j < m; j++) {
            if (C && !C[i * m + j]) {
                lm_mat_set_d(u, i, j, 0.0);
                continue;
            }
            lm_mat_get(&v, H, i, j);
            lm_num_exp(&v, &v);
            if (c.backend == LM_DOUBLE && !(isfinite(v.d) && v.d >= DBL_MIN)) bad = 1;
            lm_num_add(&s, &s, &v);
            lm_mat_set(u, i, j, &v);
        }
        if (!lm_num_isfinite(&s)) bad = 1;
        if (alpha) lm_num_set(&alpha[i], &s);
        if (!f) continue;
        for (int j = 0; j < m; j++) {
            lm_mat_get(&v, u, i, j);
            lm_num_div(&v, &v, &s);
            lm_mat_set(f, i, j, &v);
        }
    }
    lm_num_clears(&v, &s, (lm_num *)NULL);
    return bad;
}

void lm_prid_lse_softmax(lm_mat *f, const lm_mat *H, const unsigned char *C)
{
    int n = H->r, m = H->c;
    lm_ctx c = lm_mat_ctx(H);
    lm_num v, mx, s;
    lm_num_inits(&c, &v, &mx, &s, (lm_num *)NULL);
    for (int i = 0; i < n; i++) {
        int first = 1;
        for (int j = 0; j < m; j++) {
            if (!C[i * m + j]) continue; /* log C_ij = -infinity: the term is absent */
            lm_mat_get(&v, H, i, j);
            if (first || lm_num_cmp(&v, &mx) > 0) lm_num_set(&mx, &v);
            first = 0;
        }
        lm_num_set_d(&s, 0.0);
        for (int j = 0; j < m; j++) {
            if (!C[i * m + j]) continue;
            lm_mat_get(&v, H, i, j);
            lm_num_sub(&v, &v, &mx);
            lm_num_exp(&v, &v);
            lm_num_add(&s, &s, &v);
        }
        lm_num_log(&s, &s);
        lm_num_add(&s, &s, &mx); /* logsumexp of the row */
        for (int j = 0; j < m; j++) {
            if (!C[i * m + j]) {
                lm_mat_set_d(f, i, j, 0.0);
                continue;
            }
            lm_mat_get(&v, H, i, j);
            lm_num_sub(&v, &v, &s);
            lm_num_exp(&v, &v);
            lm_mat_set(f, i, j, &v);
        }
    }
    lm_num_clears(&v, &mx, &s, (lm_num *)NULL);
}

double lm_prid_relmax(const lm_mat *A, const lm_mat *B, const unsigned char *C)
{
    lm_ctx c = lm_mat_ctx(A);
    lm_num a, b;
    lm_num_inits(&c, &a, &b, (lm_num *)NULL);
    double worst = 0.0;
    for (int i = 0; i < A->r; i++)
        for (int j = 0; j < A->c; j++) {
            lm_mat_get(&a, A, i, j);
            lm_mat_get(&b, B, i, j);
            double r;
            if (C && !C[i * A->c + j]) {
                r = lm_num_cmp(&a, &b) ? 1e300 : 0.0;
            } else {
                lm_num_sub(&a, &a, &b);
                if (lm_num_iszero(&a)) r = 0.0;
                else if (lm_num_iszero(&b) && c.backend != LM_DOUBLE) r = 1e300;
                else if (c.backend == LM_DOUBLE) /* below 2^-1022/u an entry has no relative accuracy */
                    r = fabs(a.d) / (fabs(b.d) + ldexp(1.0, -1022 + 53));
                else r = exp(lm_num_log_abs_d(&a) - lm_num_log_abs_d(&b));
                if (!lm_num_isfinite(&a) || !lm_num_isfinite(&b)) r = HUGE_VAL;
            }
            if (!(r <= worst)) worst = r;
        }
    lm_num_clears(&a, &b, (lm_num *)NULL);
    return worst;
}

lm_mat *lm_prid_ones(int r, int c, const lm_ctx *ctx)
{
    lm_mat *A = lm_mat_new(r, c, ctx);
    for (int i = 0; i < r; i++)
        for (int j = 0; j < c; j++) lm_mat_set_d(A, i, j, 1.0);
    return A;
}

lm_mat *lm_prid_randn(lm_prid_inst *I, int r, int c)
{
    lm_mat *A = lm_mat_new(r, c, I->c);
    lm_mat_randn(A, I->g, 1.0);
    return A;
}

/* max_ij (|X| |M o W| |X|^T)_ij in double */
static double habs_of(const lm_prdata *P, const lm_mat *M)
{
    int n = P->n, d = P->d;
    double worst = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int a = 0; a < d; a++)
                for (int b = 0; b < d; b++)
                    s += fabs(lm_mat_get_d(P->X, i, a) * lm_mat_get_d(M, a, b) * lm_mat_get_d(P->W, a, b) *
                              lm_mat_get_d(P->X, j, b));
            worst = fmax(worst, s);
        }
    return worst;
}

static const int NGRID[] = {1, 2, 3, 5, 8, 16, 32};
static const int DGRID[] = {1, 2, 3, 4, 8, 16, 32};
static const double LAMBDAS[] = {0.0, 1e-3, 0.37, 1.0};

/* a size from the grid up to max, at least 2 (the edge size 1 is set by the instance index) */
static int pick(lm_rng *g, const int *grid, int max)
{
    int k = 1;
    while (k < 7 && grid[k] <= max) k++;
    return grid[lm_rng_int(g, 1, k - 1)];
}

int lm_prid_run(lm_eval *ev, const lm_prid_spec *spec, lm_prid_fn fn)
{
    lm_rng *g = lm_eval_rng(ev);
    int idx = ev->index;
    int n = pick(g, NGRID, spec->nmax), d = pick(g, DGRID, spec->dmax);
    if (idx % 7 == 3) n = 1; /* the edge cases n = 1 and d = 1 */
    if (idx % 7 == 5) d = 1;
    double R = spec->R[lm_rng_int(g, 0, spec->nR - 1)];
    lm_pr_family fx = (lm_pr_family)(idx % LM_PR_NFAMILY);
    lm_pr_family fw = (lm_pr_family)((idx / LM_PR_NFAMILY + idx) % LM_PR_NFAMILY);
    lm_pr_mkind mk = (lm_pr_mkind)(idx % LM_PR_M_NKIND);
    lm_ctx cd = lm_ctx_double();
    lm_prdata *P0 = lm_pr_new(n, d, &cd);
    lm_pr_fill(P0->X, fx, R, g);
    lm_pr_fill(P0->W, fw, R, g);
    if (spec->support == LM_PRID_CAUSAL) lm_pr_set_causal(P0);
    else if (spec->support == LM_PRID_BLOCK) lm_pr_set_random_support(P0, g);
    P0->lambda = LAMBDAS[lm_rng_int(g, 0, 3)];
    lm_pr_prepare(P0);
    lm_mat *M0 = lm_mat_new(d, d, &cd);
    lm_pr_fill_mask(M0, mk, g);
    uint64_t xseed = lm_rng_u64(g);
    lm_mat *ones = lm_prid_ones(d, d, &cd);
    double habs = fmax(habs_of(P0, M0), habs_of(P0, ones));
    lm_mat_free(ones);

    /* the precisions: double, MPFR-128, MPFR-256, never below the runner's */
    lm_ctx tiers[PRID_MAXTIER];
    int nt = 0, evbits = ev->ctx->backend == LM_DOUBLE ? 53 : (int)ev->ctx->prec;
    if (evbits <= 53) tiers[nt++] = lm_ctx_double();
    if (evbits <= 128) tiers[nt++] = lm_ctx_mpfr(128);
    if (evbits <= 256) tiers[nt++] = lm_ctx_mpfr(256);
    if (nt == 0) tiers[nt++] = *ev->ctx;

    lm_prid_state st;
    memset(&st, 0, sizeof st);
    double tol_scale = lm_par(ev, "tol_scale");
    int rc = 0;
    for (int t = 0; t < nt && !rc; t++) {
        const lm_ctx *c = &tiers[t];
        st.tier = t;
        lm_prdata *P = lm_pr_convert(P0, c);
        lm_mat *M = lm_mat_new(d, d, c);
        lm_mat_copy(M, M0);
        lm_prfwd *F = lm_pr_fwd_new(P);
        lm_rng gx;
        lm_rng_init(&gx, xseed);
        if (lm_pr_forward(F, P, M)) {
            rc = lm_fail(ev, "non-finite loss (n=%d, d=%d, R=%g, %d bits)", n, d, R, (int)c->prec);
        } else {
            lm_pr_grad(F, P, M);
            if (!lm_mat_isfinite(F->G)) rc = lm_fail(ev, "non-finite gradient (n=%d, d=%d)", n, d);
        }
        if (!rc) {
            lm_prid_inst I = {.P = P, .M = M, .F = F, .c = c, .n = n, .d = d,
                              .bits = c->backend == LM_DOUBLE ? 53 : (int)c->prec, .R = R, .habs = habs,
                              .ksm = n + 4.0 + 2.0 * d * habs, .g = &gx, .ev = ev, .st = &st};
            rc = fn(&I);
        }
        lm_pr_fwd_free(F);
        lm_mat_free(M);
        lm_pr_free(P);
    }
    if (!rc && st.nres == 0) rc = lm_fail(ev, "no residual recorded");
    if (!rc) {
        char tn[PRID_MAXTIER][32];
        for (int t = 0; t < nt; t++) lm_ctx_name(&tiers[t], tn[t], sizeof tn[t]);
        for (int t = 0; t < nt; t++) {
            double u = lm_ctx_eps(&tiers[t]), worst = 0.0, wratio = 0.0;
            int any = 0;
            for (int k = 0; k < st.nres; k++) {
                if (st.have[k][t] != 1) continue;
                double tau = tol_scale * st.K[k][t] * u;
                lm_obs_le_d(ev, -1, st.val[k][t], tau, 0.0, "%s [%s, n=%d, d=%d, R=%g]", st.name[k], tn[t], n,
                            d, R);
                worst = fmax(worst, st.val[k][t]);
                wratio = fmax(wratio, st.val[k][t] / tau);
                any = 1;
            }
            if (!any) continue;
            char nm[96];
            double l10 = worst > 0.0 ? log10(worst) : -400.0;
            snprintf(nm, sizeof nm, "log10 residual, %s", tn[t]);
            lm_measure(ev, nm, l10);
            snprintf(nm, sizeof nm, "residual / tolerance, %s", tn[t]);
            lm_measure(ev, nm, wratio);
            lm_series(ev, "worst relative residual (log10)", tiers[t].prec, l10);
            lm_series(ev, "unit roundoff (log10)", tiers[t].prec, log10(u));
        }
        lm_series_axes(ev, "precision (bits)", "log10 relative residual", 0);
        /* the residual must shrink with precision */
        for (int k = 0; k < st.nres; k++) {
            int lo = -1, hi = -1;
            for (int t = 0; t < nt; t++)
                if (st.have[k][t] == 1) {
                    if (lo < 0) lo = t;
                    hi = t;
                }
            if (lo < 0) {
                rc = lm_fail(ev, "residual %s could be formed in no precision", st.name[k]);
                break;
            }
            if (hi == lo) continue;
            double gap = (double)(tiers[hi].prec - tiers[lo].prec);
            double tau = tol_scale * st.K[k][hi] * lm_ctx_eps(&tiers[hi]);
            lm_obs_le_d(ev, -1, st.val[k][hi], fmax(st.val[k][lo] * ldexp(1.0, -(int)(gap / 2)), tau), 0.0,
                        "%s shrinks: %s vs %s", st.name[k], tn[hi], tn[lo]);
        }
        lm_measure(ev, "n", n);
        lm_measure(ev, "d", d);
        lm_measure(ev, "R", R);
        lm_measure(ev, "condition factor n+4+2d habs", n + 4.0 + 2.0 * d * habs);
    }
    lm_mat_free(M0);
    lm_pr_free(P0);
    return rc;
}

int lm_prid_literal_loss(lm_num *Lrec, lm_num *Lreg, const lm_prid_inst *I, int lse, const unsigned char *C,
                         double rf, double gf)
{
    int n = I->n, d = I->d, bad = 0;
    const lm_ctx *c = I->c;
    lm_mat *H = lm_mat_new(n, n, c), *u = lm_mat_new(n, n, c), *f = lm_mat_new(n, n, c),
           *f0 = lm_mat_new(n, n, c), *ones = lm_prid_ones(d, d, c);
    unsigned char *all = NULL;
    if (lse && !C) {
        all = lm_xmalloc((size_t)(n * n));
        memset(all, 1, (size_t)(n * n));
        C = all;
    }
    lm_prid_logits_alt(H, I->P->X, I->P->W, I->M);
    if (lse) lm_prid_lse_softmax(f, H, C);
    else bad |= lm_prid_naive_softmax(f, u, NULL, H, C);
    lm_prid_logits_alt(H, I->P->X, I->P->W, ones);
    if (lse) lm_prid_lse_softmax(f0, H, C);
    else bad |= lm_prid_naive_softmax(f0, u, NULL, H, C);
    lm_num v, w;
    lm_num_inits(c, &v, &w, (lm_num *)NULL);
    lm_num_set_d(Lrec, 0.0);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            lm_mat_get(&v, f, i, j);
            lm_mat_get(&w, f0, i, j);
            lm_num_sub(&v, &v, &w);
            lm_num_fma(Lrec, &v, &v, Lrec);
        }
    lm_num_mul_d(Lrec, Lrec, rf);
    lm_num_set_d(Lreg, 0.0);
    for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++) {
            lm_mat_get(&v, I->M, a, b);
            lm_num_fma(Lreg, &v, &v, Lreg);
        }
    lm_num_mul_d(Lreg, Lreg, gf * I->P->lambda);
    lm_num_clears(&v, &w, (lm_num *)NULL);
    free(all);
    lm_mat_free(H); lm_mat_free(u); lm_mat_free(f); lm_mat_free(f0); lm_mat_free(ones);
    return bad;
}

void lm_prid_loss_scale(lm_num *S, const lm_prid_inst *I)
{
    lm_num a, b;
    lm_num_inits(I->c, &a, &b, (lm_num *)NULL);
    lm_num t;
    lm_num_init(&t, I->c);
    lm_mat_frob(&a, I->F->f);
    lm_mat_frob(&b, I->P->f0);
    lm_num_add(&a, &a, &b);
    /* ||c||_F plus the rounding of c itself (second order: matters when c = 0 exactly in one
     * computation, e.g. M = 1, or rows whose logits are all equal) */
    lm_mat_frob(&b, I->F->c);
    lm_num_mul_d(&t, &a, 4.0 * I->ksm * lm_ctx_eps(I->c));
    lm_num_add(&b, &b, &t);
    lm_num_mul(&a, &a, &b);
    lm_num_add(S, &I->F->L, &a);
    lm_num_clear(&t);
    lm_num_clears(&a, &b, (lm_num *)NULL);
}

static void abs_mat(lm_mat *B, const lm_mat *A)
{
    lm_ctx c = lm_mat_ctx(A);
    lm_num v;
    lm_num_init(&v, &c);
    for (int i = 0; i < A->r; i++)
        for (int j = 0; j < A->c; j++) {
            lm_mat_get(&v, A, i, j);
            lm_num_abs(&v, &v);
            lm_mat_set(B, i, j, &v);
        }
    lm_num_clear(&v);
}

/* W o (X^T q X) and its absolute-value scale, rows j0 in [r0, r1) of q only */
static void view_matrix(lm_mat *out, lm_mat *scale, const lm_mat *X, const lm_mat *W, const lm_mat *q, int r0,
                        int r1)
{
    int n = X->r, d = X->c;
    lm_ctx c = lm_mat_ctx(X);
    lm_mat *qq = lm_mat_new(n, n, &c), *T = lm_mat_new(d, n, &c), *Y = lm_mat_new(d, d, &c);
    lm_mat *aX = lm_mat_new(n, d, &c), *aW = lm_mat_new(d, d, &c);
    lm_num v;
    lm_num_init(&v, &c);
    for (int i = r0; i < r1; i++)
        for (int j = 0; j < n; j++) {
            lm_mat_get(&v, q, i, j);
            lm_mat_set(qq, i, j, &v);
        }
    lm_mat_mul(T, X, 1, qq, 0);
    lm_mat_mul(Y, T, 0, X, 0);
    lm_mat_hadamard(out, W, Y);
    abs_mat(qq, qq);
    abs_mat(aX, X);
    abs_mat(aW, W);
    lm_mat_mul(T, aX, 1, qq, 0);
    lm_mat_mul(Y, T, 0, aX, 0);
    lm_mat_hadamard(scale, aW, Y);
    lm_num_clear(&v);
    lm_mat_free(qq); lm_mat_free(T); lm_mat_free(Y); lm_mat_free(aX); lm_mat_free(aW);
}

void lm_prid_matrix_view(lm_prid_inst *I, const lm_mat *q, const char *qname, int tw)
{
    int n = I->n, d = I->d;
    const lm_mat *X = I->P->X, *W = I->P->W;
    lm_mat *E = lm_mat_new(d, d, I->c), *Ej = lm_mat_new(d, d, I->c), *V = lm_mat_new(d, d, I->c),
           *S = lm_mat_new(d, d, I->c);
    lm_num ip, a, b, e, s;
    lm_num_inits(I->c, &ip, &a, &b, &e, &s, (lm_num *)NULL);
    for (int j0 = 0; j0 < n; j0++)
        for (int j1 = 0; j1 < d; j1++) {
            /* <q_{j0}, X_{*,j1}> */
            lm_num_set_d(&ip, 0.0);
            for (int i = 0; i < n; i++) {
                lm_mat_get(&a, q, j0, i);
                lm_mat_get(&b, X, i, j1);
                lm_num_fma(&ip, &a, &b, &ip);
            }
            for (int i0 = 0; i0 < d; i0++) {
                lm_mat_get(&a, X, j0, i0);
                if (tw) lm_mat_get(&b, W, j1, i0);
                else lm_mat_get(&b, W, i0, j1);
                lm_num_mul(&a, &a, &b);
                lm_num_mul(&a, &a, &ip);
                if (j0 == n - 1) lm_mat_set(Ej, i0, j1, &a);
                lm_mat_get(&e, E, i0, j1);
                lm_num_add(&e, &e, &a);
                lm_mat_set(E, i0, j1, &e);
            }
        }
    char nm[96];
    view_matrix(V, S, X, W, q, n - 1, n);
    lm_mat_frob(&s, S);
    snprintf(nm, sizeof nm, "Part 1 (row j0 = n): entries vs W o (X_j0^T %s_j0^T X)", qname);
    lm_prid_resid_mat(I, nm, Ej, V, &s, 4.0 * (2 * n + 4));
    view_matrix(V, S, X, W, q, 0, n);
    lm_mat_frob(&s, S);
    snprintf(nm, sizeof nm, "Part 2: sum_j0 of the entries vs W o (X^T %s X)", qname);
    lm_prid_resid_mat(I, nm, E, V, &s, 4.0 * (2 * n + 4));
    lm_num_clears(&ip, &a, &b, &e, &s, (lm_num *)NULL);
    lm_mat_free(E); lm_mat_free(Ej); lm_mat_free(V); lm_mat_free(S);
}
