/* prtraj.c -- shared machinery of the pruning trajectory / PL / rate claims
 * (see lm_prtraj.h). */
#include "lm_prtraj.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void lm_prt_spec_grid(lm_prt_spec *s, int causal, lm_rng *g)
{
    static const int NS[] = {2, 3, 4}, DS[] = {4, 6, 8};
    static const double RS[] = {1.000001, 2.0}, LS[] = {1e-1, 1e-2, 1e-3};
    s->n = NS[lm_rng_int(g, 0, 2)];
    s->d = DS[lm_rng_int(g, 0, 2)];
    s->R = RS[lm_rng_int(g, 0, 1)];
    s->lambda = LS[lm_rng_int(g, 0, 2)];
    s->m0 = lm_rng_int(g, 0, 1);
    s->xkind = lm_rng_int(g, 0, 7) == 0;
    s->causal = causal;
}

lm_prdata *lm_prt_build(const lm_prt_spec *s, uint64_t seed, const lm_ctx *ctx, lm_mat **M0)
{
    lm_rng g;
    lm_rng_init(&g, seed);
    lm_ctx cd = lm_ctx_double();
    lm_prdata *P0 = lm_pr_new(s->n, s->d, &cd);
    if (s->xkind == 1) {
        lm_pr_fill_rank4_W(P0->W, s->R, &g);
        lm_pr_fill(P0->X, LM_PR_GAUSS, s->R, &g);
    } else {
        lm_pr_fill_pl_X(P0->X, 0.5 * s->R * s->R, 0.05, s->R, &g);
        lm_pr_fill(P0->W, LM_PR_GAUSS, s->R, &g);
    }
    if (s->causal) lm_pr_set_causal(P0);
    P0->lambda = s->lambda;
    lm_pr_prepare(P0);
    lm_prdata *P = lm_pr_convert(P0, ctx);
    lm_pr_free(P0);
    if (M0) {
        lm_mat *Md = lm_mat_new(s->d, s->d, &cd);
        lm_pr_fill_mask(Md, s->m0 ? LM_PR_M_UNIFORM : LM_PR_M_ONES, &g);
        double *a = lm_xmalloc(sizeof(double) * (size_t)(s->d * s->d));
        lm_mat_get_array(a, Md);
        *M0 = lm_mat_new(s->d, s->d, ctx);
        lm_mat_set_array(*M0, a);
        free(a);
        lm_mat_free(Md);
    }
    return P;
}

double lm_prt_logaddexp(double a, double b)
{
    if (a == -HUGE_VAL) return b;
    if (b == -HUGE_VAL) return a;
    double m = fmax(a, b);
    return m + log1p(exp(-fabs(a - b)));
}

double lm_prt_log_delta(const lm_prfwd *F, const lm_prdata *P)
{
    int n = P->n;
    double best = HUGE_VAL;
    for (int i = 0; i < n; i++) {
        double m = -HUGE_VAL;
        for (int j = 0; j < n; j++)
            if (P->C[i * n + j]) m = fmax(m, lm_mat_get_d(F->H, i, j));
        double s = 0.0, hmin = HUGE_VAL;
        for (int j = 0; j < n; j++)
            if (P->C[i * n + j]) {
                double h = lm_mat_get_d(F->H, i, j);
                s += exp(h - m);
                hmin = fmin(hmin, h);
            }
        best = fmin(best, hmin - m - log(s));
    }
    return best;
}

void lm_prt_coefs_read(lm_prt_coefs *k, const lm_eval *ev)
{
    k->mu_coef = lm_par(ev, "mu_coef");
    k->U_coef = lm_par(ev, "U_coef");
    k->U_exp_n = lm_par(ev, "U_exp_n");
    k->xi_scale = lm_par(ev, "xi_scale");
    k->L_scale = lm_par(ev, "L_scale");
}

void lm_prt_consts_delta(lm_prt_consts *K, const lm_prdata *P, double lambda, double log_delta,
                         const lm_prt_coefs *k)
{
    int d = P->d;
    K->log_delta = log_delta;
    double s = K->log_theta + K->log_beta + log_delta;
    K->log_mu = log(k->mu_coef) + 2.0 * s;
    if (lambda <= 0) {
        K->log_xi = -HUGE_VAL;
        return;
    }
    double a = log(lambda) + 2.0 * log((double)d) - log(2.0);
    double b = log(lambda) + log((double)d) + K->log_U - 2.0 * s;
    K->log_xi = lm_prt_logaddexp(a, b) + log(k->xi_scale);
}

int lm_prt_consts_eval(lm_prt_consts *K, const lm_prdata *P, double R, double log_delta,
                       const lm_prt_coefs *k)
{
    lm_num v;
    lm_num_init(&v, &P->ctx);
    int rc = lm_pr_beta(&v, P);
    K->log_beta = lm_num_sgn(&v) > 0 ? lm_num_log_abs_d(&v) : -HUGE_VAL;
    lm_pr_theta(&v, P);
    K->log_theta = lm_num_sgn(&v) > 0 ? lm_num_log_abs_d(&v) : -HUGE_VAL;
    lm_num_clear(&v);
    int n = P->n, d = P->d;
    K->log_U = log(k->U_coef) + k->U_exp_n * log((double)n) + log((double)d) + 3.0 * log(R);
    K->LE8 = k->L_scale * (lm_pr_LE8(n, d, R, 0.0)) + P->lambda;
    lm_prt_consts_delta(K, P, P->lambda, log_delta, k);
    return rc ? -1 : 0;
}

static int in_box(const lm_mat *M)
{
    for (int a = 0; a < M->r; a++)
        for (int b = 0; b < M->c; b++) {
            double v = lm_mat_get_d(M, a, b);
            if (!(v >= 0.0 && v <= 1.0)) return 0;
        }
    return 1;
}

int lm_prt_gd(lm_prt_run *r, const lm_prdata *P, const lm_mat *M0, double eta, int T, int tmax,
              int project, double momentum, lm_prt_cb cb, void *u)
{
    const lm_ctx *c = &P->ctx;
    int d = P->d;
    if (tmax >= 0 && tmax + 1 < T) T = tmax + 1;
    if (T < 0) T = 0;
    r->T = T;
    r->cap = T + 1;
    r->L = lm_nums_new(T + 1, c);
    r->Lrec = lm_nums_new(T + 1, c);
    r->g2 = lm_nums_new(T + 1, c);
    r->step2 = lm_nums_new(T + 1, c);
    r->log_delta = lm_xcalloc((size_t)T + 1, sizeof(double));
    r->first_exit = r->nonfinite = -1;
    r->Mlast = lm_mat_dup(M0);
    lm_mat *M = r->Mlast, *Vel = lm_mat_new(d, d, c), *Mp = lm_mat_new(d, d, c);
    lm_prfwd *F = lm_pr_fwd_new(P);
    for (int t = 0; t <= T; t++) {
        int bad = lm_pr_forward(F, P, M);
        lm_pr_grad(F, P, M);
        lm_mat_dot(&r->g2[t], F->G, F->G);
        lm_num_set(&r->L[t], &F->L);
        lm_num_set(&r->Lrec[t], &F->Lrec);
        r->log_delta[t] = lm_prt_log_delta(F, P);
        if (r->first_exit < 0 && !in_box(M)) r->first_exit = t;
        if (bad || !lm_num_isfinite(&r->g2[t]) || !lm_mat_isfinite(F->G)) {
            r->nonfinite = t;
            r->T = t;
            break;
        }
        if (cb) cb(u, t, F, M);
        if (t == T) break;
        lm_mat_copy(Mp, M);
        if (momentum != 0.0) {
            lm_mat_scale_d(Vel, Vel, momentum);
            lm_mat_add(Vel, Vel, F->G);
            lm_mat_axpy_d(M, -eta, Vel);
        } else {
            lm_mat_axpy_d(M, -eta, F->G);
        }
        if (project)
            for (int a = 0; a < d; a++)
                for (int b = 0; b < d; b++) {
                    double v = lm_mat_get_d(M, a, b);
                    if (v < 0.0) lm_mat_set_d(M, a, b, 0.0);
                    else if (v > 1.0) lm_mat_set_d(M, a, b, 1.0);
                }
        lm_mat_sub(Mp, M, Mp);
        lm_mat_dot(&r->step2[t], Mp, Mp);
    }
    lm_pr_fwd_free(F);
    lm_mat_free(Vel);
    lm_mat_free(Mp);
    return 0;
}

void lm_prt_run_free(lm_prt_run *r)
{
    int k = r->cap;
    if (r->L) {
        lm_nums_free(r->L, k);
        lm_nums_free(r->Lrec, k);
        lm_nums_free(r->g2, k);
        lm_nums_free(r->step2, k);
    }
    free(r->log_delta);
    lm_mat_free(r->Mlast);
    r->L = r->Lrec = r->g2 = r->step2 = NULL;
    r->log_delta = NULL;
    r->Mlast = NULL;
}

int lm_prt_Lhat(double *Lhat, const lm_prdata *P, const lm_mat *M)
{
    lm_num v;
    lm_num_init(&v, &P->ctx);
    double h = P->ctx.backend == LM_DOUBLE ? 1e-5 : ldexp(1.0, -(int)P->ctx.prec / 3);
    int rc = lm_pr_jac_norm(&v, LM_PR_MAP_GRAD, P, M, h);
    *Lhat = lm_num_get_d(&v);
    lm_num_clear(&v);
    return rc || !isfinite(*Lhat) || *Lhat <= 0 ? -1 : 0;
}

int lm_prt_pl_logs(double *log_lhs, double *log_rhs, double g, double log_g2, double log_mu,
                   double log_xi)
{
    if (!(g > 0)) return 0;
    double lg = log(g);
    if (log_xi >= lg) return 0;
    double ldiff = lg + log1p(-exp(log_xi - lg)); /* log(g - xi) */
    *log_lhs = log(0.5) + log_mu + ldiff;
    *log_rhs = log_g2;
    return 1;
}

/* the PL observations at one M: main inequality, F.10a, F.10b */
typedef struct {
    lm_eval *ev;
    const lm_prdata *P;
    lm_prt_consts *K;
    const lm_prt_coefs *k;
    double min_a, max_b, min_plratio;
    int vacuous, nobs;
} pl_ctx;

static void pl_at(void *u, int t, const lm_prfwd *F, const lm_mat *M)
{
    (void)M;
    pl_ctx *q = u;
    const lm_prdata *P = q->P;
    const lm_ctx *c = &P->ctx;
    lm_prt_consts_delta(q->K, P, P->lambda, lm_prt_log_delta(F, P), q->k);
    lm_prt_consts *K = q->K;
    lm_num g2, cn, wn, la, lb;
    lm_num_inits(c, &g2, &cn, &wn, &la, &lb, (lm_num *)NULL);
    lm_mat *A = lm_mat_dup(F->XtPX);
    lm_mat_hadamard(A, A, P->W);
    lm_mat_frob(&wn, A);
    lm_mat_frob(&cn, F->c);
    lm_mat_dot(&g2, F->G, F->G);
    double L = lm_num_get_d(&F->L), lg2 = lm_num_log_abs_d(&g2);
    double ll, lr;
    if (lm_prt_pl_logs(&ll, &lr, L, lg2, K->log_mu, K->log_xi)) {
        lm_num_set_d(&la, ll);
        lm_num_set_d(&lb, lr);
        lm_obs_le_log(q->ev, t, &la, &lb, 1e-9, "PL: mu/2 (L - xi) <= ||grad L||^2");
        q->min_plratio = fmin(q->min_plratio, lr - ll);
    } else {
        q->vacuous++;
        lm_num_set_d(&la, log(L));
        lm_num_set_d(&lb, K->log_xi);
        lm_obs_le_log(q->ev, t, &la, &lb, 0.0, "PL: L <= xi, right side <= 0 (flag: vacuous-xi)");
    }
    /* F.10a: theta beta delta ||c||_F <= ||W o (X^T p X)||_F (c = 0 at M = 1: both 0) */
    if (!lm_num_iszero(&cn)) {
        double lhs = K->log_theta + K->log_beta + K->log_delta + lm_num_log_abs_d(&cn);
        double rhs = lm_num_iszero(&wn) ? -HUGE_VAL : lm_num_log_abs_d(&wn);
        if (rhs == -HUGE_VAL) rhs = -1e300;
        lm_num_set_d(&la, lhs);
        lm_num_set_d(&lb, rhs);
        lm_obs_le_log(q->ev, t, &la, &lb, 1e-9, "F.10a: theta beta delta ||c||_F <= ||W o X^T p X||_F");
        q->min_a = fmin(q->min_a, rhs - lhs);
    }
    /* F.10b: ||W o (X^T p X)||_F <= U */
    if (!lm_num_iszero(&wn)) {
        lm_num_set_d(&la, lm_num_log_abs_d(&wn));
        lm_num_set_d(&lb, K->log_U);
        lm_obs_le_log(q->ev, t, &la, &lb, 1e-9, "F.10b: ||W o X^T p X||_F <= U");
        q->max_b = fmax(q->max_b, lm_num_log_abs_d(&wn) - K->log_U);
    }
    q->nobs++;
    lm_mat_free(A);
    lm_num_clears(&g2, &cn, &wn, &la, &lb, (lm_num *)NULL);
}

int lm_prt_pl_eval(lm_eval *ev, int mode)
{
    lm_rng g;
    lm_rng_init(&g, lm_hash_u64(ev->seed, 610));
    lm_prt_spec s;
    lm_prt_spec_grid(&s, mode == 1 || (mode >= 2 && ev->index % 2), &g);
    s.m0 = 1;
    lm_prt_coefs k;
    lm_prt_coefs_read(&k, ev);
    const lm_ctx *c = ev->ctx;
    lm_mat *M0 = NULL;
    lm_prdata *P = lm_prt_build(&s, ev->seed, c, &M0);
    lm_prt_consts K;
    int rc = 0;
    if (lm_prt_consts_eval(&K, P, s.R, 0.0, &k)) {
        rc = lm_fail(ev, "eigensolver for beta failed");
        goto out;
    }
    lm_measure(ev, "flag: A1 fails (n > d)", K.log_beta == -HUGE_VAL);
    lm_measure(ev, "flag: A2 fails", s.causal);
    if (!lm_assume(ev, K.log_beta > -HUGE_VAL, "A1 fails: beta = 0 (n=%d, d=%d)", s.n, s.d)) goto out;
    if (!lm_assume(ev, K.log_theta > -HUGE_VAL, "theta = min |W_ab| = 0")) goto out;
    pl_ctx q = {.ev = ev, .P = P, .K = &K, .k = &k, .min_a = HUGE_VAL, .max_b = -HUGE_VAL,
                .min_plratio = HUGE_VAL};
    lm_prfwd *F = lm_pr_fwd_new(P);
    if (mode <= 1) {
        if (lm_pr_forward(F, P, M0)) rc = lm_fail(ev, "non-finite loss");
        else {
            lm_pr_grad(F, P, M0);
            pl_at(&q, -1, F, M0);
        }
    } else if (mode == 2) {
        int steps = lm_par_i(ev, "steps");
        if (ev->quick) steps /= 4;
        lm_prt_run r;
        memset(&r, 0, sizeof r);
        lm_prt_gd(&r, P, M0, 1.0 / K.LE8, steps, ev->tmax, 1, 0.0, pl_at, &q);
        if (r.nonfinite >= 0) rc = lm_fail(ev, "non-finite loss at t=%d", r.nonfinite);
        lm_prt_run_free(&r);
    } else {
        lm_num Ls;
        lm_num_init(&Ls, c);
        lm_mat *Ms = lm_mat_new(s.d, s.d, c);
        double tol = c->backend == LM_DOUBLE ? 1e-9 : 1e-30;
        if (lm_pr_minimise(&Ls, Ms, P, M0, 300, tol)) {
            rc = lm_fail(ev, "Newton polishing did not reach ||grad|| <= %g", tol);
        } else {
            lm_pr_forward(F, P, Ms);
            int inbox = 1;
            for (int a = 0; a < s.d * s.d; a++) {
                double v = lm_mat_get_d(Ms, a / s.d, a % s.d);
                if (!(v >= 0 && v <= 1)) inbox = 0;
            }
            lm_measure(ev, "L(M*)", lm_num_get_d(&Ls));
            if (lm_assume(ev, inbox, "the stationary point M* lies outside [0,1]^{dxd}")) {
                lm_prt_consts_delta(&K, P, s.lambda, lm_prt_log_delta(F, P), &k);
                lm_num a, b;
                lm_num_inits(c, &a, &b, (lm_num *)NULL);
                lm_num_set_d(&a, lm_num_log_abs_d(&Ls));
                lm_num_set_d(&b, K.log_xi);
                lm_obs_le_log(ev, -1, &a, &b, 1e-9, "stationary point: L(M*) <= xi");
                /* L <= n + lambda d^2/2 on the box (||c_j||^2 <= 2, ||M||_F^2 <= d^2) */
                if (K.log_xi >= log(s.n + 0.5 * s.lambda * s.d * s.d))
                    lm_vacuous(ev, "xi (log10 %.4g) >= n + lambda d^2/2, the sup of L over the box: "
                               "L(M*) <= xi cannot fail", K.log_xi / M_LN10);
                lm_measure(ev, "log10 L(M*)/xi", (lm_num_log_abs_d(&Ls) - K.log_xi) / M_LN10);
                lm_num_clears(&a, &b, (lm_num *)NULL);
            }
        }
        lm_mat_free(Ms);
        lm_num_clear(&Ls);
    }
    lm_pr_fwd_free(F);
    lm_measure(ev, "log10 mu", K.log_mu / M_LN10);
    lm_measure(ev, "log10 xi", K.log_xi / M_LN10);
    if (q.min_a < HUGE_VAL) lm_measure(ev, "F.10a min ratio LHS/RHS (catalogue 2.57)", exp(q.min_a));
    if (q.max_b > -HUGE_VAL) lm_measure(ev, "F.10b max ratio ||W o XtpX||/U (catalogue 0.021)", exp(q.max_b));
    if (q.min_plratio < HUGE_VAL) lm_measure(ev, "PL slack min ||grad||^2/(mu/2 (L-xi))", exp(q.min_plratio));
    if (mode <= 2) lm_measure(ev, "flag: vacuous-xi (iterates with L <= xi)", q.vacuous);
    /* L <= xi at every point: the PL right-hand side mu/2 (L - xi) is <= 0 there, so the
     * inequality held only because its right-hand side is not positive (design.md section 2) */
    if (mode <= 2 && q.nobs > 0 && q.vacuous == q.nobs)
        lm_vacuous(ev, "L(M) <= xi at all %d point(s) (log10 xi = %.4g; sup of L over the box is n + lambda d^2/2 = "
                   "%.4g): the PL right-hand side mu/2 (L - xi) is <= 0 (flag vacuous-xi)",
                   q.nobs, K.log_xi / M_LN10, s.n + 0.5 * s.lambda * s.d * s.d);
out:
    lm_mat_free(M0);
    lm_pr_free(P);
    return rc;
}
