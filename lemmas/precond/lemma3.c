/* lemmas/precond/lemma3.c
 *
 * \claim{precond/lemma3}{Good initialisation occurs with high probability}
 * \source{preconditioned-softmax-regression, Lemma 3 (Section 4)}
 * \statement{Let $\delta_0=\min(\delta,\delta_7)$.  For every $p\in(0,1)$ there is $N_0(p)$ such that
 *   for $N\ge N_0(p)$, with probability $\ge1-p$ over the training data, both
 *   (E1) $\mathrm{dist}_\Sigma(\theta_0,\mathcal M)\le\delta_0$ and
 *   (E2) $\|\hat\Sigma^{-1}-\Sigma^{-1}\|_{op}\le\varepsilon_2$ hold.}
 * \check{Instance in the A3 regime: $d=3$, $k=4$, $\Sigma=GG^\top/d+0.5I$, $s_1=\tau=0.01$,
 *   $\sigma=0.01$ (the signal-to-noise ratio of $\tau=0.1$, $\sigma=0.1$), $\lambda=1/4$.  Thresholds
 *   (lost in the paper; parameters): $\delta_0=\texttt{delta0\_scale}\cdot\delta_r$ ($\delta_7$ is not
 *   available, so $\delta_0=\delta_r$ of S8) and $\varepsilon_2=\texttt{eps2\_scale}\cdot\varepsilon_{2,r}$
 *   with $\lambda_{\max}(\Sigma)\varepsilon_{2,r}=\sqrt{1+\alpha_r/(4\beta_r)}-1$ (the reconstructed
 *   sufficient condition $2\lambda_{\max}\varepsilon_2+(\lambda_{\max}\varepsilon_2)^2\le\alpha/(4\beta)$).
 *   For $N\in\{10^2,10^3,\dots,10^{10}\}$, $R=\texttt{reps}\cdot$budget$/64$ training sets (400; at least
 *   100), each drawn exactly through its sufficient statistics ($\hat\Sigma$ by Bartlett's
 *   decomposition, $\hat W-W_\star=\sigma ZC^{-1}$, $CC^\top=N\hat\Sigma$: the exact joint law, any $N$ at
 *   $O(d^2k)$ cost), then the spectral initialisation and its Procrustes distance.  Observations:
 *   (1) at the largest $N$ (standing for $N\ge N_0(p)$), $1-p\le$ the Wilson 99\% upper bound of the
 *   frequency of E1$\wedge$E2 ($p=0.1$); (2) the frequencies are non-decreasing in $N$ within their
 *   CIs: lower bound at $N_i$ $\le$ upper bound at $N_{i+1}$, for E1, E2 and both.  The empirical
 *   $N_0(p)$ for $p\in\{0.1,0.01\}$ (smallest grid $N$ from which the frequency stays $\ge1-p$) is
 *   reported.  Calibration of the sampler (exact identity): at $N=20$, 2000 training sets drawn
 *   sample by sample, $\mathbb E\,\mathrm{tr}(\Sigma\hat\Sigma^{-1})=Nd/(N-d-1)$ within 3.29 SE.}
 */
#include "lm_pctr.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define PARAMS(NUM, SWITCH)                                                                                                                   \
    NUM(p, 0.1, "(0, 1)", "failure probability p")                                                                                            \
    NUM(delta0_scale, 1.0, "(0, 1e6]", "delta_0 = delta0_scale * delta_r (reconstructed)")                                                    \
    NUM(eps2_scale, 1.0, "(0, 1e6]", "eps_2 = eps2_scale * eps_2r (reconstructed)")                                                           \
    NUM(reps, 400, "int [1, 50000]", "training sets per N at budget 64 (scaled by budget/64, at least 100; at most 50000: run length bound)")
LM_PARAMS(PARAMS)

#define NGRID 9

static void calib(lm_eval *ev, lm_pcdata *P)
{
    const int d = P->d, N = 20, R = 2000;
    lm_rng *g = lm_eval_rng(ev);
    lm_mat *S = lm_mat_new(d, d, &P->ctx), *Si = lm_mat_new(d, d, &P->ctx), *T = lm_mat_new(d, d, &P->ctx);
    double s = 0, s2 = 0;
    lm_num x;
    lm_num_init(&x, &P->ctx);
    for (int r = 0; r < R; r++) {
        lm_pcbatch b = lm_pc_batch(P, N, g);
        lm_pc_sigma_hat(S, &b);
        lm_pc_batch_free(&b);
        lm_pc_sympow(Si, S, -1.0);
        lm_mat_dot(&x, P->Sig, Si); /* tr(Sigma Sigma_hat^-1), both symmetric */
        double v = lm_num_get_d(&x);
        s += v;
        s2 += v * v;
    }
    const double m = s / R, se = sqrt(fmax(s2 / R - m * m, 0.0) / (R - 1)), ex = (double)N * d / (N - d - 1.0);
    lm_measure(ev, "calibration: MC mean tr(Sigma Sigma_hat^-1) at N=20", m);
    lm_measure(ev, "calibration: N d/(N-d-1)", ex);
    lm_obs_le_d(ev, -1, fabs(m - ex), 3.29 * se, 0.0, "calibration: |E tr(Sigma Sigma_hat^-1) - Nd/(N-d-1)| <= 3.29 SE");
    lm_num_clear(&x);
    lm_mat_free(S); lm_mat_free(Si); lm_mat_free(T);
}

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    const double p = prm.p;
    if (!lm_assume(ev, p > 0 && p < 1, "p must be in (0,1)")) return 0;
    lm_pcdata *P = lm_pc_gen(3, 4, 0.5, 0.0, 0.01, 0.01, 0.25, lm_eval_rng(ev), ev->ctx);
    const int d = P->d, k = P->k;
    const double s1 = lm_num_get_d(&P->s[0]), sd = lm_num_get_d(&P->s[d - 1]);
    lm_num *w = lm_nums_new(d, &P->ctx);
    lm_mat_symeig(w, NULL, P->Sig);
    const double lmax = lm_num_get_d(&w[d - 1]);
    lm_nums_free(w, d);
    const double ar = lm_pc_alpha_r(s1, sd, P->lambda), br = lm_pc_beta_r(s1, P->lambda);
    const double delta0 = prm.delta0_scale * lm_pc_delta_r(s1, sd, P->lambda);
    const double eps2 = prm.eps2_scale * (sqrt(1.0 + ar / (4.0 * br)) - 1.0) / lmax;
    int R = (int)(prm.reps * ev->budget / 64.0);
    if (R < 100) R = 100;
    lm_measure(ev, "delta_0", delta0);
    lm_measure(ev, "eps_2", eps2);
    lm_measure(ev, "training sets per N", R);
    lm_mat *Sh = lm_mat_new(d, d, &P->ctx), *Wh = lm_mat_new(k, d, &P->ctx), *Shi = lm_mat_new(d, d, &P->ctx);
    lm_pcth th = lm_pc_th_new(P);
    lm_num dist, nrm;
    lm_num_inits(&P->ctx, &dist, &nrm, (lm_num *)NULL);
    lm_rng *g = lm_eval_rng(ev);
    long c1[NGRID], c2[NGRID], c12[NGRID];
    double NG[NGRID];
    int rc = 0;
    lm_series_axes(ev, "N", "frequency", 0);
    for (int i = 0; i < NGRID && !rc; i++) {
        NG[i] = pow(10.0, 2 + i);
        c1[i] = c2[i] = c12[i] = 0;
        double dmed = 0;
        for (int r = 0; r < R; r++) {
            if (lm_pctr_suffstat(Sh, Wh, P, NG[i], g) || lm_pctr_spectral(&th, Shi, P, Sh, Wh) ||
                lm_pc_project(NULL, NULL, &dist, NULL, P, &th)) {
                rc = lm_fail(ev, "training-set draw, spectral initialisation or projection failed at N=%g", NG[i]);
                break;
            }
            lm_mat_sub(Shi, Shi, P->Si);
            if (lm_mat_smax(&nrm, Shi)) {
                rc = lm_fail(ev, "SVD failed");
                break;
            }
            const int e1 = lm_num_get_d(&dist) <= delta0, e2 = lm_num_get_d(&nrm) <= eps2;
            c1[i] += e1;
            c2[i] += e2;
            c12[i] += e1 && e2;
            dmed += lm_num_get_d(&dist) / R;
        }
        if (rc) break;
        lm_series(ev, "E1", NG[i], (double)c1[i] / R);
        lm_series(ev, "E2", NG[i], (double)c2[i] / R);
        lm_series(ev, "E1 and E2", NG[i], (double)c12[i] / R);
        char nm[80];
        snprintf(nm, sizeof nm, "N=%.0e: freq E1, E2, both", NG[i]);
        lm_measure(ev, nm, (double)c12[i] / R);
        snprintf(nm, sizeof nm, "N=%.0e: freq E1", NG[i]);
        lm_measure(ev, nm, (double)c1[i] / R);
        snprintf(nm, sizeof nm, "N=%.0e: freq E2", NG[i]);
        lm_measure(ev, nm, (double)c2[i] / R);
        snprintf(nm, sizeof nm, "N=%.0e: mean dist / delta_0", NG[i]);
        lm_measure(ev, nm, dmed / delta0);
    }
    if (!rc) {
        const double z = 2.576;
        for (int i = 0; i + 1 < NGRID; i++) {
            const long *cs[3] = {c1, c2, c12};
            static const char *const nm[3] = {"E1", "E2", "E1 and E2"};
            for (int q = 0; q < 3; q++)
                lm_obs_le_d(ev, -1, lm_pctr_wilson_lo(cs[q][i], R, z), lm_pctr_wilson_hi(cs[q][i + 1], R, z), 0.0,
                            "%s non-decreasing: Wilson lower at N=%.0e <= upper at N=%.0e", nm[q], NG[i], NG[i + 1]);
        }
        const double ps[2] = {0.1, 0.01};
        for (int q = 0; q < 2; q++) {
            int n0 = -1;
            for (int i = NGRID - 1; i >= 0 && (double)c12[i] / R >= 1 - ps[q]; i--) n0 = i;
            char nm[64];
            snprintf(nm, sizeof nm, "empirical N0(p=%g)", ps[q]);
            lm_measure(ev, nm, n0 >= 0 ? NG[n0] : -1.0);
        }
        const double U = lm_pctr_wilson_hi(c12[NGRID - 1], R, z);
        lm_obs_le_d(ev, -1, 1.0 - p, U, 0.0, "N=%.0e: 1-p <= Wilson upper %.4g of P(E1 and E2) (%ld/%d)",
                    NG[NGRID - 1], U, c12[NGRID - 1], R);
        calib(ev, P);
    }
    lm_num_clears(&dist, &nrm, (lm_num *)NULL);
    lm_pc_th_free(&th);
    lm_mat_free(Sh); lm_mat_free(Wh); lm_mat_free(Shi);
    lm_pc_free(P);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "A3 instance (d = 3, k = 4, s_1 = sigma = 0.01), N = 1e2..1e10 exact training sets: E1 and "
     "E2 jointly w.p. >= 1 - p = 0.9 at the largest N, and frequencies non-decreasing in N.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_precond_lemma3) = {
    .kind = LM_KIND_PROBABILISTIC,
    .source = "Lemma 3 (Section 4)",
    .origin = "reconstructed (RECON constant: delta0_scale, eps2_scale)",
    .confidence = "medium",
    .params = params,
    .readings = readings,
    .inst_scale = 1.0 / 64,
    .eval = eval,
};
