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
 *   exist to show that the check fails for a wrong formula.
 *   \emph{Readings.}  All four configurations read the paper.  \texttt{(2) as printed: I\_N} is
 *   \texttt{kron\_I}$=$\texttt{N} on the sizes with $n>1$, where $W^O\otimes\mathbb I_N$ has $N$ columns
 *   and $r$ has $Nn$ entries, so every instance is \emph{assumption-failed} (``unsatisfiable as
 *   printed''), never a pass, and the claim's verdict is that.  \texttt{random}, \texttt{saturated} and
 *   \texttt{near-tied} check (1), (3)--(5) and the inner-product form of (2) as printed, and the
 *   Kronecker form of (2) with $\mathbb I_{Nn}$, the catalogue's reconstruction of the printed $\mathbb I_N$;
 *   their verdicts are shown beside.}
 */
#include "lm_claim.h"
#include "lm_gradcheck.h"
#include "lm_mha.h"
#include <math.h>

static const char *const configs[] = {"random", "saturated", "near-tied", "(2) as printed: I_N", NULL};
static const lm_reading readings[] = {
    {LM_READ_PAPER, "(1), (3)-(5) and the inner-product form of (2) as printed; (2)'s Kronecker form with I_Nn, "
                    "the catalogue's reconstruction (the printed I_N is judged in '(2) as printed: I_N')", NULL},
    {LM_READ_PAPER, "as 'random', saturated softmax (max |C| = sat_logit)", NULL},
    {LM_READ_PAPER, "as 'random', near-tied logits", NULL},
    {LM_READ_PAPER, "(2)'s Kronecker form with the printed I_N, on the sizes with n > 1: dimensionally invalid", "kron_I=N"},
    LM_READINGS_END};

#define PARAMS(NUM, SWITCH)                                                                                        \
    NUM(tol_scale, 1.0, "setting [0, inf)", "multiplies the residual tolerance 2^(-p/3)")                          \
    NUM(inv_sqrt_d_power, 1.0, "exponent [-10, 10]", "exponent of d^(-1/2) in (3) (1 = paper; 0 drops 1/sqrt(d))") \
    NUM(term2_sign, 1.0, "constant [-1, 1]", "sign of the subtracted second term of (4) (1 = paper)")              \
    SWITCH(kron_I, 0, "Nn|N", "identity in (2): Nn (dimensionally valid) or N (as printed)")                       \
    NUM(wv_offdiag, 0, "int [0, 1]", "1: W^V gets off-diagonal blocks (dense-mode iterate)")                       \
    NUM(sat_logit, 50.0, "[0, 1e6]", "max |C| of the saturated configuration")                                     \
    NUM(tie_logit, 30.0, "[0, 1e6]", "max |C| of the near-tied configuration")
LM_PARAMS(PARAMS)

/* (N, n, D, d, H): the sizes of S7 plus H = 3 and n = 1 */
static const int sizes[][5] = {{2, 2, 4, 2, 1}, {2, 2, 5, 2, 1}, {2, 3, 4, 2, 2},
                               {1, 3, 2, 1, 2}, {1, 2, 2, 2, 1}, {1, 3, 3, 3, 1},
                               {2, 2, 3, 2, 3}, {2, 1, 2, 1, 1}, {1, 3, 2, 2, 3}};
#define NSIZES ((int)(sizeof sizes / sizeof *sizes))
/* the sizes with n > 1 */
static const int nbig[] = {0, 1, 2, 3, 4, 5, 6, 8};
#define NBIG ((int)(sizeof nbig / sizeof *nbig))

/* ------------------------------------------------------------------ helpers */

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
    const lm_params prm = lm_params_of(ev);
    lm_rng *g = lm_eval_rng(ev);
    /* the printed-(2) configuration: only the sizes with n > 1, where I_N is at stake */
    const int *z = ev->config == 3 ? sizes[nbig[ev->index % NBIG]] : sizes[ev->index % NSIZES];
    const int N = z[0], n = z[1], D = z[2], d = z[3], H = z[4];
    lm_ctx dbl = lm_ctx_double();
    lm_mha *m = lm_mha_new(N, n, D, d, H, LM_SOFTMAX, LM_WV_DENSE, &dbl);
    double lq = 2.0 * lm_rng_uniform(g) - 1.0, lv = 2.0 * lm_rng_uniform(g) - 1.0,
           lo = 2.0 * lm_rng_uniform(g) - 1.0;
    lm_mha_randomize(m, g, 1.0, pow(10.0, lq), pow(10.0, lv), pow(10.0, lo));
    int off = lm_int(prm.wv_offdiag);
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
    if (ev->config == 1) set_logit_scale(m, prm.sat_logit);
    if (ev->config == 2) set_logit_scale(m, prm.tie_logit);
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
    const int n = m->n, H = m->H, Hn = H * n;
    lm_mat *R = lm_mat_new(n, Hn, c);
    lm_gc_Ri(R, m, i); /* R_i = r_i (W^O)^T (V'_i)^T */
    lm_mat *Ci = lm_mat_new(n, Hn, c), *Si = lm_mat_new(n, Hn, c), *eC = lm_mat_new(n, Hn, c);
    lm_gc_heads(Ci, m->C, H, i);
    lm_gc_heads(Si, m->S, H, i);
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
    lm_mat *ms[] = {R, Ci, Si, eC, EE, Z, U, T2};
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

/* ------------------------------------------------------- natural scales */

/* (3) on absolute values: natQ, natK (HD x d) from natG, the natural scale of
 * dF/dC (Nn x Hn): sum_i c |X_i|^T natG_ih^(T) |X_i| |W^{K,Q}_h| */
static void natural_scales_qk(lm_mat *natQ, lm_mat *natK, const lm_mha *m, const lm_mat *natG,
                              const lm_num *cd)
{
    const lm_ctx *c = &m->ctx;
    const int N = m->N, n = m->n, H = m->H, D = m->D, d = m->d;
    lm_mat *aX = lm_mat_new(n, D, c), *nG = lm_mat_new(n, n, c);
    lm_mat *T1 = lm_mat_new(n, D, c), *T2 = lm_mat_new(D, D, c), *g = lm_mat_new(D, d, c);
    lm_mat *aW = lm_mat_new(D, d, c), *acc = lm_mat_new(D, d, c);
    lm_mat_zero(natQ);
    lm_mat_zero(natK);
    for (int i = 0; i < N; i++) {
        lm_gc_absm(aX, m->X[i]);
        for (int h = 0; h < H; h++) {
            lm_mat_get_block(nG, natG, i * n, h * n);
            for (int which = 0; which < 2; which++) {
                lm_mat_mul(T1, nG, which, aX, 0);
                lm_mat_mul(T2, aX, 1, T1, 0);
                lm_gc_absm(aW, which ? m->Wq[h] : m->Wk[h]);
                lm_mat_mul(g, T2, 0, aW, 0);
                lm_mat_scale(g, g, cd);
                lm_mat *dst = which ? natK : natQ;
                lm_mat_get_block(acc, dst, h * D, 0);
                lm_mat_add(acc, acc, g);
                lm_mat_set_block(dst, h * D, 0, acc);
            }
        }
    }
    lm_mat *ms[] = {aX, nG, T1, T2, g, aW, acc};
    for (size_t q = 0; q < sizeof ms / sizeof *ms; q++) lm_mat_free(ms[q]);
}

/* ------------------------------------------------------------------ eval */

static int eval(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    int rc = 0;
    lm_mha *m0 = build(ev);
    const int N = m0->N, n = m0->n, D = m0->D, d = m0->d, H = m0->H, Nn = N * n;
    lm_mha_forward(m0);
    const double cmax = max_abs_logit(m0);
    const int promote = ev->ctx->backend == LM_DOUBLE && cmax > 700.0;
    const double sign = prm.term2_sign, pw = prm.inv_sqrt_d_power;
    const int kronN = lm_int(prm.kron_I);
    lm_measure(ev, "max |C|", cmax);
    lm_measure(ev, "(2) with I_N dimensionally valid", n == 1);
    if (!lm_assume(ev, !kronN || n == 1,
                   "unsatisfiable as printed: in (2), W^O (x) I_N has N = %d columns but MH - y has Nn = %d entries "
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
    /* the working precision: double, or MPFR when exp C overflows in double */
    lm_gc_check gc;
    if (lm_gc_begin(&gc, ev, m0, promote, prm.tol_scale, "double overflows"))
        return lm_fail(ev, "loss is not finite");
    lm_mha *m = gc.m;
    const lm_ctx w = gc.w;
    lm_num cd, cd1;
    lm_num_inits(&w, &cd, &cd1, (lm_num *)NULL);
    inv_sqrt_d(&cd, m, pw);
    inv_sqrt_d(&cd1, m, 1.0);
    /* literal formulas: (4), (3) with (5), (1), (2) */
    lm_mat *Gam = lm_mat_new(Nn, H * n, &w), *Gi = lm_mat_new(n, H * n, &w);
    for (int i = 0; i < N; i++) {
        gamma_literal(Gi, m, i, sign);
        lm_mat_set_block(Gam, i * n, 0, Gi);
    }
    lm_mat *gQ = lm_mat_new(H * D, d, &w), *gK = lm_mat_new(H * D, d, &w);
    grads_qk_literal(gQ, gK, m, Gam, &cd);
    lm_mat *gV = lm_mat_new(H * D, H * d, &w);
    lm_mat *v2a = lm_mat_new(H * d * H * D, 1, &w), *v2b = lm_mat_new(H * d * H * D, 1, &w);
    lm_gc_wv_literal(gV, v2a, v2b, m);
    /* stable S3 references */
    lm_mat *GamS = lm_mat_new(Nn, H * n, &w);
    lm_mat *gQS = lm_mat_new(H * D, d, &w), *gKS = lm_mat_new(H * D, d, &w);
    lm_gc_dfdC_s3(GamS, m);
    lm_gc_grad_s3(gQS, gKS, m);
    /* natural scales */
    lm_mat *nG = lm_mat_new(Nn, H * n, &w), *nQ = lm_mat_new(H * D, d, &w),
           *nK = lm_mat_new(H * D, d, &w), *nV = lm_mat_new(H * D, H * d, &w);
    lm_mat *nVv = lm_mat_new(H * d * H * D, 1, &w), *gVv = lm_mat_new(H * d * H * D, 1, &w);
    /* the scale of dF/dC_ih uses each sample's own |X_i||u_h| */
    lm_gc_natural_scales(nG, nV, m);
    natural_scales_qk(nQ, nK, m, nG, &cd1);
    lm_gc_vec(nVv, nV, 0);
    lm_gc_vec(gVv, gV, 0);
    const int checks_ok = lm_mat_isfinite(Gam) && lm_mat_isfinite(gQ) && lm_mat_isfinite(gK) &&
                          lm_mat_isfinite(gV) && lm_mat_isfinite(v2a) && lm_mat_isfinite(v2b);
    if (!checks_ok) {
        rc = lm_fail(ev, "a literal formula is not finite in %s (max |C| = %.4g)",
                     w.backend == LM_DOUBLE ? "double" : "MPFR", cmax);
    } else {
        lm_gc_resid(&gc, Gam, GamS, nG, "(4) dF/dC_i literal (E, Upsilon, exp C) vs S3");
        lm_gc_resid(&gc, gQ, gQS, nQ, "(3)+(5) dF/dW^Q literal vs S3");
        lm_gc_resid(&gc, gK, gKS, nK, "(3) dF/dW^K (symmetric) literal vs S3");
        lm_gc_resid(&gc, v2a, gVv, nVv,
                    kronN ? "(2) (I_Hd x B')(W^O x I_N) r vs vec (1) [n = 1]"
                          : "(2) (I_Hd x B')(W^O x I_Nn) r vs vec (1)");
        /* central differences in MPFR, at a precision that keeps the
         * cancellation in f(x+h) - f(x-h) below the tolerance */
        const int pfd = lm_gc_fd_prec(&gc, (const lm_mat *const[]){nG, nQ, nK, nV, NULL});
        if (pfd > 0) {
            lm_mat *wQ = lm_mat_new(H * D, d, &w), *wK = lm_mat_new(H * D, d, &w),
                   *wV = lm_mat_new(H * D, H * d, &w), *wG = lm_mat_new(Nn, H * n, &w),
                   *wVv = lm_mat_new(H * d * H * D, 1, &w);
            lm_gc_fd_refs(wQ, wK, wV, wG, NULL, m, pfd);
            lm_gc_vec(wVv, wV, 0);
            lm_gc_resid(&gc, Gam, wG, nG, "(4) dF/dC_i literal vs central differences");
            lm_gc_resid(&gc, gQ, wQ, nQ, "(3)+(5) dF/dW^Q literal vs central differences");
            lm_gc_resid(&gc, gK, wK, nK, "(3) dF/dW^K literal vs central differences");
            lm_gc_resid(&gc, gV, wV, nV, "(1) dF/dW^V = B'r(W^O)' vs central differences");
            lm_gc_resid(&gc, v2b, wVv, nVv,
                        "(2) <(W^O)' x B, vec(MH-y)> = (W^O x B')r vs central differences");
            static const char *const nm[] = {
                "rel.res (4) vs S3", "rel.res (3) W^Q vs S3", "rel.res (3) W^K vs S3",
                "rel.res (2) vs vec(1)", "rel.res (4) vs FD", "rel.res (3) W^Q vs FD",
                "rel.res (3) W^K vs FD", "rel.res (1) vs FD", "rel.res (2) inner vs FD", NULL};
            lm_gc_measures(&gc, nm, pfd);
            lm_mat *ms[] = {wQ, wK, wV, wG, wVv};
            for (size_t q = 0; q < sizeof ms / sizeof *ms; q++) lm_mat_free(ms[q]);
        }
    }
    lm_mat *ms[] = {Gam, Gi, gQ, gK, gV, v2a, v2b, GamS, gQS, gKS, nG, nQ, nK, nV, nVv, gVv};
    for (size_t q = 0; q < sizeof ms / sizeof *ms; q++) lm_mat_free(ms[q]);
    lm_num_clears(&cd, &cd1, (lm_num *)NULL);
    lm_gc_end(&gc);
    return rc;
}

LM_CLAIM(claim_dynamics_lemma1) = {
    .kind = LM_KIND_IDENTITY,
    .source = "Lemma 1, Appendix 1.2 (eqs. 27-31)",
    .origin = "verbatim",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 1.0,
    .search_dim = 6,
    .eval = eval,
};
