/* futex(2), futex_waitv(2) and get_robust_list(2): the arguments decoded (the timeout into
 * an lx_now() deadline on the clock Linux uses for the operation), the work in task/futex.c
 * (docs/linux/futex.md). */
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "park/park.h"
#include "syscalls/handlers.h"
#include "task/futex.h"
#include "task/pid.h"
#include "task/thread.h"
#include "time/clock.h"

#define CLOCK_REALTIME  0
#define CLOCK_MONOTONIC 1

/* The operations that take a timeout (Linux's futex_cmd_has_timeout). */
static bool has_timeout(int cmd)
{
    return cmd == FUTEX_WAIT || cmd == FUTEX_LOCK_PI || cmd == FUTEX_LOCK_PI2 ||
           cmd == FUTEX_WAIT_BITSET || cmd == FUTEX_WAIT_REQUEUE_PI;
}

/* An absolute time on CLOCK_REALTIME or CLOCK_MONOTONIC as an lx_now() deadline (0 is
 * "none", so a time already past becomes 1). */
static uint64_t abs_deadline(uint64_t ns, bool realtime)
{
    if (!realtime)
        return ns ? ns : 1;
    int64_t d = (int64_t)(ns > (uint64_t)INT64_MAX ? INT64_MAX : ns) - clock_realtime_offset();
    return d > 0 ? (uint64_t)d : 1;
}

long sys_futex(struct thread *t, const struct sysargs *a)
{
    int op = (int)a->a[1], cmd = op & FUTEX_CMD_MASK;
    l4_word_t utime = a->a[3];
    uint64_t deadline = 0;
    if (utime && has_timeout(cmd) && !park_retrying(t)) {
        uint64_t ns;
        int e = timespec_get(t->mm, utime, &ns);
        if (e)
            return e;
        /* FUTEX_WAIT's is relative (CLOCK_MONOTONIC); LOCK_PI's absolute on CLOCK_REALTIME;
         * the others' absolute on CLOCK_MONOTONIC unless FUTEX_CLOCK_REALTIME. */
        if (cmd == FUTEX_WAIT) {
            uint64_t now = lx_now();
            deadline = ns > ~0ull - now ? ~0ull : now + ns;
        } else {
            deadline = abs_deadline(ns, cmd == FUTEX_LOCK_PI || (op & FUTEX_CLOCK_REALTIME));
        }
    }
    return futex_call(t, a->a[0], op, (uint32_t)a->a[2], deadline, a->a[4], (uint32_t)utime,
                      (uint32_t)a->a[5]);
}

long sys_futex_waitv(struct thread *t, const struct sysargs *a)
{
    l4_word_t waiters = a->a[0], utime = a->a[3];
    unsigned n = (unsigned)a->a[1];
    int clk = (int)a->a[4];
    uint64_t deadline = 0;
    if (park_retrying(t))
        return futex_waitv(t, waiters, n, 0);
    if ((unsigned)a->a[2])          /* no flags yet */
        return -EINVAL;
    if (!n || n > FUTEX_WAITV_MAX || !waiters)
        return -EINVAL;
    if (utime) {
        if (clk != CLOCK_REALTIME && clk != CLOCK_MONOTONIC)
            return -EINVAL;
        uint64_t ns;
        int e = timespec_get(t->mm, utime, &ns);
        if (e)
            return e;
        deadline = abs_deadline(ns, clk == CLOCK_REALTIME);
    }
    return futex_waitv(t, waiters, n, deadline);
}

long sys_get_robust_list(struct thread *t, const struct sysargs *a)
{
    int nr = (int)a->a[0];
    struct thread *of = t;
    if (nr) {
        struct pid *p = pid_find(nr);
        if (!p || !p->thread)
            return -ESRCH;
        of = p->thread;
    }
    l4_word_t len = 24;             /* sizeof(struct robust_list_head) */
    if (copy_to_user(t->mm, a->a[2], &len, sizeof len))
        return -EFAULT;
    return copy_to_user(t->mm, a->a[1], &of->robust_list, sizeof of->robust_list);
}
