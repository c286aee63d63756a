/* AF_NETLINK (docs/linux/sockets.md, "AF_NETLINK"): NETLINK_ROUTE sockets, the only protocol
 * lx has.  af_netlink.c is the family (port ids, unicast between sockets, the receive queue,
 * the dump in progress, what the kernel side sends); rtnetlink.c answers the requests sent
 * to the kernel (port id 0) about lo, as Linux's rtnetlink does; mq_notify's SIGEV_THREAD
 * sends its cookie through netlink_kernel_send. */
#ifndef LX_NET_NETLINK_NETLINK_H
#define LX_NET_NETLINK_NETLINK_H

#include "lib/list.h"
#include "net/socket.h"

#define AF_NETLINK      16
#define NETLINK_ROUTE   0
#define SOL_NETLINK     270
#define NETLINK_KERNEL_REQ_MAX 32768  /* the largest datagram to the kernel lx takes (docs) */

/* The message header (struct nlmsghdr) and its flags and types. */
struct nlmsghdr {
    uint32_t len;
    uint16_t type, flags;
    uint32_t seq, pid;
};
#define NLMSG_HDRLEN    16
#define NLMSG_ALIGN(n)  (((n) + 3u) & ~3u)
#define NLM_F_REQUEST   0x1
#define NLM_F_MULTI     0x2
#define NLM_F_ACK       0x4
#define NLM_F_DUMP      0x300
#define NLM_F_CAPPED    0x100
#define NLMSG_NOOP      1
#define NLMSG_ERROR     2
#define NLMSG_DONE      3
#define NLMSG_MIN_TYPE  0x10

struct netlink_sock {
    struct socket sock;             /* first */
    uint32_t portid;                /* bound: its id (Linux's nlk->portid) */
    bool bound;
    uint32_t groups;                /* multicast groups 1..32 (RTMGRP_*) */
    uint32_t dst_portid, dst_group; /* connect()'s destination */
    bool connected;
    bool cap_ack, ext_ack;          /* NETLINK_CAP_ACK, NETLINK_EXT_ACK */
    bool dead;                      /* its file was closed */
    struct list link;               /* in the table of bound sockets */
    struct list rq;                 /* struct sk_buff, oldest first */
    l4_word_t rmem;
    struct list dumpq;              /* a dump's datagrams not yet queued (Linux's running
                                       callback): the next goes in as a read makes room */
    bool dump_running;
};

static inline struct netlink_sock *nlk_sk(struct socket *s)
{
    return (struct netlink_sock *)s;
}

extern const struct net_family netlink_family;

/* --- af_netlink.c ------------------------------------------------------------------------- */
/* A datagram from the kernel side (port id 0) to ns: queued at once when running (its
 * receive buffer full: dropped with ENOBUFS pending, Linux's overrun), else kept for the
 * dump in progress.  false: no memory. */
bool netlink_kernel_send(struct netlink_sock *ns, const void *data, l4_word_t len, bool dump);
/* The netlink socket behind fd (a reference): NULL with *err (EBADF, ENOTSOCK, EINVAL for
 * another family), as Linux's netlink_getsockbyfilp. */
struct socket *netlink_sock_from_fd(struct thread *t, int fd, int *err);

/* --- rtnetlink.c -------------------------------------------------------------------------- */
/* The requests of one datagram from ns to the kernel (Linux's netlink_rcv_skb with
 * rtnetlink_rcv_msg); admin: the sender has CAP_NET_ADMIN. */
void rtnl_input(struct netlink_sock *ns, const char *data, l4_word_t len, bool admin);

#endif
