/* The audit section of make bench (bench/bm_audit.c, issue 21): instances per second per claim
 * kind and the slowest claims, read from a verify database.  Planted databases with known
 * seconds and instances: the run chosen (the newest complete full one: not an --only run, not
 * unfinished, not one that reused results; a QUICK=1 one only when no full one exists), the
 * sums and rates, the order, the slowest configuration's share; a missing, foreign or empty
 * database gives "no full verify on record" and no crash; a re-run splits a claim's seconds
 * into phases that add up. */
#include "../bench/bm.h"
#include "lm_verify.h"
#include "test_support.h"
#include <criterion/criterion.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char schema[] =
    "CREATE TABLE runs(id INTEGER PRIMARY KEY, commit_id TEXT, seed TEXT, budget INTEGER, quick INTEGER, "
    "prec INTEGER, finished INTEGER, seconds REAL, finished_date TEXT, selection TEXT, shard TEXT);"
    "CREATE TABLE claims(run_id INTEGER, claim_id TEXT, kind TEXT, instances INTEGER, seconds REAL, "
    "reused_from INTEGER);"
    "CREATE TABLE configs(run_id INTEGER, claim_id TEXT, seq INTEGER, config TEXT, seconds REAL);"
    "CREATE TABLE live(run_id INTEGER, name TEXT, seconds REAL, reused_from INTEGER);";

static void plant(const char *db, const char *sql)
{
    unlink(db);
    sqlite3 *h = NULL;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    char *msg = NULL;
    cr_assert_eq(sqlite3_exec(h, schema, NULL, NULL, &msg), SQLITE_OK, "%s", msg ? msg : "");
    cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, &msg), SQLITE_OK, "%s", msg ? msg : "");
    sqlite3_close(h);
}

static void tmpname(char *b, size_t n, const char *what)
{
    snprintf(b, n, "/tmp/lemmata-test-audit-%d-%s.db", (int)getpid(), what);
}

/* run 1 is the only complete full run; runs 2..5 are newer but each fails one rule */
static const char runs_sql[] =
    "INSERT INTO runs VALUES(1,'c1','7',64,0,0,1,100.0,'d1',NULL,NULL);"
    "INSERT INTO runs VALUES(2,'c2','7',64,0,0,1,10.0,'d2','p/',NULL);"   /* --only */
    "INSERT INTO runs VALUES(3,'c3','7',64,0,0,0,NULL,NULL,NULL,NULL);"   /* unfinished */
    "INSERT INTO runs VALUES(4,'c4','7',64,0,0,1,5.0,'d4',NULL,NULL);"    /* reused run 1 */
    "INSERT INTO runs VALUES(5,'c5','7',8,1,0,1,3.0,'d5','',NULL);"       /* QUICK=1 */
    "INSERT INTO runs VALUES(6,'c6','7',64,0,0,1,3.0,'d6','','2/3');"     /* a shard */
    /* run 1: alpha 10+30 instances in 2+3 s (8/s); beta 4 in 8 s (0.5/s); live 1.5+2.5 s */
    "INSERT INTO claims VALUES(1,'x/a1','alpha',10,2.0,NULL);"
    "INSERT INTO claims VALUES(1,'x/a2','alpha',30,3.0,NULL);"
    "INSERT INTO claims VALUES(1,'x/b1','beta',4,8.0,NULL);"
    "INSERT INTO configs VALUES(1,'x/b1',0,'small',2.0);"
    "INSERT INTO configs VALUES(1,'x/b1',1,'large',6.0);"
    "INSERT INTO configs VALUES(1,'x/a2',0,'only',2.9);"
    "INSERT INTO live VALUES(1,'l1',1.5,NULL);"
    "INSERT INTO live VALUES(1,'l2',2.5,NULL);"
    /* the other runs: numbers that would show if they were read */
    "INSERT INTO claims VALUES(2,'x/a1','alpha',1000,1.0,NULL);"
    "INSERT INTO claims VALUES(3,'x/a1','alpha',1000,1.0,NULL);"
    "INSERT INTO claims VALUES(4,'x/a1','alpha',1000,1.0,1);"
    "INSERT INTO claims VALUES(5,'x/a1','alpha',1000,1.0,NULL);"
    "INSERT INTO claims VALUES(6,'x/a1','alpha',1000,1.0,NULL);";

Test(bench_audit, kinds_and_slowest_from_the_newest_complete_full_run)
{
    char db[256];
    tmpname(db, sizeof db, "full");
    plant(db, runs_sql);
    bm_audit au;
    cr_assert_eq(bm_audit_read(&au, db), 0, "%s", au.status);
    cr_assert_eq(au.ok, 1);
    cr_assert_eq(au.run, 1, "picked run %lld", au.run);
    cr_assert_eq(au.quick, 0);
    cr_assert_eq(au.budget, 64);
    cr_assert_eq(au.nclaims, 3);
    cr_assert_eq(au.instances, 44);
    cr_assert_float_eq(au.claim_seconds, 13.0, 1e-12);
    cr_assert_float_eq(au.live_seconds, 4.0, 1e-12);
    cr_assert_float_eq(au.wall, 100.0, 1e-12);
    /* kinds, slowest first */
    cr_assert_eq(au.nkinds, 2);
    cr_assert_str_eq(au.k[0].kind, "beta");
    cr_assert_eq(au.k[0].claims, 1);
    cr_assert_float_eq(au.k[0].rate, 0.5, 1e-12);
    cr_assert_str_eq(au.k[1].kind, "alpha");
    cr_assert_eq(au.k[1].claims, 2);
    cr_assert_eq(au.k[1].instances, 40);
    cr_assert_float_eq(au.k[1].seconds, 5.0, 1e-12);
    cr_assert_float_eq(au.k[1].rate, 8.0, 1e-12);
    /* per claim, for the figure: each carries its kind's row */
    cr_assert_eq(au.nall, 3);
    for (int i = 0; i < au.nall; i++) {
        double r = au.all_rate[i];
        cr_assert(au.all_kind[i] == (fabs(r - 0.5) < 1e-12 ? 0 : 1), "claim %d: rate %g row %d", i, r, au.all_kind[i]);
    }
    /* slowest claims, each with its slowest configuration */
    cr_assert_eq(au.nslow, 3);
    cr_assert_str_eq(au.slow[0].id, "x/b1");
    cr_assert_str_eq(au.slow[1].id, "x/a2");
    cr_assert_str_eq(au.slow[2].id, "x/a1");
    cr_assert_str_eq(au.slow[0].top_config, "large");
    cr_assert_eq(au.slow[0].nconfig, 2);
    cr_assert_float_eq(au.slow[0].top_share, 0.75, 1e-12);
    cr_assert_float_eq(au.slow[1].top_share, 2.9 / 3.0, 1e-12);
    cr_assert(isnan(au.slow[2].top_share), "no configuration rows: share unknown");
    cr_assert_eq(au.slow[0].profiled, 0);
    cr_assert(isnan(au.slow[0].phase[BM_PH_RANDOM]));
    /* a cap of 0: nothing re-run, and each says why */
    bm_audit_profile(&au, 0);
    for (int i = 0; i < au.nslow; i++) {
        cr_assert_eq(au.slow[i].profiled, 0);
        cr_assert(strstr(au.slow[i].note, "cap"), "%s", au.slow[i].note);
    }
    /* the JSON carries the same numbers */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    bm_audit_json(f, &au);
    fclose(f);
    cr_assert(strstr(buf, "\"ok\": true"), "%s", buf);
    cr_assert(strstr(buf, "{\"kind\": \"alpha\", \"claims\": 2, \"instances\": 40, \"seconds\": 5, "
                          "\"instances_per_second\": 8}"),
              "%s", buf);
    cr_assert(strstr(buf, "\"top_config\": \"large\""), "%s", buf);
    free(buf);
    bm_audit_free(&au);
    /* --run: that run whatever its state; an unknown one is refused */
    cr_assert_eq(bm_audit_read_run(&au, db, 3), 0, "%s", au.status);
    cr_assert_eq(au.run, 3);
    cr_assert(isnan(au.wall), "an unfinished run has no wall clock");
    cr_assert(strstr(au.status, "not finished"), "%s", au.status);
    cr_assert_eq(au.instances, 1000);
    bm_audit_free(&au);
    cr_assert_eq(bm_audit_read_run(&au, db, 99), 1);
    cr_assert(strstr(au.status, "no run 99"), "%s", au.status);
    bm_audit_free(&au);
    unlink(db);
}

Test(bench_audit, quick_run_only_when_no_full_one)
{
    char db[256];
    tmpname(db, sizeof db, "quick");
    plant(db, "INSERT INTO runs VALUES(1,'c1','7',8,1,0,1,50.0,'d1',NULL,NULL);"
              "INSERT INTO claims VALUES(1,'x/a1','alpha',8,4.0,NULL);");
    bm_audit au;
    cr_assert_eq(bm_audit_read(&au, db), 0, "%s", au.status);
    cr_assert_eq(au.quick, 1);
    cr_assert(strstr(au.status, "no full verify on record"), "%s", au.status);
    cr_assert_float_eq(au.k[0].rate, 2.0, 1e-12);
    bm_audit_free(&au);
    unlink(db);
}

static void expect_none(const char *db)
{
    bm_audit au;
    cr_assert_eq(bm_audit_read(&au, db), 1, "%s: read as a run (%s)", db, au.status);
    cr_assert_eq(au.ok, 0);
    cr_assert(strstr(au.status, "no full verify on record"), "%s", au.status);
    cr_assert(!strchr(au.status, '\n'), "one line: %s", au.status);
    bm_audit_profile(&au, 100); /* nothing to re-run, no crash */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    bm_audit_json(f, &au);
    bm_audit_tex(f, &au, "/tmp");
    fclose(f);
    cr_assert(strstr(buf, "\"ok\": false"), "%s", buf);
    cr_assert(strstr(buf, "No full verify on record"), "%s", buf);
    free(buf);
    bm_audit_free(&au);
}

Test(bench_audit, no_complete_run_says_so)
{
    char db[256];
    tmpname(db, sizeof db, "none");
    unlink(db);
    expect_none(db); /* missing */
    plant(db, "INSERT INTO runs VALUES(1,'c1','7',64,0,0,0,NULL,NULL,NULL,NULL);"
              "INSERT INTO claims VALUES(1,'x/a1','alpha',8,4.0,NULL);");
    expect_none(db); /* unfinished only */
    plant(db, "INSERT INTO runs VALUES(1,'c1','7',64,0,0,1,9.0,'d',NULL,NULL);");
    expect_none(db); /* finished, but no claim ran */
    FILE *f = fopen(db, "w");
    cr_assert(f);
    fputs("not a database at all, just text that is long enough to have a header.............\n", f);
    fclose(f);
    expect_none(db); /* foreign file */
    unlink(db);
}

/* a re-run splits the claim's seconds into phases that add up to the claim's own time */
Test(bench_audit, rerun_phases_add_up)
{
    cr_assert(lm_registry_count > 0);
    const char *id = lm_registry[0]->id;
    char db[256], sql[1024];
    tmpname(db, sizeof db, "rerun");
    snprintf(sql, sizeof sql,
             "INSERT INTO runs VALUES(1,'c1','20241122',8,1,0,1,9.0,'d',NULL,NULL);"
             "INSERT INTO claims VALUES(1,'%s','k',1,5.0,NULL);"
             "INSERT INTO claims VALUES(1,'no-such/claim','k',1,1.0,NULL);",
             id);
    plant(db, sql);
    bm_audit au;
    cr_assert_eq(bm_audit_read(&au, db), 0, "%s", au.status);
    cr_assert_str_eq(au.slow[0].id, id);
    bm_audit_profile(&au, 120);
    const bm_au_claim *C = &au.slow[0];
    cr_assert_eq(C->profiled, 1, "%s", C->note);
    cr_assert(C->rerun_seconds > 0);
    double in = 0;
    for (int p = 0; p < BM_NPH; p++) cr_assert(isnan(C->phase[p]) || C->phase[p] >= 0, "phase %d", p);
    for (int p = 0; p < BM_PH_OTHER; p++) in += C->phase[p];
    cr_assert(C->phase[BM_PH_RANDOM] > 0, "random instances took no time");
    cr_assert(in <= C->rerun_seconds * (1 + 1e-9), "phases %g > claim seconds %g", in, C->rerun_seconds);
    cr_assert_float_eq(in + C->phase[BM_PH_OTHER], C->rerun_seconds, 1e-9);
    cr_assert(isfinite(C->phase[BM_PH_MUTANTS]), "%s", C->note);
    /* an id this build does not know: not re-run, said so */
    cr_assert_eq(au.slow[1].profiled, 0);
    cr_assert(strstr(au.slow[1].note, "no claim"), "%s", au.slow[1].note);
    bm_audit_free(&au);
    unlink(db);
}

/* `lemmata check --json` carries the phases: per claim and per configuration, each with
 * "other" the remainder, adding up to the seconds beside them */
Test(bench_audit, check_json_prints_phases)
{
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.quick = 1;
    o.budget = 8;
    lm_claim_result r;
    cr_assert_eq(lm_run_claim(&r, lm_registry[0], &o), 0, "%s", r.error);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    lm_claim_result_json(f, &r, o.seed);
    fclose(f);
    json_error_t e;
    json_t *j = json_loads(buf, 0, &e);
    cr_assert(j, "%s", e.text);
    json_t *objs[2] = {j, json_array_get(json_object_get(j, "configs"), 0)};
    for (int k = 0; k < 2; k++) {
        json_t *ph = json_object_get(objs[k], "phases");
        cr_assert(json_is_object(ph), "no phases in %s", buf);
        double sum = 0;
        static const char *const names[] = {"random", "search", "replay", "escalation", "certify", "shrink", "other"};
        for (int p = 0; p < 7; p++) {
            json_t *v = json_object_get(ph, names[p]);
            cr_assert(json_is_number(v), "phase %s missing", names[p]);
            cr_assert(json_number_value(v) >= 0);
            sum += json_number_value(v);
        }
        double sec = json_number_value(json_object_get(objs[k], "seconds"));
        cr_assert(sec > 0);
        cr_assert_float_eq(sum, sec, 1e-9 + 1e-9 * sec, "phases add to %g, seconds %g", sum, sec);
        cr_assert(json_number_value(json_object_get(ph, "random")) > 0);
    }
    json_decref(j);
    free(buf);
    lm_claim_result_clear(&r);
}
