/* shared by the run registries: run settings and live-entry figure series (lm_live.h) */
#include "lm_alloc.h"
#include "lm_live.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lm_live_parse_num(const char *v, double *out)
{
    char *e;
    errno = 0;
    double x = strtod(v, &e);
    /* a number and nothing else: no blanks, no hex floats, no "inf"/"nan" (as lm_claim_parse_set) */
    if (strspn(v, "+-0123456789.eE") != strlen(v)) return -1;
    if (*v == 0 || *e != 0 || errno || !isfinite(x)) return -1;
    *out = x;
    return 0;
}

int lm_live_split(const char *kv, size_t *namelen, const char **val, char *err, int errlen)
{
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv || !eq[1]) {
        snprintf(err, (size_t)errlen, "malformed --set '%s' (expected name=value)", kv);
        return -1;
    }
    *namelen = (size_t)(eq - kv);
    *val = eq + 1;
    return 0;
}

void lm_live_printf(lm_sbuf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->n;
        int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? room : 0, fmt, ap);
        va_end(ap);
        if (k < 0) return;
        if (b->s && (size_t)k < room) {
            b->n += (size_t)k;
            return;
        }
        size_t nc = b->cap ? 2 * b->cap : 4096;
        while (nc < b->n + (size_t)k + 1) nc *= 2;
        char *ns = lm_xrealloc(b->s, nc);
        if (!ns) return;
        b->s = ns;
        b->cap = nc;
    }
}

void lm_live_fig_begin(lm_sbuf *b, const char *tag, int logx, int logy, const char *xl,
                       const char *yl, const char *title, const char *caption)
{
    lm_live_printf(b, "#figure\t%s\t%d\t%d\t%s\t%s\t%s\t%s\n", tag, logx, logy, xl, yl, title, caption);
}

void lm_live_pt(lm_sbuf *b, const char *name, double x, double y)
{
    if (isfinite(x) && isfinite(y)) lm_live_printf(b, "%s\t%.9g\t%.9g\n", name, x, y);
}
