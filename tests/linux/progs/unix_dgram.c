/* AF_UNIX datagram sockets (docs/linux/sockets.md): message boundaries, MSG_TRUNC both
 * ways, empty datagrams, MSG_PEEK, sendto/recvfrom by path and abstract name (the source
 * address, unnamed senders), connect and its rules (EPERM from a socket connected
 * elsewhere, AF_UNSPEC), the receive queue's limit (net.unix.max_dgram_qlen), EMSGSIZE,
 * shutdown, a closed peer (ECONNREFUSED, then ENOTCONN), SIOCINQ. */
#include <fcntl.h>
#include <sys/ioctl.h>
#include "unixsock.h"

static void pair(void)
{
    int sv[2];
    char buf[64];
    if (SSHOW("socketpair", socketpair(AF_UNIX, SOCK_DGRAM, 0, sv)) < 0)
        return;
    SSHOW("send one", send(sv[0], "one", 3, 0));
    SSHOW("send two", send(sv[0], "second", 6, 0));
    SSHOW("send empty", send(sv[0], "", 0, 0));
    int avail = -1;
    SSHOW("SIOCINQ", ioctl(sv[1], SIOCINQ, &avail));
    printf("next datagram: %d bytes\n", avail);
    SSHOW("recv 64", recv(sv[1], buf, sizeof buf, 0));
    SSHOW("recv 2 (truncated)", recv(sv[1], buf, 2, 0));
    printf("got %.2s\n", buf);
    SSHOW("recv the empty one", recv(sv[1], buf, sizeof buf, 0));
    SSHOW("recv nothing left", recv(sv[1], buf, sizeof buf, MSG_DONTWAIT));

    send(sv[0], "truncate me", 11, 0);
    SSHOW("recv MSG_PEEK|MSG_TRUNC 4", recv(sv[1], buf, 4, MSG_PEEK | MSG_TRUNC));
    struct iovec iov = { buf, 4 };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
    SSHOW("recvmsg 4", recvmsg(sv[1], &m, 0));
    printf("msg_flags MSG_TRUNC %d\n", !!(m.msg_flags & MSG_TRUNC));

    write(sv[1], "back", 4);
    SSHOW("read", read(sv[0], buf, sizeof buf));
    int v;
    socklen_t len = sizeof v;
    getsockopt(sv[0], SOL_SOCKET, SO_TYPE, &v, &len);
    printf("SO_TYPE %d\n", v);
    struct sockaddr_un a;
    len = sizeof a;
    SSHOW("getpeername of a pair", getpeername(sv[0], (struct sockaddr *)&a, &len));
    show_addr("peer", &a, len);

    /* the size limit: sndbuf - 32 */
    v = 10000;
    setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &v, sizeof v);
    static char big[30000];
    SSHOW("send 19968 with SO_SNDBUF 10000", send(sv[0], big, 19968, 0));
    SSHOW("send 19969", send(sv[0], big, 19969, 0));
    SSHOW("recv it", recv(sv[1], big, sizeof big, 0));
    close(sv[0]);
    SSHOW("send to a closed pair", send(sv[1], "x", 1, 0));
    SSHOW("and again", send(sv[1], "x", 1, 0));
    close(sv[1]);
}

static int bound(const char *path)
{
    struct sockaddr_un a;
    int s = socket(AF_UNIX, SOCK_DGRAM, 0);
    unlink(path);
    if (bind(s, (struct sockaddr *)&a, path_addr(&a, path)) < 0)
        printf("bind %s: %s\n", path, serrname(errno));
    return s;
}

static void addresses(void)
{
    printf("--- addresses\n");
    struct sockaddr_un a, from;
    char buf[64];
    int srv = bound("/tmp/dg.srv"), cli = bound("/tmp/dg.cli");
    socklen_t alen = path_addr(&a, "/tmp/dg.srv");
    SSHOW("sendto the server", sendto(cli, "ping", 4, 0, (struct sockaddr *)&a, alen));
    socklen_t flen = sizeof from;
    SSHOW("recvfrom", recvfrom(srv, buf, sizeof buf, 0, (struct sockaddr *)&from, &flen));
    show_addr("from", &from, flen);
    SSHOW("reply", sendto(srv, "pong", 4, 0, (struct sockaddr *)&from, flen));
    flen = 4;
    SSHOW("recvfrom with a short address buffer", recvfrom(cli, buf, sizeof buf, 0,
                                                           (struct sockaddr *)&from, &flen));
    printf("address length reported %u\n", (unsigned)flen);

    int anon = socket(AF_UNIX, SOCK_DGRAM, 0);
    SSHOW("an unnamed sender", sendto(anon, "who", 3, 0, (struct sockaddr *)&a, alen));
    flen = sizeof from;
    SSHOW("recvfrom", recvfrom(srv, buf, sizeof buf, 0, (struct sockaddr *)&from, &flen));
    printf("address length %u\n", (unsigned)flen);
    SSHOW("send unconnected", send(anon, "x", 1, 0));

    int v = 1;
    setsockopt(anon, SOL_SOCKET, SO_PASSCRED, &v, sizeof v);
    SSHOW("a sender with SO_PASSCRED", sendto(anon, "me", 2, 0, (struct sockaddr *)&a, alen));
    flen = sizeof from;
    recvfrom(srv, buf, sizeof buf, 0, (struct sockaddr *)&from, &flen);
    show_addr("it was autobound", &from, flen);

    int abs_srv = socket(AF_UNIX, SOCK_DGRAM, 0);
    struct sockaddr_un ab;
    socklen_t ablen = abstract_addr(&ab, "lx-dgram");
    SSHOW("bind abstract", bind(abs_srv, (struct sockaddr *)&ab, ablen));
    SSHOW("sendto abstract", sendto(cli, "abs", 3, 0, (struct sockaddr *)&ab, ablen));
    SSHOW("sendto abstract, a longer name", sendto(cli, "abs", 3, 0, (struct sockaddr *)&ab,
                                                   ablen + 1));
    flen = sizeof from;
    SSHOW("recvfrom", recvfrom(abs_srv, buf, sizeof buf, 0, (struct sockaddr *)&from, &flen));
    show_addr("from", &from, flen);
    int abs_stream = socket(AF_UNIX, SOCK_STREAM, 0);
    SSHOW("a stream socket binds the same abstract name", bind(abs_stream,
                                                              (struct sockaddr *)&ab, ablen));
    int abs2 = socket(AF_UNIX, SOCK_DGRAM, 0);
    SSHOW("another dgram socket binds it", bind(abs2, (struct sockaddr *)&ab, ablen));
    close(abs2);
    close(abs_stream);

    printf("--- connect\n");
    SSHOW("connect cli to srv", connect(cli, (struct sockaddr *)&a, alen));
    SSHOW("send connected", send(cli, "c1", 2, 0));
    flen = sizeof from;
    SSHOW("recvfrom", recvfrom(srv, buf, sizeof buf, 0, (struct sockaddr *)&from, &flen));
    show_addr("from", &from, flen);
    socklen_t plen = sizeof from;
    getpeername(cli, (struct sockaddr *)&from, &plen);
    show_addr("cli's peer", &from, plen);
    SSHOW("sendto another address while connected",
          sendto(cli, "x", 1, 0, (struct sockaddr *)&ab, ablen));
    flen = sizeof from;
    SSHOW("the abstract one got it", recvfrom(abs_srv, buf, sizeof buf, MSG_DONTWAIT,
                                              (struct sockaddr *)&from, &flen));
    int third = socket(AF_UNIX, SOCK_DGRAM, 0);
    socklen_t clen = path_addr(&from, "/tmp/dg.cli");
    SSHOW("a third sends to cli (connected elsewhere)", sendto(third, "x", 1, 0,
                                                               (struct sockaddr *)&from, clen));
    SSHOW("the third connects to cli", connect(third, (struct sockaddr *)&from, clen));
    SSHOW("srv sends to cli (its peer)", sendto(srv, "ok", 2, 0, (struct sockaddr *)&from, clen));
    SSHOW("cli gets it", recv(cli, buf, sizeof buf, MSG_DONTWAIT));
    struct sockaddr unspec = { .sa_family = AF_UNSPEC };
    SSHOW("disconnect with AF_UNSPEC", connect(cli, &unspec, sizeof unspec));
    plen = sizeof from;
    SSHOW("getpeername", getpeername(cli, (struct sockaddr *)&from, &plen));
    SSHOW("send", send(cli, "x", 1, 0));
    SSHOW("now the third may send", sendto(third, "x", 1, 0, (struct sockaddr *)&from, clen));
    close(third);

    printf("--- the queue limit\n");
    int fl = fcntl(cli, F_GETFL);
    fcntl(cli, F_SETFL, fl | O_NONBLOCK);
    int n = 0;
    while (sendto(cli, "q", 1, 0, (struct sockaddr *)&a, alen) == 1 && n < 100)
        n++;
    printf("datagrams queued before %s: %d\n", serrname(errno), n);
    struct pollfd p = { .fd = cli, .events = POLLOUT };
    SSHOW("connect to it, then poll for writing", connect(cli, (struct sockaddr *)&a, alen));
    printf("poll: %d\n", poll(&p, 1, 0));
    recv(srv, buf, sizeof buf, 0);
    printf("after one is read: %d\n", poll(&p, 1, 0));
    SSHOW("send again", send(cli, "q", 1, 0));
    SSHOW("and again", send(cli, "q", 1, 0));
    while (recv(srv, buf, sizeof buf, MSG_DONTWAIT) > 0)
        ;

    printf("--- shutdown and close\n");
    SSHOW("shutdown SHUT_RD of srv", shutdown(srv, SHUT_RD));
    SSHOW("recv nonblocking", recv(srv, buf, sizeof buf, MSG_DONTWAIT));
    SSHOW("recv blocking", recv(srv, buf, sizeof buf, 0));
    SSHOW("send to it", send(cli, "x", 1, 0));
    SSHOW("shutdown SHUT_WR of cli", shutdown(cli, SHUT_WR));
    SSHOW("send", send(cli, "x", 1, 0));
    close(srv);
    int cli2 = socket(AF_UNIX, SOCK_DGRAM, 0);
    int srv2 = bound("/tmp/dg.srv2");
    socklen_t a2len = path_addr(&a, "/tmp/dg.srv2");
    connect(cli2, (struct sockaddr *)&a, a2len);
    close(srv2);
    SSHOW("send to a closed peer", send(cli2, "x", 1, 0));
    SSHOW("send again", send(cli2, "x", 1, 0));
    SSHOW("sendto its path", sendto(cli2, "x", 1, 0, (struct sockaddr *)&a, a2len));
    close(cli2);
    close(cli);
    close(anon);
    close(abs_srv);
    unlink("/tmp/dg.srv");
    unlink("/tmp/dg.srv2");
    unlink("/tmp/dg.cli");
}

int main(void)
{
    corpus_init();
    pair();
    addresses();
    return 0;
}
