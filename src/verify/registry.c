/* registry.c -- finding claims and parsing their parameters. */
#include "lm_verify.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the claim's id, file and plain title from its literate header ---- */

/* LaTeX commands with a plain rendering; any other \name loses its backslash ("\alpha" ->
 * "alpha"), and the font and spacing commands below are dropped with their braces */
static const struct {
    const char *cmd, *plain;
} tex_words[] = {{"le", " <= "},    {"leq", " <= "},   {"ge", " >= "},   {"geq", " >= "},
                 {"ne", " != "},    {"neq", " != "},   {"to", " -> "},   {"mapsto", " -> "},
                 {"Rightarrow", " => "}, {"infty", "inf"}, {"cdot", "*"}, {"times", " x "},
                 {"circ", " o "},   {"ldots", "..."},  {"cdots", "..."}, {"dots", "..."},
                 {"ell", "l"},      {"top", "T"},      {"star", "*"},    {"nabla", "grad "},
                 {"varepsilon", "eps"}, {"epsilon", "eps"}, {"sum", "sum"}, {"exp", "exp"},
                 {"sqrt", "sqrt"},  {"frac", ""},      {"rm", ""},       {"mathcal", ""},
                 {"mathrm", ""},    {"mathbf", ""},    {"mathsf", ""},   {"mathbb", ""},
                 {"text", ""},      {"emph", ""},      {"texttt", ""},   {"textbf", ""},
                 {"textit", ""},    {"hat", ""},       {"bar", ""},      {"tilde", ""},
                 {"operatorname", ""}, {"left", ""},   {"right", ""},    {"big", ""},
                 {"Big", ""}};

char *lm_tex_plain(const char *tex)
{
    size_t n = strlen(tex);
    char *out = malloc(3 * n + 1), *o = out;
    if (!out) return NULL;
    int frac = 0; /* inside \frac: 1 after its first group opened, 2 after it closed */
    int depth = 0, frac_depth = -1;
    for (const char *s = tex; *s;) {
        if (*s == '\\') {
            s++;
            if (!isalpha((unsigned char)*s)) { /* \| \{ \} \_ \% \& \' \, \; \! \  */
                if (*s == '|') { *o++ = '|'; *o++ = '|'; }
                else if (*s == ',' || *s == ';' || *s == ' ') *o++ = ' ';
                else if (*s && *s != '!' && *s != '\'') *o++ = *s;
                if (*s) s++;
                continue;
            }
            const char *b = s;
            while (isalpha((unsigned char)*s)) s++;
            size_t l = (size_t)(s - b);
            const char *word = NULL;
            for (size_t k = 0; k < sizeof tex_words / sizeof tex_words[0] && !word; k++)
                if (strlen(tex_words[k].cmd) == l && !strncmp(tex_words[k].cmd, b, l)) {
                    word = tex_words[k].plain;
                    if (!strcmp(tex_words[k].cmd, "frac")) frac = 1, frac_depth = depth;
                }
            size_t wl = word ? strlen(word) : l;
            if (!word) word = b;
            /* two words in a row keep a blank between them ("\sqrt\sigma" -> "sqrt sigma") */
            if (wl && isalpha((unsigned char)word[0]) && o > out && isalpha((unsigned char)o[-1])) *o++ = ' ';
            memcpy(o, word, wl);
            o += wl;
            while (*s == ' ') s++; /* as TeX: the blanks after a command name are not text */
            continue;
        }
        if (*s == '{') {
            depth++;
            if (frac == 1 && depth == frac_depth + 1) *o++ = '(';
            else if (frac == 2 && depth == frac_depth + 1) { *o++ = '/'; *o++ = '('; }
            s++;
            continue;
        }
        if (*s == '}') {
            if (frac && depth == frac_depth + 1) {
                *o++ = ')';
                frac = frac == 1 ? 2 : 0;
            }
            depth--;
            s++;
            continue;
        }
        if (*s == '$') { s++; continue; }
        if (*s == '~') { *o++ = ' '; s++; continue; }
        if (!strncmp(s, "---", 3) || !strncmp(s, "--", 2)) { *o++ = '-'; s += s[2] == '-' ? 3 : 2; continue; }
        if (!strncmp(s, "``", 2) || !strncmp(s, "''", 2)) { *o++ = '"'; s += 2; continue; }
        *o++ = *s++;
    }
    *o = 0;
    /* blanks collapsed */
    char *w = out;
    for (char *r = out; *r; r++)
        if (!(*r == ' ' && (w == out || w[-1] == ' '))) *w++ = *r;
    while (w > out && w[-1] == ' ') w--;
    *w = 0;
    return out;
}

void lm_claim_fill(lm_claim *c, const char *id, const char *file, const char *tex_title)
{
    if (!c->id) c->id = id;
    if (!c->file) c->file = file;
    if (!c->title) {
        char *t = lm_tex_plain(tex_title);
        c->title = t ? t : id; /* kept for the life of the process */
    }
}

const lm_claim *lm_claim_find(const char *id)
{
    for (int k = 0; k < lm_registry_count; k++)
        if (strcmp(lm_registry[k]->id, id) == 0) return lm_registry[k];
    return NULL;
}

int lm_claim_param_index(const lm_claim *c, const char *name)
{
    for (int k = 0; c->params && c->params[k].name; k++)
        if (strcmp(c->params[k].name, name) == 0) return k;
    return -1;
}

int lm_claim_nconfigs(const lm_claim *c)
{
    int k = 0;
    if (!c->configs) return 1;
    while (c->configs[k]) k++;
    return k;
}

const char *lm_claim_config(const lm_claim *c, int k)
{
    return c->configs ? c->configs[k] : "default";
}

int lm_claim_nreadings(const lm_claim *c)
{
    int n = 0;
    if (c->readings)
        while (c->readings[n].kind >= 0 && c->readings[n].kind < LM_READ_COUNT && n < 4096) n++;
    return n;
}

lm_reading lm_claim_reading(const lm_claim *c, int k)
{
    lm_reading paper = {LM_READ_PAPER, NULL, NULL};
    if (!c->readings || k < 0 || k >= lm_claim_nconfigs(c) || k >= lm_claim_nreadings(c)) return paper;
    return c->readings[k];
}

int lm_claim_config_params(const lm_claim *c, int k, double *par, char *err, int errlen)
{
    lm_reading r = lm_claim_reading(c, k);
    if (!r.set || !*r.set) return 0;
    const char *s = r.set;
    while (*s) {
        size_t l = strcspn(s, ",");
        char kv[160];
        if (l >= sizeof kv) l = sizeof kv - 1;
        memcpy(kv, s, l);
        kv[l] = 0;
        int idx;
        double v;
        char e2[200];
        if (lm_claim_parse_set(c, kv, &idx, &v, e2, sizeof e2) != 0) {
            snprintf(err, (size_t)errlen, "internal error: configuration '%s' of %s: %s",
                     lm_claim_config(c, k), c->id, e2);
            return -1;
        }
        par[idx] = v;
        s += l;
        if (*s == ',') s++;
    }
    return 0;
}

lm_param_role lm_param_role_of(const lm_param_def *p)
{
    if (!p || p->choices || !p->range) return LM_ROLE_AUTO;
    const char *s = p->range;
    while (*s == ' ') s++;
    if (!strncmp(s, "constant", 8)) return LM_ROLE_CONSTANT;
    if (!strncmp(s, "exponent", 8)) return LM_ROLE_EXPONENT;
    if (!strncmp(s, "setting", 7)) return LM_ROLE_SETTING;
    return LM_ROLE_AUTO;
}

static int nchoices(const char *choices)
{
    int n = 1;
    for (const char *s = choices; *s; s++) n += *s == '|';
    return n;
}

/* one end of a range: a number, "inf", "-inf" or "+inf"; advances *s */
static int range_end(const char **s, double *v)
{
    const char *p = *s;
    while (*p == ' ') p++;
    const char *q = p;
    if (*q == '+' || *q == '-') q++;
    if (!strncmp(q, "inf", 3)) {
        *v = *p == '-' ? -INFINITY : INFINITY;
        *s = q + 3;
        return 0;
    }
    char *e;
    errno = 0;
    *v = strtod(p, &e);
    if (e == p || errno || !isfinite(*v)) return -1;
    *s = e;
    return 0;
}

int lm_param_range(lm_range *r, const lm_param_def *p)
{
    memset(r, 0, sizeof *r);
    if (p->choices) {
        r->integer = 1;
        r->lo = 0;
        r->hi = nchoices(p->choices) - 1;
        return 0;
    }
    const char *s = p->range;
    if (!s) return -1;
    while (*s == ' ') s++;
    if (!strncmp(s, "int", 3)) { r->integer = 1; s += 3; }
    else if (!strncmp(s, "real", 4)) s += 4;
    else if (!strncmp(s, "constant", 8)) s += 8;
    else if (!strncmp(s, "exponent", 8)) s += 8;
    else if (!strncmp(s, "setting", 7)) s += 7;
    while (*s == ' ') s++;
    if (*s != '[' && *s != '(') return -1;
    r->lo_open = *s++ == '(';
    if (range_end(&s, &r->lo)) return -1;
    while (*s == ' ') s++;
    if (*s++ != ',') return -1;
    if (range_end(&s, &r->hi)) return -1;
    while (*s == ' ') s++;
    if (*s != ']' && *s != ')') return -1;
    r->hi_open = *s++ == ')';
    while (*s == ' ') s++;
    if (*s) return -1;
    if (!(r->lo <= r->hi)) return -1;
    if ((isinf(r->lo) && !r->lo_open) || (isinf(r->hi) && !r->hi_open)) return -1;
    if (r->integer && (isinf(r->lo) || isinf(r->hi))) return -1; /* integers are bounded */
    return 0;
}

int lm_range_contains(const lm_range *r, double v)
{
    if (isnan(v)) return 0;
    if (r->integer && v != floor(v)) return 0;
    if (r->lo_open ? !(v > r->lo) : !(v >= r->lo)) return 0;
    if (r->hi_open ? !(v < r->hi) : !(v <= r->hi)) return 0;
    return 1;
}

const char *lm_range_str(char *buf, int n, const lm_range *r)
{
    snprintf(buf, (size_t)n, "%s %c%.10g, %.10g%c", r->integer ? "an integer in" : "a number in",
             r->lo_open ? '(' : '[', r->lo, r->hi, r->hi_open ? ')' : ']');
    return buf;
}

/* index of `v` in "a|b|c", or -1 */
static int choice_index(const char *choices, const char *v)
{
    int k = 0;
    size_t lv = strlen(v);
    const char *s = choices;
    while (*s) {
        const char *e = strchr(s, '|');
        size_t l = e ? (size_t)(e - s) : strlen(s);
        if (l == lv && strncmp(s, v, l) == 0) return k;
        k++;
        if (!e) break;
        s = e + 1;
    }
    return -1;
}

int lm_claim_parse_set(const lm_claim *c, const char *kv, int *idx, double *val,
                       char *err, int errlen)
{
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv || !eq[1]) {
        snprintf(err, (size_t)errlen, "malformed --set '%s' (expected name=value)", kv);
        return -1;
    }
    char name[128];
    size_t nl = (size_t)(eq - kv);
    if (nl >= sizeof name) nl = sizeof name - 1;
    memcpy(name, kv, nl);
    name[nl] = 0;
    int k = lm_claim_param_index(c, name);
    if (k < 0) {
        snprintf(err, (size_t)errlen, "claim %s has no parameter '%s' (see: lemmata params %s)",
                 c->id, name, c->id);
        return -1;
    }
    const char *v = eq + 1;
    if (c->params[k].choices) {
        int ci = choice_index(c->params[k].choices, v);
        if (ci < 0) {
            char *end;
            double dv = strtod(v, &end);
            /* an index: digits only (strtod would also take " 1", "+1", "1e0", "0x1") */
            if (*end == 0 && strspn(v, "0123456789") == strlen(v) && dv == floor(dv) && dv >= 0 &&
                choice_index(c->params[k].choices, "") < 0) {
                if (dv < nchoices(c->params[k].choices)) ci = (int)dv;
            }
        }
        if (ci < 0) {
            snprintf(err, (size_t)errlen, "parameter %s of %s takes one of %s, not '%s'", name,
                     c->id, c->params[k].choices, v);
            return -1;
        }
        *idx = k;
        *val = ci;
        return 0;
    }
    lm_range r;
    char rs[96];
    if (lm_param_range(&r, &c->params[k])) {
        snprintf(err, (size_t)errlen, "internal error: parameter %s of %s declares no valid range",
                 name, c->id);
        return -1;
    }
    char *end;
    errno = 0;
    double dv = strtod(v, &end);
    /* a number and nothing else: no leading blanks, no hex floats, no "inf"/"nan" */
    int plain = strspn(v, "+-0123456789.eE") == strlen(v);
    if (*end != 0 || !plain || errno == ERANGE || !isfinite(dv) || !lm_range_contains(&r, dv)) {
        snprintf(err, (size_t)errlen, "parameter %s of %s takes %s, not '%.40s'", name, c->id,
                 lm_range_str(rs, sizeof rs, &r), v);
        return -1;
    }
    *idx = k;
    *val = dv;
    return 0;
}
