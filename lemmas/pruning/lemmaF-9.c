/* lemmas/pruning/lemmaF-9.c
 *
 * \claim{pruning/lemmaF.9}{Bound for $p_1$}
 * \source{attention-pruning, Lemma F.9 (Appendix F)}
 * \statement{(RECON) $\|f(M)\circ c(M)\|_F\le2n$; the proof uses $|f_{ij}|\le1$ and
 *   $|c_{ij}|\le2$.  An alternative printed form is $\|p_2(M)\|_F\le2\sqrt n$.}
 * \check{Configuration \texttt{p1}: $\|p_1(M)\|_F\le\texttt{c\_p1}\cdot n$; configuration
 *   \texttt{alt-p2}: $\|p_2(M)\|_F\le\texttt{c\_p2}\sqrt n$.  Instances as in
 *   \texttt{pruning/lemmaD.3}, one in three hill-climbed in double over $X$, $W$ at the
 *   corners and over $M$ to maximise the ratio; relative tolerance
 *   $\texttt{tol\_scale}\cdot16(n+d)u$.  The sharp sups are $\sqrt n$ for both ($n=1$ gives
 *   $0$), so constants below them (\texttt{c\_p1}$=0.3$ at $n\ge4$, \texttt{c\_p2}$=0.6$) are
 *   violated.
 *   Readings: both configurations read the paper (the alternative printed form included); both
 *   are vacuous with the RECON constants ($\|f\circ c\|_F$ and $\|p_2\|_F$ are at most $\sqrt n$ a priori).}
 */
#include "lm_prbd.h"
#include <math.h>

static const char *const configs[] = {"p1", "alt-p2", NULL};
#define PARAMS(NUM, SWITCH)                                                                 \
    NUM(c_p1, 2.0, "constant [0, 1e6]", "||f o c||_F <= c_p1 n (RECON)")                    \
    NUM(c_p2, 2.0, "constant [0, 1e6]", "alternative: ||p2||_F <= c_p2 sqrt(n) (RECON)")    \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies the rounding tolerance 16 (n+d) u")
LM_PARAMS(PARAMS)

static void part_fn(lm_num *lhs, lm_num *rhs, const lm_prfwd *F, const lm_prdata *P, int part)
{
    lm_mat_frob(lhs, part ? F->p2 : F->p1);
    lm_num_set_d(rhs, P->n);
    if (part) lm_num_sqrt(rhs, rhs);
}

static int eval(lm_eval *ev)
{
    double coef = lm_par(ev, ev->config ? "c_p2" : "c_p1");
    int rc = lm_prbd_parts_eval(ev, ev->config, part_fn, coef, 1);
    /* |(f o c)_ij| <= f_ij and |(p1 1)_j| <= 1, so ||p1||_F, ||p2||_F <= ||f||_F <= sqrt(n) a priori:
     * c_p1 n >= sqrt(n) for every n once c_p1 >= 1, c_p2 sqrt(n) >= sqrt(n) once c_p2 >= 1 (vacuous) */
    if (!rc)
        lm_rhs_trivial(ev, coef, 1.0, ev->config ? "||p2||_F / sqrt(n) (a priori <= 1)"
                                                 : "||f o c||_F / n (a priori <= 1/sqrt(n) <= 1)");
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "RECON form ||f o c||_F <= 2n, n, d <= 8, full and causal, masks incl. "
                    "off-domain, 1 in 3 hill-climbed: vacuous (the sharp sup is sqrt(n)).", NULL},
    {LM_READ_PAPER, "The alternative printed form ||p2(M)||_F <= 2 sqrt(n), same instances and "
                    "hill-climb: vacuous with the RECON constant (the sharp sup is "
                    "sqrt(n)).", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_lemmaF_9) = {
    .kind = LM_KIND_POINTWISE,
    .source = "Lemma F.9 (Appendix F)",
    .origin = "reconstructed (RECON constant: c_p1, c_p2)",
    .confidence = "low",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 1.0,
    .eval = eval,
};
