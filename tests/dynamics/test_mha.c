/* Model tests: closed-form gradients (catalogue S3) against central
 * differences computed in MPFR, both kernels, both W^V modes; the double
 * gradient against the MPFR one; softmax saturation stays finite. */
#include "lm_mha.h"
#include <criterion/criterion.h>
#include <math.h>

static lm_mha *make(lm_kernel k, lm_wvmode wv, const lm_ctx *c, uint64_t seed, double sqk)
{
    lm_rng g;
    lm_rng_init(&g, seed);
    lm_mha *m = lm_mha_new(2, 3, 4, 2, 2, k, wv, c);
    lm_mha_randomize(m, &g, 1.0, sqk, 1.0, 1.0);
    lm_mat_randn(m->y, &g, 1.0);
    return m;
}

/* max relative deviation between the flat gradient and central differences
 * with step 2^-80 at 256 bits (truncation ~2^-160, rounding ~2^-176) */
static double fd_check(lm_kernel k, lm_wvmode wv, uint64_t seed)
{
    lm_ctx c = lm_ctx_mpfr(256);
    lm_mha *m = make(k, wv, &c, seed, 0.7);
    int np = lm_mha_nparams(m, LM_VAR_ALL);
    lm_mat *p = lm_mat_new(np, 1, &c), *g = lm_mat_new(np, 1, &c);
    lm_mha_flat_grad(g, m, LM_VAR_ALL);
    lm_mha_get_params(p, m, LM_VAR_ALL);
    lm_num h, fp, fm, x, dif, gn;
    lm_num_inits(&c, &h, &fp, &fm, &x, &dif, &gn, (lm_num *)NULL);
    lm_num_set_d(&h, ldexp(1.0, -80));
    lm_mat_frob(&gn, g);
    double worst = 0;
    for (int q = 0; q < np; q++) {
        lm_mat_get(&x, p, q, 0);
        lm_num_add(&dif, &x, &h);
        lm_mat_set(p, q, 0, &dif);
        lm_mha_set_params(m, LM_VAR_ALL, p);
        lm_mha_forward(m);
        lm_num_set(&fp, &m->f);
        lm_num_sub(&dif, &x, &h);
        lm_mat_set(p, q, 0, &dif);
        lm_mha_set_params(m, LM_VAR_ALL, p);
        lm_mha_forward(m);
        lm_num_set(&fm, &m->f);
        lm_mat_set(p, q, 0, &x);
        lm_mha_set_params(m, LM_VAR_ALL, p);
        lm_num_sub(&dif, &fp, &fm);
        lm_num_div(&dif, &dif, &h);
        lm_num_mul_d(&dif, &dif, 0.5);
        lm_mat_get(&x, g, q, 0);
        lm_num_sub(&dif, &dif, &x);
        lm_num_abs(&dif, &dif);
        lm_num_div(&dif, &dif, &gn);
        worst = fmax(worst, lm_num_get_d(&dif));
    }
    lm_num_clears(&h, &fp, &fm, &x, &dif, &gn, (lm_num *)NULL);
    lm_mat_free(p);
    lm_mat_free(g);
    lm_mha_free(m);
    return worst;
}

Test(model, softmax_block_gradient_matches_mpfr_fd) { cr_expect_lt(fd_check(LM_SOFTMAX, LM_WV_BLOCK, 1), 1e-40); }
Test(model, softmax_dense_gradient_matches_mpfr_fd) { cr_expect_lt(fd_check(LM_SOFTMAX, LM_WV_DENSE, 2), 1e-40); }
Test(model, gauss_block_gradient_matches_mpfr_fd) { cr_expect_lt(fd_check(LM_GAUSS, LM_WV_BLOCK, 3), 1e-40); }
Test(model, gauss_dense_gradient_matches_mpfr_fd) { cr_expect_lt(fd_check(LM_GAUSS, LM_WV_DENSE, 4), 1e-40); }

/* the same model in double and in MPFR: gradients agree to ~1e-12 */
Test(model, double_gradient_matches_mpfr)
{
    for (int k = 0; k < 2; k++) {
        lm_ctx cd = lm_ctx_double(), cm = lm_ctx_mpfr(256);
        lm_mha *md = make(k ? LM_GAUSS : LM_SOFTMAX, LM_WV_BLOCK, &cd, 7, 1.0);
        lm_mha *mm = lm_mha_convert(md, &cm);
        int np = lm_mha_nparams(md, LM_VAR_ALL);
        lm_mat *gd = lm_mat_new(np, 1, &cd), *gm = lm_mat_new(np, 1, &cm);
        lm_mha_flat_grad(gd, md, LM_VAR_ALL);
        lm_mha_flat_grad(gm, mm, LM_VAR_ALL);
        double nrm = 0, dev = 0;
        for (int q = 0; q < np; q++) {
            double a = lm_mat_get_d(gd, q, 0), b = lm_mat_get_d(gm, q, 0);
            nrm += b * b;
            dev = fmax(dev, fabs(a - b));
        }
        cr_expect_lt(dev / sqrt(nrm), 1e-12, "kernel %d: rel dev %g", k, dev / sqrt(nrm));
        lm_mat_free(gd); lm_mat_free(gm); lm_mha_free(md); lm_mha_free(mm);
    }
}

/* logits of +-1e4: S stays finite, rows sum to 1, gradients finite */
Test(model, softmax_saturated_stays_finite)
{
    lm_ctx cd = lm_ctx_double();
    lm_mha *m = make(LM_SOFTMAX, LM_WV_BLOCK, &cd, 9, 100.0); /* logits ~ 1e4 */
    int np = lm_mha_nparams(m, LM_VAR_ALL);
    lm_mat *g = lm_mat_new(np, 1, &cd);
    lm_mha_flat_grad(g, m, LM_VAR_ALL);
    cr_expect(lm_mat_isfinite(g));
    double cmax = 0;
    for (int q = 0; q < m->N * m->H; q++) {
        cr_expect(lm_mat_isfinite(m->S[q]));
        for (int i = 0; i < m->n; i++) {
            double s = 0;
            for (int j = 0; j < m->n; j++) {
                s += lm_mat_get_d(m->S[q], i, j);
                cmax = fmax(cmax, fabs(lm_mat_get_d(m->C[q], i, j)));
            }
            cr_expect_float_eq(s, 1.0, 1e-14);
        }
    }
    cr_expect_gt(cmax, 1e3, "test did not reach saturation (max logit %g)", cmax);
    lm_mat_free(g);
    lm_mha_free(m);
}

/* the rescaling (W^V/c, c W^O) leaves MH unchanged in both modes */
Test(model, rescaling_preserves_output)
{
    for (int wv = 0; wv < 2; wv++) {
        lm_ctx c = lm_ctx_mpfr(128);
        lm_mha *m = make(LM_SOFTMAX, (lm_wvmode)wv, &c, 11, 0.5);
        lm_mha_forward(m);
        lm_mat *mh = lm_mat_dup(m->mh);
        lm_mat_scale_d(m->Wv, m->Wv, 1.0 / 1024);
        lm_mat_scale_d(m->Wo, m->Wo, 1024);
        lm_mha_forward(m);
        lm_mat_sub(mh, mh, m->mh);
        lm_num x;
        lm_num_init(&x, &c);
        lm_mat_frob(&x, mh);
        cr_expect_lt(lm_num_get_d(&x), 1e-30);
        lm_num_clear(&x);
        lm_mat_free(mh);
        lm_mha_free(m);
    }
}

/* Regression: the MPFR Jacobi SVD must converge on exactly rank-deficient
 * Jacobians J_h built from dyadic data (noise columns once rotated forever). */
Test(model, mpfr_svd_converges_on_rank_deficient_jacobians)
{
    lm_ctx mc = lm_ctx_mpfr(256);
    static const int sz[2][4] = {{2, 2, 2, 4}, {3, 2, 2, 6}};
    for (int seed = 0; seed < 60; seed++) {
        const int *z = sz[seed % 2];
        int R = z[0] * z[1] * z[1], C = z[2] * z[3];
        lm_rng g;
        lm_rng_init(&g, (uint64_t)seed + 1);
        lm_mha *m = lm_mha_new(z[0], z[1], z[2], z[3], 1, (seed / 2) % 2 ? LM_SOFTMAX : LM_GAUSS,
                               LM_WV_BLOCK, &mc);
        lm_mat *all[8] = {m->Wq[0], m->Wk[0]};
        for (int i = 0; i < z[0]; i++) all[2 + i] = m->X[i];
        for (int q = 0; q < 2 + z[0]; q++)
            for (int i = 0; i < all[q]->r; i++)
                for (int j = 0; j < all[q]->c; j++)
                    lm_mat_set_d(all[q], i, j, lm_rng_int(&g, -16, 16) / 8.0);
        lm_mat *J = lm_mat_new(R, C, &mc);
        lm_mha_jacQ(J, m, 0);
        lm_num *s = lm_nums_new(R < C ? R : C, &mc);
        cr_expect_eq(lm_mat_svals(s, J), 0, "seed %d: SVD did not converge", seed);
        lm_nums_free(s, R < C ? R : C);
        lm_mat_free(J);
        lm_mha_free(m);
    }
}
