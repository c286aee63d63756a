/* The signal system calls (docs/linux/signals.md): actions, masks, the alternate stack,
 * sending, queueing with a siginfo, waiting, rt_sigreturn, and the interval timers (alarm,
 * setitimer: ITIMER_REAL here, the CPU-time ones in time/cpu_itimer.c).  Errors
 * in Linux's order: a bad pointer to what is read first is EFAULT before the arguments are
 * judged, what is written back is written last. */
#include "syscalls/handlers.h"
#include "mm/usercopy.h"
#include "park/park.h"
#include "signal/sigframe.h"
#include "signal/signal.h"
#include "signal/sigqueue.h"
#include "syscalls/sigmq.h"
#include "time/clock.h"
#include "time/cpu_itimer.h"
#include "vfs/permission.h"
#include <string.h>

#define SIG_BLOCK   0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2
#define UNBLOCKABLE (SIGBIT(SIGKILL) | SIGBIT(SIGSTOP))
/* The flags Linux keeps (UAPI_SA_FLAGS on x86-64): unknown ones read back as 0. */
#define SA_KNOWN (SA_NOCLDSTOP | SA_NOCLDWAIT | SA_SIGINFO | SA_ONSTACK | SA_RESTART | \
                  SA_NODEFER | SA_RESETHAND | 0x800 | SA_RESTORER | 0x02000000 | 0x01000000)
#define ITIMER_REAL 0
#define NSEC 1000000000ull

long sys_rt_sigaction(struct thread *t, const struct sysargs *a)
{
    int sig = (int)a->a[0];
    struct k_sigaction act;
    if (a->a[3] != 8)
        return -EINVAL;
    if (a->a[1] && copy_from_user(t->mm, &act, a->a[1], sizeof act))
        return -EFAULT;
    if (sig < 1 || sig > 64 || (a->a[1] && (sig == SIGKILL || sig == SIGSTOP)))
        return -EINVAL;
    struct k_sigaction *ka = &t->proc->sighand->action[sig - 1], old = *ka;
    if (a->a[1]) {
        act.flags &= SA_KNOWN;
        act.mask &= ~UNBLOCKABLE;
        *ka = act;
        /* A signal that is now ignored is no longer pending, in any thread (POSIX). */
        bool dfl_ign = sig == SIGCHLD || sig == SIGCONT || sig == 23 || sig == SIGWINCH;
        if (act.handler == SIG_IGN || (act.handler == SIG_DFL && dfl_ign))
            signal_discard(t->proc, SIGBIT(sig));
    }
    if (a->a[2] && copy_to_user(t->mm, a->a[2], &old, sizeof old))
        return -EFAULT;
    return 0;
}

long sys_rt_sigprocmask(struct thread *t, const struct sysargs *a)
{
    uint64_t set, old = t->sig.blocked;
    if (a->a[3] != 8)
        return -EINVAL;
    if (a->a[1]) {
        if (copy_from_user(t->mm, &set, a->a[1], sizeof set))
            return -EFAULT;
        set &= ~UNBLOCKABLE;
        switch (a->a[0]) {
        case SIG_BLOCK: t->sig.blocked |= set; break;
        case SIG_UNBLOCK: t->sig.blocked &= ~set; break;
        case SIG_SETMASK: t->sig.blocked = set; break;
        default: return -EINVAL;
        }
        if (t->sig.blocked & ~old & t->proc->sig.shared.set)
            signal_retarget(t->proc);   /* another thread may take what t now blocks */
    }
    if (a->a[2] && copy_to_user(t->mm, a->a[2], &old, sizeof old))
        return -EFAULT;
    return 0;                       /* a signal it unblocked is delivered on the way out */
}

long sys_rt_sigpending(struct thread *t, const struct sysargs *a)
{
    if (a->a[1] > 8)
        return -EINVAL;
    uint64_t set = signal_pending(t) & t->sig.blocked;
    return copy_to_user(t->mm, a->a[0], &set, a->a[1]);
}

long sys_rt_sigreturn(struct thread *t, const struct sysargs *a)
{
    l4_word_t regs[L4_FREG_WORDS], fpstate;
    if (sigframe_restore(t, a->rsp, regs, &fpstate)) {
        process_fault_kill(t, SIGSEGV, "bad signal frame", a->rsp - 8, a->rip, false);
        return LX_NOREPLY;
    }
    /* Signals the restored mask lets through come now, on the restored state: a new frame
     * where the interrupted code's stack is, not below the one being left. */
    return signal_return(t, regs, fpstate) ? LX_REPLIED : LX_NOREPLY;
}

/* restart_syscall(2): the interrupted call the restart block describes goes on (a sleep for
 * the time that was left, a poll until its deadline); nothing described: EINTR, as Linux's
 * do_no_restart_syscall. */
long sys_restart_syscall(struct thread *t, const struct sysargs *a)
{
    (void)a;
    return t->restart.fn ? t->restart.fn(t) : -EINTR;
}

struct ustack {
    uint64_t ss_sp;
    int32_t ss_flags, pad;
    uint64_t ss_size;
};

long sys_sigaltstack(struct thread *t, const struct sysargs *a)
{
    struct ustack ss, old = { .ss_sp = t->sig.ss_sp, .ss_size = t->sig.ss_size };
    if (a->a[0] && copy_from_user(t->mm, &ss, a->a[0], sizeof ss))
        return -EFAULT;
    old.ss_flags = sigframe_ss_flags(t, a->rsp) | (int32_t)(t->sig.ss_flags & SS_AUTODISARM);
    if (a->a[0]) {
        if (sigframe_ss_flags(t, a->rsp) == SS_ONSTACK)
            return -EPERM;          /* not while running on it */
        int mode = ss.ss_flags & ~(int32_t)SS_AUTODISARM;
        if (mode != SS_DISABLE && mode != SS_ONSTACK && mode != 0)
            return -EINVAL;
        if (mode == SS_DISABLE) {
            ss.ss_sp = ss.ss_size = 0;
        } else if (ss.ss_size < MINSIGSTKSZ) {
            return -ENOMEM;
        }
        t->sig.ss_sp = ss.ss_sp;
        t->sig.ss_size = ss.ss_size;
        t->sig.ss_flags = ss.ss_flags;
    }
    if (a->a[1] && copy_to_user(t->mm, a->a[1], &old, sizeof old))
        return -EFAULT;
    return 0;
}

/* Linux's check_kill_permission: kill_ok_by_cred (vfs/permission.h), or SIGCONT within
 * the sender's session. */
static int kill_permission(struct thread *t, struct process *p, int sig)
{
    if (p == t->proc || cred_may_signal(t->proc, p))
        return 0;
    return sig == SIGCONT && p->session == t->proc->session ? 0 : -EPERM;
}

/* One process of kill's: 0 or -EPERM. */
static int kill_one(struct thread *t, struct process *p, int sig, struct k_siginfo *info)
{
    int e = kill_permission(t, p, sig);
    if (!e && sig)
        signal_send(p, sig, info);
    return e;
}

/* kill's targets: a process (zombies count: the signal goes nowhere), a group (0 if any
 * member got it, else the error), or all (0 even when every one was EPERM, as Linux). */
long sys_kill(struct thread *t, const struct sysargs *a)
{
    int pid = (int)a->a[0], sig = (int)a->a[1];
    if ((long)a->a[1] != sig || sig < 0 || sig > 64)
        return -EINVAL;
    struct k_siginfo info = { .code = SI_USER, .pid = thread_pid(t) };
    struct process *p, *n;
    if (pid > 0) {
        if (!(p = process_by_pid(pid)))
            return -ESRCH;
        return kill_one(t, p, sig, &info);
    }
    if (pid == (int)0x80000000)
        return -ESRCH;
    int count = 0;
    if (pid == -1) {                /* every process but init and the caller */
        list_each_safe(p, n, &process_all, all_link)
            if (process_pid(p) > 1 && p != t->proc) {
                count++;
                kill_one(t, p, sig, &info);
            }
        return count ? 0 : -ESRCH;
    }
    struct pid *pgrp = pid == 0 ? t->proc->pgrp : pid_find(-pid);
    int err = -ESRCH;
    bool sent = false;
    if (pgrp)
        list_each_safe(p, n, &pgrp->pgrp, pgrp_link) {
            err = kill_one(t, p, sig, &info);
            sent |= !err;
        }
    return sent ? 0 : err;
}

static long thread_kill(struct thread *t, long tgid, long tid, long sig)
{
    if (tid <= 0 || tid > 0x7FFFFFFF || sig < 0 || sig > 64)
        return -EINVAL;
    struct pid *pid = pid_find((int)tid);
    struct thread *target = pid ? pid->thread : NULL;
    /* A zombie's thread is gone: ESRCH, as Linux after the thread's exit. */
    if (!target || (tgid > 0 && thread_pid(target) != tgid))
        return -ESRCH;
    struct k_siginfo info = { .code = SI_TKILL, .pid = thread_pid(t) };
    int e = kill_permission(t, target->proc, (int)sig);
    if (!e && sig)              /* SI_TKILL: a real-time one past RLIMIT_SIGPENDING fails */
        e = signal_send_thread_info(target, (int)sig, &info);
    return e;
}

long sys_tkill(struct thread *t, const struct sysargs *a)
{
    return thread_kill(t, 0, (long)a->a[0], (long)a->a[1]);
}

long sys_tgkill(struct thread *t, const struct sysargs *a)
{
    if ((long)a->a[0] <= 0)
        return -EINVAL;
    return thread_kill(t, (long)a->a[0], (long)a->a[1], (long)a->a[2]);
}

/* pause and rt_sigsuspend park until a signal ends the call (signal/signal.c: -ERESTARTNOHAND,
 * i.e. EINTR after a handler, a restart after a stop). */
long sys_pause(struct thread *t, const struct sysargs *a)
{
    (void)a;
    return park_call(t, 0, -ERESTARTNOHAND);
}

long sys_rt_sigsuspend(struct thread *t, const struct sysargs *a)
{
    if (!park_retrying(t)) {
        uint64_t mask;
        if (a->a[1] != 8)
            return -EINVAL;
        if (copy_from_user(t->mm, &mask, a->a[0], sizeof mask))
            return -EFAULT;
        signal_set_temp_mask(t, mask);      /* the frame records the old mask */
    }
    return park_call(t, 0, -ERESTARTNOHAND);
}

/* rt_sigtimedwait(set, info, timeout, size): a pending signal of the set is taken without
 * its handler; else the call parks (signal_run wakes it for one of the set: park.takes, and
 * interrupts it with EINTR for any other deliverable signal). */
long sys_rt_sigtimedwait(struct thread *t, const struct sysargs *a)
{
    uint64_t set;
    if (a->a[3] != 8)
        return -EINVAL;
    if (copy_from_user(t->mm, &set, a->a[0], sizeof set))
        return -EFAULT;
    set &= ~UNBLOCKABLE;
    struct park_sigwait *w = park_sigwait(&t->park);
    int64_t ts[2] = { 0, 0 };
    if (!park_retrying(t) && a->a[2]) {
        if (copy_from_user(t->mm, ts, a->a[2], sizeof ts))
            return -EFAULT;
        if (ts[0] < 0 || ts[1] < 0 || ts[1] >= (int64_t)NSEC)
            return -EINVAL;
    }
    struct k_siginfo si;
    int sig = signal_dequeue_mask(t, set, &si);     /* the thread's own first */
    if (sig) {
        if (a->a[1]) {
            uint8_t info[128];
            sigframe_siginfo(sig, &si, info);
            if (copy_to_user(t->mm, a->a[1], info, sizeof info))
                return -EFAULT;
        }
        return sig;
    }
    if (park_retrying(t)) {
        if (w->deadline && lx_now() >= w->deadline)
            return -EAGAIN;
    } else if (a->a[2]) {
        if (!ts[0] && !ts[1])
            return -EAGAIN;
        uint64_t ns = ts[0] > 1000000000 ? ~0ull / 2 : (uint64_t)ts[0] * NSEC;
        w->deadline = lx_now() + ns + (uint64_t)ts[1];
    }
    t->park.takes = set;
    return park_call(t, w->deadline, -EINTR);   /* never restarted (signal(7)) */
}

/* --- ITIMER_REAL: one timer per process in the timer structure (park/timer.c) --- */

static void remaining(const struct process *p, uint64_t *value, uint64_t *interval)
{
    uint64_t now = lx_now();
    const struct timer *tm = &p->sig.real;
    *value = tm->armed ? (tm->when > now ? tm->when - now : 1) : 0;
    *interval = p->sig.real_interval;
}

/* Arm (value ns from now, then every interval ns) or, value 0, disarm. */
static void itimer_set(struct process *p, uint64_t value, uint64_t interval)
{
    p->sig.real_interval = value ? interval : 0;
    if (value)
        timer_arm(&p->sig.real, lx_now() + value);
    else
        timer_cancel(&p->sig.real);
}

/* A timeval (checked: not negative) in ns, at most Linux's KTIME_MAX (about 292 years). */
static uint64_t timeval_ns(int64_t sec, int64_t usec)
{
    if ((uint64_t)sec >= (uint64_t)INT64_MAX / NSEC)
        return (uint64_t)INT64_MAX;
    return (uint64_t)sec * NSEC + (uint64_t)usec * 1000;
}

static void to_timeval(uint64_t ns, int64_t tv[2])
{
    uint64_t us = (ns + 999) / 1000;            /* never 0 for a running timer */
    tv[0] = (int64_t)(us / 1000000);
    tv[1] = (int64_t)(us % 1000000);
}

long sys_alarm(struct thread *t, const struct sysargs *a)
{
    uint64_t value, interval;
    remaining(t->proc, &value, &interval);
    unsigned secs = (unsigned)a->a[0];
    itimer_set(t->proc, secs * NSEC, 0);
    /* The old timer in whole seconds, rounded as Linux does (never 0 while it ran). */
    long old = (long)(value / NSEC);
    uint64_t frac = value % NSEC;
    if ((!old && frac) || frac >= NSEC / 2)
        old++;
    return old;
}

/* which's time left and interval: ITIMER_REAL's or a CPU-time one's (time/cpu_itimer.c). */
static void itimer_get(struct process *p, int which, uint64_t *value, uint64_t *interval)
{
    if (which == ITIMER_REAL)
        remaining(p, value, interval);
    else
        cpu_itimer_get(p, which, value, interval);
}

long sys_getitimer(struct thread *t, const struct sysargs *a)
{
    if (a->a[0] > 2)
        return -EINVAL;
    uint64_t value, interval;
    itimer_get(t->proc, (int)a->a[0], &value, &interval);
    int64_t it[4];
    to_timeval(interval, it);
    to_timeval(value, it + 2);
    return copy_to_user(t->mm, a->a[1], it, sizeof it);
}

long sys_setitimer(struct thread *t, const struct sysargs *a)
{
    int64_t it[4] = { 0, 0, 0, 0 }, old[4];
    if (a->a[1] && copy_from_user(t->mm, it, a->a[1], sizeof it))
        return -EFAULT;
    if (a->a[0] > 2)
        return -EINVAL;
    int which = (int)a->a[0];
    for (unsigned i = 0; i < 4; i += 2)
        if (it[i] < 0 || it[i + 1] < 0 || it[i + 1] >= 1000000)
            return -EINVAL;
    uint64_t value, interval;
    itimer_get(t->proc, which, &value, &interval);
    to_timeval(interval, old);
    to_timeval(value, old + 2);
    uint64_t iv = timeval_ns(it[0], it[1]), v = timeval_ns(it[2], it[3]);
    if (which == ITIMER_REAL)
        itimer_set(t->proc, v, iv);
    else
        cpu_itimer_set(t, which, v, iv);
    if (a->a[2] && copy_to_user(t->mm, a->a[2], old, sizeof old))
        return -EFAULT;
    return 0;
}

/* --- rt_sigqueueinfo, rt_tgsigqueueinfo: a siginfo of the sender's own (signal/sigqueue.c) --- */

/* The siginfo from the process (EFAULT before anything is judged, as Linux's copy). */
static long sigqueue_info_get(struct thread *t, l4_word_t uaddr, int sig, struct k_siginfo *k)
{
    uint8_t buf[128];
    if (copy_from_user(t->mm, buf, uaddr, sizeof buf))
        return -EFAULT;
    *k = sigqueue_info_from_user(sig, buf);
    return 0;
}

/* Not even root may pretend to be the kernel or kill/tkill (si_code >= 0, SI_TKILL) to
 * another thread than itself (Linux compares with the caller's thread id). */
static bool sigqueue_code_faked(const struct thread *t, const struct k_siginfo *k, long pid)
{
    return (k->code >= 0 || k->code == SI_TKILL) && t->tid->nr != pid;
}

long sys_rt_sigqueueinfo(struct thread *t, const struct sysargs *a)
{
    long pid = (int)a->a[0];
    int sig = (int)a->a[1];
    struct k_siginfo k;
    long e = sigqueue_info_get(t, a->a[2], sig, &k);
    if (e)
        return e;
    if (sigqueue_code_faked(t, &k, pid))
        return -EPERM;
    struct process *p = pid > 0 ? process_by_pid((int)pid) : NULL;
    if (!p)
        return -ESRCH;
    if ((long)a->a[1] != sig || sig < 0 || sig > 64)
        return -EINVAL;
    if ((e = kill_permission(t, p, sig)) || !sig)
        return e;
    return signal_send_info(p, sig, &k);
}

long sys_rt_tgsigqueueinfo(struct thread *t, const struct sysargs *a)
{
    long tgid = (int)a->a[0], tid = (int)a->a[1];
    int sig = (int)a->a[2];
    struct k_siginfo k;
    long e = sigqueue_info_get(t, a->a[3], sig, &k);
    if (e)
        return e;
    if (tid <= 0 || tgid <= 0)
        return -EINVAL;
    if (sigqueue_code_faked(t, &k, tid))
        return -EPERM;
    struct pid *pid = pid_find((int)tid);
    struct thread *target = pid ? pid->thread : NULL;
    if (!target || thread_pid(target) != tgid)
        return -ESRCH;
    if ((long)a->a[2] != sig || sig < 0 || sig > 64)
        return -EINVAL;
    if ((e = kill_permission(t, target->proc, sig)) || !sig)
        return e;
    return signal_send_thread_info(target, sig, &k);
}
