/* lemmas/mirror/lemma16.c
 *
 * \claim{mirror/lemma16}{Lemma 16: the loss is bounded by the extreme token scores}
 * \source{mirror-descent-attention, Appendix A.3, Lemma 16}
 * \statement{Under Assumption A, $\mathcal L(W)$ is bounded above and below by finite
 *   dataset-dependent constants; explicitly, for all $W$,
 *   $\frac1n\sum_i\ell(\max_t\gamma_{it})\le\mathcal L(W)\le\frac1n\sum_i\ell(\min_t\gamma_{it})$,
 *   since the margin $\gamma_i^\top s_i$ is a convex combination of the scores.}
 * \check{Both inequalities are compared in the log domain in the working precision:
 *   $\log(\lambda_{lo}\cdot\mathrm{Lo})\le\log\mathcal L(W)\le\log(\lambda_{up}\cdot\mathrm{Up})$ with
 *   $\mathrm{Lo},\mathrm{Up}$ the two averages, $\lambda_{lo}=$\texttt{lower\_scale},
 *   $\lambda_{up}=$\texttt{upper\_scale} (both 1), $\log\mathcal L$ from the model's
 *   log-sum-exp forward pass, $\log\ell$ via \texttt{log1p}.  At each instance $W$ runs over
 *   $W=0$, Gaussian matrices at scales $10^{-3},\dots,10^{3}$, and the two saturated families
 *   $W=rW_{\rm sel}(\tau)$, $r\in\{10,30,100\}$, where $W_{\rm sel}(\tau)$ is the minimum-Frobenius
 *   matrix with $(x_{i\tau_i}-x_{it})^\top Wz_i=1$ for all $t\ne\tau_i$ (solved in double from the
 *   constraint Gram matrix, so every precision sees the same $W$), with $\tau=\mathrm{opt}$ (the
 *   lower bound is approached) and $\tau=\arg\min_t\gamma_{it}$ (the upper bound is approached):
 *   at saturation $\mathcal L$ equals a bound to all digits, so the comparison carries the
 *   relative allowance \texttt{tol\_scale}$\cdot64(1+\max|h_{it}|)\epsilon$ (the catalogue's
 *   $10^{-14}$ in double, tied to the precision; a double near miss is replayed in MPFR).
 *   Configurations: the paper's generator at $(3,4,4)$ and $(6,8,10)$ with the logistic loss,
 *   $(3,4,4)$ with the exponential loss, and an adversarial data set with $\|v\|_2=10$ (scores in
 *   $[-10,10]$, logistic).  Wrong-constant tests: \texttt{upper\_scale} $=0.999$ and
 *   \texttt{lower\_scale} $=1.001$ must come out violated.  Readings: every configuration is a \texttt{paper} reading (the statement as the catalogue reconstructs it).}
 */
#include "lm_claim.h"
#include "lm_md.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const configs[] = {"paper(3,4,4),logistic", "paper(6,8,10),logistic", "paper(3,4,4),exp",
                                      "large-v(3,4,4),logistic", NULL};
/* one reading per configuration (issue 16) */
static const lm_reading readings[] = {
    {LM_READ_PAPER, "Paper generator at (n,T,d) = (3,4,4), logistic loss: both bounds on L(W) at W "
                    "= 0, Gaussian W and the saturated W = r W_sel that approach either bound.",
     NULL},
    {LM_READ_PAPER, "Paper generator at the paper's experimental size (6,8,10), logistic loss: "
                    "both score bounds on L(W) over Gaussian and saturated W.", NULL},
    {LM_READ_PAPER, "Paper generator at (3,4,4) with the exponential loss: both score bounds on "
                    "L(W), checking that the lemma holds for the other admissible loss.", NULL},
    {LM_READ_PAPER, "Adversarial data at (3,4,4) with ||v||_2 = 10, scores in [-10,10], logistic "
                    "loss: both bounds on L(W) where the saturated losses span many decades.",
     NULL},
    LM_READINGS_END};


#define PARAMS(NUM, SWITCH)                                                                       \
    NUM(lower_scale, 1.0, "(0, 1e6]", "multiplies the lower bound (1/n) sum ell(max_t gamma_it)") \
    NUM(upper_scale, 1.0, "(0, 1e6]", "multiplies the upper bound (1/n) sum ell(min_t gamma_it)") \
    NUM(tol_scale, 1.0, "[0, inf)", "multiplies the rounding allowance 64 (1 + max|logit|) eps")  \
    NUM(v_norm, 10.0, "(0, 1e6]", "||v||_2 of the large-v configuration")
LM_PARAMS(PARAMS)

/* the minimum-Frobenius W with (x_tau - x_t)^T W z_i = 1, t != tau_i (double) */
static int select_dir(lm_mat *W, const lm_mddata *D, const int *tau)
{
    lm_ctx cd = lm_ctx_double();
    int n = D->n, T = D->T, d = D->d, m = n * (T - 1);
    lm_mat **A = lm_xcalloc((size_t)m, sizeof *A);
    lm_mat *G = lm_mat_new(m, m, &cd), *one = lm_mat_new(m, 1, &cd), *cf = lm_mat_new(m, 1, &cd);
    int k = 0;
    for (int i = 0; i < n; i++)
        for (int t = 0; t < T; t++) {
            if (t == tau[i]) continue;
            A[k] = lm_mat_new(d, d, &cd);
            for (int a = 0; a < d; a++)
                for (int b = 0; b < d; b++)
                    lm_mat_set_d(A[k], a, b,
                                 (lm_mat_get_d(D->X[i], tau[i], a) - lm_mat_get_d(D->X[i], t, a)) *
                                     lm_mat_get_d(D->Z, i, b));
            k++;
        }
    lm_num v;
    lm_num_init(&v, &cd);
    for (int a = 0; a < m; a++) {
        lm_mat_set_d(one, a, 0, 1.0);
        for (int b = a; b < m; b++) {
            lm_mat_dot(&v, A[a], A[b]);
            lm_mat_set(G, a, b, &v);
            lm_mat_set(G, b, a, &v);
        }
    }
    int rc = lm_mat_solve(cf, G, one);
    lm_mat *Wd = lm_mat_new(d, d, &cd);
    if (!rc)
        for (int a = 0; a < m; a++) lm_mat_axpy_d(Wd, lm_mat_get_d(cf, a, 0), A[a]);
    if (!lm_mat_isfinite(Wd)) rc = 1;
    lm_mat_copy(W, Wd);
    lm_num_clear(&v);
    for (int a = 0; a < m; a++) lm_mat_free(A[a]);
    free(A);
    lm_mat_free(G); lm_mat_free(one); lm_mat_free(cf); lm_mat_free(Wd);
    return rc;
}

/* log ell(g) */
static void log_loss(lm_num *r, const lm_num *g, lm_attn_loss loss, lm_num *w)
{
    if (loss == LM_ATTN_EXP) {
        lm_num_neg(r, g);
        return;
    }
    /* log softplus(-g) = log(log1p(e^-|g|) + max(-g, 0)) */
    lm_num_abs(w, g);
    lm_num_neg(w, w);
    lm_num_exp(w, w);
    lm_num_log1p(w, w);
    if (lm_num_sgn(g) < 0) lm_num_sub(w, w, g);
    lm_num_log(r, w);
}

/* log((1/n) sum_i ell(ext_t gamma_it)), ext = max (hi = 1) or min */
static void log_bound(lm_num *r, const lm_attn_fwd *F, int hi, lm_attn_loss loss, const lm_ctx *c)
{
    lm_num e, v, w, acc;
    lm_num_inits(c, &e, &v, &w, &acc, (lm_num *)NULL);
    lm_num_set_d(&acc, 0.0);
    for (int i = 0; i < F->n; i++) {
        lm_mat_get(&e, F->gam, i, 0);
        for (int t = 1; t < F->T; t++) {
            lm_mat_get(&v, F->gam, i, t);
            if (hi ? lm_num_cmp(&v, &e) > 0 : lm_num_cmp(&v, &e) < 0) lm_num_set(&e, &v);
        }
        log_loss(&v, &e, loss, &w);
        lm_num_exp(&v, &v); /* ell itself is O(1) or its exp is finite in every context here */
        lm_num_add(&acc, &acc, &v);
    }
    lm_num_div_d(&acc, &acc, (double)F->n);
    lm_num_log(r, &acc);
    lm_num_clears(&e, &v, &w, &acc, (lm_num *)NULL);
}

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    const lm_ctx *c = ev->ctx;
    int cfg = ev->config;
    int n = cfg == 1 ? 6 : 3, T = cfg == 1 ? 8 : 4, d = cfg == 1 ? 10 : 4;
    lm_attn_loss loss = cfg == 2 ? LM_ATTN_EXP : LM_ATTN_LOGISTIC;
    lm_rng *g = lm_eval_rng(ev);
    lm_mddata *D = lm_md_gen_paper(g, n, T, d, c);
    if (cfg == 3) lm_mat_scale_d(D->v, D->v, P.v_norm);
    lm_attn_fwd *F = lm_md_fwd_new(D);
    lm_mat *W = lm_mat_new(d, d, c), *Sopt = lm_mat_new(d, d, c), *Smin = lm_mat_new(d, d, c);
    lm_mat *B = lm_mat_new(d, d, c);
    lm_num lo, up, lL, x;
    lm_num_inits(c, &lo, &up, &lL, &x, (lm_num *)NULL);
    int rc = 0;
    int tau_opt[16], tau_min[16];
    for (int i = 0; i < n; i++)
        if (D->alpha[i] < 0) {
            lm_assume(ev, 0, "tied token scores in sample %d", i);
            goto out;
        }
    if (lm_md_forward(F, D, W, loss)) { rc = lm_fail(ev, "non-finite forward pass at W = 0"); goto out; }
    for (int i = 0; i < n; i++) {
        tau_opt[i] = D->alpha[i];
        int mn = 0;
        for (int t = 1; t < T; t++)
            if (lm_mat_get_d(F->gam, i, t) < lm_mat_get_d(F->gam, i, mn)) mn = t;
        tau_min[i] = mn;
    }
    log_bound(&lo, F, 1, loss, c);
    log_bound(&up, F, 0, loss, c);
    lm_num_add_d(&lo, &lo, log(P.lower_scale));
    lm_num_add_d(&up, &up, log(P.upper_scale));
    if (select_dir(Sopt, D, tau_opt) || select_dir(Smin, D, tau_min)) {
        lm_assume(ev, 0, "the selection constraints are degenerate (singular Gram matrix)");
        goto out;
    }
    for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++) lm_mat_set_d(B, a, b, lm_rng_normal(g));

    /* the W of this instance: 0, Gaussian at 10^-3..10^3, r W_sel(opt), r W_sel(argmin) */
    double slack_lo = INFINITY, slack_up = INFINITY;
    for (int j = 0; j < 14; j++) {
        char lab[48];
        if (j == 0) {
            lm_mat_zero(W);
            snprintf(lab, sizeof lab, "W = 0");
        } else if (j <= 7) {
            double sc = pow(10.0, j - 4);
            lm_mat_scale_d(W, B, sc);
            snprintf(lab, sizeof lab, "Gaussian W, scale %g", sc);
        } else {
            static const double rs[] = {10.0, 30.0, 100.0};
            double r = rs[(j - 8) % 3];
            lm_mat_scale_d(W, j < 11 ? Sopt : Smin, r);
            snprintf(lab, sizeof lab, "W = %g W_sel(%s)", r, j < 11 ? "opt" : "argmin");
        }
        if (lm_md_forward(F, D, W, loss)) { rc = lm_fail(ev, "non-finite forward pass (%s)", lab); goto out; }
        lm_mat_max_abs(&x, F->a);
        double reltol = P.tol_scale * 64.0 * (1.0 + lm_num_get_d(&x)) * lm_ctx_eps(c);
        lm_num_set(&lL, &F->logL);
        lm_obs_le_log(ev, -1, &lo, &lL, reltol, "lower: Lo <= L(W), %s", lab);
        lm_obs_le_log(ev, -1, &lL, &up, reltol, "upper: L(W) <= Up, %s", lab);
        lm_num_sub(&x, &lL, &lo);
        slack_lo = fmin(slack_lo, lm_num_get_d(&x));
        lm_num_sub(&x, &up, &lL);
        slack_up = fmin(slack_up, lm_num_get_d(&x));
    }
    lm_measure(ev, "log Lo", lm_num_get_d(&lo));
    lm_measure(ev, "log Up", lm_num_get_d(&up));
    lm_measure(ev, "min log(L/Lo)", slack_lo);
    lm_measure(ev, "min log(Up/L)", slack_up);
out:
    lm_num_clears(&lo, &up, &lL, &x, (lm_num *)NULL);
    lm_mat_free(W); lm_mat_free(Sopt); lm_mat_free(Smin); lm_mat_free(B);
    lm_attn_fwd_free(F);
    lm_md_data_free(D);
    return rc;
}

LM_CLAIM(claim_mirror_lemma16) = {
    .kind = LM_KIND_POINTWISE,
    .source = "Appendix A.3, Lemma 16",
    .origin = "reconstructed",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 1.0,
    .eval = eval,
};
