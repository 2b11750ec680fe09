/* lm_stats.h -- small statistics for Monte Carlo and rate proxies: a running
 * mean/variance (Welford), the least-squares slope of y against x with its
 * standard error and a t-based confidence interval, and the Wilson score
 * interval of a binomial frequency. */
#ifndef LM_STATS_H
#define LM_STATS_H

typedef struct {
    long n;
    double mean, m2;
} lm_welford;

void lm_welford_init(lm_welford *w);
void lm_welford_add(lm_welford *w, double x);
double lm_welford_var(const lm_welford *w); /* sample variance (n - 1); 0 for n < 2 */
double lm_welford_se(const lm_welford *w);  /* standard error of the mean */

typedef struct {
    double slope, intercept;
    double se;     /* standard error of the slope (0 when n <= 2) */
    double lo, hi; /* two-sided confidence interval of the slope at level conf */
    int n;
} lm_fit;

/* ordinary least squares y = a + b x over n points (n >= 2); conf e.g. 0.95.
 * Returns 0, or 1 for fewer than 2 distinct x or a non-finite value. */
int lm_fit_line(lm_fit *f, const double *x, const double *y, int n, double conf);
/* two-sided Student-t quantile t_{(1+conf)/2, dof} (Cornish-Fisher expansion, dof >= 1) */
double lm_t_quantile(double conf, int dof);
/* standard normal quantile */
double lm_normal_quantile(double p);

/* Wilson score interval for k successes in m trials at two-sided level conf */
void lm_wilson(double *lo, double *hi, long k, long m, double conf);

#endif
