/* lemmas/implicit/lemma3.c
 *
 * \claim{implicit/lemma3}{Loss-landscape properties along joint training}
 * \source{implicit-bias-self-attention, Lemma~3 (Section~4.3), reconstructed; proof sketch after it
 *   and Remark~4}
 * \statement{Under Condition~1 and DM, with probability at least $1-\delta$, for all $t$ and all
 *   $\theta'\in[\theta_t,\theta_{t+1}]$ of the joint update (13):
 *   (i) PL-like: $\|\nabla_\theta\hat L(\theta_t)\|\ge\|\nabla_u\hat L(\theta_t)\|\ge\kappa\,\hat L(\theta_t)$;
 *   (ii) log-Lipschitz on the step segment: $\hat L(\theta')\le C_L\,\hat L(\theta_t)$;
 *   (iii) second-order self-bounded: $\|\nabla^2\hat L(\theta')\|_2\le C_H\,(1+B\|u_t\|)^2B^4\,\hat L(\theta_t)$,
 *   $B=\max_{i,t}\|x_{it}\|$.  The constants $\kappa$, $C_L$, $C_H$ are lost.}
 * \check{Each instance is the catalogue's run R4 in the exact coefficient representation
 *   (\texttt{lm\_ibj}): DM data with $d=600$, $n=8$, $T=2$, $\sigma=d^{-1/2}$, $\zeta=1.5$ (random
 *   designated optimal tokens, labels from $u_\star$), $W_0=0$, $u_0=0$, exponential loss and
 *   $\theta_{t+1}=\theta_t-\eta\nabla\hat L(\theta_t)/((t+1)^{\alpha}\hat L(\theta_t))$ with $\eta=0.5$,
 *   $\alpha=2/3$, for $\texttt{steps}=10^4$ iterations (2500 when quick; the catalogue's R4 runs
 *   $10^4$ to $4\cdot10^4$, settable).  One configuration.
 *   (i) is checked at every iterate in the catalogue's derived explicit form, valid at every $\theta$ for the
 *   exponential loss: with $u_{mm}$ the u-SVM solution for the designated optimal tokens (solved in the
 *   working precision; infeasible: assumption-failed),
 *   $\kappa(\theta)=\|u_{mm}\|^{-1}\min_i\big(s_{i,\mathrm{opt}}-(1-s_{i,\mathrm{opt}})\max_{\tau\ne\mathrm{opt}_i}|u_{mm}^\top x_{i\tau}|\big)$
 *   ($1-s_{i,\mathrm{opt}}$ by log-sum-exp), and two observations per iterate:
 *   $\texttt{kappa\_scale}\cdot\kappa(\theta_t)\le\langle-\nabla_u\hat L,u_{mm}\rangle/(\|u_{mm}\|\hat L)$ (the
 *   derivation's middle step) and $\texttt{kappa\_scale}\cdot\kappa(\theta_t)\le\|\nabla_u\hat L\|/\hat L$ (the
 *   statement), all gradients divided by $\hat L$ in the log domain; the first inequality of (i) is a block
 *   norm inequality and is only reported.  As $t\to\infty$ the ratio tends to 1 (the loss weights
 *   concentrate on the u-SVM's support vectors), so this is the tight part of the claim.
 *   (ii) On the step segment, $\hat L(\theta')$ at 17 equispaced points plus 30 golden-section
 *   iterations on the bracket around the best point; $\max\log(\hat L(\theta')/\hat L(\theta_t))\le\log C_L$,
 *   $C_L=e\cdot\texttt{cl\_scale}$ (the catalogue's reconstructed default), at every $t<1024$ and every
 *   $\texttt{seg\_stride}=8$-th $t$ after (a documented stride: a segment probe costs 49 forward passes).
 *   (iii) $\|\nabla^2\hat L(\theta')\|_2$ at $\theta'=\theta_t+\lambda(\theta_{t+1}-\theta_t)$,
 *   $\lambda\in\{0,\tfrac12,1\}$, by 20 power iterations on Hessian-vector products formed as central
 *   differences (step $10^{-25}$) of the analytic gradient in MPFR at 256 bits, on the restriction of the
 *   Hessian to $\mathrm{span}\{x_{it}x_{i1}^\top\}\oplus\mathrm{span}\{x_{it}\}$ with the Gram norm (the
 *   loss depends on $\theta$ only through these spans, so nothing is lost; the engine's power iteration is
 *   validated against an explicit finite-difference Hessian in the tests).  Each power iterate gives
 *   $\|Hv\|/\|v\|\le\|H\|_2$, so the estimate can miss but never invent a violation.  Probed at $t=0$, at
 *   powers of two below $\texttt{hess\_stride}=1000$ and at the multiples of \texttt{hess\_stride}
 *   (the catalogue suggests every 100 iterations; at about 45\,ms per MPFR Hessian norm that does not fit
 *   the run-time budget, and the measured ratio varies smoothly, largest at $t=0$; settable).
 *   $C_H$ is lost; the default $\texttt{C\_H}=16$ is the smallest round constant the derivation supports
 *   on R4: the softmax derivatives give pointwise $\|\nabla^2\hat L(\theta)\|_2\le(B^2+B^3+2B^5\|u\|+B^6\|u\|^2)\hat L(\theta)
 *   \le\max(1,B^{-1}+B^{-2})(1+B\|u\|)^2B^4\hat L(\theta)$; on the segment $\|u'\|\le\|u_t\|+\eta B$ and (ii)
 *   give $C_H=C_L\max(1,B^{-1}+B^{-2})(1+\eta B^2)^2\approx14$ for $\eta=0.5$, $B\approx1.6$ (reported per draw
 *   next to the empirical $C_H$).
 *   A double break is replayed wholly in MPFR (256 bits) up to the breaking iterate; in the replay
 *   the segment and Hessian probes run at that iterate only (the probes' slack is orders of
 *   magnitude, no near miss can arise there).  Wrong-constant tests: $\texttt{kappa\_scale}=2$,
 *   $\texttt{cl\_scale}=0.3$ ($C_L<1$ is refuted by $\theta'=\theta_t$) and $\texttt{C\_H}=0.01$; each must be
 *   violated.}
 */
#include "lm_claim.h"
#include "lm_ibland.h"
#include "lm_svm.h"
#include <math.h>

static const char *const configs[] = {"R4: DM d=600 n=8, joint (13) eta=0.5 alpha=2/3", NULL};

#define PARAMS(NUM, SWITCH)                                                                                                                                                  \
    NUM(kappa_scale, 1.0, "[0, 1e6]", "(i) multiplies the derived kappa(theta)")                                                                                             \
    NUM(cl_scale, 1.0, "[0, 1e6]", "(ii) multiplies C_L = e")                                                                                                                \
    NUM(C_H, 16.0, "constant [0, 1e6]", "(iii) Hessian constant C_H (lost; derived default)")                                                                                \
    NUM(steps, 10000, "int [1, 40000]", "iterations of R4 (quick: steps/4; at most 40000: run length bound)")                                                                \
    NUM(seg_stride, 8, "int [1, 100000]", "(ii) segment probe stride after t = 1024")                                                                                        \
    NUM(hess_stride, 1000, "int [100, 100000]", "(iii) Hessian probe stride (plus t = 0 and powers of two below it; at least 100: each probe is a Hessian, run time bound)") \
    NUM(eta, 0.5, "(0, 1e3]", "step size eta of (13)")                                                                                                                       \
    NUM(alpha, 2.0 / 3.0, "[0, 1]", "time exponent alpha of (13)")                                                                                                           \
    NUM(d, 600, "int [2, 6000]", "DM embedding dimension (at most 6000: memory and run time bound)")                                                                         \
    NUM(n, 8, "int [1, 16]", "DM number of sequences (at most 16: run time bound)")                                                                                          \
    NUM(zeta, 1.5, "(0, 1e3]", "DM optimal-token std ratio")
LM_PARAMS(PARAMS)

/* kappa(theta) of the derived form at the forward pass F; Ku = u_mm^T x_it (n x T) */
static void kappa_derived(lm_num *k, const lm_attn_fwd *F, const int *opt, const lm_mat *Ku,
                          const lm_num *unorm, const lm_ctx *c)
{
    int n = F->n, T = F->T;
    lm_num so, mso, mx, v, w, m;
    lm_num_inits(c, &so, &mso, &mx, &v, &w, &m, (lm_num *)NULL);
    for (int i = 0; i < n; i++) {
        int o = opt[i];
        lm_mat_get(&so, F->logs, i, o);
        lm_num_exp(&so, &so);
        /* 1 - s_opt = exp(LSE_{tau != opt} log s_tau), max |u_mm^T x_tau| */
        int first = 1;
        lm_num_set_d(&mx, 0.0);
        for (int t = 0; t < T; t++) {
            if (t == o) continue;
            lm_mat_get(&v, F->logs, i, t);
            if (first) {
                lm_num_set(&m, &v);
            } else { /* m = LSE(m, v) */
                lm_num_max(&w, &m, &v);
                lm_num_sub(&m, &m, &w);
                lm_num_exp(&m, &m);
                lm_num_sub(&v, &v, &w);
                lm_num_exp(&v, &v);
                lm_num_add(&m, &m, &v);
                lm_num_log(&m, &m);
                lm_num_add(&m, &m, &w);
            }
            first = 0;
            lm_mat_get(&v, Ku, i, t);
            lm_num_abs(&v, &v);
            lm_num_max(&mx, &mx, &v);
        }
        lm_num_exp(&mso, &m);
        lm_num_mul(&v, &mso, &mx);
        lm_num_sub(&v, &so, &v);
        if (i == 0 || lm_num_cmp(&v, k) < 0) lm_num_set(k, &v);
    }
    lm_num_div(k, k, unorm);
    lm_num_clears(&so, &mso, &mx, &v, &w, &m, (lm_num *)NULL);
}

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    const lm_ctx *c = ev->ctx;
    lm_ibland_opts o;
    lm_ibland_opts_default(&o);
    o.d = lm_int(P.d);
    o.n = lm_int(P.n);
    o.zeta = P.zeta;
    o.eta = P.eta;
    o.alpha = P.alpha;
    o.steps = lm_int(P.steps) / (ev->quick ? 4 : 1);
    o.C_L = exp(1.0) * P.cl_scale;
    o.seg_stride = lm_int(P.seg_stride);
    o.C_H = P.C_H;
    o.hess_stride = lm_int(P.hess_stride);
    const double ks = P.kappa_scale;
    lm_ibland_run *R = lm_ibland_run_new(ev, &o);
    if (!R) return -1;
    int rc = 0, n = R->D->n, T = R->D->T;
    lm_svm_sol sol = {0};
    lm_mat *Ku = lm_mat_new(n, T, c);
    lm_num un, k, gu, gth, corr;
    lm_num_inits(c, &un, &k, &gu, &gth, &corr, (lm_num *)NULL);
    int src = lm_svm_u(&sol, R->D, NULL);
    if (src == LM_SVM_INFEASIBLE || src == LM_SVM_BADINPUT) {
        lm_assume(ev, 0, "u-SVM infeasible for the designated optimal tokens (code %d)", src);
        goto out;
    }
    if (src) { rc = lm_fail(ev, "u-SVM solver failed (code %d)", src); goto out; }
    /* ||u_mm|| and u_mm^T x_it = (K vec M)_it */
    lm_num_sqrt(&un, &sol.norm2);
    {
        lm_mat mv = *sol.M, kv = *Ku;
        mv.r = kv.r = n * T;
        mv.c = kv.c = 1;
        lm_mat_mul(&kv, R->J->R->K, 0, &mv, 0);
    }
    lm_series_axes(ev, "iteration t", "ratios to L", 1);
    double kemp = INFINITY, kder = INFINITY, gth_min = INFINITY;
    int next = 0;
    while (lm_ibland_run_next(ev, R)) {
        int t = R->t;
        kappa_derived(&k, R->J->F, R->D->opt, Ku, &un, c);
        lm_num_mul_d(&k, &k, ks);
        lm_ibland_grad_ratios(&gu, &gth, &corr, R->J, R->J->F, sol.M);
        lm_num_div(&corr, &corr, &un);
        if (!lm_num_isfinite(&k) || !lm_num_isfinite(&gu) || !lm_num_isfinite(&corr)) {
            rc = lm_fail(ev, "non-finite gradient ratio at t=%d", t);
            goto out;
        }
        lm_obs_le(ev, t, &k, &corr, 0.0, "(i) kappa(theta_t) <= <-grad_u L, u_mm/||u_mm||>/L, t=%d", t);
        lm_obs_le(ev, t, &k, &gu, 0.0, "(i) kappa(theta_t) <= ||grad_u L||/L, t=%d", t);
        kemp = fmin(kemp, lm_num_get_d(&gu));
        kder = fmin(kder, lm_num_get_d(&k) / ks);
        gth_min = fmin(gth_min, lm_num_get_d(&gth));
        if (t >= next) {
            lm_series(ev, "||grad_u L(theta_t)|| / L(theta_t)", t, lm_num_get_d(&gu));
            lm_series(ev, "kappa(theta_t) (derived form)", t, lm_num_get_d(&k));
            next = t < 16 ? t + 1 : (int)ceil(t * 1.05);
        }
    }
    if (R->rc) { rc = R->rc; goto out; }
    lm_measure(ev, "empirical kappa = min_t ||grad_u L||/L", kemp);
    lm_measure(ev, "min_t kappa(theta_t) (derived form)", kder);
    lm_measure(ev, "min_t ||grad_theta L||/L", gth_min);
    lm_measure(ev, "||u_mm||", lm_num_get_d(&un));
    lm_ibland_run_report(ev, R);
out:
    lm_num_clears(&un, &k, &gu, &gth, &corr, (lm_num *)NULL);
    lm_mat_free(Ku);
    lm_svm_sol_clear(&sol);
    lm_ibland_run_free(R);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "Run R4 (DM d = 600, n = 8, zeta = 1.5, joint update (13), eta = 0.5, alpha = 2/3): PL bound "
     "(i) at every iterate, log-Lipschitz (ii) on step segments, Hessian bound (iii) with C_H = "
     "16.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_implicit_lemma3) = {
    .kind = LM_KIND_TRAJECTORY,
    .source = "Lemma 3 (Section 4.3)",
    .origin = "reconstructed",
    .confidence = "(i) medium; (ii), (iii) low for the constants",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.0625,
    .search_dim = 0,
    .eval = eval,
};
