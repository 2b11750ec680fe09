/* lm_pcmc.h -- Monte Carlo of the softmax-attention average around one query
 * (preconditioning paper, Lemmas 9-23): for a fixed query x_j and W_KQ, draw
 * the other N - 1 covariates x_i ~ N(0, Sigma) and form the in-sample softmax
 * weights p_ij (i = 1..N, the query itself included as i = j, stored first),
 * the attention average z_j = sum_i p_ij x_i, the softmax covariance
 * C_j = sum_i p_ij (x_i - z_j)(x_i - z_j)^T (PSD, no cancellation), and the
 * population quantities a_j = W_KQ x_j, mu_j = Sigma a_j, s_j = a_j^T Sigma a_j,
 * q_j = x_j^T W_KQ x_j.  Double precision (Monte Carlo); every draw comes from
 * a counter-based stream, so common random numbers are a matter of reusing
 * the key. */
#ifndef LM_PCMC_H
#define LM_PCMC_H
#include "lm_pc.h"

typedef struct {
    int N, d;
    double *Sig, *L; /* Sigma and its Cholesky factor (d x d, row-major) */
    double *W;       /* W_KQ (d x d) */
    double *xj;      /* the query (d) */
    double *a, *mu;  /* W_KQ x_j, Sigma W_KQ x_j */
    double s, q;     /* s_j, q_j */
    /* the last draw */
    double *X;       /* N x d: row 0 = x_j, rows 1.. = the other covariates */
    double *p;       /* N softmax weights: p[0] = p_jj, p[i] = p_ij */
    double *z;       /* d */
    double *C;       /* d x d */
} lm_pcmc;

/* set up for query xj (d doubles) and W_KQ (row-major d x d) of instance P */
lm_pcmc *lm_pcmc_new(const lm_pcdata *P, int N, const double *xj, const double *WKQ);
void lm_pcmc_free(lm_pcmc *m);
/* a new query (same N, Sigma, W_KQ) */
void lm_pcmc_set_query(lm_pcmc *m, const double *xj);
/* draw x_i, i = 1..N-1, from g and compute p, z, C (log-sum-exp softmax) */
void lm_pcmc_draw(lm_pcmc *m, lm_rng *g);
/* x ~ N(0, Sigma) into x (d) */
void lm_pcmc_sample_x(const lm_pcmc *m, double *x, lm_rng *g);

#endif
