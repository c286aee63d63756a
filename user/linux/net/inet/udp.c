/* UDP on lo (docs/linux/sockets.md, "UDP"): a datagram goes straight into the queue of the
 * socket that would receive it (Linux's lookup: the bound address and port, a connected
 * receiver only from its peer), or is dropped when that queue is past its SO_RCVBUF.  With
 * no receiver Linux's ICMP port-unreachable comes back at once on lo: a connected sender
 * learns ECONNREFUSED at its next call, an unconnected one nothing.  The order of checks
 * follows net/ipv4/udp.c (udp_sendmsg, udp_recvmsg) and net/ipv4/datagram.c. */
#include "net/inet/inet.h"
#include "net/skb.h"
#include "lib/errno.h"
#include "vfs/poll.h"
#include <string.h>

#define POLLRDHUP     0x2000
#define UDP_MAX4      65507         /* 65535 - the IPv4 and UDP headers */
#define UDP_MAX6      65527         /* 65535 - the UDP header */

static void udp_release(struct socket *s)
{
    struct inet_sock *is = inet_sk(s);
    is->dead = true;
    inet_port_unbind(is);
    inet_purge(is);
}

/* Linux's __udp_disconnect: what connect gave goes (and what autobind gave). */
static void disconnect(struct inet_sock *is)
{
    struct socket *s = &is->sock;
    s->state = SS_CLOSE;
    is->rport = 0;
    is->raddr = s->family == AF_INET ? in6_any4 : in6_any;
    if (!is->bind_addr_lock)
        is->laddr = is->raddr;
    if (!is->bind_port_lock)
        inet_port_unbind(is);
}

static long udp_connect(struct thread *t, struct socket *s, const char *sa, int len,
                        bool nonblock)
{
    (void)t;
    (void)nonblock;
    struct inet_sock *is = inet_sk(s);
    if (len < (int)sizeof(uint16_t))
        return -EINVAL;
    uint16_t family;
    memcpy(&family, sa, sizeof family);
    if (family == AF_UNSPEC) {
        disconnect(is);
        return 0;
    }
    if (inet_autobind(is))
        return -EAGAIN;
    struct in6 addr, dst, src;
    uint16_t port;
    int err = inet_addr_in(s, sa, len, &addr, &port, false);
    if (err)
        return err;
    if ((err = inet_route(is, &addr, &dst, &src)))
        return err;
    if (in6_is_any(&is->laddr))
        is->laddr = src;
    is->raddr = dst;
    is->rport = port;
    s->state = SS_ESTABLISHED;
    return 0;
}

/* Where a datagram goes: the destination given (EINVAL, EAFNOSUPPORT, port 0) or the
 * connected peer (EDESTADDRREQ), routed (ENETUNREACH). */
static int destination(struct inet_sock *is, struct sock_msg *m, struct in6 *dst,
                       uint16_t *dport, struct in6 *src)
{
    struct socket *s = &is->sock;
    struct in6 addr;
    if (m->name) {
        int err = inet_addr_in(s, m->name, m->namelen, &addr, dport, s->family == AF_INET);
        if (err)
            return err;
        if (!*dport)
            return -EINVAL;
    } else {
        if (s->state != SS_ESTABLISHED)
            return -EDESTADDRREQ;
        addr = is->raddr;
        *dport = is->rport;
    }
    return inet_route(is, &addr, dst, src);
}

static long udp_sendmsg(struct thread *t, struct socket *s, struct sock_msg *m, int flags)
{
    (void)t;
    struct inet_sock *is = inet_sk(s);
    l4_word_t len = m->u->resid;
    if (inet_autobind(is))
        return -EAGAIN;
    if (len > 0xffff)
        return -EMSGSIZE;
    if (flags & MSG_OOB)
        return -EOPNOTSUPP;
    struct in6 dst, src;
    uint16_t dport;
    int err = destination(is, m, &dst, &dport, &src);
    if (err)
        return err;
    if ((err = inet_take_error(s)))
        return err;
    if (s->shutdown & SEND_SHUTDOWN)
        return -EPIPE;
    if (len > (in6_is_mapped(&dst) ? UDP_MAX4 : UDP_MAX6))
        return -EMSGSIZE;
    if (!in6_is_any(&is->laddr))
        src = is->laddr;
    struct inet_sock *to = inet_lookup(INET_UDP, &dst, dport, &src, is->port, false);
    if (!to) {
        if (s->state == SS_ESTABLISHED) {
            s->err = ECONNREFUSED;  /* the ICMP port unreachable, at once on lo */
            waitq_wake(&s->wq);
        }
        return uio_discard(m->u, len), (long)len;
    }
    if (to->rmem > (l4_word_t)to->sock.rcvbuf)
        return uio_discard(m->u, len), (long)len;  /* dropped, as Linux's full queue drops */
    struct sk_buff *skb = skb_alloc_orphan(s, m->u, len, &err);
    if (!skb)
        return err;
    /* the source as the receiver's family writes it (an IPv6 one sees IPv4 mapped) */
    skb->srclen = inet_addr_out(&to->sock, &src, is->port, skb->src);
    list_add_tail(&to->rq, &skb->link);
    to->rmem += skb->truesize;
    waitq_wake(&to->sock.wq);
    return (long)len;
}

static long udp_recvmsg(struct thread *t, struct socket *s, struct sock_msg *m, int flags)
{
    (void)t;
    struct inet_sock *is = inet_sk(s);
    int err = inet_take_error(s);
    if (err)
        return err;
    if (list_empty(&is->rq))
        return !(flags & MSG_DONTWAIT) && (s->shutdown & RCV_SHUTDOWN) ? 0 : -EAGAIN;
    struct sk_buff *skb = list_entry(is->rq.next, struct sk_buff, link);
    bool peek = flags & MSG_PEEK;
    if (!peek) {
        list_del(&skb->link);       /* taken: a fault below loses it, as in Linux */
        is->rmem -= skb->truesize;
    }
    long r = skb_copy_datagram(skb, m, flags);
    if (!peek)
        skb_free(skb);
    return r;
}

static unsigned udp_poll(struct socket *s, struct poll_table *pt)
{
    struct inet_sock *is = inet_sk(s);
    poll_wait(pt, &s->wq);
    unsigned mask = POLLOUT | POLLWRNORM | POLLWRBAND;  /* lo never holds a datagram back */
    if (s->err)
        mask |= POLLERR;
    if (s->shutdown & RCV_SHUTDOWN)
        mask |= POLLRDHUP | POLLIN | POLLRDNORM;
    if (s->shutdown == SHUTDOWN_MASK)
        mask |= POLLHUP;
    if (!list_empty(&is->rq))
        mask |= POLLIN | POLLRDNORM;
    return mask;
}

static int udp_shutdown(struct socket *s, int how)
{
    if (how < SHUT_RD || how > SHUT_RDWR)
        return -EINVAL;
    s->shutdown |= (unsigned)how + 1;
    waitq_wake(&s->wq);
    return s->state == SS_ESTABLISHED ? 0 : -ENOTCONN;
}

const struct proto_ops udp_ops = {
    .family = AF_INET, .release = udp_release, .destroy = inet_destroy, .bind = inet_bind,
    .connect = udp_connect, .getname = inet_getname, .poll = udp_poll, .ioctl = inet_ioctl,
    .shutdown = udp_shutdown, .sendmsg = udp_sendmsg, .recvmsg = udp_recvmsg,
    .setsockopt = inet_setsockopt, .getsockopt = inet_getsockopt,
};
