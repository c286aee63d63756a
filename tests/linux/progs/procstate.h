/* /proc's view of a process or thread, for the corpus programs that order their steps by it
 * (pwait.h, threads.h) and print an fd's mode and link (the event-file programs). */
#ifndef PROCSTATE_H
#define PROCSTATE_H

#include <fcntl.h>
#include <sched.h>
#include "corpus.h"

/* The state letter of a /proc stat file (its third field), '?' if unknown. */
static inline char proc_state(const char *path)
{
    char buf[512];
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return '?';
    long n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return '?';
    buf[n] = 0;
    char *p = strrchr(buf, ')');        /* the name may hold spaces and parentheses */
    return p && p[1] == ' ' ? p[2] : '?';
}

/* Waits (at most `tries` looks) until the stat file says S (asleep in the kernel): 1 if it
 * does; 0 at once if /proc does not know it. */
static inline int proc_asleep(const char *path, int tries)
{
    for (int i = 0; i < tries; i++) {
        char c = proc_state(path);
        if (c == 'S')
            return 1;
        if (c == '?')
            return 0;
        sched_yield();
    }
    return 0;
}

/* "flags: MODE 1 nonblock N cloexec N" and "link: TARGET" (/proc/self/fd) of an fd an
 * event-file call made; mode_name names the access mode it should have (rdwr, rdonly). */
static inline void show_fd_mode_link(int fd, int accmode, const char *mode_name)
{
    int fl = fcntl(fd, F_GETFL);
    printf("flags: %s %d nonblock %d cloexec %d\n", mode_name, (fl & O_ACCMODE) == accmode,
           !!(fl & O_NONBLOCK), fcntl(fd, F_GETFD) & FD_CLOEXEC);
    char link[64] = "", path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    long n = readlink(path, link, sizeof link - 1);
    printf("link: %s\n", n > 0 ? (link[n] = 0, link) : errname(errno));
}

#endif
