/* lm_proc.h -- child processes, made one way everywhere: the verify workers (schedule.c), the
 * constants workers (src/cli/constants.c), the shrinker's candidates (runner.c) and the tools
 * the weave runs (gnuplot, pdflatex). */
#ifndef LM_PROC_H
#define LM_PROC_H

#include <sys/types.h>

/* fork() with stdio flushed first (no buffered output is written twice).  In the child the
 * parent's death sends it deathsig (0: nothing), and *orphan (may be NULL) is set to 1 when the
 * parent died before that was armed, so the child can stop at once.  Returns as fork does. */
pid_t lm_proc_fork(int deathsig, int *orphan);
/* waits for pid through EINTR: the exit status, 128+signal when it was killed, -1 on error;
 * *raw (may be NULL) gets waitpid's status */
int lm_proc_wait_raw(pid_t pid, int *raw);

/* 1 when prog is an executable file in a directory of $PATH */
int lm_proc_which(const char *prog);
/* Runs argv (argv[0] looked up in $PATH) with cwd `dir`, stdin from
 * /dev/null and stdout+stderr appended to `logpath` (NULL: discarded).
 * Returns the exit status, 128+signal, or -1 when it could not start. */
int lm_proc_run(const char *dir, const char *const *argv, const char *logpath);
/* The same in two halves: start (returns the child's pid, -1 on failure)
 * and wait (the status as above). */
pid_t lm_proc_start(const char *dir, const char *const *argv, const char *logpath);
/* lm_proc_start with "NAME=value" entries (NULL-terminated, may be NULL) added
 * to the child's environment.  Children get SIGKILL when the process that
 * started them dies. */
pid_t lm_proc_start_env(const char *dir, const char *const *argv, const char *logpath,
                        const char *const *env);
int lm_proc_wait(pid_t pid);

/* The allocator policy of every lemmata process: freed memory stays with the process instead of
 * going back to the kernel at each free.  A training step allocates and frees its temporaries
 * (a few N x N matrices); with glibc's defaults each free at the top of the heap trimmed it
 * (brk, a TLB flush on every core) and the next step faulted the pages in again, which was more
 * than half of a precond step at the paper's size.  Changes no result. */
void lm_proc_malloc_policy(void);

#endif
