/* The POSIX timer calls (time/posix_timer.c): arguments in, results out. */
#include "syscalls/handlers_events.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "task/process.h"
#include "time/clock_timer.h"
#include "time/posix_timer.h"

struct sigevent_k {                 /* x86-64's struct sigevent, as the kernel reads it */
    l4_word_t value;
    int32_t signo, notify;
    int32_t tid;                    /* sigev_notify_thread_id */
    int32_t pad[11];
};
_Static_assert(sizeof(struct sigevent_k) == 64, "sigevent");

long sys_timer_create(struct thread *t, const struct sysargs *a)
{
    struct sigevent_k se;
    struct ptimer_event ev;
    if (a->a[1]) {
        if (copy_from_user(t->mm, &se, a->a[1], sizeof se))
            return -EFAULT;
        ev = (struct ptimer_event){ se.value, se.signo, se.notify, se.tid };
    }
    long r = posix_timer_create(t, (int)a->a[0], a->a[1] ? &ev : NULL, a->a[2]);
    return r < 0 ? r : 0;
}

long sys_timer_settime(struct thread *t, const struct sysargs *a)
{
    uint64_t interval, value, oi, ov;
    if (!a->a[2])
        return -EINVAL;
    long e = itimerspec_get(t->mm, a->a[2], &interval, &value);
    if (e)
        return e;
    e = posix_timer_settime(t, (int)a->a[0], a->a[1] & TIMER_ABSTIME, interval, value, &oi, &ov);
    if (e || !a->a[3])
        return e;
    return itimerspec_put(t->mm, a->a[3], oi, ov);
}

long sys_timer_gettime(struct thread *t, const struct sysargs *a)
{
    uint64_t interval, value;
    long e = posix_timer_gettime(t, (int)a->a[0], &interval, &value);
    return e ? e : itimerspec_put(t->mm, a->a[1], interval, value);
}

long sys_timer_getoverrun(struct thread *t, const struct sysargs *a)
{
    return posix_timer_getoverrun(t, (int)a->a[0]);
}

long sys_timer_delete(struct thread *t, const struct sysargs *a)
{
    return posix_timer_delete(t, (int)a->a[0]);
}
