/* lemmas/precond/assumption2.c
 *
 * \claim{precond/assumption2}{A2: $k\ge d$ and $W_\star$ has full column rank}
 * \source{preconditioned-softmax-regression, Assumption A2 (Section 2)}
 * \statement{$k\ge d$ and $W_\star\in\mathbb R^{k\times d}$ has full column rank $d$.  Together with A1
 *   this gives $s_d=\sigma_d(W_\star\Sigma^{1/2})>0$.}
 * \check{A2 is a hypothesis; what is checked is that every instance the harness uses meets it.
 *   Instances cycle through the families of S1/S9 ($c\in\{0.3,0.5,1\}$, $\kappa\in\{10^2,10^6\}$,
 *   the S9 default $d=4,k=6,\tau=0.05$ and its A3 copy), $d\in[1,5]$, $k\in[d,d+2]$,
 *   $\tau\in\{0.004,0.01,0.1,1\}$.  The singular values of $M_\star=W_\star\Sigma^{1/2}$ are computed in
 *   the working precision, and again in MPFR-256 whenever $s_d/s_1<10^{-12}$ or $\kappa=10^6$ (S11).
 *   Observed: $d\le k$, and $\texttt{min\_rel}\cdot s_1\le s_d$ with $\texttt{min\_rel}=10^{-12}$ (far below
 *   the families, far above the rounding of an exactly rank-deficient $M_\star$).  Measured: $s_d/s_1$,
 *   $\log_{10}\kappa(W_\star)$, and, as the catalogue's illustration of why A2 matters, the one-point
 *   ratio $\langle\nabla L_{\rm reg}(\theta),\theta-\theta_I\rangle_F/\|\theta-\theta_I\|_\Sigma^2$ at the point
 *   of $\mathcal M$'s parametrisation with $s_d$ replaced by $t^2$, $t=10^{-3}$: it equals $2t^2$ when
 *   $s_d=0$, so the one-point strong convexity of Theorem 1.3 is lost.  Negative controls
 *   (\texttt{plant}): \texttt{k<d} draws $W_\star$ with $k=d-1$ rows ($d\ge2$), and
 *   \texttt{rank-deficient} copies column 1 of $W_\star$ into column $d$ exactly (rank $d-1$); both must
 *   come out violated (the first by $d\le k$, the second by $s_d=0$, confirmed in MPFR).}
 */
#include "lm_pcst.h"
#include <math.h>

static const char *const configs[] = {"c=0.3", "c=0.5", "c=1", "kappa=1e2", "kappa=1e6", "paper-default",
                                      "A3-copy", NULL};
#define PARAMS(NUM, SWITCH)                                                                                                          \
    NUM(min_rel, 1e-12, "[0, 1]", "floor: min_rel s_1 <= s_d decides full column rank")                                              \
    SWITCH(plant, 0, "none|k<d|rank-deficient", "none; k<d: a wide W*; rank-deficient: two equal columns of W* (negative controls)")
LM_PARAMS(PARAMS)

/* s_1 and s_min of W* Sigma^1/2 (k x d) in context c; returns nonzero on failure */
static int svals_Ms(double *s1, double *smin, const lm_mat *Ws0, const lm_mat *Sig0, const lm_ctx *c)
{
    int k = Ws0->r, d = Ws0->c, m = k < d ? k : d;
    lm_mat *W = lm_mat_new(k, d, c), *S = lm_mat_new(d, d, c), *Sh = lm_mat_new(d, d, c), *M = lm_mat_new(k, d, c);
    lm_mat_copy(W, Ws0);
    lm_mat_copy(S, Sig0);
    int rc = lm_pc_sympow(Sh, S, 0.5);
    lm_mat_mul(M, W, 0, Sh, 0);
    lm_num *s = lm_nums_new(m, c);
    rc |= lm_mat_svals(s, M);
    *s1 = lm_num_get_d(&s[0]);
    *smin = k < d ? 0.0 : lm_num_get_d(&s[m - 1]); /* sigma_d = 0 when there are fewer than d */
    lm_nums_free(s, m);
    lm_mat_free(W); lm_mat_free(S); lm_mat_free(Sh); lm_mat_free(M);
    return rc || !isfinite(*s1) || !isfinite(*smin);
}

/* the one-point ratio at theta_t = (U S_t^1/2, S_t^1/2 V^T) with s_d -> t^2 (AB coordinates) */
static double onepoint(const lm_pcdata *P, double t)
{
    const lm_ctx *c = &P->ctx;
    int d = P->d, k = P->k;
    lm_mat *A = lm_mat_new(k, d, c), *B = lm_mat_new(d, d, c), *A0 = lm_mat_new(k, d, c), *B0 = lm_mat_new(d, d, c);
    lm_num x, y;
    lm_num_inits(c, &x, &y, (lm_num *)NULL);
    for (int j = 0; j < d; j++) {
        lm_num_sqrt(&y, &P->s[j]);
        for (int pass = 0; pass < 2; pass++) {
            if (pass == 1 && j == d - 1) lm_num_set_d(&y, t);
            lm_mat *AA = pass ? A : A0, *BB = pass ? B : B0;
            for (int i = 0; i < k; i++) {
                lm_mat_get(&x, P->U, i, j);
                lm_num_mul(&x, &x, &y);
                lm_mat_set(AA, i, j, &x);
            }
            for (int i = 0; i < d; i++) {
                lm_mat_get(&x, P->V, i, j);
                lm_num_mul(&x, &x, &y);
                lm_mat_set(BB, j, i, &x);
            }
            lm_num_sqrt(&y, &P->s[j]);
        }
    }
    lm_pcth th = lm_pc_th_new(P), t0 = lm_pc_th_new(P), G = lm_pc_th_new(P);
    lm_pc_from_AB(&th, P, A, B);
    lm_pc_from_AB(&t0, P, A0, B0);
    lm_pc_grad_Lreg(&G, P, &th);
    lm_pc_th_axpy(&t0, &t0, -1.0, &th); /* -Delta = theta_I - theta */
    lm_pc_dot(&x, &G, &t0);
    lm_num_neg(&x, &x);
    lm_pc_norm(&y, P, &t0);
    lm_num_sqr(&y, &y);
    double r = lm_num_get_d(&x) / lm_num_get_d(&y);
    lm_num_clears(&x, &y, (lm_num *)NULL);
    lm_pc_th_free(&th); lm_pc_th_free(&t0); lm_pc_th_free(&G);
    lm_mat_free(A); lm_mat_free(B); lm_mat_free(A0); lm_mat_free(B0);
    return r;
}

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    static const double taus[] = {0.004, 0.01, 0.1, 1.0};
    lm_pcst_spec sp;
    lm_pcst_spec_draw(&sp, ev->config, 5, taus, 4, g);
    int plant = lm_int(prm.plant);
    if (plant && sp.d < 2) sp.d = 2;
    if (plant && sp.k < sp.d) sp.k = sp.d;
    lm_ctx cd = lm_ctx_double();
    lm_pcdata *P0 = lm_pcst_make(&sp, g, &cd);
    int d = sp.d, k = sp.k;
    lm_mat *Ws = lm_mat_dup(P0->Ws);
    if (plant == 1) { /* k = d - 1: drop the last row */
        k = d - 1;
        lm_mat_free(Ws);
        Ws = lm_mat_new(k, d, &cd);
        for (int i = 0; i < k; i++)
            for (int j = 0; j < d; j++) lm_mat_set_d(Ws, i, j, lm_mat_get_d(P0->Ws, i, j));
    } else if (plant == 2) {
        for (int i = 0; i < k; i++) lm_mat_set_d(Ws, i, d - 1, lm_mat_get_d(Ws, i, 0));
    }
    const char *fam = lm_pcst_family_name[ev->config];
    double s1, sd;
    int rc = 0;
    lm_ctx cw = *ev->ctx;
    if (sp.kappa >= 1e6 && lm_pcst_bits(&cw) < 256) cw = lm_ctx_mpfr(256);
    if (svals_Ms(&s1, &sd, Ws, P0->Sig, &cw)) {
        rc = lm_fail(ev, "SVD of W* Sigma^1/2 failed");
        goto out;
    }
    if (sd < 1e-12 * s1 && lm_pcst_bits(&cw) < 256) {
        lm_ctx c2 = lm_ctx_mpfr(256);
        if (svals_Ms(&s1, &sd, Ws, P0->Sig, &c2)) {
            rc = lm_fail(ev, "MPFR SVD of W* Sigma^1/2 failed");
            goto out;
        }
        lm_measure(ev, "s_d recomputed in mpfr256", 1);
    }
    lm_obs_le_d(ev, -1, (double)d, (double)k, 0.0, "A2: d <= k (%s, d=%d, k=%d)", fam, d, k);
    lm_obs_le_d(ev, -1, prm.min_rel * s1, sd, 0.0, "A2: min_rel s_1 <= s_d (%s, d=%d, k=%d%s)", fam, d,
                k, plant ? ", planted" : "");
    lm_measure(ev, "s_d / s_1", sd / s1);
    if (!plant) {
        lm_pcdata *P = lm_pc_convert(P0, ev->ctx);
        double r = onepoint(P, 1e-3);
        if (!isfinite(r)) rc = lm_fail(ev, "one-point ratio not finite");
        else {
            lm_measure(ev, "one-point ratio at s_d -> t^2 (t=1e-3) / s_d", r / sd);
            lm_measure(ev, "one-point ratio at s_d -> t^2 (t=1e-3)", r);
        }
        lm_pc_free(P);
    } else if (plant == 2) {
        /* with s_d = 0 the ratio is 2 t^2: Theorem 1.3's strong convexity is lost */
        lm_pcdata *P = lm_pc_convert(P0, ev->ctx);
        lm_mat_copy(P->Ws, Ws);
        if (!lm_pc_prepare(P)) lm_measure(ev, "one-point ratio at s_d -> t^2 (t=1e-3), s_d = 0 (expected 2e-6)",
                                          onepoint(P, 1e-3));
        lm_pc_free(P);
    }
out:
    lm_mat_free(Ws);
    lm_pc_free(P0);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "Family Sigma = G G^T/d + c I with c = 0.3, d in 1..5, k in d..d+2: k >= d and s_d >= 1e-12 "
     "s_1 for the singular values of W_star Sigma^(1/2).",
     NULL},
    {LM_READ_PAPER,
     "Family Sigma = G G^T/d + c I with c = 0.5, d in 1..5, k in d..d+2: k >= d and s_d >= 1e-12 "
     "s_1 for the singular values of W_star Sigma^(1/2).",
     NULL},
    {LM_READ_PAPER,
     "Family Sigma = G G^T/d + c I with c = 1, d in 1..5, k in d..d+2: k >= d and s_d >= 1e-12 "
     "s_1 for the singular values of W_star Sigma^(1/2).",
     NULL},
    {LM_READ_PAPER,
     "Stress covariances with kappa = 1e2: k >= d and W_star Sigma^(1/2) of full column rank, s_d "
     ">= 1e-12 s_1.",
     NULL},
    {LM_READ_PAPER,
     "Stress covariances with kappa = 1e6, singular values recomputed in MPFR-256: k >= d and "
     "W_star Sigma^(1/2) of full column rank, s_d >= 1e-12 s_1.",
     NULL},
    {LM_READ_PAPER,
     "The paper-sized S9 harness default (d = 4, k = 6, tau = 0.05): k >= d and W_star "
     "Sigma^(1/2) of full column rank, s_d >= 1e-12 s_1.",
     NULL},
    {LM_READ_PAPER,
     "The A3-conforming copy of the S9 default (d = 4, k = 6, tau = 0.01): k >= d and W_star "
     "Sigma^(1/2) of full column rank, s_d >= 1e-12 s_1.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_precond_assumption2) = {
    .kind = LM_KIND_STRUCTURAL,
    .source = "Assumption A2",
    .origin = "reconstructed",
    .confidence = "medium",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .eval = eval,
};
