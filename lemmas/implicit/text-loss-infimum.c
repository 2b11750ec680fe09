/* lemmas/implicit/text-loss-infimum.c
 *
 * \claim{implicit/text-loss-infimum}{Optimal tokens minimise the loss}
 * \source{implicit-bias-self-attention, Section 2 (prose after the W-SVM definition)}
 * \statement{Let $u$ be fixed and $\ell$ decreasing.  For all $W$:
 *   $\hat L(W)>\hat L^*:=\frac1n\sum_i\ell(\gamma_{i,\mathrm{opt}_i})$, and $\inf_W\hat L=\hat L^*$.}
 * \check{Data are Example-1-like ($n=4$, $T=4$, $d=16$, $u=3e_1$), exponential or logistic loss.
 *   Configurations \texttt{random W} and \texttt{random W,logistic}: $W=RG/d+R'V$ with Gaussian
 *   $G$, $R\in\{0.1,1,10\}$, $R'\in\{0,1,3,10\}$ and $V$ the minimum-norm separating direction
 *   ($h_{i\tau}(V)=1$); the check compares $\texttt{Lstar\_scale}\cdot\hat L^*\le\hat L(W)$ in the
 *   working precision ($\hat L^*$ summed directly from the scores, $\hat L$ from the log-sum-exp
 *   forward pass), and records a break if the stable $\hat L-\hat L^*$ (exponential loss) is exactly zero.  At saturation the two
 *   sides agree to many digits, so a near miss in double is replayed in MPFR.  The adversarial
 *   search moves the coefficients of $\sum_i x(x_{i,\mathrm{opt}}-x_{i\tau_i})x_{i1}^\top$ (scale 10).
 *   Configuration \texttt{infimum} checks $\inf_W\hat L=\hat L^*$ along the ray $W=RV$,
 *   $R\in\{10,30,100\}$: $(\hat L(RV)-\hat L^*)/\hat L^*\le\texttt{inf\_tol}=10^{-3}$, in the log domain
 *   with the stable excess (exponential loss; the excess is about $e^{-R}$).
 *   \texttt{Lstar\_scale}$>1$ or a tiny \texttt{inf\_tol} must be violated.}
 */
#include "lm_claim.h"
#include "lm_attn.h"
#include <math.h>
#include <stdlib.h>

static const char *const configs[] = {"random W", "random W,logistic", "infimum", NULL};

#define PARAMS(NUM, SWITCH)                                                                                                \
    NUM(Lstar_scale, 1.0, "[0, 1e6]", "multiplier of L* in L* <= L(W)")                                                    \
    NUM(inf_tol, 1e-3, "(0, 1e6]", "relative excess (L-L*)/L* required along W = R V, R >= 10")                            \
    NUM(n, 4, "int [1, 40]", "sequences (at most 40: run time bound)")                                                     \
    NUM(T, 4, "int [2, 40]", "tokens per sequence (at least 2: an optimal token and another; at most 40: run time bound)") \
    NUM(d, 16, "int [1, 160]", "embedding dimension (at most 160: d x d matrices)")
LM_PARAMS(PARAMS)

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    int n = lm_int(P.n), T = lm_int(P.T), d = lm_int(P.d);
    const lm_ctx *c = ev->ctx;
    lm_attn_loss loss = ev->config == 1 ? LM_ATTN_LOGISTIC : LM_ATTN_EXP;
    lm_attn_data *D = lm_attn_toy_data(g, n, T, d, 1, c);
    int rc = 0;
    lm_mat *W = lm_mat_new(d, d, c), *V = lm_mat_new(d, d, c), *CV = lm_mat_new(n, T, c);
    lm_mat *A = lm_mat_new(n, T, c), *E = lm_mat_new(d, d, c);
    lm_attn_fwd *F = lm_attn_fwd_new(D);
    lm_num Ls, L, v, lex, lhs, rhs;
    lm_num_inits(c, &Ls, &L, &v, &lex, &lhs, &rhs, (lm_num *)NULL);
    static const double Rs[] = {0.1, 1.0, 10.0}, Rm[] = {0.0, 1.0, 3.0, 10.0}, Ri[] = {10.0, 30.0, 100.0};
    double *gz = lm_xmalloc(sizeof(double) * (size_t)(d * d));
    int taus[64];
    for (int k = 0; k < d * d; k++) gz[k] = lm_rng_normal(g);
    for (int i = 0; i < n && i < 64; i++) taus[i] = lm_rng_int(g, 0, T - 2);
    if (!lm_assume(ev, n <= 64 && lm_attn_set_opt(D), "optimal tokens not unique")) goto out;
    for (int i = 0; i < n; i++)
        if (taus[i] >= D->opt[i]) taus[i]++;
    if (lm_attn_sep_direction(CV, D, NULL)) {
        lm_assume(ev, 0, "no separating direction (constraint Gram matrix singular)");
        goto out;
    }
    lm_attn_expand(V, CV, NULL, D);
    if (ev->config == 2) {
        double R = Ri[ev->index % 3];
        lm_mat_axpy_d(W, R, V);
    } else {
        double R = Rs[ev->index % 3], R2 = Rm[(ev->index / 3) % 4];
        for (int k = 0; k < d * d; k++) lm_mat_set_d(W, k / d, k % d, R * gz[k] / d);
        lm_mat_axpy_d(W, R2, V);
        if (ev->x) {
            lm_mat_zero(A);
            for (int i = 0; i < n; i++) {
                double co = 10.0 * ev->x[i % ev->nx];
                lm_mat_set_d(A, i, D->opt[i], co);
                lm_mat_set_d(A, i, taus[i], -co);
            }
            lm_attn_expand(E, A, NULL, D);
            lm_mat_add(W, W, E);
        }
    }
    if (lm_attn_forward(F, D, W, D->u, loss)) { rc = lm_fail(ev, "non-finite forward pass"); goto out; }
    /* L* = (1/n) sum_i ell(gamma_opt) */
    lm_num_set_d(&Ls, 0.0);
    for (int i = 0; i < n; i++) {
        lm_mat_get(&v, F->gam, i, F->opt[i]);
        lm_num_neg(&v, &v);
        lm_num_exp(&v, &v);
        if (loss == LM_ATTN_LOGISTIC) lm_num_log1p(&v, &v);
        lm_num_add(&Ls, &Ls, &v);
    }
    lm_num_div_d(&Ls, &Ls, (double)n);
    lm_attn_lossval(&L, F);
    if (ev->config == 2) {
        lm_attn_log_excess(&lex, F);
        if (!lm_num_isfinite(&lex)) { rc = lm_fail(ev, "stable L - L* not finite"); goto out; }
        lm_num_log(&rhs, &Ls);
        lm_num_add_d(&rhs, &rhs, log(P.inf_tol));
        lm_obs_le_log(ev, -1, &lex, &rhs, 0.0, "(L(RV)-L*)/L* <= inf_tol, R = %g", Ri[ev->index % 3]);
        lm_measure(ev, "log((L-L*)/L*) on the ray", lm_num_get_d(&lex) - log(lm_num_get_d(&Ls)));
        goto out;
    }
    lm_num_mul_d(&lhs, &Ls, P.Lstar_scale);
    lm_obs_le(ev, -1, &lhs, &L, 0.0, "L* <= L(W)");
    if (loss == LM_ATTN_EXP) {
        lm_attn_log_excess(&lex, F);
        /* L - L* > 0: the stable excess is a finite logarithm */
        if (!lm_num_isfinite(&lex)) lm_obs_le_d(ev, -1, 1.0, 0.0, 0.0, "stable L - L* = 0");
        else lm_measure(ev, "log(L-L*)", lm_num_get_d(&lex));
    }
out:
    free(gz);
    lm_num_clears(&Ls, &L, &v, &lex, &lhs, &rhs, (lm_num *)NULL);
    lm_attn_fwd_free(F);
    lm_mat_free(W); lm_mat_free(V); lm_mat_free(CV); lm_mat_free(A); lm_mat_free(E);
    lm_attn_data_free(D);
    return rc;
}

static int search_in(int config) { return config < 2; }

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "W = R G/d + R' V with R in {0.1, 1, 10}, R' in {0, 1, 3, 10}, exponential loss, EX1-like "
     "data (n = 4, T = 4, d = 16): L(W) > L* strictly, plus a search towards saturation.",
     NULL},
    {LM_READ_PAPER,
     "The same random W = R G/d + R' V under the logistic loss (the claim holds for any "
     "decreasing loss): L(W) > L* strictly, with near misses at saturation replayed in MPFR.",
     NULL},
    {LM_READ_PAPER,
     "Infimum along the ray W = R V, R in {10, 30, 100} (exponential loss): the relative excess "
     "(L(RV) - L*)/L*, about e^-R, must fall below 1e-3, so inf L = L*.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_implicit_text_loss_infimum) = {
    .kind = LM_KIND_POINTWISE,
    .source = "Section 2 (prose)",
    .origin = "verbatim",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.5,
    .search_dim = 4,
    .search_in = search_in,
    .eval = eval,
};
