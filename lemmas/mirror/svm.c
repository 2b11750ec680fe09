/* lemmas/mirror/svm.c
 *
 * \claim{mirror/svm}{The $\ell_p$-AttSVM: duality, KKT, closed forms and the max-margin property}
 * \source{mirror-descent-attention, problem ($\ell_p$-AttSVM) (main text, Section 3); authors' \texttt{att\_svm.py}}
 * \statement{$W^\alpha_{mm}:=\arg\min_W\|W\|_p$ s.t.\ $(x_{i\alpha_i}-x_{it})^\top Wz_i\ge1$ for all
 *   $t\ne\alpha_i$, $i\in[n]$ ($A_k:=(x_{i\alpha_i}-x_{it})z_i^\top$), unique when feasible
 *   ($1<p<\infty$).  Strong duality: $\frac1p\|W_{mm}\|_p^p=\max_{\lambda\ge0}\Phi(\lambda)$,
 *   $\Phi(\lambda)=\sum_k\lambda_k-\frac1q\|\sum_k\lambda_kA_k\|_q^q$, $W_{mm}=\nabla\psi^*(\sum_k\lambda^*_kA_k)$,
 *   and $\|W_{mm}\|_p^p=\sum_k\lambda^*_k$.  Equivalently $W_{mm}/\|W_{mm}\|_p$ maximises the
 *   normalised margin: $\min_k\langle U,A_k\rangle/\|U\|_p\le1/\|W_{mm}\|_p$ for every $U\ne0$.}
 * \check{The solver of the core (dual coordinate ascent in double, Newton on the active set in the
 *   working precision) is run in the working precision and its output $(\lambda,W)$ is checked
 *   independently, with the constraint matrices rebuilt here from the data: (i) primal
 *   feasibility $1-\min_k\langle W,A_k\rangle\le\tau$; (ii) duality gap
 *   $|\psi(W/\min_k\langle W,A_k\rangle)-\Phi(\lambda)|\le\tau\max(1,\sum\lambda)$; (iii) KKT
 *   stationarity $\max|\nabla\psi(W)-\sum_k\lambda_kA_k|\le\tau\max|\sum_k\lambda_kA_k|$, dual
 *   feasibility $\lambda\ge0$ and complementary slackness
 *   $\max_k|\lambda_k(\langle W,A_k\rangle-1)|\le\tau\max(1,\max\lambda)$; (iv)
 *   $|\|W\|_p^p-\sum_k\lambda_k|\le\tau\sum_k\lambda_k$; (v) closed forms (configuration
 *   \texttt{closed-form}): I1 ($n=1$, $x_t=e_t$, $d=T\in\{2,3,4,6\}$, $z=e_1$, $\alpha=1$):
 *   column 1 of $W_{mm}$ is $(a,a-1,\dots,a-1)$ with $a=c/(1+c)$, $c=(T-1)^{1/(p-1)}$, zeros
 *   elsewhere; I2 (tokens $e_1,e_2,e_3,-e_1$): the same with $c=2^{1/(p-1)}$ (the token $-e_1$
 *   is a non-support); compared entrywise within $\tau$; (vi) the max-margin property, made
 *   rigorous with the dual certificate: weak duality gives $\|W^\star\|_p^p\ge p\,\Phi(\lambda)$,
 *   so every $U$ must satisfy $\min_k\langle U,A_k\rangle/\|U\|_p\le(p\Phi(\lambda))^{-1/p}$
 *   (times \texttt{margin\_scale}), with a rounding allowance $64d^2\epsilon$; it is tested at
 *   $U=\bar W_{mm}+\rho E$ for random unit-$\ell_p$ $E$, $\rho\in\{10^{-1},\dots,10^{-4}\}$, and the
 *   adversarial search (configuration \texttt{paper(3,4,4)}) moves
 *   $U=\bar W_{mm}+10^{-3}(E_0+\sum_{k\le6}x_kB_k)$ over six random directions $B_k$ to maximise
 *   the normalised margin.  The tolerance is $\tau=$\texttt{tol\_scale}$\cdot2^{-0.75p_w}$ in a
 *   working precision of $p_w$ bits ($1.1\cdot10^{-12}$ in double, $1.6\cdot10^{-58}$ at 256
 *   bits, below the catalogue's $10^{-30}$); a break in double is re-solved and re-checked in
 *   MPFR.  Grids of $p$: closed forms $\{1.25,1.5,2,3,6\}$; \texttt{paper(3,4,4)} (the paper's
 *   generator, $\alpha=\arg\max\gamma$) $\{1.25,1.5,1.75,2,3\}$; \texttt{paper(6,8,10)} (the
 *   paper's experiment size) $\{1.75,2\}$.  The catalogue's $p=1.01$ is left out of the default
 *   grid because the core solver cannot certify it: on I1 ($T=4$) the double phase does not
 *   overflow but stops at the sweep cap and the Newton polish meets a Jacobian that is rank one
 *   plus $10^{-47}$ (gap $4\cdot10^{-5}$ even at 256 bits); $p=1.05$ and $1.1$ on I1 and
 *   $p\ge4$ on random data are likewise reported as not converged (at $p=6$, 7 of 10 random
 *   $(3,4,4)$ sets, seconds each).  \texttt{p\_override} runs any $p$ (a failed solve is an
 *   \emph{error}).  Wrong-constant tests: \texttt{closed\_scale} $=1.1$ (multiplies the exponent
 *   $1/(p-1)$ of the closed form) and \texttt{margin\_scale} $=0.99$ must come out violated.  Readings: every configuration is a \texttt{paper} reading (the statement as the catalogue reconstructs it).}
 */
#include "lm_claim.h"
#include "lm_md.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const configs[] = {"closed-form", "paper(3,4,4)", "paper(6,8,10)", NULL};
/* one reading per configuration (issue 16) */
static const lm_reading readings[] = {
    {LM_READ_PAPER, "Closed-form instances I1 (x_t = e_t, T = 2..6) and I2 (tokens "
                    "e_1,e_2,e_3,-e_1), p in {1.25,1.5,2,3,6}: solver output against the exact "
                    "W_mm, plus duality and KKT.", NULL},
    {LM_READ_PAPER, "Paper generator at (n,T,d) = (3,4,4), alpha = argmax gamma, p in "
                    "{1.25,1.5,1.75,2,3}: feasibility, duality gap, KKT and the max-margin "
                    "property under search.", NULL},
    {LM_READ_PAPER, "Paper generator at the paper's experiment size (6,8,10), p in {1.75,2}: "
                    "feasibility, duality gap, KKT, norm identity and the max-margin property.",
     NULL},
    LM_READINGS_END};


#define PARAMS(NUM, SWITCH)                                                                                   \
    NUM(margin_scale, 1.0, "[0, 1e6]", "multiplies the max-margin bound (p Phi(lambda))^(-1/p)")              \
    NUM(closed_scale, 1.0, "[0, 1e6]", "multiplies the exponent 1/(p-1) in the closed forms of I1/I2")        \
    NUM(tol_scale, 1.0, "[0, inf)", "multiplies tau = 2^(-0.75 prec)")                                        \
    NUM(p_override, 0.0, "[0, 64]", "0: the configuration's grid of p; else this p (> 1) for every instance")
LM_PARAMS(PARAMS)

static const double P_CF[] = {1.25, 1.5, 2.0, 3.0, 6.0};
static const double P_344[] = {1.25, 1.5, 1.75, 2.0, 3.0};
static const double P_6810[] = {1.75, 2.0};

static int search_here(int cfg) { return cfg == 1; }

/* the constraint matrices of D->alpha in the order of lm_md_svm */
static lm_mat **build_A(const lm_mddata *D, int m, const int *ci, const int *ct)
{
    const lm_ctx *c = &D->ctx;
    lm_mat **A = lm_xcalloc((size_t)m, sizeof *A);
    lm_mat *dx = lm_mat_new(D->d, 1, c), *z = lm_mat_new(D->d, 1, c);
    lm_num a, b;
    lm_num_inits(c, &a, &b, (lm_num *)NULL);
    for (int k = 0; k < m; k++) {
        int i = ci[k];
        for (int j = 0; j < D->d; j++) {
            lm_mat_get(&a, D->X[i], D->alpha[i], j);
            lm_mat_get(&b, D->X[i], ct[k], j);
            lm_num_sub(&a, &a, &b);
            lm_mat_set(dx, j, 0, &a);
            lm_mat_get(&a, D->Z, i, j);
            lm_mat_set(z, j, 0, &a);
        }
        A[k] = lm_mat_new(D->d, D->d, c);
        lm_mat_mul(A[k], dx, 0, z, 1);
    }
    lm_num_clears(&a, &b, (lm_num *)NULL);
    lm_mat_free(dx);
    lm_mat_free(z);
    return A;
}

/* sum |M_ab|^e with the exponent e in the context */
static void sum_pow(lm_num *r, const lm_mat *M, const lm_num *e)
{
    lm_ctx c = lm_mat_ctx(M);
    lm_num v;
    lm_num_init(&v, &c);
    lm_num_set_d(r, 0.0);
    for (int a = 0; a < M->r; a++)
        for (int b = 0; b < M->c; b++) {
            lm_mat_get(&v, M, a, b);
            if (lm_num_iszero(&v)) continue;
            lm_num_abs(&v, &v);
            lm_num_pow(&v, &v, e);
            lm_num_add(r, r, &v);
        }
    lm_num_clear(&v);
}

/* min_k <U, A_k> / ||U||_p */
static void norm_margin(lm_num *r, const lm_mat *U, lm_mat *const *A, int m, double p)
{
    lm_ctx c = lm_mat_ctx(U);
    lm_num v, nu;
    lm_num_inits(&c, &v, &nu, (lm_num *)NULL);
    for (int k = 0; k < m; k++) {
        lm_mat_dot(&v, U, A[k]);
        if (k == 0 || lm_num_cmp(&v, r) < 0) lm_num_set(r, &v);
    }
    lm_md_pnorm(&nu, U, p);
    lm_num_div(r, r, &nu);
    lm_num_clears(&v, &nu, (lm_num *)NULL);
}

/* fill E with N(0,1) entries drawn from g and scale it to unit l_p norm */
static void unit_dir(lm_mat *E, lm_rng *g, double p)
{
    lm_ctx c = lm_mat_ctx(E);
    for (int a = 0; a < E->r; a++)
        for (int b = 0; b < E->c; b++) lm_mat_set_d(E, a, b, lm_rng_normal(g));
    lm_num nu, one;
    lm_num_inits(&c, &nu, &one, (lm_num *)NULL);
    lm_md_pnorm(&nu, E, p);
    lm_num_set_d(&one, 1.0);
    lm_num_div(&nu, &one, &nu);
    lm_mat_scale(E, E, &nu);
    lm_num_clears(&nu, &one, (lm_num *)NULL);
}

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    const lm_ctx *c = ev->ctx;
    lm_rng *g = lm_eval_rng(ev);
    int cfg = ev->config, k = ev->index;
    double p;
    lm_mddata *D = NULL;
    int cf_T = 0; /* closed form: T' of the formula (0: none) */
    if (cfg == 0) {
        int which = k % 5; /* (instance, p) pairs: all 25 in 25 consecutive indices */
        p = P_CF[(k + k / 5) % 5];
        static const int Ts[] = {2, 3, 4, 6};
        if (which < 4) {
            D = lm_md_gen_i1(Ts[which], c);
            cf_T = Ts[which];
        } else {
            D = lm_md_gen_i2(c);
            cf_T = 3;
        }
    } else if (cfg == 1) {
        p = P_344[k % 5];
        D = lm_md_gen_paper(g, 3, 4, 4, c);
    } else {
        p = P_6810[k % 2];
        D = lm_md_gen_paper(g, 6, 8, 10, c);
    }
    if (P.p_override > 0) {
        p = P.p_override;
        if (!(p > 1.0)) { /* 0 < p <= 1: no l_p-AttSVM (psi_p is not strictly convex) */
            lm_md_data_free(D);
            return lm_fail(ev, "p_override = %g: the l_p-AttSVM needs p > 1 (0 = the configuration's grid)", p);
        }
    }
    int d = D->d, rc = 0, m = 0;
    double tau = P.tol_scale * exp2(0.75 * lm_ctx_log2eps(c));
    double eps = lm_ctx_eps(c);
    lm_md_svm s;
    memset(&s, 0, sizeof s);
    lm_mat **A = NULL;
    lm_mat *M = lm_mat_new(d, d, c), *T1 = lm_mat_new(d, d, c), *U = lm_mat_new(d, d, c);
    lm_mat *Wb = lm_mat_new(d, d, c), *E = lm_mat_new(d, d, c);
    lm_num v, w, x, sl, mm, phi, pe, qe, tol;
    lm_num_inits(c, &v, &w, &x, &sl, &mm, &phi, &pe, &qe, &tol, (lm_num *)NULL);
    lm_measure(ev, "p", p);

    for (int i = 0; i < D->n; i++)
        if (D->alpha[i] < 0) {
            lm_assume(ev, 0, "tied token scores in sample %d", i);
            goto out;
        }
    int src = lm_md_svm_solve(&s, D, p, 0);
    if (src == LM_MDSVM_INFEASIBLE) {
        lm_assume(ev, 0, "the l_p-AttSVM is infeasible");
        goto out;
    }
    if (src != LM_MDSVM_OK) {
        rc = lm_fail(ev, "l_p-AttSVM solver did not converge at p = %g (code %d, gap %.3g, min margin-1 %.3g)", p,
                     src, s.gap, s.min_margin);
        goto out;
    }
    m = s.m;
    A = build_A(D, m, s.ci, s.ct);
    lm_num_set_d(&pe, p);
    lm_num_add_d(&w, &pe, -1.0);
    lm_num_div(&qe, &pe, &w); /* q = p/(p-1) formed in the context */

    /* M = sum lambda_k A_k, lambda sums */
    lm_mat_zero(M);
    lm_num_set_d(&sl, 0.0);
    double lmin = INFINITY, lmax = 0.0;
    for (int j = 0; j < m; j++) {
        lm_mat_get(&v, s.lambda, j, 0);
        lm_mat_axpy(M, &v, A[j]);
        lm_num_add(&sl, &sl, &v);
        double lj = lm_num_get_d(&v);
        lmin = fmin(lmin, lj);
        lmax = fmax(lmax, lj);
    }
    double sld = lm_num_get_d(&sl);

    /* (i) feasibility: 1 - min_k <W, A_k> <= tau */
    for (int j = 0; j < m; j++) {
        lm_mat_dot(&v, s.W, A[j]);
        if (j == 0 || lm_num_cmp(&v, &mm) < 0) lm_num_set(&mm, &v);
    }
    lm_num_d_sub(&x, 1.0, &mm);
    lm_num_set_d(&tol, tau);
    lm_obs_le(ev, -1, &x, &tol, 0.0, "primal feasibility 1 - min <W,A_k>, p = %g", p);

    /* (ii) duality gap psi(W / min margin) - Phi(lambda) */
    lm_md_psi(&v, s.W, p);
    lm_num_pow(&w, &mm, &pe);
    lm_num_div(&v, &v, &w);       /* psi(W_feas) */
    sum_pow(&w, M, &qe);
    lm_num_div(&w, &w, &qe);      /* ||M||_q^q / q */
    lm_num_sub(&phi, &sl, &w);    /* Phi(lambda) */
    lm_num_sub(&x, &v, &phi);
    lm_measure(ev, "duality gap", lm_num_get_d(&x));
    lm_num_abs(&x, &x);
    lm_num_set_d(&tol, tau * fmax(1.0, sld));
    lm_obs_le(ev, -1, &x, &tol, 0.0, "|duality gap| psi(W_feas) - Phi(lambda), p = %g", p);

    /* (iii) KKT: grad psi(W) = M, lambda >= 0, complementary slackness */
    lm_md_grad_psi(T1, s.W, p);
    lm_mat_sub(T1, T1, M);
    lm_mat_max_abs(&x, T1);
    lm_mat_max_abs(&tol, M);
    lm_num_mul_d(&tol, &tol, tau);
    lm_obs_le(ev, -1, &x, &tol, 0.0, "KKT stationarity max|grad psi(W) - sum lambda A|, p = %g", p);
    lm_obs_le_d(ev, -1, -lmin, tau * fmax(1.0, lmax), 0.0, "dual feasibility lambda >= 0");
    lm_num_set_d(&x, 0.0);
    for (int j = 0; j < m; j++) {
        lm_mat_dot(&v, s.W, A[j]);
        lm_num_add_d(&v, &v, -1.0);
        lm_mat_get(&w, s.lambda, j, 0);
        lm_num_mul(&v, &v, &w);
        lm_num_abs(&v, &v);
        lm_num_max(&x, &x, &v);
    }
    lm_num_set_d(&tol, tau * fmax(1.0, lmax));
    lm_obs_le(ev, -1, &x, &tol, 0.0, "complementary slackness max|lambda_k(<W,A_k> - 1)|");

    /* (iv) ||W||_p^p = sum lambda */
    lm_md_psi(&v, s.W, p);
    lm_num_mul(&v, &v, &pe);
    lm_num_sub(&x, &v, &sl);
    lm_num_abs(&x, &x);
    lm_num_mul_d(&tol, &sl, tau);
    lm_obs_le(ev, -1, &x, &tol, 0.0, "| ||W||_p^p - sum lambda |, p = %g", p);

    /* (v) closed forms */
    if (cf_T > 0) {
        /* c = (T'-1)^(closed_scale/(p-1)), a = c/(1+c), in the context */
        lm_num cc, aa;
        lm_num_inits(c, &cc, &aa, (lm_num *)NULL);
        lm_num_add_d(&w, &pe, -1.0);
        lm_num_set_d(&v, P.closed_scale);
        lm_num_div(&w, &v, &w);
        lm_num_set_d(&cc, (double)(cf_T - 1));
        lm_num_pow(&cc, &cc, &w);
        lm_num_add_d(&v, &cc, 1.0);
        lm_num_div(&aa, &cc, &v);
        lm_mat_zero(T1);
        lm_mat_set(T1, 0, 0, &aa);
        lm_num_add_d(&aa, &aa, -1.0);
        for (int t = 1; t < cf_T; t++) lm_mat_set(T1, t, 0, &aa);
        lm_mat_sub(T1, T1, s.W);
        lm_mat_max_abs(&x, T1);
        lm_num_set_d(&tol, tau);
        lm_obs_le(ev, -1, &x, &tol, 0.0, "max|W_mm - closed form| (%s, T' = %d, p = %g)",
                  D->T == 4 && d == 3 ? "I2" : "I1", cf_T, p);
        lm_num_clears(&cc, &aa, (lm_num *)NULL);
    }

    /* (vi) max-margin property with the dual certificate (p Phi)^(-1/p) */
    {
        lm_num b;
        lm_num_init(&b, c);
        lm_num_mul(&b, &phi, &pe);
        if (!(lm_num_sgn(&b) > 0)) {
            rc = lm_fail(ev, "dual objective Phi(lambda) is not positive");
            lm_num_clear(&b);
            goto out;
        }
        lm_num_set_d(&v, -1.0);
        lm_num_div(&v, &v, &pe);
        lm_num_pow(&b, &b, &v);
        lm_num_mul_d(&b, &b, P.margin_scale);
        double reltol = 64.0 * d * d * eps;
        lm_md_pnorm(&v, s.W, p);
        lm_num_set_d(&w, 1.0);
        lm_num_div(&v, &w, &v);
        lm_mat_scale(Wb, s.W, &v);
        if (ev->x && ev->nx > 0) {
            lm_mat_copy(U, Wb);
            unit_dir(E, g, p);
            lm_mat_axpy_d(U, 1e-3, E);
            for (int j = 0; j < ev->nx; j++) {
                unit_dir(E, g, p);
                lm_mat_axpy_d(U, 1e-3 * ev->x[j], E);
            }
            norm_margin(&x, U, A, m, p);
            lm_obs_le(ev, -1, &x, &b, reltol, "normalised margin of an adversarial U <= (p Phi)^(-1/p)");
        } else {
            static const double rhos[] = {1e-1, 1e-2, 1e-3, 1e-4};
            for (int j = 0; j < 4; j++) {
                unit_dir(E, g, p);
                lm_mat_copy(U, Wb);
                lm_mat_axpy_d(U, rhos[j], E);
                norm_margin(&x, U, A, m, p);
                lm_obs_le(ev, -1, &x, &b, reltol, "normalised margin of Wbar_mm + %g E <= (p Phi)^(-1/p)",
                          rhos[j]);
            }
        }
        lm_measure(ev, "||W_mm||_p", lm_num_get_d(&s.norm));
        lm_num_clear(&b);
    }
    {
        int ns = 0;
        for (int j = 0; j < m; j++) ns += lm_mat_get_d(s.lambda, j, 0) > 0;
        lm_measure(ev, "constraints with lambda > 0", ns);
    }
    lm_measure(ev, "min margin - 1", s.min_margin);
    lm_measure(ev, "sum lambda", sld);
    lm_measure(ev, "coordinate-ascent sweeps", s.sweeps);
    lm_measure(ev, "Newton iterations", s.newton);
out:
    lm_num_clears(&v, &w, &x, &sl, &mm, &phi, &pe, &qe, &tol, (lm_num *)NULL);
    for (int j = 0; A && j < m; j++) lm_mat_free(A[j]);
    free(A);
    lm_md_svm_clear(&s);
    lm_mat_free(M); lm_mat_free(T1); lm_mat_free(U); lm_mat_free(Wb); lm_mat_free(E);
    lm_md_data_free(D);
    return rc;
}

LM_CLAIM(claim_mirror_svm) = {
    .kind = LM_KIND_IDENTITY,
    .source = "problem (l_p-AttSVM), main text Section 3; att_svm.py",
    .origin = "reconstructed",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.5,
    .search_dim = 6,
    .search_in = search_here,
    .eval = eval,
};
