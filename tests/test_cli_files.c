/* Files the command line writes (issue 15, items 8 and 9): `train --out` writes its CSV whole
 * or not at all (a temporary file beside the target, renamed into place), reports every write
 * error with exit status 3 and one line, and never replaces what is not a regular file;
 * standard output's write errors are reported the same way. */
#include "test_support.h"
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

/* `sh -c "exec 2>&1; BIN args"` with a file size limit of fsize bytes (0: none) and SIGXFSZ ignored,
 * as a shell with `ulimit -f` and `trap '' XFSZ` would run it; returns the exit status */
static int run_limited(char *out, size_t cap, long fsize, const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "exec 2>&1; %s %s", lm_test_bin(), args);
    int fd[2];
    cr_assert_eq(pipe(fd), 0);
    pid_t p = fork();
    cr_assert_neq(p, -1);
    if (p == 0) {
        close(fd[0]);
        dup2(fd[1], 1);
        close(fd[1]);
        if (fsize > 0) {
            struct rlimit rl = {(rlim_t)fsize, (rlim_t)fsize};
            if (setrlimit(RLIMIT_FSIZE, &rl)) _exit(97);
        }
        signal(SIGXFSZ, SIG_IGN);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(98);
    }
    close(fd[1]);
    size_t n = 0;
    ssize_t k;
    while (n + 1 < cap && (k = read(fd[0], out + n, cap - 1 - n)) > 0) n += (size_t)k;
    out[n] = 0;
    close(fd[0]);
    int st = 0;
    waitpid(p, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* the entries of dir (not . and ..), space-separated, into buf; returns how many */
static int entries(const char *dir, char *buf, size_t cap)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "cannot open %s", dir);
    int n = 0;
    buf[0] = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        size_t l = strlen(buf);
        snprintf(buf + l, cap - l, "%s%s", n ? " " : "", e->d_name);
        n++;
    }
    closedir(d);
    return n;
}

static void one_line(const char *what, const char *out)
{
    cr_expect(strncmp(out, "lemmata: ", 9) == 0 && strchr(out, '\n') == out + strlen(out) - 1,
              "%s: want one line 'lemmata: ...', got: %s", what, out);
}

static void rm_rf(const char *dir)
{
    cr_expect_eq(lm_test_rmtree(dir), 0, "could not remove %s", dir);
}

/* `ulimit -f 8` left 8 KiB of a 28 KiB file and exit 0: now exit 3, one line, nothing left */
Test(cli_files, out_past_the_file_size_limit_is_exit_3_and_leaves_nothing, .timeout = 120)
{
    char d[] = "/tmp/lm_cli_files_XXXXXX", args[1024], out[8192], ls[1024];
    cr_assert_not_null(mkdtemp(d));
    snprintf(args, sizeof args, "train t2-softmax --steps 300 --out %s/run.csv", d);
    int rc = run_limited(out, sizeof out, 8192, args);
    cr_expect_eq(rc, 3, "exit %d: %s", rc, out);
    cr_expect(strstr(out, "cannot write '") && strstr(out, "run.csv': File too large"), "%s", out);
    one_line("--out past the limit", out);
    cr_expect_eq(entries(d, ls, sizeof ls), 0, "left behind: %s", ls);
    /* the same run without the limit writes it all (more than the 8 KiB limit) */
    rc = run_limited(out, sizeof out, 0, args);
    cr_expect_eq(rc, 0, "exit %d: %s", rc, out);
    char csv[300];
    snprintf(csv, sizeof csv, "%s/run.csv", d);
    struct stat st;
    cr_assert_eq(stat(csv, &st), 0);
    cr_expect_gt(st.st_size, 8192);
    cr_expect_eq(entries(d, ls, sizeof ls), 1, "left behind: %s", ls);
    rm_rf(d);
}

/* standard output past the limit, or on a full device: exit 3 and one line */
Test(cli_files, stdout_write_errors_are_exit_3, .timeout = 120)
{
    char d[] = "/tmp/lm_cli_files_XXXXXX", args[1024], out[8192];
    cr_assert_not_null(mkdtemp(d));
    snprintf(args, sizeof args, "train t2-softmax --steps 300 --csv > %s/run.csv", d);
    int rc = run_limited(out, sizeof out, 8192, args);
    cr_expect_eq(rc, 3, "exit %d: %s", rc, out);
    cr_expect(strstr(out, "lemmata: cannot write standard output: File too large") != NULL, "%s", out);
    one_line("stdout past the limit", out);
    static const char *const cmds[] = {
        "train t2-softmax --steps 3 --csv >/dev/full",
        "check dynamics/lemma2 --quick --json >/dev/full",
        "list >/dev/full",
        "params dynamics/theorem1 >/dev/full",
        "train >/dev/full",
        "check --help >/dev/full",
    };
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
        rc = run_limited(out, sizeof out, 0, cmds[k]);
        cr_expect_eq(rc, 3, "'%s' exit %d: %s", cmds[k], rc, out);
        cr_expect(strstr(out, "lemmata: cannot write standard output: No space left on device") != NULL,
                  "'%s': %s", cmds[k], out);
        one_line(cmds[k], out);
    }
    /* a closed standard output is an error too, and no file lands on descriptor 1 */
    rc = run_limited(out, sizeof out, 0, "list >&-");
    cr_expect_eq(rc, 3, "exit %d: %s", rc, out);
    cr_expect(strstr(out, "cannot write standard output") != NULL, "%s", out);
    rm_rf(d);
}

/* --out replaces a regular file or creates one; anything else is refused with exit 2 before
 * the run, and is left as it was */
Test(cli_files, out_refuses_what_is_not_a_regular_file, .timeout = 120)
{
    char d[] = "/tmp/lm_cli_files_XXXXXX", p[600], args[1024], out[8192], ls[1024];
    cr_assert_not_null(mkdtemp(d));
    /* a fifo, a directory, a symbolic link to a regular file, a dangling one */
    snprintf(p, sizeof p, "%s/fifo", d);
    cr_assert_eq(mkfifo(p, 0600), 0);
    snprintf(p, sizeof p, "%s/dir", d);
    cr_assert_eq(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/victim", d);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f);
    fputs("precious\n", f);
    fclose(f);
    snprintf(p, sizeof p, "%s/link", d);
    cr_assert_eq(symlink("victim", p), 0);
    snprintf(p, sizeof p, "%s/dangling", d);
    cr_assert_eq(symlink("nowhere", p), 0);
    int ndev = 0;
    if (geteuid() == 0) { /* what `--out /dev/full` did as root: a device node in our own directory */
        snprintf(p, sizeof p, "%s/full", d);
        cr_assert_eq(mknod(p, S_IFCHR | 0666, makedev(1, 7)), 0, "%s", strerror(errno));
        ndev = 1;
    }
    static const char *const what[][2] = {{"fifo", "is a fifo"},
                                          {"dir", "is a directory"},
                                          {"dir/", "is a directory"},
                                          {"link", "is a symbolic link"},
                                          {"dangling", "is a symbolic link"},
                                          {"full", "is a character device"}};
    for (int k = 0; k < 5 + ndev; k++) {
        snprintf(args, sizeof args, "train t2-softmax --steps 3 --out %s/%s", d, what[k][0]);
        int rc = lm_test_cli(out, sizeof out, args);
        cr_expect_eq(rc, 2, "'%s' exit %d: %s", args, rc, out);
        cr_expect(strstr(out, what[k][1]) != NULL, "'%s': %s", args, out);
        one_line(args, out);
    }
    struct stat st;
    snprintf(p, sizeof p, "%s/fifo", d);
    cr_expect(lstat(p, &st) == 0 && S_ISFIFO(st.st_mode));
    snprintf(p, sizeof p, "%s/link", d);
    cr_expect(lstat(p, &st) == 0 && S_ISLNK(st.st_mode));
    snprintf(p, sizeof p, "%s/victim", d);
    cr_expect(stat(p, &st) == 0 && st.st_size == 9, "the link's target was written");
    if (ndev) {
        snprintf(p, sizeof p, "%s/full", d);
        cr_expect(lstat(p, &st) == 0 && S_ISCHR(st.st_mode), "the device node was replaced");
    }
    cr_expect_eq(entries(d, ls, sizeof ls), 5 + ndev, "temporary files left: %s", ls);
    /* a missing directory, an empty name: exit 2 too */
    snprintf(args, sizeof args, "train t2-softmax --steps 3 --out %s/nodir/run.csv", d);
    int rc = lm_test_cli(out, sizeof out, args);
    cr_expect_eq(rc, 2, "exit %d: %s", rc, out);
    cr_expect(strstr(out, "No such file or directory") != NULL, "%s", out);
    one_line(args, out);
    rc = lm_test_cli(out, sizeof out, "train t2-softmax --steps 3 --out ''");
    cr_expect_eq(rc, 2, "exit %d: %s", rc, out);
    one_line("--out ''", out);
    rm_rf(d);
}

/* an existing regular file is replaced whole, keeping its permissions; a planted
 * `<out>.tmp` symbolic link (the old temporary name) is not followed */
Test(cli_files, out_replaces_a_regular_file_and_follows_no_planted_link, .timeout = 120)
{
    char d[] = "/tmp/lm_cli_files_XXXXXX", csv[600], p[600], args[1024], out[8192], ls[1024];
    cr_assert_not_null(mkdtemp(d));
    snprintf(csv, sizeof csv, "%s/run.csv", d);
    FILE *f = fopen(csv, "w");
    cr_assert_not_null(f);
    fputs("old contents\n", f);
    fclose(f);
    cr_assert_eq(chmod(csv, 0640), 0);
    snprintf(p, sizeof p, "%s/victim", d);
    f = fopen(p, "w");
    cr_assert_not_null(f);
    fputs("precious\n", f);
    fclose(f);
    snprintf(p, sizeof p, "%s/run.csv.tmp", d);
    cr_assert_eq(symlink("victim", p), 0);
    snprintf(args, sizeof args, "train t2-softmax --steps 3 --out %s", csv);
    int rc = lm_test_cli(out, sizeof out, args);
    cr_assert_eq(rc, 0, "exit %d: %s", rc, out);
    struct stat st;
    cr_assert_eq(stat(csv, &st), 0);
    cr_expect_eq(st.st_mode & 0777, 0640, "mode %o", st.st_mode & 0777);
    f = fopen(csv, "r");
    char line[256] = "";
    cr_assert_not_null(fgets(line, sizeof line, f));
    fclose(f);
    cr_expect(strncmp(line, "iterate,loss", 12) == 0, "%s", line);
    snprintf(p, sizeof p, "%s/victim", d);
    cr_expect(stat(p, &st) == 0 && st.st_size == 9, "the planted link was followed");
    cr_expect_eq(entries(d, ls, sizeof ls), 3, "want run.csv, victim, run.csv.tmp: %s", ls);
    rm_rf(d);
}

/* SIGINT or SIGTERM in the middle of a run: exit 130 and no temporary file left */
Test(cli_files, interrupted_train_leaves_nothing, .timeout = 120)
{
    char d[] = "/tmp/lm_cli_files_XXXXXX", csv[600], ls[1024];
    cr_assert_not_null(mkdtemp(d));
    snprintf(csv, sizeof csv, "%s/run.csv", d);
    int sigs[2] = {SIGINT, SIGTERM};
    for (int s = 0; s < 2; s++) {
        pid_t p = fork();
        cr_assert_neq(p, -1);
        if (p == 0) {
            int nul = open("/dev/null", O_WRONLY);
            dup2(nul, 1);
            dup2(nul, 2);
            execl(lm_test_bin(), lm_test_bin(), "train", "t2-softmax", "--steps", "10000000", "--out", csv,
                  (char *)NULL);
            _exit(98);
        }
        int seen = 0;
        for (int t = 0; t < 3000 && !seen; t++) {
            seen = entries(d, ls, sizeof ls) > 0;
            if (!seen) usleep(10000);
        }
        cr_expect(seen, "no temporary file appeared");
        usleep(200000);
        kill(p, sigs[s]);
        int st = 0;
        waitpid(p, &st, 0);
        cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 130, "signal %d: status %d", sigs[s], st);
        cr_expect_eq(entries(d, ls, sizeof ls), 0, "left behind: %s", ls);
    }
    rm_rf(d);
}
