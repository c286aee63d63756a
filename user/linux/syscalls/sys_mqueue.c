/* The POSIX message queue calls (mq_open .. mq_getsetattr, 240-245): their arguments from the
 * process, in Linux's order; the queues are ipc/mqueue.c's (docs/linux/mqueue.md). */
#include "syscalls/sigmq.h"
#include "ipc/mqueue.h"
#include "lib/errno.h"
#include "task/process.h"
#include "mm/usercopy.h"
#include "time/clock.h"

#define NSEC 1000000000ll

/* The queue's name (getname: EFAULT, ENOENT for "", ENAMETOOLONG past PATH_MAX). */
static long get_name(struct thread *t, l4_word_t uname, char *name)
{
    long n = strncpy_from_user(t->mm, name, uname, 4096);
    if (n < 0)
        return n;
    return n ? 0 : -ENOENT;
}

/* An absolute CLOCK_REALTIME timeout (NULL: none) as lx_now()'s deadline: Linux's
 * prepare_timeout (EFAULT, EINVAL for an invalid timespec). */
static long get_timeout(struct thread *t, l4_word_t uts, uint64_t *deadline)
{
    int64_t ts[2];
    *deadline = 0;
    if (!uts)
        return 0;
    if (copy_from_user(t->mm, ts, uts, sizeof ts))
        return -EFAULT;
    if (ts[0] < 0 || ts[1] < 0 || ts[1] >= NSEC)
        return -EINVAL;
    int64_t at = ts[0] > INT64_MAX / NSEC - 1 ? INT64_MAX : ts[0] * NSEC + ts[1];
    at -= clock_realtime_offset();
    *deadline = at <= 0 ? 1 : (uint64_t)at;
    return 0;
}

long sys_mq_open(struct thread *t, const struct sysargs *a)
{
    struct mq_attr_k attr;
    static char name[4096];
    if (a->a[3] && copy_from_user(t->mm, &attr, a->a[3], sizeof attr))
        return -EFAULT;
    long e = get_name(t, a->a[0], name);
    if (e)
        return e;
    return mq_open_k(t, name, (int)a->a[1], (unsigned)a->a[2], a->a[3] ? &attr : NULL);
}

long sys_mq_unlink(struct thread *t, const struct sysargs *a)
{
    static char name[4096];
    long e = get_name(t, a->a[0], name);
    return e ? e : mq_unlink_k(t, name);
}

long sys_mq_timedsend(struct thread *t, const struct sysargs *a)
{
    uint64_t deadline;
    long e = get_timeout(t, a->a[4], &deadline);
    return e ? e : mq_send_k(t, (int)a->a[0], a->a[1], a->a[2], (unsigned)a->a[3], deadline);
}

long sys_mq_timedreceive(struct thread *t, const struct sysargs *a)
{
    uint64_t deadline;
    long e = get_timeout(t, a->a[4], &deadline);
    return e ? e : mq_receive_k(t, (int)a->a[0], a->a[1], a->a[2], a->a[3], deadline);
}

long sys_mq_notify(struct thread *t, const struct sysargs *a)
{
    struct {                        /* Linux's struct sigevent's head (64 bytes in all) */
        l4_word_t value;
        int signo, notify;
        int tid;
        int pad[11];
    } ev = { 0 };
    if (a->a[1] && copy_from_user(t->mm, &ev, a->a[1], sizeof ev))
        return -EFAULT;
    return mq_notify_k(t, (int)a->a[0], a->a[1] ? &ev.notify : NULL, ev.signo, ev.value,
                       ev.value);
}

long sys_mq_getsetattr(struct thread *t, const struct sysargs *a)
{
    struct mq_attr_k new, old;
    if (a->a[1] && copy_from_user(t->mm, &new, a->a[1], sizeof new))
        return -EFAULT;
    long e = mq_getsetattr_k(t, (int)a->a[0], a->a[1] ? &new : NULL, a->a[2] ? &old : NULL);
    if (e)
        return e;
    return a->a[2] && copy_to_user(t->mm, a->a[2], &old, sizeof old) ? -EFAULT : 0;
}
