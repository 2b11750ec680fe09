/* report.c -- lm_report_build: weave the report's PDFs from the results
 * database, the claim files' literate blocks and gnuplot figures.
 *
 * The editions (all under root/report/):
 *   lemmata.pdf        the reviewer's edition: front page, where the results
 *                      come from, contents, the summary over all papers
 *                      (summary table, where it broke, counterexamples,
 *                      constant slack), then per paper its title, authors and
 *                      venue, its one-page summary, its claim sections and its
 *                      live runs.  No code: each claim section ends with the
 *                      run its result comes from and a link to the claim's
 *                      data and code in lemmata-code.pdf.
 *   lemmata-code.pdf   the data and code companion: one section per claim
 *                      file with what the reviewer's section leaves out (its
 *                      measured quantities, named constants, the command
 *                      reproducing each configuration's worst instance, the
 *                      histograms of the configurations other than the worst)
 *                      and the whole file after its literate header, linking
 *                      back to the claim's section in lemmata.pdf.  The links between
 *                      the two are PDF named destinations ("claim:ID",
 *                      "code:ID", see anchor_of) reached by GoToR actions, so
 *                      they work in any viewer that opens the other file
 *                      from the same directory.
 *   <paper>.pdf        the reviewer's edition of one paper (every paper of
 *                      this build with results), with the code of its claims
 *                      in an appendix of the same file (internal links), so
 *                      the reviewer of one paper needs one file.
 *
 * What is woven is, for every claim and live run, its latest stored result
 * (results.c), each with the run it is stored in; `report --run N` weaves one
 * run exactly.
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
 *   2. the results are read from the database (claims sorted by id), each
 *      claim's file is read for its \claim/\source/\statement/\check/\note
 *      blocks (malformed blocks stop the build with "file:line: reason");
 *   3. under report/.weave.lock (one weave per report directory; the
 *      temporary directories of killed weaves are removed), figures/<id>-
 *      <config>[-ratios].{dat,gp} are written and gnuplot turns them into
 *      PDFs (figures.c: only changed ones are redrawn);
 *   4. the LaTeX source of each edition is written to a fresh directory
 *      report/weave-XXXXXX of its own and compiled there with pdflatex under
 *      the job name <name>-build, one edition per core at a time (two on
 *      the machine this is written for), each again until its .aux, .toc and
 *      .out stop changing (at most four passes: an unchanged report takes
 *      one, latexmk's rule, without latexmk's hashing of a thousand figure
 *      PDFs around each pass).  A pass starts from the .aux/.toc/.out of the
 *      edition's last *finished* weave (report/lemmata-build.* for
 *      lemmata.pdf, report/build/<name>-build.* for the others, trusted only
 *      when the .state file written after them records their hash).  Only
 *      when every edition ended in a complete PDF (%PDF ... %%EOF) are they
 *      renamed into report/, and only then are the auxiliary files and the
 *      state records updated: a failed or killed weave leaves the previous
 *      PDFs as they were.  A LaTeX error inside a woven block is reported at
 *      its line of the claim file.
 *
 * Text from the database and plain-text fields is escaped; the \statement,
 * \check and \note blocks are LaTeX, and so are \claim titles and \source
 * blocks that contain $ or \ (plain ones are escaped): those, and the LaTeX
 * captions of live runs, pass through the allow-list of texsafe.c.
 * pdflatex runs without shell escape and may open no file by an absolute or
 * parent path (openin_any=p).
 *
 * This file is the driver: the tools, the claim files, the figures, the
 * editions and their structure, pdflatex, plus the writer the sections are
 * drawn with and the document's preamble.  The sections themselves:
 * summary.c (front page, summary, where it broke, counterexamples, a paper's
 * summary page), slack.c (constant slack), claim.c (a paper's heading and
 * each claim's section), live.c (live training runs), code.c (listings).
 */
#include "depth.h"
#include "lm_paper.h"
#include "lm_report.h"
#include "lm_verify.h"
#include "report_priv.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


void lm_report_path(char *dst, size_t n, const char *root, const char *rel)
{
    if (!root || !*root || !strcmp(root, ".") || rel[0] == '/')
        snprintf(dst, n, "%s", rel);
    else
        snprintf(dst, n, "%s%s%s", root, root[strlen(root) - 1] == '/' ? "" : "/", rel);
}

/* ---- the writer ---------------------------------------------------------------- */

const char *const rp_vcolor[LM_V_COUNT] = {
    "vholds", "vconsistent", "vvacuous", "vnotcheckable", "vartifact",
    "vassumption", "verror", "vinconsistent", "vviolated"};

void rp_put(rp_writer *w, const char *s)
{
    lm_tbuf_puts(&w->b, s);
}

void rp_esc(rp_writer *w, const char *s)
{
    lm_tex_escape(&w->b, s);
}

void rp_esc_tt(rp_writer *w, const char *s)
{
    lm_tex_escape_tt(&w->b, s);
}

void rp_put_verdict(rp_writer *w, lm_verdict v)
{
    int k = (v >= 0 && v < LM_V_COUNT) ? (int)v : (int)LM_V_ERROR;
    lm_tbuf_printf(&w->b, "\\vd{%s}{%s}", rp_vcolor[k], lm_verdict_name(v));
}

void rp_prec_text(char *buf, size_t n, int prec)
{
    if (prec) snprintf(buf, n, "MPFR %d bits", prec);
    else snprintf(buf, n, "double first, MPFR replay");
}

/* ---- preamble ------------------------------------------------------------------ */

/* title: the PDF's title (document information); nused: the runs the edition's results come
 * from (R->id the principal one among them) */
static void put_preamble(rp_writer *w, const lm_results *R, int nused, const char *title)
{
    rp_put(w, "% generated by lemmata (src/report/report.c) -- do not edit; rebuild with: "
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
              "\\usepackage{needspace,multicol}\n"
              "\\usepackage[font=footnotesize,labelfont=bf]{caption}\n"
              "\\usepackage[hidelinks,bookmarksnumbered,bookmarksopen,bookmarksopenlevel=0,bookmarksdepth=2]{hyperref}\n");
    lm_tex_unicode_preamble(&w->b);
    rp_put(w, "\\definecolor{vholds}{RGB}{0,130,40}\n"
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
              "% the contents: in two columns of small type when it lists claims\n"
              "\\makeatletter\n"
              "\\newcommand{\\lmcontents}[1]{\\section*{Contents}\\pdfbookmark[1]{Contents}{contents}"
              "\\ifnum#1>1\\begin{multicols}{#1}\\footnotesize\\setlength{\\parskip}{0pt}\\@starttoc{toc}"
              "\\end{multicols}\\else{\\setlength{\\parskip}{0pt}\\@starttoc{toc}}\\fi}\n"
              "% a paper (or an appendix) in the contents: bold, without the large type of article's\n"
              "\\renewcommand*{\\l@part}[2]{\\ifnum\\c@tocdepth>-2\\relax\\addpenalty{-\\@highpenalty}"
              "\\addvspace{0.7em plus 1pt}{\\parindent\\z@\\rightskip\\@pnumwidth\\parfillskip-\\@pnumwidth"
              "\\bfseries\\leavevmode#1\\nobreak\\hfil\\nobreak\\hb@xt@\\@pnumwidth{\\hss#2}\\par}\\nobreak\\fi}\n"
              "% claim sections: numbers of three digits fit\n"
              "\\renewcommand*{\\l@section}{\\@dottedtocline{1}{0em}{2.1em}}\n"
              "% a section before the papers (summary, where it broke, ...): a contents line at every\n"
              "% depth, without a bookmark of its own (it has one)\n"
              "\\newcommand*{\\l@lmfront}[2]{\\@dottedtocline{0}{0em}{0em}{#1}{#2}}\n"
              "\\newcommand{\\lmtocfront}[1]{\\phantomsection\\protected@edef\\lm@href{\\@currentHref}"
              "\\expandafter\\lm@tocfront\\expandafter{\\lm@href}{#1}}\n"
              "\\newcommand{\\lm@tocfront}[2]{\\addtocontents{toc}{\\protect\\contentsline{lmfront}{#2}"
              "{\\thepage}{#1}}}\n"
              "\\makeatother\n"
              "% under a paper's line in the contents: authors, venue, verdict counts\n"
              "\\newcommand{\\lmtocnote}[1]{\\ifnum\\value{tocdepth}<1{\\par\\noindent\\footnotesize"
              "\\leftskip1em\\rightskip2.55em #1\\par}\\fi}\n"
              "% the text of a link to another place or file\n"
              "\\newcommand{\\lmlink}[1]{\\textcolor{blue!60!black}{\\textbf{#1}}}\n"
              "% a part of the document (a paper, an appendix): a heading, a contents line and a bookmark\n"
              "\\newcommand{\\lmpart}[2]{\\phantomsection\\addcontentsline{toc}{part}{#1}"
              "\\noindent{\\LARGE\\bfseries #2}\\par\\medskip}\n");
    rp_put(w, "\\hypersetup{pdftitle={");
    rp_esc(w, title);
    rp_put(w, "},pdfcreator={lemmata}}\n");
    lm_tex_code_preamble(&w->b);

    /* provenance stamp on every page */
    char prec[64];
    rp_prec_text(prec, sizeof prec, R->meta.prec);
    rp_put(w, "\\pagestyle{fancy}\n\\fancyhf{}\n"
              "\\renewcommand{\\headrulewidth}{0.4pt}\n\\renewcommand{\\footrulewidth}{0.4pt}\n");
    /* the run most results come from; each claim names its own when they come from several */
    if (nused > 1)
        lm_tbuf_printf(&w->b, "\\fancyhead[L]{\\footnotesize\\textbf{lemmata}, latest results: run "
                              "%lld%s +%d other%s}\n",
                       R->id, R->finished ? "" : " \\textcolor{vviolated}{(unfinished)}", nused - 1,
                       nused == 2 ? "" : "s");
    else
        lm_tbuf_printf(&w->b, "\\fancyhead[L]{\\footnotesize\\textbf{lemmata} report, run %lld%s}\n",
                       R->id, R->finished ? "" : " \\textcolor{vviolated}{(unfinished)}");
    rp_put(w, "\\fancyhead[R]{\\scriptsize commit \\texttt{");
    rp_esc_tt(w, R->meta.commit[0] ? R->meta.commit : "unknown");
    lm_tbuf_printf(&w->b,
                   "} \\textperiodcentered{} seed %llu \\textperiodcentered{} budget %d%s "
                   "\\textperiodcentered{} %s}\n",
                   (unsigned long long)R->meta.seed, R->meta.budget,
                   R->meta.quick ? " (quick)" : "", prec);
    rp_put(w, "\\fancyfoot[L]{\\parbox[t]{0.84\\textwidth}{\\raggedright\\scriptsize ");
    rp_esc(w, R->meta.date[0] ? R->meta.date : "date unknown");
    rp_put(w, " \\textperiodcentered{} ");
    rp_esc(w, R->meta.versions[0] ? R->meta.versions : "library versions unknown");
    rp_put(w, "}}\n\\fancyfoot[R]{\\footnotesize page \\thepage\\ of \\pageref*{LastPage}}\n"
              "\\fancypagestyle{plain}{}\n");
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
static void latex_error(const char *log, const char *shown, const char *texname, const rp_writer *w,
                        const rp_doc *docs, char *err, int errlen)
{
    char line[1024], msg[512] = "";
    FILE *f = fopen(log, "r");
    if (!f) {
        snprintf(err, (size_t)errlen, "pdflatex failed on %s (see its pdflatex log in report/)", texname);
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
        const rp_span *s = &w->sp[k];
        if (texline < s->first || texline > s->last) continue;
        const rp_doc *d = &docs[s->claim];
        if (s->src_line > 0)
            snprintf(err, (size_t)errlen, "%s:%ld: LaTeX error in the %s of %s: %s",
                     d->file[0] ? d->file : d->c->claim.id, s->src_line + (texline - s->first),
                     s->what, d->c->claim.id, msg);
        else
            snprintf(err, (size_t)errlen, "LaTeX error in the %s of %s (%s): %s", s->what,
                     d->c->claim.id, d->file, msg);
        return;
    }
    snprintf(err, (size_t)errlen, "LaTeX error at %s:%ld: %s (see %s)", texname, texline, msg, shown);
}

/* The files LaTeX reads back on the next pass.  Only a finished weave's are
 * reused: they are renamed into the edition's auxiliary directory (report/ or
 * report/build/) after the PDFs, and then <job>.state, written last, records
 * their hash. */
static const char *const aux_ext[] = {".aux", ".toc", ".out"};
#define NAUX (sizeof aux_ext / sizeof aux_ext[0])
#define STATE_FMT "lemmata aux state %016llx\n"

/* hash of the auxiliary files of job in dir (a missing one still moves the
 * hash, so missing and empty differ from present) */
static unsigned long long aux_hash(const char *dir, const char *job)
{
    unsigned long long h = LM_FNV_INIT;
    for (size_t k = 0; k < NAUX; k++) {
        char path[1300];
        snprintf(path, sizeof path, "%s/%s%s", dir, job, aux_ext[k]);
        h = (h ^ (unsigned long long)(k + 1)) * 1099511628211ULL;
        unsigned long long hk = lm_fnv_file(path, h);
        if (hk) h = hk;
    }
    return h;
}

/* copies the finished weave's auxiliary files from adir into wdir; nothing
 * when their state record is missing or does not match them */
static void aux_restore(const char *adir, const char *wdir, const char *job)
{
    char path[1300], to[1300];
    snprintf(path, sizeof path, "%s/%s.state", adir, job);
    FILE *f = fopen(path, "r");
    if (!f) return;
    unsigned long long want = 0;
    int ok = fscanf(f, "lemmata aux state %llx", &want) == 1;
    fclose(f);
    if (!ok || want != aux_hash(adir, job)) return;
    for (size_t k = 0; k < NAUX; k++) {
        /* a path that does not fit is not copied (the weave then starts afresh) */
        if (snprintf(path, sizeof path, "%s/%s%s", adir, job, aux_ext[k]) >= (int)sizeof path ||
            snprintf(to, sizeof to, "%s/%s%s", wdir, job, aux_ext[k]) >= (int)sizeof to)
            return;
        if (access(path, F_OK) == 0 && copy_file(path, to)) {
            for (size_t j = 0; j < NAUX; j++) /* all or nothing */
                if (snprintf(to, sizeof to, "%s/%s%s", wdir, job, aux_ext[j]) < (int)sizeof to) remove(to);
            return;
        }
    }
}

/* after a finished weave: its auxiliary files into adir, then the record */
static void aux_save(const char *adir, const char *wdir, const char *job)
{
    char from[1300], to[1300];
    for (size_t k = 0; k < NAUX; k++) {
        if (snprintf(from, sizeof from, "%s/%s%s", wdir, job, aux_ext[k]) >= (int)sizeof from ||
            snprintf(to, sizeof to, "%s/%s%s", adir, job, aux_ext[k]) >= (int)sizeof to)
            return; /* no record: the next weave starts afresh */
        if (access(from, F_OK) == 0) {
            if (rename(from, to)) return; /* no record: the next weave starts afresh */
        } else
            remove(to);
    }
    char line[64], why[8];
    snprintf(to, sizeof to, "%s/%s.state", adir, job);
    int n = snprintf(line, sizeof line, STATE_FMT, aux_hash(adir, job));
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
    static const char *const legacy[] = {"lemmata-build.pdf", "lemmata.tex.tmp", "latexmk.log",
                                         "lemmata-build.fdb_latexmk", "lemmata-build.fls"};
    for (size_t k = 0; k < sizeof legacy / sizeof legacy[0]; k++) {
        snprintf(path, sizeof path, "%s/%s", rdir, legacy[k]);
        remove(path);
    }
}

/* moves wdir/name to rdir/name2 when it exists */
static void move_out(const char *wdir, const char *name, const char *rdir, const char *name2)
{
    char from[1300], to[1300];
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

/* ---- where the results come from ------------------------------------------------- */

/* 1 when claim id belongs to paper (NULL: every paper) */
static int in_paper(const char *id, const char *paper)
{
    if (!paper) return 1;
    size_t n = strlen(paper);
    return !strncmp(id, paper, n) && id[n] == '/';
}

static void put_run_row(rp_writer *w, const lm_results_run *r, int nclaims, int nlive)
{
    char prec[64];
    rp_prec_text(prec, sizeof prec, r->meta.prec);
    lm_tbuf_printf(&w->b, "%lld%s & ", r->id, r->finished ? "" : " \\textcolor{vviolated}{(unfinished)}");
    rp_esc(w, r->meta.date[0] ? r->meta.date : "--");
    rp_put(w, " & \\texttt{");
    rp_esc_tt(w, r->meta.commit[0] ? r->meta.commit : "unknown");
    lm_tbuf_printf(&w->b, "} & %llu & %d%s & ", (unsigned long long)r->meta.seed, r->meta.budget,
                   r->meta.quick ? " (quick)" : "");
    rp_esc(w, prec);
    lm_tbuf_printf(&w->b, " & %d", nclaims);
    if (nlive) lm_tbuf_printf(&w->b, " + %d live", nlive);
    lm_tbuf_printf(&w->b, " of its %d\\\\\n", r->stored);
}

void rp_put_coverage(rp_writer *w, const lm_results *R, const rp_doc *docs, int n, const char *paper)
{
    /* the claims of this edition per run */
    int *cnt = calloc((size_t)(R->nruns ? R->nruns : 1), sizeof *cnt);
    int *lcnt = calloc((size_t)(R->nruns ? R->nruns : 1), sizeof *lcnt);
    if (!cnt || !lcnt) {
        free(cnt);
        free(lcnt);
        w->b.oom = 1;
        return;
    }
    for (int k = 0; k < n; k++)
        for (int j = 0; j < R->nruns; j++)
            if (R->runs[j].id == docs[k].c->run) cnt[j]++;
    for (int k = 0; k < R->nlive; k++) {
        const lm_paper *lp = R->live[k].name ? lm_paper_of_live(R->live[k].name, NULL) : NULL;
        if (paper && (!lp || strcmp(lp->id, paper))) continue;
        for (int j = 0; j < R->nruns; j++)
            if (R->runs[j].id == R->live[k].run) lcnt[j]++;
    }
    int used = 0, newest_here = 0, nmiss = 0;
    for (int j = 0; j < R->nruns; j++) used += cnt[j] + lcnt[j] > 0;
    for (int k = 0; k < n; k++) newest_here += docs[k].c->run == R->newest;
    /* claims of this build with no result here */
    char *miss = calloc((size_t)lm_registry_count + 1, 1);
    for (int k = 0; miss && k < lm_registry_count; k++) {
        const lm_claim *c = lm_registry[k];
        if (!in_paper(c->id, paper)) continue;
        int found = 0;
        for (int j = 0; j < n && !found; j++) found = !strcmp(docs[j].c->claim.id, c->id);
        if (!found) nmiss += miss[k] = 1;
    }
    /* the claims there are: those with a result here and those of this build without one */
    const int total = n + nmiss;
    const char *scope = paper ? " of this paper" : "";

    rp_put(w, "\\subsection*{Where the results come from}\n");
    if (R->merged) {
        if (used > 1)
            lm_tbuf_printf(&w->b,
                           "This report weaves the latest stored result of every claim and live run; "
                           "they come from %d runs (below), and each claim's section names the run, "
                           "commit, seed and budget of its own result.  \\texttt{lemmata report --run N} "
                           "weaves one run alone.\n\n",
                           used);
        else if (used == 1)
            lm_tbuf_printf(&w->b, "Every result in this report is stored in run %lld, the latest run "
                                  "holding %s.\n\n", R->id, paper ? "this paper's claims" : "them");
        /* the latest run covered only part of the claims (a verify --only): which papers */
        if (R->newest && newest_here < total && (newest_here > 0 || !paper)) {
            lm_tbuf_printf(&w->b,
                           "\\noindent\\fcolorbox{vartifact}{vartifact!5}{\\parbox{\\dimexpr\\linewidth-"
                           "2\\fboxsep-2\\fboxrule}{\\textbf{The latest run, %lld, covered only part of "
                           "the claims:} %d of the %d claims%s",
                           R->newest, newest_here, total, scope);
            int listed = 0;
            for (int k = 0; k < n; k++) {
                if (docs[k].c->run != R->newest || (listed && !strcmp(docs[k].paper, docs[k - 1].paper)))
                    continue;
                int m = 0;
                for (int j = k; j < n && !strcmp(docs[j].paper, docs[k].paper); j++) m += docs[j].c->run == R->newest;
                rp_put(w, listed++ ? ", " : " (");
                rp_put(w, "\\texttt{");
                rp_esc_tt(w, docs[k].paper);
                lm_tbuf_printf(&w->b, "/}: %d", m);
            }
            rp_put(w, listed ? ")" : "");
            rp_put(w, ", as after a \\texttt{verify --only}, or a run that was stopped.  The other "
                      "claims are shown with their latest result from an earlier run.}}\n\n");
        }
    } else {
        lm_tbuf_printf(&w->b, "This report weaves run %lld exactly (\\texttt{lemmata report --run %lld}).",
                       R->id, R->id);
        if (R->newest > R->id)
            lm_tbuf_printf(&w->b, " The database holds newer runs (up to %lld): \\texttt{lemmata report} "
                                  "without \\texttt{--run} weaves the latest result of every claim.",
                           R->newest);
        rp_put(w, "\n\n");
        if (n < total)
            lm_tbuf_printf(&w->b,
                           "\\noindent\\fcolorbox{vartifact}{vartifact!5}{\\parbox{\\dimexpr\\linewidth-"
                           "2\\fboxsep-2\\fboxrule}{\\textbf{Run %lld covered only part of the claims:} "
                           "%d of the %d claims%s.}}\n\n",
                           R->id, n, total, scope);
    }
    for (int j = 0; j < R->nruns; j++)
        if ((cnt[j] + lcnt[j]) && R->runs[j].nshards) {
            lm_tbuf_printf(&w->b, "{\\sloppy Run %lld was merged from %d shards run side by side "
                                  "(\\texttt{verify --shard K/N}, then \\texttt{lemmata merge}): ",
                           R->runs[j].id, R->runs[j].nshards);
            rp_esc(w, R->runs[j].shards);
            rp_put(w, ".\\par}\n\n");
        }
    if (used > 1) {
        rp_put(w, "{\\footnotesize\\setlength{\\tabcolsep}{3pt}\n"
                  "\\begin{longtable}{@{}L{1.3cm}L{2.7cm}L{3.0cm}R{1.6cm}R{1.6cm}L{3.0cm}R{2.7cm}@{}}\n"
                  "\\toprule run & date & commit & seed & budget & precision & results here\\\\\\midrule\n"
                  "\\endhead\n\\bottomrule\n\\endlastfoot\n");
        for (int j = 0; j < R->nruns; j++)
            if (cnt[j] + lcnt[j]) put_run_row(w, &R->runs[j], cnt[j], lcnt[j]);
        rp_put(w, "\\end{longtable}}\n");
    }
    for (int k = 0, listed = 0; miss && k < lm_registry_count; k++) {
        if (!miss[k]) continue;
        if (listed++ == 0) {
            if (R->merged) rp_put(w, "{\\sloppy\\textbf{Claims of this build with no stored result:} ");
            else lm_tbuf_printf(&w->b, "{\\sloppy\\textbf{Claims of this build that are not in run %lld:} ", R->id);
        } else
            rp_put(w, ", ");
        rp_put(w, "\\texttt{");
        rp_esc_tt(w, lm_registry[k]->id);
        rp_put(w, "}");
    }
    if (nmiss) rp_put(w, ".\\par}\n\n");
    if (R->dropped && !paper)
        lm_tbuf_printf(&w->b, "\\emph{%d result%s of earlier runs %s left out: %s claim%s or live run%s %s "
                              "no longer in this build (renamed or removed).}\n\n",
                       R->dropped, R->dropped == 1 ? "" : "s", R->dropped == 1 ? "is" : "are",
                       R->dropped == 1 ? "its" : "their", R->dropped == 1 ? "" : "s",
                       R->dropped == 1 ? "" : "s", R->dropped == 1 ? "is" : "are");
    if (!miss) w->b.oom = 1;
    free(miss);
    free(cnt);
    free(lcnt);
}

/* ---- the editions ------------------------------------------------------------------- */

enum { ED_REVIEW, ED_CODE, ED_PAPER };

/* the code companion lists a whole claim file, up to this many lines (a resource bound) */
#define CODE_MAX_LINES 4000
/* editions compiled at once: one per core (two on the machine this is written for), at most */
#define PAR_MAX 8

typedef struct {
    char name[96];         /* report/<name>.pdf */
    char job[112];         /* pdflatex's job name, <name>-build */
    char texname[160];     /* where its .tex is kept: report/<name>.tex, report/build/<name>.tex */
    int kind;
    int first, n;          /* its claims: docs[first..first+n) */
    const lm_paper *paper; /* ED_PAPER */
    rp_writer w;
    char *tex;
    char wdir[1100], wrel[64];
    char adir[1100];       /* its auxiliary files between weaves: report/ or report/build/ */
    pid_t pid;
    int passes, done, pages;
    unsigned long long before;
} edition;

/* what every edition is drawn from */
typedef struct {
    const lm_results *R;
    rp_doc *docs;
    char (*anchor)[200];      /* per claim: the id as a destination name (anchor_of) */
    const lm_figure *live_fig;
    const int *live_first, *live_count;
    const char *dbpath;
    const lm_figure *fig0;    /* the claims' figures start here ... */
    const int *fig_cfg;       /* ... and figure j belongs to this configuration of its claim */
    const char *fig_hist;     /* ... and is its histogram of LHS/RHS (1) or its series (0) */
} weave_ctx;

/* The claim id as part of a PDF destination name: letters, digits, '.', '/' and '-' as
 * they are, any other byte as +XX (so two ids never share a name, and the name needs no
 * escaping in \hypertarget or in the fragment of an \href).  k: the claim's index, used
 * instead when the id is too long. */
static void anchor_of(char *dst, size_t n, const char *id, int k)
{
    size_t w = 0;
    for (const unsigned char *p = (const unsigned char *)id; *p; p++) {
        int plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                    *p == '.' || *p == '/' || *p == '-';
        if (w + 4 >= n) {
            snprintf(dst, n, "+n%d", k); /* never an encoded id: "+" is always followed by hex there */
            return;
        }
        if (plain) dst[w++] = (char)*p;
        else w += (size_t)snprintf(dst + w, n - w, "+%02X", *p);
    }
    dst[w] = 0;
}

/* a plain text as a paper's or the edition's title */
static const char *paper_title(const lm_paper *p, const char *id)
{
    return p && p->title && *p->title ? p->title : id;
}

/* the provenance of a claim's result and the way to its code, at the end of its section */
static void put_claim_trailer(rp_writer *w, const edition *ed, const weave_ctx *X, int k)
{
    const rp_doc *d = &X->docs[k];
    const lm_results_run *r = lm_results_run_of(X->R, d->c->run);
    rp_put(w, "\\lmpar{Result and code}");
    if (r) {
        char prec[64];
        rp_prec_text(prec, sizeof prec, r->meta.prec);
        lm_tbuf_printf(&w->b, " Result of run %lld%s (", r->id, r->finished ? "" : " (unfinished)");
        rp_esc(w, r->meta.date[0] ? r->meta.date : "date unknown");
        rp_put(w, "; commit \\texttt{");
        rp_esc_tt(w, r->meta.commit[0] ? r->meta.commit : "unknown");
        lm_tbuf_printf(&w->b, "}; seed %llu; budget %d%s; ", (unsigned long long)r->meta.seed, r->meta.budget,
                       r->meta.quick ? " (quick)" : "");
        rp_esc(w, prec);
        rp_put(w, ")");
        if (d->c->reused_from > 0)
            lm_tbuf_printf(&w->b, ", copied there unchanged from run %lld", d->c->reused_from);
        rp_put(w, ".");
    }
    /* the claim's data and code: one click away, not in the reviewer's path */
    rp_put(w, " Its measured quantities, named constants, the command reproducing each "
              "configuration's worst instance and its code");
    if (d->code[0]) {
        rp_put(w, " (\\texttt{");
        rp_esc_tt(w, d->file);
        rp_put(w, "})");
    }
    if (ed->kind == ED_PAPER)
        lm_tbuf_printf(&w->b, " are in the appendix: \\hyperlink{code:%s}{\\lmlink{data and code of this "
                              "claim}}.\n\n", X->anchor[k]);
    else
        lm_tbuf_printf(&w->b, " are in the companion: \\href{lemmata-code.pdf\\#code:%s}{\\lmlink{lemmata-code.pdf, "
                              "data and code of this claim}}.\n\n", X->anchor[k]);
}

/* the configuration a claim's verdict names: the largest worst ratio among those counting
 * for the verdict, else the most severe verdict (as claim.c's verdict box picks it) */
static int worst_config(const lm_claim_result *r)
{
    int best = -1;
    for (int k = 0; k < r->nconfig; k++) {
        double x = r->cfg[k].worst_ratio;
        if (rp_counts_for_verdict(r, k) && !isnan(x) && (best < 0 || x > r->cfg[best].worst_ratio)) best = k;
    }
    if (best >= 0) return best;
    for (int k = 0; k < r->nconfig; k++)
        if (rp_counts_for_verdict(r, k) && (best < 0 || r->cfg[k].verdict > r->cfg[best].verdict)) best = k;
    return best;
}

/* 1 when figure j of claim d goes to a reviewer's edition: every series, and the histogram of
 * LHS/RHS of the configuration the verdict names (the others' are in the companion) */
static int fig_in_review(const weave_ctx *X, const rp_doc *d, int j, int worst)
{
    long at = (long)(d->fig + j - X->fig0);
    return !X->fig_hist[at] || X->fig_cfg[at] == worst;
}

/* one claim's section in a reviewer's edition (local: its index in the edition) */
static void put_claim_review(edition *ed, const weave_ctx *X, int k)
{
    rp_writer *w = &ed->w;
    rp_doc d = X->docs[k];
    d.code[0] = 0; /* the listing goes to the code companion (or the appendix) */
    w->lean = 1;   /* and so do the claim's data (rp_put_claim_data) */
    /* and the histograms of the configurations other than the worst */
    lm_figure *sel = d.nfig ? malloc(sizeof *sel * (size_t)d.nfig) : NULL;
    if (d.nfig && !sel) {
        w->b.oom = 1;
        return;
    }
    int wc = worst_config(&d.c->res), nsel = 0;
    for (int j = 0; j < d.nfig; j++)
        if (fig_in_review(X, &X->docs[k], j, wc)) sel[nsel++] = d.fig[j];
    d.fig = sel;
    d.nfig = nsel;
    /* the destination sits just above the heading: both are kept on one page */
    lm_tbuf_printf(&w->b, "\\Needspace{12\\baselineskip}\\hypertarget{claim:%s}{}%%\n", X->anchor[k]);
    w->run = d.c->run; /* the verdict box names the run its result is stored in */
    rp_put_claim(w, &d, k - ed->first);
    free(sel);
    put_claim_trailer(w, ed, X, k);
}

/* one claim file in the code companion or a paper's appendix */
static void put_code_section(edition *ed, const weave_ctx *X, int k)
{
    rp_writer *w = &ed->w;
    const rp_doc *d = &X->docs[k];
    rp_put(w, "\\Needspace{10\\baselineskip}\\section*{\\texorpdfstring{\\texttt{");
    rp_esc_tt(w, d->c->claim.id);
    rp_put(w, "}}{");
    rp_esc(w, d->c->claim.id);
    rp_put(w, "}}\\addcontentsline{toc}{section}{\\texttt{");
    rp_esc_tt(w, d->c->claim.id);
    lm_tbuf_printf(&w->b, "}}\\hypertarget{code:%s}{}\n\\noindent ", X->anchor[k]);
    if (d->title) {
        rp_esc(w, d->title);
        rp_put(w, ". ");
    }
    if (ed->kind == ED_PAPER)
        lm_tbuf_printf(&w->b, "Its section: \\hyperlink{claim:%s}{\\lmlink{\\S\\ref*{claim:%d}}}.\\par\n",
                       X->anchor[k], k - ed->first);
    else
        lm_tbuf_printf(&w->b, "Its section in the report: \\href{lemmata.pdf\\#claim:%s}{\\lmlink{lemmata.pdf, "
                              "the claim}}.\\par\n", X->anchor[k]);
    rp_put_claim_data(w, d);
    /* the figures the claim's section leaves out */
    int wc = worst_config(&d->c->res), nout = 0;
    for (int j = 0; j < d->nfig; j++) {
        if (fig_in_review(X, d, j, wc)) continue;
        if (!nout++) rp_put(w, "\\Needspace{0.33\\textheight}\\paragraph{Histograms of the other configurations}\n"
                              "\\begin{center}\n");
        rp_put(w, "\\begin{minipage}[t]{0.49\\linewidth}\\centering\n\\includegraphics[width=\\linewidth]{");
        rp_put(w, d->fig[j].path); /* sanitized: letters, digits, '-' and '/' */
        rp_put(w, ".pdf}\n\\captionof{figure}{");
        rp_put(w, d->fig[j].caption);
        rp_put(w, "}\n\\end{minipage}");
        rp_put(w, nout % 2 ? "\\hfill\n" : "\n\n\\medskip\n");
    }
    if (nout) rp_put(w, "\n\n\\end{center}\n");
    if (!d->code[0]) {
        rp_put(w, "\\lmpar{Code}\\emph{The claim file ");
        if (d->file[0]) {
            rp_put(w, "\\texttt{");
            rp_esc_tt(w, d->file);
            rp_put(w, "} ");
        }
        rp_put(w, "could not be read from the source tree.}\\par\n");
        return;
    }
    int first = d->L.code_line, last = d->L.nlines;
    if (first > last) first = 1;
    int cut = last - first + 1 > CODE_MAX_LINES;
    if (cut) last = first + CODE_MAX_LINES - 1;
    rp_put(w, "\\lmpar{Code} \\texttt{");
    rp_esc_tt(w, d->file);
    lm_tbuf_printf(&w->b, "}, lines %d--%d%s (the lines before are its literate header: the statement "
                          "the report typesets).\\par\n",
                   first, last, cut ? ", cut short; see the file" : "");
    if (w->b.n && w->b.s[w->b.n - 1] != '\n') rp_put(w, "\n");
    long line = w->b.lines + 1;
    if (lm_tex_code_file(&w->b, d->code, first, last))
        rp_put(w, "\\emph{the file could not be read again.}\n");
    /* a LaTeX error in these lines names the claim's code listing */
    rp_add_span(w, k - ed->first, "code listing", line, w->b.lines, 0);
}

/* live runs of paper p (NULL: those of no paper of this build) not yet woven; which[]
 * receives their indices */
static int live_of(const lm_results *R, const lm_paper *p, int *which, char *done)
{
    int n = 0;
    for (int k = 0; k < R->nlive; k++) {
        if (done[k]) continue;
        const lm_paper *lp = R->live[k].name ? lm_paper_of_live(R->live[k].name, NULL) : NULL;
        if (lp != p) continue;
        which[n++] = k;
        done[k] = 1;
    }
    return n;
}

/* a scratch writer's text after a contents line (when it wrote anything): so the sections of
 * summary.c that may be empty get a line in the contents only when they are there */
static void put_with_contents_line(rp_writer *w, rp_writer *tmp, const char *title)
{
    if (tmp->b.n) {
        rp_put(w, "\\Needspace{8\\baselineskip}\\lmtocfront{");
        rp_put(w, title);
        rp_put(w, "}%\n");
        lm_tbuf_putn(&w->b, tmp->b.s, tmp->b.n);
    }
    if (tmp->b.oom) w->b.oom = 1;
    lm_tbuf_free(&tmp->b);
    lm_tbuf_init(&tmp->b);
}

/* under a paper's line in the contents: its authors, venue and verdict counts (LaTeX
 * written to the .toc: no fragile command) */
static void put_paper_note(rp_writer *w, const lm_paper *p, const rp_doc *docs, int n)
{
    static const int order[LM_V_COUNT] = {LM_V_VIOLATED, LM_V_INCONSISTENT, LM_V_ERROR,
                                          LM_V_ASSUMPTION_FAILED, LM_V_ARTIFACT, LM_V_VACUOUS,
                                          LM_V_NOT_CHECKABLE, LM_V_CONSISTENT, LM_V_HOLDS};
    long counts[LM_V_COUNT] = {0};
    for (int k = 0; k < n; k++) {
        int v = docs[k].c->res.verdict;
        counts[v >= 0 && v < LM_V_COUNT ? v : LM_V_ERROR]++;
    }
    if (p && p->authors && *p->authors) {
        rp_esc(w, p->authors);
        rp_put(w, " \\textperiodcentered{} ");
    }
    if (p && p->venue && *p->venue) {
        rp_esc(w, p->venue);
        rp_put(w, " \\textperiodcentered{} ");
    }
    lm_tbuf_printf(&w->b, "%d claim%s:", n, n == 1 ? "" : "s");
    int first = 1;
    for (int j = 0; j < LM_V_COUNT; j++) {
        if (!counts[order[j]]) continue;
        lm_tbuf_printf(&w->b, "%s %ld \\protect\\textcolor{%s}{%s}", first ? "" : ",", counts[order[j]],
                       rp_vcolor[order[j]], lm_verdict_name((lm_verdict)order[j]));
        first = 0;
    }
}

/* the reviewer's edition: of every paper (ED_REVIEW) or of one (ED_PAPER) */
static void put_review(edition *ed, const weave_ctx *X)
{
    rp_writer *w = &ed->w;
    const lm_results *R = X->R;
    const rp_doc *docs = X->docs + ed->first;
    const int n = ed->n;
    /* the results of this edition as one lm_results (strings shared with R), the run most of
     * them come from standing for them (ties: the newest) */
    lm_results V = *R;
    V.claims = R->claims + ed->first;
    V.nclaims = n;
    int nused = 0, best = 0;
    for (int j = 0; j < R->nruns; j++) {
        int c = 0;
        for (int k = 0; k < n; k++) c += docs[k].c->run == R->runs[j].id;
        if (ed->kind == ED_REVIEW)
            c += R->runs[j].nlive; /* the live runs are all in this edition */
        if (!c) continue;
        nused++;
        if (c > best) { /* R->runs is newest first */
            best = c;
            V.id = R->runs[j].id;
            V.meta = R->runs[j].meta;
            V.finished = R->runs[j].finished;
            V.seconds = R->runs[j].seconds;
        }
    }
    char title[300];
    if (ed->kind == ED_PAPER)
        snprintf(title, sizeof title, "lemmata report: %s", paper_title(ed->paper, ed->paper->id));
    else
        snprintf(title, sizeof title, "lemmata verification report");
    put_preamble(w, &V, nused, title);
    rp_put_front(w, &V, docs, X->dbpath); /* opens the document */
    if (ed->kind == ED_PAPER) {
        rp_put(w, "\\subsection*{This edition}\nThe report of one paper, \\emph{");
        rp_esc(w, paper_title(ed->paper, ed->paper->id));
        rp_put(w, "}");
        if (ed->paper->authors && *ed->paper->authors) {
            rp_put(w, " (");
            rp_esc(w, ed->paper->authors);
            if (ed->paper->venue && *ed->paper->venue) {
                rp_put(w, "; ");
                rp_esc(w, ed->paper->venue);
            }
            rp_put(w, ")");
        }
        rp_put(w, ", with the code of its claims in an appendix.  \\texttt{lemmata.pdf} beside it is the "
                  "report of every paper.\n\n");
    }
    rp_put_coverage(w, R, docs, n, ed->paper ? ed->paper->id : NULL);
    /* the reviewer's contents is one page: the summary sections and the papers (every claim
     * is in the summary table and the bookmarks); a paper's own edition lists its claims */
    rp_put(w, ed->kind == ED_PAPER ? "\\clearpage\n\\lmcontents{2}\n\\clearpage\n"
                                   : "\\Needspace{24\\baselineskip}\n\\setcounter{tocdepth}{0}\\lmcontents{1}\n");

    /* the summary over the edition's claims */
    rp_writer tmp;
    memset(&tmp, 0, sizeof tmp);
    lm_tbuf_init(&tmp.b);
    rp_put_summary(&tmp, docs, n);
    put_with_contents_line(w, &tmp, "Summary");
    rp_put_findings(&tmp, docs, n);
    put_with_contents_line(w, &tmp, "Where it broke");
    rp_put_counterexamples(&tmp, docs, n);
    put_with_contents_line(w, &tmp, "Counterexamples");

    /* per paper: its heading, its summary page, its claims, its live runs */
    char *done = calloc((size_t)R->nlive + 1, 1);
    int *which = calloc((size_t)R->nlive + 1, sizeof *which);
    if (!done || !which) {
        w->b.oom = 1;
        free(done);
        free(which);
        return;
    }
    for (int a = 0; a < n;) {
        int b = a + 1;
        while (b < n && !strcmp(docs[b].paper, docs[a].paper)) b++;
        const lm_paper *p = lm_paper_find(docs[a].paper);
        rp_put(w, "\\clearpage\n");
        /* the contents line and bookmark; the heading itself is claim.c's (rp_put_paper),
         * or, for a paper this build does not have, its id */
        rp_put(w, "\\phantomsection\\addcontentsline{toc}{part}{");
        rp_esc(w, paper_title(p, docs[a].paper));
        rp_put(w, "}%\n\\addtocontents{toc}{\\protect\\lmtocnote{");
        put_paper_note(w, p, docs + a, b - a);
        rp_put(w, "}}%\n");
        if (p) rp_put_paper(w, docs, n, a);
        else {
            rp_put(w, "\\noindent{\\Large\\bfseries ");
            rp_esc(w, docs[a].paper);
            lm_tbuf_printf(&w->b, "}\\par\\smallskip\\noindent{\\small %d claim%s; a paper this build does "
                                  "not have}\\par\\medskip\n", b - a, b - a == 1 ? "" : "s");
        }
        rp_put_paper_summary(w, docs, n, a, b - a);
        for (int k = a; k < b; k++) put_claim_review(ed, X, ed->first + k);
        int nw = p ? live_of(R, p, which, done) : 0;
        rp_put_live(w, R, which, nw, X->live_fig, X->live_first, X->live_count);
        a = b;
    }
    /* every constant's row: after the papers, whose summary pages carry each paper's slack
     * figure and undecided constants, so the front matter stays short */
    rp_put(w, "\\clearpage\n");
    lm_report_slack(&tmp.b, &V, X->dbpath);
    put_with_contents_line(w, &tmp, "Constant slack");
    lm_tbuf_free(&tmp.b);
    if (ed->kind == ED_REVIEW) {
        /* live runs of papers with no claim here, then of papers this build does not have */
        for (int j = 0; j < lm_paper_count; j++) {
            int nw = live_of(R, lm_papers[j], which, done);
            if (!nw) continue;
            rp_put(w, "\\clearpage\n\\lmpart{");
            rp_esc(w, paper_title(lm_papers[j], lm_papers[j]->id));
            rp_put(w, "}{");
            rp_esc(w, paper_title(lm_papers[j], lm_papers[j]->id));
            rp_put(w, "}\n");
            rp_put_live(w, R, which, nw, X->live_fig, X->live_first, X->live_count);
        }
        int nw = live_of(R, NULL, which, done);
        if (nw) {
            rp_put(w, "\\clearpage\n\\lmpart{Other live runs}{Other live runs}\n");
            rp_put_live(w, R, which, nw, X->live_fig, X->live_first, X->live_count);
        }
        /* `make bench` writes its page (table and log-log plots) as a fragment */
        rp_put(w, "\\IfFileExists{report/bench.tex}{\\clearpage\\phantomsection"
                  "\\addcontentsline{toc}{part}{Benchmarks}\\input{report/bench.tex}}{}\n");
    } else {
        rp_put(w, "\\clearpage\n\\lmpart{Appendix: data and code of the claims}{Appendix: data and code of the "
                  "claims}\nFor each claim: its measured quantities, named constants, the commands that "
                  "reproduce the worst instance of each configuration, and its file after the literate "
                  "header (the statement and how it is checked, typeset in the claim's section).  Each "
                  "heading links back to the claim.\n\n");
        for (int k = 0; k < n; k++) put_code_section(ed, X, ed->first + k);
    }
    rp_put(w, "\\end{document}\n");
    free(done);
    free(which);
}

/* the code companion: the code of every claim, one section per claim file */
static void put_code_edition(edition *ed, const weave_ctx *X)
{
    rp_writer *w = &ed->w;
    const lm_results *R = X->R;
    const rp_doc *docs = X->docs;
    put_preamble(w, R, R->nruns, "lemmata code and data companion");
    rp_put(w, "\\begin{document}\n\\pdfbookmark[1]{Overview}{overview}\n"
              "\\begin{center}\n{\\LARGE\\bfseries lemmata: the data and code of the claims}\\\\[6pt]\n");
    lm_tbuf_printf(&w->b, "{\\large companion to \\href{lemmata.pdf}{\\texttt{lemmata.pdf}} "
                          "\\textperiodcentered{} %d claim file%s}\n\\end{center}\n",
                   ed->n, ed->n == 1 ? "" : "s");
    rp_put(w, "Every claim of the report is one literate C file: a header comment with the LaTeX "
              "the report typesets (the statement, how it is checked), its named parameters, and "
              "an evaluator that records each inequality.  This companion gives, in the report's "
              "order, each claim's measured quantities at the worst instance of every configuration, "
              "its named constants, one command per configuration that reproduces its worst "
              "instance, and its file after the literate header.  Each heading links back to the "
              "claim's section in \\texttt{lemmata.pdf}, and each claim section there links here "
              "(both files must sit in the same directory).\n\n\\lmcontents{2}\n\\clearpage\n");
    for (int a = 0; a < ed->n;) {
        int b = a + 1;
        while (b < ed->n && !strcmp(docs[b].paper, docs[a].paper)) b++;
        const lm_paper *p = lm_paper_find(docs[a].paper);
        rp_put(w, "\\Needspace{16\\baselineskip}\\bigskip\n\\lmpart{");
        rp_esc(w, paper_title(p, docs[a].paper));
        rp_put(w, "}{");
        rp_esc(w, paper_title(p, docs[a].paper));
        rp_put(w, "}\n");
        for (int k = a; k < b; k++) put_code_section(ed, X, k);
        a = b;
    }
    rp_put(w, "\\end{document}\n");
}

/* ---- compiling the editions ---------------------------------------------------------- */

/* the exit status of a finished child as lm_proc_wait gives it */
static int child_status(int st)
{
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
    return -1;
}

/* the pages of an edition, read from its .aux (LastPage); 0 when unknown */
static int pages_of(const char *wdir, const char *job)
{
    char path[1300], line[4096];
    snprintf(path, sizeof path, "%s/%s.aux", wdir, job);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int pages = 0;
    while (fgets(line, sizeof line, f)) {
        const char *p = strstr(line, "\\newlabel{LastPage}{{");
        if (!p) continue;
        p = strchr(p + 21, '{'); /* {}{412}... : the page is the second group */
        if (p) pages = atoi(p + 1);
    }
    fclose(f);
    return pages;
}

static int start_pass(edition *ed, const char *root)
{
    char outarg[128], input[300], lmlog[1300];
    char jobarg[160];
    snprintf(outarg, sizeof outarg, "-output-directory=%s", ed->wrel);
    snprintf(input, sizeof input, "%s/%s.tex", ed->wrel, ed->name);
    snprintf(jobarg, sizeof jobarg, "-jobname=%s", ed->job);
    snprintf(lmlog, sizeof lmlog, "%s/pdflatex.log", ed->wdir);
    const char *argv[] = {"pdflatex",       "-no-shell-escape", "-interaction=nonstopmode",
                          "-halt-on-error", outarg,             jobarg,
                          input,            NULL};
    const char *env[] = {"openin_any=p", "openout_any=p", NULL};
    ed->pid = lm_proc_start_env(root, argv, lmlog, env);
    return ed->pid < 0 ? -1 : 0;
}

/* Compiles every edition, one per core at a time, the largest first; each again until its
 * auxiliary files stop changing (at most four passes).  0, or -1 with err (the first failure). */
static int compile_all(edition *ed, int ned, const char *root, const weave_ctx *X, char *err, int errlen)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    const int par = ncpu < 1 ? 1 : ncpu > PAR_MAX ? PAR_MAX : (int)ncpu;
    int *order = malloc(sizeof *order * (size_t)(ned ? ned : 1));
    if (!order) {
        snprintf(err, (size_t)errlen, "out of memory");
        return -1;
    }
    for (int k = 0; k < ned; k++) order[k] = k;
    for (int i = 1; i < ned; i++) /* by size of the source, largest first */
        for (int j = i; j > 0 && strlen(ed[order[j]].tex) > strlen(ed[order[j - 1]].tex); j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    int running = 0, failed = 0;
    for (;;) {
        for (int i = 0; i < ned && running < par && !failed; i++) {
            edition *e = &ed[order[i]];
            if (e->done || e->pid > 0) continue;
            if (start_pass(e, root)) {
                snprintf(err, (size_t)errlen, "cannot run pdflatex (apt-get install texlive-latex-base)");
                failed = 1;
                break;
            }
            running++;
        }
        if (running == 0) break;
        /* the first of the running passes to end */
        int got = -1, st = 0;
        while (got < 0) {
            for (int k = 0; k < ned && got < 0; k++) {
                if (ed[k].pid <= 0) continue;
                pid_t r = waitpid(ed[k].pid, &st, WNOHANG);
                if (r == ed[k].pid || (r < 0 && errno != EINTR)) got = k;
                if (r < 0 && errno != EINTR) st = -1;
            }
            if (got < 0) {
                struct timespec ts = {0, 20 * 1000000L};
                nanosleep(&ts, NULL);
            }
        }
        edition *e = &ed[got];
        e->pid = 0;
        running--;
        int lr = st == -1 ? -1 : child_status(st);
        if (lr != 0) {
            if (!failed) {
                char joblog[1300], shown[1300];
                snprintf(joblog, sizeof joblog, "%s/%s.log", e->wdir, e->job);
                snprintf(shown, sizeof shown, "%s/%s.log", e->adir, e->job);
                if (lr == 127 || lr < 0)
                    snprintf(err, (size_t)errlen, "cannot run pdflatex (apt-get install texlive-latex-base)");
                else if (lr >= 128)
                    snprintf(err, (size_t)errlen, "pdflatex was killed by signal %d", lr - 128);
                else
                    latex_error(joblog, shown, e->texname, &e->w, X->docs + e->first, err, errlen);
            }
            failed = 1;
            e->done = 1;
            continue;
        }
        e->passes++;
        unsigned long long after = aux_hash(e->wdir, e->job);
        if (after == e->before || e->passes >= 4) e->done = 1;
        e->before = after;
    }
    /* after a failure the other passes are not needed */
    for (int k = 0; k < ned; k++)
        if (ed[k].pid > 0) {
            kill(ed[k].pid, SIGKILL);
            lm_proc_wait(ed[k].pid);
            ed[k].pid = 0;
        }
    free(order);
    return failed ? -1 : 0;
}

/* ---- build ------------------------------------------------------------------------ */

static int is_recon(const lm_claim *c)
{
    return c->origin && !strncasecmp(c->origin, "recon", 5);
}

/* report/<name>.pdf of a paper: its id with anything but letters, digits, '-' and '_'
 * replaced, and never one of the report's own names */
static void paper_file_name(char *dst, size_t n, const char *id)
{
    char clean[64];
    size_t w = 0;
    for (const char *p = id; *p && w + 1 < sizeof clean; p++)
        clean[w++] = ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                      *p == '-' || *p == '_')
                         ? *p
                         : '_';
    clean[w] = 0;
    if (!w || !strncmp(clean, "lemmata", 7) || !strcmp(clean, "pdflatex") || !strcmp(clean, "build"))
        snprintf(dst, n, "paper-%s", clean);
    else
        snprintf(dst, n, "%s", clean);
}

int lm_report_build(const char *dbpath, long long run, const char *root, char *err, int errlen)
{
    return lm_report_build_ex(dbpath, run, root, NULL, 0, err, errlen);
}

int lm_report_build_ex(const char *dbpath, long long run, const char *root, char *done, int donelen,
                       char *err, int errlen)
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
    if (done && donelen > 0) done[0] = 0;
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
    if (run == 0 || run < -1) {
        snprintf(err, (size_t)errlen, "no run %lld: runs are numbered from 1", run);
        return -1;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);

    lm_results R;
    if (lm_results_load(&R, dbpath, run, err, errlen)) return -1;
    int rc = -1, lockfd = -1, ned = 0;
    edition *ed = NULL;
    lm_figure *all = NULL;
    rp_slack *slack = NULL; /* slack.c: the constants, for the summary pages */
    rp_depth *depth = NULL; /* depth.c: the budgets searched, for the summary pages */
    int *live_first = NULL, *live_count = NULL, *fig_cfg = NULL;
    char *fig_hist = NULL;
    char (*anchor)[200] = NULL;
    char rdir[1024], bdir[1100];
    lm_report_path(rdir, sizeof rdir, root, "report");
    snprintf(bdir, sizeof bdir, "%s/build", rdir);
    rp_doc *docs = calloc((size_t)(R.nclaims ? R.nclaims : 1), sizeof *docs);
    anchor = calloc((size_t)(R.nclaims ? R.nclaims : 1), sizeof *anchor);
    /* the reviewer's edition, the code companion, one per paper of this build */
    ed = calloc((size_t)lm_paper_count + 2, sizeof *ed);
    if (!docs || !anchor || !ed) {
        snprintf(err, (size_t)errlen, "out of memory");
        goto out;
    }

    /* claim files: blocks first, so a malformed block stops us before any
     * output; only regular files under lemmas/ or src/ of the source tree
     * are read, whatever path the database names */
    const char *src = lm_report_source_tree(root);
    for (int k = 0; k < R.nclaims; k++) {
        rp_doc *d = &docs[k];
        d->c = &R.claims[k];
        const lm_claim *c = &d->c->claim;
        anchor_of(anchor[k], sizeof anchor[k], c->id, k);
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
    if (mkdirs(rdir, err, errlen) || mkdirs(fdir, err, errlen) || mkdirs(bdir, err, errlen)) goto out;

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
    nfig_all += R.nclaims; /* a slack figure per paper (slack.c), at most one per claim */
    nfig_all += R.nclaims; /* a search-depth figure per paper (depth.c), the same */
    all = calloc((size_t)(nfig_all ? nfig_all : 1), sizeof *all);
    if (!all) {
        snprintf(err, (size_t)errlen, "out of memory");
        goto out;
    }
    fig_cfg = calloc((size_t)(nfig_all ? nfig_all : 1), sizeof *fig_cfg);
    fig_hist = calloc((size_t)(nfig_all ? nfig_all : 1), 1);
    if (!fig_cfg || !fig_hist) {
        snprintf(err, (size_t)errlen, "out of memory");
        goto out;
    }
    for (int k = 0; k < R.nclaims; k++) {
        rp_doc *d = &docs[k];
        d->fig = all + used;
        const lm_claim_result *r = &d->c->res;
        char sid[160];
        lm_fig_sanitize(sid, sizeof sid, d->c->claim.id);
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
            int had = d->nfig;
            if (lm_fig_write(root, d->c->claim.id, tag, &r->cfg[j], d->fig, &d->nfig,
                             2 * r->nconfig, err, errlen))
                goto out;
            /* figures.c writes the series, then the histogram figures/<id>-<tag>-ratios */
            char hist[400];
            snprintf(hist, sizeof hist, "figures/%s-%.100s-ratios", sid, tag);
            for (int i = had; i < d->nfig; i++) {
                fig_cfg[used + i] = j;
                fig_hist[used + i] = !strcmp(d->fig[i].path, hist);
            }
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
    /* the slack of each paper's constants, for its summary page */
    int nslack = 0;
    if (!(slack = rp_slack_prepare(root, dbpath, &R, docs, R.nclaims, all + used, &nslack, nfig_all - used, err,
                                   errlen)))
        goto out;
    used += nslack;
    int ndepth = 0;
    if (!(depth = rp_depth_prepare(root, dbpath, &R, docs, R.nclaims, all + used, &ndepth, nfig_all - used, err,
                                   errlen)))
        goto out;
    used += ndepth;
    if (lm_fig_render(root, all, used, err, errlen)) goto out;

    /* the editions' LaTeX */
    const weave_ctx X = {&R, docs, anchor, live_fig, live_first, live_count, dbpath, all, fig_cfg, fig_hist};
    ed[ned] = (edition){.kind = ED_REVIEW, .first = 0, .n = R.nclaims};
    snprintf(ed[ned].name, sizeof ed[ned].name, "lemmata");
    ned++;
    ed[ned] = (edition){.kind = ED_CODE, .first = 0, .n = R.nclaims};
    snprintf(ed[ned].name, sizeof ed[ned].name, "lemmata-code");
    ned++;
    for (int a = 0; a < R.nclaims;) {
        int b = a + 1;
        while (b < R.nclaims && !strcmp(docs[b].paper, docs[a].paper)) b++;
        const lm_paper *p = lm_paper_find(docs[a].paper);
        if (p && ned < lm_paper_count + 2) {
            ed[ned] = (edition){.kind = ED_PAPER, .first = a, .n = b - a, .paper = p};
            paper_file_name(ed[ned].name, sizeof ed[ned].name, p->id);
            ned++;
        }
        a = b;
    }
    for (int k = 0; k < ned; k++) {
        edition *e = &ed[k];
        lm_tbuf_init(&e->w.b);
        e->w.slack = slack;
        e->w.depth = depth;
        snprintf(e->job, sizeof e->job, "%s-build", e->name);
        /* lemmata.pdf's files stay where they always were; the others' go to report/build/ */
        snprintf(e->adir, sizeof e->adir, "%s", e->kind == ED_REVIEW ? rdir : bdir);
        snprintf(e->texname, sizeof e->texname, "report/%s%s.tex", e->kind == ED_REVIEW ? "" : "build/", e->name);
        if (e->kind == ED_CODE) put_code_edition(e, &X);
        else put_review(e, &X);
        if (e->w.b.oom) {
            snprintf(err, (size_t)errlen, "out of memory writing the report");
            goto out;
        }
        e->tex = lm_tbuf_take(&e->w.b);
        if (!e->tex) {
            snprintf(err, (size_t)errlen, "out of memory writing the report");
            goto out;
        }
    }

    /* Each edition is compiled in a directory of its own, report/weave-XXXXXX: the .tex,
     * pdflatex's .aux/.toc/.out/.log and the PDF.  Only when every edition ended in a PDF
     * that pdflatex finished, complete to its %%EOF, are they renamed into report/; a weave
     * killed at any point leaves the previous PDFs and auxiliary state as they were. */
    for (int k = 0; k < ned; k++) {
        edition *e = &ed[k];
        char tmpl[1100];
        snprintf(tmpl, sizeof tmpl, "%s/weave-XXXXXX", rdir);
        if (!mkdtemp(tmpl)) {
            snprintf(err, (size_t)errlen, "cannot create a directory in %s: %s", rdir, strerror(errno));
            goto out;
        }
        snprintf(e->wdir, sizeof e->wdir, "%s", tmpl);
        snprintf(e->wrel, sizeof e->wrel, "report/%s", strrchr(tmpl, '/') + 1);
        char texpath[1300];
        snprintf(texpath, sizeof texpath, "%s/%s.tex", e->wdir, e->name);
        if (lm_write_atomic(texpath, e->tex, strlen(e->tex), err, errlen)) goto out;
        aux_restore(e->adir, e->wdir, e->job);
        e->before = aux_hash(e->wdir, e->job);
    }
    if (compile_all(ed, ned, root, &X, err, errlen)) goto out;
    for (int k = 0; k < ned; k++) {
        char tmp_pdf[1300];
        snprintf(tmp_pdf, sizeof tmp_pdf, "%s/%s.pdf", ed[k].wdir, ed[k].job);
        if (!lm_pdf_complete(tmp_pdf)) {
            snprintf(err, (size_t)errlen, "pdflatex wrote no complete PDF for report/%s.pdf (see %s/%s.log)",
                     ed[k].name, ed[k].adir, ed[k].job);
            goto out;
        }
        if (fsync_file(tmp_pdf)) {
            snprintf(err, (size_t)errlen, "cannot write %s: %s", tmp_pdf, strerror(errno));
            goto out;
        }
        ed[k].pages = pages_of(ed[k].wdir, ed[k].job);
    }
    /* every PDF is complete: now they replace the previous ones */
    for (int k = 0; k < ned; k++) {
        char tmp_pdf[1300], pdf[1300];
        snprintf(tmp_pdf, sizeof tmp_pdf, "%s/%s.pdf", ed[k].wdir, ed[k].job);
        snprintf(pdf, sizeof pdf, "%s/%s.pdf", rdir, ed[k].name);
        if (rename(tmp_pdf, pdf)) {
            snprintf(err, (size_t)errlen, "cannot rename %s to %s: %s", tmp_pdf, pdf, strerror(errno));
            goto out;
        }
        aux_save(ed[k].adir, ed[k].wdir, ed[k].job);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (done && donelen > 0) {
        int len = snprintf(done, (size_t)donelen, "%s/lemmata.pdf (%d page%s), lemmata-code.pdf (%d page%s)", rdir,
                           ed[0].pages, ed[0].pages == 1 ? "" : "s", ed[1].pages, ed[1].pages == 1 ? "" : "s");
        for (int k = 2; k < ned && len >= 0 && len < donelen; k++)
            len += snprintf(done + len, (size_t)(donelen - len), "%s%s.pdf (%d)", k == 2 ? "; per paper: " : ", ",
                            ed[k].name, ed[k].pages);
        if (len >= 0 && len < donelen)
            snprintf(done + len, (size_t)(donelen - len), "; woven in %.1f s",
                     (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    }
    rc = 0;
out:
    for (int k = 0; ed && k < ned; k++) {
        edition *e = &ed[k];
        if (e->wdir[0]) {
            /* the .tex and the logs stay for reading, also after a failure */
            char name[160], log[160];
            snprintf(name, sizeof name, "%s.tex", e->name);
            snprintf(log, sizeof log, "%s.log", e->job);
            move_out(e->wdir, name, e->adir, name);
            if (e->kind == ED_REVIEW) move_out(e->wdir, "pdflatex.log", e->adir, "pdflatex.log");
            else {
                char plog[200];
                snprintf(plog, sizeof plog, "pdflatex-%s.log", e->name);
                move_out(e->wdir, "pdflatex.log", e->adir, plog);
            }
            move_out(e->wdir, log, e->adir, log);
            rm_tree(e->wdir);
        }
        free(e->tex);
        free(e->w.sp);
        lm_tbuf_free(&e->w.b);
    }
    if (lockfd >= 0) close(lockfd); /* releases the lock */
    if (docs)
        for (int k = 0; k < R.nclaims; k++) lm_literate_free(&docs[k].L);
    free(docs);
    free(anchor);
    free(ed);
    free(all);
    free(fig_cfg);
    free(fig_hist);
    rp_slack_free(slack);
    rp_depth_free(depth);
    free(live_first);
    free(live_count);
    lm_results_free(&R);
    return rc;
}
