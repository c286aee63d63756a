/* A tiny static Linux program for lx's system test (tests/system/test_lx.py), built with
 * the host compiler: freestanding, raw system calls, no libc, so it needs nothing from a
 * Linux distribution.  It behaves the same on Linux (try it: build/linux/lxselftest.elf).
 *
 *   lxselftest.elf [args]    hello, argv/envp/auxv, brk, mmap, arch_prctl; exit 42
 *   lxselftest.elf efault    bad pointers: -EFAULT (lx must survive); exit 0
 *   lxselftest.elf segv      a NULL store: killed by SIGSEGV
 *   lxselftest.elf textwrite a store to its own text: killed by SIGSEGV
 *   lxselftest.elf ud2       an invalid opcode: killed by SIGILL
 *   lxselftest.elf fs        files (under lx: the test's initramfs, tests/system/test_lx_fs.py):
 *                            open/read/write/stat/getdents64/links/rename/dup/fcntl/...; exit 0
 *   lxselftest.elf fsfill    write files until lx's memory runs out (ENOSPC), remove them
 *   lxselftest.elf cost      TSC ticks per getpid and per first touch of a fresh page (a
 *                            figure to look at by hand, under -icount: guest instructions)
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
       SYS_getpid = 39, SYS_exit = 60, SYS_uname = 63, SYS_arch_prctl = 158,
       SYS_exit_group = 231 };

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
    return 0;
}

#include "fs.c"

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
    if (argc > 1 && seq(argv[1], "efault")) {
        status = efault();
    } else if (argc > 1 && seq(argv[1], "segv")) {
        puts1("storing to NULL\n");
        *(volatile int *)0 = 1;
        status = 1;
    } else if (argc > 1 && seq(argv[1], "textwrite")) {
        puts1("storing to text\n");
        *(volatile char *)_start = 0;
        status = 1;
    } else if (argc > 1 && seq(argv[1], "fsfill")) {
        status = fsfill();
    } else if (argc > 1 && seq(argv[1], "fs")) {
        status = fs();
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
