/* kcmp (Linux's kernel/kcmp.c): are two processes' resources the same object?  0 when they
 * are, else 1 or 2 by an order of the objects (Linux orders obfuscated pointers; lx orders
 * its own, so only "same or not" means anything, as on Linux).  The access check is
 * ptrace's (PTRACE_MODE_READ_REALCREDS), here for process_vm_readv too. */
#include "task/sharing.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "task/process.h"
#include "vfs/file.h"

enum { KCMP_FILE, KCMP_VM, KCMP_FILES, KCMP_FS, KCMP_SIGHAND, KCMP_IO, KCMP_SYSVSEM,
       KCMP_EPOLL_TFD };

struct kcmp_epoll_slot {
    uint32_t efd, tfd;
    uint64_t toff;
};

bool ptrace_may_access(const struct thread *t, const struct process *p)
{
    if (t->proc == p)
        return true;
    const struct cred *c = &t->proc->cred, *o = &p->cred;
    bool cap = cred_capable(c, CAP_SYS_PTRACE);
    if (!(c->uid == o->euid && c->uid == o->suid && c->uid == o->uid && c->gid == o->egid &&
          c->gid == o->sgid && c->gid == o->gid) && !cap)
        return false;
    return cap || !o->nondumpable || p->state != PROCESS_LIVE;
}

static long order(const void *a, const void *b)
{
    return a == b ? 0 : (uintptr_t)a < (uintptr_t)b ? 1 : 2;
}

/* The thread with tid nr (Linux's find_task_by_vpid: any thread), else a zombie's leader. */
static struct thread *task_by_vpid(int nr)
{
    struct pid *p = nr > 0 ? pid_find(nr) : NULL;
    if (!p)
        return NULL;
    if (p->thread)
        return p->thread;
    return p->proc ? list_first(&p->proc->threads, struct thread, proc_link) : NULL;
}

static struct file *file_of(struct thread *t, l4_word_t fd)
{
    return t->files && fd <= 0x7fffffff ? fd_get(t, (long)fd) : NULL;
}

static long epoll_target_cmp(struct thread *t, struct thread *t1, struct thread *t2,
                             l4_word_t idx1, l4_word_t uslot)
{
    struct kcmp_epoll_slot slot;
    if (copy_from_user(t->mm, &slot, uslot, sizeof slot))
        return -EFAULT;
    struct file *f = file_of(t1, idx1), *ep = f ? file_of(t2, slot.efd) : NULL;
    if (!ep)
        return -EBADF;
    int err;
    struct file *target = epoll_target(ep, (int)slot.tfd, slot.toff, &err);
    return target ? order(f, target) : err;
}

long sys_kcmp(struct thread *t, const struct sysargs *a)
{
    struct thread *t1 = task_by_vpid((int)a->a[0]), *t2 = task_by_vpid((int)a->a[1]);
    if (!t1 || !t2)
        return -ESRCH;
    if (!ptrace_may_access(t, t1->proc) || !ptrace_may_access(t, t2->proc))
        return -EPERM;
    l4_word_t idx1 = a->a[3], idx2 = a->a[4];
    switch (a->a[2]) {
    case KCMP_FILE: {
        struct file *f1 = file_of(t1, idx1), *f2 = file_of(t2, idx2);
        return f1 && f2 ? order(f1, f2) : -EBADF;
    }
    case KCMP_VM:      return order(t1->exited ? NULL : t1->mm, t2->exited ? NULL : t2->mm);
    case KCMP_FILES:   return order(t1->files, t2->files);
    case KCMP_FS:      return order(t1->fs, t2->fs);
    case KCMP_SIGHAND: return order(t1->proc->sighand, t2->proc->sighand);
    case KCMP_IO:      return 0;    /* no I/O contexts: none has one, as a Linux process
                                       that never did block I/O */
    case KCMP_SYSVSEM: return order(t1->proc->sysvsem, t2->proc->sysvsem);
    case KCMP_EPOLL_TFD: return epoll_target_cmp(t, t1, t2, idx1, idx2);
    default:           return -EINVAL;
    }
}
