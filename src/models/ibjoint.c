/* ibjoint.c -- the joint-training loss run shared by implicit/theorem2 and
 * implicit/theorem8: update (13) on DM data from W_0 = 0, u_0 = 0, with the
 * checks (i) fitted slope of log(-log L_t), (ii) per-step descent, (iii) the
 * explicit bound, and for theorem8 (iv) the one-step contraction.  The
 * claim files state what is compared; the parameters are theirs. */
#include "lm_ibjoint.h"
#include "lm_ib.h"
#include "lm_ibgen.h"
#include <math.h>
#include <stdlib.h>

int lm_ibjoint_loss_check(lm_eval *ev, int contraction)
{
    const lm_ctx *c = ev->ctx;
    lm_ibgen_dm_opts o;
    lm_ibgen_dm_defaults(&o);
    o.n = (int)lm_par(ev, "n");
    o.d = (int)lm_par(ev, "d");
    o.zeta = lm_par(ev, "zeta");
    int steps = ev->quick ? 600 : (int)lm_par(ev, "steps");
    if (ev->tmax > 0 && ev->tmax + 1 < steps) steps = ev->tmax + 1;
    if (!lm_assume(ev, o.n >= 1 && o.d >= 2 && steps >= 20, "need n >= 1, d >= 2, steps >= 20")) return 0;
    lm_rng *g = lm_eval_rng(ev);
    lm_ibdata *D = lm_ibgen_dm(&o, g, c);
    const int d = o.d;
    lm_ib_opt_par p;
    lm_ib_opt_par_default(&p);
    p.eta = lm_par(ev, "eta");
    const double c2 = 0.5 * lm_par(ev, "c2_scale"), dsc = 0.5 * lm_par(ev, "descent_scale");
    const lm_ib_opt *opt = lm_ib_opt_find("joint13");
    lm_mat *W0 = lm_mat_new(d, d, c), *u0 = lm_mat_new(d, 1, c);
    lm_ib_state *S = lm_ib_state_new(W0, u0);
    lm_ib_fwd *F = lm_ib_fwd_new(D), *F2 = lm_ib_fwd_new(D);
    lm_mat *gW = lm_mat_new(d, d, c), *gu = lm_mat_new(d, 1, c);
    lm_num logL, logL1, a, b, tmp;
    lm_num_inits(c, &logL, &logL1, &a, &b, &tmp, (lm_num *)NULL);
    double *mlogL = malloc((size_t)(steps + 1) * sizeof *mlogL);
    double kappa = INFINITY, B2 = 0.0;
    for (int i = 0; i < D->n; i++)
        for (int t = 0; t < D->T; t++) {
            double s = 0.0;
            for (int k = 0; k < d; k++) s += pow(lm_mat_get_d(D->X[i], t, k), 2);
            B2 = fmax(B2, s);
        }
    int rc = 0, stride = steps / 200 > 0 ? steps / 200 : 1;
    double worst_sanity = 0.0, worst_desc = 0.0, worst_contr = 0.0;
    const double csc = contraction ? 0.5 * lm_par(ev, "c_scale") : 0.0;
    lm_series_axes(ev, "iteration t", "training loss (log scale)", 1);
    if (lm_ib_forward(F, D, S->W, S->u, LM_IB_EXP)) rc = lm_fail(ev, "non-finite forward pass at t=0");
    for (int t = 0; t < steps && !rc; t++) {
        lm_num_set(&logL, &F->logL);
        mlogL[t] = lm_num_get_d(&logL);
        const double Ld = exp(mlogL[t]);
        if (t >= 1) {
            /* (iii): log L_t <= -c2 eta kappa_emp^2 (t^{1/3} - 1), kappa_emp over s < t */
            const double lb = -c2 * p.eta * kappa * kappa * (cbrt((double)t) - 1.0);
            lm_num_set_d(&b, lb);
            lm_obs_le_log(ev, t, &logL, &b, 0.0, "(iii) log L_t <= -c2 eta kappa_emp^2 (t^(1/3)-1) at t=%d", t);
            if (t % stride == 0) {
                lm_series(ev, "loss L_t", t, Ld);
                lm_series(ev, "bound exp(-c2 eta kappa_emp^2 (t^(1/3)-1))", t, exp(lb));
            }
            worst_sanity = fmax(worst_sanity, -mlogL[t] / (3.0 * p.eta * B2 * cbrt((double)t) + log((double)o.n)));
        }
        lm_ib_grad_W(gW, F, D);
        lm_ib_grad_u(gu, F, D);
        /* a = dsc eta / (t+1)^{2/3} * (||gW||^2 + ||gu||^2) / L^2, in the context */
        lm_mat_frob(&a, gW);
        lm_num_mul(&a, &a, &a);
        lm_mat_frob(&tmp, gu);
        const double kap = lm_num_get_d(&tmp) / Ld;
        if (!isfinite(kap) || !isfinite(lm_num_get_d(&a))) {
            rc = lm_fail(ev, "non-finite gradient at t=%d", t);
            break;
        }
        kappa = fmin(kappa, kap);
        lm_num_fma(&a, &tmp, &tmp, &a);
        lm_num_mul_d(&tmp, &logL, -2.0);
        lm_num_exp(&tmp, &tmp);
        lm_num_mul(&a, &a, &tmp);
        lm_num_mul_d(&a, &a, dsc * p.eta / pow((double)(t + 1), 2.0 / 3.0));
        if (opt->step(S, F2, D, &p)) {
            rc = lm_fail(ev, "non-finite joint step at t=%d", t);
            break;
        }
        if (lm_ib_forward(F, D, S->W, S->u, LM_IB_EXP)) {
            rc = lm_fail(ev, "non-finite forward pass at t=%d", t + 1);
            break;
        }
        if (contraction) {
            /* (iv) c eta kappa_emp^2 / (t+1)^{2/3} <= 1 - L_{t+1}/L_t = -expm1(log L_{t+1} - log L_t) */
            lm_num_sub(&b, &F->logL, &logL);
            lm_num_expm1(&b, &b);
            lm_num_neg(&b, &b);
            lm_num_set_d(&tmp, csc * p.eta * kappa * kappa / pow((double)(t + 1), 2.0 / 3.0));
            worst_contr = fmax(worst_contr, lm_num_get_d(&tmp) / lm_num_get_d(&b));
            lm_obs_le(ev, t, &tmp, &b, 0.0, "(iv) one-step contraction at t=%d", t);
        }
        lm_num_sub(&b, &logL, &F->logL); /* log L_t - log L_{t+1} */
        worst_desc = fmax(worst_desc, lm_num_get_d(&a) / lm_num_get_d(&b));
        lm_obs_le(ev, t, &a, &b, 0.0, "(ii) per-step descent at t=%d", t);
    }
    if (!rc) {
        mlogL[steps] = lm_num_get_d(&F->logL);
        /* (i) slope of log(-log L_t) vs log t over [T/10, T] */
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        int m = 0;
        for (int t = steps / 10; t <= steps; t++) {
            if (!(mlogL[t] < 0)) continue;
            const double x = log((double)t), y = log(-mlogL[t]);
            sx += x; sy += y; sxx += x * x; sxy += x * y; m++;
        }
        const double mx = sx / m, my = sy / m, Sxx = sxx - m * mx * mx;
        const double slope = (sxy - m * mx * my) / Sxx, icpt = my - slope * mx;
        double ss = 0;
        for (int t = steps / 10; t <= steps; t++) {
            if (!(mlogL[t] < 0)) continue;
            const double r = log(-mlogL[t]) - icpt - slope * log((double)t);
            ss += r * r;
        }
        const double se = m > 2 ? sqrt(ss / (m - 2) / Sxx) : HUGE_VAL;
        lm_measure(ev, "final -log L", -mlogL[steps]);
        lm_measure(ev, "-log L_T / T^(1/3)", -mlogL[steps] / cbrt((double)steps));
        lm_measure(ev, "fitted slope of log(-log L) vs log t", slope);
        lm_measure(ev, "slope standard error", se);
        lm_measure(ev, "kappa_emp (min ||grad_u L|| / L)", kappa);
        lm_measure(ev, "worst descent ratio (needed/actual)", worst_desc);
        lm_measure(ev, "worst -log L / (3 eta B^2 t^(1/3) + log n) (sanity, <= 1)", worst_sanity);
        lm_measure(ev, "steps", steps);
        if (contraction) lm_measure(ev, "worst contraction ratio (needed/actual)", worst_contr);
        lm_obs_le_d(ev, -1, exp(lm_par(ev, "rate") - lm_par(ev, "slope_tol")), exp(slope + 2.0 * se), 0.0,
                    "(i) rate - slope_tol <= fitted slope %.4g + 2 se (se %.2g)", slope, se);
    }
    free(mlogL);
    lm_num_clears(&logL, &logL1, &a, &b, &tmp, (lm_num *)NULL);
    lm_mat_free(gW);
    lm_mat_free(gu);
    lm_ib_fwd_free(F);
    lm_ib_fwd_free(F2);
    lm_ib_state_free(S);
    lm_mat_free(W0);
    lm_mat_free(u0);
    lm_ibdata_free(D);
    return rc;
}
