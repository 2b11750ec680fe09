/* depth.c -- search saturation: how each claim's worst ratio moved with the budget (depth.h).
 *
 * A "holds" after 64 instances per configuration and a "holds" after 4096 are not the same
 * finding.  When the database holds finished runs of the principal run's commit at several
 * budgets (and seeds), a paper's summary page shows, per claim, its worst LHS/RHS at each
 * budget against the instances evaluated: a line that is flat at its right end says the
 * search has saturated (more instances found nothing worse), one that still rises says a
 * deeper search may find worse instances yet, and a verdict that changed with the budget says
 * the shallow one was wrong.
 *
 * Reading the runs: a depth is (budget, quick), ordered by budget and, at one budget, quick
 * first (smaller instances).  At a depth, the seeds are the distinct seeds of its runs (a
 * seed run twice, or copied by incremental verify, counts once: its most severe verdict and
 * largest ratio).  The worst ratio is the max over the seeds; a failing verdict (violated,
 * inconsistent) without a ratio counts as +inf and sits at the top of the figure; any other
 * verdict without one has no ratio at that depth.  The instances are the max over the seeds
 * (they agree unless a claim's check changed its instance count between runs). */
#include "depth.h"

#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* seeds remembered per depth for the text (more are only counted) */
#define DEPTH_SEEDS 8
/* a rise of the worst ratio by more than this (relative) between the two deepest depths is a
 * search that has not saturated; so is any rise across 1 */
#define RISE_RTOL 0.01
/* claims named on the summary page per list, and labelled in the figure */
#define DEPTH_LISTED 12
#define DEPTH_LABELLED 8

typedef struct {
    int budget, quick;
    int nseeds;
    uint64_t seeds[DEPTH_SEEDS];
    double worst;       /* max over the seeds; +inf: failed without a ratio; NaN: no ratio */
    long instances;     /* max over the seeds */
    int nv[LM_V_COUNT]; /* seeds per verdict */
    int verdict;        /* the most severe verdict seen */
} dpoint;

typedef struct {
    dpoint *p; /* ascending depth */
    int np;
} dclaim;

struct rp_depth {
    int n;     /* the docs */
    dclaim *c; /* per doc */
    int npaper;
    struct {
        char paper[64];
        char fig[300]; /* "" when no figure was written */
    } *paper;
    char commit[64];
};

/* the verdict colours of the report's preamble (report.c), for gnuplot */
static const char *const vrgb[LM_V_COUNT] = {"#008228", "#00786e", "#966e00", "#646464", "#d76e00",
                                             "#c86400", "#be00aa", "#b91e3c", "#d20000"};

static int depth_cmp(int b1, int q1, int b2, int q2)
{
    if (b1 != b2) return b1 < b2 ? -1 : 1;
    return q1 == q2 ? 0 : q1 ? -1 : 1; /* at one budget the quick run is the shallower */
}

static int failing(int v)
{
    return v == LM_V_VIOLATED || v == LM_V_INCONSISTENT;
}

/* ---- reading the runs ----------------------------------------------------------------- */

/* the rows of one claim in the finished runs of the commit, into C; 0 or -1 */
static int load_claim(sqlite3_stmt *st, const char *commit, const char *id, dclaim *C)
{
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    sqlite3_bind_text(st, 1, commit, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, id, -1, SQLITE_TRANSIENT);
    int cap = 0, rc;
    char last_seed[32] = "";
    int last_v = -1; /* the verdict counted for the previous row's seed */
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        int budget = sqlite3_column_int(st, 0), quick = sqlite3_column_int(st, 1) != 0;
        const unsigned char *seed = sqlite3_column_text(st, 2);
        const unsigned char *vt = sqlite3_column_text(st, 3);
        int v = vt ? lm_verdict_from_name((const char *)vt) : -1;
        if (v < 0) v = LM_V_ERROR;
        double wr = sqlite3_column_type(st, 4) == SQLITE_NULL ? (double)NAN : sqlite3_column_double(st, 4);
        if (isnan(wr) && failing(v)) wr = INFINITY;
        long inst = (long)sqlite3_column_int64(st, 5);
        dpoint *p = C->np ? &C->p[C->np - 1] : NULL;
        if (!p || depth_cmp(p->budget, p->quick, budget, quick)) {
            if (C->np == cap) {
                cap = cap ? 2 * cap : 4;
                dpoint *t = realloc(C->p, sizeof *t * (size_t)cap);
                if (!t) return -1;
                C->p = t;
            }
            p = &C->p[C->np++];
            memset(p, 0, sizeof *p);
            p->budget = budget;
            p->quick = quick;
            p->worst = NAN;
            p->verdict = -1;
            last_seed[0] = 0;
            last_v = -1;
        }
        char s[32];
        snprintf(s, sizeof s, "%s", seed ? (const char *)seed : "0");
        if (last_v >= 0 && !strcmp(s, last_seed)) { /* the same seed again: its most severe verdict */
            if (v > last_v) {
                p->nv[last_v]--;
                p->nv[v]++;
                last_v = v;
            }
        } else {
            if (p->nseeds < DEPTH_SEEDS) p->seeds[p->nseeds] = strtoull(s, NULL, 10);
            p->nseeds++;
            p->nv[v]++;
            snprintf(last_seed, sizeof last_seed, "%s", s);
            last_v = v;
        }
        if (v > p->verdict) p->verdict = v;
        if (!isnan(wr) && (isnan(p->worst) || wr > p->worst)) p->worst = wr;
        if (inst > p->instances) p->instances = inst;
    }
    return rc == SQLITE_DONE ? 0 : -1;
}

static int load(rp_depth *D, const char *dbpath, const rp_doc *docs, int n, char *err, int errlen)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        snprintf(err, (size_t)errlen, "cannot open %s to read its runs: %s", dbpath,
                 db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return -1;
    }
    sqlite3_busy_timeout(db, 10000);
    /* runs outside: a few rows, each joined to its claim through the key (run_id, claim_id) */
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (sqlite3_prepare_v2(db,
                           "SELECT r.budget, r.quick, r.seed, c.verdict, c.worst_ratio, c.instances "
                           "FROM runs r JOIN claims c ON c.run_id = r.id AND c.claim_id = ?2 "
                           "WHERE r.commit_id = ?1 AND r.finished = 1 "
                           "ORDER BY r.budget, r.quick DESC, r.seed, r.id",
                           -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, (size_t)errlen, "cannot read the runs of %s: %s", dbpath, sqlite3_errmsg(db));
        goto out;
    }
    for (int k = 0; k < n; k++)
        if (load_claim(st, D->commit, docs[k].c->claim.id, &D->c[k])) {
            snprintf(err, (size_t)errlen, "cannot read the runs of %s: %s", dbpath, sqlite3_errmsg(db));
            goto out;
        }
    rc = 0;
out:
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rc;
}

/* ---- what a claim's depths say --------------------------------------------------------- */

typedef struct {
    int changed;   /* its verdict differs between two consecutive depths */
    int rising;    /* its worst ratio rose by more than RISE_RTOL (or across 1) at the deepest step */
    int saturated; /* two depths or more, and the worst ratio did not rise so at the deepest step */
    int noratio;   /* two depths or more, but one of the two deepest has no ratio */
    int one;       /* one depth only */
    int disagree;  /* the seeds of its deepest depth disagree on the verdict */
} trend;

/* how many different verdicts the seeds of a depth came to */
static int verdict_kinds(const dpoint *p)
{
    int kinds = 0;
    for (int v = 0; v < LM_V_COUNT; v++) kinds += p->nv[v] > 0;
    return kinds;
}

static int rose(double a, double b)
{
    return b > a && (b - a > RISE_RTOL * fabs(a) || (a <= 1 && b > 1));
}

static trend trend_of(const dclaim *C)
{
    trend t = {0, 0, 0, 0, 0, 0};
    if (C->np == 1) t.one = 1;
    if (C->np >= 1) t.disagree = verdict_kinds(&C->p[C->np - 1]) > 1;
    if (C->np < 2) return t;
    for (int k = 1; k < C->np; k++)
        if (C->p[k].verdict != C->p[k - 1].verdict) t.changed = 1;
    double a = C->p[C->np - 2].worst, b = C->p[C->np - 1].worst;
    if (isnan(a) || isnan(b)) t.noratio = 1;
    else if (rose(a, b)) t.rising = 1;
    else t.saturated = 1;
    return t;
}

/* the distinct depths of the claims docs[a..b), ascending, into d (at most max); their count */
typedef struct {
    int budget, quick;
    int nseeds; /* the most seeds any claim has there */
    int nlisted;
    uint64_t seeds[DEPTH_SEEDS]; /* the seeds seen there, the first DEPTH_SEEDS distinct ones */
} dlevel;

static int paper_levels(const rp_depth *D, int a, int b, dlevel *d, int max)
{
    int nd = 0;
    for (int j = a; j < b && j < D->n; j++)
        for (int i = 0; i < D->c[j].np; i++) {
            const dpoint *p = &D->c[j].p[i];
            int k = 0;
            while (k < nd && depth_cmp(d[k].budget, d[k].quick, p->budget, p->quick) < 0) k++;
            if (k == nd || depth_cmp(d[k].budget, d[k].quick, p->budget, p->quick)) {
                if (nd == max) continue;
                memmove(d + k + 1, d + k, sizeof *d * (size_t)(nd - k));
                memset(&d[k], 0, sizeof d[k]);
                d[k].budget = p->budget;
                d[k].quick = p->quick;
                nd++;
            }
            if (p->nseeds > d[k].nseeds) d[k].nseeds = p->nseeds;
            for (int s = 0; s < p->nseeds && s < DEPTH_SEEDS; s++) {
                int q = 0;
                while (q < d[k].nlisted && d[k].seeds[q] != p->seeds[s]) q++;
                if (q == d[k].nlisted && q < DEPTH_SEEDS) d[k].seeds[d[k].nlisted++] = p->seeds[s];
            }
        }
    return nd;
}

#define MAX_LEVELS 64

/* 1 when every depth was run with the same seeds (as far as they are remembered) */
static int same_seeds(const dlevel *d, int nd)
{
    for (int k = 1; k < nd; k++) {
        if (d[k].nseeds != d[0].nseeds || d[k].nlisted != d[0].nlisted) return 0;
        for (int s = 0; s < d[k].nlisted; s++) {
            int q = 0;
            while (q < d[0].nlisted && d[0].seeds[q] != d[k].seeds[s]) q++;
            if (q == d[0].nlisted) return 0;
        }
    }
    return 1;
}

/* ---- the figure ------------------------------------------------------------------------- */

/* a gnuplot single-quoted string: ' doubled, control characters blanked (nothing in s can end
 * the string or the command) */
static const char *short_id(const char *id)
{
    const char *s = strchr(id, '/');
    return s ? s + 1 : id;
}

/* the point a claim's depth k is drawn at: 0 when it has none (no ratio, no instance) */
static int drawn_at(const dpoint *p, double lo, double hi, double *x, double *y, int *clamped)
{
    if (isnan(p->worst) || p->instances <= 0) return 0;
    *x = (double)p->instances;
    *y = fmin(fmax(p->worst, lo), hi);
    *clamped = !(p->worst >= lo && p->worst <= hi);
    return 1;
}

/* the claim's verdict at its deepest depth (-1 when it has none) */
static int final_verdict(const dclaim *C)
{
    return C->np ? C->p[C->np - 1].verdict : -1;
}

/* Writes figures/depth-<paper>.{dat,gp} for the claims docs[a..b) and fills fig; 0, 1 when no
 * claim has a point to draw, -1 on error. */
static int write_figure(const char *root, const rp_depth *D, const rp_doc *docs, int a, int b, lm_figure *fig,
                        char *err, int errlen)
{
    double xmin = INFINITY, xmax = 0, ymin = 0.1, ymax = 10; /* the bound at 1 always shows */
    int npts = 0;
    for (int j = a; j < b; j++)
        for (int i = 0; i < D->c[j].np; i++) {
            const dpoint *p = &D->c[j].p[i];
            if (isnan(p->worst) || p->instances <= 0) continue;
            npts++;
            xmin = fmin(xmin, (double)p->instances);
            xmax = fmax(xmax, (double)p->instances);
            if (isfinite(p->worst) && p->worst > 0) {
                ymin = fmin(ymin, p->worst);
                ymax = fmax(ymax, p->worst);
            }
        }
    if (npts == 0) return 1;
    /* whole decades, so the axes carry powers of ten; at most 16 decades either way of the bound
     * (one beyond sits at the axis' end, like a failure without a ratio) */
    double lo = pow(10, floor(log10(fmax(ymin, 1e-16)))), hi = pow(10, ceil(log10(fmin(ymax, 1e16))));
    double xlo = pow(10, floor(log10(xmin))), xhi = pow(10, ceil(log10(xmax)));
    /* the claims the text names are labelled at their right end: room for the label */
    int lab[DEPTH_LABELLED], nlab = 0;
    for (int j = a; j < b && nlab < DEPTH_LABELLED; j++) {
        trend t = trend_of(&D->c[j]);
        if (t.changed || t.rising) lab[nlab++] = j;
    }
    if (nlab && xhi < 6 * xmax) xhi *= 10;
    if (xhi <= xlo) xhi = 10 * xlo;

    rp_figfile ff;
    char sid[160], base[300], out[320], head[400];
    lm_fig_sanitize(sid, sizeof sid, docs[a].paper);
    snprintf(base, sizeof base, "figures/depth-%s", sid);
    FILE *f = rp_fig_open(&ff, root, base, ".dat", err, errlen);
    if (!f) return -1;
    /* one block per verdict at the deepest depth (least severe first: the failures are drawn on
     * top), one polyline per claim within it: instances, worst ratio, 1 when clamped */
    snprintf(head, sizeof head, "search depth of paper %.150s, commit %.150s", docs[a].paper, D->commit);
    fputs("# ", f);
    rp_dat_comment(f, head);
    fputs("# per claim and budget: instances, worst LHS/RHS (max over seeds, clamped), clamped\n", f);
    int block[LM_V_COUNT], cnt[LM_V_COUNT], nblock = 0;
    for (int v = 0; v < LM_V_COUNT; v++) {
        block[v] = -1;
        cnt[v] = 0;
        for (int j = a; j < b; j++) {
            if (final_verdict(&D->c[j]) != v) continue;
            int drawn = 0;
            double x, y;
            int cl;
            for (int i = 0; i < D->c[j].np; i++) {
                if (!drawn_at(&D->c[j].p[i], lo, hi, &x, &y, &cl)) continue;
                if (!drawn) {
                    if (cnt[v] == 0) fprintf(f, "%s# verdict %s\n", nblock ? "\n\n" : "", lm_verdict_name((lm_verdict)v));
                    else fputc('\n', f); /* one blank line: a new polyline in the same block */
                    fputs("# claim ", f);
                    rp_dat_comment(f, docs[j].c->claim.id);
                }
                fprintf(f, "%.17g %.17g %d\n", x, y, cl);
                drawn = 1;
            }
            if (drawn && cnt[v]++ == 0) block[v] = nblock++;
        }
    }
    if (rp_fig_close(&ff, f, err, errlen)) return -1;

    if (!(f = rp_fig_open(&ff, root, base, ".gp", err, errlen))) return -1;
    snprintf(out, sizeof out, "%s.pdf", base);
    /* 9 pt in a 9.6 cm plot included at 0.57 of the text width (about 9.9 cm): the report's
     * footnote size, small enough to sit on the paper's summary page with its caption beside it */
    fputs("# generated by lemmata report -- rerun from the source root: gnuplot <this file>\n"
          "reset\nset terminal pdfcairo enhanced color size 9.6cm,5.6cm font 'Sans,9'\nset output ",
          f);
    rp_gp_str(f, out);
    fputs("\nset xlabel 'instances evaluated per claim (all its configurations)'\n"
          "set ylabel 'worst LHS/RHS'\nset logscale xy\nset format x '10^{%L}'\nset format y '10^{%L}'\n",
          f);
    fprintf(f, "set xrange [%.17g:%.17g]\nset yrange [%.17g:%.17g]\n", xlo, xhi, lo, hi);
    fputs("set grid lc rgb '#dddddd'\nset border lc rgb '#444444'\n"
          "set key outside top center horizontal samplen 2 width 1 noenhanced\n"
          "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 1.5 lc rgb '#d20000' back\n",
          f);
    /* labels that would overprint one another (claims ending at about the same point) are
     * moved down a line at a time; in fractions of the plot: a line of 7 pt type is about 0.07
     * of its height, a label about 0.3 of its width */
    double placed_x[DEPTH_LABELLED], placed_y[DEPTH_LABELLED];
    int nplaced = 0;
    for (int q = 0; q < nlab; q++) {
        const dclaim *C = &D->c[lab[q]];
        double x = 0, y = 0;
        int cl, any = 0;
        for (int i = 0; i < C->np; i++) any |= drawn_at(&C->p[i], lo, hi, &x, &y, &cl);
        if (!any) continue;
        double fx = log(x / xlo) / log(xhi / xlo), fy = log(y / lo) / log(hi / lo);
        int down = fy > 0.93; /* off the top border */
        for (int moved = 1; moved && down < 8;) {
            moved = 0;
            for (int i = 0; i < nplaced; i++)
                if (fabs(fx - placed_x[i]) < 0.3 && fabs(fy - 0.075 * down - placed_y[i]) < 0.07) {
                    down++;
                    moved = 1;
                    break;
                }
        }
        placed_x[nplaced] = fx;
        placed_y[nplaced++] = fy - 0.075 * down;
        int v = final_verdict(C);
        fputs("set label ", f);
        rp_gp_str(f, short_id(docs[lab[q]].c->claim.id));
        fprintf(f, " at %.17g, %.17g left offset char 0.6,%.2f font ',7' tc rgb '%s' front noenhanced\n", x, y,
                down ? -0.8 * down : 0.0, vrgb[v >= 0 ? v : LM_V_ERROR]);
    }
    fputs("plot ", f);
    for (int v = 0; v < LM_V_COUNT; v++) {
        if (block[v] < 0) continue;
        char title[80];
        snprintf(title, sizeof title, "%s (%d)", lm_verdict_name((lm_verdict)v), cnt[v]);
        /* a point with its value: a dot; clamped to an end of the axis: a diamond */
        fprintf(f, "%s'%s.dat' index %d using 1:2 with lines lw 1.4 lc rgb '%s' title ", block[v] ? ", \\\n     " : "",
                base, block[v], vrgb[v]);
        rp_gp_str(f, title);
        fprintf(f, ", \\\n     '' index %d using 1:2:($3 > 0 ? 13 : 7) with points pt variable ps 0.55 "
                   "lc rgb '%s' notitle",
                block[v], vrgb[v]);
    }
    fputs("\nunset output\n", f);
    if (rp_fig_close(&ff, f, err, errlen)) return -1;
    snprintf(fig->path, sizeof fig->path, "%s", base);
    fig->caption[0] = 0; /* rp_depth_put_paper writes it */
    return 0;
}

/* ---- prepare / free ----------------------------------------------------------------------- */

rp_depth *rp_depth_prepare(const char *root, const char *dbpath, const lm_results *R, const rp_doc *docs,
                           int n, lm_figure *fig, int *nfig, int maxfig, char *err, int errlen)
{
    rp_depth *D = calloc(1, sizeof *D);
    if (!D || !(D->c = calloc((size_t)(n > 0 ? n : 1), sizeof *D->c)) ||
        !(D->paper = calloc((size_t)(n > 0 ? n : 1), sizeof *D->paper))) {
        snprintf(err, (size_t)errlen, "out of memory");
        goto fail;
    }
    D->n = n > 0 ? n : 0;
    snprintf(D->commit, sizeof D->commit, "%s", R ? R->meta.commit : "");
    if (dbpath && D->n && load(D, dbpath, docs, D->n, err, errlen)) goto fail;
    for (int a = 0; a < D->n;) {
        int b = a + 1;
        while (b < D->n && !strcmp(docs[b].paper, docs[a].paper)) b++;
        int k = D->npaper++;
        snprintf(D->paper[k].paper, sizeof D->paper[k].paper, "%s", docs[a].paper);
        dlevel lv[MAX_LEVELS];
        if (paper_levels(D, a, b, lv, MAX_LEVELS) >= 2 && *nfig < maxfig) {
            int rc = write_figure(root, D, docs, a, b, &fig[*nfig], err, errlen);
            if (rc < 0) goto fail;
            if (rc == 0) {
                snprintf(D->paper[k].fig, sizeof D->paper[k].fig, "%s", fig[*nfig].path);
                (*nfig)++;
            }
        }
        a = b;
    }
    return D;
fail:
    rp_depth_free(D);
    return NULL;
}

void rp_depth_free(rp_depth *D)
{
    if (!D) return;
    for (int k = 0; D->c && k < D->n; k++) free(D->c[k].p);
    free(D->c);
    free(D->paper);
    free(D);
}

/* ---- the summary page's paragraph --------------------------------------------------------- */

static void put_budget(rp_writer *w, int budget, int quick)
{
    lm_tbuf_printf(&w->b, "%d%s", budget, quick ? " quick" : ""); /* as slack.c writes it */
}

/* "1, 2 and 3" (at most DEPTH_SEEDS named, then "and N more") */
static void put_seeds(rp_writer *w, const dlevel *d)
{
    for (int s = 0; s < d->nlisted; s++)
        lm_tbuf_printf(&w->b, "%s%llu", s == 0 ? "" : s + 1 == d->nlisted && d->nseeds == d->nlisted ? " and " : ", ",
                       (unsigned long long)d->seeds[s]);
    if (d->nseeds > d->nlisted) lm_tbuf_printf(&w->b, " and %d more", d->nseeds - d->nlisted);
}

static void put_ratio(rp_writer *w, double r)
{
    if (isinf(r) && r > 0) {
        rp_put(w, "no ratio (failed)");
        return;
    }
    char buf[80];
    lm_tex_ratio(buf, sizeof buf, r);
    rp_put(w, buf);
}

static void put_claim_ref(rp_writer *w, const rp_doc *docs, int j)
{
    lm_tbuf_printf(&w->b, "\\hyperref[claim:%d]{\\texttt{", j);
    rp_esc_tt(w, short_id(docs[j].c->claim.id));
    rp_put(w, "}}");
}

/* " 2 violated, 1 holds": the seeds of a depth per verdict, most severe first */
static void put_split(rp_writer *w, const dpoint *p)
{
    int any = 0;
    for (int v = LM_V_COUNT - 1; v >= 0; v--) {
        if (!p->nv[v]) continue;
        lm_tbuf_printf(&w->b, "%s %d ", any ? "," : "", p->nv[v]);
        rp_put_verdict(w, (lm_verdict)v);
        any = 1;
    }
}

/* "holds at budgets 8 and 32, violated at 128" */
static void put_verdict_path(rp_writer *w, const dclaim *C)
{
    for (int i = 0; i < C->np;) {
        int e = i + 1;
        while (e < C->np && C->p[e].verdict == C->p[i].verdict) e++;
        if (i) rp_put(w, ", ");
        rp_put_verdict(w, (lm_verdict)C->p[i].verdict);
        rp_put(w, i == 0 ? (e - i > 1 ? " at budgets " : " at budget ") : " at ");
        for (int k = i; k < e; k++) {
            if (k > i) rp_put(w, k + 1 == e ? " and " : ", ");
            put_budget(w, C->p[k].budget, C->p[k].quick);
        }
        i = e;
    }
    /* seeds that disagree at a depth (the verdict above is their most severe); consecutive
     * depths where they disagree alike are named together */
    for (int i = 0; i < C->np;) {
        if (verdict_kinds(&C->p[i]) < 2) {
            i++;
            continue;
        }
        int e = i + 1;
        while (e < C->np && !memcmp(C->p[e].nv, C->p[i].nv, sizeof C->p[i].nv)) e++;
        rp_put(w, "; at ");
        for (int k = i; k < e; k++) {
            if (k > i) rp_put(w, k + 1 == e ? " and " : ", ");
            put_budget(w, C->p[k].budget, C->p[k].quick);
        }
        rp_put(w, " the seeds disagree:");
        put_split(w, &C->p[i]);
        i = e;
    }
}

void rp_depth_put_paper(rp_writer *w, const rp_depth *D, const rp_doc *docs, int first, int count)
{
    if (!D || count <= 0 || first < 0 || first + count > D->n) return;
    dlevel lv[MAX_LEVELS];
    int nd = paper_levels(D, first, first + count, lv, MAX_LEVELS);
    const char *fig = NULL;
    for (int k = 0; k < D->npaper; k++)
        if (!strcmp(D->paper[k].paper, docs[first].paper) && D->paper[k].fig[0]) fig = D->paper[k].fig;
    /* the heading, the sentence of the depths and the figure stay together */
    lm_tbuf_printf(&w->b, "\\Needspace{%d\\baselineskip}\\paragraph{Search depth}", fig ? 20 : 6);
    if (nd == 0) {
        rp_put(w, " No finished run of commit \\texttt{");
        rp_esc_tt(w, D->commit[0] ? D->commit : "unknown");
        rp_put(w, "} holds this paper's claims, so how deeply they were searched is not known.\n\n");
        return;
    }
    if (nd == 1) {
        rp_put(w, " Searched at one budget (");
        put_budget(w, lv[0].budget, lv[0].quick);
        rp_put(w, lv[0].nseeds == 1 ? ", seed " : ", seeds ");
        put_seeds(w, &lv[0]);
        rp_put(w, "): \\texttt{make verify BUDGET=64,256,1024} shows whether deeper searches find worse "
                  "instances.\n\n");
        return;
    }

    /* the depths, and the seeds at each */
    int same = 1;
    for (int k = 1; k < nd; k++) same &= lv[k].nseeds == lv[0].nseeds;
    lm_tbuf_printf(&w->b, " Searched at %d budgets: ", nd);
    for (int k = 0; k < nd; k++) {
        if (k) rp_put(w, k + 1 == nd ? " and " : ", ");
        put_budget(w, lv[k].budget, lv[k].quick);
        if (!same) lm_tbuf_printf(&w->b, " (%d seed%s)", lv[k].nseeds, lv[k].nseeds == 1 ? "" : "s");
    }
    rp_put(w, " instances per configuration");
    if (same) {
        lm_tbuf_printf(&w->b, ", with %d seed%s each (", lv[0].nseeds, lv[0].nseeds == 1 ? "" : "s");
        put_seeds(w, &lv[0]);
        rp_put(w, ")");
    }
    rp_put(w, ", in the finished runs of commit \\texttt{");
    rp_esc_tt(w, D->commit[0] ? D->commit : "unknown");
    rp_put(w, "}.  At each budget a claim shows its worst LHS/RHS over the seeds and its most severe "
              "verdict.");
    if (!same_seeds(lv, nd))
        rp_put(w, "  \\emph{The budgets were not run with the same seeds}: a verdict or ratio may change with the "
                  "seeds rather than with the budget.");
    rp_put(w, "\n\n");

    int nchanged = 0, nrising = 0, nsat = 0, nnoratio = 0, none = 0, nmulti = 0, ndis = 0;
    for (int j = first; j < first + count; j++) {
        trend t = trend_of(&D->c[j]);
        nchanged += t.changed;
        nrising += t.rising;
        nsat += t.saturated;
        nnoratio += t.noratio;
        none += t.one;
        ndis += t.disagree;
        nmulti += D->c[j].np >= 2;
    }
    if (fig) {
        /* the caption beside the figure: the summary page stays short */
        rp_put(w, "\\par\\noindent\\begin{minipage}[c]{0.57\\linewidth}"
                  "\\includegraphics[width=\\linewidth]{");
        rp_put(w, fig); /* sanitized: letters, digits, '-' and '/' */
        rp_put(w, ".pdf}\\end{minipage}\\hfill\\begin{minipage}[c]{0.40\\linewidth}"
                  "\\captionsetup{justification=raggedright,singlelinecheck=false}\\captionof{figure}{Search "
                  "depth: each claim's worst LHS/RHS (the largest over the seeds; RHS/LHS for a lower bound) "
                  "against the instances its check evaluated, one line per claim through its budgets, coloured by "
                  "its verdict at the deepest budget; log axes; dashed red line: the bound, LHS = RHS.  "
                  "\\emph{Flat} at the right end: the deeper search found nothing worse, the search has "
                  "saturated.  \\emph{Rising} at the right end: deeper searches still find worse instances.  "
                  "A diamond: beyond the axis, or (at the top) a failure without a ratio.");
        if (nchanged + nrising) rp_put(w, "  Labelled: the claims listed below.");
        rp_put(w, "}\\end{minipage}\\par\\medskip\n");
    }

    if (nchanged) {
        lm_tbuf_printf(&w->b, "{\\small\\textbf{Verdict changed with the budget} (%d):\n"
                              "\\begin{itemize}\\setlength{\\itemsep}{0pt}\n",
                       nchanged);
        int shown = 0;
        for (int j = first; j < first + count && shown < DEPTH_LISTED; j++) {
            if (!trend_of(&D->c[j]).changed) continue;
            shown++;
            rp_put(w, "\\item ");
            put_claim_ref(w, docs, j);
            rp_put(w, ": ");
            put_verdict_path(w, &D->c[j]);
            rp_put(w, ".\n");
        }
        rp_put(w, "\\end{itemize}");
        if (nchanged > shown) lm_tbuf_printf(&w->b, "\\dots{} and %d more.", nchanged - shown);
        rp_put(w, "\\par}\n");
    }
    if (nrising) {
        lm_tbuf_printf(&w->b, "{\\small\\textbf{Still rising, not saturated} (%d): the worst LHS/RHS rose by more "
                              "than 1\\%% (or across 1) between the claim's two deepest budgets.\n"
                              "\\begin{itemize}\\setlength{\\itemsep}{0pt}\n",
                       nrising);
        int shown = 0;
        for (int j = first; j < first + count && shown < DEPTH_LISTED; j++) {
            const dclaim *C = &D->c[j];
            if (!trend_of(C).rising) continue;
            shown++;
            const dpoint *p = &C->p[C->np - 2], *q = &C->p[C->np - 1];
            rp_put(w, "\\item ");
            put_claim_ref(w, docs, j);
            rp_put(w, " (");
            rp_put_verdict(w, (lm_verdict)q->verdict);
            rp_put(w, "): ");
            put_ratio(w, p->worst);
            rp_put(w, " at ");
            put_budget(w, p->budget, p->quick);
            rp_put(w, " $\\to$ ");
            put_ratio(w, q->worst);
            rp_put(w, " at ");
            put_budget(w, q->budget, q->quick);
            if (isfinite(q->worst) && p->worst > 0)
                lm_tbuf_printf(&w->b, " (+%.3g\\%%)", 100 * (q->worst / p->worst - 1));
            if (p->worst <= 1 && q->worst > 1) rp_put(w, ", across the bound");
            rp_put(w, ".\n");
        }
        rp_put(w, "\\end{itemize}");
        if (nrising > shown) lm_tbuf_printf(&w->b, "\\dots{} and %d more.", nrising - shown);
        rp_put(w, "\\par}\n");
    }
    /* a verdict that depends on the seed is a shallow one, whatever the budget */
    if (ndis) {
        lm_tbuf_printf(&w->b, "{\\small\\textbf{The seeds disagree} at the deepest budget (%d; the verdict shown is "
                              "the most severe):", ndis);
        int shown = 0;
        for (int j = first; j < first + count && shown < DEPTH_LISTED; j++) {
            const dclaim *C = &D->c[j];
            if (!trend_of(C).disagree) continue;
            rp_put(w, shown++ ? "; " : " ");
            put_claim_ref(w, docs, j);
            rp_put(w, " (");
            put_budget(w, C->p[C->np - 1].budget, C->p[C->np - 1].quick);
            rp_put(w, ":");
            put_split(w, &C->p[C->np - 1]);
            rp_put(w, ")");
        }
        if (ndis > shown) lm_tbuf_printf(&w->b, "; \\dots{} and %d more", ndis - shown);
        rp_put(w, ".\\par}\n");
    }
    /* the count of the saturated ones, and of those that cannot say */
    if (nmulti == 0)
        rp_put(w, "No claim was checked at two budgets: nothing can be said about saturation yet.");
    else if (nsat == nmulti && !nchanged)
        lm_tbuf_printf(&w->b, "\\textbf{Saturated}: %s %d claim%s checked at two budgets or more: no verdict "
                              "changed and no worst LHS/RHS rose by more than 1\\%% between the two deepest.",
                       nmulti == 1 ? "the" : "all", nmulti, nmulti == 1 ? "" : "s");
    else
        lm_tbuf_printf(&w->b, "\\textbf{Saturated}: %d of the %d claim%s checked at two budgets or more (the worst "
                              "LHS/RHS rose by at most 1\\%% between the two deepest).",
                       nsat, nmulti, nmulti == 1 ? "" : "s");
    if (nnoratio)
        lm_tbuf_printf(&w->b, " %d %s no worst ratio at one of the two deepest budgets (a verdict without "
                              "one), so %s search depth cannot be judged.",
                       nnoratio, nnoratio == 1 ? "has" : "have", nnoratio == 1 ? "its" : "their");
    if (none)
        lm_tbuf_printf(&w->b, " %d %s checked at one budget only.", none, none == 1 ? "was" : "were");
    rp_put(w, "\n\n");
}
