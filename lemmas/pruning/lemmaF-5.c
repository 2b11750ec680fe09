/* lemmas/pruning/lemmaF-5.c
 *
 * \claim{pruning/lemmaF.5}{Lower (and upper) bound on a Hadamard product}
 * \source{attention-pruning, Lemma F.5 (Appendix F)}
 * \statement{For $A,B$ of equal shape:
 *   $\min_{ij}|A_{ij}|\cdot\|B\|_F\le\|A\circ B\|_F\le\max_{ij}|A_{ij}|\cdot\|B\|_F$.  Used with
 *   $A=W$, which brings $\theta=\min|W_{ab}|$ into $\mu$.}
 * \check{Configurations \texttt{lower} and \texttt{upper}.  $A$ is a $d\times d$ weight $W$ from
 *   the four families ($R$, $d$ from the grids; every fifth instance has an exact zero entry,
 *   $\theta=0$; every fourth is Rademacher, $|A|$ constant: both bounds are equalities), $B$
 *   Gaussian.  Observed: $\texttt{coef}\cdot\min|A|\,\|B\|_F\le\|A\circ B\|_F$, resp.
 *   $\|A\circ B\|_F\le\texttt{coef}\cdot\max|A|\,\|B\|_F$, relative tolerance
 *   $\texttt{tol\_scale}\cdot8(d+2)u$.  $\texttt{coef}=1.001$ (lower) or $0.999$ (upper) is
 *   violated at constant $|A|$.}
 */
#include "lm_prbd.h"
#include <math.h>

static const char *const configs[] = {"lower", "upper", NULL};
#define PARAMS(NUM, SWITCH)                                                                \
    NUM(coef, 1.0, "constant [0, 1e6]", "multiplies min|A| (lower) or max|A| (upper)")     \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies the rounding tolerance 8 (d+2) u")
LM_PARAMS(PARAMS)

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    lm_prbd_plan pl;
    lm_prbd_plan_make(&pl, ev->index, g);
    if (ev->index % 4 == 0) pl.fw = LM_PR_RADEMACHER;
    lm_prdata *P0 = lm_prbd_draw(&pl, NULL, g);
    if (ev->index % 5 == 4) lm_mat_set_d(P0->W, 0, 0, 0.0);
    int d = pl.d;
    lm_ctx cd = lm_ctx_double();
    lm_mat *B0 = lm_mat_new(d, d, &cd);
    lm_mat_randn(B0, g, 1.0);
    const lm_ctx *c = ev->ctx;
    lm_mat *A = lm_mat_new(d, d, c), *B = lm_mat_new(d, d, c), *H = lm_mat_new(d, d, c);
    lm_mat_copy(A, P0->W);
    lm_mat_copy(B, B0);
    lm_mat_hadamard(H, A, B);
    lm_num h, nb, m;
    lm_num_inits(c, &h, &nb, &m, (lm_num *)NULL);
    lm_mat_frob(&h, H);
    lm_mat_frob(&nb, B);
    double coef = P.coef, tol = lm_prbd_tol(ev, 8.0 * (d + 2));
    if (ev->config == 0) {
        lm_mat_min_abs(&m, A);
        lm_num_mul(&m, &m, &nb);
        lm_num_mul_d(&m, &m, coef);
        lm_prbd_obs(ev, &m, 1.0, &h, tol, "coef min|A| ||B|| <= ||A o B||");
        if (lm_num_sgn(&h) > 0) lm_measure(ev, "min|A| ||B|| / ||A o B||", lm_num_get_d(&m) / coef / lm_num_get_d(&h));
    } else {
        lm_mat_max_abs(&m, A);
        lm_num_mul(&m, &m, &nb);
        lm_prbd_obs(ev, &h, coef, &m, tol, "||A o B|| <= coef max|A| ||B||");
        lm_measure(ev, "||A o B|| / (max|A| ||B||)", lm_num_get_d(&h) / lm_num_get_d(&m));
    }
    lm_measure(ev, "d", d);
    lm_num_clears(&h, &nb, &m, (lm_num *)NULL);
    lm_mat_free(A); lm_mat_free(B); lm_mat_free(H); lm_mat_free(B0);
    lm_pr_free(P0);
    return 0;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Lower bound min|A_ij| ||B||_F <= ||A o B||_F, A = W from the four families, "
                    "Gaussian B: theta = 0 instances and Rademacher A (equality).", NULL},
    {LM_READ_PAPER, "Upper bound ||A o B||_F <= max|A_ij| ||B||_F, A = W from the four families, "
                    "Gaussian B: Rademacher A with |A| constant is the equality case.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_lemmaF_5) = {
    .kind = LM_KIND_POINTWISE,
    .source = "Lemma F.5 (Appendix F)",
    .origin = "reconstructed",
    .confidence = "high (lower bound), medium (upper half)",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 1.0,
    .eval = eval,
};
