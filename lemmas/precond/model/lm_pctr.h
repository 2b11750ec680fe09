/* lm_pctr.h -- training runs of the preconditioning paper (catalogue
 * preconditioned-softmax-regression, S7 and the TR-A .. TR-D runs) on the
 * core of lm_pc.h, shared by the claims precond/theorem2, remark3, lemma3,
 * lemma4, lemma6, experiment1, experiment2 and the live runs (lm_pcruns.h).
 *
 * lm_pctr_run iterates Algorithm 1 (or the SGD baseline) and records, per
 * iterate, the excess L - L0 (from E), the regulariser R and, optionally,
 * Phi_t = dist_Sigma(theta_t, M)^2 (Procrustes); a hook sees the values in
 * the working precision at every iterate.  Oracles:
 *   POP        exact grad L_reg (the N = infinity limit)
 *   MC         mean of grad(L_hat + R_hat) over M batches of size N
 *              (fresh: new batches every step; else a fixed pool, i.e.
 *              common random numbers across steps)
 *   MINIBATCH  B of the training samples without replacement per step;
 *              grad(L_hat + R_hat) on the minibatch (Appendix A variant)
 *   SGD        grad L_hat on the same minibatches, no R, no preconditioner
 * A non-finite or huge excess (> cap) ends the run and is recorded as a
 * divergence (never NaN in the records).
 *
 * lm_pctr_suffstat draws (Sigma_hat, W_hat) of N samples exactly in O(d^2 k)
 * work for any N: X^T X = L A A^T L^T (Bartlett, A lower triangular with
 * chi_{N-i} diagonal) and W_hat - W* = sigma Z C^{-T} with C C^T = X^T X and
 * Z a k x d Gaussian (the OLS error given X). */
#ifndef LM_PCTR_H
#define LM_PCTR_H

#include "lm_pc.h"

typedef enum { LM_PCTR_POP = 0, LM_PCTR_MC, LM_PCTR_MINIBATCH, LM_PCTR_SGD } lm_pctr_mode;

typedef struct {
    lm_pctr_mode mode;
    double eta;
    int T;               /* steps: iterates 0..T */
    const lm_mat *Pinv;  /* preconditioner (Sigma_hat^-1 or Sigma^-1); NULL = identity */
    int N, M, fresh;     /* MC oracle */
    const lm_pcbatch *pool; /* MC with a fixed pool: these M batches (else drawn from key) */
    uint64_t key;        /* MC batches / minibatch draws */
    const lm_pcbatch *train;
    int B;               /* minibatch size */
    int proj;            /* record Phi_t */
    double cap;          /* divergence threshold on the excess (0: 1e100) */
} lm_pctr_opts;

typedef struct {
    int n;                  /* iterates recorded */
    double *exc, *reg, *phi; /* per iterate (phi: NaN-free, 0 when not recorded) */
    double *se;             /* MC oracle standard error per step (Frobenius), 0 otherwise */
    int diverged;           /* iterate at which the run diverged, -1: none */
    int failed;             /* a projection SVD failed */
} lm_pctr_rec;

/* hook at every iterate t (values in the working precision; phi NULL unless proj);
 * nonzero return stops the run */
typedef int (*lm_pctr_hook)(int t, const lm_pcth *th, const lm_num *exc, const lm_num *reg,
                            const lm_num *phi, void *arg);

int lm_pctr_run(lm_pctr_rec *rec, const lm_pcdata *P, lm_pcth *th, const lm_pctr_opts *o,
                lm_pctr_hook hook, void *arg);
void lm_pctr_rec_clear(lm_pctr_rec *r);

/* the pooled MC oracle: mean of grad(L_hat + R_hat) over the M batches, SE (Frobenius) */
void lm_pctr_oracle_pool(lm_pcth *G, double *se, const lm_pcdata *P, const lm_pcth *t,
                         const lm_pcbatch *pool, int M);
/* the same oracle over the batches lm_pctr_pool_new(P, N, M, key) would hold, each drawn
 * when it is used (identical result, memory O(N) instead of O(M N)); M < 1: G = 0, SE inf */
void lm_pctr_oracle_stream(lm_pcth *G, double *se, const lm_pcdata *P, const lm_pcth *t, int N, int M,
                           uint64_t key);
/* M batches of size N from key (batch m from lm_hash_u64(key, m), as lm_pc_oracle_mc) */
lm_pcbatch *lm_pctr_pool_new(const lm_pcdata *P, int N, int M, uint64_t key);
void lm_pctr_pool_free(lm_pcbatch *pool, int M);

/* exact sufficient statistics of N samples: Sigma_hat (d x d), W_hat (k x d); 0, 1 on failure */
int lm_pctr_suffstat(lm_mat *Shat, lm_mat *What, const lm_pcdata *P, double N, lm_rng *g);
/* spectral initialisation from (Sigma_hat, W_hat); Shat_inv (may be NULL); 0, 1 on failure */
int lm_pctr_spectral(lm_pcth *t0, lm_mat *Shat_inv, const lm_pcdata *P, const lm_mat *Shat,
                     const lm_mat *What);
/* a chi-square variate with nu degrees of freedom (Marsaglia-Tsang) */
double lm_pctr_chi2(lm_rng *g, double nu);

/* least squares y = a + b x: slope b, its standard error, intercept a; 0, -1 if n < 3 */
int lm_pctr_fit(double *b, double *se, double *a, const double *x, const double *y, int n);
/* median of v[0..n-1] (v is sorted in place) */
double lm_pctr_median(double *v, int n);
/* q-quantile (0..1) of v[0..n-1] (sorted in place; lower empirical quantile) */
double lm_pctr_quantile(double *v, int n, double q);
/* Wilson score bounds for k successes of m at z */
double lm_pctr_wilson_lo(long k, long m, double z);
double lm_pctr_wilson_hi(long k, long m, double z);

/* ---- TR-D (precond/experiment1, experiment2, live runs pc-alg1, pc-shared-init) ----
 * harness default instance (catalogue S9): d = 4, k = 6, Sigma = G G^T/d + I, s1 = tau = 0.05,
 * sigma = 0.1 (L0 = 0.06), training set of N samples; Algorithm 1 in minibatch mode (B of the N
 * without replacement per step, Sigma_hat^-1 preconditioner, grad(L_hat + R_hat) on the
 * minibatch) and SGD (grad L_hat, same minibatches, same eta).  shared = 0: Algorithm 1 from the
 * spectral initialisation, SGD from an N(0,1) point; shared = 1: both from that N(0,1) point. */
typedef struct {
    lm_pcdata *P;
    lm_pctr_rec alg, sgd;
    double L0, eta;
    int T, N, B, shared;
} lm_pctr_trd;
int lm_pctr_trd_run(lm_pctr_trd *R, const lm_ctx *c, uint64_t seed, int shared, int T, double eta,
                    int N, int B, char *err, int errlen);
void lm_pctr_trd_clear(lm_pctr_trd *R);

/* ---- the claims precond/theorem2 and precond/remark3 (shared evaluator) ----
 * configurations 0..3: TR-A tube start (eta = alpha_r/beta_r^2), TR-A spectral
 * init (eta = 1/(4 s1)), TR-A kappa = 1e6 in MPFR-256, TR-B MC oracle over N.
 * use_reg = 0: theorem2 (Phi_t and L - L0), 1: remark3 (L_reg - L0).
 * Parameters (both claims): alpha_scale beta_scale T_A T_kappa gamma_claim gamma_tol z
 * MN_B T_B N_A eta_B. */
/* TR-A's fitted rho is judged by the rate rule of lm_stats.h (lm_rate_fit_seq_lin on log y_t against
 * t; the two windows' slopes may always differ by LM_PCTR_STAB_REL times the fitted log rho); an
 * unstable fit is measured and not judged, beside the exact per-step comparisons.  TR-B's gamma stays
 * a least-squares fit over its four N (the rule's windows would need N up to 96). */
#define LM_PCTR_STAB_REL 0.05
extern const char *const lm_pctr_tr_configs[];
extern const lm_reading lm_pctr_tr_readings[]; /* one per configuration */
extern const lm_param_def lm_pctr_tr_params[];
int lm_pctr_eval_tr(lm_eval *ev, int use_reg);

#endif
