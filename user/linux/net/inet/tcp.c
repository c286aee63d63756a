/* TCP on lo (docs/linux/sockets.md, "TCP"): Linux's observable semantics without segments.
 * A connect to a listener with room makes the server's end at once (the three-way handshake
 * on lo completes before connect returns) and queues it for accept; the two ends hold each
 * other.  Bytes go straight into the peer's receive queue, bounded by its SO_RCVBUF (the
 * window).  A close with unread data resets the peer (Linux sends RST: ECONNRESET), else
 * the peer reads EOF (FIN); data sent to a closed end comes back as a reset (EPIPE).  The
 * order of checks follows net/ipv4/tcp.c and af_inet.c's __inet_stream_connect. */
#include "net/inet/inet.h"
#include "net/skb.h"
#include "lib/errno.h"
#include "signal/signal.h"
#include "task/process.h"
#include "vfs/poll.h"

#define POLLRDHUP   0x2000
#define TCP_SKB_MAX 65536           /* one message at most (a GSO super-packet on lo) */
#define SO_KEEPALIVE 9
#define SO_LINGER_RST(s) ((s)->linger_on && !(s)->linger_sec)

static void wake(struct inet_sock *is)
{
    waitq_wake(&is->sock.wq);
}

/* is learns its peer reset the connection (err: what its next call says). */
static void reset(struct inet_sock *is, int err)
{
    struct socket *s = &is->sock;
    s->err = err;
    s->shutdown = SHUTDOWN_MASK;
    s->state = SS_CLOSE;
    wake(is);
}

static void drop_peer(struct inet_sock *is)
{
    struct inet_sock *peer = is->peer;
    is->peer = NULL;
    if (peer)
        sock_put(&peer->sock);
}

/* is goes (closed, or never accepted): its peer gets a reset if is leaves unread data
 * (or SO_LINGER 0 asks for one), else a FIN. */
static void tcp_close(struct inet_sock *is, bool rst)
{
    struct socket *s = &is->sock;
    struct inet_sock *peer = is->peer;
    enum sock_state was = s->state;
    if (!list_empty(&is->rq))
        rst = true;
    is->dead = true;
    s->shutdown = SHUTDOWN_MASK;
    s->state = SS_CLOSE;
    inet_port_unbind(is);
    inet_purge(is);
    if (peer && peer->peer == is && !peer->dead) {
        if (rst) {
            reset(peer, ECONNRESET);
        } else {
            peer->fin = true;
            peer->sock.shutdown |= RCV_SHUTDOWN;
            wake(peer);
        }
    }
    drop_peer(is);
    if (was == SS_LISTEN) {
        while (!list_empty(&is->acceptq)) {
            struct inet_sock *e = list_entry(is->acceptq.next, struct inet_sock, accept_link);
            list_del(&e->accept_link);
            is->acceptq_len--;
            tcp_close(e, true);     /* Linux resets connections nobody accepted */
            sock_put(&e->sock);
        }
    }
    wake(is);
}

static void tcp_release(struct socket *s)
{
    tcp_close(inet_sk(s), SO_LINGER_RST(s));
}

static void tcp_destroy(struct socket *s)
{
    drop_peer(inet_sk(s));
    inet_destroy(s);
}

static int tcp_listen(struct thread *t, struct socket *s, int backlog)
{
    (void)t;
    struct inet_sock *is = inet_sk(s);
    if (is->conn != SOCK_UNCONNECTED)
        return -EINVAL;
    if (s->state != SS_CLOSE && s->state != SS_LISTEN)
        return -EINVAL;
    if (s->state == SS_CLOSE) {
        int err = is->port ? inet_port_recheck(is) : inet_autobind(is) ? -EADDRINUSE : 0;
        if (err)
            return err;
        is->fin = false;
        s->shutdown = 0;
        s->state = SS_LISTEN;
    }
    if (backlog > is->backlog)
        wake(is);                   /* room for connectors that wait */
    is->backlog = backlog;
    return 0;
}

/* The server's end of a new connection from is to the listener l. */
static int make_child(struct thread *t, struct inet_sock *is, struct inet_sock *l,
                      const struct in6 *dst)
{
    int err;
    struct socket *ns = sock_create(t, l->sock.family, SOCK_STREAM, 0, &err);
    if (!ns)
        return err;
    struct inet_sock *c = inet_sk(ns);
    ns->opts = l->sock.opts;        /* options a child inherits from its listener */
    ns->sndbuf = l->sock.sndbuf;
    ns->rcvbuf = l->sock.rcvbuf;
    ns->linger_on = l->sock.linger_on;
    ns->linger_sec = l->sock.linger_sec;
    c->nodelay = l->nodelay;
    c->keepidle = l->keepidle;
    c->keepintvl = l->keepintvl;
    c->keepcnt = l->keepcnt;
    c->v6only = l->v6only;
    c->laddr = *dst;
    c->raddr = is->laddr;
    c->rport = is->port;
    inet_port_inherit(c, l->port);
    ns->state = SS_ESTABLISHED;
    c->conn = SOCK_CONNECTED;
    c->peer = is;
    sock_get(&is->sock);
    is->peer = c;
    sock_get(ns);
    list_add_tail(&l->acceptq, &c->accept_link);    /* ns's first reference */
    l->acceptq_len++;
    wake(l);
    return 0;
}

/* Linux's tcp_v4_connect/tcp_v6_connect and the handshake: 0 (established), -ECONNREFUSED
 * (the reset that answers a SYN to nobody), -EAGAIN (the listener's queue is full: *l
 * names it) or an error of the address. */
static int handshake(struct thread *t, struct inet_sock *is, const char *sa, int len,
                     struct inet_sock **full)
{
    struct socket *s = &is->sock;
    struct in6 dst, src;
    uint16_t port;
    int err = inet_connect_route(is, sa, len, &dst, &port, &src);
    if (err)
        return err;
    if (!is->bind_addr_lock)        /* an address bind fixed stays */
        is->laddr = src;
    if (!is->port && inet_port_bind(is, &is->laddr, 0))
        return -EADDRNOTAVAIL;
    is->raddr = dst;
    is->rport = port;
    struct inet_sock *l = inet_lookup(INET_TCP, &dst, port, &is->laddr, is->port, true);
    if (!l || (l->sock.shutdown & RCV_SHUTDOWN))
        return -ECONNREFUSED;
    if (l->acceptq_len > (unsigned)l->backlog) {
        *full = l;
        return -EAGAIN;
    }
    if ((err = make_child(t, is, l, &dst)))
        return err;
    s->state = SS_ESTABLISHED;
    wake(is);
    return 0;
}

/* An established connection ends by our side (connect's AF_UNSPEC): Linux's tcp_disconnect
 * resets the peer. */
static void disconnect(struct inet_sock *is)
{
    struct socket *s = &is->sock;
    if (is->peer && s->state == SS_ESTABLISHED && !is->peer->dead)
        reset(is->peer, ECONNRESET);
    drop_peer(is);
    inet_purge(is);
    s->state = SS_CLOSE;
    s->shutdown = 0;
    is->fin = false;
    is->rport = 0;
    if (!is->bind_port_lock)
        inet_port_unbind(is);
    wake(is);
}

static long tcp_connect(struct thread *t, struct socket *s, const char *sa, int len,
                        bool nonblock)
{
    struct inet_sock *is = inet_sk(s);
    if (len < (int)sizeof(uint16_t))
        return -EINVAL;
    uint16_t family;
    __builtin_memcpy(&family, sa, sizeof family);
    if (family == AF_UNSPEC) {
        if (s->state == SS_LISTEN) {
            tcp_close(is, true);
            is->dead = false;
            s->shutdown = 0;
        } else {
            disconnect(is);
        }
        is->conn = SOCK_UNCONNECTED;
        return 0;
    }
    switch (is->conn) {
    case SOCK_CONNECTED:
        return -EISCONN;
    case SOCK_CONNECTING:           /* the handshake of an earlier call is over: its result */
        if (s->state == SS_CLOSE) {
            is->conn = SOCK_UNCONNECTED;
            s->shutdown = 0;        /* Linux's tcp_disconnect */
            int err = inet_take_error(s);
            return err ? err : -ECONNABORTED;
        }
        is->conn = SOCK_CONNECTED;
        return 0;
    default:
        break;
    }
    if (s->state != SS_CLOSE)
        return -EISCONN;
    struct inet_sock *full = NULL;
    int r = handshake(t, is, sa, len, &full);
    if (r == -EAGAIN) {             /* Linux's SYN is dropped and sent again: we wait */
        if (nonblock || !s->sndtimeo)
            return -EAGAIN;
        return sock_wait(t, s, &full->sock.wq, true);
    }
    if (r == -ECONNREFUSED) {
        s->state = SS_CLOSE;
        if (nonblock) {             /* the reset comes after connect returned */
            s->err = ECONNREFUSED;
            s->shutdown = SHUTDOWN_MASK;
            is->conn = SOCK_CONNECTING;
            wake(is);
            return -EINPROGRESS;
        }
        return r;
    }
    if (r)
        return r;
    is->conn = nonblock ? SOCK_CONNECTING : SOCK_CONNECTED;
    return nonblock ? -EINPROGRESS : 0;
}

static int tcp_accept(struct thread *t, struct socket *s, struct socket **out)
{
    (void)t;
    struct inet_sock *is = inet_sk(s);
    if (s->state != SS_LISTEN)
        return -EINVAL;
    if (list_empty(&is->acceptq))
        return -EAGAIN;
    struct inet_sock *e = list_entry(is->acceptq.next, struct inet_sock, accept_link);
    list_del(&e->accept_link);
    is->acceptq_len--;
    wake(is);                       /* room for a connector that waits */
    *out = &e->sock;                /* the queue's reference is the caller's */
    return 0;
}

static int tcp_shutdown(struct socket *s, int how)
{
    struct inet_sock *is = inet_sk(s);
    unsigned mode = (unsigned)how + 1;
    if (how < SHUT_RD || how > SHUT_RDWR)
        return -EINVAL;
    if (is->conn == SOCK_CONNECTING)
        is->conn = SOCK_CONNECTED;
    if (s->state == SS_LISTEN) {
        if (mode & RCV_SHUTDOWN) {  /* Linux's tcp_disconnect of a listener */
            tcp_close(is, true);
            is->dead = false;
            s->shutdown = 0;
            is->conn = SOCK_UNCONNECTED;
        }
        return 0;
    }
    unsigned was = s->shutdown;
    s->shutdown |= mode;
    if (s->state == SS_CLOSE) {
        wake(is);
        return -ENOTCONN;
    }
    struct inet_sock *peer = is->peer;
    if ((mode & SEND_SHUTDOWN) && !(was & SEND_SHUTDOWN) && peer && !peer->dead) {
        peer->fin = true;           /* our FIN */
        peer->sock.shutdown |= RCV_SHUTDOWN;
        wake(peer);
    }
    wake(is);
    return 0;
}

/* --- bytes ------------------------------------------------------------------------------- */

static long stream_error(struct thread *t, struct socket *s, int flags)
{
    int err = inet_take_error(s);
    if (!err)
        err = -EPIPE;
    if (err == -EPIPE && !(flags & MSG_NOSIGNAL))
        signal_raise(t, SIGPIPE);
    return err;
}

static bool peer_has_room(const struct inet_sock *peer)
{
    return peer->rmem < (l4_word_t)peer->sock.rcvbuf;
}

static long tcp_sendmsg(struct thread *t, struct socket *s, struct sock_msg *m, int flags)
{
    struct inet_sock *is = inet_sk(s);
    if (s->state != SS_ESTABLISHED || s->err || (s->shutdown & SEND_SHUTDOWN))
        return stream_error(t, s, flags);
    struct inet_sock *peer = is->peer;
    l4_word_t sent = 0;
    while (m->u->resid) {
        if (!peer || peer->dead) {
            /* the bytes go, and the closed end answers with a reset */
            sent += uio_discard(m->u, m->u->resid);
            reset(is, is->fin ? EPIPE : ECONNRESET);
            break;
        }
        if (!peer_has_room(peer)) {
            m->wait = &peer->sock.wq;
            return -EAGAIN;         /* the core waits, or answers what was sent */
        }
        l4_word_t size = m->u->resid < TCP_SKB_MAX ? m->u->resid : TCP_SKB_MAX;
        int err;
        struct sk_buff *skb = skb_alloc(s, size, &err);
        if (!skb)
            return sent ? (long)sent : err;
        if (!skb_copy(skb, 0, m->u, size, true)) {
            skb_free(skb);
            return sent ? (long)sent : -EFAULT;
        }
        skb_orphan(skb);
        list_add_tail(&peer->rq, &skb->link);
        peer->rmem += skb->truesize;
        wake(peer);
        sent += size;
    }
    return (long)sent;
}

static long tcp_recvmsg(struct thread *t, struct socket *s, struct sock_msg *m, int flags)
{
    (void)t;
    struct inet_sock *is = inet_sk(s);
    if (s->state == SS_LISTEN)
        return -ENOTCONN;
    if (flags & MSG_OOB)
        return -EINVAL;             /* no urgent byte is ever waiting (docs) */
    l4_word_t size = m->u->resid;
    l4_word_t target = flags & MSG_WAITALL ? size :
                       (l4_word_t)s->rcvlowat < size ? (l4_word_t)s->rcvlowat : size;
    if (!target)
        target = 1;
    bool peek = flags & MSG_PEEK;
    l4_word_t copied = 0;
    struct sk_buff *skb = list_first(&is->rq, struct sk_buff, link);
    while (size) {
        if (!skb)
            break;
        l4_word_t off = skb->consumed;
        l4_word_t chunk = skb->len - off;
        if (chunk > size)
            chunk = size;
        if (flags & MSG_TRUNC) {
            uio_discard(m->u, chunk);           /* Linux: the bytes are dropped unread */
        } else if (!skb_copy(skb, off, m->u, chunk, false)) {
            if (!copied)
                return -EFAULT;
            break;
        }
        copied += chunk;
        size -= chunk;
        if (peek) {
            skb = skb->link.next != &is->rq ? list_entry(skb->link.next, struct sk_buff, link)
                                            : NULL;
            continue;
        }
        skb->consumed += chunk;
        if (skb->consumed < skb->len)
            break;
        is->rmem -= skb->truesize;
        skb_free(skb);
        wake(is);                   /* room in our window: the peer's writers */
        skb = list_first(&is->rq, struct sk_buff, link);
    }
    if (copied >= target || (copied && (s->err || s->state == SS_CLOSE ||
                                         (s->shutdown & RCV_SHUTDOWN))))
        return (long)copied;
    if (!copied) {
        if (is->fin)
            return 0;
        int err = inet_take_error(s);
        if (err)
            return err;
        if (s->shutdown & RCV_SHUTDOWN)
            return 0;
        if (s->state == SS_CLOSE)
            return -ENOTCONN;
    }
    return -EAGAIN;                 /* short of the target: the core waits or answers copied */
}

static unsigned tcp_poll(struct socket *s, struct poll_table *pt)
{
    struct inet_sock *is = inet_sk(s);
    poll_wait(pt, &s->wq);
    if (s->state == SS_LISTEN)
        return list_empty(&is->acceptq) ? 0 : POLLIN | POLLRDNORM;
    unsigned mask = 0;
    if (s->shutdown == SHUTDOWN_MASK || s->state == SS_CLOSE)
        mask |= POLLHUP;
    if (s->shutdown & RCV_SHUTDOWN)
        mask |= POLLIN | POLLRDNORM | POLLRDHUP;
    if (!list_empty(&is->rq))
        mask |= POLLIN | POLLRDNORM;
    struct inet_sock *peer = is->peer;
    if (!(s->shutdown & SEND_SHUTDOWN) && peer && !peer->dead && !peer_has_room(peer))
        poll_wait(pt, &peer->sock.wq);
    else
        mask |= POLLOUT | POLLWRNORM;
    if (s->err)
        mask |= POLLERR;
    return mask;
}

const struct proto_ops tcp_ops = {
    .family = AF_INET, .release = tcp_release, .destroy = tcp_destroy, .bind = inet_bind,
    .connect = tcp_connect, .accept = tcp_accept, .listen = tcp_listen,
    .getname = inet_getname, .poll = tcp_poll, .ioctl = inet_ioctl, .shutdown = tcp_shutdown,
    .sendmsg = tcp_sendmsg, .recvmsg = tcp_recvmsg, .setsockopt = inet_setsockopt,
    .getsockopt = inet_getsockopt,
};
