/* lemmas/pruning/factA-4.c
 *
 * \claim{pruning/factA.4}{Basic algebra}
 * \source{attention-pruning, Fact A.4 (Appendix A)}
 * \statement{(Reconstructed list.)  $\langle a,b\rangle=a^\top b=b^\top a$;
 *   $a\circ b=b\circ a=\mathrm{diag}(a)b$; $a^\top(b\circ c)=\langle a\circ b,c\rangle=a^\top\mathrm{diag}(b)c$;
 *   $\mathrm{diag}(a)\mathbf 1_n=a$; $\langle A,B\circ C\rangle=\langle A\circ B,C\rangle$;
 *   $\langle A,B\rangle=\mathrm{tr}(A^\top B)$; $\mathrm{tr}(AB)=\mathrm{tr}(BA)$; $(AB)^\top=B^\top A^\top$;
 *   $x^\top(A\circ B)y=\mathrm{tr}(\mathrm{diag}(x)A\,\mathrm{diag}(y)B^\top)$; $(A\circ B)^\top=A^\top\circ B^\top$.}
 * \check{For each instance size $n\in\{1,2,3,5,8,16\}$ (drawn with a pruning instance, causal), Gaussian
 *   vectors $a,b,c,x,y\in\mathbb R^n$ and matrices $A,B,C\in\mathbb R^{n\times n}$ (plus $A=f(M)$,
 *   $B=c(M)$ of the model for the trace items), drawn as doubles and rebuilt exactly in IEEE double,
 *   MPFR-128 and MPFR-256.  Each side is computed by a different route (entry loops, matrix
 *   products with assembled diagonal matrices, Hadamard products, dot products, transposes); every
 *   residual is divided by the product of the Frobenius norms of the factors (which bounds both the
 *   value and its rounding), tolerance $8(n^2+4)u_p$, and must shrink from the lowest to the highest
 *   precision.  \texttt{formula}$=$trace-transpose replaces $\mathrm{tr}(BA)$ by $\mathrm{tr}(B^\top A)$
 *   and must be caught.  The trace items on $(f,c)$ are scaled by $\|f\|_F\|c\|_F$, so at $M=\mathbf 1$ ($c=0$) they are exact zeros.}
 */
#include "lm_prid.h"

static const char *const configs[] = {"default", NULL};
static const double RS[] = {1.000001, 1.5, 2.0};

#define PARAMS(NUM, SWITCH)                                                                                                 \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies every rounding tolerance K u_p")                                    \
    SWITCH(formula, 0, "stated|trace-transpose", "tr(AB) = tr(BA) as stated (trace-transpose: tr(B^T A), a wrong formula)")
LM_PARAMS(PARAMS)

static double K_of(int n) { return 8.0 * (n * n + 4); }

/* record |x - y| / (product of the Frobenius norms of up to three factors) */
static void res(lm_prid_inst *I, const char *name, const lm_num *x, const lm_num *y, const lm_mat *F1,
                const lm_mat *F2, const lm_mat *F3)
{
    lm_num d, s, t;
    lm_num_inits(I->c, &d, &s, &t, (lm_num *)NULL);
    lm_num_sub(&d, x, y);
    lm_mat_frob(&s, F1);
    if (F2) {
        lm_mat_frob(&t, F2);
        lm_num_mul(&s, &s, &t);
    }
    if (F3) {
        lm_mat_frob(&t, F3);
        lm_num_mul(&s, &s, &t);
    }
    lm_prid_resid(I, name, &d, &s, K_of(I->n));
    lm_num_clears(&d, &s, &t, (lm_num *)NULL);
}

static void diag_of(lm_mat *D, const lm_mat *v)
{
    lm_ctx c = lm_mat_ctx(v);
    lm_num x;
    lm_num_init(&x, &c);
    lm_mat_zero(D);
    for (int i = 0; i < v->r; i++) {
        lm_mat_get(&x, v, i, 0);
        lm_mat_set(D, i, i, &x);
    }
    lm_num_clear(&x);
}

static void trace(lm_num *t, const lm_mat *A)
{
    lm_ctx c = lm_mat_ctx(A);
    lm_num x;
    lm_num_init(&x, &c);
    lm_num_set_d(t, 0.0);
    for (int i = 0; i < A->r; i++) {
        lm_mat_get(&x, A, i, i);
        lm_num_add(t, t, &x);
    }
    lm_num_clear(&x);
}

static int check(lm_prid_inst *I)
{
    int n = I->n, wrong = lm_par_i(I->ev, "formula");
    lm_mat *a = lm_prid_randn(I, n, 1), *b = lm_prid_randn(I, n, 1), *c = lm_prid_randn(I, n, 1),
           *x = lm_prid_randn(I, n, 1), *y = lm_prid_randn(I, n, 1);
    lm_mat *A = lm_prid_randn(I, n, n), *B = lm_prid_randn(I, n, n), *C = lm_prid_randn(I, n, n);
    lm_mat *D = lm_mat_new(n, n, I->c), *D2 = lm_mat_new(n, n, I->c), *T = lm_mat_new(n, n, I->c),
           *T2 = lm_mat_new(n, n, I->c), *v = lm_mat_new(n, 1, I->c), *v2 = lm_mat_new(n, 1, I->c),
           *s11 = lm_mat_new(1, 1, I->c), *one = lm_prid_ones(n, 1, I->c);
    lm_num p, q, r;
    lm_num_inits(I->c, &p, &q, &r, (lm_num *)NULL);
    /* <a,b> = a^T b = b^T a */
    lm_mat_dot(&p, a, b);
    lm_mat_mul(s11, a, 1, b, 0);
    lm_mat_get(&q, s11, 0, 0);
    res(I, "<a,b> = a^T b", &p, &q, a, b, NULL);
    lm_mat_mul(s11, b, 1, a, 0);
    lm_mat_get(&r, s11, 0, 0);
    res(I, "a^T b = b^T a", &q, &r, a, b, NULL);
    /* a o b = b o a = diag(a) b */
    lm_mat_hadamard(v, a, b);
    lm_mat_hadamard(v2, b, a);
    lm_prid_resid_mat(I, "a o b = b o a", v, v2, NULL, K_of(n));
    diag_of(D, a);
    lm_mat_mul(v2, D, 0, b, 0);
    lm_prid_resid_mat(I, "a o b = diag(a) b", v, v2, NULL, K_of(n));
    /* a^T (b o c) = <a o b, c> = a^T diag(b) c */
    lm_mat_hadamard(v, b, c);
    lm_mat_mul(s11, a, 1, v, 0);
    lm_mat_get(&p, s11, 0, 0);
    lm_mat_hadamard(v, a, b);
    lm_mat_dot(&q, v, c);
    res(I, "a^T (b o c) = <a o b, c>", &p, &q, a, b, c);
    diag_of(D, b);
    lm_mat_mul(v, D, 0, c, 0);
    lm_mat_mul(s11, a, 1, v, 0);
    lm_mat_get(&r, s11, 0, 0);
    res(I, "<a o b, c> = a^T diag(b) c", &q, &r, a, b, c);
    /* diag(a) 1 = a */
    diag_of(D, a);
    lm_mat_mul(v, D, 0, one, 0);
    lm_prid_resid_mat(I, "diag(a) 1_n = a", v, a, NULL, K_of(n));
    /* <A, B o C> = <A o B, C> */
    lm_mat_hadamard(T, B, C);
    lm_mat_dot(&p, A, T);
    lm_mat_hadamard(T, A, B);
    lm_mat_dot(&q, T, C);
    res(I, "<A, B o C> = <A o B, C>", &p, &q, A, B, C);
    /* <A,B> = tr(A^T B), tr(AB) = tr(BA), on the Gaussian pair and on (f, c) of the model */
    for (int k = 0; k < 2; k++) {
        const lm_mat *P = k ? I->F->f : A, *Q = k ? I->F->c : B;
        lm_mat_dot(&p, P, Q);
        lm_mat_mul(T, P, 1, Q, 0);
        trace(&q, T);
        res(I, k ? "<f,c> = tr(f^T c)" : "<A,B> = tr(A^T B)", &p, &q, P, Q, NULL);
        lm_mat_mul(T, P, 0, Q, 0);
        trace(&p, T);
        lm_mat_mul(T, Q, wrong, P, 0);
        trace(&q, T);
        res(I, k ? "tr(f c) = tr(c f)" : "tr(AB) = tr(BA)", &p, &q, P, Q, NULL);
    }
    /* (AB)^T = B^T A^T */
    lm_mat_mul(T, A, 0, B, 0);
    lm_mat_transpose(D, T);
    lm_mat_mul(T2, B, 1, A, 1);
    lm_mat_frob(&p, A);
    lm_mat_frob(&q, B);
    lm_num_mul(&p, &p, &q);
    lm_prid_resid_mat(I, "(AB)^T = B^T A^T", D, T2, &p, K_of(n));
    /* x^T (A o B) y = tr(diag(x) A diag(y) B^T) */
    lm_mat_hadamard(T, A, B);
    lm_mat_mul(v, T, 0, y, 0);
    lm_mat_mul(s11, x, 1, v, 0);
    lm_mat_get(&p, s11, 0, 0);
    diag_of(D, x);
    diag_of(D2, y);
    lm_mat_mul(T, D, 0, A, 0);
    lm_mat_mul(T2, T, 0, D2, 0);
    lm_mat_mul(T, T2, 0, B, 1);
    trace(&q, T);
    res(I, "x^T (A o B) y = tr(diag(x) A diag(y) B^T)", &p, &q, A, B, x);
    /* (A o B)^T = A^T o B^T */
    lm_mat_hadamard(T, A, B);
    lm_mat_transpose(D, T);
    lm_mat_transpose(T, A);
    lm_mat_transpose(T2, B);
    lm_mat_hadamard(T, T, T2);
    lm_prid_resid_mat(I, "(A o B)^T = A^T o B^T", D, T, NULL, K_of(n));
    lm_num_clears(&p, &q, &r, (lm_num *)NULL);
    lm_mat_free(a); lm_mat_free(b); lm_mat_free(c); lm_mat_free(x); lm_mat_free(y);
    lm_mat_free(A); lm_mat_free(B); lm_mat_free(C); lm_mat_free(D); lm_mat_free(D2);
    lm_mat_free(T); lm_mat_free(T2); lm_mat_free(v); lm_mat_free(v2); lm_mat_free(s11); lm_mat_free(one);
    return 0;
}

static int eval(lm_eval *ev)
{
    lm_prid_spec sp = {.support = LM_PRID_CAUSAL, .R = RS, .nR = 3, .nmax = 16, .dmax = 8};
    return lm_prid_run(ev, &sp, check);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Causal pruning instances, n <= 16, d <= 8: the reconstructed algebra "
                    "identities on Gaussian vectors and matrices and on f(M), c(M), by different "
                    "routes.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_factA_4) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Fact A.4 (Appendix A)",
    .origin = "reconstructed",
    .confidence = "low",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.5,
    .eval = eval,
};
