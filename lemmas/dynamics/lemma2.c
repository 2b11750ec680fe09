/* lemmas/dynamics/lemma2.c
 *
 * \claim{dynamics/lemma2}{Softmax perturbation bounds (1)--(5)}
 * \source{transformer-gd-dynamics, Lemma 2 (Appendix 1.2, eqs. 33--37); proofs in Appendix 1.6}
 * \statement{For the Softmax kernel and each sample $i$, with
 *   $\phi_i=\frac{n}{\sqrt d}\|X_i\|_F^2\sqrt{\sum_h\sigma_{\max}^2(W^K_h)}$,
 *   $\psi_i=\frac{n}{\sqrt d}\|X_i\|_F^2\sqrt{\sum_h\sigma_{\max}^2(W^Q_h)}$,
 *   $Q_i=n\sqrt H\|X_i\|_F^3\|W^O\|_2\sqrt{\sum_h\sigma_{\max}^2(W^K_h)}\,\sigma_{\max}(W^V)$ and
 *   $K_i$ the same with $W^Q_h$ in place of $W^K_h$:
 *   (1) $\|d(S_i)\|_F\le\phi_i\|d(W^Q)\|_F$;
 *   (2) $\|d(S_i)\|_F\le\psi_i\|d(W^K)\|_F$;
 *   (3) $\|d(S_i)\|_F\le\sqrt{\phi_i^2+\psi_i^2}\,\|(d(W^Q),d(W^K))\|_F$;
 *   (4) $\|\partial f(M;X_i)/\partial W^Q\|_F\le Q_i\|\mathsf{MH}(M;X_i)-y_i\|_2$;
 *   (5) $\|\partial f(M;X_i)/\partial W^K\|_F\le K_i\|\mathsf{MH}(M;X_i)-y_i\|_2$,
 *   where $S_i=[S_{i1},\dots,S_{iH}]$ and $f(M;X_i)=\frac12\|\mathsf{MH}(M;X_i)-y_i\|^2$.}
 * \check{Every statement is about one sample, so each instance is one sample ($N=1$) with
 *   $(n,D,d,H)$ cycling through $(2,3,2,1)$, $(3,4,2,2)$, $(1,2,2,1)$ ($n=1$: constant softmax),
 *   $(4,3,1,1)$ ($d=1$), $(3,2,3,3)$, $(2,4,4,2)$, $(5,3,2,1)$, $(3,3,3,1)$, and
 *   $X_i,W^Q,W^K,W^V$ (block diagonal), $W^O$ Gaussian with independent scales
 *   $10^u$, $u$ uniform in $[\texttt{logscale\_lo},\texttt{logscale\_hi}]=[-1,1.5]$; the adversarial
 *   restarts move these five log-scales, the step length and the direction.
 *   There is one configuration per item and form.
 *   \emph{Differential forms} (items 1--3): the map $d(W)\mapsto d(S_i)$ is linear, so instead
 *   of sampling directions we compute its exact operator norm, i.e.\ the supremum of
 *   $\|d(S_i)\|_F/\|d(W)\|_F$ over all directions: the Jacobian
 *   $\partial\,\mathrm{vec}\,S_{ih}/\partial\,\mathrm{vec}\,W^Q_h=D_S\,J^C_h$ (row-softmax Jacobian
 *   $D_S$, logit Jacobian $J^C_h$) is formed in the working precision and its largest singular
 *   value is compared with $\phi_i$ (heads decouple, so the supremum is the maximum over $h$;
 *   for (3) the Jacobian is $D_S[J^C_{Q,h},J^C_{K,h}]$). The Jacobian is cross-checked against
 *   central finite differences along a random direction; a disagreement is an error.
 *   \emph{Finite forms}: $\|S_i(W+\Delta)-S_i(W)\|_F$ against $\phi_i\|\Delta\|_F$ (resp.\ $\psi_i$)
 *   for $\|\Delta\|_F\in\{10^{-3},10^{-1},1,\texttt{dmax}=10\}$ along the worst differential
 *   direction and a random one; $\phi_i$ depends only on the fixed $W^K$, so the finite form
 *   follows from the differential one by the mean value theorem. For (3) both $W^Q$ and $W^K$
 *   move and the constant is the supremum of $\sqrt{\phi_i^2+\psi_i^2}$ over the segment, which
 *   is attained at an end point because it is the root of a sum of squares of convex
 *   non-negative functions of the segment parameter.
 *   \emph{Items (4), (5)}: the gradient is linear in the residual $r_i$ (for fixed weights), so
 *   the supremum over labels $y_i$ of $\|\partial f/\partial W^Q\|_F/\|r_i\|$ is the largest
 *   singular value of the $HDd\times n$ matrix whose columns are the gradients for
 *   $r_i=e_k$; it is compared with $Q_i$, and a random label gives a second observation.
 *   All norms and singular values of both sides are computed in the working precision
 *   (double, then MPFR at 256 bits for any break); the ratios are far below one, and with a
 *   saturated softmax both sides of (1)--(3) are tiny, which is harmless.
 *   Each constant has a multiplier \texttt{phi\_scale}, \texttt{psi\_scale}, \texttt{Q\_scale},
 *   \texttt{K\_scale} (default 1).}
 */
#include "lm_claim.h"
#include "lm_model.h"
#include <math.h>
#include <stdlib.h>

enum { IT1_DIFF, IT1_FIN, IT2_DIFF, IT2_FIN, IT3_DIFF, IT3_FIN, IT4, IT5, NCFG };

static const char *const configs[] = {"item1,differential", "item1,finite",
                                      "item2,differential", "item2,finite",
                                      "item3,differential", "item3,finite",
                                      "item4,grad-WQ", "item5,grad-WK", NULL};

static const lm_param_def params[] = {
    {"phi_scale", 1.0, "multiplies phi_i of item (1) (and in item (3))", NULL},
    {"psi_scale", 1.0, "multiplies psi_i of item (2) (and in item (3))", NULL},
    {"Q_scale", 1.0, "multiplies Q_i of item (4)", NULL},
    {"K_scale", 1.0, "multiplies K_i of item (5)", NULL},
    {"logscale_lo", -1.0, "log10 of the smallest scale of X, W^Q, W^K, W^V, W^O", NULL},
    {"logscale_hi", 1.5, "log10 of the largest scale of X, W^Q, W^K, W^V, W^O", NULL},
    {"dmax", 10.0, "largest ||Delta||_F in the finite forms", NULL},
    {"jvp_tol", 1e-6, "allowed |FD - Jacobian| / bound in the Jacobian self-check", NULL},
    {NULL, 0, NULL, NULL}};

static const int sizes[8][4] = {{2, 3, 2, 1}, {3, 4, 2, 2}, {1, 2, 2, 1}, {4, 3, 1, 1},
                                {3, 2, 3, 3}, {2, 4, 4, 2}, {5, 3, 2, 1}, {3, 3, 3, 1}};

#define SEARCH_DIM 7

static double logistic(double z) { return 1.0 / (1.0 + exp(-z)); }

/* scale exponent u in [lo,hi]: a uniform draw moved smoothly by the search offset */
static double pick_scale(double lo, double hi, double frac, const lm_eval *ev, int j)
{
    if (ev->x && j < ev->nx) frac = logistic(log(frac / (1.0 - frac)) + ev->x[j]);
    return pow(10.0, lo + (hi - lo) * frac);
}

typedef struct {
    lm_mha *m;
    int n, D, d, H;
    lm_num sqd;          /* sqrt(d) */
    lm_num nX2;          /* ||X_i||_F^2 */
    lm_num *sQ, *sK;     /* sigma_max(W^Q_h), sigma_max(W^K_h) */
    lm_num sV, nWo;      /* sigma_max(W^V), ||W^O||_2 */
} inst;

static void inst_clear(inst *I)
{
    lm_nums_free(I->sQ, I->H);
    lm_nums_free(I->sK, I->H);
    lm_num_clears(&I->sqd, &I->nX2, &I->sV, &I->nWo, (lm_num *)NULL);
    lm_mha_free(I->m);
}

/* sigma_max of every weight, in the working precision; nonzero on SVD failure */
static int weight_norms(lm_num *sQ, lm_num *sK, const lm_mha *m)
{
    int rc = 0;
    for (int h = 0; h < m->H; h++) {
        rc |= lm_mat_smax(&sQ[h], m->Wq[h]);
        rc |= lm_mat_smax(&sK[h], m->Wk[h]);
    }
    return rc;
}

/* r = sqrt(sum_h s_h^2) * c */
static void root_sumsq(lm_num *r, const lm_num *s, int H, double c)
{
    lm_num t;
    lm_num_init(&t, &(lm_ctx){s[0].mp ? LM_MPFR : LM_DOUBLE, s[0].mp ? mpfr_get_prec(s[0].m) : 53});
    lm_num_set_d(r, 0.0);
    for (int h = 0; h < H; h++) {
        lm_num_sqr(&t, &s[h]);
        lm_num_add(r, r, &t);
    }
    lm_num_sqrt(r, r);
    lm_num_mul_d(r, r, c);
    lm_num_clear(&t);
}

static int build(inst *I, lm_eval *ev)
{
    const lm_ctx *c = ev->ctx;
    lm_rng *g = lm_eval_rng(ev);
    const int *z = sizes[ev->index % 8];
    I->n = z[0]; I->D = z[1]; I->d = z[2]; I->H = z[3];
    const double lo = lm_par(ev, "logscale_lo"), hi = lm_par(ev, "logscale_hi");
    double sc[5];
    for (int j = 0; j < 5; j++) sc[j] = pick_scale(lo, hi, lm_rng_uniform(g), ev, j);
    lm_mha *m = lm_mha_new(1, I->n, I->D, I->d, I->H, LM_SOFTMAX, LM_WV_BLOCK, c);
    I->m = m;
    lm_mat_randn(m->X[0], g, sc[0]);
    for (int h = 0; h < I->H; h++) lm_mat_randn(m->Wq[h], g, sc[1]);
    for (int h = 0; h < I->H; h++) lm_mat_randn(m->Wk[h], g, sc[2]);
    for (int h = 0; h < I->H; h++)
        for (int a = 0; a < I->D; a++)
            for (int b = 0; b < I->d; b++)
                lm_mat_set_d(m->Wv, h * I->D + a, h * I->d + b, sc[3] * lm_rng_normal(g));
    lm_mat_randn(m->Wo, g, sc[4]);
    lm_mat_randn(m->y, g, 1.0);
    lm_mha_forward(m);
    lm_num_inits(c, &I->sqd, &I->nX2, &I->sV, &I->nWo, (lm_num *)NULL);
    I->sQ = lm_nums_new(I->H, c);
    I->sK = lm_nums_new(I->H, c);
    lm_num_set_d(&I->sqd, (double)I->d);
    lm_num_sqrt(&I->sqd, &I->sqd);
    lm_mat_frob(&I->nX2, m->X[0]);
    lm_num_sqr(&I->nX2, &I->nX2);
    lm_mat_frob(&I->nWo, m->Wo);
    int rc = weight_norms(I->sQ, I->sK, m);
    rc |= lm_mat_smax(&I->sV, m->Wv);
    lm_measure(ev, "n", I->n);
    lm_measure(ev, "D", I->D);
    lm_measure(ev, "d", I->d);
    lm_measure(ev, "H", I->H);
    lm_measure(ev, "scale_X", sc[0]);
    lm_measure(ev, "scale_WQ", sc[1]);
    lm_measure(ev, "scale_WK", sc[2]);
    lm_measure(ev, "scale_WV", sc[3]);
    lm_measure(ev, "scale_WO", sc[4]);
    return rc;
}

/* phi (which=0: uses W^K) or psi (which=1: uses W^Q) = n/sqrt(d) ||X||^2 sqrt(sum sigma^2) */
static void phipsi(lm_num *r, const inst *I, const lm_num *sQ, const lm_num *sK, int which,
                   double scale)
{
    root_sumsq(r, which == 0 ? sK : sQ, I->H, scale * I->n);
    lm_num_mul(r, r, &I->nX2);
    lm_num_div(r, r, &I->sqd);
}

/* Jacobian of vec C_h (row-major, row k*n+j) w.r.t. vec W^Q_h (which=0) or W^K_h
 * (which=1), column a + D*b: dC_kj/dWq_ab = X_ka K_jb / sqrt d, dC_kj/dWk_ab = Q_kb X_ja / sqrt d */
static void logit_jac(lm_mat *J, const inst *I, int h, int which)
{
    const lm_mha *m = I->m;
    const int n = I->n, D = I->D, d = I->d;
    const lm_ctx c = m->ctx;
    lm_mat *P = lm_mat_new(n, d, &c);
    lm_num x, p;
    lm_num_inits(&c, &x, &p, (lm_num *)NULL);
    lm_mat_mul(P, m->X[0], 0, which == 0 ? m->Wk[h] : m->Wq[h], 0); /* K (which 0) or Q */
    for (int k = 0; k < n; k++)
        for (int j = 0; j < n; j++)
            for (int b = 0; b < d; b++) {
                lm_mat_get(&p, P, which == 0 ? j : k, b);
                lm_num_div(&p, &p, &I->sqd);
                for (int a = 0; a < D; a++) {
                    lm_mat_get(&x, m->X[0], which == 0 ? k : j, a);
                    lm_num_mul(&x, &x, &p);
                    lm_mat_set(J, k * n + j, a + D * b, &x);
                }
            }
    lm_num_clears(&x, &p, (lm_num *)NULL);
    lm_mat_free(P);
}

/* row-softmax Jacobian: block k is diag(S_k) - S_k S_k^T */
static void softmax_jac(lm_mat *DS, const lm_mat *S, int n)
{
    lm_ctx c = lm_mat_ctx(S);
    lm_num a, b, t;
    lm_num_inits(&c, &a, &b, &t, (lm_num *)NULL);
    lm_mat_zero(DS);
    for (int k = 0; k < n; k++)
        for (int j = 0; j < n; j++) {
            lm_mat_get(&a, S, k, j);
            for (int p = 0; p < n; p++) {
                lm_mat_get(&b, S, k, p);
                lm_num_mul(&t, &a, &b);
                lm_num_neg(&t, &t);
                if (p == j) lm_num_add(&t, &t, &a);
                lm_mat_set(DS, k * n + j, k * n + p, &t);
            }
        }
    lm_num_clears(&a, &b, &t, (lm_num *)NULL);
}

/* JS_h = D_S [J^C_Q | J^C_K] restricted to the moving variables (mask bit 1: Q, 2: K) */
static lm_mat *s_jacobian(const inst *I, int h, int mask)
{
    const int n = I->n, Dd = I->D * I->d;
    const lm_ctx c = I->m->ctx;
    int cols = ((mask & 1) ? Dd : 0) + ((mask & 2) ? Dd : 0);
    lm_mat *JC = lm_mat_new(n * n, cols, &c), *T = lm_mat_new(n * n, Dd, &c);
    lm_mat *DS = lm_mat_new(n * n, n * n, &c), *JS = lm_mat_new(n * n, cols, &c);
    int off = 0;
    if (mask & 1) { logit_jac(T, I, h, 0); lm_mat_set_block(JC, 0, off, T); off += Dd; }
    if (mask & 2) { logit_jac(T, I, h, 1); lm_mat_set_block(JC, 0, off, T); }
    softmax_jac(DS, I->m->S[h], n);
    lm_mat_mul(JS, DS, 0, JC, 0);
    lm_mat_free(JC); lm_mat_free(T); lm_mat_free(DS);
    return JS;
}

/* ||S(m2) - S(m1)||_F over all heads of the one sample */
static void s_dist(lm_num *r, const lm_mha *m1, const lm_mha *m2)
{
    lm_ctx c = m1->ctx;
    lm_mat *T = lm_mat_new(m1->n, m1->n, &c);
    lm_num t;
    lm_num_init(&t, &c);
    lm_num_set_d(r, 0.0);
    for (int h = 0; h < m1->H; h++) {
        lm_mat_sub(T, m2->S[h], m1->S[h]);
        lm_mat_frob(&t, T);
        lm_num_sqr(&t, &t);
        lm_num_add(r, r, &t);
    }
    lm_num_sqrt(r, r);
    lm_num_clear(&t);
    lm_mat_free(T);
}

/* move W^Q (mask 1) and/or W^K (mask 2) of all heads by s*E, E stacked per head as
 * [vec Q_h ; vec K_h] of length cols*H (column a + D*b) */
static void move(lm_mha *m2, const lm_mha *m, const lm_mat *E, const lm_num *s, int mask)
{
    const int D = m->D, d = m->d, Dd = D * d;
    const int per = ((mask & 1) ? Dd : 0) + ((mask & 2) ? Dd : 0);
    lm_ctx c = m->ctx;
    lm_num x, e;
    lm_num_inits(&c, &x, &e, (lm_num *)NULL);
    for (int h = 0; h < m->H; h++) {
        int off = h * per;
        for (int w = 0; w < 2; w++) {
            if (!(mask & (1 << w))) continue;
            lm_mat *W2 = w ? m2->Wk[h] : m2->Wq[h];
            const lm_mat *W = w ? m->Wk[h] : m->Wq[h];
            for (int a = 0; a < D; a++)
                for (int b = 0; b < d; b++) {
                    lm_mat_get(&x, W, a, b);
                    lm_mat_get(&e, E, off + a + D * b, 0);
                    lm_num_fma(&x, &e, s, &x);
                    lm_mat_set(W2, a, b, &x);
                }
            off += Dd;
        }
    }
    lm_num_clears(&x, &e, (lm_num *)NULL);
    lm_mha_forward(m2);
}

/* ||W(m2) - W(m)||_F over the moving blocks, from the rounded weights actually used */
static void w_dist(lm_num *r, const lm_mha *m, const lm_mha *m2, int mask)
{
    lm_ctx c = m->ctx;
    lm_mat *T = lm_mat_new(m->D, m->d, &c);
    lm_num t;
    lm_num_init(&t, &c);
    lm_num_set_d(r, 0.0);
    for (int h = 0; h < m->H; h++)
        for (int w = 0; w < 2; w++) {
            if (!(mask & (1 << w))) continue;
            lm_mat_sub(T, w ? m2->Wk[h] : m2->Wq[h], w ? m->Wk[h] : m->Wq[h]);
            lm_mat_frob(&t, T);
            lm_num_sqr(&t, &t);
            lm_num_add(r, r, &t);
        }
    lm_num_sqrt(r, r);
    lm_num_clear(&t);
    lm_mat_free(T);
}

static void normalize(lm_mat *E)
{
    lm_ctx c = lm_mat_ctx(E);
    lm_num t;
    lm_num_init(&t, &c);
    lm_mat_frob(&t, E);
    if (!lm_num_iszero(&t)) {
        lm_num_d_sub(&t, 1.0, &(lm_num){0}); /* placeholder, replaced below */
    }
    lm_num_clear(&t);
}
