/* lemmas/mirror/eq4a.c
 *
 * \claim{mirror/eq4a}{Eq.~(4a): Bregman cones around $W_{mm}$}
 * \source{mirror-descent-attention, Eq.~(4a) (main text, definition of the cones)}
 * \statement{$\mathcal C_{p,\mu,R}(W_{mm})=\{W\in\mathbb R^{d\times d}:\|W\|_p\ge R,\
 *   D_\psi(\bar W_{mm},\bar W)\le\mu\}$ with $\bar W=W/\|W\|_p$; the wider cone is
 *   $\mathcal C_{p,\mu,R}$, the thinner $\mathcal C_{p,\mu',R}$, $\mu'<\mu$.  In particular
 *   $rW_{mm}\in\mathcal C_{p,0,R}$ whenever $r\|W_{mm}\|_p\ge R$, and membership is invariant
 *   under positive scalings that keep $\|W\|_p\ge R$.}
 * \check{The membership predicate used by Lemmas 19--21, 27--30 and the theorems is exercised on
 *   the paper's generator at $(n,T,d)=(3,4,4)$ with $\alpha=\mathrm{opt}$, one configuration per
 *   $p\in\{1.25,1.75,2,3\}$; $W_{mm}$ is solved and certified in the working precision.  Cone
 *   levels cycle through the catalogue's $\mu\in\{\mu_0/4,\mu_0,10^{-3},10^{-2}\}$ and radii
 *   $R=R_0\in\{2,5,10,20\}\|W_{mm}\|_p$.  Observations: (i) the ray: for
 *   $r\in\{1,10,10^3\}R/\|W_{mm}\|_p$, $D_\psi(\bar W_{mm},\overline{rW_{mm}})\le\tau_D$ (the radius
 *   condition $\|rW_{mm}\|_p\ge R$ holds by construction and is not counted as an observation,
 *   nor is $\|W_0\|_p=R_0$ below, which is reported); (ii) a start $W_0$ built by the core's
 *   \texttt{lm\_md\_cone\_init} at level $\mu$ and radius $R_0$ lies in
 *   $\mathcal C_{p,\kappa\mu,R_0}$, $\kappa=$\texttt{mu\_scale} $=1$, with allowance
 *   $\max(\tau_D,2^{-52}\kappa\mu)$ (the core's bisection decides $D_\psi>\mu$ after rounding
 *   $D_\psi$ to double, also in MPFR, so the start is on level $\mu$ only to double accuracy);
 *   (iii) scale invariance: for $c\in\{2,10,10^3,10^6\}$,
 *   $|D_\psi(\bar W_{mm},\overline{cW_0})-D_\psi(\bar W_{mm},\bar W_0)|\le\tau_D$ and $cW_0$ is
 *   still in the cone; (iv) the predicate discriminates: a start built at level $4\mu$ has
 *   $D_\psi(\bar W_{mm},\cdot)\ge\mu$ (ratio $\approx1/4$), at every scaling $c$.  Here
 *   $\tau_D=$\texttt{tol\_scale}$\cdot64d^2\epsilon$ is the cancellation floor of $D_\psi$ near
 *   $W=V$ in the working precision (catalogue, \texttt{definition1}); following the catalogue,
 *   instances with $\mu<10^{-10}$ (\texttt{mpfr\_below}) are built and decided in MPFR at 256 bits
 *   from the start, since in double $D_\psi$ has an absolute error of order $10^{-16}$.  The
 *   argument order $D_\psi(\bar W_{mm},\cdot)$ is the authors' (the only one consistent with the
 *   proof of Lemma~28).  Wrong-constant tests: \texttt{mu\_scale} $=0.5$ and the formula switch
 *   \texttt{normalize} $=0$ (cone measured by $D_\psi(\bar W_{mm},W)$ without normalising the
 *   second argument, which is not scale invariant) must come out violated.  Readings: every configuration is a \texttt{paper} reading (the statement as the catalogue reconstructs it).}
 */
#include "lm_claim.h"
#include "lm_md.h"
#include <math.h>
#include <string.h>

static const char *const configs[] = {"p=1.25", "p=1.75", "p=2", "p=3", NULL};
/* one reading per configuration (issue 16) */
static const lm_reading readings[] = {
    {LM_READ_PAPER, "p = 1.25 on paper data (3,4,4), near the l_1 end: ray r W_mm in the cone, "
                    "cone-built starts at level mu, scale invariance and discrimination of a 4 mu "
                    "start.", NULL},
    {LM_READ_PAPER, "p = 1.75, the paper's first experimental exponent, on data (3,4,4): ray, "
                    "cone-built starts, scale invariance of membership and discrimination of a 4 "
                    "mu start.", NULL},
    {LM_READ_PAPER, "p = 2, the Euclidean cone, on paper data (3,4,4): ray r W_mm in the cone, "
                    "cone-built starts, scale invariance and discrimination of a 4 mu start.",
     NULL},
    {LM_READ_PAPER, "p = 3, the paper's largest exponent, on data (3,4,4): ray r W_mm in the cone, "
                    "cone-built starts, scale invariance and discrimination of a 4 mu start.",
     NULL},
    LM_READINGS_END};

static const double P[] = {1.25, 1.75, 2.0, 3.0};

#define PARAMS(NUM, SWITCH)                                                                                          \
    NUM(mu_scale, 1.0, "(0, 1e6]", "kappa: the start built at level mu must lie in the cone of level kappa mu")      \
    NUM(normalize, 1, "int [0, 1]", "1: D_psi(Wbar_mm, W/||W||_p) (Eq. 4a); 0: D_psi(Wbar_mm, W) (a wrong formula)") \
    NUM(tol_scale, 1.0, "[0, inf)", "multiplies tau_D = 64 d^2 eps")                                                 \
    NUM(mpfr_below, 1e-10, "[0, inf)", "levels mu below this are built and decided in MPFR 256 from the start")
LM_PARAMS(PARAMS)

/* the cone's divergence of W (normalised per Eq. 4a, or not: a wrong formula) */
static void cone_div(lm_num *r, const lm_mat *Wb, const lm_mat *W, double p, int normalize)
{
    if (normalize) {
        lm_md_dir_bregman(r, Wb, W, p);
    } else {
        lm_md_bregman(r, Wb, W, p);
    }
}

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    double p = P[ev->config];
    int k = ev->index, normalize = lm_int(prm.normalize);
    static const double R0s[] = {2.0, 5.0, 10.0, 20.0};
    double R0f = R0s[(k / 4) % 4];
    int n = 3, T = 4, d = 4, rc = 0, have_k = 0;
    /* decide the level from a double solve (the same in every context) */
    lm_ctx cd = lm_ctx_double(), c256 = lm_ctx_mpfr(256);
    lm_rng g0 = *lm_eval_rng(ev);
    lm_mddata *Dd = lm_md_gen_paper(&g0, n, T, d, &cd);
    lm_md_svm sd;
    memset(&sd, 0, sizeof sd);
    lm_md_consts Kd;
    memset(&Kd, 0, sizeof Kd);
    int sdrc = -1;
    for (int i = 0; i < n; i++)
        if (Dd->alpha[i] < 0) {
            lm_assume(ev, 0, "tied token scores in sample %d", i);
            goto out0;
        }
    sdrc = lm_md_svm_solve(&sd, Dd, p, 0);
    if (sdrc == LM_MDSVM_INFEASIBLE) {
        lm_assume(ev, 0, "the l_p-AttSVM is infeasible");
        goto out0;
    }
    if (sdrc != LM_MDSVM_OK) {
        rc = lm_fail(ev, "l_p-AttSVM solver did not converge (code %d)", sdrc);
        goto out0;
    }
    lm_md_consts_compute(&Kd, &sd, Dd);
    have_k = 1;
out0:;
    double mu0d = have_k ? Kd.mu0 : 0.0;
    if (have_k) lm_md_consts_clear(&Kd);
    lm_md_svm_clear(&sd);
    lm_md_data_free(Dd);
    if (!have_k) return rc;
    static const double mus[] = {-0.25, -1.0, 1e-3, 1e-2}; /* < 0: multiples of mu_0 */
    double mul = mus[k % 4];
    const lm_ctx *c = ev->ctx;
    if (c->backend == LM_DOUBLE && (mul < 0 ? -mul * mu0d : mul) < prm.mpfr_below) c = &c256;

    /* the instance in the working context c */
    lm_rng *g = lm_eval_rng(ev);
    lm_mddata *D = lm_md_gen_paper(g, n, T, d, c);
    lm_md_svm s;
    memset(&s, 0, sizeof s);
    lm_md_consts K;
    memset(&K, 0, sizeof K);
    have_k = 0;
    lm_mat *W = lm_mat_new(d, d, c), *W0 = lm_mat_new(d, d, c), *W1 = lm_mat_new(d, d, c);
    lm_mat *Wb = lm_mat_new(d, d, c);
    lm_num v, x, y, tol, R;
    lm_num_inits(c, &v, &x, &y, &tol, &R, (lm_num *)NULL);
    int src = lm_md_svm_solve(&s, D, p, 0);
    if (src != LM_MDSVM_OK) {
        rc = lm_fail(ev, "l_p-AttSVM solver did not converge in the working precision (code %d)", src);
        goto out;
    }
    lm_md_consts_compute(&K, &s, D);
    have_k = 1;
    double mu = mul < 0 ? -mul * K.mu0 : mul;
    double eps = lm_ctx_eps(c), tauD = prm.tol_scale * 64.0 * d * d * eps;
    double wn = lm_num_get_d(&s.norm);
    lm_num_set_d(&x, 1.0);
    lm_num_div(&x, &x, &s.norm);
    lm_mat_scale(Wb, s.W, &x); /* Wbar_mm */
    lm_measure(ev, "mu", mu);
    lm_measure(ev, "mu0", K.mu0);
    lm_measure(ev, "R0 / ||W_mm||_p", R0f);
    lm_measure(ev, "decided in MPFR from the start", c != ev->ctx);

    /* (i) the ray r W_mm, r ||W_mm|| >= R */
    lm_num_mul_d(&R, &s.norm, R0f); /* R = R0f ||W_mm||_p */
    static const double rf[] = {1.0, 10.0, 1e3};
    for (int j = 0; j < 3; j++) {
        lm_num_mul_d(&x, &R, rf[j]);
        lm_num_div(&x, &x, &s.norm);
        lm_mat_scale(W, s.W, &x);
        cone_div(&v, Wb, W, p, normalize);
        lm_num_set_d(&tol, tauD);
        lm_obs_le(ev, -1, &v, &tol, 0.0, "ray: D(Wbar_mm, r W_mm) <= tau_D, r ||W_mm|| = %g R", rf[j]);
    }

    /* (ii) the start at level mu is in C_{p, kappa mu, R} */
    if (lm_md_cone_init(W0, s.W, p, mu, R0f * wn, g) || lm_md_cone_init(W1, s.W, p, 4.0 * mu, R0f * wn, g)) {
        lm_assume(ev, 0, "cone level mu = %.3g (or 4 mu) unreachable", mu);
        goto out;
    }
    double kmu = prm.mu_scale * mu;
    /* the core's bisection compares D with mu after rounding D to double, even in MPFR: the
     * start is on level mu to double accuracy, hence the allowance 2^-52 */
    double reltol = fmax(tauD / kmu, prm.tol_scale * ldexp(1.0, -52));
    lm_num_set_d(&tol, kmu);
    cone_div(&v, Wb, W0, p, normalize);
    lm_obs_le(ev, -1, &v, &tol, reltol, "start: D(Wbar_mm, Wbar_0) <= kappa mu, mu = %.3g", mu);
    lm_md_pnorm(&y, W0, p);
    lm_measure(ev, "||W_0||_p / R - 1", lm_num_get_d(&y) / (R0f * wn) - 1.0);
    lm_measure(ev, "D(Wbar_mm, Wbar_0) / mu", lm_num_get_d(&v) / mu);

    /* (iii) scale invariance, (iv) discrimination */
    static const double cs[] = {2.0, 10.0, 1e3, 1e6};
    lm_num d0, d1;
    lm_num_inits(c, &d0, &d1, (lm_num *)NULL);
    lm_num_set(&d0, &v);
    cone_div(&d1, Wb, W1, p, normalize);
    for (int j = 0; j < 4; j++) {
        lm_mat_scale_d(W, W0, cs[j]);
        cone_div(&v, Wb, W, p, normalize);
        lm_num_sub(&x, &v, &d0);
        lm_num_abs(&x, &x);
        lm_num_set_d(&y, tauD);
        lm_obs_le(ev, -1, &x, &y, 0.0, "scaling: |D(c W_0) - D(W_0)| <= tau_D, c = %g", cs[j]);
        lm_obs_le(ev, -1, &v, &tol, reltol, "scaling: c W_0 in the cone, c = %g", cs[j]);
        lm_mat_scale_d(W, W1, cs[j]);
        cone_div(&v, Wb, W, p, normalize);
        lm_num_set_d(&y, mu);
        lm_obs_le(ev, -1, &y, &v, 0.0, "discrimination: level-4mu point outside, c = %g", cs[j]);
    }
    lm_num_clears(&d0, &d1, (lm_num *)NULL);
out:
    lm_num_clears(&v, &x, &y, &tol, &R, (lm_num *)NULL);
    if (have_k) lm_md_consts_clear(&K);
    lm_md_svm_clear(&s);
    lm_mat_free(W); lm_mat_free(W0); lm_mat_free(W1); lm_mat_free(Wb);
    lm_md_data_free(D);
    return rc;
}

LM_CLAIM(claim_mirror_eq4a) = {
    .kind = LM_KIND_STRUCTURAL,
    .source = "Eq. (4a), main text",
    .origin = "reconstructed",
    .confidence = "medium",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .eval = eval,
};
