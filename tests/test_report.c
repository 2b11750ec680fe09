/* test_report.c -- escaping, number formats, literate blocks, and a whole
 * report built from a fabricated database in a temporary root. */
#include "test_support.h"
#include <criterion/criterion.h>

#include "../src/report/report_priv.h"
#include "lm_report.h"
#include "lm_store.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <ftw.h>
#include <unistd.h>

static char root[64];

static void mkroot(void)
{
    snprintf(root, sizeof root, "/tmp/lm_report_XXXXXX");
    cr_assert_not_null(mkdtemp(root));
}

static void rmroot(void)
{
    lm_test_rmtree(root);
}

TestSuite(report, .init = mkroot, .fini = rmroot);

static void write_text(const char *rel, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = 0; /* mkdir -p of the parents */
        mkdir(path, 0777);
        *p = '/';
    }
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

static long file_size(const char *rel)
{
    char path[256];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", root, rel);
    return stat(path, &sb) ? -1 : (long)sb.st_size;
}

/* a whole file under root, NUL-terminated (NULL if unreadable) */
static char *read_text(const char *rel)
{
    return lm_test_read_under(root, rel);
}

/* byte-for-byte equality of two files under root */
static int same_file(const char *a, const char *b)
{
    long na = file_size(a), nb = file_size(b);
    if (na < 0 || na != nb) return 0;
    char pa[256], pb[256];
    snprintf(pa, sizeof pa, "%s/%s", root, a);
    snprintf(pb, sizeof pb, "%s/%s", root, b);
    FILE *fa = fopen(pa, "rb"), *fb = fopen(pb, "rb");
    int same = fa && fb;
    while (same) {
        int ca = getc(fa), cb = getc(fb);
        if (ca != cb) same = 0;
        if (ca == EOF) break;
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    return same;
}

static void copy_file(const char *from, const char *to)
{
    char pf[256], pt[256];
    snprintf(pf, sizeof pf, "%s/%s", root, from);
    snprintf(pt, sizeof pt, "%s/%s", root, to);
    FILE *in = fopen(pf, "rb"), *out = fopen(pt, "wb");
    cr_assert(in && out, "copy %s -> %s", from, to);
    int c;
    while ((c = getc(in)) != EOF) putc(c, out);
    fclose(in);
    cr_assert_eq(fclose(out), 0);
}

/* ---- escaping and numbers ---------------------------------------------------------- */

static void esc_is(const char *in, const char *want)
{
    char *got = lm_tex_escape_str(in);
    cr_assert_not_null(got);
    cr_assert_str_eq(got, want, "escape(%s)", in);
    free(got);
}

Test(report_tex, escape)
{
    esc_is("a_b%c", "a\\_b\\%c");
    esc_is("x&y#z$w", "x\\&y\\#z\\$w");
    esc_is("{a}~^\\", "\\{a\\}\\textasciitilde{}\\textasciicircum{}\\textbackslash{}");
    esc_is("a<b>c|d", "a\\textless{}b\\textgreater{}c\\textbar{}d");
    esc_is("--set", "-{}-set");
    esc_is("[x]", "{[}x{]}"); /* never an optional argument of a \\ or \midrule before it */
    esc_is("line1\nline2\tx", "line1 line2 x");
    esc_is("\xe2\x89\xa4 caf\xc3\xa9", "\xe2\x89\xa4 caf\xc3\xa9"); /* known: kept */
    esc_is("\xe2\x98\x83", "?");                                  /* snowman: replaced */
    esc_is("\xff", "?");                                          /* malformed */
    esc_is(NULL, "");
    lm_tbuf b;
    lm_tbuf_init(&b);
    lm_tex_escape_tt(&b, "a_b");
    char *s = lm_tbuf_take(&b);
    cr_assert_str_eq(s, "a{\\char95}\\allowbreak{}b");
    free(s);
    cr_assert(lm_tex_is_latex("$x$"));
    cr_assert(!lm_tex_is_latex("Theorem 1, p. 3"));
}

static char *code_tex(const char *src, int first, int last)
{
    lm_tbuf b;
    lm_tbuf_init(&b);
    lm_tex_code(&b, src, strlen(src), first, last);
    return lm_tbuf_take(&b);
}

/* the code weaver: classes, escapes, tabs, blanks, comments across lines */
Test(report_tex, code_lines)
{
    char *s = code_tex("#include <math.h>\n"
                       "static int f(int x_1)\t{ return x_1 % 2; } // 50% off {\n"
                       "/* a comment\n"
                       "   over lines with $ and \\ */ double y = 1;\n"
                       "char *s = \"a\\\"b{\"; int c = '\\'';\n",
                       1, 5);
    cr_assert_str_eq(s,
                     "\\lmL{1}{\\lmP{\\char35 include\\lmB{1}<math.h>}}\n"
                     "\\lmL{2}{\\lmK{static}\\lmB{1}\\lmK{int}\\lmB{1}f(\\lmK{int}\\lmB{1}x\\char95 1)"
                     "\\lmB{3}\\char123 \\lmB{1}\\lmK{return}\\lmB{1}x\\char95 1\\lmB{1}\\char37 "
                     "\\lmB{1}2;\\lmB{1}\\char125 \\lmB{1}\\lmC{//\\lmB{1}50\\char37 \\lmB{1}off"
                     "\\lmB{1}\\char123 }}\n"
                     "\\lmL{3}{\\lmC{/*\\lmB{1}a\\lmB{1}comment}}\n"
                     "\\lmL{4}{\\lmC{\\lmB{3}over\\lmB{1}lines\\lmB{1}with\\lmB{1}\\char36 \\lmB{1}and"
                     "\\lmB{1}\\char92 \\lmB{1}*/}\\lmB{1}\\lmK{double}\\lmB{1}y\\lmB{1}=\\lmB{1}1;}\n"
                     "\\lmL{5}{\\lmK{char}\\lmB{1}*s\\lmB{1}=\\lmB{1}\\lmS{\"a\\char92 \"b\\char123 \"};"
                     "\\lmB{1}\\lmK{int}\\lmB{1}c\\lmB{1}=\\lmB{1}\\lmS{'\\char92 ''};}\n");
    free(s);
    /* a range that starts inside a comment still colours it as one */
    s = code_tex("/* one\n two */ int a;\n", 2, 2);
    cr_assert_str_eq(s, "\\lmL{2}{\\lmC{\\lmB{1}two\\lmB{1}*/}\\lmB{1}\\lmK{int}\\lmB{1}a;}\n");
    free(s);
    /* identifiers that contain a keyword are not keywords; trailing blanks go */
    s = code_tex("int integer;   \n", 1, 1);
    cr_assert_str_eq(s, "\\lmL{1}{\\lmK{int}\\lmB{1}integer;}\n");
    free(s);
}

/* long lines wrap at LM_CODE_COLS columns; unknown non-ASCII becomes '?' */
Test(report_tex, code_wrap_and_unicode)
{
    char line[400];
    memset(line, 'a', 300);
    line[300] = '\n';
    line[301] = 0;
    char *s = code_tex(line, 1, 1);
    char want[1000];
    int n = snprintf(want, sizeof want, "\\lmL{1}{%.*s}\n\\lmW{%.*s}\n\\lmW{%.*s}\n",
                     LM_CODE_COLS, line, LM_CODE_COLS, line, 300 - 2 * LM_CODE_COLS, line);
    cr_assert_gt(n, 0);
    cr_assert_str_eq(s, want);
    free(s);
    /* U+00E9 is typeset by inputenc, U+4E2D is not; a stray byte is not */
    s = code_tex("/* caf\xc3\xa9 \xe4\xb8\xad \xff */\n", 1, 1);
    cr_assert_str_eq(s, "\\lmL{1}{\\lmC{/*\\lmB{1}caf\xc3\xa9\\lmB{1}?\\lmB{1}?\\lmB{1}*/}}\n");
    free(s);
    /* lines past the end of the file are not invented */
    s = code_tex("x\n", 1, 9);
    cr_assert_str_eq(s, "\\lmL{1}{x}\n");
    free(s);
}

static void num_is(void (*fmt)(char *, size_t, double), double x, const char *want)
{
    char buf[80];
    fmt(buf, sizeof buf, x);
    cr_assert_str_eq(buf, want, "format(%.17g)", x);
}

Test(report_tex, numbers)
{
    num_is(lm_tex_num, NAN, "--");
    num_is(lm_tex_num, INFINITY, "$\\infty$");
    num_is(lm_tex_num, 0.0, "0");
    num_is(lm_tex_num, 0.123456, "0.123");
    num_is(lm_tex_num, 12.345, "12.3");
    num_is(lm_tex_num, 12345.6, "12346");
    num_is(lm_tex_num, 1.23456e-5, "$1.23{\\times}10^{-5}$");
    num_is(lm_tex_num, -2e7, "$-2{\\times}10^{7}$");
    num_is(lm_tex_num, 1e-9, "$10^{-9}$");
    num_is(lm_tex_ratio, 1.0 - 3e-7, "$1-3{\\times}10^{-7}$");
    num_is(lm_tex_ratio, 1.0 + 2.5e-4, "$1+2.5{\\times}10^{-4}$");
    num_is(lm_tex_ratio, 1.0, "1");
    num_is(lm_tex_ratio, 0.997, "0.9970");
    num_is(lm_tex_ratio, 0.5, "0.5");
    num_is(lm_tex_ratio, NAN, "--");
    num_is(lm_tex_seconds, 0.0123, "0.012");
    num_is(lm_tex_seconds, 3.45, "3.5");
    num_is(lm_tex_seconds, 99.7, "100");
    num_is(lm_tex_seconds, 1234.4, "1234");
}

Test(report_tex, sanitize)
{
    char buf[64];
    lm_fig_sanitize(buf, sizeof buf, "dynamics/theorem_1");
    cr_assert_str_eq(buf, "dynamics-theorem-1");
    lm_fig_sanitize(buf, sizeof buf, "a..b//c.");
    cr_assert_str_eq(buf, "a-b-c");
    lm_fig_sanitize(buf, sizeof buf, "%%");
    cr_assert_str_eq(buf, "x");
}

/* ---- literate blocks --------------------------------------------------------------- */

static const char good_file[] =
    "/* lemmas/fake/lemma_1.c\n"                                      /* 1 */
    " *\n"                                                            /* 2 */
    " * \\claim{fake/lemma_1}{Bound on $\\|W\\|$ for 100\\% of steps}\n" /* 3 */
    " * \\source{Fake paper, Lemma 1}\n"                              /* 4 */
    " * \\statement{For all $t$,\n"                                   /* 5 */
    " *   $f(M_t) \\le (1-\\eta\\alpha)^t f(M_0)$ % a comment with }\n" /* 6 */
    " *   where $\\{x\\}$ is a set.}\n"                               /* 7 */
    " * \\check{Run GD;\n"                                            /* 8 */
    " *   compare.}\n"                                                /* 9 */
    " */\n"                                                           /* 10 */
    "\n"                                                              /* 11 */
    "#include \"lm_claim.h\"\n"                                       /* 12 */
    "static int eval(lm_eval *ev) { (void)ev; return 0; }\n";         /* 13 */

Test(report, literate_blocks)
{
    write_text("lemmas/fake/lemma_1.c", good_file);
    char path[200], err[256] = "";
    snprintf(path, sizeof path, "%s/lemmas/fake/lemma_1.c", root);
    lm_literate L;
    cr_assert_eq(lm_literate_read(&L, path, "lemmas/fake/lemma_1.c", err, sizeof err), 0, "%s",
                 err);
    cr_assert_str_eq(L.id.text, "fake/lemma_1");
    cr_assert_str_eq(L.title.text, "Bound on $\\|W\\|$ for 100\\% of steps");
    cr_assert_eq(L.title.line, 3);
    cr_assert_str_eq(L.source.text, "Fake paper, Lemma 1");
    cr_assert_eq(L.statement.line, 5);
    cr_assert_str_eq(L.statement.text,
                     "For all $t$,\n  $f(M_t) \\le (1-\\eta\\alpha)^t f(M_0)$ % a comment with }\n"
                     "  where $\\{x\\}$ is a set.");
    cr_assert_str_eq(L.check.text, "Run GD;\n  compare.");
    cr_assert_eq(L.check.line, 8);
    cr_assert_null(L.note.text);
    cr_assert_eq(L.code_line, 12);
    cr_assert_eq(L.nlines, 13);
    cr_assert_eq(L.nonascii, 0);
    lm_literate_free(&L);
}

Test(report, literate_errors)
{
    write_text("lemmas/fake/bad.c", "/*\n * \\claim{fake/bad}{Bad}\n * \\statement{$x \\le y\n"
                                    " *   and more\n */\nint x;\n");
    char path[200], err[256] = "";
    snprintf(path, sizeof path, "%s/lemmas/fake/bad.c", root);
    lm_literate L;
    cr_assert_eq(lm_literate_read(&L, path, "lemmas/fake/bad.c", err, sizeof err), -2);
    cr_assert_str_eq(err, "lemmas/fake/bad.c:3: unclosed brace in the \\statement block");
    write_text("lemmas/fake/bad.c", "/*\n * \\statement{ok\n * $x \\le y}\n */\n");
    cr_assert_eq(lm_literate_read(&L, path, "lemmas/fake/bad.c", err, sizeof err), -2);
    cr_assert_not_null(strstr(err, "lemmas/fake/bad.c:3: odd number of $"), "%s", err);
    write_text("lemmas/fake/bad.c", "/*\n * \\check{\\begin{align}x\n * \\end{aligned}}\n */\n");
    cr_assert_eq(lm_literate_read(&L, path, "lemmas/fake/bad.c", err, sizeof err), -2);
    cr_assert_not_null(strstr(err, ":3: \\end{aligned} closes \\begin{align}"), "%s", err);
    cr_assert_eq(lm_literate_read(&L, "/nonexistent/x.c", "lemmas/x.c", err, sizeof err), -1);
    cr_assert_str_eq(err, "cannot read claim file lemmas/x.c");
    /* no header comment: no blocks, not an error */
    write_text("lemmas/fake/plain.c", "int x;\n");
    snprintf(path, sizeof path, "%s/lemmas/fake/plain.c", root);
    cr_assert_eq(lm_literate_read(&L, path, NULL, err, sizeof err), 0);
    cr_assert_null(L.statement.text);
    lm_literate_free(&L);
}

/* ---- whole report ------------------------------------------------------------------ */

/* s as the report typesets it in \\texttt (malloc'ed) */
static char *tt(const char *s)
{
    lm_tbuf b;
    lm_tbuf_init(&b);
    lm_tex_escape_tt(&b, s);
    char *t = lm_tbuf_take(&b);
    cr_assert_not_null(t);
    return t;
}

/* Every \\href{file\\#NAME} in `from` has \\hypertarget{NAME} in `to`: the number of distinct
 * names linked (-1 when one is missing). */
static int links_resolve(const char *from, const char *file, const char *to)
{
    char pre[128], name[300], target[340];
    snprintf(pre, sizeof pre, "\\href{%s\\#", file);
    int n = 0;
    char seen[64][300];
    for (const char *p = strstr(from, pre); p; p = strstr(p + 1, pre)) {
        const char *a = p + strlen(pre), *e = strchr(a, '}');
        if (!e || e - a >= (long)sizeof name) return -1;
        snprintf(name, sizeof name, "%.*s", (int)(e - a), a);
        snprintf(target, sizeof target, "\\hypertarget{%s}{}", name);
        if (!strstr(to, target)) return -1;
        int dup = 0;
        for (int k = 0; k < n && !dup; k++) dup = !strcmp(seen[k], name);
        if (!dup && n < 64) snprintf(seen[n++], sizeof seen[0], "%s", name);
    }
    return n;
}

static const lm_param_def fake_params[] = {
    {.name = "alpha_scale", .def = 1, .doc = "multiplies alpha"},
    {.name = "kernel", .def = 0, .doc = "kernel", .choices = "softmax|gaussian"},
    {.name = NULL}};

static lm_claim fake1 = {.id = "fake/lemma_1",
                         .title = "Bound on W",
                         .file = "lemmas/fake/lemma_1.c",
                         .kind = LM_KIND_TRAJECTORY,
                         .source = "Fake paper, Lemma 1",
                         .origin = "reconstructed",
                         .confidence = "low",
                         .params = fake_params};

static lm_claim fake2 = {.id = "other_paper/theorem_2",
                         .title = "A theorem with_underscores & 50%",
                         .file = "lemmas/other_paper/theorem_2.c",
                         .kind = LM_KIND_RATE,
                         .source = "Other, Thm 2",
                         .origin = "verbatim",
                         .confidence = "high",
                         .proxy = 1};

static void save_fake(const char *db, const char *db_commit)
{
    char err[256] = "";
    lm_store *s = lm_store_open(db, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    lm_run_meta m;
    memset(&m, 0, sizeof m);
    snprintf(m.commit, sizeof m.commit, "%s", db_commit);
    snprintf(m.date, sizeof m.date, "2024-05-06 07:08:09 UTC");
    snprintf(m.versions, sizeof m.versions,
             "MPFR 4.2.0, GMP 6.2.1, GSL 2.7, SQLite 3.40.1, OpenBLAS 0.3.21 DYNAMIC_ARCH "
             "NO_AFFINITY Haswell MAX_THREADS=64");
    m.seed = 42;
    m.budget = 8;
    m.quick = 1;
    long long run = lm_store_begin_run(s, &m, NULL);
    cr_assert_gt(run, 0);

    lm_claim_result r;
    memset(&r, 0, sizeof r);
    r.repaired_verdict = r.probe_verdict = -1;
    lm_config_result cfg[2];
    memset(cfg, 0, sizeof cfg);
    r.claim = &fake1;
    r.verdict = LM_V_VIOLATED;
    r.worst_ratio = 1.0 + 2e-9;
    r.instances = 16;
    snprintf(r.precisions, sizeof r.precisions, "double,mpfr256");
    r.seconds = 1.5;
    snprintf(r.reproduce, sizeof r.reproduce,
             "bin/lemmata check fake/lemma_1 --seed 42 --budget 8 --quick --config softmax "
             "--instance 3 --set alpha_scale=1.5");
    r.nconfig = 2;
    r.cfg = cfg;
    snprintf(cfg[0].config, sizeof cfg[0].config, "softmax");
    cfg[0].verdict = LM_V_VIOLATED;
    cfg[0].instances = 8;
    cfg[0].observations = 400;
    cfg[0].breaks_double = 2;
    cfg[0].confirmed = 1;
    cfg[0].artifacts = 1;
    cfg[0].worst_ratio = r.worst_ratio;
    snprintf(cfg[0].worst_where, sizeof cfg[0].worst_where, "t=17: f(M_t) <= (1-eta*alpha)^t f_0");
    cfg[0].worst_index = 3;
    snprintf(cfg[0].reproduce, sizeof cfg[0].reproduce, "%s", r.reproduce);
    snprintf(cfg[0].precisions, sizeof cfg[0].precisions, "double,mpfr256");
    cfg[0].seconds = 1.0;
    char series[4096] = "", ratios[1024] = "";
    for (int t = 0; t <= 40; t++) {
        size_t n = strlen(series);
        snprintf(series + n, sizeof series - n, "loss\t%d\t%.6g\nbound (1-eta alpha)^t f_0\t%d\t%.6g\n",
                 t, exp(-0.1 * t), t, exp(-0.099 * t));
    }
    strcat(series, "loss\t41\tnan\n");
    for (int k = 0; k < 8; k++) {
        size_t n = strlen(ratios);
        snprintf(ratios + n, sizeof ratios - n, "%.6g\n", -0.3 * k + (k == 0 ? 0.3 : 0));
    }
    strcat(ratios, "-inf\n");
    cfg[0].series = series;
    cfg[0].ratios = ratios;
    cfg[0].measures = "alpha=0.0123\neta=0.5\nrank_B0=12\nnote=full rank\n";
    snprintf(cfg[0].axes, sizeof cfg[0].axes, "iteration t\tloss f(M_t)\t1");
    snprintf(cfg[1].config, sizeof cfg[1].config, "gaussian_kernel");
    cfg[1].verdict = LM_V_ASSUMPTION_FAILED;
    cfg[1].instances = 8;
    cfg[1].assumption_failed = 8;
    cfg[1].worst_ratio = NAN;
    cfg[1].worst_index = -1;
    snprintf(cfg[1].detail, sizeof cfg[1].detail, "B_0 rank deficient (rank 3 < 12) in 8 instances");
    cfg[1].seconds = 0.5;
    cfg[1].ratios = "";
    cr_assert_eq(lm_store_save_claim(s, run, &r), 0);

    memset(&r, 0, sizeof r);
    r.repaired_verdict = r.probe_verdict = -1;
    memset(cfg, 0, sizeof cfg);
    r.claim = &fake2;
    r.verdict = LM_V_CONSISTENT;
    r.worst_ratio = 0.25;
    r.instances = 8;
    snprintf(r.precisions, sizeof r.precisions, "double");
    r.seconds = 0.01;
    r.nconfig = 1;
    r.cfg = cfg;
    snprintf(cfg[0].config, sizeof cfg[0].config, "default");
    cfg[0].verdict = LM_V_CONSISTENT;
    cfg[0].instances = 8;
    cfg[0].worst_ratio = 0.25;
    cfg[0].worst_index = -1;
    cfg[0].ratios = "-0.6\n-0.7\n-0.9\n";
    cr_assert_eq(lm_store_save_claim(s, run, &r), 0);
    cr_assert_eq(lm_store_finish_run(s, run, 2.0), 0);
    lm_store_close(s);
}

Test(report, builds_pdf, .timeout = 240)
{
    write_text("lemmas/fake/lemma_1.c", good_file);
    /* non-ASCII (Unicode math) in the statement and code: typeset or '?' */
    write_text("lemmas/other_paper/theorem_2.c",
               "/* \\claim{other_paper/theorem_2}{A theorem with\\_underscores}\n"
               " * \\source{Other, Thm 2}\n"
               " * \\statement{The rate is $O(t^{-1/2})$: $\xce\xb1 \xe2\x89\xa4 \xce\xb2$.}\n"
               " * \\check{Fit the slope.}\n"
               " */\n"
               "/* caf\xc3\xa9 */\nint theorem2;\n");
    char db[160], err[512] = "";
    snprintf(db, sizeof db, "%s/results.db", root);
    save_fake(db, "0123456789ab+dirty");
    int rc = lm_report_build(db, -1, root, err, sizeof err);
    cr_assert_eq(rc, 0, "%s", err);
    long size = file_size("report/lemmata.pdf");
    cr_assert_gt(size, 20000, "pdf size %ld", size);
    cr_assert_eq(file_size("report/lemmata-build.pdf"), -1); /* renamed away */
    cr_assert_gt(file_size("report/lemmata.tex"), 1000);
    cr_assert_gt(file_size("figures/fake-lemma-1-softmax.pdf"), 1000);
    cr_assert_gt(file_size("figures/fake-lemma-1-softmax.gp"), 100);
    cr_assert_gt(file_size("figures/fake-lemma-1-softmax-ratios.pdf"), 1000);
    cr_assert_gt(file_size("figures/other-paper-theorem-2-default-ratios.pdf"), 1000);
    cr_assert_eq(file_size("figures/fake-lemma-1-gaussian-kernel.pdf"), -1); /* no data */
    char *tex = read_text("report/lemmata.tex");
    cr_assert_not_null(tex);
    /* the reviewer's edition has no code: the code companion has it */
    cr_assert_null(strstr(tex, "\\lmL{"));
    cr_assert_gt(file_size("report/lemmata-code.pdf"), 5000);
    char *code = read_text("report/build/lemmata-code.tex");
    cr_assert_not_null(code);
    cr_assert_not_null(strstr(code, "\\lmL{6}{\\lmC{/*\\lmB{1}caf\xc3\xa9\\lmB{1}*/}}"));
    cr_assert_not_null(strstr(code, "\\lmL{7}{\\lmK{int}\\lmB{1}theorem2;}"));
    cr_assert_null(strstr(code, "lstinputlisting"));
    /* ... and the data the reviewer's section leaves out: named constants, measured quantities,
     * every configuration's worst instance, the other configurations' histograms */
    cr_assert_null(strstr(tex, "{Named constants}"));
    cr_assert_null(strstr(tex, "{Measured quantities}"));
    cr_assert_not_null(strstr(code, "{Named constants}"));
    cr_assert_not_null(strstr(code, "{Measured quantities}"));
    char *cmd = tt("bin/lemmata check fake/lemma_1 --seed 42 --budget 8 --quick --config softmax "
                   "--instance 3 --set alpha_scale=1.5");
    cr_assert_not_null(strstr(code, cmd), "%s", cmd);
    free(cmd);
    /* cross-linked both ways: every link has its destination in the other file */
    cr_assert_eq(links_resolve(tex, "lemmata-code.pdf", code), 2);
    cr_assert_eq(links_resolve(code, "lemmata.pdf", tex), 2);
    cr_assert_not_null(strstr(tex, "\\href{lemmata-code.pdf\\#code:fake/lemma+5F1}"));
    cr_assert_not_null(strstr(code, "\\hypertarget{code:other+5Fpaper/theorem+5F2}{}"));
    /* a contents page; each paper's section in the contents */
    cr_assert_not_null(strstr(tex, "\\lmcontents{1}"));
    cr_assert_not_null(strstr(tex, "\\addcontentsline{toc}{part}{fake}"));
    /* provenance counts reuse; each verdict box names the run its numbers are from */
    cr_assert_not_null(strstr(tex, "claims & 2 checked in this run, 0 reused"));
    cr_assert_not_null(strstr(tex, " s, run 1}"));
    cr_assert_not_null(strstr(tex, "Every result in this report is stored in run 1"));
    /* papers this build does not have get no edition of their own */
    cr_assert_eq(file_size("report/fake.pdf"), -1);
    free(code);
    free(tex);
    /* run again: rebuilding over an existing report works */
    rc = lm_report_build(db, -1, root, err, sizeof err);
    cr_assert_eq(rc, 0, "%s", err);

    /* figures are redrawn only when their .gp/.dat changed: plant another
     * figure's PDF under this one's name; an unchanged stamp keeps it */
    const char *mine = "figures/fake-lemma-1-softmax.pdf";
    const char *other = "figures/other-paper-theorem-2-default-ratios.pdf";
    cr_assert(!same_file(mine, other));
    copy_file(other, mine);
    rc = lm_report_build(db, -1, root, err, sizeof err);
    cr_assert_eq(rc, 0, "%s", err);
    cr_assert(same_file(mine, other), "an unchanged figure was redrawn");
    /* a stamp that does not match the .gp/.dat bytes: redrawn */
    write_text("figures/fake-lemma-1-softmax.stamp", "0123456789abcdef\n");
    rc = lm_report_build(db, -1, root, err, sizeof err);
    cr_assert_eq(rc, 0, "%s", err);
    cr_assert(!same_file(mine, other), "a figure with a stale stamp was not redrawn");
    /* no stamp at all (a PDF of unknown origin): redrawn */
    copy_file(other, mine);
    char stamp[256];
    snprintf(stamp, sizeof stamp, "%s/figures/fake-lemma-1-softmax.stamp", root);
    cr_assert_eq(remove(stamp), 0);
    rc = lm_report_build(db, -1, root, err, sizeof err);
    cr_assert_eq(rc, 0, "%s", err);
    cr_assert(!same_file(mine, other));
    cr_assert_gt(file_size("figures/fake-lemma-1-softmax.stamp"), 0);
}

Test(report, latex_error_points_at_claim_file, .timeout = 240)
{
    /* a double subscript on line 4 of the claim file (an unknown command
     * would not do: the allow-list shows it as text instead of running it) */
    write_text("lemmas/fake/lemma_1.c", "/* \\claim{fake/lemma_1}{Bound}\n"
                                        " * \\statement{All good,\n"
                                        " *   still good,\n"
                                        " *   but $x_1_2$ is not.}\n"
                                        " */\nint x;\n");
    write_text("lemmas/other_paper/theorem_2.c", "int y;\n");
    char db[160], err[512] = "";
    snprintf(db, sizeof db, "%s/results.db", root);
    save_fake(db, "abc");
    int rc = lm_report_build(db, -1, root, err, sizeof err);
    cr_assert_neq(rc, 0);
    cr_assert_not_null(strstr(err, "lemmas/fake/lemma_1.c:4:"), "%s", err);
    cr_assert_not_null(strstr(err, "Double subscript"), "%s", err);
    cr_assert_null(strchr(err, '\n'), "one line: %s", err);
    cr_assert_eq(file_size("report/lemmata.pdf"), -1);
}

Test(report, malformed_block_fails_before_output)
{
    write_text("lemmas/fake/lemma_1.c", "/* \\statement{unclosed $x$\n */\n");
    char db[160], err[512] = "";
    snprintf(db, sizeof db, "%s/results.db", root);
    save_fake(db, "abc");
    cr_assert_neq(lm_report_build(db, -1, root, err, sizeof err), 0);
    cr_assert_str_eq(err, "lemmas/fake/lemma_1.c:1: unclosed brace in the \\statement block");
    cr_assert_eq(file_size("report/lemmata.tex"), -1);
}

Test(report, missing_tools)
{
    char db[160], err[512] = "", empty[160];
    snprintf(db, sizeof db, "%s/results.db", root);
    save_fake(db, "abc");
    snprintf(empty, sizeof empty, "%s/emptybin", root);
    cr_assert_eq(mkdir(empty, 0777), 0);
    cr_assert_eq(setenv("PATH", empty, 1), 0);
    int rc = lm_report_build(db, -1, root, err, sizeof err);
    cr_assert_neq(rc, 0);
    cr_assert_str_eq(err, "pdflatex not found (apt-get install texlive-latex-base)");
    cr_assert_eq(file_size("report"), -1); /* nothing written */
    cr_assert_eq(file_size("figures"), -1);
}

Test(report, missing_database)
{
    char db[160], err[512] = "";
    snprintf(db, sizeof db, "%s/nothing.db", root);
    cr_assert_neq(lm_report_build(db, -1, root, err, sizeof err), 0);
    cr_assert_not_null(strstr(err, "nothing.db"), "%s", err);
}

/* ---- readings and check strength (schema 4) ----------------------------------------- */

/* the note of the repaired reading: plain text with characters LaTeX must not see raw */
static const char repaired_note[] = "coefficient \xce\xb7/2 & 50% of x_1";

/* one claim: false as printed, holds when repaired, a probe that breaks; 4 of 6 mutants
 * killed; the second claim of the run has no check strength measured */
static void save_readings(const char *db)
{
    char err[256] = "";
    lm_store *s = lm_store_open(db, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    lm_run_meta m;
    memset(&m, 0, sizeof m);
    snprintf(m.commit, sizeof m.commit, "abc");
    m.seed = 7;
    m.budget = 8;
    m.quick = 1;
    long long run = lm_store_begin_run(s, &m, NULL);
    cr_assert_gt(run, 0);

    lm_claim_result r;
    memset(&r, 0, sizeof r);
    lm_config_result cfg[3];
    memset(cfg, 0, sizeof cfg);
    r.claim = &fake1;
    r.verdict = LM_V_VIOLATED;
    r.repaired_verdict = LM_V_HOLDS;
    r.probe_verdict = LM_V_VIOLATED;
    r.mutants_run = 6;
    r.mutants_killed = 4;
    snprintf(r.mutants_note, sizeof r.mutants_note, "c_scale past its sharpest survives; flip survives");
    r.worst_ratio = 1.5;
    r.instances = 24;
    r.seconds = 0.3;
    r.nconfig = 3;
    r.cfg = cfg;
    const char *name[3] = {"as printed", "eta/2", "large eta"};
    const lm_verdict v[3] = {LM_V_VIOLATED, LM_V_HOLDS, LM_V_VIOLATED};
    const lm_reading_kind kind[3] = {LM_READ_PAPER, LM_READ_REPAIRED, LM_READ_PROBE};
    const double worst[3] = {1.5, 0.5, 40.0};
    for (int k = 0; k < 3; k++) {
        snprintf(cfg[k].config, sizeof cfg[k].config, "%s", name[k]);
        cfg[k].verdict = v[k];
        cfg[k].reading = kind[k];
        cfg[k].instances = 8;
        cfg[k].worst_ratio = worst[k];
        cfg[k].worst_index = 0;
        cfg[k].seconds = 0.1;
        cfg[k].ratios = "";
    }
    snprintf(cfg[1].reading_note, sizeof cfg[1].reading_note, "%s", repaired_note);
    snprintf(cfg[2].reading_note, sizeof cfg[2].reading_note, "step size 10 eta_0, beyond the hypotheses");
    cfg[1].vacuous = 3;
    cr_assert_eq(lm_store_save_claim(s, run, &r), 0);

    memset(&r, 0, sizeof r);
    memset(cfg, 0, sizeof cfg);
    r.claim = &fake2;
    r.verdict = LM_V_CONSISTENT;
    r.repaired_verdict = r.probe_verdict = -1;
    r.worst_ratio = 0.25;
    r.instances = 8;
    r.nconfig = 1;
    r.cfg = cfg;
    snprintf(cfg[0].config, sizeof cfg[0].config, "default");
    cfg[0].verdict = LM_V_CONSISTENT;
    cfg[0].instances = 8;
    cfg[0].worst_ratio = 0.25;
    cfg[0].worst_index = -1;
    cfg[0].ratios = "";
    cr_assert_eq(lm_store_save_claim(s, run, &r), 0);
    cr_assert_eq(lm_store_finish_run(s, run, 1.0), 0);
    lm_store_close(s);
}

static void tex_has(const char *tex, const char *want)
{
    cr_assert_not_null(strstr(tex, want), "the report lacks: %s", want);
}

Test(report, readings_and_check_strength, .timeout = 240)
{
    write_text("lemmas/fake/lemma_1.c", good_file);
    write_text("lemmas/other_paper/theorem_2.c", "int theorem2;\n");
    char db[160], err[512] = "";
    snprintf(db, sizeof db, "%s/results.db", root);
    save_readings(db);

    /* read back */
    lm_results R;
    cr_assert_eq(lm_results_load(&R, db, -1, err, sizeof err), 0, "%s", err);
    cr_assert_eq(R.nclaims, 2);
    const lm_claim_result *a = &R.claims[0].res, *b = &R.claims[1].res;
    cr_assert_str_eq(R.claims[0].claim.id, "fake/lemma_1");
    cr_assert_eq(a->verdict, LM_V_VIOLATED);
    cr_assert_eq(a->repaired_verdict, LM_V_HOLDS);
    cr_assert_eq(a->probe_verdict, LM_V_VIOLATED);
    cr_assert_eq(a->mutants_run, 6);
    cr_assert_eq(a->mutants_killed, 4);
    cr_assert_str_eq(a->mutants_note, "c_scale past its sharpest survives; flip survives");
    cr_assert_eq(a->nconfig, 3);
    cr_assert_eq(a->cfg[0].reading, LM_READ_PAPER);
    cr_assert_str_eq(a->cfg[0].reading_note, "");
    cr_assert_eq(a->cfg[1].reading, LM_READ_REPAIRED);
    cr_assert_str_eq(a->cfg[1].reading_note, repaired_note);
    cr_assert_eq(a->cfg[1].vacuous, 3);
    cr_assert_eq(a->cfg[2].reading, LM_READ_PROBE);
    cr_assert_eq(b->repaired_verdict, -1);
    cr_assert_eq(b->probe_verdict, -1);
    cr_assert_eq(b->mutants_run, 0);
    cr_assert_eq(b->mutants_killed, 0);
    lm_results_free(&R);

    cr_assert_eq(lm_report_build(db, -1, root, err, sizeof err), 0, "%s", err);
    cr_assert_gt(file_size("report/lemmata.pdf"), 10000);
    char *tex = read_text("report/lemmata.tex");
    cr_assert_not_null(tex);
    char *note = lm_tex_escape_str(repaired_note);
    cr_assert_not_null(note);
    cr_assert_not_null(strstr(note, "\\&"));
    char want[600];
    /* the summary: check strength beside the verdict, "--" when not measured */
    tex_has(tex, "verdict & mutants killed & worst ratio");
    tex_has(tex, "\\vd{vviolated}{violated}$^\\dagger$\\newline{\\scriptsize repaired: "
                 "\\vd{vholds}{holds}} & \\textcolor{vartifact}{\\textbf{4/6}} & ");
    tex_has(tex, "\\vd{vconsistent}{consistent} & -- & ");
    /* the overall kill rate */
    tex_has(tex, "The checks killed 4 of 6 standard mutants (66.7\\%) of the 1 claim measured");
    tex_has(tex, "1 claim was not measured.");
    tex_has(tex, "repaired readings in 1 claim (passing in 1, of which 1 is violated");
    /* the claim's section: which readings failed and which held, each with its sentence */
    tex_has(tex, "\\vd{vviolated}{violated} \\textbf{as printed}: \\texttt{as printed}.");
    snprintf(want, sizeof want, "\\vd{vholds}{holds} \\textbf{when repaired}: \\texttt{eta/\\allowbreak{}2} (%s).",
             note);
    tex_has(tex, want);
    tex_has(tex, "\\vd{vviolated}{violated} \\textbf{in probes} beyond the hypotheses: \\texttt{large eta} "
                 "(step size 10 eta\\_0, beyond the hypotheses).");
    /* the worst ratio of the verdict is the paper configuration's, not the probe's */
    tex_has(tex, "= \\textbf{1.5} in configuration \\texttt{as printed}");
    /* check strength beside the verdict, the survivors below */
    tex_has(tex, "check strength \\textcolor{vartifact}{\\textbf{4/6}} mutants killed");
    tex_has(tex, "\\textbf{Check strength 4/6:} c\\_scale past its sharpest survives; flip survives.");
    /* one line per configuration: reading, sentence, verdict, worst ratio; the counts under it,
     * vacuous among them */
    tex_has(tex, "\\texttt{as printed} & paper & \\emph{the statement as printed} & \\vd{vviolated}{violated} & ");
    snprintf(want, sizeof want, "\\texttt{eta/\\allowbreak{}2} & repaired & %s & \\vd{vholds}{holds} & 0.5 & 8\\\\", note);
    tex_has(tex, want);
    tex_has(tex, "\\texttt{eta/\\allowbreak{}2}: 8 instances, 3 vacuous;");
    /* "Where it broke" names the probe's reading and its sentence */
    tex_has(tex, "\\texttt{large eta}\\newline{\\scriptsize\\emph{probe}} & step size 10 eta\\_0, beyond the "
                 "hypotheses & \\vd{vviolated}{violated}");
    free(note);
    free(tex);
}

/* a database written before schema 4 (no reading, vacuous or check-strength columns)
 * still loads, with the defaults, and weaves */
Test(report, old_schema_weaves, .timeout = 240)
{
    write_text("lemmas/fake/lemma_1.c", good_file);
    write_text("lemmas/other_paper/theorem_2.c", "int theorem2;\n");
    char db[160], err[512] = "";
    snprintf(db, sizeof db, "%s/results.db", root);
    save_fake(db, "abc");
    sqlite3 *h = NULL;
    cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
    char *msg = NULL;
    int rc = sqlite3_exec(h,
                          "ALTER TABLE claims DROP COLUMN repaired_verdict;"
                          "ALTER TABLE claims DROP COLUMN probe_verdict;"
                          "ALTER TABLE claims DROP COLUMN mutants_run;"
                          "ALTER TABLE claims DROP COLUMN mutants_killed;"
                          "ALTER TABLE claims DROP COLUMN mutants_note;"
                          "ALTER TABLE configs DROP COLUMN reading;"
                          "ALTER TABLE configs DROP COLUMN reading_note;"
                          "ALTER TABLE configs DROP COLUMN vacuous;"
                          "PRAGMA user_version=3;",
                          NULL, NULL, &msg);
    cr_assert_eq(rc, SQLITE_OK, "%s", msg ? msg : "?");
    sqlite3_free(msg);
    sqlite3_close(h);

    lm_results R;
    cr_assert_eq(lm_results_load(&R, db, -1, err, sizeof err), 0, "%s", err);
    cr_assert_eq(R.nclaims, 2);
    for (int k = 0; k < R.nclaims; k++) {
        const lm_claim_result *r = &R.claims[k].res;
        cr_assert_eq(r->repaired_verdict, -1);
        cr_assert_eq(r->probe_verdict, -1);
        cr_assert_eq(r->mutants_run, 0);
        cr_assert_eq(r->mutants_killed, 0);
        cr_assert_str_eq(r->mutants_note, "");
        for (int j = 0; j < r->nconfig; j++) {
            cr_assert_eq(r->cfg[j].reading, LM_READ_PAPER);
            cr_assert_str_eq(r->cfg[j].reading_note, "");
            cr_assert_eq(r->cfg[j].vacuous, 0);
        }
    }
    cr_assert_eq(R.claims[0].res.cfg[1].assumption_failed, 8); /* the older columns still read */
    lm_results_free(&R);

    cr_assert_eq(lm_report_build(db, -1, root, err, sizeof err), 0, "%s", err);
    cr_assert_gt(file_size("report/lemmata.pdf"), 10000);
    char *tex = read_text("report/lemmata.tex");
    cr_assert_not_null(tex);
    tex_has(tex, "Check strength was not measured in this run");
    tex_has(tex, "\\vd{vviolated}{violated}$^\\dagger$ & -- & ");
    tex_has(tex, ": 8 instances, 8 outside the hypotheses;");
    /* no reading but the paper's: no repaired or probe line */
    cr_assert_null(strstr(tex, "when repaired"));
    cr_assert_null(strstr(tex, "in probes"));
    free(tex);
}

/* ---- results of several runs ------------------------------------------------------------ */

static lm_claim gone = {.id = "tutorial/gone",
                        .title = "A claim this build no longer has",
                        .file = "lemmas/tutorial/gone.c",
                        .kind = LM_KIND_POINTWISE,
                        .source = "Tutorial",
                        .origin = "verbatim",
                        .confidence = "high"};

/* one run with seed `seed` holding claims[0..n) with verdicts v and worst ratios x, finished */
static long long plant_run(const char *db, uint64_t seed, int budget, lm_claim *const *claims,
                           const lm_verdict *v, const double *x, int n)
{
    char err[256] = "";
    lm_store *s = lm_store_open(db, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    lm_run_meta m;
    memset(&m, 0, sizeof m);
    snprintf(m.commit, sizeof m.commit, "commit%llu", (unsigned long long)seed);
    snprintf(m.date, sizeof m.date, "2024-05-0%d 07:08:09 UTC", (int)(seed % 9) + 1);
    m.seed = seed;
    m.budget = budget;
    long long run = lm_store_begin_run(s, &m, NULL);
    cr_assert_gt(run, 0);
    for (int k = 0; k < n; k++) {
        lm_claim_result r;
        lm_config_result cfg[1];
        memset(&r, 0, sizeof r);
        memset(cfg, 0, sizeof cfg);
        r.claim = claims[k];
        r.verdict = v[k];
        r.repaired_verdict = r.probe_verdict = -1;
        r.worst_ratio = x[k];
        r.instances = 4;
        r.seconds = 0.1;
        r.nconfig = 1;
        r.cfg = cfg;
        snprintf(cfg[0].config, sizeof cfg[0].config, "default");
        cfg[0].verdict = v[k];
        cfg[0].instances = 4;
        cfg[0].worst_ratio = x[k];
        cfg[0].worst_index = 0;
        cfg[0].ratios = "-0.3\n-0.5\n";
        snprintf(cfg[0].reproduce, sizeof cfg[0].reproduce, "bin/lemmata check %s --seed %llu", claims[k]->id,
                 (unsigned long long)seed);
        cr_assert_eq(lm_store_save_claim(s, run, &r), 0);
    }
    cr_assert_eq(lm_store_finish_run(s, run, 1.0), 0);
    lm_store_close(s);
    return run;
}

/* a live run of run `run` (no figure) */
static void plant_live(const char *db, long long run, const char *name, const char *summary)
{
    char err[256] = "";
    lm_store *s = lm_store_open(db, err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    cr_assert_eq(lm_store_save_live(s, run, name, "a live run", 10, 53, "", summary, 0.5), 0);
    lm_store_close(s);
}

/* run 1: three claims (one of them of a paper this build has, but no longer built) and three
 * live runs (one no paper of this build has); run 2, a `verify --only fake/`: one of the claims
 * again, now holding, and one of the live runs */
static void plant_two_runs(const char *db)
{
    lm_claim *c1[3] = {&fake1, &fake2, &gone};
    const lm_verdict v1[3] = {LM_V_VIOLATED, LM_V_CONSISTENT, LM_V_HOLDS};
    const double x1[3] = {1.5, 0.25, 0.125};
    cr_assert_eq(plant_run(db, 11, 64, c1, v1, x1, 3), 1);
    plant_live(db, 1, "t2-softmax", "first of t2");
    plant_live(db, 1, "t1-softmax-dense", "only in run 1");
    plant_live(db, 1, "zz-renamed-live", "a live run no longer built");
    lm_claim *c2[1] = {&fake1};
    const lm_verdict v2[1] = {LM_V_HOLDS};
    const double x2[1] = {0.75};
    cr_assert_eq(plant_run(db, 22, 8, c2, v2, x2, 1), 2);
    plant_live(db, 2, "t2-softmax", "second of t2");
}

static const lm_results_claim *claim_of(const lm_results *R, const char *id)
{
    for (int k = 0; k < R->nclaims; k++)
        if (!strcmp(R->claims[k].claim.id, id)) return &R->claims[k];
    return NULL;
}

Test(report, latest_result_of_every_claim)
{
    char db[160], err[512] = "";
    snprintf(db, sizeof db, "%s/results.db", root);
    plant_two_runs(db);

    /* the latest of each claim: fake/lemma_1 from run 2, the other from run 1; the claim this
     * build no longer has (its paper it does have) is left out */
    lm_results R;
    cr_assert_eq(lm_results_load(&R, db, -1, err, sizeof err), 0, "%s", err);
    cr_assert(R.merged);
    cr_assert_eq(R.nclaims, 2);
    const lm_results_claim *a = claim_of(&R, "fake/lemma_1"), *b = claim_of(&R, "other_paper/theorem_2");
    cr_assert(a && b);
    cr_assert_eq(a->run, 2);
    cr_assert_eq(a->res.verdict, LM_V_HOLDS);
    cr_assert_eq(a->res.worst_ratio, 0.75);
    cr_assert_eq(a->res.nconfig, 1);
    cr_assert_str_eq(a->res.cfg[0].reproduce, "bin/lemmata check fake/lemma_1 --seed 22");
    cr_assert_eq(b->run, 1);
    cr_assert_eq(b->res.verdict, LM_V_CONSISTENT);
    cr_assert_str_eq(b->res.cfg[0].reproduce, "bin/lemmata check other_paper/theorem_2 --seed 11");
    cr_assert_null(claim_of(&R, "tutorial/gone"));
    /* live runs likewise, in the order the build declares them */
    cr_assert_eq(R.nlive, 2);
    cr_assert_str_eq(R.live[0].name, "t1-softmax-dense");
    cr_assert_eq(R.live[0].run, 1);
    cr_assert_str_eq(R.live[1].name, "t2-softmax");
    cr_assert_eq(R.live[1].run, 2);
    cr_assert_str_eq(R.live[1].summary, "second of t2");
    cr_assert_eq(R.dropped, 2); /* tutorial/gone and zz-renamed-live */
    cr_assert_eq(R.newest, 2);
    cr_assert_eq(R.newest_stored, 1);
    /* each result's own provenance */
    cr_assert_eq(R.nruns, 2);
    const lm_results_run *r1 = lm_results_run_of(&R, 1), *r2 = lm_results_run_of(&R, 2);
    cr_assert(r1 && r2);
    cr_assert_eq(r1->meta.seed, 11);
    cr_assert_eq(r1->meta.budget, 64);
    cr_assert_str_eq(r1->meta.commit, "commit11");
    cr_assert_eq(r2->meta.seed, 22);
    cr_assert_eq(r2->meta.budget, 8);
    cr_assert_eq(r1->nclaims, 1);
    cr_assert_eq(r2->nclaims, 1);
    cr_assert_eq(r1->nlive, 1);
    cr_assert_eq(r2->nlive, 1);
    cr_assert_eq(r1->stored, 3);
    cr_assert_eq(R.id, 2); /* a tie: the newer run stands for the report */
    lm_results_free(&R);

    /* one run exactly: run 1 with its three claims as they were, run 2 with one */
    cr_assert_eq(lm_results_load(&R, db, 1, err, sizeof err), 0, "%s", err);
    cr_assert(!R.merged);
    cr_assert_eq(R.nclaims, 3);
    cr_assert_eq(claim_of(&R, "fake/lemma_1")->res.verdict, LM_V_VIOLATED);
    cr_assert_eq(claim_of(&R, "fake/lemma_1")->run, 1);
    cr_assert_not_null(claim_of(&R, "tutorial/gone"));
    cr_assert_eq(R.nlive, 3);
    cr_assert_eq(R.dropped, 0);
    cr_assert_eq(R.id, 1);
    cr_assert_eq(R.meta.seed, 11);
    cr_assert_eq(R.nruns, 1);
    lm_results_free(&R);
    cr_assert_eq(lm_results_load(&R, db, 2, err, sizeof err), 0, "%s", err);
    cr_assert_eq(R.nclaims, 1);
    cr_assert_eq(R.claims[0].res.verdict, LM_V_HOLDS);
    lm_results_free(&R);

    /* no such run: a clear error naming the runs there */
    cr_assert_neq(lm_results_load(&R, db, 3, err, sizeof err), 0);
    cr_assert_not_null(strstr(err, "no run 3"), "%s", err);
    cr_assert_not_null(strstr(err, "1 to 2"), "%s", err);
    cr_assert_neq(lm_report_build(db, 0, root, err, sizeof err), 0);
    cr_assert_not_null(strstr(err, "no run 0"), "%s", err);
    cr_assert_neq(lm_report_build(db, -7, root, err, sizeof err), 0);
    cr_assert_neq(lm_report_build(db, 999999, root, err, sizeof err), 0);
    cr_assert_not_null(strstr(err, "no run 999999"), "%s", err);
    cr_assert_eq(file_size("report/lemmata.pdf"), -1);
}

Test(report, partial_run_keeps_every_claim, .timeout = 300)
{
    write_text("lemmas/fake/lemma_1.c", good_file);
    write_text("lemmas/other_paper/theorem_2.c", "int theorem2;\n");
    write_text("lemmas/tutorial/gone.c", "/* \\claim{tutorial/gone}{Gone}\n * \\statement{$x \\le 1$.}\n */\nint gone;\n");
    char db[160], err[512] = "";
    snprintf(db, sizeof db, "%s/results.db", root);
    plant_two_runs(db);

    /* the default: both claims, each with its own run, and a note that the latest run
     * covered only part of them */
    cr_assert_eq(lm_report_build(db, -1, root, err, sizeof err), 0, "%s", err);
    char *tex = read_text("report/lemmata.tex");
    cr_assert_not_null(tex);
    char *id1 = tt("fake/lemma_1"), *id2 = tt("other_paper/theorem_2");
    tex_has(tex, id1);
    tex_has(tex, id2);
    tex_has(tex, "\\textbf{The latest run, 2, covered only part of the claims:} 1 of the ");
    tex_has(tex, "(\\texttt{fake/}: 1)");
    tex_has(tex, "they come from 2 runs");
    tex_has(tex, "Result of run 2 (2024-05-05 07:08:09 UTC; commit \\texttt{commit22}; seed 22; budget 8;");
    tex_has(tex, "Result of run 1 (2024-05-03 07:08:09 UTC; commit \\texttt{commit11}; seed 11; budget 64;");
    tex_has(tex, " s, run 2}"); /* the verdict box of fake/lemma_1 */
    tex_has(tex, " s, run 1}"); /* and of other_paper/theorem_2 */
    tex_has(tex, "2 results of earlier runs are left out");
    /* each live run with its own run: t2-softmax of run 2, t1-softmax-dense of run 1 */
    tex_has(tex, "second of t2 (0.5~s, run 2: seed 22, budget 8.)");
    tex_has(tex, "only in run 1 (0.5~s, run 1: seed 11, budget 64.)");
    cr_assert_null(strstr(tex, "first of t2"));
    tex_has(tex, "2 & 2024-05-05 07:08:09 UTC & \\texttt{commit22} & 22 & 8 & ");
    cr_assert_null(strstr(tex, "tutorial/\\allowbreak{}gone"));
    free(tex);
    free(id2);
    /* the claim left out has no edition of its paper either */
    cr_assert_eq(file_size("report/tutorial.pdf"), -1);

    /* one past run exactly: run 1, three claims, the one of the tutorial paper in its own
     * edition with its code in an appendix */
    cr_assert_eq(lm_report_build(db, 1, root, err, sizeof err), 0, "%s", err);
    tex = read_text("report/lemmata.tex");
    cr_assert_not_null(tex);
    tex_has(tex, "This report weaves run 1 exactly (\\texttt{lemmata report --run 1}).");
    tex_has(tex, "The database holds newer runs (up to 2)");
    tex_has(tex, "\\texttt{tutorial/\\allowbreak{}gone}");
    tex_has(tex, "Result of run 1 (");
    cr_assert_null(strstr(tex, "Result of run 2 ("));
    tex_has(tex, "Run 1 covered only part of the claims:} 3 of the "); /* this build has claims it lacks */
    free(tex);
    cr_assert_gt(file_size("report/tutorial.pdf"), 5000);
    char *paper = read_text("report/build/tutorial.tex");
    cr_assert_not_null(paper);
    tex_has(paper, "\\lmpart{Appendix: data and code of the claims}");
    tex_has(paper, "\\hyperlink{code:tutorial/gone}");
    tex_has(paper, "\\hypertarget{code:tutorial/gone}{}");
    tex_has(paper, "\\hyperlink{claim:tutorial/gone}");
    tex_has(paper, "\\hypertarget{claim:tutorial/gone}{}");
    tex_has(paper, "\\lmL{4}{\\lmK{int}\\lmB{1}gone;}");
    cr_assert_null(strstr(paper, id1)); /* one paper only */
    free(paper);
    free(id1);
}
