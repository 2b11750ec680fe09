/* ibgen.c -- generators EX1, EX1-antipodal, DM and W_0 of the implicit-bias
 * paper (catalogue section 2.5), and the quantities of Assumptions 1-2. */
#include "lm_ibgen.h"
#include <math.h>
#include <stdlib.h>

void lm_ibgen_ex1_defaults(lm_ibgen_ex1_opts *o, int hetero)
{
    *o = (lm_ibgen_ex1_opts){.n = 6, .T = 4, .d = 800, .sigma = -1.0, .beta = 3.0,
                             .hetero = hetero, .mu = 0.3, .c = 0.0, .cit = 1.0,
                             .mu_lo = 0.1, .mu_hi = 0.6, .c_lo = -0.2, .c_hi = 0.05,
                             .cit_lo = 0.5, .cit_hi = 2.0, .opt_first = 0, .antipodal = 0};
}

static double unif(lm_rng *g, double lo, double hi) { return lo + (hi - lo) * lm_rng_uniform(g); }

lm_attn_data *lm_ibgen_ex1(const lm_ibgen_ex1_opts *o, lm_rng *g, const lm_ctx *ctx)
{
    const int n = o->n, T = o->T, d = o->d;
    const double sigma = o->sigma > 0 ? o->sigma : 1.0 / sqrt((double)d);
    lm_attn_data *D = lm_attn_data_new(n, T, d, ctx);
    double *row = lm_xmalloc((size_t)d * sizeof *row);
    lm_mat_set_d(D->u, 0, 0, o->beta);
    for (int i = 0; i < n; i++) {
        const int y = lm_rng_uniform(g) < 0.5 ? -1 : 1;
        const int opt = o->opt_first ? 0 : lm_rng_int(g, 0, T - 1);
        const double mu = o->hetero ? unif(g, o->mu_lo, o->mu_hi) : o->mu;
        const double c = o->hetero ? unif(g, o->c_lo, o->c_hi) : o->c;
        D->y[i] = y;
        D->opt[i] = opt;
        for (int t = 0; t < T; t++) {
            const double cit = o->hetero ? unif(g, o->cit_lo, o->cit_hi) : o->cit;
            const int noisy = !(o->antipodal && t == opt);
            row[0] = (double)y * (t == opt ? mu : c); /* exact: y = +-1 */
            for (int k = 1; k < d; k++) row[k] = noisy ? cit * (sigma * lm_rng_normal(g)) : 0.0;
            for (int k = 0; k < d; k++) lm_mat_set_d(D->X[i], t, k, row[k]);
        }
    }
    free(row);
    return D;
}

void lm_ibgen_dm_defaults(lm_ibgen_dm_opts *o)
{
    *o = (lm_ibgen_dm_opts){.n = 8, .d = 600, .sigma = -1.0, .zeta = 1.5, .opt_first = 0};
}

lm_attn_data *lm_ibgen_dm(const lm_ibgen_dm_opts *o, lm_rng *g, const lm_ctx *ctx)
{
    const int n = o->n, d = o->d;
    const double sigma = o->sigma > 0 ? o->sigma : 1.0 / sqrt((double)d);
    lm_attn_data *D = lm_attn_data_new(n, 2, d, ctx);
    D->ustar = lm_mat_new(d, 1, ctx);
    for (int k = 0; k < d; k++) lm_mat_set_d(D->ustar, k, 0, lm_rng_normal(g));
    lm_num m, a, b;
    lm_num_inits(ctx, &m, &a, &b, (lm_num *)NULL);
    for (int i = 0; i < n; i++) {
        const int opt = o->opt_first ? 0 : lm_rng_int(g, 0, 1);
        D->opt[i] = opt;
        for (int t = 0; t < 2; t++) {
            const double s = t == opt ? o->zeta * sigma : sigma;
            for (int k = 0; k < d; k++) lm_mat_set_d(D->X[i], t, k, s * lm_rng_normal(g));
        }
        /* y_i = sign(u_star^T x_opt) in the context */
        lm_num_set_d(&m, 0.0);
        for (int k = 0; k < d; k++) {
            lm_mat_get(&a, D->ustar, k, 0);
            lm_mat_get(&b, D->X[i], opt, k);
            lm_num_fma(&m, &a, &b, &m);
        }
        D->y[i] = lm_num_sgn(&m) < 0 ? -1 : 1;
    }
    lm_num_clears(&m, &a, &b, (lm_num *)NULL);
    return D; /* D->u = u_0 = 0 */
}

lm_mat *lm_ibgen_w0(int d, double sigma0, lm_rng *g, const lm_ctx *ctx)
{
    lm_mat *W = lm_mat_new(d, d, ctx);
    const double s = sigma0 > 0 ? sigma0 : 0.01 / (double)d;
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) lm_mat_set_d(W, i, j, s * lm_rng_normal(g));
    return W;
}

lm_mat *lm_ibgen_tokens(const lm_attn_data *D)
{
    lm_mat *A = lm_mat_new(D->n * D->T, D->d, &D->ctx), *r = lm_mat_new(1, D->d, &D->ctx);
    for (int i = 0; i < D->n; i++)
        for (int t = 0; t < D->T; t++) {
            lm_mat_get_block(r, D->X[i], t, 0);
            lm_mat_set_block(A, i * D->T + t, 0, r);
        }
    lm_mat_free(r);
    return A;
}

lm_mat *lm_ibgen_gram(const lm_attn_data *D)
{
    lm_mat *A = lm_ibgen_tokens(D), *K = lm_mat_new(D->n * D->T, D->n * D->T, &D->ctx);
    lm_mat_mul(K, A, 0, A, 1);
    lm_mat_free(A);
    return K;
}

void lm_ibgen_scores(lm_mat *G, const lm_attn_data *D, int use_ustar)
{
    const lm_mat *u = use_ustar && D->ustar ? D->ustar : D->u;
    lm_mat *v = lm_mat_new(D->T, 1, &D->ctx);
    lm_num a;
    lm_num_init(&a, &D->ctx);
    for (int i = 0; i < D->n; i++) {
        lm_mat_mul(v, D->X[i], 0, u, 0);
        for (int t = 0; t < D->T; t++) {
            lm_mat_get(&a, v, t, 0);
            if (D->y[i] < 0) lm_num_neg(&a, &a);
            lm_mat_set(G, i, t, &a);
        }
    }
    lm_num_clear(&a);
    lm_mat_free(v);
}

void lm_ibgen_stats_init(lm_ibgen_stats *s, const lm_ctx *ctx)
{
    lm_num_inits(ctx, &s->B, &s->Dc, &s->bmin2, &s->rho, &s->gam_min, &s->gam_max, &s->spread,
                 &s->gam_abs, (lm_num *)NULL);
}

void lm_ibgen_stats_clear(lm_ibgen_stats *s)
{
    lm_num_clears(&s->B, &s->Dc, &s->bmin2, &s->rho, &s->gam_min, &s->gam_max, &s->spread,
                  &s->gam_abs, (lm_num *)NULL);
}

int lm_ibgen_stats_compute(lm_ibgen_stats *s, const lm_attn_data *D, int use_ustar)
{
    const int n = D->n, T = D->T, N = n * T;
    const lm_ctx *ctx = &D->ctx;
    for (int i = 0; i < n; i++)
        if (D->opt[i] < 0 || D->opt[i] >= T) return -1;
    lm_mat *K = lm_ibgen_gram(D), *G = lm_mat_new(n, T, ctx);
    lm_mat *dif = lm_mat_new(1, D->d, ctx), *r = lm_mat_new(1, D->d, ctx);
    lm_num a, b, nx1, mx, mn;
    lm_num_inits(ctx, &a, &b, &nx1, &mx, &mn, (lm_num *)NULL);
    int first = 1;
    /* norms and cross products from the Gram matrix */
    for (int p = 0; p < N; p++) {
        lm_mat_get(&a, K, p, p);
        if (p == 0 || lm_num_cmp(&a, &s->bmin2) < 0) lm_num_set(&s->bmin2, &a);
        if (p == 0 || lm_num_cmp(&a, &s->B) > 0) lm_num_set(&s->B, &a);
        for (int q = p + 1; q < N; q++) {
            lm_mat_get(&a, K, p, q);
            lm_num_abs(&a, &a);
            if (first || lm_num_cmp(&a, &s->rho) > 0) lm_num_set(&s->rho, &a);
            first = 0;
        }
    }
    if (first) lm_num_set_d(&s->rho, 0.0);
    lm_num_sqrt(&s->B, &s->B);
    /* D from the difference vectors (no cancellation through the Gram matrix) */
    lm_num_set_d(&s->Dc, 0.0);
    for (int i = 0; i < n; i++) {
        lm_mat_get(&nx1, K, i * T, i * T);
        lm_num_sqrt(&nx1, &nx1);
        for (int t = 0; t < T; t++) {
            if (t == D->opt[i]) continue;
            lm_mat_get_block(dif, D->X[i], D->opt[i], 0);
            lm_mat_get_block(r, D->X[i], t, 0);
            lm_mat_sub(dif, dif, r);
            lm_mat_frob(&a, dif);
            lm_num_mul(&a, &a, &nx1);
            lm_num_max(&s->Dc, &s->Dc, &a);
        }
    }
    /* scores */
    lm_ibgen_scores(G, D, use_ustar);
    lm_num_set_d(&s->spread, 0.0);
    lm_num_set_d(&s->gam_abs, 0.0);
    for (int i = 0; i < n; i++) {
        int f = 1;
        for (int t = 0; t < T; t++) {
            lm_mat_get(&a, G, i, t);
            lm_num_abs(&b, &a);
            lm_num_max(&s->gam_abs, &s->gam_abs, &b);
            if (t == D->opt[i]) continue;
            if (f || lm_num_cmp(&a, &mx) > 0) lm_num_set(&mx, &a);
            if (f || lm_num_cmp(&a, &mn) < 0) lm_num_set(&mn, &a);
            f = 0;
        }
        if (f) { /* T = 1: no non-optimal token */
            lm_num_set_d(&mx, 0.0);
            lm_num_set_d(&mn, 0.0);
        }
        lm_num_sub(&b, &mx, &mn);
        lm_num_max(&s->spread, &s->spread, &b);
        lm_mat_get(&a, G, i, D->opt[i]);
        lm_num_sub(&b, &a, &mx);
        if (i == 0 || lm_num_cmp(&b, &s->gam_min) < 0) lm_num_set(&s->gam_min, &b);
        lm_num_sub(&b, &a, &mn);
        if (i == 0 || lm_num_cmp(&b, &s->gam_max) > 0) lm_num_set(&s->gam_max, &b);
    }
    int bad = !lm_num_isfinite(&s->B) || !lm_num_isfinite(&s->rho) || !lm_num_isfinite(&s->Dc) ||
              !lm_num_isfinite(&s->gam_min) || !lm_num_isfinite(&s->gam_max);
    lm_num_clears(&a, &b, &nx1, &mx, &mn, (lm_num *)NULL);
    lm_mat_free(K);
    lm_mat_free(G);
    lm_mat_free(dif);
    lm_mat_free(r);
    return bad ? -1 : 0;
}

double lm_ibgen_wilson_upper(long k, long m, double z)
{
    if (m <= 0) return 1.0;
    double ph = (double)k / (double)m, z2 = z * z, mm = (double)m;
    double c = (ph + z2 / (2 * mm)) / (1 + z2 / mm);
    double h = z / (1 + z2 / mm) * sqrt(ph * (1 - ph) / mm + z2 / (4 * mm * mm));
    return c + h > 1.0 ? 1.0 : c + h;
}

double lm_ibgen_wilson_lower(long k, long m, double z)
{
    if (m <= 0) return 0.0;
    double ph = (double)k / (double)m, z2 = z * z, mm = (double)m;
    double c = (ph + z2 / (2 * mm)) / (1 + z2 / mm);
    double h = z / (1 + z2 / mm) * sqrt(ph * (1 - ph) / mm + z2 / (4 * mm * mm));
    return c - h < 0.0 ? 0.0 : c - h;
}

/* A1-derived and A2 in D's own context */
static int assumptions_here(double *ratio, const lm_attn_data *D, double lambda_scale)
{
    const lm_ctx *c = &D->ctx;
    lm_ibgen_stats s;
    lm_ibgen_stats_init(&s, c);
    int res = -1;
    if (lm_ibgen_stats_compute(&s, D, 0) == 0 && lm_num_sgn(&s.gam_min) > 0) {
        lm_num lam, k, lhs, rhs, t;
        lm_num_inits(c, &lam, &k, &lhs, &rhs, &t, (lm_num *)NULL);
        lm_num_exp(&lam, &s.gam_max);
        lm_num_div(&k, &s.gam_max, &s.gam_min);
        lm_num_mul(&lam, &lam, &k);
        lm_num_mul_d(&lam, &lam, lambda_scale * M_E * (D->n - 1) * (double)(D->T * D->T));
        lm_num_sqr(&lhs, &s.rho);
        lm_num_mul(&lhs, &lhs, &lam);
        lm_num_mul_d(&t, &s.rho, 3.0);
        lm_num_sub(&rhs, &s.bmin2, &t);
        lm_num_mul(&rhs, &rhs, &s.bmin2);
        res = lm_num_cmp(&lhs, &rhs) <= 0 ? 1 : 0;
        *ratio = lm_num_sgn(&rhs) > 0 ? lm_num_get_d(&lhs) / lm_num_get_d(&rhs) : (double)INFINITY;
        lm_num_mul_d(&t, &s.gam_abs, 4.0 * exp2(lm_ctx_log2eps(c)));
        if (lm_num_cmp(&s.spread, &t) <= 0) res |= 2;
        if (!lm_num_isfinite(&lhs) || !lm_num_isfinite(&rhs)) res = -1;
        lm_num_clears(&lam, &k, &lhs, &rhs, &t, (lm_num *)NULL);
    }
    lm_ibgen_stats_clear(&s);
    return res;
}

int lm_ibgen_assumptions(double *ratio, const lm_attn_data *D, double lambda_scale, const lm_ctx *ctx)
{
    int res = assumptions_here(ratio, D, lambda_scale);
    const int same = ctx->backend == D->ctx.backend && ctx->prec == D->ctx.prec;
    if (res >= 0 && !same && fabs(*ratio - 1.0) <= 1e-8) {
        lm_attn_data *E = lm_attn_data_convert(D, ctx);
        res = assumptions_here(ratio, E, lambda_scale);
        lm_attn_data_free(E);
    }
    return res;
}

/* Lemma 2 (reconstructed R_eps): eps(R), the root of R = C w/eps log(K/eps) on (0, 1]; returns >= 1 when none below 1 */
double lm_ibgen_eps_of_R(double R, double Cw, double K)
{
    double lo = 1e-300, hi = 1.0;
    if (Cw * log(K) >= R) return 1.0; /* R_1 > R */
    for (int k = 0; k < 2000 && hi - lo > 1e-15 * hi; k++) {
        double mid = 0.5 * (lo + hi);
        if (mid < 1e-200) mid = sqrt(lo * hi);
        if (Cw / mid * log(K / mid) > R) lo = mid; else hi = mid;
    }
    return hi;
}
