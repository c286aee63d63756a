/* openat2 (Linux 5.6's): openat with a struct open_how that is checked strictly (unknown
 * open flags, resolve bits or a mode without O_CREAT/O_TMPFILE are EINVAL; a bigger struct
 * than lx knows must have zeros past it, else E2BIG) and RESOLVE_* flags acted on in the
 * path walk (vfs/path.c).  RESOLVE_CACHED: everything lx has is in memory, so a lookup
 * never needs to wait; only Linux's up-front EAGAIN for O_CREAT/O_TRUNC/O_TMPFILE stays. */
#include "syscalls/fs_common.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "task/process.h"
#include "task/sharing.h"
#include "vfs/file.h"

struct open_how {
    uint64_t flags, mode, resolve;
};

#define OPEN_HOW_SIZE_VER0 24
#define O_DIRECT_    040000
#define O_DSYNC_     010000
#define O_SYNC_      04010000
#define FASYNC_      020000
#define TMPFILE_BIT  020000000
#define FMODE_NONOTIFY_ 0x4000000   /* 6.1 still lets it through (stripped, no effect) */
#define VALID_OPEN_FLAGS (O_ACCMODE | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_APPEND | \
                          O_NONBLOCK | O_SYNC_ | O_DSYNC_ | FASYNC_ | O_DIRECT_ | O_LARGEFILE | \
                          O_DIRECTORY | O_NOFOLLOW | O_NOATIME | O_CLOEXEC | O_PATH | TMPFILE_BIT | \
                          FMODE_NONOTIFY_)
#define O_PATH_FLAGS     (O_DIRECTORY | O_NOFOLLOW | O_PATH | O_CLOEXEC)
#define VALID_RESOLVE    0x3f

/* Linux's copy_struct_from_user: 0, -EFAULT, or -E2BIG for non-zero bytes past ours. */
static int copy_how(struct thread *t, struct open_how *how, l4_word_t u, l4_word_t usize)
{
    *how = (struct open_how){ 0 };
    if (copy_from_user(t->mm, how, u, usize < sizeof *how ? usize : sizeof *how))
        return -EFAULT;
    for (l4_word_t at = sizeof *how; at < usize;) {
        unsigned char buf[256];
        l4_word_t k = usize - at < sizeof buf ? usize - at : sizeof buf;
        if (copy_from_user(t->mm, buf, u + at, k))
            return -EFAULT;
        for (l4_word_t j = 0; j < k; j++)
            if (buf[j])
                return -E2BIG;
        at += k;
    }
    return 0;
}

long sys_openat2(struct thread *t, const struct sysargs *a)
{
    long dirfd = (int)a->a[0];
    l4_word_t usize = a->a[3];
    if (usize < OPEN_HOW_SIZE_VER0)
        return -EINVAL;
    struct open_how how;
    int err = copy_how(t, &how, a->a[2], usize);
    if (err)
        return err;
    uint64_t flags = how.flags;
    if (!(flags & O_PATH))
        flags |= O_LARGEFILE;
    if ((flags & ~(uint64_t)VALID_OPEN_FLAGS) || (how.resolve & ~(uint64_t)VALID_RESOLVE))
        return -EINVAL;
    if ((how.resolve & RESOLVE_BENEATH) && (how.resolve & RESOLVE_IN_ROOT))
        return -EINVAL;
    if (flags & (O_CREAT | TMPFILE_BIT) ? how.mode & ~07777ull : how.mode)
        return -EINVAL;
    if ((flags & TMPFILE_BIT) &&
        ((flags & O_TMPFILE) != O_TMPFILE || (flags & O_ACCMODE) == O_RDONLY))
        return -EINVAL;
    if ((flags & O_PATH) && (flags & ~(uint64_t)(O_PATH_FLAGS | O_LARGEFILE)))
        return -EINVAL;
    if ((how.resolve & RESOLVE_CACHED) && (flags & (O_TRUNC | O_CREAT | TMPFILE_BIT)))
        return -EAGAIN;
    if ((err = fd_unused(t, 0)) < 0 || (err = get_path(t, a->a[1], path1)))
        return err;
    if (!path1[0])
        return -ENOENT;
    struct inode *dir = NULL;
    if (!(path1[0] == '/' && !(how.resolve & RESOLVE_IN_ROOT)) && (int)dirfd != AT_FDCWD) {
        struct file *f = fd_get(t, dirfd);
        if (!f)
            return -EBADF;
        if (!S_ISDIR(f->inode->mode))
            return -ENOTDIR;
        dir = f->inode;
    }
    struct inode *scope = dir ? dir : t->fs->cwd;
    flags &= ~(uint64_t)FMODE_NONOTIFY_;
    vfs_resolve_begin((unsigned)how.resolve, scope);
    struct file *f = vfs_open(t, path1[0] == '/' ? NULL : dir, path1, (unsigned)flags,
                              (unsigned)how.mode, &err);
    vfs_resolve_end();
    return f ? fd_install_new(t, f, flags & O_CLOEXEC) : err;
}
