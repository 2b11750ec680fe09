/* test_report_safety.c -- issue 15, items 10 and 17: a weave killed with -9
 * or failing leaves the previous report intact and the next weave works; a
 * hostile database or claim file cannot make pdflatex or gnuplot read a file
 * or run a command, and claim files are read only from the source tree. */
#include "test_support.h"
#include <criterion/criterion.h>

#include "../src/report/report_priv.h"
#include "lm_report.h"
#include "lm_store.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <glob.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char root[64];

static void mkroot(void)
{
    snprintf(root, sizeof root, "/tmp/lm_safety_XXXXXX");
    cr_assert_not_null(mkdtemp(root));
}

static void rmroot(void)
{
    lm_test_rmtree(root);
}

TestSuite(report_safety, .init = mkroot, .fini = rmroot);

static void at(char *dst, size_t n, const char *rel)
{
    snprintf(dst, n, "%s/%s", root, rel);
}

static void write_text(const char *rel, const char *text)
{
    char path[512];
    at(path, sizeof path, rel);
    for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = 0;
        mkdir(path, 0777);
        *p = '/';
    }
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

/* a whole file (absolute path), NUL-terminated; *len its size */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap);
    size_t got;
    while (s && (got = fread(s + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *t = realloc(s, cap *= 2);
            if (!t) {
                free(s);
                s = NULL;
            }
            s = t;
        }
    }
    fclose(f);
    if (s) s[n] = 0;
    if (len) *len = n;
    return s;
}

static char *read_rel(const char *rel, size_t *len)
{
    char path[512];
    at(path, sizeof path, rel);
    return slurp(path, len);
}

/* the previous PDF must be byte-for-byte what it was */
static void assert_same_pdf(const char *before, size_t nbefore, const char *what)
{
    size_t n = 0;
    char *now = read_rel("report/lemmata.pdf", &n);
    cr_assert_not_null(now, "%s: report/lemmata.pdf is gone", what);
    cr_assert(n == nbefore && !memcmp(now, before, n), "%s: report/lemmata.pdf changed", what);
    free(now);
}

/* the code companion likewise: a weave replaces both PDFs or neither */
static void assert_same_code_pdf(const char *before, size_t nbefore, const char *what)
{
    size_t n = 0;
    char *now = read_rel("report/lemmata-code.pdf", &n);
    cr_assert_not_null(now, "%s: report/lemmata-code.pdf is gone", what);
    cr_assert(n == nbefore && !memcmp(now, before, n), "%s: report/lemmata-code.pdf changed", what);
    free(now);
}

static void assert_valid_pdf(const char *what)
{
    char path[512];
    at(path, sizeof path, "report/lemmata.pdf");
    cr_assert(lm_pdf_complete(path), "%s: report/lemmata.pdf is no complete PDF", what);
    size_t n = 0;
    char *s = slurp(path, &n);
    cr_assert_not_null(s);
    cr_assert(n > 1000 && !memcmp(s, "%PDF", 4), "%s", what);
    size_t e = n;
    while (e > 0 && (s[e - 1] == '\n' || s[e - 1] == '\r')) e--;
    cr_assert(e >= 5 && !memcmp(s + e - 5, "%%EOF", 5), "%s: no %%%%EOF at the end", what);
    free(s);
}

/* number of report/weave-* directories */
static int weave_dirs(void)
{
    char path[512];
    at(path, sizeof path, "report");
    DIR *d = opendir(path);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) n += !strncmp(e->d_name, "weave-", 6);
    closedir(d);
    return n;
}

/* 1 when a file of the weave directory exists (name "" : the directory) */
static int weave_has(const char *name)
{
    char path[512];
    at(path, sizeof path, "report");
    DIR *d = opendir(path);
    if (!d) return 0;
    int found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "weave-", 6)) continue;
        char f[800];
        snprintf(f, sizeof f, "%s/%s/%s", path, e->d_name, name);
        found = access(f, F_OK) == 0;
    }
    closedir(d);
    return found;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) && errno == EINTR) {
    }
}

/* ---- a small run ----------------------------------------------------------------------- */

static const char claim_file[] =
    "/* lemmas/fake/lemma_1.c\n"
    " * \\claim{fake/lemma_1}{Bound on $\\|W\\|$}\n"
    " * \\source{Fake paper, Lemma 1}\n"
    " * \\statement{For all $t$, $f(M_t) \\le (1-\\eta\\alpha)^t f(M_0)$ and\n"
    " *   $W=\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}$.}\n"
    " * \\check{Run GD; compare.}\n"
    " */\n"
    "int x;\n";

static lm_claim fake1 = {.id = "fake/lemma_1",
                         .title = "Bound on W",
                         .file = "lemmas/fake/lemma_1.c",
                         .kind = LM_KIND_TRAJECTORY,
                         .source = "Fake paper, Lemma 1",
                         .origin = "verbatim",
                         .confidence = "high"};

static void save_small(const char *db)
{
    char err[256] = "";
    lm_store *s = lm_store_open(db, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    lm_run_meta m;
    memset(&m, 0, sizeof m);
    snprintf(m.commit, sizeof m.commit, "abc");
    snprintf(m.date, sizeof m.date, "2024-05-06 07:08:09 UTC");
    m.seed = 1;
    m.budget = 4;
    m.quick = 1;
    long long run = lm_store_begin_run(s, &m, NULL);
    cr_assert_gt(run, 0);
    lm_claim_result r;
    lm_config_result cfg[1];
    memset(&r, 0, sizeof r);
    memset(cfg, 0, sizeof cfg);
    r.claim = &fake1;
    r.verdict = LM_V_HOLDS;
    r.worst_ratio = 0.5;
    r.instances = 4;
    r.seconds = 0.1;
    r.nconfig = 1;
    r.cfg = cfg;
    snprintf(cfg[0].config, sizeof cfg[0].config, "default");
    cfg[0].verdict = LM_V_HOLDS;
    cfg[0].instances = 4;
    cfg[0].worst_ratio = 0.5;
    cfg[0].worst_index = 1;
    cfg[0].series = "loss\t0\t1\nloss\t1\t0.5\nloss\t2\t0.25\n";
    cfg[0].ratios = "-0.3\n-0.5\n-0.7\n-0.9\n";
    snprintf(cfg[0].axes, sizeof cfg[0].axes, "t\tloss\t1");
    cr_assert_eq(lm_store_save_claim(s, run, &r), 0);
    cr_assert_eq(lm_store_finish_run(s, run, 1.0), 0);
    lm_store_close(s);
}

static void small_root(char *db, size_t n)
{
    write_text("lemmas/fake/lemma_1.c", claim_file);
    at(db, n, "results.db");
    save_small(db);
}

/* ---- item 10: killed and failed weaves ------------------------------------------------ */

/* starts a weave in a child and kills it with -9 once `ready` says so (or
 * after max_ms); returns 1 when it was killed before it finished */
static int kill_weave(const char *db, int (*ready)(void), long delay_ms, long max_ms)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        char err[512];
        _exit(lm_report_build(db, -1, root, err, sizeof err) ? 1 : 0);
    }
    long waited = 0;
    while (ready && waited < max_ms && !ready()) {
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) return 0; /* finished first */
        sleep_ms(2);
        waited += 2;
    }
    sleep_ms(delay_ms);
    kill(pid, SIGKILL);
    int st;
    waitpid(pid, &st, 0);
    return WIFSIGNALED(st);
}

static int weave_dir_ready(void)
{
    return weave_dirs() > 0;
}

static int pdflatex_started(void)
{
    return weave_has("pdflatex.log");
}

static int pdflatex_writing(void)
{
    return weave_has("lemmata-build.pdf");
}

Test(report_safety, killed_weave_recovers, .timeout = 600)
{
    char db[512], err[512] = "";
    small_root(db, sizeof db);
    cr_assert_eq(lm_report_build(db, -1, root, err, sizeof err), 0, "%s", err);
    assert_valid_pdf("first weave");
    size_t n0 = 0;
    char *pdf0 = read_rel("report/lemmata.pdf", &n0);
    cr_assert_not_null(pdf0);

    /* kill -9 at several points: just after the weave directory appears, while
     * pdflatex starts, while it writes its .aux and PDF, and at random times */
    struct {
        int (*ready)(void);
        long delay;
    } points[] = {{NULL, 50},           {NULL, 400},           {NULL, 900},
                  {weave_dir_ready, 0},  {pdflatex_writing, 0}, {pdflatex_writing, 30},
                  {pdflatex_started, 0}, {pdflatex_started, 150}};
    int killed = 0;
    for (size_t k = 0; k < sizeof points / sizeof points[0]; k++) {
        int was_killed = kill_weave(db, points[k].ready, points[k].delay, 20000);
        killed += was_killed;
        /* whatever the killed weave did, the previous report is intact; a weave that
         * finished before the kill (slow ASan timing) legitimately replaced it */
        if (was_killed) assert_same_pdf(pdf0, n0, "after kill -9");
        else { free(pdf0); pdf0 = read_rel("report/lemmata.pdf", &n0); cr_assert_not_null(pdf0); }
    }
    cr_assert_gt(killed, 3, "the weaves finished before they could be killed");
    /* the last one was killed in pdflatex: its directory is still there */
    cr_assert_gt(weave_dirs(), 0, "no killed weave left its directory (the test saw none)");

    /* the next weave works, and cleans up what the killed ones left */
    cr_assert_eq(lm_report_build(db, -1, root, err, sizeof err), 0, "%s", err);
    assert_valid_pdf("weave after kill -9");
    cr_assert_eq(weave_dirs(), 0);
    free(pdf0);

    /* the original symptom: a truncated .aux in report/ from a killed weave of
     * the old layout must not break the next one (it is not trusted) */
    write_text("report/lemmata-build.aux", "\\relax \n\\newlabel{claim:0}{{1}{");
    cr_assert_eq(lm_report_build(db, -1, root, err, sizeof err), 0, "%s", err);
    assert_valid_pdf("weave after a truncated .aux");
    char *aux = read_rel("report/lemmata-build.aux", NULL);
    cr_assert_not_null(aux);
    cr_assert_not_null(strstr(aux, "\\newlabel{claim:0}{{1}{"), "the finished weave's .aux");
    cr_assert_not_null(strstr(aux, "}}"));
    free(aux);
    /* a finished weave's .aux is reused: the state record matches it */
    char *state = read_rel("report/lemmata-build.state", NULL);
    cr_assert_not_null(state);
    cr_assert_eq(strncmp(state, "lemmata aux state ", 18), 0, "%s", state);
    free(state);
}

/* a half-written figure PDF (killed gnuplot) with a valid stamp is redrawn */
Test(report_safety, truncated_figure_is_redrawn, .timeout = 300)
{
    char db[512], err[512] = "";
    small_root(db, sizeof db);
    cr_assert_eq(lm_report_build(db, -1, root, err, sizeof err), 0, "%s", err);
    char fig[512];
    at(fig, sizeof fig, "figures/fake-lemma-1-default.pdf");
    cr_assert(lm_pdf_complete(fig));
    cr_assert_eq(truncate(fig, 300), 0);
    cr_assert(!lm_pdf_complete(fig));
    cr_assert_eq(lm_report_build(db, -1, root, err, sizeof err), 0, "%s", err);
    cr_assert(lm_pdf_complete(fig), "the truncated figure was reused");
    /* no temporary file is left next to the figures */
    glob_t g;
    char pat[512];
    at(pat, sizeof pat, "figures/*.tmp");
    cr_assert_eq(glob(pat, 0, NULL, &g), GLOB_NOMATCH);
}

static void fake_tool(const char *dir, const char *name, const char *script)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(script, f);
    fclose(f);
    cr_assert_eq(chmod(path, 0755), 0);
}

Test(report_safety, failed_weave_keeps_previous_pdf, .timeout = 600)
{
    char db[512], err[512] = "";
    small_root(db, sizeof db);
    cr_assert_eq(lm_report_build(db, -1, root, err, sizeof err), 0, "%s", err);
    size_t n0 = 0, na = 0;
    char *pdf0 = read_rel("report/lemmata.pdf", &n0);
    char *aux0 = read_rel("report/lemmata-build.aux", &na);
    cr_assert(pdf0 && aux0);
    size_t nc0 = 0;
    char *code0 = read_rel("report/lemmata-code.pdf", &nc0);
    cr_assert_not_null(code0);
    const char *path0 = getenv("PATH");
    char *saved_path = strdup(path0 ? path0 : "/usr/bin:/bin");

    /* 1. pdflatex not on PATH */
    char empty[512];
    at(empty, sizeof empty, "emptybin");
    cr_assert_eq(mkdir(empty, 0777), 0);
    cr_assert_eq(setenv("PATH", empty, 1), 0);
    cr_assert_neq(lm_report_build(db, -1, root, err, sizeof err), 0);
    cr_assert_str_eq(err, "pdflatex not found (apt-get install texlive-latex-base)");
    assert_same_pdf(pdf0, n0, "pdflatex missing");
    assert_same_code_pdf(code0, nc0, "pdflatex missing");

    /* 2. a pdflatex that "succeeds" but leaves a truncated PDF */
    char fake[512], path[4096];
    at(fake, sizeof fake, "fakebin");
    cr_assert_eq(mkdir(fake, 0777), 0);
    fake_tool(fake, "pdflatex",
              "#!/bin/sh\n"
              "for a; do case \"$a\" in -output-directory=*) d=\"${a#-output-directory=}\";; "
              "esac; done\n"
              "printf '%%PDF-1.5\\n1 0 obj\\n<< /Type /Catalog' > \"$d/lemmata-build.pdf\"\n"
              "exit 0\n");
    snprintf(path, sizeof path, "%s:%s", fake, saved_path);
    cr_assert_eq(setenv("PATH", path, 1), 0);
    cr_assert_neq(lm_report_build(db, -1, root, err, sizeof err), 0);
    cr_assert_not_null(strstr(err, "no complete PDF"), "%s", err);
    cr_assert_null(strchr(err, '\n'));
    assert_same_pdf(pdf0, n0, "truncated PDF");
    assert_same_code_pdf(code0, nc0, "truncated PDF");

    /* 3. a pdflatex killed by a signal half-way */
    fake_tool(fake, "pdflatex",
              "#!/bin/sh\n"
              "for a; do case \"$a\" in -output-directory=*) d=\"${a#-output-directory=}\";; "
              "esac; done\n"
              "printf '%%PDF-1.5\\n' > \"$d/lemmata-build.pdf\"\n"
              "printf '\\\\relax \\\\newlabel{' > \"$d/lemmata-build.aux\"\n"
              "kill -9 $$\n");
    cr_assert_neq(lm_report_build(db, -1, root, err, sizeof err), 0);
    cr_assert_not_null(strstr(err, "signal 9"), "%s", err);
    assert_same_pdf(pdf0, n0, "pdflatex killed");
    assert_same_code_pdf(code0, nc0, "pdflatex killed");
    cr_assert_eq(setenv("PATH", saved_path, 1), 0);

    /* 4. a LaTeX error */
    write_text("lemmas/fake/lemma_1.c", "/* \\claim{fake/lemma_1}{Bound}\n"
                                        " * \\statement{but $x_1_2$ is not.}\n"
                                        " */\nint x;\n");
    cr_assert_neq(lm_report_build(db, -1, root, err, sizeof err), 0);
    cr_assert_not_null(strstr(err, "lemmas/fake/lemma_1.c:2:"), "%s", err);
    cr_assert_null(strchr(err, '\n'));
    assert_same_pdf(pdf0, n0, "LaTeX error");
    assert_same_code_pdf(code0, nc0, "LaTeX error");
    /* the finished weave's auxiliary state is untouched too */
    size_t na2 = 0;
    char *aux1 = read_rel("report/lemmata-build.aux", &na2);
    cr_assert(aux1 && na2 == na && !memcmp(aux0, aux1, na), "the .aux changed");
    cr_assert_eq(weave_dirs(), 0, "a failed weave left its directory");

    /* and it recovers */
    write_text("lemmas/fake/lemma_1.c", claim_file);
    cr_assert_eq(lm_report_build(db, -1, root, err, sizeof err), 0, "%s", err);
    assert_valid_pdf("after the failures");
    free(pdf0);
    free(code0);
    free(aux0);
    free(aux1);
    free(saved_path);
}

/* output under any root: relative or absolute, existing or not */
Test(report_safety, any_root, .timeout = 300)
{
    char db[512], err[512] = "", deep[512], pdf[600];
    small_root(db, sizeof db);
    /* absolute, not existing, several levels; the claim files then come from
     * the current directory, where lemmas/fake/ does not exist: noted in the PDF */
    at(deep, sizeof deep, "out/a/b");
    cr_assert_eq(lm_report_build(db, -1, deep, err, sizeof err), 0, "%s", err);
    snprintf(pdf, sizeof pdf, "%s/report/lemmata.pdf", deep);
    cr_assert(lm_pdf_complete(pdf));
    /* relative, from the root: claim files from the current directory (root) */
    cr_assert_eq(chdir(root), 0);
    cr_assert_eq(lm_report_build(db, -1, "rel/x/", err, sizeof err), 0, "%s", err);
    cr_assert(lm_pdf_complete("rel/x/report/lemmata.pdf"));
    char *tex = slurp("rel/x/report/lemmata.tex", NULL);
    cr_assert_not_null(tex);
    cr_assert_not_null(strstr(tex, "\\eta\\alpha"), "the statement was read from ./lemmas");
    free(tex);
    cr_assert_eq(lm_report_build(db, -1, ".", err, sizeof err), 0, "%s", err);
    cr_assert(lm_pdf_complete("report/lemmata.pdf"));
}

/* ---- item 17: paths and LaTeX --------------------------------------------------------- */

Test(report_safety, source_file_confined)
{
    write_text("tree/lemmas/fake/a.c", "int a;\n");
    write_text("tree/src/x.c", "int x;\n");
    write_text("secret.c", "top secret\n");
    char tree[512], out[4096], p[600], q[600];
    at(tree, sizeof tree, "tree");
    snprintf(p, sizeof p, "%s/lemmas/fake/link.c", tree);
    cr_assert_eq(symlink("../../../secret.c", p), 0);
    snprintf(p, sizeof p, "%s/lemmas/fake/dirlink", tree);
    cr_assert_eq(symlink("../../..", p), 0);
    snprintf(p, sizeof p, "%s/lemmas/fake/dev.c", tree);
    cr_assert_eq(symlink("/dev/zero", p), 0);
    cr_assert_eq(lm_report_source_file(out, sizeof out, tree, "lemmas/fake/a.c"), 0);
    cr_assert_not_null(strstr(out, "/tree/lemmas/fake/a.c"), "%s", out);
    cr_assert_eq(out[0], '/');
    cr_assert_eq(lm_report_source_file(out, sizeof out, tree, "src/x.c"), 0);
    cr_assert_eq(lm_report_source_file(out, sizeof out, tree, "lemmas/fake/../fake/a.c"), 0);
    snprintf(q, sizeof q, "%s/lemmas/fake/a.c", tree); /* absolute, inside: fine */
    cr_assert_eq(lm_report_source_file(out, sizeof out, tree, q), 0);
    static const char *const bad[] = {
        "../secret.c", "../../../../etc/passwd", "/etc/passwd", "lemmas/../../secret.c",
        "lemmas/fake/link.c", "lemmas/fake/dirlink/secret.c", "lemmas/fake/dev.c",
        "lemmas/fake", "lemmas", "lemmas/", "src", "lemmas/fake/missing.c", "", "secret.c",
        "tree/lemmas/fake/a.c"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        cr_expect_eq(lm_report_source_file(out, sizeof out, tree, bad[k]), -1, "%s accepted",
                     bad[k]);
        cr_expect_str_eq(out, "");
    }
    cr_assert_eq(lm_report_source_file(out, sizeof out, NULL, "lemmas/fake/a.c"), -1);
    /* a tree whose lemmas/ is itself a link: its files count, the links inside still not */
    char tree2[512];
    at(tree2, sizeof tree2, "tree2");
    cr_assert_eq(mkdir(tree2, 0777), 0);
    snprintf(p, sizeof p, "%s/lemmas", tree2);
    cr_assert_eq(symlink("../tree/lemmas", p), 0);
    cr_assert_eq(lm_report_source_file(out, sizeof out, tree2, "lemmas/fake/a.c"), 0);
    cr_assert_eq(lm_report_source_file(out, sizeof out, tree2, "lemmas/fake/link.c"), -1);
    cr_assert_eq(lm_report_source_file(out, sizeof out, tree2, "../tree/src/x.c"), -1);
    /* the source tree: root when it has lemmas/, else the current directory */
    cr_assert_eq(lm_report_source_tree(tree), tree);
    cr_assert_eq(chdir(tree), 0);
    cr_assert_str_eq(lm_report_source_tree(root), ".");
    cr_assert_eq(chdir(root), 0);
    cr_assert_null(lm_report_source_tree(root));
}

/* every control word in s must be one the allow-list passes, or one of the
 * few the sanitiser itself writes */
static void assert_only_allowed(const char *s, const char *input)
{
    for (const char *p = s; (p = strchr(p, '\\')) != NULL;) {
        const char *q = p + 1;
        if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z'))) {
            p = *q ? q + 1 : q;
            continue;
        }
        const char *e = q;
        while ((*e >= 'a' && *e <= 'z') || (*e >= 'A' && *e <= 'Z')) e++;
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(e - q), q);
        int ok = lm_tex_safe_word(name) || !strcmp(name, "lmraw") || !strcmp(name, "char") ||
                 !strcmp(name, "begin") || !strcmp(name, "end");
        cr_assert(ok, "\\%s passed the allow-list: %s -> %s", name, input, s);
        if (!strcmp(name, "begin") || !strcmp(name, "end")) {
            char env[40] = "";
            sscanf(e, "{%39[A-Za-z*]}", env);
            cr_assert(lm_tex_safe_env(env), "\\%s{%s} passed: %s -> %s", name, env, input, s);
        }
        p = e;
    }
    cr_assert_null(strstr(s, "^^"), "^^ passed: %s -> %s", input, s);
}

static void safe_is(const char *in, const char *want)
{
    char *got = lm_tex_safe_str(in);
    cr_assert_not_null(got);
    cr_assert_str_eq(got, want, "safe(%s)", in);
    assert_only_allowed(got, in);
    free(got);
}

Test(report_safety, allow_list)
{
    /* real maths and text pass unchanged */
    safe_is("$\\alpha \\le \\beta$", "$\\alpha \\le \\beta$");
    safe_is("i.e.\\ $\\|W\\|_F^2\\,\\mathrm{d}t$ \\texttt{a\\_b} 95\\% H\\\"older Poincar\\'e",
            "i.e.\\ $\\|W\\|_F^2\\,\\mathrm{d}t$ \\texttt{a\\_b} 95\\% H\\\"older Poincar\\'e");
    safe_is("$W=\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}$",
            "$W=\\begin{pmatrix}1&2\\\\3&4\\end{pmatrix}$");
    safe_is("$\\norm{x}\\R^d$ \\emph{x}", "$\\norm{x}\\R^d$ \\emph{x}");
    /* everything else is shown, not run */
    safe_is("\\input{/etc/passwd}", "\\lmraw{{\\char92}input}{/etc/passwd}");
    safe_is("\\immediate\\write18{touch /tmp/pwned}",
            "\\lmraw{{\\char92}immediate}\\lmraw{{\\char92}write}18{touch /tmp/pwned}");
    safe_is("^^5cinput{/etc/passwd}", "\\lmraw{{\\char94}{\\char94}}5cinput{/etc/passwd}");
    safe_is("\\^^5cinput", "\\lmraw{{\\char92}{\\char94}{\\char94}}5cinput");
    safe_is("\\begin{document}x\\end{document}",
            "\\lmraw{{\\char92}begin}{document}x\\lmraw{{\\char92}end}{document}");
    safe_is("\\csname input\\endcsname", "\\lmraw{{\\char92}csname} input\\lmraw{{\\char92}endcsname}");
    safe_is("\\def\\x{y}\\catcode`\\^=12", "\\lmraw{{\\char92}def}\\lmraw{{\\char92}x}{y}"
                                           "\\lmraw{{\\char92}catcode}`\\^=12");
    safe_is("\\@input \\", "\\lmraw{{\\char92}{\\char64}}input \\lmraw{{\\char92}}");
    /* structure: unbalanced braces, $, environments; # and comments */
    safe_is("a}b{c", "a\\}b{c}");
    safe_is("$x", "$x$");
    safe_is("\\begin{pmatrix}1", "\\begin{pmatrix}1\\end{pmatrix}");
    safe_is("\\end{pmatrix}", "\\lmraw{{\\char92}end}{pmatrix}");
    safe_is("#1 ##", "\\#1 \\#\\#");
    safe_is("x % \\input{a}\ny", "x %\ny");
    safe_is("a\x01\x7f" "b\n\tc", "ab\n\tc");
    safe_is("\xce\xb1\xe2\x98\x83", "\xce\xb1?");
    safe_is(NULL, "");
    /* newlines are kept one for one (errors map to claim-file lines) */
    char *s = lm_tex_safe_str("a\n\\input{x}\n}\n$y\n");
    int nl = 0;
    for (char *p = s; *p; p++) nl += *p == '\n';
    cr_assert_eq(nl, 4);
    free(s);
}

/* a TeX comment (a % that is not \%) in s */
static int has_comment(const char *s)
{
    for (; *s; s++) {
        if (*s == '\\' && s[1]) s++;
        else if (*s == '%') return 1;
    }
    return 0;
}

/* The 197 claim files of the checkout: every literate block passes the
 * allow-list unchanged (apart from comment text), so real statements keep
 * rendering as maths. */
Test(report_safety, real_claims_pass)
{
    glob_t g;
    if (glob("lemmas/*/*.c", 0, NULL, &g)) cr_skip_test("no lemmas/ in the current directory");
    cr_assert_geq(g.gl_pathc, 100);
    int blocks = 0;
    for (size_t k = 0; k < g.gl_pathc; k++) {
        lm_literate L;
        char err[512] = "";
        cr_assert_eq(lm_literate_read(&L, g.gl_pathv[k], NULL, err, sizeof err), 0, "%s", err);
        const lm_lit_block *b[] = {&L.title, &L.source, &L.statement, &L.check, &L.note};
        for (size_t j = 0; j < sizeof b / sizeof b[0]; j++) {
            if (!b[j]->text || (j < 2 && !lm_tex_is_latex(b[j]->text))) continue;
            char *t = lm_tex_safe_str(b[j]->text);
            cr_assert_not_null(t);
            cr_expect_null(strstr(t, "\\lmraw"), "%s:%d: the allow-list changes a block: %s",
                           g.gl_pathv[k], b[j]->line, t);
            if (!has_comment(b[j]->text))
                cr_expect_str_eq(t, b[j]->text, "%s:%d", g.gl_pathv[k], b[j]->line);
            free(t);
            blocks++;
        }
        lm_literate_free(&L);
    }
    cr_assert_gt(blocks, 300);
    globfree(&g);
}

/* ---- a hostile database --------------------------------------------------------------- */

#define PWNED "/tmp/pwned"

static const char hostile_file[] =
    "/* lemmas/evil/hostile.c\n"
    " * \\claim{evil/hostile}{Hostile \\input{/etc/passwd} title}\n"
    " * \\source{\\immediate\\write18{touch " PWNED "}}\n"
    " * \\statement{$x$ \\input{/etc/passwd} ^^5cinput{/etc/passwd} \\^^5cinput{/etc/passwd}\n"
    " *   \\immediate\\write18{touch " PWNED "} \\openout\\o=x \\read\\o to\\y\n"
    " *   \\catcode`\\~=0 \\def\\x{\\input} \\csname input\\endcsname{/etc/passwd}\n"
    " *   \\newcommand\\z{} \\usepackage{x} \\special{x} \\include{x}\n"
    " *   \\begin{filecontents}{x}\\end{filecontents} \\expandafter\\input\\relax}\n"
    " * \\check{\\IfFileExists{/etc/passwd}{\\input{/etc/passwd}}{}}\n"
    " */\n"
    "int hostile;\n";

static lm_claim evil1 = {.id = "evil/path",
                         .title = "Path \\input{/etc/passwd}",
                         .file = "../../../../etc/passwd",
                         .kind = LM_KIND_POINTWISE,
                         .source = "\\input{/etc/passwd}",
                         .origin = "verbatim",
                         .confidence = "high"};

static lm_claim evil2 = {.id = "evil/hostile",
                         .title = "Hostile",
                         .file = "lemmas/evil/hostile.c",
                         .kind = LM_KIND_POINTWISE,
                         .source = "x",
                         .origin = "verbatim",
                         .confidence = "high"};

static void exec_sql(sqlite3 *db, const char *sql, const char *a, const char *b)
{
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql,
                 sqlite3_errmsg(db));
    if (a) sqlite3_bind_text(st, 1, a, -1, SQLITE_TRANSIENT);
    if (b) sqlite3_bind_text(st, 2, b, -1, SQLITE_TRANSIENT);
    cr_assert_eq(sqlite3_step(st), SQLITE_DONE, "%s: %s", sql, sqlite3_errmsg(db));
    sqlite3_finalize(st);
}

static const char *const H_INPUT = "\\input{/etc/passwd}";
static const char *const H_WRITE = "\\immediate\\write18{touch " PWNED "}";
static const char *const H_CARET = "^^5cinput{/etc/passwd}";
static const char *const H_GP = "x' ; system('touch " PWNED "') ; '`touch " PWNED "`";

static void save_hostile(const char *dbpath)
{
    char err[256] = "";
    lm_store *s = lm_store_open(dbpath, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    lm_run_meta m;
    memset(&m, 0, sizeof m);
    snprintf(m.commit, sizeof m.commit, "\\input{/etc/passwd}");
    snprintf(m.date, sizeof m.date, "}}}{{{ ^^5c");
    snprintf(m.versions, sizeof m.versions, "%s", H_WRITE);
    m.seed = 1;
    m.budget = 4;
    long long run = lm_store_begin_run(s, &m, NULL);
    cr_assert_gt(run, 0);
    lm_claim *claims[] = {&evil1, &evil2};
    for (int k = 0; k < 2; k++) {
        lm_claim_result r;
        lm_config_result cfg[1];
        memset(&r, 0, sizeof r);
        memset(cfg, 0, sizeof cfg);
        r.claim = claims[k];
        r.verdict = LM_V_VIOLATED;
        r.worst_ratio = 2;
        r.instances = 3;
        r.seconds = 0.1;
        snprintf(r.precisions, sizeof r.precisions, "%s", H_CARET);
        snprintf(r.reproduce, sizeof r.reproduce, "bin/lemmata check %s", H_WRITE);
        r.nconfig = 1;
        r.cfg = cfg;
        snprintf(cfg[0].config, sizeof cfg[0].config, "cfg");
        cfg[0].verdict = LM_V_VIOLATED;
        cfg[0].instances = 3;
        cfg[0].worst_ratio = 2;
        cfg[0].worst_index = 0;
        snprintf(cfg[0].worst_where, sizeof cfg[0].worst_where, "%s }}} {{", H_INPUT);
        snprintf(cfg[0].detail, sizeof cfg[0].detail, "%s", H_WRITE);
        snprintf(cfg[0].reproduce, sizeof cfg[0].reproduce, "%s", H_CARET);
        snprintf(cfg[0].shrunk, sizeof cfg[0].shrunk, "%s", H_INPUT);
        snprintf(cfg[0].shrunk_reproduce, sizeof cfg[0].shrunk_reproduce, "%s", H_WRITE);
        cfg[0].shrunk_data = "\\input{/etc/passwd}\t1\t1\n^^5c}\n";
        snprintf(cfg[0].escalation, sizeof cfg[0].escalation, "%s", H_CARET);
        cfg[0].measures = "\\input{/etc/passwd}=1\n[x]=\\write18{touch " PWNED "}\n"
                          "flag: \\input{x}=2\n";
        cfg[0].series = "x' ; system('touch " PWNED "') ; '\t0\t1\n"
                        "x' ; system('touch " PWNED "') ; '\t1\t2\n`touch " PWNED "`\t0\t3\n"
                        "`touch " PWNED "`\t1\t1\n";
        cfg[0].ratios = "0.3\n-0.1\n";
        snprintf(cfg[0].axes, sizeof cfg[0].axes, "%s\t%s\t1", H_GP, H_GP);
        cr_assert_eq(lm_store_save_claim(s, run, &r), 0);
    }
    char blob[2048];
    snprintf(blob, sizeof blob,
             "#figure\tevil'\t0\t1\t%s\t%s\t%s\tCaption $x$ \\input{/etc/passwd} ^^5c "
             "\\immediate\\write18{touch " PWNED "} }}} \\begin{document}\n"
             "%s\t0\t1\n%s\t1\t2\n",
             H_GP, H_GP, H_GP, H_GP, H_GP);
    cr_assert_eq(lm_store_save_live(s, run, "evil'`touch " PWNED "`", H_INPUT, 2, 53, blob,
                                    H_WRITE, 0.5),
                 0);
    cr_assert_eq(lm_store_finish_run(s, run, 1.0), 0);
    lm_store_close(s);

    /* what the store API might refuse, written directly: a config name with a
     * quote and a newline, a claim title and file of any kind */
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(dbpath, &db), SQLITE_OK);
    exec_sql(db, "UPDATE configs SET config=?1 WHERE claim_id='evil/path'",
             "a\"b\nc\\input{/etc/passwd}'`touch " PWNED "`", NULL);
    exec_sql(db, "UPDATE claims SET title=?1, file=?2 WHERE claim_id='evil/path'", H_INPUT,
             "../../../../etc/passwd");
    exec_sql(db, "UPDATE claims SET params=?1 WHERE claim_id='evil/hostile'",
             "\\input{/etc/passwd}=1\t\\write18\t\tdoc ^^5c }}}\n", NULL);
    sqlite3_close(db);
}

Test(report_safety, hostile_database, .timeout = 300)
{
    remove(PWNED);
    cr_assert_neq(access(PWNED, F_OK), 0, PWNED " exists and cannot be removed");
    write_text("lemmas/evil/hostile.c", hostile_file);
    char db[512], err[512] = "";
    at(db, sizeof db, "results.db");
    save_hostile(db);
    int rc = lm_report_build(db, -1, root, err, sizeof err);
    /* it succeeds, or fails cleanly */
    cr_assert(rc == 0 || (err[0] && !strchr(err, '\n')), "%s", err);
    cr_assert_eq(rc, 0, "%s", err);
    cr_assert_neq(access(PWNED, F_OK), 0, "a hostile string ran a command");
    assert_valid_pdf("hostile database");

    char *tex = read_rel("report/lemmata.tex", NULL);
    cr_assert_not_null(tex);
    /* the code and data companion holds the measures, named constants and commands */
    char *code = read_rel("report/build/lemmata-code.tex", NULL);
    cr_assert_not_null(code);
    static const char *const never[] = {"\\input{/etc", "\\immediate", "\\write18", "^^5c",
                                        "\\IfFileExists{/etc", "\\openout", "\\csname",
                                        "\\catcode", "\\def\\x", "\\special", "\\include{",
                                        "\\usepackage{x}", "\\begin{filecontents}"};
    for (size_t k = 0; k < sizeof never / sizeof never[0]; k++) {
        cr_expect_null(strstr(tex, never[k]), "%s reached LaTeX", never[k]);
        cr_expect_null(strstr(code, never[k]), "%s reached the companion's LaTeX", never[k]);
    }
    /* the untrusted strings appear, escaped */
    cr_expect_not_null(strstr(tex, "\\textbackslash{}input\\{/etc/passwd\\}"));
    cr_expect_not_null(strstr(tex, "{\\char92}input{\\char123}/\\allowbreak{}etc"));
    cr_expect_not_null(strstr(tex, "\\lmraw{{\\char92}input}{/etc/passwd}"));
    cr_expect_not_null(strstr(tex, "a\"b c{\\char92}input"), "config with quote and newline");
    cr_expect_not_null(strstr(tex, "Claim file unavailable"));
    cr_expect_not_null(strstr(code, "{[}x{]}"), "a measure named [x]");
    free(code);
    free(tex);

    /* gnuplot scripts: every untrusted string stays inside its single quotes */
    glob_t g;
    char pat[512];
    at(pat, sizeof pat, "figures/*.gp");
    cr_assert_eq(glob(pat, 0, NULL, &g), 0);
    int checked = 0;
    for (size_t k = 0; k < g.gl_pathc; k++) {
        char *gp = slurp(g.gl_pathv[k], NULL);
        cr_assert_not_null(gp);
        /* outside quotes no "system", no backquote, no line that is not ours */
        int inq = 0;
        char outside[8192];
        size_t no = 0;
        for (const char *p = gp; *p && no + 1 < sizeof outside; p++) {
            if (*p == '\'') {
                if (inq && p[1] == '\'') {
                    p++;
                    continue;
                }
                inq = !inq;
                continue;
            }
            if (!inq) outside[no++] = *p;
            else cr_assert_neq(*p, '\n', "%s: a newline inside a string", g.gl_pathv[k]);
        }
        outside[no] = 0;
        cr_expect_eq(inq, 0, "%s: unbalanced quotes", g.gl_pathv[k]);
        cr_expect_null(strstr(outside, "system"), "%s: %s", g.gl_pathv[k], outside);
        cr_expect_null(strchr(outside, '`'), "%s: %s", g.gl_pathv[k], outside);
        checked += strstr(gp, "system(''touch") != NULL;
        free(gp);
    }
    globfree(&g);
    cr_assert_gt(checked, 0, "no figure carried the hostile labels");

    /* the PDF's text, when poppler-utils is there */
    if (lm_proc_which("pdftotext")) {
        char pdf[512], txt[512];
        at(pdf, sizeof pdf, "report/lemmata.pdf");
        at(txt, sizeof txt, "report/lemmata.txt");
        const char *argv[] = {"pdftotext", pdf, txt, NULL};
        cr_assert_eq(lm_proc_run(NULL, argv, NULL), 0);
        char *text = slurp(txt, NULL);
        cr_assert_not_null(text);
        char *passwd = slurp("/etc/passwd", NULL);
        if (passwd) {
            char first[64];
            snprintf(first, sizeof first, "%.*s", (int)strcspn(passwd, ":"), passwd);
            char marker[80];
            snprintf(marker, sizeof marker, "%s:x:", first); /* "root:x:" */
            cr_expect_null(strstr(text, marker), "/etc/passwd is in the PDF");
            free(passwd);
        }
        cr_expect_not_null(strstr(text, "etc/passwd"), "the hostile strings are shown");
        cr_expect_not_null(strstr(text, "input"));
        cr_expect_not_null(strstr(text, "Claim file unavailable"));
        free(text);
    }
}

/* `report --run N`: a run number from 1 that the database holds; anything else is refused in
 * one line with exit 2 before anything is written */
Test(report_safety, run_option, .timeout = 300)
{
    char db[512], args[900], out[4096];
    small_root(db, sizeof db);
    static const char *const bad[] = {"0", "-1", "abc", "1x", " 1", "1e3", "99999999999999999999", ""};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        snprintf(args, sizeof args, "report --db %s --run '%s'", db, bad[k]);
        cr_expect_eq(lm_test_cli(out, sizeof out, args), 2, "--run '%s': %s", bad[k], out);
        cr_expect_not_null(strstr(out, "--run needs a run number"), "--run '%s': %s", bad[k], out);
    }
    snprintf(args, sizeof args, "report --db %s --run", db);
    cr_expect_eq(lm_test_cli(out, sizeof out, args), 2, "%s", out);
    snprintf(args, sizeof args, "report --db %s --run 999999", db);
    cr_expect_eq(lm_test_cli(out, sizeof out, args), 2, "%s", out);
    cr_expect_not_null(strstr(out, "no run 999999 in"), "%s", out);
    cr_expect_not_null(strstr(out, "it holds run 1 only"), "%s", out);
    cr_expect_eq(strchr(out, '\n'), out + strlen(out) - 1, "one line: %s", out);
    cr_expect_eq(weave_dirs(), 0);
    char pdf[600];
    at(pdf, sizeof pdf, "report/lemmata.pdf");
    cr_expect_neq(access(pdf, F_OK), 0, "a refused --run wrote a report");
    /* the run there weaves */
    snprintf(args, sizeof args, "report --db %s --run 1", db);
    cr_expect_eq(lm_test_cli(out, sizeof out, args), 0, "%s", out);
    cr_expect(lm_pdf_complete(pdf), "%s", out);
    cr_expect_not_null(strstr(out, "lemmata-code.pdf ("), "%s", out);
}
