/* lemmas/precond/assumption1.c
 *
 * \claim{precond/assumption1}{A1: the covariance is positive definite}
 * \source{preconditioned-softmax-regression, Assumption A1 (Section 2)}
 * \statement{$\Sigma\succ0$, i.e.\ $\lambda_{\min}(\Sigma)>0$.}
 * \check{A1 is a hypothesis; what is checked is that every instance the harness uses meets it,
 *   including the paper-sized instance of S9 (the paper asserts that its experimental instance
 *   satisfies A1--A3; its numbers are lost, S9's harness default stands for it).  Instances cycle
 *   through the families of S1/S9: $\Sigma=GG^\top/d+cI$ with $c\in\{0.3,0.5,1\}$, the stress
 *   covariances $Q\,\mathrm{diag}(\kappa^{-(a-1)/(d-1)})Q^\top$ with $\kappa\in\{10^2,10^6\}$, the S9
 *   default ($d=4$, $k=6$, $c=1$) and its A3 copy; $d\in[1,5]$.  $\lambda_{\min}$ and $\lambda_{\max}$
 *   are computed by the symmetric eigensolver in the working precision, and in MPFR-256 for the
 *   $\kappa=10^6$ family (S11).  Observed: $\texttt{min\_rel}\cdot\lambda_{\max}(\Sigma)\le\lambda_{\min}(\Sigma)$
 *   and $\lambda_{\min}(\Sigma)>0$ (as $10^{-300}\le\lambda_{\min}$), with $\texttt{min\_rel}=10^{-12}$, a floor far below every family ($\kappa\le10^6$) but far above
 *   the rounding of an exactly singular matrix, so that ``numerically positive definite'' is
 *   decided robustly.  Also observed: the prepared $\Sigma^{-1/2}$ is accurate,
 *   $\|\Sigma^{1/2}\Sigma^{-1/2}-I\|_F\le\texttt{tol\_scale}\cdot64d\,\kappa(\Sigma)^{1/2}u$.  Measured:
 *   $\lambda_{\min}$, $\log_{10}\kappa(\Sigma)$.  Negative control: \texttt{plant}$=$\texttt{singular}
 *   replaces $\Sigma$ by the exactly singular $vv^\top+\mathrm{diag}(0,\dots)$ built from small
 *   integers ($\lambda_{\min}=0$ exactly); it must come out violated.}
 */
#include "lm_pcst.h"
#include <math.h>

static const char *const configs[] = {"c=0.3", "c=0.5", "c=1", "kappa=1e2", "kappa=1e6", "paper-default",
                                      "A3-copy", NULL};
#define PARAMS(NUM, SWITCH)                                                                                         \
    NUM(min_rel, 1e-12, "[0, 1]", "floor: min_rel lambda_max <= lambda_min decides positive definiteness")          \
    NUM(tol_scale, 1.0, "[0, 1e6]", "multiplies the tolerance 64 d kappa^1/2 u of the Sigma^-1/2 residual")         \
    SWITCH(plant, 0, "none|singular", "none: the families; singular: an exactly singular Sigma (negative control)")
LM_PARAMS(PARAMS)

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    static const double taus[] = {0.004, 0.01, 0.1, 1.0};
    lm_pcst_spec sp;
    lm_pcst_spec_draw(&sp, ev->config, 5, taus, 4, g);
    lm_ctx cw = *ev->ctx;
    if (sp.kappa >= 1e6 && lm_pcst_bits(&cw) < 256) cw = lm_ctx_mpfr(256);
    lm_pcdata *P = lm_pcst_make(&sp, g, &cw);
    int d = P->d, plant = lm_int(prm.plant);
    if (plant && d >= 2) { /* Sigma = v v^T + diag(0, 1, ..., 1) restricted: exactly singular */
        lm_mat_zero(P->Sig);
        for (int i = 0; i < d; i++)
            for (int j = 0; j < d; j++) lm_mat_set_d(P->Sig, i, j, (double)((i + 1) * (j + 1)));
        for (int i = 2; i < d; i++) lm_mat_set_d(P->Sig, i, i, lm_mat_get_d(P->Sig, i, i) + 1.0);
        /* rows 0 and 1 are proportional: v = (1, 2, ...), so Sigma e = 0 for e = (2, -1, 0...) */
        for (int j = 2; j < d; j++) {
            lm_mat_set_d(P->Sig, 0, j, 0.0);
            lm_mat_set_d(P->Sig, j, 0, 0.0);
            lm_mat_set_d(P->Sig, 1, j, 0.0);
            lm_mat_set_d(P->Sig, j, 1, 0.0);
        }
    } else if (plant) {
        lm_mat_set_d(P->Sig, 0, 0, 0.0);
    }
    lm_num mn, mx, x;
    lm_num_inits(&cw, &mn, &mx, &x, (lm_num *)NULL);
    int rc = 0;
    if (lm_pcst_eig_minmax(&mn, &mx, P->Sig) || !lm_num_isfinite(&mn) || !lm_num_isfinite(&mx)) {
        rc = lm_fail(ev, "eigensolver failed on Sigma");
        goto out;
    }
    double lmin = lm_num_get_d(&mn), lmax = lm_num_get_d(&mx);
    lm_obs_le_d(ev, -1, prm.min_rel * lmax, lmin, 0.0,
                "A1: min_rel lambda_max(Sigma) <= lambda_min(Sigma) (%s, d=%d%s)",
                lm_pcst_family_name[ev->config], d, plant ? ", planted singular" : "");
    lm_obs_le_d(ev, -1, 1e-300, lmin, 0.0, "A1: lambda_min(Sigma) > 0 (%s, d=%d)", lm_pcst_family_name[ev->config], d);
    lm_measure(ev, "lambda_min(Sigma)", lmin);
    lm_measure(ev, "log10 kappa(Sigma)", lmin > 0 ? log10(lmax / lmin) : HUGE_VAL);
    if (!plant) {
        lm_mat *T = lm_mat_new(d, d, &cw), *I = lm_mat_new(d, d, &cw);
        lm_mat_mul(T, P->Sh, 0, P->Sih, 0);
        lm_mat_set_identity(I);
        lm_num_set_d(&x, sqrt((double)d));
        double r = lm_pcst_rel_mat(T, I, &x);
        double tol = prm.tol_scale * 64.0 * d * sqrt(lmax / lmin) * lm_ctx_eps(&cw);
        lm_obs_le_d(ev, -1, r, tol, 0.0, "||Sigma^1/2 Sigma^-1/2 - I||_F / sqrt(d) <= 64 d kappa^1/2 u");
        lm_measure(ev, "log10 ||Sigma^1/2 Sigma^-1/2 - I||_F/sqrt(d)", r > 0 ? log10(r) : -400.0);
        lm_mat_free(T);
        lm_mat_free(I);
    }
out:
    lm_num_clears(&mn, &mx, &x, (lm_num *)NULL);
    lm_pc_free(P);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "Covariances Sigma = G G^T/d + c I with c = 0.3 (the least regularised family), d in 1..5: "
     "lambda_min(Sigma) > 0 and >= 1e-12 lambda_max, and Sigma^(1/2) Sigma^(-1/2) = I.",
     NULL},
    {LM_READ_PAPER,
     "Covariances Sigma = G G^T/d + c I with c = 0.5, d in 1..5: lambda_min(Sigma) > 0 and >= "
     "1e-12 lambda_max, and the prepared Sigma^(-1/2) accurate.",
     NULL},
    {LM_READ_PAPER,
     "Covariances Sigma = G G^T/d + c I with c = 1, d in 1..5: lambda_min(Sigma) > 0 and >= 1e-12 "
     "lambda_max, and the prepared Sigma^(-1/2) accurate.",
     NULL},
    {LM_READ_PAPER,
     "Stress covariances with condition number kappa = 1e2 (geometric spectrum): "
     "lambda_min(Sigma) > 0 and >= 1e-12 lambda_max, and the prepared Sigma^(-1/2) accurate.",
     NULL},
    {LM_READ_PAPER,
     "Stress covariances with kappa = 1e6, eigenvalues computed in MPFR-256: lambda_min(Sigma) > "
     "0 and >= 1e-12 lambda_max, and the prepared Sigma^(-1/2) accurate.",
     NULL},
    {LM_READ_PAPER,
     "The paper-sized S9 harness default (d = 4, k = 6, c = 1), standing for the paper's lost "
     "experimental instance: Sigma positive definite and Sigma^(-1/2) accurate.",
     NULL},
    {LM_READ_PAPER,
     "The A3-conforming copy of the S9 default (d = 4, k = 6, c = 1, tau = 0.01): Sigma positive "
     "definite with lambda_min >= 1e-12 lambda_max, and Sigma^(-1/2) accurate.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_precond_assumption1) = {
    .kind = LM_KIND_STRUCTURAL,
    .source = "Assumption A1",
    .origin = "reconstructed",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .eval = eval,
};
