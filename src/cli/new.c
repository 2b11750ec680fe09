/* new.c -- lemmata new: a new paper folder, or a new claim in one, from the templates of
 * src/cli/templates/ (embedded by tools/gen_templates.sh).
 *
 *   lemmata new PAPER                  lemmas/PAPER/{paper.c, example.c}, tests/PAPER/test_example.c
 *   lemmata new PAPER/CLAIM [--kind K] [--title T]
 *                                      lemmas/PAPER/CLAIM.c, tests/PAPER/test_CLAIM.c
 *
 * Every file is written whole or not at all (a temporary file linked into place, never over an
 * existing one), and a command that fails half-way removes what it had created. */
#include "cli.h"

struct lm_template {
    const char *name, *text;
};
extern const struct lm_template lm_templates[]; /* generated: build/templates.c */

static const char *template_text(const char *name)
{
    for (int k = 0; lm_templates[k].name; k++)
        if (!strcmp(lm_templates[k].name, name)) return lm_templates[k].text;
    return NULL;
}

/* the kinds a claim template exists for, the wrong constant its test sets, its default title */
static const struct {
    const char *kind, *wrong, *title;
    int proxy; /* rate claims are proxies: consistent as stated, inconsistent when wrong */
} kinds[] = {
    {"pointwise", "c=2", "A pointwise bound (from the pointwise template)", 0},
    {"identity", "total=1.001", "An identity checked as a residual (from the identity template)", 0},
    {"trajectory", "c=3", "A bound along a gradient-descent run (from the trajectory template)", 0},
    {"rate", "p=3", "A rate as a fitted exponent (from the rate template)", 1},
};
#define NKINDS ((int)(sizeof kinds / sizeof kinds[0]))

/* a paper id: a lower-case letter, then lower-case letters, digits, '_' or '-'; at most 32 */
static int paper_ok(const char *p, size_t n)
{
    if (n == 0 || n > 32 || !(p[0] >= 'a' && p[0] <= 'z')) return 0;
    for (size_t k = 0; k < n; k++)
        if (!((p[k] >= 'a' && p[k] <= 'z') || (p[k] >= '0' && p[k] <= '9') || p[k] == '_' || p[k] == '-'))
            return 0;
    return 1;
}

/* a claim name: a lower-case letter or digit, then those, '_', '-' or '.'; at most 64; no ".." */
static int claim_ok(const char *c)
{
    size_t n = strlen(c);
    if (n == 0 || n > 64 || !((c[0] >= 'a' && c[0] <= 'z') || (c[0] >= '0' && c[0] <= '9'))) return 0;
    for (size_t k = 0; k < n; k++)
        if (!((c[k] >= 'a' && c[k] <= 'z') || (c[k] >= '0' && c[k] <= '9') || c[k] == '_' || c[k] == '-' ||
              c[k] == '.'))
            return 0;
    return !strstr(c, "..") && c[n - 1] != '.';
}

/* s with every character that is not a letter or digit made '_' */
static void c_ident(char *out, size_t n, const char *s)
{
    size_t k = 0;
    for (; s[k] && k + 1 < n; k++) out[k] = isalnum((unsigned char)s[k]) ? s[k] : '_';
    out[k] = 0;
}

/* a plain title: printable ASCII, no braces, backslashes, '$', '%', quotes; at most 120 */
static int title_ok(const char *t)
{
    size_t n = strlen(t);
    if (n == 0 || n > 120) return 0;
    for (size_t k = 0; k < n; k++)
        if (t[k] < 32 || t[k] > 126 || strchr("{}\\$%\"#&~^_", t[k])) return 0;
    return 1;
}

typedef struct {
    const char *key, *val;
} subst;

/* the template with every @KEY@ replaced; NULL when out of memory (or no such template) */
static char *instantiate(const char *tpl, const subst *s, int ns)
{
    lm_sbuf b = {0};
    if (!tpl) return NULL;
    for (const char *p = tpl; *p;) {
        int done = 0;
        if (*p == '@')
            for (int k = 0; k < ns && !done; k++) {
                size_t l = strlen(s[k].key);
                if (!strncmp(p + 1, s[k].key, l) && p[1 + l] == '@') {
                    lm_live_printf(&b, "%s", s[k].val);
                    p += l + 2;
                    done = 1;
                }
            }
        if (!done) {
            const char *q = strchr(p + 1, '@');
            size_t l = q ? (size_t)(q - p) : strlen(p);
            lm_live_printf(&b, "%.*s", (int)l, p);
            p += l;
        }
    }
    return b.s;
}

/* what this command created, removed again when it fails */
typedef struct {
    char path[8][512];
    int isdir[8];
    int n;
} created;

static void undo(created *c)
{
    for (int k = c->n - 1; k >= 0; k--) (c->isdir[k] ? rmdir : unlink)(c->path[k]);
    c->n = 0;
}

static int note(created *c, const char *path, int isdir)
{
    if (c->n == 8) return -1;
    snprintf(c->path[c->n], sizeof c->path[0], "%s", path);
    c->isdir[c->n++] = isdir;
    return 0;
}

static int make_dir(created *c, const char *path)
{
    if (mkdir(path, 0777)) {
        fprintf(stderr, "lemmata: new: cannot create %s: %s\n", path, strerror(errno));
        return -1;
    }
    return note(c, path, 1);
}

/* writes text to path, which must not exist, whole or not at all (lm_outfile: a temporary file
 * beside it, removed on SIGINT/SIGTERM, linked into place with the umask's mode) */
static int write_new(created *c, const char *path, const char *text)
{
    lm_outfile o;
    if (lm_outfile_open_opt(&o, path, NULL)) return -1;
    o.noreplace = 1;
    fputs(text, o.f);
    if (lm_outfile_commit(&o)) return -1;
    return note(c, path, 0);
}

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* the claim file and its test, from the template of kind k */
static int new_claim(created *cr, const char *paper, const char *claim, int k, const char *title)
{
    char id[128], psym[64], csym[96], sym[200], path[512], tpath[512];
    snprintf(id, sizeof id, "%s/%s", paper, claim);
    c_ident(psym, sizeof psym, paper);
    c_ident(csym, sizeof csym, claim);
    snprintf(sym, sizeof sym, "claim_%s_%s", psym, csym);
    snprintf(path, sizeof path, "lemmas/%s/%s.c", paper, claim);
    snprintf(tpath, sizeof tpath, "tests/%s/test_%s.c", paper, csym);
    char mine[128];
    c_ident(mine, sizeof mine, id);
    for (int j = 0; j < lm_registry_count; j++) {
        char other[128];
        c_ident(other, sizeof other, lm_registry[j]->id);
        if (!strcmp(lm_registry[j]->id, id)) {
            fprintf(stderr, "lemmata: new: the claim %s exists already (%s)\n", id, lm_registry[j]->file);
            return LM_EXIT_USAGE;
        }
        /* "b.1" and "b_1" would both declare claim_<paper>_b_1 */
        if (!strcmp(other, mine)) {
            fprintf(stderr, "lemmata: new: %s would clash with the claim %s (same C symbol %s)\n", id,
                    lm_registry[j]->id, sym);
            return LM_EXIT_USAGE;
        }
    }
    if (exists(path) || exists(tpath)) {
        fprintf(stderr, "lemmata: new: %s exists already; nothing written\n", exists(path) ? path : tpath);
        return LM_EXIT_USAGE;
    }
    const subst s[] = {{"PAPER", paper}, {"NAME", claim}, {"ID", id},           {"SYM", sym},
                       {"TITLE", title}, {"PSYM", psym},  {"TSYM", csym},       {"CLAIMID", id},
                       {"WRONG", kinds[k].wrong},
                       {"OK", kinds[k].proxy ? "consistent" : "holds"},
                       {"BAD", kinds[k].proxy ? "inconsistent" : "violated"},
                       {"OKV", kinds[k].proxy ? "LM_V_CONSISTENT" : "LM_V_HOLDS"},
                       {"BADV", kinds[k].proxy ? "LM_V_INCONSISTENT" : "LM_V_VIOLATED"}};
    const int ns = (int)(sizeof s / sizeof s[0]);
    char tname[32];
    snprintf(tname, sizeof tname, "%s.c", kinds[k].kind);
    char *text = instantiate(template_text(tname), s, ns);
    char *test = instantiate(template_text("test.c"), s, ns);
    if (!text || !test) fprintf(stderr, "lemmata: new: out of memory\n");
    int rc = !text || !test ? -1 : write_new(cr, path, text);
    if (!rc) rc = write_new(cr, tpath, test);
    free(text);
    free(test);
    if (rc) return LM_EXIT_FAILED;
    printf("created %s (a %s claim) and its wrong-constant test %s\n", path, kinds[k].kind, tpath);
    return 0;
}

static int new_usage(const char *why, const char *a)
{
    fprintf(stderr, "lemmata: new: ");
    fprintf(stderr, why, a);
    fprintf(stderr, " (see: lemmata new --help)\n");
    return LM_EXIT_USAGE;
}

int lm_cmd_new(int argc, char **argv)
{
    const char *what = NULL, *kind = "pointwise", *title = NULL;
    for (int k = 0; k < argc; k++) {
        const char *a = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;
        if (lm_cli_is_help(a)) return lm_cli_help("new");
        if (!strcmp(a, "--kind")) {
            if (!lm_cli_name_value(v)) return new_usage("--kind needs pointwise, identity, trajectory or rate%s", "");
            kind = v;
            k++;
        } else if (!strcmp(a, "--title")) {
            if (!v) return new_usage("--title needs a title%s", "");
            title = v;
            k++;
        } else if (a[0] == '-') {
            return new_usage("unknown option '%s'", a);
        } else if (what) {
            return new_usage("one PAPER or PAPER/CLAIM, not also '%s'", a);
        } else what = a;
    }
    if (!what) return new_usage("which paper? lemmata new PAPER, or lemmata new PAPER/CLAIM%s", "");
    int kk = -1;
    for (int k = 0; k < NKINDS; k++)
        if (!strcmp(kinds[k].kind, kind)) kk = k;
    if (kk < 0) return new_usage("--kind takes pointwise, identity, trajectory or rate, not '%s'", kind);
    if (title && !title_ok(title))
        return new_usage("--title takes 1 to 120 printable characters without {}\\$%%\"#&~^_: '%s'", title);
    struct stat st;
    if (stat("lemmas", &st) || !S_ISDIR(st.st_mode) || stat("tests", &st) || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "lemmata: new: run it at the top of the lemmata source tree (no lemmas/ and tests/ here)\n");
        return LM_EXIT_USAGE;
    }
    const char *slash = strchr(what, '/');
    size_t plen = slash ? (size_t)(slash - what) : strlen(what);
    if (!paper_ok(what, plen))
        return new_usage("a paper id is a lower-case letter, then letters, digits, '_' or '-' (at most 32), not '%s'", what);
    char paper[40], dir[64], tdir[64];
    snprintf(paper, sizeof paper, "%.*s", (int)plen, what);
    snprintf(dir, sizeof dir, "lemmas/%s", paper);
    snprintf(tdir, sizeof tdir, "tests/%s", paper);
    created cr = {.n = 0};
    int rc;
    if (slash) {
        /* a claim in an existing paper folder */
        const char *claim = slash + 1;
        if (!claim_ok(claim))
            return new_usage("a claim name is a lower-case letter or digit, then letters, digits, '_', '-' or "
                             "'.' (at most 64), not '%s'", claim);
        if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "lemmata: new: there is no paper folder %s/ (create it with: lemmata new %s)\n", dir, paper);
            return LM_EXIT_USAGE;
        }
        if (stat(tdir, &st) && (rc = make_dir(&cr, tdir)) != 0) return LM_EXIT_FAILED;
        rc = new_claim(&cr, paper, claim, kk, title ? title : kinds[kk].title);
        if (rc) undo(&cr);
        else printf("next: make && bin/lemmata check %s/%s\n", paper, claim);
        return rc;
    }
    /* a new paper folder, its declaration and one example claim */
    for (int j = 0; j < lm_paper_count; j++) {
        char a[64], b[64];
        c_ident(a, sizeof a, lm_papers[j]->id);
        c_ident(b, sizeof b, paper);
        if (strcmp(lm_papers[j]->id, paper) && !strcmp(a, b)) {
            fprintf(stderr, "lemmata: new: the paper %s would clash with the paper %s (same C symbol paper_%s)\n",
                    paper, lm_papers[j]->id, b);
            return LM_EXIT_USAGE;
        }
    }
    if (lm_paper_find(paper) || exists(dir) || exists(tdir)) {
        if (exists(dir) || exists(tdir))
            fprintf(stderr, "lemmata: new: the paper %s exists already (%s/); nothing written\n", paper,
                    exists(dir) ? dir : tdir);
        else
            fprintf(stderr, "lemmata: new: the paper %s is built into this binary, though its folder is gone "
                            "(run make first); nothing written\n", paper);
        return LM_EXIT_USAGE;
    }
    char psym[64], path[128];
    c_ident(psym, sizeof psym, paper);
    const subst s[] = {{"PAPER", paper}, {"PSYM", psym}};
    char *text = instantiate(template_text("paper.c"), s, 2);
    snprintf(path, sizeof path, "%s/paper.c", dir);
    rc = !text || make_dir(&cr, dir) || make_dir(&cr, tdir) || write_new(&cr, path, text);
    free(text);
    if (!rc) rc = new_claim(&cr, paper, "example", 0, title ? title : "The largest softmax weight is at least 1/n (an example)");
    if (rc) {
        undo(&cr);
        return rc == LM_EXIT_USAGE ? rc : LM_EXIT_FAILED;
    }
    printf("created %s/ (paper.c: its title, authors and venue to fill in) and %s/\n", dir, tdir);
    printf("next: make && bin/lemmata list --paper %s && bin/lemmata check %s/example\n", paper, paper);
    printf("add claims with: bin/lemmata new %s/NAME --kind pointwise|identity|trajectory|rate\n", paper);
    return 0;
}
