/* System calls on the file tree: open, close, the stat family, getdents, mkdir, mknod,
 * rmdir, unlink, rename, link, symlink, readlink, chdir, getcwd.  Thin: each copies its
 * path in (strncpy_from_user, PATH_MAX), finds where an *at call starts, and calls the VFS
 * (vfs/open.c, vfs/namei.c, vfs/path.c), which checks and orders the errors as Linux. */
#include "syscalls/handlers.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "syscalls/fs_common.h"
#include "task/process.h"
#include "vfs/file.h"
#include <string.h>

char path1[PATH_MAX], path2[PATH_MAX];
static char last1[NAME_MAX + 1], last2[NAME_MAX + 1];

int get_path(struct thread *t, l4_word_t u, char *buf)
{
    long n = strncpy_from_user(t->mm, buf, u, PATH_MAX);
    return n < 0 ? (int)n : 0;
}

/* A path that must not be empty (Linux's getname without LOOKUP_EMPTY): ENOENT first. */
static int get_name(struct thread *t, l4_word_t u, char *buf)
{
    int e = get_path(t, u, buf);
    return e ? e : buf[0] ? 0 : -ENOENT;
}

int at_dir(struct thread *t, long dirfd, const char *path, struct inode **dir)
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

struct inode *lookup_at(struct thread *t, long dirfd, l4_word_t upath, char *buf, bool follow,
                        int *err)
{
    struct inode *dir;
    if ((*err = get_name(t, upath, buf)) || (*err = at_dir(t, dirfd, buf, &dir)))
        return NULL;
    return path_walk(t, dir, buf, follow, err);
}

struct inode *resolve_at(struct thread *t, long dirfd, l4_word_t upath, unsigned flags, int *err)
{
    if ((*err = get_path(t, upath, path1)))
        return NULL;
    if (!path1[0] && !(flags & AT_EMPTY_PATH)) {
        *err = -ENOENT;
        return NULL;
    }
    if (!path1[0]) {
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

/* The directory of a path's last component (into last); *trailing: it ended in '/'. */
static struct inode *parent_at(struct thread *t, long dirfd, l4_word_t upath, char *buf,
                               char *last, bool *trailing, int *err)
{
    struct inode *dir;
    if ((*err = get_name(t, upath, buf)) || (*err = at_dir(t, dirfd, buf, &dir)))
        return NULL;
    return path_parent(t, dir, buf, last, trailing, err);
}

/* --- open, close ---------------------------------------------------------------------- */

static long open_at(struct thread *t, long dirfd, l4_word_t upath, unsigned flags, unsigned mode)
{
    int err = fd_unused(t, 0);      /* EMFILE before anything is made, as Linux */
    struct inode *dir;
    if (err < 0 || (err = get_name(t, upath, path1)) || (err = at_dir(t, dirfd, path1, &dir)))
        return err;
    struct file *f = vfs_open(t, dir, path1, flags, mode, &err);
    return f ? fd_install_new(t, f, flags & O_CLOEXEC) : err;
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
    return open_at(t, AT_FDCWD, a->a[0], O_CREAT | O_WRONLY | O_TRUNC, (unsigned)a->a[1]);
}

long sys_close(struct thread *t, const struct sysargs *a)
{
    return fd_close(t, (int)a->a[0]);
}

/* --- the stat family ---------------------------------------------------------------------- */

struct lx_stat {                    /* x86-64 struct stat */
    uint64_t dev, ino, nlink;
    uint32_t mode, uid, gid, pad0;
    uint64_t rdev;
    int64_t size, blksize, blocks;
    uint64_t atime, atime_ns, mtime, mtime_ns, ctime, ctime_ns;
    int64_t unused[3];
};

static long stat_out(struct thread *t, struct inode *i, l4_word_t ubuf)
{
    struct kstat k;
    struct lx_stat st;
    vfs_getattr(i, &k);
    memset(&st, 0, sizeof st);
    st.dev = k.dev;
    st.ino = k.ino;
    st.nlink = k.nlink;
    st.mode = k.mode;
    st.uid = k.uid;
    st.gid = k.gid;
    st.rdev = (k.rdev_minor & 0xFF) | (k.rdev_major & 0xFFF) << 8 |
              (uint64_t)(k.rdev_minor & ~0xFFu) << 12;
    st.size = (int64_t)k.size;
    st.blksize = (int64_t)k.blksize;
    st.blocks = (int64_t)k.blocks;
    st.atime = k.atime / 1000000000, st.atime_ns = k.atime % 1000000000;
    st.mtime = k.mtime / 1000000000, st.mtime_ns = k.mtime % 1000000000;
    st.ctime = k.ctime / 1000000000, st.ctime_ns = k.ctime % 1000000000;
    return copy_to_user(t->mm, ubuf, &st, sizeof st);
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
    int err;
    struct inode *i = resolve_at(t, (long)a->a[0], a->a[1], flags, &err);
    return i ? stat_out(t, i, a->a[2]) : err;
}

/* --- directories ---------------------------------------------------------------------------- */

/* getdents64's records (struct linux_dirent64) or the old getdents's (struct linux_dirent:
 * d_type in the record's last byte), into the process's buffer as the file system emits. */
struct dirent_buf {
    struct dir_context ctx;
    struct thread *t;
    l4_word_t ubuf, count, done;
    bool is64;
    int err;
};

static bool emit(struct dir_context *ctx, const char *name, size_t len, unsigned long ino,
                 unsigned type)
{
    struct dirent_buf *b = (struct dirent_buf *)ctx;
    size_t head = b->is64 ? 19 : 18;
    l4_word_t reclen = (head + len + 1 + (b->is64 ? 0 : 1) + 7) & ~7ul;
    if (b->done + reclen > b->count) {
        if (!b->done)
            b->err = -EINVAL;       /* not even one record fits */
        return false;
    }
    uint8_t rec[19 + NAME_MAX + 2 + 8];
    memset(rec, 0, reclen);
    uint64_t ino64 = ino, off = ctx->pos + 1;   /* the position after this entry */
    uint16_t rl = (uint16_t)reclen;
    memcpy(rec, &ino64, 8);
    memcpy(rec + 8, &off, 8);
    memcpy(rec + 16, &rl, 2);
    if (b->is64)
        rec[18] = (uint8_t)type;
    else
        rec[reclen - 1] = (uint8_t)type;
    memcpy(rec + head, name, len);
    if (copy_to_user(b->t->mm, b->ubuf + b->done, rec, reclen)) {
        b->err = -EFAULT;
        return false;
    }
    b->done += reclen;
    return true;
}

static long do_getdents(struct thread *t, const struct sysargs *a, bool is64)
{
    struct file *f = fd_get(t, (int)a->a[0]);
    if (!f)
        return -EBADF;
    struct dirent_buf b = { .ctx.emit = emit, .t = t, .ubuf = a->a[1],
                            .count = a->a[2] > 0x7ffff000 ? 0x7ffff000 : a->a[2], .is64 = is64 };
    int e = vfs_iterate(t, f, &b.ctx);
    if (e)
        return e;
    return b.done ? (long)b.done : b.err;
}

long sys_getdents64(struct thread *t, const struct sysargs *a)
{
    return do_getdents(t, a, true);
}

long sys_getdents(struct thread *t, const struct sysargs *a)
{
    return do_getdents(t, a, false);
}

/* --- names -------------------------------------------------------------------------------- */

static long do_mkdir(struct thread *t, long dirfd, l4_word_t upath, unsigned mode)
{
    int err;
    bool trailing;
    struct inode *dir = parent_at(t, dirfd, upath, path1, last1, &trailing, &err);
    return dir ? vfs_mkdir(t, dir, last1, trailing, mode) : err;
}

long sys_mkdir(struct thread *t, const struct sysargs *a)
{
    return do_mkdir(t, AT_FDCWD, a->a[0], (unsigned)a->a[1]);
}

long sys_mkdirat(struct thread *t, const struct sysargs *a)
{
    return do_mkdir(t, (long)a->a[0], a->a[1], (unsigned)a->a[2]);
}

/* mknod: regular files (type 0 too), FIFOs, device and socket nodes; the type is checked
 * before the path (Linux's may_mknod). */
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
    bool trailing;
    struct inode *dir = parent_at(t, dirfd, upath, path1, last1, &trailing, &err);
    if (!dir)
        return err;
    unsigned major = 0, minor = 0;
    if (type == S_IFCHR || type == S_IFBLK) {   /* Linux's dev_t: 12-bit major, 20-bit minor */
        major = (unsigned)(((dev >> 8) & 0xfff) | ((dev >> 32) & ~0xfffull));
        minor = (unsigned)((dev & 0xff) | ((dev >> 12) & ~0xffull));
    }
    return vfs_mknod(t, dir, last1, trailing, type | (mode & 07777), major, minor);
}

long sys_mknod(struct thread *t, const struct sysargs *a)
{
    return do_mknod(t, AT_FDCWD, a->a[0], (unsigned)a->a[1], a->a[2]);
}

long sys_mknodat(struct thread *t, const struct sysargs *a)
{
    return do_mknod(t, (long)a->a[0], a->a[1], (unsigned)a->a[2], a->a[3]);
}

static long do_rmdir(struct thread *t, long dirfd, l4_word_t upath)
{
    int err;
    bool trailing;
    struct inode *dir = parent_at(t, dirfd, upath, path1, last1, &trailing, &err);
    return dir ? vfs_rmdir(t, dir, last1, trailing) : err;
}

static long do_unlink(struct thread *t, long dirfd, l4_word_t upath)
{
    int err;
    bool trailing;
    struct inode *dir = parent_at(t, dirfd, upath, path1, last1, &trailing, &err);
    return dir ? vfs_unlink(t, dir, last1, trailing) : err;
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

static long do_rename(struct thread *t, long ofd, l4_word_t uold, long nfd, l4_word_t unew,
                      unsigned flags)
{
    if ((flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT)) ||
        ((flags & RENAME_EXCHANGE) && (flags & (RENAME_NOREPLACE | RENAME_WHITEOUT))))
        return -EINVAL;
    int err;
    bool otrail, ntrail;
    struct inode *odir = parent_at(t, ofd, uold, path1, last1, &otrail, &err);
    if (!odir)
        return err;
    struct inode *ndir = parent_at(t, nfd, unew, path2, last2, &ntrail, &err);
    if (!ndir)
        return err;
    return vfs_rename(t, odir, last1, otrail, ndir, last2, ntrail, flags);
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
    struct inode *src = resolve_at(t, ofd, uold, (flags & AT_EMPTY_PATH) |
                                   (flags & AT_SYMLINK_FOLLOW ? 0 : AT_SYMLINK_NOFOLLOW), &err);
    if (!src)
        return err;
    bool trailing;
    struct inode *ndir = parent_at(t, nfd, unew, path2, last2, &trailing, &err);
    return ndir ? vfs_link(t, src, ndir, last2, trailing) : err;
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
    bool trailing;
    struct inode *dir = parent_at(t, nfd, unew, path1, last1, &trailing, &err);
    return dir ? vfs_symlink(t, dir, last1, trailing, path2) : err;
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
    struct inode *i = resolve_at(t, dirfd, upath, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, &err);
    if (!i)
        return err;
    if (!S_ISLNK(i->mode))
        return path1[0] ? -EINVAL : -ENOENT;    /* "" names dirfd's own file */
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

long sys_chdir(struct thread *t, const struct sysargs *a)
{
    int err;
    struct inode *i = lookup_at(t, AT_FDCWD, a->a[0], path1, true, &err);
    return i ? vfs_chdir(t, i) : err;
}

long sys_chroot(struct thread *t, const struct sysargs *a)
{
    int err;
    struct inode *i = lookup_at(t, AT_FDCWD, a->a[0], path1, true, &err);
    return i ? vfs_chroot(t, i) : err;
}

long sys_fchdir(struct thread *t, const struct sysargs *a)
{
    struct file *f = fd_get(t, (int)a->a[0]);
    return f ? vfs_chdir(t, f->inode) : -EBADF;
}

long sys_getcwd(struct thread *t, const struct sysargs *a)
{
    int n = vfs_getcwd(t, path1, a->a[1] < PATH_MAX ? a->a[1] : PATH_MAX);
    if (n < 0)
        return n;
    int err = copy_to_user(t->mm, a->a[0], path1, (size_t)n);
    return err ? err : n;
}
