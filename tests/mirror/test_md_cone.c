/* tests/test_md_cone.c -- the mirror-descent cone lemmas (mirror/lemma19, 20, 21) and the
 * certified sign of the gradient correlation (lm_mdsign.h). */
#include "test_support.h"
#include "lm_mdsign.h"
#include <math.h>

/* ---------- the sign routine ---------- */

/* -<grad L(W), M> from the core gradient (scaled, so its sign survives any underflow) */
static int core_sign(const lm_mddata *D, const lm_mat *W, const lm_mat *M, const lm_mat *Msub, int prec)
{
    lm_ctx c = lm_ctx_mpfr(prec);
    lm_mddata *Dc = lm_md_data_convert(D, &c);
    lm_mat *Wc = lm_mat_new(D->d, D->d, &c), *Mc = lm_mat_new(D->d, D->d, &c), *G = lm_mat_new(D->d, D->d, &c);
    lm_mat_copy(Wc, W);
    lm_mat_copy(Mc, M);
    if (Msub) {
        lm_mat *S = lm_mat_new(D->d, D->d, &c);
        lm_mat_copy(S, Msub);
        lm_mat_sub(Mc, Mc, S);
        lm_mat_free(S);
    }
    lm_attn_fwd *F = lm_md_fwd_new(Dc);
    cr_assert_eq(lm_md_forward(F, Dc, Wc, LM_ATTN_LOGISTIC), 0);
    lm_num ls, v;
    lm_num_inits(&c, &ls, &v, (lm_num *)NULL);
    lm_md_grad_scaled(G, &ls, F, Dc);
    lm_mat_dot(&v, G, Mc);
    int s = -lm_num_sgn(&v);
    lm_num_clears(&ls, &v, (lm_num *)NULL);
    lm_attn_fwd_free(F);
    lm_mat_free(Wc);
    lm_mat_free(Mc);
    lm_mat_free(G);
    lm_md_data_free(Dc);
    return s;
}

/* an R1 instance (3,4,4) and a direction on the cone level mu_0 */
static void cone_point(lm_mdcone *C, lm_mat **U, uint64_t seed, double p)
{
    lm_ctx cd = lm_ctx_double();
    lm_rng g;
    lm_rng_init(&g, seed);
    char why[300];
    cr_assert_eq(lm_mdcone_setup(C, &g, &cd, 3, 4, 4, p, 0, why, sizeof why), 0, "%s", why);
    lm_mat *E = lm_mat_new(4, 4, &cd);
    lm_mat_randn(E, &g, 1.0);
    *U = lm_mat_new(4, 4, &cd);
    double rho;
    cr_assert_eq(lm_md_cone_dir(*U, &rho, C->Wbar, E, p, C->k.mu0), 0);
    lm_mat_free(E);
}

Test(md_cone, certified_sign_where_the_naive_double_formula_is_wrong)
{
    /* the catalogue: at ||W||_p = 160 ||W_mm||_p the naive double formula returned the wrong
     * sign of -<grad L, Wbar_mm>; find such a case and check that the certified routine gets the
     * sign of the 1024-bit core gradient */
    int found = 0;
    for (uint64_t seed = 1; seed <= 40 && !found; seed++) {
        lm_mdcone C;
        lm_mat *U;
        cone_point(&C, &U, 900 + seed, 2.0);
        lm_mat *W = lm_mat_dup(U);
        lm_mat_scale_d(W, U, 160.0 * C.k.wnorm);
        lm_md_sign s;
        cr_assert_eq(lm_md_sign_decide(&s, C.D, W, C.Wbar, NULL, LM_ATTN_LOGISTIC, 4096), 0);
        cr_assert(s.decided);
        double naive = lm_md_corr_naive_d(C.D, W, C.Wbar);
        if ((naive > 0) != (s.sign > 0)) {
            found = 1;
            cr_expect_eq(s.sign, core_sign(C.D, W, C.Wbar, NULL, 1024), "certified vs 1024-bit core");
            cr_expect_eq(s.sign, 1, "in the cone the correlation is positive (Lemma 20)");
            cr_expect_geq(s.prec, 64);
            cr_expect_lt(s.logabs, -100.0, "the value is e^-160-small: %g", s.logabs);
        }
        lm_mat_free(W);
        lm_mat_free(U);
        lm_mdcone_clear(&C);
    }
    cr_expect(found, "no seed where the naive double formula has the wrong sign");
}

Test(md_cone, precision_is_raised_until_the_sign_is_certain)
{
    /* M = Wbar_mm - c E with c chosen so that the value cancels to ~1e-16 of its terms:
     * 64 bits cannot decide, the routine must go higher and agree with the core at 1024 bits */
    lm_mdcone C;
    lm_mat *U;
    cone_point(&C, &U, 77, 1.5);
    lm_ctx cd = lm_ctx_double();
    lm_rng g;
    lm_rng_init(&g, 78);
    lm_mat *W = lm_mat_dup(U), *E = lm_mat_new(4, 4, &cd), *S = lm_mat_new(4, 4, &cd);
    lm_mat_scale_d(W, U, 5.0 * C.k.wnorm);
    lm_mat_randn(E, &g, 1.0);
    lm_md_sign s1, s2, s;
    cr_assert_eq(lm_md_sign_decide(&s1, C.D, W, C.Wbar, NULL, LM_ATTN_LOGISTIC, 4096), 0);
    cr_assert_eq(lm_md_sign_decide(&s2, C.D, W, E, NULL, LM_ATTN_LOGISTIC, 4096), 0);
    cr_assert(s1.decided && s2.decided && s1.sign != 0 && s2.sign != 0);
    double cc = s1.sign * s2.sign * exp(s1.logabs - s2.logabs);
    lm_mat_scale_d(S, E, cc);
    cr_assert_eq(lm_md_sign_decide(&s, C.D, W, C.Wbar, S, LM_ATTN_LOGISTIC, 4096), 0);
    cr_assert(s.decided, "undecided up to %d bits", s.prec_max);
    cr_expect_geq(s.prec, 128, "needed only %d bits (relative size %g)", s.prec, s.relmag);
    cr_expect_lt(s.relmag, 1e-12, "no cancellation happened: %g", s.relmag);
    cr_expect_eq(s.sign, core_sign(C.D, W, C.Wbar, S, 1024));
    lm_mat_free(W);
    lm_mat_free(E);
    lm_mat_free(S);
    lm_mat_free(U);
    lm_mdcone_clear(&C);
}

Test(md_cone, correlation_matches_the_core_gradient)
{
    lm_mdcone C;
    lm_mat *U;
    cone_point(&C, &U, 31, 3.0);
    lm_ctx c = lm_ctx_mpfr(256);
    lm_mddata *Dc = lm_md_data_convert(C.D, &c);
    lm_mat *W = lm_mat_new(4, 4, &c), *G = lm_mat_new(4, 4, &c), *M = lm_mat_new(4, 4, &c);
    lm_mat_copy(W, U);
    lm_mat_scale_d(W, W, 3.0 * C.k.wnorm);
    lm_mat_copy(M, C.Wbar);
    lm_attn_fwd *F = lm_md_fwd_new(Dc);
    cr_assert_eq(lm_md_forward(F, Dc, W, LM_ATTN_LOGISTIC), 0);
    lm_md_grad(G, F, Dc);
    lm_num a, b;
    lm_num_inits(&c, &a, &b, (lm_num *)NULL);
    lm_mat_dot(&a, G, M);
    lm_num_neg(&a, &a);
    lm_md_corr o;
    lm_md_corr_init(&o, &c);
    cr_assert_eq(lm_md_corr_eval(&o, Dc, W, M, NULL, LM_ATTN_LOGISTIC), 0);
    lm_num_exp(&b, &o.logscale);
    lm_num_mul(&b, &b, &o.tot);
    lm_num_sub(&b, &b, &a);
    lm_num_div(&b, &b, &a);
    cr_expect_lt(fabs(lm_num_get_d(&b)), 1e-60, "relative difference %g", lm_num_get_d(&b));
    lm_num_sub(&b, &o.pos, &o.neg);
    lm_num_sub(&b, &b, &o.tot);
    cr_expect_lt(fabs(lm_num_get_d(&b)), 1e-60, "pos - neg != tot");
    lm_md_corr_clear(&o);
    lm_num_clears(&a, &b, (lm_num *)NULL);
    lm_attn_fwd_free(F);
    lm_mat_free(W);
    lm_mat_free(G);
    lm_mat_free(M);
    lm_md_data_free(Dc);
    lm_mat_free(U);
    lm_mdcone_clear(&C);
}

Test(md_cone, accurate_bregman_near_equal_arguments)
{
    /* D_psi(Wbar_mm, U) at the tiny level mu_0 of p = 6: the series form in double agrees with
     * the closed sum at 512 bits, the closed sum in double does not */
    lm_ctx cd = lm_ctx_double(), cm = lm_ctx_mpfr(512);
    lm_rng g;
    lm_rng_init(&g, 5);
    lm_mddata *D = lm_md_gen_i2(&cd);
    lm_md_svm s;
    cr_assert_eq(lm_md_svm_solve(&s, D, 6.0, 0), LM_MDSVM_OK);
    lm_mat *Wb = lm_mat_dup(s.W), *E = lm_mat_new(3, 3, &cd), *U = lm_mat_new(3, 3, &cd);
    lm_md_normalize(Wb, 6.0);
    lm_mat_randn(E, &g, 1.0);
    double rho;
    cr_assert_eq(lm_md_cone_dir(U, &rho, Wb, E, 6.0, 1e-14), 0);
    lm_num acc, naive, ref;
    lm_num_inits(&cd, &acc, &naive, (lm_num *)NULL);
    lm_num_init(&ref, &cm);
    lm_mat *Wm = lm_mat_new(3, 3, &cm), *Um = lm_mat_new(3, 3, &cm);
    lm_mat_copy(Wm, Wb);
    lm_mat_copy(Um, U);
    lm_md_breg_acc(&acc, Wb, U, 6.0);
    lm_md_bregman(&naive, Wb, U, 6.0);
    lm_md_bregman(&ref, Wm, Um, 6.0);
    double r = lm_num_get_d(&ref);
    cr_expect_float_eq(r, 1e-14, 1e-19, "level %g", r);
    cr_expect_lt(fabs(lm_num_get_d(&acc) / r - 1.0), 1e-12, "accurate: %g vs %g", lm_num_get_d(&acc), r);
    cr_expect_gt(fabs(lm_num_get_d(&naive) / r - 1.0), 1e-6, "the closed sum was accurate after all");
    /* the same at 512 bits through the series */
    lm_md_breg_acc(&ref, Wm, Um, 6.0);
    cr_expect_lt(fabs(lm_num_get_d(&ref) / r - 1.0), 1e-30);
    lm_num_clears(&acc, &naive, &ref, (lm_num *)NULL);
    lm_mat_free(Wm);
    lm_mat_free(Um);
    lm_mat_free(Wb);
    lm_mat_free(E);
    lm_mat_free(U);
    lm_md_svm_clear(&s);
    lm_md_data_free(D);
}

Test(md_cone, reconstructed_rdelta_on_i2)
{
    /* I2 at p = 2: delta = 1/6, two supports with score gap 1, one non-support with gap 2 */
    lm_ctx cd = lm_ctx_double();
    lm_mdcone C;
    char why[300];
    cr_assert_eq(lm_mdcone_setup(&C, NULL, &cd, 1, 4, 3, 2.0, 2, why, sizeof why), 0, "%s", why);
    cr_expect_float_eq(C.k.delta, 1.0 / 6.0, 1e-12);
    double R, c20;
    cr_assert_eq(lm_mdcone_rdelta(&R, &c20, &C, 0, LM_ATTN_LOGISTIC, why, sizeof why), 0, "%s", why);
    /* C3 dominates: log(8 (T-1)^2 a_hi Gamma+ / (a_lo gbar)) / (1 - delta/2), a_hi/a_lo = 4/3, Gamma+ = 2 */
    double want = log(8.0 * 9.0 * (4.0 / 3.0) * 2.0 / 1.0) / (1.0 - 1.0 / 12.0) * C.k.wnorm;
    cr_expect_float_eq(R, want, 1e-12, "R_delta %g vs %g", R, want);
    cr_expect_gt(c20, 0.0);
    lm_mdcone_clear(&C);
}

/* ---------- mirror/lemma19 ---------- */

Test(md_cone, lemma19_half_delta_removed_is_violated)
{
    const char *sets[] = {"half_scale=0", NULL};
    lm_test_expect("mirror/lemma19", sets, "(c) R1 boundary directions", 2, LM_V_VIOLATED);
}

Test(md_cone, lemma19_delta_tripled_is_violated)
{
    const char *sets[] = {"delta_scale=3", NULL};
    lm_test_expect("mirror/lemma19", sets, "(d) I2 samples and boundary directions", 2, LM_V_VIOLATED);
}

Test(md_cone, lemma19_eps_halved_is_violated)
{
    const char *sets[] = {"eps_scale=0.5", NULL};
    lm_test_expect("mirror/lemma19", sets, "(a) eps_p bound, random pairs", 4, LM_V_VIOLATED);
}

Test(md_cone, lemma19_as_stated_not_error)
{
    lm_test_not_error("mirror/lemma19", "(a) eps_p bound, random pairs", 4);
    lm_test_not_error("mirror/lemma19", "(b) R1 cone samples", 2);
    lm_test_not_error("mirror/lemma19", "(d) I2 samples and boundary directions", 2);
}

/* ---------- mirror/lemma20 ---------- */

Test(md_cone, lemma20_slower_envelope_is_violated)
{
    const char *sets[] = {"expo_scale=0.5", NULL};
    lm_test_expect("mirror/lemma20", sets, "R1 alpha=argmax", 2, LM_V_VIOLATED);
}

Test(md_cone, lemma20_flipped_sign_is_violated)
{
    const char *sets[] = {"sign=-1", NULL};
    lm_test_expect("mirror/lemma20", sets, "R0 instance I2", 2, LM_V_VIOLATED);
}

Test(md_cone, lemma20_as_stated_not_error)
{
    lm_test_not_error("mirror/lemma20", "R1 alpha=argmax", 2);
    lm_test_not_error("mirror/lemma20", "R0 instance I2", 2);
    lm_test_not_error("mirror/lemma20", "R1 trajectory (l_p-AttGD)", 2);
}

Test(md_cone, lemma20_holds_on_i2)
{
    lm_claim_result r = lm_test_run("mirror/lemma20", NULL, "R0 instance I2", 2);
    cr_expect_eq(r.verdict, LM_V_HOLDS, "got %s (%s)", lm_verdict_name(r.verdict), r.cfg[0].detail);
    lm_claim_result_clear(&r);
}

/* ---------- mirror/lemma21 ---------- */

Test(md_cone, lemma21_faster_decay_is_inconsistent)
{
    const char *sets[] = {"exponent=3", NULL};
    lm_test_expect("mirror/lemma21", sets, "R1 alpha=argmax", 2, LM_V_INCONSISTENT);
}

Test(md_cone, lemma21_as_stated_not_error)
{
    lm_test_not_error("mirror/lemma21", "R1 alpha=argmax", 2);
    lm_test_not_error("mirror/lemma21", "R0 instance I2", 2);
}
