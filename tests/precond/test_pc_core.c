/* tests/test_pc_core.c -- the preconditioned softmax-regression core (lm_pc):
 * population, regulariser and empirical gradients against central differences
 * in double and MPFR, zero loss on the manifold, the Procrustes projection's
 * defining property, the saddle points, and the spectral initialisation. */
#include "test_support.h"
#include "lm_pc.h"
#include <math.h>

static lm_pcdata *inst(const lm_ctx *c, int variant)
{
    lm_rng g;
    lm_rng_init(&g, 17);
    lm_pcdata *P0 = lm_pc_gen(3, 4, 0.5, 0.0, 0.5, 0.1, 0.25, &g, c);
    P0->variant = variant;
    return P0;
}

typedef void (*scalar_fn)(lm_num *r, const lm_pcdata *P, const lm_pcth *t, const void *aux);

static void f_excess(lm_num *r, const lm_pcdata *P, const lm_pcth *t, const void *aux)
{
    (void)aux;
    lm_pc_excess(r, P, t);
}

static void f_reg(lm_num *r, const lm_pcdata *P, const lm_pcth *t, const void *aux)
{
    (void)aux;
    lm_pc_reg(r, P, t);
}

static void f_emp(lm_num *r, const lm_pcdata *P, const lm_pcth *t, const void *aux)
{
    lm_pc_emp(r, NULL, P, t, aux, 0);
}

/* max relative difference between G and central differences of f */
static double fd_resid(scalar_fn f, const lm_pcth *G, const lm_pcdata *P, const lm_pcth *t, const void *aux,
                       double h)
{
    lm_pcth tp = lm_pc_th_new(P);
    lm_num a, b, x, gmax;
    lm_num_inits(&P->ctx, &a, &b, &x, &gmax, (lm_num *)NULL);
    double worst = 0, gm = 0;
    for (int blk = 0; blk < 2; blk++) {
        lm_mat *M = blk ? tp.KQ : tp.V;
        const lm_mat *Gm = blk ? G->KQ : G->V;
        for (int i = 0; i < M->r; i++)
            for (int j = 0; j < M->c; j++) {
                lm_pc_th_copy(&tp, t);
                lm_num v0, hh;
                lm_num_inits(&P->ctx, &v0, &hh, (lm_num *)NULL);
                lm_mat_get(&v0, M, i, j);
                lm_num_add_d(&hh, &v0, h);
                lm_mat_set(M, i, j, &hh);
                f(&a, P, &tp, aux);
                lm_num_add_d(&hh, &v0, -h);
                lm_mat_set(M, i, j, &hh);
                f(&b, P, &tp, aux);
                lm_num_clears(&v0, &hh, (lm_num *)NULL);
                lm_num_sub(&x, &a, &b);
                lm_num_div_d(&x, &x, 2 * h);
                double fd = lm_num_get_d(&x), gv = lm_mat_get_d(Gm, i, j);
                worst = fmax(worst, fabs(fd - gv));
                gm = fmax(gm, fabs(gv));
            }
    }
    lm_num_clears(&a, &b, &x, &gmax, (lm_num *)NULL);
    lm_pc_th_free(&tp);
    return worst / gm;
}

static void grads(const lm_ctx *c, double h, double tol)
{
    for (int variant = 0; variant < 2; variant++) {
        lm_pcdata *P = inst(c, variant);
        lm_rng g;
        lm_rng_init(&g, 3);
        lm_pcth t = lm_pc_th_new(P), G = lm_pc_th_new(P);
        lm_pc_th_randn(&t, &g, 0.5);
        lm_pc_grad_L(&G, P, &t);
        double r = fd_resid(f_excess, &G, P, &t, NULL, h);
        cr_expect(r < tol, "grad L residual %g (variant %d)", r, variant);
        lm_pc_grad_R(&G, P, &t);
        r = fd_resid(f_reg, &G, P, &t, NULL, h);
        cr_expect(r < tol, "grad R residual %g (variant %d)", r, variant);
        lm_pcbatch b = lm_pc_batch(P, 7, &g);
        lm_pc_emp(NULL, &G, P, &t, &b, 0);
        r = fd_resid(f_emp, &G, P, &t, &b, h);
        cr_expect(r < tol, "grad L_hat residual %g", r);
        lm_pc_batch_free(&b);
        lm_pc_th_free(&t);
        lm_pc_th_free(&G);
        lm_pc_free(P);
    }
}

Test(pc_core, gradients_match_fd_double)
{
    lm_ctx c = lm_ctx_double();
    grads(&c, 1e-6, 1e-7);
}

Test(pc_core, gradients_match_fd_mpfr)
{
    lm_ctx c = lm_ctx_mpfr(256);
    grads(&c, 1e-30, 1e-25);
}

Test(pc_core, manifold_has_zero_excess_and_regulariser)
{
    lm_ctx c = lm_ctx_mpfr(256);
    lm_pcdata *P = inst(&c, 0);
    lm_rng g;
    lm_rng_init(&g, 5);
    lm_mat *R = lm_mat_new(3, 3, &c);
    lm_pc_rand_orth(R, &g);
    lm_pcth t = lm_pc_th_new(P), G = lm_pc_th_new(P);
    lm_pc_manifold(&t, P, R);
    lm_num x;
    lm_num_init(&x, &c);
    lm_pc_excess(&x, P, &t);
    cr_expect(fabs(lm_num_get_d(&x)) < 1e-60, "excess %g", lm_num_get_d(&x));
    lm_pc_reg(&x, P, &t);
    cr_expect(fabs(lm_num_get_d(&x)) < 1e-60, "R %g", lm_num_get_d(&x));
    lm_pc_grad_Lreg(&G, P, &t);
    lm_pc_dot(&x, &G, &G);
    cr_expect(lm_num_get_d(&x) < 1e-100, "||grad||^2 %g", lm_num_get_d(&x));
    /* the projection of a manifold point is itself, at distance 0 */
    lm_pc_project(NULL, NULL, &x, NULL, P, &t);
    cr_expect(lm_num_get_d(&x) < 1e-60, "dist %g", lm_num_get_d(&x));
    lm_num_clear(&x);
    lm_mat_free(R);
    lm_pc_th_free(&t);
    lm_pc_th_free(&G);
    lm_pc_free(P);
}

/* the projection minimises the distance: no manifold point found by random
 * rotations is closer, and A_P^T Delta_A + B_P Delta_B^T is symmetric */
Test(pc_core, projection_is_closest_and_symmetric)
{
    lm_ctx c = lm_ctx_double();
    lm_pcdata *P = inst(&c, 0);
    lm_rng g;
    lm_rng_init(&g, 8);
    lm_pcth t = lm_pc_th_new(P), tp = lm_pc_th_new(P), q = lm_pc_th_new(P);
    lm_pc_th_randn(&t, &g, 0.3);
    lm_num dist, x;
    lm_num_inits(&c, &dist, &x, (lm_num *)NULL);
    cr_assert_eq(lm_pc_project(&tp, NULL, &dist, NULL, P, &t), 0);
    lm_mat *R = lm_mat_new(3, 3, &c);
    for (int k = 0; k < 200; k++) {
        lm_pc_rand_orth(R, &g);
        lm_pc_manifold(&q, P, R);
        lm_pc_th_axpy(&q, &q, -1.0, &t);
        lm_pc_norm(&x, P, &q);
        cr_expect(lm_num_get_d(&x) >= lm_num_get_d(&dist) * (1 - 1e-12));
    }
    /* symmetry of A_P^T Delta_A + B_P Delta_B^T */
    lm_mat *A = lm_mat_new(4, 3, &c), *B = lm_mat_new(3, 3, &c), *AP = lm_mat_new(4, 3, &c),
           *BP = lm_mat_new(3, 3, &c), *X = lm_mat_new(3, 3, &c), *T = lm_mat_new(3, 3, &c);
    lm_pc_to_AB(A, B, P, &t);
    lm_pc_to_AB(AP, BP, P, &tp);
    lm_mat_sub(A, A, AP);
    lm_mat_sub(B, B, BP);
    lm_mat_mul(X, AP, 1, A, 0);
    lm_mat_mul(T, BP, 0, B, 1);
    lm_mat_add(X, X, T);
    lm_mat_transpose(T, X);
    lm_mat_sub(T, T, X);
    lm_num_set_d(&x, 0);
    lm_mat_frob(&x, T);
    double asym = lm_num_get_d(&x);
    lm_mat_frob(&x, X);
    cr_expect(asym <= 1e-12 * lm_num_get_d(&x), "asymmetry %g of %g", asym, lm_num_get_d(&x));
    lm_num_clears(&dist, &x, (lm_num *)NULL);
    lm_mat_free(R); lm_mat_free(A); lm_mat_free(B); lm_mat_free(AP); lm_mat_free(BP);
    lm_mat_free(X); lm_mat_free(T);
    lm_pc_th_free(&t); lm_pc_th_free(&tp); lm_pc_th_free(&q);
    lm_pc_free(P);
}

Test(pc_core, saddle_is_critical_at_distance_sqrt_2s)
{
    lm_ctx c = lm_ctx_mpfr(256);
    lm_pcdata *P = inst(&c, 0);
    lm_pcth t = lm_pc_th_new(P), G = lm_pc_th_new(P);
    lm_num x;
    lm_num_init(&x, &c);
    for (int i = 0; i < 3; i++) {
        lm_pc_saddle(&t, P, i);
        lm_pc_grad_Lreg(&G, P, &t);
        lm_pc_dot(&x, &G, &G);
        cr_expect(lm_num_get_d(&x) < 1e-100, "saddle %d: ||grad||^2 = %g", i, lm_num_get_d(&x));
        lm_pc_project(NULL, NULL, &x, NULL, P, &t);
        double want = sqrt(2 * lm_num_get_d(&P->s[i]));
        cr_expect(fabs(lm_num_get_d(&x) - want) < 1e-12 * want, "dist %g vs %g", lm_num_get_d(&x), want);
    }
    lm_num_clear(&x);
    lm_pc_th_free(&t);
    lm_pc_th_free(&G);
    lm_pc_free(P);
}

/* the spectral initialisation converges to the manifold as N grows, and a
 * preconditioned population step from near the manifold reduces the distance */
Test(pc_core, spectral_init_and_step)
{
    lm_ctx c = lm_ctx_double();
    lm_pcdata *P = inst(&c, 0);
    lm_rng g;
    lm_rng_init(&g, 11);
    lm_pcth t = lm_pc_th_new(P), G = lm_pc_th_new(P);
    lm_num d1, d2;
    lm_num_inits(&c, &d1, &d2, (lm_num *)NULL);
    lm_pcbatch b = lm_pc_batch(P, 100, &g);
    cr_assert_eq(lm_pc_spectral_init(&t, NULL, P, &b), 0);
    lm_pc_project(NULL, NULL, &d1, NULL, P, &t);
    lm_pc_batch_free(&b);
    b = lm_pc_batch(P, 100000, &g);
    cr_assert_eq(lm_pc_spectral_init(&t, NULL, P, &b), 0);
    lm_pc_project(NULL, NULL, &d2, NULL, P, &t);
    cr_expect(lm_num_get_d(&d2) < 0.2 * lm_num_get_d(&d1), "dist %g (N=100) vs %g (N=1e5)",
              lm_num_get_d(&d1), lm_num_get_d(&d2));
    double eta = 1.0 / (4 * lm_num_get_d(&P->s[0]));
    for (int k = 0; k < 50; k++) {
        lm_pc_grad_Lreg(&G, P, &t);
        lm_pc_precond_step(&t, &G, P->Si, eta);
    }
    lm_pc_project(NULL, NULL, &d1, NULL, P, &t);
    cr_expect(lm_num_get_d(&d1) < 1e-3 * lm_num_get_d(&d2), "after 50 steps %g", lm_num_get_d(&d1));
    lm_pc_batch_free(&b);
    lm_num_clears(&d1, &d2, (lm_num *)NULL);
    lm_pc_th_free(&t);
    lm_pc_th_free(&G);
    lm_pc_free(P);
}

/* the Monte Carlo context: weights sum to 1, C_j is the weighted covariance,
 * and as N grows z_j approaches mu_j = Sigma W_KQ x_j */
#include "lm_pcmc.h"
Test(pc_core, mc_context_limits)
{
    lm_ctx c = lm_ctx_double();
    lm_pcdata *P = inst(&c, 0);
    double W[9] = {0.2, -0.1, 0.05, 0.0, 0.15, 0.1, -0.05, 0.02, 0.1}, xj[3] = {0.7, -0.4, 1.1};
    lm_rng g;
    lm_rng_init(&g, 21);
    lm_pcmc *m = lm_pcmc_new(P, 200000, xj, W);
    lm_pcmc_draw(m, &g);
    double s = 0, err = 0, nmu = 0;
    for (int i = 0; i < m->N; i++) s += m->p[i];
    for (int a = 0; a < 3; a++) {
        err += (m->z[a] - m->mu[a]) * (m->z[a] - m->mu[a]);
        nmu += m->mu[a] * m->mu[a];
    }
    cr_expect(fabs(s - 1) < 1e-12);
    cr_expect(sqrt(err) < 0.02 * (1 + sqrt(nmu)), "|z - mu| = %g, |mu| = %g", sqrt(err), sqrt(nmu));
    /* C_j -> Sigma (the tilted Gaussian has covariance Sigma) */
    double Sg[9], e2 = 0;
    lm_mat_get_array(Sg, P->Sig);
    for (int k = 0; k < 9; k++) e2 += (m->C[k] - Sg[k]) * (m->C[k] - Sg[k]);
    cr_expect(sqrt(e2) < 0.05, "|C - Sigma| = %g", sqrt(e2));
    lm_pcmc_free(m);
    lm_pc_free(P);
}

/* the same R is the same manifold point in double and in MPFR (the SVD of
 * M* may flip a singular pair's sign between precisions) */
Test(pc_core, manifold_point_is_precision_independent)
{
    lm_ctx cd = lm_ctx_double(), cm = lm_ctx_mpfr(256);
    for (uint64_t seed = 1; seed <= 20; seed++) {
        lm_rng g;
        lm_rng_init(&g, seed);
        lm_pcdata *P = lm_pc_gen(3, 4, 0.5, 0.0, 0.5, 0.1, 0.25, &g, &cd);
        lm_pcdata *Q = lm_pc_convert(P, &cm);
        lm_mat *R = lm_mat_new(3, 3, &cd), *Rm = lm_mat_new(3, 3, &cm);
        lm_pc_rand_orth(R, &g);
        lm_mat_copy(Rm, R);
        lm_pcth a = lm_pc_th_new(P), b = lm_pc_th_new(Q);
        lm_pc_manifold(&a, P, R);
        lm_pc_manifold(&b, Q, Rm);
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 3; j++)
                cr_expect(fabs(lm_mat_get_d(a.V, i, j) - lm_mat_get_d(b.V, i, j)) < 1e-10, "seed %lu",
                          (unsigned long)seed);
        lm_pc_th_free(&a);
        lm_pc_th_free(&b);
        lm_mat_free(R);
        lm_mat_free(Rm);
        lm_pc_free(P);
        lm_pc_free(Q);
    }
}

/* lm_pc_emp in double (its raw-array softmax and C_j v_j loops) agrees with
 * the generic lm_num code run in MPFR-256 on the same exactly converted
 * instance, batch and point: loss and both gradient blocks, in-sample and
 * leave-one-out (the masked diagonal) */
Test(pc_core, empirical_loss_double_matches_mpfr)
{
    lm_ctx cd = lm_ctx_double(), cm = lm_ctx_mpfr(256);
    lm_pcdata *P = inst(&cd, 0), *Q = lm_pc_convert(P, &cm);
    lm_rng g;
    lm_rng_init(&g, 5);
    lm_pcth t = lm_pc_th_new(P), G = lm_pc_th_new(P), tm = lm_pc_th_new(Q), Gm = lm_pc_th_new(Q);
    lm_pc_th_randn(&t, &g, 0.7);
    lm_mat_copy(tm.V, t.V);
    lm_mat_copy(tm.KQ, t.KQ);
    lm_pcbatch b = lm_pc_batch(P, 9, &g), bm = {b.N, lm_mat_new(9, P->d, &cm), lm_mat_new(9, P->k, &cm)};
    lm_mat_copy(bm.X, b.X);
    lm_mat_copy(bm.Y, b.Y);
    for (int loo = 0; loo < 2; loo++) {
        lm_num L, Lm;
        lm_num_init(&L, &cd);
        lm_num_init(&Lm, &cm);
        lm_pc_emp(&L, &G, P, &t, &b, loo);
        lm_pc_emp(&Lm, &Gm, Q, &tm, &bm, loo);
        double l = lm_num_get_d(&L), lm = lm_num_get_d(&Lm);
        cr_expect(isfinite(l) && lm > 0, "loss %g vs %g", l, lm);
        cr_expect_lt(fabs(l - lm), 1e-13 * lm, "loo %d: loss %.17g vs %.17g", loo, l, lm);
        const lm_mat *gd[2] = {G.V, G.KQ}, *gm[2] = {Gm.V, Gm.KQ};
        for (int blk = 0; blk < 2; blk++) {
            double scale = 0.0, diff = 0.0;
            for (int i = 0; i < gd[blk]->r; i++)
                for (int j = 0; j < gd[blk]->c; j++) {
                    double x = lm_mat_get_d(gd[blk], i, j), y = lm_mat_get_d(gm[blk], i, j);
                    scale = fmax(scale, fabs(y));
                    diff = fmax(diff, fabs(x - y));
                }
            cr_expect(scale > 0 && diff <= 1e-12 * scale, "loo %d block %d: %g of %g", loo, blk, diff, scale);
        }
        lm_num_clear(&L);
        lm_num_clear(&Lm);
    }
    lm_pc_batch_free(&b);
    lm_pc_batch_free(&bm);
    lm_pc_th_free(&t);
    lm_pc_th_free(&G);
    lm_pc_th_free(&tm);
    lm_pc_th_free(&Gm);
    lm_pc_free(P);
    lm_pc_free(Q);
}
