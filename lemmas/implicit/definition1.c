/* lemmas/implicit/definition1.c
 *
 * \claim{implicit/definition1}{Token scores and optimal tokens}
 * \source{implicit-bias-self-attention, Definition 1 (Section 2)}
 * \statement{For fixed $u$ and a sample $(X,y)$: $\gamma:=y\,Xu\in\mathbb R^T$,
 *   $\gamma_t=y\,u^\top x_t$, and $\mathrm{opt}:=\arg\max_{t\in[T]}\gamma_t$, assumed unique.
 *   The model output is the softmax average of the token scores,
 *   $y_i\Phi(\theta;X_i)=\sum_ts_{it}\gamma_{it}$, so it never exceeds
 *   $\gamma_{i,\mathrm{opt}_i}$ and tends to it when attention saturates on the optimal
 *   token.}
 * \check{Per instance ($n=4$, $T=4$, $d=16$): the scores $\gamma$ and $\mathrm{opt}_i$ are
 *   computed in the working precision; a tie (gap
 *   $\min_i(\gamma_{i,\mathrm{opt}}-\max_{\tau\ne\mathrm{opt}}\gamma_{i\tau})=0$) marks the
 *   instance assumption-failed, and the gap is reported.  Three observations make the
 *   definition falsifiable: (i) the direct output $y_iu^\top X_i^\top\mathbb S(X_iWx_{i1})$
 *   agrees with $\sum_ts_{it}\gamma_{it}$ (and, on Assumption-2 data, with
 *   $\gamma_{i,\mathrm{opt}}-\Gamma_i(1-s_{i,\mathrm{opt}})$) to
 *   \texttt{tol\_scale}$\cdot64\,Td\,2^{-p}\max_t|\gamma_{it}|$; (ii) $y_i\Phi_i(W)\le
 *   \gamma_{i,\mathrm{opt}_i}(1+64Td\,2^{-p})$ (shifted by $1-\min_t\gamma_{it}$ to keep both
 *   sides positive) at random $W$ with $\|W\|\in\{0.1,1,10,100\}$; (iii) in the
 *   optimal-token limit $W=RV$, $V$ the minimum-norm matrix with
 *   $h_{i\tau}(V)=1$ (a feasible W-SVM point, computed by a linear solve),
 *   $R\in\{1,3,10,30\}$: $\delta_i=\gamma_{i,\mathrm{opt}}-y_i\Phi_i=\sum_{\tau\ne\mathrm{opt}}
 *   s_{i\tau}(\gamma_{i,\mathrm{opt}}-\gamma_{i\tau})\le\sum_{\tau\ne\mathrm{opt}}
 *   (\gamma_{i,\mathrm{opt}}-\gamma_{i\tau})e^{-\texttt{rate\_scale}\cdot R\,h_{i\tau}(V)}$,
 *   compared in the log domain (tight as $R\to\infty$, since
 *   $s_{i\tau}\le e^{-(a_{i,\mathrm{opt}}-a_{i\tau})}$).  Configurations: \texttt{EX1} data
 *   (Assumption~2 exactly) and \texttt{gaussian} data (random tokens and decoder).
 *   Wrong constants: \texttt{opt\_rule}$=$argmin breaks (ii), \texttt{rate\_scale}$=2$
 *   breaks (iii).  Joint-training recomputation of $\mathrm{opt}_i(u_t)$ belongs to Lemma 13.}
 */
#include "lm_claim.h"
#include "lm_attn.h"
#include <math.h>

static const char *const configs[] = {"EX1", "gaussian", NULL};

#define PARAMS(NUM, SWITCH)                                                                                                   \
    SWITCH(opt_rule, 0, "argmax|argmin", "which token is called optimal")                                                     \
    NUM(rate_scale, 1.0, "[0, 1e6]", "multiplies the exponent R h in the saturation bound")                                   \
    NUM(tol_scale, 1.0, "[0, 1e6]", "multiplies the identity tolerance")                                                      \
    NUM(n, 4, "int [1, 40]", "sequences (at most 40: the n(T-1) x n(T-1) constraint Gram solve, replayed in MPFR)")           \
    NUM(T, 4, "int [1, 40]", "tokens per sequence (at most 40: the n(T-1) x n(T-1) constraint Gram solve, replayed in MPFR)") \
    NUM(d, 16, "int [1, 1000]", "embedding dimension (at most 1000: d x d matrices)")
LM_PARAMS(PARAMS)

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    int n = lm_int(P.n), T = lm_int(P.T), d = lm_int(P.d);
    const lm_ctx *c = ev->ctx;
    int a2 = ev->config == 0;
    lm_attn_data *D = lm_attn_toy_data(g, n, T, d, a2, c);
    int rc = 0;
    lm_mat *W = lm_mat_new(d, d, c), *V = lm_mat_new(d, d, c), *CV = lm_mat_new(n, T, c);
    lm_mat *h = lm_mat_new(n, T, c);
    lm_attn_fwd *F = lm_attn_fwd_new(D);
    lm_num y, s, a, b, go, gm, v, w;
    lm_num_inits(c, &y, &s, &a, &b, &go, &gm, &v, &w, (lm_num *)NULL);
    static const double Rs[] = {0.1, 1.0, 10.0, 100.0}, Rsat[] = {1.0, 3.0, 10.0, 30.0};
    int k4 = ev->index % 4;
    double R = Rs[k4];
    if (ev->x) R = pow(10.0, fmin(3.0, fmax(-2.0, ev->x[0])));
    for (int k = 0; k < d * d; k++) lm_mat_set_d(W, k / d, k % d, R * lm_rng_normal(g) / d);
    if (lm_attn_forward(F, D, W, D->u, LM_ATTN_EXP)) { rc = lm_fail(ev, "non-finite forward"); goto out; }
    lm_measure(ev, "min score gap", F->mingap);
    if (!lm_assume(ev, F->unique, "opt_i not unique (tie in the scores)")) goto out;
    int argmin = lm_int(P.opt_rule) == 1;
    double eps = lm_ctx_eps(c), tol = 64.0 * T * d * eps;
    for (int i = 0; i < n; i++) {
        int o = F->opt[i];
        if (argmin) {
            o = 0;
            for (int t = 1; t < T; t++)
                if (lm_mat_get_d(F->gam, i, t) < lm_mat_get_d(F->gam, i, o)) o = t;
        }
        lm_mat_get(&go, F->gam, i, o);
        /* gamma scale and min */
        double gs = 0.0;
        lm_mat_get(&gm, F->gam, i, 0);
        for (int t = 0; t < T; t++) {
            lm_mat_get(&v, F->gam, i, t);
            gs = fmax(gs, fabs(lm_num_get_d(&v)));
            lm_num_min(&gm, &gm, &v);
        }
        /* (i) direct y Phi vs sum_t s_t gamma_t */
        lm_attn_margin_direct(&y, D, W, D->u, i);
        lm_num_set_d(&s, 0.0);
        for (int t = 0; t < T; t++) {
            lm_mat_get(&v, F->logs, i, t);
            lm_num_exp(&v, &v);
            lm_mat_get(&w, F->gam, i, t);
            lm_num_fma(&s, &v, &w, &s);
        }
        lm_num_sub(&a, &y, &s);
        lm_num_abs(&a, &a);
        lm_num_set_d(&b, P.tol_scale * tol * gs);
        lm_obs_le(ev, -1, &a, &b, 0.0, "|y Phi - sum s gamma|, seq %d", i);
        if (a2 && T > 1) { /* (one token: no Gamma_i, the identity above is all there is) */
            /* gamma_opt - Gamma (1 - s_opt) */
            int tau = F->opt[i] == 0 ? 1 : 0;
            lm_mat_get(&v, F->gam, i, F->opt[i]);
            lm_mat_get(&w, F->gam, i, tau);
            lm_num_sub(&w, &v, &w);
            lm_mat_get(&s, F->lomso, i, 0);
            lm_num_exp(&s, &s);
            lm_num_mul(&w, &w, &s);
            lm_num_sub(&w, &v, &w);
            lm_num_sub(&a, &y, &w);
            lm_num_abs(&a, &a);
            lm_obs_le(ev, -1, &a, &b, 0.0, "|y Phi - (gamma_opt - Gamma(1-s_opt))|, seq %d", i);
        }
        /* (ii) y Phi <= gamma_opt, shifted by 1 - min gamma */
        lm_num_sub(&a, &y, &gm);
        lm_num_add_d(&a, &a, 1.0);
        lm_num_sub(&b, &go, &gm);
        lm_num_add_d(&b, &b, 1.0);
        lm_obs_le(ev, -1, &a, &b, tol, "y Phi <= gamma_opt, seq %d, ||W|| ~ %.3g", i, R);
    }
    /* (iii) optimal-token limit */
    if (lm_attn_sep_direction(CV, D, F->opt)) {
        lm_assume(ev, 0, "no separating direction (constraint Gram matrix singular)");
        goto out;
    }
    lm_attn_expand(V, CV, NULL, D);
    lm_attn_gaps(h, D, V, F->opt);
    double Rl = Rsat[k4], rs = P.rate_scale;
    lm_mat_scale_d(W, V, Rl);
    if (lm_attn_forward(F, D, W, D->u, LM_ATTN_EXP)) { rc = lm_fail(ev, "non-finite forward"); goto out; }
    for (int i = 0; i < n; i++) {
        int o = F->opt[i];
        lm_mat_get(&go, F->gam, i, o);
        lm_num_set_d(&b, -INFINITY);
        for (int t = 0; t < T; t++) {
            if (t == o) continue;
            lm_mat_get(&v, F->gam, i, t);
            lm_num_sub(&v, &go, &v);
            if (lm_num_sgn(&v) <= 0) continue;
            lm_num_log(&v, &v);
            lm_mat_get(&w, h, i, t);
            lm_num_mul_d(&w, &w, -rs * Rl);
            lm_num_add(&v, &v, &w);
            if (!lm_num_isfinite(&b)) lm_num_set(&b, &v);
            else {
                lm_num_max(&s, &b, &v);
                lm_num_min(&a, &b, &v);
                lm_num_sub(&a, &a, &s);
                lm_num_exp(&a, &a);
                lm_num_log1p(&a, &a);
                lm_num_add(&b, &s, &a);
            }
        }
        lm_mat_get(&a, F->logdel, i, 0);
        if (!lm_num_isfinite(&a) || !lm_num_isfinite(&b)) continue; /* delta = 0 */
        lm_obs_le_log(ev, -1, &a, &b, tol, "log delta_i <= log sum Gamma e^{-R h}, R=%g, seq %d", Rl,
                      i);
        if (i == 0) lm_measure(ev, "log(gamma_opt - y Phi) at R_max", lm_num_get_d(&a));
    }
out:
    lm_num_clears(&y, &s, &a, &b, &go, &gm, &v, &w, (lm_num *)NULL);
    lm_attn_fwd_free(F);
    lm_mat_free(W); lm_mat_free(V); lm_mat_free(CV); lm_mat_free(h);
    lm_attn_data_free(D);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "EX1 data (Assumption 2 exact, n = 4, T = 4, d = 16): output equals the softmax average of "
     "scores, stays below gamma_opt at random W, and tends to it at the rate exp(-R h) as W = RV "
     "grows.",
     NULL},
    {LM_READ_PAPER,
     "Gaussian tokens and decoder (n = 4, T = 4, d = 16): output equals the softmax average of "
     "scores, stays below gamma_opt at random W, and tends to it at the rate exp(-R h) as W = RV "
     "grows.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_implicit_definition1) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Definition 1, Section 2",
    .origin = "reconstructed",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 1.0,
    .search_dim = 1,
    .eval = eval,
};
