/* sched_setattr, sched_getattr and sched_rr_get_interval (docs/linux/system.md).  Every
 * process of lx is SCHED_OTHER with nice 0 as far as it can tell (lx's scheduling is the
 * kernel's: docs/scheduling.md), so these calls check their arguments as Linux 6.1 does,
 * accept what leaves that true, and refuse the real-time and deadline classes. */
#include "syscalls/handlers.h"
#include "syscalls/handlers_rest.h"
#include "lib/errno.h"
#include "mm/page.h"
#include "mm/usercopy.h"
#include "task/process.h"
#include "vfs/permission.h"
#include <string.h>

enum { POLICY_OTHER = 0, POLICY_FIFO = 1, POLICY_RR = 2, POLICY_BATCH = 3, POLICY_IDLE = 5,
       POLICY_DEADLINE = 6 };
enum { ATTR_SIZE_VER0 = 48, ATTR_SIZE_VER1 = 56 };
enum { FLAG_RESET_ON_FORK = 0x01, FLAG_KEEP_POLICY = 0x08, FLAG_KEEP_PARAMS = 0x10,
       FLAG_UTIL_CLAMP = 0x60, FLAG_ALL = 0x7f, FLAG_SUGOV = 0x10000000 };
enum { RLIMIT_NICE_NR = 13, RLIMIT_RTPRIO_NR = 14 };

/* Linux's struct sched_attr (VER1: with the utilisation clamps). */
struct sched_attr {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
    uint32_t util_min, util_max;
};

static bool rt_policy(uint32_t p) { return p == POLICY_FIFO || p == POLICY_RR; }
static bool fair_policy(uint32_t p) { return p == POLICY_OTHER || p == POLICY_BATCH; }

/* Linux's __checkparam_dl: deadline != 0, runtime >= 1024 ns, runtime <= deadline <=
 * period (0: the deadline), the period within sched_dl_period_min/max (100 us, 4.19 s). */
static bool dl_params_ok(const struct sched_attr *a)
{
    if (!a->deadline || a->runtime < 1024 || ((a->deadline | a->period) >> 63))
        return false;
    uint64_t period = a->period ? a->period : a->deadline;
    return period >= a->deadline && a->deadline >= a->runtime &&
           period >= 100000ull && period <= 4194304000ull;
}

/* Linux's sched_copy_attr: the size protocol of copy_struct_from_user.  A size Linux does
 * not take is E2BIG with its own size written back. */
static long copy_attr_in(struct thread *t, l4_word_t ua, struct sched_attr *k)
{
    uint32_t size;
    memset(k, 0, sizeof *k);
    if (copy_from_user(t->mm, &size, ua, sizeof size))
        return -EFAULT;
    if (!size)
        size = ATTR_SIZE_VER0;
    if (size < ATTR_SIZE_VER0 || size > LX_PAGE)
        goto too_big;
    if (copy_from_user(t->mm, k, ua, size < sizeof *k ? size : sizeof *k))
        return -EFAULT;
    for (l4_word_t at = sizeof *k; at < size; at++) {   /* a larger struct: zeros beyond ours */
        uint8_t b;
        if (copy_from_user(t->mm, &b, ua + at, 1))
            return -EFAULT;
        if (b)
            goto too_big;
    }
    if ((k->flags & FLAG_UTIL_CLAMP) && size < ATTR_SIZE_VER1)
        return -EINVAL;
    k->nice = k->nice < -20 ? -20 : k->nice > 19 ? 19 : k->nice;
    return 0;
too_big:;
    const uint32_t ours = sizeof *k;
    copy_to_user(t->mm, ua, &ours, sizeof ours);
    return -E2BIG;
}

/* Linux's __sched_setscheduler for a caller that asks (user = true), on a process whose
 * policy is SCHED_OTHER with nice 0 and no reset-on-fork. */
static long set_attr(struct thread *t, struct process *p, const struct sched_attr *a, bool keep)
{
    uint32_t policy = keep ? POLICY_OTHER : a->policy;
    bool root = cred_capable(&t->proc->cred, CAP_SYS_NICE);
    if (!keep && !fair_policy(policy) && policy != POLICY_IDLE && !rt_policy(policy) &&
        policy != POLICY_DEADLINE)
        return -EINVAL;
    if (a->flags & ~(uint64_t)(FLAG_ALL | FLAG_SUGOV))
        return -EINVAL;
    if (a->priority > 99)
        return -EINVAL;
    if ((policy == POLICY_DEADLINE && !dl_params_ok(a)) || rt_policy(policy) != (a->priority != 0))
        return -EINVAL;
    if (!root) {
        uint64_t nice_rlim = p->rlim[RLIMIT_NICE_NR].cur, rt_rlim = p->rlim[RLIMIT_RTPRIO_NR].cur;
        if (fair_policy(policy) && a->nice < 0 && (uint64_t)(20 - a->nice) > nice_rlim)
            return -EPERM;
        if (rt_policy(policy) && (!rt_rlim || a->priority > rt_rlim))
            return -EPERM;
        if (policy == POLICY_DEADLINE || !cred_may_change_sched(t->proc, p))
            return -EPERM;
    }
    if (a->flags & FLAG_SUGOV)
        return -EINVAL;
    if (a->flags & FLAG_UTIL_CLAMP)
        return -EOPNOTSUPP;         /* as Linux without CONFIG_UCLAMP_TASK (Debian's) */
    if (rt_policy(policy) || policy == POLICY_DEADLINE)
        return -EPERM;              /* lx has no real-time classes (docs/linux/system.md) */
    return 0;                       /* the other classes and nice: accepted, not acted on */
}

long sys_sched_setattr(struct thread *t, const struct sysargs *a)
{
    if (!a->a[1] || (int)a->a[0] < 0 || (unsigned)a->a[2])
        return -EINVAL;
    struct sched_attr k;
    long e = copy_attr_in(t, a->a[1], &k);
    if (e)
        return e;
    if ((int32_t)k.policy < 0)
        return -EINVAL;
    struct process *p = sched_target(t, a->a[0]);
    if (!p)
        return -ESRCH;
    if (k.flags & FLAG_KEEP_PARAMS)
        k.nice = 0, k.priority = 0;  /* get_params: the target's own (nice 0) */
    return set_attr(t, p, &k, k.flags & FLAG_KEEP_POLICY);
}

long sys_sched_getattr(struct thread *t, const struct sysargs *a)
{
    l4_word_t usize = (unsigned)a->a[2];
    if (!a->a[1] || (int)a->a[0] < 0 || usize > LX_PAGE || usize < ATTR_SIZE_VER0 ||
        (unsigned)a->a[3])
        return -EINVAL;
    if (!sched_target(t, a->a[0]))
        return -ESRCH;
    struct sched_attr k = { .policy = POLICY_OTHER };
    k.size = usize < sizeof k ? usize : sizeof k;  /* the clamps read 0 without CONFIG_UCLAMP_TASK */
    return copy_to_user(t->mm, a->a[1], &k, k.size);
}

/* SCHED_OTHER's slice is CFS's: sched_slice of the caller in whole jiffies (HZ 250, as
 * Debian's kernel).  A process alone on lx's one CPU has the whole period, 6 ms
 * (sysctl_sched_latency on one CPU), which is one jiffy: 4 ms. */
long sys_sched_rr_get_interval(struct thread *t, const struct sysargs *a)
{
    if ((int)a->a[0] < 0)
        return -EINVAL;
    if (!sched_target(t, a->a[0]))
        return -ESRCH;
    const struct { int64_t sec, nsec; } ts = { 0, 4000000 };
    return copy_to_user(t->mm, a->a[1], &ts, sizeof ts);
}
