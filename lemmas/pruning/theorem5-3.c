/* lemmas/pruning/theorem5-3.c
 *
 * \claim{pruning/theorem5.3}{Closed form of the gradient (informal version of Theorem C.5)}
 * \source{attention-pruning, Section 5, Theorem 5.3}
 * \statement{$\frac{\mathrm d\mathcal L(M)}{\mathrm dM}=W\circ\big(X^\top p(M)X\big)+\lambda M$, $p(M)=f(M)\circ c(M)-\mathrm{diag}\big((f(M)\circ c(M))\mathbf 1_n\big)f(M)$.}
 * \check{The same formula as Theorem C.5 in fewer configurations (the full protocol is \texttt{pruning/theoremC.5}), written here in the informal statement's form $p=f\circ c-\mathrm{diag}((f\circ c)\mathbf 1_n)f$, and compared entrywise with central differences of $\mathcal L$.  Every instance is rebuilt in IEEE double ($h=10^{-6}\max(1,|M_{i_0j_1}|)$), MPFR-128
 *   ($h=2^{-40}$) and MPFR-256 ($h=2^{-80}$), and on up to 4 random coordinates $(i_0,j_1)$ the
 *   observation is $\mathrm{res}_p=\big(\sum\|\mathrm{closed}-\mathrm{FD}\|_F^2\big)^{1/2}\le\tau_p
 *   =\texttt{tol\_scale}\cdot K\big(h_{\max}^2\,T\,\rho^3+u_p(D+\sqrt k\,\|F\|_F/h_p)\big)$, $K=4(n+d+4)^2$,
 *   where $\rho=2|W_{i_0j_1}|\max_j|X_{j,i_0}|\max_k|X_{k,j_1}|$ bounds the rate at which a logit row
 *   moves with $M_{i_0j_1}$, $T\rho^3$ bounds the third derivative of the map ($T=18n$), $u_p$ is the
 *   unit roundoff, $D$ the norm of the formula evaluated with absolute values (its natural scale)
 *   and $k$ the number of coordinates: the first term is the truncation error of the central
 *   difference, the second the rounding of the formula and of the quotient.  A precision whose
 *   $\tau_p$ exceeds $0.05D$ (saturated or huge logits in double) cannot tell a wrong formula and
 *   is promoted to MPFR: it is measured, not observed; MPFR-256 is always observed.  The residual
 *   must shrink: $\mathrm{res}_{256}\le\max(2^{-60}\mathrm{res}_{53},\tau_{256})$.  The report
 *   shows $\log_{10}$ of the relative residual $\mathrm{res}_p/D$ per precision.  Instances cycle
 *   through families (i)--(iv) of $X$ and $W$, $n\in\{5, 3\}$, $d\in\{3, 2\}$, $R\in\{1.5, 2.0\}$, $\lambda\in\{10^{-3},0.5\}$
 *   and the masks $U[0,1]$, corners, $\mathbf 1$, $0$ and off-domain $U[-1,2]$; configurations full
 *   and causal support.  Wrong variants that must come out violated: \texttt{scale}$\ne1$
 *   multiplies the closed form, and the four mutation canaries of the catalogue (\texttt{mutation}$=$p-transpose: $p\to p^\top$; drop-p2; double-lambda: $\lambda\to2\lambda$; W-transpose: $W\to W^\top$).  Edge identities (every 4-th instance, in the runner's precision): $\nabla\mathcal L(\mathbf 1)=\lambda\mathbf 1$ and $n=1\Rightarrow\nabla\mathcal L=\lambda M$ with the closed form, to $4u\lambda\|M\|_F$ (they are exact: $c=0$ entrywise).}
 */
#include "lm_prfd.h"
#include <math.h>

static const char *const configs[] = {"full", "causal", NULL};
static const lm_param_def params[] = {
    {"tol_scale", 1.0, "multiplies the tolerance tau_p (truncation + rounding)", NULL},
    {"scale", 1.0, "coefficient on the closed form (1 as stated; other values: a wrong formula)", NULL},
    {"mutation", 0, "the stated formula, or a mutation canary: p -> p^T, p2 dropped, lambda -> 2 lambda, W -> W^T", "none|p-transpose|drop-p2|double-lambda|W-transpose"},
    {NULL, 0, NULL, NULL}};

static const int NS[] = {5, 3};
static const int DS[] = {3, 2};
static const double RS[] = {1.5, 2.0};
static const double LAMS[] = {1e-3, 0.5};

/* X_{j,i} W_{i,j1}: the chain factor of every row formula */
static void xw(lm_num *r, const lm_prdata *P, int j, int i, int j1)
{
    lm_num w;
    lm_num_init(&w, &P->ctx);
    lm_mat_get(r, P->X, j, i);
    lm_mat_get(&w, P->W, i, j1);
    lm_num_mul(r, r, &w);
    lm_num_clear(&w);
}

#define NCOORD 4
#define EDGE_EVERY 4

static int value(lm_mat *out, const lm_prdata *P, const lm_mat *M, void *arg)
{
    (void)arg;
    (void)xw; /* the matrix form needs no entrywise chain factor */
    lm_prfwd *F = lm_pr_fwd_new(P);
    int rc = lm_pr_forward(F, P, M);
    lm_mat_set(out, 0, 0, &F->L);
    lm_pr_fwd_free(F);
    return rc;
}

enum { MU_NONE = 0, MU_PT, MU_DROP_P2, MU_2LAMBDA, MU_WT };

/* the closed form W o (X^T p X) + lambda M, p = f o c - diag((f o c) 1_n) f, and its
 * absolute-value version |W| o (|X|^T (|p1| + |p2|) |X|) + lambda |M| (G or A may be NULL) */
static void closed(lm_mat *G, lm_mat *A, const lm_prdata *P, const lm_mat *M, int mu)
{
    const lm_ctx *c = &P->ctx;
    int n = P->n, d = P->d;
    lm_prfwd *F = lm_pr_fwd_new(P);
    lm_pr_forward(F, P, M);
    lm_mat *p1 = lm_mat_new(n, n, c), *p2 = lm_mat_new(n, n, c), *p = lm_mat_new(n, n, c);
    lm_mat *pt = lm_mat_new(n, n, c), *XtP = lm_mat_new(d, n, c), *XtPX = lm_mat_new(d, d, c);
    lm_mat *Wu = lm_mat_dup(P->W), *Xa = lm_mat_dup(P->X), *Ma = lm_mat_dup(M);
    lm_num r, v;
    lm_num_inits(c, &r, &v, (lm_num *)NULL);
    lm_mat_hadamard(p1, F->f, F->c); /* p1 = f o c */
    for (int i = 0; i < n; i++) {    /* p2 = diag(p1 1_n) f */
        lm_num_set_d(&r, 0.0);
        for (int j = 0; j < n; j++) {
            lm_mat_get(&v, p1, i, j);
            lm_num_add(&r, &r, &v);
        }
        for (int j = 0; j < n; j++) {
            lm_mat_get(&v, F->f, i, j);
            lm_num_mul(&v, &v, &r);
            lm_mat_set(p2, i, j, &v);
        }
    }
    if (mu == MU_DROP_P2) lm_mat_zero(p2);
    lm_mat_sub(p, p1, p2);
    if (mu == MU_PT) {
        lm_mat_transpose(pt, p);
        lm_mat_copy(p, pt);
    }
    if (mu == MU_WT) lm_mat_transpose(Wu, P->W);
    double lam = mu == MU_2LAMBDA ? 2.0 * P->lambda : P->lambda;
    if (G) {
        lm_mat_mul(XtP, P->X, 1, p, 0);
        lm_mat_mul(XtPX, XtP, 0, P->X, 0);
        lm_mat_hadamard(G, Wu, XtPX);
        lm_mat_axpy_d(G, lam, M);
    }
    if (A) { /* natural scale */
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                lm_mat_get(&r, p1, i, j);
                lm_num_abs(&r, &r);
                lm_mat_get(&v, p2, i, j);
                lm_num_abs(&v, &v);
                lm_num_add(&r, &r, &v);
                lm_mat_set(p, i, j, &r);
            }
        for (int i = 0; i < n; i++)
            for (int j = 0; j < d; j++) {
                lm_mat_get(&r, P->X, i, j);
                lm_num_abs(&r, &r);
                lm_mat_set(Xa, i, j, &r);
            }
        for (int i = 0; i < d; i++)
            for (int j = 0; j < d; j++) {
                lm_mat_get(&r, Wu, i, j);
                lm_num_abs(&r, &r);
                lm_mat_set(Wu, i, j, &r);
                lm_mat_get(&r, M, i, j);
                lm_num_abs(&r, &r);
                lm_mat_set(Ma, i, j, &r);
            }
        lm_mat_mul(XtP, Xa, 1, p, 0);
        lm_mat_mul(XtPX, XtP, 0, Xa, 0);
        lm_mat_hadamard(A, Wu, XtPX);
        lm_mat_axpy_d(A, fabs(lam), Ma);
    }
    lm_num_clears(&r, &v, (lm_num *)NULL);
    lm_mat_free(p1); lm_mat_free(p2); lm_mat_free(p); lm_mat_free(pt); lm_mat_free(XtP);
    lm_mat_free(XtPX); lm_mat_free(Wu); lm_mat_free(Xa); lm_mat_free(Ma);
    lm_pr_fwd_free(F);
}

static int deriv(lm_mat *D, lm_mat *A, const lm_prdata *P, const lm_mat *M, int a, int b, void *arg)
{
    int mu = *(const int *)arg;
    lm_mat *G = lm_mat_new(P->d, P->d, &P->ctx), *Ga = lm_mat_new(P->d, P->d, &P->ctx);
    lm_num t;
    lm_num_init(&t, &P->ctx);
    closed(G, A ? Ga : NULL, P, M, mu);
    lm_mat_get(&t, G, a, b);
    lm_mat_set(D, 0, 0, &t);
    if (A) {
        lm_mat_get(&t, Ga, a, b);
        lm_mat_set(A, 0, 0, &t);
    }
    lm_num_clear(&t);
    lm_mat_free(G);
    lm_mat_free(Ga);
    return 0;
}

/* edge identities in the runner's precision: grad L(1) = lambda 1, and n = 1 => grad L = lambda M
 * (both exact: c = 0 entrywise, so the tolerance is a few units of rounding of lambda M) */
static void edges(lm_eval *ev, int index, int causal, int mu, double tol_scale)
{
    lm_rng *g = lm_eval_rng(ev);
    lm_prfd_plan pl;
    lm_prfd_plan_grid(&pl, index, NS, (int)(sizeof NS / sizeof NS[0]), DS, (int)(sizeof DS / sizeof DS[0]),
                      RS, (int)(sizeof RS / sizeof RS[0]), LAMS, (int)(sizeof LAMS / sizeof LAMS[0]), causal);
    for (int e = 0; e < 2; e++) {
        lm_prfd_plan q = pl;
        if (e == 0) q.mk = LM_PR_M_ONES;
        else q.n = 1;
        lm_mat *M0;
        lm_prdata *P0 = lm_prfd_build(&q, g, &M0);
        lm_prdata *P = lm_pr_convert(P0, ev->ctx);
        lm_mat *M = lm_mat_new(q.d, q.d, ev->ctx), *G = lm_mat_new(q.d, q.d, ev->ctx);
        lm_num x, y;
        lm_num_inits(ev->ctx, &x, &y, (lm_num *)NULL);
        lm_mat_copy(M, M0);
        closed(G, NULL, P, M, mu);
        lm_mat_frob(&y, M);
        lm_num_mul_d(&y, &y, q.lambda);
        lm_mat_axpy_d(G, -q.lambda, M);
        lm_mat_frob(&x, G);
        lm_num_mul_d(&y, &y, tol_scale * 4.0 * lm_ctx_eps(ev->ctx));
        lm_num_add_d(&y, &y, 1e-300); /* M = 0 or lambda = 0: only an exact 0 passes */
        lm_obs_le(ev, -1, &x, &y, 0.0, "%s: ||closed - lambda M||_F <= 4u lambda ||M||_F (lambda=%g, d=%d)",
                  e == 0 ? "edge grad L(1) = lambda 1" : "edge n = 1: grad L = lambda M", q.lambda, q.d);
        lm_num_clears(&x, &y, (lm_num *)NULL);
        lm_mat_free(M); lm_mat_free(G); lm_mat_free(M0);
        lm_pr_free(P); lm_pr_free(P0);
    }
}

static int eval(lm_eval *ev)
{
    lm_prfd_grid gr = {NS, (int)(sizeof NS / sizeof NS[0]), DS, (int)(sizeof DS / sizeof DS[0]), RS,
                       (int)(sizeof RS / sizeof RS[0]), LAMS, (int)(sizeof LAMS / sizeof LAMS[0])};
    static int mu;
    mu = lm_par_i(ev, "mutation");
    double ts = lm_par(ev, "tol_scale");
    lm_prfd_spec S = {.what = "grad L", .value = value, .deriv = deriv, .arg = &mu, .T3 = 0.0,
                      .T3n = 18.0, .tol_scale = ts, .scale = lm_par(ev, "scale")};
    int n = NS[(ev->index / 3) % gr.nn], d = DS[(ev->index / 2) % gr.nd];
    S.K = 4.0 * (n + d + 4) * (n + d + 4);
    int rc = lm_prfd_eval_model(ev, &S, LM_PRFD_SCALAR, &gr, NCOORD);
    if (rc) return rc;
    if (ev->index % EDGE_EVERY == 0) edges(ev, ev->index, ev->config == 1, mu, ts);
    return 0;
}

LM_CLAIM(claim_pruning_theorem5_3) = {
    .id = "pruning/theorem5.3",
    .title = "Closed form of the gradient (informal version of Theorem C.5)",
    .file = __FILE__,
    .kind = LM_KIND_IDENTITY,
    .source = "Section 5, Theorem 5.3",
    .origin = "reconstructed",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .inst_scale = 0.125,
    .eval = eval,
};
