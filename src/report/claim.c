/* claim.c -- a paper's heading before its first claim (rp_put_paper) and the
 * section of one claim (rp_put_claim): its title, the table of id, source,
 * statement and file, the verdict box (readings, reason, check strength,
 * flags, certification, cautions), the literate blocks, the configurations
 * and their readings, measured quantities, named constants, figures, the
 * commands that reproduce it and its code.  Blocks of the claim file are
 * woven line for line and recorded as spans of the writer, so a LaTeX error
 * in one is reported at its line of the claim file.
 */
#include "lm_paper.h"
#include "report_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CODE_MAX_LINES 240

/* ---- readings and configurations ------------------------------------------------ */

/* 1 when configuration k counts for the claim's verdict: it reads the paper as
 * printed, or no configuration does (--config picked a repaired one) */
int rp_counts_for_verdict(const lm_claim_result *r, int k)
{
    if (r->cfg[k].reading == LM_READ_PAPER) return 1;
    for (int j = 0; j < r->nconfig; j++)
        if (r->cfg[j].reading == LM_READ_PAPER) return 0;
    return 1;
}

const char *rp_reading_word(lm_reading_kind k)
{
    return k >= 0 && k < LM_READ_COUNT ? lm_reading_name(k) : "?";
}

/* worst configuration among those the claim's verdict is taken over: largest worst
 * ratio, else most severe verdict */
static int worst_config(const lm_claim_result *r)
{
    int best = -1;
    for (int k = 0; k < r->nconfig; k++) {
        double x = r->cfg[k].worst_ratio;
        if (rp_counts_for_verdict(r, k) && !isnan(x) && (best < 0 || x > r->cfg[best].worst_ratio))
            best = k;
    }
    if (best >= 0) return best;
    for (int k = 0; k < r->nconfig; k++)
        if (rp_counts_for_verdict(r, k) && (best < 0 || r->cfg[k].verdict > r->cfg[best].verdict))
            best = k;
    return best;
}

/* the worst verdict over the configurations of reading `kind` (whose note is `note`,
 * when not NULL); -1 when there is none */
int rp_reading_verdict(const lm_claim_result *r, lm_reading_kind kind, const char *note)
{
    int v = -1;
    for (int k = 0; k < r->nconfig; k++)
        if (r->cfg[k].reading == kind && (!note || !strcmp(r->cfg[k].reading_note, note)) &&
            (int)r->cfg[k].verdict > v)
            v = (int)r->cfg[k].verdict;
    return v;
}

static void put_precisions(rp_writer *w, const char *p)
{
    if (!p || !*p) {
        rp_put(w, "--");
        return;
    }
    char buf[128];
    snprintf(buf, sizeof buf, "%s", p);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (tok != buf) rp_put(w, ", ");
        rp_esc(w, tok);
    }
}

/* ---- spans of claim-file text ---------------------------------------------------- */

void rp_add_span(rp_writer *w, int claim, const char *what, long first, long last, int line)
{
    if (w->nsp == w->capsp) {
        int nc = w->capsp ? 2 * w->capsp : 64;
        rp_span *t = realloc(w->sp, sizeof *t * (size_t)nc);
        if (!t) {
            w->b.oom = 1;
            return;
        }
        w->sp = t;
        w->capsp = nc;
    }
    w->sp[w->nsp++] = (rp_span){first, last, claim, what, line};
}

static void at_line_start(rp_writer *w)
{
    if (w->b.n && w->b.s[w->b.n - 1] != '\n') rp_put(w, "%\n");
}

/* a LaTeX block of a claim file, through the allow-list (texsafe.c), on
 * lines of its own (line for line, so errors map back to the claim file) */
static void put_block(rp_writer *w, int claim, const char *what, const lm_lit_block *blk)
{
    at_line_start(w);
    long first = w->b.lines + 1;
    lm_tex_safe(&w->b, blk->text);
    long last = w->b.lines + 1;
    rp_put(w, "\n");
    rp_add_span(w, claim, what, first, last, blk->line);
}

/* title of a claim: the \claim block (LaTeX), else the plain title escaped */
static void put_title(rp_writer *w, const rp_doc *d, int k, int with_pdf_string)
{
    const char *plain = d->title && *d->title ? d->title : d->c->claim.id;
    if (d->L.title.text && *d->L.title.text) {
        const lm_lit_block *t = &d->L.title;
        int latex = lm_tex_is_latex(t->text);
        if (with_pdf_string) {
            rp_put(w, "\\texorpdfstring{");
            if (latex) put_block(w, k, "\\claim title", t);
            else rp_esc(w, t->text);
            rp_put(w, "}{");
            rp_esc(w, plain);
            rp_put(w, "}");
        } else if (latex)
            put_block(w, k, "\\claim title", t);
        else
            rp_esc(w, t->text);
    } else
        rp_esc(w, plain);
}

/* ---- one claim --------------------------------------------------------------------- */

/* measures named "flag: ..." with a positive value (vacuous guarantees, failed
 * hypotheses, domain exits), listed per configuration in the verdict box */
static void put_flags(rp_writer *w, const lm_claim_result *r)
{
    int any = 0;
    for (int j = 0; j < r->nconfig; j++) {
        const char *m = r->cfg[j].measures;
        for (const char *p = m; p && *p;) {
            const char *nl = strchr(p, '\n');
            size_t len = nl ? (size_t)(nl - p) : strlen(p);
            const char *eq = memchr(p, '=', len);
            if (eq && len > 5 && !strncmp(p, "flag:", 5)) {
                double v = atof(eq + 1);
                if (v > 0.0) { /* 0 or negative (e.g. "no exit": -1): not raised */
                    char name[200], val[64];
                    snprintf(name, sizeof name, "%.*s", (int)(eq - p - 5), p + 5);
                    snprintf(val, sizeof val, "%.*s", (int)(len - (size_t)(eq - p) - 1), eq + 1);
                    rp_put(w, any ? "; " : "\\\\ \\textbf{Flags (worst instance):} ");
                    any = 1;
                    rp_esc(w, name);
                    if (v != 1.0) {
                        rp_put(w, " = ");
                        rp_esc(w, val);
                    }
                    if (r->nconfig > 1) {
                        rp_put(w, " [\\texttt{");
                        rp_esc_tt(w, r->cfg[j].config);
                        rp_put(w, "}]");
                    }
                }
            }
            p = nl ? nl + 1 : p + len;
        }
    }
}

/* The shrunk counterexample of a violated configuration: what it is, one command, and its
 * data (exact binary numbers in their shortest decimal form) for checking by hand. */
static void put_shrunk(rp_writer *w, const lm_config_result *g)
{
    rp_put(w, "\\par\\smallskip\\noindent{\\small\\raggedright\\textbf{Smallest counterexample found} (\\texttt{");
    rp_esc_tt(w, g->config);
    rp_put(w, "}): ");
    rp_esc(w, g->shrunk);
    if (g->shrink_evals) lm_tbuf_printf(&w->b, " (%d evaluations)", g->shrink_evals);
    rp_put(w, ".");
    if (g->shrunk_reproduce[0]) {
        rp_put(w, " Reproduce:\\\\\n\\hspace*{1em}\\texttt{\\footnotesize ");
        rp_esc_tt(w, g->shrunk_reproduce);
        rp_put(w, "}");
    }
    rp_put(w, "\\par}\n"); /* the paragraph ends inside the group: ragged right */
    if (!g->shrunk_data || !g->shrunk_data[0]) {
        rp_put(w, "\\par\\noindent{\\small\\emph{The check records no data for its instances.}}\n");
        return;
    }
    /* ragged right: \texttt spaces do not stretch, so justified rows of numbers overflow */
    rp_put(w, "\\par\\noindent{\\scriptsize\\raggedright Its data (exact values; each matrix row by row, rows "
              "separated by ``;''):\\par\n");
    size_t shown = 0;
    const char *p = g->shrunk_data;
    while (*p && shown < 6000) {
        /* "name\tr\tc\n" then r lines */
        const char *nl = strchr(p, '\n');
        if (!nl) break;
        char head[200];
        snprintf(head, sizeof head, "%.*s", (int)(nl - p), p);
        char *t1 = strchr(head, '\t');
        int rr = 0, cc = 0;
        if (t1) {
            *t1 = 0;
            sscanf(t1 + 1, "%d\t%d", &rr, &cc);
        }
        rp_put(w, "\\noindent\\texttt{");
        rp_esc_tt(w, head);
        lm_tbuf_printf(&w->b, "} ($%d\\times%d$) = \\texttt{", rr, cc);
        p = nl + 1;
        for (int i = 0; i < rr && *p; i++) {
            nl = strchr(p, '\n');
            size_t len = nl ? (size_t)(nl - p) : strlen(p);
            char *row = malloc(len + 1);
            if (!row) break;
            memcpy(row, p, len);
            row[len] = 0;
            if (i) rp_put(w, " ; ");
            rp_esc(w, row);
            shown += len;
            free(row);
            p = nl ? nl + 1 : p + len;
        }
        rp_put(w, "}\\par\n");
    }
    if (*p) rp_put(w, "\\noindent\\emph{(the rest of the data is in the database and in "
                      "\\texttt{lemmata check --json})}\\par\n");
    rp_put(w, "}\n");
}

/* what configuration g tests: its reading's sentence; a paper reading without one reads the
 * statement as printed */
void rp_put_config_sentence(rp_writer *w, const lm_config_result *g)
{
    if (g->reading_note[0]) rp_esc(w, g->reading_note);
    else if (g->reading == LM_READ_PAPER) rp_put(w, "\\emph{the statement as printed}");
    else rp_put(w, "\\emph{(no sentence recorded)}");
}

/* ", 3 near misses" -- a count only when it is not zero */
static void put_count(rp_writer *w, int *any, long n, const char *one, const char *many)
{
    if (!n) return;
    lm_tbuf_printf(&w->b, "%s%ld %s", *any ? ", " : "", n, n == 1 ? one : many);
    *any = 1;
}

/* One line per configuration: what it tests, whether that is the paper's own reading, a
 * repaired one or a probe beyond it, its verdict and worst ratio; then per configuration
 * the counts behind the verdict, where the worst observation was, and reasons. */
static void put_configs(rp_writer *w, const lm_claim_result *r)
{
    rp_put(w, "{\\footnotesize\\setlength{\\tabcolsep}{3pt}\n"
              "\\begin{longtable}{@{}L{3.0cm}L{1.3cm}L{6.55cm}L{2.5cm}R{1.9cm}R{0.9cm}@{}}\n"
              "\\toprule configuration & reading & what it tests & verdict & worst ratio & inst.\\\\"
              "\\midrule\n\\endhead\n\\bottomrule\n\\endlastfoot\n");
    for (int k = 0; k < r->nconfig; k++) {
        const lm_config_result *g = &r->cfg[k];
        char ratio[80];
        lm_tex_ratio(ratio, sizeof ratio, g->worst_ratio);
        rp_put(w, "\\texttt{");
        rp_esc_tt(w, g->config);
        rp_put(w, "} & ");
        rp_put(w, rp_reading_word(g->reading));
        rp_put(w, " & ");
        rp_put_config_sentence(w, g);
        rp_put(w, " & ");
        rp_put_verdict(w, g->verdict);
        if (g->verdict == LM_V_VIOLATED && g->certified) rp_put(w, "\\,{\\scriptsize(cert.)}");
        lm_tbuf_printf(&w->b, " & %s & %ld\\\\\n", ratio, g->instances);
    }
    if (r->nconfig == 0) rp_put(w, "\\multicolumn{6}{l}{\\emph{no configuration was recorded}}\\\\\n");
    rp_put(w, "\\end{longtable}}\n");

    /* the counts behind each verdict, where the worst observation was, and reasons */
    int any = 0;
    for (int k = 0; k < r->nconfig; k++) {
        const lm_config_result *g = &r->cfg[k];
        if (!any++) rp_put(w, "{\\small\\begin{itemize}\\setlength{\\itemsep}{1pt}\n");
        rp_put(w, "\\item \\texttt{");
        rp_esc_tt(w, g->config);
        lm_tbuf_printf(&w->b, "}: %ld instance%s", g->instances, g->instances == 1 ? "" : "s");
        int c = 1;
        put_count(w, &c, g->observations, "inequality compared", "inequalities compared");
        put_count(w, &c, g->breaks_double, "break in double", "breaks in double");
        put_count(w, &c, g->confirmed, "confirmed in MPFR", "confirmed in MPFR");
        put_count(w, &c, g->artifacts, "artefact (vanished in MPFR)", "artefacts (vanished in MPFR)");
        put_count(w, &c, g->near_misses, "near miss", "near misses");
        put_count(w, &c, g->assumption_failed, "outside the hypotheses", "outside the hypotheses");
        put_count(w, &c, g->vacuous, "vacuous", "vacuous");
        put_count(w, &c, g->errors, "error", "errors");
        char secs[40];
        lm_tex_seconds(secs, sizeof secs, g->seconds);
        rp_put(w, "; ");
        put_precisions(w, g->precisions);
        lm_tbuf_printf(&w->b, "; %s s. ", secs);
        if (g->worst_where[0]) {
            rp_put(w, "Worst at ``");
            rp_esc(w, g->worst_where);
            rp_put(w, "''");
            if (g->worst_index >= 0) lm_tbuf_printf(&w->b, " (instance %d)", g->worst_index);
            rp_put(w, ". ");
        }
        if (g->detail[0]) {
            rp_put(w, "\\emph{");
            rp_esc(w, g->detail);
            rp_put(w, "}");
        }
        if (g->escalation[0]) {
            rp_put(w, " Near misses: ");
            rp_esc(w, g->escalation);
            rp_put(w, ".");
        }
        rp_put(w, "\n");
    }
    if (any) rp_put(w, "\\end{itemize}}\n");
    for (int k = 0; k < r->nconfig; k++)
        if (r->cfg[k].shrunk[0]) put_shrunk(w, &r->cfg[k]);
}

/* "name=value" lines; the name may itself contain '=' (the value is a number
 * and follows the last '=').  Finds the line named `name` (length nl) in m. */
static const char *measure_value(const char *m, const char *name, size_t nl, size_t *vl)
{
    for (const char *p = m; p && *p;) {
        const char *le = p + strcspn(p, "\n");
        const char *eq = NULL;
        for (const char *q = p; q < le; q++)
            if (*q == '=') eq = q;
        if (eq && (size_t)(eq - p) == nl && !strncmp(p, name, nl)) {
            *vl = (size_t)(le - eq - 1);
            return eq + 1;
        }
        p = *le ? le + 1 : le;
    }
    return NULL;
}

/* measured quantities: one row per name, one column per configuration */
static void put_measures(rp_writer *w, const lm_claim_result *r)
{
    enum { MAXN = 80, PER = 4 };
    char *names[MAXN];
    int nn = 0;
    for (int k = 0; k < r->nconfig; k++) {
        for (const char *p = r->cfg[k].measures; p && *p;) {
            const char *le = p + strcspn(p, "\n");
            const char *eq = NULL;
            for (const char *q = p; q < le; q++)
                if (*q == '=') eq = q;
            if (eq && nn < MAXN) {
                size_t nl = (size_t)(eq - p);
                int dup = 0;
                for (int j = 0; j < nn && !dup; j++)
                    dup = strlen(names[j]) == nl && !strncmp(names[j], p, nl);
                if (!dup && (names[nn] = strndup(p, nl)) != NULL) nn++;
            }
            p = *le ? le + 1 : le;
        }
    }
    if (!nn) return;
    rp_put(w, "\\lmpar{Measured quantities} (worst instance of each configuration)\n");
    for (int c0 = 0; c0 < r->nconfig; c0 += PER) {
        int nc = r->nconfig - c0 < PER ? r->nconfig - c0 : PER;
        rp_put(w, "{\\footnotesize\\begin{longtable}{@{}L{4.6cm}");
        for (int j = 0; j < nc; j++) rp_put(w, "R{2.7cm}");
        rp_put(w, "@{}}\n\\toprule quantity");
        for (int j = 0; j < nc; j++) {
            rp_put(w, " & \\texttt{");
            rp_esc_tt(w, r->cfg[c0 + j].config);
            rp_put(w, "}");
        }
        rp_put(w, "\\\\\\midrule\n\\endhead\n");
        for (int i = 0; i < nn; i++) {
            rp_esc(w, names[i]);
            for (int j = 0; j < nc; j++) {
                rp_put(w, " & ");
                size_t vl = 0;
                const char *v =
                    measure_value(r->cfg[c0 + j].measures, names[i], strlen(names[i]), &vl);
                if (!v) {
                    rp_put(w, "--");
                    continue;
                }
                char val[128];
                snprintf(val, sizeof val, "%.*s", (int)(vl < 127 ? vl : 127), v);
                char *end;
                double x = strtod(val, &end);
                while (*end == ' ' || *end == '\r') end++;
                if (end != val && !*end) {
                    char num[80];
                    lm_tex_num(num, sizeof num, x);
                    rp_put(w, num);
                } else
                    rp_esc(w, val);
            }
            rp_put(w, "\\\\\n");
        }
        rp_put(w, "\\bottomrule\n\\end{longtable}}\n");
    }
    for (int i = 0; i < nn; i++) free(names[i]);
}

static void put_params(rp_writer *w, const char *params)
{
    if (!params || !*params) return;
    rp_put(w, "\\lmpar{Named constants} (replace with \\texttt{--set name=value})\n"
              "{\\footnotesize\\begin{longtable}{@{}L{3.4cm}L{2.2cm}L{10.9cm}@{}}\n"
              "\\toprule name & default & meaning\\\\\\midrule\n\\endhead\n");
    char *copy = strdup(params);
    if (!copy) return;
    for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
        char *f[4] = {line, "", "", ""};
        for (int k = 1; k < 4; k++) {
            char *t = strchr(f[k - 1], '\t');
            if (!t) break;
            *t = 0;
            f[k] = t + 1;
        }
        rp_put(w, "\\texttt{");
        rp_esc_tt(w, f[0]);
        rp_put(w, "} & ");
        if (*f[2]) {
            /* a switch: the default is an index into "a|b|c" */
            int idx = atoi(f[1]), j = 0;
            const char *p = f[2];
            while (j < idx && (p = strchr(p, '|')) != NULL) {
                p++;
                j++;
            }
            rp_put(w, "\\texttt{");
            if (p) {
                char ch[64];
                snprintf(ch, sizeof ch, "%.*s", (int)strcspn(p, "|"), p);
                rp_esc_tt(w, ch);
            } else
                rp_esc_tt(w, f[1]);
            rp_put(w, "}");
        } else {
            char *end;
            double x = strtod(f[1], &end);
            char num[80];
            if (end != f[1]) {
                snprintf(num, sizeof num, "%.6g", x);
                rp_esc(w, num);
            } else
                rp_esc(w, f[1]);
        }
        rp_put(w, " & ");
        rp_esc(w, f[3]);
        if (*f[2]) {
            rp_put(w, " (one of \\texttt{");
            rp_esc_tt(w, f[2]);
            rp_put(w, "})");
        }
        rp_put(w, "\\\\\n");
    }
    free(copy);
    rp_put(w, "\\bottomrule\n\\end{longtable}}\n");
}

/* shell commands, one a line, breakable */
static void put_commands(rp_writer *w, const char *const *cmd, int n)
{
    rp_put(w, "\\begin{flushleft}\\footnotesize\\ttfamily\n");
    for (int k = 0; k < n; k++) {
        rp_put(w, "\\$ ");
        rp_esc_tt(w, cmd[k]);
        rp_put(w, k + 1 < n ? "\\\\[2pt]\n" : "\n");
    }
    rp_put(w, "\\end{flushleft}\n");
}

/* Under the verdict, which readings failed and which held: the configurations grouped by
 * reading (as printed, repaired, probes) and verdict, the worst first, each named with the
 * sentence saying what it tests ("Violated as printed: block,eta=1/(2G) (block W^V, the
 * appendix's step size).  Holds as printed: dense,eta=1/(2G) (...).  Violated in probes:
 * ...").  A group of more than three names its configurations only: the table of the
 * configurations below has their sentences. */
static void put_readings(rp_writer *w, const lm_claim_result *r)
{
    if (r->nconfig < 2) return;
    static const char *const where[LM_READ_COUNT] = {"as printed", "when repaired", "in probes"};
    for (int kind = 0; kind < LM_READ_COUNT; kind++)
        for (int v = LM_V_COUNT - 1; v >= 0; v--) {
            int n = 0;
            for (int j = 0; j < r->nconfig; j++) n += (int)r->cfg[j].reading == kind && (int)r->cfg[j].verdict == v;
            if (!n) continue;
            rp_put(w, "\\\\ ");
            rp_put_verdict(w, (lm_verdict)v);
            lm_tbuf_printf(&w->b, " \\textbf{%s}%s", where[kind], kind == LM_READ_PROBE ? " beyond the hypotheses" : "");
            if (n > 3) lm_tbuf_printf(&w->b, " (%d configurations)", n);
            rp_put(w, ": ");
            int i = 0;
            for (int j = 0; j < r->nconfig; j++) {
                const lm_config_result *g = &r->cfg[j];
                if ((int)g->reading != kind || (int)g->verdict != v) continue;
                if (i++) rp_put(w, n > 3 ? ", " : "; ");
                rp_put(w, "\\texttt{");
                rp_esc_tt(w, g->config);
                rp_put(w, "}");
                if (n <= 3 && g->reading_note[0]) {
                    rp_put(w, " (");
                    rp_esc(w, g->reading_note);
                    rp_put(w, ")");
                }
            }
            rp_put(w, ".");
        }
}

/* the check strength beside the verdict: "check strength 4/6 mutants killed" */
static void put_strength_beside(rp_writer *w, const lm_claim_result *r)
{
    if (r->mutants_run <= 0) {
        rp_put(w, " \\textperiodcentered{} check strength not measured");
        return;
    }
    const char *col = r->mutants_killed == 0                ? "vviolated"
                      : r->mutants_killed < r->mutants_run ? "vartifact"
                                                            : NULL;
    rp_put(w, " \\textperiodcentered{} check strength ");
    if (col) lm_tbuf_printf(&w->b, "\\textcolor{%s}{\\textbf{%d/%d}}", col, r->mutants_killed, r->mutants_run);
    else lm_tbuf_printf(&w->b, "\\textbf{%d/%d}", r->mutants_killed, r->mutants_run);
    rp_put(w, " mutants killed");
}

/* the standard mutants that survived the check, when some did */
static void put_strength_line(rp_writer *w, const lm_claim_result *r)
{
    if (r->mutants_run <= 0 || r->mutants_killed >= r->mutants_run) return;
    lm_tbuf_printf(&w->b, "\\\\ \\textbf{Check strength %d/%d:} ", r->mutants_killed, r->mutants_run);
    if (r->mutants_note[0]) {
        rp_esc(w, r->mutants_note);
        size_t l = strlen(r->mutants_note);
        if (r->mutants_note[l - 1] != '.') rp_put(w, ".");
    } else {
        int n = r->mutants_run - r->mutants_killed;
        lm_tbuf_printf(&w->b, "%d standard mutant%s survived.", n, n == 1 ? "" : "s");
    }
    if (r->mutants_killed == 0) rp_put(w, " \\textcolor{vviolated}{This check killed no mutant: it cannot fail.}");
}

/* Before a paper's first claim: its title, authors, venue and the paragraph its paper.c
 * declares (lm_paper.h); nothing when the build has no such paper (a database from another
 * build) */
void rp_put_paper(rp_writer *w, const rp_doc *docs, int n, int k)
{
    const lm_paper *p = lm_paper_find(docs[k].paper);
    if (!p) return;
    int nc = 0;
    for (int j = k; j < n && !strcmp(docs[j].paper, docs[k].paper); j++) nc++;
    rp_put(w, "\\Needspace{16\\baselineskip}\\bigskip\\noindent{\\Large\\bfseries ");
    rp_esc(w, p->title ? p->title : p->id);
    rp_put(w, "}\\par\\smallskip\\noindent{\\small ");
    if (p->authors && *p->authors) {
        rp_esc(w, p->authors);
        rp_put(w, " \\textperiodcentered{} ");
    }
    if (p->venue && *p->venue) {
        rp_esc(w, p->venue);
        rp_put(w, " \\textperiodcentered{} ");
    }
    lm_tbuf_printf(&w->b, "%d claim%s, ids \\texttt{", nc, nc == 1 ? "" : "s");
    rp_esc_tt(w, p->id);
    rp_put(w, "/}, folder \\texttt{lemmas/");
    rp_esc_tt(w, p->id);
    rp_put(w, "/}}\\par\\smallskip\\noindent ");
    if (p->about && *p->about) rp_put(w, p->about);
    rp_put(w, "\\par\\medskip\n");
}

void rp_put_claim(rp_writer *w, const rp_doc *d, int k)
{
    const lm_claim *c = &d->c->claim;
    const lm_claim_result *r = &d->c->res;
    int wc = worst_config(r);

    rp_put(w, "\\Needspace{12\\baselineskip}\n\\section{");
    put_title(w, d, k, 1);
    lm_tbuf_printf(&w->b, "}\\label{claim:%d}\n", k);

    rp_put(w, "{\\small\\begin{longtable}{@{}L{2.9cm}L{14.0cm}@{}}\nclaim & \\texttt{");
    rp_esc_tt(w, c->id);
    rp_put(w, "}\\\\\nsource & ");
    if (d->L.source.text && lm_tex_is_latex(d->L.source.text))
        put_block(w, k, "\\source block", &d->L.source);
    else if (d->L.source.text)
        rp_esc(w, d->L.source.text);
    else
        rp_esc(w, c->source && *c->source ? c->source : "--");
    rp_put(w, "\\\\\nstatement & ");
    rp_esc(w, c->origin && *c->origin ? c->origin : "origin not recorded");
    if (c->confidence && *c->confidence) {
        rp_put(w, ", confidence ");
        rp_esc(w, c->confidence);
    }
    if (d->low_recon) rp_put(w, " $^\\dagger$");
    rp_put(w, "\\\\\nkind & ");
    rp_esc(w, d->c->kind_name ? d->c->kind_name : "?");
    if (c->proxy) rp_put(w, " (only a falsifiable proxy is tested)");
    rp_put(w, "\\\\\nfile & \\texttt{");
    rp_esc_tt(w, d->file[0] ? d->file : "unknown");
    rp_put(w, "}\\\\\n\\end{longtable}}\n");

    /* the verdict */
    const char *col = rp_vcolor[r->verdict >= 0 && r->verdict < LM_V_COUNT ? r->verdict : LM_V_ERROR];
    char ratio[80], secs[40];
    lm_tex_ratio(ratio, sizeof ratio, r->worst_ratio);
    lm_tex_seconds(secs, sizeof secs, r->seconds);
    lm_tbuf_printf(&w->b,
                   "\\noindent\\fcolorbox{%s}{%s!5}{\\parbox{\\dimexpr\\linewidth-2\\fboxsep-"
                   "2\\fboxrule}{\\textbf{Verdict:} ",
                   col, col);
    rp_put_verdict(w, r->verdict);
    if (r->verdict == LM_V_VIOLATED && r->certified) rp_put(w, " \\textbf{(certified)}");
    put_strength_beside(w, r);
    if (isnan(r->worst_ratio))
        rp_put(w, " \\textperiodcentered{} no LHS/RHS ratio was recorded");
    else
        lm_tbuf_printf(&w->b, " \\textperiodcentered{} worst ratio LHS/RHS = \\textbf{%s}", ratio);
    if (wc >= 0 && r->nconfig > 1) {
        rp_put(w, " in configuration \\texttt{");
        rp_esc_tt(w, r->cfg[wc].config);
        rp_put(w, "}");
    }
    if (wc >= 0 && r->cfg[wc].worst_where[0]) {
        rp_put(w, ", at ``");
        rp_esc(w, r->cfg[wc].worst_where);
        rp_put(w, "''");
    }
    rp_put(w, ".");
    put_readings(w, r);
    lm_tbuf_printf(&w->b, "\\\\ %ld instance%s \\textperiodcentered{} precisions ",
                   r->instances, r->instances == 1 ? "" : "s");
    put_precisions(w, r->precisions);
    /* on the same line whether run here or reused (see Provenance), so an
     * incremental weave keeps the page breaks of the last one */
    if (d->c->reused_from > 0)
        lm_tbuf_printf(&w->b, " \\textperiodcentered{} %s s, \\textbf{reused} from run %lld", secs,
                       d->c->reused_from);
    else
        lm_tbuf_printf(&w->b, " \\textperiodcentered{} %s s, run %lld", secs, w->run);
    /* the reason, for verdicts that are not about a ratio */
    for (int j = 0; j < r->nconfig; j++) {
        const lm_config_result *g = &r->cfg[j];
        if (g->verdict != r->verdict || !g->detail[0] || !rp_counts_for_verdict(r, j) ||
            (r->verdict != LM_V_ERROR && r->verdict != LM_V_ASSUMPTION_FAILED &&
             r->verdict != LM_V_NOT_CHECKABLE && r->verdict != LM_V_VACUOUS))
            continue;
        rp_put(w, "\\\\ \\textbf{Reason");
        if (r->nconfig > 1) {
            rp_put(w, " (\\texttt{");
            rp_esc_tt(w, g->config);
            rp_put(w, "})");
        }
        rp_put(w, ":} ");
        rp_esc(w, g->detail);
        break;
    }
    if (d->recon_const) {
        rp_put(w, "\\\\ \\textbf{Checked against a reconstructed constant} (");
        rp_esc(w, c->origin);
        rp_put(w, "): the verdict is about the catalogue's re-derived constant; enter the paper's "
                  "printed one with \\texttt{--set}.");
    }
    put_strength_line(w, r);
    put_flags(w, r);
    if (r->verdict == LM_V_VIOLATED) {
        /* one line: the violated configurations grouped by what their certification says */
        int any = 0;
        for (int j = 0; j < r->nconfig; j++) {
            const lm_config_result *g = &r->cfg[j];
            if (g->verdict != LM_V_VIOLATED || !g->detail[0]) continue;
            int first = 1;
            for (int i = 0; i < j && first; i++)
                first = !(r->cfg[i].verdict == LM_V_VIOLATED && !strcmp(r->cfg[i].detail, g->detail));
            if (!first) continue;
            rp_put(w, any++ ? "; " : "\\\\ \\textbf{Certification:} ");
            rp_esc(w, g->detail);
            if (r->nconfig > 1) {
                rp_put(w, " (");
                int n = 0;
                for (int i = j; i < r->nconfig; i++) {
                    if (r->cfg[i].verdict != LM_V_VIOLATED || strcmp(r->cfg[i].detail, g->detail)) continue;
                    if (n++) rp_put(w, ", ");
                    rp_put(w, "\\texttt{");
                    rp_esc_tt(w, r->cfg[i].config);
                    rp_put(w, "}");
                }
                rp_put(w, ")");
            }
        }
    }
    int bad = r->verdict == LM_V_VIOLATED || r->verdict == LM_V_INCONSISTENT;
    if (bad && d->low_recon)
        rp_put(w, "\\\\[3pt]\\fcolorbox{vartifact}{vartifact!12}{\\parbox{\\dimexpr\\linewidth-"
                  "2\\fboxsep-2\\fboxrule}{\\textbf{Caution: low-confidence reconstruction.} "
                  "This statement is our reconstruction, not the paper's wording, and the "
                  "catalogue rates it low confidence: the violation may reflect our reading "
                  "rather than the paper. Check the named constants below against the paper.}}");
    else if (bad && d->med_recon)
        rp_put(w, "\\\\[2pt]\\emph{Note: the statement is reconstructed (medium confidence); "
                  "compare it with the paper before citing the violation.}");
    rp_put(w, "}}\n\n");

    /* the literate text */
    if (d->outside) {
        rp_put(w, "\\textcolor{verror}{\\textbf{Claim file unavailable:}} \\texttt{");
        rp_esc_tt(w, d->file);
        rp_put(w, "} is not a regular file under \\texttt{lemmas/} or \\texttt{src/} of the source "
                  "tree; its statement and code are not shown.\n\n");
    } else if (!d->file_ok)
        lm_tbuf_printf(&w->b, "\\textcolor{verror}{\\textbf{The claim file could not be read}}"
                              "; statement and code are missing.\n\n");
    if (d->L.statement.text) {
        rp_put(w, "\\begin{lmblock}{Statement.}\n");
        put_block(w, k, "\\statement block", &d->L.statement);
        rp_put(w, "\\end{lmblock}\n");
    } else if (d->file_ok)
        rp_put(w, "\\emph{(The claim file has no \\textbackslash statement block.)}\n\n");
    if (d->L.check.text) {
        rp_put(w, "\\begin{lmblock}{How it is checked.}\n");
        put_block(w, k, "\\check block", &d->L.check);
        rp_put(w, "\\end{lmblock}\n");
    }
    if (d->L.note.text) {
        rp_put(w, "\\begin{lmblock}{Note.}\n");
        put_block(w, k, "\\note block", &d->L.note);
        rp_put(w, "\\end{lmblock}\n");
    }

    rp_put(w, "\\Needspace{11\\baselineskip}\\paragraph{Configurations}\n");
    put_configs(w, r);
    if (!w->lean) { /* a reviewer's edition shows these beside the code (rp_put_claim_data) */
        put_measures(w, r);
        put_params(w, d->c->params);
    }

    /* figures, two to a row */
    if (d->nfig) {
        rp_put(w, "\\Needspace{0.33\\textheight}\\paragraph{Figures}\n\\begin{center}\n");
        for (int j = 0; j < d->nfig; j++) {
            rp_put(w, "\\begin{minipage}[t]{0.49\\linewidth}\\centering\n"
                      "\\includegraphics[width=\\linewidth]{");
            rp_put(w, d->fig[j].path); /* sanitized: letters, digits, '-' and '/' */
            rp_put(w, ".pdf}\n\\captionof{figure}{");
            rp_put(w, d->fig[j].caption);
            rp_put(w, "}\n\\end{minipage}");
            rp_put(w, j % 2 == 0 && j + 1 < d->nfig ? "\\hfill\n" : "\n\n\\medskip\n");
        }
        rp_put(w, "\\end{center}\n");
    }

    /* reproduce */
    rp_put(w, "\\lmpar{Reproduce}");
    if (r->reproduce[0]) {
        rp_put(w, " the worst instance:\n");
        const char *one[1] = {r->reproduce};
        put_commands(w, one, 1);
    } else
        rp_put(w, " \\emph{no instance was recorded to reproduce.}\n\n");
    const char **others = calloc((size_t)(r->nconfig ? r->nconfig : 1), sizeof *others);
    int nothers = 0;
    for (int j = 0; others && j < r->nconfig; j++)
        if (r->cfg[j].reproduce[0] && strcmp(r->cfg[j].reproduce, r->reproduce))
            others[nothers++] = r->cfg[j].reproduce;
    if (nothers && !w->lean) {
        rp_put(w, "The worst instance of each other configuration:\n");
        put_commands(w, others, nothers);
    }
    free(others);

    /* code */
    if (d->code[0]) {
        int first = d->L.code_line, last = d->L.nlines;
        if (first > last) first = 1;
        int cut = last - first + 1 > CODE_MAX_LINES;
        if (cut) last = first + CODE_MAX_LINES - 1;
        rp_put(w, "\\lmpar{Code} \\texttt{");
        rp_esc_tt(w, d->file);
        lm_tbuf_printf(&w->b, "}, lines %d--%d%s\n", first, last,
                       cut ? " (truncated; see the file)" : "");
        at_line_start(w);
        long line = w->b.lines + 1;
        if (lm_tex_code_file(&w->b, d->code, first, last))
            rp_put(w, "\\emph{the file could not be read again.}\n");
        rp_add_span(w, k, "code listing", line, w->b.lines, 0);
    }
}

/* What a reviewer's edition (w->lean) leaves out of the claim's section, for the code
 * companion and a paper's appendix: the measured quantities, the named constants and the
 * worst instance of every configuration. */
void rp_put_claim_data(rp_writer *w, const rp_doc *d)
{
    const lm_claim_result *r = &d->c->res;
    put_measures(w, r);
    put_params(w, d->c->params);
    const char **cmd = calloc((size_t)(r->nconfig ? r->nconfig : 1), sizeof *cmd);
    int n = 0;
    for (int j = 0; cmd && j < r->nconfig; j++)
        if (r->cfg[j].reproduce[0]) cmd[n++] = r->cfg[j].reproduce;
    if (n) {
        rp_put(w, "\\lmpar{Reproduce} the worst instance of each configuration:\n");
        put_commands(w, cmd, n);
    }
    free(cmd);
}
