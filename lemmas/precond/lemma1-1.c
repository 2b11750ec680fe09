/* lemmas/precond/lemma1-1.c
 *
 * \claim{precond/lemma1.1}{Symmetry condition at the $\Sigma$-projection}
 * \source{preconditioned-softmax-regression, Lemma 1.1 (proof of Theorem 1)}
 * \statement{Fix any $\theta$ and let $\theta_P=(W_V^P,W_{KQ}^P)$ be its projection onto $\mathcal M$ in the
 *   $\Sigma$-norm, $\Delta=(\Delta_V,\Delta_{KQ})=\theta-\theta_P$.  Then $(W_V^P)^\top\Delta_V+W_{KQ}^P\Sigma\Delta_{KQ}^\top$
 *   is symmetric; equivalently $A_P^\top\Delta_A+B_P\Delta_B^\top$ is symmetric.  More strongly,
 *   $X:=\Sigma^{1/2}[(W_V^P)^\top W_V+W_{KQ}^P\Sigma W_{KQ}^\top]\Sigma^{1/2}=R_\star^\top K=Q\Lambda Q^\top$ is symmetric
 *   positive semidefinite ($K=S^{1/2}U^\top A+S^{1/2}V^\top B^\top=P\Lambda Q^\top$, $R_\star=PQ^\top$).}
 * \check{An identity, checked under the identity policy: each instance is rebuilt from the same
 *   doubles in IEEE double, MPFR-128 and MPFR-256 (never below the runner's precision), the
 *   projection is computed by the core's Procrustes routine in each, and the residuals
 *   (i) $\|Y-Y^\top\|_F/(\|W^P\|\,\|\theta\|)$ with $Y=(W_V^P)^\top\Delta_V+W_{KQ}^P\Sigma\Delta_{KQ}^\top$ in
 *   $W$-coordinates, scaled by the natural size of the products that form $Y$ (a relative
 *   residual $/\|Y\|_F$ would blow up by $\|\theta\|/\|\Delta\|$ for small $\Delta$ from the rounding
 *   of $\Delta=\theta-\theta_P$ alone); (ii) $\|X-X^\top\|_F/\|X\|_F$; (iii) $\|X-R_\star^\top K\|_F/\|X\|_F$;
 *   (iv) positive semidefiniteness, $\max(0,-\lambda_{\min}(\tfrac12(X+X^\top)))/\|X\|_F$, must each be
 *   $\le\texttt{tol\_scale}\cdot64d\,\kappa(\Sigma)(1+\sigma_1(K)/\sigma_d(K))\,u_p$ (the polar factor's
 *   condition number enters, S11) and must shrink from double to MPFR-256.  Configurations:
 *   \texttt{random} ($\theta=\theta_R+\Delta_0$, $\|\Delta_0\|$ log-uniform in $[10^{-8},10]$, $R$ Haar);
 *   \texttt{near-singular-K} ($A=US^{1/2}DR_0$, $B=R_0^\top D'S^{1/2}V^\top$ with $D,D'$ diagonal, last entries
 *   $\epsilon,\epsilon'\in10^{[-8,-2]}$, plus a perturbation of relative size $0.1\epsilon$: $\sigma_d(K)\approx s_d(\epsilon+\epsilon')$,
 *   the projection nearly non-unique); \texttt{repeated-sv} ($D$ chosen so that $K$ has a repeated top
 *   singular value).  Families: $c\in\{0.3,0.5,1\}$, $\kappa=10^2$; $d\in[2,4]$, $k\in[d,d+2]$.
 *   Measures: log10 residual per precision, $\sigma_d(K)$.  The switch \texttt{formula}$=$\texttt{wrong}
 *   uses $R_\star=QP^\top$ (the transposed polar factor) and must come out violated.}
 */
#include "lm_pcst.h"
#include <math.h>

static const char *const configs[] = {"random", "near-singular-K", "repeated-sv", NULL};
#define PARAMS(NUM, SWITCH)                                                                                       \
    NUM(tol_scale, 1.0, "[0, 1e6]", "multiplies the tolerance 64 d kappa(Sigma) (1 + sigma_1(K)/sigma_d(K)) u_p") \
    SWITCH(formula, 0, "stated|wrong", "stated: R* = P Q^T; wrong: R* = Q P^T (must be violated)")
LM_PARAMS(PARAMS)

typedef struct {
    lm_pcst_spec sp;
    uint64_t key_inst, key_pt;
    double eps1, eps2, scale;
} inst_t;

/* theta in context c for the instance (same doubles, same draws) */
static void build_theta(lm_pcth *th, const lm_pcdata *P, const inst_t *I, int cfg)
{
    const lm_ctx *c = &P->ctx;
    int d = P->d, k = P->k;
    lm_rng g;
    lm_rng_init(&g, I->key_pt);
    lm_mat *R = lm_mat_new(d, d, c);
    lm_pc_rand_orth(R, &g);
    lm_pcth D0 = lm_pc_th_new(P);
    if (cfg == 0) {
        lm_pc_manifold(th, P, R);
        lm_pc_th_randn(&D0, &g, 1.0);
        lm_num x;
        lm_num_init(&x, c);
        lm_pc_norm(&x, P, &D0);
        lm_pc_th_axpy(th, th, I->scale / lm_num_get_d(&x), &D0);
        lm_num_clear(&x);
    } else {
        lm_mat *A = lm_mat_new(k, d, c), *B = lm_mat_new(d, d, c), *US = lm_mat_new(k, d, c),
               *SV = lm_mat_new(d, d, c), *T = lm_mat_new(d, d, c);
        lm_num x, y;
        lm_num_inits(c, &x, &y, (lm_num *)NULL);
        for (int j = 0; j < d; j++) {
            double dj = 1.0, dj2 = 1.0;
            if (cfg == 1 && j == d - 1) { dj = I->eps1; dj2 = I->eps2; }
            if (cfg == 2 && j == 1) { /* s_2 D_2 = s_1: a repeated top singular value of K */
                lm_num_div(&y, &P->s[0], &P->s[1]);
                dj = dj2 = lm_num_get_d(&y);
            }
            lm_num_sqrt(&y, &P->s[j]);
            for (int i = 0; i < k; i++) {
                lm_mat_get(&x, P->U, i, j);
                lm_num_mul(&x, &x, &y);
                lm_num_mul_d(&x, &x, dj);
                lm_mat_set(US, i, j, &x);
            }
            for (int i = 0; i < d; i++) {
                lm_mat_get(&x, P->V, i, j);
                lm_num_mul(&x, &x, &y);
                lm_num_mul_d(&x, &x, dj2);
                lm_mat_set(SV, j, i, &x);
            }
        }
        lm_mat_mul(A, US, 0, R, 0);
        lm_mat_mul(B, R, 1, SV, 0);
        lm_pc_from_AB(th, P, A, B);
        /* a perturbation of relative size 0.1 eps */
        lm_pc_th_randn(&D0, &g, 1.0);
        lm_pc_norm(&x, P, &D0);
        lm_pc_norm(&y, P, th);
        double sc = 0.1 * (cfg == 1 ? fmin(I->eps1, I->eps2) * lm_num_get_d(&P->s[d - 1]) / lm_num_get_d(&P->s[0])
                                    : 1e-3) * lm_num_get_d(&y) / lm_num_get_d(&x);
        lm_pc_th_axpy(th, th, sc, &D0);
        lm_num_clears(&x, &y, (lm_num *)NULL);
        lm_mat_free(A); lm_mat_free(B); lm_mat_free(US); lm_mat_free(SV); lm_mat_free(T);
    }
    lm_pc_th_free(&D0);
    lm_mat_free(R);
}

/* one tier: returns 0, or 1 when an inner solve failed */
static int tier(lm_pcst_id *S, int t, const lm_pcdata *P0, const inst_t *I, int cfg, int wrong, double *smin_out)
{
    const lm_ctx *c = &S->tiers[t];
    lm_pcdata *P = lm_pc_convert(P0, c);
    int d = P->d, k = P->k, rc = 0;
    lm_pcth th = lm_pc_th_new(P), tp = lm_pc_th_new(P), Dl = lm_pc_th_new(P);
    build_theta(&th, P, I, cfg);
    lm_mat *A = lm_mat_new(k, d, c), *B = lm_mat_new(d, d, c), *US = lm_mat_new(k, d, c), *SV = lm_mat_new(d, d, c);
    lm_mat *K = lm_mat_new(d, d, c), *T = lm_mat_new(d, d, c), *Pm = lm_mat_new(d, d, c), *Qm = lm_mat_new(d, d, c);
    lm_mat *Rs = lm_mat_new(d, d, c), *X = lm_mat_new(d, d, c), *Y = lm_mat_new(d, d, c), *Z = lm_mat_new(d, d, c);
    lm_num *lam = lm_nums_new(d, c);
    lm_num x, y, nv, nk, lmn, lmx;
    lm_num_inits(c, &x, &y, &nv, &nk, &lmn, &lmx, (lm_num *)NULL);
    /* K = S^1/2 U^T A + S^1/2 V^T B^T and its SVD (the projection, written out so the wrong
     * polar factor can be substituted) */
    lm_pc_to_AB(A, B, P, &th);
    for (int j = 0; j < d; j++) {
        lm_num_sqrt(&y, &P->s[j]);
        for (int i = 0; i < k; i++) {
            lm_mat_get(&x, P->U, i, j);
            lm_num_mul(&x, &x, &y);
            lm_mat_set(US, i, j, &x);
        }
        for (int i = 0; i < d; i++) {
            lm_mat_get(&x, P->V, i, j);
            lm_num_mul(&x, &x, &y);
            lm_mat_set(SV, j, i, &x);
        }
    }
    lm_mat_mul(K, US, 1, A, 0);
    lm_mat_mul(T, SV, 0, B, 1);
    lm_mat_add(K, K, T);
    if (lm_mat_svd(lam, Pm, Qm, K) || lm_pcst_eig_minmax(&lmn, &lmx, P->Sig)) {
        rc = 1;
        goto out;
    }
    if (!wrong) {
        lm_pc_project(&tp, Rs, NULL, NULL, P, &th); /* the core's projection */
    } else {
        lm_mat *AP = lm_mat_new(k, d, c), *BP = lm_mat_new(d, d, c);
        lm_mat_mul(Rs, Qm, 0, Pm, 1);
        lm_mat_mul(AP, US, 0, Rs, 0);
        lm_mat_mul(BP, Rs, 1, SV, 0);
        lm_pc_from_AB(&tp, P, AP, BP);
        lm_mat_free(AP);
        lm_mat_free(BP);
    }
    double kap = lm_num_get_d(&lmx) / lm_num_get_d(&lmn);
    double cond = 1.0 + lm_num_get_d(&lam[0]) / lm_num_get_d(&lam[d - 1]);
    if (!isfinite(cond)) cond = 1e300;
    double Kf = 64.0 * d * kap * cond;
    *smin_out = lm_num_get_d(&lam[d - 1]);
    /* (i) Y = W_V^P' Delta_V + W_KQ^P Sigma Delta_KQ', relative to ||W^P|| ||theta|| */
    lm_pc_th_axpy(&Dl, &th, -1.0, &tp);
    lm_mat_mul(Y, tp.V, 1, Dl.V, 0);
    lm_mat_mul(T, tp.KQ, 0, P->Sig, 0);
    lm_mat_mul(Z, T, 0, Dl.KQ, 1);
    lm_mat_add(Y, Y, Z);
    lm_mat_transpose(Z, Y);
    lm_pc_dot(&x, &tp, &tp);
    lm_pc_dot(&y, &th, &th);
    lm_num_mul(&x, &x, &y);
    lm_num_sqrt(&nv, &x);
    lm_num_mul(&nv, &nv, &lmx); /* Sigma enters the second product */
    lm_num_add_d(&nv, &nv, 0.0);
    lm_pcst_id_rec(S, t, "(i) asymmetry of W_V^P' Delta_V + W_KQ^P Sigma Delta_KQ'", lm_pcst_rel_mat(Y, Z, &nv),
                   Kf);
    /* (ii)-(iv) X = Sigma^1/2 [W_V^P' W_V + W_KQ^P Sigma W_KQ'] Sigma^1/2 */
    lm_mat_mul(Y, tp.V, 1, th.V, 0);
    lm_mat_mul(Z, T, 0, th.KQ, 1);
    lm_mat_add(Y, Y, Z);
    lm_mat_mul(Z, P->Sh, 0, Y, 0);
    lm_mat_mul(X, Z, 0, P->Sh, 0);
    lm_mat_frob(&nk, X);
    lm_mat_transpose(Z, X);
    lm_pcst_id_rec(S, t, "(ii) asymmetry of X", lm_pcst_rel_mat(X, Z, &nk), Kf);
    lm_mat_mul(Y, Rs, 1, K, 0);
    lm_pcst_id_rec(S, t, "(iii) X = R*' K", lm_pcst_rel_mat(X, Y, &nk), Kf);
    lm_mat_add(Y, X, Z);
    lm_mat_scale_d(Y, Y, 0.5);
    if (lm_pcst_eig_minmax(&x, NULL, Y)) {
        rc = 1;
        goto out;
    }
    if (lm_num_sgn(&x) > 0) lm_num_set_d(&x, 0.0);
    lm_num_abs(&x, &x);
    lm_pcst_id_rec(S, t, "(iv) X is PSD: max(0, -lambda_min(sym X)) / ||X||", lm_pcst_rel(&x, &nk), Kf);
out:
    lm_num_clears(&x, &y, &nv, &nk, &lmn, &lmx, (lm_num *)NULL);
    lm_nums_free(lam, d);
    lm_mat_free(A); lm_mat_free(B); lm_mat_free(US); lm_mat_free(SV); lm_mat_free(K); lm_mat_free(T);
    lm_mat_free(Pm); lm_mat_free(Qm); lm_mat_free(Rs); lm_mat_free(X); lm_mat_free(Y); lm_mat_free(Z);
    lm_pc_th_free(&th); lm_pc_th_free(&tp); lm_pc_th_free(&Dl);
    lm_pc_free(P);
    return rc;
}

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    static const double taus[] = {0.01, 0.1, 1.0};
    inst_t I;
    lm_pcst_spec_draw(&I.sp, ev->index % 4 == 3 ? LM_PCST_K1E2 : ev->index % 3, 4, taus, 3, g);
    if (I.sp.d < 2) I.sp.d = 2;
    if (I.sp.k < I.sp.d) I.sp.k = I.sp.d;
    I.scale = pow(10.0, 9.0 * lm_rng_uniform(g) - 8.0);
    I.eps1 = pow(10.0, 6.0 * lm_rng_uniform(g) - 8.0);
    I.eps2 = pow(10.0, 6.0 * lm_rng_uniform(g) - 8.0);
    I.key_pt = lm_rng_u64(g);
    lm_ctx cd = lm_ctx_double();
    lm_pcdata *P0 = lm_pcst_make(&I.sp, g, &cd);
    lm_pcst_id S;
    lm_pcst_id_init(&S, ev);
    int wrong = lm_int(prm.formula), rc = 0;
    double smin = 0.0;
    for (int t = 0; t < S.nt && !rc; t++)
        if (tier(&S, t, P0, &I, ev->config, wrong, &smin)) rc = lm_fail(ev, "SVD/eigensolver failed");
    if (!rc) {
        lm_pcst_id_finish(&S, ev, prm.tol_scale, configs[ev->config]);
        lm_measure(ev, "sigma_d(K)", smin);
        lm_measure(ev, "log10 ||Delta_0|| (random)", log10(I.scale));
    }
    lm_pc_free(P0);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "Random theta = theta_R + D0, ||D0|| log-uniform in [1e-8, 10], R Haar: symmetry of Y and X "
     "= R_star^T K, and X PSD, residuals shrinking from double to MPFR-256.",
     NULL},
    {LM_READ_PAPER,
     "Near-singular K (last scales eps, eps' in 1e-8..1e-2, projection nearly non-unique): "
     "symmetry of Y and X = R_star^T K, X PSD, within a tolerance scaled by the condition of K.",
     NULL},
    {LM_READ_PAPER,
     "K with a repeated top singular value (polar factor still unique, SVD basis not): symmetry "
     "of Y and X = R_star^T K, X PSD, residuals shrinking from double to MPFR-256.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_precond_lemma1_1) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Lemma 1.1",
    .origin = "reconstructed",
    .confidence = "medium-high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .eval = eval,
};
