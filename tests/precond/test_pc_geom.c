/* tests/test_pc_geom.c -- the geometry and pointwise claims of the preconditioning paper
 * (precond/theorem1.3a, precond/theorem1.3b, precond/lemma2, precond/lemma5, precond/lemma7,
 * precond/lemma8): each claim as stated gives a real verdict (holds), and a deliberately wrong
 * constant or flipped formula comes out violated. */
/* claim files checked here: lemmas/precond/theorem1-3a.c, lemmas/precond/theorem1-3b.c */
#include "test_support.h"

static void wrong(const char *id, const char *set, const char *config, int budget)
{
    const char *sets[] = {set, NULL};
    lm_test_expect(id, sets, config, budget, LM_V_VIOLATED);
}

static void holds(const char *id, int budget)
{
    lm_claim_result r = lm_test_run(id, NULL, NULL, budget);
    cr_expect(r.verdict == LM_V_HOLDS, "%s as stated: got %s (%s)", id, lm_verdict_name(r.verdict),
              r.nconfig ? r.cfg[0].detail : "");
    lm_claim_result_clear(&r);
}

Test(pc_geom, theorem1_3a)
{
    lm_test_not_error("precond/theorem1.3a", NULL, 2);
    holds("precond/theorem1.3a", 2);
    /* alpha above the local infimum 2 s_d (k > d) */
    wrong("precond/theorem1.3a", "alpha_sd=2.5", "k>d (d=4,k=6)", 2);
    /* delta >= sqrt(2 s_d): the saddle theta_sad(d) lies in the tube */
    wrong("precond/theorem1.3a", "delta_sqrt_sd=1.5", "k=d (d=k=3)", 2);
}

Test(pc_geom, theorem1_3b)
{
    lm_test_not_error("precond/theorem1.3b", NULL, 2);
    holds("precond/theorem1.3b", 2);
    /* beta below the sharp local value 4 s_1 */
    wrong("precond/theorem1.3b", "beta_s1=3.9", "k>d (d=4,k=6)", 2);
}

Test(pc_geom, lemma2)
{
    lm_test_not_error("precond/lemma2", NULL, 2);
    holds("precond/lemma2", 2);
    wrong("precond/lemma2", "beta_s1=3.9", "k=d (d=k=3)", 2);
    /* the segment extended past the saddle: the projection changes */
    wrong("precond/lemma2", "seg_t=10", "kappa (d=3,k=5,kappa=1e4)", 2);
}

Test(pc_geom, lemma8)
{
    lm_test_not_error("precond/lemma8", NULL, 4);
    holds("precond/lemma8", 4);
    wrong("precond/lemma8", "coef=1.001", "moderate logits", 4);
    wrong("precond/lemma8", "coef=1.0000001", "large logits (|l|=500)", 4);
    wrong("precond/lemma8", "formula=flipped", NULL, 4);
}

Test(pc_geom, lemma5)
{
    lm_test_not_error("precond/lemma5", NULL, 4);
    holds("precond/lemma5", 4);
    /* a right-hand side below the measured worst ratio (about 0.6) */
    wrong("precond/lemma5", "coef=0.3", "perturbations", 4);
    wrong("precond/lemma5", "coef=0.3", "training sets", 4);
}

Test(pc_geom, lemma7)
{
    lm_test_not_error("precond/lemma7", NULL, 4);
    holds("precond/lemma7", 4);
    /* the operator-norm bound is attained along the top singular pair of B_P */
    wrong("precond/lemma7", "c_op=0.99", "op-norm bound", 4);
    /* A Sigma A^T replaced by A A^T in the (7.2) closed form */
    wrong("precond/lemma7", "formula=nosym", "MGF closed form", 4);
    /* below the threshold the truncated integrals converge */
    wrong("precond/lemma7", "lam_div=0.45", "divergence", 4);
    const char *s[] = {"tau_int=0.05", NULL};
    lm_test_expect("precond/lemma7", s, "op-norm bound", 4, LM_V_ASSUMPTION_FAILED);
}
