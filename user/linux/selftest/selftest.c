/* A tiny static Linux program for lx's system test (tests/system/test_lx.py), built with
 * the host compiler: freestanding, raw system calls, no libc, so it needs nothing from a
 * Linux distribution.  It behaves the same on Linux: run it there only in the
 * QEMU Linux guest (tools/initramfs/linuxref_run.py), never on the host.
 *
 *   lxselftest.elf [args]    hello, argv/envp/auxv, brk, mmap, arch_prctl; exit 42
 *   lxselftest.elf efault    bad pointers: -EFAULT (lx must survive); exit 0
 *   lxselftest.elf segv      a NULL store: killed by SIGSEGV
 *   lxselftest.elf textwrite a store to its own text: killed by SIGSEGV
 *   lxselftest.elf ud2       an invalid opcode: killed by SIGILL
 *   lxselftest.elf fs        files (under lx: the test's initramfs, tests/system/test_lx_fs.py):
 *                            open/read/write/stat/getdents64/links/rename/dup/fcntl/...; exit 0
 *   lxselftest.elf system    identity, limits, scheduling, sysinfo, prctl (selftest/system.c)
 *   lxselftest.elf proc      mounts, /proc, /dev, statx/utimensat/chown/sendfile/mknod/...
 *                            (tests/system/test_lx_proc.py's initramfs); exit 0
 *   lxselftest.elf fsfill    write a file until /tmp is full (ENOSPC), another process runs on
 *   lxselftest.elf cost      TSC ticks per getpid and per first touch of a fresh page (a
 *                            figure to look at by hand, under -icount: guest instructions)
 *   lxselftest.elf fork [N [NONELF]]  processes: fork (copy-on-write, registers, FS base),
 *                            wait4 (parked, WNOHANG, EFAULT, ECHILD), a child killed by
 *                            SIGSEGV, MAP_SHARED across fork, vfork, clone with fork flags,
 *                            execve (of itself, from a fork and a vfork child; ENOENT,
 *                            EFAULT; ENOEXEC with a non-ELF file NONELF), process groups and
 *                            sessions, and a loop of N fork/exit/wait (default 20); exit 0
 *   lxselftest.elf exec | mm | oom | showargs   executables and memory (execmm.c)
 *   lxselftest.elf signal    signals: actions, masks, the frame and sigreturn, the
 *                            alternate stack, faults, default actions, parked calls
 *                            (EINTR, SA_RESTART), timers, stop/continue, kill (signal.c)
 *   lxselftest.elf many N    N children alive at once (parked in a pipe read), then reaped
 *   lxselftest.elf execed STATUS PID PPID   run by the fork mode's execve: checks its pid
 *                            (unless 0), parent and fresh registers; exits STATUS
 * Every check prints "ok: WHAT" or "FAIL: WHAT". */
typedef unsigned long u64;

u64 entry_sp, entry_rdx;           /* set by _start */

__asm__(".globl _start\n"
        "_start:\n"
        "  movq %rsp, entry_sp(%rip)\n"
        "  movq %rdx, entry_rdx(%rip)\n"
        "  movq %rsp, %rdi\n"
        "  andq $-16, %rsp\n"
        "  call cmain\n"
        "  hlt\n");

static long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    long ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10),
                     "r"(r8), "r"(r9) : "rcx", "r11", "memory");
    return ret;
}
#define sys3(nr, a, b, c) sys6(nr, (long)(a), (long)(b), (long)(c), 0, 0, 0)

enum { SYS_write = 1, SYS_mmap = 9, SYS_munmap = 11, SYS_brk = 12, SYS_writev = 20,
       SYS_getpid = 39, SYS_clone = 56, SYS_fork = 57, SYS_vfork = 58, SYS_execve = 59,
       SYS_exit = 60, SYS_wait4 = 61, SYS_uname = 63, SYS_setpgid = 109, SYS_getppid = 110,
       SYS_getpgrp = 111, SYS_setsid = 112, SYS_getpgid = 121, SYS_getsid = 124,
       SYS_arch_prctl = 158, SYS_exit_group = 231 };

static u64 slen(const char *s)
{
    u64 n = 0;
    while (s[n])
        n++;
    return n;
}

static int seq(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

static void puts1(const char *s)
{
    sys3(SYS_write, 1, s, slen(s));
}

static void putnum(u64 v, int base)
{
    char buf[24];
    int i = 23;
    buf[i] = 0;
    do {
        buf[--i] = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    if (base == 16)
        buf[--i] = 'x', buf[--i] = '0';
    puts1(&buf[i]);
}

static int failures;

static void check(int ok, const char *what)
{
    puts1(ok ? "ok: " : "FAIL: ");
    puts1(what);
    puts1("\n");
    failures += !ok;
}

static u64 auxval(u64 *auxv, u64 type)
{
    for (; auxv[0]; auxv += 2)
        if (auxv[0] == type)
            return auxv[1];
    return 0;
}

extern char _start[];
static u64 tls_block[4] = { 0x1234abcd, 0, 0, 0 };

static int hello(int argc, char **argv, char **envp, u64 *auxv)
{
    puts1("hello from linux\n");
    puts1("argc ");
    putnum(argc, 10);
    puts1("\n");
    for (int i = 0; i < argc; i++) {
        puts1("argv[");
        putnum(i, 10);
        puts1("] ");
        puts1(argv[i]);
        puts1("\n");
    }
    int envc = 0;
    while (envp[envc])
        envc++;
    check(envc > 0 && envp[0][0], "envp");
    check(entry_sp % 16 == 0, "rsp 16-byte aligned at _start");
    check(entry_rdx == 0, "rdx 0 at _start");
    check(auxval(auxv, 6) == 4096, "AT_PAGESZ");
    check(auxval(auxv, 9) == (u64)_start, "AT_ENTRY");
    check(auxval(auxv, 4) == 56 && auxval(auxv, 5) > 0, "AT_PHENT, AT_PHNUM");
    u64 phdr = auxval(auxv, 3);
    check(phdr && (*(unsigned *)phdr == 6 /* PT_PHDR */ || *(unsigned *)phdr == 1),
          "AT_PHDR points at the program headers");
    unsigned char *rnd = (unsigned char *)auxval(auxv, 25);
    check(rnd != 0, "AT_RANDOM");
    const char *execfn = (const char *)auxval(auxv, 31);
    check(execfn && seq(execfn, argv[0]), "AT_EXECFN");
    check(auxval(auxv, 17) == 100, "AT_CLKTCK");
    check(auxval(auxv, 11) == 0 && auxval(auxv, 12) == 0 && auxval(auxv, 23) == 0,
          "AT_UID, AT_EUID, AT_SECURE");
    check(sys3(SYS_getpid, 0, 0, 0) > 0, "getpid");

    /* brk: query, grow by 100 KiB, use it, shrink. */
    u64 b0 = sys3(SYS_brk, 0, 0, 0);
    u64 b1 = sys3(SYS_brk, b0 + 100000, 0, 0);
    check(b0 && b1 == b0 + 100000, "brk grows");
    volatile char *heap = (char *)b0;
    heap[0] = 1, heap[99999] = 2;
    check(heap[0] == 1 && heap[99999] == 2 && heap[50000] == 0, "brk memory zeroed, usable");
    check((u64)sys3(SYS_brk, b0, 0, 0) == b0, "brk shrinks");

    /* mmap: anonymous, then MAP_FIXED over part of it, munmap. */
    long m = sys6(SYS_mmap, 0, 3 * 4096, 3, 0x22, -1, 0);
    check(m > 0 && (m & 4095) == 0, "mmap anonymous");
    volatile u64 *mp = (u64 *)m;
    mp[0] = 7, mp[512] = 8, mp[1024] = 9;
    check(mp[0] == 7 && mp[512] == 8 && mp[1024] == 9 && mp[5] == 0, "mmap memory");
    long f = sys6(SYS_mmap, m + 4096, 4096, 3, 0x32, -1, 0);
    check(f == m + 4096 && mp[512] == 0 && mp[0] == 7 && mp[1024] == 9,
          "mmap MAP_FIXED replaces a page");
    check(sys3(SYS_munmap, m, 3 * 4096, 0) == 0, "munmap");
    check(sys6(SYS_mmap, 0, 4096, 3, 0x20, -1, 0) == -22, "mmap without a type: EINVAL");
    check(sys6(SYS_mmap, 0, 0, 3, 0x22, -1, 0) == -22, "mmap of 0 bytes: EINVAL");

    /* arch_prctl: FS base, read through %fs:0. */
    check(sys3(SYS_arch_prctl, 0x1002, tls_block, 0) == 0, "arch_prctl ARCH_SET_FS");
    u64 v;
    __asm__ volatile("movq %%fs:0, %0" : "=r"(v));
    check(v == 0x1234abcd, "%fs:0 reads through the new base");
    u64 fs = 0;
    check(sys3(SYS_arch_prctl, 0x1003, &fs, 0) == 0 && fs == (u64)tls_block,
          "arch_prctl ARCH_GET_FS");

    char uts[6 * 65];
    check(sys3(SYS_uname, uts, 0, 0) == 0 && seq(uts, "Linux") && seq(uts + 4 * 65, "x86_64"),
          "uname");
    struct { const char *base; u64 len; } iov[2] = { { "writev ", 7 }, { "works\n", 6 } };
    check(sys3(SYS_writev, 1, iov, 2) == 13, "writev");
    check(sys3(335, 0, 0, 0) == -38 && sys3(100000, 0, 0, 0) == -38, "unknown calls: ENOSYS");
    puts1(failures ? "selftest: FAILED\n" : "selftest: all passed\n");
    return 42;
}

static int efault(void)
{
    check(sys3(SYS_write, 1, 0x10, 5) == -14, "write from NULL page: EFAULT");
    check(sys3(SYS_write, 1, 0x7ff000000000, 5) == -14, "write from unmapped memory: EFAULT");
    check(sys3(SYS_write, 1, -4096L, 5) == -14, "write from a kernel address: EFAULT");
    long m = sys6(SYS_mmap, 0, 2 * 4096, 3, 0x22, -1, 0);
    check(m > 0 && sys3(SYS_munmap, m + 4096, 4096, 0) == 0, "mmap, munmap of its second page");
    char *end = (char *)m + 4096 - 3;
    end[0] = 'a', end[1] = 'b', end[2] = '\n';
    /* Linux writes what it could read or fails, depending on the file: either is right. */
    long r = sys3(SYS_write, 1, end, 10);
    check(r == 3 || r == -14, "write across the end of a mapping: short or EFAULT");
    check(sys3(SYS_uname, 0x10, 0, 0) == -14, "uname to NULL page: EFAULT");
    check(sys3(SYS_uname, _start, 0, 0) == -14, "uname into read-only text: EFAULT");
    check(sys3(SYS_arch_prctl, 0x1003, _start, 0) == -14, "ARCH_GET_FS into text: EFAULT");
    check(sys3(SYS_arch_prctl, 0x1002, 0x800000000000, 0) == -1, "ARCH_SET_FS non-user: EPERM");
    check(sys3(SYS_writev, 1, 0x10, 1) == -14, "writev of a bad iovec: EFAULT");
    check(sys3(SYS_write, 9, "x", 1) == -9, "write to a closed fd: EBADF");
    puts1(failures ? "selftest: FAILED\n" : "selftest: all passed\n");
    return 0;
}

static u64 rdtsc(void)
{
    unsigned lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi) :: "memory");
    return ((u64)hi << 32) | lo;
}

static int cost(void)
{
    enum { N = 10000, PAGES = 256 };
    for (int i = 0; i < 100; i++)
        sys3(SYS_getpid, 0, 0, 0);
    u64 t0 = rdtsc();
    for (int i = 0; i < N; i++)
        sys3(SYS_getpid, 0, 0, 0);
    u64 t1 = rdtsc();
    puts1("cost: getpid ");
    putnum((t1 - t0) / N, 10);
    long m = sys6(SYS_mmap, 0, PAGES * 4096, 3, 0x22, -1, 0);
    t0 = rdtsc();
    for (int i = 0; i < PAGES; i++)
        ((volatile char *)m)[i * 4096] = 1;
    t1 = rdtsc();
    puts1(" ticks, fresh page ");
    putnum((t1 - t0) / PAGES, 10);
    puts1(" ticks\n");
    /* fork, the child's exit, the parent's wait4 (raw calls: the child runs no C code). */
    enum { FORKS = 50 };
    t0 = rdtsc();
    for (int i = 0; i < FORKS; i++) {
        long pid = sys3(57, 0, 0, 0);
        if (pid == 0)
            sys3(SYS_exit, 0, 0, 0);
        sys6(61, pid, 0, 0, 0, 0, 0);
    }
    t1 = rdtsc();
    puts1("cost: fork+exit+wait4 ");
    putnum((t1 - t0) / FORKS, 10);
    puts1(" ticks\n");
    return 0;
}


/* --- fork mode ---------------------------------------------------------------------------- */

/* fork with known values in every callee-saved register; what the registers hold after the
 * call goes to out[0..5] (rbx, rbp, r12-r15).  In assembly: nothing may live in them. */
long fork_saving(u64 *out);
__asm__(".globl fork_saving\n"
        "fork_saving:\n"
        "  push %rbx; push %rbp; push %r12; push %r13; push %r14; push %r15; push %rdi\n"
        "  movabs $0x1111111111111111, %rbx\n"
        "  movabs $0x2222222222222222, %rbp\n"
        "  movabs $0x3333333333333333, %r12\n"
        "  movabs $0x4444444444444444, %r13\n"
        "  movabs $0x5555555555555555, %r14\n"
        "  movabs $0x6666666666666666, %r15\n"
        "  mov $57, %eax\n"
        "  syscall\n"
        "  pop %rdi\n"
        "  mov %rbx, 0(%rdi); mov %rbp, 8(%rdi); mov %r12, 16(%rdi)\n"
        "  mov %r13, 24(%rdi); mov %r14, 32(%rdi); mov %r15, 40(%rdi)\n"
        "  pop %r15; pop %r14; pop %r13; pop %r12; pop %rbp; pop %rbx\n"
        "  ret\n");

/* vfork; the child (which on Linux shares the stack) touches no memory: it exits with
 * status edi, or execs (rsi = path, rdx = argv, rcx = envp; exit 127 if that fails). */
long vfork_exit(long status);
long vfork_exec(long status, const char *path, char **argv, char **envp);
__asm__(".globl vfork_exit\n"
        "vfork_exit:\n"
        "  mov $58, %eax\n"
        "  syscall\n"
        "  test %rax, %rax\n"
        "  jnz 1f\n"
        "  mov $60, %eax\n"
        "  syscall\n"
        "1: ret\n"
        ".globl vfork_exec\n"
        "vfork_exec:\n"
        "  mov %rcx, %r10\n"
        "  mov $58, %eax\n"
        "  syscall\n"
        "  test %rax, %rax\n"
        "  jnz 1f\n"
        "  mov %rsi, %rdi\n"
        "  mov %rdx, %rsi\n"
        "  mov %r10, %rdx\n"
        "  mov $59, %eax\n"
        "  syscall\n"
        "  mov $127, %edi\n"
        "  mov $60, %eax\n"
        "  syscall\n"
        "1: ret\n");

static volatile u64 cow_value = 1234;

static long wait4(long pid, int *status, long options)
{
    return sys6(SYS_wait4, pid, (long)status, options, 0, 0, 0);
}

static void child_exit(void)
{
    sys3(SYS_exit, failures, 0, 0);     /* the child's verdict: its status */
}

static void putline(const char *what, long v)
{
    puts1(what);
    if (v < 0) {
        puts1("-");
        v = -v;
    }
    putnum(v, 10);
    puts1("\n");
}

static char *utoa(u64 v, char *buf)
{
    char tmp[24];
    int n = 0;
    do
        tmp[n++] = '0' + v % 10;
    while (v /= 10);
    for (int i = 0; i < n; i++)
        buf[i] = tmp[n - 1 - i];
    buf[n] = 0;
    return buf;
}

static long atou(const char *s)
{
    long v = 0;
    while (*s >= '0' && *s <= '9')
        v = v * 10 + (*s++ - '0');
    return v;
}

static int execed(char **argv)
{
    u64 fs = 1;
    puts1("execed: argv[1] ");
    puts1(argv[1]);
    puts1("\n");
    if (atou(argv[2]))
        check(sys3(SYS_getpid, 0, 0, 0) == atou(argv[2]), "execed: the same pid after execve");
    check(sys3(SYS_getppid, 0, 0, 0) == atou(argv[3]), "execed: the same parent");
    check(sys3(SYS_arch_prctl, 0x1003, &fs, 0) == 0 && fs == 0, "execed: FS base 0");
    check(cow_value == 1234, "execed: a fresh data segment");
    return failures ? 99 : (int)atou(argv[1]);
}

static void fork_cow(void)
{
    u64 regs[6], mypid = sys3(SYS_getpid, 0, 0, 0);
    volatile u64 stackvar = 42;
    volatile u64 *priv = (u64 *)sys6(SYS_mmap, 0, 4096, 3, 0x22, -1, 0);
    priv[0] = 1000;
    check(sys3(SYS_arch_prctl, 0x1002, tls_block, 0) == 0, "FS base set before fork");
    long pid = fork_saving(regs);
    if (pid == 0) {
        failures = 0;               /* the child's own count, from here */
        u64 v;
        __asm__ volatile("movq %%fs:0, %0" : "=r"(v));
        check(regs[0] == 0x1111111111111111 && regs[1] == 0x2222222222222222 &&
              regs[2] == 0x3333333333333333 && regs[3] == 0x4444444444444444 &&
              regs[4] == 0x5555555555555555 && regs[5] == 0x6666666666666666,
              "child: callee-saved registers as in the parent");
        check(v == 0x1234abcd, "child: the parent's FS base");
        check((u64)sys3(SYS_getppid, 0, 0, 0) == mypid, "child: getppid is the parent");
        check((u64)sys3(SYS_getpid, 0, 0, 0) != mypid, "child: a pid of its own");
        check(cow_value == 1234 && stackvar == 42 && priv[0] == 1000,
              "child: the parent's data, stack and mmap memory");
        cow_value = 5678, stackvar = 43, priv[0] = 2000;
        check(cow_value == 5678 && stackvar == 43 && priv[0] == 2000, "child: writes its copy");
        /* The kernel writes into a shared page too (user copy breaks the sharing). */
        check(sys3(SYS_arch_prctl, 0x1003, &cow_value, 0) == 0 && cow_value == (u64)tls_block,
              "child: a system call writes its copy");
        child_exit();
    }
    check(pid > 0, "fork");
    int st = -1;
    check(wait4(pid, &st, 0) == pid, "wait4 (parked until the child ends)");
    putline("fork: child exited with status ", st >> 8);
    check(st == 0, "child: all its checks passed");
    check(cow_value == 1234 && stackvar == 42 && priv[0] == 1000,
          "copy-on-write: the parent still sees its values");
    check(regs[0] == 0x1111111111111111 && regs[5] == 0x6666666666666666,
          "parent: callee-saved registers kept");
    sys3(SYS_munmap, priv, 4096, 0);
}

static void fork_wait(void)
{
    /* A MAP_SHARED page: the child spins until the parent lets it go, so WNOHANG is sure to
     * find it running. */
    volatile u64 *shared = (u64 *)sys6(SYS_mmap, 0, 4096, 3, 0x21, -1, 0);
    check((long)shared > 0, "mmap MAP_SHARED|MAP_ANONYMOUS");
    shared[0] = 0;
    long pid = sys3(SYS_fork, 0, 0, 0);
    if (pid == 0) {
        while (!shared[0])
            ;
        shared[1] = 77;
        sys3(SYS_exit, 3, 0, 0);
    }
    int st = -1;
    check(wait4(pid, &st, 1) == 0 && st == -1, "wait4 WNOHANG while the child runs: 0");
    shared[0] = 1;
    check(wait4(pid, &st, 0) == pid && st == 3 << 8, "wait4: status 3 << 8");
    check(shared[1] == 77, "MAP_SHARED memory is shared with the child");
    check(wait4(-1, &st, 1) == -10, "wait4 WNOHANG without children: ECHILD");
    check(wait4(-1, &st, 0) == -10, "wait4 without children: ECHILD");
    check(wait4(99999, &st, 0) == -10, "wait4 for a pid that is no child: ECHILD");
    check(wait4(-1, &st, 0x4) == -22, "wait4 with bad options: EINVAL");
    sys3(SYS_munmap, shared, 4096, 0);

    /* vfork: the parent goes on when the child has ended, which WNOHANG then reaps. */
    pid = vfork_exit(5);
    check(pid > 0, "vfork");
    long r = wait4(pid, &st, 1);
    /* lx answers vfork when the child is a zombie; Linux when it has let go of its memory,
     * which can be a moment earlier: then WNOHANG finds nothing yet. */
    puts1(r == pid ? "vfork: WNOHANG after the child ended: reaped\n"
                   : "vfork: WNOHANG after the child ended: not yet a zombie\n");
    if (r == 0)
        r = wait4(pid, &st, 0);
    check(r == pid && st == 5 << 8, "vfork: the parent waits for the child: status 5 << 8");

    /* A bad status pointer: EFAULT, and the child is reaped all the same (as Linux). */
    pid = sys3(SYS_fork, 0, 0, 0);
    if (pid == 0)
        sys3(SYS_exit, 9, 0, 0);
    check(wait4(pid, (int *)0x10, 0) == -14, "wait4 to a bad status pointer: EFAULT");
    check(wait4(pid, &st, 1) == -10, "the child was reaped anyway");

    /* A child that faults: terminated by SIGSEGV. */
    pid = sys3(SYS_fork, 0, 0, 0);
    if (pid == 0) {
        *(volatile int *)0 = 1;
        sys3(SYS_exit, 1, 0, 0);
    }
    st = 0;
    check(wait4(pid, &st, 0) == pid, "wait4 for the faulting child");
    putline("fork: child terminated by signal ", st & 0x7f);
    check((st & 0x7f) == 11 && (st & 0xff00) == 0, "status: killed by SIGSEGV (11)");

    /* clone with glibc's fork flags: the child's tid is stored in the child. */
    volatile int ctid = 0;
    pid = sys6(SYS_clone, 0x01200000 | 17, 0, 0, (long)&ctid, 0, 0);
    if (pid == 0)
        sys3(SYS_exit, ctid == sys3(SYS_getpid, 0, 0, 0) ? 6 : 1, 0, 0);
    check(pid > 0 && wait4(pid, &st, 0) == pid && st == 6 << 8,
          "clone(CHILD_SETTID|CHILD_CLEARTID|SIGCHLD): the child sees its tid");
    check(ctid == 0, "clone: the parent's memory is not the child's");
    check(sys6(SYS_clone, 0x10000 | 17, 0, 0, 0, 0, 0) == -22,
          "clone(CLONE_THREAD) without CLONE_SIGHAND: EINVAL");
}

static void fork_exec(char **argv, char **envp, const char *nonelf)
{
    char pidbuf[24], ppidbuf[24];
    char *args[] = { argv[0], 0 };
    utoa(sys3(SYS_getpid, 0, 0, 0), ppidbuf);
    check(sys3(SYS_execve, "/nonexistent/nosuchprogram", args, envp) == -2,
          "execve of a missing file: ENOENT");
    check(sys3(SYS_execve, 0x10, args, envp) == -14, "execve of a bad path pointer: EFAULT");
    check(sys3(SYS_execve, argv[0], 0x10, envp) == -14, "execve of a bad argv: EFAULT");
    if (nonelf)
        check(sys3(SYS_execve, nonelf, args, envp) == -8, "execve of a non-ELF file: ENOEXEC");
    char *execed_args[] = { argv[0], "execed", "33", pidbuf, ppidbuf, 0 };
    long pid = sys3(SYS_fork, 0, 0, 0);
    if (pid == 0) {
        utoa(sys3(SYS_getpid, 0, 0, 0), pidbuf);
        sys3(SYS_execve, argv[0], execed_args, envp);
        sys3(SYS_exit, 127, 0, 0);
    }
    int st = 0;
    check(wait4(pid, &st, 0) == pid && st == 33 << 8, "fork, execve: the new image's status 33");
    /* vfork + execve, as a shell runs a command: the parent goes on after the execve. */
    execed_args[2] = "34";
    execed_args[3] = "0";           /* its pid is not known before */
    pid = vfork_exec(0, argv[0], execed_args, envp);
    check(pid > 0 && wait4(pid, &st, 0) == pid && st == 34 << 8,
          "vfork, execve: the parent goes on, the image ends with its status");
}

static void fork_groups(void)
{
    long me = sys3(SYS_getpid, 0, 0, 0);
    check(sys3(SYS_getpgrp, 0, 0, 0) == sys3(SYS_getpgid, 0, 0, 0), "getpgrp = getpgid(0)");
    check(sys3(SYS_setpgid, 0, 0, 0) == 0 && sys3(SYS_getpgid, 0, 0, 0) == me,
          "setpgid(0, 0): a group of its own");
    check(sys3(SYS_setsid, 0, 0, 0) == -1, "setsid as a group leader: EPERM");
    check(sys3(SYS_setpgid, 0, -1, 0) == -22, "setpgid to a negative group: EINVAL");
    check(sys3(SYS_getpgid, 999999, 0, 0) == -3 && sys3(SYS_getsid, 999999, 0, 0) == -3,
          "getpgid, getsid of no process: ESRCH");
    volatile u64 *shared = (u64 *)sys6(SYS_mmap, 0, 4096, 3, 0x21, -1, 0);
    shared[0] = 0;
    long pid = sys3(SYS_fork, 0, 0, 0);
    if (pid == 0) {
        failures = 0;
        while (!shared[0])
            ;
        check(sys3(SYS_setsid, 0, 0, 0) == -1, "child: setsid as a group leader: EPERM");
        sys3(SYS_exit, failures, 0, 0);
    }
    check(sys3(SYS_getpgid, pid, 0, 0) == me, "the child is in its parent's group");
    check(sys3(SYS_setpgid, pid, pid, 0) == 0 && sys3(SYS_getpgid, pid, 0, 0) == pid,
          "setpgid(child, child)");
    int st;
    check(wait4(0, &st, 1) == -10, "wait4(0): no child in my group: ECHILD");
    check(wait4(-pid, &st, 1) == 0, "wait4(-pgid) WNOHANG: the child runs");
    shared[0] = 1;
    check(wait4(-pid, &st, 0) == pid && st == 0, "wait4(-pgid) reaps it");

    /* A child that starts a session of its own. */
    pid = sys3(SYS_fork, 0, 0, 0);
    if (pid == 0) {
        failures = 0;
        long c = sys3(SYS_getpid, 0, 0, 0);
        check(sys3(SYS_getsid, 0, 0, 0) == sys3(SYS_getsid, me, 0, 0), "child: the parent's session");
        check(sys3(SYS_setsid, 0, 0, 0) == c, "child: setsid");
        check(sys3(SYS_getsid, 0, 0, 0) == c && sys3(SYS_getpgid, 0, 0, 0) == c,
              "child: session and group are its pid");
        check(sys3(SYS_setpgid, 0, 0, 0) == -1, "child: setpgid as a session leader: EPERM");
        sys3(SYS_exit, failures, 0, 0);
    }
    check(wait4(pid, &st, 0) == pid && st == 0, "child in a session of its own: all its checks");
    sys3(SYS_munmap, shared, 4096, 0);
}

static int fork_loop(long n)
{
    long good = 0;
    for (long i = 0; i < n; i++) {
        long pid = sys3(SYS_fork, 0, 0, 0);
        if (pid == 0)
            sys3(SYS_exit, i & 0xff, 0, 0);
        int st = -1;
        good += pid > 0 && wait4(pid, &st, 0) == pid && st == (i & 0xff) << 8;
    }
    puts1("fork loop: ");
    putnum(good, 10);
    puts1(" of ");
    putnum(n, 10);
    puts1("\n");
    return good == n;
}

/* Many children at once (they spin on a MAP_SHARED page until let go): processes are
 * limited by memory only, on lx as on Linux, so all 40 run (EAGAIN would be the answer when
 * memory or pids ran out). */
static void fork_many(void)
{
    enum { MANY = 40 };
    volatile u64 *shared = (u64 *)sys6(SYS_mmap, 0, 4096, 3, 0x21, -1, 0);
    shared[0] = 0;
    long n = 0, r = 0;
    while (n < MANY) {
        r = sys3(SYS_fork, 0, 0, 0);
        if (r == 0) {
            while (!shared[0])
                ;
            sys3(SYS_exit, 0, 0, 0);
        }
        if (r < 0)
            break;
        n++;
    }
    shared[0] = 1;
    putline("fork: children at once: ", n);
    if (n < MANY)
        putline("fork: then ", r);
    check(n == MANY || r == -11, "fork: all the children at once (or EAGAIN)");
    long reaped = 0;
    int st;
    while (wait4(-1, &st, 0) > 0)
        reaped++;
    check(reaped == n, "all of them reaped");
    sys3(SYS_munmap, shared, 4096, 0);
}

/* N children alive at once, each parked in a read of a pipe whose writer is the parent
 * alone, seen by kill(pid, 0) while none has ended; then let go together (the parent closes
 * the write end: end of file) and reaped, each with status 0.  Processes are limited by
 * memory (and pid_max), not by a table. */
static int many(long n)
{
    enum { SYS_read = 0, SYS_close = 3, SYS_pipe = 22, SYS_kill = 62 };
    int fds[2], st;
    if (sys3(SYS_pipe, fds, 0, 0)) {
        puts1("FAIL: many: pipe\n");
        return 1;
    }
    long *pids = (long *)sys6(SYS_mmap, 0, (n * 8 + 4095) & ~4095l, 3, 0x22, -1, 0);
    long made = 0, r = 0;
    for (; made < n; made++) {
        r = sys3(SYS_fork, 0, 0, 0);
        if (r == 0) {
            char c;
            sys3(SYS_close, fds[1], 0, 0);
            long k = sys3(SYS_read, fds[0], &c, 1);
            sys3(SYS_exit, k == 0 ? 0 : 1, 0, 0);
        }
        if (r < 0)
            break;
        pids[made] = r;
    }
    putline("many: children forked: ", made);
    if (made < n)
        putline("many: then ", r);
    long alive = 0;
    for (long i = 0; i < made; i++)
        alive += sys3(SYS_kill, pids[i], 0, 0) == 0;
    check(wait4(-1, &st, 1 /* WNOHANG */) == 0, "many: none has ended yet");
    putline("many: alive at once: ", alive);
    sys3(SYS_close, fds[1], 0, 0);
    long good = 0, reaped = 0;
    while (wait4(-1, &st, 0) > 0) {
        reaped++;
        good += st == 0;
    }
    putline("many: reaped: ", reaped);
    putline("many: with status 0: ", good);
    check(made == n && alive == n && reaped == n && good == n, "many: all of them");
    return failures ? 1 : 0;
}

static int forktest(int argc, char **argv, char **envp)
{
    fork_cow();
    fork_wait();
    fork_exec(argv, envp, argc > 3 ? argv[3] : 0);
    fork_groups();
    fork_many();
    check(fork_loop(argc > 2 ? atou(argv[2]) : 20), "fork, exit, wait4 in a loop");
    puts1(failures ? "selftest: FAILED\n" : "selftest: all passed\n");
    /* Children left behind: one a zombie for sure (vfork returns when it has ended), one
     * that may still run when we exit.  Neither may leave a trace. */
    vfork_exit(0);
    volatile u64 *shared = (u64 *)sys6(SYS_mmap, 0, 4096, 3, 0x21, -1, 0);
    shared[0] = 0;
    if (sys3(SYS_fork, 0, 0, 0) == 0) {
        while (!shared[0])
            ;
        sys3(SYS_exit, 0, 0, 0);
    }
    shared[0] = 1;
    return 0;
}

#include "fs.c"
#include "system.c"
#include "execmm.c"
#include "proc.c"
#include "signal.c"

void cmain(u64 *sp);
void cmain(u64 *sp)
{
    int argc = (int)sp[0];
    char **argv = (char **)(sp + 1);
    char **envp = argv + argc + 1;
    char **e = envp;
    while (*e)
        e++;
    u64 *auxv = (u64 *)(e + 1);
    int status;
    int show = 0;
    for (int i = 1; i < argc; i++)
        show |= prefix(argv[i], "showargs");
    if (show) {
        status = showargs(argc, argv, auxv);
    } else if (argc > 1 && seq(argv[1], "exec")) {
        status = exectest(argc, argv, auxv);
    } else if (argc > 1 && seq(argv[1], "mm")) {
        status = mmtest();
    } else if (argc > 1 && seq(argv[1], "stackexec")) {
        status = stackexec();
    } else if (argc > 1 && seq(argv[1], "oom")) {
        status = oomtest();
    } else if (argc > 1 && seq(argv[1], "efault")) {
        status = efault();
    } else if (argc > 1 && seq(argv[1], "segv")) {
        puts1("storing to NULL\n");
        *(volatile int *)0 = 1;
        status = 1;
    } else if (argc > 1 && seq(argv[1], "textwrite")) {
        puts1("storing to text\n");
        *(volatile char *)_start = 0;
        status = 1;
    } else if (argc > 1 && seq(argv[1], "system")) {
        status = system_calls();
    } else if (argc > 1 && seq(argv[1], "fsfill")) {
        status = fsfill();
    } else if (argc > 1 && seq(argv[1], "proc")) {
        status = proc(argv);
    } else if (argc > 1 && seq(argv[1], "fs")) {
        status = fs();
    } else if (argc > 1 && seq(argv[1], "fork")) {
        status = forktest(argc, argv, envp);
    } else if (argc > 2 && seq(argv[1], "many")) {
        status = many(atou(argv[2]));
    } else if (argc > 4 && seq(argv[1], "execed")) {
        status = execed(argv + 1);
    } else if (argc > 1 && seq(argv[1], "signal")) {
        status = sigtest(argv, envp);
    } else if (argc > 1 && seq(argv[1], "sigfpu")) {
        status = sigfpu();
    } else if (argc > 1 && seq(argv[1], "sigcost")) {
        status = sigcost();
    } else if (argc > 1 && seq(argv[1], "sigexec")) {
        status = sigexec();
    } else if (argc > 1 && seq(argv[1], "cost")) {
        status = cost();
    } else if (argc > 1 && seq(argv[1], "ud2")) {
        puts1("executing ud2\n");
        __asm__ volatile("ud2");
        status = 1;
    } else {
        status = hello(argc, argv, envp, auxv);
    }
    sys3(SYS_exit_group, status, 0, 0);
    sys3(SYS_exit, status, 0, 0);
}
