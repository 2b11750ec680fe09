/* info.c -- lemmata papers, lemmata list, lemmata params. */
#include "cli.h"

int lm_cmd_papers(int argc, char **argv)
{
    for (int k = 0; k < argc; k++)
        if (lm_cli_is_help(argv[k])) return lm_cli_help("papers");
    if (argc) return die_usage("papers: unknown argument '%s'", argv[0]);
    /* the catalogue name too: `list --paper` and `mutate --paper` take either */
    printf("%-12s %6s  %-20s %-34s %s\n", "paper", "claims", "folder", "catalogue name", "title");
    for (int k = 0; k < lm_paper_count; k++) {
        const lm_paper *p = lm_papers[k];
        char dir[64];
        snprintf(dir, sizeof dir, "lemmas/%s/", p->id);
        printf("%-12s %6d  %-20s %-34s %s\n", p->id, lm_paper_nclaims(p), dir, p->catalogue ? p->catalogue : "-",
               p->title ? p->title : "");
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
        if (!strcmp(argv[k], "--paper")) {
            const char *v = k + 1 < argc ? argv[k + 1] : NULL;
            if (!lm_cli_name_value(v))
                return lm_cli_needs("--paper", "a paper: its id, its claim-id prefix or its catalogue name "
                                               "(see: lemmata papers)", v);
            paper = v;
            k++;
        } else return die_usage("list: unknown argument '%s' (see: lemmata list --help)", argv[k]);
    }
    const lm_claim **cl = lm_xcalloc((size_t)lm_registry_count + 1, sizeof *cl);
    int n = lm_registry_count;
    if (paper) n = lm_cli_paper_claims(paper, cl);
    else
        for (int k = 0; k < n; k++) cl[k] = lm_registry[k];
    if (paper && !n) {
        free(cl);
        return lm_cli_unknown_paper("list", paper);
    }
    for (int k = 0; k < n; k++) printf("%-46s %-28s %s\n", cl[k]->id, lm_kind_name(cl[k]->kind), cl[k]->title);
    free(cl);
    return 0;
}

/* How many instances a configuration gets, by the rule of the runner (src/verify/runner.c,
 * run_config): round(budget x inst_scale) random ones, at least 1, and, when the claim has an
 * adversarial search that applies to the configuration, budget/16 searched ones (1 below a
 * budget of 32).  A user reading "16 inst" beside "budget 64" finds the reason here. */
static void inst_count(const lm_claim *c, int cfg, int budget, int *nrand, int *nsearch)
{
    *nrand = (int)lrint(budget * (c->inst_scale > 0 ? c->inst_scale : 1.0));
    if (*nrand < 1) *nrand = 1;
    *nsearch = c->search_dim > 0 && (!c->search_in || c->search_in(cfg)) ? (budget >= 32 ? budget / 16 : 1) : 0;
}

static void print_counts(const lm_claim *c)
{
    double sc = c->inst_scale > 0 ? c->inst_scale : 1.0;
    int nconf = lm_claim_nconfigs(c), nsearch = 0, r64, s64, r8, s8;
    for (int k = 0; k < nconf; k++) {
        inst_count(c, k, 64, &r64, &s64);
        nsearch += s64 > 0;
    }
    inst_count(c, 0, 64, &r64, &s64);
    inst_count(c, 0, 8, &r8, &s8);
    printf("instances per configuration (the column \"64 | 8\": at the default budget 64 and at --quick's 8):\n");
    printf("  random: round(budget x %.6g), the claim's inst_scale, at least 1: 64 -> %d, 8 -> %d\n", sc, r64, r8);
    if (nsearch)
        printf("  + adversarial search (search dimension %d): budget/16 at a budget of 32 or more, else 1:\n"
               "    64 -> %d, 8 -> %d, in %s\n",
               c->search_dim, 64 / 16, 1, nsearch == nconf ? "every configuration" : "the configurations shown with '+'");
    else printf("  no adversarial search%s\n", c->search_dim > 0 ? " in any configuration" : "");
}
int lm_cmd_params(int argc, char **argv)
{
    if (argc != 1) return die_usage("%s", "params takes exactly one claim id (see: lemmata params --help)");
    const lm_claim *c = lm_claim_find(argv[0]);
    if (!c) return die_usage("unknown claim id '%s' (see: lemmata list)", argv[0]);
    printf("%s -- %s\n", c->id, c->title);
    printf("configurations (--config C; the claim's verdict is the worst over its paper readings),\n"
           "with their instances at budget 64 | 8 and what each tests:\n");
    for (int k = 0; k < lm_claim_nconfigs(c); k++) {
        lm_reading rd = lm_claim_reading(c, k);
        char n64[32], n8[32], cnt[72];
        int r, sr;
        inst_count(c, k, 64, &r, &sr);
        snprintf(n64, sizeof n64, sr ? "%d+%d" : "%d", r, sr);
        inst_count(c, k, 8, &r, &sr);
        snprintf(n8, sizeof n8, sr ? "%d+%d" : "%d", r, sr);
        snprintf(cnt, sizeof cnt, "%s | %s", n64, n8);
        printf("  %-28s %-8s %-11s%s%s%s%s%s\n", lm_claim_config(c, k), lm_reading_name(rd.kind), cnt,
               rd.note ? "  " : "", rd.note ? rd.note : "", rd.set ? "  [" : "", rd.set ? rd.set : "",
               rd.set ? "]" : "");
    }
    print_counts(c);
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
