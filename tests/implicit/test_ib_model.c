/* Tests for the implicit-bias model (src/models/ib.c), its optimizers
 * (src/train/ib_opt.c) and the claims implicit/eq17-gradient,
 * implicit/definition1 and implicit/text-stationary. */
#include "lm_attn.h"
#include "test_support.h"
#include <float.h>
#include <math.h>

static lm_attn_data *toy(uint64_t seed, int n, int T, int d, int a2, const lm_ctx *c)
{
    lm_rng g;
    lm_rng_init(&g, seed);
    return lm_attn_toy_data(&g, n, T, d, a2, c);
}

static void rand_mat(lm_mat *A, uint64_t seed, double s)
{
    lm_rng g;
    lm_rng_init(&g, seed);
    for (int i = 0; i < A->r; i++)
        for (int j = 0; j < A->c; j++) lm_mat_set_d(A, i, j, s * lm_rng_normal(&g));
}

/* Directional derivatives of the closed forms against MPFR-256 central
 * differences with h = 1e-30 (truncation ~1e-60 relative, rounding
 * 2^-256 L / h): tolerance 1e-40 ||grad|| ||V|| + 64 * 2^-256 L / h. */
static void fd_case(int a2, lm_attn_loss loss, double R, uint64_t seed)
{
    lm_ctx c = lm_ctx_mpfr(256);
    int n = 3, T = 4, d = 6;
    lm_attn_data *D = toy(seed, n, T, d, a2, &c);
    lm_mat *W = lm_mat_new(d, d, &c), *V = lm_mat_new(d, d, &c), *v = lm_mat_new(d, 1, &c);
    rand_mat(W, seed + 1, R / d);
    rand_mat(V, seed + 2, 1.0 / d);
    rand_mat(v, seed + 3, 1.0);
    lm_attn_fwd *F = lm_attn_fwd_new(D);
    lm_mat *G = lm_mat_new(d, d, &c), *gu = lm_mat_new(d, 1, &c);
    cr_assert_eq(lm_attn_forward(F, D, W, D->u, loss), 0);
    lm_attn_grad_W(G, F, D);
    lm_attn_grad_u(gu, F, D);
    lm_num cf, Lp, Lm, h, nG, nV, r;
    lm_num_inits(&c, &cf, &Lp, &Lm, &h, &nG, &nV, &r, (lm_num *)NULL);
    lm_num_set_d(&h, 1e-30);
    for (int on_u = 0; on_u < 2; on_u++) {
        lm_mat *P = lm_mat_dup(on_u ? D->u : W);
        lm_mat *dir = on_u ? v : V;
        lm_mat_axpy(P, &h, dir);
        lm_attn_forward(F, D, on_u ? W : P, on_u ? P : D->u, loss);
        lm_attn_lossval(&Lp, F);
        lm_num_mul_d(&r, &h, -2.0);
        lm_mat_axpy(P, &r, dir);
        lm_attn_forward(F, D, on_u ? W : P, on_u ? P : D->u, loss);
        lm_attn_lossval(&Lm, F);
        lm_num_sub(&Lp, &Lp, &Lm);
        lm_num_div(&Lp, &Lp, &h);
        lm_num_mul_d(&Lp, &Lp, 0.5);
        lm_mat_dot(&cf, on_u ? gu : G, dir);
        lm_num_sub(&r, &cf, &Lp);
        lm_num_abs(&r, &r);
        lm_mat_frob(&nG, on_u ? gu : G);
        lm_mat_frob(&nV, dir);
        lm_num_mul(&nG, &nG, &nV);
        /* + rounding of the quotient: 64 * 2^-256 * L / h */
        lm_attn_forward(F, D, W, D->u, loss);
        lm_attn_lossval(&Lm, F);
        lm_num_mul_d(&Lm, &Lm, 64.0 * ldexp(1.0, -256) / 1e-30);
        lm_num_div(&Lm, &Lm, &nG);
        lm_num_add_d(&Lm, &Lm, 1e-40);
        lm_num_div(&r, &r, &nG);
        lm_num_div(&r, &r, &Lm);
        cr_expect_lt(lm_num_get_d(&r), 1.0, "a2=%d loss=%d R=%g %s: rel residual %g", a2,
                     (int)loss, R, on_u ? "u" : "W", lm_num_get_d(&r));
        lm_mat_free(P);
    }
    lm_num_clears(&cf, &Lp, &Lm, &h, &nG, &nV, &r, (lm_num *)NULL);
    lm_attn_fwd_free(F);
    lm_mat_free(G); lm_mat_free(gu); lm_mat_free(W); lm_mat_free(V); lm_mat_free(v);
    lm_attn_data_free(D);
}

Test(ib_model, gradient_vs_mpfr_fd)
{
    static const double Rs[] = {1e-3, 1.0, 10.0, 100.0};
    for (int k = 0; k < 4; k++)
        for (int a2 = 0; a2 < 2; a2++) {
            fd_case(a2, LM_ATTN_EXP, Rs[k], 11 + (uint64_t)k);
            fd_case(a2, LM_ATTN_LOGISTIC, Rs[k], 21 + (uint64_t)k);
        }
}

/* the Assumption-2 form equals the general form on A2 data (double, 1e-13) */
Test(ib_model, a2_form_matches_general)
{
    lm_ctx c = lm_ctx_double();
    int n = 4, T = 5, d = 12;
    lm_attn_data *D = toy(5, n, T, d, 1, &c);
    lm_mat *W = lm_mat_new(d, d, &c), *G = lm_mat_new(d, d, &c), *G2 = lm_mat_new(d, d, &c);
    lm_mat *C = lm_mat_new(n, T, &c);
    rand_mat(W, 6, 3.0 / d);
    lm_attn_fwd *F = lm_attn_fwd_new(D);
    lm_num ls, a, b;
    lm_num_inits(&c, &ls, &a, &b, (lm_num *)NULL);
    for (int loss = 0; loss < 2; loss++) {
        lm_attn_forward(F, D, W, D->u, (lm_attn_loss)loss);
        lm_attn_grad_W(G, F, D);
        lm_attn_grad_coef_a2(C, &ls, F);
        lm_attn_expand(G2, C, &ls, D);
        lm_mat_frob(&b, G);
        lm_mat_sub(G2, G2, G);
        lm_mat_frob(&a, G2);
        cr_expect_lt(lm_num_get_d(&a), 1e-13 * lm_num_get_d(&b), "loss %d: %g vs %g", loss,
                     lm_num_get_d(&a), lm_num_get_d(&b));
    }
    lm_num_clears(&ls, &a, &b, (lm_num *)NULL);
    lm_attn_fwd_free(F);
    lm_mat_free(W); lm_mat_free(G); lm_mat_free(G2); lm_mat_free(C);
    lm_attn_data_free(D);
}

/* double vs MPFR: loss and gradient agree to 1e-12 relative */
Test(ib_model, double_vs_mpfr)
{
    lm_ctx cd = lm_ctx_double(), cm = lm_ctx_mpfr(256);
    int n = 4, T = 4, d = 10;
    lm_attn_data *D = toy(9, n, T, d, 0, &cd), *Dm = lm_attn_data_convert(D, &cm);
    lm_mat *W = lm_mat_new(d, d, &cd), *Wm = lm_mat_new(d, d, &cm);
    rand_mat(W, 10, 2.0 / d);
    lm_mat_copy(Wm, W);
    lm_attn_fwd *F = lm_attn_fwd_new(D), *Fm = lm_attn_fwd_new(Dm);
    lm_mat *G = lm_mat_new(d, d, &cd), *Gm = lm_mat_new(d, d, &cm), *Gd = lm_mat_new(d, d, &cm);
    for (int loss = 0; loss < 2; loss++) {
        lm_attn_forward(F, D, W, D->u, (lm_attn_loss)loss);
        lm_attn_forward(Fm, Dm, Wm, Dm->u, (lm_attn_loss)loss);
        double l1 = lm_num_get_d(&F->logL), l2 = lm_num_get_d(&Fm->logL);
        cr_expect_lt(fabs(l1 - l2), 1e-13 * fmax(1.0, fabs(l2)));
        lm_attn_grad_W(G, F, D);
        lm_attn_grad_W(Gm, Fm, Dm);
        lm_mat_copy(Gd, G);
        lm_mat_sub(Gd, Gd, Gm);
        lm_num a, b;
        lm_num_inits(&cm, &a, &b, (lm_num *)NULL);
        lm_mat_frob(&a, Gd);
        lm_mat_frob(&b, Gm);
        cr_expect_lt(lm_num_get_d(&a), 1e-12 * lm_num_get_d(&b));
        lm_num_clears(&a, &b, (lm_num *)NULL);
    }
    lm_attn_fwd_free(F); lm_attn_fwd_free(Fm);
    lm_mat_free(W); lm_mat_free(Wm); lm_mat_free(G); lm_mat_free(Gm); lm_mat_free(Gd);
    lm_attn_data_free(D); lm_attn_data_free(Dm);
}

/* low-dimensional representation vs the explicit d x d computation */
Test(ib_model, lowdim_matches_explicit)
{
    lm_ctx c = lm_ctx_double();
    int n = 3, T = 4, d = 9;
    lm_attn_data *D = toy(12, n, T, d, 1, &c);
    lm_mat *W0 = lm_mat_new(d, d, &c), *C = lm_mat_new(n, T, &c), *C2 = lm_mat_new(n, T, &c);
    lm_mat *W = lm_mat_new(d, d, &c), *W2 = lm_mat_new(d, d, &c), *a = lm_mat_new(n, T, &c);
    rand_mat(W0, 13, 0.1);
    rand_mat(C, 14, 1.0);
    rand_mat(C2, 15, 1.0);
    lm_attn_lowdim *R = lm_attn_lowdim_new(D, W0);
    lm_attn_lowdim_expand(W, C, 1.0, W0, D);
    lm_attn_lowdim_expand(W2, C2, -0.5, W0, D);
    lm_attn_lowdim_logits(a, R, 1.0, C);
    lm_attn_fwd *F = lm_attn_fwd_new(D);
    lm_attn_forward(F, D, W, D->u, LM_ATTN_EXP);
    for (int i = 0; i < n; i++)
        for (int t = 0; t < T; t++) {
            double x = lm_mat_get_d(a, i, t), y = lm_mat_get_d(F->a, i, t);
            cr_expect_lt(fabs(x - y), 1e-12 * fmax(1.0, fabs(y)), "logit %d,%d: %g vs %g", i, t, x, y);
        }
    lm_num r, e, w, v;
    lm_num_inits(&c, &r, &e, &w, &v, (lm_num *)NULL);
    lm_num_set_d(&w, 1.0);
    lm_num_set_d(&v, -0.5);
    lm_attn_lowdim_inner(&r, R, &w, C, &v, C2);
    lm_mat_dot(&e, W, W2);
    cr_expect_lt(fabs(lm_num_get_d(&r) - lm_num_get_d(&e)), 1e-12 * fmax(1.0, fabs(lm_num_get_d(&e))));
    lm_num_clears(&r, &e, &w, &v, (lm_num *)NULL);
    lm_attn_fwd_free(F);
    lm_attn_lowdim_free(R);
    lm_mat_free(W0); lm_mat_free(C); lm_mat_free(C2); lm_mat_free(W); lm_mat_free(W2); lm_mat_free(a);
    lm_attn_data_free(D);
}

/* 1 - s_opt at saturation: stable double agrees with MPFR-256; naive is 0 */
Test(ib_model, one_minus_sopt_at_saturation)
{
    lm_ctx cd = lm_ctx_double(), cm = lm_ctx_mpfr(256);
    int n = 3, T = 4, d = 12;
    lm_attn_data *D = toy(17, n, T, d, 1, &cd), *Dm = lm_attn_data_convert(D, &cm);
    lm_mat *CV = lm_mat_new(n, T, &cd), *W = lm_mat_new(d, d, &cd), *Wm = lm_mat_new(d, d, &cm);
    cr_assert_eq(lm_attn_sep_direction(CV, D, NULL), 0);
    lm_attn_expand(W, CV, NULL, D);
    lm_num nw;
    lm_num_init(&nw, &cd);
    lm_mat_frob(&nw, W);
    lm_mat_scale_d(W, W, 200.0 / lm_num_get_d(&nw)); /* ||W|| = 200 */
    lm_num_clear(&nw);
    lm_mat_copy(Wm, W);
    lm_attn_fwd *F = lm_attn_fwd_new(D), *Fm = lm_attn_fwd_new(Dm);
    lm_attn_forward(F, D, W, D->u, LM_ATTN_EXP);
    lm_attn_forward(Fm, Dm, Wm, Dm->u, LM_ATTN_EXP);
    int naive_zero = 0;
    for (int i = 0; i < n; i++) {
        double ld = lm_mat_get_d(F->lomso, i, 0), lm = lm_mat_get_d(Fm->lomso, i, 0);
        double amax = 0;
        for (int t = 0; t < T; t++) amax = fmax(amax, fabs(lm_mat_get_d(F->a, i, t)));
        /* relative error of 1 - s_opt = |ld - lm|: a few ulps of the logits */
        cr_expect_lt(fabs(ld - lm), 8.0 * DBL_EPSILON * (1.0 + amax), "seq %d: %.17g vs %.17g", i, ld, lm);
        cr_expect_lt(lm, -37.0, "not saturated enough: %g", lm);
        double so = exp(lm_mat_get_d(F->logs, i, F->opt[i]));
        if (1.0 - so == 0.0) naive_zero++;
    }
    cr_expect_eq(naive_zero, n, "naive 1 - s_opt should be 0 in double here");
    lm_attn_fwd_free(F); lm_attn_fwd_free(Fm);
    lm_mat_free(CV); lm_mat_free(W); lm_mat_free(Wm);
    lm_attn_data_free(D); lm_attn_data_free(Dm);
}

/* deep saturation (s_tau ~ e^-2000, far below double's range): the scaled
 * gradient direction in double agrees with MPFR-256 to 1e-12, and log(L - L*)
 * in double agrees with MPFR-256 computed naively as L - L* (exact enough at
 * 256 bits only for moderate saturation, so the naive reference uses R = 30). */
Test(ib_model, scaled_gradient_and_excess_at_saturation)
{
    lm_ctx cd = lm_ctx_double(), cm = lm_ctx_mpfr(256);
    int n = 3, T = 4, d = 12;
    lm_attn_data *D = toy(31, n, T, d, 1, &cd), *Dm = lm_attn_data_convert(D, &cm);
    lm_mat *CV = lm_mat_new(n, T, &cd), *V = lm_mat_new(d, d, &cd), *W = lm_mat_new(d, d, &cd);
    lm_mat *Wm = lm_mat_new(d, d, &cm);
    cr_assert_eq(lm_attn_sep_direction(CV, D, NULL), 0);
    lm_attn_expand(V, CV, NULL, D);
    lm_attn_fwd *F = lm_attn_fwd_new(D), *Fm = lm_attn_fwd_new(Dm);
    lm_mat *C = lm_mat_new(n, T, &cd), *Cm = lm_mat_new(n, T, &cm);
    lm_mat *G = lm_mat_new(d, d, &cd), *Gm = lm_mat_new(d, d, &cm), *Gd = lm_mat_new(d, d, &cm);
    lm_num ls, lsm, a, b, ex, exm, Lm, Ls;
    lm_num_inits(&cd, &ls, &ex, (lm_num *)NULL);
    lm_num_inits(&cm, &lsm, &a, &b, &exm, &Lm, &Ls, (lm_num *)NULL);
    /* R = 2000: h = 2000 */
    lm_mat_scale_d(W, V, 2000.0);
    lm_mat_copy(Wm, W);
    lm_attn_forward(F, D, W, D->u, LM_ATTN_EXP);
    lm_attn_forward(Fm, Dm, Wm, Dm->u, LM_ATTN_EXP);
    lm_attn_grad_coef(C, &ls, F);
    lm_attn_grad_coef(Cm, &lsm, Fm);
    cr_assert(lm_num_isfinite(&ls), "scaled gradient log-scale not finite");
    cr_expect_lt(lm_num_get_d(&ls), -1900.0);
    cr_expect_lt(fabs(lm_num_get_d(&ls) - lm_num_get_d(&lsm)), 1e-12 * 2000.0);
    lm_attn_expand(G, C, NULL, D);
    lm_attn_expand(Gm, Cm, NULL, Dm);
    lm_mat_copy(Gd, G);
    lm_mat_sub(Gd, Gd, Gm);
    lm_mat_frob(&a, Gd);
    lm_mat_frob(&b, Gm);
    cr_expect_lt(lm_num_get_d(&a), 1e-12 * lm_num_get_d(&b), "%g vs %g", lm_num_get_d(&a),
                 lm_num_get_d(&b));
    /* log(L - L*) at R = 30, both losses: stable double vs naive MPFR-256 */
    lm_mat_scale_d(W, V, 30.0);
    lm_mat_copy(Wm, W);
    for (int loss = 0; loss < 2; loss++) {
        lm_attn_forward(F, D, W, D->u, (lm_attn_loss)loss);
        lm_attn_forward(Fm, Dm, Wm, Dm->u, (lm_attn_loss)loss);
        lm_attn_log_excess(&ex, F);
        lm_attn_lossval(&Lm, Fm);
        lm_num_set_d(&Ls, 0.0);
        for (int i = 0; i < n; i++) {
            lm_mat_get(&a, Fm->gam, i, Fm->opt[i]);
            lm_num_neg(&a, &a);
            if (loss == 0) lm_num_exp(&a, &a);
            else { lm_num_exp(&a, &a); lm_num_log1p(&a, &a); }
            lm_num_add(&Ls, &Ls, &a);
        }
        lm_num_div_d(&Ls, &Ls, (double)n);
        lm_num_sub(&Lm, &Lm, &Ls);
        lm_num_log(&Lm, &Lm);
        cr_expect_lt(fabs(lm_num_get_d(&ex) - lm_num_get_d(&Lm)), 1e-12,
                     "loss %d: log excess %.17g vs %.17g", loss, lm_num_get_d(&ex), lm_num_get_d(&Lm));
    }
    /* 1 - cos in double vs MPFR for nearly parallel matrices */
    lm_mat *W2 = lm_mat_dup(W), *W2m = lm_mat_new(d, d, &cm);
    lm_mat_set_d(W2, 0, 1, lm_mat_get_d(W2, 0, 1) + 1e-6);
    lm_mat_copy(W2m, W2);
    lm_attn_one_minus_cos(&ex, W, W2);
    lm_attn_one_minus_cos(&exm, Wm, W2m);
    cr_expect_lt(fabs(lm_num_get_d(&ex) / lm_num_get_d(&exm) - 1.0), 1e-8, "%g vs %g",
                 lm_num_get_d(&ex), lm_num_get_d(&exm));
    cr_expect_gt(lm_num_get_d(&exm), 0.0);
    lm_mat_free(W2); lm_mat_free(W2m);
    lm_num_clears(&ls, &ex, (lm_num *)NULL);
    lm_num_clears(&lsm, &a, &b, &exm, &Lm, &Ls, (lm_num *)NULL);
    lm_attn_fwd_free(F); lm_attn_fwd_free(Fm);
    lm_mat_free(CV); lm_mat_free(V); lm_mat_free(W); lm_mat_free(Wm); lm_mat_free(C);
    lm_mat_free(Cm); lm_mat_free(G); lm_mat_free(Gm); lm_mat_free(Gd);
    lm_attn_data_free(D); lm_attn_data_free(Dm);
}

/* every optimizer decreases the loss over a few steps */
Test(ib_model, optimizers_decrease_loss)
{
    lm_ctx c = lm_ctx_double();
    int n = 4, T = 4, d = 16;
    lm_attn_data *D = toy(21, n, T, d, 1, &c);
    lm_mat *W0 = lm_mat_new(d, d, &c);
    rand_mat(W0, 22, 0.01 / d);
    lm_attn_fwd *F = lm_attn_fwd_new(D);
    cr_expect_null(lm_attn_opt_find("no-such-optimizer"));
    for (int k = 0; lm_attn_opt_names[k]; k++) {
        const lm_attn_opt *o = lm_attn_opt_find(lm_attn_opt_names[k]);
        cr_assert_not_null(o);
        lm_attn_opt_par p;
        lm_attn_opt_par_default(&p);
        p.eta = 0.1;
        lm_attn_state *S = lm_attn_state_new(W0, D->u);
        lm_attn_forward(F, D, S->W, S->u, p.loss);
        double l0 = lm_num_get_d(&F->logL);
        for (int t = 0; t < 20; t++) cr_assert_eq(o->step(S, F, D, &p), 0, "%s step %d", o->name, t);
        lm_attn_forward(F, D, S->W, S->u, p.loss);
        double l1 = lm_num_get_d(&F->logL);
        cr_expect_lt(l1, l0, "%s: log L %g -> %g", o->name, l0, l1);
        cr_expect_eq(S->t, 20);
        lm_attn_state_free(S);
    }
    lm_attn_fwd_free(F);
    lm_mat_free(W0);
    lm_attn_data_free(D);
}

/* ---- claims ---- */

Test(implicit_eq17_gradient, wrong_constant_is_violated)
{
    const char *s1[] = {"grad_scale=1.001", NULL};
    lm_test_expect("implicit/eq17-gradient", s1, "general,exp", 2, LM_V_VIOLATED);
    const char *s2[] = {"sign=-1", NULL};
    lm_test_expect("implicit/eq17-gradient", s2, "A2-form,logistic", 2, LM_V_VIOLATED);
}

Test(implicit_eq17_gradient, as_stated_not_error)
{
    lm_test_not_error("implicit/eq17-gradient", "general,logistic", 4);
    lm_test_not_error("implicit/eq17-gradient", "A2-form,exp", 4);
}

Test(implicit_definition1, wrong_constant_is_violated)
{
    const char *s1[] = {"opt_rule=argmin", NULL};
    lm_test_expect("implicit/definition1", s1, "EX1", 4, LM_V_VIOLATED);
    const char *s2[] = {"rate_scale=2", NULL};
    lm_test_expect("implicit/definition1", s2, "gaussian", 4, LM_V_VIOLATED);
}

Test(implicit_definition1, as_stated_not_error)
{
    lm_test_not_error("implicit/definition1", "EX1", 4);
    lm_test_not_error("implicit/definition1", "gaussian", 4);
}

Test(implicit_text_stationary, wrong_constant_is_violated)
{
    const char *s1[] = {"flip=1", NULL};
    lm_test_expect("implicit/text-stationary", s1, "sopt->0", 4, LM_V_VIOLATED);
    const char *s2[] = {"cos_floor=1", NULL};
    lm_test_expect("implicit/text-stationary", s2, "random", 4, LM_V_VIOLATED);
}

Test(implicit_text_stationary, as_stated_not_error)
{
    lm_test_not_error("implicit/text-stationary", "random", 4);
    lm_test_not_error("implicit/text-stationary", "sopt->1", 4);
}

/* Regression: with s_opt ~ e^-800 (W pushed against W_mm) the general form
 * once scaled each centred score by a term whose score difference is zero and
 * lost the optimal token's contribution to underflow; it must agree with the
 * Assumption-2 form on Assumption-2 data. */
Test(ib_model, general_gradient_survives_collapsed_optimal_softmax)
{
    lm_ctx cd = lm_ctx_double();
    lm_rng g;
    lm_rng_init(&g, 17);
    lm_attn_data *D = lm_attn_toy_data(&g, 3, 3, 12, 1, &cd);
    cr_assert_eq(lm_attn_set_opt(D), 1);
    lm_mat *V = lm_mat_new(3, 3, &cd), *W = lm_mat_new(12, 12, &cd);
    cr_assert_eq(lm_attn_sep_direction(V, D, D->opt), 0);
    lm_attn_expand(W, V, NULL, D);
    lm_mat_scale_d(W, W, -800.0); /* optimal logits 800 below the others */
    lm_attn_fwd *F = lm_attn_fwd_new(D);
    cr_assert_eq(lm_attn_forward(F, D, W, D->u, LM_ATTN_EXP), 0);
    lm_mat *C1 = lm_mat_new(3, 3, &cd), *C2 = lm_mat_new(3, 3, &cd);
    lm_num l1, l2;
    lm_num_inits(&cd, &l1, &l2, (lm_num *)NULL);
    lm_attn_grad_coef(C1, &l1, F);
    lm_attn_grad_coef_a2(C2, &l2, F);
    cr_expect_float_eq(lm_num_get_d(&l1), lm_num_get_d(&l2), 1e-9 * fabs(lm_num_get_d(&l2)) + 1e-9);
    for (int i = 0; i < 3; i++)
        for (int t = 0; t < 3; t++)
            cr_expect_float_eq(lm_mat_get_d(C1, i, t), lm_mat_get_d(C2, i, t), 1e-9,
                               "C[%d][%d]: general %g vs A2 form %g", i, t,
                               lm_mat_get_d(C1, i, t), lm_mat_get_d(C2, i, t));
    lm_num_clears(&l1, &l2, (lm_num *)NULL);
    lm_mat_free(C1); lm_mat_free(C2); lm_mat_free(V); lm_mat_free(W);
    lm_attn_fwd_free(F);
    lm_attn_data_free(D);
}

/* lm_attn_expand in double (one fused pass over G) equals, bit for bit, the
 * sum of rank-one matrices O_i = v_i x_i1^T (v_i = X_i^T c_i) added in the
 * order i = 0..n-1 with lm_mat_mul and lm_mat_add; and it agrees with the
 * MPFR-256 expansion of the same coefficients */
Test(ib_model, expand_double_is_the_sum_of_rank_one_products)
{
    lm_ctx cd = lm_ctx_double(), cm = lm_ctx_mpfr(256);
    const int n = 5, T = 3, d = 37;
    lm_attn_data *D = toy(41, n, T, d, 0, &cd), *Dm = toy(41, n, T, d, 0, &cm);
    lm_mat *C = lm_mat_new(n, T, &cd), *Cm = lm_mat_new(n, T, &cm);
    rand_mat(C, 42, 1.7);
    lm_mat_copy(Cm, C);
    lm_mat *G = lm_mat_new(d, d, &cd), *Gm = lm_mat_new(d, d, &cm), *R = lm_mat_new(d, d, &cd);
    lm_mat *ci = lm_mat_new(T, 1, &cd), *vi = lm_mat_new(d, 1, &cd), *x1 = lm_mat_new(d, 1, &cd);
    lm_mat *O = lm_mat_new(d, d, &cd);
    lm_attn_expand(G, C, NULL, D);
    lm_attn_expand(Gm, Cm, NULL, Dm);
    lm_mat_zero(R);
    for (int i = 0; i < n; i++) {
        for (int t = 0; t < T; t++) lm_mat_set_d(ci, t, 0, lm_mat_get_d(C, i, t));
        lm_mat_mul(vi, D->X[i], 1, ci, 0);
        for (int k = 0; k < d; k++) lm_mat_set_d(x1, k, 0, lm_mat_get_d(D->X[i], 0, k));
        lm_mat_mul(O, vi, 0, x1, 1);
        lm_mat_add(R, R, O);
    }
    double worst = 0.0, scale = 0.0;
    for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++) {
            double g = lm_mat_get_d(G, a, b), r = lm_mat_get_d(R, a, b), m = lm_mat_get_d(Gm, a, b);
            cr_assert(g == r && signbit(g) == signbit(r), "entry (%d,%d): %.17g vs %.17g", a, b, g, r);
            worst = fmax(worst, fabs(g - m));
            scale = fmax(scale, fabs(m));
        }
    cr_expect(scale > 0 && worst <= 1e-13 * scale, "double vs MPFR: %g of %g", worst, scale);
    lm_mat_free(C); lm_mat_free(Cm); lm_mat_free(G); lm_mat_free(Gm); lm_mat_free(R);
    lm_mat_free(ci); lm_mat_free(vi); lm_mat_free(x1); lm_mat_free(O);
    lm_attn_data_free(D);
    lm_attn_data_free(Dm);
}

/* ---- issue 15: declared ranges; the formerly crashing values ---- */

/* --set value v for parameter name of claim id: 0 when accepted, and the message */
static int ib_parse(const char *id, const char *kv, char *err, int errlen)
{
    const lm_claim *c = lm_claim_find(id);
    cr_assert_not_null(c);
    int idx;
    double v;
    err[0] = 0;
    return lm_claim_parse_set(c, kv, &idx, &v, err, errlen);
}

Test(implicit_definition1, sizes_outside_their_range_are_refused)
{
    const char *bad[] = {"T=0", "T=-1", "d=0", "d=-1", "n=0", "d=1e300", "n=1e9", "T=41", "T=NaN", "T= 1",
                         NULL};
    char err[256];
    for (int k = 0; bad[k]; k++) {
        cr_expect_neq(ib_parse("implicit/definition1", bad[k], err, sizeof err), 0, "%s accepted", bad[k]);
        cr_expect(strstr(err, "an integer in [") != NULL, "%s: %s", bad[k], err);
    }
    const char *bad17[] = {"T=0", "T=-1", "d=0", "n=1e9", "d=1e300", "fd_h=0", "sign=2", NULL};
    for (int k = 0; bad17[k]; k++)
        cr_expect_neq(ib_parse("implicit/eq17-gradient", bad17[k], err, sizeof err), 0, "%s accepted",
                      bad17[k]);
}

/* one token per sequence (T = 1) used to read the second token of the A2 identity
 * out of bounds; the smallest sizes now run */
Test(implicit_definition1, smallest_sizes_run)
{
    const char *s1[] = {"T=1", NULL}, *s2[] = {"d=1", NULL}, *s3[] = {"n=1", NULL};
    const char *const *sets[] = {s1, s2, s3};
    for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++) {
        lm_claim_result r = lm_test_run("implicit/definition1", sets[k], NULL, 2);
        for (int j = 0; j < r.nconfig; j++)
            cr_expect_neq(r.cfg[j].verdict, LM_V_ERROR, "%s [%s]: %s", sets[k][0], r.cfg[j].config,
                          r.cfg[j].detail);
        lm_claim_result_clear(&r);
    }
}

Test(implicit_eq17_gradient, smallest_sizes_run)
{
    const char *s1[] = {"T=1", NULL}, *s2[] = {"d=1", NULL}, *s3[] = {"n=1", NULL};
    const char *const *sets[] = {s1, s2, s3};
    for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++) {
        lm_claim_result r = lm_test_run("implicit/eq17-gradient", sets[k], NULL, 2);
        for (int j = 0; j < r.nconfig; j++)
            cr_expect_neq(r.cfg[j].verdict, LM_V_ERROR, "%s [%s]: %s", sets[k][0], r.cfg[j].config,
                          r.cfg[j].detail);
        lm_claim_result_clear(&r);
    }
}

Test(implicit_eq17_gradient, the_issues_command_lines_are_usage_errors, .timeout = 60)
{
    const char *cmds[] = {"check implicit/definition1 --quick --set T=0",
                          "check implicit/eq17-gradient --quick --set T=-1",
                          "check implicit/eq17-gradient --quick --set n=1e9",
                          "check implicit/eq17-gradient --quick --set d=1e300", NULL};
    for (int k = 0; cmds[k]; k++) {
        char out[4096];
        int rc = lm_test_cli(out, sizeof out, cmds[k]);
        cr_expect_eq(rc, 2, "`%s` exited %d: %s", cmds[k], rc, out);
        cr_expect(strstr(out, "takes an integer in [") != NULL, "`%s`: %s", cmds[k], out);
    }
}

/* an identity claim whose tolerance is in units of lm_ctx_eps holds at 2048 bits too (the double
 * eps used to underflow to 0 past 1074 bits: every residual, however small, was a violation) */
Test(ib_model, identity_tolerance_at_2048_bits)
{
    char out[65536];
    cr_assert_eq(lm_test_cli(out, sizeof out, "check implicit/eq17-gradient --prec 2048 --quick --json"), 0, "%s", out);
    cr_expect(strstr(out, "\"verdict\":\"holds\""), "%.400s", out);
}
