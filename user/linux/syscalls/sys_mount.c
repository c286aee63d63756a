/* mount, umount2, statfs, fstatfs (docs/linux/files.md, "Mounts").  Every caller is root,
 * so EPERM never comes from a missing capability.  The data string (a file system's
 * options: tmpfs's size=, nr_inodes=, mode=) goes to the file system. */
#include "syscalls/handlers.h"
#include "syscalls/handlers_rest.h"
#include "fs/proc/proc.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "task/process.h"
#include "vfs/file.h"
#include "task/cred.h"
#include "vfs/permission.h"
#include <string.h>

#define MS_REMOUNT    32ul
#define MS_BIND       4096ul
#define MS_MOVE       8192ul
#define MS_UNBINDABLE (1ul << 17)
#define MS_PRIVATE    (1ul << 18)
#define MS_SLAVE      (1ul << 19)
#define MS_SHARED     (1ul << 20)
#define MS_MGC_MSK    0xffff0000ul
#define MS_MGC_VAL    0xC0ED0000ul
#define MS_KEPT       (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME)

#define MNT_FORCE       1u
#define MNT_DETACH      2u
#define MNT_EXPIRE      4u
#define UMOUNT_NOFOLLOW 8u

static char target[PATH_MAX], type[64], source[64], data[LX_PAGE];

/* The options string (at most a page, as Linux copies it): 0 or -EFAULT. */
static int get_data(struct thread *t, l4_word_t u)
{
    data[0] = 0;
    if (!u)
        return 0;
    long n = strncpy_from_user(t->mm, data, u, sizeof data);
    if (n == -ENAMETOOLONG)
        data[sizeof data - 1] = 0;  /* Linux takes the first page */
    else if (n < 0)
        return (int)n;
    return 0;
}

long sys_mount(struct thread *t, const struct sysargs *a)
{
    unsigned long flags = a->a[3];
    if ((flags & MS_MGC_MSK) == MS_MGC_VAL)
        flags &= ~MS_MGC_MSK;       /* the old magic in the high bits means nothing */
    long n = strncpy_from_user(t->mm, target, a->a[1], sizeof target);
    if (n < 0)
        return n;
    int err;
    struct inode *on = path_walk(t, NULL, target, true, &err);
    if (!on)
        return err;
    if (!vfs_capable(t, CAP_SYS_ADMIN))
        return -EPERM;
    bool is_root = on == on->sb->root;
    if (flags & (MS_SHARED | MS_PRIVATE | MS_SLAVE | MS_UNBINDABLE))
        return is_root ? 0 : -EINVAL;   /* one namespace: propagation changes nothing */
    if (flags & MS_REMOUNT) {
        if (!is_root)
            return -EINVAL;
        int e = get_data(t, a->a[4]);
        if (e)
            return e;
        struct super_block *sb = on->sb;
        return vfs_remount(sb, (sb->flags & ~MS_KEPT) | (flags & MS_KEPT), data);
    }
    if (flags & (MS_BIND | MS_MOVE))
        return -EINVAL;             /* not yet (docs/linux/files.md) */
    if (!a->a[2])
        return -EINVAL;
    if ((n = strncpy_from_user(t->mm, type, a->a[2], sizeof type)) < 0)
        return n == -ENAMETOOLONG ? -ENODEV : n;
    source[0] = 0;
    if (a->a[0] && (n = strncpy_from_user(t->mm, source, a->a[0], sizeof source)) < 0 &&
        n != -ENAMETOOLONG)
        return n;
    source[sizeof source - 1] = 0;
    const struct fs_type *fs = fs_type_find(type);
    if (!fs)
        return -ENODEV;
    if (!S_ISDIR(on->mode))
        return -ENOTDIR;
    int e = get_data(t, a->a[4]);
    return e ? e : vfs_mount(fs, on, source, flags & MS_KEPT, data);
}

long sys_umount2(struct thread *t, const struct sysargs *a)
{
    unsigned flags = (unsigned)a->a[1];
    if (flags & ~(MNT_FORCE | MNT_DETACH | MNT_EXPIRE | UMOUNT_NOFOLLOW) ||
        ((flags & MNT_EXPIRE) && (flags & (MNT_FORCE | MNT_DETACH))))
        return -EINVAL;
    long n = strncpy_from_user(t->mm, target, a->a[0], sizeof target);
    if (n < 0)
        return n;
    int err;
    struct inode *i = path_walk(t, NULL, target, !(flags & UMOUNT_NOFOLLOW), &err);
    if (!i)
        return err;
    if (!vfs_capable(t, CAP_SYS_ADMIN))
        return -EPERM;
    if (flags & MNT_EXPIRE)
        return i == i->sb->root ? -EAGAIN : -EINVAL;  /* first call: only marked */
    return vfs_umount(i, flags);
}

/* pivot_root: lx's root is always the initramfs's rootfs, which Linux never pivots: the
 * reference guest answers EINVAL for a new root on the root's mount, EBUSY for put_old on
 * it (new_root elsewhere), EINVAL otherwise ("not attached"); the errors before these
 * come in Linux's order. */
long sys_pivot_root(struct thread *t, const struct sysargs *a)
{
    if (!vfs_capable(t, CAP_SYS_ADMIN))
        return -EPERM;
    struct inode *at[2];
    for (int k = 0; k < 2; k++) {
        int err;
        long n = strncpy_from_user(t->mm, target, a->a[k], sizeof target);
        if (n < 0)
            return n;
        if (!(at[k] = path_walk(t, NULL, target, true, &err)))
            return err;
        if (!S_ISDIR(at[k]->mode))
            return -ENOTDIR;
    }
    struct super_block *root = vfs_root(t)->sb;
    return at[0]->sb != root && at[1]->sb == root ? -EBUSY : -EINVAL;
}

/* --- statfs ----------------------------------------------------------------------------- */

struct lx_statfs {                  /* x86-64 struct statfs, 120 bytes */
    int64_t type, bsize;
    uint64_t blocks, bfree, bavail, files, ffree;
    int32_t fsid[2];
    int64_t namelen, frsize, flags, spare[4];
};

static long statfs_out(struct thread *t, struct inode *i, l4_word_t ubuf)
{
    struct super_block *sb = i->sb;
    struct lx_statfs st;
    memset(&st, 0, sizeof st);
    st.type = (int64_t)sb->type->magic;
    st.bsize = st.frsize = LX_PAGE;
    st.namelen = NAME_MAX;
    st.flags = 0x20 /* ST_VALID */ | (int64_t)(sb->flags & (MS_RDONLY | MS_NOSUID |
                                                           MS_NODEV | MS_NOEXEC | MS_NOATIME));
    st.fsid[0] = (int32_t)sb->dev;
    if (sb->type->statfs) {         /* tmpfs: its size= and nr_inodes= limits */
        sb->type->statfs(sb, &st.blocks, &st.bfree, &st.files, &st.ffree);
        st.bavail = st.bfree;
    }
    return copy_to_user(t->mm, ubuf, &st, sizeof st);
}

long sys_statfs(struct thread *t, const struct sysargs *a)
{
    long n = strncpy_from_user(t->mm, target, a->a[0], sizeof target);
    if (n < 0)
        return n;
    int err;
    struct inode *i = path_walk(t, NULL, target, true, &err);
    return i ? statfs_out(t, i, a->a[1]) : err;
}

long sys_fstatfs(struct thread *t, const struct sysargs *a)
{
    struct file *f = fd_get(t, (long)(int)a->a[0]);
    return f ? statfs_out(t, f->inode, a->a[1]) : -EBADF;
}
