/* AF_INET stream sockets on lo (docs/linux/sockets.md, "TCP"): creation errors, the
 * options and buffer sizes Linux reports, bind's errors and port sharing (SO_REUSEADDR,
 * SO_REUSEPORT, a listener), connect (blocking, non-blocking with EINPROGRESS, refused,
 * unreachable, 0.0.0.0), accept4's peer address, the names each end sees, byte streams
 * with MSG_PEEK/DONTWAIT/WAITALL/TRUNC, FIONREAD, shutdown, the end of a peer (EOF, EPIPE
 * and SIGPIPE, ECONNRESET for unread data), poll and epoll readiness and a 1 MiB transfer.
 * One process orders everything, except the transfer (fork, ordered by the socket). */
#include <fcntl.h>
#include <stdlib.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include "inetsock.h"

#define PORT 5501
#define PORT2 5502
#define PORT3 5503
#define PORT_NOBODY 5599

static int sigpipes;
static void on_sigpipe(int sig)
{
    (void)sig;
    sigpipes++;
}

/* The lines of /proc/net/tcp about port (local or remote), sorted, ephemeral ports as eph:
 * address, port and state, as ss and netstat read them (TIME_WAIT left out). */
static int cmp_lines(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

static void show_proc_tcp(const char *what, int port)
{
    FILE *f = fopen("/proc/net/tcp", "r");
    char line[256], rows[16][64];
    int n = 0;
    if (!f) {
        printf("%s: no /proc/net/tcp\n", what);
        return;
    }
    if (fgets(line, sizeof line, f))
        printf("%s: header %.40s width %zu\n", what, line, strlen(line));
    while (fgets(line, sizeof line, f) && n < 16) {
        unsigned la, lp, ra, rp, st;
        if (sscanf(line, "%*d: %8X:%4X %8X:%4X %2X", &la, &lp, &ra, &rp, &st) != 5)
            continue;
        if (((int)lp != port && (int)rp != port) || st == 6)
            continue;               /* TIME_WAIT (Linux's, of earlier cases): lx has none */
        char l[8], r[8];
        snprintf(l, sizeof l, lp >= 32768 && lp <= 60999 ? "eph" : "%u", lp);
        snprintf(r, sizeof r, rp >= 32768 && rp <= 60999 ? "eph" : "%u", rp);
        snprintf(rows[n++], sizeof rows[0], "%08X:%s %08X:%s %02X width %zu", la, l, ra, r,
                 st, strlen(line));
    }
    fclose(f);
    qsort(rows, (size_t)n, sizeof rows[0], cmp_lines);
    for (int k = 0; k < n; k++)
        printf("  %s\n", rows[k]);
}

static int tcp(void)
{
    return socket(AF_INET, SOCK_STREAM, 0);
}

static void creation(void)
{
    int fd;
    SSHOW("socket AF_INET SOCK_STREAM", (fd = tcp()) >= 0 ? 0 : -1);
    printf("SO_TYPE %d SO_PROTOCOL %d SO_DOMAIN %d\n", sockopt_int(fd, SOL_SOCKET, SO_TYPE),
           sockopt_int(fd, SOL_SOCKET, SO_PROTOCOL), sockopt_int(fd, SOL_SOCKET, SO_DOMAIN));
    printf("SO_SNDBUF %d SO_RCVBUF %d\n", sockopt_int(fd, SOL_SOCKET, SO_SNDBUF),
           sockopt_int(fd, SOL_SOCKET, SO_RCVBUF));
    set_int(fd, SOL_SOCKET, SO_SNDBUF, 10000);
    set_int(fd, SOL_SOCKET, SO_RCVBUF, 10000);
    printf("after 10000: SO_SNDBUF %d SO_RCVBUF %d\n", sockopt_int(fd, SOL_SOCKET, SO_SNDBUF),
           sockopt_int(fd, SOL_SOCKET, SO_RCVBUF));
    show_set_one("TCP_NODELAY", fd, IPPROTO_TCP, TCP_NODELAY);
    show_set_one("SO_KEEPALIVE", fd, SOL_SOCKET, SO_KEEPALIVE);
    printf("TCP_KEEPIDLE %d TCP_KEEPINTVL %d TCP_KEEPCNT %d\n",
           sockopt_int(fd, IPPROTO_TCP, TCP_KEEPIDLE), sockopt_int(fd, IPPROTO_TCP, TCP_KEEPINTVL),
           sockopt_int(fd, IPPROTO_TCP, TCP_KEEPCNT));
    int zero = 0;
    SSHOW("TCP_KEEPIDLE 0", setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &zero, sizeof zero));
    printf("IP_TTL %d IP_TOS %d\n", sockopt_int(fd, IPPROTO_IP, IP_TTL),
           sockopt_int(fd, IPPROTO_IP, IP_TOS));
    SSHOW("setsockopt TCP 9999", setsockopt(fd, IPPROTO_TCP, 9999, &zero, sizeof zero));
    SSHOW("setsockopt IPPROTO_IPV6 on AF_INET", setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero));
    SSHOW("setsockopt TCP_NODELAY short", setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &zero, 2));
    SSHOW("setsockopt TCP_NODELAY bad pointer", setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, (void *)8, 4));
    struct linger l = { 1, 5 };
    SSHOW("SO_LINGER", setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l));
    socklen_t len = sizeof l;
    getsockopt(fd, SOL_SOCKET, SO_LINGER, &l, &len);
    printf("SO_LINGER %d %d\n", l.l_onoff, l.l_linger);
    show_name("getsockname fresh", fd, false);
    show_name("getpeername fresh", fd, true);
    show_poll("poll fresh", fd, POLLIN | POLLOUT | POLLRDHUP);
    char c;
    SSHOW("recv unconnected", recv(fd, &c, 1, 0));
    SSHOW("send unconnected MSG_NOSIGNAL", send(fd, "x", 1, MSG_NOSIGNAL));
    SSHOW("shutdown unconnected", shutdown(fd, SHUT_RDWR));
    SSHOW("accept unlistened", accept(fd, NULL, NULL));
    SSHOW("shutdown 7", shutdown(fd, 7));
    close(fd);
    SSHOW("socket IPPROTO_UDP stream", socket(AF_INET, SOCK_STREAM, IPPROTO_UDP));
    SSHOW("socket SOCK_SEQPACKET", socket(AF_INET, SOCK_SEQPACKET, 0));
    SSHOW("socket protocol 300", socket(AF_INET, SOCK_STREAM, 300));
    SSHOW("socket family 46", socket(46, SOCK_STREAM, 0));
}

static void binding(void)
{
    struct sockaddr_in a;
    int s1 = tcp(), s2 = tcp(), s3 = tcp();
    in4(&a, "127.0.0.1", PORT);
    SSHOW("bind len 15", bind(s1, (struct sockaddr *)&a, 15));
    SSHOW("bind NULL", bind(s1, NULL, sizeof a));
    a.sin_family = AF_INET6;
    SSHOW("bind family AF_INET6", bind(s1, (struct sockaddr *)&a, sizeof a));
    in4(&a, "10.1.2.3", PORT);
    SSHOW("bind 10.1.2.3", bind(s1, (struct sockaddr *)&a, sizeof a));
    in4(&a, "127.0.0.1", PORT);
    SSHOW("bind 127.0.0.1", bind(s1, (struct sockaddr *)&a, sizeof a));
    SSHOW("bind again", bind(s1, (struct sockaddr *)&a, sizeof a));
    show_name("getsockname bound", s1, false);
    SSHOW("bind same port other socket", bind(s2, (struct sockaddr *)&a, sizeof a));
    in4(&a, "0.0.0.0", PORT);
    SSHOW("bind 0.0.0.0 same port", bind(s2, (struct sockaddr *)&a, sizeof a));
    in4(&a, "127.0.0.2", PORT);
    SSHOW("bind 127.0.0.2 same port", bind(s2, (struct sockaddr *)&a, sizeof a));
    close(s1);
    close(s2);
    close(s3);
    /* SO_REUSEADDR: two may share while neither listens; a listener holds the port alone */
    s1 = tcp();
    s2 = tcp();
    in4(&a, "127.0.0.1", PORT);
    bind_both("reuseaddr", "1", "2", s1, s2, SO_REUSEADDR, &a);
    SSHOW("reuseaddr listen 1", listen(s1, 5));
    SSHOW("reuseaddr listen 2", listen(s2, 5));
    s3 = tcp();
    set_int(s3, SOL_SOCKET, SO_REUSEADDR, 1);
    SSHOW("reuseaddr bind 3 beside a listener", bind(s3, (struct sockaddr *)&a, sizeof a));
    close(s1);
    close(s2);
    close(s3);
    s1 = tcp();
    s2 = tcp();
    bind_both("reuseport", "1", "2", s1, s2, SO_REUSEPORT, &a);
    SSHOW("reuseport listen 1", listen(s1, 5));
    SSHOW("reuseport listen 2", listen(s2, 5));
    close(s1);
    close(s2);
    s1 = tcp();
    in4(&a, "127.0.0.1", 0);
    SSHOW("bind port 0", bind(s1, (struct sockaddr *)&a, sizeof a));
    show_name("getsockname port 0", s1, false);
    close(s1);
    s1 = tcp();
    SSHOW("listen unbound", listen(s1, 1));
    show_name("getsockname listen unbound", s1, false);
    close(s1);
}

static void connecting(void)
{
    struct sockaddr_in a;
    struct sockaddr_storage ss;
    socklen_t len;
    int l = tcp();
    in4(&a, "0.0.0.0", PORT2);
    set_int(l, SOL_SOCKET, SO_REUSEADDR, 1);
    SSHOW("bind listener 0.0.0.0", bind(l, (struct sockaddr *)&a, sizeof a));
    SSHOW("listen", listen(l, 8));
    printf("SO_ACCEPTCONN %d\n", sockopt_int(l, SOL_SOCKET, SO_ACCEPTCONN));
    show_poll("poll listener empty", l, POLLIN | POLLOUT);
    int c = tcp();
    in4(&a, "127.0.0.1", PORT2);
    SSHOW("connect len 0", connect(c, (struct sockaddr *)&a, 0));
    SSHOW("connect len 8", connect(c, (struct sockaddr *)&a, 8));
    SSHOW("connect bad pointer", connect(c, (struct sockaddr *)8, sizeof a));
    a.sin_family = AF_INET6;
    SSHOW("connect family AF_INET6", connect(c, (struct sockaddr *)&a, sizeof a));
    in4(&a, "10.1.2.3", PORT2);
    SSHOW("connect 10.1.2.3", connect(c, (struct sockaddr *)&a, sizeof a));
    in4(&a, "127.0.0.1", PORT_NOBODY);
    SSHOW("connect nobody", connect(c, (struct sockaddr *)&a, sizeof a));
    close(c);
    c = tcp();
    in4(&a, "127.0.0.1", PORT2);
    SSHOW("connect", connect(c, (struct sockaddr *)&a, sizeof a));
    SSHOW("connect again", connect(c, (struct sockaddr *)&a, sizeof a));
    SSHOW("listen connected", listen(c, 1));
    SSHOW("connect listener", connect(l, (struct sockaddr *)&a, sizeof a));
    show_poll("poll listener with one", l, POLLIN | POLLOUT);
    show_name("client getsockname", c, false);
    show_name("client getpeername", c, true);
    show_proc_tcp("/proc/net/tcp", PORT2);
    len = sizeof ss;
    int s = accept4(l, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC);
    printf("accept4: %s\n", s >= 0 ? "fd" : serrname(errno));
    show_in("accept4 peer", &ss, len);
    printf("FD_CLOEXEC %d\n", fcntl(s, F_GETFD) & FD_CLOEXEC);
    show_name("server getsockname", s, false);
    show_name("server getpeername", s, true);
    printf("accepted inherits SO_REUSEADDR %d\n", sockopt_int(s, SOL_SOCKET, SO_REUSEADDR));
    fcntl(l, F_SETFL, O_NONBLOCK);
    SSHOW("accept nonblocking empty", accept(l, NULL, NULL));
    SSHOW("accept4 bad flags", accept4(l, NULL, NULL, 0x1234));

    /* the bytes */
    show_poll("poll server idle", s, POLLIN | POLLOUT | POLLRDHUP);
    SSHOW("send", send(c, "hello world", 11, 0));
    int avail = -1;
    SSHOW("FIONREAD", ioctl(s, FIONREAD, &avail));
    printf("readable: %d\n", avail);
    SSHOW("FIONREAD listener", ioctl(l, FIONREAD, &avail));
    show_poll("poll server data", s, POLLIN | POLLOUT | POLLRDHUP);
    char buf[64] = { 0 };
    SSHOW("recv MSG_PEEK", recv(s, buf, 5, MSG_PEEK));
    printf("peeked: %.5s\n", buf);
    SSHOW("recv MSG_OOB", recv(s, buf, 5, MSG_OOB));
    SSHOW("recv 6", recv(s, buf, 6, 0));
    printf("got: %.6s\n", buf);
    SSHOW("recv MSG_TRUNC 2", recv(s, NULL, 2, MSG_TRUNC));
    SSHOW("recv rest", recv(s, buf, sizeof buf, 0));
    printf("got: %.3s\n", buf);
    SSHOW("recv empty MSG_DONTWAIT", recv(s, buf, sizeof buf, MSG_DONTWAIT));
    SSHOW("send 3", send(s, "abc", 3, 0));
    SSHOW("send 3", send(s, "def", 3, 0));
    SSHOW("recv MSG_WAITALL 6", recv(c, buf, 6, MSG_WAITALL));
    printf("got: %.6s\n", buf);
    SSHOW("recv bad buffer", (send(c, "q", 1, 0), recv(s, (void *)8, 1, 0)));
    SSHOW("recv after fault", recv(s, buf, 1, MSG_DONTWAIT));
    SSHOW("sendto with address (ignored)", sendto(c, "zz", 2, 0, (struct sockaddr *)&a, sizeof a));
    SSHOW("recv", recv(s, buf, sizeof buf, 0));

    /* epoll */
    int ep = epoll_create1(0);
    struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.u32 = 1 };
    epoll_ctl(ep, EPOLL_CTL_ADD, s, &ev);
    struct epoll_event out[2];
    int n = epoll_wait(ep, out, 2, 0);
    printf("epoll: %d events 0x%x\n", n, n > 0 ? out[0].events : 0);

    /* shutdown: EOF one way, the other way still works */
    SSHOW("shutdown c SHUT_WR", shutdown(c, SHUT_WR));
    show_poll("poll server after peer SHUT_WR", s, POLLIN | POLLOUT | POLLRDHUP);
    n = epoll_wait(ep, out, 2, 0);
    printf("epoll: %d events 0x%x\n", n, n > 0 ? out[0].events : 0);
    SSHOW("recv EOF", recv(s, buf, sizeof buf, 0));
    SSHOW("send back", send(s, "back", 4, 0));
    SSHOW("recv back", recv(c, buf, sizeof buf, 0));
    SSHOW("send after SHUT_WR", send(c, "x", 1, 0));
    printf("SIGPIPE %d\n", sigpipes);
    SSHOW("send after SHUT_WR MSG_NOSIGNAL", send(c, "x", 1, MSG_NOSIGNAL));
    printf("SIGPIPE %d\n", sigpipes);
    show_poll("poll client after SHUT_WR", c, POLLIN | POLLOUT | POLLRDHUP);
    SSHOW("shutdown s SHUT_RDWR", shutdown(s, SHUT_RDWR));
    show_poll("poll server SHUT_RDWR", s, POLLIN | POLLOUT | POLLRDHUP);
    show_poll("poll client both shut", c, POLLIN | POLLOUT | POLLRDHUP);
    SSHOW("recv client EOF", recv(c, buf, sizeof buf, 0));
    close(ep);
    close(s);
    close(c);

    /* a close with unread data resets the peer */
    c = tcp();
    SSHOW("connect", connect(c, (struct sockaddr *)&a, sizeof a));
    fcntl(l, F_SETFL, 0);
    s = accept(l, NULL, NULL);
    SSHOW("send", send(c, "unread", 6, 0));
    close(s);
    show_poll("poll after reset", c, POLLIN | POLLOUT | POLLRDHUP);
    printf("SO_ERROR %s\n", serrname(sockopt_int(c, SOL_SOCKET, SO_ERROR)));
    show_poll("poll after SO_ERROR", c, POLLIN | POLLOUT | POLLRDHUP);
    SSHOW("recv after reset", recv(c, buf, sizeof buf, 0));
    show_name("getpeername after reset", c, true);
    SSHOW("send after reset", send(c, "x", 1, MSG_NOSIGNAL));
    close(c);

    c = tcp();
    SSHOW("connect", connect(c, (struct sockaddr *)&a, sizeof a));
    s = accept(l, NULL, NULL);
    SSHOW("send", send(c, "data", 4, 0));
    close(c);
    SSHOW("recv data after close", recv(s, buf, sizeof buf, 0));
    SSHOW("recv EOF", recv(s, buf, sizeof buf, 0));
    show_poll("poll after FIN", s, POLLIN | POLLOUT | POLLRDHUP);
    SSHOW("send to closed 1", send(s, "x", 1, 0));
    printf("SIGPIPE %d\n", sigpipes);
    SSHOW("send to closed 2", send(s, "x", 1, 0));
    printf("SIGPIPE %d\n", sigpipes);
    SSHOW("send to closed 3", send(s, "x", 1, 0));
    printf("SIGPIPE %d\n", sigpipes);
    SSHOW("recv", recv(s, buf, sizeof buf, 0));
    close(s);

    /* non-blocking connects */
    c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    SSHOW("nonblocking connect", connect(c, (struct sockaddr *)&a, sizeof a));
    show_poll("poll connecting", c, POLLIN | POLLOUT);
    printf("SO_ERROR %s\n", serrname(sockopt_int(c, SOL_SOCKET, SO_ERROR)));
    SSHOW("connect again", connect(c, (struct sockaddr *)&a, sizeof a));
    SSHOW("connect third", connect(c, (struct sockaddr *)&a, sizeof a));
    s = accept(l, NULL, NULL);
    close(s);
    close(c);
    c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    in4(&a, "127.0.0.1", PORT_NOBODY);
    SSHOW("nonblocking connect nobody", connect(c, (struct sockaddr *)&a, sizeof a));
    show_poll("poll refused", c, POLLIN | POLLOUT);
    SSHOW("connect again", connect(c, (struct sockaddr *)&a, sizeof a));
    printf("SO_ERROR %s\n", serrname(sockopt_int(c, SOL_SOCKET, SO_ERROR)));
    close(c);

    /* the destinations 0.0.0.0 and 127.0.0.2 are this machine */
    c = tcp();
    in4(&a, "0.0.0.0", PORT2);
    SSHOW("connect 0.0.0.0", connect(c, (struct sockaddr *)&a, sizeof a));
    show_name("peer of 0.0.0.0", c, true);
    s = accept(l, NULL, NULL);
    close(s);
    close(c);
    c = tcp();
    in4(&a, "127.0.0.2", PORT2);
    SSHOW("connect 127.0.0.2", connect(c, (struct sockaddr *)&a, sizeof a));
    show_name("client name", c, false);
    s = accept(l, NULL, NULL);
    show_name("server name", s, false);
    close(s);
    close(c);
    close(l);
    c = tcp();
    SSHOW("connect to the closed listener", connect(c, (struct sockaddr *)&a, sizeof a));
    close(c);
}

/* A megabyte through a connection: a child writes, the parent reads and sums. */
static void transfer(void)
{
    struct sockaddr_in a;
    int l = tcp();
    in4(&a, "127.0.0.1", PORT3);
    bind(l, (struct sockaddr *)&a, sizeof a);
    listen(l, 1);
    pid_t pid = fork();
    if (pid == 0) {
        int c = tcp();
        if (connect(c, (struct sockaddr *)&a, sizeof a) < 0)
            _exit(1);
        static unsigned char big[1 << 16];
        for (unsigned k = 0; k < sizeof big; k++)
            big[k] = (unsigned char)(k * 7);
        for (int k = 0; k < 16; k++)
            if (write(c, big, sizeof big) != (long)sizeof big)
                _exit(2);
        _exit(0);
    }
    int s = accept(l, NULL, NULL);
    unsigned long total = 0, sum = 0;
    static unsigned char buf[10000];
    long n;
    while ((n = read(s, buf, sizeof buf)) > 0) {
        for (long k = 0; k < n; k++)
            sum += buf[k];
        total += (unsigned long)n;
    }
    int st;
    waitpid(pid, &st, 0);
    printf("transfer: %lu bytes sum %lu child status %d\n", total, sum, WEXITSTATUS(st));
    close(s);
    close(l);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    signal(SIGPIPE, on_sigpipe);
    lo_up();
    FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
    int lo = 0, hi = 0;
    if (f && fscanf(f, "%d %d", &lo, &hi) == 2)
        printf("ip_local_port_range %d %d\n", lo, hi);
    if (f)
        fclose(f);
    creation();
    binding();
    connecting();
    transfer();
    return 0;
}
