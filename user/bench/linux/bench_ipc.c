/*
 * Cross-process round trips (pipe, futex) and the null system call.
 * Every figure is per round trip / per call; warm-up rounds run first on the
 * same processes so page faults, pipe buffer allocation and the scheduler's
 * first wake-ups are not timed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "bench.h"

static int reap(const char *name, pid_t pid)
{
    int st;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) {
            bench_fail(name, "waitpid");
            return 1;
        }
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        bench_fail(name, "child-failed");
        return 1;
    }
    return 0;
}

/* ---- pipe_pingpong_1b: parent -> child -> parent, 1 byte each way ---- */

int bench_pipe_pingpong(long iters, long warmup)
{
    const char *name = "pipe_pingpong_1b";
    int p2c[2], c2p[2];
    if (pipe(p2c) || pipe(c2p)) {
        bench_fail(name, "pipe");
        return 1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        bench_fail(name, "fork");
        return 1;
    }
    if (pid == 0) {
        close(p2c[1]);
        close(c2p[0]);
        char c;
        for (long i = 0; i < warmup + iters; i++)
            if (read(p2c[0], &c, 1) != 1 || write(c2p[1], &c, 1) != 1)
                _exit(2);
        _exit(0);
    }
    close(p2c[0]);
    close(c2p[1]);

    char c = 'x';
    uint64_t t0 = 0, n0 = 0;
    for (long i = 0; i < warmup + iters; i++) {
        if (i == warmup) {
            n0 = ns_now();
            t0 = tsc_now();
        }
        if (write(p2c[1], &c, 1) != 1 || read(c2p[0], &c, 1) != 1) {
            bench_fail(name, "read/write");
            return 1;
        }
    }
    uint64_t t1 = tsc_now(), n1 = ns_now();
    if (reap(name, pid))
        return 1;
    report(name, iters, t1 - t0, n1 - n0);
    return 0;
}

/* ---- futex_pingpong: turn word in a MAP_SHARED page ----
 * word == 0: parent's turn (child sleeps on it), word == 1: child's turn.
 * Shared (non-PRIVATE) futex ops because the waiters are different mms. */

static long futex(uint32_t *uaddr, int op, uint32_t val)
{
    return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

/* Sleep until *w != v. EAGAIN/EINTR just mean "look again". */
static void wait_while(uint32_t *w, uint32_t v)
{
    while (__atomic_load_n(w, __ATOMIC_ACQUIRE) == v)
        futex(w, FUTEX_WAIT, v);
}

static void hand_over(uint32_t *w, uint32_t v)
{
    __atomic_store_n(w, v, __ATOMIC_RELEASE);
    futex(w, FUTEX_WAKE, 1);
}

int bench_futex_pingpong(long iters, long warmup)
{
    const char *name = "futex_pingpong";
    uint32_t *w = mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (w == MAP_FAILED) {
        bench_fail(name, "mmap");
        return 1;
    }
    *w = 0;
    pid_t pid = fork();
    if (pid < 0) {
        bench_fail(name, "fork");
        return 1;
    }
    if (pid == 0) {
        for (long i = 0; i < warmup + iters; i++) {
            wait_while(w, 0);
            hand_over(w, 0);
        }
        _exit(0);
    }

    uint64_t t0 = 0, n0 = 0;
    for (long i = 0; i < warmup + iters; i++) {
        if (i == warmup) {
            n0 = ns_now();
            t0 = tsc_now();
        }
        hand_over(w, 1);
        wait_while(w, 1);
    }
    uint64_t t1 = tsc_now(), n1 = ns_now();
    if (reap(name, pid))
        return 1;
    report(name, iters, t1 - t0, n1 - n0);
    return 0;
}

/* ---- getpid: the bare syscall instruction, no libc wrapper at all, so
 * the figure is kernel entry + sys_getpid + exit (+ loop overhead of ~3
 * instructions). ---- */

static inline long raw_getpid(void)
{
    long r;
    __asm__ volatile("syscall" : "=a"(r) : "0"((long)SYS_getpid) : "rcx", "r11", "memory");
    return r;
}

int bench_getpid(long iters, long warmup)
{
    long me = getpid(), bad = 0;
    for (long i = 0; i < warmup; i++)
        bad |= raw_getpid() != me;
    uint64_t n0 = ns_now(), t0 = tsc_now();
    for (long i = 0; i < iters; i++)
        bad |= raw_getpid() != me;
    uint64_t t1 = tsc_now(), n1 = ns_now();
    if (bad) {
        bench_fail("getpid", "wrong-pid");
        return 1;
    }
    report("getpid", iters, t1 - t0, n1 - n0);
    return 0;
}
