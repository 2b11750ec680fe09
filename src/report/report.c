/* report.c -- lm_report_build: weave report/lemmata.pdf from the results
 * database, the claim files' literate blocks and gnuplot figures.
 *
 * Output goes under `root` (report/ and figures/, created when missing); the
 * process never changes directory: gnuplot and pdflatex run as children with
 * cwd = root, so the LaTeX source refers to figures/... relative to root.
 * Claim files are read from the source tree (lm_report_source_tree: root
 * when it has lemmas/, else the current directory), and only when the path
 * the database records resolves to a regular file under its lemmas/ or src/.
 *
 *   1. pdflatex and gnuplot must be on PATH (checked before anything
 *      is written);
 *   2. the run is read from the database (claims sorted by id), each claim's
 *      file is read for its \claim/\source/\statement/\check/\note blocks
 *      (malformed blocks stop the build with "file:line: reason");
 *   3. under report/.weave.lock (one weave per report directory; the
 *      temporary directories of killed weaves are removed), figures/<id>-
 *      <config>[-ratios].{dat,gp} are written and gnuplot turns them into
 *      PDFs (figures.c: only changed ones are redrawn);
 *   4. the LaTeX source is written to a fresh directory report/weave-XXXXXX
 *      and compiled there with pdflatex under the job name lemmata-build,
 *      again until its .aux, .toc and .out stop changing (at most four
 *      passes: an unchanged report takes one, latexmk's rule, without
 *      latexmk's hashing of a thousand figure PDFs around each pass).  The
 *      pass starts from the .aux/.toc/.out of the last *finished* weave
 *      (report/lemmata-build.*, trusted only when report/lemmata-build.state,
 *      written after them, records their hash).  Only a complete PDF (%PDF
 *      ... %%EOF) is renamed to report/lemmata.pdf, and only then are the
 *      auxiliary files and the state record updated: a failed or killed
 *      weave leaves the previous report as it was.  A LaTeX error inside a
 *      woven block is reported at its line of the claim file.
 *
 * Text from the database and plain-text fields is escaped; the \statement,
 * \check and \note blocks are LaTeX, and so are \claim titles and \source
 * blocks that contain $ or \ (plain ones are escaped): those, and the LaTeX
 * captions of live runs, pass through the allow-list of texsafe.c.
 * pdflatex runs without shell escape and may open no file by an absolute or
 * parent path (openin_any=p).
 */
#include "lm_report.h"
#include "lm_paper.h"
#include "lm_verify.h"
#include "report_priv.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define JOB "lemmata-build"
#define CODE_MAX_LINES 240

void lm_report_path(char *dst, size_t n, const char *root, const char *rel)
{
    if (!root || !*root || !strcmp(root, ".") || rel[0] == '/')
        snprintf(dst, n, "%s", rel);
    else
        snprintf(dst, n, "%s%s%s", root, root[strlen(root) - 1] == '/' ? "" : "/", rel);
}

/* ---- per-claim state ----------------------------------------------------------- */

typedef struct {
    lm_results_claim *c;
    const lm_claim *reg;  /* registry entry with the same id, or NULL */
    const char *title;    /* plain title (DB, else registry), may be NULL */
    char file[512];       /* claim file as recorded (relative to root), "" if unknown */
    char code[4096];      /* claim file to list (its real path), "" = none */
    int file_ok;          /* file was read */
    int outside;          /* the recorded file is no regular file of the source tree: not read */
    lm_literate L;
    lm_figure *fig;
    int nfig;
    char paper[64];
    int low_recon;        /* reconstructed with low confidence */
    int med_recon;        /* reconstructed with medium confidence */
    int recon_const;      /* checked against a reconstructed (RECON) constant */
} doc;

typedef struct {
    long first, last; /* lines of lemmata.tex */
    int claim;        /* index into the docs */
    const char *what; /* "\statement block", ... */
    int src_line;     /* line of the claim file at `first`; 0: no line mapping */
} span;

typedef struct {
    lm_tbuf b;
    span *sp;
    int nsp, capsp;
    long long run; /* the run being woven */
} writer;

static const char *const vcolor[LM_V_COUNT] = {
    "vholds", "vconsistent", "vvacuous", "vnotcheckable", "vartifact",
    "vassumption", "verror", "vinconsistent", "vviolated"};

static const char *const kind_short[LM_KIND_COUNT] = {
    "trajectory", "pointwise", "identity", "structural", "rate (proxy)", "probabilistic"};

static void P(writer *w, const char *s)
{
    lm_tbuf_puts(&w->b, s);
}

static void E(writer *w, const char *s)
{
    lm_tex_escape(&w->b, s);
}

static void ETT(writer *w, const char *s)
{
    lm_tex_escape_tt(&w->b, s);
}

static void verdict_tex(writer *w, lm_verdict v)
{
    int k = (v >= 0 && v < LM_V_COUNT) ? (int)v : (int)LM_V_ERROR;
    lm_tbuf_printf(&w->b, "\\vd{%s}{%s}", vcolor[k], lm_verdict_name(v));
}

static void add_span(writer *w, int claim, const char *what, long first, long last, int line)
{
    if (w->nsp == w->capsp) {
        int nc = w->capsp ? 2 * w->capsp : 64;
        span *t = realloc(w->sp, sizeof *t * (size_t)nc);
        if (!t) {
            w->b.oom = 1;
            return;
        }
        w->sp = t;
        w->capsp = nc;
    }
    w->sp[w->nsp++] = (span){first, last, claim, what, line};
}

static void at_line_start(writer *w)
{
    if (w->b.n && w->b.s[w->b.n - 1] != '\n') P(w, "%\n");
}

/* a LaTeX block of a claim file, through the allow-list (texsafe.c), on
 * lines of its own (line for line, so errors map back to the claim file) */
static void put_block(writer *w, int claim, const char *what, const lm_lit_block *blk)
{
    at_line_start(w);
    long first = w->b.lines + 1;
    lm_tex_safe(&w->b, blk->text);
    long last = w->b.lines + 1;
    P(w, "\n");
    add_span(w, claim, what, first, last, blk->line);
}

static int is_recon(const lm_claim *c)
{
    return c->origin && !strncasecmp(c->origin, "recon", 5);
}

/* title of a claim: the \claim block (LaTeX), else the plain title escaped */
static void put_title(writer *w, const doc *d, int k, int with_pdf_string)
{
    const char *plain = d->title && *d->title ? d->title : d->c->claim.id;
    if (d->L.title.text && *d->L.title.text) {
        const lm_lit_block *t = &d->L.title;
        int latex = lm_tex_is_latex(t->text);
        if (with_pdf_string) {
            P(w, "\\texorpdfstring{");
            if (latex) put_block(w, k, "\\claim title", t);
            else E(w, t->text);
            P(w, "}{");
            E(w, plain);
            P(w, "}");
        } else if (latex)
            put_block(w, k, "\\claim title", t);
        else
            E(w, t->text);
    } else
        E(w, plain);
}

/* 1 when configuration k counts for the claim's verdict: it reads the paper as
 * printed, or no configuration does (--config picked a repaired one) */
static int counts_for_verdict(const lm_claim_result *r, int k)
{
    if (r->cfg[k].reading == LM_READ_PAPER) return 1;
    for (int j = 0; j < r->nconfig; j++)
        if (r->cfg[j].reading == LM_READ_PAPER) return 0;
    return 1;
}

/* 1 when some configuration reads a repaired statement or probes beyond it */
static int has_readings(const lm_claim_result *r)
{
    for (int k = 0; k < r->nconfig; k++)
        if (r->cfg[k].reading != LM_READ_PAPER) return 1;
    return 0;
}

static const char *reading_word(lm_reading_kind k)
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
        if (counts_for_verdict(r, k) && !isnan(x) && (best < 0 || x > r->cfg[best].worst_ratio))
            best = k;
    }
    if (best >= 0) return best;
    for (int k = 0; k < r->nconfig; k++)
        if (counts_for_verdict(r, k) && (best < 0 || r->cfg[k].verdict > r->cfg[best].verdict))
            best = k;
    return best;
}

/* the worst verdict over the configurations of reading `kind` (whose note is `note`,
 * when not NULL); -1 when there is none */
static int reading_verdict(const lm_claim_result *r, lm_reading_kind kind, const char *note)
{
    int v = -1;
    for (int k = 0; k < r->nconfig; k++)
        if (r->cfg[k].reading == kind && (!note || !strcmp(r->cfg[k].reading_note, note)) &&
            (int)r->cfg[k].verdict > v)
            v = (int)r->cfg[k].verdict;
    return v;
}

static void put_precisions(writer *w, const char *p)
{
    if (!p || !*p) {
        P(w, "--");
        return;
    }
    char buf[128];
    snprintf(buf, sizeof buf, "%s", p);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (tok != buf) P(w, ", ");
        E(w, tok);
    }
}

/* the same, MPFR precisions run together: "double, mpfr256/512/1024" (narrow columns) */
static void put_precisions_short(writer *w, const char *p)
{
    if (!p || !*p) {
        P(w, "--");
        return;
    }
    char buf[128];
    snprintf(buf, sizeof buf, "%s", p);
    int mpfr = 0, first = 1;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int bits = !strncmp(tok, "mpfr", 4) && tok[4] >= '0' && tok[4] <= '9';
        if (bits && mpfr) {
            P(w, "/\\allowbreak{}");
            E(w, tok + 4);
            continue;
        }
        if (!first) P(w, ", ");
        E(w, tok);
        first = 0;
        mpfr = bits;
    }
}

static void prec_text(char *buf, size_t n, int prec)
{
    if (prec) snprintf(buf, n, "MPFR %d bits", prec);
    else snprintf(buf, n, "double first, MPFR replay");
}

/* ---- preamble and front matter ----------------------------------------------- */

static void put_preamble(writer *w, const lm_results *R)
{
    P(w, "% generated by lemmata (src/report/report.c) -- do not edit; rebuild with: "
         "bin/lemmata report\n"
         "\\documentclass[10pt,a4paper]{article}\n"
         "\\usepackage[utf8]{inputenc}\n"
         "\\usepackage[a4paper,left=1.8cm,right=1.8cm,top=2.4cm,bottom=2.8cm,"
         "headheight=14pt,headsep=12pt,footskip=34pt]{geometry}\n"
         "\\usepackage{amsmath,amssymb,mathtools,bm}\n"
         "\\usepackage{graphicx}\n"
         "\\usepackage[table]{xcolor}\n"
         "\\usepackage{array,longtable,booktabs}\n"
         "\\usepackage{fancyhdr,lastpage}\n"
         "\\usepackage{needspace}\n"
         "\\usepackage[font=footnotesize,labelfont=bf]{caption}\n"
         "\\usepackage[hidelinks,bookmarksnumbered]{hyperref}\n");
    lm_tex_unicode_preamble(&w->b);
    P(w, "\\definecolor{vholds}{RGB}{0,130,40}\n"
         "\\definecolor{vconsistent}{RGB}{0,120,110}\n"
         "\\definecolor{vvacuous}{RGB}{150,110,0}\n"
         "\\definecolor{vnotcheckable}{RGB}{100,100,100}\n"
         "\\definecolor{vartifact}{RGB}{215,110,0}\n"
         "\\definecolor{vassumption}{RGB}{200,100,0}\n"
         "\\definecolor{verror}{RGB}{190,0,170}\n"
         "\\definecolor{vinconsistent}{RGB}{185,30,60}\n"
         "\\definecolor{vviolated}{RGB}{210,0,0}\n"
         "% a command of a literate block that is not on the allow-list, shown, not run\n"
         "\\DeclareRobustCommand{\\lmraw}[1]{\\textnormal{\\textcolor{verror}{\\ttfamily #1}}}\n"
         "\\newcommand{\\vd}[2]{{\\setlength{\\fboxsep}{1.2pt}\\colorbox{#1!12}"
         "{\\textcolor{#1}{\\textbf{#2}}}}}\n"
         "\\newcolumntype{L}[1]{>{\\raggedright\\arraybackslash}p{#1}}\n"
         "\\newcolumntype{R}[1]{>{\\raggedleft\\arraybackslash}p{#1}}\n"
         "\\newenvironment{lmblock}[1]{\\par\\smallskip\\noindent\\textbf{#1}\\par"
         "\\nopagebreak\\begin{quote}\\sloppy}{\\end{quote}}\n"
         "% conveniences for the literate blocks\n"
         "\\providecommand{\\R}{\\mathbb{R}}\n"
         "\\providecommand{\\N}{\\mathbb{N}}\n"
         "\\providecommand{\\E}{\\mathbb{E}}\n"
         "\\providecommand{\\Prob}{\\mathbb{P}}\n"
         "\\providecommand{\\norm}[1]{\\lVert #1\\rVert}\n"
         "\\providecommand{\\abs}[1]{\\lvert #1\\rvert}\n"
         "\\providecommand{\\inner}[2]{\\langle #1,#2\\rangle}\n"
         "\\providecommand{\\tr}{\\operatorname{tr}}\n"
         "\\providecommand{\\diag}{\\operatorname{diag}}\n"
         "\\providecommand{\\softmax}{\\operatorname{softmax}}\n"
         "\\providecommand{\\argmin}{\\operatorname*{arg\\,min}}\n"
         "\\providecommand{\\argmax}{\\operatorname*{arg\\,max}}\n"
         "\\setlength{\\parindent}{0pt}\n\\setlength{\\parskip}{4pt plus 2pt}\n"
         "\\setlength{\\LTpre}{4pt}\n\\setlength{\\LTpost}{4pt}\n\\setlength{\\LTleft}{0pt}\n"
         "\\newcommand{\\lmpar}[1]{\\Needspace{7\\baselineskip}\\paragraph{#1}}\n"
         "\\setcounter{secnumdepth}{2}\n"
         "\\hypersetup{pdftitle={lemmata verification report},pdfcreator={lemmata}}\n");
    lm_tex_code_preamble(&w->b);

    /* provenance stamp on every page */
    char prec[64];
    prec_text(prec, sizeof prec, R->meta.prec);
    P(w, "\\pagestyle{fancy}\n\\fancyhf{}\n"
         "\\renewcommand{\\headrulewidth}{0.4pt}\n\\renewcommand{\\footrulewidth}{0.4pt}\n");
    lm_tbuf_printf(&w->b, "\\fancyhead[L]{\\footnotesize\\textbf{lemmata} report, run %lld%s}\n",
                   R->id, R->finished ? "" : " \\textcolor{vviolated}{(unfinished)}");
    P(w, "\\fancyhead[R]{\\footnotesize commit \\texttt{");
    ETT(w, R->meta.commit[0] ? R->meta.commit : "unknown");
    lm_tbuf_printf(&w->b,
                   "} \\textperiodcentered{} seed %llu \\textperiodcentered{} budget %d%s "
                   "\\textperiodcentered{} %s}\n",
                   (unsigned long long)R->meta.seed, R->meta.budget,
                   R->meta.quick ? " (quick)" : "", prec);
    P(w, "\\fancyfoot[L]{\\parbox[t]{0.84\\textwidth}{\\raggedright\\scriptsize ");
    E(w, R->meta.date[0] ? R->meta.date : "date unknown");
    P(w, " \\textperiodcentered{} ");
    E(w, R->meta.versions[0] ? R->meta.versions : "library versions unknown");
    P(w, "}}\n\\fancyfoot[R]{\\footnotesize page \\thepage\\ of \\pageref*{LastPage}}\n"
         "\\fancypagestyle{plain}{}\n");
}

/* how many claims carry a repaired reading or a probe, and how those came out */
static void put_readings_count(writer *w, const doc *docs, int n)
{
    int nrep = 0, nrep_pass = 0, nrep_fixed = 0, nprobe = 0, nprobe_bad = 0;
    for (int k = 0; k < n; k++) {
        const lm_claim_result *r = &docs[k].c->res;
        int rv = reading_verdict(r, LM_READ_REPAIRED, NULL);
        int pv = reading_verdict(r, LM_READ_PROBE, NULL);
        int pass_rep = rv == LM_V_HOLDS || rv == LM_V_CONSISTENT;
        if (rv >= 0) {
            nrep++;
            nrep_pass += pass_rep;
            nrep_fixed += pass_rep && (r->verdict == LM_V_VIOLATED || r->verdict == LM_V_INCONSISTENT);
        }
        if (pv >= 0) {
            nprobe++;
            nprobe_bad += pv != LM_V_HOLDS && pv != LM_V_CONSISTENT;
        }
    }
    if (!nrep && !nprobe) return;
    P(w, "Beside these verdicts of the statements as printed: ");
    if (nrep)
        lm_tbuf_printf(&w->b,
                       "repaired readings in %d claim%s (passing in %d, of which %d %s violated or "
                       "inconsistent as printed)",
                       nrep, nrep == 1 ? "" : "s", nrep_pass, nrep_fixed, nrep_fixed == 1 ? "is" : "are");
    if (nrep && nprobe) P(w, "; ");
    if (nprobe)
        lm_tbuf_printf(&w->b, "probes beyond the hypotheses in %d claim%s (not passing in %d)", nprobe,
                       nprobe == 1 ? "" : "s", nprobe_bad);
    P(w, ". Each claim's section shows them under its verdict.\n\n");
}

/* check strength over the run: the standard mutants the checks killed */
static void put_strength_total(writer *w, const doc *docs, int n)
{
    long run = 0, killed = 0;
    int measured = 0, weak = 0, blind = 0;
    for (int k = 0; k < n; k++) {
        const lm_claim_result *r = &docs[k].c->res;
        if (r->mutants_run <= 0) continue;
        measured++;
        run += r->mutants_run;
        killed += r->mutants_killed;
        weak += r->mutants_killed < r->mutants_run;
        blind += r->mutants_killed == 0;
    }
    if (!measured) {
        P(w, "\\emph{Check strength was not measured in this run} (\\texttt{verify --no-mutants}, "
             "or results from before it was recorded).\n\n");
        return;
    }
    lm_tbuf_printf(&w->b,
                   "\\textbf{Check strength.} The checks killed %ld of %ld standard mutant%s "
                   "(%.1f\\%%) of the %d claim%s measured: the right-hand side scaled to half its "
                   "worst ratio, the inequality flipped, each constant moved past its sharpest value, "
                   "each exponent of a rate claim $\\pm1$ (an exponent of a bound is moved like a "
                   "constant); a mutant is killed when it comes out violated or inconsistent (a check "
                   "that kills none cannot fail).  Mutants that were never tested (vacuous, outside "
                   "the hypotheses) and \\emph{equivalent} ones, which the run shows to be true "
                   "statements (an exponent that is not sharp, the flip of a claim broken everywhere), "
                   "are not counted (\\texttt{lemmata mutate ID} lists them).",
                   killed, run, run == 1 ? "" : "s", 100.0 * (double)killed / (double)run, measured,
                   measured == 1 ? "" : "s");
    if (weak)
        lm_tbuf_printf(&w->b, " %d claim%s let%s a mutant survive (column \\emph{mutants killed} of "
                              "the summary; each section names the survivors).",
                       weak, weak == 1 ? "" : "s", weak == 1 ? "s" : "");
    if (blind)
        lm_tbuf_printf(&w->b, " \\textcolor{vviolated}{%d claim%s killed none.}", blind,
                       blind == 1 ? "'s check" : "s' checks");
    if (measured < n)
        lm_tbuf_printf(&w->b, " %d claim%s %s not measured.", n - measured,
                       n - measured == 1 ? "" : "s", n - measured == 1 ? "was" : "were");
    P(w, "\n\n");
}

static void put_front(writer *w, const lm_results *R, const doc *docs, const char *dbpath)
{
    long counts[LM_V_COUNT] = {0};
    int npapers = 0;
    double claim_secs = 0;
    for (int k = 0; k < R->nclaims; k++) {
        counts[docs[k].c->res.verdict]++;
        if (!isnan(docs[k].c->res.seconds)) claim_secs += docs[k].c->res.seconds;
        if (k == 0 || strcmp(docs[k].paper, docs[k - 1].paper)) npapers++;
    }
    char prec[64], secs[64], csecs[64];
    prec_text(prec, sizeof prec, R->meta.prec);
    lm_tex_seconds(secs, sizeof secs, R->seconds);
    lm_tex_seconds(csecs, sizeof csecs, claim_secs);

    P(w, "\\begin{document}\n\\pdfbookmark[1]{Overview}{overview}\n"
         "\\begin{center}\n{\\LARGE\\bfseries lemmata: numerical checks of proof constants}"
         "\\\\[6pt]\n");
    lm_tbuf_printf(&w->b,
                   "{\\large %d claim%s from %d paper%s \\textperiodcentered{} run %lld%s}\n"
                   "\\end{center}\n",
                   R->nclaims, R->nclaims == 1 ? "" : "s", npapers, npapers == 1 ? "" : "s",
                   R->id, R->finished ? "" : " (unfinished)");
    P(w, "Each lemma and theorem below was turned into numerical inequalities "
         "LHS $\\le$ RHS, evaluated in IEEE double on random and adversarially searched "
         "instances (and along live training runs), with every break and near miss "
         "re-evaluated in MPFR. The \\emph{worst ratio} is the largest LHS/RHS seen: "
         "below 1 the bound held with that much slack; above 1 it broke. "
         "Each claim gets exactly one verdict, the worst over its configurations that read "
         "the statement \\emph{as printed} (or as the catalogue reconstructs the printed "
         "statement); configurations that read a \\emph{repaired} statement (a corrected "
         "constant, an added condition) and \\emph{probes} beyond the hypotheses are judged "
         "and shown beside it:\n\n"
         "{\\small\\begin{longtable}{@{}L{3.1cm}L{13.8cm}@{}}\n");
    static const char *const meaning[LM_V_COUNT] = {
        "every instance held in double, and every near miss held again in MPFR",
        "rate or asymptotic claim: the stated falsifiable proxy agreed with the claim",
        "the inequality held only because its hypothesis is never met on the instances the paper "
        "targets, or its right-hand side is trivially large: a finding, not a pass",
        "the claim cannot be checked numerically (the reason is given)",
        "a break seen in double vanished in MPFR: a floating-point artefact",
        "the instances could not meet the claim's hypotheses; never counted as a pass",
        "NaN/Inf, a failed inner solver or a crash in the check; never a pass",
        "rate or asymptotic claim: the proxy contradicts the claim",
        "an instance breaks the claim and the break survives re-evaluation in MPFR "
        "($\\ge$ 256 bits)"};
    static const int order[LM_V_COUNT] = {LM_V_VIOLATED, LM_V_INCONSISTENT, LM_V_ERROR,
                                          LM_V_ASSUMPTION_FAILED, LM_V_ARTIFACT,
                                          LM_V_VACUOUS, LM_V_NOT_CHECKABLE, LM_V_CONSISTENT,
                                          LM_V_HOLDS};
    for (int j = 0; j < LM_V_COUNT; j++) {
        verdict_tex(w, (lm_verdict)order[j]);
        lm_tbuf_printf(&w->b, " & %s\\\\\n", meaning[order[j]]);
    }
    P(w, "\\end{longtable}}\n");
    P(w, "A statement is either \\emph{verbatim} from the paper or \\emph{reconstructed} "
         "(with the catalogue's confidence). A violation of a low-confidence reconstruction "
         "(marked $^\\dagger$) may say as much about our reading as about the paper; "
         "its constants are parameters that can be replaced with "
         "\\texttt{--set name=value}.\n\n");

    P(w, "\\subsection*{Provenance}\n{\\small\\begin{longtable}{@{}L{3.4cm}L{13.5cm}@{}}\n"
         "commit & \\texttt{");
    ETT(w, R->meta.commit[0] ? R->meta.commit : "unknown");
    P(w, "}\\\\\ndate & ");
    E(w, R->meta.date);
    lm_tbuf_printf(&w->b, "\\\\\nseed & %llu\\\\\nbudget & %d%s\\\\\nprecision & %s\\\\\n",
                   (unsigned long long)R->meta.seed, R->meta.budget,
                   R->meta.quick ? " (quick)" : "", prec);
    P(w, "libraries & ");
    E(w, R->meta.versions);
    lm_tbuf_printf(&w->b, "\\\\\nrun & %lld, %s\\\\\n", R->id,
                   R->finished ? "finished" : "\\textcolor{vviolated}{\\textbf{unfinished}}");
    int nreused = 0;
    for (int k = 0; k < R->nclaims; k++) nreused += docs[k].c->reused_from > 0;
    lm_tbuf_printf(&w->b,
                   "claims & %d checked in this run, %d reused from earlier runs (unchanged claim "
                   "file, library sources and settings; \\texttt{make verify FORCE=1} re-runs "
                   "them)\\\\\n",
                   R->nclaims - nreused, nreused);
    if (isnan(R->seconds))
        lm_tbuf_printf(&w->b, "time & wall clock not recorded; %s s summed over the claims\\\\\n",
                       csecs);
    else
        lm_tbuf_printf(&w->b, "time & %s s wall clock; %s s summed over the claims\\\\\n",
                       secs, csecs);
    P(w, "database & \\texttt{");
    ETT(w, dbpath);
    P(w, "}\\\\\n\\end{longtable}}\n");

    if (!R->finished)
        P(w, "\\noindent\\fcolorbox{vviolated}{vviolated!5}{\\parbox{\\dimexpr\\linewidth-"
             "2\\fboxsep-2\\fboxrule}{\\textbf{This run is unfinished.} Only the claims saved "
             "so far are reported; run \\texttt{make verify} again with the same seed, "
             "budget and precision to resume it.}}\n\n");

    /* registry claims missing from this run */
    int nmiss = 0;
    for (int k = 0; k < lm_registry_count; k++) {
        const lm_claim *c = lm_registry[k];
        int found = 0;
        for (int j = 0; j < R->nclaims && !found; j++) found = !strcmp(docs[j].c->claim.id, c->id);
        if (found) continue;
        if (nmiss++ == 0) P(w, "{\\sloppy\\textbf{Claims of this build that are not in this run:} ");
        else P(w, ", ");
        P(w, "\\texttt{");
        ETT(w, c->id);
        P(w, "}");
    }
    if (nmiss) P(w, ".\\par}\n\n");

    P(w, "\\subsection*{Verdicts}\n{\\small\\setlength{\\tabcolsep}{3pt}\\begin{tabular}{@{}");
    for (int j = 0; j < LM_V_COUNT; j++) P(w, "c");
    P(w, "@{}}\n");
    for (int j = 0; j < LM_V_COUNT; j++) {
        if (j) P(w, " & ");
        verdict_tex(w, (lm_verdict)order[j]);
    }
    P(w, "\\\\\n");
    for (int j = 0; j < LM_V_COUNT; j++)
        lm_tbuf_printf(&w->b, "%s%s%ld%s", j ? " & " : "", counts[order[j]] ? "\\textbf{" : "",
                       counts[order[j]], counts[order[j]] ? "}" : "");
    P(w, "\\\\\n\\end{tabular}}\n\n");
    put_readings_count(w, docs, R->nclaims);
    put_strength_total(w, docs, R->nclaims);
}

/* measures named "flag: ..." with a positive value (vacuous guarantees, failed
 * hypotheses, domain exits), listed per configuration in the verdict box */
static void put_flags(writer *w, const lm_claim_result *r)
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
                    P(w, any ? "; " : "\\\\ \\textbf{Flags (worst instance):} ");
                    any = 1;
                    E(w, name);
                    if (v != 1.0) {
                        P(w, " = ");
                        E(w, val);
                    }
                    if (r->nconfig > 1) {
                        P(w, " [\\texttt{");
                        ETT(w, r->cfg[j].config);
                        P(w, "}]");
                    }
                }
            }
            p = nl ? nl + 1 : p + len;
        }
    }
}

/* "5/6" mutants killed, in colour when some survived; "--" when not measured */
static void put_strength_cell(writer *w, const lm_claim_result *r)
{
    if (r->mutants_run <= 0) {
        P(w, "--");
        return;
    }
    const char *col = r->mutants_killed == 0                ? "vviolated"
                      : r->mutants_killed < r->mutants_run ? "vartifact"
                                                            : NULL;
    if (col) lm_tbuf_printf(&w->b, "\\textcolor{%s}{\\textbf{%d/%d}}", col, r->mutants_killed, r->mutants_run);
    else lm_tbuf_printf(&w->b, "%d/%d", r->mutants_killed, r->mutants_run);
}

static void put_summary(writer *w, const doc *docs, int n)
{
    P(w, "\\Needspace{10\\baselineskip}\n\\section*{Summary}\n\\pdfbookmark[1]{Summary}{summary}\n"
         "{\\footnotesize\\setlength{\\tabcolsep}{3pt}\n"
         "\\begin{longtable}{@{}L{1.6cm}L{2.85cm}L{1.75cm}L{2.75cm}R{1.15cm}R{1.9cm}R{0.9cm}"
         "L{1.8cm}R{0.9cm}@{}}\n"
         "\\toprule paper & id & kind & verdict & mutants killed & worst ratio & inst. & "
         "precisions & s\\\\\\midrule\n\\endhead\n"
         "\\midrule\\multicolumn{9}{r}{\\emph{continued}}\\\\\n\\endfoot\n"
         "\\bottomrule\n\\endlastfoot\n");
    for (int k = 0; k < n; k++) {
        const doc *d = &docs[k];
        const lm_claim_result *r = &d->c->res;
        if (k && strcmp(d->paper, docs[k - 1].paper)) P(w, "\\midrule\n");
        if (!k || strcmp(d->paper, docs[k - 1].paper)) E(w, d->paper);
        const char *id = d->c->claim.id;
        const char *slash = strchr(id, '/');
        lm_tbuf_printf(&w->b, " & \\hyperref[claim:%d]{\\texttt{", k);
        ETT(w, slash ? slash + 1 : id);
        P(w, "}} & ");
        if (d->c->claim.kind < LM_KIND_COUNT) P(w, kind_short[d->c->claim.kind]);
        else E(w, d->c->kind_name ? d->c->kind_name : "?");
        P(w, " & ");
        verdict_tex(w, r->verdict);
        if (r->verdict == LM_V_VIOLATED && r->certified) P(w, "\\,{\\scriptsize(cert.)}");
        if (d->low_recon) P(w, "$^\\dagger$");
        if (d->recon_const) P(w, "$^{\\mathrm R}$");
        /* "false as printed; holds when repaired" at a glance */
        int rv = reading_verdict(r, LM_READ_REPAIRED, NULL);
        if (rv >= 0 && r->repaired_verdict >= 0) rv = r->repaired_verdict;
        if (rv >= 0) {
            P(w, "\\newline{\\scriptsize repaired: ");
            verdict_tex(w, (lm_verdict)rv);
            P(w, "}");
        }
        P(w, " & ");
        put_strength_cell(w, r);
        char ratio[80], secs[40];
        lm_tex_ratio(ratio, sizeof ratio, r->worst_ratio);
        lm_tex_seconds(secs, sizeof secs, r->seconds);
        lm_tbuf_printf(&w->b, " & %s & %ld & ", ratio, r->instances);
        put_precisions_short(w, r->precisions);
        lm_tbuf_printf(&w->b, " & %s\\\\\n", secs);
    }
    if (n == 0) P(w, "\\multicolumn{9}{l}{\\emph{no claims in this run}}\\\\\n");
    P(w, "\\end{longtable}}\n");
    int ndagger = 0;
    for (int k = 0; k < n; k++) ndagger += docs[k].low_recon;
    if (ndagger)
        P(w, "{\\footnotesize $^\\dagger$ statement reconstructed with low confidence: a "
             "violation may reflect our reading rather than the paper.\\par}\n");
    int nrecon = 0;
    for (int k = 0; k < n; k++) nrecon += docs[k].recon_const;
    if (nrecon)
        P(w, "{\\footnotesize $^{\\mathrm R}$ checked against a reconstructed (RECON) constant: "
             "the paper's printed constant was lost in extraction and the catalogue re-derived "
             "it along the paper's proof; each such constant is a named parameter, so "
             "\\texttt{lemmata check ID --set NAME=VALUE} re-checks the paper's own.\\par}\n");
}

/* Where it broke: every configuration whose verdict is not a pass, so a
 * reviewer sees at a glance which reading, mode or step size failed. */
/* One line per violated claim: its smallest counterexample and whether it is certified. */
static void put_counterexamples(writer *w, const doc *docs, int n)
{
    int any = 0;
    for (int k = 0; k < n; k++) {
        const lm_claim_result *r = &docs[k].c->res;
        if (r->verdict != LM_V_VIOLATED) continue;
        const lm_config_result *g = NULL;
        for (int j = 0; j < r->nconfig; j++)
            if (r->cfg[j].shrunk[0] && (!g || counts_for_verdict(r, j))) g = &r->cfg[j];
        if (!any++)
            P(w, "\\Needspace{8\\baselineskip}\\section*{Counterexamples}\\pdfbookmark[1]{Counterexamples}{counterexamples}\n"
                 "For every violated claim, the break of its worst violated configuration shrunk to the "
                 "smallest instance found (sizes bisected and random draws cut to few significant bits "
                 "while the break survives in MPFR); the claim's section prints the instance's data and a "
                 "command that reproduces it.  \\emph{certified}: re-evaluated in ball arithmetic, the "
                 "left side's ball lies wholly above the right side's.\n\n"
                 "{\\footnotesize\\setlength{\\tabcolsep}{3pt}\n"
                 "\\begin{longtable}{@{}L{3.0cm}L{3.2cm}L{7.6cm}L{1.9cm}@{}}\n"
                 "\\toprule claim & configuration & smallest counterexample & certified\\\\\\midrule\n\\endhead\n"
                 "\\bottomrule\n\\endlastfoot\n");
        lm_tbuf_printf(&w->b, "\\hyperref[claim:%d]{\\texttt{", k);
        ETT(w, docs[k].c->claim.id);
        P(w, "}} & ");
        if (g) {
            P(w, "\\texttt{");
            ETT(w, g->config);
            P(w, "} & ");
            /* the description up to "; worst:" (the worst observation is in the claim's section) */
            const char *cut = strstr(g->shrunk, "; worst:");
            size_t len = cut ? (size_t)(cut - g->shrunk) : strlen(g->shrunk);
            char *d = malloc(len + 1);
            if (d) {
                memcpy(d, g->shrunk, len);
                d[len] = 0;
                E(w, d);
                free(d);
            }
        } else P(w, "-- & \\emph{not shrunk (shrinking off, or the break could not be re-run)}");
        int cert = 0, bits = 0;
        for (int j = 0; j < r->nconfig; j++)
            if (r->cfg[j].certified) { cert = 1; bits = r->cfg[j].cert_prec; }
        if (cert) lm_tbuf_printf(&w->b, " & yes (%d bits)\\\\\n", bits);
        else P(w, " & no\\\\\n");
    }
    if (any) P(w, "\\end{longtable}}\n");
}

static void put_findings(writer *w, const doc *docs, int n)
{
    int any = 0;
    for (int k = 0; k < n; k++)
        for (int j = 0; j < docs[k].c->res.nconfig; j++) {
            lm_verdict v = docs[k].c->res.cfg[j].verdict;
            if (v == LM_V_HOLDS || v == LM_V_CONSISTENT) continue;
            if (!any) {
                P(w, "\\Needspace{8\\baselineskip}\\section*{Where it broke}\\pdfbookmark[1]{Where it broke}{findings}\n"
                     "Every configuration whose verdict is not a pass (the claim's verdict is the worst of its "
                     "configurations that read the statement as printed; the others passed).  Repaired "
                     "readings and probes beyond the hypotheses are marked: they do not count for the "
                     "claim's verdict.\n\n"
                     "{\\footnotesize\\setlength{\\tabcolsep}{3pt}\n"
                     "\\begin{longtable}{@{}L{3.3cm}L{6.6cm}L{2.6cm}R{2.0cm}R{1.1cm}@{}}\n"
                     "\\toprule claim & configuration & verdict & worst ratio & inst.\\\\\\midrule\n\\endhead\n"
                     "\\bottomrule\n\\endlastfoot\n");
                any = 1;
            }
            const lm_config_result *c = &docs[k].c->res.cfg[j];
            lm_tbuf_printf(&w->b, "\\hyperref[claim:%d]{\\texttt{", k);
            const char *id = docs[k].c->claim.id, *slash = strchr(id, '/');
            ETT(w, slash ? slash + 1 : id);
            P(w, "}} & \\texttt{");
            ETT(w, c->config);
            P(w, "}");
            if (c->reading != LM_READ_PAPER) {
                P(w, " {\\scriptsize(\\emph{");
                P(w, reading_word(c->reading));
                P(w, "})}");
            }
            P(w, " & ");
            verdict_tex(w, v);
            char ratio[80];
            lm_tex_ratio(ratio, sizeof ratio, c->worst_ratio);
            lm_tbuf_printf(&w->b, " & %s & %ld\\\\\n", ratio, c->instances);
        }
    if (any) P(w, "\\end{longtable}}\n");
}

/* ---- one claim --------------------------------------------------------------------- */

/* The shrunk counterexample of a violated configuration: what it is, one command, and its
 * data (exact binary numbers in their shortest decimal form) for checking by hand. */
static void put_shrunk(writer *w, const lm_config_result *g)
{
    P(w, "\\par\\smallskip\\noindent{\\small\\raggedright\\textbf{Smallest counterexample found} (\\texttt{");
    ETT(w, g->config);
    P(w, "}): ");
    E(w, g->shrunk);
    if (g->shrink_evals) lm_tbuf_printf(&w->b, " (%d evaluations)", g->shrink_evals);
    P(w, ".");
    if (g->shrunk_reproduce[0]) {
        P(w, " Reproduce:\\\\\n\\hspace*{1em}\\texttt{\\footnotesize ");
        ETT(w, g->shrunk_reproduce);
        P(w, "}");
    }
    P(w, "\\par}\n"); /* the paragraph ends inside the group: ragged right */
    if (!g->shrunk_data || !g->shrunk_data[0]) {
        P(w, "\\par\\noindent{\\small\\emph{The check records no data for its instances.}}\n");
        return;
    }
    /* ragged right: \texttt spaces do not stretch, so justified rows of numbers overflow */
    P(w, "\\par\\noindent{\\scriptsize\\raggedright Its data (exact values; each matrix row by row, rows "
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
        P(w, "\\noindent\\texttt{");
        ETT(w, head);
        lm_tbuf_printf(&w->b, "} ($%d\\times%d$) = \\texttt{", rr, cc);
        p = nl + 1;
        for (int i = 0; i < rr && *p; i++) {
            nl = strchr(p, '\n');
            size_t len = nl ? (size_t)(nl - p) : strlen(p);
            char *row = malloc(len + 1);
            if (!row) break;
            memcpy(row, p, len);
            row[len] = 0;
            if (i) P(w, " ; ");
            E(w, row);
            shown += len;
            free(row);
            p = nl ? nl + 1 : p + len;
        }
        P(w, "}\\par\n");
    }
    if (*p) P(w, "\\noindent\\emph{(the rest of the data is in the database and in "
                 "\\texttt{lemmata check --json})}\\par\n");
    P(w, "}\n");
}

static void put_configs(writer *w, const lm_claim_result *r)
{
    /* the reading of each row is shown when the claim has repaired or probe
     * configurations (or a note on the paper's), with its note on a row of its own */
    int readings = has_readings(r);
    for (int k = 0; k < r->nconfig && !readings; k++) readings = r->cfg[k].reading_note[0] != 0;
    P(w, "{\\footnotesize\\setlength{\\tabcolsep}{3pt}\n"
         "\\begin{longtable}{@{}L{2.35cm}L{2.7cm}R{0.9cm}R{1.9cm}R{1.5cm}R{0.8cm}R{1.9cm}"
         "R{0.9cm}L{1.5cm}R{0.9cm}@{}}\n"
         "\\toprule config & verdict & inst. & worst ratio & assum. failed / vacuous & errors & "
         "breaks double / confirmed MPFR / artifacts & near misses & precisions & s\\\\"
         "\\midrule\n\\endhead\n\\bottomrule\n\\endlastfoot\n");
    for (int k = 0; k < r->nconfig; k++) {
        const lm_config_result *g = &r->cfg[k];
        char ratio[80], secs[40];
        lm_tex_ratio(ratio, sizeof ratio, g->worst_ratio);
        lm_tex_seconds(secs, sizeof secs, g->seconds);
        P(w, "\\texttt{");
        ETT(w, g->config);
        P(w, "}");
        if (readings) {
            P(w, "\\newline{\\scriptsize\\emph{");
            P(w, reading_word(g->reading));
            P(w, "}}");
        }
        P(w, " & ");
        verdict_tex(w, g->verdict);
        lm_tbuf_printf(&w->b, " & %ld & %s & %ld / %ld & %ld & %ld / %ld / %ld & %ld & ",
                       g->instances, ratio, g->assumption_failed, g->vacuous, g->errors,
                       g->breaks_double, g->confirmed, g->artifacts, g->near_misses);
        put_precisions(w, g->precisions);
        lm_tbuf_printf(&w->b, " & %s", secs);
        if (readings && g->reading_note[0]) {
            /* the note under the row, the table's whole width, kept with it */
            P(w, "\\\\*\n\\multicolumn{10}{@{}L{16.9cm}@{}}{\\hspace*{1em}{\\scriptsize\\emph{");
            P(w, reading_word(g->reading));
            P(w, g->reading == LM_READ_PROBE ? "}: " : " reading}: ");
            E(w, g->reading_note);
            P(w, "}}");
        }
        P(w, readings && k + 1 < r->nconfig ? "\\\\\\addlinespace[3pt]\n" : "\\\\\n");
    }
    if (r->nconfig == 0) P(w, "\\multicolumn{10}{l}{\\emph{no configuration was recorded}}\\\\\n");
    P(w, "\\end{longtable}}\n");

    /* where the worst observation was, and reasons */
    int any = 0;
    for (int k = 0; k < r->nconfig; k++) {
        const lm_config_result *g = &r->cfg[k];
        if (!g->worst_where[0] && !g->detail[0]) continue;
        if (!any++) P(w, "{\\small\\begin{itemize}\\setlength{\\itemsep}{1pt}\n");
        P(w, "\\item \\texttt{");
        ETT(w, g->config);
        P(w, "}: ");
        if (g->worst_where[0]) {
            P(w, "worst at ``");
            E(w, g->worst_where);
            P(w, "''");
            if (g->worst_index >= 0) lm_tbuf_printf(&w->b, " (instance %d)", g->worst_index);
            if (g->observations) lm_tbuf_printf(&w->b, "; %ld inequalities compared", g->observations);
            P(w, ". ");
        }
        if (g->detail[0]) {
            P(w, "\\emph{");
            E(w, g->detail);
            P(w, "}");
        }
        if (g->escalation[0]) {
            P(w, " Near misses: ");
            E(w, g->escalation);
            P(w, ".");
        }
        P(w, "\n");
    }
    if (any) P(w, "\\end{itemize}}\n");
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
static void put_measures(writer *w, const lm_claim_result *r)
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
    P(w, "\\lmpar{Measured quantities} (worst instance of each configuration)\n");
    for (int c0 = 0; c0 < r->nconfig; c0 += PER) {
        int nc = r->nconfig - c0 < PER ? r->nconfig - c0 : PER;
        P(w, "{\\footnotesize\\begin{longtable}{@{}L{4.6cm}");
        for (int j = 0; j < nc; j++) P(w, "R{2.7cm}");
        P(w, "@{}}\n\\toprule quantity");
        for (int j = 0; j < nc; j++) {
            P(w, " & \\texttt{");
            ETT(w, r->cfg[c0 + j].config);
            P(w, "}");
        }
        P(w, "\\\\\\midrule\n\\endhead\n");
        for (int i = 0; i < nn; i++) {
            E(w, names[i]);
            for (int j = 0; j < nc; j++) {
                P(w, " & ");
                size_t vl = 0;
                const char *v =
                    measure_value(r->cfg[c0 + j].measures, names[i], strlen(names[i]), &vl);
                if (!v) {
                    P(w, "--");
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
                    P(w, num);
                } else
                    E(w, val);
            }
            P(w, "\\\\\n");
        }
        P(w, "\\bottomrule\n\\end{longtable}}\n");
    }
    for (int i = 0; i < nn; i++) free(names[i]);
}

static void put_params(writer *w, const char *params)
{
    if (!params || !*params) return;
    P(w, "\\lmpar{Named constants} (replace with \\texttt{--set name=value})\n"
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
        P(w, "\\texttt{");
        ETT(w, f[0]);
        P(w, "} & ");
        if (*f[2]) {
            /* a switch: the default is an index into "a|b|c" */
            int idx = atoi(f[1]), j = 0;
            const char *p = f[2];
            while (j < idx && (p = strchr(p, '|')) != NULL) {
                p++;
                j++;
            }
            P(w, "\\texttt{");
            if (p) {
                char ch[64];
                snprintf(ch, sizeof ch, "%.*s", (int)strcspn(p, "|"), p);
                ETT(w, ch);
            } else
                ETT(w, f[1]);
            P(w, "}");
        } else {
            char *end;
            double x = strtod(f[1], &end);
            char num[80];
            if (end != f[1]) {
                snprintf(num, sizeof num, "%.6g", x);
                E(w, num);
            } else
                E(w, f[1]);
        }
        P(w, " & ");
        E(w, f[3]);
        if (*f[2]) {
            P(w, " (one of \\texttt{");
            ETT(w, f[2]);
            P(w, "})");
        }
        P(w, "\\\\\n");
    }
    free(copy);
    P(w, "\\bottomrule\n\\end{longtable}}\n");
}

/* shell commands, one a line, breakable */
static void put_commands(writer *w, const char *const *cmd, int n)
{
    P(w, "\\begin{flushleft}\\footnotesize\\ttfamily\n");
    for (int k = 0; k < n; k++) {
        P(w, "\\$ ");
        ETT(w, cmd[k]);
        P(w, k + 1 < n ? "\\\\[2pt]\n" : "\n");
    }
    P(w, "\\end{flushleft}\n");
}

/* under the verdict: "As printed: violated; repaired (coefficient eta/2): holds; probes:
 * violated" -- repaired readings one by one (by note), probes together */
static void put_readings(writer *w, const lm_claim_result *r)
{
    if (!has_readings(r)) return;
    int paper = 0, ngroups = 0;
    for (int j = 0; j < r->nconfig; j++) paper |= r->cfg[j].reading == LM_READ_PAPER;
    for (int j = 0; j < r->nconfig; j++) {
        if (r->cfg[j].reading != LM_READ_REPAIRED) continue;
        int first = 1;
        for (int i = 0; i < j && first; i++)
            first = !(r->cfg[i].reading == LM_READ_REPAIRED &&
                      !strcmp(r->cfg[i].reading_note, r->cfg[j].reading_note));
        ngroups += first;
    }
    P(w, "\\\\ \\textbf{As printed:} ");
    if (paper) verdict_tex(w, r->verdict);
    else P(w, "\\emph{not run}");
    for (int j = 0; j < r->nconfig; j++) {
        const lm_config_result *g = &r->cfg[j];
        if (g->reading != LM_READ_REPAIRED) continue;
        int first = 1;
        for (int i = 0; i < j && first; i++)
            first = !(r->cfg[i].reading == LM_READ_REPAIRED && !strcmp(r->cfg[i].reading_note, g->reading_note));
        if (!first) continue;
        int v = reading_verdict(r, LM_READ_REPAIRED, g->reading_note);
        if (ngroups == 1 && r->repaired_verdict >= 0) v = r->repaired_verdict; /* as stored */
        P(w, "; \\textbf{repaired}");
        if (g->reading_note[0]) {
            P(w, " (");
            E(w, g->reading_note);
            P(w, ")");
        }
        P(w, ": ");
        verdict_tex(w, (lm_verdict)v);
    }
    int np = 0;
    for (int j = 0; j < r->nconfig; j++) np += r->cfg[j].reading == LM_READ_PROBE;
    if (np) {
        int v = r->probe_verdict >= 0 ? r->probe_verdict : reading_verdict(r, LM_READ_PROBE, NULL);
        P(w, np == 1 ? "; \\textbf{probe}: " : "; \\textbf{probes}: ");
        verdict_tex(w, (lm_verdict)v);
    }
}

/* the standard mutants that survived the check, when some did */
static void put_strength_line(writer *w, const lm_claim_result *r)
{
    if (r->mutants_run <= 0 || r->mutants_killed >= r->mutants_run) return;
    lm_tbuf_printf(&w->b, "\\\\ \\textbf{Check strength %d/%d:} ", r->mutants_killed, r->mutants_run);
    if (r->mutants_note[0]) {
        E(w, r->mutants_note);
        size_t l = strlen(r->mutants_note);
        if (r->mutants_note[l - 1] != '.') P(w, ".");
    } else {
        int n = r->mutants_run - r->mutants_killed;
        lm_tbuf_printf(&w->b, "%d standard mutant%s survived.", n, n == 1 ? "" : "s");
    }
    if (r->mutants_killed == 0) P(w, " \\textcolor{vviolated}{This check killed no mutant: it cannot fail.}");
}

/* Before a paper's first claim: its title, authors, venue and the paragraph its paper.c
 * declares (lm_paper.h); nothing when the build has no such paper (a database from another
 * build) */
static void put_paper(writer *w, const doc *docs, int n, int k)
{
    const lm_paper *p = lm_paper_find(docs[k].paper);
    if (!p) return;
    int nc = 0;
    for (int j = k; j < n && !strcmp(docs[j].paper, docs[k].paper); j++) nc++;
    P(w, "\\Needspace{16\\baselineskip}\\bigskip\\noindent{\\Large\\bfseries ");
    E(w, p->title ? p->title : p->id);
    P(w, "}\\par\\smallskip\\noindent{\\small ");
    if (p->authors && *p->authors) {
        E(w, p->authors);
        P(w, " \\textperiodcentered{} ");
    }
    if (p->venue && *p->venue) {
        E(w, p->venue);
        P(w, " \\textperiodcentered{} ");
    }
    lm_tbuf_printf(&w->b, "%d claim%s, ids \\texttt{", nc, nc == 1 ? "" : "s");
    ETT(w, p->id);
    P(w, "/}, folder \\texttt{lemmas/");
    ETT(w, p->id);
    P(w, "/}}\\par\\smallskip\\noindent ");
    if (p->about && *p->about) P(w, p->about);
    P(w, "\\par\\medskip\n");
}

static void put_claim(writer *w, const doc *d, int k)
{
    const lm_claim *c = &d->c->claim;
    const lm_claim_result *r = &d->c->res;
    int wc = worst_config(r);

    P(w, "\\Needspace{12\\baselineskip}\n\\section{");
    put_title(w, d, k, 1);
    lm_tbuf_printf(&w->b, "}\\label{claim:%d}\n", k);

    P(w, "{\\small\\begin{longtable}{@{}L{2.9cm}L{14.0cm}@{}}\nclaim & \\texttt{");
    ETT(w, c->id);
    P(w, "}\\\\\nsource & ");
    if (d->L.source.text && lm_tex_is_latex(d->L.source.text))
        put_block(w, k, "\\source block", &d->L.source);
    else if (d->L.source.text)
        E(w, d->L.source.text);
    else
        E(w, c->source && *c->source ? c->source : "--");
    P(w, "\\\\\nstatement & ");
    E(w, c->origin && *c->origin ? c->origin : "origin not recorded");
    if (c->confidence && *c->confidence) {
        P(w, ", confidence ");
        E(w, c->confidence);
    }
    if (d->low_recon) P(w, " $^\\dagger$");
    P(w, "\\\\\nkind & ");
    E(w, d->c->kind_name ? d->c->kind_name : "?");
    if (c->proxy) P(w, " (only a falsifiable proxy is tested)");
    P(w, "\\\\\nfile & \\texttt{");
    ETT(w, d->file[0] ? d->file : "unknown");
    P(w, "}\\\\\n\\end{longtable}}\n");

    /* the verdict */
    const char *col = vcolor[r->verdict >= 0 && r->verdict < LM_V_COUNT ? r->verdict : LM_V_ERROR];
    char ratio[80], secs[40];
    lm_tex_ratio(ratio, sizeof ratio, r->worst_ratio);
    lm_tex_seconds(secs, sizeof secs, r->seconds);
    lm_tbuf_printf(&w->b,
                   "\\noindent\\fcolorbox{%s}{%s!5}{\\parbox{\\dimexpr\\linewidth-2\\fboxsep-"
                   "2\\fboxrule}{\\textbf{Verdict:} ",
                   col, col);
    verdict_tex(w, r->verdict);
    if (r->verdict == LM_V_VIOLATED && r->certified) P(w, " \\textbf{(certified)}");
    if (isnan(r->worst_ratio))
        P(w, " \\quad no LHS/RHS ratio was recorded");
    else
        lm_tbuf_printf(&w->b, " \\quad worst ratio LHS/RHS = \\textbf{%s}", ratio);
    if (wc >= 0 && r->nconfig > 1) {
        P(w, " in configuration \\texttt{");
        ETT(w, r->cfg[wc].config);
        P(w, "}");
    }
    if (wc >= 0 && r->cfg[wc].worst_where[0]) {
        P(w, ", at ``");
        E(w, r->cfg[wc].worst_where);
        P(w, "''");
    }
    P(w, ".");
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
        if (g->verdict != r->verdict || !g->detail[0] || !counts_for_verdict(r, j) ||
            (r->verdict != LM_V_ERROR && r->verdict != LM_V_ASSUMPTION_FAILED &&
             r->verdict != LM_V_NOT_CHECKABLE && r->verdict != LM_V_VACUOUS))
            continue;
        P(w, "\\\\ \\textbf{Reason");
        if (r->nconfig > 1) {
            P(w, " (\\texttt{");
            ETT(w, g->config);
            P(w, "})");
        }
        P(w, ":} ");
        E(w, g->detail);
        break;
    }
    if (d->recon_const) {
        P(w, "\\\\ \\textbf{Checked against a reconstructed constant} (");
        E(w, c->origin);
        P(w, "): the verdict is about the catalogue's re-derived constant; enter the paper's "
             "printed one with \\texttt{--set}.");
    }
    put_strength_line(w, r);
    put_flags(w, r);
    if (r->verdict == LM_V_VIOLATED)
        for (int j = 0; j < r->nconfig; j++) {
            const lm_config_result *g = &r->cfg[j];
            if (g->verdict != LM_V_VIOLATED || !g->detail[0]) continue;
            P(w, "\\\\ \\textbf{Certification");
            if (r->nconfig > 1) {
                P(w, " (\\texttt{");
                ETT(w, g->config);
                P(w, "})");
            }
            P(w, ":} ");
            E(w, g->detail);
        }
    int bad = r->verdict == LM_V_VIOLATED || r->verdict == LM_V_INCONSISTENT;
    if (bad && d->low_recon)
        P(w, "\\\\[3pt]\\fcolorbox{vartifact}{vartifact!12}{\\parbox{\\dimexpr\\linewidth-"
             "2\\fboxsep-2\\fboxrule}{\\textbf{Caution: low-confidence reconstruction.} "
             "This statement is our reconstruction, not the paper's wording, and the "
             "catalogue rates it low confidence: the violation may reflect our reading "
             "rather than the paper. Check the named constants below against the paper.}}");
    else if (bad && d->med_recon)
        P(w, "\\\\[2pt]\\emph{Note: the statement is reconstructed (medium confidence); "
             "compare it with the paper before citing the violation.}");
    P(w, "}}\n\n");

    /* the literate text */
    if (d->outside) {
        P(w, "\\textcolor{verror}{\\textbf{Claim file unavailable:}} \\texttt{");
        ETT(w, d->file);
        P(w, "} is not a regular file under \\texttt{lemmas/} or \\texttt{src/} of the source "
             "tree; its statement and code are not shown.\n\n");
    } else if (!d->file_ok)
        lm_tbuf_printf(&w->b, "\\textcolor{verror}{\\textbf{The claim file could not be read}}"
                              "; statement and code are missing.\n\n");
    if (d->L.statement.text) {
        P(w, "\\begin{lmblock}{Statement.}\n");
        put_block(w, k, "\\statement block", &d->L.statement);
        P(w, "\\end{lmblock}\n");
    } else if (d->file_ok)
        P(w, "\\emph{(The claim file has no \\textbackslash statement block.)}\n\n");
    if (d->L.check.text) {
        P(w, "\\begin{lmblock}{How it is checked.}\n");
        put_block(w, k, "\\check block", &d->L.check);
        P(w, "\\end{lmblock}\n");
    }
    if (d->L.note.text) {
        P(w, "\\begin{lmblock}{Note.}\n");
        put_block(w, k, "\\note block", &d->L.note);
        P(w, "\\end{lmblock}\n");
    }

    P(w, "\\Needspace{11\\baselineskip}\\paragraph{Configurations}\n");
    put_configs(w, r);
    put_measures(w, r);
    put_params(w, d->c->params);

    /* figures, two to a row */
    if (d->nfig) {
        P(w, "\\Needspace{0.33\\textheight}\\paragraph{Figures}\n\\begin{center}\n");
        for (int j = 0; j < d->nfig; j++) {
            P(w, "\\begin{minipage}[t]{0.49\\linewidth}\\centering\n"
                 "\\includegraphics[width=\\linewidth]{");
            P(w, d->fig[j].path); /* sanitized: letters, digits, '-' and '/' */
            P(w, ".pdf}\n\\captionof{figure}{");
            P(w, d->fig[j].caption);
            P(w, "}\n\\end{minipage}");
            P(w, j % 2 == 0 && j + 1 < d->nfig ? "\\hfill\n" : "\n\n\\medskip\n");
        }
        P(w, "\\end{center}\n");
    }

    /* reproduce */
    P(w, "\\lmpar{Reproduce}");
    if (r->reproduce[0]) {
        P(w, " the worst instance:\n");
        const char *one[1] = {r->reproduce};
        put_commands(w, one, 1);
    } else
        P(w, " \\emph{no instance was recorded to reproduce.}\n\n");
    const char **others = calloc((size_t)(r->nconfig ? r->nconfig : 1), sizeof *others);
    int nothers = 0;
    for (int j = 0; others && j < r->nconfig; j++)
        if (r->cfg[j].reproduce[0] && strcmp(r->cfg[j].reproduce, r->reproduce))
            others[nothers++] = r->cfg[j].reproduce;
    if (nothers) {
        P(w, "The worst instance of each other configuration:\n");
        put_commands(w, others, nothers);
    }
    free(others);

    /* code */
    if (d->code[0]) {
        int first = d->L.code_line, last = d->L.nlines;
        if (first > last) first = 1;
        int cut = last - first + 1 > CODE_MAX_LINES;
        if (cut) last = first + CODE_MAX_LINES - 1;
        P(w, "\\lmpar{Code} \\texttt{");
        ETT(w, d->file);
        lm_tbuf_printf(&w->b, "}, lines %d--%d%s\n", first, last,
                       cut ? " (truncated; see the file)" : "");
        at_line_start(w);
        long line = w->b.lines + 1;
        if (lm_tex_code_file(&w->b, d->code, first, last))
            P(w, "\\emph{the file could not be read again.}\n");
        add_span(w, k, "code listing", line, w->b.lines, 0);
    }
}

/* ---- build ------------------------------------------------------------------------ */

/* The live training runs of every paper, each introduced by its paper's live_about
 * (lm_paper.h) and drawn from the figure series it returned.  first[k],
 * count[k]: the figures of live run k in fig[]. */
static void put_live(writer *w, const lm_results *R, const lm_figure *fig, const int *first,
                     const int *count)
{
    if (R->nlive == 0) return;
    P(w, "\\clearpage\n\\section{Live training runs}\n"
         "Each named run can be repeated with \\texttt{bin/lemmata train NAME} (add "
         "\\texttt{--drift 256} to repeat it wholly in MPFR).");
    /* what each paper with a live run here says about its runs (lm_paper.live_about) */
    for (int p = 0; p < lm_paper_count; p++) {
        int here = 0;
        for (int k = 0; k < R->nlive && !here; k++)
            here = R->live[k].name && lm_paper_of_live(R->live[k].name, NULL) == lm_papers[p];
        if (here && lm_papers[p]->live_about) {
            P(w, "  ");
            P(w, lm_papers[p]->live_about);
        }
    }
    P(w, "\n\n");
    for (int k = 0; k < R->nlive; k++) {
        const lm_results_live *l = &R->live[k];
        P(w, "\\subsection*{");
        ETT(w, l->name ? l->name : "?");
        P(w, "}\n");
        E(w, l->doc ? l->doc : "");
        char buf[96];
        if (l->prec > 53)
            snprintf(buf, sizeof buf, " (%d iterates, MPFR at %d bits). ", l->steps, l->prec);
        else
            snprintf(buf, sizeof buf, " (%d iterates, IEEE double). ", l->steps);
        E(w, buf);
        E(w, l->summary ? l->summary : "");
        char sec[32];
        lm_tex_seconds(sec, sizeof sec, l->seconds);
        P(w, " (");
        P(w, sec);
        P(w, "~s.)\n\n");
        int n = count[k];
        if (n == 1) {
            P(w, "\\begin{center}\\includegraphics[width=0.62\\linewidth]{");
            P(w, fig[first[k]].path);
            P(w, ".pdf}");
            if (fig[first[k]].caption[0]) {
                P(w, "\\\\[2pt]\n\\begin{minipage}{0.8\\linewidth}\\footnotesize ");
                P(w, fig[first[k]].caption);
                P(w, "\\end{minipage}");
            }
            P(w, "\\end{center}\n");
        } else {
            for (int j = 0; j < n; j++) {
                const lm_figure *g = &fig[first[k] + j];
                if (j % 2 == 0) P(w, "\\par\\noindent");
                P(w, "\\begin{minipage}[t]{0.49\\linewidth}\\centering\\includegraphics[width="
                     "\\linewidth]{");
                P(w, g->path);
                P(w, ".pdf}\\\\[2pt]\n\\begin{minipage}{0.95\\linewidth}\\footnotesize ");
                P(w, g->caption);
                P(w, "\\end{minipage}\\end{minipage}");
                P(w, j % 2 == 0 && j + 1 < n ? "\\hfill\n" : "\\par\\medskip\n");
            }
        }
    }
}

/* ---- files ------------------------------------------------------------------------ */

/* mkdir -p */
static int mkdirs(const char *path, char *err, int errlen)
{
    char p[1024];
    if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p) {
        snprintf(err, (size_t)errlen, "path too long: %.200s", path);
        return -1;
    }
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s) continue;
        char c = *s;
        *s = 0;
        if (mkdir(p, 0777) && errno != EEXIST) {
            snprintf(err, (size_t)errlen, "cannot create %s: %s", p, strerror(errno));
            return -1;
        }
        *s = c;
        if (!c) break;
    }
    struct stat sb;
    if (stat(p, &sb) || !S_ISDIR(sb.st_mode)) {
        snprintf(err, (size_t)errlen, "cannot create %s: not a directory", p);
        return -1;
    }
    return 0;
}

int lm_write_atomic(const char *path, const char *text, size_t n, char *err, int errlen)
{
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, (size_t)errlen, "cannot write %s: %s", tmp, strerror(errno));
        return -1;
    }
    int bad = fwrite(text, 1, n, f) != n;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path)) {
        snprintf(err, (size_t)errlen, "cannot write %s", path);
        remove(tmp);
        return -1;
    }
    return 0;
}

int lm_pdf_complete(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char head[5], tail[64];
    int ok = fread(head, 1, 5, f) == 5 && !memcmp(head, "%PDF-", 5);
    if (ok && fseek(f, 0, SEEK_END) == 0) {
        long size = ftell(f);
        long from = size > (long)sizeof tail ? size - (long)sizeof tail : 0;
        size_t got = 0;
        if (size < 0 || fseek(f, from, SEEK_SET) ||
            (got = fread(tail, 1, sizeof tail - 1, f)) == 0)
            ok = 0;
        else {
            /* "%%EOF" and at most end-of-line blanks after it */
            tail[got] = 0;
            size_t e = got;
            while (e > 0 && (tail[e - 1] == '\n' || tail[e - 1] == '\r' || tail[e - 1] == ' '))
                e--;
            ok = e >= 5 && !memcmp(tail + e - 5, "%%EOF", 5);
        }
    } else
        ok = 0;
    fclose(f);
    return ok;
}

static int copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb");
    if (!in) return -1;
    FILE *out = fopen(to, "wb");
    if (!out) {
        fclose(in);
        return -1;
    }
    char buf[1 << 15];
    size_t got;
    int bad = 0;
    while ((got = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, got, out) != got) bad = 1;
    bad |= ferror(in) != 0;
    fclose(in);
    bad |= fclose(out) != 0;
    if (bad) remove(to);
    return bad ? -1 : 0;
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* rm -rf of a directory we made (never follows symbolic links) */
static void rm_tree(const char *dir)
{
    nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int is_dir(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* ---- the source tree ------------------------------------------------------------------ */

const char *lm_report_source_tree(const char *root)
{
    char p[1024];
    if (!root || !*root) root = ".";
    lm_report_path(p, sizeof p, root, "lemmas");
    if (is_dir(p)) return root;
    if (is_dir("lemmas")) return ".";
    return NULL;
}

int lm_report_source_file(char *out, size_t n, const char *src, const char *rel)
{
    if (n) out[0] = 0;
    if (!src || !rel || !*rel || !n) return -1;
    char joined[PATH_MAX], real[PATH_MAX];
    if (strlen(src) + strlen(rel) + 8 > sizeof joined) return -1; /* never a cut path */
    lm_report_path(joined, sizeof joined, src, rel);
    if (!realpath(joined, real)) return -1;
    struct stat sb;
    if (stat(real, &sb) || !S_ISREG(sb.st_mode)) return -1;
    /* under the real lemmas/ or src/ of the tree (either may itself be a link) */
    static const char *const trees[] = {"lemmas", "src"};
    for (size_t k = 0; k < sizeof trees / sizeof trees[0]; k++) {
        char dir[PATH_MAX], base[PATH_MAX];
        lm_report_path(dir, sizeof dir, src, trees[k]);
        if (!realpath(dir, base)) continue;
        size_t bl = strlen(base);
        if (!strncmp(real, base, bl) && real[bl] == '/' && real[bl + 1]) {
            if (strlen(real) >= n) return -1;
            snprintf(out, n, "%s", real);
            return 0;
        }
    }
    return -1;
}

/* ---- pdflatex ----------------------------------------------------------------------- */

/* The TeX log's first error, traced to a claim file when it falls in a block.
 * log: the log to read; shown: its name in the message. */
static void latex_error(const char *log, const char *shown, const writer *w, const doc *docs,
                        char *err, int errlen)
{
    char line[1024], msg[512] = "";
    FILE *f = fopen(log, "r");
    if (!f) {
        snprintf(err, (size_t)errlen, "pdflatex failed (see report/pdflatex.log)");
        return;
    }
    long texline = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (!msg[0] && line[0] == '!' && line[1] == ' ') {
            snprintf(msg, sizeof msg, "%.500s", line + 2);
            continue;
        }
        if (msg[0] && line[0] == 'l' && line[1] == '.' && line[2] >= '0' && line[2] <= '9') {
            texline = atol(line + 2);
            break;
        }
    }
    fclose(f);
    if (!msg[0]) {
        snprintf(err, (size_t)errlen, "LaTeX failed without an error message (see %s)", shown);
        return;
    }
    /* "... on input line 123" points at the opening of an unclosed construct */
    const char *oil = strstr(msg, "on input line ");
    if (oil) texline = atol(oil + 14);
    const char *sty = strstr(msg, "File `");
    if (sty && strstr(msg, "not found")) {
        snprintf(err, (size_t)errlen,
                 "LaTeX %s (apt-get install texlive-latex-recommended texlive-latex-extra)",
                 msg);
        return;
    }
    for (int k = 0; k < w->nsp; k++) {
        const span *s = &w->sp[k];
        if (texline < s->first || texline > s->last) continue;
        const doc *d = &docs[s->claim];
        if (s->src_line > 0)
            snprintf(err, (size_t)errlen, "%s:%ld: LaTeX error in the %s of %s: %s",
                     d->file[0] ? d->file : d->c->claim.id, s->src_line + (texline - s->first),
                     s->what, d->c->claim.id, msg);
        else
            snprintf(err, (size_t)errlen, "LaTeX error in the %s of %s (%s): %s", s->what,
                     d->c->claim.id, d->file, msg);
        return;
    }
    snprintf(err, (size_t)errlen, "LaTeX error at report/lemmata.tex:%ld: %s (see %s)", texline,
             msg, shown);
}

/* The files LaTeX reads back on the next pass.  Only a finished weave's are
 * reused: they are renamed into report/ after the PDF, and then
 * report/lemmata-build.state, written last, records their hash. */
static const char *const aux_ext[] = {".aux", ".toc", ".out"};
#define NAUX (sizeof aux_ext / sizeof aux_ext[0])
#define STATE_FMT "lemmata aux state %016llx\n"

/* hash of the auxiliary files in dir (a missing one still moves the hash, so
 * missing and empty differ from present) */
static unsigned long long aux_hash(const char *dir)
{
    unsigned long long h = LM_FNV_INIT;
    for (size_t k = 0; k < NAUX; k++) {
        char path[1100];
        snprintf(path, sizeof path, "%s/" JOB "%s", dir, aux_ext[k]);
        h = (h ^ (unsigned long long)(k + 1)) * 1099511628211ULL;
        unsigned long long hk = lm_fnv_file(path, h);
        if (hk) h = hk;
    }
    return h;
}

/* copies the finished weave's auxiliary files from rdir into wdir; nothing
 * when their state record is missing or does not match them */
static void aux_restore(const char *rdir, const char *wdir)
{
    char path[1100], to[1100];
    snprintf(path, sizeof path, "%s/" JOB ".state", rdir);
    FILE *f = fopen(path, "r");
    if (!f) return;
    unsigned long long want = 0;
    int ok = fscanf(f, "lemmata aux state %llx", &want) == 1;
    fclose(f);
    if (!ok || want != aux_hash(rdir)) return;
    for (size_t k = 0; k < NAUX; k++) {
        snprintf(path, sizeof path, "%s/" JOB "%s", rdir, aux_ext[k]);
        snprintf(to, sizeof to, "%s/" JOB "%s", wdir, aux_ext[k]);
        if (access(path, F_OK) == 0 && copy_file(path, to)) {
            for (size_t j = 0; j < NAUX; j++) { /* all or nothing */
                snprintf(to, sizeof to, "%s/" JOB "%s", wdir, aux_ext[j]);
                remove(to);
            }
            return;
        }
    }
}

/* after a finished weave: its auxiliary files into rdir, then the record */
static void aux_save(const char *rdir, const char *wdir)
{
    char from[1100], to[1100];
    for (size_t k = 0; k < NAUX; k++) {
        snprintf(from, sizeof from, "%s/" JOB "%s", wdir, aux_ext[k]);
        snprintf(to, sizeof to, "%s/" JOB "%s", rdir, aux_ext[k]);
        if (access(from, F_OK) == 0) {
            if (rename(from, to)) return; /* no record: the next weave starts afresh */
        } else
            remove(to);
    }
    char line[64], why[8];
    snprintf(to, sizeof to, "%s/" JOB ".state", rdir);
    int n = snprintf(line, sizeof line, STATE_FMT, aux_hash(rdir));
    lm_write_atomic(to, line, (size_t)n, why, sizeof why);
}

/* Removes what killed weaves left in report/: their temporary directories
 * (the caller holds the weave lock, so none is in use) and files of the
 * layouts before weaves ran in one. */
static void clean_stale(const char *rdir)
{
    DIR *dp = opendir(rdir);
    if (!dp) return;
    struct dirent *e;
    char path[1400];
    while ((e = readdir(dp)) != NULL) {
        if (strncmp(e->d_name, "weave-", 6)) continue;
        snprintf(path, sizeof path, "%s/%s", rdir, e->d_name);
        rm_tree(path);
    }
    closedir(dp);
    static const char *const legacy[] = {JOB ".pdf", "lemmata.tex.tmp", "latexmk.log",
                                         JOB ".fdb_latexmk", JOB ".fls"};
    for (size_t k = 0; k < sizeof legacy / sizeof legacy[0]; k++) {
        snprintf(path, sizeof path, "%s/%s", rdir, legacy[k]);
        remove(path);
    }
}

/* moves wdir/name to rdir/name2 when it exists */
static void move_out(const char *wdir, const char *name, const char *rdir, const char *name2)
{
    char from[1100], to[1100];
    snprintf(from, sizeof from, "%s/%s", wdir, name);
    snprintf(to, sizeof to, "%s/%s", rdir, name2);
    if (access(from, F_OK) == 0) rename(from, to);
}

static int fsync_file(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

/* ---- build ------------------------------------------------------------------------ */

int lm_report_build(const char *dbpath, long long run, const char *root, char *err, int errlen)
{
    static const struct {
        const char *tool, *pkg;
    } tools[] = {{"pdflatex", "texlive-latex-base"},
                 {"gnuplot", "gnuplot-nox"}};
    char dummy[8];
    if (!err || errlen <= 0) {
        err = dummy;
        errlen = (int)sizeof dummy;
    }
    err[0] = 0;
    if (!root || !*root) root = ".";
    if (strlen(root) > 900) { /* paths under it must never be cut short */
        snprintf(err, (size_t)errlen, "report directory path too long: %.100s...", root);
        return -1;
    }
    for (size_t k = 0; k < sizeof tools / sizeof tools[0]; k++)
        if (!lm_proc_which(tools[k].tool)) {
            snprintf(err, (size_t)errlen, "%s not found (apt-get install %s)", tools[k].tool,
                     tools[k].pkg);
            return -1;
        }
    if (!dbpath || !*dbpath) {
        snprintf(err, (size_t)errlen, "no results database given");
        return -1;
    }

    lm_results R;
    if (lm_results_load(&R, dbpath, run, err, errlen)) return -1;
    int rc = -1, lockfd = -1;
    writer w;
    memset(&w, 0, sizeof w);
    lm_tbuf_init(&w.b);
    char *tex = NULL;
    lm_figure *all = NULL;
    int *live_first = NULL, *live_count = NULL;
    char rdir[1024], wdir[1100] = "", wrel[64] = "";
    lm_report_path(rdir, sizeof rdir, root, "report");
    doc *docs = calloc((size_t)(R.nclaims ? R.nclaims : 1), sizeof *docs);
    if (!docs) {
        snprintf(err, (size_t)errlen, "out of memory");
        goto out;
    }

    /* claim files: blocks first, so a malformed block stops us before any
     * output; only regular files under lemmas/ or src/ of the source tree
     * are read, whatever path the database names */
    const char *src = lm_report_source_tree(root);
    for (int k = 0; k < R.nclaims; k++) {
        doc *d = &docs[k];
        d->c = &R.claims[k];
        const lm_claim *c = &d->c->claim;
        d->reg = lm_claim_find(c->id);
        d->title = c->title && *c->title ? c->title : d->reg ? d->reg->title : NULL;
        const char *file = c->file && *c->file ? c->file : d->reg ? d->reg->file : NULL;
        snprintf(d->file, sizeof d->file, "%s", file ? file : "");
        const char *slash = strchr(c->id, '/');
        snprintf(d->paper, sizeof d->paper, "%.*s",
                 slash ? (int)(slash - c->id) : (int)strlen(c->id), c->id);
        const char *conf = c->confidence && *c->confidence ? c->confidence
                           : d->reg                        ? d->reg->confidence
                                                           : NULL;
        /* catalogue confidences read "low", "medium/low", "medium (structure), low
         * (constant)": the weakest word counts */
        d->low_recon = is_recon(c) && conf && strcasestr(conf, "low");
        d->med_recon = is_recon(c) && conf && !d->low_recon && strcasestr(conf, "medium");
        d->recon_const = c->origin && strstr(c->origin, "RECON") != NULL;
        if (!d->file[0]) continue;
        char path[4096];
        if (lm_report_source_file(path, sizeof path, src, d->file)) {
            d->outside = 1;
            continue;
        }
        int lr = lm_literate_read(&d->L, path, d->file, err, errlen);
        if (lr == -2) goto out;
        d->file_ok = lr == 0;
        if (d->file_ok) snprintf(d->code, sizeof d->code, "%s", path);
        err[0] = 0;
    }

    char fdir[1024];
    lm_report_path(fdir, sizeof fdir, root, "figures");
    if (mkdirs(rdir, err, errlen) || mkdirs(fdir, err, errlen)) goto out;

    /* one weave at a time per report directory; a killed weave's lock goes
     * with it, and what it left is removed */
    char lockpath[1100];
    snprintf(lockpath, sizeof lockpath, "%s/.weave.lock", rdir);
    lockfd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (lockfd < 0) {
        snprintf(err, (size_t)errlen, "cannot open %s: %s", lockpath, strerror(errno));
        goto out;
    }
    while (flock(lockfd, LOCK_EX))
        if (errno != EINTR) {
            snprintf(err, (size_t)errlen, "cannot lock %s: %s", lockpath, strerror(errno));
            goto out;
        }
    clean_stale(rdir);

    /* figures */
    int nfig_all = 0, used = 0;
    for (int k = 0; k < R.nlive; k++) nfig_all += lm_fig_live_count(R.live[k].series);
    for (int k = 0; k < R.nclaims; k++) nfig_all += 2 * docs[k].c->res.nconfig;
    all = calloc((size_t)(nfig_all ? nfig_all : 1), sizeof *all);
    if (!all) {
        snprintf(err, (size_t)errlen, "out of memory");
        goto out;
    }
    for (int k = 0; k < R.nclaims; k++) {
        doc *d = &docs[k];
        d->fig = all + used;
        const lm_claim_result *r = &d->c->res;
        for (int j = 0; j < r->nconfig; j++) {
            /* "eta*(1-1e-6)" and "eta*(1+1e-6)" sanitize alike: number repeats */
            char tag[100], other[80];
            lm_fig_sanitize(tag, 80, r->cfg[j].config);
            for (int i = 0; i < j; i++) {
                lm_fig_sanitize(other, sizeof other, r->cfg[i].config);
                if (!strcmp(tag, other)) {
                    snprintf(tag + strlen(tag), sizeof tag - 80, "-%d", (j + 1) % 100000);
                    break;
                }
            }
            if (lm_fig_write(root, d->c->claim.id, tag, &r->cfg[j], d->fig, &d->nfig,
                             2 * r->nconfig, err, errlen))
                goto out;
        }
        used += d->nfig;
    }
    /* live runs: their figures (loss and double-vs-MPFR drift per iterate,
     * or the figures a run's blob asks for) */
    lm_figure *live_fig = all + used;
    int nlive_fig = 0;
    live_first = calloc((size_t)R.nlive + 1, sizeof *live_first);
    live_count = calloc((size_t)R.nlive + 1, sizeof *live_count);
    if (!live_first || !live_count) {
        snprintf(err, (size_t)errlen, "out of memory");
        goto out;
    }
    for (int k = 0; k < R.nlive; k++) {
        live_first[k] = nlive_fig;
        if (lm_fig_write_live(root, R.live[k].name ? R.live[k].name : "run", R.live[k].series,
                              live_fig, &nlive_fig, nfig_all - used, err, errlen))
            goto out;
        live_count[k] = nlive_fig - live_first[k];
    }
    used += nlive_fig;
    if (lm_fig_render(root, all, used, err, errlen)) goto out;

    /* the document */
    w.run = R.id;
    put_preamble(&w, &R);
    put_front(&w, &R, docs, dbpath);
    put_summary(&w, docs, R.nclaims);
    put_findings(&w, docs, R.nclaims);
    put_counterexamples(&w, docs, R.nclaims);
    lm_report_slack(&w.b, &R, dbpath); /* per paper: every constant's measured slack */
    P(&w, "\\clearpage\n");
    for (int k = 0; k < R.nclaims; k++) {
        if (k == 0 || strcmp(docs[k].paper, docs[k - 1].paper)) put_paper(&w, docs, R.nclaims, k);
        put_claim(&w, &docs[k], k);
    }
    put_live(&w, &R, live_fig, live_first, live_count);
    /* `make bench` writes its page (table and log-log plots) as a fragment */
    P(&w, "\\IfFileExists{report/bench.tex}{\\clearpage\\input{report/bench.tex}}{}\n");
    P(&w, "\\end{document}\n");
    if (w.b.oom) {
        snprintf(err, (size_t)errlen, "out of memory writing the report");
        goto out;
    }
    tex = lm_tbuf_take(&w.b);

    /* The weave runs in a directory of its own, report/weave-XXXXXX: the
     * .tex, pdflatex's .aux/.toc/.out/.log and the PDF.  Only a PDF that
     * pdflatex finished, complete to its %%EOF, is renamed to
     * report/lemmata.pdf; a weave killed at any point leaves the previous
     * report and auxiliary state as they were. */
    char tmpl[1100];
    snprintf(tmpl, sizeof tmpl, "%s/weave-XXXXXX", rdir);
    if (!mkdtemp(tmpl)) {
        snprintf(err, (size_t)errlen, "cannot create a directory in %s: %s", rdir,
                 strerror(errno));
        goto out;
    }
    snprintf(wdir, sizeof wdir, "%s", tmpl);
    snprintf(wrel, sizeof wrel, "report/%s", strrchr(tmpl, '/') + 1);
    char texpath[1200]; /* wdir (1100) and a file name */
    snprintf(texpath, sizeof texpath, "%s/lemmata.tex", wdir);
    if (lm_write_atomic(texpath, tex, strlen(tex), err, errlen)) goto out;
    aux_restore(rdir, wdir);

    /* compile under a temporary job name, rerunning while the auxiliary
     * files change; no shell escape, and TeX may read no file by an absolute
     * or parent path */
    char lmlog[1200], joblog[1200], tmp_pdf[1200], pdf[1100], outarg[128], input[128];
    char shownlog[1100];
    snprintf(lmlog, sizeof lmlog, "%s/pdflatex.log", wdir);
    snprintf(joblog, sizeof joblog, "%s/" JOB ".log", wdir);
    snprintf(tmp_pdf, sizeof tmp_pdf, "%s/" JOB ".pdf", wdir);
    snprintf(pdf, sizeof pdf, "%s/lemmata.pdf", rdir);
    snprintf(shownlog, sizeof shownlog, "%s/" JOB ".log", rdir);
    snprintf(outarg, sizeof outarg, "-output-directory=%s", wrel);
    snprintf(input, sizeof input, "%s/lemmata.tex", wrel);
    const char *argv[] = {"pdflatex",        "-no-shell-escape", "-interaction=nonstopmode",
                          "-halt-on-error",  outarg,             "-jobname=" JOB,
                          input,             NULL};
    const char *env[] = {"openin_any=p", "openout_any=p", NULL};
    unsigned long long before = aux_hash(wdir), after = 0;
    for (int pass = 0; pass < 4; pass++) {
        int lr = lm_proc_wait(lm_proc_start_env(root, argv, lmlog, env));
        if (lr != 0) {
            if (lr == 127 || lr < 0)
                snprintf(err, (size_t)errlen,
                         "cannot run pdflatex (apt-get install texlive-latex-base)");
            else if (lr >= 128)
                snprintf(err, (size_t)errlen, "pdflatex was killed by signal %d", lr - 128);
            else
                latex_error(joblog, shownlog, &w, docs, err, errlen);
            goto out;
        }
        after = aux_hash(wdir);
        if (after == before) break;
        before = after;
    }
    if (!lm_pdf_complete(tmp_pdf)) {
        snprintf(err, (size_t)errlen, "pdflatex wrote no complete PDF (see %s/pdflatex.log)",
                 rdir);
        goto out;
    }
    if (fsync_file(tmp_pdf) || rename(tmp_pdf, pdf)) {
        snprintf(err, (size_t)errlen, "cannot rename %s to %s: %s", tmp_pdf, pdf,
                 strerror(errno));
        goto out;
    }
    aux_save(rdir, wdir);
    rc = 0;
out:
    if (wdir[0]) {
        /* the .tex and the logs stay in report/ for reading, also after a failure */
        move_out(wdir, "lemmata.tex", rdir, "lemmata.tex");
        move_out(wdir, "pdflatex.log", rdir, "pdflatex.log");
        move_out(wdir, JOB ".log", rdir, JOB ".log");
        rm_tree(wdir);
    }
    if (lockfd >= 0) close(lockfd); /* releases the lock */
    if (docs)
        for (int k = 0; k < R.nclaims; k++) lm_literate_free(&docs[k].L);
    free(docs);
    free(all);
    free(live_first);
    free(live_count);
    free(tex);
    free(w.sp);
    lm_tbuf_free(&w.b);
    lm_results_free(&R);
    return rc;
}
