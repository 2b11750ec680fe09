/* src/models/mdclaim.c -- claim-side helpers shared by lemmas/mirror/ (see lm_mdclaim.h) */
#include "lm_mdclaim.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void lm_md_log_E(lm_num *r, const lm_num *z, const lm_ctx *c)
{
    if (lm_num_sgn(z) <= 0) {
        lm_num_set_d(r, 0.0);
        return;
    }
    lm_num t, s;
    lm_num_inits(c, &t, &s, (lm_num *)NULL);
    if (lm_num_get_d(z) <= 0.5) { /* log1p(sum_{k>=1} z^k/(k+1)!) */
        double stop = log(lm_ctx_eps(c) / 8.0);
        lm_num_mul_d(&t, z, 0.5);
        lm_num_set(&s, &t);
        for (int k = 2; k < 100000; k++) {
            lm_num_mul(&t, &t, z);
            lm_num_div_d(&t, &t, (double)(k + 1));
            lm_num_add(&s, &s, &t);
            if (lm_num_iszero(&t) || lm_num_log_abs_d(&t) - lm_num_log_abs_d(&s) < stop) break;
        }
        lm_num_log1p(r, &s);
    } else { /* z + log(-expm1(-z)) - log z */
        lm_num_neg(&t, z);
        lm_num_expm1(&t, &t);
        lm_num_neg(&t, &t);
        lm_num_log(&t, &t);
        lm_num_log(&s, z);
        lm_num_sub(&t, &t, &s);
        lm_num_add(r, z, &t);
    }
    lm_num_clears(&t, &s, (lm_num *)NULL);
}

lm_ctx lm_md_work_ctx(const lm_eval *ev, int tier)
{
    static const int BITS[3] = {53, 128, 256};
    if (ev->x || ev->searching || tier == 0) return *ev->ctx;
    long cur = ev->ctx->backend == LM_DOUBLE ? 53 : (long)ev->ctx->prec;
    return BITS[tier] > cur ? lm_ctx_mpfr(BITS[tier]) : *ev->ctx;
}

int lm_md_ctx_bits(const lm_ctx *c) { return c->backend == LM_DOUBLE ? 53 : (int)c->prec; }

void lm_md_ident_plan(const lm_eval *ev, int nkind, int xkind, int *kind, int *d, int *tier)
{
    static const int DIMS[3] = {10, 2, 1};
    if (ev->x) {
        *kind = xkind;
        *d = 2;
        *tier = 0;
    } else {
        *kind = ev->index % nkind;
        *tier = (ev->index + ev->index / nkind) % 3;
        *d = DIMS[(ev->index / nkind) % 3];
    }
}

double lm_md_rsign(lm_rng *g) { return lm_rng_uniform(g) < 0.5 ? -1.0 : 1.0; }
double lm_md_logu(lm_rng *g, double lo, double hi) { return pow(10.0, lo + (hi - lo) * lm_rng_uniform(g)); }

void lm_md_diff_mat(lm_mat *B, const lm_mddata *D, int i, int u, int v)
{
    lm_num a, b;
    lm_num_inits(&D->ctx, &a, &b, (lm_num *)NULL);
    for (int r = 0; r < D->d; r++) {
        lm_mat_get(&a, D->X[i], u, r);
        lm_mat_get(&b, D->X[i], v, r);
        lm_num_sub(&a, &a, &b);
        for (int s = 0; s < D->d; s++) {
            lm_mat_get(&b, D->Z, i, s);
            lm_num_mul(&b, &b, &a);
            lm_mat_set(B, r, s, &b);
        }
    }
    lm_num_clears(&a, &b, (lm_num *)NULL);
}

int lm_mdcone_claim_setup(lm_mdcone *C, lm_eval *ev, lm_rng *g, const lm_ctx *c, int n, int T, int d, double p,
                          int mode)
{
    char why[300];
    int rc = lm_mdcone_setup(C, g, c, n, T, d, p, mode, why, sizeof why);
    if (rc > 0) {
        lm_assume(ev, 0, "%s", why);
        return 1;
    }
    if (rc < 0) return lm_fail(ev, "%s", why);
    return 0;
}

int lm_mdclaim_run(int *rc, lm_mdrun *R, lm_mdcheck_out *o, lm_eval *ev, const lm_mdrun_spec *s,
                   const char *ylabel, const lm_mdcheck *C, int *K,
                   void (*prep)(lm_eval *ev, lm_mdrun *R, void *data), void *data)
{
    *rc = lm_mdrun_begin(R, ev, s);
    if (*rc) {
        lm_mdrun_free(R);
        *rc = *rc < 0 ? -1 : 0;
        return -1;
    }
    if (prep) prep(ev, R, data);
    if (lm_state_given(ev) >= 0) { /* certifying: only the step from the given state */
        *rc = lm_mdrun_check_state(ev, R, C);
        lm_mdrun_free(R);
        return -1;
    }
    lm_series_axes(ev, "iterate k", ylabel, 1);
    char why[200];
    int k = lm_mdrun_steps(ev, lm_par_i(ev, "K"));
    if (K) *K = k;
    if (lm_mdrun_check(o, ev, R, k, LM_MDCHECK_RECORD, C, why, sizeof why)) {
        *rc = lm_fail(ev, "%s", why);
        return 1;
    }
    return 0;
}

int lm_mdclaim_shrink(int *persist, char *msg, int msglen, lm_eval *ev, const lm_mdrun_spec *s, const lm_rng *g0,
                      int K, const lm_mdcheck *C)
{
    char why[200];
    if (lm_mdrun_shrink_test(persist, msg, msglen, ev, s, g0, K, lm_par_i(ev, "shrink_cap"), C, why, sizeof why))
        return lm_fail(ev, "eta-shrinking test: %s", why);
    return 0;
}

void lm_mdpoint_init(lm_mdpoint *q, lm_eval *ev, double p, int use_x, int need)
{
    const lm_ctx *c = ev->ctx;
    int d = use_x && ev->x ? 2 : 1 + ev->index % 3;
    q->d = d;
    q->p = p;
    q->W0 = lm_mat_new(d, d, c);
    q->Th0 = lm_mat_new(d, d, c);
    q->dTh = lm_mat_new(d, d, c);
    lm_num_init(&q->eta, c);
    lm_md_pointwise(q->W0, q->Th0, q->dTh, &q->eta, p, lm_eval_rng(ev), use_x ? ev->x : NULL, use_x ? ev->nx : 0);
    lm_mdpair_init(&q->P, d, d, c);
    lm_mdpair_compute(&q->P, q->W0, q->Th0, q->dTh, p, need);
}

void lm_mdpoint_clear(lm_mdpoint *q)
{
    lm_mdpair_clear(&q->P);
    lm_num_clear(&q->eta);
    lm_mat_free(q->W0);
    lm_mat_free(q->Th0);
    lm_mat_free(q->dTh);
}

int lm_mdpoint_check(lm_eval *ev, const lm_mdpoint *q, lm_mdrun_kind kind, lm_mdstep_obs obs, void *data,
                     int crossings, const char *null_msg)
{
    const lm_ctx *c = ev->ctx;
    int d = q->d;
    /* the observation set reads the state from a run: a one-step "run" */
    lm_mdrun R1 = {.ctx = *c, .k = 0, .W = q->W0, .Th = q->Th0, .dTh = q->dTh, .W0 = q->W0,
                   .s = {kind, q->p, 0, 0}};
    lm_num_init(&R1.eta_k, c);
    lm_num_set(&R1.eta_k, &q->eta);
    lm_mdobs_set O;
    lm_mdobs_set_init(&O, c);
    obs(&O, &R1, &q->P, NULL, data);
    char pre[96];
    if (crossings)
        snprintf(pre, sizeof pre, "any G, %dx%d, eta=%.3g, crossings=%d: ", d, d, lm_num_get_d(&q->eta),
                 q->P.crossings);
    else
        snprintf(pre, sizeof pre, "any G, %dx%d, eta=%.3g: ", d, d, lm_num_get_d(&q->eta));
    int rc = 0, n = lm_mdobs_record(ev, -1, &O, &q->P, pre);
    if (n < 0) rc = lm_fail(ev, "non-finite value in the pointwise instance");
    else if (n == 0) lm_assume(ev, 0, "%s", null_msg);
    lm_mdobs_set_clear(&O);
    lm_num_clear(&R1.eta_k);
    return rc;
}

int lm_mdgd_mono_hook(lm_mdgd *R, void *arg)
{
    lm_mdgd_mono *h = arg;
    lm_num_add(&h->a, &R->rpm1_prev, &R->drpm1);
    lm_obs_le(h->ev, R->k, &R->rpm1_prev, &h->a, 0.0, "%s ||W||^(p-1) nondecreasing at step %d", h->tag, R->k);
    if (lm_num_sgn(&R->drpm1) < 0) h->ndec++;
    return 0;
}

int lm_mdgd_in_regime(lm_eval *ev, const lm_mdgd_rates *q, int drop)
{
    double gmin = lm_par(ev, "regime_growth");
    if (!lm_assume(ev, q->growth >= gmin,
                   "the run never reached the regime: ||W||_p grew by %.3g ||W_mm||_p < %.3g", q->growth, gmin))
        return 0;
    if (!drop) return 1;
    double dmin = lm_par(ev, "regime_drop");
    return lm_assume(ev, q->drop >= dmin,
                     "the run never reached the decay regime: D at k = K/2 is max D / %.3g (need %.3g; "
                     "peak at k = %ld)",
                     q->drop, dmin, q->kpeak) != 0;
}

int lm_mdgd_half(const lm_mdgd_trace *tr)
{
    int h = 0;
    double K = tr->k[tr->n - 1];
    while (h < tr->n - 1 && tr->k[h] < 0.5 * K) h++;
    return h;
}

int lm_mdgd_phi_fit(double *s, double *se, const lm_mdgd_trace *tr, double p, int bylogk)
{
    int n = 0;
    double *x = lm_xmalloc(sizeof(double) * (size_t)tr->n), *y = lm_xmalloc(sizeof(double) * (size_t)tr->n);
    for (int j = lm_mdgd_half(tr); j < tr->n; j++) {
        if (!(tr->D[j] > 0)) continue;
        if (bylogk) {
            if (!(tr->k[j] >= 16)) continue;
            double lk = log(tr->k[j]);
            x[n] = log(lk);
            y[n++] = log(tr->D[j] / lm_mdgd_phi(p, lk));
        } else {
            x[n] = log(tr->r[j]);
            y[n++] = log(tr->D[j] / lm_mdgd_phi(p, tr->r[j]));
        }
    }
    int rc = lm_mdgd_fit(s, se, x, y, n);
    free(x);
    free(y);
    return rc;
}

void lm_mdgd_cone_size(const lm_eval *ev, int *n, int *T, int *d, long *K)
{
    int big = ev->index % 4 == 3;
    *n = big ? 6 : 3;
    *T = big ? 8 : 4;
    *d = big ? 10 : 4;
    long k = lm_par_i(ev, "K");
    if (ev->quick) k /= 4;
    if (big) k /= 4;
    if (k < 1) k = 1;
    *K = k;
}

int lm_mdgd_claim_setup(int *rc, lm_md_inst *I, lm_mdgd *R, lm_eval *ev, int n, int T, int d, double p,
                        double eta)
{
    *rc = lm_mdgd_setup_r1(I, R, ev, n, T, d, p, -lm_par(ev, "mu_start"), lm_par(ev, "R0"), eta);
    if (*rc) {
        lm_md_inst_clear(I);
        lm_mdgd_clear(R);
        *rc = *rc < 0 ? -1 : 0;
        return -1;
    }
    return 0;
}

int lm_mdgd_claim_run(lm_eval *ev, lm_mdgd *R, long K, double ratio, lm_mdgd_hook hook, void *arg, int freeze)
{
    int r = lm_mdgd_run(R, K, ev->tmax, ratio, NULL, hook, arg);
    int rc = 0;
    if (r == 1) rc = lm_fail(ev, "non-finite value at step %d", R->k);
    if (r == 2) lm_measure(ev, "double_frozen_at_step", R->frozen_at);
    if (!rc) {
        lm_measure(ev, "steps", R->k);
        if (freeze) lm_measure(ev, "max entries left unchanged by a step (partial freeze)", R->max_frozen_entries);
    }
    return rc;
}
