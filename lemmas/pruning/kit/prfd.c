/* prfd.c -- finite-difference checks of the pruning paper's derivative
 * identities in double, MPFR-128 and MPFR-256 (see lm_prfd.h). */
#include "lm_prfd.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void lm_prfd_plan_grid(lm_prfd_plan *pl, int index, const int *ns, int nn, const int *ds, int nd,
                       const double *Rs, int nR, const double *lams, int nl, int causal)
{
    int q = index;
    pl->fx = (lm_pr_family)(q % LM_PR_NFAMILY);
    pl->fw = (lm_pr_family)((q / 2 + 1) % LM_PR_NFAMILY);
    pl->mk = (lm_pr_mkind)(q % LM_PR_M_NKIND);
    pl->n = ns[(q / 3) % nn];
    pl->d = ds[(q / 2) % nd];
    pl->R = Rs[(q / 5) % nR];
    pl->lambda = lams[(q / 7) % nl];
    pl->causal = causal;
}

lm_prdata *lm_prfd_build(const lm_prfd_plan *pl, lm_rng *g, lm_mat **M)
{
    lm_ctx cd = lm_ctx_double();
    lm_prdata *P = lm_pr_new(pl->n, pl->d, &cd);
    lm_pr_fill(P->X, pl->fx == LM_PR_RANK4 ? LM_PR_GAUSS : pl->fx, pl->R, g);
    lm_pr_fill(P->W, pl->fw, pl->R, g);
    if (pl->causal) lm_pr_set_causal(P);
    else lm_pr_set_full(P);
    P->lambda = pl->lambda;
    lm_pr_prepare(P);
    *M = lm_mat_new(pl->d, pl->d, &cd);
    lm_pr_fill_mask(*M, pl->mk, g);
    return P;
}

double lm_prfd_rate(const lm_prdata *P, int a, int b)
{
    double xa = 0.0, xb = 0.0;
    for (int j = 0; j < P->n; j++) {
        xa = fmax(xa, fabs(lm_mat_get_d(P->X, j, a)));
        xb = fmax(xb, fabs(lm_mat_get_d(P->X, j, b)));
    }
    return fabs(lm_mat_get_d(P->W, a, b)) * xa * 2.0 * xb;
}

int lm_prfd_coords(int d, int k, int *ca, int *cb, lm_rng *g)
{
    int m = d * d;
    int *perm = lm_xmalloc(sizeof(int) * (size_t)m);
    for (int i = 0; i < m; i++) perm[i] = i;
    for (int i = m - 1; i > 0; i--) {
        int j = lm_rng_int(g, 0, i), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    if (k > m) k = m;
    for (int i = 0; i < k; i++) {
        ca[i] = perm[i] / d;
        cb[i] = perm[i] % d;
    }
    free(perm);
    return k;
}

void lm_prfd_row_col(lm_num *r, const lm_mat *A, int i, const lm_mat *B, int j)
{
    lm_ctx c = lm_mat_ctx(A);
    lm_num x, y;
    lm_num_inits(&c, &x, &y, (lm_num *)NULL);
    lm_num_set_d(r, 0.0);
    for (int k = 0; k < A->c; k++) {
        lm_mat_get(&x, A, i, k);
        lm_mat_get(&y, B, k, j);
        lm_num_fma(r, &x, &y, r);
    }
    lm_num_clears(&x, &y, (lm_num *)NULL);
}

void lm_prfd_row_col_abs(lm_num *r, const lm_mat *A, int i, const lm_mat *B, int j)
{
    lm_ctx c = lm_mat_ctx(A);
    lm_num x, y;
    lm_num_inits(&c, &x, &y, (lm_num *)NULL);
    lm_num_set_d(r, 0.0);
    for (int k = 0; k < A->c; k++) {
        lm_mat_get(&x, A, i, k);
        lm_mat_get(&y, B, k, j);
        lm_num_abs(&x, &x);
        lm_num_abs(&y, &y);
        lm_num_fma(r, &x, &y, r);
    }
    lm_num_clears(&x, &y, (lm_num *)NULL);
}

/* r = sqrt(r^2 + x^2) without overflow (x >= 0) */
static void hyp(lm_num *r, const lm_num *x, lm_num *t)
{
    if (lm_num_iszero(x)) return;
    if (lm_num_cmp(r, x) < 0) {
        lm_num_div(t, r, x);
        lm_num_sqr(t, t);
        lm_num_add_d(t, t, 1.0);
        lm_num_sqrt(t, t);
        lm_num_mul(r, t, x);
    } else {
        lm_num_div(t, x, r);
        lm_num_sqr(t, t);
        lm_num_add_d(t, t, 1.0);
        lm_num_sqrt(t, t);
        lm_num_mul(r, t, r);
    }
}

static int ctx_bits(const lm_ctx *c) { return c->backend == LM_DOUBLE ? 53 : (int)c->prec; }

/* one precision: residual, natural scale, ||closed||, ||F|| (doubles; the
 * values stay far inside double's range for the instances used) */
typedef struct {
    double res, dn, dc, fn, hmax;
} level_out;

static int run_level(level_out *o, const lm_ctx *c, double h, const lm_prdata *P0, const lm_mat *M0,
                     const lm_prfd_spec *S, int k, const int *ca, const int *cb)
{
    lm_prdata *P = P0 ? lm_pr_convert(P0, c) : NULL;
    int d = M0->r, rc = 0;
    lm_mat *M = lm_mat_new(d, M0->c, c), *Mp = lm_mat_new(d, M0->c, c);
    lm_mat_copy(M, M0);
    lm_mat *F0 = lm_mat_new(S->rows, S->cols, c), *Fp = lm_mat_new(S->rows, S->cols, c);
    lm_mat *Fm = lm_mat_new(S->rows, S->cols, c), *D = lm_mat_new(S->rows, S->cols, c);
    lm_mat *A = lm_mat_new(S->rows, S->cols, c);
    lm_num res2, dn2, dc2, x, st, hp, tt; /* running norms (not squares) */
    lm_num_inits(c, &res2, &dn2, &dc2, &x, &st, &hp, &tt, (lm_num *)NULL);
    o->hmax = o->res = o->dn = o->dc = o->fn = 0.0;
    rc = S->value(F0, P, M, S->arg);
    if (!rc && !lm_mat_isfinite(F0)) rc = 1;
    if (!rc) {
        lm_mat_frob(&x, F0);
        o->fn = lm_num_get_d(&x);
    }
    for (int i = 0; i < k && !rc; i++) {
        int a = ca[i], b = cb[i];
        double hab = h * fmax(1.0, fabs(lm_mat_get_d(M0, a, b)));
        o->hmax = fmax(o->hmax, hab);
        lm_mat_get(&x, M, a, b);
        lm_num_set_d(&hp, hab);
        lm_mat_copy(Mp, M);
        lm_num_add(&st, &x, &hp);
        lm_mat_set(Mp, a, b, &st);
        rc = S->value(Fp, P, Mp, S->arg);
        lm_num_sub(&st, &x, &hp);
        lm_mat_set(Mp, a, b, &st);
        if (!rc) rc = S->value(Fm, P, Mp, S->arg);
        if (rc) break;
        /* the step actually taken: (M_ab + h) - (M_ab - h), rounded as stored */
        lm_num_add(&st, &x, &hp);
        lm_num_sub(&hp, &x, &hp);
        lm_num_sub(&st, &st, &hp);
        lm_mat_sub(Fp, Fp, Fm);
        rc = S->deriv(D, A, P, M, a, b, S->arg);
        if (rc) break;
        if (S->scale != 1.0) lm_mat_scale_d(D, D, S->scale);
        if (!lm_mat_isfinite(Fp) || !lm_mat_isfinite(D) || !lm_mat_isfinite(A)) {
            rc = 1;
            break;
        }
        lm_mat_frob(&x, D);
        hyp(&dc2, &x, &tt);
        lm_mat_frob(&x, A);
        hyp(&dn2, &x, &tt);
        /* D - (F+ - F-)/step */
        lm_num_set_d(&x, 1.0);
        lm_num_div(&x, &x, &st);
        lm_num_neg(&x, &x);
        lm_mat_axpy(D, &x, Fp);
        lm_mat_frob(&x, D);
        hyp(&res2, &x, &tt);
    }
    if (!rc) {
        o->res = lm_num_get_d(&res2);
        o->dn = lm_num_get_d(&dn2);
        o->dc = lm_num_get_d(&dc2);
        if (!isfinite(o->res) || !isfinite(o->dn) || !isfinite(o->fn)) rc = 1;
    }
    lm_num_clears(&res2, &dn2, &dc2, &x, &st, &hp, &tt, (lm_num *)NULL);
    lm_mat_free(M); lm_mat_free(Mp); lm_mat_free(F0); lm_mat_free(Fp); lm_mat_free(Fm);
    lm_mat_free(D); lm_mat_free(A);
    if (P) lm_pr_free(P);
    return rc;
}

int lm_prfd_check(lm_eval *ev, const lm_prdata *P0, const lm_mat *M0, const lm_prfd_spec *S, int k,
                  const int *ca, const int *cb, const double *rate, const char *tag)
{
    static const int BITS[3] = {53, 128, 256};
    int cur = ctx_bits(ev->ctx);
    double rmax = 0.0;
    for (int i = 0; i < k; i++) rmax = fmax(rmax, rate[i]);
    double res53 = -1.0, res256 = -1.0, tau256 = 0.0;
    int nlev = 0;
    for (int l = 0; l < 4; l++) {
        int bits;
        if (l < 3) {
            bits = BITS[l];
            if (bits < cur) continue;
        } else {
            if (cur <= 256) break;
            bits = cur;
        }
        lm_ctx c = bits == 53 ? lm_ctx_double() : lm_ctx_mpfr(bits);
        double h = bits == 53 ? 1e-6 : ldexp(1.0, -(5 * bits) / 16);
        double u = lm_ctx_eps(&c);
        level_out o;
        if (run_level(&o, &c, h, P0, M0, S, k, ca, cb))
            return lm_fail(ev, "%s: non-finite value or derivative at %d bits (%s)", S->what, bits, tag);
        double trunc = (S->T3 * o.fn + S->T3n * (P0 ? P0->n : 1)) * o.hmax * o.hmax * rmax * rmax * rmax;
        double round = u * (o.dn + sqrt((double)k) * o.fn / h);
        double tau = fmax(S->tol_scale * S->K * (trunc + round), 1e-300);
        char name[96];
        const char *pn = bits == 53 ? "double" : (bits == 128 ? "mpfr128" : (bits == 256 ? "mpfr256" : "mpfr"));
        double rel = o.dn > 0.0 ? o.res / o.dn : o.res;
        snprintf(name, sizeof name, "log10 residual, %s", pn);
        lm_measure(ev, name, rel > 0.0 ? log10(rel) : -999.0);
        snprintf(name, sizeof name, "log10 tolerance, %s", pn);
        lm_measure(ev, name, log10(o.dn > 0.0 ? tau / o.dn : fmax(tau, 1e-300)));
        /* a tolerance of the order of the scale itself cannot tell a wrong formula:
         * that precision is uninformative and the higher ones decide */
        int informative = tau <= 0.05 * o.dn || bits >= 256;
        if (informative)
            lm_obs_le_d(ev, -1, o.res, tau, 0.0, "%s: ||closed - FD||_F <= tau at %d bits (%s; scale %.3g)",
                        S->what, bits, tag, o.dn);
        else
            lm_measure(ev, "uninformative precision (bits), promoted to MPFR", bits);
        if (bits == 53) res53 = o.res;
        if (bits == 256) {
            res256 = o.res;
            tau256 = tau;
        }
        nlev++;
    }
    if (res53 >= 0.0 && res256 >= 0.0) {
        lm_obs_le_d(ev, -1, res256, fmax(ldexp(res53, -60), tau256), 0.0,
                    "%s: residual shrinks, res_256 <= max(2^-60 res_53, tau_256) (%s)", S->what, tag);
        if (res53 > 0.0 && res256 > 0.0)
            lm_measure(ev, "log2 (res_53 / res_256)", log2(res53 / res256));
    }
    if (nlev == 0) return lm_fail(ev, "%s: no precision level ran (%s)", S->what, tag);
    return 0;
}

int lm_prfd_eval_model(lm_eval *ev, lm_prfd_spec *S, lm_prfd_shape shape, const lm_prfd_grid *gr,
                       int ncoord)
{
    lm_rng *g = lm_eval_rng(ev);
    lm_prfd_plan pl;
    lm_prfd_plan_grid(&pl, ev->index, gr->ns, gr->nn, gr->ds, gr->nd, gr->Rs, gr->nR, gr->lams, gr->nl,
                      ev->config == 1);
    lm_mat *M0;
    lm_prdata *P0 = lm_prfd_build(&pl, g, &M0);
    S->rows = shape == LM_PRFD_SCALAR ? 1 : pl.n;
    S->cols = shape == LM_PRFD_NN ? pl.n : 1;
    int ca[64], cb[64];
    double rate[64];
    int k = lm_prfd_coords(pl.d, ncoord < 64 ? ncoord : 64, ca, cb, g);
    for (int i = 0; i < k; i++) rate[i] = lm_prfd_rate(P0, ca[i], cb[i]);
    char tag[160];
    snprintf(tag, sizeof tag, "%s, n=%d d=%d R=%g lambda=%g, X %s, W %s, %s", pl.causal ? "causal" : "full",
             pl.n, pl.d, pl.R, pl.lambda, lm_pr_family_name(pl.fx == LM_PR_RANK4 ? LM_PR_GAUSS : pl.fx),
             lm_pr_family_name(pl.fw), lm_pr_mkind_name(pl.mk));
    lm_measure(ev, "n", pl.n);
    lm_measure(ev, "d", pl.d);
    lm_measure(ev, "R", pl.R);
    int rc = lm_prfd_check(ev, P0, M0, S, k, ca, cb, rate, tag);
    lm_mat_free(M0);
    lm_pr_free(P0);
    return rc;
}

/* ---- the closed-form gradient of Theorems 5.3 and C.5 (one evaluator, two grids) ---- */

static int grad_value(lm_mat *out, const lm_prdata *P, const lm_mat *M, void *arg)
{
    (void)arg;
    lm_prfwd *F = lm_pr_fwd_new(P);
    int rc = lm_pr_forward(F, P, M);
    lm_mat_set(out, 0, 0, &F->L);
    lm_pr_fwd_free(F);
    return rc;
}

enum { MU_NONE = 0, MU_PT, MU_DROP_P2, MU_2LAMBDA, MU_WT };

/* the closed form W o (X^T p X) + lambda M, p = f o c - diag((f o c) 1_n) f, and its
 * absolute-value version |W| o (|X|^T (|p1| + |p2|) |X|) + lambda |M| (G or A may be NULL) */
static void grad_closed(lm_mat *G, lm_mat *A, const lm_prdata *P, const lm_mat *M, int mu)
{
    const lm_ctx *c = &P->ctx;
    int n = P->n, d = P->d;
    lm_prfwd *F = lm_pr_fwd_new(P);
    lm_pr_forward(F, P, M);
    lm_mat *p1 = lm_mat_new(n, n, c), *p2 = lm_mat_new(n, n, c), *p = lm_mat_new(n, n, c);
    lm_mat *pt = lm_mat_new(n, n, c), *XtP = lm_mat_new(d, n, c), *XtPX = lm_mat_new(d, d, c);
    lm_mat *Wu = lm_mat_dup(P->W), *Xa = lm_mat_dup(P->X), *Ma = lm_mat_dup(M);
    lm_num r, v;
    lm_num_inits(c, &r, &v, (lm_num *)NULL);
    lm_mat_hadamard(p1, F->f, F->c); /* p1 = f o c */
    for (int i = 0; i < n; i++) {    /* p2 = diag(p1 1_n) f */
        lm_num_set_d(&r, 0.0);
        for (int j = 0; j < n; j++) {
            lm_mat_get(&v, p1, i, j);
            lm_num_add(&r, &r, &v);
        }
        for (int j = 0; j < n; j++) {
            lm_mat_get(&v, F->f, i, j);
            lm_num_mul(&v, &v, &r);
            lm_mat_set(p2, i, j, &v);
        }
    }
    if (mu == MU_DROP_P2) lm_mat_zero(p2);
    lm_mat_sub(p, p1, p2);
    if (mu == MU_PT) {
        lm_mat_transpose(pt, p);
        lm_mat_copy(p, pt);
    }
    if (mu == MU_WT) lm_mat_transpose(Wu, P->W);
    double lam = mu == MU_2LAMBDA ? 2.0 * P->lambda : P->lambda;
    if (G) {
        lm_mat_mul(XtP, P->X, 1, p, 0);
        lm_mat_mul(XtPX, XtP, 0, P->X, 0);
        lm_mat_hadamard(G, Wu, XtPX);
        lm_mat_axpy_d(G, lam, M);
    }
    if (A) { /* natural scale */
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                lm_mat_get(&r, p1, i, j);
                lm_num_abs(&r, &r);
                lm_mat_get(&v, p2, i, j);
                lm_num_abs(&v, &v);
                lm_num_add(&r, &r, &v);
                lm_mat_set(p, i, j, &r);
            }
        for (int i = 0; i < n; i++)
            for (int j = 0; j < d; j++) {
                lm_mat_get(&r, P->X, i, j);
                lm_num_abs(&r, &r);
                lm_mat_set(Xa, i, j, &r);
            }
        for (int i = 0; i < d; i++)
            for (int j = 0; j < d; j++) {
                lm_mat_get(&r, Wu, i, j);
                lm_num_abs(&r, &r);
                lm_mat_set(Wu, i, j, &r);
                lm_mat_get(&r, M, i, j);
                lm_num_abs(&r, &r);
                lm_mat_set(Ma, i, j, &r);
            }
        lm_mat_mul(XtP, Xa, 1, p, 0);
        lm_mat_mul(XtPX, XtP, 0, Xa, 0);
        lm_mat_hadamard(A, Wu, XtPX);
        lm_mat_axpy_d(A, fabs(lam), Ma);
    }
    lm_num_clears(&r, &v, (lm_num *)NULL);
    lm_mat_free(p1); lm_mat_free(p2); lm_mat_free(p); lm_mat_free(pt); lm_mat_free(XtP);
    lm_mat_free(XtPX); lm_mat_free(Wu); lm_mat_free(Xa); lm_mat_free(Ma);
    lm_pr_fwd_free(F);
}

static int grad_deriv(lm_mat *D, lm_mat *A, const lm_prdata *P, const lm_mat *M, int a, int b, void *arg)
{
    int mu = *(const int *)arg;
    lm_mat *G = lm_mat_new(P->d, P->d, &P->ctx), *Ga = lm_mat_new(P->d, P->d, &P->ctx);
    lm_num t;
    lm_num_init(&t, &P->ctx);
    grad_closed(G, A ? Ga : NULL, P, M, mu);
    lm_mat_get(&t, G, a, b);
    lm_mat_set(D, 0, 0, &t);
    if (A) {
        lm_mat_get(&t, Ga, a, b);
        lm_mat_set(A, 0, 0, &t);
    }
    lm_num_clear(&t);
    lm_mat_free(G);
    lm_mat_free(Ga);
    return 0;
}

/* edge identities in the runner's precision: grad L(1) = lambda 1, and n = 1 => grad L = lambda M
 * (both exact: c = 0 entrywise, so the tolerance is a few units of rounding of lambda M) */
static void grad_edges(lm_eval *ev, const lm_prfd_grid *gr, int index, int causal, int mu, double tol_scale)
{
    lm_rng *g = lm_eval_rng(ev);
    lm_prfd_plan pl;
    lm_prfd_plan_grid(&pl, index, gr->ns, gr->nn, gr->ds, gr->nd, gr->Rs, gr->nR, gr->lams, gr->nl, causal);
    for (int e = 0; e < 2; e++) {
        lm_prfd_plan q = pl;
        if (e == 0) q.mk = LM_PR_M_ONES;
        else q.n = 1;
        lm_mat *M0;
        lm_prdata *P0 = lm_prfd_build(&q, g, &M0);
        lm_prdata *P = lm_pr_convert(P0, ev->ctx);
        lm_mat *M = lm_mat_new(q.d, q.d, ev->ctx), *G = lm_mat_new(q.d, q.d, ev->ctx);
        lm_num x, y;
        lm_num_inits(ev->ctx, &x, &y, (lm_num *)NULL);
        lm_mat_copy(M, M0);
        grad_closed(G, NULL, P, M, mu);
        lm_mat_frob(&y, M);
        lm_num_mul_d(&y, &y, q.lambda);
        lm_mat_axpy_d(G, -q.lambda, M);
        lm_mat_frob(&x, G);
        lm_num_mul_d(&y, &y, tol_scale * 4.0 * lm_ctx_eps(ev->ctx));
        lm_num_add_d(&y, &y, 1e-300); /* M = 0 or lambda = 0: only an exact 0 passes */
        lm_obs_le(ev, -1, &x, &y, 0.0, "%s: ||closed - lambda M||_F <= 4u lambda ||M||_F (lambda=%g, d=%d)",
                  e == 0 ? "edge grad L(1) = lambda 1" : "edge n = 1: grad L = lambda M", q.lambda, q.d);
        lm_num_clears(&x, &y, (lm_num *)NULL);
        lm_mat_free(M); lm_mat_free(G); lm_mat_free(M0);
        lm_pr_free(P); lm_pr_free(P0);
    }
}

int lm_prfd_gradient_eval(lm_eval *ev, const lm_prfd_grid *gr, int ncoord, int edge_every)
{
    int mu = lm_par_i(ev, "mutation");
    double ts = lm_par(ev, "tol_scale");
    lm_prfd_spec S = {.what = "grad L", .value = grad_value, .deriv = grad_deriv, .arg = &mu, .T3 = 0.0,
                      .T3n = 18.0, .tol_scale = ts, .scale = lm_par(ev, "scale")};
    int n = gr->ns[(ev->index / 3) % gr->nn], d = gr->ds[(ev->index / 2) % gr->nd];
    S.K = 4.0 * (n + d + 4) * (n + d + 4);
    int rc = lm_prfd_eval_model(ev, &S, LM_PRFD_SCALAR, gr, ncoord);
    if (rc) return rc;
    if (ev->index % edge_every == 0) grad_edges(ev, gr, ev->index, ev->config == 1, mu, ts);
    return 0;
}
