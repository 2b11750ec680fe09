/* Exit statuses (issue 15, items 13, 15 and 16), the same for every command:
 *   0 the work was done, 1 --strict and a violated claim, 2 a usage error, 3 the work could
 *   not be completed, 130 interrupted;
 * every error is one line on stderr.  Plus one verify at a time per database (a lock beside
 * it), and verify's files going beside the database or under --out-dir, never into the
 * current directory. */
#include "test_support.h"
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void one_line(const char *what, const char *out)
{
    cr_expect(strncmp(out, "lemmata: ", 9) == 0 && strchr(out, '\n') == out + strlen(out) - 1,
              "%s: want one line 'lemmata: ...', got: %s", what, out);
}

static void expect_status(int want, const char *args, const char *needle)
{
    char out[16384];
    int rc = lm_test_cli(out, sizeof out, args);
    cr_expect_eq(rc, want, "'%s' exited %d, want %d: %s", args, rc, want, out);
    if (needle) cr_expect(strstr(out, needle) != NULL, "'%s' said '%s', want '%s'", args, out, needle);
    one_line(args, out);
}

static void rm_rf(const char *dir)
{
    cr_expect_eq(lm_test_rmtree(dir), 0, "could not remove %s", dir);
}

/* the binary as an absolute path (the tests below change directory) */
static const char *abs_bin(void)
{
    static char path[PATH_MAX];
    if (!realpath(lm_test_bin(), path)) cr_assert_fail("cannot resolve %s", lm_test_bin());
    return path;
}

/* every command answers --help and -h with its own usage on stdout and exit 0: the usage line
 * names the command and says more than its name */
Test(cli_exit, every_command_has_help)
{
    static const char *const cmds[] = {"papers", "list",      "params", "check",  "tighten", "mutate",
                                       "constants", "train", "verify", "report", "new", "merge"};
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++)
        for (int h = 0; h < 2; h++) {
            char args[200], out[16384], want[100];
            snprintf(args, sizeof args, "%s %s", cmds[k], h ? "-h" : "--help");
            int rc = lm_test_cli(out, sizeof out, args);
            cr_expect_eq(rc, 0, "'%s' exited %d: %s", args, rc, out);
            snprintf(want, sizeof want, "usage: lemmata %s", cmds[k]);
            cr_expect(strncmp(out, want, strlen(want)) == 0, "'%s' printed: %.200s", args, out);
            /* a first line with more than "usage: lemmata CMD", and more lines after it */
            const char *nl = strchr(out, '\n');
            cr_expect(nl && nl - out > (long)strlen(want) + 4 && strlen(nl) > 40, "'%s': no usage: %.200s", args,
                      out);
        }
    /* after other arguments too, and with the exit statuses */
    char out[16384];
    cr_expect_eq(lm_test_cli(out, sizeof out, "check dynamics/lemma1 --help"), 0, "%s", out);
    cr_expect(strstr(out, "exit status:") && strstr(out, "130"), "%s", out);
    cr_expect_eq(lm_test_cli(out, sizeof out, "train t2-softmax --help"), 0, "%s", out);
    cr_expect(strncmp(out, "usage: lemmata train", 20) == 0, "%s", out);
    cr_expect_eq(lm_test_cli(out, sizeof out, "--help"), 0, "%s", out);
    cr_expect(strstr(out, "  3    the work could not be completed") != NULL, "%s", out);
}

/* usage errors are exit 2 and one line: malformed numbers, missing values, what a run refuses */
Test(cli_exit, usage_errors_are_status_2, .timeout = 120)
{
    /* --seed: digits only, below 2^64 (" -1" used to become 18446744073709551615) */
    static const char *const seeds[] = {"' -1'", "-1", "+1", "''", "1x", "0x10", "18446744073709551616",
                                        "99999999999999999999999", "1e3", "' 5'", "'5 '"};
    for (size_t k = 0; k < sizeof seeds / sizeof seeds[0]; k++) {
        char args[200];
        snprintf(args, sizeof args, "check dynamics/lemma1 --quick --seed %s", seeds[k]);
        expect_status(2, args, "--seed needs a non-negative integer");
        snprintf(args, sizeof args, "train t2-softmax --steps 1 --seed %s", seeds[k]);
        expect_status(2, args, "--seed");
        snprintf(args, sizeof args, "verify --no-report --seed %s --db /tmp/lm_cli_exit_never.db", seeds[k]);
        expect_status(2, args, "--seed");
    }
    /* numbers: blanks, signs, NaN, huge, empty */
    expect_status(2, "check dynamics/lemma1 --budget ' 5'", "--budget");
    expect_status(2, "check dynamics/lemma1 --budget +5", "--budget");
    expect_status(2, "check dynamics/lemma1 --budget 0", "--budget");
    expect_status(2, "check dynamics/lemma1 --budget 99999999999999999999", "--budget");
    expect_status(2, "check dynamics/lemma1 --prec NaN", "--prec");
    expect_status(2, "check dynamics/lemma1 --instance -1", "--instance");
    expect_status(2, "tighten dynamics/theorem1 alpha_scale --rtol nan", "--rtol");
    expect_status(2, "tighten dynamics/theorem1 alpha_scale --rtol ' 0.1'", "--rtol");
    expect_status(2, "tighten dynamics/theorem1 alpha_scale --rtol inf", "--rtol");
    expect_status(2, "verify --no-report -j ' 2' --db /tmp/lm_cli_exit_never.db", "-j");
    /* a missing value after every option */
    static const char *const missing[] = {
        "check dynamics/lemma1 --prec",     "check dynamics/lemma1 --seed",  "check dynamics/lemma1 --budget",
        "check dynamics/lemma1 --set",      "check dynamics/lemma1 --config", "check dynamics/lemma1 --instance",
        "check dynamics/lemma1 --size",     "check dynamics/lemma1 --round",  "train t2-softmax --steps",
        "train t2-softmax --prec",          "train t2-softmax --seed",        "train t2-softmax --set",
        "train t2-softmax --drift",         "train t2-softmax --out",         "tighten dynamics/theorem1 alpha_scale --seed",
        "tighten dynamics/theorem1 alpha_scale --budget", "tighten dynamics/theorem1 alpha_scale --rtol",
        "tighten dynamics/theorem1 alpha_scale --max-runs", "tighten dynamics/theorem1 alpha_scale --set",
        "tighten dynamics/theorem1 alpha_scale --config", "verify --no-report --only", "verify --no-report -j",
        "verify --no-report --seed",        "verify --no-report --budget",   "verify --no-report --db",
        "verify --no-report --out-dir",     "report --db",                   "report --out-dir",
        "check dynamics/lemma1 --config --json", "train t2-softmax --out --seed", "verify --no-report --db --quick",
    };
    for (size_t k = 0; k < sizeof missing / sizeof missing[0]; k++) expect_status(2, missing[k], "needs");
    /* a run refuses what it cannot take: usage errors, before any output file is made */
    expect_status(2, "train pc-scaling --steps 10", "fixed length");
    expect_status(2, "train pc-scaling --prec 128", "double only");
    expect_status(2, "train pr-fig2a --drift 256", "double only");
    expect_status(2, "train t2-softmax --frobnicate", "unknown option");
    /* --instance past the configuration's count: exit 2 with the count */
    expect_status(2, "check dynamics/lemma1 --quick --instance 9999", "instances per configuration");
    cr_expect_eq(access("/tmp/lm_cli_exit_never.db", F_OK), -1, "a rejected command created a database");
}

/* more than 256 claim ids: none is dropped (the 300th, unknown, is still found) */
Test(cli_exit, any_number_of_claim_ids)
{
    static char args[300 * 20 + 100];
    args[0] = 0;
    strcat(args, "check");
    for (int k = 0; k < 299; k++) strcat(args, " dynamics/lemma1");
    strcat(args, " dynamics/nosuch --quick 2>&1");
    char cmd[sizeof args + PATH_MAX], out[4096];
    snprintf(cmd, sizeof cmd, "%s %s", lm_test_bin(), args); /* longer than lm_test_cli takes */
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f);
    size_t n = fread(out, 1, sizeof out - 1, f);
    out[n] = 0;
    int st = pclose(f);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 2, "status %d: %s", st, out);
    cr_expect_str_eq(out, "lemmata: unknown claim id 'dynamics/nosuch' (see: lemmata list)\n");
}

/* a live run that fails numerically is exit 3 (was 1), one line, no file left */
Test(cli_exit, train_failure_is_status_3, .timeout = 60)
{
    char d[] = "/tmp/lm_cli_exit_XXXXXX", args[600];
    cr_assert_not_null(mkdtemp(d));
    /* a step size in range that diverges: the loss stops being finite after a few dozen steps */
    snprintf(args, sizeof args, "train t2-softmax --steps 50 --set eta=100 --out %s/run.csv", d);
    expect_status(3, args, "lemmata: train t2-softmax: loss or gradient not finite");
    cr_expect_eq(lm_test_entries(d), 0, "a failed run left a file");
    rm_rf(d);
}

/* tighten refuses what is not a constant, naming the claim's constants */
Test(cli_exit, tighten_takes_only_constants)
{
    expect_status(2, "tighten mirror/definition1 formula", "mirror/definition1 has no constants");
    expect_status(2, "tighten dynamics/lemma1 kron_I", "dynamics/lemma1 kron_I is not a constant (a switch); its constants are: term2_sign");
    expect_status(2, "tighten dynamics/theorem1 T", "dynamics/theorem1 T is not a constant; its constants are: alpha_scale");
    expect_status(2, "tighten dynamics/theorem1 kernel", "its constants are: alpha_scale");
    expect_status(2, "tighten dynamics/theorem1 nosuch", "no parameter 'nosuch'");
}

/* tighten prints one progress line per claim run on stderr (and the answer on stdout) */
Test(cli_exit, tighten_reports_progress, .timeout = 300)
{
    char out[16384], cmd[1200];
    /* stderr alone */
    snprintf(cmd, sizeof cmd, "%s tighten pruning/lemmaD.4 coef --quick --max-runs 4 --json 2>&1 >/dev/null",
             lm_test_bin());
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f);
    size_t n = fread(out, 1, sizeof out - 1, f);
    out[n] = 0;
    int st = pclose(f);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d: %s", st, out);
    int lines = 0;
    for (const char *p = out; (p = strstr(p, "  run ")); p++) lines++;
    cr_expect_eq(lines, 4, "want one line per claim run: %s", out);
    cr_expect(strstr(out, "run  1/4  pruning/lemmaD.4 coef = 2") != NULL, "%s", out);
    cr_expect(strstr(out, "bracket: passes at") != NULL, "%s", out);
}

/* ---- verify: one at a time per database ---- */

/* holds the lock of db (as a running verify would, with our pid in it): the descriptor */
static int hold_lock(const char *db)
{
    char path[700];
    snprintf(path, sizeof path, "%s.lock", db);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666); /* our children must not hold it */
    cr_assert_geq(fd, 0);
    cr_assert_eq(flock(fd, LOCK_EX | LOCK_NB), 0);
    char buf[64];
    int n = snprintf(buf, sizeof buf, "%ld verify\n", (long)getpid());
    cr_assert_eq(ftruncate(fd, 0), 0);
    cr_assert_eq(pwrite(fd, buf, (size_t)n, 0), n);
    return fd;
}

/* starts `BIN args...` with stdout and stderr to file log; returns the pid */
static pid_t start(const char *log, const char *const *args)
{
    pid_t p = fork();
    cr_assert_neq(p, -1);
    if (p == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (fd < 0) _exit(99);
        dup2(fd, 1);
        dup2(fd, 2);
        char *argv[32];
        int n = 0;
        argv[n++] = (char *)lm_test_bin();
        for (int k = 0; args[k] && n < 31; k++) argv[n++] = (char *)args[k];
        argv[n] = NULL;
        execv(lm_test_bin(), argv);
        _exit(98);
    }
    return p;
}

static int slurp(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        buf[0] = 0;
        return -1;
    }
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = 0;
    fclose(f);
    return (int)n;
}

static int wait_status(pid_t p)
{
    int st = 0;
    waitpid(p, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

Test(cli_exit, a_second_verify_waits_or_with_no_wait_exits_2, .timeout = 300)
{
    char d[] = "/tmp/lm_cli_exit_XXXXXX", db[600], log[600], args[1200], out[16384], want[800];
    cr_assert_not_null(mkdtemp(d));
    snprintf(db, sizeof db, "%s/results/a.db", d);
    snprintf(log, sizeof log, "%s/second.log", d);
    snprintf(args, sizeof args, "%s/results", d);
    cr_assert_eq(mkdir(args, 0777), 0);
    int fd = hold_lock(db);
    /* --no-wait: exit 2 at once, naming the holder's pid; nothing is done */
    snprintf(args, sizeof args, "verify --quick --only dynamics/lemma1 --no-report --no-wait --db %s", db);
    snprintf(want, sizeof want, "lemmata: another verify is running on %s (pid %ld)\n", db, (long)getpid());
    int rc = lm_test_cli(out, sizeof out, args);
    cr_expect_eq(rc, 2, "exit %d: %s", rc, out);
    cr_expect_str_eq(out, want);
    cr_expect_neq(access(db, F_OK), 0, "--no-wait created the database");
    /* without: it says so, waits for the lock, then does the work */
    const char *argv[] = {"verify", "--quick", "--only", "dynamics/lemma1", "--no-report", "--db", db, NULL};
    pid_t p = start(log, argv);
    snprintf(want, sizeof want, "lemmata: another verify is running on %s (pid %ld); waiting\n", db, (long)getpid());
    int seen = 0;
    for (int t = 0; t < 1000 && !seen; t++) {
        slurp(log, out, sizeof out);
        seen = strstr(out, want) != NULL;
        if (!seen) usleep(10000);
    }
    cr_expect(seen, "no waiting message: %s", out);
    usleep(300000);
    cr_expect_eq(waitpid(p, NULL, WNOHANG), 0, "the second verify did not wait");
    cr_expect_neq(access(db, F_OK), 0, "the waiting verify touched the database");
    close(fd); /* the lock goes with the descriptor */
    rc = wait_status(p);
    slurp(log, out, sizeof out);
    cr_expect_eq(rc, 0, "exit %d: %s", rc, out);
    cr_expect(strstr(out, "dynamics/lemma1") != NULL, "%s", out);
    rm_rf(d);
}

/* two verifies on one database at once: both finish (one waits for the other), and a kill -9
 * leaves no stale lock */
Test(cli_exit, two_verifies_at_once_both_finish, .timeout = 300)
{
    char d[] = "/tmp/lm_cli_exit_XXXXXX", db[600], log1[600], log2[600], out1[16384], out2[16384];
    cr_assert_not_null(mkdtemp(d));
    snprintf(db, sizeof db, "%s/results/a.db", d);
    snprintf(log1, sizeof log1, "%s/1.log", d);
    snprintf(log2, sizeof log2, "%s/2.log", d);
    const char *argv[] = {"verify", "--quick", "--only", "dynamics/lemma1", "--no-report", "-j", "1", "--db", db, NULL};
    pid_t a = start(log1, argv);
    pid_t b = start(log2, argv);
    int ra = wait_status(a), rb = wait_status(b);
    slurp(log1, out1, sizeof out1);
    slurp(log2, out2, sizeof out2);
    cr_expect_eq(ra, 0, "first: exit %d: %s", ra, out1);
    cr_expect_eq(rb, 0, "second: exit %d: %s", rb, out2);
    cr_expect(strstr(out1, "resuming") == NULL && strstr(out2, "resuming") == NULL,
              "the two shared a run:\n%s\n%s", out1, out2);
    /* kill -9 while holding the lock: the next one does not wait */
    pid_t c = start(log1, argv);
    out1[0] = 0;
    for (int t = 0; t < 500 && !strstr(out1, "starting run"); t++) {
        usleep(10000);
        slurp(log1, out1, sizeof out1);
    }
    kill(c, SIGKILL);
    wait_status(c);
    const char *nw[] = {"verify", "--quick", "--only", "dynamics/lemma1", "--no-report", "--no-wait", "--db", db, NULL};
    pid_t e = start(log2, nw);
    int re = wait_status(e);
    slurp(log2, out2, sizeof out2);
    cr_expect_eq(re, 0, "after kill -9: exit %d: %s", re, out2);
    rm_rf(d);
}

/* report/, figures/ and results/ follow --db or --out-dir, never the current directory */
Test(cli_exit, verify_writes_beside_the_database_not_in_the_cwd, .timeout = 600)
{
    char d[] = "/tmp/lm_cli_exit_XXXXXX", cwd[] = "/tmp/lm_cli_cwd_XXXXXX", cmd[PATH_MAX + 2000], out[16384], p[700];
    cr_assert_not_null(mkdtemp(d));
    cr_assert_not_null(mkdtemp(cwd));
    /* --db D/X/results/a.db: the database there, report/ and figures/ in D/X */
    snprintf(cmd, sizeof cmd, "cd %s && %s verify --quick --only dynamics/lemma1 --db %s/X/results/a.db 2>&1", cwd,
             abs_bin(), d);
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f);
    size_t n = fread(out, 1, sizeof out - 1, f);
    out[n] = 0;
    int st = pclose(f);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d: %s", st, out);
    cr_expect_eq(lm_test_entries(cwd), 0, "verify wrote into the current directory: %s", out);
    snprintf(p, sizeof p, "%s/X/results/a.db", d);
    cr_expect_eq(access(p, F_OK), 0, "no database at %s", p);
    snprintf(p, sizeof p, "%s/X/report/lemmata.pdf", d);
    cr_expect_eq(access(p, F_OK), 0, "no report at %s: %s", p, out);
    snprintf(p, sizeof p, "%s/X/figures", d);
    cr_expect_eq(access(p, F_OK), 0, "no figures/ at %s", p);
    /* --out-dir D/Y: D/Y/results/lemmata.db (no report asked for here) */
    snprintf(cmd, sizeof cmd, "cd %s && %s verify --quick --only dynamics/lemma1 --no-report --out-dir %s/Y 2>&1",
             cwd, abs_bin(), d);
    f = popen(cmd, "r");
    n = fread(out, 1, sizeof out - 1, f);
    out[n] = 0;
    st = pclose(f);
    cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d: %s", st, out);
    snprintf(p, sizeof p, "%s/Y/results/lemmata.db", d);
    cr_expect_eq(access(p, F_OK), 0, "no database at %s", p);
    cr_expect_eq(lm_test_entries(cwd), 0, "verify wrote into the current directory");
    /* a path that exists and is not a directory: exit 2 before any work */
    snprintf(p, sizeof p, "%s/file", d);
    f = fopen(p, "w");
    fclose(f);
    snprintf(cmd, sizeof cmd, "verify --quick --only dynamics/lemma1 --out-dir %s/file", d);
    expect_status(2, cmd, "exists and is not a directory");
    snprintf(cmd, sizeof cmd, "verify --quick --only dynamics/lemma1 --no-report --db %s/file/results/a.db", d);
    expect_status(2, cmd, "exists and is not a directory");
    snprintf(cmd, sizeof cmd, "report --out-dir %s/file", d);
    expect_status(2, cmd, "no results database");
    expect_status(2, "verify --quick --only dynamics/lemma1 --no-report --db /dev/null", "not a regular file");
    rm_rf(d);
    rm_rf(cwd);
}

/* a worker that dies in the middle of a claim: the others still run, the claim is named, and
 * verify exits 3 (it used to exit 0 when an item could not be run) */
Test(cli_exit, verify_names_what_could_not_run_and_exits_3, .timeout = 300)
{
    char d[] = "/tmp/lm_cli_exit_XXXXXX", db[600], log[600], out[32768];
    cr_assert_not_null(mkdtemp(d));
    snprintf(db, sizeof db, "%s/a.db", d);
    snprintf(log, sizeof log, "%s/log", d);
    const char *argv[] = {"verify", "--quick", "--only", "mirror/lemma1", "--no-report", "-j", "2", "--db", db, NULL};
    pid_t p = start(log, argv);
    /* find a worker (a child of p) once the run has started, and kill it */
    pid_t victim = 0;
    for (int t = 0; t < 3000 && !victim; t++) {
        usleep(10000);
        slurp(log, out, sizeof out);
        if (!strstr(out, "starting run")) continue;
        DIR *dir = opendir("/proc");
        struct dirent *e;
        while (dir && (e = readdir(dir)) && !victim) {
            char sp[300], buf[512];
            snprintf(sp, sizeof sp, "/proc/%s/stat", e->d_name);
            FILE *f = fopen(sp, "r");
            if (!f) continue;
            size_t n = fread(buf, 1, sizeof buf - 1, f);
            buf[n] = 0;
            fclose(f);
            const char *rp = strrchr(buf, ')');
            long ppid = 0;
            char state;
            if (rp && sscanf(rp + 2, "%c %ld", &state, &ppid) == 2 && ppid == (long)p) victim = atoi(e->d_name);
        }
        if (dir) closedir(dir);
    }
    cr_assert_gt(victim, 0, "no worker found: %s", out);
    usleep(100000);
    kill(victim, SIGKILL);
    int rc = wait_status(p);
    slurp(log, out, sizeof out);
    cr_expect_eq(rc, 3, "exit %d: %s", rc, out);
    /* killed inside a claim: the claim is listed as one that could not be run ("its worker
     * died"); killed between two claims (ASan timing): nothing was lost, "worker N died" */
    cr_expect(strstr(out, "could not be run:") != NULL || strstr(out, "verify worker"), "%s", out);
    cr_expect(strstr(out, "died") != NULL, "%s", out);
    cr_expect(strstr(out, "verdicts:") != NULL, "the rest did not finish: %s", out);
    rm_rf(d);
}
