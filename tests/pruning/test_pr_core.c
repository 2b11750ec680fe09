/* tests/test_pr_core.c -- the attention-pruning model core (lm_pr): the
 * closed-form gradient against central differences in double and MPFR, the
 * catalogue's edge identities, the Jacobian operator norm on a map whose
 * norm is known, beta's rank classification, binarisation counts. */
#include "test_support.h"
#include "lm_pr.h"
#include <math.h>

static lm_prdata *inst(int n, int d, double R, int causal, double lambda, uint64_t seed, const lm_ctx *c)
{
    lm_rng g;
    lm_rng_init(&g, seed);
    lm_ctx cd = lm_ctx_double();
    lm_prdata *P0 = lm_pr_new(n, d, &cd);
    lm_pr_fill(P0->X, LM_PR_UNIFORM, R, &g);
    lm_pr_fill(P0->W, LM_PR_GAUSS, R, &g);
    if (causal) lm_pr_set_causal(P0);
    P0->lambda = lambda;
    lm_pr_prepare(P0);
    lm_prdata *P = lm_pr_convert(P0, c);
    lm_pr_free(P0);
    return P;
}

static double rel_diff(const lm_mat *A, const lm_mat *B)
{
    lm_ctx c = lm_mat_ctx(A);
    lm_mat *D = lm_mat_dup(A);
    lm_mat_sub(D, A, B);
    lm_num x, y;
    lm_num_inits(&c, &x, &y, (lm_num *)NULL);
    lm_mat_frob(&x, D);
    lm_mat_frob(&y, B);
    double r = exp(lm_num_log_abs_d(&x) - lm_num_log_abs_d(&y));
    lm_num_clears(&x, &y, (lm_num *)NULL);
    lm_mat_free(D);
    return r;
}

static void grad_vs_fd(const lm_ctx *c, double h, double tol, int causal)
{
    lm_prdata *P = inst(5, 3, 1.5, causal, 1e-3, 11, c);
    lm_rng g;
    lm_rng_init(&g, 5);
    lm_mat *M = lm_mat_new(3, 3, c), *G = lm_mat_new(3, 3, c), *Gf = lm_mat_new(3, 3, c);
    lm_pr_fill_mask(M, LM_PR_M_UNIFORM, &g);
    lm_prfwd *F = lm_pr_fwd_new(P);
    cr_assert_eq(lm_pr_loss_grad(NULL, G, F, P, M), 0);
    cr_assert_eq(lm_pr_grad_fd(Gf, P, M, h), 0);
    double r = rel_diff(G, Gf);
    cr_assert(r < tol, "relative residual %g >= %g at %d bits", r, tol, (int)c->prec);
    lm_pr_fwd_free(F);
    lm_mat_free(M); lm_mat_free(G); lm_mat_free(Gf);
    lm_pr_free(P);
}

Test(pr_core, gradient_matches_fd_double)
{
    lm_ctx c = lm_ctx_double();
    grad_vs_fd(&c, 1e-6, 1e-8, 0);
    grad_vs_fd(&c, 1e-6, 1e-8, 1);
}

Test(pr_core, gradient_matches_fd_mpfr256)
{
    lm_ctx c = lm_ctx_mpfr(256);
    grad_vs_fd(&c, ldexp(1.0, -80), 1e-40, 0);
    grad_vs_fd(&c, ldexp(1.0, -80), 1e-40, 1);
}

Test(pr_core, edge_identities_at_ones)
{
    lm_ctx c = lm_ctx_double();
    lm_prdata *P = inst(4, 3, 2.0, 0, 0.25, 3, &c);
    lm_mat *M = lm_mat_new(3, 3, &c), *G = lm_mat_new(3, 3, &c);
    lm_pr_fill_mask(M, LM_PR_M_ONES, NULL);
    lm_prfwd *F = lm_pr_fwd_new(P);
    lm_num L;
    lm_num_init(&L, &c);
    lm_pr_loss_grad(&L, G, F, P, M);
    cr_assert_float_eq(lm_num_get_d(&L), 0.25 * 9 / 2, 1e-15);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) cr_assert_float_eq(lm_mat_get_d(G, a, b), 0.25, 1e-15);
    lm_num_clear(&L);
    lm_pr_fwd_free(F);
    lm_mat_free(M); lm_mat_free(G);
    lm_pr_free(P);
}

Test(pr_core, causal_rows_are_lower_triangular)
{
    lm_ctx c = lm_ctx_double();
    lm_prdata *P = inst(4, 3, 2.0, 1, 0.0, 3, &c);
    lm_rng g;
    lm_rng_init(&g, 9);
    lm_mat *M = lm_mat_new(3, 3, &c);
    lm_pr_fill_mask(M, LM_PR_M_OFFDOMAIN, &g);
    lm_prfwd *F = lm_pr_fwd_new(P);
    lm_pr_forward(F, P, M);
    cr_assert_eq(lm_mat_get_d(F->f, 0, 0), 1.0);
    for (int i = 0; i < 4; i++) {
        double s = 0;
        for (int j = 0; j < 4; j++) {
            if (j > i) cr_assert_eq(lm_mat_get_d(F->f, i, j), 0.0);
            s += lm_mat_get_d(F->f, i, j);
        }
        cr_assert_float_eq(s, 1.0, 1e-15);
    }
    lm_pr_fwd_free(F);
    lm_mat_free(M);
    lm_pr_free(P);
}

/* the gradient map of lambda/2 ||M||^2 alone (X = 0: f constant) has
 * Jacobian lambda I, operator norm lambda */
Test(pr_core, jacobian_norm_of_known_map)
{
    lm_ctx c = lm_ctx_double();
    lm_prdata *P = lm_pr_new(3, 2, &c);
    P->lambda = 0.7;
    lm_pr_prepare(P);
    lm_mat *M = lm_mat_new(2, 2, &c);
    lm_num r;
    lm_num_init(&r, &c);
    cr_assert_eq(lm_pr_jac_norm(&r, LM_PR_MAP_GRAD, P, M, 1e-4), 0);
    cr_assert_float_eq(lm_num_get_d(&r), 0.7, 1e-10);
    lm_num_clear(&r);
    lm_mat_free(M);
    lm_pr_free(P);
}

Test(pr_core, beta_is_zero_for_more_tokens_than_features)
{
    lm_ctx c = lm_ctx_double();
    lm_prdata *P = inst(5, 3, 1.0, 0, 0.0, 1, &c);
    lm_num b;
    lm_num_init(&b, &c);
    cr_assert_eq(lm_pr_beta(&b, P), 0);
    cr_assert_eq(lm_num_get_d(&b), 0.0);
    lm_pr_free(P);
    P = lm_pr_new(2, 4, &c);
    lm_rng g;
    lm_rng_init(&g, 2);
    lm_pr_fill_pl_X(P->X, 0.5, 0.0, 10.0, &g);
    cr_assert_eq(lm_pr_beta(&b, P), 0);
    cr_assert_float_eq(lm_num_get_d(&b), 0.5, 1e-12);
    lm_num_clear(&b);
    lm_pr_free(P);
}

Test(pr_core, binarise_prunes_exactly_floor_rho_d2)
{
    lm_ctx c = lm_ctx_double();
    lm_rng g;
    lm_rng_init(&g, 4);
    lm_mat *M = lm_mat_new(5, 5, &c), *B = lm_mat_new(5, 5, &c);
    lm_pr_fill_mask(M, LM_PR_M_OFFDOMAIN, &g);
    lm_mat_set_d(M, 0, 0, 0.5);
    lm_mat_set_d(M, 0, 1, 0.5); /* a tie */
    lm_pr_binarise(B, M, 0.37);
    int z = 0;
    for (int k = 0; k < 25; k++) z += lm_mat_get_d(B, k / 5, k % 5) == 0.0;
    cr_assert_eq(z, 9);
    lm_mat_free(M); lm_mat_free(B);
}

Test(pr_core, minimise_reaches_stationary_point)
{
    lm_ctx c = lm_ctx_double();
    lm_prdata *P = inst(3, 3, 1.5, 0, 1e-2, 8, &c);
    lm_mat *M = lm_mat_new(3, 3, &c), *Ms = lm_mat_new(3, 3, &c);
    lm_pr_fill_mask(M, LM_PR_M_ONES, NULL);
    lm_num L;
    lm_num_init(&L, &c);
    cr_assert_eq(lm_pr_minimise(&L, Ms, P, M, 200, 1e-10), 0);
    cr_assert(lm_num_get_d(&L) < 1e-2 * 9 / 2, "L* = %g not below L(1)", lm_num_get_d(&L));
    lm_num_clear(&L);
    lm_mat_free(M); lm_mat_free(Ms);
    lm_pr_free(P);
}
