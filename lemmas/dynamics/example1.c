/* lemmas/dynamics/example1.c
 *
 * \claim{dynamics/example1}{Softmax: vanishing gradient at a non-optimal point (the Example)}
 * \source{transformer-gd-dynamics, Example after Remark 4 (\S4.2.2), eq.~(15)}
 * \statement{Softmax attention with $N=1$, $n=2$, $H=1$, $D=d=2$, $X_1=I_2$,
 *   $W^O=(1/a,1/a)^\top$ and $W^V_0=\begin{pmatrix}2a&a\\a&2a\end{pmatrix}$ ($a\ne0$). With
 *   $L:=\frac{\partial f}{\partial\mathsf{MH}}(W^O)^\top(X_1W^V_0)^\top$ one has
 *   $(\partial f/\partial C_{11})_{k1}=\delta_k(L_{k1}-L_{k2})$ and
 *   $(\partial f/\partial C_{11})_{k2}=\delta_k(L_{k2}-L_{k1})$ for some constants $\delta_k$;
 *   there are $W^Q_1,W^K_1$ satisfying (12), and then $L_{11}=L_{12}$, $L_{21}=L_{22}$ (15), so
 *   $\partial f/\partial C_{11}=0$ and $\partial f/\partial W^Q_1=0$, while $f(M_0;X_1)\ne0$ when
 *   $\partial f/\partial\mathsf{MH}\ne0$: GD on $W^Q$ is stuck at a point that is not a global
 *   minimum.}
 * \check{One configuration per $a\in\{1,2,0.37\}$ (powers of two make $W^V$, $W^O$ exact;
 *   $0.37$ is not representable, so all tolerances are relative). Each instance draws
 *   $W^Q,W^K$ with $\mathcal N(0,1)$ entries times independent scales $10^{U(-1,1)}$ (the
 *   adversarial restarts move both log-scales, up to saturated attention) and labels
 *   $y=(3+e_1,3+e_2)$, $e_i=\texttt{eps\_y}\cdot\mathcal N(0,1)$; here
 *   $X_1W^V_0W^O=(3,3)^\top$ and $\mathsf{MH}=3S\mathbf 1=(3,3)^\top$. In the working precision
 *   $p$ (double, MPFR at 256 bits for a replay) it checks: $f$ above the rounding floor
 *   $2^{10-2p}\|y\|^2$ (so $f\ne0$); $\|\nabla_{W^Q}f\|_F\le\tau_Q$ and $\|\nabla_{W^K}f\|_F\le\tau_K$
 *   with $\tau_Q=\texttt{tau\_scale}\cdot2^{10-p}\|r\|\|X\|_F^3\|W^V\|_F\|W^O\|\|W^K\|_F$ (and
 *   $W^Q$ for $\tau_K$), the natural scale of these gradients, since in floating point the
 *   softmax rows sum to $1\pm O(2^{-p})$; eq.~(15) as the residual
 *   $|L_{k1}-L_{k2}|\le2^{4-p}|r_k|(|v_1|+|v_2|)$, $v=X_1W^V_0W^O$; the paper's formula for
 *   $\partial f/\partial C_{11}$ with $\delta_k=S_{k1}S_{k2}$ against the model's
 *   $\partial f/\partial C$, both at the witness and at a randomly perturbed $W^V$ where
 *   $L_{k1}\ne L_{k2}$ (so the formula is genuinely tested), tolerance
 *   $2^{5-p}\max_jS_{kj}(|L_{k1}|+|L_{k2}|)$; the existence of $(W^Q,W^K)$ meeting (12): the
 *   instance's pair is halved until LHS(12) (main text, $\nu'=\frac18$) holds, at most 30
 *   times, and at that pair LHS(12)$\le\frac18$, $\delta_1>0$ and the vanishing gradient are
 *   observed; a landscape sweep: $f$ at 8 further random $(W^Q,W^K)$ (scales $10^{U(-1,1)}$)
 *   equals $f$ within $2^{5-p}\|y\|\|r\|$. On every eighth instance Softmax GD on $W^Q$ from
 *   a pair meeting (12) (the halved instance pair, else the $(I,I)$ witness) ($\eta=\texttt{eta}$, $T=2000$ steps, 200 with \texttt{--quick}) must keep
 *   $\max_t|f_t-f_0|$ within the same tolerance, and GD from the same initialization with the
 *   Gaussian kernel (``equivalent initialization conditions'') must decrease the loss: $f^{\rm G}_T\le(1-10^{-6})f^{\rm G}_0$ (the contrast
 *   of Remark 4(b); an observation that can fail). \texttt{tau\_scale} and
 *   \texttt{tol\_scale} scale the tolerances; \texttt{wv\_perturb} adds a constant to
 *   $W^V_{12}$, which destroys the witness and must be detected.}
 */
#include "lm_claim.h"
#include "lm_dyn.h"
#include "lm_mha.h"
#include "lm_t3.h"
#include <math.h>

static const char *const configs[] = {"a=1", "a=2", "a=0.37", NULL};
static const double cfg_a[] = {1.0, 2.0, 0.37};

#define PARAMS(NUM, SWITCH)                                                                                                     \
    NUM(tau_scale, 1.0, "setting [0, inf)", "multiplies the gradient tolerance 2^(10-p) ||r|| ||X||^3 ||W^V|| ||W^O|| ||W^K||") \
    NUM(tol_scale, 1.0, "[0, inf)", "multiplies the tolerances of eq. (15), the dF/dC formula and the flat landscape")          \
    NUM(wv_perturb, 0.0, "[-1e6, 1e6]", "added to W^V_{12} (0 = the paper's witness; nonzero breaks it)")                       \
    NUM(eps_y, 1e-6, "[0, 1e6]", "label offsets y = (3+e1, 3+e2), e ~ eps_y N(0,1)")                                            \
    NUM(eta, 0.1, "(0, 1e6]", "GD step of the Softmax and Gaussian runs")                                                       \
    NUM(T, 2000, "int [1, 100000]", "GD steps of the runs (quick: 200) (at most 100000: run length bound)")                     \
    NUM(gauss_min_decrease, 1e-6, "[0, 1]", "the Gaussian run must reach f_T <= (1 - this) f_0")
LM_PARAMS(PARAMS)

static double frob_d(const lm_mat *A)
{
    lm_ctx c = lm_mat_ctx(A);
    lm_num x;
    lm_num_init(&x, &c);
    lm_mat_frob(&x, A);
    double v = lm_num_get_d(&x);
    lm_num_clear(&x);
    return v;
}

/* the Example model in ctx with the given W^Q, W^K (2x2 row-major doubles) */
static lm_mha *build(const lm_ctx *c, lm_kernel k, double a, double pert, const double *wq,
                     const double *wk, const double *y)
{
    lm_mha *m = lm_mha_new(1, 2, 2, 2, 1, k, LM_WV_BLOCK, c);
    lm_mat_set_identity(m->X[0]);
    double wv[4] = {2 * a, a + pert, a, 2 * a};
    lm_mat_set_array(m->Wv, wv);
    lm_mat_set_d(m->Wo, 0, 0, 1.0 / a);
    lm_mat_set_d(m->Wo, 1, 0, 1.0 / a);
    lm_mat_set_array(m->Wq[0], wq);
    lm_mat_set_array(m->Wk[0], wk);
    lm_mat_set_d(m->y, 0, 0, y[0]);
    lm_mat_set_d(m->y, 1, 0, y[1]);
    lm_mha_forward(m);
    return m;
}

/* gradient observations at the model's current point */
static void grad_obs(lm_eval *ev, lm_mha *m, const char *where)
{
    const lm_params P = lm_params_of(ev);
    const lm_ctx *c = ev->ctx;
    lm_mat *gQ = lm_mat_new(2, 2, c), *gK = lm_mat_new(2, 2, c);
    lm_num a, b;
    lm_num_inits(c, &a, &b, (lm_num *)NULL);
    lm_mha_forward(m);
    lm_mha_grad(m, &gQ, &gK, NULL);
    double base = exp2(lm_ctx_log2eps(c) + 10.0) * P.tau_scale * frob_d(m->r) *
                  pow(frob_d(m->X[0]), 3) * frob_d(m->Wv) * frob_d(m->Wo);
    lm_mat_frob(&a, gQ);
    lm_num_set_d(&b, base * frob_d(m->Wk[0]));
    lm_obs_le(ev, -1, &a, &b, 0.0, "||grad_Q f|| <= tau_Q %s", where);
    lm_mat_frob(&a, gK);
    lm_num_set_d(&b, base * frob_d(m->Wq[0]));
    lm_obs_le(ev, -1, &a, &b, 0.0, "||grad_K f|| <= tau_K %s", where);
    lm_num_clears(&a, &b, (lm_num *)NULL);
    lm_mat_free(gQ);
    lm_mat_free(gK);
}

/* eq. (15) and the paper's dF/dC formula at the model's current point */
static void formula_obs(lm_eval *ev, lm_mha *m, int check15, const char *where)
{
    const lm_params P = lm_params_of(ev);
    const lm_ctx *c = ev->ctx;
    const double tol = P.tol_scale;
    lm_mat *v = lm_mat_new(2, 1, c), *G = lm_mat_new(2, 2, c);
    lm_num r, L1, L2, dL, s1, s2, x, y, t;
    lm_num_inits(c, &r, &L1, &L2, &dL, &s1, &s2, &x, &y, &t, (lm_num *)NULL);
    lm_mha_forward(m);
    lm_mat_mul(v, m->X[0], 0, m->u, 0);
    lm_mha_dfdC(G, m, 0, 0);
    for (int k = 0; k < 2; k++) {
        lm_mat_get(&r, m->r, k, 0);
        lm_mat_get(&x, v, 0, 0);
        lm_num_mul(&L1, &r, &x); /* L_k1 = r_k v_1 */
        lm_mat_get(&y, v, 1, 0);
        lm_num_mul(&L2, &r, &y); /* L_k2 = r_k v_2 */
        lm_num_sub(&dL, &L1, &L2);
        double scale = fabs(lm_num_get_d(&L1)) + fabs(lm_num_get_d(&L2));
        if (check15) {
            lm_num_abs(&t, &dL);
            lm_num_set_d(&x, tol * exp2(lm_ctx_log2eps(c) + 4.0) * scale);
            lm_obs_le(ev, -1, &t, &x, 0.0, "eq. (15): |L_%d1 - L_%d2| %s", k + 1, k + 1, where);
        }
        /* (dF/dC)_k1 = S_k1 S_k2 (L_k1 - L_k2), (dF/dC)_k2 = -(same) */
        lm_mat_get(&s1, m->S[0], k, 0);
        lm_mat_get(&s2, m->S[0], k, 1);
        double smax = fmax(lm_num_get_d(&s1), lm_num_get_d(&s2));
        lm_num_mul(&t, &s1, &s2);
        lm_num_mul(&t, &t, &dL);
        for (int j = 0; j < 2; j++) {
            lm_mat_get(&x, G, k, j);
            if (j == 0) lm_num_sub(&y, &x, &t);
            else lm_num_add(&y, &x, &t);
            lm_num_abs(&y, &y);
            lm_num_set_d(&x, tol * exp2(lm_ctx_log2eps(c) + 5.0) * smax * scale);
            lm_obs_le(ev, -1, &y, &x, 0.0, "dF/dC_%d%d = delta_k (+-)(L_k1 - L_k2) %s", k + 1, j + 1, where);
        }
    }
    lm_num_clears(&r, &L1, &L2, &dL, &s1, &s2, &x, &y, &t, (lm_num *)NULL);
    lm_mat_free(v);
    lm_mat_free(G);
}

static void randw(double *w, lm_rng *g, double s)
{
    for (int e = 0; e < 4; e++) w[e] = s * lm_rng_normal(g);
}

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    const lm_ctx *c = ev->ctx;
    const lm_ctx dc = lm_ctx_double();
    lm_rng *g = lm_eval_rng(ev);
    const double a = cfg_a[ev->config], pert = P.wv_perturb;
    const double tol = P.tol_scale;
    double sq = pow(10.0, 2 * lm_rng_uniform(g) - 1), sk = pow(10.0, 2 * lm_rng_uniform(g) - 1);
    if (ev->x && ev->nx >= 2) {
        sq = pow(10.0, 1.5 * tanh(ev->x[0] / 3.0));
        sk = pow(10.0, 1.5 * tanh(ev->x[1] / 3.0));
    }
    double wq[4], wk[4], y[2];
    randw(wq, g, sq);
    randw(wk, g, sk);
    y[0] = 3.0 + P.eps_y * lm_rng_normal(g);
    y[1] = 3.0 + P.eps_y * lm_rng_normal(g);
    int rc = 0;
    lm_mha *m = build(c, LM_SOFTMAX, a, pert, wq, wk, y);
    lm_num t0, t1;
    lm_num_inits(c, &t0, &t1, (lm_num *)NULL);
    if (!lm_num_isfinite(&m->f)) { rc = lm_fail(ev, "loss not finite"); goto done; }
    /* f != 0: above the rounding floor of 1/2 ||MH - y||^2 */
    lm_mat_frob(&t0, m->y);
    lm_num_sqr(&t0, &t0);
    lm_num_mul_d(&t0, &t0, exp2(2 * lm_ctx_log2eps(c) + 10.0));
    lm_obs_le(ev, -1, &t0, &m->f, 0.0, "f above the rounding floor (not a global minimum)");
    const double f0d = lm_num_get_d(&m->f), rn = frob_d(m->r), yn = frob_d(m->y);
    /* vanishing gradients, eq. (15), the dF/dC formula */
    grad_obs(ev, m, "at the instance");
    formula_obs(ev, m, 1, "at the instance");
    {
        /* the dF/dC formula where L_k1 != L_k2: W^V perturbed at random */
        double wvp[4] = {2 * a, a + pert, a, 2 * a};
        for (int e = 0; e < 4; e++) wvp[e] += 0.25 * a * lm_rng_normal(g);
        lm_mha *mp = build(c, LM_SOFTMAX, a, pert, wq, wk, y);
        lm_mat_set_array(mp->Wv, wvp);
        formula_obs(ev, mp, 0, "at a perturbed W^V");
        lm_mha_free(mp);
    }
    /* existence of (W^Q, W^K) meeting (12).  The witness: the pair (I, I) halved until
     * LHS(12) <= 1/8.  Reported too: how many halvings the instance's own pair needs (an
     * ill-conditioned W^K keeps (lambda^Q + lambda^K) / min(delta, lambda^Q) large, so it
     * may never get there); the GD runs start from it when it does. */
    double wq2[4], wk2[4], wqw[4], wkw[4];
    {
        double l12[2] = {HUGE_VAL, HUGE_VAL}, delta[2] = {0, 0};
        int kk[2] = {-1, -1};
        for (int start = 0; start < 2; start++) {
            for (int k = 0; k <= 30; k++) {
                double *q = start ? wqw : wq2, *w = start ? wkw : wk2;
                for (int e = 0; e < 4; e++) {
                    q[e] = ldexp(start ? (double)(e % 3 == 0) : wq[e], -k);
                    w[e] = ldexp(start ? (double)(e % 3 == 0) : wk[e], -k);
                }
                lm_mha *md = build(&dc, LM_SOFTMAX, a, pert, q, w, y);
                lm_dyn_consts kc;
                lm_dyn_t3 t3;
                int bad = lm_dyn_consts_eval(&kc, md, NULL) || lm_dyn_t3_eval(&t3, md, &kc);
                lm_mha_free(md);
                if (bad) { rc = lm_fail(ev, "SVD failed in the (12) evaluation"); goto done; }
                l12[start] = lm_dyn_log_cond12(&kc, &t3, 1, 2, 0);
                delta[start] = t3.delta;
                /* the (I,I) witness takes one halving more than needed, for margin */
                if (l12[start] <= log(0.125) && (start == 0 || kk[1] >= 0)) { kk[start] = k; break; }
                if (l12[start] <= log(0.125)) kk[1] = k;
            }
        }
        lm_measure(ev, "halvings of the instance's (W^Q,W^K) until (12) holds (-1: not in 30)", kk[0]);
        lm_measure(ev, "halvings of (I,I) at the witness (one more than (12) needs)", kk[1]);
        lm_measure(ev, "LHS(12) at the (I,I) witness", exp(l12[1]));
        lm_measure(ev, "delta_1 at the (I,I) witness", delta[1]);
        lm_obs_le_d(ev, -1, exp(l12[1]), 0.125, 0.0, "LHS(12) <= 1/8 at the witness (I,I)/2^%d", kk[1]);
        /* delta_1 > 0: above 2^-40 of the Jacobian's scale ||W^K||_F / sqrt(d) */
        lm_obs_le_d(ev, -1, ldexp(fabs(wkw[0]), -40), delta[1], 0.0, "delta_1 > 0 at the witness");
        lm_mha *mw = build(c, LM_SOFTMAX, a, pert, wqw, wkw, y);
        grad_obs(ev, mw, "at the (12) witness");
        lm_mha_free(mw);
        if (kk[0] < 0) {
            /* the GD runs start from a pair meeting (12) */
            for (int e = 0; e < 4; e++) { wq2[e] = wqw[e]; wk2[e] = wkw[e]; }
        } else {
            mw = build(c, LM_SOFTMAX, a, pert, wq2, wk2, y);
            grad_obs(ev, mw, "at the instance pair halved into (12)");
            lm_mha_free(mw);
        }
    }
    /* landscape sweep: f constant over random (W^Q, W^K) */
    const double ftol = tol * exp2(lm_ctx_log2eps(c) + 5.0) * yn * rn;
    double dev = 0;
    for (int s = 0; s < 8; s++) {
        double wq3[4], wk3[4];
        randw(wq3, g, pow(10.0, 2 * lm_rng_uniform(g) - 1));
        randw(wk3, g, pow(10.0, 2 * lm_rng_uniform(g) - 1));
        lm_mha *ms = build(c, LM_SOFTMAX, a, pert, wq3, wk3, y);
        lm_num_sub(&t0, &ms->f, &m->f);
        lm_num_abs(&t0, &t0);
        dev = fmax(dev, lm_num_get_d(&t0));
        lm_num_set_d(&t1, ftol);
        lm_obs_le(ev, -1, &t0, &t1, 0.0, "landscape: |f(W^Q_%d,W^K_%d) - f| ", s, s);
        lm_mha_free(ms);
    }
    lm_measure(ev, "f", f0d);
    lm_measure(ev, "max landscape |f' - f| / f", dev / f0d);
    lm_measure(ev, "scale of W^Q", sq);
    lm_measure(ev, "scale of W^K", sk);
    /* GD runs on every eighth instance */
    if (ev->index % 8 == 0 && !ev->searching) {
        int T = ev->quick ? 200 : lm_int(P.T);
        lm_num eta;
        lm_num_init(&eta, c);
        lm_num_set_d(&eta, P.eta);
        double maxdev = 0;
        lm_series_axes(ev, "iterate t", "loss", 1);
        /* both runs start from the witness pair, which meets (12) */
        lm_mha *mg = build(c, LM_SOFTMAX, a, pert, wq2, wk2, y);
        lm_mha *mG = build(c, LM_GAUSS, a, pert, wq2, wk2, y);
        lm_num fs0;
        lm_num_init(&fs0, c);
        lm_num_set(&fs0, &mg->f);
        lm_num fG0;
        lm_num_init(&fG0, c);
        lm_num_set(&fG0, &mG->f);
        for (int t = 1; t <= T; t++) {
            lm_t3_gd_step(NULL, mg, &eta);
            lm_t3_gd_step(NULL, mG, &eta);
            lm_num_sub(&t0, &mg->f, &fs0);
            lm_num_abs(&t0, &t0);
            maxdev = fmax(maxdev, lm_num_get_d(&t0));
            if (t % (T / 100 > 0 ? T / 100 : 1) == 0) {
                lm_series(ev, "Softmax f_t", t, lm_num_get_d(&mg->f));
                lm_series(ev, "Gaussian f_t", t, lm_num_get_d(&mG->f));
            }
        }
        if (!lm_num_isfinite(&mg->f) || !lm_num_isfinite(&mG->f)) {
            rc = lm_fail(ev, "GD run not finite");
        } else {
            lm_num_set_d(&t1, ftol);
            lm_num_set_d(&t0, maxdev);
            lm_obs_le(ev, T, &t0, &t1, 0.0, "Softmax GD: max_t |f_t - f_0| over %d steps", T);
            lm_num_mul_d(&t1, &fG0, 1.0 - P.gauss_min_decrease);
            lm_obs_le(ev, T, &mG->f, &t1, 0.0, "Gaussian GD decreases f over %d steps", T);
            lm_measure(ev, "Softmax GD max_t |f_t - f_0| / f_0", maxdev / f0d);
            lm_measure(ev, "Gaussian GD f_T / f_0", lm_num_get_d(&mG->f) / lm_num_get_d(&fG0));
        }
        lm_num_clear(&fG0);
        lm_num_clear(&fs0);
        lm_num_clear(&eta);
        lm_mha_free(mg);
        lm_mha_free(mG);
    }
done:
    lm_num_clears(&t0, &t1, (lm_num *)NULL);
    lm_mha_free(m);
    return rc;
}

static const lm_reading readings[] = {
    {LM_READ_PAPER,
     "The Example at a = 1 (W^V, W^O exact in binary): at W^Q, W^K meeting (12) the W^Q and W^K "
     "gradients vanish with f > 0, eq. (15) holds, and Gaussian GD still decreases f.",
     NULL},
    {LM_READ_PAPER,
     "The Example at a = 2, a second exactly representable scale: vanishing W^Q, W^K gradients at "
     "f > 0 under (12), eq. (15), the dF/dC formula and a decreasing Gaussian run.",
     NULL},
    {LM_READ_PAPER,
     "The Example at a = 0.37, not representable in binary, so W^V and W^O carry rounding: the "
     "same vanishing gradients, eq. (15) and dF/dC formula under relative tolerances.",
     NULL},
    LM_READINGS_END};

LM_CLAIM(claim_dynamics_example1) = {
    .kind = LM_KIND_STRUCTURAL,
    .source = "Example after Remark 4, Section 4.2.2, eq. (15)",
    .origin = "verbatim",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 1.6,
    .search_dim = 2,
    .eval = eval,
};
