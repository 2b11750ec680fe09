/* common.c -- option parsing and printing shared by the commands. */
#include "cli.h"
#include <ctype.h>
#include <limits.h>

int lm_cli_die_usage(const char *fmt, const char *a)
{
    fprintf(stderr, "lemmata: ");
    fprintf(stderr, fmt, a);
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
    fprintf(stderr, "lemmata: %s needs %s, got %s%s%s\n", opt, what, v ? "'" : "nothing", v ? v : "",
            v ? "'" : "");
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
