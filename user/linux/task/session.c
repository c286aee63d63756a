/* Process groups and sessions (the tty's foreground group and job-control signals build on
 * them).  A group or a session is a struct pid whose lists hold its members (task/pid.h):
 * the checks below look at one group's members, never at every process.  The rules are
 * Linux's (setpgid(2), setsid(2)). */
#include "lib/errno.h"
#include "syscalls/handlers.h"
#include "task/process.h"

/* pid 0 is the caller; otherwise any process, zombies included, as Linux finds them. */
static struct process *target(struct thread *t, l4_word_t pid)
{
    if (pid == 0)
        return t->proc;
    if ((long)pid < 0 || pid > 0x7FFFFFFF)
        return NULL;
    return process_by_pid((int)pid);
}

/* Does process group pgid have a member in session? */
static struct pid *group_in_session(int pgid, const struct pid *session)
{
    struct pid *g = pid_find(pgid);
    struct process *p;
    if (g)
        list_each(p, &g->pgrp, pgrp_link)
            if (p->session == session)
                return g;
    return NULL;
}

long sys_setpgid(struct thread *t, const struct sysargs *a)
{
    long pgid = (long)a->a[1];
    if (pgid < 0 || pgid > 0x7FFFFFFF)
        return -EINVAL;
    struct process *me = t->proc, *p = target(t, a->a[0]);
    if (!p || p->state != PROCESS_LIVE || (p != me && p->parent != me))
        return -ESRCH;
    if (p != me && p->execed)
        return -EACCES;
    if (p->session != me->session || p->session == p->pid)
        return -EPERM;              /* another session, or a session leader */
    struct pid *g = !pgid || pgid == process_pid(p) ? p->pid
                                                     : group_in_session((int)pgid, me->session);
    if (!g)
        return -EPERM;
    process_set_pgrp(p, g);
    return 0;
}

long sys_getpgid(struct thread *t, const struct sysargs *a)
{
    struct process *p = target(t, a->a[0]);
    return p ? process_pgid(p) : -ESRCH;
}

long sys_getpgrp(struct thread *t, const struct sysargs *a)
{
    (void)a;
    return process_pgid(t->proc);
}

long sys_setsid(struct thread *t, const struct sysargs *a)
{
    (void)a;
    struct process *p = t->proc;
    if (!list_empty(&p->pid->pgrp))
        return -EPERM;              /* a group with our id exists: we lead it, or could */
    process_set_session(p, p->pid);
    process_set_pgrp(p, p->pid);
    return process_pid(p);
}

long sys_getsid(struct thread *t, const struct sysargs *a)
{
    struct process *p = target(t, a->a[0]);
    return p ? process_sid(p) : -ESRCH;
}
