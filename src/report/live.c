/* live.c -- the "Live training runs" of a paper (or of the runs no paper of this build
 * declares): what the paper says about its runs, then every run with its description,
 * summary, time, the run its result is stored in, and its figures (written and drawn by
 * figures.c).
 */
#include "lm_paper.h"
#include "report_priv.h"

#include <stdio.h>

/* The live training runs which[0..nwhich) of R, introduced by the live_about of each paper
 * they belong to (lm_paper.h) and drawn from the figure series each returned.  first[k],
 * count[k]: the figures of live run k in fig[]. */
void rp_put_live(rp_writer *w, const lm_results *R, const int *which, int nwhich,
                 const lm_figure *fig, const int *first, const int *count)
{
    if (nwhich <= 0) return;
    /* unnumbered, so the claims keep the numbers of their sections in every edition */
    rp_put(w, "\\Needspace{12\\baselineskip}\\section*{Live training runs}"
              "\\addcontentsline{toc}{section}{Live training runs}\n"
              "Each named run can be repeated with \\texttt{bin/lemmata train NAME} (add "
              "\\texttt{--drift 256} to repeat it wholly in MPFR).");
    /* what each paper with a live run here says about its runs (lm_paper.live_about) */
    for (int p = 0; p < lm_paper_count; p++) {
        int here = 0;
        for (int j = 0; j < nwhich && !here; j++) {
            const lm_results_live *l = &R->live[which[j]];
            here = l->name && lm_paper_of_live(l->name, NULL) == lm_papers[p];
        }
        if (here && lm_papers[p]->live_about) {
            rp_put(w, "  ");
            rp_put(w, lm_papers[p]->live_about);
        }
    }
    rp_put(w, "\n\n");
    for (int i = 0; i < nwhich; i++) {
        const int k = which[i];
        const lm_results_live *l = &R->live[k];
        rp_put(w, "\\subsection*{");
        rp_esc_tt(w, l->name ? l->name : "?");
        rp_put(w, "}\n");
        rp_esc(w, l->doc ? l->doc : "");
        char buf[96];
        if (l->prec > 53)
            snprintf(buf, sizeof buf, " (%d iterates, MPFR at %d bits). ", l->steps, l->prec);
        else
            snprintf(buf, sizeof buf, " (%d iterates, IEEE double). ", l->steps);
        rp_esc(w, buf);
        rp_esc(w, l->summary ? l->summary : "");
        char sec[32];
        lm_tex_seconds(sec, sizeof sec, l->seconds);
        rp_put(w, " (");
        rp_put(w, sec);
        rp_put(w, "~s");
        /* its own provenance when the report weaves results of several runs */
        const lm_results_run *r = lm_results_run_of(R, l->run);
        if (R->nruns > 1 && r) {
            lm_tbuf_printf(&w->b, ", run %lld: seed %llu, budget %d%s", r->id,
                           (unsigned long long)r->meta.seed, r->meta.budget, r->meta.quick ? " (quick)" : "");
        }
        rp_put(w, ".)\n\n");
        int n = count[k];
        if (n == 1) {
            rp_put(w, "\\begin{center}\\includegraphics[width=0.62\\linewidth]{");
            rp_put(w, fig[first[k]].path);
            rp_put(w, ".pdf}");
            if (fig[first[k]].caption[0]) {
                rp_put(w, "\\\\[2pt]\n\\begin{minipage}{0.8\\linewidth}\\footnotesize ");
                rp_put(w, fig[first[k]].caption);
                rp_put(w, "\\end{minipage}");
            }
            rp_put(w, "\\end{center}\n");
        } else {
            for (int j = 0; j < n; j++) {
                const lm_figure *g = &fig[first[k] + j];
                if (j % 2 == 0) rp_put(w, "\\par\\noindent");
                rp_put(w, "\\begin{minipage}[t]{0.49\\linewidth}\\centering\\includegraphics[width="
                          "\\linewidth]{");
                rp_put(w, g->path);
                rp_put(w, ".pdf}\\\\[2pt]\n\\begin{minipage}{0.95\\linewidth}\\footnotesize ");
                rp_put(w, g->caption);
                rp_put(w, "\\end{minipage}\\end{minipage}");
                rp_put(w, j % 2 == 0 && j + 1 < n ? "\\hfill\n" : "\\par\\medskip\n");
            }
        }
    }
}
