/* The process calls of issue 14 item 2.  pidfds: pidfd_open, pidfd_send_signal, pidfd_getfd
 * and CLONE_PIDFD: poll before and after the process ends and after it is reaped, signals with
 * and without a siginfo, an fd copied from another process, and the errors (ordered by pipes
 * and waits, never by time).  Then sethostname and setdomainname (seen by uname, EINVAL,
 * EFAULT; EPERM for a user that is not root waits for issue 14's credentials: every lx process
 * is root today), and the numbers Debian's 6.1 answers ENOSYS for, as lx does: the removed and
 * never-implemented calls, _sysctl, memfd_secret. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include "corpus.h"

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x1000
#endif

static long p_open(int pid, unsigned flags) { return syscall(SYS_pidfd_open, pid, flags); }
static long p_send(int fd, int sig, siginfo_t *i, unsigned flags)
{
    return syscall(SYS_pidfd_send_signal, fd, sig, i, flags);
}
static long p_getfd(int fd, int target, unsigned flags)
{
    return syscall(SYS_pidfd_getfd, fd, target, flags);
}

static void show_poll(const char *what, int fd, int timeout)
{
    struct pollfd p = { fd, POLLIN, 0 };
    int n = poll(&p, 1, timeout);
    printf("%s: %d revents%s%s\n", what, n, p.revents & POLLIN ? " IN" : "",
           p.revents & POLLHUP ? " HUP" : "");
}

static volatile int got_code = 99;
static void on_usr1(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)uc;
    got_code = si->si_code;
}

static void pidfds(void)
{
    int self = TRY("pidfd_open self", p_open(getpid(), 0));
    printf("F_GETFD %d\n", fcntl(self, F_GETFD));
    SHOW("pidfd_open bad flags", p_open(getpid(), 1));
    SHOW("pidfd_open 0", p_open(0, 0));
    SHOW("pidfd_open -1", p_open(-1, 0));
    SHOW("pidfd_open no such pid", p_open(4000000, 0));
    int nb = TRY("pidfd_open PIDFD_NONBLOCK", p_open(getpid(), O_NONBLOCK));
    printf("O_NONBLOCK %d\n", !!(fcntl(nb, F_GETFL) & O_NONBLOCK));
    show_poll("poll self", self, 0);

    /* signals to oneself, with a siginfo */
    struct sigaction sa = { .sa_sigaction = on_usr1, .sa_flags = SA_SIGINFO };
    sigaction(SIGUSR1, &sa, NULL);
    SHOW("send SIGUSR1 to self", p_send(self, SIGUSR1, NULL, 0));
    printf("si_code %d\n", got_code);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_signo = SIGUSR1;
    si.si_code = SI_QUEUE;
    SHOW("send SIGUSR1 with SI_QUEUE to self", p_send(self, SIGUSR1, &si, 0));
    printf("si_code %d\n", got_code);
    si.si_code = SI_USER;
    SHOW("send with SI_USER to self", p_send(self, SIGUSR1, &si, 0));
    SHOW("send with a mismatched signo", p_send(self, SIGUSR2, &si, 0));
    SHOW("send with a bad siginfo", p_send(self, SIGUSR1, (siginfo_t *)8, 0));
    SHOW("send flags", p_send(self, 0, NULL, 1));
    SHOW("send bad fd", p_send(99, 0, NULL, 0));
    int pp[2];
    pipe(pp);
    SHOW("send to a pipe fd", p_send(pp[0], 0, NULL, 0));
    SHOW("send signal 100", p_send(self, 100, NULL, 0));
    SHOW("send signal 0", p_send(self, 0, NULL, 0));

    /* a child that waits on a pipe: killed through its pidfd */
    int go[2], ready[2];
    pipe(go), pipe(ready);
    pid_t pid = fork();
    if (!pid) {
        int g = open("getfd-file", O_CREAT | O_RDWR | O_TRUNC, 0644);
        write(g, "child's file", 12);
        write(ready[1], &g, sizeof g);
        char c;
        read(go[0], &c, 1);
        _exit(3);
    }
    int target;
    read(ready[0], &target, sizeof target);
    int fd = TRY("pidfd_open child", p_open(pid, 0));
    show_poll("poll running child", fd, 0);
    int got = TRY("pidfd_getfd", p_getfd(fd, target, 0));
    char buf[32] = { 0 };
    pread(got, buf, sizeof buf - 1, 0);
    printf("read through it: %s, F_GETFD %d\n", buf, fcntl(got, F_GETFD));
    SHOW("pidfd_getfd flags", p_getfd(fd, target, 1));
    SHOW("pidfd_getfd bad target", p_getfd(fd, 77, 0));
    SHOW("pidfd_getfd not a pidfd", p_getfd(pp[0], target, 0));
    memset(&si, 0, sizeof si);
    si.si_signo = SIGTERM;
    si.si_code = SI_USER;
    SHOW("send SI_USER siginfo to the child", p_send(fd, SIGTERM, &si, 0));
    si.si_code = SI_TKILL;
    SHOW("send SI_TKILL siginfo to the child", p_send(fd, SIGTERM, &si, 0));
    SHOW("send SIGTERM to the child", p_send(fd, SIGTERM, NULL, 0));
    show_poll("poll until it ends", fd, -1);
    SHOW("send 0 to the zombie", p_send(fd, 0, NULL, 0));
    int st;
    waitpid(pid, &st, 0);
    show_status("child", st);
    show_poll("poll reaped", fd, 0);
    SHOW("send 0 after reaping", p_send(fd, 0, NULL, 0));
    SHOW("send signal 100 after reaping", p_send(fd, 100, NULL, 0));
    SHOW("pidfd_getfd after reaping", p_getfd(fd, target, 0));

    /* CLONE_PIDFD */
    int cfd = -1;
    long c = syscall(SYS_clone, CLONE_PIDFD | SIGCHLD, 0, &cfd, 0, 0);
    if (c == 0) {
        char x;
        read(go[0], &x, 1);
        _exit(7);
    }
    printf("clone: %s, pidfd F_GETFD %d\n", c > 0 ? "ok" : errname(errno), fcntl(cfd, F_GETFD));
    show_poll("poll clone child running", cfd, 0);
    write(go[1], "x", 1);
    show_poll("poll clone child until it ends", cfd, -1);
    waitpid((pid_t)c, &st, 0);
    show_status("clone child", st);
    unlink("getfd-file");
}


static void names(const char *what)
{
    struct utsname u;
    uname(&u);
    printf("%s: nodename [%s] domainname [%s]\n", what, u.nodename, u.domainname);
}

int main(void)
{
    corpus_init();
    pidfds();
    struct utsname orig;
    uname(&orig);
    SHOW("sethostname", sethostname("corpus-host", 11));
    SHOW("setdomainname", setdomainname("corpus.dom", 10));
    names("after");
    SHOW("sethostname 64", sethostname("0123456789012345678901234567890123456789012345678901234567890123", 64));
    names("64 bytes");
    SHOW("sethostname 65", syscall(SYS_sethostname, "x", 65));
    SHOW("sethostname -1", syscall(SYS_sethostname, "x", -1));
    SHOW("sethostname bad pointer", syscall(SYS_sethostname, 8L, 4));
    SHOW("setdomainname 0", setdomainname("", 0));
    SHOW("sethostname 3 of more", sethostname("abcdef", 3));
    names("short");
        sethostname(orig.nodename, strlen(orig.nodename));
    setdomainname(orig.domainname, strlen(orig.domainname));

    static const struct { int nr; const char *name; } gone[] = {
        { 156, "_sysctl" }, { 174, "create_module" }, { 177, "get_kernel_syms" },
        { 178, "query_module" }, { 180, "nfsservctl" }, { 181, "getpmsg" }, { 182, "putpmsg" },
        { 183, "afs_syscall" }, { 184, "tuxcall" }, { 185, "security" },
        { 214, "epoll_ctl_old" }, { 215, "epoll_wait_old" }, { 236, "vserver" },
        { 447, "memfd_secret" },
    };
    for (unsigned k = 0; k < sizeof gone / sizeof gone[0]; k++)
        SHOW(gone[k].name, syscall(gone[k].nr, 0, 0, 0, 0, 0, 0));
    return 0;
}
