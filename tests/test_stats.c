/* tests/test_stats.c -- lm_stats: quantiles against tabulated values, the
 * least-squares slope and its interval, Welford, Wilson. */
#include "lm_stats.h"
#include "lm_rng.h"
#include <criterion/criterion.h>
#include <math.h>

Test(stats, quantiles_match_tables)
{
    cr_expect(fabs(lm_normal_quantile(0.975) - 1.959963984540054) < 1e-12);
    cr_expect(fabs(lm_normal_quantile(0.001) + 3.090232306167814) < 1e-12);
    /* t_{0.975, dof} from standard tables */
    const int dof[] = {1, 2, 3, 5, 10, 30};
    const double t[] = {12.7062, 4.3027, 3.1824, 2.5706, 2.2281, 2.0423};
    for (int i = 0; i < 6; i++)
        cr_expect(fabs(lm_t_quantile(0.95, dof[i]) - t[i]) < 2e-3 * t[i], "dof %d: %g vs %g", dof[i],
                  lm_t_quantile(0.95, dof[i]), t[i]);
}

Test(stats, slope_interval_covers_truth)
{
    /* y = 1 - 2 x + noise: the 95% interval covers -2 in about 95% of 400 trials */
    lm_rng g;
    lm_rng_init(&g, 7);
    int cover = 0;
    for (int k = 0; k < 400; k++) {
        double x[8], y[8];
        for (int i = 0; i < 8; i++) {
            x[i] = i;
            y[i] = 1 - 2 * x[i] + 0.3 * lm_rng_normal(&g);
        }
        lm_fit f;
        cr_assert_eq(lm_fit_line(&f, x, y, 8, 0.95), 0);
        cover += f.lo <= -2 && -2 <= f.hi;
    }
    cr_expect(cover >= 360 && cover <= 396, "coverage %d / 400", cover);
    double x2[2] = {0, 1}, y2[2] = {0, 1};
    lm_fit f;
    cr_expect_eq(lm_fit_line(&f, x2, y2, 1, 0.95), 1, "one point is no fit");
    double xs[3] = {1, 1, 1}, ys[3] = {0, 1, 2};
    cr_expect_eq(lm_fit_line(&f, xs, ys, 3, 0.95), 1, "equal x is no fit");
}

Test(stats, welford_and_wilson)
{
    lm_welford w;
    lm_welford_init(&w);
    const double v[] = {1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16};
    for (int i = 0; i < 4; i++) lm_welford_add(&w, v[i]);
    cr_expect(fabs(w.mean - (1e9 + 10)) < 1e-6);
    cr_expect(fabs(lm_welford_var(&w) - 30.0) < 1e-6, "var %g", lm_welford_var(&w));
    double lo, hi;
    lm_wilson(&lo, &hi, 0, 10, 0.95);
    cr_expect(lo == 0.0 && fabs(hi - 0.2775) < 1e-3, "[%g, %g]", lo, hi);
    lm_wilson(&lo, &hi, 50, 100, 0.95);
    cr_expect(fabs(lo - 0.4038) < 1e-3 && fabs(hi - 0.5962) < 1e-3, "[%g, %g]", lo, hi);
}
