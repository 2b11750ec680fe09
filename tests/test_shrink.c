/* Shrinking a counterexample (issue 7, part 2), on planted claims whose
 * smallest breaking instance is known:
 *   sizes      a = n d + u (u uniform) against 11.75: breaks iff n d >= 12; from
 *              (n, d) = (16, 8) the greedy bisection must reach (2, 6), and the
 *              draw u must come out cut to one significant bit;
 *   mpfr-guard for n >= 4 a true break of 2^-60 that double misses, below it a
 *              break that only double sees: the shrinker may accept a size only
 *              when MPFR confirms the break, so it must stop at n = 4;
 *   iterations a trajectory whose first break is at t = 7: T shrinks to 8.
 * Claim files checked here: none (planted claims; the CLI cases use
 * lemmas/dynamics/lemma3.c). */
#include "lm_verify.h"
#include "test_support.h"
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

static int eval_shrink(lm_eval *ev)
{
    lm_num a, b, e;
    lm_num_inits(ev->ctx, &a, &b, &e, (lm_num *)NULL);
    if (ev->config == 0) {
        int n = lm_size(ev, "n", 16, 1, 64), d = lm_size(ev, "d", 8, 2, 64);
        double u = lm_rng_uniform(lm_eval_rng(ev));
        lm_data_d(ev, "u", u);
        lm_num_set_d(&a, (double)(n * d));
        lm_num_add_d(&a, &a, u);
        lm_num_set_d(&b, 11.75);
        lm_obs_le(ev, -1, &a, &b, 0.0, "n d + u <= 11.75");
    } else if (ev->config == 1) {
        int n = lm_size(ev, "n", 9, 1, 64);
        if (n >= 4) { /* true break at 2^-60 */
            lm_num_set_d(&a, 1.0);
            lm_num_set_d(&e, ldexp(1.0, -60));
            lm_num_add(&a, &a, &e);
            lm_num_set_d(&b, 1.0);
            lm_num_sub(&b, &b, &e);
        } else { /* double-only break: exactly a = b */
            lm_num_set_d(&a, 1.0 + ldexp(1.0, -52));
            lm_num_set_d(&b, 1.0);
            lm_num_set_d(&e, ldexp(1.0, -53));
            lm_num_add(&b, &b, &e);
            lm_num_add(&b, &b, &e);
        }
        lm_obs_le(ev, -1, &a, &b, 0.0, "guarded");
    } else {
        int T = lm_size(ev, "T", 50, 1, 1000);
        for (int t = 0; t < T && (ev->tmax < 0 || t <= ev->tmax); t++) {
            lm_num_set_d(&a, (double)t);
            lm_num_set_d(&b, 6.5);
            lm_obs_le(ev, t, &a, &b, 0.0, "t <= 6.5");
        }
    }
    lm_num_clears(&a, &b, &e, (lm_num *)NULL);
    return 0;
}

static const char *const cfgs[] = {"sizes", "mpfr-guard", "iterations", NULL};

static lm_claim_result run(const char *config)
{
    static const lm_claim c = {.id = "test/shrink", .title = "planted shrink", .file = __FILE__,
                               .kind = LM_KIND_POINTWISE, .source = "test", .origin = "verbatim",
                               .confidence = "high", .configs = cfgs, .inst_scale = 1.0,
                               .eval = eval_shrink};
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.budget = 2;
    o.only_config = config;
    lm_claim_result r;
    cr_assert_eq(lm_run_claim(&r, &c, &o), 0);
    return r;
}

Test(shrink, reaches_the_known_minimal_sizes)
{
    lm_claim_result r = run("sizes");
    cr_assert_eq(r.verdict, LM_V_VIOLATED);
    const lm_config_result *s = &r.cfg[0];
    cr_assert(strstr(s->shrunk, "n=2 d=6 (was n=16 d=8)"), "sizes: %s", s->shrunk);
    cr_assert(strstr(s->shrunk, "cut to 1 significant bit"), "draws: %s", s->shrunk);
    cr_assert(strstr(s->shrunk_reproduce, "--size n=2 --size d=6 --round 1"), "%s", s->shrunk_reproduce);
    /* the data of the shrunk instance: u cut to one bit is a power of two in (0, 1) */
    cr_assert_not_null(s->shrunk_data);
    double u = 0;
    cr_assert_eq(sscanf(s->shrunk_data, "u\t1\t1\n%lf", &u), 1, "%s", s->shrunk_data);
    int e;
    cr_assert(u > 0 && u < 1 && frexp(u, &e) == 0.5, "u = %.17g", u);
    lm_claim_result_clear(&r);
    r = run("mpfr-guard");
    cr_assert(strstr(r.cfg[0].shrunk, "n=4 (was n=9)"), "guard: %s", r.cfg[0].shrunk);
    lm_claim_result_clear(&r);
    r = run("iterations");
    cr_assert(strstr(r.cfg[0].shrunk, "T=8 (was T=50)"), "iterations: %s", r.cfg[0].shrunk);
    cr_assert(strstr(r.cfg[0].shrunk, "first break at iterate 7"), "%s", r.cfg[0].shrunk);
    lm_claim_result_clear(&r);
    /* all three configurations violated: one counterexample, the worst configuration's */
    r = run(NULL);
    int nshrunk = 0;
    for (int k = 0; k < r.nconfig; k++) nshrunk += r.cfg[k].shrunk[0] != 0;
    cr_assert_eq(nshrunk, 1);
    lm_claim_result_clear(&r);
}

/* a planted claim that dies (an assertion) below n = 3: the shrinker runs candidates in a
 * child process, rejects those and stops at n = 3 */
static int eval_dies(lm_eval *ev)
{
    int n = lm_size(ev, "n", 12, 1, 64);
    if (n < 3) abort();
    lm_obs_le_d(ev, -1, (double)n, 1.0, 0.0, "n <= 1");
    return 0;
}

Test(shrink, a_crashing_candidate_is_rejected)
{
    static const lm_claim c = {.id = "test/dies", .title = "planted crash", .file = __FILE__,
                               .kind = LM_KIND_POINTWISE, .source = "test", .origin = "verbatim",
                               .confidence = "high", .inst_scale = 1.0, .no_replay = 1,
                               .eval = eval_dies};
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.budget = 1;
    lm_claim_result r;
    cr_assert_eq(lm_run_claim(&r, &c, &o), 0);
    cr_assert_eq(r.verdict, LM_V_VIOLATED);
    cr_assert(strstr(r.cfg[0].shrunk, "n=3 (was n=12)"), "%s", r.cfg[0].shrunk);
    cr_assert(strstr(r.cfg[0].shrunk, "rejected: the check died there"), "%s", r.cfg[0].shrunk);
    lm_claim_result_clear(&r);
}

Test(shrink, round_sig_is_exact_and_toward_zero)
{
    cr_assert_eq(lm_round_sig(0.7, 1), 0.5);
    cr_assert_eq(lm_round_sig(-0.7, 2), -0.5);
    cr_assert_eq(lm_round_sig(3.9, 2), 3.0);
    cr_assert_eq(lm_round_sig(1e-300, 1), ldexp(1.0, -997));
    cr_assert_eq(lm_round_sig(0.0, 3), 0.0);
    lm_rng g;
    lm_rng_init(&g, 7);
    lm_rng_set_round(3);
    for (int k = 0; k < 1000; k++) {
        double u = lm_rng_uniform(&g), x = lm_rng_normal(&g);
        cr_assert(u > 0 && u < 1);
        cr_assert_eq(lm_round_sig(u, 3), u);
        cr_assert_eq(lm_round_sig(x, 3), x);
    }
    lm_rng_set_round(0);
}

Test(shrink, cli_rejects_bad_sizes_and_rounding)
{
    char out[4096];
    int rc = lm_test_cli(out, sizeof out, "check dynamics/lemma3 --quick --config 'Z90,sigma-at-M' "
                                          "--instance 10 --size Q=3");
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "no instance of dynamics/lemma3 asked for a size named 'Q'"), "%s", out);
    rc = lm_test_cli(out, sizeof out, "check dynamics/lemma3 --round 99");
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "--round needs"), "%s", out);
    rc = lm_test_cli(out, sizeof out, "check dynamics/lemma3 --size N");
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "--size needs NAME=N"), "%s", out);
}

Test(shrink, dynamics_counterexample_reproduces)
{
    /* the shrunk instance's own command breaks again, at the shrunk sizes */
    char out[8192];
    int rc = lm_test_cli(out, sizeof out, "check dynamics/lemma3 --quick --config 'Z90,sigma-at-M' "
                                          "--instance 10 --size N=1 --size n=1 --size D=1 --size d=1 "
                                          "--size H=1 --round 1 --no-shrink");
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "violated"), "%s", out);
}
