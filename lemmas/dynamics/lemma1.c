/* lemmas/dynamics/lemma1.c
 *
 * \claim{dynamics/lemma1}{Closed-form gradients of the Softmax model}
 * \source{transformer-gd-dynamics, Lemma 1 (Appendix 1.2, eqs. 27--31)}
 * \statement{For Softmax attention, with $r=\mathsf{MH}(M;X)-y$ and
 *   $R_i=r_i(W^O)^\top(V'_i)^\top$, $V'_i=\mathrm{blockdiag}(X_iW^V_1,\dots,X_iW^V_H)$:
 *   (1) $\partial f/\partial W^V=B^\top r\,(W^O)^\top$;
 *   (2) $\mathrm{vec}(\partial f/\partial W^V)=\langle (W^O)^\top\otimes B,\mathrm{vec}(r)\rangle
 *       =(\mathbb I_{Hd}\otimes B^\top)(W^O\otimes\mathbb I_N)\,r$;
 *   (3) $\partial f/\partial W^Q_h=\frac1{\sqrt d}X^\top\mathbb P_h\frac{\partial f}{\partial C}XW^K_h
 *       =\sum_i\frac1{\sqrt d}X_i^\top\mathbb P_h\frac{\partial f(M;X_i)}{\partial C_i}X_iW^K_h$;
 *   (4) $\frac{\partial f(M;X_i)}{\partial C_i}=R_i\odot S_i-\big((R_i\odot S_i\odot
 *       \Upsilon((\exp C_i)\mathbb E))\mathbb E^\top\big)\odot\exp C_i$ with
 *       $\mathbb E=\mathrm{blockdiag}(\mathbf 1_{n\times n},\dots)$ and $\Upsilon$ the entrywise
 *       reciprocal;
 *   (5) $\frac{\partial f}{\partial C}=\mathrm{diag}\big(\frac{\partial f(M;X_1)}{\partial C_1},\dots,
 *       \frac{\partial f(M;X_N)}{\partial C_N}\big)$; the $W^K$ gradient is the symmetric formula.}
 * \check{Every formula is implemented literally (the matrices $\mathbb E$, $\Upsilon$,
 *   $\exp C_i$, $V'_i$, the block-diagonal stacking (5), the head selector and the
 *   Kronecker products of (2) are formed explicitly) and compared with two references:
 *   central finite differences of the loss computed in MPFR at
 *   $p_{\rm fd}\ge\max(256,2p)$ bits ($p$ the working precision; more, $p/2+64+\frac32\log_2(|f|/\|\bar F\|)$,
 *   when a gradient's natural scale $\bar F$ is far below $f$) with step
 *   $h=2^{-p_{\rm fd}/3}\max(1,|\theta|)$, on every
 *   entry of $W^Q_h$, $W^K_h$, the dense $W^V$ and every logit $C_{ih}$; and the
 *   stable S3 formulas of the model code ($\Gamma_{kj}=S_{kj}(G_{kj}-\sum_pG_{kp}S_{kp})$, never
 *   forming $\exp C$).  Each comparison is one observation
 *   $\|F-F_{\rm ref}\|_F\le\tau\,(\|F_{\rm ref}\|_F+\|\bar F\|_F)$ with
 *   $\tau=2^{-p/3}\cdot$\texttt{tol\_scale}, $p$ the working precision, and $\bar F$ the
 *   natural scale of the formula: the same expression evaluated on absolute values
 *   ($|X_i|$, $|W|$, $|y|$, $S$), which bounds the rounding error of any evaluation
 *   order.  The expected discrepancy is $O(2^{-2p/3})$ for the differences and $O(2^{-p})$
 *   against S3, so $\tau$ leaves a margin of $2^{p/3}$; a wrong formula is off by $O(1)$.
 *   Reading of (3): with the stacking (5), $\partial f/\partial C$ is $Nn\times NHn$, so the
 *   head selector must act on the right, $\mathbb P_h=\mathrm{blockdiag}_i(e_h\otimes I_n)$;
 *   this is the only dimensionally valid placement and equals $\sum_i X_i^\top\Gamma_{ih}X_iW^K_h/\sqrt d$.
 *   Reading of (2): $\mathbb I_N$ is dimensionally invalid for $n>1$ ($W^O\otimes\mathbb I_N$
 *   has $N$ columns, $r$ has $Nn$ entries); the check uses $\mathbb I_{Nn}$ and also the
 *   inner-product form read as $(W^O\otimes B^\top)r$.  The switch \texttt{kron\_I}$=$\texttt{N}
 *   uses the printed $\mathbb I_N$: every instance with $n>1$ is then
 *   \emph{assumption-failed} (not a pass), and the measure
 *   \texttt{(2) with I\_N dimensionally valid} records the same fact in the default run.
 *   $W^V$ is block-diagonal as in eq.\ (5) (the differences of (1) still run over all
 *   $HD\times Hd$ entries); \texttt{wv\_offdiag}$=1$ adds off-diagonal blocks, the
 *   dense-mode iterate after one GD step, where (4) with $V'_i$ built from the diagonal
 *   blocks is no longer the gradient for $H\ge2$.
 *   Configurations: \texttt{random} (sizes of S7 and $H\in\{1,2,3\}$, $n=1$ included;
 *   $W^Q,W^K,W^V,W^O$ scales $10^{U(-1,1)}$, logits up to the thousands);
 *   \texttt{saturated} ($W^Q_h$ rescaled so that $\max|C_{ih}|=50$); \texttt{near-tied}
 *   (two tokens equal up to $10^{-7}$, so two logits of every row agree to about $10^{-6}$,
 *   at $\max|C|=30$); each with adversarial restarts over the weight and label scales
 *   and the tie gap.  Precision trap: in double, $\exp C$ overflows for $C>709$ and the
 *   literal (4) returns NaN; an instance with $\max|C|>700$ is therefore evaluated in
 *   MPFR at 256 bits already in the double pass (measure \texttt{evaluated in mpfr256}),
 *   and the measure \texttt{literal (4) finite in double} marks whether the double
 *   evaluation of (4) was finite.  Parameters \texttt{inv\_sqrt\_d\_power} (the
 *   exponent of $d^{-1/2}$ in (3)) and \texttt{term2\_sign} (sign of the second term of (4))
 *   exist to show that the check fails for a wrong formula.}
 */
#include "lm_claim.h"
#include "lm_model.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const configs[] = {"random", "saturated", "near-tied", NULL};

static const lm_param_def params[] = {
    {"tol_scale", 1.0, "multiplies the residual tolerance 2^(-p/3)", NULL},
    {"inv_sqrt_d_power", 1.0, "exponent of d^(-1/2) in (3) (1 = paper; 0 drops 1/sqrt(d))", NULL},
    {"term2_sign", 1.0, "sign of the subtracted second term of (4) (1 = paper)", NULL},
    {"kron_I", 0, "identity in (2): Nn (dimensionally valid) or N (as printed)", "Nn|N"},
    {"wv_offdiag", 0, "1: W^V gets off-diagonal blocks (dense-mode iterate)", NULL},
    {"sat_logit", 50.0, "max |C| of the saturated configuration", NULL},
    {"tie_logit", 30.0, "max |C| of the near-tied configuration", NULL},
    {NULL, 0, NULL, NULL}};

/* (N, n, D, d, H): the sizes of S7 plus H = 3 and n = 1 */
static const int sizes[][5] = {{2, 2, 4, 2, 1}, {2, 2, 5, 2, 1}, {2, 3, 4, 2, 2},
                               {1, 3, 2, 1, 2}, {1, 2, 2, 2, 1}, {1, 3, 3, 3, 1},
                               {2, 2, 3, 2, 3}, {2, 1, 2, 1, 1}, {1, 3, 2, 2, 3}};
#define NSIZES ((int)(sizeof sizes / sizeof *sizes))

/* ------------------------------------------------------------------ helpers */

static void absm(lm_mat *B, const lm_mat *A)
{
    lm_ctx c = lm_mat_ctx(A);
    lm_num x;
    lm_num_init(&x, &c);
    for (int i = 0; i < A->r; i++)
        for (int j = 0; j < A->c; j++) {
            lm_mat_get(&x, A, i, j);
            lm_num_abs(&x, &x);
            lm_mat_set(B, i, j, &x);
        }
    lm_num_clear(&x);
}

static double max_abs_logit(const lm_mha *m)
{
    double mx = 0;
    for (int q = 0; q < m->N * m->H; q++)
        for (int k = 0; k < m->n; k++)
            for (int j = 0; j < m->n; j++) mx = fmax(mx, fabs(lm_mat_get_d(m->C[q], k, j)));
    return mx;
}

/* scale W^Q_h so that max_i max|C_ih| = target (logits are linear in W^Q_h) */
static void set_logit_scale(lm_mha *m, double target)
{
    lm_mha_forward(m);
    for (int h = 0; h < m->H; h++) {
        double mx = 0;
        for (int i = 0; i < m->N; i++)
            for (int k = 0; k < m->n; k++)
                for (int j = 0; j < m->n; j++)
                    mx = fmax(mx, fabs(lm_mat_get_d(m->C[i * m->H + h], k, j)));
        if (mx > 0) lm_mat_scale_d(m->Wq[h], m->Wq[h], target / mx);
    }
}

/* the instance, built in double from the instance's stream (the same draws
 * whatever the configuration or the precision) */
static lm_mha *build(lm_eval *ev)
{
    lm_rng *g = lm_eval_rng(ev);
    const int *z = sizes[ev->index % NSIZES];
    const int N = z[0], n = z[1], D = z[2], d = z[3], H = z[4];
    lm_ctx dbl = lm_ctx_double();
    lm_mha *m = lm_mha_new(N, n, D, d, H, LM_SOFTMAX, LM_WV_DENSE, &dbl);
    double lq = 2.0 * lm_rng_uniform(g) - 1.0, lv = 2.0 * lm_rng_uniform(g) - 1.0,
           lo = 2.0 * lm_rng_uniform(g) - 1.0;
    lm_mha_randomize(m, g, 1.0, pow(10.0, lq), pow(10.0, lv), pow(10.0, lo));
    int off = lm_par_i(ev, "wv_offdiag");
    for (int a = 0; a < H * D; a++)
        for (int b = 0; b < H * d; b++) {
            double v = pow(10.0, lv) * lm_rng_normal(g);
            if (off && a / D != b / d) lm_mat_set_d(m->Wv, a, b, v);
        }
    lm_mat_randn(m->y, g, 1.0);
    double tie[64];
    for (int k = 0; k < N * D && k < 64; k++) tie[k] = lm_rng_normal(g);
    const double *x = ev->x;
    double gap = 1e-7;
    if (x && ev->nx >= 6) gap = pow(10.0, -4.0 - 4.0 * tanh(x[5]));
    if (ev->config == 2 && n >= 2) /* near-tied: token 1 = token 0 + gap */
        for (int i = 0; i < N; i++)
            for (int a = 0; a < D; a++)
                lm_mat_set_d(m->X[i], 1, a,
                             lm_mat_get_d(m->X[i], 0, a) * (1.0 + gap * tie[(i * D + a) % 64]));
    if (ev->config == 1) set_logit_scale(m, lm_par(ev, "sat_logit"));
    if (ev->config == 2) set_logit_scale(m, lm_par(ev, "tie_logit"));
    if (x && ev->nx >= 5) {
        for (int h = 0; h < H; h++) {
            lm_mat_scale_d(m->Wq[h], m->Wq[h], pow(10.0, 1.5 * tanh(x[0])));
            lm_mat_scale_d(m->Wk[h], m->Wk[h], pow(10.0, 1.5 * tanh(x[1])));
        }
        lm_mat_scale_d(m->Wv, m->Wv, pow(10.0, tanh(x[2])));
        lm_mat_scale_d(m->Wo, m->Wo, pow(10.0, tanh(x[3])));
        lm_mat_scale_d(m->y, m->y, pow(10.0, 2.0 * tanh(x[4])));
    }
    return m;
}

/* ------------------------------------------------------- literal formulas */

/* Lemma 1(4) written literally for sample i: Gam is n x Hn, columns h*n+j */
static void gamma_literal(lm_mat *Gam, const lm_mha *m, int i, double sign)
{
    const lm_ctx *c = &m->ctx;
    const int n = m->n, H = m->H, D = m->D, d = m->d, Hn = H * n;
    lm_mat *Vp = lm_mat_new(Hn, H * d, c), *Wvh = lm_mat_new(D, d, c), *T = lm_mat_new(n, d, c);
    for (int h = 0; h < H; h++) {
        lm_mat_get_block(Wvh, m->Wv, h * D, h * d);
        lm_mat_mul(T, m->X[i], 0, Wvh, 0);
        lm_mat_set_block(Vp, h * n, h * d, T);
    }
    lm_mat *ri = lm_mat_new(n, 1, c), *w = lm_mat_new(1, Hn, c), *R = lm_mat_new(n, Hn, c);
    lm_mat_get_block(ri, m->r, i * n, 0);
    lm_mat_mul(w, m->Wo, 1, Vp, 1); /* (W^O)^T (V'_i)^T */
    lm_mat_mul(R, ri, 0, w, 0);
    lm_mat *Ci = lm_mat_new(n, Hn, c), *Si = lm_mat_new(n, Hn, c), *eC = lm_mat_new(n, Hn, c);
    for (int h = 0; h < H; h++) {
        lm_mat_set_block(Ci, 0, h * n, m->C[i * H + h]);
        lm_mat_set_block(Si, 0, h * n, m->S[i * H + h]);
    }
    lm_mat_exp(eC, Ci);
    lm_mat *EE = lm_mat_new(Hn, Hn, c);
    for (int h = 0; h < H; h++)
        for (int k = 0; k < n; k++)
            for (int j = 0; j < n; j++) lm_mat_set_d(EE, h * n + k, h * n + j, 1.0);
    lm_mat *Z = lm_mat_new(n, Hn, c), *U = lm_mat_new(n, Hn, c), *T2 = lm_mat_new(n, Hn, c);
    lm_mat_mul(Z, eC, 0, EE, 0); /* (exp C_i) E */
    lm_num one, x;
    lm_num_inits(c, &one, &x, (lm_num *)NULL);
    lm_num_set_d(&one, 1.0);
    for (int k = 0; k < n; k++)
        for (int j = 0; j < Hn; j++) { /* Upsilon: entrywise reciprocal */
            lm_mat_get(&x, Z, k, j);
            lm_num_div(&x, &one, &x);
            lm_mat_set(Z, k, j, &x);
        }
    lm_mat_hadamard(U, R, Si);
    lm_mat_hadamard(U, U, Z);        /* R .* S .* Upsilon(...) */
    lm_mat_mul(T2, U, 0, EE, 1);     /* (...) E^T */
    lm_mat_hadamard(T2, T2, eC);     /* (...) .* exp C_i */
    lm_mat_hadamard(Gam, R, Si);
    lm_mat_axpy_d(Gam, -sign, T2);
    lm_num_clears(&one, &x, (lm_num *)NULL);
    lm_mat *ms[] = {Vp, Wvh, T, ri, w, R, Ci, Si, eC, EE, Z, U, T2};
    for (size_t q = 0; q < sizeof ms / sizeof *ms; q++) lm_mat_free(ms[q]);
}

/* c = d^(-pw/2) in the model's context */
static void inv_sqrt_d(lm_num *c, const lm_mha *m, double pw)
{
    lm_num_set_d(c, (double)m->d);
    if (pw == 1.0) {
        lm_num_sqrt(c, c);
        lm_num t;
        lm_num_init(&t, &m->ctx);
        lm_num_set_d(&t, 1.0);
        lm_num_div(c, &t, c);
        lm_num_clear(&t);
    } else {
        lm_num_log(c, c);
        lm_num_mul_d(c, c, -0.5 * pw);
        lm_num_exp(c, c);
    }
}

/* (3) with (5): dF/dC = diag_i(dF/dC_i) (Nn x NHn), P_h = diag_i(e_h (x) I_n)
 * (NHn x Nn); gQ_h = c X^T (dF/dC P_h) X W^K_h, gK_h = c X^T (dF/dC P_h)^T X W^Q_h.
 * gQ, gK: HD x d (heads stacked). Gam: Nn x Hn. */
static void grads_qk_literal(lm_mat *gQ, lm_mat *gK, const lm_mha *m, const lm_mat *Gam,
                             const lm_num *cd)
{
    const lm_ctx *c = &m->ctx;
    const int N = m->N, n = m->n, H = m->H, D = m->D, d = m->d, Nn = N * n;
    lm_mat *dC = lm_mat_new(Nn, N * H * n, c), *Gi = lm_mat_new(n, H * n, c);
    for (int i = 0; i < N; i++) {
        lm_mat_get_block(Gi, Gam, i * n, 0);
        lm_mat_set_block(dC, i * n, i * H * n, Gi);
    }
    lm_mat *X = lm_mat_new(Nn, D, c);
    for (int i = 0; i < N; i++) lm_mat_set_block(X, i * n, 0, m->X[i]);
    lm_mat *P = lm_mat_new(N * H * n, Nn, c), *M = lm_mat_new(Nn, Nn, c);
    lm_mat *T1 = lm_mat_new(Nn, D, c), *T2 = lm_mat_new(D, D, c), *g = lm_mat_new(D, d, c);
    for (int h = 0; h < H; h++) {
        lm_mat_zero(P);
        for (int i = 0; i < N; i++)
            for (int k = 0; k < n; k++) lm_mat_set_d(P, i * H * n + h * n + k, i * n + k, 1.0);
        lm_mat_mul(M, dC, 0, P, 0);
        for (int which = 0; which < 2; which++) {
            lm_mat_mul(T1, M, which, X, 0);
            lm_mat_mul(T2, X, 1, T1, 0);
            lm_mat_mul(g, T2, 0, which ? m->Wq[h] : m->Wk[h], 0);
            lm_mat_scale(g, g, cd);
            lm_mat_set_block(which ? gK : gQ, h * D, 0, g);
        }
    }
    lm_mat *ms[] = {dC, Gi, X, P, M, T1, T2, g};
    for (size_t q = 0; q < sizeof ms / sizeof *ms; q++) lm_mat_free(ms[q]);
}

/* R = P (x) Q */
static void kron(lm_mat *R, const lm_mat *P, const lm_mat *Q)
{
    lm_ctx c = lm_mat_ctx(R);
    lm_num p, q;
    lm_num_inits(&c, &p, &q, (lm_num *)NULL);
    for (int i1 = 0; i1 < P->r; i1++)
        for (int j1 = 0; j1 < P->c; j1++) {
            lm_mat_get(&p, P, i1, j1);
            for (int i2 = 0; i2 < Q->r; i2++)
                for (int j2 = 0; j2 < Q->c; j2++) {
                    lm_mat_get(&q, Q, i2, j2);
                    lm_num_mul(&q, &p, &q);
                    lm_mat_set(R, i1 * Q->r + i2, j1 * Q->c + j2, &q);
                }
        }
    lm_num_clears(&p, &q, (lm_num *)NULL);
}

/* column-major vec */
static void vec(lm_mat *v, const lm_mat *A)
{
    lm_ctx c = lm_mat_ctx(v);
    lm_num x;
    lm_num_init(&x, &c);
    for (int a = 0; a < A->r; a++)
        for (int b = 0; b < A->c; b++) {
            lm_mat_get(&x, A, a, b);
            lm_mat_set(v, a + A->r * b, 0, &x);
        }
    lm_num_clear(&x);
}

/* ------------------------------------------------------- references */

/* f_i with C_{i h0} replaced by C0 (softmax rows) */
static void sample_loss(lm_num *f, const lm_mha *m, int i, int h0, const lm_mat *C0)
{
    const lm_ctx *c = &m->ctx;
    const int n = m->n;
    lm_mat *S = lm_mat_new(n, n, c), *uh = lm_mat_new(m->D, 1, c), *v = lm_mat_new(n, 1, c);
    lm_mat *mh = lm_mat_new(n, 1, c), *t = lm_mat_new(n, 1, c), *yi = lm_mat_new(n, 1, c);
    for (int h = 0; h < m->H; h++) {
        lm_mat_softmax_rows(S, h == h0 ? C0 : m->C[i * m->H + h]);
        lm_mat_get_block(uh, m->u, h * m->D, 0);
        lm_mat_mul(v, m->X[i], 0, uh, 0);
        lm_mat_mul(t, S, 0, v, 0);
        lm_mat_add(mh, mh, t);
    }
    lm_mat_get_block(yi, m->y, i * n, 0);
    lm_mat_sub(mh, mh, yi);
    lm_mat_frob(f, mh);
    lm_num_sqr(f, f);
    lm_num_mul_d(f, f, 0.5);
    lm_mat *ms[] = {S, uh, v, mh, t, yi};
    for (size_t q = 0; q < sizeof ms / sizeof *ms; q++) lm_mat_free(ms[q]);
}

/* central difference of a scalar function of one entry: returns (fp - fm)/(xp - xm) */
typedef struct {
    lm_num x, h, xp, xm, fp, fm, den;
} fd_ws;

static void fd_init(fd_ws *w, const lm_ctx *c)
{
    lm_num_inits(c, &w->x, &w->h, &w->xp, &w->xm, &w->fp, &w->fm, &w->den, (lm_num *)NULL);
}
static void fd_clear(fd_ws *w)
{
    lm_num_clears(&w->x, &w->h, &w->xp, &w->xm, &w->fp, &w->fm, &w->den, (lm_num *)NULL);
}

/* central differences of f over W^Q_h, W^K_h (HD x d stacked) and the dense W^V */
static void fd_weights(lm_mat *gQ, lm_mat *gK, lm_mat *gV, lm_mha *m, int pfd)
{
    fd_ws w;
    fd_init(&w, &m->ctx);
    double h0 = ldexp(1.0, -pfd / 3);
    for (int blk = 0; blk < 2 * m->H + 1; blk++) {
        lm_mat *W = blk < m->H ? m->Wq[blk] : blk < 2 * m->H ? m->Wk[blk - m->H] : m->Wv;
        lm_mat *G = blk < m->H ? gQ : blk < 2 * m->H ? gK : gV;
        int roff = blk < 2 * m->H ? (blk % m->H) * m->D : 0;
        for (int a = 0; a < W->r; a++)
            for (int b = 0; b < W->c; b++) {
                lm_mat_get(&w.x, W, a, b);
                lm_num_set_d(&w.h, h0 * fmax(1.0, fabs(lm_num_get_d(&w.x))));
                lm_num_add(&w.xp, &w.x, &w.h);
                lm_num_sub(&w.xm, &w.x, &w.h);
                lm_mat_set(W, a, b, &w.xp);
                lm_mha_forward(m);
                lm_num_set(&w.fp, &m->f);
                lm_mat_set(W, a, b, &w.xm);
                lm_mha_forward(m);
                lm_num_set(&w.fm, &m->f);
                lm_mat_set(W, a, b, &w.x);
                lm_num_sub(&w.fp, &w.fp, &w.fm);
                lm_num_sub(&w.den, &w.xp, &w.xm);
                lm_num_div(&w.fp, &w.fp, &w.den);
                lm_mat_set(G, roff + a, b, &w.fp);
            }
    }
    lm_mha_forward(m);
    fd_clear(&w);
}

/* central differences of f over every logit: G is Nn x Hn (row i*n+k, column h*n+j) */
static void fd_logits(lm_mat *G, lm_mha *m, int pfd)
{
    fd_ws w;
    fd_init(&w, &m->ctx);
    double h0 = ldexp(1.0, -pfd / 3);
    const int n = m->n;
    lm_mat *C0 = lm_mat_new(n, n, &m->ctx);
    for (int i = 0; i < m->N; i++)
        for (int h = 0; h < m->H; h++) {
            lm_mat_copy(C0, m->C[i * m->H + h]);
            for (int k = 0; k < n; k++)
                for (int j = 0; j < n; j++) {
                    lm_mat_get(&w.x, C0, k, j);
                    lm_num_set_d(&w.h, h0 * fmax(1.0, fabs(lm_num_get_d(&w.x))));
                    lm_num_add(&w.xp, &w.x, &w.h);
                    lm_num_sub(&w.xm, &w.x, &w.h);
                    lm_mat_set(C0, k, j, &w.xp);
                    sample_loss(&w.fp, m, i, h, C0);
                    lm_mat_set(C0, k, j, &w.xm);
                    sample_loss(&w.fm, m, i, h, C0);
                    lm_mat_set(C0, k, j, &w.x);
                    lm_num_sub(&w.fp, &w.fp, &w.fm);
                    lm_num_sub(&w.den, &w.xp, &w.xm);
                    lm_num_div(&w.fp, &w.fp, &w.den);
                    lm_mat_set(G, i * n + k, h * n + j, &w.fp);
                }
        }
    lm_mat_free(C0);
    fd_clear(&w);
}

/* natural scales (the formulas on absolute values): natG (Nn x Hn), natQ, natK
 * (HD x d), natV (HD x Hd) */
static void natural_scales(lm_mat *natG, lm_mat *natQ, lm_mat *natK, lm_mat *natV,
                           const lm_mha *m, const lm_num *cd)
{
    const lm_ctx *c = &m->ctx;
    const int N = m->N, n = m->n, H = m->H, D = m->D, d = m->d;
    lm_mat *aWv = lm_mat_new(H * D, H * d, c), *aWo = lm_mat_new(H * d, 1, c);
    lm_mat *au = lm_mat_new(H * D, 1, c), *auh = lm_mat_new(D, 1, c);
    lm_mat *aX = lm_mat_new(n, D, c), *av = lm_mat_new(n, H, c), *t = lm_mat_new(n, 1, c);
    lm_mat *rabs = lm_mat_new(N * n, 1, c), *ay = lm_mat_new(n, 1, c);
    lm_mat *Gabs = lm_mat_new(n, n, c), *nG = lm_mat_new(n, n, c), *col = lm_mat_new(n, 1, c);
    lm_mat *T1 = lm_mat_new(n, D, c), *T2 = lm_mat_new(D, D, c), *g = lm_mat_new(D, d, c);
    lm_mat *aW = lm_mat_new(D, d, c), *acc = lm_mat_new(D, d, c);
    lm_mat *aB = lm_mat_new(N * n, H * D, c), *SX = lm_mat_new(n, D, c);
    lm_mat *Btr = lm_mat_new(H * D, 1, c);
    lm_num a, b, s;
    lm_num_inits(c, &a, &b, &s, (lm_num *)NULL);
    absm(aWv, m->Wv);
    absm(aWo, m->Wo);
    lm_mat_mul(au, aWv, 0, aWo, 0);
    for (int i = 0; i < N; i++) {
        absm(aX, m->X[i]);
        lm_mat_get_block(ay, m->y, i * n, 0);
        absm(ay, ay);
        for (int h = 0; h < H; h++) {
            lm_mat_get_block(auh, au, h * D, 0);
            lm_mat_mul(t, aX, 0, auh, 0);
            lm_mat_set_block(av, 0, h, t);
            lm_mat_mul(col, m->S[i * H + h], 0, t, 0);
            lm_mat_add(ay, ay, col); /* r_abs accumulates in ay */
            lm_mat_mul(SX, m->S[i * H + h], 0, aX, 0);
            lm_mat_set_block(aB, i * n, h * D, SX);
        }
        lm_mat_set_block(rabs, i * n, 0, ay);
    }
    lm_mat_zero(natQ);
    lm_mat_zero(natK);
    for (int i = 0; i < N; i++) {
        absm(aX, m->X[i]);
        lm_mat_get_block(ay, rabs, i * n, 0);
        for (int h = 0; h < H; h++) {
            const lm_mat *S = m->S[i * H + h];
            lm_mat_get_block(t, av, 0, h);
            lm_mat_mul(Gabs, ay, 0, t, 1);
            for (int k = 0; k < n; k++) {
                lm_num_set_d(&s, 0.0);
                for (int p = 0; p < n; p++) {
                    lm_mat_get(&a, Gabs, k, p);
                    lm_mat_get(&b, S, k, p);
                    lm_num_fma(&s, &a, &b, &s);
                }
                for (int j = 0; j < n; j++) {
                    lm_mat_get(&a, Gabs, k, j);
                    lm_num_add(&a, &a, &s);
                    lm_mat_get(&b, S, k, j);
                    lm_num_mul(&a, &a, &b);
                    lm_mat_set(nG, k, j, &a);
                }
            }
            lm_mat_set_block(natG, i * n, h * n, nG);
            for (int which = 0; which < 2; which++) {
                lm_mat_mul(T1, nG, which, aX, 0);
                lm_mat_mul(T2, aX, 1, T1, 0);
                absm(aW, which ? m->Wq[h] : m->Wk[h]);
                lm_mat_mul(g, T2, 0, aW, 0);
                lm_mat_scale(g, g, cd);
                lm_mat *dst = which ? natK : natQ;
                lm_mat_get_block(acc, dst, h * D, 0);
                lm_mat_add(acc, acc, g);
                lm_mat_set_block(dst, h * D, 0, acc);
            }
        }
    }
    lm_mat_mul(Btr, aB, 1, rabs, 0);
    lm_mat_mul(natV, Btr, 0, aWo, 1);
    lm_num_clears(&a, &b, &s, (lm_num *)NULL);
    lm_mat *ms[] = {aWv, aWo, au, auh, aX, av, t, rabs, ay, Gabs, nG, col, T1, T2, g, aW, acc,
                    aB, SX, Btr};
    for (size_t q = 0; q < sizeof ms / sizeof *ms; q++) lm_mat_free(ms[q]);
}

static double log2_frob(const lm_mat *A)
{
    lm_ctx c = lm_mat_ctx(A);
    lm_num x;
    lm_num_init(&x, &c);
    lm_mat_frob(&x, A);
    double l = lm_num_log_abs_d(&x) / M_LN2;
    lm_num_clear(&x);
    return l;
}

/* one residual observation: ||F - R|| <= tau (||R|| + ||nat||), decided in the
 * working context w; when w is not the evaluation's context (a double pass that
 * had to be promoted to MPFR) the ratio is computed in w and compared with 1 */
static double obs_resid(lm_eval *ev, const lm_mat *F, const lm_mat *R, const lm_mat *nat,
                        double tau, const char *label)
{
    lm_ctx w = lm_mat_ctx(F);
    lm_mat *Dm = lm_mat_new(F->r, F->c, &w);
    lm_num a, b, t;
    lm_num_inits(&w, &a, &b, &t, (lm_num *)NULL);
    lm_mat_sub(Dm, F, R);
    lm_mat_frob(&a, Dm);
    lm_mat_frob(&b, R);
    lm_mat_frob(&t, nat);
    lm_num_add(&b, &b, &t);
    lm_num_div(&t, &a, &b);
    double rel = lm_num_get_d(&t);
    lm_num_mul_d(&b, &b, tau);
    if (w.backend == ev->ctx->backend && w.prec == ev->ctx->prec) {
        lm_obs_le(ev, -1, &a, &b, 0.0, "%s", label);
    } else {
        lm_num_div(&t, &a, &b);
        lm_obs_le_d(ev, -1, lm_num_get_d(&t), 1.0, 0.0, "%s [mpfr%ld: double overflows]", label,
                    (long)w.prec);
    }
    lm_num_clears(&a, &b, &t, (lm_num *)NULL);
    lm_mat_free(Dm);
    return rel;
}

/* ------------------------------------------------------------------ eval */

static int eval(lm_eval *ev)
{
    int rc = 0;
    lm_mha *m0 = build(ev);
    const int N = m0->N, n = m0->n, D = m0->D, d = m0->d, H = m0->H, Nn = N * n;
    lm_mha_forward(m0);
    const double cmax = max_abs_logit(m0);
    const int promote = ev->ctx->backend == LM_DOUBLE && cmax > 700.0;
    const double sign = lm_par(ev, "term2_sign"), pw = lm_par(ev, "inv_sqrt_d_power");
    const int kronN = lm_par_i(ev, "kron_I");
    lm_measure(ev, "max |C|", cmax);
    lm_measure(ev, "(2) with I_N dimensionally valid", n == 1);
    if (!lm_assume(ev, !kronN || n == 1,
                   "(2) with I_N: W^O (x) I_N has N = %d columns but MH - y has Nn = %d entries "
                   "(dimensionally invalid for n = %d > 1)",
                   N, Nn, n)) {
        lm_mha_free(m0);
        return 0;
    }
    if (ev->ctx->backend == LM_DOUBLE && !ev->searching) {
        /* mark the double evaluation of the literal (4) */
        int fin = 1;
        for (int i = 0; i < N; i++) {
            lm_mat *G = lm_mat_new(n, H * n, &m0->ctx);
            gamma_literal(G, m0, i, sign);
            fin &= lm_mat_isfinite(G);
            lm_mat_free(G);
        }
        lm_measure(ev, "literal (4) finite in double", fin);
        lm_measure(ev, "evaluated in mpfr256", promote);
    }
    lm_ctx w = promote ? lm_ctx_mpfr(256) : *ev->ctx;
    const int pw_bits = (int)w.prec;
    const double tau = lm_par(ev, "tol_scale") * pow(2.0, -pw_bits / 3.0);
    lm_mha *m = lm_mha_convert(m0, &w);
    lm_mha_free(m0);
    lm_mha_forward(m);
    if (!lm_num_isfinite(&m->f)) {
        lm_mha_free(m);
        return lm_fail(ev, "loss is not finite");
    }
    lm_num cd, cd1;
    lm_num_inits(&w, &cd, &cd1, (lm_num *)NULL);
    inv_sqrt_d(&cd, m, pw);
    inv_sqrt_d(&cd1, m, 1.0);
    /* literal formulas */
    lm_mat *Gam = lm_mat_new(Nn, H * n, &w), *Gi = lm_mat_new(n, H * n, &w);
    for (int i = 0; i < N; i++) {
        gamma_literal(Gi, m, i, sign);
        lm_mat_set_block(Gam, i * n, 0, Gi);
    }
    lm_mat *gQ = lm_mat_new(H * D, d, &w), *gK = lm_mat_new(H * D, d, &w);
    grads_qk_literal(gQ, gK, m, Gam, &cd);
    lm_mat *B = lm_mat_new(Nn, H * D, &w), *Btr = lm_mat_new(H * D, 1, &w);
    lm_mat *gV = lm_mat_new(H * D, H * d, &w);
    lm_mha_B(B, m);
    lm_mat_mul(Btr, B, 1, m->r, 0);
    lm_mat_mul(gV, Btr, 0, m->Wo, 1); /* (1) */
    /* (2): (I_Hd (x) B^T)(W^O (x) I_Nn) r and (W^O (x) B^T) r */
    lm_mat *Bt = lm_mat_new(H * D, Nn, &w), *IHd = lm_mat_new(H * d, H * d, &w);
    lm_mat *INn = lm_mat_new(Nn, Nn, &w);
    lm_mat *K1 = lm_mat_new(H * d * H * D, H * d * Nn, &w), *K2 = lm_mat_new(H * d * Nn, Nn, &w);
    lm_mat *K3 = lm_mat_new(H * d * H * D, Nn, &w);
    lm_mat *t2 = lm_mat_new(H * d * Nn, 1, &w), *v2a = lm_mat_new(H * d * H * D, 1, &w);
    lm_mat *v2b = lm_mat_new(H * d * H * D, 1, &w);
    lm_mat_transpose(Bt, B);
    lm_mat_set_identity(IHd);
    lm_mat_set_identity(INn);
    kron(K1, IHd, Bt);
    kron(K2, m->Wo, INn);
    kron(K3, m->Wo, Bt);
    lm_mat_mul(t2, K2, 0, m->r, 0);
    lm_mat_mul(v2a, K1, 0, t2, 0);
    lm_mat_mul(v2b, K3, 0, m->r, 0);
    /* stable S3 references */
    lm_mat *GamS = lm_mat_new(Nn, H * n, &w), *Gih = lm_mat_new(n, n, &w);
    for (int i = 0; i < N; i++)
        for (int h = 0; h < H; h++) {
            lm_mha_dfdC(Gih, m, i, h);
            lm_mat_set_block(GamS, i * n, h * n, Gih);
        }
    size_t Hs = (size_t)(H > 0 ? H : 1);
    lm_mat **sQ = calloc(Hs, sizeof *sQ), **sK = calloc(Hs, sizeof *sK);
    for (int h = 0; h < H; h++) {
        sQ[h] = lm_mat_new(D, d, &w);
        sK[h] = lm_mat_new(D, d, &w);
    }
    lm_mha_grad(m, sQ, sK, NULL);
    lm_mat *gQS = lm_mat_new(H * D, d, &w), *gKS = lm_mat_new(H * D, d, &w);
    for (int h = 0; h < H; h++) {
        lm_mat_set_block(gQS, h * D, 0, sQ[h]);
        lm_mat_set_block(gKS, h * D, 0, sK[h]);
    }
    /* natural scales */
    lm_mat *nG = lm_mat_new(Nn, H * n, &w), *nQ = lm_mat_new(H * D, d, &w),
           *nK = lm_mat_new(H * D, d, &w), *nV = lm_mat_new(H * D, H * d, &w);
    lm_mat *nVv = lm_mat_new(H * d * H * D, 1, &w), *gVv = lm_mat_new(H * d * H * D, 1, &w);
    natural_scales(nG, nQ, nK, nV, m, &cd1);
    vec(nVv, nV);
    vec(gVv, gV);
    const int checks_ok = lm_mat_isfinite(Gam) && lm_mat_isfinite(gQ) && lm_mat_isfinite(gK) &&
                          lm_mat_isfinite(gV) && lm_mat_isfinite(v2a) && lm_mat_isfinite(v2b);
    if (!checks_ok) {
        rc = lm_fail(ev, "a literal formula is not finite in %s (max |C| = %.4g)",
                     w.backend == LM_DOUBLE ? "double" : "MPFR", cmax);
    } else {
        double rel[9];
        int k = 0;
        rel[k++] = obs_resid(ev, Gam, GamS, nG, tau, "(4) dF/dC_i literal (E, Upsilon, exp C) vs S3");
        rel[k++] = obs_resid(ev, gQ, gQS, nQ, tau, "(3)+(5) dF/dW^Q literal vs S3");
        rel[k++] = obs_resid(ev, gK, gKS, nK, tau, "(3) dF/dW^K (symmetric) literal vs S3");
        rel[k++] = obs_resid(ev, v2a, gVv, nVv, tau,
                             kronN ? "(2) (I_Hd x B')(W^O x I_N) r vs vec (1) [n = 1]"
                                   : "(2) (I_Hd x B')(W^O x I_Nn) r vs vec (1)");
        int pfd = 0;
        if (!ev->searching) {
            /* precision of the differences: at least max(256, 2p), more when the
             * natural scale of a gradient is far below f (cancellation in
             * f(x+h) - f(x-h)) */
            double lf = lm_num_log_abs_d(&m->f) / M_LN2;
            double lnat = fmin(fmin(log2_frob(nG), log2_frob(nQ)), fmin(log2_frob(nK), log2_frob(nV)));
            double need = pw_bits / 2.0 + 64.0 + 1.5 * fmax(0.0, lf - lnat);
            pfd = 2 * pw_bits > 256 ? 2 * pw_bits : 256;
            if (need > pfd) pfd = (int)ceil(need);
            if (!lm_assume(ev, pfd <= LM_PREC_MAX,
                           "central differences would need %d > %d bits (gradients 2^%.0f of f)",
                           pfd, LM_PREC_MAX, lnat - lf))
                pfd = 0;
        }
        if (pfd > 0) {
            /* central differences in MPFR */
            lm_ctx fc = lm_ctx_mpfr(pfd);
            lm_mha *mf = lm_mha_convert(m, &fc);
            lm_mha_forward(mf);
            lm_mat *fQ = lm_mat_new(H * D, d, &fc), *fK = lm_mat_new(H * D, d, &fc),
                   *fV = lm_mat_new(H * D, H * d, &fc), *fG = lm_mat_new(Nn, H * n, &fc);
            fd_weights(fQ, fK, fV, mf, pfd);
            fd_logits(fG, mf, pfd);
            lm_mat *wQ = lm_mat_new(H * D, d, &w), *wK = lm_mat_new(H * D, d, &w),
                   *wV = lm_mat_new(H * D, H * d, &w), *wG = lm_mat_new(Nn, H * n, &w),
                   *wVv = lm_mat_new(H * d * H * D, 1, &w);
            lm_mat_copy(wQ, fQ);
            lm_mat_copy(wK, fK);
            lm_mat_copy(wV, fV);
            lm_mat_copy(wG, fG);
            vec(wVv, wV);
            rel[k++] = obs_resid(ev, Gam, wG, nG, tau, "(4) dF/dC_i literal vs central differences");
            rel[k++] = obs_resid(ev, gQ, wQ, nQ, tau, "(3)+(5) dF/dW^Q literal vs central differences");
            rel[k++] = obs_resid(ev, gK, wK, nK, tau, "(3) dF/dW^K literal vs central differences");
            rel[k++] = obs_resid(ev, gV, wV, nV, tau, "(1) dF/dW^V = B'r(W^O)' vs central differences");
            rel[k++] = obs_resid(ev, v2b, wVv, nVv, tau,
                                 "(2) <(W^O)' x B, vec(MH-y)> = (W^O x B')r vs central differences");
            static const char *const nm[9] = {
                "rel.res (4) vs S3", "rel.res (3) W^Q vs S3", "rel.res (3) W^K vs S3",
                "rel.res (2) vs vec(1)", "rel.res (4) vs FD", "rel.res (3) W^Q vs FD",
                "rel.res (3) W^K vs FD", "rel.res (1) vs FD", "rel.res (2) inner vs FD"};
            for (int q = 0; q < k; q++) lm_measure(ev, nm[q], rel[q]);
            lm_measure(ev, "tolerance tau", tau);
            lm_measure(ev, "FD precision (bits)", pfd);
            lm_measure(ev, "N", N);
            lm_measure(ev, "n", n);
            lm_measure(ev, "D", D);
            lm_measure(ev, "d", d);
            lm_measure(ev, "H", H);
            lm_mat *ms[] = {fQ, fK, fV, fG, wQ, wK, wV, wG, wVv};
            for (size_t q = 0; q < sizeof ms / sizeof *ms; q++) lm_mat_free(ms[q]);
            lm_mha_free(mf);
        }
    }
    for (int h = 0; h < H; h++) {
        lm_mat_free(sQ[h]);
        lm_mat_free(sK[h]);
    }
    free(sQ);
    free(sK);
    lm_mat *ms[] = {Gam, Gi, gQ, gK, B, Btr, gV, Bt, IHd, INn, K1, K2, K3, t2, v2a, v2b,
                    GamS, Gih, gQS, gKS, nG, nQ, nK, nV, nVv, gVv};
    for (size_t q = 0; q < sizeof ms / sizeof *ms; q++) lm_mat_free(ms[q]);
    lm_num_clears(&cd, &cd1, (lm_num *)NULL);
    lm_mha_free(m);
    return rc;
}

LM_CLAIM(claim_dynamics_lemma1) = {
    .id = "dynamics/lemma1",
    .title = "Closed-form gradients of the Softmax model",
    .file = __FILE__,
    .kind = LM_KIND_IDENTITY,
    .source = "Lemma 1, Appendix 1.2 (eqs. 27-31)",
    .origin = "verbatim",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .inst_scale = 1.0,
    .search_dim = 6,
    .eval = eval,
};
