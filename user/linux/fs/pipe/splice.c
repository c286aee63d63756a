/* splice, tee and vmsplice (docs/linux/pipes.md, "Splicing"): bytes between a pipe and a
 * file, socket or another pipe, and between a pipe and process memory.  Linux moves page
 * references; lx copies through one page of its own, a page at a time, so a call costs the
 * bytes it moves and no page is ever shared (SPLICE_F_GIFT and SPLICE_F_MOVE are accepted
 * and change nothing).  The checks and their order are Linux 6.1's (fs/splice.c): a call
 * that has to wait parks on the pipe's or the file's queues and runs again from the start,
 * which is right because a call only waits before anything moved. */
#include "fs/pipe/pipe.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "park/park.h"
#include "signal/signal.h"
#include "syscalls/handlers_more.h"
#include "task/process.h"
#include "vfs/poll.h"

#define SPLICE_F_NONBLOCK 0x02
#define SPLICE_F_ALL      0x0f      /* MOVE, NONBLOCK, MORE, GIFT */
#define MAX_RW_COUNT      0x7ffff000ul

static char bounce[LX_PAGE];

static bool can_read(const struct file *f)          /* Linux's FMODE_READ */
{
    unsigned acc = f->flags & O_ACCMODE;
    return !(f->flags & O_PATH) && (acc == O_RDONLY || acc == O_RDWR);
}

static bool can_write(const struct file *f)         /* FMODE_WRITE */
{
    unsigned acc = f->flags & O_ACCMODE;
    return !(f->flags & O_PATH) && (acc == O_WRONLY || acc == O_RDWR);
}

static void kernel_uio(struct uio *u, struct uio_seg *seg, l4_word_t n)
{
    seg->base = (l4_word_t)bounce;
    seg->len = n;
    uio_init(u, NULL, seg, 1);
}

/* Wait for a pipe's queue (q) and, if f is given, for what f's poll names. */
static long wait_for(struct thread *t, struct waitq *q, struct file *f)
{
    if (q)
        waitq_add(q, t);
    if (f && f->ops->poll) {
        struct poll_table pt = { .t = t };
        f->ops->poll(t, f, &pt);
    }
    return park_call(t, 0, -ERESTARTSYS);
}

/* read or write of a file through lx's page, never waiting (the caller decides). */
static long file_io(struct thread *t, struct file *f, l4_word_t n, l4_word_t *pos, bool write)
{
    struct uio_seg seg;
    struct uio u;
    kernel_uio(&u, &seg, n);
    unsigned saved = f->flags;
    f->flags |= O_NONBLOCK;
    long r = vfs_rw(t, f, &u, pos, write, false);
    f->flags = saved;
    return r;
}

/* Linux's ipipe_prep: 0 when ip has bytes, else the answer (0 at EOF, EAGAIN, a wait). */
static long wait_for_data(struct thread *t, struct pipe *ip, unsigned flags, bool *ready)
{
    *ready = ip->count != 0;
    if (*ready || !ip->writers)
        return 0;
    return flags & SPLICE_F_NONBLOCK ? -EAGAIN : wait_for(t, &ip->rq, NULL);
}

/* Linux's wait_for_space: 0 when op has room, else EPIPE (with SIGPIPE), EAGAIN or a wait. */
static long wait_for_space(struct thread *t, struct pipe *op, unsigned flags)
{
    if (!op->readers) {
        signal_raise(t, SIGPIPE);
        return -EPIPE;
    }
    if (pipe_room(op))
        return 0;
    return flags & SPLICE_F_NONBLOCK ? -EAGAIN : wait_for(t, &op->wq, NULL);
}

/* splice between two pipes, or tee (keep: ip's bytes stay). */
static long pipe_to_pipe(struct thread *t, struct pipe *ip, struct pipe *op, l4_word_t len,
                         unsigned flags, bool keep)
{
    bool ready;
    long r = wait_for_data(t, ip, flags, &ready);
    if (!ready)
        return r;
    if ((r = wait_for_space(t, op, flags)))
        return r;
    l4_word_t done = 0;
    while (done < len) {
        l4_word_t avail = keep ? ip->count - done : ip->count, k = len - done;
        if (k > avail)
            k = avail;
        if (k > pipe_room(op))
            k = pipe_room(op);
        if (k > LX_PAGE)
            k = LX_PAGE;
        if (!k)
            break;
        struct uio_seg seg;
        struct uio u;
        kernel_uio(&u, &seg, k);
        l4_word_t m = pipe_peek(ip, keep ? done : 0, &u, k);
        kernel_uio(&u, &seg, m);
        l4_word_t a = pipe_append(op, &u, m);
        if (!keep)
            pipe_consume(ip, a);
        done += a;
        if (a < k)
            break;
    }
    return done ? (long)done : -ENOMEM;
}

/* A pipe's bytes to a file (Linux's splice_from_pipe). */
static long pipe_to_file(struct thread *t, struct pipe *ip, struct file *out, l4_word_t *pos,
                         l4_word_t len, unsigned flags)
{
    bool ready;
    long r = wait_for_data(t, ip, flags, &ready);
    if (!ready)
        return r;
    l4_word_t done = 0;
    long err = 0;
    while (done < len && ip->count) {
        l4_word_t k = len - done;
        if (k > ip->count)
            k = ip->count;
        if (k > LX_PAGE)
            k = LX_PAGE;
        struct uio_seg seg;
        struct uio u;
        kernel_uio(&u, &seg, k);
        pipe_peek(ip, 0, &u, k);
        long w = file_io(t, out, k, pos, true);
        if (w <= 0) {
            err = w;
            break;
        }
        pipe_consume(ip, (l4_word_t)w);
        done += (l4_word_t)w;
        if ((l4_word_t)w < k)
            break;
    }
    if (done)
        return (long)done;
    if (err == -EAGAIN && !(flags & SPLICE_F_NONBLOCK))
        return wait_for(t, NULL, out);      /* a full socket: wait for room */
    return err;
}

/* A file's bytes to a pipe (Linux's splice_file_to_pipe): as much as the pipe has room for. */
static long file_to_pipe(struct thread *t, struct file *in, l4_word_t *pos, struct pipe *op,
                         l4_word_t len, unsigned flags)
{
    long r = wait_for_space(t, op, flags);
    if (r)
        return r;
    if (!can_read(in))
        return -EBADF;
    if (in->ops->llseek && ((long)*pos < 0 || (long)(*pos + len) < 0))
        return -EINVAL;             /* rw_verify_area */
    if (!in->ops->read)
        return -EINVAL;             /* no splice_read */
    if (len > MAX_RW_COUNT)
        len = MAX_RW_COUNT;
    l4_word_t done = 0;
    long err = 0;
    while (done < len && pipe_room(op)) {
        l4_word_t k = len - done;
        if (k > pipe_room(op))
            k = pipe_room(op);
        if (k > LX_PAGE)
            k = LX_PAGE;
        long got = file_io(t, in, k, pos, false);
        if (got <= 0) {
            err = got;
            break;
        }
        struct uio_seg seg;
        struct uio u;
        kernel_uio(&u, &seg, (l4_word_t)got);
        l4_word_t a = pipe_append(op, &u, (l4_word_t)got);
        done += a;
        if (a < (l4_word_t)got || (l4_word_t)got < k)
            break;
    }
    if (done)
        return (long)done;
    if (err == -EAGAIN && !(flags & SPLICE_F_NONBLOCK))
        return wait_for(t, NULL, in);       /* an empty socket: wait for data */
    return err;
}

/* The offset a splice end gives (off: its user pointer, or 0 for the file's position). */
static long get_offset(struct thread *t, l4_word_t off, long *val)
{
    return off && copy_from_user(t->mm, val, off, sizeof *val) ? -EFAULT : 0;
}

long sys_splice(struct thread *t, const struct sysargs *a)
{
    l4_word_t off_in = a->a[1], off_out = a->a[3], len = a->a[4];
    unsigned flags = (unsigned)a->a[5];
    if (!len)
        return 0;
    if (flags & ~SPLICE_F_ALL)
        return -EINVAL;
    struct file *in = fd_get(t, (int)a->a[0]), *out = in ? fd_get(t, (int)a->a[2]) : NULL;
    if (!in || !out)
        return -EBADF;
    struct pipe *ip = pipe_of(in), *op = pipe_of(out);
    if ((ip && off_in) || (op && off_out))
        return -ESPIPE;
    long oin = 0, oout = 0;
    if (get_offset(t, off_out, &oout) || get_offset(t, off_in, &oin))
        return -EFAULT;
    if (!can_read(in) || !can_write(out))
        return -EBADF;
    if (ip && op) {
        if (ip == op)
            return -EINVAL;
        if ((in->flags | out->flags) & O_NONBLOCK)
            flags |= SPLICE_F_NONBLOCK;
        return pipe_to_pipe(t, ip, op, len, flags, false);
    }
    long r;
    if (ip) {
        if (off_out && !out->ops->llseek)
            return -EINVAL;         /* no FMODE_PWRITE */
        if (out->flags & O_APPEND)
            return -EINVAL;
        if (!out->ops->write)
            return -EINVAL;         /* no splice_write */
        l4_word_t pos = off_out ? (l4_word_t)oout : out->pos;
        if (out->ops->llseek && ((long)pos < 0 || (long)(pos + len) < 0))
            return -EINVAL;
        if (in->flags & O_NONBLOCK)
            flags |= SPLICE_F_NONBLOCK;
        r = pipe_to_file(t, ip, out, &pos, len, flags);
        if (r == LX_PARK)
            return r;
        if (!off_out)
            out->pos = pos;
        else if (copy_to_user(t->mm, off_out, &pos, sizeof pos))
            r = -EFAULT;
        return r;
    }
    if (!op)
        return -EINVAL;             /* neither end is a pipe */
    if (off_in && !in->ops->llseek)
        return -EINVAL;             /* no FMODE_PREAD */
    l4_word_t pos = off_in ? (l4_word_t)oin : in->pos;
    if (out->flags & O_NONBLOCK)
        flags |= SPLICE_F_NONBLOCK;
    r = file_to_pipe(t, in, &pos, op, len, flags);
    if (r == LX_PARK)
        return r;
    if (!off_in)
        in->pos = pos;
    else if (copy_to_user(t->mm, off_in, &pos, sizeof pos))
        r = -EFAULT;
    return r;
}

long sys_tee(struct thread *t, const struct sysargs *a)
{
    unsigned flags = (unsigned)a->a[3];
    if (flags & ~SPLICE_F_ALL)
        return -EINVAL;
    if (!a->a[2])
        return 0;
    struct file *in = fd_get(t, (int)a->a[0]), *out = in ? fd_get(t, (int)a->a[1]) : NULL;
    if (!in || !out)
        return -EBADF;
    struct pipe *ip = pipe_of(in), *op = pipe_of(out);
    if (!can_read(in) || !can_write(out))
        return -EBADF;
    if (!ip || !op || ip == op)
        return -EINVAL;
    if ((in->flags | out->flags) & O_NONBLOCK)
        flags |= SPLICE_F_NONBLOCK;
    return pipe_to_pipe(t, ip, op, a->a[2], flags, true);
}

/* vmsplice: process memory to a pipe (a write end) or a pipe to memory (a read end). */
long sys_vmsplice(struct thread *t, const struct sysargs *a)
{
    unsigned flags = (unsigned)a->a[3];
    if (flags & ~SPLICE_F_ALL)
        return -EINVAL;
    struct file *f = fd_get(t, (int)a->a[0]);
    if (!f || (!can_write(f) && !can_read(f)))
        return -EBADF;
    bool to_pipe = can_write(f);
    struct uio u;
    long e = iov_import(t, a->a[1], a->a[2], &u);
    if (e)
        return e;
    if (!u.resid)
        return 0;
    struct pipe *p = pipe_of(f);
    if (!p)
        return -EBADF;
    if (to_pipe) {
        if (f->flags & O_NONBLOCK)
            flags |= SPLICE_F_NONBLOCK;
        long r = wait_for_space(t, p, flags);
        if (r)
            return r;
        l4_word_t m = pipe_append(p, &u, u.resid);
        return m ? (long)m : u.fault ? -EFAULT : -ENOMEM;
    }
    bool ready;             /* Linux looks at SPLICE_F_NONBLOCK only here, not O_NONBLOCK */
    long r = wait_for_data(t, p, flags, &ready);
    if (!ready)
        return r;
    l4_word_t m = pipe_peek(p, 0, &u, u.resid);
    pipe_consume(p, m);
    return m ? (long)m : -EFAULT;
}
