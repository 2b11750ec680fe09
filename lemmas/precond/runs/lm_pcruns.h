/* lm_pcruns.h -- the preconditioning paper's experiments as live runs of
 * `lemmata verify` (catalogue preconditioned-softmax-regression, S7, S9, TR-B, TR-D),
 * on the training helper lm_pctr.h:
 *
 *   pc-alg1         Figure 1: Algorithm 1 (minibatch, spectral initialisation) vs SGD
 *                   from an N(0,1) start; population loss per iterate, log y, with L0
 *   pc-shared-init  Figure 2: both methods from the same N(0,1) start
 *   pc-scaling      the scaling law: the plateau excess against N (MC oracle, fixed
 *                   pool) with the fitted exponent, and the excess against t
 *                   (geometric phase, then the 1/N floor; population oracle for
 *                   comparison) with the fitted contraction factor
 *
 * All in double (Monte Carlo training runs; precision 53).  Instance: the harness
 * default of S9 for pc-alg1 / pc-shared-init (d=4, k=6, s1=0.05, sigma=0.1, N=2000,
 * B=100, eta=0.03, T=2000; quick: T=300), the TR-B reference set-up for pc-scaling
 * (d=2, k=3, s1=0.45, eta=0.8/(4 s1), N in {16,24,32,48}, M N = 12288*48/N samples
 * per oracle call, 40 steps; quick: N in {16,32}, 3072, 30 steps). */
#ifndef LM_PCRUNS_H
#define LM_PCRUNS_H

#include "lm_live.h"
#include <stdint.h>
#include <stdio.h>

extern const char *const lm_pclive_names[];
typedef lm_live lm_pclive; /* lm_live.h */
/* run live entry k (0 .. 2); 0, or -1 with a message in err */
int lm_pclive_run(lm_pclive *L, int k, int quick, uint64_t seed, char *err, int errlen);

/* `lemmata train pc-...`: index of a live entry by name (-1: none) */
int lm_pcr_find(const char *name);
/* run entry k (not quick) and write its series as CSV rows "figure,series,x,y" after a
 * header, then the summary as a comment line; 0, or -1 (message in err) */
int lm_pcr_run(FILE *f, int k, uint64_t seed, char *err, int errlen);

#endif
