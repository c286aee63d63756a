/* AF_INET and AF_INET6 (docs/linux/sockets.md, "AF_INET"): the two families, what their
 * sockets share (bind, names, the IP/IPv6/TCP option levels, ioctls) after Linux's
 * net/ipv4/af_inet.c and net/ipv6/af_inet6.c.  TCP is tcp.c, UDP udp.c. */
#include "net/inet/inet.h"
#include "net/skb.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "task/process.h"
#include <string.h>

#define IPPROTO_MAX      256
#define CAP_NET_BIND_SERVICE 10

#define IP_TOS           1
#define IP_TTL           2
#define IP_PKTINFO       8
#define IP_MTU_DISCOVER  10
#define IP_RECVERR       11
#define IP_RECVTOS       13
#define IPV6_UNICAST_HOPS 16
#define IPV6_RECVERR     25
#define IPV6_V6ONLY      26
#define IPV6_RECVPKTINFO 49
#define IPV6_TCLASS      67
#define TCP_NODELAY      1
#define TCP_MAXSEG       2
#define TCP_CORK         3
#define TCP_KEEPIDLE     4
#define TCP_KEEPINTVL    5
#define TCP_KEEPCNT      6
#define TCP_DEFER_ACCEPT 9
#define TCP_QUICKACK     12
#define TCP_USER_TIMEOUT 18
#define TCP_MSS_DEFAULT  536
#define TCP_MAX_KEEP     32767

#define TCP_WMEM_DEFAULT 16384      /* net.ipv4.tcp_wmem's and tcp_rmem's middle values */
#define TCP_RMEM_DEFAULT 131072
#define IP_TTL_DEFAULT   64

static int inet_create_common(struct thread *t, struct socket *s, int protocol)
{
    (void)t;
    struct inet_sock *is = inet_sk(s);
    if (protocol < 0 || protocol >= IPPROTO_MAX)
        return -EINVAL;
    switch (s->type) {
    case SOCK_STREAM:
        if (protocol && protocol != IPPROTO_TCP)
            return -EPROTONOSUPPORT;
        s->protocol = IPPROTO_TCP;
        s->ops = &tcp_ops;
        is->proto = INET_TCP;
        s->sndbuf = TCP_WMEM_DEFAULT;
        s->rcvbuf = TCP_RMEM_DEFAULT;
        break;
    case SOCK_DGRAM:
        if (protocol && protocol != IPPROTO_UDP)
            return -EPROTONOSUPPORT;
        s->protocol = IPPROTO_UDP;
        s->ops = &udp_ops;
        is->proto = INET_UDP;
        break;
    default:
        return -ESOCKTNOSUPPORT;    /* SOCK_RAW is not modelled (docs) */
    }
    list_init(&is->port_link);
    list_init(&is->rq);
    list_init(&is->acceptq);
    list_init(&is->accept_link);
    is->laddr = s->family == AF_INET ? in6_any4 : in6_any;
    is->raddr = is->laddr;
    is->ttl = -1;
    is->keepidle = 7200;
    is->keepintvl = 75;
    is->keepcnt = 9;
    return 0;
}

int inet_take_error(struct socket *s)
{
    int e = s->err;
    s->err = 0;
    return -e;
}

void inet_purge(struct inet_sock *is)
{
    while (!list_empty(&is->rq)) {
        struct sk_buff *skb = list_entry(is->rq.next, struct sk_buff, link);
        is->rmem -= skb->truesize;
        skb_free(skb);
    }
}

void inet_destroy(struct socket *s)
{
    struct inet_sock *is = inet_sk(s);
    inet_port_unbind(is);
    inet_purge(is);
}

static bool bind_allowed(struct thread *t, uint16_t port)
{
    return !port || port >= PROT_SOCK || cred_capable(&t->proc->cred, CAP_NET_BIND_SERVICE);
}

/* Linux's __inet_bind and __inet6_bind, in their orders of checks. */
int inet_bind(struct thread *t, struct socket *s, const char *sa, int len)
{
    struct inet_sock *is = inet_sk(s);
    struct in6 addr;
    uint16_t port;
    int err = inet_addr_in(s, sa, len, &addr, &port, true);
    if (err)
        return err;
    if (s->family == AF_INET) {
        if (!in6_is_local(&addr))
            return -EADDRNOTAVAIL;
        if (!bind_allowed(t, port))
            return -EACCES;
        if (s->state != SS_CLOSE || is->port)
            return -EINVAL;
    } else {
        if (!bind_allowed(t, port))
            return -EACCES;
        if (s->state != SS_CLOSE || is->port)
            return -EINVAL;
        if (in6_is_mapped(&addr) && is->v6only)
            return -EINVAL;
        if (!in6_is_local(&addr))
            return -EADDRNOTAVAIL;
    }
    if ((err = inet_port_bind(is, &addr, port)))
        return err;
    is->bind_addr_lock = !in6_is_any(&addr);
    is->bind_port_lock = port != 0;
    return 0;
}

int inet_getname(struct socket *s, char *sa, bool peer)
{
    struct inet_sock *is = inet_sk(s);
    if (peer) {
        if (!is->rport || (s->type == SOCK_STREAM && s->state != SS_ESTABLISHED))
            return -ENOTCONN;
        return inet_addr_out(s, &is->raddr, is->rport, sa);
    }
    return inet_addr_out(s, &is->laddr, is->port, sa);
}

long inet_ioctl(struct thread *t, struct socket *s, unsigned cmd, l4_word_t arg)
{
    struct inet_sock *is = inet_sk(s);
    int amount = 0;
    switch (cmd) {
    case SIOCOUTQ:
        if (s->state == SS_LISTEN)
            return -EINVAL;
        break;                      /* delivered at once: nothing waits to be sent */
    case SIOCINQ: {
        if (s->state == SS_LISTEN)
            return -EINVAL;
        amount = skb_queue_inq(&is->rq, s->type == SOCK_DGRAM);
        break;
    }
    default:
        return -ENOTTY;
    }
    return copy_to_user(t->mm, arg, &amount, sizeof amount);
}

/* --- the IP, IPv6 and TCP option levels --------------------------------------------------- */

static long int_opt(struct thread *t, l4_word_t uval, unsigned len, int *val)
{
    if (len < sizeof(int))
        return -EINVAL;
    return copy_from_user(t->mm, val, uval, sizeof *val) ? -EFAULT : 0;
}

static long tcp_set(struct inet_sock *is, int name, int val)
{
    switch (name) {
    case TCP_NODELAY: is->nodelay = val != 0; return 0;
    case TCP_CORK: is->cork = val != 0; return 0;
    case TCP_KEEPIDLE:
        if (val < 1 || val > TCP_MAX_KEEP)
            return -EINVAL;
        is->keepidle = val;
        return 0;
    case TCP_KEEPINTVL:
        if (val < 1 || val > TCP_MAX_KEEP)
            return -EINVAL;
        is->keepintvl = val;
        return 0;
    case TCP_KEEPCNT:
        if (val < 1 || val > 127)
            return -EINVAL;
        is->keepcnt = val;
        return 0;
    case TCP_MAXSEG: case TCP_DEFER_ACCEPT: case TCP_QUICKACK: case TCP_USER_TIMEOUT:
        return 0;                   /* nothing is segmented, acknowledged or retransmitted */
    default:
        return -ENOPROTOOPT;
    }
}

static long ip_set(struct inet_sock *is, int name, int val)
{
    switch (name) {
    case IP_TOS: is->tos = val & 0xff; return 0;
    case IP_TTL:
        if (val != -1 && (val < 1 || val > 255))
            return -EINVAL;
        is->ttl = val;
        return 0;
    case IP_PKTINFO: case IP_MTU_DISCOVER: case IP_RECVERR: case IP_RECVTOS:
        return 0;
    default:
        return -ENOPROTOOPT;
    }
}

static long ipv6_set(struct inet_sock *is, int name, int val)
{
    switch (name) {
    case IPV6_V6ONLY:
        if (is->port)
            return -EINVAL;         /* Linux: only before bind */
        is->v6only = val != 0;
        return 0;
    case IPV6_UNICAST_HOPS:
        if (val < -1 || val > 255)
            return -EINVAL;
        is->ttl = val;
        return 0;
    case IPV6_TCLASS: case IPV6_RECVERR: case IPV6_RECVPKTINFO:
        return 0;
    default:
        return -ENOPROTOOPT;
    }
}

/* The levels a socket has: IP; IPv6 on AF_INET6; TCP on TCP (Linux: ENOPROTOOPT else). */
static bool level_ok(const struct inet_sock *is, int level)
{
    return level == IPPROTO_IP || (level == IPPROTO_IPV6 && is->sock.family == AF_INET6) ||
           (level == IPPROTO_TCP && is->proto == INET_TCP);
}

long inet_setsockopt(struct thread *t, struct socket *s, int level, int name, l4_word_t uval,
                     unsigned len)
{
    struct inet_sock *is = inet_sk(s);
    if (!level_ok(is, level))
        return -ENOPROTOOPT;
    int val;
    long err = int_opt(t, uval, len, &val);
    if (err)
        return err;
    return level == IPPROTO_TCP ? tcp_set(is, name, val) :
           level == IPPROTO_IPV6 ? ipv6_set(is, name, val) : ip_set(is, name, val);
}

static long get_value(const struct inet_sock *is, int level, int name, int *val)
{
    if (level == IPPROTO_TCP) {
        switch (name) {
        case TCP_NODELAY: *val = is->nodelay; return 0;
        case TCP_CORK: *val = is->cork; return 0;
        case TCP_KEEPIDLE: *val = is->keepidle; return 0;
        case TCP_KEEPINTVL: *val = is->keepintvl; return 0;
        case TCP_KEEPCNT: *val = is->keepcnt; return 0;
        case TCP_MAXSEG: *val = TCP_MSS_DEFAULT; return 0;
        case TCP_DEFER_ACCEPT: case TCP_QUICKACK: case TCP_USER_TIMEOUT: *val = 0; return 0;
        }
    } else if (level == IPPROTO_IPV6) {
        switch (name) {
        case IPV6_V6ONLY: *val = is->v6only; return 0;
        case IPV6_UNICAST_HOPS: *val = is->ttl < 0 ? IP_TTL_DEFAULT : is->ttl; return 0;
        case IPV6_TCLASS: case IPV6_RECVERR: case IPV6_RECVPKTINFO: *val = 0; return 0;
        }
    } else {
        switch (name) {
        case IP_TOS: *val = is->tos; return 0;
        case IP_TTL: *val = is->ttl < 0 ? IP_TTL_DEFAULT : is->ttl; return 0;
        case IP_PKTINFO: case IP_RECVERR: case IP_RECVTOS: *val = 0; return 0;
        case IP_MTU_DISCOVER: *val = 1; return 0;   /* IP_PMTUDISC_WANT */
        }
    }
    return -ENOPROTOOPT;
}

long inet_getsockopt(struct thread *t, struct socket *s, int level, int name, l4_word_t uval,
                     l4_word_t ulen)
{
    struct inet_sock *is = inet_sk(s);
    if (!level_ok(is, level))
        return -ENOPROTOOPT;
    int len, val;
    if (copy_from_user(t->mm, &len, ulen, sizeof len))
        return -EFAULT;
    if (len < 0)
        return -EINVAL;
    long err = get_value(is, level, name, &val);
    if (err)
        return err;
    if (len > (int)sizeof val)
        len = sizeof val;
    if (copy_to_user(t->mm, uval, &val, (size_t)len))
        return -EFAULT;
    return copy_to_user(t->mm, ulen, &len, sizeof len);
}

const struct net_family inet_family = {
    .family = AF_INET, .obj_size = sizeof(struct inet_sock), .create = inet_create_common,
};

const struct net_family inet6_family = {
    .family = AF_INET6, .obj_size = sizeof(struct inet_sock), .create = inet_create_common,
};
