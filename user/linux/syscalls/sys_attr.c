/* System calls on attributes: access, chmod, chown, truncate, umask, statx and the times.
 * Thin: the path or fd, then the VFS's checked change (vfs/attr.c). */
#include "syscalls/handlers.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "syscalls/fs_common.h"
#include "task/process.h"
#include "vfs/file.h"
#include "vfs/permission.h"
#include <string.h>

#define AT_STATX_SYNC_TYPE 0x6000
#define AT_NO_AUTOMOUNT    0x800
#define STATX_BASIC_STATS  0x7ffu
#define STATX_MNT_ID       0x1000u
#define STATX_RESERVED     0x80000000u

/* An fd that names a file for a change: O_PATH ones do not (EBADF), as Linux's fdget. */
static struct file *fd_file(struct thread *t, long fd)
{
    struct file *f = fd_get(t, (int)fd);
    return f && !(f->flags & O_PATH) ? f : NULL;
}

/* --- access ------------------------------------------------------------------------------ */

static int access_check(struct thread *t, long dirfd, l4_word_t upath, unsigned mode,
                        unsigned flags)
{
    int err;
    struct inode *i = resolve_at(t, dirfd, upath, flags, &err);
    if (!i)
        return err;
    /* mode is R_OK 4, W_OK 2, X_OK 1: MAY_READ, MAY_WRITE, MAY_EXEC */
    if ((err = inode_permission(t, i, (int)mode)))
        return err;
    if ((mode & 1) && S_ISREG(i->mode) && (i->sb->flags & MS_NOEXEC))
        return -EACCES;
    if ((mode & 2) && (i->sb->flags & MS_RDONLY) && (S_ISREG(i->mode) || S_ISDIR(i->mode) ||
                                                     S_ISLNK(i->mode)))
        return -EROFS;
    return 0;
}

static long do_access(struct thread *t, long dirfd, l4_word_t upath, unsigned mode,
                      unsigned flags)
{
    if (mode & ~7u || flags & ~(unsigned)(AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
        return -EINVAL;
    /* The real ids, walk included (Linux's access_override_creds), unless AT_EACCESS. */
    struct access_ids saved;
    if (!(flags & AT_EACCESS))
        access_override_begin(t, &saved);
    int err = access_check(t, dirfd, upath, mode, flags);
    if (!(flags & AT_EACCESS))
        access_override_end(t, &saved);
    return err;
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

/* --- modes, owners, sizes ------------------------------------------------------------------- */

static long chmod_inode(struct thread *t, struct inode *i, unsigned mode)
{
    if (i->sb->flags & MS_RDONLY)
        return -EROFS;
    return vfs_chmod(t, i, mode);
}

long sys_chmod(struct thread *t, const struct sysargs *a)
{
    int err;
    struct inode *i = lookup_at(t, AT_FDCWD, a->a[0], path1, true, &err);
    return i ? chmod_inode(t, i, (unsigned)a->a[1]) : err;
}

long sys_fchmod(struct thread *t, const struct sysargs *a)
{
    struct file *f = fd_file(t, (long)a->a[0]);
    return f ? chmod_inode(t, f->inode, (unsigned)a->a[1]) : -EBADF;
}

long sys_fchmodat(struct thread *t, const struct sysargs *a)
{
    int err;
    struct inode *i = lookup_at(t, (long)a->a[0], a->a[1], path1, true, &err);
    return i ? chmod_inode(t, i, (unsigned)a->a[2]) : err;
}

static long chown_inode(struct thread *t, struct inode *i, long uid, long gid)
{
    if (i->sb->flags & MS_RDONLY)
        return -EROFS;
    return vfs_chown(t, i, uid, gid);
}

static long do_chown(struct thread *t, long dirfd, l4_word_t upath, long uid, long gid,
                     unsigned flags)
{
    if (flags & ~(unsigned)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
        return -EINVAL;
    int err;
    struct inode *i = resolve_at(t, dirfd, upath, flags, &err);
    return i ? chown_inode(t, i, uid, gid) : err;
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
    struct file *f = fd_file(t, (long)a->a[0]);
    return f ? chown_inode(t, f->inode, (long)a->a[1], (long)a->a[2]) : -EBADF;
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
    if (i->sb->flags & MS_RDONLY)
        return -EROFS;
    if ((err = inode_permission(t, i, MAY_WRITE)))
        return err;
    return vfs_truncate(t, i, a->a[1]);
}

long sys_ftruncate(struct thread *t, const struct sysargs *a)
{
    if ((long)a->a[1] < 0)
        return -EINVAL;
    struct file *f = fd_file(t, (long)a->a[0]);
    if (!f)
        return -EBADF;
    unsigned acc = f->flags & O_ACCMODE;
    if (!S_ISREG(f->inode->mode) || (acc != O_WRONLY && acc != O_RDWR))
        return -EINVAL;
    return vfs_truncate(t, f->inode, a->a[1]);
}

long sys_umask(struct thread *t, const struct sysargs *a)
{
    unsigned old = t->fs->umask;
    t->fs->umask = (unsigned)a->a[0] & 0777;
    return old;
}

/* --- statx ------------------------------------------------------------------------------------ */

long sys_statx(struct thread *t, const struct sysargs *a)
{
    unsigned flags = (unsigned)a->a[2], mask = (unsigned)a->a[3];
    if (mask & STATX_RESERVED)
        return -EINVAL;
    if ((flags & AT_STATX_SYNC_TYPE) == AT_STATX_SYNC_TYPE)
        return -EINVAL;
    if (flags & ~(unsigned)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_NO_AUTOMOUNT |
                            AT_STATX_SYNC_TYPE))
        return -EINVAL;
    int err;
    struct inode *i = resolve_at(t, (long)a->a[0], a->a[1], flags, &err);
    if (!i)
        return err;
    struct kstat k;
    vfs_getattr(i, &k);
    uint8_t x[256];
    memset(x, 0, sizeof x);
    uint32_t u32;
    uint64_t u64;
#define PUT32(off, v) (u32 = (uint32_t)(v), memcpy(x + (off), &u32, 4))
#define PUT64(off, v) (u64 = (uint64_t)(v), memcpy(x + (off), &u64, 8))
    PUT32(0, STATX_BASIC_STATS | STATX_MNT_ID);
    PUT32(4, k.blksize);
    PUT32(16, k.nlink);
    PUT32(20, k.uid);
    PUT32(24, k.gid);
    uint16_t mode = (uint16_t)k.mode;
    memcpy(x + 28, &mode, 2);
    PUT64(32, k.ino);
    PUT64(40, k.size);
    PUT64(48, k.blocks);
    PUT64(64, k.atime / 1000000000), PUT32(72, k.atime % 1000000000);
    PUT64(96, k.ctime / 1000000000), PUT32(104, k.ctime % 1000000000);
    PUT64(112, k.mtime / 1000000000), PUT32(120, k.mtime % 1000000000);
    PUT32(128, k.rdev_major), PUT32(132, k.rdev_minor);
    PUT32(136, 0), PUT32(140, k.dev);
    PUT64(144, i->sb->id);          /* mnt_id, as /proc/N/mountinfo numbers it */
#undef PUT32
#undef PUT64
    return copy_to_user(t->mm, a->a[4], x, sizeof x);
}

/* --- times ------------------------------------------------------------------------------ */

static long times_inode(struct thread *t, struct inode *i, const long *ns)
{
    if (i->sb->flags & MS_RDONLY)
        return -EROFS;
    return vfs_utimes(t, i, ns);
}

/* The common part of utimensat, futimesat, utimes, utime: times already checked and in
 * nanoseconds (NULL: now). */
static long do_utimes(struct thread *t, long dirfd, l4_word_t upath, const long *ns,
                      unsigned flags)
{
    if (ns && ns[0] == UTIME_OMIT && ns[1] == UTIME_OMIT)
        return 0;
    if (flags & ~(unsigned)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
        return -EINVAL;
    if (!upath) {                   /* futimens: the file of dirfd itself */
        if (flags & AT_SYMLINK_NOFOLLOW)
            return -EINVAL;
        if ((int)dirfd == AT_FDCWD)
            return -EFAULT;
        struct file *f = fd_file(t, dirfd);
        return f ? times_inode(t, f->inode, ns) : -EBADF;
    }
    int err;
    struct inode *i = resolve_at(t, dirfd, upath, flags, &err);
    return i ? times_inode(t, i, ns) : err;
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
