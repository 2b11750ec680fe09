/* src/verify/slack.c -- the slack of a named constant read off the check's own runs, so
 * `make verify` measures it on the instances and budget of the verdict at no extra full run.
 *
 * The check strength already moves every constant 16-fold each way on the head instances
 * (lm_mutate, cheap mode).  The observation profiles of those runs and of the stated run
 * (lm_config_result.prof_*) tell, for every kind of observation g of every paper configuration,
 * how its log10 ratio moves with the constant C on the head instances.  If it moves as a power
 * of C,
 *
 *     ratio_g(C) = ratio_g(C0) (C0/C)^alpha_g,      log10 ratio moves by alpha_g log10 16
 *                                                   down under x16, up under /16,
 *
 * -- alpha = 1 for a right-hand side linear in C, -1 for a constant on the left, 0 for an
 * observation that does not read C, 1/2 for C under a square root -- then the claim holds
 * exactly when every kind stays at or below ratio 1, and on the stated run's instances (every
 * instance the verdict judged, adversarial ones included: prof_all) that is
 *
 *     C >= C0 10^(M_g / alpha_g) for alpha_g > 0,   C <= C0 10^(M_g / alpha_g) for alpha_g < 0,
 *
 * M_g the largest log10 ratio of kind g.  The sharpest value is the tightest of these bounds.
 * A power law is recognised when the largest and the smallest head ratio of the kind move by
 * the same amount, and by opposite amounts under /16 and x16 (both run); the exponent 0 or +-1
 * is also taken from a single step (the walk stops at its first kill), since a dependence that
 * moves every head observation by exactly log10 16 in one step and is not C^+-1 would be a
 * coincidence.  Anything else -- an affine right-hand side (b0 + C g), a kind seen only beyond
 * the head, hypotheses that hold at one value and not at another, kinds bounding C from both
 * sides -- is not read off, and the constant is bisected instead (lm_tighten).
 *
 * The tolerance of the moves is 1e-6 in log10 (a relative 2.3e-6): far above double's rounding
 * of a ratio, far below a real change of exponent (C^(1+1e-5) moves 1.2e-5 away). */
#include "lm_alloc.h"
#include "lm_constants.h"
#include "lm_schedule.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MOVE_TOL 1e-6
/* the claim-run seconds a guided bisection may spend on one constant */
#define LM_SLACK_SECONDS 2.0

static const lm_config_result *same_config(const lm_claim_result *r, int k, const char *name)
{
    if (!r || k >= r->nconfig || strcmp(r->cfg[k].config, name)) return NULL;
    return &r->cfg[k];
}

/* group g of b in step run x (by its key): its index, or -1 */
static int find_group(const lm_config_result *x, unsigned long long key, int hint)
{
    if (hint < x->prof_n && x->prof_key[hint] == key) return hint;
    for (int g = 0; g < x->prof_n; g++)
        if (x->prof_key[g] == key) return g;
    return -1;
}

/* the exponent alpha of group g of b from the steps run (NULL: not run), or NaN when its moves
 * are not a power law; *need_other: one step only and alpha not 0 or +-1.  *moved: a move seen */
static double group_alpha(const lm_config_result *b, int g, const lm_config_result *lo, const lm_config_result *hi,
                          double L, int *need_other, double *moved)
{
    const lm_config_result *steps[2] = {lo, hi};
    double d[2] = {NAN, NAN};
    *need_other = 0;
    for (int s = 0; s < 2; s++) {
        if (!steps[s]) continue;
        int gx = find_group(steps[s], b->prof_key[g], g);
        if (gx < 0) return NAN;
        double b1 = b->prof_head[g], b2 = b->prof_hmin[g], x1 = steps[s]->prof_head[gx], x2 = steps[s]->prof_hmin[gx];
        if (!isfinite(b1) || !isfinite(b2) || !isfinite(x1) || !isfinite(x2)) return NAN;
        /* the sentinels of a left side <= 0 (-400) or a right side <= 0 (+400) are not moves */
        if (fabs(b1) >= 400 || fabs(x1) >= 400) return b1 == x1 && b2 == x2 ? 0.0 : (double)NAN;
        double d1 = x1 - b1, d2 = x2 - b2;
        *moved = d1;
        if (fabs(d1 - d2) > MOVE_TOL) return NAN; /* largest and smallest moved apart: mixed */
        d[s] = d1;
    }
    double a;
    if (!isnan(d[0]) && !isnan(d[1])) {
        if (fabs(d[0] + d[1]) > MOVE_TOL) return NAN; /* not symmetric in log C: not a power */
        a = (d[0] - d[1]) / (2 * L);
    } else {
        a = !isnan(d[0]) ? d[0] / L : -d[1] / L;
        double r = nearbyint(a);
        if (fabs(r) <= 1 && fabs(a - r) * L <= MOVE_TOL) return r;
        *need_other = 1;
        return NAN;
    }
    if (fabs(a) * L <= MOVE_TOL) a = 0;
    return a;
}

int lm_slack_read_off(lm_constant_row *row, const lm_claim_result *base, const lm_claim_result *lo,
                      const lm_claim_result *hi, double factor)
{
    const char *name = row->param;
    double v0 = row->stated;
    row->stated_verdict = base->verdict;
    row->sharpest = row->breaks_at = NAN;
    row->direction = 0;
    row->decided = 0;
    snprintf(row->method, sizeof row->method, "read off");
    if (!lo && !hi) {
        snprintf(row->msg, sizeof row->msg, "%s: neither 16-fold move was run (outside its range, or the claim "
                 "could not run there)", name);
        return 0;
    }
    if (!(factor > 1) || !(v0 > 0) || !isfinite(v0)) {
        snprintf(row->msg, sizeof row->msg, "%s = %g: not a positive constant", name, v0);
        return 0;
    }
    const double L = log10(factor);
    int dir = 0, npaper = 0, unit = 1;
    long ndep = 0, nfree = 0;
    double bound = NAN, M0 = -INFINITY; /* the tightest log10(C/C0) bound so far */
    for (int k = 0; k < base->nconfig; k++) {
        const lm_config_result *b = &base->cfg[k];
        if (b->reading != LM_READ_PAPER) continue;
        npaper++;
        const lm_config_result *a = same_config(lo, k, b->config), *h = same_config(hi, k, b->config);
        if ((lo && !a) || (hi && !h)) {
            snprintf(row->msg, sizeof row->msg, "%s: configuration %.60s did not run at every value", name,
                     b->config);
            return 0;
        }
        const lm_config_result *steps[2] = {a, h};
        int bad = !b->prof_aligned || !b->prof_head_n;
        for (int s = 0; s < 2; s++)
            if (steps[s] && !steps[s]->prof_aligned) bad = 1;
        if (bad) {
            snprintf(row->msg, sizeof row->msg, "%s: %.60s has no observation profile (no judged head instance, or "
                     "more than %d kinds of observation): no read-off", name, b->config, LM_PROF_GROUPS);
            return 0;
        }
        for (int s = 0; s < 2; s++)
            if (steps[s] && steps[s]->prof_head_n != b->prof_head_n) {
                snprintf(row->msg, sizeof row->msg, "%s: on %.60s %ld of the head instances are judged at the "
                         "stated value and %ld at %s%g: the hypotheses depend on it", name, b->config,
                         b->prof_head_n, steps[s]->prof_head_n, s ? "x" : "/", factor);
                return 0;
            }
        for (int g = 0; g < b->prof_n; g++) {
            if (isinf(b->prof_head[g]) && b->prof_head[g] < 0) {
                snprintf(row->msg, sizeof row->msg, "%s: on %.60s an observation is made only beyond the head "
                         "instances: its dependence is not known", name, b->config);
                return 0;
            }
            double mv = NAN;
            int need = 0;
            double al = group_alpha(b, g, a, h, L, &need, &mv);
            if (need) {
                snprintf(row->msg, sizeof row->msg, "%s: on %.60s an observation moves by 10^%.3g under one step: "
                         "the other step is needed", name, b->config, mv);
                return -1;
            }
            if (isnan(al)) {
                snprintf(row->msg, sizeof row->msg, "%s: on %.60s an observation moves by 10^%.3g under a 16-fold "
                         "step: not as a power of it", name, b->config, mv);
                return 0;
            }
            if (al == 0) {
                nfree++;
                if (b->prof_all[g] > M0) M0 = b->prof_all[g];
                continue;
            }
            if (b->prof_all[g] <= -400) { /* its left side is never positive: it never breaks */
                ndep++;
                continue;
            }
            int gdir = al > 0 ? -1 : 1;
            if (dir && gdir != dir) {
                snprintf(row->msg, sizeof row->msg, "%s: some observations grow with it and others shrink: a "
                         "two-sided bound, no read-off", name);
                return 0;
            }
            dir = gdir;
            ndep++;
            if (fabs(fabs(al) - 1) * L > MOVE_TOL) unit = 0;
            double bd = b->prof_all[g] / al; /* ratio_g <= 1 iff log10(C/C0) >= bd (al > 0), <= bd (al < 0) */
            if (isnan(bound) || (al > 0 ? bd > bound : bd < bound)) bound = bd;
        }
    }
    if (!npaper) {
        snprintf(row->msg, sizeof row->msg, "%s: no configuration reads the paper", name);
        return 0;
    }
    if (!ndep) {
        snprintf(row->msg, sizeof row->msg, "%s: no observation of the paper configurations moves with it "
                 "(%ld kinds checked)", name, nfree);
        return 2;
    }
    int pass = base->verdict == LM_V_HOLDS || base->verdict == LM_V_CONSISTENT || base->verdict == LM_V_ARTIFACT;
    row->direction = dir;
    row->decided = 1;
    if (M0 > 0 && !pass) {
        /* an observation that does not read the constant broke: no value repairs the claim */
        row->direction = 0;
        snprintf(row->msg, sizeof row->msg, "stated %s = %.6g fails, and observations that do not depend on it "
                 "break too (worst ratio 10^%.3g): no value makes the claim hold", name, v0, M0);
        return 1;
    }
    if (isnan(bound)) {
        row->direction = 0;
        snprintf(row->msg, sizeof row->msg, "%s: the observations that move with it never have a positive left "
                 "side: no value breaks the claim", name);
        return 1;
    }
    if (fabs(bound) > 300) {
        snprintf(row->msg, sizeof row->msg, "%s: the sharpest value is stated x 10^%.4g, beyond double's range (the "
                 "observations that move with it are far from their bounds)", name, bound);
        row->direction = 0;
        row->decided = 0;
        return 1;
    }
    row->sharpest = v0 * pow(10.0, bound);
    snprintf(row->msg, sizeof row->msg, "%s: read off the run (%s on %ld kinds of observation, %ld unmoved): stated "
             "%.6g, sharpest %.6g (%.4g x stated)", name,
             unit ? (dir < 0 ? "ratio ~ 1/C" : "ratio ~ C") : "ratio a power of C", ndep, nfree, v0, row->sharpest,
             row->sharpest / v0);
    return 1;
}

extern const char lm_commit[]; /* generated by the build (commit.c) */

void lm_slack_row_key(lm_constant_row *r, const lm_claim *c, int param, const lm_run_opts *o)
{
    memset(r, 0, sizeof *r);
    snprintf(r->claim_id, sizeof r->claim_id, "%s", c->id);
    snprintf(r->param, sizeof r->param, "%s", c->params[param].name);
    r->stated = c->params[param].def;
    for (int k = 0; k < o->nset; k++)
        if (!strcmp(o->set_name[k], c->params[param].name)) r->stated = o->set_val[k];
    r->sharpest = r->breaks_at = NAN;
    r->seconds = NAN;
    r->rtol = 0;
    r->stated_verdict = LM_V_ERROR;
    r->seed = o->seed;
    r->budget = o->budget;
    r->quick = o->quick;
    snprintf(r->commit, sizeof r->commit, "%s", lm_commit);
}

/* the run of c at value x of parameter param on the head instances (budget at most 8), with its
 * profile: NULL when it could not run */
static lm_claim_result *step_run(const lm_claim *c, int param, const lm_run_opts *o, double x)
{
    lm_run_opts q = *o;
    q.progress = q.shrink = q.certify = 0;
    q.profile = 1;
    if (q.budget > 8) q.budget = 8;
    lm_claim_result *r = lm_xmalloc(sizeof *r);
    if (lm_run_opts_set(&q, c->params[param].name, x) == 0 && lm_run_claim(r, c, &q) == 0) return r;
    lm_claim_result_clear(r);
    free(r);
    return NULL;
}

/* the worst ratio of a run over its paper configurations (the claim's verdict's) */
static double paper_worst(const lm_claim_result *r)
{
    double w = -INFINITY;
    for (int k = 0; k < r->nconfig; k++)
        if (r->cfg[k].reading == LM_READ_PAPER && r->cfg[k].worst_ratio > w) w = r->cfg[k].worst_ratio;
    return w;
}

static int passes(lm_verdict v)
{
    return v == LM_V_HOLDS || v == LM_V_CONSISTENT || v == LM_V_ARTIFACT;
}

static int fails(lm_verdict v)
{
    return v == LM_V_VIOLATED || v == LM_V_INCONSISTENT;
}

/* A bisection guided by the worst ratio, for a constant whose bound is not a power of it: the
 * next value is the secant (in log C, log ratio) through the two nearest runs -- a Newton step
 * from the stated run with the slope the walk saw, at first -- kept inside the bracket, and
 * nudged by rtol past the point where the ratio is predicted to cross 1, so a good model
 * brackets the constant in two runs; a step the model gets wrong falls back to the bracket's
 * midpoint.  q: the options of the runs (budget, head or full); x0 = log10 stated with worst
 * ratio w0 and verdict v0 there; slope: d log10 ratio / d log10 C from the walk (NaN: none).
 * Fills row (sharpest, breaks_at, direction, decided, runs).  Returns 1 when bracketed to rtol. */
static int guided(lm_constant_row *row, const lm_claim *c, int param, const lm_run_opts *q, double w0,
                  lm_verdict v0, double slope, double known_fail, double first_try, int max_runs, double rtol)
{
    const double tol = log10(1 + rtol), x0 = log10(row->stated);
    double xp = NAN, xf = NAN, fp = NAN, ff = NAN; /* bracket ends and their log10 ratios */
    double f0 = isfinite(w0) && w0 > 0 ? log10(w0) : (double)NAN;
    if (passes(v0)) xp = x0, fp = f0;
    else if (fails(v0)) xf = x0, ff = f0; /* else (LM_V_COUNT): not known on these instances */
    if (isnan(xf) && known_fail > 0) xf = log10(known_fail); /* a run on these instances broke there */
    double xa = x0, fa = f0, xb = NAN, fb = NAN; /* the two latest points, for the secant */
    if (!isfinite(slope) || fabs(slope) < 1e-3) slope = -1; /* a right-hand side linear in C, at first */
    int dir = 0; /* -1: smaller is tighter */
    while (row->runs < max_runs) {
        double x;
        double s = isfinite(fb) && isfinite(fa) && xa != xb ? (fa - fb) / (xa - xb) : slope;
        if (isfinite(fa) && isfinite(s) && fabs(s) > 1e-6) {
            x = xa - fa / s;
            /* nudge past the crossing, to the side the bracket lacks */
            double toward_fail = s < 0 ? -1 : 1; /* moving this way raises the ratio */
            x += (isnan(xf) ? toward_fail : isnan(xp) ? -toward_fail : 0) * tol / 2;
        } else
            x = NAN;
        if (!isnan(xp) && !isnan(xf)) {
            double lo = fmin(xp, xf), hi = fmax(xp, xf);
            if (hi - lo <= tol) break;
            if (!(x > lo && x < hi)) x = (lo + hi) / 2;
            /* a secant step that would barely shrink the bracket: bisect */
            else if (fmin(x - lo, hi - x) < (hi - lo) / 16) x = (lo + hi) / 2;
        } else if (row->runs == 0 && first_try > 0)
            x = log10(first_try);
        else if (!isfinite(x) || fabs(x - x0) > 12)
            x = x0 + (isnan(xf) ? (slope < 0 ? -1 : 1) : (slope < 0 ? 1 : -1)) * (row->runs + 1);
        lm_run_opts r1 = *q;
        double val = pow(10.0, x);
        lm_claim_result r;
        row->runs++;
        if (lm_run_opts_set(&r1, c->params[param].name, val) || lm_run_claim(&r, c, &r1)) {
            lm_claim_result_clear(&r);
            snprintf(row->msg, sizeof row->msg, "%s = %.6g could not be run: the search stopped", row->param, val);
            break;
        }
        double w = paper_worst(&r);
        lm_verdict v = r.verdict;
        lm_claim_result_clear(&r);
        double f = isfinite(w) && w > 0 ? log10(w) : (double)NAN;
        if (passes(v)) xp = x, fp = f;
        else if (fails(v)) xf = x, ff = f;
        else {
            snprintf(row->msg, sizeof row->msg, "%s = %.6g gives %s: the search stopped", row->param, val,
                     lm_verdict_name(v));
            break;
        }
        xb = xa, fb = fa, xa = x, fa = f;
    }
    (void)fp;
    (void)ff;
    if (!isnan(xp)) row->sharpest = pow(10.0, xp);
    if (!isnan(xf)) row->breaks_at = pow(10.0, xf);
    if (!isnan(xp) && !isnan(xf)) dir = xf < xp ? -1 : 1;
    row->direction = dir;
    row->decided = !isnan(xp) && !isnan(xf) && fabs(xp - xf) <= tol * 1.0000001;
    return row->decided;
}

int lm_slack_rows(lm_constant_row *rows, int max, const lm_claim *c, const lm_run_opts *o,
                  const lm_claim_result *base, lm_mutation_report *mr)
{
    int n = 0;
    for (int k = 0; k < mr->nm && n < max; k++) {
        const lm_mutant *m = &mr->m[k];
        if (strcmp(m->kind, "constant") || m->param < 0) continue;
        lm_constant_row *r = &rows[n++];
        lm_slack_row_key(r, c, m->param, o);
        r->max_runs = 1;
        int rc = lm_slack_read_off(r, base, mr->step[k][0], mr->step[k][1], 16.0);
        if (rc == -1) {
            /* an exponent other than 0 and +-1 is told from both steps: run the missing one */
            int s = mr->step[k][0] ? 1 : 0;
            lm_range rg;
            double x = s ? r->stated * 16 : r->stated / 16;
            if (lm_param_range(&rg, &c->params[m->param]) == 0 && lm_range_contains(&rg, x))
                mr->step[k][s] = step_run(c, m->param, o, x);
            r->runs += mr->step[k][s] != NULL;
            rc = mr->step[k][s] ? lm_slack_read_off(r, base, mr->step[k][0], mr->step[k][1], 16.0) : 0;
            if (rc == -1) rc = 0;
        }
        if (rc == 1) continue;
        if (m->killed == 0) {
            /* the walk moved it by up to 1e12 either way (within its range) and broke nothing: no
             * value breaks the claim on the head instances -- a constant that is not load-bearing */
            r->direction = 0;
            r->decided = 1;
            r->sharpest = r->stated; /* the stated value passes (the verdict), and none broke it */
            snprintf(r->method, sizeof r->method, "walk");
            snprintf(r->msg, sizeof r->msg, "%s: %s; %.150s", r->param,
                     rc == 2 ? "no observation of the paper configurations reads it" : "no value tried breaks the claim",
                     m->note);
            continue;
        }
        if (m->killed < 0) {
            snprintf(r->method, sizeof r->method, "walk");
            snprintf(r->msg, sizeof r->msg, "%s: undecided: %.200s", r->param, m->note);
            continue;
        }
        /* not a power law: a guided bisection, on the verdict's own instances when a run of the
         * claim is cheap, else on its head instances (the first of each configuration, which the
         * verdict judged too), within about LM_SLACK_SECONDS of runs */
        char why[200];
        snprintf(why, sizeof why, "%.199s", r->msg);
        const lm_claim_result *st = mr->step[k][0] ? mr->step[k][0] : mr->step[k][1];
        double slope = NAN, L = log10(16.0), wh = NAN;
        for (int j = 0; j < base->nconfig; j++) {
            const lm_config_result *b = &base->cfg[j];
            if (b->reading != LM_READ_PAPER || !b->prof_aligned) continue;
            for (int g = 0; g < b->prof_n; g++)
                if (isnan(wh) || b->prof_head[g] > wh) wh = b->prof_head[g];
        }
        if (st && isfinite(wh)) {
            double ws = paper_worst(st);
            if (ws > 0 && isfinite(ws)) slope = (log10(ws) - wh) / (st == mr->step[k][0] ? -L : L);
        }
        /* the allowance is counted in the claim's reference cost (data/costs.tsv, scaled to this
         * budget), a number of the source tree: how far a constant is bisected, and so the slack
         * it finds, is the same on any machine and however busy it is.  A claim not in the
         * table (new since it was made) falls back to the CPU seconds of its own run. */
        double ref = c->ref_seconds > 0 ? c->ref_seconds : lm_claim_cost(c->id);
        double t = isfinite(ref) ? ref * (double)o->budget / 64.0 : base->cpu_seconds;
        if (!(t > 1e-3)) t = 1e-3;
        lm_run_opts q = *o;
        q.progress = q.shrink = q.certify = 0;
        q.profile = 0;
        const char *where = "on the verdict's instances";
        int runs = (int)(LM_SLACK_SECONDS / t);
        double w0 = paper_worst(base);
        lm_verdict v0 = base->verdict;
        if (runs < 4 && o->budget > 8) {
            q.budget = 8;
            runs = (int)(LM_SLACK_SECONDS * 8 / t);
            where = "on the head instances (budget 8)";
            w0 = isfinite(wh) ? pow(10.0, wh) : (double)NAN;
            if (!passes(v0)) v0 = LM_V_COUNT; /* the head alone may pass where the whole fails */
        }
        if (runs > 12) runs = 12;
        /* the walk's breaking value: a break on the head instances, which a head bisection runs on
         * too (a known end of the bracket) and a full one tries first */
        double kill = m->killed == 1 && isfinite(m->value) && m->value > 0 ? m->value : (double)NAN;
        r->runs = 0;
        r->max_runs = runs;
        if (runs < 3) {
            snprintf(r->method, sizeof r->method, "not run");
            snprintf(r->msg, sizeof r->msg, "%.150s; a bisection would take about %.0f s here: lemmata constants %s "
                     "measures it", why, 6 * t / (q.budget == 8 && o->budget > 8 ? 8 : 1), c->id);
            continue;
        }
        snprintf(r->method, sizeof r->method, q.budget < o->budget ? "bisection (head)" : "bisection");
        int head = q.budget < o->budget;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        int ok = guided(r, c, m->param, &q, w0, v0, slope, head ? kill : (double)NAN, head ? (double)NAN : kill, runs, 0.05);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        r->seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        if (!ok && isnan(r->breaks_at) && isfinite(kill)) {
            /* the walk broke the claim there on the head instances, which the verdict judges too:
             * a known end, so a search that found no break of its own is not "no break" */
            r->breaks_at = kill;
            if (isfinite(r->sharpest) && r->sharpest != kill) r->direction = kill < r->sharpest ? -1 : 1;
        }
        if (ok)
            snprintf(r->msg, sizeof r->msg, "%s: bisected %s in %d runs (not a power law: %.90s): stated %.6g, "
                     "sharpest %.6g, breaks at %.6g", r->param, where, r->runs, why, r->stated, r->sharpest,
                     r->breaks_at);
        else if (!strstr(r->msg, "the search stopped"))
            snprintf(r->msg, sizeof r->msg, "%s: no bracket within %d runs %s (not a power law: %.100s)", r->param,
                     r->runs, where, why);
    }
    return n;
}
