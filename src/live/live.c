/* live.c -- what every paper's live runs share (lm_live.h), and finding papers (lm_paper.h). */
#include "lm_alloc.h"
#include "lm_live.h"
#include "lm_paper.h"
#include "lm_verify.h"
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

void lm_live_clear(lm_live *L)
{
    free(L->series);
    free(L->summary);
    memset(L, 0, sizeof *L);
}

const char *lm_name_at(const char *const *names, int k)
{
    for (int j = 0; j <= k; j++)
        if (!names[j]) return NULL;
    return names[k];
}

const lm_paper *lm_paper_find(const char *id)
{
    for (int k = 0; k < lm_paper_count; k++)
        if (!strcmp(lm_papers[k]->id, id)) return lm_papers[k];
    return NULL;
}

const lm_paper *lm_paper_of_claim(const char *claim_id)
{
    const char *s = strchr(claim_id, '/');
    if (!s) return NULL;
    for (int k = 0; k < lm_paper_count; k++) {
        size_t n = strlen(lm_papers[k]->id);
        if (n == (size_t)(s - claim_id) && !strncmp(lm_papers[k]->id, claim_id, n)) return lm_papers[k];
    }
    return NULL;
}

const lm_paper *lm_paper_of_live(const char *name, int *k)
{
    for (int p = 0; p < lm_paper_count; p++)
        for (int j = 0; lm_papers[p]->live_name && lm_papers[p]->live_name(j); j++)
            if (!strcmp(lm_papers[p]->live_name(j), name)) {
                if (k) *k = j;
                return lm_papers[p];
            }
    return NULL;
}

const lm_paper *lm_paper_of_run(const char *name, int *k)
{
    for (int p = 0; p < lm_paper_count; p++) {
        const lm_train_type *t = lm_papers[p]->train;
        for (int j = 0; t && t->name(j); j++)
            if (!strcmp(t->name(j), name)) {
                if (k) *k = j;
                return lm_papers[p];
            }
    }
    return NULL;
}

int lm_paper_nclaims(const lm_paper *p)
{
    int n = 0;
    for (int k = 0; k < lm_registry_count; k++)
        if (lm_paper_of_claim(lm_registry[k]->id) == p) n++;
    return n;
}
