/* lemmas/pruning/theorem5-2.c
 *
 * \claim{pruning/theorem5.2}{GD under the proxy PL inequality (Theorem 3.1 of Frei \& Gu 2021)}
 * \source{attention-pruning, Theorem 5.2 (quoting Frei--Gu 2021, Theorem 3.1); $T$ re-derived}
 * \statement{Let $f$ satisfy the $(g,\xi,\alpha,\mu)$-PL inequality
 *   $\|\nabla f(w)\|^\alpha\ge\frac12\mu(g(w)-\xi)$, $f\ge0$, $\nabla f$ $L$-Lipschitz.  For any
 *   $\varepsilon>0$, if $\eta\le1/L$, GD run for
 *   $T=\lceil\frac{2f(w_0)}{\eta}(\frac{2}{\mu\varepsilon})^{2/\alpha}\rceil$ iterations gives
 *   $\min_{t<T}g(w_t)\le\xi+\varepsilon$.  The proof uses (a)
 *   $f(w_{t+1})\le f(w_t)-\frac\eta2\|\nabla f(w_t)\|^2$ and (b)
 *   $\min_{t<T}\|\nabla f(w_t)\|^2\le2f(w_0)/(\eta T)$.}
 * \check{Three configurations, $\alpha=2$, $g=f$.  (1) Toy $f(x)=ax^2$, $a\sim U[\frac12,2]$,
 *   $L=2a$, $\mu=8a$ (tight), $\xi=0$, $x_0\sim U[-3,3]$; (2) toy $f(x)=x^2+3\sin^2x$, $L=8$, $\mu=1/8$
 *   (Karimi et al.'s $1/32$ in the $\frac12$ convention), $\xi=0$, $x_0\sim U[-5,5]$ ($\sin$ by its
 *   series in MPFR).  The PL hypothesis is checked at every iterate (a failure is
 *   assumption-failed); GD with $\eta=\texttt{eta\_c}/L$ runs until $f\le\xi+\varepsilon$ or $T$
 *   steps (capped at 20000), and the conclusion $\min_{t<T}f(w_t)\le\xi+\varepsilon$,
 *   $\varepsilon=\texttt{eps}$, is an observation, as are (a) at every step (relative tolerance
 *   $16u$) and (b) at every horizon.  (3) The pruning loss on the catalogue's grid (non-causal on
 *   even, causal on odd instances), GD with $\eta=\texttt{eta\_c}/L_{E.8}$: (a) and (b) at every
 *   iterate (tolerance $16(n^2+d^2)u$); the trajectory-restricted conclusion with $\xi:=\mathcal
 *   L(M_{\rm last})$, $\varepsilon=\frac12(\mathcal L(M_0)-\xi)$ and
 *   $\mu_{\rm traj}=\min_{t:\mathcal L_t>\xi}2\|\nabla\mathcal L_t\|^2/(\mathcal L_t-\xi)$ (the PL
 *   inequality holds at every iterate by construction, and the proof only uses it there), checked
 *   when its $T$ fits in the run (else flag vacuous-T).  The empirical descent threshold is
 *   measured: the largest $c\in\{1,2,8,32,\dots,2^{17}\}$ for which (a) holds along a run with
 *   $\eta=c/L_{E.8}$ (a second tightness measure of $L_{E.8}$).  Wrong constants: \texttt{T\_scale}
 *   $\ll1$ (too few steps) breaks the toy conclusion, \texttt{eta\_c} $\gg1$ breaks (a).}
 */
#include "lm_claim.h"
#include "lm_prtraj.h"
#include <math.h>
#include <string.h>

static const char *const configs[] = {"toy: a x^2", "toy: x^2+3 sin^2 x", "pruning: eta=c/L_E8", NULL};

/* Theorem 4.1's RECON constants are read by the shared pruning-loss builder; this claim's checks
 * use only L_E8 (through the step eta = eta_c / L_E8), so mu_coef, U_coef, U_exp_n and xi_scale
 * are declared as settings: they enter no observation here (a constant mutant of them could not
 * break anything) */
#define PARAMS(NUM, SWITCH)                                                                                                                   \
    NUM(mu_coef, 4.0, "setting (0, 1e300]", "Theorem 4.1's mu coefficient (not used by this claim's checks)")                                 \
    NUM(U_coef, 4.0, "setting (0, 1e300]", "Theorem 4.1's U coefficient (not used by this claim's checks)")                                   \
    NUM(U_exp_n, 1.5, "setting [-16, 16]", "Theorem 4.1's exponent of n in U (not used by this claim's checks)")                              \
    NUM(xi_scale, 1.0, "setting (0, 1e300]", "Theorem 4.1's xi multiplier (not used by this claim's checks)")                                 \
    NUM(L_scale, 1.0, "setting (0, 1e6]", "multiplies the polynomial part of L_E8 = (4n^2+6n^1.5) d^2 R^6 + lambda (the step is eta_c/L_E8)") \
    NUM(eta_c, 1.0, "setting (0, 1e6]", "step eta = eta_c / L (the theorem needs eta_c <= 1)")                                                \
    NUM(T_scale, 1.0, "constant [0, 1e6]", "multiplies T = 2 f(w0)/eta (2/(mu eps))^(2/alpha)")                                               \
    NUM(eps, 1e-3, "setting (0, 1e6]", "accuracy epsilon (toy configurations)")                                                               \
    NUM(steps, 300, "int [1, 20000]", "GD iterations on the pruning loss (quick: steps/4; at most 20000: run length bound)")
LM_PARAMS(PARAMS)

/* sin in the context: libm in double, the Taylor series in MPFR (|x| <= ~10) */
static void num_sin(lm_num *r, const lm_num *x, const lm_ctx *c)
{
    if (c->backend == LM_DOUBLE) {
        lm_num_set_d(r, sin(lm_num_get_d(x)));
        return;
    }
    lm_num term, x2, s;
    lm_num_inits(c, &term, &x2, &s, (lm_num *)NULL);
    lm_num_set(&term, x);
    lm_num_set(&s, x);
    lm_num_sqr(&x2, x);
    for (int k = 1; k < 400; k++) {
        lm_num_mul(&term, &term, &x2);
        lm_num_div_d(&term, &term, -(double)((2 * k) * (2 * k + 1)));
        lm_num_add(&s, &s, &term);
        if (lm_num_iszero(&term) || lm_num_log_abs_d(&term) < lm_num_log_abs_d(&s) + log(lm_ctx_eps(c)) - 5)
            break;
    }
    lm_num_set(r, &s);
    lm_num_clears(&term, &x2, &s, (lm_num *)NULL);
}

/* f and f' of the toy functions */
static void toy(lm_num *f, lm_num *fp, const lm_num *x, int kind, double a, const lm_ctx *c)
{
    lm_num s, t;
    lm_num_inits(c, &s, &t, (lm_num *)NULL);
    if (kind == 0) {
        lm_num_sqr(f, x);
        lm_num_mul_d(f, f, a);
        lm_num_mul_d(fp, x, 2.0 * a);
    } else {
        num_sin(&s, x, c);
        lm_num_sqr(&t, &s);
        lm_num_mul_d(&t, &t, 3.0);
        lm_num_sqr(f, x);
        lm_num_add(f, f, &t);
        lm_num_mul_d(&t, x, 2.0);
        num_sin(&s, &t, c); /* sin 2x */
        lm_num_mul_d(&s, &s, 3.0);
        lm_num_mul_d(fp, x, 2.0);
        lm_num_add(fp, fp, &s);
    }
    lm_num_clears(&s, &t, (lm_num *)NULL);
}

static int eval_toy(lm_eval *ev, int kind)
{
    const lm_params prm = lm_params_of(ev);
    const lm_ctx *c = ev->ctx;
    lm_rng g;
    lm_rng_init(&g, lm_hash_u64(ev->seed, 52));
    double a = kind == 0 ? 0.5 + 1.5 * lm_rng_uniform(&g) : 1.0;
    double x0 = kind == 0 ? -3.0 + 6.0 * lm_rng_uniform(&g) : -5.0 + 10.0 * lm_rng_uniform(&g);
    double L = kind == 0 ? 2.0 * a : 8.0, mu = kind == 0 ? 8.0 * a : 0.125;
    double eta = prm.eta_c / L, eps = prm.eps;
    lm_num x, f, fp, f1, fp1, a1, b1, mg, en;
    lm_num_inits(c, &x, &f, &fp, &f1, &fp1, &a1, &b1, &mg, &en, (lm_num *)NULL);
    lm_num_set_d(&en, prm.eta_c);
    lm_num_div_d(&en, &en, L); /* eta in the context: the quadratic is an equality case */
    lm_num_set_d(&x, x0);
    toy(&f, &fp, &x, kind, a, c);
    double f0 = lm_num_get_d(&f);
    lm_num f0n;
    lm_num_init(&f0n, c);
    lm_num_set(&f0n, &f);
    double Tth = prm.T_scale * 2.0 * f0 / eta * (2.0 / (mu * eps));
    /* in double first: T_scale / eps may make the formula T overflow a long (or NaN) */
    const double Tce = ceil(Tth);
    long T = !(Tce < 1e18) ? (long)1e18 : Tce < 1 ? 1 : (long)Tce;
    long cap = T < 20000 ? T : 20000;
    if (ev->tmax >= 0 && ev->tmax + 1 < cap) cap = ev->tmax + 1;
    double tol = 64.0 * lm_ctx_eps(c);
    int done = 0, rc = 0;
    long t;
    lm_num_sqr(&mg, &fp);
    for (t = 0; t < cap; t++) {
        /* PL hypothesis at the iterate */
        lm_num_sqr(&a1, &fp);
        lm_num_mul_d(&b1, &f, 0.5 * mu * (1.0 - 64.0 * lm_ctx_eps(c)));
        if (!lm_assume(ev, lm_num_cmp(&b1, &a1) <= 0, "PL hypothesis fails at t=%ld", t)) goto out;
        if (lm_num_get_d(&f) <= eps) { done = 1; break; }
        lm_num_sqr(&a1, &fp);
        if (lm_num_cmp(&a1, &mg) < 0) lm_num_set(&mg, &a1);
        lm_num_mul_d(&b1, &en, (double)(t + 1));
        lm_num_div(&b1, &f0n, &b1);
        lm_num_mul_d(&b1, &b1, 2.0);
        lm_obs_le(ev, (int)t, &mg, &b1, tol, "(b) min ||f'||^2 <= 2 f(w0)/(eta T'), T'=%ld", t + 1);
        lm_num_mul(&a1, &fp, &en);
        lm_num_sub(&x, &x, &a1);
        lm_num_sqr(&a1, &fp);
        lm_num_mul(&a1, &a1, &en);
        lm_num_mul_d(&a1, &a1, 0.5);
        toy(&f1, &fp1, &x, kind, a, c);
        lm_num_add(&a1, &a1, &f1);
        lm_obs_le(ev, (int)t, &a1, &f, tol, "(a) descent at t=%ld", t);
        lm_num_set(&f, &f1);
        lm_num_set(&fp, &fp1);
        if (!lm_num_isfinite(&f)) { rc = lm_fail(ev, "non-finite toy loss at t=%ld", t); goto out; }
    }
    lm_measure(ev, "T (formula)", Tth);
    lm_measure(ev, "steps to reach xi+eps", done ? (double)t : -1.0);
    if (done || cap == T) {
        /* min_{t<T} f <= eps: the first t with f <= eps, or the run to T failed */
        lm_num_set_d(&b1, eps);
        lm_obs_le(ev, (int)t, &f, &b1, tol, "conclusion min_{t<T} f(w_t) <= xi + eps (T=%ld)", T);
    } else {
        lm_measure(ev, "flag: vacuous-T", 1);
    }
out:
    lm_num_clears(&x, &f, &fp, &f1, &fp1, &a1, &b1, &mg, &en, &f0n, (lm_num *)NULL);
    return rc;
}

static int descent_ok(const lm_prt_run *r, double eta, double tol)
{
    for (int t = 0; t < r->T; t++) {
        double a = lm_num_get_d(&r->L[t + 1]) + 0.5 * eta * lm_num_get_d(&r->g2[t]);
        if (a > lm_num_get_d(&r->L[t]) * (1.0 + tol)) return 0;
    }
    return 1;
}

static int eval_pr(lm_eval *ev)
{
    const lm_params prm = lm_params_of(ev);
    lm_rng g;
    lm_rng_init(&g, lm_hash_u64(ev->seed, 53));
    lm_prt_spec s;
    lm_prt_spec_grid(&s, ev->index % 2, &g);
    lm_prt_coefs k;
    lm_prt_coefs_read(&k, ev);
    const lm_ctx *c = ev->ctx;
    lm_mat *M0 = NULL;
    lm_prdata *P = lm_prt_build(&s, ev->seed, c, &M0);
    lm_prt_consts K;
    lm_prt_consts_eval(&K, P, s.R, 0.0, &k);
    double eta = prm.eta_c / K.LE8;
    int steps = lm_int(prm.steps);
    if (ev->quick) steps /= 4;
    if (steps < 2) steps = 2;
    double tol = 16.0 * (s.n * s.n + s.d * s.d) * lm_ctx_eps(c);
    lm_prt_run r;
    memset(&r, 0, sizeof r);
    lm_prt_gd(&r, P, M0, eta, steps, ev->tmax, 0, 0.0, NULL, NULL);
    int rc = 0;
    if (r.nonfinite >= 0) {
        rc = lm_fail(ev, "non-finite loss at iterate %d", r.nonfinite);
        goto done;
    }
    lm_num a, b, mg;
    lm_num_inits(c, &a, &b, &mg, (lm_num *)NULL);
    for (int t = 0; t < r.T; t++) {
        lm_num_mul_d(&a, &r.g2[t], 0.5 * eta);
        lm_num_add(&a, &a, &r.L[t + 1]);
        lm_obs_le(ev, t, &a, &r.L[t], tol, "(a) descent at t=%d, eta=%g/L_E8", t, prm.eta_c);
        if (t == 0 || lm_num_cmp(&r.g2[t], &mg) < 0) lm_num_set(&mg, &r.g2[t]);
        lm_num_mul_d(&b, &r.L[0], 2.0 / (eta * (t + 1)));
        lm_obs_le(ev, t, &mg, &b, tol, "(b) min ||grad||^2 <= 2L(M0)/(eta T'), T'=%d", t + 1);
    }
    /* trajectory-restricted PL: xi = L(M_last), mu_traj over the iterates above xi */
    double xi = lm_num_get_d(&r.L[r.T]), L0 = lm_num_get_d(&r.L[0]);
    double eps = 0.5 * (L0 - xi), mut = HUGE_VAL;
    for (int t = 0; t < r.T; t++) {
        double Lt = lm_num_get_d(&r.L[t]);
        if (Lt > xi) mut = fmin(mut, 2.0 * lm_num_get_d(&r.g2[t]) / (Lt - xi));
    }
    if (eps > 0 && mut < HUGE_VAL && mut > 0) {
        double Tt = ceil(4.0 * prm.T_scale * L0 / (eta * mut * eps));
        lm_measure(ev, "mu_traj", mut);
        lm_measure(ev, "T(mu_traj)", Tt);
        if (Tt <= r.T) {
            int Tc = Tt < 1 ? 1 : (int)Tt, tm = 0;
            for (int t = 1; t < Tc; t++)
                if (lm_num_cmp(&r.L[t], &r.L[tm]) < 0) tm = t;
            lm_obs_le_d(ev, Tc - 1, lm_num_get_d(&r.L[tm]), xi + eps, tol,
                        "trajectory PL conclusion min_{t<T} L <= xi + eps (mu_traj)");
        } else {
            lm_measure(ev, "flag: vacuous-T", 1);
        }
    }
    lm_num_clears(&a, &b, &mg, (lm_num *)NULL);
    lm_measure(ev, "L_E8 (RECON)", K.LE8);
    if (c->backend == LM_DOUBLE && !ev->searching && ev->tmax < 0) {
        double cstar = 0;
        for (double cc = 1; cc <= 131072; cc *= (cc < 2 ? 2 : 4)) {
            lm_prt_run q;
            memset(&q, 0, sizeof q);
            lm_prt_gd(&q, P, M0, cc / K.LE8, steps / 2 > 2 ? steps / 2 : 2, -1, 0, 0.0, NULL, NULL);
            int ok = q.nonfinite < 0 && descent_ok(&q, cc / K.LE8, tol);
            lm_prt_run_free(&q);
            if (!ok) break;
            cstar = cc;
        }
        lm_measure(ev, "empirical descent threshold c* (eta = c*/L_E8)", cstar);
    }
    for (int t = 0; t <= r.T; t += (r.T / 60 > 0 ? r.T / 60 : 1))
        lm_series(ev, "L(M_t)", t, lm_num_get_d(&r.L[t]));
done:
    lm_prt_run_free(&r);
    lm_mat_free(M0);
    lm_pr_free(P);
    return rc;
}

static int eval(lm_eval *ev)
{
    if (ev->config < 2) return eval_toy(ev, ev->config);
    return eval_pr(ev);
}

static const lm_reading readings[] = {
    {LM_READ_PAPER, "Toy f(x) = a x^2, a in [1/2, 2], L = 2a, mu = 8a (tight), xi = 0, x0 in [-3, "
                    "3]: GD with eta = 1/L reaches f <= eps within the theorem's T.", NULL},
    {LM_READ_PAPER, "Toy f(x) = x^2 + 3 sin^2 x, L = 8, mu = 1/8, xi = 0, x0 in [-5, 5]: a "
                    "nonconvex PL function; descent, gradient bound and the conclusion within "
                    "T.", NULL},
    {LM_READ_PAPER, "Pruning loss, non-causal on even and causal on odd instances, eta = 1/L_E8: "
                    "descent and gradient bound at every iterate, trajectory-restricted "
                    "conclusion.", NULL},
    LM_READINGS_END};

LM_CLAIM(claim_pruning_theorem5_2) = {
    .kind = LM_KIND_TRAJECTORY,
    .source = "Theorem 5.2 (Frei and Gu 2021, Theorem 3.1)",
    .origin = "reconstructed",
    .confidence = "medium",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 0.125,
    .eval = eval,
};
