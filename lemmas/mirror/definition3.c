/* lemmas/mirror/definition3.c
 *
 * \claim{mirror/definition3}{Definition 3: support tokens and locally optimal tokens}
 * \source{mirror-descent-attention, Definition 3 (main text)}
 * \statement{Let $\alpha=(\alpha_i)$ be token indices for which the $\ell_p$-AttSVM is feasible,
 *   with solution $W_{mm}$.  The support tokens of sample $i$ are
 *   $\mathcal T_i:=\{t\ne\alpha_i:(x_{i\alpha_i}-x_{it})^\top W_{mm}z_i=1\}$, and $\alpha$ is
 *   \emph{locally optimal} if $\gamma_{i\alpha_i}>\gamma_{it}$ for every $i$ and every
 *   $t\in\mathcal T_i$.  At least one sample has $\mathcal T_i\ne\emptyset$ (otherwise $W_{mm}$
 *   could be scaled down), and the globally optimal $\alpha=\mathrm{opt}$ is locally optimal.}
 * \check{The $\ell_p$-AttSVM is solved in the working precision (MPFR on replay) and the supports
 *   are taken from the core ($\lambda_k>0$, or margin within $\max(10^{-9},2^{-0.3p_w})$ of 1).
 *   Observations: (i) the supports satisfy the defining equation,
 *   $\max_{t\in\mathcal T_i}|\langle W_{mm},(x_{i\alpha_i}-x_{it})z_i^\top\rangle-1|\le\tau$,
 *   $\tau=$\texttt{tol\_scale}$\cdot2^{-0.75p_w}$ for a $p_w$-bit working precision; (ii) at least
 *   \texttt{min\_supports} $=1$ support token exists; (iii) local optimality, compared as
 *   $e^{-(\bar\gamma-g_0)}\le1$ with $\bar\gamma=\min_i\min_{t\in\mathcal T_i}(\gamma_{i\alpha_i}-\gamma_{it})$
 *   and $g_0=$\texttt{gbar\_margin} $=0$ (the reported ratio $e^{-\bar\gamma}$ shows the slack).
 *   Configurations \texttt{opt,paper(3,4,4)} ($p\in\{1.25,1.5,1.75,2,3\}$ cycled) and
 *   \texttt{opt,paper(6,8,10)} ($p\in\{1.75,2\}$) use the paper's generator with
 *   $\alpha=\mathrm{opt}=\arg\max_t\gamma_{it}$ (ties make the instance assumption-failed) and
 *   check (i)--(iii).  Configuration \texttt{post-hoc,R2(6,8,10)} is the catalogue's
 *   diagnostic: the paper's normalised $\ell_p$-MD ($\eta=0.1$, $W(0)_{ab}\sim N(0,1)$,
 *   $p\in\{1.75,2\}$ with 1500 resp.\ 2000 iterations, an eighth in quick runs; run in double
 *   as practitioners train, so every precision sees the same $\alpha$), $\alpha_i$ the argmax of
 *   the final softmax; it checks (i) and (ii) for that $\alpha$ (an infeasible SVM is
 *   assumption-failed) and only \emph{reports} whether $\alpha$ is locally optimal and equals
 *   $\mathrm{opt}$, since nothing in the paper claims that a finite run has selected a locally
 *   optimal $\alpha$.  $p=3$ (20000 iterations in the paper) is left out of R2 for run time:
 *   the core solver needs about 1.3\,s per $(6,8,10)$ solve at $p=3$.  The constants $\delta$,
 *   $\mu_0$, $\Gamma$, $\|W_{mm}\|_p$ and the smallest non-support margin are reported.
 *   Wrong-constant tests: \texttt{gbar\_margin} $=3$ (more than the largest possible score gap
 *   of unit vectors) and \texttt{min\_supports} $=100$ must come out violated.  Readings: the two \texttt{opt} configurations read the paper; \texttt{post-hoc,R2(6,8,10)} is a \texttt{probe} (the $\alpha$ a finite normalised run selects is outside the definition's claims).}
 */
#include "lm_claim.h"
#include "lm_md.h"
#include <math.h>
#include <string.h>

static const char *const configs[] = {"opt,paper(3,4,4)", "opt,paper(6,8,10)", "post-hoc,R2(6,8,10)", NULL};
/* one reading per configuration (issue 16) */
static const lm_reading readings[] = {
    {LM_READ_PAPER, "alpha = opt on paper data (n,T,d) = (3,4,4), p cycled over "
                    "{1.25,1.5,1.75,2,3}: support equation, existence of a support token and local "
                    "optimality of opt.", NULL},
    {LM_READ_PAPER, "alpha = opt on paper data at the paper's size (6,8,10), p in {1.75, 2}: "
                    "support equation, existence of a support token and local optimality of opt.",
     NULL},
    {LM_READ_PROBE, "alpha from the final softmax of the paper's normalised l_p-MD runs (R2, p = "
                    "1.75, 2): support equation and support existence judged; its local optimality "
                    "only reported.", NULL},
    LM_READINGS_END};


#define PARAMS(NUM, SWITCH)                                                                                                                \
    NUM(gbar_margin, 0.0, "[-1e6, 1e6]", "g_0: local optimality is compared as gbar > g_0 (0 = Definition 3)")                             \
    NUM(min_supports, 1.0, "[0, 1e6]", "support tokens that must exist (1 = the paper)")                                                   \
    NUM(tol_scale, 1.0, "[0, inf)", "multiplies tau = 2^(-0.75 prec) for the support equation")                                            \
    NUM(eta, 0.1, "(0, 1e3]", "step of the normalised l_p-MD run of the post-hoc configuration")                                           \
    NUM(steps_scale, 1.0, "(0, 100]", "multiplies the paper's iteration counts 1500 (p=1.75), 2000 (p=2) (at most 100: run length bound)")
LM_PARAMS(PARAMS)

/* alpha_i = argmax of the final softmax of a normalised l_p-MD run (double) */
static int posthoc_alpha(int *alpha, const lm_mddata *Dd, double p, double eta, int steps, lm_rng *g)
{
    lm_ctx cd = lm_ctx_double();
    int d = Dd->d;
    lm_mat *W = lm_mat_new(d, d, &cd), *Th = lm_mat_new(d, d, &cd);
    for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++) lm_mat_set_d(W, a, b, lm_rng_normal(g));
    lm_md_grad_psi(Th, W, p);
    lm_attn_fwd *F = lm_md_fwd_new(Dd);
    lm_md_par par = {p, eta, 1, LM_ATTN_LOGISTIC};
    int rc = 0;
    for (int k = 0; k < steps && !rc; k++) rc = lm_md_step(W, Th, F, Dd, &par);
    if (!rc) rc = lm_md_forward(F, Dd, W, LM_ATTN_LOGISTIC);
    for (int i = 0; !rc && i < Dd->n; i++) {
        int best = 0;
        for (int t = 1; t < Dd->T; t++)
            if (lm_mat_get_d(F->logs, i, t) > lm_mat_get_d(F->logs, i, best)) best = t;
        alpha[i] = best;
    }
    lm_attn_fwd_free(F);
    lm_mat_free(W);
    lm_mat_free(Th);
    return rc;
}

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    const lm_ctx *c = ev->ctx;
    lm_rng *g = lm_eval_rng(ev);
    int cfg = ev->config, k = ev->index;
    static const double P0[] = {1.25, 1.5, 1.75, 2.0, 3.0};
    static const double P1[] = {1.75, 2.0};
    double p = cfg == 0 ? P0[k % 5] : P1[k % 2];
    int n = cfg == 0 ? 3 : 6, T = cfg == 0 ? 4 : 8, d = cfg == 0 ? 4 : 10;
    lm_mddata *D = lm_md_gen_paper(g, n, T, d, c);
    int rc = 0, have_k = 0, is_opt = 1;
    lm_md_svm s;
    memset(&s, 0, sizeof s);
    lm_md_consts K;
    memset(&K, 0, sizeof K);
    lm_mat *r = NULL;
    lm_num v, x, tol;
    lm_num_inits(c, &v, &x, &tol, (lm_num *)NULL);
    lm_measure(ev, "p", p);

    for (int i = 0; i < n; i++)
        if (D->alpha[i] < 0) {
            lm_assume(ev, 0, "tied token scores in sample %d", i);
            goto out;
        }
    if (cfg == 2) {
        int steps = (int)lrint((p < 1.9 ? 1500 : 2000) * P.steps_scale);
        if (ev->quick) steps /= 8;
        lm_ctx cd = lm_ctx_double();
        lm_mddata *Dd = lm_md_data_convert(D, &cd);
        int alpha[64];
        int trc = posthoc_alpha(alpha, Dd, p, P.eta, steps, g);
        lm_md_data_free(Dd);
        if (trc) {
            rc = lm_fail(ev, "non-finite value in the normalised l_p-MD run");
            goto out;
        }
        for (int i = 0; i < n; i++) {
            is_opt &= alpha[i] == D->alpha[i];
            D->alpha[i] = alpha[i];
        }
        lm_measure(ev, "post-hoc alpha = opt", is_opt);
        lm_measure(ev, "MD iterations", steps);
    }
    int src = lm_md_svm_solve(&s, D, p, 0);
    if (src == LM_MDSVM_INFEASIBLE) {
        lm_assume(ev, 0, "the l_p-AttSVM is infeasible for this alpha");
        goto out;
    }
    if (src != LM_MDSVM_OK) {
        rc = lm_fail(ev, "l_p-AttSVM solver did not converge at p = %g (code %d, gap %.3g)", p, src, s.gap);
        goto out;
    }
    lm_md_consts_compute(&K, &s, D);
    have_k = 1;
    r = lm_mat_new(s.m, 1, c);
    lm_md_margins(r, s.W, D);

    /* (i) supports satisfy the defining equation; smallest non-support margin */
    double tau = P.tol_scale * exp2(0.75 * lm_ctx_log2eps(c));
    double nsmin = INFINITY;
    lm_num_set_d(&x, 0.0);
    for (int a = 0; a < s.m; a++) {
        lm_mat_get(&v, r, a, 0);
        lm_num_add_d(&v, &v, -1.0);
        if (K.support[a]) {
            lm_num_abs(&v, &v);
            lm_num_max(&x, &x, &v);
        } else {
            nsmin = fmin(nsmin, lm_num_get_d(&v));
        }
    }
    lm_num_set_d(&tol, tau);
    lm_obs_le(ev, -1, &x, &tol, 0.0, "supports: max |<W_mm, A_it> - 1| over %d supports, p = %g", K.nsupport, p);

    /* (ii) at least one support */
    lm_obs_le_d(ev, -1, P.min_supports, (double)K.nsupport, 0.0, "support tokens exist (%d)",
                K.nsupport);

    /* (iii) local optimality */
    int locopt = K.gbar > 0;
    if (cfg < 2)
        lm_obs_le_d(ev, -1, exp(-(K.gbar - P.gbar_margin)), 1.0, 0.0,
                    "alpha = opt locally optimal: exp(-gbar) <= 1, gbar = %.3g", K.gbar);
    else
        lm_measure(ev, "post-hoc alpha locally optimal", locopt);

    lm_measure(ev, "supports", K.nsupport);
    lm_measure(ev, "gbar", K.gbar);
    lm_measure(ev, "delta", K.delta);
    lm_measure(ev, "mu0", K.mu0);
    lm_measure(ev, "Gamma", K.Gamma);
    lm_measure(ev, "||W_mm||_p", K.wnorm);
    if (isfinite(nsmin)) lm_measure(ev, "min non-support margin - 1", nsmin);
out:
    lm_num_clears(&v, &x, &tol, (lm_num *)NULL);
    if (have_k) lm_md_consts_clear(&K);
    lm_md_svm_clear(&s);
    lm_mat_free(r);
    lm_md_data_free(D);
    return rc;
}

LM_CLAIM(claim_mirror_definition3) = {
    .kind = LM_KIND_STRUCTURAL,
    .source = "Definition 3 (main text)",
    .origin = "reconstructed",
    .confidence = "medium-high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.5,
    .eval = eval,
};
