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

void lm_cli_print_line(const lm_claim_result *r, int k, int n)
{
    char wr[32];
    lm_fmt_ratio(wr, sizeof wr, r->worst_ratio);
    fprintf(stdout, "[%2d/%d] %-44s %-17s worst %-9s %5ld inst  %-16s %6.1f s\n", k, n,
            r->claim->id, lm_verdict_name(r->verdict), wr, r->instances, r->precisions,
            r->seconds);
    fflush(stdout);
}
