/* Process groups and sessions: bookkeeping only for now (the tty's foreground group and
 * job-control signals build on it).  The rules are Linux's (setpgid(2), setsid(2)). */
#include "lib/errno.h"
#include "syscalls/handlers.h"
#include "task/process.h"

/* pid 0 is the caller; otherwise any process, zombies included, as Linux finds them. */
static struct task *target(struct task *t, l4_word_t pid)
{
    if (pid == 0)
        return t;
    if ((long)pid < 0 || pid > 0x7FFFFFFF)
        return NULL;
    return task_by_pid((int)pid);
}

static bool group_in_session(int pgid, int sid)
{
    for (unsigned i = 0; i < LX_MAX_TASKS; i++) {
        struct task *p = task_slot(i);
        if (p->state != TASK_FREE && p->pgid == pgid && p->sid == sid)
            return true;
    }
    return false;
}

long sys_setpgid(struct task *t, const struct sysargs *a)
{
    long pgid = (long)a->a[1];
    if (pgid < 0 || pgid > 0x7FFFFFFF)
        return -EINVAL;
    struct task *p = target(t, a->a[0]);
    if (!p || p->state != TASK_RUNNING || (p != t && p->ppid != t->pid))
        return -ESRCH;
    if (p != t && p->execed)
        return -EACCES;
    if (p->sid != t->sid || p->sid == p->pid)
        return -EPERM;              /* another session, or a session leader */
    if (!pgid)
        pgid = p->pid;
    if (pgid != p->pid && !group_in_session((int)pgid, t->sid))
        return -EPERM;
    p->pgid = (int)pgid;
    return 0;
}

long sys_getpgid(struct task *t, const struct sysargs *a)
{
    struct task *p = target(t, a->a[0]);
    return p ? p->pgid : -ESRCH;
}

long sys_getpgrp(struct task *t, const struct sysargs *a)
{
    (void)a;
    return t->pgid;
}

long sys_setsid(struct task *t, const struct sysargs *a)
{
    (void)a;
    for (unsigned i = 0; i < LX_MAX_TASKS; i++) {
        struct task *p = task_slot(i);
        if (p->state != TASK_FREE && p->pgid == t->pid)
            return -EPERM;          /* a group with our id exists: we lead it, or could */
    }
    t->sid = t->pgid = t->pid;
    return t->pid;
}

long sys_getsid(struct task *t, const struct sysargs *a)
{
    struct task *p = target(t, a->a[0]);
    return p ? p->sid : -ESRCH;
}
