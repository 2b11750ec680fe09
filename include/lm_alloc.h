/* lm_alloc.h -- checked allocation.
 *
 * Every allocation of the core and of the papers goes through these: on
 * failure they print one line ("lemmata: out of memory allocating N bytes")
 * and exit with status 3 (the work could not be completed), so an allocation
 * that fails is never dereferenced.  Sizes are bounded before anything is
 * allocated (parameter ranges, lm_size bounds), so this is the last line of
 * defence, not the control of resources.  GMP/MPFR/FLINT allocations are
 * checked the same way (lm_alloc_install, run before main).
 */
#ifndef LM_ALLOC_H
#define LM_ALLOC_H

#include <stddef.h>

/* Every block is aligned to 64 bytes (free with free), so that a vectorised kernel splits its
 * loops the same way wherever the heap put the data: a result must not depend on the layout
 * of the process (check vs verify, -j 1 vs -j 2). */
void *lm_xmalloc(size_t n);
void *lm_xcalloc(size_t n, size_t size);
void *lm_xrealloc(void *p, size_t n);
char *lm_xstrdup(const char *s);

/* installs checked (unaligned) allocators in GMP, and so MPFR, and in FLINT; runs before main
 * as a constructor in every program that links the core (idempotent) */
void lm_alloc_install(void);

#endif
