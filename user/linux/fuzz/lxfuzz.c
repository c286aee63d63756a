/* The Linux-side fuzzer for lx (issue 8 item 8; docs/linux/robustness.md): a static Linux
 * program, freestanding like the self-test (raw system calls, no libc), that makes random
 * system calls with random and hostile arguments from many processes at once, in a loop
 * driven by one seed.  It tests lx, not Linux: run it under lx only (on a Linux machine it
 * would create and remove files under /tmp and send signals to itself).
 *
 *   lxfuzz fuzz SEED CHILDREN CALLS [PARALLEL [ROUNDS]]
 *       CHILDREN processes in all, PARALLEL (default 6) at a time, each making CALLS random
 *       calls with seed SEED + its number, then exiting 0; ROUNDS (default 1) times, with
 *       seeds SEED, SEED + 1, ... (a round's children draw from SEED * 2^20 + n).  A child may die on the way (a
 *       signal it sent itself, a fault after it unmapped its own stack): that is fine, lx must
 *       only survive and lose nothing.  The parent prints one summary line.
 *   lxfuzz fuzz ... threads=1
 *       (anywhere after "fuzz") also clone and clone3 threads (CLONE_VM|CLONE_SIGHAND|
 *       CLONE_THREAD with random other flags, each on a fresh stack, at most THREADS_MAX a
 *       child) that make random calls of their own, and futex/futex_waitv with every op on the
 *       child's own memory and on a page MAP_SHARED by all children; off by default, since lx
 *       has neither yet (issue 13).  Threads share the generator: such a run is not
 *       reproducible call for call.  The parent prints one more line: the threads started.
 *   lxfuzz spawn N
 *       N times fork + execve(self, "child") + exit + wait4: the leak test (lx's free memory
 *       must be where it started).
 *
 * What a child may not do, because the fuzzer must end: wait forever (pause, sigsuspend,
 * futex without a bounded timeout, poll/select, sleeps, pipes it alone holds both ends of,
 * FIFOs), create processes
 * (fork bombs), stop processes (SIGSTOP and friends), or signal anyone but itself.  Every
 * other system-call number, implemented or not, is fair game, with arguments drawn from
 * small integers, -1, huge values, file descriptors, paths, and pointers: valid buffers,
 * NULL, unmapped, kernel-half, non-canonical, read-only text, the end of the user half. */
typedef unsigned long u64;
typedef long i64;

__asm__(".globl _start\n"
        "_start:\n"
        "  movq %rsp, %rdi\n"
        "  andq $-16, %rsp\n"
        "  call cmain\n"
        "  hlt\n");

static i64 sys6(i64 nr, i64 a, i64 b, i64 c, i64 d, i64 e, i64 f)
{
    register i64 r10 __asm__("r10") = d;
    register i64 r8 __asm__("r8") = e;
    register i64 r9 __asm__("r9") = f;
    i64 ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10),
                     "r"(r8), "r"(r9) : "rcx", "r11", "memory");
    return ret;
}
#define sys3(nr, a, b, c) sys6(nr, (i64)(a), (i64)(b), (i64)(c), 0, 0, 0)

enum { SYS_read = 0, SYS_write = 1, SYS_open = 2, SYS_close = 3, SYS_mmap = 9, SYS_dup2 = 33,
       SYS_getpid = 39, SYS_clone = 56, SYS_fork = 57, SYS_execve = 59, SYS_exit = 60,
       SYS_wait4 = 61, SYS_kill = 62, SYS_setsid = 112, SYS_futex = 202,
       SYS_exit_group = 231, SYS_clone3 = 435, SYS_futex_waitv = 449 };

static u64 slen(const char *s)
{
    u64 n = 0;
    while (s[n])
        n++;
    return n;
}

static void puts1(const char *s)
{
    sys3(SYS_write, 1, s, slen(s));
}

static void putnum(u64 v)
{
    char buf[24];
    int i = 23;
    buf[i] = 0;
    do
        buf[--i] = (char)('0' + v % 10);
    while (v /= 10);
    puts1(&buf[i]);
}

static u64 atou(const char *s)
{
    u64 v = 0;
    while (*s >= '0' && *s <= '9')
        v = v * 10 + (u64)(*s++ - '0');
    return v;
}

static int seq(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

/* xorshift64*: the whole run follows from the seed. */
static u64 rng;
static u64 rnd(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ull;
}

static char buf[8192] __attribute__((aligned(4096)));
static const char *const paths[] = {
    "/tmp/a", "/tmp/b", "/tmp/d", "/tmp/a/x", "/", "/tmp", "/dev/null", "", ".", "..",
    "/nonexistent/x", "/tmp/d/../a", "/dev/zero", "/proc/self/maps", "/bin", "/tmp/l",
};

/* An argument: mostly plausible, often hostile. */
static u64 arg(void)
{
    u64 r = rnd();
    switch (r % 24) {
    case 0: return 0;
    case 1: return (u64)-1;
    case 2: return r >> 60;                              /* 0..15: fds, small flags */
    case 3: return (r >> 32) & 0xFF;
    case 4: return (r >> 20) & 0xFFFF;
    case 5: return (u64)buf + ((r >> 40) & 0xFFF);       /* a valid buffer */
    case 6: return (u64)buf;
    case 7: return (u64)paths[(r >> 32) % (sizeof paths / sizeof paths[0])];
    case 8: return (u64)paths[(r >> 32) % (sizeof paths / sizeof paths[0])];
    case 9: return 0x1000;                               /* below mmap_min_addr */
    case 10: return 0xFFFF800000000000ull + ((r >> 20) & 0xFFFFF000); /* kernel half */
    case 11: return 0x0000800000000000ull;               /* non-canonical */
    case 12: return 0x00007FFFFFFFF000ull - ((r >> 52) << 3);  /* end of the user half */
    case 13: return (u64)&puts1;                         /* read-only text */
    case 14: return 1ull << (r >> 58);                   /* a power of two */
    case 15: return r;                                   /* anything */
    case 16: return 0x7FFFFFFF;
    case 17: return 0x80000000;
    case 18: return 4096;
    case 19: return (u64)(i64)(int)(r >> 32);            /* sign-extended int */
    case 20: return (u64)buf + 4096 - 8;                 /* straddles the buffer's end */
    case 21: return (u64)-100;                           /* AT_FDCWD */
    default: return r >> 48;
    }
}

/* ---- threads=1: clone threads and futex ------------------------------------------------ */

enum { THREADS_MAX = 8, THREAD_STACK = 16384, THREAD_CALLS = 64 };
enum { CLONE_VM = 0x100, CLONE_FS = 0x200, CLONE_FILES = 0x400, CLONE_SIGHAND = 0x800,
       CLONE_VFORK = 0x4000, CLONE_THREAD = 0x10000, CLONE_SYSVSEM = 0x40000,
       CLONE_SETTLS = 0x80000, CLONE_PARENT_SETTID = 0x100000,
       CLONE_CHILD_CLEARTID = 0x200000, CLONE_CHILD_SETTID = 0x1000000 };

static int threads_on;
static u64 *shared_page;            /* MAP_SHARED before the children: [0] threads started */
static char stacks[THREADS_MAX][THREAD_STACK] __attribute__((aligned(16)));
static int threads_made;
static int tid_words[THREADS_MAX * 2];

/* A futex word: the child's own memory, the page all children share, or a hostile pointer. */
static u64 futex_word(void)
{
    u64 r = rnd();
    switch (r % 6) {
    case 0: case 1: return (u64)buf + ((r >> 8) & 0x3C);
    case 2: case 3: return (u64)shared_page + 64 + ((r >> 8) & 0x3C);   /* past the count */
    case 4: return (u64)&tid_words[(r >> 8) % (THREADS_MAX * 2)];
    default: return arg();
    }
}

/* A timeout that always ends soon: a short relative time, an absolute one in the past, a bad
 * one (EINVAL) or a hostile pointer (EFAULT); never NULL, so no wait is endless. */
static u64 futex_timeout(void)
{
    static i64 ts[4][2] = { { 0, 1000000 }, { 0, 0 }, { 0, 1000000000 }, { -1, 0 } };
    u64 r = rnd();
    return r % 5 == 4 ? (u64)0xFFFF800000000000ull : (u64)ts[r % 4];
}

static void futex_call(void)
{
    u64 r = rnd();
    if (r % 8 == 0) {                    /* futex_waitv: a list of up to 3 in buf */
        u64 *w = (u64 *)(buf + 1024);
        u64 n = (r >> 8) % 4;
        for (u64 i = 0; i < 3; i++) {
            w[i * 3] = rnd() & 3;
            w[i * 3 + 1] = futex_word();
            w[i * 3 + 2] = (rnd() & 1) ? 0x82 : rnd() & 0xFFFF;  /* U32|PRIVATE, or junk */
        }
        sys6(SYS_futex_waitv, (i64)w, (i64)n, (i64)(rnd() & 1), (i64)futex_timeout(),
             (i64)(rnd() % 3 == 0 ? 0 : 1), 0);
        return;
    }
    /* every op (0..13 and past them), PRIVATE and CLOCK_REALTIME at random */
    u64 op = (r >> 8) % 16 | ((r >> 12) & 1 ? 128 : 0) | ((r >> 13) & 1 ? 256 : 0);
    u64 val = (r >> 16) & 1 ? rnd() & 3 : arg();
    sys6(SYS_futex, (i64)futex_word(), (i64)op, (i64)val, (i64)futex_timeout(),
         (i64)futex_word(), (i64)((r >> 20) & 1 ? ~0ull : arg()));
}

static void random_call(void);

/* A thread's life: some random calls, then its own exit (not the group's). */
__attribute__((used, noinline)) static void thread_body(void)
{
    for (int i = 0; i < THREAD_CALLS; i++)
        random_call();
    sys3(SYS_exit, 0, 0, 0);
}

/* clone or clone3 with CLONE_THREAD always (so no process is made) and random other flags;
 * the new thread starts on a stack of its own in thread_body. */
static void clone_call(u64 nr)
{
    if (threads_made >= THREADS_MAX)
        return;
    static const u64 optional[] = { CLONE_FS, CLONE_FILES, CLONE_SYSVSEM, CLONE_SETTLS,
                                    CLONE_PARENT_SETTID, CLONE_CHILD_CLEARTID,
                                    CLONE_CHILD_SETTID, CLONE_VFORK };
    u64 flags = CLONE_VM | CLONE_SIGHAND | CLONE_THREAD;
    for (unsigned i = 0; i < sizeof optional / sizeof optional[0]; i++)
        if (rnd() & 1)
            flags |= optional[i];
    if (rnd() % 8 == 0)
        flags |= 1ull << (rnd() % 32);           /* sometimes a flag that makes it EINVAL */
    if (!(flags & CLONE_THREAD) || (flags & 0xFF))
        flags = (flags | CLONE_THREAD) & ~0xFFull;       /* threads only, no exit signal */
    flags &= ~0x00008000ull;                             /* CLONE_PARENT: not a sibling */
    u64 top = (u64)stacks[threads_made] + THREAD_STACK;
    int *ptid = &tid_words[threads_made * 2], *ctid = ptid + 1;
    u64 tls = (u64)buf;                     /* a TLS base the thread never reads */
    i64 ret;
    register i64 r10 __asm__("r10");
    register i64 r8 __asm__("r8");
    if (nr == SYS_clone3) {
        u64 *a = (u64 *)(buf + 2048);       /* struct clone_args, version 0 */
        a[0] = flags, a[1] = 0, a[2] = (u64)ctid, a[3] = (u64)ptid, a[4] = 0;
        a[5] = top - THREAD_STACK, a[6] = THREAD_STACK, a[7] = tls;
        __asm__ volatile("syscall\n\t"
                         "test %%rax, %%rax\n\t"
                         "jnz 1f\n\t"
                         "call thread_body\n"
                         "1:"
                         : "=a"(ret) : "a"((i64)SYS_clone3), "D"(a), "S"(64ull)
                         : "rcx", "r11", "memory");
    } else {
        r10 = (i64)ctid;
        r8 = (i64)tls;
        __asm__ volatile("syscall\n\t"
                         "test %%rax, %%rax\n\t"
                         "jnz 1f\n\t"
                         "call thread_body\n"
                         "1:"
                         : "=a"(ret) : "a"((i64)SYS_clone), "D"(flags), "S"(top), "d"(ptid),
                           "r"(r10), "r"(r8)
                         : "rcx", "r11", "memory");
    }
    if (ret > 0) {
        threads_made++;
        __atomic_fetch_add(&shared_page[0], 1, __ATOMIC_RELAXED);
    }
}

/* Numbers a child never calls (see the header); the stops and others are checked below. */
static int forbidden(u64 nr)
{
    switch (nr) {
    case 7: case 23: case 270: case 271: case 232: case 281: case 441:  /* poll, select, epoll */
    case 22: case 293: case 133: case 259:      /* pipes, mknod (FIFOs) */
    case 34: case 130: case 128: case 35: case 230:    /* pause, sigsuspend, timedwait, sleeps */
    case 202: case 449:                         /* futex */
    case 56: case 57: case 58: case 59: case 322: case 435:    /* processes, execve */
    case 60: case 231:                          /* exit: ends the child before its calls */
    case 43: case 45: case 47: case 288: case 299: case 64: case 65: case 69: case 70:
    case 220:                                   /* accept, recv*, SysV IPC waits */
    case 101: case 169: case 310: case 311:     /* ptrace, reboot, process_vm_* */
    case 62: case 200: case 234: case 129: case 297:   /* signals: sanitised below */
        return 1;
    }
    return 0;
}

static i64 me;

static void random_call(void)
{
    if (threads_on) {                       /* more often than their share of 470 numbers */
        u64 r = rnd() % 32;
        if (r == 0) {
            clone_call(rnd() & 1 ? SYS_clone : SYS_clone3);
            return;
        }
        if (r < 3) {
            futex_call();
            return;
        }
    }
    u64 nr = rnd() % 470;
    if (nr == 62 || nr == 200 || nr == 234) {
        /* kill/tkill/tgkill: only itself, no stop signals (they would hang the run) */
        u64 sig = rnd() % 65;
        if (sig == 19 || sig == 20 || sig == 21 || sig == 22)
            sig = 0;
        if (nr == 234)
            sys3(nr, me, me, sig);
        else
            sys3(nr, nr == 62 && (rnd() & 1) ? 0 : me, sig, 0);
        return;
    }
    if (threads_on && (nr == SYS_futex || nr == SYS_futex_waitv)) {
        futex_call();
        return;
    }
    if (threads_on && (nr == SYS_clone || nr == SYS_clone3)) {
        clone_call(nr);
        return;
    }
    if (forbidden(nr))
        return;
    sys6((i64)nr, (i64)arg(), (i64)arg(), (i64)arg(), (i64)arg(), (i64)arg(), (i64)arg());
}

static void child(u64 seed, u64 calls)
{
    rng = seed * 0x9E3779B97F4A7C15ull + 1;
    rnd();
    /* Its own session, and nothing that reaches the console: the test reads that. */
    sys3(SYS_setsid, 0, 0, 0);
    i64 fd = sys3(SYS_open, "/dev/null", 2, 0);
    for (int i = 0; i < 3; i++)
        sys3(SYS_dup2, fd, i, 0);
    me = sys3(SYS_getpid, 0, 0, 0);
    for (u64 n = 0; n < calls; n++)
        random_call();
    sys3(SYS_exit_group, 0, 0, 0);        /* ends its threads too */
}

static int fuzz(u64 seed, u64 children, u64 calls, u64 parallel)
{
    u64 started = 0, ended = 0, exited = 0, killed = 0, running = 0, failed = 0;
    while (ended < children) {
        while (running < parallel && started < children) {
            i64 pid = sys3(SYS_fork, 0, 0, 0);
            if (pid == 0)
                child((seed << 20) + started, calls);
            if (pid < 0) {
                failed++;
                break;
            }
            started++, running++;
        }
        int status = 0;
        i64 pid = sys6(SYS_wait4, -1, (i64)&status, 0, 0, 0, 0);
        if (pid < 0) {
            puts1("lxfuzz: wait4 failed\n");
            return 1;
        }
        running--, ended++;
        if ((status & 0x7F) == 0)
            exited++;
        else
            killed++;
    }
    puts1("lxfuzz: seed ");
    putnum(seed);
    puts1(": ");
    putnum(ended);
    puts1(" children of ");
    putnum(calls);
    puts1(" calls ended (");
    putnum(exited);
    puts1(" exited, ");
    putnum(killed);
    puts1(" killed, ");
    putnum(failed);
    puts1(" forks refused)\n");
    if (threads_on) {
        puts1("lxfuzz: seed ");
        putnum(seed);
        puts1(": ");
        putnum(shared_page[0]);
        puts1(" threads started\n");
        shared_page[0] = 0;
    }
    return 0;
}

static int spawn(const char *self, u64 n)
{
    u64 ok = 0;
    char *argv[] = { (char *)self, "child", 0 };
    char *envp[] = { 0 };
    for (u64 i = 0; i < n; i++) {
        i64 pid = sys3(SYS_fork, 0, 0, 0);
        if (pid == 0) {
            sys3(SYS_execve, self, argv, envp);
            sys3(SYS_exit, 127, 0, 0);
        }
        int status = -1;
        if (pid > 0 && sys6(SYS_wait4, pid, (i64)&status, 0, 0, 0, 0) == pid && status == 0)
            ok++;
    }
    puts1("lxfuzz: spawned ");
    putnum(ok);
    puts1(" of ");
    putnum(n);
    puts1("\n");
    return ok != n;
}

int cmain(u64 *sp)
{
    int argc = (int)sp[0];
    char **argv = (char **)(sp + 1);
    int r = 2;
    for (int i = 2; i < argc; i++)          /* threads=1: an option, not a position */
        if (seq(argv[i], "threads=1")) {
            threads_on = 1;
            for (int j = i; j < argc; j++)
                argv[j] = argv[j + 1];
            argc--;
            break;
        }
    if (threads_on) {
        /* MAP_SHARED|MAP_ANONYMOUS, read and write: every child's futexes meet here */
        i64 p = sys6(SYS_mmap, 0, 4096, 3, 0x21, -1, 0);
        if (p < 0 && p > -4096) {
            puts1("lxfuzz: threads=1: mmap of the shared page failed\n");
            sys3(SYS_exit_group, 2, 0, 0);
        }
        shared_page = (u64 *)p;
    }
    if (argc >= 5 && seq(argv[1], "fuzz")) {
        u64 rounds = argc > 6 ? atou(argv[6]) : 1;
        r = 0;
        for (u64 i = 0; i < rounds && !r; i++)
            r = fuzz(atou(argv[2]) + i, atou(argv[3]), atou(argv[4]),
                     argc > 5 ? atou(argv[5]) : 6);
    }
    else if (argc >= 3 && seq(argv[1], "spawn"))
        r = spawn(argv[0], atou(argv[2]));
    else if (argc >= 2 && seq(argv[1], "child"))
        r = 0;
    else
        puts1("usage: lxfuzz fuzz SEED CHILDREN CALLS [PARALLEL [ROUNDS]] [threads=1] | "
              "spawn N\n");
    sys3(SYS_exit_group, r, 0, 0);
    return r;
}
