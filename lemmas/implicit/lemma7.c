/* lemmas/implicit/lemma7.c
 *
 * \claim{implicit/lemma7}{Iterate norm grows linearly under NGD (Eq.~(12))}
 * \source{implicit-bias-self-attention, Lemma 7 and Eq.~(12) (constants derived)}
 * \statement{For NGD (4) with fixed decoder, under Assumption~2, for all $t\ge0$:
 *   $\frac{\eta t}{D\|W_{mm}\|}-\|W_0\|\le\langle W_t,\bar W_{mm}\rangle\le\|W_t\|\le\|W_0\|+\eta t$.}
 * \check{Live NGD runs (run R1 of the catalogue, shared optimizer \texttt{ngd} with the
 *   scaled, cancellation-free gradient) from the Lemma-4 initialisation
 *   ($W_0$ i.i.d.\ $\mathcal N(0,\sigma_0^2)$, $\sigma_0=0.01/d$) on Example-1-like
 *   heterogeneous data ($n=6$, $T=4$, $d=32$, $\sigma=d^{-1/2}$, $u=3e_1$; Assumption~2
 *   holds exactly, which is all the derivation uses: each NGD step has
 *   $\langle-\nabla\hat L/\|\nabla\hat L\|,\bar W_{mm}\rangle\ge1/(D\|W_{mm}\|)$ by Lemma~6).
 *   $W_{mm}$ is solved in the working precision. At every iterate $t=0,\dots,\texttt{steps}$
 *   ($300$; $75$ when quick) three observations are recorded: (i)
 *   $\texttt{c\_scale}\cdot\eta t/(D\|W_{mm}\|)\le\langle W_t,\bar W_{mm}\rangle+\|W_0\|$ (the
 *   lower bound, rearranged so both sides are non-negative); (ii)
 *   $\langle W_t,\bar W_{mm}\rangle\le\|W_t\|$; (iii)
 *   $\|W_t\|\le\|W_0\|+\texttt{up\_scale}\cdot\eta t$ (for $t\ge1$; at $t=0$ it is an
 *   identity). Tolerances are rounding only:
 *   $10^3(1+t)$ ulps of the working precision (the iterate accumulates one rounding per
 *   step) plus, for (i), the W-SVM solver's certified infeasibility. Configurations:
 *   \texttt{R1 eta=0.5}, \texttt{R1 eta=0.05}, \texttt{R1 eta=5} (outside the derived
 *   $\eta D\le1$ regime of the other lemmas; Lemma~7's derivation needs no step-size
 *   condition) and \texttt{R5 antipodal} ($\eta=0.5$, noise-free antipodal optimal tokens).
 *   A break is replayed wholly in MPFR (the same data and $W_0$ from the seed, the whole
 *   trajectory up to the break). The figure shows $\|W_t\|$ with both bounds.
 *   Wrong constants: $\texttt{c\_scale}=10$ (the measured growth rate of
 *   $\langle W_t,\bar W_{mm}\rangle$ is about $\eta$, versus the bound
 *   $\eta/(D\|W_{mm}\|)$) or $\texttt{up\_scale}=0.9$.}
 */
#include "lm_claim.h"
#include "lm_attn.h"
#include "lm_ibgen.h"
#include "lm_svm.h"
#include <math.h>

static const char *const configs[] = {"R1 eta=0.5", "R1 eta=0.05", "R1 eta=5", "R5 antipodal",
                                      NULL};

#define PARAMS(NUM, SWITCH)                                                                                                \
    NUM(c_scale, 1.0, "[0, 1e6]", "multiplies the lower slope eta/(D ||W_mm||) (1 = the claim)")                           \
    NUM(up_scale, 1.0, "[0, 1e6]", "multiplies the upper slope eta (1 = the claim)")                                       \
    NUM(eta_scale, 1.0, "(0, 1e3]", "multiplies the configuration's step size")                                            \
    NUM(steps, 300, "int [1, 20000]", "NGD iterations (quick: steps/4; at most 20000: run length bound)")                  \
    NUM(n, 6, "int [1, 32]", "sequences (at most 32: run time bound)")                                                     \
    NUM(T, 4, "int [2, 32]", "tokens per sequence (at least 2: an optimal token and another; at most 32: run time bound)") \
    NUM(d, 32, "int [1, 240]", "embedding dimension (at most 240: d x d matrices)")
LM_PARAMS(PARAMS)

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    const lm_ctx *c = ev->ctx;
    int n = lm_int(P.n), T = lm_int(P.T), d = lm_int(P.d);
    static const double etas[] = {0.5, 0.05, 5.0, 0.5};
    double eta = etas[ev->config] * P.eta_scale;
    lm_ibgen_ex1_opts o;
    lm_ibgen_ex1_defaults(&o, 1);
    o.n = n; o.T = T; o.d = d; o.sigma = -1.0;
    o.antipodal = ev->config == 3;
    lm_attn_data *D = lm_ibgen_ex1(&o, g, c);
    lm_mat *W0 = lm_ibgen_w0(d, -1.0, g, c);
    lm_mat *Wmm = lm_mat_new(d, d, c);
    lm_attn_fwd *F = lm_attn_fwd_new(D);
    lm_attn_state *S = NULL;
    lm_svm_sol s;
    int svm_ok = 0, rc = 0;
    lm_num nW0, nWmm, Dc, ip, nW, a, b;
    lm_num_inits(c, &nW0, &nWmm, &Dc, &ip, &nW, &a, &b, (lm_num *)NULL);
    lm_ibgen_stats st;
    lm_ibgen_stats_init(&st, c);
    if (lm_ibgen_stats_compute(&st, D, 0)) { rc = lm_fail(ev, "data statistics not finite"); goto out; }
    {
        double sp = lm_num_get_d(&st.spread), ga = lm_num_get_d(&st.gam_abs);
        if (!lm_assume(ev, sp <= 4.0 * ldexp(1.0, (int)lm_ctx_log2eps(c)) * ga &&
                               lm_num_sgn(&st.gam_min) > 0,
                       "Assumption 2 / unique optimal token fails (spread %.3g)", sp))
            goto out;
    }
    int sv = lm_svm_w(&s, D, NULL);
    svm_ok = 1;
    if (sv) { rc = lm_fail(ev, "W-SVM solver returned %d", sv); goto out; }
    lm_svm_w_matrix(Wmm, &s, D);
    lm_mat_frob(&nWmm, Wmm);
    lm_mat_frob(&nW0, W0);
    lm_num_set(&Dc, &st.Dc);
    double infeas = fmax(0.0, -s.cert.min_slack);
    /* lower slope eta / (D ||W_mm||) in the context */
    lm_num slope;
    lm_num_init(&slope, c);
    lm_num_mul(&slope, &Dc, &nWmm);
    {
        lm_num e;
        lm_num_init(&e, c);
        lm_num_set_d(&e, eta * P.c_scale);
        lm_num_div(&slope, &e, &slope);
        lm_num_clear(&e);
    }
    lm_attn_opt_par p;
    lm_attn_opt_par_default(&p);
    p.eta = eta;
    const lm_attn_opt *opt = lm_attn_opt_find("ngd");
    S = lm_attn_state_new(W0, D->u);
    int steps = lm_int(P.steps);
    if (ev->quick) steps /= 4;
    if (ev->tmax >= 0 && ev->tmax < steps) steps = ev->tmax;
    double up = P.up_scale * eta, eps = lm_ctx_eps(c);
    lm_series_axes(ev, "iteration t", "||W_t||", 0);
    for (int t = 0; t <= steps; t++) {
        double rnd = 1e3 * (1.0 + t) * eps;
        lm_mat_dot(&ip, S->W, Wmm);
        lm_num_div(&ip, &ip, &nWmm); /* <W_t, bar W_mm> */
        lm_mat_frob(&nW, S->W);
        if (!lm_num_isfinite(&ip) || !lm_num_isfinite(&nW)) {
            rc = lm_fail(ev, "non-finite iterate at t=%d", t);
            break;
        }
        /* (i) c_scale eta t/(D ||W_mm||) <= <W_t, bar W_mm> + ||W_0|| */
        lm_num_mul_d(&a, &slope, (double)t);
        lm_num_add(&b, &ip, &nW0);
        lm_obs_le(ev, t, &a, &b, rnd + infeas, "lower: eta t/(D||W_mm||) <= <W_t,bar W_mm> + ||W_0||");
        double lo = lm_num_get_d(&a) - lm_num_get_d(&nW0);
        /* (ii) <W_t, bar W_mm> <= ||W_t|| */
        lm_obs_le(ev, t, &ip, &nW, rnd, "Cauchy-Schwarz <W_t,bar W_mm> <= ||W_t||");
        /* (iii) ||W_t|| <= ||W_0|| + up_scale eta t */
        lm_num_set_d(&b, up * t);
        lm_num_add(&b, &b, &nW0);
        if (t > 0) /* at t = 0 it is ||W_0|| <= ||W_0|| */
            lm_obs_le(ev, t, &nW, &b, rnd, "upper: ||W_t|| <= ||W_0|| + eta t");
        if (!ev->searching) {
            lm_series(ev, "||W_t||", t, lm_num_get_d(&nW));
            lm_series(ev, "<W_t, bar W_mm>", t, lm_num_get_d(&ip));
            lm_series(ev, "upper ||W_0|| + eta t", t, lm_num_get_d(&b));
            lm_series(ev, "lower eta t/(D||W_mm||) - ||W_0||", t, lo);
        }
        if (t == steps) {
            if (!ev->searching && t > 0) {
                lm_measure(ev, "||W_T||/(eta T)", lm_num_get_d(&nW) / (eta * t));
                lm_measure(ev, "<W_T,bar W_mm>/(eta T)", lm_num_get_d(&ip) / (eta * t));
                lm_measure(ev, "1/(D||W_mm||)", 1.0 / (lm_num_get_d(&Dc) * lm_num_get_d(&nWmm)));
                lm_measure(ev, "norm_Wmm", lm_num_get_d(&nWmm));
                lm_measure(ev, "D", lm_num_get_d(&Dc));
                lm_measure(ev, "||W_0||", lm_num_get_d(&nW0));
            }
            break;
        }
        if (opt->step(S, F, D, &p)) { rc = lm_fail(ev, "NGD step failed at t=%d", t); break; }
    }
    lm_num_clear(&slope);
out:
    lm_num_clears(&nW0, &nWmm, &Dc, &ip, &nW, &a, &b, (lm_num *)NULL);
    lm_ibgen_stats_clear(&st);
    if (svm_ok) lm_svm_sol_clear(&s);
    if (S) lm_attn_state_free(S);
    lm_attn_fwd_free(F);
    lm_mat_free(W0);
    lm_mat_free(Wmm);
    lm_attn_data_free(D);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "Run R1 at eta = 0.5 (EX1-like hetero, n = 6, T = 4, d = 32, 300 NGD steps): eta t/(D "
     "||W_mm||) - ||W_0|| <= <W_t, W_mm/||W_mm||> <= ||W_t|| <= ||W_0|| + eta t at every iterate.",
     NULL},
    {LM_READ_PAPER,
     "Run R1 at a small step eta = 0.05 (n = 6, T = 4, d = 32, 300 NGD steps): the Eq. (12) "
     "sandwich of <W_t, W_mm/||W_mm||> and ||W_t|| at every iterate.",
     NULL},
    {LM_READ_PAPER,
     "Run R1 at a large step eta = 5, outside the eta D <= 1 regime of the other lemmas (Lemma 7 "
     "needs no step condition): the Eq. (12) sandwich at every iterate of 300 NGD steps.",
     NULL},
    {LM_READ_PAPER,
     "Run R5 with noise-free antipodal optimal tokens at eta = 0.5: the Eq. (12) sandwich of "
     "<W_t, W_mm/||W_mm||> and ||W_t|| at every iterate of 300 NGD steps.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_implicit_lemma7) = {
    .kind = LM_KIND_TRAJECTORY,
    .source = "Lemma 7, Eq. (12) (constants derived)",
    .origin = "reconstructed",
    .confidence = "medium-high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .search_dim = 0,
    .eval = eval,
};
