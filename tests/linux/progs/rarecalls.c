/* vhangup, pivot_root, remap_file_pages, process_madvise, process_mrelease: what each does
 * for a process of lx (no pivotable root, no block devices) and every error a program can
 * reach, in Linux's order. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include "corpus.h"
#include "ptys.h"

#ifndef SYS_process_mrelease
#define SYS_process_mrelease 448
#endif

static volatile int hups, conts;
static void on_signal(int sig)
{
    if (sig == SIGHUP)
        hups++;
    else
        conts++;
}

static void hangup_no_tty(void)
{
    setsid();
    SHOW("vhangup without a tty", syscall(SYS_vhangup));
}

static void hangup_user(void)
{
    setsid();
    if (setuid(65534) < 0)
        printf("setuid: %s\n", errname(errno));
    SHOW("vhangup as a user", syscall(SYS_vhangup));
}

static void hangup_pty(void)
{
    setsid();
    if (mount_devpts() < 0)
        printf("devpts: %s\n", errname(errno));
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0) {
        printf("pty: %s\n", errname(errno));
        return;
    }
    int s = open(ptsname(m), O_RDWR);
    signal(SIGHUP, on_signal);
    signal(SIGCONT, on_signal);
    TRY("open /dev/tty before", close(open("/dev/tty", O_RDWR)));
    SHOW("vhangup with a tty", syscall(SYS_vhangup));
    printf("SIGHUP %d SIGCONT %d\n", hups, conts);
    SHOW("write to the hung-up tty", write(s, "x", 1));
    char c;
    SHOW("read from the hung-up tty", read(s, &c, 1));
    SHOW("open /dev/tty after", open("/dev/tty", O_RDWR));
}

static void pivot(void)
{
    SHOW("pivot_root / /", syscall(SYS_pivot_root, "/", "/"));
    SHOW("pivot_root /proc /proc", syscall(SYS_pivot_root, "/proc", "/proc"));
    SHOW("pivot_root /proc /", syscall(SYS_pivot_root, "/proc", "/"));
    SHOW("pivot_root / /proc", syscall(SYS_pivot_root, "/", "/proc"));
    SHOW("pivot_root /nonexistent /", syscall(SYS_pivot_root, "/nonexistent", "/"));
    SHOW("pivot_root / /nonexistent", syscall(SYS_pivot_root, "/", "/nonexistent"));
    SHOW("pivot_root /proc/version /", syscall(SYS_pivot_root, "/proc/version", "/"));
    SHOW("pivot_root / /proc/version", syscall(SYS_pivot_root, "/", "/proc/version"));
    SHOW("pivot_root NULL /", syscall(SYS_pivot_root, NULL, "/"));
    SHOW("pivot_root / NULL", syscall(SYS_pivot_root, "/", NULL));
    SHOW("pivot_root empty /", syscall(SYS_pivot_root, "", "/"));
}

static void pivot_user(void)
{
    if (setuid(65534) < 0)
        printf("setuid: %s\n", errname(errno));
    SHOW("user: pivot_root /proc /proc", syscall(SYS_pivot_root, "/proc", "/proc"));
    SHOW("user: pivot_root /nonexistent /", syscall(SYS_pivot_root, "/nonexistent", "/"));
}

static void pages(const char *what, const char *m)
{
    printf("%s: %c%c%c%c\n", what, m[0], m[4096], m[2 * 4096], m[3 * 4096]);
}

static long remap(void *start, size_t size, int prot, size_t pgoff, int flags)
{
    return syscall(SYS_remap_file_pages, start, size, prot, pgoff, flags);
}

static void remap_file(void)
{
    int fd = open("/tmp/rarecalls.remap", O_RDWR | O_CREAT | O_TRUNC, 0600);
    char page[4096];
    for (int k = 0; k < 4; k++) {
        memset(page, 'A' + k, sizeof page);
        write(fd, page, sizeof page);
    }
    /* four pages of the file with nothing mapped after them */
    char *m = mmap(NULL, 5 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(m + 4 * 4096, 4096);
    mmap(m, 4 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    pages("mapped", m);
    SHOW("remap page 0 -> file page 3", remap(m, 4096, 0, 3, 0));
    pages("after", m);
    SHOW("remap pages 2-3 -> file pages 0-1", remap(m + 2 * 4096, 2 * 4096, 0, 0, 0));
    pages("after", m);
    m[0] = 'x';
    char c = 0;
    pread(fd, &c, 1, 3 * 4096);
    printf("file page 3 after a write through page 0: %c\n", c);
    SHOW("remap unaligned start and size", remap(m + 10, 4096 + 10, 0, 1, 0));
    pages("after", m);
    SHOW("remap MAP_NONBLOCK", remap(m + 4096, 4096, 0, 2, MAP_NONBLOCK));
    pages("after", m);
    SHOW("remap all back", remap(m, 4 * 4096, 0, 0, 0));
    pages("after", m);
    SHOW("remap prot 1", remap(m, 4096, PROT_READ, 0, 0));
    SHOW("remap size 0", remap(m, 0, 0, 0, 0));
    SHOW("remap size 100", remap(m, 100, 0, 0, 0));
    SHOW("remap beyond the mapping", remap(m + 3 * 4096, 2 * 4096, 0, 0, 0));
    SHOW("remap unmapped", remap(m + 4 * 4096, 4096, 0, 0, 0));
    SHOW("remap pgoff wraps", remap(m, 2 * 4096, 0, ~(size_t)0, 0));
    SHOW("remap pgoff 2^60", remap(m, 4096, 0, (size_t)1 << 60, 0));
    char *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
    SHOW("remap a private mapping", remap(p, 4096, 0, 1, 0));
    munmap(m, 4 * 4096);
    munmap(p, 4096);
    close(fd);
    unlink("/tmp/rarecalls.remap");
}

static long madv(int pidfd, const struct iovec *iov, size_t n, int advice, unsigned flags)
{
    return syscall(SYS_process_madvise, pidfd, iov, n, advice, flags);
}

static int pidfd_of(pid_t p)
{
    return (int)syscall(SYS_pidfd_open, p, 0);
}

static void madvise_user(void)
{
    char *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int root = pidfd_of(getppid());
    if (setuid(65534) < 0)
        printf("setuid: %s\n", errname(errno));
    int self = pidfd_of(getpid());
    struct iovec iov = { m, 4096 };
    SHOW("user: process_madvise self", madv(self, &iov, 1, MADV_COLD, 0));
    SHOW("user: process_madvise root's", madv(root, &iov, 1, MADV_COLD, 0));
}

static void process_hints(void)
{
    char *m = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(m + 2 * 4096, 4096);
    m[0] = 1;
    int self = pidfd_of(getpid());
    struct iovec two = { m, 2 * 4096 }, hole = { m + 2 * 4096, 4096 };
    struct iovec both[2] = { two, hole }, rev[2] = { hole, two };
    struct iovec odd = { m + 1, 4096 }, empty = { m, 0 };
    SHOW("process_madvise COLD", madv(self, &two, 1, MADV_COLD, 0));
    SHOW("process_madvise PAGEOUT", madv(self, &two, 1, MADV_PAGEOUT, 0));
    SHOW("process_madvise WILLNEED", madv(self, &two, 1, MADV_WILLNEED, 0));
    SHOW("process_madvise DONTNEED", madv(self, &two, 1, MADV_DONTNEED, 0));
    SHOW("process_madvise NORMAL", madv(self, &two, 1, MADV_NORMAL, 0));
    SHOW("process_madvise flags 1", madv(self, &two, 1, MADV_COLD, 1));
    SHOW("process_madvise 1025 iovecs", madv(self, &two, 1025, MADV_COLD, 0));
    SHOW("process_madvise bad iovec pointer", madv(self, (void *)8, 1, MADV_COLD, 0));
    SHOW("process_madvise fd -1", madv(-1, &two, 1, MADV_COLD, 0));
    SHOW("process_madvise fd 0 (no pidfd)", madv(0, &two, 1, MADV_COLD, 0));
    SHOW("process_madvise no iovecs", madv(self, &two, 0, MADV_COLD, 0));
    SHOW("process_madvise no iovecs, bad advice", madv(self, &two, 0, MADV_DONTNEED, 0));
    SHOW("process_madvise unaligned", madv(self, &odd, 1, MADV_COLD, 0));
    SHOW("process_madvise empty iovec", madv(self, &empty, 1, MADV_COLD, 0));
    SHOW("process_madvise a hole", madv(self, &hole, 1, MADV_COLD, 0));
    SHOW("process_madvise range, then a hole", madv(self, both, 2, MADV_COLD, 0));
    SHOW("process_madvise a hole, then a range", madv(self, rev, 2, MADV_COLD, 0));

    int release = -1;
    pid_t c = fork_held(&release);
    int child = pidfd_of(c);
    SHOW("process_madvise a child's memory", madv(child, &two, 1, MADV_COLD, 0));
    SHOW("process_mrelease a live child", syscall(SYS_process_mrelease, child, 0));
    SHOW("process_mrelease self", syscall(SYS_process_mrelease, self, 0));
    SHOW("process_mrelease flags 1", syscall(SYS_process_mrelease, child, 1));
    SHOW("process_mrelease fd -1", syscall(SYS_process_mrelease, -1, 0));
    SHOW("process_mrelease fd 0 (no pidfd)", syscall(SYS_process_mrelease, 0, 0));
    close(release);
    siginfo_t si;
    waitid(P_PID, c, &si, WEXITED | WNOWAIT);
    SHOW("process_madvise a zombie", madv(child, &two, 1, MADV_COLD, 0));
    SHOW("process_mrelease a zombie", syscall(SYS_process_mrelease, child, 0));
    waitpid(c, NULL, 0);
    SHOW("process_madvise reaped", madv(child, &two, 1, MADV_COLD, 0));
    SHOW("process_mrelease reaped", syscall(SYS_process_mrelease, child, 0));
    run_child("unprivileged madvise", madvise_user);
}

int main(void)
{
    corpus_init();
    run_child("no tty", hangup_no_tty);
    run_child("user", hangup_user);
    run_child("pty", hangup_pty);
    pivot();
    run_child("unprivileged pivot_root", pivot_user);
    remap_file();
    process_hints();
    return 0;
}
