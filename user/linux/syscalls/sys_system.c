/* System calls about the user, limits, scheduling and the system as a whole
 * (docs/linux/system.md).  lx has one user, root, one CPU and one scheduling class as far
 * as its processes can tell; these calls answer accordingly and check their arguments as
 * Linux does. */
#include "syscalls/handlers.h"
#include "syscalls/handlers_rest.h"
#include "fs/proc/sysctl.h"
#include "lib/errno.h"
#include "mm/page.h"
#include "mm/usercopy.h"
#include "task/process.h"
#include "time/clock.h"
#include "vfs/file.h"
#include "vfs/permission.h"
#include <string.h>

#define SCHED_OTHER    0
#define SCHED_FIFO     1
#define SCHED_RR       2
#define SCHED_BATCH    3
#define SCHED_IDLE     5
#define SCHED_RESET_ON_FORK 0x40000000
#define PRIO_PROCESS   0
#define PRIO_USER      2
#define PR_SET_PDEATHSIG 1
#define PR_GET_PDEATHSIG 2
#define PR_GET_DUMPABLE  3
#define PR_SET_DUMPABLE  4
#define PR_SET_NAME      15
#define PR_GET_NAME      16
#define PR_SET_NO_NEW_PRIVS 38
#define PR_GET_NO_NEW_PRIVS 39
#define PR_GET_KEEPCAPS  7
#define PR_SET_KEEPCAPS  8
#define PR_CAPBSET_READ  23
#define CAP_LAST_CAP     40

/* --- identity: one user ---------------------------------------------------------------- */

/* The identity settings of /proc/sys/kernel: NGROUPS_MAX, CAP_LAST_CAP of 6.1
 * (CAP_CHECKPOINT_RESTORE), the ids shown for one that has no mapping. */
static int ngroups_max = 65536, cap_last_cap = 40, overflowuid = 65534, overflowgid = 65534;

static struct sysctl ids_sysctls[] = {
    { .path = "kernel/ngroups_max", .mode = 0444, .show = sysctl_show_int, .data = &ngroups_max },
    { .path = "kernel/cap_last_cap", .mode = 0444, .show = sysctl_show_int,
      .data = &cap_last_cap },
    { .path = "kernel/overflowuid", .mode = 0644, .show = sysctl_show_int,
      .store = sysctl_store_int, .data = &overflowuid, .min = 0, .max = 65535 },
    { .path = "kernel/overflowgid", .mode = 0644, .show = sysctl_show_int,
      .store = sysctl_store_int, .data = &overflowgid, .min = 0, .max = 65535 },
};
SYSCTL_TABLE(ids_sysctls)


/* --- resource limits ------------------------------------------------------------------- */

/* The limits of a process (its rlim, set at its start and inherited: task/process.c), as
 * Linux's do_prlimit reads and changes them: soft above hard is EINVAL, RLIMIT_NOFILE's
 * hard limit at most fs.nr_open (EPERM); raising a hard limit needs CAP_SYS_RESOURCE
 * (euid 0: EPERM for others).  lx acts on RLIMIT_NOFILE (the fd table) and RLIMIT_CORE
 * (0: no core files); the others are kept and reported. */
static long do_prlimit(struct thread *t, struct process *target, unsigned res,
                       const uint64_t *lim, l4_word_t uold)
{
    if (res >= RLIM_NLIMITS)
        return -EINVAL;
    uint64_t old[2] = { target->rlim[res].cur, target->rlim[res].max };
    if (lim) {
        if (lim[0] > lim[1])
            return -EINVAL;
        if (res == RLIMIT_NOFILE && lim[1] > LX_NR_OPEN)
            return -EPERM;          /* beyond fs.nr_open */
        if (lim[1] > old[1] && !cred_capable(&t->proc->cred, CAP_SYS_RESOURCE))
            return -EPERM;
        target->rlim[res].cur = lim[0];
        target->rlim[res].max = lim[1];
    }
    return uold ? copy_to_user(t->mm, uold, old, sizeof old) : 0;
}

long sys_prlimit64(struct thread *t, const struct sysargs *a)
{
    uint64_t lim[2];
    if (a->a[2] && copy_from_user(t->mm, lim, a->a[2], sizeof lim))
        return -EFAULT;
    struct process *target = (int)a->a[0] == 0 ? t->proc : process_by_pid((int)a->a[0]);
    if (!target)
        return -ESRCH;
    if (!cred_may_prlimit(t->proc, target))
        return -EPERM;
    return do_prlimit(t, target, (unsigned)a->a[1], a->a[2] ? lim : NULL, a->a[3]);
}

long sys_getrlimit(struct thread *t, const struct sysargs *a)
{
    return do_prlimit(t, t->proc, (unsigned)a->a[0], 0, a->a[1]);
}

long sys_setrlimit(struct thread *t, const struct sysargs *a)
{
    uint64_t lim[2];
    if (a->a[0] >= RLIM_NLIMITS)
        return -EINVAL;
    if (copy_from_user(t->mm, lim, a->a[1], sizeof lim))
        return -EFAULT;
    return do_prlimit(t, t->proc, (unsigned)a->a[0], lim, 0);
}

/* --- scheduling: one CPU, everyone SCHED_OTHER, nice 0 ---------------------------------- */

/* A thread by its id (0: the caller), as the scheduling calls take it. */
static bool pid_ok(l4_word_t pid)
{
    struct pid *p = (int)pid > 0 ? pid_find((int)pid) : NULL;
    return (int)pid == 0 || (p && (p->thread || p->proc));
}

long sys_sched_getaffinity(struct thread *t, const struct sysargs *a)
{
    if (a->a[1] < 8 || (a->a[1] & 7))
        return -EINVAL;             /* smaller than the kernel's mask, or not whole words */
    if (!pid_ok(a->a[0]))
        return -ESRCH;
    uint64_t mask = 1;              /* CPU 0 */
    int e = copy_to_user(t->mm, a->a[2], &mask, sizeof mask);
    return e ? e : 8;
}

/* The process of a thread id the scheduling calls name (0: the caller's), or NULL. */
struct process *sched_target(struct thread *t, l4_word_t pid)
{
    struct pid *p = (int)pid > 0 ? pid_find((int)pid) : NULL;
    if ((int)pid == 0)
        return t->proc;
    return !p ? NULL : p->thread ? p->thread->proc : p->proc;
}

long sys_sched_setaffinity(struct thread *t, const struct sysargs *a)
{
    if (!pid_ok(a->a[0]))
        return -ESRCH;
    uint8_t first = 0;
    if (a->a[1] && copy_from_user(t->mm, &first, a->a[2], 1))
        return -EFAULT;
    struct process *p = sched_target(t, a->a[0]);
    if (p && !cred_may_change_sched(t->proc, p))
        return -EPERM;
    return first & 1 ? 0 : -EINVAL;  /* the mask must contain CPU 0 */
}

long sys_sched_getscheduler(struct thread *t, const struct sysargs *a)
{
    (void)t;
    if ((int)a->a[0] < 0)
        return -EINVAL;
    return pid_ok(a->a[0]) ? SCHED_OTHER : -ESRCH;
}

long sys_sched_getparam(struct thread *t, const struct sysargs *a)
{
    if ((int)a->a[0] < 0 || !a->a[1])
        return -EINVAL;
    if (!pid_ok(a->a[0]))
        return -ESRCH;
    static const int zero;
    return copy_to_user(t->mm, a->a[1], &zero, sizeof zero);
}

/* sched_setscheduler and sched_setparam: SCHED_OTHER/BATCH/IDLE with priority 0 are what
 * everyone has; real-time classes are EPERM (lx does not give its processes priorities). */
static long set_sched(struct thread *t, l4_word_t pid, long policy, l4_word_t uparam)
{
    if ((int)pid < 0 || !uparam)
        return -EINVAL;
    int prio;
    if (copy_from_user(t->mm, &prio, uparam, sizeof prio))
        return -EFAULT;
    if (!pid_ok(pid))
        return -ESRCH;
    policy &= ~SCHED_RESET_ON_FORK;
    if (policy == SCHED_FIFO || policy == SCHED_RR)
        return prio >= 1 && prio <= 99 ? -EPERM : -EINVAL;
    if (policy != SCHED_OTHER && policy != SCHED_BATCH && policy != SCHED_IDLE)
        return -EINVAL;
    return prio == 0 ? 0 : -EINVAL;
}

long sys_sched_setscheduler(struct thread *t, const struct sysargs *a)
{
    return set_sched(t, a->a[0], (long)(int)a->a[1], a->a[2]);
}

long sys_sched_setparam(struct thread *t, const struct sysargs *a)
{
    return set_sched(t, a->a[0], SCHED_OTHER, a->a[1]);
}

long sys_sched_get_priority_max(struct thread *t, const struct sysargs *a)
{
    (void)t;
    int p = (int)a->a[0];
    if (p == SCHED_FIFO || p == SCHED_RR)
        return 99;
    return p == SCHED_OTHER || p == SCHED_BATCH || p == SCHED_IDLE ? 0 : -EINVAL;
}

long sys_sched_get_priority_min(struct thread *t, const struct sysargs *a)
{
    (void)t;
    int p = (int)a->a[0];
    if (p == SCHED_FIFO || p == SCHED_RR)
        return 1;
    return p == SCHED_OTHER || p == SCHED_BATCH || p == SCHED_IDLE ? 0 : -EINVAL;
}

/* getpriority answers 20 - nice (nice 0 for everyone); setpriority accepts nice >= 0 (lx
 * does not act on it); a process of another user is EPERM and a lower nice EACCES without
 * root (CAP_SYS_NICE; RLIMIT_NICE is 0), for PRIO_PROCESS. */
long sys_getpriority(struct thread *t, const struct sysargs *a)
{
    (void)t;
    if (a->a[0] > PRIO_USER)
        return -EINVAL;
    if (a->a[0] == PRIO_PROCESS && !pid_ok(a->a[1]))
        return -ESRCH;
    return 20;
}

long sys_setpriority(struct thread *t, const struct sysargs *a)
{
    if (a->a[0] > PRIO_USER)
        return -EINVAL;
    if (a->a[0] == PRIO_PROCESS && !pid_ok(a->a[1]))
        return -ESRCH;
    struct process *p = a->a[0] == PRIO_PROCESS ? sched_target(t, a->a[1]) : NULL;
    if (p && !cred_may_change_sched(t->proc, p))
        return -EPERM;
    if (p && (int)a->a[2] < 0 && !cred_capable(&t->proc->cred, CAP_SYS_NICE))
        return -EACCES;
    return 0;
}

long sys_getcpu(struct thread *t, const struct sysargs *a)
{
    static const unsigned zero;
    if (a->a[0] && copy_to_user(t->mm, a->a[0], &zero, sizeof zero))
        return -EFAULT;
    if (a->a[1] && copy_to_user(t->mm, a->a[1], &zero, sizeof zero))
        return -EFAULT;
    return 0;
}

/* --- the system ------------------------------------------------------------------------ */

long sys_personality(struct thread *t, const struct sysargs *a)
{
    (void)t;
    /* PER_LINUX (0) is all there is; 0xffffffff queries. */
    uint32_t p = (uint32_t)a->a[0];
    return p == 0 || p == 0xFFFFFFFFu ? 0 : -EINVAL;
}

long sys_sysinfo(struct thread *t, const struct sysargs *a)
{
    struct {
        long uptime;
        unsigned long loads[3];
        unsigned long totalram, freeram, sharedram, bufferram, totalswap, freeswap;
        unsigned short procs, pad;
        unsigned long totalhigh, freehigh;
        unsigned mem_unit;
        char reserved[4];
    } si;
    _Static_assert(sizeof si == 112, "Linux's struct sysinfo on x86-64");
    memset(&si, 0, sizeof si);
    si.uptime = (long)(lx_now() / 1000000000ull);
    si.totalram = page_total() * LX_PAGE;      /* in bytes: mem_unit 1, as 64-bit Linux */
    si.freeram = page_free_count() * LX_PAGE;
    si.procs = (unsigned short)process_nr_all;
    si.mem_unit = 1;
    return copy_to_user(t->mm, a->a[0], &si, sizeof si);
}

long sys_prctl(struct thread *t, const struct sysargs *a)
{
    switch (a->a[0]) {
    case PR_SET_PDEATHSIG:
        return a->a[1] <= 64 ? 0 : -EINVAL;
    case PR_GET_PDEATHSIG: {
        static const int zero;
        return copy_to_user(t->mm, a->a[1], &zero, sizeof zero);
    }
    case PR_GET_DUMPABLE:
        return !t->proc->cred.nondumpable;
    case PR_SET_DUMPABLE:
        if (a->a[1] > 1)
            return -EINVAL;
        t->proc->cred.nondumpable = !a->a[1];
        return 0;
    case PR_SET_NAME: {
        char name[16];
        long n = strncpy_from_user(t->mm, name, a->a[1], sizeof name);
        if (n == -EFAULT)
            return -EFAULT;
        name[sizeof name - 1] = 0;  /* longer names are cut, as Linux does */
        memcpy(t->comm, name, sizeof name);
        return 0;
    }
    case PR_GET_NAME:
        return copy_to_user(t->mm, a->a[1], t->comm, sizeof t->comm);
    case PR_SET_NO_NEW_PRIVS:
        if (a->a[1] != 1 || a->a[2] || a->a[3] || a->a[4])
            return -EINVAL;
        t->proc->cred.no_new_privs = true;
        return 0;
    case PR_GET_NO_NEW_PRIVS:
        return a->a[1] || a->a[2] || a->a[3] || a->a[4] ? -EINVAL : t->proc->cred.no_new_privs;
    case PR_GET_KEEPCAPS:
        return t->proc->cred.keepcaps;
    case PR_SET_KEEPCAPS:
        if (a->a[1] > 1)
            return -EINVAL;
        t->proc->cred.keepcaps = a->a[1];
        return 0;
    case PR_CAPBSET_READ:           /* the bounding set is full (docs/linux/users.md) */
        return a->a[1] <= CAP_LAST_CAP ? 1 : -EINVAL;
    default:
        return -EINVAL;
    }
}

/* membarrier(cmd, flags, cpu_id): one CPU, so every barrier is there already when lx answers;
 * what Linux 6.1 checks and returns: the query's mask, EPERM for a private command the process
 * has not registered for (registrations are the process's: its memory's in Linux). */
#define MEMBARRIER_CMD_QUERY                        0
#define MEMBARRIER_CMD_GLOBAL                       1
#define MEMBARRIER_CMD_GLOBAL_EXPEDITED             2
#define MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED    4
#define MEMBARRIER_CMD_PRIVATE_EXPEDITED            8
#define MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED   16
#define MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE  32
#define MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE 64
#define MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ       128
#define MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ 256
#define MEMBARRIER_CMD_FLAG_CPU                     1

long sys_membarrier(struct thread *t, const struct sysargs *a)
{
    unsigned cmd = (unsigned)a->a[0], flags = (unsigned)a->a[1];
    if (flags && cmd != MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ)
        return -EINVAL;
    unsigned *reg = &t->proc->membarrier;
    switch (cmd) {
    case MEMBARRIER_CMD_QUERY:
        return 511;                 /* every command below */
    case MEMBARRIER_CMD_GLOBAL:
    case MEMBARRIER_CMD_GLOBAL_EXPEDITED:
        return 0;
    case MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED:
    case MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED:
    case MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE:
    case MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_RSEQ:
        *reg |= cmd;
        return 0;
    case MEMBARRIER_CMD_PRIVATE_EXPEDITED_RSEQ:
        if (flags & ~MEMBARRIER_CMD_FLAG_CPU)
            return -EINVAL;
        /* fall through */
    case MEMBARRIER_CMD_PRIVATE_EXPEDITED:
    case MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE:
        return (*reg & (cmd << 1)) ? 0 : -EPERM;     /* its registration is the next bit */
    default:
        return -EINVAL;
    }
}
