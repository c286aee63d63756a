/* Sockets (docs/linux/sockets.md): sockfs, where every socket is an inode; the open file of
 * a socket (read and write are a receive and a send without flags); and the waiting of a
 * blocking send, receive, accept or connect.  A family's operation never waits: it answers
 * -EAGAIN (having moved what it could) and names a wait queue; a blocking caller is parked
 * there and its call runs again when the queue is woken (park/park.c), until its SO_RCVTIMEO
 * or SO_SNDTIMEO deadline, when it answers what moved or EAGAIN.  A signal ends the wait
 * with the bytes moved, else as Linux's sock_intr_errno: a restart without a timeout,
 * EINTR with one. */
#include "net/socket.h"
#include "net/netdev.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "mm/usercopy.h"
#include "park/park.h"
#include "task/process.h"
#include "time/clock.h"
#include "vfs/poll.h"

#define SOCKFS_MAGIC 0x534F434B

/* --- sockfs ---------------------------------------------------------------------------------- */

static void sockfs_evict(struct inode *i)
{
    struct socket *s = (struct socket *)i;
    if (s->ops && s->ops->destroy)
        s->ops->destroy(s);
    kfree(s);
}

static const struct fs_type sockfs_type = {
    .name = "sockfs", .magic = SOCKFS_MAGIC, .nodev = true, .evict = sockfs_evict,
};
static struct inode sockfs_root = { .mode = S_IFDIR | 0555, .nlink = 2, .ino = 1 };
static struct super_block sockfs_sb = { .type = &sockfs_type, .dev = 0x8, .root = &sockfs_root,
                                        .next_ino = 1 };

void sock_get(struct socket *s)
{
    inode_get(&s->inode);
}

void sock_put(struct socket *s)
{
    inode_put(&s->inode);
}

struct socket *sock_create(struct thread *t, int family, int type, int protocol, int *err)
{
    if (family < 0 || family >= AF_MAX) {
        *err = -EAFNOSUPPORT;
        return NULL;
    }
    if (type < 0 || type >= SOCK_MAX) {
        *err = -EINVAL;
        return NULL;
    }
    const struct net_family *fam = net_family_find(family);
    if (!fam) {
        *err = -EAFNOSUPPORT;
        return NULL;
    }
    sockfs_root.sb = &sockfs_sb;
    sockfs_root.parent = &sockfs_root;
    struct socket *s = (struct socket *)inode_alloc(&sockfs_sb, fam->obj_size, S_IFSOCK | 0777);
    if (!s) {
        *err = -ENOMEM;
        return NULL;
    }
    s->inode.uid = vfs_fsuid(t);
    s->inode.gid = vfs_fsgid(t);
    s->family = family;
    s->type = type;
    sock_init_opts(s);
    sock_get(s);
    if ((*err = fam->create(t, s, protocol))) {
        s->ops = NULL;              /* nothing of the family's to destroy */
        sock_put(s);
        return NULL;
    }
    return s;
}

/* --- the socket's open file ---------------------------------------------------------------------- */

static struct socket *file_sock(struct file *f)
{
    return f->priv;
}

static long sock_read(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos)
{
    (void)pos;
    struct sock_msg m = { .u = u };
    long r = sock_transfer(t, file_sock(f), &m, 0, false, false);
    scm_release(&m);                /* read(2) has no room for files: they are dropped */
    return r;
}

static long sock_write(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos)
{
    (void)pos;
    struct sock_msg m = { .u = u };
    return sock_transfer(t, file_sock(f), &m, 0, true, false);
}

static unsigned sock_poll(struct thread *t, struct file *f, struct poll_table *pt)
{
    (void)t;
    struct socket *s = file_sock(f);
    return s->ops->poll ? s->ops->poll(s, pt) : 0;
}

static long sock_ioctl(struct thread *t, struct file *f, unsigned cmd, l4_word_t arg)
{
    struct socket *s = file_sock(f);
    long r = s->ops->ioctl ? s->ops->ioctl(t, s, cmd, arg) : -ENOTTY;
    return r == -ENOTTY ? netdev_ioctl(t, cmd, arg) : r;   /* Linux's dev_ioctl */
}

static void sock_release(struct file *f)
{
    struct socket *s = file_sock(f);
    s->file = NULL;
    if (s->ops->release)
        s->ops->release(s);
    waitq_wake(&s->wq);
}

static int sock_show_fdinfo(struct file *f, char *buf, size_t size)
{
    struct socket *s = file_sock(f);
    return s->ops->show_fdinfo ? s->ops->show_fdinfo(s, buf, size) : 0;
}

static const struct file_ops sock_fops = {
    .release = sock_release, .read = sock_read, .write = sock_write, .poll = sock_poll,
    .ioctl = sock_ioctl, .waits_itself = true, .show_fdinfo = sock_show_fdinfo,
};

struct file *sock_file(struct socket *s, unsigned flags)
{
    int err;
    struct file *f = file_open(NULL, &s->inode, O_RDWR | (flags & O_NONBLOCK), &sock_fops, &err);
    if (!f) {
        sock_put(s);                /* the caller's reference goes with the failed open */
        return NULL;
    }
    f->priv = s;
    s->file = f;
    sock_put(s);                    /* the file's reference is the socket's now */
    return f;
}

struct socket *sock_from_fd(struct thread *t, long fd, int *err)
{
    struct file *f = fd_get(t, fd);
    if (!f) {
        *err = -EBADF;
        return NULL;
    }
    if (f->ops != &sock_fops) {
        *err = -ENOTSOCK;
        return NULL;
    }
    return file_sock(f);
}

struct ucred sock_current_creds(struct thread *t)
{
    return (struct ucred){ thread_pid(t), t->proc->cred.uid, t->proc->cred.gid };
}

/* --- waiting ------------------------------------------------------------------------------ */

/* A signal ends a parked socket call: what moved, else Linux's sock_intr_errno (a call
 * with a timeout is not restarted). */
static long sock_interrupted(struct thread *t)
{
    struct park_io *io = &t->park.u.io;
    if (io->done)
        return (long)io->done;
    return io->vtime_end ? -EINTR : -ERESTARTSYS;
}

/* The call's deadline (lx_now()), set at its first wait; 0: none.  *expired: it passed. */
static uint64_t deadline_of(struct thread *t, uint64_t timeo, bool *expired)
{
    struct park_io *io = park_io(&t->park);
    *expired = false;
    if (timeo == SOCK_TIMEO_NONE)
        return 0;
    uint64_t now = lx_now();
    if (!io->vtime_end)
        io->vtime_end = now + timeo;
    else if (now >= io->vtime_end)
        *expired = true;
    return io->vtime_end;
}

long sock_wait(struct thread *t, struct socket *s, struct waitq *q, bool send)
{
    bool expired;
    uint64_t deadline = deadline_of(t, send ? s->sndtimeo : s->rcvtimeo, &expired);
    if (expired)
        return -EAGAIN;
    waitq_add(q ? q : &s->wq, t);
    return park_call_fn(t, deadline, sock_interrupted);
}

static bool nonblocking(const struct socket *s, int flags)
{
    return (flags & MSG_DONTWAIT) || (s->file && (s->file->flags & O_NONBLOCK));
}

long sock_transfer(struct thread *t, struct socket *s, struct sock_msg *m, int flags, bool send,
                   bool own_io)
{
    struct park_io *io = park_io(&t->park);
    struct uio *u = m->u;
    if (own_io && io->done)
        uio_skip(u, io->done);      /* a rerun goes on after what earlier runs moved */
    struct uio before = *u;
    l4_word_t start = u->done;
    bool nb = nonblocking(s, flags) ||
              (send ? s->sndtimeo : s->rcvtimeo) == 0;  /* a negative timeout set: no wait */
    if (nb)
        flags |= MSG_DONTWAIT;
    long r = send ? s->ops->sendmsg(t, s, m, flags) : s->ops->recvmsg(t, s, m, flags);
    if (r < 0 && r != -EAGAIN)
        *u = before;                /* a failed call moved nothing (what it copied is not sent) */
    l4_word_t moved = u->done - start;
    if (r == -EAGAIN && !nb) {
        long w = sock_wait(t, s, m->wait, send);
        if (w == LX_PARK) {
            if (own_io)
                io->done += moved;
            return w;
        }
        r = moved || io->done ? (long)moved : -EAGAIN;    /* the timeout passed */
    }
    if (!own_io)
        return r == -EAGAIN && moved ? (long)moved : r;
    l4_word_t total = io->done + (r >= 0 ? (l4_word_t)r : moved);
    io->done = 0;
    if (r >= 0)
        return (long)total;
    return total ? (long)total : r;
}
