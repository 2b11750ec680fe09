/* lm_report.h -- weave the PDF: LaTeX from the claim files' literate blocks
 * and the results database, gnuplot figures, pdflatex. */
#ifndef LM_REPORT_H
#define LM_REPORT_H

/* Build root/report/lemmata.pdf from run `run` (-1: latest) of the database.
 *
 * root (relative or absolute; created when missing) receives report/ and
 * figures/.  Claim files are read from the source tree: root when it has a
 * lemmas/ directory, else the current directory; a path the database records
 * is read only when it resolves to a regular file under lemmas/ or src/ of
 * that tree (otherwise the report says the file is unavailable).
 *
 * The weave runs in a temporary directory under root/report; the PDF is
 * renamed into place only when pdflatex succeeded and the PDF is complete, so
 * a failed or killed weave leaves the previous report/lemmata.pdf untouched.
 * Returns 0 on success and writes a one-line reason into err otherwise. */
int lm_report_build(const char *dbpath, long long run, const char *root,
                    char *err, int errlen);

#endif
