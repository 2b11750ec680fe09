/* instances_priv.h -- the runner's side of `check --export` and `check --instances`
 * (instances.c; the command's side is include/lm_instances.h).
 *
 * The runner knows nothing of files: it asks the exchange object (lm_run_opts.inst_io) which
 * instances to judge and with what, and tells it what each judged instance was and came to.
 * Every hook is a no-op when io is NULL, so a plain run pays one pointer test. */
#ifndef LM_INSTANCES_PRIV_H
#define LM_INSTANCES_PRIV_H

#include "eval_priv.h"
#include "lm_instances.h"

/* ---- what the runner asks (import) ---- */
/* the number of instances the file gives for configuration cfg; -1 when not importing */
int lm_io_count(const lm_inst_io *io, int cfg);
/* the j-th of them: its instance index, and its point into x (64 doubles): nx (0: none) */
int lm_io_index(const lm_inst_io *io, int cfg, int j);
int lm_io_point(const lm_inst_io *io, int cfg, int j, double *x);
/* the seed of instance (cfg, k) when the file states one: 1 and *s set */
int lm_io_seed(const lm_inst_io *io, int cfg, int k, uint64_t *s);

/* ---- around one evaluation (eval_once) ---- */
/* Before: an imported instance replaces par, the size overrides and round_bits by its own and
 * gives its data; an exported one being judged has its data captured.  Sets p->io. */
void lm_io_eval_setup(lm_inst_io *io, struct lm_eval_priv *p, int cfg, int index, int searching,
                      int shrinking, const double **par, int *round_bits);
/* After: takes the data and the worst observation's sides from p (ctx: the evaluation's) */
void lm_io_eval_done(lm_inst_io *io, struct lm_eval_priv *p, const lm_ctx *ctx);

/* ---- around one judged instance (run_config, export) ---- */
void lm_io_begin(lm_inst_io *io, int cfg, int k, uint64_t seed, const double *x, int nx,
                 const double *par, int round_bits, const lm_ctx *prim);
/* status: "judged", "vacuous", "assumption-failed", "not-checkable", "error" */
void lm_io_end(lm_inst_io *io, const char *status, double log10r, const char *where, int broke_first,
               int confirmed, const char *why);

/* ---- from the claim's calls (eval.c) ---- */
/* lm_input_mat (input 1): an imported value written into M (exact; a wrong shape fails the
 * instance and the run); lm_data_mat (input 0): an imported value compared with M, which is
 * not written (a different value fails the instance and the run); M captured for export */
void lm_io_data_mat(lm_eval *ev, const char *name, lm_mat *M, int input);
/* lm_input_d: the imported value (or v); lm_data_d: v, compared with the file's; v captured
 * for export */
double lm_io_data_d(lm_eval *ev, const char *name, double v, int input);
/* the observation that became the instance's worst: its sides as the claim gave them (form:
 * "le" a <= b(1+tol), "le_log" log a <= log b + log1p(tol)) */
void lm_io_sides(lm_eval *ev, const char *form, const lm_num *a, const lm_num *b, double reltol);
void lm_io_sides_d(lm_eval *ev, double a, double b, double reltol);

#endif
