/* Tests for the double fast path of the W-only optimizers of src/attn/opt.c and the
 * forward pass of src/attn/attn.c (issue 21, part 3): the queries W x_i1 in one pass
 * over W, the gradient kept as its rank-n factors, norm and update fused.
 *
 * - bit for bit against the step composed of the general matrix operations (dgemm
 *   products, the explicit rank-one expansion, lm_mat_frob, scale, axpy), which is
 *   what the step computed before, at d = 8, 33, 200 (dgemm runs single-threaded at
 *   these sizes, in the summation order the fast queries reproduce);
 * - against a plain-loop reference (naive dot products, naive norm) to 1e-12;
 * - hostile: an exactly zero gradient (all query tokens zero: finite log-scale but
 *   ||G|| = 0) and a zero coefficient matrix (u orthogonal to every token) leave W
 *   untouched and finite, as the general path does. */
#include "test_support.h"
#include "lm_attn.h"
#include <string.h>

static lm_attn_data *toy(int n, int T, int d, unsigned seed)
{
    lm_rng g;
    lm_rng_init(&g, seed);
    lm_ctx c = lm_ctx_double();
    return lm_attn_toy_data(&g, n, T, d, 0, &c);
}

static lm_mat *rand_W(int d, unsigned seed, double s)
{
    lm_rng g;
    lm_rng_init(&g, seed);
    lm_ctx c = lm_ctx_double();
    lm_mat *W = lm_mat_new(d, d, &c);
    lm_mat_randn(W, &g, s);
    return W;
}

/* forward pass through lm_mat_mul products (the former lm_attn_forward) */
static int forward_mats(lm_attn_fwd *F, const lm_attn_data *D, const lm_mat *W)
{
    const lm_ctx *c = &D->ctx;
    lm_mat *A = lm_mat_new(D->n, D->T, c), *Gm = lm_mat_new(D->n, D->T, c);
    lm_mat *x1 = lm_mat_new(D->d, 1, c), *q = lm_mat_new(D->d, 1, c), *av = lm_mat_new(D->T, 1, c);
    lm_mat *gv = lm_mat_new(D->T, 1, c);
    for (int i = 0; i < D->n; i++) {
        for (int k = 0; k < D->d; k++) lm_mat_set_d(x1, k, 0, lm_mat_get_d(D->X[i], 0, k));
        lm_mat_mul(q, W, 0, x1, 0);
        lm_mat_mul(av, D->X[i], 0, q, 0);
        lm_mat_mul(gv, D->X[i], 0, D->u, 0);
        for (int t = 0; t < D->T; t++) {
            lm_mat_set_d(A, i, t, lm_mat_get_d(av, t, 0));
            lm_mat_set_d(Gm, i, t, D->y[i] < 0 ? -lm_mat_get_d(gv, t, 0) : lm_mat_get_d(gv, t, 0));
        }
    }
    int rc = lm_attn_forward_scores(F, A, Gm, LM_ATTN_EXP);
    lm_mat_free(A); lm_mat_free(Gm); lm_mat_free(x1); lm_mat_free(q); lm_mat_free(av); lm_mat_free(gv);
    return rc;
}

/* G = sum_i v_i x_i1^T by explicit rank-one products and matrix additions */
static void expand_mats(lm_mat *G, const lm_mat *C, const lm_attn_data *D)
{
    const lm_ctx *c = &D->ctx;
    lm_mat *ci = lm_mat_new(D->T, 1, c), *vi = lm_mat_new(D->d, 1, c), *x1 = lm_mat_new(D->d, 1, c);
    lm_mat *O = lm_mat_new(D->d, D->d, c);
    lm_mat_zero(G);
    for (int i = 0; i < D->n; i++) {
        for (int t = 0; t < D->T; t++) lm_mat_set_d(ci, t, 0, lm_mat_get_d(C, i, t));
        lm_mat_mul(vi, D->X[i], 1, ci, 0);
        for (int k = 0; k < D->d; k++) lm_mat_set_d(x1, k, 0, lm_mat_get_d(D->X[i], 0, k));
        lm_mat_mul(O, vi, 0, x1, 1);
        lm_mat_add(G, G, O);
    }
    lm_mat_free(ci); lm_mat_free(vi); lm_mat_free(x1); lm_mat_free(O);
}

/* one step of "ngd" (beta = 0), "ngd-mom" (beta > 0) or "gd" (gd = 1) composed of matrix operations */
static void step_mats(lm_mat *W, lm_mat *vW, const lm_attn_data *D, double eta, double beta, int gd)
{
    lm_ctx c = lm_ctx_double();
    lm_attn_fwd *F = lm_attn_fwd_new(D);
    cr_assert_eq(forward_mats(F, D, W), 0);
    lm_mat *C = lm_mat_new(D->n, D->T, &c), *G = lm_mat_new(D->d, D->d, &c);
    lm_num ls, nr;
    lm_num_inits(&c, &ls, &nr, (lm_num *)NULL);
    lm_attn_grad_coef(C, &ls, F);
    cr_assert(lm_num_isfinite(&ls));
    expand_mats(G, C, D);
    lm_mat_frob(&nr, G);
    cr_assert(lm_num_get_d(&nr) > 0.0);
    if (gd) {
        lm_mat_axpy_d(W, -eta * exp(lm_num_get_d(&ls)), G);
    } else {
        lm_mat_scale_d(G, G, exp(-log(lm_num_get_d(&nr))));
        if (beta > 0.0) {
            lm_mat_scale_d(vW, vW, beta);
            lm_mat_add(vW, vW, G);
            lm_mat_axpy_d(W, -eta, vW);
        } else {
            lm_mat_axpy_d(W, -eta, G);
        }
    }
    lm_num_clears(&ls, &nr, (lm_num *)NULL);
    lm_mat_free(C); lm_mat_free(G);
    lm_attn_fwd_free(F);
}

static size_t bits_differ(const lm_mat *A, const lm_mat *B)
{
    size_t k = 0, n = (size_t)A->r * (size_t)A->c;
    for (size_t i = 0; i < n; i++) k += memcmp(&A->d[i], &B->d[i], sizeof(double)) != 0;
    return k;
}

static void bitwise_case(const char *opt, int d, double beta, int gd)
{
    lm_attn_data *D = toy(5, 4, d, 100u + (unsigned)d);
    lm_mat *W0 = rand_W(d, 7u + (unsigned)d, 1.0 / d);
    lm_attn_state *S = lm_attn_state_new(W0, D->u);
    lm_mat *W = lm_mat_dup(W0), *vW = lm_mat_dup(S->vW);
    lm_attn_fwd *F = lm_attn_fwd_new(D);
    lm_attn_opt_par p;
    lm_attn_opt_par_default(&p);
    p.beta = beta;
    const lm_attn_opt *o = lm_attn_opt_find(opt);
    for (int t = 0; t < 5; t++) {
        cr_assert_eq(o->step(S, F, D, &p), 0, "%s d=%d: step %d failed", opt, d, t);
        step_mats(W, vW, D, p.eta, beta, gd);
        size_t k = bits_differ(S->W, W);
        cr_expect_eq(k, 0, "%s d=%d step %d: %zu of %d entries of W differ from the matrix composition", opt, d,
                     t, k, d * d);
        if (beta > 0.0) cr_expect_eq(bits_differ(S->vW, vW), 0, "%s d=%d: momentum differs", opt, d);
    }
    lm_attn_fwd_free(F);
    lm_attn_state_free(S);
    lm_mat_free(W0); lm_mat_free(W); lm_mat_free(vW);
    lm_attn_data_free(D);
}

Test(ib_fast, ngd_bitwise_as_matrix_composition)
{
    int ds[] = {8, 33, 200};
    for (int k = 0; k < 3; k++) bitwise_case("ngd", ds[k], 0.0, 0);
}

Test(ib_fast, gd_and_momentum_bitwise)
{
    int ds[] = {8, 33, 200};
    for (int k = 0; k < 3; k++) {
        bitwise_case("gd", ds[k], 0.0, 1);
        bitwise_case("ngd-mom", ds[k], 0.9, 0);
    }
}

/* the queries against dgemm (single-threaded up to d = 512; at d = 600 its threaded
 * driver cuts the same blocks) and against naive dots */
Test(ib_fast, queries_match_dgemm)
{
    int ds[] = {1, 8, 33, 200, 300, 600};
    for (int k = 0; k < 6; k++) {
        int d = ds[k], n = 7;
        lm_mat *W = rand_W(d, 3u + (unsigned)d, 1.0);
        lm_mat *X = rand_W(d > n ? d : n, 5u, 1.0); /* rows 0..n-1: the x_i */
        double *X1 = malloc((size_t)n * (size_t)d * sizeof *X1), *Q = malloc((size_t)n * (size_t)d * sizeof *Q);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < d; j++) X1[(size_t)i * d + j] = X->d[(size_t)i * X->c + j];
        lm_attn_queries_d(Q, W->d, X1, n, d);
        lm_ctx c = lm_ctx_double();
        lm_mat *x = lm_mat_new(d, 1, &c), *q = lm_mat_new(d, 1, &c);
        size_t bad = 0;
        double worst = 0.0;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < d; j++) lm_mat_set_d(x, j, 0, X1[(size_t)i * d + j]);
            lm_mat_mul(q, W, 0, x, 0);
            for (int a = 0; a < d; a++) {
                double f = Q[(size_t)i * d + a], m = q->d[a], s = 0.0, sa = 0.0;
                bad += memcmp(&f, &m, sizeof f) != 0;
                for (int j = 0; j < d; j++) {
                    s += W->d[(size_t)a * d + j] * X1[(size_t)i * d + j];
                    sa += fabs(W->d[(size_t)a * d + j] * X1[(size_t)i * d + j]);
                }
                if (sa > 0 && fabs(f - s) / sa > worst) worst = fabs(f - s) / sa;
            }
        }
        cr_expect_eq(bad, 0, "d=%d: %zu entries differ from dgemm", d, bad);
        cr_expect(worst < 4.0 * d * 1.2e-16, "d=%d: relative error %g against naive dots", d, worst);
        lm_mat_free(W); lm_mat_free(X); lm_mat_free(x); lm_mat_free(q);
        free(X1); free(Q);
    }
}

/* plain-loop reference: naive logits, naive G and norm */
Test(ib_fast, ngd_close_to_plain_loops)
{
    int ds[] = {8, 33, 200};
    for (int k = 0; k < 3; k++) {
        int d = ds[k], n = 5, T = 4;
        lm_attn_data *D = toy(n, T, d, 300u + (unsigned)d);
        lm_mat *W0 = rand_W(d, 11u + (unsigned)d, 1.0 / d);
        lm_attn_state *S = lm_attn_state_new(W0, D->u);
        lm_attn_fwd *F = lm_attn_fwd_new(D), *F2 = lm_attn_fwd_new(D);
        lm_attn_opt_par p;
        lm_attn_opt_par_default(&p);
        cr_assert_eq(lm_attn_opt_find("ngd")->step(S, F, D, &p), 0);
        lm_ctx c = lm_ctx_double();
        lm_mat *A = lm_mat_new(n, T, &c), *Gm = lm_mat_new(n, T, &c), *C = lm_mat_new(n, T, &c);
        for (int i = 0; i < n; i++)
            for (int t = 0; t < T; t++) {
                double a = 0.0, g = 0.0;
                for (int r = 0; r < d; r++) {
                    double wq = 0.0;
                    for (int j = 0; j < d; j++) wq += W0->d[(size_t)r * d + j] * lm_mat_get_d(D->X[i], 0, j);
                    a += lm_mat_get_d(D->X[i], t, r) * wq;
                    g += lm_mat_get_d(D->X[i], t, r) * lm_mat_get_d(D->u, r, 0);
                }
                lm_mat_set_d(A, i, t, a);
                lm_mat_set_d(Gm, i, t, D->y[i] * g);
            }
        cr_assert_eq(lm_attn_forward_scores(F2, A, Gm, LM_ATTN_EXP), 0);
        lm_num ls;
        lm_num_init(&ls, &c);
        lm_attn_grad_coef(C, &ls, F2);
        double *G = calloc((size_t)d * d, sizeof *G), nrm = 0.0, wmax = 0.0, worst = 0.0;
        for (int i = 0; i < n; i++)
            for (int t = 0; t < T; t++)
                for (int a = 0; a < d; a++)
                    for (int b = 0; b < d; b++)
                        G[(size_t)a * d + b] +=
                            lm_mat_get_d(C, i, t) * lm_mat_get_d(D->X[i], t, a) * lm_mat_get_d(D->X[i], 0, b);
        for (size_t e = 0; e < (size_t)d * d; e++) nrm += G[e] * G[e];
        nrm = sqrt(nrm);
        for (size_t e = 0; e < (size_t)d * d; e++) {
            double w = W0->d[e] - p.eta * G[e] / nrm;
            if (fabs(w) > wmax) wmax = fabs(w);
            if (fabs(w - S->W->d[e]) > worst) worst = fabs(w - S->W->d[e]);
        }
        cr_expect(worst <= 1e-12 * wmax, "d=%d: fast step %g from the plain-loop step (max |W| %g)", d, worst,
                  wmax);
        lm_num_clear(&ls);
        free(G);
        lm_mat_free(A); lm_mat_free(Gm); lm_mat_free(C); lm_mat_free(W0);
        lm_attn_fwd_free(F); lm_attn_fwd_free(F2);
        lm_attn_state_free(S);
        lm_attn_data_free(D);
    }
}

/* every query token zero: coefficients nonzero, G = 0 exactly, ||G|| = 0 */
Test(ib_fast, zero_gradient_no_step)
{
    const char *opts[] = {"ngd", "gd", "ngd-mom", "polyak", "polyak-cap"};
    for (int k = 0; k < 5; k++) {
        int d = 33;
        lm_attn_data *D = toy(4, 3, d, 900u);
        for (int i = 0; i < D->n; i++)
            for (int j = 0; j < d; j++) lm_mat_set_d(D->X[i], 0, j, 0.0);
        lm_mat *W0 = rand_W(d, 17u, 0.1);
        lm_attn_state *S = lm_attn_state_new(W0, D->u);
        lm_attn_fwd *F = lm_attn_fwd_new(D);
        lm_attn_opt_par p;
        lm_attn_opt_par_default(&p);
        int rc = lm_attn_opt_find(opts[k])->step(S, F, D, &p);
        cr_expect_eq(rc, 0, "%s: zero gradient gave rc %d", opts[k], rc);
        cr_expect_eq(bits_differ(S->W, W0), 0, "%s: W moved on a zero gradient", opts[k]);
        cr_expect(lm_mat_isfinite(S->W) && lm_mat_isfinite(S->vW), "%s: non-finite state", opts[k]);
        cr_expect_eq(S->t, 1);
        lm_attn_fwd_free(F);
        lm_attn_state_free(S);
        lm_mat_free(W0);
        lm_attn_data_free(D);
    }
}

/* u orthogonal to every token: all scores equal, C = 0, log-scale -inf */
Test(ib_fast, zero_coefficients_no_step)
{
    int d = 8;
    lm_attn_data *D = toy(3, 3, d, 901u);
    lm_mat_zero(D->u);
    lm_mat *W0 = rand_W(d, 19u, 0.1);
    lm_attn_state *S = lm_attn_state_new(W0, D->u);
    lm_attn_fwd *F = lm_attn_fwd_new(D);
    lm_attn_opt_par p;
    lm_attn_opt_par_default(&p);
    cr_expect_eq(lm_attn_opt_find("ngd")->step(S, F, D, &p), 0);
    cr_expect_eq(bits_differ(S->W, W0), 0, "W moved with zero coefficients");
    lm_attn_fwd_free(F);
    lm_attn_state_free(S);
    lm_mat_free(W0);
    lm_attn_data_free(D);
}

/* the general (MPFR) path still agrees with the double fast path */
Test(ib_fast, mpfr_path_agrees)
{
    int d = 33;
    lm_attn_data *D = toy(5, 4, d, 77u);
    lm_ctx m = lm_ctx_mpfr(128);
    lm_attn_data *Dm = lm_attn_data_convert(D, &m);
    lm_mat *W0 = rand_W(d, 23u, 1.0 / d);
    lm_mat *W0m = lm_mat_new(d, d, &m);
    lm_mat_copy(W0m, W0);
    lm_attn_state *S = lm_attn_state_new(W0, D->u), *Sm = lm_attn_state_new(W0m, Dm->u);
    lm_attn_fwd *F = lm_attn_fwd_new(D), *Fm = lm_attn_fwd_new(Dm);
    lm_attn_opt_par p;
    lm_attn_opt_par_default(&p);
    const lm_attn_opt *o = lm_attn_opt_find("ngd");
    for (int t = 0; t < 3; t++) {
        cr_assert_eq(o->step(S, F, D, &p), 0);
        cr_assert_eq(o->step(Sm, Fm, Dm, &p), 0);
    }
    double worst = 0.0;
    for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++) {
            double e = fabs(lm_mat_get_d(S->W, a, b) - lm_mat_get_d(Sm->W, a, b));
            if (e > worst) worst = e;
        }
    cr_expect(worst < 1e-12, "double and MPFR-128 NGD differ by %g after 3 steps", worst);
    lm_attn_fwd_free(F); lm_attn_fwd_free(Fm);
    lm_attn_state_free(S); lm_attn_state_free(Sm);
    lm_mat_free(W0); lm_mat_free(W0m);
    lm_attn_data_free(D); lm_attn_data_free(Dm);
}

/* ---- the double forward rows and gradient coefficients (lm_attn_fast_paths) ---------- */

/* every output of the forward pass and of lm_attn_grad_coef, fast path against the generic
 * lm_num path, bit for bit; returns the number of differing doubles */
static int fast_vs_generic(const lm_mat *A, const lm_mat *G, lm_attn_loss loss)
{
    lm_ctx c = lm_ctx_double();
    const int n = A->r, T = A->c;
    lm_attn_fwd *F[2];
    lm_mat *C[2];
    lm_num ls[2];
    int rc[2];
    for (int k = 0; k < 2; k++) {
        lm_attn_fast_paths(k == 0);
        F[k] = lm_attn_fwd_new_dims(n, T, 1, &c);
        C[k] = lm_mat_new(n, T, &c);
        lm_num_init(&ls[k], &c);
        rc[k] = lm_attn_forward_scores(F[k], A, G, loss);
        lm_attn_grad_coef(C[k], &ls[k], F[k]);
    }
    lm_attn_fast_paths(1);
    int bad = rc[0] != rc[1] || F[0]->unique != F[1]->unique ||
              memcmp(&F[0]->mingap, &F[1]->mingap, sizeof(double)) != 0;
    const lm_mat *pairs[][2] = {{F[0]->a, F[1]->a},         {F[0]->logs, F[1]->logs}, {F[0]->gam, F[1]->gam},
                                {F[0]->lomso, F[1]->lomso}, {F[0]->logdel, F[1]->logdel},
                                {F[0]->marg, F[1]->marg},   {F[0]->logl, F[1]->logl}, {F[0]->logdl, F[1]->logdl},
                                {C[0], C[1]}};
    for (size_t p = 0; p < sizeof pairs / sizeof *pairs; p++)
        for (int i = 0; i < pairs[p][0]->r * pairs[p][0]->c; i++)
            bad += memcmp(&pairs[p][0]->d[i], &pairs[p][1]->d[i], sizeof(double)) != 0;
    bad += memcmp(&F[0]->logL.d, &F[1]->logL.d, sizeof(double)) != 0;
    bad += memcmp(&ls[0].d, &ls[1].d, sizeof(double)) != 0;
    for (int i = 0; i < n; i++) bad += F[0]->opt[i] != F[1]->opt[i];
    for (int k = 0; k < 2; k++) {
        lm_attn_fwd_free(F[k]);
        lm_mat_free(C[k]);
        lm_num_clear(&ls[k]);
    }
    return bad;
}

Test(ib_fast, forward_rows_and_coefficients_match_the_generic_path_bit_for_bit)
{
    lm_ctx c = lm_ctx_double();
    lm_rng g;
    lm_rng_init(&g, 2111);
    const int shapes[][2] = {{1, 1}, {1, 2}, {3, 4}, {6, 8}, {5, 17}};
    int cases = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
        for (int kind = 0; kind < 5; kind++)
            for (int loss = 0; loss < 2; loss++) {
                const int n = shapes[s][0], T = shapes[s][1];
                lm_mat *A = lm_mat_new(n, T, &c), *G = lm_mat_new(n, T, &c);
                for (int i = 0; i < n; i++)
                    for (int t = 0; t < T; t++) {
                        double a = 3 * lm_rng_normal(&g), y = lm_rng_normal(&g);
                        if (kind == 1) y = (double)(t % 2);           /* tied scores, a tied argmax */
                        if (kind == 2) a *= 300, y *= 1e3;           /* saturated softmax, huge margins */
                        if (kind == 3 && t == T - 1) a = -INFINITY;  /* a token that never attends */
                        if (kind == 4 && t == 0 && i == 0) y = NAN;  /* a NaN score */
                        lm_mat_set_d(A, i, t, a);
                        lm_mat_set_d(G, i, t, y);
                    }
                cr_expect_eq(fast_vs_generic(A, G, loss ? LM_ATTN_LOGISTIC : LM_ATTN_EXP), 0,
                             "n=%d T=%d kind %d loss %d: the fast path differs", n, T, kind, loss);
                cases++;
                lm_mat_free(A);
                lm_mat_free(G);
            }
    cr_expect_eq(cases, 50);
}

/* the comparison can fail: a perturbed score moves the outputs */
Test(ib_fast, the_bit_comparison_sees_a_one_ulp_change)
{
    lm_ctx c = lm_ctx_double();
    lm_mat *A = lm_mat_new(2, 3, &c), *G = lm_mat_new(2, 3, &c), *G2 = lm_mat_new(2, 3, &c);
    for (int k = 0; k < 6; k++) {
        A->d[k] = 0.3 * k - 0.7;
        G->d[k] = G2->d[k] = 0.2 * (k % 3) + 0.1;
    }
    G2->d[4] = nextafter(G2->d[4], 1.0);
    lm_attn_fwd *F1 = lm_attn_fwd_new_dims(2, 3, 1, &c), *F2 = lm_attn_fwd_new_dims(2, 3, 1, &c);
    lm_attn_forward_scores(F1, A, G, LM_ATTN_EXP);
    lm_attn_forward_scores(F2, A, G2, LM_ATTN_EXP);
    cr_expect(memcmp(&F1->logL.d, &F2->logL.d, sizeof(double)) != 0 ||
                  memcmp(F1->marg->d, F2->marg->d, 2 * sizeof(double)) != 0,
              "a one-ulp score change moved nothing");
    lm_attn_fwd_free(F1);
    lm_attn_fwd_free(F2);
    lm_mat_free(A);
    lm_mat_free(G);
    lm_mat_free(G2);
}
