/* figures.c -- gnuplot figures of one configuration.
 *
 *   figures/<id>-<config>.{dat,gp,pdf}         the series of the worst instance
 *                                              (trajectories against their bounds)
 *   figures/<id>-<config>-ratios.{dat,gp,pdf}  histogram of log10(LHS/RHS) over
 *                                              the instances, bound at 0, worst marked
 *
 *   figures/slack-<paper>.{dat,gp,pdf}         the slack of a paper's constants
 *                                              (its summary page; slack.c)
 *
 * What a reader should learn from them decides their form: an axis goes to a
 * log scale when its values are positive and span more than two decades (tick
 * labels are powers of ten, and a linear axis writes 2x10^{25}, never 2e+25);
 * curves that coincide to 1e-9 everywhere are drawn once and the caption says
 * so; the break of a violated configuration is a dashed red line; 9 pt type.
 *
 * The scripts use paths relative to the report's root, so a reader can rerun
 * one by hand:  gnuplot figures/dynamics-theorem1-default.gp
 *
 * A weave can be killed at any point: the .dat and .gp files are written to
 * a temporary name and renamed into place, gnuplot dies with the weave, and a
 * figure PDF is only reused when it is complete (%%EOF) and its stamp, written
 * last, matches the bytes of its .gp and .dat.  Strings from the database go
 * into the scripts only as single-quoted gnuplot strings (no substitution
 * there) and into the .dat files only as comment lines.
 */
#include "lm_constants.h"
#include "report_priv.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define MAX_SERIES 12

void lm_fig_sanitize(char *dst, size_t n, const char *s)
{
    size_t k = 0;
    int dash = 0;
    for (; s && *s && k + 1 < n; s++) {
        if (isalnum((unsigned char)*s)) {
            dst[k++] = *s;
            dash = 0;
        } else if (!dash && k > 0) {
            dst[k++] = '-';
            dash = 1;
        }
    }
    while (k > 0 && dst[k - 1] == '-') k--;
    if (k == 0 && n > 1) dst[k++] = 'x';
    if (n) dst[k] = 0;
}

/* gnuplot single-quoted string: ' doubles; gnuplot substitutes neither
 * `command` nor @macro inside single quotes, so nothing in s can leave it */
void rp_gp_str(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; s && *s; s++) {
        if (*s == '\'') fputc('\'', f);
        /* no line end (nor any control character) may end the command */
        if ((unsigned char)*s < 0x20 || *s == 0x7F) fputc(' ', f);
        else fputc(*s, f);
    }
    fputc('\'', f);
}

/* a comment line of a .dat file: control characters (a newline would start
 * a data line) become blanks */
void rp_dat_comment(FILE *f, const char *s)
{
    for (; s && *s; s++) fputc((unsigned char)*s < 0x20 || *s == 0x7F ? ' ' : *s, f);
    fputc('\n', f);
}

/* figures are written as path.tmp and renamed into place when complete, so a
 * weave killed half-way never leaves a truncated .dat or .gp behind */
FILE *rp_fig_open(rp_figfile *ff, const char *root, const char *base, const char *suffix, char *err, int errlen)
{
    snprintf(ff->rel, sizeof ff->rel, "%s%s", base, suffix);
    lm_report_path(ff->path, sizeof ff->path, root, ff->rel);
    snprintf(ff->tmp, sizeof ff->tmp, "%s.tmp", ff->path);
    FILE *f = fopen(ff->tmp, "w");
    if (!f) snprintf(err, (size_t)errlen, "cannot write %s", ff->rel);
    return f;
}

int rp_fig_close(const rp_figfile *ff, FILE *f, char *err, int errlen)
{
    int bad = ferror(f) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(ff->tmp, ff->path)) {
        remove(ff->tmp);
        snprintf(err, (size_t)errlen, "cannot write %s", ff->rel);
        return -1;
    }
    return 0;
}

/* A title wider than the plot (about 60 characters of 9 pt Sans in 8.6 cm) is
 * cut off at both ends: split it into two lines, after "]: " (claim id and
 * configuration, then what is drawn) or else at the last blank that fits. */
#define GP_TITLE_COLS 60
static void gp_title(FILE *f, const char *t)
{
    size_t n = t ? strlen(t) : 0;
    if (n <= GP_TITLE_COLS) {
        rp_gp_str(f, t);
        return;
    }
    size_t cut = 0, skip = 0;
    const char *br = strstr(t, "]: ");
    if (br && (size_t)(br - t) + 1 <= GP_TITLE_COLS) {
        cut = (size_t)(br - t) + 1;
        skip = 2;
    } else {
        for (size_t k = GP_TITLE_COLS; k > 0; k--)
            if (t[k] == ' ') {
                cut = k;
                skip = 1;
                break;
            }
    }
    if (cut == 0) {
        rp_gp_str(f, t);
        return;
    }
    char *a = strndup(t, cut);
    if (!a) {
        rp_gp_str(f, t);
        return;
    }
    rp_gp_str(f, a);
    fputs(".\"\\n\".", f); /* gnuplot string concatenation around a newline */
    rp_gp_str(f, t + cut + skip);
    free(a);
}

/* The terminal is enhanced so that tick labels can be powers of ten (10^{%L}, and %h,
 * which writes 2x10^{25} instead of 2e+25); every string that comes from the database
 * (title, axis labels, legend entries, marker labels) is marked noenhanced, so its _ ^ {
 * @ & ~ are shown as they are.  9 pt in an 8.6 cm wide plot, included at half the text
 * width (about 8.3 cm), reads as 8.7 pt: the size of the report's footnotes.  title may
 * be NULL: the caption under the figure names it. */
static void gp_head(FILE *f, const char *out, const char *title, const char *xl,
                    const char *yl)
{
    fputs("# generated by lemmata report -- rerun from the source root: gnuplot <this file>\n"
          "reset\n"
          "set terminal pdfcairo enhanced color size 8.6cm,6.4cm font 'Sans,9'\n",
          f);
    fputs("set output ", f);
    rp_gp_str(f, out);
    if (title && *title) {
        fputs("\nset title ", f);
        gp_title(f, title);
        fputs(" noenhanced", f);
    }
    fputs("\nset xlabel ", f);
    rp_gp_str(f, xl);
    fputs(" noenhanced\nset ylabel ", f);
    rp_gp_str(f, yl);
    fputs(" noenhanced\nset key outside top center horizontal samplen 2 width -1 noenhanced\n"
          "set grid lc rgb '#dddddd'\nset border lc rgb '#444444'\n"
          "set format y '%h'\nset format x '%h'\n",
          f);
}

/* split "a\tb\tc" into up to n fields (in place) */
static int split_tabs(char *s, char **f, int n)
{
    int k = 0;
    while (k < n) {
        f[k++] = s;
        char *t = strchr(s, '\t');
        if (!t) break;
        *t = 0;
        s = t + 1;
    }
    return k;
}

static int contains_ci(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (; *s; s++)
        if (!strncasecmp(s, w, n)) return 1;
    return 0;
}

typedef struct {
    char name[80];
    double *x, *y;
    int n, cap;
} series;

static int series_add(series *s, double x, double y)
{
    if (s->n == s->cap) {
        int nc = s->cap ? 2 * s->cap : 64;
        double *nx = realloc(s->x, sizeof(double) * (size_t)nc);
        if (!nx) return -1;
        s->x = nx;
        double *ny = realloc(s->y, sizeof(double) * (size_t)nc);
        if (!ny) return -1;
        s->y = ny;
        s->cap = nc;
    }
    s->x[s->n] = x;
    s->y[s->n] = y;
    s->n++;
    return 0;
}

/* Display style of a series, from its name: a leading '~' marks a reference
 * curve (dashed, black), a leading ':' a marker line (dotted, grey); both
 * are stripped from the legend.  Names containing "bound" are dashed too. */
static const char *series_style(const char *name, int npts, char *buf, size_t n)
{
    const char *with = npts <= 25 ? "linespoints pt 7 ps 0.4" : "lines";
    if (name[0] == '~')
        snprintf(buf, n, "lines lw 2 dt 2 lc rgb '#000000'");
    else if (name[0] == ':')
        snprintf(buf, n, "lines lw 1.5 dt 3 lc rgb '#777777'");
    else
        snprintf(buf, n, "%s lw %s", with, contains_ci(name, "bound") ? "2 dt 2" : "1.5");
    return name[0] == '~' || name[0] == ':' ? name + 1 : name;
}

#define MAX_MARKS 4

typedef struct {
    int dropped;  /* non-finite points */
    int nonpos;   /* points off a log axis (x <= 0 with logx) */
    int extra;    /* series beyond MAX_SERIES */
    int logy;     /* the y axis is logarithmic */
    int logx;
    int someneg;  /* some y <= 0 (no log y axis possible) */
    int ncoinc;   /* series not drawn because they coincide with an earlier one */
    char coinc[600]; /* plain text: "a and b coincide; c and d coincide" */
    int nmarks;   /* vertical markers drawn */
    double mark_x[MAX_MARKS];
    char mark[MAX_MARKS][80];
    double xmax;  /* the largest x drawn */
} plot_info;

/* Two series coincide when they have the same abscissae and their ordinates differ by
 * less than 1e-9 relatively at every point: drawn twice they are one line, and the reader
 * cannot tell whether the second is hidden or missing. */
#define COINCIDE_RTOL 1e-9
static int coincide(const series *a, const series *b)
{
    if (a->n != b->n || a->n == 0) return 0;
    for (int j = 0; j < a->n; j++) {
        if (a->x[j] != b->x[j]) return 0;
        double m = fmax(fabs(a->y[j]), fabs(b->y[j]));
        if (fabs(a->y[j] - b->y[j]) > COINCIDE_RTOL * m) return 0;
    }
    return 1;
}

/* A log axis when every value is positive and they span more than two decades, or more
 * than one when the check asked for a log axis; a live run's figure (authored, its caption
 * may say "log scale") gets the log axis it asks for whenever the values are positive. */
static int wants_log(int positive, double lo, double hi, int asked, int authored)
{
    if (!positive || !(lo > 0) || !isfinite(hi)) return 0;
    double dec = log10(hi / lo);
    return dec > 2 || (asked && (authored || dec >= 1));
}

/* Tick labels: powers of ten on a log axis that spans a decade; on a linear axis %h
 * (2x10^{25}), or, when the values differ only in their later digits (a loss that stays
 * at 0.4999999...), as many significant digits as tell the ticks apart. */
static void gp_format(FILE *f, const char *axis, int log, double lo, double hi)
{
    double m = fmax(fabs(lo), fabs(hi));
    if (log && lo > 0 && hi / lo >= 10) fprintf(f, "set format %s '10^{%%L}'\n", axis);
    else if (!log && hi > lo && m > 0 && (hi - lo) < 1e-2 * m) {
        int digits = (int)ceil(-log10((hi - lo) / m)) + 2;
        fprintf(f, "set format %s '%%.%dg'\n", axis, digits > 17 ? 17 : digits);
    } else
        fprintf(f, "set format %s '%%h'\n", axis);
}

/* Writes <base>.dat and <base>.gp for the "name\tx\ty" lines of text (other lines are
 * ignored).  A line "!label\tx\ty" is no point but a vertical marker at x (a dashed red
 * line with its label: a check's first break, say); mark_x (NaN: none) adds one more.
 * Returns 0, 1 when there is nothing to draw (no point, or all at one abscissa), -1 on
 * error.
 * logx, logy: the check's (or live run's, authored = 1) wish; an axis is logarithmic as
 * wants_log says.
 * yrange: NULL, or "LO:HI" fixing the y range (ignored when it does not parse, is empty,
 * or has LO <= 0 on a log axis). */
static int plot_series_r(const char *root, const char *base, const char *text, const char *dathead,
                         const char *title, const char *xl, const char *yl, int logx, int logy,
                         int authored, const char *yrange, double mark_x, const char *mark_label,
                         plot_info *info, char *err, int errlen)
{
    series S[MAX_SERIES];
    int ns = 0, total = 0, rc = -1;
    int dup[MAX_SERIES]; /* dup[k] >= 0: series k coincides with series dup[k] and is not drawn */
    memset(S, 0, sizeof S);
    memset(info, 0, sizeof *info);
    double mx[MAX_MARKS];
    char ml[MAX_MARKS][80];
    int nm = 0;
    char *copy = strdup(text ? text : "");
    if (!copy) {
        snprintf(err, (size_t)errlen, "out of memory");
        return -1;
    }
    for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
        char *f[3];
        if (line[0] == '#') continue;
        if (split_tabs(line, f, 3) < 3) continue;
        char *e1, *e2;
        double x = strtod(f[1], &e1), y = strtod(f[2], &e2);
        if (e1 == f[1]) continue;
        if (f[0][0] == '!') { /* a marker: only x counts */
            if (isfinite(x) && nm < MAX_MARKS) {
                mx[nm] = x;
                snprintf(ml[nm++], sizeof ml[0], "%s", f[0] + 1);
            }
            continue;
        }
        if (e2 == f[2]) continue;
        if (!isfinite(x) || !isfinite(y)) {
            info->dropped++;
            continue;
        }
        if (logx && !(x > 0)) {
            info->nonpos++;
            continue;
        }
        int k = 0;
        while (k < ns && strncmp(S[k].name, f[0], sizeof S[k].name - 1)) k++;
        if (k == ns) {
            if (ns == MAX_SERIES) {
                info->extra++;
                continue;
            }
            snprintf(S[ns++].name, sizeof S[0].name, "%s", f[0]);
        }
        if (series_add(&S[k], x, y)) {
            snprintf(err, (size_t)errlen, "out of memory");
            goto out;
        }
        total++;
    }
    if (total == 0) {
        rc = 1; /* nothing to draw */
        goto out;
    }
    if (!isnan(mark_x) && nm < MAX_MARKS) {
        mx[nm] = mark_x;
        snprintf(ml[nm++], sizeof ml[0], "%s", mark_label ? mark_label : "");
    }
    double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
    int xpos = 1, ypos = 1;
    for (int k = 0; k < ns; k++)
        for (int j = 0; j < S[k].n; j++) {
            xlo = fmin(xlo, S[k].x[j]);
            xhi = fmax(xhi, S[k].x[j]);
            ylo = fmin(ylo, S[k].y[j]);
            yhi = fmax(yhi, S[k].y[j]);
            xpos &= S[k].x[j] > 0;
            ypos &= S[k].y[j] > 0;
        }
    if (!(xlo < xhi)) { /* every point at one abscissa: a dot, or a column of them, says nothing */
        rc = 1;
        goto out;
    }
    info->logy = wants_log(ypos, ylo, yhi, logy, authored);
    info->logx = logx || wants_log(xpos, xlo, xhi, 0, authored);
    info->someneg = !ypos;
    info->xmax = xhi;
    for (int k = 0; k < ns; k++) {
        dup[k] = -1;
        for (int i = 0; i < k && dup[k] < 0; i++)
            if (dup[i] < 0 && coincide(&S[i], &S[k])) dup[k] = i;
        if (dup[k] < 0) continue;
        info->ncoinc++;
        size_t L = strlen(info->coinc);
        const char *a = S[dup[k]].name, *b = S[k].name;
        if (*a == '~' || *a == ':') a++;
        if (*b == '~' || *b == ':') b++;
        /* quoted: a series may itself be named "E1 and E2" */
        snprintf(info->coinc + L, sizeof info->coinc - L, "%s``%s'' and ``%s''", L ? "; " : "", a, b);
    }

    rp_figfile ff;
    FILE *f = rp_fig_open(&ff, root, base, ".dat", err, errlen);
    if (!f) goto out;
    fputs("# ", f);
    rp_dat_comment(f, dathead);
    for (int k = 0; k < ns; k++) {
        fprintf(f, "# series %d: ", k);
        rp_dat_comment(f, S[k].name);
        for (int j = 0; j < S[k].n; j++) fprintf(f, "%.17g %.17g\n", S[k].x[j], S[k].y[j]);
        fputs("\n\n", f);
    }
    if (rp_fig_close(&ff, f, err, errlen)) goto out;

    f = rp_fig_open(&ff, root, base, ".gp", err, errlen);
    if (!f) goto out;
    char out[320];
    snprintf(out, sizeof out, "%s.pdf", base);
    gp_head(f, out, title, xl, yl);
    if (info->logy) fputs("set logscale y\n", f);
    if (info->logx) fputs("set logscale x\n", f);
    gp_format(f, "y", info->logy, ylo, yhi);
    gp_format(f, "x", info->logx, xlo, xhi);
    if (yrange && *yrange) {
        char *e1, *e2 = NULL;
        double lo = strtod(yrange, &e1), hi = lo;
        if (e1 != yrange && *e1 == ':') hi = strtod(e1 + 1, &e2);
        if (e1 != yrange && *e1 == ':' && e2 != e1 + 1 && *e2 == 0 && isfinite(lo) &&
            isfinite(hi) && lo < hi && (!info->logy || lo > 0))
            fprintf(f, "set yrange [%.17g:%.17g]\n", lo, hi);
    }
    /* markers inside the drawn x range, as dashed red lines labelled at the top */
    for (int m = 0; m < nm; m++) {
        if (!(mx[m] >= xlo && mx[m] <= xhi) || (info->logx && !(mx[m] > 0))) continue;
        fprintf(f, "set arrow from %.17g, graph 0 to %.17g, graph 1 nohead dt 2 lw 1.5 "
                   "lc rgb '#d00000' front\n",
                mx[m], mx[m]);
        /* a marker in the right third is labelled on its left */
        int right = info->logx ? log(mx[m] / xlo) > 0.67 * log(xhi / xlo)
                               : mx[m] - xlo > 0.67 * (xhi - xlo);
        fputs("set label ", f);
        rp_gp_str(f, ml[m]);
        fprintf(f, " at %.17g, graph %.2f %s offset char %s0.5,0 tc rgb '#d00000' front noenhanced\n",
                mx[m], 0.94 - 0.07 * info->nmarks, right ? "right" : "left", right ? "-" : "");
        info->mark_x[info->nmarks] = mx[m];
        snprintf(info->mark[info->nmarks++], sizeof info->mark[0], "%.79s", ml[m]);
    }
    fputs("plot ", f);
    int first = 1;
    for (int k = 0; k < ns; k++) {
        if (dup[k] >= 0) continue;
        char style[120], shown[400];
        snprintf(shown, sizeof shown, "%.79s", series_style(S[k].name, S[k].n, style, sizeof style));
        for (int j = k + 1; j < ns; j++) /* the legend names the series it stands for */
            if (dup[j] == k) {
                size_t L = strlen(shown);
                const char *b = S[j].name;
                if (*b == '~' || *b == ':') b++;
                snprintf(shown + L, sizeof shown - L, " = %s", b);
            }
        fprintf(f, "%s'%s.dat' index %d using 1:2 with %s title ", first ? "" : ", \\\n     ",
                base, k, style);
        rp_gp_str(f, shown);
        first = 0;
    }
    fputs("\nunset output\n", f);
    if (rp_fig_close(&ff, f, err, errlen)) goto out;
    rc = 0;
out:
    for (int k = 0; k < ns; k++) {
        free(S[k].x);
        free(S[k].y);
    }
    free(copy);
    return rc;
}

static int plot_series(const char *root, const char *base, const char *text, const char *dathead,
                       const char *title, const char *xl, const char *yl, int logx, int logy,
                       plot_info *info, char *err, int errlen)
{
    return plot_series_r(root, base, text, dathead, title, xl, yl, logx, logy, 1, NULL, NAN, NULL,
                         info, err, errlen);
}

/* What the plot_info says about a figure, for its caption: at most CAPTION_NOTES_MAX
 * bytes, so that a caption cut to fit lm_figure.caption is never cut inside a command. */
#define CAPTION_NOTES_MAX 1000
static void caption_notes(lm_tbuf *cap, const plot_info *in, int logy_asked)
{
    if (in->ncoinc) {
        char *names = lm_tex_escape_str(in->coinc);
        if (names && strlen(names) < CAPTION_NOTES_MAX - 400)
            lm_tbuf_printf(cap, " %s coincide (relative difference below $10^{-9}$ at every point) "
                                "and %s drawn once.",
                           names, in->ncoinc == 1 ? "are" : "each pair is");
        else
            lm_tbuf_printf(cap, " %d series coincide with another (relative difference below "
                                "$10^{-9}$ at every point) and are not drawn again.",
                           in->ncoinc);
        free(names);
    }
    if (logy_asked && !in->logy && in->someneg) lm_tbuf_puts(cap, " Linear scale: some values are $\\le 0$.");
    if (in->dropped) lm_tbuf_printf(cap, " %d non-finite points omitted.", in->dropped);
    if (in->nonpos) lm_tbuf_printf(cap, " %d points at $x\\le0$ omitted (log axis).", in->nonpos);
    if (in->extra) lm_tbuf_printf(cap, " Only the first %d series are drawn.", MAX_SERIES);
}

/* "t" of an axis label "iterate t" (its last word), when it is a short name */
static void axis_var(char *dst, size_t n, const char *label)
{
    if (strstr(label, "log")) { /* "log10 k": k=5 is no point of this axis */
        if (n) dst[0] = 0;
        return;
    }
    const char *p = label + strlen(label);
    while (p > label && p[-1] != ' ' && p[-1] != '(') p--;
    size_t l = strcspn(p, " )");
    if (l == 0 || l > 3 || l >= n || !isalpha((unsigned char)*p)) l = 0;
    memcpy(dst, p, l);
    dst[l] = 0;
}

/* The iterate of the worst observation, read from "instance 7: t=12" when the x axis is
 * that variable ("iterate t"): NaN when there is none. */
static double worst_at(const lm_config_result *c, const char *xl)
{
    char var[8];
    axis_var(var, sizeof var, xl);
    if (!var[0]) return NAN;
    size_t vl = strlen(var);
    for (const char *p = strstr(c->worst_where, var); p; p = strstr(p + 1, var)) {
        int start = p == c->worst_where || p[-1] == ' ' || p[-1] == ':' || p[-1] == ',';
        if (!start || p[vl] != '=') continue;
        char *e;
        double v = strtod(p + vl + 1, &e);
        if (e != p + vl + 1 && isfinite(v)) return v;
    }
    return NAN;
}

static int write_series(const char *root, const char *base, const char *claim_id,
                        const lm_config_result *c, lm_figure *fig, char *err, int errlen)
{
    char axes[sizeof c->axes];
    snprintf(axes, sizeof axes, "%s", c->axes);
    char *ax[4] = {NULL, NULL, NULL, NULL};
    int na = axes[0] ? split_tabs(axes, ax, 4) : 0;
    const char *xl = na > 0 && *ax[0] ? ax[0] : "x";
    const char *yl = na > 1 && *ax[1] ? ax[1] : "value";
    int logy = na > 2 && atoi(ax[2]) == 1, logx = na > 3 && atoi(ax[3]) == 1;
    char head[300];
    snprintf(head, sizeof head, "%s [%s]: series of the worst instance (index %d)", claim_id,
             c->config, c->worst_index);
    /* A violated configuration whose series carries no marker of its own (a "!..." line)
     * gets one at its worst observation, when that names a point of the x axis: the break
     * the verdict is about. */
    int broke = c->verdict == LM_V_VIOLATED || c->verdict == LM_V_INCONSISTENT;
    int marked = c->series && (c->series[0] == '!' || strstr(c->series, "\n!"));
    double wx = broke && !marked ? worst_at(c, xl) : (double)NAN;
    char wlabel[80] = "";
    if (!isnan(wx)) {
        char var[8];
        axis_var(var, sizeof var, xl);
        snprintf(wlabel, sizeof wlabel, "break (%s=%.6g)", var, wx);
    }
    plot_info in;
    /* no title: the caption under the figure names the configuration */
    int rc = plot_series_r(root, base, c->series, head, NULL, xl, yl, logx, logy, 0, NULL, wx, wlabel,
                           &in, err, errlen);
    if (rc) return rc;
    snprintf(fig->path, sizeof fig->path, "%s", base);
    lm_tbuf cap;
    lm_tbuf_init(&cap);
    lm_tbuf_puts(&cap, "Configuration \\texttt{");
    lm_tex_escape_tt(&cap, c->config);
    lm_tbuf_printf(&cap, "}: the series of the worst instance");
    if (c->worst_index >= 0) lm_tbuf_printf(&cap, " (instance %d)", c->worst_index);
    lm_tbuf_puts(&cap, ".");
    size_t whole = cap.n; /* a caption too long for lm_figure is cut back to here */
    for (int m = 0; m < in.nmarks; m++) {
        lm_tbuf_puts(&cap, " Dashed red line: ");
        lm_tex_escape(&cap, in.mark[m]);
        lm_tbuf_puts(&cap, ".");
    }
    /* a series that ends where it broke says why it ends there */
    if (broke && in.nmarks && in.xmax == in.mark_x[in.nmarks - 1])
        lm_tbuf_puts(&cap, " The series ends at the break: this result recorded the instance only "
                           "up to it.");
    caption_notes(&cap, &in, logy);
    if (cap.n >= sizeof fig->caption && whole < cap.n) {
        cap.n = whole;
        cap.s[whole] = 0;
    }
    char *cs = lm_tbuf_take(&cap);
    snprintf(fig->caption, sizeof fig->caption, "%s", cs ? cs : "");
    free(cs);
    return 0;
}

static int write_ratios(const char *root, const char *base, const char *claim_id,
                        const lm_config_result *c, lm_figure *fig, char *err, int errlen)
{
    int n = 0, cap = 0, nonfinite = 0, rc = -1;
    double *v = NULL;
    for (const char *p = c->ratios; *p;) {
        char *e;
        double x = strtod(p, &e);
        if (e == p) { /* skip an unparsable line */
            const char *nl = strchr(p, '\n');
            if (!nl) break;
            p = nl + 1;
            continue;
        }
        p = e;
        while (*p == '\n' || *p == ' ' || *p == '\r' || *p == '\t') p++;
        if (!isfinite(x)) {
            nonfinite++;
            continue;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            double *t = realloc(v, sizeof(double) * (size_t)cap);
            if (!t) {
                free(v);
                snprintf(err, (size_t)errlen, "out of memory");
                return -1;
            }
            v = t;
        }
        v[n++] = x;
    }
    if (n == 0) {
        free(v);
        return 1;
    }
    double lo = v[0], hi = v[0];
    for (int k = 1; k < n; k++) {
        if (v[k] < lo) lo = v[k];
        if (v[k] > hi) hi = v[k];
    }
    int nb = (int)ceil(sqrt((double)n));
    if (nb < 5) nb = 5;
    if (nb > 40) nb = 40;
    double blo = lo, bhi = hi;
    if (bhi - blo < 1e-9 * (1 + fabs(blo))) {
        blo -= 0.05 * (1 + fabs(blo));
        bhi += 0.05 * (1 + fabs(bhi));
    }
    double w = (bhi - blo) / nb;
    int *cnt = calloc((size_t)nb, sizeof *cnt);
    if (!cnt) {
        free(v);
        snprintf(err, (size_t)errlen, "out of memory");
        return -1;
    }
    int cmax = 0;
    for (int k = 0; k < n; k++) {
        int b = (int)((v[k] - blo) / w);
        if (b >= nb) b = nb - 1;
        if (b < 0) b = 0;
        if (++cnt[b] > cmax) cmax = cnt[b];
    }
    /* x range: the data and the bound at 0 */
    double xlo = blo < 0 ? blo : 0, xhi = bhi > 0 ? bhi : 0;
    double pad = 0.05 * (xhi - xlo);
    if (pad <= 0) pad = 0.5;
    double top = cmax * 1.15 + 0.5;

    rp_figfile ff;
    char head[400];
    FILE *f = rp_fig_open(&ff, root, base, "-ratios.dat", err, errlen);
    if (!f) goto out;
    snprintf(head, sizeof head, "# %s [%s]: histogram of per-instance worst log10(LHS/RHS), %d values",
             claim_id, c->config, n);
    rp_dat_comment(f, head);
    fputs("# bin-centre count\n", f);
    for (int b = 0; b < nb; b++) fprintf(f, "%.17g %d\n", blo + (b + 0.5) * w, cnt[b]);
    fprintf(f, "\n\n# the bound: LHS = RHS\n0 0\n0 %.17g\n\n\n# worst\n%.17g 0\n%.17g %.17g\n",
            top, hi, hi, top);
    if (rp_fig_close(&ff, f, err, errlen)) goto out;
    f = rp_fig_open(&ff, root, base, "-ratios.gp", err, errlen);
    if (!f) goto out;
    char out[320], worst[48];
    snprintf(out, sizeof out, "%s-ratios.pdf", base);
    /* over three decades or more the ticks are whole powers of ten, read as ratios */
    double span = xhi - xlo + 2 * pad;
    int powers = span >= 3;
    gp_head(f, out, NULL,
            powers ? "LHS/RHS of the worst observation of each instance (log scale)"
                   : "log10(LHS/RHS) of the worst observation of each instance",
            "instances");
    fprintf(f, "set xrange [%.17g:%.17g]\nset yrange [0:%.17g]\nset boxwidth %.17g\n"
               "set style fill solid 0.45 border lc rgb '#3060a0'\n",
            xlo - pad, xhi + pad, top, w * 0.95);
    if (powers) fprintf(f, "set xtics %.0f\nset format x '10^{%%.0f}'\n", ceil(span / 6));
    else { /* at most six ticks, 1, 2 or 5 times a power of ten apart: their labels fit */
        double raw = span / 5, mag = pow(10, floor(log10(raw))), step = mag;
        if (step < raw) step = 2 * mag;
        if (step < raw) step = 5 * mag;
        if (step < raw) step = 10 * mag;
        if (isfinite(step) && step > 0) fprintf(f, "set xtics %.17g\n", step);
    }
    fputs(cmax <= 10 ? "set ytics 1\nset format y '%.0f'\n" : "set format y '%.0f'\n", f);
    fprintf(f, "plot '%s-ratios.dat' index 0 using 1:2 with boxes lc rgb '#3060a0' "
               "title 'instances', \\\n"
               "     '' index 1 using 1:2 with lines lw 2.5 lc rgb '#d00000' "
               "title 'bound: LHS = RHS', \\\n"
               "     '' index 2 using 1:2 with lines lw 1.5 dt 2 lc rgb '#000000' title ",
            base);
    char wt[80];
    snprintf(wt, sizeof wt, "worst: %s", lm_fmt_ratio(worst, sizeof worst, pow(10.0, hi)));
    rp_gp_str(f, wt);
    fputs("\nunset output\n", f);
    if (rp_fig_close(&ff, f, err, errlen)) goto out;
    snprintf(fig->path, sizeof fig->path, "%.280s-ratios", base);
    lm_tbuf cb;
    lm_tbuf_init(&cb);
    lm_tbuf_puts(&cb, "Configuration \\texttt{");
    lm_tex_escape_tt(&cb, c->config);
    char wx[80];
    lm_tex_ratio(wx, sizeof wx, pow(10.0, hi));
    lm_tbuf_printf(&cb, "}: LHS/RHS of each instance's worst observation on a log scale "
                        "(%d instance%s); red: the bound, LHS = RHS; dashed: the worst, %s.",
                   n, n == 1 ? "" : "s", wx);
    if (nonfinite) lm_tbuf_printf(&cb, " %d non-finite values omitted.", nonfinite);
    char *cs = lm_tbuf_take(&cb);
    snprintf(fig->caption, sizeof fig->caption, "%s", cs ? cs : "");
    free(cs);
    rc = 0;
out:
    free(cnt);
    free(v);
    return rc;
}

/* ---- the slack of a paper's constants ------------------------------------------------
 * One row per constant, its slack on a log axis, coloured by class (the colours of the
 * verdict boxes: tight green, loose teal, very loose orange, fails red, no break grey);
 * the stated value is exact at slack 1 (red line), the class boundaries 2 and 100 are
 * dotted.  A constant whose slack has no value (no break found, or failing at every value
 * tried) sits at the edge of the axis it lies beyond, drawn as a diamond.  With at most
 * LM_SLACK_LABELLED constants each row is labelled "claim constant"; with more the rows
 * are only sorted and the section "Constant slack" names them. */

static const char *const slack_rgb[LM_SLACK_COUNT] = {"#008228", "#00786e", "#d76e00",
                                                      "#d20000", "#646464", "#c86400"};

static int by_slack_desc(const void *a, const void *b)
{
    const lm_slack_point *p = a, *q = b;
    /* no value: "no break" above everything, "fails everywhere" below */
    double x = isnan(p->slack) ? (p->cls == LM_SLACK_FAILS ? -(double)INFINITY : (double)INFINITY) : p->slack;
    double y = isnan(q->slack) ? (q->cls == LM_SLACK_FAILS ? -(double)INFINITY : (double)INFINITY) : q->slack;
    if (x != y) return x < y ? 1 : -1;
    return strcmp(p->label, q->label);
}

int lm_fig_write_slack(const char *root, const char *paper, const lm_slack_point *pts0, int n,
                       lm_figure *fig, char *err, int errlen)
{
    int rc = -1, np = 0;
    lm_slack_point *pts = malloc(sizeof *pts * (size_t)(n > 0 ? n : 1));
    if (!pts) {
        snprintf(err, (size_t)errlen, "out of memory");
        return -1;
    }
    for (int k = 0; k < n; k++) /* only what has a place on the axis */
        if (pts0[k].cls <= LM_SLACK_NO_BREAK && (!isnan(pts0[k].slack) || pts0[k].cls >= LM_SLACK_FAILS))
            pts[np++] = pts0[k];
    if (np == 0) {
        free(pts);
        return 1;
    }
    qsort(pts, (size_t)np, sizeof *pts, by_slack_desc);
    double lo = 0.5, hi = 200; /* the axis always shows the classes' boundaries 1, 2 and 100 */
    for (int k = 0; k < np; k++)
        if (!isnan(pts[k].slack) && pts[k].slack > 0) {
            lo = fmin(lo, pts[k].slack / 2);
            hi = fmax(hi, pts[k].slack * 2);
        }
    /* at most 16 decades either way: a constant off by 1e250 would squeeze every other one
     * into a corner; one beyond sits at the axis' end as a diamond, like one with no value */
    lo = pow(10, floor(log10(fmax(lo, 1e-16))));
    hi = pow(10, ceil(log10(fmin(hi, 1e16))));
    int labelled = np <= LM_SLACK_LABELLED;
    /* a row of 8 pt labels every 0.3 cm, the key and the axis around them */
    double height = labelled ? 2.6 + 0.3 * np : 7.0;

    rp_figfile ff;
    char sid[160], base[300], out[320];
    lm_fig_sanitize(sid, sizeof sid, paper);
    snprintf(base, sizeof base, "figures/slack-%s", sid);
    FILE *f = rp_fig_open(&ff, root, base, ".dat", err, errlen);
    if (!f) goto out;
    fputs("# ", f);
    rp_dat_comment(f, paper);
    fputs("# slack of each constant, by class: row (1 = bottom), slack (the axis' end when it has no "
          "value)\n",
          f);
    for (int c = 0; c <= LM_SLACK_NO_BREAK; c++) {
        fprintf(f, "# class %s\n", lm_slack_class_name((lm_slack_class)c));
        int any = 0;
        for (int k = 0; k < np; k++) {
            if (pts[k].cls != c) continue;
            double x = !isnan(pts[k].slack) ? fmin(fmax(pts[k].slack, lo), hi) : c == LM_SLACK_FAILS ? lo : hi;
            fprintf(f, "%d %.17g %d\n", np - k, x, isnan(pts[k].slack) || pts[k].slack < lo || pts[k].slack > hi);
            any = 1;
        }
        if (!any) fputs("nan nan 0\n", f); /* an empty block would end the data set early */
        fputs("\n\n", f);
    }
    if (rp_fig_close(&ff, f, err, errlen)) goto out;

    f = rp_fig_open(&ff, root, base, ".gp", err, errlen);
    if (!f) goto out;
    snprintf(out, sizeof out, "%s.pdf", base);
    fprintf(f, "# generated by lemmata report -- rerun from the source root: gnuplot <this file>\n"
               "reset\nset terminal pdfcairo enhanced color size 16cm,%.2fcm font 'Sans,9'\n",
            height);
    fputs("set output ", f);
    rp_gp_str(f, out);
    fputs("\nset xlabel 'slack of the stated constant (log scale; below 1 the stated value fails)'\n"
          "set logscale x\nset format x '10^{%L}'\n",
          f);
    fprintf(f, "set xrange [%.17g:%.17g]\nset yrange [0.4:%.1f]\n", lo, hi, np + 0.6);
    fputs("set grid xtics lc rgb '#dddddd'\nset border lc rgb '#444444'\n"
          "set key outside top center horizontal samplen 1 width 1\n",
          f);
    if (labelled) {
        fputs("set ytics noenhanced font ',8' (", f);
        for (int k = 0; k < np; k++) {
            if (k) fputs(", ", f);
            rp_gp_str(f, pts[k].label);
            fprintf(f, " %d", np - k);
        }
        fputs(")\nset grid ytics lc rgb '#eeeeee'\n", f);
    } else
        fputs("unset ytics\nset ylabel 'constants, sorted by slack'\n", f);
    fputs("set arrow from 1, graph 0 to 1, graph 1 nohead lw 1.5 lc rgb '#d20000' back\n"
          "set arrow from 2, graph 0 to 2, graph 1 nohead dt 3 lc rgb '#888888' back\n"
          "set arrow from 100, graph 0 to 100, graph 1 nohead dt 3 lc rgb '#888888' back\n",
          f);
    fputs("plot ", f);
    int first = 1;
    for (int c = 0; c <= LM_SLACK_NO_BREAK; c++) {
        int cnt = 0;
        for (int k = 0; k < np; k++) cnt += pts[k].cls == c;
        if (!cnt) continue;
        char title[80];
        snprintf(title, sizeof title, "%s (%d)", lm_slack_class_name((lm_slack_class)c), cnt);
        /* a point with a value: a filled circle; at the axis' end: a diamond */
        fprintf(f, "%s'%s.dat' index %d using 2:1:($3 > 0 ? 13 : 7) with points pt variable ps 0.9 "
                   "lc rgb '%s' title ",
                first ? "" : ", \\\n     ", base, c, slack_rgb[c]);
        rp_gp_str(f, title);
        first = 0;
    }
    fputs("\nunset output\n", f);
    if (rp_fig_close(&ff, f, err, errlen)) goto out;
    snprintf(fig->path, sizeof fig->path, "%s", base);
    fig->caption[0] = 0; /* summary.c writes it */
    rc = 0;
out:
    free(pts);
    return rc;
}

int lm_fig_write(const char *root, const char *claim_id, const char *tag,
                 const lm_config_result *c, lm_figure *fig, int *nfig, int maxfig, char *err,
                 int errlen)
{
    char sid[160], base[300];
    lm_fig_sanitize(sid, sizeof sid, claim_id);
    snprintf(base, sizeof base, "figures/%s-%.100s", sid, tag);
    if (c->series && *c->series && *nfig < maxfig) {
        int rc = write_series(root, base, claim_id, c, &fig[*nfig], err, errlen);
        if (rc < 0) return -1;
        if (rc == 0) (*nfig)++;
    }
    if (c->ratios && *c->ratios && *nfig < maxfig) {
        int rc = write_ratios(root, base, claim_id, c, &fig[*nfig], err, errlen);
        if (rc < 0) return -1;
        if (rc == 0) (*nfig)++;
    }
    return 0;
}

/* ---- live training runs ---------------------------------------------------
 * The blob of a live run (table live, column series) is "name\tx\ty" lines.
 * A line
 *     #figure\tTAG\tLOGX\tLOGY\tXLABEL\tYLABEL\tTITLE\tCAPTION[\tYRANGE]
 * starts a figure of its own (LOGX/LOGY 0 or 1, CAPTION in LaTeX, the
 * optional YRANGE "LO:HI" fixes the y range, e.g. to keep a curve that sits
 * at the largest value off the frame); the
 * series lines up to the next #figure line belong to it.  Series names
 * starting with '~' are reference curves (dashed), with ':' marker lines
 * (dotted).  A blob without #figure lines (the dynamics runs, databases
 * written before the directives existed) is one figure: iterate t against
 * the values on a log y axis.  Readers that predate the directives skip the
 * #figure lines (their x field does not parse as a number). */

static const char *next_figure(const char *s)
{
    for (const char *p = s; p && *p;) {
        if (!strncmp(p, "#figure\t", 8)) return p;
        p = strchr(p, '\n');
        if (p) p++;
    }
    return NULL;
}

int lm_fig_live_count(const char *blob)
{
    int n = 0;
    for (const char *p = next_figure(blob); p; p = next_figure(p + 1)) n++;
    return n ? n : (blob && *blob ? 1 : 0);
}

/* The caption of a live figure is LaTeX from the database: through the
 * allow-list, and cut (at a shorter prefix, which lm_tex_safe closes
 * properly) when it would not fit in max bytes. */
static void safe_caption(lm_tbuf *b, const char *caption, size_t max)
{
    char *t = lm_tex_safe_str(caption);
    if (t && strlen(t) < max) {
        lm_tbuf_puts(b, t);
        free(t);
        return;
    }
    free(t);
    /* the longest prefix whose safe form fits: prefix lo fits, prefix hi does not */
    size_t lo = 0, hi = strlen(caption);
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        char *pre = strndup(caption, mid);
        char *u = pre ? lm_tex_safe_str(pre) : NULL;
        int fits = u && strlen(u) < max;
        free(pre);
        free(u);
        if (fits) lo = mid;
        else hi = mid;
    }
    char *pre = strndup(caption, lo);
    char *u = pre ? lm_tex_safe_str(pre) : NULL;
    if (u) lm_tbuf_puts(b, u);
    lm_tbuf_puts(b, " \\dots");
    free(pre);
    free(u);
}

int lm_fig_write_live(const char *root, const char *name, const char *blob, lm_figure *fig,
                      int *nfig, int maxfig, char *err, int errlen)
{
    char sid[160];
    lm_fig_sanitize(sid, sizeof sid, name);
    const char *p = next_figure(blob);
    if (!p) { /* one figure, as before the directives */
        if (!blob || !*blob || *nfig >= maxfig) return 0;
        char base[300], title[300], head[300];
        snprintf(base, sizeof base, "figures/live-%s-drift", sid);
        snprintf(title, sizeof title, "%s: double run and double-vs-MPFR drift", name);
        snprintf(head, sizeof head, "live run %s", name);
        plot_info in;
        int rc = plot_series(root, base, blob, head, title, "iterate t", "value", 0, 1, &in,
                             err, errlen);
        if (rc < 0) return -1;
        if (rc == 0) {
            snprintf(fig[*nfig].path, sizeof fig[*nfig].path, "%s", base);
            fig[*nfig].caption[0] = 0;
            (*nfig)++;
        }
        return 0;
    }
    for (; p && *nfig < maxfig; p = next_figure(p + 1)) {
        const char *eol = strchr(p, '\n');
        size_t hl = eol ? (size_t)(eol - p) : strlen(p);
        char *hdr = strndup(p, hl);
        const char *nextf = next_figure(eol ? eol + 1 : NULL);
        const char *body0 = eol ? eol + 1 : "";
        char *body = strndup(body0, nextf ? (size_t)(nextf - body0) : strlen(body0));
        if (!hdr || !body) {
            free(hdr);
            free(body);
            snprintf(err, (size_t)errlen, "out of memory");
            return -1;
        }
        char *f[9] = {NULL};
        int nf = split_tabs(hdr, f, 9);
        const char *tag = nf > 1 && *f[1] ? f[1] : "fig";
        int logx = nf > 2 && atoi(f[2]) == 1, logy = nf > 3 && atoi(f[3]) == 1;
        const char *xl = nf > 4 && *f[4] ? f[4] : "iterate t";
        const char *yl = nf > 5 && *f[5] ? f[5] : "value";
        const char *title = nf > 6 && *f[6] ? f[6] : name;
        const char *caption = nf > 7 ? f[7] : "";
        char stag[80], base[300], head[300];
        lm_fig_sanitize(stag, sizeof stag, tag);
        snprintf(base, sizeof base, "figures/live-%s-%s", sid, stag);
        snprintf(head, sizeof head, "live run %s, figure %s", name, tag);
        plot_info in;
        const char *yrange = nf > 8 ? f[8] : NULL;
        int rc = plot_series_r(root, base, body, head, title, xl, yl, logx, logy, 1, yrange, NAN, NULL, &in,
                               err, errlen);
        if (rc == 0) {
            lm_figure *g = &fig[*nfig];
            snprintf(g->path, sizeof g->path, "%s", base);
            lm_tbuf cap;
            lm_tbuf_init(&cap);
            safe_caption(&cap, caption, sizeof g->caption - CAPTION_NOTES_MAX);
            caption_notes(&cap, &in, logy);
            char *cs = lm_tbuf_take(&cap);
            snprintf(g->caption, sizeof g->caption, "%s", cs ? cs : "");
            free(cs);
            (*nfig)++;
        }
        free(hdr);
        free(body);
        if (rc < 0) return -1;
    }
    return 0;
}

/* the first gnuplot error message in the log, for the one-line error */
static void gnuplot_reason(const char *log, char *buf, size_t n)
{
    snprintf(buf, n, "see %.400s", log);
    FILE *f = fopen(log, "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strstr(line, "line ") && strchr(line, ':')) {
            line[strcspn(line, "\n")] = 0;
            snprintf(buf, n, "%s", line);
            break;
        }
    }
    fclose(f);
}

unsigned long long lm_fnv_file(const char *path, unsigned long long h)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    unsigned char buf[1 << 14];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0)
        for (size_t k = 0; k < got; k++) h = (h ^ buf[k]) * 1099511628211ULL;
    int bad = ferror(f);
    fclose(f);
    return bad ? 0 : h;
}

/* hash of a figure's .gp and .dat (0: unreadable) */
static unsigned long long fig_hash(const char *root, const lm_figure *fig)
{
    char rel[320], path[1024];
    unsigned long long h = LM_FNV_INIT;
    snprintf(rel, sizeof rel, "%s.gp", fig->path);
    lm_report_path(path, sizeof path, root, rel);
    if (!(h = lm_fnv_file(path, h))) return 0;
    snprintf(rel, sizeof rel, "%s.dat", fig->path);
    lm_report_path(path, sizeof path, root, rel);
    unsigned long long hd = lm_fnv_file(path, h ^ 0x2eULL);
    return hd ? hd : h; /* a figure without a .dat hashes its .gp alone */
}

static void fig_file(char *path, size_t n, const char *root, const lm_figure *fig,
                     const char *ext)
{
    char rel[320];
    snprintf(rel, sizeof rel, "%s.%s", fig->path, ext);
    lm_report_path(path, n, root, rel);
}

/* 1 when the figure's PDF was drawn from exactly these .gp/.dat bytes */
static int fig_current(const char *root, const lm_figure *fig, unsigned long long h)
{
    char path[1024];
    struct stat sb;
    fig_file(path, sizeof path, root, fig, "pdf");
    if (!h || stat(path, &sb) || sb.st_size <= 0 || !lm_pdf_complete(path)) return 0;
    fig_file(path, sizeof path, root, fig, "stamp");
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    unsigned long long old = 0;
    int ok = fscanf(f, "%llx", &old) == 1 && old == h;
    fclose(f);
    return ok;
}

int lm_fig_render(const char *root, const lm_figure *fig, int nfig, char *err, int errlen)
{
    enum { CHUNK = 48, PAR = 2 };
    char log[1024];
    lm_report_path(log, sizeof log, root, "figures/gnuplot.log");
    remove(log);
    unsigned long long *h = calloc((size_t)(nfig > 0 ? nfig : 1), sizeof *h);
    int *stale = calloc((size_t)(nfig > 0 ? nfig : 1), sizeof *stale);
    int nstale = 0, rc = -1;
    if (!h || !stale) {
        snprintf(err, (size_t)errlen, "out of memory");
        goto out;
    }
    for (int k = 0; k < nfig; k++) {
        h[k] = fig_hash(root, &fig[k]);
        if (fig_current(root, &fig[k], h[k])) continue;
        /* a stale figure must not pass for a new one */
        char path[1024];
        fig_file(path, sizeof path, root, &fig[k], "pdf");
        remove(path);
        fig_file(path, sizeof path, root, &fig[k], "stamp");
        remove(path);
        stale[nstale++] = k;
    }
    /* chunks of CHUNK scripts per gnuplot, PAR gnuplots at a time */
    pid_t pid[PAR];
    int npid = 0, failed = 0, status = 0;
    for (int c0 = 0; c0 < nstale || npid > 0;) {
        if (c0 < nstale && npid < PAR && !failed) {
            const char *argv[CHUNK + 2];
            char names[CHUNK][320];
            int na = 0;
            argv[na++] = "gnuplot";
            for (int j = c0; j < nstale && j < c0 + CHUNK; j++) {
                snprintf(names[j - c0], sizeof names[0], "%s.gp", fig[stale[j]].path);
                argv[na++] = names[j - c0];
            }
            argv[na] = NULL;
            pid_t p = lm_proc_start(root, argv, log);
            if (p < 0) {
                failed = 1;
                status = -1;
            } else
                pid[npid++] = p;
            c0 += CHUNK;
            continue;
        }
        if (npid == 0) break;
        int st = lm_proc_wait(pid[0]);
        memmove(pid, pid + 1, (size_t)(--npid) * sizeof *pid);
        if (st != 0 && !failed) {
            failed = 1;
            status = st;
        }
    }
    if (failed) {
        char why[512];
        gnuplot_reason(log, why, sizeof why);
        if (status == 127)
            snprintf(err, (size_t)errlen, "gnuplot not found (apt-get install gnuplot-nox)");
        else if (status < 0)
            snprintf(err, (size_t)errlen, "cannot start gnuplot");
        else
            snprintf(err, (size_t)errlen, "gnuplot failed: %s", why);
        goto out;
    }
    struct stat lb;
    if (stat(log, &lb) == 0 && lb.st_size == 0) remove(log);
    for (int k = 0; k < nfig; k++) {
        char path[1024];
        struct stat sb;
        fig_file(path, sizeof path, root, &fig[k], "pdf");
        if (stat(path, &sb) || sb.st_size <= 0 || !lm_pdf_complete(path)) {
            snprintf(err, (size_t)errlen,
                     "gnuplot wrote no complete %s.pdf (does it have the pdfcairo terminal? see "
                     "%s.gp)",
                     fig[k].path, fig[k].path);
            goto out;
        }
    }
    /* stamps last: only a figure known to be drawn from these bytes gets one */
    for (int j = 0; j < nstale; j++) {
        char path[1024];
        fig_file(path, sizeof path, root, &fig[stale[j]], "stamp");
        char line[32], why[8];
        int n = snprintf(line, sizeof line, "%016llx\n", h[stale[j]]);
        if (h[stale[j]]) lm_write_atomic(path, line, (size_t)n, why, sizeof why);
    }
    rc = 0;
out:
    free(h);
    free(stale);
    return rc;
}
