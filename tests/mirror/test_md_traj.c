/* tests/test_md_traj.c -- the per-step machinery of the mirror-descent
 * trajectory claims (lm_mdstep.h) and the claims mirror/lemma4, lemma22,
 * lemma23, lemma24, lemma25: every claim must be able to fail (a deliberately
 * wrong constant comes out violated) and must not come out `error` as stated. */
#include "test_support.h"
#include "lm_mdstep.h"
#include <math.h>

/* ---------- the exact pair against brute force in MPFR ---------- */

/* the naive quantities of the pair (Th0, Th0 + dTh) at 1024 bits */
static void naive_pair(double *S, double *dpm1, double *dx, double *b01, double *b10, const lm_mat *Th0d,
                       const lm_mat *dThd, double p)
{
    lm_ctx c = lm_ctx_mpfr(1024);
    int r = Th0d->r, cc = Th0d->c;
    lm_mat *Th0 = lm_mat_new(r, cc, &c), *Th1 = lm_mat_new(r, cc, &c), *W0 = lm_mat_new(r, cc, &c),
           *W1 = lm_mat_new(r, cc, &c);
    lm_mat_copy(Th0, Th0d);
    lm_mat_copy(Th1, dThd);
    lm_mat_add(Th1, Th1, Th0);
    lm_md_grad_psi_star(W0, Th0, p);
    lm_md_grad_psi_star(W1, Th1, p);
    lm_num a, b, e;
    lm_num_inits(&c, &a, &b, &e, (lm_num *)NULL);
    lm_md_psi(&a, W1, p);
    lm_md_psi(&b, W0, p);
    lm_num_sub(&e, &a, &b);
    *S = p * lm_num_get_d(&e);
    lm_md_pnorm(&a, W1, p);
    lm_md_pnorm(&b, W0, p);
    lm_num_sub(&e, &a, &b);
    *dx = lm_num_get_d(&e);
    lm_num_set_d(&e, p);
    lm_num_add_d(&e, &e, -1.0);
    lm_num_pow(&a, &a, &e);
    lm_num_pow(&b, &b, &e);
    lm_num_sub(&a, &a, &b);
    *dpm1 = lm_num_get_d(&a);
    lm_md_bregman(&a, W0, W1, p);
    *b01 = lm_num_get_d(&a);
    lm_md_bregman(&a, W1, W0, p);
    *b10 = lm_num_get_d(&a);
    lm_num_clears(&a, &b, &e, (lm_num *)NULL);
    lm_mat_free(Th0); lm_mat_free(Th1); lm_mat_free(W0); lm_mat_free(W1);
}

static double relerr(double x, double ref) { return fabs(x - ref) / fmax(fabs(ref), 1e-300); }

Test(md_traj, exact_pair_matches_mpfr_brute_force)
{
    static const double ps[] = {1.01, 1.5, 2.0, 3.0, 10.0};
    lm_ctx cd = lm_ctx_double();
    for (int j = 0; j < 5; j++)
        for (int s = 0; s < 30; s++) {
            double p = ps[j];
            lm_rng g;
            lm_rng_init(&g, 1000 + 37 * (uint64_t)j + (uint64_t)s);
            int d = 1 + s % 3;
            lm_mat *W0 = lm_mat_new(d, d, &cd), *Th0 = lm_mat_new(d, d, &cd), *dTh = lm_mat_new(d, d, &cd);
            lm_num eta;
            lm_num_init(&eta, &cd);
            lm_md_pointwise(W0, Th0, dTh, &eta, p, &g, NULL, 0);
            if (s % 5 == 4) lm_mat_scale_d(dTh, dTh, 1e-9); /* tiny steps: cancellation territory */
            lm_mdpair P;
            lm_mdpair_init(&P, d, d, &cd);
            lm_mdpair_compute(&P, W0, Th0, dTh, p, LM_MDPAIR_BREG | LM_MDPAIR_W1 | LM_MDPAIR_DQN);
            double S, dpm1, dx, b01, b10;
            naive_pair(&S, &dpm1, &dx, &b01, &b10, Th0, dTh, p);
            if (P.underflows == 0) {
                double tol = 1e-9;
                cr_expect_lt(relerr(lm_num_get_d(&P.S), S), tol, "p=%g s=%d S %.17g vs %.17g", p, s, lm_num_get_d(&P.S), S);
                cr_expect_lt(relerr(lm_num_get_d(&P.dpm1), dpm1), tol, "p=%g s=%d dpm1 %.17g vs %.17g", p, s,
                             lm_num_get_d(&P.dpm1), dpm1);
                cr_expect_lt(relerr(lm_num_get_d(&P.dx), dx), tol, "p=%g s=%d dx", p, s);
                cr_expect_lt(relerr(lm_num_get_d(&P.b01), b01), tol, "p=%g s=%d b01 %.17g vs %.17g", p, s,
                             lm_num_get_d(&P.b01), b01);
                cr_expect_lt(relerr(lm_num_get_d(&P.b10), b10), tol, "p=%g s=%d b10 %.17g vs %.17g", p, s,
                             lm_num_get_d(&P.b10), b10);
                /* the symmetrised divergence is <dTh, W1 - W0> */
                cr_expect_lt(relerr(lm_num_get_d(&P.b01) + lm_num_get_d(&P.b10), lm_num_get_d(&P.lin)), 1e-9);
            }
            lm_mdpair_clear(&P);
            lm_num_clear(&eta);
            lm_mat_free(W0); lm_mat_free(Th0); lm_mat_free(dTh);
        }
}

Test(md_traj, phi_series_and_direct_agree)
{
    lm_ctx c = lm_ctx_mpfr(256), c2 = lm_ctx_mpfr(2048);
    lm_num x, e, r, x2, e2, r2;
    lm_num_inits(&c, &x, &e, &r, (lm_num *)NULL);
    lm_num_inits(&c2, &x2, &e2, &r2, (lm_num *)NULL);
    static const double es[] = {1.0526315789473684, 1.5, 3.0, 101.0};
    static const double xs[] = {1e-30, -1e-12, 3e-9, -2e-6, 1e-4, 0.01, -0.3, 2.0};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) {
            lm_num_set_d(&x, xs[j]);
            lm_num_set_d(&e, es[i]);
            lm_md_phi(&r, &x, &e, &c);
            /* reference: the direct form at 2048 bits */
            lm_num_set_d(&x2, xs[j]);
            lm_num_set_d(&e2, es[i]);
            lm_num_log1p(&r2, &x2);
            lm_num_mul(&r2, &r2, &e2);
            lm_num_expm1(&r2, &r2);
            lm_num_mul(&e2, &e2, &x2);
            lm_num_sub(&r2, &r2, &e2);
            cr_expect_lt(relerr(lm_num_get_d(&r), lm_num_get_d(&r2)), 1e-14, "e=%g x=%g: %.17g vs %.17g", es[i],
                         xs[j], lm_num_get_d(&r), lm_num_get_d(&r2));
        }
    lm_num_clears(&x, &e, &r, (lm_num *)NULL);
    lm_num_clears(&x2, &e2, &r2, (lm_num *)NULL);
}

Test(md_traj, loss_drop_matches_mpfr_difference)
{
    lm_ctx cd = lm_ctx_double(), cm = lm_ctx_mpfr(1024);
    lm_rng g;
    lm_rng_init(&g, 77);
    lm_mddata *D = lm_md_gen_paper(&g, 4, 5, 4, &cd);
    lm_mddata *Dm = lm_md_data_convert(D, &cm);
    lm_mat *W = lm_mat_new(4, 4, &cd), *dW = lm_mat_new(4, 4, &cd);
    lm_mat *Wm = lm_mat_new(4, 4, &cm), *W1m = lm_mat_new(4, 4, &cm), *dWm = lm_mat_new(4, 4, &cm);
    lm_attn_fwd *F = lm_md_fwd_new(D), *Fm = lm_md_fwd_new(Dm);
    lm_num dL, a, b;
    lm_num_init(&dL, &cd);
    lm_num_inits(&cm, &a, &b, (lm_num *)NULL);
    for (int s = 0; s < 12; s++) {
        lm_mat_randn(W, &g, s < 6 ? 1.0 : 20.0); /* moderate and saturated attention */
        lm_mat_randn(dW, &g, pow(10.0, -(double)(s % 6) * 2.0));
        for (int loss = 0; loss < 2; loss++) {
            cr_assert_eq(lm_md_forward(F, D, W, (lm_attn_loss)loss), 0);
            cr_assert_eq(lm_md_loss_drop(&dL, F, D, dW), 0);
            lm_mat_copy(Wm, W);
            lm_mat_copy(dWm, dW);
            lm_mat_add(W1m, Wm, dWm);
            lm_md_forward(Fm, Dm, Wm, (lm_attn_loss)loss);
            lm_num_exp(&a, &Fm->logL);
            lm_md_forward(Fm, Dm, W1m, (lm_attn_loss)loss);
            lm_num_exp(&b, &Fm->logL);
            lm_num_sub(&a, &a, &b);
            double ref = lm_num_get_d(&a);
            cr_expect_lt(fabs(lm_num_get_d(&dL) - ref), 1e-10 * fabs(ref) + 1e-300, "s=%d loss=%d: %.17g vs %.17g", s,
                         loss, lm_num_get_d(&dL), ref);
        }
    }
    lm_num_clear(&dL);
    lm_num_clears(&a, &b, (lm_num *)NULL);
    lm_attn_fwd_free(F); lm_attn_fwd_free(Fm);
    lm_mat_free(W); lm_mat_free(dW); lm_mat_free(Wm); lm_mat_free(W1m); lm_mat_free(dWm);
    lm_md_data_free(D); lm_md_data_free(Dm);
}

/* the driver reproduces lm_md_step bit for bit, and a shadow sees the same state */
Test(md_traj, driver_is_lm_md_step)
{
    lm_mdrun_spec specs[3] = {{LM_MDRUN_R1, 1.5, 1.0, 0}, {LM_MDRUN_R2, 1.75, 0.1, 1}, {LM_MDRUN_R3, 4.0, 0.1, 0}};
    for (int j = 0; j < 3; j++) {
        lm_rng g;
        lm_rng_init(&g, 500 + (uint64_t)j);
        lm_mdrun R;
        char why[200];
        cr_assert_eq(lm_mdrun_init(&R, &specs[j], 0, &g, why, sizeof why), 0, "%s", why);
        lm_mat *W = lm_mat_dup(R.W), *Th = lm_mat_dup(R.Th);
        lm_attn_fwd *F = lm_md_fwd_new(R.D);
        lm_md_par par = {specs[j].p, specs[j].eta, specs[j].normalized, LM_ATTN_LOGISTIC};
        for (int k = 0; k < 20; k++) {
            cr_assert_eq(lm_mdrun_prepare(&R), 0);
            cr_assert_eq(lm_mdrun_advance(&R), 0);
            cr_assert_eq(lm_md_step(W, Th, F, R.D, &par), 0);
        }
        for (int a = 0; a < W->r; a++)
            for (int b = 0; b < W->c; b++) {
                cr_expect_eq(lm_mat_get_d(Th, a, b), lm_mat_get_d(R.Th, a, b), "run %d entry (%d,%d)", j, a, b);
                cr_expect_eq(lm_mat_get_d(W, a, b), lm_mat_get_d(R.W, a, b));
            }
        /* a shadow evaluation in MPFR of the same state gives the same update */
        lm_ctx cm = lm_ctx_mpfr(256);
        lm_mdrun S;
        lm_mdrun_shadow(&S, &R, &cm);
        cr_assert_eq(lm_mdrun_prepare(&S), 0);
        cr_assert_eq(lm_mdrun_prepare(&R), 0);
        for (int a = 0; a < W->r; a++)
            for (int b = 0; b < W->c; b++)
                cr_expect_lt(relerr(lm_mat_get_d(S.dTh, a, b), lm_mat_get_d(R.dTh, a, b)), 1e-10);
        lm_mdrun_free(&S);
        lm_attn_fwd_free(F);
        lm_mat_free(W);
        lm_mat_free(Th);
        lm_mdrun_free(&R);
    }
}

/* ---------- the claims ---------- */

Test(md_traj, lemma4_wrong_constants_are_violated)
{
    /* the chain (4a) is tight to first order for small steps along the gradient */
    const char *s1[] = {"c1_scale=0.5", NULL};
    lm_test_expect("mirror/lemma4", s1, "R1,p=2,eta=1", 2, LM_V_VIOLATED);
    /* (4c) is an equality at a zero start and for radial steps */
    const char *s3[] = {"c3_scale=0.9", NULL};
    lm_test_expect("mirror/lemma4", s3, "R3,p=4,eta=0.1", 2, LM_V_VIOLATED);
}

Test(md_traj, lemma4_as_stated_not_error)
{
    lm_test_not_error("mirror/lemma4", "R2,p=1.75,normalised,eta=0.1", 2);
    lm_test_not_error("mirror/lemma4", "pointwise,p=1.01", 3);
}

Test(md_traj, lemma22_wrong_constant_is_violated)
{
    /* both sides agree to first order: 1% too much on the right breaks */
    const char *s[] = {"c_scale=1.01", NULL};
    lm_test_expect("mirror/lemma22", s, "R1,p=1.5,eta=1", 2, LM_V_VIOLATED);
    lm_test_expect("mirror/lemma22", s, "pointwise,p=6", 3, LM_V_VIOLATED);
}

Test(md_traj, lemma22_as_stated_holds)
{
    lm_claim_result r = lm_test_run("mirror/lemma22", NULL, "R3,p=10,eta=0.1", 2);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "got %s (%s)", lm_verdict_name(r.verdict), r.cfg[0].detail);
    lm_claim_result_clear(&r);
    lm_test_not_error("mirror/lemma22", "pointwise,p=1.01", 3);
}

Test(md_traj, lemma23_wrong_formula_and_tolerance_are_violated)
{
    const char *s1[] = {"dpsi_coef=0.5", NULL};
    lm_test_expect("mirror/lemma23", s1, "R1,p=1.5,eta=1", 2, LM_V_VIOLATED);
    /* a tolerance far below the MPFR roundoff: the replay cannot save it */
    const char *s2[] = {"tol_scale=1e-40", NULL};
    lm_test_expect("mirror/lemma23", s2, "pointwise,p=3", 2, LM_V_VIOLATED);
}

Test(md_traj, lemma23_as_stated_holds)
{
    lm_claim_result r = lm_test_run("mirror/lemma23", NULL, "pointwise,p=1.01", 4);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "got %s (%s)", lm_verdict_name(r.verdict), r.cfg[0].detail);
    lm_claim_result_clear(&r);
    lm_test_not_error("mirror/lemma23", "R2,p=1.75,normalised,eta=0.1", 2);
}

Test(md_traj, lemma24_wrong_constant_is_violated)
{
    /* D_psi(W(k),W(k+1)) / (eta dL) -> 1/2 as eta -> 0: c = 0.4 fails at every eta, so the
     * failure survives the eta-shrinking test */
    const char *s[] = {"c_scale=0.4", NULL};
    lm_test_expect("mirror/lemma24", s, "R1,p=2,eta=1", 2, LM_V_VIOLATED);
}

Test(md_traj, lemma24_as_stated)
{
    lm_claim_result r = lm_test_run("mirror/lemma24", NULL, "R1,p=3,eta=1", 2);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "got %s (%s)", lm_verdict_name(r.verdict), r.cfg[0].detail);
    lm_claim_result_clear(&r);
    lm_test_not_error("mirror/lemma24", "R3,p=10,eta=0.1", 2);
    /* the parenthetical reading turns every first failure with D_{psi-eta L} < 0 into
     * assumption-failed: never a pass, never violated */
    const char *s[] = {"reading=1", NULL};
    r = lm_test_run("mirror/lemma24", s, "R3,p=10,eta=0.1", 2);
    cr_expect(r.verdict == LM_V_ASSUMPTION_FAILED || r.verdict == LM_V_HOLDS, "got %s",
              lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
}

Test(md_traj, lemma25_wrong_constants_are_violated)
{
    /* the loss cannot drop by twice its first-order decrease for small steps */
    const char *s1[] = {"drop_frac=2", NULL};
    lm_test_expect("mirror/lemma25", s1, "R1,p=2,eta=1", 2, LM_V_VIOLATED);
    /* the telescoping bound with a tenth of its right side */
    const char *s2[] = {"tele_scale=0.1", NULL};
    lm_test_expect("mirror/lemma25", s2, "R1,p=2,eta=1", 2, LM_V_VIOLATED);
}

Test(md_traj, lemma25_as_stated)
{
    lm_claim_result r = lm_test_run("mirror/lemma25", NULL, "R1,p=1.5,eta=1", 2);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "got %s (%s)", lm_verdict_name(r.verdict), r.cfg[0].detail);
    lm_claim_result_clear(&r);
    lm_test_not_error("mirror/lemma25", "R2,p=3,normalised,eta=0.1", 2);
}
