/* test_support.h -- running a claim, or the command line, from a Criterion test. */
#ifndef LM_TEST_SUPPORT_H
#define LM_TEST_SUPPORT_H

#include "lm_verify.h"
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <ftw.h>
#include <sys/wait.h>
#include <unistd.h>

/* the value of measure `name` in a "name=value\n" list (a configuration's measures); NaN
 * when absent */
static inline double lm_test_measure(const char *measures, const char *name)
{
    size_t l = strlen(name);
    for (const char *p = measures; p && *p;) {
        const char *nl = strchr(p, '\n');
        if (!nl) nl = p + strlen(p);
        if ((size_t)(nl - p) > l && !strncmp(p, name, l) && p[l] == '=') return strtod(p + l + 1, NULL);
        p = *nl ? nl + 1 : nl;
    }
    return (double)NAN;
}

/* Run claim `id` with a small budget.  sets: NULL-terminated "k=v" list (may
 * be NULL); config: NULL = all configurations.  Fails the test on unknown
 * ids/params.  The caller clears the result.  lm_test_run_mutant: the same under
 * a mutant (every right-hand side times scale; flip: every inequality reversed). */
static inline lm_claim_result lm_test_run_mutant(const char *id, const char *const *sets,
                                                 const char *config, int budget, double scale,
                                                 int flip)
{
    const lm_claim *c = lm_claim_find(id);
    cr_assert_not_null(c, "claim %s is not registered", id);
    lm_run_opts o;
    lm_run_opts_default(&o);
    o.budget = budget;
    o.quick = 1;
    o.only_config = config;
    o.shrink = 0; /* verdicts only: shrinking has its own tests (test_shrink.c) and costs replays */
    o.mutate_scale = scale;
    o.mutate_flip = flip;
    for (int k = 0; sets && sets[k]; k++) {
        int idx;
        double v;
        char err[256];
        cr_assert_eq(lm_claim_parse_set(c, sets[k], &idx, &v, err, sizeof err), 0, "%s", err);
        o.set_name[o.nset] = c->params[idx].name;
        o.set_val[o.nset++] = v;
    }
    lm_claim_result r;
    cr_assert_eq(lm_run_claim(&r, c, &o), 0, "claim %s did not run (config %s)", id,
                 config ? config : "all");
    return r;
}

static inline lm_claim_result lm_test_run(const char *id, const char *const *sets,
                                          const char *config, int budget)
{
    return lm_test_run_mutant(id, sets, config, budget, 1.0, 0);
}

/* a claim as stated must produce a real verdict, never `error` */
static inline void lm_test_not_error(const char *id, const char *config, int budget)
{
    lm_claim_result r = lm_test_run(id, NULL, config, budget);
    for (int k = 0; k < r.nconfig; k++)
        cr_expect_neq(r.cfg[k].verdict, LM_V_ERROR, "%s [%s] came out error: %s", id,
                      r.cfg[k].config, r.cfg[k].detail);
    lm_claim_result_clear(&r);
}

/* with a deliberately wrong constant the claim must come out `want` */
static inline void lm_test_expect(const char *id, const char *const *sets, const char *config,
                                  int budget, lm_verdict want)
{
    lm_claim_result r = lm_test_run(id, sets, config, budget);
    cr_expect_eq(r.verdict, want, "%s with wrong constant: got %s, want %s (%s)", id,
                 lm_verdict_name(r.verdict), lm_verdict_name(want),
                 r.nconfig ? r.cfg[0].detail : "");
    lm_claim_result_clear(&r);
}

/* the binary under test: $LEMMATA_BIN, else bin/lemmata */
static inline const char *lm_test_bin(void)
{
    const char *b = getenv("LEMMATA_BIN");
    return b && *b ? b : "bin/lemmata";
}

/* run "bin args", capture stdout+stderr (up to cap), return exit status */
static inline int lm_test_cli(char *out, size_t cap, const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", lm_test_bin(), args);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static inline int lm_test_rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* the whole file dir/rel, NUL-terminated; NULL when it cannot be read */
static inline char *lm_test_read_under(const char *dir, const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s) s[n] = 0;
    fclose(f);
    return s;
}

/* removes a test's temporary directory and everything in it, links not followed (not rm -rf:
 * a test may have emptied PATH); 0 on success */
static inline int lm_test_rmtree(const char *dir)
{
    return nftw(dir, lm_test_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* `lemmata ARGS` must succeed */
static inline void lm_test_ok(const char *args)
{
    static char out[65536];
    int rc = lm_test_cli(out, sizeof out, args);
    cr_assert_eq(rc, 0, "lemmata %s: exit %d: %s", args, rc, out);
}

/* the file's text (the caller frees); the test fails when it cannot be read */
static inline char *lm_test_slurp(const char *path)
{
    char *s = lm_test_read_under("/", path);
    cr_assert_not_null(s, "cannot read %s", path);
    return s;
}

/* the Python of the numpy cross-checks (Debian's, where python3-numpy installs) */
#define LM_TEST_PY "/usr/bin/python3"

/* 1 when LM_TEST_PY imports numpy */
static inline int lm_test_have_numpy(void)
{
    return access(LM_TEST_PY, X_OK) == 0 &&
           system(LM_TEST_PY " -c 'import numpy' >/dev/null 2>&1") == 0;
}

/* the entries of dir, "." and ".." not counted; -1 when it cannot be read */
static inline int lm_test_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

/* `lemmata train ARGS --out DIR/o.csv --iterates DIR/it.json` exits 2 with one line holding
 * needle (and needle2 when not NULL), without ran (a line only a run prints; NULL: none), and
 * leaves nothing new in dir */
static inline void lm_test_train_refused(const char *dir, const char *args, const char *needle,
                                         const char *needle2, const char *ran)
{
    char out[8192], cmd[1536];
    int before = lm_test_entries(dir);
    snprintf(cmd, sizeof cmd, "train %s --out %s/o.csv --iterates %s/it.json", args, dir, dir);
    int rc = lm_test_cli(out, sizeof out, cmd);
    cr_expect_eq(rc, 2, "'%s' exited %d, want 2: %s", args, rc, out);
    cr_expect(strstr(out, needle) != NULL, "'%s' said '%s', want '%s'", args, out, needle);
    if (needle2) cr_expect(strstr(out, needle2) != NULL, "'%s' said '%s', want '%s'", args, out, needle2);
    cr_expect(strchr(out, '\n') == out + strlen(out) - 1, "'%s': want one line, got: %s", args, out);
    if (ran) cr_expect(strstr(out, ran) == NULL, "'%s' ran: %s", args, out);
    cr_expect_eq(lm_test_entries(dir), before, "'%s' left a file behind", args);
}
#endif
