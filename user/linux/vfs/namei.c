/* The operations on names: create, mkdir, mknod, symlink, link, unlink, rmdir, rename.
 * The checks and their order are Linux's (fs/namei.c: filename_create, may_create,
 * may_delete, do_rmdir, do_unlinkat, do_renameat2), so that every error is the one Linux
 * gives; then the file system's operation does the change.  A file system without the
 * operation (proc) has no negative entries: a new name there is ENOENT, removing one EPERM.
 * Read-only mounts (MS_RDONLY) give EROFS where Linux's mnt_want_write does. */
#include "vfs/vfs.h"
#include "lib/errno.h"
#include "task/process.h"
#include "vfs/fsnotify.h"
#include "vfs/permission.h"
#include "task/cred.h"
#include <string.h>

enum last_type { LAST_NORM, LAST_ROOT, LAST_DOT, LAST_DOTDOT };

/* What path_parent's last component is: "/" stands for a path of slashes only. */
static enum last_type last_type(const char *last)
{
    if (!strcmp(last, "/"))
        return LAST_ROOT;
    if (!strcmp(last, "."))
        return LAST_DOT;
    return strcmp(last, "..") ? LAST_NORM : LAST_DOTDOT;
}

static bool dead(const struct inode *dir)
{
    return !dir->parent;            /* removed: it holds nothing and gets nothing */
}

static int want_write(const struct inode *dir)
{
    return dir->sb->flags & MS_RDONLY ? -EROFS : 0;
}

static bool is_mountpoint(const struct inode *i)
{
    return i->mounted != NULL;
}

/* filename_create, then may_create: the place for a new name in dir.  want_dir: a trailing
 * slash is allowed (mkdir).  op: the file system's operation for it (NULL: none). */
static int create_name(struct thread *t, struct inode *dir, const char *name, bool trailing,
                       bool want_dir, const void *op)
{
    if (last_type(name) != LAST_NORM)
        return -EEXIST;
    int rofs = want_write(dir);
    if (dead(dir))
        return -ENOENT;
    if (vfs_lookup(t, dir, name, strlen(name)))
        return -EEXIST;
    if (!op)
        return -ENOENT;             /* no negative entries (proc) */
    if (trailing && !want_dir)
        return -ENOENT;             /* "name/" asks for a directory */
    return rofs;
}

static int may_create(struct thread *t, struct inode *dir, const char *name, bool trailing,
                      bool want_dir, const void *op)
{
    int e = create_name(t, dir, name, trailing, want_dir, op);
    return e ? e : inode_permission(t, dir, MAY_WRITE | MAY_EXEC);
}

/* may_delete: victim (named in dir) may go; isdir: rmdir (or a directory renamed). */
static int may_delete(struct thread *t, struct inode *dir, struct inode *victim, bool isdir)
{
    int e = inode_permission(t, dir, MAY_WRITE | MAY_EXEC);
    if (e)
        return e;
    /* The sticky bit: only the owner of the file or of the directory (or root). */
    if ((dir->mode & S_ISVTX) && vfs_fsuid(t) != victim->uid && vfs_fsuid(t) != dir->uid &&
        !vfs_capable(t, CAP_FOWNER))
        return -EPERM;
    if (isdir && !S_ISDIR(victim->mode))
        return -ENOTDIR;
    if (!isdir && S_ISDIR(victim->mode))
        return -EISDIR;
    return dead(dir) ? -ENOENT : 0;
}

/* A new file's mode in dir: its type and the permission bits the caller's umask leaves,
 * less set-group-ID where Linux's mode_strip_sgid takes it. */
static unsigned new_mode(struct thread *t, struct inode *dir, unsigned type, unsigned mode)
{
    return mode_strip_sgid(t, dir, type | (mode & 07777 & ~(t && t->fs ? t->fs->umask : 0)));
}

int vfs_create(struct thread *t, struct inode *dir, const char *name, unsigned mode,
               struct inode **out)
{
    int e = may_create(t, dir, name, false, false, dir->iop->create);
    if (e)
        return e;
    e = dir->iop->create(t, dir, name, strlen(name), new_mode(t, dir, S_IFREG, mode), 0, 0, out);
    if (!e)
        fsnotify_dirent(dir, FS_CREATE, name, false, 0);
    return e;
}

int vfs_mkdir(struct thread *t, struct inode *dir, const char *name, bool trailing,
              unsigned mode)
{
    int e = may_create(t, dir, name, trailing, true, dir->iop->create);
    if (e)
        return e;
    struct inode *i;
    e = dir->iop->create(t, dir, name, strlen(name), new_mode(t, dir, S_IFDIR, mode & 01777),
                         0, 0, &i);
    if (!e)
        fsnotify_dirent(dir, FS_CREATE, name, true, 0);
    return e;
}

int vfs_mknod(struct thread *t, struct inode *dir, const char *name, bool trailing,
              unsigned mode, unsigned major, unsigned minor)
{
    int e = may_create(t, dir, name, trailing, false, dir->iop->create);
    if (e)
        return e;
    unsigned type = mode & S_IFMT;
    if ((type == S_IFCHR || type == S_IFBLK) && !vfs_capable(t, CAP_MKNOD))
        return -EPERM;
    struct inode *i;
    e = dir->iop->create(t, dir, name, strlen(name), new_mode(t, dir, type, mode), major, minor,
                         &i);
    if (!e)
        fsnotify_dirent(dir, FS_CREATE, name, false, 0);
    return e;
}

int vfs_symlink(struct thread *t, struct inode *dir, const char *name, bool trailing,
                const char *target)
{
    int e = may_create(t, dir, name, trailing, false, dir->iop->symlink);
    if (e)
        return e;
    struct inode *i;
    e = dir->iop->symlink(t, dir, name, strlen(name), target, &i);
    if (!e)
        fsnotify_dirent(dir, FS_CREATE, name, false, 0);
    return e;
}

int vfs_link(struct thread *t, struct inode *old, struct inode *dir, const char *name,
             bool trailing)
{
    int e = create_name(t, dir, name, trailing, false, dir->iop->link);
    if (e)
        return e;
    if (old->sb != dir->sb)
        return -EXDEV;              /* after the new name's checks, as Linux's do_linkat */
    if ((e = inode_permission(t, dir, MAY_WRITE | MAY_EXEC)))
        return e;
    if (S_ISDIR(old->mode))
        return -EPERM;
    if (!old->nlink)
        return -ENOENT;             /* unlinked (an O_TMPFILE file is not linkable here) */
    if ((e = dir->iop->link(t, old, dir, name, strlen(name))))
        return e;
    fsnotify_inode(old, FS_ATTRIB);     /* its link count */
    fsnotify_dirent(dir, FS_CREATE, name, false, 0);
    return 0;
}

/* The events of a removal (e: the file system's answer), as Linux's vfs_unlink and
 * vfs_rmdir: the file's link count (unlink), its end if nothing else holds it (IN_DELETE_SELF
 * through inode_unhold), then the directory's IN_DELETE.  i is held across the removal. */
static int removed(struct inode *i, int e, struct inode *dir, const char *name, bool isdir)
{
    if (!e && !isdir)
        fsnotify_inode(i, FS_ATTRIB);
    inode_unhold(i);
    if (!e)
        fsnotify_dirent(dir, FS_DELETE, name, isdir, 0);
    return e;
}

int vfs_unlink(struct thread *t, struct inode *dir, const char *name, bool trailing)
{
    if (last_type(name) != LAST_NORM)
        return -EISDIR;
    int e = want_write(dir);
    if (e)
        return e;
    struct inode *i = vfs_lookup(t, dir, name, strlen(name));   /* none in a removed dir */
    if (trailing)
        return !i ? -ENOENT : S_ISDIR(i->mode) ? -EISDIR : -ENOTDIR;
    if (!i)
        return -ENOENT;
    if ((e = may_delete(t, dir, i, false)))
        return e;
    if (!dir->iop->unlink)
        return -EPERM;
    if (is_mountpoint(i))
        return -EBUSY;
    inode_hold(i);
    return removed(i, dir->iop->unlink(t, dir, name, strlen(name)), dir, name, false);
}

int vfs_rmdir(struct thread *t, struct inode *dir, const char *name, bool trailing)
{
    (void)trailing;                 /* "dir/" is fine: the victim must be a directory anyway */
    switch (last_type(name)) {
    case LAST_DOTDOT: return -ENOTEMPTY;
    case LAST_DOT: return -EINVAL;
    case LAST_ROOT: return -EBUSY;
    case LAST_NORM: break;
    }
    int e = want_write(dir);
    if (e)
        return e;
    struct inode *i = vfs_lookup(t, dir, name, strlen(name));
    if (!i)
        return -ENOENT;
    if ((e = may_delete(t, dir, i, true)))
        return e;
    if (i == i->sb->root)
        return -EBUSY;
    if (!dir->iop->rmdir)
        return -EPERM;
    if (is_mountpoint(i))
        return -EBUSY;
    inode_hold(i);
    return removed(i, dir->iop->rmdir(t, dir, name, strlen(name)), dir, name, true);
}

/* Is a an ancestor of (or) d, within one file system? */
static bool is_ancestor(struct inode *a, struct inode *d)
{
    for (; d; d = d->parent) {
        if (d == a)
            return true;
        if (d == d->sb->root)
            return false;
    }
    return false;
}

int vfs_rename(struct thread *t, struct inode *odir, const char *oname, bool otrail,
               struct inode *ndir, const char *nname, bool ntrail, unsigned flags)
{
    if ((flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE | RENAME_WHITEOUT)) ||
        ((flags & RENAME_EXCHANGE) && (flags & (RENAME_NOREPLACE | RENAME_WHITEOUT))))
        return -EINVAL;
    if (odir->sb != ndir->sb)
        return -EXDEV;
    if (last_type(oname) != LAST_NORM)
        return -EBUSY;
    if (last_type(nname) != LAST_NORM)
        return flags & RENAME_NOREPLACE ? -EEXIST : -EBUSY;
    int e = want_write(odir);
    if (e)
        return e;
    struct inode *src = vfs_lookup(t, odir, oname, strlen(oname));
    if (!src)
        return -ENOENT;
    if (dead(ndir))
        return -ENOENT;
    struct inode *dst = vfs_lookup(t, ndir, nname, strlen(nname));
    if ((flags & RENAME_NOREPLACE) && dst)
        return -EEXIST;
    if (flags & (RENAME_EXCHANGE | RENAME_WHITEOUT))
        return -EINVAL;             /* not yet (docs/linux/files.md) */
    if (!S_ISDIR(src->mode) && (otrail || ntrail))
        return -ENOTDIR;
    if (odir != ndir && is_ancestor(src, ndir))
        return -EINVAL;             /* a directory into itself */
    if (odir != ndir && dst && is_ancestor(dst, odir))
        return -ENOTEMPTY;
    if (src == dst)
        return 0;
    bool isdir = S_ISDIR(src->mode);
    if ((e = may_delete(t, odir, src, isdir)))
        return e;
    if (!dst && (e = inode_permission(t, ndir, MAY_WRITE | MAY_EXEC)))
        return e;
    if (dst && (e = may_delete(t, ndir, dst, isdir)))
        return e;
    if (!odir->iop->rename)
        return -EPERM;
    if (odir != ndir && isdir && (e = inode_permission(t, src, MAY_WRITE)))
        return e;                   /* its ".." changes */
    if (is_mountpoint(src) || (dst && is_mountpoint(dst)))
        return -EBUSY;
    if (dst && S_ISDIR(dst->mode) && !dst->iop->empty(dst))
        return -ENOTEMPTY;
    inode_hold(src);
    if (dst)
        inode_hold(dst);
    e = odir->iop->rename(t, odir, oname, strlen(oname), ndir, nname, strlen(nname));
    if (!e) {                       /* Linux's fsnotify_move */
        uint32_t cookie = fsnotify_cookie();
        fsnotify_dirent(odir, FS_MOVED_FROM, oname, isdir, cookie);
        fsnotify_dirent(ndir, FS_MOVED_TO, nname, isdir, cookie);
        if (dst)
            fsnotify_inode(dst, FS_ATTRIB);
        fsnotify_inode(src, FS_MOVE_SELF);
    }
    if (dst)
        inode_unhold(dst);          /* a replaced file's end */
    inode_unhold(src);
    return e;
}
