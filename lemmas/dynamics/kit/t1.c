/* t1.c -- the Theorem-1 experiment: GD on W^V alone is linear least squares
 * in the residual, r_{t+1} = (I - eta K) r_t, so everything the theorem
 * speaks of (alpha, G_V, the step-size thresholds, the worst residual
 * directions) is computable exactly from B_0. */
#include "lm_t1.h"
#include "lm_dyn.h"
#include <math.h>

static const int sizes[4][5] = {{2, 2, 4, 2, 1}, {2, 2, 5, 2, 1}, {2, 3, 4, 2, 2}, {1, 3, 2, 1, 2}};

void lm_t1_kernel(lm_mat *K, lm_mha *m)
{
    const lm_ctx *c = &m->ctx;
    int Nn = m->N * m->n;
    lm_mat *B = lm_mat_new(Nn, m->H * m->D, c), *Bh = lm_mat_new(Nn, m->D, c);
    lm_mat *T = lm_mat_new(Nn, Nn, c), *wo = lm_mat_new(m->d, 1, c);
    lm_num w;
    lm_num_init(&w, c);
    lm_mha_B(B, m);
    lm_mat_zero(K);
    if (m->wv == LM_WV_DENSE) {
        lm_mat_mul(K, B, 0, B, 1);
        lm_mat_frob(&w, m->Wo);
        lm_num_sqr(&w, &w);
        lm_mat_scale(K, K, &w);
    } else {
        for (int h = 0; h < m->H; h++) {
            lm_mat_get_block(Bh, B, 0, h * m->D);
            lm_mat_get_block(wo, m->Wo, h * m->d, 0);
            lm_mat_frob(&w, wo);
            lm_num_sqr(&w, &w);
            lm_mat_mul(T, Bh, 0, Bh, 1);
            lm_mat_axpy(K, &w, T);
        }
    }
    lm_num_clear(&w);
    lm_mat_free(B); lm_mat_free(Bh); lm_mat_free(T); lm_mat_free(wo);
}

int lm_t1_run(lm_eval *ev, const lm_t1_setup *s)
{
    const lm_ctx *c = ev->ctx;
    lm_rng *g = lm_eval_rng(ev);
    int z[5]; /* the shrinker may ask for smaller sizes */
    lm_sizes(ev, z, sizes[ev->index % 4], 5, lm_nm5, lm_nm5_max);
    const int N = z[0], n = z[1], D = z[2], d = z[3], H = z[4], Nn = N * n;
    const int unequal = H > 1 && (ev->index / 4) % 2 == 1;
    const int rdir = (ev->index / 8) % 3; /* 0: smallest eigvec, 1: largest, 2: random */
    int rc = 0;
    lm_mha *m = lm_mha_new(N, n, D, d, H, s->kernel, s->mode, c);
    m->cG = s->cG;
    lm_mha_randomize(m, g, 1.0, ev->index % 2 ? 1.0 : 0.3, 1.0, 1.0);
    if (unequal)
        for (int b = 0; b < d; b++) lm_mat_set_d(m->Wo, b, 0, 0.01 * lm_mat_get_d(m->Wo, b, 0));
    lm_mha_forward(m);

    lm_num sminB, smaxB, alpha, GV, eta, t0, t1, logf0, lograte, logf, rhs, floor_;
    lm_num_inits(c, &sminB, &smaxB, &alpha, &GV, &eta, &t0, &t1, &logf0, &lograte, &logf, &rhs,
                 &floor_, (lm_num *)NULL);
    lm_mat *B = lm_mat_new(Nn, H * D, c), *K = lm_mat_new(Nn, Nn, c), *V = lm_mat_new(Nn, Nn, c);
    lm_mat *r0 = lm_mat_new(Nn, 1, c), *r1 = lm_mat_new(Nn, 1, c);
    lm_num *w = lm_nums_new(Nn, c);
    lm_mha_B(B, m);
    if (!lm_assume(ev, H * D >= Nn, "HD = %d < Nn = %d: B_0 cannot have full row rank", H * D, Nn))
        goto done;
    if (lm_mat_smin(&sminB, B) || lm_mat_smax(&smaxB, B)) { rc = lm_fail(ev, "SVD of B_0 did not converge"); goto done; }
    lm_num_mul_d(&t0, &smaxB, ldexp(1.0, -40));
    /* certainly_gt: in Arb the hypothesis must hold for the whole ball (the same test as
     * cmp > 0 in double and MPFR) */
    if (!lm_assume(ev, lm_num_certainly_gt(&sminB, &t0), "sigma_min(B_0) = %.3g is not above 2^-40 sigma_max(B_0)",
                   lm_num_get_d(&sminB)))
        goto done;
    lm_mat_frob(&alpha, m->Wo);
    lm_num_mul(&alpha, &alpha, &sminB);
    lm_num_sqr(&alpha, &alpha);
    lm_t1_kernel(K, m);
    /* the eigenvectors V only choose the residual direction r0 (instance data: any unit r0
     * is an instance of the theorem), so in Arb they are a hint and do not taint */
    if (lm_mat_symeig_hint(w, V, K)) { rc = lm_fail(ev, "eigensolver did not converge on K"); goto done; }
    lm_num_set(&GV, &w[Nn - 1]);
    lm_measure(ev, "alpha", lm_num_get_d(&alpha));
    lm_measure(ev, "lambda_min(K)", lm_num_get_d(&w[0]));
    lm_measure(ev, "G_V=lambda_max(K)", lm_num_get_d(&GV));
    /* step size */
    switch (s->eta_rule) {
    case 0: {
        lm_dyn_consts k;
        lm_mha *md = lm_mha_convert(m, c);
        if (lm_dyn_consts_eval(&k, md, NULL)) { lm_mha_free(md); rc = lm_fail(ev, "SVD failed in G"); goto done; }
        lm_mha_free(md);
        lm_measure(ev, "G_paper", k.G);
        lm_num_set_d(&eta, 0.5 / k.G);
        break;
    }
    case 1:
        lm_num_set_d(&t0, 1.0);
        lm_num_div(&eta, &t0, &GV);
        break;
    case 2:
    case 3:
        lm_num_mul_d(&t0, &GV, 2.0);
        lm_num_sub(&t0, &t0, &alpha);
        lm_num_sqr(&t1, &GV);
        lm_num_div(&eta, &t0, &t1);
        lm_num_mul_d(&eta, &eta, s->eta_rule == 2 ? 1.0 - 1e-6 : 1.0 + 1e-6);
        break;
    default:
        lm_num_set_d(&t0, 0.9);
        lm_num_div(&eta, &t0, &alpha);
        break;
    }
    lm_measure(ev, "eta", lm_num_get_d(&eta));
    lm_num_mul(&t0, &eta, &alpha);
    lm_num_mul_d(&t0, &t0, s->alpha_scale * s->mu_over_alpha);
    lm_measure(ev, "eta*alpha", lm_num_get_d(&t0));
    lm_num_set_d(&t1, 1.0);
    if (!lm_assume(ev, lm_num_certainly_gt(&t1, &t0), "eta*alpha = %.3g >= 1", lm_num_get_d(&t0)))
        goto done;
    lm_num_neg(&t0, &t0);
    lm_num_log1p(&lograte, &t0); /* log(1 - eta alpha) */
    /* residual direction: y = MH_0 - r0 */
    for (int k = 0; k < Nn; k++) {
        double v = rdir == 2 ? lm_rng_normal(g) : lm_mat_get_d(V, k, rdir == 0 ? 0 : Nn - 1);
        lm_mat_set_d(r0, k, 0, v);
    }
    lm_mat_frob(&t0, r0);
    lm_num_set_d(&t1, 1.0);
    lm_num_div(&t1, &t1, &t0);
    lm_mat_scale(r0, r0, &t1);  /* unit residual direction */
    lm_mat_sub(m->y, m->mh, r0); /* so that r_0 = MH_0 - y = r0 */
    lm_mha_data(ev, m, 0);
    lm_mha_forward(m);
    lm_num_log(&logf0, &m->f);
    /* floor: 1e3 eps^2 ||y||^2 */
    lm_mat_frob(&t0, m->y);
    lm_num_log(&floor_, &t0);
    lm_num_mul_d(&floor_, &floor_, 2.0);
    lm_num_add_d(&floor_, &floor_, log(1e3) + 2.0 * lm_ctx_log2eps(c) * M_LN2);
    lm_series_axes(ev, "iterate t", "loss", 1);
    double worst_step = 0;
    double fprev = lm_num_get_d(&m->f);
    int T = s->T;
    if (ev->tmax >= 0 && ev->tmax < T) T = ev->tmax;
    for (int t = 0; t <= T; t++) {
        lm_num_mul_d(&rhs, &lograte, (double)t);
        lm_num_add(&rhs, &rhs, &logf0);
        if (lm_num_cmp(&rhs, &floor_) < 0) {
            lm_measure(ev, "compared_until_t", t);
            break;
        }
        if (!lm_num_isfinite(&m->f)) { rc = lm_fail(ev, "loss not finite at t=%d", t); goto done; }
        if (lm_num_iszero(&m->f)) break;
        lm_num_log(&logf, &m->f);
        lm_series(ev, "f_t", t, lm_num_get_d(&m->f));
        lm_series(ev, "(1-eta alpha)^t f_0", t, exp(lm_num_get_d(&rhs)));
        if (t > 0) /* t = 0 is f_0 <= f_0: no information */
            lm_obs_le_log(ev, t, &logf, &rhs, 0.0, "t=%d", t);
        if (lm_num_cmp(&logf, &rhs) > 0) break; /* first violation found */
        if (t == T) break;
        lm_mha_gd_step(m, LM_VAR_V, &eta);
        lm_mha_forward(m);
        double fn = lm_num_get_d(&m->f);
        if (fprev > 0) worst_step = fmax(worst_step, fn / fprev);
        fprev = fn;
        if (t == 0) {
            /* oracle: r1 = (I - eta K) r0 */
            lm_mat *Kr = lm_mat_new(Nn, 1, c);
            lm_mat_mul(Kr, K, 0, r0, 0);
            lm_num_neg(&t0, &eta);
            lm_mat_copy(r1, r0);
            lm_mat_axpy(r1, &t0, Kr);
            lm_mat_sub(Kr, r1, m->r);
            lm_mat_frob(&t0, Kr);
            lm_mat_frob(&t1, r0);
            double dev = lm_num_get_d(&t0) / lm_num_get_d(&t1);
            lm_mat_free(Kr);
            lm_measure(ev, "oracle_rel_dev_t1", dev);
            double tol = 1e4 * ldexp(1.0, (int)lm_ctx_log2eps(c)) * (1.0 + lm_num_get_d(&eta) * lm_num_get_d(&GV));
            if (!(dev <= tol)) { rc = lm_fail(ev, "training code disagrees with the oracle (rel. %.3g)", dev); goto done; }
        }
    }
    lm_measure(ev, "max f_{t+1}/f_t", worst_step);
    lm_measure(ev, "1-eta*alpha", exp(lm_num_get_d(&lograte)));
done:
    lm_num_clears(&sminB, &smaxB, &alpha, &GV, &eta, &t0, &t1, &logf0, &lograte, &logf, &rhs,
                  &floor_, (lm_num *)NULL);
    lm_nums_free(w, Nn);
    lm_mat_free(B); lm_mat_free(K); lm_mat_free(V); lm_mat_free(r0); lm_mat_free(r1);
    lm_mha_free(m);
    return rc;
}
