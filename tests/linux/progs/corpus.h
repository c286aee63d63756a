/* Helpers of the corpus's C programs (docs/linux/compare.md).  Each program prints one line
 * per result, in words that are the same on every correct kernel and C library: errno by its
 * symbolic name (strerror's texts differ between glibc and musl), no pids, addresses, inode
 * numbers or times.  The output is compared with native Linux's, so a line needs no
 * "expected" value: printing what happened is enough. */
#ifndef CORPUS_H
#define CORPUS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static inline const char *errname(int e)
{
    switch (e) {
    case 0: return "0";
    case ETIMEDOUT: return "ETIMEDOUT";
    case EDEADLK: return "EDEADLK";
    case EOWNERDEAD: return "EOWNERDEAD";
    case ENOTRECOVERABLE: return "ENOTRECOVERABLE";
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case ESRCH: return "ESRCH";
    case EINTR: return "EINTR";
    case EIO: return "EIO";
    case ENXIO: return "ENXIO";
    case E2BIG: return "E2BIG";
    case ENOEXEC: return "ENOEXEC";
    case EBADF: return "EBADF";
    case ECHILD: return "ECHILD";
    case EAGAIN: return "EAGAIN";
    case ENOMEM: return "ENOMEM";
    case EACCES: return "EACCES";
    case EFAULT: return "EFAULT";
    case EBUSY: return "EBUSY";
    case EEXIST: return "EEXIST";
    case EXDEV: return "EXDEV";
    case ENODEV: return "ENODEV";
    case ENOTDIR: return "ENOTDIR";
    case EISDIR: return "EISDIR";
    case EINVAL: return "EINVAL";
    case ENFILE: return "ENFILE";
    case EMFILE: return "EMFILE";
    case ENOTTY: return "ENOTTY";
    case EFBIG: return "EFBIG";
    case ENOSPC: return "ENOSPC";
    case ESPIPE: return "ESPIPE";
    case EROFS: return "EROFS";
    case EMLINK: return "EMLINK";
    case EPIPE: return "EPIPE";
    case ERANGE: return "ERANGE";
    case ENOMSG: return "ENOMSG";
    case EIDRM: return "EIDRM";
    case ENAMETOOLONG: return "ENAMETOOLONG";
    case ENOSYS: return "ENOSYS";
    case ENOTEMPTY: return "ENOTEMPTY";
    case ELOOP: return "ELOOP";
    case EOVERFLOW: return "EOVERFLOW";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    default: {
        static char buf[16];
        snprintf(buf, sizeof buf, "errno%d", e);
        return buf;
    }
    }
}

/* Print "what: R" for a result R >= 0, "what: -1 ENAME" for a failure; return the result. */
#define SHOW(what, call) ({                                                   \
    errno = 0;                                                                \
    long r_ = (long)(call);                                                   \
    if (r_ < 0)                                                               \
        printf("%s: -1 %s\n", (what), errname(errno));                        \
    else                                                                      \
        printf("%s: %ld\n", (what), r_);                                      \
    r_;                                                                       \
})

/* The same, but a success prints only "ok" (for results that differ, e.g. fd numbers or
 * pids, where only success or the error matters). */
#define TRY(what, call) ({                                                    \
    errno = 0;                                                                \
    long r_ = (long)(call);                                                   \
    if (r_ < 0)                                                               \
        printf("%s: -1 %s\n", (what), errname(errno));                        \
    else                                                                      \
        printf("%s: ok\n", (what));                                           \
    r_;                                                                       \
})

/* A wait status in words. */
static inline void show_status(const char *what, int st)
{
    if (WIFEXITED(st))
        printf("%s: exited %d\n", what, WEXITSTATUS(st));
    else if (WIFSIGNALED(st))
        printf("%s: killed by signal %d%s\n", what, WTERMSIG(st), WCOREDUMP(st) ? " (core)" : "");
    else if (WIFSTOPPED(st))
        printf("%s: stopped by signal %d\n", what, WSTOPSIG(st));
    else
        printf("%s: status %#x\n", what, st);
}

/* fn in a forked child (for changes that cannot be undone, such as dropping privileges),
 * then how it ended. */
static inline void run_child(const char *what, void (*fn)(void))
{
    pid_t p = fork();
    if (p == 0) {
        fn();
        exit(0);
    }
    int st;
    waitpid(p, &st, 0);
    show_status(what, st);
}

/* A child that lives until *release is closed (then exits 0); its pid, or -1. */
static inline pid_t fork_held(int *release)
{
    int p[2];
    if (pipe(p) < 0)
        return -1;
    pid_t c = fork();
    if (c == 0) {
        char b;
        close(p[1]);
        while (read(p[0], &b, 1) < 0 && errno == EINTR)
            ;
        _exit(0);
    }
    close(p[0]);
    *release = p[1];
    return c;
}

/* Unbuffered output, so that a child's lines and its parent's come in the order written. */
static inline void corpus_init(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
}

#endif
