/* lemmas/precond/lemma12.c
 *
 * \claim{precond/lemma12}{Integrated bias of the attention average $z_j$ (statement lost; reconstructed)}
 * \source{preconditioned-softmax-regression, Lemma 12 (statement lost; reconstructed from Lemma 11)}
 * \statement{$\mathbb E_j\|\mathbb E_{-j}z_j-\mu_j\|^2\lesssim N^{-2}$ (squaring Lemma 11 and taking $\mathbb E_j$;
 *   finite by Lemma 7).  If the paper's form is the looser $\lesssim1/N$, it is implied.}
 * \check{Nested Monte Carlo in double (no MPFR replay), kind rate (proxy).  Outer: \texttt{K} (20)
 *   queries $x_j\sim\mathcal N(0,\Sigma)$, the same for every $N$.  Inner: the conditional bias from
 *   Lemma 11's exact identity, $b(x_j)=\overline{p_{jj}}(x_j-\mu_j)-\overline{\textstyle\sum_{i\ne j}p_{ij}^2}\,\mu_j$,
 *   with \texttt{S\_in} (150) context draws (common random numbers across $N$: nested contexts),
 *   far less noisy than $\bar z_j-\mu_j$ (the identity itself is checked by \texttt{precond/lemma11});
 *   $\|b\|^2$ is debiased by the inner standard errors, $\mathrm{SE}(\overline{p_{jj}})^2\|x_j-\mu_j\|^2+
 *   \mathrm{SE}(\overline{\sum p^2})^2\|\mu_j\|^2$.  Instances as \texttt{precond/lemma13}: $d=2$,
 *   $\Sigma=GG^\top/2+0.5I$, $W_{KQ}$ from a point of the tube ($s_1=0.01$) or
 *   $\Sigma^{-1/2}B\Sigma^{-1/2}$ with $\|B\|_{op}=$ \texttt{b\_op} (0.1).  $N=16,\dots,256$.  The limit
 *   $N^2\|b\|^2\to\|e^{q_j-s_j/2}(x_j-\mu_j)-e^{s_j}\mu_j\|^2$ has a finite $\mathbb E_j$ only while
 *   $2\lambda_{\max}(\mathrm{sym}B)<\frac12$ (the integrability of Lemma 7, which holds in the tube): with
 *   \texttt{b\_op}$=0.3$ we measured $N^2\mathbb E_j\|b\|^2$ growing from 36 to 139 over $N=16..256$
 *   (slope $-1.52$, inconsistent: outside the lemma's hypotheses), with 0.15 from 9.6 to 13.1
 *   (slope $-1.89$, still pre-asymptotic), so the default is 0.1.  Proxy, by the
 *   rate rule (\texttt{lm\_rate\_fit\_seq}): the slope of $\log\mathbb E_j\|b\|^2$ against $\log N$ with its
 *   95\% $t$-interval, fitted on the asymptotic window $N\in[32,256]$ (the last three doublings of the
 *   horizon 256; $N=16$ is discarded as pre-asymptotic) and on $[16,128]$; slopes differing by more than
 *   $\max(0.05,2\sqrt{{\rm se}^2+{\rm se}_{1/2}^2})$: not-checkable (horizon too short); an interval wider than
 *   \texttt{maxw} (0.6): assumption-failed; observed: lower end $\le$ \texttt{claimed}$+$\texttt{tol}
 *   ($-2+0.2$), inconsistent only when the whole interval lies above.  A claimed $-3$ comes out
 *   inconsistent.  Measured: the slopes on both windows, the CI,
 *   $N^2\,\mathbb E_j\|b\|^2$ at both ends.  Readings: \texttt{tube tau=0.01} reads the paper; \texttt{random W\_KQ}
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
    NUM(claimed, -2.0, "exponent [-10, 10]", "claimed exponent of N")                                                                             \
    NUM(tol, 0.2, "setting [-10, 10]", "tolerance on the slope: inconsistent when the whole 95% CI lies above claimed + tol")                     \
    NUM(maxw, 0.6, "setting [0, 100]", "largest admissible width of the 95% CI of the slope on the window [N_max/8, N_max] (else: MC too noisy)") \
    NUM(b_op, 0.1, "[0, 10]", "random W_KQ: ||Sigma^1/2 W_KQ Sigma^1/2||_op")                                                                     \
    NUM(K, 20, "int [1, 200]", "outer queries (at most 200: run length bound)")                                                                   \
    NUM(S_in, 150, "int [4, 1000]", "inner context draws per query and N (quick: S_in/2; at least 4: two draws; at most 1000: run length bound)")
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
    int K = lm_int(prm.K), S = lm_int(prm.S_in);
    if (ev->quick) S /= 2;
    double Ns[8], v[8], x0[2] = {0, 0};
    int n = 0, rc = 0;
    lm_series_axes(ev, "N", "E_j ||E_{-j} z_j - mu_j||^2", 1);
    for (int N = 16; N <= 256; N *= 2, n++) {
        lm_pcmc *mc = lm_pcmc_new(P, N, x0, W);
        lm_welford wo;
        lm_welford_init(&wo);
        for (int o = 0; o < K; o++) {
            lm_rng G;
            lm_rng_init(&G, lm_hash_u64(ev->seed, (uint64_t)(1000003 * o + 1)));
            double xj[2];
            lm_pcmc_sample_x(mc, xj, &G);
            lm_pcmc_set_query(mc, xj);
            lm_welford wj, wq;
            lm_welford_init(&wj);
            lm_welford_init(&wq);
            for (int t = 0; t < S; t++) {
                lm_rng_init(&G, lm_hash_u64(lm_hash_u64(ev->seed, (uint64_t)o), (uint64_t)t));
                lm_pcmc_draw(mc, &G);
                double sp2 = 0;
                for (int i = 1; i < N; i++) sp2 += mc->p[i] * mc->p[i];
                lm_welford_add(&wj, mc->p[0]);
                lm_welford_add(&wq, sp2);
            }
            double nb = 0, nx = 0, nm = 0;
            for (int a = 0; a < d; a++) {
                double xm = xj[a] - mc->mu[a], b = wj.mean * xm - wq.mean * mc->mu[a];
                nb += b * b;
                nx += xm * xm;
                nm += mc->mu[a] * mc->mu[a];
            }
            double sj = lm_welford_se(&wj), sq = lm_welford_se(&wq);
            lm_welford_add(&wo, nb - sj * sj * nx - sq * sq * nm);
        }
        lm_pcmc_free(mc);
        if (!isfinite(wo.mean)) { rc = lm_fail(ev, "MC not finite at N=%d", N); break; }
        Ns[n] = N;
        v[n] = wo.mean;
        lm_series(ev, "E_j ||b||^2", N, wo.mean);
    }
    if (!rc) {
        lm_measure(ev, "N^2 E_j||b||^2 at N=16", 256.0 * v[0]);
        lm_measure(ev, "N^2 E_j||b||^2 at N=256", 65536.0 * v[n - 1]);
        int r = lm_pcb_rate(ev, "log E_j||E_{-j} z_j - mu_j||^2 vs log N", Ns, v, n, prm.claimed,
                            prm.tol, prm.maxw);
        if (r < 0) rc = -1;
    }
    lm_pc_th_free(&th);
    lm_pc_free(P);
    return rc < 0 ? -1 : 0;
}

LM_CLAIM(claim_precond_lemma12) = {
    .kind = LM_KIND_RATE,
    .source = "Lemma 12 (statement lost)",
    .origin = "reconstructed",
    .confidence = "low",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.03125,
    .proxy = 1,
    .no_replay = 1,
    .eval = eval,
};
