/* POSIX timers (docs/linux/event-files.md, "POSIX timers"), as Linux 6.1's
 * kernel/time/posix-timers.c behaves: ids per process from 0 up (not reused until they wrap),
 * a timer's signal preallocated (while it is pending the timer does not queue another: its
 * overrun count grows), a periodic timer armed again only when its signal is taken, with the
 * periods missed meanwhile as the signal's si_overrun and timer_getoverrun's answer.  The
 * timers of a process are found by id in a radix tree; their deadlines are clock_timers. */
#include "time/posix_timer.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "lib/radix.h"
#include "mm/usercopy.h"
#include "signal/signal.h"
#include "task/pid.h"
#include "task/process.h"
#include "time/clock_timer.h"

#define CLOCK_MONOTONIC_RAW     4
#define CLOCK_REALTIME_COARSE   5
#define CLOCK_MONOTONIC_COARSE  6
#define SIGRTMAX               64
#define REQUEUE_PENDING         1u
#define RLIMIT_SIGPENDING      11

struct ptimer {
    int id;
    struct process *proc;
    struct clock_timer ct;
    uint64_t interval;              /* 0: one-shot */
    int notify, signo, tid;         /* SIGEV_THREAD_ID: the thread's tid */
    l4_word_t value;
    bool active;                    /* armed, or its signal's taking arms it again */
    unsigned requeue;               /* Linux's it_requeue_pending: which arming's signal
                                     * is pending (odd: one is) */
    int64_t overrun;                /* Linux's it_overrun: periods forwarded, from -1 */
    int64_t overrun_last;           /* ... as of the last signal taken */
};

struct posix_timers {               /* a process's (struct process.ptimers) */
    struct radix ids;
    int next_id;
    unsigned count;
};

static int overrun_int(int64_t v)
{
    return v > 0x7FFFFFFF ? 0x7FFFFFFF : (int)v;
}

static struct ptimer *lookup(struct process *p, int id)
{
    if (!p->ptimers || id < 0)
        return NULL;
    return radix_get(&p->ptimers->ids, (unsigned long)id);
}

/* The timer's signal went out (true) or was not queued: ignored, or merged with another of
 * the same number (Linux's posix_timer_event's answer). */
static bool send_event(struct ptimer *pt, unsigned gen)
{
    struct k_siginfo info = { .code = SI_TIMER, .timerid = pt->id, .value = pt->value,
                              .timer_gen = gen };
    struct thread *to = NULL;
    if (pt->notify == SIGEV_THREAD_ID) {
        struct pid *pid = pid_find(pt->tid);
        to = pid ? pid->thread : NULL;
        if (!to || to->proc != pt->proc || to->exited)
            return true;            /* the thread is gone: nothing, and the timer stops */
    }
    return signal_send_timer(pt->proc, to, pt->signo, &info);
}

static void ptimer_fired(struct clock_timer *ct)
{
    struct ptimer *pt = container_of(ct, struct ptimer, ct);
    pt->active = false;
    unsigned gen = 0;
    if (pt->interval)
        gen = ++pt->requeue;
    if (send_event(pt, gen) || !pt->interval)
        return;
    /* Not queued: a periodic timer goes on by itself (Linux restarts the hrtimer). */
    pt->overrun += (int64_t)clock_timer_forward(ct, clock_timer_now(ct), pt->interval);
    clock_timer_start(ct, ct->expires);
    pt->requeue++;
    pt->active = true;
}

void posix_timer_dequeued(struct process *p, struct k_siginfo *info)
{
    struct ptimer *pt = lookup(p, info->timerid);
    if (!pt || !pt->interval || pt->requeue != info->timer_gen)
        return;                     /* deleted, one-shot, or set again since */
    struct clock_timer *ct = &pt->ct;
    pt->overrun += (int64_t)clock_timer_forward(ct, clock_timer_now(ct), pt->interval);
    clock_timer_start(ct, ct->expires);
    pt->active = true;
    pt->overrun_last = pt->overrun;
    pt->overrun = -1;
    pt->requeue++;
    info->overrun = overrun_int(pt->overrun_last + info->overrun);
}

static bool has_timers(int clock)
{
    switch (clock) {
    case CLOCK_REALTIME: case CLOCK_MONOTONIC: case CLOCK_BOOTTIME: case CLOCK_TAI:
    case CLOCK_PROCESS_CPUTIME_ID: case CLOCK_THREAD_CPUTIME_ID:
    case CLOCK_REALTIME_ALARM: case CLOCK_BOOTTIME_ALARM:
        return true;
    }
    return false;
}

static bool known_clock(int clock)
{
    return has_timers(clock) || clock == CLOCK_MONOTONIC_RAW ||
           clock == CLOCK_REALTIME_COARSE || clock == CLOCK_MONOTONIC_COARSE;
}

/* Linux's good_sigevent. */
static bool good_event(const struct thread *t, const struct ptimer_event *ev)
{
    switch (ev->notify) {
    case SIGEV_THREAD_ID: {
        struct pid *pid = pid_find(ev->tid);
        if (!pid || !pid->thread || pid->thread->proc != t->proc || pid->thread->exited)
            return false;
    }   /* fall through */
    case SIGEV_SIGNAL:
    case SIGEV_THREAD:
        return ev->signo > 0 && ev->signo <= SIGRTMAX;
    case SIGEV_NONE:
        return true;
    }
    return false;
}

/* A free id from the process's counter (Linux's posix_timer_add), or -EAGAIN. */
static int take_id(struct posix_timers *pts)
{
    for (unsigned long tries = 0; tries <= 0x7FFFFFFFul; tries++) {
        int id = pts->next_id;
        pts->next_id = id == 0x7FFFFFFF ? 0 : id + 1;
        if (!radix_get(&pts->ids, (unsigned long)id))
            return id;
    }
    return -EAGAIN;
}

static void ptimer_free(struct process *p, struct ptimer *pt)
{
    void **slot = radix_slot(&p->ptimers->ids, (unsigned long)pt->id, false);
    if (slot)
        *slot = NULL;
    clock_timer_release(&pt->ct);
    p->ptimers->count--;
    kfree(pt);
}

long posix_timer_create(struct thread *t, int clock, const struct ptimer_event *ev,
                        l4_word_t uid)
{
    struct process *p = t->proc;
    if (!known_clock(clock))
        return -EINVAL;
    if (!has_timers(clock))
        return -EOPNOTSUPP;
    if ((clock == CLOCK_REALTIME_ALARM || clock == CLOCK_BOOTTIME_ALARM) && p->cred.euid)
        return -EPERM;              /* CAP_WAKE_ALARM */
    /* The preallocated signal counts against RLIMIT_SIGPENDING (lx counts the process's
     * timers: signals queued are one of each and not counted). */
    if (!p->ptimers) {
        if (!(p->ptimers = kmalloc(sizeof *p->ptimers)))
            return -EAGAIN;
        *p->ptimers = (struct posix_timers){ { 0 }, 0, 0 };
    }
    struct posix_timers *pts = p->ptimers;
    if (pts->count + 1 > p->rlim[RLIMIT_SIGPENDING].cur)
        return -EAGAIN;
    struct ptimer *pt = kmalloc(sizeof *pt);
    if (!pt)
        return -EAGAIN;
    int id = take_id(pts);
    void **slot = id < 0 ? NULL : radix_slot(&pts->ids, (unsigned long)id, true);
    if (!slot) {
        kfree(pt);
        return id < 0 ? id : -ENOMEM;
    }
    *pt = (struct ptimer){ .id = id, .proc = p, .overrun = -1 };
    if (ev) {
        if (!good_event(t, ev)) {
            *slot = NULL;
            kfree(pt);
            return -EINVAL;
        }
        pt->notify = ev->notify;
        pt->signo = ev->signo;
        pt->value = ev->value;
        pt->tid = ev->tid;
    } else {
        pt->notify = SIGEV_SIGNAL;
        pt->signo = SIGALRM;
        pt->value = (l4_word_t)id;
    }
    if (copy_to_user(t->mm, uid, &id, sizeof id)) {
        *slot = NULL;               /* the id stays used up, as Linux's */
        kfree(pt);
        return -EFAULT;
    }
    clock_timer_init(&pt->ct, clock, t, ptimer_fired);
    *slot = pt;
    pts->count++;
    return id;
}

/* Linux's common_timer_get. */
static void get(struct ptimer *pt, uint64_t *interval, uint64_t *value)
{
    bool none = pt->notify == SIGEV_NONE;
    *interval = pt->interval;
    *value = 0;
    if (!pt->interval && !pt->active && !none)
        return;
    struct clock_timer *ct = &pt->ct;
    clock_timer_check(ct);
    uint64_t now = clock_timer_now(ct);
    if (pt->interval && ((pt->requeue & REQUEUE_PENDING) || none))
        pt->overrun += (int64_t)clock_timer_forward(ct, now, pt->interval);
    if (ct->expires > now)
        *value = ct->expires - now;
    else if (!none)
        *value = 1;                 /* expired, its signal pending: Linux says 1 ns */
}

long posix_timer_settime(struct thread *t, int id, bool abs, uint64_t interval, uint64_t value,
                         uint64_t *old_interval, uint64_t *old_value)
{
    struct ptimer *pt = lookup(t->proc, id);
    if (!pt)
        return -EINVAL;
    get(pt, old_interval, old_value);
    pt->interval = 0;
    clock_timer_cancel(&pt->ct);
    pt->active = false;
    pt->requeue = (pt->requeue + 2) & ~REQUEUE_PENDING;
    pt->overrun_last = 0;
    if (!value)
        return 0;
    pt->interval = interval;
    pt->ct.expires = clock_timer_expiry(&pt->ct, value, abs);
    if (pt->notify != SIGEV_NONE) {
        clock_timer_start(&pt->ct, pt->ct.expires);
        pt->active = true;
    }
    return 0;
}

long posix_timer_gettime(struct thread *t, int id, uint64_t *interval, uint64_t *value)
{
    struct ptimer *pt = lookup(t->proc, id);
    if (!pt)
        return -EINVAL;
    get(pt, interval, value);
    return 0;
}

long posix_timer_getoverrun(struct thread *t, int id)
{
    struct ptimer *pt = lookup(t->proc, id);
    return pt ? overrun_int(pt->overrun_last) : -EINVAL;
}

long posix_timer_delete(struct thread *t, int id)
{
    struct ptimer *pt = lookup(t->proc, id);
    if (!pt)
        return -EINVAL;
    ptimer_free(t->proc, pt);       /* a signal it sent stays pending, as in Linux */
    return 0;
}

static void release_one(void *item)
{
    struct ptimer *pt = item;
    clock_timer_release(&pt->ct);
    kfree(pt);
}

void posix_timers_exec(struct process *p)
{
    if (!p->ptimers)
        return;
    radix_destroy(&p->ptimers->ids, release_one);
    p->ptimers->count = 0;          /* the ids go on from where they were, as Linux's */
}

void posix_timers_release(struct process *p)
{
    posix_timers_exec(p);
    kfree(p->ptimers);
    p->ptimers = NULL;
}
