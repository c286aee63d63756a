/* The system calls on clocks and time (docs/linux/time.md): reading and setting the clocks
 * (time/clock.c), times and getrusage (task/cputime.c), and the sleeps, which are parked
 * calls whose deadline is the wake-up time: lx serves everyone else meanwhile. */
#include "syscalls/handlers.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "park/park.h"
#include "signal/signal.h"
#include "task/cputime.h"
#include "task/process.h"
#include "time/clock.h"
#include "time/clock_timer.h"

#define CLOCK_REALTIME           0
#define CLOCK_MONOTONIC          1
#define CLOCK_PROCESS_CPUTIME_ID 2
#define CLOCK_THREAD_CPUTIME_ID  3
#define CLOCK_MONOTONIC_RAW      4
#define CLOCK_REALTIME_COARSE    5
#define CLOCK_MONOTONIC_COARSE   6
#define CLOCK_BOOTTIME           7
#define CLOCK_TAI               11
#define TIMER_ABSTIME            1
#define USER_HZ                100  /* times(2)'s clock ticks (AT_CLKTCK) */

/* The clock's value in ns, or -EINVAL for a clock lx does not have. */
static int clock_value(struct thread *t, long clk, uint64_t *ns)
{
    switch (clk) {
    case CLOCK_REALTIME:
    case CLOCK_REALTIME_COARSE:
    case CLOCK_TAI:                 /* TAI - UTC is 0 until someone sets it, as in Linux */
        *ns = clock_realtime();
        return 0;
    case CLOCK_MONOTONIC:
    case CLOCK_MONOTONIC_RAW:
    case CLOCK_MONOTONIC_COARSE:
    case CLOCK_BOOTTIME:
        *ns = lx_now();
        return 0;
    case CLOCK_PROCESS_CPUTIME_ID:
        *ns = cpu_process_ns(t->proc);
        return 0;
    case CLOCK_THREAD_CPUTIME_ID:
        *ns = cpu_thread_ns(t);
        return 0;
    }
    return -EINVAL;
}

long sys_clock_gettime(struct thread *t, const struct sysargs *a)
{
    uint64_t ns;
    int e = clock_value(t, (int)a->a[0], &ns);
    return e ? e : timespec_put(t->mm, a->a[1], ns);
}

long sys_clock_getres(struct thread *t, const struct sysargs *a)
{
    uint64_t ns;
    int e = clock_value(t, (int)a->a[0], &ns);
    if (e || !a->a[1])
        return e;
    return timespec_put(t->mm, a->a[1], 1000);  /* SystemClock counts microseconds */
}

long sys_clock_settime(struct thread *t, const struct sysargs *a)
{
    uint64_t ns;
    int clk = (int)a->a[0], e;
    if (clk != CLOCK_REALTIME)
        return -EINVAL;             /* the others cannot be set, as in Linux */
    if ((e = timespec_get(t->mm, a->a[1], &ns)))
        return e;
    if (!cred_capable(&t->proc->cred, CAP_SYS_TIME))
        return -EPERM;
    clock_set_realtime(ns);
    clock_was_set();                /* REALTIME timers follow, timerfds may cancel */
    return 0;
}

long sys_gettimeofday(struct thread *t, const struct sysargs *a)
{
    static const int tz[2];         /* minutes west, DST: UTC */
    if (a->a[0] && timeval_put(t->mm, a->a[0], clock_realtime()))
        return -EFAULT;
    if (a->a[1] && copy_to_user(t->mm, a->a[1], tz, sizeof tz))
        return -EFAULT;
    return 0;
}

long sys_settimeofday(struct thread *t, const struct sysargs *a)
{
    uint64_t ns;
    int e;
    if (a->a[0] && (e = timeval_get(t->mm, a->a[0], &ns)))
        return e;
    if (!cred_capable(&t->proc->cred, CAP_SYS_TIME))
        return -EPERM;
    if (!a->a[0])
        return 0;                   /* the time zone alone: accepted, not kept */
    clock_set_realtime(ns);
    clock_was_set();                /* REALTIME timers follow, timerfds may cancel */
    return 0;
}

long sys_time(struct thread *t, const struct sysargs *a)
{
    int64_t now = (int64_t)(clock_realtime() / NSEC_PER_SEC);
    if (a->a[0] && copy_to_user(t->mm, a->a[0], &now, sizeof now))
        return -EFAULT;
    return now;
}

long sys_times(struct thread *t, const struct sysargs *a)
{
    const uint64_t tick = NSEC_PER_SEC / USER_HZ;
    if (a->a[0]) {
        uint64_t u, s;
        cpu_process_times(t->proc, &u, &s);
        int64_t tms[4] = { (int64_t)(clock_tsc_ns(u) / tick),
                           (int64_t)(clock_tsc_ns(s) / tick),
                           (int64_t)(clock_tsc_ns(t->proc->cutime) / tick),
                           (int64_t)(clock_tsc_ns(t->proc->cstime) / tick) };
        if (copy_to_user(t->mm, a->a[0], tms, sizeof tms))
            return -EFAULT;
    }
    return (long)(lx_now() / tick);  /* ticks since boot */
}

long sys_getrusage(struct thread *t, const struct sysargs *a)
{
    int who = (int)a->a[0];
    uint8_t ru[144];
    if (who != 0 && who != -1 && who != 1)     /* SELF, CHILDREN, THREAD */
        return -EINVAL;
    cpu_rusage(t, who, ru);
    return copy_to_user(t->mm, a->a[1], ru, sizeof ru);
}

/* The caller goes behind the other ready threads of its priority: a YIELD reply has the
 * kernel rotate it (docs/linux-abi.md).  A plain reply would switch straight back to it, and
 * a thread that waits for another by yielding in a loop could starve that other thread.
 * With a signal to deliver, the ordinary return path (which delivers it) answers instead. */
long sys_sched_yield(struct thread *t, const struct sysargs *a)
{
    (void)a;
    if (signal_pending(t) || t->proc->sig.stopped)
        return 0;
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_YIELD, 1, 0));
    l4_set_mr(1, 0);
    return LX_REPLIED;
}

/* --- sleeps -------------------------------------------------------------------------------- */

/* Interrupted: an absolute sleep restarts as it was (-ERESTARTNOHAND); a relative one writes
 * the time left to rem (if given; EFAULT if it cannot) and goes on through restart_syscall
 * until the same deadline (-ERESTART_RESTARTBLOCK), as Linux's hrtimer_nanosleep. */
static long sleep_restart(struct thread *t);

static long sleep_interrupted(struct thread *t)
{
    const struct park_sleep *sl = &t->park.u.sleep;
    if (sl->abs)
        return -ERESTARTNOHAND;
    uint64_t now = lx_now();
    if (sl->urem && timespec_put(t->mm, sl->urem, sl->deadline > now ? sl->deadline - now : 0))
        return -EFAULT;
    t->restart.fn = sleep_restart;
    t->restart.u.sleep.deadline = sl->deadline;
    t->restart.u.sleep.urem = sl->urem;
    return -ERESTART_RESTARTBLOCK;
}

/* A sleep until the deadline in its scratch (lx_now(); 0: until a signal), parked. */
static long sleep_until(struct thread *t)
{
    uint64_t end = t->park.u.sleep.deadline;
    if (end && lx_now() >= end)
        return 0;
    return park_call_fn(t, end, sleep_interrupted);
}

static long sleep_restart(struct thread *t)
{
    struct park_sleep *sl = park_sleep(&t->park);
    if (!park_retrying(t)) {
        sl->deadline = t->restart.u.sleep.deadline;
        sl->urem = t->restart.u.sleep.urem;
    }
    return sleep_until(t);
}

/* Which clocks sleep (Linux's k_clock.nsleep): 0, or the error before the request is read
 * (EINVAL for no such clock, EOPNOTSUPP for one that cannot sleep: the thread CPU clock, the
 * raw and coarse ones, the clock-fd ids). */
static int sleep_clock_check(long clk)
{
    switch (clk) {
    case CLOCK_REALTIME: case CLOCK_MONOTONIC: case CLOCK_BOOTTIME: case CLOCK_TAI:
    case CLOCK_PROCESS_CPUTIME_ID:
        return 0;
    case CLOCK_THREAD_CPUTIME_ID: case CLOCK_MONOTONIC_RAW: case CLOCK_REALTIME_COARSE:
    case CLOCK_MONOTONIC_COARSE:
        return -EOPNOTSUPP;
    }
    if (clk < 0)                    /* CPU clocks of other processes, clock fds */
        return (clk & 7) == 3 ? -EOPNOTSUPP : 0;
    return -EINVAL;
}

static long do_sleep(struct thread *t, long clk, bool abs, l4_word_t ureq, l4_word_t urem)
{
    struct park_sleep *sl = park_sleep(&t->park);
    if (park_retrying(t))
        return sleep_until(t);
    uint64_t ns, now = lx_now();
    int e = sleep_clock_check(clk);
    if (e)
        return e;
    if ((e = timespec_get(t->mm, ureq, &ns)))
        return e;
    sl->abs = abs;
    sl->urem = abs ? 0 : urem;
    if (clk < 0)
        return -EINVAL;             /* another process's CPU clock: lx has none of them */
    if (clk == CLOCK_PROCESS_CPUTIME_ID) {
        /* Until the process has used that much CPU time: it uses none while it sleeps (one
         * thread), so a time not reached yet is reached never, as on Linux. */
        uint64_t cpu = cpu_process_ns(t->proc);
        if (abs ? ns <= cpu : !ns)
            return 0;
        sl->deadline = 0;
        return sleep_until(t);
    }
    if (abs && (clk == CLOCK_REALTIME || clk == CLOCK_TAI)) {
        int64_t d = (int64_t)(ns > (uint64_t)INT64_MAX ? INT64_MAX : ns) - clock_realtime_offset();
        sl->deadline = d > 0 ? (uint64_t)d : 1;
    } else if (abs) {
        sl->deadline = ns ? ns : 1;
    } else {
        sl->deadline = ns > ~0ull - now ? ~0ull : now + ns;
    }
    return sleep_until(t);
}

long sys_nanosleep(struct thread *t, const struct sysargs *a)
{
    return do_sleep(t, CLOCK_MONOTONIC, false, a->a[0], a->a[1]);
}

/* Flags other than TIMER_ABSTIME are ignored, as by Linux. */
long sys_clock_nanosleep(struct thread *t, const struct sysargs *a)
{
    return do_sleep(t, (long)(int)a->a[0], a->a[1] & TIMER_ABSTIME, a->a[2], a->a[3]);
}
