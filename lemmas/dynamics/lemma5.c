/* lemmas/dynamics/lemma5.c
 *
 * \claim{dynamics/lemma5}{Vectorization identities}
 * \source{transformer-gd-dynamics, Lemma 5 (Appendix 1.2)}
 * \statement{For $A\in\mathbb R^{k\times l}$, $B\in\mathbb R^{l\times m}$,
 *   $C\in\mathbb R^{m\times n}$:
 *   $\mathrm{vec}(ABC)=(I_n\otimes AB)\,\mathrm{vec}(C)=(C^\top B^\top\otimes I_k)\,\mathrm{vec}(A)$,
 *   $\mathrm{vec}(AB)=(I_m\otimes A)\,\mathrm{vec}(B)=(B^\top\otimes I_k)\,\mathrm{vec}(A)$, and
 *   $\mathrm{vec}(A\odot A')=\mathrm{vec}(A)\odot\mathrm{vec}(A')$ for $A'$ of the shape of $A$.}
 * \check{Every instance runs through all $5^4=625$ shape combinations
 *   $(k,l,m,n)\in\{1,\dots,5\}^4$ with fresh random matrices, forms the Kronecker
 *   products explicitly (entry $(i_1q_r+i_2,\,j_1q_c+j_2)$ of $P\otimes Q$ is
 *   $P_{i_1j_1}Q_{i_2j_2}$) and compares both sides of each of the five identities
 *   entrywise; one observation per identity records the worst shape.
 *   $\mathrm{vec}$ is column-major, $\mathrm{vec}(A)_{a+kb}=A_{ab}$, the convention
 *   under which the identities are true; the switch \texttt{vec\_order}$=$\texttt{row}
 *   stacks rows instead, under which the four Kronecker identities are false (the
 *   Hadamard one is true in any consistent order), so that setting must come out
 *   violated.  Configuration \texttt{integer}: entries uniform in
 *   $\{-8,\dots,8\}$ (\texttt{int\_range}); every product and partial sum is an integer
 *   below $5^3\cdot 8^3<2^{53}$, so both sides are computed exactly in double and in
 *   MPFR, the identity must hold bit for bit, and the observation is
 *   $\max_i|\mathrm{lhs}_i-\mathrm{rhs}_i|\le\frac12$ (an integer residual is either
 *   $0$ or at least $1$).  Configuration \texttt{real}: standard Gaussian entries;
 *   the observation is $\max_i|\mathrm{lhs}_i-\mathrm{rhs}_i|/s_i\le
 *   4(l+m+2)\,u\cdot$\texttt{tol\_scale}, with $s_i$ the same expression evaluated on
 *   $|A|,|B|,|C|$ (the standard a-priori bound for rounded dot products) and $u$ the
 *   unit roundoff of the working precision.}
 */
#include "lm_claim.h"
#include "lm_gradcheck.h"
#include <math.h>
#include <stdio.h>

static const char *const configs[] = {"integer", "real", NULL};

#define PARAMS(NUM, SWITCH)                                                                                                             \
    SWITCH(vec_order, 0, "col|row", "vec convention: col (column-major, the paper's) or row (must fail)")                               \
    NUM(int_range, 8, "int [1, 1000]", "integer entries are uniform in [-int_range, int_range] (at most 1000: the exactness argument)") \
    NUM(tol_scale, 1.0, "[0, inf)", "multiplies the residual tolerance (1/2 for integers, 4(l+m+2)u for reals)")
LM_PARAMS(PARAMS)

/* entries drawn as doubles: integers in [-R, R] or N(0,1) */
static void fill(lm_mat *A, lm_rng *g, int integer, int R)
{
    for (int i = 0; i < A->r; i++)
        for (int j = 0; j < A->c; j++)
            lm_mat_set_d(A, i, j, integer ? (double)lm_rng_int(g, -R, R) : lm_rng_normal(g));
}

enum { NID = 5 };
static const char *const idname[NID] = {
    "vec(ABC)=(I_n x AB)vec(C)", "vec(ABC)=(C'B' x I_k)vec(A)", "vec(AB)=(I_m x A)vec(B)",
    "vec(AB)=(B' x I_k)vec(A)", "vec(A.*A2)=vec(A).*vec(A2)"};

typedef struct {
    lm_num worst;   /* worst (scaled) residual so far */
    int shape[4];
    double maxabs;  /* max unscaled residual, as a double, for the report */
} id_acc;

/* worst |lhs - rhs| (divided by the natural scale s when s != NULL) into acc */
static void compare(id_acc *acc, const lm_mat *lhs, const lm_mat *rhs, const lm_mat *s,
                    const int shape[4], const lm_ctx *c)
{
    lm_num a, b, q;
    lm_num_inits(c, &a, &b, &q, (lm_num *)NULL);
    for (int i = 0; i < lhs->r; i++) {
        lm_mat_get(&a, lhs, i, 0);
        lm_mat_get(&b, rhs, i, 0);
        lm_num_sub(&q, &a, &b);
        lm_num_abs(&q, &q);
        double qd = lm_num_get_d(&q);
        if (!(qd <= acc->maxabs)) acc->maxabs = qd;
        if (s) {
            lm_mat_get(&b, s, i, 0);
            lm_num_div(&q, &q, &b);
        }
        if (!lm_num_isfinite(&q) || lm_num_cmp(&q, &acc->worst) > 0) {
            lm_num_set(&acc->worst, &q);
            for (int k = 0; k < 4; k++) acc->shape[k] = shape[k];
        }
    }
    lm_num_clears(&a, &b, &q, (lm_num *)NULL);
}

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    const lm_ctx *c = ev->ctx;
    lm_rng *g = lm_eval_rng(ev);
    const int integer = ev->config == 0;
    const int row = lm_int(prm.vec_order);
    const int R = lm_int(prm.int_range);
    if (!lm_assume(ev, !integer || (R >= 1 && R <= 1000),
                   "int_range = %d outside [1,1000]: exactness argument does not apply", R))
        return 0;
    id_acc acc[NID];
    for (int q = 0; q < NID; q++) {
        lm_num_init(&acc[q].worst, c);
        acc[q].maxabs = 0;
        for (int k = 0; k < 4; k++) acc[q].shape[k] = 0;
    }
    /* the a-priori rounding constant of the real configuration, per shape */
    double umax = 0;
    long combos = 0;
    for (int k = 1; k <= 5; k++)
        for (int l = 1; l <= 5; l++)
            for (int m = 1; m <= 5; m++)
                for (int n = 1; n <= 5; n++) {
                    const int shape[4] = {k, l, m, n};
                    lm_mat *A = lm_mat_new(k, l, c), *B = lm_mat_new(l, m, c),
                           *C = lm_mat_new(m, n, c), *A2 = lm_mat_new(k, l, c);
                    fill(A, g, integer, R);
                    fill(B, g, integer, R);
                    fill(C, g, integer, R);
                    fill(A2, g, integer, R);
                    lm_mat *AB = lm_mat_new(k, m, c), *ABC = lm_mat_new(k, n, c);
                    lm_mat *CtBt = lm_mat_new(n, l, c);
                    lm_mat *In = lm_mat_new(n, n, c), *Ik = lm_mat_new(k, k, c),
                           *Im = lm_mat_new(m, m, c);
                    lm_mat_set_identity(In);
                    lm_mat_set_identity(Ik);
                    lm_mat_set_identity(Im);
                    lm_mat_mul(AB, A, 0, B, 0);
                    lm_mat_mul(ABC, AB, 0, C, 0);
                    lm_mat_mul(CtBt, C, 1, B, 1);
                    /* vecs */
                    lm_mat *vA = lm_mat_new(k * l, 1, c), *vB = lm_mat_new(l * m, 1, c),
                           *vC = lm_mat_new(m * n, 1, c), *vA2 = lm_mat_new(k * l, 1, c);
                    lm_mat *vABC = lm_mat_new(k * n, 1, c), *vAB = lm_mat_new(k * m, 1, c);
                    lm_gc_vec(vA, A, row);
                    lm_gc_vec(vB, B, row);
                    lm_gc_vec(vC, C, row);
                    lm_gc_vec(vA2, A2, row);
                    lm_gc_vec(vABC, ABC, row);
                    lm_gc_vec(vAB, AB, row);
                    /* the Kronecker sides */
                    lm_mat *K1 = lm_mat_new(n * k, n * m, c), *K2 = lm_mat_new(n * k, l * k, c);
                    lm_mat *K3 = lm_mat_new(m * k, m * l, c), *K4 = lm_mat_new(m * k, l * k, c);
                    lm_gc_kron(K1, In, AB);
                    lm_gc_kron(K2, CtBt, Ik);
                    lm_gc_kron(K3, Im, A);
                    {
                        lm_mat *Bt = lm_mat_new(m, l, c);
                        lm_mat_transpose(Bt, B);
                        lm_gc_kron(K4, Bt, Ik);
                        lm_mat_free(Bt);
                    }
                    lm_mat *r1 = lm_mat_new(k * n, 1, c), *r2 = lm_mat_new(k * n, 1, c);
                    lm_mat *r3 = lm_mat_new(k * m, 1, c), *r4 = lm_mat_new(k * m, 1, c);
                    lm_mat *h1 = lm_mat_new(k, l, c), *vh = lm_mat_new(k * l, 1, c),
                           *r5 = lm_mat_new(k * l, 1, c);
                    lm_mat_mul(r1, K1, 0, vC, 0);
                    lm_mat_mul(r2, K2, 0, vA, 0);
                    lm_mat_mul(r3, K3, 0, vB, 0);
                    lm_mat_mul(r4, K4, 0, vA, 0);
                    lm_mat_hadamard(h1, A, A2);
                    lm_gc_vec(vh, h1, row);
                    lm_mat_hadamard(r5, vA, vA2);
                    /* natural scales for real entries: the same expressions in |.| */
                    lm_mat *s1 = NULL, *s2 = NULL, *s5 = NULL;
                    if (!integer) {
                        lm_mat *aA = lm_mat_new(k, l, c), *aB = lm_mat_new(l, m, c),
                               *aC = lm_mat_new(m, n, c), *aA2 = lm_mat_new(k, l, c);
                        lm_mat *aAB = lm_mat_new(k, m, c), *aABC = lm_mat_new(k, n, c);
                        lm_gc_absm(aA, A);
                        lm_gc_absm(aB, B);
                        lm_gc_absm(aC, C);
                        lm_gc_absm(aA2, A2);
                        lm_mat_mul(aAB, aA, 0, aB, 0);
                        lm_mat_mul(aABC, aAB, 0, aC, 0);
                        s1 = lm_mat_new(k * n, 1, c);
                        s2 = lm_mat_new(k * m, 1, c);
                        s5 = lm_mat_new(k * l, 1, c);
                        lm_gc_vec(s1, aABC, row);
                        lm_gc_vec(s2, aAB, row);
                        lm_mat_hadamard(aA, aA, aA2);
                        lm_gc_vec(s5, aA, row);
                        lm_mat *ms[] = {aA, aB, aC, aA2, aAB, aABC};
                        for (size_t q = 0; q < sizeof ms / sizeof *ms; q++) lm_mat_free(ms[q]);
                    }
                    compare(&acc[0], vABC, r1, s1, shape, c);
                    compare(&acc[1], vABC, r2, s1, shape, c);
                    compare(&acc[2], vAB, r3, s2, shape, c);
                    compare(&acc[3], vAB, r4, s2, shape, c);
                    compare(&acc[4], vh, r5, s5, shape, c);
                    umax = fmax(umax, 4.0 * (l + m + 2));
                    combos++;
                    lm_mat *ms[] = {A, B, C, A2, AB, ABC, CtBt, In, Ik, Im, vA, vB, vC, vA2,
                                    vABC, vAB, K1, K2, K3, K4, r1, r2, r3, r4, h1, vh, r5, s1,
                                    s2, s5};
                    for (size_t q = 0; q < sizeof ms / sizeof *ms; q++)
                        if (ms[q]) lm_mat_free(ms[q]);
                }
    /* tolerance: 1/2 for integers (residuals are integers), 4(l+m+2)u for reals.
     * The real tolerance uses the largest shape constant: per-shape constants
     * would be tighter only by a factor <= 2.4, and the identities fail by O(1). */
    lm_num tol;
    lm_num_init(&tol, c);
    lm_num_set_d(&tol, prm.tol_scale * (integer ? 0.5 : umax * lm_ctx_eps(c)));
    for (int q = 0; q < NID; q++) {
        if (!lm_num_isfinite(&acc[q].worst)) {
            lm_fail(ev, "non-finite residual in %s", idname[q]);
            break;
        }
        if (acc[q].shape[0] == 0)
            lm_obs_le(ev, -1, &acc[q].worst, &tol, 0.0, "%s [%s vec], all 625 shapes exact",
                      idname[q], row ? "row" : "col");
        else
            lm_obs_le(ev, -1, &acc[q].worst, &tol, 0.0, "%s [%s vec], worst at k=%d l=%d m=%d n=%d",
                      idname[q], row ? "row" : "col", acc[q].shape[0], acc[q].shape[1],
                      acc[q].shape[2], acc[q].shape[3]);
        char nm[96];
        snprintf(nm, sizeof nm, "max |lhs-rhs| %s", idname[q]);
        lm_measure(ev, nm, acc[q].maxabs);
    }
    lm_measure(ev, "shape combinations", (double)combos);
    lm_measure(ev, "tolerance", lm_num_get_d(&tol));
    lm_num_clear(&tol);
    for (int q = 0; q < NID; q++) lm_num_clear(&acc[q].worst);
    return 0;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "All five vec identities on all 625 shapes (k,l,m,n) in {1..5}^4 with integer entries in "
     "[-8, 8]: computed exactly, so both sides must agree bit for bit.",
     NULL},
    {LM_READ_PAPER,
     "All five vec identities on all 625 shapes (k,l,m,n) in {1..5}^4 with Gaussian entries, "
     "residuals within the a-priori dot-product bound 4(l+m+2)u.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_dynamics_lemma5) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Lemma 5, Appendix 1.2",
    .origin = "verbatim",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 1.0,
    .search_dim = 0,
    .eval = eval,
};
