/* lemmas/implicit/assumption2.c
 *
 * \claim{implicit/assumption2}{Assumption 2: equal non-optimal scores}
 * \source{implicit-bias-self-attention, Assumption 2 (Section 3)}
 * \statement{For all $i\in[n]$ and all $t,\tau\ne\mathrm{opt}_i$: $\gamma_{it}=\gamma_{i\tau}$,
 *   where $\gamma_{it}=y_iu^\top x_{it}$; by Definition 1, $\gamma_{i,\mathrm{opt}_i}>\gamma_{it}$.}
 * \check{A hypothesis gate on the generators that the fixed-decoder claims use.  EX1 draws the noise
 *   with an exactly zero first coordinate and $u=\beta e_1$, so $\gamma_{it}=\beta c_i$ for every
 *   non-optimal token, bit for bit, in double and in MPFR.  Each instance is generated in the working
 *   context; the scores are computed there as $y_iX_iu$, and the residual
 *   $\max_i(\max_{t\ne\mathrm{opt}_i}\gamma_{it}-\min_{t\ne\mathrm{opt}_i}\gamma_{it})$ is compared
 *   with the tolerance $4\cdot2^{-p}\max_{i,t}|\gamma_{it}|$ ($p$ the working precision; factor
 *   \texttt{tol\_scale}).  Definition 1 (unique optimal token, $\Gamma_i>0$ at the designated
 *   $\mathrm{opt}_i$) is a hypothesis: an instance that misses it is assumption-failed.
 *   Configurations: EX1 homogeneous, EX1 heterogeneous (catalogue defaults, $d=800$, $n=6$, $T=4$),
 *   EX1-antipodal (Fig.~5).  The data model DM has $T=2$, where Assumption 2 holds vacuously (one
 *   non-optimal token), so it is not a configuration here.  The catalogue's robustness run is the
 *   parameter \texttt{perturb}: it adds $\texttt{perturb}\cdot\mathcal N(0,1)$ to the first coordinate
 *   of every non-optimal token; with \texttt{perturb}$=10^{-3}$ the scores are no longer equal and
 *   the check must break (that is its wrong-constant test).  Reported: $\Gamma_{\min}$,
 *   $\Gamma_{\max}$, the residual.}
 */
#include "lm_claim.h"
#include "lm_ibgen.h"
#include <math.h>

static const char *const configs[] = {"EX1 homogeneous, d=800", "EX1 hetero, d=800",
                                      "EX1-antipodal, d=800", NULL};

#define PARAMS(NUM, SWITCH)                                                                              \
    NUM(tol_scale, 4.0, "[0, 1e6]", "residual tolerance: tol_scale 2^-p max|gamma|")                     \
    NUM(perturb, 0.0, "[0, 1e6]", "std of a perturbation of the first coordinate of non-optimal tokens")
LM_PARAMS(PARAMS)

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    lm_ibgen_ex1_opts o;
    lm_ibgen_ex1_defaults(&o, ev->config == 1);
    o.antipodal = ev->config == 2;
    lm_rng *g = lm_eval_rng(ev);
    lm_attn_data *D = lm_ibgen_ex1(&o, g, ev->ctx);
    const double pert = P.perturb;
    if (pert != 0.0)
        for (int i = 0; i < D->n; i++)
            for (int t = 0; t < D->T; t++)
                if (t != D->opt[i]) {
                    double v = lm_mat_get_d(D->X[i], t, 0) + pert * lm_rng_normal(g);
                    lm_mat_set_d(D->X[i], t, 0, v);
                }
    lm_ibgen_stats s;
    lm_ibgen_stats_init(&s, ev->ctx);
    int rc = 0;
    if (lm_ibgen_stats_compute(&s, D, 0)) {
        rc = lm_fail(ev, "non-finite scores");
        goto done;
    }
    lm_measure(ev, "Gamma_min", lm_num_get_d(&s.gam_min));
    lm_measure(ev, "Gamma_max", lm_num_get_d(&s.gam_max));
    lm_measure(ev, "A2 residual", lm_num_get_d(&s.spread));
    if (!lm_assume(ev, lm_num_sgn(&s.gam_min) > 0,
                   "Definition 1: the designated optimal token is not the unique argmax "
                   "(Gamma_min = %.3g)", lm_num_get_d(&s.gam_min)))
        goto done;
    lm_num tol;
    lm_num_init(&tol, ev->ctx);
    lm_num_mul_d(&tol, &s.gam_abs,
                 P.tol_scale * exp2(lm_ctx_log2eps(ev->ctx)));
    lm_obs_le(ev, -1, &s.spread, &tol, 0.0,
              "max_i spread of non-optimal scores <= tol (n=%d, T=%d)", D->n, D->T);
    lm_num_clear(&tol);
done:
    lm_ibgen_stats_clear(&s);
    lm_attn_data_free(D);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "EX1 homogeneous data (d = 800, n = 6, T = 4): the spread of the non-optimal scores gamma_it "
     "per sequence must be zero within 4 ulps of max |gamma_it|.",
     NULL},
    {LM_READ_PAPER,
     "EX1 heterogeneous data (d = 800, n = 6, T = 4): the spread of the non-optimal scores "
     "gamma_it per sequence must be zero within 4 ulps of max |gamma_it|.",
     NULL},
    {LM_READ_PAPER,
     "EX1-antipodal data of Fig. 5 (d = 800): the spread of the non-optimal scores gamma_it per "
     "sequence must be zero within 4 ulps of max |gamma_it|.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_implicit_assumption2) = {
    .kind = LM_KIND_STRUCTURAL,
    .source = "Assumption 2 (Section 3)",
    .origin = "reconstructed",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.25,
    .eval = eval,
};
