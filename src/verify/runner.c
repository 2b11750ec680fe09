/* runner.c -- claims x configurations x instances x precisions -> verdicts.
 *
 * Per configuration: budget*inst_scale random instances and, when the claim
 * declares a search dimension, adversarial restarts (Nelder-Mead on
 * log(a/b) in double).  Every instance is first evaluated in the primary
 * precision (double unless --prec); a break or a near miss is evaluated again,
 * from the same seed, wholly in MPFR at >= 256 bits.  A break that survives
 * there is `violated` (`inconsistent` for proxy claims); one that vanishes is
 * an `artifact`; a near miss that holds in MPFR holds.
 */
#include "lm_proc.h"
#include "eval_priv.h"
#include "instances_priv.h"
#include "lm_alloc.h"
#include "lm_verify.h"
#include <gsl/gsl_multimin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void lm_run_opts_default(lm_run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 20241122;
    o->budget = 64;
    o->prec = 0;
    o->replay_prec = 256;
    o->only_instance = -1;
    o->certify = 1;
    o->cert_max_prec = 2048;
    o->shrink = 1;
    o->mutate_scale = 1.0;
}

int lm_run_opts_set(lm_run_opts *o, const char *name, double v)
{
    int slot = -1;
    for (int k = 0; k < o->nset; k++)
        if (!strcmp(o->set_name[k], name)) slot = k;
    if (slot < 0) {
        if (o->nset >= 64) return -1;
        slot = o->nset++;
        o->set_name[slot] = name;
    }
    o->set_val[slot] = v;
    return 0;
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
    double log10;     /* worst log10 ratio */
    int t;
    char where[160];
    int broke, near, first_break_t, near_tmax; /* near_tmax: replay horizon for near misses */
    int untimed_too; /* a whole-run observation broke besides the timed one at first_break_t */
    int rate_only;   /* the only breaks are fitted rates judged in double: no replay */
    int failed, assume_failed, not_checkable;
    int vacuous;
    int flip_broke;
    int cert_broke;
    long nobs;
    char why[400];
    char *measures, *series;
    char *sizes, *data;  /* lm_size requests, lm_data_* output */
    char axes[160];
    unsigned long long *prof_key; /* the observation profile (lm_run_opts.profile): nobs */
    double *prof;                 /* label skeletons and log10 ratios */
    int prof_over;                /* more than LM_PROF_MAX observations */
} inst_out;

static void inst_out_free(inst_out *o)
{
    free(o->prof);
    free(o->prof_key);
    o->prof = NULL;
    o->prof_key = NULL;
    free(o->measures);
    free(o->series);
    free(o->sizes);
    free(o->data);
    o->measures = o->series = o->sizes = o->data = NULL;
}

/* what the shrinker changes in an evaluation (NULL: the run options' sizes and draws) */
typedef struct {
    lm_size_ov ov;
    int round_bits;
    int want_data;
} shrink_req;

static unsigned sizes_used; /* bit k: the run options' size override k was asked for */
static char size_err[160];  /* the first --size override outside its size's range ("": none) */
static int max_ntotal;      /* the most instances of any configuration run so far */
static char sizes_seen[200]; /* "N 1..16, n 1..16": the sizes the claim asked for, with ranges */

/* adds the names of an instance's "name\tvalue\tmin\tmax" lines to sizes_seen */
static void note_sizes(const char *buf)
{
    for (const char *q = buf; q && *q;) {
        const char *nl = strchr(q, '\n');
        char name[48];
        int v, mn, mx;
        if (sscanf(q, "%47[^\t]\t%d\t%d\t%d", name, &v, &mn, &mx) == 4) {
            char item[80];
            snprintf(item, sizeof item, "%s %d..%d", name, mn, mx);
            char key[56];
            snprintf(key, sizeof key, "%s ", name);
            int have = 0;
            for (const char *s = sizes_seen; (s = strstr(s, key)); s++)
                if (s == sizes_seen || s[-1] == ' ') { have = 1; break; }
            size_t L = strlen(sizes_seen);
            if (!have && L + strlen(item) + 3 < sizeof sizes_seen)
                snprintf(sizes_seen + L, sizeof sizes_seen - L, "%s%s", L ? ", " : "", item);
        }
        q = nl ? nl + 1 : NULL;
    }
}

/* the state certify() asks a trajectory claim to keep, or gives it (NULL: neither) */
static lm_state *state_keep_req;
static const lm_state *state_given_req;

/* one evaluation of (config, index, x) in ctx */
static void eval_once_sq(inst_out *out, const lm_claim *c, int cfg, int index, uint64_t seed,
                         const double *x, int nx, const lm_ctx *ctx, int tmax, const double *par,
                         const lm_run_opts *o, int searching, const shrink_req *sq)
{
    struct lm_eval_priv p;
    memset(&p, 0, sizeof p);
    lm_sb_init(&p.measures);
    lm_sb_init(&p.series);
    lm_sb_init(&p.sizes);
    lm_sb_init(&p.data);
    lm_size_ov ov = {0};
    if (sq) ov = sq->ov;
    else {
        for (int k = 0; k < o->nsize && k < 16; k++) {
            ov.name[k] = o->size_name[k];
            ov.val[k] = o->size_val[k];
        }
        ov.n = o->nsize < 16 ? o->nsize : 16;
    }
    ov.used = 0;
    p.ov = &ov;
    p.want_data = sq ? sq->want_data : 0;
    p.state_keep = state_keep_req;
    p.state_given = state_given_req;
    p.mutate_scale = o->mutate_scale > 0 ? o->mutate_scale : 1.0;
    p.mutate_flip = o->mutate_flip;
    int io_bits = -1; /* an imported instance's own rounding (instances.c) */
    if (o->inst_io) lm_io_eval_setup(o->inst_io, &p, cfg, index, searching, sq != NULL, &par, &io_bits);
    if (o->profile && !searching && !sq) {
        p.prof = lm_xmalloc(LM_PROF_MAX * sizeof *p.prof);
        p.prof_key = lm_xmalloc(LM_PROF_MAX * sizeof *p.prof_key);
    }
    int bits = io_bits >= 0 ? io_bits : sq ? sq->round_bits : o->round_bits, old_bits = lm_rng_round();
    double xr[64];
    if (x && bits > 0) { /* an adversarial point in short binary fractions too */
        for (int i = 0; i < nx && i < 64; i++) xr[i] = lm_round_sig(x[i], bits);
        x = xr;
    }
    lm_rng_set_round(bits);
    lm_rng_init(&p.rng, seed);
    p.first_break_t = -1;
    p.last_near_t = -1;
    p.worst_log10 = -INFINITY;
    lm_eval ev = {.claim = c, .ctx = ctx, .config = cfg, .config_name = lm_claim_config(c, cfg),
                  .index = index, .seed = seed, .x = x, .nx = nx, .tmax = tmax,
                  .budget = o->budget, .quick = o->quick, .searching = searching,
                  .par = par, .p = &p};
    int rc = c->eval(&ev);
    if (p.io) lm_io_eval_done(o->inst_io, &p, ctx);
    lm_eval_priv_release(&p);
    lm_rng_set_round(old_bits);
    if (!sq) sizes_used |= ov.used;
    if (!sq && p.size_err[0] && !size_err[0]) snprintf(size_err, sizeof size_err, "%s", p.size_err);
    if (!sq && !searching) note_sizes(p.sizes.buf);
    if (rc != 0 && !p.failed) {
        p.failed = 1;
        snprintf(p.why, sizeof p.why, "check returned %d", rc);
    }
    memset(out, 0, sizeof *out);
    out->log10 = p.worst_log10;
    out->t = p.worst_t;
    memcpy(out->where, p.worst_where, sizeof out->where);
    out->broke = p.broke || p.rate_broke;
    out->rate_only = p.rate_broke && !p.broke;
    out->near = p.near;
    /* the replay horizon: the first timed break when there is one (confirming it confirms the
     * instance, and a trajectory replayed only that far is cheap); -1, the whole run, when only
     * whole-run observations broke.  If the timed break does not survive the replay while a
     * whole-run one was also seen, the caller replays the whole run (untimed_too). */
    out->first_break_t = p.first_break_t; /* -1 when none was timed */
    out->untimed_too = p.break_untimed && p.first_break_t >= 0;
    out->near_tmax = p.near_untimed ? -1 : p.last_near_t;
    out->failed = p.failed;
    out->assume_failed = p.assume_failed;
    out->not_checkable = p.not_checkable;
    if (p.rate_short && !p.broke && !p.rate_broke && !p.failed && !p.assume_failed && !p.not_checkable) {
        /* a rate fit that could not be judged: no pass is read off the other observations */
        out->not_checkable = 1;
        snprintf(p.why, sizeof p.why, "%s", p.why_rate);
    }
    out->vacuous = p.vacuous;
    out->flip_broke = p.flip_broke;
    out->cert_broke = p.cert_broke;
    out->nobs = p.nobs;
    memcpy(out->why, p.why, sizeof out->why);
    if (p.vacuous && !p.failed && !p.assume_failed && !p.not_checkable)
        snprintf(out->why, sizeof out->why, "%s", p.why_vacuous);
    memcpy(out->axes, p.axes, sizeof out->axes);
    out->measures = lm_sb_take(&p.measures);
    out->series = lm_sb_take(&p.series);
    out->sizes = lm_sb_take(&p.sizes);
    out->data = lm_sb_take(&p.data);
    out->prof = p.prof;
    out->prof_key = p.prof_key;
    out->prof_over = p.prof_over;
}

static void eval_once(inst_out *out, const lm_claim *c, int cfg, int index, uint64_t seed,
                      const double *x, int nx, const lm_ctx *ctx, int tmax, const double *par,
                      const lm_run_opts *o, int searching)
{
    eval_once_sq(out, c, cfg, index, seed, x, nx, ctx, tmax, par, o, searching, NULL);
}

int lm_prof_head(const lm_claim *c)
{
    long n = lrint(8.0 * (c->inst_scale > 0 ? c->inst_scale : 1.0));
    return n < 1 ? 1 : n > 1000000 ? 1000000 : (int)n;
}

/* adds one judged instance's observation profile (nobs labelled values) to its
 * configuration's groups (lm_config_result.prof_*); an instance with more than LM_PROF_MAX
 * observations, none, or a configuration with more than LM_PROF_GROUPS label skeletons,
 * drops the profile for good (prof_n = -1) */
static void prof_add(lm_config_result *cr, const unsigned long long *key, const double *prof, int over, long nobs,
                     int head)
{
    if (cr->prof_n < 0) return; /* dropped already */
    if (!prof || !key || over || nobs < 1) goto drop;
    if (!cr->prof_key) {
        cr->prof_key = lm_xmalloc(LM_PROF_GROUPS * sizeof *cr->prof_key);
        cr->prof_all = lm_xmalloc(LM_PROF_GROUPS * sizeof *cr->prof_all);
        cr->prof_head = lm_xmalloc(LM_PROF_GROUPS * sizeof *cr->prof_head);
        cr->prof_hmin = lm_xmalloc(LM_PROF_GROUPS * sizeof *cr->prof_hmin);
        cr->prof_n = 0;
        cr->prof_aligned = 1;
    }
    int g = 0;
    for (long j = 0; j < nobs; j++) {
        /* the previous observation's group first: observations come in runs of one label */
        if (g >= cr->prof_n || cr->prof_key[g] != key[j]) {
            g = 0;
            while (g < cr->prof_n && cr->prof_key[g] != key[j]) g++;
            if (g == cr->prof_n) {
                if (g == LM_PROF_GROUPS) goto drop;
                cr->prof_key[g] = key[j];
                cr->prof_all[g] = cr->prof_head[g] = -INFINITY;
                cr->prof_hmin[g] = INFINITY;
                cr->prof_n++;
            }
        }
        double v = prof[j];
        if (v > cr->prof_all[g] || isnan(v)) cr->prof_all[g] = v;
        if (head && (v > cr->prof_head[g] || isnan(v))) cr->prof_head[g] = v;
        if (head && (v < cr->prof_hmin[g] || isnan(v))) cr->prof_hmin[g] = v;
    }
    cr->prof_head_n += head;
    return;
drop:
    free(cr->prof_key);
    free(cr->prof_all);
    free(cr->prof_head);
    free(cr->prof_hmin);
    cr->prof_key = NULL;
    cr->prof_all = cr->prof_head = cr->prof_hmin = NULL;
    cr->prof_aligned = 0;
    cr->prof_n = -1;
}

static uint64_t inst_seed(const lm_run_opts *o, const lm_claim *c, int cfg, int k)
{
    uint64_t s;
    if (lm_io_seed(o->inst_io, cfg, k, &s)) return s; /* an imported instance's own */
    s = lm_hash_str(o->seed, c->id);
    s = lm_hash_str(s, lm_claim_config(c, cfg));
    return lm_hash_u64(s, (uint64_t)k);
}

/* ---- adversarial search ---- */
typedef struct {
    const lm_claim *c;
    int cfg, index;
    uint64_t seed;
    const double *par;
    const lm_run_opts *o;
    lm_ctx ctx;
} search_data;

static double search_obj(const gsl_vector *v, void *vp)
{
    search_data *sd = vp;
    int n = (int)v->size;
    double x[64];
    for (int i = 0; i < n && i < 64; i++) {
        x[i] = gsl_vector_get(v, i);
        if (!isfinite(x[i]) || fabs(x[i]) > 50) return 1e6; /* keep the search in range */
    }
    inst_out r;
    eval_once(&r, sd->c, sd->cfg, sd->index, sd->seed, x, n, &sd->ctx, -1, sd->par, sd->o, 1);
    double f = (r.failed || r.assume_failed || r.not_checkable || r.nobs == 0 || !isfinite(r.log10))
                   ? 1e6
                   : -r.log10;
    inst_out_free(&r);
    return f;
}

static void adversarial_point(double *x, int n, const lm_claim *c, int cfg, int index,
                              uint64_t seed, const double *par, const lm_run_opts *o)
{
    search_data sd = {c, cfg, index, seed, par, o, lm_ctx_double()};
    gsl_multimin_function F = {search_obj, (size_t)n, &sd};
    gsl_vector *x0 = gsl_vector_calloc((size_t)n), *step = gsl_vector_alloc((size_t)n);
    gsl_vector_set_all(step, 0.7);
    gsl_multimin_fminimizer *s = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2,
                                                               (size_t)n);
    gsl_multimin_fminimizer_set(s, &F, x0, step);
    int iters = o->quick ? 15 + 2 * n : 40 + 6 * n;
    for (int it = 0; it < iters; it++) {
        if (gsl_multimin_fminimizer_iterate(s)) break;
        if (gsl_multimin_fminimizer_size(s) < 1e-6) break;
    }
    for (int i = 0; i < n; i++) x[i] = gsl_vector_get(s->x, i);
    gsl_multimin_fminimizer_free(s);
    gsl_vector_free(x0);
    gsl_vector_free(step);
}

static void add_prec(char *buf, size_t n, const lm_ctx *ctx)
{
    char nm[32];
    lm_ctx_name(ctx, nm, sizeof nm);
    if (strstr(buf, nm)) return;
    size_t l = strlen(buf);
    snprintf(buf + l, n - l, "%s%s", l ? "," : "", nm);
}

static void build_reproduce(char *dst, size_t n, const lm_claim *c, int cfg, int index,
                            const lm_run_opts *o)
{
    /* configuration names may hold ( ) * : single-quote them for the shell */
    int w = snprintf(dst, n, "bin/lemmata check %s --seed %llu --budget %d%s --config '%s' --instance %d",
                     c->id, (unsigned long long)o->seed, o->budget, o->quick ? " --quick" : "",
                     lm_claim_config(c, cfg), index);
    if (o->prec) w += snprintf(dst + w, n - (size_t)w, " --prec %ld", (long)o->prec);
    for (int k = 0; k < o->nset && (size_t)w < n; k++) {
        char v[40]; /* the shortest decimal that reads back as the same double */
        double x = o->set_val[k];
        if (x == floor(x) && fabs(x) < 1e15) {
            snprintf(v, sizeof v, "%.0f", x); /* steps=2000, not 2e+03 */
        } else {
            for (int p = 1; p <= 17; p++) {
                snprintf(v, sizeof v, "%.*g", p, x);
                if (strtod(v, NULL) == x) break;
            }
        }
        w += snprintf(dst + w, n - (size_t)w, " --set %s=%s", o->set_name[k], v);
    }
    for (int k = 0; k < o->nsize && (size_t)w < n; k++)
        w += snprintf(dst + w, n - (size_t)w, " --size %s=%d", o->size_name[k], o->size_val[k]);
    if (o->round_bits > 0 && (size_t)w < n) w += snprintf(dst + w, n - (size_t)w, " --round %d", o->round_bits);
    if (o->mutate_scale != 1.0 && (size_t)w < n) {
        char v[40];
        for (int p = 1; p <= 17; p++) {
            snprintf(v, sizeof v, "%.*g", p, o->mutate_scale);
            if (strtod(v, NULL) == o->mutate_scale) break;
        }
        w += snprintf(dst + w, n - (size_t)w, " --mutate scale=%s", v);
    }
    if (o->mutate_flip && (size_t)w < n) snprintf(dst + w, n - (size_t)w, " --mutate flip");
}

/* the precision breaks are replayed in: at least 256 bits, and never below the first one's */
static mpfr_prec_t replay_bits(const lm_run_opts *o)
{
    mpfr_prec_t rp = o->replay_prec < 256 ? 256 : o->replay_prec;
    return o->prec > rp ? o->prec : rp;
}

/* Certify the worst confirmed break of a configuration: re-evaluate its instance in ball
 * arithmetic (Arb) at 128, 256, ... bits up to o->cert_max_prec until some observation's
 * left-hand ball lies wholly above its right-hand ball.  A check that took a decomposition
 * (SVD, eigenvalues, a solve) on midpoints cannot be certified, nor one that failed. */
static void certify(lm_config_result *cr, const lm_claim *c, int cfg, const double *x, int nx,
                    int tmax, const double *par, const lm_run_opts *o)
{
    uint64_t seed = inst_seed(o, c, cfg, cr->worst_index);
    if (!c->certifiable) {
        snprintf(cr->cert_note, sizeof cr->cert_note,
                 "not certified: the check is not audited for ball arithmetic (it may read midpoints "
                 "outside the lm_num/lm_mat API)");
        return;
    }
    /* A trajectory claim that keeps its state is certified from the exact state at the iterate
     * of the break: the evaluation that confirmed the break (replay context) is run again to keep
     * that state, and only the step from it is evaluated in balls. */
    lm_state st;
    memset(&st, 0, sizeof st);
    int from_state = c->state_certifiable && tmax >= 0;
    if (from_state) {
        lm_ctx rep = lm_ctx_mpfr(replay_bits(o));
        inst_out r;
        st.t = tmax;
        state_keep_req = &st;
        eval_once(&r, c, cfg, cr->worst_index, seed, nx ? x : NULL, nx, &rep, tmax, par, o, 0);
        state_keep_req = NULL;
        int broke = r.broke && r.first_break_t == tmax;
        inst_out_free(&r);
        if (st.err[0] || st.n == 0 || !broke) {
            snprintf(cr->cert_note, sizeof cr->cert_note, "not certified: the state at iterate k=%d %s%.60s",
                     tmax, st.err[0] ? "could not be kept: " : st.n == 0 ? "was not kept" :
                     "was kept, but the break did not recur there", st.err);
            lm_state_free(&st);
            return;
        }
    }
    for (mpfr_prec_t bits = 128; bits <= o->cert_max_prec; bits *= 2) {
        lm_ctx ac = lm_ctx_arb(bits);
        inst_out r;
        lm_arb_taint_reset();
        state_given_req = from_state ? &st : NULL;
        eval_once(&r, c, cfg, cr->worst_index, seed, nx ? x : NULL, nx, &ac, tmax, par, o, 0);
        state_given_req = NULL;
        long taint = lm_arb_taint();
        int failed = r.failed || r.assume_failed || r.not_checkable, cert = r.cert_broke;
        char why[80];
        snprintf(why, sizeof why, "%.60s", r.why);
        inst_out_free(&r);
        if (failed) { /* balls too wide for a hypothesis or a log: try more bits */
            snprintf(cr->cert_note, sizeof cr->cert_note,
                     "not certified: the check did not complete in ball arithmetic up to %ld bits%s%.60s",
                     (long)bits, why[0] ? ": " : "", why);
            continue;
        }
        cr->cert_note[0] = 0;
        if (taint) {
            snprintf(cr->cert_note, sizeof cr->cert_note,
                     "not certifiable: the check takes %ld decomposition(s) (SVD, eigenvalues or a solve) "
                     "on midpoints", taint);
            lm_state_free(&st);
            return;
        }
        if (cert) {
            cr->certified = 1;
            cr->cert_prec = (int)bits;
            if (from_state)
                snprintf(cr->cert_note, sizeof cr->cert_note,
                         "certified in ball arithmetic at %ld bits from the exact state at iterate k=%d",
                         (long)bits, tmax);
            else
                snprintf(cr->cert_note, sizeof cr->cert_note, "certified in ball arithmetic at %ld bits",
                         (long)bits);
            lm_state_free(&st);
            return;
        }
    }
    lm_state_free(&st);
    if (!cr->cert_note[0])
        snprintf(cr->cert_note, sizeof cr->cert_note,
                 "not certified: the balls still overlap at %ld bits", (long)o->cert_max_prec);
}

/* ---- shrinking a counterexample ----
 * Greedy, deterministic (no clock): each size the claim routes through lm_size is bisected
 * down to the smallest value at which the instance still breaks, then the random draws are
 * cut to the fewest significant bits (1, 2, 3, 4, 6, ..., 32) that keep the break.  A step is
 * accepted only when the break survives the MPFR replay, as a violation must. */
typedef struct {
    const lm_claim *c;
    int cfg, index, nx;
    uint64_t seed;
    const double *x, *par;
    const lm_run_opts *o;
    lm_ctx prim, rep;
    int evals, cap;
    int crashed; /* candidates whose evaluation died (rejected) */
} shrinker;

static int still_breaks_here(shrinker *S, const shrink_req *q, int *tbreak)
{
    inst_out r;
    S->evals++;
    eval_once_sq(&r, S->c, S->cfg, S->index, S->seed, S->x, S->nx, &S->prim, -1, S->par, S->o, 0, q);
    int replay = !S->c->no_replay && !(S->prim.backend == LM_MPFR && S->prim.prec >= 256) &&
                 !(r.broke && r.rate_only);
    /* a near miss in double may be a break that only MPFR sees */
    int ok = !r.failed && !r.assume_failed && !r.not_checkable && (r.broke || (replay && r.near));
    int tb = r.broke ? r.first_break_t : r.near_tmax;
    int whole_too = r.broke && r.untimed_too;
    inst_out_free(&r);
    if (ok && replay) {
        S->evals++;
        eval_once_sq(&r, S->c, S->cfg, S->index, S->seed, S->x, S->nx, &S->rep, tb, S->par, S->o, 0, q);
        if (whole_too && !r.failed && !r.broke) { /* the whole-run break, then */
            inst_out_free(&r);
            S->evals++;
            eval_once_sq(&r, S->c, S->cfg, S->index, S->seed, S->x, S->nx, &S->rep, -1, S->par, S->o, 0, q);
        }
        ok = !r.failed && !r.assume_failed && !r.not_checkable && r.broke;
        tb = r.first_break_t;
        inst_out_free(&r);
    }
    if (ok && tbreak) *tbreak = tb;
    return ok;
}

/* Each candidate runs in a child process: a size the check was never written for (a zero-width
 * head, one token) may trip an assertion, and that must reject the candidate, not end the run. */
static int still_breaks(shrinker *S, const shrink_req *q, int *tbreak)
{
    if (S->evals >= S->cap) return 0;
    int fd[2];
    if (pipe(fd)) return 0;
    /* a shrink killed with -9 leaves no candidate running */
    pid_t pid = lm_proc_fork(SIGKILL, NULL);
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return 0;
    }
    if (pid == 0) {
        close(fd[0]);
        int nul = open("/dev/null", O_WRONLY);
        if (nul >= 0) dup2(nul, 2); /* a candidate's assertion message is not the run's */
        int e0 = S->evals, out[3] = {0, -1, 0};
        out[0] = still_breaks_here(S, q, &out[1]);
        out[2] = S->evals - e0;
        ssize_t wr = write(fd[1], out, sizeof out);
        _exit(wr == (ssize_t)sizeof out ? 0 : 1);
    }
    close(fd[1]);
    int in[3] = {0, -1, 1};
    ssize_t got = 0;
    while (got < (ssize_t)sizeof in) {
        ssize_t k = read(fd[0], (char *)in + got, sizeof in - (size_t)got);
        if (k <= 0) break;
        got += k;
    }
    close(fd[0]);
    int st = 0;
    lm_proc_wait_raw(pid, &st);
    if (got != (ssize_t)sizeof in || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        S->evals++;
        S->crashed++;
        return 0;
    }
    S->evals += in[2];
    if (in[0] && tbreak) *tbreak = in[1];
    return in[0];
}

/* "name\tvalue\tmin" lines -> q->ov (names point into buf) */
static void parse_sizes(char *buf, shrink_req *q, int *mins, int *was)
{
    q->ov.n = 0;
    for (char *line = buf; line && *line && q->ov.n < 16;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = 0;
        char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        if (t1 && t2) {
            *t1 = 0;
            int k = q->ov.n++;
            q->ov.name[k] = line;
            q->ov.val[k] = was[k] = atoi(t1 + 1);
            mins[k] = atoi(t2 + 1);
        }
        line = nl ? nl + 1 : NULL;
    }
}

static void shrink(lm_config_result *cr, const lm_claim *c, int cfg, const double *x, int nx,
                   const double *par, const lm_run_opts *o, const lm_ctx *prim, const lm_ctx *rep)
{
    shrinker S = {c, cfg, cr->worst_index, nx, inst_seed(o, c, cfg, cr->worst_index), nx ? x : NULL,
                  par, o, *prim, *rep, 0, o->quick ? 48 : 96, 0};
    shrink_req q;
    memset(&q, 0, sizeof q);
    for (int k = 0; k < o->nsize && k < 16; k++) {
        q.ov.name[k] = o->size_name[k];
        q.ov.val[k] = o->size_val[k];
        q.ov.n = k + 1;
    }
    q.round_bits = o->round_bits;
    /* the sizes the instance asks for */
    inst_out r0;
    eval_once_sq(&r0, c, cfg, S.index, S.seed, S.x, nx, prim, -1, par, o, 0, &q);
    S.evals++;
    char *szbuf = r0.sizes;
    r0.sizes = NULL;
    inst_out_free(&r0);
    int mins[16], was[16], tb = -1;
    parse_sizes(szbuf, &q, mins, was);
    /* with sizes recorded, check they reproduce the break; without, the instance is the
     * confirmed break itself */
    if (q.ov.n && !still_breaks(&S, &q, &tb)) { /* the recorded sizes do not reproduce: keep the original */
        snprintf(cr->shrunk, sizeof cr->shrunk, "not shrunk: the instance did not break again when "
                 "re-evaluated with its recorded sizes");
        free(szbuf);
        return;
    }
    if (nx == 0) /* an adversarial point is tied to its sizes: only its numbers are cut */
        for (int pass = 0; pass < 2; pass++) {
            int changed = 0;
            for (int k = 0; k < q.ov.n; k++) {
                int lo = mins[k], hi = q.ov.val[k], cur = hi;
                while (lo < hi) {
                    int mid = lo + (hi - lo) / 2, t;
                    q.ov.val[k] = mid;
                    if (still_breaks(&S, &q, &t)) { hi = mid; tb = t; }
                    else lo = mid + 1;
                }
                q.ov.val[k] = hi;
                changed |= hi < cur;
            }
            if (!changed) break;
        }
    static const int cand[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32};
    if (q.round_bits == 0)
        for (size_t k = 0; k < sizeof cand / sizeof *cand; k++) {
            int t;
            q.round_bits = cand[k];
            if (still_breaks(&S, &q, &t)) { tb = t; break; }
            q.round_bits = 0;
        }
    /* the shrunk instance once more, for its data: in the first precision (its break was
     * confirmed in MPFR by the last accepted step, or is the run's confirmed break) */
    const lm_ctx *fin = prim;
    q.want_data = 1;
    inst_out rf;
    /* a trajectory need only reach its first break (the data is recorded at the start) */
    eval_once_sq(&rf, c, cfg, S.index, S.seed, S.x, nx, fin, tb, par, o, 0, &q);
    S.evals++;
    cr->shrink_evals = S.evals;
    if (rf.failed) { /* cannot happen for a deterministic check; say so if it does */
        snprintf(cr->shrunk, sizeof cr->shrunk, "not shrunk: the shrunk instance failed when evaluated "
                 "again (a nondeterministic check?)");
        inst_out_free(&rf);
        free(szbuf);
        return;
    }
    if (tb < 0 && rf.broke) tb = rf.first_break_t;
    int w = 0;
    size_t n = sizeof cr->shrunk;
    for (int k = 0; k < q.ov.n && (size_t)w < n; k++)
        w += snprintf(cr->shrunk + w, n - (size_t)w, "%s%s=%d", k ? " " : "", q.ov.name[k], q.ov.val[k]);
    if (q.ov.n && (size_t)w < n) {
        int diff = 0;
        for (int k = 0; k < q.ov.n; k++) diff |= q.ov.val[k] != was[k];
        if (diff) {
            w += snprintf(cr->shrunk + w, n - (size_t)w, " (was");
            for (int k = 0; k < q.ov.n && (size_t)w < n; k++)
                w += snprintf(cr->shrunk + w, n - (size_t)w, " %s=%d", q.ov.name[k], was[k]);
            w += snprintf(cr->shrunk + w, n - (size_t)w, ")");
        } else w += snprintf(cr->shrunk + w, n - (size_t)w, " (as drawn)");
    } else if ((size_t)w < n)
        w += snprintf(cr->shrunk + w, n - (size_t)w, "sizes fixed by the check");
    if ((size_t)w < n) {
        if (q.round_bits) w += snprintf(cr->shrunk + w, n - (size_t)w, "; random draws cut to %d significant bit%s",
                                       q.round_bits, q.round_bits > 1 ? "s" : "");
        else w += snprintf(cr->shrunk + w, n - (size_t)w, "; full-precision draws");
    }
    if (tb >= 0 && (size_t)w < n) w += snprintf(cr->shrunk + w, n - (size_t)w, "; first break at iterate %d", tb);
    if (S.crashed && (size_t)w < n)
        w += snprintf(cr->shrunk + w, n - (size_t)w, "; %d candidate%s rejected: the check died there",
                      S.crashed, S.crashed > 1 ? "s" : "");
    if (rf.broke && rf.where[0] && (size_t)w < n)
        snprintf(cr->shrunk + w, n - (size_t)w, "; worst: %.150s", rf.where);
    /* the command: the run's options without its --size/--round, then the shrunk ones */
    lm_run_opts o2 = *o;
    o2.nsize = 0;
    o2.round_bits = 0;
    build_reproduce(cr->shrunk_reproduce, sizeof cr->shrunk_reproduce, c, cfg, S.index, &o2);
    size_t L = strlen(cr->shrunk_reproduce);
    for (int k = 0; k < q.ov.n && L < sizeof cr->shrunk_reproduce; k++) {
        snprintf(cr->shrunk_reproduce + L, sizeof cr->shrunk_reproduce - L, " --size %s=%d", q.ov.name[k],
                 q.ov.val[k]);
        L = strlen(cr->shrunk_reproduce);
    }
    if (q.round_bits && L < sizeof cr->shrunk_reproduce)
        snprintf(cr->shrunk_reproduce + L, sizeof cr->shrunk_reproduce - L, " --round %d", q.round_bits);
    if (rf.data && rf.data[0]) {
        cr->shrunk_data = rf.data;
        rf.data = NULL;
    }
    inst_out_free(&rf);
    free(szbuf);
}

/* what a configuration leaves for the claim-level shrinker */
typedef struct {
    int ok, nx, cfg;
    double x[64];
    double par[128]; /* the configuration's parameter values */
    lm_ctx prim, rep;
} shrink_seed;

static void run_config(lm_config_result *cr, const lm_claim *c, int cfg, const double *par,
                       const lm_run_opts *o, shrink_seed *sk)
{
    double t0 = now_s();
    memset(cr, 0, sizeof *cr);
    snprintf(cr->config, sizeof cr->config, "%s", lm_claim_config(c, cfg));
    cr->worst_ratio = NAN;
    cr->worst_index = -1;
    lm_ctx prim = o->prec ? lm_ctx_mpfr(o->prec) : lm_ctx_double();
    mpfr_prec_t rp = replay_bits(o);
    lm_ctx rep = lm_ctx_mpfr(rp);
    int nrand = (int)lrint(o->budget * (c->inst_scale > 0 ? c->inst_scale : 1.0));
    if (nrand < 1) nrand = 1;
    int nsearch = c->search_dim > 0 && (!c->search_in || c->search_in(cfg))
                      ? (o->budget >= 32 ? o->budget / 16 : 1)
                      : 0;
    int ntotal = nrand + nsearch, nhead = lm_prof_head(c);
    int nimp = lm_io_count(o->inst_io, cfg); /* --instances: exactly the file's (-1: not importing) */
    if (nimp >= 0) nrand = ntotal = nimp;
    if (ntotal > max_ntotal) max_ntotal = ntotal;
    double worst = -INFINITY;
    long ok_inst = 0, notchk = 0;
    lm_sb ratios;
    lm_sb_init(&ratios);
    char why_af[400] = "", why_err[400] = "", why_vac[400] = "";
    int worst_confirmed = 0, worst_break_t = -1, worst_nx = 0;
    double worst_x[64];
    /* near-miss escalation: instances still within the replay's rounding, the largest precision
     * needed, and those that broke / stayed within rounding up to the cap */
    long n_esc = 0, esc_broke = 0, esc_tight = 0;
    /* capped at 1024 bits: claims state tolerances in units of the context's roundoff as doubles,
     * and 2^-2048 underflows double (a tolerance of 0 would turn an exact equality into noise) */
    mpfr_prec_t esc_max = 0, cap = o->cert_max_prec < 1024 ? o->cert_max_prec : 1024;
    if (cap < rp) cap = rp;
    for (int j = 0; j < ntotal; j++) {
        int k = nimp >= 0 ? lm_io_index(o->inst_io, cfg, j) : j;
        if (o->only_instance >= 0 && k != o->only_instance) continue;
        uint64_t seed = inst_seed(o, c, cfg, k);
        double xb[64], *x = NULL, tp = now_s();
        int nx = 0;
        if (nimp >= 0) {
            nx = lm_io_point(o->inst_io, cfg, j, xb);
            x = nx ? xb : NULL;
        } else if (k >= nrand) {
            nx = c->search_dim > 64 ? 64 : c->search_dim;
            adversarial_point(xb, nx, c, cfg, k, seed, par, o);
            x = xb;
        }
        inst_out r;
        lm_io_begin(o->inst_io, cfg, k, seed, x, nx, par, o->round_bits, &prim);
        eval_once(&r, c, cfg, k, seed, x, nx, &prim, -1, par, o, 0);
        *(k >= nrand && nimp < 0 ? &cr->sec_search : &cr->sec_random) += now_s() - tp;
        int io_broke = r.broke;
        add_prec(cr->precisions, sizeof cr->precisions, &prim);
        /* the first precision's observation profile (a replay below replaces r) */
        double *prof = r.prof;
        unsigned long long *prof_key = r.prof_key;
        int prof_over = r.prof_over;
        long prof_nobs = r.nobs;
        r.prof = NULL;
        r.prof_key = NULL;
        cr->instances++;
        int confirmed = 0;
        if (!r.failed && !r.assume_failed && (r.broke || r.near)) {
            int was_break = r.broke;
            if (was_break) cr->breaks_double++;
            else cr->near_misses++;
            if (prim.backend == LM_MPFR && prim.prec >= 256) {
                confirmed = was_break;
            } else if (c->no_replay || (was_break && r.rate_only)) {
                confirmed = was_break;
            } else {
                inst_out r2;
                double tr = now_s();
                /* a trajectory replay need only reach the break (or the last near miss) */
                int tmax = was_break ? r.first_break_t : r.near_tmax;
                eval_once(&r2, c, cfg, k, seed, x, nx, &rep, tmax, par, o, 0);
                if (was_break && r.untimed_too && !r2.failed && !r2.broke) {
                    /* the timed break was rounding; a whole-run one was seen too: replay it all */
                    inst_out_free(&r2);
                    eval_once(&r2, c, cfg, k, seed, x, nx, &rep, -1, par, o, 0);
                }
                add_prec(cr->precisions, sizeof cr->precisions, &rep);
                /* Ziv: a margin still within the replay's own rounding is re-decided at twice
                 * the precision, up to the cap */
                double te = now_s();
                cr->sec_replay += te - tr;
                mpfr_prec_t ep = rp;
                if (!r2.failed && !r2.broke && r2.near) n_esc++;
                while (!r2.failed && !r2.broke && r2.near && ep < cap) {
                    ep *= 2;
                    lm_ctx ec = lm_ctx_mpfr(ep);
                    inst_out r3;
                    eval_once(&r3, c, cfg, k, seed, x, nx, &ec, r2.broke ? r2.first_break_t : r2.near_tmax,
                              par, o, 0);
                    add_prec(cr->precisions, sizeof cr->precisions, &ec);
                    inst_out_free(&r2);
                    r2 = r3;
                }
                cr->sec_escalate += now_s() - te;
                if (ep > rp && !r2.failed) {
                    if (r2.broke) esc_broke++;
                    else if (r2.near) esc_tight++;
                    if (ep > esc_max) esc_max = ep;
                }
                if (r2.failed) {
                    /* the replay could not decide: keep the error visible */
                    inst_out_free(&r);
                    r = r2;
                } else {
                    confirmed = r2.broke;
                    if (was_break && !confirmed) cr->artifacts++;
                    if (tmax >= 0 && r.series) {
                        /* a replay cut at the break: the figure keeps the whole first-precision
                         * run, so a reader sees the trajectory past its break */
                        free(r2.series);
                        r2.series = r.series;
                        r.series = NULL;
                    }
                    inst_out_free(&r);
                    r = r2;
                    if (was_break && !confirmed) r.broke = 0;
                }
            }
            if (confirmed) cr->confirmed++;
        }
        cr->observations += r.nobs;
        if (r.failed) {
            cr->errors++;
            if (!why_err[0]) snprintf(why_err, sizeof why_err, "instance %d: %.340s", k, r.why);
        } else if (r.not_checkable) {
            notchk++;
            snprintf(why_af, sizeof why_af, "%s", r.why);
        } else if (r.assume_failed) {
            cr->assumption_failed++;
            if (!why_af[0]) snprintf(why_af, sizeof why_af, "instance %d: %.340s", k, r.why);
            if (cr->worst_index < 0 && !cr->measures) { /* what the hypotheses measured */
                cr->measures = r.measures;
                r.measures = NULL;
            }
        } else if (r.nobs == 0) {
            cr->errors++;
            if (!why_err[0])
                snprintf(why_err, sizeof why_err, "instance %d recorded no observation", k);
        } else {
            ok_inst++;
            if (r.flip_broke) cr->flip_held++;
            if (r.vacuous) {
                cr->vacuous++;
                if (!why_vac[0]) snprintf(why_vac, sizeof why_vac, "instance %d: %.340s", k, r.why);
            }
            double l = r.log10 > 400 ? 400 : (r.log10 < -400 ? -400 : r.log10);
            lm_sb_printf(&ratios, "%.6g\n", l);
            if (o->profile) prof_add(cr, prof_key, prof, prof_over, prof_nobs, k < nhead && k < nrand);
            if (r.log10 > worst || cr->worst_index < 0) {
                worst = r.log10;
                cr->worst_index = k;
                worst_confirmed = confirmed;
                worst_break_t = r.first_break_t;
                worst_nx = nx;
                if (nx) memcpy(worst_x, x, sizeof(double) * (size_t)nx);
                snprintf(cr->worst_where, sizeof cr->worst_where, "instance %d%s%.120s", k,
                         r.where[0] ? ": " : "", r.where);
                free(cr->measures);
                free(cr->series);
                cr->measures = r.measures;
                cr->series = r.series;
                r.measures = r.series = NULL;
                memcpy(cr->axes, r.axes, sizeof cr->axes);
            }
        }
        lm_io_end(o->inst_io,
                  r.failed || (!r.not_checkable && !r.assume_failed && r.nobs == 0) ? "error"
                  : r.not_checkable ? "not-checkable"
                  : r.assume_failed ? "assumption-failed"
                  : r.vacuous       ? "vacuous"
                                    : "judged",
                  r.log10, r.where, io_broke, confirmed, r.nobs == 0 && !r.failed ? "no observation" : r.why);
        inst_out_free(&r);
        free(prof);
        free(prof_key);
        if (size_err[0]) break; /* an out-of-range --size: the run is refused (lm_run_claim) */
        if (o->progress && isatty(2))
            fprintf(stderr, "\r  %-44s %-22.22s %4d/%d", c->id, cr->config, k + 1, ntotal);
    }
    if (cr->worst_index >= 0) cr->worst_ratio = pow(10.0, worst);
    if (n_esc) {
        int w = snprintf(cr->escalation, sizeof cr->escalation,
                         "%ld within MPFR-%ld rounding, re-decided at up to %ld bits", n_esc, (long)rp,
                         (long)(esc_max ? esc_max : rp));
        if (esc_broke && (size_t)w < sizeof cr->escalation)
            w += snprintf(cr->escalation + w, sizeof cr->escalation - (size_t)w, "; %ld broke there", esc_broke);
        if (esc_tight && (size_t)w < sizeof cr->escalation)
            snprintf(cr->escalation + w, sizeof cr->escalation - (size_t)w,
                     "; %ld stayed within rounding of equality up to %ld bits (equality cases, held within the check's tolerance)", esc_tight, (long)cap);
    }
    cr->ratios = lm_sb_take(&ratios);
    if (cr->confirmed > 0) cr->verdict = c->proxy ? LM_V_INCONSISTENT : LM_V_VIOLATED;
    else if (cr->errors > 0) {
        cr->verdict = LM_V_ERROR;
        snprintf(cr->detail, sizeof cr->detail, "%s", why_err);
    } else if (cr->artifacts > 0) {
        cr->verdict = LM_V_ARTIFACT;
        snprintf(cr->detail, sizeof cr->detail,
                 "%ld break(s) in double vanished in MPFR at %ld bits", cr->artifacts, (long)rp);
    } else if (ok_inst == 0) {
        cr->verdict = notchk ? LM_V_NOT_CHECKABLE : LM_V_ASSUMPTION_FAILED;
        snprintf(cr->detail, sizeof cr->detail, "%s", why_af);
    } else if (cr->vacuous == ok_inst) {
        /* every instance that met the check held only vacuously: a finding, not a pass */
        cr->verdict = LM_V_VACUOUS;
        snprintf(cr->detail, sizeof cr->detail, "all %ld instance(s) held only vacuously; %.400s", ok_inst, why_vac);
    } else {
        cr->verdict = c->proxy ? LM_V_CONSISTENT : LM_V_HOLDS;
        if (cr->vacuous)
            snprintf(cr->detail, sizeof cr->detail, "%ld of %ld instance(s) held only vacuously; %.400s",
                     cr->vacuous, ok_inst, why_vac);
        else if (cr->assumption_failed)
            snprintf(cr->detail, sizeof cr->detail, "%ld instance(s) missed the hypotheses; %.400s",
                     cr->assumption_failed, why_af);
    }
    if (cr->verdict == LM_V_VIOLATED && o->certify && worst_confirmed) {
        double tc = now_s();
        certify(cr, c, cfg, worst_x, worst_nx, worst_break_t, par, o);
        cr->sec_certify = now_s() - tc;
        /* the note travels with the result (store, report): a violated configuration has no
         * other use for its detail line */
        if (!cr->detail[0]) snprintf(cr->detail, sizeof cr->detail, "%s", cr->cert_note);
    }
    /* the claim shrinks the break of its worst violated configuration (lm_run_claim) */
    if (cr->verdict == LM_V_VIOLATED && worst_confirmed && sk) {
        sk->ok = 1;
        sk->nx = worst_nx;
        if (worst_nx) memcpy(sk->x, worst_x, sizeof(double) * (size_t)worst_nx);
        sk->prim = prim;
        sk->rep = rep;
    }
    if (cr->worst_index >= 0) build_reproduce(cr->reproduce, sizeof cr->reproduce, c, cfg,
                                              cr->worst_index, o);
    cr->seconds = now_s() - t0;
}

/* a run refused for an option out of range: nothing is kept but the reason */
static int refuse(lm_claim_result *res, const char *why, const char *more)
{
    const lm_claim *c = res->claim;
    lm_claim_result_clear(res);
    res->claim = c;
    snprintf(res->error, sizeof res->error, "%s%s", why, more);
    return 2;
}

int lm_run_claim(lm_claim_result *res, const lm_claim *c, const lm_run_opts *o)
{
    memset(res, 0, sizeof *res);
    res->claim = c;
    sizes_used = 0;
    size_err[0] = 0;
    max_ntotal = 0;
    sizes_seen[0] = 0;
    int np = 0;
    while (c->params && c->params[np].name) np++;
    if (np > 128) np = 128;
    int nc = lm_claim_nconfigs(c);
    res->cfg = lm_xcalloc((size_t)nc, sizeof *res->cfg);
    shrink_seed *seeds = lm_xcalloc((size_t)nc, sizeof *seeds);
    res->verdict = LM_V_HOLDS;
    res->repaired_verdict = res->probe_verdict = -1;
    res->worst_ratio = NAN;
    if (o->mutate_flip || o->mutate_scale != 1.0) {
        int w = 0;
        if (o->mutate_scale != 1.0)
            w = snprintf(res->mutation, sizeof res->mutation, "scale=%.6g", o->mutate_scale);
        if (o->mutate_flip) snprintf(res->mutation + w, sizeof res->mutation - (size_t)w, "%sflip", w ? "," : "");
    }
    double t0 = now_s(), c0 = cpu_s();
    for (int k = 0; k < nc; k++) {
        if (o->only_config && strcmp(o->only_config, lm_claim_config(c, k)) != 0) continue;
        if (lm_io_count(o->inst_io, k) == 0) continue; /* --instances: the file has none of it */
        /* the declared defaults, the configuration's own values, then the command line's */
        double par[128];
        for (int j = 0; j < np; j++) par[j] = c->params[j].def;
        char perr[200];
        if (lm_claim_config_params(c, k, par, perr, sizeof perr) != 0) {
            free(seeds);
            return refuse(res, perr, "");
        }
        for (int s = 0; s < o->nset; s++) {
            int j = lm_claim_param_index(c, o->set_name[s]);
            if (j >= 0 && j < np) par[j] = o->set_val[s];
        }
        lm_config_result *cr = &res->cfg[res->nconfig++];
        shrink_seed *sk = &seeds[res->nconfig - 1];
        sk->cfg = k;
        memcpy(sk->par, par, sizeof par);
        run_config(cr, c, k, par, o, sk);
        lm_reading rd = lm_claim_reading(c, k);
        cr->reading = rd.kind;
        snprintf(cr->reading_note, sizeof cr->reading_note, "%s", rd.note ? rd.note : "");
        if (size_err[0]) {
            free(seeds);
            return refuse(res, size_err, " (the bounds keep one instance within seconds and megabytes)");
        }
        res->instances += cr->instances;
        if (cr->reading == LM_READ_REPAIRED && (int)cr->verdict > res->repaired_verdict)
            res->repaired_verdict = (int)cr->verdict;
        if (cr->reading == LM_READ_PROBE && (int)cr->verdict > res->probe_verdict)
            res->probe_verdict = (int)cr->verdict;
        for (char *p = cr->precisions; *p;) {
            char tok[32];
            int l = 0;
            while (*p && *p != ',' && l < 31) tok[l++] = *p++;
            tok[l] = 0;
            if (*p == ',') p++;
            if (!strstr(res->precisions, tok)) {
                size_t L = strlen(res->precisions);
                snprintf(res->precisions + L, sizeof res->precisions - L, "%s%s", L ? "," : "", tok);
            }
        }
    }
    /* the claim's verdict, worst ratio and reproduce command come from its paper
     * configurations (from all that ran when --config picked no paper one) */
    int any_paper = 0;
    for (int k = 0; k < res->nconfig; k++) any_paper |= res->cfg[k].reading == LM_READ_PAPER;
    int worst_cfg = -1, first = 1;
    for (int k = 0; k < res->nconfig; k++) {
        lm_config_result *cr = &res->cfg[k];
        if (any_paper && cr->reading != LM_READ_PAPER) continue;
        if (cr->verdict > res->verdict || first) res->verdict = cr->verdict;
        first = 0;
        if (!isnan(cr->worst_ratio) && !(cr->worst_ratio <= res->worst_ratio))
            res->worst_ratio = cr->worst_ratio;
        /* the reproduce command points at the worst configuration */
        if (worst_cfg < 0 || cr->verdict > res->cfg[worst_cfg].verdict ||
            (cr->verdict == res->cfg[worst_cfg].verdict && !isnan(cr->worst_ratio) &&
             !(cr->worst_ratio <= res->cfg[worst_cfg].worst_ratio)))
            worst_cfg = k;
    }
    /* one counterexample per violated claim: its worst violated configuration's, shrunk */
    if (worst_cfg >= 0 && o->shrink && res->cfg[worst_cfg].verdict == LM_V_VIOLATED && seeds[worst_cfg].ok) {
        shrink_seed *sk = &seeds[worst_cfg];
        double ts = now_s();
        shrink(&res->cfg[worst_cfg], c, sk->cfg, sk->x, sk->nx, sk->par, o, &sk->prim, &sk->rep);
        res->sec_shrink = now_s() - ts;
    }
    free(seeds);
    res->sizes_used = sizes_used;
    snprintf(res->sizes, sizeof res->sizes, "%s", sizes_seen);
    if (res->nconfig == 0) return -1;
    if (o->only_instance >= 0 && o->only_instance >= max_ntotal) {
        char m[200];
        snprintf(m, sizeof m, "instance %d does not exist: %s has at most %d instance%s per "
                 "configuration at budget %d (0..%d)", o->only_instance, c->id, max_ntotal,
                 max_ntotal == 1 ? "" : "s", o->budget, max_ntotal - 1);
        return refuse(res, m, "");
    }
    for (int k = 0; k < res->nconfig; k++)
        if (res->verdict == LM_V_VIOLATED && res->cfg[k].verdict == LM_V_VIOLATED && res->cfg[k].certified &&
            (res->cfg[k].reading == LM_READ_PAPER || !any_paper))
            res->certified = 1;
    if (worst_cfg >= 0) snprintf(res->reproduce, sizeof res->reproduce, "%s", res->cfg[worst_cfg].reproduce);
    res->seconds = now_s() - t0;
    res->cpu_seconds = cpu_s() - c0;
    if (o->progress && isatty(2)) fprintf(stderr, "\r%80s\r", "");
    return 0;
}

void lm_claim_result_clear(lm_claim_result *res)
{
    for (int k = 0; k < res->nconfig; k++) {
        free(res->cfg[k].measures);
        free(res->cfg[k].series);
        free(res->cfg[k].ratios);
        free(res->cfg[k].shrunk_data);
        free(res->cfg[k].prof_all);
        free(res->cfg[k].prof_head);
        free(res->cfg[k].prof_hmin);
        free(res->cfg[k].prof_key);
    }
    free(res->cfg);
    memset(res, 0, sizeof *res);
}
