/* ibland.c -- loss-landscape probes along joint training (see lm_ibland.h). */
#include "lm_ibland.h"
#include "lm_ibgen.h"
#include "lm_rng.h"
#include <math.h>
#include <stdlib.h>

void lm_ibland_grad_ratios(lm_num *gu, lm_num *gth, lm_num *corr, const lm_ibj *J,
                           const lm_attn_fwd *F, const lm_mat *M)
{
    const lm_ctx *c = &J->ctx;
    lm_mat *gC = lm_mat_new(J->n, J->T, c), *gU = lm_mat_new(J->n, J->T, c);
    lm_num ls, f, qw, qu, v;
    lm_num_inits(c, &ls, &f, &qw, &qu, &v, (lm_num *)NULL);
    lm_ibj_grads(gC, gU, &ls, J, F);
    /* f = e^{ls - log L}: the gradient divided by L, scaled coefficients */
    if (lm_num_isfinite(&ls)) {
        lm_num_sub(&f, &ls, &F->logL);
        lm_num_exp(&f, &f);
    } else {
        lm_num_set_d(&f, 0.0);
    }
    lm_ibj_inner_W(&qw, J, NULL, gC, NULL, gC);
    lm_ibj_inner_u(&qu, J, gU, gU);
    if (lm_num_sgn(&qw) < 0) lm_num_set_d(&qw, 0.0);
    if (lm_num_sgn(&qu) < 0) lm_num_set_d(&qu, 0.0);
    if (gu) {
        lm_num_sqrt(&v, &qu);
        lm_num_mul(gu, &v, &f);
    }
    if (gth) {
        lm_num_add(&v, &qw, &qu);
        lm_num_sqrt(&v, &v);
        lm_num_mul(gth, &v, &f);
    }
    if (corr) {
        if (M) {
            lm_ibj_inner_u(&v, J, gU, M);
            lm_num_mul(&v, &v, &f);
            lm_num_neg(corr, &v);
        } else {
            lm_num_set_d(corr, 0.0);
        }
    }
    lm_num_clears(&ls, &f, &qw, &qu, &v, (lm_num *)NULL);
    lm_mat_free(gC);
    lm_mat_free(gU);
}

/* log L at theta_0 + lam (dC, dU) into r; Pc, Pu work */
static int seg_eval(lm_num *r, lm_attn_fwd *F, const lm_ibj *J, const lm_mat *C0, const lm_mat *U0,
                    const lm_mat *dC, const lm_mat *dU, double lam, lm_mat *Pc, lm_mat *Pu)
{
    lm_mat_copy(Pc, C0);
    lm_mat_axpy_d(Pc, lam, dC);
    lm_mat_copy(Pu, U0);
    lm_mat_axpy_d(Pu, lam, dU);
    int rc = lm_ibj_forward_at(F, J, Pc, Pu);
    lm_num_set(r, &F->logL);
    return rc || !lm_num_isfinite(r);
}

int lm_ibland_segment_max(lm_num *dmax, double *lam_at, lm_attn_fwd *F, const lm_ibj *J,
                          const lm_mat *C0, const lm_mat *U0, const lm_mat *C1, const lm_mat *U1,
                          int npts, int gs_iters)
{
    const lm_ctx *c = &J->ctx;
    int n = J->n, T = J->T, rc = 0;
    if (npts < 2) npts = 2;
    lm_mat *dC = lm_mat_new(n, T, c), *dU = lm_mat_new(n, T, c);
    lm_mat *Pc = lm_mat_new(n, T, c), *Pu = lm_mat_new(n, T, c);
    lm_mat_sub(dC, C1, C0);
    lm_mat_sub(dU, U1, U0);
    lm_num l0, best, v, f1, f2;
    lm_num_inits(c, &l0, &best, &v, &f1, &f2, (lm_num *)NULL);
    double lbest = 0.0;
    int kbest = 0;
    if (seg_eval(&l0, F, J, C0, U0, dC, dU, 0.0, Pc, Pu)) { rc = 1; goto out; }
    lm_num_set(&best, &l0);
    for (int k = 1; k < npts; k++) {
        double lam = (double)k / (double)(npts - 1);
        if (seg_eval(&v, F, J, C0, U0, dC, dU, lam, Pc, Pu)) { rc = 1; goto out; }
        if (lm_num_cmp(&v, &best) > 0) {
            lm_num_set(&best, &v);
            lbest = lam;
            kbest = k;
        }
    }
    if (gs_iters > 0) {
        /* golden-section search for the maximum on the bracket around kbest */
        const double gr = 0.5 * (sqrt(5.0) - 1.0);
        double a = (double)(kbest > 0 ? kbest - 1 : 0) / (double)(npts - 1);
        double b = (double)(kbest < npts - 1 ? kbest + 1 : npts - 1) / (double)(npts - 1);
        double x1 = b - gr * (b - a), x2 = a + gr * (b - a);
        if (seg_eval(&f1, F, J, C0, U0, dC, dU, x1, Pc, Pu) ||
            seg_eval(&f2, F, J, C0, U0, dC, dU, x2, Pc, Pu)) {
            rc = 1;
            goto out;
        }
        for (int it = 0; it < gs_iters; it++) {
            if (lm_num_cmp(&f1, &best) > 0) { lm_num_set(&best, &f1); lbest = x1; }
            if (lm_num_cmp(&f2, &best) > 0) { lm_num_set(&best, &f2); lbest = x2; }
            if (lm_num_cmp(&f1, &f2) >= 0) { /* maximum in [a, x2] */
                b = x2;
                x2 = x1;
                lm_num_set(&f2, &f1);
                x1 = b - gr * (b - a);
                if (seg_eval(&f1, F, J, C0, U0, dC, dU, x1, Pc, Pu)) { rc = 1; goto out; }
            } else { /* maximum in [x1, b] */
                a = x1;
                x1 = x2;
                lm_num_set(&f1, &f2);
                x2 = a + gr * (b - a);
                if (seg_eval(&f2, F, J, C0, U0, dC, dU, x2, Pc, Pu)) { rc = 1; goto out; }
            }
        }
        if (lm_num_cmp(&f1, &best) > 0) { lm_num_set(&best, &f1); lbest = x1; }
        if (lm_num_cmp(&f2, &best) > 0) { lm_num_set(&best, &f2); lbest = x2; }
    }
    lm_num_sub(dmax, &best, &l0);
    if (lam_at) *lam_at = lbest;
out:
    lm_num_clears(&l0, &best, &v, &f1, &f2, (lm_num *)NULL);
    lm_mat_free(dC);
    lm_mat_free(dU);
    lm_mat_free(Pc);
    lm_mat_free(Pu);
    return rc;
}

lm_ibland_hess *lm_ibland_hess_new(const lm_attn_data *D, int train_u, lm_attn_loss loss,
                                   mpfr_prec_t prec, double h, int iters)
{
    lm_ibland_hess *H = lm_xcalloc(1, sizeof *H);
    H->ctx = lm_ctx_mpfr(prec);
    H->D = lm_attn_data_convert(D, &H->ctx);
    H->J = lm_ibj_new(H->D, NULL, train_u, loss);
    if (!H->J) {
        lm_attn_data_free(H->D);
        free(H);
        return NULL;
    }
    const lm_ctx *c = &H->ctx;
    int n = D->n, T = D->T;
    H->F = lm_attn_fwd_new(H->D);
    H->C = lm_mat_new(n, T, c);
    H->U = lm_mat_new(n, T, c);
    H->Vc = lm_mat_new(n, T, c);
    H->Vu = lm_mat_new(n, T, c);
    H->Hc = lm_mat_new(n, T, c);
    H->Hu = lm_mat_new(n, T, c);
    H->Pc = lm_mat_new(n, T, c);
    H->Pu = lm_mat_new(n, T, c);
    H->gC = lm_mat_new(n, T, c);
    H->gU = lm_mat_new(n, T, c);
    lm_num_init(&H->logL, c);
    H->h = h;
    H->iters = iters;
    return H;
}

void lm_ibland_hess_free(lm_ibland_hess *H)
{
    if (!H) return;
    lm_attn_fwd_free(H->F);
    lm_ibj_free(H->J);
    lm_attn_data_free(H->D);
    lm_mat *m[] = {H->C, H->U, H->Vc, H->Vu, H->Hc, H->Hu, H->Pc, H->Pu, H->gC, H->gU};
    for (size_t k = 0; k < sizeof m / sizeof m[0]; k++) lm_mat_free(m[k]);
    lm_num_clear(&H->logL);
    free(H);
}

int lm_ibland_hess_at(lm_ibland_hess *H, const lm_mat *C, const lm_mat *U)
{
    lm_mat_copy(H->C, C);
    lm_mat_copy(H->U, U);
    if (!H->J->train_u) lm_mat_zero(H->U);
    if (lm_ibj_forward_at(H->F, H->J, H->C, H->U)) return 1;
    lm_num_set(&H->logL, &H->F->logL);
    return !lm_num_isfinite(&H->logL);
}

/* squared Gram norm of a coefficient pair */
static void pair_norm2(lm_num *r, const lm_ibj *J, const lm_mat *A, const lm_mat *B)
{
    lm_num v;
    lm_num_init(&v, &J->ctx);
    lm_ibj_inner_W(r, J, NULL, A, NULL, A);
    if (J->train_u) {
        lm_ibj_inner_u(&v, J, B, B);
        lm_num_add(r, r, &v);
    }
    if (lm_num_sgn(r) < 0) lm_num_set_d(r, 0.0);
    lm_num_clear(&v);
}

/* (gC, gU) e^{ls - log L(p)} / (2h) at p + sgn h V, accumulated into (Hc, Hu) with sign sgn */
static int hvp_side(lm_ibland_hess *H, double sgn)
{
    lm_num f, ls;
    lm_num_inits(&H->ctx, &f, &ls, (lm_num *)NULL);
    int rc = 0;
    lm_mat_copy(H->Pc, H->C);
    lm_mat_axpy_d(H->Pc, sgn * H->h, H->Vc);
    lm_mat_copy(H->Pu, H->U);
    lm_mat_axpy_d(H->Pu, sgn * H->h, H->Vu);
    if (lm_ibj_forward_at(H->F, H->J, H->Pc, H->Pu)) { rc = 1; goto out; }
    lm_ibj_grads(H->gC, H->gU, &ls, H->J, H->F);
    if (!lm_num_isfinite(&ls)) {
        /* exactly zero gradient (ls = -inf) contributes nothing; +inf/NaN is an error */
        rc = lm_num_sgn(&ls) > 0 || !lm_num_isfinite(&H->F->logL);
        goto out;
    }
    lm_num_sub(&f, &ls, &H->logL);
    lm_num_exp(&f, &f);
    lm_num_div_d(&f, &f, 2.0 * H->h);
    if (sgn < 0) lm_num_neg(&f, &f);
    lm_mat_axpy(H->Hc, &f, H->gC);
    lm_mat_axpy(H->Hu, &f, H->gU);
out:
    lm_num_clears(&f, &ls, (lm_num *)NULL);
    return rc;
}

int lm_ibland_hvp(lm_ibland_hess *H)
{
    lm_mat_zero(H->Hc);
    lm_mat_zero(H->Hu);
    if (hvp_side(H, 1.0) || hvp_side(H, -1.0)) return 1;
    if (!H->J->train_u) lm_mat_zero(H->Hu);
    return !(lm_mat_isfinite(H->Hc) && lm_mat_isfinite(H->Hu));
}

int lm_ibland_hess_norm(lm_num *ratio, lm_num *logL, lm_ibland_hess *H, const lm_mat *C,
                        const lm_mat *U, uint64_t key)
{
    const lm_ctx *c = &H->ctx;
    int rc = 0;
    lm_num nrm, best, inv;
    lm_num_inits(c, &nrm, &best, &inv, (lm_num *)NULL);
    if (lm_ibland_hess_at(H, C, U)) { rc = 1; goto out; }
    /* pseudo-random start (the same draws in every context) */
    lm_rng g;
    lm_rng_init(&g, key);
    for (int i = 0; i < H->J->n; i++)
        for (int t = 0; t < H->J->T; t++) {
            lm_mat_set_d(H->Vc, i, t, lm_rng_normal(&g));
            lm_mat_set_d(H->Vu, i, t, H->J->train_u ? lm_rng_normal(&g) : 0.0);
        }
    lm_num_set_d(&best, 0.0);
    for (int k = 0; k <= H->iters; k++) {
        /* normalise v (k = 0: the start; later: v = Hv_prev / ||Hv_prev||) */
        pair_norm2(&nrm, H->J, H->Vc, H->Vu);
        if (lm_num_sgn(&nrm) <= 0) break; /* Hv = 0: the estimate stays as is */
        lm_num_sqrt(&nrm, &nrm);
        if (k > 0 && lm_num_cmp(&nrm, &best) > 0) lm_num_set(&best, &nrm);
        if (k == H->iters) break;
        lm_num_set_d(&inv, 1.0);
        lm_num_div(&inv, &inv, &nrm);
        lm_mat_scale(H->Vc, H->Vc, &inv);
        lm_mat_scale(H->Vu, H->Vu, &inv);
        if (lm_ibland_hvp(H)) { rc = 1; goto out; }
        lm_mat_copy(H->Vc, H->Hc);
        lm_mat_copy(H->Vu, H->Hu);
    }
    if (!lm_num_isfinite(&best)) { rc = 1; goto out; }
    lm_num_set(ratio, &best);
    if (logL) lm_num_set(logL, &H->logL);
out:
    lm_num_clears(&nrm, &best, &inv, (lm_num *)NULL);
    return rc;
}

void lm_ibland_B(lm_num *B, const lm_ibj *J)
{
    lm_num v;
    lm_num_init(&v, &J->ctx);
    lm_num_set_d(B, 0.0);
    for (int a = 0; a < J->N; a++) {
        lm_mat_get(&v, J->R->K, a, a);
        lm_num_max(B, B, &v);
    }
    lm_num_sqrt(B, B);
    lm_num_clear(&v);
}

void lm_ibland_hess_beta(lm_num *r, const lm_num *B, const lm_num *unorm, const lm_ctx *ctx)
{
    lm_num b2, bu, s, v;
    lm_num_inits(ctx, &b2, &bu, &s, &v, (lm_num *)NULL);
    lm_num_sqr(&b2, B);      /* B^2 */
    lm_num_mul(&bu, B, unorm); /* B ||u|| */
    /* B^2 + B^3 + 2 B^5 ||u|| + B^6 ||u||^2 = B^2 (1 + B) + B^4 (2 B||u|| + (B||u||)^2) */
    lm_num_add_d(&s, B, 1.0);
    lm_num_mul(&s, &s, &b2);
    lm_num_add_d(&v, &bu, 2.0);
    lm_num_mul(&v, &v, &bu);
    lm_num_mul(&v, &v, &b2);
    lm_num_mul(&v, &v, &b2);
    lm_num_add(r, &s, &v);
    lm_num_clears(&b2, &bu, &s, &v, (lm_num *)NULL);
}

/* ---------- the run R4 with the segment probes ---------- */

void lm_ibland_opts_default(lm_ibland_opts *o)
{
    o->d = 600;
    o->n = 8;
    o->zeta = 1.5;
    o->eta = 0.5;
    o->alpha = 2.0 / 3.0;
    o->steps = 10000;
    o->C_L = exp(1.0);
    o->seg_pts = 17;
    o->gs_iters = 30;
    o->seg_dense = 1024;
    o->seg_stride = 8;
    o->C_H = 16.0;
    o->hp_scale = 0.0;
    o->hess_pts = 3;
    o->hess_iters = 20;
    o->hess_stride = 1000;
    o->hess_h = 1e-25;
    o->hess_prec = 256;
}

lm_ibland_run *lm_ibland_run_new(lm_eval *ev, const lm_ibland_opts *o)
{
    lm_ibland_run *R = lm_xcalloc(1, sizeof *R);
    R->o = *o;
    R->ctx = ev->ctx;
    lm_ibgen_dm_opts g;
    lm_ibgen_dm_defaults(&g);
    g.d = o->d;
    g.n = o->n;
    g.zeta = o->zeta;
    R->D = lm_ibgen_dm(&g, lm_eval_rng(ev), ev->ctx);
    lm_num_inits(ev->ctx, &R->B, &R->logB, (lm_num *)NULL);
    R->J = lm_ibj_new(R->D, NULL, 1, LM_ATTN_EXP);
    R->seg_logmax = R->seg_logend = -INFINITY;
    if (!R->J) {
        lm_fail(ev, "non-finite forward pass at theta_0");
        lm_ibland_run_free(R);
        return NULL;
    }
    int n = R->D->n, T = R->D->T;
    R->Fw = lm_attn_fwd_new(R->D);
    R->C0 = lm_mat_new(n, T, ev->ctx);
    R->U0 = lm_mat_new(n, T, ev->ctx);
    R->Pc = lm_mat_new(n, T, ev->ctx);
    R->Pu = lm_mat_new(n, T, ev->ctx);
    lm_ibland_B(&R->B, R->J);
    lm_num_log(&R->logB, &R->B);
    R->tmax = o->steps - 1;
    if (ev->tmax >= 0 && ev->tmax < R->tmax) R->tmax = ev->tmax;
    if (o->C_H > 0 || o->hp_scale > 0) {
        R->H = lm_ibland_hess_new(R->D, 1, LM_ATTN_EXP, (mpfr_prec_t)o->hess_prec, o->hess_h,
                                  o->hess_iters);
        if (!R->H) {
            lm_fail(ev, "non-finite forward pass at theta_0 in the MPFR Hessian probe");
            lm_ibland_run_free(R);
            return NULL;
        }
    }
    return R;
}

void lm_ibland_run_free(lm_ibland_run *R)
{
    if (!R) return;
    lm_ibland_hess_free(R->H);
    lm_attn_fwd_free(R->Fw);
    lm_mat_free(R->C0);
    lm_mat_free(R->U0);
    lm_mat_free(R->Pc);
    lm_mat_free(R->Pu);
    lm_ibj_free(R->J);
    lm_attn_data_free(R->D);
    lm_num_clears(&R->B, &R->logB, (lm_num *)NULL);
    free(R);
}

static int is_pow2(int t) { return t > 0 && (t & (t - 1)) == 0; }

/* (ii) on the segment [theta_t, theta_{t+1}] = [(C0,U0), J state] */
static int probe_segment(lm_eval *ev, lm_ibland_run *R, int t)
{
    lm_num dmax, lcl;
    lm_num_inits(ev->ctx, &dmax, &lcl, (lm_num *)NULL);
    double lam = 0.0;
    int rc = 0;
    if (lm_ibland_segment_max(&dmax, &lam, R->Fw, R->J, R->C0, R->U0, R->J->C, R->J->U,
                              R->o.seg_pts, R->o.gs_iters)) {
        rc = lm_fail(ev, "non-finite loss on the step segment at t=%d", t);
        goto out;
    }
    lm_num_set_d(&lcl, R->o.C_L);
    lm_num_log(&lcl, &lcl);
    lm_obs_le_log(ev, t, &dmax, &lcl, 0.0,
                  "(ii) max_{theta' in [theta_t,theta_t+1]} L(theta')/L(theta_t) <= C_L, t=%d (lam=%.3f)",
                  t, lam);
    double dm = lm_num_get_d(&dmax);
    if (dm > R->seg_logmax) R->seg_logmax = dm;
    R->nseg++;
out:
    lm_num_clears(&dmax, &lcl, (lm_num *)NULL);
    return rc;
}

/* (iii) at hess_pts points of the segment; logL0 = log L(theta_t), un0 = ||u_t|| */
static int probe_hessian(lm_eval *ev, lm_ibland_run *R, int t, const lm_num *logL0, const lm_num *un0)
{
    const lm_ctx *c = ev->ctx;
    lm_ibland_hess *H = R->H;
    int rc = 0, np = R->o.hess_pts < 1 ? 1 : R->o.hess_pts;
    lm_num lh, lhs, rhs, v, w, hr, hb, hun, hB, hbeta;
    lm_num_inits(c, &lh, &lhs, &rhs, &v, &w, &hr, &hb, (lm_num *)NULL);
    lm_num_inits(&H->ctx, &hun, &hB, &hbeta, (lm_num *)NULL);
    /* rhs without C_H: log((1+B||u_t||)^2 B^4 L(theta_t)) */
    lm_num_mul(&v, &R->B, un0);
    lm_num_log1p(&v, &v);
    lm_num_mul_d(&rhs, &v, 2.0);
    lm_num_mul_d(&v, &R->logB, 4.0);
    lm_num_add(&rhs, &rhs, &v);
    lm_num_add(&rhs, &rhs, logL0);
    lm_ibland_B(&hB, H->J);
    double best_lhs = -INFINITY;
    for (int k = 0; k < np; k++) {
        double lam = np == 1 ? 0.0 : (double)k / (double)(np - 1);
        lm_mat_sub(R->Pc, R->J->C, R->C0);
        lm_mat_scale_d(R->Pc, R->Pc, lam);
        lm_mat_add(R->Pc, R->Pc, R->C0);
        lm_mat_sub(R->Pu, R->J->U, R->U0);
        lm_mat_scale_d(R->Pu, R->Pu, lam);
        lm_mat_add(R->Pu, R->Pu, R->U0);
        lm_num hr_m, hl_m;
        lm_num_inits(&H->ctx, &hr_m, &hl_m, (lm_num *)NULL);
        uint64_t key = lm_hash_u64(lm_hash_u64(ev->seed, (uint64_t)t), (uint64_t)k);
        int bad = lm_ibland_hess_norm(&hr_m, &hl_m, H, R->Pc, R->Pu, key);
        if (!bad) {
            /* ||u'|| at the point, in the probe's context */
            lm_ibj_inner_u(&hun, H->J, H->U, H->U);
            if (lm_num_sgn(&hun) < 0) lm_num_set_d(&hun, 0.0);
            lm_num_sqrt(&hun, &hun);
            lm_ibland_hess_beta(&hbeta, &hB, &hun, &H->ctx);
            lm_num_set(&hr, &hr_m);  /* ||H||/L(theta') into ev->ctx */
            lm_num_set(&hb, &hbeta);
            lm_num_set(&lh, &hl_m);  /* log L(theta') */
        }
        lm_num_clears(&hr_m, &hl_m, (lm_num *)NULL);
        if (bad || !lm_num_isfinite(&hr)) {
            rc = lm_fail(ev, "non-finite Hessian-vector product at t=%d, lam=%g", t, lam);
            goto out;
        }
        R->nhess++;
        double hrd = lm_num_get_d(&hr);
        if (hrd > R->hl_max) R->hl_max = hrd;
        /* log ||Hess L(theta')|| = log(||H||/L') + log L' (hr = 0: no bound can fail) */
        if (lm_num_sgn(&hr) <= 0) continue;
        lm_num_log(&lhs, &hr);
        lm_num_add(&lhs, &lhs, &lh);
        lm_num_sub(&v, &lhs, &rhs);
        double ce = exp(lm_num_get_d(&v));
        if (ce > R->ch_emp) R->ch_emp = ce;
        if (lm_num_get_d(&lhs) > best_lhs) best_lhs = lm_num_get_d(&lhs);
        if (R->o.C_H > 0) {
            lm_num_set_d(&w, R->o.C_H);
            lm_num_log(&w, &w);
            lm_num_add(&w, &w, &rhs);
            lm_obs_le_log(ev, t, &lhs, &w, 0.0,
                          "(iii) ||Hess L(theta')|| <= C_H (1+B||u_t||)^2 B^4 L(theta_t), t=%d, lam=%.2f", t,
                          lam);
        }
        if (R->o.hp_scale > 0) {
            double pe = hrd / lm_num_get_d(&hb);
            if (pe > R->hp_emp) R->hp_emp = pe;
            lm_num_mul_d(&hb, &hb, R->o.hp_scale);
            lm_obs_le(ev, t, &hr, &hb, 0.0,
                      "(iii') ||Hess L(theta')||/L(theta') <= hp_scale beta(B,||u'||), t=%d, lam=%.2f", t, lam);
        }
    }
    if (isfinite(best_lhs)) {
        lm_series(ev, "||Hess L(theta')|| / L(theta_t) (max over the segment)", t,
                  exp(best_lhs - lm_num_get_d(logL0)));
        lm_series(ev, "C_H (1+B||u_t||)^2 B^4", t,
                  R->o.C_H * exp(lm_num_get_d(&rhs) - lm_num_get_d(logL0)));
    }
out:
    lm_num_clears(&lh, &lhs, &rhs, &v, &w, &hr, &hb, (lm_num *)NULL);
    lm_num_clears(&hun, &hB, &hbeta, (lm_num *)NULL);
    return rc;
}

int lm_ibland_run_next(lm_eval *ev, lm_ibland_run *R)
{
    if (R->rc) return 0;
    if (!R->started) {
        R->started = 1;
        return 1;
    }
    int t = R->t;
    if (t > R->tmax) return 0;
    const lm_ctx *c = ev->ctx;
    lm_num logL0, un0, dl;
    lm_num_inits(c, &logL0, &un0, &dl, (lm_num *)NULL);
    lm_mat_copy(R->C0, R->J->C);
    lm_mat_copy(R->U0, R->J->U);
    lm_num_set(&logL0, &R->J->F->logL);
    lm_ibj_norm_u(&un0, R->J);
    lm_attn_opt_par p;
    lm_attn_opt_par_default(&p);
    p.loss = LM_ATTN_EXP;
    p.eta = R->o.eta;
    p.alpha = R->o.alpha;
    if (lm_ibj_step(R->J, "joint13", &p)) {
        R->rc = lm_fail(ev, "non-finite joint step at t=%d", t);
        goto out;
    }
    lm_num_sub(&dl, &R->J->F->logL, &logL0); /* log L(theta_t+1)/L(theta_t) */
    if (lm_num_get_d(&dl) > R->seg_logend) R->seg_logend = lm_num_get_d(&dl);
    int replay = ev->tmax >= 0;
    int seg = R->o.C_L > 0 &&
              (replay ? t == ev->tmax
                      : (t < R->o.seg_dense || (R->o.seg_stride > 0 && t % R->o.seg_stride == 0)));
    int hs = R->H && (replay ? t == ev->tmax
                             : (t == 0 || (is_pow2(t) && t < R->o.hess_stride) ||
                                (R->o.hess_stride > 0 && t % R->o.hess_stride == 0)));
    if (seg && probe_segment(ev, R, t)) { R->rc = -1; goto out; }
    if (hs && probe_hessian(ev, R, t, &logL0, &un0)) { R->rc = -1; goto out; }
    R->t = t + 1;
out:
    lm_num_clears(&logL0, &un0, &dl, (lm_num *)NULL);
    return R->rc == 0;
}

void lm_ibland_run_report(lm_eval *ev, const lm_ibland_run *R)
{
    double B = lm_num_get_d(&R->B);
    lm_measure(ev, "B = max ||x_it||", B);
    lm_measure(ev, "iterations run", R->t);
    if (R->o.C_L > 0) {
        lm_measure(ev, "segments probed (ii)", R->nseg);
        lm_measure(ev, "empirical C_L = max L(theta')/L(theta_t)", exp(R->seg_logmax));
        lm_measure(ev, "max L(theta_t+1)/L(theta_t)", exp(R->seg_logend));
    }
    if (R->H) {
        lm_measure(ev, "Hessian points probed (iii)", R->nhess);
        lm_measure(ev, "empirical C_H", R->ch_emp);
        lm_measure(ev, "max ||Hess L(theta')||/L(theta')", R->hl_max);
        /* the derivation's constant for this draw: C_L max(1, 1/B + 1/B^2) (1 + eta B^2)^2 */
        double cpt = fmax(1.0, 1.0 / B + 1.0 / (B * B)), s = 1.0 + R->o.eta * B * B;
        lm_measure(ev, "derived C_H = C_L max(1,1/B+1/B^2)(1+eta B^2)^2", R->o.C_L * cpt * s * s);
        if (R->o.hp_scale > 0) lm_measure(ev, "empirical pointwise constant ||H||/(beta L)", R->hp_emp);
    }
}
