/* lemmas/precond/theorem1-3b.c
 *
 * \claim{precond/theorem1.3b}{One-point smoothness of $L_{\rm reg}$ near the manifold, eq.~(4)}
 * \source{preconditioned-softmax-regression, Theorem 1 (part 3), eq.~(4)}
 * \statement{There is $\beta$, built from $\sigma_{\max}$, $s_1$ and $\lambda$ (and possibly $\Sigma$),
 *   such that for every $\theta$ with $\|\theta-\theta_P\|_\Sigma\le\delta$,
 *   $\|\tilde\Sigma^{-1}\nabla L_{\rm reg}(\theta)\Sigma^{-1}\|_\Sigma
 *   =(\|\nabla_{W_V}L_{\rm reg}\Sigma^{-1/2}\|_F^2+\|\Sigma^{-1/2}\nabla_{W_{KQ}}L_{\rm reg}\Sigma^{-1/2}\|_F^2)^{1/2}
 *   \le\beta\|\theta-\theta_P\|_\Sigma$.  The paper's $\beta$ is lost; reconstructed admissible value
 *   (S8) $\beta_r=\sqrt2s_1(4\sqrt2+2+8\lambda(2\sqrt2+1))$ ($=(16+4\sqrt2)s_1$ for $\lambda=1/4$), valid
 *   for $\|\Delta\|_\Sigma\le\delta_r$.  Sharp local value $4s_1$.}
 * \check{The instances, radii $r/\delta\in\{10^{-6},10^{-3},0.1,0.5,0.9,1\}$, directions (Hessian
 *   eigen-directions, towards the saddle, random, runner's Nelder--Mead) and the exact-projection
 *   geometry of \texttt{precond/theorem1.3a}; the adversarial compass search (2 restarts, from the
 *   top Hessian eigen-direction and the saddle direction) now maximises
 *   $\rho_b=\|\nabla L_{\rm reg}\|_{\Sigma,*}/\|\Delta\|_\Sigma$ (in AB-coordinates the dual norm is the
 *   Frobenius norm of $\nabla_{A,B}f$).  Radii $\le10^{-5}\delta$ in MPFR-256.  Observed:
 *   $\|\nabla L_{\rm reg}\|_{\Sigma,*}\le\beta\|\Delta\|_\Sigma$ with relative tolerance
 *   $\texttt{tol\_scale}\cdot64n\,u(1+\sqrt{s_1}/r)$.  Measured: $\max\rho_b$ per radius, the sharp
 *   local value (largest Hessian eigenvalue, against $4s_1$), the slack $\beta/\max\rho_b$ and the
 *   smallest valid $\beta$ seen.  As $r\to0$ along the top Hessian eigen-direction $\rho_b\to4s_1$,
 *   so any $\beta<4s_1$ is violated (the test uses $\beta=3.9s_1$).}
 */
#include "lm_pcgeo.h"
#include <math.h>
#include <stdio.h>

static const char *const configs[] = {"k>d (d=4,k=6)", "k=d (d=k=3)", "kappa (d=3,k=5,kappa=1e4)", NULL};

#define PARAMS(NUM, SWITCH)                                                                                             \
    NUM(beta_s1, -1.0, "[-1, 1e6]", "beta = beta_s1 * s_1 when >= 0; -1: the reconstructed beta_r")                     \
    NUM(beta_scale, 1.0, "(0, 1e6]", "multiplies beta")                                                                 \
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
    double beta = P.beta_s1 >= 0 ? P.beta_s1 * s1 : lm_pc_beta_r(s1, lam);
    beta *= P.beta_scale;
    double delta = P.delta_sqrt_sd >= 0 ? P.delta_sqrt_sd * sqrt(sd)
                                                    : lm_pc_delta_r(s1, sd, lam);
    delta *= P.delta_scale;
    int rc = 0;
    if (!lm_assume(ev, beta > 0 && delta > 0 && lam > 0, "beta, delta, lambda must be positive")) goto out;
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
    double worst_all = 0;
    for (int f = 0; f < NFR; f++) {
        double r = fracs[f] * delta;
        if (ev->searching && fracs[f] < 0.1) continue; /* the search moves directions at finite radii */
        const lm_ctx *c = (fracs[f] <= 1e-5 && !hi) ? &c256 : cx;
        double uc = c == cx ? u : lm_ctx_eps(c);
        double tol = P.tol_scale * 64.0 * G->n * uc * (1.0 + sqrt(s1) / r);
        int nd = ndir;
        if (fracs[f] >= 0.1 && !ev->searching) {
            lm_pcgeo_search(dirs[nd], G, 1, r, 2, ev->quick ? 4 : 6);
            nd++;
        }
        double mx = 0;
        lm_pcgeo_pt o;
        lm_pcgeo_pt_init(&o, c);
        lm_num b;
        lm_num_init(&b, c);
        for (int j = 0; j < nd; j++) {
            if (lm_pcgeo_point(&o, G, c, dirs[j], r, 0)) {
                rc = lm_fail(ev, "projection failed or non-finite value at r/delta=%g", fracs[f]);
                break;
            }
            if (o.degenerate) { /* ||Delta|| at the rounding floor: no ratio in this precision */
                skipped++;
                continue;
            }
            lm_num_mul_d(&b, &o.dn, beta);
            lm_obs_le(ev, -1, &o.gn, &b, tol, "||grad||_{Sigma,*} <= beta ||Delta|| at r/delta=%g, direction %d",
                      fracs[f], j);
            mx = fmax(mx, lm_pcgeo_ratio(&o, 1));
        }
        lm_num_clear(&b);
        lm_pcgeo_pt_clear(&o);
        if (rc) goto out;
        char nm[64];
        snprintf(nm, sizeof nm, "max rho_b at r/delta=%g", fracs[f]);
        lm_measure(ev, nm, mx);
        lm_series(ev, "max rho_b / beta", fracs[f], mx / beta);
        worst_all = fmax(worst_all, mx);
    }
    lm_measure(ev, "points skipped (||Delta|| at the rounding floor)", skipped);
    lm_measure(ev, "beta (used)", beta);
    lm_measure(ev, "delta (used)", delta);
    lm_measure(ev, "sharp local sup rho_b (largest Hessian eigenvalue) / (4 s_1)", G->hmax / (4.0 * s1));
    lm_measure(ev, "slack: beta / max rho_b", beta / worst_all);
    lm_measure(ev, "smallest valid beta seen / s_1", worst_all / s1);
    lm_measure(ev, "beta / (4 s_1)", beta / (4.0 * s1));
out:
    lm_pcgeo_free(G);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "Case k > d (d = 4, k = 6), radii r/delta from 1e-6 to 1: preconditioned gradient norm <= "
     "beta ||D||_Sigma along Hessian, saddle, random and searched directions, beta = beta_r.",
     NULL},
    {LM_READ_PAPER,
     "Square case k = d (d = k = 3): preconditioned gradient norm <= beta_r ||D||_Sigma for radii "
     "r/delta from 1e-6 to 1, the sharp local value being 4 s_1.",
     NULL},
    {LM_READ_PAPER,
     "Ill-conditioned covariance kappa(Sigma) = 1e4 (d = 3, k = 5): preconditioned gradient norm "
     "<= beta_r ||D||_Sigma for radii r/delta from 1e-6 to 1.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_precond_theorem1_3b) = {
    .kind = LM_KIND_POINTWISE,
    .source = "Theorem 1 (part 3), eq. (4)",
    .origin = "reconstructed (RECON constant: beta_s1, delta_sqrt_sd)",
    .confidence = "high (structure), low (the paper's beta)",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.125,
    .search_dim = 5,
    .eval = eval,
};
