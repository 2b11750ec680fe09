/* The verdict semantics of design.md section 2, on planted claims: a break
 * that survives MPFR is violated, one that vanishes is an artifact, NaN is
 * error, unmet hypotheses are assumption-failed, a check that records nothing
 * is error, and the claim verdict is the worst over its configurations. */
#include "lm_verify.h"
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

static lm_claim_result run(const lm_claim *c)
{
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.budget = 4;
    lm_claim_result r;
    cr_assert_eq(lm_run_claim(&r, c, &o), 0);
    return r;
}

/* Configuration 0: a = 1 + 2^-60, b = 1 - 2^-60 both round to 1 in double
 * (a near miss there); MPFR sees the break -> violated.  Configuration 1:
 * a = 1 + 2^-52 exactly, b = (1 + 2^-53) + 2^-53, which double rounds to 1
 * twice (ties to even): double sees a > b, exactly a = b -> artifact. */
static int eval_planted(lm_eval *ev)
{
    lm_num a, b, e;
    lm_num_inits(ev->ctx, &a, &b, &e, (lm_num *)NULL);
    switch (ev->config) {
    case 0: /* true break at 2^-60: double misses it, MPFR confirms -> violated */
        lm_num_set_d(&a, 1.0);
        lm_num_set_d(&e, ldexp(1.0, -60));
        lm_num_add(&a, &a, &e);
        lm_num_set_d(&b, 1.0);
        lm_num_sub(&b, &b, &e);
        break;
    case 1: /* double-only break */
        lm_num_set_d(&a, 1.0 + ldexp(1.0, -52));
        lm_num_set_d(&b, 1.0);
        lm_num_set_d(&e, ldexp(1.0, -53));
        lm_num_add(&b, &b, &e);
        lm_num_add(&b, &b, &e);
        break;
    case 2: /* NaN -> error */
        lm_num_set_d(&a, NAN);
        lm_num_set_d(&b, 1.0);
        break;
    case 3: /* hypotheses never met -> assumption-failed */
        lm_assume(ev, 0, "planted");
        goto done;
    case 4: /* records nothing -> error */
        goto done;
    default: /* clean hold */
        lm_num_set_d(&a, 0.5);
        lm_num_set_d(&b, 1.0);
        break;
    }
    lm_obs_le(ev, -1, &a, &b, 0.0, "planted");
done:
    lm_num_clears(&a, &b, &e, (lm_num *)NULL);
    return 0;
}

static const char *const cfgs[] = {"violated", "artifact", "nan", "assume", "nothing", "holds", NULL};

static lm_claim planted(void)
{
    lm_claim c = {.id = "test/planted", .title = "planted", .file = __FILE__,
                  .kind = LM_KIND_POINTWISE, .source = "test", .origin = "verbatim",
                  .confidence = "high", .configs = cfgs, .inst_scale = 1.0, .eval = eval_planted};
    return c;
}

static lm_verdict verdict_of(const lm_claim_result *r, const char *cfg)
{
    for (int k = 0; k < r->nconfig; k++)
        if (!strcmp(r->cfg[k].config, cfg)) return r->cfg[k].verdict;
    cr_assert_fail("no configuration %s", cfg);
    return LM_V_COUNT;
}

Test(runner, verdict_semantics)
{
    lm_claim c = planted();
    lm_claim_result r = run(&c);
    cr_expect_eq(verdict_of(&r, "violated"), LM_V_VIOLATED, "a break confirmed in MPFR");
    cr_expect_eq(verdict_of(&r, "nan"), LM_V_ERROR, "NaN is never holds");
    cr_expect_eq(verdict_of(&r, "assume"), LM_V_ASSUMPTION_FAILED);
    cr_expect_eq(verdict_of(&r, "nothing"), LM_V_ERROR, "a check that records nothing is a defect");
    cr_expect_eq(verdict_of(&r, "holds"), LM_V_HOLDS);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "the claim is the worst of its configurations");
    /* the confirmed break went through MPFR */
    for (int k = 0; k < r.nconfig; k++)
        if (!strcmp(r.cfg[k].config, "violated")) {
            cr_expect_geq(r.cfg[k].near_misses + r.cfg[k].breaks_double, 1);
            cr_expect(strstr(r.cfg[k].precisions, "mpfr256") != NULL, "%s", r.cfg[k].precisions);
        }
    lm_claim_result_clear(&r);
}

Test(runner, double_only_break_is_artifact)
{
    lm_claim c = planted();
    lm_claim_result r = run(&c);
    lm_verdict v = verdict_of(&r, "artifact");
    for (int k = 0; k < r.nconfig; k++)
        if (!strcmp(r.cfg[k].config, "artifact"))
            cr_expect_eq(v, LM_V_ARTIFACT, "got %s (double breaks %ld, artifacts %ld)",
                         lm_verdict_name(v), r.cfg[k].breaks_double, r.cfg[k].artifacts);
    lm_claim_result_clear(&r);
}

/* a break against a nonpositive right-hand side has ratio +inf; the claim's
 * worst ratio must show it, not the largest finite ratio of another
 * configuration (mirror/lemma24 read "violated, worst 1-2.2e-06" before) */
static int eval_inf(lm_eval *ev)
{
    if (ev->config == 0) lm_obs_le_d(ev, -1, 0.5, 1.0, 0.0, "finite");
    else lm_obs_le_d(ev, -1, 1.0, 0.0, 0.0, "rhs zero");
    return 0;
}

Test(runner, infinite_ratio_is_the_claims_worst)
{
    static const char *const c2[] = {"finite", "rhs-zero", NULL};
    lm_claim c = {.id = "test/inf", .title = "inf", .file = __FILE__, .kind = LM_KIND_POINTWISE,
                  .source = "test", .origin = "verbatim", .confidence = "high", .configs = c2,
                  .inst_scale = 1.0, .eval = eval_inf};
    lm_claim_result r = run(&c);
    cr_expect_eq(r.verdict, LM_V_VIOLATED);
    cr_expect(isinf(r.worst_ratio) && r.worst_ratio > 0, "worst ratio %g", r.worst_ratio);
    cr_expect(strstr(r.reproduce, "rhs-zero") != NULL, "reproduce points at %s", r.reproduce);
    lm_claim_result_clear(&r);
}

/* certification: a planted break survives MPFR and is certified in ball
 * arithmetic at the first precision tried; a break whose check takes an SVD on
 * midpoints is violated but not certifiable; a held claim is never certified */
static int eval_cert(lm_eval *ev)
{
    lm_num a, b, e;
    lm_num_inits(ev->ctx, &a, &b, &e, (lm_num *)NULL);
    lm_num_set_d(&a, 1.0);
    lm_num_set_d(&e, ldexp(1.0, -60));
    lm_num_add(&a, &a, &e); /* 1 + 2^-60 > 1 - 2^-60 */
    lm_num_set_d(&b, 1.0);
    lm_num_sub(&b, &b, &e);
    if (ev->config == 1) { /* the same break, through a decomposition */
        lm_mat *A = lm_mat_new(2, 2, ev->ctx);
        lm_mat_set(A, 0, 0, &a);
        lm_mat_set(A, 1, 1, &e);
        /* singular values and eigenvalues are enclosed rigorously now; eigenvectors are not */
        lm_mat *Q = lm_mat_new(2, 2, ev->ctx);
        lm_num w[2];
        lm_num_inits(ev->ctx, &w[0], &w[1], (lm_num *)NULL);
        lm_mat_symeig(w, Q, A);
        lm_num_set(&a, &w[1]);
        lm_num_clears(&w[0], &w[1], (lm_num *)NULL);
        lm_mat_free(Q);
        lm_mat_free(A);
    }
    if (ev->config == 2) lm_num_add_d(&b, &b, 1.0); /* holds */
    lm_obs_le(ev, -1, &a, &b, 0.0, "planted");
    lm_num_clears(&a, &b, &e, (lm_num *)NULL);
    return 0;
}

Test(runner, violations_are_certified_in_ball_arithmetic)
{
    static const char *const cc[] = {"plain", "through-svd", "holds", NULL};
    lm_claim c = {.id = "test/cert", .title = "cert", .file = __FILE__, .kind = LM_KIND_POINTWISE,
                  .source = "test", .origin = "verbatim", .confidence = "high", .configs = cc,
                  .inst_scale = 1.0, .certifiable = 1, .eval = eval_cert};
    lm_claim_result r = run(&c);
    cr_expect_eq(r.verdict, LM_V_VIOLATED);
    cr_expect(r.certified, "the claim's violation is certified");
    cr_expect_eq(r.cfg[0].verdict, LM_V_VIOLATED);
    cr_expect(r.cfg[0].certified && r.cfg[0].cert_prec == 128, "plain: %s", r.cfg[0].cert_note);
    cr_expect_eq(r.cfg[1].verdict, LM_V_VIOLATED);
    cr_expect(!r.cfg[1].certified && strstr(r.cfg[1].cert_note, "not certifiable") != NULL, "svd: %s",
              r.cfg[1].cert_note);
    cr_expect_eq(r.cfg[2].verdict, LM_V_HOLDS);
    cr_expect(!r.cfg[2].certified);
    lm_claim_result_clear(&r);
    /* a claim not audited for ball arithmetic is never certified */
    c.certifiable = 0;
    r = run(&c);
    cr_expect_eq(r.verdict, LM_V_VIOLATED);
    cr_expect(!r.certified && strstr(r.cfg[0].cert_note, "not audited") != NULL, "%s", r.cfg[0].cert_note);
    lm_claim_result_clear(&r);
}

/* every registered claim names its file (the report weaves it, incremental verify hashes it) */
Test(runner, every_claim_names_an_existing_file)
{
    for (int k = 0; k < lm_registry_count; k++) {
        const lm_claim *c = lm_registry[k];
        cr_assert_not_null(c->file, "%s has no .file = __FILE__", c->id);
        FILE *f = fopen(c->file, "r");
        cr_assert_not_null(f, "%s: cannot open %s", c->id, c->file);
        fclose(f);
    }
}

/* The replay horizon (issue 15's red CI): an instance with a timed break and a whole-run one
 * is replayed in MPFR only up to the timed break when that confirms it (a whole-run replay of
 * a long trajectory is what made implicit/lemma1 take 81 s); when the timed break turns out
 * to be rounding, the whole run is replayed, so the whole-run break is still judged. */
static int whole_replays; /* MPFR evaluations with no horizon */
static int eval_mixed(lm_eval *ev)
{
    lm_num a, b, e;
    lm_num_inits(ev->ctx, &a, &b, &e, (lm_num *)NULL);
    if (ev->ctx->backend == LM_MPFR && ev->tmax < 0) whole_replays++;
    if (ev->config == 0) { /* a timed real break at t = 1 */
        lm_num_set_d(&a, 2.0);
        lm_num_set_d(&b, 1.0);
    } else { /* a timed double-only break at t = 1 (as configuration "artifact" above) */
        lm_num_set_d(&a, 1.0 + ldexp(1.0, -52));
        lm_num_set_d(&b, 1.0);
        lm_num_set_d(&e, ldexp(1.0, -53));
        lm_num_add(&b, &b, &e);
        lm_num_add(&b, &b, &e);
    }
    lm_obs_le(ev, 1, &a, &b, 0.0, "timed");
    if (ev->tmax < 0) /* a whole-run observation, made only when the whole run is evaluated */
        lm_obs_le_d(ev, -1, ev->config == 2 ? 0.5 : 3.0, 1.0, 0.0, "whole run");
    lm_num_clears(&a, &b, &e, (lm_num *)NULL);
    return 0;
}

Test(runner, replay_goes_to_the_timed_break_and_falls_back_to_the_whole_run)
{
    static const char *const mc[] = {"timed real", "timed rounding, whole real", "timed rounding, whole holds",
                                     NULL};
    lm_claim c = {.id = "test/mixed", .title = "planted", .file = __FILE__, .kind = LM_KIND_TRAJECTORY,
                  .source = "test", .origin = "verbatim", .confidence = "high", .configs = mc,
                  .inst_scale = 1.0, .eval = eval_mixed};
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.budget = 1;
    o.shrink = 0;
    whole_replays = 0;
    o.only_config = mc[0];
    lm_claim_result r;
    cr_assert_eq(lm_run_claim(&r, &c, &o), 0);
    cr_expect_eq(r.verdict, LM_V_VIOLATED);
    cr_expect_eq(whole_replays, 0, "the timed break confirmed it: no whole-run replay");
    lm_claim_result_clear(&r);
    o.only_config = mc[1];
    cr_assert_eq(lm_run_claim(&r, &c, &o), 0);
    cr_expect_eq(r.verdict, LM_V_VIOLATED, "the whole-run break is judged although the timed one was rounding");
    cr_expect_eq(whole_replays, 1);
    lm_claim_result_clear(&r);
    o.only_config = mc[2];
    cr_assert_eq(lm_run_claim(&r, &c, &o), 0);
    cr_expect_eq(r.verdict, LM_V_ARTIFACT, "got %s", lm_verdict_name(r.verdict));
    lm_claim_result_clear(&r);
}
