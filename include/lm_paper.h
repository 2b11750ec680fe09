/* lm_paper.h -- what a paper folder declares to the core.
 *
 * A paper is one folder, lemmas/<paper>/: its claim files at the top, its model/, kit/ and
 * runs/ below, and one declaration of the paper itself (conventionally lemmas/<paper>/paper.c):
 *
 *     LM_PAPER(paper_mypaper) = {
 *         .id = "mypaper", .catalogue = "my-paper-name", .title = "...", .authors = "...", .venue = "...",
 *         .about = "one LaTeX paragraph the report prints about the paper",
 *     };
 *
 * The build collects every LM_PAPER line (tools/gen_registry.sh) into lm_papers[], as it
 * collects every LM_CLAIM line into lm_registry[]; the core finds papers, their claims (the ids
 * starting with "<id>/") and their live runs only through these tables, never by name.
 *
 * A paper may have live runs, in two forms:
 *  - training runs for `lemmata train NAME` (lm_train_type: one per paper, listing its runs,
 *    taking --steps/--prec/--seed/--set/--drift and writing CSV), and
 *  - live entries of `lemmata verify` (live_name/live_run: each fills an lm_live with a
 *    series of figure directives and a one-line summary, which the report draws).
 * A paper with neither leaves the fields NULL. */
#ifndef LM_PAPER_H
#define LM_PAPER_H

#include "lm_live.h"
#include "lm_mat.h"
#include "lm_num.h"
#include <stdint.h>
#include <stdio.h>

struct json_t; /* jansson.h: the JSON values of --data, --init, --iterates */

/* what `lemmata train NAME [options]` hands a run */
typedef struct {
    uint64_t seed;   /* --seed (default 20241122) */
    lm_ctx ctx;      /* --prec: double unless given */
    long drift;      /* --drift BITS: repeat the run wholly in MPFR-BITS and write the drift (0: no) */
} lm_train_args;

/* what a run refuses (lm_train_type.flags) */
enum { LM_TRAIN_DOUBLE_ONLY = 1, /* no --prec, no --drift */
       LM_TRAIN_FIXED_LENGTH = 2 /* no --steps */ };

/* ---- runs exchangeable with other tools (docs/train-io.md) ----
 * `lemmata train RUN --data FILE --init FILE` starts a run from given data and initial point,
 * `--iterates FILE [--every K]` writes its iterates, `--export-data FILE --export-init FILE`
 * writes the run's own data and initial point in the form --data and --init read.  All of it
 * is JSON through lm_jsonio.h (exact numbers).  The core loads the files and opens the outputs;
 * the run reads the roots (naming the failing field), runs and writes its iterates through the
 * writer below (src/live/train_io.c), which streams one iterate per line so a run of 10^6 steps
 * keeps none of them in memory. */
typedef struct lm_train_iterates {
    FILE *f;       /* the temporary file of --iterates (the core commits or removes it) */
    long every;    /* --every K: iterates k = 0, K, 2K, ... and the last */
    long written;  /* iterates written so far */
    int state;     /* 0 nothing written, 1 in the list, 2 closed */
} lm_train_iterates;

/* 1 when iterate k of a run whose last iterate is `last` goes to the file */
int lm_iterates_want(const lm_train_iterates *w, long k, long last);
/* the head of the file: the run's fields (head, an object: "run", its parameters...; stolen),
 * then "every" and the opening of "iterates".  0, or -1 (write error, out of memory) */
int lm_iterates_begin(lm_train_iterates *w, struct json_t *head);
/* one iterate (an object, stolen; "k" first by convention) on a line of its own: 0, or -1 */
int lm_iterates_put(lm_train_iterates *w, struct json_t *it);
/* closes the list and the object: 0, or -1 */
int lm_iterates_end(lm_train_iterates *w);

typedef struct {
    const struct json_t *data; /* --data FILE's root (NULL: the run's own data) */
    const struct json_t *init; /* --init FILE's root (NULL: the run's own initial point) */
    const char *data_path, *init_path; /* the files, for messages */
    lm_train_iterates *iterates;       /* --iterates (NULL: none) */
    const char *export_data, *export_init; /* --export-data / --export-init FILE (NULL: none):
                                              write the start there (atomically) and stop */
} lm_train_io;

/* The checks every --data / --init reader starts with: root is an object and its optional
 * "run" a string (0, or -1 with "not a JSON object (what)" / "run: ..." in err); and a required
 * member `name` that is an object of named matrices (it, or NULL with err). */
int lm_train_io_root(const struct json_t *root, const char *what, char *err, int errlen);
const struct json_t *lm_train_io_matrices(const struct json_t *root, const char *name, char *err, int errlen);
/* the member name of obj as a new rows x cols matrix in ctx (sides at most maxdim), every entry
 * finite in ctx; NULL with "prefix.name: missing (a RxC matrix, what)", "...: is AxB, the run
 * needs RxC (what)" or "prefix.name[.values][i][j]: not finite" in err */
lm_mat *lm_train_io_mat(const struct json_t *obj, const char *prefix, const char *name, int rows, int cols,
                        const char *what, const lm_ctx *ctx, int maxdim, char *err, int errlen);
/* "path: msg" into err (msg may be err itself); returns LM_TRAIN_IO_REFUSED */
int lm_train_io_refuse(char *err, int errlen, const char *path, const char *msg);

/* --export-data / --export-init: writes data and init (either NULL when not built; both
 * stolen) to io's export files, both or neither (a failed second write removes the first):
 * 0, or -1 with err */
int lm_train_io_export(const lm_train_io *io, struct json_t *data, struct json_t *init, char *err, int errlen);

/* what lm_train_type.train_io returns besides 0 and -1: the input was refused (a malformed
 * file, sizes that disagree with a --set): exit 2, nothing run, the outputs removed */
enum { LM_TRAIN_IO_REFUSED = -2 };

/* A paper's training runs (like GSL's algorithm types: a static const table of functions).
 * A run is set up by alloc (its defaults), changed by set ("name=value" of --set) and
 * set_steps, run by train (CSV to f; notes to stderr) and released by free. */
typedef struct {
    const char *heading;  /* the listing's heading: "implicit-bias runs" */
    const char *settings; /* what --set takes, "eta|steps|d" (NULL: no --set) */
    unsigned flags;       /* LM_TRAIN_* */
    const char *(*name)(int k); /* run k's name, NULL past the last */
    const char *(*doc)(int k);  /* run k's one-line description */
    void *(*alloc)(int k);      /* run k with its defaults; NULL when out of memory */
    /* 0, or -1 with a one-line message in err (an unknown name, a malformed or out-of-range value) */
    int (*set)(void *run, const char *kv, char *err, int errlen);
    void (*set_steps)(void *run, int steps);
    /* 0, or -1 with a message in err (the run diverged, an inner solver failed, out of memory) */
    int (*train)(void *run, FILE *f, const lm_train_args *a, char *err, int errlen);
    void (*free)(void *run);
    /* optional (NULL: the runs refuse --data --init --iterates --export-*): train with io as
     * train does (the same CSV to f), from io's data and initial point, writing io's
     * iterates, or only export the start.  0; -1 with err when the run failed;
     * LM_TRAIN_IO_REFUSED with a one-line err naming the field when the input is malformed
     * (checked before anything runs or is written) */
    int (*train_io)(void *run, FILE *f, const lm_train_args *a, const lm_train_io *io, char *err,
                    int errlen);
} lm_train_type;

typedef struct lm_paper {
    const char *id;      /* the claim-id prefix: "mypaper" for "mypaper/lemma3" */
    const char *catalogue; /* the paper's name in the claim catalogue, as \source{} cites it
                              ("transformer-gd-dynamics"); `list --paper` takes it too (NULL: none) */
    const char *title;   /* the paper's title */
    const char *authors; /* as the paper lists them (or "anonymous") */
    const char *venue;   /* an arXiv id or a venue */
    const char *about;   /* LaTeX: one paragraph the report prints about the paper */
    const char *live_about; /* LaTeX: what the report says about its live runs (NULL: none) */
    const lm_train_type *train;     /* NULL: no training runs */
    const char *(*live_name)(int k); /* live entry k's name, NULL past the last; NULL: none */
    /* live entry k (quick: the short version); 0 and L filled (lm_live_clear frees it), or -1
     * with a message in err */
    int (*live_run)(lm_live *L, int k, int quick, uint64_t seed, char *err, int errlen);
} lm_paper;

#define LM_PAPER(sym) const lm_paper sym

/* generated by the build from the LM_PAPER lines, sorted by symbol */
extern const lm_paper *const lm_papers[];
extern const int lm_paper_count;

/* entry k of a NULL-terminated name table, NULL past its end (for live_name, train->name) */
const char *lm_name_at(const char *const *names, int k);

/* the paper with this id, NULL when none */
const lm_paper *lm_paper_find(const char *id);
/* the paper a claim id belongs to ("mypaper" of "mypaper/lemma3"), NULL when none */
const lm_paper *lm_paper_of_claim(const char *claim_id);
/* the paper whose live entries or training runs include name (k: its index there), NULL */
const lm_paper *lm_paper_of_live(const char *name, int *k);
const lm_paper *lm_paper_of_run(const char *name, int *k);
/* number of registered claims of a paper */
int lm_paper_nclaims(const lm_paper *p);

#endif
