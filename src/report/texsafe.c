/* texsafe.c -- LaTeX from claim files and the database, restricted to an
 * allow-list before it reaches pdflatex.
 *
 * The \statement, \check, \note blocks of a claim file (and \claim titles and
 * \source blocks that contain $ or \), and the LaTeX captions that live runs
 * store in the database, are mathematics and a little text markup.  They are
 * passed to LaTeX token by token:
 *
 *   - a control word (\name) is kept only when it is in `words` below: the
 *     maths and text commands the claim files use (collected from the header
 *     comments of the claim files under lemmas/), the conveniences the preamble defines, and
 *     common harmless maths.  Anything else -- \input, \include, \write,
 *     \immediate, \openout, \read, \catcode, \def, \newcommand, \csname,
 *     \usepackage, \special, \write18, a typo -- is typeset as its name in red
 *     typewriter (\lmraw, defined in the preamble) and never executed;
 *   - \begin{env}/\end{env} only for the environments in `envs`, properly
 *     nested; others are shown as text;
 *   - a control symbol (\, \; \\ \% \{ ...) only from `symbols`;
 *   - ^^ (TeX's character-code escape, which turns ^^5c into a backslash
 *     before any command is read) is shown, never passed on;
 *   - # becomes \#, a '}' that closes nothing becomes \}, braces, $ and
 *     environments left open are closed at the end, comments are dropped
 *     (the % stays, so line ends keep their meaning), control characters are
 *     dropped and non-ASCII characters the preamble cannot typeset become '?'.
 *
 * Newlines are kept one for one, so a LaTeX error still maps to its line of
 * the claim file.
 */
#include "report_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* control words that may pass; sorted at first use */
static const char *words[] = {
    /* Greek */
    "alpha", "beta", "gamma", "delta", "epsilon", "varepsilon", "zeta", "eta", "theta",
    "vartheta", "iota", "kappa", "lambda", "mu", "nu", "xi", "pi", "varpi", "rho", "varrho",
    "sigma", "varsigma", "tau", "upsilon", "phi", "varphi", "chi", "psi", "omega", "Gamma",
    "Delta", "Theta", "Lambda", "Xi", "Pi", "Sigma", "Upsilon", "Phi", "Psi", "Omega",
    /* relations */
    "le", "leq", "ge", "geq", "ne", "neq", "approx", "sim", "simeq", "cong", "equiv", "propto",
    "ll", "gg", "lesssim", "gtrsim", "prec", "succ", "preceq", "succeq", "subset", "supset",
    "subseteq", "supseteq", "in", "notin", "ni", "asymp", "doteq", "mid", "nmid", "parallel",
    "perp", "leqslant", "geqslant", "not",
    /* arrows */
    "to", "rightarrow", "leftarrow", "gets", "Rightarrow", "Leftarrow", "Leftrightarrow",
    "leftrightarrow", "iff", "implies", "mapsto", "uparrow", "downarrow", "longrightarrow",
    "longmapsto", "searrow", "nearrow", "nwarrow", "swarrow", "hookrightarrow",
    /* operators and symbols */
    "cdot", "times", "div", "pm", "mp", "ast", "star", "circ", "bullet", "oplus", "ominus",
    "otimes", "odot", "cup", "cap", "setminus", "wedge", "vee", "land", "lor", "neg", "lnot",
    "forall", "exists", "nexists", "emptyset", "varnothing", "infty", "partial", "nabla",
    "ell", "hbar", "prime", "top", "bot", "dagger", "ddagger", "angle", "triangle", "Box",
    "S", "P", "dag", "ddag", "sharp", "flat", "natural", "aleph", "Re", "Im", "wp",
    /* big operators and function names */
    "sum", "prod", "coprod", "int", "iint", "oint", "bigcup", "bigcap", "bigoplus",
    "bigotimes", "bigvee", "bigwedge", "lim", "liminf", "limsup", "sup", "inf", "max", "min",
    "arg", "det", "exp", "log", "ln", "lg", "sin", "cos", "tan", "cot", "sec", "csc", "arcsin",
    "arccos", "arctan", "sinh", "cosh", "tanh", "coth", "Pr", "dim", "ker", "deg", "gcd",
    "hom", "operatorname", "limits", "nolimits", "substack",
    /* fractions, roots, binomials */
    "frac", "dfrac", "tfrac", "cfrac", "binom", "dbinom", "tbinom", "sqrt",
    /* dots */
    "ldots", "cdots", "dots", "vdots", "ddots", "dotsc", "dotsb", "dotsm",
    /* delimiters */
    "langle", "rangle", "lceil", "rceil", "lfloor", "rfloor", "lvert", "rvert", "lVert",
    "rVert", "vert", "Vert", "left", "right", "middle", "big", "Big", "bigg", "Bigg", "bigl",
    "bigr", "Bigl", "Bigr", "biggl", "biggr", "Biggl", "Biggr", "bigm", "Bigm",
    /* accents */
    "hat", "widehat", "bar", "overline", "underline", "tilde", "widetilde", "dot", "ddot",
    "vec", "check", "acute", "grave", "breve", "mathring", "overrightarrow", "underbrace",
    "overbrace",
    /* fonts and styles */
    "mathrm", "mathbf", "mathcal", "mathbb", "mathsf", "mathit", "mathtt", "mathfrak",
    "boldsymbol", "bm", "rm", "bf", "it", "tt", "sf", "em", "text", "textrm", "textit",
    "textbf", "texttt", "textsf", "textsc", "textsl", "textnormal", "textup", "emph",
    "displaystyle", "textstyle", "scriptstyle", "scriptscriptstyle", "mathrel", "mathbin",
    "mathop", "mathord", "mathpunct", "mbox", "small", "footnotesize", "scriptsize", "large",
    "normalsize",
    /* spacing and breaks */
    "quad", "qquad", "enspace", "thinspace", "negthinspace", "par", "noindent", "newline",
    "linebreak", "allowbreak", "smallskip", "medskip", "bigskip", "item",
    /* text symbols */
    "textbackslash", "textasciitilde", "textasciicircum", "textless", "textgreater",
    "textbar", "textperiodcentered", "textendash", "textemdash", "ldots", "dots", "copyright",
    "ss", "ae", "oe", "o", "l", "i", "j",
    /* the preamble's conveniences for literate blocks */
    "R", "N", "E", "Prob", "norm", "abs", "inner", "tr", "diag", "softmax", "argmin", "argmax",
};

static const char *const envs[] = {
    "pmatrix", "bmatrix", "Bmatrix", "vmatrix", "Vmatrix", "matrix", "smallmatrix", "cases",
    "aligned", "gathered", "split", "array", "align", "align*", "equation", "equation*",
    "gather", "gather*", "itemize", "enumerate",
};

/* control symbols: \, \; \: \! \  \\ \{ \} \| \% \& \_ \# \$ and the accents */
static const char symbols[] = " ,;:!\\{}|%&_#$'\"`^~=.-/()[]>\t\n";

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int sorted;

int lm_tex_safe_word(const char *name)
{
    if (!sorted) {
        qsort(words, sizeof words / sizeof words[0], sizeof words[0], cmp_str);
        sorted = 1;
    }
    return bsearch(&name, words, sizeof words / sizeof words[0], sizeof words[0], cmp_str) !=
           NULL;
}

int lm_tex_safe_env(const char *name)
{
    for (size_t k = 0; k < sizeof envs / sizeof envs[0]; k++)
        if (!strcmp(envs[k], name)) return 1;
    return 0;
}

static int is_letter(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* "\name" (or any text) shown in red typewriter: each byte as \char N */
static void raw(lm_tbuf *b, const char *s, size_t n, int backslash)
{
    lm_tbuf_puts(b, "\\lmraw{");
    if (backslash) lm_tbuf_puts(b, "{\\char92}");
    for (size_t k = 0; k < n; k++) {
        unsigned char c = (unsigned char)s[k];
        if (is_letter(c) || (c >= '0' && c <= '9')) lm_tbuf_putn(b, s + k, 1);
        else if (c > 0x20 && c < 0x7F) lm_tbuf_printf(b, "{\\char%d}", c);
        else lm_tbuf_puts(b, "?");
    }
    lm_tbuf_puts(b, "}");
}

enum { MAXENV = 32 };

void lm_tex_safe(lm_tbuf *b, const char *s)
{
    if (!s) return;
    const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
    long depth = 0, dollars = 0;
    char env[MAXENV][24];
    int nenv = 0;
    while (p < end) {
        const unsigned char c = *p;
        if (c == '^' && p[1] == '^') { /* ^^5c is a backslash to TeX */
            raw(b, "^^", 2, 0);
            p += 2;
            continue;
        }
        if (c == '%') { /* a comment: dropped up to the line end */
            lm_tbuf_puts(b, "%");
            while (p < end && *p != '\n') p++;
            continue;
        }
        if (c == '\\') {
            const unsigned char *q = p + 1;
            if (q[0] == '^' && q[1] == '^') {
                raw(b, "^^", 2, 1);
                p += 3;
                continue;
            }
            if (is_letter(*q)) {
                const unsigned char *ne = q;
                while (is_letter(*ne)) ne++;
                char name[64];
                size_t nl = (size_t)(ne - q);
                snprintf(name, sizeof name, "%.*s", (int)(nl < 63 ? nl : 63), (const char *)q);
                int isbegin = nl == 5 && !strncmp((const char *)q, "begin", 5);
                int isend = nl == 3 && !strncmp((const char *)q, "end", 3);
                if (isbegin || isend) {
                    /* \begin{name} / \end{name}: the name as TeX would read it */
                    const unsigned char *a = ne;
                    while (*a == ' ' || *a == '\t') a++;
                    const unsigned char *ae = a;
                    char ename[24] = "";
                    int ok = 0;
                    if (*a == '{') {
                        ae = a + 1;
                        while (is_letter(*ae) || *ae == '*') ae++;
                        size_t el = (size_t)(ae - a - 1);
                        if (*ae == '}' && el > 0 && el < sizeof ename) {
                            memcpy(ename, a + 1, el);
                            ename[el] = 0;
                            ok = lm_tex_safe_env(ename);
                        }
                    }
                    if (ok && isbegin && nenv < MAXENV) {
                        snprintf(env[nenv++], sizeof env[0], "%s", ename);
                    } else if (ok && isend && nenv > 0 && !strcmp(env[nenv - 1], ename)) {
                        nenv--;
                    } else
                        ok = 0;
                    if (ok) {
                        lm_tbuf_printf(b, "\\%s{%s}", isbegin ? "begin" : "end", ename);
                        p = ae + 1;
                    } else {
                        raw(b, (const char *)q, nl, 1);
                        p = ne;
                    }
                    continue;
                }
                if (nl < 63 && lm_tex_safe_word(name)) lm_tbuf_putn(b, (const char *)p, nl + 1);
                else raw(b, (const char *)q, nl, 1);
                p = ne;
                continue;
            }
            if (*q && strchr(symbols, *q)) {
                lm_tbuf_putn(b, (const char *)p, 2);
                p += 2;
                continue;
            }
            /* a lone backslash, or one before a character that is no command */
            if (*q >= 0x20 && *q < 0x7F) {
                raw(b, (const char *)q, 1, 1);
                p += 2;
            } else {
                raw(b, "", 0, 1);
                p++;
            }
            continue;
        }
        if (c >= 0x80) {
            unsigned long cp;
            int len = lm_utf8_decode(p, (size_t)(end - p), &cp);
            if (len > 0 && lm_tex_unicode_ok(cp)) lm_tbuf_putn(b, (const char *)p, (size_t)len);
            else lm_tbuf_puts(b, "?");
            p += len > 0 ? len : 1;
            continue;
        }
        if (c == '\n' || c == '\t') lm_tbuf_putn(b, (const char *)p, 1);
        else if (c < 0x20 || c == 0x7F) { /* dropped */
        } else if (c == '#') lm_tbuf_puts(b, "\\#");
        else if (c == '{') {
            depth++;
            lm_tbuf_puts(b, "{");
        } else if (c == '}') {
            if (depth > 0) {
                depth--;
                lm_tbuf_puts(b, "}");
            } else
                lm_tbuf_puts(b, "\\}");
        } else {
            if (c == '$') dollars++;
            lm_tbuf_putn(b, (const char *)p, 1);
        }
        p++;
    }
    /* whatever is still open is closed here, so the text cannot reach past
     * its place in the document */
    if (dollars % 2) lm_tbuf_puts(b, "$");
    for (; depth > 0; depth--) lm_tbuf_puts(b, "}");
    while (nenv > 0) lm_tbuf_printf(b, "\\end{%s}", env[--nenv]);
}

char *lm_tex_safe_str(const char *s)
{
    lm_tbuf b;
    lm_tbuf_init(&b);
    lm_tex_safe(&b, s);
    return lm_tbuf_take(&b);
}
