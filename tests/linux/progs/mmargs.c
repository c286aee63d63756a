/* The memory calls at their edges (issue 13, the memory bugs): every length and overflow
 * case of mmap, munmap, mprotect, mremap, madvise and msync, made as raw system calls (the C
 * libraries' wrappers check or round some arguments themselves); write rights of shared
 * file mappings (a file opened read-only, /dev/zero, O_APPEND); a forked child that makes a
 * shared file page writable and writes it; mprotect over a hole; user copies of ranges that
 * cannot be user memory (read of 2^62 bytes from /dev/zero writes nothing); pointers below
 * mmap_min_addr, where lx keeps its signal page.  (No mapping is put below mmap_min_addr:
 * Linux lets root do it, lx never.) */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>
#include "corpus.h"

#define PG 4096ul
#define TASK_SIZE 0x7ffffffff000ul
#define LOW ((void *)0x4000ul)          /* below mmap_min_addr: never user memory on Linux */
#ifndef PROT_SEM
#define PROT_SEM 8
#endif
#ifndef MAP_SYNC
#define MAP_SYNC 0x80000
#endif
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

static long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
    return syscall(nr, a, b, c, d, e, f);
}

/* A result that is an address: "ok" for one, else the error. */
#define MAPPED(what, call) ({                                                 \
    errno = 0;                                                                \
    long r_ = (long)(call);                                                   \
    if (r_ < 0 && r_ > -4096)                                                 \
        r_ = -1;                                                              \
    if (r_ == -1)                                                             \
        printf("%s: -1 %s\n", (what), errname(errno));                        \
    else                                                                      \
        printf("%s: ok\n", (what));                                           \
    r_;                                                                       \
})

static long mmap6(void *addr, unsigned long len, long prot, long flags, long fd, long off)
{
    return sys6(SYS_mmap, (long)addr, (long)len, prot, flags, fd, off);
}

static void unmap_if(long r, unsigned long len)
{
    if (r != -1)
        syscall(SYS_munmap, r, len);
}

static void mmap_cases(int file)
{
    static const unsigned long lens[] = { 0, 1, PG, 1ul << 46, 1ul << 47, TASK_SIZE,
                                          TASK_SIZE + 1, ~0ul, ~0ul - PG + 1, 1ul << 63 };
    char what[96];
    for (unsigned i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        snprintf(what, sizeof what, "mmap anonymous length %#lx", lens[i]);
        unmap_if(MAPPED(what, mmap6(NULL, lens[i], PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS |
                                    MAP_NORESERVE, -1, 0)), lens[i]);
        snprintf(what, sizeof what, "mmap file length %#lx", lens[i]);
        unmap_if(MAPPED(what, mmap6(NULL, lens[i], PROT_READ, MAP_PRIVATE, file, 0)), lens[i]);
    }
    static const long offs[] = { 1, PG, -PG, 1l << 62, (long)(~0ul - 2 * PG + 1) };
    for (unsigned i = 0; i < sizeof offs / sizeof offs[0]; i++) {
        snprintf(what, sizeof what, "mmap file offset %#lx", offs[i]);
        unmap_if(MAPPED(what, mmap6(NULL, 2 * PG, PROT_READ, MAP_PRIVATE, file, offs[i])),
                 2 * PG);
        snprintf(what, sizeof what, "mmap anonymous offset %#lx", offs[i]);
        unmap_if(MAPPED(what, mmap6(NULL, PG, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1,
                                    offs[i])), PG);
    }
    static const struct { const char *what; unsigned long addr, len; long flags; } fixed[] = {
        { "MAP_FIXED unaligned", 0x10000001, PG, MAP_FIXED },
        { "MAP_FIXED_NOREPLACE ending at TASK_SIZE (the stack)", TASK_SIZE - PG, PG,
          MAP_FIXED_NOREPLACE },
        { "MAP_FIXED wrapping", ~0ul - PG + 1, 2 * PG, MAP_FIXED },
        { "MAP_FIXED at 2^63", 1ul << 63, PG, MAP_FIXED },
        { "hint across TASK_SIZE", TASK_SIZE - PG, 2 * PG, 0 },
        { "hint at 0x4000", 0x4000, PG, 0 },
        { "hint unaligned", 0x20000001, PG, 0 },
        { "hint past TASK_SIZE", 1ul << 50, PG, 0 },
    };
    for (unsigned i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        unmap_if(MAPPED(fixed[i].what, mmap6((void *)fixed[i].addr, fixed[i].len, PROT_READ,
                                             MAP_PRIVATE | MAP_ANONYMOUS | fixed[i].flags, -1,
                                             0)), fixed[i].len);
    static const struct { const char *what; long prot, flags; } bits[] = {
        { "prot 8 (PROT_SEM)", 8, MAP_PRIVATE }, { "prot 0x10", 0x10, MAP_PRIVATE },
        { "prot PROT_GROWSDOWN", PROT_GROWSDOWN | PROT_READ, MAP_PRIVATE },
        { "prot 0x80000000", 0x80000000l, MAP_PRIVATE },
        { "flags neither shared nor private", PROT_READ, 0 },
        { "flags type 0xf", PROT_READ, 0xf },
        { "MAP_SHARED_VALIDATE", PROT_READ, MAP_SHARED_VALIDATE },
        { "MAP_SHARED_VALIDATE | MAP_SYNC", PROT_READ, MAP_SHARED_VALIDATE | MAP_SYNC },
        { "MAP_SHARED | MAP_SYNC", PROT_READ, MAP_SHARED | MAP_SYNC },
        { "MAP_PRIVATE | 0x40000000", PROT_READ, MAP_PRIVATE | 0x40000000 },
        { "MAP_GROWSDOWN", PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_GROWSDOWN },
    };
    for (unsigned i = 0; i < sizeof bits / sizeof bits[0]; i++) {
        snprintf(what, sizeof what, "mmap anonymous %s", bits[i].what);
        unmap_if(MAPPED(what, mmap6(NULL, PG, bits[i].prot, bits[i].flags | MAP_ANONYMOUS, -1,
                                    0)), PG);
        snprintf(what, sizeof what, "mmap file %s", bits[i].what);
        unmap_if(MAPPED(what, mmap6(NULL, PG, bits[i].prot, bits[i].flags, file, 0)), PG);
    }
    unmap_if(MAPPED("mmap anonymous with fd 99", mmap6(NULL, PG, PROT_READ,
                                                       MAP_PRIVATE | MAP_ANONYMOUS, 99, 0)), PG);
    unmap_if(MAPPED("mmap file fd -1", mmap6(NULL, PG, PROT_READ, MAP_PRIVATE, -1, 0)), PG);
}

/* [m, m + 4 pages) mapped, the page at m + 4 pages not: the calls' length cases.  Ranges up
 * to TASK_SIZE only where the call cannot hurt what lies above (the stack): not for munmap
 * or MADV_DONTNEED.  No address at or above 2^47 - PG: the reference kernel runs with 5-level
 * paging, whose TASK_SIZE for such addresses is 2^56 (lx models 4-level paging). */
static void length_cases(const char *call, long nr, char *m, long arg3, int big)
{
    static const struct { const char *what; long off; unsigned long len; } c[] = {
        { "length 0", 0, 0 }, { "length 1", 0, 1 }, { "length PG", 0, PG },
        { "length -PG", 0, -PG }, { "length -1", 0, ~0ul }, { "length 2^63", 0, 1ul << 63 },
        { "length 2^47", 0, 1ul << 47 }, { "unaligned", 1, PG },
        { "running into the hole", 0, 5 * PG }, { "the hole", 4 * PG, PG },
        { "to TASK_SIZE", 0, 0 /* TASK_SIZE - m */ },
    };
    char what[96];
    for (unsigned i = 0; i < sizeof c / sizeof c[0]; i++) {
        unsigned long len = c[i].len;
        if (!big && (len >= 1ul << 47 || !strcmp(c[i].what, "to TASK_SIZE")))
            continue;
        if (!strcmp(c[i].what, "to TASK_SIZE"))
            len = TASK_SIZE - (unsigned long)m;
        snprintf(what, sizeof what, "%s %s", call, c[i].what);
        SHOW(what, syscall(nr, m + c[i].off, len, arg3));
    }
    static const struct { const char *what; unsigned long addr, len; } a[] = {
        { "at 0", 0, PG }, { "at 0x4000", 0x4000, PG }, { "at 0x1000, 0x20000 bytes", 0x1000, 0x20000 },
        { "at 2^63", 1ul << 63, PG }, { "at -PG", -PG, PG },
    };
    for (unsigned i = 0; i < sizeof a / sizeof a[0]; i++) {
        snprintf(what, sizeof what, "%s %s", call, a[i].what);
        SHOW(what, syscall(nr, a[i].addr, a[i].len, arg3));
    }
}

static char *four_pages(void)
{
    char *m = mmap(NULL, 5 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(m + 4 * PG, PG);
    return m;
}

static void remap_cases(void)
{
    char *m = four_pages();
    char what[96];
    static const struct { const char *what; long off; unsigned long old, new; long flags; } c[] = {
        { "unaligned", 1, PG, PG, 0 }, { "flags 8", 0, PG, PG, 8 },
        { "FIXED without MAYMOVE", 0, PG, PG, MREMAP_FIXED },
        { "DONTUNMAP without MAYMOVE", 0, PG, PG, MREMAP_DONTUNMAP },
        { "DONTUNMAP growing", 0, PG, 2 * PG, MREMAP_DONTUNMAP | MREMAP_MAYMOVE },
        { "new length 0", 0, PG, 0, 0 }, { "old length 0", 0, 0, PG, MREMAP_MAYMOVE },
        { "old length -1", 0, ~0ul, PG, 0 }, { "old length -PG", 0, -PG, PG, 0 },
        { "new length -1", 0, PG, ~0ul, MREMAP_MAYMOVE },
        { "new length -PG", 0, PG, -PG, MREMAP_MAYMOVE },
        { "new length 2^47", 0, PG, 1ul << 47, MREMAP_MAYMOVE },
        { "new length 2^47, in place", 0, PG, 1ul << 47, 0 },
        { "old range past the mapping", 0, 5 * PG, 5 * PG, 0 },
        { "of the hole", 4 * PG, PG, PG, 0 },
        { "same size", 0, 4 * PG, 4 * PG, 0 },
    };
    for (unsigned i = 0; i < sizeof c / sizeof c[0]; i++) {
        snprintf(what, sizeof what, "mremap %s", c[i].what);
        long r = MAPPED(what, syscall(SYS_mremap, m + c[i].off, c[i].old, c[i].new, c[i].flags, 0));
        if (r != -1 && r != (long)m)
            printf("  (moved)\n");
    }
    static const struct { const char *what; unsigned long addr, len; } f[] = {
        { "unaligned", 0x30000001, PG }, { "to 2^63", 1ul << 63, PG },
        { "onto itself", 0, PG }, { "overlapping", PG, 2 * PG },
    };
    for (unsigned i = 0; i < sizeof f / sizeof f[0]; i++) {
        unsigned long to = f[i].addr;
        if (!strcmp(f[i].what, "onto itself") || !strcmp(f[i].what, "overlapping"))
            to += (unsigned long)m;
        snprintf(what, sizeof what, "mremap MREMAP_FIXED %s", f[i].what);
        MAPPED(what, syscall(SYS_mremap, m, PG, f[i].len, MREMAP_MAYMOVE | MREMAP_FIXED, to));
    }
    static const struct { const char *what; unsigned long addr; } low[] = {
        { "at 0x4000", 0x4000 }, { "at 0x1000", 0x1000 }, { "at 0x10000", 0x10000 },
    };
    for (unsigned i = 0; i < sizeof low / sizeof low[0]; i++) {
        snprintf(what, sizeof what, "mremap of the range %s", low[i].what);
        MAPPED(what, syscall(SYS_mremap, low[i].addr, PG, PG, MREMAP_MAYMOVE | MREMAP_FIXED,
                             (unsigned long)m + 2 * PG));
    }
    munmap(m, 5 * PG);
}

static void madvise_msync_cases(void)
{
    char *m = four_pages();
    length_cases("madvise DONTNEED", SYS_madvise, m, MADV_DONTNEED, 0);
    length_cases("madvise NORMAL", SYS_madvise, m, MADV_NORMAL, 1);
    SHOW("madvise advice 1000", syscall(SYS_madvise, m, PG, 1000));
    SHOW("madvise advice -1", syscall(SYS_madvise, m, PG, -1));
    SHOW("madvise MADV_REMOVE", syscall(SYS_madvise, m, PG, MADV_REMOVE));
    length_cases("msync", SYS_msync, m, MS_SYNC, 1);
    SHOW("msync flags 8", syscall(SYS_msync, m, PG, 8));
    SHOW("msync MS_SYNC | MS_ASYNC", syscall(SYS_msync, m, PG, MS_SYNC | MS_ASYNC));
    munmap(m, 5 * PG);
}

static void unmap_protect_cases(void)
{
    char *m = four_pages();
    length_cases("mprotect", SYS_mprotect, m, PROT_READ | PROT_WRITE, 1);
    static const long prots[] = { PROT_SEM | PROT_READ, 0x10, PROT_GROWSDOWN | PROT_READ,
                                  PROT_GROWSUP | PROT_READ, PROT_GROWSDOWN | PROT_GROWSUP };
    char what[96];
    for (unsigned i = 0; i < sizeof prots / sizeof prots[0]; i++) {
        snprintf(what, sizeof what, "mprotect prot %#lx", prots[i]);
        SHOW(what, syscall(SYS_mprotect, m, PG, prots[i]));
        syscall(SYS_mprotect, m, 4 * PG, PROT_READ | PROT_WRITE);
    }
    munmap(m, 5 * PG);
    m = four_pages();
    length_cases("munmap", SYS_munmap, m, 0, 0);
    munmap(m, 5 * PG);
}

/* mprotect over [A][hole][B]: Linux changes A, then stops at the hole (ENOMEM). */
static void protect_over_hole(void)
{
    char *m = mmap(NULL, 3 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(m + PG, PG);
    SHOW("mprotect over a hole", syscall(SYS_mprotect, m, 3 * PG, PROT_READ));
    pid_t pid = fork();
    if (pid == 0) {
        m[0] = 1;
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    show_status("  a store before the hole", st);
    pid = fork();
    if (pid == 0) {
        m[2 * PG] = 1;
        _exit(0);
    }
    waitpid(pid, &st, 0);
    show_status("  a store after the hole", st);
    munmap(m, 3 * PG);
}

static void shared_write_rights(void)
{
    int rw = open("/tmp/mmargs.dat", O_RDWR | O_CREAT | O_TRUNC, 0644);
    char buf[2 * PG];
    memset(buf, 'f', sizeof buf);
    if (write(rw, buf, sizeof buf) != (long)sizeof buf)
        printf("write failed\n");
    int ro = open("/tmp/mmargs.dat", O_RDONLY), wo = open("/tmp/mmargs.dat", O_WRONLY);
    int ap = open("/tmp/mmargs.dat", O_RDWR | O_APPEND);
    int zro = open("/dev/zero", O_RDONLY), zrw = open("/dev/zero", O_RDWR);
    int dir = open("/tmp", O_RDONLY), null = open("/dev/null", O_RDWR);
    const struct { const char *what; int *fd; long prot, flags; } c[] = {
        { "read-only file, shared, read", &ro, PROT_READ, MAP_SHARED },
        { "read-only file, shared, write", &ro, PROT_READ | PROT_WRITE, MAP_SHARED },
        { "read-only file, shared, write only", &ro, PROT_WRITE, MAP_SHARED },
        { "read-only file, private, write", &ro, PROT_READ | PROT_WRITE, MAP_PRIVATE },
        { "write-only file, shared, write", &wo, PROT_WRITE, MAP_SHARED },
        { "write-only file, private, read", &wo, PROT_READ, MAP_PRIVATE },
        { "O_APPEND file, shared, write", &ap, PROT_READ | PROT_WRITE, MAP_SHARED },
        { "O_APPEND file, shared, read", &ap, PROT_READ, MAP_SHARED },
        { "read-only /dev/zero, shared, write", &zro, PROT_READ | PROT_WRITE, MAP_SHARED },
        { "read-only /dev/zero, shared, read", &zro, PROT_READ, MAP_SHARED },
        { "read-only /dev/zero, private, write", &zro, PROT_READ | PROT_WRITE, MAP_PRIVATE },
        { "read-write /dev/zero, shared, write", &zrw, PROT_READ | PROT_WRITE, MAP_SHARED },
        { "directory, private, read", &dir, PROT_READ, MAP_PRIVATE },
        { "directory, shared, write", &dir, PROT_READ | PROT_WRITE, MAP_SHARED },
        { "/dev/null, private, read", &null, PROT_READ, MAP_PRIVATE },
    };
    char what[96];
    for (unsigned i = 0; i < sizeof c / sizeof c[0]; i++) {
        snprintf(what, sizeof what, "mmap %s", c[i].what);
        long r = MAPPED(what, mmap6(NULL, PG, c[i].prot, c[i].flags, *c[i].fd, 0));
        if (r == -1)
            continue;
        /* What mprotect may add afterwards (Linux: VM_MAYWRITE). */
        snprintf(what, sizeof what, "  then mprotect read-write");
        SHOW(what, syscall(SYS_mprotect, r, PG, PROT_READ | PROT_WRITE));
        snprintf(what, sizeof what, "  then mprotect read-exec");
        SHOW(what, syscall(SYS_mprotect, r, PG, PROT_READ | PROT_EXEC));
        munmap((void *)r, PG);
    }
    close(ro), close(wo), close(ap), close(zro), close(zrw), close(dir), close(null);
    close(rw);
}

/* A child makes a shared file page writable (mprotect from read to read-write) and writes
 * it, in the ways the order of touching and protecting can go; the parent sees the bytes.
 * A child that faulted for ever would be ended by its alarm. */
static void child_shared_write(void)
{
    for (int v = 0; v < 16; v++) {
        if ((v & 4) && !(v & 2))
            continue;
        int fd = open("/tmp/mmargs.shr", O_RDWR | O_CREAT | O_TRUNC, 0644);
        char buf[2 * PG] = { 0 };
        if (write(fd, buf, sizeof buf) != (long)sizeof buf)
            printf("write failed\n");
        char *s = mmap(NULL, 2 * PG, PROT_READ, MAP_SHARED, fd, 0);
        if (v & 1)
            (void)*(volatile char *)s;
        if (v & 2)
            mprotect(s, 2 * PG, PROT_READ | PROT_WRITE);
        if (v & 4)
            s[0] = 'p';
        pid_t pid = fork();
        if (pid == 0) {
            alarm(5);
            if (!(v & 2) && mprotect(s, 2 * PG, PROT_READ | PROT_WRITE))
                _exit(3);
            if (v & 8)
                (void)*(volatile char *)(s + PG);
            s[1] = 'X';
            s[PG + 1] = 'Y';
            _exit(0);
        }
        int st;
        waitpid(pid, &st, 0);
        char back[2];
        pread(fd, back, 1, 1);
        pread(fd, back + 1, 1, PG + 1);
        printf("shared write after mprotect, variant %d: ", v);
        show_status("child", st);
        printf("  the file has %c%c, the mapping %c%c\n", back[0] ? back[0] : '0',
               back[1] ? back[1] : '0', s[1] ? s[1] : '0', s[PG + 1] ? s[PG + 1] : '0');
        munmap(s, 2 * PG);
        close(fd);
    }
    unlink("/tmp/mmargs.shr");
    unlink("/tmp/mmargs.dat");
}

static int unchanged(const unsigned char *p, unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        if (p[i] != 0xAA)
            return 0;
    return 1;
}

/* Ranges that cannot be user memory move nothing (access_ok over the whole range first);
 * a range that only runs into an unmapped page moves what comes before it. */
static void user_copy_ranges(void)
{
    unsigned char *b = mmap(NULL, 4 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                            -1, 0);
    munmap(b + 3 * PG, PG);
    int zero = open("/dev/zero", O_RDONLY), p[2];
    if (pipe(p))
        printf("pipe failed\n");
    static const unsigned long lens[] = { 1ul << 62, ~0ul, 1ul << 63, 0x7ffff000ul + PG };
    char what[96];
    for (unsigned i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        memset(b, 0xAA, 3 * PG);
        snprintf(what, sizeof what, "read /dev/zero %#lx bytes", lens[i]);
        SHOW(what, syscall(SYS_read, zero, b, lens[i]));
        printf("  buffer unchanged: %d\n", unchanged(b, 3 * PG));
        memset(b, 0xAA, 3 * PG);
        snprintf(what, sizeof what, "pread /dev/zero %#lx bytes", lens[i]);
        SHOW(what, syscall(SYS_pread64, zero, b, lens[i], 0));
        printf("  buffer unchanged: %d\n", unchanged(b, 3 * PG));
        snprintf(what, sizeof what, "write to a pipe %#lx bytes", lens[i]);
        SHOW(what, syscall(SYS_write, p[1], b, lens[i]));
    }
    char drain[4 * PG];
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    while (read(p[0], drain, sizeof drain) > 0)
        ;
    memset(b, 0xAA, 3 * PG);
    SHOW("read /dev/zero into 3 pages and a hole", syscall(SYS_read, zero, b, 4 * PG));
    printf("  the 3 pages are zero: %d\n", b[0] == 0 && b[3 * PG - 1] == 0);
    memset(b, 0xAA, 3 * PG);
    struct iovec iov[2] = { { b, PG }, { (void *)(1ul << 62), PG } };
    SHOW("readv, the second vector bad", syscall(SYS_readv, zero, iov, 2));
    printf("  buffer unchanged: %d\n", unchanged(b, 3 * PG));
    iov[1] = (struct iovec){ b + PG, 1ul << 62 };
    SHOW("readv, the second vector 2^62 bytes", syscall(SYS_readv, zero, iov, 2));
    iov[1] = (struct iovec){ b + PG, ~0ul };
    SHOW("readv, the second vector -1 bytes", syscall(SYS_readv, zero, iov, 2));
    iov[1] = (struct iovec){ NULL, 0 };
    SHOW("readv, the second vector empty", syscall(SYS_readv, zero, iov, 2));
    /* Pointers below mmap_min_addr: nothing of the process is there on Linux. */
    SHOW("write from 0x4000", syscall(SYS_write, p[1], LOW, 16));
    SHOW("write from 0x4ff8 into the next page", syscall(SYS_write, p[1], (char *)LOW + PG - 8, 16));
    SHOW("read into 0x4000", syscall(SYS_read, zero, LOW, 16));
    SHOW("uname into 0x4000", syscall(SYS_uname, LOW));
    SHOW("clock_gettime into 0x4000", syscall(SYS_clock_gettime, CLOCK_MONOTONIC, LOW));
    SHOW("open of a path at 0x4000", syscall(SYS_open, LOW, O_RDONLY));
    SHOW("rt_sigaction from 0x4000", syscall(SYS_rt_sigaction, SIGUSR1, LOW, NULL, 8));
    SHOW("rt_sigprocmask from 0x4000", syscall(SYS_rt_sigprocmask, SIG_BLOCK, LOW, NULL, 8));
    struct iovec low = { LOW, 16 };
    SHOW("writev from 0x4000", syscall(SYS_writev, p[1], &low, 1));
    SHOW("writev with the vector at 0x4000", syscall(SYS_writev, p[1], LOW, 1));
    SHOW("mprotect 0x4000", syscall(SYS_mprotect, LOW, PG, PROT_READ | PROT_WRITE));
    SHOW("madvise 0x4000", syscall(SYS_madvise, LOW, PG, MADV_DONTNEED));
    SHOW("msync 0x4000", syscall(SYS_msync, LOW, PG, MS_SYNC));
    SHOW("munmap 0x4000", syscall(SYS_munmap, LOW, PG));
    close(zero), close(p[0]), close(p[1]);
    munmap(b, 3 * PG);
}

int main(void)
{
    corpus_init();
    int file = open("/test/corpus/data/words", O_RDONLY);
    mmap_cases(file);
    close(file);
    unmap_protect_cases();
    remap_cases();
    madvise_msync_cases();
    protect_over_hole();
    shared_write_rights();
    child_shared_write();
    user_copy_ranges();
    printf("done\n");
    return 0;
}
