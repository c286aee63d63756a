/* Open file descriptions: made with the operations of the inode's kind (its file system's
 * for regular files and directories, the registered driver's for a device by number, the
 * pipe's for a FIFO), the open operation run, the release operation at the last put.  An
 * O_PATH description has no operations at all (Linux's empty_fops). */
#include "vfs/file.h"
#include "vfs/fsnotify.h"
#include "fs/pipe/pipe.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "vfs/lock.h"

static int nodev_open(struct thread *t, struct inode *i, struct file *f)
{
    (void)t, (void)i, (void)f;
    return -ENXIO;                  /* a device nobody drives, a socket file */
}

static const struct file_ops nodev_ops = { .open = nodev_open };
static const struct file_ops path_ops = { 0 };

static const struct file_ops *ops_of(struct inode *i)
{
    switch (i->mode & S_IFMT) {
    case S_IFCHR: {
        const struct file_ops *ops = chrdev_ops(i->rdev_major, i->rdev_minor);
        return ops ? ops : &nodev_ops;
    }
    case S_IFIFO:
        return &fifo_ops;           /* fs/pipe/pipe.c */
    case S_IFBLK:
    case S_IFSOCK:
        return &nodev_ops;
    default:
        return i->fop ? i->fop : &path_ops;
    }
}

struct file *file_open(struct thread *t, struct inode *i, unsigned flags,
                       const struct file_ops *ops, int *err)
{
    struct file *f = kmalloc(sizeof *f);
    if (!f) {
        *err = -ENOMEM;
        return NULL;
    }
    f->refs = 1;
    f->flags = flags & ~(unsigned)O_CLOEXEC;   /* a property of the fd, not of the file */
    f->inode = i;
    f->ops = flags & O_PATH ? &path_ops : ops ? ops : ops_of(i);
    inode_get(i);
    if (f->ops->open && (*err = f->ops->open(t, i, f))) {
        inode_put(i);
        kfree(f);
        return NULL;
    }
    f->flags &= ~(unsigned)(O_CREAT | O_EXCL | O_TRUNC | O_NOCTTY);    /* after open, as Linux */
    return f;
}

void file_get(struct file *f)
{
    f->refs++;
}

void file_put(struct file *f)
{
    if (--f->refs)
        return;
    /* Linux's __fput: IN_CLOSE_* first */
    fsnotify_file(f->inode, (f->flags & O_ACCMODE) == O_WRONLY || (f->flags & O_ACCMODE) == O_RDWR
                                ? FS_CLOSE_WRITE : FS_CLOSE_NOWRITE);
    locks_remove_file(f);           /* its OFD locks and flock (vfs/lock.c) */
    if (f->ops->release)
        f->ops->release(f);
    inode_put(f->inode);
    kfree(f);
}

bool dir_emit_dots(struct file *f, struct dir_context *ctx)
{
    struct inode *dir = f->inode;
    if (ctx->pos == 0) {
        if (!ctx->emit(ctx, ".", 1, dir->ino, S_IFDIR >> 12))
            return false;
        ctx->pos = 1;
    }
    if (ctx->pos == 1) {
        struct inode *up = dir->parent ? dir->parent : dir;    /* a root: itself, as Linux */
        if (!ctx->emit(ctx, "..", 2, up->ino, S_IFDIR >> 12))
            return false;
        ctx->pos = 2;
    }
    return true;
}
