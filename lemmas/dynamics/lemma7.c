/* lemmas/dynamics/lemma7.c
 *
 * \claim{dynamics/lemma7}{Gaussian perturbation and PL-type bounds (1)--(4)}
 * \source{transformer-gd-dynamics, Lemma 7 (Appendix 1.4, eqs. 55--60); proofs in Appendix 1.7}
 * \statement{For the Gaussian kernel $(C_{ih})_{kj}=-\|X_{ik\cdot}W^Q_h-X_{ij\cdot}W^K_h\|^2/(2\sqrt d)$,
 *   $S_{ih}=\exp(C_{ih})$, each sample $i$ and head $h$, with
 *   $c_{ih}=\sqrt{2n/d}\,\|X_i\|_F^2\sqrt{\sigma_{\max}^2(W^Q_h)+\sigma_{\max}^2(W^K_h)}$:
 *   (1) $\|d(C_{ih})\|_F\le c_{ih}\|d(W^Q_h)\|_F$;
 *   (2) $\|d(\partial C_{ih}/\partial W^Q_h)\|_F\le\sqrt n\,\|X_i\|_F^2\|d(W^Q_h)\|_F$;
 *   (3) $\|\partial f(M;X_i)/\partial C_i\|_F\ge\min|V'_iW^O|\cdot\min S_i\cdot\|\mathsf{MH}(M;X_i)-y_i\|_2$;
 *   (4) $\|\partial f(M;X_i)/\partial W^Q_h\|_F\le Q'_i\|\mathsf{MH}(M;X_i)-y_i\|_2$ with
 *   $Q'_i=\sqrt{2n/d}\,\|X_i\|_F^3\|W^O\|_2\sigma_{\max}(W^V)\sqrt{\sigma_{\max}^2(W^Q_h)+\sigma_{\max}^2(W^K_h)}$.}
 * \check{Each instance is one sample ($N=1$), $(n,D,d,H)$ cycling through $(1,2,2,1)$, $(2,2,2,1)$,
 *   $(3,3,3,1)$, $(2,4,2,2)$, $(3,2,1,1)$, $(4,3,2,1)$, $(2,3,2,3)$, $(3,4,2,2)$, with Gaussian
 *   $X_i,W^Q,W^K,W^V$ (block diagonal), $W^O$, $y_i$ and scales $10^u$,
 *   $u\in[\texttt{logscale\_lo},\texttt{logscale\_hi}]=[-1,1.5]$ as in Lemma 2; the adversarial
 *   restarts move the five log-scales, the step length and the direction. The kernel scale is
 *   \texttt{cG}$=2$ (the appendix, where the lemma is stated); \texttt{cG}$=1$ is eq.\ (11).
 *   \emph{(1), differential}: $d(C_{ih})=J_{ih}\,\mathrm{vec}\,d(W^Q_h)$ with the Jacobian $J_{ih}$
 *   of the model code (catalogue S3), so the supremum over directions is $\sigma_{\max}(J_{ih})$,
 *   compared with the constant for every head; $J_{ih}$ is cross-checked against central
 *   differences of $C_{ih}$ (exact up to rounding: $C$ is quadratic in $W^Q_h$). Every eighth
 *   instance ($n=1$) is made an equality case: $W^K_h=-W^Q_h$ and $x$ along the top left singular
 *   vector of $W^Q_h$, where both sides agree to rounding.
 *   \emph{(1), finite}: $\|C_{ih}(W^Q_h+\Delta)-C_{ih}(W^Q_h)\|_F$ against the constant times
 *   $\|\Delta\|_F$, with $\sigma_{\max}(W^Q_h)$ replaced by its supremum over the segment (attained at an
 *   end point by convexity), $\|\Delta\|_F\in\{10^{-3},10^{-1},1,\texttt{dmax}=10\}$ along the worst
 *   and a random direction.
 *   \emph{(2)}: $J_{ih}$ is affine in $W^Q_h$, so $d(J_{ih})=J_{ih}(W^Q_h+E)-J_{ih}(W^Q_h)$ exactly; the
 *   supremum over $E$ is the largest singular value of the $n^2Dd\times Dd$ matrix of these
 *   differences for the unit matrices $E$, plus a random direction. A second configuration
 *   builds the paper's equality witness ($d=1$, a single nonzero row $x$ of $X_i$, $dW=x^\top$),
 *   where both sides are equal in exact arithmetic.
 *   \emph{(3)} is a lower bound, recorded as RHS $\le$ LHS. $\partial f/\partial C_{ih}=(r_iv_{ih}^\top)\odot S_{ih}$ is
 *   linear in $r_i$ with orthogonal images of the unit residuals, so the least favourable label
 *   is $r_i=e_k$ for the $k$ minimising $\|\partial f/\partial C_i\|_F$; that and a random label are
 *   compared. For $n=H=1$ both sides are equal. Precision traps: norms are scaled (no
 *   spurious underflow of squares of entries $\sim10^{-200}$, the fake violation of a reference run);
 *   when $\min S_i$ or the left side is below $2^{-900}$ in double, the double run is not
 *   conclusive and this instance's comparison is computed in MPFR at 256 bits instead (the
 *   ratio is carried over in the log domain). As documentation only, not a claim of the paper,
 *   the same ratio for the Softmax $\partial f/\partial C$ at the dynamics/example1 point is reported as a
 *   measure (it is 0 up to rounding: the Softmax analogue of (3) fails).
 *   \emph{(4)}: per head, the supremum over labels of $\|\partial f/\partial W^Q_h\|_F/\|r_i\|$ (largest
 *   singular value of the $Dd\times n$ map $r_i\mapsto\partial f/\partial W^Q_h$) and a random label.
 *   All quantities of both sides are computed in the working precision (double, then MPFR at
 *   256 bits for breaks and near misses). Tight comparisons (the equality cases) carry a
 *   relative tolerance of \texttt{tol\_ulps}$=128$ units of the working precision.
 *   Multipliers \texttt{c1\_scale}, \texttt{c2\_scale}, \texttt{rhs3\_scale}, \texttt{Qp\_scale} (default 1) scale the four
 *   constants.}
 */
#include "lm_claim.h"
#include "lm_mha.h"
#include "lm_perturb.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

enum { C1_DIFF, C1_FIN, C2_RAND, C2_WIT, C3, C4 };

static const char *const configs[] = {"item1,differential", "item1,finite", "item2,random",
                                      "item2,equality-witness", "item3,lower-bound",
                                      "item4,grad-WQh", NULL};

#define PARAMS(NUM, SWITCH)                                                                                     \
    NUM(c1_scale, 1.0, "[0, 1e6]", "multiplies sqrt(2n/d)||X_i||^2 sqrt(sQ^2+sK^2) of item (1)")                \
    NUM(c2_scale, 1.0, "[0, 1e6]", "multiplies sqrt(n)||X_i||^2 of item (2)")                                   \
    NUM(rhs3_scale, 1.0, "[0, 1e6]", "multiplies the right side min|V'W^O| min S ||r|| of item (3)")            \
    NUM(Qp_scale, 1.0, "[0, 1e6]", "multiplies Q'_i of item (4)")                                               \
    NUM(cG, 2.0, "(0, 1e6]", "Gaussian kernel scale c_G (2 = appendix, where the lemma is stated; 1 = eq. 11)") \
    NUM(logscale_lo, -1.0, "[-4, 4]", "log10 of the smallest scale of X, W^Q, W^K, W^V, W^O")                   \
    NUM(logscale_hi, 1.5, "[-4, 4]", "log10 of the largest scale of X, W^Q, W^K, W^V, W^O")                     \
    NUM(dmax, 10.0, "(0, 1e3]", "largest ||Delta||_F in the finite form of (1)")                                \
    NUM(jac_tol, 1e-6, "(0, 1]", "allowed |FD - J dW| / (bound ||dW||) in the Jacobian self-check")             \
    NUM(tol_ulps, 128, "[0, 1e15]", "relative tolerance of the comparisons, in units of the working precision")
LM_PARAMS(PARAMS)

static const int sizes[8][4] = {{1, 2, 2, 1}, {2, 2, 2, 1}, {3, 3, 3, 1}, {2, 4, 2, 2},
                                {3, 2, 1, 1}, {4, 3, 2, 1}, {2, 3, 2, 3}, {3, 4, 2, 2}};

#define SEARCH_DIM 7

/* the instance: one sample (N = 1), its norms and sigma's (lm_perturb.h) */
typedef lm_pert_one inst;

/* (1): every eighth instance with n = 1 is the equality case W^K = -W^Q, x along the top
 * left singular vector of W^Q */
static int witness1(const lm_eval *ev, const inst *I)
{
    return (ev->config == C1_DIFF || ev->config == C1_FIN) && ev->index % 8 == 0 && I->n == 1;
}

static double rel_tol(const lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    return P.tol_ulps * exp2(lm_ctx_log2eps(ev->ctx));
}

/* a <= b (1 + tol) with 1 + tol formed in the working context: lm_obs_le forms 1 + reltol in
 * double, which drops any tolerance below 2^-53 in an MPFR run. */
static void obs_le_tol(lm_eval *ev, const lm_num *a, const lm_num *b, double tol, const char *fmt,
                       ...) __attribute__((format(printf, 5, 6)));
static void obs_le_tol(lm_eval *ev, const lm_num *a, const lm_num *b, double tol, const char *fmt,
                       ...)
{
    char lab[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(lab, sizeof lab, fmt, ap);
    va_end(ap);
    lm_num bt, t;
    lm_num_inits(ev->ctx, &bt, &t, (lm_num *)NULL);
    lm_num_set_d(&t, tol);
    lm_num_add_d(&t, &t, 1.0);
    lm_num_mul(&bt, b, &t);
    lm_obs_le(ev, -1, a, &bt, 0.0, "%s", lab);
    lm_num_clears(&bt, &t, (lm_num *)NULL);
}

/* r = sqrt(p/q), rounded in r's context */
static void sqrt_ratio(lm_num *r, long p, long q, const lm_ctx *c)
{
    lm_num t;
    lm_num_init(&t, c);
    lm_num_set_si(r, p);
    lm_num_set_si(&t, q);
    lm_num_div(r, r, &t);
    lm_num_sqrt(r, r);
    lm_num_clear(&t);
}

/* r = sqrt(a^2 + b^2) */
static void hypot_num(lm_num *r, const lm_num *a, const lm_num *b, const lm_ctx *c)
{
    lm_num t;
    lm_num_init(&t, c);
    lm_num_sqr(&t, b);
    lm_num_sqr(r, a);
    lm_num_add(r, r, &t);
    lm_num_sqrt(r, r);
    lm_num_clear(&t);
}

static int build(inst *I, lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    int rc = 0;
    int wit[4] = {1 + ev->index % 4, 1 + (ev->index / 4) % 4, 1, 1}; /* (2) witness: d = H = 1 */
    double sc[5];
    lm_mha *m = lm_pert_one_new(I, ev, ev->config == C2_WIT ? wit : sizes[ev->index % 8], LM_GAUSS, sc);
    const int n = I->n, D = I->D, d = I->d;
    m->cG = P.cG;
    if (ev->config == C2_WIT) { /* a single nonzero row x */
        int k0 = lm_rng_int(g, 0, n - 1);
        for (int a = 0; a < D; a++) lm_mat_set_d(m->X[0], k0, a, sc[0] * lm_rng_normal(g));
    } else {
        lm_mat_randn(m->X[0], g, sc[0]);
    }
    lm_pert_draw_weights(m, g, sc);
    if (witness1(ev, I)) {
        /* equality case of (1): W^K = -W^Q and x^T the top left singular vector of W^Q,
         * computed in double from the drawn doubles so every context sees the same instance */
        lm_ctx dc = lm_ctx_double();
        const int k = D < d ? D : d;
        lm_mat *Wd = lm_mat_new(D, d, &dc), *U = lm_mat_new(D, k, &dc);
        lm_num *s = lm_nums_new(k, &dc);
        lm_mat_copy(Wd, m->Wq[0]);
        rc |= lm_mat_svd(s, U, NULL, Wd);
        for (int a = 0; a < D; a++) lm_mat_set_d(m->X[0], 0, a, sc[0] * lm_mat_get_d(U, a, 0));
        lm_mat_scale_d(m->Wk[0], m->Wq[0], -1.0);
        lm_nums_free(s, k);
        lm_mat_free(Wd);
        lm_mat_free(U);
    }
    rc |= lm_pert_one_finish(I, ev, sc);
    if (witness1(ev, I)) lm_measure(ev, "equality case of (1)", 1);
    return rc;
}

/* constant of (1) for head h with sigma_max(W^Q_h) = sq:
 * c1_scale sqrt(2n/d) ||X_i||^2 sqrt(sq^2 + sigma_max(W^K_h)^2) */
static void const1(lm_num *r, const inst *I, const lm_num *sq, int h, const lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    lm_num t;
    lm_num_init(&t, ev->ctx);
    hypot_num(r, sq, &I->sK[h], ev->ctx);
    sqrt_ratio(&t, 2L * I->n, I->d, ev->ctx);
    lm_num_mul(r, r, &t);
    lm_num_mul(r, r, &I->nX2);
    lm_num_mul_d(r, r, P.c1_scale);
    lm_num_clear(&t);
}

/* constant of (2): c2_scale sqrt(n) ||X_i||^2 */
static void const2(lm_num *r, const inst *I, const lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    sqrt_ratio(r, I->n, 1, ev->ctx);
    lm_num_mul(r, r, &I->nX2);
    lm_num_mul_d(r, r, P.c2_scale);
}

/* Q'_i for head h: Qp_scale sqrt(2n/d) ||X_i||^3 ||W^O|| sigma_max(W^V) sqrt(sQ_h^2+sK_h^2) */
static void const4(lm_num *r, const inst *I, int h, const lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    lm_num t;
    lm_num_init(&t, ev->ctx);
    hypot_num(r, &I->sQ[h], &I->sK[h], ev->ctx);
    sqrt_ratio(&t, 2L * I->n, I->d, ev->ctx);
    lm_num_mul(r, r, &t);
    lm_num_mul(r, r, &I->nX2);
    lm_num_mul(r, r, &I->nX);
    lm_num_mul(r, r, &I->nWo);
    lm_num_mul(r, r, &I->sV);
    lm_num_mul_d(r, r, P.Qp_scale);
    lm_num_clear(&t);
}

/* vec of a D x d matrix (column-major, index a + D*b) <-> matrix */
static void vec_of(lm_mat *v, const lm_mat *W)
{
    lm_ctx c = lm_mat_ctx(W);
    lm_num x;
    lm_num_init(&x, &c);
    for (int b = 0; b < W->c; b++)
        for (int a = 0; a < W->r; a++) {
            lm_mat_get(&x, W, a, b);
            lm_mat_set(v, a + W->r * b, 0, &x);
        }
    lm_num_clear(&x);
}

/* W2 = W + s * mat(v) */
static void add_vec(lm_mat *W2, const lm_mat *W, const lm_mat *v, const lm_num *s)
{
    lm_ctx c = lm_mat_ctx(W);
    lm_num x, e;
    lm_num_inits(&c, &x, &e, (lm_num *)NULL);
    for (int b = 0; b < W->c; b++)
        for (int a = 0; a < W->r; a++) {
            lm_mat_get(&x, W, a, b);
            lm_mat_get(&e, v, a + W->r * b, 0);
            lm_num_fma(&x, &e, s, &x);
            lm_mat_set(W2, a, b, &x);
        }
    lm_num_clears(&x, &e, (lm_num *)NULL);
}

/* (1), differential: sigma_max(J_ih) for every head, and a central-difference self-check of
 * J_ih (C is quadratic in W^Q_h, so central differences are exact up to rounding) */
static int check1_diff(lm_eval *ev, const inst *I)
{
    const lm_params P = lm_params_of(ev);
    const lm_ctx *c = ev->ctx;
    const int n = I->n, D = I->D, d = I->d;
    int rc = 0;
    lm_num a, b, s, t;
    lm_num_inits(c, &a, &b, &s, &t, (lm_num *)NULL);
    lm_mat *J = lm_mat_new(n * n, D * d, c), *E = lm_mat_new(D * d, 1, c);
    lm_mat *dW = lm_mat_new(D, d, c), *dv = lm_mat_new(D * d, 1, c), *Jd = lm_mat_new(n * n, 1, c);
    lm_mat *dC = lm_mat_new(n, n, c);
    lm_mat_randn(E, lm_eval_rng(ev), 1.0);
    lm_pert_normalize(E);
    for (int h = 0; h < I->H; h++) {
        lm_mha_jacQ(J, I->m, h);
        if (lm_pert_top_sv(&a, NULL, J)) { rc = lm_fail(ev, "SVD of J_ih failed"); goto out; }
        const1(&b, I, &I->sQ[h], h, ev);
        obs_le_tol(ev, &a, &b, rel_tol(ev), "head %d: sup ||dC_ih||_F/||dW^Q_h||_F vs constant of (1)%s",
                  h, witness1(ev, I) ? " (equality case)" : "");
        if (h == 0) {
            lm_measure(ev, "sigma_max(J_ih)", lm_num_get_d(&a));
            lm_measure(ev, "constant (1)", lm_num_get_d(&b));
        }
    }
    /* self-check on head 0: step so that C changes by about 1 + ||C|| */
    lm_mha_jacQ(J, I->m, 0);
    const1(&b, I, &I->sQ[0], 0, ev);
    lm_mat_frob(&s, I->m->C[0]);
    lm_num_add_d(&s, &s, 1.0);
    lm_num_div(&s, &s, &b);
    lm_mha *mp = lm_mha_convert(I->m, c), *mm = lm_mha_convert(I->m, c);
    add_vec(mp->Wq[0], I->m->Wq[0], E, &s);
    lm_num_neg(&s, &s);
    add_vec(mm->Wq[0], I->m->Wq[0], E, &s);
    lm_mha_forward(mp);
    lm_mha_forward(mm);
    lm_mat_sub(dW, mp->Wq[0], mm->Wq[0]);
    vec_of(dv, dW);
    lm_mat_mul(Jd, J, 0, dv, 0);
    lm_mat_sub(dC, mp->C[0], mm->C[0]);
    lm_pert_sub_jvp(dC, Jd);
    lm_mat_frob(&a, dC);
    lm_mat_frob(&t, dW);
    lm_num_mul(&t, &t, &b);
    double dev = lm_num_iszero(&t) ? 0.0 : lm_num_get_d(&a) / lm_num_get_d(&t);
    lm_mha_free(mp);
    lm_mha_free(mm);
    lm_measure(ev, "J_vs_central_diff_rel_dev", dev);
    if (!(dev <= P.jac_tol))
        rc = lm_fail(ev, "J_ih disagrees with central differences of C_ih (%.3g of the bound)", dev);
out:
    lm_mat_free(J); lm_mat_free(E); lm_mat_free(dW); lm_mat_free(dv); lm_mat_free(Jd); lm_mat_free(dC);
    lm_num_clears(&a, &b, &s, &t, (lm_num *)NULL);
    return rc;
}

/* (1), finite: ||C_ih(W^Q_h + Delta) - C_ih(W^Q_h)|| vs the constant with the segment's
 * supremum of sigma_max(W^Q_h) (an end point, by convexity) times ||Delta|| */
static int check1_fin(lm_eval *ev, const inst *I)
{
    const lm_ctx *c = ev->ctx;
    const int n = I->n, D = I->D, d = I->d, H = I->H;
    int rc = 0;
    lm_num a, b, t, sq2, dist;
    lm_num_inits(c, &a, &b, &t, &sq2, &dist, (lm_num *)NULL);
    lm_mat *J = lm_mat_new(n * n, D * d, c), *Et = lm_mat_new(D * d, 1, c), *E = lm_mat_new(D * d, 1, c);
    lm_mat *dC = lm_mat_new(n, n, c), *dW = lm_mat_new(D, d, c);
    lm_mat **Er = lm_xcalloc((size_t)H, sizeof *Er);
    for (int h = 0; h < H; h++) {
        Er[h] = lm_mat_new(D * d, 1, c);
        lm_mat_randn(Er[h], lm_eval_rng(ev), 1.0);
        lm_pert_normalize(Er[h]);
    }
    lm_pert_steps S; /* ||Delta|| and the worst/random directions, or the search's mix */
    lm_pert_steps_init(&S, ev);
    double worst = 0.0;
    for (int h = 0; h < H; h++) {
        lm_mha_jacQ(J, I->m, h);
        if (lm_pert_top_sv(&a, Et, J)) { rc = lm_fail(ev, "SVD of J_ih failed"); goto out; }
        for (int dd = 0; dd < S.ndirs; dd++) {
            lm_pert_steps_dir(E, &S, dd, Et, Er[h], 0);
            for (int q = 0; q < S.nsteps; q++) {
                lm_mha *m2 = lm_mha_convert(I->m, c);
                lm_num_set_d(&t, S.step[q]);
                add_vec(m2->Wq[h], I->m->Wq[h], E, &t);
                lm_mha_forward(m2);
                lm_mat_sub(dC, m2->C[h], I->m->C[h]);
                lm_mat_frob(&a, dC);
                lm_mat_sub(dW, m2->Wq[h], I->m->Wq[h]);
                lm_mat_frob(&dist, dW);
                int bad = lm_pert_top_sv(&sq2, NULL, m2->Wq[h]);
                lm_mha_free(m2);
                if (bad) { rc = lm_fail(ev, "SVD failed at W^Q_h + Delta"); goto out; }
                lm_num_max(&sq2, &sq2, &I->sQ[h]);
                const1(&b, I, &sq2, h, ev);
                lm_num_mul(&b, &b, &dist);
                obs_le_tol(ev, &a, &b, rel_tol(ev),
                          "head %d: ||C_ih(W+D)-C_ih(W)|| vs const(1) ||D||, ||D||=%.3g, %s dir%s", h,
                          S.step[q], lm_pert_steps_name(&S, dd),
                          witness1(ev, I) ? " (equality case)" : "");
                if (lm_num_sgn(&b) > 0 && lm_num_sgn(&a) > 0)
                    worst = fmax(worst, exp(lm_num_log_abs_d(&a) - lm_num_log_abs_d(&b)));
            }
        }
    }
    lm_measure(ev, "worst finite ratio", worst);
out:
    for (int h = 0; h < H; h++) lm_mat_free(Er[h]);
    free(Er);
    lm_mat_free(J); lm_mat_free(Et); lm_mat_free(E); lm_mat_free(dC); lm_mat_free(dW);
    lm_num_clears(&a, &b, &t, &sq2, &dist, (lm_num *)NULL);
    return rc;
}

/* d(J_ih) for dW^Q_h = E.  J is affine in W^Q_h: J(W^Q, W^K) = A(W^Q) - B(W^K) with A, B
 * linear, so J(W^Q + E) - J(W^Q) = A(E) = J(E, 0): the core's Jacobian evaluated at
 * W^Q_h = E, W^K_h = 0, without cancellation. */
static void jac_diff(lm_mat *dJ, const inst *I, int h, const lm_mat *E)
{
    lm_mha *m2 = lm_mha_convert(I->m, &I->m->ctx);
    lm_mat_copy(m2->Wq[h], E);
    lm_mat_zero(m2->Wk[h]);
    lm_mha_jacQ(dJ, m2, h);
    lm_mha_free(m2);
}

/* (2): sup over E of ||dJ(E)||/||E|| (sigma_max of the n^2 Dd x Dd matrix whose columns are
 * vec dJ(E) for the unit matrices E), a random direction, and in the witness configuration
 * the paper's direction dW = x^T */
static int check2(lm_eval *ev, const inst *I)
{
    const lm_ctx *c = ev->ctx;
    const int n = I->n, D = I->D, d = I->d, Dd = D * d, R = n * n;
    int rc = 0;
    lm_num a, b, t;
    lm_num_inits(c, &a, &b, &t, (lm_num *)NULL);
    lm_mat *E = lm_mat_new(D, d, c), *dJ = lm_mat_new(R, Dd, c), *M = lm_mat_new(R * Dd, Dd, c);
    lm_mat *Er = lm_mat_new(D, d, c);
    lm_mat_randn(Er, lm_eval_rng(ev), 1.0);
    const2(&b, I, ev);
    lm_measure(ev, "constant (2)", lm_num_get_d(&b));
    for (int h = 0; h < I->H; h++) {
        for (int q = 0; q < Dd; q++) {
            lm_mat_zero(E);
            lm_mat_set_d(E, q % D, q / D, 1.0);
            jac_diff(dJ, I, h, E);
            for (int r = 0; r < R; r++)
                for (int s = 0; s < Dd; s++) {
                    lm_mat_get(&t, dJ, r, s);
                    lm_mat_set(M, r * Dd + s, q, &t);
                }
        }
        if (lm_pert_top_sv(&a, NULL, M)) { rc = lm_fail(ev, "SVD of the map dW -> dJ failed"); goto out; }
        obs_le_tol(ev, &a, &b, rel_tol(ev), "head %d: sup ||d(dC_ih/dW^Q_h)||_F/||dW^Q_h||_F vs sqrt(n)||X_i||^2", h);
        if (h == 0) lm_measure(ev, "sup ratio (2)", exp(lm_num_log_abs_d(&a) - lm_num_log_abs_d(&b)));
        /* a random direction */
        jac_diff(dJ, I, h, Er);
        lm_mat_frob(&a, dJ);
        lm_mat_frob(&t, Er);
        lm_num_mul(&t, &t, &b);
        obs_le_tol(ev, &a, &t, rel_tol(ev), "head %d: ||dJ|| vs sqrt(n)||X_i||^2 ||dW||, random dW", h);
    }
    if (ev->config == C2_WIT) { /* dW = x^T, x the nonzero row of X_i */
        for (int k = 0; k < n; k++) {
            lm_mat_zero(E);
            for (int q = 0; q < D; q++) {
                lm_mat_get(&t, I->m->X[0], k, q);
                lm_mat_set(E, q, 0, &t);
            }
            lm_mat_frob(&t, E);
            if (lm_num_iszero(&t)) continue;
            jac_diff(dJ, I, 0, E);
            lm_mat_frob(&a, dJ);
            lm_num_mul(&t, &t, &b);
            obs_le_tol(ev, &a, &t, rel_tol(ev), "witness dW = x^T: ||dJ|| vs sqrt(n)||X_i||^2 ||dW|| (equal)");
            lm_measure(ev, "witness ratio", exp(lm_num_log_abs_d(&a) - lm_num_log_abs_d(&t)));
        }
    }
out:
    lm_mat_free(E); lm_mat_free(dJ); lm_mat_free(M); lm_mat_free(Er);
    lm_num_clears(&a, &b, &t, (lm_num *)NULL);
    return rc;
}

/* Quantities of (3) for the model m (its own context): lhs_r, rhs_r at the model's label;
 * lhs_w, rhs_w for the least favourable label r_i = e_k.  rhs includes rhs3_scale. */
static void parts3(lm_num *lhs_r, lm_num *rhs_r, lm_num *lhs_w, lm_num *rhs_w, lm_num *minS,
                   lm_mha *m, double rhs_scale)
{
    const lm_ctx c = m->ctx;
    const int n = m->n, D = m->D, H = m->H;
    lm_mat *G = lm_mat_new(n, n, &c), *uh = lm_mat_new(D, 1, &c), *v = lm_mat_new(n, 1, &c);
    lm_mat *y0 = lm_mat_dup(m->y);
    lm_num minV, t, s;
    lm_num_inits(&c, &minV, &t, &s, (lm_num *)NULL);
    lm_mha_forward(m);
    for (int h = 0; h < H; h++) {
        lm_mat_get_block(uh, m->u, h * D, 0);
        lm_mat_mul(v, m->X[0], 0, uh, 0);
        lm_mat_min_abs(&t, v);
        if (h == 0 || lm_num_cmp(&t, &minV) < 0) lm_num_set(&minV, &t);
        lm_mat_min(&t, m->S[h]);
        if (h == 0 || lm_num_cmp(&t, minS) < 0) lm_num_set(minS, &t);
    }
    for (int k = -1; k < n; k++) {
        if (k >= 0) lm_pert_unit_residual(m, k); /* label with r_i = e_k */
        lm_num_set_d(&s, 0.0);
        for (int h = 0; h < H; h++) {
            lm_mha_dfdC(G, m, 0, h);
            lm_mat_frob(&t, G);
            lm_num_sqr(&t, &t);
            lm_num_add(&s, &s, &t);
        }
        lm_num_sqrt(&s, &s);
        if (k < 0) {
            lm_num_set(lhs_r, &s);
            lm_mat_frob(&t, m->r);
            lm_num_mul(rhs_r, &minV, minS);
            lm_num_mul(rhs_r, rhs_r, &t);
            lm_num_mul_d(rhs_r, rhs_r, rhs_scale);
        } else if (k == 0 || lm_num_cmp(&s, lhs_w) < 0) {
            lm_num_set(lhs_w, &s);
        }
    }
    lm_num_mul(rhs_w, &minV, minS);
    lm_num_mul_d(rhs_w, rhs_w, rhs_scale);
    lm_mat_copy(m->y, y0);
    lm_mha_forward(m);
    lm_num_clears(&minV, &t, &s, (lm_num *)NULL);
    lm_mat_free(G); lm_mat_free(uh); lm_mat_free(v); lm_mat_free(y0);
}

/* documentation only (not a claim of the paper): LHS/RHS of (3) with the Softmax dfdC at the
 * dynamics/example1 point (X = I, W^V = [[2,1],[1,2]], W^O = (1,1), random W^Q, W^K) */
static double softmax_example1_ratio(lm_eval *ev)
{
    const lm_ctx *c = ev->ctx;
    lm_rng *g = lm_eval_rng(ev);
    lm_mha *m = lm_mha_new(1, 2, 2, 2, 1, LM_SOFTMAX, LM_WV_BLOCK, c);
    lm_mat_set_identity(m->X[0]);
    const double wv[4] = {2, 1, 1, 2}, wo[2] = {1, 1};
    lm_mat_set_array(m->Wv, wv);
    lm_mat_set_array(m->Wo, wo);
    lm_mat_randn(m->Wq[0], g, 1.0);
    lm_mat_randn(m->Wk[0], g, 1.0);
    lm_mha_forward(m);
    lm_mat_copy(m->y, m->mh);
    lm_mat_set_d(m->y, 0, 0, lm_mat_get_d(m->y, 0, 0) + 0.25);
    lm_mat_set_d(m->y, 1, 0, lm_mat_get_d(m->y, 1, 0) - 0.5);
    lm_num lr, rr, lw, rw, ms;
    lm_num_inits(c, &lr, &rr, &lw, &rw, &ms, (lm_num *)NULL);
    parts3(&lr, &rr, &lw, &rw, &ms, m, 1.0);
    double ratio = lm_num_get_d(&lr) / lm_num_get_d(&rr);
    lm_num_clears(&lr, &rr, &lw, &rw, &ms, (lm_num *)NULL);
    lm_mha_free(m);
    return ratio;
}

static int check3(lm_eval *ev, const inst *I)
{
    const lm_params P = lm_params_of(ev);
    const lm_ctx *c = ev->ctx;
    const double sc = P.rhs3_scale;
    lm_num lr, rr, lw, rw, ms;
    lm_num_inits(c, &lr, &rr, &lw, &rw, &ms, (lm_num *)NULL);
    parts3(&lr, &rr, &lw, &rw, &ms, I->m, sc);
    const double floor_ = -900.0 * M_LN2; /* 2^-900: products and squares may leave double */
    int inconclusive = c->backend == LM_DOUBLE &&
                       (lm_num_sgn(&ms) <= 0 || lm_num_log_abs_d(&ms) < floor_ ||
                        lm_num_sgn(&lw) <= 0 || lm_num_log_abs_d(&lw) < floor_ ||
                        lm_num_sgn(&lr) <= 0 || lm_num_log_abs_d(&lr) < floor_);
    lm_measure(ev, "log10 min S_i", lm_num_log_abs_d(&ms) / M_LN10);
    if (!inconclusive) {
        obs_le_tol(ev, &rr, &lr, rel_tol(ev), "min|V'W^O| min S ||r|| vs ||df/dC_i||, random label%s",
                  I->n * I->H == 1 ? " (equality case n=H=1)" : "");
        obs_le_tol(ev, &rw, &lw, rel_tol(ev), "min|V'W^O| min S ||r|| vs ||df/dC_i||, worst label%s",
                  I->n * I->H == 1 ? " (equality case n=H=1)" : "");
        lm_measure(ev, "RHS/LHS worst label", exp(lm_num_log_abs_d(&rw) - lm_num_log_abs_d(&lw)));
    } else {
        /* double cannot represent this instance: decide it in MPFR at 256 bits and carry the
         * log ratio over */
        lm_ctx mc = lm_ctx_mpfr(256);
        lm_mha *mm = lm_mha_convert(I->m, &mc);
        lm_num Lr, Rr, Lw, Rw, Ms, t1, t2;
        lm_num_inits(&mc, &Lr, &Rr, &Lw, &Rw, &Ms, &t1, &t2, (lm_num *)NULL);
        parts3(&Lr, &Rr, &Lw, &Rw, &Ms, mm, sc);
        lm_num q, zero;
        lm_num_inits(c, &q, &zero, (lm_num *)NULL);
        lm_num_set_d(&zero, 0.0);
        for (int w = 0; w < 2; w++) {
            lm_num_log(&t1, w ? &Rw : &Rr);
            lm_num_log(&t2, w ? &Lw : &Lr);
            lm_num_sub(&t1, &t1, &t2);
            lm_num_set_d(&q, lm_num_get_d(&t1));
            lm_obs_le_log(ev, -1, &q, &zero, rel_tol(ev),
                          "log(RHS/LHS) of (3), %s label, computed in MPFR (double underflow)",
                          w ? "worst" : "random");
            if (w) lm_measure(ev, "RHS/LHS worst label", exp(lm_num_get_d(&t1)));
        }
        lm_measure(ev, "decided in MPFR (min S or LHS below 2^-900)", 1);
        lm_measure(ev, "log10 min S_i (MPFR)", lm_num_log_abs_d(&Ms) / M_LN10);
        lm_num_clears(&q, &zero, (lm_num *)NULL);
        lm_num_clears(&Lr, &Rr, &Lw, &Rw, &Ms, &t1, &t2, (lm_num *)NULL);
        lm_mha_free(mm);
    }
    lm_measure(ev, "Softmax analogue at example1 point, LHS/RHS (not a claim)", softmax_example1_ratio(ev));
    lm_num_clears(&lr, &rr, &lw, &rw, &ms, (lm_num *)NULL);
    return 0;
}

/* (4): per head, random label and the supremum over labels (sigma_max of r -> grad) */
static int check4(lm_eval *ev, const inst *I)
{
    const lm_ctx *c = ev->ctx;
    lm_mha *m = I->m;
    const int n = I->n, H = I->H, D = I->D, d = I->d, Dd = D * d;
    int rc = 0;
    lm_mat **g = lm_xcalloc((size_t)H, sizeof *g), **G = lm_xcalloc((size_t)H, sizeof *G);
    for (int h = 0; h < H; h++) {
        g[h] = lm_mat_new(D, d, c);
        G[h] = lm_mat_new(Dd, n, c);
    }
    lm_num a, b, nr;
    lm_num_inits(c, &a, &b, &nr, (lm_num *)NULL);
    lm_mha_grad(m, g, NULL, NULL);
    lm_mat_frob(&nr, m->r);
    for (int h = 0; h < H; h++) {
        lm_mat_frob(&a, g[h]);
        const4(&b, I, h, ev);
        lm_num_mul(&b, &b, &nr);
        obs_le_tol(ev, &a, &b, rel_tol(ev), "head %d: ||df_i/dW^Q_h|| vs Q'_i ||r_i||, random label", h);
    }
    lm_pert_label_maps(G, 0, m, 0); /* linear in r_i: column k is the gradient for r_i = e_k */
    for (int h = 0; h < H; h++) {
        if (lm_pert_top_sv(&a, NULL, G[h])) { rc = lm_fail(ev, "SVD of the label-to-gradient map failed"); goto out; }
        const4(&b, I, h, ev);
        obs_le_tol(ev, &a, &b, rel_tol(ev), "head %d: sup over labels ||df_i/dW^Q_h||/||r_i|| vs Q'_i", h);
        if (h == 0) {
            lm_measure(ev, "Q'_i (head 0)", lm_num_get_d(&b));
            lm_measure(ev, "sup ratio (4), head 0", exp(lm_num_log_abs_d(&a) - lm_num_log_abs_d(&b)));
        }
    }
out:
    for (int h = 0; h < H; h++) { lm_mat_free(g[h]); lm_mat_free(G[h]); }
    free(g);
    free(G);
    lm_num_clears(&a, &b, &nr, (lm_num *)NULL);
    return rc;
}

static int eval(lm_eval *ev)
{
    inst I = {0};
    int rc;
    if (build(&I, ev)) rc = lm_fail(ev, "SVD of a weight matrix failed");
    else if (!lm_num_isfinite(&I.m->f)) rc = lm_fail(ev, "forward pass not finite");
    else switch (ev->config) {
        case C1_DIFF: rc = check1_diff(ev, &I); break;
        case C1_FIN: rc = check1_fin(ev, &I); break;
        case C2_RAND:
        case C2_WIT: rc = check2(ev, &I); break;
        case C3: rc = check3(ev, &I); break;
        default: rc = check4(ev, &I); break;
        }
    lm_pert_one_clear(&I);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "Item (1), differential form: sigma_max of the Jacobian of C_ih in W^Q_h against c_ih for "
     "each head (Gaussian kernel, c_G = 2), with an equality case W^K_h = -W^Q_h every eighth "
     "instance.",
     NULL},
    {LM_READ_PAPER,
     "Item (1), finite form: ||C_ih(W^Q_h+D) - C_ih(W^Q_h)||_F against c_ih ||D||_F for ||D|| in "
     "{1e-3, 0.1, 1, dmax = 10} along the worst and a random direction.",
     NULL},
    {LM_READ_PAPER,
     "Item (2) on random instances: the largest change of dC_ih/dW^Q_h over unit directions E "
     "(exact: the Jacobian is affine in W^Q_h) against sqrt(n) ||X_i||_F^2, plus a random E.",
     NULL},
    {LM_READ_PAPER,
     "Item (2) at the paper's equality witness (d = 1, one nonzero row x of X_i, dW = x^T), where "
     "both sides of the bound are equal in exact arithmetic.",
     NULL},
    {LM_READ_PAPER,
     "Item (3), a lower bound: ||df/dC_i||_F at the least favourable unit residual and a random "
     "label must be at least min|V'_i W^O| min S_i ||MH - y_i||; MPFR when min S_i underflows.",
     NULL},
    {LM_READ_PAPER,
     "Item (4): per head, the supremum over labels of ||df/dW^Q_h||_F / ||MH - y_i|| (largest "
     "singular value over unit residuals) and a random label, against Q'_i.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_dynamics_lemma7) = {
    .kind = LM_KIND_POINTWISE,
    .source = "Lemma 7, Appendix 1.4 (eqs. 55-60); proof Appendix 1.7",
    .origin = "verbatim",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 8.0,
    .search_dim = SEARCH_DIM,
    .eval = eval,
};
