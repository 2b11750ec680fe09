/* code.c -- typeset C source for the report, without the listings package.
 *
 * Every claim section ends with the claim's code.  The listings package did
 * this before; it reads its input character by character inside TeX and cost
 * 48 of the 57 seconds of one pdflatex pass over the full report (881 pages).
 * Here the lexing, colouring, tab expansion and line wrapping are done once in
 * C, and TeX only stacks one \hbox per printed line: the same pass takes a few
 * seconds.
 *
 * The lexer is deliberately small: it knows block and line comments,
 * string and character literals (with backslash escapes), preprocessor lines
 * and C11 keywords.  It starts at line 1 of the file so a comment open before
 * `first` is still coloured as a comment.
 *
 * Output, one line each (the macros are defined by lm_tex_code_preamble):
 *
 *   \lmL{28}{...}   source line 28
 *   \lmW{...}       continuation of a line longer than LM_CODE_COLS columns
 *
 * Inside the braces: \lmK{..} keyword, \lmC{..} comment, \lmS{..} string or
 * character literal, \lmP{..} preprocessor, \lmB{n} a run of n blanks, and
 * \char NN for the characters TeX treats specially (cmtt has a glyph for
 * every printable ASCII character, so copy-paste gives the source back).
 * Non-ASCII characters the preamble can typeset pass through; others
 * become '?'.
 */
#include "report_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CL_PLAIN, CL_KEY, CL_COMMENT, CL_STRING, CL_PRE };

static const char *const class_macro[] = {"", "\\lmK{", "\\lmC{", "\\lmS{", "\\lmP{"};

static const char *const keywords[] = {
    "auto",     "break",    "case",     "char",       "const",         "continue",
    "default",  "do",       "double",   "else",       "enum",          "extern",
    "float",    "for",      "goto",     "if",         "inline",        "int",
    "long",     "register", "restrict", "return",     "short",         "signed",
    "sizeof",   "static",   "struct",   "switch",     "typedef",       "union",
    "unsigned", "void",     "volatile", "while",      "_Bool",         "_Static_assert",
    "_Thread_local", "_Atomic", "_Noreturn", "_Alignof", "_Alignas", "_Generic"};

static int is_ident(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_';
}

static int is_keyword(const char *s, size_t n)
{
    for (size_t k = 0; k < sizeof keywords / sizeof keywords[0]; k++)
        if (strlen(keywords[k]) == n && !memcmp(keywords[k], s, n)) return 1;
    return 0;
}

/* one display column: the bytes of one character and its class */
typedef struct {
    char ch[4];
    unsigned char len, cls;
} cell;

typedef struct {
    cell *c;
    size_t n, cap;
    int oom;
} row;

static void row_push(row *r, const char *bytes, int len, int cls)
{
    if (r->oom) return;
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 256;
        cell *c = realloc(r->c, cap * sizeof *c);
        if (!c) {
            r->oom = 1;
            return;
        }
        r->c = c;
        r->cap = cap;
    }
    cell *e = &r->c[r->n++];
    memcpy(e->ch, bytes, (size_t)len);
    e->len = (unsigned char)len;
    e->cls = (unsigned char)cls;
}

/* One source character at s[*i] as cells of class cls, advancing *i and
 * *col: a tab becomes blanks up to the next multiple of 4 columns, a CR is
 * dropped, a UTF-8 character the preamble typesets stays whole, and any other
 * non-ASCII character becomes '?'. */
static void push_char(row *r, const unsigned char *s, size_t n, size_t *i, int *col, int cls)
{
    if (s[*i] == '\t') {
        do row_push(r, " ", 1, cls);
        while (++*col % 4);
        (*i)++;
        return;
    }
    if (s[*i] == '\r') {
        (*i)++;
        return;
    }
    unsigned long cp;
    int len = lm_utf8_decode(s + *i, n - *i, &cp);
    if (len > 1 && lm_tex_unicode_ok(cp))
        row_push(r, (const char *)s + *i, len, cls);
    else
        row_push(r, len == 1 ? (const char *)s + *i : "?", 1, cls);
    (*col)++;
    *i += len > 0 ? (size_t)len : 1;
}

/* Emit cells [a, b) of a row: runs of one class in one group, blanks as \lmB. */
static void emit_cells(lm_tbuf *b, const cell *c, size_t a, size_t e)
{
    int open = CL_PLAIN;
    for (size_t k = a; k < e;) {
        int cls = c[k].cls;
        if (cls != open) {
            if (open != CL_PLAIN) lm_tbuf_puts(b, "}");
            if (cls != CL_PLAIN) lm_tbuf_puts(b, class_macro[cls]);
            open = cls;
        }
        if (c[k].len == 1 && c[k].ch[0] == ' ') {
            size_t j = k;
            while (j < e && c[j].len == 1 && c[j].ch[0] == ' ' && c[j].cls == cls) j++;
            lm_tbuf_printf(b, "\\lmB{%zu}", j - k);
            k = j;
            continue;
        }
        unsigned char ch = (unsigned char)c[k].ch[0];
        if (c[k].len > 1)
            lm_tbuf_putn(b, c[k].ch, c[k].len);
        else
            switch (ch) {
            case '\\': case '{': case '}': case '$': case '&': case '#': case '%':
            case '_': case '~': case '^': case '`':
                /* TeX's specials; ` would make a ligature with ! and ? */
                lm_tbuf_printf(b, "\\char%d ", ch);
                break;
            default: lm_tbuf_putn(b, c[k].ch, 1);
            }
        k++;
    }
    if (open != CL_PLAIN) lm_tbuf_puts(b, "}");
}

void lm_tex_code(lm_tbuf *b, const char *src, size_t n, int first, int last)
{
    const unsigned char *s = (const unsigned char *)src;
    size_t i = 0;
    int line = 1;
    int in_comment = 0; /* inside a block comment carried across lines */
    row r = {0};
    while (i < n && line <= last) {
        /* one source line into cells */
        r.n = 0;
        int in_pre = 0, col = 0, seen_text = 0;
        while (i < n && s[i] != '\n') {
            const unsigned char ch = s[i];
            if (in_comment) {
                if (ch == '*' && i + 1 < n && s[i + 1] == '/') {
                    push_char(&r, s, n, &i, &col, CL_COMMENT);
                    in_comment = 0;
                }
                push_char(&r, s, n, &i, &col, CL_COMMENT);
                continue;
            }
            if (ch == '/' && i + 1 < n && s[i + 1] == '*') {
                in_comment = 1;
                seen_text = 1;
                push_char(&r, s, n, &i, &col, CL_COMMENT);
                push_char(&r, s, n, &i, &col, CL_COMMENT);
                continue;
            }
            if (ch == '/' && i + 1 < n && s[i + 1] == '/') { /* the rest of the line */
                while (i < n && s[i] != '\n') push_char(&r, s, n, &i, &col, CL_COMMENT);
                break;
            }
            if (ch == '"' || ch == '\'') {
                /* literal up to the matching quote (or the end of the line) */
                push_char(&r, s, n, &i, &col, CL_STRING);
                while (i < n && s[i] != '\n') {
                    const int esc = s[i] == '\\' && i + 1 < n && s[i + 1] != '\n';
                    const int close = s[i] == ch;
                    push_char(&r, s, n, &i, &col, CL_STRING);
                    if (esc) push_char(&r, s, n, &i, &col, CL_STRING);
                    else if (close) break;
                }
                seen_text = 1;
                continue;
            }
            if (ch == '#' && !seen_text) in_pre = 1;
            if (is_ident(ch) && !(ch >= '0' && ch <= '9')) {
                size_t j = i;
                while (j < n && is_ident(s[j])) j++;
                int k = !in_pre && is_keyword((const char *)s + i, j - i) ? CL_KEY
                        : in_pre                                          ? CL_PRE
                                                                          : CL_PLAIN;
                for (; i < j; i++, col++) row_push(&r, (const char *)s + i, 1, k);
                seen_text = 1;
                continue;
            }
            if (ch != ' ' && ch != '\t' && ch != '\r') seen_text = 1;
            push_char(&r, s, n, &i, &col, in_pre ? CL_PRE : CL_PLAIN);
        }
        if (i < n) i++; /* the newline */
        if (line >= first && !r.oom) {
            /* trailing blanks are not shown */
            size_t e = r.n;
            while (e > 0 && r.c[e - 1].len == 1 && r.c[e - 1].ch[0] == ' ') e--;
            size_t a = 0;
            lm_tbuf_printf(b, "\\lmL{%d}{", line);
            do {
                size_t stop = e - a > LM_CODE_COLS ? a + LM_CODE_COLS : e;
                if (a > 0) lm_tbuf_puts(b, "\\lmW{");
                emit_cells(b, r.c, a, stop);
                lm_tbuf_puts(b, "}\n");
                a = stop;
            } while (a < e);
        }
        line++;
    }
    if (r.oom) b->oom = 1;
    free(r.c);
}

int lm_tex_code_file(lm_tbuf *b, const char *path, int first, int last)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap);
    while (s) {
        size_t got = fread(s + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        char *t = realloc(s, 2 * cap);
        if (!t) {
            free(s);
            s = NULL;
            break;
        }
        s = t;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!s || bad) {
        free(s);
        return -1;
    }
    lm_tbuf_puts(b, "\\begin{lmcode}\n");
    lm_tex_code(b, s, n, first, last);
    lm_tbuf_puts(b, "\\end{lmcode}\n");
    free(s);
    return 0;
}

void lm_tex_code_preamble(lm_tbuf *b)
{
    /* 7 pt typewriter on 8.2 pt lines; the number and a grey rule sit in the
     * 2.2em left margin; each line is one \hbox so pages break between lines.
     * Colours are mixed once (\colorlet) and the number and comment fonts are
     * loaded once as plain TeX fonts: per line, NFSS font selection and
     * xcolor's mixing of "blue!55!black" cost more than the typesetting. */
    lm_tbuf_puts(
        b, "\\newdimen\\lmcw\n"
           "\\colorlet{lmkey}{blue!55!black}\n\\colorlet{lmcom}{green!35!black}\n"
           "\\colorlet{lmstr}{red!50!black}\n\\colorlet{lmpre}{violet!70!black}\n"
           "\\colorlet{lmnum}{gray}\n\\colorlet{lmbar}{gray!50}\n"
           "\\newcommand{\\lmcodefont}{\\fontsize{7}{8.2}\\selectfont\\ttfamily}\n"
           "{\\tiny\\global\\font\\lmnumfont=\\fontname\\font\\relax}\n"
           "{\\lmcodefont\\itshape\\global\\font\\lmitfont=\\fontname\\font\\relax}\n"
           "\\newenvironment{lmcode}{\\par\\vspace{2pt}\\lmcodefont\\settowidth{\\lmcw}{x}"
           "\\lineskip=0pt\\lineskiplimit=-\\maxdimen\\parskip=0pt\\relax}"
           "{\\par\\vspace{2pt}}\n"
           "\\newcommand{\\lmrule}{{\\color{lmbar}\\vrule width0.6pt height6.15pt depth2.05pt}}\n"
           "\\newcommand{\\lmL}[2]{\\hbox{\\hskip2.2em\\llap{{\\lmnumfont\\color{lmnum}#1}\\hskip6pt"
           "\\lmrule\\hskip4pt}#2}}\n"
           "\\newcommand{\\lmW}[1]{\\hbox{\\hskip2.2em\\llap{\\lmrule\\hskip4pt}"
           "{\\color{lmnum}$\\hookrightarrow$}\\kern\\lmcw#1}}\n"
           "\\newcommand{\\lmB}[1]{\\kern#1\\lmcw}\n"
           "\\newcommand{\\lmK}[1]{{\\color{lmkey}#1}}\n"
           "\\newcommand{\\lmC}[1]{{\\color{lmcom}\\lmitfont#1}}\n"
           "\\newcommand{\\lmS}[1]{{\\color{lmstr}#1}}\n"
           "\\newcommand{\\lmP}[1]{{\\color{lmpre}#1}}\n");
}
