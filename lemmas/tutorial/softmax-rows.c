/* lemmas/tutorial/softmax-rows.c
 *
 * \claim{tutorial/softmax-rows}{The rows of the softmax Jacobian sum to zero, and its trace is $1-\|s\|^2$}
 * \source{folklore: softmax is invariant under $z\mapsto z+t\mathbf 1$}
 * \statement{For every $z\in\mathbb R^n$, $J(z)\mathbf 1=0$ and $\mathrm{tr}\,J(z)=1-\|s\|_2^2$, where
 *   $J(z)=\mathrm{diag}(s)-ss^\top$ and $s=\mathrm{softmax}(z)$.}
 * \check{The identity as a residual: $J(z)$ is formed from $s=\mathrm{softmax}(z)$ and
 *   multiplied by $\mathbf 1$ in the working precision, and
 *   $\max_i|(J\mathbf 1)_i-\texttt{shift}|\le\texttt{tol}\cdot n\,\varepsilon\max_is_i$ with
 *   $\varepsilon$ the working precision's unit roundoff: row $i$ sums $n$ terms of size at most
 *   $s_i$.  Random $z$ with $n\in[2,\texttt{n\_max}]$ and entries $10^{\sigma}\mathcal N(0,1)$,
 *   $\sigma\in[-3,2]$.  The trace identity is a second residual,
 *   $|\mathrm{tr}\,J-(1-\texttt{coef}\,\|s\|^2)|\le\texttt{tol}\cdot n\,\varepsilon$, with
 *   \texttt{coef} $=1$ as stated.  \texttt{shift} (default $0$) and \texttt{coef} are the
 *   constants a wrong-constant test moves (\texttt{coef}, with its positive default, is also
 *   what \texttt{lemmata mutate} moves).}
 */
#include "lm_claim.h"
#include <math.h>

#define PARAMS(NUM, SWITCH)                                                             \
    NUM(shift, 0.0, "constant [-1, 1]", "the claimed value of every row sum (0: the identity)") \
    NUM(coef, 1.0, "constant [0, 1e6]", "multiplies ||s||^2 in tr J = 1 - ||s||^2")        \
    NUM(tol, 64.0, "setting [1, 1e12]", "residual tolerance in units of n eps max_i s_i")   \
    NUM(n_max, 64, "int [2, 1024]", "largest dimension n (a resource bound)")
LM_PARAMS(PARAMS)

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    const int n = lm_size(ev, "n", lm_rng_int(g, 2, (int)P.n_max), 2, (int)P.n_max);
    const double sigma = -3.0 + 5.0 * lm_rng_uniform(g);
    lm_mat *z = lm_mat_new(1, n, ev->ctx), *s = lm_mat_new(1, n, ev->ctx);
    lm_mat *J = lm_mat_new(n, n, ev->ctx), *one = lm_mat_new(n, 1, ev->ctx), *r = lm_mat_new(n, 1, ev->ctx);
    for (int j = 0; j < n; j++) {
        lm_mat_set_d(z, 0, j, pow(10.0, sigma) * lm_rng_normal(g));
        lm_mat_set_d(one, j, 0, 1.0);
    }
    lm_mat_softmax_rows(s, z);

    /* J = diag(s) - s^T s, then r = J 1 - shift 1 */
    lm_mat_mul(J, s, 1, s, 0);
    lm_mat_scale_d(J, J, -1.0);
    lm_num sj, Jjj, res, tol;
    lm_num_inits(ev->ctx, &sj, &Jjj, &res, &tol, (lm_num *)NULL);
    for (int j = 0; j < n; j++) {
        lm_mat_get(&sj, s, 0, j);
        lm_mat_get(&Jjj, J, j, j);
        lm_num_add(&Jjj, &Jjj, &sj);
        lm_mat_set(J, j, j, &Jjj);
    }
    lm_mat_mul(r, J, 0, one, 0);
    lm_mat_axpy_d(r, -P.shift, one);
    lm_mat_max_abs(&res, r);
    /* tol n eps max_i s_i, with eps formed exactly in the context (lm_ctx_eps, a double, is 0
     * past 1074 bits) */
    lm_num_set_eps(&sj, ev->ctx);
    lm_mat_max(&tol, s);
    lm_num_mul(&tol, &tol, &sj);
    lm_num_mul_d(&tol, &tol, P.tol * n);
    int rc = 0;
    if (!lm_num_isfinite(&res)) rc = lm_fail(ev, "J(z) 1 is not finite");
    else lm_obs_le(ev, -1, &res, &tol, 0.0, "max_i |(J(z) 1)_i - shift| vs tol n eps max_i s_i (n = %d)", n);
    /* tr J - (1 - coef ||s||^2), against tol n eps (every term is at most 1) */
    lm_num_set_d(&res, 0.0);
    for (int j = 0; j < n; j++) {
        lm_mat_get(&Jjj, J, j, j);
        lm_num_add(&res, &res, &Jjj);
    }
    lm_mat_dot(&Jjj, s, s);
    lm_num_mul_d(&Jjj, &Jjj, P.coef);
    lm_num_add(&res, &res, &Jjj);
    lm_num_add_d(&res, &res, -1.0);
    lm_num_abs(&res, &res);
    lm_num_set_eps(&tol, ev->ctx);
    lm_num_mul_d(&tol, &tol, P.tol * n);
    if (!rc && !lm_num_isfinite(&res)) rc = lm_fail(ev, "tr J(z) is not finite");
    else if (!rc) lm_obs_le(ev, -1, &res, &tol, 0.0, "|tr J(z) - (1 - coef ||s||^2)| vs tol n eps (n = %d)", n);
    lm_measure(ev, "n", n);
    lm_num_clears(&sj, &Jjj, &res, &tol, (lm_num *)NULL);
    lm_mat_free(z);
    lm_mat_free(s);
    lm_mat_free(J);
    lm_mat_free(one);
    lm_mat_free(r);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "Residuals of J(z)1 = 0 and tr J = 1 - ||s||^2 on random z (n <= 64, entries 10^sigma "
     "N(0,1), sigma in [-3,2]) within 64 n eps, at the stated shift 0 and coef 1.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_tutorial_softmax_rows) = {
    .kind = LM_KIND_IDENTITY,
    .source = "folklore",
    .origin = "verbatim",
    .confidence = "high",
    .params = params,
    .readings = readings,
    .inst_scale = 1.0,
    .certifiable = 1,
    .eval = eval,
};
