/* common.c -- option parsing and printing shared by the commands. */
#include "cli.h"

int lm_cli_die_usage(const char *fmt, const char *a)
{
    fprintf(stderr, "lemmata: ");
    fprintf(stderr, fmt, a);
    fprintf(stderr, "\n");
    return 2;
}

int lm_cli_parse_u64(const char *s, uint64_t *out)
{
    char *e;
    errno = 0;
    if (!s || !*s || *s == '-') return -1;
    unsigned long long v = strtoull(s, &e, 10);
    if (*e || errno) return -1;
    *out = v;
    return 0;
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

int lm_cli_parse_prec(const char *s, mpfr_prec_t *out)
{
    long v;
    if (lm_parse_long(s, LM_PREC_MIN, LM_PREC_MAX, &v)) return -1;
    *out = v == 53 ? 0 : (mpfr_prec_t)v;
    return 0;
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
