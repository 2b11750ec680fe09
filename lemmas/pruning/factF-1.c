/* lemmas/pruning/factF-1.c
 *
 * \claim{pruning/factF.1}{Square-root inequalities}
 * \source{attention-pruning, Fact F.1 (Appendix F)}
 * \statement{(RECON) For $a,b\ge0$: Part 1, $\sqrt{a+b}\le\sqrt a+\sqrt b$ (possible printed
 *   alternative: $\sqrt{a+b}\ge(\sqrt a+\sqrt b)/\sqrt2$); Part 2, if $a\ge b$ then
 *   $\sqrt{a-b}\ge\sqrt a-\sqrt b$.}
 * \check{Configurations \texttt{part1}, \texttt{part1-alt}, \texttt{part2}.  $a,b$
 *   log-uniform in $[10^{-20},10^{20}]$, with the equality cases in turn ($b=0$; $a=0$;
 *   $a=b$, the alternative's equality; $b=a$ in part 2); part 2 orders them so $a\ge b$.  The
 *   adversarial search moves $(\log a,\log b)$.  Observed in the working precision with
 *   relative tolerance $\texttt{tol\_scale}\cdot8u$: part 1
 *   $\sqrt{a+b}\le\texttt{coef}(\sqrt a+\sqrt b)$; alternative
 *   $(\sqrt a+\sqrt b)/\sqrt2\le\texttt{coef}\sqrt{a+b}$; part 2
 *   $\sqrt a-\sqrt b\le\texttt{coef}\sqrt{a-b}$.  Each has an equality case, so
 *   $\texttt{coef}=0.999$ is violated.}
 */
#include "lm_prbd.h"
#include <math.h>

static const char *const configs[] = {"part1", "part1-alt", "part2", NULL};
#define PARAMS(NUM, SWITCH)                                                              \
    NUM(coef, 1.0, "constant [0, 1e6]", "multiplies the right-hand side (the paper: 1)") \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies the rounding tolerance 8u")
LM_PARAMS(PARAMS)

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    double a = pow(10.0, 40.0 * lm_rng_uniform(g) - 20.0), b = pow(10.0, 40.0 * lm_rng_uniform(g) - 20.0);
    if (ev->x) {
        a = pow(10.0, 20.0 * tanh(ev->x[0] / 4.0));
        b = pow(10.0, 20.0 * tanh(ev->x[1] / 4.0));
    }
    int k = ev->index % 5;
    if (!ev->x) {
        if (k == 1) b = 0.0;
        if (k == 2) a = 0.0;
        if (k == 3) b = a;
    }
    if (ev->config == 2 && a < b) { double t = a; a = b; b = t; }
    lm_num A, B, sa, sb, l, r;
    lm_num_inits(ev->ctx, &A, &B, &sa, &sb, &l, &r, (lm_num *)NULL);
    lm_num_set_d(&A, a);
    lm_num_set_d(&B, b);
    lm_num_sqrt(&sa, &A);
    lm_num_sqrt(&sb, &B);
    double coef = P.coef, tol = lm_prbd_tol(ev, 8.0);
    if (ev->config == 0) {
        lm_num_add(&l, &A, &B);
        lm_num_sqrt(&l, &l);
        lm_num_add(&r, &sa, &sb);
        lm_prbd_obs(ev, &l, coef, &r, tol, "sqrt(a+b) <= coef (sqrt a + sqrt b)");
    } else if (ev->config == 1) {
        lm_num_add(&l, &sa, &sb);
        lm_num_set_d(&r, 2.0);
        lm_num_sqrt(&r, &r);
        lm_num_div(&l, &l, &r);
        lm_num_add(&r, &A, &B);
        lm_num_sqrt(&r, &r);
        lm_prbd_obs(ev, &l, coef, &r, tol, "(sqrt a + sqrt b)/sqrt 2 <= coef sqrt(a+b)");
    } else {
        lm_num_sub(&l, &sa, &sb);
        lm_num_sub(&r, &A, &B);
        lm_num_sqrt(&r, &r);
        lm_prbd_obs(ev, &l, coef, &r, tol, "sqrt a - sqrt b <= coef sqrt(a-b)");
    }
    if (lm_num_sgn(&r) > 0) lm_measure(ev, "LHS / RHS", lm_num_get_d(&l) / lm_num_get_d(&r));
    lm_measure(ev, "log10 a", log10(a));
    lm_measure(ev, "log10 b", b > 0 ? log10(b) : -400.0);
    lm_num_clears(&A, &B, &sa, &sb, &l, &r, (lm_num *)NULL);
    return 0;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Part 1, sqrt(a + b) <= sqrt(a) + sqrt(b), a, b log-uniform in [1e-20, 1e20] "
                    "plus the equality cases b = 0 and a = 0; searched over (log a, log b).", NULL},
    {LM_READ_PAPER, "The possible printed alternative (sqrt(a) + sqrt(b))/sqrt(2) <= sqrt(a + b), "
                    "a, b log-uniform in [1e-20, 1e20], with its equality case a = b.", NULL},
    {LM_READ_PAPER, "Part 2, sqrt(a) - sqrt(b) <= sqrt(a - b) for a >= b, a, b log-uniform in "
                    "[1e-20, 1e20], with the equality cases b = 0 and b = a.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_factF_1) = {
    .kind = LM_KIND_POINTWISE,
    .source = "Fact F.1 (Appendix F)",
    .origin = "reconstructed",
    .confidence = "low (which variant), high (truth)",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 1.0,
    .search_dim = 2,
    .eval = eval,
};
