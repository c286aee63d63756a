/* Timers on Linux's clocks (clock_timer.c; docs/linux/event-files.md): what timerfd and the
 * POSIX timers share.  The expiry is kept in the clock's own time and lx's deadline (a
 * struct timer in park/timer.c's heap) is derived from it: CLOCK_REALTIME's moves when the
 * clock is set, a CPU-time clock's is looked at again when it comes, since CPU time cannot
 * run ahead of the wall clock on lx's one CPU. */
#ifndef LX_TIME_CLOCK_TIMER_H
#define LX_TIME_CLOCK_TIMER_H

#include "lib/list.h"
#include "park/timer.h"
#include <libl4.h>
#include <stdbool.h>
#include <stdint.h>

struct thread;
struct process;

#define CLOCK_REALTIME           0
#define CLOCK_MONOTONIC          1
#define CLOCK_PROCESS_CPUTIME_ID 2
#define CLOCK_THREAD_CPUTIME_ID  3
#define CLOCK_BOOTTIME           7
#define CLOCK_REALTIME_ALARM     8
#define CLOCK_BOOTTIME_ALARM     9
#define CLOCK_TAI               11
/* lx's own: a process's user CPU time (ITIMER_VIRTUAL: time/cpu_itimer.c); no clock id. */
#define CLOCK_LX_PROCESS_UTIME  0x100
#define TIMER_ABSTIME            1

struct clock_timer {
    int clock;                      /* one of the above */
    uint64_t expires;               /* in the clock's time (ns) */
    bool running;                   /* armed: fire is called at expires */
    struct timer tm;                /* lx's deadline while running */
    struct list rt_link;            /* REALTIME clocks: on the list clock_was_set walks */
    struct process *cpu_proc;       /* CPU-time clocks: whose time (the timer's owner) */
    int cpu_tid;                    /* THREAD_CPUTIME_ID: the thread's (gone: never fires) */
    void (*fire)(struct clock_timer *ct);
    void (*was_set)(struct clock_timer *ct);    /* REALTIME: the clock was set (or NULL) */
};

/* ct on clock for t's process (t's thread for THREAD_CPUTIME_ID), not running. */
void clock_timer_init(struct clock_timer *ct, int clock, struct thread *t,
                      void (*fire)(struct clock_timer *ct));
void clock_timer_release(struct clock_timer *ct);   /* cancelled, off every list */
uint64_t clock_timer_now(const struct clock_timer *ct);     /* the clock's time now */
void clock_timer_start(struct clock_timer *ct, uint64_t expires);
void clock_timer_cancel(struct clock_timer *ct);
/* Fire ct now if its expiry has passed but lx's timer thread has not said so yet: what a
 * reader sees does not depend on when the tick message is served. */
void clock_timer_check(struct clock_timer *ct);
/* Linux's hrtimer_forward: expires moved on by whole intervals until it is past now; how
 * many (0 if it is past now already).  Nothing is armed. */
uint64_t clock_timer_forward(struct clock_timer *ct, uint64_t now, uint64_t interval);
/* A time value from the process (struct timespec, relative or TIMER_ABSTIME) as the expiry
 * on ct's clock. */
uint64_t clock_timer_expiry(const struct clock_timer *ct, uint64_t value, bool abs);
/* A struct itimerspec from the process: 0, -EFAULT, or -EINVAL (a negative or too large
 * field, as Linux's timespec64_valid). */
struct mm;
int itimerspec_get(struct mm *mm, l4_word_t uaddr, uint64_t *interval, uint64_t *value);
int itimerspec_put(struct mm *mm, l4_word_t uaddr, uint64_t interval, uint64_t value);
/* clock_settime/settimeofday (sys_time.c): REALTIME timers follow the new time. */
void clock_was_set(void);

#endif
