/* What the three run registries (lm_train.h, lm_ibruns.h, lm_mdruns.h) share: the parsing of a
 * "--set name=value" run setting, and the text buffer their live entries of `lemmata verify`
 * write their figure series into. */
#ifndef LM_LIVE_H
#define LM_LIVE_H

#include <stddef.h>

/* v as a finite decimal number (the whole string: no blanks, no hex, no inf/nan): 0, else -1 */
int lm_live_parse_num(const char *v, double *out);

/* splits kv = "name=value": the name's length into *namelen, the value into *val; 0, else -1
 * with "malformed --set ..." in err */
int lm_live_split(const char *kv, size_t *namelen, const char **val, char *err, int errlen);

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
