/* The port tables (docs/linux/sockets.md, "Ports"): one per protocol, shared by AF_INET
 * and AF_INET6 as Linux's bind hash is, hashed by port.  Two sockets may hold one port when
 * their addresses do not overlap (Linux's inet_rcv_saddr_equal, with its asymmetry between
 * IPv4 and IPv6 sockets), when both set SO_REUSEADDR and the holder is not listening (UDP:
 * both set it), or when both set SO_REUSEPORT and have one owner.  Ephemeral ports come
 * from net.ipv4.ip_local_port_range (/proc/sys, kept here), from a random start as Linux's
 * do. */
#include "net/inet/inet.h"
#include "lib/errno.h"
#include "lib/random.h"
#include "fs/proc/sysctl.h"
#include "task/cred.h"

#define PORT_BUCKETS 64
#define SO_REUSEADDR 2
#define SO_REUSEPORT 15
#define LOOPBACK4_IPV6 0x0600007fu  /* 127.0.0.6: what a non-mapped IPv6 address compares as */

static struct list table[INET_NPROTO][PORT_BUCKETS];
static int port_range[2] = { PORT_EPH_LO, PORT_EPH_HI };

static struct sysctl port_sysctls[] = {
    { .path = "net/ipv4/ip_local_port_range", .mode = 0644, .show = sysctl_show_int,
      .store = sysctl_store_int, .data = port_range, .n = 2, .min = 1, .max = 65535 },
};
SYSCTL_TABLE(port_sysctls)
static bool table_ready;

static struct list *bucket(enum inet_proto p, uint16_t port)
{
    if (!table_ready) {
        for (unsigned k = 0; k < INET_NPROTO; k++)
            for (unsigned b = 0; b < PORT_BUCKETS; b++)
                list_init(&table[k][b]);
        table_ready = true;
    }
    return &table[p][port % PORT_BUCKETS];
}

/* Linux's sk_rcv_saddr: the IPv4 address a socket is bound to. */
static uint32_t rcv_saddr4(const struct inet_sock *is)
{
    const struct in6 *a = &is->laddr;
    if (in6_is_mapped(a)) {
        uint32_t v;
        __builtin_memcpy(&v, a->b + 12, 4);
        return v;
    }
    return in6_eq(a, &in6_any) ? 0 : LOOPBACK4_IPV6;
}

static bool v4_equal(uint32_t a, uint32_t b, bool b_v6only)
{
    return !b_v6only && (a == b || !a || !b);
}

/* Linux's inet_rcv_saddr_equal(sk, sk2, true): do their bound addresses overlap? */
static bool addr_overlap(const struct inet_sock *sk, const struct inet_sock *sk2)
{
    if (sk->sock.family == AF_INET)
        return v4_equal(rcv_saddr4(sk), rcv_saddr4(sk2), sk2->v6only);
    bool mapped1 = in6_is_mapped(&sk->laddr);
    bool mapped2 = sk2->sock.family == AF_INET || in6_is_mapped(&sk2->laddr);
    bool any1 = in6_eq(&sk->laddr, &in6_any);
    bool any2 = sk2->sock.family == AF_INET6 && in6_eq(&sk2->laddr, &in6_any);
    if (mapped1 && mapped2)
        return v4_equal(rcv_saddr4(sk), rcv_saddr4(sk2), sk2->v6only);
    if (any1 && any2)
        return true;
    if (any2 && !(sk2->v6only && mapped1))
        return true;
    if (any1 && !(sk->v6only && mapped2))
        return true;
    return sk2->sock.family == AF_INET6 && in6_eq(&sk->laddr, &sk2->laddr);
}

static bool shares(const struct inet_sock *sk, const struct inet_sock *sk2)
{
    const struct socket *a = &sk->sock, *b = &sk2->sock;
    if (SO_BOOL(a, SO_REUSEADDR) && SO_BOOL(b, SO_REUSEADDR) &&
        (sk->proto == INET_UDP || b->state != SS_LISTEN))
        return true;
    return SO_BOOL(a, SO_REUSEPORT) && SO_BOOL(b, SO_REUSEPORT) && a->inode.uid == b->inode.uid;
}

static bool conflict(const struct inet_sock *is, uint16_t port)
{
    struct inet_sock *o;
    list_each(o, bucket(is->proto, port), port_link)
        if (o != is && o->port == port && !shares(is, o) && addr_overlap(is, o))
            return true;
    return false;
}

static void insert(struct inet_sock *is, uint16_t port)
{
    is->port = port;
    list_add_tail(bucket(is->proto, port), &is->port_link);
}

int inet_port_bind(struct inet_sock *is, const struct in6 *addr, uint16_t port)
{
    struct in6 old = is->laddr;
    is->laddr = *addr;
    if (port) {
        if (conflict(is, port)) {
            is->laddr = old;
            return -EADDRINUSE;
        }
        insert(is, port);
        return 0;
    }
    int lo = port_range[0], hi = port_range[1] >= lo ? port_range[1] : lo;
    unsigned span = (unsigned)(hi - lo + 1), start;
    lx_random_bytes(&start, sizeof start);
    for (unsigned k = 0; k < span; k++) {
        uint16_t p = (uint16_t)(lo + (start + k) % span);
        if (!conflict(is, p)) {
            insert(is, p);
            return 0;
        }
    }
    is->laddr = old;
    return -EADDRINUSE;             /* Linux's inet_csk_get_port with no port left */
}

int inet_port_recheck(struct inet_sock *is)
{
    return conflict(is, is->port) ? -EADDRINUSE : 0;
}

void inet_port_unbind(struct inet_sock *is)
{
    if (is->port && list_linked(&is->port_link))
        list_del(&is->port_link);
    is->port = 0;
}

void inet_port_inherit(struct inet_sock *child, uint16_t port)
{
    insert(child, port);
}

int inet_autobind(struct inet_sock *is)
{
    if (is->port)
        return 0;
    struct in6 any = is->sock.family == AF_INET ? in6_any4 : in6_any;
    return inet_port_bind(is, &any, 0) ? -EAGAIN : 0;
}

/* Does is take what goes to dst (v4: dst is a mapped IPv4 address)?  2: its address is
 * dst, 1: it is bound to any, 0: no. */
static int addr_match(const struct inet_sock *is, const struct in6 *dst, bool v4)
{
    const struct in6 *a = &is->laddr;
    if (v4 && is->sock.family == AF_INET6) {
        if (is->v6only)
            return 0;
        if (in6_eq(a, &in6_any))
            return 1;
    }
    if (!v4 && is->sock.family == AF_INET)
        return 0;
    if (in6_eq(a, dst))
        return 2;
    return in6_is_any(a) && in6_is_mapped(a) == v4 ? 1 : 0;
}

struct inet_sock *inet_lookup(enum inet_proto proto, const struct in6 *dst, uint16_t dport,
                              const struct in6 *src, uint16_t sport, bool listener)
{
    bool v4 = in6_is_mapped(dst);
    struct inet_sock *o, *best = NULL;
    int best_score = 0;
    list_each(o, bucket(proto, dport), port_link) {
        if (o->port != dport || o->dead)
            continue;
        if (listener && o->sock.state != SS_LISTEN)
            continue;
        int score = addr_match(o, dst, v4);
        if (!score)
            continue;
        score = score * 4 + (o->sock.family == AF_INET) * 2;
        if (!listener && o->rport) {
            if (o->rport != sport || !in6_eq(&o->raddr, src))
                continue;
            score += 8;
        }
        if (score > best_score) {
            best = o;
            best_score = score;
        }
    }
    return best;
}

void inet_each(enum inet_proto proto, void (*fn)(struct inet_sock *is, void *arg), void *arg)
{
    for (unsigned b = 0; b < PORT_BUCKETS; b++) {
        struct inet_sock *o;
        list_each(o, bucket(proto, (uint16_t)b), port_link)
            fn(o, arg);
    }
}
