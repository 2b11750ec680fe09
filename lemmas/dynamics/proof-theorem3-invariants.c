/* lemmas/dynamics/proof-theorem3-invariants.c
 *
 * \claim{dynamics/proof-theorem3-invariants}{Induction invariants (67) of the proof of Theorem 3, and Remark 6}
 * \source{transformer-gd-dynamics, Appendix 1.5: invariant (67), the bound
 *   $\min S\ge\kappa$ and Remark 6}
 * \statement{Under (12-app) and $\eta<1/(2G')$, GD on $M=\{W^Q\}$ with the Gaussian kernel
 *   keeps, for all $r\le t$: $\sigma_{\max}(W^Q_{h,r})\le\frac32\bar\lambda^Q_h$;
 *   $\sigma_{\min}(\partial C_h(M_r)/\partial W^Q_h)\ge\frac12\delta$; $\min S_r\ge\kappa$;
 *   $f(M_r)\le(1-\eta\gamma)^rf(M_0)$. The pointwise step behind the third item:
 *   $\exp(-\frac1{2\sqrt d}\|X_{ik}W^Q_h-X_{ij}W^K_h\|^2)\ge\kappa$ whenever
 *   $\sigma_{\max}(W^Q_h)\le\frac32\bar\lambda^Q_h$. Remark 6: the initialization condition can
 *   be met with $\|W^O\|_2$ large and $\sigma_{\max}(W^V)$ small; $\nu'=\frac18$ in (12).}
 * \check{Trajectory configurations use the instances of dynamics/theorem3-part1 (the
 *   paper's Example and random T3 sizes, Gaussian kernel with $c_G=2$, labels
 *   $y=\mathsf{MH}_0+\varepsilon u$) and the step $\eta=1/(2G')$. \emph{cond12-app-satisfied}:
 *   $\varepsilon$ is half the largest residual meeting (12-app) (with the appendix
 *   $\bar\lambda^V$; $\delta>0$ and $\min|V'W^O|>0$ required; instances where this would need
 *   a residual below $2^{-36}\|\mathsf{MH}_0\|$ are assumption-failed). \emph{cond12-app-violated}:
 *   $\varepsilon$ is $\texttt{viol\_factor}=100$ times that largest residual (and at least
 *   $2^{-20}\|\mathsf{MH}_0\|$; the Example is not capped at $10^{-6}$ here), so the hypothesis fails
 *   by construction; this configuration shows how robust the invariants are without it, and
 *   its verdict counts for the claim like any other (a larger \texttt{viol\_factor} probes
 *   further). At every iterate $r\ge1$ of a
 *   $T$-step run the four invariants are compared in the working precision:
 *   $\sigma_{\max}(W^Q_{h,r})\le\frac32\sigma_{\max}(W^Q_{h,0})$;
 *   $\frac12\delta\le\sigma_{\min}(J_{h,r})$ with $\delta=\min_h\sigma_{Nn^2}(J_{h,0})$ (all
 *   singular values of the Jacobians in the working precision); $\log\kappa\le\log\min S_r$
 *   in the log domain ($\log\min S$ is the smallest Gaussian logit, so nothing underflows,
 *   and $\log\kappa=-\frac94\|X\|_F^2((\bar\lambda^Q_h)^2+(\bar\lambda^K_h)^2)$ is formed in the
 *   context); and $\log f_r\le\log f_0+r\,\mathrm{log1p}(-\eta\gamma)$, where a comparison
 *   inside the forward-error band of $f$ (about $2^{3-p}(n+D+Hd)\|\,|\mathsf{MH}|\,\|/\|r\|$
 *   relative, times \texttt{tol\_scale}) is left undecided in double and decided in MPFR. The run does not stop at a
 *   break, so the first violation time of every invariant is reported (the MPFR replay of a
 *   break stops at the first one). \emph{pointwise-minS}: for each instance a direction
 *   $W$ (Gaussian, or the adversarial point for the first four entries) is scaled to
 *   $\sigma_{\max}(W)=\rho\cdot\frac32\bar\lambda^Q_h$ with $\rho=1$ (the boundary, every other
 *   instance) or $\rho$ uniform in $(0,1)$, put in place of $W^Q_h$, and
 *   $\log\kappa\le\min_{i,h,k,j}C_{ihkj}$ is compared ($X$, $W^K$ and $\bar\lambda^Q_h=\sigma_{\max}(W^Q_{h,0})$
 *   from the instances above; the adversarial restarts also move the log-scales of
 *   $(W^Q_0,W^K)$ and $X$, as in the trajectory configurations). Remark 6 is reported as measures on the
 *   first configuration: the slopes of $\log$LHS(12) (main-text $\bar\lambda^V$) and
 *   $\log$LHS(12-app) (appendix $\bar\lambda^V$) against $\log c$, locally ($c\in[1,2]$) and
 *   asymptotically ($c\in[10^3,10^4]$), for the $\mathsf{MH}$-preserving rescaling
 *   $(W^V/c,cW^O)$, for $W^O\to cW^O$ and for $W^V\to W^V/c$ with $y$ fixed (negative slopes
 *   would support the remark).
 *   $\kappa$ is multiplied by \texttt{kappa\_scale}; \texttt{bound\_scale}
 *   multiplies the $\frac32$ of the first invariant and divides the $\frac12$ of the second.
 *   \emph{Readings.}  \texttt{cond12-app-satisfied} and \texttt{pointwise-minS} read the paper;
 *   \texttt{cond12-app-violated} is a \emph{probe} of the invariants outside the hypothesis (12-app).}
 */
#include "lm_claim.h"
#include "lm_dyn.h"
#include "lm_mha.h"
#include "lm_t3.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { CFG_SAT, CFG_VIOL, CFG_POINT };
static const char *const configs[] = {"cond12-app-satisfied", "cond12-app-violated",
                                      "pointwise-minS", NULL};
static const lm_reading readings[] = {
    {LM_READ_PAPER, "(12-app) enforced, eta = 1/(2G')", NULL},
    {LM_READ_PROBE, "(12-app) violated by viol_factor: the invariants beyond the hypothesis", NULL},
    {LM_READ_PAPER, "the pointwise step min S >= kappa inside the bound sigma_max(W^Q) <= 3/2 lambda^Q", NULL},
    LM_READINGS_END};

#define PARAMS(NUM, SWITCH)                                                                                                                      \
    NUM(kappa_scale, 1.0, "(0, 1e12]", "multiplies kappa in min S >= kappa (and in gamma)")                                                      \
    NUM(bound_scale, 1.0, "(0, 1e6]", "multiplies the 3/2 of sigma_max(W^Q_r) <= 3/2 lambda^Q and divides the 1/2 of sigma_min(J_r) >= delta/2") \
    NUM(tol_scale, 1.0, "[0, inf)", "multiplies the forward-error band of f (comparisons inside it are decided in MPFR)")                        \
    NUM(T, 200, "int [1, 20000]", "GD iterations per run (quick: T/4) (at most 20000: run length bound)")                                        \
    NUM(viol_factor, 100.0, "[1, 1e6]", "cond12-app-violated: ||r_0|| over the largest residual meeting (12-app) (at least 2^-20 ||MH_0||)")     \
    NUM(eps_frac, 0.5, "(0, 1]", "cond12-app-satisfied: ||r_0|| over the largest residual meeting (12-app)")                                     \
    NUM(cG, 2.0, "(0, 1e6]", "Gaussian scale c_G (2 = appendix, 1 = eq. 11)")
LM_PARAMS(PARAMS)

/* Remark 6: slopes of log LHS(12) (main-text lambda^V) and log LHS(12-app) (appendix
 * lambda^V) in log c, locally (c in [1,2]) and asymptotically (c in [10^3,10^4]); double */
static void remark6(lm_eval *ev, const lm_mha *m0)
{
    static const char *mode_name[3] = {"(W^V/c, cW^O)", "W^O*c, y fixed", "W^V/c, y fixed"};
    static const double cs[2][2] = {{1.0, 2.0}, {1e3, 1e4}};
    static const char *range_name[2] = {"c in [1,2]", "c in [1e3,1e4]"};
    const lm_ctx dc = lm_ctx_double();
    for (int mode = 0; mode < 3; mode++)
        for (int rg = 0; rg < 2; rg++) {
            double L[2][2];
            for (int q = 0; q < 2; q++) {
                lm_mha *m = lm_mha_convert(m0, &dc);
                double cc = cs[rg][q];
                for (int i = 0; i < m->Wv->r; i++)
                    for (int j = 0; j < m->Wv->c; j++)
                        if (mode != 1) lm_mat_set_d(m->Wv, i, j, lm_mat_get_d(m->Wv, i, j) / cc);
                for (int i = 0; i < m->Wo->r; i++)
                    if (mode != 2) lm_mat_set_d(m->Wo, i, 0, lm_mat_get_d(m->Wo, i, 0) * cc);
                lm_dyn_consts k;
                lm_dyn_t3 t;
                int bad = lm_dyn_consts_eval(&k, m, NULL) || lm_dyn_t3_eval(&t, m, &k);
                L[q][0] = bad ? (double)NAN : lm_dyn_log_cond12(&k, &t, m->H, m->n, 0);
                L[q][1] = bad ? (double)NAN : lm_dyn_log_cond12app(&k, &t, m->H, m->n, 1);
                lm_mha_free(m);
            }
            for (int k = 0; k < 2; k++) {
                char nm[128];
                snprintf(nm, sizeof nm, "remark6 slope d log LHS%s / d log c, %s, %s",
                         k ? "(12-app) [app lambda^V]" : "(12) [main lambda^V]", mode_name[mode],
                         range_name[rg]);
                lm_measure(ev, nm, (L[1][k] - L[0][k]) / log(cs[rg][1] / cs[rg][0]));
            }
        }
}

static int pointwise(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    const lm_ctx *c = ev->ctx;
    lm_t3_opts o = {.kernel = LM_GAUSS, .cG = P.cG, .cond = LM_T3_COND_NONE,
                    .eps_frac = 0.5, .eps_free = 0.5, .kinds = 4, .sQK = 0.3, .sX = 0.3};
    lm_t3_inst I;
    int rc = lm_t3_setup(&I, ev, &o);
    if (rc) return rc < 0 ? rc : 0;
    lm_mha *m = I.m;
    lm_rng *g = lm_eval_rng(ev);
    const double rho = ev->x || ev->index % 2 == 0 ? 1.0 : lm_rng_uniform(g);
    lm_num lkap, lq, sw, t0, lmin;
    lm_num_inits(c, &lkap, &lq, &sw, &t0, &lmin, (lm_num *)NULL);
    if (lm_t3_log_kappa(&lkap, m, m->Wq)) { rc = lm_fail(ev, "SVD failed for kappa"); goto done; }
    lm_num_add_d(&lkap, &lkap, log(P.kappa_scale));
    for (int h = 0; h < m->H; h++) {
        if (lm_mat_smax(&lq, m->Wq[h])) { rc = lm_fail(ev, "SVD failed"); goto done; }
        lm_mat *W = lm_mat_new(m->D, m->d, c);
        for (int e = 0; e < m->D * m->d; e++) {
            double v = lm_rng_normal(g);
            if (ev->x && e < ev->nx) v = ev->x[e];
            lm_mat_set_d(W, e / m->d, e % m->d, v);
        }
        if (lm_mat_smax(&sw, W) || lm_num_sgn(&sw) <= 0) {
            lm_mat_free(W);
            rc = lm_fail(ev, "SVD failed or zero direction");
            goto done;
        }
        /* W <- rho * 3/2 lambda^Q_h * W / sigma_max(W) */
        lm_num_div(&t0, &lq, &sw);
        lm_num_mul_d(&t0, &t0, 1.5 * rho);
        lm_mat_scale(W, W, &t0);
        lm_mat_copy(m->Wq[h], W);
        lm_mat_free(W);
    }
    lm_mha_forward(m);
    lm_t3_log_min_S(&lmin, m);
    lm_obs_le_log(ev, -1, &lkap, &lmin, 0.0, "kappa <= min S at sigma_max(W^Q) = %.3g x 3/2 lambda^Q", rho);
    lm_measure(ev, "instance kind (0 = Example)", I.kind);
    lm_measure(ev, "rho = sigma_max(W^Q) / (3/2 lambda^Q)", rho);
    lm_measure(ev, "log kappa", lm_num_get_d(&lkap));
    lm_measure(ev, "log min S", lm_num_get_d(&lmin));
done:
    lm_num_clears(&lkap, &lq, &sw, &t0, &lmin, (lm_num *)NULL);
    lm_t3_clear(&I);
    return rc;
}

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    if (ev->config == CFG_POINT) return pointwise(ev);
    const lm_ctx *c = ev->ctx;
    const double bs = P.bound_scale, tol_scale = P.tol_scale;
    lm_t3_opts o = {.kernel = LM_GAUSS, .cG = P.cG,
                    .cond = ev->config == CFG_SAT ? LM_T3_COND_12APP : LM_T3_COND_12APP_VIOL,
                    .eps_frac = P.eps_frac, .eps_free = P.viol_factor,
                    .kinds = 4, .sQK = 0.3, .sX = 0.3};
    lm_t3_inst I;
    int rc = lm_t3_setup(&I, ev, &o);
    if (rc) return rc < 0 ? rc : 0;
    lm_mha *m = I.m;
    const int H = m->H, Nn2 = m->N * m->n * m->n, Dd = m->D * m->d;
    int T = lm_int(P.T);
    if (ev->quick) T /= 4;
    if (ev->searching) T /= 4;
    if (T < 4) T = 4;
    if (ev->tmax >= 0 && ev->tmax < T) T = ev->tmax;
    const double eta_d = 0.5 / I.Gp;
    if (ev->config == CFG_SAT && !ev->searching && c->backend == LM_DOUBLE) remark6(ev, m);
    lm_mat **WQ0 = lm_xcalloc((size_t)H, sizeof *WQ0);
    lm_mat *J = lm_mat_new(Nn2, Dd, c);
    const int nsv = Nn2 < Dd ? Nn2 : Dd;
    lm_num *sv = lm_nums_new(nsv, c);
    lm_num eta, delta, half_delta, jmax, lkap, lgam, eg, lograte, logf0, logf, rhs, t0, lmin, f0;
    lm_num lq[LM_DYN_MAXH];
    lm_num_inits(c, &eta, &delta, &half_delta, &jmax, &lkap, &lgam, &eg, &lograte, &logf0, &logf,
                 &rhs, &t0, &lmin, &f0, (lm_num *)NULL);
    for (int h = 0; h < H; h++) {
        WQ0[h] = lm_mat_dup(m->Wq[h]);
        lm_num_init(&lq[h], c);
    }
    lm_num_set_d(&eta, eta_d);
    int first[4] = {-1, -1, -1, -1};
    double worst[4] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
    if (lm_t3_delta(&delta, &jmax, m) || lm_t3_log_kappa(&lkap, m, WQ0)) {
        rc = lm_fail(ev, "SVD failed for delta or kappa");
        goto done;
    }
    for (int h = 0; h < H; h++)
        if (lm_mat_smax(&lq[h], WQ0[h])) { rc = lm_fail(ev, "SVD failed"); goto done; }
    lm_num_add_d(&lkap, &lkap, log(P.kappa_scale));
    lm_num_mul_d(&half_delta, &delta, 0.5 / bs);
    /* gamma = 1/2 delta^2 kappa^2 minVWO^2 from logs */
    lm_num_log(&lgam, &delta);
    lm_num_add(&lgam, &lgam, &lkap);
    lm_num_mul_d(&lgam, &lgam, 2.0);
    lm_num_add_d(&lgam, &lgam, log(0.5) + 2.0 * log(I.t3.minVWo));
    lm_num_exp(&eg, &lgam);
    lm_num_mul(&eg, &eg, &eta);
    if (!lm_assume(ev, lm_num_get_d(&eg) < 1.0, "eta*gamma = %.3g >= 1", lm_num_get_d(&eg)))
        goto done;
    lm_num_neg(&t0, &eg);
    lm_num_log1p(&lograte, &t0);
    lm_num_set(&f0, &m->f);
    lm_num_log(&logf0, &m->f);
    const double ftol0 = lm_t3_ftol(m);
    lm_series_axes(ev, "iterate t", "invariant ratio (LHS/RHS)", 1);
    char lab[96];
    for (int t = 0; t <= T; t++) {
        if (!lm_num_isfinite(&m->f)) { rc = lm_fail(ev, "loss not finite at t=%d", t); goto done; }
        if (t >= 1) {
            double rat[4] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
            for (int h = 0; h < H; h++) {
                /* (i) sigma_max(W^Q_{h,t}) <= 3/2 lambda^Q_h */
                lm_num sq, b;
                lm_num_inits(c, &sq, &b, (lm_num *)NULL);
                int e1 = lm_mat_smax(&sq, m->Wq[h]);
                lm_num_mul_d(&b, &lq[h], 1.5 * bs);
                if (!e1) {
                    snprintf(lab, sizeof lab, "t=%d sigma_max(W^Q_%d) <= 3/2 lambda^Q", t, h);
                    lm_obs_le(ev, t, &sq, &b, 0.0, "%s", lab);
                    rat[0] = fmax(rat[0], lm_num_get_d(&sq) / lm_num_get_d(&b));
                }
                /* (ii) delta/2 <= sigma_min(J_{h,t}) */
                lm_mha_jacQ(J, m, h);
                int e2 = lm_mat_svals(sv, J);
                if (!e2) {
                    lm_num *smin = &sv[nsv - 1];
                    snprintf(lab, sizeof lab, "t=%d delta/2 <= sigma_min(J_%d)", t, h);
                    lm_obs_le(ev, t, &half_delta, smin, 0.0, "%s", lab);
                    rat[1] = fmax(rat[1], lm_num_get_d(&half_delta) / lm_num_get_d(smin));
                }
                lm_num_clears(&sq, &b, (lm_num *)NULL);
                if (e1 || e2) { rc = lm_fail(ev, "SVD failed at t=%d", t); goto done; }
            }
            /* (iii) kappa <= min S_t, in the log domain */
            lm_t3_log_min_S(&lmin, m);
            snprintf(lab, sizeof lab, "t=%d kappa <= min S", t);
            lm_obs_le_log(ev, t, &lkap, &lmin, 0.0, "%s", lab);
            rat[2] = lm_num_get_d(&lkap) - lm_num_get_d(&lmin);
            rat[2] = exp(rat[2]);
            /* (iv) f_t <= (1 - eta gamma)^t f_0 */
            lm_num_log(&logf, &m->f);
            lm_num_mul_d(&rhs, &lograte, (double)t);
            lm_num_add(&rhs, &rhs, &logf0);
            snprintf(lab, sizeof lab, "t=%d f_t <= (1-eta gamma)^t f_0", t);
            lm_t3_obs_band_log(ev, t, &logf, &rhs, tol_scale * (lm_t3_ftol(m) + ftol0), lab);
            rat[3] = exp(lm_num_get_d(&logf) - lm_num_get_d(&rhs));
            for (int k = 0; k < 4; k++) {
                worst[k] = fmax(worst[k], rat[k]);
                if (first[k] < 0 && rat[k] > 1.0) first[k] = t;
            }
            if (T <= 400 || t % (T / 400) == 0) {
                lm_series(ev, "sigma_max(W^Q_t) / (3/2 lambda^Q)", t, rat[0]);
                lm_series(ev, "(delta/2) / sigma_min(J_t)", t, rat[1]);
                lm_series(ev, "kappa / min S_t", t, rat[2]);
                lm_series(ev, "f_t / ((1-eta gamma)^t f_0)", t, rat[3]);
            }
        }
        if (t == T) break;
        lm_t3_gd_step(NULL, m, &eta);
    }
    static const char *nm[4] = {"sigma_max(W^Q)", "sigma_min(J)", "min S", "loss rate"};
    for (int k = 0; k < 4; k++) {
        char b[96];
        snprintf(b, sizeof b, "first violation t, %s (-1: none)", nm[k]);
        lm_measure(ev, b, first[k]);
        snprintf(b, sizeof b, "max_t LHS/RHS, %s", nm[k]);
        lm_measure(ev, b, worst[k]);
    }
    lm_measure(ev, "instance kind (0 = Example)", I.kind);
    lm_measure(ev, "||r_0||", I.eps);
    lm_measure(ev, "log10 LHS(12-app), lambda^V appendix", I.log_c12app[1] / M_LN10);
    lm_measure(ev, "delta", lm_num_get_d(&delta));
    lm_measure(ev, "log10 kappa", lm_num_get_d(&lkap) / M_LN10);
    lm_measure(ev, "eta = 1/(2G')", eta_d);
    lm_measure(ev, "f_T / f_0", lm_num_get_d(&m->f) / lm_num_get_d(&f0));
done:
    lm_num_clears(&eta, &delta, &half_delta, &jmax, &lkap, &lgam, &eg, &lograte, &logf0, &logf,
                  &rhs, &t0, &lmin, &f0, (lm_num *)NULL);
    for (int h = 0; h < H; h++) {
        lm_mat_free(WQ0[h]);
        lm_num_clear(&lq[h]);
    }
    free(WQ0);
    lm_mat_free(J);
    lm_nums_free(sv, nsv);
    lm_t3_clear(&I);
    return rc;
}

LM_CLAIM(claim_dynamics_proof_theorem3_invariants) = {
    .kind = LM_KIND_TRAJECTORY,
    .source = "Appendix 1.5: invariant (67), the min S >= kappa step, Remark 6",
    .origin = "verbatim",
    .confidence = "high (transcription)",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.5,
    .search_dim = 4,
    .eval = eval,
};
