/* lemmas/mirror/definition2.c
 *
 * \claim{mirror/definition2}{Definition 2: token scores and optimal tokens}
 * \source{mirror-descent-attention, Definition 2 (main text; number uncertain)}
 * \statement{The token score of token $t$ of sample $i$ is $\gamma_{it}:=Y_i\,v^\top x_{it}$, and
 *   the optimal token of sample $i$ is $\mathrm{opt}_i\in\arg\max_t\gamma_{it}$.  (The model's
 *   margin is the attention average of the scores, $Y_if(X_i,z_i;W)=\gamma_i^\top\mathbb S(X_iWz_i)$,
 *   so selecting $\mathrm{opt}_i$ attains the largest margin $\max_t\gamma_{it}$; with distinct
 *   scores, $\alpha=\mathrm{opt}$ is locally optimal in the sense of Definition~3 whenever the
 *   $\ell_p$-AttSVM is feasible.)}
 * \check{A definition is checked through what it must mean for the model.  Data come from the
 *   paper's generator (configurations \texttt{paper(3,4,4)} and \texttt{paper(6,8,10)} for
 *   $(n,T,d)$); scores that tie within $10^{-12}$ make the instance assumption-failed (the
 *   catalogue's degenerate case).  (i) Score identity: at a random $W$ (entries
 *   $N(0,\sigma^2)$, $\sigma\in\{0.1,1,10\}$ cycled) the margin computed directly as
 *   $Y_i v^\top X_i^\top\mathbb S(X_iWz_i)$ (naive softmax, scores with sign
 *   \texttt{score\_sign}$\cdot Y_i$) must equal the model's cancellation-free margin
 *   $\gamma_{i,\mathrm{opt}}-\sum_{t}s_{it}(\gamma_{i,\mathrm{opt}}-\gamma_{it})$, residual at most
 *   \texttt{tol\_scale}$\cdot64T(1+\max|h_{it}|)\epsilon\max|\gamma_{it}|$.  (ii) Selecting the
 *   optimal token attains the largest score: with $W_{mm}$ the $\ell_p$-AttSVM solution for
 *   $\alpha=\mathrm{opt}$ ($p=$\texttt{p}, solved and rounded in double so every precision sees
 *   the same instance) and margins $m_{it}=\langle W_{mm},(x_{i\alpha_i}-x_{it})z_i^\top\rangle\ge1$,
 *   at $W=rW_{mm}$, $r\in\{1,3,10,30\}$, the exact bound
 *   $\gamma_{i\alpha_i}-u_i=\sum_{t\ne\alpha_i}s_{it}(\gamma_{i\alpha_i}-\gamma_{it})\le
 *   \sum_{t\ne\alpha_i}e^{-\kappa rm_{it}}(\gamma_{i\alpha_i}-\gamma_{it})$ with
 *   $\kappa=$\texttt{rate\_scale}$=1$ (from $s_{it}\le e^{h_{it}-h_{i\alpha_i}}$) is compared in
 *   the log domain, the left side taken from the model's $\log\delta_i$ (no cancellation); the
 *   ratio is $1/(1+\sum_\tau e^{-rm_{i\tau}})$, tight as $r\to\infty$, so near misses are
 *   replayed in MPFR.  (iii) $\alpha=\mathrm{opt}$ is locally optimal:
 *   $e^{-\bar\gamma}\le1$ with $\bar\gamma=\min_i\min_{t\in\mathcal T_i}(\gamma_{i\alpha_i}-\gamma_{it})$.
 *   Wrong-constant tests: \texttt{rate\_scale} $=2$ (a rate the softmax cannot reach) and
 *   \texttt{score\_sign} $=-1$ (scores without the label) must come out violated.  Readings: every configuration is a \texttt{paper} reading (the statement as the catalogue reconstructs it).}
 */
#include "lm_claim.h"
#include "lm_md.h"
#include <math.h>
#include <string.h>

static const char *const configs[] = {"paper(3,4,4)", "paper(6,8,10)", NULL};
/* one reading per configuration (issue 16) */
static const lm_reading readings[] = {
    {LM_READ_PAPER, "Paper generator at the small size (n,T,d) = (3,4,4): score identity of the "
                    "margin, saturation bound at W = r W_mm (r = 1..30) and local optimality of "
                    "opt.", NULL},
    {LM_READ_PAPER, "Paper generator at the paper's experimental size (n,T,d) = (6,8,10): score "
                    "identity of the margin, saturation bound at W = r W_mm and local optimality "
                    "of opt.", NULL},
    LM_READINGS_END};


#define PARAMS(NUM, SWITCH)                                                                                    \
    NUM(rate_scale, 1.0, "[0, 1e6]", "kappa in the saturation bound sum exp(-kappa r m_t)(gamma_a - gamma_t)") \
    NUM(score_sign, 1.0, "[-1, 1]", "sign of the label in the direct score Y_i v^T x_it (+1 = Definition 2)")  \
    NUM(tol_scale, 1.0, "[0, inf)", "multiplies the residual tolerance of the score identity")                 \
    NUM(p, 2.0, "(1, 64]", "p of the l_p-AttSVM giving the selecting direction W_mm")                          \
    NUM(tie_tol, 1e-12, "[0, 1]", "scores closer than this are a tie (degenerate instance)")
LM_PARAMS(PARAMS)

static void sizes(int cfg, int *n, int *T, int *d)
{
    if (cfg == 0) { *n = 3; *T = 4; *d = 4; }
    else { *n = 6; *T = 8; *d = 10; }
}

/* max_i |direct margin - model margin|, and max |gamma| */
static void score_identity(lm_num *res, lm_num *gmax, const lm_mddata *D, const lm_mat *W,
                           const lm_attn_fwd *F, double sign)
{
    const lm_ctx *c = &D->ctx;
    int T = D->T, d = D->d;
    lm_mat *z = lm_mat_new(d, 1, c), *q = lm_mat_new(d, 1, c), *a = lm_mat_new(T, 1, c);
    lm_mat *at = lm_mat_new(1, T, c), *S = lm_mat_new(1, T, c), *g = lm_mat_new(T, 1, c);
    lm_mat *u = lm_mat_new(1, 1, c);
    lm_num v, m;
    lm_num_inits(c, &v, &m, (lm_num *)NULL);
    lm_num_set_d(res, 0.0);
    lm_num_set_d(gmax, 0.0);
    for (int i = 0; i < D->n; i++) {
        for (int k = 0; k < d; k++) {
            lm_mat_get(&v, D->Z, i, k);
            lm_mat_set(z, k, 0, &v);
        }
        lm_mat_mul(q, W, 0, z, 0);
        lm_mat_mul(a, D->X[i], 0, q, 0);
        lm_mat_transpose(at, a);
        lm_mat_softmax_rows(S, at);
        /* gamma_it = sign Y_i v^T x_it */
        lm_mat_mul(g, D->X[i], 0, D->v, 0);
        lm_mat_scale_d(g, g, sign * (double)D->y[i]);
        lm_mat_max_abs(&v, g);
        lm_num_max(gmax, gmax, &v);
        lm_mat_mul(u, S, 0, g, 0); /* s^T gamma */
        lm_mat_get(&v, u, 0, 0);
        lm_mat_get(&m, F->marg, i, 0);
        lm_num_sub(&v, &v, &m);
        lm_num_abs(&v, &v);
        lm_num_max(res, res, &v);
    }
    lm_num_clears(&v, &m, (lm_num *)NULL);
    lm_mat_free(z); lm_mat_free(q); lm_mat_free(a); lm_mat_free(at); lm_mat_free(S);
    lm_mat_free(g); lm_mat_free(u);
}

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    const lm_ctx *c = ev->ctx;
    lm_ctx cd = lm_ctx_double();
    int n, T, d;
    sizes(ev->config, &n, &T, &d);
    double p = P.p, kappa = P.rate_scale;
    lm_rng *g = lm_eval_rng(ev);
    lm_mddata *D = lm_md_gen_paper(g, n, T, d, c);
    lm_mddata *Dd = NULL;
    lm_attn_fwd *F = lm_md_fwd_new(D);
    lm_mat *W = lm_mat_new(d, d, c), *Wmm = lm_mat_new(d, d, c), *mg = NULL;
    lm_md_svm s;
    memset(&s, 0, sizeof s);
    lm_md_consts K;
    memset(&K, 0, sizeof K);
    int have_k = 0, rc = 0;
    lm_num res, gmax, tol, lb, ld, v, w;
    lm_num_inits(c, &res, &gmax, &tol, &lb, &ld, &v, &w, (lm_num *)NULL);

    for (int i = 0; i < n; i++)
        if (D->alpha[i] < 0) {
            lm_assume(ev, 0, "tied token scores in sample %d", i);
            goto out;
        }
    if (lm_md_forward(F, D, W, LM_ATTN_LOGISTIC)) { rc = lm_fail(ev, "non-finite forward pass"); goto out; }
    if (!(F->mingap > P.tie_tol)) {
        lm_assume(ev, 0, "token scores tie within %.3g (gap %.3g)", P.tie_tol, F->mingap);
        goto out;
    }
    lm_measure(ev, "min score gap", F->mingap);

    /* (i) the score identity at a random W */
    {
        static const double sig[] = {0.1, 1.0, 10.0};
        double sg = sig[ev->index % 3];
        for (int a = 0; a < d; a++)
            for (int b = 0; b < d; b++) lm_mat_set_d(W, a, b, sg * lm_rng_normal(g));
        if (lm_md_forward(F, D, W, LM_ATTN_LOGISTIC)) { rc = lm_fail(ev, "non-finite forward pass"); goto out; }
        score_identity(&res, &gmax, D, W, F, P.score_sign);
        lm_mat_max_abs(&v, F->a);
        double amax = lm_num_get_d(&v);
        lm_num_mul_d(&tol, &gmax, P.tol_scale * 64.0 * T * (1.0 + amax) * lm_ctx_eps(c));
        lm_obs_le(ev, -1, &res, &tol, 0.0, "|Y v^T X^T S(XWz) - model margin|, sigma(W) = %g", sg);
        if (lm_num_sgn(&tol) > 0) {
            lm_num_div(&v, &res, &tol);
            lm_measure(ev, "score identity residual / tolerance", lm_num_get_d(&v));
        }
    }

    /* the selecting direction: W_mm for alpha = opt, solved in double */
    Dd = lm_md_data_convert(D, &cd);
    int src = lm_md_svm_solve(&s, Dd, p, 0);
    if (src == LM_MDSVM_INFEASIBLE) {
        lm_assume(ev, 0, "the l_p-AttSVM for alpha = opt is infeasible");
        goto out;
    }
    if (src != LM_MDSVM_OK) {
        rc = lm_fail(ev, "l_p-AttSVM solver failed (code %d, gap %.3g)", src, s.gap);
        goto out;
    }
    lm_mat_copy(Wmm, s.W); /* the same doubles in every context */
    mg = lm_mat_new(s.m, 1, c);
    lm_md_margins(mg, Wmm, D);

    /* (ii) saturation on opt: gamma_opt - u_i <= sum_t exp(-kappa r m_t)(gamma_opt - gamma_t) */
    static const double rs[] = {1.0, 3.0, 10.0, 30.0};
    lm_series_axes(ev, "r (W = r W_mm)", "log10(gamma_opt - u_i), worst sample", 0);
    for (int j = 0; j < 4; j++) {
        double r = rs[j];
        lm_mat_scale_d(W, Wmm, r);
        if (lm_md_forward(F, D, W, LM_ATTN_LOGISTIC)) { rc = lm_fail(ev, "non-finite forward pass at r = %g", r); goto out; }
        lm_mat_max_abs(&v, F->a);
        double reltol = 64.0 * (1.0 + lm_num_get_d(&v)) * lm_ctx_eps(c);
        double worst = -INFINITY, wl = 0, wb = 0;
        for (int i = 0, k = 0; i < n; i++) {
            int o = D->alpha[i];
            if (F->opt[i] != o) { rc = lm_fail(ev, "model opt differs from argmax of the scores"); goto out; }
            lm_num_set_d(&lb, -INFINITY);
            for (int t = 0; t < T; t++) {
                if (t == o) continue;
                /* term: -kappa r m_t + log(gamma_o - gamma_t) */
                lm_mat_get(&v, F->gam, i, o);
                lm_mat_get(&w, F->gam, i, t);
                lm_num_sub(&v, &v, &w);
                lm_num_log(&v, &v);
                lm_mat_get(&w, mg, k++, 0);
                lm_num_mul_d(&w, &w, -kappa * r);
                lm_num_add(&v, &v, &w);
                /* lb = LSE(lb, v) */
                if (!lm_num_isfinite(&lb)) {
                    lm_num_set(&lb, &v);
                } else {
                    lm_num_max(&w, &lb, &v);
                    lm_num_sub(&lb, &lb, &w);
                    lm_num_sub(&v, &v, &w);
                    lm_num_exp(&lb, &lb);
                    lm_num_exp(&v, &v);
                    lm_num_add(&lb, &lb, &v);
                    lm_num_log(&lb, &lb);
                    lm_num_add(&lb, &lb, &w);
                }
            }
            lm_mat_get(&ld, F->logdel, i, 0);
            lm_obs_le_log(ev, -1, &ld, &lb, reltol, "gamma_opt - u_%d at r = %g <= sum exp(-r m_t) gap_t", i, r);
            lm_num_sub(&v, &ld, &lb);
            if (lm_num_get_d(&v) > worst) {
                worst = lm_num_get_d(&v);
                wl = lm_num_get_d(&ld);
                wb = lm_num_get_d(&lb);
            }
        }
        lm_series(ev, "log10(gamma_opt - u_i)", r, wl / M_LN10);
        lm_series(ev, "log10 bound", r, wb / M_LN10);
    }

    /* (iii) alpha = opt is locally optimal (Definition 3) */
    lm_md_consts_compute(&K, &s, Dd);
    have_k = 1;
    lm_obs_le_d(ev, -1, exp(-K.gbar), 1.0, 0.0, "alpha = opt locally optimal: exp(-gbar) <= 1 (%d supports)",
                K.nsupport);
    lm_measure(ev, "gbar", K.gbar);
    lm_measure(ev, "supports", K.nsupport);
    lm_measure(ev, "||W_mm||_p", K.wnorm);
out:
    lm_num_clears(&res, &gmax, &tol, &lb, &ld, &v, &w, (lm_num *)NULL);
    if (have_k) lm_md_consts_clear(&K);
    lm_md_svm_clear(&s);
    lm_mat_free(mg);
    lm_mat_free(W);
    lm_mat_free(Wmm);
    lm_attn_fwd_free(F);
    lm_md_data_free(Dd);
    lm_md_data_free(D);
    return rc;
}

LM_CLAIM(claim_mirror_definition2) = {
    .kind = LM_KIND_STRUCTURAL,
    .source = "Definition 2 (main text; numbering uncertain)",
    .origin = "reconstructed",
    .confidence = "medium",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.5,
    .eval = eval,
};
