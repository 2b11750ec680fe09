/* lm_instances.h -- instances as files other tools read and write (docs/instances.md).
 *
 * An instance of a claim is fully determined by its configuration, index, seed, adversarial
 * point (or none), sizes, round_bits, parameter values, first precision and input data.
 * `check --export DIR` writes every instance a check judged, with what it came to;
 * `check --instances FILE` judges exactly the instances of a file, by the same rules (MPFR
 * replay of breaks, escalation of near misses, certification).  The numbers go through
 * lm_jsonio.h, so an exported instance read back is the same instance, bit for bit.
 *
 * Usage: make the object, put it in lm_run_opts.inst_io, run lm_run_claim, then write the
 * file (export) or check what the run left unused (import). */
#ifndef LM_INSTANCES_H
#define LM_INSTANCES_H

#include "lm_jsonio.h"
#include "lm_verify.h"

#define LM_INST_FORMAT "lemmata-instances"
#define LM_INST_VERSION 1

typedef struct lm_inst_io lm_inst_io;

/* capture every judged instance of a run of c */
lm_inst_io *lm_inst_export_new(const lm_claim *c);
/* the file of that run (a new reference; NULL when out of memory); commit: lemmata's */
json_t *lm_inst_export_json(const lm_inst_io *io, const lm_run_opts *o, const lm_claim_result *res,
                            const char *commit);

/* Reads an instance file for claim c (exact numbers; one-line error naming the field, with
 * the path first: NULL and err).  The header's seed, budget, quick and precision become o's
 * (cli_budget, cli_quick, cli_prec: what the command line stated explicitly, -1 for nothing;
 * a file that disagrees with them is refused); o->inst_io is set. */
lm_inst_io *lm_inst_import_load(const char *path, const lm_claim *c, lm_run_opts *o, int cli_budget,
                                int cli_quick, long cli_prec, char *err, int errlen);
/* after the run: 0, or -1 with err (a data value of the wrong shape, a data or size name the
 * claim never asked for) */
int lm_inst_import_check(const lm_inst_io *io, const lm_claim_result *res, char *err, int errlen);

void lm_inst_io_free(lm_inst_io *io);

/* verify's counterexamples: for every violated claim of run `run` in database db, its
 * counterexample (the worst violated configuration's worst instance, shrunk when it was; the
 * one `check --json` names) evaluated once more and written as an instance file to
 * dir/<file name> (dir is made when a file goes in it; its parent must exist); a claim of the
 * run that is not violated has its old file removed.  o: the
 * run's options (seed, budget, quick, prec).  0, or -1 with err; *nwritten files written. */
int lm_inst_write_counterexamples(const char *db, long long run, const lm_run_opts *o, const char *dir,
                                  const char *commit, int *nwritten, char *err, int errlen);

/* "mypaper/lemma3" -> "mypaper__lemma3.json" (the export's file name) */
void lm_inst_file_name(char *buf, size_t n, const char *claim_id);

#endif
