/* info.c -- lemmata papers, lemmata list, lemmata params. */
#include "cli.h"

int lm_cmd_papers(int argc, char **argv)
{
    for (int k = 0; k < argc; k++)
        if (lm_cli_is_help(argv[k])) return lm_cli_help("papers");
    if (argc) return die_usage("papers: unknown argument '%s'", argv[0]);
    printf("%-12s %6s  %-20s %s\n", "paper", "claims", "folder", "title");
    for (int k = 0; k < lm_paper_count; k++) {
        const lm_paper *p = lm_papers[k];
        char dir[64];
        snprintf(dir, sizeof dir, "lemmas/%s/", p->id);
        printf("%-12s %6d  %-20s %s\n", p->id, lm_paper_nclaims(p), dir, p->title ? p->title : "");
    }
    /* claims whose prefix declares no paper (a folder without paper.c) */
    int orphans = 0;
    for (int k = 0; k < lm_registry_count; k++) orphans += !lm_paper_of_claim(lm_registry[k]->id);
    if (orphans) printf("(%d claim%s in folders without an LM_PAPER declaration)\n", orphans, orphans == 1 ? "" : "s");
    return 0;
}

int lm_cmd_list(int argc, char **argv)
{
    const char *paper = NULL;
    for (int k = 0; k < argc; k++) {
        if (!strcmp(argv[k], "--paper") && k + 1 < argc) paper = argv[++k];
        else return die_usage("list: unknown option '%s'", argv[k]);
    }
    int shown = 0;
    for (int k = 0; k < lm_registry_count; k++) {
        const lm_claim *c = lm_registry[k];
        char p[64];
        if (paper && strcmp(paper_of(c->id, p, sizeof p), paper)) continue;
        printf("%-46s %-28s %s\n", c->id, lm_kind_name(c->kind), c->title);
        shown++;
    }
    if (paper && !shown) return die_usage("list: no claims for paper '%s'", paper);
    return 0;
}

int lm_cmd_params(int argc, char **argv)
{
    if (argc != 1) return die_usage("%s", "params takes exactly one claim id");
    const lm_claim *c = lm_claim_find(argv[0]);
    if (!c) return die_usage("unknown claim id '%s' (see: lemmata list)", argv[0]);
    printf("%s -- %s\n", c->id, c->title);
    printf("configurations (--config C; the claim's verdict is the worst over its paper readings):\n");
    for (int k = 0; k < lm_claim_nconfigs(c); k++) {
        lm_reading rd = lm_claim_reading(c, k);
        printf("  %-28s %-8s%s%s%s%s%s\n", lm_claim_config(c, k), lm_reading_name(rd.kind),
               rd.note ? "  " : "", rd.note ? rd.note : "", rd.set ? "  [" : "", rd.set ? rd.set : "",
               rd.set ? "]" : "");
    }
    if (!c->params || !c->params[0].name) { printf("(no parameters)\n"); return 0; }
    printf("parameters (--set NAME=V; a value outside its range is refused):\n");
    for (int k = 0; c->params[k].name; k++) {
        const lm_param_def *p = &c->params[k];
        if (p->choices) {
            /* print the default choice by name */
            int idx = (int)p->def, i = 0;
            const char *s = p->choices;
            char dn[64] = "?";
            while (s) {
                const char *e = strchr(s, '|');
                size_t l = e ? (size_t)(e - s) : strlen(s);
                if (i == idx) { snprintf(dn, sizeof dn, "%.*s", (int)l, s); break; }
                i++;
                s = e ? e + 1 : NULL;
            }
            printf("  %-18s = %-12s (%s)  %s\n", p->name, dn, p->choices, p->doc);
        } else {
            lm_range r;
            char rs[64] = "(no range declared)";
            static const char *const role[] = {NULL, "constant", "exponent", "setting"};
            lm_param_role ro = lm_param_role_of(p);
            if (lm_param_range(&r, p) == 0)
                snprintf(rs, sizeof rs, "%s %c%.6g, %.6g%c", r.integer ? "int" : ro ? role[ro] : "real",
                         r.lo_open ? '(' : '[', r.lo, r.hi, r.hi_open ? ')' : ']');
            printf("  %-18s = %-12.6g %-22s %s\n", p->name, p->def, rs, p->doc);
        }
    }
    return 0;
}
