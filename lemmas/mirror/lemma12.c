/* lemmas/mirror/lemma12.c
 *
 * \claim{mirror/lemma12}{$\ell_p$ norm vs.\ vectorised $\ell_2$ norm}
 * \source{mirror-descent-attention, Lemma 12 (Appendix A.2)}
 * \statement{For $W\in\mathbb R^{d\times d}$: if $p\ge2$,
 *   $\|W\|_p\le\|\mathrm{vec}(W)\|_2\le d^{1-2/p}\|W\|_p$; if $1<p<2$,
 *   $d^{1-2/p}\|W\|_p\le\|\mathrm{vec}(W)\|_2\le\|W\|_p$ (the same interval with the two ends
 *   switched).  For $m\times m'$ matrices $d^{1-2/p}$ becomes $(mm')^{1/2-1/p}$.}
 * \check{One configuration per $p\in\{1.01,1.5,1.99,2,2.01,3,10,50\}$.  For each instance
 *   both ends are compared, $\ell\,\|W\|_p\le\|\mathrm{vec}W\|_2\le h\,\|W\|_p$ with
 *   $(\ell,h)=(1,c)$ for $p\ge2$ and $(c,1)$ for $p<2$, $c=(mm')^{1/2-1/p}$ formed in the
 *   working precision; the ratio is the left side over the right side.  Matrices are drawn as
 *   doubles, square with $d\in\{1,2,3,10,64\}$, from kinds that cycle with the index: all
 *   magnitudes equal with random signs (the end $c$ is attained exactly); one nonzero entry
 *   (the end $1$ is attained exactly); Gaussian; heavy-tailed (ratios of Gaussians);
 *   $k$-sparse; rectangular $m\times m'$ with $m,m'\le12$ (the general constant); and a
 *   Gaussian at scale $10^{[-150,150]}$ (the norms are computed scaled by $\max|W_{ab}|$, so
 *   nothing overflows even at $p=50$).  Since both ends are attained, rounding alone moves
 *   the computed ratio across $1$ by a few units of $u$; each comparison therefore carries
 *   the relative tolerance $\tau=4(n+16)u$, $n=mm'$, a bound on the rounding of the two
 *   scaled norms in the working precision ($\approx10^{-14}$--$10^{-12}$ in double,
 *   $10^{-74}$ at 256 bits, where the catalogue asks for $10^{-13}$ and $10^{-60}$); a
 *   comparison within $2^{-44}$ of its bound in double is re-decided in MPFR at 256 bits.
 *   The adversarial search runs Nelder--Mead over the nine entries of a $3\times3$ matrix
 *   (a random base plus the search point) and maximises the worse of the two ratios.
 *   Reported per $p$: the instance's ratio $\|\mathrm{vec}W\|_2/(\ell\|W\|_p)\ge1$ and
 *   $\|\mathrm{vec}W\|_2/(h\|W\|_p)\le1$, which reach $1$ on the tight kinds (the ends are
 *   sharp).  \texttt{lo\_scale} and \texttt{hi\_scale} multiply $\ell$ and $h$: values above
 *   resp.\ below $1$ must be violated.  Readings: every configuration is a \texttt{paper} reading (the statement as the catalogue reconstructs it).}
 */
#include "lm_claim.h"
#include "lm_md.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const configs[] = {"p=1.01", "p=1.5", "p=1.99", "p=2",
                                      "p=2.01", "p=3",   "p=10",   "p=50", NULL};
/* one reading per configuration (issue 16) */
static const lm_reading readings[] = {
    {LM_READ_PAPER, "p = 1.01, next to l_1: d^(1-2/p) ||W||_p <= ||vec W||_2 <= ||W||_p with the "
                    "lower end near 1/sqrt(n), both ends attained by the tight kinds.", NULL},
    {LM_READ_PAPER, "p = 1.5, an interior p < 2: d^(1-2/p) ||W||_p <= ||vec W||_2 <= ||W||_p over "
                    "equal-magnitude, one-entry, Gaussian, sparse, rectangular and wide-scale "
                    "matrices.", NULL},
    {LM_READ_PAPER, "p = 1.99, just below 2 where both ends nearly meet: the p < 2 form of the "
                    "comparison, where rounding alone could cross a bound.", NULL},
    {LM_READ_PAPER, "p = 2, the boundary where both ends equal 1: ||vec W||_2 = ||W||_p exactly, "
                    "the sharpest test of the rounding tolerance.", NULL},
    {LM_READ_PAPER, "p = 2.01, just above 2 with the ends switched: ||W||_p <= ||vec W||_2 <= "
                    "d^(1-2/p) ||W||_p with both ends close to 1.", NULL},
    {LM_READ_PAPER, "p = 3, the paper's largest experimental exponent: ||W||_p <= ||vec W||_2 <= "
                    "d^(1-2/p) ||W||_p over all matrix kinds, ends attained.", NULL},
    {LM_READ_PAPER, "p = 10, a large exponent: ||W||_p <= ||vec W||_2 <= d^0.8 ||W||_p for square "
                    "d up to 64, both ends attained by the tight kinds.", NULL},
    {LM_READ_PAPER, "p = 50, the extreme exponent, with scaled norms so nothing overflows at scale "
                    "1e+-150: both ends of the p >= 2 comparison.", NULL},
    LM_READINGS_END};

static const double PS[] = {1.01, 1.5, 1.99, 2.0, 2.01, 3.0, 10.0, 50.0};

#define PARAMS(NUM, SWITCH)                                                                        \
    NUM(lo_scale, 1.0, "[0, 1e6]", "multiplies the lower end (1 for p >= 2, d^(1-2/p) for p < 2)") \
    NUM(hi_scale, 1.0, "[0, 1e6]", "multiplies the upper end (d^(1-2/p) for p >= 2, 1 for p < 2)") \
    NUM(tol_scale, 1.0, "[0, inf)", "multiplies the rounding tolerance 4(n+16)u")
LM_PARAMS(PARAMS)

enum { K_EQUAL, K_ONE, K_GAUSS, K_HEAVY, K_SPARSE, K_RECT, K_SCALE, NKIND };
static const char *const kind_name[NKIND] = {"equal magnitudes", "one nonzero", "gaussian",
                                             "heavy-tailed",     "k-sparse",    "rectangular",
                                             "scale 1e+-150"};
static const int DIMS[5] = {1, 2, 3, 10, 64};

/* entries as doubles (the same matrix in every precision) */
static void gen(double *a, int n, int kind, lm_rng *g)
{
    int one = lm_rng_int(g, 0, n - 1), k_nz = lm_rng_int(g, 1, n);
    double s = pow(10.0, -150.0 + 300.0 * lm_rng_uniform(g)), m = lm_rng_uniform(g) + 0.5;
    for (int k = 0; k < n; k++) {
        double z = lm_rng_normal(g), z2 = lm_rng_normal(g), r = lm_rng_uniform(g);
        switch (kind) {
        case K_EQUAL: a[k] = r < 0.5 ? -m : m; break;
        case K_ONE: a[k] = k == one ? z : 0.0; break;
        case K_HEAVY: a[k] = z / (fabs(z2) + 1e-300); break;
        case K_SPARSE: a[k] = r * n < k_nz ? z : 0.0; break;
        case K_SCALE: a[k] = s * z; break;
        default: a[k] = z; break; /* K_GAUSS, K_RECT */
        }
    }
    int nz = 0;
    for (int k = 0; k < n; k++) nz |= a[k] != 0.0;
    if (!nz) a[one] = 1.0;
}

static int eval(lm_eval *ev)
{
    const lm_params P = lm_params_of(ev);
    double p = PS[ev->config];
    lm_rng *g = lm_eval_rng(ev);
    const lm_ctx *c = ev->ctx;
    int kind, m, mm;
    if (ev->x) {
        kind = K_GAUSS;
        m = mm = 3;
    } else {
        kind = ev->index % NKIND;
        m = mm = DIMS[(ev->index + ev->index / NKIND) % 5];
        if (kind == K_RECT) {
            m = lm_rng_int(g, 1, 12);
            mm = lm_rng_int(g, 1, 12);
        }
    }
    int n = m * mm;
    double *a = lm_xmalloc((size_t)n * sizeof *a);
    gen(a, n, kind, g);
    if (ev->x)
        for (int k = 0; k < n && k < ev->nx; k++) a[k] += ev->x[k];
    lm_mat *W = lm_mat_new(m, mm, c);
    lm_mat_set_array(W, a);
    free(a);
    lm_num n2, np, cst, e, lo, hi, x;
    lm_num_inits(c, &n2, &np, &cst, &e, &lo, &hi, &x, (lm_num *)NULL);
    lm_mat_frob(&n2, W);
    lm_md_pnorm(&np, W, p);
    if (lm_num_sgn(&np) <= 0) { /* the search may land on W = 0 */
        lm_assume(ev, 0, "W = 0: both norms vanish");
        goto out;
    }
    /* c = (m m')^(1/2 - 1/p) */
    lm_num_set_d(&e, 1.0);
    lm_num_div_d(&e, &e, p);
    lm_num_d_sub(&e, 0.5, &e);
    lm_num_set_si(&cst, n);
    lm_num_pow(&cst, &cst, &e);
    if (p >= 2.0) {
        lm_num_set_d(&lo, 1.0);
        lm_num_set(&hi, &cst);
    } else {
        lm_num_set(&lo, &cst);
        lm_num_set_d(&hi, 1.0);
    }
    lm_num_mul_d(&lo, &lo, P.lo_scale);
    lm_num_mul_d(&hi, &hi, P.hi_scale);
    if (!lm_num_isfinite(&n2) || !lm_num_isfinite(&np) || !lm_num_isfinite(&cst)) {
        lm_fail(ev, "non-finite norm (p=%g)", p);
        goto out;
    }
    double tau = P.tol_scale * 4.0 * (n + 16) * lm_ctx_eps(c);
    lm_num_mul(&x, &lo, &np);
    lm_obs_le(ev, -1, &x, &n2, tau, "lower end * ||W||_p <= ||vec W||_2 (%s, %dx%d)", kind_name[kind], m,
              mm);
    double rlo = lm_num_get_d(&n2) / lm_num_get_d(&x);
    lm_num_mul(&x, &hi, &np);
    lm_obs_le(ev, -1, &n2, &x, tau, "||vec W||_2 <= upper end * ||W||_p (%s, %dx%d)", kind_name[kind], m,
              mm);
    double rhi = lm_num_get_d(&n2) / lm_num_get_d(&x);
    char nm[96];
    snprintf(nm, sizeof nm, "||vec W||_2 / (lower end ||W||_p) (p=%g)", p);
    lm_measure(ev, nm, rlo);
    snprintf(nm, sizeof nm, "||vec W||_2 / (upper end ||W||_p) (p=%g)", p);
    lm_measure(ev, nm, rhi);
    snprintf(nm, sizeof nm, "stated constant (mm')^(1/2-1/p) (p=%g)", p);
    lm_measure(ev, nm, lm_num_get_d(&cst));
    lm_measure(ev, "m", m);
    lm_measure(ev, "m'", mm);
    lm_measure(ev, "kind", kind);
    lm_measure(ev, "tolerance tau", tau);
out:
    lm_num_clears(&n2, &np, &cst, &e, &lo, &hi, &x, (lm_num *)NULL);
    lm_mat_free(W);
    return 0;
}

LM_CLAIM(claim_mirror_lemma12) = {
    .kind = LM_KIND_POINTWISE,
    .source = "Lemma 12, Appendix A.2",
    .origin = "reconstructed",
    .confidence = "high",
    .params = params,
    .configs = configs,
    .readings = readings,
    .inst_scale = 1.0,
    .search_dim = 9,
    .eval = eval,
};
