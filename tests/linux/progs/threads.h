/* Helpers of the corpus's thread programs (issue 13 item 8; docs/linux/compare.md).  What
 * they print must not depend on how threads interleave: threads report through memory the
 * main thread reads after joining them in a fixed order, and a step that needs another
 * thread asleep first waits until /proc says it is (asleep_in_kernel), never for a time.
 *
 * A kernel without threads must fail these programs fast, not hang them: every program arms
 * a watchdog (SIGALRM's default action ends the whole process) and stops at the first thread
 * it cannot create. */
#ifndef THREADS_H
#define THREADS_H

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include "procstate.h"

/* Seconds of guest time a program may take at most; Linux needs a small part of it. */
#define WATCHDOG_SECONDS 60

static inline void threads_init(void)
{
    corpus_init();
    alarm(WATCHDOG_SECONDS);
}

static inline pid_t tid_of_self(void)
{
    return (pid_t)syscall(SYS_gettid);
}

static inline long futex(void *uaddr, int op, unsigned val, const void *timeout_or_val2,
                         void *uaddr2, unsigned val3)
{
    return syscall(SYS_futex, uaddr, op, val, timeout_or_val2, uaddr2, val3);
}

/* pthread_create, or a line saying why not and the end of the program (exit 1). */
static inline void start_thread(const char *what, pthread_t *t, void *(*fn)(void *), void *arg)
{
    int e = pthread_create(t, NULL, fn, arg);
    if (e) {
        printf("%s: pthread_create: %s\n", what, errname(e));
        exit(1);
    }
}

/* pthread_join, whose result must be ret (or say so). */
static inline void join_thread(const char *what, pthread_t t, void *ret)
{
    void *got;
    int e = pthread_join(t, &got);
    if (e)
        printf("%s: pthread_join: %s\n", what, errname(e));
    else if (got != ret)
        printf("%s: pthread_join: unexpected result\n", what);
}

/* The state letter of thread tid of process pid in /proc/PID/task/TID/stat, or '?'. */
static inline char thread_state(pid_t pid, pid_t tid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
    return proc_state(path);
}

static inline char task_state(pid_t tid)
{
    return thread_state(getpid(), tid);
}

/* The thread ids in /proc/PID/task, ascending: how many (at most max stored), -1 if none. */
static inline int task_ids(pid_t pid, pid_t *ids, int max)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    int fd = open(path, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return -1;
    int n = 0;
    long got;
    while ((got = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
        for (long off = 0; off < got;) {
            unsigned short reclen = *(unsigned short *)(buf + off + 16);
            const char *name = buf + off + 19;
            if (name[0] >= '0' && name[0] <= '9') {
                pid_t id = (pid_t)atoi(name);
                int at = n < max ? n : max;
                while (at > 0 && ids[at - 1] > id) {
                    if (at < max)
                        ids[at] = ids[at - 1];
                    at--;
                }
                if (at < max)
                    ids[at] = id;
                n++;
            }
            off += reclen;
        }
    }
    close(fd);
    return n;
}

/* Waits until thread tid of process pid sleeps in the kernel (state S): the threads that
 * are waited for sleep only in the call under test after they said they are about to.
 * Bounded: 0 if it never does, at once if /proc does not know the thread. */
static inline int sleeping(pid_t pid, pid_t tid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
    return proc_asleep(path, 100000);
}

static inline int asleep_in_kernel(pid_t tid)
{
    return sleeping(getpid(), tid);
}

/* Waits (bounded) until thread tid of this process has ended (gone from /proc/self/task,
 * as a thread that is not the leader goes at once); 1 if it has. */
static inline int thread_gone(pid_t tid)
{
    struct timespec ms = { 0, 1000000 };
    for (int i = 0; i < 2000; i++) {
        if (task_state(tid) == '?')
            return 1;
        nanosleep(&ms, NULL);
    }
    return 0;
}

/* A relative time of ms milliseconds, and an absolute one that far after clock's now. */
static inline struct timespec after_ms(long ms)
{
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    return t;
}

static inline struct timespec deadline_ms(clockid_t clock, long ms)
{
    struct timespec t;
    clock_gettime(clock, &t);
    t.tv_nsec += (ms % 1000) * 1000000L;
    t.tv_sec += ms / 1000 + t.tv_nsec / 1000000000L;
    t.tv_nsec %= 1000000000L;
    return t;
}

#endif
