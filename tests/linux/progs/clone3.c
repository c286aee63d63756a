/* clone3, raw (issue 13 item 8, item 2's flags): the argument structure's sizes, the flag
 * combinations Linux 6.1 accepts (a fork, a vfork sharing memory on a new stack, a thread with
 * its TLS, PARENT_SETTID and CHILD_CLEARTID, PIDFD, CLEAR_SIGHAND, a chosen pid through set_tid,
 * a new pid namespace) and the ones it refuses, with their errors.  The child runs a function
 * of raw system calls only (it may share the parent's memory and TLS) and ends with SYS_exit;
 * what it saw comes back in memory or in its exit status. */
#include <signal.h>
#include <stddef.h>
#include "threads.h"

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif
#define CLONE_CLEAR_SIGHAND_ 0x100000000ull
#define CLONE_INTO_CGROUP_ 0x200000000ull
#define NR_clone3 435

struct clone_args {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
    uint64_t set_tid, set_tid_size, cgroup;
};
enum { SIZE_VER0 = 64, SIZE_VER1 = 80, SIZE_VER2 = 88 };

static long raw(long nr, long a, long b, long c, long d)
{
    register long r10 __asm__("r10") = d;
    long ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
                     : "rcx", "r11", "memory");
    return ret;
}

/* clone3; the child calls fn (on its new stack if it has one) and exits with its result.
 * -errno on failure. */
static long clone3_run(void *args, size_t size, int (*fn)(void))
{
    register long r12 __asm__("r12") = (long)fn;
    long ret;
    __asm__ volatile("syscall\n\t"
                     "test %%rax, %%rax\n\t"
                     "jnz 1f\n\t"
                     "xor %%ebp, %%ebp\n\t"
                     "call *%%r12\n\t"
                     "mov %%eax, %%edi\n\t"
                     "mov $60, %%eax\n\t"
                     "syscall\n\t"
                     "hlt\n"
                     "1:"
                     : "=a"(ret) : "a"(NR_clone3), "D"(args), "S"(size), "r"(r12)
                     : "rcx", "r11", "memory");
    return ret;
}

static void result(const char *what, long r)
{
    if (r < 0)
        printf("%s: -1 %s\n", what, errname((int)-r));
    else
        printf("%s: ok\n", what);
}

/* ---- what the children run --------------------------------------------------------- */

static volatile long seen_pid, seen_tid, seen_fs, marker;

static int exit3(void)
{
    return 3;
}

static int note_ids(void)
{
    seen_pid = raw(SYS_getpid, 0, 0, 0, 0);
    seen_tid = raw(SYS_gettid, 0, 0, 0, 0);
    unsigned long fs = 0;
    raw(SYS_arch_prctl, 0x1003 /* ARCH_GET_FS */, (long)&fs, 0, 0);
    seen_fs = (long)fs;
    marker = 42;
    return 0;
}

static int pid_in_namespace(void)
{
    return (int)raw(SYS_getpid, 0, 0, 0, 0);
}

static int usr1_is_default(void)
{
    unsigned long act[4] = { 99, 0, 0, 0 };
    raw(SYS_rt_sigaction, SIGUSR1, 0, (long)act, 8);
    return act[0] == 0 ? 10 : 11;              /* SIG_DFL is 0 */
}

/* ---- the cases --------------------------------------------------------------------- */

static char stack[65536] __attribute__((aligned(16)));
static char tls_block[512] __attribute__((aligned(64)));

static int wait_child(const char *what, long pid, int options)
{
    int st = -1;
    if (waitpid((pid_t)pid, &st, options) != pid) {
        printf("%s: waitpid %s\n", what, errname(errno));
        return -1;
    }
    show_status(what, st);
    return st;
}

static void sizes(void)
{
    struct { struct clone_args a; char extra[4096]; } big;
    memset(&big, 0, sizeof big);
    big.a.exit_signal = SIGCHLD;
    result("size 0", clone3_run(&big, 0, exit3));
    result("size 63", clone3_run(&big, SIZE_VER0 - 1, exit3));
    result("size 4097", clone3_run(&big, 4097, exit3));
    result("NULL, size 64", clone3_run(NULL, SIZE_VER0, exit3));
    big.extra[4] = 1;
    result("size 96, a byte past the structure set", clone3_run(&big, 96, exit3));
    big.extra[4] = 0;
    long pid = clone3_run(&big, 96, exit3);
    result("size 96, the rest zero", pid);
    if (pid > 0)
        wait_child("size 96, the rest zero", pid, 0);
    pid = clone3_run(&big, SIZE_VER0, exit3);
    result("size 64 (version 0)", pid);
    if (pid > 0)
        wait_child("size 64 (version 0)", pid, 0);
}

static void refused(void)
{
    static const struct { const char *what; uint64_t flags, exit_signal, stack, size; } bad[] = {
        { "exit_signal 65", 0, 65, 0, 0 },
        { "CSIGNAL bits in flags", SIGCHLD, 0, 0, 0 },
        { "an unknown flag (bit 40)", 1ull << 40, SIGCHLD, 0, 0 },
        { "CLONE_THREAD without CLONE_SIGHAND", CLONE_THREAD | CLONE_VM, 0, 1, 0 },
        { "CLONE_SIGHAND without CLONE_VM", CLONE_SIGHAND, SIGCHLD, 0, 0 },
        { "CLONE_THREAD with an exit signal",
          CLONE_THREAD | CLONE_SIGHAND | CLONE_VM, SIGCHLD, 1, 0 },
        { "CLONE_PARENT with an exit signal", CLONE_PARENT, SIGCHLD, 0, 0 },
        { "a stack of size 0", CLONE_VM | CLONE_VFORK, SIGCHLD, 1, 0 },
        { "a stack size without a stack", 0, SIGCHLD, 0, 4096 },
        { "CLONE_PIDFD with CLONE_THREAD",
          CLONE_PIDFD | CLONE_THREAD | CLONE_SIGHAND | CLONE_VM, 0, 1, 0 },
        { "CLONE_CLEAR_SIGHAND with CLONE_SIGHAND",
          CLONE_CLEAR_SIGHAND_ | CLONE_SIGHAND | CLONE_VM, SIGCHLD, 1, 0 },
        { "CLONE_NEWPID with CLONE_THREAD",
          CLONE_NEWPID | CLONE_THREAD | CLONE_SIGHAND | CLONE_VM, 0, 1, 0 },
        { "CLONE_FS with CLONE_NEWNS", CLONE_FS | CLONE_NEWNS, SIGCHLD, 0, 0 },
        { "CLONE_DETACHED alone (ignored)", 0x00400000, SIGCHLD, 0, 0 },
    };
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct clone_args a = { 0 };
        a.flags = bad[i].flags;
        a.exit_signal = bad[i].exit_signal;
        if (bad[i].stack) {
            a.stack = (uintptr_t)stack;
            a.stack_size = bad[i].size ? bad[i].size : (bad[i].flags & CLONE_VFORK) ? 0
                                                                               : sizeof stack;
        } else {
            a.stack_size = bad[i].size;
        }
        a.pidfd = (uintptr_t)&seen_fs;
        long pid = clone3_run(&a, SIZE_VER0, exit3);
        result(bad[i].what, pid);
        if (pid > 0)
            wait_child(bad[i].what, pid, 0);
    }
}

static void on_usr1(int sig)
{
    (void)sig;
}

static void accepted(void)
{
    struct clone_args a = { 0 };

    /* exit_signal 0: only __WALL (or __WCLONE) waits for it. */
    a.exit_signal = 0;
    long pid = clone3_run(&a, SIZE_VER0, exit3);
    result("no exit signal", pid);
    if (pid > 0) {
        int st;
        errno = 0;
        printf("no exit signal: waitpid without __WALL: %s\n",
               errname(waitpid((pid_t)pid, &st, WNOHANG) < 0 ? errno : 0));
        wait_child("no exit signal, __WALL", pid, __WALL);
    }

    /* vfork sharing memory, on a stack of its own: the parent runs on when it exits. */
    memset(&a, 0, sizeof a);
    marker = 0;
    a.flags = CLONE_VM | CLONE_VFORK;
    a.exit_signal = SIGCHLD;
    a.stack = (uintptr_t)stack;
    a.stack_size = sizeof stack;
    pid = clone3_run(&a, SIZE_VER0, note_ids);
    result("CLONE_VM|CLONE_VFORK on a new stack", pid);
    if (pid > 0) {
        printf("vfork: the child wrote our memory before we ran on %d, its pid is the one "
               "returned %d\n", marker == 42, seen_pid == pid);
        wait_child("vfork", pid, 0);
    }

    /* A thread: shares everything, its TLS, tids set and cleared. */
    memset(&a, 0, sizeof a);
    marker = 0;
    static volatile int32_t child_tid = -1, parent_tid = -1;
    a.flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
              CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID;
    a.stack = (uintptr_t)stack;
    a.stack_size = sizeof stack;
    a.tls = (uintptr_t)tls_block;
    *(void **)tls_block = tls_block;         /* a TCB that points at itself, as libcs make */
    a.child_tid = (uintptr_t)&child_tid;
    a.parent_tid = (uintptr_t)&parent_tid;
    long tid = clone3_run(&a, SIZE_VER0, note_ids);
    result("a thread", tid);
    if (tid > 0) {
        int32_t v;
        while ((v = child_tid) != 0)         /* CLONE_CHILD_CLEARTID: 0 and a wake at exit */
            syscall(SYS_futex, &child_tid, 0 /* FUTEX_WAIT */, v, NULL, NULL, 0);
        printf("thread: parent_tid is the tid %d, tid is not the pid %d, its getpid is ours %d, "
               "its gettid the tid %d, its fs base the TLS %d, child_tid cleared %d\n",
               parent_tid == tid, tid != getpid(), seen_pid == getpid(), seen_tid == tid,
               seen_fs == (long)tls_block, child_tid == 0);
        errno = 0;
        printf("thread: waitpid on it %s\n",
               errname(waitpid((pid_t)tid, NULL, __WALL | WNOHANG) < 0 ? errno : 0));
    }

    /* CLONE_PIDFD: a pidfd in args.pidfd. */
    memset(&a, 0, sizeof a);
    int pidfd = -1;
    a.flags = CLONE_PIDFD;
    a.pidfd = (uintptr_t)&pidfd;
    a.exit_signal = SIGCHLD;
    pid = clone3_run(&a, SIZE_VER0, exit3);
    result("CLONE_PIDFD", pid);
    if (pid > 0) {
        printf("CLONE_PIDFD: a new fd %d, close-on-exec %d\n", pidfd > 2,
               (fcntl(pidfd, F_GETFD) & FD_CLOEXEC) != 0);
        wait_child("CLONE_PIDFD", pid, 0);
        close(pidfd);
    }

    /* CLONE_CLEAR_SIGHAND: a handled signal is default in the child. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;                 /* a handler: ignored ones are kept */
    sigaction(SIGUSR1, &sa, NULL);
    for (int clear = 0; clear < 2; clear++) {
        memset(&a, 0, sizeof a);
        a.flags = clear ? CLONE_CLEAR_SIGHAND_ : 0;
        a.exit_signal = SIGCHLD;
        pid = clone3_run(&a, SIZE_VER0, usr1_is_default);
        result(clear ? "CLONE_CLEAR_SIGHAND" : "no CLONE_CLEAR_SIGHAND", pid);
        if (pid > 0)
            wait_child(clear ? "CLONE_CLEAR_SIGHAND (10: default)"
                             : "no CLONE_CLEAR_SIGHAND (11: handled)", pid, 0);
    }

    /* set_tid (version 1 of the structure): a chosen pid, one in use, too many. */
    static const struct { const char *what; int pid_kind; uint64_t n; } set[] = {
        { "set_tid a free pid", 0, 1 }, { "set_tid our own pid", 1, 1 },
        { "set_tid size 33", 0, 33 }, { "set_tid pid 0", 2, 1 },
        { "set_tid size 2 without a new namespace", 0, 2 },
    };
    for (unsigned i = 0; i < sizeof set / sizeof set[0]; i++) {
        pid_t want[33] = { 0 };
        want[0] = set[i].pid_kind == 0 ? 31337 : set[i].pid_kind == 1 ? getpid() : 0;
        want[1] = 31338;
        memset(&a, 0, sizeof a);
        a.exit_signal = SIGCHLD;
        a.set_tid = (uintptr_t)want;
        a.set_tid_size = set[i].n;
        pid = clone3_run(&a, SIZE_VER1, exit3);
        result(set[i].what, pid);
        if (pid > 0) {
            printf("%s: the child's pid is the one asked for %d\n", set[i].what, pid == 31337);
            wait_child(set[i].what, pid, 0);
        }
    }
    memset(&a, 0, sizeof a);
    a.exit_signal = SIGCHLD;
    a.set_tid_size = 1;
    result("set_tid NULL with a size", clone3_run(&a, SIZE_VER1, exit3));

    /* CLONE_INTO_CGROUP (version 2) with a bad fd. */
    memset(&a, 0, sizeof a);
    a.flags = CLONE_INTO_CGROUP_;
    a.exit_signal = SIGCHLD;
    a.cgroup = 999;
    result("CLONE_INTO_CGROUP fd 999", clone3_run(&a, SIZE_VER2, exit3));
    result("CLONE_INTO_CGROUP in a version 0 structure", clone3_run(&a, SIZE_VER0, exit3));

    /* A new pid namespace: the child is its pid 1. */
    memset(&a, 0, sizeof a);
    a.flags = CLONE_NEWPID;
    a.exit_signal = SIGCHLD;
    pid = clone3_run(&a, SIZE_VER0, pid_in_namespace);
    result("CLONE_NEWPID", pid);
    if (pid > 0)
        wait_child("CLONE_NEWPID (exit status: its getpid)", pid, 0);
}

int main(void)
{
    threads_init();
    sizes();
    refused();
    accepted();
    return 0;
}
