/* alloc.c -- checked allocation (lm_alloc.h). */
#include "lm_alloc.h"
#include <flint/flint.h>
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(size_t n)
{
    fprintf(stderr, "lemmata: out of memory allocating %zu bytes\n", n);
    fflush(stderr);
    exit(3);
}

void *lm_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) oom(n);
    return p;
}

void *lm_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) oom(n * size);
    return p;
}

void *lm_xrealloc(void *q, size_t n)
{
    void *p = realloc(q, n ? n : 1);
    if (!p) oom(n);
    return p;
}

char *lm_xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = lm_xmalloc(n);
    memcpy(p, s, n);
    return p;
}

static void *gmp_alloc(size_t n) { return lm_xmalloc(n); }
static void *gmp_realloc(void *p, size_t old, size_t n) { (void)old; return lm_xrealloc(p, n); }
static void gmp_free(void *p, size_t n) { (void)n; free(p); }

/* installed before main in every program that links the core */
__attribute__((constructor)) void lm_alloc_install(void)
{
    static int done;
    if (done) return;
    done = 1;
    mp_set_memory_functions(gmp_alloc, gmp_realloc, gmp_free);
    __flint_set_memory_functions(lm_xmalloc, lm_xcalloc, lm_xrealloc, free);
}
