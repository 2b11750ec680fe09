/* lemmas/mirror/lemma29.c
 *
 * \claim{mirror/lemma29}{Rate of directional convergence in terms of the norm}
 * \source{mirror-descent-attention, Appendix A.4, Lemma 29, displays (28)--(29)
 *   (reconstructed, low confidence: the seed keeps only the proof skeleton)}
 * \statement{With $R_*=\max(R,R_\delta)$, $\pi_k$ the smallest $\pi$ with $R_\pi\le\|W(k)\|_p$
 *   and $r_k=\|W(k)\|_p$: if $W(0)\in\mathcal C_{p,\mu',R_*}$ and $\eta$ is small, then
 *   (29) $D_\psi(\bar W_{mm},\bar W(k))\le\big(C_0+\sum_{j<k}\pi_j(r_{j+1}^{p-1}-r_j^{p-1})\big)/r_k^{p-1}$,
 *   hence (28) $D_\psi(\bar W_{mm},\bar W(k))\le C\,\Phi_p(r_k)$ with $\Phi_p(r)=\log r/r$ ($p>2$),
 *   $(\log r)^2/r$ ($p=2$), $r^{1-p}$ ($1<p<2$).}
 * \check{Proxy only (a rate claim), on R1 runs: data $(n,T,d)=(3,4,4)$ from the paper's
 *   generator, $\alpha=\arg\max$ of the scores, the certified $\ell_p$-AttSVM, a start at cone level
 *   $\mu'=$ \texttt{mu\_start}$\cdot\mu_0$ ($\mu_0/4$) and radius \texttt{R0}$\cdot\|W_{mm}\|_p$ (2),
 *   unnormalised $\ell_p$-AttGD with $\eta=1$, $p\in\{1.5,2,3\}$.  Two configurations per $p$.
 *   \emph{inequalities} (\texttt{K\_ineq} = 4000 steps, 1000 in quick mode): part (a) of the
 *   catalogue, with the empirical $\pi_j=$ \texttt{pi\_scale}$\cdot\max(0,\pi_{\rm eff}(W(j)))$ of
 *   Lemma 21 and $\Delta_j=r_{j+1}^{p-1}-r_j^{p-1}$: (29a), the exact consequence of (25) at every
 *   step, written without cancellation as
 *   $D_k\le\big[D_0r_0^{p-1}+\sum_{j<k}(\pi_j\Delta_j+\eta(\mathcal L(W(j))-\mathcal L(W(j+1)))/r_j)/(1+\pi_j)\big]/r_k^{p-1}$
 *   (equal to the catalogue's $1-[(1-D_0)r_0^{p-1}+\dots]/r_k^{p-1}$ since
 *   $r_k^{p-1}=r_0^{p-1}+\sum_j\Delta_j$), and (29) with
 *   $C_0=D_0r_0^{p-1}+\eta(\mathcal L(W(0))-\inf\mathcal L)/r_0$, both at log-spaced checkpoints
 *   (ratio 1.02), both right sides multiplied by \texttt{c\_scale} (paper: 1).  Comparisons stop
 *   at the first step with $\langle-\nabla\mathcal L,\bar W_{mm}\rangle\le0$ ($\pi_j$ undefined).
 *   \emph{slope} (\texttt{K} = 20000 steps, also in quick mode): part (b), the slope of $\log D_k$
 *   against $\log r_k$ (checkpoints at ratio 1.02), claimed $\le-$\texttt{rate\_scale}$\cdot\min(1,p-1)$
 *   up to the catalogue's allowance $0.3$ for the log factors, judged by the project's rate rule
 *   (issue 16): least squares with a 95\% interval on the asymptotic window of the iterates
 *   $k\in[K/8,K]$ (the transient before $K/8$ discarded; the window is set by $k$, the slope taken
 *   against $\log r_k$) and again on $[K/16,K/2]$; stable when the two slopes agree within
 *   $\max(\texttt{stab\_tol},2\sqrt{se^2+se_{1/2}^2})$ (\texttt{stab\_tol} $=0.3$: the log factors of
 *   $\Phi_p$ make the local slope drift like $1/\log r$); a stable fit whose interval lies above the
 *   claimed slope by more than $0.3$ is inconsistent, otherwise consistent.  The catalogue's ``last
 *   decade of $r$'' is out of reach ($r_k$ grows like $\|W_{mm}\|_p\log k$), so the last three
 *   doublings of the run stand for it.  $D_k$ first rises from $\mu'$ (the catalogue:
 *   legitimately), peaks, then decays; a run is conclusive only if its norm grew by at least
 *   \texttt{regime\_growth}$\cdot\|W_{mm}\|_p$ (2), $D$ at $k=K/2$ is already down by the factor
 *   \texttt{regime\_drop} (1.25) from its maximum, and the fit is stable.  A run that is not
 *   conclusive is continued to twice its horizon while that stays within the bound of \texttt{K}
 *   (50000); then a run that missed the regime is assumption-failed (``the run never reached the
 *   decay regime'') and one whose fit is still unstable not-checkable (``horizon too short'', with
 *   the two slopes).  Part (c),
 *   the trend of $D_k/\Phi_p(r_k)$, is reported as a fitted slope (measure), not judged.
 *   The report also gives the slopes on both windows with standard errors, the horizon doublings
 *   and the figure of $D_k$
 *   against $r_k$.  The per-step quantities are formed without cancellation in the context
 *   (increments of $\|\Theta\|_q$ entrywise, loss decreases per sample, $D_k$ as a sum of
 *   scalar divergences with a series for near-equal entries); a 20000-step MPFR replay costs
 *   30--40~s at 256 bits, so breaks are not replayed (\texttt{no\_replay}); the
 *   per-step inequalities have relative slack $\ge10^{-4}$ on our runs, far above the
 *   rounding of these forms, and a double step that leaves $\Theta$ unchanged (frozen) ends
 *   the run there, so nothing is judged on a frozen trajectory.  Readings: every configuration is a \texttt{paper} reading (the statement as the catalogue reconstructs it).}
 */
#include "lm_mdclaim.h"
#include <math.h>
#include <stdio.h>

static const char *const configs[] = {"p=1.5,eta=1,inequalities", "p=2,eta=1,inequalities",
                                      "p=3,eta=1,inequalities",   "p=1.5,eta=1,slope",
                                      "p=2,eta=1,slope",          "p=3,eta=1,slope",
                                      NULL};
/* one reading per configuration (issue 16) */
static const lm_reading readings[] = {
    {LM_READ_PAPER, "p = 1.5 (below 2), R1 run from mu_0/4, radius 2 ||W_mm||_p, data (3,4,4), eta "
                    "= 1: the per-step bound (29a) and (29) at log-spaced checkpoints of 4000 "
                    "steps.", NULL},
    {LM_READ_PAPER, "p = 2 (Euclidean), R1 run from mu_0/4, radius 2 ||W_mm||_p, data (3,4,4), eta "
                    "= 1: the per-step bound (29a) and (29) at log-spaced checkpoints of 4000 "
                    "steps.", NULL},
    {LM_READ_PAPER, "p = 3 (paper's largest p), R1 run from mu_0/4, radius 2 ||W_mm||_p, data "
                    "(3,4,4), eta = 1: the per-step bound (29a) and (29) at log-spaced checkpoints "
                    "of 4000 steps.", NULL},
    {LM_READ_PAPER, "p = 1.5, R1 run from mu_0/4, radius 2 ||W_mm||_p, data (3,4,4), eta = 1, "
                    "20000 steps: slope of log D_k vs log r_k at most -0.5, the proxy of the rate "
                    "r^(1-p).", NULL},
    {LM_READ_PAPER, "p = 2, R1 run from mu_0/4, radius 2 ||W_mm||_p, data (3,4,4), eta = 1, 20000 "
                    "steps: slope of log D_k vs log r_k at most -1, the proxy of the rate (log "
                    "r)^2/r.", NULL},
    {LM_READ_PAPER, "p = 3, R1 run from mu_0/4, radius 2 ||W_mm||_p, data (3,4,4), eta = 1, 20000 "
                    "steps: slope of log D_k vs log r_k at most -1, the proxy of the rate log r/r.",
     NULL},
    LM_READINGS_END};

static const double cfg_p[] = {1.5, 2.0, 3.0, 1.5, 2.0, 3.0};

#define PARAMS(NUM, SWITCH)                                                                                                                                                                                                                                            \
    NUM(c_scale, 1.0, "[0, 1e6]", "multiplies the right sides of (29a) and (29) (paper: 1)")                                                                                                                                                                           \
    NUM(pi_scale, 1.0, "[0, 1e6]", "multiplies the empirical pi_j = max(0, pi_eff(W(j)))")                                                                                                                                                                             \
    NUM(rate_scale, 1.0, "[0, 1e6]", "multiplies the claimed exponent min(1, p-1) in the slope proxy")                                                                                                                                                                 \
    NUM(mu_start, 0.25, "(0, 1]", "start level D_psi(Wbar_mm, Wbar(0)) as a multiple of mu_0")                                                                                                                                                                         \
    NUM(R0, 2.0, "(0, 1e4]", "start radius ||W(0)||_p as a multiple of ||W_mm||_p")                                                                                                                                                                                    \
    NUM(K_ineq, 4000, "int [1, 100000]", "steps of the inequality runs (quick: K_ineq/4) (at most 100000: run length bound)")                                                                                                                                          \
    NUM(K, 20000, "int [1, 50000]", "steps of the slope runs; doubled while the run is not conclusive (rate rule), up to 50000 (run length bound)")                                                                                                                    \
    NUM(regime_growth, 2.0, "[0, 1e6]", "slope runs: minimal growth of ||W||_p in units of ||W_mm||_p")                                                                                                                                                                \
    NUM(regime_drop, 1.25, "[0, 1e6]", "slope runs: max D / D at k = K/2, at least")                                                                                                                                                                                   \
    NUM(stab_tol, 0.3, "setting [0, 1e6]", "slope runs, rate rule: the slopes on [K/8, K] and [K/16, K/2] must agree within max(stab_tol, 2 se) (default: the catalogue's 0.3 allowance for the log factors of Phi_p, which make the local slope drift like 1/log r)")
LM_PARAMS(PARAMS)

typedef struct {
    lm_eval *ev;
    double pis, cs;
    int stopped;
    long nobs;
    lm_num D0r0, C0, S1, S2, a, b, pi, rhs;
} hook_t;

static int hook(lm_mdgd *R, void *arg)
{
    hook_t *h = arg;
    if (h->stopped) return 0;
    if (lm_num_sgn(&R->lhs_mm) <= 0) {
        h->stopped = R->k;
        return 0;
    }
    /* pi_j for the step j = k-1 -> k */
    lm_num_div(&h->pi, &R->corr_w, &R->lhs_mm);
    lm_num_add_d(&h->pi, &h->pi, -1.0);
    if (lm_num_sgn(&h->pi) < 0) lm_num_set_d(&h->pi, 0.0);
    lm_num_mul_d(&h->pi, &h->pi, h->pis);
    /* S2 += pi Delta;  S1 += (pi Delta + eta dL / r_j) / (1 + pi) */
    lm_num_mul(&h->a, &h->pi, &R->drpm1);
    lm_num_add(&h->S2, &h->S2, &h->a);
    lm_num_mul_d(&h->b, &R->dL, R->eta);
    lm_num_div(&h->b, &h->b, &R->r_prev);
    lm_num_add(&h->a, &h->a, &h->b);
    lm_num_add_d(&h->b, &h->pi, 1.0);
    lm_num_div(&h->a, &h->a, &h->b);
    lm_num_add(&h->S1, &h->S1, &h->a);
    if (!R->ck) return 0;
    int k = R->k;
    /* (29a) */
    lm_num_add(&h->rhs, &h->D0r0, &h->S1);
    lm_num_div(&h->rhs, &h->rhs, &R->rpm1);
    lm_num_mul_d(&h->rhs, &h->rhs, h->cs);
    lm_obs_le(h->ev, k, &R->Dk, &h->rhs, 0.0, "(29a) at k=%d", k);
    lm_series(h->ev, "D_psi(Wbar_mm, Wbar(k))", k, lm_num_get_d(&R->Dk));
    lm_series(h->ev, "bound (29a)", k, lm_num_get_d(&h->rhs));
    /* (29) */
    lm_num_add(&h->rhs, &h->C0, &h->S2);
    lm_num_div(&h->rhs, &h->rhs, &R->rpm1);
    lm_num_mul_d(&h->rhs, &h->rhs, h->cs);
    lm_obs_le(h->ev, k, &R->Dk, &h->rhs, 0.0, "(29) at k=%d", k);
    lm_series(h->ev, "bound (29)", k, lm_num_get_d(&h->rhs));
    h->nobs += 2;
    return 0;
}

static int eval_ineq(lm_eval *ev, double p)
{
    const lm_params P = lm_params_of(ev);
    long K = lm_int(P.K_ineq);
    if (ev->quick) K /= 4;
    lm_md_inst I;
    lm_mdgd R;
    int rc;
    if (lm_mdgd_claim_setup(&rc, &I, &R, ev, 3, 4, 4, p, 1.0) < 0) return rc;
    hook_t h = {.ev = ev, .pis = P.pi_scale, .cs = P.c_scale};
    lm_num_inits(ev->ctx, &h.D0r0, &h.C0, &h.S1, &h.S2, &h.a, &h.b, &h.pi, &h.rhs, (lm_num *)NULL);
    /* D_0 r_0^{p-1} and C_0 = D_0 r_0^{p-1} + eta (L(W0) - inf L) / r_0 */
    lm_mdgd_dir(&h.a, &R);
    lm_num_mul(&h.D0r0, &h.a, &R.rpm1);
    lm_mdgd_excess(&h.b, R.F);
    lm_num_mul_d(&h.b, &h.b, R.eta);
    lm_num_div(&h.b, &h.b, &R.r);
    lm_num_add(&h.C0, &h.D0r0, &h.b);
    lm_measure(ev, "C_0", lm_num_get_d(&h.C0));
    lm_series_axes(ev, "iterate k", "D_k and the bounds (29a), (29)", 1);
    rc = lm_mdgd_claim_run(ev, &R, K, 1.02, hook, &h, 0);
    if (!rc) {
        if (h.stopped) lm_measure(ev, "left_Lemma20_regime_at_step", h.stopped);
        if (h.nobs == 0)
            lm_assume(ev, 0, "no checkpoint before a step with <-grad L, Wbar_mm> <= 0");
    }
    lm_num_clears(&h.D0r0, &h.C0, &h.S1, &h.S2, &h.a, &h.b, &h.pi, &h.rhs, (lm_num *)NULL);
    lm_mdgd_clear(&R);
    lm_md_inst_clear(&I);
    return rc;
}

/* the catalogue's allowance for the uncertain log factors */
#define TOL_RATE 0.3

typedef struct {
    lm_eval *ev;
    const lm_md_inst *I;
    double m;
} run_t;

/* log D_k vs log r_k by the rate rule: slope <= -rate_scale min(1, p-1) (+ TOL_RATE) */
static void fit(lm_rate_fit *f, const lm_mdgd_trace *tr, lm_eval *ev, double m)
{
    const lm_params P = lm_params_of(ev);
    lm_mdgd_fit_D(f, tr, -P.rate_scale * m, -1, TOL_RATE, P.stab_tol);
}

/* conclusive: the regime reached and the fit stable */
static int done(const lm_mdgd_trace *tr, void *arg)
{
    run_t *d = arg;
    lm_mdgd_rates q;
    lm_mdgd_rates_compute(&q, tr, d->I->k.wnorm);
    if (!(q.growth >= lm_par(d->ev, "regime_growth") && q.drop >= lm_par(d->ev, "regime_drop"))) return 0;
    lm_rate_fit f;
    fit(&f, tr, d->ev, d->m);
    return f.decision != LM_RATE_TOO_SHORT;
}

static int eval_slope(lm_eval *ev, double p)
{
    const lm_params P = lm_params_of(ev);
    lm_md_inst I;
    lm_mdgd R;
    lm_mdgd_trace tr;
    const double m = fmin(1.0, p - 1.0);
    run_t d = {ev, &I, m};
    int rc = lm_mdgd_rate_run(&I, &R, &tr, ev, p, 1.0, P.mu_start, P.R0,
                              lm_int(P.K), lm_mdgd_par_cap(ev, "K"), NULL, NULL, done, &d);
    if (rc == 0) {
        double w = I.k.wnorm;
        lm_mdgd_rates q;
        lm_mdgd_rates_compute(&q, &tr, w);
        lm_measure(ev, "growth (r_K-r_0)/||W_mm||_p", q.growth);
        lm_measure(ev, "max_k D_k", q.Dmax);
        lm_measure(ev, "peak at k", (double)q.kpeak);
        lm_measure(ev, "drop max D / D(K/2)", q.drop);
        lm_measure(ev, "claimed slope -min(1,p-1)", -m);
        /* (c): trend of D / Phi_p(r) */
        double s, se;
        if (!lm_mdgd_phi_fit(&s, &se, &tr, p, 0)) {
            lm_measure(ev, "(c) slope log(D/Phi_p(r)) vs log r", s);
            lm_measure(ev, "(c) slope se", se);
        }
        lm_series_axes(ev, "r_k = ||W(k)||_p", "D_psi(Wbar_mm, Wbar(k))", 1);
        for (int j = 1; j < tr.n; j++) lm_series(ev, "D_k vs r_k", tr.r[j], tr.D[j]);
        if (lm_mdgd_in_regime(ev, &q, 1)) {
            lm_rate_fit f;
            fit(&f, &tr, ev, m);
            lm_rate_judge(ev, &f, "rate: log D_k vs log r_k, <= -rate_scale*min(1,p-1) + 0.3");
        }
    }
    lm_mdgd_trace_clear(&tr);
    lm_mdgd_clear(&R);
    lm_md_inst_clear(&I);
    return rc < 0 ? -1 : 0;
}

static int eval(lm_eval *ev)
{
    double p = cfg_p[ev->config];
    return ev->config < 3 ? eval_ineq(ev, p) : eval_slope(ev, p);
}

LM_CLAIM(claim_mirror_lemma29) = {
    .kind = LM_KIND_RATE,
    .source = "Appendix A.4, Lemma 29, (28)-(29)",
    .origin = "reconstructed",
    .confidence = "low",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.1875,
    .proxy = 1,
    .no_replay = 1,
    .search_dim = 0,
    .eval = eval,
};
