/* lemmas/tutorial/softmax-jacobian.c
 *
 * \claim{tutorial/softmax-jacobian}{The softmax Jacobian has spectral norm at most $1/2$}
 * \source{folklore; e.g. Gao and Pavel (2017), Proposition~2}
 * \statement{For every $z\in\mathbb R^n$, $\|J(z)\|_2\le\frac12$, where
 *   $J(z)=\mathrm{diag}(s)-ss^\top$ and $s=\mathrm{softmax}(z)$.}
 * \check{$J(z)$ is formed from $s=\mathrm{softmax}(z)$ and its spectral norm computed (largest
 *   singular value), both in the working precision, against the bound $c$ ($c=\frac12$ as
 *   stated).  Random instances: $n\in[2,\texttt{n\_max}]$ and $z$ with entries
 *   $10^{\sigma}\mathcal N(0,1)$, $\sigma\in[-3,2]$.  The adversarial search moves two
 *   numbers: the gap $\gamma=15(1+\tanh x_1)\in(0,30)$ by which $z_2,\dots,z_{n-1}$ lie below
 *   $z_0=0$, and the mixing $z_1=3\tanh x_2$; the supremum $\frac12$ is approached as
 *   $\gamma\to\infty$ with $z_1=z_0$ (two equal dominant entries).  For $n=2$ it is attained
 *   at $z_0=z_1$, an equality case left to the near-miss replay in MPFR; for $n>2$ the gap is
 *   capped at $30$ so that the bound is approached only to within about $e^{-30}$, and no precision
 *   rounds the other entries of $s$ to zero.}
 */
#include "lm_claim.h"
#include <math.h>

#define PARAMS(NUM, SWITCH)                                                             \
    NUM(c, 0.5, "constant [0, 1e6]", "the bound on ||J(z)||_2")                         \
    NUM(n_max, 16, "int [2, 128]", "largest dimension n (a resource bound)")
LM_PARAMS(PARAMS)

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    const int n = lm_size(ev, "n", lm_rng_int(g, 2, lm_int(P.n_max)), 2, lm_int(P.n_max));
    const double sigma = -3.0 + 5.0 * lm_rng_uniform(g);
    lm_mat *z = lm_inst_mat(ev, 1, n), *s = lm_inst_mat(ev, 1, n), *J = lm_inst_mat(ev, n, n);
    lm_num *sj = lm_inst_num(ev), *Jjj = lm_inst_num(ev), *lhs = lm_inst_num(ev), *rhs = lm_inst_num(ev);
    for (int j = 0; j < n; j++) {
        const double r = lm_rng_normal(g);
        double zj = pow(10.0, sigma) * r;
        if (ev->x) /* the search: z = (0, 3 tanh x2, -gap + 0.1 N(0,1), ...) */
            zj = j == 0 ? 0.0 : j == 1 ? 3.0 * tanh(ev->x[1]) : -15.0 * (1.0 + tanh(ev->x[0])) + 0.1 * r;
        lm_mat_set_d(z, 0, j, zj);
    }
    lm_mat_softmax_rows(s, z);

    /* J = diag(s) - s^T s */
    lm_mat_mul(J, s, 1, s, 0);
    lm_mat_scale_d(J, J, -1.0);
    for (int j = 0; j < n; j++) {
        lm_mat_get(sj, s, 0, j);
        lm_mat_get(Jjj, J, j, j);
        lm_num_add(Jjj, Jjj, sj);
        lm_mat_set(J, j, j, Jjj);
    }
    lm_measure(ev, "n", n);
    if (lm_mat_smax(lhs, J)) return lm_fail(ev, "the SVD of J did not converge (n = %d)", n);
    if (!lm_num_isfinite(lhs)) return lm_fail(ev, "||J(z)||_2 is not finite");
    lm_num_set_d(rhs, P.c);
    lm_obs_le(ev, -1, lhs, rhs, 0.0, "||J(z)||_2 vs c (n = %d)", n);
    return 0;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "||J(z)||_2 <= 1/2 on random z (n <= 16, entries 10^sigma N(0,1), sigma in [-3,2]) and a 2-d "
     "search towards two equal dominant entries, where the supremum 1/2 is approached.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_tutorial_softmax_jacobian) = {
    .kind = LM_KIND_POINTWISE,
    .source = "folklore (Gao and Pavel 2017, Prop. 2)",
    .origin = "verbatim",
    .confidence = "high",
    .params = params,
    .readings = readings,
    .inst_scale = 1.0,
    .search_dim = 2,
    .certifiable = 1,
    .eval = eval,
};
