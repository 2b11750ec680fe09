/* mutate.c -- lemmata mutate ID... : the standard mutants of each claim (lm_mutate) and
 * whether its check kills them -- how much a verdict of this check is worth.
 * Exit status: 0 when the mutants ran (killed or not), 2 on a usage error, 3 when a claim
 * could not be run. */
#include "cli.h"

#define mutate_usage lm_cli_needs

int lm_cmd_mutate(int argc, char **argv)
{
    lm_run_opts o;
    lm_run_opts_default(&o);
    int json = 0, all = 0, cheap = 0, nid = 0;
    const char *paper = NULL;
    const lm_claim **cl = lm_xcalloc((size_t)(argc > 0 ? argc : 1) + (size_t)lm_registry_count, sizeof *cl);
    lm_cli_common com = {.o = &o};
    int st = -1;
    for (int k = 0; k < argc && st < 0; k++) {
        const char *a = argv[k];
        const char *v = k + 1 < argc ? argv[k + 1] : NULL;
        int cst;
        if (lm_cli_is_help(a)) st = lm_cli_help("mutate");
        else if ((cst = lm_cli_common_opt(&com, argc, argv, &k)) >= 0) {
            if (cst) st = cst;
        }
        else if (!strcmp(a, "--json")) json = 1;
        else if (!strcmp(a, "--all")) all = 1;
        else if (!strcmp(a, "--cheap")) cheap = 1;
        else if (!strcmp(a, "--paper")) {
            if (!lm_cli_name_value(v)) st = mutate_usage(a, "a paper: its id or catalogue name (see: lemmata papers)", v);
            else paper = v;
            k++;
        } else if (a[0] == '-') st = die_usage("mutate: unknown option '%s' (see: lemmata mutate --help)", a);
        else {
            const lm_claim *c = lm_claim_find(a);
            if (!c) st = die_usage("unknown claim id '%s' (see: lemmata list)", a);
            else cl[nid++] = c;
        }
    }
    if (st < 0 && all)
        for (int k = 0; k < lm_registry_count; k++) cl[nid++] = lm_registry[k];
    else if (st < 0 && paper) {
        /* the paper's id, claim-id prefix or catalogue name, as in `lemmata list --paper` */
        int n = lm_cli_paper_claims(paper, cl + nid);
        if (!n) st = lm_cli_unknown_paper("mutate", paper);
        nid += n;
    }
    if (st < 0 && nid == 0) st = die_usage("%s", "mutate needs claim ids, --paper P or --all (see: lemmata list)");
    if (st >= 0) {
        free(cl);
        return st;
    }
    lm_cli_common_finish(&com);
    long run = 0, killed = 0;
    int failed = 0;
    for (int k = 0; k < nid; k++) {
        lm_mutation_report mr;
        if (isatty(2)) fprintf(stderr, "\r  mutating %-44s [%d/%d]", cl[k]->id, k + 1, nid);
        if (lm_mutate(&mr, cl[k], &o, NULL, cheap) != 0) {
            if (isatty(2)) fprintf(stderr, "\r%80s\r", "");
            fprintf(stderr, "lemmata: %s could not be run (%s)\n", cl[k]->id, mr.note);
            failed++;
            continue;
        }
        if (isatty(2)) fprintf(stderr, "\r%80s\r", "");
        run += mr.run;
        killed += mr.killed;
        if (json) lm_mutation_json(stdout, &mr);
        else {
            printf("%-44s %-17s %2d/%-2d mutants killed\n", cl[k]->id, lm_verdict_name(mr.stated), mr.killed,
                   mr.run);
            for (int j = 0; j < mr.nm; j++) {
                const lm_mutant *m = &mr.m[j];
                printf("    %-9s %-34s %-10s %-17s %s\n", m->kind, m->name,
                       m->killed == 1 ? "killed" : m->killed == 0 ? "SURVIVED" : "undecided",
                       m->verdict < LM_V_COUNT ? lm_verdict_name(m->verdict) : "(from the run)", m->note);
            }
        }
        fflush(stdout);
    }
    if (!json && nid > 1)
        printf("standard mutants killed: %ld of %ld (%.1f%%) over %d claims\n", killed, run,
               run ? 100.0 * (double)killed / (double)run : 0.0, nid - failed);
    free(cl);
    return failed ? LM_EXIT_FAILED : LM_EXIT_OK;
}
