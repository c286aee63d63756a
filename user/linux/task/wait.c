/* wait4 and waitid: a parent reaps its ended children (zombies, process.c) and learns of
 * stopped and continued ones (signal/signal.c).  A wait that finds none parks the caller on its
 * child_wait queue (park/park.c); a child that changes state wakes it and the call looks again,
 * while lx serves everyone else.  Status as Linux encodes it: exit code << 8, or the
 * terminating signal in the low 7 bits (0x80: core dumped); stopped 0x7F | signal << 8;
 * continued 0xFFFF (task/exit_status.h).  The children are the parent's list; the rusage:
 * the child's estimated times (cputime.c). */
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "park/park.h"
#include "signal/sigframe.h"
#include "signal/signal.h"
#include "syscalls/handlers.h"
#include "task/cputime.h"
#include "task/process.h"
#include "task/ptrace.h"
#include <string.h>

#define WNOHANG     0x00000001
#define WUNTRACED   0x00000002
#define WCONTINUED  0x00000008
#define __WNOTHREAD 0x20000000
#define __WALL      0x40000000
#define __WCLONE    0x80000000
#define RUSAGE_SIZE 144

/* Is child c one that wait4(pid, options) of process p waits for?  A "clone" child (one
 * whose exit signal is not SIGCHLD) only with __WCLONE, the others only without it; __WALL
 * takes both (Linux's eligible_child).  The children are the process's: any of its threads
 * waits for all of them (__WNOTHREAD, one thread's own, makes no difference here). */
static bool matches(const struct process *p, const struct process *c, int pid,
                    l4_word_t options)
{
    if (!(options & __WALL) && ((c->exit_signal != SIGCHLD) != !!(options & __WCLONE)))
        return false;
    if (pid > 0)
        return process_pid(c) == pid;
    if (pid == -1)
        return true;
    return process_pgid(c) == (pid == 0 ? process_pgid(p) : -pid);
}

/* Free zombie c and report it to t: c's pid, or -EFAULT if the status or rusage cannot be
 * stored (c is gone all the same, as in Linux, which copies after reaping). */
static long reap(struct thread *t, struct process *c, l4_word_t ustatus, l4_word_t urusage)
{
    uint8_t ru[RUSAGE_SIZE];
    int pid = process_pid(c), status = exit_status_word(c->exit);
    cpu_child_reaped(t->proc, c);   /* times(2)'s and getrusage's children (cputime.c) */
    cpu_rusage_zombie(c, ru);
    process_free(c);
    if (ustatus && copy_to_user(t->mm, ustatus, &status, sizeof status))
        return -EFAULT;
    if (urusage && copy_to_user(t->mm, urusage, ru, sizeof ru))
        return -EFAULT;
    return pid;
}

long sys_wait4(struct thread *t, const struct sysargs *a)
{
    int pid = (int)a->a[0];
    l4_word_t options = a->a[2];
    if (options & ~(l4_word_t)(WNOHANG | WUNTRACED | WCONTINUED | __WNOTHREAD | __WALL |
                               __WCLONE))
        return -EINVAL;
    if (pid == (int)0x80000000)
        return -ESRCH;              /* -INT_MIN cannot be negated: Linux says ESRCH */
    bool any = false;
    int st, cld, si_status;
    int tid = ptrace_wait(t->proc, pid, options, false, &any, &st, &cld, &si_status);
    if (tid) {                      /* a tracee's stop or end (task/ptrace.c) */
        static const uint8_t zero[RUSAGE_SIZE];
        if (a->a[1] && copy_to_user(t->mm, a->a[1], &st, sizeof st))
            return -EFAULT;
        if (a->a[3] && copy_to_user(t->mm, a->a[3], zero, sizeof zero))
            return -EFAULT;
        return tid;
    }
    struct process *c;
    list_each(c, &t->proc->children, sibling) {
        if (!matches(t->proc, c, pid, options))
            continue;
        if (c->state == PROCESS_ZOMBIE)
            return reap(t, c, a->a[1], a->a[3]);
        any = true;
        struct exit_status rep = c->sig.report;
        if ((rep.kind == EXIT_STOPPED && (options & WUNTRACED)) ||
            (rep.kind == EXIT_CONTINUED && (options & WCONTINUED))) {
            static const uint8_t zero[RUSAGE_SIZE];
            int status = exit_status_word(rep);
            c->sig.report.kind = EXIT_NONE;
            if (a->a[1] && copy_to_user(t->mm, a->a[1], &status, sizeof status))
                return -EFAULT;
            if (a->a[3] && copy_to_user(t->mm, a->a[3], zero, sizeof zero))
                return -EFAULT;
            return process_pid(c);
        }
    }
    if (!any)
        return -ECHILD;
    if (options & WNOHANG)
        return 0;
    waitq_add(&t->proc->child_wait, t);
    return park_call(t, 0, -ERESTARTSYS);
}

/* waitid(idtype, id, infop, options, rusage): the same children, reported as a siginfo
 * (SIGCHLD, CLD_*, pid, uid, status); WNOWAIT leaves the child as it is. */
#define P_ALL  0
#define P_PID  1
#define P_PGID 2
#define WSTOPPED  2
#define WEXITED   4
#define WNOWAIT   0x01000000

long sys_waitid(struct thread *t, const struct sysargs *a)
{
    l4_word_t idtype = a->a[0], options = a->a[3];
    int id = (int)a->a[1];
    if (options & ~(l4_word_t)(WNOHANG | WSTOPPED | WEXITED | WCONTINUED | WNOWAIT |
                               __WNOTHREAD | __WALL | __WCLONE))
        return -EINVAL;
    if (!(options & (WEXITED | WSTOPPED | WCONTINUED)))
        return -EINVAL;
    int pid;
    switch (idtype) {
    case P_ALL: pid = -1; break;
    case P_PID: if (id <= 0) return -EINVAL; pid = id; break;
    case P_PGID: if (id < 0) return -EINVAL; pid = id ? -id : 0; break;
    default: return -EINVAL;
    }
    bool any = false;
    struct exit_status st = { EXIT_NONE, 0, false };
    struct process *c, *found = NULL;
    int word, cld, si_status;
    int tid = ptrace_wait(t->proc, pid, options, options & WNOWAIT, &any, &word, &cld,
                          &si_status);
    if (tid) {                      /* a tracee's stop or end (task/ptrace.c) */
        uint8_t si[128];
        struct k_siginfo info = { .code = cld, .pid = tid, .status = si_status };
        sigframe_siginfo(SIGCHLD, &info, si);
        if (a->a[2] && copy_to_user(t->mm, a->a[2], si, sizeof si))
            return -EFAULT;
        return 0;
    }
    list_each(c, &t->proc->children, sibling) {
        if (!matches(t->proc, c, pid, options))
            continue;
        any = true;
        if (c->state == PROCESS_ZOMBIE && (options & WEXITED))
            st = c->exit;
        else if (c->state == PROCESS_LIVE && c->sig.report.kind == EXIT_STOPPED &&
                 (options & WSTOPPED))
            st = c->sig.report;
        else if (c->state == PROCESS_LIVE && c->sig.report.kind == EXIT_CONTINUED &&
                 (options & WCONTINUED))
            st = c->sig.report;
        else
            continue;
        found = c;
        break;
    }
    if (!any)
        return -ECHILD;
    if (!found && !(options & WNOHANG)) {
        waitq_add(&t->proc->child_wait, t);
        return park_call(t, 0, -ERESTARTSYS);
    }
    uint8_t si[128];
    if (found) {
        struct k_siginfo info = { .code = exit_status_cld(st), .pid = process_pid(found),
                                  .status = exit_status_si_status(st) };
        if (!(options & WNOWAIT)) {
            if (found->state == PROCESS_ZOMBIE)
                process_free(found);
            else
                found->sig.report.kind = EXIT_NONE;
        }
        sigframe_siginfo(SIGCHLD, &info, si);
    } else {
        for (unsigned i = 0; i < sizeof si; i++)
            si[i] = 0;                      /* WNOHANG, nothing: si_pid 0 */
    }
    if (a->a[2] && copy_to_user(t->mm, a->a[2], si, sizeof si))
        return -EFAULT;
    if (a->a[4]) {
        static const uint8_t zero[RUSAGE_SIZE];
        if (copy_to_user(t->mm, a->a[4], zero, sizeof zero))
            return -EFAULT;
    }
    return 0;
}
