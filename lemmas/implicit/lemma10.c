/* lemmas/implicit/lemma10.c
 *
 * \claim{implicit/lemma10}{Restatement of Lemma 1: explicit softmax bounds}
 * \source{implicit-bias-self-attention, Lemma 10 (Appendix A.4)}
 * \statement{As Lemma~1: for $t\ge t_1$ and all $i$,
 *   $1-s^{(t)}_{i,\mathrm{opt}_i}\le(T-1)\exp\big(-c_1\eta t/(D\|W_{mm}\|^2)\big)$; the proof
 *   combines Theorem~1, Lemma~7 and the pointwise inequality, valid for every $W\ne0$,
 *   $1-s_{i,\mathrm{opt}}(W)\le(T-1)\exp\big(-\|W\|\,(1/\|W_{mm}\|-D\|\bar W-\bar W_{mm}\|)\big)$
 *   (reconstructed: derived $c_1=\tfrac12$ with the initialisation term
 *   $\|W_0\|/(2\|W_{mm}\|)$).}
 * \check{The explicit (non-asymptotic) parts of the restatement are checked as ordinary
 *   inequalities, in the log domain and in the working precision ($\log(1-s_{\mathrm{opt}})$
 *   is the log-sum-exp of the non-optimal log-scores: no cancellation, no underflow).
 *   Data: Example-1-like heterogeneous ($n=6$, $T=4$, $d=\texttt{d}=40$, $u=3e_1$); $W_{mm}$
 *   from the certified W-SVM solver in the working precision (infeasible:
 *   assumption-failed); $D$ measured on the data.
 *   Configuration \texttt{pointwise}: $W=R\,(\bar W_{mm}+\delta Z/\|Z\|)$ with Gaussian $Z$,
 *   $R/\|W_{mm}\|\in\{0.3,3,30,300\}$ and $\delta\in\{0,0.01,0.1,1\}$ (cycled), and the
 *   adversarial search moves $(\log R,\log\delta)$; for every $i$ it compares
 *   $\log(1-s_{i,\mathrm{opt}}(W))\le\log(T-1)-\|W\|(\texttt{margin\_scale}/\|W_{mm}\|-
 *   D\|\bar W-\bar W_{mm}\|)$, with $\|\bar W-\bar W_{mm}\|=\sqrt{2(1-\cos)}$ computed without
 *   cancellation.  It is tight at $\delta=0$ and large $R$ (all constraints active), so near
 *   misses are replayed in MPFR.
 *   Configuration \texttt{NGD run}: NGD~(4) from the Lemma-4 initialisation, $\eta=0.5$,
 *   $\texttt{steps}=2000$; at every $t\ge t_1$ (the first iterate with
 *   $D\sqrt{2e_t}\le1/(2\|W_{mm}\|)$) it compares
 *   $\max_i\log(1-s^{(t)}_{i,\mathrm{opt}})\le\log(T-1)-c_1\eta t/(D\|W_{mm}\|^2)
 *   +\|W_0\|/(2\|W_{mm}\|)$, $c_1=\tfrac12\,\texttt{c1\_scale}$; a break is replayed in MPFR
 *   up to the breaking iterate.  Figure: $\max_i(1-s_{\mathrm{opt}})$ and the bound.
 *   The wrong-constant test sets $\texttt{margin\_scale}=3$ (a margin three times
 *   $1/\|W_{mm}\|$, impossible at $W\propto W_{mm}$), which must be violated.
 *   Readings: \texttt{pointwise} reads the paper (the derived inequality is claimed for every $W$;
 *   an instance whose bound is at least $1$, the maximum of $1-s_{\mathrm{opt}}$, is vacuous); the
 *   \texttt{NGD run} on the heterogeneous data is a probe (A1-derived not met); \texttt{NGD run, A1 data}
 *   (switch \texttt{data}$=$\texttt{a1}: EX1 homogeneous, $n=2$, $T=2$, $\mu=0.1$, $d=256$, gated on A1-derived and
 *   Assumption~2) reads the paper.}
 */
#include "lm_claim.h"
#include "lm_attn.h"
#include "lm_ibgen.h"
#include "lm_svm.h"
#include <math.h>
#include <stdlib.h>

static const char *const configs[] = {"pointwise", "NGD run", "NGD run, A1 data: EX1 n=2, T=2, d=256", NULL};

#define PARAMS(NUM, SWITCH)                                                                                                                                                                    \
    NUM(margin_scale, 1.0, "[0, 1e6]", "multiplies the margin 1/||W_mm|| in the pointwise bound")                                                                                              \
    NUM(c1_scale, 1.0, "[0, 1e6]", "multiplies the derived c_1 = 1/2 (NGD run)")                                                                                                               \
    NUM(eta, 0.5, "(0, 1e3]", "NGD step size")                                                                                                                                                 \
    NUM(steps, 2000, "int [1, 10000]", "NGD iterations (at most 10000: run length bound, about 6 s plain and a minute under ASan)")                                                            \
    NUM(d, 40, "int [1, 200]", "embedding dimension (at most 200: d x d matrices)")                                                                                                            \
    SWITCH(data, 0, "ex1|a1", "EX1 data: heterogeneous (n=6, T=4, d; outside A1-derived), or homogeneous n=2, T=2, mu=0.1, d=256 gated on A1-derived and Assumption 2 (the A1 configuration)")
LM_PARAMS(PARAMS)

static void max_lomso(lm_num *r, lm_num *x, const lm_attn_fwd *F, int n)
{
    lm_mat_get(r, F->lomso, 0, 0);
    for (int i = 1; i < n; i++) { lm_mat_get(x, F->lomso, i, 0); lm_num_max(r, r, x); }
}

static int pointwise(lm_eval *ev, lm_rng *g, const lm_attn_data *D, lm_attn_fwd *F, const lm_mat *Wmm,
                     const lm_num *nmm, const lm_num *Dc)
{
    const lm_params P = lm_params_of(ev);
    const lm_ctx *c = ev->ctx;
    int d = D->d, rc = 0;
    static const double Rs[] = {0.3, 3.0, 30.0, 300.0}, ds[] = {0.0, 0.01, 0.1, 1.0};
    double R = Rs[ev->index % 4], del = ds[(ev->index / 4) % 4];
    if (ev->x) { R = 30.0 * exp(ev->x[0]); del = 0.1 * exp(ev->x[1]); }
    lm_mat *Z = lm_mat_new(d, d, c), *W = lm_mat_new(d, d, c);
    lm_num nz, e, la, lb, x;
    lm_num_inits(c, &nz, &e, &la, &lb, &x, (lm_num *)NULL);
    for (int k = 0; k < d * d; k++) lm_mat_set_d(Z, k / d, k % d, lm_rng_normal(g));
    lm_mat_frob(&nz, Z);
    lm_num_set_d(&x, del);
    lm_num_div(&nz, &x, &nz);
    lm_mat_scale(W, Z, &nz);
    lm_num_set_d(&x, 1.0);
    lm_num_div(&x, &x, nmm);
    lm_mat_axpy(W, &x, Wmm);         /* W = Wbar_mm + delta Z/||Z|| */
    lm_num_set_d(&x, R);
    lm_num_mul(&x, &x, nmm);
    lm_mat_scale(W, W, &x);          /* W = R ||W_mm|| (Wbar_mm + delta Zbar) */
    if (lm_attn_forward(F, D, W, D->u, LM_ATTN_EXP)) { rc = lm_fail(ev, "non-finite forward"); goto out; }
    lm_attn_one_minus_cos(&e, W, Wmm);
    lm_num_mul_d(&e, &e, 2.0);
    lm_num_sqrt(&e, &e);
    lm_num_mul(&e, &e, Dc);          /* D ||Wbar - Wbar_mm|| */
    lm_num_set_d(&x, P.margin_scale);
    lm_num_div(&x, &x, nmm);
    lm_num_sub(&e, &x, &e);
    lm_mat_frob(&x, W);
    lm_num_mul(&e, &e, &x);
    lm_num_d_sub(&lb, log((double)(D->T - 1)), &e);
    for (int i = 0; i < D->n; i++) {
        lm_mat_get(&la, F->lomso, i, 0);
        lm_obs_le_log(ev, -1, &la, &lb, 0.0,
                      "pointwise: log(1 - s_opt,%d) <= log(T-1) - ||W||(1/||W_mm|| - D||dW||), R = %.3g ||W_mm||, delta = %.3g",
                      i, R, del);
    }
    lm_measure(ev, "R / ||W_mm||", R);
    lm_measure(ev, "delta", del);
    /* 1 - s_opt <= 1 always: a bound (T-1) e^{...} >= 1 holds for nothing (log domain: >= 0) */
    lm_rhs_trivial(ev, lm_num_get_d(&lb), 0.0, "the bound (T-1) exp(-||W||(...)) >= 1, the maximum of 1 - s_opt");
out:
    lm_num_clears(&nz, &e, &la, &lb, &x, (lm_num *)NULL);
    lm_mat_free(Z); lm_mat_free(W);
    return rc;
}

static int ngd_run(lm_eval *ev, const lm_attn_data *D, lm_attn_fwd *F, const lm_mat *W0,
                   const lm_mat *Wmm, const lm_num *nmm, const lm_num *Dc, const lm_num *nmm2)
{
    const lm_params P = lm_params_of(ev);
    const lm_ctx *c = ev->ctx;
    int rc = 0, steps = lm_int(P.steps);
    if (ev->tmax >= 0 && ev->tmax < steps) steps = ev->tmax;
    double eta = P.eta, c1 = 0.5 * P.c1_scale;
    lm_num e, la, lb, x, rate, off;
    lm_num_inits(c, &e, &la, &lb, &x, &rate, &off, (lm_num *)NULL);
    lm_num_mul(&rate, Dc, nmm2);
    lm_num_set_d(&x, c1 * eta);
    lm_num_div(&rate, &x, &rate);
    lm_mat_frob(&off, W0);
    lm_num_div(&off, &off, nmm);
    lm_num_mul_d(&off, &off, 0.5);
    lm_num_add_d(&off, &off, log((double)(D->T - 1)));
    double thr = 1.0 / (2.0 * lm_num_get_d(nmm) * lm_num_get_d(Dc));
    lm_attn_opt_par p;
    lm_attn_opt_par_default(&p);
    p.eta = eta;
    const lm_attn_opt *opt = lm_attn_opt_find("ngd");
    lm_attn_state *S = lm_attn_state_new(W0, D->u);
    lm_series_axes(ev, "iteration t", "max_i (1 - s_opt)", 1);
    int t1 = -1, next = 1, nontriv = 0;
    for (int t = 0; t <= steps; t++) {
        if (lm_attn_forward(F, D, S->W, D->u, LM_ATTN_EXP)) { rc = lm_fail(ev, "non-finite forward at t=%d", t); break; }
        max_lomso(&la, &x, F, D->n);
        if (t1 < 0) {
            lm_attn_one_minus_cos(&e, S->W, Wmm);
            if (sqrt(2.0 * lm_num_get_d(&e)) <= thr) t1 = t;
        }
        lm_num_mul_d(&lb, &rate, (double)t);
        lm_num_sub(&lb, &off, &lb);
        if (t1 >= 0) {
            lm_obs_le_log(ev, t, &la, &lb, 0.0, "max_i log(1 - s_opt) <= log(T-1) - c1 eta t/(D||W_mm||^2) + init (t1 = %d)", t1);
            if (lm_num_get_d(&lb) < 0.0) nontriv++;
        }
        if (t == next || t == steps) {
            lm_series(ev, "max_i (1 - s_opt)", t, exp(lm_num_get_d(&la)));
            lm_series(ev, "bound", t, exp(lm_num_get_d(&lb)));
            next = (int)ceil(next * 1.05);
        }
        if (t < steps && opt->step(S, F, D, &p)) { rc = lm_fail(ev, "NGD step failed at t=%d", t); break; }
    }
    if (!rc) {
        lm_measure(ev, "t1", t1);
        lm_measure(ev, "predicted rate c1 eta/(D ||W_mm||^2)", lm_num_get_d(&rate));
        if (lm_assume(ev, t1 >= 0, "D ||Wbar_t - Wbar_mm|| never fell below 1/(2||W_mm||)") && nontriv == 0)
            lm_vacuous(ev, "the bound (T-1) exp(...) stayed >= 1, the maximum of 1 - s_opt, at every t >= t1 = %d", t1);
    }
    lm_attn_state_free(S);
    lm_num_clears(&e, &la, &lb, &x, &rate, &off, (lm_num *)NULL);
    return rc;
}

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    const lm_ctx *c = ev->ctx;
    lm_rng *g = lm_eval_rng(ev);
    lm_ibgen_ex1_opts o;
    const int a1 = lm_int(P.data) == 1;
    lm_ibgen_ex1_defaults(&o, !a1);
    o.d = a1 ? 256 : lm_int(P.d);
    if (a1) o.n = 2, o.T = 2, o.mu = 0.1, o.sigma = -1.0;
    lm_attn_data *D = lm_ibgen_ex1(&o, g, c);
    lm_mat *W0 = lm_ibgen_w0(D->d, 0.0, g, c);
    lm_mat *Wmm = lm_mat_new(D->d, D->d, c);
    lm_attn_fwd *F = lm_attn_fwd_new(D);
    lm_svm_sol sol = {0};
    lm_ibgen_stats st;
    lm_ibgen_stats_init(&st, c);
    lm_num nmm;
    lm_num_init(&nmm, c);
    int rc = 0;
    if (a1) {
        double a1r = 0.0;
        const int m = lm_ibgen_assumptions(&a1r, D, 1.0, c);
        lm_measure(ev, "A1-derived ratio", a1r);
        if (!lm_assume(ev, m >= 0 && (m & 3) == 3, "Assumptions 1 (A1-derived, ratio %.3g) / 2 fail", a1r))
            goto out;
    }
    int src = lm_svm_w_claim(ev, &sol, D);
    if (src) {
        if (src < 0) rc = -1;
        goto out;
    }
    if (lm_ibgen_stats_compute(&st, D, 0)) { rc = lm_fail(ev, "data statistics not finite"); goto out; }
    lm_svm_w_matrix(Wmm, &sol, D);
    lm_num_sqrt(&nmm, &sol.norm2);
    lm_measure(ev, "D", lm_num_get_d(&st.Dc));
    lm_measure(ev, "||W_mm||", lm_num_get_d(&nmm));
    if (ev->config == 0) rc = pointwise(ev, g, D, F, Wmm, &nmm, &st.Dc);
    else rc = ngd_run(ev, D, F, W0, Wmm, &nmm, &st.Dc, &sol.norm2);
out:
    lm_num_clear(&nmm);
    lm_svm_sol_clear(&sol);
    lm_ibgen_stats_clear(&st);
    lm_attn_fwd_free(F);
    lm_mat_free(W0); lm_mat_free(Wmm);
    lm_attn_data_free(D);
    return rc;
}

static int search_in(int config) { return config == 0; }

static const lm_reading readings[] = {
    {LM_READ_PAPER, "the derived pointwise inequality, claimed for every W", NULL},
    {LM_READ_PROBE, "NGD run on Example-1-like heterogeneous data at d=40, outside A1-derived: Assumption 1 is not met (the catalogue counts a failure there as outside the hypotheses)", NULL},
    {LM_READ_PAPER,
     "NGD run on A1 data (EX1 homogeneous n = 2, T = 2, mu = 0.1, d = 256, 1000 steps, eta = "
     "0.5): max_i log(1 - s_opt) below the explicit Lemma 1 bound at every t >= t1.",
     "data=a1,steps=1000"},
    LM_READINGS_END};

LM_CLAIM(claim_implicit_lemma10) = {
    .kind = LM_KIND_TRAJECTORY,
    .source = "Lemma 10 (Appendix A.4)",
    .origin = "reconstructed",
    .confidence = "medium",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.5,
    .search_dim = 2,
    .search_in = search_in,
    .eval = eval,
};
