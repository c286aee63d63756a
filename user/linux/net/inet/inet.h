/* AF_INET and AF_INET6 on the loopback interface (docs/linux/sockets.md, "AF_INET"): TCP
 * and UDP between sockets of this machine with Linux's observable semantics, and no packets:
 * a connection is two sockets that hold each other, a datagram goes straight into its
 * receiver's queue.  Shared by af_inet.c (the families, options, ioctls), addr.c (socket
 * addresses, what is local), ports.c (the port tables), tcp.c and udp.c. */
#ifndef LX_NET_INET_INET_H
#define LX_NET_INET_INET_H

#include "lib/list.h"
#include "net/socket.h"

#define AF_INET6        10
#define IPPROTO_IP      0
#define IPPROTO_TCP     6
#define IPPROTO_UDP     17
#define IPPROTO_IPV6    41
#define ENETUNREACH     101
#define EINPROGRESS     115
#define EALREADY        114

#define SIN_LEN         16          /* sizeof(struct sockaddr_in) */
#define SIN6_LEN        28          /* sizeof(struct sockaddr_in6) */
#define SIN6_LEN_RFC2133 24         /* without sin6_scope_id: still accepted */

#define PORT_EPH_LO     32768       /* net.ipv4.ip_local_port_range's default */
#define PORT_EPH_HI     60999
#define PROT_SOCK       1024        /* below: CAP_NET_BIND_SERVICE */

/* An address as IPv6 keeps it: an IPv4 one is mapped (::ffff:a.b.c.d). */
struct in6 {
    uint8_t b[16];
};

enum inet_proto { INET_TCP, INET_UDP, INET_NPROTO };

struct inet_sock {
    struct socket sock;             /* first */
    enum inet_proto proto;
    bool v6only;                    /* IPV6_V6ONLY (AF_INET6 only) */
    bool bind_addr_lock, bind_port_lock;    /* bound by bind(), not by autobind/connect */
    uint16_t port;                  /* local port (host order); 0: not in the port table */
    struct in6 laddr;               /* local address (any: :: or ::ffff:0.0.0.0) */
    struct in6 raddr;               /* connected: the peer's address and port */
    uint16_t rport;
    struct list port_link;          /* in its protocol's port table (ports.c) */
    struct list rq;                 /* struct sk_buff (net/skb.h), oldest first */
    l4_word_t rmem;                 /* their truesize: what SO_RCVBUF bounds */
    /* TCP */
    enum { SOCK_UNCONNECTED, SOCK_CONNECTING, SOCK_CONNECTED } conn;    /* Linux's sock->state */
    struct inet_sock *peer;         /* a reference: the other end of the connection */
    struct list acceptq;            /* a listener's connections, by accept_link (a reference) */
    struct list accept_link;
    unsigned acceptq_len;
    int backlog;
    bool fin;                       /* the peer sent its FIN (Linux's SOCK_DONE) */
    bool dead;                      /* closed (Linux's SOCK_DEAD) */
    bool nodelay, cork;
    int keepidle, keepintvl, keepcnt;
    int tos, ttl;
};

static inline struct inet_sock *inet_sk(struct socket *s)
{
    return (struct inet_sock *)s;
}

extern const struct net_family inet_family, inet6_family;

/* addr.c */
extern const struct in6 in6_any, in6_loopback, in6_any4, in6_loopback4;
bool in6_eq(const struct in6 *a, const struct in6 *b);
bool in6_is_any(const struct in6 *a);          /* :: or ::ffff:0.0.0.0 */
bool in6_is_mapped(const struct in6 *a);
bool in6_is_local(const struct in6 *a);        /* 127/8, ::1 (and any: this machine) */
/* A sockaddr the process gave s into addr/port: 0 or -errno (EINVAL for a short one,
 * EAFNOSUPPORT for another family).  unspec_ok: AF_UNSPEC is taken as any (bind's leniency). */
int inet_addr_in(const struct socket *s, const char *sa, int len, struct in6 *addr,
                 uint16_t *port, bool unspec_ok);
/* addr/port as a sockaddr of s's family into sa: its length. */
int inet_addr_out(const struct socket *s, const struct in6 *addr, uint16_t port, char *sa);
/* Where a connect or send to addr goes: the destination made concrete (any -> loopback) in
 * *dst and the source the route gives in *src; 0 or -ENETUNREACH. */
int inet_route(const struct inet_sock *is, const struct in6 *addr, struct in6 *dst,
               struct in6 *src);
/* connect's address in and routed (inet_addr_in without AF_UNSPEC, then inet_route): the
 * destination, its port and the route's source; 0 or -errno.  Whether the source becomes
 * is's local address is the protocol's rule (TCP: unless bind fixed one; UDP: if none). */
int inet_connect_route(struct inet_sock *is, const char *sa, int len, struct in6 *dst,
                       uint16_t *port, struct in6 *src);

/* ports.c */
/* Put is into its protocol's table at addr:port (port 0: an ephemeral one): 0, -EADDRINUSE,
 * -EADDRNOTAVAIL (no ephemeral port left). */
int inet_port_bind(struct inet_sock *is, const struct in6 *addr, uint16_t port);
/* Its place in the table checked again (listen: a listener excludes SO_REUSEADDR sharers). */
int inet_port_recheck(struct inet_sock *is);
void inet_port_unbind(struct inet_sock *is);
/* An accepted connection joins its listener's port (Linux's inherited bind bucket). */
void inet_port_inherit(struct inet_sock *child, uint16_t port);
int inet_autobind(struct inet_sock *is);
/* The socket of proto that takes what is sent to dst:dport from src:sport (a listener for
 * TCP, the best-matching bound socket for UDP), or NULL.  v4: the sender is IPv4 (mapped). */
struct inet_sock *inet_lookup(enum inet_proto proto, const struct in6 *dst, uint16_t dport,
                              const struct in6 *src, uint16_t sport, bool listener);
/* Each socket of a protocol's table (for /proc/net/tcp and udp). */
void inet_each(enum inet_proto proto, void (*fn)(struct inet_sock *is, void *arg), void *arg);

/* af_inet.c */
int inet_getname(struct socket *s, char *addr, bool peer);
long inet_ioctl(struct thread *t, struct socket *s, unsigned cmd, l4_word_t arg);
long inet_setsockopt(struct thread *t, struct socket *s, int level, int name, l4_word_t uval,
                     unsigned len);
long inet_getsockopt(struct thread *t, struct socket *s, int level, int name, l4_word_t uval,
                     l4_word_t ulen);
int inet_bind(struct thread *t, struct socket *s, const char *addr, int len);
void inet_purge(struct inet_sock *is);
void inet_destroy(struct socket *s);
int inet_take_error(struct socket *s);

/* tcp.c, udp.c */
extern const struct proto_ops tcp_ops, udp_ops;

#endif
