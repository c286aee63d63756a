/* CPU time of threads and processes (docs/linux/time.md): an estimate lx makes from the
 * messages it sees (cpu_enter/cpu_leave, task/cputime.h): the time between lx's answer to a
 * thread and its next system call is user time, lx's time serving it is system time, and a
 * parked call's wait is neither. */
#include "task/cputime.h"
#include "mm/mm.h"
#include <string.h>

static uint64_t running_ticks(const struct thread *t)
{
    uint64_t now = tsc();
    return t->cpu_mark && now > t->cpu_mark ? now - t->cpu_mark : 0;
}

void cpu_process_times(const struct process *p, uint64_t *utime, uint64_t *stime)
{
    const struct thread *t;
    *utime = p->dead_utime;
    *stime = p->dead_stime;
    list_each(t, &p->threads, proc_link) {
        *utime += t->utime;
        *stime += t->stime;
    }
}

void cpu_thread_gone(struct thread *t)
{
    t->proc->dead_utime += t->utime;
    t->proc->dead_stime += t->stime;
    t->utime = t->stime = 0;
}

void cpu_child_reaped(struct process *parent, const struct process *child)
{
    uint64_t u, s;
    cpu_process_times(child, &u, &s);
    parent->cutime += u + child->cutime;
    parent->cstime += s + child->cstime;
}

uint64_t cpu_thread_ns(const struct thread *t)
{
    return clock_tsc_ns(t->utime + t->stime + running_ticks(t));
}

uint64_t cpu_process_ns(const struct process *p)
{
    const struct thread *t;
    uint64_t ticks = p->dead_utime + p->dead_stime;
    list_each(t, &p->threads, proc_link)
        ticks += t->utime + t->stime + running_ticks(t);
    return clock_tsc_ns(ticks);
}

uint64_t cpu_process_user_ns(const struct process *p)
{
    const struct thread *t;
    uint64_t ticks = p->dead_utime;
    list_each(t, &p->threads, proc_link)
        ticks += t->utime + running_ticks(t);   /* it runs user code now */
    return clock_tsc_ns(ticks);
}

static void fill(void *buf, uint64_t utime, uint64_t stime, unsigned long pages)
{
    int64_t *ru = buf;              /* utime{sec,usec}, stime{sec,usec}, 14 longs */
    memset(ru, 0, 144);
    uint64_t u = clock_tsc_ns(utime), s = clock_tsc_ns(stime);
    ru[0] = (int64_t)(u / NSEC_PER_SEC), ru[1] = (int64_t)(u % NSEC_PER_SEC / 1000);
    ru[2] = (int64_t)(s / NSEC_PER_SEC), ru[3] = (int64_t)(s % NSEC_PER_SEC / 1000);
    ru[4] = (int64_t)(pages * (LX_PAGE / 1024));  /* maxrss (KiB): pages held now */
}

void cpu_rusage(const struct thread *t, int who, void *buf)
{
    uint64_t u, s;
    if (who < 0) {
        fill(buf, t->proc->cutime, t->proc->cstime, 0);
        return;
    }
    if (who)
        u = t->utime, s = t->stime;
    else
        cpu_process_times(t->proc, &u, &s);
    fill(buf, u, s, t->mm ? t->mm->pages : 0);
}

void cpu_rusage_zombie(const struct process *c, void *buf)
{
    uint64_t u, s;
    cpu_process_times(c, &u, &s);
    fill(buf, u, s, 0);
}
