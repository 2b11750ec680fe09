/* lemmas/mirror/assumptionA.c
 *
 * \claim{mirror/assumptionA}{Assumption A: the loss is strictly decreasing with a bounded, Lipschitz derivative}
 * \source{mirror-descent-attention, Assumption A (main text; reconstructed after Tarzanagh et al.\ 2023)}
 * \statement{Over any bounded interval, $\ell:\mathbb R\to\mathbb R$ is strictly decreasing and
 *   differentiable, and its derivative $\ell'$ is bounded and Lipschitz continuous.  The paper's
 *   experiments use the logistic loss $\ell(u)=\log(1+e^{-u})$; the exponential loss $e^{-u}$ and
 *   the correlation loss $-u$ are the other admissible losses.}
 * \check{One configuration per loss (\texttt{logistic}, \texttt{exponential},
 *   \texttt{correlation}).  Each instance draws a data set with the paper's generator
 *   ($n=6$, $T=8$, $d=10$, unit-norm $v$, $x_{it}$, $z_i$), scales the head $v$ by
 *   $s\in\{1,3,7\}$ (cycled; the adversarial search moves $\log s\in[-2,2]$, probing with
 *   $N/8$ grid points and evaluating its final point on the full grid) and takes the
 *   interval $[a,b]=[\min_{it}\gamma_{it},\max_{it}\gamma_{it}]$ of the token scores, the only
 *   interval the margins $u_i=\gamma_i^\top s_i$ can visit (Lemma~16).  On the uniform grid
 *   $u_j=a+jh$, $h=(b-a)/N$ with $N=10^5$ points (\texttt{grid}; $N/8$ in quick runs), all
 *   computed in the working precision: (i) strict decrease, $\ell(u_{j+1})\le\ell(u_j)$ at the
 *   worst $j$ (the reported ratio $\ell(u_{j+1})/\ell(u_j)$, or $e^{\ell(u_{j+1})-\ell(u_j)}$ for
 *   the correlation loss, is below 1 exactly when the loss decreases on the grid);
 *   (ii) differentiability with the derivative the gradient formula uses:
 *   $|(\ell(u_{j+1})-\ell(u_{j-1}))/(2h)-\ell'(u_j)|\le h^2L_3/6+8\epsilon(\max|\ell|+M_0\max(|a|,|b|))/h$, with
 *   $L_3=\sup_{[a,b]}|\ell'''|$ in closed form and $\epsilon$ the unit roundoff of the working
 *   precision; (iii) Lipschitz continuity of $\ell'$: the empirical constant
 *   $L_N=\max_j|\ell'(u_{j+1})-\ell'(u_j)|/h$ is at most the exact one
 *   $L=\sup_{[a,b]}|\ell''|$ times \texttt{lip\_scale} (logistic: $\sigma(c)\sigma(-c)$ with
 *   $c$ the point of $[a,b]$ nearest 0; exponential: $e^{-a}$; correlation: 0), plus the rounding
 *   of the quotients $16\epsilon M_0/h$; (iv) stability
 *   under refinement: $|L_{2N}-L_N|\le hL_3+48\epsilon M_0/h$ (both lie within $hL_3$ of $L$).  The bound
 *   $M_0=\sup_{[a,b]}|\ell'|$ (finite) and the Lipschitz constants are reported.  A break in
 *   double is replayed in MPFR; the wrong-constant test sets \texttt{lip\_scale} $=0.5$.  Readings: every configuration is a \texttt{paper} reading (the statement as the catalogue reconstructs it).}
 */
#include "lm_claim.h"
#include "lm_md.h"
#include <math.h>

static const char *const configs[] = {"logistic", "exponential", "correlation", NULL};
/* one reading per configuration (issue 16) */
static const lm_reading readings[] = {
    {LM_READ_PAPER, "Logistic loss log(1+e^-u), the paper's experimental loss: decrease, "
                    "derivative and Lipschitz bound of ell' on the token-score interval of paper "
                    "data (6,8,10).", NULL},
    {LM_READ_PAPER, "Exponential loss e^-u: the same four checks on the score interval, where the "
                    "Lipschitz constant e^-a of ell' is the largest of the three admissible "
                    "losses.", NULL},
    {LM_READ_PAPER, "Correlation loss -u: the degenerate admissible loss with constant derivative "
                    "-1 and Lipschitz constant 0, an edge case of the grid checks on the score "
                    "interval.", NULL},
    LM_READINGS_END};


#define PARAMS(NUM, SWITCH)                                                                                                      \
    NUM(lip_scale, 1.0, "[0, 1e6]", "multiplies the exact Lipschitz constant sup |ell''| of ell' on [a,b]")                      \
    NUM(tol_scale, 1.0, "[0, inf)", "multiplies the tolerances of checks (ii) and (iv)")                                         \
    NUM(grid, 100000, "int [16, 2000000]", "grid points N on [min gamma, max gamma] (quick: N/8) (at most 2000000: cost bound)") \
    NUM(n, 6, "int [1, 256]", "samples of the paper generator (at most 256: cost bound)")                                        \
    NUM(T, 8, "int [1, 64]", "tokens per sample (at most 64)")                                                                   \
    NUM(d, 10, "int [1, 64]", "dimension (at most 64)")
LM_PARAMS(PARAMS)

enum { LOGISTIC = 0, EXPONENTIAL = 1, CORRELATION = 2 };

/* softplus(z) = log(1 + e^z), stable */
static void softplus(lm_num *r, const lm_num *z, lm_num *w)
{
    lm_num_abs(w, z);
    lm_num_neg(w, w);
    lm_num_exp(w, w);
    lm_num_log1p(w, w);
    if (lm_num_sgn(z) > 0) lm_num_add(r, z, w);
    else lm_num_set(r, w);
}

/* ell(u) */
static void loss(lm_num *r, int L, const lm_num *u, lm_num *w1, lm_num *w2)
{
    if (L == LOGISTIC) {
        lm_num_neg(w1, u);
        softplus(r, w1, w2);
    } else if (L == EXPONENTIAL) {
        lm_num_neg(r, u);
        lm_num_exp(r, r);
    } else {
        lm_num_neg(r, u);
    }
}

/* ell'(u) */
static void dloss(lm_num *r, int L, const lm_num *u, lm_num *w1, lm_num *w2)
{
    if (L == LOGISTIC) { /* -1/(1+e^u) = -exp(-softplus(u)) */
        softplus(w1, u, w2);
        lm_num_neg(w1, w1);
        lm_num_exp(r, w1);
        lm_num_neg(r, r);
    } else if (L == EXPONENTIAL) {
        lm_num_neg(r, u);
        lm_num_exp(r, r);
        lm_num_neg(r, r);
    } else {
        lm_num_set_d(r, -1.0);
    }
}

/* logistic sigma(c) sigma(-c) */
static double sig2(double c) { return 1.0 / ((1.0 + exp(c)) * (1.0 + exp(-c))); }

/* empirical Lipschitz constant of ell' on N points from a with step h; also
 * the worst monotonicity pair and the worst derivative residual when asked */
typedef struct {
    lm_num lip;      /* max |ell'(u_{j+1}) - ell'(u_j)| / h */
    lm_num mono_a;   /* ell(u_{j+1}) at the worst j */
    lm_num mono_b;   /* ell(u_j) */
    lm_num fdres;    /* max |FD - ell'| */
    lm_num maxl;     /* max |ell| */
    lm_num M0;       /* max |ell'| */
    int fd_j;
} scan;

static void scan_grid(scan *S, int L, const lm_num *a, const lm_num *h, int N, int full, const lm_ctx *c)
{
    lm_num u, lp, l0, lm, dp, d0, w1, w2, x, best, h2;
    lm_num_inits(c, &u, &lp, &l0, &lm, &dp, &d0, &w1, &w2, &x, &best, &h2, (lm_num *)NULL);
    lm_num_set_d(&S->lip, 0.0);
    lm_num_set_d(&S->fdres, 0.0);
    lm_num_set_d(&S->maxl, 0.0);
    lm_num_set_d(&S->M0, 0.0);
    lm_num_mul_d(&h2, h, 2.0);
    int have_best = 0;
    S->fd_j = 0;
    /* ell and ell' at u_0 */
    lm_num_set(&u, a);
    loss(&l0, L, &u, &w1, &w2);
    dloss(&d0, L, &u, &w1, &w2);
    lm_num_set(&lm, &l0);
    for (int j = 0; j < N; j++) {
        /* u_{j+1} = a + (j+1) h (no accumulated rounding) */
        lm_num_mul_d(&u, h, (double)(j + 1));
        lm_num_add(&u, &u, a);
        loss(&lp, L, &u, &w1, &w2);
        dloss(&dp, L, &u, &w1, &w2);
        /* Lipschitz quotient */
        lm_num_sub(&x, &dp, &d0);
        lm_num_abs(&x, &x);
        lm_num_div(&x, &x, h);
        lm_num_max(&S->lip, &S->lip, &x);
        lm_num_abs(&x, &d0);
        lm_num_max(&S->M0, &S->M0, &x);
        if (full) {
            lm_num_abs(&x, &l0);
            lm_num_max(&S->maxl, &S->maxl, &x);
            /* monotonicity: worst ell(u_{j+1}) - ell(u_j) (or ratio for positive losses) */
            if (L == CORRELATION) lm_num_sub(&x, &lp, &l0);
            else lm_num_div(&x, &lp, &l0);
            if (!have_best || lm_num_cmp(&x, &best) > 0) {
                lm_num_set(&best, &x);
                lm_num_set(&S->mono_a, &lp);
                lm_num_set(&S->mono_b, &l0);
                have_best = 1;
            }
            /* central difference at u_j (interior points) */
            if (j > 0) {
                lm_num_sub(&x, &lp, &lm);
                lm_num_div(&x, &x, &h2);
                lm_num_sub(&x, &x, &d0);
                lm_num_abs(&x, &x);
                if (lm_num_cmp(&x, &S->fdres) > 0) {
                    lm_num_set(&S->fdres, &x);
                    S->fd_j = j;
                }
            }
        }
        lm_num_set(&lm, &l0);
        lm_num_set(&l0, &lp);
        lm_num_set(&d0, &dp);
    }
    lm_num_abs(&x, &d0);
    lm_num_max(&S->M0, &S->M0, &x);
    if (full) {
        lm_num_abs(&x, &l0);
        lm_num_max(&S->maxl, &S->maxl, &x);
    }
    lm_num_clears(&u, &lp, &l0, &lm, &dp, &d0, &w1, &w2, &x, &best, &h2, (lm_num *)NULL);
}

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    const lm_ctx *c = ev->ctx;
    int L = ev->config;
    int n = lm_int(P.n), T = lm_int(P.T), d = lm_int(P.d);
    int N = lm_int(P.grid);
    if (ev->quick || ev->searching) N /= 8; /* the adversarial search probes with a coarser grid */
    if (N < 16) N = 16;
    double tol_scale = P.tol_scale;
    static const double scales[] = {1.0, 3.0, 7.0};
    double s = scales[ev->index % 3];
    if (ev->x && ev->nx >= 1) s = exp(fmin(2.0, fmax(-2.0, ev->x[0])));

    lm_mddata *D = lm_md_gen_paper(lm_eval_rng(ev), n, T, d, c);
    lm_mat_scale_d(D->v, D->v, s);
    lm_attn_fwd *F = lm_md_fwd_new(D);
    lm_mat *W = lm_mat_new(d, d, c);
    int rc = 0;
    scan S1, S2;
    lm_num_inits(c, &S1.lip, &S1.mono_a, &S1.mono_b, &S1.fdres, &S1.maxl, &S1.M0, (lm_num *)NULL);
    lm_num_inits(c, &S2.lip, &S2.mono_a, &S2.mono_b, &S2.fdres, &S2.maxl, &S2.M0, (lm_num *)NULL);
    lm_num a, b, h, tol, bound, x;
    lm_num_inits(c, &a, &b, &h, &tol, &bound, &x, (lm_num *)NULL);
    if (lm_md_forward(F, D, W, LM_ATTN_LOGISTIC)) {
        rc = lm_fail(ev, "non-finite forward pass at W = 0");
        goto out;
    }
    /* the score interval [a, b], in the context */
    lm_mat_min(&a, F->gam);
    lm_mat_max(&b, F->gam);
    lm_num_sub(&h, &b, &a);
    if (!(lm_num_sgn(&h) > 0)) {
        lm_assume(ev, 0, "all token scores are equal: the interval is a point");
        goto out;
    }
    lm_num_div_d(&h, &h, (double)N);
    double ad = lm_num_get_d(&a), bd = lm_num_get_d(&b), hd = lm_num_get_d(&h);

    scan_grid(&S1, L, &a, &h, N, 1, c);
    lm_num_div_d(&x, &h, 2.0);
    scan_grid(&S2, L, &a, &x, 2 * N, 0, c);
    if (!lm_num_isfinite(&S1.lip) || !lm_num_isfinite(&S2.lip) || !lm_num_isfinite(&S1.M0)) {
        rc = lm_fail(ev, "non-finite loss derivative on the score interval");
        goto out;
    }

    /* exact constants on [a, b] (double: loose quantities, each an upper bound
     * rounded up by a relative 1e-13) */
    double Lip, L3;
    if (L == LOGISTIC) {
        double cc = fmin(fmax(0.0, ad), bd);
        Lip = sig2(cc);
        L3 = 1.0 / (6.0 * sqrt(3.0)); /* max |sigma(1-sigma)(1-2 sigma)| */
    } else if (L == EXPONENTIAL) {
        Lip = exp(-ad);
        L3 = exp(-ad);
    } else {
        Lip = 0.0;
        L3 = 0.0;
    }
    double eps = lm_ctx_eps(c);

    /* (i) strict decrease on the grid */
    if (L == CORRELATION)
        lm_obs_le_log(ev, -1, &S1.mono_a, &S1.mono_b, 0.0, "monotone: ell(u_j+1) <= ell(u_j) on [%.3g, %.3g]",
                      ad, bd);
    else
        lm_obs_le(ev, -1, &S1.mono_a, &S1.mono_b, 0.0, "monotone: ell(u_j+1) <= ell(u_j) on [%.3g, %.3g]", ad,
                  bd);

    /* (ii) the derivative: central differences vs ell' */
    lm_num_set_d(&tol, hd * hd * L3 / 6.0);
    lm_num_mul_d(&x, &S1.M0, fmax(fabs(ad), fabs(bd))); /* rounding of the grid points */
    lm_num_add(&x, &x, &S1.maxl);
    lm_num_mul_d(&x, &x, 8.0 * eps / hd);
    lm_num_add(&tol, &tol, &x);
    lm_num_mul_d(&tol, &tol, tol_scale * (1.0 + 1e-6));
    lm_obs_le(ev, -1, &S1.fdres, &tol, 0.0, "|central difference - ell'| at u = %.4g",
              ad + S1.fd_j * hd);

    /* (iii) Lipschitz constant of ell' */
    /* + the rounding of the difference quotients, 16 eps M0 / h (tied to the precision) */
    double M0d = lm_num_get_d(&S1.M0);
    lm_num_set_d(&bound, Lip * P.lip_scale * (1.0 + 1e-13) + 16.0 * eps * M0d / hd);
    lm_obs_le(ev, -1, &S1.lip, &bound, 0.0, "empirical Lip(ell') on N = %d points <= sup|ell''| on [%.3g, %.3g]",
              N, ad, bd);
    lm_num_set_d(&bound, Lip * P.lip_scale * (1.0 + 1e-13) + 32.0 * eps * M0d / hd);
    lm_obs_le(ev, -1, &S2.lip, &bound, 0.0, "empirical Lip(ell') on 2N points <= sup|ell''|");

    /* (iv) stability under refinement: |L_2N - L_N| <= h L3 (+ rounding of the quotients) */
    lm_num_sub(&x, &S2.lip, &S1.lip);
    lm_num_abs(&x, &x);
    lm_num_set_d(&tol, hd * L3 + 48.0 * eps * M0d / hd);
    lm_num_mul_d(&tol, &tol, tol_scale);
    lm_obs_le(ev, -1, &x, &tol, 0.0, "|L_2N - L_N| <= h sup|ell'''|");

    lm_measure(ev, "interval a", ad);
    lm_measure(ev, "interval b", bd);
    lm_measure(ev, "M0 = sup |ell'|", lm_num_get_d(&S1.M0));
    lm_measure(ev, "empirical Lipschitz L_N", lm_num_get_d(&S1.lip));
    lm_measure(ev, "empirical Lipschitz L_2N", lm_num_get_d(&S2.lip));
    lm_measure(ev, "exact Lipschitz sup|ell''|", Lip);
    lm_measure(ev, "head scale s", s);
out:
    lm_num_clears(&S1.lip, &S1.mono_a, &S1.mono_b, &S1.fdres, &S1.maxl, &S1.M0, (lm_num *)NULL);
    lm_num_clears(&S2.lip, &S2.mono_a, &S2.mono_b, &S2.fdres, &S2.maxl, &S2.M0, (lm_num *)NULL);
    lm_num_clears(&a, &b, &h, &tol, &bound, &x, (lm_num *)NULL);
    lm_mat_free(W);
    lm_attn_fwd_free(F);
    lm_md_data_free(D);
    return rc;
}

LM_CLAIM(claim_mirror_assumptionA) = {
    .kind = LM_KIND_STRUCTURAL,
    .source = "Assumption A (main text)",
    .origin = "reconstructed",
    .confidence = "medium-high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .search_dim = 1,
    .eval = eval,
};
