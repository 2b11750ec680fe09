/* common.c -- option parsing and printing shared by the commands. */
#include "cli.h"
#include <ctype.h>
#include <limits.h>
#include <strings.h>

int lm_cli_die_usage(const char *fmt, const char *a)
{
    /* a may be a user's argument: one line, of a readable length, whatever it holds */
    char shown[240];
    fprintf(stderr, "lemmata: ");
    fprintf(stderr, fmt, lm_cli_shown(shown, sizeof shown, a));
    fprintf(stderr, "\n");
    return LM_EXIT_USAGE;
}

int lm_cli_die_write(int status, const char *path, int err)
{
    fprintf(stderr, "lemmata: cannot write '%s': %s\n", path, strerror(err ? err : EIO));
    return status;
}

int lm_cli_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s) return -1;
    uint64_t v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10) return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

int lm_cli_parse_long(const char *s, long lo, long hi, long *out)
{
    if (!s || !*s) return -1;
    const char *p = s;
    if (*p == '-' && lo < 0) p++;
    if (!*p) return -1;
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9') return -1;
    return lm_parse_long(s, lo, hi, out);
}

int lm_cli_parse_double(const char *s, double lo, double hi, double *out)
{
    if (!s || !*s || isspace((unsigned char)*s)) return -1;
    char *e = NULL;
    errno = 0;
    double v = strtod(s, &e);
    if (e == s || *e || errno == ERANGE || !isfinite(v) || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int lm_cli_parse_prec(const char *s, mpfr_prec_t *out)
{
    long v;
    if (lm_cli_parse_long(s, LM_PREC_MIN, LM_PREC_MAX, &v)) return -1;
    *out = v == 53 ? 0 : (mpfr_prec_t)v;
    return 0;
}

const char *lm_cli_name_value(const char *v)
{
    if (!v || !*v || !strncmp(v, "--", 2)) return NULL;
    return v;
}

int lm_cli_is_help(const char *a)
{
    return a && (!strcmp(a, "--help") || !strcmp(a, "-h"));
}

const char *lm_cli_paper_of(const char *id, char *buf, size_t n)
{
    const char *s = strchr(id, '/');
    size_t l = s ? (size_t)(s - id) : strlen(id);
    if (l >= n) l = n - 1;
    memcpy(buf, id, l);
    buf[l] = 0;
    return buf;
}


int lm_cli_needs(const char *opt, const char *what, const char *v)
{
    char shown[80];
    fprintf(stderr, "lemmata: %s needs %s, got %s%s%s\n", opt, what, v ? "'" : "nothing",
            v ? lm_cli_shown(shown, sizeof shown, v) : "", v ? "'" : "");
    return LM_EXIT_USAGE;
}

int lm_cli_common_opt(lm_cli_common *c, int argc, char **argv, int *k)
{
    const char *a = argv[*k], *v = *k + 1 < argc ? argv[*k + 1] : NULL;
    long b;
    if (!strcmp(a, "--quick")) {
        c->quick = 1;
        return 0;
    }
    if (!strcmp(a, "--seed")) {
        ++*k;
        return parse_u64(v, &c->o->seed) ? lm_cli_needs(a, "a non-negative integer (digits only, below 2^64)", v) : 0;
    }
    if (!strcmp(a, "--budget")) {
        ++*k;
        if (parse_long(v, 1, 100000, &b)) return lm_cli_needs(a, "an integer in [1, 100000]", v);
        c->o->budget = (int)b;
        c->budget_set = 1;
        return 0;
    }
    if ((c->allow & LM_OPT_PREC) && !strcmp(a, "--prec")) {
        ++*k;
        return parse_prec(v, &c->o->prec) ? lm_cli_needs(a, "an integer number of bits in [53, 8192]", v) : 0;
    }
    if ((c->allow & LM_OPT_JOBS) && (!strcmp(a, "-j") || !strcmp(a, "--jobs"))) {
        ++*k;
        return parse_long(v, 1, 64, &c->jobs) ? lm_cli_needs(a, "a number of worker processes in [1, 64]", v) : 0;
    }
    return -1;
}

void lm_cli_common_finish(lm_cli_common *c)
{
    if (!c->quick) return;
    c->o->quick = 1;
    if (!c->budget_set) c->o->budget = 8;
}

const char *lm_cli_shown(char *buf, size_t n, const char *s)
{
    /* an argument echoed in a one-line error: a newline or escape in it must not break the
     * line or drive the terminal, and a megabyte of it must not flood it */
    size_t w = 0, max = n > 4 ? n - 4 : 0;
    for (; s && *s && w < max; s++) buf[w++] = (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s;
    if (s && *s && n >= 4) memcpy(buf + w, "...", 3), w += 3;
    if (n) buf[w < n ? w : n - 1] = 0;
    return buf;
}

/* s names p: its id, optionally with the '/' of a claim-id prefix, its catalogue name, or its
 * folder lemmas/ID[/] (names compare without regard to case: they are typed, not pasted) */
static int names_paper(const lm_paper *p, const char *s)
{
    size_t l = strlen(s);
    if (l && s[l - 1] == '/') l--;
    if (!strncmp(s, "lemmas/", 7)) return l > 7 && l - 7 == strlen(p->id) && !strncmp(s + 7, p->id, l - 7);
    if (l == strlen(p->id) && !strncasecmp(s, p->id, l)) return 1;
    return p->catalogue && l == strlen(p->catalogue) && !strncasecmp(s, p->catalogue, l);
}

const lm_paper *lm_cli_find_paper(const char *s)
{
    if (!s || !*s) return NULL;
    for (int k = 0; k < lm_paper_count; k++)
        if (names_paper(lm_papers[k], s)) return lm_papers[k];
    return NULL;
}

int lm_cli_paper_claims(const char *s, const lm_claim **out)
{
    const lm_paper *p = lm_cli_find_paper(s);
    char want[64];
    if (p) snprintf(want, sizeof want, "%s", p->id);
    else {
        /* claims in a folder without an LM_PAPER declaration answer to their prefix alone */
        size_t l = s ? strlen(s) : 0;
        if (l && s[l - 1] == '/') l--;
        if (!l || l >= sizeof want || memchr(s, '/', l)) return 0;
        snprintf(want, sizeof want, "%.*s", (int)l, s);
    }
    int n = 0;
    for (int k = 0; k < lm_registry_count; k++) {
        char pre[64];
        if (strcmp(paper_of(lm_registry[k]->id, pre, sizeof pre), want)) continue;
        if (out) out[n] = lm_registry[k];
        n++;
    }
    return n;
}

int lm_cli_unknown_paper(const char *cmd, const char *s)
{
    char shown[80];
    fprintf(stderr, "lemmata: %s: no paper '%s'; the papers are:", cmd, lm_cli_shown(shown, sizeof shown, s));
    for (int k = 0; k < lm_paper_count; k++) {
        const lm_paper *p = lm_papers[k];
        fprintf(stderr, "%s %s/", k ? "," : "", p->id);
        if (p->catalogue) fprintf(stderr, " (%s)", p->catalogue);
    }
    fprintf(stderr, "\n");
    return LM_EXIT_USAGE;
}
