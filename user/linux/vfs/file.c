/* Open file descriptions and the per-process fd table (with close-on-exec), the working
 * directory, the operations of each kind of file, and the VFS's hooks into process
 * creation and exit.  Device files get their behaviour from their numbers: 1,3 null,
 * 1,5 zero, 1,7 full, 1,8 and 1,9 random, 5,0 / 5,1 / 4,64 the console tty (tty/tty.c;
 * fds 0-2 of the processes lx starts are the console). */
#include "vfs/vfs.h"
#include "fs/pipe/pipe.h"
#include "fs/proc/proc.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "lib/random.h"
#include "task/process.h"
#include "tty/tty.h"
#include <string.h>

/* --- operations by kind ------------------------------------------------------------------- */

static long reg_read(struct file *f, char *buf, l4_word_t n, l4_word_t pos)
{
    return tmpfs_read(f->inode, buf, n, pos);
}

static long reg_write(struct file *f, const char *buf, l4_word_t n, l4_word_t pos)
{
    return tmpfs_write(f->inode, buf, n, pos);
}

static long dir_read(struct file *f, char *buf, l4_word_t n, l4_word_t pos)
{
    (void)f, (void)buf, (void)n, (void)pos;
    return -EISDIR;
}

static long null_read(struct file *f, char *buf, l4_word_t n, l4_word_t pos)
{
    (void)f, (void)buf, (void)n, (void)pos;
    return 0;
}

static long null_write(struct file *f, const char *buf, l4_word_t n, l4_word_t pos)
{
    (void)f, (void)buf, (void)pos;
    return (long)n;
}

static long zero_read(struct file *f, char *buf, l4_word_t n, l4_word_t pos)
{
    (void)f, (void)pos;
    memset(buf, 0, n);
    return (long)n;
}

static long full_write(struct file *f, const char *buf, l4_word_t n, l4_word_t pos)
{
    (void)f, (void)buf, (void)n, (void)pos;
    return -ENOSPC;
}

static long random_read(struct file *f, char *buf, l4_word_t n, l4_word_t pos)
{
    (void)f, (void)pos;
    lx_random_bytes(buf, n);
    return (long)n;
}

static const struct file_ops reg_ops = { .read = reg_read, .write = reg_write, .seekable = true };
static const struct file_ops dir_ops = { .read = dir_read, .write = NULL, .seekable = true };
static const struct file_ops null_ops = { .read = null_read, .write = null_write, .seekable = true };
static const struct file_ops zero_ops = { .read = zero_read, .write = null_write, .seekable = true };
static const struct file_ops full_ops = { .read = zero_read, .write = full_write, .seekable = true };
static const struct file_ops random_ops = { .read = random_read, .write = null_write, .seekable = true };
static const struct file_ops nodev_ops = { .read = NULL, .write = NULL, .seekable = false };

/* Character devices registered by other layers (a tty, ...): looked up before the
 * built-in ones below, so a registration replaces those. */
#define MAX_CHRDEVS 16
static struct { unsigned major, minor; const struct file_ops *ops; } chrdevs[MAX_CHRDEVS];

int chrdev_register(unsigned major, unsigned minor, const struct file_ops *ops)
{
    for (unsigned k = 0; k < MAX_CHRDEVS; k++)
        if (!chrdevs[k].ops || (chrdevs[k].major == major && chrdevs[k].minor == minor)) {
            chrdevs[k].major = major, chrdevs[k].minor = minor, chrdevs[k].ops = ops;
            return 0;
        }
    return -ENOSPC;
}

static const struct file_ops *ops_of(struct inode *i)
{
    if (i->fop)
        return i->fop;
    if (S_ISREG(i->mode))
        return &reg_ops;
    if (S_ISDIR(i->mode))
        return &dir_ops;
    if ((i->mode & S_IFMT) == S_IFIFO)
        return &pipe_ops;           /* pipes and FIFOs (fs/pipe/pipe.c) */
    if (S_ISCHR(i->mode)) {
        for (unsigned k = 0; k < MAX_CHRDEVS && chrdevs[k].ops; k++)
            if (chrdevs[k].major == i->rdev_major && chrdevs[k].minor == i->rdev_minor)
                return chrdevs[k].ops;
        unsigned d = i->rdev_major << 8 | i->rdev_minor;
        switch (d) {
        case 0x103: return &null_ops;
        case 0x105: return &zero_ops;
        case 0x107: return &full_ops;
        case 0x108: case 0x109: return &random_ops;
        case 0x500: case 0x501: case 0x440: return &tty_ops;    /* tty/tty.c */
        }
    }
    return &nodev_ops;              /* ENXIO on read and write */
}

/* The console behind fds 0-2: an inode of no directory, never freed. */
static struct inode console_inode = {
    .mode = S_IFCHR | 0620, .nlink = 1, .refs = 1, .rdev_major = 5, .rdev_minor = 1,
    .ino = 0x7fffffff,
};

/* --- open file descriptions --------------------------------------------------------------- */

struct file *file_open(struct inode *i, unsigned flags)
{
    struct file *f = kmalloc(sizeof *f);
    if (!f)
        return NULL;
    f->refs = 1;
    f->flags = flags & ~(O_CREAT | O_EXCL | O_TRUNC | O_NOCTTY | O_CLOEXEC);
    f->inode = i;
    f->ops = ops_of(i);
    if (f->ops == &pipe_ops && pipe_fifo_open(i, f->flags)) {
        kfree(f);                   /* the pipe's ends are counted (released in file_put) */
        return NULL;
    }
    inode_get(i);
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
    if (f->ops->release)
        f->ops->release(f);
    inode_put(f->inode);
    kfree(f);
}

/* --- the fd table ------------------------------------------------------------------------- */

struct file *fd_get(struct thread *t, long fd)
{
    if (fd < 0 || fd >= LX_NFDS || !t->files)
        return NULL;
    return t->files->fd[fd];
}

bool fd_cloexec(struct thread *t, unsigned fd)
{
    return t->files->cloexec[fd / 64] >> (fd % 64) & 1;
}

void fd_set_cloexec(struct thread *t, unsigned fd, bool on)
{
    if (on)
        t->files->cloexec[fd / 64] |= 1ull << (fd % 64);
    else
        t->files->cloexec[fd / 64] &= ~(1ull << (fd % 64));
}

int fd_install(struct thread *t, struct file *f, unsigned from, bool cloexec)
{
    for (unsigned fd = from; fd < LX_NFDS; fd++)
        if (!t->files->fd[fd]) {
            t->files->fd[fd] = f;
            fd_set_cloexec(t, fd, cloexec);
            return (int)fd;
        }
    return -EMFILE;
}

int fd_close(struct thread *t, long fd)
{
    struct file *f = fd_get(t, fd);
    if (!f)
        return -EBADF;
    t->files->fd[fd] = NULL;
    fd_set_cloexec(t, (unsigned)fd, false);
    file_put(f);
    return 0;
}

/* --- stat ----------------------------------------------------------------------------------- */

struct lx_stat {                    /* x86-64 struct stat */
    uint64_t dev, ino, nlink;
    uint32_t mode, uid, gid, pad0;
    uint64_t rdev;
    int64_t size, blksize, blocks;
    uint64_t atime, atime_ns, mtime, mtime_ns, ctime, ctime_ns;
    int64_t unused[3];
};

void vfs_stat_fill(struct inode *i, void *buf)
{
    struct lx_stat *st = buf;
    memset(st, 0, sizeof *st);
    st->dev = inode_sb(i)->dev;     /* an anonymous device per mount: 0:N */
    st->ino = i->ino;
    st->nlink = i->nlink;
    st->mode = i->mode;
    st->uid = i->uid;
    st->gid = i->gid;
    st->rdev = (i->rdev_minor & 0xFF) | (i->rdev_major & 0xFFF) << 8 |
               (uint64_t)(i->rdev_minor & ~0xFFu) << 12;
    st->size = (int64_t)i->size;
    st->blksize = LX_PAGE;
    if (S_ISREG(i->mode))           /* tmpfs counts the pages a file holds, as 512-byte units */
        st->blocks = (int64_t)((i->size + LX_PAGE - 1) / LX_PAGE * (LX_PAGE / 512));
    st->atime = i->atime / 1000000000, st->atime_ns = i->atime % 1000000000;
    st->mtime = i->mtime / 1000000000, st->mtime_ns = i->mtime % 1000000000;
    st->ctime = i->ctime / 1000000000, st->ctime_ns = i->ctime % 1000000000;
}

/* --- the process hooks ---------------------------------------------------------------------- */

bool vfs_task_init(struct thread *t)
{
    t->files = kmalloc(sizeof *t->files);
    t->fs = kmalloc(sizeof *t->fs);
    struct file *con = file_open(&console_inode, O_RDWR);
    if (!t->files || !t->fs || !con || !tmpfs_root) {
        if (con)
            file_put(con);
        kfree(t->files), kfree(t->fs);
        t->files = NULL, t->fs = NULL;
        return false;
    }
    t->files->refs = 1;
    t->fs->refs = 1;
    t->fs->umask = 022;
    t->fs->cwd = tmpfs_root;
    inode_get(tmpfs_root);
    for (unsigned fd = 0; fd < 3; fd++) {
        t->files->fd[fd] = con;
        if (fd)
            file_get(con);
    }
    return true;
}

void vfs_task_exit(struct thread *t)
{
    if (t->files && --t->files->refs == 0) {
        for (unsigned fd = 0; fd < LX_NFDS; fd++)
            if (t->files->fd[fd])
                file_put(t->files->fd[fd]);
        kfree(t->files);
    }
    if (t->fs && --t->fs->refs == 0) {
        inode_put(t->fs->cwd);
        kfree(t->fs);
    }
    t->files = NULL;
    t->fs = NULL;
}

bool vfs_task_fork(struct thread *child, struct thread *parent, bool share_files, bool share_fs)
{
    child->files = parent->files;
    child->fs = parent->fs;
    if (share_files)
        parent->files->refs++;
    else if ((child->files = kmalloc(sizeof *child->files))) {
        *child->files = *parent->files;
        child->files->refs = 1;
        for (unsigned fd = 0; fd < LX_NFDS; fd++)
            if (child->files->fd[fd])
                file_get(child->files->fd[fd]);
    }
    if (share_fs)
        parent->fs->refs++;
    else if ((child->fs = kmalloc(sizeof *child->fs))) {
        *child->fs = *parent->fs;
        child->fs->refs = 1;
        inode_get(child->fs->cwd);
    }
    if (child->files && child->fs)
        return true;
    vfs_task_exit(child);
    return false;
}

void vfs_task_exec(struct thread *t)
{
    for (unsigned fd = 0; fd < LX_NFDS; fd++)
        if (t->files->fd[fd] && fd_cloexec(t, fd))
            fd_close(t, fd);
}

void vfs_shutdown(void)
{
    vfs_umount_all();
    tmpfs_shutdown();
}
