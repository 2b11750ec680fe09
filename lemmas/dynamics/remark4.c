/* lemmas/dynamics/remark4.c
 *
 * \claim{dynamics/remark4}{$\delta>0$ needs $Dd\ge Nn^2$ (Remark 4)}
 * \source{transformer-gd-dynamics, Remark 4 (\S4.2.2)}
 * \statement{(a) For $\delta=\min_h\sigma_{\min}(\partial C_h/\partial W^Q_h)>0$ the parameter
 *   size ``must satisfy $Dd\ge Nn^2$'': the Jacobian $J_h\in\mathbb R^{Nn^2\times Dd}$ needs full
 *   row rank. (b) Under equivalent initialization conditions Gaussian attention converges
 *   globally and Softmax attention need not. (c) $Dd\ge Nn^2$ is an over-parameterization
 *   condition.}
 * \check{Part (a), the necessity, is checked for both kernels (one configuration each):
 *   instances cycle through sizes with $Dd<Nn^2$,
 *   $(N,n,D,d)\in\{(1,2,1,2),(1,2,3,1),(1,3,2,2),(1,3,4,2),(2,2,3,2),(2,2,7,1),(1,4,5,3),
 *   (3,2,11,1),(2,3,17,1),(1,3,8,1)\}$ with $H=1$, several with $Dd=Nn^2-1$. The inputs
 *   $X$, $W^Q$, $W^K$ are dyadic (integers in $[-16,16]$ over 8), so the Jacobian rows
 *   $\frac1{\sqrt d}X_{ik\cdot}^\top(X_{ij\cdot}W^K)$ (Softmax) and
 *   $-\frac2{c_G\sqrt d}X_{ik\cdot}^\top(X_{ik\cdot}W^Q-X_{ij\cdot}W^K)$ (Gaussian) are exact up to
 *   the common factor. The $Nn^2$-th singular value of $J_h$ is
 *   $\sigma_{Nn^2}=\lambda_{\min}(J_hJ_h^\top)^{1/2}$ (the Gram matrix has rank at most $Dd<Nn^2$);
 *   the observation is $\sigma_{Nn^2}\le\tau=\texttt{tol\_scale}\cdot2^{-p/3}\sigma_{\max}(J_h)$,
 *   evaluated with the symmetric eigensolver of the working precision ($p=53$ in double, 256
 *   in the MPFR replay, where the computed $\lambda_{\min}$ is of order $2^{-p}$). The smallest
 *   nonzero singular value $\sigma_{Dd}$ is reported to show the gap between the structural
 *   zero and genuine singular values. The sufficiency direction is \emph{not claimed} by the
 *   paper (Theorem 3 only assumes $\delta_h>0$); it is reported as measures only: on every
 *   instance, for each probe size $(N,n,D,d)\in\{(1,3,9,1),(2,2,2,4),(1,4,8,2),(3,2,2,6),(1,2,2,2),
 *   (2,2,4,2),(1,3,3,3)\}$ (all $Dd\ge Nn^2$, some with $d<n$ or $D<d$) a fresh generic random
 *   dyadic draw gives $\mathrm{rank}(J_h)/Nn^2$ (eigenvalues of $J_hJ_h^\top$ above
 *   $2^{-p/2}\lambda_{\max}$, i.e.\ singular values above $2^{-p/4}\sigma_{\max}$, computed in MPFR at
 *   256 bits) and $\sigma_{Nn^2}(J_h)$ for the configuration's kernel.
 *   Parts (b) and (c) are not numerical statements: (b) is the contrast of
 *   dynamics/theorem3-part1 with dynamics/example1. The switch \texttt{probe\_size} applies
 *   the necessity observation to the probe sizes instead, i.e.\ claims $\sigma_{Nn^2}=0$ where
 *   $Dd\ge Nn^2$; that reading is false and must come out violated.}
 */
#include "lm_claim.h"
#include "lm_mha.h"
#include <math.h>
#include <stdio.h>

static const char *const configs[] = {"necessity,gauss", "necessity,softmax", NULL};

#define PARAMS(NUM, SWITCH)                                                                                                               \
    NUM(tol_scale, 1.0, "[-1e6, 1e6]", "multiplies the zero threshold 2^(-p/3) sigma_max(J)")                                             \
    SWITCH(probe_size, 0, "Dd<Nn^2|Dd>=Nn^2", "sizes the necessity observation is applied to (1 = the Dd >= Nn^2 probes: a false claim)") \
    NUM(cG, 2.0, "(0, 1e6]", "Gaussian scale c_G (2 = appendix, 1 = eq. 11)")
LM_PARAMS(PARAMS)

#define NDEF 10
#define NPROBE 7
static const int deficient[NDEF][4] = {{1, 2, 1, 2}, {1, 2, 3, 1}, {1, 3, 2, 2}, {1, 3, 4, 2},
                                       {2, 2, 3, 2}, {2, 2, 7, 1}, {1, 4, 5, 3}, {3, 2, 11, 1},
                                       {2, 3, 17, 1}, {1, 3, 8, 1}};
static const int probes[NPROBE][4] = {{1, 2, 2, 2}, {2, 2, 4, 2}, {1, 3, 3, 3}, {1, 3, 9, 1},
                                      {2, 2, 2, 4}, {1, 4, 8, 2}, {3, 2, 2, 6}};

/* dyadic random matrix: integers in [-16,16] over 8 */
static void dyadic(lm_mat *A, lm_rng *g)
{
    for (int i = 0; i < A->r; i++)
        for (int j = 0; j < A->c; j++) lm_mat_set_d(A, i, j, lm_rng_int(g, -16, 16) / 8.0);
}

static lm_mha *draw(const int *z, lm_kernel k, double cG, lm_rng *g, const lm_ctx *c)
{
    lm_mha *m = lm_mha_new(z[0], z[1], z[2], z[3], 1, k, LM_WV_BLOCK, c);
    m->cG = cG;
    for (int i = 0; i < z[0]; i++) dyadic(m->X[i], g);
    dyadic(m->Wq[0], g);
    dyadic(m->Wk[0], g);
    return m;
}

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    const lm_ctx *c = ev->ctx;
    const lm_kernel kern = ev->config == 0 ? LM_GAUSS : LM_SOFTMAX;
    const double cG = P.cG;
    const int wrong = lm_int(P.probe_size) != 0;
    lm_rng *g = lm_eval_rng(ev);
    const int *z = wrong ? probes[ev->index % NPROBE] : deficient[ev->index % NDEF];
    const int rows = z[0] * z[1] * z[1], cols = z[2] * z[3];
    int rc = 0;
    lm_mha *m = draw(z, kern, cG, g, c);
    lm_mat *J = lm_mat_new(rows, cols, c), *G = lm_mat_new(rows, rows, c);
    lm_num *w = lm_nums_new(rows, c);
    const int ks = rows < cols ? rows : cols;
    lm_num *sv = lm_nums_new(ks, c);
    lm_num smin, smax, tol;
    lm_num_inits(c, &smin, &smax, &tol, (lm_num *)NULL);
    lm_mha_jacQ(J, m, 0);
    lm_mat_mul(G, J, 0, J, 1);
    if (lm_mat_symeig(w, NULL, G) || lm_mat_svals(sv, J)) {
        rc = lm_fail(ev, "eigen/SVD solver failed on J");
        goto done;
    }
    /* sigma_{Nn^2} = sqrt(max(lambda_min(J J^T), 0)), sigma_max = sqrt(lambda_max) */
    lm_num_set_d(&smin, 0.0);
    lm_num_max(&smin, &w[0], &smin);
    lm_num_sqrt(&smin, &smin);
    lm_num_set(&smax, &sv[0]);
    lm_num_mul_d(&tol, &smax, P.tol_scale * exp2(lm_ctx_log2eps(c) / 3.0));
    lm_obs_le(ev, -1, &smin, &tol, 0.0, "sigma_{Nn^2}(J) <= 2^(-p/3) sigma_max, (N,n,D,d)=(%d,%d,%d,%d)",
              z[0], z[1], z[2], z[3]);
    lm_measure(ev, "N", z[0]);
    lm_measure(ev, "n", z[1]);
    lm_measure(ev, "D", z[2]);
    lm_measure(ev, "d", z[3]);
    lm_measure(ev, "sigma_{Nn^2}(J) / sigma_max(J)", lm_num_get_d(&smin) / lm_num_get_d(&smax));
    lm_measure(ev, "sigma_{min(Dd,Nn^2)}(J) / sigma_max(J) (smallest computed)",
               lm_num_get_d(&sv[ks - 1]) / lm_num_get_d(&smax));
    if (!ev->searching && c->backend == LM_DOUBLE) {
        /* sufficiency probe (not claimed): rank of J_h in MPFR on fresh generic draws */
        const lm_ctx mc = lm_ctx_mpfr(256);
        for (int q = 0; q < NPROBE; q++) {
            const int *p = probes[q];
            const int pr = p[0] * p[1] * p[1], pc = p[2] * p[3];
            lm_mha *pm = draw(p, kern, cG, g, &mc);
            lm_mat *PJ = lm_mat_new(pr, pc, &mc), *PG = lm_mat_new(pr, pr, &mc);
            lm_num *pw = lm_nums_new(pr, &mc);
            lm_mha_jacQ(PJ, pm, 0);
            lm_mat_mul(PG, PJ, 0, PJ, 1);
            /* squared singular values = eigenvalues of the Gram J J^T (Nn^2 <= Dd here) */
            int bad = lm_mat_symeig(pw, NULL, PG);
            double l1 = lm_num_get_d(&pw[pr - 1]), thr = l1 * exp2(-128.0);
            int rank = 0;
            for (int i = 0; i < pr; i++) rank += lm_num_get_d(&pw[i]) > thr;
            char nm[96];
            snprintf(nm, sizeof nm, "probe (N,n,D,d)=(%d,%d,%d,%d): rank(J)/Nn^2", p[0], p[1], p[2], p[3]);
            lm_measure(ev, nm, bad ? (double)NAN : (double)rank / pr);
            snprintf(nm, sizeof nm, "probe (N,n,D,d)=(%d,%d,%d,%d): sigma_{Nn^2}/sigma_max", p[0], p[1], p[2], p[3]);
            lm_measure(ev, nm, bad ? (double)NAN : sqrt(fmax(lm_num_get_d(&pw[0]), 0.0) / l1));
            lm_nums_free(pw, pr);
            lm_mat_free(PJ);
            lm_mat_free(PG);
            lm_mha_free(pm);
        }
    }
done:
    lm_num_clears(&smin, &smax, &tol, (lm_num *)NULL);
    lm_nums_free(w, rows);
    lm_nums_free(sv, ks);
    lm_mat_free(J);
    lm_mat_free(G);
    lm_mha_free(m);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "Necessity (a) for the Gaussian kernel: on ten dyadic sizes with Dd < Nn^2 (several Dd = "
     "Nn^2 - 1) the Jacobian J_h must have sigma_Nn^2 = 0 to working precision.",
     NULL},
    {LM_READ_PAPER,
     "Necessity (a) for the Softmax kernel: on ten dyadic sizes with Dd < Nn^2 (several Dd = Nn^2 "
     "- 1) the Jacobian J_h must have sigma_Nn^2 = 0 to working precision.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_dynamics_remark4) = {
    .kind = LM_KIND_STRUCTURAL,
    .source = "Remark 4, Section 4.2.2",
    .origin = "verbatim",
    .confidence = "high for (a)",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .eval = eval,
};
