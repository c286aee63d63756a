/* CPU time accounting (cputime.c, an estimate: docs/linux/time.md): syscall_dispatch calls
 * cpu_enter and cpu_leave around each handler; a parked call's answer resumes the clock.
 * Kept per thread in TSC ticks (cheap on every system call; turned into ns when reported);
 * a process's time is its threads'. */
#ifndef LX_TASK_CPUTIME_H
#define LX_TASK_CPUTIME_H

#include "task/process.h"
#include "time/clock.h"

static inline void cpu_enter(struct thread *t)   /* lx got a message from t */
{
    uint64_t now = tsc();
    if (t->cpu_mark && now > t->cpu_mark)
        t->utime += now - t->cpu_mark;
    t->cpu_mark = now;              /* from here: lx's time for it */
}
/* lx is done with t's message; resumed: it runs on (not parked, not ended) */
static inline void cpu_leave(struct thread *t, bool resumed)
{
    uint64_t now = tsc();
    if (t->cpu_mark && now > t->cpu_mark)
        t->stime += now - t->cpu_mark;
    t->cpu_mark = resumed ? now : 0;
}
/* Thread t leaves its process's list (it ended): its times stay the process's. */
void cpu_thread_gone(struct thread *t);
/* A reaped child's times (and its reaped children's) become parent's children's times. */
void cpu_child_reaped(struct process *parent, const struct process *child);
uint64_t cpu_thread_ns(const struct thread *t);        /* user + system so far */
uint64_t cpu_process_ns(const struct process *p);      /* its threads' */
uint64_t cpu_process_user_ns(const struct process *p); /* its threads' user time */
/* user and system time of p (TSC ticks): its threads' */
void cpu_process_times(const struct process *p, uint64_t *utime, uint64_t *stime);
/* Linux's struct rusage (144 bytes) for t (who: 0 its process, -1 its process's reaped
 * children, 1 the thread itself), or of a zombie child (wait4). */
void cpu_rusage(const struct thread *t, int who, void *buf);
void cpu_rusage_zombie(const struct process *c, void *buf);

#endif
