/* Reading and writing open files: read, write, readv, writev, pread64, pwrite64, lseek,
 * ioctl.  Bytes move between the process and the file through a bounce buffer, one page
 * of the process at a time, so a bad page ends the transfer exactly at its start (short
 * count, or -EFAULT if nothing moved), as in Linux. */
#include "syscalls/handlers.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "park/park.h"
#include "signal/signal.h"
#include "task/process.h"
#include "tty/tty.h"
#include "vfs/poll.h"
#include "vfs/vfs.h"

#define FIONCLEX    0x5450
#define FIOCLEX     0x5451
#define IOV_MAX     1024
#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2

static char bounce[LX_PAGE];

/* Transfer up to n bytes between user buf and file f at *pos (advanced); *done: the bytes
 * moved.  0, or the error that stopped it (-EAGAIN: the file would have to wait).  A write
 * hands the file at most one page's worth per call, gathered from at most two user pages,
 * so a pipe sees a write of up to PIPE_BUF bytes whole (its atomicity, fs/pipe/pipe.c). */
static long do_io(struct thread *t, struct file *f, l4_word_t buf, l4_word_t n, l4_word_t *pos,
                  bool write, l4_word_t *done)
{
    *done = 0;
    if ((long)n < 0)
        return -EINVAL;
    unsigned acc = f->flags & O_ACCMODE;
    if ((f->flags & O_PATH) || (write ? acc == O_RDONLY : acc == O_WRONLY))
        return -EBADF;
    if (write ? !f->ops->write : !f->ops->read)
        return S_ISDIR(f->inode->mode) ? -EISDIR : -ENXIO;
    while (*done < n) {
        l4_word_t at = buf + *done, k = n - *done;
        l4_word_t first = LX_PAGE - (at & ~LX_PAGE_MASK);
        long r;
        if (write) {
            if (k > LX_PAGE)
                k = LX_PAGE;
            if (first > k)
                first = k;
            if (copy_from_user(t->mm, bounce, at, first))
                return -EFAULT;
            if (first < k && copy_from_user(t->mm, bounce + first, at + first, k - first))
                k = first;          /* the next round stops at the bad page */
            r = f->ops->write(f, bounce, k, *pos);
            if (r == -EPIPE)
                signal_raise(t, SIGPIPE);
        } else {
            if (k > first)
                k = first;
            r = f->ops->read(f, bounce, k, *pos);
            if (r > 0 && copy_to_user(t->mm, at, bounce, (size_t)r))
                return -EFAULT;
        }
        if (r < 0)
            return r;
        *done += (l4_word_t)r;
        if (f->ops->seekable)
            *pos += (l4_word_t)r;
        if ((l4_word_t)r < k)
            break;
    }
    return 0;
}

/* A signal interrupts a parked read or write: the bytes moved so far, if any (Linux's pipe
 * and tty return the partial count, never EINTR, after progress), else a restart (with
 * SA_RESTART or no handler) or EINTR.  A read parks only before it moved anything. */
static long io_interrupted(struct thread *t)
{
    l4_word_t done = t->park.u.io.done;
    return done ? (long)done : -ERESTARTSYS;
}

/* The end of a run of read/write/readv/writev that moved `done` bytes and stopped with err.
 * A file that would wait (-EAGAIN) parks a caller without O_NONBLOCK on the queues its poll
 * op names (docs/linux/pipes.md): a read that moved nothing, or a write, whose progress is
 * kept in the thread's park.u.io for the rerun (which sees the same arguments and goes on
 * from there). */
static long io_end(struct thread *t, struct file *f, bool write, l4_word_t done, long err)
{
    struct park_io *io = &t->park.u.io;
    if (err == -EAGAIN && !(f->flags & O_NONBLOCK) && f->ops->poll && (write || !done)) {
        io->done += done;
        f->ops->poll(f, t);
        return park_call_fn(t, 0, io_interrupted);
    }
    l4_word_t total = io->done + done;
    io->done = 0;
    return total ? (long)total : err;
}

static long rw(struct thread *t, const struct sysargs *a, bool write)
{
    struct file *f = fd_get(t, (long)a->a[0]);
    if (!f)
        return -EBADF;
    struct park_io *io = park_io(&t->park);
    if (write && (f->flags & O_APPEND) && S_ISREG(f->inode->mode))
        f->pos = f->inode->size;
    l4_word_t done, skip = io->done;
    if (skip > a->a[2])
        skip = a->a[2];
    long e = do_io(t, f, a->a[1] + skip, a->a[2] - skip, &f->pos, write, &done);
    return io_end(t, f, write, done, e);
}

long sys_read(struct thread *t, const struct sysargs *a)
{
    struct file *f = fd_get(t, (long)a->a[0]);
    if (f && tty_file(f))
        return tty_read(t, f, a->a[1], a->a[2]);    /* job control, parking: tty/tty.c */
    return rw(t, a, false);
}

long sys_write(struct thread *t, const struct sysargs *a)
{
    struct file *f = fd_get(t, (long)a->a[0]);
    if (f && tty_file(f))
        return tty_write(t, f, a->a[1], a->a[2]);
    return rw(t, a, true);
}

static long prw(struct thread *t, const struct sysargs *a, bool write)
{
    struct file *f = fd_get(t, (long)a->a[0]);
    if (!f)
        return -EBADF;
    if (!f->ops->seekable)
        return -ESPIPE;
    if ((long)a->a[3] < 0)
        return -EINVAL;
    l4_word_t pos = a->a[3];        /* Linux's pwrite appends under O_APPEND too */
    if (write && (f->flags & O_APPEND) && S_ISREG(f->inode->mode))
        pos = f->inode->size;
    l4_word_t done;
    long e = do_io(t, f, a->a[1], a->a[2], &pos, write, &done);
    return done ? (long)done : e;
}

long sys_pread64(struct thread *t, const struct sysargs *a)
{
    return prw(t, a, false);
}

long sys_pwrite64(struct thread *t, const struct sysargs *a)
{
    return prw(t, a, true);
}

static long rwv(struct thread *t, const struct sysargs *a, bool write)
{
    struct file *f = fd_get(t, (long)a->a[0]);
    if (!f)
        return -EBADF;
    if (a->a[2] > IOV_MAX)
        return -EINVAL;
    struct park_io *io = park_io(&t->park);
    l4_word_t skip = io->done, done = 0;    /* a rerun goes on after the bytes moved */
    long e = 0;
    for (l4_word_t i = 0; i < a->a[2]; i++) {
        l4_word_t iov[2], moved;
        if (copy_from_user(t->mm, iov, a->a[1] + i * sizeof iov, sizeof iov)) {
            e = -EFAULT;
            break;
        }
        if ((long)iov[1] < 0) {
            e = -EINVAL;
            break;
        }
        if (skip >= iov[1]) {
            skip -= iov[1];
            continue;
        }
        if (write && (f->flags & O_APPEND) && S_ISREG(f->inode->mode))
            f->pos = f->inode->size;
        e = do_io(t, f, iov[0] + skip, iov[1] - skip, &f->pos, write, &moved);
        done += moved;
        if (e || moved < iov[1] - skip)
            break;
        skip = 0;
    }
    return io_end(t, f, write, done, e);
}

long sys_readv(struct thread *t, const struct sysargs *a)
{
    return rwv(t, a, false);
}

long sys_writev(struct thread *t, const struct sysargs *a)
{
    return rwv(t, a, true);
}

long sys_lseek(struct thread *t, const struct sysargs *a)
{
    struct file *f = fd_get(t, (long)a->a[0]);
    if (!f)
        return -EBADF;
    if (!f->ops->seekable)
        return -ESPIPE;
    long off = (long)a->a[1], base;
    switch (a->a[2]) {
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = (long)f->pos; break;
    case SEEK_END: base = (long)f->inode->size; break;
    default: return -EINVAL;
    }
    if ((off > 0 && base > __LONG_MAX__ - off) || base + off < 0)
        return -EINVAL;
    f->pos = (l4_word_t)(base + off);
    return (long)f->pos;
}

/* The file-independent requests here; the rest is the file's ioctl op (pipes: FIONREAD). */
long sys_ioctl(struct thread *t, const struct sysargs *a)
{
    struct file *f = fd_get(t, (long)a->a[0]);
    if (!f)
        return -EBADF;
    unsigned cmd = (unsigned)a->a[1];   /* Linux's ioctl takes an unsigned int */
    switch (cmd) {                  /* the ones of every file */
    case FIONBIO: {
        int on;
        if (copy_from_user(t->mm, &on, a->a[2], sizeof on))
            return -EFAULT;
        f->flags = on ? f->flags | O_NONBLOCK : f->flags & ~O_NONBLOCK;
        return 0;
    }
    case FIOCLEX:
    case FIONCLEX:
        fd_set_cloexec(t, (unsigned)a->a[0], cmd == FIOCLEX);
        return 0;
    }
    if (f->ops->ioctl)
        return f->ops->ioctl(f, t, cmd, a->a[2]);
    if (cmd == FIONREAD && S_ISREG(f->inode->mode)) {
        int n = f->pos < f->inode->size ? (int)(f->inode->size - f->pos) : 0;
        return copy_to_user(t->mm, a->a[2], &n, sizeof n);
    }
    return -ENOTTY;
}

/* --- sendfile --------------------------------------------------------------------------- */

/* Bytes from in_fd (at *offset, or its position) to out_fd through lx, a page at a time. */
long sys_sendfile(struct thread *t, const struct sysargs *a)
{
    struct file *out = fd_get(t, (long)(int)a->a[0]), *in = fd_get(t, (long)(int)a->a[1]);
    if (!out || !in)
        return -EBADF;
    if ((in->flags & O_ACCMODE) == O_WRONLY || (in->flags & O_PATH) ||
        (out->flags & O_ACCMODE) == O_RDONLY || (out->flags & O_PATH))
        return -EBADF;
    if (!in->ops->read || !out->ops->write || !in->ops->seekable || (out->flags & O_APPEND))
        return -EINVAL;
    l4_word_t pos = in->pos, count = a->a[3];
    if (a->a[2]) {
        long off;
        if (copy_from_user(t->mm, &off, a->a[2], sizeof off))
            return -EFAULT;
        if (off < 0)
            return -EINVAL;
        pos = (l4_word_t)off;
    }
    if ((long)count < 0)
        return -EINVAL;
    if (count > 0x7ffff000)
        count = 0x7ffff000;         /* Linux's MAX_RW_COUNT */
    l4_word_t done = 0;
    long err = 0;
    while (done < count) {
        l4_word_t k = count - done < LX_PAGE ? count - done : LX_PAGE;
        long r = in->ops->read(in, bounce, k, pos);
        if (r <= 0) {
            err = r;
            break;
        }
        long w = out->ops->write(out, bounce, (l4_word_t)r, out->pos);
        if (w <= 0) {
            err = w;
            break;
        }
        if (out->ops->seekable)
            out->pos += (l4_word_t)w;
        pos += (l4_word_t)w;
        done += (l4_word_t)w;
        if (w < r)
            break;
    }
    if (a->a[2]) {
        long off = (long)pos;
        if (copy_to_user(t->mm, a->a[2], &off, sizeof off))
            return -EFAULT;
    } else {
        in->pos = pos;
    }
    return done ? (long)done : err;
}

/* --- calls that have nothing to do on a RAM file system ---------------------------------- */

/* fsync, fdatasync: everything is in memory already; Linux's EINVAL for files without it. */
static long do_fsync(struct thread *t, const struct sysargs *a)
{
    struct file *f = fd_get(t, (long)(int)a->a[0]);
    if (!f || (f->flags & O_PATH))
        return -EBADF;
    unsigned m = f->inode->mode;
    return S_ISREG(m) || S_ISDIR(m) || f->inode->iop ? 0 : -EINVAL;
}

long sys_fsync(struct thread *t, const struct sysargs *a)
{
    return do_fsync(t, a);
}

long sys_fdatasync(struct thread *t, const struct sysargs *a)
{
    return do_fsync(t, a);
}

long sys_sync(struct thread *t, const struct sysargs *a)
{
    (void)t, (void)a;
    return 0;
}

long sys_syncfs(struct thread *t, const struct sysargs *a)
{
    return fd_get(t, (long)(int)a->a[0]) ? 0 : -EBADF;
}

long sys_readahead(struct thread *t, const struct sysargs *a)
{
    struct file *f = fd_get(t, (long)(int)a->a[0]);
    if (!f || (f->flags & O_ACCMODE) == O_WRONLY)
        return -EBADF;
    return S_ISREG(f->inode->mode) ? 0 : -EINVAL;
}

long sys_fadvise64(struct thread *t, const struct sysargs *a)
{
    struct file *f = fd_get(t, (long)(int)a->a[0]);
    if (!f)
        return -EBADF;
    if (S_ISFIFO(f->inode->mode))
        return -ESPIPE;
    if (a->a[3] > 5 || (long)a->a[2] < 0)   /* POSIX_FADV_NORMAL..NOREUSE */
        return -EINVAL;
    return 0;
}

/* flock: accepted, with no lock kept: lx's processes never wait for one another's locks
 * (docs/linux/files.md). */
long sys_flock(struct thread *t, const struct sysargs *a)
{
    struct file *f = fd_get(t, (long)(int)a->a[0]);
    if (!f || (f->flags & O_PATH))
        return -EBADF;
    unsigned op = (unsigned)a->a[1] & ~4u;  /* LOCK_NB */
    if (op != 1 && op != 2 && op != 8)      /* LOCK_SH, LOCK_EX, LOCK_UN */
        return -EINVAL;
    return 0;
}
