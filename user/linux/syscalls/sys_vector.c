/* Calls on open files that issue 14 item 2 added: preadv, pwritev and their *2 forms with
 * RWF_* flags, fallocate, copy_file_range, close_range, sync_file_range.  Thin, as
 * sys_file.c: the VFS's common path (vfs/rw.c) moves the bytes.  Each checks in Linux 6.1's
 * order (fs/read_write.c, fs/open.c, fs/file.c, fs/sync.c). */
#include "vfs/fsnotify.h"
#include "syscalls/handlers_more.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "task/process.h"
#include "vfs/file.h"

#define RWF_HIPRI  0x01
#define RWF_DSYNC  0x02
#define RWF_SYNC   0x04
#define RWF_NOWAIT 0x08
#define RWF_APPEND 0x10
#define RWF_SUPPORTED (RWF_HIPRI | RWF_DSYNC | RWF_SYNC | RWF_NOWAIT | RWF_APPEND)

/* --- preadv, pwritev, preadv2, pwritev2 --------------------------------------------------- */

/* do_iter_read/do_iter_write after import_iovec: the access mode, nothing for an empty
 * transfer, the flags (kiocb_set_rw_flags), then the common path.  RWF_NOWAIT needs a file
 * that can answer without waiting (FMODE_NOWAIT): Debian's 6.1 answers EOPNOTSUPP for
 * tmpfs files and pipes alike, and so does lx for every file.  RWF_APPEND is the file's
 * O_APPEND for this one call; HIPRI, DSYNC and SYNC change nothing in memory. */
static long rw_flags(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos,
                     bool write, bool positioned, unsigned flags)
{
    unsigned acc = f->flags & O_ACCMODE;
    if (write ? acc != O_WRONLY && acc != O_RDWR : acc != O_RDONLY && acc != O_RDWR)
        return -EBADF;
    if (!u->resid)
        return 0;
    if (flags & ~(unsigned)RWF_SUPPORTED)
        return -EOPNOTSUPP;
    if (flags & RWF_NOWAIT)
        return -EOPNOTSUPP;
    if (!(flags & RWF_APPEND) || !write || (f->flags & O_APPEND))
        return vfs_rw(t, f, u, pos, write, !positioned);
    f->flags |= O_APPEND;
    long r = vfs_rw(t, f, u, pos, write, !positioned);
    f->flags &= ~(unsigned)O_APPEND;
    return r;
}

/* pos -1 (the *2 calls only): the file's position, as readv/writev. */
static long prwv(struct thread *t, const struct sysargs *a, bool write, bool v2)
{
    long pos = (long)a->a[3];
    unsigned flags = v2 ? (unsigned)a->a[5] : 0;
    bool positioned = !(v2 && pos == -1);
    if (positioned && pos < 0)
        return -EINVAL;
    struct file *f = fd_get(t, (long)(int)a->a[0]);
    if (!f || (f->flags & O_PATH))
        return -EBADF;
    if (positioned && !f->ops->llseek)
        return -ESPIPE;
    struct uio u;
    long e = iov_import(t, a->a[1], a->a[2], &u);
    if (e)
        return e;
    l4_word_t p = (l4_word_t)pos;
    return rw_flags(t, f, &u, positioned ? &p : &f->pos, write, positioned, flags);
}

long sys_preadv(struct thread *t, const struct sysargs *a)
{
    return prwv(t, a, false, false);
}

long sys_pwritev(struct thread *t, const struct sysargs *a)
{
    return prwv(t, a, true, false);
}

long sys_preadv2(struct thread *t, const struct sysargs *a)
{
    return prwv(t, a, false, true);
}

long sys_pwritev2(struct thread *t, const struct sysargs *a)
{
    return prwv(t, a, true, true);
}

/* --- fallocate ------------------------------------------------------------------------------ */

#define FALLOC_FL_KEEP_SIZE      0x01
#define FALLOC_FL_PUNCH_HOLE     0x02
#define FALLOC_FL_COLLAPSE_RANGE 0x08
#define FALLOC_FL_ZERO_RANGE     0x10
#define FALLOC_FL_INSERT_RANGE   0x20
#define FALLOC_FL_UNSHARE_RANGE  0x40
#define FALLOC_FL_SUPPORTED      0x7b

/* vfs_fallocate's checks; the file's operation does the rest (tmpfs: fs/tmpfs/seals.c). */
long sys_fallocate(struct thread *t, const struct sysargs *a)
{
    struct file *f = fd_get(t, (long)(int)a->a[0]);
    int mode = (int)a->a[1];
    long off = (long)a->a[2], len = (long)a->a[3];
    if (!f || (f->flags & O_PATH))
        return -EBADF;
    if (off < 0 || len <= 0)
        return -EINVAL;
    if (mode & ~FALLOC_FL_SUPPORTED)
        return -EOPNOTSUPP;
    if ((mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) ==
        (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE))
        return -EOPNOTSUPP;
    if ((mode & FALLOC_FL_PUNCH_HOLE) && !(mode & FALLOC_FL_KEEP_SIZE))
        return -EOPNOTSUPP;
    if (((mode & FALLOC_FL_COLLAPSE_RANGE) && (mode & ~FALLOC_FL_COLLAPSE_RANGE)) ||
        ((mode & FALLOC_FL_INSERT_RANGE) && (mode & ~FALLOC_FL_INSERT_RANGE)) ||
        ((mode & FALLOC_FL_UNSHARE_RANGE) &&
         (mode & ~(FALLOC_FL_UNSHARE_RANGE | FALLOC_FL_KEEP_SIZE))))
        return -EINVAL;
    unsigned acc = f->flags & O_ACCMODE;
    if (acc != O_WRONLY && acc != O_RDWR)
        return -EBADF;
    unsigned m = f->inode->mode;
    if (S_ISFIFO(m))
        return -ESPIPE;
    if (S_ISDIR(m))
        return -EISDIR;
    if (!S_ISREG(m) && !S_ISBLK(m))
        return -ENODEV;
    if ((l4_word_t)off + (l4_word_t)len > LX_MAX_LFS)
        return -EFBIG;              /* past MAX_LFS_FILESIZE (both are below 2^63: no wrap) */
    if (!f->ops->fallocate)
        return -EOPNOTSUPP;
    int e = f->ops->fallocate(t, f, mode, (l4_word_t)off, (l4_word_t)len);
    if (!e)
        fsnotify_file(f->inode, FS_MODIFY);
    return e;
}

/* --- copy_file_range ------------------------------------------------------------------------- */

/* copy_file_range (flags must be 0): between regular files, the positions from the pointers
 * or the files; the count cut at in's end; overlapping ranges of one file EINVAL. */
long sys_copy_file_range(struct thread *t, const struct sysargs *a)
{
    struct file *in = fd_get(t, (long)(int)a->a[0]), *out = fd_get(t, (long)(int)a->a[2]);
    if (!in || (in->flags & O_PATH) || !out || (out->flags & O_PATH))
        return -EBADF;
    long pin = (long)in->pos, pout = (long)out->pos;
    if ((a->a[1] && copy_from_user(t->mm, &pin, a->a[1], sizeof pin)) ||
        (a->a[3] && copy_from_user(t->mm, &pout, a->a[3], sizeof pout)))
        return -EFAULT;
    l4_word_t count = a->a[4];
    if ((unsigned)a->a[5])
        return -EINVAL;
    struct inode *ii = in->inode, *io = out->inode;
    if (S_ISDIR(ii->mode) || S_ISDIR(io->mode))
        return -EISDIR;
    if (!S_ISREG(ii->mode) || !S_ISREG(io->mode))
        return -EINVAL;
    unsigned iacc = in->flags & O_ACCMODE, oacc = out->flags & O_ACCMODE;
    if ((iacc != O_RDONLY && iacc != O_RDWR) || (oacc != O_WRONLY && oacc != O_RDWR) ||
        (out->flags & O_APPEND))
        return -EBADF;
    if ((l4_word_t)pin + count < (l4_word_t)pin || (l4_word_t)pout + count < (l4_word_t)pout)
        return -EOVERFLOW;
    if (pin >= 0 && (l4_word_t)pin >= ii->size)
        count = 0;
    else if (pin >= 0 && count > ii->size - (l4_word_t)pin)
        count = ii->size - (l4_word_t)pin;
    if (ii == io && pout + (long)count > pin && pout < pin + (long)count)
        return -EINVAL;
    if (pin < 0 || pout < 0 || (long)(pin + (long)count) < 0 || (long)(pout + (long)count) < 0)
        return -EINVAL;             /* rw_verify_area */
    if (!count)
        return 0;
    if (count > 0x7ffff000ul)
        count = 0x7ffff000ul;       /* MAX_RW_COUNT */
    l4_word_t p_in = (l4_word_t)pin, p_out = (l4_word_t)pout;
    long r = vfs_copy(t, in, &p_in, out, &p_out, count);
    if (r <= 0)
        return r;
    pin = (long)p_in, pout = (long)p_out;
    if (a->a[1] ? copy_to_user(t->mm, a->a[1], &pin, sizeof pin) : (in->pos = p_in, 0))
        return -EFAULT;
    if (a->a[3] ? copy_to_user(t->mm, a->a[3], &pout, sizeof pout) : (out->pos = p_out, 0))
        return -EFAULT;
    return r;
}

/* --- close_range, sync_file_range --------------------------------------------------------- */

#define CLOSE_RANGE_UNSHARE (1u << 1)
#define CLOSE_RANGE_CLOEXEC (1u << 2)

long sys_close_range(struct thread *t, const struct sysargs *a)
{
    unsigned first = (unsigned)a->a[0], last = (unsigned)a->a[1], flags = (unsigned)a->a[2];
    if (flags & ~(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC))
        return -EINVAL;
    if (first > last)
        return -EINVAL;
    if ((flags & CLOSE_RANGE_UNSHARE) && !fd_unshare(t))
        return -ENOMEM;
    for (long fd = fd_next(t, first); fd >= 0 && fd <= (long)last; fd = fd_next(t, (unsigned long)fd + 1)) {
        if (flags & CLOSE_RANGE_CLOEXEC)
            fd_set_cloexec(t, (unsigned)fd, true);
        else
            fd_close(t, fd);
    }
    return 0;
}

#define SYNC_FILE_RANGE_VALID 7

long sys_sync_file_range(struct thread *t, const struct sysargs *a)
{
    long off = (long)a->a[1], n = (long)a->a[2];
    if (a->a[3] & ~(l4_word_t)SYNC_FILE_RANGE_VALID)
        return -EINVAL;
    if (off < 0 || (long)((l4_word_t)off + (l4_word_t)n) < 0 || (l4_word_t)off + (l4_word_t)n < (l4_word_t)off)
        return -EINVAL;
    struct file *f = fd_get(t, (long)(int)a->a[0]);
    if (!f || (f->flags & O_PATH))
        return -EBADF;
    unsigned m = f->inode->mode;
    if (!S_ISREG(m) && !S_ISBLK(m) && !S_ISDIR(m) && !S_ISLNK(m))
        return -ESPIPE;
    return 0;                       /* everything is in memory */
}
