/* eval.c -- the observation API a claim file calls (lm_claim.h).
 *
 * Every observation "a <= b(1+tol)" is decided in the evaluation's own
 * context (so an MPFR replay decides in MPFR), its ratio a/b is kept in the
 * log domain (finite even when a or b leaves double's range), and anything
 * not finite turns the instance into an `error`, never a pass.
 */
#include "eval_priv.h"
#include "instances_priv.h"
#include "lm_result.h"
#include "lm_alloc.h"
#include "lm_stats.h"
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lm_sb_init(lm_sb *s) { s->buf = NULL; s->len = s->cap = 0; }
void lm_sb_free(lm_sb *s) { free(s->buf); lm_sb_init(s); }
void lm_sb_printf(lm_sb *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (need < 0) return;
    if (s->len + (size_t)need + 1 > s->cap) {
        size_t nc = s->cap ? s->cap : 256;
        while (nc < s->len + (size_t)need + 1) nc *= 2;
        s->buf = lm_xrealloc(s->buf, nc);
        s->cap = nc;
    }
    va_start(ap, fmt);
    vsnprintf(s->buf + s->len, s->cap - s->len, fmt, ap);
    va_end(ap);
    s->len += (size_t)need;
}
char *lm_sb_take(lm_sb *s)
{
    char *b = s->buf;
    lm_sb_init(s);
    return b ? b : lm_xcalloc(1, 1);
}

double lm_par(const lm_eval *ev, const char *name)
{
    const lm_claim *c = ev->claim;
    for (int k = 0; c->params && c->params[k].name; k++)
        if (strcmp(c->params[k].name, name) == 0) return ev->par[k];
    fprintf(stderr, "lemmata: internal error: claim %s has no parameter '%s'\n", c->id, name);
    abort();
}

int lm_par_i(const lm_eval *ev, const char *name) { return lm_int(lm_par(ev, name)); }

lm_rng *lm_eval_rng(lm_eval *ev) { return &ev->p->rng; }

/* ---- exact states of trajectory claims ---- */

static void state_item_free(lm_state_item *it)
{
    for (int i = 0; i < it->r * it->c; i++) mpfr_clear(it->v[i]);
    free(it->v);
    it->v = NULL;
}

void lm_state_free(lm_state *s)
{
    for (int k = 0; k < s->n; k++) state_item_free(&s->item[k]);
    s->n = 0;
}

int lm_state_wanted(const lm_eval *ev, int t)
{
    return ev->p->state_keep && !ev->searching && ev->p->state_keep->t == t;
}

int lm_state_given(const lm_eval *ev) { return ev->p->state_given ? ev->p->state_given->t : -1; }

/* v = the k-th value of M, exactly; 0, or -1 when it is a ball with a radius or its exponent is
 * beyond MPFR's range */
static int state_value(mpfr_t v, const lm_mat *M, size_t k)
{
    if (M->ab) {
        const arb_struct *b = M->b + k;
        const arf_struct *mid = arb_midref(b);
        if (!mag_is_zero(arb_radref(b))) return -1;
        if (!arf_is_zero(mid) &&
            (!arf_is_finite(mid) || arf_cmpabs_2exp_si(mid, mpfr_get_emax() - 2) >= 0 ||
             arf_cmpabs_2exp_si(mid, mpfr_get_emin() + 2) <= 0))
            return -1;
        slong bits = arf_bits(mid);
        mpfr_init2(v, bits < MPFR_PREC_MIN ? MPFR_PREC_MIN : (mpfr_prec_t)bits);
        return arf_get_mpfr(v, mid, MPFR_RNDN) ? -1 : 0;
    }
    if (M->mp) {
        mpfr_init2(v, mpfr_get_prec(M->m[k]));
        return mpfr_set(v, M->m[k], MPFR_RNDN) ? -1 : 0;
    }
    mpfr_init2(v, 53);
    return mpfr_set_d(v, M->d[k], MPFR_RNDN) ? -1 : 0;
}

int lm_state_keep(lm_eval *ev, const char *name, const lm_mat *M)
{
    lm_state *s = ev->p->state_keep;
    if (!s || ev->searching) return -1;
    int slot = s->n;
    for (int k = 0; k < s->n; k++)
        if (!strcmp(s->item[k].name, name)) slot = k;
    if (slot == LM_STATE_MAX) {
        snprintf(s->err, sizeof s->err, "more than %d state values kept", LM_STATE_MAX);
        return -1;
    }
    lm_state_item it = {.r = M->r, .c = M->c};
    snprintf(it.name, sizeof it.name, "%s", name);
    size_t n = (size_t)M->r * (size_t)M->c;
    it.v = lm_xmalloc((n ? n : 1) * sizeof *it.v);
    for (size_t k = 0; k < n; k++)
        if (state_value(it.v[k], M, k)) {
            for (size_t j = 0; j <= k; j++) mpfr_clear(it.v[j]);
            free(it.v);
            snprintf(s->err, sizeof s->err, "%s at iterate %d is not an exact value (entry %zu)", name,
                     s->t, k);
            return -1;
        }
    if (slot < s->n) state_item_free(&s->item[slot]); /* replaced: the latest copy counts */
    else s->n++;
    s->item[slot] = it;
    return 0;
}

int lm_state_get(lm_eval *ev, const char *name, lm_mat *M)
{
    const lm_state *s = ev->p->state_given;
    const lm_state_item *it = NULL;
    for (int k = 0; s && k < s->n; k++)
        if (!strcmp(s->item[k].name, name)) it = &s->item[k];
    if (!it) return lm_fail(ev, "state %s was not kept", name);
    if (it->r != M->r || it->c != M->c)
        return lm_fail(ev, "state %s is %dx%d, expected %dx%d", name, it->r, it->c, M->r, M->c);
    for (size_t k = 0; k < (size_t)M->r * (size_t)M->c; k++) {
        int inexact;
        if (M->ab) {
            arf_set_mpfr(arb_midref(M->b + k), it->v[k]);
            mag_zero(arb_radref(M->b + k));
            inexact = !mpfr_number_p(it->v[k]) && !mpfr_inf_p(it->v[k]);
        } else if (M->mp) {
            inexact = mpfr_set(M->m[k], it->v[k], MPFR_RNDN) != 0;
        } else {
            M->d[k] = mpfr_get_d(it->v[k], MPFR_RNDN);
            inexact = mpfr_nan_p(it->v[k]) || mpfr_cmp_d(it->v[k], M->d[k]) != 0;
        }
        if (inexact) return lm_fail(ev, "state %s: entry %zu is not representable exactly here", name, k);
    }
    return 0;
}

/* ---- instance-scoped values ---- */

static void keep(struct lm_eval_priv *p, void *v, int is_num)
{
    if (p->ntmp == p->captmp) {
        int nc = p->captmp ? 2 * p->captmp : 16;
        p->tmp = lm_xrealloc(p->tmp, sizeof *p->tmp * (size_t)nc);
        p->tmp_is_num = lm_xrealloc(p->tmp_is_num, (size_t)nc);
        p->captmp = nc;
    }
    p->tmp[p->ntmp] = v;
    p->tmp_is_num[p->ntmp++] = (unsigned char)is_num;
}

lm_mat *lm_inst_mat(lm_eval *ev, int rows, int cols)
{
    lm_mat *m = lm_mat_new(rows, cols, ev->ctx);
    keep(ev->p, m, 0);
    return m;
}

lm_num *lm_inst_num(lm_eval *ev)
{
    lm_num *x = lm_xmalloc(sizeof *x);
    lm_num_init(x, ev->ctx);
    lm_num_set_d(x, 0.0);
    keep(ev->p, x, 1);
    return x;
}

void lm_eval_priv_release(struct lm_eval_priv *p)
{
    for (int k = p->ntmp - 1; k >= 0; k--) {
        if (p->tmp_is_num[k]) {
            lm_num_clear(p->tmp[k]);
            free(p->tmp[k]);
        } else lm_mat_free(p->tmp[k]);
    }
    free(p->tmp);
    free(p->tmp_is_num);
    p->tmp = NULL;
    p->tmp_is_num = NULL;
    p->ntmp = p->captmp = 0;
}

int lm_size(lm_eval *ev, const char *name, int def, int min, int max)
{
    struct lm_eval_priv *p = ev->p;
    int v = def;
    if (p->ov)
        for (int k = 0; k < p->ov->n; k++)
            if (!strcmp(p->ov->name[k], name)) {
                v = p->ov->val[k];
                p->ov->used |= 1u << k;
                if ((v < min || v > max) && !p->size_err[0])
                    snprintf(p->size_err, sizeof p->size_err,
                             "size %s=%d is outside the range [%d, %d] of %s", name, v, min, max,
                             ev->claim->id);
            }
    if (p->size_err[0]) v = min; /* refused (the runner discards this instance): the cheapest */
    if (v < min) v = min;
    if (v > max) v = max;
    /* record each name once, with the value of its first use */
    char key[80];
    snprintf(key, sizeof key, "%s\t", name);
    size_t kl = strlen(key);
    int seen = 0;
    for (const char *q = p->sizes.buf; q && *q; q = strchr(q, '\n') ? strchr(q, '\n') + 1 : q + strlen(q))
        if (!strncmp(q, key, kl)) seen = 1;
    if (!seen) lm_sb_printf(&p->sizes, "%s\t%d\t%d\t%d\n", name, v, min, max);
    return v;
}

const char *const lm_nm5[5] = {"N", "n", "D", "d", "H"};
/* resource bounds of the attention sizes: the papers' instances use N <= 2, n <= 4, D <= 5,
 * d <= 3, H <= 2; at the bounds one instance (GD run and MPFR replays) takes seconds */
const int lm_nm5_max[5] = {16, 16, 32, 16, 8};

void lm_sizes(lm_eval *ev, int *z, const int *def, int n, const char *const *names,
              const int *max)
{
    for (int k = 0; k < n; k++) z[k] = lm_size(ev, names[k], def[k], 1, max[k]);
}

/* an exchanged instance (ev->p->io) wants its inputs reported: captured, or given */
int lm_want_data(const lm_eval *ev) { return (ev->p->want_data || ev->p->io) && !ev->searching; }

/* the shortest decimal that reads back as x */
static void shortest(char *b, size_t n, double x)
{
    for (int p = 1; p <= 17; p++) {
        snprintf(b, n, "%.*g", p, x);
        if (strtod(b, NULL) == x) return;
    }
}

/* input: the file's value replaces M (lm_input_mat); else it must equal M (lm_data_mat) */
static void data_mat(lm_eval *ev, const char *name, lm_mat *M, int input)
{
    if (!lm_want_data(ev)) return;
    if (ev->p->io) lm_io_data_mat(ev, name, M, input); /* the file's values first: the text shows them */
    if (!ev->p->want_data) return;
    lm_sb *d = &ev->p->data;
    if (d->len > (64u << 10)) return;
    lm_sb_printf(d, "%s\t%d\t%d\n", name, M->r, M->c);
    for (int i = 0; i < M->r; i++) {
        for (int j = 0; j < M->c; j++) {
            char b[40];
            shortest(b, sizeof b, lm_mat_get_d(M, i, j));
            lm_sb_printf(d, "%s%s", j ? " " : "", b);
        }
        lm_sb_printf(d, "\n");
    }
}

void lm_data_mat(lm_eval *ev, const char *name, const lm_mat *M)
{
    data_mat(ev, name, (lm_mat *)M, 0); /* not written: compared only */
}

void lm_input_mat(lm_eval *ev, const char *name, lm_mat *M) { data_mat(ev, name, M, 1); }

static double data_d(lm_eval *ev, const char *name, double v, int input)
{
    if (!lm_want_data(ev)) return v;
    if (ev->p->io) v = lm_io_data_d(ev, name, v, input);
    if (!ev->p->want_data) return v;
    char b[40];
    shortest(b, sizeof b, v);
    lm_sb_printf(&ev->p->data, "%s\t1\t1\n%s\n", name, b);
    return v;
}

void lm_data_d(lm_eval *ev, const char *name, double v) { (void)data_d(ev, name, v, 0); }
double lm_input_d(lm_eval *ev, const char *name, double v) { return data_d(ev, name, v, 1); }

/* an exported instance keeps the sides of its worst observation: 1 when the one of log10 ratio
 * l10, about to be recorded, becomes it */
static int io_worst(const lm_eval *ev, double l10)
{
    return ev->p->io && (ev->p->nobs == 0 || l10 > ev->p->worst_log10);
}

/* near-miss width: a relative margin of 2^-44 (~256 ulps of double) */
#define NEAR_REL 5.684341886080802e-14

static void vlabel(char *dst, size_t n, const char *where, va_list ap)
{
    if (where) vsnprintf(dst, n, where, ap);
    else dst[0] = 0;
}

/* the hash (FNV-1a) of a label without its printed numbers: a number is a digit run (with
 * its sign, decimals and exponent) that does not continue a word, so "||D||=0.31" and
 * "||D||=2.5" hash alike while "item1" and "item2" do not */
static unsigned long long label_skeleton(const char *s)
{
    unsigned long long h = 1469598103934665603ULL;
    int prev_word = 0;
    while (*s) {
        unsigned char ch = (unsigned char)*s;
        int starts_num = !prev_word && (isdigit(ch) || ((ch == '-' || ch == '+' || ch == '.') &&
                                                       isdigit((unsigned char)s[1])));
        if (starts_num) {
            s++;
            while (isdigit((unsigned char)*s) || *s == '.' ||
                   ((*s == 'e' || *s == 'E') && (isdigit((unsigned char)s[1]) ||
                                                  ((s[1] == '-' || s[1] == '+') && isdigit((unsigned char)s[2])))) ||
                   ((*s == '-' || *s == '+') && (s[-1] == 'e' || s[-1] == 'E')))
                s++;
            h = (h ^ '#') * 1099511628211ULL;
            prev_word = 0;
            continue;
        }
        h = (h ^ ch) * 1099511628211ULL;
        prev_word = isalnum(ch) || ch == '_';
        s++;
    }
    return h;
}

static void record(lm_eval *ev, int t, double log10r, int broke, int near, const char *lab)
{
    struct lm_eval_priv *p = ev->p;
    p->nobs++;
    if (p->prof) {
        if (p->nobs <= LM_PROF_MAX) {
            p->prof[p->nobs - 1] = log10r;
            p->prof_key[p->nobs - 1] = label_skeleton(lab);
        } else p->prof_over = 1;
    }
    if (broke && p->in_rate) {
        p->rate_broke = 1;
        broke = near = 0;
    }
    if (broke) {
        p->broke = 1;
        if (t < 0) p->break_untimed = 1; /* a whole-run observation: replay everything */
        else if (p->first_break_t < 0 || t < p->first_break_t) p->first_break_t = t;
    }
    if (near) {
        p->near = 1;
        if (t < 0) p->near_untimed = 1;
        else if (t > p->last_near_t) p->last_near_t = t;
    }
    if (p->nobs == 1 || log10r > p->worst_log10) {
        p->worst_log10 = log10r;
        p->worst_t = t;
        snprintf(p->worst_where, sizeof p->worst_where, "%s", lab);
    }
}

static void nonfinite(lm_eval *ev, const char *lab)
{
    if (!ev->p->failed) {
        ev->p->failed = 1;
        snprintf(ev->p->why, sizeof ev->p->why, "non-finite value in observation %s", lab);
    }
}

void lm_obs_le(lm_eval *ev, int t, const lm_num *a, const lm_num *b, double reltol,
               const char *where, ...)
{
    char lab[160];
    va_list ap;
    va_start(ap, where);
    vlabel(lab, sizeof lab, where, ap);
    va_end(ap);
    if (!lm_num_isfinite(a) || !lm_num_isfinite(b)) { nonfinite(ev, lab); return; }
    /* a mutant (lm_run_opts.mutate_*): b scaled by F, then the sides swapped */
    lm_num bs, as;
    int mut = ev->p->mutate_scale != 1.0 || ev->p->mutate_flip;
    if (mut) {
        lm_num_inits(ev->ctx, &bs, &as, (lm_num *)NULL);
        lm_num_mul_d(&bs, b, ev->p->mutate_scale);
        lm_num_set(&as, a);
        if (ev->p->mutate_flip) { a = &bs; b = &as; }
        else { a = &as; b = &bs; }
    }
    lm_num bt;
    lm_num_init(&bt, ev->ctx);
    lm_num_mul_d(&bt, b, reltol); /* b(1+tol) formed in the context: a tolerance */
    lm_num_add(&bt, &bt, b);      /* below 2^-53 must survive an MPFR replay     */
    int broke = lm_num_cmp(a, &bt) > 0;
    if (!mut && !broke) { /* the flip mutant on the same numbers: b > a(1+tol)? */
        lm_num at;
        lm_num_init(&at, ev->ctx);
        lm_num_mul_d(&at, a, reltol);
        lm_num_add(&at, &at, a);
        if (lm_num_cmp(b, &at) > 0) ev->p->flip_broke = 1;
        lm_num_clear(&at);
    }
    /* only when both sides really are balls: a check that computed in another context is
     * never certified by mistake */
    if (ev->ctx->backend == LM_ARB && a->ab && bt.ab && lm_num_certainly_gt(a, &bt)) ev->p->cert_broke = 1;
    int near = 0;
    double l10;
    /* the ratio is taken against the bound with its tolerance, b(1+tol), so
     * that a reported ratio <= 1 means exactly "held" */
    int sa = lm_num_sgn(a), sb = lm_num_sgn(&bt);
    if (sb > 0 && sa > 0) l10 = (lm_num_log_abs_d(a) - lm_num_log_abs_d(&bt)) / M_LN10;
    else if (sb > 0) l10 = -400.0; /* a <= 0 < b */
    else if (!broke) l10 = 0.0;    /* b <= 0 and a <= b: tight */
    else l10 = 400.0;
    if (!broke && ev->ctx->backend == LM_DOUBLE) {
        /* near miss: b(1+tol) - a within NEAR_REL of the scale */
        double da = lm_num_get_d(a), db = lm_num_get_d(&bt);
        double sc = fmax(fabs(da), fabs(db));
        near = (db - da) <= NEAR_REL * sc;
    } else if (!broke && ev->ctx->backend == LM_MPFR) {
        /* the same in MPFR: the margin within 2^16 units of the context's roundoff of
         * the scale -- the runner then escalates the precision (near_in_context) */
        lm_num m;
        lm_num_init(&m, ev->ctx);
        lm_num_sub(&m, &bt, a);
        double ls = fmax(lm_num_log_abs_d(a), lm_num_log_abs_d(&bt)) / M_LN2;
        near = lm_num_sgn(&m) == 0 || lm_num_log_abs_d(&m) / M_LN2 <= ls + lm_ctx_log2eps(ev->ctx) + 16.0;
        lm_num_clear(&m);
    }
    if (io_worst(ev, l10)) lm_io_sides(ev, "le", a, b, reltol);
    lm_num_clear(&bt);
    if (mut) lm_num_clears(&bs, &as, (lm_num *)NULL);
    record(ev, t, l10, broke, near, lab);
}

void lm_obs_le_log(lm_eval *ev, int t, const lm_num *loga, const lm_num *logb,
                   double reltol, const char *where, ...)
{
    char lab[160];
    va_list ap;
    va_start(ap, where);
    vlabel(lab, sizeof lab, where, ap);
    va_end(ap);
    if (!lm_num_isfinite(loga) || !lm_num_isfinite(logb)) { nonfinite(ev, lab); return; }
    /* a mutant: log b + log F, then the sides swapped */
    lm_num ls, la;
    int mut = ev->p->mutate_scale != 1.0 || ev->p->mutate_flip;
    if (mut) {
        lm_num_inits(ev->ctx, &ls, &la, (lm_num *)NULL);
        lm_num_add_d(&ls, logb, log(ev->p->mutate_scale));
        lm_num_set(&la, loga);
        if (ev->p->mutate_flip) { loga = &ls; logb = &la; }
        else { loga = &la; logb = &ls; }
    }
    lm_num lb, diff;
    lm_num_inits(ev->ctx, &lb, &diff, (lm_num *)NULL);
    lm_num_add_d(&lb, logb, log1p(reltol));
    lm_num_sub(&diff, loga, &lb);
    int broke = lm_num_sgn(&diff) > 0;
    /* the flip mutant on the same numbers: log b > log a + log1p(tol)? */
    if (!mut && !broke && lm_num_get_d(logb) > lm_num_get_d(loga) + log1p(reltol)) ev->p->flip_broke = 1;
    if (ev->ctx->backend == LM_ARB && loga->ab && lb.ab && lm_num_certainly_gt(loga, &lb))
        ev->p->cert_broke = 1;
    double dd = lm_num_get_d(&diff);
    int near = 0;
    if (!broke && ev->ctx->backend == LM_DOUBLE)
        near = -dd <= NEAR_REL * fmax(1.0, fabs(lm_num_get_d(&lb)));
    else if (!broke && ev->ctx->backend == LM_MPFR) /* |diff| within 2^16 roundoffs of max(1, |log b|) */
        near = lm_num_sgn(&diff) == 0 ||
               lm_num_log_abs_d(&diff) / M_LN2 <=
                   log2(fmax(1.0, fabs(lm_num_get_d(&lb)))) + lm_ctx_log2eps(ev->ctx) + 16.0;
    lm_num_sub(&diff, loga, &lb); /* against log b + log1p(tol), as in lm_obs_le */
    double l10 = lm_num_get_d(&diff) / M_LN10;
    if (io_worst(ev, l10)) lm_io_sides(ev, "le_log", loga, logb, reltol);
    lm_num_clears(&lb, &diff, (lm_num *)NULL);
    if (mut) lm_num_clears(&ls, &la, (lm_num *)NULL);
    record(ev, t, l10, broke, near, lab);
}

void lm_obs_le_d(lm_eval *ev, int t, double a, double b, double reltol, const char *where, ...)
{
    char lab[160];
    va_list ap;
    va_start(ap, where);
    vlabel(lab, sizeof lab, where, ap);
    va_end(ap);
    if (!isfinite(a) || !isfinite(b)) { nonfinite(ev, lab); return; }
    if (ev->p->mutate_scale != 1.0) b *= ev->p->mutate_scale; /* a mutant */
    if (ev->p->mutate_flip) { double sw = a; a = b; b = sw; }
    double bt = b * (1.0 + reltol);
    int broke = a > bt;
    if (!broke && ev->p->mutate_scale == 1.0 && !ev->p->mutate_flip && b > a * (1.0 + reltol)) ev->p->flip_broke = 1;
    double l10 = (a > 0 && bt > 0) ? (log(a) - log(bt)) / M_LN10
                                   : (bt > 0 ? -400.0 : (broke ? 400.0 : 0.0));
    if (io_worst(ev, l10)) lm_io_sides_d(ev, a, b, reltol);
    record(ev, t, l10, broke, 0, lab);
}

int lm_assume(lm_eval *ev, int ok, const char *why, ...)
{
    if (!ok && !ev->p->assume_failed) {
        va_list ap;
        va_start(ap, why);
        vsnprintf(ev->p->why, sizeof ev->p->why, why, ap);
        va_end(ap);
        ev->p->assume_failed = 1;
    }
    return ok;
}

int lm_fail(lm_eval *ev, const char *why, ...)
{
    if (!ev->p->failed) {
        va_list ap;
        va_start(ap, why);
        vsnprintf(ev->p->why, sizeof ev->p->why, why, ap);
        va_end(ap);
        ev->p->failed = 1;
    }
    return -1;
}

int lm_vacuous(lm_eval *ev, const char *why, ...)
{
    if (!ev->p->vacuous) {
        va_list ap;
        va_start(ap, why);
        vsnprintf(ev->p->why_vacuous, sizeof ev->p->why_vacuous, why, ap);
        va_end(ap);
        ev->p->vacuous = 1;
    }
    return 0;
}

int lm_rhs_trivial(lm_eval *ev, double b, double amax, const char *what)
{
    if (!(b >= amax)) return 0;
    lm_vacuous(ev, "the bound on %s is %.6g, at or above its a-priori maximum %.6g", what ? what : "the quantity",
               b, amax);
    return 1;
}

int lm_not_checkable(lm_eval *ev, const char *why)
{
    ev->p->not_checkable = 1;
    snprintf(ev->p->why, sizeof ev->p->why, "%s", why);
    return 0;
}

void lm_measure(lm_eval *ev, const char *name, double value)
{
    if (ev->searching) return;
    lm_sb_printf(&ev->p->measures, "%s=%.6g\n", name, value);
}

void lm_series(lm_eval *ev, const char *name, double x, double y)
{
    if (ev->searching) return;
    if (ev->p->series.len > (8u << 20)) return; /* cap: 8 MiB of figure data */
    lm_sb_printf(&ev->p->series, "%s\t%.17g\t%.17g\n", name, x, y);
}

void lm_series_axes(lm_eval *ev, const char *xlabel, const char *ylabel, int logy)
{
    snprintf(ev->p->axes, sizeof ev->p->axes, "%s\t%s\t%d", xlabel, ylabel, logy);
}

void lm_rate_judge(lm_eval *ev, const struct lm_rate_fit *r, const char *what)
{
    char m[160];
    snprintf(m, sizeof m, "%s" LM_RATE_M_SLOPE, what);
    lm_measure(ev, m, r->slope);
    snprintf(m, sizeof m, "%s" LM_RATE_M_CLAIMED, what);
    lm_measure(ev, m, r->claimed);
    snprintf(m, sizeof m, "%s" LM_RATE_M_SE, what);
    lm_measure(ev, m, r->se);
    snprintf(m, sizeof m, "%s" LM_RATE_M_HALF, what);
    lm_measure(ev, m, r->slope_half);
    if (r->decision == LM_RATE_TOO_SHORT) {
        /* not lm_not_checkable: the instance's other observations (a final value, an envelope)
         * are still judged, and a real break among them stands; the runner makes the instance
         * not-checkable when none broke */
        if (!ev->p->rate_short) snprintf(ev->p->why_rate, sizeof ev->p->why_rate, "%s: %s", what, r->why);
        ev->p->rate_short = 1;
        return;
    }
    /* recorded in log form, excess <= tol as e^excess <= e^tol, so that the ratio
     * e^(excess - tol) says how far the interval stays from (< 1) or lies beyond (> 1) the
     * claimed slope plus its tolerance, whatever the tolerance's size or sign */
    lm_num a, b;
    lm_num_inits(ev->ctx, &a, &b, (lm_num *)NULL);
    lm_num_set_d(&a, r->excess);
    lm_num_set_d(&b, r->tol);
    ev->p->in_rate = 1;
    lm_obs_le_log(ev, -1, &a, &b, 0.0, "%s: %s", what, r->why);
    ev->p->in_rate = 0;
    lm_num_clears(&a, &b, (lm_num *)NULL);
}
