/* Timers on Linux's clocks: the expiry in the clock's own time, lx's deadline derived from
 * it (docs/linux/event-files.md, "Timers").  MONOTONIC and BOOTTIME are lx_now() (lx never
 * suspends); REALTIME is lx_now() plus the offset clock_settime moves, so its timers are
 * armed again when the clock is set (the REALTIME timers are a list for that: setting the
 * clock walks it, nothing else does); the *_ALARM clocks are REALTIME and BOOTTIME (no
 * suspend to wake from).  A CPU-time clock's deadline is the wall-clock time its remaining
 * CPU time needs at least (lx has one CPU: a process's CPU time grows at most as fast as the
 * wall clock); when it comes the CPU time is read again and the deadline moved on for what
 * is left, so the timer fires at the first look after the CPU time is reached. */
#include "time/clock_timer.h"
#include "task/cputime.h"
#include "task/pid.h"
#include "task/process.h"
#include "time/clock.h"
#include "lib/errno.h"
#include "mm/usercopy.h"

static struct list realtime_timers = LIST_INIT(realtime_timers);

static bool is_realtime(int clock)
{
    return clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_ALARM || clock == CLOCK_TAI;
}

static bool is_cputime(int clock)
{
    return clock == CLOCK_PROCESS_CPUTIME_ID || clock == CLOCK_THREAD_CPUTIME_ID ||
           clock == CLOCK_LX_PROCESS_UTIME;
}

static void deadline_fired(struct timer *tm)
{
    struct clock_timer *ct = container_of(tm, struct clock_timer, tm);
    if (is_cputime(ct->clock)) {
        uint64_t now = clock_timer_now(ct);
        if (now == ~0ull)
            return;                 /* its thread is gone: it never fires */
        if (now < ct->expires) {
            timer_arm(&ct->tm, lx_now() + (ct->expires - now));
            return;
        }
    }
    ct->running = false;
    ct->fire(ct);
}

void clock_timer_init(struct clock_timer *ct, int clock, struct thread *t,
                      void (*fire)(struct clock_timer *ct))
{
    *ct = (struct clock_timer){ .clock = clock, .fire = fire, .cpu_proc = t->proc,
                                .cpu_tid = t->tid->nr };
    timer_init(&ct->tm, deadline_fired);
    list_init(&ct->rt_link);
    if (is_realtime(clock))
        list_add_tail(&realtime_timers, &ct->rt_link);
}

void clock_timer_release(struct clock_timer *ct)
{
    clock_timer_cancel(ct);
    list_del(&ct->rt_link);
}

uint64_t clock_timer_now(const struct clock_timer *ct)
{
    switch (ct->clock) {
    case CLOCK_REALTIME:
    case CLOCK_REALTIME_ALARM:
    case CLOCK_TAI:                 /* TAI - UTC is 0 (time/clock.c) */
        return clock_realtime();
    case CLOCK_PROCESS_CPUTIME_ID:
        return cpu_process_ns(ct->cpu_proc);
    case CLOCK_LX_PROCESS_UTIME:
        return cpu_process_user_ns(ct->cpu_proc);
    case CLOCK_THREAD_CPUTIME_ID: {
        struct pid *p = pid_find(ct->cpu_tid);
        struct thread *t = p ? p->thread : NULL;
        return t && t->proc == ct->cpu_proc ? cpu_thread_ns(t) : ~0ull;
    }
    default:
        return lx_now();
    }
}

/* lx's deadline for the expiry: now if it is past. */
static uint64_t deadline(const struct clock_timer *ct)
{
    uint64_t now = clock_timer_now(ct), at = lx_now();
    if (now == ~0ull)
        return ~0ull;
    if (ct->expires > now)
        at += ct->expires - now > ~0ull - at ? ~0ull - at : ct->expires - now;
    return at;
}

void clock_timer_start(struct clock_timer *ct, uint64_t expires)
{
    ct->expires = expires;
    ct->running = true;
    uint64_t at = deadline(ct);
    if (at == ~0ull)
        timer_cancel(&ct->tm);      /* never (a thread's clock whose thread is gone) */
    else
        timer_arm(&ct->tm, at);
}

void clock_timer_cancel(struct clock_timer *ct)
{
    ct->running = false;
    timer_cancel(&ct->tm);
}

void clock_timer_check(struct clock_timer *ct)
{
    if (ct->running && ct->tm.armed && clock_timer_now(ct) >= ct->expires) {
        timer_cancel(&ct->tm);
        ct->running = false;
        ct->fire(ct);
    }
}

uint64_t clock_timer_forward(struct clock_timer *ct, uint64_t now, uint64_t interval)
{
    if (!interval || now < ct->expires)
        return 0;
    uint64_t n = (now - ct->expires) / interval + 1;
    ct->expires += n * interval;
    return n;
}

uint64_t clock_timer_expiry(const struct clock_timer *ct, uint64_t value, bool abs)
{
    if (abs)
        return value;
    uint64_t now = clock_timer_now(ct);
    return value > ~0ull - now ? ~0ull : now + value;
}

void clock_was_set(void)
{
    struct clock_timer *ct, *n;
    list_each_safe(ct, n, &realtime_timers, rt_link) {
        if (ct->running)
            clock_timer_start(ct, ct->expires);
        if (ct->was_set)
            ct->was_set(ct);
    }
}

/* --- struct itimerspec ------------------------------------------------------------------- */

static bool valid(const int64_t ts[2])
{
    return ts[0] >= 0 && ts[1] >= 0 && ts[1] < (int64_t)NSEC_PER_SEC;
}

/* Linux's KTIME_MAX caps what a time value can say (about 292 years). */
static uint64_t ts_ns(const int64_t ts[2])
{
    if ((uint64_t)ts[0] >= (uint64_t)INT64_MAX / NSEC_PER_SEC)
        return (uint64_t)INT64_MAX;
    return (uint64_t)ts[0] * NSEC_PER_SEC + (uint64_t)ts[1];
}

int itimerspec_get(struct mm *mm, l4_word_t uaddr, uint64_t *interval, uint64_t *value)
{
    int64_t its[4];
    if (copy_from_user(mm, its, uaddr, sizeof its))
        return -EFAULT;
    if (!valid(its) || !valid(its + 2))
        return -EINVAL;
    *interval = ts_ns(its);
    *value = ts_ns(its + 2);
    return 0;
}

int itimerspec_put(struct mm *mm, l4_word_t uaddr, uint64_t interval, uint64_t value)
{
    int64_t its[4] = { (int64_t)(interval / NSEC_PER_SEC), (int64_t)(interval % NSEC_PER_SEC),
                       (int64_t)(value / NSEC_PER_SEC), (int64_t)(value % NSEC_PER_SEC) };
    return copy_to_user(mm, uaddr, its, sizeof its) ? -EFAULT : 0;
}
