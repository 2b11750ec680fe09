/* opt.c -- optimizers of the softmax-attention classifier (lm_attn.h): GD, NGD (W only), NGD joint, Polyak (with and without
 * cap), NGD with heavy-ball momentum, and the time-decayed joint update
 * theta <- theta - eta / ((t+1)^alpha L) grad L.  Each is a static vtable
 * picked by name; a step runs in the context of the data set.  W-only
 * optimizers use the scaled gradient (log-magnitude kept apart), so NGD and
 * Polyak never see an underflowed gradient. */
#include "lm_attn.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void lm_attn_opt_par_default(lm_attn_opt_par *p)
{
    p->eta = 0.5;
    p->eta_max = 50.0;
    p->beta = 0.9;
    p->alpha = 2.0 / 3.0;
    p->loss = LM_ATTN_EXP;
}

lm_attn_state *lm_attn_state_new(const lm_mat *W0, const lm_mat *u0)
{
    lm_attn_state *S = lm_xcalloc(1, sizeof *S);
    S->W = lm_mat_dup(W0);
    S->u = lm_mat_dup(u0);
    lm_ctx c = lm_mat_ctx(W0);
    S->vW = lm_mat_new(W0->r, W0->c, &c);
    S->vu = lm_mat_new(u0->r, u0->c, &c);
    return S;
}

void lm_attn_state_free(lm_attn_state *S)
{
    if (!S) return;
    lm_mat_free(S->W);
    lm_mat_free(S->u);
    lm_mat_free(S->vW);
    lm_mat_free(S->vu);
    free(S);
}

/* The scaled W-gradient Gs (max coefficient 1) as the steps use it.  In
 * MPFR and Arb it is the d x d matrix.  In double it is never formed: Gs =
 * sum_i v_i x_i1^T is kept as its n factors (lm_attn_expand_factors) and
 * each row is recomputed where it is needed (lm_attn_expand_row_d, the same
 * roundings as lm_attn_expand), once for the norm and once for the update:
 * n multiply-adds per entry from arrays that stay in cache, instead of
 * writing Gs and reading it back three times (norm, scaling, axpy). */
typedef struct {
    lm_mat *G;      /* MPFR / Arb: the matrix */
    double *V, *X1; /* double: the factors, n x d each */
    double *row;    /* double: work, 2d */
    int n, d;
} wgrad;

static void wgrad_init(wgrad *g, const lm_attn_state *S, const lm_attn_data *D)
{
    memset(g, 0, sizeof *g);
    g->n = D->n;
    g->d = D->d;
    if (D->ctx.backend == LM_DOUBLE && !S->W->mp && !S->W->ab && !S->vW->mp && !S->vW->ab && D->d > 0) {
        size_t nd = (size_t)D->n * (size_t)D->d;
        g->V = lm_xmalloc((2 * nd + 2 * (size_t)D->d) * sizeof *g->V);
        g->X1 = g->V + nd;
        g->row = g->X1 + nd;
    } else {
        g->G = lm_mat_new(D->d, D->d, &D->ctx);
    }
}

static void wgrad_free(wgrad *g)
{
    lm_mat_free(g->G);
    free(g->V);
}

/* ||A||_F of a matrix fed row by row, with exactly the operations and order
 * of lm_mat_frob's double loop (scaled sum of squares, one division per
 * entry).  A row whose entries are all within the running scale cannot
 * change it: its quotients are formed first (vectorisable), then added in
 * order. */
typedef struct {
    double scale, ssq;
    int has_nan, has_inf;
} frob_acc;

/* the quotients' squares (|a_i| / sc)^2 into q; 0 when some |a_i| > sc or is NaN */
static int frob_squares_scalar(double *q, const double *a, double sc, int n)
{
    for (int i = 0; i < n; i++) {
        double ax = fabs(a[i]);
        if (!(ax <= sc)) return 0;
        double r = ax / sc;
        q[i] = r * r;
    }
    return 1;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
__attribute__((target("avx2"))) static int frob_squares_avx2(double *q, const double *a, double sc, int n)
{
    const __m256d s = _mm256_set1_pd(sc), mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL));
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        __m256d ax = _mm256_and_pd(_mm256_loadu_pd(a + i), mask);
        if (_mm256_movemask_pd(_mm256_cmp_pd(ax, s, _CMP_LE_OQ)) != 0xf) return 0;
        __m256d r = _mm256_div_pd(ax, s);
        _mm256_storeu_pd(q + i, _mm256_mul_pd(r, r));
    }
    return frob_squares_scalar(q + i, a + i, sc, n - i);
}

static int frob_squares(double *q, const double *a, double sc, int n)
{
    static int have = -1;
    if (have < 0) have = __builtin_cpu_supports("avx2") ? 1 : 0;
    return have ? frob_squares_avx2(q, a, sc, n) : frob_squares_scalar(q, a, sc, n);
}
#else
#define frob_squares frob_squares_scalar
#endif

static void frob_feed(frob_acc *s, const double *a, double *q, int n)
{
    if (s->scale > 0.0 && frob_squares(q, a, s->scale, n)) {
        double ssq = s->ssq;
        for (int i = 0; i < n; i++) ssq += q[i]; /* a zero adds +0: no change */
        s->ssq = ssq;
        return;
    }
    for (int i = 0; i < n; i++) {
        double ax = fabs(a[i]);
        if (isnan(ax)) s->has_nan = 1;
        else if (isinf(ax)) s->has_inf = 1;
        else if (ax > s->scale) {
            double r = s->scale / ax;
            s->ssq = 1.0 + s->ssq * r * r;
            s->scale = ax;
        } else if (ax > 0.0) {
            double r = ax / s->scale;
            s->ssq += r * r;
        }
    }
}

static double wgrad_frob(wgrad *g)
{
    frob_acc s = {0.0, 1.0, 0, 0};
    for (int a = 0; a < g->d; a++) {
        lm_attn_expand_row_d(g->row, g->V, g->X1, g->n, g->d, a);
        frob_feed(&s, g->row, g->row + g->d, g->d);
    }
    if (s.has_nan) return NAN;
    if (s.has_inf) return INFINITY;
    return s.scale * sqrt(s.ssq);
}

/* the double updates, one row at a time, each the composition of the
 * matrix operations of the general path (same roundings):
 *   AXPY  w <- fma(al, g, w)                       (lm_mat_axpy)
 *   NGD   w <- fma(al, g * f, w)                   (lm_mat_scale, lm_mat_axpy_d)
 *   MOM   v <- v * beta + g * f, w <- fma(al, v, w) (scale_d, scale, add, axpy_d) */
enum { UPD_AXPY, UPD_NGD, UPD_MOM };

static void upd_scalar(int mode, double *w, double *v, const double *g, double al, double f, double beta, int n)
{
    for (int b = 0; b < n; b++) {
        double x = g[b];
        if (mode == UPD_NGD) x = x * f;
        else if (mode == UPD_MOM) {
            double t = v[b] * beta, gf = x * f;
            v[b] = t + gf;
            x = v[b];
        }
        w[b] = fma(al, x, w[b]);
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2,fma"))) static void upd_avx2(int mode, double *w, double *v, const double *g, double al,
                                                        double f, double beta, int n)
{
    const __m256d A = _mm256_set1_pd(al), Fv = _mm256_set1_pd(f), B = _mm256_set1_pd(beta);
    int b = 0;
    for (; b + 4 <= n; b += 4) {
        __m256d x = _mm256_loadu_pd(g + b);
        if (mode == UPD_NGD) x = _mm256_mul_pd(x, Fv);
        else if (mode == UPD_MOM) {
            x = _mm256_add_pd(_mm256_mul_pd(_mm256_loadu_pd(v + b), B), _mm256_mul_pd(x, Fv));
            _mm256_storeu_pd(v + b, x);
        }
        _mm256_storeu_pd(w + b, _mm256_fmadd_pd(A, x, _mm256_loadu_pd(w + b)));
    }
    upd_scalar(mode, w + b, v ? v + b : NULL, g + b, al, f, beta, n - b);
}

static void upd_row(int mode, double *w, double *v, const double *g, double al, double f, double beta, int n)
{
    static int have = -1;
    if (have < 0) have = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 1 : 0;
    if (have) upd_avx2(mode, w, v, g, al, f, beta, n);
    else upd_scalar(mode, w, v, g, al, f, beta, n);
}
#else
#define upd_row upd_scalar
#endif

static void wgrad_apply(wgrad *g, int mode, lm_mat *W, lm_mat *Vm, double al, double f, double beta)
{
    for (int a = 0; a < g->d; a++) {
        size_t o = (size_t)a * (size_t)g->d;
        lm_attn_expand_row_d(g->row, g->V, g->X1, g->n, g->d, a);
        upd_row(mode, W->d + o, Vm ? Vm->d + o : NULL, g->row, al, f, beta, g->d);
    }
}

/* scaled W-gradient Gs (max coefficient 1), its log-scale and log ||Gs|| */
static int scaled_grad(wgrad *Gs, lm_num *ls, lm_num *lnorm, lm_attn_state *S, lm_attn_fwd *F,
                       const lm_attn_data *D, const lm_attn_opt_par *p)
{
    if (lm_attn_forward(F, D, S->W, S->u, p->loss)) return 1;
    lm_mat *C = lm_mat_new(D->n, D->T, &D->ctx);
    lm_attn_grad_coef(C, ls, F);
    if (!lm_num_isfinite(ls)) { lm_mat_free(C); return 2; } /* exactly stationary */
    if (Gs->G) {
        lm_attn_expand(Gs->G, C, NULL, D);
        lm_mat_frob(lnorm, Gs->G);
    } else {
        lm_attn_expand_factors(Gs->V, Gs->X1, C, D);
        lm_num_set_d(lnorm, wgrad_frob(Gs));
    }
    lm_mat_free(C);
    if (lm_num_sgn(lnorm) <= 0) return 2;
    lm_num_log(lnorm, lnorm);
    return 0;
}

static int step_gd(lm_attn_state *S, lm_attn_fwd *F, const lm_attn_data *D, const lm_attn_opt_par *p)
{
    wgrad G;
    wgrad_init(&G, S, D);
    lm_num ls, ln, f;
    lm_num_inits(&D->ctx, &ls, &ln, &f, (lm_num *)NULL);
    int rc = scaled_grad(&G, &ls, &ln, S, F, D, p);
    if (!rc) {
        lm_num_exp(&f, &ls);
        lm_num_mul_d(&f, &f, -p->eta);
        if (G.G) lm_mat_axpy(S->W, &f, G.G);
        else wgrad_apply(&G, UPD_AXPY, S->W, NULL, lm_num_get_d(&f), 1.0, 0.0);
        S->last_step = p->eta;
    }
    lm_num_clears(&ls, &ln, &f, (lm_num *)NULL);
    wgrad_free(&G);
    S->t++;
    return rc == 2 ? 0 : rc;
}

static int ngd_common(lm_attn_state *S, lm_attn_fwd *F, const lm_attn_data *D, const lm_attn_opt_par *p,
                      double beta)
{
    wgrad G;
    wgrad_init(&G, S, D);
    lm_num ls, ln, f;
    lm_num_inits(&D->ctx, &ls, &ln, &f, (lm_num *)NULL);
    int rc = scaled_grad(&G, &ls, &ln, S, F, D, p);
    if (!rc) {
        lm_num_neg(&f, &ln);
        lm_num_exp(&f, &f); /* 1/||G|| */
        if (!G.G) {
            int mom = beta > 0.0;
            wgrad_apply(&G, mom ? UPD_MOM : UPD_NGD, S->W, mom ? S->vW : NULL, -p->eta, lm_num_get_d(&f), beta);
        } else {
            lm_mat_scale(G.G, G.G, &f);
            if (beta > 0.0) {
                lm_mat_scale_d(S->vW, S->vW, beta);
                lm_mat_add(S->vW, S->vW, G.G);
                lm_mat_axpy_d(S->W, -p->eta, S->vW);
            } else {
                lm_mat_axpy_d(S->W, -p->eta, G.G);
            }
        }
        S->last_step = p->eta;
    }
    lm_num_clears(&ls, &ln, &f, (lm_num *)NULL);
    wgrad_free(&G);
    S->t++;
    return rc == 2 ? 0 : rc;
}

static int step_ngd(lm_attn_state *S, lm_attn_fwd *F, const lm_attn_data *D, const lm_attn_opt_par *p)
{
    return ngd_common(S, F, D, p, 0.0);
}

static int step_ngd_mom(lm_attn_state *S, lm_attn_fwd *F, const lm_attn_data *D, const lm_attn_opt_par *p)
{
    return ngd_common(S, F, D, p, p->beta);
}

static int polyak_common(lm_attn_state *S, lm_attn_fwd *F, const lm_attn_data *D,
                         const lm_attn_opt_par *p, int cap)
{
    wgrad G;
    wgrad_init(&G, S, D);
    lm_num ls, ln, lex, f, e;
    lm_num_inits(&D->ctx, &ls, &ln, &lex, &f, &e, (lm_num *)NULL);
    int rc = scaled_grad(&G, &ls, &ln, S, F, D, p);
    if (!rc) {
        lm_attn_log_excess(&lex, F);
        /* log eta_t = log(L - L*) - 2 ls - 2 log||Gs|| */
        lm_num_mul_d(&e, &ls, -2.0);
        lm_num_add(&e, &e, &lex);
        lm_num_mul_d(&f, &ln, -2.0);
        lm_num_add(&e, &e, &f);
        int capped = cap && lm_num_get_d(&e) > log(p->eta_max);
        S->last_step = capped ? p->eta_max : exp(lm_num_get_d(&e));
        /* W -= eta_t e^{ls} Gs */
        if (capped) {
            lm_num_exp(&f, &ls);
            lm_num_mul_d(&f, &f, -p->eta_max);
        } else {
            lm_num_add(&f, &e, &ls);
            lm_num_exp(&f, &f);
            lm_num_neg(&f, &f);
        }
        if (lm_num_isfinite(&f)) {
            if (G.G) lm_mat_axpy(S->W, &f, G.G);
            else wgrad_apply(&G, UPD_AXPY, S->W, NULL, lm_num_get_d(&f), 1.0, 0.0);
        } else rc = lm_num_isfinite(&lex) ? 1 : 0; /* L = L* exactly: no step */
    }
    lm_num_clears(&ls, &ln, &lex, &f, &e, (lm_num *)NULL);
    wgrad_free(&G);
    S->t++;
    return rc == 2 ? 0 : rc;
}

static int step_polyak(lm_attn_state *S, lm_attn_fwd *F, const lm_attn_data *D, const lm_attn_opt_par *p)
{
    return polyak_common(S, F, D, p, 0);
}

static int step_polyak_cap(lm_attn_state *S, lm_attn_fwd *F, const lm_attn_data *D,
                           const lm_attn_opt_par *p)
{
    return polyak_common(S, F, D, p, 1);
}

/* joint gradients (unscaled) gW, gu at the current state */
static int joint_grads(lm_mat *gW, lm_mat *gu, lm_attn_state *S, lm_attn_fwd *F, const lm_attn_data *D,
                       const lm_attn_opt_par *p)
{
    if (lm_attn_forward(F, D, S->W, S->u, p->loss)) return 1;
    lm_attn_grad_W(gW, F, D);
    lm_attn_grad_u(gu, F, D);
    return !(lm_mat_isfinite(gW) && lm_mat_isfinite(gu));
}

static int step_ngd_joint(lm_attn_state *S, lm_attn_fwd *F, const lm_attn_data *D,
                          const lm_attn_opt_par *p)
{
    lm_mat *gW = lm_mat_new(D->d, D->d, &D->ctx), *gu = lm_mat_new(D->d, 1, &D->ctx);
    lm_num a, b;
    lm_num_inits(&D->ctx, &a, &b, (lm_num *)NULL);
    int rc = joint_grads(gW, gu, S, F, D, p);
    if (!rc) {
        lm_mat_frob(&a, gW);
        lm_mat_frob(&b, gu);
        lm_num_sqr(&a, &a);
        lm_num_sqr(&b, &b);
        lm_num_add(&a, &a, &b);
        lm_num_sqrt(&a, &a);
        if (lm_num_sgn(&a) > 0) {
            lm_num_set_d(&b, -p->eta);
            lm_num_div(&b, &b, &a);
            lm_mat_axpy(S->W, &b, gW);
            lm_mat_axpy(S->u, &b, gu);
        }
        S->last_step = p->eta;
    }
    lm_num_clears(&a, &b, (lm_num *)NULL);
    lm_mat_free(gW);
    lm_mat_free(gu);
    S->t++;
    return rc;
}

static int step_joint13(lm_attn_state *S, lm_attn_fwd *F, const lm_attn_data *D, const lm_attn_opt_par *p)
{
    lm_mat *gW = lm_mat_new(D->d, D->d, &D->ctx), *gu = lm_mat_new(D->d, 1, &D->ctx);
    lm_num f;
    lm_num_init(&f, &D->ctx);
    int rc = joint_grads(gW, gu, S, F, D, p);
    if (!rc) {
        /* f = -eta / ((t+1)^alpha L) */
        lm_num t1, al;
        lm_num_inits(&D->ctx, &t1, &al, (lm_num *)NULL);
        lm_num_set_si(&t1, S->t + 1);
        lm_num_set_d(&al, p->alpha);
        lm_num_pow(&t1, &t1, &al); /* (t+1)^alpha in the context */
        lm_num_neg(&f, &F->logL);
        lm_num_exp(&f, &f);
        lm_num_mul_d(&f, &f, p->eta);
        lm_num_div(&f, &f, &t1);
        lm_num_clears(&t1, &al, (lm_num *)NULL);
        S->last_step = lm_num_get_d(&f);
        lm_num_neg(&f, &f);
        lm_mat_axpy(S->W, &f, gW);
        lm_mat_axpy(S->u, &f, gu);
    }
    lm_num_clear(&f);
    lm_mat_free(gW);
    lm_mat_free(gu);
    S->t++;
    return rc;
}

static const lm_attn_opt opt_gd = {"gd", 0, step_gd};
static const lm_attn_opt opt_ngd = {"ngd", 0, step_ngd};
static const lm_attn_opt opt_ngd_joint = {"ngd-joint", 1, step_ngd_joint};
static const lm_attn_opt opt_polyak = {"polyak", 0, step_polyak};
static const lm_attn_opt opt_polyak_cap = {"polyak-cap", 0, step_polyak_cap};
static const lm_attn_opt opt_ngd_mom = {"ngd-mom", 0, step_ngd_mom};
static const lm_attn_opt opt_joint13 = {"joint13", 1, step_joint13};

static const lm_attn_opt *const all_opts[] = {&opt_gd,         &opt_ngd,     &opt_ngd_joint,
                                            &opt_polyak,     &opt_polyak_cap, &opt_ngd_mom,
                                            &opt_joint13,    NULL};

const char *const lm_attn_opt_names[] = {"gd",         "ngd",     "ngd-joint", "polyak",
                                       "polyak-cap", "ngd-mom", "joint13",   NULL};

const lm_attn_opt *lm_attn_opt_find(const char *name)
{
    for (int k = 0; all_opts[k]; k++)
        if (strcmp(all_opts[k]->name, name) == 0) return all_opts[k];
    return NULL;
}
