/* AF_INET datagram sockets on lo (docs/linux/sockets.md, "UDP"): the sender's address as
 * recvfrom gives it (autobind), datagram boundaries, MSG_PEEK and truncation (MSG_TRUNC in
 * and out), connect as a default peer and as a filter, AF_UNSPEC disconnect, ECONNREFUSED
 * after a send to a port nobody has (Linux's ICMP, reported at the next call), sendto's
 * errors, the size limit, SO_REUSEADDR, the receive buffer's drops, poll.  One process. */
#include <sys/ioctl.h>
#include "inetsock.h"

#define P1 5601
#define P2 5602
#define P3 5603
#define P_NOBODY 5699

static int udp(void)
{
    return socket(AF_INET, SOCK_DGRAM, 0);
}

static void show_recvfrom(const char *what, int fd, size_t room, int flags)
{
    char buf[128] = { 0 };
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t len = sizeof ss;
    errno = 0;
    long n = recvfrom(fd, buf, room, flags, (struct sockaddr *)&ss, &len);
    if (n < 0) {
        printf("%s: -1 %s\n", what, serrname(errno));
        return;
    }
    printf("%s: %ld \"%.*s\"", what, n, (int)(n < (long)room ? n : (long)room), buf);
    show_in(" from", &ss, len);
}

static void show_recvmsg(const char *what, int fd, size_t room, int flags)
{
    char buf[128] = { 0 };
    struct sockaddr_in from;
    struct iovec iov = { buf, room };
    struct msghdr mh = { .msg_name = &from, .msg_namelen = sizeof from, .msg_iov = &iov,
                         .msg_iovlen = 1 };
    errno = 0;
    long n = recvmsg(fd, &mh, flags);
    if (n < 0)
        printf("%s: -1 %s\n", what, serrname(errno));
    else
        printf("%s: %ld flags%s namelen %u\n", what, n, mh.msg_flags & MSG_TRUNC ? " TRUNC" : "",
               (unsigned)mh.msg_namelen);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    lo_up();
    struct sockaddr_in a, b;
    int r = udp(), s = udp();
    printf("SO_TYPE %d SO_PROTOCOL %d\n", sockopt_int(r, SOL_SOCKET, SO_TYPE),
           sockopt_int(r, SOL_SOCKET, SO_PROTOCOL));
    printf("SO_SNDBUF %d SO_RCVBUF %d\n", sockopt_int(r, SOL_SOCKET, SO_SNDBUF),
           sockopt_int(r, SOL_SOCKET, SO_RCVBUF));
    show_set_one("SO_BROADCAST", r, SOL_SOCKET, SO_BROADCAST);
    SSHOW("socket SOCK_DGRAM IPPROTO_TCP", socket(AF_INET, SOCK_DGRAM, IPPROTO_TCP));
    in4(&a, "127.0.0.1", P1);
    SSHOW("bind r", bind(r, (struct sockaddr *)&a, sizeof a));
    SSHOW("listen", listen(r, 1));
    SSHOW("accept", accept(r, NULL, NULL));
    show_name("getsockname s unbound", s, false);
    show_name("getpeername s", s, true);
    show_poll("poll r empty", r, POLLIN | POLLOUT);
    SSHOW("sendto r", sendto(s, "one", 3, 0, (struct sockaddr *)&a, sizeof a));
    show_name("getsockname s autobound", s, false);
    SSHOW("sendto r", sendto(s, "second", 6, 0, (struct sockaddr *)&a, sizeof a));
    SSHOW("sendto r empty", sendto(s, "", 0, 0, (struct sockaddr *)&a, sizeof a));
    show_poll("poll r data", r, POLLIN | POLLOUT);
    int avail = -1;
    SSHOW("FIONREAD", ioctl(r, FIONREAD, &avail));
    printf("next datagram: %d\n", avail);
    show_recvfrom("recvfrom MSG_PEEK", r, sizeof "one", MSG_PEEK);
    show_recvfrom("recvfrom", r, 64, 0);
    show_recvmsg("recvmsg room 3", r, 3, 0);
    show_recvfrom("recvfrom empty datagram", r, 64, 0);
    show_recvfrom("recvfrom nothing MSG_DONTWAIT", r, 64, MSG_DONTWAIT);
    SSHOW("sendto 10", sendto(s, "0123456789", 10, 0, (struct sockaddr *)&a, sizeof a));
    SSHOW("recv MSG_TRUNC room 4", recv(r, (char[8]){0}, 4, MSG_TRUNC));
    SSHOW("sendto", sendto(s, "x", 1, 0, (struct sockaddr *)&a, sizeof a));
    SSHOW("read", read(r, (char[8]){0}, 8));

    /* sendto's errors */
    SSHOW("send unconnected", send(s, "x", 1, 0));
    SSHOW("sendto len 8", sendto(s, "x", 1, 0, (struct sockaddr *)&a, 8));
    in4(&b, "127.0.0.1", 0);
    SSHOW("sendto port 0", sendto(s, "x", 1, 0, (struct sockaddr *)&b, sizeof b));
    in4(&b, "127.0.0.1", P1);
    b.sin_family = AF_INET6;
    SSHOW("sendto family AF_INET6", sendto(s, "x", 1, 0, (struct sockaddr *)&b, sizeof b));
    in4(&b, "10.1.2.3", P1);
    SSHOW("sendto 10.1.2.3", sendto(s, "x", 1, 0, (struct sockaddr *)&b, sizeof b));
    SSHOW("sendto bad address pointer", sendto(s, "x", 1, 0, (struct sockaddr *)8, sizeof b));
    SSHOW("sendto bad buffer", sendto(s, (void *)8, 1, 0, (struct sockaddr *)&a, sizeof a));
    SSHOW("sendto MSG_OOB", sendto(s, "x", 1, MSG_OOB, (struct sockaddr *)&a, sizeof a));
    static char big[70000];
    SSHOW("sendto 65507", sendto(s, big, 65507, 0, (struct sockaddr *)&a, sizeof a));
    SSHOW("sendto 65508", sendto(s, big, 65508, 0, (struct sockaddr *)&a, sizeof a));
    SSHOW("sendto 70000", sendto(s, big, 70000, 0, (struct sockaddr *)&a, sizeof a));
    SSHOW("recv big", recv(r, big, sizeof big, 0));
    in4(&b, "0.0.0.0", P1);
    SSHOW("sendto 0.0.0.0", sendto(s, "zero", 4, 0, (struct sockaddr *)&b, sizeof b));
    show_recvfrom("recvfrom", r, 64, 0);

    /* connect: a default destination, and only the peer's datagrams come in */
    in4(&b, "127.0.0.1", P2);
    int c = udp();
    SSHOW("bind c", bind(c, (struct sockaddr *)&b, sizeof b));
    SSHOW("connect c to r", connect(c, (struct sockaddr *)&a, sizeof a));
    show_name("getpeername c", c, true);
    show_name("getsockname c", c, false);
    SSHOW("send c", send(c, "from c", 6, 0));
    show_recvfrom("recvfrom r", r, 64, 0);
    SSHOW("sendto r -> c", sendto(r, "to c", 4, 0, (struct sockaddr *)&b, sizeof b));
    SSHOW("sendto s -> c (not its peer)", sendto(s, "stray", 5, 0, (struct sockaddr *)&b, sizeof b));
    show_recvfrom("recvfrom c", c, 64, 0);
    show_recvfrom("recvfrom c again", c, 64, MSG_DONTWAIT);
    SSHOW("shutdown c SHUT_RD", shutdown(c, SHUT_RD));
    show_poll("poll c after SHUT_RD", c, POLLIN | POLLOUT | POLLRDHUP);
    close(c);
    c = udp();
    SSHOW("shutdown unconnected", shutdown(c, SHUT_WR));
    close(c);

    /* a connected socket learns that nobody has the port */
    c = udp();
    in4(&b, "127.0.0.1", P_NOBODY);
    SSHOW("connect nobody", connect(c, (struct sockaddr *)&b, sizeof b));
    show_name("getsockname after connect", c, false);
    SSHOW("send 1", send(c, "x", 1, 0));
    show_poll("poll after refused", c, POLLIN | POLLOUT);
    printf("SO_ERROR %s\n", serrname(sockopt_int(c, SOL_SOCKET, SO_ERROR)));
    SSHOW("send 2", send(c, "x", 1, 0));
    SSHOW("send 3", send(c, "x", 1, 0));
    SSHOW("recv", recv(c, big, 1, MSG_DONTWAIT));
    SSHOW("recv", recv(c, big, 1, MSG_DONTWAIT));
    struct sockaddr unspec = { .sa_family = AF_UNSPEC };
    SSHOW("connect AF_UNSPEC", connect(c, &unspec, sizeof unspec));
    show_name("getpeername after AF_UNSPEC", c, true);
    show_name("getsockname after AF_UNSPEC", c, false);
    SSHOW("sendto nobody unconnected 1", sendto(c, "x", 1, 0, (struct sockaddr *)&b, sizeof b));
    SSHOW("sendto nobody unconnected 2", sendto(c, "x", 1, 0, (struct sockaddr *)&b, sizeof b));
    in4(&b, "10.1.2.3", P1);
    SSHOW("connect 10.1.2.3", connect(c, (struct sockaddr *)&b, sizeof b));
    SSHOW("connect len 4", connect(c, (struct sockaddr *)&b, 4));
    close(c);

    /* ports */
    int d1 = udp(), d2 = udp();
    in4(&b, "127.0.0.1", P3);
    SSHOW("bind d1", bind(d1, (struct sockaddr *)&b, sizeof b));
    SSHOW("bind d2 same", bind(d2, (struct sockaddr *)&b, sizeof b));
    close(d1);
    close(d2);
    d1 = udp();
    d2 = udp();
    bind_both("reuseaddr", "d1", "d2", d1, d2, SO_REUSEADDR, &b);
    close(d1);
    close(d2);

    /* a full receive buffer drops */
    d1 = udp();
    set_int(d1, SOL_SOCKET, SO_RCVBUF, 4096);
    printf("SO_RCVBUF 4096 -> %d\n", sockopt_int(d1, SOL_SOCKET, SO_RCVBUF));
    SSHOW("bind d1", bind(d1, (struct sockaddr *)&b, sizeof b));
    int sent = 0, got = 0;
    for (int k = 0; k < 40; k++)
        sent += sendto(s, big, 1000, 0, (struct sockaddr *)&b, sizeof b) == 1000;
    while (recv(d1, big, sizeof big, MSG_DONTWAIT) == 1000)
        got++;
    printf("sent %d, received some %d, dropped some %d\n", sent, got > 0, got < sent);
    close(d1);
    close(r);
    close(s);
    return 0;
}
