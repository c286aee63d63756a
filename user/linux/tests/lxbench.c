/* lxbench: the Linux personality's benchmark rows (issue 8 item 11), one program run on
 * native Linux (Debian's kernel in QEMU) and under lx in the same `make bench`.
 *
 *   lxbench [ROW...]    run the rows (all by default); one line per row:
 *     BENCH name=lx_ROW iters=N tsc_per_op=X tsc=T
 *     BENCH-NA name=lx_ROW errno=E what=CALL       the row cannot run here (a call failed)
 *   then BENCH-DONE; exit status 0.
 *   lxbench exit        exit at once (the image fork_execve runs)
 *   lxbench repeat=K ROW...   each row K times (tools/tcgprof.py: a loop long enough for a
 *                       host profile of QEMU to see it above the boot)
 *
 * Figures are rdtsc deltas: under QEMU -icount shift=0 the TSC counts guest instructions
 * (docs/performance.md).  Each row warms up first (the same operation, untimed).  A row whose
 * calls fail reports BENCH-NA with the errno and the run goes on: on lx, rows start working
 * as the calls they need arrive.  Never run on the host. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BENCH_PREFIX "lx_"
#include "bench_lines.h"

#define KIB64 65536
#define PAGE 4096

static const char *self;            /* argv[0]: the path fork_execve runs */
static char buf[KIB64];

static long raw_syscall0(long nr)
{
    __asm__ volatile("syscall" : "+a"(nr) :: "rcx", "r11", "memory");
    return nr;
}

static long raw_getpid(void)
{
    return raw_syscall0(SYS_getpid);
}

/* Reaps pid; 0 if it exited with status 0, else the wait status (or -errno of wait4). */
static int reap(pid_t pid)
{
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -errno;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : (st ? st : -1);
}

static int child_failed(const char *name, int r)
{
    char what[32];
    snprintf(what, sizeof what, "child_status_%d", r);
    return na(name, r < 0 ? "wait4" : what, r < 0 ? -r : 0);
}

/* ---- the rows ------------------------------------------------------------------------ */

/* getpid: the system-call round trip, one bare `syscall` instruction. */
static int row_getpid(void)
{
    enum { N = 10000, WARM = 1000 };
    for (int i = 0; i < WARM; i++)
        raw_getpid();
    uint64_t t0 = tsc();
    for (int i = 0; i < N; i++)
        raw_getpid();
    return report("getpid", N, tsc() - t0);
}

/* A bare system call in a loop (getpid, getppid): per call. */
static int null_call(const char *name, long nr)
{
    enum { N = 10000, WARM = 1000 };
    for (int i = 0; i < WARM; i++)
        raw_syscall0(nr);
    uint64_t t0 = tsc();
    for (int i = 0; i < N; i++)
        raw_syscall0(nr);
    return report(name, N, tsc() - t0);
}

static int row_getppid(void)
{
    return null_call("getppid", SYS_getppid);
}

/* The same while another process waits with a timeout (a long nanosleep, parked in lx with a
 * deadline): what a system call costs must not depend on what others wait for (issue 13
 * item 7; before the timer thread, about 2,000 guest instructions more per call). */
static int with_sleeper(const char *name, long nr)
{
    int p[2];
    if (pipe(p))
        return na(name, "pipe", errno);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(p[0]), close(p[1]);
        return na(name, "fork", e);
    }
    if (pid == 0) {
        struct timespec ts = { 3600, 0 };
        close(p[0]);
        close(p[1]);                /* the parent's read sees this: the sleep is next */
        nanosleep(&ts, NULL);
        _exit(0);
    }
    close(p[1]);
    char c;
    while (read(p[0], &c, 1) < 0 && errno == EINTR)
        ;
    close(p[0]);
    /* Let the child get into its sleep: the parent's own sleep parks it first. */
    struct timespec tick = { 0, 20000000 };
    nanosleep(&tick, NULL);
    int r = null_call(name, nr);
    kill(pid, SIGKILL);
    reap(pid);
    return r;
}

static int row_getpid_sleeper(void)
{
    return with_sleeper("getpid_sleeper", SYS_getpid);
}

static int row_getppid_sleeper(void)
{
    return with_sleeper("getppid_sleeper", SYS_getppid);
}

/* fork + the child's _exit + the parent's wait: per process. */
static int row_fork_exit(void)
{
    enum { N = 40, WARM = 4 };
    uint64_t t0 = 0;
    for (int i = 0; i < WARM + N; i++) {
        if (i == WARM)
            t0 = tsc();
        pid_t pid = fork();
        if (pid < 0)
            return na("fork_exit", "fork", errno);
        if (pid == 0)
            _exit(0);
        int r = reap(pid);
        if (r)
            return child_failed("fork_exit", r);
    }
    return report("fork_exit", N, tsc() - t0);
}

/* fork + execve of this program (which exits at once: `lxbench exit`) + wait. */
static int fork_exec_wait(const char *name, const char *path, char *const argv[])
{
    enum { N = 20, WARM = 2 };
    static char *const envp[] = { "PATH=/bin", NULL };
    uint64_t t0 = 0;
    for (int i = 0; i < WARM + N; i++) {
        if (i == WARM)
            t0 = tsc();
        pid_t pid = fork();
        if (pid < 0)
            return na(name, "fork", errno);
        if (pid == 0) {
            execve(path, argv, envp);
            _exit(errno < 100 ? 100 + errno : 99);  /* 100 + errno: execve failed */
        }
        int r = reap(pid);
        if (r > 0 && WIFEXITED(r) && WEXITSTATUS(r) >= 100)
            return na(name, "execve", WEXITSTATUS(r) - 100);
        if (r)
            return child_failed(name, r);
    }
    return report(name, N, tsc() - t0);
}

static int row_fork_execve(void)
{
    char *const argv[] = { (char *)self, "exit", NULL };
    return fork_exec_wait("fork_execve", self, argv);
}

/* `sh -c exit`: fork + execve of busybox's shell, which parses and runs `exit`. */
static int row_sh_c_exit(void)
{
    char *const argv[] = { "sh", "-c", "exit", NULL };
    return fork_exec_wait("sh_c_exit", "/bin/sh", argv);
}

/* Two pipes, a child that echoes: one byte there and back, n times after warm untimed
 * ones.  0 and the ticks of the n, or an errno and *what failed. */
static int pingpong(int n, int warm, uint64_t *ticks, const char **what)
{
    int p2c[2], c2p[2];
    *what = "pipe";
    if (pipe(p2c))
        return errno;
    if (pipe(c2p)) {
        int e = errno;
        close(p2c[0]), close(p2c[1]);
        return e;
    }
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(p2c[0]), close(p2c[1]), close(c2p[0]), close(c2p[1]);
        *what = "fork";
        return e;
    }
    if (pid == 0) {
        close(p2c[1]), close(c2p[0]);
        char c;
        for (int i = 0; i < warm + n; i++)
            if (read(p2c[0], &c, 1) != 1 || write(c2p[1], &c, 1) != 1)
                _exit(2);
        _exit(0);
    }
    close(p2c[0]), close(c2p[1]);
    char c = 'x';
    uint64_t t0 = 0;
    int err = 0;
    for (int i = 0; i < warm + n && !err; i++) {
        if (i == warm)
            t0 = tsc();
        if (write(p2c[1], &c, 1) != 1 || read(c2p[0], &c, 1) != 1)
            err = errno ? errno : EIO;
    }
    *ticks = tsc() - t0;
    close(p2c[1]), close(c2p[0]);
    int r = reap(pid);
    *what = err ? "read_write" : "wait4";
    return err ? err : r < 0 ? -r : r ? ECHILD : 0;
}

static int row_pipe_pingpong(void)
{
    enum { N = 2000, WARM = 200 };
    uint64_t ticks;
    const char *what;
    int e = pingpong(N, WARM, &ticks, &what);
    return e ? na("pipe_pingpong", what, e) : report("pipe_pingpong", N, ticks);
}

/* A process switch, as lmbench's lat_ctx takes it: the pipe ping-pong's round trip (two
 * switches) less what its writes and reads cost without a switch (one process writing and
 * reading its own pipe), halved. */
static int row_ctxsw(void)
{
    enum { N = 2000, WARM = 200 };
    int p[2];
    if (pipe(p))
        return na("ctxsw", "pipe", errno);
    char c = 'x';
    uint64_t t0 = 0;
    int err = 0;
    for (int i = 0; i < WARM + N && !err; i++) {
        if (i == WARM)
            t0 = tsc();
        if (write(p[1], &c, 1) != 1 || read(p[0], &c, 1) != 1)
            err = errno ? errno : EIO;
    }
    uint64_t alone = tsc() - t0, both;
    close(p[0]), close(p[1]);
    if (err)
        return na("ctxsw", "read_write", err);
    const char *what;
    int e = pingpong(N, WARM, &both, &what);
    if (e)
        return na("ctxsw", what, e);
    /* both: N round trips = 2N switches + 2N (write + read); alone: N (write + read). */
    uint64_t sw = both > 2 * alone ? both - 2 * alone : 0;
    return report("ctxsw", 2 * N, sw);
}

/* A child writes 64 KiB at a time into a pipe, the parent reads it all: per 64 KiB. */
static int row_pipe_64k(void)
{
    enum { N = 100, WARM = 10 };
    int p[2];
    if (pipe(p))
        return na("pipe_64k", "pipe", errno);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(p[0]), close(p[1]);
        return na("pipe_64k", "fork", e);
    }
    if (pid == 0) {
        close(p[0]);
        memset(buf, 'p', sizeof buf);
        for (int i = 0; i < WARM + N; i++)
            for (size_t done = 0; done < KIB64;) {
                ssize_t w = write(p[1], buf + done, KIB64 - done);
                if (w <= 0)
                    _exit(2);
                done += (size_t)w;
            }
        _exit(0);
    }
    close(p[1]);
    uint64_t t0 = 0;
    int err = 0;
    for (int i = 0; i < WARM + N && !err; i++) {
        if (i == WARM)
            t0 = tsc();
        for (size_t done = 0; done < KIB64 && !err;) {
            ssize_t r = read(p[0], buf + done, KIB64 - done);
            if (r <= 0)
                err = r < 0 ? errno : EPIPE;
            else
                done += (size_t)r;
        }
    }
    uint64_t t1 = tsc();
    close(p[0]);
    int r = reap(pid);
    if (err)
        return na("pipe_64k", "read", err);
    if (r)
        return child_failed("pipe_64k", r);
    return report("pipe_64k", N, t1 - t0);
}

/* The first write to each page of a fresh anonymous mapping: per page.  The warm-up maps,
 * touches and unmaps the same amount first, so the memory behind it is the system's own
 * already (on lx: pool pages it has had before). */
static int row_pagefault(void)
{
    enum { PAGES = 256 };
    uint64_t ticks = 0;
    for (int round = 0; round < 2; round++) {
        volatile char *m = mmap(NULL, PAGES * PAGE, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            return na("pagefault_anon", "mmap", errno);
        uint64_t t0 = tsc();
        for (int i = 0; i < PAGES; i++)
            m[i * PAGE] = 1;
        ticks = tsc() - t0;
        if (munmap((void *)m, PAGES * PAGE))
            return na("pagefault_anon", "munmap", errno);
    }
    return report("pagefault_anon", PAGES, ticks);
}

/* mmap and munmap of one page while the process has 10,000 other mappings, of alternating
 * rights so that none join: per pair.  They fill the space right below the top of the mmap
 * area, so each mmap's gap search must get past all of them (a region tree's summaries do
 * it in O(log n); a walk would be O(n)).  The page is executable: nothing joins it. */
static int row_mmap_10k(void)
{
    enum { MAPS = 10000, N = 2000, WARM = 200 };
    static void *maps[MAPS];
    int made = 0, r = 0;
    for (; made < MAPS; made++) {
        maps[made] = mmap(NULL, PAGE, made % 2 ? PROT_READ : PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (maps[made] == MAP_FAILED) {
            r = na("mmap_10k", "mmap", errno);
            break;
        }
    }
    uint64_t t0 = 0;
    for (int i = 0; !r && i < WARM + N; i++) {
        if (i == WARM)
            t0 = tsc();
        void *p = mmap(NULL, PAGE, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED || munmap(p, PAGE))
            r = na("mmap_10k", p == MAP_FAILED ? "mmap" : "munmap", errno);
    }
    uint64_t ticks = tsc() - t0;
    while (made-- > 0)
        munmap(maps[made], PAGE);
    return r ? r : report("mmap_10k", N, ticks);
}

/* Read a 64 KiB file (in the RAM file system: /tmp) again and again: per read of it all. */
static int row_file_reread(void)
{
    enum { N = 100, WARM = 10 };
    static const char path[] = "/tmp/lxbench.dat";
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        return na("file_reread_64k", "open", errno);
    memset(buf, 'f', sizeof buf);
    int err = write(fd, buf, KIB64) == KIB64 ? 0 : errno ? errno : EIO;
    uint64_t t0 = 0;
    for (int i = 0; i < WARM + N && !err; i++) {
        if (i == WARM)
            t0 = tsc();
        if (pread(fd, buf, KIB64, 0) != KIB64)
            err = errno ? errno : EIO;
    }
    uint64_t t1 = tsc();
    close(fd);
    unlink(path);
    if (err)
        return na("file_reread_64k", "write_pread", err);
    return report("file_reread_64k", N, t1 - t0);
}

static volatile long caught;

static void on_usr1(int sig)
{
    (void)sig;
    caught++;
}

/* kill(self) with a handler installed: delivery, the handler, rt_sigreturn; per signal. */
static int row_signal(void)
{
    enum { N = 1000, WARM = 100 };
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    if (sigaction(SIGUSR1, &sa, &old))
        return na("signal_catch", "rt_sigaction", errno);
    pid_t me = getpid();
    uint64_t t0 = 0;
    int err = 0;
    caught = 0;
    for (int i = 0; i < WARM + N && !err; i++) {
        if (i == WARM)
            t0 = tsc();
        if (kill(me, SIGUSR1))
            err = errno;
    }
    uint64_t t1 = tsc();
    long got = caught;
    sigaction(SIGUSR1, &old, NULL);
    if (err)
        return na("signal_catch", "kill", err);
    if (got != WARM + N)
        return na("signal_catch", "handler_not_run", 0);
    return report("signal_catch", N, t1 - t0);
}

/* ---- threads (issue 13 item 8): n/a under lx until clone makes threads --------------- */

static void *thread_nop(void *arg)
{
    return arg;
}

/* pthread_create + pthread_join of a thread that returns at once: per thread. */
static int row_thread_create_join(void)
{
    enum { N = 200, WARM = 20 };
    uint64_t t0 = 0;
    for (int i = 0; i < WARM + N; i++) {
        if (i == WARM)
            t0 = tsc();
        pthread_t t;
        int e = pthread_create(&t, NULL, thread_nop, NULL);
        if (e)
            return na("thread_create_join", "pthread_create", e);
        if ((e = pthread_join(t, NULL)))
            return na("thread_create_join", "pthread_join", e);
    }
    return report("thread_create_join", N, tsc() - t0);
}

#define FUTEX_WAIT_PRIVATE 128
#define FUTEX_WAKE_PRIVATE 129

static long futex_op(volatile uint32_t *addr, int op, uint32_t val)
{
    return syscall(SYS_futex, addr, op, val, NULL, NULL, 0);
}

static volatile uint32_t turn;              /* 1: the thread's turn, 0: main's */
enum { FUTEX_N = 2000, FUTEX_WARM = 200 };

static void *futex_partner(void *arg)
{
    (void)arg;
    for (int i = 0; i < FUTEX_WARM + FUTEX_N; i++) {
        while (turn != 1)
            futex_op(&turn, FUTEX_WAIT_PRIVATE, 0);
        turn = 0;
        futex_op(&turn, FUTEX_WAKE_PRIVATE, 1);
    }
    return NULL;
}

/* Two threads hand a word back and forth with FUTEX_WAIT/FUTEX_WAKE (private): per round
 * trip (two wakes, two switches). */
static int row_futex_pingpong(void)
{
    if (futex_op(&turn, FUTEX_WAKE_PRIVATE, 1) < 0)
        return na("futex_pingpong", "futex", errno);
    turn = 0;
    pthread_t t;
    int e = pthread_create(&t, NULL, futex_partner, NULL);
    if (e)
        return na("futex_pingpong", "pthread_create", e);
    uint64_t t0 = 0;
    for (int i = 0; i < FUTEX_WARM + FUTEX_N; i++) {
        if (i == FUTEX_WARM)
            t0 = tsc();
        turn = 1;
        futex_op(&turn, FUTEX_WAKE_PRIVATE, 1);
        while (turn != 0)
            futex_op(&turn, FUTEX_WAIT_PRIVATE, 1);
    }
    uint64_t t1 = tsc();
    pthread_join(t, NULL);
    return report("futex_pingpong", FUTEX_N, t1 - t0);
}

/* Two processes hand a word in a MAP_SHARED anonymous page back and forth with shared
 * FUTEX_WAIT/FUTEX_WAKE (keyed by the page: docs/linux/futex.md): per round trip (two wakes,
 * two process switches).  The threads version is futex_pingpong. */
static int row_futex_pingpong_proc(void)
{
    volatile uint32_t *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                                MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (w == MAP_FAILED)
        return na("futex_pingpong_proc", "mmap", errno);
    if (futex_op(w, 1, 1) < 0) {
        int e = errno;
        munmap((void *)w, 4096);
        return na("futex_pingpong_proc", "futex", e);
    }
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        munmap((void *)w, 4096);
        return na("futex_pingpong_proc", "fork", e);
    }
    if (pid == 0) {
        for (int i = 0; i < FUTEX_WARM + FUTEX_N; i++) {
            while (*w != 1)
                futex_op(w, 0, 0);              /* FUTEX_WAIT, shared */
            *w = 0;
            futex_op(w, 1, 1);                  /* FUTEX_WAKE, shared */
        }
        _exit(0);
    }
    uint64_t t0 = 0;
    for (int i = 0; i < FUTEX_WARM + FUTEX_N; i++) {
        if (i == FUTEX_WARM)
            t0 = tsc();
        *w = 1;
        futex_op(w, 1, 1);
        while (*w != 0)
            futex_op(w, 0, 1);
    }
    uint64_t t1 = tsc();
    int r = reap(pid);
    munmap((void *)w, 4096);
    if (r)
        return na("futex_pingpong_proc", "wait4", r < 0 ? -r : ECHILD);
    return report("futex_pingpong_proc", FUTEX_N, t1 - t0);
}

/* A contended pthread mutex handed over between two threads: three mutexes, each thread
 * unlocking one the other is about to lock (or already waits for) and then locking one the
 * other holds.  Per step (one hand-off each way). */
static pthread_mutex_t baton[3] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER,
                                    PTHREAD_MUTEX_INITIALIZER };
static volatile int partner_holds;
enum { MUTEX_N = 1000, MUTEX_WARM = 100 };

static void *mutex_partner(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&baton[2]);
    partner_holds = 1;
    for (int k = 0; k < MUTEX_WARM + MUTEX_N; k++) {
        pthread_mutex_lock(&baton[k % 3]);
        pthread_mutex_unlock(&baton[(k + 2) % 3]);
    }
    pthread_mutex_unlock(&baton[(MUTEX_WARM + MUTEX_N - 1) % 3]);
    return NULL;
}

static int row_mutex_handoff(void)
{
    pthread_mutex_lock(&baton[0]);
    pthread_mutex_lock(&baton[1]);
    partner_holds = 0;
    pthread_t t;
    int e = pthread_create(&t, NULL, mutex_partner, NULL);
    if (e) {
        pthread_mutex_unlock(&baton[1]);
        pthread_mutex_unlock(&baton[0]);
        return na("mutex_handoff", "pthread_create", e);
    }
    while (!partner_holds)
        sched_yield();
    uint64_t t0 = 0;
    for (int k = 0; k < MUTEX_WARM + MUTEX_N; k++) {
        if (k == MUTEX_WARM)
            t0 = tsc();
        pthread_mutex_unlock(&baton[k % 3]);
        pthread_mutex_lock(&baton[(k + 2) % 3]);
    }
    uint64_t t1 = tsc();
    pthread_join(t, NULL);
    /* Main holds the two the partner did not end with. */
    for (int k = 0; k < 3; k++)
        if (k != (MUTEX_WARM + MUTEX_N - 1) % 3)
            pthread_mutex_unlock(&baton[k]);
    return report("mutex_handoff", MUTEX_N, t1 - t0);
}

static const struct { const char *name; int (*fn)(void); } rows[] = {
    { "getpid", row_getpid },
    { "getppid", row_getppid },
    { "getpid_sleeper", row_getpid_sleeper },
    { "getppid_sleeper", row_getppid_sleeper },
    { "fork_exit", row_fork_exit },
    { "fork_execve", row_fork_execve },
    { "sh_c_exit", row_sh_c_exit },
    { "pipe_pingpong", row_pipe_pingpong },
    { "pipe_64k", row_pipe_64k },
    { "pagefault_anon", row_pagefault },
    { "file_reread_64k", row_file_reread },
    { "signal_catch", row_signal },
    { "ctxsw", row_ctxsw },
    { "mmap_10k", row_mmap_10k },
    { "thread_create_join", row_thread_create_join },
    { "futex_pingpong", row_futex_pingpong },
    { "futex_pingpong_proc", row_futex_pingpong_proc },
    { "mutex_handoff", row_mutex_handoff },
};

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "exit"))
        return 0;
    self = argv[0];
    long repeat = 1;
    if (argc > 1 && !strncmp(argv[1], "repeat=", 7)) {
        repeat = strtol(argv[1] + 7, NULL, 10);
        argv++;
        argc--;
    }
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        bool run = argc < 2;
        for (int a = 1; a < argc; a++)
            run |= !strcmp(argv[a], rows[i].name);
        for (long k = 0; run && k < repeat; k++)
            rows[i].fn();
    }
    out("BENCH-DONE\n");
    return 0;
}
