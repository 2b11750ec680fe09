/* literate.c -- the LaTeX blocks at the top of a claim file.
 *
 *     / * lemmas/mypaper/lemma3.c
 *      *
 *      * \claim{mypaper/lemma3}{Descent along gradient descent}
 *      * \source{transformer-gd-dynamics, Theorem 1}
 *      * \statement{$f(M_t;X) \le (1-\eta\alpha)^t f(M_0;X)$ ...
 *      *            ... continued lines}
 *      * \check{Train $W^V$ by GD ...}
 *      * /
 *
 * The first comment of the file is read; on each of its lines the leading
 * blanks and one "*" (plus one blank after it) are stripped.  Blocks are
 * \claim{id}{title}, \source{..}, \statement{..}, \check{..} and the optional
 * \note{..}; text outside them is ignored.  Each block keeps the line of the
 * file where its argument starts, so LaTeX errors can point into the file.
 */
#include "report_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *text;   /* stripped comment text, lines joined by '\n' */
    int *srcline; /* file line of each stripped line */
    int nline;
} stripped;

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *s = malloc(cap);
    while (s) {
        if (n + 1024 + 1 > cap) {
            char *t = realloc(s, cap * 2);
            if (!t) {
                free(s);
                s = NULL;
                break;
            }
            s = t;
            cap *= 2;
        }
        size_t r = fread(s + n, 1, cap - n - 1, f);
        n += r;
        if (r == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (!s || bad) {
        free(s);
        return NULL;
    }
    s[n] = 0;
    *len = n;
    return s;
}

static int line_of(const char *s, const char *p)
{
    int line = 1;
    for (; s < p; s++)
        if (*s == '\n') line++;
    return line;
}

/* comment body [b, e) starting on file line `first` -> stripped text */
static int strip_comment(stripped *st, const char *b, const char *e, int first)
{
    size_t cap = (size_t)(e - b) + 2;
    int maxl = 2;
    for (const char *p = b; p < e; p++)
        if (*p == '\n') maxl++;
    st->text = malloc(cap);
    st->srcline = malloc(sizeof(int) * (size_t)maxl);
    st->nline = 0;
    if (!st->text || !st->srcline) return -1;
    size_t n = 0;
    const char *p = b;
    int line = first;
    for (;;) {
        const char *eol = memchr(p, '\n', (size_t)(e - p));
        const char *le = eol ? eol : e;
        const char *q = p;
        while (q < le && (*q == ' ' || *q == '\t')) q++;
        if (q < le && *q == '*') {
            q++;
            if (q < le && *q == ' ') q++;
        }
        if (st->nline) st->text[n++] = '\n';
        /* drop a trailing '\r' */
        const char *qe = le;
        if (qe > q && qe[-1] == '\r') qe--;
        memcpy(st->text + n, q, (size_t)(qe - q));
        n += (size_t)(qe - q);
        st->srcline[st->nline++] = line;
        if (!eol) break;
        p = eol + 1;
        line++;
    }
    st->text[n] = 0;
    return 0;
}

static int src_line(const stripped *st, const char *p)
{
    int k = line_of(st->text, p) - 1;
    if (k < 0) k = 0;
    if (k >= st->nline) k = st->nline - 1;
    return st->srcline[k];
}

/* p at '{': returns the matching '}' or NULL */
static const char *match_brace(const char *p)
{
    int depth = 0;
    for (; *p; p++) {
        if (*p == '\\' && p[1]) {
            p++;
            continue;
        }
        if (*p == '%') {
            while (p[1] && p[1] != '\n') p++;
            continue;
        }
        if (*p == '{') depth++;
        else if (*p == '}' && --depth == 0) return p;
    }
    return NULL;
}

/* $ parity and \begin/\end nesting of a block; 0 when fine, else the
 * offending pointer in *bad and a reason in why */
static int check_block(const char *s, const char **bad, char *why, size_t wn)
{
    int dollars = 0;
    const char *last_dollar = s;
    enum { MAXD = 32 };
    char env[MAXD][40];
    const char *envp[MAXD];
    int nenv = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '%' ) {
            while (p[1] && p[1] != '\n') p++;
            continue;
        }
        if (*p == '$') {
            dollars++;
            last_dollar = p;
            continue;
        }
        if (*p != '\\') continue;
        int isbegin = !strncmp(p, "\\begin{", 7), isend = !strncmp(p, "\\end{", 5);
        if (!isbegin && !isend) {
            if (p[1]) p++;
            continue;
        }
        const char *nm = p + (isbegin ? 7 : 5);
        const char *ne = strchr(nm, '}');
        if (!ne) break; /* brace matching reports it */
        char name[40];
        snprintf(name, sizeof name, "%.*s", (int)(ne - nm), nm);
        if (isbegin) {
            if (nenv < MAXD) {
                snprintf(env[nenv], sizeof env[nenv], "%s", name);
                envp[nenv] = p;
            }
            nenv++;
        } else {
            if (nenv == 0) {
                *bad = p;
                snprintf(why, wn, "\\end{%s} without \\begin", name);
                return -1;
            }
            nenv--;
            if (nenv < MAXD && strcmp(env[nenv], name)) {
                *bad = p;
                snprintf(why, wn, "\\end{%s} closes \\begin{%s}", name, env[nenv]);
                return -1;
            }
        }
        p = ne;
    }
    if (nenv > 0) {
        int k = nenv - 1 < MAXD ? nenv - 1 : MAXD - 1;
        *bad = envp[k];
        snprintf(why, wn, "\\begin{%s} is never closed", env[k]);
        return -1;
    }
    if (dollars % 2) {
        *bad = last_dollar;
        snprintf(why, wn, "odd number of $ (unclosed math)");
        return -1;
    }
    return 0;
}

static char *dup_range(const char *b, const char *e)
{
    char *s = malloc((size_t)(e - b) + 1);
    if (!s) return NULL;
    memcpy(s, b, (size_t)(e - b));
    s[e - b] = 0;
    return s;
}

void lm_literate_free(lm_literate *L)
{
    free(L->id.text);
    free(L->title.text);
    free(L->source.text);
    free(L->statement.text);
    free(L->check.text);
    free(L->note.text);
    memset(L, 0, sizeof *L);
}

int lm_literate_read(lm_literate *L, const char *path, const char *shown, char *err, int errlen)
{
    memset(L, 0, sizeof *L);
    L->code_line = 1;
    if (!shown) shown = path;
    size_t len = 0;
    char *src = slurp(path, &len);
    if (!src) {
        snprintf(err, (size_t)errlen, "cannot read claim file %s", shown);
        return -1;
    }
    L->nlines = line_of(src, src + len) - (len && src[len - 1] == '\n' ? 1 : 0);
    for (size_t k = 0; k < len; k++)
        if ((unsigned char)src[k] >= 0x80) L->nonascii = 1;
    const char *p = src;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    if (strncmp(p, "/*", 2)) {
        free(src);
        return 0; /* no literate header: the report says so */
    }
    const char *cb = p + 2, *ce = strstr(cb, "*/");
    if (!ce) {
        snprintf(err, (size_t)errlen, "%s:%d: header comment is never closed", shown,
                 line_of(src, p));
        free(src);
        return -2;
    }
    /* code starts after the comment and the blank lines following it */
    const char *c = ce + 2;
    while (*c == ' ' || *c == '\t' || *c == '\r') c++;
    if (*c == '\n') c++;
    const char *blank = c;
    for (;;) {
        const char *q = blank;
        while (*q == ' ' || *q == '\t' || *q == '\r') q++;
        if (*q != '\n') break;
        blank = q + 1;
    }
    L->code_line = *blank ? line_of(src, blank) : L->nlines + 1;

    stripped st = {0};
    int rc = 0;
    if (strip_comment(&st, cb, ce, line_of(src, cb))) {
        snprintf(err, (size_t)errlen, "out of memory reading %s", shown);
        rc = -1;
        goto out;
    }
    static const char *const names[] = {"claim", "source", "statement", "check", "note"};
    lm_lit_block *dst[] = {&L->id, &L->source, &L->statement, &L->check, &L->note};
    for (const char *q = st.text; (q = strchr(q, '\\')) != NULL;) {
        int which = -1;
        size_t nl = 0;
        for (int k = 0; k < 5; k++) {
            nl = strlen(names[k]);
            if (!strncmp(q + 1, names[k], nl) && q[1 + nl] == '{') {
                which = k;
                break;
            }
        }
        if (which < 0) {
            q += q[1] ? 2 : 1;
            continue;
        }
        const char *a = q + 1 + nl;
        int nargs = which == 0 ? 2 : 1;
        for (int k = 0; k < nargs; k++) {
            if (k == 1) {
                while (*a == ' ' || *a == '\t') a++;
                if (*a != '{') {
                    snprintf(err, (size_t)errlen, "%s:%d: \\claim needs two arguments {id}{title}",
                             shown, src_line(&st, q));
                    rc = -2;
                    goto out;
                }
            }
            const char *e = match_brace(a);
            if (!e) {
                snprintf(err, (size_t)errlen, "%s:%d: unclosed brace in the \\%s block", shown,
                         src_line(&st, q), names[which]);
                rc = -2;
                goto out;
            }
            lm_lit_block *blk = which == 0 ? (k == 0 ? &L->id : &L->title) : dst[which];
            free(blk->text);
            blk->text = dup_range(a + 1, e);
            blk->line = src_line(&st, a + 1);
            if (!blk->text) {
                snprintf(err, (size_t)errlen, "out of memory reading %s", shown);
                rc = -1;
                goto out;
            }
            const char *bad = NULL;
            char why[160];
            int latex = which >= 2 || lm_tex_is_latex(blk->text);
            if (latex && check_block(blk->text, &bad, why, sizeof why)) {
                snprintf(err, (size_t)errlen, "%s:%d: %s in the \\%s block", shown,
                         blk->line + line_of(blk->text, bad) - 1, why, names[which]);
                rc = -2;
                goto out;
            }
            a = e + 1;
        }
        q = a;
    }
out:
    free(st.text);
    free(st.srcline);
    free(src);
    if (rc) {
        lm_literate_free(L);
        L->code_line = 1;
    }
    return rc;
}
