/* lemmas/precond/theorem5.c
 *
 * \claim{precond/theorem5}{Bias of the empirical regulariser gradient is $O(1/N)$}
 * \source{preconditioned-softmax-regression, Theorem 5 (proof of Theorem 3)}
 * \statement{$\|\mathbb E\nabla\hat R(\theta)-\nabla R(\theta)\|_F^2\lesssim\frac1N$ for $\theta$ in the
 *   tube around $\mathcal M$ (in fact for any fixed $\theta$), where $\hat R$ is $R$ with $\Sigma$
 *   replaced by $\hat\Sigma=\frac1N\sum_ix_ix_i^\top$.  The proof writes $\hat\Sigma=\Sigma+\Delta_\Sigma$
 *   and expands $\nabla_{W_V}\hat R=T_1+T_2+T_3$ and $\nabla_{W_{KQ}}\hat R=T_1+\dots+T_4$ by order in
 *   $\Delta_\Sigma$, with $\mathbb ET_1=0$, $\|\mathbb ET_2\|\lesssim1/N$ and higher orders smaller.}
 * \check{Exact route, no Monte Carlo in the judged quantity.  With $P=W_V^\top W_V$ and $K=W_{KQ}$,
 *   $\nabla_{W_V}\hat R=4\lambda W_V(\hat\Sigma P\hat\Sigma-\hat\Sigma K\hat\Sigma K^\top\hat\Sigma)$ and
 *   $\nabla_{W_{KQ}}\hat R=-4\lambda(\hat\Sigma P\hat\Sigma K\hat\Sigma-\hat\Sigma K\hat\Sigma K^\top\hat\Sigma K\hat\Sigma)$.
 *   Every $\mathbb E[\hat\Sigma A_1\hat\Sigma\cdots A_{m-1}\hat\Sigma]$ ($m\le4$) is computed by
 *   Isserlis/Wick: a sum over the $(2m-1)!!$ pairings of the $2m$ Gaussian vectors, each pairing
 *   contributing $N^{c-m}$ times one open matrix product and traces of closed ones ($c$ the number
 *   of connected groups of factors), e.g.\
 *   $\mathbb E[\hat\Sigma A\hat\Sigma]=\Sigma A\Sigma+\frac1N(\Sigma A^\top\Sigma+\mathrm{tr}(A\Sigma)\Sigma)$.
 *   Hence the bias is an exact polynomial in $1/N$, evaluated in the working precision (double;
 *   a break is replayed in MPFR).  Internal checks: the $N^0$ coefficient must equal $\nabla R$ of
 *   the core (relative $64u$, else error), and a Monte Carlo cross-check of the Wick moments in
 *   double (\texttt{mc\_batches} batches of size \texttt{mc\_N}=8, $\hat\Sigma$ from
 *   \texttt{lm\_pc\_batch}, $\nabla\hat R$ from the core): $\|\text{MC mean}-\text{exact}\|_F\le
 *   \texttt{mc\_z}\cdot$ (its standard error).  Instances: $d=2,k=3$ and $d=3,k=4$,
 *   $\Sigma=GG^\top/d+0.5I$, $s_1=\tau=0.01$ (A3 regime), $\theta=\theta_R+\Delta$ with $R$ Haar and
 *   $\|\Delta\|_\Sigma=\texttt{rho}\cdot\delta_r$ (0.5), plus a configuration with an arbitrary
 *   $\theta$ (entries $\mathcal N(0,1)$).  Proxy (kind rate), by the rate rule (\texttt{lm\_rate\_fit\_seq}): $\log\|\text{bias}\|_F^2$
 *   against $\log N$ over $N=8,16,\dots,2048$ (exact values, so the grid costs nothing), the least-squares
 *   slope with its 95\% $t$-interval fitted on the asymptotic window $N\in[256,2048]$ (the last three
 *   doublings of the horizon; the smaller $N$ are pre-asymptotic) and on $[128,1024]$; slopes differing by
 *   more than $\max(0.05,2\sqrt{{\rm se}^2+{\rm se}_{1/2}^2})$: not-checkable (horizon too short); an interval
 *   wider than \texttt{maxw}: assumption-failed; observed: lower end $\le$ \texttt{claimed} $+$ \texttt{tol}
 *   ($-1+0.1$), inconsistent only when the whole interval lies above.  The expected slope is
 *   $-2$ (the $1/N$ term of the bias is nonzero), so the check fails for a claimed exponent below
 *   about $-2$ (the test uses $-3$).  Measured: the slopes on both windows, the CI,
 *   $N\|\text{bias}\|_F$ at $N=2048$.}
 */
#include "lm_pcb.h"
#include <math.h>
#include <stdio.h>

static const char *const configs[] = {"tube d=2,k=3", "tube d=3,k=4", "arbitrary theta d=2,k=3", NULL};

#define PARAMS(NUM, SWITCH)                                                                                                                                                \
    NUM(claimed, -1.0, "exponent [-10, 10]", "claimed exponent of N in ||bias||^2 (paper: -1)")                                                                            \
    NUM(tol, 0.1, "setting [-10, 10]", "tolerance on the slope: inconsistent when the whole 95% CI lies above claimed + tol")                                              \
    NUM(maxw, 0.5, "setting [0, 100]", "largest admissible width of the 95% CI of the slope on the window [N_max/8, N_max] (else: MC too noisy)")                          \
    NUM(tau, 0.01, "(0, 1]", "s_1 = tau (A3 regime)")                                                                                                                      \
    NUM(rho, 0.5, "[0, 10]", "||Delta||_Sigma = rho * delta_r")                                                                                                            \
    NUM(mc_batches, 2000, "int [8, 500000]", "batches of the Monte Carlo cross-check (double only; quick: /4; at least 8: two batches; at most 500000: run length bound)") \
    NUM(mc_N, 8, "int [1, 1000]", "batch size of the Monte Carlo cross-check (at most 1000: run length bound)")                                                            \
    NUM(mc_z, 4.0, "setting [0, 100]", "cross-check: ||MC mean - exact|| <= mc_z * SE")
LM_PARAMS(PARAMS)

static double frob2(const lm_pcth *G)
{
    lm_num a, b;
    lm_ctx c = lm_mat_ctx(G->V);
    lm_num_inits(&c, &a, &b, (lm_num *)NULL);
    lm_mat_frob(&a, G->V);
    lm_mat_frob(&b, G->KQ);
    double r = lm_num_get_d(&a), s = lm_num_get_d(&b);
    lm_num_clears(&a, &b, (lm_num *)NULL);
    return r * r + s * s;
}

static int mc_check(lm_eval *ev, const lm_pcdata *P, const lm_pcth *th, const lm_pcb_rbias *B)
{
    const lm_params prm = lm_params_of(ev);
    int N = lm_int(prm.mc_N), M = lm_int(prm.mc_batches), d = P->d, k = P->k;
    if (ev->quick) M /= 4;
    lm_pcth G = lm_pc_th_new(P), E = lm_pc_th_new(P), G0 = lm_pc_th_new(P);
    lm_mat *Sh = lm_mat_new(d, d, &P->ctx);
    lm_pc_grad_R(&G0, P, th);
    lm_pcb_rbias_at(&E, B, N, 0);
    int nv = k * d + d * d;
    double mean[64], m2[64], gv[64];
    for (int e = 0; e < nv; e++) mean[e] = m2[e] = 0;
    lm_rng g;
    lm_rng_init(&g, lm_hash_u64(ev->seed, 0x7e5));
    for (int b = 0; b < M; b++) {
        lm_pcbatch bt = lm_pc_batch(P, N, &g);
        lm_pc_sigma_hat(Sh, &bt);
        lm_pc_reg_S(NULL, &G, P, th, Sh);
        lm_pc_th_axpy(&G, &G, -1.0, &G0);
        lm_mat_get_array(gv, G.V);
        lm_mat_get_array(gv + k * d, G.KQ);
        for (int e = 0; e < nv; e++) {
            double dl = gv[e] - mean[e];
            mean[e] += dl / (b + 1);
            m2[e] += dl * (gv[e] - mean[e]);
        }
        lm_pc_batch_free(&bt);
    }
    lm_mat_get_array(gv, E.V);
    lm_mat_get_array(gv + k * d, E.KQ);
    double dev = 0, se = 0;
    for (int e = 0; e < nv; e++) {
        dev += (mean[e] - gv[e]) * (mean[e] - gv[e]);
        se += m2[e] / (M - 1) / M;
    }
    dev = sqrt(dev);
    se = sqrt(se);
    lm_measure(ev, "MC cross-check |mean - exact| / SE", dev / se);
    lm_measure(ev, "MC cross-check |exact bias| / SE", sqrt(frob2(&E)) / se);
    int rc = 0;
    if (!isfinite(dev) || !isfinite(se)) rc = lm_fail(ev, "MC cross-check not finite");
    else
        lm_obs_le_d(ev, -1, dev, prm.mc_z * se, 0.0,
                    "MC cross-check of the Wick moments at N=%d (%d batches)", N, M);
    lm_pc_th_free(&G); lm_pc_th_free(&E); lm_pc_th_free(&G0);
    lm_mat_free(Sh);
    return rc;
}

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    static const int dims[3][2] = {{2, 3}, {3, 4}, {2, 3}};
    int d = dims[ev->config][0], k = dims[ev->config][1];
    lm_rng *g = lm_eval_rng(ev);
    lm_pcth th;
    lm_pcdata *P = lm_pcb_inst(&th, d, k, 0.5, prm.tau, prm.rho, g, ev->ctx);
    if (!P) return lm_fail(ev, "instance generation failed");
    if (ev->config == 2) lm_pc_th_randn(&th, g, 1.0);
    lm_pcb_rbias B;
    lm_pcb_rbias_init(&B, P, &th);
    lm_pcth G = lm_pc_th_new(P), G0 = lm_pc_th_new(P);
    int rc = 0;
    /* the N^0 coefficient is grad R */
    lm_pcb_rbias_at(&G, &B, 1.0, 1);
    lm_pc_grad_R(&G0, P, &th);
    double n0 = frob2(&G0);
    lm_pc_th_axpy(&G, &G, -1.0, &G0);
    double e0 = frob2(&G);
    if (!(sqrt(e0) <= 64.0 * lm_ctx_eps(ev->ctx) * sqrt(n0) * (d + k)))
        rc = lm_fail(ev, "Wick population term differs from grad R: rel %.3g", sqrt(e0 / n0));
    double Ns[16], v[16];
    int n = 0;
    lm_series_axes(ev, "N", "||E grad R_hat - grad R||_F^2", 1);
    for (int N = 8; N <= 2048 && !rc; N *= 2) {
        lm_pcb_rbias_at(&G, &B, N, 0);
        double b2 = frob2(&G);
        if (!isfinite(b2)) { rc = lm_fail(ev, "bias not finite at N=%d", N); break; }
        Ns[n] = N;
        v[n++] = b2;
        lm_series(ev, "||bias||^2", N, b2);
    }
    if (!rc) {
        lm_measure(ev, "N ||bias||_F at N=2048", 2048.0 * sqrt(v[n - 1]));
        lm_measure(ev, "N^2 ||bias||^2 at N=8", 64.0 * v[0]);
        int r2 = lm_pcb_rate(ev, "log ||bias||^2 vs log N", Ns, v, n, prm.claimed, prm.tol,
                             prm.maxw);
        if (r2 < 0) rc = -1;
    }
    if (!rc && !ev->searching && ev->ctx->backend == LM_DOUBLE) rc = mc_check(ev, P, &th, &B);
    lm_pc_th_free(&G); lm_pc_th_free(&G0);
    lm_pcb_rbias_clear(&B);
    lm_pc_th_free(&th);
    lm_pc_free(P);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "Tube points (d = 2, k = 3, tau = 0.01, ||D|| = 0.5 delta_r): the exact Wick bias of grad "
     "R-hat, fitted slope of its log squared norm against log N, N = 8..2048, at most -1 + 0.1.",
     NULL},
    {LM_READ_PAPER,
     "Tube points in a larger dimension (d = 3, k = 4, tau = 0.01): the exact Wick bias of grad "
     "R-hat, fitted slope of its log squared norm against log N, N = 8..2048, at most -1 + 0.1.",
     NULL},
    {LM_READ_PAPER,
     "Arbitrary theta with N(0,1) entries (d = 2, k = 3), away from the tube: the exact Wick bias "
     "of grad R-hat decays at least like 1/N over N = 8..2048.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_precond_theorem5) = {
    .kind = LM_KIND_RATE,
    .source = "Theorem 5",
    .origin = "reconstructed",
    .confidence = "medium-high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.0625,
    .proxy = 1,
    .eval = eval,
};
