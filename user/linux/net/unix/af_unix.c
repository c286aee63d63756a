/* AF_UNIX sockets (docs/linux/sockets.md, "AF_UNIX"): stream, datagram and seqpacket
 * sockets and their connections, after Linux's net/unix/af_unix.c.  A stream or seqpacket
 * connect makes the server's end at once (Linux's embryo) and queues it on the listener,
 * where accept finds it; the two ends hold each other (peer).  Closing an end shuts its
 * peer down both ways (ECONNRESET for the peer if it left unread data); a datagram socket
 * connected to a closed one learns ECONNREFUSED at its next send. */
#include "net/unix/af_unix.h"
#include "net/skb.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "mm/usercopy.h"
#include "park/park.h"
#include "task/process.h"
#include "vfs/poll.h"
#include <stdio.h>
#include <string.h>

#define POLLRDHUP 0x2000

static const struct proto_ops unix_stream_ops, unix_dgram_ops, unix_seqpacket_ops;

static bool connection_based(const struct socket *s)
{
    return s->type == SOCK_STREAM || s->type == SOCK_SEQPACKET;
}

static int unix_create(struct thread *t, struct socket *s, int protocol)
{
    (void)t;
    if (protocol && protocol != AF_UNIX)
        return -EPROTONOSUPPORT;
    switch (s->type) {
    case SOCK_STREAM: s->ops = &unix_stream_ops; break;
    case SOCK_RAW:                  /* BSD has it, nothing uses it: a datagram socket */
        s->type = SOCK_DGRAM;
        s->ops = &unix_dgram_ops;
        break;
    case SOCK_DGRAM: s->ops = &unix_dgram_ops; break;
    case SOCK_SEQPACKET: s->ops = &unix_seqpacket_ops; break;
    default: return -ESOCKTNOSUPPORT;
    }
    struct unix_sock *u = unix_sk(s);
    list_init(&u->rq);
    list_init(&u->acceptq);
    list_init(&u->accept_link);
    list_init(&u->bound_link);
    u->backlog = UNIX_DGRAM_QLEN;
    return 0;
}

/* Linux's unix_release_sock: u is closed (embryo: never accepted). */
static void release_sock(struct unix_sock *u, bool embryo)
{
    struct socket *s = &u->sock;
    unix_unbind(u);
    u->dead = true;
    s->shutdown = SHUTDOWN_MASK;
    enum sock_state was = s->state;
    s->state = SS_CLOSE;
    struct unix_sock *peer = u->peer;
    u->peer = NULL;
    waitq_wake(&s->wq);
    if (peer) {
        if (connection_based(s)) {
            peer->sock.shutdown = SHUTDOWN_MASK;
            if (!list_empty(&u->rq) || embryo)
                peer->sock.err = ECONNRESET;
            waitq_wake(&peer->sock.wq);
        }
        sock_put(&peer->sock);
    }
    unix_purge(u);
    if (was == SS_LISTEN) {
        while (!list_empty(&u->acceptq)) {
            struct unix_sock *e = list_entry(u->acceptq.next, struct unix_sock, accept_link);
            list_del(&e->accept_link);
            u->acceptq_len--;
            release_sock(e, true);
            sock_put(&e->sock);
        }
    }
}

static void unix_release(struct socket *s)
{
    release_sock(unix_sk(s), false);
}

static void unix_destroy(struct socket *s)
{
    struct unix_sock *u = unix_sk(s);
    unix_purge(u);
    kfree(u->addr);
}

static void set_peercred(struct socket *s, struct ucred c)
{
    s->peer = c;
    s->has_peer = true;
}

static int unix_socketpair(struct thread *t, struct socket *a, struct socket *b)
{
    set_peercred(a, sock_current_creds(t));
    set_peercred(b, sock_current_creds(t));
    unix_sk(a)->peer = unix_sk(b);
    unix_sk(b)->peer = unix_sk(a);
    sock_get(a);
    sock_get(b);
    a->state = b->state = SS_ESTABLISHED;
    return 0;
}

static int unix_listen(struct thread *t, struct socket *s, int backlog)
{
    struct unix_sock *u = unix_sk(s);
    if (!connection_based(s))
        return -EOPNOTSUPP;
    if (!u->addr)
        return -EINVAL;
    if (s->state != SS_CLOSE && s->state != SS_LISTEN)
        return -EINVAL;
    if (backlog > u->backlog)
        waitq_wake(&s->wq);         /* room for connectors that wait */
    u->backlog = backlog;
    s->state = SS_LISTEN;
    set_peercred(s, sock_current_creds(t));     /* what connect copies */
    return 0;
}

static bool recvq_full(const struct unix_sock *u)
{
    return (u->sock.state == SS_LISTEN ? u->acceptq_len : u->rq_len) > (unsigned)u->backlog;
}

static long stream_connect(struct thread *t, struct socket *s, const char *addr, int len,
                          bool nonblock)
{
    struct unix_sock *u = unix_sk(s);
    int err = unix_validate_addr(addr, len);
    if (err)
        return err;
    if (SO_BOOL(s, SO_PASSCRED) && (err = unix_autobind(u)))
        return err;
    struct unix_sock *other = unix_find_other(t, addr, len, s->type, &err);
    if (!other)
        return err;
    long r;
    if (other->sock.state != SS_LISTEN || (other->sock.shutdown & RCV_SHUTDOWN)) {
        r = -ECONNREFUSED;
    } else if (recvq_full(other)) {
        r = nonblock || !s->sndtimeo ? -EAGAIN : sock_wait(t, s, &other->sock.wq, true);
    } else if (s->state != SS_CLOSE) {
        r = s->state == SS_ESTABLISHED ? -EISCONN : -EINVAL;
    } else {
        struct socket *ns = sock_create(t, AF_UNIX, s->type, 0, &err);
        if (!ns) {
            sock_put(&other->sock);
            return err;
        }
        struct unix_sock *nu = unix_sk(ns);
        nu->peer = u;
        sock_get(s);
        ns->state = SS_ESTABLISHED;
        set_peercred(ns, sock_current_creds(t));
        if (other->addr)
            nu->addr = kmalloc(sizeof *nu->addr);
        if (nu->addr)
            *nu->addr = *other->addr;   /* the accepted end has the listener's name */
        if (other->sock.has_peer)
            set_peercred(s, other->sock.peer);
        s->state = SS_ESTABLISHED;
        u->peer = nu;
        sock_get(ns);
        list_add_tail(&other->acceptq, &nu->accept_link);   /* ns's first reference */
        other->acceptq_len++;
        waitq_wake(&other->sock.wq);
        r = 0;
    }
    sock_put(&other->sock);
    return r;
}

static long dgram_connect(struct thread *t, struct socket *s, const char *addr, int len,
                         bool nonblock)
{
    (void)nonblock;
    struct unix_sock *u = unix_sk(s), *other = NULL;
    if (len < (int)sizeof(unsigned short))
        return -EINVAL;
    unsigned short family;
    memcpy(&family, addr, sizeof family);
    if (family != AF_UNSPEC) {
        int err = unix_validate_addr(addr, len);
        if (err)
            return err;
        if (SO_BOOL(s, SO_PASSCRED) && (err = unix_autobind(u)))
            return err;
        if (!(other = unix_find_other(t, addr, len, s->type, &err)))
            return err;
        if (other->peer && other->peer != u) {
            sock_put(&other->sock);
            return -EPERM;          /* connected elsewhere: it would not take from us */
        }
        s->state = other->sock.state = SS_ESTABLISHED;
    }
    struct unix_sock *old = u->peer;
    u->peer = other;                /* other's reference moves here */
    if (old) {
        if (!other)
            s->state = SS_CLOSE;
        waitq_wake(&s->wq);
        if (other != old) {
            unix_dgram_disconnected(u, old);
            if (!old->peer)
                old->sock.state = SS_CLOSE;
        }
        sock_put(&old->sock);
    }
    return 0;
}

static int unix_accept(struct thread *t, struct socket *s, struct socket **out)
{
    (void)t;
    struct unix_sock *u = unix_sk(s);
    if (s->state != SS_LISTEN)
        return -EINVAL;
    if (list_empty(&u->acceptq))
        return s->shutdown & RCV_SHUTDOWN ? -EINVAL : -EAGAIN;
    struct unix_sock *e = list_entry(u->acceptq.next, struct unix_sock, accept_link);
    list_del(&e->accept_link);
    u->acceptq_len--;
    waitq_wake(&s->wq);             /* room for a connector that waits */
    if (SO_BOOL(s, SO_PASSCRED))
        e->sock.opts |= 1u << SO_PASSCRED;
    *out = &e->sock;                /* the queue's reference is the caller's */
    return 0;
}

static int unix_getname(struct socket *s, char *addr, bool peer)
{
    struct unix_sock *u = unix_sk(s);
    if (peer && !(u = u->peer))
        return -ENOTCONN;
    if (!u->addr) {
        unsigned short family = AF_UNIX;
        memcpy(addr, &family, sizeof family);
        addr[UNIX_ADDR_MIN] = 0;
        return UNIX_ADDR_MIN;
    }
    memcpy(addr, u->addr->name, (size_t)u->addr->len);
    return u->addr->len;
}

static int unix_shutdown(struct socket *s, int how)
{
    if (how < SHUT_RD || how > SHUT_RDWR)
        return -EINVAL;
    unsigned mode = (unsigned)how + 1;
    struct unix_sock *other = unix_sk(s)->peer;
    s->shutdown |= mode;
    waitq_wake(&s->wq);
    if (other && connection_based(s)) {
        unsigned peer_mode = (mode & RCV_SHUTDOWN ? SEND_SHUTDOWN : 0) |
                             (mode & SEND_SHUTDOWN ? RCV_SHUTDOWN : 0);
        other->sock.shutdown |= peer_mode;
        waitq_wake(&other->sock.wq);
    }
    return 0;
}

/* --- readiness ---------------------------------------------------------------------------- */

static unsigned common_mask(struct unix_sock *u)
{
    struct socket *s = &u->sock;
    unsigned mask = 0;
    if (s->shutdown == SHUTDOWN_MASK)
        mask |= POLLHUP;
    if (s->shutdown & RCV_SHUTDOWN)
        mask |= POLLRDHUP | POLLIN | POLLRDNORM;
    if (!list_empty(&u->rq) || !list_empty(&u->acceptq))
        mask |= POLLIN | POLLRDNORM;
    return mask;
}

static unsigned stream_poll(struct socket *s, struct poll_table *pt)
{
    struct unix_sock *u = unix_sk(s);
    poll_wait(pt, &s->wq);
    unsigned mask = common_mask(u) | (s->err ? POLLERR : 0);
    if (s->state == SS_CLOSE)
        mask |= POLLHUP;
    if (s->state != SS_LISTEN && sock_writable(s))
        mask |= POLLOUT | POLLWRNORM | POLLWRBAND;
    return mask;
}

static unsigned dgram_poll(struct socket *s, struct poll_table *pt)
{
    struct unix_sock *u = unix_sk(s), *other = u->peer;
    poll_wait(pt, &s->wq);
    unsigned mask = common_mask(u) | (s->err ? POLLERR : 0);
    if (s->type == SOCK_SEQPACKET && s->state == SS_CLOSE)
        mask |= POLLHUP;
    bool writable = s->state != SS_LISTEN && sock_writable(s);
    if (writable && other && other->peer != u && recvq_full(other) && !other->dead) {
        poll_wait(pt, &other->sock.wq);     /* Linux's peer_wake: its reader makes room */
        writable = false;
    }
    if (writable)
        mask |= POLLOUT | POLLWRNORM | POLLWRBAND;
    return mask;
}

static long unix_ioctl(struct thread *t, struct socket *s, unsigned cmd, l4_word_t arg)
{
    struct unix_sock *u = unix_sk(s);
    int amount = 0;
    switch (cmd) {
    case SIOCOUTQ:
        amount = (int)s->wmem;
        break;
    case SIOCINQ: {
        if (s->state == SS_LISTEN)
            return -EINVAL;
        amount = skb_queue_inq(&u->rq, s->type == SOCK_DGRAM);
        break;
    }
    default:
        return -ENOTTY;
    }
    return copy_to_user(t->mm, arg, &amount, sizeof amount);
}

/* Linux's unix_show_fdinfo: the files in flight to it (a listener: its connections). */
static int unix_show_fdinfo(struct socket *s, char *buf, size_t size)
{
    struct unix_sock *u = unix_sk(s);
    unsigned n = 0;
    if (s->state == SS_LISTEN) {
        n = u->acceptq_len;
    } else {
        struct sk_buff *skb;
        list_each(skb, &u->rq, link)
            n += skb->fp ? skb->fp->count : 0;
    }
    return snprintf(buf, size, "scm_fds: %u\n", n);
}

static const struct proto_ops unix_stream_ops = {
    .family = AF_UNIX, .release = unix_release, .destroy = unix_destroy, .bind = unix_bind,
    .connect = stream_connect, .socketpair = unix_socketpair, .accept = unix_accept,
    .listen = unix_listen, .getname = unix_getname, .poll = stream_poll, .ioctl = unix_ioctl,
    .shutdown = unix_shutdown, .sendmsg = unix_stream_sendmsg, .recvmsg = unix_stream_recvmsg,
    .show_fdinfo = unix_show_fdinfo,
};

static const struct proto_ops unix_dgram_ops = {
    .family = AF_UNIX, .release = unix_release, .destroy = unix_destroy, .bind = unix_bind,
    .connect = dgram_connect, .socketpair = unix_socketpair, .getname = unix_getname,
    .poll = dgram_poll, .ioctl = unix_ioctl, .shutdown = unix_shutdown,
    .sendmsg = unix_dgram_sendmsg, .recvmsg = unix_dgram_recvmsg,
    .show_fdinfo = unix_show_fdinfo,
};

static const struct proto_ops unix_seqpacket_ops = {
    .family = AF_UNIX, .release = unix_release, .destroy = unix_destroy, .bind = unix_bind,
    .connect = stream_connect, .socketpair = unix_socketpair, .accept = unix_accept,
    .listen = unix_listen, .getname = unix_getname, .poll = dgram_poll, .ioctl = unix_ioctl,
    .shutdown = unix_shutdown, .sendmsg = unix_seqpacket_sendmsg,
    .recvmsg = unix_seqpacket_recvmsg, .show_fdinfo = unix_show_fdinfo,
};

const struct net_family unix_family = {
    .family = AF_UNIX, .obj_size = sizeof(struct unix_sock), .create = unix_create,
};
