/* lm_model.h -- the one-layer multi-head attention regression model of
 * "Unraveling the Gradient Descent Dynamics of Transformers" (catalogue
 * S1-S3), in any precision context.
 *
 * W^V is always stored as the dense HD x Hd matrix of eq. (5).  In block
 * mode it is block-diagonal and stays so (gradients are masked); in dense
 * mode it is unconstrained (Lemma 1(1)).  With u = W^V W^O split into
 * H blocks u_h of length D, MH_i = sum_h S_ih X_i u_h in both modes.
 */
#ifndef LM_MODEL_H
#define LM_MODEL_H

#include "lm_mat.h"
#include "lm_rng.h"

typedef enum { LM_SOFTMAX = 0, LM_GAUSS = 1 } lm_kernel;
typedef enum { LM_WV_BLOCK = 0, LM_WV_DENSE = 1 } lm_wvmode;

/* variable-set bits for training and flattening */
enum { LM_VAR_Q = 1, LM_VAR_K = 2, LM_VAR_V = 4, LM_VAR_ALL = 7 };

typedef struct {
    int N, n, D, d, H;
    lm_kernel kernel;
    double cG;       /* Gaussian scale c_G (2 = appendix, 1 = eq. 11) */
    lm_wvmode wv;
    lm_ctx ctx;
    lm_mat **X;      /* N matrices n x D */
    lm_mat *y;       /* Nn x 1 */
    lm_mat **Wq;     /* H matrices D x d */
    lm_mat **Wk;     /* H matrices D x d */
    lm_mat *Wv;      /* HD x Hd */
    lm_mat *Wo;      /* Hd x 1 */
    /* forward results (valid after lm_mha_forward) */
    lm_mat **C;      /* N*H logits n x n, index i*H+h */
    lm_mat **S;      /* N*H attention n x n */
    lm_mat *u;       /* HD x 1 = Wv Wo */
    lm_mat *mh;      /* Nn x 1 */
    lm_mat *r;       /* Nn x 1 residual mh - y */
    lm_num f;        /* loss 1/2 ||r||^2 */
    void *ws;        /* private workspace */
} lm_mha;

lm_mha *lm_mha_new(int N, int n, int D, int d, int H, lm_kernel k, lm_wvmode wv,
                   const lm_ctx *ctx);
void lm_mha_free(lm_mha *m);
/* deep copy of the parameters and data into another context */
lm_mha *lm_mha_convert(const lm_mha *m, const lm_ctx *ctx);

/* X ~ N(0,sX^2), Wq,Wk ~ N(0,sQK^2), Wv ~ N(0,sV^2) (block-diagonal in block
 * mode), Wo ~ N(0,sO^2) or all ones when sO == 0; y untouched (zero). */
void lm_mha_randomize(lm_mha *m, lm_rng *g, double sX, double sQK, double sV, double sO);

void lm_mha_forward(lm_mha *m);
/* Gradients at the last forward point; any output may be NULL.
 * gQ,gK: arrays of H matrices D x d; gV: HD x Hd (masked in block mode). */
void lm_mha_grad(lm_mha *m, lm_mat **gQ, lm_mat **gK, lm_mat *gV);
/* dL/dC_ih (Gamma_ih), n x n, at the last forward point */
void lm_mha_dfdC(lm_mat *G, lm_mha *m, int i, int h);
/* B (Nn x HD) at the last forward point */
void lm_mha_B(lm_mat *B, const lm_mha *m);
/* Jacobian dC_h/dW^Q_h: Nn^2 x Dd; row (i*n+k)*n+j, column a + D*b (vec is
 * column-major: entry (a,b) of W^Q_h) */
void lm_mha_jacQ(lm_mat *J, const lm_mha *m, int h);
/* y = MH(M0) for the current parameters (calls forward) */
void lm_mha_set_y_to_output(lm_mha *m);
/* The instance's data and parameters (X_i, y, W^Q_h, W^K_h, W^V, W^O), for the report's
 * shrunk counterexample and `check --export` (a no-op unless data is wanted).  input 1: m is
 * fresh (nothing was computed from it yet), so `check --instances` may replace its values
 * (lm_input_mat); input 0: something was, so a file's values must equal them (lm_data_mat). */
struct lm_eval;
void lm_mha_data(struct lm_eval *ev, const lm_mha *m, int input);

/* Flat parameter vector over the variables in mask (Q heads, K heads, V):
 * length lm_mha_nparams(m, mask). V contributes its free entries only
 * (diagonal blocks in block mode). */
int lm_mha_nparams(const lm_mha *m, int mask);
void lm_mha_get_params(lm_mat *v, const lm_mha *m, int mask);
void lm_mha_set_params(lm_mha *m, int mask, const lm_mat *v);
/* flat gradient (calls forward + grad) */
void lm_mha_flat_grad(lm_mat *g, lm_mha *m, int mask);

/* one GD step on the variables in mask: M -= eta * grad (forward+grad inside) */
void lm_mha_gd_step(lm_mha *m, int mask, const lm_num *eta);

#endif
