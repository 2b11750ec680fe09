/* slack.c -- constant slack.  The report's "Constant slack" section (lm_report_slack): per
 * paper, one table with every named constant of every claim (the rule of lm_constants.h),
 * its stated value, the sharpest value found (table `constants`: read off the verify run's
 * observations, or bisected by `lemmata constants`), the slack and its class; and for every
 * claim, constants or not, the worst LHS/RHS of its result (the linear reading of the
 * slack).  For the per-paper summary pages (summary.c) the same measurements as one figure
 * per paper (rp_slack_prepare, drawn by figures.c) and the undecided constants with their
 * reasons (rp_slack_put_paper).
 *
 * Which row of the table a constant shows: the results woven may come from several runs
 * (the latest stored result of every claim), each with its seed, budget and quick flag.  A
 * constant shows the row measured with its claim's settings; else the newest with the same
 * seed (another budget: `make constants` bisects at the quick budget); else the newest of
 * any seed.  Every row that is not an exact match says with which budget (and seed) it was
 * measured. */
#include "lm_constants.h"
#include "report_priv.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- which measurement ------------------------------------------------------------- */

/* one resolved measurement: the row, and how it matches its claim's settings */
typedef struct {
    lm_constant_row r;
    int exact;    /* same seed, budget and quick flag as the claim's run */
    int same_seed;
} mrow;

struct rp_slack {
    mrow *rows; /* at most one per (claim, param), grouped by claim */
    int nrows;
    int npaper;
    struct {
        char paper[64];
        char fig[300]; /* the figure's path ("" when none was written) */
    } *paper;
};

/* the settings a claim's result was run with */
typedef struct {
    uint64_t seed;
    int budget, quick;
} settings;

static settings claim_settings(const lm_results *R, const lm_results_claim *rc)
{
    const lm_results_run *run = R->nruns > 0 ? lm_results_run_of(R, rc->run) : NULL;
    const lm_run_meta *m = run ? &run->meta : &R->meta;
    return (settings){m->seed, m->budget, m->quick};
}

/* the seeds of the constants table, newest measurement first; -1 on error */
static int table_seeds(const char *dbpath, uint64_t **seeds, int *n)
{
    *seeds = NULL;
    *n = 0;
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(dbpath, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        return -1;
    }
    sqlite3_busy_timeout(db, 10000);
    sqlite3_stmt *st = NULL;
    int rc = 0, cap = 0;
    /* no table: no seed (a prepare error says just that) */
    if (sqlite3_prepare_v2(db, "SELECT seed FROM constants GROUP BY seed ORDER BY MAX(saved) DESC", -1, &st,
                           NULL) == SQLITE_OK) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            const unsigned char *s = sqlite3_column_text(st, 0);
            if (!s) continue;
            if (*n == cap) {
                cap = cap ? 2 * cap : 8;
                uint64_t *t = realloc(*seeds, sizeof *t * (size_t)cap);
                if (!t) {
                    rc = -1;
                    break;
                }
                *seeds = t;
            }
            (*seeds)[(*n)++] = strtoull((const char *)s, NULL, 10);
        }
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rc;
}

/* rows loaded with one seed (lm_constdb_load's choice for a budget and quick flag) */
typedef struct {
    settings s;
    lm_constant_row *rows;
    int n;
} loaded;

static int push_row(rp_slack *S, int *cap, const lm_constant_row *r, int exact, int same_seed)
{
    if (S->nrows == *cap) {
        int nc = *cap ? 2 * *cap : 64;
        mrow *t = realloc(S->rows, sizeof *t * (size_t)nc);
        if (!t) return -1;
        S->rows = t;
        *cap = nc;
    }
    S->rows[S->nrows++] = (mrow){*r, exact, same_seed};
    return 0;
}

/* the row of param among S->rows[from..to), -1 when none */
static int find_row(const rp_slack *S, int from, int to, const char *param)
{
    for (int k = from; k < to; k++)
        if (!strcmp(S->rows[k].r.param, param)) return k;
    return -1;
}

/* fills S->rows for the claims of R; 0, or -1 with err set */
static int resolve(rp_slack *S, const char *dbpath, const lm_results *R, char *err, int errlen)
{
    if (!dbpath || R->nclaims == 0) return 0;
    uint64_t *seeds = NULL;
    int nseeds = 0;
    if (table_seeds(dbpath, &seeds, &nseeds)) {
        snprintf(err, (size_t)errlen, "cannot read the constants table of %s", dbpath);
        return -1;
    }
    if (nseeds == 0) return 0;
    /* one load per distinct setting of the claims, then one per seed of the table (its newest
     * rows: budget -1 matches none) */
    int nl = 0, rc = -1, cap = 0;
    loaded *L = calloc((size_t)(R->nclaims + nseeds), sizeof *L);
    if (!L) {
        free(seeds);
        snprintf(err, (size_t)errlen, "out of memory");
        return -1;
    }
    for (int k = 0; k < R->nclaims + nseeds; k++) {
        settings s = k < R->nclaims ? claim_settings(R, &R->claims[k]) : (settings){seeds[k - R->nclaims], -1, -1};
        int j = 0;
        while (j < nl && !(L[j].s.seed == s.seed && L[j].s.budget == s.budget && L[j].s.quick == s.quick)) j++;
        if (j < nl) continue;
        L[nl].s = s;
        if (lm_constdb_load(dbpath, s.seed, s.budget, s.quick, &L[nl].rows, &L[nl].n, err, errlen)) goto out;
        nl++;
    }
    for (int k = 0; k < R->nclaims; k++) {
        const char *id = R->claims[k].claim.id;
        settings s = claim_settings(R, &R->claims[k]);
        int from = S->nrows;
        /* the claim's own seed: lm_constdb_load put the exact budget first, else the newest */
        for (int j = 0; j < nl; j++) {
            if (L[j].s.seed != s.seed || L[j].s.budget != s.budget || L[j].s.quick != s.quick) continue;
            for (int i = 0; i < L[j].n; i++) {
                const lm_constant_row *r = &L[j].rows[i];
                if (strcmp(r->claim_id, id)) continue;
                if (push_row(S, &cap, r, r->budget == s.budget && r->quick == s.quick, 1)) goto oom;
            }
        }
        /* any other seed: the newest row of each constant not measured with this one */
        int mid = S->nrows;
        for (int j = 0; j < nl; j++) {
            if (L[j].s.budget != -1 || L[j].s.seed == s.seed) continue;
            for (int i = 0; i < L[j].n; i++) {
                const lm_constant_row *r = &L[j].rows[i];
                if (strcmp(r->claim_id, id) || find_row(S, from, mid, r->param) >= 0) continue;
                int q = find_row(S, mid, S->nrows, r->param);
                if (q >= 0) {
                    if (strcmp(r->saved, S->rows[q].r.saved) > 0) S->rows[q] = (mrow){*r, 0, 0};
                } else if (push_row(S, &cap, r, 0, 0))
                    goto oom;
            }
        }
    }
    rc = 0;
    goto out;
oom:
    snprintf(err, (size_t)errlen, "out of memory");
out:
    for (int j = 0; j < nl; j++) free(L[j].rows);
    free(L);
    free(seeds);
    return rc;
}

/* ---- the constants of a claim ------------------------------------------------------ */

/* one constant of one claim, as listed in the table */
typedef struct {
    char name[64];
    double def;
    char doc[400];
    const mrow *row; /* NULL: not measured */
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
static int claim_entries(const lm_results_claim *rc, const rp_slack *S, entry *e, int max)
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
    for (int r = 0; S && r < S->nrows; r++) {
        if (strcmp(S->rows[r].r.claim_id, rc->claim.id)) continue;
        int j = 0;
        while (j < n && strcmp(e[j].name, S->rows[r].r.param)) j++;
        if (j == n) {
            if (n == max) continue;
            snprintf(e[n].name, sizeof e[n].name, "%s", S->rows[r].r.param);
            e[n].def = S->rows[r].r.stated;
            e[n].doc[0] = 0;
            n++;
        }
        e[j].row = &S->rows[r];
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

/* how a row that is not an exact match was measured: "budget 8 quick", "seed 7, budget 64" */
static void put_other_settings(lm_tbuf *b, const mrow *m)
{
    if (m->exact) return;
    lm_tbuf_puts(b, "\\newline{\\tiny ");
    if (!m->same_seed) lm_tbuf_printf(b, "seed %llu, ", (unsigned long long)m->r.seed);
    lm_tbuf_printf(b, "budget %d%s}", m->r.budget, m->r.quick ? " quick" : "");
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

/* ---- the section "Constant slack" ------------------------------------------------------ */

void lm_report_slack(lm_tbuf *b, const lm_results *R, const char *dbpath)
{
    rp_slack S;
    memset(&S, 0, sizeof S);
    char err[512] = "";
    int unreadable = resolve(&S, dbpath, R, err, sizeof err) != 0;
    int *ix = malloc(sizeof *ix * (size_t)(R->nclaims ? R->nclaims : 1));
    entry *e = malloc(sizeof *e * MAXE);
    if (!ix || !e) {
        free(ix);
        free(e);
        free(S.rows);
        b->oom = 1;
        return;
    }
    for (int k = 0; k < R->nclaims; k++) ix[k] = k;
    sort_claims(ix, R->nclaims, R);

    /* the settings of the measurements shown */
    long measured = 0, nconst = 0, inexact = 0, how[4] = {0};
    int used_max_runs = 24;
    double used_rtol = 0.05;
    for (int i = 0; i < R->nclaims; i++) {
        int ne = claim_entries(&R->claims[ix[i]], &S, e, MAXE);
        nconst += ne;
        for (int j = 0; j < ne; j++) {
            if (!e[j].row) continue;
            if (measured++ == 0) {
                used_rtol = e[j].row->r.rtol;
                used_max_runs = e[j].row->r.max_runs;
            }
            inexact += !e[j].row->exact;
            how[lm_constant_measured(&e[j].row->r)]++;
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
                 "\\item \\textbf{sharpest} is the sharpest value with which the claim still passes (holds, "
                 "consistent or artifact) on the claim's instances: \\emph{read off} the observations of the "
                 "verify run when the bound is linear in the constant, else \\emph{bisected} in log scale by "
                 "re-running the claim on the same instances (\\texttt{lemmata constants}, \\texttt{lemmata "
                 "tighten}).\n"
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
                 "the constant was not measured.  A measurement made with another budget or seed than the "
                 "claim's result says which under its class.\n"
                 "\\item \\textbf{worst LHS/RHS} is \\emph{not} a search: it is the claim's worst ratio "
                 "over its configurations as printed (all constants at their stated values; for a lower bound "
                 "RHS/LHS).  For a bound linear in a "
                 "single constant it is the factor by which that constant could be multiplied and the bound "
                 "still hold on these instances -- the \\emph{linear reading} of the slack; it is shown for "
                 "every claim, including those without a named constant.\n"
                 "\\end{itemize}\n");
    lm_tbuf_printf(b, "%ld of the %ld constants of the %d claims have a row", measured, nconst, R->nclaims);
    if (measured)
        lm_tbuf_printf(b, ": %ld measured (%ld read off the verify run, %ld bisected, %ld with no break), %ld not "
                          "(undecided, or failing as stated with the value where the claim first holds unknown); "
                          "%ld with another budget or seed than their claim's result",
                       measured - how[LM_MEASURED_NOT], how[LM_MEASURED_READ_OFF], how[LM_MEASURED_BISECTED],
                       how[LM_MEASURED_NO_BREAK], how[LM_MEASURED_NOT], inexact);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "bin/lemmata tighten ID PARAM --seed %llu --budget %d%s --rtol %g --max-runs %d",
             (unsigned long long)R->meta.seed, R->meta.budget, R->meta.quick ? " --quick" : "", used_rtol,
             used_max_runs);
    lm_tbuf_puts(b, ".  One constant at a higher budget: \\texttt{");
    lm_tex_escape_tt(b, cmd);
    lm_tbuf_puts(b, "}; all that \\texttt{make verify} could not read off: \\texttt{make constants} (or "
                    "\\texttt{bin/lemmata constants [--paper P]}), then \\texttt{make report}.\\par}\n");
    if (unreadable) {
        lm_tbuf_puts(b, "\n\\emph{The constants table could not be read: ");
        lm_tex_escape(b, err);
        lm_tbuf_puts(b, ".}\n");
    } else if (measured == 0)
        lm_tbuf_puts(b, "\n\\emph{No constant is measured yet: run \\texttt{make constants}.}\n");

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
            int ne = claim_entries(&R->claims[ix[j]], &S, e, MAXE);
            nc += ne;
            for (int q = 0; q < ne; q++)
                if (e[q].row) {
                    nm++;
                    cls[lm_constant_class(&e[q].row->r)]++;
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
                        "\\toprule claim & constant & stated & sharpest & slack & class & "
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
            int ne = claim_entries(rc, &S, e, MAXE);
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
                const lm_constant_row *r = x->row ? &x->row->r : NULL;
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
                lm_tbuf_printf(b, " & %s & %s", stated, sharp);
                if (r && !isnan(s) && !strcmp(r->method, "read off")) lm_tbuf_puts(b, "\\newline{\\tiny read off}");
                lm_tbuf_printf(b, " & %s & ", sl);
                if (r) {
                    put_class(b, r);
                    put_other_settings(b, x->row);
                } else
                    lm_tbuf_puts(b, "--");
                lm_tbuf_printf(b, " & %s\\\\\n", q == 0 ? ratio : "");
            }
        }
        lm_tbuf_puts(b, "\\end{longtable}}\n");
        i = j;
    }
    if (R->nclaims == 0) lm_tbuf_puts(b, "\\emph{No claims in this run.}\n");
    free(ix);
    free(e);
    free(S.rows);
}

/* ---- per paper: the figure and the summary page's part ------------------------------- */

rp_slack *rp_slack_prepare(const char *root, const char *dbpath, const lm_results *R, const rp_doc *docs,
                           int n, lm_figure *fig, int *nfig, int maxfig, char *err, int errlen)
{
    rp_slack *S = calloc(1, sizeof *S);
    entry *e = malloc(sizeof *e * MAXE);
    lm_slack_point *pts = NULL;
    if (!S || !e || !(S->paper = calloc((size_t)(n ? n : 1), sizeof *S->paper))) {
        snprintf(err, (size_t)errlen, "out of memory");
        goto fail;
    }
    if (resolve(S, dbpath, R, err, errlen)) goto fail;
    for (int a = 0; a < n;) {
        int b = a + 1;
        while (b < n && !strcmp(docs[b].paper, docs[a].paper)) b++;
        int k = S->npaper++;
        snprintf(S->paper[k].paper, sizeof S->paper[k].paper, "%s", docs[a].paper);
        /* the paper's constants with a measurement */
        int np = 0, cap = 0;
        for (int j = a; j < b; j++) {
            int ne = claim_entries(docs[j].c, S, e, MAXE);
            const char *id = docs[j].c->claim.id, *slash = strchr(id, '/');
            for (int q = 0; q < ne; q++) {
                if (!e[q].row) continue;
                if (np == cap) {
                    cap = cap ? 2 * cap : 32;
                    lm_slack_point *t = realloc(pts, sizeof *t * (size_t)cap);
                    if (!t) {
                        snprintf(err, (size_t)errlen, "out of memory");
                        goto fail;
                    }
                    pts = t;
                }
                snprintf(pts[np].label, sizeof pts[np].label, "%.60s %.58s", slash ? slash + 1 : id, e[q].name);
                pts[np].slack = lm_constant_slack(&e[q].row->r);
                pts[np].cls = (int)lm_constant_class(&e[q].row->r);
                np++;
            }
        }
        if (np && *nfig < maxfig) {
            int rc = lm_fig_write_slack(root, docs[a].paper, pts, np, &fig[*nfig], err, errlen);
            if (rc < 0) goto fail;
            if (rc == 0) {
                snprintf(S->paper[k].fig, sizeof S->paper[k].fig, "%s", fig[*nfig].path);
                (*nfig)++;
            }
        }
        a = b;
    }
    free(pts);
    free(e);
    return S;
fail:
    free(pts);
    free(e);
    rp_slack_free(S);
    return NULL;
}

void rp_slack_free(rp_slack *S)
{
    if (!S) return;
    free(S->rows);
    free(S->paper);
    free(S);
}

void rp_slack_put_paper(rp_writer *w, const rp_slack *S, const rp_doc *docs, int first, int count)
{
    entry *e = malloc(sizeof *e * MAXE);
    if (!e) {
        w->b.oom = 1;
        return;
    }
    long nconst = 0, nm = 0, cls[LM_SLACK_COUNT] = {0}, inexact = 0;
    for (int j = first; j < first + count; j++) {
        int ne = claim_entries(docs[j].c, S, e, MAXE);
        nconst += ne;
        for (int q = 0; q < ne; q++)
            if (e[q].row) {
                nm++;
                cls[lm_constant_class(&e[q].row->r)]++;
                inexact += !e[q].row->exact;
            }
    }
    rp_put(w, "\\Needspace{6\\baselineskip}\\paragraph{Constant slack}");
    if (nconst == 0) {
        rp_put(w, " No claim of this paper has a named constant; each claim's worst LHS/RHS is its "
                  "linear reading of the slack (summary table).\n\n");
        free(e);
        return;
    }
    lm_tbuf_printf(&w->b, " %ld of the %ld named constants are measured", nm, nconst);
    if (nm) {
        rp_put(w, ":");
        int any = 0;
        for (int c = 0; c < LM_SLACK_COUNT; c++) {
            if (!cls[c]) continue;
            lm_tbuf_printf(&w->b, "%s %ld \\vd{%s}{%s}", any ? "," : "", cls[c], class_color[c],
                           lm_slack_class_name((lm_slack_class)c));
            any = 1;
        }
    }
    rp_put(w, ".");
    if (inexact)
        lm_tbuf_printf(&w->b, " %ld %s measured with another budget or seed than %s claim's result (the "
                              "section Constant slack says which).",
                       inexact, inexact == 1 ? "was" : "were", inexact == 1 ? "its" : "their");
    if (nm < nconst) rp_put(w, " The others were not measured (\\texttt{make constants} measures them).");
    rp_put(w, "\n\n");
    const char *fig = NULL;
    for (int k = 0; S && k < S->npaper; k++)
        if (!strcmp(S->paper[k].paper, docs[first].paper) && S->paper[k].fig[0]) fig = S->paper[k].fig;
    if (fig) {
        rp_put(w, "\\begin{center}\\includegraphics[width=0.92\\linewidth]{");
        rp_put(w, fig); /* sanitized: letters, digits, '-' and '/' */
        rp_put(w, ".pdf}\\captionof{figure}{The slack of each measured constant of this paper on a log axis, "
                  "coloured by class: right of the red line at 1 the stated value holds with room to "
                  "spare (dotted: the class boundaries 2 and 100), left of it the stated value fails. "
                  "A diamond at an end of the axis lies beyond it (slack past $10^{16}$ either way) or has no "
                  "value: no value tried broke the claim (right), or it fails at every value tried (left).");
        if (nm > LM_SLACK_LABELLED) rp_put(w, " Too many to name: the section Constant slack lists them.");
        rp_put(w, "}\\end{center}\n");
    }
    /* the undecided ones, each with its reason */
    if (cls[LM_SLACK_UNDECIDED]) {
        rp_put(w, "{\\small\\textbf{Undecided}, with the reason:\\begin{itemize}\\setlength{\\itemsep}{0pt}\n");
        for (int j = first; j < first + count; j++) {
            int ne = claim_entries(docs[j].c, S, e, MAXE);
            const char *id = docs[j].c->claim.id, *slash = strchr(id, '/');
            for (int q = 0; q < ne; q++) {
                if (!e[q].row || lm_constant_class(&e[q].row->r) != LM_SLACK_UNDECIDED) continue;
                lm_tbuf_printf(&w->b, "\\item \\hyperref[claim:%d]{\\texttt{", j);
                rp_esc_tt(w, slash ? slash + 1 : id);
                rp_put(w, "}} \\texttt{");
                rp_esc_tt(w, e[q].name);
                rp_put(w, "}: ");
                rp_esc(w, e[q].row->r.msg[0] ? e[q].row->r.msg : "no reason recorded");
                rp_put(w, "\n");
            }
        }
        rp_put(w, "\\end{itemize}}\n");
    }
    free(e);
}
