/* bm_report.c -- results/bench.json, the LaTeX fragment report/bench.tex and
 * its log-log figures figures/bench_<model>.pdf (gnuplot, pdfcairo, like the
 * report's own figures). */
#include "bm.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------ targets */

typedef struct {
    char id[64];
    char text[240];  /* plain text */
    double value;    /* the measured quantity (NaN: not measured) */
    double goal;     /* value must be <= goal */
    char unit[16];   /* "" ratio, "s" seconds */
    char note[240];
    int met;         /* 1 met, 0 missed, -1 not measured */
} target;

#define MAXT 64

static void tgt(target *T, int *n, const char *id, const char *text, double v, double goal, const char *unit,
                const char *note)
{
    if (*n >= MAXT) return;
    target *t = &T[(*n)++];
    snprintf(t->id, sizeof t->id, "%s", id);
    snprintf(t->text, sizeof t->text, "%s", text);
    snprintf(t->unit, sizeof t->unit, "%s", unit);
    snprintf(t->note, sizeof t->note, "%s", note ? note : "");
    t->value = v;
    t->goal = goal;
    t->met = isfinite(v) ? v <= goal : -1;
}

/* the ladder point of the largest size with a double timing */
static const bm_res *largest(const bm_mres *mr)
{
    const bm_res *b = NULL;
    for (int i = 0; i < mr->nr; i++)
        if (mr->r[i].pt.paper < 0 && mr->r[i].t[BM_DBL].ok && (!b || mr->r[i].size > b->size)) b = &mr->r[i];
    return b;
}

static int targets(const bm_all *A, target *T)
{
    int n = 0;
    char id[64], text[240], note[240];
    for (int mi = 0; mi < A->nm; mi++) {
        const bm_mres *mr = &A->mr[mi];
        const bm_model *m = mr->m;
        for (int i = 0; i < mr->nr; i++) {
            const bm_res *r = &mr->r[i];
            if (!r->label) continue;
            const bm_peer_res *P = &r->peer[BM_TORCH];
            double v = P->ok && r->lrun.ok ? r->lrun.med / P->t.med : BM_NAN;
            snprintf(id, sizeof id, "torch-%s-%s%d", m->id, m->xname, r->size);
            snprintf(text, sizeof text, "%s, %s: lemmata double step / PyTorch float64 step (at least 20x faster)",
                     m->id, r->label);
            tgt(T, &n, id, text, v, 1.0 / 20, "", P->ok ? "" : P->status);
            /* numpy with hand-written gradients is the leaner peer: at least 2x faster than it */
            P = &r->peer[BM_NUMPY];
            v = P->ok && r->lrun.ok ? r->lrun.med / P->t.med : BM_NAN;
            snprintf(id, sizeof id, "numpy-%s-%s%d", m->id, m->xname, r->size);
            snprintf(text, sizeof text, "%s, %s: lemmata double step / numpy float64 step (at least 2x faster)",
                     m->id, r->label);
            tgt(T, &n, id, text, v, 0.5, "", P->ok ? "" : P->status);
            if (!strncmp(r->note[BM_M256], "not applicable", 14)) continue;
            v = r->t[BM_M256].ok && r->t[BM_DBL].ok ? r->t[BM_M256].med / r->t[BM_DBL].med : BM_NAN;
            snprintf(id, sizeof id, "mpfr256-double-%s-%s%d", m->id, m->xname, r->size);
            snprintf(text, sizeof text, "%s, %s: MPFR-256 step / double step (at most 50x)", m->id, r->label);
            tgt(T, &n, id, text, v, 50, "", r->t[BM_M256].ok ? "" : r->note[BM_M256]);
        }
        const bm_res *b = largest(mr);
        if (b) {
            double v = b->blas.ok && b->blas.med > 0 ? b->t[BM_DBL].med / b->blas.med : BM_NAN;
            snprintf(id, sizeof id, "blas-%s-%s%d", m->id, m->xname, b->size);
            snprintf(text, sizeof text, "%s, %s = %d: double step / BLAS-bound time of its products (within 2x)",
                     m->id, m->xname, b->size);
            snprintf(note, sizeof note, "BLAS-bound %.3g s for %.3g Gflop", b->blas.med, b->flops * 1e-9);
            tgt(T, &n, id, text, v, 2, "", note);
        }
    }
    for (int q = 0; q < A->nrep; q++) {
        const bm_replay *R = &A->rep[q];
        double v = R->lm.ok && R->mpm.ok ? R->lm.med / R->mpm.med : BM_NAN;
        snprintf(id, sizeof id, "mpmath-replay-%d", q);
        snprintf(text, sizeof text, "MPFR-256 replay of the %s: lemmata / mpmath per step (at least 50x faster)",
                 R->what);
        tgt(T, &n, id, text, v, 1.0 / 50, "", R->mpm.ok ? "" : R->status);
    }
    for (int q = 0; q < A->nprod; q++) {
        const bm_prod *P = &A->prod[q];
        double v = P->mp.ok && P->mpm.ok ? P->mp.med / P->mpm.med : BM_NAN;
        snprintf(id, sizeof id, "mpmath-product-%d", P->n);
        snprintf(text, sizeof text, "one %dx%d product at 256 bits: lemmata MPFR / mpmath (at least 50x faster)",
                 P->n, P->n);
        tgt(T, &n, id, text, v, 1.0 / 50, "", P->mpm.ok ? "" : P->status);
    }
    tgt(T, &n, "verify-full", "make verify (all claims): seconds (under 10 minutes)", A->verify_full, 600, "s",
        A->verify_full_info);
    tgt(T, &n, "verify-quick", "make verify QUICK=1: seconds (under 60 s)", A->verify_quick, 60, "s",
        A->verify_quick_info);
    return n;
}

/* ------------------------------------------------------------ JSON */

static void jtime(FILE *f, const char *name, const bm_time *t)
{
    fprintf(f, "\"%s\": ", name);
    if (!t->ok) {
        fputs("null", f);
        return;
    }
    fputs("{\"median\": ", f);
    bm_json_num(f, t->med);
    fputs(", \"min\": ", f);
    bm_json_num(f, t->min);
    fputs(", \"max\": ", f);
    bm_json_num(f, t->max);
    fprintf(f, ", \"samples\": %d, \"steps_per_sample\": %d}", t->reps, t->inner);
}

static void jkv(FILE *f, const char *k, const char *v, int comma)
{
    fprintf(f, "\"%s\": ", k);
    bm_json_str(f, v);
    if (comma) fputs(", ", f);
}

int bm_write_json(const bm_all *A, const char *path)
{
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "bench: cannot write %s\n", tmp);
        return 1;
    }
    fputs("{\n", f);
    jkv(f, "schema", "lemmata-bench/1", 1);
    jkv(f, "date", A->date, 1);
    jkv(f, "commit", A->commit, 0);
    fprintf(f, ",\n\"quick\": %d, \"wall_seconds\": ", A->quick);
    bm_json_num(f, A->wall);
    fprintf(f, ",\n\"machine\": {\"nproc\": %d, ", A->nproc);
    jkv(f, "cpu", A->cpu, 0);
    fprintf(f, ", \"openblas_threads\": %d},\n\"versions\": {", A->blas_threads);
    jkv(f, "c_libraries", A->versions, 1);
    jkv(f, "python_peers", A->pyver, 0);
    fputs("},\n\"method\": ", f);
    bm_json_str(f, "per-step seconds: median of repeated samples with min and max; a sample averages "
                   "steps_per_sample consecutive steps. Ladder timings continue one instance; peer comparisons "
                   "run `steps` steps from the same initial point `samples` times in lemmata and in the peer, "
                   "and count only when the final iterates agree (relative 2-norm difference <= 1e-10 in "
                   "double, <= 1e-60 at 256 bits). Ratios are lemmata / peer, taken in the same run. "
                   "blas_bound: the time cblas_dgemm (the same OpenBLAS) takes for the products a minimal step "
                   "needs, on preallocated operands. fit: least squares of log(time) on log(size) over the "
                   "ladder sizes >= fit.from (all sizes when fewer than 3), with a 95% interval.");
    fputs(",\n\"peers_skipped\": {", f);
    static const char *const pk[3] = {"torch", "numpy", "mpmath"};
    int first = 1;
    for (int p = 0; p < 3; p++)
        if (A->peers_avail[p][0]) {
            if (!first) fputs(", ", f);
            jkv(f, pk[p], A->peers_avail[p], 0);
            first = 0;
        }
    fputs("},\n\"models\": [\n", f);
    for (int mi = 0; mi < A->nm; mi++) {
        const bm_mres *mr = &A->mr[mi];
        const bm_model *m = mr->m;
        fputs(" {", f);
        jkv(f, "id", m->id, 1);
        jkv(f, "title", m->title, 1);
        jkv(f, "run", m->run, 1);
        jkv(f, "size", m->xname, 1);
        jkv(f, "fixed", m->fixed, 0);
        fputs(",\n  \"fit\": {", f);
        for (int c = 0; c < BM_NCTX; c++) {
            fprintf(f, "%s\"%s\": ", c ? ", " : "", bm_ctx_names[c]);
            if (!mr->fit_ok[c]) {
                fputs("null", f);
                continue;
            }
            fputs("{\"exponent\": ", f);
            bm_json_num(f, mr->fit_slope[c]);
            fputs(", \"se\": ", f);
            bm_json_num(f, mr->fit_se[c]);
            fputs(", \"ci95\": [", f);
            bm_json_num(f, mr->fit_lo[c]);
            fputs(", ", f);
            bm_json_num(f, mr->fit_hi[c]);
            fprintf(f, "], \"points\": %d, \"from\": %d}", mr->fit_n[c], mr->fit_from[c]);
        }
        fputs("},\n  \"ladder_stopped\": {", f);
        for (int c = 1; c < BM_NCTX; c++) {
            fprintf(f, "%s\"%s\": ", c > 1 ? ", " : "", bm_ctx_names[c]);
            if (mr->stop[c][0]) bm_json_str(f, mr->stop[c]);
            else fputs("null", f);
        }
        fputs("},\n  \"points\": [\n", f);
        for (int i = 0; i < mr->nr; i++) {
            const bm_res *r = &mr->r[i];
            fprintf(f, "   {\"size\": %d, \"paper\": ", r->size);
            if (r->label) bm_json_str(f, r->label);
            else fputs("null", f);
            fprintf(f, ", \"ladder\": %s,\n    ", r->pt.paper < 0 ? "true" : "false");
            for (int c = 0; c < BM_NCTX; c++) {
                jtime(f, bm_ctx_names[c], &r->t[c]);
                fputs(", ", f);
                if (r->note[c][0]) {
                    char k[40];
                    snprintf(k, sizeof k, "%s_note", bm_ctx_names[c]);
                    jkv(f, k, r->note[c], 1);
                }
            }
            fputs("\n    ", f);
            jtime(f, "blas_bound", &r->blas);
            fputs(", \"blas_gflop\": ", f);
            bm_json_num(f, r->flops * 1e-9);
            fputs(", \"mpfr256_over_double\": ", f);
            bm_json_num(f, r->t[BM_M256].ok && r->t[BM_DBL].ok ? r->t[BM_M256].med / r->t[BM_DBL].med : BM_NAN);
            fputs(", \"double_over_blas_bound\": ", f);
            bm_json_num(f, r->blas.ok && r->t[BM_DBL].ok ? r->t[BM_DBL].med / r->blas.med : BM_NAN);
            fprintf(f, ",\n    \"peers\": {\"steps\": %d, \"runs\": %d, ", r->K, r->R);
            jtime(f, "lemmata", &r->lrun);
            for (int p = 0; p < BM_NPEER; p++) {
                const bm_peer_res *P = &r->peer[p];
                fprintf(f, ",\n     \"%s\": {", bm_peer_names[p]);
                jkv(f, "status", P->status, 1);
                fputs("\"agreement\": ", f);
                bm_json_num(f, P->agree);
                fputs(", ", f);
                jtime(f, "time", &P->t);
                fputs(", \"lemmata_over_peer\": ", f);
                bm_json_num(f, P->ok && r->lrun.ok ? r->lrun.med / P->t.med : BM_NAN);
                fputs("}", f);
            }
            fprintf(f, "}}%s\n", i + 1 < mr->nr ? "," : "");
        }
        fprintf(f, "  ]}%s\n", mi + 1 < A->nm ? "," : "");
    }
    fputs("],\n\"products_256bit\": [\n", f);
    for (int q = 0; q < A->nprod; q++) {
        const bm_prod *P = &A->prod[q];
        fprintf(f, " {\"n\": %d, ", P->n);
        jtime(f, "lemmata_mpfr256", &P->mp);
        fputs(", ", f);
        jtime(f, "arb256", &P->arb);
        fputs(", ", f);
        jtime(f, "mpfr_fma_loop", &P->fma);
        fputs(", ", f);
        jtime(f, "double", &P->dbl);
        fputs(", ", f);
        jtime(f, "mpmath", &P->mpm);
        fputs(",\n  ", f);
        jtime(f, "arbdot_prototype", &P->proto);
        fprintf(f, ", \"prototype_check\": {\"entries\": %ld, \"differ\": %ld, \"fallbacks\": %ld, "
                   "\"integer_entries\": %ld, \"integer_differ\": %ld, \"integer_fallbacks\": %ld},\n  ",
                P->proto_entries, P->proto_mismatch, P->proto_fallback, P->int_entries, P->int_mismatch,
                P->int_fallback);
        jkv(f, "mpmath_status", P->status, 1);
        fputs("\"agreement\": ", f);
        bm_json_num(f, P->agree);
        fputs(", \"lemmata_over_mpmath\": ", f);
        bm_json_num(f, P->mp.ok && P->mpm.ok ? P->mp.med / P->mpm.med : BM_NAN);
        fprintf(f, "}%s\n", q + 1 < A->nprod ? "," : "");
    }
    fputs("],\n\"mpmath_replays\": [\n", f);
    for (int q = 0; q < A->nrep; q++) {
        const bm_replay *R = &A->rep[q];
        fputs(" {", f);
        jkv(f, "what", R->what, 0);
        fprintf(f, ", \"steps\": %d, ", R->K);
        jtime(f, "lemmata_mpfr256", &R->lm);
        fputs(", ", f);
        jtime(f, "lemmata_double", &R->dbl);
        fputs(", ", f);
        jtime(f, "mpmath", &R->mpm);
        fputs(", ", f);
        jkv(f, "status", R->status, 1);
        fputs("\"agreement\": ", f);
        bm_json_num(f, R->agree);
        fputs(", \"lemmata_over_mpmath\": ", f);
        bm_json_num(f, R->lm.ok && R->mpm.ok ? R->lm.med / R->mpm.med : BM_NAN);
        fprintf(f, "}%s\n", q + 1 < A->nrep ? "," : "");
    }
    fputs("],\n\"verify\": {\"full_seconds\": ", f);
    bm_json_num(f, A->verify_full);
    fputs(", ", f);
    jkv(f, "full", A->verify_full_info, 1);
    fputs("\"quick_seconds\": ", f);
    bm_json_num(f, A->verify_quick);
    fputs(", ", f);
    jkv(f, "quick", A->verify_quick_info, 0);
    fputs("},\n\"audit\": ", f);
    bm_audit_json(f, &A->audit);
    fputs(",\n\"vmath\": ", f);
    bm_vmath_json(f); /* issue 21: bm_vmath.c */
    fputs(",\n\"targets\": [\n", f);
    target T[MAXT];
    int nt = targets(A, T);
    for (int i = 0; i < nt; i++) {
        fputs(" {", f);
        jkv(f, "id", T[i].id, 1);
        jkv(f, "goal", T[i].text, 1);
        fputs("\"measured\": ", f);
        bm_json_num(f, T[i].value);
        fputs(", \"at_most\": ", f);
        bm_json_num(f, T[i].goal);
        fprintf(f, ", \"met\": %s, ", T[i].met < 0 ? "null" : T[i].met ? "true" : "false");
        jkv(f, "note", T[i].note, 0);
        fprintf(f, "}%s\n", i + 1 < nt ? "," : "");
    }
    fputs("]\n}\n", f);
    if (fclose(f) || rename(tmp, path)) {
        fprintf(stderr, "bench: cannot write %s\n", path);
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------ LaTeX */

/* seconds in a readable unit */
static void tex_time(FILE *f, double s)
{
    if (!isfinite(s)) fputs("--", f);
    else if (s < 1e-3) fprintf(f, "%.3g\\,$\\mu$s", s * 1e6);
    else if (s < 1) fprintf(f, "%.3g\\,ms", s * 1e3);
    else fprintf(f, "%.3g\\,s", s);
}

static void tex_tm(FILE *f, const bm_time *t)
{
    if (!t->ok) {
        fputs("--", f);
        return;
    }
    tex_time(f, t->med);
}

static void tex_num(FILE *f, double x)
{
    if (!isfinite(x)) fputs("--", f);
    else if (x >= 1e4 || x < 1e-3) {
        int e = (int)floor(log10(x));
        fprintf(f, "$%.2f\\cdot 10^{%d}$", x / pow(10, e), e);
    } else fprintf(f, "%.3g", x);
}

/* gnuplot the ladder of one model; returns 1 when the PDF exists */
static int figure(const bm_mres *mr, const char *figdir)
{
    const bm_model *m = mr->m;
    char dat[512], gp[512], pdf[512];
    snprintf(dat, sizeof dat, "%s/bench_%s.dat", figdir, m->id);
    snprintf(gp, sizeof gp, "%s/bench_%s.gp", figdir, m->id);
    snprintf(pdf, sizeof pdf, "%s/bench_%s.pdf", figdir, m->id);
    FILE *f = fopen(dat, "w");
    if (!f) return 0;
    fprintf(f, "# %s: seconds per training step against %s (%s); ? = not measured\n", m->id, m->xname, m->fixed);
    fprintf(f, "# size double mpfr128 mpfr256 blas_bound torch numpy\n");
    int col_has[7] = {0};
    for (int i = 0; i < mr->nr; i++) {
        const bm_res *r = &mr->r[i];
        if (r->pt.paper >= 0) continue;
        double v[6] = {r->t[0].ok ? r->t[0].med : BM_NAN, r->t[1].ok ? r->t[1].med : BM_NAN,
                       r->t[2].ok ? r->t[2].med : BM_NAN, r->blas.ok ? r->blas.med : BM_NAN,
                       r->peer[0].ok ? r->peer[0].t.med : BM_NAN, r->peer[1].ok ? r->peer[1].t.med : BM_NAN};
        fprintf(f, "%d", r->size);
        for (int c = 0; c < 6; c++) {
            if (isfinite(v[c]) && v[c] > 0) {
                fprintf(f, " %.6g", v[c]);
                col_has[c] = 1;
            } else fputs(" ?", f);
        }
        fputc('\n', f);
    }
    fclose(f);
    f = fopen(gp, "w");
    if (!f) return 0;
    fprintf(f, "# generated by make bench -- rerun from the source root: gnuplot %s\n", gp);
    fputs("reset\nset terminal pdfcairo noenhanced color size 8.6cm,6.4cm font 'Sans,7'\n", f);
    fprintf(f, "set output '%s'\n", pdf);
    fprintf(f, "set title '%s (%s)'\n", m->id, m->fixed);
    fprintf(f, "set xlabel 'size %s (log scale)'\nset ylabel 'seconds per training step (log scale)'\n", m->xname);
    fputs("set logscale xy\nset format y '%g'\nset format x '%g'\nset datafile missing '?'\n"
          "set key outside top center horizontal samplen 2 width -1 maxrows 3\nset grid lc rgb '#dddddd'\n"
          "set border lc rgb '#444444'\n",
          f);
    static const char *const tl[6] = {"lemmata double", "lemmata MPFR-128", "lemmata MPFR-256", "BLAS-bound",
                                      "PyTorch float64", "numpy"};
    static const char *const st[6] = {"lw 2 pt 7 ps 0.5 lc rgb '#1f77b4'", "lw 1.5 pt 5 ps 0.5 lc rgb '#ff7f0e'",
                                      "lw 1.5 pt 9 ps 0.6 lc rgb '#d62728'", "lw 1.5 dt 2 lc rgb '#000000'",
                                      "lw 1.5 pt 4 ps 0.5 lc rgb '#2ca02c'", "lw 1.5 pt 6 ps 0.5 lc rgb '#9467bd'"};
    int np = 0;
    for (int c = 0; c < 6; c++) {
        if (!col_has[c]) continue;
        fprintf(f, "%s'%s' using 1:%d with %s title '%s' %s", np ? ", \\\n     " : "plot ", dat, c + 2,
                c == 3 ? "lines" : "linespoints", tl[c], st[c]);
        np++;
    }
    fputs("\n", f);
    fclose(f);
    if (!np) return 0;
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "gnuplot '%s' 2>>'%s/bench_gnuplot.log'", gp, figdir);
    unlink(pdf);
    if (system(cmd)) fprintf(stderr, "bench: gnuplot failed on %s (see %s/bench_gnuplot.log)\n", gp, figdir);
    struct stat sb;
    return stat(pdf, &sb) == 0 && sb.st_size > 0;
}

static void peer_cell(FILE *f, const bm_res *r, int p)
{
    const bm_peer_res *P = &r->peer[p];
    if (P->ok) {
        tex_tm(f, &P->t);
        fputs(" & ", f);
        tex_num(f, r->lrun.med / P->t.med);
    } else {
        const char *s = P->status;
        fputs(!strncmp(s, "mismatch", 8) ? "mismatch" : !strncmp(s, "skipped", 7) ? "not installed"
                                                                                    : "failed",
              f);
        fputs(" & --", f);
    }
}

int bm_write_tex(const bm_all *A, const char *texpath, const char *figdir)
{
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp", texpath);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "bench: cannot write %s\n", tmp);
        return 1;
    }
    fputs("% generated by make bench (bench/bench.c) -- do not edit\n\\section{Benchmarks}\\label{sec:bench}\n", f);
    fputs("Training-step throughput of lemmata, measured by \\texttt{make bench} (numbers in "
          "\\texttt{results/bench.json}). ",
          f);
    fprintf(f, "Machine: %d cores, ", A->nproc);
    bm_tex_esc(f, A->cpu, 0);
    fprintf(f, "; OpenBLAS threads %d. Commit \\texttt{", A->blas_threads);
    bm_tex_esc(f, A->commit, 0);
    fputs("}, ", f);
    bm_tex_esc(f, A->date, 0);
    fprintf(f, "%s; the bench took %.0f\\,s. Libraries: ", A->quick ? " (QUICK: a short ladder)" : "", A->wall);
    bm_tex_esc(f, A->versions, 0);
    fputs(". Peers: ", f);
    bm_tex_esc(f, A->pyver[0] ? A->pyver : "none ran", 0);
    fputs(".\n\n", f);
    fputs("\\paragraph{Method.} A timing is the median of repeated samples, with the minimum and maximum in "
          "\\texttt{bench.json}; a sample averages several consecutive steps when a step is short. Each step "
          "is the library's own training step (the functions the live runs call), on an instance drawn in "
          "double and converted exactly into MPFR. The peers (\\texttt{bench/peers/}) are the same runs "
          "written as a user would: PyTorch float64 on the CPU with autograd and \\texttt{torch.optim}, numpy "
          "with hand-written gradients, and for 256 bits the numpy code on object arrays of mpmath numbers. "
          "Peer and lemmata start from the same data and initial point and take the same number of steps; a "
          "peer's time is reported only when the final iterates agree (relative difference at most "
          "$10^{-10}$ in double, $10^{-60}$ at 256 bits), otherwise as a mismatch. Ratios are lemmata/peer "
          "(below 1: lemmata faster), taken in the same run. The BLAS-bound time is what \\texttt{cblas\\_dgemm} "
          "of the same OpenBLAS takes for the dense products a minimal step needs, on preallocated operands "
          "(elementwise work such as \\texttt{exp} and \\texttt{pow} is not in it). The cost exponent is the "
          "least-squares slope of $\\log t$ on $\\log(\\mathrm{size})$ over the ladder sizes $\\ge 32$.\n\n",
          f);

    /* ---- targets ---- */
    target T[MAXT];
    int nt = targets(A, T), nmet = 0, nmiss = 0;
    for (int i = 0; i < nt; i++) nmet += T[i].met == 1, nmiss += T[i].met == 0;
    fprintf(f, "\\paragraph{Targets} (goals of issues 8 and 21, not tests; \\texttt{bench/PERF-NOTES.md} "
            "gives the profile behind each missed one): %d met, %d missed, %d not measured.\n", nmet,
            nmiss, nt - nmet - nmiss);
    fputs("{\\footnotesize\n\\begin{longtable}{@{}p{0.56\\linewidth}rrl@{}}\n\\toprule\nTarget (quantity "
          "compared) & measured & goal & met?\\\\\n\\midrule\\endhead\n",
          f);
    for (int i = 0; i < nt; i++) {
        bm_tex_esc(f, T[i].text, 0);
        fputs(" & ", f);
        if (T[i].unit[0] == 's') tex_time(f, T[i].value);
        else tex_num(f, T[i].value);
        fputs(" & $\\le$ ", f);
        if (T[i].unit[0] == 's') tex_time(f, T[i].goal);
        else tex_num(f, T[i].goal);
        fprintf(f, " & %s\\\\\n", T[i].met < 0 ? "not measured" : T[i].met ? "yes" : "\\textbf{no}");
        if (T[i].note[0] && (T[i].met != 1 || T[i].unit[0] == 's')) {
            fputs("\\multicolumn{4}{@{\\quad}p{0.95\\linewidth}@{}}{\\scriptsize ", f);
            bm_tex_esc(f, T[i].note, 0);
            fputs("}\\\\\n", f);
        }
    }
    fputs("\\bottomrule\n\\end{longtable}}\n\n", f);

    /* ---- peers at the papers' sizes ---- */
    fputs("\\paragraph{Against the peers at the papers' sizes} (per training step; ratio lemmata/peer).\n"
          "{\\footnotesize\n\\begin{longtable}{@{}p{0.27\\linewidth}rrrrrl@{}}\n\\toprule\nRun & lemmata & "
          "PyTorch & ratio & numpy & ratio & agreement\\\\\n\\midrule\\endhead\n",
          f);
    for (int mi = 0; mi < A->nm; mi++) {
        const bm_mres *mr = &A->mr[mi];
        for (int i = 0; i < mr->nr; i++) {
            const bm_res *r = &mr->r[i];
            if (!r->label) continue;
            bm_tex_esc(f, mr->m->id, 0);
            fputs(": ", f);
            bm_tex_esc(f, r->label, 0);
            fputs(" & ", f);
            tex_tm(f, &r->lrun);
            fputs(" & ", f);
            peer_cell(f, r, BM_TORCH);
            fputs(" & ", f);
            peer_cell(f, r, BM_NUMPY);
            fputs(" & ", f);
            double ag = 0;
            int have = 0;
            for (int p = 0; p < BM_NPEER; p++)
                if (isfinite(r->peer[p].agree)) ag = fmax(ag, r->peer[p].agree), have = 1;
            if (have) tex_num(f, ag);
            else fputs("--", f);
            fputs("\\\\\n", f);
        }
    }
    fputs("\\bottomrule\n\\end{longtable}}\n", f);
    fputs("\\noindent Agreement: the largest relative 2-norm difference of the final iterates over the peers "
          "(steps and runs per point in \\texttt{bench.json}).\n\n",
          f);

    /* ---- precisions ---- */
    fputs("\\paragraph{Precisions and the BLAS bound} (per step, at the papers' sizes and the largest ladder "
          "size).\n{\\footnotesize\n\\begin{longtable}{@{}p{0.3\\linewidth}rrrrrr@{}}\n\\toprule\nRun, size & "
          "double & MPFR-128 & MPFR-256 & 256/double & BLAS-bound & double/BLAS\\\\\n\\midrule\\endhead\n",
          f);
    for (int mi = 0; mi < A->nm; mi++) {
        const bm_mres *mr = &A->mr[mi];
        const bm_res *b = largest(mr);
        for (int i = 0; i < mr->nr; i++) {
            const bm_res *r = &mr->r[i];
            if (!r->label && r != b) continue;
            bm_tex_esc(f, mr->m->id, 0);
            fprintf(f, ", %s = %d & ", mr->m->xname, r->size);
            for (int c = 0; c < BM_NCTX; c++) {
                tex_tm(f, &r->t[c]);
                fputs(" & ", f);
            }
            tex_num(f, r->t[2].ok && r->t[0].ok ? r->t[2].med / r->t[0].med : BM_NAN);
            fputs(" & ", f);
            tex_tm(f, &r->blas);
            fputs(" & ", f);
            tex_num(f, r->blas.ok && r->t[0].ok ? r->t[0].med / r->blas.med : BM_NAN);
            fputs("\\\\\n", f);
        }
    }
    fputs("\\bottomrule\n\\end{longtable}}\n", f);
    fputs("\\noindent --: not measured (MPFR ladders stop before a step predicted to take more than "
          "0.7\\,s, 6\\,s at a paper size; \\texttt{pc-run} is a double-only path).\n\n",
          f);
    /* ---- cost exponents ---- */
    fputs("\\paragraph{Cost exponents} of the step time against the size (slope of $\\log t$ on "
          "$\\log(\\mathrm{size})$ $\\pm$ one standard error; sizes used).\n{\\footnotesize\n"
          "\\begin{longtable}{@{}lllll@{}}\n\\toprule\nRun & other dimensions & double & MPFR-128 & "
          "MPFR-256\\\\\n\\midrule\\endhead\n",
          f);
    for (int mi = 0; mi < A->nm; mi++) {
        const bm_mres *mr = &A->mr[mi];
        bm_tex_esc(f, mr->m->id, 0);
        fputs(" & ", f);
        bm_tex_esc(f, mr->m->fixed, 0);
        for (int c = 0; c < BM_NCTX; c++) {
            fputs(" & ", f);
            if (!mr->fit_ok[c]) {
                fputs("--", f);
                continue;
            }
            int hi = 0;
            for (int i = 0; i < mr->nr; i++)
                if (mr->r[i].pt.paper < 0 && mr->r[i].t[c].ok && mr->r[i].size > hi) hi = mr->r[i].size;
            fprintf(f, "%.2f$\\pm$%.2f (%s %d--%d)", mr->fit_slope[c], mr->fit_se[c], mr->m->xname, mr->fit_from[c],
                    hi);
        }
        fputs("\\\\\n", f);
    }
    fputs("\\bottomrule\n\\end{longtable}}\n\n", f);

    /* ---- 256-bit work against mpmath ---- */
    fputs("\\paragraph{256 bits against mpmath.}\n{\\footnotesize\n\\begin{longtable}{@{}p{0.27\\linewidth}"
          "rrrrrl@{}}\n\\toprule\nWork & lemmata MPFR & Arb & mpfr\\_fma loop & mpmath & lemmata/mpmath & "
          "agreement\\\\\n\\midrule\\endhead\n",
          f);
    for (int q = 0; q < A->nprod; q++) {
        const bm_prod *P = &A->prod[q];
        fprintf(f, "one %dx%d product & ", P->n, P->n);
        tex_tm(f, &P->mp);
        fputs(" & ", f);
        tex_tm(f, &P->arb);
        fputs(" & ", f);
        tex_tm(f, &P->fma);
        fputs(" & ", f);
        tex_tm(f, &P->mpm);
        fputs(" & ", f);
        tex_num(f, P->mp.ok && P->mpm.ok ? P->mp.med / P->mpm.med : BM_NAN);
        fputs(" & ", f);
        if (P->mpm.ok) tex_num(f, P->agree);
        else bm_tex_esc(f, P->status, 0);
        fputs("\\\\\n", f);
    }
    for (int q = 0; q < A->nrep; q++) {
        const bm_replay *R = &A->rep[q];
        bm_tex_esc(f, R->what, 0);
        fputs(", per step & ", f);
        tex_tm(f, &R->lm);
        fputs(" & -- & -- & ", f);
        tex_tm(f, &R->mpm);
        fputs(" & ", f);
        tex_num(f, R->lm.ok && R->mpm.ok ? R->lm.med / R->mpm.med : BM_NAN);
        fputs(" & ", f);
        if (R->mpm.ok) tex_num(f, R->agree);
        else bm_tex_esc(f, R->status, 0);
        fputs("\\\\\n", f);
    }
    fputs("\\bottomrule\n\\end{longtable}}\n", f);
    fputs("\\noindent lemmata's MPFR product rounds each entry once (exact products summed by "
          "\\texttt{mpfr\\_sum}); the plain loop rounds at every \\texttt{mpfr\\_fma}; Arb returns a ball. "
          "The mpmath replay is the numpy step of \\texttt{bench/peers/np\\_models.py} on object arrays of "
          "mpmath numbers at 256 bits.\n\n",
          f);
    if (A->nprod) {
        fputs("\\paragraph{A faster MPFR product with the same bits (proposal).} \\texttt{bench/bm\\_mpdot.c} "
              "encloses each entry with Arb's \\texttt{arb\\_dot} at 32 guard bits and returns the rounding of "
              "the enclosure when both of its ends round to the same 256-bit number (then that number is the "
              "correctly rounded exact sum), falling back to lemmata's exact products and \\texttt{mpfr\\_sum} "
              "otherwise. Measured here: ",
              f);
        for (int q = 0; q < A->nprod; q++) {
            const bm_prod *P = &A->prod[q];
            fprintf(f, "%s%dx%d: ", q ? "; " : "", P->n, P->n);
            tex_tm(f, &P->proto);
            fputs(" against ", f);
            tex_tm(f, &P->mp);
            fprintf(f, " (%ld of %ld entries differ from \\texttt{lm\\_mat\\_mul}, %ld fallbacks; on integer "
                       "operands with exact zeros and a rounding tie %ld of %ld differ, %ld fallbacks)",
                    P->proto_mismatch, P->proto_entries, P->proto_fallback, P->int_mismatch, P->int_entries,
                    P->int_fallback);
        }
        fputs(". The library does not use it yet.\n\n", f);
    }

    /* ---- figures ---- */
    fputs("\\paragraph{Ladders.} Seconds per step against the size, log-log; the instance of each size is "
          "drawn afresh, the other dimensions fixed as in the title.\n\n",
          f);
    int nfig = 0;
    {
        char log[600];
        snprintf(log, sizeof log, "%s/bench_gnuplot.log", figdir);
        unlink(log); /* gnuplot appends this run's messages */
    }
    for (int mi = 0; mi < A->nm; mi++) {
        if (!figure(&A->mr[mi], figdir)) continue;
        fprintf(f, "\\noindent\\begin{minipage}{0.49\\linewidth}\\centering\\includegraphics[width=\\linewidth]"
                   "{%s/bench_%s.pdf}\\end{minipage}%s\n",
                figdir, A->mr[mi].m->id, nfig % 2 ? "\n" : "\\hfill");
        nfig++;
    }
    if (!nfig) fputs("(gnuplot did not produce the figures; see figures/bench\\_gnuplot.log.)\n", f);
    {
        char log[600];
        struct stat sb;
        snprintf(log, sizeof log, "%s/bench_gnuplot.log", figdir);
        if (stat(log, &sb) == 0 && sb.st_size == 0) unlink(log);
    }
    fputs("\n", f);
    bm_audit_tex(f, &A->audit, figdir); /* issue 21: audit throughput (bm_audit.c) */
    bm_vmath_tex(f);                     /* issue 21: vector maths (bm_vmath.c) */
    /* ---- skipped peers ---- */
    for (int p = 0; p < 3; p++)
        if (A->peers_avail[p][0]) {
            fputs("\\noindent ", f);
            bm_tex_esc(f, A->peers_avail[p], 0);
            fputs(".\n", f);
        }
    if (fclose(f) || rename(tmp, texpath)) {
        fprintf(stderr, "bench: cannot write %s\n", texpath);
        return 1;
    }
    return 0;
}
