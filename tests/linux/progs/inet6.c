/* AF_INET6 on lo (docs/linux/sockets.md, "AF_INET"): ::1 and ::, IPv4-mapped addresses
 * (::ffff:127.0.0.1) through a dual-stack socket, IPV6_V6ONLY and what it changes in the
 * shared port table, bind's and connect's errors, TCP and UDP between the families, the
 * addresses each end sees, numeric getaddrinfo and the interface calls (if_nametoindex,
 * SIOCGIFCONF, SIOCGIFFLAGS).  One process. */
#include <netdb.h>
#include "inetsock.h"

#define P1 5701
#define P2 5702
#define P3 5703
#define P_NOBODY 5799

static int sock6(int type)
{
    return socket(AF_INET6, type, 0);
}

static void tcp_pair(const char *what, int l, const struct sockaddr *to, socklen_t tolen, int family)
{
    int c = socket(family, SOCK_STREAM, 0);
    printf("%s:\n", what);
    if (SSHOW("  connect", connect(c, to, tolen)) < 0) {
        close(c);
        return;
    }
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    int s = accept(l, (struct sockaddr *)&ss, &len);
    show_in("  accept peer", &ss, len);
    show_name("  client name", c, false);
    show_name("  client peer", c, true);
    show_name("  server name", s, false);
    SSHOW("  send", send(c, "hi", 2, 0));
    char buf[8];
    SSHOW("  recv", recv(s, buf, sizeof buf, 0));
    close(c);                       /* the client closes first: its port has Linux's TIME_WAIT */
    close(s);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    lo_up();
    struct sockaddr_in6 a;
    struct sockaddr_in a4;
    int fd = sock6(SOCK_STREAM);
    printf("IPV6_V6ONLY default %d\n", sockopt_int(fd, IPPROTO_IPV6, IPV6_V6ONLY));
    printf("SO_DOMAIN %d SO_SNDBUF %d SO_RCVBUF %d\n", sockopt_int(fd, SOL_SOCKET, SO_DOMAIN),
           sockopt_int(fd, SOL_SOCKET, SO_SNDBUF), sockopt_int(fd, SOL_SOCKET, SO_RCVBUF));
    printf("IPV6_UNICAST_HOPS %d\n", sockopt_int(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS));
    show_name("getsockname fresh", fd, false);
    in6(&a, "::1", P1);
    SSHOW("bind len 20", bind(fd, (struct sockaddr *)&a, 20));
    SSHOW("bind len 24 (RFC 2133)", bind(fd, (struct sockaddr *)&a, 24));
    close(fd);
    fd = sock6(SOCK_STREAM);
    a.sin6_family = AF_INET;
    SSHOW("bind family AF_INET", bind(fd, (struct sockaddr *)&a, sizeof a));
    in6(&a, "2001:db8::1", P1);
    SSHOW("bind 2001:db8::1", bind(fd, (struct sockaddr *)&a, sizeof a));
    in6(&a, "::1", P1);
    SSHOW("bind ::1", bind(fd, (struct sockaddr *)&a, sizeof a));
    int zero = 0, one = 1;
    SSHOW("IPV6_V6ONLY after bind", setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one));
    SSHOW("listen", listen(fd, 4));
    show_name("getsockname", fd, false);
    in6(&a, "::1", P1);
    tcp_pair("v6 client to ::1", fd, (struct sockaddr *)&a, sizeof a, AF_INET6);
    in6(&a, "::", P1);
    tcp_pair("v6 client to ::", fd, (struct sockaddr *)&a, sizeof a, AF_INET6);
    in4(&a4, "127.0.0.1", P1);
    tcp_pair("v4 client to a ::1 listener", fd, (struct sockaddr *)&a4, sizeof a4, AF_INET);
    close(fd);

    /* a dual-stack listener on :: takes IPv4 connections: the peer is ::ffff:127.0.0.1 */
    fd = sock6(SOCK_STREAM);
    in6(&a, "::", P2);
    SSHOW("bind ::", bind(fd, (struct sockaddr *)&a, sizeof a));
    SSHOW("listen", listen(fd, 4));
    int v4 = socket(AF_INET, SOCK_STREAM, 0);
    in4(&a4, "127.0.0.1", P2);
    SSHOW("bind v4 127.0.0.1 beside a dual-stack ::", bind(v4, (struct sockaddr *)&a4, sizeof a4));
    close(v4);
    tcp_pair("v4 client to the dual-stack listener", fd, (struct sockaddr *)&a4, sizeof a4, AF_INET);
    in6(&a, "::ffff:127.0.0.1", P2);
    tcp_pair("v6 client to ::ffff:127.0.0.1", fd, (struct sockaddr *)&a, sizeof a, AF_INET6);
    close(fd);

    /* IPV6_V6ONLY: :: and 0.0.0.0 on one port */
    fd = sock6(SOCK_STREAM);
    SSHOW("IPV6_V6ONLY 1", setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one));
    printf("IPV6_V6ONLY %d\n", sockopt_int(fd, IPPROTO_IPV6, IPV6_V6ONLY));
    in6(&a, "::ffff:127.0.0.1", P3);
    SSHOW("bind v6only to a mapped address", bind(fd, (struct sockaddr *)&a, sizeof a));
    in6(&a, "::", P3);
    SSHOW("bind v6only ::", bind(fd, (struct sockaddr *)&a, sizeof a));
    SSHOW("listen", listen(fd, 4));
    v4 = socket(AF_INET, SOCK_STREAM, 0);
    in4(&a4, "0.0.0.0", P3);
    SSHOW("bind v4 0.0.0.0 beside a v6only ::", bind(v4, (struct sockaddr *)&a4, sizeof a4));
    SSHOW("listen v4", listen(v4, 4));
    in4(&a4, "127.0.0.1", P3);
    tcp_pair("v4 client: the v4 listener takes it", v4, (struct sockaddr *)&a4, sizeof a4, AF_INET);
    int c = sock6(SOCK_STREAM);
    setsockopt(c, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    in6(&a, "::ffff:127.0.0.1", P3);
    SSHOW("v6only connect to a mapped address", connect(c, (struct sockaddr *)&a, sizeof a));
    close(c);
    close(v4);
    close(fd);
    fd = sock6(SOCK_STREAM);
    in6(&a, "::", P3);
    SSHOW("bind dual-stack ::", bind(fd, (struct sockaddr *)&a, sizeof a));
    v4 = socket(AF_INET, SOCK_STREAM, 0);
    in4(&a4, "0.0.0.0", P3);
    SSHOW("bind v4 0.0.0.0 beside a dual-stack ::", bind(v4, (struct sockaddr *)&a4, sizeof a4));
    close(v4);
    close(fd);
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);

    /* connect's errors */
    c = sock6(SOCK_STREAM);
    in6(&a, "::1", P_NOBODY);
    SSHOW("connect nobody", connect(c, (struct sockaddr *)&a, sizeof a));
    in6(&a, "2001:db8::1", P1);
    SSHOW("connect 2001:db8::1", connect(c, (struct sockaddr *)&a, sizeof a));
    SSHOW("connect len 20", connect(c, (struct sockaddr *)&a, 20));
    in4(&a4, "127.0.0.1", P1);
    SSHOW("connect with a sockaddr_in", connect(c, (struct sockaddr *)&a4, sizeof a4));
    close(c);

    /* UDP between the families */
    int r6 = sock6(SOCK_DGRAM), s4 = socket(AF_INET, SOCK_DGRAM, 0), s6 = sock6(SOCK_DGRAM);
    in6(&a, "::", P1);
    SSHOW("udp bind ::", bind(r6, (struct sockaddr *)&a, sizeof a));
    in4(&a4, "127.0.0.1", P1);
    SSHOW("udp v4 sendto", sendto(s4, "four", 4, 0, (struct sockaddr *)&a4, sizeof a4));
    in6(&a, "::1", P1);
    SSHOW("udp v6 sendto", sendto(s6, "six", 3, 0, (struct sockaddr *)&a, sizeof a));
    for (int k = 0; k < 2; k++) {
        char buf[16] = { 0 };
        struct sockaddr_storage ss;
        socklen_t len = sizeof ss;
        long n = recvfrom(r6, buf, sizeof buf, 0, (struct sockaddr *)&ss, &len);
        printf("udp recvfrom: %ld %s", n, buf);
        show_in(" from", &ss, len);
    }
    show_name("s4 name", s4, false);
    show_name("s6 name", s6, false);
    c = sock6(SOCK_DGRAM);
    in6(&a, "::1", P_NOBODY);
    SSHOW("udp connect nobody", connect(c, (struct sockaddr *)&a, sizeof a));
    show_name("udp name after connect", c, false);
    SSHOW("udp send 1", send(c, "x", 1, 0));
    SSHOW("udp send 2", send(c, "x", 1, 0));
    close(c);
    close(r6);
    close(s4);
    close(s6);

    /* names and interfaces */
    char buf[64];
    unsigned char addr[16];
    printf("inet_pton ::1 %d\n", inet_pton(AF_INET6, "::1", addr));
    printf("inet_ntop %s\n", inet_ntop(AF_INET6, addr, buf, sizeof buf));
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                              .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV }, *res;
    int e = getaddrinfo("::1", "80", &hints, &res);
    if (e == 0) {
        show_in("getaddrinfo ::1", res->ai_addr, res->ai_addrlen);
        freeaddrinfo(res);
    } else {
        printf("getaddrinfo: %d\n", e);
    }
    e = getaddrinfo("127.0.0.1", "8000", &hints, &res);
    if (e == 0) {
        show_in("getaddrinfo 127.0.0.1", res->ai_addr, res->ai_addrlen);
        freeaddrinfo(res);
    }
    printf("if_nametoindex lo %u\n", if_nametoindex("lo"));
    printf("if_nametoindex nosuch %u\n", if_nametoindex("nosuch0"));
    char name[IF_NAMESIZE] = "";
    printf("if_indextoname 1 %s\n", if_indextoname(1, name) ? name : serrname(errno));
    fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct ifreq ifr[4];
    struct ifconf ifc = { .ifc_len = sizeof ifr, .ifc_req = ifr };
    SSHOW("SIOCGIFCONF", ioctl(fd, SIOCGIFCONF, &ifc));
    printf("ifconf: %d entries, first %s\n", ifc.ifc_len / (int)sizeof ifr[0], ifr[0].ifr_name);
    show_in("  its address", &ifr[0].ifr_addr, sizeof(struct sockaddr_in));
    struct ifreq q;
    memset(&q, 0, sizeof q);
    strcpy(q.ifr_name, "lo");
    SSHOW("SIOCGIFFLAGS", ioctl(fd, SIOCGIFFLAGS, &q));
    printf("flags 0x%x\n", (unsigned)(unsigned short)q.ifr_flags);
    SSHOW("SIOCGIFMTU", ioctl(fd, SIOCGIFMTU, &q));
    printf("mtu %d\n", q.ifr_mtu);
    strcpy(q.ifr_name, "eth9");
    SSHOW("SIOCGIFFLAGS eth9", ioctl(fd, SIOCGIFFLAGS, &q));
    SSHOW("SIOCGIFFLAGS bad pointer", ioctl(fd, SIOCGIFFLAGS, (void *)8));
    close(fd);
    return 0;
}
