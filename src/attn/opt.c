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

/* scaled W-gradient Gs (max coefficient 1), its log-scale and log ||Gs|| */
static int scaled_grad(lm_mat *Gs, lm_num *ls, lm_num *lnorm, lm_attn_state *S, lm_attn_fwd *F,
                       const lm_attn_data *D, const lm_attn_opt_par *p)
{
    if (lm_attn_forward(F, D, S->W, S->u, p->loss)) return 1;
    lm_mat *C = lm_mat_new(D->n, D->T, &D->ctx);
    lm_attn_grad_coef(C, ls, F);
    if (!lm_num_isfinite(ls)) { lm_mat_free(C); return 2; } /* exactly stationary */
    lm_attn_expand(Gs, C, NULL, D);
    lm_mat_free(C);
    lm_mat_frob(lnorm, Gs);
    if (lm_num_sgn(lnorm) <= 0) return 2;
    lm_num_log(lnorm, lnorm);
    return 0;
}

static int step_gd(lm_attn_state *S, lm_attn_fwd *F, const lm_attn_data *D, const lm_attn_opt_par *p)
{
    lm_mat *G = lm_mat_new(D->d, D->d, &D->ctx);
    lm_num ls, ln, f;
    lm_num_inits(&D->ctx, &ls, &ln, &f, (lm_num *)NULL);
    int rc = scaled_grad(G, &ls, &ln, S, F, D, p);
    if (!rc) {
        lm_num_exp(&f, &ls);
        lm_num_mul_d(&f, &f, -p->eta);
        lm_mat_axpy(S->W, &f, G);
        S->last_step = p->eta;
    }
    lm_num_clears(&ls, &ln, &f, (lm_num *)NULL);
    lm_mat_free(G);
    S->t++;
    return rc == 2 ? 0 : rc;
}

static int ngd_common(lm_attn_state *S, lm_attn_fwd *F, const lm_attn_data *D, const lm_attn_opt_par *p,
                      double beta)
{
    lm_mat *G = lm_mat_new(D->d, D->d, &D->ctx);
    lm_num ls, ln, f;
    lm_num_inits(&D->ctx, &ls, &ln, &f, (lm_num *)NULL);
    int rc = scaled_grad(G, &ls, &ln, S, F, D, p);
    if (!rc) {
        lm_num_neg(&f, &ln);
        lm_num_exp(&f, &f); /* 1/||G|| */
        lm_mat_scale(G, G, &f);
        if (beta > 0.0) {
            lm_mat_scale_d(S->vW, S->vW, beta);
            lm_mat_add(S->vW, S->vW, G);
            lm_mat_axpy_d(S->W, -p->eta, S->vW);
        } else {
            lm_mat_axpy_d(S->W, -p->eta, G);
        }
        S->last_step = p->eta;
    }
    lm_num_clears(&ls, &ln, &f, (lm_num *)NULL);
    lm_mat_free(G);
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
    lm_mat *G = lm_mat_new(D->d, D->d, &D->ctx);
    lm_num ls, ln, lex, f, e;
    lm_num_inits(&D->ctx, &ls, &ln, &lex, &f, &e, (lm_num *)NULL);
    int rc = scaled_grad(G, &ls, &ln, S, F, D, p);
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
        if (lm_num_isfinite(&f)) lm_mat_axpy(S->W, &f, G);
        else rc = lm_num_isfinite(&lex) ? 1 : 0; /* L = L* exactly: no step */
    }
    lm_num_clears(&ls, &ln, &lex, &f, &e, (lm_num *)NULL);
    lm_mat_free(G);
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
