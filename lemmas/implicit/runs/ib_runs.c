/* ib_runs.c -- named live training runs of the implicit-bias paper
 * (catalogue implicit-bias-self-attention, section 2.6) on the exact
 * low-dimensional engine (lm_ibj.h), their double-vs-MPFR drift, and the
 * live part of `lemmata verify` for that paper (see lm_ibruns.h).
 *
 * Reading chosen for R1 (the catalogue leaves it open): W_0 = 0, not the
 * Lemma-4 initialisation.  With W_0 = 0 the iterate is exactly its
 * coefficient part, so ||W_t||, e_t and the drift are quadratic forms of the
 * coefficients alone; the Lemma-4 start is one `--set init=1` away and does
 * not change the picture (||W_0|| ~ 0.01 against ||W_t|| ~ eta t). */
#include "lm_stats.h"
#include "lm_ibruns.h"
#include "lm_claim.h"
#include "lm_live.h"
#include "lm_ibgen.h"
#include "lm_ibj.h"
#include "lm_svm.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const lm_ibrun_def lm_ibruns[] = {
    {"ib-ngd", "R1: NGD (4) on EX1-hetero, u fixed, W_0 = 0, eta = 0.5", "ngd", LM_IBR_EX1, 6, 4,
     800, 0.5, 50.0, 2.0 / 3.0, 0.0, 3000, 0},
    {"ib-gd", "R2: GD on EX1-hetero, u fixed, W_0 = 0, eta = 5", "gd", LM_IBR_EX1, 6, 4, 800, 5.0,
     50.0, 2.0 / 3.0, 0.0, 10000, 0},
    {"ib-polyak", "R3a: Polyak step (L - L*)/||grad||^2 on EX1-hetero, uncapped", "polyak",
     LM_IBR_EX1, 6, 4, 800, 0.5, 50.0, 2.0 / 3.0, 0.0, 3000, 0},
    {"ib-polyak-cap", "R3b: Polyak step capped at eta_max = 50 on EX1-hetero", "polyak-cap",
     LM_IBR_EX1, 6, 4, 800, 0.5, 50.0, 2.0 / 3.0, 0.0, 3000, 0},
    {"ib-ngd-antipodal", "R5: NGD on EX1-antipodal (Fig. 5), eta = 0.5", "ngd",
     LM_IBR_EX1_ANTIPODAL, 6, 4, 800, 0.5, 50.0, 2.0 / 3.0, 0.0, 3000, 0},
    {"ib-joint13", "R4: joint update (13) on DM data (d=600, n=8), eta = 0.5, alpha = 2/3",
     "joint13", LM_IBR_DM, 8, 2, 600, 0.5, 50.0, 2.0 / 3.0, 0.0, 40000, 0},
    {NULL, NULL, NULL, LM_IBR_EX1, 0, 0, 0, 0, 0, 0, 0, 0, 0}};

const lm_ibrun_def *lm_ibrun_find(const char *name)
{
    for (int k = 0; lm_ibruns[k].name; k++)
        if (!strcmp(lm_ibruns[k].name, name)) return &lm_ibruns[k];
    return NULL;
}

int lm_ibrun_joint(const lm_ibrun_def *r)
{
    return !strcmp(r->opt, "joint13") || !strcmp(r->opt, "ngd-joint");
}

/* The settings and their ranges (the same declarations as a claim's parameters,
 * lm_claim.h).  Upper ends are resource bounds: the iterates are recorded
 * (steps + 1 records of ~100 bytes), the engine keeps the nT x nT token Gram
 * matrix and the SVMs solve on n(T-1) constraints, in MPFR too for --drift. */
static const lm_param_def ibrun_settings[] = {
    {"eta", 0, "step size (a huge one diverges: the run then stops with an error)", NULL, "(0, 1e300]"},
    {"steps", 0, "iterations (at most 1000000: the record of every iterate)", NULL, "int [0, 1000000]"},
    {"d", 0, "embedding dimension (at most 4096: memory bound)", NULL, "int [1, 4096]"},
    {"n", 0, "sequences (at most 32: the SVMs on n(T-1) constraints, in MPFR for --drift)", NULL, "int [1, 32]"},
    {"T", 0, "tokens per sequence (at most 8: the SVMs on n(T-1) constraints)", NULL, "int [2, 8]"},
    {"eta_max", 0, "Polyak cap", NULL, "(0, 1e300]"},
    {"alpha", 0, "time exponent of (13)", NULL, "[0, 1]"},
    {"init", 0, "0: W_0 = 0; s > 0: sigma_0 = s 0.01/d", NULL, "[0, 1e6]"},
    {NULL, 0, NULL, NULL, NULL}};

int lm_ibrun_set(lm_ibrun_def *r, const char *kv, char *err, int errlen)
{
    size_t l;
    const char *v;
    if (lm_live_split(kv, &l, &v, err, errlen)) return -1;
    const lm_param_def *p = NULL;
    for (int k = 0; ibrun_settings[k].name && !p; k++)
        if (l == strlen(ibrun_settings[k].name) && !strncmp(kv, ibrun_settings[k].name, l))
            p = &ibrun_settings[k];
    if (!p) {
        snprintf(err, (size_t)errlen,
                 "unknown run setting '%.*s' (known: eta steps d n T eta_max alpha init)", (int)l,
                 kv);
        return -1;
    }
    lm_range rg;
    char rs[96];
    if (lm_param_range(&rg, p)) {
        snprintf(err, (size_t)errlen, "internal error: run setting %s declares no valid range", p->name);
        return -1;
    }
    lm_range_str(rs, sizeof rs, &rg);
    int isT = !strcmp(p->name, "T");
    if (isT && r->data == LM_IBR_DM) snprintf(rs, sizeof rs, "only 2 (DM data have two tokens)");
    /* a number and nothing else: no blanks, no hex floats, no "inf"/"nan" */
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    int plain = strspn(v, "+-0123456789.eE") == strlen(v);
    if (*end != 0 || !plain || errno == ERANGE || !isfinite(x) || !lm_range_contains(&rg, x) ||
        (isT && r->data == LM_IBR_DM && x != 2)) {
        snprintf(err, (size_t)errlen, "run %s: %s takes %s, not '%.40s' (bad value in --set)", r->name,
                 p->name, rs, v);
        return -1;
    }
    if (!strcmp(p->name, "eta")) r->eta = x;
    else if (!strcmp(p->name, "steps")) r->steps = (int)x;
    else if (!strcmp(p->name, "d")) r->d = (int)x, r->sizes_set |= LM_IBR_SET_D;
    else if (!strcmp(p->name, "n")) r->n = (int)x, r->sizes_set |= LM_IBR_SET_N;
    else if (isT) r->T = (int)x, r->sizes_set |= LM_IBR_SET_T;
    else if (!strcmp(p->name, "eta_max")) r->eta_max = x;
    else if (!strcmp(p->name, "alpha")) r->alpha = x;
    else r->init = x;
    return 0;
}

int lm_ibrun_size_range(const char *name, long *lo, long *hi)
{
    lm_range rg;
    for (int k = 0; ibrun_settings[k].name; k++)
        if (!strcmp(ibrun_settings[k].name, name) && !lm_param_range(&rg, &ibrun_settings[k]) && rg.integer) {
            *lo = (long)ceil(rg.lo);
            *hi = (long)floor(rg.hi);
            return 0;
        }
    return -1;
}

/* ---------- one run in one context ---------- */

typedef struct {
    const lm_ibrun_def *r;
    lm_ctx ctx;
    lm_attn_data *D;
    lm_mat *W0;
    lm_ibj *J;
    lm_svm_sol sw, su;
    int joint;
    lm_attn_opt_par p;
} runner;

static void runner_free(runner *R)
{
    lm_ibj_free(R->J);
    lm_svm_sol_clear(&R->sw);
    lm_svm_sol_clear(&R->su);
    lm_mat_free(R->W0);
    lm_attn_data_free(R->D);
    memset(R, 0, sizeof *R);
}

/* data (and W_0) of run r from seed, in double */
static void make_data(lm_attn_data **D, lm_mat **W0, const lm_ibrun_def *r, uint64_t seed,
                      const lm_ctx *ctx)
{
    lm_rng g;
    lm_rng_init(&g, seed);
    if (r->data == LM_IBR_DM) {
        lm_ibgen_dm_opts o;
        lm_ibgen_dm_defaults(&o);
        o.n = r->n;
        o.d = r->d;
        *D = lm_ibgen_dm(&o, &g, ctx);
    } else {
        lm_ibgen_ex1_opts o;
        lm_ibgen_ex1_defaults(&o, 1);
        o.n = r->n;
        o.T = r->T;
        o.d = r->d;
        o.antipodal = r->data == LM_IBR_EX1_ANTIPODAL;
        *D = lm_ibgen_ex1(&o, &g, ctx);
    }
    *W0 = r->init > 0 ? lm_ibgen_w0(r->d, r->init * 0.01 / r->d, &g, ctx) : NULL;
}

/* takes ownership of D and W0 */
static int runner_init(runner *R, const lm_ibrun_def *r, lm_attn_data *D, lm_mat *W0, char *err,
                       int errlen)
{
    memset(R, 0, sizeof *R);
    R->r = r;
    R->D = D;
    R->W0 = W0;
    R->ctx = D->ctx;
    R->joint = lm_ibrun_joint(r);
    lm_attn_opt_par_default(&R->p);
    R->p.eta = r->eta;
    R->p.eta_max = r->eta_max;
    R->p.alpha = r->alpha;
    R->p.loss = LM_ATTN_EXP;
    int rc = lm_svm_w(&R->sw, D, NULL);
    if (rc) {
        snprintf(err, (size_t)errlen, "the W-SVM of the data could not be solved (code %d)", rc);
        return -1;
    }
    if (R->joint && (rc = lm_svm_u(&R->su, D, NULL))) {
        snprintf(err, (size_t)errlen, "the u-SVM of the data could not be solved (code %d)", rc);
        return -1;
    }
    R->J = lm_ibj_new(D, W0, R->joint, LM_ATTN_EXP);
    if (!R->J) {
        snprintf(err, (size_t)errlen, "the loss at the start is not finite");
        return -1;
    }
    return 0;
}

static double nan_d(void) { return nan(""); }

/* the metrics of the current iterate; nonzero when the loss, a norm or a
 * score is not finite (e.g. a step so large that ||W_t||^2 overflows) */
static int runner_record(lm_ibrun_rec *x, const runner *R)
{
    const lm_ibj *J = R->J;
    const lm_attn_fwd *F = J->F;
    const lm_attn_data *D = R->D;
    lm_num v, m, s, acc;
    lm_num_inits(&R->ctx, &v, &m, &s, &acc, (lm_num *)NULL);
    x->t = J->t;
    x->log_loss = lm_num_get_d(&F->logL);
    if (R->joint) {
        x->log_excess = nan_d();
    } else {
        lm_attn_log_excess(&v, F);
        x->log_excess = lm_num_get_d(&v);
    }
    lm_ibj_norm_W(&v, J);
    x->norm_W = lm_num_get_d(&v);
    lm_ibj_norm_u(&v, J);
    x->norm_u = lm_num_get_d(&v);
    double msum = 0, mmin = INFINITY, lmax = -INFINITY, lmin = INFINITY;
    int first_acc = 1;
    for (int i = 0; i < D->n; i++) {
        int o = D->opt[i];
        lm_mat_get(&v, F->logs, i, o);
        double so = exp(lm_num_get_d(&v));
        msum += so;
        mmin = fmin(mmin, so);
        /* log(1 - s_opt) = LSE_{tau != opt} log s_tau, in the context */
        int first = 1;
        for (int t = 0; t < D->T; t++) {
            if (t == o) continue;
            lm_mat_get(&v, F->logs, i, t);
            if (first || lm_num_cmp(&v, &m) > 0) lm_num_set(&m, &v);
            first = 0;
        }
        lm_num_set_d(&s, 0.0);
        for (int t = 0; t < D->T; t++) {
            if (t == o) continue;
            lm_mat_get(&v, F->logs, i, t);
            lm_num_sub(&v, &v, &m);
            lm_num_exp(&v, &v);
            lm_num_add(&s, &s, &v);
        }
        lm_num_log(&s, &s);
        lm_num_add(&s, &s, &m); /* log(1 - s_i,opt) */
        double ls = lm_num_get_d(&s);
        lmax = fmax(lmax, ls);
        lmin = fmin(lmin, ls);
        /* acc = LSE_i log(1 - s_i,opt) */
        if (first_acc) {
            lm_num_set(&acc, &s);
            first_acc = 0;
        } else {
            lm_num_max(&m, &acc, &s);
            lm_num_sub(&acc, &acc, &m);
            lm_num_exp(&acc, &acc);
            lm_num_sub(&s, &s, &m);
            lm_num_exp(&s, &s);
            lm_num_add(&acc, &acc, &s);
            lm_num_log(&acc, &acc);
            lm_num_add(&acc, &acc, &m);
        }
    }
    x->mean_sopt = msum / D->n;
    x->min_sopt = mmin;
    x->max_lomso = lmax;
    x->min_lomso = lmin;
    x->mean_lomso = lm_num_get_d(&acc) - log((double)D->n);
    x->e_W = lm_ibj_align_W(&v, J, R->sw.M) ? nan_d() : lm_num_get_d(&v);
    x->e_u = R->joint && !lm_ibj_align_u(&v, J, R->su.M) ? lm_num_get_d(&v) : nan_d();
    x->step = x->move = nan_d();
    lm_num_clears(&v, &m, &s, &acc, (lm_num *)NULL);
    return !(isfinite(x->log_loss) && isfinite(x->norm_W) && isfinite(x->norm_u) &&
             isfinite(x->max_lomso) && isfinite(x->min_lomso));
}

static int record_failed(int t, char *err, int errlen)
{
    snprintf(err, (size_t)errlen,
             "the loss, ||W_t|| or ||u_t|| is not finite at iterate %d (step too large?)", t);
    return -1;
}

/* one step; *move (may be NULL) receives ||theta_{t+1} - theta_t|| */
static int runner_step(runner *R, double *move, char *err, int errlen)
{
    lm_ibj *J = R->J;
    lm_mat *C0 = move ? lm_mat_dup(J->C) : NULL, *U0 = move ? lm_mat_dup(J->U) : NULL;
    int rc = lm_ibj_step(J, R->r->opt, &R->p);
    if (move) {
        lm_num a, b;
        lm_num_inits(&R->ctx, &a, &b, (lm_num *)NULL);
        lm_mat_sub(C0, J->C, C0);
        lm_ibj_inner_W(&a, J, NULL, C0, NULL, C0);
        if (R->joint) {
            lm_mat_sub(U0, J->U, U0);
            lm_ibj_inner_u(&b, J, U0, U0);
            lm_num_add(&a, &a, &b);
        }
        if (lm_num_sgn(&a) < 0) lm_num_set_d(&a, 0.0);
        lm_num_sqrt(&a, &a);
        *move = lm_num_get_d(&a);
        lm_num_clears(&a, &b, (lm_num *)NULL);
        lm_mat_free(C0);
        lm_mat_free(U0);
    }
    if (rc == 2) {
        snprintf(err, (size_t)errlen, "optimizer '%s' does not apply to this run", R->r->opt);
        return -1;
    }
    if (rc) {
        snprintf(err, (size_t)errlen, "a value is not finite after iterate %d (step too large?)",
                 R->J->t);
        return -1;
    }
    return 0;
}

void lm_ibrun_start(lm_attn_data **D, lm_mat **W0, const lm_ibrun_def *r, uint64_t seed, const lm_ctx *ctx)
{
    make_data(D, W0, r, seed, ctx);
}

int lm_ibrun_exec_from(lm_ibrun_rec **rec, const lm_ibrun_def *r, lm_attn_data *D, lm_mat *W0,
                       lm_ibrun_each each, void *cx, char *err, int errlen)
{
    runner R;
    *rec = NULL;
    if (runner_init(&R, r, D, W0, err, errlen)) {
        runner_free(&R);
        return -1;
    }
    lm_ibrun_rec *x = lm_xcalloc((size_t)r->steps + 1, sizeof *x);
    int rc = 0;
    for (int t = 0; t <= r->steps; t++) {
        if (runner_record(&x[t], &R)) {
            rc = record_failed(t, err, errlen);
            break;
        }
        if (each && (rc = each(cx, t, R.J, R.W0, err, errlen))) break;
        if (t == r->steps) break;
        if ((rc = runner_step(&R, &x[t].move, err, errlen))) break;
        x[t].step = R.J->last_step;
    }
    runner_free(&R);
    if (rc) {
        free(x);
        return rc;
    }
    *rec = x;
    return 0;
}

int lm_ibrun_exec(lm_ibrun_rec **rec, const lm_ibrun_def *r, uint64_t seed, const lm_ctx *ctx,
                  char *err, int errlen)
{
    lm_attn_data *D;
    lm_mat *W0;
    make_data(&D, &W0, r, seed, ctx);
    return lm_ibrun_exec_from(rec, r, D, W0, NULL, NULL, err, errlen);
}

void lm_ibrun_csv_header(FILE *f, const lm_ibrun_def *r)
{
    if (lm_ibrun_joint(r))
        fprintf(f, "iterate,loss,log_loss,norm_W,norm_u,mean_s_opt,min_s_opt,max_log_1m_s_opt,"
                   "min_log_1m_s_opt,e_W,e_u,step,move\n");
    else
        fprintf(f, "iterate,loss,log_loss,log_excess,norm_W,mean_s_opt,min_s_opt,"
                   "max_log_1m_s_opt,min_log_1m_s_opt,e_W,step,move\n");
}

void lm_ibrun_csv_row(FILE *f, const lm_ibrun_def *r, const lm_ibrun_rec *x)
{
    if (lm_ibrun_joint(r))
        fprintf(f, "%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n",
                x->t, exp(x->log_loss), x->log_loss, x->norm_W, x->norm_u, x->mean_sopt,
                x->min_sopt, x->max_lomso, x->min_lomso, x->e_W, x->e_u, x->step, x->move);
    else
        fprintf(f, "%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n",
                x->t, exp(x->log_loss), x->log_loss, x->log_excess, x->norm_W, x->mean_sopt,
                x->min_sopt, x->max_lomso, x->min_lomso, x->e_W, x->step, x->move);
}

/* ||theta_d - theta_m|| / ||theta_m|| with the difference formed in MPFR */
static double coef_drift(const runner *Rd, const runner *Rm)
{
    const lm_ibj *Jm = Rm->J;
    const lm_ctx *c = &Rm->ctx;
    lm_mat *dC = lm_mat_new(Jm->n, Jm->T, c), *dU = lm_mat_new(Jm->n, Jm->T, c);
    lm_num a, b, z;
    lm_num_inits(c, &a, &b, &z, (lm_num *)NULL);
    lm_mat_copy(dC, Rd->J->C); /* exact: double -> MPFR */
    lm_mat_sub(dC, dC, Jm->C);
    lm_ibj_inner_W(&a, Jm, NULL, dC, NULL, dC);
    lm_ibj_norm_W(&b, Jm);
    lm_num_sqr(&b, &b);
    if (Rm->joint) {
        lm_mat_copy(dU, Rd->J->U);
        lm_mat_sub(dU, dU, Jm->U);
        lm_ibj_inner_u(&z, Jm, dU, dU);
        lm_num_add(&a, &a, &z);
        lm_ibj_inner_u(&z, Jm, Jm->U, Jm->U);
        lm_num_add(&b, &b, &z);
    }
    double r;
    if (lm_num_sgn(&a) <= 0) r = 0.0;
    else if (lm_num_sgn(&b) <= 0) r = INFINITY;
    else {
        lm_num_div(&a, &a, &b);
        lm_num_sqrt(&a, &a);
        r = lm_num_get_d(&a);
    }
    lm_num_clears(&a, &b, &z, (lm_num *)NULL);
    lm_mat_free(dC);
    lm_mat_free(dU);
    return r;
}

static double rel_diff(double d, double m)
{
    if (isnan(m) && isnan(d)) return nan_d();
    if (d == m) return 0.0;
    return fabs(d - m) / fabs(m);
}

int lm_ibrun_drift(lm_ibrun_rec **rd, lm_ibrun_rec **rm, lm_ibrun_drift_rec **dr,
                   const lm_ibrun_def *r, uint64_t seed, mpfr_prec_t bits, char *err, int errlen)
{
    *rd = *rm = NULL;
    *dr = NULL;
    lm_ctx cd = lm_ctx_double(), cm = lm_ctx_mpfr(bits);
    lm_attn_data *Dd, *Dm;
    lm_mat *W0d, *W0m = NULL;
    make_data(&Dd, &W0d, r, seed, &cd);
    Dm = lm_attn_data_convert(Dd, &cm); /* the same data, exactly */
    if (W0d) {
        W0m = lm_mat_new(W0d->r, W0d->c, &cm);
        lm_mat_copy(W0m, W0d);
    }
    runner A, B;
    int rc = runner_init(&A, r, Dd, W0d, err, errlen);
    if (rc) {
        runner_free(&A);
        lm_attn_data_free(Dm);
        lm_mat_free(W0m);
        return rc;
    }
    if ((rc = runner_init(&B, r, Dm, W0m, err, errlen))) {
        runner_free(&A);
        runner_free(&B);
        return rc;
    }
    size_t ns = (size_t)r->steps + 1;
    lm_ibrun_rec *xd = lm_xcalloc(ns, sizeof *xd), *xm = lm_xcalloc(ns, sizeof *xm);
    lm_ibrun_drift_rec *x = lm_xcalloc(ns, sizeof *x);
    for (int t = 0; t <= r->steps; t++) {
        if (runner_record(&xd[t], &A) || runner_record(&xm[t], &B)) {
            rc = record_failed(t, err, errlen);
            break;
        }
        x[t].coef = coef_drift(&A, &B);
        x[t].e_rel = rel_diff(xd[t].e_W, xm[t].e_W);
        x[t].lomso_rel = rel_diff(xd[t].max_lomso, xm[t].max_lomso);
        if (t == r->steps) break;
        if ((rc = runner_step(&A, &xd[t].move, err, errlen))) {
            char e2[200];
            snprintf(e2, sizeof e2, "double run: %s", err);
            snprintf(err, (size_t)errlen, "%s", e2);
            break;
        }
        if ((rc = runner_step(&B, &xm[t].move, err, errlen))) {
            char e2[200];
            snprintf(e2, sizeof e2, "MPFR run: %s", err);
            snprintf(err, (size_t)errlen, "%s", e2);
            break;
        }
        xd[t].step = A.J->last_step;
        xm[t].step = B.J->last_step;
    }
    runner_free(&A);
    runner_free(&B);
    if (rc) {
        free(xd);
        free(xm);
        free(x);
        return rc;
    }
    *rd = xd;
    *rm = xm;
    *dr = x;
    return 0;
}

double lm_ibrun_fit_cuberoot(const lm_ibrun_rec *rec, int steps, double *a2, double *c2)
{
    double num = 0, den = 0;
    for (int t = 1; t <= steps; t++) {
        double s = cbrt((double)t);
        num += rec[t].log_loss * s;
        den += s * s;
    }
    double c = den > 0 ? -num / den : nan_d();
    /* two-parameter fit over the second half */
    const int t0 = steps / 2 > 1 ? steps / 2 : 1, m = steps - t0 + 1;
    double *s = m > 0 ? malloc(sizeof *s * (size_t)m) : NULL, *y = m > 0 ? malloc(sizeof *y * (size_t)m) : NULL;
    lm_fit f;
    int bad = !s || !y;
    for (int t = t0; !bad && t <= steps; t++) {
        s[t - t0] = cbrt((double)t);
        y[t - t0] = rec[t].log_loss;
    }
    bad = bad || lm_fit_line(&f, s, y, m, 0.95);
    free(s);
    free(y);
    *c2 = bad ? nan_d() : -f.slope;
    *a2 = bad ? nan_d() : f.intercept;
    return c;
}

/* ---------- the live part of `lemmata verify` ---------- */

const char *const lm_iblive_names[] = {"ib-ngd", "ib-compare", "ib-joint13", NULL};

typedef lm_sbuf sbuf;

/* about 60 iterates a decade on a log axis (all of the first 30, the last) */
static int keep_log(int t, int steps)
{
    if (t < 1) return 0;
    if (t <= 30 || t == steps) return 1;
    const double k = 60.0 / log(10.0);
    return floor(k * log((double)t)) != floor(k * log((double)t - 1.0));
}

/* about 400 iterates on a linear axis */
static int keep_lin(int t, int steps)
{
    int every = steps / 400 > 1 ? steps / 400 : 1;
    return t % every == 0 || t == steps;
}

/* append the command that repeats a live entry */
static void reproduce(char *summ, size_t n, const char *what, int steps, uint64_t seed)
{
    size_t l = strlen(summ);
    snprintf(summ + l, n - l, " Repeat: lemmata train %s --steps %d --seed %llu.", what, steps,
             (unsigned long long)seed);
}

static const double LOG10E = 0.43429448190325182765;

static int live_ngd(lm_iblive *L, int quick, uint64_t seed, char *err, int errlen)
{
    lm_ibrun_def r = *lm_ibrun_find("ib-ngd");
    r.steps = quick ? 400 : 3000;
    lm_ibrun_rec *xd, *xm;
    lm_ibrun_drift_rec *x;
    if (lm_ibrun_drift(&xd, &xm, &x, &r, seed, 256, err, errlen)) return -1;
    sbuf b = {0};
    lm_live_fig_begin(&b, "drift", 1, 1, "iterate t", "relative difference, double vs MPFR-256",
              "ib-ngd: double against MPFR-256, per iterate",
              "Relative differences between the NGD run in IEEE double and the same run wholly in "
              "MPFR at 256 bits (same data, same start): the coefficients of $W_t$ in the Gram "
              "norm, $e_t=1-\\cos(W_t,W_{mm})$ and $\\max_i\\log(1-s_{i,\\rm opt})$.  Zero "
              "differences are not drawn on the log axis.  The dashed line is the double unit "
              "roundoff $2^{-53}$; the dotted vertical line marks the iterate from which some "
              "$s_{i,\\rm opt}$ rounds to $1$ in double.");
    const double u53 = ldexp(1.0, -53), thr = -53.0 * log(2.0);
    int sat_any = -1, sat_all = -1, tmax_c = 0, tmax_e = 0, tmax_l = 0;
    double mc = 0, me = 0, ml = 0, ylo = INFINITY, yhi = 0;
    for (int t = 0; t <= r.steps; t++) {
        if (sat_any < 0 && xd[t].min_lomso < thr) sat_any = t;
        if (sat_all < 0 && xd[t].max_lomso < thr) sat_all = t;
        if (x[t].coef > mc) { mc = x[t].coef; tmax_c = t; }
        if (x[t].e_rel > me) { me = x[t].e_rel; tmax_e = t; }
        if (x[t].lomso_rel > ml) { ml = x[t].lomso_rel; tmax_l = t; }
        double v[3] = {x[t].coef, x[t].e_rel, x[t].lomso_rel};
        for (int k = 0; k < 3; k++)
            if (v[k] > 0) { ylo = fmin(ylo, v[k]); yhi = fmax(yhi, v[k]); }
        if (!keep_log(t, r.steps)) continue;
        if (x[t].coef > 0) lm_live_pt(&b, "coefficients of W_t (Gram norm)", t, x[t].coef);
        if (x[t].e_rel > 0) lm_live_pt(&b, "e_t = 1 - cos(W_t, W_mm)", t, x[t].e_rel);
        if (x[t].lomso_rel > 0) lm_live_pt(&b, "max_i log(1 - s_opt)", t, x[t].lomso_rel);
    }
    lm_live_pt(&b, "~unit roundoff 2^-53", 1, u53);
    lm_live_pt(&b, "~unit roundoff 2^-53", r.steps, u53);
    if (sat_any > 0 && isfinite(ylo)) {
        lm_live_pt(&b, ":s_opt = 1 in double from here", sat_any, fmin(ylo, u53));
        lm_live_pt(&b, ":s_opt = 1 in double from here", sat_any, fmax(yhi, u53));
    }
    char summ[1400];
    snprintf(summ, sizeof summ,
             "NGD, eta = %g, on EX1-hetero (n = %d, T = %d, d = %d), %d iterates in double and "
             "wholly in MPFR-256: largest relative coefficient drift %.2g (t = %d), largest "
             "relative difference of e_t %.2g (t = %d) and of max_i log(1 - s_opt) %.2g (t = %d). "
             "In double, s_opt (1 - s_opt < 2^-53) rounds to 1 for some sequence from t = %d and "
             "for every sequence from t = %d; the log-domain forward pass carries on regardless. "
             "At t = %d: e_t = %.3g (MPFR), ||W_t|| = %.6g, max_i log(1 - s_opt) = %.4g.",
             r.eta, r.n, r.T, r.d, r.steps, mc, tmax_c, me, tmax_e, ml, tmax_l, sat_any, sat_all,
             r.steps, xm[r.steps].e_W, xm[r.steps].norm_W, xm[r.steps].max_lomso);
    L->name = "ib-ngd";
    L->doc = "R1 (implicit-bias paper): NGD on EX1-hetero with u fixed, W_0 = 0, eta = 0.5, in "
             "double and wholly in MPFR-256 (lemmata train ib-ngd --drift 256).";
    L->steps = r.steps;
    L->prec = 256;
    L->series = b.s;
    reproduce(summ, sizeof summ, "ib-ngd --drift 256", r.steps, seed);
    L->summary = lm_xstrdup(summ);
    free(xd);
    free(xm);
    free(x);
    return 0;
}

/* ||W_mm|| of run r's data (double), NaN when the W-SVM fails */
static double wmm_norm(const lm_ibrun_def *r, uint64_t seed)
{
    lm_ctx cd = lm_ctx_double();
    lm_attn_data *D;
    lm_mat *W0;
    make_data(&D, &W0, r, seed, &cd);
    lm_svm_sol s;
    memset(&s, 0, sizeof s);
    double v = lm_svm_w(&s, D, NULL) ? nan_d() : sqrt(lm_num_get_d(&s.norm2));
    lm_svm_sol_clear(&s);
    lm_mat_free(W0);
    lm_attn_data_free(D);
    return v;
}

static int live_compare(lm_iblive *L, int quick, uint64_t seed, char *err, int errlen)
{
    static const char *const names[4] = {"ib-gd", "ib-ngd", "ib-polyak", "ib-polyak-cap"};
    static const char *const label[4] = {"GD (eta 5)", "NGD (eta 0.5)", "Polyak",
                                         "Polyak, cap 50"};
    int steps = quick ? 400 : 3000;
    lm_ibrun_rec *x[4] = {NULL, NULL, NULL, NULL};
    for (int k = 0; k < 4; k++) {
        lm_ibrun_def r = *lm_ibrun_find(names[k]);
        r.steps = steps;
        lm_ctx cd = lm_ctx_double();
        if (lm_ibrun_exec(&x[k], &r, seed, &cd, err, errlen)) {
            char e2[300];
            snprintf(e2, sizeof e2, "%s: %s", names[k], err);
            snprintf(err, (size_t)errlen, "%s", e2);
            for (int j = 0; j < k; j++) free(x[j]);
            return -1;
        }
    }
    sbuf b = {0};
    lm_live_fig_begin(&b, "loss", 1, 1, "iterate t", "-log10(L(W_t) - L*)",
              "ib-compare: excess train loss (decimal digits)",
              "Excess train loss as decimal digits, $-\\log_{10}(\\hat L(W_t)-\\hat L^*)$ "
              "(log axes), where $\\hat L^*=\\frac1n\\sum_i\\ell(\\gamma_{i,\\rm opt})>0$ is the "
              "infimum with $u$ fixed: the train loss itself levels off at $\\hat L^*$, as in "
              "the paper's Fig.~2, so its approach to $\\hat L^*$ is drawn.  Computed in the log "
              "domain: the excess falls far below the double range.");
    for (int k = 0; k < 4; k++)
        for (int t = 1; t <= steps; t++)
            if (keep_log(t, steps)) lm_live_pt(&b, label[k], t, -x[k][t].log_excess * LOG10E);
    lm_live_fig_begin(&b, "normW", 1, 1, "iterate t", "||W_t||", "ib-compare: iterate norm",
              "$\\|W_t\\|_F$: linear growth $\\approx\\eta t$ for NGD, logarithmic for GD.");
    for (int k = 0; k < 4; k++)
        for (int t = 1; t <= steps; t++)
            if (keep_log(t, steps)) lm_live_pt(&b, label[k], t, x[k][t].norm_W);
    lm_live_fig_begin(&b, "sopt", 1, 1, "iterate t", "-log10(1 - mean_i s_opt)",
              "ib-compare: softmax score of the optimal token",
              "Saturation of the optimal-token score as decimal digits, "
              "$-\\log_{10}(1-\\bar s_{\\rm opt})$ with $\\bar s_{\\rm opt}=\\frac1n\\sum_i "
              "s_{i,\\rm opt}$ (log axes; the paper plots $\\bar s_{\\rm opt}$ itself, which "
              "hides how close to 1 it gets).  Above the dashed line ($53\\log_{10}2$) "
              "$\\bar s_{\\rm opt}$ rounds to 1 in double; the value drawn is computed in the log "
              "domain, never as $1-s$.");
    for (int k = 0; k < 4; k++)
        for (int t = 1; t <= steps; t++)
            if (keep_log(t, steps)) lm_live_pt(&b, label[k], t, -x[k][t].mean_lomso * LOG10E);
    lm_live_pt(&b, "~s_opt = 1 in double above this", 1, 53.0 * log10(2.0));
    lm_live_pt(&b, "~s_opt = 1 in double above this", steps, 53.0 * log10(2.0));
    lm_live_fig_begin(&b, "align", 1, 1, "iterate t", "e_t = 1 - cos(W_t, W_mm)",
              "ib-compare: alignment with the W-SVM",
              "Alignment error $e_t=1-\\langle\\bar W_t,\\bar W_{mm}\\rangle$ against the "
              "W-SVM solution of the designated optimal tokens, computed cancellation-free in "
              "coefficient space (the paper plots $1-e_t$).");
    for (int k = 0; k < 4; k++)
        for (int t = 1; t <= steps; t++)
            if (keep_log(t, steps)) lm_live_pt(&b, label[k], t, x[k][t].e_W);
    char summ[1400];
    int n = 0;
    n += snprintf(summ + n, sizeof summ - (size_t)n,
                  "Same EX1-hetero data (n = 6, T = 4, d = 800), W_0 = 0, %d iterates each in "
                  "double. At the last iterate:", steps);
    for (int k = 0; k < 4; k++)
        n += snprintf(summ + n, sizeof summ - (size_t)n,
                      "%s %s: e_t = %.2g, ||W_t|| = %.4g, log10(L - L*) = %.4g", k ? ";" : "",
                      label[k], x[k][steps].e_W, x[k][steps].norm_W,
                      x[k][steps].log_excess * LOG10E);
    snprintf(summ + n, sizeof summ - (size_t)n,
             ". Last uncapped Polyak step length ||W_{t+1} - W_t|| = %.5g (||W_mm|| = %.5g: the "
             "catalogue expects it to tend there).",
             x[2][steps - 1].move, wmm_norm(lm_ibrun_find("ib-polyak"), seed));
    L->name = "ib-compare";
    L->doc = "Fig. 2 of the implicit-bias paper as a live run: GD (R2), NGD (R1), Polyak (R3a) "
             "and capped Polyak (R3b) on the same EX1-hetero data, u fixed, in double.";
    L->steps = steps;
    L->prec = 53;
    L->series = b.s;
    reproduce(summ, sizeof summ, "ib-gd|ib-ngd|ib-polyak|ib-polyak-cap", steps, seed);
    L->summary = lm_xstrdup(summ);
    for (int k = 0; k < 4; k++) free(x[k]);
    return 0;
}

static int live_joint(lm_iblive *L, int quick, uint64_t seed, char *err, int errlen)
{
    lm_ibrun_def r = *lm_ibrun_find("ib-joint13");
    r.steps = quick ? 5000 : 40000;
    lm_ctx cd = lm_ctx_double();
    lm_ibrun_rec *x;
    if (lm_ibrun_exec(&x, &r, seed, &cd, err, errlen)) return -1;
    double a2, c2, c = lm_ibrun_fit_cuberoot(x, r.steps, &a2, &c2);
    sbuf b = {0};
    char fit1[120], fit2[160], cap[1200];
    snprintf(fit1, sizeof fit1, "~exp(-c t^(1/3)), c = %.4g (all t)", c);
    snprintf(fit2, sizeof fit2, ":exp(a - c2 t^(1/3)), c2 = %.4g, a = %.3g (second half)", c2, a2);
    snprintf(cap, sizeof cap,
             "Train loss $\\hat L(\\theta_t)$ of the joint update (13) on DM data (log scale) "
             "against the claimed rate $\\exp(-\\Theta(t^{1/3}))$: the dashed curve is "
             "$\\exp(-c\\,t^{1/3})$ with $c=%.4g$ fitted by least squares of $\\log\\hat L_t$ "
             "over all iterates $t\\ge1$ (it equals $\\hat L_0=1$ at $t=0$, since $u_0=0$); the "
             "dotted curve is the two-parameter fit $\\log\\hat L=a-c_2t^{1/3}$ over the second "
             "half of the run ($c_2=%.4g$, $a=%.3g$), the asymptotic form.",
             c, c2, a2);
    lm_live_fig_begin(&b, "loss", 0, 1, "iterate t", "train loss L(theta_t)",
              "ib-joint13: loss against exp(-c t^(1/3))", cap);
    for (int t = 0; t <= r.steps; t++)
        if (keep_lin(t, r.steps)) {
            double v = exp(x[t].log_loss);
            if (v > 0) lm_live_pt(&b, "loss L_t (double)", t, v);
        }
    for (int t = 0; t <= r.steps; t++)
        if (keep_lin(t, r.steps)) lm_live_pt(&b, fit1, t, exp(-c * cbrt((double)t)));
    for (int t = r.steps / 2; t <= r.steps; t++)
        if (keep_lin(t, r.steps)) lm_live_pt(&b, fit2, t, exp(a2 - c2 * cbrt((double)t)));
    lm_live_fig_begin(&b, "align", 1, 1, "iterate t", "1 - cos", "ib-joint13: alignment of W and u",
              "Alignment errors of the joint run, $1-\\cos(W_t,W_{mm})$ and "
              "$1-\\cos(u_t,u_{mm})$, against the W-SVM and the u-SVM of the designated optimal "
              "tokens (computed in coefficient space, without cancellation).");
    for (int t = 1; t <= r.steps; t++)
        if (keep_log(t, r.steps)) {
            lm_live_pt(&b, "1 - cos(W_t, W_mm)", t, x[t].e_W);
            lm_live_pt(&b, "1 - cos(u_t, u_mm)", t, x[t].e_u);
        }
    char summ[1400];
    int T = r.steps, t1 = T / 4, t2 = T / 2;
    snprintf(summ, sizeof summ,
             "Joint update (13), eta = %g, alpha = %.4g, DM data (n = %d, d = %d), W_0 = 0, u_0 = 0, "
             "%d iterates in double. log L = %.4g, %.4g, %.4g at t = %d, %d, %d; least-squares "
             "c = %.4g for exp(-c t^(1/3)) over the run (two-parameter fit over the second half: "
             "c2 = %.4g). At t = %d: ||W_t|| = %.4g, ||u_t|| = %.4g, 1 - cos(W_t, W_mm) = %.3g, "
             "1 - cos(u_t, u_mm) = %.3g.",
             r.eta, r.alpha, r.n, r.d, T, x[t1].log_loss, x[t2].log_loss, x[T].log_loss, t1, t2,
             T, c, c2, T, x[T].norm_W, x[T].norm_u, x[T].e_W, x[T].e_u);
    L->name = "ib-joint13";
    L->doc = "R4 (implicit-bias paper): the reconstructed joint update (13) on DM data, in "
             "double (lemmata train ib-joint13).";
    L->steps = r.steps;
    L->prec = 53;
    L->series = b.s;
    reproduce(summ, sizeof summ, "ib-joint13", r.steps, seed);
    L->summary = lm_xstrdup(summ);
    free(x);
    return 0;
}

int lm_iblive_run(lm_iblive *L, int k, int quick, uint64_t seed, char *err, int errlen)
{
    memset(L, 0, sizeof *L);
    switch (k) {
    case 0: return live_ngd(L, quick, seed, err, errlen);
    case 1: return live_compare(L, quick, seed, err, errlen);
    case 2: return live_joint(L, quick, seed, err, errlen);
    default: snprintf(err, (size_t)errlen, "no live entry %d", k); return -1;
    }
}

