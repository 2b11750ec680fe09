/* lemmas/precond/theorem1-3a.c
 *
 * \claim{precond/theorem1.3a}{One-point strong convexity of $L_{\rm reg}$ near the manifold, eq.~(3)}
 * \source{preconditioned-softmax-regression, Theorem 1 (part 3), eq.~(3)}
 * \statement{There are $\alpha,\delta>0$ depending only on $s_1,s_d$, $\lambda$ (and possibly on the
 *   eigenvalues of $\Sigma$) such that for every $\theta$ with $\|\theta-\theta_P\|_\Sigma\le\delta$,
 *   $\langle\nabla L_{\rm reg}(\theta),\theta-\theta_P\rangle_F\ge\alpha\|\theta-\theta_P\|_\Sigma^2$,
 *   where $\theta_P$ is the $\Sigma$-projection of $\theta$ onto the manifold $\mathcal M$ of global
 *   minima.  The paper's $\alpha,\delta$ are lost; reconstructed admissible values (S8):
 *   $\alpha_r=(\sqrt2-1)\min(1,4\lambda)s_d$, $\delta_r=\sqrt{\alpha_r/(1+4\lambda)}$
 *   ($=\sqrt{\alpha_r/2}$ for $\lambda=1/4$).}
 * \check{Instances: $\Sigma=GG^\top/d+c_\Sigma I$ ($c_\Sigma\in\{0.3,0.5,1\}$) with $d=4,k=6$
 *   (configuration $k>d$), $d=k=3$ (\texttt{k=d}) and the stress covariance with
 *   $\kappa(\Sigma)=10^4$, $d=3,k=5$ (\texttt{kappa}); $s_1=\tau\in\{0.1,1\}$.  Everything is
 *   computed in AB-coordinates ($A=W_V\Sigma^{1/2}$, $B=\Sigma^{1/2}W_{KQ}\Sigma^{1/2}$, where
 *   $\langle\nabla_\theta L_{\rm reg},\Delta\rangle_F=\langle\nabla_{A,B}f,\Delta_{AB}\rangle$ and
 *   $\|\Delta\|_\Sigma=\|\Delta_{AB}\|_F$).  Points $\theta=\theta_R+r D$ with $R$ Haar,
 *   $r/\delta\in\{10^{-6},10^{-3},0.1,0.5,0.9,1\}$ and unit directions $D$: the eigenvector of the
 *   Hessian at $\theta_R$ with the smallest nonzero eigenvalue, the largest one, the direction
 *   towards the saddle $\theta^{\rm sad}_{(d)}$, a random direction, and an adversarial one (a
 *   compass search in double minimising $\rho_a=\langle\nabla L_{\rm reg},\Delta\rangle/\|\Delta\|_\Sigma^2$
 *   over unit directions in an 8-dimensional subspace spanned by these, 3 restarts, for each
 *   radius $\ge0.1\delta$, rejecting combinations that cancel; the runner's Nelder--Mead moves the
 *   direction too; a point whose $\|\Delta\|_\Sigma$ sits at the rounding floor of the coordinates is
 *   skipped and counted).  $\Delta=\theta-\theta_P$
 *   comes from the true Procrustes projection, and
 *   $E=A_P\Delta_B+\Delta_AB_P+\Delta_A\Delta_B$, $A^\top A-BB^\top$ likewise from the expansion,
 *   so nothing cancels as $r\to0$; radii $\le10^{-5}\delta$ are evaluated in MPFR-256.  Observed:
 *   $\alpha\|\Delta\|_\Sigma^2\le\langle\nabla L_{\rm reg},\Delta\rangle$ with relative tolerance
 *   $\texttt{tol\_scale}\cdot64n\,u(1+\sqrt{s_1}/r)s_1/s_d$, $n=(k+d)d$.  When $\delta\ge\sqrt{2s_d}$
 *   the spurious critical point $\theta^{\rm sad}_{(d)}$ (where $\nabla L_{\rm reg}=0$, at distance
 *   $\sqrt{2s_d}$) lies in the tube and is observed too, so such a $\delta$ is violated.  Measured:
 *   $\min\rho_a$ per radius, the reconstruction's by-product
 *   $(L_{\rm reg}-L_0)/\langle\nabla L_{\rm reg},\Delta\rangle\le1$ within $\delta_r$, the sharp local value (smallest nonzero Hessian eigenvalue, against
 *   $2s_d$, or $4s_d$ when $k=d$), the slack $\min\rho_a/\alpha$ and the empirical largest valid
 *   radius $\delta_{\rm emp}(\alpha)$ along the adversarial, saddle and min-eigen directions.  The
 *   check fails when $\alpha$ exceeds the local infimum ($\alpha=2.5s_d$ for $k>d$) or
 *   $\delta\ge\sqrt{2s_d}$.}
 */
#include "lm_pcgeo.h"
#include <math.h>
#include <stdio.h>

static const char *const configs[] = {"k>d (d=4,k=6)", "k=d (d=k=3)", "kappa (d=3,k=5,kappa=1e4)", NULL};

#define PARAMS(NUM, SWITCH)                                                                                             \
    NUM(alpha_sd, -1.0, "[-1, 1e6]", "alpha = alpha_sd * s_d when >= 0; -1: the reconstructed alpha_r")                 \
    NUM(alpha_scale, 1.0, "(0, 1e6]", "multiplies alpha")                                                               \
    NUM(delta_sqrt_sd, -1.0, "[-1, 1e6]", "delta = delta_sqrt_sd * sqrt(s_d) when >= 0; -1: the reconstructed delta_r") \
    NUM(delta_scale, 1.0, "(0, 1e6]", "multiplies delta")                                                               \
    NUM(lambda, 0.25, "(0, 1000]", "regulariser weight lambda")                                                         \
    NUM(tol_scale, 1.0, "[0, 1e6]", "multiplies the rounding tolerance")
LM_PARAMS(PARAMS)

static const double fracs[] = {1e-6, 1e-3, 0.1, 0.5, 0.9, 1.0};
#define NFR 6
#define NDIR 6

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    static const int dims[3][2] = {{4, 6}, {3, 3}, {3, 5}};
    int d = dims[ev->config][0], k = dims[ev->config][1];
    double csig = ev->index % 3 == 0 ? 0.3 : (ev->index % 3 == 1 ? 0.5 : 1.0);
    double tau = ev->index % 2 ? 0.1 : 1.0, lam = P.lambda;
    lm_pcgeo *G = lm_pcgeo_new(d, k, csig, ev->config == 2 ? 1e4 : 0.0, tau, lam, ev->seed);
    if (!G) return lm_fail(ev, "eigen/SVD failure while building the instance or its Hessian");
    double s1 = G->s1, sd = G->sd;
    double alpha = P.alpha_sd >= 0 ? P.alpha_sd * sd : lm_pc_alpha_r(s1, sd, lam);
    alpha *= P.alpha_scale;
    double delta = P.delta_sqrt_sd >= 0 ? P.delta_sqrt_sd * sqrt(sd)
                                                    : lm_pc_delta_r(s1, sd, lam);
    delta *= P.delta_scale;
    int rc = 0;
    if (!lm_assume(ev, alpha > 0 && delta > 0 && lam > 0, "alpha, delta, lambda must be positive")) goto out;
    double sharp = (k == d ? 4.0 : 2.0) * sd, dr = lm_pc_delta_r(s1, sd, lam);
    lm_ctx c256 = lm_ctx_mpfr(256);
    const lm_ctx *cx = ev->ctx;
    int hi = cx->backend == LM_MPFR && cx->prec >= 256;
    double u = lm_ctx_eps(cx);
    double dirs[NDIR][256];
    int ndir = 0, skipped = 0;
    if (ev->x && lm_pcgeo_dir_from_x(dirs[ndir], G, ev->x, ev->nx) == 0) ndir++; /* (a cancelling x: dropped) */
    for (int b = 0; b < 4 && !ev->searching; b++) { /* min-eig, max-eig, saddle, random */
        for (int i = 0; i < G->n; i++) dirs[ndir][i] = G->basis[b][i];
        ndir++;
    }
    double worst_all = HUGE_VAL, byp = 0;
    for (int f = 0; f < NFR; f++) {
        double r = fracs[f] * delta;
        if (ev->searching && fracs[f] < 0.1) continue; /* the search moves directions at finite radii */
        const lm_ctx *c = (fracs[f] <= 1e-5 && !hi) ? &c256 : cx;
        double uc = c == cx ? u : lm_ctx_eps(c);
        double tol = P.tol_scale * 64.0 * G->n * uc * (1.0 + sqrt(s1) / r) * s1 / sd;
        int nd = ndir;
        if (fracs[f] >= 0.1 && !ev->searching) {
            lm_pcgeo_search(dirs[nd], G, 0, r, ev->quick ? 2 : 3, ev->quick ? 4 : 6);
            nd++;
        }
        double mn = HUGE_VAL;
        lm_pcgeo_pt o;
        lm_pcgeo_pt_init(&o, c);
        lm_num a;
        lm_num_init(&a, c);
        for (int j = 0; j < nd; j++) {
            if (lm_pcgeo_point(&o, G, c, dirs[j], r, 0)) {
                rc = lm_fail(ev, "projection failed or non-finite value at r/delta=%g", fracs[f]);
                break;
            }
            if (o.degenerate) { /* ||Delta|| at the rounding floor: no ratio in this precision */
                skipped++;
                continue;
            }
            lm_num_sqr(&a, &o.dn);
            lm_num_mul_d(&a, &a, alpha);
            lm_obs_le(ev, -1, &a, &o.ip, tol, "alpha ||Delta||^2 <= <grad,Delta> at r/delta=%g, direction %d",
                      fracs[f], j);
            if (r <= dr) /* the reconstruction's by-product within delta_r (S8), measured */
                byp = fmax(byp, lm_num_get_d(&o.ex) / lm_num_get_d(&o.ip));
            mn = fmin(mn, lm_pcgeo_ratio(&o, 0));
        }
        lm_num_clear(&a);
        lm_pcgeo_pt_clear(&o);
        if (rc) goto out;
        char nm[64];
        snprintf(nm, sizeof nm, "min rho_a at r/delta=%g", fracs[f]);
        lm_measure(ev, nm, mn);
        lm_series(ev, "min rho_a / alpha", fracs[f], mn / alpha);
        worst_all = fmin(worst_all, mn);
    }
    /* the saddle point theta_sad(d): grad = 0 at distance sqrt(2 s_d) */
    if (!ev->searching) {
        lm_pcgeo_pt o;
        lm_pcgeo_pt_init(&o, cx);
        if (lm_pcgeo_point(&o, G, cx, NULL, 0.0, 1)) {
            lm_pcgeo_pt_clear(&o);
            rc = lm_fail(ev, "projection of the saddle point failed");
            goto out;
        }
        lm_measure(ev, "dist(theta_sad(d), M) / sqrt(2 s_d)", lm_num_get_d(&o.dn) / sqrt(2.0 * sd));
        if (lm_num_get_d(&o.dn) <= delta) {
            lm_num a;
            lm_num_init(&a, cx);
            lm_num_sqr(&a, &o.dn);
            lm_num_mul_d(&a, &a, alpha);
            lm_obs_le(ev, -1, &a, &o.ip, P.tol_scale * 64.0 * G->n * u * s1 / sd,
                      "alpha ||Delta||^2 <= <grad,Delta> at the saddle theta_sad(d) (delta >= sqrt(2 s_d))");
            lm_num_clear(&a);
        }
        lm_pcgeo_pt_clear(&o);
    }
    lm_measure(ev, "points skipped (||Delta|| at the rounding floor)", skipped);
    lm_measure(ev, "max (L_reg - L0) / <grad,Delta> within delta_r (S8: <= 1)", byp);
    lm_measure(ev, "alpha (used)", alpha);
    lm_measure(ev, "delta (used)", delta);
    lm_measure(ev, "delta / sqrt(2 s_d) (must be < 1)", delta / sqrt(2.0 * sd));
    lm_measure(ev, "sharp local inf rho_a (Hessian) / (2 s_d or 4 s_d if k=d)", G->hmin / sharp);
    lm_measure(ev, "slack: min rho_a / alpha", worst_all / alpha);
    lm_measure(ev, "alpha / sharp local value", alpha / G->hmin);
    if (!ev->searching && cx->backend == LM_DOUBLE) {
        /* empirical largest valid radius: the first radius (steps of delta/8) where rho_a < alpha
         * along the adversarial direction found at r = delta, the saddle and min-eigen directions */
        double demp = 0, rmax = 2.0 * sqrt(2.0 * sd);
        lm_ctx cd = lm_ctx_double();
        lm_pcgeo_pt o;
        lm_pcgeo_pt_init(&o, &cd);
        for (double r = 0.125 * delta; r <= rmax; r += 0.125 * delta) {
            double m = HUGE_VAL;
            const double *dd[3] = {dirs[ndir], G->basis[2], G->basis[0]};
            for (int j = 0; j < 3; j++)
                if (!lm_pcgeo_point(&o, G, &cd, dd[j], r, 0)) m = fmin(m, lm_pcgeo_ratio(&o, 0));
            if (!(m >= alpha)) break;
            demp = r;
        }
        lm_pcgeo_pt_clear(&o);
        lm_measure(ev, "delta_emp(alpha) / delta", demp / delta);
        lm_measure(ev, "delta_emp(alpha) / sqrt(2 s_d)", demp / sqrt(2.0 * sd));
    }
out:
    lm_pcgeo_free(G);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "Case k > d (d = 4, k = 6), radii r/delta from 1e-6 to 1: <grad L_reg, D> >= alpha "
     "||D||_Sigma^2 along Hessian, saddle, random and searched directions, alpha = alpha_r.",
     NULL},
    {LM_READ_PAPER,
     "Square case k = d (d = k = 3), where the sharp local value is 4 s_d: <grad L_reg, D> >= "
     "alpha ||D||_Sigma^2 for radii r/delta from 1e-6 to 1 along all directions.",
     NULL},
    {LM_READ_PAPER,
     "Ill-conditioned covariance kappa(Sigma) = 1e4 (d = 3, k = 5): <grad L_reg, D> >= alpha "
     "||D||_Sigma^2 for radii r/delta from 1e-6 to 1 along all directions.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_precond_theorem1_3a) = {
    .kind = LM_KIND_POINTWISE,
    .source = "Theorem 1 (part 3), eq. (3)",
    .origin = "reconstructed (RECON constant: alpha_sd, delta_sqrt_sd)",
    .confidence = "high (structure), low (the paper's alpha, delta)",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.125,
    .search_dim = 5,
    .eval = eval,
};
