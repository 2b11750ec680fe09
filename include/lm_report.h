/* lm_report.h -- weave the PDF: LaTeX from the claim files' literate blocks
 * and the results database, gnuplot figures, pdflatex. */
#ifndef LM_REPORT_H
#define LM_REPORT_H

/* Build report/lemmata.pdf from run `run` (-1: latest) of the database.
 * root is the source tree (for lemmas/ and report/); returns 0 on success and
 * writes a one-line reason into err otherwise.  The PDF is written to a
 * temporary name and renamed into place only when complete. */
int lm_report_build(const char *dbpath, long long run, const char *root,
                    char *err, int errlen);

#endif
