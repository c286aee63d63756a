/* AF_UNIX messages (docs/linux/sockets.md, "Sending and receiving"): what Linux's
 * unix_stream_sendmsg, unix_stream_read_generic and unix_dgram_sendmsg/recvmsg do, in their
 * order of checks, without waiting: an operation that would wait answers -EAGAIN and names
 * the queue (the core parks a blocking caller there and runs the call again).  A message
 * sits in the receiver's queue and counts against its sender's send buffer (Linux's
 * truesize) until it is read; a stream sender cuts its bytes into messages of at most half
 * its buffer, as Linux does. */
#include "net/unix/af_unix.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "net/skb.h"
#include "signal/signal.h"
#include "task/process.h"
#include <string.h>

#define STREAM_SKB_MAX (3776 + 32768)   /* SKB_MAX_HEAD(0) + UNIX_SKB_FRAGS_SZ */

static void enqueue(struct unix_sock *to, struct sk_buff *skb)
{
    list_add_tail(&to->rq, &skb->link);
    to->rq_len++;
    waitq_wake(&to->sock.wq);
}

static void dequeue_free(struct unix_sock *u, struct sk_buff *skb)
{
    u->rq_len--;
    skb_free(skb);
    waitq_wake(&u->sock.wq);        /* senders waiting for room in the queue */
}

void unix_purge(struct unix_sock *u)
{
    while (!list_empty(&u->rq))
        dequeue_free(u, list_entry(u->rq.next, struct sk_buff, link));
}

void unix_dgram_disconnected(struct unix_sock *u, struct unix_sock *other)
{
    if (list_empty(&u->rq))
        return;
    unix_purge(u);
    if (!other->dead && other->peer == u) {
        other->sock.err = ECONNRESET;   /* messages of a two-way pair are lost: say so */
        waitq_wake(&other->sock.wq);
    }
}

static int take_error(struct socket *s)
{
    int e = s->err;
    s->err = 0;
    return -e;
}

static void stamp(struct thread *t, struct sk_buff *skb, const struct sock_msg *m)
{
    skb->creds = m->has_creds ? m->creds : sock_current_creds(t);
}

static bool recvq_full(const struct unix_sock *u)
{
    return u->rq_len > (unsigned)u->backlog;
}

/* --- datagrams and seqpackets ----------------------------------------------------------- */

long unix_dgram_sendmsg(struct thread *t, struct socket *s, struct sock_msg *m, int flags)
{
    struct unix_sock *u = unix_sk(s), *other = NULL;
    struct sk_buff *skb = NULL;
    int err;
    if (flags & MSG_OOB)
        return -EOPNOTSUPP;
    if (m->name) {
        if ((err = unix_validate_addr(m->name, m->namelen)))
            return err;
    } else {
        if (!(other = u->peer))
            return -ENOTCONN;
        sock_get(&other->sock);
    }
    l4_word_t len = m->u->resid;
    struct uio before = *m->u;      /* a datagram goes whole or not at all */
    if (SO_BOOL(s, SO_PASSCRED) && (err = unix_autobind(u)))
        goto out;
    err = -EMSGSIZE;
    if ((long)len > (long)s->sndbuf - 32)
        goto out;
    /* sock_alloc_send_pskb: the pending error, a shut-down sender, room in the buffer */
    if ((err = take_error(s)) || (err = s->shutdown & SEND_SHUTDOWN ? -EPIPE : 0))
        goto out;
    if (!sock_wmem_room(s)) {
        err = -EAGAIN;
        goto out;
    }
    if (!(skb = skb_alloc(&u->sock, len, &err)))
        goto out;
    err = -EFAULT;
    if (!skb_copy(skb, 0, m->u, len, true))
        goto out;
    if (!other && !(other = unix_find_other(t, m->name, m->namelen, s->type, &err)))
        goto out;
    err = -EPERM;
    if (other->peer && other->peer != u)
        goto out;                   /* it is connected to another: it takes only from that */
    if (other->dead) {
        if (s->type == SOCK_SEQPACKET) {
            err = -EPIPE;
        } else if (u->peer == other) {
            u->peer = NULL;
            s->state = SS_CLOSE;
            unix_dgram_disconnected(u, other);
            sock_put(&other->sock);
            err = -ECONNREFUSED;
        } else {
            err = -ECONNRESET;
        }
        goto out;
    }
    err = -EPIPE;
    if (other->sock.shutdown & RCV_SHUTDOWN)
        goto out;
    if (other != u && other->peer != u && recvq_full(other)) {
        m->wait = &other->sock.wq;  /* its reader makes room */
        err = -EAGAIN;
        goto out;
    }
    stamp(t, skb, m);
    skb->fp = m->fp;
    m->fp = NULL;
    enqueue(other, skb);
    skb = NULL;
    err = (int)len;
out:
    if (skb) {
        skb_free(skb);
        *m->u = before;
    }
    if (other)
        sock_put(&other->sock);
    return err;
}

long unix_seqpacket_sendmsg(struct thread *t, struct socket *s, struct sock_msg *m, int flags)
{
    int err = take_error(s);
    if (err)
        return err;
    if (s->state != SS_ESTABLISHED)
        return -ENOTCONN;
    m->name = NULL;                 /* the peer's, whatever was given */
    return unix_dgram_sendmsg(t, s, m, flags);
}

static void copy_addr(struct sock_msg *m, struct unix_sock *from)
{
    if (m->name && from->addr) {
        memcpy(m->name, from->addr->name, (size_t)from->addr->len);
        m->namelen = from->addr->len;
    }
}

long unix_dgram_recvmsg(struct thread *t, struct socket *s, struct sock_msg *m, int flags)
{
    (void)t;
    struct unix_sock *u = unix_sk(s);
    if (flags & MSG_OOB)
        return -EOPNOTSUPP;
    int err = take_error(s);
    if (err)
        return err;
    if (list_empty(&u->rq)) {
        if (!(flags & MSG_DONTWAIT)) {      /* __skb_wait_for_more_packets' checks */
            if (s->shutdown & RCV_SHUTDOWN)
                return 0;
            if (s->type == SOCK_SEQPACKET && s->state != SS_ESTABLISHED)
                return -ENOTCONN;
        } else if (s->type == SOCK_SEQPACKET && (s->shutdown & RCV_SHUTDOWN)) {
            return 0;               /* EOF of a disconnected non-blocking seqpacket */
        }
        return -EAGAIN;
    }
    struct sk_buff *skb = list_entry(u->rq.next, struct sk_buff, link);
    bool peek = flags & MSG_PEEK;
    if (!peek) {
        list_del(&skb->link);       /* taken: a fault below loses it, as in Linux */
        u->rq_len--;
        waitq_wake(&s->wq);
    }
    copy_addr(m, unix_sk(skb->from));
    l4_word_t size = m->u->resid;
    if (size > skb->len)
        size = skb->len;
    else if (size < skb->len)
        m->flags |= MSG_TRUNC;
    long r = -EFAULT;
    if (skb_copy(skb, 0, m->u, size, false)) {
        m->creds = skb->creds;
        m->has_creds = true;
        if (!peek) {
            m->fp = skb->fp;
            skb->fp = NULL;
        } else if (skb->fp) {
            m->fp = scm_fp_dup(skb->fp);
        }
        r = flags & MSG_TRUNC ? (long)skb->len : (long)size;
    }
    if (!peek)
        skb_free(skb);
    return r;
}

long unix_seqpacket_recvmsg(struct thread *t, struct socket *s, struct sock_msg *m, int flags)
{
    if (s->state != SS_ESTABLISHED)
        return -ENOTCONN;
    return unix_dgram_recvmsg(t, s, m, flags);
}

/* --- streams -------------------------------------------------------------------------------- */

long unix_stream_sendmsg(struct thread *t, struct socket *s, struct sock_msg *m, int flags)
{
    struct unix_sock *u = unix_sk(s), *other = u->peer;
    if (flags & MSG_OOB)
        return -EOPNOTSUPP;
    if (m->name)
        return s->state == SS_ESTABLISHED ? -EISCONN : -EOPNOTSUPP;
    if (!other)
        return -ENOTCONN;
    if (s->shutdown & SEND_SHUTDOWN) {
        if (!(flags & MSG_NOSIGNAL))
            signal_raise(t, SIGPIPE);
        return -EPIPE;
    }
    bool fds_sent = t->park.u.io.done > 0;     /* an earlier run sent them */
    l4_word_t sent = 0;
    int err = 0;
    while (m->u->resid) {
        l4_word_t size = m->u->resid, half = (l4_word_t)(s->sndbuf >> 1) - 64;
        if (size > half)
            size = half;
        if (size > STREAM_SKB_MAX)
            size = STREAM_SKB_MAX;
        if ((err = take_error(s)) || (err = s->shutdown & SEND_SHUTDOWN ? -EPIPE : 0))
            break;
        if (!sock_wmem_room(s)) {
            err = -EAGAIN;
            m->wait = &s->wq;
            break;
        }
        struct sk_buff *skb = skb_alloc(&u->sock, size, &err);
        if (!skb)
            break;
        struct uio before = *m->u;
        if (!skb_copy(skb, 0, m->u, size, true)) {
            skb_free(skb);
            err = -EFAULT;
            break;
        }
        if (other->dead || (other->sock.shutdown & RCV_SHUTDOWN)) {
            skb_free(skb);
            *m->u = before;         /* not sent */
            if (!sent && !(flags & MSG_NOSIGNAL))
                signal_raise(t, SIGPIPE);
            err = -EPIPE;
            break;
        }
        stamp(t, skb, m);
        if (!fds_sent) {
            skb->fp = m->fp;
            m->fp = NULL;
            fds_sent = true;
        }
        enqueue(other, skb);
        sent += size;
    }
    if (err == -EAGAIN)
        return err;                 /* the core waits, or answers what was sent */
    return sent ? (long)sent : err;
}

static bool creds_eq(const struct ucred *a, const struct ucred *b)
{
    return a->pid == b->pid && a->uid == b->uid && a->gid == b->gid;
}

long unix_stream_recvmsg(struct thread *t, struct socket *s, struct sock_msg *m, int flags)
{
    (void)t;
    struct unix_sock *u = unix_sk(s);
    if (s->state != SS_ESTABLISHED)
        return -EINVAL;
    if (flags & MSG_OOB)
        return -EINVAL;             /* no out-of-band byte is waiting */
    l4_word_t size = m->u->resid;
    l4_word_t target = flags & MSG_WAITALL ? size :
                       (l4_word_t)s->rcvlowat < size ? (l4_word_t)s->rcvlowat : size;
    if (!target)
        target = 1;
    bool peek = flags & MSG_PEEK, check_creds = false;
    l4_word_t copied = 0;
    int err = 0;
    struct sk_buff *skb = list_first(&u->rq, struct sk_buff, link);
    for (;;) {
        if (!skb) {
            if (copied >= target)
                break;
            if ((err = take_error(s)) || (s->shutdown & RCV_SHUTDOWN))
                break;
            err = -EAGAIN;
            break;
        }
        if (check_creds) {
            if (!creds_eq(&skb->creds, &m->creds))
                break;              /* never glue messages of different senders */
        } else if (SO_BOOL(s, SO_PASSCRED)) {
            m->creds = skb->creds;
            m->has_creds = check_creds = true;
        }
        copy_addr(m, unix_sk(skb->from));
        l4_word_t chunk = skb->len - skb->consumed;
        if (chunk > size)
            chunk = size;
        if (!skb_copy(skb, skb->consumed, m->u, chunk, false)) {
            if (!copied)
                err = -EFAULT;
            break;
        }
        copied += chunk;
        size -= chunk;
        if (!peek) {
            skb->consumed += chunk;
            if (skb->fp && !m->fp) {
                m->fp = skb->fp;
                skb->fp = NULL;
            }
            if (skb->consumed < skb->len)
                break;
            dequeue_free(u, skb);
            if (m->fp)
                break;
            skb = list_first(&u->rq, struct sk_buff, link);
        } else {
            if (skb->fp) {
                m->fp = scm_fp_dup(skb->fp);
                break;
            }
            skb = skb->link.next != &u->rq ? list_entry(skb->link.next, struct sk_buff, link)
                                           : NULL;
            if (!skb)
                break;
        }
        if (!size)
            break;
    }
    if (err == -EAGAIN)
        return err;                 /* short of the target: the core waits or answers copied */
    return copied ? (long)copied : err;
}
