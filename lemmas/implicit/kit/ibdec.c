/* ibdec.c -- the decoder implicit-bias run shared by implicit/theorem4 and
 * implicit/theorem10 (see lm_ibdec.h): run R4 on the low-dimensional engine
 * in ev->ctx and record (a), (b), (c) and, for Theorem 10, the softmax lower
 * bound (s).  The claim files state what is compared and why. */
#include "lm_ibdec.h"
#include "lm_ibgen.h"
#include "lm_stats.h"
#include "lm_svm.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const lm_ibdec_configs[] = {"R4 W_0=0", "R4 small random W_0", NULL};

void lm_ibdec_setup_read(lm_ibdec_setup *s, const lm_eval *ev)
{
    *s = (lm_ibdec_setup){0};
    s->n = lm_par_i(ev, "n");
    s->d = lm_par_i(ev, "d");
    s->zeta = lm_par(ev, "zeta");
    s->eta = lm_par(ev, "eta");
    s->alpha = lm_par(ev, "alpha");
    s->steps = lm_par_i(ev, "steps");
    if (ev->quick) s->steps /= 4;
    s->random_w0 = ev->config == 1;
    s->c4 = 0.25 * lm_par(ev, "c4_scale");
    s->C4 = lm_par(ev, "C4");
    s->t0 = lm_par_i(ev, "t0");
    s->umm_scale = lm_par(ev, "umm_scale");
    s->cu_slope_min = lm_par(ev, "cu_slope_min");
}

/* the u-SVM for the designated optimal tokens: an infeasible problem is an
 * unmet hypothesis (1), any other solver failure an error (-1) */
static int usvm_claim(lm_eval *ev, lm_svm_sol *s, const lm_attn_data *D)
{
    int src = lm_svm_u(s, D, NULL);
    if (src == LM_SVM_INFEASIBLE || src == LM_SVM_BADINPUT)
        return !lm_assume(ev, 0, "u-SVM infeasible or optimal tokens not designated (code %d)", src);
    if (src) return lm_fail(ev, "u-SVM solver failed (code %d)", src);
    return 0;
}

/* r = log(1 - s_{i,o}) = LSE_{tau != o} log s_{i tau} from the log-softmax
 * (a single term, exact, for T = 2); w is work space */
static void log_one_minus_s(lm_num *r, const lm_mat *logs, int i, int o, lm_num *w, const lm_ctx *c)
{
    int T = logs->c, first = 1;
    for (int t = 0; t < T; t++) {
        if (t == o) continue;
        lm_mat_get(w, logs, i, t);
        if (first || lm_num_cmp(w, r) > 0) lm_num_set(r, w);
        first = 0;
    }
    if (T == 2 || !lm_num_isfinite(r)) return;
    lm_num acc, m;
    lm_num_inits(c, &acc, &m, (lm_num *)NULL);
    lm_num_set(&m, r);
    lm_num_set_d(&acc, 0.0);
    for (int t = 0; t < T; t++) {
        if (t == o) continue;
        lm_mat_get(w, logs, i, t);
        lm_num_sub(w, w, &m);
        lm_num_exp(w, w);
        lm_num_add(&acc, &acc, w);
    }
    lm_num_log(&acc, &acc);
    lm_num_add(r, &m, &acc);
    lm_num_clears(&acc, &m, (lm_num *)NULL);
}

int lm_ibdec_rho(lm_num *rho, const lm_ibj *J, const lm_num *umm)
{
    lm_num nu, v;
    lm_num_inits(&J->ctx, &nu, &v, (lm_num *)NULL);
    lm_ibj_norm_u(&nu, J);
    int rc = lm_num_sgn(&nu) <= 0;
    if (!rc) {
        for (int i = 0; i < J->n; i++) {
            lm_mat_get(&v, J->F->gam, i, J->D->opt[i]);
            if (i == 0 || lm_num_cmp(&v, rho) < 0) lm_num_set(rho, &v);
        }
        lm_num_mul(rho, rho, umm);
        lm_num_div(rho, rho, &nu);
    }
    lm_num_clears(&nu, &v, (lm_num *)NULL);
    return rc;
}

void lm_ibdec_log_one_minus_sopt(lm_num *r, const lm_ibj *J)
{
    lm_num v, w;
    lm_num_inits(&J->ctx, &v, &w, (lm_num *)NULL);
    for (int i = 0; i < J->n; i++) {
        log_one_minus_s(&v, J->F->logs, i, J->D->opt[i], &w, &J->ctx);
        if (i == 0 || lm_num_cmp(&v, r) > 0) lm_num_set(r, &v);
    }
    lm_num_clears(&v, &w, (lm_num *)NULL);
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

int lm_ibdec_run(lm_eval *ev, const lm_ibdec_setup *s)
{
    const lm_ctx *c = ev->ctx;
    const int Tfull = s->steps;
    if (!lm_assume(ev, s->n >= 1 && s->d >= 2 && Tfull >= 20 && s->t0 >= 1,
                   "need n >= 1, d >= 2, steps >= 20, t0 >= 1"))
        return 0;
    int Trun = Tfull;
    if (ev->tmax >= 0 && ev->tmax + 1 < Trun) Trun = ev->tmax + 1;

    lm_rng *g = lm_eval_rng(ev);
    lm_ibgen_dm_opts o;
    lm_ibgen_dm_defaults(&o);
    o.n = s->n;
    o.d = s->d;
    o.zeta = s->zeta;
    lm_attn_data *D = lm_ibgen_dm(&o, g, c);
    lm_mat *W0 = s->random_w0 ? lm_ibgen_w0(s->d, -1.0, g, c) : NULL;
    lm_svm_sol su = {0}, sw = {0};
    lm_ibj *J = NULL;
    lm_ibgen_stats st;
    lm_ibgen_stats_init(&st, c);
    lm_num rho, nu, umm, wmm, one, lhs, third, v, eu, eprev, eW, nW, thr, rhs, lom, tmp;
    lm_num_inits(c, &rho, &nu, &umm, &wmm, &one, &lhs, &third, &v, &eu, &eprev, &eW, &nW, &thr,
                 &rhs, &lom, &tmp, (lm_num *)NULL);
    /* the log grid of t (multiplicative step 1.02) for e^u, the proxies and the series */
    int gcap = 16;
    for (long t = 1; t <= Tfull; t = t + 1 > (long)ceil(1.02 * t) ? t + 1 : (long)ceil(1.02 * t)) gcap++;
    double *gt = lm_xmalloc(sizeof(double) * (size_t)gcap), *ge = lm_xmalloc(sizeof(double) * (size_t)gcap);
    double *grho = lm_xmalloc(sizeof(double) * (size_t)gcap);
    int ng = 0, rc = 0;
    long nobs = 0;

    int src = usvm_claim(ev, &su, D);
    if (src) {
        rc = src < 0 ? -1 : 0;
        goto out;
    }
    if (s->softmax) {
        src = lm_svm_w_claim(ev, &sw, D);
        if (src) {
            rc = src < 0 ? -1 : 0;
            goto out;
        }
        if (lm_ibgen_stats_compute(&st, D, 1)) {
            rc = lm_fail(ev, "token statistics (D) not finite");
            goto out;
        }
        lm_num_sqrt(&wmm, &sw.norm2);
        /* thr = thr_scale / (8 D^2 ||W_mm||^2) */
        lm_num_sqr(&thr, &st.Dc);
        lm_num_mul(&thr, &thr, &sw.norm2);
        lm_num_mul_d(&thr, &thr, 8.0);
        lm_num_set_d(&tmp, s->thr_scale);
        lm_num_div(&thr, &tmp, &thr);
    }
    lm_num_sqrt(&umm, &su.norm2);
    lm_num_mul_d(&umm, &umm, s->umm_scale);
    lm_num_set_d(&one, 1.0);
    lm_num_set_si(&third, 1);
    lm_num_div_d(&third, &third, 3.0);

    J = lm_ibj_new(D, W0, 1, LM_ATTN_EXP);
    if (!J) {
        rc = lm_fail(ev, "non-finite forward pass at the start");
        goto out;
    }
    lm_attn_opt_par p;
    lm_attn_opt_par_default(&p);
    p.eta = s->eta;
    p.alpha = s->alpha;
    p.loss = LM_ATTN_EXP;

    lm_series_axes(ev, "iteration t", s->softmax ? "1 - rho_t, 1 - cos, 1 - s_opt (log scale)"
                                                 : "1 - rho_t and 1 - cos(u_t, u_mm) (log scale)",
                   1);
    const int mono_from = Tfull / 100 > 1 ? Tfull / 100 : 1, fit_from = Tfull / 10 > 1 ? Tfull / 10 : 1;
    double minrho = INFINITY, bestC4 = 0.0, bestC4one = 0.0, best_c = INFINITY, worst_s = -INFINITY;
    int argmin_rho = -1, optdiff = 0, s_first = -1, s_count = 0, s_exits = 0, have_prev = 0, prev_t = 0;
    long next = 1;
    for (int t = 0; t <= Trun; t++) {
        if (t >= 1) {
            const lm_attn_fwd *F = J->F;
            for (int i = 0; i < D->n; i++) optdiff += F->opt[i] != D->opt[i];
            if (lm_ibdec_rho(&rho, J, &umm)) {
                rc = lm_fail(ev, "u_t = 0 at t=%d: rho_t undefined", t);
                goto out;
            }
            const double rd = lm_num_get_d(&rho);
            if (!isfinite(rd)) {
                rc = lm_fail(ev, "non-finite rho_t at t=%d", t);
                goto out;
            }
            lm_obs_le(ev, t, &rho, &one, 0.0, "(a) rho_t <= 1 at t=%d", t);
            nobs++;
            if (t >= s->t0) {
                /* lhs = c4 - C4 t^{-1/3} */
                lm_num_set_d(&lhs, s->c4);
                if (s->C4 != 0.0) {
                    lm_num_set_si(&v, t);
                    lm_num_log(&v, &v);
                    lm_num_mul(&v, &v, &third);
                    lm_num_neg(&v, &v);
                    lm_num_exp(&v, &v);
                    lm_num_mul_d(&v, &v, s->C4);
                    lm_num_sub(&lhs, &lhs, &v);
                }
                lm_obs_le(ev, t, &lhs, &rho, 0.0, "(b) c4 - C4 t^(-1/3) <= rho_t at t=%d", t);
                nobs++;
                if (rd < minrho) {
                    minrho = rd;
                    argmin_rho = t;
                }
                bestC4 = fmax(bestC4, (s->c4 - rd) * cbrt((double)t));
                if (t >= fit_from) bestC4one = fmax(bestC4one, (1.0 - rd) * cbrt((double)t));
            }
            /* (s) Theorem 10: softmax lower bound in the regime e^W_t <= thr */
            int on_grid = t == next || t == Trun;
            double eWd = NAN, lomd = NAN, rhsd = NAN;
            if (s->softmax) {
                int in = 0;
                if (lm_ibj_align_W(&eW, J, sw.M) == 0) { /* W_t = 0 (t = 1 from W_0 = 0): no direction */
                    in = lm_num_cmp(&eW, &thr) <= 0;
                    eWd = lm_num_get_d(&eW);
                }
                if (in) {
                    if (s_first < 0) s_first = t;
                    s_count++;
                    lm_ibj_norm_W(&nW, J);
                    lm_num_div(&rhs, &nW, &wmm);
                    lm_num_mul_d(&rhs, &rhs, -s->c_soft);
                    lm_ibdec_log_one_minus_sopt(&lom, J);
                    lm_obs_le_log(ev, t, &lom, &rhs, 0.0,
                                  "(s) log(1 - s_opt) <= -c ||W_t||/||W_mm|| at t=%d", t);
                    nobs++;
                    lomd = lm_num_get_d(&lom);
                    rhsd = lm_num_get_d(&rhs);
                    worst_s = fmax(worst_s, lomd - rhsd);
                    const double nwr = lm_num_get_d(&nW) / lm_num_get_d(&wmm);
                    if (nwr > 0) best_c = fmin(best_c, -lomd / nwr);
                } else if (s_first >= 0) {
                    s_exits++;
                }
            }
            if (on_grid) {
                if (ng >= gcap) {
                    rc = lm_fail(ev, "internal: grid overflow at t=%d", t);
                    goto out;
                }
                if (lm_ibj_align_u(&eu, J, su.M)) {
                    rc = lm_fail(ev, "u_t = 0 at t=%d", t);
                    goto out;
                }
                const double ed = lm_num_get_d(&eu);
                if (!isfinite(ed)) {
                    rc = lm_fail(ev, "non-finite 1 - cos(u_t, u_mm) at t=%d", t);
                    goto out;
                }
                gt[ng] = t;
                ge[ng] = ed;
                grho[ng] = rd;
                ng++;
                /* (c) proxy: 1 - cos(u_t, u_mm) non-increasing along checkpoints of [T/100, T]
                 * at least a factor 1.25 apart (and T) */
                if (t >= mono_from && (!have_prev || t >= 1.25 * prev_t || t == Tfull)) {
                    if (have_prev) {
                        lm_obs_le(ev, t, &eu, &eprev, 0.0, "(c) 1-cos(u_t,u_mm) <= its value at t=%d, at t=%d",
                                  prev_t, t);
                        nobs++;
                    }
                    lm_num_set(&eprev, &eu);
                    prev_t = t;
                    have_prev = 1;
                }
                lm_series(ev, "1 - rho_t", t, 1.0 - rd);
                lm_series(ev, "bound (b): 1 - c4 + C4 t^(-1/3)", t,
                          1.0 - s->c4 + s->C4 / cbrt((double)t));
                lm_series(ev, "1 - cos(u_t, u_mm)", t, ed);
                if (s->softmax) {
                    if (isfinite(eWd)) lm_series(ev, "1 - cos(W_t, W_mm)", t, eWd);
                    lm_series(ev, "bound: regime threshold", t, lm_num_get_d(&thr));
                    if (isfinite(lomd)) {
                        lm_series(ev, "max_i 1 - s_opt (in regime)", t, exp(lomd));
                        lm_series(ev, "bound (s): exp(-c ||W_t||/||W_mm||)", t, exp(rhsd));
                    }
                }
                long nx = (long)ceil(1.02 * (double)next);
                next = nx > next + 1 ? nx : next + 1;
            }
        }
        if (t < Trun && lm_ibj_step(J, "joint13", &p)) {
            rc = lm_fail(ev, "non-finite joint step at t=%d", t);
            goto out;
        }
    }
    /* (c) proxy (full runs only): the rate rule of lm_stats.h on log(1 - cos(u_t, u_mm)) against
     * log t (2% grid), window [T/8, T], claim slope <= -cu_slope_min (tolerance 0.01, stability
     * 0.1 in units of the exponent: the claim has no tolerance of its own).  A fit that moves
     * when the horizon doubles runs the same trajectory on to 2T (within the range of `steps`,
     * recording 1 - cos(u_t, u_mm) only: the other checks stay on [0, T]), else the instance
     * is not checkable. */
    lm_rate_fit fit;
    int Tf = Tfull;
    if (Trun == Tfull) {
        const int smax = steps_max(ev);
        const int ng0 = ng;
        for (;;) {
            double *lx = lm_xmalloc(sizeof(double) * (size_t)(ng + 1)), *ly = lm_xmalloc(sizeof(double) * (size_t)(ng + 1));
            int k = 0;
            for (int j = 0; j < ng; j++)
                if (ge[j] > 0) {
                    lx[k] = gt[j];
                    ly[k] = log(ge[j]);
                    k++;
                }
            lm_rate_fit_seq(&fit, lx, ly, k, -s->cu_slope_min, -1, 0.01, 0.95, 0.1);
            free(lx);
            free(ly);
            if (fit.decision != LM_RATE_TOO_SHORT || 2 * (long)Tf > smax || ev->searching) break;
            for (int t = Tf; t < 2 * Tf; t++) {
                if (lm_ibj_step(J, "joint13", &p)) {
                    rc = lm_fail(ev, "non-finite joint step at t=%d", t);
                    goto out;
                }
                if (t + 1 != next && t + 1 != 2 * Tf) continue;
                if (lm_ibj_align_u(&eu, J, su.M)) {
                    rc = lm_fail(ev, "u_t = 0 at t=%d", t + 1);
                    goto out;
                }
                if (ng >= gcap) {
                    gcap = 2 * gcap + 16;
                    gt = lm_xrealloc(gt, sizeof(double) * (size_t)gcap);
                    ge = lm_xrealloc(ge, sizeof(double) * (size_t)gcap);
                    grho = lm_xrealloc(grho, sizeof(double) * (size_t)gcap);
                }
                gt[ng] = t + 1;
                ge[ng] = lm_num_get_d(&eu);
                grho[ng] = NAN;
                ng++;
                if (t + 1 == next) {
                    long nx = (long)ceil(1.02 * (double)next);
                    next = nx > next + 1 ? nx : next + 1;
                }
            }
            Tf *= 2;
        }
        ng = ng0; /* the measures below describe the run [0, T] */
        lm_measure(ev, "(c) horizon T of the fit", Tf);
        lm_rate_judge(ev, &fit, "(c) log(1 - cos(u_t, u_mm)) vs log t (claim: slope <= -cu_slope_min)");
        nobs++;
    }
    lm_num_div_d(&v, &umm, s->umm_scale);
    lm_measure(ev, "||u_mm||", lm_num_get_d(&v));
    lm_measure(ev, "steps run", Trun);
    if (ng > 0) {
        lm_measure(ev, "rho_1", grho[0]);
        lm_measure(ev, "rho_T", grho[ng - 1]);
        lm_measure(ev, "1 - cos(u_T, u_mm)", ge[ng - 1]);
    }
    lm_ibj_norm_u(&nu, J);
    lm_measure(ev, "||u_T||", lm_num_get_d(&nu));
    lm_measure(ev, "min rho_t over t >= t0 (largest c4 with C4 0)", minrho);
    lm_measure(ev, "argmin t of rho_t", argmin_rho);
    lm_measure(ev, "best C4 (smallest making (b) hold)", bestC4);
    lm_measure(ev, "best C4 if c4 were 1, over [T/10,T]", bestC4one);
    lm_measure(ev, "iterate-sequence pairs with argmax score != designated opt", optdiff);
    if (s->softmax) {
        lm_measure(ev, "||W_mm||", lm_num_get_d(&wmm));
        lm_measure(ev, "D", lm_num_get_d(&st.Dc));
        lm_measure(ev, "regime threshold thr_scale/(8 D^2 ||W_mm||^2)", lm_num_get_d(&thr));
        lm_measure(ev, "(s) regime entered (1/0)", s_first >= 0);
        lm_measure(ev, "(s) first iterate in regime", s_first);
        lm_measure(ev, "(s) iterates checked", s_count);
        lm_measure(ev, "(s) iterates out of regime after entry", s_exits);
        if (s_count > 0) {
            lm_measure(ev, "(s) worst log(1 - s_opt) + c ||W_t||/||W_mm||", worst_s);
            lm_measure(ev, "(s) best c (largest making (s) hold)", best_c);
        }
        if (lm_ibj_align_W(&eW, J, sw.M) == 0) lm_measure(ev, "1 - cos(W_T, W_mm)", lm_num_get_d(&eW));
    }
    if (nobs == 0) lm_assume(ev, 0, "nothing could be checked (run too short for t0=%d)", s->t0);
out:
    free(gt);
    free(ge);
    free(grho);
    lm_num_clears(&rho, &nu, &umm, &wmm, &one, &lhs, &third, &v, &eu, &eprev, &eW, &nW, &thr, &rhs,
                  &lom, &tmp, (lm_num *)NULL);
    lm_ibgen_stats_clear(&st);
    lm_ibj_free(J);
    lm_svm_sol_clear(&su);
    lm_svm_sol_clear(&sw);
    lm_mat_free(W0);
    lm_attn_data_free(D);
    return rc;
}
