/* CPU time accounting (cputime.c, an estimate: docs/linux/time.md): syscall_dispatch calls
 * cpu_enter and cpu_leave around each handler; a parked call's answer resumes the clock.
 * In TSC ticks (cheap on every system call; turned into ns when reported). */
#ifndef LX_TASK_CPUTIME_H
#define LX_TASK_CPUTIME_H

#include "task/process.h"
#include "time/clock.h"

static inline void cpu_enter(struct task *t)   /* lx got a message from t */
{
    uint64_t now = tsc();
    if (t->cpu_mark && now > t->cpu_mark)
        t->utime += now - t->cpu_mark;
    t->cpu_mark = now;              /* from here: lx's time for it */
}
/* lx is done with t's message; resumed: it runs on (not parked, not ended) */
static inline void cpu_leave(struct task *t, bool resumed)
{
    uint64_t now = tsc();
    if (t->cpu_mark && now > t->cpu_mark)
        t->stime += now - t->cpu_mark;
    t->cpu_mark = resumed ? now : 0;
}
void cpu_child_reaped(struct task *parent, const struct task *child);
uint64_t cpu_time_ns(const struct task *t);    /* user + system so far */
/* Linux's struct rusage (144 bytes) for t (who: 0 self, -1 its reaped children). */
void cpu_rusage(const struct task *t, int who, void *buf);

#endif
