/* src/models/pcmo.c -- see lm_pcmo.h */
#include "lm_pcmo.h"
#include "lm_stats.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCMO_K 16  /* batches per Monte Carlo estimate */
#define PCMO_NG 12 /* largest number of grid points */

static double *dz(int n)
{
    return lm_xcalloc((size_t)(n > 0 ? n : 1), sizeof(double));
}

double lm_pcmo_grad_term(const lm_pcmc *m, lm_pcmo_qty qty)
{
    int N = m->N, d = m->d;
    const double *S = m->Sig, *z = m->z, *mu = m->mu, *C = m->C;
    double s = m->s, trS = 0, zz = 0, zSz = 0, muz = 0, C2 = 0;
    for (int a = 0; a < d; a++) {
        trS += S[a * d + a];
        zz += z[a] * z[a];
        muz += mu[a] * z[a];
        double v = 0;
        for (int b = 0; b < d; b++) v += S[a * d + b] * z[b];
        zSz += z[a] * v;
    }
    for (int k = 0; k < d * d; k++) C2 += C[k] * C[k];
    double tot = 0, w[64], Cw[64];
    for (int l = 1; l < N; l++) {
        const double *x = m->X + (size_t)l * (size_t)d;
        double pl = m->p[l], ww = 0, wmu = 0, wz = 0, wSw = 0, wCw = 0, muCw = 0;
        for (int a = 0; a < d; a++) w[a] = x[a] - z[a];
        for (int a = 0; a < d; a++) {
            ww += w[a] * w[a];
            wmu += w[a] * mu[a];
            wz += w[a] * z[a];
            double v = 0, c = 0;
            for (int b = 0; b < d; b++) {
                v += S[a * d + b] * w[b];
                c += C[a * d + b] * w[b];
            }
            wSw += w[a] * v;
            Cw[a] = c;
        }
        for (int a = 0; a < d; a++) {
            wCw += w[a] * Cw[a];
            muCw += mu[a] * Cw[a];
        }
        double t;
        if (qty == LM_PCMO_ZZ) {
            /* dz[h] = p_l (h + w a.h); d(zz^T)[h] = u z^T + z u^T */
            double A = trS + 2 * wmu + s * ww;
            double B = zSz + 2 * wz * muz + s * wz * wz;
            t = 2 * A * zz + 2 * B;
        } else {
            /* dC[h] = p_l ((a.h)(w w^T - C) + h w^T + w h^T) */
            double D2 = ww * ww - 2 * wCw + C2;
            double muDw = wmu * ww - muCw;
            t = s * D2 + 4 * muDw + 2 * trS * ww + 2 * wSw;
        }
        tot += pl * pl * t;
    }
    return tot;
}

void lm_pcmo_sqnorm(double *q, double *se, const double *bm, int K, int D)
{
    double *S = dz(D), T = 0, *Qk = dz(K);
    for (int k = 0; k < K; k++)
        for (int e = 0; e < D; e++) {
            S[e] += bm[k * D + e];
            T += bm[k * D + e] * bm[k * D + e];
        }
    double SS = 0;
    for (int e = 0; e < D; e++) SS += S[e] * S[e];
    *q = (SS - T) / ((double)K * (K - 1));
    /* jackknife over batches */
    double mean = 0;
    for (int k = 0; k < K; k++) {
        double s2 = 0, t2 = T, bk = 0;
        for (int e = 0; e < D; e++) {
            double v = S[e] - bm[k * D + e];
            s2 += v * v;
            bk += bm[k * D + e] * bm[k * D + e];
        }
        t2 -= bk;
        Qk[k] = (s2 - t2) / ((double)(K - 1) * (K - 2));
        mean += Qk[k];
    }
    mean /= K;
    double v = 0;
    for (int k = 0; k < K; k++) v += (Qk[k] - mean) * (Qk[k] - mean);
    *se = sqrt((double)(K - 1) / K * v);
    free(S);
    free(Qk);
}

typedef struct {
    lm_pcdata *P;
    int d;
    double *Sig, *W, *xj;
    double q_fixed; /* q_j at the fixed query */
} inst_t;

/* the exact zero-mean control variate of the last draw: with w_i = e^{a.x_i - s/2} / N,
 * E w_i g(x_i) = E_{N(mu, Sigma)} g; h = sum_{i != j} w_i (x_i - mu) mu^T + transpose (F = zz^T),
 * or sum_{i != j} w_i ((x_i - mu)(x_i - mu)^T - Sigma) (F = C_j) */
static void control(double *h, const lm_pcmc *m, lm_pcmo_qty qty)
{
    int N = m->N, d = m->d;
    double u[64];
    memset(h, 0, sizeof(double) * (size_t)(d * d));
    for (int i = 1; i < N; i++) {
        const double *x = m->X + (size_t)i * (size_t)d;
        double l = 0;
        for (int a = 0; a < d; a++) l += m->a[a] * x[a];
        double w = exp(l - 0.5 * m->s) / N;
        for (int a = 0; a < d; a++) u[a] = x[a] - m->mu[a];
        for (int a = 0; a < d; a++)
            for (int b = 0; b < d; b++)
                h[a * d + b] += qty == LM_PCMO_ZZ ? w * (u[a] * m->mu[b] + m->mu[a] * u[b])
                                                  : w * (u[a] * u[b] - m->Sig[a * d + b]);
    }
}

/* F - F_inf of the last draw into f (d*d) */
static void deviation(double *f, const lm_pcmc *m, lm_pcmo_qty qty)
{
    int d = m->d;
    for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++)
            f[a * d + b] = qty == LM_PCMO_ZZ ? m->z[a] * m->z[b] - m->mu[a] * m->mu[b]
                                             : m->C[a * d + b] - m->Sig[a * d + b];
}

static int setup(inst_t *I, lm_eval *ev, int integrated)
{
    int d = lm_par_i(ev, "d");
    double st = lm_par(ev, "s_target");
    if (d < 1 || d > 16) return lm_fail(ev, "d = %d out of range 1..16", d);
    if (!(st > 0)) return lm_fail(ev, "s_target must be > 0");
    lm_rng g;
    lm_rng_init(&g, lm_hash_u64(ev->seed, 0x70636d6fULL));
    lm_ctx cd = lm_ctx_double();
    I->P = lm_pc_gen(d, d, 0.5, 0.0, 0.01, 0.1, 0.25, &g, &cd);
    if (!I->P) return lm_fail(ev, "instance generation failed");
    I->d = d;
    I->Sig = dz(d * d);
    I->W = dz(d * d);
    I->xj = dz(d);
    lm_mat_get_array(I->Sig, I->P->Sig);
    for (int k = 0; k < d * d; k++) I->W[k] = lm_rng_normal(&g);
    /* x_j ~ N(0, Sigma) through a throwaway context object */
    lm_pcmc *m = lm_pcmc_new(I->P, 2, I->xj, I->W);
    lm_pcmc_sample_x(m, I->xj, &g);
    double sc;
    if (integrated) { /* E_j s_j = tr(W^T Sigma W Sigma) */
        double *T = dz(d * d), e = 0;
        for (int a = 0; a < d; a++)
            for (int b = 0; b < d; b++) {
                double v = 0;
                for (int c = 0; c < d; c++) v += I->Sig[a * d + c] * I->W[c * d + b];
                T[a * d + b] = v; /* Sigma W */
            }
        /* tr(W^T Sigma W Sigma) = sum_{ab} (W^T Sigma W)_{ab} Sigma_{ba} */
        for (int a = 0; a < d; a++)
            for (int b = 0; b < d; b++) {
                double v = 0; /* (W^T Sigma W)_{ab} = sum_c W_{ca} (Sigma W)_{cb} */
                for (int c = 0; c < d; c++) v += I->W[c * d + a] * T[c * d + b];
                e += v * I->Sig[b * d + a];
            }
        free(T);
        sc = sqrt(st / e);
    } else {
        lm_pcmc_set_query(m, I->xj);
        sc = sqrt(st / m->s);
    }
    lm_pcmc_free(m);
    if (!isfinite(sc)) return lm_fail(ev, "could not scale W_KQ to s_target");
    for (int k = 0; k < d * d; k++) I->W[k] *= sc;
    I->q_fixed = 0;
    for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++) I->q_fixed += I->xj[a] * I->W[a * d + b] * I->xj[b];
    return 0;
}

static void inst_free(inst_t *I)
{
    if (I->P) lm_pc_free(I->P);
    free(I->Sig);
    free(I->W);
    free(I->xj);
}

/* batch estimate at one query: bias (U-statistic) or variance; returns value, se;
 * g_mean/g_se: the Poincare term (COND_VAR only) */
static void at_query(double *val, double *se, double *gm, double *gse, lm_pcmc *m, lm_pcmo_qty qty,
                     int var, int M, uint64_t key, int want_grad)
{
    int d = m->d, D = d * d, n = M / PCMO_K;
    double *bm = dz(PCMO_K * D), *b2 = dz(D), *f = dz(D), *hc = dz(D), bv[PCMO_K];
    lm_welford wg;
    lm_welford_init(&wg);
    for (int k = 0; k < PCMO_K; k++) {
        double *mk = bm + k * D;
        memset(b2, 0, sizeof(double) * (size_t)D);
        for (int t = 0; t < n; t++) {
            lm_rng g;
            lm_rng_init(&g, lm_hash_u64(key, (uint64_t)(k * n + t)));
            lm_pcmc_draw(m, &g);
            deviation(f, m, qty);
            if (!var) { /* bias: subtract the exact zero-mean control variate */
                control(hc, m, qty);
                for (int e = 0; e < D; e++) f[e] -= hc[e];
            }
            for (int e = 0; e < D; e++) {
                mk[e] += f[e];
                b2[e] += f[e] * f[e];
            }
            if (want_grad) lm_welford_add(&wg, lm_pcmo_grad_term(m, qty));
        }
        double v = 0;
        for (int e = 0; e < D; e++) {
            v += (b2[e] - mk[e] * mk[e] / n) / (n - 1);
            mk[e] /= n;
        }
        bv[k] = v;
    }
    if (!var) {
        lm_pcmo_sqnorm(val, se, bm, PCMO_K, D);
    } else {
        lm_welford w;
        lm_welford_init(&w);
        for (int k = 0; k < PCMO_K; k++) lm_welford_add(&w, bv[k]);
        *val = w.mean;
        *se = lm_welford_se(&w);
    }
    if (want_grad) {
        *gm = wg.mean;
        *gse = lm_welford_se(&wg);
    }
    free(bm);
    free(b2);
    free(f);
    free(hc);
}

static const char *qname(lm_pcmo_mode mode, lm_pcmo_qty qty)
{
    static const char *const nm[5][2] = {
        {"||E_{-j} zz^T - mu mu^T||_F^2", "||E_{-j} C_j - Sigma||_F^2"},
        {"E_j ||E_{-j} zz^T - mu mu^T||_F^2", "E_j ||E_{-j} C_j - Sigma||_F^2"},
        {"E_j Var_{-j}(zz^T)", "E_j Var_{-j}(C_j)"},
        {"E ||zz^T - mu mu^T||_F^r", "E ||C_j - Sigma||_F^r"},
        {"Var_{-j}(zz^T)", "Var_{-j}(C_j)"}};
    return nm[mode][qty];
}

int lm_pcmo_run(lm_eval *ev, lm_pcmo_mode mode, lm_pcmo_qty qty, double power, double r, int J)
{
    int integrated = mode == LM_PCMO_INT_BIAS || mode == LM_PCMO_INT_VAR || mode == LM_PCMO_JOINT_MOMENT;
    double e = lm_par(ev, "exponent"), tol = lm_par(ev, "tol"), cimax = lm_par(ev, "ci_max");
    double rsemax = lm_par(ev, "rel_se_max");
    int Nmin = lm_par_i(ev, "N_min"), Nmax = lm_par_i(ev, "N_max"), M = lm_par_i(ev, "M");
    if (Nmin < 2 || Nmax < 2 * Nmin) return lm_fail(ev, "grid needs 2 <= N_min and 2 N_min <= N_max");
    if (M < 4 * PCMO_K) return lm_fail(ev, "M must be >= %d", 4 * PCMO_K);
    inst_t I;
    memset(&I, 0, sizeof I);
    if (setup(&I, ev, integrated) < 0) {
        inst_free(&I);
        return -1;
    }
    int d = I.d;
    const char *name = qname(mode, qty);
    if (mode == LM_PCMO_COND_BIAS && power == 0.5) /* the unsquared norm (switch `norm` of lemmas 15, 20) */
        name = qty == LM_PCMO_C ? "||E_{-j} C_j - Sigma||_F" : "||E_{-j} zz^T - mu mu^T||_F";
    char rname[80];
    if (mode == LM_PCMO_JOINT_MOMENT) {
        snprintf(rname, sizeof rname, "%s", name);
        char *q = strstr(rname, "^r");
        if (q) snprintf(q, sizeof rname - (size_t)(q - rname), "^%g", r);
        name = rname;
    }
    double lx[PCMO_NG], ly[PCMO_NG], Q[PCMO_NG], tN[PCMO_NG];
    int Ns[PCMO_NG], ng = 0;
    for (int N = Nmin; N <= Nmax && ng < PCMO_NG; N *= 2) Ns[ng++] = N;
    /* the horizon may be doubled (rate rule) up to the resource bound of N_max, at most twice */
    int Nhi = 4 * Ns[ng - 1];
    for (const lm_param_def *pd = ev->claim->params; pd && pd->name; pd++) {
        lm_range rg;
        if (strcmp(pd->name, "N_max") == 0 && lm_param_range(&rg, pd) == 0 && rg.hi < Nhi) Nhi = (int)rg.hi;
    }
    uint64_t key = lm_hash_u64(ev->seed, 0x63746bULL), qkey = lm_hash_u64(ev->seed, 0x71ULL);
    double worst_rse = 0, max_pratio = 0;
    int rc = 0, noisy = 0, ext_noisy = 0, ng0 = ng;
    lm_rate_fit rf, prev;
    lm_series_axes(ev, "context size N", name, 1);
    double *xq = dz(d);
    for (int gi = 0;; gi++) {
        if (gi >= ng) {
            if (rc || noisy) break;
            /* the rate rule of lm_stats.h: the window N in [N_max/8, N_max] (the smaller N are the
             * pre-asymptotic part), its slope stable against the window [N_max/16, N_max/2]; an
             * unstable slope doubles the horizon while the resource bound allows */
            for (int k = 0; k < ng; k++) tN[k] = Ns[k];
            lm_rate_fit_seq(&rf, tN, ly, ng, e, -1, tol, 0.95, lm_par(ev, "stab_tol"));
            if (ng > ng0 && !(rf.hi - rf.lo <= cimax)) { /* too noisy at the doubled horizon: keep the last */
                lm_measure(ev, "horizon not doubled: slope CI too wide at N_max", Ns[ng - 1]);
                rf = prev;
                ng--;
                break;
            }
            if (rf.decision != LM_RATE_TOO_SHORT || rf.n < 4 || rf.n_half < 4 || ext_noisy || ng == PCMO_NG ||
                2 * Ns[ng - 1] > Nhi || !(rf.hi - rf.lo <= cimax))
                break;
            prev = rf;
            Ns[ng] = 2 * Ns[ng - 1];
            ng++;
        }
        int N = Ns[gi];
        lm_pcmc *m = lm_pcmc_new(I.P, N, I.xj, I.W);
        double val = 0, se = 0;
        if (mode == LM_PCMO_COND_BIAS || mode == LM_PCMO_COND_VAR) {
            double gm = 0, gse = 0;
            int grad = mode == LM_PCMO_COND_VAR;
            at_query(&val, &se, &gm, &gse, m, qty, mode == LM_PCMO_COND_VAR, M, key, grad);
            if (grad) {
                double ps = lm_par(ev, "poincare_scale");
                if (!isfinite(gm) || !isfinite(gse)) {
                    rc = lm_fail(ev, "non-finite Poincare term at N=%d", N);
                    lm_pcmc_free(m);
                    break;
                }
                lm_obs_le_d(ev, -1, fmax(val - 2 * se, 0.0) + 1e-300, ps * (gm + 2 * gse) + 1e-300, 0.0,
                            "Poincare: %s <= sum_l E||grad_{x_l} F Sigma^1/2||^2 at N=%d (2 SE each side)",
                            name, N);
                if (gm > 0 && val / gm > max_pratio) max_pratio = val / gm;
                lm_series(ev, "Poincare term (MC)", N, gm);
            }
        } else if (mode == LM_PCMO_INT_BIAS || mode == LM_PCMO_INT_VAR) {
            lm_rng gq;
            lm_rng_init(&gq, qkey);
            double sv = 0, sse = 0;
            for (int j = 0; j < J; j++) {
                double v1, s1, g1, g2;
                lm_pcmc_sample_x(m, xq, &gq); /* the same J queries at every N */
                lm_pcmc_set_query(m, xq);
                at_query(&v1, &s1, &g1, &g2, m, qty, mode == LM_PCMO_INT_VAR, M,
                         lm_hash_u64(key, (uint64_t)j), 0);
                sv += v1;
                sse += s1 * s1;
            }
            val = sv / J;
            se = sqrt(sse) / J;
        } else { /* joint moment */
            lm_welford w;
            lm_welford_init(&w);
            double *f = dz(d * d);
            for (int t = 0; t < M; t++) {
                lm_rng gq, g;
                lm_rng_init(&gq, lm_hash_u64(qkey, (uint64_t)t));
                lm_pcmc_sample_x(m, xq, &gq);
                lm_pcmc_set_query(m, xq);
                lm_rng_init(&g, lm_hash_u64(key, (uint64_t)t));
                lm_pcmc_draw(m, &g);
                deviation(f, m, qty);
                double n2 = 0;
                for (int k = 0; k < d * d; k++) n2 += f[k] * f[k];
                lm_welford_add(&w, pow(n2, r / 2));
            }
            free(f);
            val = w.mean;
            se = lm_welford_se(&w);
        }
        lm_pcmc_free(m);
        if (!isfinite(val) || !isfinite(se)) {
            rc = lm_fail(ev, "non-finite Monte Carlo estimate at N=%d", N);
            break;
        }
        Q[gi] = val;
        if (!(val > 0) || se > rsemax * val) {
            if (gi >= ng0) { /* an extension point: the horizon stays where it was */
                lm_measure(ev, "horizon not doubled: a point too noisy at N", N);
                ext_noisy = 1;
                ng--;
                continue;
            }
            if (!noisy)
                lm_assume(ev, 0, "MC too noisy: %s = %.3g +- %.3g (SE) at N=%d (rel_se_max %.2g)", name, val,
                          se, N, rsemax);
            noisy = 1;
            continue;
        }
        if (se / val > worst_rse) worst_rse = se / val;
        lx[gi] = log((double)N);
        ly[gi] = power * log(val);
        lm_series(ev, name, N, pow(val, power));
    }
    free(xq);
    if (rc || noisy) {
        inst_free(&I);
        return rc;
    }
    if (ng > ng0) lm_measure(ev, "horizon N_max used (doubled while the slope was unstable)", Ns[ng - 1]);
    if (rf.n >= 4 && rf.n_half >= 4 && !(isfinite(rf.slope) && isfinite(rf.slope_half))) {
        inst_free(&I);
        return lm_fail(ev, "slope fit failed");
    }
    if (integrated) {
        lm_measure(ev, "E_j s_j", lm_par(ev, "s_target"));
    } else {
        lm_measure(ev, "s_j at the query", lm_par(ev, "s_target"));
        lm_measure(ev, "q_j at the query", I.q_fixed);
    }
    lm_measure(ev, "claimed exponent", e);
    lm_measure(ev, "worst relative SE of a point", worst_rse);
    lm_measure(ev, "N_max^(-e) x quantity at N_max (implied constant)",
               pow(Q[ng - 1], power) * pow((double)Ns[ng - 1], -e));
    if (mode == LM_PCMO_COND_VAR) lm_measure(ev, "max Var / Poincare term (point estimates)", max_pratio);
    if (rf.n >= 4) {
        double a = 0; /* the fitted line through the window's centroid */
        int m = 0;
        for (int gi = 0; gi < ng; gi++)
            if (tN[gi] >= rf.t_lo) { a += ly[gi] - rf.slope * lx[gi]; m++; }
        a /= m;
        for (int gi = 0; gi < ng; gi++)
            if (tN[gi] >= rf.t_lo) lm_series(ev, "fitted line", Ns[gi], exp(a + rf.slope * lx[gi]));
        lm_measure(ev, "slope 95% CI low", rf.lo);
        lm_measure(ev, "slope 95% CI high", rf.hi);
        /* the Monte Carlo admissibility gate on the interval of the judged window */
        if (!lm_assume(ev, rf.hi - rf.lo <= cimax,
                       "MC too noisy: slope CI [%.3f, %.3f] on N in [%g, %g] wider than ci_max %.2g", rf.lo, rf.hi,
                       rf.t_lo, rf.t_hi, cimax)) {
            inst_free(&I);
            return 0;
        }
    }
    lm_rate_judge(ev, &rf, name);
    inst_free(&I);
    return 0;
}
