/* Reading and writing open files: read, write, readv, writev, pread64, pwrite64, lseek,
 * ioctl.  Bytes move between the process and the file through a bounce buffer, one page
 * of the process at a time, so a bad page ends the transfer exactly at its start (short
 * count, or -EFAULT if nothing moved), as in Linux. */
#include "vfs/vfs.h"
#include "tty.h"

#define FIONBIO     0x5421
#define FIONCLEX    0x5450
#define FIOCLEX     0x5451
#define IOV_MAX     1024
#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2

static char bounce[LX_PAGE];

/* Transfer n bytes between user buf and file f at *pos (advanced). */
static long do_io(struct task *t, struct file *f, l4_word_t buf, l4_word_t n, l4_word_t *pos,
                  bool write)
{
    if ((long)n < 0)
        return -EINVAL;
    unsigned acc = f->flags & O_ACCMODE;
    if ((f->flags & O_PATH) || (write ? acc == O_RDONLY : acc == O_WRONLY))
        return -EBADF;
    if (write ? !f->ops->write : !f->ops->read)
        return S_ISDIR(f->inode->mode) ? -EISDIR : -ENXIO;
    l4_word_t done = 0;
    while (done < n) {
        l4_word_t k = LX_PAGE - ((buf + done) & ~LX_PAGE_MASK);
        if (k > n - done)
            k = n - done;
        long r;
        if (write) {
            if (copy_from_user(&t->mm, bounce, buf + done, k))
                return done ? (long)done : -EFAULT;
            r = f->ops->write(f, bounce, k, *pos);
        } else {
            r = f->ops->read(f, bounce, k, *pos);
            if (r > 0 && copy_to_user(&t->mm, buf + done, bounce, (size_t)r))
                return done ? (long)done : -EFAULT;
        }
        if (r < 0)
            return done ? (long)done : r;
        done += (l4_word_t)r;
        if (f->ops->seekable)
            *pos += (l4_word_t)r;
        if ((l4_word_t)r < k)
            break;
    }
    return (long)done;
}

static long rw(struct task *t, const struct sysargs *a, bool write)
{
    struct file *f = fd_get(t, (long)a->a[0]);
    if (!f)
        return -EBADF;
    if (write && (f->flags & O_APPEND) && S_ISREG(f->inode->mode))
        f->pos = f->inode->size;
    return do_io(t, f, a->a[1], a->a[2], &f->pos, write);
}

long sys_read(struct task *t, const struct sysargs *a)
{
    struct file *f = fd_get(t, (long)a->a[0]);
    if (f && tty_file(f))
        return tty_read(t, f, a->a[1], a->a[2]);    /* job control, parking: tty.c */
    return rw(t, a, false);
}

long sys_write(struct task *t, const struct sysargs *a)
{
    struct file *f = fd_get(t, (long)a->a[0]);
    if (f && tty_file(f))
        return tty_write(t, f, a->a[1], a->a[2]);
    return rw(t, a, true);
}

static long prw(struct task *t, const struct sysargs *a, bool write)
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
    return do_io(t, f, a->a[1], a->a[2], &pos, write);
}

long sys_pread64(struct task *t, const struct sysargs *a)
{
    return prw(t, a, false);
}

long sys_pwrite64(struct task *t, const struct sysargs *a)
{
    return prw(t, a, true);
}

static long rwv(struct task *t, const struct sysargs *a, bool write)
{
    struct file *f = fd_get(t, (long)a->a[0]);
    if (!f)
        return -EBADF;
    if (a->a[2] > IOV_MAX)
        return -EINVAL;
    long total = 0;
    for (l4_word_t i = 0; i < a->a[2]; i++) {
        l4_word_t iov[2];
        if (copy_from_user(&t->mm, iov, a->a[1] + i * sizeof iov, sizeof iov))
            return total ? total : -EFAULT;
        if ((long)iov[1] < 0)
            return -EINVAL;
        if (write && (f->flags & O_APPEND) && S_ISREG(f->inode->mode))
            f->pos = f->inode->size;
        long n = do_io(t, f, iov[0], iov[1], &f->pos, write);
        if (n < 0)
            return total ? total : n;
        total += n;
        if ((l4_word_t)n < iov[1])
            break;
    }
    return total;
}

long sys_readv(struct task *t, const struct sysargs *a)
{
    return rwv(t, a, false);
}

long sys_writev(struct task *t, const struct sysargs *a)
{
    return rwv(t, a, true);
}

long sys_lseek(struct task *t, const struct sysargs *a)
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

long sys_ioctl(struct task *t, const struct sysargs *a)
{
    struct file *f = fd_get(t, (long)a->a[0]);
    if (!f)
        return -EBADF;
    unsigned cmd = (unsigned)a->a[1];   /* Linux's ioctl takes an unsigned int */
    switch (cmd) {                  /* the ones of every file */
    case FIONBIO: {
        int on;
        if (copy_from_user(&t->mm, &on, a->a[2], sizeof on))
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
    return -ENOTTY;
}
