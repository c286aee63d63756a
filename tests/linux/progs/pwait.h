/* Helpers of the corpus programs whose processes block on each other (pfutex.c, psync.c):
 * a parent acts only after its child said (through a pipe) that it is about to block and
 * /proc says it sleeps, so what the parent then sees is the same on every run. */
#ifndef PWAIT_H
#define PWAIT_H

#include <fcntl.h>
#include <sched.h>
#include "corpus.h"

/* The state letter of process pid (/proc/PID/stat's third field), '?' if unknown. */
static inline char state_of(pid_t pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return '?';
    long n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return '?';
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    return p && p[1] == ' ' ? p[2] : '?';
}

/* Waits (bounded) until pid sleeps in the kernel: 1 if it does. */
static inline int sleeps(pid_t pid)
{
    for (int i = 0; i < 200000; i++) {
        char c = state_of(pid);
        if (c == 'S')
            return 1;
        if (c == '?')
            return 0;
        sched_yield();
    }
    return 0;
}

static int ready[2];                /* the pipe a child says "about to block" through */
static int go[2];                   /* and the one its parent answers through */

/* The child: its next sleep is the call under test. */
static inline void about_to_block(void)
{
    char c = 1;
    if (write(ready[1], &c, 1) != 1)
        _exit(99);
}

/* The parent: waits for that and for the sleep. */
static inline void until_asleep(pid_t child)
{
    char c;
    if (read(ready[0], &c, 1) != 1)
        printf("the child never said it blocks\n");
    if (!sleeps(child))
        printf("the child never slept\n");
}

static inline void reap(const char *what, pid_t pid)
{
    int st;
    if (waitpid(pid, &st, 0) != pid)
        printf("%s: not reaped\n", what);
    else
        show_status(what, st);
}

#endif
