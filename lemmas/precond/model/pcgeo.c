/* src/models/pcgeo.c -- geometry near the manifold of global minima (see lm_pcgeo.h). */
#include "lm_pcgeo.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* U S^1/2 (k x d) and S^1/2 V^T (d x d) with S replaced by S with entry `drop` set to 0 (-1: none) */
static void half_f(lm_mat *US, lm_mat *SV, const lm_pcdata *P, int drop)
{
    const lm_ctx *c = &P->ctx;
    lm_num x, y;
    lm_num_inits(c, &x, &y, (lm_num *)NULL);
    for (int j = 0; j < P->d; j++) {
        lm_num_sqrt(&x, &P->s[j]);
        if (j == drop) lm_num_set_d(&x, 0.0);
        for (int i = 0; i < P->k; i++) {
            lm_mat_get(&y, P->U, i, j);
            lm_num_mul(&y, &y, &x);
            lm_mat_set(US, i, j, &y);
        }
        for (int i = 0; i < P->d; i++) {
            lm_mat_get(&y, P->V, i, j);
            lm_num_mul(&y, &y, &x);
            lm_mat_set(SV, j, i, &y);
        }
    }
    lm_num_clears(&x, &y, (lm_num *)NULL);
}

/* H[dA,dB] at a point with E = 0, N = 0 (the manifold), in double */
static void hess_apply(double *out, const double *in, const lm_mat *A, const lm_mat *B, double lam, int k,
                       int d)
{
    lm_ctx c = lm_ctx_double();
    lm_mat *dA = lm_mat_new(k, d, &c), *dB = lm_mat_new(d, d, &c), *dE = lm_mat_new(k, d, &c);
    lm_mat *dN = lm_mat_new(d, d, &c), *T = lm_mat_new(d, d, &c), *TA = lm_mat_new(k, d, &c);
    lm_mat_set_array(dA, in);
    lm_mat_set_array(dB, in + k * d);
    lm_mat_mul(dE, A, 0, dB, 0);
    lm_mat_mul(TA, dA, 0, B, 0);
    lm_mat_add(dE, dE, TA);
    lm_mat_mul(dN, A, 1, dA, 0);
    lm_mat_mul(T, dA, 1, A, 0);
    lm_mat_add(dN, dN, T);
    lm_mat_mul(T, B, 0, dB, 1);
    lm_mat_sub(dN, dN, T);
    lm_mat_mul(T, dB, 0, B, 1);
    lm_mat_sub(dN, dN, T);
    /* HA = 2 dE B^T + 4 lam A dN, HB = 2 A^T dE - 4 lam dN B */
    lm_mat_mul(TA, dE, 0, B, 1);
    lm_mat_scale_d(TA, TA, 2.0);
    lm_mat *TA2 = lm_mat_new(k, d, &c);
    lm_mat_mul(TA2, A, 0, dN, 0);
    lm_mat_axpy_d(TA, 4.0 * lam, TA2);
    lm_mat_get_array(out, TA);
    lm_mat_mul(T, A, 1, dE, 0);
    lm_mat_scale_d(T, T, 2.0);
    lm_mat *T2 = lm_mat_new(d, d, &c);
    lm_mat_mul(T2, dN, 0, B, 0);
    lm_mat_axpy_d(T, -4.0 * lam, T2);
    lm_mat_get_array(out + k * d, T);
    lm_mat_free(dA); lm_mat_free(dB); lm_mat_free(dE); lm_mat_free(dN); lm_mat_free(T);
    lm_mat_free(TA); lm_mat_free(TA2); lm_mat_free(T2);
}

static void normalise(double *v, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) s += v[i] * v[i];
    s = sqrt(s);
    for (int i = 0; i < n; i++) v[i] = s > 0 ? v[i] / s : 0.0;
}

lm_pcgeo *lm_pcgeo_new(int d, int k, double csig, double kappa, double tau, double lambda, uint64_t seed)
{
    lm_pcgeo *G = lm_xcalloc(1, sizeof *G);
    G->d = d;
    G->k = k;
    G->n = (k + d) * d;
    G->lambda = lambda;
    lm_ctx c = lm_ctx_double();
    lm_rng g;
    lm_rng_init(&g, lm_hash_u64(seed, 0x9e0));
    G->Pd = lm_pc_gen(d, k, csig, kappa, tau, 0.1, lambda, &g, &c);
    G->rkey = lm_hash_u64(seed, 0x9e1);
    G->Rd = lm_mat_new(d, d, &c);
    lm_rng gr;
    lm_rng_init(&gr, G->rkey);
    lm_pc_rand_orth(G->Rd, &gr);
    G->s1 = lm_num_get_d(&G->Pd->s[0]);
    G->sd = lm_num_get_d(&G->Pd->s[d - 1]);
    /* Hessian at theta_R in AB-coordinates */
    int n = G->n;
    lm_mat *US = lm_mat_new(k, d, &c), *SV = lm_mat_new(d, d, &c), *A = lm_mat_new(k, d, &c),
           *B = lm_mat_new(d, d, &c);
    half_f(US, SV, G->Pd, -1);
    lm_mat_mul(A, US, 0, G->Rd, 0);
    lm_mat_mul(B, G->Rd, 1, SV, 0);
    lm_mat *H = lm_mat_new(n, n, &c), *Ev = lm_mat_new(n, n, &c);
    double *e = lm_xcalloc((size_t)n, sizeof *e), *col = lm_xcalloc((size_t)n, sizeof *col);
    for (int j = 0; j < n; j++) {
        memset(e, 0, (size_t)n * sizeof *e);
        e[j] = 1.0;
        hess_apply(col, e, A, B, lambda, k, d);
        for (int i = 0; i < n; i++) lm_mat_set_d(H, i, j, col[i]);
    }
    for (int i = 0; i < n; i++) /* symmetrise the rounding */
        for (int j = i + 1; j < n; j++) {
            double v = 0.5 * (lm_mat_get_d(H, i, j) + lm_mat_get_d(H, j, i));
            lm_mat_set_d(H, i, j, v);
            lm_mat_set_d(H, j, i, v);
        }
    lm_num *w = lm_nums_new(n, &c);
    int rc = lm_mat_symeig(w, Ev, H);
    double wmax = lm_num_get_d(&w[n - 1]);
    int j0 = 0;
    while (j0 < n - 1 && lm_num_get_d(&w[j0]) < 1e-9 * wmax) j0++;
    G->ntan = j0;
    G->hmin = lm_num_get_d(&w[j0]);
    G->hmax = wmax;
    for (int i = 0; i < n; i++) {
        G->basis[0][i] = lm_mat_get_d(Ev, i, j0);
        G->basis[1][i] = lm_mat_get_d(Ev, i, n - 1);
    }
    /* towards the saddle theta_sad(d): -sqrt(s_d) (U e_d e_d^T R, R^T e_d e_d^T V^T) */
    lm_mat *US0 = lm_mat_new(k, d, &c), *SV0 = lm_mat_new(d, d, &c);
    half_f(US0, SV0, G->Pd, d - 1);
    lm_mat_sub(US0, US0, US);
    lm_mat_sub(SV0, SV0, SV);
    lm_mat_mul(A, US0, 0, G->Rd, 0);
    lm_mat_mul(B, G->Rd, 1, SV0, 0);
    lm_mat_get_array(G->basis[2], A);
    lm_mat_get_array(G->basis[2] + k * d, B);
    normalise(G->basis[2], n);
    lm_rng gb;
    lm_rng_init(&gb, lm_hash_u64(seed, 0x9e2));
    for (int b = 3; b < LM_PCGEO_NB; b++) {
        for (int i = 0; i < n; i++) G->basis[b][i] = lm_rng_normal(&gb);
        normalise(G->basis[b], n);
    }
    lm_nums_free(w, n);
    free(e);
    free(col);
    lm_mat_free(US); lm_mat_free(SV); lm_mat_free(A); lm_mat_free(B); lm_mat_free(H); lm_mat_free(Ev);
    lm_mat_free(US0); lm_mat_free(SV0);
    if (rc || !(G->hmin > 0)) {
        lm_pcgeo_free(G);
        return NULL;
    }
    return G;
}

void lm_pcgeo_free(lm_pcgeo *G)
{
    if (!G) return;
    if (G->Pd) lm_pc_free(G->Pd);
    if (G->Pm) lm_pc_free(G->Pm);
    lm_mat_free(G->Rd);
    if (G->Rm) lm_mat_free(G->Rm);
    free(G);
}

const lm_pcdata *lm_pcgeo_inst(lm_pcgeo *G, const lm_ctx *c, const lm_mat **R)
{
    if (c->backend == LM_DOUBLE) {
        *R = G->Rd;
        return G->Pd;
    }
    if (!G->Pm || G->pm != c->prec) {
        if (G->Pm) lm_pc_free(G->Pm);
        if (G->Rm) lm_mat_free(G->Rm);
        G->Pm = lm_pc_convert(G->Pd, c);
        /* the SVD of M* recomputed in MPFR may pick other signs for (u_j, v_j): align them with
         * the double instance, so theta_R (and every direction built at it) is the same point in
         * every precision */
        lm_num x, y;
        lm_num_inits(c, &x, &y, (lm_num *)NULL);
        for (int j = 0; j < G->d; j++) {
            double dot = 0;
            for (int i = 0; i < G->k; i++) dot += lm_mat_get_d(G->Pm->U, i, j) * lm_mat_get_d(G->Pd->U, i, j);
            if (dot >= 0) continue;
            for (int i = 0; i < G->k; i++) {
                lm_mat_get(&x, G->Pm->U, i, j);
                lm_num_neg(&x, &x);
                lm_mat_set(G->Pm->U, i, j, &x);
            }
            for (int i = 0; i < G->d; i++) {
                lm_mat_get(&y, G->Pm->V, i, j);
                lm_num_neg(&y, &y);
                lm_mat_set(G->Pm->V, i, j, &y);
            }
        }
        lm_num_clears(&x, &y, (lm_num *)NULL);
        G->Rm = lm_mat_new(G->d, G->d, c);
        lm_rng gr;
        lm_rng_init(&gr, G->rkey);
        lm_pc_rand_orth(G->Rm, &gr); /* orthogonal to this precision */
        G->pm = c->prec;
    }
    *R = G->Rm;
    return G->Pm;
}

void lm_pcgeo_pt_init(lm_pcgeo_pt *o, const lm_ctx *c)
{
    lm_num_inits(c, &o->ip, &o->gn, &o->dn, &o->ex, &o->exL, (lm_num *)NULL);
    o->lam_min = 0;
    o->dist_core = 0;
    o->degenerate = 0;
}

void lm_pcgeo_pt_clear(lm_pcgeo_pt *o)
{
    lm_num_clears(&o->ip, &o->gn, &o->dn, &o->ex, &o->exL, (lm_num *)NULL);
}

int lm_pcgeo_point(lm_pcgeo_pt *o, lm_pcgeo *G, const lm_ctx *c, const double *dir, double r, int saddle)
{
    const lm_mat *R;
    const lm_pcdata *P = lm_pcgeo_inst(G, c, &R);
    int d = G->d, k = G->k;
    lm_mat *US = lm_mat_new(k, d, c), *SV = lm_mat_new(d, d, c), *A = lm_mat_new(k, d, c),
           *B = lm_mat_new(d, d, c), *DA = lm_mat_new(k, d, c), *DB = lm_mat_new(d, d, c),
           *AP = lm_mat_new(k, d, c), *BP = lm_mat_new(d, d, c), *Rs = lm_mat_new(d, d, c),
           *E = lm_mat_new(k, d, c), *N = lm_mat_new(d, d, c), *T = lm_mat_new(d, d, c),
           *TA = lm_mat_new(k, d, c), *GA = lm_mat_new(k, d, c), *GB = lm_mat_new(d, d, c);
    lm_num x, dist, lm;
    lm_num_inits(c, &x, &dist, &lm, (lm_num *)NULL);
    int rc = 0;
    if (saddle) {
        half_f(US, SV, P, d - 1);
        lm_mat_mul(A, US, 0, R, 0);
        lm_mat_mul(B, R, 1, SV, 0);
        half_f(US, SV, P, -1);
    } else {
        half_f(US, SV, P, -1);
        lm_mat_mul(A, US, 0, R, 0);
        lm_mat_mul(B, R, 1, SV, 0);
        lm_mat_set_array(DA, dir);
        lm_mat_set_array(DB, dir + k * d);
        lm_num_set_d(&x, r);
        lm_mat_axpy(A, &x, DA);
        lm_mat_axpy(B, &x, DB);
    }
    /* the true projection (core Procrustes) */
    lm_pcth t = lm_pc_th_new(P);
    lm_pc_from_AB(&t, P, A, B);
    if (lm_pc_project(NULL, Rs, &dist, &lm, P, &t)) rc = 1;
    lm_pc_th_free(&t);
    o->lam_min = lm_num_get_d(&lm);
    o->dist_core = lm_num_get_d(&dist);
    lm_mat_mul(AP, US, 0, Rs, 0);
    lm_mat_mul(BP, Rs, 1, SV, 0);
    lm_mat_sub(DA, A, AP); /* Delta_A, Delta_B */
    lm_mat_sub(DB, B, BP);
    /* E = A_P dB + dA B_P + dA dB */
    lm_mat_mul(E, AP, 0, DB, 0);
    lm_mat_mul(TA, DA, 0, BP, 0);
    lm_mat_add(E, E, TA);
    lm_mat_mul(TA, DA, 0, DB, 0);
    lm_mat_add(E, E, TA);
    /* N = A_P^T dA + dA^T A_P + dA^T dA - (B_P dB^T + dB B_P^T + dB dB^T) */
    lm_mat_mul(N, AP, 1, DA, 0);
    lm_mat_mul(T, DA, 1, AP, 0);
    lm_mat_add(N, N, T);
    lm_mat_mul(T, DA, 1, DA, 0);
    lm_mat_add(N, N, T);
    lm_mat_mul(T, BP, 0, DB, 1);
    lm_mat_sub(N, N, T);
    lm_mat_mul(T, DB, 0, BP, 1);
    lm_mat_sub(N, N, T);
    lm_mat_mul(T, DB, 0, DB, 1);
    lm_mat_sub(N, N, T);
    /* gradient in AB: G_A = 2 E B^T + 4 lam A N, G_B = 2 A^T E - 4 lam N B */
    lm_mat_mul(GA, E, 0, B, 1);
    lm_mat_scale_d(GA, GA, 2.0);
    lm_mat_mul(TA, A, 0, N, 0);
    lm_mat_axpy_d(GA, 4.0 * P->lambda, TA);
    lm_mat_mul(GB, A, 1, E, 0);
    lm_mat_scale_d(GB, GB, 2.0);
    lm_mat_mul(T, N, 0, B, 0);
    lm_mat_axpy_d(GB, -4.0 * P->lambda, T);
    lm_mat_dot(&o->ip, GA, DA);
    lm_mat_dot(&x, GB, DB);
    lm_num_add(&o->ip, &o->ip, &x);
    lm_mat_dot(&o->gn, GA, GA);
    lm_mat_dot(&x, GB, GB);
    lm_num_add(&o->gn, &o->gn, &x);
    lm_num_sqrt(&o->gn, &o->gn);
    lm_mat_dot(&o->dn, DA, DA);
    lm_mat_dot(&x, DB, DB);
    lm_num_add(&o->dn, &o->dn, &x);
    lm_num_sqrt(&o->dn, &o->dn);
    lm_mat_dot(&o->exL, E, E);
    lm_mat_dot(&x, N, N);
    lm_num_mul_d(&x, &x, P->lambda);
    lm_num_add(&o->ex, &o->exL, &x);
    if (!lm_num_isfinite(&o->ip) || !lm_num_isfinite(&o->gn) || !lm_num_isfinite(&o->ex) ||
        !(lm_num_sgn(&o->dn) > 0))
        rc = 1;
    /* ||Delta|| at the rounding floor of the coordinates: the ratios are noise in this precision */
    o->degenerate = lm_num_get_d(&o->dn) <= 1e4 * lm_ctx_eps(c) * G->n * (1.0 + sqrt(G->s1));
    lm_num_clears(&x, &dist, &lm, (lm_num *)NULL);
    lm_mat_free(US); lm_mat_free(SV); lm_mat_free(A); lm_mat_free(B); lm_mat_free(DA); lm_mat_free(DB);
    lm_mat_free(AP); lm_mat_free(BP); lm_mat_free(Rs); lm_mat_free(E); lm_mat_free(N); lm_mat_free(T);
    lm_mat_free(TA); lm_mat_free(GA); lm_mat_free(GB);
    return rc;
}

double lm_pcgeo_ratio(const lm_pcgeo_pt *o, int which)
{
    double dn = lm_num_get_d(&o->dn);
    if (which == 0) return lm_num_get_d(&o->ip) / (dn * dn);
    if (which == 1) return lm_num_get_d(&o->gn) / dn;
    return lm_num_get_d(&o->ex) / (dn * dn);
}

int lm_pcgeo_dir_from_x(double *dir, const lm_pcgeo *G, const double *x, int nx)
{
    double nd = 0, nc = 1;
    for (int b = 0; b < nx && b + 1 < LM_PCGEO_NB; b++) nc += x[b] * x[b];
    for (int i = 0; i < G->n; i++) {
        double v = G->basis[0][i];
        for (int b = 0; b < nx && b + 1 < LM_PCGEO_NB; b++) v += x[b] * G->basis[b + 1][i];
        dir[i] = v;
        nd += v * v;
    }
    normalise(dir, G->n);
    return !(nd > 1e-12 * nc);
}

/* objective to minimise: rho_a, -rho_b, -rho_l; HUGE_VAL on failure */
static double obj(lm_pcgeo *G, int which, const double *cf, double r, double *dir)
{
    double nd = 0, nc = 0;
    for (int i = 0; i < G->n; i++) {
        double v = 0;
        for (int b = 0; b < LM_PCGEO_NB; b++) v += cf[b] * G->basis[b][i];
        dir[i] = v;
        nd += v * v;
    }
    for (int b = 0; b < LM_PCGEO_NB; b++) nc += cf[b] * cf[b];
    /* a (nearly) cancelling combination (the saddle direction can be a Hessian eigenvector) has
     * no direction: reject it rather than normalise rounding noise */
    if (!(nd > 1e-12 * nc)) return HUGE_VAL;
    normalise(dir, G->n);
    lm_ctx c = lm_ctx_double();
    lm_pcgeo_pt o;
    lm_pcgeo_pt_init(&o, &c);
    int rc = lm_pcgeo_point(&o, G, &c, dir, r, 0);
    double v = (rc || o.degenerate) ? HUGE_VAL : lm_pcgeo_ratio(&o, which);
    lm_pcgeo_pt_clear(&o);
    if (rc || !isfinite(v)) return HUGE_VAL;
    return which == 0 ? v : -v;
}

double lm_pcgeo_search(double *dir, lm_pcgeo *G, int which, double r, int restarts, int maxit)
{
    /* start from the Hessian eigen-direction that is extremal for the objective, then the saddle */
    static const int st_min[] = {0, 2, 1, 3, 4, 5, 6, 7}, st_max[] = {1, 2, 0, 3, 4, 5, 6, 7};
    const int *starts = which == 0 ? st_min : st_max;
    double best = HUGE_VAL, cf[LM_PCGEO_NB], bcf[LM_PCGEO_NB];
    double *tmp = lm_xcalloc((size_t)G->n, sizeof *tmp);
    memset(bcf, 0, sizeof bcf);
    bcf[0] = 1.0;
    for (int s = 0; s < restarts && s < LM_PCGEO_NB; s++) {
        memset(cf, 0, sizeof cf);
        cf[starts[s]] = 1.0;
        double f = obj(G, which, cf, r, tmp), step = 0.5;
        for (int it = 0, moves = 0; it < maxit && moves < 8 * maxit;) {
            int moved = 0;
            for (int b = 0; b < LM_PCGEO_NB && !moved; b++)
                for (int sg = -1; sg <= 1 && !moved; sg += 2) {
                    cf[b] += sg * step;
                    double f2 = obj(G, which, cf, r, tmp);
                    if (f2 < f) {
                        f = f2;
                        moved = 1;
                        moves++;
                    } else {
                        cf[b] -= sg * step;
                    }
                }
            if (!moved) {
                step *= 0.5;
                it++;
            }
        }
        if (f < best) {
            best = f;
            memcpy(bcf, cf, sizeof cf);
        }
    }
    obj(G, which, bcf, r, dir);
    free(tmp);
    return which == 0 ? best : -best;
}
