/* wait4: a parent reaps its ended children (zombies, task.c).  A wait that finds none
 * parks the caller on its child_wait queue (park.c); a child that ends wakes it and the call
 * looks again, while lx serves everyone else.  Status as Linux encodes it: exit
 * code << 8, or the terminating signal in the low 7 bits.  The rusage: the child's
 * estimated times (clock.c). */
#include "lx.h"
#include "clock.h"
#include <string.h>

#define WNOHANG     0x00000001
#define WUNTRACED   0x00000002
#define WCONTINUED  0x00000008
#define __WNOTHREAD 0x20000000
#define __WALL      0x40000000
#define __WCLONE    0x80000000
#define RUSAGE_SIZE 144

/* Is c a child of t that wait4(pid) waits for? */
static bool matches(const struct task *t, const struct task *c, int pid)
{
    if (c->state == TASK_FREE || c->ppid != t->pid || c == t)
        return false;
    if (pid > 0)
        return c->pid == pid;
    if (pid == -1)
        return true;
    return c->pgid == (pid == 0 ? t->pgid : -pid);
}

/* Free zombie c and report it to t: c's pid, or -EFAULT if the status or rusage cannot be
 * stored (c is gone all the same, as in Linux, which copies after reaping). */
static long reap(struct task *t, struct task *c, l4_word_t ustatus, l4_word_t urusage)
{
    uint8_t ru[RUSAGE_SIZE];
    int pid = c->pid, status = c->status;
    cpu_child_reaped(t, c);         /* times(2)'s and getrusage's children (clock.c) */
    cpu_rusage(c, 0, ru);
    task_free(c);
    if (ustatus && copy_to_user(&t->mm, ustatus, &status, sizeof status))
        return -EFAULT;
    if (urusage && copy_to_user(&t->mm, urusage, ru, sizeof ru))
        return -EFAULT;
    return pid;
}

long sys_wait4(struct task *t, const struct sysargs *a)
{
    int pid = (int)a->a[0];
    l4_word_t options = a->a[2];
    if (options & ~(l4_word_t)(WNOHANG | WUNTRACED | WCONTINUED | __WNOTHREAD | __WALL |
                               __WCLONE))
        return -EINVAL;
    if (pid == (int)0x80000000)
        return -ESRCH;              /* -INT_MIN cannot be negated: Linux says ESRCH */
    bool any = false;
    for (unsigned i = 0; i < LX_MAX_TASKS; i++) {
        struct task *c = task_slot(i);
        if (!matches(t, c, pid))
            continue;
        if (c->state == TASK_ZOMBIE)
            return reap(t, c, a->a[1], a->a[3]);
        any = true;
    }
    if (!any)
        return -ECHILD;
    if (options & WNOHANG)
        return 0;
    waitq_add(&t->child_wait, t);
    return park_call(t, 0);
}
