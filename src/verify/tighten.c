/* src/verify/tighten.c -- `lemmata tighten ID PARAM`: bisection on one named
 * constant for the sharpest value with which the claim still passes on the
 * same instances (see lm_verify.h). */
#include "lm_verify.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef enum { T_PASS, T_FAIL, T_UNDECIDED } outcome;

static outcome classify(lm_verdict v)
{
    if (v == LM_V_HOLDS || v == LM_V_CONSISTENT || v == LM_V_ARTIFACT) return T_PASS;
    if (v == LM_V_VIOLATED || v == LM_V_INCONSISTENT) return T_FAIL;
    return T_UNDECIDED;
}

/* with o->progress, one line on stderr per claim run: the value tried, its verdict, and the
 * bracket so far (the nearest passing and failing values known) */
static void note(const lm_tighten_result *t, const lm_claim *c, int param, const lm_run_opts *o, int max_runs,
                 double val, lm_verdict v, double pass, double fail)
{
    if (!o->progress) return;
    char p[32] = "--", f[32] = "--";
    if (!isnan(pass)) snprintf(p, sizeof p, "%.6g", pass);
    if (!isnan(fail)) snprintf(f, sizeof f, "%.6g", fail);
    fprintf(stderr, "  run %2d/%d  %s %s = %-12.6g %-17s bracket: passes at %s, fails at %s\n", t->runs, max_runs,
            c->id, c->params[param].name, val, lm_verdict_name(v), p, f);
    fflush(stderr);
}

/* run c with param set to val (on top of o's settings) */
static outcome run_at(lm_tighten_result *t, const lm_claim *c, int param, const lm_run_opts *o, double val,
                      lm_verdict *vout)
{
    lm_run_opts q = *o;
    q.progress = 0;
    lm_claim_result r;
    t->runs++;
    if (lm_run_opts_set(&q, c->params[param].name, val) || lm_run_claim(&r, c, &q)) {
        *vout = LM_V_ERROR;
        return T_UNDECIDED;
    }
    *vout = r.verdict;
    lm_claim_result_clear(&r);
    return classify(*vout);
}

int lm_tighten(lm_tighten_result *t, const lm_claim *c, int param, const lm_run_opts *o, double rtol,
               int max_runs)
{
    memset(t, 0, sizeof *t);
    t->sharpest = t->breaks_at = NAN;
    const char *name = c->params[param].name;
    double v0 = c->params[param].def;
    for (int k = 0; k < o->nset; k++)
        if (!strcmp(o->set_name[k], name)) v0 = o->set_val[k];
    t->stated = v0;
    if (c->params[param].choices) {
        snprintf(t->msg, sizeof t->msg, "%s is a switch, not a constant", name);
        return 1;
    }
    if (!(v0 > 0) || !isfinite(v0)) {
        snprintf(t->msg, sizeof t->msg, "%s = %g: tighten works on positive constants", name, v0);
        return 1;
    }
    lm_verdict v;
    outcome s0 = run_at(t, c, param, o, v0, &v);
    t->stated_verdict = v;
    note(t, c, param, o, max_runs, v0, v, s0 == T_PASS ? v0 : (double)NAN, s0 == T_FAIL ? v0 : (double)NAN);
    if (s0 == T_UNDECIDED) {
        snprintf(t->msg, sizeof t->msg, "at the stated %s = %g the claim is %s: nothing to tighten", name, v0,
                 lm_verdict_name(v));
        return 1;
    }
    /* bracket: walk out from the stated value in each direction (factors 2, 4, 10, ...)
     * until the outcome flips; the last value with the stated outcome is the near end */
    double pass = NAN, fail = NAN;
    static const double factors[] = {2, 4, 10, 100, 1e4, 1e8, 1e12};
    for (int dir = -1; dir <= 1 && isnan(pass + fail); dir += 2) {
        double prev = v0;
        double kp = s0 == T_PASS ? v0 : (double)NAN, kf = s0 == T_FAIL ? v0 : (double)NAN; /* for the progress lines */
        for (int f = 0; f < (int)(sizeof factors / sizeof *factors) && t->runs < max_runs; f++) {
            double x = dir < 0 ? v0 / factors[f] : v0 * factors[f];
            outcome s = run_at(t, c, param, o, x, &v);
            if (s == T_PASS) kp = x;
            if (s == T_FAIL) kf = x;
            note(t, c, param, o, max_runs, x, v, kp, kf);
            if (s == T_UNDECIDED) break; /* hypotheses stop holding this way: try the other */
            if (s != s0) {
                pass = s == T_PASS ? x : prev;
                fail = s == T_PASS ? prev : x;
                t->direction = s0 == T_PASS ? dir : -dir;
                break;
            }
            prev = x;
        }
    }
    if (isnan(pass + fail)) {
        if (s0 == T_PASS) pass = v0;
        else fail = v0;
    }
    if (isnan(pass) || isnan(fail)) {
        if (t->runs >= max_runs)
            snprintf(t->msg, sizeof t->msg,
                     "%s: the run cap (%d runs) was reached before a value %s the claim (stated %g %s)", name,
                     max_runs, s0 == T_PASS ? "breaking" : "passing", v0,
                     s0 == T_PASS ? "passes" : "fails");
        else if (s0 == T_PASS)
            snprintf(t->msg, sizeof t->msg,
                     "%s: no value tried (stated %g scaled by 1e-12 .. 1e12, until the hypotheses stopped "
                     "holding) breaks the claim: the constant is not load-bearing on these instances",
                     name, v0);
        else
            snprintf(t->msg, sizeof t->msg, "%s: the claim fails at the stated %g and at every value tried",
                     name, v0);
        t->sharpest = pass;
        t->breaks_at = fail;
        return 1;
    }
    /* bisect in log scale */
    while (fabs(log(fail / pass)) > log1p(rtol) && t->runs < max_runs) {
        double mid = sqrt(pass * fail);
        outcome s = run_at(t, c, param, o, mid, &v);
        note(t, c, param, o, max_runs, mid, v, s == T_PASS ? mid : pass, s == T_FAIL ? mid : fail);
        if (s == T_UNDECIDED) {
            snprintf(t->msg, sizeof t->msg, "%s = %g gives %s: the bisection stopped", name, mid,
                     lm_verdict_name(v));
            t->sharpest = pass;
            t->breaks_at = fail;
            return 1;
        }
        if (s == T_PASS) pass = mid;
        else fail = mid;
    }
    t->sharpest = pass;
    t->breaks_at = fail;
    if (s0 == T_PASS)
        snprintf(t->msg, sizeof t->msg,
                 "stated %s = %.6g, sharpest found %.6g (%.3g x stated; breaks at %.6g), %d runs", name, v0,
                 pass, pass / v0, fail, t->runs);
    else
        snprintf(t->msg, sizeof t->msg,
                 "stated %s = %.6g FAILS (%s); the claim first holds at %.6g (%.3g x stated), %d runs", name, v0,
                 lm_verdict_name(t->stated_verdict), pass, pass / v0, t->runs);
    return 0;
}
