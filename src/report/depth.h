/* depth.h -- search saturation on a paper's summary page (depth.c).
 *
 * A database may hold several verify runs of one commit at different budgets (instances per
 * configuration) and seeds (`make verify BUDGET=64,256,1024 SEEDS=1..3`).  Read together they
 * say whether a claim's "holds" is a well-searched one: when its worst LHS/RHS stops moving as
 * the budget grows the search has saturated; when it still rises, deeper searches still find
 * worse instances.
 *
 * A depth is a (budget, quick) pair of a finished run whose commit is the principal run's
 * (R->meta.commit: other commits may check other things).  For every claim of the edition and
 * every depth: the worst ratio over the seeds (their max; a failing verdict without a ratio
 * counts as +inf), the number of distinct seeds, the instances evaluated (the max over the
 * seeds: claims.instances, every configuration's instances summed), and the verdicts seen
 * (the claim's verdict at a depth is the most severe of them). */
#ifndef LM_REPORT_DEPTH_H
#define LM_REPORT_DEPTH_H

#include "report_priv.h"

typedef struct rp_depth rp_depth;

/* Reads the runs of dbpath (may be NULL: nothing is known) for the claims of docs[0..n) (sorted
 * by paper, as rp_slack_prepare takes them) and writes one figure, figures/depth-<paper>.{dat,gp},
 * for each paper searched at two depths or more, appending them to fig[*nfig..maxfig) for
 * lm_fig_render.  NULL with err set on error (a database it cannot read, out of memory). */
rp_depth *rp_depth_prepare(const char *root, const char *dbpath, const lm_results *R, const rp_doc *docs,
                           int n, lm_figure *fig, int *nfig, int maxfig, char *err, int errlen);
void rp_depth_free(rp_depth *D);

/* The paragraph "Search depth" of the summary page of docs[first..first+count) (one paper; D
 * may be NULL: nothing is written): the depths, the figure and what it shows -- verdicts that
 * changed with the budget, worst ratios still rising between the two deepest budgets, how many
 * have saturated; with one depth, one sentence saying how to search deeper. */
void rp_depth_put_paper(rp_writer *w, const rp_depth *D, const rp_doc *docs, int first, int count);

#endif
