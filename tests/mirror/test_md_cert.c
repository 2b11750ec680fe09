/* tests/mirror/test_md_cert.c -- certifying the violations of trajectory claims from their exact
 * state (lm_claim.h, lm_state_*; the runner's certify()): the runner keeps the state at the
 * iterate of the break and evaluates only that step in ball arithmetic.
 *   - mirror/lemma24 and mirror/lemma25: their violated configurations come out certified, from
 *     the exact Theta(k) of the break;
 *   - the kit really loads the state it is given: a kept state of the wrong shape is refused
 *     (not certified, with the reason);
 *   - on a planted trajectory claim: a state that is not kept, or a deliberately wrong one (at
 *     which the step holds), is never certified; a state with bits beyond double survives the
 *     round trip exactly (the certificate depends on its last bit).
 * Claim files checked here: mirror/lemma24, mirror/lemma25. */
#include "test_support.h"
#include "lm_mdstep.h"
#include <math.h>
#include <string.h>

/* ---------- the mirror claims ---------- */

static lm_claim_result run_cfg(const lm_claim *c, const char *config, int budget, int quick)
{
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.budget = budget;
    o.quick = quick;
    o.only_config = config;
    o.shrink = 0;
    lm_claim_result r;
    cr_assert_eq(lm_run_claim(&r, c, &o), 0, "%s did not run", c->id);
    return r;
}

static void expect_certified(const char *id, const char *config, int budget, int quick)
{
    const lm_claim *c = lm_claim_find(id);
    cr_assert_not_null(c);
    lm_claim_result r = run_cfg(c, config, budget, quick);
    cr_assert_eq(r.nconfig, 1);
    cr_expect_eq(r.cfg[0].verdict, LM_V_VIOLATED, "%s [%s]: %s", id, config, lm_verdict_name(r.cfg[0].verdict));
    cr_expect(r.cfg[0].certified, "%s [%s] not certified: %s", id, config, r.cfg[0].cert_note);
    cr_expect_geq(r.cfg[0].cert_prec, 128, "%s: %d bits", id, r.cfg[0].cert_prec);
    cr_expect(strstr(r.cfg[0].cert_note, "from the exact state at iterate k="), "%s: %s", id, r.cfg[0].cert_note);
    lm_claim_result_clear(&r);
}

Test(md_cert, lemma24_violation_certified_from_the_exact_state)
{
    expect_certified("mirror/lemma24", "R3,p=10,eta=0.1", 8, 1);
}

Test(md_cert, lemma25_violation_certified_from_the_exact_state)
{
    /* its loss first rises at k = 200 of instance 0: the full run length, one instance */
    expect_certified("mirror/lemma25", "R3,p=10,eta=0.1", 4, 0);
}

/* lemma24 whose kept state is replaced by one of the wrong shape: the kit must refuse it */
static int (*real_eval)(lm_eval *ev);
static int eval_bad_state(lm_eval *ev)
{
    int rc = real_eval(ev);
    for (int t = 0; t < 20000; t++)
        if (lm_state_wanted(ev, t)) {
            lm_mat *M = lm_inst_mat(ev, 3, 3);
            lm_state_keep(ev, LM_MDRUN_STATE, M);
            break;
        }
    return rc;
}

Test(md_cert, the_kit_evaluates_the_state_it_is_given)
{
    const lm_claim *c0 = lm_claim_find("mirror/lemma24");
    cr_assert_not_null(c0);
    lm_claim c = *c0;
    real_eval = c0->eval;
    c.eval = eval_bad_state;
    lm_claim_result r = run_cfg(&c, "R3,p=10,eta=0.1", 8, 1);
    cr_assert_eq(r.cfg[0].verdict, LM_V_VIOLATED);
    cr_expect_not(r.cfg[0].certified, "certified from a wrong state: %s", r.cfg[0].cert_note);
    cr_expect(strstr(r.cfg[0].cert_note, "is 3x3"), "%s", r.cfg[0].cert_note);
    lm_claim_result_clear(&r);
}

/* ---------- a planted trajectory: x(0) = 1, x(k+1) = 1.25 x(k), observed x(k+1) <= 3 ----------
 * It first breaks at k = 4 (1.25^5 = 3.05...), exactly in every precision.  Configurations:
 *   honest      keeps x(k): certified from it;
 *   no-keep     keeps nothing: not certified ("was not kept");
 *   wrong-state keeps x(k)/2, at which the step holds: never certified;
 *   fine-state  keeps y(k) = x(k) + 2^-100 (exact in the replay's MPFR, not in double) and, given
 *               it, observes 2^100 (y(k) - x(k)) <= 1 - 2^-150: certified only when y(k) came back
 *               to the last bit. */
enum { HONEST, NO_KEEP, WRONG, FINE };

static int toy_eval(lm_eval *ev)
{
    lm_mat *X = lm_inst_mat(ev, 1, 1), *Y = lm_inst_mat(ev, 1, 1);
    lm_num *x = lm_inst_num(ev), *a = lm_inst_num(ev), *b = lm_inst_num(ev);
    int given = lm_state_given(ev);
    if (given >= 0) {
        if (lm_state_get(ev, ev->config == FINE ? "y(k)" : "x(k)", ev->config == FINE ? Y : X)) return -1;
        if (ev->config == FINE) {
            lm_num_set_d(x, 1.0);
            for (int k = 0; k < given; k++) lm_num_mul_d(x, x, 1.25);
            lm_mat_get(a, Y, 0, 0);
            lm_num_sub(a, a, x);
            lm_num_mul_d(a, a, ldexp(1.0, 100));
            lm_num_set_d(b, 1.0);
            lm_num_add_d(b, b, -ldexp(1.0, -150));
            lm_obs_le(ev, given, a, b, 0.0, "2^100 (y(k) - x(k)) <= 1 - 2^-150");
            return 0;
        }
        lm_mat_get(x, X, 0, 0);
        lm_num_mul_d(a, x, 1.25);
        lm_num_set_d(b, 3.0);
        lm_obs_le(ev, given, a, b, 0.0, "x(k+1) <= 3");
        return 0;
    }
    lm_num_set_d(x, 1.0);
    for (int k = 0; k < 10 && (ev->tmax < 0 || k <= ev->tmax); k++) {
        if (lm_state_wanted(ev, k) && ev->config != NO_KEEP) {
            lm_num_set(a, x);
            if (ev->config == WRONG) lm_num_mul_d(a, a, 0.5);
            lm_mat_set(X, 0, 0, a);
            lm_state_keep(ev, "x(k)", X);
            lm_num_add_d(a, x, ldexp(1.0, -100));
            lm_mat_set(Y, 0, 0, a);
            lm_state_keep(ev, "y(k)", Y);
        }
        lm_num_mul_d(a, x, 1.25);
        lm_num_set_d(b, 3.0);
        lm_obs_le(ev, k, a, b, 0.0, "x(k+1) <= 3");
        lm_num_set(x, a);
    }
    return 0;
}

static const char *const toy_cfgs[] = {"honest", "no-keep", "wrong-state", "fine-state", NULL};

Test(md_cert, planted_trajectory_certified_only_from_its_true_state)
{
    static const lm_claim c = {.id = "test/state", .title = "planted trajectory", .file = __FILE__,
                               .kind = LM_KIND_TRAJECTORY, .source = "test", .origin = "verbatim",
                               .confidence = "high", .configs = toy_cfgs, .inst_scale = 1.0,
                               .certifiable = 1, .state_certifiable = 1, .eval = toy_eval};
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.budget = 1;
    o.shrink = 0;
    lm_claim_result r;
    cr_assert_eq(lm_run_claim(&r, &c, &o), 0);
    cr_assert_eq(r.nconfig, 4);
    for (int k = 0; k < 4; k++) cr_assert_eq(r.cfg[k].verdict, LM_V_VIOLATED, "%s", r.cfg[k].config);
    cr_expect(r.cfg[HONEST].certified, "%s", r.cfg[HONEST].cert_note);
    cr_expect_eq(r.cfg[HONEST].cert_prec, 128);
    cr_expect(strstr(r.cfg[HONEST].cert_note, "from the exact state at iterate k=4"), "%s", r.cfg[HONEST].cert_note);
    cr_expect_not(r.cfg[NO_KEEP].certified, "%s", r.cfg[NO_KEEP].cert_note);
    cr_expect(strstr(r.cfg[NO_KEEP].cert_note, "was not kept"), "%s", r.cfg[NO_KEEP].cert_note);
    cr_expect_not(r.cfg[WRONG].certified, "%s", r.cfg[WRONG].cert_note);
    cr_expect(strstr(r.cfg[WRONG].cert_note, "not certified"), "%s", r.cfg[WRONG].cert_note);
    cr_expect(r.cfg[FINE].certified, "the state lost its last bits: %s", r.cfg[FINE].cert_note);
    lm_claim_result_clear(&r);
}
