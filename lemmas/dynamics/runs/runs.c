/* runs.c -- named live training runs (lemmata train RUN). */
#include "lm_dyntrain.h"
#include "lm_claim.h"
#include "lm_live.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const lm_dynrun_def lm_dynruns[] = {
    {"t1-softmax-block", "Theorem 1: GD on W^V only (block-diagonal), softmax", 2, 3, 4, 2, 2,
     LM_SOFTMAX, LM_WV_BLOCK, LM_VAR_V, 0.0, 2000, 1.0, 0.3, 1.0, 1.0, 0},
    {"t1-softmax-dense", "Theorem 1: GD on W^V only (dense HD x Hd), softmax", 2, 3, 4, 2, 2,
     LM_SOFTMAX, LM_WV_DENSE, LM_VAR_V, 0.0, 2000, 1.0, 0.3, 1.0, 1.0, 0},
    {"t2-softmax", "Theorem 2: simultaneous GD on W^Q, W^K, W^V, softmax", 2, 2, 5, 2, 1,
     LM_SOFTMAX, LM_WV_BLOCK, LM_VAR_ALL, 0.0, 2000, 1.0, 0.3, 1.0, 1.0, 0},
    {"t2-gauss", "Section 4.1 analogue: GD on W^Q, W^K, W^V, Gaussian kernel", 2, 2, 5, 2, 1,
     LM_GAUSS, LM_WV_BLOCK, LM_VAR_ALL, 0.0, 2000, 1.0, 0.3, 1.0, 1.0, 0},
    {"t3-gauss", "Theorem 3 part 1: GD on W^Q only, Gaussian kernel", 1, 2, 2, 2, 1, LM_GAUSS,
     LM_WV_BLOCK, LM_VAR_Q, 0.0, 2000, 1.0, 0.3, 1.0, 1.0, 0},
    {"t3-softmax", "Theorem 3 part 2: GD on W^Q only, softmax kernel", 1, 2, 2, 2, 1,
     LM_SOFTMAX, LM_WV_BLOCK, LM_VAR_Q, 0.0, 2000, 1.0, 0.3, 1.0, 1.0, 0},
    {NULL, NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};

const lm_dynrun_def *lm_dynrun_find(const char *name)
{
    for (int k = 0; lm_dynruns[k].name; k++)
        if (strcmp(lm_dynruns[k].name, name) == 0) return &lm_dynruns[k];
    return NULL;
}

/* The numeric settings and their ranges (the same declarations as a claim's parameters,
 * lm_claim.h).  The sizes' upper ends are the claims' multi-head attention bounds
 * (lm_nm5_max); steps is the command line's --steps range. */
static const lm_param_def run_settings[] = {
    {"N", 0, "samples (at most 16, as lm_nm5_max)", NULL, "int [1, 16]"},
    {"n", 0, "tokens per sample (at most 16, as lm_nm5_max)", NULL, "int [1, 16]"},
    {"D", 0, "embedding width (at most 32, as lm_nm5_max)", NULL, "int [1, 32]"},
    {"d", 0, "head dimension (at most 16, as lm_nm5_max)", NULL, "int [1, 16]"},
    {"H", 0, "heads (at most 8, as lm_nm5_max)", NULL, "int [1, 8]"},
    {"steps", 0, "GD iterations (as --steps)", NULL, "int [0, 10000000]"},
    {"eta", 0, "step size (0: automatic, 1/||Hessian||_2 at the start)", NULL, "[0, 1e300]"},
    {"sx", 0, "scale of the data X", NULL, "[0, 1e6]"},
    {"sqk", 0, "init scale of W^Q, W^K", NULL, "[0, 1e6]"},
    {"sv", 0, "init scale of W^V", NULL, "[0, 1e6]"},
    {"so", 0, "init scale of W^O", NULL, "[0, 1e6]"},
    {NULL, 0, NULL, NULL, NULL}};

int lm_dynrun_set(lm_dynrun_def *r, const char *kv, char *err, int errlen)
{
    size_t l;
    const char *v;
    if (lm_live_split(kv, &l, &v, err, errlen)) return -1;
#define IS(s) (l == strlen(s) && strncmp(kv, s, l) == 0)
    static const char *const sw[3] = {"kernel", "wv", "labels"};
    static const char *const choices[3] = {"softmax|gauss", "block|dense", "teacher|random|near"};
    for (int k = 0; k < 3; k++) {
        if (!IS(sw[k])) continue;
        if (k == 0 && !strcmp(v, "softmax")) r->kernel = LM_SOFTMAX;
        else if (k == 0 && !strcmp(v, "gauss")) r->kernel = LM_GAUSS;
        else if (k == 1 && !strcmp(v, "block")) r->wv = LM_WV_BLOCK;
        else if (k == 1 && !strcmp(v, "dense")) r->wv = LM_WV_DENSE;
        else if (k == 2 && !strcmp(v, "teacher")) r->labels = 0;
        else if (k == 2 && !strcmp(v, "random")) r->labels = 1;
        else if (k == 2 && !strcmp(v, "near")) r->labels = 2;
        else {
            snprintf(err, (size_t)errlen, "run %s: %s takes one of %s, not '%.40s' (bad value in --set)",
                     r->name, sw[k], choices[k], v);
            return -1;
        }
        return 0;
    }
    const lm_param_def *p = NULL;
    for (int k = 0; run_settings[k].name && !p; k++)
        if (IS(run_settings[k].name)) p = &run_settings[k];
    if (!p) {
        snprintf(err, (size_t)errlen,
                 "unknown run setting '%.*s' (known: N n D d H steps eta sx sqk sv so kernel wv labels)",
                 (int)l, kv);
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
    int *ip = IS("N") ? &r->N : IS("n") ? &r->n : IS("D") ? &r->D : IS("d") ? &r->d
            : IS("H") ? &r->H : IS("steps") ? &r->steps : NULL;
    double *dp = IS("eta") ? &r->eta : IS("sx") ? &r->sX : IS("sqk") ? &r->sQK
               : IS("sv") ? &r->sV : &r->sO;
    if (ip) *ip = (int)x;
    else *dp = x;
    return 0;
#undef IS
}

lm_mha *lm_dynrun_model(const lm_dynrun_def *r, uint64_t seed, const lm_ctx *ctx)
{
    lm_rng g;
    lm_rng_init(&g, seed);
    lm_mha *m = lm_mha_new(r->N, r->n, r->D, r->d, r->H, r->kernel, r->wv, ctx);
    lm_mha_randomize(m, &g, r->sX, r->sQK, r->sV, r->sO);
    if (r->labels == 0) { /* teacher: an independent random model's output */
        lm_mha *t = lm_mha_new(r->N, r->n, r->D, r->d, r->H, r->kernel, r->wv, ctx);
        lm_mha_randomize(t, &g, r->sX, r->sQK, r->sV, r->sO);
        for (int i = 0; i < r->N; i++) lm_mat_copy(t->X[i], m->X[i]);
        lm_mha_set_y_to_output(t);
        lm_mat_copy(m->y, t->y);
        lm_mha_free(t);
    } else if (r->labels == 1) {
        lm_mat_randn(m->y, &g, 1.0);
    } else {
        lm_mha_set_y_to_output(m);
        for (int k = 0; k < m->y->r; k++)
            lm_mat_set_d(m->y, k, 0, lm_mat_get_d(m->y, k, 0) + 1e-3 * lm_rng_normal(&g));
    }
    lm_mha_forward(m);
    return m;
}

/* eta = 0 in a run definition means 1/||H||_2, H the Hessian of the loss in
 * the trained parameters at the start (formed by central differences of the
 * closed-form gradient, in double): the local gradient-Lipschitz constant. */
double lm_dynrun_auto_eta(const lm_dynrun_def *r, uint64_t seed)
{
    lm_ctx cd = lm_ctx_double();
    lm_mha *m = lm_dynrun_model(r, seed, &cd);
    double eta = lm_dynrun_auto_eta_of(r, m);
    lm_mha_free(m);
    return eta;
}

/* the same at the start of m (any context: evaluated in double) */
double lm_dynrun_auto_eta_of(const lm_dynrun_def *r, const lm_mha *m0)
{
    lm_ctx cd = lm_ctx_double();
    lm_mha *m = lm_mha_convert(m0, &cd);
    lm_mha_forward(m);
    int np = lm_mha_nparams(m, r->mask);
    lm_mat *p = lm_mat_new(np, 1, &cd), *Hs = lm_mat_new(np, np, &cd);
    lm_mat *gp = lm_mat_new(np, 1, &cd), *gm = lm_mat_new(np, 1, &cd);
    lm_mha_get_params(p, m, r->mask);
    for (int q = 0; q < np; q++) {
        double x = lm_mat_get_d(p, q, 0), h = 1e-5 * fmax(1.0, fabs(x));
        lm_mat_set_d(p, q, 0, x + h);
        lm_mha_set_params(m, r->mask, p);
        lm_mha_flat_grad(gp, m, r->mask);
        lm_mat_set_d(p, q, 0, x - h);
        lm_mha_set_params(m, r->mask, p);
        lm_mha_flat_grad(gm, m, r->mask);
        for (int k = 0; k < np; k++)
            lm_mat_set_d(Hs, k, q, (lm_mat_get_d(gp, k, 0) - lm_mat_get_d(gm, k, 0)) / (2 * h));
        lm_mat_set_d(p, q, 0, x);
    }
    lm_num s;
    lm_num_init(&s, &cd);
    lm_mat_smax(&s, Hs);
    double eta = 1.0 / lm_num_get_d(&s);
    lm_num_clear(&s);
    lm_mat_free(p); lm_mat_free(Hs); lm_mat_free(gp); lm_mat_free(gm);
    lm_mha_free(m);
    return isfinite(eta) && eta > 0 ? eta : 1e-3;
}

/* the automatic step size forms the np x np Hessian: at most 512 trained parameters
 * (its Jacobi SVD takes seconds at 512); 0, else -1 with the message in err */
static int auto_eta_fits(const lm_dynrun_def *r, const lm_mha *m, char *err, int errlen)
{
    const int np = lm_mha_nparams(m, r->mask);
    if (r->eta > 0 || np <= 512) return 0;
    snprintf(err, (size_t)errlen,
             "the automatic step size (eta = 0) forms the Hessian of %d trained parameters, more than "
             "512: give eta with --set eta=V",
             np);
    return -1;
}

int lm_dynrun_exec(const lm_dynrun_def *r, uint64_t seed, const lm_ctx *ctx, FILE *f, int progress,
                char *err, int errlen)
{
    lm_mha *m = lm_dynrun_model(r, seed, ctx);
    if (auto_eta_fits(r, m, err, errlen)) {
        lm_mha_free(m);
        return -1;
    }
    return lm_dynrun_exec_model(r, m, r->eta > 0 ? r->eta : lm_dynrun_auto_eta(r, seed), f, progress, NULL, NULL,
                                err, errlen);
}

int lm_dynrun_eta_fits(const lm_dynrun_def *r, const lm_mha *m, char *err, int errlen)
{
    return auto_eta_fits(r, m, err, errlen);
}

int lm_dynrun_exec_model(const lm_dynrun_def *r, lm_mha *m, double eta_d, FILE *f, int progress,
                         lm_dynrun_each each, void *cx, char *err, int errlen)
{
    const lm_ctx *ctx = &m->ctx;
    lm_num eta;
    lm_num_init(&eta, ctx);
    lm_num_set_d(&eta, eta_d);
    fprintf(f, "iterate,loss,grad_norm,sigma_min_B,sigma_max_WQ,sigma_max_WK,sigma_max_WV,min_S\n");
    int rc = 0;
    for (int t = 0; t <= r->steps; t++) {
        lm_monitor mo;
        if (lm_monitor_eval(&mo, m, r->mask)) {
            snprintf(err, (size_t)errlen, "an SVD did not converge at iterate %d", t);
            rc = -1;
            break;
        }
        if (!isfinite(mo.f) || !isfinite(mo.gnorm)) {
            snprintf(err, (size_t)errlen, "loss or gradient not finite at iterate %d (step too large?)", t);
            rc = -1;
            break;
        }
        fprintf(f, "%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", t, mo.f, mo.gnorm, mo.smin_B,
                mo.smax_Q, mo.smax_K, mo.smax_V, mo.min_S);
        if (each && each(cx, t, m, err, errlen)) { /* m after forward: the iterate and its loss */
            rc = -1;
            break;
        }
        if (t == r->steps) break;
        lm_opt_gd.step(m, r->mask, &eta);
        if (progress && isatty(2) && (t % 100 == 0))
            fprintf(stderr, "\r  %s: iterate %d/%d  loss %.3e", r->name, t, r->steps, mo.f);
    }
    if (progress && isatty(2)) fprintf(stderr, "\r%70s\r", "");
    lm_num_clear(&eta);
    lm_mha_free(m);
    return rc;
}

int lm_dynrun_drift(const lm_dynrun_def *r, uint64_t seed, mpfr_prec_t bits, double **param_drift,
                 double **loss_drift, double **loss, char *err, int errlen)
{
    lm_ctx cd = lm_ctx_double(), cm = lm_ctx_mpfr(bits);
    lm_mha *md = lm_dynrun_model(r, seed, &cd);
    if (auto_eta_fits(r, md, err, errlen)) {
        lm_mha_free(md);
        return -1;
    }
    lm_mha *mm = lm_mha_convert(md, &cm); /* the same data and start, exactly */
    lm_mha_forward(mm);
    int np = lm_mha_nparams(md, r->mask);
    lm_mat *pd = lm_mat_new(np, 1, &cd), *pm = lm_mat_new(np, 1, &cm), *pc = lm_mat_new(np, 1, &cm);
    lm_num ed, em, x, y;
    lm_num_init(&ed, &cd);
    lm_num_inits(&cm, &em, &x, &y, (lm_num *)NULL);
    double e = r->eta > 0 ? r->eta : lm_dynrun_auto_eta(r, seed);
    lm_num_set_d(&ed, e);
    lm_num_set_d(&em, e);
    double *a = lm_xcalloc((size_t)r->steps + 1, sizeof *a), *b = lm_xcalloc((size_t)r->steps + 1, sizeof *b);
    double *fl = lm_xcalloc((size_t)r->steps + 1, sizeof *fl);
    int rc = 0;
    for (int t = 0; t <= r->steps; t++) {
        lm_mha_get_params(pd, md, r->mask);
        lm_mha_get_params(pm, mm, r->mask);
        lm_mat_copy(pc, pd);
        lm_mat_sub(pc, pc, pm);
        lm_mat_frob(&x, pc);
        lm_mat_frob(&y, pm);
        lm_num_div(&x, &x, &y);
        a[t] = lm_num_get_d(&x);
        lm_num_set_d(&x, lm_num_get_d(&md->f));
        lm_num_sub(&x, &x, &mm->f);
        lm_num_div(&x, &x, &mm->f);
        lm_num_abs(&x, &x);
        b[t] = lm_num_get_d(&x);
        fl[t] = lm_num_get_d(&md->f);
        if (!isfinite(a[t]) || !isfinite(b[t])) {
            snprintf(err, (size_t)errlen, "drift not finite at iterate %d", t);
            rc = -1;
            break;
        }
        if (t == r->steps) break;
        lm_mha_gd_step(md, r->mask, &ed);
        lm_mha_gd_step(mm, r->mask, &em);
        lm_mha_forward(md);
        lm_mha_forward(mm);
    }
    lm_num_clear(&ed);
    lm_num_clears(&em, &x, &y, (lm_num *)NULL);
    lm_mat_free(pd); lm_mat_free(pm); lm_mat_free(pc);
    lm_mha_free(md);
    lm_mha_free(mm);
    if (rc) { free(a); free(b); free(fl); return rc; }
    *param_drift = a;
    *loss_drift = b;
    *loss = fl;
    return 0;
}
