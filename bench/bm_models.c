/* bm_models.c -- the training steps `make bench` times, one per paper run:
 *
 *   dyn-softmax, dyn-gauss  dynamics paper: GD on W^Q, W^K, W^V (block W^V),
 *                           lm_opt_gd.step = lm_mha_gd_step (src/models/mha.c)
 *   ib-ngd                  implicit-bias paper: NGD on the d x d W, u fixed,
 *                           exponential loss (lm_attn_opt "ngd", src/train/ib_opt.c)
 *   ib-ngd-lowdim           the same run on the exact low-dimensional engine
 *                           the live runs use (lm_ibj_step "ngd", src/models/ibj.c)
 *   md                      mirror-descent paper: normalised l_p-AttGD, p = 3,
 *                           logistic loss (lm_md_step, src/models/md.c)
 *   pr                      pruning paper: GD with heavy-ball momentum on the
 *                           mask (the step of lm_pr_gd, src/models/pr.c)
 *   pc                      preconditioning paper: Algorithm 1's step on a
 *                           minibatch, grad(L_hat + R_hat) preconditioned by
 *                           Sigma_hat^-1 (lm_pc_emp, lm_pc_reg_S,
 *                           lm_pc_precond_step, src/models/pc.c)
 *   pc-run                  the same step as the live run pc-alg1 executes it:
 *                           lm_pctr_run in minibatch mode (its double fast
 *                           path), 10 iterations per call with the run's
 *                           per-iterate records; training set = the
 *                           minibatch (B = N = 100, so every iteration uses
 *                           the same samples as the peers, in a permuted order)
 *
 * Every instance is drawn in double from a seed and converted exactly into
 * the MPFR contexts, so all precisions and the Python peers start from the
 * same numbers. */
#include "bm.h"
#include "lm_attn.h"
#include "lm_ibgen.h"
#include "lm_ibj.h"
#include "lm_md.h"
#include "lm_pc.h"
#include "lm_pctr.h"
#include "lm_pr.h"
#include "lm_dyntrain.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int mat_flat(const lm_mat *A, double *out, int off, int cap)
{
    int n = A->r * A->c;
    if (off + n > cap) return off;
    lm_mat_get_array(out + off, A);
    return off + n;
}

static int mat_flat_mp(const lm_mat *A, mpfr_t *out, int off, int cap)
{
    int n = A->r * A->c;
    if (off + n > cap || !A->mp) return off;
    for (int i = 0; i < n; i++) mpfr_set(out[off + i], A->m[i], MPFR_RNDN);
    return off + n;
}

static void add_gemm(bm_gemm *g, int *ng, int cap, int m, int n, int k, int count)
{
    if (*ng < cap) g[(*ng)++] = (bm_gemm){m, n, k, count};
}

/* ================================================================ dynamics */

typedef struct {
    lm_mha *m;
    lm_mat **Q0, **K0, *V0; /* the initial point */
    lm_num eta;
    double eta_d;
    int mask;
} dyn_inst;

static void dyn_dims(bm_point pt, int *N, int *n, int *D, int *d, int *H)
{
    if (pt.paper == 0) { /* the run t2-softmax / t2-gauss */
        *N = 2; *n = 2; *D = 5; *d = 2; *H = 1;
    } else { /* the ladder (D = 32: the size the issue quotes for PyTorch) */
        *N = 4; *n = 4; *D = pt.size; *d = 8; *H = 2;
    }
}

static void dyn_save(dyn_inst *I)
{
    const lm_mha *m = I->m;
    I->Q0 = calloc((size_t)m->H, sizeof *I->Q0);
    I->K0 = calloc((size_t)m->H, sizeof *I->K0);
    for (int h = 0; h < m->H; h++) {
        I->Q0[h] = lm_mat_dup(m->Wq[h]);
        I->K0[h] = lm_mat_dup(m->Wk[h]);
    }
    I->V0 = lm_mat_dup(m->Wv);
}

static void *dyn_make(bm_point pt, uint64_t seed, lm_kernel kern)
{
    lm_dynrun_def r;
    memset(&r, 0, sizeof r);
    r.name = "bench";
    dyn_dims(pt, &r.N, &r.n, &r.D, &r.d, &r.H);
    r.kernel = kern;
    r.wv = LM_WV_BLOCK;
    r.mask = LM_VAR_ALL;
    r.steps = 1;
    r.sX = 1.0; r.sQK = 0.3; r.sV = 1.0; r.sO = 1.0;
    r.labels = 0; /* teacher */
    lm_ctx cd = lm_ctx_double();
    dyn_inst *I = calloc(1, sizeof *I);
    I->m = lm_dynrun_model(&r, seed, &cd);
    /* the run's own step size (1/||Hessian|| at the start) at the run's size;
     * on the ladder 0.05/D^2, which keeps 3000 steps finite at every D of
     * the ladder (the Hessian would cost O(params^2) gradients) */
    I->eta_d = pt.paper == 0 ? lm_dynrun_auto_eta(&r, seed) : 0.05 / ((double)r.D * r.D);
    I->mask = LM_VAR_ALL;
    lm_num_init(&I->eta, &cd);
    lm_num_set_d(&I->eta, I->eta_d);
    dyn_save(I);
    return I;
}

static void *dyn_make_softmax(bm_point pt, uint64_t seed) { return dyn_make(pt, seed, LM_SOFTMAX); }
static void *dyn_make_gauss(bm_point pt, uint64_t seed) { return dyn_make(pt, seed, LM_GAUSS); }

static void dyn_reset(void *p)
{
    dyn_inst *I = p;
    for (int h = 0; h < I->m->H; h++) {
        lm_mat_copy(I->m->Wq[h], I->Q0[h]);
        lm_mat_copy(I->m->Wk[h], I->K0[h]);
    }
    lm_mat_copy(I->m->Wv, I->V0);
}

static void *dyn_convert(const void *p, const lm_ctx *c)
{
    const dyn_inst *S = p;
    dyn_inst *I = calloc(1, sizeof *I);
    I->m = lm_mha_convert(S->m, c);
    I->mask = S->mask;
    I->eta_d = S->eta_d;
    lm_num_init(&I->eta, c);
    lm_num_set_d(&I->eta, S->eta_d);
    dyn_save(I);
    for (int h = 0; h < I->m->H; h++) {
        lm_mat_copy(I->Q0[h], S->Q0[h]);
        lm_mat_copy(I->K0[h], S->K0[h]);
    }
    lm_mat_copy(I->V0, S->V0);
    dyn_reset(I);
    return I;
}

static int dyn_step(void *p)
{
    dyn_inst *I = p;
    lm_opt_gd.step(I->m, I->mask, &I->eta);
    return !lm_num_isfinite(&I->m->f) || !lm_mat_isfinite(I->m->Wv);
}

static int dyn_iterate(void *p, double *out, int cap)
{
    const lm_mha *m = ((dyn_inst *)p)->m;
    int k = 0;
    for (int h = 0; h < m->H; h++) k = mat_flat(m->Wq[h], out, k, cap);
    for (int h = 0; h < m->H; h++) k = mat_flat(m->Wk[h], out, k, cap);
    return mat_flat(m->Wv, out, k, cap);
}

static int dyn_iterate_mp(void *p, mpfr_t *out, int cap)
{
    const lm_mha *m = ((dyn_inst *)p)->m;
    int k = 0;
    for (int h = 0; h < m->H; h++) k = mat_flat_mp(m->Wq[h], out, k, cap);
    for (int h = 0; h < m->H; h++) k = mat_flat_mp(m->Wk[h], out, k, cap);
    return mat_flat_mp(m->Wv, out, k, cap);
}

static void dyn_write(void *p, FILE *f)
{
    dyn_inst *I = p;
    lm_mha *m = I->m;
    dyn_reset(I);
    fprintf(f, "\"N\": %d, \"n\": %d, \"D\": %d, \"d\": %d, \"H\": %d, \"kernel\": \"%s\", \"cG\": ", m->N,
            m->n, m->D, m->d, m->H, m->kernel == LM_GAUSS ? "gauss" : "softmax");
    bm_json_num(f, m->cG);
    fputs(", \"wv\": \"block\", \"eta\": ", f);
    bm_json_num(f, I->eta_d);
    fputs(",\n", f);
    bm_json_mats(f, "X", m->X, m->N);
    fputs(",\n", f);
    bm_json_mat(f, "y", m->y);
    fputs(",\n", f);
    bm_json_mats(f, "Wq", m->Wq, m->H);
    fputs(",\n", f);
    bm_json_mats(f, "Wk", m->Wk, m->H);
    fputs(",\n", f);
    bm_json_mat(f, "Wv", m->Wv);
    fputs(",\n", f);
    bm_json_mat(f, "Wo", m->Wo);
}

static void dyn_free(void *p)
{
    dyn_inst *I = p;
    if (!I) return;
    for (int h = 0; h < I->m->H; h++) {
        lm_mat_free(I->Q0[h]);
        lm_mat_free(I->K0[h]);
    }
    free(I->Q0);
    free(I->K0);
    lm_mat_free(I->V0);
    lm_num_clear(&I->eta);
    lm_mha_free(I->m);
    free(I);
}

/* the products a minimal GD step on (W^Q, W^K, W^V) needs */
static int dyn_gemms(bm_point pt, bm_gemm *g, int cap)
{
    int N, n, D, d, H, k = 0;
    dyn_dims(pt, &N, &n, &D, &d, &H);
    const int c = N * H;
    add_gemm(g, &k, cap, H * D, 1, H * d, 1); /* u = W^V W^O */
    add_gemm(g, &k, cap, n, d, D, 2 * c);     /* X W^Q, X W^K */
    add_gemm(g, &k, cap, n, n, d, c);         /* logits */
    add_gemm(g, &k, cap, n, 1, D, c);         /* X u_h */
    add_gemm(g, &k, cap, n, d, n, 2 * c);     /* Gamma K, Gamma^T Q */
    add_gemm(g, &k, cap, D, d, n, 2 * c);     /* X^T (..) */
    add_gemm(g, &k, cap, n, D, n, c);         /* S X (blocks of B) */
    add_gemm(g, &k, cap, H * D, 1, N * n, 1); /* B^T r */
    add_gemm(g, &k, cap, H * D, H * d, 1, 1); /* (B^T r) W^O^T */
    return k;
}

/* ================================================================ implicit bias */

typedef struct {
    lm_attn_data *D;
    lm_attn_state *S;
    lm_attn_fwd *F;
    lm_attn_opt_par p;
    const lm_attn_opt *opt;
    lm_ibj *J;     /* the low-dimensional engine (ib-ngd-lowdim) */
    lm_mat *Wtmp;  /* its explicit W */
    int lowdim;
} ib_inst;

static void ib_dims(bm_point pt, int *n, int *T, int *d)
{
    *n = 6;
    *T = 4;
    *d = pt.paper == 0 ? 800 : pt.size;
}

static void ib_setup(ib_inst *I)
{
    const lm_ctx *c = &I->D->ctx;
    lm_mat *W0 = lm_mat_new(I->D->d, I->D->d, c);
    I->S = lm_attn_state_new(W0, I->D->u);
    lm_mat_free(W0);
    I->F = lm_attn_fwd_new(I->D);
    I->opt = lm_attn_opt_find("ngd");
    if (I->lowdim) {
        I->J = lm_ibj_new(I->D, NULL, 0, LM_ATTN_EXP);
        I->Wtmp = lm_mat_new(I->D->d, I->D->d, c);
    }
}

static void *ib_make_k(bm_point pt, uint64_t seed, int lowdim)
{
    ib_inst *I = calloc(1, sizeof *I);
    lm_ibgen_ex1_opts o;
    lm_ibgen_ex1_defaults(&o, 1); /* EX1-hetero, the run ib-ngd */
    ib_dims(pt, &o.n, &o.T, &o.d);
    lm_rng g;
    lm_rng_init(&g, seed);
    lm_ctx cd = lm_ctx_double();
    I->D = lm_ibgen_ex1(&o, &g, &cd);
    lm_attn_opt_par_default(&I->p);
    I->p.eta = 0.5;
    I->p.loss = LM_ATTN_EXP;
    I->lowdim = lowdim;
    ib_setup(I);
    return I;
}

static void *ib_make(bm_point pt, uint64_t seed) { return ib_make_k(pt, seed, 0); }
static void *ibj_make(bm_point pt, uint64_t seed) { return ib_make_k(pt, seed, 1); }

static void *ib_convert(const void *p, const lm_ctx *c)
{
    const ib_inst *S = p;
    ib_inst *I = calloc(1, sizeof *I);
    I->D = lm_attn_data_convert(S->D, c);
    I->p = S->p;
    I->lowdim = S->lowdim;
    ib_setup(I);
    return I;
}

static void ib_reset(void *p)
{
    ib_inst *I = p;
    lm_mat_zero(I->S->W);
    lm_mat_zero(I->S->vW);
    I->S->t = 0;
    if (I->lowdim) {
        lm_ibj_free(I->J);
        I->J = lm_ibj_new(I->D, NULL, 0, LM_ATTN_EXP);
    }
}

static int ib_step(void *p)
{
    ib_inst *I = p;
    if (I->lowdim) return lm_ibj_step(I->J, "ngd", &I->p) != 0;
    int rc = I->opt->step(I->S, I->F, I->D, &I->p);
    return rc || !lm_mat_isfinite(I->S->W);
}

static const lm_mat *ib_W(ib_inst *I)
{
    if (!I->lowdim) return I->S->W;
    lm_ibj_W(I->Wtmp, I->J, NULL);
    return I->Wtmp;
}

static int ib_iterate(void *p, double *out, int cap) { return mat_flat(ib_W(p), out, 0, cap); }
static int ib_iterate_mp(void *p, mpfr_t *out, int cap) { return mat_flat_mp(ib_W(p), out, 0, cap); }

static void ib_write(void *p, FILE *f)
{
    ib_inst *I = p;
    const lm_attn_data *D = I->D;
    fprintf(f, "\"n\": %d, \"T\": %d, \"d\": %d, \"loss\": \"exp\", \"eta\": ", D->n, D->T, D->d);
    bm_json_num(f, I->p.eta);
    fputs(",\n", f);
    bm_json_mats(f, "X", D->X, D->n);
    fputs(",\n", f);
    bm_json_ints(f, "y", D->y, D->n);
    fputs(",\n", f);
    bm_json_mat(f, "u", D->u);
}

static void ib_free(void *p)
{
    ib_inst *I = p;
    if (!I) return;
    lm_ibj_free(I->J);
    lm_mat_free(I->Wtmp);
    lm_attn_fwd_free(I->F);
    lm_attn_state_free(I->S);
    lm_attn_data_free(I->D);
    free(I);
}

static int ib_gemms(bm_point pt, bm_gemm *g, int cap)
{
    int n, T, d, k = 0;
    ib_dims(pt, &n, &T, &d);
    add_gemm(g, &k, cap, d, n, d, 1); /* W x_i1 for every i */
    add_gemm(g, &k, cap, T, 1, d, 2 * n); /* logits X_i q_i, scores X_i u */
    add_gemm(g, &k, cap, d, 1, T, n); /* X_i^T c_i */
    add_gemm(g, &k, cap, d, d, n, 1); /* sum_i (X_i^T c_i) x_i1^T */
    return k;
}

/* the low-dimensional engine: O((nT)^2) per step whatever d is */
static int ibj_gemms(bm_point pt, bm_gemm *g, int cap)
{
    int n, T, d, k = 0;
    ib_dims(pt, &n, &T, &d);
    add_gemm(g, &k, cap, n * T, 1, n * T, 2); /* logits G vec(C), the norm's quadratic form */
    return k;
}

/* ================================================================ mirror descent */

typedef struct {
    lm_mddata *D;
    lm_mat *W, *Th;
    lm_attn_fwd *F;
    lm_md_par par;
} md_inst;

static void md_dims(bm_point pt, int *n, int *T, int *d)
{
    *n = 6;
    *T = 8;
    *d = pt.paper == 0 ? 10 : pt.size;
}

static void md_setup(md_inst *I)
{
    I->W = lm_mat_new(I->D->d, I->D->d, &I->D->ctx); /* W(0) = 0, Theta(0) = 0 */
    I->Th = lm_mat_new(I->D->d, I->D->d, &I->D->ctx);
    I->F = lm_md_fwd_new(I->D);
}

static void *md_make(bm_point pt, uint64_t seed)
{
    md_inst *I = calloc(1, sizeof *I);
    int n, T, d;
    md_dims(pt, &n, &T, &d);
    lm_rng g;
    lm_rng_init(&g, seed);
    lm_ctx cd = lm_ctx_double();
    I->D = lm_md_gen_paper(&g, n, T, d, &cd);
    I->par = (lm_md_par){.p = 3.0, .eta = 0.1, .normalized = 1, .loss = LM_ATTN_LOGISTIC};
    md_setup(I);
    return I;
}

static void *md_convert(const void *p, const lm_ctx *c)
{
    const md_inst *S = p;
    md_inst *I = calloc(1, sizeof *I);
    I->D = lm_md_data_convert(S->D, c);
    I->par = S->par;
    md_setup(I);
    return I;
}

static void md_reset(void *p)
{
    md_inst *I = p;
    lm_mat_zero(I->W);
    lm_mat_zero(I->Th);
}

static int md_step(void *p)
{
    md_inst *I = p;
    return lm_md_step(I->W, I->Th, I->F, I->D, &I->par) != 0;
}

static int md_iterate(void *p, double *out, int cap) { return mat_flat(((md_inst *)p)->W, out, 0, cap); }
static int md_iterate_mp(void *p, mpfr_t *out, int cap) { return mat_flat_mp(((md_inst *)p)->W, out, 0, cap); }

static void md_write(void *p, FILE *f)
{
    md_inst *I = p;
    const lm_mddata *D = I->D;
    fprintf(f, "\"n\": %d, \"T\": %d, \"d\": %d, \"loss\": \"logistic\", \"normalized\": 1, \"p\": ", D->n,
            D->T, D->d);
    bm_json_num(f, I->par.p);
    fputs(", \"eta\": ", f);
    bm_json_num(f, I->par.eta);
    fputs(",\n", f);
    bm_json_mats(f, "X", D->X, D->n);
    fputs(",\n", f);
    bm_json_mat(f, "Z", D->Z);
    fputs(",\n", f);
    bm_json_ints(f, "y", D->y, D->n);
    fputs(",\n", f);
    bm_json_mat(f, "v", D->v);
}

static void md_free(void *p)
{
    md_inst *I = p;
    if (!I) return;
    lm_mat_free(I->W);
    lm_mat_free(I->Th);
    lm_attn_fwd_free(I->F);
    lm_md_data_free(I->D);
    free(I);
}

static int md_gemms(bm_point pt, bm_gemm *g, int cap)
{
    int n, T, d, k = 0;
    md_dims(pt, &n, &T, &d);
    add_gemm(g, &k, cap, d, n, d, 1);     /* W z_i for every i */
    add_gemm(g, &k, cap, T, 1, d, 2 * n); /* logits, scores */
    add_gemm(g, &k, cap, d, 1, T, n);     /* X_i^T c_i */
    add_gemm(g, &k, cap, d, d, n, 1);     /* sum_i (X_i^T c_i) z_i^T */
    return k;
}

/* ================================================================ pruning */

typedef struct {
    lm_prdata *P;
    lm_mat *M, *Vel;
    lm_prfwd *F;
    double eta, mom;
} pr_inst;

static int pr_dim(bm_point pt) { return pt.paper == 0 ? 16 : pt.size; }

#define PR_FULL_MAX 128

static void pr_setup(pr_inst *I)
{
    const int d = I->P->d;
    I->M = lm_mat_new(d, d, &I->P->ctx);
    I->Vel = lm_mat_new(d, d, &I->P->ctx);
    I->F = lm_pr_fwd_new(I->P);
}

static void pr_reset(void *p)
{
    pr_inst *I = p;
    const int d = I->P->d;
    for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++) lm_mat_set_d(I->M, a, b, 1.0); /* M_0 = 1 */
    lm_mat_zero(I->Vel);
}

static void *pr_make(bm_point pt, uint64_t seed)
{
    const int d = pr_dim(pt), n = d;
    lm_rng g;
    lm_rng_init(&g, seed);
    lm_ctx cd = lm_ctx_double();
    pr_inst *I = calloc(1, sizeof *I);
    lm_prdata *P = lm_pr_new(n, d, &cd);
    lm_mat_randn(P->X, &g, 1.0);
    if (d <= PR_FULL_MAX) {
        lm_pr_fill_rank4_W(P->W, 1.0, &g); /* the paper's rank-4 W_Q W_K^T */
    } else { /* the same rank from two Gaussian d x 4 factors: the paper's construction
              * takes SVDs of d x d Gaussians (20 s at d = 512), the step cost is the same */
        lm_mat *Fq = lm_mat_new(d, 4, &cd), *Fk = lm_mat_new(d, 4, &cd);
        lm_mat_randn(Fq, &g, 1.0);
        lm_mat_randn(Fk, &g, 1.0);
        lm_mat_mul(P->W, Fq, 0, Fk, 1);
        lm_mat_free(Fq);
        lm_mat_free(Fk);
    }
    /* rescale W so that the logits X W X^T have rms 2 (as the live runs do):
     * unscaled they are O(d^2) and every softmax row is one-hot */
    lm_mat *XW = lm_mat_new(n, d, &cd), *H = lm_mat_new(n, n, &cd);
    lm_mat_mul(XW, P->X, 0, P->W, 0);
    lm_mat_mul(H, XW, 0, P->X, 1);
    lm_num s;
    lm_num_init(&s, &cd);
    lm_mat_frob(&s, H);
    double rms = lm_num_get_d(&s) / n;
    if (rms > 0) lm_mat_scale_d(P->W, P->W, 2.0 / rms);
    lm_num_clear(&s);
    lm_mat_free(XW);
    lm_mat_free(H);
    P->lambda = 1e-3;
    lm_pr_prepare(P);
    I->P = P;
    I->eta = 0.5;
    I->mom = 0.9;
    pr_setup(I);
    pr_reset(I);
    return I;
}

static void *pr_convert(const void *p, const lm_ctx *c)
{
    const pr_inst *S = p;
    pr_inst *I = calloc(1, sizeof *I);
    I->P = lm_pr_convert(S->P, c);
    I->eta = S->eta;
    I->mom = S->mom;
    pr_setup(I);
    pr_reset(I);
    return I;
}

/* one iteration of lm_pr_gd without its per-iterate records */
static int pr_step(void *p)
{
    pr_inst *I = p;
    int bad = lm_pr_forward(I->F, I->P, I->M);
    lm_pr_grad(I->F, I->P, I->M);
    lm_mat_scale_d(I->Vel, I->Vel, I->mom);
    lm_mat_add(I->Vel, I->Vel, I->F->G);
    lm_mat_axpy_d(I->M, -I->eta, I->Vel);
    return bad || !lm_mat_isfinite(I->M);
}

static int pr_iterate(void *p, double *out, int cap) { return mat_flat(((pr_inst *)p)->M, out, 0, cap); }
static int pr_iterate_mp(void *p, mpfr_t *out, int cap) { return mat_flat_mp(((pr_inst *)p)->M, out, 0, cap); }

static void pr_write(void *p, FILE *f)
{
    pr_inst *I = p;
    fprintf(f, "\"n\": %d, \"d\": %d, \"lambda\": ", I->P->n, I->P->d);
    bm_json_num(f, I->P->lambda);
    fputs(", \"eta\": ", f);
    bm_json_num(f, I->eta);
    fputs(", \"momentum\": ", f);
    bm_json_num(f, I->mom);
    fputs(",\n", f);
    bm_json_mat(f, "X", I->P->X);
    fputs(",\n", f);
    bm_json_mat(f, "W", I->P->W);
}

static void pr_free(void *p)
{
    pr_inst *I = p;
    if (!I) return;
    lm_pr_fwd_free(I->F);
    lm_mat_free(I->M);
    lm_mat_free(I->Vel);
    lm_pr_free(I->P);
    free(I);
}

static int pr_gemms(bm_point pt, bm_gemm *g, int cap)
{
    int d = pr_dim(pt), n = d, k = 0;
    add_gemm(g, &k, cap, n, d, d, 1); /* X (M o W) */
    add_gemm(g, &k, cap, n, n, d, 1); /* (..) X^T */
    add_gemm(g, &k, cap, d, n, n, 1); /* X^T p */
    add_gemm(g, &k, cap, d, d, n, 1); /* (X^T p) X */
    return k;
}

/* ================================================================ preconditioning */

#define PC_B 100

typedef struct {
    lm_pcdata *P;  /* owned full instance (double) or a value copy (other contexts) */
    int full;
    lm_pcbatch mb; /* the minibatch */
    lm_mat *Pinv, *S;
    lm_pcth th, th0, G, G2;
    double eta;
} pc_inst;

static void pc_dims(bm_point pt, int *d, int *k)
{
    *d = pt.paper == 0 ? 4 : pt.size;
    *k = pt.paper == 0 ? 6 : pt.size + 2;
}

static void pc_free(void *p);

static void pc_alloc(pc_inst *I)
{
    I->th = lm_pc_th_new(I->P);
    I->th0 = lm_pc_th_new(I->P);
    I->G = lm_pc_th_new(I->P);
    I->G2 = lm_pc_th_new(I->P);
    I->S = lm_mat_new(I->P->d, I->P->d, &I->P->ctx);
    I->Pinv = lm_mat_new(I->P->d, I->P->d, &I->P->ctx);
}

/* above this size the ladder instance is drawn directly (see pc_make_light):
 * the generator's and the spectral initialisation's eigen-decompositions
 * take about a minute at d = 512, far longer than the steps timed */
#define PC_FULL_MAX 128

/* a ladder instance at large d: Sigma = I, W* Gaussian with ||W*|| ~ 0.05,
 * sigma = 0.1, lambda = 1/4; the preconditioner Sigma_hat^-1 of
 * max(2000, 4d) samples (by a solve), the start theta_0 = (W*, I/4).  The
 * step and its cost are those of the paper instance; only the values differ. */
static void *pc_make_light(int d, int k, uint64_t seed)
{
    lm_rng g;
    lm_rng_init(&g, seed);
    lm_ctx cd = lm_ctx_double();
    pc_inst *I = calloc(1, sizeof *I);
    I->P = calloc(1, sizeof *I->P);
    I->P->d = d;
    I->P->k = k;
    I->P->ctx = cd;
    I->P->variant = 0;
    I->P->sigma = 0.1;
    I->P->lambda = 0.25;
    I->full = 0;
    I->eta = 0.03;
    pc_alloc(I);
    lm_mat *Ws = lm_mat_new(k, d, &cd);
    lm_mat_randn(Ws, &g, 0.05 / sqrt((double)d));
    const int ntr = d * 4 > 2000 ? d * 4 : 2000;
    lm_mat *Xt = lm_mat_new(ntr, d, &cd), *S = lm_mat_new(d, d, &cd), *Id = lm_mat_new(d, d, &cd);
    lm_mat_randn(Xt, &g, 1.0);
    lm_mat_mul(S, Xt, 1, Xt, 0);
    lm_mat_scale_d(S, S, 1.0 / ntr);
    lm_mat_set_identity(Id);
    int rc = lm_mat_solve(I->Pinv, S, Id);
    I->mb.N = PC_B;
    I->mb.X = lm_mat_new(PC_B, d, &cd);
    I->mb.Y = lm_mat_new(PC_B, k, &cd);
    lm_mat_randn(I->mb.X, &g, 1.0);
    lm_mat_mul(I->mb.Y, I->mb.X, 0, Ws, 1);
    lm_mat *E = lm_mat_new(PC_B, k, &cd);
    lm_mat_randn(E, &g, 0.1);
    lm_mat_add(I->mb.Y, I->mb.Y, E);
    lm_mat_copy(I->th0.V, Ws);
    lm_mat_set_identity(I->th0.KQ);
    lm_mat_scale_d(I->th0.KQ, I->th0.KQ, 0.25);
    lm_pc_th_copy(&I->th, &I->th0);
    lm_mat_free(Ws); lm_mat_free(Xt); lm_mat_free(S); lm_mat_free(Id); lm_mat_free(E);
    if (rc) {
        fprintf(stderr, "bench: pc: Sigma_hat is singular at d = %d\n", d);
        pc_free(I);
        return NULL;
    }
    return I;
}

static void *pc_make(bm_point pt, uint64_t seed)
{
    int d, k;
    pc_dims(pt, &d, &k);
    if (d > PC_FULL_MAX) return pc_make_light(d, k, seed);
    lm_rng g;
    lm_rng_init(&g, seed);
    lm_ctx cd = lm_ctx_double();
    pc_inst *I = calloc(1, sizeof *I);
    /* the harness default instance of the live runs: Sigma = G G^T/d + I,
     * s1 = 0.05, sigma = 0.1, lambda = 1/4 */
    I->P = lm_pc_gen(d, k, 1.0, 0.0, 0.05, 0.1, 0.25, &g, &cd);
    I->full = 1;
    I->eta = 0.03;
    pc_alloc(I);
    lm_rng gt;
    lm_rng_init(&gt, lm_hash_u64(seed, 11));
    int ntr = d * 4 > 2000 ? d * 4 : 2000;
    lm_pcbatch tr = lm_pc_batch(I->P, ntr, &gt);
    /* Algorithm 1's start: the spectral initialisation and Sigma_hat^-1 */
    if (lm_pc_spectral_init(&I->th0, I->Pinv, I->P, &tr)) {
        lm_pc_batch_free(&tr);
        fprintf(stderr, "bench: pc: the spectral initialisation failed at d = %d\n", d);
        lm_pc_th_free(&I->th); lm_pc_th_free(&I->th0); lm_pc_th_free(&I->G); lm_pc_th_free(&I->G2);
        lm_mat_free(I->S); lm_mat_free(I->Pinv); lm_pc_free(I->P); free(I);
        return NULL;
    }
    lm_pc_batch_free(&tr);
    lm_rng gb;
    lm_rng_init(&gb, lm_hash_u64(seed, 13));
    I->mb = lm_pc_batch(I->P, PC_B, &gb);
    lm_pc_th_copy(&I->th, &I->th0);
    return I;
}

static void *pc_convert(const void *p, const lm_ctx *c)
{
    const pc_inst *S = p;
    pc_inst *I = calloc(1, sizeof *I);
    /* the step reads only d, k, lambda, variant and the context of the
     * instance: a value copy without the derived matrices (whose MPFR
     * eigen-decompositions would cost minutes at large d) */
    I->P = calloc(1, sizeof *I->P);
    *I->P = *S->P;
    I->P->ctx = *c;
    I->P->Sig = I->P->Sh = I->P->Sih = I->P->Si = I->P->Lc = I->P->Ws = I->P->Ms = I->P->U = I->P->V = NULL;
    I->P->s = NULL;
    I->full = 0;
    I->eta = S->eta;
    pc_alloc(I);
    I->mb.N = S->mb.N;
    I->mb.X = lm_mat_new(S->mb.X->r, S->mb.X->c, c);
    I->mb.Y = lm_mat_new(S->mb.Y->r, S->mb.Y->c, c);
    lm_mat_copy(I->mb.X, S->mb.X);
    lm_mat_copy(I->mb.Y, S->mb.Y);
    lm_mat_copy(I->Pinv, S->Pinv);
    lm_pc_th_copy(&I->th0, &S->th0);
    lm_pc_th_copy(&I->th, &S->th0);
    return I;
}

static void pc_reset(void *p)
{
    pc_inst *I = p;
    lm_pc_th_copy(&I->th, &I->th0);
}

static int pc_step(void *p)
{
    pc_inst *I = p;
    lm_pc_emp(NULL, &I->G, I->P, &I->th, &I->mb, 0);
    lm_pc_sigma_hat(I->S, &I->mb);
    lm_pc_reg_S(NULL, &I->G2, I->P, &I->th, I->S);
    lm_mat_add(I->G.V, I->G.V, I->G2.V);
    lm_mat_add(I->G.KQ, I->G.KQ, I->G2.KQ);
    lm_pc_precond_step(&I->th, &I->G, I->Pinv, I->eta);
    return !lm_mat_isfinite(I->th.V) || !lm_mat_isfinite(I->th.KQ);
}

static int pc_iterate(void *p, double *out, int cap)
{
    pc_inst *I = p;
    return mat_flat(I->th.KQ, out, mat_flat(I->th.V, out, 0, cap), cap);
}

static int pc_iterate_mp(void *p, mpfr_t *out, int cap)
{
    pc_inst *I = p;
    return mat_flat_mp(I->th.KQ, out, mat_flat_mp(I->th.V, out, 0, cap), cap);
}

static void pc_write(void *p, FILE *f)
{
    pc_inst *I = p;
    fprintf(f, "\"d\": %d, \"k\": %d, \"B\": %d, \"variant\": %d, \"lambda\": ", I->P->d, I->P->k, I->mb.N,
            I->P->variant);
    bm_json_num(f, I->P->lambda);
    fputs(", \"eta\": ", f);
    bm_json_num(f, I->eta);
    fputs(",\n", f);
    bm_json_mat(f, "X", I->mb.X);
    fputs(",\n", f);
    bm_json_mat(f, "Y", I->mb.Y);
    fputs(",\n", f);
    bm_json_mat(f, "V0", I->th0.V);
    fputs(",\n", f);
    bm_json_mat(f, "KQ0", I->th0.KQ);
    fputs(",\n", f);
    bm_json_mat(f, "Pinv", I->Pinv);
}

static void pc_free(void *p)
{
    pc_inst *I = p;
    if (!I) return;
    lm_pc_th_free(&I->th);
    lm_pc_th_free(&I->th0);
    lm_pc_th_free(&I->G);
    lm_pc_th_free(&I->G2);
    lm_mat_free(I->S);
    lm_mat_free(I->Pinv);
    lm_pc_batch_free(&I->mb);
    if (I->full) lm_pc_free(I->P);
    else free(I->P);
    free(I);
}

static int pc_gemms(bm_point pt, bm_gemm *g, int cap)
{
    int d, kk, k = 0;
    const int B = PC_B;
    pc_dims(pt, &d, &kk);
    /* empirical loss and its gradient */
    add_gemm(g, &k, cap, B, d, d, 1);  /* X W_KQ */
    add_gemm(g, &k, cap, B, B, d, 2);  /* logits; x_i . v_j */
    add_gemm(g, &k, cap, B, d, B, 2);  /* z = P X; (XV o P) X */
    add_gemm(g, &k, cap, B, kk, d, 1); /* W_V z_j */
    add_gemm(g, &k, cap, kk, d, B, 1); /* sum r_j z_j^T */
    add_gemm(g, &k, cap, B, d, kk, 1); /* W_V^T r_j */
    add_gemm(g, &k, cap, d, d, B, 2);  /* sum (C_j v_j) x_j^T; Sigma_hat */
    /* regulariser: W_V^T W_V, W_KQ S, (.) W_KQ^T, M S, S (M S), (S M S) W_KQ, (.) S */
    add_gemm(g, &k, cap, d, d, kk, 1);
    add_gemm(g, &k, cap, d, d, d, 6);
    add_gemm(g, &k, cap, kk, d, d, 1); /* W_V (S M S) */
    /* preconditioned step: G_V P, P G_KQ, (.) P */
    add_gemm(g, &k, cap, kk, d, d, 1);
    add_gemm(g, &k, cap, d, d, d, 2);
    return k;
}

/* ---------------------------------------------------------------- pc-run */

#define PCRUN_T 10

static void *pcrun_convert(const void *p, const lm_ctx *c)
{
    (void)p;
    (void)c;
    return NULL; /* the fast path of lm_pctr_run is double only */
}

static int pcrun_step(void *p)
{
    pc_inst *I = p;
    lm_pctr_opts o;
    memset(&o, 0, sizeof o);
    o.mode = LM_PCTR_MINIBATCH;
    o.eta = I->eta;
    o.T = PCRUN_T;
    o.Pinv = I->Pinv;
    o.train = &I->mb;
    o.B = I->mb.N;
    o.key = 13;
    o.cap = 1e30;
    lm_pctr_rec rec;
    lm_pctr_run(&rec, I->P, &I->th, &o, NULL, NULL);
    int bad = rec.diverged >= 0 || rec.failed || rec.n != PCRUN_T + 1;
    lm_pctr_rec_clear(&rec);
    return bad || !lm_mat_isfinite(I->th.V) || !lm_mat_isfinite(I->th.KQ);
}

/* ================================================================ the table */

static const bm_model m_dyn_softmax = {
    "dyn-softmax", "dynamics: GD on WQ, WK, WV, softmax", "t2-softmax", "D", "N = 4, n = 4, d = 8, H = 2", 1, 5,
    "t2-softmax run (N=2, n=2, D=5, d=2, H=1)", 32, "issue size (N=4, n=4, D=32, d=8, H=2)", "dyn", NULL, NULL, 0, 0,
    dyn_make_softmax, dyn_convert, dyn_reset, dyn_step, dyn_iterate, dyn_iterate_mp, dyn_write, dyn_free,
    dyn_gemms};
static const bm_model m_dyn_gauss = {
    "dyn-gauss", "dynamics: GD on WQ, WK, WV, Gaussian kernel", "t2-gauss", "D", "N = 4, n = 4, d = 8, H = 2", 1,
    5, "t2-gauss run (N=2, n=2, D=5, d=2, H=1)", 32, "issue size (N=4, n=4, D=32, d=8, H=2)", "dyn", NULL, NULL, 0, 0,
    dyn_make_gauss, dyn_convert, dyn_reset, dyn_step, dyn_iterate, dyn_iterate_mp, dyn_write, dyn_free,
    dyn_gemms};
static const bm_model m_ib = {
    "ib-ngd", "implicit bias: NGD on W (d x d), u fixed", "ib-ngd", "d", "n = 6, T = 4 (EX1-hetero)", 1, 800,
    "ib-ngd run (n=6, T=4, d=800)", 0, NULL, "ib", NULL, NULL, 0, 0, ib_make, ib_convert, ib_reset, ib_step, ib_iterate,
    ib_iterate_mp, ib_write, ib_free, ib_gemms};
static const bm_model m_ibj = {
    "ib-ngd-lowdim", "implicit bias: the same NGD run, low-dimensional engine", "ib-ngd", "d",
    "n = 6, T = 4 (EX1-hetero)", 1, 800, "ib-ngd run (n=6, T=4, d=800)", 0, NULL, "ib", "ib-ngd", "ib-ngd", 0, 0, ibj_make,
    ib_convert, ib_reset, ib_step, ib_iterate, ib_iterate_mp, ib_write, ib_free, ibj_gemms};
static const bm_model m_md = {
    "md", "mirror descent: normalised lp-AttGD, p = 3", "md-p3", "d", "n = 6, T = 8", 1, 10,
    "md-p3 run (n=6, T=8, d=10)", 0, NULL, "md", NULL, NULL, 0, 0, md_make, md_convert, md_reset, md_step, md_iterate,
    md_iterate_mp, md_write, md_free, md_gemms};
static const bm_model m_pr = {
    "pr", "pruning: mask GD with momentum 0.9", "pr-fig2", "d", "n = d", 0, 0, NULL, 16, "pr-fig2 runs (n=d=16)",
    "pr", NULL, NULL, 0, 0, pr_make, pr_convert, pr_reset, pr_step, pr_iterate, pr_iterate_mp, pr_write, pr_free, pr_gemms};
static const bm_model m_pc = {
    "pc", "preconditioning: Algorithm 1 step (minibatch B = 100)", "pc-alg1", "d", "k = d + 2, B = 100", 1, 4,
    "pc-alg1 run (d=4, k=6, B=100)", 0, NULL, "pc", NULL, NULL, 0, 0, pc_make, pc_convert, pc_reset, pc_step, pc_iterate,
    pc_iterate_mp, pc_write, pc_free, pc_gemms};

static const bm_model m_pcrun = {
    "pc-run", "preconditioning: the live run's loop (lm_pctr_run, double fast path)", "pc-alg1", "d",
    "k = d + 2, B = N = 100", 1, 4, "pc-alg1 run (d=4, k=6, B=100)", 0, NULL, "pc", "pc", NULL, PCRUN_T, 64,
    pc_make, pcrun_convert, pc_reset, pcrun_step, pc_iterate, pc_iterate_mp, pc_write, pc_free, pc_gemms};

const bm_model *const bm_models[] = {&m_dyn_softmax, &m_dyn_gauss, &m_ib, &m_ibj, &m_md, &m_pr, &m_pc, &m_pcrun,
                                     NULL};
