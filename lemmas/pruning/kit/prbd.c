/* prbd.c -- shared helpers of the attention-pruning bound claims (lm_prbd.h). */
#include "lm_prbd.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

double lm_pr_pl_slack(double gnorm, double alpha, double mu, double g, double xi)
{
    return pow(gnorm, alpha) - 0.5 * mu * (g - xi);
}

void lm_prbd_plan_make(lm_prbd_plan *pl, int index, lm_rng *g)
{
    static const int NG[] = {1, 2, 3, 5, 8}, DG[] = {1, 2, 3, 4, 8};
    static const double RG[] = {1.000001, 1.5, 2.0, 4.0};
    pl->n = NG[lm_rng_int(g, 0, 4)];
    pl->d = DG[lm_rng_int(g, 0, 4)];
    pl->R = RG[lm_rng_int(g, 0, 3)];
    pl->fx = (lm_pr_family)(index % 4);
    pl->fw = (lm_pr_family)((index / 4 + index) % 4);
    pl->mk = (lm_pr_mkind)(index % 5);
    pl->causal = (index / 2) % 2;
}

lm_prdata *lm_prbd_draw(const lm_prbd_plan *pl, lm_mat **M, lm_rng *g)
{
    lm_ctx cd = lm_ctx_double();
    lm_prdata *P = lm_pr_new(pl->n, pl->d, &cd);
    lm_pr_family fx = pl->fx == LM_PR_RANK4 && pl->n != pl->d ? LM_PR_GAUSS : pl->fx;
    lm_pr_fill(P->X, fx, pl->R, g);
    lm_pr_fill(P->W, pl->fw, pl->R, g);
    if (pl->causal) lm_pr_set_causal(P);
    else lm_pr_set_full(P);
    P->lambda = 0.0;
    lm_pr_prepare(P);
    if (M) {
        *M = lm_mat_new(pl->d, pl->d, &cd);
        lm_pr_fill_mask(*M, pl->mk, g);
    }
    return P;
}

void lm_prbd_df(lm_mat *D, const lm_mat *f, const lm_prdata *P, int a, int b)
{
    lm_ctx c = lm_mat_ctx(f);
    int n = P->n;
    lm_num s, x, y, w, xa;
    lm_num_inits(&c, &s, &x, &y, &w, &xa, (lm_num *)NULL);
    lm_mat_get(&w, P->W, a, b);
    for (int j = 0; j < n; j++) {
        lm_num_set_d(&s, 0.0); /* <f_j, X_{*,b}> */
        for (int l = 0; l < n; l++) {
            lm_mat_get(&x, f, j, l);
            lm_mat_get(&y, P->X, l, b);
            lm_num_fma(&s, &x, &y, &s);
        }
        lm_mat_get(&xa, P->X, j, a);
        lm_num_mul(&xa, &xa, &w);
        for (int k = 0; k < n; k++) {
            lm_mat_get(&x, f, j, k);
            lm_mat_get(&y, P->X, k, b);
            lm_num_sub(&y, &y, &s);
            lm_num_mul(&y, &y, &x);
            lm_num_mul(&y, &y, &xa);
            lm_mat_set(D, j, k, &y);
        }
    }
    lm_num_clears(&s, &x, &y, &w, &xa, (lm_num *)NULL);
}

double lm_prbd_climb(lm_prdata *P, lm_mat *M, double R, double mlo, double mhi, int iters,
                     lm_prbd_obj obj, void *u, lm_rng *g)
{
    int n = P->n, d = P->d;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < d; j++) lm_mat_set_d(P->X, i, j, lm_mat_get_d(P->X, i, j) < 0 ? -R : R);
    for (int i = 0; i < d; i++)
        for (int j = 0; j < d; j++) lm_mat_set_d(P->W, i, j, lm_mat_get_d(P->W, i, j) < 0 ? -R : R);
    lm_pr_prepare(P);
    double best = obj(P, M, u);
    for (int it = 0; it < iters; it++) {
        int mv = lm_rng_int(g, 0, 3);
        if (mv == 0) {
            int i = lm_rng_int(g, 0, n - 1), j = lm_rng_int(g, 0, d - 1);
            lm_mat_set_d(P->X, i, j, -lm_mat_get_d(P->X, i, j));
            lm_pr_prepare(P);
            double v = obj(P, M, u);
            if (v > best) best = v;
            else {
                lm_mat_set_d(P->X, i, j, -lm_mat_get_d(P->X, i, j));
                lm_pr_prepare(P);
            }
        } else if (mv == 1) {
            int i = lm_rng_int(g, 0, d - 1), j = lm_rng_int(g, 0, d - 1);
            lm_mat_set_d(P->W, i, j, -lm_mat_get_d(P->W, i, j));
            lm_pr_prepare(P);
            double v = obj(P, M, u);
            if (v > best) best = v;
            else {
                lm_mat_set_d(P->W, i, j, -lm_mat_get_d(P->W, i, j));
                lm_pr_prepare(P);
            }
        } else {
            int i = lm_rng_int(g, 0, d - 1), j = lm_rng_int(g, 0, d - 1);
            double old = lm_mat_get_d(M, i, j);
            double nv = mv == 2 ? mlo + (mhi - mlo) * lm_rng_uniform(g) : (lm_rng_uniform(g) < 0.5 ? 0.0 : 1.0);
            lm_mat_set_d(M, i, j, nv);
            double v = obj(P, M, u);
            if (v > best) best = v;
            else lm_mat_set_d(M, i, j, old);
        }
    }
    return best;
}

void lm_prbd_obs(lm_eval *ev, const lm_num *lhs, double coef, const lm_num *rhs, double tol,
                 const char *where)
{
    lm_num b;
    lm_num_init(&b, ev->ctx);
    lm_num_mul_d(&b, rhs, coef);
    lm_obs_le(ev, -1, lhs, &b, tol, "%s", where);
    lm_num_clear(&b);
}

double lm_prbd_tol(const lm_eval *ev, double K)
{
    return lm_par(ev, "tol_scale") * K * lm_ctx_eps(ev->ctx);
}

/* ---- lemma 5.6 / F.4 ---- */

int lm_prbd_sandwich_eval(lm_eval *ev, int squared)
{
    lm_rng *g = lm_eval_rng(ev);
    double coef = lm_par(ev, "coef");
    int ngtd = lm_par_i(ev, "regime") == 1 || (ev->index % 8 == 7);
    int kind = ev->index % 5;
    static const char *const KN[] = {"random X, random B", "random X, B = v_min v_min^T",
                                     "X = sqrt(beta0)[I|0]Q, random B", "random X, skew B",
                                     "random X, rank-one B"};
    int n = lm_rng_int(g, 1, 4), d = n + lm_rng_int(g, 0, 4);
    if (ngtd) { d = lm_rng_int(g, 1, 3); n = d + lm_rng_int(g, 1, 3); }
    lm_ctx cd = lm_ctx_double();
    lm_prdata *P0 = lm_pr_new(n, d, &cd);
    if (kind == 2 && !ngtd) lm_pr_fill_pl_X(P0->X, 0.25 + 3.0 * lm_rng_uniform(g), 0.0, 1e300, g);
    else lm_mat_randn(P0->X, g, 1.0);
    lm_mat *B0 = lm_mat_new(n, n, &cd);
    lm_mat_randn(B0, g, 1.0);
    if (kind == 3)
        for (int i = 0; i < n; i++)
            for (int j = 0; j <= i; j++) {
                double v = i == j ? 0.0 : lm_mat_get_d(B0, i, j);
                lm_mat_set_d(B0, i, j, v);
                lm_mat_set_d(B0, j, i, -v);
            }
    if (kind == 4) {
        double a[8], b[8];
        for (int i = 0; i < n; i++) { a[i] = lm_rng_normal(g); b[i] = lm_rng_normal(g); }
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) lm_mat_set_d(B0, i, j, a[i] * b[j]);
    }
    lm_prdata *P = lm_pr_convert(P0, ev->ctx);
    lm_pr_free(P0);
    const lm_ctx *c = ev->ctx;
    lm_mat *B = lm_mat_new(n, n, c), *XXt = lm_mat_new(n, n, c), *V = lm_mat_new(n, n, c);
    lm_mat *T = lm_mat_new(d, n, c), *Y = lm_mat_new(d, d, c);
    lm_num *w = lm_nums_new(n, c);
    lm_num beta, lhs, rhs, x;
    lm_num_inits(c, &beta, &lhs, &rhs, &x, (lm_num *)NULL);
    int rc = 0;
    lm_mat_mul(XXt, P->X, 0, P->X, 1);
    if (lm_pr_beta(&beta, P) || lm_mat_symeig(w, V, XXt)) {
        rc = lm_fail(ev, "eigensolver failed on X X^T (n=%d, d=%d)", n, d);
        goto out;
    }
    lm_measure(ev, "n", n);
    lm_measure(ev, "d", d);
    lm_measure(ev, "kind", kind);
    lm_measure(ev, "beta = lambda_min(X X^T)", lm_num_get_d(&beta));
    if (!lm_assume(ev, lm_num_sgn(&beta) > 0,
                   "beta = lambda_min(X X^T) = 0 (n=%d > d=%d: X X^T is singular); the lemma needs beta > 0",
                   n, d))
        goto out;
    if (kind == 1) { /* B = v v^T, v the bottom eigenvector: the analytic minimiser */
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                lm_mat_get(&x, V, i, 0);
                lm_mat_get(&lhs, V, j, 0);
                lm_num_mul(&x, &x, &lhs);
                lm_mat_set(B, i, j, &x);
            }
    } else {
        lm_ctx cdd = lm_ctx_double();
        lm_mat *Bc = lm_mat_new(n, n, c);
        (void)cdd;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) lm_mat_set_d(Bc, i, j, lm_mat_get_d(B0, i, j));
        lm_mat_copy(B, Bc);
        lm_mat_free(Bc);
    }
    lm_mat_mul(T, P->X, 1, B, 0);
    lm_mat_mul(Y, T, 0, P->X, 0);
    lm_mat_frob(&rhs, Y);
    lm_mat_frob(&x, B);
    lm_num_mul(&lhs, &beta, &x);
    lm_num_mul_d(&lhs, &lhs, coef);
    if (squared) { lm_num_sqr(&lhs, &lhs); lm_num_sqr(&rhs, &rhs); }
    double cond = lm_num_get_d(&w[n - 1]) / lm_num_get_d(&beta);
    double tol = lm_prbd_tol(ev, 64.0 * (n + d) * (n + d) * fmax(1.0, cond)) * (squared ? 2.0 : 1.0);
    lm_prbd_obs(ev, &lhs, 1.0, &rhs, tol, squared ? "(coef beta)^2 ||B||^2 <= ||X^T B X||^2"
                                                  : "coef beta ||B|| <= ||X^T B X||");
    lm_measure(ev, "cond(X X^T)", cond);
    lm_measure(ev, "||X^T B X|| / (beta ||B||) (1 = tight)",
               exp((lm_num_log_abs_d(&rhs) - lm_num_log_abs_d(&lhs)) / (squared ? 2.0 : 1.0)) * coef);
    (void)KN;
out:
    lm_num_clears(&beta, &lhs, &rhs, &x, (lm_num *)NULL);
    lm_nums_free(w, n);
    lm_mat_free(B0); lm_mat_free(B); lm_mat_free(XXt); lm_mat_free(V); lm_mat_free(T); lm_mat_free(Y);
    lm_pr_free(P);
    return rc;
}

/* ---- lemma 5.7 / F.7 ---- */

/* rows of S: softmax of Z on the support; B: projected to zero row sums on
 * the support (unless proj = 0) */
static void f7_build(double *S, double *B, const double *Z, const double *B0, const unsigned char *C,
                     int n, int proj)
{
    for (int i = 0; i < n; i++) {
        double m = -HUGE_VAL, s = 0.0, sb = 0.0;
        int cnt = 0;
        for (int j = 0; j < n; j++)
            if (C[i * n + j]) { m = fmax(m, Z[i * n + j]); cnt++; sb += B0[i * n + j]; }
        for (int j = 0; j < n; j++) {
            S[i * n + j] = C[i * n + j] ? exp(Z[i * n + j] - m) : 0.0;
            s += S[i * n + j];
        }
        for (int j = 0; j < n; j++) {
            S[i * n + j] /= s;
            B[i * n + j] = C[i * n + j] ? B0[i * n + j] - (proj ? sb / cnt : 0.0) : 0.0;
        }
    }
}

/* ratio ||B o S - diag((B o S) 1) S|| / (delta ||B||) in double */
static double f7_ratio_d(const double *S, const double *B, const unsigned char *C, int n)
{
    double num = 0.0, nb = 0.0, del = HUGE_VAL;
    for (int i = 0; i < n; i++) {
        double r = 0.0;
        for (int j = 0; j < n; j++) r += B[i * n + j] * S[i * n + j];
        for (int j = 0; j < n; j++) {
            double v = B[i * n + j] * S[i * n + j] - r * S[i * n + j];
            num += v * v;
            nb += B[i * n + j] * B[i * n + j];
            if (C[i * n + j]) del = fmin(del, S[i * n + j]);
        }
    }
    return sqrt(num) / (del * sqrt(nb));
}

int lm_prbd_f7_eval(lm_eval *ev)
{
    lm_rng *g = lm_eval_rng(ev);
    double coef = lm_par(ev, "coef");
    int proj = lm_par_i(ev, "control") == 0;
    int causal = ev->config == 1;
    int kind = ev->index % 5;
    int n = lm_rng_int(g, 1, 6);
    if (kind == 2) n = lm_rng_int(g, 2, 5);
    int d = lm_rng_int(g, 1, 3);
    lm_ctx cd = lm_ctx_double();
    double Z[64], B0[64], S[64], B[64];
    unsigned char C[64];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) C[i * n + j] = causal ? i >= j : 1;
    double sig = kind == 4 ? 1e-3 : (kind == 1 ? 0.0 : pow(10.0, lm_rng_uniform(g) * 1.2 - 0.7));
    for (int k = 0; k < n * n; k++) { Z[k] = sig * lm_rng_normal(g); B0[k] = lm_rng_normal(g); }
    if (kind == 1 && causal) /* equality for causal uniform rows: B on the last row only */
        for (int k = 0; k < (n - 1) * n; k++) B0[k] = 0.0;
    if (!proj && ev->index % 3 == 0) /* the catalogue's witness B = 1 1^T */
        for (int k = 0; k < n * n; k++) B0[k] = 1.0;
    f7_build(S, B, Z, B0, C, n, proj);
    if (kind == 2) { /* the application: S = f(M), B = c(M) */
        lm_prbd_plan pl = {n, d, 1.0 + 0.5 * lm_rng_uniform(g), LM_PR_UNIFORM, LM_PR_GAUSS,
                           LM_PR_M_UNIFORM, causal};
        lm_mat *M;
        lm_prdata *P = lm_prbd_draw(&pl, &M, g);
        lm_prfwd *F = lm_pr_fwd_new(P);
        if (lm_pr_forward(F, P, M)) {
            lm_pr_fwd_free(F); lm_pr_free(P); lm_mat_free(M);
            return lm_fail(ev, "non-finite forward pass");
        }
        lm_mat_get_array(S, F->f);
        lm_mat_get_array(B, F->c);
        lm_pr_fwd_free(F); lm_pr_free(P); lm_mat_free(M);
    }
    if (kind == 3) { /* adversarial: minimise the ratio over (Z, B0) */
        int iters = ev->searching ? 20 : (ev->quick ? 150 : 600);
        double best = f7_ratio_d(S, B, C, n);
        for (int it = 0; it < iters; it++) {
            int k = lm_rng_int(g, 0, n * n - 1), which = lm_rng_int(g, 0, 1);
            double *v = which ? &Z[k] : &B0[k], old = *v;
            *v += 0.5 * lm_rng_normal(g);
            double S2[64], B2[64];
            f7_build(S2, B2, Z, B0, C, n, proj);
            double r = f7_ratio_d(S2, B2, C, n);
            if (isfinite(r) && r < best) {
                best = r;
                for (int q = 0; q < n * n; q++) { S[q] = S2[q]; B[q] = B2[q]; }
            } else *v = old;
        }
    }
    (void)cd;
    const lm_ctx *c = ev->ctx;
    /* rebuild S, B in the context: S from its doubles, B re-projected in the context */
    lm_mat *Sm = lm_mat_new(n, n, c), *Bm = lm_mat_new(n, n, c), *Q = lm_mat_new(n, n, c);
    lm_num x, y, r, del, lhs, rhs;
    lm_num_inits(c, &x, &y, &r, &del, &lhs, &rhs, (lm_num *)NULL);
    lm_mat_set_array(Bm, B);
    lm_mat_set_array(Sm, S);
    for (int i = 0; i < n; i++) { /* S rows renormalised in the context, B row sums removed */
        lm_num_set_d(&r, 0.0);
        lm_num_set_d(&y, 0.0);
        int cnt = 0;
        for (int j = 0; j < n; j++)
            if (C[i * n + j]) {
                lm_mat_get(&x, Sm, i, j);
                lm_num_add(&r, &r, &x);
                lm_mat_get(&x, Bm, i, j);
                lm_num_add(&y, &y, &x);
                cnt++;
            }
        lm_num_div_d(&y, &y, cnt);
        for (int j = 0; j < n; j++)
            if (C[i * n + j]) {
                lm_mat_get(&x, Sm, i, j);
                lm_num_div(&x, &x, &r);
                lm_mat_set(Sm, i, j, &x);
                if (proj) {
                    lm_mat_get(&x, Bm, i, j);
                    lm_num_sub(&x, &x, &y);
                    lm_mat_set(Bm, i, j, &x);
                }
            }
    }
    lm_pr_delta(&del, Sm, C);
    int rc = 0;
    lm_measure(ev, "n", n);
    lm_measure(ev, "kind", kind);
    lm_measure(ev, "delta", lm_num_get_d(&del));
    if (!lm_assume(ev, lm_num_sgn(&del) > 0, "delta = min over the support of S is 0")) goto out;
    lm_mat_hadamard(Q, Bm, Sm);
    for (int i = 0; i < n; i++) {
        lm_num_set_d(&r, 0.0);
        for (int j = 0; j < n; j++) { lm_mat_get(&x, Q, i, j); lm_num_add(&r, &r, &x); }
        for (int j = 0; j < n; j++) {
            lm_mat_get(&x, Q, i, j);
            lm_mat_get(&y, Sm, i, j);
            lm_num_mul(&y, &y, &r);
            lm_num_sub(&x, &x, &y);
            lm_mat_set(Q, i, j, &x);
        }
    }
    lm_mat_frob(&rhs, Q);
    lm_mat_frob(&x, Bm);
    lm_num_mul(&lhs, &del, &x);
    lm_num_mul_d(&lhs, &lhs, coef);
    double dd = lm_num_get_d(&del);
    double tol = lm_prbd_tol(ev, 32.0 * n * n * (1.0 + 1.0 / (n * dd)));
    lm_prbd_obs(ev, &lhs, 1.0, &rhs, tol, "coef delta ||B|| <= ||B o S - diag((B o S) 1) S||");
    lm_measure(ev, "LHS / (delta ||B||) (1 = tight)",
               exp(lm_num_log_abs_d(&rhs) - lm_num_log_abs_d(&lhs)) * coef);
out:
    lm_num_clears(&x, &y, &r, &del, &lhs, &rhs, (lm_num *)NULL);
    lm_mat_free(Sm); lm_mat_free(Bm); lm_mat_free(Q);
    return rc;
}

/* ---- forward-pass bounds ---- */
typedef struct {
    lm_prbd_part fn;
    int part;
    lm_prfwd *F;
} parts_u;

static double parts_obj(const lm_prdata *P, const lm_mat *M, void *vu)
{
    parts_u *u = vu;
    if (lm_pr_forward(u->F, P, M)) return -HUGE_VAL;
    lm_pr_grad(u->F, P, M);
    lm_ctx cd = lm_ctx_double();
    lm_num a, b;
    lm_num_inits(&cd, &a, &b, (lm_num *)NULL);
    u->fn(&a, &b, u->F, P, u->part);
    double r = lm_num_get_d(&a) / lm_num_get_d(&b);
    lm_num_clears(&a, &b, (lm_num *)NULL);
    return isfinite(r) ? r : -HUGE_VAL;
}

int lm_prbd_parts_eval(lm_eval *ev, int part, lm_prbd_part fn, double coef, int climb)
{
    lm_rng *g = lm_eval_rng(ev);
    lm_prbd_plan pl;
    lm_prbd_plan_make(&pl, ev->index, g);
    lm_mat *M0;
    lm_prdata *P0 = lm_prbd_draw(&pl, &M0, g);
    int climbed = climb && ev->index % 3 == 2;
    if (climbed) {
        parts_u u = {fn, part, lm_pr_fwd_new(P0)};
        int iters = ev->searching ? 20 : (ev->quick ? 60 : 160);
        lm_prbd_climb(P0, M0, pl.R, -2.0, 3.0, iters, parts_obj, &u, g);
        lm_pr_fwd_free(u.F);
    }
    lm_prdata *P = lm_pr_convert(P0, ev->ctx);
    lm_mat *M = lm_mat_new(pl.d, pl.d, ev->ctx);
    lm_mat_copy(M, M0);
    lm_prfwd *F = lm_pr_fwd_new(P);
    int rc = 0;
    if (lm_pr_forward(F, P, M)) {
        rc = lm_fail(ev, "non-finite forward pass (n=%d, d=%d, R=%g)", pl.n, pl.d, pl.R);
    } else {
        lm_pr_grad(F, P, M);
        lm_num a, b;
        lm_num_inits(ev->ctx, &a, &b, (lm_num *)NULL);
        fn(&a, &b, F, P, part);
        char where[160];
        snprintf(where, sizeof where, "n=%d d=%d R=%g X:%s W:%s M:%s %s%s", pl.n, pl.d, pl.R,
                 lm_pr_family_name(pl.fx), lm_pr_family_name(pl.fw), lm_pr_mkind_name(pl.mk),
                 pl.causal ? "causal" : "full", climbed ? " (hill-climbed)" : "");
        lm_prbd_obs(ev, &a, coef, &b, lm_prbd_tol(ev, 16.0 * (pl.n + pl.d)), where);
        if (lm_num_sgn(&b) > 0) {
            char mn[64];
            snprintf(mn, sizeof mn, "LHS / (coef RHS), bound %d", part);
            lm_measure(ev, mn, lm_num_get_d(&a) / (coef * lm_num_get_d(&b)));
        }
        lm_measure(ev, "n", pl.n);
        lm_measure(ev, "d", pl.d);
        lm_measure(ev, "R", pl.R);
        lm_num_clears(&a, &b, (lm_num *)NULL);
    }
    lm_pr_fwd_free(F);
    lm_mat_free(M); lm_mat_free(M0);
    lm_pr_free(P); lm_pr_free(P0);
    return rc;
}
