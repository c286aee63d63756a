/* The getxattr family: setxattr, getxattr, listxattr, removexattr, each on a path (l*: not
 * following a final symlink) or an fd (f*).  Thin: the file first, then the name (ERANGE for
 * an empty one or one over 255 bytes), the sizes (E2BIG over 64 KiB) and the value copied
 * through lx; the VFS checks and the file system keeps (vfs/xattr.c). */
#include "syscalls/handlers.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "syscalls/fs_common.h"
#include "task/process.h"
#include "vfs/file.h"
#include "vfs/xattr.h"

static char name[XATTR_NAME_MAX + 1];
static char value[XATTR_SIZE_MAX];

/* The file: a path (follow or not) or an fd (O_PATH ones do not count, as Linux's fdget). */
static struct inode *target(struct thread *t, l4_word_t upath_or_fd, bool is_fd, bool follow,
                            int *err)
{
    if (is_fd) {
        struct file *f = fd_get(t, (long)(int)upath_or_fd);
        *err = -EBADF;
        return f && !(f->flags & O_PATH) ? f->inode : NULL;
    }
    return lookup_at(t, AT_FDCWD, upath_or_fd, path1, follow, err);
}

/* The attribute's name from u into name: empty or over 255 bytes is ERANGE, as Linux. */
static int get_name(struct thread *t, l4_word_t u)
{
    long n = strncpy_from_user(t->mm, name, u, sizeof name);
    return n == 0 || n == -ENAMETOOLONG ? -ERANGE : n < 0 ? (int)n : 0;
}

/* The file of the call (arg 0), then the name (arg 1) into name: NULL with *err. */
static struct inode *target_named(struct thread *t, const struct sysargs *a, bool is_fd,
                                  bool follow, int *err)
{
    struct inode *i = target(t, a->a[0], is_fd, follow, err);
    return i && !(*err = get_name(t, a->a[1])) ? i : NULL;
}

/* A value or a list of names out to the process: n (its length) or -EFAULT. */
static long copy_out(struct thread *t, l4_word_t u, l4_word_t size, long n)
{
    if (n > 0 && size && copy_to_user(t->mm, u, value, (size_t)n))
        return -EFAULT;
    return n;
}

static long do_setxattr(struct thread *t, const struct sysargs *a, bool is_fd, bool follow)
{
    int err, flags = (int)a->a[4];
    struct inode *i = target(t, a->a[0], is_fd, follow, &err);
    if (!i)
        return err;
    if (flags & ~(XATTR_CREATE | XATTR_REPLACE))
        return -EINVAL;
    if ((err = get_name(t, a->a[1])))
        return err;
    l4_word_t size = a->a[3];
    if (size > XATTR_SIZE_MAX)
        return -E2BIG;
    if (size && copy_from_user(t->mm, value, a->a[2], size))
        return -EFAULT;
    return vfs_setxattr(t, i, name, value, size, flags);
}

static long do_getxattr(struct thread *t, const struct sysargs *a, bool is_fd, bool follow)
{
    int err;
    struct inode *i = target_named(t, a, is_fd, follow, &err);
    if (!i)
        return err;
    l4_word_t size = a->a[3] > XATTR_SIZE_MAX ? XATTR_SIZE_MAX : a->a[3];
    return copy_out(t, a->a[2], size, vfs_getxattr(t, i, name, value, size));
}

static long do_listxattr(struct thread *t, const struct sysargs *a, bool is_fd, bool follow)
{
    int err;
    struct inode *i = target(t, a->a[0], is_fd, follow, &err);
    if (!i)
        return err;
    l4_word_t size = a->a[2] > XATTR_LIST_MAX ? XATTR_LIST_MAX : a->a[2];
    return copy_out(t, a->a[1], size, vfs_listxattr(t, i, value, size));
}

static long do_removexattr(struct thread *t, const struct sysargs *a, bool is_fd, bool follow)
{
    int err;
    struct inode *i = target_named(t, a, is_fd, follow, &err);
    return i ? vfs_removexattr(t, i, name) : err;
}

long sys_setxattr(struct thread *t, const struct sysargs *a) { return do_setxattr(t, a, false, true); }
long sys_lsetxattr(struct thread *t, const struct sysargs *a) { return do_setxattr(t, a, false, false); }
long sys_fsetxattr(struct thread *t, const struct sysargs *a) { return do_setxattr(t, a, true, true); }
long sys_getxattr(struct thread *t, const struct sysargs *a) { return do_getxattr(t, a, false, true); }
long sys_lgetxattr(struct thread *t, const struct sysargs *a) { return do_getxattr(t, a, false, false); }
long sys_fgetxattr(struct thread *t, const struct sysargs *a) { return do_getxattr(t, a, true, true); }
long sys_listxattr(struct thread *t, const struct sysargs *a) { return do_listxattr(t, a, false, true); }
long sys_llistxattr(struct thread *t, const struct sysargs *a) { return do_listxattr(t, a, false, false); }
long sys_flistxattr(struct thread *t, const struct sysargs *a) { return do_listxattr(t, a, true, true); }
long sys_removexattr(struct thread *t, const struct sysargs *a) { return do_removexattr(t, a, false, true); }
long sys_lremovexattr(struct thread *t, const struct sysargs *a) { return do_removexattr(t, a, false, false); }
long sys_fremovexattr(struct thread *t, const struct sysargs *a) { return do_removexattr(t, a, true, true); }
