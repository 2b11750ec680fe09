/* lemmas/tutorial/descent-lemma.c
 *
 * \claim{tutorial/descent-lemma}{The descent lemma along gradient descent}
 * \source{folklore; e.g. Nesterov (2004), Lectures on Convex Optimization, eq.~(1.2.12)}
 * \statement{Let $f$ be $L$-smooth and $x_{t+1}=x_t-\eta\nabla f(x_t)$ with $0<\eta\le1/L$.
 *   Then $f(x_{t+1})\le f(x_t)-c\,\eta\bigl(1-\frac{L\eta}2\bigr)\|\nabla f(x_t)\|^2$ with $c=1$.}
 * \check{Along a live run of \texttt{steps} iterations of gradient descent on least squares
 *   $f(x)=\frac1{2m}\|Ax\|^2$ (a consistent system in coordinates centred at its solution) with
 *   $A\in\mathbb R^{m\times d}$ Gaussian, $m\in[2,\texttt{m\_max}]$, $d\in[2,\texttt{d\_max}]$,
 *   from a Gaussian $x_0$; $L=\sigma_{\max}(A)^2/m$ and $\eta=h/L$, $h=\texttt{h}$.  Every step
 *   is one observation; $L$, $\eta$ and both sides are computed in the working precision.  The
 *   bound is attained for gradients along the top singular direction, so the claim is tight.}
 */
#include "lm_claim.h"
#include "lm_tutls.h"
#include <math.h>

#define PARAMS(NUM, SWITCH)                                                             \
    NUM(c, 1.0, "constant [0, 1e6]", "multiplies the guaranteed decrease")              \
    NUM(h, 1.0, "setting [0.01, 1]", "the step size eta in units of 1/L (the hypothesis eta <= 1/L)") \
    NUM(steps, 50, "int [1, 200]", "GD iterations per run (a run length bound: f stays above underflow)") \
    NUM(m_max, 32, "int [2, 256]", "largest number of rows m (a resource bound)")        \
    NUM(d_max, 8, "int [2, 64]", "largest dimension d (a resource bound)")
LM_PARAMS(PARAMS)

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    const int m = lm_size(ev, "m", lm_rng_int(g, 2, (int)P.m_max), 2, (int)P.m_max);
    const int d = lm_size(ev, "d", lm_rng_int(g, 2, (int)P.d_max), 2, (int)P.d_max);
    lm_tutls F;
    if (lm_tutls_init(&F, m, d, g, ev->ctx)) return lm_fail(ev, "out of memory");
    lm_mat *x = lm_mat_new(d, 1, ev->ctx), *gr = lm_mat_new(d, 1, ev->ctx);
    lm_mat_randn(x, g, 1.0);
    lm_num L, eta, meta, k, f0, f1, gn2, rhs;
    lm_num_inits(ev->ctx, &L, &eta, &meta, &k, &f0, &f1, &gn2, &rhs, (lm_num *)NULL);
    int rc = lm_tutls_smooth(&L, &F) ? lm_fail(ev, "the SVD of A did not converge") : 0;
    /* eta = h/L, meta = -eta, k = c eta (1 - L eta / 2) */
    lm_num_set_d(&eta, P.h);
    lm_num_div(&eta, &eta, &L);
    lm_num_neg(&meta, &eta);
    lm_num_mul(&k, &L, &eta);
    lm_num_mul_d(&k, &k, -0.5);
    lm_num_add_d(&k, &k, 1.0);
    lm_num_mul(&k, &k, &eta);
    lm_num_mul_d(&k, &k, P.c);
    lm_tutls_loss(&f0, &F, x);
    for (int t = 0; !rc && t < (int)P.steps && (ev->tmax < 0 || t <= ev->tmax); t++) {
        lm_tutls_grad(gr, &F, x);
        lm_mat_dot(&gn2, gr, gr);
        lm_mat_axpy(x, &meta, gr); /* x_{t+1} = x_t - eta grad f(x_t) */
        lm_tutls_loss(&f1, &F, x);
        if (!lm_num_isfinite(&f1)) { rc = lm_fail(ev, "the loss is not finite at t = %d", t + 1); break; }
        lm_num_mul(&rhs, &k, &gn2);
        lm_num_sub(&rhs, &f0, &rhs);
        lm_obs_le(ev, t, &f1, &rhs, 0.0, "f(x_%d) vs f(x_%d) - c eta (1 - L eta/2) ||grad f(x_%d)||^2",
                  t + 1, t, t);
        lm_series(ev, "f(x_t)", t + 1, lm_num_get_d(&f1));
        lm_num_set(&f0, &f1);
    }
    lm_series_axes(ev, "t", "f(x_t)", 1);
    lm_measure(ev, "L", lm_num_get_d(&L));
    lm_num_clears(&L, &eta, &meta, &k, &f0, &f1, &gn2, &rhs, (lm_num *)NULL);
    lm_mat_free(x);
    lm_mat_free(gr);
    lm_tutls_free(&F);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "Descent lemma along live GD runs on random least squares (m <= 32, d <= 8) at the largest "
     "allowed step eta = 1/L (h = 1), tight along the top singular direction.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_tutorial_descent_lemma) = {
    .kind = LM_KIND_TRAJECTORY,
    .source = "folklore (Nesterov 2004, eq. 1.2.12)",
    .origin = "reconstructed",
    .confidence = "high",
    .params = params,
    .readings = readings,
    .inst_scale = 1.0,
    .certifiable = 1,
    .eval = eval,
};
