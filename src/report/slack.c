/* slack.c -- the report's "Constant slack" section: per paper, one table with
 * every named constant of every claim (the rule of lm_constants.h), its stated
 * value, the sharpest value `lemmata constants` found by bisection (table
 * `constants`, same seed), the slack and its class; and for every claim of the
 * run, constants or not, the worst LHS/RHS of the verify run (the linear
 * reading of the slack). */
#include "lm_constants.h"
#include "report_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* one constant of one claim, as listed in the table */
typedef struct {
    char name[64];
    double def;
    char doc[400];
    const lm_constant_row *row; /* NULL: not measured */
} entry;

/* colours of the preamble (report.c) per class */
static const char *const class_color[LM_SLACK_COUNT] = {"vholds",   "vconsistent",   "vartifact",
                                                        "vviolated", "vnotcheckable", "vassumption"};

static void paper_of(const char *id, char *buf, size_t n)
{
    size_t l = strcspn(id, "/");
    if (l >= n) l = n - 1;
    memcpy(buf, id, l);
    buf[l] = 0;
}

/* the constants a claim declares (stored "name\tdefault\tchoices\tdoc" lines, or the
 * registry when the run stored none), plus any measured row of it the rule does not
 * select; at most max */
static int claim_entries(const lm_results_claim *rc, const lm_constant_row *rows, int nrows, entry *e, int max)
{
    int n = 0;
    if (rc->params) {
        const char *line = rc->params;
        while (*line && n < max) {
            const char *end = strchr(line, '\n');
            size_t len = end ? (size_t)(end - line) : strlen(line);
            char buf[600];
            snprintf(buf, sizeof buf, "%.*s", (int)(len < sizeof buf - 1 ? len : sizeof buf - 1), line);
            char *f[4] = {buf, "", "", ""};
            for (int k = 1; k < 4; k++) {
                char *t = strchr(f[k - 1], '\t');
                if (!t) break;
                *t = 0;
                f[k] = t + 1;
            }
            char *q;
            double def = strtod(f[1], &q);
            if (q != f[1] && lm_param_is_constant(f[0], def, f[2], f[3])) {
                snprintf(e[n].name, sizeof e[n].name, "%.63s", f[0]);
                e[n].def = def;
                snprintf(e[n].doc, sizeof e[n].doc, "%.399s", f[3]);
                e[n++].row = NULL;
            }
            line += len;
            if (*line == '\n') line++;
        }
    } else {
        const lm_claim *c = lm_claim_find(rc->claim.id);
        for (int k = 0; c && c->params && c->params[k].name && n < max; k++) {
            const lm_param_def *p = &c->params[k];
            if (!lm_param_def_is_constant(p)) continue;
            snprintf(e[n].name, sizeof e[n].name, "%s", p->name);
            e[n].def = p->def;
            snprintf(e[n].doc, sizeof e[n].doc, "%s", p->doc ? p->doc : "");
            e[n++].row = NULL;
        }
    }
    /* attach the measurements; keep measured parameters the rule does not select */
    for (int r = 0; r < nrows; r++) {
        if (strcmp(rows[r].claim_id, rc->claim.id)) continue;
        int j = 0;
        while (j < n && strcmp(e[j].name, rows[r].param)) j++;
        if (j == n) {
            if (n == max) continue;
            snprintf(e[n].name, sizeof e[n].name, "%s", rows[r].param);
            e[n].def = rows[r].stated;
            e[n].doc[0] = 0;
            n++;
        }
        e[j].row = &rows[r];
    }
    return n;
}

/* the doc cut to about `max` characters at a word boundary */
static void shorten(char *dst, size_t n, const char *doc, size_t max)
{
    size_t l = strlen(doc);
    if (l <= max || max + 4 > n) { /* whole, or cut at n - 1 when it does not fit */
        size_t k = l < n ? l : n - 1;
        memcpy(dst, doc, k);
        dst[k] = 0;
        return;
    }
    size_t cut = max;
    while (cut > max / 2 && doc[cut] != ' ') cut--;
    if (doc[cut] != ' ') cut = max;
    while (cut > 0 && (doc[cut - 1] == ' ' || doc[cut - 1] == ',' || doc[cut - 1] == '(')) cut--;
    snprintf(dst, n, "%.*s...", (int)cut, doc);
}

static void put_class(lm_tbuf *b, const lm_constant_row *r)
{
    lm_slack_class k = lm_constant_class(r);
    lm_tbuf_printf(b, "\\vd{%s}{%s}", class_color[k], lm_slack_class_name(k));
}

static int by_natural_id(const void *a, const void *b, void *R)
{
    const lm_results *res = R;
    return lm_natural_cmp(res->claims[*(const int *)a].claim.id, res->claims[*(const int *)b].claim.id);
}

/* insertion sort of claim indices (a few hundred) with a context */
static void sort_claims(int *ix, int n, const lm_results *R)
{
    for (int i = 1; i < n; i++) {
        int v = ix[i], j = i;
        while (j > 0 && by_natural_id(&ix[j - 1], &v, (void *)R) > 0) {
            ix[j] = ix[j - 1];
            j--;
        }
        ix[j] = v;
    }
}

#define MAXE 64

void lm_report_slack(lm_tbuf *b, const lm_results *R, const char *dbpath)
{
    lm_constant_row *rows = NULL;
    int nrows = 0;
    char err[512] = "";
    if (dbpath && lm_constdb_load(dbpath, R->meta.seed, R->meta.budget, R->meta.quick, &rows, &nrows, err,
                                  sizeof err))
        nrows = 0;
    int *ix = malloc(sizeof *ix * (size_t)(R->nclaims ? R->nclaims : 1));
    entry *e = malloc(sizeof *e * MAXE);
    if (!ix || !e) {
        free(ix);
        free(e);
        free(rows);
        b->oom = 1;
        return;
    }
    for (int k = 0; k < R->nclaims; k++) ix[k] = k;
    sort_claims(ix, R->nclaims, R);

    /* the settings of the measurements shown */
    int used_budget[8], used_quick[8], nused = 0, used_max_runs = 24;
    double used_rtol = 0.05;
    long measured = 0, nconst = 0;
    for (int i = 0; i < R->nclaims; i++) {
        int ne = claim_entries(&R->claims[ix[i]], rows, nrows, e, MAXE);
        nconst += ne;
        for (int j = 0; j < ne; j++) {
            if (!e[j].row) continue;
            measured++;
            int u = 0;
            while (u < nused && (used_budget[u] != e[j].row->budget || used_quick[u] != e[j].row->quick)) u++;
            if (measured == 1) {
                used_rtol = e[j].row->rtol;
                used_max_runs = e[j].row->max_runs;
            }
            if (u == nused && nused < 8) {
                used_budget[nused] = e[j].row->budget;
                used_quick[nused++] = e[j].row->quick;
            }
        }
    }

    lm_tbuf_puts(b, "\\clearpage\n\\section*{Constant slack}\\pdfbookmark[1]{Constant slack}{slack}\n");
    lm_tbuf_puts(b,
                 "{\\sloppy How much room each stated constant has.  A \\emph{constant} is a named parameter that "
                 "multiplies a constant the paper states (names ending in \\texttt{\\_scale}, "
                 "\\texttt{\\_factor} or \\texttt{\\_coef}, or documented as a multiplier; the stated value is its "
                 "default); rounding tolerances, step sizes, run lengths and instance generators of the harness "
                 "are settings, not constants.  Columns:\n"
                 "\\begin{itemize}\\setlength{\\itemsep}{0pt}\n"
                 "\\item \\textbf{sharpest} is \\emph{measured by bisection}: \\texttt{lemmata constants} re-runs "
                 "the claim on the same instances (same seed and budget) while bisecting the constant in log scale "
                 "and records the sharpest value with which the claim still passes (holds, consistent or artifact).\n"
                 "\\item \\textbf{slack} is stated/sharpest for a constant where smaller is sharper (an upper "
                 "bound's coefficient) and sharpest/stated where larger is sharper (a lower bound's): slack "
                 "$\\ge 1$ is room to spare; slack $<1$ means the claim fails at the stated value and first "
                 "holds when the constant is relaxed by 1/slack.\n"
                 "\\item \\textbf{class}: \\emph{tight} (slack $<2$), \\emph{loose} ($2$ to $100$), "
                 "\\emph{very loose} ($>100$), \\emph{fails} (violated or inconsistent at the stated value), "
                 "\\emph{no break} (no value from $10^{-12}$ to $10^{12}$ times the stated one, as far as the "
                 "hypotheses still held, broke the claim: the constant does not bind on these instances), "
                 "\\emph{undecided} (no pass/fail verdict at the stated value, or the search stopped: run cap, "
                 "time limit).  ``--'' as sharpest and slack: no break bracketed the constant; ``--'' as class: "
                 "the constant was not measured for this seed.\n"
                 "\\item \\textbf{worst LHS/RHS} is \\emph{not} bisected: it is the claim's worst ratio in this run "
                 "over its configurations as printed (all constants at their stated values; for a lower bound RHS/LHS).  For a bound linear in a "
                 "single constant it is the factor by which that constant could be multiplied and the bound "
                 "still hold on these instances -- the \\emph{linear reading} of the slack; it is shown for "
                 "every claim, including those without a named constant.\n"
                 "\\end{itemize}\n");
    lm_tbuf_printf(b, "%ld of the %ld constants of the %d claims are measured for seed %llu", measured, nconst,
                   R->nclaims, (unsigned long long)R->meta.seed);
    if (nused) {
        lm_tbuf_puts(b, " (bisection budget ");
        for (int u = 0; u < nused; u++)
            lm_tbuf_printf(b, "%s%d%s", u ? ", " : "", used_budget[u], used_quick[u] ? " quick" : "");
        lm_tbuf_printf(b, "; this run's budget is %d%s)", R->meta.budget, R->meta.quick ? " quick" : "");
    }
    char cmd[200];
    int ncmd = snprintf(cmd, sizeof cmd, "bin/lemmata tighten ID PARAM --seed %llu", (unsigned long long)R->meta.seed);
    if (nused && ncmd > 0 && ncmd < (int)sizeof cmd)
        snprintf(cmd + ncmd, sizeof cmd - (size_t)ncmd, " --budget %d%s", used_budget[0], used_quick[0] ? " --quick" : "");
    ncmd = (int)strlen(cmd);
    snprintf(cmd + ncmd, sizeof cmd - (size_t)ncmd, " --rtol %g --max-runs %d", used_rtol, used_max_runs);
    lm_tbuf_puts(b, ".  One line reproduces: \\texttt{");
    lm_tex_escape_tt(b, cmd);
    lm_tbuf_puts(b, "}; all at once: \\texttt{make constants} (or "
                    "\\texttt{bin/lemmata constants --quick [--paper P]}), then \\texttt{make report}.\\par}\n");
    if (measured == 0)
        lm_tbuf_puts(b, "\n\\emph{No constant is measured for this seed yet: run \\texttt{make constants} "
                        "with the same seed.}\n");

    /* counts per paper */
    lm_tbuf_puts(b, "\n{\\footnotesize\\setlength{\\tabcolsep}{4pt}\n"
                    "\\begin{longtable}{@{}lrrrrrrrrr@{}}\n"
                    "\\toprule paper & claims & constants & measured & tight & loose & very loose & fails & "
                    "no break & undecided\\\\\\midrule\n\\endhead\n\\bottomrule\n\\endlastfoot\n");
    for (int i = 0; i < R->nclaims;) {
        char paper[64], p2[64];
        paper_of(R->claims[ix[i]].claim.id, paper, sizeof paper);
        long ncl = 0, nc = 0, nm = 0, cls[LM_SLACK_COUNT] = {0};
        int j = i;
        for (; j < R->nclaims; j++) {
            paper_of(R->claims[ix[j]].claim.id, p2, sizeof p2);
            if (strcmp(p2, paper)) break;
            ncl++;
            int ne = claim_entries(&R->claims[ix[j]], rows, nrows, e, MAXE);
            nc += ne;
            for (int q = 0; q < ne; q++)
                if (e[q].row) {
                    nm++;
                    cls[lm_constant_class(e[q].row)]++;
                }
        }
        lm_tex_escape(b, paper);
        lm_tbuf_printf(b, " & %ld & %ld & %ld", ncl, nc, nm);
        for (int c = 0; c < LM_SLACK_COUNT; c++) lm_tbuf_printf(b, " & %ld", cls[c]);
        lm_tbuf_puts(b, "\\\\\n");
        i = j;
    }
    lm_tbuf_puts(b, "\\end{longtable}}\n");

    /* one table per paper */
    for (int i = 0; i < R->nclaims;) {
        char paper[64], p2[64];
        paper_of(R->claims[ix[i]].claim.id, paper, sizeof paper);
        lm_tbuf_puts(b, "\\Needspace{8\\baselineskip}\\subsection*{");
        lm_tex_escape(b, paper);
        lm_tbuf_puts(b, "}\n{\\footnotesize\\setlength{\\tabcolsep}{3pt}\n"
                        "\\begin{longtable}{@{}L{2.7cm}L{5.05cm}R{1.15cm}R{1.55cm}R{1.5cm}L{1.85cm}R{2.0cm}@{}}\n"
                        "\\toprule claim & constant & stated & sharpest (bisection) & slack & class & "
                        "worst LHS/RHS (linear)\\\\\\midrule\n\\endhead\n"
                        "\\midrule\\multicolumn{7}{r}{\\emph{continued}}\\\\\n\\endfoot\n"
                        "\\bottomrule\n\\endlastfoot\n");
        int j = i;
        for (; j < R->nclaims; j++) {
            const lm_results_claim *rc = &R->claims[ix[j]];
            paper_of(rc->claim.id, p2, sizeof p2);
            if (strcmp(p2, paper)) break;
            if (j > i) lm_tbuf_puts(b, "\\midrule[0.2pt]\n");
            const char *id = rc->claim.id, *slash = strchr(id, '/');
            char ratio[80];
            lm_tex_ratio(ratio, sizeof ratio, rc->res.worst_ratio);
            int ne = claim_entries(rc, rows, nrows, e, MAXE);
            for (int q = 0; q < (ne ? ne : 1); q++) {
                if (q == 0) {
                    lm_tbuf_printf(b, "\\hyperref[claim:%d]{\\texttt{", ix[j]);
                    lm_tex_escape_tt(b, slash ? slash + 1 : id);
                    lm_tbuf_puts(b, "}}");
                }
                lm_tbuf_puts(b, " & ");
                if (!ne) {
                    lm_tbuf_printf(b, "\\emph{no named constant} & & & & & %s\\\\\n", ratio);
                    break;
                }
                const entry *x = &e[q];
                lm_tbuf_puts(b, "\\texttt{");
                lm_tex_escape_tt(b, x->name);
                lm_tbuf_puts(b, "}");
                if (x->doc[0]) {
                    char sh[120];
                    shorten(sh, sizeof sh, x->doc, 70);
                    lm_tbuf_puts(b, ": {\\scriptsize ");
                    lm_tex_escape(b, sh);
                    lm_tbuf_puts(b, "}");
                }
                char stated[80], sharp[80], sl[80];
                const lm_constant_row *r = x->row;
                lm_tex_num(stated, sizeof stated, r ? r->stated : x->def);
                /* the sharpest value only where a break bracketed it (a constant nothing breaks
                 * keeps its stated value there, which is no measurement) */
                double s = r ? lm_constant_slack(r) : (double)NAN;
                if (!isnan(s)) {
                    lm_tex_num(sharp, sizeof sharp, r->sharpest);
                    lm_tex_num(sl, sizeof sl, s);
                } else {
                    snprintf(sharp, sizeof sharp, "--");
                    snprintf(sl, sizeof sl, "--");
                }
                lm_tbuf_printf(b, " & %s & %s & %s & ", stated, sharp, sl);
                if (r) put_class(b, r);
                else lm_tbuf_puts(b, "--");
                lm_tbuf_printf(b, " & %s\\\\\n", q == 0 ? ratio : "");
            }
        }
        lm_tbuf_puts(b, "\\end{longtable}}\n");
        i = j;
    }
    if (R->nclaims == 0) lm_tbuf_puts(b, "\\emph{No claims in this run.}\n");
    free(ix);
    free(e);
    free(rows);
}
