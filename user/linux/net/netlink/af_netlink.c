/* AF_NETLINK (docs/linux/sockets.md, "AF_NETLINK"), after Linux's net/netlink/af_netlink.c:
 * NETLINK_ROUTE sockets of type SOCK_RAW or SOCK_DGRAM, bound to a port id (the process's
 * tgid first, then negative ids), datagrams between them, and requests to the kernel side
 * (port id 0), which rtnetlink.c answers at once into the sender's queue. */
#include "net/netlink/netlink.h"
#include "net/skb.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "task/process.h"
#include "vfs/poll.h"
#include <string.h>

#define MAX_LINKS       32          /* netlink protocols */
#define SOCKADDR_NL_LEN 12
#define CAP_NET_ADMIN   12
#define NETLINK_CAP_ACK 10
#define NETLINK_EXT_ACK 11

struct sockaddr_nl_ {
    uint16_t family, pad;
    uint32_t pid, groups;
};

static struct list bound = LIST_INIT(bound);   /* bound sockets, by link */
static int32_t rover = -4096;       /* Linux's next negative port id */

static const struct proto_ops netlink_ops;

static struct netlink_sock *lookup(uint32_t portid)
{
    struct netlink_sock *ns;
    list_each(ns, &bound, link)
        if (ns->portid == portid)
            return ns;
    return NULL;
}

static int insert(struct netlink_sock *ns, uint32_t portid)
{
    if (lookup(portid))
        return -EADDRINUSE;
    if (ns->bound)
        return -EBUSY;
    ns->portid = portid;
    ns->bound = true;
    list_add_tail(&bound, &ns->link);
    return 0;
}

/* Linux's netlink_autobind: the tgid, else the next free negative id. */
static int autobind(struct thread *t, struct netlink_sock *ns)
{
    int32_t id = (int32_t)t->proc->pid->nr;
    while (lookup((uint32_t)id)) {
        id = rover--;
        if (rover > -4096)
            rover = -4097;
    }
    return insert(ns, (uint32_t)id);
}

static void purge(struct list *q, struct netlink_sock *ns)
{
    while (!list_empty(q)) {
        struct sk_buff *skb = list_entry(q->next, struct sk_buff, link);
        if (q == &ns->rq)
            ns->rmem -= skb->truesize;
        skb_free(skb);
    }
}

static void netlink_release(struct socket *s)
{
    struct netlink_sock *ns = nlk_sk(s);
    ns->dead = true;
    if (ns->bound)
        list_del(&ns->link);
    ns->bound = false;
    purge(&ns->rq, ns);
    purge(&ns->dumpq, ns);
    ns->dump_running = false;
}

static void netlink_destroy(struct socket *s)
{
    netlink_release(s);
}

static bool allowed(struct thread *t)
{
    return cred_capable(&t->proc->cred, CAP_NET_ADMIN);
}

/* Linux's netlink_bind: the groups (NETLINK_ROUTE lets anyone listen), then the port id. */
static int netlink_bind(struct thread *t, struct socket *s, const char *sa, int len)
{
    struct netlink_sock *ns = nlk_sk(s);
    struct sockaddr_nl_ a;
    if (len < SOCKADDR_NL_LEN)
        return -EINVAL;
    memcpy(&a, sa, sizeof a);
    if (a.family != AF_NETLINK)
        return -EINVAL;
    if (ns->bound && a.pid != ns->portid)
        return -EINVAL;
    if (!ns->bound) {
        int err = a.pid ? insert(ns, a.pid) : autobind(t, ns);
        if (err)
            return err;
    }
    if (a.groups || ns->groups)
        ns->groups = a.groups;
    return 0;
}

static long netlink_connect(struct thread *t, struct socket *s, const char *sa, int len,
                            bool nonblock)
{
    (void)nonblock;
    struct netlink_sock *ns = nlk_sk(s);
    struct sockaddr_nl_ a;
    if (len < (int)sizeof(uint16_t))
        return -EINVAL;
    memcpy(&a.family, sa, sizeof a.family);
    if (a.family == AF_UNSPEC) {
        ns->connected = false;
        ns->dst_portid = ns->dst_group = 0;
        return 0;
    }
    if (a.family != AF_NETLINK || len < SOCKADDR_NL_LEN)
        return -EINVAL;
    memcpy(&a, sa, sizeof a);
    if ((a.groups || a.pid) && !allowed(t))
        return -EPERM;
    if (!ns->bound) {
        int err = autobind(t, ns);
        if (err)
            return err;
    }
    ns->connected = true;
    ns->dst_portid = a.pid;
    ns->dst_group = (uint32_t)__builtin_ffs((int)a.groups);
    return 0;
}

static int netlink_getname(struct socket *s, char *addr, bool peer)
{
    struct netlink_sock *ns = nlk_sk(s);
    struct sockaddr_nl_ a = { .family = AF_NETLINK };
    if (peer) {
        a.pid = ns->dst_portid;
        a.groups = ns->dst_group ? 1u << (ns->dst_group - 1) : 0;
    } else {
        a.pid = ns->portid;
        a.groups = ns->groups;
    }
    memcpy(addr, &a, sizeof a);
    return SOCKADDR_NL_LEN;
}

/* A datagram into to's queue from portid (0: the kernel) with the sender's credentials. */
static void enqueue(struct netlink_sock *to, struct sk_buff *skb, uint32_t portid,
                    uint32_t group, struct ucred creds)
{
    struct sockaddr_nl_ a = { .family = AF_NETLINK, .pid = portid,
                              .groups = group ? 1u << (group - 1) : 0 };
    memcpy(skb->src, &a, sizeof a);
    skb->srclen = SOCKADDR_NL_LEN;
    skb->creds = creds;
    list_add_tail(&to->rq, &skb->link);
    to->rmem += skb->truesize;
    waitq_wake(&to->sock.wq);
}

bool netlink_kernel_send(struct netlink_sock *ns, const void *data, l4_word_t len, bool dump)
{
    if (ns->dead)
        return true;
    struct uio_seg seg = { (l4_word_t)data, len };
    struct uio u;
    uio_init(&u, NULL, &seg, 1);
    int err;
    struct sk_buff *skb = skb_alloc_orphan(&ns->sock, &u, len, &err);
    if (!skb)
        return false;
    if (dump && ns->dump_running) {
        list_add_tail(&ns->dumpq, &skb->link);
        return true;
    }
    if (!dump && ns->rmem > (l4_word_t)ns->sock.rcvbuf) {
        ns->sock.err = ENOBUFS;     /* Linux's netlink_overrun */
        skb_free(skb);
        waitq_wake(&ns->sock.wq);
        return true;
    }
    enqueue(ns, skb, 0, 0, (struct ucred){ 0, 0, 0 });
    return true;
}

/* Linux's netlink_dump after a read: the dump's next datagram when half the buffer is free.
 * A dump whose datagrams could not be made (no memory) has none left: it is over. */
static void dump_continue(struct netlink_sock *ns)
{
    if (ns->dump_running && list_empty(&ns->dumpq))
        ns->dump_running = false;
    if (!ns->dump_running || ns->rmem > (l4_word_t)ns->sock.rcvbuf / 2)
        return;
    struct sk_buff *skb = list_entry(ns->dumpq.next, struct sk_buff, link);
    list_del(&skb->link);
    enqueue(ns, skb, 0, 0, (struct ucred){ 0, 0, 0 });
    if (list_empty(&ns->dumpq))
        ns->dump_running = false;
}

static long to_kernel(struct thread *t, struct netlink_sock *ns, struct uio *u, l4_word_t len)
{
    static char req[NETLINK_KERNEL_REQ_MAX];
    if (len > sizeof req)
        return -ENOBUFS;
    if (uio_copy_in(u, req, len) < len)
        return -EFAULT;
    rtnl_input(ns, req, len, allowed(t));
    /* a dump's first datagram goes in at once (Linux's __netlink_dump_start) */
    if (ns->dump_running && !list_empty(&ns->dumpq))
        dump_continue(ns);
    return (long)len;
}

/* Linux's netlink_sendmsg and netlink_unicast. */
static long netlink_sendmsg(struct thread *t, struct socket *s, struct sock_msg *m, int flags)
{
    struct netlink_sock *ns = nlk_sk(s);
    l4_word_t len = m->u->resid;
    uint32_t dst_portid = ns->dst_portid, dst_group = ns->dst_group;
    if (flags & MSG_OOB)
        return -EOPNOTSUPP;
    if (m->name) {
        struct sockaddr_nl_ a;
        if (m->namelen < SOCKADDR_NL_LEN)
            return -EINVAL;
        memcpy(&a, m->name, sizeof a);
        if (a.family != AF_NETLINK)
            return -EINVAL;
        dst_portid = a.pid;
        dst_group = (uint32_t)__builtin_ffs((int)a.groups);
        if ((dst_group || dst_portid) && !allowed(t))
            return -EPERM;
    }
    if (!ns->bound) {
        int err = autobind(t, ns);
        if (err)
            return err;
    }
    if (len > (l4_word_t)s->sndbuf - 32)
        return -EMSGSIZE;
    if (dst_group) {                /* to every listener of the group but the sender */
        struct uio start = *m->u;
        struct netlink_sock *to;
        list_each(to, &bound, link) {
            if (to == ns || !(to->groups & (1u << (dst_group - 1))) ||
                to->rmem > (l4_word_t)to->sock.rcvbuf)
                continue;
            int err;
            *m->u = start;
            struct sk_buff *skb = skb_alloc_orphan(s, m->u, len, &err);
            if (!skb)
                return err;
            enqueue(to, skb, ns->portid, dst_group, sock_current_creds(t));
        }
        *m->u = start;
    }
    if (!dst_portid)
        return to_kernel(t, ns, m->u, len);
    struct netlink_sock *to = lookup(dst_portid);
    if (!to || (to->connected && to->dst_portid != ns->portid))
        return -ECONNREFUSED;
    if (to->rmem > (l4_word_t)to->sock.rcvbuf) {
        m->wait = &to->sock.wq;     /* a read there makes room */
        return -EAGAIN;
    }
    int err;
    struct sk_buff *skb = skb_alloc_orphan(s, m->u, len, &err);
    if (!skb)
        return err;
    enqueue(to, skb, ns->portid, 0, sock_current_creds(t));
    return (long)len;
}

/* Linux's netlink_recvmsg: one datagram (MSG_TRUNC: its real length), the source, then the
 * dump in progress goes on. */
static long netlink_recvmsg(struct thread *t, struct socket *s, struct sock_msg *m, int flags)
{
    (void)t;
    struct netlink_sock *ns = nlk_sk(s);
    if (flags & MSG_OOB)
        return -EOPNOTSUPP;
    if (s->err) {
        int e = s->err;
        s->err = 0;
        return -e;
    }
    if (list_empty(&ns->rq))
        return (s->shutdown & RCV_SHUTDOWN) ? 0 : -EAGAIN;
    struct sk_buff *skb = list_entry(ns->rq.next, struct sk_buff, link);
    bool peek = flags & MSG_PEEK;
    if (!peek) {
        list_del(&skb->link);
        ns->rmem -= skb->truesize;
    }
    m->creds = skb->creds;
    m->has_creds = true;
    long r = skb_copy_datagram(skb, m, flags);
    if (!peek) {
        skb_free(skb);
        waitq_wake(&s->wq);         /* senders waiting for room */
    }
    dump_continue(ns);
    return r;
}

static unsigned netlink_poll(struct socket *s, struct poll_table *pt)
{
    struct netlink_sock *ns = nlk_sk(s);
    poll_wait(pt, &s->wq);
    unsigned mask = POLLOUT | POLLWRNORM | POLLWRBAND;
    if (s->err)
        mask |= POLLERR;
    if (!list_empty(&ns->rq))
        mask |= POLLIN | POLLRDNORM;
    return mask;
}

static long netlink_setsockopt(struct thread *t, struct socket *s, int level, int name,
                               l4_word_t uval, unsigned len)
{
    struct netlink_sock *ns = nlk_sk(s);
    if (level != SOL_NETLINK)
        return -ENOPROTOOPT;
    int val = 0;
    if (len >= sizeof(int) && copy_from_user(t->mm, &val, uval, sizeof val))
        return -EFAULT;
    switch (name) {
    case NETLINK_CAP_ACK: ns->cap_ack = val != 0; return 0;
    case NETLINK_EXT_ACK: ns->ext_ack = val != 0; return 0;
    default: return -ENOPROTOOPT;
    }
}

static long netlink_getsockopt(struct thread *t, struct socket *s, int level, int name,
                               l4_word_t uval, l4_word_t ulen)
{
    struct netlink_sock *ns = nlk_sk(s);
    if (level != SOL_NETLINK)
        return -ENOPROTOOPT;
    int len, val;
    if (copy_from_user(t->mm, &len, ulen, sizeof len))
        return -EFAULT;
    if (len < (int)sizeof(int))
        return -EINVAL;
    switch (name) {
    case NETLINK_CAP_ACK: val = ns->cap_ack; break;
    case NETLINK_EXT_ACK: val = ns->ext_ack; break;
    default: return -ENOPROTOOPT;
    }
    len = sizeof val;
    if (copy_to_user(t->mm, uval, &val, sizeof val) || copy_to_user(t->mm, ulen, &len, sizeof len))
        return -EFAULT;
    return 0;
}

static const struct proto_ops netlink_ops = {
    .family = AF_NETLINK, .release = netlink_release, .destroy = netlink_destroy,
    .bind = netlink_bind, .connect = netlink_connect, .getname = netlink_getname,
    .poll = netlink_poll, .sendmsg = netlink_sendmsg, .recvmsg = netlink_recvmsg,
    .setsockopt = netlink_setsockopt, .getsockopt = netlink_getsockopt,
};

/* Linux's netlink_create: SOCK_RAW or SOCK_DGRAM; of the protocols only NETLINK_ROUTE. */
static int netlink_create(struct thread *t, struct socket *s, int protocol)
{
    (void)t;
    struct netlink_sock *ns = nlk_sk(s);
    if (s->type != SOCK_RAW && s->type != SOCK_DGRAM)
        return -ESOCKTNOSUPPORT;
    if (protocol < 0 || protocol >= MAX_LINKS || protocol != NETLINK_ROUTE)
        return -EPROTONOSUPPORT;
    s->protocol = protocol;
    s->ops = &netlink_ops;
    list_init(&ns->link);
    list_init(&ns->rq);
    list_init(&ns->dumpq);
    return 0;
}

const struct net_family netlink_family = {
    .family = AF_NETLINK, .obj_size = sizeof(struct netlink_sock), .create = netlink_create,
};

struct socket *netlink_sock_from_fd(struct thread *t, int fd, int *err)
{
    struct file *f = fd_get(t, fd);
    if (!f) {
        *err = -EBADF;
        return NULL;
    }
    if ((f->inode->mode & S_IFMT) != S_IFSOCK) {
        *err = -ENOTSOCK;
        return NULL;
    }
    struct socket *s = sock_from_fd(t, fd, err);
    if (!s || s->family != AF_NETLINK) {
        *err = -EINVAL;
        return NULL;
    }
    sock_get(s);
    return s;
}
