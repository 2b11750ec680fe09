/* summary.c -- the report's first pages: the title, what each verdict means,
 * the provenance of the run, the verdict counts, repaired readings and check
 * strength over the run (rp_put_front), one row per claim (rp_put_summary),
 * every configuration that did not pass with its paper, reading and the sentence
 * saying what it tests (rp_put_findings) and the smallest counterexample of each
 * violated claim (rp_put_counterexamples); and at the start of each paper's part
 * its one-page summary (rp_put_paper_summary): verdict counts, what broke and
 * why, counterexamples with the command that reproduces each, and the slack of
 * its constants (slack.c draws that part).
 */
#include "depth.h"
#include "lm_verify.h"
#include "report_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_short[LM_KIND_COUNT] = {
    "trajectory", "pointwise", "identity", "structural", "rate (proxy)", "probabilistic"};

/* the precisions of a claim (as put_precisions of claim.c writes them), MPFR precisions run
 * together: "double, mpfr256/512/1024" (narrow columns) */
static void put_precisions_short(rp_writer *w, const char *p)
{
    if (!p || !*p) {
        rp_put(w, "--");
        return;
    }
    char buf[128];
    snprintf(buf, sizeof buf, "%s", p);
    int mpfr = 0, first = 1;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int bits = !strncmp(tok, "mpfr", 4) && tok[4] >= '0' && tok[4] <= '9';
        if (bits && mpfr) {
            rp_put(w, "/\\allowbreak{}");
            rp_esc(w, tok + 4);
            continue;
        }
        if (!first) rp_put(w, ", ");
        rp_esc(w, tok);
        first = 0;
        mpfr = bits;
    }
}

/* ---- front matter --------------------------------------------------------------- */

/* how many claims carry a repaired reading or a probe, and how those came out */
static void put_readings_count(rp_writer *w, const rp_doc *docs, int n)
{
    int nrep = 0, nrep_pass = 0, nrep_fixed = 0, nprobe = 0, nprobe_bad = 0;
    for (int k = 0; k < n; k++) {
        const lm_claim_result *r = &docs[k].c->res;
        int rv = rp_reading_verdict(r, LM_READ_REPAIRED, NULL);
        int pv = rp_reading_verdict(r, LM_READ_PROBE, NULL);
        int pass_rep = rv == LM_V_HOLDS || rv == LM_V_CONSISTENT;
        if (rv >= 0) {
            nrep++;
            nrep_pass += pass_rep;
            nrep_fixed += pass_rep && (r->verdict == LM_V_VIOLATED || r->verdict == LM_V_INCONSISTENT);
        }
        if (pv >= 0) {
            nprobe++;
            nprobe_bad += pv != LM_V_HOLDS && pv != LM_V_CONSISTENT;
        }
    }
    if (!nrep && !nprobe) return;
    rp_put(w, "Beside these verdicts of the statements as printed: ");
    if (nrep)
        lm_tbuf_printf(&w->b,
                       "repaired readings in %d claim%s (passing in %d, of which %d %s violated or "
                       "inconsistent as printed)",
                       nrep, nrep == 1 ? "" : "s", nrep_pass, nrep_fixed, nrep_fixed == 1 ? "is" : "are");
    if (nrep && nprobe) rp_put(w, "; ");
    if (nprobe)
        lm_tbuf_printf(&w->b, "probes beyond the hypotheses in %d claim%s (not passing in %d)", nprobe,
                       nprobe == 1 ? "" : "s", nprobe_bad);
    rp_put(w, ". Each claim's section shows them under its verdict.\n\n");
}

/* check strength over the run: the standard mutants the checks killed */
static void put_strength_total(rp_writer *w, const rp_doc *docs, int n)
{
    long run = 0, killed = 0;
    int measured = 0, weak = 0, blind = 0;
    for (int k = 0; k < n; k++) {
        const lm_claim_result *r = &docs[k].c->res;
        if (r->mutants_run <= 0) continue;
        measured++;
        run += r->mutants_run;
        killed += r->mutants_killed;
        weak += r->mutants_killed < r->mutants_run;
        blind += r->mutants_killed == 0;
    }
    if (!measured) {
        rp_put(w, "\\emph{Check strength was not measured in this run} (\\texttt{verify --no-mutants}, "
                  "or results from before it was recorded).\n\n");
        return;
    }
    lm_tbuf_printf(&w->b,
                   "\\textbf{Check strength.} The checks killed %ld of %ld standard mutant%s "
                   "(%.1f\\%%) of the %d claim%s measured: the right-hand side scaled to half its "
                   "worst ratio, the inequality flipped, each constant moved past its sharpest value, "
                   "each exponent of a rate claim $\\pm1$ (an exponent of a bound is moved like a "
                   "constant); a mutant is killed when it comes out violated or inconsistent (a check "
                   "that kills none cannot fail).  Mutants that were never tested (vacuous, outside "
                   "the hypotheses) and \\emph{equivalent} ones, which the run shows to be true "
                   "statements (an exponent that is not sharp, the flip of a claim broken everywhere), "
                   "are not counted (\\texttt{lemmata mutate ID} lists them).",
                   killed, run, run == 1 ? "" : "s", 100.0 * (double)killed / (double)run, measured,
                   measured == 1 ? "" : "s");
    if (weak)
        lm_tbuf_printf(&w->b, " %d claim%s let%s a mutant survive (column \\emph{mutants killed} of "
                              "the summary; each section names the survivors).",
                       weak, weak == 1 ? "" : "s", weak == 1 ? "s" : "");
    if (blind)
        lm_tbuf_printf(&w->b, " \\textcolor{vviolated}{%d claim%s killed none.}", blind,
                       blind == 1 ? "'s check" : "s' checks");
    if (measured < n)
        lm_tbuf_printf(&w->b, " %d claim%s %s not measured.", n - measured,
                       n - measured == 1 ? "" : "s", n - measured == 1 ? "was" : "were");
    rp_put(w, "\n\n");
}

void rp_put_front(rp_writer *w, const lm_results *R, const rp_doc *docs, const char *dbpath)
{
    long counts[LM_V_COUNT] = {0};
    int npapers = 0;
    double claim_secs = 0;
    for (int k = 0; k < R->nclaims; k++) {
        counts[docs[k].c->res.verdict]++;
        if (!isnan(docs[k].c->res.seconds)) claim_secs += docs[k].c->res.seconds;
        if (k == 0 || strcmp(docs[k].paper, docs[k - 1].paper)) npapers++;
    }
    char prec[64], secs[64], csecs[64];
    rp_prec_text(prec, sizeof prec, R->meta.prec);
    lm_tex_seconds(secs, sizeof secs, R->seconds);
    lm_tex_seconds(csecs, sizeof csecs, claim_secs);

    rp_put(w, "\\begin{document}\n\\pdfbookmark[1]{Overview}{overview}\n"
              "\\begin{center}\n{\\LARGE\\bfseries lemmata: numerical checks of proof constants}"
              "\\\\[6pt]\n");
    lm_tbuf_printf(&w->b,
                   "{\\large %d claim%s from %d paper%s \\textperiodcentered{} run %lld%s}\n"
                   "\\end{center}\n",
                   R->nclaims, R->nclaims == 1 ? "" : "s", npapers, npapers == 1 ? "" : "s",
                   R->id, R->finished ? "" : " (unfinished)");
    rp_put(w, "Each lemma and theorem below was turned into numerical inequalities "
              "LHS $\\le$ RHS, evaluated in IEEE double on random and adversarially searched "
              "instances (and along live training runs), with every break and near miss "
              "re-evaluated in MPFR. The \\emph{worst ratio} is the largest LHS/RHS seen: "
              "below 1 the bound held with that much slack; above 1 it broke. "
              "Each claim gets exactly one verdict, the worst over its configurations that read "
              "the statement \\emph{as printed} (or as the catalogue reconstructs the printed "
              "statement); configurations that read a \\emph{repaired} statement (a corrected "
              "constant, an added condition) and \\emph{probes} beyond the hypotheses are judged "
              "and shown beside it:\n\n"
              "{\\small\\begin{longtable}{@{}L{3.1cm}L{13.8cm}@{}}\n");
    static const char *const meaning[LM_V_COUNT] = {
        "every instance held in double, and every near miss held again in MPFR",
        "rate or asymptotic claim: the stated falsifiable proxy agreed with the claim",
        "the inequality held only because its hypothesis is never met on the instances the paper "
        "targets, or its right-hand side is trivially large: a finding, not a pass",
        "the claim cannot be checked numerically (the reason is given)",
        "a break seen in double vanished in MPFR: a floating-point artefact",
        "the instances could not meet the claim's hypotheses; never counted as a pass",
        "NaN/Inf, a failed inner solver or a crash in the check; never a pass",
        "rate or asymptotic claim: the proxy contradicts the claim",
        "an instance breaks the claim and the break survives re-evaluation in MPFR "
        "($\\ge$ 256 bits)"};
    static const int order[LM_V_COUNT] = {LM_V_VIOLATED, LM_V_INCONSISTENT, LM_V_ERROR,
                                          LM_V_ASSUMPTION_FAILED, LM_V_ARTIFACT,
                                          LM_V_VACUOUS, LM_V_NOT_CHECKABLE, LM_V_CONSISTENT,
                                          LM_V_HOLDS};
    for (int j = 0; j < LM_V_COUNT; j++) {
        rp_put_verdict(w, (lm_verdict)order[j]);
        lm_tbuf_printf(&w->b, " & %s\\\\\n", meaning[order[j]]);
    }
    rp_put(w, "\\end{longtable}}\n");
    rp_put(w, "A statement is either \\emph{verbatim} from the paper or \\emph{reconstructed} "
              "(with the catalogue's confidence). A violation of a low-confidence reconstruction "
              "(marked $^\\dagger$) may say as much about our reading as about the paper; "
              "its constants are parameters that can be replaced with "
              "\\texttt{--set name=value}.\n\n");

    rp_put(w, "\\subsection*{Provenance}\n{\\small\\begin{longtable}{@{}L{3.4cm}L{13.5cm}@{}}\n"
              "commit & \\texttt{");
    rp_esc_tt(w, R->meta.commit[0] ? R->meta.commit : "unknown");
    rp_put(w, "}\\\\\ndate & ");
    rp_esc(w, R->meta.date);
    lm_tbuf_printf(&w->b, "\\\\\nseed & %llu\\\\\nbudget & %d%s\\\\\nprecision & %s\\\\\n",
                   (unsigned long long)R->meta.seed, R->meta.budget,
                   R->meta.quick ? " (quick)" : "", prec);
    rp_put(w, "libraries & ");
    rp_esc(w, R->meta.versions);
    lm_tbuf_printf(&w->b, "\\\\\nrun & %lld, %s\\\\\n", R->id,
                   R->finished ? "finished" : "\\textcolor{vviolated}{\\textbf{unfinished}}");
    int nreused = 0;
    for (int k = 0; k < R->nclaims; k++) nreused += docs[k].c->reused_from > 0;
    lm_tbuf_printf(&w->b,
                   "claims & %d checked in this run, %d reused from earlier runs (unchanged claim "
                   "file, library sources and settings; \\texttt{make verify FORCE=1} re-runs "
                   "them)\\\\\n",
                   R->nclaims - nreused, nreused);
    if (isnan(R->seconds))
        lm_tbuf_printf(&w->b, "time & wall clock not recorded; %s s summed over the claims\\\\\n",
                       csecs);
    else
        lm_tbuf_printf(&w->b, "time & %s s wall clock; %s s summed over the claims\\\\\n",
                       secs, csecs);
    rp_put(w, "database & \\texttt{");
    rp_esc_tt(w, dbpath);
    rp_put(w, "}\\\\\n\\end{longtable}}\n");

    if (!R->finished)
        rp_put(w, "\\noindent\\fcolorbox{vviolated}{vviolated!5}{\\parbox{\\dimexpr\\linewidth-"
                  "2\\fboxsep-2\\fboxrule}{\\textbf{This run is unfinished.} Only the claims saved "
                  "so far are reported; run \\texttt{make verify} again with the same seed, "
                  "budget and precision to resume it.}}\n\n");

    /* which runs the results come from, and the claims of this build with none: report.c
     * (rp_put_coverage), after this page's text */

    rp_put(w, "\\subsection*{Verdicts}\n{\\small\\setlength{\\tabcolsep}{3pt}\\begin{tabular}{@{}");
    for (int j = 0; j < LM_V_COUNT; j++) rp_put(w, "c");
    rp_put(w, "@{}}\n");
    for (int j = 0; j < LM_V_COUNT; j++) {
        if (j) rp_put(w, " & ");
        rp_put_verdict(w, (lm_verdict)order[j]);
    }
    rp_put(w, "\\\\\n");
    for (int j = 0; j < LM_V_COUNT; j++)
        lm_tbuf_printf(&w->b, "%s%s%ld%s", j ? " & " : "", counts[order[j]] ? "\\textbf{" : "",
                       counts[order[j]], counts[order[j]] ? "}" : "");
    rp_put(w, "\\\\\n\\end{tabular}}\n\n");
    put_readings_count(w, docs, R->nclaims);
    put_strength_total(w, docs, R->nclaims);
}

/* ---- summary table -------------------------------------------------------------- */

/* "5/6" mutants killed, in colour when some survived; "--" when not measured */
static void put_strength_cell(rp_writer *w, const lm_claim_result *r)
{
    if (r->mutants_run <= 0) {
        rp_put(w, "--");
        return;
    }
    const char *col = r->mutants_killed == 0                ? "vviolated"
                      : r->mutants_killed < r->mutants_run ? "vartifact"
                                                            : NULL;
    if (col) lm_tbuf_printf(&w->b, "\\textcolor{%s}{\\textbf{%d/%d}}", col, r->mutants_killed, r->mutants_run);
    else lm_tbuf_printf(&w->b, "%d/%d", r->mutants_killed, r->mutants_run);
}

void rp_put_summary(rp_writer *w, const rp_doc *docs, int n)
{
    rp_put(w, "\\Needspace{10\\baselineskip}\n\\section*{Summary}\n\\pdfbookmark[1]{Summary}{summary}\n"
              "{\\footnotesize\\setlength{\\tabcolsep}{3pt}\n"
              "\\begin{longtable}{@{}L{1.6cm}L{2.85cm}L{1.75cm}L{2.75cm}R{1.15cm}R{1.9cm}R{0.9cm}"
              "L{1.8cm}R{0.9cm}@{}}\n"
              "\\toprule paper & id & kind & verdict & mutants killed & worst ratio & inst. & "
              "precisions & s\\\\\\midrule\n\\endhead\n"
              "\\midrule\\multicolumn{9}{r}{\\emph{continued}}\\\\\n\\endfoot\n"
              "\\bottomrule\n\\endlastfoot\n");
    for (int k = 0; k < n; k++) {
        const rp_doc *d = &docs[k];
        const lm_claim_result *r = &d->c->res;
        if (k && strcmp(d->paper, docs[k - 1].paper)) rp_put(w, "\\midrule\n");
        if (!k || strcmp(d->paper, docs[k - 1].paper)) rp_esc(w, d->paper);
        const char *id = d->c->claim.id;
        const char *slash = strchr(id, '/');
        lm_tbuf_printf(&w->b, " & \\hyperref[claim:%d]{\\texttt{", k);
        rp_esc_tt(w, slash ? slash + 1 : id);
        rp_put(w, "}} & ");
        if (d->c->claim.kind < LM_KIND_COUNT) rp_put(w, kind_short[d->c->claim.kind]);
        else rp_esc(w, d->c->kind_name ? d->c->kind_name : "?");
        rp_put(w, " & ");
        rp_put_verdict(w, r->verdict);
        if (r->verdict == LM_V_VIOLATED && r->certified) rp_put(w, "\\,{\\scriptsize(cert.)}");
        if (d->low_recon) rp_put(w, "$^\\dagger$");
        if (d->recon_const) rp_put(w, "$^{\\mathrm R}$");
        /* "false as printed; holds when repaired" at a glance */
        int rv = rp_reading_verdict(r, LM_READ_REPAIRED, NULL);
        if (rv >= 0 && r->repaired_verdict >= 0) rv = r->repaired_verdict;
        if (rv >= 0) {
            rp_put(w, "\\newline{\\scriptsize repaired: ");
            rp_put_verdict(w, (lm_verdict)rv);
            rp_put(w, "}");
        }
        rp_put(w, " & ");
        put_strength_cell(w, r);
        char ratio[80], secs[40];
        lm_tex_ratio(ratio, sizeof ratio, r->worst_ratio);
        lm_tex_seconds(secs, sizeof secs, r->seconds);
        lm_tbuf_printf(&w->b, " & %s & %ld & ", ratio, r->instances);
        put_precisions_short(w, r->precisions);
        lm_tbuf_printf(&w->b, " & %s\\\\\n", secs);
    }
    if (n == 0) rp_put(w, "\\multicolumn{9}{l}{\\emph{no claims in this run}}\\\\\n");
    rp_put(w, "\\end{longtable}}\n");
    int ndagger = 0;
    for (int k = 0; k < n; k++) ndagger += docs[k].low_recon;
    if (ndagger)
        rp_put(w, "{\\footnotesize $^\\dagger$ statement reconstructed with low confidence: a "
                  "violation may reflect our reading rather than the paper.\\par}\n");
    int nrecon = 0;
    for (int k = 0; k < n; k++) nrecon += docs[k].recon_const;
    if (nrecon)
        rp_put(w, "{\\footnotesize $^{\\mathrm R}$ checked against a reconstructed (RECON) constant: "
                  "the paper's printed constant was lost in extraction and the catalogue re-derived "
                  "it along the paper's proof; each such constant is a named parameter, so "
                  "\\texttt{lemmata check ID --set NAME=VALUE} re-checks the paper's own.\\par}\n");
}

/* ---- where it broke, counterexamples ------------------------------------------- */

static int passes(lm_verdict v)
{
    return v == LM_V_HOLDS || v == LM_V_CONSISTENT;
}

/* the claim's id without its paper's prefix */
static const char *short_id(const char *id)
{
    const char *slash = strchr(id, '/');
    return slash ? slash + 1 : id;
}

/* A row of a table of configurations that did not pass: [paper &] claim & configuration
 * (its reading under it) & what it tests, and why it did not pass when that is not a ratio
 * (the reason of an error, a failed hypothesis, a vacuous or uncheckable verdict) & verdict
 * & worst ratio.  k: the claim's index in the edition (label claim:k). */
static void put_break_row(rp_writer *w, const rp_doc *d, int k, const lm_config_result *c, const char *paper)
{
    if (paper) {
        rp_esc(w, paper);
        rp_put(w, " & ");
    }
    lm_tbuf_printf(&w->b, "\\hyperref[claim:%d]{\\texttt{", k);
    rp_esc_tt(w, short_id(d->c->claim.id));
    rp_put(w, "}} & \\texttt{");
    rp_esc_tt(w, c->config);
    rp_put(w, "}\\newline{\\scriptsize\\emph{");
    rp_put(w, rp_reading_word(c->reading));
    rp_put(w, c->reading == LM_READ_PROBE ? "}}" : " reading}}");
    rp_put(w, " & ");
    rp_put_config_sentence(w, c);
    if (c->detail[0] && c->verdict != LM_V_VIOLATED && c->verdict != LM_V_INCONSISTENT) {
        /* the reason, cut to a line or two: the claim's section has it whole */
        char why[200];
        size_t l = strlen(c->detail);
        snprintf(why, sizeof why, "%.*s%s", l > 160 ? 150 : (int)l, c->detail, l > 160 ? "..." : "");
        rp_put(w, "\\newline{\\scriptsize why: ");
        rp_esc(w, why);
        rp_put(w, "}");
    }
    rp_put(w, " & ");
    rp_put_verdict(w, c->verdict);
    char ratio[80];
    lm_tex_ratio(ratio, sizeof ratio, c->worst_ratio);
    lm_tbuf_printf(&w->b, " & %s\\\\\n", ratio);
}

/* Where it broke: every configuration whose verdict is not a pass, with its paper, its reading
 * and the sentence saying what it tests, so a reviewer sees at a glance which reading, mode or
 * step size failed and why. */
void rp_put_findings(rp_writer *w, const rp_doc *docs, int n)
{
    int any = 0;
    const char *last = "";
    for (int k = 0; k < n; k++)
        for (int j = 0; j < docs[k].c->res.nconfig; j++) {
            const lm_config_result *c = &docs[k].c->res.cfg[j];
            if (passes(c->verdict)) continue;
            if (!any) {
                rp_put(w, "\\Needspace{8\\baselineskip}\\section*{Where it broke}\\pdfbookmark[1]{Where it broke}{findings}\n"
                          "Every configuration whose verdict is not a pass, with what it tests.  The claim's "
                          "verdict is the worst of its configurations that read the statement as printed "
                          "(\\emph{paper reading}); \\emph{repaired} readings (a corrected constant, an added "
                          "condition) and \\emph{probes} beyond the hypotheses are judged beside it and do not "
                          "count for it.\n\n"
                          "{\\footnotesize\\setlength{\\tabcolsep}{3pt}\n"
                          "\\begin{longtable}{@{}L{1.5cm}L{2.1cm}L{2.9cm}L{5.6cm}L{2.5cm}R{1.7cm}@{}}\n"
                          "\\toprule paper & claim & configuration & what it tests & verdict & worst ratio\\\\"
                          "\\midrule\n\\endhead\n\\bottomrule\n\\endlastfoot\n");
            }
            /* the paper named on its first row, a rule between papers */
            int newpaper = !any || strcmp(docs[k].paper, last);
            if (any && newpaper) rp_put(w, "\\midrule\n");
            put_break_row(w, &docs[k], k, c, newpaper ? docs[k].paper : "");
            last = docs[k].paper;
            any = 1;
        }
    if (any) rp_put(w, "\\end{longtable}}\n");
}

/* One line per violated claim: its smallest counterexample and whether it is certified. */
void rp_put_counterexamples(rp_writer *w, const rp_doc *docs, int n)
{
    int any = 0;
    for (int k = 0; k < n; k++) {
        const lm_claim_result *r = &docs[k].c->res;
        if (r->verdict != LM_V_VIOLATED) continue;
        const lm_config_result *g = NULL;
        for (int j = 0; j < r->nconfig; j++)
            if (r->cfg[j].shrunk[0] && (!g || rp_counts_for_verdict(r, j))) g = &r->cfg[j];
        if (!any++)
            rp_put(w, "\\Needspace{8\\baselineskip}\\section*{Counterexamples}\\pdfbookmark[1]{Counterexamples}{counterexamples}\n"
                      "For every violated claim, the break of its worst violated configuration shrunk to the "
                      "smallest instance found (sizes bisected and random draws cut to few significant bits "
                      "while the break survives in MPFR); the claim's section prints the instance's data and a "
                      "command that reproduces it.  \\emph{certified}: re-evaluated in ball arithmetic, the "
                      "left side's ball lies wholly above the right side's.  \\texttt{lemmata verify} also "
                      "writes every violated configuration's instance, exactly, to \\texttt{counterexamples/} "
                      "beside the database, for other tools and for \\texttt{lemmata check ID --instances "
                      "FILE}.\n\n"
                      "{\\footnotesize\\setlength{\\tabcolsep}{3pt}\n"
                      "\\begin{longtable}{@{}L{3.0cm}L{3.0cm}L{6.6cm}L{3.1cm}@{}}\n"
                      "\\toprule claim & configuration & smallest counterexample & certified\\\\\\midrule\n\\endhead\n"
                      "\\bottomrule\n\\endlastfoot\n");
        lm_tbuf_printf(&w->b, "\\hyperref[claim:%d]{\\texttt{", k);
        rp_esc_tt(w, docs[k].c->claim.id);
        rp_put(w, "}} & ");
        if (g) {
            rp_put(w, "\\texttt{");
            rp_esc_tt(w, g->config);
            rp_put(w, "} & ");
            /* the description up to "; worst:" (the worst observation is in the claim's section) */
            const char *cut = strstr(g->shrunk, "; worst:");
            size_t len = cut ? (size_t)(cut - g->shrunk) : strlen(g->shrunk);
            char *d = malloc(len + 1);
            if (d) {
                memcpy(d, g->shrunk, len);
                d[len] = 0;
                rp_esc(w, d);
                free(d);
            }
        } else rp_put(w, "-- & \\emph{not shrunk (shrinking off, or the break could not be re-run)}");
        int cert = 0, bits = 0;
        const char *why = NULL; /* an uncertified violation says why, not just "no" */
        if (g && g->verdict == LM_V_VIOLATED) { /* the row's configuration's own certification */
            cert = g->certified;
            bits = g->cert_prec;
            if (!cert && g->detail[0]) why = g->detail;
        } else
            for (int j = 0; j < r->nconfig; j++) {
                if (r->cfg[j].certified) {
                    if (!cert || r->cfg[j].cert_prec > bits) bits = r->cfg[j].cert_prec;
                    cert = 1;
                } else if (r->cfg[j].verdict == LM_V_VIOLATED && !why && r->cfg[j].detail[0])
                    why = r->cfg[j].detail;
            }
        if (cert) lm_tbuf_printf(&w->b, " & yes (%d bits)\\\\\n", bits);
        else {
            static const char *const pre[] = {"not certified: ", "not certifiable: "};
            for (int i = 0; why && i < 2; i++)
                if (!strncmp(why, pre[i], strlen(pre[i]))) why += strlen(pre[i]);
            rp_put(w, " & {\\scriptsize no");
            if (why) {
                rp_put(w, ": ");
                rp_esc(w, why);
            }
            rp_put(w, "}\\\\\n");
        }
    }
    if (any) rp_put(w, "\\end{longtable}}\n");
}

/* ---- a paper's summary page ----------------------------------------------------------- */

/* rows of "what broke" and counterexamples on a paper's summary page: the page stays about
 * one page; the sections "Where it broke" and "Counterexamples" have them all */
#define PAGE_BREAK_ROWS 10
#define PAGE_CEX 4

/* the shrunk counterexample a violated claim shows: of a configuration that counts for its
 * verdict when one was shrunk, else of any */
static const lm_config_result *shrunk_config(const lm_claim_result *r)
{
    const lm_config_result *g = NULL;
    for (int j = 0; j < r->nconfig; j++)
        if (r->cfg[j].shrunk[0] && (!g || rp_counts_for_verdict(r, j))) g = &r->cfg[j];
    return g;
}

void rp_put_paper_summary(rp_writer *w, const rp_doc *docs, int n, int first, int count)
{
    (void)n;
    if (count <= 0) return;
    const rp_doc *D = docs + first;
    rp_put(w, "\\Needspace{12\\baselineskip}\\subsection*{Summary of this paper}\n");

    /* the verdicts, readings beside them, check strength */
    long counts[LM_V_COUNT] = {0};
    long mrun = 0, mkilled = 0;
    int mclaims = 0;
    for (int k = 0; k < count; k++) {
        const lm_claim_result *r = &D[k].c->res;
        if (r->verdict >= 0 && r->verdict < LM_V_COUNT) counts[r->verdict]++;
        if (r->mutants_run > 0) {
            mclaims++;
            mrun += r->mutants_run;
            mkilled += r->mutants_killed;
        }
    }
    static const int order[LM_V_COUNT] = {LM_V_VIOLATED, LM_V_INCONSISTENT, LM_V_ERROR,
                                          LM_V_ASSUMPTION_FAILED, LM_V_ARTIFACT,
                                          LM_V_VACUOUS, LM_V_NOT_CHECKABLE, LM_V_CONSISTENT,
                                          LM_V_HOLDS};
    lm_tbuf_printf(&w->b, "\\noindent\\textbf{%d claim%s} as printed:", count, count == 1 ? "" : "s");
    int any = 0;
    for (int j = 0; j < LM_V_COUNT; j++) {
        if (!counts[order[j]]) continue;
        lm_tbuf_printf(&w->b, "%s %ld ", any ? "," : "", counts[order[j]]);
        rp_put_verdict(w, (lm_verdict)order[j]);
        any = 1;
    }
    rp_put(w, ".");
    if (mclaims)
        lm_tbuf_printf(&w->b, " Check strength: the checks killed %ld of %ld standard mutants (%.0f\\%%)%s.",
                       mkilled, mrun, 100.0 * (double)mkilled / (double)mrun,
                       mclaims < count ? " of the claims measured" : "");
    rp_put(w, "\n\n");
    put_readings_count(w, D, count);

    /* what broke and why: paper readings first (they make the verdicts), then repaired
     * readings, then probes */
    int nbad = 0, nbad_kind[LM_READ_COUNT] = {0};
    for (int k = 0; k < count; k++)
        for (int j = 0; j < D[k].c->res.nconfig; j++) {
            const lm_config_result *c = &D[k].c->res.cfg[j];
            if (passes(c->verdict)) continue;
            nbad++;
            if (c->reading >= 0 && c->reading < LM_READ_COUNT) nbad_kind[c->reading]++;
        }
    rp_put(w, "\\paragraph{What broke, and why}");
    if (!nbad)
        rp_put(w, " Every configuration of every claim passed.\n\n");
    else {
        lm_tbuf_printf(&w->b, " %d configuration%s did not pass: %d reading%s the paper as printed, %d "
                              "repaired, %d probe%s beyond the hypotheses.\n\n",
                       nbad, nbad == 1 ? "" : "s", nbad_kind[LM_READ_PAPER], nbad_kind[LM_READ_PAPER] == 1 ? "" : "s",
                       nbad_kind[LM_READ_REPAIRED], nbad_kind[LM_READ_PROBE], nbad_kind[LM_READ_PROBE] == 1 ? "" : "s");
        rp_put(w, "{\\footnotesize\\setlength{\\tabcolsep}{3pt}\n"
                  "\\begin{longtable}{@{}L{2.2cm}L{3.0cm}L{6.8cm}L{2.6cm}R{1.8cm}@{}}\n"
                  "\\toprule claim & configuration & what it tests & verdict & worst ratio\\\\\\midrule\n"
                  "\\endhead\n\\bottomrule\n\\endlastfoot\n");
        int shown = 0;
        for (int kind = 0; kind < LM_READ_COUNT; kind++)
            for (int k = 0; k < count; k++)
                for (int j = 0; j < D[k].c->res.nconfig; j++) {
                    const lm_config_result *c = &D[k].c->res.cfg[j];
                    if ((int)c->reading != kind || passes(c->verdict)) continue;
                    if (shown++ < PAGE_BREAK_ROWS) put_break_row(w, &D[k], first + k, c, NULL);
                }
        rp_put(w, "\\end{longtable}}\n");
        if (shown > PAGE_BREAK_ROWS)
            lm_tbuf_printf(&w->b, "{\\small \\dots{} and %d more: the section \\emph{Where it broke} lists them "
                                  "all, each claim's section its own.\\par}\n",
                           shown - PAGE_BREAK_ROWS);
    }

    /* the smallest counterexamples, each with the command that reproduces it */
    int ncex = 0;
    for (int k = 0; k < count; k++)
        ncex += D[k].c->res.verdict == LM_V_VIOLATED && shrunk_config(&D[k].c->res) != NULL;
    if (ncex) {
        rp_put(w, "\\paragraph{Counterexamples} The break of each violated claim shrunk to the smallest "
                  "instance found, and one command that reproduces it.\n"
                  "{\\small\\begin{itemize}\\setlength{\\itemsep}{2pt}\n");
        int shown = 0;
        for (int k = 0; k < count && shown < PAGE_CEX; k++) {
            const lm_claim_result *r = &D[k].c->res;
            const lm_config_result *g = r->verdict == LM_V_VIOLATED ? shrunk_config(r) : NULL;
            if (!g) continue;
            shown++;
            lm_tbuf_printf(&w->b, "\\item \\hyperref[claim:%d]{\\texttt{", first + k);
            rp_esc_tt(w, short_id(D[k].c->claim.id));
            rp_put(w, "}} (\\texttt{");
            rp_esc_tt(w, g->config);
            rp_put(w, "}, ");
            rp_put(w, rp_reading_word(g->reading));
            rp_put(w, g->reading == LM_READ_PROBE ? "): " : " reading): ");
            /* up to "; worst:" (the worst observation is in the claim's section) */
            const char *cut = strstr(g->shrunk, "; worst:");
            char desc[400];
            snprintf(desc, sizeof desc, "%.*s", cut ? (int)(cut - g->shrunk) : (int)strlen(g->shrunk), g->shrunk);
            rp_esc(w, desc);
            if (g->certified) lm_tbuf_printf(&w->b, "; certified in ball arithmetic (%d bits)", g->cert_prec);
            else if (g->verdict == LM_V_VIOLATED && !strncmp(g->detail, "not certif", 10)) {
                rp_put(w, "; ");
                rp_esc(w, g->detail); /* why not, in one line */
            }
            rp_put(w, ".");
            if (g->shrunk_reproduce[0]) {
                rp_put(w, "\\\\\n{\\raggedright\\footnotesize\\texttt{");
                rp_esc_tt(w, g->shrunk_reproduce);
                rp_put(w, "}\\par}");
            }
            rp_put(w, "\n");
        }
        rp_put(w, "\\end{itemize}}\n");
        if (ncex > shown)
            lm_tbuf_printf(&w->b, "{\\small \\dots{} and %d more in the section \\emph{Counterexamples}.\\par}\n",
                           ncex - shown);
    }

    /* the slack of the paper's constants */
    rp_slack_put_paper(w, w->slack, docs, first, count);
    /* how deeply they were searched: the budgets of this commit's runs */
    rp_depth_put_paper(w, w->depth, docs, first, count);
}
