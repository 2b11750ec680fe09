/* Instances exchanged with other tools (issue 20; lm_instances.h, docs/instances.md):
 *   round trip  for dynamics claims (quick budget), `check --export` then `check --instances`
 *               of the file: the same verdict, worst ratio (bit for bit), instance count,
 *               confirmed breaks and certification per configuration.  The claims cover input
 *               data (lemma6, theorem1: a derived input y computed in each precision), violated
 *               and certified configurations (lemma3) and an adversarial search point
 *               (theorem3-part2); docs/instances.md gives the command for the whole paper;
 *   foreign     a planted claim that reads its input u through lm_input_d before using it,
 *               and a matrix through lm_input_mat: the file's values are the ones judged;
 *   seeds       an instance's own seed decides its draws, the file's only those of instances
 *               stating none;
 *   hostile     malformed files are refused with one line naming the field, before anything
 *               runs; a data name the claim never reads, and a wrong shape, after the run;
 *   command     --export DIR (made when missing) and --instances FILE from the command line.
 * Claim files checked here: lemmas/dynamics/{lemma3,lemma6,theorem1,theorem3-part2}.c (their
 * verdicts are theirs to test; here only that the exchange reproduces them). */
#include "lm_instances.h"
#include "test_support.h"
#include <criterion/criterion.h>
#include <unistd.h>

static lm_run_opts quick_opts(void)
{
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.budget = 8;
    o.quick = 1;
    o.shrink = 0;
    return o;
}

/* a temporary file name under /tmp, unique to this process and tag */
static void tmpname(char *b, size_t n, const char *tag)
{
    snprintf(b, n, "/tmp/lemmata-exchange-%ld-%s.json", (long)getpid(), tag);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

static void round_trip(const char *id)
{
    const lm_claim *c = lm_claim_find(id);
    cr_assert_not_null(c, "%s is not registered", id);
    lm_run_opts o = quick_opts();
    lm_inst_io *xio = lm_inst_export_new(c);
    o.inst_io = xio;
    lm_claim_result a;
    cr_assert_eq(lm_run_claim(&a, c, &o), 0, "%s did not run", id);
    json_t *root = lm_inst_export_json(xio, &o, &a, "test");
    lm_inst_io_free(xio);
    char path[200], err[1200];
    tmpname(path, sizeof path, "rt");
    cr_assert_eq(lm_json_save_file(root, path, err, sizeof err), 0, "%s", err);
    json_decref(root);

    lm_run_opts o2;
    lm_run_opts_default(&o2); /* budget, quick and seed come from the file */
    o2.shrink = 0;
    lm_inst_io *iio = lm_inst_import_load(path, c, &o2, -1, -1, -1, err, sizeof err);
    cr_assert_not_null(iio, "%s", err);
    cr_assert_eq(o2.budget, 8);
    cr_assert_eq(o2.quick, 1);
    lm_claim_result b;
    cr_assert_eq(lm_run_claim(&b, c, &o2), 0, "%s did not run from its instances", id);
    cr_assert_eq(lm_inst_import_check(iio, &b, err, sizeof err), 0, "%s", err);
    cr_assert_eq(a.nconfig, b.nconfig, "%s: %d configurations, %d from the file", id, a.nconfig, b.nconfig);
    cr_expect_eq(a.verdict, b.verdict, "%s: %s, %s from the file", id, lm_verdict_name(a.verdict),
                 lm_verdict_name(b.verdict));
    for (int k = 0; k < a.nconfig; k++) {
        const lm_config_result *x = &a.cfg[k], *y = &b.cfg[k];
        cr_expect_str_eq(x->config, y->config);
        cr_expect_eq(x->verdict, y->verdict, "%s [%s]: %s, %s from the file", id, x->config,
                     lm_verdict_name(x->verdict), lm_verdict_name(y->verdict));
        /* bit for bit (NaN: no judged instance, on both sides) */
        cr_expect(x->worst_ratio == y->worst_ratio || (isnan(x->worst_ratio) && isnan(y->worst_ratio)),
                  "%s [%s]: worst ratio %a, %a from the file", id, x->config, x->worst_ratio, y->worst_ratio);
        cr_expect_eq(x->instances, y->instances, "%s [%s]", id, x->config);
        cr_expect_eq(x->confirmed, y->confirmed, "%s [%s]", id, x->config);
        cr_expect_eq(x->certified, y->certified, "%s [%s]", id, x->config);
        cr_expect_eq(x->worst_index, y->worst_index, "%s [%s]", id, x->config);
    }
    lm_claim_result_clear(&a);
    lm_claim_result_clear(&b);
    lm_inst_io_free(iio);
    unlink(path);
}

Test(exchange, round_trip_lemma6, .timeout = 120) { round_trip("dynamics/lemma6"); }
Test(exchange, round_trip_theorem1, .timeout = 120) { round_trip("dynamics/theorem1"); }
Test(exchange, round_trip_lemma3, .timeout = 120) { round_trip("dynamics/lemma3"); }
Test(exchange, round_trip_theorem3_part2, .timeout = 120) { round_trip("dynamics/theorem3-part2"); }

/* ---- a planted claim with inputs: u (a number) and v (a 2x1 matrix), reported before use;
 * the claim is u + v0 + v1 <= 2 with u, v uniform in [0, 1/2) */
static int eval_inputs(lm_eval *ev)
{
    lm_rng *g = lm_eval_rng(ev);
    double u = lm_input_d(ev, "u", lm_rng_uniform(g) / 2);
    lm_mat *v = lm_inst_mat(ev, 2, 1);
    lm_mat_set_d(v, 0, 0, lm_rng_uniform(g) / 2);
    lm_mat_set_d(v, 1, 0, lm_rng_uniform(g) / 2);
    lm_input_mat(ev, "v", v);
    lm_num *a = lm_inst_num(ev), *b = lm_inst_num(ev), *t = lm_inst_num(ev);
    lm_num_set_d(a, u);
    lm_mat_get(t, v, 0, 0);
    lm_num_add(a, a, t);
    lm_mat_get(t, v, 1, 0);
    lm_num_add(a, a, t);
    lm_num_set_d(b, 2.0);
    lm_obs_le(ev, -1, a, b, 0.0, "u + v0 + v1 <= 2");
    return 0;
}

static lm_claim inputs_claim = {.id = "test/inputs", .title = "inputs", .kind = LM_KIND_POINTWISE,
                                .eval = eval_inputs, .inst_scale = 1};

static int run_file(const char *text, lm_claim_result *res, char *err, int errlen)
{
    char path[200];
    tmpname(path, sizeof path, "in");
    write_text(path, text);
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.shrink = 0;
    lm_inst_io *io = lm_inst_import_load(path, &inputs_claim, &o, -1, -1, -1, err, errlen);
    unlink(path);
    if (!io) return -1;
    int rc = lm_run_claim(res, &inputs_claim, &o);
    cr_assert_eq(rc, 0, "%s", res->error);
    rc = lm_inst_import_check(io, res, err, errlen) ? -2 : 0;
    lm_inst_io_free(io);
    return rc;
}

Test(exchange, foreign_data_is_judged)
{
    lm_claim_result r;
    char err[1200];
    /* drawn inputs hold (at most 3/2 <= 2); the file's break it: 1 + 0.75 + 0.5 > 2, exactly */
    cr_assert_eq(run_file("{\"instances\": [{\"config\": \"default\", \"index\": 0},"
                          " {\"config\": \"default\", \"index\": 1, \"data\": {\"u\": \"0x1p+0\","
                          "  \"v\": {\"rows\": 2, \"cols\": 1, \"prec\": 53, \"values\": [[0.75], [\"0x1p-1\"]]}}}]}",
                          &r, err, sizeof err),
                 0, "%s", err);
    cr_assert_eq(r.nconfig, 1);
    cr_expect_eq(r.cfg[0].instances, 2);
    cr_expect_eq(r.cfg[0].verdict, LM_V_VIOLATED, "%s", lm_verdict_name(r.cfg[0].verdict));
    cr_expect_eq(r.cfg[0].worst_index, 1);
    cr_expect(fabs(r.cfg[0].worst_ratio - 2.25 / 2.0) < 1e-15, "%.17g", r.cfg[0].worst_ratio);
    lm_claim_result_clear(&r);
    /* a flat list is a column vector too; without u the drawn one stays */
    cr_assert_eq(run_file("{\"instances\": [{\"index\": 5, \"data\": {\"v\": [0, 0]}}]}", &r, err, sizeof err), 0,
                 "%s", err);
    cr_expect_eq(r.cfg[0].verdict, LM_V_HOLDS);
    cr_expect(r.cfg[0].worst_ratio < 0.25, "%.17g", r.cfg[0].worst_ratio);
    lm_claim_result_clear(&r);
}

Test(exchange, unread_data_and_wrong_shape)
{
    lm_claim_result r;
    char err[1200];
    cr_assert_eq(run_file("{\"instances\": [{\"index\": 0, \"data\": {\"W^Q_7\": [1, 2]}}]}", &r, err, sizeof err),
                 -2);
    cr_expect(strstr(err, "instances[0].data.\"W^Q_7\": test/inputs reads no input of that name (it reads: u, v)"),
              "%s", err);
    lm_claim_result_clear(&r);
    cr_assert_eq(run_file("{\"instances\": [{\"index\": 0, \"data\": {\"v\": [1, 2, 3]}}]}", &r, err, sizeof err), -2);
    cr_expect(strstr(err, "instances[0].data.\"v\": is 3x1, the check needs 2x1"), "%s", err);
    lm_claim_result_clear(&r);
    cr_assert_eq(run_file("{\"instances\": [{\"index\": 0, \"sizes\": {\"n\": 3}}]}", &r, err, sizeof err), -2);
    cr_expect(strstr(err, "instances[0].sizes.\"n\": no instance of test/inputs asked for a size"), "%s", err);
    lm_claim_result_clear(&r);
}

/* malformed files: refused by the loader, one line naming the field, nothing run */
static void refused(const char *text, const char *want)
{
    lm_claim_result r;
    char err[1200] = "";
    memset(&r, 0, sizeof r);
    cr_assert_eq(run_file(text, &r, err, sizeof err), -1, "accepted: %s", text);
    cr_expect(strstr(err, want), "for %s: got '%s', want '%s'", text, err, want);
    cr_expect(!strchr(err, '\n'), "not one line: %s", err);
}

Test(exchange, hostile_files)
{
    refused("", "expected near end of file");
    refused("not json", "-in.json:1:3: '[' or '{' expected near 'not'");
    refused("[1, 2]", "one JSON object");
    refused("{}", "instances: missing");
    refused("{\"instances\": []}", "instances: empty");
    refused("{\"instances\": {}}", "instances: must be a list");
    refused("{\"instances\": [1]}", "instances[0]: must be an object");
    refused("{\"instances\": [{\"config\": \"nope\"}]}", "instances[0].config: test/inputs has no configuration \"nope\"");
    refused("{\"instances\": [{\"index\": -1}]}", "instances[0].index");
    refused("{\"instances\": [{\"index\": \"1\"}]}", "instances[0].index: not an integer");
    refused("{\"instances\": [{\"index\": 0}, {\"index\": 0}]}", "instances[1].index: 0 is given twice");
    refused("{\"instances\": [{\"seed\": -3}]}", "instances[0].seed");
    refused("{\"instances\": [{\"seed\": \"12x\"}]}", "instances[0].seed");
    refused("{\"instances\": [{\"seed\": \"99999999999999999999999\"}]}", "instances[0].seed");
    refused("{\"instances\": [{\"x\": [1]}]}", "instances[0].x: test/inputs has no search point");
    refused("{\"instances\": [{\"sizes\": {\"n\": 1e9}}]}", "instances[0].sizes.\"n\": not an integer");
    refused("{\"instances\": [{\"sizes\": {\"n\": 1000000000}}]}", "instances[0].sizes.\"n\": 1000000000 is outside");
    refused("{\"instances\": [{\"round_bits\": 99}]}", "instances[0].round_bits");
    refused("{\"instances\": [{\"params\": {\"c\": 1}}]}", "instances[0].params.c: test/inputs has no parameter 'c'");
    refused("{\"instances\": [{\"precision\": \"quad\"}]}", "instances[0].precision");
    refused("{\"instances\": [{\"data\": [1]}]}", "instances[0].data: must be an object");
    refused("{\"instances\": [{\"bogus\": 1}]}", "instances[0]: unknown field \"bogus\"");
    refused("{\"version\": 2, \"instances\": [{}]}", "version");
    refused("{\"claim\": \"dynamics/lemma3\", \"instances\": [{}]}", "claim: the file's instances are of dynamics/lemma3");
    refused("{\"budget\": 0, \"instances\": [{}]}", "budget");
    refused("{\"instances\": [{}], \"instances\": [{}]}", "duplicate");
}

Test(exchange, hostile_data_values)
{
    lm_claim_result r;
    char err[1200];
    /* a NaN string is a number (the claim then fails the instance: not finite); a word is not */
    cr_assert_eq(run_file("{\"instances\": [{\"data\": {\"u\": \"abc\"}}]}", &r, err, sizeof err), -2);
    cr_expect(strstr(err, "instances[0].data.\"u\": not a number: \"abc\""), "%s", err);
    lm_claim_result_clear(&r);
    cr_assert_eq(run_file("{\"instances\": [{\"data\": {\"u\": \"nan\"}}]}", &r, err, sizeof err), 0, "%s", err);
    cr_expect_eq(r.cfg[0].verdict, LM_V_ERROR, "%s", lm_verdict_name(r.cfg[0].verdict));
    lm_claim_result_clear(&r);
}

Test(exchange, directory_is_refused)
{
    lm_run_opts o;
    lm_run_opts_default(&o);
    char err[1200];
    cr_assert_null(lm_inst_import_load("/tmp", &inputs_claim, &o, -1, -1, -1, err, sizeof err));
    cr_expect(strstr(err, "/tmp: not a regular file"), "%s", err);
    cr_assert_null(lm_inst_import_load("/nonexistent/x.json", &inputs_claim, &o, -1, -1, -1, err, sizeof err));
    cr_expect(strstr(err, "No such file"), "%s", err);
}

/* the command line: --export makes the directory and writes DIR/<id, / as __>.json; the
 * same check from that file prints the same verdicts and ratios; a malformed file is one line
 * and exit 2; --export into a file is refused before anything runs */
Test(exchange, command_line, .timeout = 120)
{
    char d[] = "/tmp/lm_exchange_XXXXXX", args[600], p[400];
    static char a[1 << 16], b[1 << 16];
    cr_assert_not_null(mkdtemp(d));
    snprintf(args, sizeof args, "check tutorial/softmax-jacobian --quick --export %s/sub/dir --json", d);
    cr_assert_eq(lm_test_cli(a, sizeof a, args), 0, "%s", a);
    snprintf(p, sizeof p, "%s/sub/dir/tutorial__softmax-jacobian.json", d);
    cr_assert_eq(access(p, R_OK), 0, "no %s", p);
    snprintf(args, sizeof args, "check tutorial/softmax-jacobian --instances %s --json", p);
    cr_assert_eq(lm_test_cli(b, sizeof b, args), 0, "%s", b);
    json_error_t je;
    json_t *ja = json_loads(a, 0, &je), *jb = json_loads(b, 0, &je);
    cr_assert(ja && jb, "not one JSON object each: %s / %s", a, b);
    json_t *ca = json_object_get(ja, "configs"), *cb = json_object_get(jb, "configs");
    cr_assert_eq(json_array_size(ca), json_array_size(cb));
    for (size_t k = 0; k < json_array_size(ca); k++) {
        const json_t *x = json_array_get(ca, k), *y = json_array_get(cb, k);
        cr_expect(json_equal(json_object_get(x, "verdict"), json_object_get(y, "verdict")));
        cr_expect(json_equal(json_object_get(x, "worst_ratio"), json_object_get(y, "worst_ratio")),
                  "%s / %s", a, b);
        cr_expect(json_equal(json_object_get(x, "instances"), json_object_get(y, "instances")));
    }
    json_decref(ja);
    json_decref(jb);
    /* a file of the wrong claim, then not JSON */
    snprintf(args, sizeof args, "check tutorial/softmax-rows --instances %s", p);
    cr_expect_eq(lm_test_cli(b, sizeof b, args), 2, "%s", b);
    cr_expect(strstr(b, "claim: the file's instances are of tutorial/softmax-jacobian") && !strchr(b, '\n')[1], "%s", b);
    write_text(p, "{\"instances\": [}");
    snprintf(args, sizeof args, "check tutorial/softmax-jacobian --instances %s", p);
    cr_expect_eq(lm_test_cli(b, sizeof b, args), 2, "%s", b);
    cr_expect(strstr(b, "tutorial__softmax-jacobian.json:1:") && !strchr(b, '\n')[1], "%s", b);
    snprintf(args, sizeof args, "check tutorial/softmax-jacobian --quick --export %s", p);
    cr_expect_eq(lm_test_cli(b, sizeof b, args), 2, "%s", b);
    cr_expect(strstr(b, "not a directory") && !strstr(b, "holds"), "%s", b);
    cr_expect_eq(lm_test_rmtree(d), 0);
}

/* an instance's own seed decides its draws; the file's seed only those that state none */
Test(exchange, instance_seed_decides)
{
    lm_run_opts o = quick_opts();
    lm_inst_io *xio = lm_inst_export_new(&inputs_claim);
    o.inst_io = xio;
    lm_claim_result a, b;
    cr_assert_eq(lm_run_claim(&a, &inputs_claim, &o), 0);
    json_t *root = lm_inst_export_json(xio, &o, &a, "test");
    lm_inst_io_free(xio);
    json_t *ins = json_object_get(root, "instances");
    cr_assert_eq(json_array_size(ins), 8);
    size_t k;
    json_t *in;
    json_array_foreach(ins, k, in) json_object_del(in, "data"); /* the seed alone draws them */
    json_object_set_new(root, "seed", json_string("7"));
    char path[200], err[1200];
    tmpname(path, sizeof path, "seed");
    cr_assert_eq(lm_json_save_file(root, path, err, sizeof err), 0, "%s", err);
    lm_run_opts o2;
    lm_run_opts_default(&o2);
    lm_inst_io *iio = lm_inst_import_load(path, &inputs_claim, &o2, -1, -1, -1, err, sizeof err);
    cr_assert_not_null(iio, "%s", err);
    cr_assert_eq(lm_run_claim(&b, &inputs_claim, &o2), 0);
    cr_expect(a.cfg[0].worst_ratio == b.cfg[0].worst_ratio, "%a %a", a.cfg[0].worst_ratio, b.cfg[0].worst_ratio);
    lm_claim_result_clear(&b);
    lm_inst_io_free(iio);
    /* without their seeds, the file's seed 7 draws other instances */
    json_array_foreach(ins, k, in) json_object_del(in, "seed");
    cr_assert_eq(lm_json_save_file(root, path, err, sizeof err), 0, "%s", err);
    lm_run_opts_default(&o2);
    iio = lm_inst_import_load(path, &inputs_claim, &o2, -1, -1, -1, err, sizeof err);
    cr_assert_not_null(iio, "%s", err);
    cr_assert_eq(o2.seed, 7);
    cr_assert_eq(lm_run_claim(&b, &inputs_claim, &o2), 0);
    cr_expect(a.cfg[0].worst_ratio != b.cfg[0].worst_ratio, "%a %a", a.cfg[0].worst_ratio, b.cfg[0].worst_ratio);
    lm_claim_result_clear(&b);
    lm_inst_io_free(iio);
    lm_claim_result_clear(&a);
    json_decref(root);
    unlink(path);
}

/* the export of one configuration of claim id at the quick budget, with instance 0's first
 * entry of input `name` scaled by f (f = 1: unchanged), saved to path */
static void export_scaled(const char *id, const char *config, const char *name, double f, const char *path)
{
    const lm_claim *c = lm_claim_find(id);
    cr_assert_not_null(c);
    lm_run_opts o = quick_opts();
    o.only_config = config;
    lm_inst_io *xio = lm_inst_export_new(c);
    o.inst_io = xio;
    lm_claim_result a;
    cr_assert_eq(lm_run_claim(&a, c, &o), 0);
    json_t *root = lm_inst_export_json(xio, &o, &a, "test");
    lm_inst_io_free(xio);
    lm_claim_result_clear(&a);
    json_t *in0 = json_array_get(json_object_get(root, "instances"), 0);
    json_t *M = json_object_get(json_object_get(in0, "data"), name);
    cr_assert_not_null(M, "%s exports no input %s", id, name);
    json_t *v = json_array_get(json_array_get(json_object_get(M, "values"), 0), 0);
    char err[400];
    double x;
    cr_assert_eq(lm_json_get_double(v, &x, name, err, sizeof err), 0, "%s", err);
    json_array_set_new(json_array_get(json_object_get(M, "values"), 0), 0, lm_json_double(x * f));
    /* instance 0 only: the others are unchanged */
    json_t *one = json_array();
    json_array_append(one, in0);
    json_object_set_new(root, "instances", one);
    cr_assert_eq(lm_json_save_file(root, path, err, sizeof err), 0, "%s", err);
    json_decref(root);
}

/* lm_input_mat: the perturbation kit's data are true inputs -- a file that changes one
 * entry of X_1 is judged on it (the worst ratio moves); lm_data_mat: Theorem 1's step size is
 * chosen from its drawn data, so a changed X_1 is refused, one line naming the field, nothing
 * judged, while its unchanged export is accepted */
Test(exchange, inputs_replace_reported_values_must_match, .timeout = 120)
{
    char p[200], args[400], out[4096];
    tmpname(p, sizeof p, "in");
    export_scaled("dynamics/lemma3", "Z90,sigma-at-M", "X_1", 1.0, p);
    snprintf(args, sizeof args, "check dynamics/lemma3 --instances %s --json", p);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    const char *w = strstr(out, "\"worst_ratio\":");
    cr_assert_not_null(w, "%s", out);
    double r1 = strtod(w + 14, NULL);
    export_scaled("dynamics/lemma3", "Z90,sigma-at-M", "X_1", 3.0, p);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    w = strstr(out, "\"worst_ratio\":");
    cr_assert_not_null(w, "%s", out);
    double r2 = strtod(w + 14, NULL);
    cr_expect(r1 != r2, "X_1 scaled by 3 left the worst ratio at %.17g: the file's data were not used", r1);

    export_scaled("dynamics/theorem1", "dense,eta=0.9/alpha", "X_1", 1.0, p);
    snprintf(args, sizeof args, "check dynamics/theorem1 --instances %s", p);
    cr_expect_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    export_scaled("dynamics/theorem1", "dense,eta=0.9/alpha", "X_1", 3.0, p);
    cr_expect_eq(lm_test_cli(out, sizeof out, args), 2, "%s", out);
    cr_expect(strstr(out, "instances[0].data.\"X_1\"") && strstr(out, "takes this value from its seed only"), "%s",
              out);
    cr_expect(!strstr(out, "holds") && !strstr(out, "violated"), "a refused file was judged: %s", out);
    unlink(p);
}

/* the counterexample file of claim id in dir d: one instance per violated configuration, and
 * `check --instances` judges each violated again, certified, with the worst ratio the file
 * records for its configuration bit for bit */
static void counterexamples_judged_again(const char *d, const char *id, size_t min_instances)
{
    char f[300], err[600], args[600], name[200];
    static char out[1 << 18];
    lm_inst_file_name(name, sizeof name, id);
    snprintf(f, sizeof f, "%s/counterexamples/%s", d, name);
    json_t *root = lm_json_load_file(f, 1 << 24, err, sizeof err);
    cr_assert_not_null(root, "%s", err);
    json_t *res = json_object_get(root, "results");
    size_t n = json_array_size(json_object_get(root, "instances"));
    cr_expect_geq(n, min_instances, "%s: %zu instance(s) in its counterexample file", id, n);
    cr_expect_eq(json_array_size(json_object_get(root, "counterexamples")), n);
    cr_expect_eq(json_array_size(res), n);
    snprintf(args, sizeof args, "check %s --instances %s --json", id, f);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    json_error_t je;
    json_t *o = json_loads(out, JSON_DISABLE_EOF_CHECK, &je);
    cr_assert_not_null(o, "not JSON: %s", out);
    cr_expect_str_eq(json_string_value(json_object_get(o, "verdict")), "violated", "%s", out);
    cr_expect(json_is_true(json_object_get(o, "certified")), "%s: the counterexample is not certified again", id);
    for (size_t i = 0; i < n; i++) {
        const json_t *r = json_array_get(res, i);
        const char *cfg = json_string_value(json_object_get(r, "config"));
        double want, got = NAN;
        cr_assert_eq(lm_json_get_double(json_object_get(r, "worst_ratio"), &want, "worst_ratio", err, sizeof err), 0,
                     "%s", err);
        const json_t *cf = NULL;
        size_t k;
        json_t *c;
        json_array_foreach(json_object_get(o, "configs"), k, c) if (!strcmp(json_string_value(json_object_get(c, "config")), cfg)) cf = c;
        cr_assert_not_null(cf, "%s: configuration %s not judged", id, cfg);
        cr_expect_str_eq(json_string_value(json_object_get(cf, "verdict")), "violated", "%s %s", id, cfg);
        cr_expect(json_is_true(json_object_get(cf, "certified")), "%s %s: not certified", id, cfg);
        const json_t *w = json_object_get(cf, "worst_ratio");
        if (json_is_number(w)) got = json_number_value(w);
        else if (json_is_null(w)) got = INFINITY; /* --json writes an infinite ratio as null */
        cr_expect(got == want, "%s %s: worst ratio %.17g judged again, %.17g in the file", id, cfg, got, want);
    }
    json_decref(o);
    json_decref(root);
}

/* verify writes every violated claim's counterexamples -- one instance per violated
 * configuration, the claim's own first -- and `check --instances` on that file judges them
 * violated again; a claim that holds gets no file.  theorem3-part2 reports a value it derives
 * from its seed (y); its file, written without certifying, gives it in double only, and the
 * ball certification of the imported instance must not hold the 128-bit y to the double one
 * (it refused the file before) */
Test(exchange, verify_writes_counterexamples, .timeout = 600)
{
    char d[] = "/tmp/lemmata-cex-XXXXXX", args[600], f[300];
    static char out[1 << 16];
    cr_assert(mkdtemp(d));
    snprintf(args, sizeof args, "verify --quick --no-report --no-mutants -j 1 --only dynamics/lemma3 --db %s/r.db", d);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    cr_expect(strstr(out, "counterexamples: 1 instance file in"), "%s", out);
    counterexamples_judged_again(d, "dynamics/lemma3", 2);
    snprintf(args, sizeof args, "verify --quick --no-report --no-mutants -j 1 --only dynamics/theorem3-part2 --db %s/r.db", d);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    counterexamples_judged_again(d, "dynamics/theorem3-part2", 2);
    /* a claim that holds: no file */
    snprintf(args, sizeof args, "verify --quick --no-report --no-mutants -j 1 --only tutorial/softmax-rows --db %s/r.db", d);
    cr_assert_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    snprintf(f, sizeof f, "%s/counterexamples/tutorial__softmax-rows.json", d);
    cr_expect(access(f, F_OK) != 0, "a holding claim got a counterexample file");
    cr_expect_eq(lm_test_rmtree(d), 0);
}
