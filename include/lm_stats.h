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

/* ---- rate proxies (issue 16): a fitted exponent judged without false alarms ----
 * The rule, for a sequence y_k observed at times t_k > 0 (y already transformed, e.g.
 * log e_t, so that the claimed rate is the slope of y against log t):
 *   1. the asymptotic window is t in [T/8, T], T the last time: the transient before T/8
 *      is discarded (three doublings of the horizon are kept);
 *   2. the slope is fitted (least squares, conf-level interval) on that window and, by
 *      the same rule, on the horizon T/2 (window [T/16, T/2]); it is *stable* when the two
 *      differ by at most max(stab_tol, 2 sqrt(se^2 + se_half^2));
 *   3. unstable, or fewer than 4 points in either window: LM_RATE_TOO_SHORT (the caller
 *      runs longer within its budget -- doubling T -- or reports not-checkable);
 *   4. stable: LM_RATE_INCONSISTENT when the interval excludes the claimed slope by more
 *      than tol on the side the claim constrains (side -1: the claim is "slope <= claimed",
 *      a decay at least that fast; +1: "slope >= claimed"; 0: both), else
 *      LM_RATE_CONSISTENT.
 * excess = how far the interval lies beyond the claimed slope on the constrained side
 * (<= 0 when it reaches it): the observation lm_rate_judge records is excess <= tol. */
typedef enum { LM_RATE_CONSISTENT = 0, LM_RATE_INCONSISTENT, LM_RATE_TOO_SHORT } lm_rate_decision;

typedef struct lm_rate_fit {
    double slope, se, lo, hi;  /* on the window [T/8, T] */
    double slope_half, se_half; /* on [T/16, T/2] */
    double drift;              /* |slope - slope_half| */
    int stable, n, n_half;
    double t_lo, t_hi;         /* the window */
    double claimed, tol, excess;
    int side;
    lm_rate_decision decision;
    char why[200];
} lm_rate_fit;

void lm_rate_fit_seq(lm_rate_fit *r, const double *t, const double *y, int n, double claimed, int side,
                     double tol, double conf, double stab_tol);
/* the same rule for a linear (geometric) rate: y (e.g. log f_t) fitted against t itself, so the
 * slope is log rho of f_t ~ C rho^t; the windows are the same [T/8, T] and [T/16, T/2] */
void lm_rate_fit_seq_lin(lm_rate_fit *r, const double *t, const double *y, int n, double claimed, int side,
                         double tol, double conf, double stab_tol);
/* the same rule with the slope taken against another abscissa x_k (log r_k, say) while the
 * windows stay those of the time t_k */
void lm_rate_fit_xy(lm_rate_fit *r, const double *t, const double *x, const double *y, int n, double claimed,
                    int side, double tol, double conf, double stab_tol);

/* Wilson score interval for k successes in m trials at two-sided level conf */
void lm_wilson(double *lo, double *hi, long k, long m, double conf);

#endif
