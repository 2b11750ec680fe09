/* report_priv.h -- internals of the report layer (src/report/), shared by its
 * files and by tests/test_report.c and tests/test_store.c.  Not a public API.
 *
 *   tex.c       growing text buffer, LaTeX escaping, compact number formats
 *   texsafe.c   LaTeX of claim files and live-run captions through an allow-list
 *   literate.c  the \claim/\source/\statement/\check blocks of a claim file
 *   results.c   reads a run and its claims/configs rows back from the DB
 *   figures.c   figures/<id>-<config>.{dat,gp} and gnuplot
 *   (processes: src/sys/proc.c, lm_proc.h)
 *   report.c    lm_report_build: the order of the sections, the preamble, the
 *               writer they are drawn with, pdflatex in a temporary directory,
 *               the source tree claim files are read from
 *   summary.c   front page, summary table, where it broke, counterexamples
 *   claim.c     a paper's heading and the section of each claim
 *   live.c      the live training runs
 *   slack.c     constant slack per paper
 *   code.c      claim code typeset for the report (instead of listings)
 */
#ifndef LM_REPORT_PRIV_H
#define LM_REPORT_PRIV_H

#include "lm_proc.h"
#include "lm_store.h"
#include <stddef.h>
#include <sys/types.h>

/* ---- tex.c ---------------------------------------------------------------- */

/* A growing NUL-terminated buffer; counts the newlines written so far so the
 * writer knows the line of report/lemmata.tex it is on.  On allocation
 * failure `oom` is set and later appends are dropped. */
typedef struct {
    char *s;
    size_t n, cap;
    long lines; /* newlines in s */
    int oom;
} lm_tbuf;

void lm_tbuf_init(lm_tbuf *b);
void lm_tbuf_free(lm_tbuf *b);
void lm_tbuf_putn(lm_tbuf *b, const char *s, size_t n);
void lm_tbuf_puts(lm_tbuf *b, const char *s);
void lm_tbuf_printf(lm_tbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* the contents, owned by the caller (never NULL unless out of memory) */
char *lm_tbuf_take(lm_tbuf *b);

/* Append s (may be NULL) escaped for LaTeX text mode: _ % & # $ { } ~ ^ \
 * and < > | become their text commands; newlines and tabs become spaces;
 * UTF-8 characters the preamble knows pass through, others become "?". */
void lm_tex_escape(lm_tbuf *b, const char *s);
/* Same, but allows a line break after / = , - : and before -- options
 * (for commands, paths and labels typeset in \texttt). */
void lm_tex_escape_tt(lm_tbuf *b, const char *s);
/* malloc'ed escaped copy (NULL on allocation failure) */
char *lm_tex_escape_str(const char *s);
/* 1 when s reads as LaTeX source ($ or \ in it), else plain text */
int lm_tex_is_latex(const char *s);
/* \DeclareUnicodeCharacter lines for the characters lm_tex_escape keeps */
void lm_tex_unicode_preamble(lm_tbuf *b);
/* 1 when the UTF-8 code point cp is typeset by the preamble */
int lm_tex_unicode_ok(unsigned long cp);
/* Decodes the UTF-8 sequence at s (n bytes available) into *cp; returns its
 * length, 0 when it is malformed or cut off. */
int lm_utf8_decode(const unsigned char *s, size_t n, unsigned long *cp);

/* Compact numbers as LaTeX: 3 significant digits, scientific as
 * $1.23{\times}10^{-5}$ outside [1e-3, 1e5), "--" for NaN, $\infty$. */
void lm_tex_num(char *buf, size_t n, double x);
/* A ratio LHS/RHS: like lm_tex_num, but within 0.5% of 1 it is written as
 * $1-3.0{\times}10^{-7}$ / $1+\dots$ so a tight bound never rounds to "1". */
void lm_tex_ratio(char *buf, size_t n, double x);
/* Plain-text versions (gnuplot titles): "1.23e-05", "nan" -> "--". */
void lm_fmt_num(char *buf, size_t n, double x);
/* seconds: "0.012", "3.4", "125" */
void lm_tex_seconds(char *buf, size_t n, double s);

/* ---- texsafe.c ------------------------------------------------------------ */

/* Append the LaTeX source s (may be NULL) with every control sequence outside
 * the allow-list shown as text in red (\lmraw, defined by the preamble) rather
 * than executed, ^^ escapes and # neutralised, and unbalanced braces, $ and
 * environments closed; newlines are kept one for one.  See texsafe.c. */
void lm_tex_safe(lm_tbuf *b, const char *s);
/* malloc'ed copy (NULL on allocation failure) */
char *lm_tex_safe_str(const char *s);
/* 1 when \name, resp. \begin{name}, passes the allow-list */
int lm_tex_safe_word(const char *name);
int lm_tex_safe_env(const char *name);

/* ---- code.c --------------------------------------------------------------- */

/* columns of code per printed line; longer lines continue on the next */
#define LM_CODE_COLS 124
/* Lines first..last of the C source s[0..n) as \lmL/\lmW lines (see code.c). */
void lm_tex_code(lm_tbuf *b, const char *s, size_t n, int first, int last);
/* The same for a file, wrapped in the lmcode environment; -1 if unreadable. */
int lm_tex_code_file(lm_tbuf *b, const char *path, int first, int last);
/* the macros the two above use */
void lm_tex_code_preamble(lm_tbuf *b);

/* ---- literate.c ------------------------------------------------------------ */

typedef struct {
    char *text; /* block argument, " * " comment prefixes stripped; NULL if absent */
    int line;   /* line of the claim file where the argument starts */
} lm_lit_block;

typedef struct {
    lm_lit_block id, title, source, statement, check, note;
    int code_line;  /* first line of code after the header comment (1 if none) */
    int nlines;     /* lines in the file */
    int nonascii;   /* the file has bytes >= 0x80 */
} lm_literate;

/* Reads the header comment of a claim file.  Returns 0 on success, -1 when the
 * file cannot be read, -2 when a block is malformed (unclosed brace,
 * unbalanced $ or \begin/\end); err then reads "path:line: reason". */
int lm_literate_read(lm_literate *L, const char *path, const char *shown_path, char *err,
                     int errlen);
void lm_literate_free(lm_literate *L);

/* ---- results.c -------------------------------------------------------------- */

typedef struct {
    lm_claim claim;        /* strings owned (id, title, file, source, origin, confidence) */
    char *kind_name;       /* as stored (lm_kind_name of the claim's kind) */
    char *params;          /* "name=default\tdoc\n" lines, may be NULL */
    lm_claim_result res;   /* res.claim == &claim; cfg owned */
    long long reused_from; /* run whose unchanged result incremental verify copied (0: run here) */
    long long run;         /* the run this result is stored in (its provenance: R->runs) */
} lm_results_claim;

typedef struct {
    char *name, *doc, *series, *summary;
    int steps, prec;
    double seconds;
    long long run;         /* the run this result is stored in */
} lm_results_live;

/* A run some woven result comes from. */
typedef struct {
    long long id;
    lm_run_meta meta;
    int finished;
    double seconds;        /* wall time recorded by lm_store_finish_run (NaN if none) */
    int nclaims;           /* claims of the report taken from this run */
    int nlive;             /* live runs of the report taken from this run */
    int stored;            /* claims the run holds in all */
    int nshards;           /* a run merged from shards (lemmata merge): how many, else 0 */
    char shards[1200];     /* ... and each one's host, seconds and items, plain text */
} lm_results_run;

typedef struct {
    long long id;          /* the principal run: the one most results come from (ties: newest) */
    lm_run_meta meta;      /* ... and its provenance */
    int finished;
    double seconds;        /* wall time recorded by lm_store_finish_run (NaN if none) */
    int nclaims;
    lm_results_claim *claims; /* sorted by claim id in natural order */
    int nlive;
    lm_results_live *live;    /* live training runs, double vs MPFR */
    int merged;            /* 1: the latest result of every claim; 0: one run exactly */
    int nruns;
    lm_results_run *runs;  /* the runs the results come from, newest first */
    long long newest;      /* the newest run in the database (its id; 0 when none) */
    int newest_stored;     /* claims that newest run holds */
    int dropped;           /* results of older runs left out: their claim is no longer built */
} lm_results;

/* Loads the results read-only.  run < 0: for every claim and live run its latest stored
 * result, whatever run it is in (a result of an older run is left out only when its paper
 * is built here and the claim or live run no longer is); run > 0: that run exactly.
 * -1 with a one-line err when the database cannot be read or has no such run. */
int lm_results_load(lm_results *R, const char *dbpath, long long run, char *err, int errlen);
void lm_results_free(lm_results *R);
/* the run `id` among R->runs, NULL when none */
const lm_results_run *lm_results_run_of(const lm_results *R, long long id);
/* strcmp, except that digit runs compare as numbers ("theorem2" < "theorem10") */
int lm_natural_cmp(const char *a, const char *b);

/* ---- figures.c -------------------------------------------------------------- */

typedef struct {
    char path[300];    /* relative to root, without ".pdf": "figures/dynamics-theorem1-default" */
    char caption[2400]; /* LaTeX (a live run's caption through lm_tex_safe) */
} lm_figure;

/* A figure's .dat or .gp file, written as PATH.tmp and renamed into place when complete, so a
 * weave killed half-way never leaves a truncated file behind. */
typedef struct {
    char rel[320];   /* base + suffix, relative to root: "figures/slack-mypaper.dat" */
    char path[1024]; /* under root */
    char tmp[1100];  /* path + ".tmp" */
} rp_figfile;
/* opens the temporary of root/base+suffix for writing; NULL with "cannot write REL" in err */
FILE *rp_fig_open(rp_figfile *ff, const char *root, const char *base, const char *suffix, char *err, int errlen);
/* closes it and renames it into place: 0, or -1 with "cannot write REL" in err (the
 * temporary removed) */
int rp_fig_close(const rp_figfile *ff, FILE *f, char *err, int errlen);
/* a gnuplot single-quoted string (' doubled, control characters as spaces) */
void rp_gp_str(FILE *f, const char *s);
/* the rest of a .dat comment line: s with control characters as spaces, then a newline */
void rp_dat_comment(FILE *f, const char *s);

/* "mypaper/lemma3" -> "mypaper-lemma3" (letters, digits and '-' only) */
void lm_fig_sanitize(char *dst, size_t n, const char *s);
/* Writes the .dat/.gp files of one configuration under root/figures as
 * figures/<sanitized id>-<tag>[-ratios] and appends the figures to
 * fig[*nfig] (at most maxfig).  tag: the sanitized configuration name, made
 * unique within the claim by the caller.  Returns 0 or -1. */
int lm_fig_write(const char *root, const char *claim_id, const char *tag,
                 const lm_config_result *c, lm_figure *fig, int *nfig, int maxfig, char *err,
                 int errlen);
/* Figures of a live training run (blob format: see figures.c): how many,
 * and writes them as figures/live-<name>-<tag>.{dat,gp}, appending to
 * fig[*nfig] (at most maxfig).  Returns 0 or -1. */
int lm_fig_live_count(const char *series);
int lm_fig_write_live(const char *root, const char *name, const char *series, lm_figure *fig,
                      int *nfig, int maxfig, char *err, int errlen);
/* Runs gnuplot on fig[0..nfig) (cwd = root), two processes at a time.  A
 * figure whose .gp and .dat are byte-identical to the ones its PDF was made
 * from (figures/<name>.stamp holds their hash) is not redrawn.  Returns 0 or
 * -1. */
int lm_fig_render(const char *root, const lm_figure *fig, int nfig, char *err, int errlen);

/* One constant of a paper in its slack figure. */
typedef struct {
    char label[120]; /* "lemma3 Z_scale" */
    double slack;    /* lm_constant_slack; NaN: none (no break found, or failing everywhere) */
    int cls;         /* lm_slack_class */
} lm_slack_point;
/* constants labelled one by one in a slack figure (more: sorted, unlabelled) */
#define LM_SLACK_LABELLED 40
/* Writes figures/slack-<paper>.{dat,gp}: every constant's slack on a log axis, coloured by
 * class (undecided ones are not drawn: the summary page lists them with their reason); fig
 * gets its path and an empty caption.  Returns 0, 1 when nothing has a place on the axis,
 * -1 on error. */
int lm_fig_write_slack(const char *root, const char *paper, const lm_slack_point *pts, int n,
                       lm_figure *fig, char *err, int errlen);

/* FNV-1a of a file's bytes, continued from h (start: LM_FNV_INIT); 0 when
 * it cannot be read */
#define LM_FNV_INIT 14695981039346656037ULL
unsigned long long lm_fnv_file(const char *path, unsigned long long h);

/* processes: lm_proc.h */

void lm_report_slack(lm_tbuf *b, const lm_results *R, const char *dbpath); /* slack.c: "Constant slack" section */

/* ---- report.c --------------------------------------------------------------- */

/* path joined to root unless absolute: writes "root/rel" into dst */
void lm_report_path(char *dst, size_t n, const char *root, const char *rel);
/* The source tree claim files are read from: root when it has a lemmas/
 * directory, else the current directory when it has one, else NULL (no claim
 * file is read). */
const char *lm_report_source_tree(const char *root);
/* Resolves the claim file `rel` (as recorded in the database) inside the
 * source tree src: 0 and its real path in out when it is a regular file under
 * src/lemmas/ or src/src/ after resolving symbolic links and "..", -1
 * otherwise (and out is ""). */
int lm_report_source_file(char *out, size_t n, const char *src, const char *rel);
/* 1 when the file starts with %PDF- and ends with %%EOF (a PDF written to the end) */
int lm_pdf_complete(const char *path);
/* Writes text to path through path.tmp and rename(2): a reader sees the old
 * file or the whole new one.  0 or -1 (err set). */
int lm_write_atomic(const char *path, const char *text, size_t n, char *err, int errlen);

/* ---- the weave: report.c, summary.c, claim.c, live.c -------------------------- */

/* One claim of the run as the weave sees it (filled by lm_report_build). */
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
} rp_doc;

/* Lines of lemmata.tex woven from a claim file, so that a LaTeX error in
 * them is reported at its line of the claim file. */
typedef struct {
    long first, last; /* lines of lemmata.tex */
    int claim;        /* index into the docs */
    const char *what; /* "\statement block", ... */
    int src_line;     /* line of the claim file at `first`; 0: no line mapping */
} rp_span;

/* slack.c: the constants table as the summary pages read it (rp_slack_prepare) */
typedef struct rp_slack rp_slack;

/* The LaTeX document being written. */
typedef struct {
    lm_tbuf b;
    rp_span *sp;
    int nsp, capsp;
    long long run; /* the run being woven */
    int lean;      /* 1: a reviewer's edition: rp_put_claim leaves out what rp_put_claim_data puts
                    * (the code companion, or the appendix, shows it beside the code) */
    const rp_slack *slack; /* the constants, for rp_put_paper_summary (NULL: none measured) */
    const struct rp_depth *depth; /* depth.c: the budgets searched, for rp_put_paper_summary (NULL: none) */
} rp_writer;

/* ---- slack.c: the constants of the woven claims, for the per-paper summary pages ------ */

/* Which measurement each constant shows: the row of the constants table measured with its
 * claim's seed, budget and quick flag (those of the run its result is stored in); else the
 * newest with that seed; else the newest of any seed (the report shows the budget of every
 * row that does not match exactly).
 *
 * rp_slack_prepare reads the constants table of dbpath (may be NULL: nothing measured) for
 * the claims of R, and writes one slack figure per paper of docs[0..n) that has a constant
 * with a place on the axis under root/figures, appending them to fig[*nfig..maxfig) for
 * lm_fig_render.  NULL (err set) on error.  A database without the table measures nothing. */
rp_slack *rp_slack_prepare(const char *root, const char *dbpath, const lm_results *R,
                           const rp_doc *docs, int n, lm_figure *fig, int *nfig, int maxfig,
                           char *err, int errlen);
void rp_slack_free(rp_slack *S);
/* The slack part of a paper's summary page (docs[first..first+count), S may be NULL): how
 * many constants are measured, the figure, and every undecided constant with its reason. */
void rp_slack_put_paper(rp_writer *w, const rp_slack *S, const rp_doc *docs, int first, int count);

/* report.c: the writer, and the colour the preamble defines for each verdict */
extern const char *const rp_vcolor[LM_V_COUNT];
/* records that lines first..last of the .tex being written come from claim `claim`'s `what`
 * (its line `line` in the claim file, 0: none), so a LaTeX error there names it */
void rp_add_span(rp_writer *w, int claim, const char *what, long first, long last, int line);
void rp_put(rp_writer *w, const char *s);         /* s as it is (LaTeX) */
void rp_esc(rp_writer *w, const char *s);         /* s escaped as text (lm_tex_escape) */
void rp_esc_tt(rp_writer *w, const char *s);      /* the same for \texttt (lm_tex_escape_tt) */
void rp_put_verdict(rp_writer *w, lm_verdict v);  /* the verdict's name in its coloured box */
/* a run's precision: "MPFR 256 bits", or (0) "double first, MPFR replay" */
void rp_prec_text(char *buf, size_t n, int prec);

/* summary.c: the sections before the claims' (docs[0..n), sorted by id) */
void rp_put_front(rp_writer *w, const lm_results *R, const rp_doc *docs, const char *dbpath);
void rp_put_summary(rp_writer *w, const rp_doc *docs, int n);
void rp_put_findings(rp_writer *w, const rp_doc *docs, int n);        /* "Where it broke" */
void rp_put_counterexamples(rp_writer *w, const rp_doc *docs, int n);

/* claim.c: readings of a claim's configurations (also read by summary.c) */
/* 1 when configuration k counts for the claim's verdict (it reads the paper as printed,
 * or no configuration does) */
int rp_counts_for_verdict(const lm_claim_result *r, int k);
/* the worst verdict over the configurations of reading `kind` (and note `note`, when not
 * NULL); -1 when there is none */
int rp_reading_verdict(const lm_claim_result *r, lm_reading_kind kind, const char *note);
const char *rp_reading_word(lm_reading_kind k); /* "paper", "repaired", "probe", or "?" */
/* what configuration g tests: its reading's sentence (lm_reading.note), escaped; for a paper
 * reading without one, "the statement as printed" */
void rp_put_config_sentence(rp_writer *w, const lm_config_result *g);
/* claim.c: the heading of docs[k]'s paper (docs[0..n)), before its first claim */
void rp_put_paper(rp_writer *w, const rp_doc *docs, int n, int k);
/* claim.c: the section of claim d, the k-th of the run (label claim:k) */
void rp_put_claim(rp_writer *w, const rp_doc *d, int k);
/* claim.c: the detail a lean section (w->lean) leaves out: measured quantities, named
 * constants, the command reproducing each configuration's worst instance */
void rp_put_claim_data(rp_writer *w, const rp_doc *d);

/* live.c: "Live training runs" of the live runs which[0..nwhich) of R (nothing when
 * nwhich is 0); first[k], count[k]: live run k's figures in fig[] */
void rp_put_live(rp_writer *w, const lm_results *R, const int *which, int nwhich,
                 const lm_figure *fig, const int *first, const int *count);

/* summary.c: one page per paper at the start of its part, before its claims: verdict counts,
 * what broke and why, counterexamples, a slack figure.  docs[first..first+count) are the
 * paper's claims, docs[0..n) those of the edition (labels claim:k index them). */
void rp_put_paper_summary(rp_writer *w, const rp_doc *docs, int n, int first, int count);

/* report.c: after rp_put_front, which runs the results of docs[0..n) come from, whether the
 * latest covered only part of the claims, and the claims of this build with no result
 * (paper: only that paper's; NULL: every paper's) */
void rp_put_coverage(rp_writer *w, const lm_results *R, const rp_doc *docs, int n, const char *paper);

#endif
