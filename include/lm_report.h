/* lm_report.h -- weave the PDFs: LaTeX from the claim files' literate blocks
 * and the results database, gnuplot figures, pdflatex. */
#ifndef LM_REPORT_H
#define LM_REPORT_H

/* Build the report under root/report/ from the database:
 *   lemmata.pdf       the reviewer's edition: front matter, contents, the summary over all
 *                     papers, then per paper its summary page, claim sections and live runs;
 *   lemmata-code.pdf  the code of every claim file, cross-linked with lemmata.pdf;
 *   <paper>.pdf       the reviewer's edition of one paper, its code in an appendix (one for
 *                     each paper of this build that has results).
 * run -1: the latest stored result of every claim and live run, whatever run holds it, each
 * shown with its own run, commit, seed and budget; run N > 0: run N exactly.
 *
 * root (relative or absolute; created when missing) receives report/ and
 * figures/.  Claim files are read from the source tree: root when it has a
 * lemmas/ directory, else the current directory; a path the database records
 * is read only when it resolves to a regular file under lemmas/ or src/ of
 * that tree (otherwise the report says the file is unavailable).
 *
 * The weave runs in temporary directories under root/report; the PDFs are
 * renamed into place only when pdflatex succeeded on every edition and every
 * PDF is complete, so a failed or killed weave leaves the previous PDFs
 * untouched.  Returns 0 on success and writes a one-line reason into err
 * otherwise. */
int lm_report_build(const char *dbpath, long long run, const char *root,
                    char *err, int errlen);
/* The same; on success `done` (may be NULL) gets one line naming the PDFs written, their
 * pages and the weave's wall time. */
int lm_report_build_ex(const char *dbpath, long long run, const char *root, char *done,
                       int donelen, char *err, int errlen);

#endif
