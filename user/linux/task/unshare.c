/* unshare and setns.  unshare gives the calling thread its own copy of what it shares: the
 * fd table (CLONE_FILES), cwd/umask (CLONE_FS), the SysV semaphore undo list (CLONE_SYSVSEM:
 * Linux's exit_sem, the adjustments applied).  lx has no namespaces: asking for a new one is
 * EPERM without CAP_SYS_ADMIN (Linux checks that first), else EINVAL, what a kernel built
 * without CONFIG_*_NS answers (CLONE_NEWUSER: EINVAL, it needs no capability).  setns takes
 * no /proc/PID/ns file (there is none); with a pidfd the namespaces named are the caller's
 * own (there is one of each), so joining them changes nothing. */
#include "task/sharing.h"
#include "ipc/sem.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "mm/mm.h"
#include "task/process.h"
#include "vfs/file.h"

#define CLONE_VM        0x00000100
#define CLONE_FS        0x00000200
#define CLONE_FILES     0x00000400
#define CLONE_SIGHAND   0x00000800
#define CLONE_THREAD    0x00010000
#define CLONE_NEWNS     0x00020000
#define CLONE_SYSVSEM   0x00040000
#define CLONE_NEWCGROUP 0x02000000
#define CLONE_NEWUTS    0x04000000
#define CLONE_NEWIPC    0x08000000
#define CLONE_NEWUSER   0x10000000
#define CLONE_NEWPID    0x20000000
#define CLONE_NEWNET    0x40000000
#define CLONE_NEWTIME   0x00000080
#define NEW_NAMESPACES  (CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET | \
                         CLONE_NEWPID | CLONE_NEWCGROUP | CLONE_NEWTIME)
#define UNSHARE_FLAGS   (CLONE_THREAD | CLONE_FS | CLONE_SIGHAND | CLONE_VM | CLONE_FILES | \
                         CLONE_SYSVSEM | CLONE_NEWUSER | NEW_NAMESPACES)

/* t's own copy of cwd and umask: false when memory is out. */
static bool fs_unshare(struct thread *t)
{
    if (t->fs->refs == 1)
        return true;
    struct fs_struct *fs = kmalloc(sizeof *fs);
    if (!fs)
        return false;
    *fs = *t->fs;
    fs->refs = 1;
    inode_get(fs->cwd);
    if (fs->root)
        inode_get(fs->root);
    t->fs->refs--;
    t->fs = fs;
    return true;
}

long sys_unshare(struct thread *t, const struct sysargs *a)
{
    unsigned long flags = a->a[0];
    if (flags & CLONE_NEWUSER)
        flags |= CLONE_THREAD | CLONE_FS;
    if (flags & CLONE_VM)
        flags |= CLONE_SIGHAND;
    if (flags & CLONE_SIGHAND)
        flags |= CLONE_THREAD;
    if (flags & CLONE_NEWNS)
        flags |= CLONE_FS;
    if (flags & ~(unsigned long)UNSHARE_FLAGS)
        return -EINVAL;
    /* Linux's check_unshare_flags: unsharing these "works" only with nothing to unshare. */
    struct process *p = t->proc;
    if ((flags & (CLONE_THREAD | CLONE_SIGHAND | CLONE_VM)) && p->nthreads > 1)
        return -EINVAL;
    if ((flags & (CLONE_SIGHAND | CLONE_VM)) && p->sighand->refs > 1)
        return -EINVAL;
    if ((flags & CLONE_VM) && t->mm->users > 1)
        return -EINVAL;
    if (flags & CLONE_NEWUSER)
        return -EINVAL;
    if (flags & NEW_NAMESPACES)
        return cred_capable(&p->cred, CAP_SYS_ADMIN) ? -EINVAL : -EPERM;
    /* Nothing fails after this but memory: Linux makes the copies first, then installs. */
    if (((flags & CLONE_FS) && !fs_unshare(t)) || ((flags & CLONE_FILES) && !fd_unshare(t)))
        return -ENOMEM;
    if ((flags & CLONE_SYSVSEM) && p->nthreads == 1)
        sem_exit(p);                /* threads share the list in lx: see docs */
    return 0;
}

long sys_setns(struct thread *t, const struct sysargs *a)
{
    struct file *f = fd_get(t, (int)a->a[0]);
    if (!f)
        return -EBADF;
    unsigned long flags = (unsigned)a->a[1];
    bool pidfd = f->ops->anon_name && !__builtin_strcmp(f->ops->anon_name, "[pidfd]");
    if (!pidfd || !flags || (flags & ~(unsigned long)(NEW_NAMESPACES | CLONE_NEWUSER)))
        return -EINVAL;
    if (!((struct pid *)f->priv)->proc)
        return -ESRCH;
    if (flags & CLONE_NEWUSER)
        return -EINVAL;             /* Linux: joining one's own user namespace */
    return cred_capable(&t->proc->cred, CAP_SYS_ADMIN) ? 0 : -EPERM;
}
