/* CPU time of a process (docs/linux/time.md): an estimate lx makes from the messages it
 * sees (cpu_enter/cpu_leave, task/cputime.h): the time between lx's answer to a process and
 * its next system call is user time, lx's time serving it is system time, and a parked
 * call's wait is neither. */
#include "task/cputime.h"
#include <string.h>

void cpu_child_reaped(struct task *parent, const struct task *child)
{
    parent->cutime += child->utime + child->cutime;
    parent->cstime += child->stime + child->cstime;
}

uint64_t cpu_time_ns(const struct task *t)
{
    uint64_t now = tsc();
    return clock_tsc_ns(t->utime + t->stime +
                        (t->cpu_mark && now > t->cpu_mark ? now - t->cpu_mark : 0));
}

void cpu_rusage(const struct task *t, int who, void *buf)
{
    int64_t *ru = buf;              /* utime{sec,usec}, stime{sec,usec}, 14 longs */
    memset(ru, 0, 144);
    uint64_t u = clock_tsc_ns(who ? t->cutime : t->utime);
    uint64_t s = clock_tsc_ns(who ? t->cstime : t->stime);
    ru[0] = (int64_t)(u / NSEC_PER_SEC), ru[1] = (int64_t)(u % NSEC_PER_SEC / 1000);
    ru[2] = (int64_t)(s / NSEC_PER_SEC), ru[3] = (int64_t)(s % NSEC_PER_SEC / 1000);
    if (!who)
        ru[4] = (int64_t)(t->mm.pages * (LX_PAGE / 1024));  /* maxrss (KiB): pages held now */
}
