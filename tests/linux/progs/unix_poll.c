/* Readiness and waiting on AF_UNIX sockets (docs/linux/sockets.md): what poll, select and
 * epoll say of stream and datagram sockets through their life (unconnected, listening with
 * a connection waiting, connected, shut down either way, the peer gone, a pending error);
 * nonblocking EAGAIN; blocking calls woken by data, by a connection and by the peer's
 * end; a blocking recv interrupted by a signal with and without SA_RESTART; a blocking
 * stream send interrupted after it moved bytes (the count); SO_RCVTIMEO and SO_SNDTIMEO
 * (EAGAIN, and EINTR rather than a restart when a signal comes).  The child says it is
 * about to block and the parent acts once /proc shows it asleep (pwait.h). */
#include <fcntl.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/time.h>
#include "pwait.h"
#include "unixsock.h"

#define ALL (POLLIN | POLLOUT | POLLRDHUP | POLLPRI)

static void show_epoll(const char *what, int fd)
{
    int ep = epoll_create1(0);
    struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP };
    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    struct epoll_event out;
    int n = epoll_wait(ep, &out, 1, 0);
    printf("%s: %d%s%s%s%s%s\n", what, n, n && (out.events & EPOLLIN) ? " IN" : "",
           n && (out.events & EPOLLOUT) ? " OUT" : "", n && (out.events & EPOLLRDHUP) ? " RDHUP" : "",
           n && (out.events & EPOLLHUP) ? " HUP" : "", n && (out.events & EPOLLERR) ? " ERR" : "");
    close(ep);
}

static void states(void)
{
    int sv[2];
    printf("--- a stream pair\n");
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    show_poll("new", sv[0], ALL);
    write(sv[1], "x", 1);
    show_poll("with data", sv[0], ALL);
    show_epoll("epoll with data", sv[0]);
    fd_set r, w;
    FD_ZERO(&r);
    FD_ZERO(&w);
    FD_SET(sv[0], &r);
    FD_SET(sv[0], &w);
    struct timeval tv = { 0, 0 };
    printf("select: %d r %d w %d\n", select(sv[0] + 1, &r, &w, NULL, &tv), FD_ISSET(sv[0], &r),
           FD_ISSET(sv[0], &w));
    char buf[16];
    read(sv[0], buf, 1);
    shutdown(sv[1], SHUT_WR);
    show_poll("peer did SHUT_WR", sv[0], ALL);
    show_poll("the one that did", sv[1], ALL);
    shutdown(sv[1], SHUT_RD);
    show_poll("peer did SHUT_RDWR", sv[0], ALL);
    show_poll("the one that did", sv[1], ALL);
    show_epoll("epoll of it", sv[1]);
    close(sv[0]);
    close(sv[1]);

    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    close(sv[1]);
    show_poll("peer closed", sv[0], ALL);
    show_epoll("epoll", sv[0]);
    close(sv[0]);

    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    write(sv[0], "unread", 6);
    close(sv[0]);
    show_poll("peer closed with unread data", sv[1], ALL);
    close(sv[1]);

    printf("--- unconnected and listening\n");
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    show_poll("unconnected stream", s, ALL);
    struct sockaddr_un a;
    socklen_t alen = abstract_addr(&a, "lx-poll");
    bind(s, (struct sockaddr *)&a, alen);
    listen(s, 4);
    show_poll("listening", s, ALL);
    int c = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
    SSHOW("nonblocking connect", connect(c, (struct sockaddr *)&a, alen));
    show_poll("listening with one waiting", s, ALL);
    show_poll("the connected one", c, ALL);
    int acc = accept4(s, NULL, NULL, SOCK_NONBLOCK);
    printf("accept4 SOCK_NONBLOCK: O_NONBLOCK %d\n", !!(fcntl(acc, F_GETFL) & O_NONBLOCK));
    fcntl(s, F_SETFL, fcntl(s, F_GETFL) | O_NONBLOCK);
    SSHOW("accept nonblocking, none waiting", accept4(s, NULL, NULL, 0) < 0 ? -1 : 0);
    SSHOW("recv nonblocking", recv(acc, buf, 1, 0));
    SSHOW("recv MSG_DONTWAIT", recv(c, buf, 1, MSG_DONTWAIT));
    close(acc);
    close(c);
    int d = socket(AF_UNIX, SOCK_DGRAM, 0);
    show_poll("unconnected dgram", d, ALL);
    shutdown(d, SHUT_RDWR);
    show_poll("dgram after SHUT_RDWR", d, ALL);
    close(d);
    int q = socket(AF_UNIX, SOCK_SEQPACKET, 0);
    show_poll("unconnected seqpacket", q, ALL);
    close(q);

    printf("--- a backlog of 0\n");
    int s0 = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a0;
    socklen_t a0len = abstract_addr(&a0, "lx-poll0");
    bind(s0, (struct sockaddr *)&a0, a0len);
    listen(s0, 0);
    int c1 = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
    int c2 = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
    SSHOW("first connect", connect(c1, (struct sockaddr *)&a0, a0len));
    SSHOW("second connect", connect(c2, (struct sockaddr *)&a0, a0len));
    close(s0);
    show_poll("a connection whose listener closed", c1, ALL);
    SSHOW("recv", recv(c1, buf, 1, 0));
    SSHOW("recv", recv(c1, buf, 1, 0));
    close(c1);
    close(c2);
    close(s);
}

static volatile sig_atomic_t handled;

static void on_signal(int sig)
{
    (void)sig;
    handled++;
}

/* A child blocks in call_kind on socket sv[1]; the parent signals it (and then maybe sends
 * data); the child prints what its call returned. */
static void interrupted(const char *what, int sa_flags, int kind)
{
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    pipe(ready);
    pid_t pid = fork();
    if (pid == 0) {
        struct sigaction sa = { .sa_handler = on_signal, .sa_flags = sa_flags };
        sigemptyset(&sa.sa_mask);
        sigaction(SIGUSR1, &sa, NULL);
        char buf[300000];
        long r;
        errno = 0;
        if (kind == 0) {
            about_to_block();
            r = recv(sv[1], buf, sizeof buf, 0);
        } else if (kind == 1) {
            struct timeval tv = { 5, 0 };
            setsockopt(sv[1], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
            about_to_block();
            r = recv(sv[1], buf, sizeof buf, 0);
        } else {
            memset(buf, 'z', sizeof buf);
            about_to_block();
            r = send(sv[1], buf, sizeof buf, 0);
        }
        printf("%s: %ld %s, handler ran %d\n", what, r, r < 0 ? serrname(errno) : "",
               (int)handled);
        _exit(0);
    }
    until_asleep(pid);
    kill(pid, SIGUSR1);
    if (kind == 0 && (sa_flags & SA_RESTART)) {
        /* the restarted recv still waits: data ends it */
        if (sleeps(pid))
            write(sv[0], "after", 5);
    }
    if (kind == 2) {
        static char sink[400000];
        long got = 0, n;
        int fl = fcntl(sv[0], F_GETFL);
        fcntl(sv[0], F_SETFL, fl | O_NONBLOCK);
        int st;
        waitpid(pid, &st, 0);
        while ((n = read(sv[0], sink, sizeof sink)) > 0)
            got += n;
        printf("%s: the reader got more than 0 and less than all: %d\n", what,
               got > 0 && got < 300000);
        close(sv[0]);
        close(sv[1]);
        close(ready[0]);
        close(ready[1]);
        return;
    }
    reap(what, pid);
    close(sv[0]);
    close(sv[1]);
    close(ready[0]);
    close(ready[1]);
}

static void timeouts(void)
{
    printf("--- timeouts\n");
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    struct timeval tv = { 0, 100000 };
    setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char buf[16];
    SSHOW("recv with SO_RCVTIMEO 100 ms", recv(sv[0], buf, sizeof buf, 0));
    SSHOW("read with it", read(sv[0], buf, sizeof buf));
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a;
    socklen_t alen = abstract_addr(&a, "lx-poll-timeo");
    bind(s, (struct sockaddr *)&a, alen);
    listen(s, 1);
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    SSHOW("accept with SO_RCVTIMEO", accept(s, NULL, NULL));
    setsockopt(sv[1], SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    static char big[300000];
    long sent = 0, n;
    while ((n = send(sv[1], big, sizeof big, 0)) > 0)
        sent += n;
    printf("send with SO_SNDTIMEO until it stops: %s, sent something %d\n", serrname(errno),
           sent > 0);
    tv = (struct timeval){ -1, 0 };
    SSHOW("a negative SO_RCVTIMEO", setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv));
    socklen_t len = sizeof tv;
    getsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, &len);
    printf("reads %ld.%06ld\n", (long)tv.tv_sec, (long)tv.tv_usec);
    while (recv(sv[0], big, sizeof big, MSG_DONTWAIT) > 0)
        ;
    SSHOW("recv: no wait at all", recv(sv[0], buf, sizeof buf, 0));
    close(sv[0]);
    close(sv[1]);
    close(s);
}

static void wakeups(void)
{
    printf("--- blocking calls woken\n");
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    pipe(ready);
    pid_t pid = fork();
    if (pid == 0) {
        char buf[16];
        close(sv[0]);               /* the parent's close is the end */
        about_to_block();
        long n = read(sv[1], buf, sizeof buf);
        printf("child read %ld: %.*s\n", n, (int)(n > 0 ? n : 0), buf);
        about_to_block();
        n = read(sv[1], buf, sizeof buf);
        printf("child read at the end %ld\n", n);
        _exit(0);
    }
    until_asleep(pid);
    write(sv[0], "wake", 4);
    until_asleep(pid);
    close(sv[0]);
    reap("reader", pid);
    close(sv[1]);

    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a;
    socklen_t alen = abstract_addr(&a, "lx-poll-accept");
    bind(s, (struct sockaddr *)&a, alen);
    listen(s, 1);
    pid = fork();
    if (pid == 0) {
        about_to_block();
        int c = accept(s, NULL, NULL);
        char b;
        printf("child accepted %d, read %ld\n", c >= 0, (long)read(c, &b, 1));
        _exit(0);
    }
    until_asleep(pid);
    int c = socket(AF_UNIX, SOCK_STREAM, 0);
    SSHOW("connect", connect(c, (struct sockaddr *)&a, alen));
    write(c, "k", 1);
    reap("acceptor", pid);
    close(c);

    /* a connect that waits for room in a full backlog */
    int c1 = socket(AF_UNIX, SOCK_STREAM, 0);
    connect(c1, (struct sockaddr *)&a, alen);
    int c2 = socket(AF_UNIX, SOCK_STREAM, 0);
    connect(c2, (struct sockaddr *)&a, alen);
    pid = fork();
    if (pid == 0) {
        int c3 = socket(AF_UNIX, SOCK_STREAM, 0);
        about_to_block();
        printf("child's connect to a full backlog: %d\n",
               connect(c3, (struct sockaddr *)&a, alen));
        _exit(0);
    }
    until_asleep(pid);
    int acc = accept(s, NULL, NULL);
    reap("connector", pid);
    close(acc);
    close(c1);
    close(c2);
    close(s);

    int ep = epoll_create1(0);
    socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
    struct epoll_event ev = { .events = EPOLLIN, .data.u32 = 7 };
    epoll_ctl(ep, EPOLL_CTL_ADD, sv[0], &ev);
    pipe(ready);
    pid = fork();
    if (pid == 0) {
        struct epoll_event out;
        about_to_block();
        int n = epoll_wait(ep, &out, 1, -1);
        printf("child's epoll_wait: %d data %u IN %d\n", n, out.data.u32, !!(out.events & EPOLLIN));
        _exit(0);
    }
    until_asleep(pid);
    send(sv[1], "dgram", 5, 0);
    reap("epoll waiter", pid);
    close(ep);
    close(sv[0]);
    close(sv[1]);
}

int main(void)
{
    corpus_init();
    (void)go;
    states();
    printf("--- signals\n");
    interrupted("recv, no SA_RESTART", 0, 0);
    interrupted("recv, SA_RESTART", SA_RESTART, 0);
    interrupted("recv with SO_RCVTIMEO, SA_RESTART", SA_RESTART, 1);
    interrupted("send of 300000 bytes", 0, 2);
    timeouts();
    wakeups();
    return 0;
}
