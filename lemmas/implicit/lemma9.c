/* lemmas/implicit/lemma9.c
 *
 * \claim{implicit/lemma9}{Restatement of Lemma 2 along NGD (App.~A.2.1)}
 * \source{implicit-bias-self-attention, Lemma 9 (Appendix A.2.1; restates Lemma 2 with explicit
 *   $R_\epsilon$, constants lost)}
 * \statement{As Lemma~2: under Assumptions~1--2, for $\epsilon\in(0,1)$ and every $W$ with
 *   $\|W\|\ge R_\epsilon=\frac{C\|W_{mm}\|}{\epsilon}\log\frac{C'nT\kappa_\ell\kappa_\Gamma}{\epsilon}$
 *   and $\min_is_{i,\mathrm{opt}}(W)\ge\underline s$:
 *   $\epsilon^*(W)=\frac{\langle-\nabla\hat L,\bar W\rangle}{\langle-\nabla\hat L,\bar W_{mm}\rangle}-1
 *   \le\epsilon$. The proof splits the samples by
 *   $\bar h_i:=\min_\tau(x_{i,\mathrm{opt}}-x_{i\tau})^\top\bar Wx_{i1}\,\|W_{mm}\|$ into
 *   $\mathcal I_1,\mathcal I_2,\mathcal I_3$.}
 * \check{The trajectory reading of the catalogue (check (a) of Lemma~2, run R1): NGD (4)
 *   (shared optimizer \texttt{ngd}, scaled cancellation-free gradient), $\eta=0.5$, from the
 *   Lemma-4 initialisation ($\sigma_0=0.01/d$), \texttt{steps}$=300$ iterations (75 when quick),
 *   on homogeneous Example-1-like data with $n=2$, $T=2$, $d=200$ (the only small sizes at which
 *   the reconstructed sufficient form ``A1-derived'' of Assumption~1 holds for most draws;
 *   draws failing it, or Assumption~2, are assumption-failed). At every iterate $t$ with
 *   $\epsilon(\|W_t\|)<1$ and $\min_is_{i,\mathrm{opt}}(W_t)\ge\underline s:=
 *   \texttt{s0\_factor}\cdot\min\{1/T,(1+(T-1)e^{\eta D-1})^{-1}\}$ the check records
 *   $\epsilon^*(W_t)\le\epsilon(\|W_t\|)$, where $\epsilon(R)$ inverts $R_\epsilon$ with
 *   $C=\texttt{C\_scale}$, $C'=\texttt{Cp\_scale}$ (both 1), $\kappa_\ell=e^{\Gamma_{\max}}$,
 *   $\kappa_\Gamma=\Gamma_{\max}/\Gamma_{\min}$ (bisection in double), and $\epsilon^*$ is
 *   computed in the working precision without cancellation as
 *   $\langle-g,\bar W_t-\bar W_{mm}\rangle/\langle-g,\bar W_{mm}\rangle$ (denominator
 *   $\sum_{i,\tau}C_{i\tau}h_{i\tau}(W_{mm})/\|W_{mm}\|$ from the scaled Assumption-2 gradient
 *   coefficients). The set sizes are logged with the reconstructed thresholds
 *   $\mathcal I_1=\{\bar h_i<1+\epsilon/2\}$, $\mathcal I_2=\{1+\epsilon/2\le\bar h_i<1+\epsilon\}$,
 *   $\mathcal I_3=\{\bar h_i\ge1+\epsilon\}$ at $\epsilon=\epsilon(\|W_t\|)$ (figure series and
 *   final-iterate measurements); the per-set inequalities (9)--(10) are not reconstructed in
 *   the catalogue and are not checked. A break is replayed wholly in MPFR up to the break.
 *   Falsifiability: along these runs the measured $\epsilon^*_t$ is negative (it tends to $0^-$
 *   as $\bar W_t\to\bar W_{mm}$), so no positive $C,C'$ can break the check; the test therefore
 *   flips the inequality (\texttt{flip}$=1$) and must come out violated.}
 */
#include "lm_claim.h"
#include "lm_attn.h"
#include "lm_ibgen.h"
#include "lm_svm.h"
#include <math.h>

static const char *const configs[] = {"R1 eta=0.5", NULL};

#define PARAMS(NUM, SWITCH)                                                                                                                                                   \
    NUM(C_scale, 1.0, "(0, 1e6]", "constant C of R_eps = C ||W_mm||/eps log(C' nT kappa/eps)")                                                                                \
    NUM(Cp_scale, 1.0, "(0, 1e6]", "constant C' of R_eps")                                                                                                                    \
    NUM(flip, 0, "int [0, 1]", "0: eps* <= eps(R) (the claim); 1: eps(R) <= eps* (wrong, for tests)")                                                                         \
    NUM(s0_factor, 0.99, "setting (0, 1]", "s_lower = s0_factor * min{1/T, (1+(T-1)e^{eta D-1})^-1} (a hypothesis threshold)")                                                \
    NUM(eta, 0.5, "(0, 1e3]", "NGD step size")                                                                                                                                \
    NUM(lambda_scale, 1.0, "setting [0, 1e6]", "constant of the A1-derived gate (a hypothesis threshold: it selects instances, the compared inequality does not contain it)") \
    NUM(steps, 300, "int [1, 10000]", "NGD iterations (quick: steps/4; at most 10000: run length bound)")                                                                     \
    NUM(n, 2, "int [1, 16]", "sequences (at most 16: run time bound)")                                                                                                        \
    NUM(T, 2, "int [2, 16]", "tokens per sequence (at least 2: an optimal token and another; at most 16: run time bound)")                                                    \
    NUM(d, 200, "int [1, 1000]", "embedding dimension (at most 1000: d x d matrices)")
LM_PARAMS(PARAMS)


static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    const lm_ctx *c = ev->ctx;
    int n = lm_int(P.n), T = lm_int(P.T), d = lm_int(P.d);
    lm_ibgen_ex1_opts o;
    lm_ibgen_ex1_defaults(&o, 0);
    o.n = n; o.T = T; o.d = d; o.sigma = -1.0;
    lm_attn_data *D = lm_ibgen_ex1(&o, g, c);
    lm_mat *W0 = lm_ibgen_w0(d, -1.0, g, c);
    int rc = 0, svm_ok = 0;
    lm_svm_sol s;
    lm_mat *Wmm = lm_mat_new(d, d, c), *Wb = lm_mat_new(d, d, c), *Cg = lm_mat_new(n, T, c);
    lm_mat *Gs = lm_mat_new(d, d, c), *h = lm_mat_new(n, T, c), *hb = lm_mat_new(n, T, c);
    lm_attn_fwd *F = lm_attn_fwd_new(D);
    lm_attn_state *S = NULL;
    lm_num ls, nw, nW, num, den, t1, t2;
    lm_num_inits(c, &ls, &nw, &nW, &num, &den, &t1, &t2, (lm_num *)NULL);
    lm_ibgen_stats st;
    lm_ibgen_stats_init(&st, c);
    if (lm_ibgen_stats_compute(&st, D, 0)) { rc = lm_fail(ev, "data statistics not finite"); goto out; }
    double a1r = 0.0;
    int m = lm_ibgen_assumptions(&a1r, D, P.lambda_scale, c);
    if (!lm_assume(ev, m >= 0 && (m & 3) == 3, "Assumptions 1 (A1-derived, ratio %.3g) / 2 fail", a1r))
        goto out;
    int sv = lm_svm_w(&s, D, NULL);
    svm_ok = 1;
    if (sv) { rc = lm_fail(ev, "W-SVM solver returned %d", sv); goto out; }
    lm_svm_w_matrix(Wmm, &s, D);
    lm_mat_frob(&nw, Wmm);
    double nwd = lm_num_get_d(&nw), Dd = lm_num_get_d(&st.Dc), eta = P.eta;
    double gmin = lm_num_get_d(&st.gam_min), gmax = lm_num_get_d(&st.gam_max);
    double K = P.Cp_scale * n * T * exp(gmax) * (gmax / gmin);
    double Cw = P.C_scale * nwd;
    double lslow = log(P.s0_factor *
                       fmin(1.0 / T, 1.0 / (1.0 + (T - 1) * exp(eta * Dd - 1.0))));
    int flip = lm_int(P.flip);
    lm_attn_opt_par p;
    lm_attn_opt_par_default(&p);
    p.eta = eta;
    const lm_attn_opt *opt = lm_attn_opt_find("ngd");
    S = lm_attn_state_new(W0, D->u);
    int steps = lm_int(P.steps);
    if (ev->quick) steps /= 4;
    if (ev->tmax >= 0 && ev->tmax < steps) steps = ev->tmax;
    long nobs = 0;
    double maxeps = -INFINITY;
    int I1 = 0, I2 = 0, I3 = 0;
    lm_series_axes(ev, "iteration t", "eps*(W_t) and eps(||W_t||)", 0);
    lm_attn_gaps(h, D, Wmm, D->opt);
    for (int t = 0;; t++) {
        if (lm_attn_forward(F, D, S->W, D->u, LM_ATTN_EXP)) { rc = lm_fail(ev, "non-finite forward at t=%d", t); goto out; }
        lm_mat_frob(&nW, S->W);
        double R = lm_num_get_d(&nW), epsR = lm_ibgen_eps_of_R(R, Cw, K);
        double mls = 0.0;
        for (int i = 0; i < n; i++) mls = fmin(mls, lm_mat_get_d(F->logs, i, F->opt[i]));
        if (epsR < 1.0 && mls >= lslow) {
            lm_attn_grad_coef_a2(Cg, &ls, F);
            if (!lm_num_isfinite(&ls)) { lm_obs_le_d(ev, t, 1.0, 0.0, 0.0, "gradient exactly zero"); goto out; }
            lm_attn_expand(Gs, Cg, NULL, D);
            /* Wb = W_t/||W_t|| - W_mm/||W_mm|| */
            lm_num_set_d(&t1, 1.0);
            lm_num_div(&t1, &t1, &nW);
            lm_mat_scale(Wb, S->W, &t1);
            lm_num_set_d(&t2, -1.0);
            lm_num_div(&t2, &t2, &nw);
            lm_mat_axpy(Wb, &t2, Wmm);
            lm_mat_dot(&num, Gs, Wb);
            lm_num_neg(&num, &num);
            lm_num_set_d(&den, 0.0);
            for (int i = 0; i < n; i++)
                for (int k = 0; k < T; k++) {
                    if (k == F->opt[i]) continue;
                    lm_mat_get(&t1, Cg, i, k);
                    lm_mat_get(&t2, h, i, k);
                    lm_num_mul(&t1, &t1, &t2);
                    lm_num_add(&den, &den, &t1);
                }
            lm_num_div(&den, &den, &nw);
            if (lm_num_sgn(&den) <= 0 || !lm_num_isfinite(&num)) {
                rc = lm_fail(ev, "<-grad, W_mm> not positive or non-finite at t=%d", t);
                goto out;
            }
            lm_num_div(&num, &num, &den);
            lm_num_set_d(&t1, epsR);
            if (flip)
                lm_obs_le(ev, t, &t1, &num, 0.0, "flipped: eps(||W_t||) <= eps*(W_t)");
            else
                lm_obs_le(ev, t, &num, &t1, 0.0, "eps*(W_t) <= eps(||W_t||) = %.3g", epsR);
            nobs++;
            double es = lm_num_get_d(&num);
            maxeps = fmax(maxeps, es);
            /* set sizes with bar h_i = min_tau h_itau(W_t) ||W_mm|| / ||W_t|| */
            lm_attn_gaps(hb, D, S->W, F->opt);
            I1 = I2 = I3 = 0;
            for (int i = 0; i < n; i++) {
                double hm = INFINITY;
                for (int k = 0; k < T; k++)
                    if (k != F->opt[i]) hm = fmin(hm, lm_mat_get_d(hb, i, k));
                hm *= nwd / R;
                if (hm < 1.0 + epsR / 2) I1++; else if (hm < 1.0 + epsR) I2++; else I3++;
            }
            if (!ev->searching) {
                lm_series(ev, "eps*(W_t)", t, es);
                lm_series(ev, "eps(||W_t||)", t, epsR);
                lm_series(ev, "|I1|", t, I1);
                lm_series(ev, "|I2|", t, I2);
                lm_series(ev, "|I3|", t, I3);
            }
        }
        if (t == steps) break;
        if (opt->step(S, F, D, &p)) { rc = lm_fail(ev, "NGD step failed at t=%d", t); goto out; }
    }
    if (!lm_assume(ev, nobs > 0, "no iterate reached ||W_t|| >= R_1 with s_opt >= s_lower"))
        goto out;
    if (!ev->searching) {
        lm_measure(ev, "checked iterates", (double)nobs);
        lm_measure(ev, "max eps*_t", maxeps);
        lm_measure(ev, "final |I1|", I1);
        lm_measure(ev, "final |I2|", I2);
        lm_measure(ev, "final |I3|", I3);
        lm_measure(ev, "A1-derived ratio", a1r);
    }
out:
    lm_num_clears(&ls, &nw, &nW, &num, &den, &t1, &t2, (lm_num *)NULL);
    lm_ibgen_stats_clear(&st);
    if (svm_ok) lm_svm_sol_clear(&s);
    if (S) lm_attn_state_free(S);
    lm_attn_fwd_free(F);
    lm_mat_free(W0); lm_mat_free(Wmm); lm_mat_free(Wb); lm_mat_free(Cg); lm_mat_free(Gs);
    lm_mat_free(h); lm_mat_free(hb);
    lm_attn_data_free(D);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "Run R1: NGD at eta = 0.5 on A1-derived EX1 data (n = 2, T = 2, d = 200, 300 steps): "
     "eps*(W_t) <= eps(||W_t||) at every iterate with eps(R) < 1 and s_opt above its floor.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_implicit_lemma9) = {
    .kind = LM_KIND_POINTWISE,
    .source = "Lemma 9 (Appendix A.2.1)",
    .origin = "reconstructed",
    .confidence = "medium",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .search_dim = 0,
    .eval = eval,
};
