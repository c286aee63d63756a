/* System calls on fds: dup, dup2, dup3, fcntl (fd flags, file status flags, record locks,
 * pipe sizes) and flock.  The fd table and the locks are the VFS's (vfs/fdtable.c,
 * vfs/lock.c). */
#include "syscalls/handlers.h"
#include "syscalls/handlers_more.h"
#include "fs/pipe/pipe.h"
#include "lib/errno.h"
#include "task/process.h"
#include "vfs/file.h"
#include "vfs/lock.h"

#define F_DUPFD         0
#define F_GETFD         1
#define F_SETFD         2
#define F_GETFL         3
#define F_SETFL         4
#define F_DUPFD_CLOEXEC 1030
#define F_SETPIPE_SZ    1031
#define F_GETPIPE_SZ    1032
#define F_ADD_SEALS     1033
#define F_GET_SEALS     1034
#define FD_CLOEXEC      1
#define O_DIRECT        040000
#define SETFL_MASK      (O_APPEND | O_NONBLOCK | O_NOATIME | O_DIRECT)

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
    if ((unsigned long)newfd >= fd_limit(t) || (int)newfd < 0)
        return -EBADF;
    if (!f)
        return -EBADF;
    file_get(f);
    int fd = fd_install_at(t, f, (unsigned)newfd, cloexec);
    if (fd < 0)
        file_put(f);
    return fd;
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

static long set_fl(struct thread *t, struct file *f, unsigned arg)
{
    if ((arg & O_NOATIME) && !(f->flags & O_NOATIME) && !inode_owner_or_root(t, f->inode))
        return -EPERM;
    if (arg & O_DIRECT)
        return -EINVAL;             /* no file here does direct I/O (tmpfs does not) */
    f->flags = (f->flags & ~(unsigned)SETFL_MASK) | (arg & SETFL_MASK);
    return 0;
}

long sys_fcntl(struct thread *t, const struct sysargs *a)
{
    int fd = (int)a->a[0];
    unsigned cmd = (unsigned)a->a[1];
    struct file *f = fd_get(t, fd);
    if (!f)
        return -EBADF;
    /* An O_PATH fd serves only the fd calls (Linux's check_fcntl_cmd). */
    if ((f->flags & O_PATH) && cmd != F_DUPFD && cmd != F_DUPFD_CLOEXEC && cmd != F_GETFD &&
        cmd != F_SETFD && cmd != F_GETFL)
        return -EBADF;
    switch (cmd) {
    case F_DUPFD:
    case F_DUPFD_CLOEXEC:
        if (a->a[2] >= fd_limit(t))
            return -EINVAL;
        return dup_from(t, fd, (unsigned)a->a[2], cmd == F_DUPFD_CLOEXEC);
    case F_GETFD:
        return fd_cloexec(t, (unsigned)fd) ? FD_CLOEXEC : 0;
    case F_SETFD:
        fd_set_cloexec(t, (unsigned)fd, a->a[2] & FD_CLOEXEC);
        return 0;
    case F_GETFL:
        return f->flags;
    case F_SETFL:
        return set_fl(t, f, (unsigned)a->a[2]);
    case F_GETLK:
    case F_SETLK:
    case F_SETLKW:
    case F_OFD_GETLK:
    case F_OFD_SETLK:
    case F_OFD_SETLKW:
        return vfs_fcntl_lock(t, f, cmd, a->a[2]);
    case F_SETPIPE_SZ:
    case F_GETPIPE_SZ:
        return pipe_fcntl(f, cmd, a->a[2]);
    case F_ADD_SEALS:
    case F_GET_SEALS:
        return memfd_fcntl(f, cmd, a->a[2]);
    default:
        return -EINVAL;
    }
}

long sys_flock(struct thread *t, const struct sysargs *a)
{
    struct file *f = fd_get(t, (long)(int)a->a[0]);
    if (!f || (f->flags & O_PATH))
        return -EBADF;
    unsigned op = (unsigned)a->a[1], acc = f->flags & O_ACCMODE;
    if ((op & ~4u) != 8 && acc != O_RDONLY && acc != O_WRONLY && acc != O_RDWR)
        return -EBADF;              /* neither readable nor writable (access mode 3) */
    return vfs_flock(t, f, op);
}
