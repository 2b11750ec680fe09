/* tests/test_ib_lowdim.c -- the low-dimensional training engine (lm_ibj.h)
 * against the explicit d x d optimizers of src/train/ib_opt.c, in double
 * (catalogue 2.3: "validate the representation once against the explicit
 * computation"), and its MPFR run against its double run. */
#include "test_support.h"
#include "lm_ibgen.h"
#include "lm_ibj.h"
#include <math.h>

/* max |explicit - lowdim| over W and u entries, relative to max |explicit| */
static double rel_diff(const lm_mat *A, const lm_mat *B)
{
    double m = 0, s = 0;
    for (int i = 0; i < A->r; i++)
        for (int j = 0; j < A->c; j++) {
            m = fmax(m, fabs(lm_mat_get_d(A, i, j) - lm_mat_get_d(B, i, j)));
            s = fmax(s, fabs(lm_mat_get_d(A, i, j)));
        }
    return s > 0 ? m / s : m;
}

/* run `name` for `steps` iterations both ways; returns the worst relative
 * difference of the iterates and the loss */
static double compare(const char *name, lm_attn_data *D, const lm_mat *W0, int train_u, int steps)
{
    const lm_ctx *c = &D->ctx;
    lm_attn_opt_par p;
    lm_attn_opt_par_default(&p);
    p.eta = 0.3;
    const lm_attn_opt *opt = lm_attn_opt_find(name);
    cr_assert(opt != NULL);
    lm_mat *u0 = train_u ? lm_mat_new(D->d, 1, c) : lm_mat_dup(D->u);
    lm_mat *Wz = lm_mat_new(D->d, D->d, c);
    lm_attn_state *S = lm_attn_state_new(W0 ? W0 : Wz, u0);
    lm_attn_fwd *F = lm_attn_fwd_new(D);
    lm_ibj *J = lm_ibj_new(D, W0, train_u, p.loss);
    cr_assert(J != NULL);
    lm_mat *W = lm_mat_new(D->d, D->d, c), *u = lm_mat_new(D->d, 1, c);
    double worst = 0;
    for (int t = 0; t < steps; t++) {
        cr_assert_eq(opt->step(S, F, D, &p), 0, "%s explicit step %d", name, t);
        cr_assert_eq(lm_ibj_step(J, name, &p), 0, "%s lowdim step %d", name, t);
        lm_ibj_W(W, J, W0);
        lm_ibj_u(u, J);
        worst = fmax(worst, rel_diff(S->W, W));
        worst = fmax(worst, rel_diff(S->u, u));
        cr_assert_eq(lm_attn_forward(F, D, S->W, S->u, p.loss), 0);
        worst = fmax(worst, fabs(lm_num_get_d(&F->logL) - lm_num_get_d(&J->F->logL)) /
                                fmax(1.0, fabs(lm_num_get_d(&F->logL))));
        cr_assert_float_eq(S->last_step, J->last_step, 1e-9 * fmax(1.0, fabs(S->last_step)),
                           "%s step length at %d", name, t);
    }
    lm_mat_free(W);
    lm_mat_free(u);
    lm_ibj_free(J);
    lm_attn_fwd_free(F);
    lm_attn_state_free(S);
    lm_mat_free(u0);
    lm_mat_free(Wz);
    return worst;
}

Test(ib_lowdim, w_only_optimizers_match_explicit_runs)
{
    lm_ctx c = lm_ctx_double();
    lm_rng g;
    lm_rng_init(&g, 11);
    lm_ibgen_ex1_opts o;
    lm_ibgen_ex1_defaults(&o, 1);
    o.d = 30;
    lm_attn_data *D = lm_ibgen_ex1(&o, &g, &c);
    lm_mat *W0 = lm_mat_new(D->d, D->d, &c);
    lm_mat_randn(W0, &g, 0.01 / D->d);
    const char *names[] = {"gd", "ngd", "ngd-mom", "polyak", "polyak-cap"};
    for (int k = 0; k < 5; k++) {
        double w = compare(names[k], D, W0, 0, 60);
        cr_expect(w < 1e-10, "%s: lowdim and explicit differ by %g", names[k], w);
        w = compare(names[k], D, NULL, 0, 30);
        cr_expect(w < 1e-10, "%s from W0 = 0: differ by %g", names[k], w);
    }
    lm_mat_free(W0);
    lm_attn_data_free(D);
}

Test(ib_lowdim, joint_optimizers_match_explicit_runs)
{
    lm_ctx c = lm_ctx_double();
    lm_rng g;
    lm_rng_init(&g, 12);
    lm_ibgen_dm_opts o;
    lm_ibgen_dm_defaults(&o);
    o.d = 40;
    o.n = 5;
    lm_attn_data *D = lm_ibgen_dm(&o, &g, &c);
    double w = compare("joint13", D, NULL, 1, 80);
    cr_expect(w < 1e-10, "joint13: differ by %g", w);
    w = compare("ngd-joint", D, NULL, 1, 80);
    cr_expect(w < 1e-10, "ngd-joint: differ by %g", w);
    lm_attn_data_free(D);
}

Test(ib_lowdim, norms_and_alignment_match_explicit_forms)
{
    lm_ctx c = lm_ctx_double();
    lm_rng g;
    lm_rng_init(&g, 13);
    lm_ibgen_dm_opts o;
    lm_ibgen_dm_defaults(&o);
    o.d = 25;
    o.n = 4;
    lm_attn_data *D = lm_ibgen_dm(&o, &g, &c);
    lm_mat *W0 = lm_mat_new(D->d, D->d, &c);
    lm_mat_randn(W0, &g, 0.1);
    lm_ibj *J = lm_ibj_new(D, W0, 1, LM_ATTN_EXP);
    lm_mat *M = lm_mat_new(D->n, D->T, &c);
    for (int i = 0; i < D->n; i++)
        for (int t = 0; t < D->T; t++) {
            lm_mat_set_d(J->C, i, t, lm_rng_normal(&g));
            lm_mat_set_d(J->U, i, t, lm_rng_normal(&g));
            lm_mat_set_d(M, i, t, lm_rng_normal(&g));
        }
    lm_mat *W = lm_mat_new(D->d, D->d, &c), *Wm = lm_mat_new(D->d, D->d, &c);
    lm_mat *u = lm_mat_new(D->d, 1, &c), *um = lm_mat_new(D->d, 1, &c);
    lm_ibj_W(W, J, W0);
    lm_attn_expand(Wm, M, NULL, D);
    lm_ibj_u(u, J);
    lm_num a, b;
    lm_num_inits(&c, &a, &b, (lm_num *)NULL);
    lm_ibj_norm_W(&a, J);
    lm_mat_frob(&b, W);
    cr_expect_float_eq(lm_num_get_d(&a), lm_num_get_d(&b), 1e-12 * lm_num_get_d(&b));
    lm_ibj_norm_u(&a, J);
    lm_mat_frob(&b, u);
    cr_expect_float_eq(lm_num_get_d(&a), lm_num_get_d(&b), 1e-12 * lm_num_get_d(&b));
    cr_assert_eq(lm_ibj_align_W(&a, J, M), 0);
    lm_attn_one_minus_cos(&b, W, Wm);
    cr_expect_float_eq(lm_num_get_d(&a), lm_num_get_d(&b), 1e-11, "1-cos W: %g vs %g",
                       lm_num_get_d(&a), lm_num_get_d(&b));
    /* u side: sum M x */
    lm_mat_zero(J->C);
    lm_mat_copy(J->U, M);
    lm_ibj_u(um, J);
    for (int i = 0; i < D->n; i++)
        for (int t = 0; t < D->T; t++) lm_mat_set_d(J->U, i, t, lm_rng_normal(&g));
    lm_ibj_u(u, J);
    cr_assert_eq(lm_ibj_align_u(&a, J, M), 0);
    lm_attn_one_minus_cos(&b, u, um);
    cr_expect_float_eq(lm_num_get_d(&a), lm_num_get_d(&b), 1e-11);
    lm_num_clears(&a, &b, (lm_num *)NULL);
    lm_mat_free(W); lm_mat_free(Wm); lm_mat_free(u); lm_mat_free(um);
    lm_mat_free(M);
    lm_mat_free(W0);
    lm_ibj_free(J);
    lm_attn_data_free(D);
}

Test(ib_lowdim, mpfr_run_tracks_the_double_run)
{
    /* the same NGD run in double and at 256 bits: the iterates agree to
     * double accuracy early on (the drift measure of the long runs) */
    lm_ctx cd = lm_ctx_double(), cm = lm_ctx_mpfr(256);
    lm_rng g;
    lm_rng_init(&g, 14);
    lm_ibgen_ex1_opts o;
    lm_ibgen_ex1_defaults(&o, 1);
    o.d = 30;
    lm_attn_data *D = lm_ibgen_ex1(&o, &g, &cd);
    lm_attn_data *Dm = lm_attn_data_convert(D, &cm);
    lm_ibj *J = lm_ibj_new(D, NULL, 0, LM_ATTN_EXP), *Jm = lm_ibj_new(Dm, NULL, 0, LM_ATTN_EXP);
    lm_attn_opt_par p;
    lm_attn_opt_par_default(&p);
    for (int t = 0; t < 50; t++) {
        cr_assert_eq(lm_ibj_step(J, "ngd", &p), 0);
        cr_assert_eq(lm_ibj_step(Jm, "ngd", &p), 0);
    }
    double w = rel_diff(Jm->C, J->C);
    cr_expect(w < 1e-12 && w > 0.0, "double vs MPFR coefficients after 50 steps: %g", w);
    lm_ibj_free(J);
    lm_ibj_free(Jm);
    lm_attn_data_free(Dm);
    lm_attn_data_free(D);
}

Test(ib_lowdim, unknown_or_inapplicable_optimizer_is_refused)
{
    lm_ctx c = lm_ctx_double();
    lm_rng g;
    lm_rng_init(&g, 15);
    lm_ibgen_ex1_opts o;
    lm_ibgen_ex1_defaults(&o, 0);
    o.d = 10;
    lm_attn_data *D = lm_ibgen_ex1(&o, &g, &c);
    lm_ibj *J = lm_ibj_new(D, NULL, 0, LM_ATTN_EXP);
    lm_attn_opt_par p;
    lm_attn_opt_par_default(&p);
    cr_expect_eq(lm_ibj_step(J, "adam", &p), 2);
    cr_expect_eq(lm_ibj_step(J, "joint13", &p), 2);
    cr_expect_eq(J->t, 0);
    lm_ibj_free(J);
    lm_attn_data_free(D);
}
