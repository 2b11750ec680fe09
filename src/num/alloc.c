/* alloc.c -- checked allocation (lm_alloc.h). */
#include "lm_alloc.h"
#include <flint/flint.h>
#include <gmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void oom(size_t n)
{
    fprintf(stderr, "lemmata: out of memory allocating %zu bytes\n", n);
    fflush(stderr);
    exit(3);
}

/* Every block is aligned to 64 bytes: a vectorised kernel (OpenBLAS, GSL, the compiler's
 * own loops) peels its loops by the data's alignment, so with 16-byte malloc blocks the same
 * sum came out in another order wherever the heap put the data -- `check` and `verify`
 * disagreed in the last bits of a worst ratio.  With every block on a 64-byte boundary the
 * order, and so the result, depends only on the sizes. */
#define LM_ALIGN 64

void *lm_xmalloc(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, LM_ALIGN, n ? n : 1) || !p) oom(n);
    return p;
}

void *lm_xcalloc(size_t n, size_t size)
{
    if (size && n > ((size_t)-1) / size) oom((size_t)-1);
    size_t bytes = n * size;
    void *p = lm_xmalloc(bytes);
    memset(p, 0, bytes ? bytes : 1);
    return p;
}

void *lm_xrealloc(void *q, size_t n)
{
    if (!q) return lm_xmalloc(n);
    void *p = realloc(q, n ? n : 1);
    if (!p) oom(n);
    if (((uintptr_t)p & (LM_ALIGN - 1)) == 0) return p;
    void *a = lm_xmalloc(n); /* realloc moved it off the boundary: move it back */
    memcpy(a, p, n ? n : 1);
    free(p);
    return a;
}

/* GMP, MPFR and FLINT limbs: checked, not aligned (they do not vectorise by alignment) */
static void *plain_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) oom(n);
    return p;
}

static void *plain_calloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) oom(n * size);
    return p;
}

static void *plain_realloc(void *q, size_t n)
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

static void *gmp_alloc(size_t n) { return plain_malloc(n); }
static void *gmp_realloc(void *p, size_t old, size_t n) { (void)old; return plain_realloc(p, n); }
static void gmp_free(void *p, size_t n) { (void)n; free(p); }

/* installed before main in every program that links the core */
__attribute__((constructor)) void lm_alloc_install(void)
{
    static int done;
    if (done) return;
    done = 1;
    mp_set_memory_functions(gmp_alloc, gmp_realloc, gmp_free);
    __flint_set_memory_functions(plain_malloc, plain_calloc, plain_realloc, free);
}
