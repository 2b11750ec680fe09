/* lemmas/mirror/paper.c -- the paper, and its live runs for `lemmata train` and `lemmata verify`. */
#include "lm_mdruns.h"
#include "lm_paper.h"
#include <stdlib.h>
#include <string.h>

/* ---- lemmata train: the runs of lm_mdr_runs (runs/md_runs.c) ---- */

static const char *run_name(int k)
{
    for (int j = 0; j <= k; j++)
        if (!lm_mdr_runs[j].name) return NULL;
    return lm_mdr_runs[k].name;
}

static const char *run_doc(int k) { return lm_mdr_runs[k].doc; }

static void *run_alloc(int k)
{
    lm_mdr_def *r = malloc(sizeof *r);
    if (r) *r = lm_mdr_runs[k];
    return r;
}

static int run_set(void *r, const char *kv, char *err, int errlen) { return lm_mdr_set(r, kv, err, errlen); }

static void run_steps(void *r, int steps) { ((lm_mdr_def *)r)->steps = steps; }

/* CSV of the run in a->ctx, or with --drift the double run against its MPFR repeat; the
 * selected tokens (and where the double run freezes) on stderr */
static int run_train(void *rp, FILE *f, const lm_train_args *a, char *err, int errlen)
{
    const lm_mdr_def *r = rp;
    int rc;
    lm_mdr_info I;
    memset(&I, 0, sizeof I);
    if (a->drift) {
        lm_mdr_rec *xd = NULL, *xm = NULL;
        lm_mdr_drift_rec *x = NULL;
        rc = lm_mdr_drift(&xd, &xm, &x, &I, r, a->seed, (mpfr_prec_t)a->drift, 0, err, errlen);
        if (!rc) {
            fprintf(f, "iterate,log_loss_double,log_loss_mpfr,norm_p_double,norm_p_mpfr,"
                       "growth_double,growth_mpfr,theta_rel_drift,disp_rel_err,D_double,D_mpfr,"
                       "frozen_entries,moved_entries_mpfr,changed_entries_double\n");
            for (int t = 0; t <= r->steps; t++)
                fprintf(f, "%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.6e,%.6e,%.17g,%.17g,%d,%d,%d\n", t,
                        xd[t].log_loss, xm[t].log_loss, xd[t].norm, xm[t].norm, x[t].growth_d,
                        x[t].growth_m, x[t].theta, x[t].disp, x[t].D_d, x[t].D_m, x[t].frozen,
                        x[t].moved, x[t].changed);
            int ff = lm_mdr_frozen_from(x, r->steps);
            if (ff >= 0)
                fprintf(stderr, "lemmata: the double run is frozen from iterate %d (Theta unchanged "
                                "in double while the MPFR run moves)\n", ff);
            else
                fprintf(stderr, "lemmata: the double run is not frozen at its end\n");
        }
        free(xd);
        free(xm);
        free(x);
    } else {
        lm_mdr_rec *x = NULL;
        rc = lm_mdr_exec(&x, &I, r, a->seed, &a->ctx, 0, err, errlen);
        if (!rc) {
            lm_mdr_csv_header(f);
            for (int t = 0; t <= r->steps; t++) lm_mdr_csv_row(f, &x[t]);
        }
        free(x);
    }
    if (!rc && I.alpha) {
        fprintf(stderr, "lemmata: selected tokens alpha =");
        for (int i = 0; i < I.n; i++) fprintf(stderr, " %d", I.alpha[i]);
        fprintf(stderr, " (%d of %d the argmax of the scores)", I.alpha_opt, I.n);
        if (r->kind == LM_MDR_R1)
            fprintf(stderr, "; mu_0 = %.4g, ||W(0)||_p = %.6g%s", I.mu0, I.R0norm,
                    I.attempt ? " (a derived data seed)" : "");
        fprintf(stderr, "\n");
    }
    lm_mdr_info_clear(&I);
    return rc;
}

static const lm_train_type train = {
    .heading = "mirror-descent runs",
    .settings = "steps|eta|p|n|T|d|init|R0|mu|normalized",
    .name = run_name, .doc = run_doc, .alloc = run_alloc, .set = run_set, .set_steps = run_steps,
    .train = run_train, .free = free,
    .train_io = lm_mdr_train_io, /* runs/md_io.c: --data --init --iterates --export-* */
};

/* ---- lemmata verify: the paper's 3x3 figure, md-p2 in MPFR, R1 from several radii ---- */

static const char *live_name(int k) { return lm_name_at(lm_mdlive_names, k); }

LM_PAPER(paper_mirror) = {
    .id = "mirror",
    .catalogue = "mirror-descent-attention",
    .title = "Optimizing Attention with Mirror Descent: Generalized Max-Margin Token Selection",
    .authors = "Addison Kristanto Julistiono, Davoud Ataee Tarzanagh, Navid Azizan",
    .venue = "arXiv:2410.14581 (appendix A.2--A.5 of v3)",
    .about = "Mirror descent with the potential $\\psi(W)=\\frac1p\\|W\\|_p^p$ ($\\ell_p$-AttGD) on "
             "a softmax-attention classifier converges in direction to the generalized max-margin "
             "token separator of the $\\ell_p$-AttSVM; lemmas comparing the $\\ell_p$ norm and "
             "the Bregman divergence, and the cone and rate arguments of the proof.",
    .live_about = "The runs of the mirror-descent paper (names \\texttt{md-}) train the dual "
                  "variable $\\Theta=\\nabla\\psi(W)$ of $\\ell_p$-AttGD: the paper's normalised "
                  "runs in double, and runs repeated wholly in MPFR at 256 bits that show where a "
                  "double run stops moving (its step falls below half an ulp of $\\Theta$).",
    .train = &train,
    .live_name = live_name,
    .live_run = lm_mdlive_run,
};
