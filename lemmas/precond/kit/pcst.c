/* src/models/pcst.c -- helpers of the structural preconditioning claims (see lm_pcst.h) */
#include "lm_pcst.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const lm_pcst_family_name[LM_PCST_NFAM] = {"c=0.3", "c=0.5", "c=1", "kappa=1e2",
                                                       "kappa=1e6", "paper-default", "A3-copy"};

void lm_pcst_spec_draw(lm_pcst_spec *s, int fam, int dmax, const double *taus, int ntau, lm_rng *g)
{
    memset(s, 0, sizeof *s);
    s->fam = fam;
    s->sigma = 0.1;
    s->lambda = 0.25;
    s->d = lm_rng_int(g, 1, dmax);
    s->k = s->d + lm_rng_int(g, 0, 2);
    s->tau = taus[lm_rng_int(g, 0, ntau - 1)];
    switch (fam) {
    case LM_PCST_C03: s->csig = 0.3; break;
    case LM_PCST_C05: s->csig = 0.5; break;
    case LM_PCST_C1: s->csig = 1.0; break;
    case LM_PCST_K1E2: s->kappa = 1e2; break;
    case LM_PCST_K1E6: s->kappa = 1e6; break;
    case LM_PCST_PAPER: s->d = 4; s->k = 6; s->csig = 1.0; s->tau = 0.05; break;
    default: s->d = 4; s->k = 6; s->csig = 1.0; s->tau = 0.01; break;
    }
    if (s->kappa > 0 && s->d < 2) s->d = 2; /* kappa needs two eigenvalues */
    if (s->k < s->d) s->k = s->d;
}

lm_pcdata *lm_pcst_make(const lm_pcst_spec *s, lm_rng *g, const lm_ctx *c)
{
    return lm_pc_gen(s->d, s->k, s->csig, s->kappa, s->tau, s->sigma, s->lambda, g, c);
}

int lm_pcst_bits(const lm_ctx *c)
{
    return c->backend == LM_DOUBLE ? 53 : (int)c->prec;
}

void lm_pcst_id_init(lm_pcst_id *S, const lm_eval *ev)
{
    memset(S, 0, sizeof *S);
    int b = lm_pcst_bits(ev->ctx);
    if (b <= 53) S->tiers[S->nt++] = lm_ctx_double();
    if (b <= 128) S->tiers[S->nt++] = lm_ctx_mpfr(128);
    if (b <= 256) S->tiers[S->nt++] = lm_ctx_mpfr(256);
    if (S->nt == 0) S->tiers[S->nt++] = *ev->ctx;
}

void lm_pcst_id_rec(lm_pcst_id *S, int t, const char *name, double r, double K)
{
    int k;
    for (k = 0; k < S->nres; k++)
        if (!strcmp(S->name[k], name)) break;
    if (k == S->nres) {
        if (S->nres == LM_PCST_MAXRES) return;
        snprintf(S->name[k], sizeof S->name[k], "%s", name);
        S->nres++;
    }
    if (isnan(r)) r = HUGE_VAL;
    if (S->have[k][t] && !(r / K > S->val[k][t] / S->K[k][t])) return;
    S->val[k][t] = r;
    S->K[k][t] = K;
    S->have[k][t] = 1;
}

double lm_pcst_rel(const lm_num *diff, const lm_num *scale)
{
    if (!lm_num_isfinite(diff) || !lm_num_isfinite(scale)) return HUGE_VAL;
    if (lm_num_iszero(diff)) return 0.0;
    if (lm_num_iszero(scale)) return 1e300;
    return exp(lm_num_log_abs_d(diff) - lm_num_log_abs_d(scale));
}

double lm_pcst_rel_mat(const lm_mat *A, const lm_mat *B, const lm_num *scale)
{
    lm_ctx c = lm_mat_ctx(A);
    lm_mat *D = lm_mat_dup(A);
    lm_mat_sub(D, A, B);
    lm_num x;
    lm_num_init(&x, &c);
    lm_mat_frob(&x, D);
    double r = lm_pcst_rel(&x, scale);
    lm_num_clear(&x);
    lm_mat_free(D);
    return r;
}

void lm_pcst_id_finish(lm_pcst_id *S, lm_eval *ev, double tol_scale, const char *tag)
{
    char tn[3][32];
    for (int t = 0; t < S->nt; t++) lm_ctx_name(&S->tiers[t], tn[t], sizeof tn[t]);
    for (int t = 0; t < S->nt; t++) {
        double u = lm_ctx_eps(&S->tiers[t]), worst = 0.0, wr = 0.0;
        int any = 0;
        for (int k = 0; k < S->nres; k++) {
            if (!S->have[k][t]) continue;
            double tau = tol_scale * S->K[k][t] * u;
            lm_obs_le_d(ev, -1, S->val[k][t], tau, 0.0, "%s [%s; %s]", S->name[k], tn[t], tag);
            worst = fmax(worst, S->val[k][t]);
            wr = fmax(wr, S->val[k][t] / tau);
            any = 1;
        }
        if (!any) continue;
        char nm[96];
        double l10 = worst > 0.0 ? log10(worst) : -400.0;
        snprintf(nm, sizeof nm, "log10 residual, %s", tn[t]);
        lm_measure(ev, nm, l10);
        snprintf(nm, sizeof nm, "residual / tolerance, %s", tn[t]);
        lm_measure(ev, nm, wr);
    }
    for (int k = 0; k < S->nres; k++) {
        int lo = -1, hi = -1;
        for (int t = 0; t < S->nt; t++)
            if (S->have[k][t]) {
                if (lo < 0) lo = t;
                hi = t;
            }
        if (lo < 0 || hi == lo) continue;
        double gap = (double)(S->tiers[hi].prec - S->tiers[lo].prec);
        double tau = tol_scale * S->K[k][hi] * lm_ctx_eps(&S->tiers[hi]);
        lm_obs_le_d(ev, -1, S->val[k][hi], fmax(S->val[k][lo] * ldexp(1.0, -(int)(gap / 2)), tau), 0.0,
                    "%s shrinks with precision: %s vs %s [%s]", S->name[k], tn[hi], tn[lo], tag);
    }
}

int lm_pcst_gauss_hermite(lm_num *t, lm_num *w, int n, const lm_ctx *c)
{
    /* Golub-Welsch in double: eigenvalues of the Jacobi matrix (off-diagonal sqrt(i)) */
    lm_ctx cd = lm_ctx_double();
    lm_mat *J = lm_mat_new(n, n, &cd);
    lm_num *t0 = lm_nums_new(n, &cd);
    for (int i = 1; i < n; i++) {
        lm_mat_set_d(J, i - 1, i, sqrt((double)i));
        lm_mat_set_d(J, i, i - 1, sqrt((double)i));
    }
    int rc = lm_mat_symeig(t0, NULL, J);
    /* Newton on the orthonormal Hermite polynomial h_n in the context c:
     * h_{j+1} = (t h_j - sqrt(j) h_{j-1}) / sqrt(j+1), h_n' = sqrt(n) h_{n-1},
     * weights w = 1 / (n h_{n-1}(t)^2) */
    lm_num *sq = lm_nums_new(n + 1, c);
    for (int j = 0; j <= n; j++) {
        lm_num_set_d(&sq[j], (double)j);
        lm_num_sqrt(&sq[j], &sq[j]);
    }
    lm_num x, h0, h1, h2, u;
    lm_num_inits(c, &x, &h0, &h1, &h2, &u, (lm_num *)NULL);
    int bits = lm_pcst_bits(c), iters = 3;
    for (int b = 53; b < bits; b *= 2) iters++;
    for (int i = 0; i < n && !rc; i++) {
        lm_num_set(&x, &t0[i]);
        int cnt = 0;
        for (int it = 0; it <= iters; it++) {
            lm_num_set_d(&h0, 0.0);
            lm_num_set_d(&h1, 1.0);
            cnt = 0;
            for (int j = 0; j < n; j++) { /* h1 = h_{j+1}, h0 = h_j after the step */
                lm_num_mul(&h2, &x, &h1);
                lm_num_mul(&u, &sq[j], &h0);
                lm_num_sub(&h2, &h2, &u);
                lm_num_div(&h2, &h2, &sq[j + 1]);
                lm_num_set(&h0, &h1);
                lm_num_set(&h1, &h2);
                if (fabs(lm_num_get_d(&h1)) > 0x1p200) { /* rescale: double would overflow */
                    lm_num_mul_d(&h0, &h0, 0x1p-200);
                    lm_num_mul_d(&h1, &h1, 0x1p-200);
                    cnt++;
                }
            }
            /* h1 = h_n, h0 = h_{n-1} */
            if (it == iters) break;
            lm_num_mul(&u, &sq[n], &h0);
            lm_num_div(&u, &h1, &u);
            lm_num_sub(&x, &x, &u);
        }
        lm_num_set(&t[i], &x);
        lm_num_sqr(&u, &h0);
        lm_num_mul(&u, &u, &sq[n]);
        lm_num_mul(&u, &u, &sq[n]);
        lm_num_set_d(&w[i], 1.0);
        lm_num_div(&w[i], &w[i], &u);
        for (int q = 0; q < cnt; q++) lm_num_mul_d(&w[i], &w[i], 0x1p-400);
        if (!lm_num_isfinite(&w[i]) || !lm_num_isfinite(&t[i])) rc = 1;
    }
    lm_num_clears(&x, &h0, &h1, &h2, &u, (lm_num *)NULL);
    lm_nums_free(sq, n + 1);
    lm_nums_free(t0, n);
    lm_mat_free(J);
    return rc;
}

int lm_pcst_eig_minmax(lm_num *mn, lm_num *mx, const lm_mat *S)
{
    lm_ctx c = lm_mat_ctx(S);
    lm_num *w = lm_nums_new(S->r, &c);
    int rc = lm_mat_symeig(w, NULL, S);
    if (mn) lm_num_set(mn, &w[0]);
    if (mx) lm_num_set(mx, &w[S->r - 1]);
    lm_nums_free(w, S->r);
    return rc;
}

void lm_pcst_attn_d(double *p, double *z, const lm_pcbatch *b, const lm_mat *KQ, int j)
{
    int N = b->N, d = b->X->c;
    double a[64], mx = -HUGE_VAL, s = 0.0;
    for (int r = 0; r < d; r++) {
        a[r] = 0.0;
        for (int q = 0; q < d; q++) a[r] += lm_mat_get_d(KQ, r, q) * lm_mat_get_d(b->X, j, q);
    }
    for (int i = 0; i < N; i++) {
        double l = 0.0;
        for (int r = 0; r < d; r++) l += lm_mat_get_d(b->X, i, r) * a[r];
        p[i] = l;
        mx = fmax(mx, l);
    }
    for (int i = 0; i < N; i++) {
        p[i] = exp(p[i] - mx);
        s += p[i];
    }
    for (int r = 0; r < d; r++) z[r] = 0.0;
    for (int i = 0; i < N; i++) {
        p[i] /= s;
        for (int r = 0; r < d; r++) z[r] += p[i] * lm_mat_get_d(b->X, i, r);
    }
}
