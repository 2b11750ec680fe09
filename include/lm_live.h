/* What every paper's live runs share (lm_paper.h): the parsing of a "--set name=value" run
 * setting, the result of a live entry of `lemmata verify`, and the text buffer its figure
 * series is written into. */
#ifndef LM_LIVE_H
#define LM_LIVE_H

#include <stddef.h>

/* v as a finite decimal number (the whole string: no blanks, no hex, no inf/nan): 0, else -1 */
int lm_live_parse_num(const char *v, double *out);

/* splits kv = "name=value": the name's length into *namelen, the value into *val; 0, else -1
 * with "malformed --set ..." in err */
int lm_live_split(const char *kv, size_t *namelen, const char **val, char *err, int errlen);

/* one live entry of `lemmata verify`, as the report draws it */
typedef struct {
    const char *name, *doc; /* static */
    int steps, prec;        /* its length, and the precision of its MPFR repeat (53: none) */
    char *series;  /* blob of figure directives (lm_live_fig_begin, lm_live_pt) */
    char *summary; /* one line or paragraph */
} lm_live;
/* frees series and summary and zeroes L */
void lm_live_clear(lm_live *L);

/* a growing string */
typedef struct {
    char *s;
    size_t n, cap;
} lm_sbuf;

void lm_live_printf(lm_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "#figure" directive of src/report/figures.c: tag, logx, logy, x label, y label, title, caption */
void lm_live_fig_begin(lm_sbuf *b, const char *tag, int logx, int logy, const char *xl,
                       const char *yl, const char *title, const char *caption);

/* a point "name x y" of a figure, when both are finite */
void lm_live_pt(lm_sbuf *b, const char *name, double x, double y);

#endif
