/* eventfd and eventfd2 (issue 14 item 2): the counter, EFD_SEMAPHORE, EFD_NONBLOCK and
 * EFD_CLOEXEC, 8-byte reads and writes and their errors, readiness for poll and epoll, and
 * reads and writes that block until another process acts (ordered by pwait.h: the other
 * process acts once /proc says the blocked one sleeps) or a signal interrupts them. */
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include "pwait.h"

/* An address no process has mapped (through a volatile, so the compiler does not object). */
static void *volatile bad_address = (void *)8;
#define BAD bad_address

static void show_u64(const char *what, int fd)
{
    uint64_t v = 0;
    errno = 0;
    long r = read(fd, &v, sizeof v);
    if (r < 0)
        printf("%s: -1 %s\n", what, errname(errno));
    else
        printf("%s: %ld bytes, %llu\n", what, r, (unsigned long long)v);
}

static long put(int fd, uint64_t v)
{
    return write(fd, &v, sizeof v);
}

static void basics(void)
{
    SHOW("eventfd2 bad flags", syscall(SYS_eventfd2, 0, 0x10));
    SHOW("eventfd2 EFD_SEMAPHORE|bad", syscall(SYS_eventfd2, 0, EFD_SEMAPHORE | 0x100));
    int fd = syscall(SYS_eventfd, 5);
    printf("eventfd: %s\n", fd >= 0 ? "ok" : errname(errno));
    show_fd_mode_link(fd, O_RDWR, "rdwr");
    show_u64("read 5", fd);
    uint32_t small = 1;
    SHOW("read 4 bytes", read(fd, &small, sizeof small));
    SHOW("write 4 bytes", write(fd, &small, sizeof small));
    SHOW("write ~0", put(fd, ~0ull));
    SHOW("write to a bad address", write(fd, BAD, 8));
    SHOW("write 3", put(fd, 3));
    SHOW("write 0", put(fd, 0));
    char big[16] = { 0 };
    SHOW("read 16 bytes", read(fd, big, sizeof big));
    printf("value read: %llu\n", (unsigned long long)*(uint64_t *)big);
    SHOW("write 2", put(fd, 2));
    SHOW("read to a bad address", read(fd, BAD, 8));
    close(fd);

    fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    int fl = fcntl(fd, F_GETFL);
    printf("nonblock: %d cloexec %d\n", !!(fl & O_NONBLOCK), fcntl(fd, F_GETFD) & FD_CLOEXEC);
    show_u64("empty read", fd);
    SHOW("write 2^64-2", put(fd, ~0ull - 1));
    SHOW("write 1 more", put(fd, 1));
    struct pollfd p = { fd, POLLIN | POLLOUT, 0 };
    SHOW("poll full", poll(&p, 1, 0));
    printf("revents: %#x\n", p.revents);
    show_u64("read all", fd);
    p.revents = 0;
    SHOW("poll empty", poll(&p, 1, 0));
    printf("revents: %#x\n", p.revents);
    close(fd);

    fd = eventfd(3, EFD_SEMAPHORE | EFD_NONBLOCK);
    show_u64("semaphore 1", fd);
    show_u64("semaphore 2", fd);
    show_u64("semaphore 3", fd);
    show_u64("semaphore 4", fd);
    close(fd);
    SHOW("read a closed fd", read(fd, big, 8));
}

static void blocking(void)
{
    int fd = eventfd(0, 0);
    pid_t c = fork();
    if (c == 0) {
        about_to_block();
        uint64_t v = 0;
        _exit(read(fd, &v, 8) == 8 ? (int)v : 100 + errno);     /* the parent prints it */
    }
    until_asleep(c);
    SHOW("parent writes 7", put(fd, 7));
    reap("blocked reader (exit status: the value read)", c);

    SHOW("fill to 2^64-2", put(fd, ~0ull - 1));
    c = fork();
    if (c == 0) {
        about_to_block();
        _exit(put(fd, 5) == 8 ? 0 : 100 + errno);
    }
    until_asleep(c);
    show_u64("parent reads", fd);
    reap("blocked writer", c);
    show_u64("then", fd);

    /* epoll_wait blocks until the write. */
    int ep = epoll_create1(0);
    struct epoll_event ev = { EPOLLIN, { .u64 = 77 } };
    SHOW("epoll_ctl add", epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
    c = fork();
    if (c == 0) {
        about_to_block();
        struct epoll_event out = { 0, { 0 } };
        long n = epoll_wait(ep, &out, 1, -1);
        _exit(n == 1 && out.events == EPOLLIN && out.data.u64 == 77 ? 0 : 1);
    }
    until_asleep(c);
    SHOW("parent writes 1", put(fd, 1));
    reap("epoll_wait child (0: one EPOLLIN with its data)", c);
    close(ep);
    close(fd);
}

/* A blocked read ends with EINTR after a handler without SA_RESTART, and goes on (restarted)
 * after one with it. */
static void interrupted(void)
{
    for (int restart = 0; restart < 2; restart++) {
        int fd = eventfd(0, 0);
        pid_t c = blocked_reader(fd, restart);
        kill(c, SIGUSR1);
        if (restart)
            put(fd, 9);             /* the restarted read takes it */
        reap(restart ? "SA_RESTART reader (the value)" : "interrupted reader (100 + errno)", c);
        close(fd);
    }
}

int main(void)
{
    if (pwait_init())
        return 1;
    basics();
    blocking();
    interrupted();
    return 0;
}
