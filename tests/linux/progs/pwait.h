/* Helpers of the corpus programs whose processes block on each other (pfutex.c, psync.c):
 * a parent acts only after its child said (through a pipe) that it is about to block and
 * /proc says it sleeps, so what the parent then sees is the same on every run. */
#ifndef PWAIT_H
#define PWAIT_H

#include <signal.h>
#include <stdint.h>
#include "procstate.h"

/* The state letter of process pid (/proc/PID/stat's third field), '?' if unknown. */
static inline char state_of(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    return proc_state(path);
}

/* Waits (bounded) until pid sleeps in the kernel: 1 if it does. */
static inline int sleeps(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    return proc_asleep(path, 200000);
}

static int ready[2];                /* the pipe a child says "about to block" through */
static int go[2];                   /* and the one its parent answers through */

/* A program's start: unbuffered output and both pipes; nonzero if a pipe cannot be had. */
static inline int pwait_init(void)
{
    corpus_init();
    return pipe(ready) || pipe(go);
}

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

static inline void ignore_signal(int sig)
{
    (void)sig;
}

/* A child blocked in an 8-byte read of fd (asleep, as /proc says) with a SIGUSR1 handler
 * that does nothing, SA_RESTART if restart; it exits with the value read or 100 + errno. */
static inline pid_t blocked_reader(int fd, int restart)
{
    pid_t c = fork();
    if (c == 0) {
        struct sigaction sa = { .sa_handler = ignore_signal, .sa_flags = restart ? SA_RESTART : 0 };
        sigemptyset(&sa.sa_mask);
        sigaction(SIGUSR1, &sa, NULL);
        about_to_block();
        uint64_t v = 0;
        _exit(read(fd, &v, 8) == 8 ? (int)v : 100 + errno);
    }
    until_asleep(c);
    return c;
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
