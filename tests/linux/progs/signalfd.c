/* signalfd and signalfd4 (issue 14 item 2): the mask (SIGKILL and SIGSTOP left out), flags
 * and errors, reads of struct signalfd_siginfo that take blocked pending signals (the
 * thread's own first, then the process's; several per read), poll and epoll readiness, the
 * mask changed through the same fd, a read that blocks until a signal comes, and a forked
 * child that reads its own signals through the inherited fd. */
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include "pwait.h"

static void *volatile bad_address = (void *)8;
#define BAD bad_address

static void show_records(const char *what, int fd, size_t room)
{
    struct signalfd_siginfo si[4];
    memset(si, 0, sizeof si);
    errno = 0;
    long n = read(fd, si, room);
    if (n < 0) {
        printf("%s: -1 %s\n", what, errname(errno));
        return;
    }
    printf("%s: %ld bytes\n", what, n);
    for (long i = 0; i < n / (long)sizeof si[0]; i++)
        printf("  signo %u code %d pid-is-mine %d uid %u int %d ptr %llu\n", si[i].ssi_signo,
               si[i].ssi_code, si[i].ssi_pid == (uint32_t)getpid(), si[i].ssi_uid,
               si[i].ssi_int, (unsigned long long)si[i].ssi_ptr);
}

static void errors(void)
{
    sigset_t m;
    sigemptyset(&m);
    sigaddset(&m, SIGUSR1);
    SHOW("signalfd4 bad flags", syscall(SYS_signalfd4, -1, &m, 8, 0x10));
    SHOW("signalfd4 size 4", syscall(SYS_signalfd4, -1, &m, 4, 0));
    SHOW("signalfd4 size 16", syscall(SYS_signalfd4, -1, &m, 16, 0));
    SHOW("signalfd4 bad mask", syscall(SYS_signalfd4, -1, BAD, 8, 0));
    SHOW("signalfd4 EBADF", syscall(SYS_signalfd4, 99, &m, 8, 0));
    SHOW("signalfd4 fd -2", syscall(SYS_signalfd4, -2, &m, 8, 0));
    SHOW("signalfd4 on a pipe", syscall(SYS_signalfd4, ready[0], &m, 8, 0));
    int fd = syscall(SYS_signalfd, -1, &m, 8);
    printf("signalfd: %s\n", fd >= 0 ? "ok" : errname(errno));
    show_fd_mode_link(fd, O_RDWR, "rdwr");
    SHOW("update returns the fd", syscall(SYS_signalfd4, fd, &m, 8, 0) == fd);
    close(fd);
    fd = signalfd(-1, &m, SFD_NONBLOCK | SFD_CLOEXEC);
    int fl = fcntl(fd, F_GETFL);
    printf("nonblock %d cloexec %d\n", !!(fl & O_NONBLOCK), fcntl(fd, F_GETFD) & FD_CLOEXEC);
    char small[64];
    SHOW("read 64 bytes", read(fd, small, sizeof small));
    show_records("read, nothing pending", fd, 128);
    SHOW("write", write(fd, small, 8));
    close(fd);
}

static void reading(void)
{
    sigset_t m, all;
    sigemptyset(&m);
    sigaddset(&m, SIGUSR1);
    sigaddset(&m, SIGUSR2);
    sigaddset(&m, SIGRTMIN + 1);
    sigaddset(&m, SIGKILL);
    all = m;
    sigaddset(&all, SIGTERM);
    sigprocmask(SIG_BLOCK, &all, NULL);
    int fd = signalfd(-1, &m, SFD_NONBLOCK);
    struct pollfd p = { fd, POLLIN, 0 };
    SHOW("poll, nothing pending", poll(&p, 1, 0));
    kill(getpid(), SIGUSR2);
    p.revents = 0;
    SHOW("poll, SIGUSR2 pending", poll(&p, 1, 0));
    printf("revents %#x\n", p.revents);
    kill(getpid(), SIGTERM);
    syscall(SYS_tgkill, getpid(), getpid(), SIGRTMIN + 1);
    syscall(SYS_tgkill, getpid(), getpid(), SIGUSR1);
    show_records("read room for 4", fd, sizeof(struct signalfd_siginfo) * 4);
    sigset_t pend;
    sigpending(&pend);
    printf("SIGTERM still pending: %d\n", sigismember(&pend, SIGTERM));
    kill(getpid(), SIGUSR1);
    kill(getpid(), SIGUSR2);
    show_records("read room for 1", fd, sizeof(struct signalfd_siginfo) + 10);
    show_records("read room for 1 again", fd, sizeof(struct signalfd_siginfo));
    show_records("read nothing left", fd, sizeof(struct signalfd_siginfo));
    /* The mask changed through the fd: SIGTERM now. */
    sigset_t t;
    sigemptyset(&t);
    sigaddset(&t, SIGTERM);
    SHOW("signalfd mask SIGTERM", signalfd(fd, &t, 0) == fd);
    show_records("read SIGTERM", fd, sizeof(struct signalfd_siginfo));
    kill(getpid(), SIGUSR1);
    show_records("read with SIGUSR1 out of the mask", fd, sizeof(struct signalfd_siginfo));
    signalfd(fd, &m, 0);
    kill(getpid(), SIGUSR1);
    SHOW("read to a bad address", read(fd, BAD, sizeof(struct signalfd_siginfo)));
    sigpending(&pend);
    printf("SIGUSR1 still pending after EFAULT: %d\n", sigismember(&pend, SIGUSR1));

    /* epoll readiness. */
    int ep = epoll_create1(0);
    struct epoll_event ev = { EPOLLIN, { .u64 = 3 } }, out;
    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    SHOW("epoll_wait, nothing", epoll_wait(ep, &out, 1, 0));
    kill(getpid(), SIGUSR2);
    SHOW("epoll_wait, SIGUSR2", epoll_wait(ep, &out, 1, 0));
    show_records("read it", fd, sizeof(struct signalfd_siginfo));
    close(ep);

    /* A forked child reads its own signals through the same file. */
    kill(getpid(), SIGUSR1);
    pid_t c = fork();
    if (c == 0) {
        struct signalfd_siginfo si;
        long n = read(fd, &si, sizeof si);
        int mine = n < 0 && errno == EAGAIN;        /* the parent's SIGUSR1 is not the child's */
        kill(getpid(), SIGUSR2);
        n = read(fd, &si, sizeof si);
        _exit(mine && n == sizeof si && si.ssi_signo == SIGUSR2 ? 0 : 1);
    }
    reap("child reads its own (0: yes)", c);
    show_records("the parent's SIGUSR1", fd, sizeof(struct signalfd_siginfo));
    close(fd);

    /* A blocking read parks until a signal comes. */
    int bfd = signalfd(-1, &m, 0);
    c = fork();
    if (c == 0) {
        about_to_block();
        struct signalfd_siginfo si;
        long n = read(bfd, &si, sizeof si);
        _exit(n == sizeof si ? (int)si.ssi_signo : 100 + errno);
    }
    until_asleep(c);
    kill(c, SIGUSR2);
    reap("blocked read (the signal)", c);
    close(bfd);
    sigprocmask(SIG_UNBLOCK, &all, NULL);
}

int main(void)
{
    if (pwait_init())
        return 1;
    errors();
    reading();
    return 0;
}
