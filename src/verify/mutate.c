/* src/verify/mutate.c -- lemmata audits itself: the standard mutants of a claim
 * (lm_verify.h, lm_mutate) and whether its check kills them.
 *
 * A mutant is the claim with one deliberate error, run on the same instances (same
 * seed, budget, configurations).  It is killed when its verdict is `violated` or
 * `inconsistent`, survives when it passes (holds, consistent, artifact), and is
 * undecided otherwise (an error, unmet hypotheses, a refused value, or `vacuous`: a
 * mutant never tested non-trivially): an undecided mutant is listed but not counted.  So
 * is an *equivalent* mutant -- one the run shows to be a true statement on these
 * instances, which no sound check can kill (a rate exponent that is not sharp, the flip of
 * a claim broken everywhere; both below).  The standard mutants:
 *   scale     every right-hand side times half the worst ratio seen (so the worst
 *             instance's ratio becomes 2); with a negative worst ratio there is nothing to
 *             scale and the mutant survives ("the left side is never positive"); with a worst
 *             ratio of exactly 0 (a count of defects or an exact residual, always 0) the
 *             check is an exactness statement and the mutant is undecided (flip tests it);
 *             not for identities (their right-hand side is a rounding tolerance)
 *   flip      every inequality reversed (not for identities, whose residual <= tol
 *             flipped says nothing); killed when some observation held strictly; for a
 *             claim violated at every observation the flip is what was observed (a true
 *             statement: equivalent, not counted)
 *   constant  each named constant moved past the sharpest value with which the claim
 *             still passes (lm_tighten's nearest failing value); survives when no value
 *             in its range breaks the claim
 *   exponent  each exponent (range type word "exponent") of a rate claim moved by -1 and
 *             by +1; one of the two is a weaker statement the claim implies, so when
 *             exactly one is killed the other is not counted, and when neither is one
 *             survivor counts.  The exponent of a bound that is not a rate claim (the power
 *             of n in a Lipschitz constant) is a constant of that bound: it is moved past its
 *             sharpest value like one, additively (the walk of the cheap mode below, with
 *             steps 1, 2, 4, 8, 16), in both modes
 * In the cheap mode (make verify), scale and flip are read off the claim's own run
 * (worst ratio; lm_config_result.flip_held), a constant is walked out instead of
 * bisected (16-fold each way, then on in the direction that raised the worst ratio by
 * 256, 1e4, 1e8 and 1e12 until a run breaks the claim: moved past its sharpest value
 * without locating it), and the mutant runs use at most the quick budget's 8 instances
 * per configuration. */
#include "lm_alloc.h"
#include "lm_constants.h"
#include "lm_verify.h"
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* 1 killed, 0 survived, -1 undecided.  A mutant that comes out vacuous was never tested
 * non-trivially (its hypothesis never met, or its right-hand side above the quantity's
 * a-priori maximum, on every instance): like a mutant whose hypotheses fail, it is listed
 * as undecided and not counted -- it neither passed nor was caught */
static int killed_by(lm_verdict v)
{
    if (v == LM_V_VIOLATED || v == LM_V_INCONSISTENT) return 1;
    if (v == LM_V_HOLDS || v == LM_V_CONSISTENT || v == LM_V_ARTIFACT) return 0;
    return -1;
}

static lm_mutant *add(lm_mutation_report *mr, const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static lm_mutant *add(lm_mutation_report *mr, const char *kind, const char *fmt, ...)
{
    if (mr->nm >= LM_MAX_MUTANTS) return NULL;
    lm_mutant *m = &mr->m[mr->nm++];
    memset(m, 0, sizeof *m);
    snprintf(m->kind, sizeof m->kind, "%s", kind);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->name, sizeof m->name, fmt, ap);
    va_end(ap);
    m->verdict = LM_V_COUNT;
    m->value = NAN;
    m->param = -1;
    return m;
}

/* the fitted rate of a run (lm_rate_judge's measures on the worst instance of its paper
 * configurations): the largest standard error of a slope and that slope; 0 when none */
typedef struct {
    int have;
    double se, slope, claimed;
} rate_seen;

static int ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && !strncmp(s + n - k, suffix, k);
}

static void rate_of(rate_seen *rs, const lm_claim_result *r)
{
    memset(rs, 0, sizeof *rs);
    for (int k = 0; k < r->nconfig; k++) {
        const lm_config_result *cr = &r->cfg[k];
        if (cr->reading != LM_READ_PAPER || !cr->measures) continue;
        double slope = NAN, claimed = NAN;
        for (const char *l = cr->measures; *l;) {
            const char *nl = strchr(l, '\n'), *end = nl ? nl : l + strlen(l), *eq = l;
            for (const char *q = l; q < end; q++)
                if (*q == '=') eq = q; /* the last '=' of the line: names may hold one */
            if (eq > l) {
                double v = strtod(eq + 1, NULL);
                size_t n = (size_t)(eq - l);
                if (ends_with(l, n, LM_RATE_M_SLOPE)) slope = v;
                if (ends_with(l, n, LM_RATE_M_CLAIMED)) claimed = v;
                if (ends_with(l, n, LM_RATE_M_SE) && isfinite(v) && (!rs->have || v > rs->se)) {
                    rs->have = 1;
                    rs->se = v;
                    rs->slope = slope;
                    rs->claimed = claimed;
                }
            }
            l = nl ? nl + 1 : end;
        }
    }
}

/* a mutant's fitted rate resolves its move: the claimed slope moved from the stated run's and
 * the 95% interval of the fit (2 x 1.96 se) is narrower than the move */
static int resolved(const rate_seen *m, const rate_seen *base)
{
    if (!m->have || !base->have || !isfinite(m->claimed) || !isfinite(base->claimed)) return 0;
    double move = fabs(m->claimed - base->claimed);
    return move > 0 && 2 * 1.96 * m->se < move;
}

/* one run of c with o's settings plus a mutation; the verdict (LM_V_ERROR when refused) */
static lm_verdict run_mutant_keep(const lm_claim *c, const lm_run_opts *o, double scale, int flip,
                                  const char *pname, double pval, double *worst, rate_seen *rs,
                                  lm_claim_result **keep)
{
    lm_run_opts q = *o;
    q.progress = 0;
    q.shrink = 0;
    q.certify = 0;
    q.mutate_scale = scale;
    q.mutate_flip = flip;
    lm_claim_result r;
    lm_verdict v = LM_V_ERROR;
    if (pname && lm_run_opts_set(&q, pname, pval)) return v;
    if (rs) memset(rs, 0, sizeof *rs);
    if (lm_run_claim(&r, c, &q) == 0) {
        v = r.verdict;
        if (worst) *worst = r.worst_ratio;
        if (rs) rate_of(rs, &r);
        if (keep) {
            *keep = lm_xmalloc(sizeof **keep);
            **keep = r;
            return v;
        }
    }
    lm_claim_result_clear(&r);
    return v;
}

static lm_verdict run_mutant_rate(const lm_claim *c, const lm_run_opts *o, double scale, int flip,
                                  const char *pname, double pval, double *worst, rate_seen *rs)
{
    return run_mutant_keep(c, o, scale, flip, pname, pval, worst, rs, NULL);
}

static lm_verdict run_mutant(const lm_claim *c, const lm_run_opts *o, double scale, int flip, const char *pname,
                             double pval, double *worst)
{
    return run_mutant_rate(c, o, scale, flip, pname, pval, worst, NULL);
}

/* a cheap mutant read off the claim's own run, when the claim was not judged on its paper
 * instances: undecided */
static void not_read_off(lm_mutant *m, const lm_claim_result *base)
{
    m->killed = -1;
    snprintf(m->note, sizeof m->note, "the claim was not judged on its paper instances (%s): no run to read the "
             "mutant off", lm_verdict_name(base->verdict));
}

static void settle(lm_mutant *m, lm_verdict v)
{
    m->verdict = v;
    m->killed = killed_by(v);
}

/* an exponent: the range type word says so, or the doc starts with "exponent" */
static int is_exponent(const lm_param_def *p)
{
    lm_param_role r = lm_param_role_of(p);
    if (r == LM_ROLE_EXPONENT) return 1;
    if (r != LM_ROLE_AUTO || p->choices) return 0;
    return p->doc && !strncasecmp(p->doc, "exponent", 8);
}

static double param_value(const lm_claim *c, int k, const lm_run_opts *o)
{
    double v = c->params[k].def;
    for (int s = 0; s < o->nset; s++)
        if (!strcmp(o->set_name[s], c->params[k].name)) v = o->set_val[s];
    return v;
}

/* a constant moved past its sharpest value without locating it: a walk outwards within the
 * declared range -- one step each way (x16 and /16, or +-1 for an additive exponent), then on
 * by 256, 1e4, 1e8 and 1e12 (lm_tighten's reach; +-2, 4, 8, 16 for an exponent) until a run
 * breaks the claim.  After the first step only the direction whose worst ratio grew (the
 * stronger statement) is walked on, when one did; a step past the declared range is replaced
 * by the range's own end (just inside an open end) and closes the direction, as does a run
 * whose hypotheses stop holding; a vacuous run keeps it open (a smaller constant may make the
 * statement bite).  Settles m: killed; survived when some run passed; undecided when every
 * run was vacuous, out of range or outside the hypotheses. */
static void walk_out(lm_mutant *m, lm_mutation_report *mr, const lm_claim *c, const lm_run_opts *o,
                     const lm_claim_result *base, const lm_param_def *p, double v0, int additive)
{
    /* the first step's runs are kept for the slack read-off (a multiplicative constant only) */
    lm_claim_result **keep = !additive && o->profile ? mr->step[m - mr->m] : NULL;
    static const double steps_mul[] = {16, 256, 1e4, 1e8, 1e12}, steps_add[] = {1, 2, 4, 8, 16};
    const double *steps = additive ? steps_add : steps_mul;
    lm_range rg;
    int have_range = lm_param_range(&rg, p) == 0;
    int tried = 0, passed = 0, vac = 0;
    int open_dir[2] = {1, 1};
    double wfirst[2] = {NAN, NAN}, reach[2] = {v0, v0}; /* the furthest passing value each way */
    for (int f = 0; f < 5 && m->killed != 1 && (open_dir[0] || open_dir[1]); f++) {
        for (int j = 0; j < 2 && m->killed != 1; j++) {
            if (!open_dir[j]) continue;
            double x = additive ? v0 + (2 * j - 1) * steps[f] : j == 0 ? v0 / steps[f] : v0 * steps[f];
            if (have_range && !lm_range_contains(&rg, x)) {
                /* past the declared range: the last step is the range's own end (just inside an
                 * open end), when that lies beyond the value reached so far */
                double end = j == 0 ? rg.lo : rg.hi;
                int op = j == 0 ? rg.lo_open : rg.hi_open;
                open_dir[j] = 0;
                if (!isfinite(end) || rg.integer) continue;
                x = op ? end - (2 * j - 1) * (fabs(end) > 0 ? 1e-9 * fabs(end) : 1e-300) : end;
                if (!lm_range_contains(&rg, x) || (j == 0 ? x >= reach[0] : x <= reach[1])) continue;
            }
            double wr = NAN;
            int first = f == 0 && x == (j == 0 ? v0 / steps[0] : v0 * steps[0]);
            lm_verdict v = run_mutant_keep(c, o, 1.0, 0, p->name, x, &wr, NULL, first && keep ? &keep[j] : NULL);
            tried++;
            int k = killed_by(v);
            if (k == 1) {
                m->killed = 1;
                m->value = x;
                m->verdict = v;
                snprintf(m->name, sizeof m->name, "%s=%.6g", p->name, x);
            } else if (k == 0) {
                passed++;
                reach[j] = x;
                if (f == 0) wfirst[j] = wr;
            } else if (v == LM_V_VACUOUS)
                vac++;
            else
                open_dir[j] = 0; /* the hypotheses stop holding (or the run is refused) this way */
        }
        if (f == 0 && isfinite(wfirst[0]) && isfinite(wfirst[1])) {
            /* walk on only in the direction that raised the worst ratio, when one did */
            double wb = base->worst_ratio, ref = isfinite(wb) ? wb : -(double)INFINITY;
            int up0 = wfirst[0] > ref * (1 + 1e-9) + 1e-300, up1 = wfirst[1] > ref * (1 + 1e-9) + 1e-300;
            if (up0 && !up1) open_dir[1] = 0;
            if (up1 && !up0) open_dir[0] = 0;
        }
    }
    mr->runs_extra += tried;
    if (m->killed == 1) return;
    m->killed = passed ? 0 : -1;
    if (passed)
        snprintf(m->note, sizeof m->note, "%s = %g moved as far as %g and %g (%d runs) does not break the claim",
                 p->name, v0, reach[0], reach[1], tried);
    else if (vac)
        snprintf(m->note, sizeof m->note, "%s = %g: every value tried (%d runs) leaves the statement vacuous",
                 p->name, v0, tried);
    else if (!tried)
        snprintf(m->note, sizeof m->note, "%s = %g: one step either way is outside its range", p->name, v0);
    else
        snprintf(m->note, sizeof m->note, "%s = %g: the hypotheses fail at every value tried (%d runs)", p->name,
                 v0, tried);
}

int lm_mutate(lm_mutation_report *mr, const lm_claim *c, const lm_run_opts *o, const lm_claim_result *base,
              int cheap)
{
    memset(mr, 0, sizeof *mr);
    mr->claim = c;
    /* the cheap mode runs its constant and exponent mutants on the first 8 instances of each
     * configuration (the quick budget's, the same draws: an instance's seed depends on its
     * index, not on the budget), so measuring strength costs a bounded number of runs */
    lm_run_opts oc;
    if (cheap && o->budget > 8) {
        oc = *o;
        oc.budget = 8;
        o = &oc;
    }
    lm_claim_result own;
    int have_own = 0;
    if (!base) {
        lm_run_opts q = *o;
        q.progress = 0;
        q.shrink = 0;
        q.certify = 0;
        if (lm_run_claim(&own, c, &q) != 0) {
            lm_claim_result_clear(&own);
            snprintf(mr->note, sizeof mr->note, "the claim could not be run as stated");
            return -1;
        }
        base = &own;
        have_own = 1;
    }
    mr->stated = base->verdict;
    mr->worst_ratio = base->worst_ratio;
    /* a claim not judged on its paper instances (not-checkable, error, unmet hypotheses) has
     * no run to read the scale and flip mutants off */
    int judged = base->verdict != LM_V_NOT_CHECKABLE && base->verdict != LM_V_ERROR &&
                 base->verdict != LM_V_ASSUMPTION_FAILED;

    /* scale: the worst instance's ratio made 2 (not for identities: their right-hand side is
     * a rounding tolerance, and a residual of double's rounding over a scaled tolerance is an
     * artifact in MPFR, not a false identity) */
    double w = base->worst_ratio;
    lm_mutant *m = c->kind == LM_KIND_IDENTITY ? NULL : add(mr, "scale", "right-hand side x worst/2");
    if (m) {
        if (cheap && !judged) {
            not_read_off(m, base);
        } else if (isinf(w) && w > 0) {
            /* the claim already fails against a right-hand side of zero: scaling it changes nothing */
            m->killed = -1;
            snprintf(m->note, sizeof m->note, "worst ratio infinite (a right-hand side of 0 is broken already): "
                                              "nothing to scale");
        } else if (w == 0) {
            /* the left side is exactly 0 on every instance: the check is an exactness statement
             * (a count of defects, a residual of an exact construction, <= a tolerance), and no
             * scaling of its tolerance can matter -- the flip mutant tests it */
            m->killed = -1;
            snprintf(m->note, sizeof m->note, "the left-hand side is exactly 0 on every instance (an exactness "
                                              "statement): scaling its tolerance cannot matter");
        } else if (!(w > 0)) {
            m->killed = 0;
            snprintf(m->note, sizeof m->note, "the left-hand side is never positive (worst ratio %g): no scaling "
                                              "of the right-hand side can break the check", w);
        } else {
            double f = w / 2;
            if (f < 1e-300) f = 1e-300;
            if (f > 1e300) f = 1e300;
            m->value = f;
            snprintf(m->name, sizeof m->name, "scale=%.3g", f);
            if (cheap) { /* the worst instance's observation at ratio 2 breaks: the run has it */
                m->killed = 1;
                snprintf(m->note, sizeof m->note, "read off the run: its worst instance has ratio 2 against the "
                                                  "scaled right-hand side");
            } else
                settle(m, run_mutant(c, o, f, 0, NULL, 0, NULL));
        }
    }
    /* flip */
    if (c->kind != LM_KIND_IDENTITY && (m = add(mr, "flip", "flip"))) {
        if (cheap && !judged) {
            not_read_off(m, base);
        } else if (cheap) {
            long held = 0, inst = 0;
            for (int k = 0; k < base->nconfig; k++) {
                const lm_config_result *cr = &base->cfg[k];
                if (cr->reading != LM_READ_PAPER) continue;
                held += cr->flip_held;
                inst += cr->instances;
            }
            m->killed = held > 0;
            snprintf(m->note, sizeof m->note, "read off the run: %ld of %ld paper instances held strictly", held,
                     inst);
        } else
            settle(m, run_mutant(c, o, 1.0, 1, NULL, 0, NULL));
        if (m->killed == 0 && (base->verdict == LM_V_VIOLATED || base->verdict == LM_V_INCONSISTENT)) {
            /* no observation of a broken claim held strictly, so its flip is exactly what was observed:
             * a true statement on these instances (equivalent), listed, not counted */
            m->killed = -1;
            snprintf(m->note, sizeof m->note, "equivalent: the claim is %s and no paper observation held "
                     "strictly, so the flipped inequality is what the run observed", lm_verdict_name(base->verdict));
        }
    }
    /* constants */
    int idx[128];
    int nconst = lm_claim_constants(c, idx, 128);
    for (int j = 0; j < nconst && j < 128; j++) {
        const lm_param_def *p = &c->params[idx[j]];
        double v0 = param_value(c, idx[j], o);
        if (!(m = add(mr, "constant", "%s past its sharpest", p->name))) break;
        m->param = idx[j];
        if (cheap) {
            walk_out(m, mr, c, o, base, p, v0, 0);
        } else {
            lm_tighten_result t;
            lm_run_opts q = *o;
            q.progress = 0;
            q.shrink = 0;
            q.certify = 0;
            int rc = lm_tighten(&t, c, idx[j], &q, 0.25, 16);
            mr->runs_extra += t.runs;
            if (rc == 0 && isfinite(t.breaks_at) && (t.stated_verdict == LM_V_HOLDS ||
                                                     t.stated_verdict == LM_V_CONSISTENT ||
                                                     t.stated_verdict == LM_V_ARTIFACT)) {
                m->value = t.breaks_at;
                m->killed = 1;
                m->verdict = c->proxy ? LM_V_INCONSISTENT : LM_V_VIOLATED; /* tighten's failing run */
                snprintf(m->name, sizeof m->name, "%s=%.6g", p->name, t.breaks_at);
                snprintf(m->note, sizeof m->note, "sharpest passing %.6g (stated %.6g)", t.sharpest, v0);
            } else if (killed_by(t.stated_verdict) == 1) {
                /* fails as stated: the mutant moved further breaks too, by the same run */
                m->killed = 1;
                m->verdict = t.stated_verdict;
                snprintf(m->note, sizeof m->note, "the claim fails at the stated value already");
            } else {
                m->killed = killed_by(t.stated_verdict) < 0 ? -1 : 0;
                snprintf(m->note, sizeof m->note, "%.190s", t.msg);
            }
        }
    }
    rate_seen base_rate; /* the stated run's fitted rate, for equivalent exponent mutants */
    rate_of(&base_rate, base);
    /* exponents: -1 and +1.  A bound is monotone in its exponent, so one of the two is
     * implied by the claim itself (a weaker statement) and no sound check can kill it: when
     * exactly one is killed, the other is that weaker mutant and is not counted; when neither
     * is, the stronger one (unknown which) survives: one survivor is counted */
    for (int k = 0; c->params && c->params[k].name; k++) {
        const lm_param_def *p = &c->params[k];
        if (!is_exponent(p)) continue;
        double v0 = param_value(c, k, o);
        if (c->kind != LM_KIND_RATE) {
            /* the exponent of a bound that is not a rate claim (a power of n, d or R in a
             * Lipschitz constant) is a constant of that bound: moved past its sharpest value,
             * additively */
            if (!(m = add(mr, "exponent", "%s past its sharpest", p->name))) break;
            m->param = k;
            walk_out(m, mr, c, o, base, p, v0, 1);
            continue;
        }
        lm_range rg;
        int have_range = lm_param_range(&rg, p) == 0;
        lm_mutant *pair[2] = {NULL, NULL};
        rate_seen seen[2];
        memset(seen, 0, sizeof seen);
        for (int d = -1; d <= 1; d += 2) {
            double x = v0 + d;
            if (!(m = add(mr, "exponent", "%s=%.6g", p->name, x))) break;
            pair[(d + 1) / 2] = m;
            m->value = x;
            if (have_range && !lm_range_contains(&rg, x)) {
                m->killed = -1;
                snprintf(m->note, sizeof m->note, "outside the declared range %s", p->range ? p->range : "");
                continue;
            }
            settle(m, run_mutant_rate(c, o, 1.0, 0, p->name, x, NULL, &seen[(d + 1) / 2]));
        }
        if (!pair[0] || !pair[1]) continue;
        int k0 = pair[0]->killed, k1 = pair[1]->killed;
        if (k0 == 1 && k1 == 0) {
            pair[1]->killed = -1;
            snprintf(pair[1]->note, sizeof pair[1]->note, "weaker than the claim (implied by it): not counted");
        } else if (k1 == 1 && k0 == 0) {
            pair[0]->killed = -1;
            snprintf(pair[0]->note, sizeof pair[0]->note, "weaker than the claim (implied by it): not counted");
        } else if (k0 == 0 && k1 == 0 && resolved(&seen[0], &base_rate) && resolved(&seen[1], &base_rate)) {
            /* an equivalent mutant: the exponent is the claimed slope of a fitted rate (moving it
             * moved the claimed slope), the fit resolves that move (its 95% interval is
             * narrower), and both directions pass -- the stronger one is a true statement on
             * these instances (the claimed exponent is not sharp), which no sound check can
             * kill; listed, not counted */
            for (int j = 0; j < 2; j++) {
                pair[j]->killed = -1;
                snprintf(pair[j]->note, sizeof pair[j]->note, "equivalent: the claimed slope %.4g passes against "
                         "a fitted %.4g (se %.2g, resolving the move from %.4g): the claimed exponent is not "
                         "sharp here", seen[j].claimed, seen[j].slope, seen[j].se, base_rate.claimed);
            }
        } else if (k0 == 0 && k1 == 0) {
            pair[1]->killed = -1;
            snprintf(pair[0]->note, sizeof pair[0]->note, "neither direction breaks the check: one survivor counted");
            snprintf(pair[1]->note, sizeof pair[1]->note, "counted once with %s", pair[0]->name);
        }
    }
    for (int k = 0; k < mr->nm; k++) {
        if (mr->m[k].killed < 0) continue;
        mr->run++;
        mr->killed += mr->m[k].killed == 1;
    }
    /* the survivors, one phrase each */
    int wn = 0;
    for (int k = 0; k < mr->nm && (size_t)wn < sizeof mr->note; k++)
        if (mr->m[k].killed == 0)
            wn += snprintf(mr->note + wn, sizeof mr->note - (size_t)wn, "%s%s survives", wn ? "; " : "",
                           mr->m[k].name);
    if (have_own) lm_claim_result_clear(&own);
    return 0;
}

void lm_mutation_report_clear(lm_mutation_report *mr)
{
    for (int k = 0; k < LM_MAX_MUTANTS; k++)
        for (int j = 0; j < 2; j++)
            if (mr->step[k][j]) {
                lm_claim_result_clear(mr->step[k][j]);
                free(mr->step[k][j]);
                mr->step[k][j] = NULL;
            }
}

/* through Jansson (17 significant digits, null for what is not finite), keys as they were */
void lm_mutation_json(FILE *f, const lm_mutation_report *mr)
{
    json_t *o = json_object(), *list = json_array();
    json_object_set_new(o, "id", json_string(mr->claim->id));
    json_object_set_new(o, "stated", json_string(lm_verdict_name(mr->stated)));
    json_object_set_new(o, "mutants", json_integer(mr->run));
    json_object_set_new(o, "killed", json_integer(mr->killed));
    json_object_set_new(o, "strength", mr->run ? json_real((double)mr->killed / mr->run) : json_null());
    for (int k = 0; k < mr->nm; k++) {
        const lm_mutant *m = &mr->m[k];
        json_t *e = json_object();
        json_object_set_new(e, "kind", json_string(m->kind));
        json_object_set_new(e, "name", json_string(m->name));
        json_object_set_new(e, "verdict", m->verdict < LM_V_COUNT ? json_string(lm_verdict_name(m->verdict)) : json_null());
        json_object_set_new(e, "value", isfinite(m->value) ? json_real(m->value) : json_null());
        json_object_set_new(e, "killed", m->killed == 1 ? json_true() : m->killed == 0 ? json_false() : json_null());
        json_object_set_new(e, "note", json_string(m->note));
        json_array_append_new(list, e);
    }
    json_object_set_new(o, "list", list);
    json_dumpf(o, f, JSON_COMPACT | JSON_REAL_PRECISION(17));
    fputc('\n', f);
    json_decref(o);
}
