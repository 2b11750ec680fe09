/* lemmas/implicit/lemma2.c
 *
 * \claim{implicit/lemma2}{Gradient correlation with $W_{mm}$ (key lemma)}
 * \source{implicit-bias-self-attention, Lemma 2 (form reconstructed; $R_\epsilon$ constants lost)}
 * \statement{Under Assumptions~1--2, for every $\epsilon\in(0,1)$ there is
 *   $R_\epsilon=\frac{C\|W_{mm}\|}{\epsilon}\log\frac{C'nT\kappa_\ell\kappa_\Gamma}{\epsilon}$ such
 *   that for every $W$ with $\|W\|\ge R_\epsilon$ and $\min_is_{i,\mathrm{opt}}(W)\ge\underline s$:
 *   $\langle\nabla\hat L(W),\bar W\rangle\ge(1+\epsilon)\langle\nabla\hat L(W),\bar W_{mm}\rangle$,
 *   i.e.\ $\epsilon^*(W):=\frac{\langle-\nabla\hat L,\bar W\rangle}{\langle-\nabla\hat L,\bar
 *   W_{mm}\rangle}-1\le\epsilon$.}
 * \check{For a given $W$ with $\|W\|=R$ the check inverts the reconstructed $R_\epsilon$:
 *   $\epsilon(R)$ is the root of $R=\frac{C\|W_{mm}\|}{\epsilon}\log\frac{C'nT\kappa_\ell
 *   \kappa_\Gamma}{\epsilon}$ (decreasing in $\epsilon$; bisection in double, $C=\texttt{C\_scale}$,
 *   $C'=\texttt{Cp\_scale}$, both 1 by default as the catalogue says), with
 *   $\kappa_\ell=e^{\Gamma_{\max}}$ (exponential loss, fixed decoder) and
 *   $\kappa_\Gamma=\Gamma_{\max}/\Gamma_{\min}$. When $\epsilon(R)\ge1$ the lemma says nothing
 *   and the instance is assumption-failed. The observation is $\epsilon^*(W)\le\epsilon(R)$,
 *   with $\epsilon^*$ computed in the working precision without cancellation as
 *   $\langle-g,\bar W-\bar W_{mm}\rangle/\langle-g,\bar W_{mm}\rangle$ from the scaled gradient
 *   $g$ (Assumption-2 form; the denominator as $\sum_{i,\tau}C_{i\tau}h_{i\tau}(W_{mm})/\|W_{mm}\|$,
 *   positive by Lemma~6). Hypotheses per instance: Assumption~2, the reconstructed sufficient
 *   form ``A1-derived'' of Assumption~1 (shared generator module, \texttt{lambda\_scale}$=1$) and
 *   $\min_is_{i,\mathrm{opt}}(W)\ge\underline s:=\texttt{s0\_factor}\cdot\min\{1/T,
 *   (1+(T-1)e^{\eta D-1})^{-1}\}$ ($\eta=0.5$, \texttt{s0\_factor}$=0.99$: Eq.~(18) with
 *   $s^{(0)}\approx1/T$ of the Lemma-4 initialisation), as the catalogue demands (the lemma
 *   is not claimed without the $s_{\mathrm{opt}}$ constraint). A1-derived essentially never
 *   holds for $n\ge3$ at moderate $d$, so data are homogeneous Example-1-like with $n=2$,
 *   $T=2$, $d=200$ (draws failing A1-derived are assumption-failed). Configuration
 *   \texttt{perturb}: $W=R\,(\bar W_{mm}+\delta P)/\|\bar W_{mm}+\delta P\|$ with $P$ a random
 *   unit element of $\mathrm{span}\{x_{kt}x_{j1}^\top\}$ (all pairs $k,j$),
 *   $\delta\in\{0.05,0.2,0.5,1,2\}$ and $R/\|W_{mm}\|\in\{10,20,40,80\}$ (cycled by instance);
 *   the adversarial search moves $\log(R/(20\|W_{mm}\|))$ and the $(nT)\cdot n$ span
 *   coefficients of $P$ (scale $2$) to maximise $\epsilon^{*}\,/\,\epsilon(R)$. The measured
 *   $\epsilon^*$ and $\epsilon(R)$ are reported. In this regime the measured $\epsilon^*$ is
 *   negative (the claim holds with the whole of $\epsilon(R)$ as slack; the ratio shown is
 *   then $\le0$), so no positive choice of $C,C'$ can break it; the falsifiability test
 *   therefore flips the inequality (\texttt{flip}$=1$) and must come out violated.}
 */
#include "lm_claim.h"
#include "lm_attn.h"
#include "lm_ibgen.h"
#include "lm_svm.h"
#include <math.h>
#include <stdlib.h>

static const char *const configs[] = {"perturb", NULL};

#define PARAMS(NUM, SWITCH)                                                                                                                                                   \
    NUM(C_scale, 1.0, "(0, 1e6]", "constant C of R_eps = C ||W_mm||/eps log(C' nT kappa/eps)")                                                                                \
    NUM(Cp_scale, 1.0, "(0, 1e6]", "constant C' of R_eps")                                                                                                                    \
    NUM(flip, 0, "int [0, 1]", "0: eps*(W) <= eps(R) (the claim); 1: eps(R) <= eps*(W) (wrong, for tests)")                                                                   \
    NUM(s0_factor, 0.99, "setting (0, 1]", "s_lower = s0_factor * min{1/T, (1+(T-1)e^{eta D-1})^-1} (a hypothesis threshold)")                                                \
    NUM(eta, 0.5, "(0, 1e3]", "NGD step size in the Eq. (18) lower bound")                                                                                                    \
    NUM(lambda_scale, 1.0, "setting [0, 1e6]", "constant of the A1-derived gate (a hypothesis threshold: it selects instances, the compared inequality does not contain it)") \
    NUM(n, 2, "int [1, 16]", "sequences (at most 16: run time bound)")                                                                                                        \
    NUM(T, 2, "int [2, 16]", "tokens per sequence (at least 2: an optimal token and another; at most 16: run time bound)")                                                    \
    NUM(d, 200, "int [1, 1000]", "embedding dimension (at most 1000: d x d matrices)")
LM_PARAMS(PARAMS)


static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    const lm_ctx *c = ev->ctx;
    int n = lm_int(prm.n), T = lm_int(prm.T), d = lm_int(prm.d);
    lm_ibgen_ex1_opts o;
    lm_ibgen_ex1_defaults(&o, 0);
    o.n = n; o.T = T; o.d = d; o.sigma = -1.0;
    lm_attn_data *D = lm_ibgen_ex1(&o, g, c);
    int np = n * T * n;
    double *pr = lm_xmalloc(sizeof(double) * (size_t)np);
    for (int k = 0; k < np; k++) pr[k] = lm_rng_normal(g);
    static const double deltas[] = {0.05, 0.2, 0.5, 1.0, 2.0}, Rs[] = {10.0, 20.0, 40.0, 80.0};
    int rc = 0, svm_ok = 0;
    lm_svm_sol s;
    lm_mat *Wmm = lm_mat_new(d, d, c), *P = lm_mat_new(d, d, c), *W = lm_mat_new(d, d, c);
    lm_mat *Cg = lm_mat_new(n, T, c), *Gs = lm_mat_new(d, d, c), *h = lm_mat_new(n, T, c);
    lm_mat *tk = lm_mat_new(d, 1, c);
    lm_attn_fwd *F = lm_attn_fwd_new(D);
    lm_num ls, nw, num, den, t1, t2;
    lm_num_inits(c, &ls, &nw, &num, &den, &t1, &t2, (lm_num *)NULL);
    lm_ibgen_stats st;
    lm_ibgen_stats_init(&st, c);
    if (lm_ibgen_stats_compute(&st, D, 0)) { rc = lm_fail(ev, "data statistics not finite"); goto out; }
    double a1r = 0.0;
    int m = lm_ibgen_assumptions(&a1r, D, prm.lambda_scale, c);
    if (!lm_assume(ev, m >= 0 && (m & 3) == 3, "Assumptions 1 (A1-derived, ratio %.3g) / 2 fail", a1r))
        goto out;
    int sv = lm_svm_w(&s, D, NULL);
    svm_ok = 1;
    if (sv) { rc = lm_fail(ev, "W-SVM solver returned %d", sv); goto out; }
    lm_svm_w_matrix(Wmm, &s, D);
    lm_mat_frob(&nw, Wmm);
    lm_mat_scale_d(Wmm, Wmm, 1.0); /* keep W_mm; normalised copies below */
    double nwd = lm_num_get_d(&nw);
    /* P = sum_{k,t,j} p x_kt x_j1^T, unit norm */
    lm_mat_zero(P);
    for (int k = 0, q = 0; k < n; k++)
        for (int t = 0; t < T; t++)
            for (int j = 0; j < n; j++, q++) {
                double co = ev->x ? 2.0 * ev->x[1 + q % (ev->nx - 1)] : pr[q];
                for (int a = 0; a < d; a++) {
                    lm_mat_get(&t1, D->X[k], t, a);
                    lm_num_mul_d(&t1, &t1, co);
                    for (int b = 0; b < d; b++) {
                        lm_mat_get(&t2, D->X[j], 0, b);
                        lm_num_mul(&t2, &t2, &t1);
                        lm_mat_get(&num, P, a, b);
                        lm_num_add(&num, &num, &t2);
                        lm_mat_set(P, a, b, &num);
                    }
                }
            }
    lm_mat_frob(&t1, P);
    if (lm_num_sgn(&t1) <= 0) { lm_assume(ev, 0, "zero perturbation"); goto out; }
    double delta = ev->x ? 1.0 : deltas[ev->index % 5];
    double R = ev->x ? 20.0 * nwd * exp(fmax(-3.0, fmin(3.0, ev->x[0]))) : Rs[(ev->index / 5) % 4] * nwd;
    /* W = R (Wmm/||Wmm|| + delta P/||P||) / ||.|| */
    lm_num_set_d(&t2, delta);
    lm_num_div(&t2, &t2, &t1);
    lm_mat_scale(W, P, &t2);
    lm_num_set_d(&t2, 1.0);
    lm_num_div(&t2, &t2, &nw);
    lm_mat_scale(P, Wmm, &t2); /* P := bar W_mm */
    lm_mat_add(W, W, P);
    lm_mat_frob(&t1, W);
    lm_num_set_d(&t2, R);
    lm_num_div(&t2, &t2, &t1);
    lm_mat_scale(W, W, &t2);
    if (lm_attn_forward(F, D, W, D->u, LM_ATTN_EXP)) { rc = lm_fail(ev, "non-finite forward"); goto out; }
    double Dd = lm_num_get_d(&st.Dc), eta = prm.eta;
    double slow = prm.s0_factor * fmin(1.0 / T, 1.0 / (1.0 + (T - 1) * exp(eta * Dd - 1.0)));
    double mls = 0.0;
    for (int i = 0; i < n; i++) mls = fmin(mls, lm_mat_get_d(F->logs, i, F->opt[i]));
    if (!lm_assume(ev, mls >= log(slow), "min_i s_opt = %.3g below s_lower = %.3g", exp(mls), slow))
        goto out;
    lm_attn_grad_coef_a2(Cg, &ls, F);
    if (!lm_num_isfinite(&ls)) { lm_obs_le_d(ev, -1, 1.0, 0.0, 0.0, "gradient exactly zero"); goto out; }
    lm_attn_expand(Gs, Cg, NULL, D);
    /* numerator <-g, bar W - bar W_mm>, P holds bar W_mm */
    lm_mat_frob(&t1, W);
    lm_num_set_d(&t2, 1.0);
    lm_num_div(&t2, &t2, &t1);
    lm_mat_scale(W, W, &t2);
    lm_mat_sub(W, W, P);
    lm_mat_dot(&num, Gs, W);
    lm_num_neg(&num, &num);
    /* denominator sum C_itau h_itau(W_mm) / ||W_mm|| */
    lm_attn_gaps(h, D, Wmm, F->opt);
    lm_num_set_d(&den, 0.0);
    for (int i = 0; i < n; i++)
        for (int t = 0; t < T; t++) {
            if (t == F->opt[i]) continue;
            lm_mat_get(&t1, Cg, i, t);
            lm_mat_get(&t2, h, i, t);
            lm_num_mul(&t1, &t1, &t2);
            lm_num_add(&den, &den, &t1);
        }
    lm_num_div(&den, &den, &nw);
    if (lm_num_sgn(&den) <= 0 || !lm_num_isfinite(&num)) {
        rc = lm_fail(ev, "<-grad, W_mm> not positive or non-finite numerator");
        goto out;
    }
    lm_num_div(&num, &num, &den); /* eps* */
    double gmin = lm_num_get_d(&st.gam_min), gmax = lm_num_get_d(&st.gam_max);
    double K = prm.Cp_scale * n * T * exp(gmax) * (gmax / gmin);
    double epsR = lm_ibgen_eps_of_R(R, prm.C_scale * nwd, K);
    if (!lm_assume(ev, epsR < 1.0, "R = %.3g ||W_mm|| is below R_1", R / nwd)) goto out;
    lm_num_set_d(&t1, epsR);
    if (lm_int(prm.flip))
        lm_obs_le(ev, -1, &t1, &num, 0.0, "flipped: eps(R) <= eps*(W), R = %.3g ||W_mm||", R / nwd);
    else
        lm_obs_le(ev, -1, &num, &t1, 0.0, "eps*(W) <= eps(R), R = %.3g ||W_mm||, delta = %.3g",
                  R / nwd, delta);
    if (!ev->searching) {
        lm_measure(ev, "eps*", lm_num_get_d(&num));
        lm_measure(ev, "eps(R)", epsR);
        lm_measure(ev, "R/||W_mm||", R / nwd);
        lm_measure(ev, "min s_opt", exp(mls));
        lm_measure(ev, "A1-derived ratio", a1r);
    }
out:
    lm_num_clears(&ls, &nw, &num, &den, &t1, &t2, (lm_num *)NULL);
    lm_ibgen_stats_clear(&st);
    if (svm_ok) lm_svm_sol_clear(&s);
    lm_attn_fwd_free(F);
    lm_mat_free(Wmm); lm_mat_free(P); lm_mat_free(W); lm_mat_free(Cg); lm_mat_free(Gs);
    lm_mat_free(h); lm_mat_free(tk);
    free(pr);
    lm_attn_data_free(D);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "W = R (W_mm/||W_mm|| + delta P) normalised, delta in {0.05..2}, R/||W_mm|| in {10..80}, on "
     "A1-derived EX1 data (n = 2, T = 2, d = 200): eps*(W) <= eps(R), plus a search over R and P.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_implicit_lemma2) = {
    .kind = LM_KIND_POINTWISE,
    .source = "Lemma 2 (form reconstructed; R_eps constants lost)",
    .origin = "reconstructed",
    .confidence = "medium",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 1.0,
    .search_dim = 9,
    .eval = eval,
};
