/* ibjoint.c -- the joint-training run R4 (update (13) on DM data from W_0 = 0,
 * u_0 = 0, exponential loss) shared by implicit/theorem2 and implicit/theorem8
 * (loss: (i) fitted slope of log(-log L_t) by the rate rule of lm_stats.h,
 * (ii) per-step descent, (iii) the explicit bound, (iv) the one-step
 * contraction) and by implicit/theorem3 and
 * implicit/theorem9 (implicit bias: proxies of ||W_t|| = Theta(log t) and
 * 1 - cos(W_t, W_mm) = O(1/log t), and Lemma 2's inequality (60) with the
 * time-varying scores).  Everything runs on the exact low-dimensional engine
 * (lm_ibj.h) in ev->ctx, so the runner can replay a break wholly in MPFR.
 * The claim files state what is compared; the parameters are theirs. */
#include "lm_ibjoint.h"
#include "lm_attn.h"
#include "lm_ibgen.h"
#include "lm_ibj.h"
#include "lm_stats.h"
#include "lm_svm.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------- the run ---------- */

typedef struct {
    lm_attn_data *D;
    lm_ibj *J;
    lm_svm_sol sol;  /* W-SVM of the designated optimal tokens (when asked for) */
    int svm;         /* lm_svm_w was called: sol must be cleared */
    double nmm;      /* ||W_mm|| */
    lm_attn_opt_par p; /* joint13: eta, alpha, exponential loss */
    int steps;       /* planned iterations */
    int last;        /* last iterate computed: steps, or ev->tmax + 1 in a replay */
} jrun;

static void jrun_close(jrun *r)
{
    lm_ibj_free(r->J);
    if (r->svm) lm_svm_sol_clear(&r->sol);
    lm_attn_data_free(r->D);
    memset(r, 0, sizeof *r);
}

/* DM data (n, d, zeta; zeta <= 0: the generator's 1.5), optionally the
 * W-SVM, and the engine at W_0 = 0, u_0 = 0.  Returns 0; 1 when the
 * hypotheses are not met (recorded); -1 on an error (recorded). */
static int jrun_open(jrun *r, lm_eval *ev, int n, int d, double zeta, double eta, double alpha,
                     int steps, int want_svm)
{
    memset(r, 0, sizeof *r);
    if (!lm_assume(ev, n >= 1 && d >= 2 && steps >= 20 && eta > 0.0,
                   "need n >= 1, d >= 2, steps >= 20, eta > 0"))
        return 1;
    lm_ibgen_dm_opts o;
    lm_ibgen_dm_defaults(&o);
    o.n = n;
    o.d = d;
    if (zeta > 0.0) o.zeta = zeta;
    r->D = lm_ibgen_dm(&o, lm_eval_rng(ev), ev->ctx);
    if (want_svm) {
        r->svm = 1;
        int s = lm_svm_w_claim(ev, &r->sol, r->D);
        if (s) return s < 0 ? -1 : 1;
        r->nmm = sqrt(lm_num_get_d(&r->sol.norm2));
    }
    r->J = lm_ibj_new(r->D, NULL, 1, LM_ATTN_EXP);
    if (!r->J) return lm_fail(ev, "non-finite forward pass at t=0");
    lm_attn_opt_par_default(&r->p);
    r->p.loss = LM_ATTN_EXP;
    r->p.eta = eta;
    r->p.alpha = alpha;
    r->steps = steps;
    r->last = steps;
    if (ev->tmax >= 0 && ev->tmax + 1 < steps) r->last = ev->tmax + 1;
    return 0;
}

static int jrun_step(jrun *r, lm_eval *ev)
{
    int s = lm_ibj_step(r->J, "joint13", &r->p);
    if (s) return lm_fail(ev, "joint step (13) %s at t=%d", s == 1 ? "not finite" : "refused", r->J->t);
    return 0;
}

/* max ||x_it||^2 from the token Gram diagonal */
static double max_token_norm2(const lm_ibj *J)
{
    double b = 0.0;
    for (int a = 0; a < J->N; a++) b = fmax(b, lm_mat_get_d(J->R->K, a, a));
    return b;
}

/* the upper end of the range of the claim's `steps` (its run-length bound), 0 when unbounded */
static int steps_max(const lm_eval *ev)
{
    for (const lm_param_def *q = ev->claim->params; q->name; q++) {
        lm_range rg;
        if (!strcmp(q->name, "steps") && !lm_param_range(&rg, q) && isfinite(rg.hi)) return (int)rg.hi;
    }
    return 0;
}

/* ---------- Theorem 2 / Theorem 8: the loss ---------- */

int lm_ibjoint_loss_check(lm_eval *ev, int contraction)
{
    const lm_ctx *c = ev->ctx;
    jrun r;
    int rc = jrun_open(&r, ev, lm_par_i(ev, "n"), lm_par_i(ev, "d"), lm_par(ev, "zeta"),
                       lm_par(ev, "eta"), 2.0 / 3.0, lm_par_i(ev, "steps"), 0);
    if (rc) {
        jrun_close(&r);
        return rc < 0 ? -1 : 0;
    }
    lm_ibj *J = r.J;
    const int n = J->n, T = J->T, steps = r.steps, last = r.last;
    const double eta = r.p.eta, alpha = r.p.alpha;
    const double c2 = 0.5 * lm_par(ev, "c2_scale"), dsc = 0.5 * lm_par(ev, "descent_scale");
    const double csc = contraction ? 0.5 * lm_par(ev, "c_scale") : 0.0;
    const double B2 = max_token_norm2(J);
    lm_mat *gC = lm_mat_new(n, T, c), *gU = lm_mat_new(n, T, c);
    lm_num logL, ls, a, b, tmp, gw2, gu2;
    lm_num_inits(c, &logL, &ls, &a, &b, &tmp, &gw2, &gu2, (lm_num *)NULL);
    double *mlogL = lm_xmalloc((size_t)(steps + 1) * sizeof *mlogL);
    double kappa = INFINITY, worst_sanity = 0.0, worst_desc = 0.0, worst_contr = 0.0;
    const int stride = steps / 200 > 0 ? steps / 200 : 1;
    lm_series_axes(ev, "iteration t", "training loss (log scale)", 1);
    for (int t = 0; t < last && !rc; t++) {
        lm_num_set(&logL, &J->F->logL);
        mlogL[t] = lm_num_get_d(&logL);
        if (t >= 1) {
            /* (iii): log L_t <= -c2 eta kappa_emp^2 (t^{1/3} - 1), kappa_emp over s < t */
            const double lb = -c2 * eta * kappa * kappa * (cbrt((double)t) - 1.0);
            lm_num_set_d(&b, lb);
            lm_obs_le_log(ev, t, &logL, &b, 0.0, "(iii) log L_t <= -c2 eta kappa_emp^2 (t^(1/3)-1) at t=%d", t);
            if (t % stride == 0 && !ev->searching) {
                lm_series(ev, "loss L_t", t, exp(mlogL[t]));
                lm_series(ev, "bound exp(-c2 eta kappa_emp^2 (t^(1/3)-1))", t, exp(lb));
            }
            worst_sanity = fmax(worst_sanity, -mlogL[t] / (3.0 * eta * B2 * cbrt((double)t) + log((double)n)));
        }
        /* both gradients with a common log-scale ls: ||grad||^2 / L^2 = e^{2(ls - log L)} (|gC|^2 + |gU|^2) */
        lm_ibj_grads(gC, gU, &ls, J, J->F);
        if (!lm_num_isfinite(&ls)) {
            rc = lm_fail(ev, "gradient vanishes or is not finite at t=%d", t);
            break;
        }
        lm_ibj_inner_W(&gw2, J, NULL, gC, NULL, gC);
        lm_ibj_inner_u(&gu2, J, gU, gU);
        lm_num_sub(&tmp, &ls, &logL);
        lm_num_exp(&tmp, &tmp); /* e^{ls - log L} */
        lm_num_sqrt(&a, &gu2);
        lm_num_mul(&a, &a, &tmp); /* ||grad_u L|| / L */
        const double kap = lm_num_get_d(&a);
        if (!isfinite(kap)) {
            rc = lm_fail(ev, "non-finite ||grad_u L|| / L at t=%d", t);
            break;
        }
        kappa = fmin(kappa, kap);
        /* (ii) a = dsc eta / (t+1)^alpha * ||grad L||^2 / L^2 */
        lm_num_add(&a, &gw2, &gu2);
        lm_num_mul(&a, &a, &tmp);
        lm_num_mul(&a, &a, &tmp);
        lm_num_mul_d(&a, &a, dsc * eta / pow((double)(t + 1), alpha));
        if ((rc = jrun_step(&r, ev))) break;
        if (contraction) {
            /* (iv) c eta kappa_emp^2 / (t+1)^{2/3} <= 1 - L_{t+1}/L_t = -expm1(log L_{t+1} - log L_t) */
            lm_num_sub(&b, &J->F->logL, &logL);
            lm_num_expm1(&b, &b);
            lm_num_neg(&b, &b);
            lm_num_set_d(&tmp, csc * eta * kappa * kappa / pow((double)(t + 1), alpha));
            worst_contr = fmax(worst_contr, lm_num_get_d(&tmp) / lm_num_get_d(&b));
            lm_obs_le(ev, t, &tmp, &b, 0.0, "(iv) one-step contraction at t=%d", t);
        }
        lm_num_sub(&b, &logL, &J->F->logL); /* log L_t - log L_{t+1} */
        worst_desc = fmax(worst_desc, lm_num_get_d(&a) / lm_num_get_d(&b));
        lm_obs_le(ev, t, &a, &b, 0.0, "(ii) per-step descent at t=%d", t);
    }
    if (!rc && last == steps) {
        /* the proxy (i) needs the whole run: it is skipped in a replay truncated at a timed break.
         * The rate rule of lm_stats.h on log(-log L_t) against log t, window [T/8, T]; a fit that
         * moves when the horizon doubles runs the same trajectory on to 2T (within the range of
         * `steps`; per-step checks stay on [0, steps]), else the instance is not checkable. */
        mlogL[steps] = lm_num_get_d(&J->F->logL);
        if (!ev->searching) {
            lm_num nu;
            lm_num_init(&nu, c);
            lm_ibj_norm_u(&nu, J);
            lm_measure(ev, "final -log L", -mlogL[steps]);
            lm_measure(ev, "-log L_T / T^(1/3)", -mlogL[steps] / cbrt((double)steps));
            lm_measure(ev, "kappa_emp (min ||grad_u L|| / L)", kappa);
            lm_measure(ev, "worst descent ratio (needed/actual)", worst_desc);
            lm_measure(ev, "worst -log L / (3 eta B^2 t^(1/3) + log n) (sanity, <= 1)", worst_sanity);
            lm_measure(ev, "||u_T||", lm_num_get_d(&nu));
            lm_measure(ev, "steps", steps);
            if (contraction) lm_measure(ev, "worst contraction ratio (needed/actual)", worst_contr);
            lm_num_clear(&nu);
        }
        const double rate = lm_par(ev, "rate"), tol = lm_par(ev, "slope_tol");
        const int smax = steps_max(ev);
        lm_rate_fit fit;
        int Tf = steps;
        for (;;) {
            int m = 0;
            double *x = lm_xmalloc((size_t)(Tf + 1) * sizeof *x), *y = lm_xmalloc((size_t)(Tf + 1) * sizeof *y);
            for (int t = 1; t <= Tf; t++) {
                if (!(mlogL[t] < 0)) continue;
                x[m] = t;
                y[m++] = log(-mlogL[t]);
            }
            lm_rate_fit_seq(&fit, x, y, m, rate, +1, tol, 0.95, tol);
            free(x);
            free(y);
            if (fit.decision != LM_RATE_TOO_SHORT || 2 * Tf > smax || ev->searching) break;
            mlogL = lm_xrealloc(mlogL, (size_t)(2 * Tf + 1) * sizeof *mlogL);
            for (int t = Tf; t < 2 * Tf && !rc; t++) {
                rc = jrun_step(&r, ev);
                mlogL[t + 1] = lm_num_get_d(&J->F->logL);
            }
            if (rc) break;
            Tf *= 2;
        }
        if (!rc && !ev->searching) lm_measure(ev, "(i) horizon T of the fit", Tf);
        if (!rc) lm_rate_judge(ev, &fit, "(i) log(-log L_t) vs log t (claim: slope >= rate)");
    }
    free(mlogL);
    lm_num_clears(&logL, &ls, &a, &b, &tmp, &gw2, &gu2, (lm_num *)NULL);
    lm_mat_free(gC);
    lm_mat_free(gU);
    jrun_close(&r);
    return rc;
}

/* ---------- Theorem 3 / Theorem 9: the implicit bias ---------- */

/* iterates where ||W_t|| and 1 - cos(W_t, W_mm) are recorded: every t <= 256,
 * then 256 per doubling, plus t0, T/2 and T */
static int on_grid(int t, int t0, int steps)
{
    if (t <= 256 || t == t0 || t == steps || t == steps / 2) return 1;
    int sp = 1;
    while (sp * 512 <= t) sp *= 2;
    return t % sp == 0;
}

/* Lemma 2's (60) at iterate t of the run: returns 1 when observed, 0 when
 * outside the lemma's region, -1 on an error (recorded). */
typedef struct {
    int kappa_l, flip;
    double Cw, Cp, Cr, log_slow;
    long checked, out_region, out_opt, out_sopt;
    int first_t;
    double max_eps, max_epsR, max_ratio, last_eps, last_epsR, last_R;
    lm_mat *gC, *Dl;
    lm_num nmm, R, ls, num, den, f, eps;
} eps_state;

static int eps_at(eps_state *s, lm_eval *ev, const jrun *r, int t, int series)
{
    const lm_ibj *J = r->J;
    const lm_attn_fwd *F = J->F;
    const lm_attn_data *D = r->D;
    const int n = J->n, T = J->T;
    lm_ibj_norm_W(&s->R, J);
    const double Rd = lm_num_get_d(&s->R);
    if (!(Rd > 0.0)) {
        s->out_region++;
        return 0;
    }
    /* the time-varying scores: the designated tokens must be the optimal ones */
    double gmin = INFINITY, gmax = -INFINITY, lmin = INFINITY, lmax = -INFINITY, mls = 0.0;
    for (int i = 0; i < n; i++) {
        const int o = D->opt[i];
        if (F->opt[i] != o) {
            s->out_opt++;
            return 0;
        }
        const double go = lm_mat_get_d(F->gam, i, o);
        double hi = -INFINITY, lo = INFINITY;
        for (int k = 0; k < T; k++)
            if (k != o) {
                hi = fmax(hi, lm_mat_get_d(F->gam, i, k));
                lo = fmin(lo, lm_mat_get_d(F->gam, i, k));
            }
        gmin = fmin(gmin, go - hi);
        gmax = fmax(gmax, go - lo);
        const double ll = lm_mat_get_d(F->logl, i, 0);
        lmin = fmin(lmin, ll);
        lmax = fmax(lmax, ll);
        mls = fmin(mls, lm_mat_get_d(F->logs, i, o));
    }
    if (!(gmin > 0.0)) {
        s->out_opt++;
        return 0;
    }
    if (mls < s->log_slow) {
        s->out_sopt++;
        return 0;
    }
    /* kappa_ell by the reading chosen: loss ratio at t, the constant C_r, or e^{Gamma_max(t)} */
    const double logkl = s->kappa_l == 0 ? lmax - lmin : (s->kappa_l == 1 ? log(s->Cr) : gmax);
    const double K = s->Cp * n * T * exp(logkl) * (gmax / gmin);
    const double epsR = isfinite(K) ? lm_ibgen_eps_of_R(Rd, s->Cw, K) : 1.0;
    if (!(epsR < 1.0)) {
        s->out_region++;
        return 0;
    }
    /* g = e^ls sum gC x x^T (W-gradient at (W_t, u_t)); Dl = W_t/||W_t|| - W_mm/||W_mm|| as coefficients */
    lm_attn_grad_coef(s->gC, &s->ls, F);
    if (!lm_num_isfinite(&s->ls)) return lm_fail(ev, "the W-gradient vanishes or is not finite at t=%d", t);
    lm_num_set_d(&s->f, 1.0);
    lm_num_div(&s->f, &s->f, &s->R);
    lm_mat_scale(s->Dl, J->C, &s->f);
    lm_num_set_d(&s->f, -1.0);
    lm_num_div(&s->f, &s->f, &s->nmm);
    lm_mat_axpy(s->Dl, &s->f, r->sol.M);
    /* num = <-g, bar W_t - bar W_mm>, den = <-g, bar W_mm> (common scale e^ls dropped) */
    lm_ibj_inner_W(&s->num, J, NULL, s->gC, NULL, s->Dl);
    lm_num_neg(&s->num, &s->num);
    lm_ibj_inner_W(&s->den, J, NULL, s->gC, NULL, r->sol.M);
    lm_num_neg(&s->den, &s->den);
    lm_num_div(&s->den, &s->den, &s->nmm);
    /* (6)/(60) as <-g, bar W_t - bar W_mm> <= eps <-g, bar W_mm>: eps* <= eps(R) when the right side is positive */
    lm_num_set_d(&s->eps, epsR);
    lm_num_mul(&s->f, &s->eps, &s->den);
    if (s->flip)
        lm_obs_le(ev, t, &s->f, &s->num, 0.0, "flipped: eps(||W_t||) <-g,bar W_mm> <= <-g,bar W_t - bar W_mm> at t=%d", t);
    else
        lm_obs_le(ev, t, &s->num, &s->f, 0.0, "(60) <-g,bar W_t - bar W_mm> <= eps(||W_t||)=%.3g <-g,bar W_mm> at t=%d",
                  epsR, t);
    double es = NAN;
    if (lm_num_sgn(&s->den) > 0) {
        lm_num_div(&s->f, &s->num, &s->den);
        es = lm_num_get_d(&s->f);
    }
    if (s->checked++ == 0) s->first_t = t;
    if (isfinite(es)) {
        s->max_eps = fmax(s->max_eps, es);
        s->max_epsR = fmax(s->max_epsR, es * Rd);
        s->max_ratio = fmax(s->max_ratio, es / epsR);
    }
    s->last_eps = es;
    s->last_epsR = epsR;
    s->last_R = Rd;
    if (series && isfinite(es)) {
        lm_series(ev, "eps*_t", t, es);
        lm_series(ev, "eps(||W_t||)", t, epsR);
        lm_series(ev, "eps*_t ||W_t||", t, es * Rd);
    }
    return 1;
}

int lm_ibjoint_ib_check(lm_eval *ev, int what)
{
    const lm_ctx *c = ev->ctx;
    const int steps = lm_par_i(ev, "steps"), t0 = lm_par_i(ev, "t_fit0");
    const int proxies = (what & LM_IBJOINT_PROXIES) != 0, epsck = (what & LM_IBJOINT_EPS) != 0;
    if (!lm_assume(ev, t0 >= 2 && steps >= 4 * t0, "need t_fit0 >= 2 and steps >= 4 t_fit0 (t_fit0 %d, steps %d)",
                   t0, steps))
        return 0;
    jrun r;
    int rc = jrun_open(&r, ev, lm_par_i(ev, "n"), lm_par_i(ev, "d"), 0.0, 0.5 * lm_par(ev, "eta_scale"),
                       lm_par(ev, "alpha"), steps, 1);
    if (rc) {
        jrun_close(&r);
        return rc < 0 ? -1 : 0;
    }
    lm_ibj *J = r.J;
    const int last = r.last;
    double *nw = lm_xmalloc((size_t)(steps + 1) * sizeof *nw), *e = lm_xmalloc((size_t)(steps + 1) * sizeof *e);
    for (int t = 0; t <= steps; t++) nw[t] = e[t] = NAN;
    lm_num v;
    lm_num_init(&v, c);
    eps_state s;
    memset(&s, 0, sizeof s);
    if (epsck) {
        s.kappa_l = lm_par_i(ev, "kappa_l");
        s.flip = lm_par_i(ev, "flip");
        s.Cw = lm_par(ev, "C_scale") * r.nmm;
        s.Cp = lm_par(ev, "Cp_scale");
        s.Cr = lm_par(ev, "Cr");
        s.log_slow = log(lm_par(ev, "s_lower"));
        s.first_t = -1;
        s.max_eps = s.max_epsR = s.max_ratio = -INFINITY;
        s.last_eps = s.last_epsR = s.last_R = NAN;
        s.gC = lm_mat_new(J->n, J->T, c);
        s.Dl = lm_mat_new(J->n, J->T, c);
        lm_num_inits(c, &s.nmm, &s.R, &s.ls, &s.num, &s.den, &s.f, &s.eps, (lm_num *)NULL);
        lm_num_sqrt(&s.nmm, &r.sol.norm2);
        lm_series_axes(ev, "iteration t", "eps*_t, eps(||W_t||), eps*_t ||W_t||", 0);
    } else {
        lm_series_axes(ev, "iteration t", "1 - cos(W_t, W_mm) and ||W_t|| (log scale)", 1);
    }
    int next_series = 1;
    for (int t = 0; t <= last; t++) {
        const int grid = t > 0 && on_grid(t, t0, steps);
        int ser = 0;
        if (grid && (t >= next_series || t == last)) {
            ser = !ev->searching;
            next_series = (int)ceil(t * 1.05);
        }
        if (grid) {
            lm_ibj_norm_W(&v, J);
            nw[t] = lm_num_get_d(&v);
            e[t] = 1.0; /* W_1 = 0 since u_0 = 0: the direction is undefined until W moves */
            if (nw[t] > 0.0) {
                if (lm_ibj_align_W(&v, J, r.sol.M)) {
                    rc = lm_fail(ev, "alignment undefined at t=%d", t);
                    break;
                }
                e[t] = lm_num_get_d(&v);
            }
            if (!isfinite(e[t]) || !isfinite(nw[t])) {
                rc = lm_fail(ev, "non-finite 1 - cos(W_t, W_mm) or ||W_t|| at t=%d", t);
                break;
            }
            if (ser && !epsck && nw[t] > 0.0) {
                lm_series(ev, "1 - cos(W_t, W_mm)", t, e[t]);
                lm_series(ev, "||W_t||", t, nw[t]);
            }
        }
        if (epsck && t > 0 && eps_at(&s, ev, &r, t, ser) < 0) {
            rc = -1;
            break;
        }
        if (t < last && (rc = jrun_step(&r, ev))) break;
    }
    if (!rc && proxies && last == steps) {
        /* the proxies need the whole run: they are skipped in a replay truncated at a timed break */
        /* (ii) max of e_t log t on each later dyadic block [s0, 2 s0) (the last one cut at T)
         * against its max on the first block [t0, 2 t0) (read as C_3) */
        const double dec = lm_par(ev, "e_decay");
        double first = -1.0, worst_block = 0.0;
        int kb = 0;
        for (int s0 = t0; s0 <= steps; s0 *= 2, kb++) {
            const int s1 = 2 * s0 - 1 < steps ? 2 * s0 - 1 : steps;
            double mx = -1.0;
            for (int t = s0; t <= s1; t++)
                if (isfinite(e[t])) mx = fmax(mx, e[t] * log((double)t));
            if (mx < 0.0) continue;
            if (first < 0.0) {
                first = mx;
                continue;
            }
            worst_block = fmax(worst_block, mx / first);
            lm_obs_le_d(ev, -1, mx, dec * first, 0.0,
                        "(ii) max e_t log t on [%d,%d] <= e_decay * max on [%d,%d]", s0, s1, t0, 2 * t0 - 1);
        }
        /* (iv) ||W_t|| = O(log t): increment over the last doubling against the mean per doubling */
        const int th = steps / 2;
        const double inc_last = nw[steps] - nw[th];
        const double inc_mean = (nw[steps] - nw[t0]) / log2((double)steps / t0);
        if (!ev->searching) {
            lm_ibj_norm_u(&v, J);
            lm_measure(ev, "||W_T|| / log T", nw[steps] / log((double)steps));
            lm_measure(ev, "||W_T||", nw[steps]);
            lm_measure(ev, "||W_mm||", r.nmm);
            lm_measure(ev, "e_t0", e[t0]);
            lm_measure(ev, "e_T", e[steps]);
            lm_measure(ev, "e_T log T", e[steps] * log((double)steps));
            lm_measure(ev, "C_3 read off the first block (max e_t log t)", first);
            lm_measure(ev, "worst later-block / first-block max of e_t log t", worst_block);
            lm_measure(ev, "||W|| increment over [T/2,T] / mean per doubling", inc_last / inc_mean);
            lm_measure(ev, "final log L", lm_num_get_d(&J->F->logL));
            lm_measure(ev, "||u_T||", lm_num_get_d(&v));
            lm_measure(ev, "steps", steps);
        }
        if (first < 0.0) {
            rc = lm_fail(ev, "no usable iterate in the window [%d,%d]", t0, steps);
        } else {
            lm_obs_le_d(ev, -1, e[steps], lm_par(ev, "e_frac") * e[t0], 0.0, "(iii) e_%d <= e_frac e_%d", steps, t0);
            lm_obs_le_d(ev, -1, inc_last, lm_par(ev, "inc_growth") * inc_mean, 0.0,
                        "(iv) ||W_T|| - ||W_T/2|| <= inc_growth (||W_T|| - ||W_t0||)/log2(T/t0)");
        }
        /* (i) the rate rule of lm_stats.h on ||W_t|| against log t (grid points), window [T/8, T],
         * claim slope >= slope_min (tolerance 0.01, stability 0.1: the claim has no tolerance of
         * its own); a fit that moves when the horizon doubles runs the same trajectory on to 2T
         * (within the range of `steps`; the other checks stay on [0, steps]), else the instance
         * is not checkable */
        const int smax = steps_max(ev);
        lm_rate_fit fit;
        int Tf = steps;
        while (!rc) {
            int m = 0;
            double *x = lm_xmalloc((size_t)(Tf + 1) * sizeof *x), *y = lm_xmalloc((size_t)(Tf + 1) * sizeof *y);
            for (int t = 1; t <= Tf; t++)
                if (isfinite(nw[t])) {
                    x[m] = t;
                    y[m++] = nw[t];
                }
            lm_rate_fit_seq(&fit, x, y, m, lm_par(ev, "slope_min"), +1, 0.01, 0.95, 0.1);
            free(x);
            free(y);
            if (fit.decision != LM_RATE_TOO_SHORT || 2 * Tf > smax || ev->searching) break;
            nw = lm_xrealloc(nw, (size_t)(2 * Tf + 1) * sizeof *nw);
            for (int t = Tf + 1; t <= 2 * Tf; t++) nw[t] = NAN;
            for (int t = Tf; t < 2 * Tf && !rc; t++) {
                if ((rc = jrun_step(&r, ev))) break;
                if (on_grid(t + 1, t0, 2 * Tf)) {
                    lm_ibj_norm_W(&v, J);
                    nw[t + 1] = lm_num_get_d(&v);
                }
            }
            Tf *= 2;
        }
        if (!rc) {
            if (!ev->searching) lm_measure(ev, "(i) horizon T of the fit", Tf);
            lm_rate_judge(ev, &fit, "(i) ||W_t|| vs log t (claim: slope >= slope_min)");
        }
    }
    if (!rc && epsck) {
        if (!ev->searching) {
            lm_measure(ev, "(60) iterates checked", (double)s.checked);
            lm_measure(ev, "(60) first checked iterate", s.first_t);
            lm_measure(ev, "(60) iterates below R_eps (eps(||W_t||) >= 1)", (double)s.out_region);
            lm_measure(ev, "(60) iterates with a designated token not optimal", (double)s.out_opt);
            lm_measure(ev, "(60) iterates with min s_opt < s_lower", (double)s.out_sopt);
            if (s.checked) {
                lm_measure(ev, "max eps*_t", s.max_eps);
                lm_measure(ev, "max eps*_t ||W_t||", s.max_epsR);
                lm_measure(ev, "max eps*_t / eps(||W_t||)", s.max_ratio);
                lm_measure(ev, "final eps*_T", s.last_eps);
                lm_measure(ev, "final eps(||W_T||)", s.last_epsR);
                lm_measure(ev, "final eps*_T ||W_T||", s.last_eps * s.last_R);
            }
            lm_measure(ev, "||W_mm||", r.nmm);
        }
        lm_assume(ev, s.checked > 0,
                  "(60) never applies: ||W_t|| < R_eps for all t <= %d (||W_T|| = %.3g; %ld iterates below R_1)",
                  last, isfinite(nw[last]) ? nw[last] : (double)NAN, s.out_region);
    }
    if (epsck) {
        lm_num_clears(&s.nmm, &s.R, &s.ls, &s.num, &s.den, &s.f, &s.eps, (lm_num *)NULL);
        lm_mat_free(s.gC);
        lm_mat_free(s.Dl);
    }
    lm_num_clear(&v);
    free(nw);
    free(e);
    jrun_close(&r);
    return rc;
}
