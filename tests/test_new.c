/* lemmata new and lemmata papers: a new paper folder and new claims from the templates, every
 * refusal a one-line error with exit 2 and nothing written, nothing ever overwritten.  (That
 * the files it writes build and give the verdicts their tests expect is checked end to end by
 * `make check-new`, which CI runs: it needs a full build.) */
#include "lm_paper.h"
#include "test_support.h"
#include <limits.h>

/* a scratch source tree (lemmas/ and tests/ only) */
static void scratch(char *dir, size_t n)
{
    snprintf(dir, n, "/tmp/lm_new_XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/lemmas", dir);
    cr_assert_eq(mkdir(p, 0777), 0);
    snprintf(p, sizeof p, "%s/tests", dir);
    cr_assert_eq(mkdir(p, 0777), 0);
}

/* "cd dir && lemmata args": exit status, output in out */
static int run_in(const char *dir, char *out, size_t cap, const char *args)
{
    char bin[PATH_MAX], cmd[2 * PATH_MAX + 512];
    cr_assert_not_null(realpath(lm_test_bin(), bin));
    snprintf(cmd, sizeof cmd, "cd '%s' && umask 022 && '%s' %s 2>&1", dir, bin, args);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *dir, const char *rel)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    FILE *f = fopen(p, "rb");
    if (!f) return NULL;
    char *s = calloc(1, 1 << 16);
    size_t n = fread(s, 1, (1 << 16) - 1, f);
    s[n] = 0;
    fclose(f);
    return s;
}

/* the number of entries under dir (recursively), to tell that nothing was written */
static int count_in(const char *dir)
{
    char cmd[PATH_MAX + 64], buf[64] = "";
    snprintf(cmd, sizeof cmd, "find '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    if (!fgets(buf, sizeof buf, p)) buf[0] = 0;
    pclose(p);
    return atoi(buf);
}

Test(new_cmd, a_paper_folder_with_its_declaration_example_and_test)
{
    char dir[64], out[4096];
    scratch(dir, sizeof dir);
    cr_assert_eq(run_in(dir, out, sizeof out, "new zzprobe"), 0, "%s", out);
    char *paper = slurp(dir, "lemmas/zzprobe/paper.c"), *ex = slurp(dir, "lemmas/zzprobe/example.c"),
         *t = slurp(dir, "tests/zzprobe/test_example.c");
    cr_assert(paper && ex && t, "missing files: %s", out);
    cr_expect(strstr(paper, "LM_PAPER(paper_zzprobe)") && strstr(paper, ".id = \"zzprobe\""));
    /* the claim states its id and title once, in its literate header, and has typed parameters */
    cr_expect(strstr(ex, "\\claim{zzprobe/example}{"));
    cr_expect(strstr(ex, "LM_CLAIM(claim_zzprobe_example)"));
    cr_expect(!strstr(ex, ".id ="), "the id is not repeated in the declaration");
    cr_expect(strstr(ex, "LM_PARAMS(PARAMS)") && strstr(ex, "P.c"));
    cr_expect(strstr(t, "lm_test_expect(\"zzprobe/example\", wrong, NULL, 8, LM_V_VIOLATED)"));
    cr_expect(strstr(t, "\"c=2\""));
    /* written with the umask's mode, as any new source file (not mkstemp's 0600) */
    char ep[PATH_MAX];
    struct stat st;
    snprintf(ep, sizeof ep, "%s/lemmas/zzprobe/example.c", dir);
    cr_assert_eq(stat(ep, &st), 0);
    cr_expect_eq(st.st_mode & 0777, 0644, "mode %o", (unsigned)(st.st_mode & 0777));
    free(paper);
    free(ex);
    free(t);
    /* a second time: refused, nothing touched */
    int before = count_in(dir);
    cr_expect_eq(run_in(dir, out, sizeof out, "new zzprobe"), 2, "%s", out);
    cr_expect(strstr(out, "exists already"), "%s", out);
    cr_expect_eq(count_in(dir), before);
    lm_test_rmtree(dir);
}

Test(new_cmd, a_claim_of_each_kind_and_its_wrong_constant_test)
{
    char dir[64], out[4096];
    scratch(dir, sizeof dir);
    cr_assert_eq(run_in(dir, out, sizeof out, "new zzprobe"), 0, "%s", out);
    static const struct {
        const char *kind, *wrong, *lm_kind;
    } k[] = {{"pointwise", "c=2", "LM_KIND_POINTWISE"},
             {"identity", "total=1.001", "LM_KIND_IDENTITY"},
             {"trajectory", "c=3", "LM_KIND_TRAJECTORY"},
             {"rate", "p=3", "LM_KIND_RATE"}};
    for (int j = 0; j < 4; j++) {
        char args[128], rel[128], trel[128];
        snprintf(args, sizeof args, "new zzprobe/b.%s-1 --kind %s --title 'A %s claim'", k[j].kind, k[j].kind, k[j].kind);
        cr_assert_eq(run_in(dir, out, sizeof out, args), 0, "%s: %s", args, out);
        snprintf(rel, sizeof rel, "lemmas/zzprobe/b.%s-1.c", k[j].kind);
        snprintf(trel, sizeof trel, "tests/zzprobe/test_b_%s_1.c", k[j].kind);
        char *c = slurp(dir, rel), *t = slurp(dir, trel);
        cr_assert(c && t, "%s: %s", args, out);
        char want[128];
        snprintf(want, sizeof want, "\\claim{zzprobe/b.%s-1}{A %s claim}", k[j].kind, k[j].kind);
        cr_expect(strstr(c, want), "%s", want);
        snprintf(want, sizeof want, "LM_CLAIM(claim_zzprobe_b_%s_1)", k[j].kind);
        cr_expect(strstr(c, want), "%s", want);
        cr_expect(strstr(c, k[j].lm_kind));
        cr_expect(!strchr(c, '@'), "an unfilled placeholder in %s", rel);
        snprintf(want, sizeof want, "\"%s\"", k[j].wrong);
        cr_expect(strstr(t, want), "%s: %s", trel, want);
        free(c);
        free(t);
    }
    /* an existing claim file is never overwritten */
    char *before = slurp(dir, "lemmas/zzprobe/b.rate-1.c");
    cr_expect_eq(run_in(dir, out, sizeof out, "new zzprobe/b.rate-1 --kind pointwise"), 2, "%s", out);
    char *after = slurp(dir, "lemmas/zzprobe/b.rate-1.c");
    cr_expect_str_eq(after, before);
    free(before);
    free(after);
    lm_test_rmtree(dir);
}

Test(new_cmd, refusals_are_one_line_exit_2_and_write_nothing)
{
    char dir[64], out[4096];
    scratch(dir, sizeof dir);
    static const char *const bad[] = {
        "new ",                         /* which paper? */
        "new Zz",                       /* upper case */
        "new 9zz",                      /* starts with a digit */
        "new ../evil",                  /* a path */
        "new zz/../x",                  /* a path in the claim */
        "new zz/",                      /* an empty claim name */
        "new a234567890123456789012345678901234",  /* longer than 32 */
        "new zzq/claim",                /* no such paper folder */
        "new zzq --kind nonsense",      /* no such kind */
        "new zzq --kind",               /* --kind without a value */
        "new zzq --title 'a $x$ title'",/* TeX in a plain title */
        "new zzq --bogus",              /* unknown option */
        "new zzq extra",                /* two names */
        "new dynamics",                 /* a paper that is registered */
        "new tutorial/softmax_rows",    /* the C symbol of tutorial/softmax-rows */
    };
    int before = count_in(dir);
    for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++) {
        int st = run_in(dir, out, sizeof out, bad[j]);
        cr_expect_eq(st, 2, "'%s': exit %d: %s", bad[j], st, out);
        cr_expect(strncmp(out, "lemmata: ", 9) == 0 && strchr(out, '\n') == out + strlen(out) - 1,
                  "'%s': not one error line: %s", bad[j], out);
    }
    cr_expect_eq(count_in(dir), before, "a refused command wrote something");
    /* a claim whose C symbol is an existing claim's: refused before anything is written */
    char p[128];
    snprintf(p, sizeof p, "%s/lemmas/tutorial", dir);
    cr_assert_eq(mkdir(p, 0777), 0);
    before = count_in(dir);
    cr_expect_eq(run_in(dir, out, sizeof out, "new tutorial/softmax_rows"), 2, "%s", out);
    cr_expect(strstr(out, "same C symbol claim_tutorial_softmax_rows"), "%s", out);
    cr_expect_eq(count_in(dir), before);
    /* outside a source tree */
    char top[64];
    snprintf(top, sizeof top, "/tmp/lm_new_XXXXXX");
    cr_assert_not_null(mkdtemp(top));
    cr_expect_eq(run_in(top, out, sizeof out, "new zzprobe"), 2, "%s", out);
    cr_expect(strstr(out, "source tree"), "%s", out);
    cr_expect_eq(count_in(top), 1);
    lm_test_rmtree(top);
    lm_test_rmtree(dir);
}

Test(new_cmd, papers_lists_every_paper_with_its_claims)
{
    char out[8192];
    cr_assert_eq(lm_test_cli(out, sizeof out, "papers"), 0, "%s", out);
    for (int k = 0; k < lm_paper_count; k++) {
        char want[128];
        snprintf(want, sizeof want, "lemmas/%s/", lm_papers[k]->id);
        cr_expect(strstr(out, want), "%s missing: %s", want, out);
        cr_expect(strstr(out, lm_papers[k]->title), "%s", lm_papers[k]->title);
        cr_expect_gt(lm_paper_nclaims(lm_papers[k]), 0, "%s has no claims", lm_papers[k]->id);
    }
    /* every registered claim belongs to a declared paper */
    for (int k = 0; k < lm_registry_count; k++)
        cr_expect_not_null(lm_paper_of_claim(lm_registry[k]->id), "%s: no paper", lm_registry[k]->id);
    cr_expect_eq(lm_test_cli(out, sizeof out, "papers extra"), 2, "%s", out);
}

/* the plain title of a claim comes from its LaTeX title */
Test(new_cmd, tex_titles_become_plain_text)
{
    static const struct {
        const char *tex, *plain;
    } t[] = {{"Smoothness constants $Z$ and $G$ (Softmax)", "Smoothness constants Z and G (Softmax)"},
             {"necessity of $HD\\ge Nn$ w.h.p.\\ at", "necessity of HD >= Nn w.h.p. at"},
             {"$\\|X^\\top BX\\|_F\\ge\\beta\\|B\\|_F$", "||X^TBX||_F >= beta||B||_F"},
             {"$L_{\\rm reg}$ and $\\frac{a}{b}$", "L_reg and (a)/(b)"},
             {"$\\sqrt\\sigma_1$ -- ``quoted''", "sqrt sigma_1 - \"quoted\""}};
    for (size_t k = 0; k < sizeof t / sizeof t[0]; k++) {
        char *p = lm_tex_plain(t[k].tex);
        cr_expect_str_eq(p, t[k].plain, "%s", t[k].tex);
        free(p);
    }
}

/* Every template declares its configurations with a reading and one sentence each (every
 * configuration needs one), and what `lemmata new` writes compiles against the headers (the
 * build and the verdicts are `make check-new`'s, end to end). */
Test(new_cmd, templates_declare_a_sentence_per_configuration_and_compile, .timeout = 120)
{
    char dir[64], out[8192];
    scratch(dir, sizeof dir);
    cr_assert_eq(run_in(dir, out, sizeof out, "new zzprobe"), 0, "%s", out);
    static const char *const kinds[] = {"pointwise", "identity", "trajectory", "rate"};
    char inc[PATH_MAX];
    cr_assert_not_null(realpath("include", inc), "run the tests at the top of the source tree");
    for (int j = 0; j < 5; j++) {
        char rel[128];
        if (j < 4) {
            char args[128];
            snprintf(args, sizeof args, "new zzprobe/t-%s --kind %s", kinds[j], kinds[j]);
            cr_assert_eq(run_in(dir, out, sizeof out, args), 0, "%s: %s", args, out);
            snprintf(rel, sizeof rel, "lemmas/zzprobe/t-%s.c", kinds[j]);
        } else
            snprintf(rel, sizeof rel, "lemmas/zzprobe/example.c");
        char *c = slurp(dir, rel);
        cr_assert_not_null(c, "%s", rel);
        cr_expect(strstr(c, ".configs = configs,") && strstr(c, ".readings = readings,"), "%s", rel);
        /* as many readings as configurations, each with a sentence ending in a full stop */
        const char *cf = strstr(c, "configs[] = {");
        cr_assert_not_null(cf, "%s", rel);
        int ncfg = 0;
        for (const char *q = cf; *q && *q != '}'; q++) ncfg += *q == '"';
        ncfg /= 2;
        const char *rd = strstr(c, "readings[] = {");
        cr_assert_not_null(rd, "%s", rel);
        int nread = 0;
        for (const char *q = rd; (q = strstr(q, "{LM_READ_")); q++) {
            nread++;
            const char *s = strchr(q, '"'), *e = strstr(q, "\",\n     NULL}");
            cr_expect(s && e && e > s + 40 && e[-1] == '.', "%s: reading %d has no sentence", rel, nread);
        }
        cr_expect(ncfg >= 1 && nread == ncfg, "%s: %d configurations, %d readings", rel, ncfg, nread);
        free(c);
        char cmd[3 * PATH_MAX];
        snprintf(cmd, sizeof cmd,
                 "cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-unused-parameter -fsyntax-only -I'%s' "
                 "'%s/%s' 2>&1",
                 inc, dir, rel);
        FILE *p = popen(cmd, "r");
        cr_assert_not_null(p);
        size_t n = fread(out, 1, sizeof out - 1, p);
        out[n] = 0;
        int st = pclose(p);
        cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s does not compile: %s", rel, out);
    }
    lm_test_rmtree(dir);
}
