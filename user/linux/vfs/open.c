/* open(2): Linux's path_openat in one place.  O_CREAT (a new file in the directory, its
 * mode less the umask; through a dangling symlink the target is created, as Linux does;
 * O_EXCL refuses an existing name and never follows), O_TRUNC, O_DIRECTORY, O_NOFOLLOW
 * (ELOOP on a final symlink), O_PATH (a description with no operations, no permission
 * asked), O_TMPFILE (an unnamed file of the directory's file system), then may_open's
 * checks by kind and permission, and the file's open operation. */
#include "vfs/file.h"
#include "vfs/fsnotify.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "task/process.h"
#include <string.h>

#define O_PATH_FLAGS (O_DIRECTORY | O_NOFOLLOW | O_PATH | O_CLOEXEC)
#define O_TMPFILE_BIT 020000000

static unsigned umask_of(struct thread *t)
{
    return t && t->fs ? t->fs->umask : 0;
}

/* Linux's ACC_MODE: what the access mode asks for (3, "ioctl only", asks for both). */
static int acc_mode(unsigned flags)
{
    static const int modes[4] = { MAY_READ, MAY_WRITE, MAY_READ | MAY_WRITE,
                                  MAY_READ | MAY_WRITE };
    return modes[flags & O_ACCMODE] | (flags & O_TRUNC ? MAY_WRITE : 0);
}

/* may_open: the kind of file and the permission. */
static int may_open(struct thread *t, struct inode *i, int acc, unsigned *flags)
{
    switch (i->mode & S_IFMT) {
    case S_IFLNK:
        return -ELOOP;
    case S_IFDIR:
        if (acc & MAY_WRITE)
            return -EISDIR;
        break;
    case S_IFCHR:
    case S_IFBLK:
        if (i->sb->flags & MS_NODEV)
            return -EACCES;
        /* fallthrough */
    case S_IFIFO:
    case S_IFSOCK:
        *flags &= ~(unsigned)O_TRUNC;
        break;
    }
    int e = inode_permission(t, i, acc);
    if (e)
        return e;
    if ((*flags & O_NOATIME) && !inode_owner_or_root(t, i))
        return -EPERM;
    return 0;
}

/* The last component of an O_CREAT open: the existing file, or a new one (*created). */
static struct inode *open_create(struct thread *t, struct inode *dir, const char *path,
                                 unsigned flags, unsigned mode, bool *created, int *err)
{
    char last[NAME_MAX + 1];
    char *link = NULL;
    struct inode *i = NULL;
    for (int depth = 0;; depth++) {
        bool trailing;
        struct inode *p = path_parent(t, dir, link ? link : path, last, &trailing, err);
        if (!p)
            break;
        if (!strcmp(last, "/") || !strcmp(last, ".") || !strcmp(last, "..")) {
            i = path_walk(t, p, strcmp(last, "/") ? last : "/", true, err);
            break;                  /* a directory: EISDIR below */
        }
        if (trailing) {
            *err = -EISDIR;
            break;
        }
        if (!p->parent) {
            *err = -ENOENT;         /* a removed directory */
            break;
        }
        i = vfs_lookup(t, p, last, strlen(last));
        if (!i) {
            *err = vfs_create(t, p, last, mode, &i);   /* less the umask */
            *created = !*err;
            if (*err)
                i = NULL;
            break;
        }
        i = vfs_mounted(i);
        if (!S_ISLNK(i->mode) || (flags & O_NOFOLLOW))
            break;                  /* O_NOFOLLOW (and O_EXCL): ELOOP or EEXIST below */
        if (depth == LX_SYMLOOP) {
            *err = -ELOOP;
            i = NULL;
            break;
        }
        if (i->iop && i->iop->follow_link) {
            i = i->iop->follow_link(t, i, err);     /* a magic link of proc */
            break;
        }
        /* An ordinary symlink: its target, from the link's directory, created if missing. */
        if (!link && !(link = kmalloc(PATH_MAX))) {
            *err = -ENOMEM;
            i = NULL;
            break;
        }
        int n = vfs_readlink(t, i, link, PATH_MAX - 1);
        if (n < 0) {
            *err = n;
            i = NULL;
            break;
        }
        link[n] = 0;
        dir = p;
        i = NULL;
    }
    kfree(link);
    return i;
}

static struct file *open_tmpfile(struct thread *t, struct inode *dir, const char *path,
                                 unsigned flags, unsigned mode, int *err)
{
    struct inode *d = path_walk(t, dir, path, true, err), *i;
    if (!d)
        return NULL;
    if (!S_ISDIR(d->mode))
        *err = -ENOTDIR;
    else if ((*err = inode_permission(t, d, MAY_WRITE | MAY_EXEC)))
        ;
    else if (!d->parent)
        *err = -ENOENT;             /* a removed directory */
    else if (!d->iop->tmpfile)
        *err = -EOPNOTSUPP;
    else
        *err = d->iop->tmpfile(t, d, S_IFREG | (mode & 07777 & ~umask_of(t)), &i);
    if (*err)
        return NULL;
    inode_get(i);                   /* held while it is opened: it has no name */
    struct file *f = file_open(t, i, (flags & ~(unsigned)O_TMPFILE) | O_LARGEFILE, NULL, err);
    inode_put(i);
    return f;
}

struct file *vfs_open(struct thread *t, struct inode *dir, const char *path, unsigned flags,
                      unsigned mode, int *err)
{
    if (flags & O_PATH)
        flags &= O_PATH_FLAGS;      /* open(2) drops the rest (openat2 would refuse) */
    if (flags & O_TMPFILE_BIT) {
        if ((flags & (O_TMPFILE | O_CREAT)) != O_TMPFILE || !(acc_mode(flags) & MAY_WRITE)) {
            *err = -EINVAL;
            return NULL;
        }
        return open_tmpfile(t, dir, path, flags, mode, err);
    }
    if ((flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
        flags |= O_NOFOLLOW;        /* O_EXCL never follows a final symlink */
    bool created = false;
    struct inode *i;
    if (flags & O_CREAT)
        i = open_create(t, dir, path, flags, mode, &created, err);
    else
        i = path_walk(t, dir, path, !(flags & O_NOFOLLOW), err);
    if (!i)
        return NULL;
    *err = 0;
    int acc = flags & O_PATH ? 0 : acc_mode(flags);
    if (flags & O_CREAT) {
        if ((flags & O_EXCL) && !created)
            *err = -EEXIST;
        else if (S_ISDIR(i->mode))
            *err = -EISDIR;
    }
    if (!*err && (flags & O_DIRECTORY) && !S_ISDIR(i->mode))
        *err = -ENOTDIR;
    if (created) {
        flags &= ~(unsigned)O_TRUNC;
        acc = 0;
    }
    if (!*err && !(flags & O_PATH))
        *err = may_open(t, i, acc, &flags);
    bool truncate = (flags & O_TRUNC) && S_ISREG(i->mode);
    if (!*err && truncate && (i->sb->flags & MS_RDONLY))
        *err = -EROFS;
    if (*err)
        return NULL;
    /* an O_PATH file keeps only O_PATH's flags (Linux's build_open_how) */
    struct file *f = file_open(t, i, flags | (flags & O_PATH ? 0 : O_LARGEFILE), NULL, err);
    if (f && truncate && (*err = vfs_truncate(t, i, 0))) {
        file_put(f);
        return NULL;
    }
    if (f)
        fsnotify_file(i, FS_OPEN);
    return f;
}
