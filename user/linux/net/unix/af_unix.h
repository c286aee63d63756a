/* AF_UNIX (docs/linux/sockets.md, "AF_UNIX"): the socket object, its messages and names,
 * shared by af_unix.c (connections and state), msg.c (sending and receiving) and names.c
 * (path and abstract names). */
#ifndef LX_NET_UNIX_AF_UNIX_H
#define LX_NET_UNIX_AF_UNIX_H

#include "lib/list.h"
#include "net/socket.h"

#define UNIX_PATH_MAX    108
#define UNIX_ADDR_MIN    2          /* offsetof(struct sockaddr_un, sun_path) */
#define UNIX_ADDR_MAX    110        /* sizeof(struct sockaddr_un) */
#define UNIX_DGRAM_QLEN  10         /* net.unix.max_dgram_qlen */
#define SOMAXCONN        4096       /* net.core.somaxconn */

struct unix_addr {                  /* a bound name: sockaddr_un's bytes as Linux keeps them */
    int len;
    char name[UNIX_ADDR_MAX + 1];
};

struct unix_sock {
    struct socket sock;             /* first */
    struct unix_sock *peer;         /* a reference; stream: the other end; dgram: connect's */
    struct unix_addr *addr;         /* NULL: unbound */
    struct inode *path;             /* a bound socket file (a reference), NULL: abstract */
    struct list bound_link;         /* in the name table while bound (names.c) */
    struct list rq;                 /* struct sk_buff (net/skb.h), oldest first */
    unsigned rq_len;
    struct list acceptq;            /* a listener's connections (struct unix_sock), by ... */
    struct list accept_link;        /* ... this link; each holds a reference */
    unsigned acceptq_len;
    int backlog;                    /* a listener's; dgram: the queue limit */
    bool dead;                      /* released (Linux's SOCK_DEAD) */
};

static inline struct unix_sock *unix_sk(struct socket *s)
{
    return (struct unix_sock *)s;
}

extern const struct net_family unix_family;

/* msg.c */
long unix_stream_sendmsg(struct thread *t, struct socket *s, struct sock_msg *m, int flags);
long unix_stream_recvmsg(struct thread *t, struct socket *s, struct sock_msg *m, int flags);
long unix_dgram_sendmsg(struct thread *t, struct socket *s, struct sock_msg *m, int flags);
long unix_dgram_recvmsg(struct thread *t, struct socket *s, struct sock_msg *m, int flags);
long unix_seqpacket_sendmsg(struct thread *t, struct socket *s, struct sock_msg *m, int flags);
long unix_seqpacket_recvmsg(struct thread *t, struct socket *s, struct sock_msg *m, int flags);
/* Every message of u's queue dropped (a release, a dgram reconnect). */
void unix_purge(struct unix_sock *u);
/* A dgram socket leaves its peer other: its queue from the old peer is dropped, and if that
 * peer was connected back it learns ECONNRESET (Linux's unix_dgram_disconnected). */
void unix_dgram_disconnected(struct unix_sock *u, struct unix_sock *other);

/* names.c */
int unix_validate_addr(const char *addr, int len);
int unix_bind(struct thread *t, struct socket *s, const char *addr, int len);
int unix_autobind(struct unix_sock *u);
/* The socket bound to addr for a socket of type (a reference), or NULL with *err (ENOENT
 * and the path walk's errors, EACCES, ECONNREFUSED, EPROTOTYPE). */
struct unix_sock *unix_find_other(struct thread *t, const char *addr, int len, int type,
                                  int *err);
void unix_unbind(struct unix_sock *u);     /* out of the table, its file let go */

#endif
