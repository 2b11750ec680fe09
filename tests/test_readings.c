/* Readings, vacuous verdicts and mutants (issue 16), on planted claims and on the
 * registry:
 *   - every claim declares one reading per configuration (or none: all `paper`), at least
 *     one of them `paper`, and every configuration's parameter values parse;
 *   - the claim's verdict is the worst over its `paper` configurations; the repaired and
 *     probe readings' verdicts are kept beside it, and a configuration's values reach it;
 *   - an instance that held only vacuously is never a pass: all vacuous -> `vacuous`;
 *   - `--mutate scale=F` multiplies every right-hand side, `--mutate flip` reverses every
 *     inequality, in every observation kind (lm_obs_le, lm_obs_le_log, lm_obs_le_d). */
#include "lm_stats.h"
#include "test_support.h"
#include <math.h>

Test(readings, every_claim_has_a_paper_reading_and_its_values_parse)
{
    int nrep = 0;
    for (int i = 0; i < lm_registry_count; i++) {
        const lm_claim *c = lm_registry[i];
        int nc = lm_claim_nconfigs(c), nr = lm_claim_nreadings(c);
        cr_assert(c->readings == NULL || nr == nc, "%s declares %d readings for %d configurations", c->id, nr,
                  nc);
        int paper = 0;
        for (int k = 0; k < nc; k++) {
            lm_reading rd = lm_claim_reading(c, k);
            paper += rd.kind == LM_READ_PAPER;
            if (rd.kind != LM_READ_PAPER) nrep++;
            /* every configuration says, in one sentence, what it tests (the report and --json
             * show it beside the verdict): plain text, one line, short enough to be kept whole
             * (lm_config_result.reading_note) */
            cr_assert(rd.note && *rd.note, "%s configuration %s (%s): no sentence saying what it tests", c->id,
                      lm_claim_config(c, k), lm_reading_name(rd.kind));
            cr_assert(strlen(rd.note) <= 190, "%s configuration %s: its sentence has %zu characters (at most 190)",
                      c->id, lm_claim_config(c, k), strlen(rd.note));
            cr_assert(!strpbrk(rd.note, "\n\t\\"), "%s configuration %s: its sentence is not one line of plain text",
                      c->id, lm_claim_config(c, k));
            double par[128];
            char err[256];
            cr_assert_eq(lm_claim_config_params(c, k, par, err, sizeof err), 0, "%s", err);
        }
        cr_assert_gt(paper, 0, "%s has no configuration that reads the paper as printed", c->id);
    }
    cr_log_info("%d repaired or probe configurations", nrep);
}

/* planted: a = x * 0.5, b = 1 (held with ratio 0.5) through each observation kind; the
 * "repaired" configuration sets x = 1 (tight), the "broken" probe x = 4 (violated) */
static int eval_planted(lm_eval *ev)
{
    double x = lm_par(ev, "x");
    int kind = lm_par_i(ev, "obs");
    if (ev->config == 3) lm_vacuous(ev, "planted: hypothesis never met");
    lm_num a, b;
    lm_num_inits(ev->ctx, &a, &b, (lm_num *)NULL);
    lm_num_set_d(&a, 0.5 * x);
    lm_num_set_d(&b, 1.0);
    if (kind == 0) lm_obs_le(ev, -1, &a, &b, 0.0, "planted");
    else if (kind == 1) {
        lm_num_log(&a, &a);
        lm_num_log(&b, &b);
        lm_obs_le_log(ev, -1, &a, &b, 0.0, "planted (log)");
    } else
        lm_obs_le_d(ev, -1, 0.5 * x, 1.0, 0.0, "planted (double)");
    lm_num_clears(&a, &b, (lm_num *)NULL);
    return 0;
}

static const char *const cfgs[] = {"paper", "repaired", "broken probe", "vacuous", NULL};
static const lm_reading rds[] = {{LM_READ_PAPER, NULL, NULL},
                                 {LM_READ_REPAIRED, "x = 2", "x=2"},
                                 {LM_READ_PROBE, "x = 4, beyond the hypotheses", "x=4"},
                                 {LM_READ_PAPER, "a hypothesis never met", NULL},
                                 LM_READINGS_END};
static const lm_param_def pars[] = {{"x", 1.0, "multiplies a", NULL, "[0, 100]"},
                                    {"obs", 0, "observation kind", "le|log|d", NULL},
                                    {NULL, 0, NULL, NULL, NULL}};

static lm_claim planted(void)
{
    lm_claim c = {.id = "test/readings", .title = "planted", .file = __FILE__, .kind = LM_KIND_POINTWISE,
                  .source = "test", .origin = "verbatim", .confidence = "high", .configs = cfgs,
                  .readings = rds, .params = pars, .inst_scale = 1.0, .eval = eval_planted};
    return c;
}

static lm_claim_result run(const lm_claim *c, int obs, double scale, int flip, const char *only)
{
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.budget = 2;
    o.shrink = 0;
    o.only_config = only;
    o.set_name[0] = "obs";
    o.set_val[0] = obs;
    o.nset = 1;
    o.mutate_scale = scale;
    o.mutate_flip = flip;
    lm_claim_result r;
    cr_assert_eq(lm_run_claim(&r, c, &o), 0);
    return r;
}

Test(readings, verdict_is_the_paper_readings_and_the_others_are_kept_beside)
{
    lm_claim c = planted();
    for (int obs = 0; obs < 3; obs++) {
        lm_claim_result r = run(&c, obs, 1.0, 0, NULL);
        cr_assert_eq(r.nconfig, 4);
        cr_assert_eq(r.cfg[0].verdict, LM_V_HOLDS);
        cr_assert_float_eq(r.cfg[0].worst_ratio, 0.5, 1e-12);
        cr_assert_eq(r.cfg[1].reading, LM_READ_REPAIRED);
        cr_assert_float_eq(r.cfg[1].worst_ratio, 1.0, 1e-12, "the configuration's x=2 reached it");
        cr_assert_eq(r.cfg[2].verdict, LM_V_VIOLATED, "obs %d: probe x=4 breaks", obs);
        cr_assert_eq(r.cfg[3].verdict, LM_V_VACUOUS, "obs %d: got %s", obs, lm_verdict_name(r.cfg[3].verdict));
        cr_assert(strstr(r.cfg[3].detail, "never met"), "%s", r.cfg[3].detail);
        /* paper readings: holds and vacuous -> vacuous; the probe's violation stays beside */
        cr_assert_eq(r.verdict, LM_V_VACUOUS, "obs %d: got %s", obs, lm_verdict_name(r.verdict));
        cr_assert_eq(r.probe_verdict, LM_V_VIOLATED);
        cr_assert_eq(r.repaired_verdict, LM_V_HOLDS);
        cr_assert_float_eq(r.worst_ratio, 0.5, 1e-12, "the worst ratio is the paper readings'");
        lm_claim_result_clear(&r);
    }
    /* --config picking a probe alone: its verdict is the run's */
    lm_claim_result r = run(&c, 0, 1.0, 0, "broken probe");
    cr_assert_eq(r.verdict, LM_V_VIOLATED);
    lm_claim_result_clear(&r);
}

Test(readings, scale_and_flip_mutants_in_every_observation_kind)
{
    lm_claim c = planted();
    for (int obs = 0; obs < 3; obs++) {
        /* a = 0.5 <= b: scale 0.25 makes b = 0.25 < a: killed; scale 0.75 does not */
        lm_claim_result r = run(&c, obs, 0.25, 0, "paper");
        cr_assert_eq(r.verdict, LM_V_VIOLATED, "obs %d scale: got %s", obs, lm_verdict_name(r.verdict));
        cr_assert_float_eq(r.worst_ratio, 2.0, 1e-12);
        cr_assert_str_eq(r.mutation, "scale=0.25");
        lm_claim_result_clear(&r);
        r = run(&c, obs, 0.75, 0, "paper");
        cr_assert_eq(r.verdict, LM_V_HOLDS, "obs %d scale 0.75", obs);
        lm_claim_result_clear(&r);
        /* flip: b <= a is 1 <= 0.5: killed; flipped at x = 2 (a = b) ties: holds */
        r = run(&c, obs, 1.0, 1, "paper");
        cr_assert_eq(r.verdict, LM_V_VIOLATED, "obs %d flip: got %s", obs, lm_verdict_name(r.verdict));
        cr_assert_str_eq(r.mutation, "flip");
        cr_assert(strstr(r.reproduce, "--mutate flip"), "%s", r.reproduce);
        lm_claim_result_clear(&r);
        r = run(&c, obs, 1.0, 1, "repaired");
        cr_assert_eq(r.verdict, LM_V_HOLDS, "obs %d flip at equality", obs);
        lm_claim_result_clear(&r);
    }
}

Test(readings, cli_check_mutate_and_reading)
{
    char out[1 << 16];
    int rc = lm_test_cli(out, sizeof out, "check dynamics/lemma1 --quick --json --mutate flip");
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "\"reading\":\"paper\""), "%s", out);
    cr_assert(strstr(out, "\"mutation\":\"flip\""), "%s", out);
    cr_assert(strstr(out, "\"verdict\":\"violated\""), "%s", out);
    rc = lm_test_cli(out, sizeof out, "check dynamics/lemma1 --quick --mutate scale=0");
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "--mutate needs flip or scale=F"), "%s", out);
    rc = lm_test_cli(out, sizeof out, "check dynamics/lemma1 --quick --mutate scale=nan");
    cr_assert_eq(rc, 2, "%s", out);
    rc = lm_test_cli(out, sizeof out, "check dynamics/lemma1 --quick --mutate bogus");
    cr_assert_eq(rc, 2, "%s", out);
    rc = lm_test_cli(out, sizeof out, "params dynamics/lemma1");
    cr_assert(strstr(out, "paper"), "%s", out);
}

/* lm_mutate on the planted claim (paper configuration only): a = 0.5 x <= 1 with x a
 * constant; scale (worst 0.5 -> F = 0.25) and flip are killed, x moved past its sharpest
 * value (2) is killed; the cheap mode agrees with the full one */
static const lm_param_def mpars[] = {{"x", 1.0, "multiplies a", NULL, "constant [0.001, 100]"},
                                     {"obs", 0, "observation kind", "le|log|d", NULL},
                                     {NULL, 0, NULL, NULL, NULL}};

Test(readings, mutate_kills_the_standard_mutants_of_a_sound_check)
{
    static const char *const one[] = {"paper", NULL};
    lm_claim c = {.id = "test/mutants", .title = "planted", .file = __FILE__, .kind = LM_KIND_POINTWISE,
                  .source = "test", .origin = "verbatim", .confidence = "high", .configs = one,
                  .params = mpars, .inst_scale = 1.0, .eval = eval_planted};
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.budget = 2;
    for (int cheap = 0; cheap < 2; cheap++) {
        lm_mutation_report *mr = malloc(sizeof *mr);
        cr_assert_eq(lm_mutate(mr, &c, &o, NULL, cheap), 0);
        cr_assert_eq(mr->stated, LM_V_HOLDS);
        cr_assert_eq(mr->run, 3, "cheap %d: %d mutants", cheap, mr->run); /* scale, flip, x */
        cr_assert_eq(mr->killed, 3, "cheap %d: survivors: %s", cheap, mr->note);
        cr_assert_str_eq(mr->m[2].kind, "constant");
        free(mr);
    }
    /* the cheap walk goes past 16-fold: from x = 0.001 (x16 = 0.016 passes) on by 256 and 1e4 in
     * the direction that raised the worst ratio, to x = 10, which breaks */
    lm_param_def weak[3];
    memcpy(weak, mpars, sizeof weak);
    weak[0].def = 0.001;
    c.params = weak;
    lm_mutation_report *mr = malloc(sizeof *mr);
    cr_assert_eq(lm_mutate(mr, &c, &o, NULL, 1), 0);
    cr_assert_eq(mr->killed, 3, "cheap: the walk reaches x = 10; %s", mr->note);
    cr_assert_float_eq(mr->m[2].value, 10.0, 1e-9, "killed at %g", mr->m[2].value);
    free(mr);
    /* a constant that cannot reach its sharpest value inside its declared range survives, and
     * the survivor says how far it went */
    weak[0].range = "constant [1e-6, 0.1]";
    mr = malloc(sizeof *mr);
    cr_assert_eq(lm_mutate(mr, &c, &o, NULL, 1), 0);
    cr_assert_eq(mr->killed, 2, "cheap: only scale and flip kill; %s", mr->note);
    cr_assert(strstr(mr->note, "x past its sharpest survives"), "%s", mr->note);
    cr_assert(strstr(mr->m[2].note, "moved as far as"), "%s", mr->m[2].note);
    free(mr);
}

Test(readings, cli_mutate)
{
    char out[1 << 16];
    int rc = lm_test_cli(out, sizeof out, "mutate precond/lemma1.2 --quick --json");
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert(strstr(out, "\"mutants\":") && strstr(out, "\"kind\":\"scale\""), "%s", out);
    rc = lm_test_cli(out, sizeof out, "mutate");
    cr_assert_eq(rc, 2, "%s", out);
    rc = lm_test_cli(out, sizeof out, "mutate no/such --quick");
    cr_assert_eq(rc, 2, "%s", out);
    cr_assert(strstr(out, "unknown claim id"), "%s", out);
    rc = lm_test_cli(out, sizeof out, "mutate --paper nosuch");
    cr_assert_eq(rc, 2, "%s", out);
    rc = lm_test_cli(out, sizeof out, "mutate precond/lemma1.2 --budget 0");
    cr_assert_eq(rc, 2, "%s", out);
}

/* exponent mutants: a = 0.5 <= b = 0.6 * 2^(1 - p), claimed p = 1.  p = 2 breaks (killed),
 * p = 0 is weaker (implied): counted as 1 of 1 */
static int eval_exp(lm_eval *ev)
{
    lm_obs_le_d(ev, -1, 0.5, 0.6 * pow(2.0, 1.0 - lm_par(ev, "p")), 0.0, "planted exponent");
    return 0;
}

Test(readings, exponent_mutants_count_only_the_stronger_direction)
{
    static const lm_param_def ep[] = {{"p", 1.0, "claimed decay", NULL, "exponent [-5, 5]"},
                                      {NULL, 0, NULL, NULL, NULL}};
    lm_claim c = {.id = "test/exponent", .title = "planted", .file = __FILE__, .kind = LM_KIND_RATE,
                  .source = "test", .origin = "verbatim", .confidence = "high", .params = ep,
                  .inst_scale = 1.0, .eval = eval_exp};
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.budget = 1;
    lm_mutation_report *mr = malloc(sizeof *mr);
    cr_assert_eq(lm_mutate(mr, &c, &o, NULL, 0), 0);
    int seen = 0;
    for (int k = 0; k < mr->nm; k++) {
        if (strcmp(mr->m[k].kind, "exponent")) continue;
        seen++;
        if (mr->m[k].value == 2.0) cr_assert_eq(mr->m[k].killed, 1, "p = 2 must be killed");
        else {
            cr_assert_eq(mr->m[k].killed, -1, "p = 0 is weaker: not counted");
            cr_assert(strstr(mr->m[k].note, "weaker"), "%s", mr->m[k].note);
        }
    }
    cr_assert_eq(seen, 2);
    /* scale and flip killed, the stronger exponent killed: 3 of 3 */
    cr_assert_eq(mr->run, 3, "%d counted", mr->run);
    cr_assert_eq(mr->killed, 3);
    free(mr);
    /* the same exponent in a bound that is not a rate claim is a constant of the bound: one
     * mutant, walked past its sharpest value (p = 2 already breaks), in both modes */
    c.kind = LM_KIND_POINTWISE;
    for (int cheap = 0; cheap < 2; cheap++) {
        mr = malloc(sizeof *mr);
        cr_assert_eq(lm_mutate(mr, &c, &o, NULL, cheap), 0);
        seen = 0;
        for (int k = 0; k < mr->nm; k++)
            if (!strcmp(mr->m[k].kind, "exponent")) {
                seen++;
                cr_assert_eq(mr->m[k].killed, 1, "%s: %s", mr->m[k].name, mr->m[k].note);
                cr_assert_float_eq(mr->m[k].value, 2.0, 1e-12);
            }
        cr_assert_eq(seen, 1);
        cr_assert_eq(mr->run, 3);
        cr_assert_eq(mr->killed, 3);
        free(mr);
    }
}

/* a mutant that comes out vacuous was never tested: undecided, not a survivor; a left side
 * that is exactly 0 makes the scale mutant undecided (an exactness statement) */
static int eval_vac(lm_eval *ev)
{
    double x = lm_par(ev, "x");
    if (x < 0.5) lm_vacuous(ev, "hypothesis x >= 0.5 never met");
    lm_obs_le_d(ev, -1, 0.0, x, 0.0, "planted exact zero");
    return 0;
}

Test(readings, vacuous_mutants_and_exact_zero_are_not_counted)
{
    static const lm_param_def vp[] = {{"x", 1.0, "tolerance", NULL, "constant [1e-3, 1e3]"},
                                      {NULL, 0, NULL, NULL, NULL}};
    lm_claim c = {.id = "test/vacuous", .title = "planted", .file = __FILE__, .kind = LM_KIND_POINTWISE,
                  .source = "test", .origin = "verbatim", .confidence = "high", .params = vp,
                  .inst_scale = 1.0, .eval = eval_vac};
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.budget = 1;
    lm_mutation_report *mr = malloc(sizeof *mr);
    cr_assert_eq(lm_mutate(mr, &c, &o, NULL, 1), 0);
    cr_assert_str_eq(mr->m[0].kind, "scale");
    cr_assert_eq(mr->m[0].killed, -1, "%s", mr->m[0].note);
    cr_assert(strstr(mr->m[0].note, "exactly 0"), "%s", mr->m[0].note);
    /* x: up passes (holds), down is vacuous -- a survivor, since some run passed */
    cr_assert_str_eq(mr->m[2].kind, "constant");
    cr_assert_eq(mr->m[2].killed, 0, "%s", mr->m[2].note);
    free(mr);
    /* at x = 0.01 every value the walk tries below 0.5 is vacuous, the ones above pass */
    lm_param_def low[2];
    memcpy(low, vp, sizeof low);
    low[0].def = 0.01;
    low[0].range = "constant [1e-3, 0.4]";
    c.params = low;
    mr = malloc(sizeof *mr);
    cr_assert_eq(lm_mutate(mr, &c, &o, NULL, 1), 0);
    cr_assert_eq(mr->m[2].killed, -1, "%s", mr->m[2].note);
    cr_assert(strstr(mr->m[2].note, "vacuous"), "%s", mr->m[2].note);
    free(mr);
}

/* an equivalent exponent mutant: e_t = t^-2 (with a ripple), claimed decay t^-p.  With the
 * loose p = 1, both p = 0 and p = 2 pass, and the fit resolves the move of the claimed slope:
 * the stronger mutant is a true statement, listed as equivalent and not counted.  With the sharp
 * p = 2, p = 3 is killed and p = 1 is the weaker one. */
static int eval_fitted(lm_eval *ev)
{
    static double t[600], y[600];
    int n = 0;
    for (int k = 1; k <= 4096; k = k < 64 ? k + 1 : (int)(k * 1.02) + 1) {
        t[n] = k;
        y[n++] = -2.0 * log((double)k) + 0.01 * sin((double)k);
    }
    lm_rate_fit r;
    lm_rate_fit_seq(&r, t, y, n, -lm_par(ev, "p"), -1, 0.1, 0.95, 0.1);
    lm_rate_judge(ev, &r, "e_t");
    return 0;
}

Test(readings, an_exponent_that_is_not_sharp_gives_equivalent_mutants)
{
    lm_param_def fp[] = {{"p", 1.0, "claimed decay exponent", NULL, "exponent [-5, 5]"},
                         {NULL, 0, NULL, NULL, NULL}};
    lm_claim c = {.id = "test/fitted", .title = "planted", .file = __FILE__, .kind = LM_KIND_RATE,
                  .source = "test", .origin = "verbatim", .confidence = "high", .params = fp, .proxy = 1,
                  .inst_scale = 1.0, .eval = eval_fitted};
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.budget = 1;
    lm_mutation_report *mr = malloc(sizeof *mr);
    cr_assert_eq(lm_mutate(mr, &c, &o, NULL, 1), 0);
    cr_assert_eq(mr->stated, LM_V_CONSISTENT);
    int eq = 0;
    for (int k = 0; k < mr->nm; k++)
        if (!strcmp(mr->m[k].kind, "exponent")) {
            cr_assert_eq(mr->m[k].killed, -1, "%s: %s", mr->m[k].name, mr->m[k].note);
            eq += strstr(mr->m[k].note, "equivalent") != NULL;
        }
    cr_assert_eq(eq, 2);
    free(mr);
    fp[0].def = 2.0;
    mr = malloc(sizeof *mr);
    cr_assert_eq(lm_mutate(mr, &c, &o, NULL, 1), 0);
    for (int k = 0; k < mr->nm; k++)
        if (!strcmp(mr->m[k].kind, "exponent")) {
            if (mr->m[k].value == 3.0) cr_assert_eq(mr->m[k].killed, 1, "p = 3: %s", mr->m[k].note);
            else cr_assert(strstr(mr->m[k].note, "weaker"), "p = 1: %s", mr->m[k].note);
        }
    free(mr);
}

/* the flip of a claim broken at every observation is what the run observed: equivalent */
static int eval_broken(lm_eval *ev)
{
    lm_obs_le_d(ev, -1, 2.0 * lm_par(ev, "x"), 1.0, 0.0, "planted break");
    return 0;
}

Test(readings, the_flip_of_a_claim_broken_everywhere_is_equivalent)
{
    static const lm_param_def bp[] = {{"x", 1.0, "multiplies a", NULL, "constant [1e-3, 1e3]"},
                                      {NULL, 0, NULL, NULL, NULL}};
    lm_claim c = {.id = "test/broken", .title = "planted", .file = __FILE__, .kind = LM_KIND_POINTWISE,
                  .source = "test", .origin = "verbatim", .confidence = "high", .params = bp,
                  .inst_scale = 1.0, .eval = eval_broken};
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.budget = 1;
    o.shrink = 0;
    for (int cheap = 0; cheap < 2; cheap++) {
        lm_mutation_report *mr = malloc(sizeof *mr);
        cr_assert_eq(lm_mutate(mr, &c, &o, NULL, cheap), 0);
        cr_assert_eq(mr->stated, LM_V_VIOLATED);
        cr_assert_str_eq(mr->m[1].kind, "flip");
        cr_assert_eq(mr->m[1].killed, -1, "cheap %d: %s", cheap, mr->m[1].note);
        cr_assert(strstr(mr->m[1].note, "equivalent"), "%s", mr->m[1].note);
        free(mr);
    }
}
