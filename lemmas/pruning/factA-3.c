/* lemmas/pruning/factA-3.c
 *
 * \claim{pruning/factA.3}{Calculus rules}
 * \source{attention-pruning, Appendix A, Fact A.3 (reconstructed list)}
 * \statement{Scalar: $\frac{\mathrm d}{\mathrm dx}e^{g(x)}=e^{g(x)}g'(x)$.  Vector:
 *   $\frac{\mathrm d}{\mathrm dx}(a\circ b)=a'\circ b+a\circ b'$;
 *   $\frac{\mathrm d}{\mathrm dx}\langle a,b\rangle=\langle a',b\rangle+\langle a,b'\rangle$;
 *   $\frac{\mathrm d}{\mathrm dx}\frac1{g(x)}=-\frac{g'}{g^2}$.  Matrix:
 *   $\frac{\mathrm d}{\mathrm dx}(F\circ G)=F'\circ G+F\circ G'$;
 *   $\frac{\mathrm d}{\mathrm dx}\exp(F)=\exp(F)\circ F'$ (entrywise); $\frac{\mathrm d}{\mathrm dx}(AFB)=AF'B$
 *   for constant $A,B$.}
 * \check{One configuration per rule.  Random smooth instances ($n=4$): $g(x)=g_0+g_1x+g_2x^2$
 *   (for the reciprocal $g=1+g_1^2+(x-g_0)^2>0$), $a(x)=v_0+xv_1+x^2v_2$, $b(x)=\exp(wx)$
 *   entrywise, $F(x)=F_0+xF_1+x^2F_2$, $G(x)=\exp(xG_1)$ entrywise, $A,B$ constant, all
 *   coefficients $\mathcal N(0,1/4)$ drawn as doubles, $x\in[-1,1]$.  The right-hand side of each
 *   rule is written literally from $g,g',a,a',\dots$ and compared with central differences of
 *   the left-hand side in IEEE double ($h=10^{-6}\max(1,|x|)$), MPFR-128 ($h=2^{-40}$) and
 *   MPFR-256 ($h=2^{-80}$): $\|\mathrm{closed}-\mathrm{FD}\|_F\le\tau_p
 *   =\texttt{tol\_scale}\cdot K\big(h^2T\rho^3\|F\|_F+u_p(D+\|F\|_F/h_p)\big)$ with $K=64$,
 *   $\rho=4$, $T=8$ (the coefficients keep every third derivative below $T\rho^3$ times the
 *   value's scale; truncation), $D$ the formula with absolute values (rounding).  The residual
 *   must shrink with precision ($\mathrm{res}_{256}\le\max(2^{-60}\mathrm{res}_{53},\tau_{256})$) and
 *   the report shows $\log_{10}$ of the relative residual per precision.  Wrong variants that
 *   must come out violated: \texttt{scale}$\ne1$ multiplies the right-hand side, and
 *   \texttt{formula}$=$wrong drops the second term of the product rules, the sign of the
 *   reciprocal rule, the factor $g'$ or $F'$ of the chain rules and $B$ of the $AFB$ rule.}
 */
#include "lm_prfd.h"
#include <math.h>
#include <stdio.h>

enum { R_EXP, R_HAD, R_INNER, R_RECIP, R_MHAD, R_MEXP, R_AFB, NRULE };
static const char *const configs[] = {"exp-chain", "hadamard", "inner-product", "reciprocal",
                                      "matrix-hadamard", "matrix-exp", "AFB", NULL};
#define PARAMS(NUM, SWITCH)                                                                                          \
    NUM(tol_scale, 1.0, "setting [0, 1e6]", "multiplies the tolerance tau_p (truncation + rounding)")                \
    NUM(scale, 1.0, "constant [-1e6, 1e6]", "coefficient on the right-hand side (1 as stated)")                      \
    SWITCH(formula, 0, "stated|wrong", "the rules as stated, or each with a term dropped or a sign flipped (wrong)")
LM_PARAMS(PARAMS)

#define NN 4
typedef struct {
    int rule, wrong;
    double g[3], v[3][NN], w[NN], F[3][NN * NN], G1[NN * NN], A[NN * NN], B[NN * NN];
} inst;

/* p(x) = c0 + c1 x + c2 x^2 and p'(x) */
static void poly(lm_num *r, lm_num *dr, double c0, double c1, double c2, const lm_num *x)
{
    lm_num_mul_d(r, x, c2);
    lm_num_add_d(r, r, c1);
    lm_num_mul(r, r, x);
    lm_num_add_d(r, r, c0);
    lm_num_mul_d(dr, x, 2.0 * c2);
    lm_num_add_d(dr, dr, c1);
}

/* e(x) = exp(w x) and e'(x) = w exp(w x) */
static void expo(lm_num *r, lm_num *dr, double w, const lm_num *x)
{
    lm_num_mul_d(r, x, w);
    lm_num_exp(r, r);
    lm_num_mul_d(dr, r, w);
}

/* g for the rule: the reciprocal uses g = 1 + g1^2 + (x - g0)^2 */
static void gfun(lm_num *r, lm_num *dr, const inst *I, const lm_num *x)
{
    if (I->rule == R_RECIP) poly(r, dr, 1.0 + I->g[1] * I->g[1] + I->g[0] * I->g[0], -2.0 * I->g[0], 1.0, x);
    else poly(r, dr, I->g[0], I->g[1], I->g[2], x);
}

static int shape_rows(int rule) { return rule == R_EXP || rule == R_INNER || rule == R_RECIP ? 1 : NN; }
static int shape_cols(int rule) { return rule >= R_MHAD ? NN : 1; }

/* value (deriv == 0) or the closed form (deriv == 1; A gets the absolute-value version) */
static int rule_eval(lm_mat *out, lm_mat *Aout, const lm_mat *M, const inst *I, int deriv)
{
    lm_ctx c = lm_mat_ctx(M);
    lm_num x, a, da, b, db, t, ta, s, sa, u;
    lm_num_inits(&c, &x, &a, &da, &b, &db, &t, &ta, &s, &sa, &u, (lm_num *)NULL);
    lm_mat_get(&x, M, 0, 0);
    int wr = I->wrong;
    switch (I->rule) {
    case R_EXP:
        gfun(&a, &da, I, &x);
        lm_num_exp(&t, &a);
        if (deriv && !wr) lm_num_mul(&t, &t, &da);
        lm_num_abs(&ta, &t);
        lm_mat_set(out, 0, 0, &t);
        if (Aout) lm_mat_set(Aout, 0, 0, &ta);
        break;
    case R_RECIP:
        gfun(&a, &da, I, &x);
        if (!deriv) lm_num_set_d(&t, 1.0), lm_num_div(&t, &t, &a);
        else {
            lm_num_sqr(&t, &a);
            lm_num_div(&t, &da, &t);
            if (!wr) lm_num_neg(&t, &t);
        }
        lm_num_abs(&ta, &t);
        lm_mat_set(out, 0, 0, &t);
        if (Aout) lm_mat_set(Aout, 0, 0, &ta);
        break;
    case R_HAD:
    case R_INNER:
        lm_num_set_d(&s, 0.0);
        lm_num_set_d(&sa, 0.0);
        for (int k = 0; k < NN; k++) {
            poly(&a, &da, I->v[0][k], I->v[1][k], I->v[2][k], &x);
            expo(&b, &db, I->w[k], &x);
            if (!deriv) {
                lm_num_mul(&t, &a, &b);
                lm_num_abs(&ta, &t);
            } else { /* a' o b + a o b' */
                lm_num_mul(&t, &da, &b);
                lm_num_abs(&ta, &t);
                if (!wr) {
                    lm_num_mul(&u, &a, &db);
                    lm_num_add(&t, &t, &u);
                    lm_num_abs(&u, &u);
                    lm_num_add(&ta, &ta, &u);
                }
            }
            if (I->rule == R_HAD) {
                lm_mat_set(out, k, 0, &t);
                if (Aout) lm_mat_set(Aout, k, 0, &ta);
            } else {
                lm_num_add(&s, &s, &t);
                lm_num_add(&sa, &sa, &ta);
            }
        }
        if (I->rule == R_INNER) {
            lm_mat_set(out, 0, 0, &s);
            if (Aout) lm_mat_set(Aout, 0, 0, &sa);
        }
        break;
    case R_MHAD:
    case R_MEXP:
        for (int k = 0; k < NN * NN; k++) {
            poly(&a, &da, I->F[0][k], I->F[1][k], I->F[2][k], &x);
            if (I->rule == R_MHAD) {
                expo(&b, &db, I->G1[k], &x);
                if (!deriv) lm_num_mul(&t, &a, &b), lm_num_abs(&ta, &t);
                else { /* F' o G + F o G' */
                    lm_num_mul(&t, &da, &b);
                    lm_num_abs(&ta, &t);
                    if (!wr) {
                        lm_num_mul(&u, &a, &db);
                        lm_num_add(&t, &t, &u);
                        lm_num_abs(&u, &u);
                        lm_num_add(&ta, &ta, &u);
                    }
                }
            } else { /* exp(F) o F' */
                lm_num_exp(&t, &a);
                if (deriv && !wr) lm_num_mul(&t, &t, &da);
                lm_num_abs(&ta, &t);
            }
            lm_mat_set(out, k / NN, k % NN, &t);
            if (Aout) lm_mat_set(Aout, k / NN, k % NN, &ta);
        }
        break;
    default: { /* A F B, derivative A F' B */
        lm_mat *A = lm_mat_new(NN, NN, &c), *B = lm_mat_new(NN, NN, &c), *F = lm_mat_new(NN, NN, &c);
        lm_mat *T = lm_mat_new(NN, NN, &c);
        lm_mat_set_array(A, I->A);
        lm_mat_set_array(B, I->B);
        for (int k = 0; k < NN * NN; k++) {
            poly(&a, &da, I->F[0][k], I->F[1][k], I->F[2][k], &x);
            lm_mat_set(F, k / NN, k % NN, deriv ? &da : &a);
        }
        lm_mat_mul(T, A, 0, F, 0);
        if (deriv && wr) lm_mat_copy(out, T);
        else lm_mat_mul(out, T, 0, B, 0);
        if (Aout) { /* |A| |F'| |B| */
            for (int k = 0; k < NN * NN; k++) {
                lm_mat_get(&t, A, k / NN, k % NN), lm_num_abs(&t, &t), lm_mat_set(A, k / NN, k % NN, &t);
                lm_mat_get(&t, B, k / NN, k % NN), lm_num_abs(&t, &t), lm_mat_set(B, k / NN, k % NN, &t);
                lm_mat_get(&t, F, k / NN, k % NN), lm_num_abs(&t, &t), lm_mat_set(F, k / NN, k % NN, &t);
            }
            lm_mat_mul(T, A, 0, F, 0);
            lm_mat_mul(Aout, T, 0, B, 0);
        }
        lm_mat_free(A); lm_mat_free(B); lm_mat_free(F); lm_mat_free(T);
        break;
    }
    }
    lm_num_clears(&x, &a, &da, &b, &db, &t, &ta, &s, &sa, &u, (lm_num *)NULL);
    return 0;
}

static int value(lm_mat *out, const lm_prdata *P, const lm_mat *M, void *arg)
{
    (void)P;
    return rule_eval(out, NULL, M, (const inst *)arg, 0);
}

static int deriv(lm_mat *D, lm_mat *A, const lm_prdata *P, const lm_mat *M, int a, int b, void *arg)
{
    (void)P; (void)a; (void)b;
    return rule_eval(D, A, M, (const inst *)arg, 1);
}

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    inst I;
    I.rule = ev->config;
    I.wrong = lm_int(prm.formula);
    for (int k = 0; k < 3; k++) I.g[k] = 0.5 * lm_rng_normal(g);
    for (int k = 0; k < NN; k++) {
        for (int q = 0; q < 3; q++) I.v[q][k] = 0.5 * lm_rng_normal(g);
        I.w[k] = 0.5 * lm_rng_normal(g);
    }
    for (int k = 0; k < NN * NN; k++) {
        for (int q = 0; q < 3; q++) I.F[q][k] = 0.5 * lm_rng_normal(g);
        I.G1[k] = 0.5 * lm_rng_normal(g);
        I.A[k] = 0.5 * lm_rng_normal(g);
        I.B[k] = 0.5 * lm_rng_normal(g);
    }
    lm_ctx cd = lm_ctx_double();
    lm_mat *M0 = lm_mat_new(1, 1, &cd);
    lm_mat_set_d(M0, 0, 0, 2.0 * lm_rng_uniform(g) - 1.0);
    lm_prfd_spec S = {.what = configs[I.rule], .rows = shape_rows(I.rule), .cols = shape_cols(I.rule),
                      .value = value, .deriv = deriv, .arg = &I, .T3 = 8.0, .T3n = 0.0, .K = 64.0,
                      .tol_scale = prm.tol_scale, .scale = prm.scale};
    int ca = 0, cb = 0;
    double rate = 4.0;
    char tag[64];
    snprintf(tag, sizeof tag, "x=%.4g", lm_mat_get_d(M0, 0, 0));
    int rc = lm_prfd_check(ev, NULL, M0, &S, 1, &ca, &cb, &rate, tag);
    lm_mat_free(M0);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Scalar chain rule d/dx exp(g(x)) = exp(g) g' for a random quadratic g, n = 4, "
                    "x in [-1, 1]: the closed form vs central differences in 3 precisions.", NULL},
    {LM_READ_PAPER, "Vector product rule d/dx (a o b) = a' o b + a o b' with a quadratic, b = "
                    "exp(wx), n = 4: closed form vs central differences in 3 precisions.", NULL},
    {LM_READ_PAPER, "Inner-product rule d/dx <a, b> = <a', b> + <a, b'>, a quadratic, b = exp(wx), "
                    "n = 4: the closed form vs central differences in double and MPFR.", NULL},
    {LM_READ_PAPER, "Reciprocal rule d/dx 1/g = -g'/g^2 with g = 1 + g1^2 + (x - g0)^2 > 0: the "
                    "closed form vs central differences in double, MPFR-128 and MPFR-256.", NULL},
    {LM_READ_PAPER, "Matrix Hadamard rule d/dx (F o G) = F' o G + F o G', F quadratic, G = exp(x "
                    "G1), 4 x 4: the closed form vs central differences in 3 precisions.", NULL},
    {LM_READ_PAPER, "Entrywise matrix exp rule d/dx exp(F) = exp(F) o F' for a quadratic 4 x 4 "
                    "F(x): the closed form vs central differences in double and MPFR.", NULL},
    {LM_READ_PAPER, "Constant-factor rule d/dx (A F B) = A F' B for 4 x 4 constant A, B and "
                    "quadratic F(x): the closed form vs central differences in 3 "
                    "precisions.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_factA_3) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Appendix A, Fact A.3",
    .origin = "reconstructed",
    .confidence = "low",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.125,
    .eval = eval,
};
