/* live.c -- the "Live training runs" section: what each paper with a run
 * here says about its runs, then every run with its description, summary,
 * time and figures (written and drawn by figures.c).
 */
#include "lm_paper.h"
#include "report_priv.h"

#include <stdio.h>

/* The live training runs of every paper, each introduced by its paper's live_about
 * (lm_paper.h) and drawn from the figure series it returned.  first[k],
 * count[k]: the figures of live run k in fig[]. */
void rp_put_live(rp_writer *w, const lm_results *R, const lm_figure *fig, const int *first,
                 const int *count)
{
    if (R->nlive == 0) return;
    rp_put(w, "\\clearpage\n\\section{Live training runs}\n"
              "Each named run can be repeated with \\texttt{bin/lemmata train NAME} (add "
              "\\texttt{--drift 256} to repeat it wholly in MPFR).");
    /* what each paper with a live run here says about its runs (lm_paper.live_about) */
    for (int p = 0; p < lm_paper_count; p++) {
        int here = 0;
        for (int k = 0; k < R->nlive && !here; k++)
            here = R->live[k].name && lm_paper_of_live(R->live[k].name, NULL) == lm_papers[p];
        if (here && lm_papers[p]->live_about) {
            rp_put(w, "  ");
            rp_put(w, lm_papers[p]->live_about);
        }
    }
    rp_put(w, "\n\n");
    for (int k = 0; k < R->nlive; k++) {
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
        rp_put(w, "~s.)\n\n");
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
