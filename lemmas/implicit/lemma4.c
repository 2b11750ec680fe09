/* lemmas/implicit/lemma4.c
 *
 * \claim{implicit/lemma4}{Small random initialisation}
 * \source{implicit-bias-self-attention, Lemma 4}
 * \statement{Let $W_0$ have i.i.d.\ $\mathcal N(0,\sigma_0^2)$ entries with
 *   $\sigma_0\le\frac{c}{B^2(\sqrt d+\sqrt{\log(1/\delta)})}$ and $\|x_{it}\|\le B$.  Then with
 *   probability at least $1-\delta$: $s^{(0)}_{i,\mathrm{opt}_i}\ge(1+(T-1)e^{2B^2\|W_0\|_2})^{-1}$ for
 *   every $i$, and $\|W_0\|_F\le C\sigma_0d$.  Derived explicit tail bounds (Gaussian Lipschitz
 *   concentration): $\Pr[\|W_0\|_2\le\sigma_0(2\sqrt d+\sqrt{2\log(2/\delta)})]\ge1-\delta/2$ and
 *   $\Pr[\|W_0\|_F\le\sigma_0(d+\sqrt{2\log(2/\delta)})]\ge1-\delta/2$.}
 * \check{Monte Carlo over independent draws of $W_0$ (\texttt{lm\_ibgen\_w0}) on one DM data set
 *   ($n=8$, $T=2$, $\zeta=1.5$, $\sigma=d^{-1/2}$) per configuration; $\sigma_0$ is set at the
 *   lemma's threshold with $c=1$ (parameter \texttt{c\_sigma}; the constant is lost).  A draw
 *   \emph{succeeds} for a given $\delta$ when all three events hold: the softmax lower bound for every
 *   $i$ (with $B$ the measured maximum token norm), the spectral-norm tail bound and the Frobenius
 *   tail bound (the latter is the explicit form of $\|W_0\|_F\le C\sigma_0 d$).  Both tail bounds are
 *   multiplied by \texttt{bound\_scale}.  With $k$ successes of $m$ draws, the compared inequality
 *   for each $\delta\in\{0.01,0.05,0.1\}$ is $1-\delta\le U$, $U$ the upper end of the Wilson score
 *   interval ($z=1.96$, parameter \texttt{z}): a break means the batch is statistically confident that
 *   the probability is below $1-\delta$.  Configurations: $d=100$ and $d=200$; $m=$\texttt{draws}
 *   $\cdot$ budget$/64$ draws at $d=100$ and a third of that at $d=200$ (at least 8; the SVD dominates the
 *   cost).  The norms and softmax values are computed in double
 *   (the events are far from their edges; the statistic is a count, so an MPFR replay reproduces
 *   the same counts).  Reported: frequencies, the worst ratio of each norm to its bound, the
 *   Clopper--Pearson-like Wilson bounds.  Wrong-constant test: \texttt{bound\_scale}$=0.9$ (the
 *   spectral norm concentrates near $2\sigma_0\sqrt d$, so the event then almost never holds).}
 */
#include "lm_claim.h"
#include "lm_attn.h"
#include "lm_ibgen.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const configs[] = {"W0 draws, d=100 (DM n=8)", "W0 draws, d=200 (DM n=8)", NULL};

#define PARAMS(NUM, SWITCH)                                                                                                                  \
    NUM(bound_scale, 1.0, "[0, 1e6]", "multiplies both tail bounds (spectral and Frobenius)")                                                \
    NUM(c_sigma, 1.0, "[0, 1e6]", "sigma0 = c_sigma / (B^2 (sqrt d + sqrt log(1/delta))) at delta = 0.01")                                   \
    NUM(z, 1.96, "[0, 1e3]", "Wilson score interval z")                                                                                      \
    NUM(draws, 192, "int [1, 400]", "W0 draws at d=100 at budget 64 (scaled by budget/64; d=200 uses a third; at most 400: run time bound)")
LM_PARAMS(PARAMS)

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    static const double deltas[3] = {0.01, 0.05, 0.1};
    const int d = ev->config == 1 ? 200 : 100;
    const double bs = P.bound_scale;
    const lm_ctx dc = lm_ctx_double();
    lm_rng *g = lm_eval_rng(ev);
    lm_ibgen_dm_opts o;
    lm_ibgen_dm_defaults(&o);
    o.d = d;
    o.n = 8;
    lm_attn_data *D = lm_ibgen_dm(&o, g, &dc);
    double B = 0.0;
    for (int i = 0; i < D->n; i++)
        for (int t = 0; t < D->T; t++) {
            double s = 0.0;
            for (int k = 0; k < d; k++) {
                const double x = lm_mat_get_d(D->X[i], t, k);
                s += x * x;
            }
            B = fmax(B, sqrt(s));
        }
    const double sigma0 = P.c_sigma / (B * B * (sqrt((double)d) + sqrt(log(1.0 / 0.01))));
    int m = (int)lrint(P.draws * ev->budget / 64.0 / (ev->config == 1 ? 3.0 : 1.0));
    if (m < 8) m = 8;
    long ok[3] = {0, 0, 0};
    double wspec = 0.0, wfro = 0.0, wsoft = 0.0;
    lm_mat *W = NULL, *q = lm_mat_new(d, 1, &dc), *xr = lm_mat_new(1, d, &dc);
    lm_num sm;
    lm_num_init(&sm, &dc);
    int rc = 0;
    for (int r = 0; r < m && !rc; r++) {
        W = lm_ibgen_w0(d, sigma0, g, &dc);
        if (lm_mat_smax(&sm, W)) {
            rc = lm_fail(ev, "spectral norm (SVD) failed at draw %d", r);
            lm_mat_free(W);
            break;
        }
        const double s2 = lm_num_get_d(&sm);
        double f2 = 0.0;
        for (int a = 0; a < d; a++)
            for (int b = 0; b < d; b++) {
                const double v = lm_mat_get_d(W, a, b);
                f2 += v * v;
            }
        const double fro = sqrt(f2);
        /* softmax event: s_opt >= 1/(1+(T-1) exp(2 B^2 ||W0||_2)) for every i */
        int soft = 1;
        const double sbound = 1.0 / (1.0 + (D->T - 1) * exp(2.0 * B * B * s2));
        for (int i = 0; i < D->n; i++) {
            double a[2], mx = -INFINITY, z = 0.0;
            for (int k = 0; k < d; k++) lm_mat_set_d(xr, 0, k, lm_mat_get_d(D->X[i], 0, k));
            lm_mat_mul(q, W, 0, xr, 1); /* W x_i1 */
            for (int t = 0; t < D->T; t++) {
                double s = 0.0;
                for (int k = 0; k < d; k++) s += lm_mat_get_d(D->X[i], t, k) * lm_mat_get_d(q, k, 0);
                a[t] = s;
                mx = fmax(mx, s);
            }
            for (int t = 0; t < D->T; t++) z += exp(a[t] - mx);
            const double sopt = exp(a[D->opt[i]] - mx) / z;
            if (!isfinite(sopt)) {
                rc = lm_fail(ev, "non-finite softmax at draw %d", r);
                break;
            }
            wsoft = fmax(wsoft, sbound / sopt);
            if (sopt < sbound) soft = 0;
        }
        for (int k = 0; k < 3; k++) {
            const double L = sqrt(2.0 * log(2.0 / deltas[k]));
            const double bspec = bs * sigma0 * (2.0 * sqrt((double)d) + L);
            const double bfro = bs * sigma0 * (d + L);
            if (k == 0) {
                wspec = fmax(wspec, s2 / bspec);
                wfro = fmax(wfro, fro / bfro);
            }
            ok[k] += soft && s2 <= bspec && fro <= bfro;
        }
        lm_mat_free(W);
    }
    lm_num_clear(&sm);
    lm_mat_free(q);
    lm_mat_free(xr);
    lm_attn_data_free(D);
    if (rc) return rc;
    const double z = P.z;
    lm_measure(ev, "d", d);
    lm_measure(ev, "draws", m);
    lm_measure(ev, "B (max token norm)", B);
    lm_measure(ev, "sigma0", sigma0);
    lm_measure(ev, "worst ||W0||_2 / bound (delta=0.01)", wspec);
    lm_measure(ev, "worst ||W0||_F / bound (delta=0.01)", wfro);
    lm_measure(ev, "worst softmax bound / s_opt", wsoft);
    for (int k = 0; k < 3; k++) {
        const double U = lm_ibgen_wilson_upper(ok[k], m, z);
        char name[64];
        snprintf(name, sizeof name, "fraction meeting all events (delta=%.2g)", deltas[k]);
        lm_measure(ev, name, (double)ok[k] / m);
        snprintf(name, sizeof name, "Wilson lower (delta=%.2g)", deltas[k]);
        lm_measure(ev, name, lm_ibgen_wilson_lower(ok[k], m, z));
        lm_obs_le_d(ev, -1, 1.0 - deltas[k], U, 0.0,
                    "%ld of %d W0 draws (d=%d, delta=%.2g) meet the events: 1-delta <= Wilson upper %.4g",
                    ok[k], m, d, deltas[k], U);
    }
    return 0;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "W_0 at the sigma_0 threshold (c = 1) on one DM set with d = 100, n = 8: softmax lower bound "
     "and both norm tail bounds jointly w.p. >= 1 - delta for delta in {0.01, 0.05, 0.1}.",
     NULL},
    {LM_READ_PAPER,
     "W_0 at the sigma_0 threshold (c = 1) on one DM set with d = 200, n = 8, a third of the "
     "draws: softmax lower bound and both tail bounds jointly w.p. >= 1 - delta, delta in {0.01, "
     "0.05, 0.1}.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_implicit_lemma4) = {
    .kind = LM_KIND_PROBABILISTIC,
    .source = "Lemma 4",
    .origin = "reconstructed",
    .confidence = "medium (structure), low (constants)",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 1.0 / 64,
    .eval = eval,
};
