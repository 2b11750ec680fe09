/* lemmas/pruning/factF-3.c
 *
 * \claim{pruning/factF.3}{Sandwich trace fact}
 * \source{attention-pruning, Fact F.3 (Appendix F)}
 * \statement{If $A\in\mathbb R^{n\times n}$ is symmetric with $A\succeq\beta I$, then for any
 *   $C\in\mathbb R^{m\times n}$: $\mathrm{tr}(CAC^\top)\ge\beta\,\mathrm{tr}(CC^\top)=\beta\|C\|_F^2$.}
 * \check{$n\in[1,8]$, $m\in[1,4]$.  $A=Q\,\mathrm{diag}(w)Q^\top$ with $Q$ random orthogonal is
 *   formed once in double and then taken as the exact instance in every precision; $\beta$ is
 *   its smallest eigenvalue computed in the working precision ($\beta=\lambda_{\min}(A)$, the
 *   largest admissible $\beta$).  Instance kinds, cycling with the index: (0) $w$ uniform in
 *   $[0.1,10]$, random Gaussian $C$; (1) the equality case: the rows of $C$ are random
 *   multiples of the computed bottom eigenvector; (2) a doubled bottom eigenvalue, rows of $C$
 *   random combinations of the two bottom eigenvectors (equality again); (3) singular PSD $A$
 *   ($w_0=0$, $\beta\approx0$); (4) ill-conditioned $w$ log-uniform in $[10^{-6},10^{6}]$;
 *   (5) indefinite $A$ ($\beta<0$; the fact needs no definiteness).  Observed:
 *   $\texttt{coef}\cdot\beta\|C\|_F^2\le\mathrm{tr}(CAC^\top)+\tau\,\|A\|\,\|C\|_F^2$ with
 *   $\tau=\texttt{tol\_scale}\cdot16(n+m)^2u$: the rounding of $\beta$, of the eigenvectors and of
 *   the trace is absolute, of order $u\|A\|\|C\|_F^2$, so the slack is absolute too (a relative
 *   one would vanish at $\beta\approx0$).  The report shows
 *   $\mathrm{tr}(CAC^\top)/(\beta\|C\|_F^2)$ (1 = tight).  Tightening $\beta$
 *   (\texttt{coef}$=1.001$) is violated on the equality instances.}
 */
#include "lm_prbd.h"
#include <math.h>
#include <stdio.h>

#define PARAMS(NUM, SWITCH)                                                                                           \
    NUM(coef, 1.0, "constant [0, 1e6]", "multiplies beta = lambda_min(A) (the paper: 1; larger = a tightened beta)")  \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies the rounding tolerance 16 (n+m)^2 u (times ||A|| ||C||_F^2)")
LM_PARAMS(PARAMS)

/* random orthogonal Q (n x n) in double by Gram-Schmidt of a Gaussian matrix */
static void rand_orth(double *Q, int n, lm_rng *g)
{
    for (int k = 0; k < n * n; k++) Q[k] = lm_rng_normal(g);
    for (int j = 0; j < n; j++) {
        for (int rep = 0; rep < 2; rep++)
            for (int i = 0; i < j; i++) {
                double s = 0.0;
                for (int k = 0; k < n; k++) s += Q[k * n + i] * Q[k * n + j];
                for (int k = 0; k < n; k++) Q[k * n + j] -= s * Q[k * n + i];
            }
        double s = 0.0;
        for (int k = 0; k < n; k++) s += Q[k * n + j] * Q[k * n + j];
        s = sqrt(s);
        for (int k = 0; k < n; k++) Q[k * n + j] /= s;
    }
}

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    int kind = ev->index % 6;
    int n = lm_rng_int(g, 1, 8), m = lm_rng_int(g, 1, 4);
    if (kind == 2 && n < 2) n = 2;
    double w[8] = {0}, Q[64], A0[64], C0[32], z[8];
    for (int i = 0; i < n; i++) {
        if (kind == 4) w[i] = pow(10.0, 12.0 * lm_rng_uniform(g) - 6.0);
        else if (kind == 5) w[i] = 10.0 * lm_rng_uniform(g) - 5.0;
        else w[i] = 0.1 + 9.9 * lm_rng_uniform(g);
    }
    if (kind == 3) w[0] = 0.0;
    if (kind == 2) { /* the two smallest equal */
        int a = 0;
        for (int i = 1; i < n; i++) if (w[i] < w[a]) a = i;
        int b = a == 0 ? 1 : 0;
        w[b] = w[a];
    }
    rand_orth(Q, n, g);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0.0;
            for (int k = 0; k < n; k++) s += Q[i * n + k] * w[k] * Q[j * n + k];
            A0[i * n + j] = s;
        }
    for (int i = 0; i < n; i++) /* exactly symmetric */
        for (int j = 0; j < i; j++) A0[i * n + j] = A0[j * n + i];
    double scale = pow(10.0, 4.0 * lm_rng_uniform(g) - 2.0);
    for (int k = 0; k < m * n; k++) C0[k] = scale * lm_rng_normal(g);
    for (int k = 0; k < 8; k++) z[k] = lm_rng_normal(g);

    const lm_ctx *c = ev->ctx;
    lm_mat *A = lm_mat_new(n, n, c), *V = lm_mat_new(n, n, c), *C = lm_mat_new(m, n, c);
    lm_mat *CA = lm_mat_new(m, n, c);
    lm_num *ev_ = lm_nums_new(n, c);
    lm_num beta, tr, nc2, na, x, y, lhs, rhs;
    lm_num_inits(c, &beta, &tr, &nc2, &na, &x, &y, &lhs, &rhs, (lm_num *)NULL);
    int rc = 0;
    lm_mat_set_array(A, A0);
    lm_mat_set_array(C, C0);
    if (lm_mat_symeig(ev_, V, A)) {
        rc = lm_fail(ev, "symmetric eigensolver failed (n=%d)", n);
        goto out;
    }
    lm_num_set(&beta, &ev_[0]);
    lm_num_abs(&na, &ev_[0]);
    lm_num_abs(&x, &ev_[n - 1]);
    lm_num_max(&na, &na, &x); /* ||A|| */
    if (kind == 1 || kind == 2) { /* rows of C in the bottom eigenspace */
        int nb = kind == 2 ? 2 : 1;
        for (int i = 0; i < m; i++)
            for (int k = 0; k < n; k++) {
                lm_num_set_d(&y, 0.0);
                for (int b = 0; b < nb; b++) {
                    lm_mat_get(&x, V, k, b);
                    lm_num_mul_d(&x, &x, scale * z[(i * nb + b) % 8]);
                    lm_num_add(&y, &y, &x);
                }
                lm_mat_set(C, i, k, &y);
            }
    }
    lm_mat_mul(CA, C, 0, A, 0);
    lm_mat_dot(&tr, CA, C); /* tr(C A C^T) = sum (C A) .* C */
    lm_mat_frob(&nc2, C);
    lm_num_sqr(&nc2, &nc2);
    if (!lm_num_isfinite(&tr) || !lm_num_isfinite(&beta)) {
        rc = lm_fail(ev, "non-finite trace or eigenvalue");
        goto out;
    }
    lm_num_mul(&lhs, &beta, &nc2);
    lm_num_mul_d(&lhs, &lhs, P.coef);
    double tau = lm_prbd_tol(ev, 16.0 * (n + m) * (n + m));
    lm_num_mul(&x, &na, &nc2);
    lm_num_mul_d(&x, &x, tau);
    lm_num_add(&rhs, &tr, &x);
    lm_obs_le(ev, -1, &lhs, &rhs, 0.0, "coef beta ||C||^2 <= tr(C A C^T) (kind %d, n=%d, m=%d)", kind, n, m);
    lm_measure(ev, "kind", kind);
    lm_measure(ev, "n", n);
    lm_measure(ev, "m", m);
    lm_measure(ev, "beta", lm_num_get_d(&beta));
    if (lm_num_sgn(&beta) != 0 && lm_num_sgn(&nc2) > 0) {
        lm_num_div(&x, &tr, &nc2);
        lm_num_div(&x, &x, &beta);
        lm_measure(ev, "tr(C A C^T) / (beta ||C||^2) (1 = tight)", lm_num_get_d(&x));
    }
out:
    lm_num_clears(&beta, &tr, &nc2, &na, &x, &y, &lhs, &rhs, (lm_num *)NULL);
    lm_nums_free(ev_, n);
    lm_mat_free(A); lm_mat_free(V); lm_mat_free(C); lm_mat_free(CA);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "n <= 8, m <= 4, beta = lambda_min(A): random, equality (bottom eigenvectors), "
                    "doubled, singular, ill-conditioned and indefinite A.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_factF_3) = {
    .kind = LM_KIND_POINTWISE,
    .source = "Fact F.3 (Appendix F)",
    .origin = "reconstructed",
    .confidence = "high",
    .params = params,
    .configs = NULL,
    .readings = readings,
    .inst_scale = 1.0,
    .eval = eval,
};
