/* pr_runs.c -- the attention-pruning paper's Figure 2 as live runs (see
 * lm_prruns.h): GD-found masks against magnitude pruning and Wanda on the
 * same synthetic rank-4 weights, calibration and held-out data.
 *
 * Readings chosen here (the catalogue leaves them open):
 *  - the non-causal softmax of Definition 1.2 by default (`--set causal=1`
 *    for the causal variant);
 *  - W_Q, W_K rescaled so the calibration logits have rms `logit_rms` = 2:
 *    with the paper's unscaled unit Gaussians the logits are O(d^2) and both
 *    the target and every pruned attention are one-hot rows;
 *  - eta = 1/L_hat, L_hat the Hessian norm at M_0 = 1 by 60 power
 *    iterations on Hessian-vector products (central differences of the
 *    closed-form gradient, h = 1e-5; lm_pr_jac_norm assembles the whole
 *    d^2 x d^2 Jacobian and takes 0.7 s at d = 16), with momentum 0.9 and
 *    halving on divergence (L_hat is local, so the halving is the safety);
 *  - the kept mask is the best iterate (the guarantee is on min_t). */
#include "lm_prruns.h"
#include "lm_live.h"
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* clang-format off */
const lm_prr_def lm_prr_runs[] = {
    {"pr-fig2c", "Figure 2(c): relative error vs rho = 0.1..0.9; GD mask (lambda' selected on X), "
                 "magnitude, Wanda; X and held-out X'; n = d = 16",
     LM_PRR_RHO, 16, 16, 2000, 0.5, -1.0, 1.0, 0.9, 1.0, 2.0, 0},
    {"pr-fig2a", "Figure 2(a): relative error vs lambda' = 1e-5..1e1 at rho = 0.5; n = d = 16",
     LM_PRR_LAMBDA, 16, 16, 2000, 0.5, -1.0, 1.0, 0.9, 1.0, 2.0, 0},
    {"pr-fig2b", "Figure 2(b): relative error vs n = 8, 16, 32, 64 at rho = 0.5; d = 16",
     LM_PRR_N, 16, 16, 2000, 0.5, -1.0, 1.0, 0.9, 1.0, 2.0, 0},
    {NULL, NULL, LM_PRR_RHO, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};
/* clang-format on */

const char *const lm_prr_meth_name[LM_PRR_NMETH] = {"GD mask", "magnitude", "Wanda"};

static const double LAMBDA_GRID[] = {1e-4, 1e-3, 1e-2, 1e-1, 1.0};
#define NLGRID ((int)(sizeof LAMBDA_GRID / sizeof LAMBDA_GRID[0]))

const lm_prr_def *lm_prr_find(const char *name)
{
    for (int k = 0; lm_prr_runs[k].name; k++)
        if (!strcmp(lm_prr_runs[k].name, name)) return &lm_prr_runs[k];
    return NULL;
}

/* the settings of a run, each with its range (as a claim parameter's: lm_param_range) */
static const struct {
    const char *name;
    const char *range;
} PRR_SETTINGS[] = {
    {"steps", "int [0, 1000000]"}, /* GD iterations per mask (4 doubles each: memory bound) */
    {"n", "int [1, 256]"},         /* rows of X (the n sweep of pr-fig2b uses its own) */
    {"d", "int [1, 32]"},          /* the mask has d^2 entries; lm_prr_hess_norm costs d^2 gradients */
    {"rho", "[0, 1]"},
    {"lambda", "[-1, 1e6]"},       /* lambda'; negative: selected from the grid */
    {"lambda_scale", "(0, 1e6]"},
    {"momentum", "[0, 1)"},
    {"eta_c", "(0, 1000]"},
    {"logit_rms", "(0, 50]"},
    {"causal", "int [0, 1]"},
};
#define NPRR_SETTINGS ((int)(sizeof PRR_SETTINGS / sizeof PRR_SETTINGS[0]))

int lm_prr_set(lm_prr_def *r, const char *kv, char *err, int errlen)
{
    size_t l;
    const char *v;
    if (lm_live_split(kv, &l, &v, err, errlen)) return -1;
    int k = 0;
    while (k < NPRR_SETTINGS && !(strlen(PRR_SETTINGS[k].name) == l && !strncmp(kv, PRR_SETTINGS[k].name, l))) k++;
    if (k == NPRR_SETTINGS) {
        snprintf(err, (size_t)errlen,
                 "unknown run setting '%.*s' (known: steps n d rho lambda lambda_scale momentum "
                 "eta_c logit_rms causal)",
                 (int)l, kv);
        return -1;
    }
    lm_param_def pd = {PRR_SETTINGS[k].name, 0, NULL, NULL, PRR_SETTINGS[k].range};
    lm_range rg;
    if (lm_param_range(&rg, &pd)) { /* cannot happen: the table above is fixed */
        snprintf(err, (size_t)errlen, "internal error: run setting %s declares no valid range", pd.name);
        return -1;
    }
    double x;
    /* a number and nothing else: no blanks, no hex, no "nan"/"inf" (as lm_claim_parse_set) */
    int plain = strspn(v, "+-0123456789.eE") == strlen(v);
    if (!plain || lm_live_parse_num(v, &x) || !lm_range_contains(&rg, x)) {
        char rs[96];
        snprintf(err, (size_t)errlen, "run %s: %s takes %s, not '%.40s'", r->name, pd.name,
                 lm_range_str(rs, sizeof rs, &rg), v);
        return -1;
    }
    switch (k) {
    case 0: r->steps = (int)x; break;
    case 1: r->n = (int)x; break;
    case 2: r->d = (int)x; break;
    case 3: r->rho = x; break;
    case 4: r->lambda = x; break;
    case 5: r->lambda_scale = x; break;
    case 6: r->momentum = x; break;
    case 7: r->eta_c = x; break;
    case 8: r->logit_rms = x; break;
    default: r->causal = (int)x; break;
    }
    return 0;
}

/* ---------------------------------------------------------------- instances */

/* rank-4 truncation U S_4 V^T of a d x d Gaussian (double) */
static void rank4(lm_mat *out, lm_rng *g)
{
    int d = out->r;
    lm_ctx cd = lm_ctx_double();
    lm_mat *G = lm_mat_new(d, d, &cd), *U = lm_mat_new(d, d, &cd), *V = lm_mat_new(d, d, &cd);
    lm_num *s = lm_nums_new(d, &cd);
    lm_mat_randn(G, g, 1.0);
    lm_mat_svd(s, U, V, G);
    int k = d < 4 ? d : 4;
    for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++) {
            double v = 0;
            for (int q = 0; q < k; q++)
                v += lm_mat_get_d(U, a, q) * lm_num_get_d(&s[q]) * lm_mat_get_d(V, b, q);
            lm_mat_set_d(out, a, b, v);
        }
    lm_nums_free(s, d);
    lm_mat_free(G);
    lm_mat_free(U);
    lm_mat_free(V);
}

static void set_support(lm_prdata *P, int causal)
{
    if (causal) lm_pr_set_causal(P);
    else lm_pr_set_full(P);
}

void lm_prr_inst_clear(lm_prr_inst *I)
{
    lm_pr_free(I->P);
    lm_pr_free(I->Ph);
    lm_mat_free(I->WQ);
    lm_mat_free(I->WK);
    memset(I, 0, sizeof *I);
}

int lm_prr_inst_build(lm_prr_inst *I, const lm_prr_def *r, int n, uint64_t seed, char *err,
                      int errlen)
{
    memset(I, 0, sizeof *I);
    int d = r->d;
    if (n < 1 || d < 1) {
        snprintf(err, (size_t)errlen, "bad shape n = %d, d = %d", n, d);
        return -1;
    }
    lm_ctx cd = lm_ctx_double();
    lm_rng gw, gx;
    lm_rng_init(&gw, lm_hash_u64(lm_hash_str(seed, "pr-weights"), (uint64_t)d));
    lm_rng_init(&gx, lm_hash_u64(lm_hash_str(seed, "pr-data"), (uint64_t)(n * 1000 + d)));
    I->n = n;
    I->d = d;
    I->WQ = lm_mat_new(d, d, &cd);
    I->WK = lm_mat_new(d, d, &cd);
    rank4(I->WQ, &gw);
    rank4(I->WK, &gw);
    I->P = lm_pr_new(n, d, &cd);
    I->Ph = lm_pr_new(n, d, &cd);
    lm_mat_randn(I->P->X, &gx, 1.0);
    lm_mat_randn(I->Ph->X, &gx, 1.0);
    set_support(I->P, r->causal);
    set_support(I->Ph, r->causal);
    /* scale: rms of the calibration logits over the support */
    lm_mat *W0 = lm_mat_new(d, d, &cd), *XW = lm_mat_new(n, d, &cd), *H = lm_mat_new(n, n, &cd);
    lm_mat_mul(W0, I->WQ, 0, I->WK, 1);
    lm_mat_mul(XW, I->P->X, 0, W0, 0);
    lm_mat_mul(H, XW, 0, I->P->X, 1);
    double ss = 0;
    long cnt = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (I->P->C[i * n + j]) {
                double h = lm_mat_get_d(H, i, j);
                ss += h * h;
                cnt++;
            }
    double rms = sqrt(ss / (double)(cnt ? cnt : 1));
    lm_mat_free(W0);
    lm_mat_free(XW);
    lm_mat_free(H);
    if (!(rms > 0) || !isfinite(rms)) {
        snprintf(err, (size_t)errlen, "degenerate logits (rms %g)", rms);
        lm_prr_inst_clear(I);
        return -1;
    }
    I->scale = r->logit_rms / rms;
    double q = sqrt(I->scale);
    lm_mat_scale_d(I->WQ, I->WQ, q);
    lm_mat_scale_d(I->WK, I->WK, q);
    lm_mat_mul(I->P->W, I->WQ, 0, I->WK, 1);
    lm_mat_copy(I->Ph->W, I->P->W);
    lm_pr_prepare(I->P);
    lm_pr_prepare(I->Ph);
    I->reff = lm_pr_reff(I->P);
    lm_num v;
    lm_num_init(&v, &cd);
    if (lm_pr_beta(&v, I->P)) {
        lm_num_clear(&v);
        snprintf(err, (size_t)errlen, "eigensolver failed on X X^T");
        lm_prr_inst_clear(I);
        return -1;
    }
    I->beta = lm_num_get_d(&v);
    lm_pr_theta(&v, I->P);
    I->theta = lm_num_get_d(&v);
    lm_num_clear(&v);
    return 0;
}

/* ---------------------------------------------------------------- GD mask */

int lm_prr_hess_norm(double *out, const lm_prdata *P, const lm_mat *M)
{
    int d = P->d;
    lm_ctx cd = lm_ctx_double();
    lm_mat *V = lm_mat_new(d, d, &cd), *HV = lm_mat_new(d, d, &cd);
    lm_prfwd *F = lm_pr_fwd_new(P);
    lm_num a;
    lm_num_init(&a, &cd);
    int rc = 0;
    double lam = 0;
    /* deterministic start with all components present */
    for (int q = 0; q < d * d; q++) lm_mat_set_d(V, q / d, q % d, 1.0 + 0.37 * (double)((q * 7919) % 13));
    for (int it = 0; it < 60 && !rc; it++) {
        lm_mat_frob(&a, V);
        double nv = lm_num_get_d(&a);
        if (!(nv > 0) || !isfinite(nv)) {
            rc = 1;
            break;
        }
        lm_mat_scale_d(V, V, 1.0 / nv);
        rc = lm_pr_map_dir(HV, LM_PR_MAP_GRAD, F, P, M, V, 1e-5);
        lm_mat_frob(&a, HV);
        lam = lm_num_get_d(&a); /* ||H V|| with ||V|| = 1 */
        lm_mat_copy(V, HV);
    }
    lm_num_clear(&a);
    lm_pr_fwd_free(F);
    lm_mat_free(V);
    lm_mat_free(HV);
    *out = lam;
    return rc || !isfinite(lam);
}

int lm_prr_gd_mask(lm_mat *M, lm_prr_gdinfo *gi, lm_prr_inst *I, const lm_prr_def *r,
                   double lambda_prime, char *err, int errlen)
{
    int d = I->d;
    lm_prdata *P = I->P;
    lm_ctx cd = lm_ctx_double();
    P->lambda = lambda_prime * r->lambda_scale;
    memset(gi, 0, sizeof *gi);
    lm_mat *M0 = lm_mat_new(d, d, &cd);
    lm_pr_fill_mask(M0, LM_PR_M_ONES, NULL);
    int rc = lm_prr_hess_norm(&gi->Lhat, P, M0);
    if (rc || !(gi->Lhat > 0) || !isfinite(gi->Lhat)) {
        snprintf(err, (size_t)errlen, "Hessian norm at M_0 = 1 failed (L_hat = %g)", gi->Lhat);
        lm_mat_free(M0);
        return -1;
    }
    lm_pr_gdopt o = {r->steps, r->eta_c / gi->Lhat, r->momentum, 0};
    for (;;) {
        lm_pr_traj *tr = lm_pr_gd(P, M0, &o);
        int bad = tr->nonfinite >= 0 || !(tr->L[tr->T] <= tr->L[0]);
        if (!bad) {
            lm_mat_copy(M, tr->Mbest);
            gi->eta = o.eta;
            gi->tbest = tr->tbest;
            gi->first_exit = tr->first_exit;
            gi->L0 = tr->L[0];
            gi->Lbest = tr->L[tr->tbest];
            lm_pr_traj_free(tr);
            break;
        }
        lm_pr_traj_free(tr);
        if (++gi->halvings > 40) {
            snprintf(err, (size_t)errlen, "GD diverges even at eta = %g", o.eta);
            lm_mat_free(M0);
            return -1;
        }
        o.eta *= 0.5;
    }
    lm_mat_free(M0);
    return 0;
}

/* ---------------------------------------------------------------- errors */

/* ||f(Wt; X) - f0|| / ||f0|| for an arbitrary pruned weight Wt */
static double relerr_W(const lm_prdata *P, const lm_mat *Wt)
{
    lm_prdata *Q = lm_pr_convert(P, &P->ctx);
    lm_mat_copy(Q->W, Wt);
    lm_pr_prepare(Q);
    lm_mat *D = lm_mat_new(P->n, P->n, &P->ctx);
    lm_mat_sub(D, Q->f0, P->f0);
    lm_num a, b;
    lm_num_init(&a, &P->ctx);
    lm_num_init(&b, &P->ctx);
    lm_mat_frob(&a, D);
    lm_mat_frob(&b, P->f0);
    double e = lm_num_get_d(&a) / lm_num_get_d(&b);
    lm_num_clear(&a);
    lm_num_clear(&b);
    lm_mat_free(D);
    lm_pr_free(Q);
    return e;
}

static double relerr_M(const lm_prdata *P, const lm_mat *Mhat)
{
    lm_num v;
    lm_num_init(&v, &P->ctx);
    lm_pr_relerr(&v, P, Mhat);
    double e = lm_num_get_d(&v);
    lm_num_clear(&v);
    return e;
}

typedef struct {
    double v;
    int k;
} vk;

static int cmp_vk(const void *a, const void *b)
{
    const vk *x = a, *y = b;
    if (x->v < y->v) return -1;
    if (x->v > y->v) return 1;
    return x->k - y->k;
}

/* Wanda on one factor: within each column b, the floor(rho d) lowest
 * |W_ab| ||X_:,a|| set to 0 (ties by index) */
static void wanda(lm_mat *Wt, const lm_mat *Wf, const double *xn, double rho)
{
    int d = Wf->r, z = (int)floor(rho * d);
    vk *a = lm_xmalloc(sizeof *a * (size_t)d);
    lm_mat_copy(Wt, Wf);
    for (int b = 0; b < d; b++) {
        for (int q = 0; q < d; q++) {
            a[q].v = fabs(lm_mat_get_d(Wf, q, b)) * xn[q];
            a[q].k = q;
        }
        qsort(a, (size_t)d, sizeof *a, cmp_vk);
        for (int q = 0; q < z; q++) lm_mat_set_d(Wt, a[q].k, b, 0.0);
    }
    free(a);
}

void lm_prr_errors(double e[LM_PRR_NMETH][2], const lm_prr_inst *I, const lm_mat *Mgd, double rho)
{
    int d = I->d, n = I->n;
    lm_ctx cd = lm_ctx_double();
    lm_mat *Mh = lm_mat_new(d, d, &cd), *A = lm_mat_new(d, d, &cd);
    /* GD mask */
    lm_pr_binarise(Mh, Mgd, rho);
    e[0][0] = relerr_M(I->P, Mh);
    e[0][1] = relerr_M(I->Ph, Mh);
    /* magnitude: binarise |W| */
    for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++) lm_mat_set_d(A, a, b, fabs(lm_mat_get_d(I->P->W, a, b)));
    lm_pr_binarise(Mh, A, rho);
    e[1][0] = relerr_M(I->P, Mh);
    e[1][1] = relerr_M(I->Ph, Mh);
    /* Wanda on W_Q and W_K with the calibration column norms */
    double *xn = lm_xmalloc(sizeof(double) * (size_t)d);
    for (int a = 0; a < d; a++) {
        double s = 0;
        for (int i = 0; i < n; i++) {
            double x = lm_mat_get_d(I->P->X, i, a);
            s += x * x;
        }
        xn[a] = sqrt(s);
    }
    lm_mat *Q = lm_mat_new(d, d, &cd), *K = lm_mat_new(d, d, &cd);
    wanda(Q, I->WQ, xn, rho);
    wanda(K, I->WK, xn, rho);
    lm_mat_mul(A, Q, 0, K, 1);
    e[2][0] = relerr_W(I->P, A);
    e[2][1] = relerr_W(I->Ph, A);
    free(xn);
    lm_mat_free(Q);
    lm_mat_free(K);
    lm_mat_free(Mh);
    lm_mat_free(A);
}

/* ---------------------------------------------------------------- sweeps */

void lm_prr_out_clear(lm_prr_out *o)
{
    free(o->x);
    free(o->e);
    free(o->lambda_used);
    free(o->gi);
    free(o->reff);
    free(o->beta);
    free(o->theta);
    free(o->scale);
    memset(o, 0, sizeof *o);
}

static void out_alloc(lm_prr_out *o, int k)
{
    memset(o, 0, sizeof *o);
    o->npts = k;
    o->x = lm_xcalloc((size_t)k, sizeof(double));
    o->e = lm_xcalloc((size_t)k, sizeof *o->e);
    o->lambda_used = lm_xcalloc((size_t)k, sizeof(double));
    o->gi = lm_xcalloc((size_t)k, sizeof *o->gi);
    o->reff = lm_xcalloc((size_t)k, sizeof(double));
    o->beta = lm_xcalloc((size_t)k, sizeof(double));
    o->theta = lm_xcalloc((size_t)k, sizeof(double));
    o->scale = lm_xcalloc((size_t)k, sizeof(double));
}

static int finite_errs(double e[LM_PRR_NMETH][2])
{
    for (int m = 0; m < LM_PRR_NMETH; m++)
        if (!isfinite(e[m][0]) || !isfinite(e[m][1])) return 0;
    return 1;
}

/* the GD mask for r->lambda, or selected from the grid by the calibration error at r->rho */
static int mask_for(lm_mat *M, lm_prr_gdinfo *gi, double *lam, lm_prr_inst *I, const lm_prr_def *r,
                    char *err, int errlen)
{
    if (r->lambda >= 0) {
        *lam = r->lambda;
        return lm_prr_gd_mask(M, gi, I, r, r->lambda, err, errlen);
    }
    lm_ctx cd = lm_ctx_double();
    lm_mat *Mk = lm_mat_new(I->d, I->d, &cd);
    double best = HUGE_VAL;
    for (int k = 0; k < NLGRID; k++) {
        lm_prr_gdinfo g;
        if (lm_prr_gd_mask(Mk, &g, I, r, LAMBDA_GRID[k], err, errlen)) {
            lm_mat_free(Mk);
            return -1;
        }
        double e[LM_PRR_NMETH][2];
        lm_prr_errors(e, I, Mk, r->rho);
        if (e[0][0] < best) {
            best = e[0][0];
            *lam = LAMBDA_GRID[k];
            *gi = g;
            lm_mat_copy(M, Mk);
        }
    }
    lm_mat_free(Mk);
    if (!(best < HUGE_VAL)) {
        snprintf(err, (size_t)errlen, "no finite calibration error on the lambda' grid");
        return -1;
    }
    return 0;
}

static void inst_rec(lm_prr_out *o, int k, const lm_prr_inst *I)
{
    o->reff[k] = I->reff;
    o->beta[k] = I->beta;
    o->theta[k] = I->theta;
    o->scale[k] = I->scale;
}

int lm_prr_exec(lm_prr_out *o, const lm_prr_def *r, uint64_t seed, int quick, char *err,
                int errlen)
{
    static const int NS[] = {8, 16, 32, 64};
    int npts = r->kind == LM_PRR_RHO ? 9 : r->kind == LM_PRR_LAMBDA ? 13 : quick ? 3 : 4;
    out_alloc(o, npts);
    lm_ctx cd = lm_ctx_double();
    lm_mat *M = lm_mat_new(r->d, r->d, &cd);
    lm_prr_inst I;
    int rc = 0;
    if (r->kind != LM_PRR_N && lm_prr_inst_build(&I, r, r->n, seed, err, errlen)) {
        lm_mat_free(M);
        lm_prr_out_clear(o);
        return -1;
    }
    if (r->kind == LM_PRR_RHO) {
        lm_prr_gdinfo gi;
        double lam;
        rc = mask_for(M, &gi, &lam, &I, r, err, errlen);
        for (int k = 0; !rc && k < npts; k++) {
            o->x[k] = (double)(k + 1) / 10.0;
            lm_prr_errors(o->e[k], &I, M, o->x[k]);
            o->lambda_used[k] = lam;
            o->gi[k] = gi;
            inst_rec(o, k, &I);
        }
    } else if (r->kind == LM_PRR_LAMBDA) {
        for (int k = 0; !rc && k < npts; k++) {
            o->x[k] = pow(10.0, -5.0 + 0.5 * k);
            rc = lm_prr_gd_mask(M, &o->gi[k], &I, r, o->x[k], err, errlen);
            if (rc) break;
            lm_prr_errors(o->e[k], &I, M, r->rho);
            o->lambda_used[k] = o->x[k];
            inst_rec(o, k, &I);
        }
    } else {
        for (int k = 0; !rc && k < npts; k++) {
            o->x[k] = NS[k];
            if (lm_prr_inst_build(&I, r, NS[k], seed, err, errlen)) {
                rc = -1;
                break;
            }
            rc = mask_for(M, &o->gi[k], &o->lambda_used[k], &I, r, err, errlen);
            if (!rc) lm_prr_errors(o->e[k], &I, M, r->rho);
            inst_rec(o, k, &I);
            lm_prr_inst_clear(&I);
        }
    }
    if (r->kind != LM_PRR_N) lm_prr_inst_clear(&I);
    lm_mat_free(M);
    for (int k = 0; !rc && k < npts; k++)
        if (!finite_errs(o->e[k])) {
            snprintf(err, (size_t)errlen, "non-finite relative error at point %d", k);
            rc = -1;
        }
    if (rc) lm_prr_out_clear(o);
    return rc;
}

void lm_prr_csv(FILE *f, const lm_prr_def *r, const lm_prr_out *o)
{
    const char *xn = r->kind == LM_PRR_RHO ? "rho" : r->kind == LM_PRR_LAMBDA ? "lambda_prime" : "n";
    fprintf(f, "%s,gd_X,gd_Xheld,magnitude_X,magnitude_Xheld,wanda_X,wanda_Xheld,lambda_prime,"
               "eta,L_hat,halvings,t_best,first_exit,R_eff,beta,theta,scale\n", xn);
    for (int k = 0; k < o->npts; k++) {
        fprintf(f, "%.17g", o->x[k]);
        for (int m = 0; m < LM_PRR_NMETH; m++) fprintf(f, ",%.17g,%.17g", o->e[k][m][0], o->e[k][m][1]);
        fprintf(f, ",%.17g,%.17g,%.17g,%d,%d,%d,%.17g,%.17g,%.17g,%.17g\n", o->lambda_used[k],
                o->gi[k].eta, o->gi[k].Lhat, o->gi[k].halvings, o->gi[k].tbest, o->gi[k].first_exit,
                o->reff[k], o->beta[k], o->theta[k], o->scale[k]);
    }
}

int lm_prr_run(FILE *f, const lm_prr_def *r, uint64_t seed, char *err, int errlen)
{
    lm_prr_out o;
    if (lm_prr_exec(&o, r, seed, 0, err, errlen)) return -1;
    lm_prr_csv(f, r, &o);
    lm_prr_out_clear(&o);
    return 0;
}

/* ---------------------------------------------------------------- live entries */

const char *const lm_prlive_names[] = {"pr-fig2c", "pr-fig2a", "pr-fig2b", NULL};

static void cat(char *s, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cat(char *s, size_t n, const char *fmt, ...)
{
    size_t l = strlen(s);
    if (l + 1 >= n) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s + l, n - l, fmt, ap);
    va_end(ap);
}

static void series(lm_sbuf *b, const lm_prr_out *o)
{
    static const char *const DS[2] = {"X", "held-out X'"};
    for (int m = 0; m < LM_PRR_NMETH; m++)
        for (int s = 0; s < 2; s++) {
            char nm[64];
            snprintf(nm, sizeof nm, "%s (%s)", lm_prr_meth_name[m], DS[s]);
            for (int k = 0; k < o->npts; k++)
                if (o->e[k][m][s] > 0) lm_live_pt(b, nm, o->x[k], o->e[k][m][s]);
        }
}

/* points where the GD mask is strictly below method m on dataset s */
static int wins(const lm_prr_out *o, int m, int s)
{
    int w = 0;
    for (int k = 0; k < o->npts; k++) w += o->e[k][0][s] < o->e[k][m][s];
    return w;
}

static int nondecreasing(const lm_prr_out *o, int m, int s)
{
    for (int k = 1; k < o->npts; k++)
        if (o->e[k][m][s] < o->e[k - 1][m][s]) return 0;
    return 1;
}

int lm_prlive_run(lm_prlive *L, int k, int quick, uint64_t seed, char *err, int errlen)
{
    memset(L, 0, sizeof *L);
    if (k < 0 || k > 2) {
        snprintf(err, (size_t)errlen, "no live entry %d", k);
        return -1;
    }
    lm_prr_def r = *lm_prr_find(lm_prlive_names[k]);
    if (quick) r.steps = 300;
    lm_prr_out o;
    if (lm_prr_exec(&o, &r, seed, quick, err, errlen)) return -1;
    lm_sbuf b = {0};
    char cap[1600], summ[2400];
    summ[0] = 0;
    const char *setting =
        "Synthetic data of the paper: $W_Q=U S_4V^\\top$ and $W_K$ likewise from independent "
        "Gaussians, rescaled so the calibration logits have rms 2; $X$, $X'$ with $N(0,1)$ "
        "entries, non-causal softmax. GD mask: $M_0=\\mathbf 1$, momentum 0.9, "
        "$\\eta=1/\\hat L$ ($\\hat L$ the Hessian norm at $M_0$), best iterate, binarised at "
        "$\\rho$. Magnitude: smallest $|W_{ab}|$ pruned. Wanda: $W_Q$ and $W_K$ pruned "
        "separately by $|W_{ab}|\\,\\|X_{:,a}\\|_2$ within each column.";
    if (r.kind == LM_PRR_RHO) {
        snprintf(cap, sizeof cap,
                 "Figure 2(c) of the paper, live: relative error of the pruned attention matrix vs "
                 "the pruning ratio $\\rho$ ($n=d=%d$, %d GD steps, $\\lambda'=%g$ selected on $X$). %s",
                 r.n, r.steps, o.lambda_used[0], setting);
        lm_live_fig_begin(&b, "pr-fig2c", 0, 1, "pruning ratio rho", "relative error",
                          "pr-fig2c: relative error vs rho", cap);
        series(&b, &o);
        int k5 = 4; /* rho = 0.5 */
        cat(summ, sizeof summ,
            "n = d = %d, %d steps, lambda' = %g (selected on X), eta = %.3g (L_hat = %.3g, %d "
            "halvings). At rho = 0.5 on held-out X': GD mask %.3g, magnitude %.3g, Wanda %.3g "
            "(on X: %.3g, %.3g, %.3g). On X' the GD mask beats magnitude at %d of 9 ratios and "
            "Wanda at %d of 9 (on X: %d and %d).",
            r.n, r.steps, o.lambda_used[0], o.gi[0].eta, o.gi[0].Lhat, o.gi[0].halvings,
            o.e[k5][0][1], o.e[k5][1][1], o.e[k5][2][1], o.e[k5][0][0], o.e[k5][1][0],
            o.e[k5][2][0], wins(&o, 1, 1), wins(&o, 2, 1), wins(&o, 1, 0), wins(&o, 2, 0));
        if (o.gi[0].first_exit >= 0)
            cat(summ, sizeof summ, " The relaxed mask leaves [0,1]^{dxd} at step %d (no projection); "
                "best iterate t = %d.", o.gi[0].first_exit, o.gi[0].tbest);
        for (int m = 0; m < LM_PRR_NMETH; m++)
            if (!nondecreasing(&o, m, 1))
                cat(summ, sizeof summ, " The %s error on X' is not monotone in rho.",
                    lm_prr_meth_name[m]);
    } else if (r.kind == LM_PRR_LAMBDA) {
        snprintf(cap, sizeof cap,
                 "Figure 2(a) of the paper, live: relative error vs the regularisation $\\lambda'$ "
                 "at $\\rho=%g$ ($n=d=%d$, %d GD steps); magnitude and Wanda do not depend on "
                 "$\\lambda'$ and are flat references. %s",
                 r.rho, r.n, r.steps, setting);
        lm_live_fig_begin(&b, "pr-fig2a", 1, 1, "lambda'", "relative error",
                          "pr-fig2a: relative error vs lambda'", cap);
        series(&b, &o);
        int am = 0;
        for (int q = 1; q < o.npts; q++)
            if (o.e[q][0][1] < o.e[am][0][1]) am = q;
        double lo = o.e[am][0][1], l0 = o.e[0][0][1], l1 = o.e[o.npts - 1][0][1];
        int ushape = am > 0 && am < o.npts - 1 && l0 > lo * 1.01 && l1 > lo * 1.01;
        cat(summ, sizeof summ,
            "n = d = %d, rho = %g, %d steps. GD-mask error on held-out X': %.3g at lambda' = "
            "1e-5, minimum %.3g at lambda' = %.3g, %.3g at lambda' = 10 (magnitude %.3g, Wanda "
            "%.3g). U-shape (interior minimum at least 1%% below both ends): %s.",
            r.n, r.rho, r.steps, l0, lo, o.x[am], l1, o.e[0][1][1], o.e[0][2][1],
            ushape ? "yes" : "no");
    } else {
        snprintf(cap, sizeof cap,
                 "Figure 2(b) of the paper, live: relative error vs the number of tokens $n$ at "
                 "$\\rho=%g$ ($d=%d$, %d GD steps, $\\lambda'$ selected on $X$ per $n$). %s",
                 r.rho, r.d, r.steps, setting);
        lm_live_fig_begin(&b, "pr-fig2b", 1, 1, "tokens n", "relative error",
                          "pr-fig2b: relative error vs n", cap);
        series(&b, &o);
        cat(summ, sizeof summ, "d = %d, rho = %g, %d steps. On held-out X' (GD / magnitude / Wanda):",
            r.d, r.rho, r.steps);
        for (int q = 0; q < o.npts; q++)
            cat(summ, sizeof summ, " n = %g: %.3g / %.3g / %.3g (lambda' %g)%s", o.x[q],
                o.e[q][0][1], o.e[q][1][1], o.e[q][2][1], o.lambda_used[q],
                q + 1 < o.npts ? ";" : ".");
        cat(summ, sizeof summ, " The GD mask beats magnitude at %d of %d n and Wanda at %d of %d.",
            wins(&o, 1, 1), o.npts, wins(&o, 2, 1), o.npts);
    }
    cat(summ, sizeof summ, " Data: R_eff = %.3g, beta = %.3g, theta = %.3g. Repeat: lemmata train %s --seed %llu%s.",
        o.reff[0], o.beta[0], o.theta[0], r.name, (unsigned long long)seed,
        quick ? " --steps 300" : "");
    L->name = lm_prlive_names[k];
    L->doc = k == 0   ? "The attention-pruning paper's Figure 2(c) live: relative error vs pruning "
                        "ratio for the GD-found mask, magnitude pruning and Wanda, on calibration "
                        "and held-out data."
             : k == 1 ? "The attention-pruning paper's Figure 2(a) live: relative error of the "
                        "GD-found mask vs the regularisation lambda' at rho = 0.5."
                      : "The attention-pruning paper's Figure 2(b) live: relative error vs the "
                        "number of tokens n at rho = 0.5.";
    L->steps = r.steps;
    L->prec = 53;
    L->series = b.s;
    L->summary = lm_xstrdup(summ);
    lm_prr_out_clear(&o);
    return 0;
}

