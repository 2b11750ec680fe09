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
#include "eval_priv.h"
#include "lm_verify.h"
#include <gsl/gsl_multimin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    int failed, assume_failed, not_checkable;
    int cert_broke;
    long nobs;
    char why[400];
    char *measures, *series;
    char axes[160];
} inst_out;

static void inst_out_free(inst_out *o)
{
    free(o->measures);
    free(o->series);
    o->measures = o->series = NULL;
}

/* one evaluation of (config, index, x) in ctx */
static void eval_once(inst_out *out, const lm_claim *c, int cfg, int index, uint64_t seed,
                      const double *x, int nx, const lm_ctx *ctx, int tmax, const double *par,
                      const lm_run_opts *o, int searching)
{
    struct lm_eval_priv p;
    memset(&p, 0, sizeof p);
    lm_sb_init(&p.measures);
    lm_sb_init(&p.series);
    lm_rng_init(&p.rng, seed);
    p.first_break_t = -1;
    p.last_near_t = -1;
    p.worst_log10 = -INFINITY;
    lm_eval ev = {.claim = c, .ctx = ctx, .config = cfg, .config_name = lm_claim_config(c, cfg),
                  .index = index, .seed = seed, .x = x, .nx = nx, .tmax = tmax,
                  .budget = o->budget, .quick = o->quick, .searching = searching,
                  .par = par, .p = &p};
    int rc = c->eval(&ev);
    if (rc != 0 && !p.failed) {
        p.failed = 1;
        snprintf(p.why, sizeof p.why, "check returned %d", rc);
    }
    memset(out, 0, sizeof *out);
    out->log10 = p.worst_log10;
    out->t = p.worst_t;
    memcpy(out->where, p.worst_where, sizeof out->where);
    out->broke = p.broke;
    out->near = p.near;
    out->first_break_t = p.break_untimed ? -1 : p.first_break_t; /* -1: replay the whole run */
    out->near_tmax = p.near_untimed ? -1 : p.last_near_t;
    out->failed = p.failed;
    out->assume_failed = p.assume_failed;
    out->not_checkable = p.not_checkable;
    out->cert_broke = p.cert_broke;
    out->nobs = p.nobs;
    memcpy(out->why, p.why, sizeof out->why);
    memcpy(out->axes, p.axes, sizeof out->axes);
    out->measures = lm_sb_take(&p.measures);
    out->series = lm_sb_take(&p.series);
}

static uint64_t inst_seed(const lm_run_opts *o, const lm_claim *c, int cfg, int k)
{
    uint64_t s = lm_hash_str(o->seed, c->id);
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
    for (mpfr_prec_t bits = 128; bits <= o->cert_max_prec; bits *= 2) {
        lm_ctx ac = lm_ctx_arb(bits);
        inst_out r;
        lm_arb_taint_reset();
        eval_once(&r, c, cfg, cr->worst_index, seed, nx ? x : NULL, nx, &ac, tmax, par, o, 0);
        long taint = lm_arb_taint();
        int failed = r.failed || r.assume_failed || r.not_checkable, cert = r.cert_broke;
        inst_out_free(&r);
        if (failed) {
            snprintf(cr->cert_note, sizeof cr->cert_note,
                     "not certified: the check did not complete in ball arithmetic at %ld bits", (long)bits);
            return;
        }
        if (taint) {
            snprintf(cr->cert_note, sizeof cr->cert_note,
                     "not certifiable: the check takes %ld decomposition(s) (SVD, eigenvalues or a solve) "
                     "on midpoints", taint);
            return;
        }
        if (cert) {
            cr->certified = 1;
            cr->cert_prec = (int)bits;
            snprintf(cr->cert_note, sizeof cr->cert_note, "certified in ball arithmetic at %ld bits", (long)bits);
            return;
        }
    }
    snprintf(cr->cert_note, sizeof cr->cert_note,
             "not certified: the balls still overlap at %ld bits", (long)o->cert_max_prec);
}

static void run_config(lm_config_result *cr, const lm_claim *c, int cfg, const double *par,
                       const lm_run_opts *o)
{
    double t0 = now_s();
    memset(cr, 0, sizeof *cr);
    snprintf(cr->config, sizeof cr->config, "%s", lm_claim_config(c, cfg));
    cr->worst_ratio = NAN;
    cr->worst_index = -1;
    lm_ctx prim = o->prec ? lm_ctx_mpfr(o->prec) : lm_ctx_double();
    mpfr_prec_t rp = o->replay_prec < 256 ? 256 : o->replay_prec;
    if (o->prec > rp) rp = o->prec;
    lm_ctx rep = lm_ctx_mpfr(rp);
    int nrand = (int)lrint(o->budget * (c->inst_scale > 0 ? c->inst_scale : 1.0));
    if (nrand < 1) nrand = 1;
    int nsearch = c->search_dim > 0 && (!c->search_in || c->search_in(cfg))
                      ? (o->budget >= 32 ? o->budget / 16 : 1)
                      : 0;
    int ntotal = nrand + nsearch;
    double worst = -INFINITY;
    long ok_inst = 0, notchk = 0;
    lm_sb ratios;
    lm_sb_init(&ratios);
    char why_af[400] = "", why_err[400] = "";
    int worst_confirmed = 0, worst_break_t = -1, worst_nx = 0;
    double worst_x[64];
    for (int k = 0; k < ntotal; k++) {
        if (o->only_instance >= 0 && k != o->only_instance) continue;
        uint64_t seed = inst_seed(o, c, cfg, k);
        double xb[64], *x = NULL;
        int nx = 0;
        if (k >= nrand) {
            nx = c->search_dim > 64 ? 64 : c->search_dim;
            adversarial_point(xb, nx, c, cfg, k, seed, par, o);
            x = xb;
        }
        inst_out r;
        eval_once(&r, c, cfg, k, seed, x, nx, &prim, -1, par, o, 0);
        add_prec(cr->precisions, sizeof cr->precisions, &prim);
        cr->instances++;
        int confirmed = 0;
        if (!r.failed && !r.assume_failed && (r.broke || r.near)) {
            int was_break = r.broke;
            if (was_break) cr->breaks_double++;
            else cr->near_misses++;
            if (prim.backend == LM_MPFR && prim.prec >= 256) {
                confirmed = was_break;
            } else if (c->no_replay) {
                confirmed = was_break;
            } else {
                inst_out r2;
                /* a trajectory replay need only reach the break (or the last near miss) */
                int tmax = was_break ? r.first_break_t : r.near_tmax;
                eval_once(&r2, c, cfg, k, seed, x, nx, &rep, tmax, par, o, 0);
                add_prec(cr->precisions, sizeof cr->precisions, &rep);
                if (r2.failed) {
                    /* the replay could not decide: keep the error visible */
                    inst_out_free(&r);
                    r = r2;
                } else {
                    confirmed = r2.broke;
                    if (was_break && !confirmed) cr->artifacts++;
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
            double l = r.log10 > 400 ? 400 : (r.log10 < -400 ? -400 : r.log10);
            lm_sb_printf(&ratios, "%.6g\n", l);
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
        inst_out_free(&r);
        if (o->progress && isatty(2))
            fprintf(stderr, "\r  %-44s %-22.22s %4d/%d", c->id, cr->config, k + 1, ntotal);
    }
    if (cr->worst_index >= 0) cr->worst_ratio = pow(10.0, worst);
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
    } else {
        cr->verdict = c->proxy ? LM_V_CONSISTENT : LM_V_HOLDS;
        if (cr->assumption_failed)
            snprintf(cr->detail, sizeof cr->detail, "%ld instance(s) missed the hypotheses; %.400s",
                     cr->assumption_failed, why_af);
    }
    if (cr->verdict == LM_V_VIOLATED && o->certify && worst_confirmed) {
        certify(cr, c, cfg, worst_x, worst_nx, worst_break_t, par, o);
        /* the note travels with the result (store, report): a violated configuration has no
         * other use for its detail line */
        if (!cr->detail[0]) snprintf(cr->detail, sizeof cr->detail, "%s", cr->cert_note);
    }
    if (cr->worst_index >= 0) build_reproduce(cr->reproduce, sizeof cr->reproduce, c, cfg,
                                              cr->worst_index, o);
    cr->seconds = now_s() - t0;
}

int lm_run_claim(lm_claim_result *res, const lm_claim *c, const lm_run_opts *o)
{
    memset(res, 0, sizeof *res);
    res->claim = c;
    int np = 0;
    while (c->params && c->params[np].name) np++;
    double par[128];
    for (int k = 0; k < np && k < 128; k++) par[k] = c->params[k].def;
    for (int s = 0; s < o->nset; s++) {
        int k = lm_claim_param_index(c, o->set_name[s]);
        if (k >= 0) par[k] = o->set_val[s];
    }
    int nc = lm_claim_nconfigs(c);
    res->cfg = calloc((size_t)nc, sizeof *res->cfg);
    res->verdict = LM_V_HOLDS;
    res->worst_ratio = NAN;
    double t0 = now_s();
    int worst_cfg = -1;
    for (int k = 0; k < nc; k++) {
        if (o->only_config && strcmp(o->only_config, lm_claim_config(c, k)) != 0) continue;
        lm_config_result *cr = &res->cfg[res->nconfig++];
        run_config(cr, c, k, par, o);
        res->instances += cr->instances;
        if (cr->verdict > res->verdict || res->nconfig == 1) res->verdict = cr->verdict;
        if (!isnan(cr->worst_ratio) && !(cr->worst_ratio <= res->worst_ratio))
            res->worst_ratio = cr->worst_ratio;
        /* the reproduce command points at the worst configuration */
        if (worst_cfg < 0 || cr->verdict > res->cfg[worst_cfg].verdict ||
            (cr->verdict == res->cfg[worst_cfg].verdict && !isnan(cr->worst_ratio) &&
             !(cr->worst_ratio <= res->cfg[worst_cfg].worst_ratio)))
            worst_cfg = res->nconfig - 1;
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
    if (res->nconfig == 0) return -1;
    for (int k = 0; k < res->nconfig; k++)
        if (res->verdict == LM_V_VIOLATED && res->cfg[k].verdict == LM_V_VIOLATED && res->cfg[k].certified)
            res->certified = 1;
    if (worst_cfg >= 0) snprintf(res->reproduce, sizeof res->reproduce, "%s", res->cfg[worst_cfg].reproduce);
    res->seconds = now_s() - t0;
    if (o->progress && isatty(2)) fprintf(stderr, "\r%80s\r", "");
    return 0;
}

void lm_claim_result_clear(lm_claim_result *res)
{
    for (int k = 0; k < res->nconfig; k++) {
        free(res->cfg[k].measures);
        free(res->cfg[k].series);
        free(res->cfg[k].ratios);
    }
    free(res->cfg);
    memset(res, 0, sizeof *res);
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
        else if (ch == '\n') fputs("\\n", f);
        else if (ch == '\t') fputs("\\t", f);
        else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
        else fputc(ch, f);
    }
    fputc('"', f);
}

static void json_num(FILE *f, double x)
{
    if (isfinite(x)) fprintf(f, "%.6g", x);
    else fputs("null", f);
}

void lm_claim_result_json(FILE *f, const lm_claim_result *r, uint64_t seed)
{
    fputs("{\"id\":", f);
    json_str(f, r->claim->id);
    fputs(",\"verdict\":", f);
    json_str(f, lm_verdict_name(r->verdict));
    fputs(",\"worst_ratio\":", f);
    json_num(f, r->worst_ratio);
    fprintf(f, ",\"instances\":%ld,\"precisions\":", r->instances);
    json_str(f, r->precisions);
    fputs(",\"seconds\":", f);
    json_num(f, r->seconds);
    fputs(",\"reproduce\":", f);
    json_str(f, r->reproduce);
    fprintf(f, ",\"certified\":%s", r->certified ? "true" : "false");
    fprintf(f, ",\"seed\":%llu,\"kind\":", (unsigned long long)seed);
    json_str(f, lm_kind_name(r->claim->kind));
    fputs(",\"configs\":[", f);
    for (int k = 0; k < r->nconfig; k++) {
        const lm_config_result *c = &r->cfg[k];
        fputs(k ? ",{\"config\":" : "{\"config\":", f);
        json_str(f, c->config);
        fputs(",\"verdict\":", f);
        json_str(f, lm_verdict_name(c->verdict));
        fputs(",\"worst_ratio\":", f);
        json_num(f, c->worst_ratio);
        fprintf(f, ",\"instances\":%ld,\"assumption_failed\":%ld,\"breaks_double\":%ld,"
                   "\"confirmed\":%ld,\"artifacts\":%ld,\"worst\":",
                c->instances, c->assumption_failed, c->breaks_double, c->confirmed, c->artifacts);
        json_str(f, c->worst_where);
        fprintf(f, ",\"certified\":%s,\"certified_bits\":%d", c->certified ? "true" : "false", c->cert_prec);
        fputs(",\"detail\":", f);
        json_str(f, c->detail);
        fputs(",\"measures\":{", f); /* "name=value" lines of the worst instance */
        int first = 1;
        for (const char *p = c->measures; p && *p;) {
            const char *nl = strchr(p, '\n'), *eq = NULL;
            if (!nl) nl = p + strlen(p);
            for (const char *q = p; q < nl; q++) /* names may hold '=': the value follows the last */
                if (*q == '=') eq = q;
            if (eq && eq < nl) {
                char name[200];
                snprintf(name, sizeof name, "%.*s", (int)(eq - p), p);
                fputs(first ? "" : ",", f);
                json_str(f, name);
                fputc(':', f);
                json_num(f, strtod(eq + 1, NULL));
                first = 0;
            }
            p = *nl ? nl + 1 : nl;
        }
        fputs("}}", f);
    }
    fputs("]}\n", f);
}
