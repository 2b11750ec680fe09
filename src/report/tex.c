/* tex.c -- text buffer, LaTeX escaping and compact number formats. */
#include "report_priv.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lm_tbuf_init(lm_tbuf *b)
{
    memset(b, 0, sizeof *b);
}

void lm_tbuf_free(lm_tbuf *b)
{
    free(b->s);
    memset(b, 0, sizeof *b);
}

static int tbuf_reserve(lm_tbuf *b, size_t extra)
{
    if (b->oom) return -1;
    if (b->n + extra + 1 <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + extra + 1) cap *= 2;
    char *s = realloc(b->s, cap);
    if (!s) {
        b->oom = 1;
        return -1;
    }
    b->s = s;
    b->cap = cap;
    return 0;
}

void lm_tbuf_putn(lm_tbuf *b, const char *s, size_t n)
{
    if (!n || tbuf_reserve(b, n)) return;
    memcpy(b->s + b->n, s, n);
    for (size_t k = 0; k < n; k++)
        if (s[k] == '\n') b->lines++;
    b->n += n;
    b->s[b->n] = 0;
}

void lm_tbuf_puts(lm_tbuf *b, const char *s)
{
    if (s) lm_tbuf_putn(b, s, strlen(s));
}

void lm_tbuf_printf(lm_tbuf *b, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (w < 0) return;
    if ((size_t)w < sizeof small) {
        lm_tbuf_putn(b, small, (size_t)w);
        return;
    }
    char *big = malloc((size_t)w + 1);
    if (!big) {
        b->oom = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)w + 1, fmt, ap);
    va_end(ap);
    lm_tbuf_putn(b, big, (size_t)w);
    free(big);
}

char *lm_tbuf_take(lm_tbuf *b)
{
    if (b->oom) {
        lm_tbuf_free(b);
        return NULL;
    }
    char *s = b->s ? b->s : calloc(1, 1);
    memset(b, 0, sizeof *b);
    return s;
}

/* ---- Unicode ---------------------------------------------------------------- */

/* Characters typeset through \DeclareUnicodeCharacter, so that statements
 * written with Unicode math (as the catalogue is) compile with pdflatex. */
static const struct {
    unsigned long cp;
    const char *tex;
} uni[] = {
    {0x03B1, "\\alpha"}, {0x03B2, "\\beta"}, {0x03B3, "\\gamma"}, {0x03B4, "\\delta"},
    {0x03B5, "\\varepsilon"}, {0x03B6, "\\zeta"}, {0x03B7, "\\eta"}, {0x03B8, "\\theta"},
    {0x03B9, "\\iota"}, {0x03BA, "\\kappa"}, {0x03BB, "\\lambda"}, {0x03BC, "\\mu"},
    {0x03BD, "\\nu"}, {0x03BE, "\\xi"}, {0x03C0, "\\pi"}, {0x03C1, "\\rho"},
    {0x03C3, "\\sigma"}, {0x03C4, "\\tau"}, {0x03C5, "\\upsilon"}, {0x03C6, "\\varphi"},
    {0x03C7, "\\chi"}, {0x03C8, "\\psi"}, {0x03C9, "\\omega"}, {0x0393, "\\Gamma"},
    {0x0394, "\\Delta"}, {0x0398, "\\Theta"}, {0x039B, "\\Lambda"}, {0x039E, "\\Xi"},
    {0x03A0, "\\Pi"}, {0x03A3, "\\Sigma"}, {0x03A6, "\\Phi"}, {0x03A8, "\\Psi"},
    {0x03A9, "\\Omega"}, {0x2264, "\\le"}, {0x2265, "\\ge"}, {0x2260, "\\ne"},
    {0x2248, "\\approx"}, {0x221E, "\\infty"}, {0x00B7, "\\cdot"}, {0x00D7, "\\times"},
    {0x00B1, "\\pm"}, {0x2192, "\\to"}, {0x2190, "\\leftarrow"}, {0x21A6, "\\mapsto"},
    {0x21D2, "\\Rightarrow"}, {0x21D4, "\\Leftrightarrow"}, {0x2016, "\\|"},
    {0x2225, "\\|"}, {0x2211, "\\sum"}, {0x220F, "\\prod"}, {0x222B, "\\int"},
    {0x2202, "\\partial"}, {0x2207, "\\nabla"}, {0x221A, "\\surd"}, {0x2208, "\\in"},
    {0x2209, "\\notin"}, {0x2282, "\\subset"}, {0x2286, "\\subseteq"}, {0x222A, "\\cup"},
    {0x2229, "\\cap"}, {0x2113, "\\ell"}, {0x211D, "\\mathbb{R}"}, {0x2115, "\\mathbb{N}"},
    {0x2212, "-"}, {0x2200, "\\forall"}, {0x2203, "\\exists"}, {0x22A4, "\\top"},
    {0x2297, "\\otimes"}, {0x2299, "\\odot"}, {0x2218, "\\circ"}, {0x226A, "\\ll"},
    {0x226B, "\\gg"}, {0x223C, "\\sim"}, {0x2272, "\\lesssim"}, {0x2273, "\\gtrsim"},
    {0x27E8, "\\langle"}, {0x27E9, "\\rangle"}, {0x2261, "\\equiv"}, {0x221D, "\\propto"},
    {0x230A, "\\lfloor"}, {0x230B, "\\rfloor"}, {0x2308, "\\lceil"}, {0x2309, "\\rceil"},
    {0x2216, "\\setminus"}, {0x2205, "\\emptyset"}, {0x2217, "\\ast"}, {0x22EF, "\\cdots"},
    {0x2026, "\\ldots"}, {0x2245, "\\cong"}, {0x2243, "\\simeq"}, {0x22C5, "\\cdot"},
};

int lm_tex_unicode_ok(unsigned long cp)
{
    for (size_t k = 0; k < sizeof uni / sizeof uni[0]; k++)
        if (uni[k].cp == cp) return 1;
    /* Latin-1 letters and signs that inputenc's utf8 maps in OT1/TS1 */
    if (cp >= 0xA0 && cp <= 0xFF && cp != 0xD0 && cp != 0xDE && cp != 0xF0 && cp != 0xFE)
        return 1;
    /* dashes and quotes that utf8 defines */
    return cp == 0x2013 || cp == 0x2014 || cp == 0x2018 || cp == 0x2019 || cp == 0x201C ||
           cp == 0x201D || cp == 0x2022;
}

void lm_tex_unicode_preamble(lm_tbuf *b)
{
    for (size_t k = 0; k < sizeof uni / sizeof uni[0]; k++)
        lm_tbuf_printf(b, "\\DeclareUnicodeCharacter{%04lX}{\\ensuremath{%s}}\n", uni[k].cp,
                       uni[k].tex);
}

int lm_utf8_decode(const unsigned char *s, size_t n, unsigned long *cp)
{
    int len;
    unsigned long c;
    if (n == 0) return 0;
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    } else if ((s[0] & 0xE0) == 0xC0) {
        len = 2;
        c = s[0] & 0x1F;
    } else if ((s[0] & 0xF0) == 0xE0) {
        len = 3;
        c = s[0] & 0x0F;
    } else if ((s[0] & 0xF8) == 0xF0) {
        len = 4;
        c = s[0] & 0x07;
    } else
        return 0;
    if ((size_t)len > n) return 0;
    for (int k = 1; k < len; k++) {
        if ((s[k] & 0xC0) != 0x80) return 0;
        c = (c << 6) | (s[k] & 0x3F);
    }
    *cp = c;
    return len;
}

static void escape(lm_tbuf *b, const char *s, int tt)
{
    if (!s) return;
    const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
    while (*p) {
        const unsigned char c = *p;
        if (c >= 0x80) {
            unsigned long cp;
            int len = lm_utf8_decode(p, (size_t)(end - p), &cp);
            if (len > 0 && lm_tex_unicode_ok(cp))
                lm_tbuf_putn(b, (const char *)p, (size_t)len);
            else
                lm_tbuf_puts(b, "?");
            p += len > 0 ? len : 1;
            continue;
        }
        const char *rep = NULL;
        char tmp[24];
        if (c == '[' || c == ']') {
            /* braced, so text after a \\ or \midrule of ours is never read
             * as its optional argument */
            rep = c == '[' ? "{[}" : "{]}";
        } else if (tt) {
            /* cmtt has real glyphs for these: copy-paste gives the character */
            switch (c) {
            case '\\': case '{': case '}': case '$': case '&': case '#': case '%':
            case '_': case '~': case '^': case '<': case '>': case '|':
                snprintf(tmp, sizeof tmp, "{\\char%d}", c);
                rep = tmp;
                break;
            default: break;
            }
        } else {
            switch (c) {
            case '\\': rep = "\\textbackslash{}"; break;
            case '{': rep = "\\{"; break;
            case '}': rep = "\\}"; break;
            case '$': rep = "\\$"; break;
            case '&': rep = "\\&"; break;
            case '#': rep = "\\#"; break;
            case '%': rep = "\\%"; break;
            case '_': rep = "\\_"; break;
            case '~': rep = "\\textasciitilde{}"; break;
            case '^': rep = "\\textasciicircum{}"; break;
            case '<': rep = "\\textless{}"; break;
            case '>': rep = "\\textgreater{}"; break;
            case '|': rep = "\\textbar{}"; break;
            case '-': if (p[1] == '-') rep = "-{}"; break; /* no en-dash ligature */
            default: break;
            }
        }
        if (c == '\n' || c == '\t' || c == '\r') rep = " ";
        else if (c < 0x20 || c == 0x7F) rep = "";
        if (rep) lm_tbuf_puts(b, rep);
        else lm_tbuf_putn(b, (const char *)p, 1);
        /* break points in \texttt: after / = , : _ ) and inside hyphenated
         * words (not in "--option") */
        if (tt && (c == '/' || c == '=' || c == ',' || c == ':' || c == '_' || c == ')' ||
                   (c == '-' && p > (const unsigned char *)s && isalnum(p[-1]) && isalnum(p[1]))))
            lm_tbuf_puts(b, "\\allowbreak{}");
        p++;
    }
}

void lm_tex_escape(lm_tbuf *b, const char *s)
{
    escape(b, s, 0);
}

void lm_tex_escape_tt(lm_tbuf *b, const char *s)
{
    escape(b, s, 1);
}

char *lm_tex_escape_str(const char *s)
{
    lm_tbuf b;
    lm_tbuf_init(&b);
    escape(&b, s, 0);
    return lm_tbuf_take(&b);
}

int lm_tex_is_latex(const char *s)
{
    return s && (strchr(s, '$') || strchr(s, '\\'));
}

/* ---- numbers ---------------------------------------------------------------- */

/* "1.20" -> "1.2", "1.00" -> "1" */
static void trim_zeros(char *m)
{
    char *dot = strchr(m, '.');
    if (!dot) return;
    char *e = m + strlen(m) - 1;
    while (e > dot && *e == '0') *e-- = 0;
    if (e == dot) *e = 0;
}

/* x != 0 finite: mantissa with `sig` significant digits and exponent */
static void sci_tex(char *buf, size_t n, double x, int sig)
{
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%.*e", sig - 1, x);
    char *e = strchr(tmp, 'e');
    int ex = e ? atoi(e + 1) : 0;
    if (e) *e = 0;
    trim_zeros(tmp);
    if (!strcmp(tmp, "1"))
        snprintf(buf, n, "$10^{%d}$", ex);
    else if (!strcmp(tmp, "-1"))
        snprintf(buf, n, "$-10^{%d}$", ex);
    else
        snprintf(buf, n, "$%s{\\times}10^{%d}$", tmp, ex);
}

static int special(char *buf, size_t n, double x)
{
    if (isnan(x)) snprintf(buf, n, "--");
    else if (isinf(x)) snprintf(buf, n, x > 0 ? "$\\infty$" : "$-\\infty$");
    else if (x == 0) snprintf(buf, n, "0");
    else return 0;
    return 1;
}

void lm_tex_num(char *buf, size_t n, double x)
{
    if (special(buf, n, x)) return;
    double ax = fabs(x);
    if (ax >= 1e-3 && ax < 1e5) {
        char tmp[64];
        /* 3 significant digits; integers up to 99999 stay integers */
        if (ax >= 999.5) snprintf(tmp, sizeof tmp, "%.0f", x);
        else snprintf(tmp, sizeof tmp, "%.3g", x);
        if (strchr(tmp, 'e')) sci_tex(buf, n, x, 3);
        else snprintf(buf, n, "%s", tmp);
    } else
        sci_tex(buf, n, x, 3);
}

void lm_tex_ratio(char *buf, size_t n, double x)
{
    if (special(buf, n, x)) return;
    double d = x - 1.0;
    if (x == 1.0) {
        snprintf(buf, n, "1");
    } else if (fabs(d) < 1e-3) {
        char m[64];
        sci_tex(m, sizeof m, fabs(d), 2);
        /* m is "$...$": splice "1+" / "1-" into the math */
        snprintf(buf, n, "$1%c%s", d < 0 ? '-' : '+', m + 1);
    } else if (fabs(d) < 5e-3) {
        snprintf(buf, n, "%.4f", x);
    } else
        lm_tex_num(buf, n, x);
}

void lm_fmt_num(char *buf, size_t n, double x)
{
    if (isnan(x)) snprintf(buf, n, "--");
    else snprintf(buf, n, "%.3g", x);
}

void lm_tex_seconds(char *buf, size_t n, double s)
{
    if (isnan(s) || s < 0) snprintf(buf, n, "--");
    else if (s == 0) snprintf(buf, n, "0");
    else if (s < 1e-3) snprintf(buf, n, "$<$0.001");
    else if (s < 0.0095) snprintf(buf, n, "%.1g", s);
    else if (s < 9.95) snprintf(buf, n, "%.2g", s);
    else snprintf(buf, n, "%.0f", s);
}
