/* ioprio_set and ioprio_get (docs/linux/system.md): each thread's I/O priority, kept and
 * reported as Debian's Linux 6.1 does (0, class NONE, until set).  lx has no block devices, so nothing acts on it. */
#include "syscalls/handlers.h"
#include "syscalls/handlers_rest.h"
#include "lib/errno.h"
#include "task/pid.h"
#include "task/process.h"
#include "task/thread.h"

enum { WHO_PROCESS = 1, WHO_PGRP = 2, WHO_USER = 3 };
enum { CLASS_NONE = 0, CLASS_RT = 1, CLASS_BE = 2, CLASS_IDLE = 3 };
#define PRIO_CLASS(p)    (((p) >> 13) & 7)
#define PRIO_LEVEL(p)    ((p) & 7)
#define PRIO_VALUE(c, d) (((c) << 13) | (d))

/* Linux's ioprio_best, as 6.1 answers for groups and users: class NONE counts as best
 * effort, level 4 (a thread's default, 0, included), and the higher of the two wins. */
static int ioprio_best(int a, int b)
{
    if (PRIO_CLASS(a) == CLASS_NONE)
        a = PRIO_VALUE(CLASS_BE, 4);
    if (PRIO_CLASS(b) == CLASS_NONE)
        b = PRIO_VALUE(CLASS_BE, 4);
    return a < b ? a : b;
}

/* copy_io: a child gets a copy of a valid priority (class NONE is not copied: 0). */
void ioprio_fork(struct thread *child, const struct thread *parent)
{
    child->ioprio = PRIO_CLASS(parent->ioprio) != CLASS_NONE ? parent->ioprio : 0;
}

static long set_one(struct thread *t, struct thread *o, int ioprio)
{
    const struct cred *c = &t->proc->cred;
    unsigned uid = o->proc->cred.uid;
    if (uid != c->euid && uid != c->uid && !cred_capable(c, CAP_SYS_NICE))
        return -EPERM;
    o->ioprio = (uint16_t)ioprio;
    return 0;
}

/* One thread, or every thread of a group or of a user: the set (ret: first an error), or
 * the get (ret: the first one's, then the best of all). */
struct ioprio_walk { struct thread *t; bool set; int which, ioprio; long ret; };

static bool walk_one(struct ioprio_walk *w, struct thread *o)
{
    if (w->set) {
        w->ret = set_one(w->t, o, w->ioprio);
        return w->ret == 0;
    }
    int v = o->ioprio;
    w->ret = w->which == WHO_PROCESS ? v : ioprio_best(w->ret == -ESRCH ? v : (int)w->ret, v);
    return true;
}

static bool walk_process(struct ioprio_walk *w, struct process *p)
{
    struct thread *o;
    list_each(o, &p->threads, proc_link) {
        if (!o->exited && !walk_one(w, o))
            return false;
    }
    return true;
}

/* A user exists (Linux's find_user) while a process has it as its real uid. */
static bool user_exists(unsigned uid)
{
    for (struct pid *n = pid_find_ge(1); n; n = pid_find_ge(n->nr + 1))
        if (n->proc && n->proc->state == PROCESS_LIVE && n->proc->cred.uid == uid)
            return true;
    return false;
}

static long ioprio_walk(struct ioprio_walk *w, int which, int who)
{
    struct thread *t = w->t;
    w->ret = -ESRCH;
    w->which = which;
    switch (which) {
    case WHO_PROCESS: {
        struct pid *n = who ? pid_find(who) : t->tid;
        if (n && n->thread)
            walk_one(w, n->thread);
        break;
    }
    case WHO_PGRP: {
        struct pid *g = who ? pid_find(who) : t->proc->pgrp;
        struct process *p;
        if (g)
            list_each(p, &g->pgrp, pgrp_link) {
                if (!walk_process(w, p))
                    break;
            }
        break;
    }
    case WHO_USER: {
        unsigned uid = who ? (unsigned)who : t->proc->cred.uid;
        if ((w->set && who == -1) || !user_exists(uid))
            break;
        for (struct pid *n = pid_find_ge(1); n; n = pid_find_ge(n->nr + 1))
            if (n->proc && n->proc->state == PROCESS_LIVE && n->proc->cred.uid == uid &&
                !walk_process(w, n->proc))
                break;
        break;
    }
    default:
        return -EINVAL;
    }
    return w->ret;
}

/* Linux's ioprio_check_cap: the class and its level; the real-time class is root's. */
static long ioprio_check(struct thread *t, int ioprio)
{
    const struct cred *c = &t->proc->cred;
    switch (PRIO_CLASS(ioprio)) {
    case CLASS_RT:
        if (!cred_capable(c, CAP_SYS_NICE) && !cred_capable(c, CAP_SYS_ADMIN))
            return -EPERM;
        __attribute__((fallthrough));   /* levels as best effort's */
    case CLASS_BE:
        return 0;                   /* 6.1.y checks the level, ioprio & 7, against 8 */
    case CLASS_IDLE:
        return 0;
    case CLASS_NONE:
        return PRIO_LEVEL(ioprio) ? -EINVAL : 0;
    default:
        return -EINVAL;
    }
}

long sys_ioprio_set(struct thread *t, const struct sysargs *a)
{
    int ioprio = (int)a->a[2];
    long e = ioprio_check(t, ioprio);
    if (e)
        return e;
    struct ioprio_walk w = { .t = t, .set = true, .ioprio = ioprio };
    return ioprio_walk(&w, (int)a->a[0], (int)a->a[1]);
}

long sys_ioprio_get(struct thread *t, const struct sysargs *a)
{
    struct ioprio_walk w = { .t = t };
    return ioprio_walk(&w, (int)a->a[0], (int)a->a[1]);
}
