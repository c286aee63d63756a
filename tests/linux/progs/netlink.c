/* AF_NETLINK, NETLINK_ROUTE (issue 14 item 2; docs/linux/sockets.md, "AF_NETLINK"): the
 * sockets (types, protocols, bind's port ids, getsockname), the header rules (requests, acks
 * and errors with the request echoed, NLMSG_DONE, sequence numbers and port ids, MSG_PEEK,
 * MSG_TRUNC's real length), lo's answers to RTM_GETLINK, RTM_GETADDR and RTM_GETROUTE dumps
 * (printed field by field: times and statistics are not), EPERM for a change by a non-root
 * user, unicast between two sockets, what the C library sees through them
 * (getaddrinfo AI_ADDRCONFIG, if_nameindex, getifaddrs), and mq_notify(SIGEV_THREAD), which
 * glibc and musl implement with a netlink socket. */
#include <ifaddrs.h>
#include <mqueue.h>
#include <netdb.h>
#include <pthread.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include "inetsock.h"


/* The netlink and rtnetlink ABI (linux/netlink.h, linux/rtnetlink.h: musl has no kernel
 * headers). */
struct sockaddr_nl {
    unsigned short nl_family, nl_pad;
    unsigned nl_pid, nl_groups;
};
struct nlmsghdr {
    unsigned nlmsg_len;
    unsigned short nlmsg_type, nlmsg_flags;
    unsigned nlmsg_seq, nlmsg_pid;
};
struct nlmsgerr {
    int error;
    struct nlmsghdr msg;
};
struct rtattr {
    unsigned short rta_len, rta_type;
};
struct ifinfomsg {
    unsigned char ifi_family, pad;
    unsigned short ifi_type;
    int ifi_index;
    unsigned ifi_flags, ifi_change;
};
struct ifaddrmsg {
    unsigned char ifa_family, ifa_prefixlen, ifa_flags, ifa_scope;
    unsigned ifa_index;
};
struct ifa_cacheinfo {
    unsigned ifa_prefered, ifa_valid, cstamp, tstamp;
};
struct rtmsg {
    unsigned char rtm_family, rtm_dst_len, rtm_src_len, rtm_tos, rtm_table, rtm_protocol,
                  rtm_scope, rtm_type;
    unsigned rtm_flags;
};
#define NETLINK_ROUTE 0
#define SOL_NETLINK 270
#define NETLINK_CAP_ACK 10
#define NETLINK_EXT_ACK 11
#define NLM_F_REQUEST 1
#define NLM_F_ACK 4
#define NLM_F_DUMP 0x300
#define NLM_F_CREATE 0x400
#define NLMSG_NOOP 1
#define NLMSG_ERROR 2
#define NLMSG_DONE 3
#define RTM_NEWLINK 16
#define RTM_DELLINK 17
#define RTM_GETLINK 18
#define RTM_NEWADDR 20
#define RTM_GETADDR 22
#define RTM_NEWROUTE 24
#define RTM_GETROUTE 26
#define RTMGRP_LINK 1
#define RTMGRP_IPV4_IFADDR 0x10
#define NLMSG_ALIGN(len) (((len) + 3u) & ~3u)
#define NLMSG_HDRLEN ((int)NLMSG_ALIGN(sizeof(struct nlmsghdr)))
#define NLMSG_LENGTH(len) ((len) + NLMSG_HDRLEN)
#define NLMSG_DATA(h) ((void *)((char *)(h) + NLMSG_HDRLEN))
#define NLMSG_OK(h, len) ((len) >= (int)sizeof(struct nlmsghdr) && \
                          (h)->nlmsg_len >= sizeof(struct nlmsghdr) && (int)(h)->nlmsg_len <= (len))
#define NLMSG_NEXT(h, len) ((len) -= NLMSG_ALIGN((h)->nlmsg_len), \
                            (struct nlmsghdr *)((char *)(h) + NLMSG_ALIGN((h)->nlmsg_len)))
#define RTA_ALIGN(len) (((len) + 3u) & ~3u)
#define RTA_LENGTH(len) (RTA_ALIGN(sizeof(struct rtattr)) + (len))
#define RTA_DATA(a) ((void *)((char *)(a) + RTA_LENGTH(0)))
#define RTA_PAYLOAD(a) ((int)((a)->rta_len) - RTA_LENGTH(0))
#define RTA_OK(a, len) ((len) >= (int)sizeof(struct rtattr) && \
                        (a)->rta_len >= sizeof(struct rtattr) && (a)->rta_len <= (len))
#define RTA_NEXT(a, len) ((len) -= RTA_ALIGN((a)->rta_len), \
                          (struct rtattr *)((char *)(a) + RTA_ALIGN((a)->rta_len)))
/* the attributes after a message's fixed part */
#define ATTRS(h, T) ((struct rtattr *)((char *)NLMSG_DATA(h) + NLMSG_ALIGN(sizeof(T))))
#define ATTRLEN(h, T) ((int)(h)->nlmsg_len - NLMSG_LENGTH((int)NLMSG_ALIGN(sizeof(T))))
enum { IFLA_ADDRESS = 1, IFLA_BROADCAST, IFLA_IFNAME, IFLA_MTU, IFLA_QDISC = 6,
       IFLA_TXQLEN = 13, IFLA_OPERSTATE = 16, IFLA_LINKMODE, IFLA_GROUP = 27,
       IFLA_PROMISCUITY = 30, IFLA_NUM_TX_QUEUES, IFLA_CARRIER = 33, IFLA_NUM_RX_QUEUES = 32,
       IFLA_MIN_MTU = 50, IFLA_MAX_MTU };
enum { IFA_ADDRESS = 1, IFA_LOCAL, IFA_LABEL, IFA_BROADCAST, IFA_CACHEINFO = 6,
       IFA_FLAGS = 8 };
enum { RTA_DST = 1, RTA_OIF = 4, RTA_PRIORITY = 6, RTA_PREFSRC = 7, RTA_TABLE = 15,
       RTA_PREF = 20 };

static char buf[65536];

static void show_nl_name(const char *what, int fd)
{
    struct sockaddr_nl a;
    socklen_t len = sizeof a;
    memset(&a, 0xff, sizeof a);
    if (getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
        printf("%s: -1 %s\n", what, serrname(errno));
        return;
    }
    int pid = (int)a.nl_pid;
    printf("%s: len %u family %d pid %s groups %#x pad %d\n", what, len, a.nl_family,
           pid == 0 ? "0" : pid == getpid() ? "tgid" : pid < 0 ? "negative" : "other",
           a.nl_groups, a.nl_pad);
}

static int nl_bind(int fd, unsigned pid, unsigned groups)
{
    struct sockaddr_nl a = { .nl_family = AF_NETLINK, .nl_pid = pid, .nl_groups = groups };
    return bind(fd, (struct sockaddr *)&a, sizeof a);
}

static unsigned portid_of(int fd)
{
    struct sockaddr_nl a;
    socklen_t len = sizeof a;
    getsockname(fd, (struct sockaddr *)&a, &len);
    return a.nl_pid;
}

static long request(int fd, int type, int flags, int seq, int family, const void *extra,
                    size_t extralen)
{
    struct {
        struct nlmsghdr h;
        char body[256];
    } r;
    memset(&r, 0, sizeof r);
    size_t body = type == RTM_GETLINK || type == RTM_NEWLINK ? sizeof(struct ifinfomsg)
                : type == RTM_GETADDR || type == RTM_NEWADDR ? sizeof(struct ifaddrmsg)
                : type == RTM_GETROUTE ? sizeof(struct rtmsg) : 4;
    r.body[0] = (char)family;
    memcpy(r.body + body, extra, extralen);
    r.h.nlmsg_len = NLMSG_LENGTH(body + extralen);
    r.h.nlmsg_type = (unsigned short)type;
    r.h.nlmsg_flags = (unsigned short)flags;
    r.h.nlmsg_seq = (unsigned)seq;
    struct sockaddr_nl k = { .nl_family = AF_NETLINK };
    return sendto(fd, &r, r.h.nlmsg_len, 0, (struct sockaddr *)&k, sizeof k);
}

static void show_ip(const char *name, int family, const void *p, int len)
{
    char text[64];
    if ((family == AF_INET && len == 4) || (family == AF_INET6 && len == 16))
        printf(" %s=%s", name, inet_ntop(family, p, text, sizeof text));
    else {
        printf(" %s=", name);
        for (int i = 0; i < len; i++)
            printf("%s%02x", i ? ":" : "", ((unsigned char *)p)[i]);
    }
}

static void show_link(struct nlmsghdr *h)
{
    struct ifinfomsg *i = NLMSG_DATA(h);
    printf("  link family %d type %d index %d flags %#x change %#x", i->ifi_family, i->ifi_type,
           i->ifi_index, i->ifi_flags, i->ifi_change);
    int len = ATTRLEN(h, struct ifinfomsg);
    for (struct rtattr *a = ATTRS(h, struct ifinfomsg); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
        void *d = RTA_DATA(a);
        switch (a->rta_type) {
        case IFLA_IFNAME: printf(" ifname=%s", (char *)d); break;
        case IFLA_MTU: printf(" mtu=%u", *(unsigned *)d); break;
        case IFLA_TXQLEN: printf(" txqlen=%u", *(unsigned *)d); break;
        case IFLA_ADDRESS: show_ip("address", 0, d, (int)RTA_PAYLOAD(a)); break;
        case IFLA_BROADCAST: show_ip("broadcast", 0, d, (int)RTA_PAYLOAD(a)); break;
        case IFLA_OPERSTATE: printf(" operstate=%u", *(unsigned char *)d); break;
        case IFLA_LINKMODE: printf(" linkmode=%u", *(unsigned char *)d); break;
        case IFLA_QDISC: printf(" qdisc=%s", (char *)d); break;
        case IFLA_CARRIER: printf(" carrier=%u", *(unsigned char *)d); break;
        case IFLA_NUM_TX_QUEUES: printf(" txqueues=%u", *(unsigned *)d); break;
        case IFLA_NUM_RX_QUEUES: printf(" rxqueues=%u", *(unsigned *)d); break;
        case IFLA_GROUP: printf(" group=%u", *(unsigned *)d); break;
        case IFLA_PROMISCUITY: printf(" promiscuity=%u", *(unsigned *)d); break;
        case IFLA_MIN_MTU: printf(" min_mtu=%u", *(unsigned *)d); break;
        case IFLA_MAX_MTU: printf(" max_mtu=%u", *(unsigned *)d); break;
        }
    }
    printf("\n");
}

static void show_ifaddr(struct nlmsghdr *h)
{
    struct ifaddrmsg *i = NLMSG_DATA(h);
    printf("  addr family %d prefixlen %d flags %#x scope %d index %d", i->ifa_family,
           i->ifa_prefixlen, i->ifa_flags, i->ifa_scope, i->ifa_index);
    int len = ATTRLEN(h, struct ifaddrmsg);
    for (struct rtattr *a = ATTRS(h, struct ifaddrmsg); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
        void *d = RTA_DATA(a);
        switch (a->rta_type) {
        case IFA_ADDRESS: show_ip("address", i->ifa_family, d, (int)RTA_PAYLOAD(a)); break;
        case IFA_LOCAL: show_ip("local", i->ifa_family, d, (int)RTA_PAYLOAD(a)); break;
        case IFA_BROADCAST: show_ip("broadcast", i->ifa_family, d, (int)RTA_PAYLOAD(a)); break;
        case IFA_LABEL: printf(" label=%s", (char *)d); break;
        case IFA_FLAGS: printf(" ifa_flags=%#x", *(unsigned *)d); break;
        case IFA_CACHEINFO: {
            struct ifa_cacheinfo *c = d;
            printf(" cacheinfo(len %u prefered %#x valid %#x)", (unsigned)RTA_PAYLOAD(a),
                   c->ifa_prefered, c->ifa_valid);
            break;
        }
        }
    }
    printf("\n");
}

static void show_route(struct nlmsghdr *h)
{
    struct rtmsg *r = NLMSG_DATA(h);
    printf("  route family %d dst_len %d src_len %d tos %d table %d protocol %d scope %d "
           "type %d flags %#x", r->rtm_family, r->rtm_dst_len, r->rtm_src_len, r->rtm_tos,
           r->rtm_table, r->rtm_protocol, r->rtm_scope, r->rtm_type, r->rtm_flags);
    int len = ATTRLEN(h, struct rtmsg);
    for (struct rtattr *a = ATTRS(h, struct rtmsg); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
        void *d = RTA_DATA(a);
        switch (a->rta_type) {
        case RTA_DST: show_ip("dst", r->rtm_family, d, (int)RTA_PAYLOAD(a)); break;
        case RTA_PREFSRC: show_ip("prefsrc", r->rtm_family, d, (int)RTA_PAYLOAD(a)); break;
        case RTA_OIF: printf(" oif=%d", *(int *)d); break;
        case RTA_TABLE: printf(" rta_table=%u", *(unsigned *)d); break;
        case RTA_PRIORITY: printf(" priority=%u", *(unsigned *)d); break;
        case RTA_PREF: printf(" pref=%u", *(unsigned char *)d); break;
        }
    }
    printf("\n");
}

/* Receive until NLMSG_DONE or an error message, showing each datagram's messages. */
static void show_replies(const char *what, int fd, int seq)
{
    unsigned me = portid_of(fd);
    for (int n = 0; n < 20; n++) {
        struct sockaddr_nl from;
        struct iovec iov = { buf, sizeof buf };
        struct msghdr m = { .msg_name = &from, .msg_namelen = sizeof from, .msg_iov = &iov,
                            .msg_iovlen = 1 };
        long r = recvmsg(fd, &m, MSG_DONTWAIT);
        if (r < 0) {
            printf("%s recv: -1 %s\n", what, serrname(errno));
            return;
        }
        printf("%s datagram: namelen %u from pid %u groups %#x msg_flags %#x\n", what,
               m.msg_namelen, from.nl_pid, from.nl_groups, m.msg_flags);
        bool end = false;
        int len = (int)r;
        for (struct nlmsghdr *h = (void *)buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
            printf(" msg type %d flags %#x seq %s pid %s\n", h->nlmsg_type, h->nlmsg_flags,
                   (int)h->nlmsg_seq == seq ? "echoed" : "other",
                   h->nlmsg_pid == me ? "mine" : h->nlmsg_pid ? "other" : "0");
            switch (h->nlmsg_type) {
            case NLMSG_DONE:
                printf("  done %d\n", *(int *)NLMSG_DATA(h));
                end = true;
                break;
            case NLMSG_ERROR: {
                struct nlmsgerr *e = NLMSG_DATA(h);
                printf("  error %s len %u echoed type %d seq %s\n",
                       e->error ? serrname(-e->error) : "0", h->nlmsg_len, e->msg.nlmsg_type,
                       (int)e->msg.nlmsg_seq == seq ? "echoed" : "other");
                end = true;
                break;
            }
            case RTM_NEWLINK: show_link(h); break;
            case RTM_NEWADDR: show_ifaddr(h); break;
            case RTM_NEWROUTE: show_route(h); break;
            }
        }
        if (end)
            return;
    }
}

static void sockets(void)
{
    SSHOW("socket raw route", socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE) >= 0);
    SSHOW("socket dgram route", socket(AF_NETLINK, SOCK_DGRAM, NETLINK_ROUTE) >= 0);
    SSHOW("socket stream", socket(AF_NETLINK, SOCK_STREAM, NETLINK_ROUTE));
    SSHOW("socket seqpacket", socket(AF_NETLINK, SOCK_SEQPACKET, NETLINK_ROUTE));
    SSHOW("socket protocol 32", socket(AF_NETLINK, SOCK_RAW, 32));
    SSHOW("socket protocol -1", socket(AF_NETLINK, SOCK_RAW, -1));

    int a = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    int b = socket(AF_NETLINK, SOCK_DGRAM, NETLINK_ROUTE);
    int c = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
    show_nl_name("name unbound", a);
    struct sockaddr_nl bad = { .nl_family = AF_INET };
    SSHOW("bind family inet", bind(a, (struct sockaddr *)&bad, sizeof bad));
    bad.nl_family = AF_NETLINK;
    SSHOW("bind short", bind(a, (struct sockaddr *)&bad, 8));
    SSHOW("bind a 0", nl_bind(a, 0, 0));
    show_nl_name("name a", a);
    SSHOW("bind a again same", nl_bind(a, portid_of(a), 0));
    SSHOW("bind a again other", nl_bind(a, 4242, 0));
    SSHOW("bind b tgid", nl_bind(b, (unsigned)getpid(), 0));
    SSHOW("bind b 0", nl_bind(b, 0, 0));
    show_nl_name("name b", b);
    SSHOW("bind c 77777 groups link|ipv4", nl_bind(c, 77777, RTMGRP_LINK | RTMGRP_IPV4_IFADDR));
    struct sockaddr_nl n;
    socklen_t nlen = sizeof n;
    getsockname(c, (struct sockaddr *)&n, &nlen);
    printf("name c: pid %u groups %#x\n", n.nl_pid, n.nl_groups);
    int d = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
    SSHOW("bind d 77777", nl_bind(d, 77777, 0));
    nlen = 4;
    memset(&n, 0, sizeof n);
    SSHOW("getsockname short", getsockname(c, (struct sockaddr *)&n, &nlen));
    printf("getsockname short: len %u family %d\n", nlen, n.nl_family);
    int rcvbuf = 0;
    socklen_t ol = sizeof rcvbuf;
    getsockopt(a, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &ol);
    printf("rcvbuf %d\n", rcvbuf);

    /* user to user: b's datagram to c, c's answer to b, one to nobody */
    struct sockaddr_nl to = { .nl_family = AF_NETLINK, .nl_pid = 77777 };
    SSHOW("sendto c", sendto(b, "hello", 5, 0, (struct sockaddr *)&to, sizeof to));
    struct sockaddr_nl from;
    socklen_t flen = sizeof from;
    memset(buf, 0, 16);
    long r = SSHOW("recvfrom c", recvfrom(c, buf, sizeof buf, MSG_DONTWAIT,
                                          (struct sockaddr *)&from, &flen));
    printf("recvfrom c: '%.*s' from %s flen %u\n", (int)(r > 0 ? r : 0), buf,
           from.nl_pid == portid_of(b) ? "b" : "other", flen);
    to.nl_pid = 5555;
    SSHOW("sendto nobody", sendto(b, "x", 1, 0, (struct sockaddr *)&to, sizeof to));
    SSHOW("connect c to b", connect(c, (struct sockaddr *)&(struct sockaddr_nl){
                                        .nl_family = AF_NETLINK, .nl_pid = portid_of(b) },
                                    sizeof(struct sockaddr_nl)));
    SSHOW("send c", send(c, "back", 4, 0));
    r = SSHOW("recv b", recv(b, buf, sizeof buf, MSG_DONTWAIT));
    SSHOW("recv b empty", recv(b, buf, sizeof buf, MSG_DONTWAIT));
    struct sockaddr_nl peer;
    socklen_t plen = sizeof peer;
    SSHOW("getpeername c", getpeername(c, (struct sockaddr *)&peer, &plen));
    printf("peer c: %s\n", peer.nl_pid == portid_of(b) ? "b" : "other");
    close(a);
    close(b);
    close(c);
    close(d);
}

static void dumps(void)
{
    int fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
    /* an unbound socket that sends is bound to the process's id (or a negative one) */
    SSHOW("getlink dump", request(fd, RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP, 1, AF_UNSPEC,
                                  NULL, 0) > 0);
    show_nl_name("name after send", fd);
    show_replies("getlink", fd, 1);
    SSHOW("getaddr dump", request(fd, RTM_GETADDR, NLM_F_REQUEST | NLM_F_DUMP, 2, AF_UNSPEC,
                                  NULL, 0) > 0);
    show_replies("getaddr", fd, 2);
    SSHOW("getaddr dump inet6", request(fd, RTM_GETADDR, NLM_F_REQUEST | NLM_F_DUMP, 3,
                                        AF_INET6, NULL, 0) > 0);
    show_replies("getaddr6", fd, 3);
    SSHOW("getroute dump inet", request(fd, RTM_GETROUTE, NLM_F_REQUEST | NLM_F_DUMP, 4,
                                        AF_INET, NULL, 0) > 0);
    show_replies("getroute4", fd, 4);
    SSHOW("getroute dump inet6", request(fd, RTM_GETROUTE, NLM_F_REQUEST | NLM_F_DUMP, 5,
                                         AF_INET6, NULL, 0) > 0);
    show_replies("getroute6", fd, 5);
    /* a dump while one is still being answered */
    request(fd, RTM_GETADDR, NLM_F_REQUEST | NLM_F_DUMP, 6, AF_INET, NULL, 0);
    SSHOW("second dump", request(fd, RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP, 7, AF_UNSPEC,
                                 NULL, 0) > 0);
    show_replies("first", fd, 6);
    show_replies("after", fd, 7);
    close(fd);
}

static void acks(void)
{
    int fd = socket(AF_NETLINK, SOCK_DGRAM, NETLINK_ROUTE);
    struct ifinfomsg lo = { .ifi_index = 1 };
    struct {
        struct nlmsghdr h;
        struct ifinfomsg i;
    } r = { { NLMSG_LENGTH(sizeof lo), RTM_GETLINK, NLM_F_REQUEST | NLM_F_ACK, 10, 0 }, lo };
    SSHOW("getlink lo ack", send(fd, &r, r.h.nlmsg_len, 0));
    show_replies("getlink lo", fd, 10);
    show_replies("getlink lo ack", fd, 10);
    r.i.ifi_index = 99;
    r.h.nlmsg_seq = 11;
    SSHOW("getlink 99", send(fd, &r, r.h.nlmsg_len, 0));
    show_replies("getlink 99", fd, 11);
    r.i.ifi_index = 0;
    r.h.nlmsg_seq = 12;
    struct {
        struct nlmsghdr h;
        struct ifinfomsg i;
        struct rtattr a;
        char name[4];
    } named = { { sizeof named, RTM_GETLINK, NLM_F_REQUEST, 12, 0 }, { 0 },
                { RTA_LENGTH(3), IFLA_IFNAME }, "lo" };
    SSHOW("getlink by name", send(fd, &named, sizeof named, 0));
    show_replies("getlink by name", fd, 12);
    /* not a request: acked only when asked */
    r.h.nlmsg_flags = NLM_F_ACK;
    r.h.nlmsg_seq = 13;
    SSHOW("not a request ack", send(fd, &r, r.h.nlmsg_len, 0));
    show_replies("not a request ack", fd, 13);
    r.h.nlmsg_flags = 0;
    SSHOW("not a request", send(fd, &r, r.h.nlmsg_len, 0));
    show_replies("not a request", fd, 13);
    SSHOW("noop ack", request(fd, NLMSG_NOOP, NLM_F_REQUEST | NLM_F_ACK, 14, 0, NULL, 0));
    show_replies("noop", fd, 14);
    SSHOW("type 200", request(fd, 200, NLM_F_REQUEST, 15, 0, NULL, 0));
    show_replies("type 200", fd, 15);
    SSHOW("getneighbor-ish 1000", request(fd, 1000, NLM_F_REQUEST, 16, 0, NULL, 0));
    show_replies("type 1000", fd, 16);
    SSHOW("short header", send(fd, "abc", 3, 0));
    show_replies("short header", fd, 0);
    /* two requests in one datagram: two answers */
    struct {
        struct nlmsghdr h1;
        struct ifinfomsg i1;
        struct nlmsghdr h2;
        struct ifinfomsg i2;
    } two = { { NLMSG_LENGTH(sizeof lo), NLMSG_NOOP, NLM_F_REQUEST | NLM_F_ACK, 17, 0 }, lo,
              { NLMSG_LENGTH(sizeof lo), NLMSG_NOOP, NLM_F_REQUEST | NLM_F_ACK, 18, 0 }, lo };
    SSHOW("two requests", send(fd, &two, sizeof two, 0));
    show_replies("two 1", fd, 17);
    show_replies("two 2", fd, 18);

    /* MSG_PEEK and MSG_TRUNC: the real length, a short buffer */
    request(fd, NLMSG_NOOP, NLM_F_REQUEST | NLM_F_ACK, 19, 0, NULL, 0);
    SSHOW("peek trunc len", recv(fd, NULL, 0, MSG_PEEK | MSG_TRUNC | MSG_DONTWAIT));
    SSHOW("peek 4", recv(fd, buf, 4, MSG_PEEK | MSG_DONTWAIT));
    struct iovec iov = { buf, 10 };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
    SSHOW("recvmsg 10", recvmsg(fd, &m, MSG_DONTWAIT));
    printf("recvmsg 10 flags %#x\n", m.msg_flags);
    SSHOW("recv after trunc", recv(fd, buf, sizeof buf, MSG_DONTWAIT));
    int on = 1;
    SSHOW("ext ack", setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &on, sizeof on));
    SSHOW("cap ack", setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &on, sizeof on));
    close(fd);
}

static void unprivileged(void)
{
    if (setuid(65534) < 0)
        printf("setuid: %s\n", serrname(errno));
    int fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
    struct {
        struct ifaddrmsg i;
        struct rtattr a;
        unsigned char addr[4];
    } body = { { AF_INET, 8, 0, 0, 1 }, { RTA_LENGTH(4), IFA_LOCAL }, { 127, 0, 0, 2 } };
    SSHOW("newaddr nonroot", request(fd, RTM_NEWADDR, NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE,
                                     20, AF_INET, (char *)&body + sizeof body.i,
                                     sizeof body - sizeof body.i) > 0);
    show_replies("newaddr nonroot", fd, 20);
    SSHOW("dellink nonroot", request(fd, RTM_DELLINK, NLM_F_REQUEST, 21, 0, NULL, 0) > 0);
    show_replies("dellink nonroot", fd, 21);
    SSHOW("getlink dump nonroot", request(fd, RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP, 22, 0,
                                          NULL, 0) > 0);
    show_replies("getlink nonroot", fd, 22);
}

static void libc(void)
{
    const char *hosts[] = { "127.0.0.1", "::1" };
    for (int k = 0; k < 2; k++) {
        struct addrinfo hints = { .ai_flags = AI_ADDRCONFIG | AI_NUMERICHOST,
                                  .ai_socktype = SOCK_STREAM };
        struct addrinfo *res;
        int e = getaddrinfo(hosts[k], "80", &hints, &res);
        printf("getaddrinfo %s ADDRCONFIG: %s\n", hosts[k], e ? "fails" : "ok");
        for (struct addrinfo *ai = e ? NULL : res; ai; ai = ai->ai_next)
            printf(" family %d\n", ai->ai_family);
        if (!e)
            freeaddrinfo(res);
    }
    struct if_nameindex *ni = if_nameindex();
    for (struct if_nameindex *p = ni; p && p->if_index; p++)
        printf("if_nameindex: %u %s\n", p->if_index, p->if_name);
    if_freenameindex(ni);
    struct ifaddrs *ifa;
    if (getifaddrs(&ifa) < 0) {
        printf("getifaddrs: %s\n", serrname(errno));
        return;
    }
    for (struct ifaddrs *p = ifa; p; p = p->ifa_next) {
        char text[64] = "-", mask[64] = "-";
        int fam = p->ifa_addr ? p->ifa_addr->sa_family : -1;
        if (fam == AF_INET) {
            inet_ntop(fam, &((struct sockaddr_in *)p->ifa_addr)->sin_addr, text, sizeof text);
            inet_ntop(fam, &((struct sockaddr_in *)p->ifa_netmask)->sin_addr, mask, sizeof mask);
        } else if (fam == AF_INET6) {
            inet_ntop(fam, &((struct sockaddr_in6 *)p->ifa_addr)->sin6_addr, text, sizeof text);
            inet_ntop(fam, &((struct sockaddr_in6 *)p->ifa_netmask)->sin6_addr, mask,
                      sizeof mask);
        }
        printf("getifaddrs: %s flags %#x family %d addr %s mask %s\n", p->ifa_name,
               p->ifa_flags, fam, text, mask);
    }
    freeifaddrs(ifa);
}

/* mq_notify(SIGEV_THREAD): the C library's thread calls notified() after the kernel's cookie
 * comes on its netlink socket; the pipe orders it with the main thread. */
static int notify_pipe[2];

static void notified(union sigval v)
{
    char c = (char)v.sival_int;
    write(notify_pipe[1], &c, 1);
}

static void mq_thread(void)
{
    pipe(notify_pipe);
    struct mq_attr attr = { .mq_maxmsg = 4, .mq_msgsize = 16 };
    mq_unlink("/nlq");
    mqd_t q = mq_open("/nlq", O_RDWR | O_CREAT, 0600, &attr);
    struct sigevent ev = { .sigev_notify = SIGEV_THREAD, .sigev_notify_function = notified,
                           .sigev_value.sival_int = 'A' };
    SSHOW("mq_notify thread", mq_notify(q, &ev));
    SSHOW("mq_notify busy", mq_notify(q, &ev));
    SSHOW("mq_send", mq_send(q, "m1", 2, 0));
    char c = 0;
    SSHOW("notified", read(notify_pipe[0], &c, 1));
    printf("notified value %c\n", c);
    char msg[16];
    SSHOW("mq_receive", mq_receive(q, msg, sizeof msg, NULL));
    ev.sigev_value.sival_int = 'B';
    SSHOW("mq_notify again", mq_notify(q, &ev));
    SSHOW("mq_notify remove", mq_notify(q, NULL));
    ev.sigev_value.sival_int = 'C';
    SSHOW("mq_notify third", mq_notify(q, &ev));
    SSHOW("mq_send 2", mq_send(q, "m2", 2, 0));
    SSHOW("notified 2", read(notify_pipe[0], &c, 1));
    printf("notified value %c\n", c);
    /* the raw call: a cookie to a netlink socket of our own */
    int s = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
    char cookie[32];
    memset(cookie, 'k', sizeof cookie);
    mq_receive(q, msg, sizeof msg, NULL);
    struct {
        long value;
        int signo, notify;
        int pad[12];
    } sev = { (long)cookie, s, SIGEV_THREAD, { 0 } };
    SSHOW("raw mq_notify", syscall(SYS_mq_notify, q, &sev));
    SSHOW("raw mq_notify remove", syscall(SYS_mq_notify, q, NULL));
    long r = SSHOW("raw cookie removed", recv(s, buf, sizeof buf, MSG_DONTWAIT));
    if (r == 32)
        printf("raw cookie: first %c last %d\n", buf[0], buf[31]);
    SSHOW("raw mq_notify 2", syscall(SYS_mq_notify, q, &sev));
    mq_send(q, "m3", 2, 0);
    r = SSHOW("raw cookie woken", recv(s, buf, sizeof buf, MSG_DONTWAIT));
    if (r == 32)
        printf("raw cookie: first %c last %d\n", buf[0], buf[31]);
    int u = socket(AF_INET, SOCK_DGRAM, 0);
    sev.signo = u;
    mq_receive(q, msg, sizeof msg, NULL);
    SSHOW("raw mq_notify inet socket", syscall(SYS_mq_notify, q, &sev));
    sev.signo = notify_pipe[0];
    SSHOW("raw mq_notify pipe", syscall(SYS_mq_notify, q, &sev));
    sev.signo = 999;
    SSHOW("raw mq_notify bad fd", syscall(SYS_mq_notify, q, &sev));
    sev.signo = s;
    sev.value = 8;
    SSHOW("raw mq_notify bad cookie", syscall(SYS_mq_notify, q, &sev));
    mq_close(q);
    mq_unlink("/nlq");
}

int main(void)
{
    corpus_init();
    lo_up();
    sockets();
    dumps();
    acks();
    run_child("unprivileged", unprivileged);
    libc();
    mq_thread();
    return 0;
}
