/* ITIMER_VIRTUAL and ITIMER_PROF (cpu_itimer.h) as clock_timers on CPU-time clocks: the
 * deadline is looked at when the wall-clock time the CPU time needs at least has passed (lx's
 * timer thread, at the kernel's 1 ms tick), then moved on by what is left, so the signal
 * comes at the first tick after the process's estimated CPU time reached the value.  As
 * Linux's check_cpu_itimer, the next expiry is the last one plus the interval. */
#include "time/cpu_itimer.h"
#include "signal/signal.h"
#include "task/process.h"
#include "time/clock_timer.h"

#define TICK_NSEC 4000000ull        /* Linux's at Debian's HZ 250 */

static int slot(int which)
{
    return which == ITIMER_VIRTUAL ? 0 : 1;
}

static void fired(struct clock_timer *ct)
{
    struct process *p = ct->cpu_proc;
    int i = ct == &p->sig.cpu_itimer[0] ? 0 : 1;
    struct k_siginfo info = { .code = SI_KERNEL };
    if (p->sig.cpu_interval[i])
        clock_timer_start(ct, ct->expires + p->sig.cpu_interval[i]);
    signal_send(p, i ? SIGPROF : SIGVTALRM, &info);
}

void cpu_itimer_get(struct process *p, int which, uint64_t *value, uint64_t *interval)
{
    struct clock_timer *ct = &p->sig.cpu_itimer[slot(which)];
    *value = *interval = 0;
    if (!ct->running)
        return;
    uint64_t now = clock_timer_now(ct);
    *value = ct->expires > now ? ct->expires - now : 1;     /* about to fire */
    *interval = p->sig.cpu_interval[slot(which)];
}

void cpu_itimer_set(struct thread *t, int which, uint64_t value, uint64_t interval)
{
    struct process *p = t->proc;
    int i = slot(which);
    struct clock_timer *ct = &p->sig.cpu_itimer[i];
    if (!ct->fire)                  /* the first use: the process's clock, for its life */
        clock_timer_init(ct, i ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_LX_PROCESS_UTIME, t, fired);
    p->sig.cpu_interval[i] = value ? interval : 0;
    if (value)                      /* plus a tick, as Linux's set_cpu_itimer */
        clock_timer_start(ct, clock_timer_expiry(ct, value + TICK_NSEC, false));
    else
        clock_timer_cancel(ct);
}

void cpu_itimer_exit(struct process *p)
{
    for (int i = 0; i < 2; i++)
        if (p->sig.cpu_itimer[i].fire)
            clock_timer_cancel(&p->sig.cpu_itimer[i]);
}
