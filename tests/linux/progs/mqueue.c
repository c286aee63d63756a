/* POSIX message queues (issue 14 item 2): mq_open's names, flags, attributes and limits
 * (/proc/sys/fs/mqueue, RLIMIT_MSGQUEUE, the permission check, a non-root user's limits),
 * mq_unlink, messages in priority order (FIFO within one), EMSGSIZE/EAGAIN/ETIMEDOUT/EBADF,
 * a receiver that blocks until a message comes and one a signal interrupts, mq_notify
 * (SIGEV_SIGNAL with SI_MESGQ and the sigval, SIGEV_NONE, EBUSY), mq_getsetattr, read() of the
 * queue's QSIZE line, poll and epoll readiness, and the fds (close-on-exec, dup, fork); the
 * largest sizes: msgsize_max and a root queue's msgsize up to HARD_MSGSIZEMAX (16 MiB), a 16 MiB
 * message sent and received whole. */
#include <fcntl.h>
#include <mqueue.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include "corpus.h"

static void *volatile bad_address = (void *)8;

static void sysctls(void)
{
    const char *names[] = { "msg_default", "msg_max", "msgsize_default", "msgsize_max",
                            "queues_max" };
    for (unsigned i = 0; i < 5; i++) {
        char path[64], buf[32] = "";
        snprintf(path, sizeof path, "/proc/sys/fs/mqueue/%s", names[i]);
        int fd = open(path, O_RDONLY);
        long n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
        printf("%s: %s", names[i], n > 0 ? buf : "missing\n");
        if (fd >= 0)
            close(fd);
    }
}

static void show_attr(const char *what, mqd_t q)
{
    struct mq_attr a;
    if (mq_getattr(q, &a)) {
        printf("%s: getattr %s\n", what, errname(errno));
        return;
    }
    printf("%s: flags %s maxmsg %ld msgsize %ld curmsgs %ld\n", what,
           a.mq_flags & O_NONBLOCK ? "O_NONBLOCK" : "0", a.mq_maxmsg, a.mq_msgsize,
           a.mq_curmsgs);
}

/* The queue's line (NOTIFY_PID as whose it is). */
static void show_line(const char *what, mqd_t q)
{
    char buf[128] = "";
    lseek(q, 0, SEEK_SET);
    long n = read(q, buf, sizeof buf - 1);
    if (n < 0) {
        printf("%s: read %s\n", what, errname(errno));
        return;
    }
    char *p = strstr(buf, "NOTIFY_PID:");
    if (p) {
        int pid = atoi(p + 11);
        sprintf(p + 11, "%s\n", pid == getpid() ? "self" : pid ? "other" : "0");
    }
    printf("%s: %s", what, buf);
}

static void limits(void)
{
    struct rlimit old, rl;
    getrlimit(RLIMIT_MSGQUEUE, &old);
    printf("RLIMIT_MSGQUEUE: %llu\n", (unsigned long long)old.rlim_cur);
    rl = (struct rlimit){ 100000, old.rlim_max };
    setrlimit(RLIMIT_MSGQUEUE, &rl);
    mqd_t a = mq_open("/lim-a", O_CREAT | O_RDWR, 0600, NULL);
    printf("first default queue: %s\n", a >= 0 ? "ok" : errname(errno));
    SHOW("second default queue", mq_open("/lim-b", O_CREAT | O_RDWR, 0600, NULL));
    struct mq_attr small = { .mq_maxmsg = 2, .mq_msgsize = 1024 };
    mqd_t b = mq_open("/lim-c", O_CREAT | O_RDWR, 0600, &small);
    printf("a small one: %s\n", b >= 0 ? "ok" : errname(errno));
    mq_close(a);
    SHOW("second default queue while the first is still named", mq_open("/lim-b", O_CREAT |
                                                                          O_RDWR, 0600, NULL));
    mq_unlink("/lim-a");
    a = mq_open("/lim-b", O_CREAT | O_RDWR, 0600, NULL);
    printf("after the first went: %s\n", a >= 0 ? "ok" : errname(errno));
    mq_close(a);
    mq_close(b);
    mq_unlink("/lim-b");
    mq_unlink("/lim-c");
    setrlimit(RLIMIT_MSGQUEUE, &old);
}

static void open_errors(void)
{
    char longname[300];
    memset(longname, 'n', sizeof longname);
    longname[256] = 0;
    SHOW("raw empty name", syscall(SYS_mq_open, "", O_RDWR, 0, NULL));
    SHOW("raw name with a slash", syscall(SYS_mq_open, "a/b", O_RDWR | O_CREAT, 0600, NULL));
    SHOW("raw name 256 bytes", syscall(SYS_mq_open, longname, O_RDWR | O_CREAT, 0600, NULL));
    longname[255] = 0;
    long fd = syscall(SYS_mq_open, longname, O_RDWR | O_CREAT, 0600, NULL);
    printf("raw name 255 bytes: %s\n", fd >= 0 ? "ok" : errname(errno));
    if (fd >= 0) {
        close(fd);
        SHOW("unlink it", syscall(SYS_mq_unlink, longname));
    }
    SHOW("raw name EFAULT", syscall(SYS_mq_open, bad_address, O_RDWR, 0, NULL));
    SHOW("raw attr EFAULT", syscall(SYS_mq_open, "x", O_RDWR | O_CREAT, 0600, bad_address));
    SHOW("raw attr EFAULT, no O_CREAT", syscall(SYS_mq_open, "nope", O_RDWR, 0, bad_address));
    SHOW("absent", mq_open("/nope", O_RDWR));
    struct mq_attr a = { .mq_maxmsg = 0, .mq_msgsize = 16 };
    SHOW("maxmsg 0", mq_open("/bad", O_CREAT | O_RDWR, 0600, &a));
    a = (struct mq_attr){ .mq_maxmsg = 4, .mq_msgsize = -1 };
    SHOW("msgsize -1", mq_open("/bad", O_CREAT | O_RDWR, 0600, &a));
    a = (struct mq_attr){ .mq_maxmsg = 70000, .mq_msgsize = 16 };
    SHOW("maxmsg 70000 (root)", mq_open("/bad", O_CREAT | O_RDWR, 0600, &a));
    a = (struct mq_attr){ .mq_maxmsg = 20, .mq_msgsize = 16 };
    mqd_t q = mq_open("/big", O_CREAT | O_RDWR, 0600, &a);
    printf("maxmsg 20 (root: past msg_max): %s\n", q >= 0 ? "ok" : errname(errno));
    show_attr("big", q);
    SHOW("O_CREAT|O_EXCL existing", mq_open("/big", O_CREAT | O_EXCL | O_RDWR, 0600, &a));
    SHOW("O_RDWR|O_WRONLY existing", mq_open("/big", O_RDWR | O_WRONLY));
    mq_close(q);
    SHOW("unlink", mq_unlink("/big"));
    SHOW("unlink again", mq_unlink("/big"));
    SHOW("raw unlink empty", syscall(SYS_mq_unlink, ""));
    SHOW("raw unlink EFAULT", syscall(SYS_mq_unlink, bad_address));
}

static void messages(void)
{
    mqd_t q = mq_open("/msgs", O_CREAT | O_EXCL | O_RDWR, 0600, NULL);
    printf("opened: %s\n", q >= 0 ? "ok" : errname(errno));
    printf("close-on-exec: %d\n", fcntl(q, F_GETFD) & FD_CLOEXEC);
    show_attr("new", q);
    show_line("new", q);
    SHOW("send low", mq_send(q, "low", 3, 1));
    SHOW("send high", mq_send(q, "high", 4, 5));
    SHOW("send mid", mq_send(q, "mid-prio", 8, 3));
    SHOW("send high2", mq_send(q, "high-two", 8, 5));
    SHOW("send empty", mq_send(q, "", 0, 0));
    show_attr("four", q);
    show_line("four", q);
    char big[8193];
    memset(big, 'b', sizeof big);
    SHOW("send 8193 bytes", mq_send(q, big, sizeof big, 0));
    SHOW("send prio 32768", mq_send(q, "x", 1, 32768));
    SHOW("send EFAULT", mq_send(q, bad_address, 10, 0));
    SHOW("send to fd 99", mq_send(99, "x", 1, 0));
    int p[2];
    if (pipe(p))
        return;
    SHOW("send to a pipe", mq_send(p[1], "x", 1, 0));
    SHOW("receive from a pipe", mq_receive(p[0], big, sizeof big, NULL));
    SHOW("getattr on a pipe", syscall(SYS_mq_getsetattr, p[0], NULL, big));
    SHOW("write() to the queue", write(q, "x", 1));
    SHOW("receive 100-byte buffer", mq_receive(q, big, 100, NULL));
    for (int i = 0; i < 6; i++) {
        unsigned prio = 99;
        memset(big, 0, sizeof big);
        struct timespec past = { 1, 0 };
        long n = mq_timedreceive(q, big, sizeof big, &prio, &past);
        if (n < 0)
            printf("receive: -1 %s\n", errname(errno));
        else
            printf("receive: %ld \"%s\" prio %u\n", n, big, prio);
    }
    SHOW("receive prio EFAULT", (mq_send(q, "z", 1, 0),
                                 mq_receive(q, big, sizeof big, bad_address)));
    show_attr("after", q);
    show_line("after", q);
    struct timespec bad = { 0, 1000000000 };
    SHOW("timedreceive bad nsec", mq_timedreceive(q, big, sizeof big, NULL, &bad));
    SHOW("raw timedreceive timeout EFAULT", syscall(SYS_mq_timedreceive, q, big, sizeof big,
                                                    NULL, bad_address));
    struct timespec soon;
    clock_gettime(CLOCK_REALTIME, &soon);
    soon.tv_nsec += 10000000;
    if (soon.tv_nsec >= 1000000000) {
        soon.tv_sec++;
        soon.tv_nsec -= 1000000000;
    }
    SHOW("timedreceive 10 ms from now", mq_timedreceive(q, big, sizeof big, NULL, &soon));
    SHOW("unlink while open", mq_unlink("/msgs"));
    SHOW("send after unlink", mq_send(q, "still", 5, 2));
    SHOW("receive after unlink", mq_receive(q, big, sizeof big, NULL));
    mq_close(q);
    close(p[0]);
    close(p[1]);
}

static void modes(void)
{
    struct mq_attr a = { .mq_maxmsg = 2, .mq_msgsize = 64 };
    mqd_t q = mq_open("/modes", O_CREAT | O_RDWR | O_NONBLOCK, 0644, &a);
    show_attr("nonblocking", q);
    char buf[64];
    SHOW("receive empty", mq_receive(q, buf, sizeof buf, NULL));
    struct pollfd pf = { .fd = q, .events = POLLIN | POLLOUT };
    poll(&pf, 1, 0);
    printf("poll empty: in %d out %d\n", !!(pf.revents & POLLIN), !!(pf.revents & POLLOUT));
    mq_send(q, "1", 1, 0);
    poll(&pf, 1, 0);
    printf("poll one: in %d out %d\n", !!(pf.revents & POLLIN), !!(pf.revents & POLLOUT));
    mq_send(q, "2", 1, 0);
    poll(&pf, 1, 0);
    printf("poll full: in %d out %d\n", !!(pf.revents & POLLIN), !!(pf.revents & POLLOUT));
    int ep = epoll_create1(0);
    struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT }, got;
    SHOW("epoll_ctl", epoll_ctl(ep, EPOLL_CTL_ADD, q, &ev));
    int n = epoll_wait(ep, &got, 1, 0);
    printf("epoll full: %d in %d out %d\n", n, !!(got.events & EPOLLIN),
           !!(got.events & EPOLLOUT));
    close(ep);
    SHOW("send full", mq_send(q, "3", 1, 0));
    struct mq_attr set = { .mq_flags = 0 }, old;
    SHOW("setattr blocking", mq_setattr(q, &set, &old));
    printf("old flags O_NONBLOCK %d\n", !!(old.mq_flags & O_NONBLOCK));
    show_attr("blocking", q);
    struct timespec past = { 1, 0 };
    SHOW("timedsend full, past", mq_timedsend(q, "3", 1, 0, &past));
    set.mq_flags = 1;
    SHOW("setattr flags 1", mq_setattr(q, &set, NULL));
    SHOW("raw getsetattr EFAULT", syscall(SYS_mq_getsetattr, q, bad_address, NULL));
    SHOW("raw getsetattr old EFAULT", syscall(SYS_mq_getsetattr, q, NULL, bad_address));

    mqd_t r = mq_open("/modes", O_RDONLY);
    mqd_t w = mq_open("/modes", O_WRONLY);
    SHOW("send on O_RDONLY", mq_send(r, "x", 1, 0));
    SHOW("receive on O_WRONLY", mq_receive(w, buf, sizeof buf, NULL));
    SHOW("read() on O_WRONLY", read(w, buf, sizeof buf));
    pf = (struct pollfd){ .fd = w, .events = POLLIN | POLLOUT };
    poll(&pf, 1, 0);
    printf("poll O_WRONLY full: in %d out %d\n", !!(pf.revents & POLLIN),
           !!(pf.revents & POLLOUT));
    int d = dup(r);
    long got_n = mq_receive(d, buf, sizeof buf, NULL);
    printf("receive through dup: %ld %.*s\n", got_n, got_n > 0 ? (int)got_n : 0, buf);
    pid_t c = fork();
    if (c == 0) {
        SHOW("child sends through the inherited fd", mq_send(w, "from-child", 10, 7));
        _exit(0);
    }
    int st;
    waitpid(c, &st, 0);
    unsigned prio;
    got_n = mq_receive(r, buf, sizeof buf, &prio);
    printf("parent got: %ld %.*s prio %u\n", got_n, got_n > 0 ? (int)got_n : 0, buf, prio);
    mq_close(d);
    mq_close(r);
    mq_close(w);
    mq_close(q);

    /* Another user: root's 0644 queue is readable, not writable; its own are limited. */
    c = fork();
    if (c == 0) {
        if (setgid(65534) || setuid(65534))
            _exit(3);
        SHOW("nobody opens O_RDONLY", mq_open("/modes", O_RDONLY) >= 0);
        SHOW("nobody opens O_WRONLY", mq_open("/modes", O_WRONLY));
        SHOW("nobody unlinks root's", mq_unlink("/modes"));
        struct mq_attr big = { .mq_maxmsg = 11, .mq_msgsize = 64 };
        SHOW("nobody maxmsg 11", mq_open("/own", O_CREAT | O_RDWR, 0600, &big));
        big = (struct mq_attr){ .mq_maxmsg = 10, .mq_msgsize = 8193 };
        SHOW("nobody msgsize 8193", mq_open("/own", O_CREAT | O_RDWR, 0600, &big));
        big.mq_msgsize = 8192;
        mqd_t own = mq_open("/own", O_CREAT | O_RDWR, 0600, &big);
        printf("nobody's own: %s\n", own >= 0 ? "ok" : errname(errno));
        _exit(0);
    }
    waitpid(c, &st, 0);
    printf("nobody child: %d\n", WEXITSTATUS(st));
    SHOW("root opens nobody's 0600", mq_open("/own", O_RDWR) >= 0);
    SHOW("root unlinks nobody's", mq_unlink("/own"));
    mq_unlink("/modes");
}

static volatile sig_atomic_t handled;
static void on_alarm(int sig)
{
    (void)sig;
    handled = 1;
}

static void blocking(void)
{
    mqd_t q = mq_open("/block", O_CREAT | O_RDWR, 0600, NULL);
    int ready[2];
    if (pipe(ready))
        return;
    pid_t c = fork();
    if (c == 0) {
        char buf[8192];
        unsigned prio;
        long n = mq_receive(q, buf, sizeof buf, &prio);
        printf("child received: %ld %.*s prio %u\n", n, n > 0 ? (int)n : 0, buf, prio);
        fflush(stdout);
        write(ready[1], "x", 1);
        /* Interrupted by a signal with a handler (no SA_RESTART): EINTR. */
        struct sigaction sa = { .sa_handler = on_alarm };
        sigaction(SIGALRM, &sa, NULL);
        struct itimerval it = { { 0, 0 }, { 0, 20000 } };
        setitimer(ITIMER_REAL, &it, NULL);
        n = mq_receive(q, buf, sizeof buf, NULL);
        printf("child's blocked receive: %ld %s, handler ran %d\n", n, errname(errno),
               handled);
        _exit(0);
    }
    SHOW("send to the waiting child", mq_send(q, "wake", 4, 9));
    char x;
    read(ready[0], &x, 1);
    int st;
    waitpid(c, &st, 0);
    printf("child status %d\n", WEXITSTATUS(st));
    mq_close(q);
    mq_unlink("/block");
}

static void notify(void)
{
    mqd_t q = mq_open("/notify", O_CREAT | O_RDWR, 0600, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR2);
    sigprocmask(SIG_BLOCK, &set, NULL);
    struct sigevent ev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGUSR2,
                           .sigev_value.sival_int = 1234 };
    SHOW("notify SIGUSR2", mq_notify(q, &ev));
    SHOW("notify again (busy)", mq_notify(q, &ev));
    show_line("registered", q);
    mq_send(q, "n", 1, 0);
    siginfo_t si;
    struct timespec zero = { 0, 0 };
    int sig = sigtimedwait(&set, &si, &zero);
    printf("signal %d code %d value %d pid %s\n", sig, si.si_code, si.si_value.sival_int,
           si.si_pid == getpid() ? "self" : "other");
    show_line("after it fired", q);
    mq_send(q, "m", 1, 0);
    printf("a second message: %d\n", sigtimedwait(&set, &si, &zero));
    SHOW("notify while not empty", mq_notify(q, &ev));
    mq_send(q, "o", 1, 0);
    printf("not empty before: %d\n", sigtimedwait(&set, &si, &zero));
    SHOW("notify NULL (removes)", mq_notify(q, NULL));
    SHOW("notify NULL again", mq_notify(q, NULL));
    char buf[8192];
    while (mq_timedreceive(q, buf, sizeof buf, NULL, &zero) >= 0)
        ;
    ev.sigev_notify = SIGEV_NONE;
    SHOW("notify SIGEV_NONE", mq_notify(q, &ev));
    show_line("none", q);
    mq_send(q, "p", 1, 0);
    printf("SIGEV_NONE signals: %d\n", sigtimedwait(&set, &si, &zero));
    show_line("none after", q);
    ev.sigev_notify = 99;
    SHOW("notify 99", mq_notify(q, &ev));
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = 65;
    SHOW("notify signal 65", mq_notify(q, &ev));
    ev.sigev_signo = SIGUSR2;
    SHOW("notify on fd 99", mq_notify(99, &ev));
    SHOW("notify on stdout", mq_notify(1, &ev));
    SHOW("raw notify EFAULT", syscall(SYS_mq_notify, q, bad_address));
    /* Registered by a child: the parent's send tells the child, not the parent. */
    mq_timedreceive(q, buf, sizeof buf, NULL, &zero);
    int go[2], done[2];
    if (pipe(go) || pipe(done))
        return;
    pid_t c = fork();
    if (c == 0) {
        ev.sigev_signo = SIGUSR2;
        ev.sigev_value.sival_int = 77;
        SHOW("child registers", mq_notify(q, &ev));
        write(done[1], "r", 1);
        char x;
        read(go[0], &x, 1);
        int s = sigtimedwait(&set, &si, &zero);
        printf("child got %d code %d value %d from its parent %d\n", s, si.si_code,
               si.si_value.sival_int, si.si_pid == getppid());
        _exit(0);
    }
    char x;
    read(done[0], &x, 1);
    SHOW("parent: notify while the child holds it", mq_notify(q, &ev));
    mq_send(q, "to-child", 8, 0);
    write(go[1], "g", 1);
    int st;
    waitpid(c, &st, 0);
    printf("parent got: %d\n", sigtimedwait(&set, &si, &zero));
    mq_close(q);
    mq_unlink("/notify");
    sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static long write_sysctl(const char *name, const char *value)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/sys/fs/mqueue/%s", name);
    int fd = open(path, O_WRONLY);
    if (fd < 0)
        return -1;
    long n = write(fd, value, strlen(value));
    close(fd);
    return n;
}

#define HARD_MSGSIZEMAX (16l << 20)

/* One word per page of a 16 MiB buffer: which page it is. */
static void *paged_buffer(int fill)
{
    char *b = mmap(NULL, HARD_MSGSIZEMAX, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    if (b == MAP_FAILED)
        return NULL;
    for (long i = 0; fill && i < HARD_MSGSIZEMAX; i += 4096)
        *(long *)(b + i) = i / 4096 + 1;
    if (fill)
        b[HARD_MSGSIZEMAX - 1] = 'z';
    return b;
}

static void sizes(void)
{
    SHOW("msgsize_max 16 MiB + 1", write_sysctl("msgsize_max", "16777217"));
    SHOW("msgsize_max 127", write_sysctl("msgsize_max", "127"));
    SHOW("msgsize_max 16 MiB", write_sysctl("msgsize_max", "16777216"));
    sysctls();
    write_sysctl("msgsize_max", "8192");
    struct mq_attr a = { .mq_maxmsg = 1, .mq_msgsize = HARD_MSGSIZEMAX };
    SHOW("16 MiB queue, RLIMIT_MSGQUEUE as it was", mq_open("/huge", O_CREAT | O_RDWR, 0600, &a));
    struct rlimit old, rl = { RLIM_INFINITY, RLIM_INFINITY };
    getrlimit(RLIMIT_MSGQUEUE, &old);
    SHOW("root raises RLIMIT_MSGQUEUE", setrlimit(RLIMIT_MSGQUEUE, &rl));
    a.mq_msgsize = HARD_MSGSIZEMAX + 1;
    SHOW("queue of 16 MiB + 1", mq_open("/huge", O_CREAT | O_RDWR, 0600, &a));
    a.mq_msgsize = HARD_MSGSIZEMAX;
    mqd_t q = mq_open("/huge", O_CREAT | O_RDWR, 0600, &a);
    printf("16 MiB queue: %s\n", q >= 0 ? "ok" : errname(errno));
    show_attr("huge", q);
    char *out = paged_buffer(1), *in = paged_buffer(0);
    if (q < 0 || !out || !in)
        return;
    SHOW("send 16 MiB + 1", mq_send(q, out, HARD_MSGSIZEMAX + 1, 0));
    SHOW("send 16 MiB", mq_send(q, out, HARD_MSGSIZEMAX, 3));
    show_line("16 MiB queued", q);
    unsigned prio = 0;
    struct timespec past = { 1, 0 };     /* an empty queue: ETIMEDOUT, not a hang */
    long n = SHOW("receive 16 MiB", mq_timedreceive(q, in, HARD_MSGSIZEMAX, &prio, &past));
    long pages_right = 0;
    for (long i = 0; i < HARD_MSGSIZEMAX; i += 4096)
        pages_right += *(long *)(in + i) == i / 4096 + 1;
    printf("received %ld bytes, prio %u, %ld of 4096 pages right, last byte %c\n", n, prio,
           pages_right, in[HARD_MSGSIZEMAX - 1]);
    mq_close(q);
    mq_unlink("/huge");
    munmap(out, HARD_MSGSIZEMAX);
    munmap(in, HARD_MSGSIZEMAX);
    setrlimit(RLIMIT_MSGQUEUE, &old);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    sysctls();
    limits();
    open_errors();
    messages();
    modes();
    blocking();
    notify();
    sizes();
    return 0;
}
