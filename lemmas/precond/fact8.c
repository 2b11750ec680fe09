/* lemmas/precond/fact8.c
 *
 * \claim{precond/fact8}{Elementary bound $\|\sum_{i\le n}a_i\|^2\le n\sum_i\|a_i\|^2$, eq.\ (8)}
 * \source{preconditioned-softmax-regression, Fact (8) (Appendix, tools of the proof of Theorem 3)}
 * \statement{For tensors $a_1,\dots,a_n$ of equal shape, $\|\sum_{i=1}^na_i\|^2\le n\sum_i\|a_i\|^2$;
 *   in particular $(a+b)^2\le2a^2+2b^2$.}
 * \check{Pointwise, in the working precision.  $n\in[1,8]$, tensors of $m\in[1,12]$ entries drawn
 *   as doubles.  Instances cycle through four kinds: independent Gaussian $a_i$ with scales
 *   $10^{U(-3,3)}$; the equality case (all $a_i$ equal, ratio exactly 1); all equal but one
 *   perturbed by $10^{-8}$ (ratio $1-O(10^{-16})$, the near-miss the MPFR replay settles); and
 *   an inner hill-climb (200 steps, in double) over the $a_i$ maximising LHS/RHS from a random
 *   start.  Observed: $\|\sum_ia_i\|^2\le\texttt{coef}\cdot n\sum_i\|a_i\|^2$ with relative
 *   tolerance $\texttt{tol\_scale}\cdot4(n+m)u$ ($u$ the unit roundoff of the working precision:
 *   both sides are sums of $nm$ products of rounded sums).  Measured: the ratio LHS/RHS
 *   (1 at equality, so the constant $n$ has no slack).  \texttt{coef}$=0.99$ must be violated
 *   by the equality case.}
 */
#include "lm_claim.h"
#include <math.h>

#define PARAMS(NUM, SWITCH)                                                          \
    NUM(coef, 1.0, "[0, 1e6]", "multiplies n on the right side (the paper: 1)")      \
    NUM(tol_scale, 1.0, "[0, 1e6]", "multiplies the rounding tolerance 4 (n + m) u")
LM_PARAMS(PARAMS)

#define NMAX 8
#define MMAX 12

static double ratio_d(const double a[NMAX][MMAX], int n, int m)
{
    double l = 0.0, r = 0.0;
    for (int e = 0; e < m; e++) {
        double s = 0.0;
        for (int i = 0; i < n; i++) {
            s += a[i][e];
            r += a[i][e] * a[i][e];
        }
        l += s * s;
    }
    return r > 0.0 ? l / (n * r) : 0.0;
}

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    int n = lm_rng_int(g, 1, NMAX), m = lm_rng_int(g, 1, MMAX), kind = ev->index % 4;
    double a[NMAX][MMAX];
    for (int i = 0; i < n; i++) {
        double sc = pow(10.0, 6.0 * lm_rng_uniform(g) - 3.0);
        for (int e = 0; e < m; e++) a[i][e] = sc * lm_rng_normal(g);
    }
    if (kind == 1 || kind == 2)
        for (int i = 1; i < n; i++)
            for (int e = 0; e < m; e++) a[i][e] = a[0][e];
    if (kind == 2 && n > 1) a[n - 1][0] += 1e-8 * (fabs(a[0][0]) + 1e-300);
    if (kind == 3) { /* hill-climb LHS/RHS */
        double cur = ratio_d(a, n, m), step = 0.5;
        for (int it = 0; it < 200; it++) {
            int i = lm_rng_int(g, 0, n - 1), e = lm_rng_int(g, 0, m - 1);
            double old = a[i][e], dlt = step * (fabs(old) + 1e-3) * lm_rng_normal(g);
            a[i][e] = old + dlt;
            double r = ratio_d(a, n, m);
            if (r >= cur) cur = r;
            else {
                a[i][e] = old;
                step *= 0.98;
            }
        }
    }
    const lm_ctx *c = ev->ctx;
    lm_num s, x, lhs, rhs;
    lm_num_inits(c, &s, &x, &lhs, &rhs, (lm_num *)NULL);
    lm_num_set_d(&lhs, 0.0);
    lm_num_set_d(&rhs, 0.0);
    for (int e = 0; e < m; e++) {
        lm_num_set_d(&s, 0.0);
        for (int i = 0; i < n; i++) {
            lm_num_set_d(&x, a[i][e]);
            lm_num_add(&s, &s, &x);
            lm_num_fma(&rhs, &x, &x, &rhs);
        }
        lm_num_fma(&lhs, &s, &s, &lhs);
    }
    lm_num_mul_d(&rhs, &rhs, P.coef * n);
    int rc = 0;
    if (!lm_num_isfinite(&lhs) || !lm_num_isfinite(&rhs)) rc = lm_fail(ev, "non-finite sums");
    else {
        static const char *const KN[] = {"random", "all equal", "near equal", "hill-climb"};
        double tol = P.tol_scale * 4.0 * (n + m) * lm_ctx_eps(c);
        lm_obs_le(ev, -1, &lhs, &rhs, tol, "||sum a_i||^2 <= coef n sum ||a_i||^2 (%s, n=%d, m=%d)", KN[kind], n,
                  m);
        double q = lm_num_iszero(&lhs) ? 0.0 : exp(lm_num_log_abs_d(&lhs) - lm_num_log_abs_d(&rhs));
        lm_measure(ev, "LHS / RHS (1 = equality)", q);
        lm_measure(ev, "n", n);
    }
    lm_num_clears(&s, &x, &lhs, &rhs, (lm_num *)NULL);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "||sum a_i||^2 <= n sum ||a_i||^2 for n <= 8 tensors of <= 12 entries: Gaussian a_i at "
     "scales 10^U(-3,3), the all-equal equality case, a 1e-8 near miss, and a hill-climb on the "
     "ratio.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_precond_fact8) = {
    .kind = LM_KIND_POINTWISE,
    .source = "Fact (8)",
    .origin = "reconstructed",
    .confidence = "high",
    .params = params,
    .readings = readings,
    .inst_scale = 1.0,
    .eval = eval,
};
