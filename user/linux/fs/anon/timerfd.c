/* timerfd (docs/linux/event-files.md): a timer on a clock (time/clock_timer.c) behind an
 * anonymous file.  Each expiry counts a tick and wakes readers; a periodic timer is armed
 * again only when it is looked at (read, timerfd_gettime), as Linux does, counting the
 * periods missed meanwhile: a short period never keeps lx busy.  TFD_TIMER_CANCEL_ON_SET
 * (REALTIME clocks with TFD_TIMER_ABSTIME): setting the clock makes the next read fail with
 * ECANCELED. */
#include "fs/anon/anon_files.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "mm/usercopy.h"
#include "park/waitq.h"
#include "syscalls/handlers_events.h"
#include "task/process.h"
#include "time/clock_timer.h"
#include "vfs/poll.h"
#include <stdio.h>

#define TFD_TIMER_ABSTIME        1
#define TFD_TIMER_CANCEL_ON_SET  2
#define TFD_NONBLOCK             O_NONBLOCK
#define TFD_CLOEXEC              O_CLOEXEC
#define TFD_IOC_SET_TICKS        0x40085400u    /* _IOW('T', 0, u64) */

struct timerfd {
    struct clock_timer ct;          /* expires 0 while disarmed (Linux's hrtimer_init) */
    uint64_t interval;
    uint64_t ticks;                 /* expirations not read yet */
    bool expired;                   /* it fired and, if periodic, was not armed again */
    bool might_cancel;              /* TFD_TIMER_CANCEL_ON_SET in effect */
    bool canceled;                  /* ... and the clock was set since */
    unsigned settime_flags;
    struct waitq wait;
};

static void timerfd_fired(struct clock_timer *ct)
{
    struct timerfd *tf = container_of(ct, struct timerfd, ct);
    tf->expired = true;
    tf->ticks++;
    waitq_wake(&tf->wait);
}

static void timerfd_clock_set(struct clock_timer *ct)
{
    struct timerfd *tf = container_of(ct, struct timerfd, ct);
    if (!tf->might_cancel)
        return;
    tf->canceled = true;
    tf->ticks++;                    /* a waiting read ends (with ECANCELED) */
    waitq_wake(&tf->wait);
}

/* A periodic timer that fired goes on from its last expiry: the periods missed are ticks. */
static void catch_up(struct timerfd *tf)
{
    if (!tf->expired || !tf->interval)
        return;
    uint64_t n = clock_timer_forward(&tf->ct, clock_timer_now(&tf->ct), tf->interval);
    tf->ticks += n ? n - 1 : 0;
    clock_timer_start(&tf->ct, tf->ct.expires);
}

static uint64_t remaining(const struct timerfd *tf)
{
    uint64_t now = clock_timer_now(&tf->ct);
    return tf->ct.expires > now ? tf->ct.expires - now : 0;
}

static void timerfd_release(struct file *f)
{
    struct timerfd *tf = f->priv;
    clock_timer_release(&tf->ct);
    waitq_wake(&tf->wait);
    kfree(tf);
}

static long timerfd_read(struct thread *t, struct file *f, struct uio *u, l4_word_t *pos)
{
    (void)t, (void)pos;
    struct timerfd *tf = f->priv;
    if (u->resid < sizeof(uint64_t))
        return -EINVAL;
    clock_timer_check(&tf->ct);
    if (tf->might_cancel && tf->canceled) {
        tf->canceled = false;
        tf->ticks = 0;
        tf->expired = false;
        return -ECANCELED;
    }
    if (!tf->ticks)
        return -EAGAIN;
    catch_up(tf);
    uint64_t ticks = tf->ticks;
    tf->expired = false;
    tf->ticks = 0;
    struct uio try = *u;
    if (uio_copy_out(&try, &ticks, sizeof ticks) != sizeof ticks)
        return -EFAULT;             /* the ticks are gone, as in Linux */
    *u = try;
    return sizeof ticks;
}

static unsigned timerfd_poll(struct thread *t, struct file *f, struct poll_table *pt)
{
    (void)t;
    struct timerfd *tf = f->priv;
    poll_wait(pt, &tf->wait);
    clock_timer_check(&tf->ct);
    return tf->ticks ? POLLIN | POLLRDNORM : 0;
}

static long timerfd_ioctl(struct thread *t, struct file *f, unsigned cmd, l4_word_t arg)
{
    struct timerfd *tf = f->priv;
    uint64_t ticks;
    if (cmd != TFD_IOC_SET_TICKS)
        return -ENOTTY;
    if (copy_from_user(t->mm, &ticks, arg, sizeof ticks))
        return -EFAULT;
    if (!ticks)
        return -EINVAL;
    if (tf->might_cancel && tf->canceled)
        return -ECANCELED;
    tf->ticks = ticks;
    waitq_wake(&tf->wait);
    return 0;
}

/* Linux's timerfd_show: what timerfd_gettime would say, without forwarding the timer. */
static int timerfd_show_fdinfo(struct file *f, char *buf, size_t size)
{
    struct timerfd *tf = f->priv;
    uint64_t v = remaining(tf);
    return snprintf(buf, size, "clockid: %d\nticks: %llu\nsettime flags: 0%o\n"
                    "it_value: (%llu, %llu)\nit_interval: (%llu, %llu)\n", tf->ct.clock,
                    (unsigned long long)tf->ticks, tf->settime_flags,
                    (unsigned long long)(v / 1000000000u), (unsigned long long)(v % 1000000000u),
                    (unsigned long long)(tf->interval / 1000000000u),
                    (unsigned long long)(tf->interval % 1000000000u));
}

static const struct file_ops timerfd_ops = {
    .release = timerfd_release, .read = timerfd_read, .poll = timerfd_poll,
    .ioctl = timerfd_ioctl, .anon_name = "[timerfd]",
    .show_fdinfo = timerfd_show_fdinfo,
};

/* CAP_WAKE_ALARM: the alarm clocks need it (one user today: root has it). */
static bool may_wake_alarm(const struct thread *t)
{
    return t->proc->cred.euid == 0;
}

static bool is_alarm(int clock)
{
    return clock == CLOCK_REALTIME_ALARM || clock == CLOCK_BOOTTIME_ALARM;
}

long sys_timerfd_create(struct thread *t, const struct sysargs *a)
{
    int clock = (int)a->a[0], flags = (int)a->a[1];
    if ((flags & ~(TFD_NONBLOCK | TFD_CLOEXEC)) ||
        (clock != CLOCK_MONOTONIC && clock != CLOCK_REALTIME && clock != CLOCK_BOOTTIME &&
         !is_alarm(clock)))
        return -EINVAL;
    if (is_alarm(clock) && !may_wake_alarm(t))
        return -EPERM;
    struct timerfd *tf = kmalloc(sizeof *tf);
    if (!tf)
        return -ENOMEM;
    *tf = (struct timerfd){ 0 };
    clock_timer_init(&tf->ct, clock, t, timerfd_fired);
    tf->ct.was_set = timerfd_clock_set;
    return anon_install(t, &timerfd_ops, tf, O_RDWR | (flags & TFD_NONBLOCK),
                        flags & TFD_CLOEXEC);
}

static struct timerfd *timerfd_of(struct thread *t, long fd, long *err)
{
    struct file *f = fd_get(t, fd);
    *err = !f ? -EBADF : f->ops != &timerfd_ops ? -EINVAL : 0;
    return *err ? NULL : f->priv;
}

long sys_timerfd_settime(struct thread *t, const struct sysargs *a)
{
    int flags = (int)a->a[1];
    uint64_t interval, value;
    long err = itimerspec_get(t->mm, a->a[2], &interval, &value);
    if (err == -EFAULT)
        return err;
    if (flags & ~(TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET))
        return -EINVAL;
    if (err)
        return err;
    struct timerfd *tf = timerfd_of(t, (long)a->a[0], &err);
    if (!tf)
        return err;
    if (is_alarm(tf->ct.clock) && !may_wake_alarm(t))
        return -EPERM;
    int clock = tf->ct.clock;
    bool cancel = (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_ALARM) &&
                  (flags & TFD_TIMER_ABSTIME) && (flags & TFD_TIMER_CANCEL_ON_SET);
    if (cancel && !tf->might_cancel)
        tf->canceled = false;       /* the clock as it is now is the reference */
    tf->might_cancel = cancel;
    clock_timer_check(&tf->ct);
    clock_timer_cancel(&tf->ct);
    if (tf->expired && tf->interval)
        clock_timer_forward(&tf->ct, clock_timer_now(&tf->ct), tf->interval);
    uint64_t old_value = remaining(tf), old_interval = tf->interval;
    tf->expired = false;
    tf->ticks = 0;
    tf->interval = interval;
    tf->ct.expires = 0;
    long r = 0;
    if (value) {
        clock_timer_start(&tf->ct, clock_timer_expiry(&tf->ct, value, flags & TFD_TIMER_ABSTIME));
        if (tf->might_cancel && tf->canceled) {
            tf->canceled = false;
            r = -ECANCELED;
        }
    }
    if (!r)
        tf->settime_flags = flags;
    if (r)
        return r;
    return a->a[3] ? itimerspec_put(t->mm, a->a[3], old_interval, old_value) : 0;
}

long sys_timerfd_gettime(struct thread *t, const struct sysargs *a)
{
    long err;
    struct timerfd *tf = timerfd_of(t, (long)a->a[0], &err);
    if (!tf)
        return err;
    clock_timer_check(&tf->ct);
    if (tf->expired && tf->interval) {
        catch_up(tf);
        tf->expired = false;
    }
    return itimerspec_put(t->mm, a->a[1], tf->interval, remaining(tf));
}
