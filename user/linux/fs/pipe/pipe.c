/* Pipes and FIFOs (docs/linux/pipes.md): a ring of lx pages (64 KiB by default, Linux's;
 * F_SETPIPE_SZ changes it; pages allocated as data first reaches them) hanging off an inode
 * of type S_IFIFO: a FIFO's own, in the file system it was made in, or for pipe(2) a fresh
 * inode of pipefs, a file system of its own that is mounted nowhere (as Linux's).  The
 * ends are open files: every open file description counts as a reader, a writer or (O_RDWR)
 * both, and the release operation drops its count, so fork and dup (which share
 * descriptions) count right.  The operations never wait: an empty pipe reads -EAGAIN, a full
 * one writes -EAGAIN, and the VFS parks a blocking caller on the queues poll names
 * (vfs/rw.c).  A write of at most PIPE_BUF bytes goes in whole or not at all (PIPE_BUF
 * atomicity, writev's iovecs together); a larger one as far as there is room.  A FIFO has
 * no blocking open: its reads and writes wait for the other side's first open instead
 * (had_writer / had_reader), which looks the same to the usual programs. */
#include "fs/pipe/pipe.h"
#include "fs/proc/sysctl.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "lib/radix.h"
#include "mm/page.h"
#include "mm/usercopy.h"
#include "park/waitq.h"
#include "signal/signal.h"
#include "syscalls/handlers.h"
#include "task/process.h"
#include "vfs/poll.h"
#include <string.h>

unsigned pipe_max_size = 1048576;

/* Linux's proc_dopipe_max_size: the value rounded as F_SETPIPE_SZ rounds (a page at least, a
 * power of two); past 2^31 EINVAL. */
static int store_pipe_max_size(struct thread *t, const struct sysctl *s, const char *text,
                               size_t len)
{
    unsigned long v;
    struct sysctl tmp = *s;
    tmp.data = &v;
    int e = sysctl_store_long(t, &tmp, text, len);
    if (e)
        return e;
    if (v > (1ul << 31))
        return -EINVAL;
    unsigned long want = LX_PAGE;
    while (want < v)
        want <<= 1;
    pipe_max_size = (unsigned)want;
    return 0;
}

static struct sysctl pipe_sysctls[] = {
    { .path = "fs/pipe-max-size", .mode = 0644, .show = sysctl_show_uint,
      .store = store_pipe_max_size, .data = &pipe_max_size, .max = 0xFFFFFFFF },
};
SYSCTL_TABLE(pipe_sysctls)

#define F_SETPIPE_SZ 1031
#define F_GETPIPE_SZ 1032

#define O_DIRECT            040000
#define O_NOTIFICATION_PIPE O_EXCL

static bool reads(const struct file *f)
{
    return (f->flags & O_ACCMODE) != O_WRONLY;
}

static bool writes(const struct file *f)
{
    return (f->flags & O_ACCMODE) != O_RDONLY;
}

/* The page holding ring byte `at` (made with create): NULL when memory is out. */
static char *ring_page(struct pipe *p, l4_word_t at, bool create)
{
    void **slot = radix_slot(&p->pages, at / LX_PAGE, create);
    if (slot && !*slot && create)
        *slot = page_alloc();
    return slot ? *slot : NULL;
}

static l4_word_t slots(const struct pipe *p)
{
    return p->size / LX_PAGE;
}

l4_word_t pipe_room(const struct pipe *p)
{
    if (p->packet)
        return (slots(p) - p->pkt_count) * LX_PAGE;
    return p->size - p->count;
}

l4_word_t pipe_peek(struct pipe *p, l4_word_t off, struct uio *u, l4_word_t n)
{
    if (off >= p->count)
        return 0;
    if (n > p->count - off)
        n = p->count - off;
    l4_word_t done = 0;
    while (done < n) {
        l4_word_t at = (p->head + off + done) % p->size, o = at % LX_PAGE, k = LX_PAGE - o;
        if (k > n - done)
            k = n - done;
        l4_word_t m = uio_copy_out(u, ring_page(p, at, false) + o, k);
        done += m;
        if (m < k)
            break;
    }
    return done;
}

void pipe_consume(struct pipe *p, l4_word_t n)
{
    if (!n)
        return;
    p->head = (p->head + n) % p->size;
    p->count -= n;
    while (n && p->pkt_count) {
        uint32_t *len = &p->pkt[p->pkt_head];
        if (*len > n) {
            *len -= (uint32_t)n;
            break;
        }
        n -= *len;
        p->pkt_head = (p->pkt_head + 1) % slots(p);
        p->pkt_count--;
    }
    waitq_wake(&p->wq);
}

/* n bytes of u at the ring's end (n fits): the count. */
static l4_word_t ring_in(struct pipe *p, struct uio *u, l4_word_t n)
{
    l4_word_t done = 0;
    while (done < n) {
        l4_word_t tail = (p->head + p->count) % p->size;
        l4_word_t off = tail % LX_PAGE, k = LX_PAGE - off;
        if (k > n - done)
            k = n - done;
        char *page = ring_page(p, tail, true);
        if (!page)
            break;
        l4_word_t m = uio_copy_in(u, page + off, k);
        p->count += m;
        done += m;
        if (m < k)
            break;
    }
    return done;
}

l4_word_t pipe_append(struct pipe *p, struct uio *u, l4_word_t n)
{
    l4_word_t room = pipe_room(p), done = 0;
    if (n > room)
        n = room;
    while (done < n) {
        l4_word_t want = n - done;
        if (p->packet && want > LX_PAGE)
            want = LX_PAGE;         /* a packet per page, as Linux's pipe buffers */
        l4_word_t got = ring_in(p, u, want);
        if (p->packet && got) {
            p->pkt[(p->pkt_head + p->pkt_count) % slots(p)] = (uint32_t)got;
            p->pkt_count++;
        }
        done += got;
        if (got < want)
            break;
    }
    if (done)
        waitq_wake(&p->rq);
    return done;
}

struct pipe *pipe_of(const struct file *f)
{
    return f->ops == &fifo_ops ? f->inode->pipe : NULL;
}

static long pipe_read(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos)
{
    (void)t, (void)pos;
    struct pipe *p = f->inode->pipe;
    if (!p->count) {
        if (p->writers || (!p->had_writer && !(f->flags & O_NONBLOCK)))
            return u->resid ? -EAGAIN : 0;
        return 0;                   /* end of file: no writer (left) */
    }
    if (!u->resid)
        return 0;
    /* Packet mode: one packet per read, the rest of it discarded (Linux's PACKET buffers). */
    l4_word_t n = u->resid, whole = p->pkt_count ? p->pkt[p->pkt_head] : 0;
    if (whole && n > whole)
        n = whole;
    l4_word_t m = pipe_peek(p, 0, u, n);
    pipe_consume(p, whole && m == n ? whole : m);
    return (long)m;
}

static long pipe_write(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos)
{
    (void)pos;
    struct pipe *p = f->inode->pipe;
    if (!p->readers) {
        if (!p->had_reader && !(f->flags & O_NONBLOCK))
            return -EAGAIN;         /* a FIFO whose reader has not come yet */
        signal_raise(t, SIGPIPE);
        return -EPIPE;
    }
    l4_word_t room = pipe_room(p);
    if (!room || (u->resid <= PIPE_BUF && room < u->resid))
        return -EAGAIN;             /* all or nothing up to PIPE_BUF */
    l4_word_t start = u->done, want = u->resid;
    pipe_append(p, u, want);
    l4_word_t moved = u->done - start;
    if (moved < want && !u->fault)
        return moved || !pipe_room(p) ? -EAGAIN : -ENOMEM;
    return (long)moved;
}

static unsigned pipe_poll(struct thread *t, struct file *f, struct poll_table *pt)
{
    (void)t;
    struct pipe *p = f->inode->pipe;
    unsigned mask = 0;
    if (reads(f)) {
        if (p->count)
            mask |= POLLIN | POLLRDNORM;
        if (!p->writers && p->had_writer)
            mask |= POLLHUP;
        poll_wait(pt, &p->rq);
    }
    if (writes(f)) {
        if (pipe_room(p) >= PIPE_BUF)
            mask |= POLLOUT | POLLWRNORM;
        if (!p->readers)
            mask |= POLLERR;
        poll_wait(pt, &p->wq);
    }
    return mask;
}

static long pipe_ioctl(struct thread *t, struct file *f, unsigned cmd, l4_word_t arg)
{
    if (cmd != FIONREAD)
        return -ENOTTY;
    int n = (int)f->inode->pipe->count;
    return copy_to_user(t->mm, arg, &n, sizeof n);
}

static bool free_page(void **slot, unsigned long index, void *ctx)
{
    (void)index, (void)ctx;
    page_free(*slot);
    *slot = NULL;
    return true;
}

static void pipe_free(struct inode *i)
{
    struct pipe *p = i->pipe;
    radix_each(&p->pages, 0, free_page, NULL);
    radix_destroy(&p->pages, NULL);
    kfree(p->pkt);
    kfree(p);
    i->pipe = NULL;
}

static int fifo_open(struct thread *t, struct inode *i, struct file *f)
{
    (void)t;
    if (!i->pipe) {
        if (!(i->pipe = kmalloc(sizeof *i->pipe)))
            return -ENOMEM;
        i->pipe->size = PIPE_DEF_SIZE;
    }
    struct pipe *p = i->pipe;
    if (reads(f))
        p->readers++, p->had_reader = true;
    if (writes(f))
        p->writers++, p->had_writer = true;
    waitq_wake(&p->rq);             /* a FIFO's other side may wait for this open */
    waitq_wake(&p->wq);
    return 0;
}

static void pipe_release(struct file *f)
{
    struct pipe *p = f->inode->pipe;
    p->readers -= reads(f);
    p->writers -= writes(f);
    waitq_wake(&p->rq);             /* EOF for readers, EPIPE for writers */
    waitq_wake(&p->wq);
    if (!p->readers && !p->writers)
        pipe_free(f->inode);        /* a FIFO's bytes go with its last end, as in Linux */
}

const struct file_ops fifo_ops = {
    .open = fifo_open, .release = pipe_release, .read = pipe_read, .write = pipe_write,
    .poll = pipe_poll, .ioctl = pipe_ioctl,
};

/* --- the pipe's size --------------------------------------------------------------------------- */

/* A packet mode ring of lengths for a pipe of size bytes (kmalloc's limit: 4 MiB pipes). */
static uint32_t *pkt_ring(l4_word_t size)
{
    l4_word_t bytes = size / LX_PAGE * sizeof(uint32_t);
    return bytes <= LX_PAGE ? kmalloc(bytes) : NULL;
}

/* Move the bytes into a ring of new_size (a power of two pages): 0 or -ENOMEM. */
static int resize(struct pipe *p, l4_word_t new_size)
{
    struct pipe n = { .size = new_size };
    uint32_t *pkt = NULL;
    if (p->packet && !(pkt = pkt_ring(new_size)))
        return -ENOMEM;
    for (l4_word_t done = 0; done < p->count;) {
        l4_word_t from = (p->head + done) % p->size, k = LX_PAGE - from % LX_PAGE;
        if (k > p->count - done)
            k = p->count - done;
        l4_word_t room = LX_PAGE - done % LX_PAGE;
        if (k > room)
            k = room;
        char *dst = ring_page(&n, done, true);
        if (!dst) {
            radix_each(&n.pages, 0, free_page, NULL);
            radix_destroy(&n.pages, NULL);
            kfree(pkt);
            return -ENOMEM;
        }
        memcpy(dst + done % LX_PAGE, ring_page(p, from, false) + from % LX_PAGE, k);
        done += k;
    }
    radix_each(&p->pages, 0, free_page, NULL);
    radix_destroy(&p->pages, NULL);
    p->pages = n.pages;
    if (pkt) {
        for (l4_word_t k = 0; k < p->pkt_count; k++)
            pkt[k] = p->pkt[(p->pkt_head + k) % slots(p)];
        kfree(p->pkt);
        p->pkt = pkt;
        p->pkt_head = 0;
    }
    p->size = new_size;
    p->head = 0;
    waitq_wake(&p->wq);             /* more room, maybe */
    return 0;
}

long pipe_fcntl(struct file *f, unsigned cmd, l4_word_t arg)
{
    struct pipe *p = pipe_of(f);
    if (!p)
        return -EBADF;
    if (cmd == F_GETPIPE_SZ)
        return (long)p->size;
    /* Linux's round_pipe_size: at least a page, a power of two, at most 2^31 bytes; beyond
     * pipe-max-size only with CAP_SYS_RESOURCE (every process is root here). */
    unsigned long size = (unsigned)arg;
    if (size > (1ul << 31))
        return -EINVAL;
    l4_word_t want = LX_PAGE;
    while (want < size)
        want <<= 1;
    if (want < p->count || want / LX_PAGE < p->pkt_count)
        return -EBUSY;
    if (want != p->size) {
        int e = resize(p, want);
        if (e)
            return e;
    }
    return (long)want;
}

/* --- pipe, pipe2: anonymous pipes on pipefs ------------------------------------------------- */

static void pipefs_evict(struct inode *i)
{
    kfree(i);
}

static const struct fs_type pipefs_type = {
    .name = "pipefs", .magic = PIPEFS_MAGIC, .nodev = true, .evict = pipefs_evict,
};
static struct inode pipefs_root = { .mode = S_IFDIR | 0600, .nlink = 2, .ino = 1 };
static struct super_block pipefs_sb = { .type = &pipefs_type, .dev = 0xc, .root = &pipefs_root,
                                        .next_ino = 1 };

static long do_pipe(struct thread *t, l4_word_t ufds, l4_word_t flags)
{
    if (flags & ~(l4_word_t)(O_CLOEXEC | O_NONBLOCK | O_DIRECT | O_NOTIFICATION_PIPE))
        return -EINVAL;
    if (flags & O_NOTIFICATION_PIPE)
        return -ENOPKG;             /* Debian's 6.1 is built without CONFIG_WATCH_QUEUE */
    pipefs_root.sb = &pipefs_sb;
    struct inode *i = inode_alloc(&pipefs_sb, sizeof *i, S_IFIFO | 0600);
    if (!i)
        return -ENOMEM;
    i->uid = vfs_fsuid(t);
    i->gid = vfs_fsgid(t);
    inode_get(i);                   /* held while the ends are made: freed with them */
    unsigned fl = (unsigned)flags & O_NONBLOCK;     /* O_DIRECT: the write end's only */
    int err = -ENOMEM;
    struct file *r = file_open(t, i, O_RDONLY | fl, NULL, &err);
    struct file *w = r ? file_open(t, i, O_WRONLY | fl | ((unsigned)flags & O_DIRECT), NULL,
                                   &err) : NULL;
    if (w && (flags & O_DIRECT) && !(i->pipe->pkt = pkt_ring(i->pipe->size)))
        file_put(w), w = NULL;
    if (w)
        i->pipe->packet = flags & O_DIRECT;
    bool cloexec = flags & O_CLOEXEC;
    int fds[2] = { -ENOMEM, -1 };
    if (w && (fds[0] = fd_install(t, r, 0, cloexec)) >= 0) {
        r = NULL;                   /* the fd table's now */
        if ((fds[1] = fd_install(t, w, 0, cloexec)) >= 0) {
            inode_put(i);
            if (!copy_to_user(t->mm, ufds, fds, sizeof fds))
                return 0;
            fd_close(t, fds[0]);    /* Linux installs them only after the copy */
            fd_close(t, fds[1]);
            return -EFAULT;
        }
        fd_close(t, fds[0]);
        fds[0] = fds[1];
    }
    if (w)
        file_put(w);
    if (r)
        file_put(r);
    inode_put(i);
    return fds[0];
}

long sys_pipe(struct thread *t, const struct sysargs *a)
{
    return do_pipe(t, a->a[0], 0);
}

long sys_pipe2(struct thread *t, const struct sysargs *a)
{
    return do_pipe(t, a->a[0], a->a[1]);
}
