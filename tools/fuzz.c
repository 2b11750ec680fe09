/* fuzz.c -- the hostile-input sweep (`make fuzz`): every claim x every parameter x
 * {0, -1, 1, max, max+1, 1e300, NaN, "abc"}, and every size a claim asks for x
 * {0, -1, 1, max, max+1, 100000}.
 *
 * A value is first given to lm_claim_parse_set, the function behind `--set` (and for a
 * size, to the runner's bound, behind `--size`):
 *   - a value outside the declared range must be refused with a message that names
 *     the range (the command line turns that into exit 2) -- accepting it is a failure;
 *   - a value inside the range is run: the claim's first instance of every
 *     configuration, at the quick budget, in a child process under a time limit.
 *     The child must come back by itself: a signal (segfault, abort, a sanitizer
 *     report under the ASan/UBSan build), a run over the limit, an out-of-memory exit
 *     or a runner refusal of an in-range value is a failure.
 * Verdicts do not matter here (a parameter at the end of its range may well make a
 * claim fail); only that the program answers.
 *
 * usage: lemmata-fuzz [--timeout S] [-j N] [--no-run] [PREFIX...]
 * prints one line per failure and a closing "N passed, N failed" line; exit 1 on any
 * failure.
 */
#include "lm_verify.h"
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int timeout_s = 60;
static int norun;
static long npass, nfail, nrun, nrefused;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* every failure is printed when it happens and again in the closing summary, so
 * that a log cut to its last lines (a CI tail) still names what failed */
#define FUZZ_KEEP 64
static char kept[FUZZ_KEEP][512];
static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL ");
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
    va_end(ap);
    if (nfail < FUZZ_KEEP) {
        va_start(ap, fmt);
        vsnprintf(kept[nfail], sizeof kept[nfail], fmt, ap);
        va_end(ap);
    }
    nfail++;
}

/* a child's outcome: 0 ran (or refused with rc 2 when refuse_ok), else a failure */
typedef struct {
    pid_t pid;
    double t0;
    char what[200];
    int refuse_ok; /* a refusal (exit 2) is the right answer */
} job;

static job jobs[64];
static int njobs, maxjobs = 2;

static void reap(int block)
{
    for (;;) {
        int st;
        pid_t p = waitpid(-1, &st, block ? 0 : WNOHANG);
        if (p <= 0) {
            if (p < 0 && errno == EINTR) continue;
            return;
        }
        int k = 0;
        while (k < njobs && jobs[k].pid != p) k++;
        if (k == njobs) continue;
        job j = jobs[k];
        jobs[k] = jobs[--njobs];
        double sec = now_s() - j.t0;
        if (WIFSIGNALED(st)) {
            if (WTERMSIG(st) == SIGALRM || WTERMSIG(st) == SIGKILL)
                fail("%s: over the %d s limit (%.0f s)", j.what, timeout_s, sec);
            else
                fail("%s: killed by signal %d (%s)", j.what, WTERMSIG(st), strsignal(WTERMSIG(st)));
        } else {
            int rc = WEXITSTATUS(st);
            if (rc == 0 && !j.refuse_ok) npass++;
            else if (rc == 2 && j.refuse_ok) npass++;
            else if (rc == 2) fail("%s: an in-range value was refused by the runner", j.what);
            else if (rc == 0) fail("%s: an out-of-range size was run, not refused", j.what);
            else fail("%s: exit status %d", j.what, rc);
        }
        if (!block) continue;
        return;
    }
}

/* runs claim c with its parameters as in o, first instance of each configuration, in a
 * child; what says what is tried */
static void run_child(const lm_claim *c, const lm_run_opts *o, const char *what, int refuse_ok)
{
    while (njobs >= maxjobs) reap(1);
    fflush(stdout);
    fflush(stderr);
    pid_t p = fork();
    if (p < 0) { fail("%s: fork: %s", what, strerror(errno)); return; }
    if (p == 0) {
        alarm((unsigned)timeout_s);
        if (!freopen("/dev/null", "w", stdout)) _exit(4);
        lm_claim_result r;
        int rc = lm_run_claim(&r, c, o);
        if (rc == 2) {
            fprintf(stderr, "fuzz: %s: refused: %s\n", what, r.error);
            _exit(2);
        }
        if (rc) _exit(5);
        lm_claim_result_clear(&r);
        _exit(0);
    }
    job *j = &jobs[njobs++];
    j->pid = p;
    j->t0 = now_s();
    j->refuse_ok = refuse_ok;
    snprintf(j->what, sizeof j->what, "%s", what);
    nrun++;
}

static void base_opts(lm_run_opts *o)
{
    lm_run_opts_default(o);
    o->quick = 1;
    o->budget = 8;
    o->only_instance = 0;
    o->shrink = 0;
    o->progress = 0;
}

/* "max" and "max+1" of a range as strings; 0 when there is none */
static int range_values(const lm_range *r, char *mx, char *mx1, size_t n)
{
    if (isinf(r->hi)) {
        snprintf(mx, n, "1e300");
        mx1[0] = 0;
        return 1;
    }
    double hi = r->hi_open ? (r->integer ? r->hi - 1 : nextafter(r->hi, -INFINITY)) : r->hi;
    double h1 = r->integer ? hi + 1 : hi + fmax(1.0, fabs(hi) * 1e-6);
    snprintf(mx, n, "%.17g", hi);
    snprintf(mx1, n, "%.17g", h1);
    return 1;
}

static void fuzz_param(const lm_claim *c, int k)
{
    const lm_param_def *p = &c->params[k];
    lm_range r;
    if (lm_param_range(&r, p)) {
        fail("%s %s: no valid range declared ('%s')", c->id, p->name, p->range ? p->range : "NULL");
        return;
    }
    if (!lm_range_contains(&r, p->def)) {
        fail("%s %s: default %g is outside its range %s", c->id, p->name, p->def, p->range);
        return;
    }
    char mx[40], mx1[40];
    range_values(&r, mx, mx1, sizeof mx);
    const char *vals[] = {"0", "-1", "1", mx, mx1, "1e300", "NaN", "abc", " 1", "1x", ""};
    const char *seen[16];
    int nseen = 0;
    for (size_t v = 0; v < sizeof vals / sizeof vals[0]; v++) {
        if (!vals[v][0] && v != sizeof vals / sizeof vals[0] - 1) continue; /* no max+1 */
        int dup = 0;
        for (int s = 0; s < nseen; s++) dup |= !strcmp(seen[s], vals[v]);
        if (dup) continue;
        seen[nseen++] = vals[v];
        char kv[128], err[256] = "";
        snprintf(kv, sizeof kv, "%s=%s", p->name, vals[v]);
        int idx;
        double val;
        int prc = lm_claim_parse_set(c, kv, &idx, &val, err, sizeof err);
        char *end;
        double dv = strtod(vals[v], &end);
        int numeric = vals[v][0] && !*end && vals[v][0] != ' ';
        int inside = numeric && lm_range_contains(&r, dv); /* a switch's range is its indices */
        if (prc != 0) {
            nrefused++;
            if (inside) fail("%s --set %s: an in-range value was refused: %s", c->id, kv, err);
            else if (!err[0] || strchr(err, '\n')) fail("%s --set %s: refusal without a one-line message", c->id, kv);
            else npass++;
            continue;
        }
        if (!inside) {
            fail("%s --set %s: an out-of-range value was accepted (as %g)", c->id, kv, val);
            continue;
        }
        if (norun || val == p->def) { npass++; continue; } /* the default runs in fuzz_sizes */
        lm_run_opts o;
        base_opts(&o);
        o.set_name[0] = p->name;
        o.set_val[0] = val;
        o.nset = 1;
        char what[200];
        snprintf(what, sizeof what, "%s --set %s", c->id, kv);
        run_child(c, &o, what, 0);
    }
}

/* the defaults (first instance of every configuration), which also tells the sizes the
 * claim asks for; then each size at its ends and past them (in a child: a claim that
 * crashes at its defaults is reported as such) */
static void fuzz_sizes(const lm_claim *c)
{
    int pfd[2];
    if (pipe(pfd)) { fail("%s: pipe", c->id); return; }
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) {
        close(pfd[0]);
        alarm((unsigned)timeout_s);
        lm_run_opts o;
        base_opts(&o);
        lm_claim_result r;
        char buf[200] = "";
        if (lm_run_claim(&r, c, &o) == 0) {
            snprintf(buf, sizeof buf, "%s", r.sizes);
            lm_claim_result_clear(&r);
        }
        ssize_t w = write(pfd[1], buf, strlen(buf));
        (void)w;
        _exit(0);
    }
    close(pfd[1]);
    char buf[256];
    ssize_t got = 0, n;
    while ((n = read(pfd[0], buf + got, sizeof buf - 1 - (size_t)got)) > 0) got += n;
    buf[got > 0 ? got : 0] = 0;
    close(pfd[0]);
    int st;
    while (waitpid(p, &st, 0) < 0 && errno == EINTR) {}
    if (!WIFEXITED(st) || WEXITSTATUS(st)) {
        fail("%s: the default first instance did not come back (status %d)", c->id, st);
        return;
    }
    /* "N 1..16, n 1..16" */
    for (char *s = buf; *s;) {
        char name[48];
        int mn, mx, len = 0;
        if (sscanf(s, "%47s %d..%d%n", name, &mn, &mx, &len) != 3) break;
        s += len;
        while (*s == ',' || *s == ' ') s++;
        int vals[] = {0, -1, 1, mn, mx, mx + 1, 100000};
        for (size_t v = 0; v < sizeof vals / sizeof vals[0]; v++) {
            int dup = 0;
            for (size_t u = 0; u < v; u++) dup |= vals[u] == vals[v];
            if (dup) continue;
            char what[200];
            snprintf(what, sizeof what, "%s --size %s=%d", c->id, name, vals[v]);
            if (vals[v] < 1 || vals[v] > 100000) { /* the command line refuses these itself */
                npass++;
                continue;
            }
            if (norun) { npass++; continue; }
            lm_run_opts o;
            base_opts(&o);
            static char nm[48];
            snprintf(nm, sizeof nm, "%s", name);
            o.size_name[0] = nm;
            o.size_val[0] = vals[v];
            o.nsize = 1;
            run_child(c, &o, what, vals[v] < mn || vals[v] > mx);
        }
    }
}

int main(int argc, char **argv)
{
    const char *pre[64];
    int npre = 0;
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--timeout") && k + 1 < argc) timeout_s = atoi(argv[++k]);
        else if (!strcmp(argv[k], "-j") && k + 1 < argc) maxjobs = atoi(argv[++k]);
        else if (!strcmp(argv[k], "--no-run")) norun = 1;
        else if (argv[k][0] == '-') {
            fprintf(stderr, "usage: lemmata-fuzz [--timeout S] [-j N] [--no-run] [PREFIX...]\n");
            return 2;
        } else if (npre < 64) pre[npre++] = argv[k];
    }
    if (timeout_s < 1) timeout_s = 1;
    if (maxjobs < 1) maxjobs = 1;
    if (maxjobs > 64) maxjobs = 64;
    lm_alloc_install();
    lm_mat_blas_threads(1);
    double t0 = now_s();
    int nclaims = 0;
    for (int i = 0; i < lm_registry_count; i++) {
        const lm_claim *c = lm_registry[i];
        int take = npre == 0;
        for (int k = 0; k < npre; k++) take |= !strncmp(c->id, pre[k], strlen(pre[k]));
        if (!take) continue;
        nclaims++;
        for (int k = 0; c->params && c->params[k].name; k++) fuzz_param(c, k);
        if (!norun) fuzz_sizes(c);
        fprintf(stderr, "\rfuzz: %-44s %5ld runs %4ld failures %6.0f s", c->id, nrun, nfail, now_s() - t0);
    }
    while (njobs) reap(1);
    fprintf(stderr, "\n");
    printf("fuzz: %d claims, %ld values refused at parse time, %ld runs in children (limit %d s each), "
           "%.0f s\n", nclaims, nrefused, nrun, timeout_s, now_s() - t0);
    for (long k = 0; k < nfail && k < FUZZ_KEEP; k++) printf("FAIL %s\n", kept[k]);
    if (nfail > FUZZ_KEEP) printf("(and %ld more failures above)\n", nfail - FUZZ_KEEP);
    printf("%ld passed, %ld failed\n", npass, nfail);
    return nfail ? 1 : 0;
}
