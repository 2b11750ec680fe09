/* lemmas/pruning/lemmaF-2.c
 *
 * \claim{pruning/lemmaF.2}{Lower bound on $\|A+B\|_F$}
 * \source{attention-pruning, Lemma F.2 (Appendix F)}
 * \statement{(RECON) Let $A,B\in\mathbb R^{d\times d}$ with $\|A\|_F\le a$ and $\|B\|_F\le b$.
 *   Part 1: $\|A+B\|_F^2\ge\|A\|_F^2+\|B\|_F^2-2ab$.  Part 2: if $\|A\|_F^2+\|B\|_F^2\ge2ab$,
 *   then $\|A+B\|_F\ge\sqrt{\|A\|_F^2+\|B\|_F^2}-\sqrt{2ab}\ (\ge\|A\|_F-\sqrt{2ab})$.  In the PL
 *   proof: $A=W\circ(X^\top pX)$, $a=U$, $B=\lambda M$, $b=\lambda d$.}
 * \check{Configurations \texttt{part1} and \texttt{part2}; $d\in[1,6]$, entries of scale
 *   $10^{[-3,3]}$.  Instance kinds cycle with the index: (0) random Gaussian $A,B$ with tight
 *   bounds $a=\|A\|_F$, $b=\|B\|_F$; (1) the worst case $B=-tA$, $t=10^{[-2,2]}$, tight bounds
 *   (part 1 is then an equality); (2) $B=-A$ (both sides of part 2 vanish: its equality case);
 *   (3) random $A,B$ with loose bounds $a=(1+s)\|A\|_F$, $b=(1+s')\|B\|_F$, $s,s'\in[0,3]$;
 *   (4) $B=tA$ aligned ($t>0$); (5) the application: a pruning instance of the catalogue's
 *   grids ($n\le5$, $d\le4$, $R\in\{1.5,2\}$), $A=W\circ(X^\top p(M)X)$, $B=\lambda M$ with
 *   $M\in[0,1]^{d\times d}$, $a=U=4n^{3/2}dR^3$ (the RECON constant of F.10), $b=\lambda d$.  The
 *   constant $2$ of $2ab$ is the parameter \texttt{c\_ab}.  Part 1 observes
 *   $\|A\|^2+\|B\|^2-c_{ab}ab\le\|A+B\|^2+\tau(\|A\|^2+\|B\|^2+c_{ab}ab)$, part 2 observes
 *   $\sqrt{\|A\|^2+\|B\|^2}-\sqrt{c_{ab}ab}\le\|A+B\|+\tau(\sqrt{\|A\|^2+\|B\|^2}+\sqrt{c_{ab}ab})$ and the
 *   weaker $\|A\|-\sqrt{c_{ab}ab}\le\|A+B\|+\dots$; $\tau=\texttt{tol\_scale}\cdot16d^2u$, an absolute
 *   slack because both sides cancel at $B=-A$.  Part 2's side condition
 *   $\|A\|^2+\|B\|^2\ge c_{ab}ab$ is a hypothesis: an instance that misses it is
 *   assumption-failed (it is never evaluated as the square root of a negative number); with
 *   \texttt{bounds}$=$exceed ($a=b=\sqrt{\|A\|^2+\|B\|^2}$) every instance misses it.  In the
 *   application (kind 5, $\lambda=10^{[-3,1]}$) the side condition $\|A\|^2+\|B\|^2\ge2U\lambda d$ failed in
 *   every instance we drew: with the RECON $U$ the PL proof cannot use part 2 as stated, only
 *   part 1 (or a bound with $\|A\|_F$ in place of $U$).  Part 1 is
 *   attained at $B=-tA$, part 2 at $B=-A$, so \texttt{c\_ab}$=1.99$ (part 1) and
 *   \texttt{c\_ab}$=1.9$ (part 2) are violated.}
 */
#include "lm_prbd.h"
#include <math.h>
#include <stdio.h>

static const char *const configs[] = {"part1", "part2", NULL};
#define PARAMS(NUM, SWITCH)                                                                                                              \
    NUM(c_ab, 2.0, "constant [0, 1e6]", "the constant of 2ab (the paper: 2)")                                                            \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies the rounding tolerance 16 d^2 u")                                                \
    SWITCH(bounds, 0, "kind|exceed", "a, b as the instance kind says, or a = b = sqrt(||A||^2+||B||^2) (part 2's side condition fails)")
LM_PARAMS(PARAMS)

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    int kind = ev->index % 6, part = ev->config + 1;
    int d = lm_rng_int(g, 1, 6);
    double s = pow(10.0, 6.0 * lm_rng_uniform(g) - 3.0), t = pow(10.0, 4.0 * lm_rng_uniform(g) - 2.0);
    double sa = 3.0 * lm_rng_uniform(g), sb = 3.0 * lm_rng_uniform(g);
    double A0[64], B0[64], aU = 0.0, bl = 0.0;
    const lm_ctx *c = ev->ctx;
    lm_ctx cd = lm_ctx_double();
    if (kind == 5) {
        lm_prbd_plan pl;
        lm_prbd_plan_make(&pl, ev->index, g);
        if (pl.n > 5) pl.n = 5;
        if (pl.d > 4) pl.d = 4;
        pl.R = lm_rng_uniform(g) < 0.5 ? 1.5 : 2.0;
        pl.mk = LM_PR_M_UNIFORM;
        d = pl.d;
        lm_mat *M;
        lm_prdata *P = lm_prbd_draw(&pl, &M, g);
        P->lambda = pow(10.0, 4.0 * lm_rng_uniform(g) - 3.0);
        lm_prfwd *F = lm_pr_fwd_new(P);
        int bad = lm_pr_forward(F, P, M);
        if (!bad) {
            lm_pr_grad(F, P, M);
            lm_mat *T = lm_mat_new(d, d, &cd);
            lm_mat_hadamard(T, P->W, F->XtPX);
            lm_mat_get_array(A0, T);
            lm_mat_get_array(B0, M);
            for (int k = 0; k < d * d; k++) B0[k] *= P->lambda;
            lm_mat_free(T);
            aU = exp(lm_pr_log_U(pl.n, d, pl.R));
            bl = P->lambda * d;
        }
        lm_pr_fwd_free(F);
        lm_pr_free(P);
        lm_mat_free(M);
        if (bad) return lm_fail(ev, "non-finite forward pass (application instance)");
    } else {
        for (int k = 0; k < d * d; k++) A0[k] = s * lm_rng_normal(g);
        for (int k = 0; k < d * d; k++) {
            double r = s * pow(10.0, 2.0 * lm_rng_uniform(g) - 1.0) * lm_rng_normal(g);
            B0[k] = kind == 1 ? -t * A0[k] : kind == 2 ? -A0[k] : kind == 4 ? t * A0[k] : r;
        }
    }
    lm_mat *A = lm_mat_new(d, d, c), *B = lm_mat_new(d, d, c), *S = lm_mat_new(d, d, c);
    lm_num na, nb, a, b, nsum, cab, l, r, x, y;
    lm_num_inits(c, &na, &nb, &a, &b, &nsum, &cab, &l, &r, &x, &y, (lm_num *)NULL);
    int rc = 0;
    lm_mat_set_array(A, A0);
    lm_mat_set_array(B, B0);
    lm_mat_add(S, A, B);
    lm_mat_frob(&na, A);
    lm_mat_frob(&nb, B);
    lm_mat_frob(&nsum, S);
    if (kind == 5) {
        lm_num_set_d(&a, aU);
        lm_num_set_d(&b, bl);
    } else {
        lm_num_mul_d(&a, &na, kind == 3 ? 1.0 + sa : 1.0);
        lm_num_mul_d(&b, &nb, kind == 3 ? 1.0 + sb : 1.0);
    }
    lm_num_sqr(&x, &na);
    lm_num_sqr(&y, &nb);
    lm_num_add(&x, &x, &y); /* ||A||^2 + ||B||^2 */
    if (lm_int(prm.bounds) == 1) {
        lm_num_sqrt(&a, &x);
        lm_num_max(&b, &a, &nb); /* max: the rounded square root may fall an ulp short */
        lm_num_max(&a, &a, &na);
    }
    /* the hypotheses ||A|| <= a, ||B|| <= b (by construction; in the application a = U is
     * the RECON bound of F.10, so a failure there is reported, never counted as a pass) */
    if (!lm_assume(ev, lm_num_cmp(&na, &a) <= 0 && lm_num_cmp(&nb, &b) <= 0,
                   "the bounds do not dominate: ||A|| = %g vs a = %g, ||B|| = %g vs b = %g (kind %d)",
                   lm_num_get_d(&na), lm_num_get_d(&a), lm_num_get_d(&nb), lm_num_get_d(&b), kind))
        goto out;
    lm_num_mul(&cab, &a, &b);
    lm_num_mul_d(&cab, &cab, prm.c_ab); /* c_ab a b */
    double tau = lm_prbd_tol(ev, 16.0 * d * d);
    lm_measure(ev, "kind", kind);
    lm_measure(ev, "d", d);
    if (part == 1) {
        lm_num_sub(&l, &x, &cab);
        lm_num_sqr(&r, &nsum);
        lm_num_add(&y, &x, &cab);
        lm_num_mul_d(&y, &y, tau);
        lm_num_add(&y, &r, &y);
        lm_obs_le(ev, -1, &l, &y, 0.0, "||A||^2 + ||B||^2 - c ab <= ||A+B||^2 (kind %d, d=%d)", kind, d);
        if (lm_num_sgn(&r) > 0) lm_measure(ev, "(||A||^2+||B||^2-2ab) / ||A+B||^2", lm_num_get_d(&l) / lm_num_get_d(&r));
    } else {
        lm_measure(ev, "side condition (||A||^2+||B||^2) / (c ab)", lm_num_get_d(&x) / lm_num_get_d(&cab));
        if (!lm_assume(ev, lm_num_cmp(&x, &cab) >= 0,
                       "side condition ||A||^2 + ||B||^2 >= c ab fails (kind %d: %g < %g)", kind,
                       lm_num_get_d(&x), lm_num_get_d(&cab)))
            goto out;
        lm_num_sqrt(&x, &x);
        lm_num_sqrt(&cab, &cab);
        lm_num_sub(&l, &x, &cab);
        lm_num_add(&y, &x, &cab);
        lm_num_mul_d(&y, &y, tau);
        lm_num_add(&r, &nsum, &y);
        lm_obs_le(ev, -1, &l, &r, 0.0, "sqrt(||A||^2+||B||^2) - sqrt(c ab) <= ||A+B|| (kind %d, d=%d)", kind, d);
        if (lm_num_sgn(&nsum) > 0) lm_measure(ev, "(sqrt(||A||^2+||B||^2) - sqrt(2ab)) / ||A+B||", lm_num_get_d(&l) / lm_num_get_d(&nsum));
        lm_num_sub(&l, &na, &cab);
        lm_obs_le(ev, -1, &l, &r, 0.0, "||A|| - sqrt(c ab) <= ||A+B|| (kind %d, d=%d)", kind, d);
    }
out:
    lm_num_clears(&na, &nb, &a, &b, &nsum, &cab, &l, &r, &x, &y, (lm_num *)NULL);
    lm_mat_free(A); lm_mat_free(B); lm_mat_free(S);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Part 1, ||A+B||^2 >= ||A||^2 + ||B||^2 - 2ab, d <= 6, entries 1e-3..1e3: "
                    "random, worst case B = -tA (equality), loose bounds, aligned, and the PL "
                    "application.", NULL},
    {LM_READ_PAPER, "Part 2, ||A+B|| >= sqrt(||A||^2 + ||B||^2) - sqrt(2ab) under its side "
                    "condition: equality at B = -A; the PL application (a = U) misses the "
                    "condition.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_lemmaF_2) = {
    .kind = LM_KIND_POINTWISE,
    .source = "Lemma F.2 (Appendix F)",
    .origin = "reconstructed",
    .confidence = "low",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 1.0,
    .eval = eval,
};
