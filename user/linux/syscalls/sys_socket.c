/* The socket calls (docs/linux/sockets.md): thin handlers in Linux's order of checks
 * (net/socket.c: fd lookups, addresses and msghdrs copied in, control data, the address
 * written back as move_addr_to_user does); the socket layer (net/socket.h) does the rest. */
#include "syscalls/sys_socket.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "net/socket.h"
#include "task/process.h"
#include <string.h>

#define UIO_MAXIOV     1024
#define MAX_RW_COUNT   0x7ffff000ul
#define OPTMEM_MAX     20480        /* net.core.optmem_max: the largest control data */
#define MSG_WAITFORONE 0x10000

struct user_msghdr {
    l4_word_t name;
    int namelen;
    l4_word_t iov, iovlen, control, controllen;
    int flags;
};
struct user_mmsghdr {
    struct user_msghdr hdr;
    unsigned len;
};

static char kaddr[SOCK_ADDR_MAX];
static char ctl[OPTMEM_MAX];
static struct uio_seg iovs[UIO_MAXIOV];

/* Linux's move_addr_to_kernel. */
static int addr_in(struct thread *t, l4_word_t uaddr, int len)
{
    memset(kaddr, 0, sizeof kaddr);
    if (len < 0 || len > SOCK_ADDR_MAX)
        return -EINVAL;
    if (len && copy_from_user(t->mm, kaddr, uaddr, (size_t)len))
        return -EFAULT;
    return 0;
}

/* Linux's move_addr_to_user: as much as the caller has room for, and the full length. */
static int addr_out(struct thread *t, const char *addr, int klen, l4_word_t uaddr, l4_word_t ulen)
{
    int len;
    if (copy_from_user(t->mm, &len, ulen, sizeof len))
        return -EFAULT;
    if (len > klen)
        len = klen;
    if (len < 0)
        return -EINVAL;
    if (len && copy_to_user(t->mm, uaddr, addr, (size_t)len))
        return -EFAULT;
    return copy_to_user(t->mm, ulen, &klen, sizeof klen);
}

static struct socket *lookup(struct thread *t, l4_word_t fd, int *err)
{
    return sock_from_fd(t, (long)(int)fd, err);
}

/* --- making sockets ------------------------------------------------------------------------- */

long sys_socket(struct thread *t, const struct sysargs *a)
{
    int type = (int)a->a[1], flags = type & ~SOCK_TYPE_MASK, err;
    if (flags & ~(SOCK_CLOEXEC | SOCK_NONBLOCK))
        return -EINVAL;
    struct socket *s = sock_create(t, (int)a->a[0], type & SOCK_TYPE_MASK, (int)a->a[2], &err);
    if (!s)
        return err;
    struct file *f = sock_file(s, (unsigned)flags);
    if (!f)
        return -ENOMEM;             /* the socket went with the failed open */
    int fd = fd_install(t, f, 0, flags & SOCK_CLOEXEC);
    if (fd < 0)
        file_put(f);
    return fd;
}

long sys_socketpair(struct thread *t, const struct sysargs *a)
{
    int type = (int)a->a[1], flags = type & ~SOCK_TYPE_MASK, err;
    if (flags & ~(SOCK_CLOEXEC | SOCK_NONBLOCK))
        return -EINVAL;
    /* Linux takes both fds and writes them before it makes the sockets */
    int fds[2];
    if ((fds[0] = fd_unused(t, 0)) < 0)
        return fds[0];
    if (copy_to_user(t->mm, a->a[3], fds, sizeof fds))
        return -EFAULT;
    struct socket *sa = sock_create(t, (int)a->a[0], type & SOCK_TYPE_MASK, (int)a->a[2], &err);
    if (!sa)
        return err;
    struct socket *sb = sock_create(t, (int)a->a[0], type & SOCK_TYPE_MASK, (int)a->a[2], &err);
    if (!sb) {
        sock_put(sa);
        return err;
    }
    if (!sa->ops->socketpair || (err = sa->ops->socketpair(t, sa, sb))) {
        sock_put(sa);
        sock_put(sb);
        return sa->ops->socketpair ? err : -EOPNOTSUPP;
    }
    struct file *fa = sock_file(sa, (unsigned)flags);
    if (!fa) {
        sock_put(sb);
        return -ENOMEM;
    }
    struct file *fb = sock_file(sb, (unsigned)flags);
    if (!fb) {
        file_put(fa);
        return -ENOMEM;
    }
    bool cloexec = flags & SOCK_CLOEXEC;
    if ((fds[0] = fd_install(t, fa, 0, cloexec)) < 0) {
        file_put(fa);
        file_put(fb);
        return fds[0];
    }
    if ((fds[1] = fd_install(t, fb, 0, cloexec)) < 0) {
        fd_close(t, fds[0]);
        file_put(fb);
        return fds[1];
    }
    return copy_to_user(t->mm, a->a[3], fds, sizeof fds);   /* the numbers Linux wrote */
}

/* --- names and connections ---------------------------------------------------------------- */

long sys_bind(struct thread *t, const struct sysargs *a)
{
    int err;
    struct socket *s = lookup(t, a->a[0], &err);
    if (!s)
        return err;
    if ((err = addr_in(t, a->a[1], (int)a->a[2])))
        return err;
    return s->ops->bind ? s->ops->bind(t, s, kaddr, (int)a->a[2]) : -EOPNOTSUPP;
}

long sys_connect(struct thread *t, const struct sysargs *a)
{
    struct file *f = fd_get(t, (long)(int)a->a[0]);
    if (!f)
        return -EBADF;
    int err = addr_in(t, a->a[1], (int)a->a[2]);
    if (err)
        return err;
    struct socket *s = lookup(t, a->a[0], &err);
    if (!s)
        return err;
    if (!s->ops->connect)
        return -EOPNOTSUPP;
    return s->ops->connect(t, s, kaddr, (int)a->a[2], f->flags & O_NONBLOCK);
}

long sys_listen(struct thread *t, const struct sysargs *a)
{
    int err;
    struct socket *s = lookup(t, a->a[0], &err);
    if (!s)
        return err;
    int backlog = (int)a->a[1];
    if ((unsigned)backlog > 4096)
        backlog = 4096;             /* net.core.somaxconn */
    return s->ops->listen ? s->ops->listen(t, s, backlog) : -EOPNOTSUPP;
}

static long do_accept(struct thread *t, const struct sysargs *a, int flags)
{
    if (!fd_get(t, (long)(int)a->a[0]))
        return -EBADF;
    if (flags & ~(SOCK_CLOEXEC | SOCK_NONBLOCK))
        return -EINVAL;
    int fd = fd_unused(t, 0);
    if (fd < 0)
        return fd;
    int err;
    struct socket *s = lookup(t, a->a[0], &err);
    if (!s)
        return err;
    if (!s->ops->accept)
        return -EOPNOTSUPP;
    struct socket *ns;
    err = s->ops->accept(t, s, &ns);
    if (err == -EAGAIN && !(s->file->flags & O_NONBLOCK) && s->rcvtimeo)
        return sock_wait(t, s, NULL, false);
    if (err)
        return err;
    struct file *f = sock_file(ns, (unsigned)flags);
    if (!f)
        return -ENOMEM;
    if (a->a[1]) {
        int len = ns->ops->getname(ns, kaddr, true);
        if (len < 0 || (err = addr_out(t, kaddr, len, a->a[1], a->a[2]))) {
            file_put(f);            /* the connection is lost, as in Linux */
            return len < 0 ? -ECONNABORTED : err;
        }
    }
    fd = fd_install(t, f, 0, flags & SOCK_CLOEXEC);
    if (fd < 0)
        file_put(f);
    return fd;
}

long sys_accept(struct thread *t, const struct sysargs *a)
{
    return do_accept(t, a, 0);
}

long sys_accept4(struct thread *t, const struct sysargs *a)
{
    return do_accept(t, a, (int)a->a[3]);
}

static long getname(struct thread *t, const struct sysargs *a, bool peer)
{
    int err;
    struct socket *s = lookup(t, a->a[0], &err);
    if (!s)
        return err;
    memset(kaddr, 0, sizeof kaddr);
    int len = s->ops->getname ? s->ops->getname(s, kaddr, peer) : -EOPNOTSUPP;
    return len < 0 ? len : addr_out(t, kaddr, len, a->a[1], a->a[2]);
}

long sys_getsockname(struct thread *t, const struct sysargs *a)
{
    return getname(t, a, false);
}

long sys_getpeername(struct thread *t, const struct sysargs *a)
{
    return getname(t, a, true);
}

long sys_shutdown(struct thread *t, const struct sysargs *a)
{
    int err;
    struct socket *s = lookup(t, a->a[0], &err);
    if (!s)
        return err;
    return s->ops->shutdown ? s->ops->shutdown(s, (int)a->a[1]) : -EOPNOTSUPP;
}

long sys_setsockopt(struct thread *t, const struct sysargs *a)
{
    int err;
    struct socket *s = lookup(t, a->a[0], &err);
    if (!s)
        return err;
    return sock_setsockopt(t, s, (int)a->a[1], (int)a->a[2], a->a[3], (unsigned)a->a[4]);
}

long sys_getsockopt(struct thread *t, const struct sysargs *a)
{
    int err;
    struct socket *s = lookup(t, a->a[0], &err);
    if (!s)
        return err;
    return sock_getsockopt(t, s, (int)a->a[1], (int)a->a[2], a->a[3], a->a[4]);
}

/* --- sending and receiving ------------------------------------------------------------------ */

/* Linux's import_single_range: the buffer checked before the fd. */
static int single(struct uio *u, struct thread *t, l4_word_t buf, l4_word_t len)
{
    if (len > MAX_RW_COUNT)
        len = MAX_RW_COUNT;
    if (!access_ok(buf, len))
        return -EFAULT;
    iovs[0] = (struct uio_seg){ buf, len };
    uio_init(u, t->mm, iovs, 1);
    return 0;
}

long sys_sendto(struct thread *t, const struct sysargs *a)
{
    struct uio u;
    int err = single(&u, t, a->a[1], a->a[2]);
    if (err)
        return err;
    struct socket *s = lookup(t, a->a[0], &err);
    if (!s)
        return err;
    struct sock_msg m = { .u = &u };
    if (a->a[4]) {
        if ((err = addr_in(t, a->a[4], (int)a->a[5])))
            return err;
        if ((int)a->a[5]) {
            m.name = kaddr;
            m.namelen = (int)a->a[5];
        }
    }
    return sock_transfer(t, s, &m, (int)a->a[3], true, true);
}

long sys_recvfrom(struct thread *t, const struct sysargs *a)
{
    struct uio u;
    int err = single(&u, t, a->a[1], a->a[2]);
    if (err)
        return err;
    struct socket *s = lookup(t, a->a[0], &err);
    if (!s)
        return err;
    memset(kaddr, 0, sizeof kaddr);
    struct sock_msg m = { .u = &u, .name = a->a[4] ? kaddr : NULL };
    long r = sock_transfer(t, s, &m, (int)a->a[3], false, true);
    scm_release(&m);
    if (r >= 0 && a->a[4] && (err = addr_out(t, kaddr, m.namelen, a->a[4], a->a[5])))
        return err;
    return r;
}

/* Linux's copy_msghdr_from_user and import_iovec: the header, the name, the iovecs. */
static int msghdr_in(struct thread *t, l4_word_t umsg, struct user_msghdr *h, struct uio *u,
                     bool send)
{
    if (copy_from_user(t->mm, h, umsg, sizeof *h))
        return -EFAULT;
    if (!h->name)
        h->namelen = 0;
    if (h->namelen < 0)
        return -EINVAL;
    if (h->namelen > SOCK_ADDR_MAX)
        h->namelen = SOCK_ADDR_MAX;
    memset(kaddr, 0, sizeof kaddr);
    if (send && h->name && h->namelen && copy_from_user(t->mm, kaddr, h->name, (size_t)h->namelen))
        return -EFAULT;
    if (h->iovlen > UIO_MAXIOV)
        return -EMSGSIZE;
    if (h->iovlen && copy_from_user(t->mm, iovs, h->iov, h->iovlen * sizeof iovs[0]))
        return -EFAULT;
    l4_word_t total = 0;
    for (l4_word_t k = 0; k < h->iovlen; k++) {
        if ((long)iovs[k].len < 0)
            return -EINVAL;
        if (!access_ok(iovs[k].base, iovs[k].len))
            return -EFAULT;
        if (iovs[k].len > MAX_RW_COUNT - total)
            iovs[k].len = MAX_RW_COUNT - total;
        total += iovs[k].len;
    }
    uio_init(u, t->mm, iovs, (unsigned)h->iovlen);
    return 0;
}

static long sendmsg1(struct thread *t, struct socket *s, l4_word_t umsg, int flags,
                     struct uio *u)
{
    struct user_msghdr h;
    int err = msghdr_in(t, umsg, &h, u, true);
    if (err)
        return err;
    struct sock_msg m = { .u = u };
    if (h.name && h.namelen) {
        m.name = kaddr;
        m.namelen = h.namelen;
    }
    if (h.controllen > 0x7fffffff || h.controllen >= OPTMEM_MAX)
        return -ENOBUFS;
    if (h.controllen) {
        if (copy_from_user(t->mm, ctl, h.control, h.controllen))
            return -EFAULT;
        if ((err = scm_parse(t, s, ctl, h.controllen, &m)))
            return err;
    }
    long r = sock_transfer(t, s, &m, flags, true, true);
    scm_release(&m);
    return r;
}


static long recvmsg1(struct thread *t, struct socket *s, l4_word_t umsg, int flags,
                     struct uio *u)
{
    struct user_msghdr h;
    int err = msghdr_in(t, umsg, &h, u, false);
    if (err)
        return err;
    struct sock_msg m = { .u = u, .name = h.name && h.namelen ? kaddr : NULL };
    long r = sock_transfer(t, s, &m, flags, false, true);
    if (r < 0) {
        scm_release(&m);
        return r;
    }
    l4_word_t ctllen = h.controllen;
    scm_emit(t, s, &m, h.control, &ctllen, flags);
    if (h.name && (err = addr_out(t, kaddr, m.namelen, h.name,
                                  umsg + offsetof(struct user_msghdr, namelen))))
        return err;
    int oflags = m.flags | (flags & MSG_CMSG_CLOEXEC);
    if (copy_to_user(t->mm, umsg + offsetof(struct user_msghdr, flags), &oflags, sizeof oflags) ||
        copy_to_user(t->mm, umsg + offsetof(struct user_msghdr, controllen), &ctllen,
                     sizeof ctllen))
        return -EFAULT;
    return r;
}

/* One message of sendmsg/recvmsg/sendmmsg/recvmmsg: the socket behind fd (looked up for
 * each, as Linux's ___sys_sendmsg is), a fresh transfer, the *msg1 helper. */
static long msg_call(struct thread *t, l4_word_t fd, l4_word_t umsg, int flags, bool send,
                     struct uio *u)
{
    int err;
    struct socket *s = lookup(t, fd, &err);
    if (!s)
        return err;
    return send ? sendmsg1(t, s, umsg, flags, u) : recvmsg1(t, s, umsg, flags, u);
}

long sys_sendmsg(struct thread *t, const struct sysargs *a)
{
    struct uio u;
    return msg_call(t, a->a[0], a->a[1], (int)a->a[2], true, &u);
}

long sys_recvmsg(struct thread *t, const struct sysargs *a)
{
    struct uio u;
    return msg_call(t, a->a[0], a->a[1], (int)a->a[2], false, &u);
}

/* One entry of sendmmsg or recvmmsg: the message, its length into msg_len. */
static long mmsg_one(struct thread *t, l4_word_t fd, l4_word_t vec, unsigned n, int flags,
                     bool send, struct uio *u)
{
    l4_word_t entry = vec + n * sizeof(struct user_mmsghdr);
    long r = msg_call(t, fd, entry, flags, send, u);
    if (r < 0)
        return r;
    unsigned len = (unsigned)r;
    if (copy_to_user(t->mm, entry + offsetof(struct user_mmsghdr, len), &len, sizeof len))
        return -EFAULT;
    return r;
}

/* sendmmsg and recvmmsg: the first message as its call would (waiting if it must), the
 * rest without waiting (docs/linux/sockets.md: Linux waits for each). */
long sys_sendmmsg(struct thread *t, const struct sysargs *a)
{
    int err;
    struct socket *s = lookup(t, a->a[0], &err);
    if (!s)
        return err;
    l4_word_t vlen = a->a[2] > UIO_MAXIOV ? UIO_MAXIOV : a->a[2];
    int flags = (int)a->a[3];
    long r = 0;
    unsigned n = 0;
    for (; n < vlen; n++) {
        struct uio u;
        int f = n ? flags | MSG_DONTWAIT : flags;
        if ((r = mmsg_one(t, a->a[0], a->a[1], n, f, true, &u)) < 0)
            break;
        if (u.resid) {
            n++;
            break;                  /* a stream socket took only part */
        }
    }
    return n ? (long)n : r;
}

long sys_recvmmsg(struct thread *t, const struct sysargs *a)
{
    int err;
    if (a->a[4]) {
        long ts[2];
        if (copy_from_user(t->mm, ts, a->a[4], sizeof ts))
            return -EFAULT;
        if (ts[0] < 0 || (unsigned long)ts[1] >= 1000000000ul)
            return -EINVAL;
    }
    struct socket *s = lookup(t, a->a[0], &err);
    if (!s)
        return err;
    if (s->err) {
        int e = s->err;
        s->err = 0;
        return -e;
    }
    int flags = (int)a->a[3] & ~MSG_WAITFORONE;
    long r = 0;
    unsigned n = 0;
    for (; n < a->a[2]; n++) {
        struct uio u;
        int f = n ? flags | MSG_DONTWAIT : flags;
        if ((r = mmsg_one(t, a->a[0], a->a[1], n, f, false, &u)) < 0)
            break;
    }
    if (!n)
        return r;
    if (r < 0 && r != -EAGAIN)
        s->err = (int)-r;           /* reported by the next call, as Linux does */
    return n;
}
