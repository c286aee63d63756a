/* Pipes and FIFOs (docs/linux/pipes.md): a 64 KiB ring of lx pages (allocated as data first
 * reaches them) hanging off an inode of type S_IFIFO: a new, nameless one for pipe(2), the
 * FIFO's own for mkfifo.  The ends are open files: every open file description counts as a
 * reader, a writer or (O_RDWR) both, and the release op drops its count, so fork and dup
 * (which share descriptions) count right.  The operations never wait: an empty pipe reads
 * -EAGAIN, a full one writes -EAGAIN, and the system-call layer (syscalls/sys_file.c) parks
 * a caller without O_NONBLOCK on the queues the poll op names.  Each write call hands over
 * at most PIPE_BUF bytes (syscalls/sys_file.c's chunks) and is all-or-nothing, which is
 * PIPE_BUF atomicity.  A FIFO has no blocking open: instead, its reads and writes wait for
 * the other side's first open (had_writer / had_reader), which looks the same to the usual
 * programs. */
#include "fs/pipe/pipe.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "mm/page.h"
#include "mm/usercopy.h"
#include "park/waitq.h"
#include "syscalls/handlers.h"
#include "task/process.h"
#include "vfs/poll.h"
#include <string.h>

#define PIPE_PAGES (PIPE_SIZE / LX_PAGE)

struct pipe {
    char *pages[PIPE_PAGES];        /* the ring; NULL: not used yet */
    l4_word_t head, count;          /* read position (mod PIPE_SIZE), bytes held */
    unsigned readers, writers;      /* open file descriptions of each end */
    bool had_reader, had_writer;    /* an end of that kind has been opened */
    struct waitq rq, wq;            /* waiting for data (readers), for room (writers) */
};

static bool reads(const struct file *f)
{
    return (f->flags & O_ACCMODE) != O_WRONLY;
}

static bool writes(const struct file *f)
{
    return (f->flags & O_ACCMODE) != O_RDONLY;
}

static long pipe_read(struct file *f, char *buf, l4_word_t n, l4_word_t pos)
{
    (void)pos;
    struct pipe *p = f->inode->pipe;
    if (!p->count) {
        if (p->writers || (!p->had_writer && !(f->flags & O_NONBLOCK)))
            return n ? -EAGAIN : 0;
        return 0;                   /* end of file: no writer (left) */
    }
    l4_word_t done = 0;
    if (n > p->count)
        n = p->count;
    while (done < n) {
        l4_word_t off = p->head % LX_PAGE, k = LX_PAGE - off;
        if (k > n - done)
            k = n - done;
        memcpy(buf + done, p->pages[p->head / LX_PAGE] + off, k);
        p->head = (p->head + k) % PIPE_SIZE;
        done += k;
    }
    p->count -= done;
    waitq_wake(&p->wq);
    return (long)done;
}

static long pipe_write(struct file *f, const char *buf, l4_word_t n, l4_word_t pos)
{
    (void)pos;
    struct pipe *p = f->inode->pipe;
    if (!p->readers)
        return !p->had_reader && !(f->flags & O_NONBLOCK) ? -EAGAIN : -EPIPE;
    if (n > PIPE_SIZE - p->count)
        return -EAGAIN;             /* all or nothing: n <= PIPE_BUF (syscalls/sys_file.c) */
    l4_word_t done = 0, tail = (p->head + p->count) % PIPE_SIZE;
    while (done < n) {
        l4_word_t page = tail / LX_PAGE, off = tail % LX_PAGE, k = LX_PAGE - off;
        if (k > n - done)
            k = n - done;
        if (!p->pages[page] && !(p->pages[page] = page_alloc()))
            break;
        memcpy(p->pages[page] + off, buf + done, k);
        tail = (tail + k) % PIPE_SIZE;
        done += k;
    }
    p->count += done;
    if (done)
        waitq_wake(&p->rq);
    return done ? (long)done : -ENOMEM;
}

static unsigned pipe_poll(struct file *f, struct thread *t)
{
    struct pipe *p = f->inode->pipe;
    unsigned mask = 0;
    if (!p || (f->flags & O_PATH))
        return POLLNVAL;            /* an O_PATH description counts as no end */
    if (reads(f)) {
        if (p->count)
            mask |= POLLIN | POLLRDNORM;
        if (!p->writers && p->had_writer)
            mask |= POLLHUP;
        if (t)
            waitq_add(&p->rq, t);
    }
    if (writes(f)) {
        if (PIPE_SIZE - p->count >= PIPE_BUF)
            mask |= POLLOUT | POLLWRNORM;
        if (!p->readers)
            mask |= POLLERR;
        if (t)
            waitq_add(&p->wq, t);
    }
    return mask;
}

static long pipe_ioctl(struct file *f, struct thread *t, unsigned long cmd, l4_word_t arg)
{
    if (cmd != FIONREAD)
        return -ENOTTY;
    if (!f->inode->pipe || (f->flags & O_PATH))
        return -EBADF;
    int n = (int)f->inode->pipe->count;
    return copy_to_user(t->mm, arg, &n, sizeof n);
}

static void pipe_free(struct inode *i)
{
    struct pipe *p = i->pipe;
    for (unsigned k = 0; k < PIPE_PAGES; k++)
        if (p->pages[k])
            page_free(p->pages[k]);
    kfree(p);
    i->pipe = NULL;
}

static void pipe_release(struct file *f)
{
    struct pipe *p = f->inode->pipe;
    if (!p || (f->flags & O_PATH))
        return;
    p->readers -= reads(f);
    p->writers -= writes(f);
    waitq_wake(&p->rq);             /* EOF for readers, EPIPE for writers */
    waitq_wake(&p->wq);
    if (!p->readers && !p->writers)
        pipe_free(f->inode);        /* a FIFO's bytes go with its last end, as in Linux */
}

const struct file_ops pipe_ops = {
    .read = pipe_read, .write = pipe_write, .seekable = false, .poll = pipe_poll,
    .ioctl = pipe_ioctl, .release = pipe_release,
};

int pipe_fifo_open(struct inode *i, unsigned flags)
{
    if (flags & O_PATH)
        return 0;
    if (!i->pipe && !(i->pipe = kmalloc(sizeof *i->pipe)))
        return -ENOMEM;
    struct pipe *p = i->pipe;
    unsigned acc = flags & O_ACCMODE;
    if (acc != O_WRONLY)
        p->readers++, p->had_reader = true;
    if (acc != O_RDONLY)
        p->writers++, p->had_writer = true;
    waitq_wake(&p->rq);             /* a FIFO's other side may wait for this open */
    waitq_wake(&p->wq);
    return 0;
}

/* --- pipe, pipe2 -------------------------------------------------------------------------- */

static long do_pipe(struct thread *t, l4_word_t ufds, l4_word_t flags)
{
    if (flags & ~(l4_word_t)(O_CLOEXEC | O_NONBLOCK))
        return -EINVAL;             /* O_DIRECT (packet mode) and O_NOTIFICATION_PIPE: no */
    struct inode *i = tmpfs_new(S_IFIFO | 0600);
    if (!i)
        return -ENOMEM;
    inode_get(i);                   /* held while the ends are made: freed with them */
    unsigned fl = (unsigned)flags & O_NONBLOCK;
    struct file *r = file_open(i, O_RDONLY | fl), *w = r ? file_open(i, O_WRONLY | fl) : NULL;
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
