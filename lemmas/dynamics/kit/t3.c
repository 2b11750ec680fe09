/* t3.c -- the Theorem-3 experiment: instances (the paper's Example and the
 * random T3 sizes of catalogue S7), labels that meet (or deliberately miss)
 * the initialization condition (12)/(12-app), and the quantities the
 * theorem speaks of (delta, kappa, min S) in the instance's context. */
#include "lm_t3.h"
#include <math.h>
#include <string.h>

/* labels y = MH_0 + eps u need eps above 2^RES_BITS ||MH_0|| to be represented in double
 * with a few digits of the residual left */
#define RES_BITS (-36)

const int lm_t3_sizes[4][5] = {{1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, {2, 2, 4, 2, 1}, {1, 3, 3, 3, 1}};

/* the catalogue's generic W^Q, W^K for the Example instance */
static const double ex_Wq[4] = {1.0, 0.2, -0.3, 0.8};
static const double ex_Wk[4] = {0.5, -0.4, 0.6, 0.9};

/* multiply every entry by s, computed in double so that every context holds
 * the same numbers */
static void scale_exact(lm_mat *A, double s)
{
    for (int i = 0; i < A->r; i++)
        for (int j = 0; j < A->c; j++) lm_mat_set_d(A, i, j, s * lm_mat_get_d(A, i, j));
}

int lm_t3_delta(lm_num *delta, lm_num *jmax, lm_mha *m)
{
    const int rows = m->N * m->n * m->n, cols = m->D * m->d, k = rows < cols ? rows : cols;
    int rc = 0;
    lm_mat *J = lm_mat_new(rows, cols, &m->ctx);
    lm_num *s = lm_nums_new(k, &m->ctx);
    for (int h = 0; h < m->H; h++) {
        lm_mha_jacQ(J, m, h);
        rc |= lm_mat_svals(s, J);
        if (cols < rows) lm_num_set_d(&s[k - 1], 0.0); /* sigma_{Nn^2} of a wide-rank-deficient J */
        if (h == 0 || lm_num_cmp(&s[k - 1], delta) < 0) lm_num_set(delta, &s[k - 1]);
        if (h == 0 || lm_num_cmp(&s[0], jmax) > 0) lm_num_set(jmax, &s[0]);
    }
    lm_nums_free(s, k);
    lm_mat_free(J);
    return rc;
}

void lm_t3_log_min_S(lm_num *r, const lm_mha *m)
{
    const int n = m->n;
    lm_num x, mx, sum, v;
    lm_num_inits(&m->ctx, &x, &mx, &sum, &v, (lm_num *)NULL);
    int first = 1;
    for (int q = 0; q < m->N * m->H; q++) {
        const lm_mat *C = m->C[q];
        for (int k = 0; k < n; k++) {
            /* row minimum of the logits */
            lm_mat_get(&v, C, k, 0);
            for (int j = 1; j < n; j++) {
                lm_mat_get(&x, C, k, j);
                lm_num_min(&v, &v, &x);
            }
            if (m->kernel == LM_SOFTMAX) {
                /* subtract log-sum-exp of the row */
                lm_mat_get(&mx, C, k, 0);
                for (int j = 1; j < n; j++) {
                    lm_mat_get(&x, C, k, j);
                    lm_num_max(&mx, &mx, &x);
                }
                lm_num_set_d(&sum, 0.0);
                for (int j = 0; j < n; j++) {
                    lm_mat_get(&x, C, k, j);
                    lm_num_sub(&x, &x, &mx);
                    lm_num_exp(&x, &x);
                    lm_num_add(&sum, &sum, &x);
                }
                lm_num_log(&sum, &sum);
                lm_num_add(&sum, &sum, &mx);
                lm_num_sub(&v, &v, &sum);
            }
            if (first || lm_num_cmp(&v, r) < 0) lm_num_set(r, &v);
            first = 0;
        }
    }
    lm_num_clears(&x, &mx, &sum, &v, (lm_num *)NULL);
}

int lm_t3_log_kappa(lm_num *r, const lm_mha *m, lm_mat *const *WQ0)
{
    int rc = 0;
    lm_num nx, t, lq, lk;
    lm_num_inits(&m->ctx, &nx, &t, &lq, &lk, (lm_num *)NULL);
    lm_num_set_d(&nx, 0.0);
    for (int i = 0; i < m->N; i++) {
        lm_mat_frob(&t, m->X[i]);
        lm_num_sqr(&t, &t);
        lm_num_add(&nx, &nx, &t);
    }
    for (int h = 0; h < m->H; h++) {
        rc |= lm_mat_smax(&lq, WQ0[h]);
        rc |= lm_mat_smax(&lk, m->Wk[h]);
        lm_num_sqr(&lq, &lq);
        lm_num_sqr(&lk, &lk);
        lm_num_add(&t, &lq, &lk);
        lm_num_mul(&t, &t, &nx);
        lm_num_mul_d(&t, &t, -2.25);
        if (h == 0 || lm_num_cmp(&t, r) < 0) lm_num_set(r, &t);
    }
    lm_num_clears(&nx, &t, &lq, &lk, (lm_num *)NULL);
    return rc;
}

void lm_t3_grad(lm_mat *g, lm_num *gnorm2, lm_mha *m)
{
    lm_mha_flat_grad(g, m, LM_VAR_Q);
    if (gnorm2) {
        lm_mat_frob(gnorm2, g);
        lm_num_sqr(gnorm2, gnorm2);
    }
}

void lm_t3_step(lm_mha *m, const lm_mat *g, const lm_num *eta)
{
    lm_mat *p = lm_mat_new(g->r, 1, &m->ctx);
    lm_num t;
    lm_num_init(&t, &m->ctx);
    lm_mha_get_params(p, m, LM_VAR_Q);
    lm_num_neg(&t, eta);
    lm_mat_axpy(p, &t, g);
    lm_mha_set_params(m, LM_VAR_Q, p);
    lm_mha_forward(m);
    lm_num_clear(&t);
    lm_mat_free(p);
}

void lm_t3_gd_step(lm_num *gnorm2, lm_mha *m, const lm_num *eta)
{
    lm_mat *g = lm_mat_new(lm_mha_nparams(m, LM_VAR_Q), 1, &m->ctx);
    lm_t3_grad(g, gnorm2, m);
    lm_t3_step(m, g, eta);
    lm_mat_free(g);
}

void lm_t3_clear(lm_t3_inst *I)
{
    lm_mha_free(I->m);
    I->m = NULL;
}

static double mh_norm_d(lm_mha *dm)
{
    lm_num x;
    lm_ctx c = lm_ctx_double();
    lm_num_init(&x, &c);
    lm_mha_forward(dm);
    lm_mat_frob(&x, dm->mh);
    double v = lm_num_get_d(&x);
    lm_num_clear(&x);
    return v;
}

int lm_t3_setup(lm_t3_inst *I, lm_eval *ev, const lm_t3_opts *o)
{
    memset(I, 0, sizeof *I);
    lm_rng *g = lm_eval_rng(ev);
    const lm_ctx dctx = lm_ctx_double();
    const int kind = o->kinds <= 1 ? 0 : ev->index % o->kinds;
    int z[5]; /* the shrinker may ask for smaller sizes */
    lm_sizes(ev, z, lm_t3_sizes[kind], 5, lm_nm5, lm_nm5_max);
    const int N = z[0], n = z[1], D = z[2], d = z[3], H = z[4];
    /* the Example's matrices are 2 x 2: other sizes (--size, the shrinker)
     * cannot build it */
    if (kind == 0 && !lm_assume(ev, n == 2 && D == 2 && d == 2 && H == 1,
                                "the paper's Example needs n = D = d = 2, H = 1 (got n = %d, "
                                "D = %d, d = %d, H = %d)",
                                n, D, d, H))
        return 1;
    lm_mha *m = lm_mha_new(N, n, D, d, H, o->kernel, LM_WV_BLOCK, ev->ctx);
    lm_mha *dm = NULL;
    m->cG = o->cG;
    I->m = m;
    I->kind = kind;
    int rc = 0;
    if (kind == 0) {
        /* the paper's Example: X = sI, W^V = [[2a,a],[a,2a]], W^O = (1/a,1/a) */
        int v = (o->kinds <= 1 ? ev->index : ev->index / o->kinds);
        I->s = (v % 2) ? 1.0 : 0.3;
        I->a = ((v / 2) % 2) ? 2.0 : 1.0;
        for (int k = 0; k < 2; k++) lm_mat_set_d(m->X[0], k, k, I->s);
        lm_mat_set_d(m->Wv, 0, 0, 2 * I->a);
        lm_mat_set_d(m->Wv, 0, 1, I->a);
        lm_mat_set_d(m->Wv, 1, 0, I->a);
        lm_mat_set_d(m->Wv, 1, 1, 2 * I->a);
        lm_mat_set_d(m->Wo, 0, 0, 1.0 / I->a);
        lm_mat_set_d(m->Wo, 1, 0, 1.0 / I->a);
        /* the catalogue's generic W^Q, W^K; later visits perturb them */
        double pert = v >= 4 ? 0.1 : 0.0;
        for (int e = 0; e < 4; e++) {
            lm_mat_set_d(m->Wq[0], e / 2, e % 2, ex_Wq[e] + pert * lm_rng_normal(g));
            lm_mat_set_d(m->Wk[0], e / 2, e % 2, ex_Wk[e] + pert * lm_rng_normal(g));
        }
    } else {
        lm_mha_randomize(m, g, o->sX, o->sQK, 1.0, 1.0);
    }
    if (ev->x && ev->nx >= 2) {
        /* adversarial point: log-scales of (W^Q, W^K) in [-1.5,1.5] and of X in [-1,1] */
        double sq = exp(1.5 * tanh(ev->x[0] / 3.0)), sx = exp(tanh(ev->x[1] / 3.0));
        for (int h = 0; h < H; h++) { scale_exact(m->Wq[h], sq); scale_exact(m->Wk[h], sq); }
        for (int i = 0; i < N; i++) scale_exact(m->X[i], sx);
        if (kind == 0) I->s *= sx;
    }
    /* unit direction of the residual */
    double u[64];
    const int Nn = N * n;
    if (kind == 0) {
        u[0] = M_SQRT1_2;
        u[1] = -M_SQRT1_2;
    } else {
        double s2 = 0;
        for (int k = 0; k < Nn; k++) { u[k] = lm_rng_normal(g); s2 += u[k] * u[k]; }
        for (int k = 0; k < Nn; k++) u[k] /= sqrt(s2);
    }
    /* constants on a double copy, labels still zero: the unit-residual LHS */
    dm = lm_mha_convert(m, &dctx);
    if (lm_dyn_consts_eval(&I->k0, dm, NULL) || lm_dyn_t3_eval(&I->t3, dm, &I->k0)) {
        rc = lm_fail(ev, "SVD failed while evaluating the constants at M_0");
        goto fail;
    }
    double mhn = mh_norm_d(dm);
    lm_dyn_consts ku = I->k0;
    ku.nrm_r = 1.0;
    const int enforced = o->cond == LM_T3_COND_12 || o->cond == LM_T3_COND_12APP;
    if (o->cond != LM_T3_COND_NONE) {
        if (!lm_assume(ev, I->t3.minVWo > 0, "min|V'W^O| = 0"))
            goto afail;
        lm_num dl, jm, thr;
        lm_num_inits(ev->ctx, &dl, &jm, &thr, (lm_num *)NULL);
        int src = lm_t3_delta(&dl, &jm, m);
        lm_num_mul_d(&thr, &jm, exp2(0.75 * lm_ctx_log2eps(ev->ctx)));
        int pos = lm_num_cmp(&dl, &thr) > 0;
        double dld = lm_num_get_d(&dl);
        lm_num_clears(&dl, &jm, &thr, (lm_num *)NULL);
        if (src) { rc = lm_fail(ev, "SVD of J_h failed"); goto fail; }
        if (!lm_assume(ev, pos, "delta = %.3g: J_h is rank deficient (Dd = %d, Nn^2 = %d)", dld,
                       D * d, Nn * n))
            goto afail;
    }
    double logLu;
    if (o->cond == LM_T3_COND_12) {
        logLu = lm_dyn_log_cond12(&ku, &I->t3, H, n, 0);
        I->log_eps_max = log(0.125) - logLu;
    } else {
        logLu = lm_dyn_log_cond12app(&ku, &I->t3, H, n, 1);
        I->log_eps_max = 0.0 - logLu;
    }
    double eps;
    if (o->cond == LM_T3_COND_NONE)
        eps = kind == 0 ? M_SQRT2 * 1e-6 : o->eps_free * mhn;
    else if (enforced)
        eps = o->eps_frac * exp(I->log_eps_max);
    else /* violated on purpose: at least eps_free times too large, and well resolved */
        eps = fmax(o->eps_free * exp(I->log_eps_max), ldexp(mhn, -20));
    if (kind == 0 && enforced) eps = fmin(eps, M_SQRT2 * 1e-6);
    if (!lm_assume(ev, isfinite(eps) && eps > ldexp(mhn, RES_BITS),
                   "the residual %.3g needed for the condition is below the double resolution "
                   "of MH_0 (||MH_0|| = %.3g)", eps, mhn))
        goto afail;
    I->eps = eps;
    /* labels y = MH_0 + eps u, the offsets eps u_k formed in double */
    lm_mha_set_y_to_output(m);
    {
        lm_num t;
        lm_num_init(&t, ev->ctx);
        for (int k = 0; k < Nn; k++) {
            lm_mat_get(&t, m->y, k, 0);
            lm_num_add_d(&t, &t, eps * u[k]);
            lm_mat_set(m->y, k, 0, &t);
        }
        lm_num_clear(&t);
    }
    lm_mha_forward(m);
    if (!lm_num_isfinite(&m->f)) { rc = lm_fail(ev, "loss not finite at M_0"); goto fail; }
    /* constants at M_0 with the labels, and G' at the induction bound */
    lm_mha_free(dm);
    dm = lm_mha_convert(m, &dctx);
    lm_mha_data(ev, dm, 0);
    lm_dyn_consts kb, bounds;
    memset(&bounds, 0, sizeof bounds);
    if (lm_dyn_consts_eval(&I->k0, dm, NULL) || lm_dyn_t3_eval(&I->t3, dm, &I->k0)) {
        rc = lm_fail(ev, "SVD failed while evaluating the constants at M_0");
        goto fail;
    }
    for (int h = 0; h < H; h++) { bounds.sQ[h] = 1.5 * I->k0.sQ[h]; bounds.sK[h] = I->k0.sK[h]; }
    bounds.sV = I->k0.sV; /* W^K, W^V are never trained in Theorem 3 */
    if (lm_dyn_consts_eval(&kb, dm, &bounds)) { rc = lm_fail(ev, "SVD failed in G'"); goto fail; }
    I->Gp = kb.Gp;
    I->Gp_iter = I->k0.Gp;
    for (int app = 0; app < 2; app++) {
        I->log_c12[app] = lm_dyn_log_cond12(&I->k0, &I->t3, H, n, app);
        I->log_c12app[app] = lm_dyn_log_cond12app(&I->k0, &I->t3, H, n, app);
    }
    if (!(isfinite(I->Gp) && I->Gp > 0)) { rc = lm_fail(ev, "G' = %g is not finite", I->Gp); goto fail; }
    if (o->cond == LM_T3_COND_12 &&
        !lm_assume(ev, I->log_c12[0] <= log(0.125), "(12) fails: LHS = %.3g > 1/8",
                   exp(I->log_c12[0])))
        goto afail;
    if (o->cond == LM_T3_COND_12APP &&
        !lm_assume(ev, I->log_c12app[1] <= 0.0, "(12-app) fails: LHS = %.3g > 1",
                   exp(I->log_c12app[1])))
        goto afail;
    if (o->cond == LM_T3_COND_12APP_VIOL &&
        !lm_assume(ev, I->log_c12app[1] > 0.0, "(12-app) could not be violated (LHS = %.3g)",
                   exp(I->log_c12app[1])))
        goto afail;
    lm_mha_free(dm);
    return 0;
afail:
    rc = 1;
fail:
    lm_mha_free(dm);
    lm_t3_clear(I);
    return rc;
}

double lm_t3_ftol(const lm_mha *m)
{
    /* running-error bound of MH: sum_h S_ih |X_i| |W^V| |W^O| entrywise */
    const int n = m->n, D = m->D, H = m->H, d = m->d;
    double ab = 0;
    for (int i = 0; i < m->N; i++)
        for (int h = 0; h < H; h++)
            for (int k = 0; k < n; k++) {
                double mk = 0;
                for (int j = 0; j < n; j++) {
                    double vj = 0;
                    for (int a = 0; a < D; a++) {
                        double ua = 0;
                        for (int b = 0; b < H * d; b++)
                            ua += fabs(lm_mat_get_d(m->Wv, h * D + a, b) * lm_mat_get_d(m->Wo, b, 0));
                        vj += fabs(lm_mat_get_d(m->X[i], j, a)) * ua;
                    }
                    mk += fabs(lm_mat_get_d(m->S[i * H + h], k, j)) * vj;
                }
                ab += mk * mk;
            }
    lm_num a;
    lm_num_init(&a, &m->ctx);
    lm_mat_frob(&a, m->y);
    double sc = lm_num_get_d(&a) + sqrt(ab);
    lm_mat_frob(&a, m->r);
    double rn = lm_num_get_d(&a);
    lm_num_clear(&a);
    if (!(rn > 0)) return 0.0;
    return exp2(lm_ctx_log2eps(&m->ctx) + 3.0) * (double)(n + D + H * d) * sc / rn;
}

/* the runner's near-miss margin is 2^-44 relative; undecided comparisons are
 * placed 2^-48 below the bound */
#define UNDECIDED 3.552713678800501e-15

void lm_t3_obs_band(lm_eval *ev, int t, const lm_num *a, const lm_num *b, double band,
                    const char *label)
{
    if (ev->ctx->backend != LM_DOUBLE || !(band > 0)) {
        lm_obs_le(ev, t, a, b, band > 0 ? band : 0.0, "%s", label);
        return;
    }
    double da = lm_num_get_d(a), db = lm_num_get_d(b);
    if (db > 0 && fabs(da - db) <= band * db) {
        /* undecided in double: b(1+rel) = a + 2^-48 b */
        lm_obs_le(ev, t, a, b, (da - db) / db + UNDECIDED, "%s (undecided in double)", label);
        return;
    }
    lm_obs_le(ev, t, a, b, 0.0, "%s", label);
}

void lm_t3_obs_band_log(lm_eval *ev, int t, const lm_num *loga, const lm_num *logb, double band,
                        const char *label)
{
    if (ev->ctx->backend != LM_DOUBLE || !(band > 0)) {
        lm_obs_le_log(ev, t, loga, logb, band > 0 ? band : 0.0, "%s", label);
        return;
    }
    double la = lm_num_get_d(loga), lb = lm_num_get_d(logb);
    if (fabs(la - lb) <= log1p(band)) {
        double rel = expm1(la - lb + UNDECIDED * fmax(1.0, fabs(lb)));
        lm_obs_le_log(ev, t, loga, logb, rel, "%s (undecided in double)", label);
        return;
    }
    lm_obs_le_log(ev, t, loga, logb, 0.0, "%s", label);
}
