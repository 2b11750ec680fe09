/* lm_prfd.h -- derivative identities of the attention-pruning paper checked
 * against central finite differences in three precisions (helper of the
 * claims pruning/factA.3, lemmaA.7, lemmaB.8-B.15, theorem5.3, theoremC.5).
 *
 * A claim supplies a map F(M) (any shape) and, for a coordinate (a,b) of the
 * d x d mask M, the paper's closed form of dF/dM_ab together with the same
 * formula evaluated with absolute values (its natural scale).  lm_prfd_check
 * rebuilds the instance in double, MPFR-128 and MPFR-256 (never below the
 * runner's precision), takes central differences with step h_ab = h_p
 * max(1, |M_ab|) (h_53 = 1e-6, h_128 = 2^-40, h_256 = 2^-80) and records
 *     res_p = ( sum_ab ||closed_ab - FD_ab||_F^2 )^(1/2)  <=  tau_p,
 *     tau_p = tol_scale K ( h_max^2 (T3 ||F||_F + T3n n) rate^3
 *                           + u_p (D + sqrt(k) ||F(M)||_F / h_p) ),
 * where rate bounds the derivative in M_ab of the logits' row spread (the
 * speed at which the softmax moves), T3 the map's third-derivative scale per rate^3,
 * D the Frobenius norm of the absolute-value formula, k the number of
 * coordinates and u_p = 2^-p: the first term is the truncation error of the
 * central difference, the second the rounding of the formula and of the
 * difference quotient.  It also records that the residual shrinks with
 * precision: res_256 <= max(2^-60 res_53, tau_256).
 */
#ifndef LM_PRFD_H
#define LM_PRFD_H
#include "lm_pr.h"

typedef int (*lm_prfd_value_fn)(lm_mat *out, const lm_prdata *P, const lm_mat *M, void *arg);
/* D = closed form of dF/dM_ab, A = the same with absolute values (A may be
 * NULL: then only D is wanted).  Both have F's shape. */
typedef int (*lm_prfd_deriv_fn)(lm_mat *D, lm_mat *A, const lm_prdata *P, const lm_mat *M, int a,
                                int b, void *arg);

typedef struct {
    const char *what; /* e.g. "df/dM_ab" */
    int rows, cols;   /* shape of F(M) */
    lm_prfd_value_fn value;
    lm_prfd_deriv_fn deriv;
    void *arg;
    double T3;        /* |F'''| <= (T3 ||F||_F + T3n n) rate^3 along e_ab (both 0: F is at */
    double T3n;       /* most quadratic in M_ab, the difference quotient is exact) */
    double K;         /* polynomial factor of the tolerance */
    double tol_scale; /* the claim's parameter tol_scale */
    double scale;     /* multiplies the closed form (1: as stated; other: a wrong variant) */
} lm_prfd_spec;

/* an instance of the catalogue's section 1.7, drawn as doubles */
typedef struct {
    int n, d;
    double R, lambda;
    lm_pr_family fx, fw;
    lm_pr_mkind mk;
    int causal;
} lm_prfd_plan;

/* the plan of instance `index` from the catalogue grids: families (i)-(iv)
 * for X and W, n in ns, d in ds, R in Rs, mask kinds, lambda in lams */
void lm_prfd_plan_grid(lm_prfd_plan *pl, int index, const int *ns, int nn, const int *ds, int nd,
                       const double *Rs, int nR, const double *lams, int nl, int causal);
/* build the double instance and the mask (d x d, double) */
lm_prdata *lm_prfd_build(const lm_prfd_plan *pl, lm_rng *g, lm_mat **M);
/* the logit rate of coordinate (a,b): |W_ab| max_j |X_ja| 2 max_k |X_kb| */
double lm_prfd_rate(const lm_prdata *P, int a, int b);
/* choose k distinct coordinates (all d^2 when k >= d^2); returns the count */
int lm_prfd_coords(int d, int k, int *ca, int *cb, lm_rng *g);

/* Run the three-precision check (P0 double instance, may be NULL for maps
 * that do not use it; M0 double).  Returns 0, or -1 after lm_fail. */
int lm_prfd_check(lm_eval *ev, const lm_prdata *P0, const lm_mat *M0, const lm_prfd_spec *S, int k,
                  const int *ca, const int *cb, const double *rate, const char *tag);

/* the grids of one claim (catalogue section 1.7) */
typedef struct {
    const int *ns; int nn;
    const int *ds; int nd;
    const double *Rs; int nR;
    const double *lams; int nl;
} lm_prfd_grid;
typedef enum { LM_PRFD_NN = 0, LM_PRFD_N1, LM_PRFD_SCALAR } lm_prfd_shape;
/* the whole evaluation of a model identity: instance ev->index of the grid
 * (configuration 0 full support, 1 causal), ncoord random coordinates,
 * F of shape n x n, n x 1 or 1 x 1 */
int lm_prfd_eval_model(lm_eval *ev, lm_prfd_spec *S, lm_prfd_shape shape, const lm_prfd_grid *gr,
                       int ncoord);
/* Theorems 5.3 and C.5: the closed form W o (X^T (p1 - p2) X) + lambda M assembled literally
 * against central differences of L on grid gr (ncoord coordinates), with the claim's
 * parameters tol_scale, scale and the mutation switch (none|p-transpose|drop-p2|
 * double-lambda|W-transpose), and every edge_every-th instance the edge identities
 * grad L(1) = lambda 1 and n = 1 => grad L = lambda M */
int lm_prfd_gradient_eval(lm_eval *ev, const lm_prfd_grid *gr, int ncoord, int edge_every);

/* row helpers for literal formulas: <A_i, B_:j> style dot products */
/* r = sum_k A_{i,k} B_{k,j}  (row i of A against column j of B) */
void lm_prfd_row_col(lm_num *r, const lm_mat *A, int i, const lm_mat *B, int j);
/* r = sum_k |A_{i,k}| |B_{k,j}| */
void lm_prfd_row_col_abs(lm_num *r, const lm_mat *A, int i, const lm_mat *B, int j);

#endif
