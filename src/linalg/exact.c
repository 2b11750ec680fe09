/* src/linalg/exact.c -- see lm_exact.h.  A matrix of doubles is scaled by 2^-emin (emin
 * the smallest exponent of a mantissa bit in use) into an integer matrix, exactly, and
 * reduced by FLINT. */
#include "lm_exact.h"
#include "lm_alloc.h"
#include <flint/fmpz.h>
#include <flint/fmpz_mat.h>
#include <math.h>
#include <stdlib.h>

/* a into the integer matrix M with a = M 2^emin exactly; -1 on a non-finite entry */
static int to_integers(fmpz_mat_t M, const double *a, int rows, int cols, int ld)
{
    long emin = 0;
    int any = 0;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            double x = a[(long)i * ld + j];
            if (!isfinite(x)) return -1;
            if (x == 0) continue;
            int e;
            frexp(x, &e); /* x = f 2^e, |f| in [1/2, 1): f 2^53 is an integer */
            long lo = (long)e - 53;
            if (!any || lo < emin) emin = lo;
            any = 1;
        }
    fmpz_t t;
    fmpz_init(t);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            double x = a[(long)i * ld + j];
            fmpz *dst = fmpz_mat_entry(M, i, j);
            if (x == 0) {
                fmpz_zero(dst);
                continue;
            }
            int e;
            double f = frexp(x, &e);
            fmpz_set_d(t, ldexp(f, 53)); /* an integer of at most 53 bits, exactly */
            fmpz_mul_2exp(dst, t, (ulong)((long)e - 53 - emin));
        }
    fmpz_clear(t);
    return 0;
}

int lm_exact_rank(const double *a, int rows, int cols, int ld)
{
    if (rows <= 0 || cols <= 0) return 0;
    fmpz_mat_t M;
    fmpz_mat_init(M, rows, cols);
    int r = to_integers(M, a, rows, cols, ld) ? -1 : (int)fmpz_mat_rank(M);
    fmpz_mat_clear(M);
    return r;
}

int lm_exact_det_sign(const double *a, int n, int ld)
{
    if (n <= 0) return 1; /* the empty product */
    fmpz_mat_t M;
    fmpz_mat_init(M, n, n);
    int s = -2;
    if (to_integers(M, a, n, n, ld) == 0) {
        fmpz_t d;
        fmpz_init(d);
        fmpz_mat_det(d, M);
        s = fmpz_sgn(d);
        fmpz_clear(d);
    }
    fmpz_mat_clear(M);
    return s;
}

static double *doubles_of(const lm_mat *A)
{
    double *a = lm_xmalloc(sizeof(double) * (size_t)(A->r > 0 ? A->r : 1) * (size_t)(A->c > 0 ? A->c : 1));
    for (int i = 0; i < A->r; i++)
        for (int j = 0; j < A->c; j++) a[(long)i * A->c + j] = lm_mat_get_d(A, i, j);
    return a;
}

int lm_mat_rank_exact(const lm_mat *A)
{
    double *a = doubles_of(A);
    int r = lm_exact_rank(a, A->r, A->c, A->c);
    free(a);
    return r;
}

int lm_mat_det_sign_exact(const lm_mat *A)
{
    if (A->r != A->c) return -2;
    double *a = doubles_of(A);
    int s = lm_exact_det_sign(a, A->r, A->c);
    free(a);
    return s;
}
