/* System calls on the file tree and fd table: open, close, the stat family, getdents64,
 * mkdir, rmdir, unlink, rename, link, symlink, readlink, chdir, getcwd, dup, fcntl,
 * access, chmod, truncate, umask.  Thin: paths in through strncpy_from_user, the work in
 * vfs/ and fs/tmpfs/.  Every caller is root: permission bits are kept and reported, and
 * only execute permission is ever refused (as Linux refuses it to root). */
#include "syscalls/handlers.h"
#include "fs/pipe/pipe.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "task/process.h"
#include "tty/tty.h"
#include "vfs/vfs.h"
#include <string.h>

#define F_DUPFD 0
#define F_GETFD 1
#define F_SETFD 2
#define F_GETFL 3
#define F_SETFL 4
#define F_DUPFD_CLOEXEC 1030
#define FD_CLOEXEC 1
#define O_LARGEFILE 0100000
#define SETFL_MASK (O_APPEND | O_NONBLOCK)
#define RENAME_NOREPLACE 1
#define O_TMPFILE (020000000 | O_DIRECTORY)
#define UTIME_NOW  ((1l << 30) - 1)
#define UTIME_OMIT ((1l << 30) - 2)
#define AT_STATX_SYNC_TYPE 0x6000
#define STATX_BASIC_STATS 0x7ffu
#define STATX_MNT_ID 0x1000u
#define STATX_RESERVED 0x80000000u
#define S_ISUID 04000
#define S_ISGID 02000

static char path1[PATH_MAX], path2[PATH_MAX];
static char last1[NAME_MAX + 1], last2[NAME_MAX + 1];

static int get_path(struct thread *t, l4_word_t u, char *buf)
{
    long n = strncpy_from_user(t->mm, buf, u, PATH_MAX);
    return n < 0 ? (int)n : 0;
}

/* The directory a *at call starts from (NULL: cwd, or the path is absolute). */
static int at_dir(struct thread *t, long dirfd, const char *path, struct inode **dir)
{
    *dir = NULL;
    if (path[0] == '/' || (int)dirfd == AT_FDCWD)
        return 0;
    struct file *f = fd_get(t, (int)dirfd);
    if (!f)
        return -EBADF;
    if (!S_ISDIR(f->inode->mode))
        return -ENOTDIR;
    *dir = f->inode;
    return 0;
}

/* Path at (dirfd, user path) into buf, then walked. */
static struct inode *lookup_at(struct thread *t, long dirfd, l4_word_t upath, char *buf,
                               bool follow, int *err)
{
    struct inode *dir;
    if ((*err = get_path(t, upath, buf)) || (*err = at_dir(t, dirfd, buf, &dir)))
        return NULL;
    return path_walk(t, dir, buf, follow, err);
}

static struct inode *parent_at(struct thread *t, long dirfd, l4_word_t upath, char *buf,
                               char *last, bool *trailing, int *err)
{
    struct inode *dir;
    if ((*err = get_path(t, upath, buf)) || (*err = at_dir(t, dirfd, buf, &dir)))
        return NULL;
    struct inode *p = path_parent(t, dir, buf, last, trailing, err);
    if (p && !p->parent) {
        *err = -ENOENT;             /* in a removed directory */
        return NULL;
    }
    return p;
}

static bool dot_or_dotdot(const char *s)
{
    return !strcmp(s, ".") || !strcmp(s, "..");
}

/* Names change only in tmpfs.  In proc, Linux's answers: ENOENT for a new name (proc
 * has no negative entries), EPERM for removing or renaming one. */
static int names_fixed(struct inode *dir, int err)
{
    return dir->iop ? err : 0;
}

/* A name in dir, any file system. */
static struct inode *child(struct thread *t, struct inode *dir, const char *name)
{
    return vfs_lookup(t, dir, name, strlen(name));
}

/* --- open, close ---------------------------------------------------------------------- */

static long do_open(struct thread *t, long dirfd, l4_word_t upath, unsigned flags,
                    unsigned mode)
{
    int err;
    struct inode *i;
    if (flags & O_CREAT) {
        bool trailing;
        struct inode *dir = parent_at(t, dirfd, upath, path1, last1, &trailing, &err);
        if (!dir)
            return err;
        i = dot_or_dotdot(last1) ? path_walk(t, dir, last1, true, &err)
                                 : child(t, dir, last1);
        if (i)
            while (i->mounted)
                i = i->mounted;
        if (i && (flags & O_EXCL))
            return -EEXIST;
        if (i && S_ISLNK(i->mode)) {
            if (flags & O_NOFOLLOW)
                return -ELOOP;
            i = path_walk(t, dir, last1, true, &err);
            if (!i)
                return err;     /* a dangling link: Linux creates its target; not yet */
        }
        if (!i) {
            if (trailing)
                return -EISDIR;
            if ((err = names_fixed(dir, -ENOENT)))
                return err;
            i = tmpfs_new(S_IFREG | (mode & 07777 & ~t->fs->umask));
            if (!i)
                return -ENOMEM;
            if ((err = tmpfs_link(dir, last1, strlen(last1), i))) {
                i->refs = 1;
                inode_put(i);
                return err;
            }
            flags &= ~O_TRUNC;
        }
    } else {
        i = lookup_at(t, dirfd, upath, path1, !(flags & O_NOFOLLOW), &err);
        if (!i)
            return err;
        if (S_ISLNK(i->mode) && !(flags & O_PATH))
            return -ELOOP;
    }
    unsigned acc = flags & O_ACCMODE;
    if ((flags & O_DIRECTORY) && !S_ISDIR(i->mode))
        return -ENOTDIR;
    if (S_ISDIR(i->mode) && (acc != O_RDONLY || (flags & (O_CREAT | O_TRUNC))))
        return -EISDIR;
    if (acc == 3)
        return -EINVAL;
    if ((flags & O_TRUNC) && S_ISREG(i->mode) && acc != O_RDONLY && i->size &&
        (err = tmpfs_truncate(i, 0)))
        return err;
    struct file *f = file_open(i, flags | O_LARGEFILE);
    if (!f)
        return -ENOMEM;
    if (tty_file(f) && (err = tty_open(t, f, flags))) {    /* the controlling terminal */
        file_put(f);
        return err;
    }
    int fd = fd_install(t, f, 0, flags & O_CLOEXEC);
    if (fd < 0)
        file_put(f);
    return fd;
}

/* O_TMPFILE: an unnamed regular file in the directory, gone at its last close. */
static long open_tmpfile(struct thread *t, long dirfd, l4_word_t upath, unsigned flags,
                         unsigned mode)
{
    unsigned acc = flags & O_ACCMODE;
    if ((flags & O_CREAT) || (acc != O_WRONLY && acc != O_RDWR))
        return -EINVAL;
    int err;
    struct inode *dir = lookup_at(t, dirfd, upath, path1, true, &err);
    if (!dir)
        return err;
    if (!S_ISDIR(dir->mode))
        return -ENOTDIR;
    if (dir->iop)
        return -EOPNOTSUPP;
    if (!dir->parent)
        return -ENOENT;
    struct inode *i = tmpfs_new(S_IFREG | (mode & 07777 & ~t->fs->umask));
    if (!i)
        return -ENOMEM;
    i->sb = inode_sb(dir);
    struct file *f = file_open(i, (flags & ~O_TMPFILE) | O_LARGEFILE);
    if (!f) {
        i->sb = NULL;               /* no reference of it was counted */
        i->refs = 1;
        inode_put(i);
        return -ENOMEM;
    }
    int fd = fd_install(t, f, 0, flags & O_CLOEXEC);
    if (fd < 0)
        file_put(f);
    return fd;
}

static long open_at(struct thread *t, long dirfd, l4_word_t upath, unsigned flags, unsigned mode)
{
    if ((flags & O_TMPFILE) == O_TMPFILE)
        return open_tmpfile(t, dirfd, upath, flags, mode);
    if (flags & O_TMPFILE & ~O_DIRECTORY)
        return -EINVAL;             /* __O_TMPFILE without O_DIRECTORY */
    return do_open(t, dirfd, upath, flags, mode);
}

long sys_open(struct thread *t, const struct sysargs *a)
{
    return open_at(t, AT_FDCWD, a->a[0], (unsigned)a->a[1], (unsigned)a->a[2]);
}

long sys_openat(struct thread *t, const struct sysargs *a)
{
    return open_at(t, (long)a->a[0], a->a[1], (unsigned)a->a[2], (unsigned)a->a[3]);
}

long sys_creat(struct thread *t, const struct sysargs *a)
{
    return do_open(t, AT_FDCWD, a->a[0], O_CREAT | O_WRONLY | O_TRUNC, (unsigned)a->a[1]);
}

long sys_close(struct thread *t, const struct sysargs *a)
{
    return fd_close(t, (int)a->a[0]);
}

/* --- the stat family ---------------------------------------------------------------------- */

static long stat_out(struct thread *t, struct inode *i, l4_word_t ubuf)
{
    uint64_t st[18];
    vfs_stat_fill(i, st);
    return copy_to_user(t->mm, ubuf, st, sizeof st);
}

long sys_stat(struct thread *t, const struct sysargs *a)
{
    int err;
    struct inode *i = lookup_at(t, AT_FDCWD, a->a[0], path1, true, &err);
    return i ? stat_out(t, i, a->a[1]) : err;
}

long sys_lstat(struct thread *t, const struct sysargs *a)
{
    int err;
    struct inode *i = lookup_at(t, AT_FDCWD, a->a[0], path1, false, &err);
    return i ? stat_out(t, i, a->a[1]) : err;
}

long sys_fstat(struct thread *t, const struct sysargs *a)
{
    struct file *f = fd_get(t, (int)a->a[0]);
    return f ? stat_out(t, f->inode, a->a[1]) : -EBADF;
}

long sys_newfstatat(struct thread *t, const struct sysargs *a)
{
    unsigned flags = (unsigned)a->a[3];
    if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | 0x800 /* AT_NO_AUTOMOUNT */))
        return -EINVAL;
    int err = get_path(t, a->a[1], path1);
    if (err)
        return err;
    if (!path1[0] && (flags & AT_EMPTY_PATH)) {
        if ((int)a->a[0] == AT_FDCWD)
            return stat_out(t, t->fs->cwd, a->a[2]);
        struct file *f = fd_get(t, (int)a->a[0]);
        return f ? stat_out(t, f->inode, a->a[2]) : -EBADF;
    }
    struct inode *dir;
    if ((err = at_dir(t, (long)a->a[0], path1, &dir)))
        return err;
    struct inode *i = path_walk(t, dir, path1, !(flags & AT_SYMLINK_NOFOLLOW), &err);
    return i ? stat_out(t, i, a->a[2]) : err;
}

/* --- directories ---------------------------------------------------------------------------- */

/* The entry at position f->pos of a directory: ".", "..", then the names by cookie
 * (tmpfs) or the file system's readdir (proc); false at the end. */
static bool next_entry(struct thread *t, struct file *f, struct dirent_out *e)
{
    struct inode *dir = f->inode;
    if (!dir->parent)
        return false;               /* a removed directory lists nothing */
    if (f->pos < 2) {
        struct inode *i = f->pos ? dir->parent : dir;
        e->name = f->pos ? ".." : ".", e->len = f->pos + 1;
        e->ino = i->ino, e->type = (i->mode >> 12) & 15, e->next = f->pos + 1;
        return true;
    }
    if (dir->iop) {
        if (!dir->iop->readdir(t, dir, f->pos - 2, e))
            return false;
        e->next += 2;
        return true;
    }
    for (struct dentry *d = dir->entries; d; d = d->next)
        if (d->cookie >= f->pos) {
            e->name = d->name, e->len = d->len, e->ino = d->inode->ino;
            e->type = (d->inode->mode >> 12) & 15, e->next = d->cookie + 1;
            return true;
        }
    return false;
}

/* getdents64 (struct linux_dirent64) or the old getdents (struct linux_dirent: d_type in
 * the record's last byte). */
static long do_getdents(struct thread *t, const struct sysargs *a, bool is64)
{
    struct file *f = fd_get(t, (int)a->a[0]);
    if (!f)
        return -EBADF;
    struct inode *dir = f->inode;
    if (!S_ISDIR(dir->mode))
        return -ENOTDIR;
    l4_word_t ubuf = a->a[1], count = a->a[2], done = 0;
    struct dirent_out e;
    while (next_entry(t, f, &e)) {
        size_t head = is64 ? 19 : 18;
        l4_word_t reclen = (head + e.len + 1 + (is64 ? 0 : 1) + 7) & ~7ul;
        if (done + reclen > count)
            return done ? (long)done : -EINVAL;
        uint8_t rec[19 + NAME_MAX + 2 + 8];
        memset(rec, 0, reclen);
        uint64_t ino = e.ino, off = e.next;
        uint16_t rl = (uint16_t)reclen;
        memcpy(rec, &ino, 8);
        memcpy(rec + 8, &off, 8);
        memcpy(rec + 16, &rl, 2);
        if (is64)
            rec[18] = (uint8_t)e.type;
        else
            rec[reclen - 1] = (uint8_t)e.type;
        memcpy(rec + head, e.name, e.len);
        if (copy_to_user(t->mm, ubuf + done, rec, reclen))
            return done ? (long)done : -EFAULT;
        done += reclen;
        f->pos = e.next;
    }
    dir->atime = vfs_now();
    return (long)done;
}

long sys_getdents64(struct thread *t, const struct sysargs *a)
{
    return do_getdents(t, a, true);
}

long sys_getdents(struct thread *t, const struct sysargs *a)
{
    return do_getdents(t, a, false);
}

/* The directory for a new name (mkdir, mknod, symlink): path1 and last1 hold the path and
 * its last component; EEXIST if the name is taken (or "." or ".."), ENOENT for a trailing
 * "/" unless the call allows it (mkdir, symlink), and what names_fixed says.  NULL with
 * *err. */
static struct inode *new_name_dir(struct thread *t, long dirfd, l4_word_t upath, bool trailing_ok,
                                  int *err)
{
    bool trailing;
    struct inode *dir = parent_at(t, dirfd, upath, path1, last1, &trailing, err);
    if (!dir)
        return NULL;
    *err = dot_or_dotdot(last1) || child(t, dir, last1) ? -EEXIST
           : trailing && !trailing_ok                   ? -ENOENT
                                                        : names_fixed(dir, -ENOENT);
    return *err ? NULL : dir;
}

/* Link the new inode i as last1 in dir; if that fails (or err already says so), i goes. */
static long link_new(struct inode *dir, struct inode *i, int err)
{
    if (!err)
        err = tmpfs_link(dir, last1, strlen(last1), i);
    if (err) {
        i->refs = 1;
        inode_put(i);
    }
    return err;
}

static long do_mkdir(struct thread *t, long dirfd, l4_word_t upath, unsigned mode)
{
    int err;
    struct inode *dir = new_name_dir(t, dirfd, upath, true, &err);
    if (!dir)
        return err;
    struct inode *i = tmpfs_new(S_IFDIR | (mode & 01777 & ~t->fs->umask));
    if (!i)
        return -ENOMEM;
    return link_new(dir, i, 0);
}

long sys_mkdir(struct thread *t, const struct sysargs *a)
{
    return do_mkdir(t, AT_FDCWD, a->a[0], (unsigned)a->a[1]);
}

long sys_mkdirat(struct thread *t, const struct sysargs *a)
{
    return do_mkdir(t, (long)a->a[0], a->a[1], (unsigned)a->a[2]);
}

/* mknod: FIFOs (fs/pipe/pipe.c), regular files, device and socket nodes (lx is root). */
static long do_rmdir(struct thread *t, long dirfd, l4_word_t upath)
{
    int err;
    bool trailing;
    struct inode *dir = parent_at(t, dirfd, upath, path1, last1, &trailing, &err);
    if (!dir)
        return err;
    if (!strcmp(last1, "."))
        return dir == tmpfs_root && trailing ? -EBUSY : -EINVAL;
    if (!strcmp(last1, ".."))
        return -ENOTEMPTY;
    struct inode *i = child(t, dir, last1);
    if (!i)
        return -ENOENT;
    if (!S_ISDIR(i->mode))
        return -ENOTDIR;
    if ((err = names_fixed(dir, -EPERM)))
        return err;
    if (i->mounted)
        return -EBUSY;
    if (!tmpfs_dir_empty(i))
        return -ENOTEMPTY;
    return tmpfs_unlink(dir, last1, strlen(last1));
}

static long do_unlink(struct thread *t, long dirfd, l4_word_t upath)
{
    int err;
    bool trailing;
    struct inode *dir = parent_at(t, dirfd, upath, path1, last1, &trailing, &err);
    if (!dir)
        return err;
    if (dot_or_dotdot(last1))
        return -EISDIR;
    struct inode *i = child(t, dir, last1);
    if (!i)
        return -ENOENT;
    if (S_ISDIR(i->mode))
        return -EISDIR;
    if (trailing)
        return -ENOTDIR;
    if ((err = names_fixed(dir, -EPERM)))
        return err;
    return tmpfs_unlink(dir, last1, strlen(last1));
}

long sys_rmdir(struct thread *t, const struct sysargs *a)
{
    return do_rmdir(t, AT_FDCWD, a->a[0]);
}

long sys_unlink(struct thread *t, const struct sysargs *a)
{
    return do_unlink(t, AT_FDCWD, a->a[0]);
}

long sys_unlinkat(struct thread *t, const struct sysargs *a)
{
    if (a->a[2] & ~(l4_word_t)AT_REMOVEDIR)
        return -EINVAL;
    return a->a[2] ? do_rmdir(t, (long)a->a[0], a->a[1]) : do_unlink(t, (long)a->a[0], a->a[1]);
}

static bool is_under(struct inode *d, struct inode *ancestor)
{
    for (; d && d != tmpfs_root; d = d->parent)
        if (d == ancestor)
            return true;
    return d == ancestor;
}

static long do_rename(struct thread *t, long ofd, l4_word_t uold, long nfd, l4_word_t unew,
                      unsigned flags)
{
    if (flags & ~RENAME_NOREPLACE)
        return -EINVAL;             /* RENAME_EXCHANGE, RENAME_WHITEOUT: not yet */
    int err;
    bool otrail, ntrail;
    struct inode *odir = parent_at(t, ofd, uold, path1, last1, &otrail, &err);
    if (!odir)
        return err;
    struct inode *ndir = parent_at(t, nfd, unew, path2, last2, &ntrail, &err);
    if (!ndir)
        return err;
    if (dot_or_dotdot(last1) || dot_or_dotdot(last2))
        return -EBUSY;
    struct inode *src = child(t, odir, last1);
    if (!src)
        return -ENOENT;
    struct inode *dst = child(t, ndir, last2);
    if (inode_sb(odir) != inode_sb(ndir))
        return -EXDEV;
    if ((err = names_fixed(odir, -EPERM)))
        return err;
    if (src->mounted || (dst && dst->mounted))
        return -EBUSY;
    if (!S_ISDIR(src->mode) && (otrail || ntrail))
        return -ENOTDIR;
    if (dst && (flags & RENAME_NOREPLACE))
        return -EEXIST;
    if (dst == src)
        return 0;
    if (S_ISDIR(src->mode) && is_under(ndir, src))
        return -EINVAL;             /* into itself */
    if (dst && S_ISDIR(src->mode) && !S_ISDIR(dst->mode))
        return -ENOTDIR;
    if (dst && !S_ISDIR(src->mode) && S_ISDIR(dst->mode))
        return -EISDIR;
    if (dst && S_ISDIR(dst->mode) && !tmpfs_dir_empty(dst))
        return -ENOTEMPTY;
    return tmpfs_move(odir, last1, strlen(last1), ndir, last2, strlen(last2));
}

long sys_rename(struct thread *t, const struct sysargs *a)
{
    return do_rename(t, AT_FDCWD, a->a[0], AT_FDCWD, a->a[1], 0);
}

long sys_renameat(struct thread *t, const struct sysargs *a)
{
    return do_rename(t, (long)a->a[0], a->a[1], (long)a->a[2], a->a[3], 0);
}

long sys_renameat2(struct thread *t, const struct sysargs *a)
{
    return do_rename(t, (long)a->a[0], a->a[1], (long)a->a[2], a->a[3], (unsigned)a->a[4]);
}

static long do_link(struct thread *t, long ofd, l4_word_t uold, long nfd, l4_word_t unew,
                    unsigned flags)
{
    if (flags & ~(unsigned)(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
        return -EINVAL;
    int err;
    struct inode *src;
    if ((err = get_path(t, uold, path1)))
        return err;
    if (!path1[0] && (flags & AT_EMPTY_PATH)) {
        struct file *f = fd_get(t, (int)ofd);
        if (!f)
            return -EBADF;
        src = f->inode;
    } else {
        struct inode *dir;
        if ((err = at_dir(t, ofd, path1, &dir)))
            return err;
        if (!(src = path_walk(t, dir, path1, flags & AT_SYMLINK_FOLLOW, &err)))
            return err;
    }
    if (S_ISDIR(src->mode))
        return -EPERM;
    if (!src->nlink)
        return -ENOENT;
    bool trailing;
    struct inode *ndir = parent_at(t, nfd, unew, path2, last2, &trailing, &err);
    if (!ndir)
        return err;
    if (dot_or_dotdot(last2) || child(t, ndir, last2))
        return -EEXIST;
    if (trailing)
        return -ENOENT;
    if (inode_sb(src) != inode_sb(ndir))
        return -EXDEV;
    if ((err = names_fixed(ndir, -ENOENT)))
        return err;
    return tmpfs_link(ndir, last2, strlen(last2), src);
}

long sys_link(struct thread *t, const struct sysargs *a)
{
    return do_link(t, AT_FDCWD, a->a[0], AT_FDCWD, a->a[1], 0);
}

long sys_linkat(struct thread *t, const struct sysargs *a)
{
    return do_link(t, (long)a->a[0], a->a[1], (long)a->a[2], a->a[3], (unsigned)a->a[4]);
}

static long do_symlink(struct thread *t, l4_word_t utarget, long nfd, l4_word_t unew)
{
    int err;
    if ((err = get_path(t, utarget, path2)))
        return err;
    if (!path2[0])
        return -ENOENT;
    struct inode *dir = new_name_dir(t, nfd, unew, true, &err);
    if (!dir)
        return err;
    struct inode *i = tmpfs_new(S_IFLNK | 0777);
    if (!i)
        return -ENOMEM;
    return link_new(dir, i, tmpfs_set_target(i, path2, strlen(path2)));
}

long sys_symlink(struct thread *t, const struct sysargs *a)
{
    return do_symlink(t, a->a[0], AT_FDCWD, a->a[1]);
}

long sys_symlinkat(struct thread *t, const struct sysargs *a)
{
    return do_symlink(t, a->a[0], (long)a->a[1], a->a[2]);
}

static long do_readlink(struct thread *t, long dirfd, l4_word_t upath, l4_word_t ubuf, long size)
{
    if (size <= 0)
        return -EINVAL;
    int err;
    struct inode *i = lookup_at(t, dirfd, upath, path1, false, &err);
    if (!i)
        return err;
    if (!S_ISLNK(i->mode))
        return -EINVAL;
    int n = vfs_readlink(t, i, path2, size < PATH_MAX ? (size_t)size : PATH_MAX);
    if (n < 0)
        return n;
    err = copy_to_user(t->mm, ubuf, path2, (size_t)n);
    return err ? err : n;
}

long sys_readlink(struct thread *t, const struct sysargs *a)
{
    return do_readlink(t, AT_FDCWD, a->a[0], a->a[1], (long)a->a[2]);
}

long sys_readlinkat(struct thread *t, const struct sysargs *a)
{
    return do_readlink(t, (long)a->a[0], a->a[1], a->a[2], (long)a->a[3]);
}

/* --- the working directory ----------------------------------------------------------------- */

static long set_cwd(struct thread *t, struct inode *i)
{
    if (!S_ISDIR(i->mode))
        return -ENOTDIR;
    inode_get(i);
    inode_put(t->fs->cwd);
    t->fs->cwd = i;
    return 0;
}

long sys_chdir(struct thread *t, const struct sysargs *a)
{
    int err;
    struct inode *i = lookup_at(t, AT_FDCWD, a->a[0], path1, true, &err);
    return i ? set_cwd(t, i) : err;
}

long sys_fchdir(struct thread *t, const struct sysargs *a)
{
    struct file *f = fd_get(t, (int)a->a[0]);
    return f ? set_cwd(t, f->inode) : -EBADF;
}

long sys_getcwd(struct thread *t, const struct sysargs *a)
{
    int n = vfs_getcwd(t, path1, a->a[1] < PATH_MAX ? a->a[1] : PATH_MAX);
    if (n < 0)
        return n;
    int err = copy_to_user(t->mm, a->a[0], path1, (size_t)n);
    return err ? err : n;
}

/* --- fds ------------------------------------------------------------------------------------ */

static long dup_from(struct thread *t, long oldfd, unsigned from, bool cloexec)
{
    struct file *f = fd_get(t, oldfd);
    if (!f)
        return -EBADF;
    file_get(f);
    int fd = fd_install(t, f, from, cloexec);
    if (fd < 0)
        file_put(f);
    return fd;
}

static long dup_to(struct thread *t, long oldfd, long newfd, bool cloexec)
{
    struct file *f = fd_get(t, oldfd);
    if (!f || newfd < 0 || newfd >= LX_NFDS)
        return -EBADF;
    file_get(f);
    if (t->files->fd[newfd])
        fd_close(t, newfd);
    t->files->fd[newfd] = f;
    fd_set_cloexec(t, (unsigned)newfd, cloexec);
    return newfd;
}

long sys_dup(struct thread *t, const struct sysargs *a)
{
    return dup_from(t, (int)a->a[0], 0, false);
}

long sys_dup2(struct thread *t, const struct sysargs *a)
{
    if ((int)a->a[0] == (int)a->a[1])
        return fd_get(t, (int)a->a[0]) ? (long)(int)a->a[1] : -EBADF;
    return dup_to(t, (int)a->a[0], (int)a->a[1], false);
}

long sys_dup3(struct thread *t, const struct sysargs *a)
{
    if (a->a[2] & ~(l4_word_t)O_CLOEXEC || (int)a->a[0] == (int)a->a[1])
        return -EINVAL;
    return dup_to(t, (int)a->a[0], (int)a->a[1], a->a[2] & O_CLOEXEC);
}

long sys_fcntl(struct thread *t, const struct sysargs *a)
{
    int fd = (int)a->a[0];
    struct file *f = fd_get(t, fd);
    if (!f)
        return -EBADF;
    switch (a->a[1]) {
    case F_DUPFD:
    case F_DUPFD_CLOEXEC:
        if (a->a[2] >= LX_NFDS)
            return -EINVAL;
        return dup_from(t, fd, (unsigned)a->a[2], a->a[1] == F_DUPFD_CLOEXEC);
    case F_GETFD:
        return fd_cloexec(t, (unsigned)fd) ? FD_CLOEXEC : 0;
    case F_SETFD:
        fd_set_cloexec(t, (unsigned)fd, a->a[2] & FD_CLOEXEC);
        return 0;
    case F_GETFL:
        return f->flags;
    case F_SETFL:
        f->flags = (f->flags & ~SETFL_MASK) | ((unsigned)a->a[2] & SETFL_MASK);
        return 0;
    default:
        return -EINVAL;
    }
}

/* --- attributes ------------------------------------------------------------------------------ */

static long do_access(struct thread *t, long dirfd, l4_word_t upath, unsigned mode,
                      unsigned flags)
{
    if (mode & ~7u || flags & ~(unsigned)(AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
        return -EINVAL;
    int err;
    struct inode *i = lookup_at(t, dirfd, upath, path1, !(flags & AT_SYMLINK_NOFOLLOW), &err);
    if (!i)
        return err;
    if ((mode & 1) && !S_ISDIR(i->mode) && !(i->mode & 0111))
        return -EACCES;             /* root may execute only what someone may */
    return 0;
}

long sys_access(struct thread *t, const struct sysargs *a)
{
    return do_access(t, AT_FDCWD, a->a[0], (unsigned)a->a[1], 0);
}

long sys_faccessat(struct thread *t, const struct sysargs *a)
{
    return do_access(t, (long)a->a[0], a->a[1], (unsigned)a->a[2], 0);
}

long sys_faccessat2(struct thread *t, const struct sysargs *a)
{
    return do_access(t, (long)a->a[0], a->a[1], (unsigned)a->a[2], (unsigned)a->a[3]);
}

static long set_mode(struct inode *i, unsigned mode)
{
    if (i->iop)
        return -EPERM;              /* proc: Linux's proc_setattr for a mode */
    i->mode = (i->mode & S_IFMT) | (mode & 07777);
    inode_touch(i, false);
    return 0;
}

long sys_chmod(struct thread *t, const struct sysargs *a)
{
    int err;
    struct inode *i = lookup_at(t, AT_FDCWD, a->a[0], path1, true, &err);
    return i ? set_mode(i, (unsigned)a->a[1]) : err;
}

long sys_fchmod(struct thread *t, const struct sysargs *a)
{
    struct file *f = fd_get(t, (int)a->a[0]);
    return f ? set_mode(f->inode, (unsigned)a->a[1]) : -EBADF;
}

long sys_fchmodat(struct thread *t, const struct sysargs *a)
{
    int err;
    struct inode *i = lookup_at(t, (long)a->a[0], a->a[1], path1, true, &err);
    return i ? set_mode(i, (unsigned)a->a[2]) : err;
}

long sys_truncate(struct thread *t, const struct sysargs *a)
{
    if ((long)a->a[1] < 0)
        return -EINVAL;
    int err;
    struct inode *i = lookup_at(t, AT_FDCWD, a->a[0], path1, true, &err);
    if (!i)
        return err;
    if (S_ISDIR(i->mode))
        return -EISDIR;
    if (!S_ISREG(i->mode))
        return -EINVAL;
    if (i->iop)
        return 0;                   /* proc: accepted and ignored, as Linux's setattr does */
    return tmpfs_truncate(i, a->a[1]);
}

long sys_ftruncate(struct thread *t, const struct sysargs *a)
{
    struct file *f = fd_get(t, (int)a->a[0]);
    if (!f)
        return -EBADF;
    if ((long)a->a[1] < 0 || !S_ISREG(f->inode->mode) || (f->flags & O_ACCMODE) == O_RDONLY)
        return -EINVAL;
    if (f->inode->iop)
        return 0;                   /* proc: as truncate */
    return tmpfs_truncate(f->inode, a->a[1]);
}

long sys_umask(struct thread *t, const struct sysargs *a)
{
    unsigned old = t->fs->umask;
    t->fs->umask = (unsigned)a->a[0] & 0777;
    return old;
}

/* --- statx ------------------------------------------------------------------------------ */

/* The inode a path call with AT_EMPTY_PATH / AT_SYMLINK_NOFOLLOW means (path in path1). */
static struct inode *resolve_at(struct thread *t, long dirfd, l4_word_t upath, unsigned flags,
                                int *err)
{
    if ((*err = get_path(t, upath, path1)))
        return NULL;
    if (!path1[0] && (flags & AT_EMPTY_PATH)) {
        if ((int)dirfd == AT_FDCWD)
            return t->fs->cwd;
        struct file *f = fd_get(t, (int)dirfd);
        if (!f)
            *err = -EBADF;
        return f ? f->inode : NULL;
    }
    struct inode *dir;
    if ((*err = at_dir(t, dirfd, path1, &dir)))
        return NULL;
    return path_walk(t, dir, path1, !(flags & AT_SYMLINK_NOFOLLOW), err);
}

long sys_statx(struct thread *t, const struct sysargs *a)
{
    unsigned flags = (unsigned)a->a[2], mask = (unsigned)a->a[3];
    if (flags & ~(unsigned)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | 0x800 | AT_STATX_SYNC_TYPE) ||
        (flags & AT_STATX_SYNC_TYPE) == AT_STATX_SYNC_TYPE || (mask & STATX_RESERVED))
        return -EINVAL;
    int err;
    struct inode *i = resolve_at(t, (long)a->a[0], a->a[1], flags, &err);
    if (!i)
        return err;
    uint64_t st[18];
    vfs_stat_fill(i, st);           /* struct stat's words, reordered below */
    uint8_t x[256];
    memset(x, 0, sizeof x);
    uint32_t u32;
    uint64_t u64;
#define PUT32(off, v) (u32 = (uint32_t)(v), memcpy(x + (off), &u32, 4))
#define PUT64(off, v) (u64 = (uint64_t)(v), memcpy(x + (off), &u64, 8))
    PUT32(0, STATX_BASIC_STATS | STATX_MNT_ID);
    PUT32(4, st[7]);                /* blksize */
    PUT32(16, st[2]);               /* nlink */
    PUT32(20, i->uid);
    PUT32(24, i->gid);
    uint16_t mode = (uint16_t)i->mode;
    memcpy(x + 28, &mode, 2);
    PUT64(32, i->ino);
    PUT64(40, st[6]);               /* size */
    PUT64(48, st[8]);               /* blocks */
    PUT64(64, i->atime / 1000000000), PUT32(72, i->atime % 1000000000);
    PUT64(96, i->ctime / 1000000000), PUT32(104, i->ctime % 1000000000);
    PUT64(112, i->mtime / 1000000000), PUT32(120, i->mtime % 1000000000);
    PUT32(128, i->rdev_major), PUT32(132, i->rdev_minor);
    PUT32(136, 0), PUT32(140, inode_sb(i)->dev);
    PUT64(144, inode_sb(i) - mount_slot(0) + 1);    /* mnt_id */
#undef PUT32
#undef PUT64
    return copy_to_user(t->mm, a->a[4], x, sizeof x);
}

/* --- times ------------------------------------------------------------------------------ */

/* Set atime and mtime: ts[k] in nanoseconds, or UTIME_NOW / UTIME_OMIT. */
static long set_times(struct inode *i, const long ts[2])
{
    uint64_t now = vfs_now();
    if (ts[0] != UTIME_OMIT)
        i->atime = ts[0] == UTIME_NOW ? now : (uint64_t)ts[0];
    if (ts[1] != UTIME_OMIT)
        i->mtime = ts[1] == UTIME_NOW ? now : (uint64_t)ts[1];
    i->ctime = now;
    return 0;
}

/* The common part of utimensat, futimesat, utimes, utime: times already checked and in
 * nanoseconds (NULL: now). */
static long do_utimes(struct thread *t, long dirfd, l4_word_t upath, const long *ns,
                      unsigned flags)
{
    long now2[2] = { UTIME_NOW, UTIME_NOW };
    if (!ns)
        ns = now2;
    if (ns[0] == UTIME_OMIT && ns[1] == UTIME_OMIT)
        return 0;
    if (flags & ~(unsigned)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
        return -EINVAL;
    if (!upath) {                   /* futimens: the file of dirfd itself */
        if (flags & AT_SYMLINK_NOFOLLOW)
            return -EINVAL;
        if ((int)dirfd == AT_FDCWD)
            return -EFAULT;
        struct file *f = fd_get(t, (int)dirfd);
        return f ? set_times(f->inode, ns) : -EBADF;
    }
    int err;
    struct inode *i = resolve_at(t, dirfd, upath, flags, &err);
    return i ? set_times(i, ns) : err;
}

long sys_utimensat(struct thread *t, const struct sysargs *a)
{
    long ts[4], ns[2];
    if (a->a[2]) {
        if (copy_from_user(t->mm, ts, a->a[2], sizeof ts))
            return -EFAULT;
        for (int k = 0; k < 2; k++) {
            long nsec = ts[2 * k + 1];
            if (nsec == UTIME_NOW || nsec == UTIME_OMIT)
                ns[k] = nsec;
            else if (nsec < 0 || nsec >= 1000000000 || ts[2 * k] < 0)
                return -EINVAL;
            else
                ns[k] = ts[2 * k] * 1000000000 + nsec;
        }
    }
    return do_utimes(t, (long)a->a[0], a->a[1], a->a[2] ? ns : NULL, (unsigned)a->a[3]);
}

/* struct timeval[2] at u (0: now) into nanoseconds. */
static long timevals(struct thread *t, l4_word_t u, long ns[2], long **p)
{
    *p = NULL;
    if (!u)
        return 0;
    long tv[4];
    if (copy_from_user(t->mm, tv, u, sizeof tv))
        return -EFAULT;
    for (int k = 0; k < 2; k++) {
        if (tv[2 * k + 1] < 0 || tv[2 * k + 1] >= 1000000 || tv[2 * k] < 0)
            return -EINVAL;
        ns[k] = tv[2 * k] * 1000000000 + tv[2 * k + 1] * 1000;
    }
    *p = ns;
    return 0;
}

long sys_futimesat(struct thread *t, const struct sysargs *a)
{
    long ns[2], *p, e = timevals(t, a->a[2], ns, &p);
    return e ? e : do_utimes(t, (long)a->a[0], a->a[1], p, 0);
}

long sys_utimes(struct thread *t, const struct sysargs *a)
{
    long ns[2], *p, e = timevals(t, a->a[1], ns, &p);
    if (e)
        return e;
    return a->a[0] ? do_utimes(t, AT_FDCWD, a->a[0], p, 0) : -EFAULT;
}

long sys_utime(struct thread *t, const struct sysargs *a)
{
    long tb[2], ns[2];
    if (a->a[1]) {
        if (copy_from_user(t->mm, tb, a->a[1], sizeof tb))
            return -EFAULT;
        ns[0] = tb[0] * 1000000000, ns[1] = tb[1] * 1000000000;
    }
    return a->a[0] ? do_utimes(t, AT_FDCWD, a->a[0], a->a[1] ? ns : NULL, 0) : -EFAULT;
}

/* --- owners ----------------------------------------------------------------------------- */

static long set_owner(struct inode *i, long uid, long gid)
{
    if ((int)uid != -1)
        i->uid = (unsigned)uid;
    if ((int)gid != -1)
        i->gid = (unsigned)gid;
    /* A change of owner drops set-user-ID, and set-group-ID where it means execution. */
    if (!S_ISDIR(i->mode) && ((int)uid != -1 || (int)gid != -1)) {
        i->mode &= ~(unsigned)S_ISUID;
        if (i->mode & 010)
            i->mode &= ~(unsigned)S_ISGID;
    }
    inode_touch(i, false);
    return 0;
}

static long do_chown(struct thread *t, long dirfd, l4_word_t upath, long uid, long gid,
                     unsigned flags)
{
    if (flags & ~(unsigned)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
        return -EINVAL;
    int err;
    struct inode *i = resolve_at(t, dirfd, upath, flags, &err);
    return i ? set_owner(i, uid, gid) : err;
}

long sys_chown(struct thread *t, const struct sysargs *a)
{
    return do_chown(t, AT_FDCWD, a->a[0], (long)a->a[1], (long)a->a[2], 0);
}

long sys_lchown(struct thread *t, const struct sysargs *a)
{
    return do_chown(t, AT_FDCWD, a->a[0], (long)a->a[1], (long)a->a[2], AT_SYMLINK_NOFOLLOW);
}

long sys_fchownat(struct thread *t, const struct sysargs *a)
{
    return do_chown(t, (long)a->a[0], a->a[1], (long)a->a[2], (long)a->a[3], (unsigned)a->a[4]);
}

long sys_fchown(struct thread *t, const struct sysargs *a)
{
    struct file *f = fd_get(t, (int)a->a[0]);
    if (!f || (f->flags & O_PATH))
        return -EBADF;
    return set_owner(f->inode, (long)a->a[1], (long)a->a[2]);
}

/* --- mknod ------------------------------------------------------------------------------ */

static long do_mknod(struct thread *t, long dirfd, l4_word_t upath, unsigned mode, uint64_t dev)
{
    unsigned type = mode & S_IFMT;
    if (!type)
        type = S_IFREG;
    if (type == S_IFDIR)
        return -EPERM;
    if (type != S_IFREG && type != S_IFCHR && type != S_IFBLK && type != S_IFIFO &&
        type != S_IFSOCK)
        return -EINVAL;
    int err;
    struct inode *dir = new_name_dir(t, dirfd, upath, false, &err);
    if (!dir)
        return err;
    struct inode *i = tmpfs_new(type | (mode & 07777 & ~t->fs->umask));
    if (!i)
        return -ENOMEM;
    if (type == S_IFCHR || type == S_IFBLK) {    /* Linux's dev_t: 12-bit major, 20-bit minor */
        i->rdev_major = (unsigned)(((dev >> 8) & 0xfff) | ((dev >> 32) & ~0xfffull));
        i->rdev_minor = (unsigned)((dev & 0xff) | ((dev >> 12) & ~0xffull));
    }
    return link_new(dir, i, 0);
}

long sys_mknod(struct thread *t, const struct sysargs *a)
{
    return do_mknod(t, AT_FDCWD, a->a[0], (unsigned)a->a[1], a->a[2]);
}

long sys_mknodat(struct thread *t, const struct sysargs *a)
{
    return do_mknod(t, (long)a->a[0], a->a[1], (unsigned)a->a[2], a->a[3]);
}
