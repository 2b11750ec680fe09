/* lemmas/precond/lemma13.c
 *
 * \claim{precond/lemma13}{Total error of the attention average $z_j$ (statement lost; reconstructed)}
 * \source{preconditioned-softmax-regression, Lemma 13 (statement lost; reconstructed from its use in Theorem 4)}
 * \statement{$\mathbb E\|z_j-\mu_j\|^2\lesssim\frac1N$ (bias--variance with Lemmas 12 and 14), possibly weighted
 *   as $\mathbb E\|x_j\|^2\|z_j-\mu_j\|^2\lesssim\frac1N$, the expectation over the query $x_j$ and the
 *   context jointly.}
 * \check{Monte Carlo in double (no MPFR replay), kind rate (proxy).  Each draw: a fresh query
 *   $x_j\sim\mathcal N(0,\Sigma)$ and a fresh context of $N-1$ covariates, in-sample softmax
 *   (log-sum-exp), $\mu_j=\Sigma W_{KQ}x_j$.  Instances: $d=2$, $\Sigma=GG^\top/2+0.5I$; configuration
 *   \texttt{tube}: $W_{KQ}$ of a point $\theta=\theta_R+\Delta$ in the tube, $\|\Delta\|_\Sigma=0.5\delta_r$,
 *   $s_1=\tau=0.01$ (the A3 regime, $s_j\approx0.01\|\xi\|^2$); configuration \texttt{random W\_KQ}:
 *   $W_{KQ}=\Sigma^{-1/2}B\Sigma^{-1/2}$ with $B$ Gaussian rescaled to $\|B\|_{op}=$ \texttt{b\_op} (0.3), so
 *   $s_j=\|B\Sigma^{-1/2}x_j\|^2\le0.09\|\xi\|^2$ (moderate exponential moments, Lemma 7).  $N=16,\dots,256$,
 *   \texttt{S} (3000) draws per $N$, common random numbers across $N$ (draw $t$ uses the same query and
 *   nested contexts, the first $N-1$ covariates of one stream).  Proxy, by the rate rule (\texttt{lm\_rate\_fit\_seq}), for both
 *   $\mathbb E\|z_j-\mu_j\|^2$ and $\mathbb E\|x_j\|^2\|z_j-\mu_j\|^2$: the slope of the log against $\log N$ with
 *   its 95\% $t$-interval, fitted on the asymptotic window $N\in[32,256]$ ($N=16$ is discarded as
 *   pre-asymptotic) and on $[16,128]$; slopes differing by more than $\max(0.05,2\sqrt{{\rm se}^2+{\rm se}_{1/2}^2})$:
 *   not-checkable (horizon too short); an interval wider than \texttt{maxw} (0.5): assumption-failed;
 *   observed: lower end $\le$ \texttt{claimed}$+$\texttt{tol} ($-1+0.1$), inconsistent only when the whole
 *   interval lies above.  A claimed $-2$ comes out inconsistent.  Measured: slopes on both windows, CIs,
 *   $N\,\mathbb E\|z_j-\mu_j\|^2$ at $N=256$.  Readings: \texttt{tube tau=0.01} reads the paper; \texttt{random W\_KQ}
 *   is a probe ($W_{KQ}$ not near $\mathcal M$, beyond the lemma's $\delta_7$-tube).}
 */
#include "lm_pcb.h"
#include <math.h>
#include <stdio.h>

static const char *const configs[] = {"tube tau=0.01", "random W_KQ", NULL};
static const lm_reading readings[] = {
    {LM_READ_PAPER, "W_KQ from a point of the delta_7-tube (A3 regime, s_1 = 0.01)", NULL},
    {LM_READ_PROBE,
     "a random W_KQ with ||Sigma^1/2 W_KQ Sigma^1/2||_op = b_op, not near the manifold: beyond the lemma's "
     "delta_7-tube",
     NULL},
    LM_READINGS_END};

#define PARAMS(NUM, SWITCH)                                                                                                                       \
    NUM(claimed, -1.0, "exponent [-10, 10]", "claimed exponent of N")                                                                             \
    NUM(tol, 0.1, "setting [-10, 10]", "tolerance on the slope: inconsistent when the whole 95% CI lies above claimed + tol")                     \
    NUM(maxw, 0.5, "setting [0, 100]", "largest admissible width of the 95% CI of the slope on the window [N_max/8, N_max] (else: MC too noisy)") \
    NUM(b_op, 0.3, "[0, 10]", "random W_KQ: ||Sigma^1/2 W_KQ Sigma^1/2||_op")                                                                     \
    NUM(S, 3000, "int [8, 50000]", "draws per N (quick: S/4; at least 8: two draws; at most 50000: run length bound)")
LM_PARAMS(PARAMS)

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    int d = 2;
    lm_rng *g = lm_eval_rng(ev);
    lm_ctx cd = lm_ctx_double();
    lm_pcth th;
    lm_pcdata *P = lm_pcb_inst(&th, d, 3, 0.5, 0.01, 0.5, g, &cd);
    if (!P) return lm_fail(ev, "instance generation failed");
    double W[4];
    if (lm_pcb_wkq(W, P, &th, ev->config, prm.b_op, g)) {
        lm_pc_th_free(&th);
        lm_pc_free(P);
        return lm_fail(ev, "SVD failed");
    }
    int S = lm_int(prm.S);
    if (ev->quick) S /= 4;
    double Ns[8], v1[8], v2[8], x0[2] = {0, 0};
    int n = 0, rc = 0;
    lm_series_axes(ev, "N", "E ||z_j - mu_j||^2", 1);
    for (int N = 16; N <= 256; N *= 2, n++) {
        lm_pcmc *mc = lm_pcmc_new(P, N, x0, W);
        lm_rng G;
        lm_welford w1, w2;
        lm_welford_init(&w1);
        lm_welford_init(&w2);
        for (int t = 0; t < S; t++) {
            double xj[2];
            /* common random numbers: draw t uses the same query and nested contexts for every N */
            lm_rng_init(&G, lm_hash_u64(ev->seed, (uint64_t)t));
            lm_pcmc_sample_x(mc, xj, &G);
            lm_pcmc_set_query(mc, xj);
            lm_pcmc_draw(mc, &G);
            double e = 0, nx = xj[0] * xj[0] + xj[1] * xj[1];
            for (int a = 0; a < d; a++) e += (mc->z[a] - mc->mu[a]) * (mc->z[a] - mc->mu[a]);
            lm_welford_add(&w1, e);
            lm_welford_add(&w2, nx * e);
        }
        lm_pcmc_free(mc);
        if (!isfinite(w1.mean) || !isfinite(w2.mean)) { rc = lm_fail(ev, "MC not finite at N=%d", N); break; }
        Ns[n] = N;
        v1[n] = w1.mean;
        v2[n] = w2.mean;
        lm_series(ev, "E||z_j - mu_j||^2", N, w1.mean);
        lm_series(ev, "E||x_j||^2 ||z_j - mu_j||^2", N, w2.mean);
    }
    if (!rc) {
        lm_measure(ev, "N E||z_j - mu_j||^2 at N=256", 256.0 * v1[n - 1]);
        double cl = prm.claimed, tl = prm.tol, mw = prm.maxw;
        int r = lm_pcb_rate(ev, "E||z_j - mu_j||^2", Ns, v1, n, cl, tl, mw);
        if (r == 0) r = lm_pcb_rate(ev, "E||x_j||^2||z_j - mu_j||^2", Ns, v2, n, cl, tl, mw);
        if (r < 0) rc = -1;
    }
    lm_pc_th_free(&th);
    lm_pc_free(P);
    return rc < 0 ? -1 : 0;
}

LM_CLAIM(claim_precond_lemma13) = {
    .kind = LM_KIND_RATE,
    .source = "Lemma 13 (statement lost)",
    .origin = "reconstructed",
    .confidence = "low-medium",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.03125,
    .proxy = 1,
    .no_replay = 1,
    .eval = eval,
};
