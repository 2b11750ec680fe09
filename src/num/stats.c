/* src/num/stats.c -- see lm_stats.h */
#include "lm_stats.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lm_welford_init(lm_welford *w)
{
    w->n = 0;
    w->mean = w->m2 = 0.0;
}

void lm_welford_add(lm_welford *w, double x)
{
    w->n++;
    double d = x - w->mean;
    w->mean += d / (double)w->n;
    w->m2 += d * (x - w->mean);
}

double lm_welford_var(const lm_welford *w)
{
    return w->n < 2 ? 0.0 : w->m2 / (double)(w->n - 1);
}

double lm_welford_se(const lm_welford *w)
{
    return w->n < 2 ? 0.0 : sqrt(lm_welford_var(w) / (double)w->n);
}

/* Acklam's rational approximation refined by one Halley step (|error| < 1e-15) */
double lm_normal_quantile(double p)
{
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                               1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                               6.680131188771972e+01, -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                               -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                               3.754408661907416e+00};
    if (!(p > 0.0 && p < 1.0)) return p <= 0.0 ? -HUGE_VAL : HUGE_VAL;
    double q, r, x;
    if (p < 0.02425) {
        q = sqrt(-2 * log(p));
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    } else if (p > 1 - 0.02425) {
        q = sqrt(-2 * log(1 - p));
        x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    } else {
        q = p - 0.5;
        r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }
    double e = 0.5 * erfc(-x / sqrt(2.0)) - p, u = e * sqrt(2 * M_PI) * exp(x * x / 2);
    return x - u / (1 + x * u / 2);
}

double lm_t_quantile(double conf, int dof)
{
    double z = lm_normal_quantile(0.5 + 0.5 * conf);
    if (dof >= 1000) return z;
    if (dof == 1) return tan(M_PI * 0.5 * conf);
    if (dof == 2) { /* exact: t = (2p - 1) / sqrt(2 p (1 - p)) */
        double p = 0.5 + 0.5 * conf;
        return (2 * p - 1) / sqrt(2 * p * (1 - p));
    }
    double n = dof, z2 = z * z;
    /* Cornish-Fisher expansion in 1/n */
    double g1 = (z2 + 1) * z / 4, g2 = ((5 * z2 + 16) * z2 + 3) * z / 96,
           g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384,
           g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160;
    return z + g1 / n + g2 / (n * n) + g3 / (n * n * n) + g4 / (n * n * n * n);
}

int lm_fit_line(lm_fit *f, const double *x, const double *y, int n, double conf)
{
    f->n = n;
    f->slope = f->intercept = f->se = 0.0;
    f->lo = -HUGE_VAL;
    f->hi = HUGE_VAL;
    if (n < 2) return 1;
    double mx = 0, my = 0;
    for (int i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i])) return 1;
        mx += x[i];
        my += y[i];
    }
    mx /= n;
    my /= n;
    double sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
    }
    if (!(sxx > 0)) return 1;
    f->slope = sxy / sxx;
    f->intercept = my - f->slope * mx;
    if (n > 2) {
        double ss = 0;
        for (int i = 0; i < n; i++) {
            double r = y[i] - f->intercept - f->slope * x[i];
            ss += r * r;
        }
        f->se = sqrt(ss / (n - 2) / sxx);
        double t = lm_t_quantile(conf, n - 2);
        f->lo = f->slope - t * f->se;
        f->hi = f->slope + t * f->se;
    } else {
        f->lo = f->hi = f->slope; /* two points: no error estimate */
    }
    return 0;
}

void lm_wilson(double *lo, double *hi, long k, long m, double conf)
{
    if (m <= 0) {
        *lo = 0.0;
        *hi = 1.0;
        return;
    }
    double z = lm_normal_quantile(0.5 + 0.5 * conf), ph = (double)k / (double)m, z2 = z * z, mm = (double)m;
    double den = 1 + z2 / mm, cen = (ph + z2 / (2 * mm)) / den,
           half = z * sqrt(ph * (1 - ph) / mm + z2 / (4 * mm * mm)) / den;
    *lo = k == 0 ? 0.0 : fmax(0.0, cen - half);
    *hi = k == m ? 1.0 : fmin(1.0, cen + half);
}

/* the fit of y against x (x NULL: log t when logx, else t) over the points with t in [a, b] */
static int window_fit(lm_fit *f, const double *t, const double *xs, const double *y, int n, double a, double b,
                      double conf, int logx)
{
    int m = 0;
    for (int i = 0; i < n; i++) m += t[i] >= a && t[i] <= b;
    f->n = m;
    if (m < 4) return 1;
    double *x = malloc(sizeof(double) * (size_t)m * 2);
    if (!x) return 1;
    double *yy = x + m;
    m = 0;
    for (int i = 0; i < n; i++)
        if (t[i] >= a && t[i] <= b) {
            x[m] = xs ? xs[i] : logx ? log(t[i]) : t[i];
            yy[m++] = y[i];
        }
    int rc = lm_fit_line(f, x, yy, m, conf);
    free(x);
    return rc;
}

static void rate_fit(lm_rate_fit *r, const double *t, const double *xs, const double *y, int n, double claimed,
                     int side, double tol, double conf, double stab_tol, int logx)
{
    memset(r, 0, sizeof *r);
    r->claimed = claimed;
    r->tol = tol;
    r->side = side;
    r->decision = LM_RATE_TOO_SHORT;
    r->slope = r->slope_half = r->excess = NAN;
    double T = 0;
    for (int i = 0; i < n; i++)
        if (t[i] > T) T = t[i];
    r->t_lo = T / 8;
    r->t_hi = T;
    lm_fit f, h;
    int bad = window_fit(&f, t, xs, y, n, T / 8, T, conf, logx);
    int bad_h = window_fit(&h, t, xs, y, n, T / 16, T / 2, conf, logx);
    r->n = f.n;
    r->n_half = h.n;
    if (bad || bad_h) {
        snprintf(r->why, sizeof r->why, "horizon too short: %d and %d points in the windows [T/8, T] and "
                 "[T/16, T/2] (T = %g; 4 needed in each)", f.n, h.n, T);
        return;
    }
    r->slope = f.slope;
    r->se = f.se;
    r->lo = f.lo;
    r->hi = f.hi;
    r->slope_half = h.slope;
    r->se_half = h.se;
    r->drift = fabs(f.slope - h.slope);
    double allow = 2 * sqrt(f.se * f.se + h.se * h.se);
    if (allow < stab_tol) allow = stab_tol;
    r->stable = r->drift <= allow;
    /* how far the interval lies beyond the claimed slope on the constrained side */
    double up = f.lo - claimed, down = claimed - f.hi;
    r->excess = side < 0 ? up : side > 0 ? down : (up > down ? up : down);
    if (!r->stable) {
        snprintf(r->why, sizeof r->why, "horizon too short: the fitted slope moved from %.4g to %.4g when the "
                 "horizon doubled from %g to %g (allowed %.3g)", h.slope, f.slope, T / 2, T, allow);
        return;
    }
    r->decision = r->excess > tol ? LM_RATE_INCONSISTENT : LM_RATE_CONSISTENT;
    snprintf(r->why, sizeof r->why, "slope %.4g [%.4g, %.4g] on t in [%g, %g] (%.4g at half the horizon) vs "
             "claimed %.4g +- %.3g", f.slope, f.lo, f.hi, T / 8, T, h.slope, claimed, tol);
}

void lm_rate_fit_seq(lm_rate_fit *r, const double *t, const double *y, int n, double claimed, int side,
                     double tol, double conf, double stab_tol)
{
    rate_fit(r, t, NULL, y, n, claimed, side, tol, conf, stab_tol, 1);
}

void lm_rate_fit_seq_lin(lm_rate_fit *r, const double *t, const double *y, int n, double claimed, int side,
                         double tol, double conf, double stab_tol)
{
    rate_fit(r, t, NULL, y, n, claimed, side, tol, conf, stab_tol, 0);
}

void lm_rate_fit_xy(lm_rate_fit *r, const double *t, const double *x, const double *y, int n, double claimed,
                    int side, double tol, double conf, double stab_tol)
{
    rate_fit(r, t, x, y, n, claimed, side, tol, conf, stab_tol, 0);
}
