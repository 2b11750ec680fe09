/* md_runs.c -- named live training runs of the mirror-descent paper, their
 * double-vs-MPFR drift, and the live part of `lemmata verify` for that paper
 * (see lm_mdruns.h).
 *
 * Readings chosen here (the catalogue leaves them open):
 *  - R2 (the paper's runs) use W(0) = 0, the paper's single zero-init run;
 *    the 100-seed Gaussian start W(0)_ab ~ N(0, 1) is `--set init=1`.
 *  - R1 uses eta = 0.1 (the paper's step; the catalogue's grid is 1e-3..1)
 *    and the cone level mu = mu_0; the radius R0 defaults to 2 (the
 *    catalogue's preferred start for the theorems) and is a --set.
 *  - When the data of a seed do not meet R1's hypotheses (tied scores, alpha
 *    not locally optimal, cone level unreachable) or their SVM does not
 *    certify in double, the next derived seed lm_hash_u64(seed, a),
 *    a = 1, 2, ..., is tried (up to 20); the attempt is reported.
 *  - The directional divergence of the 3x3 figure normalises both arguments
 *    in the trajectory's p-norm and uses psi of the trajectory's p
 *    (the authors' bregman_div with the run's p).
 *
 * Measured, not assumed: an unnormalised double run either freezes at its
 * start or not at all.  In the log-growth regime the increment of Theta per
 * step relative to Theta is about 1/(k rho_k) (rho_k the margin), far above
 * 2^-53 for any feasible k; so whether eta grad L falls below half an ulp of
 * Theta is decided by the starting radius (about rho = 30 at p = 2, eta =
 * 0.1).  md-r1-freeze therefore runs md-r1-p2 from several radii. */
#include "lm_mdruns.h"
#include "lm_claim.h"
#include "lm_live.h"
#include "lm_md.h"
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const double lm_mdr_pprime[LM_MDR_NPP] = {1.75, 2.0, 3.0};

/* clang-format off */
#define PAPER_RUN(nm, pp, st)                                                                     \
    {nm, "R2: the paper's normalised l_p-AttGD, p = " #pp ", eta = 0.1, n = 6, T = 8, d = 10, "   \
         "W(0) = 0",                                                                              \
     LM_MDR_PAPER, 6, 8, 10, pp, 0.1, 1, 0.0, 0.0, 0.0, st}
#define R1_RUN(nm, pp)                                                                            \
    {nm, "R1: unnormalised l_p-AttGD, p = " #pp ", eta = 0.1, from the cone level mu_0 at "       \
         "R0 = 2 ||W_mm||_p",                                                                     \
     LM_MDR_R1, 6, 8, 10, pp, 0.1, 0, 0.0, 2.0, -1.0, 2000}

const lm_mdr_def lm_mdr_runs[] = {
    PAPER_RUN("md-p1.75", 1.75, 1500),
    PAPER_RUN("md-p2", 2, 2000),
    PAPER_RUN("md-p3", 3, 20000),
    R1_RUN("md-r1-p1.75", 1.75),
    R1_RUN("md-r1-p2", 2),
    R1_RUN("md-r1-p3", 3),
    {NULL, NULL, LM_MDR_PAPER, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};
/* clang-format on */

const lm_mdr_def *lm_mdr_find(const char *name)
{
    for (int k = 0; lm_mdr_runs[k].name; k++)
        if (!strcmp(lm_mdr_runs[k].name, name)) return &lm_mdr_runs[k];
    return NULL;
}

static double nan_d(void)
{
    return nan("");
}

/* The settings and their ranges (the same declarations as a claim's parameters,
 * lm_claim.h).  The sizes' upper ends are resource bounds: the runs solve l_p-AttSVMs on
 * n(T-1) constraints in d^2 unknowns (four of them for a paper run, up to 20 data seeds for
 * an R1 run), whose double phase slows down sharply past these; the record keeps W(k) at
 * every iterate (see run_fits). */
static const lm_param_def mdr_settings[] = {
    {"steps", 0, "iterations (at most 1000000: the record of every iterate)", NULL, "int [0, 1000000]"},
    {"eta", 0, "step size (a diverging run fails)", NULL, "(0, 1e300]"},
    {"p", 0, "p of the l_p potential (from 1.05 to 4: the l_p-AttSVMs' double phase converges slowly outside, tens of seconds to minutes a solve)", NULL, "[1.05, 4]"},
    {"n", 0, "samples (at most 16: the l_p-AttSVMs)", NULL, "int [1, 16]"},
    {"T", 0, "tokens per sample (at most 32: the l_p-AttSVMs)", NULL, "int [2, 32]"},
    {"d", 0, "dimension (at most 32: the l_p-AttSVMs and the record of W(k))", NULL, "int [1, 32]"},
    {"init", 0, "R2: 0 -> W(0) = 0; s > 0 -> W(0)_ab ~ N(0, s^2)", NULL, "[0, 1e6]"},
    {"R0", 0, "R1: ||W(0)||_p in units of ||W_mm||_p", NULL, "(0, 1e6]"},
    {"mu", 0, "R1: cone level D_psi(Wbar_mm, Wbar(0)) (mu <= 0: -mu times mu_0)", NULL, "[-1e6, 1)"},
    {"normalized", 0, "1: the paper's normalised step, 0: l_p-AttGD", NULL, "int [0, 1]"},
    {NULL, 0, NULL, NULL, NULL}};

int lm_mdr_set(lm_mdr_def *r, const char *kv, char *err, int errlen)
{
    size_t l;
    const char *v;
    if (lm_live_split(kv, &l, &v, err, errlen)) return -1;
#define IS(s) (l == strlen(s) && strncmp(kv, s, l) == 0)
    const lm_param_def *p = NULL;
    for (int k = 0; mdr_settings[k].name && !p; k++)
        if (IS(mdr_settings[k].name)) p = &mdr_settings[k];
    if (!p) {
        snprintf(err, (size_t)errlen,
                 "unknown run setting '%.*s' (known: steps eta p n T d init R0 mu normalized)",
                 (int)l, kv);
        return -1;
    }
    if ((r->kind == LM_MDR_PAPER && (IS("R0") || IS("mu"))) ||
        (r->kind == LM_MDR_R1 && IS("init"))) {
        snprintf(err, (size_t)errlen, "run setting '%.*s' does not apply to %s (%s run)", (int)l,
                 kv, r->name, r->kind == LM_MDR_R1 ? "an R1" : "a paper");
        return -1;
    }
    lm_range rg;
    char rs[96];
    double x;
    if (lm_param_range(&rg, p)) {
        snprintf(err, (size_t)errlen, "internal error: run setting %s declares no valid range", p->name);
        return -1;
    }
    if (lm_live_parse_num(v, &x) || !lm_range_contains(&rg, x)) {
        snprintf(err, (size_t)errlen, "run %s: %s takes %s, not '%.40s' (bad value in --set)", r->name,
                 p->name, lm_range_str(rs, sizeof rs, &rg), v);
        return -1;
    }
    int *ip = IS("steps")        ? &r->steps
              : IS("n")          ? &r->n
              : IS("T")          ? &r->T
              : IS("d")          ? &r->d
              : IS("normalized") ? &r->normalized
                                 : NULL;
    double *dp = IS("eta")    ? &r->eta
                 : IS("p")    ? &r->p
                 : IS("init") ? &r->init
                 : IS("R0")   ? &r->R0
                              : &r->mu;
    if (ip) *ip = (int)x;
    else *dp = x;
    return 0;
#undef IS
}

void lm_mdr_info_clear(lm_mdr_info *I)
{
    if (!I) return;
    free(I->alpha);
    memset(I, 0, sizeof *I);
}

/* about 60 iterates a decade (all of the first 30, the first and the last) */
int lm_mdr_keep(int t, int steps)
{
    if (t <= 30 || t == steps) return 1;
    const double k = 60.0 / log(10.0);
    return floor(k * log((double)t)) != floor(k * log((double)t - 1.0));
}

/* ---------- the start: data and W(0) in double ---------- */

typedef struct {
    lm_mddata *D; /* double; alpha = argmax of the scores (R1: the instance's) */
    lm_mat *W0;   /* double */
    lm_mat *Wmm;  /* R1: the instance's certified l_p-AttSVM solution (double), else NULL */
    double gap;   /* its duality gap */
    int attempt;
    double mu0, mu;
} start;

static void start_clear(start *S)
{
    lm_md_data_free(S->D);
    lm_mat_free(S->W0);
    lm_mat_free(S->Wmm);
    memset(S, 0, sizeof *S);
}

static int make_start(start *S, const lm_mdr_def *r, uint64_t seed, char *err, int errlen)
{
    memset(S, 0, sizeof *S);
    lm_ctx cd = lm_ctx_double();
    if (r->kind == LM_MDR_PAPER) {
        lm_rng g;
        lm_rng_init(&g, seed);
        S->D = lm_md_gen_paper(&g, r->n, r->T, r->d, &cd);
        S->W0 = lm_mat_new(r->d, r->d, &cd);
        if (r->init > 0)
            for (int a = 0; a < r->d; a++)
                for (int b = 0; b < r->d; b++)
                    lm_mat_set_d(S->W0, a, b, r->init * lm_rng_normal(&g));
        return 0;
    }
    char why[256] = "";
    for (int a = 0; a < 20; a++) {
        lm_rng g;
        lm_rng_init(&g, a ? lm_hash_u64(seed, (uint64_t)a) : seed);
        lm_md_inst I;
        int rc = lm_md_inst_r1(&I, &g, &cd, r->n, r->T, r->d, r->p, r->mu, r->R0, why, sizeof why);
        if (rc == 0) {
            S->D = I.D;
            S->W0 = I.W;
            I.D = NULL;
            I.W = NULL;
            S->Wmm = lm_mat_dup(I.svm.W);
            S->gap = I.svm.gap;
            S->attempt = a;
            S->mu0 = I.k.mu0;
            S->mu = I.mu;
            lm_md_inst_clear(&I);
            return 0;
        }
        lm_md_inst_clear(&I);
        /* rc < 0 (the double SVM did not certify) is skipped like an unmet
         * hypothesis: a live run needs one certified instance; the attempt
         * is reported */
    }
    snprintf(err, (size_t)errlen, "no data seed of 20 gave a certified R1 instance (last: %s)",
             why);
    return -1;
}

/* ---------- the potential's helpers (in the matrix's context) ---------- */

/* ||A||_e of A rounded to double (reporting only: norms of iterates, and
 * q-norms of gradients and of steps formed in the context); scaled by the
 * largest entry, so no overflow */
static double dnorm(const lm_mat *A, double e)
{
    int n = A->r * A->c;
    double *a = lm_xmalloc((size_t)n * sizeof *a), m = 0, s = 0;
    lm_mat_get_array(a, A);
    for (int k = 0; k < n; k++) m = fmax(m, fabs(a[k]));
    if (m > 0 && isfinite(m))
        for (int k = 0; k < n; k++)
            if (a[k] != 0) s += pow(fabs(a[k]) / m, e);
    free(a);
    return m > 0 && isfinite(m) ? m * pow(s, 1.0 / e) : m;
}

/* x^p - y^p summed entrywise for |W| against |W0| without cancellation:
 * |w|^p - |w0|^p = |w0|^p expm1(p log1p((|w| - |w0|)/|w0|)); then
 * ||W||_p - ||W0||_p = y expm1(log1p(S / y^p) / p), y = ||W0||_p.  b0 holds
 * |w0|^p, y and yp = y^p. */
static void growth_entrywise(lm_num *r, const lm_mat *W, const lm_mat *W0, const lm_mat *b0,
                             const lm_num *y, const lm_num *yp, double p)
{
    lm_ctx c = lm_mat_ctx(W);
    lm_num s, a, b, t, pp;
    lm_num_inits(&c, &s, &a, &b, &t, &pp, (lm_num *)NULL);
    lm_num_set_d(&pp, p);
    lm_num_set_d(&s, 0.0);
    for (int i = 0; i < W->r; i++)
        for (int j = 0; j < W->c; j++) {
            lm_mat_get(&a, W, i, j);
            lm_num_abs(&a, &a);
            lm_mat_get(&b, W0, i, j);
            lm_num_abs(&b, &b);
            if (lm_num_iszero(&b)) {
                if (lm_num_iszero(&a)) continue;
                lm_num_pow(&t, &a, &pp);
            } else {
                if (lm_num_cmp(&a, &b) == 0) continue;
                lm_num_sub(&t, &a, &b);
                lm_num_div(&t, &t, &b);
                lm_num_log1p(&t, &t);
                lm_num_mul(&t, &t, &pp);
                lm_num_expm1(&t, &t);
                lm_mat_get(&b, b0, i, j);
                lm_num_mul(&t, &t, &b);
            }
            lm_num_add(&s, &s, &t);
        }
    if (lm_num_iszero(y)) {
        lm_num_set_d(&t, 1.0 / p);
        lm_num_pow(r, &s, &t);
    } else {
        lm_num_div(&s, &s, yp);
        lm_num_log1p(&s, &s);
        lm_num_div(&s, &s, &pp);
        lm_num_expm1(&s, &s);
        lm_num_mul(r, &s, y);
    }
    lm_num_clears(&s, &a, &b, &t, &pp, (lm_num *)NULL);
}

/* references Ubar_j = W_mm / ||W_mm||_p (trajectory p) and P_j = |Ubar_j|^p / p */
typedef struct {
    int nu;
    int idx[LM_MDR_NPP + 1]; /* info slot of each reference */
    lm_mat *U[LM_MDR_NPP + 1], *P[LM_MDR_NPP + 1];
} refs;

static void refs_clear(refs *R)
{
    for (int j = 0; j < R->nu; j++) {
        lm_mat_free(R->U[j]);
        lm_mat_free(R->P[j]);
    }
    memset(R, 0, sizeof *R);
}

static void refs_add(refs *R, const lm_mat *Wmm, double p, int slot)
{
    lm_ctx c = lm_mat_ctx(Wmm);
    int j = R->nu++;
    R->idx[j] = slot;
    R->U[j] = lm_mat_dup(Wmm);
    R->P[j] = lm_mat_new(Wmm->r, Wmm->c, &c);
    lm_num v, e;
    lm_num_inits(&c, &v, &e, (lm_num *)NULL);
    lm_md_pnorm(&v, Wmm, p);
    lm_num_set_d(&e, 1.0);
    lm_num_div(&v, &e, &v);
    lm_mat_scale(R->U[j], R->U[j], &v);
    lm_num_set_d(&e, p);
    for (int a = 0; a < Wmm->r; a++)
        for (int b = 0; b < Wmm->c; b++) {
            lm_mat_get(&v, R->U[j], a, b);
            if (lm_num_iszero(&v)) continue;
            lm_num_abs(&v, &v);
            lm_num_pow(&v, &v, &e);
            lm_num_div_d(&v, &v, p);
            lm_mat_set(R->P[j], a, b, &v);
        }
    lm_num_clears(&v, &e, (lm_num *)NULL);
}

/* out[j] = D_psi(Ubar_j, W / ||W||_p) = sum_e [ |u|^p/p + (p-1)/p |wbar|^p - sgn(w)|wbar|^(p-1) u
 * ], with |wbar|^(p-1) = a_e / S^((p-1)/p), |wbar|^p = a_e |w/m| / S, a_e = |w/m|^(p-1), S = sum
 * a_e |w/m| (m = max |w|: no overflow); NaN at W = 0 */
static void dir_div(double *out, const lm_mat *W, const refs *R, double p)
{
    lm_ctx c = lm_mat_ctx(W);
    int n = W->r * W->c;
    lm_num m, e, S, cS, v, t, s;
    lm_num_inits(&c, &m, &e, &S, &cS, &v, &t, &s, (lm_num *)NULL);
    lm_mat_max_abs(&m, W);
    if (lm_num_iszero(&m)) {
        for (int j = 0; j < R->nu; j++) out[j] = nan_d();
        lm_num_clears(&m, &e, &S, &cS, &v, &t, &s, (lm_num *)NULL);
        return;
    }
    lm_num *A = lm_nums_new(n, &c), *B = lm_nums_new(n, &c);
    int *sg = lm_xcalloc((size_t)n, sizeof *sg);
    lm_num_set_d(&e, p);
    lm_num_add_d(&e, &e, -1.0);
    lm_num_set_d(&S, 0.0);
    for (int a = 0, k = 0; a < W->r; a++)
        for (int b = 0; b < W->c; b++, k++) {
            lm_mat_get(&v, W, a, b);
            sg[k] = lm_num_sgn(&v);
            if (!sg[k]) continue;
            lm_num_abs(&v, &v);
            lm_num_div(&v, &v, &m);
            lm_num_pow(&A[k], &v, &e);
            lm_num_mul(&B[k], &A[k], &v);
            lm_num_add(&S, &S, &B[k]);
        }
    /* cS = S^((p-1)/p) */
    lm_num_set_d(&t, p);
    lm_num_div(&t, &e, &t);
    lm_num_pow(&cS, &S, &t);
    for (int j = 0; j < R->nu; j++) {
        lm_num_set_d(&s, 0.0);
        for (int a = 0, k = 0; a < W->r; a++)
            for (int b = 0; b < W->c; b++, k++) {
                lm_mat_get(&t, R->P[j], a, b);
                lm_num_add(&s, &s, &t);
                if (!sg[k]) continue;
                /* (p-1)/p |wbar|^p */
                lm_num_div(&t, &B[k], &S);
                lm_num_mul(&t, &t, &e);
                lm_num_div_d(&t, &t, p);
                lm_num_add(&s, &s, &t);
                /* - sgn(w) |wbar|^(p-1) u */
                lm_num_div(&t, &A[k], &cS);
                lm_mat_get(&v, R->U[j], a, b);
                lm_num_mul(&t, &t, &v);
                if (sg[k] > 0)
                    lm_num_sub(&s, &s, &t);
                else
                    lm_num_add(&s, &s, &t);
            }
        out[j] = lm_num_get_d(&s);
    }
    free(sg);
    lm_nums_free(A, n);
    lm_nums_free(B, n);
    lm_num_clears(&m, &e, &S, &cS, &v, &t, &s, (lm_num *)NULL);
}

/* log(1 - mean_i max_t s_it) in the context, and mean_i max_t s_it */
static void saturation(double *lg, double *mean, const lm_attn_fwd *F, int full)
{
    lm_ctx c = lm_mat_ctx(F->logs);
    int n = F->n, T = F->T;
    lm_num v, m, s, acc, mx;
    lm_num_inits(&c, &v, &m, &s, &acc, &mx, (lm_num *)NULL);
    double msum = 0;
    int first_acc = 1;
    for (int i = 0; i < n; i++) {
        int a = 0;
        for (int t = 1; t < T; t++)
            if (lm_mat_get_d(F->logs, i, t) > lm_mat_get_d(F->logs, i, a)) a = t;
        msum += exp(lm_mat_get_d(F->logs, i, a));
        if (!full) continue;
        /* log(1 - s_ia) = LSE_{t != a} log s_it */
        int first = 1;
        for (int t = 0; t < T; t++) {
            if (t == a) continue;
            lm_mat_get(&v, F->logs, i, t);
            if (first || lm_num_cmp(&v, &m) > 0) lm_num_set(&m, &v);
            first = 0;
        }
        lm_num_set_d(&s, 0.0);
        for (int t = 0; t < T; t++) {
            if (t == a) continue;
            lm_mat_get(&v, F->logs, i, t);
            lm_num_sub(&v, &v, &m);
            lm_num_exp(&v, &v);
            lm_num_add(&s, &s, &v);
        }
        lm_num_log(&s, &s);
        lm_num_add(&s, &s, &m);
        if (first_acc) {
            lm_num_set(&acc, &s);
            first_acc = 0;
        } else { /* acc = LSE(acc, s) */
            lm_num_max(&mx, &acc, &s);
            lm_num_sub(&acc, &acc, &mx);
            lm_num_exp(&acc, &acc);
            lm_num_sub(&s, &s, &mx);
            lm_num_exp(&s, &s);
            lm_num_add(&acc, &acc, &s);
            lm_num_log(&acc, &acc);
            lm_num_add(&acc, &acc, &mx);
        }
    }
    *mean = msum / n;
    *lg = full && !first_acc ? lm_num_get_d(&acc) - log((double)n) : nan_d();
    lm_num_clears(&v, &m, &s, &acc, &mx, (lm_num *)NULL);
}

/* ---------- one run in one context ---------- */

typedef struct {
    const lm_mdr_def *r;
    lm_ctx ctx;
    lm_mddata *D;
    lm_mat *W0, *W, *Th, *Th0, *Tprev, *G, *b0;
    lm_num y, yp; /* ||W(0)||_p and its p-th power */
    lm_attn_fwd *F;
    lm_md_par par;
    lm_mat **keepW; /* copies of W(k) at the full iterates (steps+1 slots) */
    int steps;
    const lm_mdr_given *given; /* given start and iterate hook (NULL: none) */
} runner;

static void runner_free(runner *R)
{
    if (!R->D) return;
    if (R->keepW)
        for (int t = 0; t <= R->steps; t++) lm_mat_free(R->keepW[t]);
    free(R->keepW);
    lm_attn_fwd_free(R->F);
    lm_mat_free(R->W0);
    lm_mat_free(R->W);
    lm_mat_free(R->Th);
    lm_mat_free(R->Th0);
    lm_mat_free(R->Tprev);
    lm_mat_free(R->G);
    lm_mat_free(R->b0);
    lm_num_clears(&R->y, &R->yp, (lm_num *)NULL);
    lm_md_data_free(R->D);
    memset(R, 0, sizeof *R);
}

static void runner_init(runner *R, const lm_mdr_def *r, const start *S, const lm_ctx *ctx)
{
    memset(R, 0, sizeof *R);
    R->r = r;
    R->ctx = *ctx;
    R->steps = r->steps;
    R->D = lm_md_data_convert(S->D, ctx);
    int d = r->d;
    R->W0 = lm_mat_new(d, d, ctx);
    lm_mat_copy(R->W0, S->W0); /* exact: the same numbers in every context */
    R->W = lm_mat_dup(R->W0);
    R->Th = lm_mat_new(d, d, ctx);
    lm_md_grad_psi(R->Th, R->W0, r->p);
    R->Th0 = lm_mat_dup(R->Th);
    R->Tprev = lm_mat_new(d, d, ctx);
    R->G = lm_mat_new(d, d, ctx);
    R->b0 = lm_mat_new(d, d, ctx);
    lm_num_inits(ctx, &R->y, &R->yp, (lm_num *)NULL);
    lm_num v, e;
    lm_num_inits(ctx, &v, &e, (lm_num *)NULL);
    lm_num_set_d(&e, r->p);
    lm_num_set_d(&R->yp, 0.0);
    for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++) {
            lm_mat_get(&v, R->W0, a, b);
            if (lm_num_iszero(&v)) continue;
            lm_num_abs(&v, &v);
            lm_num_pow(&v, &v, &e);
            lm_mat_set(R->b0, a, b, &v);
            lm_num_add(&R->yp, &R->yp, &v);
        }
    lm_md_pnorm(&R->y, R->W0, r->p);
    lm_num_clears(&v, &e, (lm_num *)NULL);
    R->F = lm_md_fwd_new(R->D);
    R->par.p = r->p;
    R->par.eta = r->eta;
    R->par.normalized = r->normalized;
    R->par.loss = LM_ATTN_LOGISTIC;
    R->keepW = lm_xcalloc((size_t)r->steps + 1, sizeof *R->keepW);
}

/* ||W||_p (rounded) and ||W||_p - ||W(0)||_p: entrywise in double (and
 * MPFR below 128 bits), a plain difference in MPFR from 128 bits on (its
 * error, 2^-128 ||W||_p, is far below the growth of any step here) */
static double runner_growth(const runner *R, const lm_mat *W, double *norm)
{
    lm_num g, v;
    lm_num_inits(&R->ctx, &g, &v, (lm_num *)NULL);
    if (R->ctx.backend == LM_DOUBLE) {
        growth_entrywise(&g, W, R->W0, R->b0, &R->y, &R->yp, R->r->p);
        if (norm) *norm = dnorm(W, R->r->p);
    } else {
        lm_md_pnorm(&v, W, R->r->p);
        if (R->ctx.prec < 128)
            growth_entrywise(&g, W, R->W0, R->b0, &R->y, &R->yp, R->r->p);
        else
            lm_num_sub(&g, &v, &R->y);
        if (norm) *norm = lm_num_get_d(&v);
    }
    double r = lm_num_get_d(&g);
    lm_num_clears(&g, &v, (lm_num *)NULL);
    return r;
}

/* Records iterate k and, unless last, steps to k+1 (Tprev keeps Theta(k)). */
static int runner_iter(runner *R, lm_mdr_rec *x, int k, int last, int full, char *err, int errlen)
{
    x->t = k;
    x->norm = x->growth = x->D_own = x->log_1m_maxs = x->log_grad = x->step = nan_d();
    for (int j = 0; j < LM_MDR_NPP; j++) x->D[j] = nan_d();
    if (full) {
        x->growth = runner_growth(R, R->W, &x->norm);
        R->keepW[k] = lm_mat_dup(R->W);
    }
    int rc;
    if (!last) {
        lm_mat_copy(R->Tprev, R->Th);
        rc = lm_md_step(R->W, R->Th, R->F, R->D, &R->par);
    } else {
        rc = lm_md_forward(R->F, R->D, R->W, R->par.loss);
    }
    if (rc) {
        snprintf(err, (size_t)errlen, "a value is not finite at iterate %d (step too large?)", k);
        return -1;
    }
    x->log_loss = lm_num_get_d(&R->F->logL);
    if (R->given && R->given->each && R->keepW[k] && R->given->each(R->given->cx, k, R->keepW[k], &R->F->logL, err, errlen))
        return -1;
    saturation(&x->log_1m_maxs, &x->mean_maxs, R->F, full);
    if (full) {
        lm_num ls;
        lm_num_init(&ls, &R->ctx);
        lm_md_grad_scaled(R->G, &ls, R->F, R->D);
        double q = R->r->p / (R->r->p - 1.0);
        x->log_grad = lm_num_isfinite(&ls) ? lm_num_get_d(&ls) + log(dnorm(R->G, q)) : -HUGE_VAL;
        lm_num_clear(&ls);
        if (!last) { /* Theta(k+1) - Theta(k), formed in the context */
            lm_mat_sub(R->G, R->Th, R->Tprev);
            x->step = dnorm(R->G, q);
        }
    }
    if (!isfinite(x->log_loss)) {
        snprintf(err, (size_t)errlen, "the loss is not finite at iterate %d", k);
        return -1;
    }
    return 0;
}

/* alpha of the references: R2 the final argmax softmax (F at the last
 * iterate), R1 the instance's */
static void final_alpha(int *alpha, const runner *R)
{
    for (int i = 0; i < R->D->n; i++) {
        if (R->r->kind == LM_MDR_R1 && !(R->given && R->given->D)) { /* given data: no instance alpha */
            alpha[i] = R->D->alpha[i];
            continue;
        }
        int a = 0;
        for (int t = 1; t < R->D->T; t++)
            if (lm_mat_get_d(R->F->logs, i, t) > lm_mat_get_d(R->F->logs, i, a)) a = t;
        alpha[i] = a;
    }
}

/* the references of the run's alpha in ctx R->ctx: the p' grid (R2) and p */
static int make_refs(refs *Rf, lm_mdr_info *I, runner *R, const int *alpha, int own_only,
                     const start *S, char *err, int errlen)
{
    memset(Rf, 0, sizeof *Rf);
    for (int i = 0; i < R->D->n; i++) R->D->alpha[i] = alpha[i];
    const double p = R->r->p;
    for (int j = 0; j <= LM_MDR_NPP; j++) {
        I->svm_rc[j] = -1;
        I->svm_gap[j] = I->wmm_norm[j] = nan_d();
    }
    for (int j = 0; j <= LM_MDR_NPP; j++) {
        if (j < LM_MDR_NPP && own_only) continue;
        if (j == LM_MDR_NPP) { /* the own p on the grid: share that solution */
            int same = -1;
            for (int i = 0; i < LM_MDR_NPP; i++)
                if (lm_mdr_pprime[i] == p && I->svm_rc[i] >= 0) same = i;
            if (same >= 0) {
                I->svm_rc[j] = I->svm_rc[same];
                I->svm_gap[j] = I->svm_gap[same];
                I->wmm_norm[j] = I->wmm_norm[same];
                for (int k = 0, nu = Rf->nu; k < nu; k++)
                    if (Rf->idx[k] == same) refs_add(Rf, Rf->U[k], p, j);
                break;
            }
        }
        if (j == LM_MDR_NPP && S && S->Wmm && R->ctx.backend == LM_DOUBLE) {
            /* R1 in double: the instance's certified solution of the same problem */
            I->svm_rc[j] = LM_MDSVM_OK;
            I->svm_gap[j] = S->gap;
            I->wmm_norm[j] = dnorm(S->Wmm, p);
            refs_add(Rf, S->Wmm, p, j);
            continue;
        }
        lm_md_svm s;
        int rc = lm_md_svm_solve(&s, R->D, j < LM_MDR_NPP ? lm_mdr_pprime[j] : p, 0);
        I->svm_rc[j] = rc;
        I->svm_gap[j] = s.gap;
        if (rc == LM_MDSVM_OK) {
            I->wmm_norm[j] = lm_num_get_d(&s.norm);
            refs_add(Rf, s.W, p, j);
        }
        lm_md_svm_clear(&s);
    }
    if (I->svm_rc[LM_MDR_NPP] != LM_MDSVM_OK) {
        snprintf(err, (size_t)errlen,
                 "the l_p-AttSVM of the selected tokens (p = %g) could not be solved (code %d)", p,
                 I->svm_rc[LM_MDR_NPP]);
        return -1;
    }
    return 0;
}

/* D of the kept iterates of R against Rf into rec */
static void fill_D(lm_mdr_rec *rec, const runner *R, const refs *Rf)
{
    double out[LM_MDR_NPP + 1];
    for (int t = 0; t <= R->steps; t++) {
        if (!R->keepW[t]) continue;
        dir_div(out, R->keepW[t], Rf, R->r->p);
        for (int k = 0; k < Rf->nu; k++) {
            int s = Rf->idx[k];
            if (s < LM_MDR_NPP)
                rec[t].D[s] = out[k];
            else
                rec[t].D_own = out[k];
        }
    }
}

static void info_alpha(lm_mdr_info *I, const int *alpha, const start *S)
{
    int n = S->D->n;
    I->n = n;
    free(I->alpha);
    I->alpha = lm_xmalloc((size_t)n * sizeof *I->alpha);
    I->alpha_opt = 0;
    lm_ctx cd = lm_ctx_double();
    lm_mddata *E = lm_md_data_convert(S->D, &cd);
    lm_md_set_alpha_opt(E); /* argmax of the scores (-1 on ties) */
    for (int i = 0; i < n; i++) {
        I->alpha[i] = alpha[i];
        I->alpha_opt += E->alpha[i] == alpha[i];
    }
    lm_md_data_free(E);
    I->attempt = S->attempt;
    I->mu0 = S->mu0;
    I->mu = S->mu;
}

/* the start of run r from seed, or from G's data and initial point (lm_mdr_given): 0, else -1
 * (S cleared, message in err).  Given data with no given W(0): a paper run's own rule (0, or
 * N(0, init^2) entries drawn from a generator of the seed alone, as the data are not drawn);
 * an R1 run builds its start from its own data's l_p-AttSVM and needs both. */
static int begin_start(start *S, const lm_mdr_def *r, uint64_t seed, const lm_mdr_given *G, char *err,
                       int errlen)
{
    if (G && G->D) {
        memset(S, 0, sizeof *S);
        if (G->D->n != r->n || G->D->T != r->T || G->D->d != r->d ||
            (G->W0 && (G->W0->r != r->d || G->W0->c != r->d))) {
            snprintf(err, (size_t)errlen, "internal error: the given start does not have the run's sizes");
            return -1;
        }
        if (r->kind == LM_MDR_R1 && !G->W0) {
            snprintf(err, (size_t)errlen, "an R1 run builds W(0) from the l_p-AttSVM of its own data: "
                                          "give --init with --data");
            return -1;
        }
        S->D = lm_md_data_convert(G->D, &G->D->ctx);
        lm_md_set_alpha_opt(S->D);
        lm_ctx cd = lm_ctx_double(), cw = G->W0 ? lm_mat_ctx(G->W0) : cd;
        S->W0 = lm_mat_new(r->d, r->d, &cw);
        if (G->W0) lm_mat_copy(S->W0, G->W0);
        else if (r->init > 0) {
            lm_rng g;
            lm_rng_init(&g, seed);
            for (int a = 0; a < r->d; a++)
                for (int b = 0; b < r->d; b++) lm_mat_set_d(S->W0, a, b, r->init * lm_rng_normal(&g));
        }
        return 0;
    }
    if (make_start(S, r, seed, err, errlen)) {
        start_clear(S);
        return -1;
    }
    if (G && G->W0) {
        if (G->W0->r != r->d || G->W0->c != r->d) {
            snprintf(err, (size_t)errlen, "internal error: the given W(0) is not d x d");
            start_clear(S);
            return -1;
        }
        lm_ctx c = lm_mat_ctx(G->W0);
        lm_mat_free(S->W0);
        S->W0 = lm_mat_new(r->d, r->d, &c);
        lm_mat_copy(S->W0, G->W0);
    }
    return 0;
}

int lm_mdr_start(lm_mddata **D, lm_mat **W0, const lm_mdr_def *r, uint64_t seed, const lm_mdr_given *G,
                 char *err, int errlen)
{
    start S;
    *D = NULL;
    *W0 = NULL;
    if (begin_start(&S, r, seed, G, err, errlen)) return -1;
    *D = S.D;
    *W0 = S.W0;
    S.D = NULL;
    S.W0 = NULL;
    start_clear(&S);
    return 0;
}

/* the tokens R's last iterate selects (n of them: the caller frees) and the info they give */
static int *run_alpha(lm_mdr_info *I, const runner *R, const start *S, int n)
{
    int *alpha = lm_xmalloc((size_t)n * sizeof *alpha);
    final_alpha(alpha, R);
    info_alpha(I, alpha, S);
    I->R0norm = lm_num_get_d(&R->y);
    return alpha;
}

/* hands I to the caller (info), or clears it */
static void give_info(lm_mdr_info *info, lm_mdr_info *I)
{
    if (info)
        *info = *I;
    else
        lm_mdr_info_clear(I);
}

/* bytes of a d x d matrix in ctx (entries; MPFR: the struct and its limbs) */
static double mat_bytes(int d, const lm_ctx *ctx)
{
    double e = ctx->backend == LM_DOUBLE ? 8.0 : 32.0 + 8.0 * (double)((ctx->prec + 63) / 64);
    return (double)d * d * e + 64.0;
}

/* The record of a run keeps W(k) at every iterate it evaluates fully (all of them unless
 * sparse): refused past 1 GiB (two runners for a drift: ctx2 != NULL).  0, else -1 (err). */
static int run_fits(const lm_mdr_def *r, const lm_ctx *ctx, const lm_ctx *ctx2, int sparse, char *err,
                    int errlen)
{
    double kept = 0;
    for (int t = 0; t <= r->steps; t++) kept += !sparse || lm_mdr_keep(t, r->steps);
    double b = kept * mat_bytes(r->d, ctx) + (r->steps + 1.0) * sizeof(lm_mdr_rec);
    if (ctx2) b += kept * mat_bytes(r->d, ctx2) + (r->steps + 1.0) * (sizeof(lm_mdr_rec) + sizeof(lm_mdr_drift_rec));
    if (b <= 1073741824.0) return 0;
    snprintf(err, (size_t)errlen,
             "%d steps at d = %d would keep about %.0f MB of iterates W(k) (at most 1024 MB): "
             "fewer --steps, a smaller d or a lower precision",
             r->steps, r->d, b / 1048576.0);
    return -1;
}

int lm_mdr_exec(lm_mdr_rec **rec, lm_mdr_info *info, const lm_mdr_def *r, uint64_t seed,
                const lm_ctx *ctx, int sparse, char *err, int errlen)
{
    return lm_mdr_exec_given(rec, info, r, seed, ctx, sparse, NULL, err, errlen);
}

int lm_mdr_exec_given(lm_mdr_rec **rec, lm_mdr_info *info, const lm_mdr_def *r, uint64_t seed,
                      const lm_ctx *ctx, int sparse, const lm_mdr_given *G, char *err, int errlen)
{
    *rec = NULL;
    if (run_fits(r, ctx, NULL, sparse, err, errlen)) return -1;
    if (G && G->each && sparse) {
        snprintf(err, (size_t)errlen, "internal error: an iterate hook needs a full (not sparse) run");
        return -1;
    }
    start S;
    if (begin_start(&S, r, seed, G, err, errlen)) return -1;
    runner R;
    runner_init(&R, r, &S, ctx);
    R.given = G;
    lm_mdr_rec *x = lm_xcalloc((size_t)r->steps + 1, sizeof *x);
    int rc = 0;
    for (int t = 0; t <= r->steps && !rc; t++)
        rc = runner_iter(&R, &x[t], t, t == r->steps, !sparse || lm_mdr_keep(t, r->steps), err,
                         errlen);
    lm_mdr_info I;
    memset(&I, 0, sizeof I);
    if (!rc) {
        int *alpha = run_alpha(&I, &R, &S, r->n);
        refs Rf;
        rc = make_refs(&Rf, &I, &R, alpha, r->kind == LM_MDR_R1, &S, err, errlen);
        if (!rc) fill_D(x, &R, &Rf);
        else if (G && G->D) { /* given data need not be separable: the run stands without D */
            fprintf(stderr, "lemmata: %s; the divergence columns D_* are NaN\n", err);
            err[0] = 0;
            rc = 0;
        }
        refs_clear(&Rf);
        free(alpha);
    }
    runner_free(&R);
    start_clear(&S);
    if (rc) {
        free(x);
        lm_mdr_info_clear(&I);
        return rc;
    }
    give_info(info, &I);
    *rec = x;
    return 0;
}

void lm_mdr_csv_header(FILE *f)
{
    fprintf(f, "iterate,loss,log_loss,norm_p,norm_growth,D_p1.75,D_p2,D_p3,D_own,mean_max_s,"
               "log_1m_mean_max_s,log_grad_q,step_q\n");
}

void lm_mdr_csv_row(FILE *f, const lm_mdr_rec *x)
{
    fprintf(f, "%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", x->t,
            exp(x->log_loss), x->log_loss, x->norm, x->growth, x->D[0], x->D[1], x->D[2], x->D_own,
            x->mean_maxs, x->log_1m_maxs, x->log_grad, x->step);
}

/* ---------- double against MPFR ---------- */

/* max |A| over entries */
static void max_abs(lm_num *r, const lm_mat *A)
{
    lm_mat_max_abs(r, A);
}

/* the drift quantities of iterate k (before the step), in MPFR */
static void drift_at(lm_mdr_drift_rec *x, const runner *A, const runner *B, lm_mat *Td, lm_mat *Td0,
                     lm_mat *Wd, lm_mat *U, int full)
{
    const lm_ctx *c = &B->ctx;
    lm_num a, b;
    lm_num_inits(c, &a, &b, (lm_num *)NULL);
    lm_mat_copy(Td, A->Th); /* exact: double -> MPFR */
    /* theta: max|Theta_d - Theta_m| / max|Theta_m| */
    lm_mat_sub(U, Td, B->Th);
    max_abs(&a, U);
    max_abs(&b, B->Th);
    if (lm_num_iszero(&a))
        x->theta = 0.0;
    else if (lm_num_iszero(&b))
        x->theta = INFINITY;
    else {
        lm_num_div(&a, &a, &b);
        x->theta = lm_num_get_d(&a);
    }
    /* disp: the displacement error */
    lm_mat_sub(U, Td, Td0);
    lm_mat_sub(U, U, B->Th);
    lm_mat_add(U, U, B->Th0);
    max_abs(&a, U);
    lm_mat_sub(U, B->Th, B->Th0);
    max_abs(&b, U);
    if (lm_num_iszero(&b))
        x->disp = lm_num_iszero(&a) ? nan_d() : HUGE_VAL;
    else {
        lm_num_div(&a, &a, &b);
        x->disp = lm_num_get_d(&a);
    }
    x->growth_d = x->growth_m = x->D_d = x->D_m = nan_d();
    if (full) {
        lm_mat_copy(Wd, A->W);
        x->growth_d = runner_growth(B, Wd, NULL);
    }
    lm_num_clears(&a, &b, (lm_num *)NULL);
}

/* entries the double step left unchanged while the MPFR step moved them */
static void count_frozen(lm_mdr_drift_rec *x, const runner *A, const runner *B)
{
    lm_num u, v;
    lm_num_inits(&B->ctx, &u, &v, (lm_num *)NULL);
    int fr = 0, mv = 0, ch = 0;
    for (int a = 0; a < B->Th->r; a++)
        for (int b = 0; b < B->Th->c; b++) {
            lm_mat_get(&u, B->Th, a, b);
            lm_mat_get(&v, B->Tprev, a, b);
            int moved = lm_num_cmp(&u, &v) != 0;
            int same = lm_mat_get_d(A->Th, a, b) == lm_mat_get_d(A->Tprev, a, b);
            mv += moved;
            ch += !same;
            fr += moved && same;
        }
    x->frozen = fr;
    x->moved = mv;
    x->changed = ch;
    lm_num_clears(&u, &v, (lm_num *)NULL);
}

int lm_mdr_drift(lm_mdr_rec **rd, lm_mdr_rec **rm, lm_mdr_drift_rec **dr, lm_mdr_info *info,
                 const lm_mdr_def *r, uint64_t seed, mpfr_prec_t bits, int sparse, char *err,
                 int errlen)
{
    *rd = *rm = NULL;
    *dr = NULL;
    lm_ctx cd = lm_ctx_double(), cm = lm_ctx_mpfr(bits);
    if (run_fits(r, &cd, &cm, sparse, err, errlen)) return -1;
    start S;
    if (begin_start(&S, r, seed, NULL, err, errlen)) return -1;
    runner A, B;
    runner_init(&A, r, &S, &cd);
    runner_init(&B, r, &S, &cm);
    size_t ns = (size_t)r->steps + 1;
    lm_mdr_rec *xd = lm_xcalloc(ns, sizeof *xd), *xm = lm_xcalloc(ns, sizeof *xm);
    lm_mdr_drift_rec *x = lm_xcalloc(ns, sizeof *x);
    lm_mat *Td = lm_mat_new(r->d, r->d, &cm), *Td0 = lm_mat_new(r->d, r->d, &cm);
    lm_mat *Wd = lm_mat_new(r->d, r->d, &cm), *U = lm_mat_new(r->d, r->d, &cm);
    lm_mat_copy(Td0, A.Th0);
    int rc = 0;
    for (int t = 0; t <= r->steps && !rc; t++) {
        int full = !sparse || lm_mdr_keep(t, r->steps), last = t == r->steps;
        drift_at(&x[t], &A, &B, Td, Td0, Wd, U, full);
        char e2[200];
        if ((rc = runner_iter(&A, &xd[t], t, last, full, e2, sizeof e2))) {
            snprintf(err, (size_t)errlen, "double run: %s", e2);
            break;
        }
        if ((rc = runner_iter(&B, &xm[t], t, last, full, e2, sizeof e2))) {
            snprintf(err, (size_t)errlen, "MPFR run: %s", e2);
            break;
        }
        x[t].growth_m = xm[t].growth;
        if (last)
            x[t].frozen = x[t].moved = x[t].changed = -1;
        else
            count_frozen(&x[t], &A, &B);
    }
    lm_mdr_info I;
    memset(&I, 0, sizeof I);
    if (!rc) {
        int *alpha = run_alpha(&I, &A, &S, r->n), *am = lm_xmalloc((size_t)r->n * sizeof *am);
        final_alpha(am, &B);
        I.alpha_agree = !memcmp(alpha, am, (size_t)r->n * sizeof *am);
        refs Rd, Rm;
        lm_mdr_info Im;
        memset(&Im, 0, sizeof Im);
        /* the double run's own records against double references (p' = p) */
        rc = make_refs(&Rd, &I, &A, alpha, 1, &S, err, errlen);
        if (!rc) fill_D(xd, &A, &Rd);
        /* both runs against the MPFR reference (p' = p) of the double run's alpha */
        if (!rc)
            rc = make_refs(&Rm, &Im, &B, alpha, 1, &S, err, errlen);
        else
            memset(&Rm, 0, sizeof Rm);
        if (!rc) {
            fill_D(xm, &B, &Rm);
            /* the own-p reference only */
            refs Ro;
            memset(&Ro, 0, sizeof Ro);
            for (int k = 0; k < Rm.nu; k++)
                if (Rm.idx[k] == LM_MDR_NPP) refs_add(&Ro, Rm.U[k], r->p, LM_MDR_NPP);
            double out[1];
            for (int t = 0; t <= r->steps; t++) {
                x[t].D_m = xm[t].D_own;
                if (!A.keepW[t]) continue;
                lm_mat_copy(Wd, A.keepW[t]);
                dir_div(out, Wd, &Ro, r->p);
                x[t].D_d = out[0];
            }
            refs_clear(&Ro);
        }
        refs_clear(&Rd);
        refs_clear(&Rm);
        lm_mdr_info_clear(&Im);
        free(alpha);
        free(am);
    }
    lm_mat_free(Td);
    lm_mat_free(Td0);
    lm_mat_free(Wd);
    lm_mat_free(U);
    runner_free(&A);
    runner_free(&B);
    start_clear(&S);
    if (rc) {
        free(xd);
        free(xm);
        free(x);
        lm_mdr_info_clear(&I);
        return rc;
    }
    give_info(info, &I);
    *rd = xd;
    *rm = xm;
    *dr = x;
    return 0;
}

int lm_mdr_frozen_from(const lm_mdr_drift_rec *dr, int steps)
{
    int from = -1;
    for (int t = steps - 1; t >= 0; t--) {
        if (dr[t].moved > 0 && dr[t].changed == 0)
            from = t;
        else
            break;
    }
    return from;
}

/* ---------- the live part of `lemmata verify` ---------- */

const char *const lm_mdlive_names[] = {"md-paper", "md-p2-drift", "md-r1-freeze", NULL};

typedef lm_sbuf sbuf;

/* the same with a fixed y range "LO:HI" */
static void fig_begin_r(sbuf *b, const char *tag, int logx, int logy, const char *xl,
                        const char *yl, const char *title, const char *caption, const char *yrange)
{
    lm_live_printf(b, "#figure\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\n", tag, logx, logy, xl, yl, title,
              caption, yrange);
}

/* a positive point for a log axis */
static void ptpos(sbuf *b, const char *name, double x, double y)
{
    if (y > 0) lm_live_pt(b, name, x, y);
}

static double reldiff(double d, double m)
{
    if (isnan(d) || isnan(m)) return nan_d();
    if (d == m) return 0.0;
    return fabs(d - m) / fabs(m);
}

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

static const char *const PAPER_NAMES[LM_MDR_NPP] = {"md-p1.75", "md-p2", "md-p3"};

static int live_paper(lm_mdlive *L, int quick, uint64_t seed, char *err, int errlen)
{
    lm_mdr_rec *x[LM_MDR_NPP] = {NULL, NULL, NULL};
    lm_mdr_info I[LM_MDR_NPP];
    int K[LM_MDR_NPP];
    memset(I, 0, sizeof I);
    lm_ctx cd = lm_ctx_double();
    for (int k = 0; k < LM_MDR_NPP; k++) {
        lm_mdr_def r = *lm_mdr_find(PAPER_NAMES[k]);
        if (quick) r.steps /= 10;
        K[k] = r.steps;
        if (lm_mdr_exec(&x[k], &I[k], &r, seed, &cd, 1, err, errlen)) {
            char e2[300];
            snprintf(e2, sizeof e2, "%s: %s", PAPER_NAMES[k], err);
            snprintf(err, (size_t)errlen, "%s", e2);
            for (int j = 0; j < k; j++) {
                free(x[j]);
                lm_mdr_info_clear(&I[j]);
            }
            return -1;
        }
    }
    sbuf b = {0};
    for (int k = 0; k < LM_MDR_NPP; k++) {
        double p = lm_mdr_pprime[k];
        char tag[32], title[160], cap[1200];
        snprintf(tag, sizeof tag, "dirbreg-p%g", p);
        snprintf(title, sizeof title, "md-p%g: D_psi(Wbar_mm^(p'), Wbar(k)), trajectory p = %g", p,
                 p);
        snprintf(
            cap, sizeof cap,
            "The paper's 3$\\times$3 figure, row $p=%g$: directional Bregman divergence "
            "$D_\\psi(\\bar W^{(p')}_{mm},\\bar W(k))$ along the normalised $\\ell_{%g}$-AttGD "
            "run (zero init, $\\eta=0.1$, log axes), where $W^{(p')}_{mm}$ solves the "
            "$\\ell_{p'}$-AttSVM of the tokens selected at the end of the run "
            "($\\alpha_i=\\arg\\max_t s_{it}(K)$), both arguments are normalised in the "
            "$\\ell_{%g}$ norm and $\\psi=\\frac1{%g}\\|\\cdot\\|_{%g}^{%g}$.  The paper expects "
            "only the matched $p'=%g$ to approach 0.",
            p, p, p, p, p, p, p);
        lm_live_fig_begin(&b, tag, 1, 1, "iterate k", "D_psi(Wbar_mm^(p'), Wbar(k))", title, cap);
        for (int j = 0; j < LM_MDR_NPP; j++) {
            char nm[64];
            snprintf(nm, sizeof nm, "p' = %g%s", lm_mdr_pprime[j], j == k ? " (matched)" : "");
            for (int t = 1; t <= K[k]; t++)
                if (lm_mdr_keep(t, K[k])) ptpos(&b, nm, t, x[k][t].D[j]);
        }
    }
    lm_live_fig_begin(&b, "norm", 1, 1, "iterate k", "||W(k)||_p", "md-p*: norm growth",
              "$\\|W(k)\\|_p$ of the three runs (log axes) against the bound "
              "$(\\eta k)^{1/(p-1)}$ of the normalised step from $W(0)=0$ (dashed: "
              "$\\|\\Theta(k)\\|_q\\le\\eta k$ and $\\|W\\|_p=\\|\\Theta\\|_q^{1/(p-1)}$).  The "
              "runs leave the bound once $\\|\\nabla\\mathcal L\\|_q$ falls below the "
              "normaliser's $\\epsilon=2^{-52}$: from then on the step is "
              "$\\eta\\nabla\\mathcal L/\\epsilon$ and the norm grows only logarithmically.");
    for (int k = 0; k < LM_MDR_NPP; k++) {
        char nm[48], bd[64];
        snprintf(nm, sizeof nm, "p = %g", lm_mdr_pprime[k]);
        snprintf(bd, sizeof bd, "~(eta k)^(1/(p-1)), p = %g", lm_mdr_pprime[k]);
        for (int t = 1; t <= K[k]; t++)
            if (lm_mdr_keep(t, K[k])) {
                ptpos(&b, nm, t, x[k][t].norm);
                lm_live_pt(&b, bd, t, pow(0.1 * t, 1.0 / (lm_mdr_pprime[k] - 1.0)));
            }
    }
    lm_live_fig_begin(&b, "loss", 1, 0, "iterate k", "train loss L(W(k))", "md-p*: train loss",
              "Logistic train loss $\\mathcal L(W(k))$ of the three runs (log $k$ axis).  It "
              "levels off at $\\frac1n\\sum_i\\ell(\\gamma_{i\\alpha_i})>0$, the loss of the "
              "selected tokens; a later drop is a change of the selected token of a sample.");
    for (int k = 0; k < LM_MDR_NPP; k++) {
        char nm[48];
        snprintf(nm, sizeof nm, "p = %g", lm_mdr_pprime[k]);
        for (int t = 1; t <= K[k]; t++)
            if (lm_mdr_keep(t, K[k])) lm_live_pt(&b, nm, t, exp(x[k][t].log_loss));
    }
    lm_live_fig_begin(&b, "saturation", 1, 1, "iterate k", "1 - mean_i max_t s_it",
              "md-p*: saturation of the softmax",
              "Distance of the mean maximal softmax probability from 1, "
              "$1-\\frac1n\\sum_i\\max_ts_{it}(k)$ (log axes; the paper plots "
              "$\\frac1n\\sum_i\\max_t s_{it}$, which hides how close to 1 it gets), formed in "
              "the log domain as $\\log(1-s)=\\mathrm{LSE}_{t\\ne\\max}\\log s_{it}$.  Below the "
              "dashed line ($2^{-53}$) the probability rounds to 1 in double.");
    for (int k = 0; k < LM_MDR_NPP; k++) {
        char nm[48];
        snprintf(nm, sizeof nm, "p = %g", lm_mdr_pprime[k]);
        for (int t = 1; t <= K[k]; t++)
            if (lm_mdr_keep(t, K[k])) ptpos(&b, nm, t, exp(x[k][t].log_1m_maxs));
    }
    int Kmax = K[0] > K[1] ? (K[0] > K[2] ? K[0] : K[2]) : (K[1] > K[2] ? K[1] : K[2]);
    lm_live_pt(&b, "~2^-53", 1, ldexp(1.0, -53));
    lm_live_pt(&b, "~2^-53", Kmax, ldexp(1.0, -53));
    lm_live_fig_begin(&b, "grad", 1, 1, "iterate k", "||grad L(W(k))||_q",
              "md-p*: gradient norm and the normaliser's epsilon",
              "Dual norm $\\|\\nabla\\mathcal L(W(k))\\|_q$, $q=p/(p-1)$, of the three runs (log "
              "axes; formed from the scaled gradient, no underflow).  The normalised step is "
              "$\\eta\\nabla\\mathcal L/(\\|\\nabla\\mathcal L\\|_q+\\epsilon)$ with the "
              "authors' $\\epsilon=2^{-52}$ (dashed): below it the step shrinks with the "
              "gradient.");
    int eps_at[LM_MDR_NPP];
    for (int k = 0; k < LM_MDR_NPP; k++) {
        char nm[48];
        snprintf(nm, sizeof nm, "p = %g", lm_mdr_pprime[k]);
        eps_at[k] = -1;
        for (int t = 1; t <= K[k]; t++) {
            if (!lm_mdr_keep(t, K[k])) continue;
            ptpos(&b, nm, t, exp(x[k][t].log_grad));
            if (eps_at[k] < 0 && x[k][t].log_grad < -52.0 * log(2.0)) eps_at[k] = t;
        }
    }
    lm_live_pt(&b, "~eps = 2^-52", 1, ldexp(1.0, -52));
    lm_live_pt(&b, "~eps = 2^-52", Kmax, ldexp(1.0, -52));

    char summ[2000] = "";
    cat(summ, sizeof summ,
        "Normalised l_p-AttGD (eta = 0.1, W(0) = 0) on the paper's generator (n = 6, T = 8, "
        "d = 10), %d / %d / %d iterates in double for p = 1.75 / 2 / 3. Final directional "
        "divergences D_psi(Wbar_mm^(p'), Wbar(K)) for p' = 1.75, 2, 3:",
        K[0], K[1], K[2]);
    int matched_min = 0, matched_small = 0;
    for (int k = 0; k < LM_MDR_NPP; k++) {
        const double *D = x[k][K[k]].D;
        cat(summ, sizeof summ, "%s p = %g: %.3g, %.3g, %.3g", k ? ";" : "", lm_mdr_pprime[k], D[0],
            D[1], D[2]);
        int best = 1;
        for (int j = 0; j < LM_MDR_NPP; j++)
            if (j != k && !(D[k] < D[j])) best = 0;
        matched_min += best;
        matched_small += D[k] < 1e-2;
    }
    cat(summ, sizeof summ,
        ". The matched p' = p is the smallest in %d of 3 rows and below 1e-2 in %d of 3 (the "
        "catalogue's figure proxy). ||W(K)||_p = %.4g, %.4g, %.4g; selected tokens differ from "
        "the argmax of the scores in %d, %d, %d of %d samples.",
        matched_min, matched_small, x[0][K[0]].norm, x[1][K[1]].norm, x[2][K[2]].norm,
        I[0].n - I[0].alpha_opt, I[1].n - I[1].alpha_opt, I[2].n - I[2].alpha_opt, I[0].n);
    for (int k = 0; k < LM_MDR_NPP; k++) {
        if (eps_at[k] >= 0)
            cat(summ, sizeof summ,
                " p = %g: ||grad L||_q falls below the normaliser's eps = 2^-52 near k = %d, after "
                "which ||W||_p grows only logarithmically.",
                lm_mdr_pprime[k], eps_at[k]);
        else
            cat(summ, sizeof summ, " p = %g: ||grad L||_q stays above eps = 2^-52.",
                lm_mdr_pprime[k]);
    }
    cat(summ, sizeof summ,
        " Repeat: lemmata train md-p1.75 --steps %d --seed %llu (md-p2: --steps %d, md-p3: "
        "--steps %d).",
        K[0], (unsigned long long)seed, K[1], K[2]);
    L->name = "md-paper";
    L->doc = "The mirror-descent paper's l_p-AttGD experiment as live runs (R2): normalised "
             "mirror descent for p = 1.75, 2, 3 from W(0) = 0, in double, at the paper's lengths "
             "(1500, 2000, 20000 iterates; a tenth with --quick).";
    L->steps = K[2];
    L->prec = 53;
    L->series = b.s;
    L->summary = lm_xstrdup(summ);
    for (int k = 0; k < LM_MDR_NPP; k++) {
        free(x[k]);
        lm_mdr_info_clear(&I[k]);
    }
    return 0;
}

static int live_p2_drift(lm_mdlive *L, int quick, uint64_t seed, char *err, int errlen)
{
    lm_mdr_def r = *lm_mdr_find("md-p2");
    r.steps = quick ? 60 : 1000;
    lm_mdr_rec *xd, *xm;
    lm_mdr_drift_rec *x;
    lm_mdr_info I;
    if (lm_mdr_drift(&xd, &xm, &x, &I, &r, seed, 256, 1, err, errlen)) return -1;
    sbuf b = {0};
    lm_live_fig_begin(&b, "drift", 1, 1, "iterate k", "relative difference, double vs MPFR-256",
              "md-p2: double against MPFR-256, per iterate",
              "Relative differences between the paper's $p=2$ run in IEEE double and the same "
              "run wholly in MPFR at 256 bits (same data, same start), all formed in MPFR from "
              "the exactly converted double state: the dual variable "
              "$\\max|\\Theta_d-\\Theta_m|/\\max|\\Theta_m|$, the directional divergence "
              "$D_\\psi(\\bar W_{mm},\\bar W(k))$ and the norm $\\|W(k)\\|_2$ (log axes; zero "
              "differences are not drawn).  Dashed: the unit roundoff $2^{-53}$.");
    int K = r.steps, tt = 0, td = 0, tn = 0;
    double mt = 0, mD = 0, mn = 0;
    long frozen = 0;
    for (int t = 0; t <= K; t++) {
        double dD = reldiff(x[t].D_d, x[t].D_m), dn = reldiff(x[t].growth_d, x[t].growth_m);
        if (x[t].theta > mt) {
            mt = x[t].theta;
            tt = t;
        }
        if (dD > mD) {
            mD = dD;
            td = t;
        }
        if (dn > mn) {
            mn = dn;
            tn = t;
        }
        if (x[t].frozen > 0) frozen += x[t].frozen;
        if (t < 1 || !lm_mdr_keep(t, K)) continue;
        ptpos(&b, "Theta (dual variable)", t, x[t].theta);
        ptpos(&b, "D_psi(Wbar_mm, Wbar(k))", t, dD);
        ptpos(&b, "||W(k)||_2", t, dn);
    }
    lm_live_pt(&b, "~unit roundoff 2^-53", 1, ldexp(1.0, -53));
    lm_live_pt(&b, "~unit roundoff 2^-53", K, ldexp(1.0, -53));
    char summ[1400];
    snprintf(
        summ, sizeof summ,
        "md-p2 (normalised, p = 2, eta = 0.1, W(0) = 0), %d iterates in double and wholly in "
        "MPFR-256: largest relative difference of Theta %.2g (k = %d), of D_psi(Wbar_mm, "
        "Wbar(k)) %.2g (k = %d), of ||W(k)||_2 %.2g (k = %d). Entries of Theta left unchanged "
        "by a double step while the MPFR step moved them: %ld over the run (the normalised "
        "step has length about eta, far above one ulp). The MPFR run ends on the same selected "
        "tokens: %s. At k = %d: D_psi = %.4g (MPFR), ||W||_2 = %.5g, 1 - mean max softmax = "
        "%.3g, log L = %.6g.",
        K, mt, tt, mD, td, mn, tn, frozen, I.alpha_agree ? "yes" : "no", K, x[K].D_m, xm[K].norm,
        exp(xm[K].log_1m_maxs), xm[K].log_loss);
    cat(summ, sizeof summ, " Repeat: lemmata train md-p2 --drift 256 --steps %d --seed %llu.", K,
        (unsigned long long)seed);
    L->name = "md-p2-drift";
    L->doc = "The paper's p = 2 run (md-p2) in double and wholly in MPFR-256, compared per "
             "iterate: its first 1000 of 2000 iterates (an MPFR-256 step of this model costs "
             "milliseconds; 60 with --quick).";
    L->steps = K;
    L->prec = 256;
    L->series = b.s;
    L->summary = lm_xstrdup(summ);
    free(xd);
    free(xm);
    free(x);
    lm_mdr_info_clear(&I);
    return 0;
}

#define NRADII 4
static const double RADII[NRADII] = {2.0, 20.0, 28.0, 36.0};

static int live_r1_freeze(lm_mdlive *L, int quick, uint64_t seed, char *err, int errlen)
{
    lm_mdr_rec *xd[NRADII], *xm[NRADII];
    lm_mdr_drift_rec *x[NRADII];
    lm_mdr_info I[NRADII];
    memset(I, 0, sizeof I);
    lm_mdr_def r = *lm_mdr_find("md-r1-p2");
    r.steps = quick ? 10 : 150;
    int K = r.steps;
    for (int k = 0; k < NRADII; k++) {
        r.R0 = RADII[k];
        if (lm_mdr_drift(&xd[k], &xm[k], &x[k], &I[k], &r, seed, 256, 1, err, errlen)) {
            char e2[300];
            snprintf(e2, sizeof e2, "R0 = %g: %s", RADII[k], err);
            snprintf(err, (size_t)errlen, "%s", e2);
            for (int j = 0; j < k; j++) {
                free(xd[j]);
                free(xm[j]);
                free(x[j]);
                lm_mdr_info_clear(&I[j]);
            }
            return -1;
        }
    }
    sbuf b = {0};
    lm_live_fig_begin(&b, "growth", 1, 1, "iterate k", "||W(k)||_2 - ||W(0)||_2 (MPFR-256)",
              "md-r1-p2: exact norm growth",
              "Growth of the norm $\\|W(k)\\|_2-\\|W(0)\\|_2$ of unnormalised $\\ell_2$-AttGD "
              "($\\eta=0.1$) wholly in MPFR-256, from a start on the Bregman-cone level $\\mu_0$ "
              "at radius $R_0\\|W_{mm}\\|_2$ for four radii (log axes): the step is "
              "$\\eta\\nabla\\mathcal L\\sim e^{-R_0}$, so the norm grows by a nearly constant "
              "amount per step.");
    for (int k = 0; k < NRADII; k++) {
        char nm[48];
        snprintf(nm, sizeof nm, "R0 = %g", RADII[k]);
        for (int t = 1; t <= K; t++)
            if (lm_mdr_keep(t, K)) ptpos(&b, nm, t, x[k][t].growth_m);
    }
    fig_begin_r(&b, "growth-ratio", 1, 0, "iterate k", "growth in double / growth in MPFR",
                "md-r1-p2: the norm growth the double run reproduces",
                "The double run's norm growth as a fraction of the exact one, "
                "$(\\|W_d(k)\\|_2-\\|W(0)\\|_2)/(\\|W_m(k)\\|_2-\\|W(0)\\|_2)$, both formed "
                "in MPFR from the exact iterates: 1 when the double run is faithful, 0 when it is "
                "frozen (the catalogue's fake \\emph{norm stops growing}).",
                "-0.05:1.15");
    for (int k = 0; k < NRADII; k++) {
        char nm[48];
        snprintf(nm, sizeof nm, "R0 = %g", RADII[k]);
        for (int t = 1; t <= K; t++)
            if (lm_mdr_keep(t, K) && x[k][t].growth_m > 0)
                lm_live_pt(&b, nm, t, x[k][t].growth_d / x[k][t].growth_m);
    }
    fig_begin_r(&b, "disp", 1, 1, "iterate k", "relative error of Theta(k) - Theta(0) in double",
                "md-r1-p2: how much of the motion the double run gets wrong",
                "Relative error of the double run's displacement, "
                "$\\max|(\\Theta_d(k)-\\Theta_d(0))-(\\Theta_m(k)-\\Theta_m(0))|/"
                "\\max|\\Theta_m(k)-\\Theta_m(0)|$, formed in MPFR (log axes): 1 means the entry "
                "that moves most did not move at all in double.  Dashed: $2^{-53}$.",
                "1e-17:10");
    for (int k = 0; k < NRADII; k++) {
        char nm[48];
        snprintf(nm, sizeof nm, "R0 = %g", RADII[k]);
        for (int t = 1; t <= K; t++)
            if (lm_mdr_keep(t, K)) ptpos(&b, nm, t, x[k][t].disp);
    }
    lm_live_pt(&b, "~2^-53", 1, ldexp(1.0, -53));
    lm_live_pt(&b, "~2^-53", K, ldexp(1.0, -53));
    char cap[600], yr[32];
    snprintf(cap, sizeof cap,
             "Entries of $\\Theta$ (of $d^2=%d$) that the double step $k\\to k+1$ leaves "
             "unchanged while the MPFR step moves them: $\\eta\\,\\partial\\mathcal L/\\partial "
             "W_{ab}$ is below half an ulp of $\\Theta_{ab}$.  The counts do not change along a "
             "run: the margins grow only logarithmically, so a double run is frozen from its "
             "start or not at all.",
             r.d * r.d);
    snprintf(yr, sizeof yr, "-2:%d", r.d * r.d + 8);
    fig_begin_r(&b, "frozen", 1, 0, "iterate k", "frozen entries of Theta (double)",
                "md-r1-p2: frozen entries per step", cap, yr);
    for (int k = 0; k < NRADII; k++) {
        char nm[48];
        snprintf(nm, sizeof nm, "R0 = %g", RADII[k]);
        for (int t = 0; t < K; t++)
            if (lm_mdr_keep(t + 1, K)) lm_live_pt(&b, nm, t + 1, x[k][t].frozen);
    }
    char summ[2000] = "";
    cat(summ, sizeof summ,
        "Unnormalised l_2-AttGD (eta = 0.1) on R1 data (n = 6, T = 8, d = 10%s), ||W_mm||_2 = "
        "%.4g, from the cone level mu_0 = %.3g at R0 ||W_mm||_2, %d iterates in double and "
        "wholly in MPFR-256 for each R0:",
        I[0].attempt ? ", a derived data seed" : "", I[0].wmm_norm[LM_MDR_NPP], I[0].mu0, K);
    for (int k = 0; k < NRADII; k++) {
        int ff = lm_mdr_frozen_from(x[k], K);
        cat(summ, sizeof summ, "%s R0 = %g: ", k ? ";" : "", RADII[k]);
        if (ff >= 0)
            cat(summ, sizeof summ, "the double run is frozen from iterate %d (all %d entries)", ff,
                x[k][K - 1].moved);
        else
            cat(summ, sizeof summ, "never frozen, %d of %d entries frozen at the last step",
                x[k][K - 1].frozen, x[k][K - 1].moved);
        cat(summ, sizeof summ, ", displacement error %.2g, growth %.3g (double) vs %.3g (MPFR)",
            x[k][K].disp, x[k][K].growth_d, x[k][K].growth_m);
    }
    cat(summ, sizeof summ, ". Repeat: lemmata train md-r1-p2 --set R0=");
    for (int k = 0; k < NRADII; k++) cat(summ, sizeof summ, "%s%g", k ? "|" : "", RADII[k]);
    cat(summ, sizeof summ, " --drift 256 --steps %d --seed %llu.", K, (unsigned long long)seed);
    L->name = "md-r1-freeze";
    L->doc = "R1 of the mirror-descent paper (md-r1-p2, unnormalised l_2-AttGD from a Bregman-cone "
             "start) from radii R0 = 2, 20, 28, 36 times ||W_mm||_2, each for 150 iterates in "
             "double and wholly in MPFR-256: where the double run freezes.  150 iterates suffice: "
             "along a run the margins grow only logarithmically, so whether the double steps "
             "fall below half an ulp is decided by the start.";
    L->steps = K;
    L->prec = 256;
    L->series = b.s;
    L->summary = lm_xstrdup(summ);
    for (int k = 0; k < NRADII; k++) {
        free(xd[k]);
        free(xm[k]);
        free(x[k]);
        lm_mdr_info_clear(&I[k]);
    }
    return 0;
}

int lm_mdlive_run(lm_mdlive *L, int k, int quick, uint64_t seed, char *err, int errlen)
{
    memset(L, 0, sizeof *L);
    switch (k) {
    case 0:
        return live_paper(L, quick, seed, err, errlen);
    case 1:
        return live_p2_drift(L, quick, seed, err, errlen);
    case 2:
        return live_r1_freeze(L, quick, seed, err, errlen);
    default:
        snprintf(err, (size_t)errlen, "no live entry %d", k);
        return -1;
    }
}

