/* lm_pr.h -- the attention-pruning model (catalogue attention-pruning, ids
 * pruning/...): the relaxed mask M (d x d) applied to the fused weight W,
 * the masked softmax attention f(M) = softmax_C(X (M o W) X^T) against the
 * unpruned target f0 = f(1), the loss
 *     L(M) = 1/2 ||f(M) - f0||_F^2 + lambda/2 ||M||_F^2,
 * its closed-form gradient W o (X^T p X) + lambda M with p = p1 - p2,
 * p1 = f o c, p2 = diag(p1 1) f, c = f - f0, and the quantities the
 * Lipschitz and PL claims need (Jacobian and Hessian operator norms by
 * power iteration, beta = lambda_min(X X^T), theta = min |W_ab|, the support
 * minimum delta of f), the reconstructed (RECON) constants, and gradient
 * descent on the mask.
 *
 * Everything runs in any precision context.  Instances are drawn as doubles
 * so the same instance can be rebuilt exactly in MPFR (lm_pr_convert).
 */
#ifndef LM_PR_H
#define LM_PR_H
#include "lm_claim.h"

typedef struct {
    int n, d;
    lm_ctx ctx;
    unsigned char *C; /* n x n support, row-major: 1 where token i attends to j */
    int causal;       /* informational: 1 when C is the causal mask */
    lm_mat *X;        /* n x d */
    lm_mat *W;        /* d x d fused W_Q W_K^T */
    lm_mat *f0;       /* target f(1); set by lm_pr_prepare */
    double lambda;
} lm_prdata;

/* X, W zero, full support, lambda 0 */
lm_prdata *lm_pr_new(int n, int d, const lm_ctx *c);
void lm_pr_free(lm_prdata *P);
/* the same instance in context c (values converted exactly from P) */
lm_prdata *lm_pr_convert(const lm_prdata *P, const lm_ctx *c);
void lm_pr_set_full(lm_prdata *P);
void lm_pr_set_causal(lm_prdata *P);
/* a random block mask: each row attends to a random nonempty subset (the
 * diagonal always included) */
void lm_pr_set_random_support(lm_prdata *P, lm_rng *g);
/* compute f0 = f(1); call after X, W or C change */
void lm_pr_prepare(lm_prdata *P);

/* ---- instance families of the catalogue, section 1.7 ---- */
typedef enum {
    LM_PR_UNIFORM = 0, /* iid U[-R, R] */
    LM_PR_RADEMACHER,  /* +-R */
    LM_PR_GAUSS,       /* Gaussian rescaled to max |entry| = R */
    LM_PR_RANK4,       /* the paper's rank-4 construction (for W: W_Q W_K^T), max |entry| = R */
    LM_PR_NFAMILY
} lm_pr_family;
const char *lm_pr_family_name(lm_pr_family f);
/* fill A (any shape; rank4 for square A) from a family, drawn as doubles */
void lm_pr_fill(lm_mat *A, lm_pr_family fam, double R, lm_rng *g);
/* the paper's W = (U S_4 V^T)(U' S'_4 V'^T)^T rescaled to max |W_ab| = R */
void lm_pr_fill_rank4_W(lm_mat *W, double R, lm_rng *g);
/* the PL regime (n <= d): X = sqrt(beta0) [I_n | 0] Q + sigma N, Q random
 * orthogonal, then clipped to [-R, R] */
void lm_pr_fill_pl_X(lm_mat *X, double beta0, double sigma, double R, lm_rng *g);

typedef enum {
    LM_PR_M_UNIFORM = 0, /* U[0,1] */
    LM_PR_M_CORNER,      /* {0,1} */
    LM_PR_M_ONES,        /* 1 */
    LM_PR_M_ZERO,        /* 0 */
    LM_PR_M_OFFDOMAIN,   /* U[-1,2] */
    LM_PR_M_NKIND
} lm_pr_mkind;
const char *lm_pr_mkind_name(lm_pr_mkind k);
void lm_pr_fill_mask(lm_mat *M, lm_pr_mkind k, lm_rng *g);

/* ---- forward pass and gradient ---- */
typedef struct {
    lm_mat *MW;         /* M o W (d x d) */
    lm_mat *XM;         /* X (M o W) (n x d) */
    lm_mat *H;          /* logits X (M o W) X^T (n x n) */
    lm_mat *f, *c;      /* f(M), c = f - f0 */
    lm_mat *p1, *p2, *p;/* f o c, diag(p1 1) f, p1 - p2 (after lm_pr_grad) */
    lm_mat *XtP, *XtPX; /* X^T p (d x n), X^T p X (d x d) */
    lm_mat *G;          /* gradient (d x d) */
    lm_num L, Lrec, Lreg;
} lm_prfwd;

lm_prfwd *lm_pr_fwd_new(const lm_prdata *P);
void lm_pr_fwd_free(lm_prfwd *F);
/* support-restricted, max-shifted row softmax of H: f_ij = 0 off the support */
void lm_pr_softmax(lm_mat *f, const lm_mat *H, const unsigned char *C);
/* H, f, c, L, Lrec, Lreg at M.  Returns 0, or 1 when L is not finite. */
int lm_pr_forward(lm_prfwd *F, const lm_prdata *P, const lm_mat *M);
/* p1, p2, p and G after lm_pr_forward at the same M */
void lm_pr_grad(lm_prfwd *F, const lm_prdata *P, const lm_mat *M);
/* convenience: L (may be NULL) and G at M; returns lm_pr_forward's code */
int lm_pr_loss_grad(lm_num *L, lm_mat *G, lm_prfwd *F, const lm_prdata *P, const lm_mat *M);

/* central differences of L, entry by entry: G_ab = (L(M+h e_ab) - L(M-h e_ab)) / 2h,
 * with h = hrel max(1, |M_ab|).  Returns 0, or 1 on a non-finite loss. */
int lm_pr_grad_fd(lm_mat *G, const lm_prdata *P, const lm_mat *M, double hrel);

/* The maps whose Lipschitz constants the E chain bounds (n x n values), and
 * the gradient (d x d). */
typedef enum { LM_PR_MAP_F = 0, LM_PR_MAP_C, LM_PR_MAP_P1, LM_PR_MAP_P2, LM_PR_MAP_P, LM_PR_MAP_GRAD,
               LM_PR_NMAP } lm_pr_map;
const char *lm_pr_map_name(lm_pr_map m);
/* value of a map at M into out (n x n, or d x d for the gradient) */
int lm_pr_map_eval(lm_mat *out, lm_pr_map m, lm_prfwd *F, const lm_prdata *P, const lm_mat *M);
/* directional derivative D map(M)[V] by central differences at step h
 * (in P's context; use MPFR with h = 2^-80 for accuracy ~1e-40).  The step
 * is h V, not h V/||V||: pass a unit V, or scale h, or the truncation error
 * grows with ||V||^3. */
int lm_pr_map_dir(lm_mat *out, lm_pr_map m, lm_prfwd *F, const lm_prdata *P, const lm_mat *M,
                  const lm_mat *V, double h);
/* operator norm (Frobenius to Frobenius) of D map(M) by power iteration on
 * V -> D map(M)^T D map(M) V, the transpose applied through the d^2 columns
 * (exact for small d: the Jacobian is assembled column by column and its
 * largest singular value taken).  Returns 0, or nonzero on failure. */
int lm_pr_jac_norm(lm_num *r, lm_pr_map m, const lm_prdata *P, const lm_mat *M, double h);
/* two-point ratio ||map(M) - map(Mt)||_F / ||M - Mt||_F */
int lm_pr_two_point(lm_num *r, lm_pr_map m, const lm_prdata *P, const lm_mat *M, const lm_mat *Mt);

/* ---- instance quantities ---- */
/* beta = lambda_min(X X^T) (0 when n > d: classified by rank, never a tiny
 * positive number); returns 0, nonzero when the eigensolver failed */
int lm_pr_beta(lm_num *beta, const lm_prdata *P);
void lm_pr_theta(lm_num *theta, const lm_prdata *P);              /* min |W_ab| */
void lm_pr_delta(lm_num *delta, const lm_mat *f, const unsigned char *C); /* min over the support */
void lm_pr_delta_all(lm_num *delta, const lm_mat *f);             /* min over all entries */
/* R_eff = max(max |X|, max |W|) */
double lm_pr_reff(const lm_prdata *P);

/* ---- the reconstructed (RECON) constants, catalogue section 1.8 ----
 * Each is coef * n^a * d^b * R^c (the chain is written with these forms, a
 * reviewer substitutes the printed coefficients).  Natural logs, so nothing
 * over- or underflows. */
double lm_pr_log_Lf(int n, int d, double R);   /* 2 sqrt(n) d R^3  (E.3, E.4) */
double lm_pr_log_Lp1(int n, int d, double R);  /* 4 sqrt(n) d R^3  (E.5) */
double lm_pr_log_Lp2(int n, int d, double R);  /* (4n + 2 sqrt(n)) d R^3  (E.6) */
double lm_pr_log_Lp(int n, int d, double R);   /* (4n + 6 sqrt(n)) d R^3  (E.7) */
double lm_pr_LE8(int n, int d, double R, double lambda); /* (4n^2 + 6n^1.5) d^2 R^6 + lambda */
double lm_pr_log_U(int n, int d, double R);    /* 4 n^1.5 d R^3  (F.10b) */
/* log mu = log 4 + 2 log theta + 2 log beta + 2 log delta;
 * log xi computed as log(lambda d^2/2 + lambda d U / (theta^2 beta^2 delta^2)) */
double lm_pr_log_mu(double log_theta, double log_beta, double log_delta);
double lm_pr_log_xi(double lambda, int d, double log_U, double log_theta, double log_beta,
                    double log_delta);

/* ---- gradient descent on the mask (Algorithm 1 and the experiments' variant) ---- */
typedef struct {
    int T;           /* steps */
    double eta;      /* step size */
    double momentum; /* heavy-ball gamma (0: plain GD) */
    int project;     /* 1: clip to [0,1] after each step */
} lm_pr_gdopt;

typedef struct {
    int T;              /* iterates recorded: t = 0..T */
    double *L, *Lrec, *gnorm2; /* per iterate (T+1), as doubles (gnorm2 = ||grad||_F^2) */
    double *log_delta;  /* log of the support minimum of f(M_t) */
    int first_exit;     /* first t with M_t outside [0,1]^{dxd}, -1 if none */
    int nonfinite;      /* first t with a non-finite loss, -1 if none */
    lm_mat *Mbest, *MT; /* the best iterate (min L) and the last */
    int tbest;
} lm_pr_traj;

/* run from M0 in P's context; every iterate's loss and gradient are kept */
lm_pr_traj *lm_pr_gd(const lm_prdata *P, const lm_mat *M0, const lm_pr_gdopt *o);
void lm_pr_traj_free(lm_pr_traj *tr);

/* L* and its minimiser by a long plain GD run followed by Newton polishing
 * (Hessian by central differences of the gradient; d <= 16).  Works in P's
 * context; returns 0, or 1 when Newton did not reach ||grad|| <= tol. */
int lm_pr_minimise(lm_num *Lstar, lm_mat *Mstar, const lm_prdata *P, const lm_mat *M0, int gd_steps,
                   double tol);

/* binarise at ratio rho: the floor(rho d^2) smallest entries (ties by index) -> 0, others 1 */
void lm_pr_binarise(lm_mat *Mhat, const lm_mat *M, double rho);
/* relative error ||f(Mhat) - f0||_F / ||f0||_F */
void lm_pr_relerr(lm_num *r, const lm_prdata *P, const lm_mat *Mhat);

#endif
