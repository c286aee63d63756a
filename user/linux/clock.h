/* Time (docs/linux/time.md): the clocks, sleeping, CPU time. */
#ifndef LX_CLOCK_H
#define LX_CLOCK_H

#include "lx.h"

#define NSEC_PER_SEC 1000000000ull

/* Read the CMOS RTC once (lx's start): the wall clock runs from it. */
void clock_init(void);
uint64_t clock_realtime(void);      /* ns since the epoch */

/* A struct timespec / timeval from the process as ns: 0, -EFAULT or -EINVAL (a negative
 * or out-of-range field). */
int timespec_get(struct task *t, l4_word_t uts, uint64_t *ns);
int timeval_get(struct task *t, l4_word_t utv, uint64_t *ns);
int timespec_put(struct task *t, l4_word_t uts, uint64_t ns);
int timeval_put(struct task *t, l4_word_t utv, uint64_t ns);

/* CPU time accounting (an estimate, docs/linux/time.md): syscall_dispatch calls these
 * around each handler; a parked call's answer resumes the clock.  In TSC ticks (cheap on
 * every system call; clock.c turns them into ns). */
static inline uint64_t tsc(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}
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
/* Linux's struct rusage (144 bytes) for t (who: 0 self, -1 its reaped children). */
void cpu_rusage(const struct task *t, int who, void *buf);

/* A nanosleep/clock_nanosleep parked on its deadline that a signal ends: writes the
 * remaining time where the call asked (relative sleeps) and returns -EINTR.  For the
 * signal layer (which may restart instead: a restarted sleep runs anew, as Linux's
 * restart_syscall does for relative sleeps only approximately). */
long clock_sleep_interrupted(struct task *t);

long sys_nanosleep(struct task *, const struct sysargs *);
long sys_gettimeofday(struct task *, const struct sysargs *);
long sys_getrusage(struct task *, const struct sysargs *);
long sys_times(struct task *, const struct sysargs *);
long sys_time(struct task *, const struct sysargs *);
long sys_sched_yield(struct task *, const struct sysargs *);
long sys_clock_settime(struct task *, const struct sysargs *);
long sys_clock_gettime(struct task *, const struct sysargs *);
long sys_clock_getres(struct task *, const struct sysargs *);
long sys_clock_nanosleep(struct task *, const struct sysargs *);
long sys_settimeofday(struct task *, const struct sysargs *);

#endif
