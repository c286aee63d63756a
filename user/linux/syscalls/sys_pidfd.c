/* pidfds (Linux 6.1's kernel/pid.c, kernel/fork.c, kernel/signal.c): an anonymous file
 * "[pidfd]" holding a reference to a pid.  pidfd_open makes one, clone's CLONE_PIDFD too
 * (pidfd_file); poll says POLLIN once the process has ended (a zombie or reaped: Debian's
 * 6.1 adds no POLLHUP); pidfd_send_signal signals it, pidfd_getfd copies one of its fds.  A poller
 * waits on the parent's child queue, which every state change of the process wakes (a
 * process without a parent, one lx started, never wakes it). */
#include "syscalls/handlers_more.h"
#include "syscalls/handlers_rest.h"
#include "mm/mm.h"
#include "vfs/permission.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "signal/signal.h"
#include "task/process.h"
#include "vfs/file.h"
#include "vfs/poll.h"
#include <stdio.h>

#define PIDFD_NONBLOCK O_NONBLOCK
#define SI_USER  0
#define SI_TKILL (-6)

static unsigned pidfd_poll(struct thread *t, struct file *f, struct poll_table *pt)
{
    (void)t;
    struct process *p = ((struct pid *)f->priv)->proc;
    if (!p)
        return POLLIN | POLLRDNORM;   /* reaped (Debian's 6.1: no POLLHUP) */
    if (p->state == PROCESS_ZOMBIE)
        return POLLIN | POLLRDNORM;
    if (p->parent)
        poll_wait(pt, &p->parent->child_wait);
    return 0;
}

static void pidfd_release(struct file *f)
{
    pid_put(f->priv);
}

/* Linux's pidfd_show_fdinfo: the pid while the process exists (a zombie too), else -1. */
static int pidfd_show_fdinfo(struct file *f, char *buf, size_t size)
{
    struct pid *pid = f->priv;
    int nr = pid->proc ? pid->nr : -1;
    return snprintf(buf, size, "Pid:\t%d\nNSpid:\t%d\n", nr, nr);
}

static const struct file_ops pidfd_ops = {
    .anon_name = "[pidfd]", .poll = pidfd_poll, .release = pidfd_release,
    .show_fdinfo = pidfd_show_fdinfo,
};

struct file *pidfd_file(struct process *p, unsigned flags)
{
    struct file *f = anon_file(&pidfd_ops, p->pid, O_RDWR | (flags & O_NONBLOCK));
    if (f)
        pid_get(p->pid);
    return f;
}

/* The process of a pidfd: NULL with *err (EBADF: no pidfd; ESRCH: reaped). */
static struct process *pidfd_process(struct thread *t, long fd, int *err)
{
    struct file *f = fd_get(t, fd);
    if (!f || f->ops != &pidfd_ops) {
        *err = -EBADF;
        return NULL;
    }
    struct process *p = ((struct pid *)f->priv)->proc;
    if (!p)
        *err = -ESRCH;
    return p;
}

long sys_pidfd_open(struct thread *t, const struct sysargs *a)
{
    int nr = (int)a->a[0];
    if (a->a[1] & ~(l4_word_t)PIDFD_NONBLOCK || nr <= 0)
        return -EINVAL;
    struct process *p = process_by_pid(nr);
    if (!p)
        return pid_find(nr) ? -EINVAL : -ESRCH;     /* a thread's id: no process's */
    struct file *f = pidfd_file(p, (unsigned)a->a[1]);
    if (!f)
        return -ENOMEM;
    int fd = fd_install(t, f, 0, true);
    if (fd < 0)
        file_put(f);
    return fd;
}

/* a siginfo as the caller gives it (128 bytes): the fields a kill's has */
struct user_siginfo {
    int signo, err, code, pad;
    int pid, uid;
    char rest[104];
};

long sys_pidfd_send_signal(struct thread *t, const struct sysargs *a)
{
    int sig = (int)a->a[1], err = 0;
    if ((unsigned)a->a[3])
        return -EINVAL;
    struct process *p = pidfd_process(t, (long)(int)a->a[0], &err);
    if (!p && err == -EBADF)
        return err;
    struct k_siginfo info = { .code = SI_USER, .pid = thread_pid(t),
                              .uid = (int)t->proc->cred.uid };
    if (a->a[2]) {
        struct user_siginfo u;
        if (copy_from_user(t->mm, &u, a->a[2], sizeof u))
            return -EFAULT;
        if (u.signo != sig)
            return -EINVAL;
        /* only the kernel may claim a kernel's or kill's code to another process */
        if (p != t->proc && (u.code >= 0 || u.code == SI_TKILL))
            return -EPERM;
        info = (struct k_siginfo){ .code = u.code, .pid = u.pid, .uid = u.uid };
    }
    if (!p)
        return err;                 /* reaped: ESRCH before the signal number is looked at */
    if (sig < 0 || sig > 64)
        return -EINVAL;
    if (sig && p->state == PROCESS_LIVE)
        signal_send(p, sig, &info);
    return 0;
}

long sys_pidfd_getfd(struct thread *t, const struct sysargs *a)
{
    int err = 0;
    if (a->a[2])
        return -EINVAL;
    struct process *p = pidfd_process(t, (long)(int)a->a[0], &err);
    if (!p)
        return err;
    struct thread *o = process_thread(p);
    if (!o)
        return -ESRCH;              /* ended: no fd table */
    if (t->proc->cred.euid != 0 && t->proc->cred.euid != p->cred.uid)
        return -EPERM;              /* ptrace's access check, simplified: root or the same user */
    struct file *f = fd_get(o, (long)(int)a->a[1]);
    if (!f)
        return -EBADF;
    file_get(f);
    int fd = fd_install(t, f, 0, true);
    if (fd < 0)
        file_put(f);
    return fd;
}

/* process_madvise: the hints Linux 6.1 takes from another process (cold, pageout, willneed,
 * collapse) for each of the caller's iovecs, in Linux's order of checks; lx acts on none
 * of them, so only the ranges are checked.  The bytes advised, or the first error. */
long sys_process_madvise(struct thread *t, const struct sysargs *a)
{
    enum { MADV_WILLNEED = 3, MADV_COLD = 20, MADV_PAGEOUT = 21, MADV_COLLAPSE = 25 };
    l4_word_t advice = (unsigned)a->a[3];
    int err = 0;
    if ((unsigned)a->a[4])
        return -EINVAL;
    struct uio u;
    long e = iov_import(t, a->a[1], a->a[2], &u);
    if (e)
        return e;
    struct process *p = pidfd_process(t, (long)(int)a->a[0], &err);
    if (!p)
        return err;
    if (advice != MADV_WILLNEED && advice != MADV_COLD && advice != MADV_PAGEOUT &&
        advice != MADV_COLLAPSE)
        return -EINVAL;
    struct mm *mm = process_mm(p);
    if (!mm)
        return -ESRCH;              /* mm_access: it has none */
    if (p != t->proc && !cred_may_read_proc(t->proc, p))
        return -EACCES;
    if (!cred_capable(&t->proc->cred, CAP_SYS_NICE))
        return -EPERM;
    long done = 0;
    for (unsigned k = 0; k < u.nseg; k++) {
        if (!u.seg[k].len)
            continue;               /* the iterator skips empty ones */
        if ((e = mm_madvise(mm, u.seg[k].base, u.seg[k].len, advice)) < 0)
            break;
        done += (long)u.seg[k].len;
    }
    return done ? done : e;
}

/* process_mrelease: Linux reaps the memory of a process that is being killed; one that is
 * not is EINVAL, one whose memory is gone already (a zombie) ESRCH.  lx frees a process's
 * memory as it ends, so there is nothing to hurry. */
long sys_process_mrelease(struct thread *t, const struct sysargs *a)
{
    int err = 0;
    if ((unsigned)a->a[1])
        return -EINVAL;
    struct process *p = pidfd_process(t, (long)(int)a->a[0], &err);
    if (!p)
        return err;
    return process_mm(p) ? -EINVAL : -ESRCH;
}
