/* outfile.c -- files the command line writes (train --out), whole or not at all, and standard
 * output, whose write errors are reported instead of lost.
 *
 * A file goes to a temporary ".<base>.XXXXXX" (mkstemp) in the target's directory, is synced
 * and renamed over the target only when every write succeeded; on any failure the temporary
 * file is removed and the target is untouched.  Only a missing target or a regular file is
 * replaced: a symbolic link is refused rather than followed (lstat), and so are devices,
 * fifos, sockets and directories, so `--out /dev/full` cannot replace the device node.
 * Writes go through a stream (fopencookie) that keeps the errno of the first failed write,
 * so the message says why ("File too large", "No space left on device"). */
#include "cli.h"
#include <fcntl.h>

/* ---- a stream over a descriptor that remembers its first write error ---- */

typedef struct {
    int fd;
    int *err;
} sink;

static ssize_t sink_write(void *cookie, const char *buf, size_t n)
{
    sink *s = cookie;
    if (*s->err) return 0; /* 0 < n: the stream sets its error flag */
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(s->fd, buf + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            *s->err = w < 0 ? errno : EIO;
            return 0;
        }
        done += (size_t)w;
    }
    return (ssize_t)n;
}

static int sink_close(void *cookie)
{
    (void)cookie; /* the owner closes the descriptor */
    return 0;
}

static FILE *sink_open(sink *s)
{
    cookie_io_functions_t io = {NULL, sink_write, NULL, sink_close};
    return fopencookie(s, "w", io);
}

/* ---- standard output ---- */

static int stdout_err;
static sink stdout_sink = {1, &stdout_err};

void lm_cli_stdout_init(void)
{
    FILE *f = sink_open(&stdout_sink);
    if (!f) return; /* keep the plain stdout: errors are then reported as EIO */
    setvbuf(f, NULL, isatty(1) ? _IOLBF : _IOFBF, BUFSIZ);
    stdout = f;
}

int lm_cli_stdout_finish(int rc)
{
    if ((fflush(stdout) != 0 || ferror(stdout)) && !stdout_err) stdout_err = EIO;
    if (!stdout_err) return rc;
    fprintf(stderr, "lemmata: cannot write standard output: %s\n", strerror(stdout_err));
    return rc == LM_EXIT_OK || rc == LM_EXIT_STRICT ? LM_EXIT_FAILED : rc;
}

/* ---- the temporary file is removed when the process is interrupted ---- */

static char cleanup_path[4096];
static volatile sig_atomic_t cleanup_armed;
static struct sigaction old_int, old_term, old_hup;

static void on_signal(int s)
{
    (void)s;
    if (cleanup_armed) unlink(cleanup_path);
    static const char m[] = "\nlemmata: interrupted; nothing written\n";
    ssize_t w = write(2, m, sizeof m - 1);
    (void)w;
    _exit(LM_EXIT_INTERRUPTED);
}

static void arm(const char *tmp)
{
    snprintf(cleanup_path, sizeof cleanup_path, "%s", tmp);
    cleanup_armed = 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGHUP, &sa, &old_hup);
}

static void disarm(void)
{
    if (!cleanup_armed) return;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
    cleanup_armed = 0;
}

/* ---- the output file ---- */

static ssize_t outfile_write(void *cookie, const char *buf, size_t n)
{
    lm_outfile *o = cookie;
    sink s = {o->fd, &o->err};
    return sink_write(&s, buf, n);
}

static const char *kind_of(mode_t m)
{
    if (S_ISDIR(m)) return "a directory";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISFIFO(m)) return "a fifo";
    if (S_ISSOCK(m)) return "a socket";
    if (S_ISLNK(m)) return "a symbolic link";
    return "not a regular file";
}

/* refuses a target that exists and is not a regular file: 0, or 2 with a message */
static int check_target(const char *path, const char *opt, mode_t *mode)
{
    struct stat st;
    const char *who = opt ? opt : "lemmata";
    int csv = opt && !strcmp(opt, "--out");
    if (lstat(path, &st) == 0) {
        if (S_ISLNK(st.st_mode)) {
            fprintf(stderr, "lemmata: '%s' is a symbolic link; %s replaces only a regular file or "
                            "creates a new one (name the link's target%s)\n", path, who,
                    csv ? "; without --out the CSV goes to standard output" : "");
            return LM_EXIT_USAGE;
        }
        if (!S_ISREG(st.st_mode)) {
            fprintf(stderr, "lemmata: '%s' is %s; %s replaces only a regular file or creates a new "
                            "one%s\n", path, kind_of(st.st_mode), who,
                    csv ? " (without --out the CSV goes to standard output)" : "");
            return LM_EXIT_USAGE;
        }
        if (mode) *mode = st.st_mode & 0777;
        return 0;
    }
    if (errno != ENOENT) return lm_cli_die_write(LM_EXIT_USAGE, path, errno);
    return 0;
}

int lm_outfile_open(lm_outfile *o, const char *path)
{
    return lm_outfile_open_opt(o, path, "--out");
}

int lm_outfile_open_opt(lm_outfile *o, const char *path, const char *opt)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->path = path;
    o->opt = opt;
    const char *who = opt ? opt : "lemmata";
    if (!path || !*path) return lm_cli_die_usage("%s needs a file name", who);
    mode_t um = umask(0);
    umask(um);
    o->mode = 0666 & ~um;
    int rc = check_target(path, opt, &o->mode);
    if (rc) return rc;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
        fprintf(stderr, "lemmata: %s needs a file name, got the directory '%s'\n", who, path);
        return LM_EXIT_USAGE;
    }
    int dirlen = slash ? (int)(slash - path) : 0; /* "/x": the directory is "/" */
    int n = slash ? snprintf(o->tmp, sizeof o->tmp, "%.*s/.%.200s.XXXXXX", dirlen, path, base)
                  : snprintf(o->tmp, sizeof o->tmp, ".%.200s.XXXXXX", base);
    if (n < 0 || (size_t)n >= sizeof o->tmp) {
        o->tmp[0] = 0;
        return lm_cli_die_write(LM_EXIT_USAGE, path, ENAMETOOLONG);
    }
    o->fd = mkostemp(o->tmp, O_CLOEXEC);
    if (o->fd < 0) {
        int e = errno;
        o->tmp[0] = 0;
        return lm_cli_die_write(LM_EXIT_USAGE, path, e);
    }
    arm(o->tmp);
    cookie_io_functions_t io = {NULL, outfile_write, NULL, sink_close};
    o->f = fopencookie(o, "w", io);
    if (!o->f) {
        lm_outfile_abort(o);
        return lm_cli_die_write(LM_EXIT_FAILED, path, ENOMEM);
    }
    return 0;
}

int lm_outfile_commit(lm_outfile *o)
{
    if (!o->tmp[0]) return lm_cli_die_write(LM_EXIT_FAILED, o->path, EBADF);
    if ((fflush(o->f) != 0 || ferror(o->f)) && !o->err) o->err = EIO;
    fclose(o->f);
    o->f = NULL;
    if (!o->err) (void)fchmod(o->fd, o->mode); /* mkstemp made it 0600 */
    if (!o->err && fsync(o->fd)) o->err = errno;
    if (close(o->fd) && !o->err) o->err = errno;
    o->fd = -1;
    if (!o->err) {
        /* the target may have changed since lm_outfile_open: check it again */
        mode_t m;
        int rc = check_target(o->path, o->opt, &m);
        if (rc) {
            unlink(o->tmp);
            o->tmp[0] = 0;
            disarm();
            return LM_EXIT_FAILED;
        }
        if (o->noreplace ? link(o->tmp, o->path) != 0 : rename(o->tmp, o->path) != 0) o->err = errno;
        else if (o->noreplace) unlink(o->tmp);
    }
    if (o->err) {
        unlink(o->tmp);
        o->tmp[0] = 0;
        disarm();
        return lm_cli_die_write(LM_EXIT_FAILED, o->path, o->err);
    }
    o->tmp[0] = 0;
    disarm();
    return 0;
}

void lm_outfile_abort(lm_outfile *o)
{
    if (o->f) fclose(o->f);
    o->f = NULL;
    if (o->fd >= 0) close(o->fd);
    o->fd = -1;
    if (o->tmp[0]) unlink(o->tmp);
    o->tmp[0] = 0;
    disarm();
}
