/* Reading and writing open files: read, write, readv, writev, pread64, pwrite64, lseek,
 * ioctl.  Bytes move between the process and the file through a bounce buffer, one page
 * of the process at a time, so a bad page ends the transfer exactly at its start (short
 * count, or -EFAULT if nothing moved), as in Linux. */
/* Reading and writing open files: read, write, readv, writev, pread64, pwrite64, lseek,
 * ioctl, sendfile, and the calls that have nothing to write back.  Thin: the arguments
 * become a transfer (struct uio) and the VFS's common path does the rest (vfs/rw.c: access
 * modes, ranges, parking a blocking caller, the file's operation). */
#include "syscalls/handlers.h"
#include "syscalls/handlers_more.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "task/process.h"
#include "vfs/file.h"

#define FIONCLEX    0x5450
#define FIOCLEX     0x5451
#define IOV_MAX     1024
#define MAX_RW_COUNT 0x7ffff000ul   /* Linux's largest single transfer */
#define SEEK_MAX    4

static struct uio_seg iovs[IOV_MAX];

/* read/write/pread/pwrite of n bytes at buf. */
static long rw1(struct thread *t, struct file *f, l4_word_t buf, l4_word_t n, l4_word_t *pos,
                bool write, bool resumable)
{
    struct uio_seg seg = { buf, n };
    struct uio u;
    uio_init(&u, t->mm, &seg, 1);
    return vfs_rw(t, f, &u, pos, write, resumable);
}

long sys_read(struct thread *t, const struct sysargs *a)
{
    struct file *f = fd_get(t, (long)(int)a->a[0]);
    return f ? rw1(t, f, a->a[1], a->a[2], &f->pos, false, true) : -EBADF;
}

long sys_write(struct thread *t, const struct sysargs *a)
{
    struct file *f = fd_get(t, (long)(int)a->a[0]);
    return f ? rw1(t, f, a->a[1], a->a[2], &f->pos, true, true) : -EBADF;
}

static long prw(struct thread *t, const struct sysargs *a, bool write)
{
    if ((long)a->a[3] < 0)
        return -EINVAL;
    struct file *f = fd_get(t, (long)(int)a->a[0]);
    if (!f || (f->flags & O_PATH))
        return -EBADF;
    if (!f->ops->llseek)
        return -ESPIPE;             /* a pipe or tty: no position to read at */
    l4_word_t pos = a->a[3];
    return rw1(t, f, a->a[1], a->a[2], &pos, write, false);
}

long sys_pread64(struct thread *t, const struct sysargs *a)
{
    return prw(t, a, false);
}

long sys_pwrite64(struct thread *t, const struct sysargs *a)
{
    return prw(t, a, true);
}

/* The iovecs copied in whole and checked as Linux's import_iovec: u set up over them, 0 or
 * -errno.  (One set at a time: lx serves one call at a time.) */
long iov_import(struct thread *t, l4_word_t uvec, l4_word_t n, struct uio *u)
{
    if (n > IOV_MAX)
        return -EINVAL;
    if (n && copy_from_user(t->mm, iovs, uvec, n * sizeof iovs[0]))
        return -EFAULT;
    for (l4_word_t k = 0; k < n; k++)
        if ((long)iovs[k].len < 0)
            return -EINVAL;
    /* Each buffer whole (access_ok) before the lengths are cut to MAX_RW_COUNT. */
    l4_word_t total = 0;
    for (l4_word_t k = 0; k < n; k++) {
        if (!access_ok(iovs[k].base, iovs[k].len))
            return -EFAULT;
        if (iovs[k].len > MAX_RW_COUNT - total)
            iovs[k].len = MAX_RW_COUNT - total;
        total += iovs[k].len;
    }
    uio_init(u, t->mm, iovs, (unsigned)n);
    return 0;
}

/* readv/writev */
static long rwv(struct thread *t, const struct sysargs *a, bool write)
{
    struct file *f = fd_get(t, (long)(int)a->a[0]);
    unsigned acc = f ? f->flags & O_ACCMODE : 0;
    if (!f || (f->flags & O_PATH) || (write ? acc != O_WRONLY && acc != O_RDWR
                                            : acc != O_RDONLY && acc != O_RDWR))
        return -EBADF;
    struct uio u;
    long e = iov_import(t, a->a[1], a->a[2], &u);
    return e ? e : vfs_rw(t, f, &u, &f->pos, write, true);
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
    struct file *f = fd_get(t, (long)(int)a->a[0]);
    if (!f || (f->flags & O_PATH))
        return -EBADF;
    if (a->a[2] > SEEK_MAX)
        return -EINVAL;
    if (!f->ops->llseek)
        return -ESPIPE;
    long r = f->ops->llseek(t, f, (long)a->a[1], (int)a->a[2]);
    if (r >= 0)
        f->pos = (l4_word_t)r;
    return r;
}

/* The requests of every file here; the rest is the file's ioctl operation. */
long sys_ioctl(struct thread *t, const struct sysargs *a)
{
    struct file *f = fd_get(t, (long)(int)a->a[0]);
    if (!f || (f->flags & O_PATH))
        return -EBADF;
    unsigned cmd = (unsigned)a->a[1];   /* Linux's ioctl takes an unsigned int */
    switch (cmd) {
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
    case FIONREAD:
        if (S_ISREG(f->inode->mode)) {  /* the bytes from the position to the end */
            int n = f->pos < f->inode->size ? (int)(f->inode->size - f->pos) : 0;
            return copy_to_user(t->mm, a->a[2], &n, sizeof n);
        }
        break;
    }
    if (f->ops->ioctl)
        return f->ops->ioctl(t, f, cmd, a->a[2]);
    return -ENOTTY;
}

/* --- sendfile --------------------------------------------------------------------------- */

/* Bytes from in_fd (at *offset, or its position) to out_fd through lx, a page at a time. */
long sys_sendfile(struct thread *t, const struct sysargs *a)
{
    struct file *out = fd_get(t, (long)(int)a->a[0]), *in = fd_get(t, (long)(int)a->a[1]);
    if (!out || !in)
        return -EBADF;
    unsigned iacc = in->flags & O_ACCMODE, oacc = out->flags & O_ACCMODE;
    if ((iacc != O_RDONLY && iacc != O_RDWR) || (in->flags & O_PATH) ||
        (oacc != O_WRONLY && oacc != O_RDWR) || (out->flags & O_PATH))
        return -EBADF;
    if (!in->ops->read || !out->ops->write || !in->ops->llseek || (out->flags & O_APPEND))
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
    if (count > MAX_RW_COUNT)
        count = MAX_RW_COUNT;
    long r = vfs_copy(t, in, &pos, out, &out->pos, count);
    if (a->a[2]) {
        long off = (long)pos;
        if (copy_to_user(t->mm, a->a[2], &off, sizeof off))
            return -EFAULT;
    } else {
        in->pos = pos;
    }
    return r;
}

/* --- calls that have nothing to do on a RAM file system ---------------------------------- */

/* fsync, fdatasync: the file's operation (everything is in memory already); Linux's EINVAL
 * for files without one (devices, pipes). */
static long do_fsync(struct thread *t, const struct sysargs *a, bool datasync)
{
    struct file *f = fd_get(t, (long)(int)a->a[0]);
    if (!f || (f->flags & O_PATH))
        return -EBADF;
    return f->ops->fsync ? f->ops->fsync(t, f, datasync) : -EINVAL;
}

long sys_fsync(struct thread *t, const struct sysargs *a)
{
    return do_fsync(t, a, false);
}

long sys_fdatasync(struct thread *t, const struct sysargs *a)
{
    return do_fsync(t, a, true);
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
    if (!f || (f->flags & O_PATH) || (f->flags & O_ACCMODE) == O_WRONLY)
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

