/* bm_util.c -- timing, the BLAS-bound reference and JSON helpers of the bench. */
#include "bm.h"
#include <gsl/gsl_cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double bm_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void bm_stats(bm_time *t, double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    t->min = v[0];
    t->max = v[n - 1];
    t->med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    t->reps = n;
    t->ok = 1;
}

bm_time bm_time_fn(int (*fn)(void *), void *arg, double budget, int maxreps, double sample)
{
    bm_time t;
    memset(&t, 0, sizeof t);
    double t0 = bm_now();
    if (fn(arg)) return t; /* warm-up, also sizes the samples */
    double one = bm_now() - t0;
    if (one <= 0) one = 1e-9;
    int inner = one >= sample ? 1 : (int)ceil(sample / one);
    if (inner > 100000) inner = 100000;
    int reps = (int)(budget / (one * inner));
    if (reps > maxreps) reps = maxreps;
    if (reps < 3) reps = 3;
    double *v = malloc(sizeof(double) * (size_t)reps);
    int r0 = 0;
    if (one >= 0.3) v[r0++] = one; /* a slow step: its first call is a sample (warm-up is noise there) */
    for (int r = r0; r < reps; r++) {
        double a = bm_now();
        for (int k = 0; k < inner; k++)
            if (fn(arg)) {
                free(v);
                return t;
            }
        v[r] = (bm_now() - a) / inner;
    }
    bm_stats(&t, v, reps);
    t.inner = inner;
    free(v);
    return t;
}

double bm_gemm_flops(const bm_gemm *g, int ng)
{
    double s = 0;
    for (int i = 0; i < ng; i++) s += 2.0 * g[i].m * (double)g[i].n * g[i].k * g[i].count;
    return s;
}

typedef struct {
    const bm_gemm *g;
    int ng;
    double *A, *B, *C;
} blas_arg;

static int run_gemms(void *p)
{
    blas_arg *a = p;
    for (int i = 0; i < a->ng; i++) {
        const bm_gemm *q = &a->g[i];
        for (int c = 0; c < q->count; c++)
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, q->m, q->n, q->k, 1.0, a->A, q->k, a->B,
                        q->n, 0.0, a->C, q->n);
    }
    return 0;
}

bm_time bm_blas_bound(const bm_gemm *g, int ng, double budget)
{
    size_t na = 1, nb = 1, nc = 1;
    for (int i = 0; i < ng; i++) {
        size_t m = (size_t)g[i].m, n = (size_t)g[i].n, k = (size_t)g[i].k;
        if (m * k > na) na = m * k;
        if (k * n > nb) nb = k * n;
        if (m * n > nc) nc = m * n;
    }
    blas_arg a = {g, ng, malloc(sizeof(double) * na), malloc(sizeof(double) * nb), malloc(sizeof(double) * nc)};
    for (size_t i = 0; i < na; i++) a.A[i] = 1.0 / (double)(1 + i % 17);
    for (size_t i = 0; i < nb; i++) a.B[i] = 1.0 / (double)(1 + i % 13);
    bm_time t = bm_time_fn(run_gemms, &a, budget, 9, 2e-3);
    free(a.A);
    free(a.B);
    free(a.C);
    return t;
}

/* ---------------------------------------------------------------- JSON */

void bm_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c == '\n') fputs("\\n", f);
        else if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
    fputc('"', f);
}

void bm_tex_esc(FILE *f, const char *s, int split_dashes)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': case '%': case '$': case '#': case '_': case '{': case '}': fprintf(f, "\\%c", *s); break;
        case '~': fputs("\\textasciitilde{}", f); break;
        case '^': fputs("\\textasciicircum{}", f); break;
        case '\\': fputs("\\textbackslash{}", f); break;
        case '<': fputs("\\textless{}", f); break;
        case '>': fputs("\\textgreater{}", f); break;
        case '-':
            if (split_dashes) fputs("-{}", f); /* "--run" stays two hyphens, not an en dash */
            else fputc('-', f);
            break;
        default: fputc(*s, f);
        }
    }
}

void bm_json_num(FILE *f, double x)
{
    if (isfinite(x)) fprintf(f, "%.17g", x);
    else fputs("null", f);
}

void bm_json_arr(FILE *f, const char *name, const int *shape, int nshape, const double *v)
{
    size_t n = 1;
    fprintf(f, "\"%s\": {\"shape\": [", name);
    for (int i = 0; i < nshape; i++) {
        fprintf(f, "%s%d", i ? ", " : "", shape[i]);
        n *= (size_t)shape[i];
    }
    fputs("], \"v\": [", f);
    for (size_t i = 0; i < n; i++) {
        if (i) fputc(i % 8 ? ' ' : '\n', f);
        bm_json_num(f, v[i]);
        if (i + 1 < n) fputc(',', f);
    }
    fputs("]}", f);
}

void bm_json_mat(FILE *f, const char *name, const lm_mat *A)
{
    double *v = malloc(sizeof(double) * (size_t)(A->r * A->c + 1));
    lm_mat_get_array(v, A);
    int sh[2] = {A->r, A->c};
    bm_json_arr(f, name, sh, 2, v);
    free(v);
}

void bm_json_mats(FILE *f, const char *name, lm_mat *const *A, int k)
{
    int r = A[0]->r, c = A[0]->c;
    double *v = malloc(sizeof(double) * (size_t)(k * r * c + 1));
    for (int i = 0; i < k; i++) lm_mat_get_array(v + (size_t)i * (size_t)(r * c), A[i]);
    int sh[3] = {k, r, c};
    bm_json_arr(f, name, sh, 3, v);
    free(v);
}

void bm_json_ints(FILE *f, const char *name, const int *v, int n)
{
    fprintf(f, "\"%s\": [", name);
    for (int i = 0; i < n; i++) fprintf(f, "%s%d", i ? ", " : "", v[i]);
    fputs("]", f);
}
