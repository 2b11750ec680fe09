/* prlip.c -- Lipschitz-constant estimators for the attention-pruning maps
 * (see lm_prlip.h): exact vector-Jacobian products of the softmax chain,
 * block power iteration on J^T J, an adversarial maximiser over the mask and
 * the signs of X and W, and the claim driver of pruning/lemmaE.3..E.7,
 * theoremE.8 and theorem5.4.
 */
#include "lm_prlip.h"
#include <math.h>
#include <stdlib.h>

double lm_prlip_h(const lm_ctx *c)
{
    if (c->backend == LM_DOUBLE) return ldexp(1.0, -17);
    return ldexp(1.0, -(int)(c->prec / 3));
}

/* ------------------------------------------------------------ J^T U */

int lm_prlip_vjp(lm_mat *out, lm_pr_map m, lm_prfwd *F, const lm_prdata *P, const lm_mat *M,
                 const lm_mat *U, double h)
{
    if (m == LM_PR_MAP_GRAD) { /* the Hessian is symmetric: H U by differences along U/||U|| */
        lm_num nu, r;
        lm_num_inits(&P->ctx, &nu, &r, (lm_num *)NULL);
        lm_mat_frob(&nu, U);
        int rc = 0;
        if (lm_num_iszero(&nu)) {
            lm_mat_zero(out);
        } else {
            lm_mat *Un = lm_mat_dup(U);
            lm_num_set_d(&r, 1.0);
            lm_num_div(&r, &r, &nu);
            lm_mat_scale(Un, Un, &r);
            rc = lm_pr_map_dir(out, LM_PR_MAP_GRAD, F, P, M, Un, h);
            lm_mat_scale(out, out, &nu);
            lm_mat_free(Un);
        }
        lm_num_clears(&nu, &r, (lm_num *)NULL);
        return rc || !lm_mat_isfinite(out);
    }
    int rc = lm_pr_forward(F, P, M);
    lm_pr_grad(F, P, M);
    const lm_ctx *c = &P->ctx;
    int n = P->n;
    lm_mat *Uf = lm_mat_new(n, n, c), *GH = lm_mat_new(n, n, c), *T = lm_mat_new(P->d, n, c);
    lm_mat *D = lm_mat_new(P->d, P->d, c);
    lm_num u, f, cc, r, s, t, v;
    lm_num_inits(c, &u, &f, &cc, &r, &s, &t, &v, (lm_num *)NULL);
    for (int i = 0; i < n; i++) {
        /* r_i = sum_k p1_ik, s_i = sum_j U_ij f_ij */
        lm_num_set_d(&r, 0.0);
        lm_num_set_d(&s, 0.0);
        for (int j = 0; j < n; j++) {
            lm_mat_get(&v, F->p1, i, j);
            lm_num_add(&r, &r, &v);
            lm_mat_get(&u, U, i, j);
            lm_mat_get(&f, F->f, i, j);
            lm_num_fma(&s, &u, &f, &s);
        }
        for (int j = 0; j < n; j++) {
            lm_mat_get(&u, U, i, j);
            lm_mat_get(&f, F->f, i, j);
            lm_mat_get(&cc, F->c, i, j);
            lm_num_add(&cc, &cc, &f); /* c + f: d p1 = df o (c + f) */
            switch (m) {
            case LM_PR_MAP_F:
            case LM_PR_MAP_C: lm_num_set(&v, &u); break;
            case LM_PR_MAP_P1: lm_num_mul(&v, &u, &cc); break;
            case LM_PR_MAP_P2: /* r_i U_ij + s_i (c + f)_ij */
                lm_num_mul(&v, &r, &u);
                lm_num_fma(&v, &s, &cc, &v);
                break;
            default: /* p = p1 - p2 */
                lm_num_mul(&t, &r, &u);
                lm_num_fma(&t, &s, &cc, &t);
                lm_num_mul(&v, &u, &cc);
                lm_num_sub(&v, &v, &t);
                break;
            }
            lm_mat_set(Uf, i, j, &v);
        }
        /* softmax adjoint of row i: G_ij = f_ij (Uf_ij - sum_k f_ik Uf_ik) */
        lm_num_set_d(&t, 0.0);
        for (int j = 0; j < n; j++) {
            lm_mat_get(&f, F->f, i, j);
            lm_mat_get(&v, Uf, i, j);
            lm_num_fma(&t, &f, &v, &t);
        }
        for (int j = 0; j < n; j++) {
            lm_mat_get(&f, F->f, i, j);
            lm_mat_get(&v, Uf, i, j);
            lm_num_sub(&v, &v, &t);
            lm_num_mul(&v, &v, &f);
            lm_mat_set(GH, i, j, &v);
        }
    }
    /* H = X (M o W) X^T: the adjoint is W o (X^T G_H X) */
    lm_mat_mul(T, P->X, 1, GH, 0);
    lm_mat_mul(D, T, 0, P->X, 0);
    lm_mat_hadamard(out, P->W, D);
    lm_num_clears(&u, &f, &cc, &r, &s, &t, &v, (lm_num *)NULL);
    lm_mat_free(Uf); lm_mat_free(GH); lm_mat_free(T); lm_mat_free(D);
    return rc || !lm_mat_isfinite(out);
}

/* ------------------------------------------------------------ power iteration */

/* Gram-Schmidt (twice) on Q[0..b-1]; a vector that (nearly) lies in the span
 * of the previous ones (residual <= 1e-8 of its norm: a rank-deficient J^T J
 * returns parallel vectors, whose residual is rounding noise still parallel
 * to the span) is replaced by a random one */
static void orthonormalise(lm_mat **Q, int b, lm_rng *g)
{
    lm_ctx c = lm_mat_ctx(Q[0]);
    lm_num a, nr;
    lm_num_inits(&c, &a, &nr, (lm_num *)NULL);
    for (int k = 0; k < b; k++) {
        for (int tries = 0; tries < 4; tries++) {
            lm_mat_frob(&nr, Q[k]);
            double n0 = lm_num_get_d(&nr);
            for (int pass = 0; pass < 2; pass++)
                for (int l = 0; l < k; l++) {
                    lm_mat_dot(&a, Q[l], Q[k]);
                    lm_num_neg(&a, &a);
                    lm_mat_axpy(Q[k], &a, Q[l]);
                }
            lm_mat_frob(&nr, Q[k]);
            if (lm_num_get_d(&nr) > 1e-8 * n0 && lm_num_get_d(&nr) > 1e-300) break;
            lm_mat_randn(Q[k], g, 1.0);
        }
        lm_mat_frob(&nr, Q[k]);
        if (!lm_num_iszero(&nr)) {
            lm_num_set_d(&a, 1.0);
            lm_num_div(&a, &a, &nr);
            lm_mat_scale(Q[k], Q[k], &a);
        }
    }
    lm_num_clears(&a, &nr, (lm_num *)NULL);
}

int lm_prlip_power(lm_num *sigma, lm_mat *vtop, lm_pr_map m, const lm_prdata *P, const lm_mat *M,
                   double h, int maxit, double tol, double atol, lm_rng *g, int *its)
{
    const lm_ctx *c = &P->ctx;
    int d = P->d, N = d * d, b = N < 6 ? N : 6, rc = 0;
    int on = m == LM_PR_MAP_GRAD ? d : P->n;
    lm_mat *Q[6], *Z[6], *JQ = lm_mat_new(on, on, c);
    for (int k = 0; k < b; k++) {
        Q[k] = lm_mat_new(d, d, c);
        Z[k] = lm_mat_new(d, d, c);
        lm_mat_randn(Q[k], g, 1.0);
    }
    orthonormalise(Q, b, g);
    lm_mat *T = lm_mat_new(b, b, c), *S = lm_mat_new(b, b, c);
    lm_num *w = lm_nums_new(b, c);
    lm_prfwd *F = lm_pr_fwd_new(P);
    lm_num a, e, prev;
    lm_num_inits(c, &a, &e, &prev, (lm_num *)NULL);
    lm_num_set_d(&prev, -1.0);
    int it, conv = 0, calm = 0;
    for (it = 0; it < maxit && !rc; it++) {
        for (int k = 0; k < b && !rc; k++) {
            rc |= lm_pr_map_dir(JQ, m, F, P, M, Q[k], h) || !lm_mat_isfinite(JQ);
            rc |= lm_prlip_vjp(Z[k], m, F, P, M, JQ, h);
        }
        if (rc) break;
        for (int k = 0; k < b; k++)
            for (int l = 0; l <= k; l++) {
                lm_mat_dot(&a, Q[k], Z[l]);
                lm_mat_dot(&e, Q[l], Z[k]);
                lm_num_add(&a, &a, &e);
                lm_num_mul_d(&a, &a, 0.5);
                lm_mat_set(T, k, l, &a);
                lm_mat_set(T, l, k, &a);
            }
        /* eigen-solve the scaled T (GSL's symmetric solver can stall on
         * entries near the underflow threshold); a zero T has theta = 0 */
        if (!lm_mat_isfinite(T)) { rc = 1; break; }
        lm_mat_max_abs(&a, T);
        if (lm_num_iszero(&a)) {
            lm_mat_set_identity(S);
            for (int k = 0; k < b; k++) lm_num_set_d(&w[k], 0.0);
        } else {
            lm_num_set_d(&e, 1.0);
            lm_num_div(&e, &e, &a);
            lm_mat_scale(T, T, &e);
            if (lm_mat_symeig(w, S, T)) { rc = 1; break; }
            for (int k = 0; k < b; k++) lm_num_mul(&w[k], &w[k], &a);
        }
        /* Ritz vector of the largest Ritz value */
        if (vtop) {
            lm_mat_zero(vtop);
            for (int k = 0; k < b; k++) {
                lm_mat_get(&a, S, k, b - 1);
                lm_mat_axpy(vtop, &a, Q[k]);
            }
        }
        /* converged: |theta - prev| <= tol theta (theta = 0 twice also counts) */
        double sk = sqrt(fmax(lm_num_get_d(&w[b - 1]), 0.0)), sp = sqrt(fmax(lm_num_get_d(&prev), 0.0));
        /* three calm steps in a row: a slowly converging iterate moves a
         * little per step while still far from the top value */
        calm = it > 0 && fabs(sk - sp) <= tol * sk + atol ? calm + 1 : 0;
        if (calm >= 3) {
            conv = 1;
            it++;
            break;
        }
        lm_num_set(&prev, &w[b - 1]);
        for (int k = 0; k < b; k++) lm_mat_copy(Q[k], Z[k]);
        orthonormalise(Q, b, g);
    }
    if (!rc) {
        lm_num_set(&a, &w[b - 1]);
        if (lm_num_sgn(&a) < 0) lm_num_set_d(&a, 0.0);
        lm_num_sqrt(sigma, &a);
        if (vtop) {
            lm_mat_frob(&a, vtop);
            if (!lm_num_iszero(&a)) {
                lm_num_set_d(&e, 1.0);
                lm_num_div(&e, &e, &a);
                lm_mat_scale(vtop, vtop, &e);
            }
        }
        if (!lm_num_isfinite(sigma)) rc = 1;
        else if (!conv) rc = 2;
    }
    if (its) *its = it;
    lm_num_clears(&a, &e, &prev, (lm_num *)NULL);
    lm_nums_free(w, b);
    lm_pr_fwd_free(F);
    lm_mat_free(T); lm_mat_free(S); lm_mat_free(JQ);
    for (int k = 0; k < b; k++) {
        lm_mat_free(Q[k]);
        lm_mat_free(Z[k]);
    }
    return rc;
}

/* ------------------------------------------------------------ maximiser */

/* logit-derivative scale S = ||X||_F^2 ||W||_inf: ||D H(M)[V]||_F <= S ||V||_F */
static double logit_scale(const lm_prdata *P)
{
    lm_num a, b;
    lm_num_inits(&P->ctx, &a, &b, (lm_num *)NULL);
    lm_mat_frob(&a, P->X);
    lm_mat_max_abs(&b, P->W);
    double s = lm_num_get_d(&a) * lm_num_get_d(&a) * lm_num_get_d(&b);
    lm_num_clears(&a, &b, (lm_num *)NULL);
    return s;
}

/* the difference step for P: h0 / max(1, S), so that the truncation error
 * h^2 S^3 stays at h0^2 relative to the derivative */
static double step_for(const lm_prdata *P)
{
    return lm_prlip_h(&P->ctx) / fmax(1.0, logit_scale(P));
}

static double objective(const lm_prdata *P, const lm_mat *M, lm_pr_map m, int pit, lm_rng *g)
{
    lm_num s;
    lm_num_init(&s, &P->ctx);
    int rc = lm_prlip_power(&s, NULL, m, P, M, step_for(P), pit, 1e-6, 0.0, g, NULL);
    double v = rc == 1 ? -1.0 : lm_num_get_d(&s);
    lm_num_clear(&s);
    return isfinite(v) ? v : -1.0;
}

double lm_prlip_maximise(lm_prdata *P, lm_mat *M, lm_pr_map m, const lm_prlip_searchopt *o, lm_rng *g)
{
    const lm_ctx *c = &P->ctx;
    int d = P->d;
    lm_mat *Mt = lm_mat_dup(M), *best = lm_mat_dup(M);
    double fb = objective(P, M, m, o->pit, g);
    /* restarts */
    for (int r = 0; r < o->restarts; r++) {
        switch (r % 5) {
        case 0: lm_pr_fill_mask(Mt, LM_PR_M_OFFDOMAIN, g); break;
        case 1: lm_pr_fill_mask(Mt, LM_PR_M_UNIFORM, g); break;
        case 2: lm_pr_fill_mask(Mt, LM_PR_M_ZERO, g); break;
        case 3: /* small masks: moderate logits where the softmax is not saturated */
            lm_pr_fill_mask(Mt, LM_PR_M_OFFDOMAIN, g);
            lm_mat_scale_d(Mt, Mt, 0.1 / (1.0 + logit_scale(P) / (double)(d * d)));
            break;
        default: lm_pr_fill_mask(Mt, LM_PR_M_CORNER, g); break;
        }
        double v = objective(P, Mt, m, o->pit, g);
        if (v > fb) {
            fb = v;
            lm_mat_copy(best, Mt);
        }
    }
    /* compass search in a random 5-dim subspace */
    enum { K = 5 };
    lm_mat *B[K];
    for (int k = 0; k < K; k++) {
        B[k] = lm_mat_new(d, d, c);
        lm_mat_randn(B[k], g, 1.0 / d);
    }
    double t = 0.5;
    int ev = 0;
    while (ev < o->iters && t > 1e-3) {
        int improved = 0;
        for (int k = 0; k < K && ev < o->iters; k++)
            for (int sg = -1; sg <= 1 && ev < o->iters; sg += 2) {
                lm_mat_copy(Mt, best);
                lm_mat_axpy_d(Mt, sg * t, B[k]);
                double v = objective(P, Mt, m, o->pit, g);
                ev++;
                if (v > fb) {
                    fb = v;
                    lm_mat_copy(best, Mt);
                    improved = 1;
                }
            }
        if (!improved) t *= 0.5;
    }
    /* greedy sign flips of X and W entries (|entries| unchanged: D.1 still holds) */
    int nx = P->n * d, nw = d * d;
    for (int q = 0; q < o->flips; q++) {
        int k = lm_rng_int(g, 0, nx + nw - 1);
        lm_mat *A = k < nx ? P->X : P->W;
        int e = k < nx ? k : k - nx;
        int i = e / A->c, j = e % A->c;
        double x = lm_mat_get_d(A, i, j);
        if (x == 0.0) continue;
        lm_mat_set_d(A, i, j, -x);
        lm_pr_prepare(P);
        double v = objective(P, best, m, o->pit, g);
        if (v > fb) {
            fb = v;
        } else {
            lm_mat_set_d(A, i, j, x);
            lm_pr_prepare(P);
        }
    }
    lm_mat_copy(M, best);
    for (int k = 0; k < K; k++) lm_mat_free(B[k]);
    lm_mat_free(Mt); lm_mat_free(best);
    return fb;
}

/* ------------------------------------------------------------ the driver */

/* (n, d) grids of the catalogue, n, d <= 8 */
static const int pairs_full[][2] = {{2, 2}, {3, 3}, {5, 4}, {8, 8}, {1, 3}, {3, 1}, {2, 8},
                                    {8, 2}, {5, 3}, {3, 4}, {8, 4}, {4, 8}, {2, 1}, {5, 8}};
static const int pairs_small[][2] = {{2, 2}, {3, 3}, {4, 4}, {1, 2}, {3, 2}, {2, 4}, {4, 3}};
static const double Rgrid[] = {1.000001, 1.5, 2.0, 4.0};
static const double lamgrid[] = {0.0, 1e-3, 0.1, 1.0};

static double rel_or_zero(double a, double b)
{
    return b > 0 ? a / b : (a > 0 ? HUGE_VAL : 0.0);
}

int lm_prlip_eval(lm_eval *ev, const lm_prlip_spec *s)
{
    lm_rng *g = lm_eval_rng(ev);
    int np = s->small ? (int)(sizeof pairs_small / sizeof *pairs_small)
                      : (int)(sizeof pairs_full / sizeof *pairs_full);
    const int *pr = s->small ? pairs_small[ev->index % np] : pairs_full[ev->index % np];
    int n = pr[0], d = pr[1];
    double R = Rgrid[lm_rng_int(g, 0, 3)];
    lm_pr_family fx = (lm_pr_family)lm_rng_int(g, 0, 3), fw = (lm_pr_family)lm_rng_int(g, 0, 3);
    lm_pr_mkind mk = (lm_pr_mkind)lm_rng_int(g, 0, 4);
    double lambda = s->map == LM_PR_MAP_GRAD ? lamgrid[lm_rng_int(g, 0, 3)] : 0.0;
    lm_rng gs;
    lm_rng_init(&gs, lm_rng_u64(g));

    lm_ctx dbl = lm_ctx_double();
    lm_prdata *P0 = lm_pr_new(n, d, &dbl);
    lm_pr_fill(P0->X, fx, R, g);
    lm_pr_fill(P0->W, fw, R, g);
    if (ev->config == 1) lm_pr_set_causal(P0);
    P0->lambda = lambda;
    lm_pr_prepare(P0);
    lm_mat *M0 = lm_mat_new(d, d, &dbl);
    lm_pr_fill_mask(M0, mk, g);

    /* (2) adversarial maximisation in double (the same path whatever ev->ctx) */
    lm_prlip_searchopt so = ev->quick ? (lm_prlip_searchopt){3, 16, 6, 8}
                                      : (lm_prlip_searchopt){6, 40, 16, 12};
    double fsearch = lm_prlip_maximise(P0, M0, s->map, &so, &gs);
    double Reff = lm_pr_reff(P0), Rs = fmax(Reff, 1.0);
    int ret = 0;
    lm_prdata *P = NULL, *P256 = NULL;
    lm_mat *M = NULL, *V = NULL, *Vr = NULL, *M256 = NULL, *V256 = NULL, *Mt = NULL;
    lm_num js, pw, tp, jsf, pwf;
    lm_num_inits(ev->ctx, &js, &pw, &tp, &jsf, &pwf, (lm_num *)NULL);
    if (!(fsearch >= 0)) {
        ret = lm_fail(ev, "adversarial search saw no finite value (n=%d d=%d R=%g)", n, d, R);
        goto out;
    }
    if (!lm_assume(ev, Reff <= R * (1 + 1e-15), "instance outside the box: max entry %g > R=%g", Reff, R))
        goto out;

    P = lm_pr_convert(P0, ev->ctx);
    M = lm_mat_new(d, d, ev->ctx);
    lm_mat_copy(M, M0);
    V = lm_mat_new(d, d, ev->ctx);
    double h = step_for(P);
    double stated = s->stated(ev, n, d, Rs, lambda);

    /* (1a) the core's assembled-Jacobian SVD, (1b) block power iteration */
    if (lm_pr_jac_norm(&js, s->map, P, M, h)) {
        ret = lm_fail(ev, "assembled Jacobian not finite (n=%d d=%d R=%g)", n, d, R);
        goto out;
    }
    lm_rng gp;
    uint64_t pseed = lm_rng_u64(g);
    lm_rng_init(&gp, pseed);
    int its = 0;
    double u = lm_ctx_eps(ev->ctx), S = logit_scale(P);
    /* difference noise of J v: (u/h) x the scale of the map's values */
    double vscale = (1.0 + n) * (1.0 + (s->map == LM_PR_MAP_GRAD ? S + lambda * d * 3.0 : 0.0));
    double noise = (u / h) * vscale;
    /* stop when sigma moves by less than 1e-9 relative or the noise level */
    double ptol = fmax(1e-13, 64.0 * u / lm_prlip_h(ev->ctx));
    int prc = lm_prlip_power(&pw, V, s->map, P, M, h, 600, ptol, 10.0 * noise, &gp, &its);
    if (prc) {
        ret = lm_fail(ev, "power iteration %s after %d iterations (n=%d d=%d R=%g)",
                      prc == 2 ? "did not converge" : "saw a non-finite value", its, n, d, R);
        goto out;
    }
    double jsd = lm_num_get_d(&js), pwd = lm_num_get_d(&pw);
    /* both carry the central-difference error ~ (u/h) x (value scale) +
     * h^2-term; a wrong adjoint or a stalled iteration is off by O(1) */
    /* the Hessian's differences of the gradient carry the gradient's
     * rounding amplified by the logit scale: in double the two agree only to
     * ~sqrt(u) (catalogue, precision policy); 1e-6 once the precision allows */
    double agree_rel = s->map == LM_PR_MAP_GRAD ? fmax(1e-6, 1e2 * sqrt(u)) : 1e-6;
    double agree_tol = agree_rel * fmax(jsd, pwd) + 1e3 * noise;
    if (!(fabs(jsd - pwd) <= agree_tol)) {
        ret = lm_fail(ev, "power iteration %.12g disagrees with the assembled SVD %.12g (tol %.3g)",
                      pwd, jsd, agree_tol);
        goto out;
    }
    lm_obs_le_d(ev, -1, jsd, stated, 0.0, "||D %s(M)||_op (assembled SVD) <= stated",
                lm_pr_map_name(s->map));
    lm_obs_le_d(ev, -1, pwd, stated, 0.0, "||D %s(M)||_op (power iteration) <= stated",
                lm_pr_map_name(s->map));
    double est = fmax(jsd, pwd);

    /* (3) two-point ratios: top singular direction and a random direction */
    Vr = lm_mat_new(d, d, ev->ctx);
    {
        lm_mat *Rd = lm_mat_new(d, d, &dbl);
        lm_mat_randn(Rd, g, 1.0);
        lm_num nr;
        lm_num_init(&nr, &dbl);
        lm_mat_frob(&nr, Rd);
        lm_mat_scale_d(Rd, Rd, 1.0 / lm_num_get_d(&nr));
        lm_num_clear(&nr);
        lm_mat_copy(Vr, Rd);
        lm_mat_free(Rd);
    }
    static const double sep[] = {2.0, 0.3, 1e-2, 1e-4};
    Mt = lm_mat_new(d, d, ev->ctx);
    double tpmax = 0.0;
    for (int dir = 0; dir < 2; dir++)
        for (int k = 0; k < 4; k++) {
            lm_mat_copy(Mt, M);
            lm_mat_axpy_d(Mt, sep[k], dir ? Vr : V);
            if (lm_pr_two_point(&tp, s->map, P, M, Mt)) {
                ret = lm_fail(ev, "two-point ratio not finite at s=%g", sep[k]);
                goto out;
            }
            double r = lm_num_get_d(&tp);
            tpmax = fmax(tpmax, r);
            lm_obs_le_d(ev, -1, r, stated, 0.0, "two-point ratio, %s direction, s=%g <= stated",
                        dir ? "random" : "top", sep[k]);
        }
    est = fmax(est, tpmax);

    /* small separations in MPFR-256 (double cancels there) */
    lm_ctx c256 = lm_ctx_mpfr(256);
    const lm_ctx *cw = (ev->ctx->backend == LM_MPFR && ev->ctx->prec >= 256) ? ev->ctx : &c256;
    P256 = lm_pr_convert(P0, cw);
    M256 = lm_mat_new(d, d, cw);
    V256 = lm_mat_new(d, d, cw);
    lm_mat_copy(M256, M0);
    {
        double *vb = lm_xmalloc(sizeof(double) * (size_t)(d * d));
        lm_mat_get_array(vb, V);
        lm_mat_set_array(V256, vb); /* a direction given as doubles, exactly */
        free(vb);
    }
    lm_mat *Mt256 = lm_mat_new(d, d, cw);
    lm_num tq;
    lm_num_init(&tq, cw);
    static const double sep_mp[] = {1e-8, 1e-12};
    double tpmp[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        lm_mat_copy(Mt256, M256);
        lm_mat_axpy_d(Mt256, sep_mp[k], V256);
        if (lm_pr_two_point(&tq, s->map, P256, M256, Mt256)) {
            lm_num_clear(&tq);
            lm_mat_free(Mt256);
            ret = lm_fail(ev, "MPFR two-point ratio not finite at s=%g", sep_mp[k]);
            goto out;
        }
        tpmp[k] = lm_num_get_d(&tq);
        lm_obs_le_d(ev, -1, tpmp[k], stated, 0.0, "two-point ratio (mpfr256), top direction, s=%g <= stated",
                    sep_mp[k]);
    }
    lm_num_clear(&tq);
    lm_mat_free(Mt256);
    est = fmax(est, fmax(tpmp[0], tpmp[1]));

    lm_measure(ev, "n", n);
    lm_measure(ev, "d", d);
    lm_measure(ev, "R", Rs);
    if (s->map == LM_PR_MAP_GRAD) lm_measure(ev, "lambda", lambda);
    lm_measure(ev, "stated constant", stated);
    lm_measure(ev, "sharpest found (estimate)", est);
    lm_measure(ev, "slack = stated / estimated", rel_or_zero(stated, est));
    lm_measure(ev, "estimated / stated", rel_or_zero(est, stated));
    lm_measure(ev, "Jacobian norm, assembled SVD", jsd);
    lm_measure(ev, "Jacobian norm, power iteration", pwd);
    lm_measure(ev, "power iterations", its);
    lm_measure(ev, "|power / SVD - 1|", jsd > 0 ? fabs(pwd / jsd - 1.0) : fabs(pwd));
    lm_measure(ev, "adversarial search objective (double)", fsearch);
    lm_measure(ev, "two-point max, s in {2,0.3,1e-2,1e-4}", tpmax);
    lm_measure(ev, "two-point s=1e-8 (mpfr256)", tpmp[0]);
    lm_measure(ev, "two-point s=1e-12 (mpfr256)", tpmp[1]);
    lm_measure(ev, "|two-point(1e-12, mpfr256) / SVD - 1|", jsd > 0 ? fabs(tpmp[1] / jsd - 1.0) : tpmp[1]);
    lm_measure(ev, "logit scale ||X||_F^2 ||W||_inf", S);

    /* theoremE.8: the instance-level constant ||W||_inf ||X||_F^2 L_p + lambda */
    if (s->e8) {
        double Linst = S * exp(lm_pr_log_Lp(n, d, Rs)) + lambda;
        lm_obs_le_d(ev, -1, est, Linst, 0.0, "sharpest estimate <= ||W||_inf ||X||_F^2 L_p + lambda");
        lm_measure(ev, "instance-level L = ||W||_inf ||X||_F^2 L_p + lambda", Linst);
        lm_measure(ev, "slack instance-level / estimated", rel_or_zero(Linst, est));
        lm_measure(ev, "instance-level / stated (<= 1 by D.1/D.2)", rel_or_zero(Linst, stated));
    }
    /* lemmaE.4: c = f - f0 has the Jacobian of f: the numbers coincide */
    if (s->also_f) {
        lm_mat *Vf = lm_mat_new(d, d, ev->ctx);
        lm_rng gf;
        lm_rng_init(&gf, pseed); /* the same start block as for c */
        int rcf = lm_pr_jac_norm(&jsf, LM_PR_MAP_F, P, M, h);
        int itf = 0;
        rcf |= lm_prlip_power(&pwf, Vf, LM_PR_MAP_F, P, M, h, 600, ptol, 10.0 * noise, &gf, &itf);
        lm_mat_free(Vf);
        if (rcf) {
            ret = lm_fail(ev, "the f estimate (E.3) failed at the E.4 instance");
            goto out;
        }
        double jf = lm_num_get_d(&jsf), pf = lm_num_get_d(&pwf);
        /* c = f - f0 rounds each entry once more: the difference quotients
         * differ by <= ~ n d u / h (Frobenius over n^2 x d^2 entries) */
        double tau = 8.0 * n * d * u / h;
        lm_obs_le_d(ev, -1, fabs(jsd - jf), tau, 0.0, "|L_c - L_f| (assembled SVD) <= 8 n d u/h");
        lm_obs_le_d(ev, -1, fabs(pwd - pf), tau + 1e-6 * fmax(pwd, pf), 0.0,
                    "|L_c - L_f| (power iteration) <= 8 n d u/h + 1e-6 L");
        lm_measure(ev, "E.3 estimate (f) at this instance, assembled SVD", jf);
        lm_measure(ev, "|L_c - L_f| / L_f (assembled SVD)", jf > 0 ? fabs(jsd - jf) / jf : fabs(jsd - jf));
    }
out:
    lm_num_clears(&js, &pw, &tp, &jsf, &pwf, (lm_num *)NULL);
    if (Mt) lm_mat_free(Mt);
    if (Vr) lm_mat_free(Vr);
    if (V) lm_mat_free(V);
    if (M) lm_mat_free(M);
    if (V256) lm_mat_free(V256);
    if (M256) lm_mat_free(M256);
    if (P256) lm_pr_free(P256);
    if (P) lm_pr_free(P);
    lm_mat_free(M0);
    lm_pr_free(P0);
    return ret;
}
