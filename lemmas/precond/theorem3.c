/* lemmas/precond/theorem3.c
 *
 * \claim{precond/theorem3}{Uniform approximation of the expected empirical gradient of $\hat L_{\rm reg}$}
 * \source{preconditioned-softmax-regression, Theorem 3}
 * \statement{There is $C_3=C_3(d,k,\Sigma,W_\star,\sigma)$ such that every $\theta$ that is
 *   $\delta_7$-close to $\mathcal M$ satisfies, for all sufficiently large $N$,
 *   $\|\mathbb E\nabla\hat L_{\rm reg}(\theta)-\nabla L_{\rm reg}(\theta)\|_F^2\le C_3/N$
 *   (Theorem 4 plus Theorem 5 with (8)).}
 * \check{The bias splits exactly as $(\mathbb E\nabla\hat L-\nabla L)+(\mathbb E\nabla\hat R-\nabla R)$.
 *   The first part is the Monte Carlo estimate of \texttt{precond/theorem4} (in-sample gradient,
 *   \texttt{M} = 256 batches per $N$, common random numbers across $N$, the population-limit
 *   summand and the mean-zero response-noise terms as control variates), the second the exact
 *   Wick polynomial of \texttt{precond/theorem5}; both at the same $\theta$.  Instances: $d=2,k=3$,
 *   $\Sigma=GG^\top/d+0.5I$, $s_1=\tau\in\{0.01,0.1\}$ (configurations), $\theta=\theta_R+\Delta$ with
 *   $R$ Haar and $\|\Delta\|_\Sigma=\rho\,\delta_r$, $\rho$ alternating between \texttt{rho} (0.5)
 *   and 1 (the edge of the reconstructed tube; the paper's $\delta_7$ is lost).  $N=8,\dots,256$.
 *   The squared bias is debiased by its MC noise, and must exceed \texttt{snr} (4) times that noise
 *   at every $N$, else assumption-failed (MC too noisy).  Proxy, by the rate rule (\texttt{lm\_rate\_fit\_seq}): the slope
 *   of $\log\|\text{bias}\|_F^2$ against $\log N$ with its 95\% $t$-interval, fitted on the asymptotic
 *   window $N\in[32,256]$ (the last three doublings of the horizon 256, which the grid reached up to 128
 *   before; $N=8,16$ are pre-asymptotic) and on $[16,128]$; slopes differing by more than
 *   $\max(0.05,2\sqrt{{\rm se}^2+{\rm se}_{1/2}^2})$: not-checkable (horizon too short); an interval wider than
 *   \texttt{maxw} (1.5): assumption-failed; observed: lower end $\le$ \texttt{claimed}$+$\texttt{tol}
 *   ($-1+0.1$), inconsistent only when the whole interval lies above.  The \texttt{M} batches are
 *   not halved in quick mode (with 128 the slope's drift at $N=256$ is at the MC noise level).  The catalogue's sup over the tube by Nelder--Mead is replaced by a screening
 *   on the odd instances (radius $\delta_r$): \texttt{candidates} (8) random tube-edge points are
 *   scored by $16\|\text{bias}\|^2$ at $N=16$ (64 batches) and the largest one is fitted (each full
 *   evaluation is a Monte Carlo run, too costly for the runner's search).  Measured: slope, CI,
 *   $N\|\text{bias}\|^2$ at $N=8$ and $N=256$ (the proxy ``$\sup N\|\text{bias}\|^2$ bounded''),
 *   and the share of the regulariser part.  A claimed exponent $-3$ comes out inconsistent.}
 */
#include "lm_pcb.h"
#include <math.h>
#include <stdio.h>

static const char *const configs[] = {"tube d=2,k=3,tau=0.01", "tube d=2,k=3,tau=0.1", NULL};

#define PARAMS(NUM, SWITCH)                                                                                                                                                                \
    NUM(claimed, -1.0, "exponent [-10, 10]", "claimed exponent of N in ||bias||^2 (paper: -1)")                                                                                            \
    NUM(tol, 0.1, "setting [-10, 10]", "tolerance on the slope: inconsistent when the whole 95% CI lies above claimed + tol")                                                              \
    NUM(maxw, 1.5, "setting [0, 100]", "largest admissible width of the 95% CI of the slope on the window [N_max/8, N_max] (else: MC too noisy)")                                          \
    NUM(snr, 4.0, "setting [0, 1e6]", "minimal ||bias||^2 / (MC noise of ||bias||^2) at every N")                                                                                          \
    NUM(rho, 0.5, "[0, 10]", "||Delta||_Sigma = rho * delta_r on even instances (odd: 1)")                                                                                                 \
    NUM(M, 256, "int [4, 4000]", "batches per N (quick mode too: fewer batches leave the fitted slope at N = 256 unstable by MC noise alone; at least 4; at most 4000: run length bound)") \
    NUM(candidates, 8, "int [1, 64]", "odd instances: tube-edge points screened for the largest bias (at most 64)")
LM_PARAMS(PARAMS)

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    int d = 2, k = 3, nv = k * d + d * d;
    double tau = ev->config == 0 ? 0.01 : 0.1;
    double rho = ev->index % 2 ? 1.0 : prm.rho;
    lm_rng *g = lm_eval_rng(ev);
    lm_ctx cd = lm_ctx_double();
    lm_pcth th;
    lm_pcdata *P = lm_pcb_inst(&th, d, k, 0.5, tau, rho, g, &cd);
    if (!P) return lm_fail(ev, "instance generation failed");
    int M = lm_int(prm.M);
    uint64_t key = lm_hash_u64(ev->seed, 0xb1a5);
    int nc = lm_int(prm.candidates);
    if (ev->index % 2 && nc > 1) {
        /* screening: the candidate of the tube edge with the largest N ||bias||^2 at N = 16 */
        lm_pcth c = lm_pc_th_new(P), Gc = lm_pc_th_new(P);
        double best = -HUGE_VAL, score[64];
        for (int ci = 0; ci < nc && ci < 64; ci++) {
            if (ci > 0) lm_pcb_tube_point(&c, P, rho, g);
            else lm_pc_th_copy(&c, &th);
            lm_pcb_rbias Bc;
            lm_pcb_rbias_init(&Bc, P, &c);
            double bias[64], var[64], br[64];
            lm_pcb_lbias_mc(bias, var, P, &c, 16, 64, lm_hash_u64(key, 0x5c), 0.0);
            lm_pcb_rbias_at(&Gc, &Bc, 16, 0);
            lm_mat_get_array(br, Gc.V);
            lm_mat_get_array(br + k * d, Gc.KQ);
            double b2 = 0;
            for (int e = 0; e < nv; e++) b2 += (bias[e] + br[e]) * (bias[e] + br[e]) - var[e];
            score[ci] = 16.0 * b2;
            lm_pcb_rbias_clear(&Bc);
            if (score[ci] > best) {
                best = score[ci];
                if (ci > 0) lm_pc_th_copy(&th, &c);
            }
        }
        lm_measure(ev, "screened candidates", nc);
        lm_measure(ev, "best screened N||bias||^2 at N=16", best);
        lm_pc_th_free(&c);
        lm_pc_th_free(&Gc);
    }
    lm_pcb_rbias B;
    lm_pcb_rbias_init(&B, P, &th);
    lm_pcth G = lm_pc_th_new(P);
    double Ns[8], v[8], snr = prm.snr, shareR = 0;
    int n = 0, rc = 0;
    lm_series_axes(ev, "N", "||E grad L_reg_hat - grad L_reg||_F^2", 1);
    for (int N = 8; N <= 256 && !rc; N *= 2, n++) {
        double bias[64], var[64], br[64];
        lm_pcb_lbias_mc(bias, var, P, &th, N, M, key, 0.0);
        lm_pcb_rbias_at(&G, &B, N, 0);
        lm_mat_get_array(br, G.V);
        lm_mat_get_array(br + k * d, G.KQ);
        double b2 = 0, nz = 0, r2 = 0;
        for (int e = 0; e < nv; e++) {
            double t = bias[e] + br[e];
            b2 += t * t;
            nz += var[e];
            r2 += br[e] * br[e];
        }
        if (!isfinite(b2) || !isfinite(nz)) { rc = lm_fail(ev, "bias not finite at N=%d", N); break; }
        Ns[n] = N;
        v[n] = b2 - nz;
        shareR = r2 / v[n];
        if (!lm_assume(ev, v[n] >= snr * nz, "MC too noisy at N=%d: ||bias||^2=%.3g (noise %.3g)", N, v[n], nz)) {
            rc = 1;
            break;
        }
        lm_series(ev, "||bias||^2", N, v[n]);
        lm_series(ev, "||bias of grad R_hat||^2 (exact)", N, r2);
    }
    if (!rc) {
        lm_measure(ev, "N ||bias||^2 at N=8", 8.0 * v[0]);
        lm_measure(ev, "N ||bias||^2 at N=256", 256.0 * v[n - 1]);
        lm_measure(ev, "regulariser share ||bias_R||^2/||bias||^2 at N=256", shareR);
        int r = lm_pcb_rate(ev, "total", Ns, v, n, prm.claimed, prm.tol, prm.maxw);
        if (r < 0) rc = -1;
    }
    lm_pc_th_free(&G);
    lm_pcb_rbias_clear(&B);
    lm_pc_th_free(&th);
    lm_pc_free(P);
    return rc < 0 ? -1 : 0;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "Tube points in the A3 regime (d = 2, k = 3, s_1 = tau = 0.01), ||D|| in {0.5, 1} delta_r: "
     "slope of log ||E grad L-hat_reg - grad L_reg||^2 against log N, N = 8..256, at most -1 + "
     "0.1.",
     NULL},
    {LM_READ_PAPER,
     "Tube points with a larger signal (d = 2, k = 3, s_1 = tau = 0.1), ||D|| in {0.5, 1} "
     "delta_r: slope of the squared gradient bias against log N, N = 8..256, at most -1 + 0.1.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_precond_theorem3) = {
    .kind = LM_KIND_RATE,
    .source = "Theorem 3",
    .origin = "reconstructed",
    .confidence = "medium",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.03125,
    .proxy = 1,
    .no_replay = 1,
    .eval = eval,
};
