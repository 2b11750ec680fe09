/* lock.c -- where verify and report read and write (--db, --out-dir), and one of them at a
 * time per database.
 *
 * The lock is flock(LOCK_EX) on "<db>.lock", beside the database, which holds "<pid> <cmd>" of
 * the holder.  flock locks belong to the open file: they go with the last process holding the
 * descriptor (the verify and its forked workers), so a kill -9 never leaves a stale lock; the
 * file itself stays (removing it would race with a process about to lock it). */
#include "cli.h"
#include <fcntl.h>
#include <sys/file.h>

/* dst = the directory part of path ("." when none, "/" for "/x"); trailing slashes dropped */
static void dir_of(char *dst, size_t n, const char *path)
{
    snprintf(dst, n, "%s", path);
    size_t l = strlen(dst);
    while (l > 1 && dst[l - 1] == '/') dst[--l] = 0;
    char *s = strrchr(dst, '/');
    if (!s) snprintf(dst, n, ".");
    else if (s == dst) dst[1] = 0;
    else {
        *s = 0;
        for (l = strlen(dst); l > 1 && dst[l - 1] == '/';) dst[--l] = 0;
    }
}

/* the last component of a directory path ("results" of "a/results/") */
static const char *last_of(const char *dir)
{
    const char *s = strrchr(dir, '/');
    return s ? s + 1 : dir;
}

static int too_long(const char *what)
{
    return lm_cli_die_usage("%s: path too long", what);
}

int lm_cli_paths_resolve(lm_cli_paths *p, const char *db_opt, const char *dir_opt)
{
    int n;
    if (dir_opt) {
        n = snprintf(p->root, sizeof p->root, "%s", dir_opt);
        if (n < 0 || (size_t)n >= sizeof p->root) return too_long(dir_opt);
        for (size_t l = strlen(p->root); l > 1 && p->root[l - 1] == '/';) p->root[--l] = 0;
        if (db_opt) n = snprintf(p->db, sizeof p->db, "%s", db_opt);
        else n = snprintf(p->db, sizeof p->db, "%s%sresults/lemmata.db", p->root,
                          p->root[strlen(p->root) - 1] == '/' ? "" : "/");
        if (n < 0 || (size_t)n >= sizeof p->db) return too_long(dir_opt);
        return 0;
    }
    if (!db_opt) {
        snprintf(p->db, sizeof p->db, "results/lemmata.db");
        snprintf(p->root, sizeof p->root, ".");
        return 0;
    }
    n = snprintf(p->db, sizeof p->db, "%s", db_opt);
    if (n < 0 || (size_t)n >= sizeof p->db) return too_long(db_opt);
    char dir[4096];
    dir_of(dir, sizeof dir, p->db);
    if (!strcmp(last_of(dir), "results")) dir_of(p->root, sizeof p->root, dir);
    else snprintf(p->root, sizeof p->root, "%s", dir);
    return 0;
}

int lm_cli_mkdirs(const char *dir)
{
    char p[4096];
    int n = snprintf(p, sizeof p, "%s", dir);
    if (n < 0 || (size_t)n >= sizeof p) return too_long(dir);
    size_t len = strlen(p);
    for (size_t k = 1; k <= len; k++) {
        if (p[k] != '/' && p[k] != 0) continue;
        if (p[k - 1] == '/') continue; /* "a//b", and the root */
        char c = p[k];
        p[k] = 0;
        if (mkdir(p, 0777) && errno != EEXIST) {
            fprintf(stderr, "lemmata: cannot create directory '%s': %s\n", p, strerror(errno));
            return LM_EXIT_USAGE;
        }
        struct stat st;
        if (stat(p, &st) || !S_ISDIR(st.st_mode)) {
            fprintf(stderr, "lemmata: '%s' exists and is not a directory\n", p);
            return LM_EXIT_USAGE;
        }
        p[k] = c;
    }
    return 0;
}

int lm_cli_check_regular(const char *path, const char *role)
{
    struct stat st;
    if (stat(path, &st)) {
        if (errno == ENOENT) return 0;
        fprintf(stderr, "lemmata: cannot use %s '%s': %s\n", role, path, strerror(errno));
        return LM_EXIT_USAGE;
    }
    if (S_ISREG(st.st_mode)) return 0;
    fprintf(stderr, "lemmata: %s '%s' is %s, not a regular file\n", role, path,
            S_ISDIR(st.st_mode) ? "a directory" : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                                                : S_ISFIFO(st.st_mode)                       ? "a fifo"
                                                                                             : "special");
    return LM_EXIT_USAGE;
}

/* the holder written in the lock file: its pid (0 when not readable) and command */
static long holder(int fd, char *cmd, size_t n)
{
    snprintf(cmd, n, "verify or report");
    for (int tries = 0; tries < 20; tries++) { /* the holder writes it right after locking */
        char buf[64];
        ssize_t got = pread(fd, buf, sizeof buf - 1, 0);
        if (got > 0) {
            buf[got] = 0;
            long pid = 0;
            char c[16];
            int k = sscanf(buf, "%ld %15s", &pid, c);
            if (k >= 1 && pid > 0) {
                if (k == 2) snprintf(cmd, n, "%s", c);
                return pid;
            }
        }
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return 0;
}

int lm_cli_lock(const char *db, const char *cmd, int nowait)
{
    char path[4200];
    int n = snprintf(path, sizeof path, "%s.lock", db);
    if (n < 0 || (size_t)n >= sizeof path) {
        too_long(db);
        return -2;
    }
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0) {
        if (errno == ELOOP) fprintf(stderr, "lemmata: lock file '%s' is a symbolic link\n", path);
        else fprintf(stderr, "lemmata: cannot create lock file '%s': %s\n", path, strerror(errno));
        return -2;
    }
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "lemmata: lock file '%s' is not a regular file\n", path);
        close(fd);
        return -2;
    }
    if (flock(fd, LOCK_EX | LOCK_NB)) {
        if (errno != EWOULDBLOCK) {
            fprintf(stderr, "lemmata: cannot lock '%s': %s\n", path, strerror(errno));
            close(fd);
            return -2;
        }
        char other[32];
        long pid = holder(fd, other, sizeof other);
        char who[64] = "";
        if (pid > 0) snprintf(who, sizeof who, " (pid %ld)", pid);
        if (nowait) {
            fprintf(stderr, "lemmata: another %s is running on %s%s\n", other, db, who);
            close(fd);
            return -2;
        }
        fprintf(stderr, "lemmata: another %s is running on %s%s; waiting\n", other, db, who);
        while (flock(fd, LOCK_EX))
            if (errno != EINTR) {
                fprintf(stderr, "lemmata: cannot lock '%s': %s\n", path, strerror(errno));
                close(fd);
                return -2;
            }
    }
    char buf[64];
    int len = snprintf(buf, sizeof buf, "%ld %s\n", (long)getpid(), cmd);
    if (ftruncate(fd, 0) || pwrite(fd, buf, (size_t)len, 0) != len) {
        /* the lock holds all the same; a waiting process just cannot name us */
    }
    return fd;
}
