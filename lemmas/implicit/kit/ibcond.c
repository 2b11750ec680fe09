/* ibcond.c -- the joint-training conditions of the implicit-bias paper as
 * gates (see lm_ibcond.h). */
#include "lm_ibcond.h"
#include <math.h>

void lm_ibcond_lm(double *em, double *ep, int d, double x)
{
    *em = 2.0 * sqrt(x / d);
    *ep = *em + 2.0 * x / d;
}

double lm_ibcond_zeta0(int d, double x)
{
    double em, ep;
    lm_ibcond_lm(&em, &ep, d, x);
    return em < 1 ? sqrt((1.0 + ep) / (1.0 - em)) : HUGE_VAL;
}

int lm_ibcond_draws(const lm_eval *ev, double draws)
{
    int m = (int)lrint(draws * ev->budget / 64.0);
    return m < 16 ? 16 : m;
}

long lm_ibcond_mc(double *worst, lm_eval *ev, const lm_ibgen_dm_opts *o, int m, lm_ibcond_event event,
                  const void *arg)
{
    lm_rng *g = lm_eval_rng(ev);
    long ok = 0;
    *worst = 0.0;
    for (int r = 0; r < m; r++) {
        lm_attn_data *D = lm_ibgen_dm(o, g, ev->ctx);
        lm_mat *K = lm_ibgen_gram(D);
        double ratio = 0.0;
        ok += event(&ratio, D, K, arg) ? 1 : 0;
        *worst = fmax(*worst, ratio);
        lm_mat_free(K);
        lm_attn_data_free(D);
    }
    return ok;
}

void lm_ibcond_observe(lm_eval *ev, long ok, int m, double delta, double z, const lm_ibgen_dm_opts *o,
                       const char *what)
{
    const double U = lm_ibgen_wilson_upper(ok, m, z);
    lm_measure(ev, "data sets", m);
    lm_measure(ev, "Wilson lower", lm_ibgen_wilson_lower(ok, m, z));
    lm_obs_le_d(ev, -1, 1.0 - delta, U, 0.0,
                "%ld of %d DM data sets (d=%d, zeta=%g) %s: 1-delta <= Wilson upper %.4g", ok, m, o->d,
                o->zeta, what, U);
}

/* ---- Condition 2 ---- */

void lm_ibcond2_defaults(lm_ibcond2 *g)
{
    g->zeta0_scale = 1.0;
    g->C_d = 1.0;
    g->C_r = M_E;
    g->C_H = 2.0;
    g->C_L = M_E;
    g->eta0_scale = 1.0;
}

/* the overparameterisation clause at dimension d with sigma^2 d held fixed:
 * (lower band of the norm gap) / (C_d cross rho_ub), both over sigma^2 d */
static double d_clause(const lm_ibcond2 *g, double d)
{
    const double P = (double)g->n * (2.0 * g->n - 1.0);
    const double xn = log(6.0 * g->n / g->delta), xr = log(8.0 * (P > 0 ? P : 1.0) / g->delta);
    const double em = 2.0 * sqrt(xn / d), ep = em + 2.0 * xn / d, z2 = g->zeta * g->zeta;
    const double lhs = z2 * (1.0 - em) - (1.0 + ep);
    const double rhs = g->C_d * 4.0 * (1.0 + 2.0 * (g->n - 1) * g->C_r) * z2 * (2.0 * sqrt(xr / d) + xr / d);
    return lhs / rhs;
}

void lm_ibcond2_eval(lm_ibcond2 *g)
{
    const int n = g->n, d = g->d;
    const double z2 = g->zeta * g->zeta, s2 = g->sigma2d / d;
    const double P = (double)n * (2.0 * n - 1.0);
    g->xn = log(6.0 * n / g->delta);
    lm_ibcond_lm(&g->em, &g->ep, d, g->xn);
    g->xr = log(8.0 * (P > 0 ? P : 1.0) / g->delta);
    g->rho_ub = z2 * s2 * (2.0 * sqrt(d * g->xr) + g->xr);
    g->dlt_lb = (z2 * (1.0 - g->em) - (1.0 + g->ep)) * g->sigma2d;
    g->cross = 4.0 * (1.0 + 2.0 * (n - 1) * g->C_r);
    g->zeta0 = g->zeta0_scale * lm_ibcond_zeta0(d, g->xn);
    /* smallest d' with the clause (monotone in d'): doubling, then bisection */
    double lo = 1.0, hi = 2.0;
    while (d_clause(g, hi) < 1.0 && hi < 1e15) hi *= 2.0;
    if (d_clause(g, hi) < 1.0) {
        g->d_min = HUGE_VAL;
    } else {
        while (hi - lo > 1.0) {
            double mid = floor(0.5 * (lo + hi));
            if (d_clause(g, mid) >= 1.0) hi = mid;
            else lo = mid;
        }
        g->d_min = hi;
    }
    /* step size: eta C_H C_L B^4 (1 + 3 eta B^2)^2 <= 1 with B^2 the upper band
     * of the largest token norm (at least 1: the Hessian bound needs B >= 1) */
    g->B2 = fmax(1.0, (1.0 + g->ep) * z2 * g->sigma2d);
    const double k = g->C_H * g->C_L * g->B2 * g->B2;
    double elo = 0.0, ehi = 1.0 / k;
    for (int it = 0; it < 200; it++) {
        double mid = 0.5 * (elo + ehi), f = 1.0 + 3.0 * mid * g->B2;
        if (mid * k * f * f <= 1.0) elo = mid;
        else ehi = mid;
    }
    g->eta0 = g->eta0_scale * elo;
    g->ok_init = 1; /* every joint run of the harness starts from W_0 = 0, u_0 = 0 */
    g->ok_zeta = g->zeta >= g->zeta0;
    g->ok_d = g->ok_zeta && g->dlt_lb >= g->C_d * g->cross * g->rho_ub;
    g->ok_eta = g->eta <= g->eta0;
}

int lm_ibcond2_met(const lm_ibcond2 *g) { return g->ok_init && g->ok_zeta && g->ok_d && g->ok_eta; }

void lm_ibcond2_measure(lm_eval *ev, const lm_ibcond2 *g)
{
    lm_measure(ev, "zeta", g->zeta);
    lm_measure(ev, "zeta0 (derived)", g->zeta0);
    lm_measure(ev, "d", g->d);
    lm_measure(ev, "d_min (derived overparameterisation)", g->d_min);
    lm_measure(ev, "gap band / (C_d cross rho_ub)", g->dlt_lb / (g->C_d * g->cross * g->rho_ub));
    lm_measure(ev, "eta", g->eta);
    lm_measure(ev, "eta0 (derived)", g->eta0);
    lm_measure(ev, "B^2 band", g->B2);
    lm_measure(ev, "Condition 2 met", lm_ibcond2_met(g));
}

int lm_ibcond2_event(double *ratio, const lm_attn_data *D, const lm_mat *K, const void *arg)
{
    const lm_ibcond2 *g = arg;
    const int n = D->n, N = n * D->T;
    const lm_ctx *c = &D->ctx;
    lm_num v, rho, b2, lhs, gap;
    lm_num_inits(c, &v, &rho, &b2, &lhs, &gap, (lm_num *)NULL);
    lm_num_set_d(&rho, 0.0);
    lm_num_set_d(&b2, 0.0);
    for (int a = 0; a < N; a++)
        for (int b = 0; b < N; b++) {
            lm_mat_get(&v, K, a, b);
            if (a == b) {
                lm_num_max(&b2, &b2, &v);
            } else {
                lm_num_abs(&v, &v);
                lm_num_max(&rho, &rho, &v);
            }
        }
    lm_num_mul_d(&lhs, &rho, g->cross);
    int good = 1;
    double worst = 0.0;
    for (int i = 0; i < n; i++) {
        const int op = D->opt[i], ot = 1 - op;
        lm_mat_get(&gap, K, i * D->T + op, i * D->T + op);
        lm_mat_get(&v, K, i * D->T + ot, i * D->T + ot);
        lm_num_sub(&gap, &gap, &v);
        if (lm_num_cmp(&lhs, &gap) > 0) good = 0;
        const double gd = lm_num_get_d(&gap);
        worst = fmax(worst, gd > 0 ? fmin(lm_num_get_d(&lhs) / gd, 1e30) : 1e30);
    }
    lm_num_set_d(&v, g->B2);
    if (lm_num_cmp(&b2, &v) > 0) good = 0;
    worst = fmax(worst, lm_num_get_d(&b2) / g->B2);
    *ratio = worst;
    lm_num_clears(&v, &rho, &b2, &lhs, &gap, (lm_num *)NULL);
    return good;
}
