/* lm_constants.h -- `lemmata constants`: the slack of every named constant.
 *
 * For each claim and each of its constants (the rule below) the command runs
 * lm_tighten (bisection on the constant over the same instances: same seed,
 * budget and configurations) and stores the sharpest value that still passes,
 * next to the stated one, in the table `constants` of the results database.
 * The report's "Constant slack" section (src/report/slack.c) reads it back.
 *
 * Which parameters are constants (lm_param_is_constant):
 *   - numeric (no `choices`), with a finite positive default (the stated value);
 *   - named as a multiplier of a stated constant: `*_scale`, `*_factor`,
 *     `*_coef` or `coef`, or documented as one (doc starts "multiplies" or
 *     "multiplier");
 *   - and not a setting of the harness rather than of the paper: rounding or
 *     residual tolerances (name contains "tol", starts with "tau", or the doc
 *     speaks of a "tolerance" or "rounding"), the run's step size (`eta_scale`,
 *     or a doc about the "step size"), run lengths (`steps_*`, `iters_*`),
 *     instance generators (`gen_*`, `viol_*`) and deliberately wrong mutation
 *     knobs (doc says "deliberately").
 * Sizes and budgets (T, K, n, d, draws, ...) and switches are never constants.
 * A claim may have none: the report then shows only its worst ratio.
 *
 * Table (results/lemmata.db, created on first use):
 *   constants(claim_id, param, seed TEXT (decimal u64), budget, quick,
 *             stated, sharpest, breaks_at (NULL = NaN), direction, runs,
 *             decided, stated_verdict (name), msg, seconds, rtol, max_runs,
 *             commit_id, saved (UTC),  PRIMARY KEY(claim_id, param, seed, budget, quick))
 * A new measurement with the same key replaces the old one.
 */
#ifndef LM_CONSTANTS_H
#define LM_CONSTANTS_H

#include "lm_verify.h"
#include <stdint.h>

/* 1 when a parameter is a constant of the paper (rule above) */
int lm_param_is_constant(const char *name, double def, const char *choices, const char *doc);
/* the same for a declared parameter, its range's type word first (lm_param_role_of):
 * "constant" (positive default) yes, "exponent" and "setting" no, else the rule above */
int lm_param_def_is_constant(const lm_param_def *p);
/* indices of c's constants, in declaration order, into idx[0..max); returns how many
 * (may exceed max: only the first max are written) */
int lm_claim_constants(const lm_claim *c, int *idx, int max);

typedef struct {
    char claim_id[96];
    char param[64];
    double stated;        /* the stated value (the parameter's default) */
    double sharpest;      /* tightest passing value found (NaN: none) */
    double breaks_at;     /* nearest failing value found (NaN: none) */
    int direction;        /* -1 smaller is tighter, +1 larger is tighter, 0 none found */
    int runs;             /* claim runs spent */
    int decided;          /* lm_tighten bracketed and bisected (returned 0) */
    lm_verdict stated_verdict; /* the claim's verdict at the stated value */
    char msg[300];        /* one line: what was found */
    double seconds;       /* wall time of the search */
    uint64_t seed;
    int budget;
    int quick;
    double rtol;          /* relative width of the final bracket (log scale) */
    int max_runs;
    char commit[64];
    char saved[40];       /* set by lm_constdb_save ("YYYY-MM-DD HH:MM:SS UTC") */
    char method[24];      /* make verify: "read off" (lm_slack_read_off), "bisection", "bisection (head)",
                             "walk" (the check strength's walk broke nothing); lemmata constants: "bisection" */
} lm_constant_row;

/* How much room a constant has.  slack >= 1: the stated value passes and could be
 * that many times sharper; < 1: the stated value fails and has to be relaxed by 1/slack. */
typedef enum {
    LM_SLACK_TIGHT = 0,    /* stated passes, slack < 2 */
    LM_SLACK_LOOSE,        /* 2 <= slack <= 100 */
    LM_SLACK_VERY_LOOSE,   /* slack > 100 */
    LM_SLACK_FAILS,        /* the claim is violated / inconsistent at the stated value */
    LM_SLACK_NO_BREAK,     /* stated passes and no value tried broke the claim */
    LM_SLACK_UNDECIDED,    /* the stated value gives no pass/fail verdict, or the search
                              could not bracket the constant (run cap, time-out, ...) */
    LM_SLACK_COUNT
} lm_slack_class;

/* stated/sharpest (direction -1) or sharpest/stated (+1); NaN when not measured */
double lm_constant_slack(const lm_constant_row *r);
lm_slack_class lm_constant_class(const lm_constant_row *r);
/* How the row's slack is known -- LM_MEASURED_NOT when it is not: an undecided class, or a
 * constant failing as stated whose value where the claim first holds was not found (no finite
 * slack).  verify's summary line and the report count constants by it. */
typedef enum { LM_MEASURED_NOT = 0, LM_MEASURED_READ_OFF, LM_MEASURED_BISECTED, LM_MEASURED_NO_BREAK } lm_measured;
lm_measured lm_constant_measured(const lm_constant_row *r);
const char *lm_slack_class_name(lm_slack_class k); /* "tight", "loose", "very loose", ... */

/* ---- slack at verdict time (src/verify/slack.c has the rule) ----
 * Reads the sharpest value of the constant row->param (stated value row->stated) off the
 * claim's stated run `base` and the check strength's runs at stated/factor (lo) and
 * stated*factor (hi), all three with lm_run_opts.profile.  Returns 1 when the bound is linear
 * in the constant (row filled: sharpest, direction, decided, stated_verdict, msg, method
 * "read off"); 0 when it is not or cannot be told, 2 when no observation of the paper
 * configurations moves with it, -1 when only one step was run and the other is needed to
 * tell its exponent (row->msg says why: bisect it instead). */
int lm_slack_read_off(lm_constant_row *row, const lm_claim_result *base, const lm_claim_result *lo,
                      const lm_claim_result *hi, double factor);

/* the key of a constant's row for a run with options o: claim, parameter, its value there,
 * seed, budget, quick flag, commit; the measurement fields NaN / 0 */
void lm_slack_row_key(lm_constant_row *r, const lm_claim *c, int param, const lm_run_opts *o);
/* one row per constant mutant of mr (lm_mutate in the cheap mode with o->profile, on base),
 * read off as above, into rows[0..max); returns how many */
int lm_slack_rows(lm_constant_row *rows, int max, const lm_claim *c, const lm_run_opts *o,
                  const lm_claim_result *base, lm_mutation_report *mr);

/* ---- the table (src/store/constants_db.c) ---- */
typedef struct lm_constdb lm_constdb;

/* opens (creating the file and the table) for writing */
lm_constdb *lm_constdb_open(const char *path, char *err, int errlen);
void lm_constdb_close(lm_constdb *db);
/* insert or replace the row with r's key; sets r->saved.  Returns 0 or -1. */
int lm_constdb_save(lm_constdb *db, lm_constant_row *r);
/* the same, keeping r->saved (a row copied from another database: lemmata merge) */
int lm_constdb_copy(lm_constdb *db, const lm_constant_row *r);
/* 1 when a row with r's key, rtol, max_runs and commit is stored (a finished measurement
 * that need not be redone), 0 when not, -1 on error */
int lm_constdb_has(lm_constdb *db, const lm_constant_row *r);
/* Read-only: the rows measured with `seed`, one per (claim, param): the row with the
 * given budget and quick flag when there is one, else the newest.  *rows is malloc'ed
 * (free it), ordered by claim id and parameter (byte order).  A database without the
 * table gives 0 rows.  Returns 0, or -1 with err set when the file cannot be read. */
int lm_constdb_load(const char *path, uint64_t seed, int budget, int quick, lm_constant_row **rows,
                    int *nrows, char *err, int errlen);

#endif
