/* proc.c -- child processes (lm_proc.h): forking workers, finding tools on $PATH and running
 * them in a directory. */
#include "lm_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int lm_proc_which(const char *prog)
{
    const char *path = getenv("PATH");
    if (!prog || !*prog) return 0;
    if (strchr(prog, '/')) return access(prog, X_OK) == 0;
    if (!path) return 0;
    for (const char *p = path;;) {
        const char *e = strchr(p, ':');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char full[4096];
        /* an empty entry means the current directory */
        if (len == 0) snprintf(full, sizeof full, "./%s", prog);
        else snprintf(full, sizeof full, "%.*s/%s", (int)len, p, prog);
        struct stat sb;
        if (stat(full, &sb) == 0 && S_ISREG(sb.st_mode) && access(full, X_OK) == 0) return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

pid_t lm_proc_fork(int deathsig, int *orphan)
{
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        if (deathsig) prctl(PR_SET_PDEATHSIG, deathsig);
        if (orphan) *orphan = getppid() != parent;
    }
    return pid;
}

int lm_proc_wait_raw(pid_t pid, int *raw)
{
    int status = 0;
    if (pid < 0) return -1;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    if (raw) *raw = status;
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return -1;
}

pid_t lm_proc_start_env(const char *dir, const char *const *argv, const char *logpath,
                        const char *const *env)
{
    int orphan = 0;
    /* a weave killed with -9 takes its gnuplot and pdflatex with it: no
     * orphan goes on writing figures or a PDF the next weave reads */
    pid_t pid = lm_proc_fork(SIGKILL, &orphan);
    if (pid < 0) return -1;
    if (pid == 0) {
        if (orphan) _exit(126);
        int in = open("/dev/null", O_RDONLY);
        int out = logpath ? open(logpath, O_WRONLY | O_CREAT | O_APPEND, 0666)
                          : open("/dev/null", O_WRONLY);
        if (in < 0 || out < 0) _exit(126);
        dup2(in, 0);
        dup2(out, 1);
        dup2(out, 2);
        close(in);
        close(out);
        if (dir && chdir(dir)) _exit(126);
        for (int k = 0; env && env[k]; k++) putenv((char *)env[k]);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    return pid;
}

pid_t lm_proc_start(const char *dir, const char *const *argv, const char *logpath)
{
    return lm_proc_start_env(dir, argv, logpath, NULL);
}

int lm_proc_wait(pid_t pid) { return lm_proc_wait_raw(pid, NULL); }

int lm_proc_run(const char *dir, const char *const *argv, const char *logpath)
{
    return lm_proc_wait(lm_proc_start(dir, argv, logpath));
}

void lm_proc_malloc_policy(void)
{
    /* keep up to 256 MB of free heap, grow it 16 MB at a time, and serve blocks below 32 MB from
     * the heap rather than from fresh mmaps (each of which is zero-filled page by page) */
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    mallopt(M_TOP_PAD, 16 << 20);
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
}
