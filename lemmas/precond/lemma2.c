/* lemmas/precond/lemma2.c
 *
 * \claim{precond/lemma2}{Descent lemma: $L_{\rm reg}(\theta)-L_0\le\frac\beta2\|\Delta\|_\Sigma^2$ in the tube}
 * \source{preconditioned-softmax-regression, Lemma 2}
 * \statement{Let $\alpha,\beta,\delta$ be as in Theorem 1 and let $\theta$ be $\delta$-close to
 *   $\mathcal M$, with $\theta_P$ its $\Sigma$-projection and $\Delta=\theta-\theta_P$.  Then
 *   $L_{\rm reg}(\theta)-L_0\le\frac\beta2\|\Delta\|_\Sigma^2$, hence $L(\theta)-L_0\le\frac\beta2\|\Delta\|_\Sigma^2$.
 *   The proof integrates (4) along the segment $\theta_P+t\Delta$, all of whose points project
 *   to $\theta_P$.  (Default $\beta$: the reconstructed $\beta_r$ of S8.)}
 * \check{The instances, radii $r/\delta\in\{10^{-6},10^{-3},0.1,0.5,0.9,1\}$ and directions of
 *   \texttt{precond/theorem1.3a} (Hessian eigen-directions, towards the saddle, random, an
 *   adversarial compass search (2 restarts, from the top Hessian
 *   eigen-direction and the saddle direction) maximising $\rho_l=(L_{\rm reg}-L_0)/\|\Delta\|_\Sigma^2$, and the
 *   runner's Nelder--Mead), $\Delta$ from the true projection.  $L_{\rm reg}-L_0=\|E\|_F^2+\lambda\|A^\top A-BB^\top\|_F^2$
 *   is formed from $E=A_P\Delta_B+\Delta_AB_P+\Delta_A\Delta_B$ and the expanded $A^\top A-BB^\top$,
 *   never by subtracting $L_0$; radii $\le10^{-5}\delta$ in MPFR-256.  Observed:
 *   $L_{\rm reg}-L_0\le\frac\beta2\|\Delta\|_\Sigma^2$ (which implies the $L$ version, since $R\ge0$),
 *   relative tolerance $\texttt{tol\_scale}\cdot64n\,u(1+\sqrt{s_1}/r)$.  Segment property: for the
 *   adversarial point at $r=\delta$ and the point towards the saddle at $r=\delta$, and $t\in\{\frac14,\frac12,\frac34,1\}\cdot\texttt{seg\_t}$ the
 *   Procrustes factor $R_\star(t)$ of $\theta_P+t\Delta$ must equal $R_\star$:
 *   $\|R_\star(t)-R_\star\|_F\le\texttt{tol\_scale}\cdot64n\,u\,\kappa(\Sigma)(1+2s_1/\lambda_{\min}(K))$.
 *   Measured: $\max\rho_l$ per radius, the sharp local value $\lambda_{\max}(H)/2$ against $2s_1$,
 *   the slack $(\beta/2)/\max\rho_l$.  With the sharp $\beta=4s_1$ the bound is tight as $r\to0$,
 *   so $\beta=3.9s_1$ is violated; \texttt{seg\_t}$=10$ runs past the saddle along the saddle
 *   direction, where the projection changes, and is violated.}
 */
#include "lm_pcgeo.h"
#include <math.h>
#include <stdio.h>

static const char *const configs[] = {"k>d (d=4,k=6)", "k=d (d=k=3)", "kappa (d=3,k=5,kappa=1e4)", NULL};

#define PARAMS(NUM, SWITCH)                                                                                                 \
    NUM(beta_s1, -1.0, "[-1, 1e6]", "beta = beta_s1 * s_1 when >= 0; -1: the reconstructed beta_r")                         \
    NUM(beta_scale, 1.0, "(0, 1e6]", "multiplies beta")                                                                     \
    NUM(delta_sqrt_sd, -1.0, "[-1, 1e6]", "delta = delta_sqrt_sd * sqrt(s_d) when >= 0; -1: the reconstructed delta_r")     \
    NUM(delta_scale, 1.0, "(0, 1e6]", "multiplies delta")                                                                   \
    NUM(lambda, 0.25, "(0, 1000]", "regulariser weight lambda")                                                             \
    NUM(seg_t, 1.0, "[0, 100]", "the segment theta_P + t Delta is checked for t in {1/4,1/2,3/4,1} * seg_t (the lemma: 1)") \
    NUM(tol_scale, 1.0, "[0, 1e6]", "multiplies the rounding tolerances")
LM_PARAMS(PARAMS)

static const double fracs[] = {1e-6, 1e-3, 0.1, 0.5, 0.9, 1.0};
#define NFR 6
#define NDIR 6

/* ||R*(theta_P + t Delta) - R*(theta)||_F for theta = theta_R + r dir, and lambda_min(K), kappa(Sigma) */
static int segment(lm_eval *ev, lm_pcgeo *G, const lm_ctx *c, const double *dir, double r)
{
    const lm_params prm = lm_params_of(ev);
    const lm_mat *R;
    const lm_pcdata *P = lm_pcgeo_inst(G, c, &R);
    int d = G->d, k = G->k, rc = 0;
    lm_mat *A = lm_mat_new(k, d, c), *B = lm_mat_new(d, d, c), *D = lm_mat_new(k, d, c),
           *DB = lm_mat_new(d, d, c), *Rs = lm_mat_new(d, d, c), *Rt = lm_mat_new(d, d, c);
    lm_pcth th = lm_pc_th_new(P), tp = lm_pc_th_new(P), Dl = lm_pc_th_new(P), tt = lm_pc_th_new(P);
    lm_pc_manifold(&th, P, R);
    lm_pc_to_AB(A, B, P, &th);
    lm_mat_set_array(D, dir);
    lm_mat_set_array(DB, dir + k * d);
    lm_mat_axpy_d(A, r, D);
    lm_mat_axpy_d(B, r, DB);
    lm_pc_from_AB(&th, P, A, B);
    lm_num lm, x, tol, kap;
    lm_num_inits(c, &lm, &x, &tol, &kap, (lm_num *)NULL);
    if (lm_pc_project(&tp, Rs, NULL, &lm, P, &th)) rc = 1;
    lm_pc_th_axpy(&Dl, &th, -1.0, &tp); /* Delta = theta - theta_P */
    lm_num *ev_ = lm_nums_new(d, c);
    if (lm_mat_svals(ev_, P->Sig)) rc = 1;
    lm_num_div(&kap, &ev_[0], &ev_[d - 1]);
    lm_nums_free(ev_, d);
    lm_num_d_sub(&tol, 0.0, &lm); /* tol = tol_scale 64 n u kappa (1 + 2 s1 / lam_min) */
    lm_num_set_d(&x, 2.0 * G->s1);
    lm_num_div(&tol, &x, &lm);
    lm_num_add_d(&tol, &tol, 1.0);
    lm_num_mul(&tol, &tol, &kap);
    lm_num_mul_d(&tol, &tol, prm.tol_scale * 64.0 * G->n * lm_ctx_eps(c));
    double worst = 0;
    for (int j = 1; j <= 4 && !rc; j++) {
        double t = 0.25 * j * prm.seg_t;
        lm_pc_th_axpy(&tt, &tp, t, &Dl);
        if (lm_pc_project(NULL, Rt, NULL, NULL, P, &tt)) {
            rc = 1;
            break;
        }
        lm_mat_sub(Rt, Rt, Rs);
        lm_mat_frob(&x, Rt);
        lm_obs_le(ev, -1, &x, &tol, 0.0, "segment: ||R*(theta_P + t Delta) - R*||_F at t=%g", t);
        worst = fmax(worst, lm_num_get_d(&x));
    }
    lm_measure(ev, "segment: max ||R*(t) - R*||_F", worst);
    lm_num_clears(&lm, &x, &tol, &kap, (lm_num *)NULL);
    lm_pc_th_free(&th); lm_pc_th_free(&tp); lm_pc_th_free(&Dl); lm_pc_th_free(&tt);
    lm_mat_free(A); lm_mat_free(B); lm_mat_free(D); lm_mat_free(DB); lm_mat_free(Rs); lm_mat_free(Rt);
    return rc;
}

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    static const int dims[3][2] = {{4, 6}, {3, 3}, {3, 5}};
    int d = dims[ev->config][0], k = dims[ev->config][1];
    double csig = ev->index % 3 == 0 ? 0.3 : (ev->index % 3 == 1 ? 0.5 : 1.0);
    double tau = ev->index % 2 ? 0.1 : 1.0, lam = prm.lambda;
    lm_pcgeo *G = lm_pcgeo_new(d, k, csig, ev->config == 2 ? 1e4 : 0.0, tau, lam, ev->seed);
    if (!G) return lm_fail(ev, "eigen/SVD failure while building the instance or its Hessian");
    double s1 = G->s1, sd = G->sd;
    double beta = prm.beta_s1 >= 0 ? prm.beta_s1 * s1 : lm_pc_beta_r(s1, lam);
    beta *= prm.beta_scale;
    double delta = prm.delta_sqrt_sd >= 0 ? prm.delta_sqrt_sd * sqrt(sd)
                                                    : lm_pc_delta_r(s1, sd, lam);
    delta *= prm.delta_scale;
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
        double tol = prm.tol_scale * 64.0 * G->n * uc * (1.0 + sqrt(s1) / r);
        int nd = ndir;
        if (fracs[f] >= 0.1 && !ev->searching) {
            lm_pcgeo_search(dirs[nd], G, 2, r, 2, ev->quick ? 4 : 6);
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
            lm_num_sqr(&b, &o.dn);
            lm_num_mul_d(&b, &b, 0.5 * beta);
            lm_obs_le(ev, -1, &o.ex, &b, tol, "L_reg - L0 <= beta/2 ||Delta||^2 at r/delta=%g, direction %d",
                      fracs[f], j);
            mx = fmax(mx, lm_pcgeo_ratio(&o, 2));
        }
        lm_num_clear(&b);
        lm_pcgeo_pt_clear(&o);
        if (rc) goto out;
        char nm[64];
        snprintf(nm, sizeof nm, "max rho_l at r/delta=%g", fracs[f]);
        lm_measure(ev, nm, mx);
        lm_series(ev, "max rho_l / (beta/2)", fracs[f], mx / (0.5 * beta));
        worst_all = fmax(worst_all, mx);
    }
    if (!ev->searching && (segment(ev, G, cx, dirs[ndir], delta) || segment(ev, G, cx, G->basis[2], delta))) {
        rc = lm_fail(ev, "projection failed on the segment");
        goto out;
    }
    lm_measure(ev, "points skipped (||Delta|| at the rounding floor)", skipped);
    lm_measure(ev, "beta (used)", beta);
    lm_measure(ev, "sharp local sup rho_l (lambda_max(H)/2) / (2 s_1)", G->hmax / (4.0 * s1));
    lm_measure(ev, "slack: (beta/2) / max rho_l", 0.5 * beta / worst_all);
    lm_measure(ev, "max rho_l / s_1", worst_all / s1);
out:
    lm_pcgeo_free(G);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "Tube around M for k > d (d = 4, k = 6), radii r/delta from 1e-6 to 1: L_reg - L_0 <= beta/2 "
     "||D||_Sigma^2 along Hessian, saddle, random and searched directions, and the segment "
     "property.",
     NULL},
    {LM_READ_PAPER,
     "Square case k = d (d = k = 3), radii r/delta from 1e-6 to 1: L_reg - L_0 <= beta/2 "
     "||D||_Sigma^2 along Hessian, saddle, random and searched directions, and the segment "
     "property.",
     NULL},
    {LM_READ_PAPER,
     "Ill-conditioned covariance kappa = 1e4 (d = 3, k = 5), radii r/delta from 1e-6 to 1: L_reg "
     "- L_0 <= beta/2 ||D||_Sigma^2 along all directions, and the segment property.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_precond_lemma2) = {
    .kind = LM_KIND_POINTWISE,
    .source = "Lemma 2",
    .origin = "reconstructed (RECON constant: beta_s1, delta_sqrt_sd)",
    .confidence = "high (structure), low (the paper's beta)",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.125,
    .search_dim = 5,
    .eval = eval,
};
