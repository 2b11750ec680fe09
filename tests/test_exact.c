/* Exact rank and determinant sign of matrices of doubles (lm_exact.h): structural
 * zeros are zeros.  A rank-deficient matrix whose floating-point elimination leaves a
 * residue of rounding, a matrix that is singular only exactly, dyadic entries spanning
 * 2^-1000 .. 2^1000, and non-finite entries. */
#include "lm_exact.h"
#include <criterion/criterion.h>
#include <math.h>

Test(exact, rank_deficient_with_inexact_looking_entries)
{
    /* row 2 = row 0 + row 1 (exact in double): rank 2, determinant exactly 0 */
    double a[3][3] = {{1, 2, 3}, {4, 5, 6}, {0, 0, 0}};
    for (int j = 0; j < 3; j++) a[2][j] = a[0][j] + a[1][j]; /* exact in double */
    cr_assert_eq(lm_exact_rank(&a[0][0], 3, 3, 3), 2);
    cr_assert_eq(lm_exact_det_sign(&a[0][0], 3, 3), 0);
    /* row 0 / 3 rounds (1/3 is not dyadic): decided on the doubles as stored, rank and
     * determinant agree whichever way the rounding fell */
    for (int j = 0; j < 3; j++) a[2][j] = a[0][j] / 3.0 + a[1][j];
    int r = lm_exact_rank(&a[0][0], 3, 3, 3);
    cr_assert(r == 2 || r == 3);
    cr_assert_eq(r == 2, lm_exact_det_sign(&a[0][0], 3, 3) == 0);
}

Test(exact, extreme_exponents_and_signs)
{
    double a[2][2] = {{ldexp(1, -1000), ldexp(1, 1000)}, {ldexp(3, -1000), ldexp(3, 1000)}};
    cr_assert_eq(lm_exact_rank(&a[0][0], 2, 2, 2), 1); /* row 1 = 3 row 0 */
    cr_assert_eq(lm_exact_det_sign(&a[0][0], 2, 2), 0);
    a[1][0] = nextafter(a[1][0], 1.0); /* one ulp off: full rank, det = (3-ulp)... */
    cr_assert_eq(lm_exact_rank(&a[0][0], 2, 2, 2), 2);
    cr_assert_eq(lm_exact_det_sign(&a[0][0], 2, 2), -1); /* a00 a11 - a01 a10 < 0 */
    double id[2][2] = {{1, 0}, {0, -1}};
    cr_assert_eq(lm_exact_det_sign(&id[0][0], 2, 2), -1);
    double z[2][3] = {{0, 0, 0}, {0, 0, 0}};
    cr_assert_eq(lm_exact_rank(&z[0][0], 2, 3, 3), 0);
}

Test(exact, non_finite_is_refused)
{
    double a[2] = {1, NAN};
    cr_assert_eq(lm_exact_rank(a, 1, 2, 2), -1);
    double b[4] = {1, INFINITY, 0, 1};
    cr_assert_eq(lm_exact_det_sign(b, 2, 2), -2);
}

Test(exact, lm_mat_wrappers)
{
    lm_ctx c = lm_ctx_double();
    lm_mat *A = lm_mat_new(3, 2, &c);
    for (int i = 0; i < 3; i++) {
        lm_mat_set_d(A, i, 0, i + 1);
        lm_mat_set_d(A, i, 1, 2 * (i + 1));
    }
    cr_assert_eq(lm_mat_rank_exact(A), 1);
    cr_assert_eq(lm_mat_det_sign_exact(A), -2, "not square");
    lm_mat_free(A);
}
