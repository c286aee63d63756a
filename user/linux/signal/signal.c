/* Signals (docs/linux/signals.md): pending sets, default actions, stop and continue, and
 * delivery.
 *
 * A signal is delivered when lx holds the process, i.e. when it waits for lx's reply:
 *   - at the end of a system call (syscall_dispatch calls signal_syscall_return);
 *   - when its parked call is interrupted (signal_run: park_cancel, then as above with
 *     an ERESTART code that becomes EINTR or a restart);
 *   - at a CPU exception or a page fault lx cannot serve (the fault's signal is forced);
 *   - when it runs user code: signal_run sets its pending interrupt (ExchangeRegisters
 *     bits 17/18) and the INTERRUPT message that follows carries its registers.
 * A handler needs every register: a system call's message has only some, so lx answers
 * the call with GET_REGS and delivers when the REGS message arrives.  The reply is SET_REGS
 * with the handler's registers (sigframe.c builds the frame).  A default action needs no
 * registers: the process ends, or stops (its reply is held until SIGCONT).
 *
 * Linux's split: kill and the kernel's signals are process-directed (the process's shared
 * pending set; any thread that does not block the signal takes it), tkill and tgkill and a
 * fault's are thread-directed (the thread's own set, taken first).  Threads with something to
 * deliver that lx does not hold are on a list signal_run works through after each message.
 *
 * A standard signal is pending at most once, a real-time one once per send, each with its
 * siginfo (sigqueue.c). */
#include "signal/signal.h"
#include "signal/fault_log.h"
#include "signal/sigframe.h"
#include "signal/sigqueue.h"
#include "task/coredump.h"
#include "task/ptrace.h"
#include "lib/kmalloc.h"
#include "lib/server.h"
#include "time/clock.h"
#include "time/cpu_itimer.h"
#include "time/posix_timer.h"
#include <stdio.h>

enum { ACT_TERM, ACT_CORE, ACT_IGN, ACT_STOP };

#define STOP_MASK (SIGBIT(SIGSTOP) | SIGBIT(SIGTSTP) | SIGBIT(SIGTTIN) | SIGBIT(SIGTTOU))
#define SYNC_MASK (SIGBIT(SIGSEGV) | SIGBIT(SIGBUS) | SIGBIT(SIGILL) | SIGBIT(SIGTRAP) | \
                   SIGBIT(SIGFPE) | SIGBIT(SIGSYS))
#define UNBLOCKABLE (SIGBIT(SIGKILL) | SIGBIT(SIGSTOP))
#define R(name) regs[L4_FREG_##name - 1]

static struct list kick = LIST_INIT(kick);   /* threads signal_run looks at (sig.kick_link) */

static int default_action(int sig)
{
    switch (sig) {
    case SIGQUIT: case SIGILL: case SIGTRAP: case SIGABRT: case SIGBUS: case SIGFPE:
    case SIGSEGV: case SIGXCPU: case SIGXFSZ: case SIGSYS:
        return ACT_CORE;
    case SIGCHLD: case SIGCONT: case 23 /* SIGURG */: case SIGWINCH:
        return ACT_IGN;
    case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:
        return ACT_STOP;
    default:
        return ACT_TERM;
    }
}

static struct k_sigaction *action(const struct thread *t, int sig)
{
    return &t->proc->sighand->action[sig - 1];
}

static bool ignored(const struct thread *t, int sig)
{
    if (sig == SIGKILL || sig == SIGSTOP)
        return false;
    l4_word_t h = action(t, sig)->handler;
    return h == SIG_IGN || (h == SIG_DFL && default_action(sig) == ACT_IGN);
}

static uint64_t pending(const struct thread *t)
{
    return t->sig.pending.set | t->proc->sig.shared.set;
}

static uint64_t deliverable(const struct thread *t)
{
    return pending(t) & ~(t->sig.blocked & ~UNBLOCKABLE);
}

/* The signal of set to take first: a synchronous one, then the lowest (Linux's next_signal). */
static int first_of(uint64_t set)
{
    uint64_t s = set & SYNC_MASK;
    return set ? __builtin_ctzll(s ? s : set) + 1 : 0;
}

/* The next signal to deliver: the thread's own first, then its process's (Linux's
 * dequeue_signal). */
static int next_signal(const struct thread *t)
{
    uint64_t allowed = ~(t->sig.blocked & ~UNBLOCKABLE);
    int sig = first_of(t->sig.pending.set & allowed);
    return sig ? sig : first_of(t->proc->sig.shared.set & allowed);
}

/* Take sig off t's pending sets (its own first, as Linux's dequeue_signal); its siginfo. */
static void itimer_rearm(struct process *p);

struct k_siginfo signal_dequeue(struct thread *t, int sig)
{
    struct sigpending *q = (t->sig.pending.set & SIGBIT(sig)) ? &t->sig.pending
                                                               : &t->proc->sig.shared;
    struct k_siginfo info = sigqueue_take(q, sig);
    if (sig == SIGALRM && q == &t->proc->sig.shared)
        itimer_rearm(t->proc);
    if (info.code == SI_TIMER)
        posix_timer_dequeued(t->proc, &info);   /* a periodic timer goes on; its overruns */
    return info;
}

int signal_dequeue_mask(struct thread *t, uint64_t mask, struct k_siginfo *info)
{
    int sig = first_of(t->sig.pending.set & mask);
    if (!sig)
        sig = first_of(t->proc->sig.shared.set & mask);
    if (sig)
        *info = signal_dequeue(t, sig);
    return sig;
}

void signal_discard(struct process *p, uint64_t mask)
{
    struct thread *t;
    sigqueue_flush(&p->sig.shared, mask);
    list_each(t, &p->threads, proc_link)
        sigqueue_flush(&t->sig.pending, mask);
}

static void note(struct thread *t)
{
    if (t->l4 && !list_linked(&t->sig.kick_link)) {    /* not an ended leader */
        list_add_tail(&kick, &t->sig.kick_link);
        lx_work = true;
    }
}

void signal_wake(struct thread *t)
{
    note(t);
}

void signal_requeue(struct thread *t, int sig, const struct k_siginfo *info)
{
    sigqueue_add(&t->sig.pending, sig, info, t->proc->cred.uid, ~0ull);
    note(t);
}

bool signal_busy(void)
{
    return !list_empty(&kick);
}

/* The thread of p that takes a process-directed sig: one that does not block it, else the
 * first (it stays pending until one unblocks it: Linux's complete_signal). */
static struct thread *taker(struct process *p, int sig)
{
    struct thread *t;
    list_each(t, &p->threads, proc_link)
        if (!t->exited && (!(t->sig.blocked & SIGBIT(sig)) ||
                           (t->park.kind == PARK_CALL && (t->park.takes & SIGBIT(sig)))))
            return t;               /* ... or waits for it (rt_sigtimedwait: Linux's
                                     * real_blocked) */
    return process_thread(p);
}

void signal_retarget(struct process *p)
{
    struct thread *t;
    if (!p->sig.shared.set)
        return;
    list_each(t, &p->threads, proc_link)
        if (!t->exited)
            signal_note(t);
}

/* What sending sig does before it is pending (Linux's prepare_signal): SIGCONT and SIGKILL
 * continue a stopped process, a stop signal cancels a pending SIGCONT; false if the signal is
 * dropped (ignored, or init without a handler). */
static bool prepare(struct process *p, struct thread *t, int sig)
{
    if (sig == SIGCONT || sig == SIGKILL) {
        signal_discard(p, STOP_MASK);
        if (p->sig.stopped) {
            struct thread *u;
            p->sig.stopped = false;         /* signal_run answers what each thread held */
            list_each(u, &p->threads, proc_link)
                note(u);
            if (sig == SIGCONT) {
                printf("lx: pid %d continued\n", process_pid(p));
                p->sig.report = exit_status_continued();
                signal_child_event(p, p->sig.report);
            }
        }
    }
    if (SIGBIT(sig) & STOP_MASK)
        signal_discard(p, SIGBIT(SIGCONT));
    /* init (pid 1) gets only the signals it handles (Linux's SIGNAL_UNKILLABLE). */
    if (process_pid(p) == 1 && action(t, sig)->handler == SIG_DFL)
        return false;
    /* else discarded; a traced thread's tracer sees even those (Linux's sig_ignored) */
    return t->trace || !(ignored(t, sig) && !(t->sig.blocked & SIGBIT(sig)));
}

/* Queue sig with info for p (its signalfds look again), counted for p's real user against
 * p's RLIMIT_SIGPENDING (a timer's preallocated signal: against none): sigqueue_add's
 * answer. */
static int queue(struct process *p, struct sigpending *q, int sig, const struct k_siginfo *info,
                 bool prealloc)
{
    waitq_wake(&p->sig.signalfd_wait);
    return sigqueue_add(q, sig, info, p->cred.uid,
                        prealloc ? ~0ull : p->rlim[RLIMIT_SIGPENDING].cur);
}

int signal_send_info(struct process *p, int sig, const struct k_siginfo *info)
{
    if (!p || p->state != PROCESS_LIVE || sig < 1 || sig > 64)
        return 0;
    struct thread *t = taker(p, sig);
    if (!t || !prepare(p, t, sig))
        return 0;
    int e = queue(p, &p->sig.shared, sig, info, false);
    if (e >= 0)
        note(t);
    return e < 0 ? e : 0;
}

void signal_send(struct process *p, int sig, const struct k_siginfo *info)
{
    signal_send_info(p, sig, info);
}

int signal_send_thread_info(struct thread *t, int sig, const struct k_siginfo *info)
{
    if (!t || t->proc->state != PROCESS_LIVE || sig < 1 || sig > 64)
        return 0;
    if (!prepare(t->proc, t, sig))
        return 0;
    int e = queue(t->proc, &t->sig.pending, sig, info, false);
    if (e >= 0)
        note(t);
    return e < 0 ? e : 0;
}

void signal_send_thread(struct thread *t, int sig, const struct k_siginfo *info)
{
    signal_send_thread_info(t, sig, info);
}

bool signal_send_timer(struct process *p, struct thread *t, int sig,
                       const struct k_siginfo *info)
{
    if (!p || p->state != PROCESS_LIVE || sig < 1 || sig > 64)
        return false;
    struct thread *to = t ? t : taker(p, sig);
    if (!to || !prepare(p, to, sig))
        return false;
    struct sigpending *q = t ? &t->sig.pending : &p->sig.shared;
    struct k_siginfo *old = &q->info[sig - 1];
    if ((q->set & SIGBIT(sig)) && old->code == SI_TIMER && old->timerid == info->timerid) {
        old->overrun++;             /* still pending from this timer (Linux's send_sigqueue) */
        return true;
    }
    if (queue(p, q, sig, info, true))
        return false;
    note(to);
    return true;
}

void signal_raise(struct thread *t, int sig)
{
    struct k_siginfo info = { .code = SI_KERNEL };
    if (sig == SIGPIPE && t) {
        info.code = SI_USER;                /* Linux's send_sig: from the writer itself */
        info.pid = thread_pid(t);
    }
    signal_send(t ? t->proc : NULL, sig, &info);
}

int signal_raise_pgrp(struct pid *pgrp, int sig)
{
    struct process *p, *n;
    int count = 0;
    struct k_siginfo info = { .code = SI_KERNEL };
    list_each_safe(p, n, &pgrp->pgrp, pgrp_link)
        if (p->state == PROCESS_LIVE) {
            signal_send(p, sig, &info);
            count++;
        }
    return count;
}

void signal_child_event(struct process *c, struct exit_status status)
{
    struct process *p = c->parent;
    if (!p || p->state != PROCESS_LIVE)
        return;
    struct k_siginfo info = { .code = exit_status_cld(status), .pid = process_pid(c),
                              .status = exit_status_si_status(status) };
    bool stopcont = status.kind == EXIT_STOPPED || status.kind == EXIT_CONTINUED;
    int sig = stopcont ? SIGCHLD : c->exit_signal;
    if (sig > 0 && sig <= 64 &&
        !(stopcont && (p->sighand->action[SIGCHLD - 1].flags & SA_NOCLDSTOP)))
        signal_send(p, sig, &info);
    wait_child_changed(p);
}

bool signal_child_autoreap(const struct process *p, const struct process *c)
{
    const struct k_sigaction *ka = &p->sighand->action[SIGCHLD - 1];
    return c->exit_signal == SIGCHLD && (ka->handler == SIG_IGN || (ka->flags & SA_NOCLDWAIT));
}

static bool is_restart(long r);

/* A stopped thread's call: its answer r (or the call itself, interrupted: Linux restarts it)
 * waits for SIGCONT (resume_held). */
static void hold_call(struct thread *t, const struct sysargs *a, long r, bool restart)
{
    if (a != &t->park.call)
        t->park.call = *a;
    if (restart)
        signal_restore_temp_mask(t);
    t->sig.hold = restart ? SIG_HOLD_CALL : SIG_HOLD_RESULT;
    t->sig.hold_value = r;
}

/* Stop t's process (t waits for lx: what it gets on SIGCONT is in t->sig.hold). */
static void stop(struct thread *t, int sig)
{
    struct process *p = t->proc;
    struct thread *u;
    p->sig.stopped = true;
    /* Every thread stops (Linux's group stop): those running user code are interrupted and
     * held at their INTERRUPT message (deliver); a parked call ends as a signal would end it
     * and is held (restarted at SIGCONT, or answered with its result); a call that arrives
     * meanwhile is held with its result (signal_syscall_return). */
    list_each(u, &p->threads, proc_link) {
        if (u == t || !u->l4 || u->sig.want_regs || u->sig.hold != SIG_HOLD_NONE)
            continue;
        if (u->park.kind == PARK_NONE) {
            l4_exchange_registers(u->l4, L4_EXREGS_APPLY_INTERRUPT | L4_EXREGS_INTERRUPT,
                                  0, 0, 0, 0, L4_NILTHREAD, NULL);
        } else if (u->park.kind == PARK_CALL) {
            long r = park_interrupted(u);   /* as a signal ends it: restarted at SIGCONT */
            park_cancel(u);
            hold_call(u, &u->park.call, r, is_restart(r));
        }
    }
    p->sig.stop_sig = sig;
    p->sig.report = exit_status_stopped(sig);
    printf("lx: pid %d stopped by signal %d\n", process_pid(p), sig);
    signal_child_event(p, p->sig.report);
}

/* Linux's orphaned process group: no member has a parent in another group of the same
 * session.  The tty stop signals (not SIGSTOP) to such a group are discarded: nobody would
 * continue it. */
bool signal_pgrp_orphaned(struct pid *pgrp)
{
    struct process *p;
    list_each(p, &pgrp->pgrp, pgrp_link) {
        struct process *parent = p->parent;
        if (p->state != PROCESS_LIVE)
            continue;
        if (parent && parent->state == PROCESS_LIVE && parent->pgrp != pgrp &&
            parent->session == p->session)
            return false;
    }
    return true;
}

static bool stop_discarded(const struct thread *t, int sig)
{
    return sig != SIGSTOP && signal_pgrp_orphaned(t->proc->pgrp);
}

int signal_tty_stop_check(const struct thread *t, int sig)
{
    l4_word_t h = action(t, sig)->handler;
    if ((t->sig.blocked & SIGBIT(sig)) || h == SIG_IGN)
        return 1;
    /* init never gets a default-action signal: it would restart its call for ever. */
    return signal_pgrp_orphaned(t->proc->pgrp) || (thread_pid(t) == 1 && h == SIG_DFL) ? -1 : 0;
}

/* End t's process by signal sig; a core-dump signal writes a core first when lx has t's
 * registers (regs; orig_rax: the system call it was in, or -1) and the process wants one. */
static void die(struct thread *t, int sig, const struct k_siginfo *info, const l4_word_t *regs,
                long orig_rax)
{
    bool core = default_action(sig) == ACT_CORE && regs &&
                coredump_write(t, sig, info, regs, orig_rax);
    process_exit(t->proc, exit_status_dumped(sig, core));
}

/* Drop the pending signals whose action is to ignore them; what is left. */
static uint64_t drop_ignored(struct thread *t)
{
    uint64_t d = deliverable(t);
    for (uint64_t m = d; m; m &= m - 1) {
        int sig = __builtin_ctzll(m) + 1;
        if (ignored(t, sig)) {
            while (pending(t) & SIGBIT(sig))    /* every real-time one queued */
                signal_dequeue(t, sig);
            d &= ~SIGBIT(sig);
        }
    }
    return d;
}

#define NR_restart_syscall 219

static bool is_restart(long r)
{
    return r == -ERESTARTSYS || r == -ERESTARTNOHAND || r == -ERESTARTNOINTR ||
           r == -ERESTART_RESTARTBLOCK;
}

/* The temporary mask of rt_sigsuspend, ppoll, pselect6 and epoll_pwait. */
void signal_set_temp_mask(struct thread *t, uint64_t mask)
{
    if (!t->sig.restore_mask) {
        t->sig.saved_mask = t->sig.blocked;
        t->sig.restore_mask = true;
    }
    t->sig.blocked = mask & ~UNBLOCKABLE;
}

void signal_restore_temp_mask(struct thread *t)
{
    if (t->sig.restore_mask) {
        t->sig.blocked = t->sig.saved_mask;
        t->sig.restore_mask = false;
    }
}

/* A call that ended with an ERESTART code: EINTR, or RAX = the number (restart_syscall's for
 * -ERESTART_RESTARTBLOCK) and RIP back onto the `syscall` instruction (ka: the handler that
 * runs; NULL: none).  The classes are Linux's (arch/x86/kernel/signal.c). */
static void restart_fixup(struct thread *t, l4_word_t *regs, const struct k_sigaction *ka)
{
    long rax = (long)R(RAX);
    bool restart;
    l4_word_t nr = t->sig.result_nr;
    switch (-rax) {
    case ERESTARTNOHAND: restart = !ka; break;
    case ERESTART_RESTARTBLOCK: restart = !ka; nr = NR_restart_syscall; break;
    case ERESTARTSYS: restart = !ka || (ka->flags & SA_RESTART); break;
    case ERESTARTNOINTR: restart = true; break;
    default: return;
    }
    if (restart) {
        R(RAX) = nr;
        R(RIP) -= 2;
    } else {
        R(RAX) = (l4_word_t)-EINTR;
    }
}

/* An interrupted call r runs again, inside lx (no handler runs: the process does not see
 * the restart): the same call, or restart_syscall for -ERESTART_RESTARTBLOCK.  A temporary
 * mask goes first, as Linux puts the saved mask back when no handler is invoked. */
static void restart_call(struct thread *t, const struct sysargs *a, long r)
{
    struct sysargs c = *a;
    if (r == -ERESTART_RESTARTBLOCK)
        c.nr = NR_restart_syscall;
    signal_restore_temp_mask(t);
    park_restart(t, &c);
}

static void set_regs_reply(const l4_word_t *regs)
{
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_SET_REGS, L4_FREG_RFLAGS, 0));
    for (unsigned i = 0; i < L4_FREG_RFLAGS; i++)
        l4_set_mr(L4_FREG_RIP + i, regs[i]);
}

/* The registers of a thread leaving rt_sigreturn without a new frame: through the signal
 * page, which restores the frame's FPU state (fpsrc: its area, 0 none); false if that cannot
 * be set up (the process is killed). */
static bool return_path(struct thread *t, l4_word_t *regs, l4_word_t fpsrc)
{
    if (!sigframe_return(t, regs, fpsrc))
        return true;
    printf("lx: pid %d: bad signal frame at %lx: killed by SIGSEGV\n", thread_pid(t), R(RSP));
    struct k_siginfo segv = { .code = SI_KERNEL };
    die(t, SIGSEGV, &segv, regs, -1);
    return false;
}

/* Delivery (signal_deliver, signal_return): fpsrc is the FPU area of the frame rt_sigreturn
 * returns from, whose state a new frame takes (0: the registers hold it). */
static bool deliver(struct thread *t, l4_word_t *regs, bool in_syscall, bool force_set,
                    l4_word_t fpsrc)
{
    int sig;
    if (t->proc->sig.stopped) {     /* a group stop: it goes on at SIGCONT (resume_held) */
        for (unsigned i = 0; i < L4_FREG_WORDS; i++)
            t->sig.hold_regs[i] = regs[i];
        t->sig.hold = SIG_HOLD_REGS;
        return false;
    }
    /* Caught on the signal page's way back from a handler (its registers are the page's,
     * RSP inside the old frame): a frame goes where the interrupted code's stack is, with
     * its FPU state, never below the frame being left. */
    if (!fpsrc && !in_syscall)
        sigframe_unwind_return(t, regs, &fpsrc);
    while ((sig = next_signal(t))) {
        struct k_siginfo info = signal_dequeue(t, sig);
        if (!ptrace_signal_passes(t, sig)) {    /* traced: its tracer decides (ptrace.c) */
            ptrace_signal_stop(t, sig, &info, regs, in_syscall, (long)t->sig.result_nr);
            return false;
        }
        struct k_sigaction *ka = action(t, sig);
        bool dfl = ka->handler == SIG_DFL || sig == SIGKILL || sig == SIGSTOP;
        if (!dfl && ka->handler == SIG_IGN)
            continue;
        if (dfl) {
            switch (default_action(sig)) {
            case ACT_IGN:
                continue;
            case ACT_STOP:
                if (stop_discarded(t, sig))
                    continue;
                if (in_syscall)
                    restart_fixup(t, regs, NULL);
                signal_restore_temp_mask(t);
                if (!return_path(t, regs, fpsrc))
                    return false;
                for (unsigned i = 0; i < L4_FREG_WORDS; i++)
                    t->sig.hold_regs[i] = regs[i];
                t->sig.hold = SIG_HOLD_REGS;
                stop(t, sig);
                return false;
            default:
                die(t, sig, &info, regs, in_syscall ? (long)t->sig.result_nr : -1);
                return false;
            }
        }
        if (in_syscall)
            restart_fixup(t, regs, ka);
        uint64_t oldmask = t->sig.restore_mask ? t->sig.saved_mask : t->sig.blocked;
        t->sig.restore_mask = false;
        if (sigframe_setup(t, sig, ka, &info, oldmask, regs, fpsrc)) {
            printf("lx: pid %d: cannot write the frame for signal %d at %lx: killed by SIGSEGV\n",
                   thread_pid(t), sig, R(RSP));
            struct k_siginfo segv = { .code = SI_KERNEL };
            die(t, SIGSEGV, &segv, regs, in_syscall ? (long)t->sig.result_nr : -1);
            return false;
        }
        t->sig.blocked |= ka->mask | ((ka->flags & SA_NODEFER) ? 0 : SIGBIT(sig));
        t->sig.blocked &= ~UNBLOCKABLE;
        if (ka->flags & SA_RESETHAND)
            ka->handler = SIG_DFL;
        set_regs_reply(regs);
        return true;
    }
    if (in_syscall)
        restart_fixup(t, regs, NULL);
    signal_restore_temp_mask(t);
    if (!return_path(t, regs, fpsrc))
        return false;
    if (in_syscall || force_set)
        set_regs_reply(regs);
    else
        l4_set_mr(0, l4_tag_make(L4_FOREIGN_RESUME, 0, 0));
    return true;
}

bool signal_deliver(struct thread *t, l4_word_t *regs, bool in_syscall, bool force_set)
{
    return deliver(t, regs, in_syscall, force_set, 0);
}

bool signal_return(struct thread *t, l4_word_t *regs, l4_word_t fpstate)
{
    t->restart.fn = NULL;           /* a handler ran: nothing left to restart (Linux's) */
    return deliver(t, regs, false, true, fpstate);
}

long signal_syscall_return(struct thread *t, const struct sysargs *a, long r)
{
    if (t->proc->state != PROCESS_LIVE)
        return r;
    bool restart = is_restart(r);
    if (t->proc->sig.stopped) {     /* another thread stopped the group: held until SIGCONT */
        hold_call(t, a, r, restart);
        return LX_NOREPLY;
    }
    if (t->trace && (deliverable(t) || ptrace_exit_stop_wanted(t)))
        goto regs;                  /* a ptrace stop holds the registers (even for ignored) */
    if (!drop_ignored(t)) {
        if (!restart)
            return r;
        restart_call(t, a, r);      /* the interrupted call runs again */
        return LX_NOREPLY;
    }
    /* A default action needs no registers (but a core dump does); a handler needs them
     * all. */
    int sig = next_signal(t);
    const struct k_sigaction *ka = action(t, sig);
    bool dump = default_action(sig) == ACT_CORE && coredump_wanted(t);
    if ((ka->handler == SIG_DFL && !dump) || sig == SIGKILL || sig == SIGSTOP) {
        struct k_siginfo info = signal_dequeue(t, sig);
        if (default_action(sig) == ACT_STOP && stop_discarded(t, sig))
            return signal_syscall_return(t, a, r);      /* the next one, if any */
        if (default_action(sig) != ACT_STOP) {
            die(t, sig, &info, NULL, -1);
            return LX_NOREPLY;
        }
        hold_call(t, a, r, restart);
        stop(t, sig);
        return LX_NOREPLY;
    }
regs:
    t->sig.want_regs = true;
    t->sig.in_syscall = true;
    t->sig.result = r;
    t->sig.result_nr = a->nr;
    t->sig.fault_sig = 0;
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_GET_REGS, 0, 0));
    return LX_REPLIED;
}

static void regs_from_mrs(l4_word_t *regs)
{
    for (unsigned i = 0; i < L4_FREG_WORDS; i++)
        regs[i] = l4_mr(L4_FREG_RIP + i);
}

bool signal_interrupt(struct thread *t)
{
    l4_word_t regs[L4_FREG_WORDS];
    regs_from_mrs(regs);
    return signal_deliver(t, regs, false, false);
}

bool signal_waiting_regs(const struct thread *t)
{
    return t->sig.want_regs;
}

/* A fault's signal (Linux's force_sig): a blocked or ignored one is reset to the default
 * action and unblocked.  Thread-directed. */
static void force(struct thread *t, int sig, const struct k_siginfo *info)
{
    struct k_sigaction *ka = action(t, sig);
    uint64_t bit = SIGBIT(sig);
    if ((t->sig.blocked & bit) || ka->handler == SIG_IGN) {
        ka->handler = SIG_DFL;
        t->sig.blocked &= ~bit;
    }
    t->sig.pending.info[sig - 1] = *info;
    t->sig.pending.set |= bit;
}

/* Will the forced signal kill (no handler after the reset)? */
static bool force_kills(const struct thread *t, int sig)
{
    const struct k_sigaction *ka = action(t, sig);
    return (t->sig.blocked & SIGBIT(sig)) || ka->handler == SIG_IGN || ka->handler == SIG_DFL;
}

/* A page fault's signal that no handler takes: the kernel log's line, a core if wanted, the
 * end of the process. */
static void fault_kill(struct thread *t, int sig, const l4_word_t *regs)
{
    const struct k_siginfo *f = &t->sig.fault;
    const char *what = sig == SIGBUS ? "bus error (past the end of the file)" :
                       f->code == SEGV_ACCERR ? "access violation" : "segmentation fault";
    if (sig == SIGSEGV)
        fault_log_segfault(t, f->addr, f->err, regs);
    bool core = coredump_write(t, sig, f, regs, -1);
    process_fault_kill(t, sig, what, f->addr, R(RIP), core);
}

bool signal_regs(struct thread *t)
{
    l4_word_t regs[L4_FREG_WORDS];
    regs_from_mrs(regs);
    t->sig.want_regs = false;
    bool in_syscall = t->sig.in_syscall;
    t->sig.in_syscall = false;
    if (t->sig.fault_sig) {
        int sig = t->sig.fault_sig;
        t->sig.fault_sig = 0;
        if (force_kills(t, sig) && !t->trace) {
            fault_kill(t, sig, regs);
            return false;
        }
        force(t, sig, &t->sig.fault);
    } else if (in_syscall) {
        R(RAX) = (l4_word_t)t->sig.result;
    }
    if (t->trace && ptrace_regs(t, regs, in_syscall))
        return false;               /* a syscall stop (task/ptrace.c) */
    return signal_deliver(t, regs, in_syscall, true);
}
bool signal_exception(struct thread *t)
{
    /* log: Linux's show_signal words for the kernel log's line (NULL: none) */
    static const struct {
        unsigned vector; int sig, code; bool addr; const char *what, *log;
    } map[] = {
        { 0, SIGFPE, FPE_INTDIV, true, "divide error", "divide error" },
        { 1, SIGTRAP, 2 /* TRAP_TRACE */, false, "debug trap", NULL },
        { 3, SIGTRAP, SI_KERNEL, false, "breakpoint", "int3" },
        { 4, SIGSEGV, SI_KERNEL, false, "overflow", "overflow" },
        { 5, SIGSEGV, SI_KERNEL, false, "bound range", "bounds" },
        { 6, SIGILL, ILL_ILLOPN, true, "invalid opcode", "invalid opcode" },
        { 13, SIGSEGV, SI_KERNEL, false, "general protection", "general protection fault" },
        { 16, SIGFPE, 0, true, "x87 error", NULL },
        { 17, SIGBUS, BUS_ADRALN, false, "alignment", "alignment check" },
        { 19, SIGFPE, 0, true, "SIMD error", NULL },
    };
    l4_word_t regs[L4_FREG_WORDS];
    regs_from_mrs(regs);
    l4_word_t vector = l4_mr(L4_FEXC_VECTOR), err = l4_mr(L4_FEXC_ERROR);
    int sig = SIGSEGV, code = SI_KERNEL;
    bool addr = false;
    const char *what = "exception", *log = NULL;
    for (unsigned i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i].vector == vector) {
            sig = map[i].sig, code = map[i].code, addr = map[i].addr, what = map[i].what;
            log = map[i].log;
            break;
        }
    struct k_siginfo info = { .code = code, .addr = addr ? R(RIP) : 0,
                              .trapno = (int)vector, .err = (int)err };
    if (force_kills(t, sig) && !t->trace) {
        l4_word_t where = what[0] == 'e' ? vector : l4_mr(L4_FEXC_ADDR);
        if (log)
            fault_log_trap(t, vector == 13 ? "" : "trap ", log, (long)err, regs);
        bool core = coredump_write(t, sig, &info, regs, -1);
        process_fault_kill(t, sig, what, where, R(RIP), core);
        return false;
    }
    force(t, sig, &info);
    return signal_deliver(t, regs, false, false);
}

bool signal_page_fault(struct thread *t, l4_word_t addr, l4_word_t ip, unsigned access,
                       bool mapped)
{
    (void)ip;                       /* the registers come next: a kill reports from them */
    /* The page-fault error code as the CPU pushes it: present, write, user, fetch. */
    int err = 4 | (mapped ? 1 : 0) | ((access & L4_W) ? 2 : 0) | ((access & L4_X) ? 16 : 0);
    t->sig.fault = (struct k_siginfo){ .code = mapped ? SEGV_ACCERR : SEGV_MAPERR,
                                       .addr = addr, .trapno = 14, .err = err };
    t->sig.fault_sig = SIGSEGV;
    t->sig.want_regs = true;
    t->sig.in_syscall = false;
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_GET_REGS, 0, 0));
    return true;
}

/* A page of a file mapping wholly past the file's end: SIGBUS (BUS_ADRERR), as Linux. */
bool signal_bus_fault(struct thread *t, l4_word_t addr, l4_word_t ip)
{
    (void)ip;
    t->sig.fault = (struct k_siginfo){ .code = 2 /* BUS_ADRERR */, .addr = addr, .trapno = 14,
                                       .err = 4 };
    t->sig.fault_sig = SIGBUS;
    t->sig.want_regs = true;
    t->sig.in_syscall = false;
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_GET_REGS, 0, 0));
    return true;
}

void signal_note_slow(struct thread *t)
{
    if (t->l4 && t->proc->state == PROCESS_LIVE && !t->proc->sig.stopped && !t->sig.want_regs &&
        deliverable(t))
        note(t);
}

/* ITIMER_REAL fired: SIGALRM.  Its next period is armed when the signal is taken
 * (signal_dequeue), as Linux's dequeue_signal does: while one is pending no more come, and a
 * period shorter than a delivery cannot keep the process in its handler for ever. */
void signal_itimer_fired(struct timer *tm)
{
    struct process *p = container_of(tm, struct process, sig.real);
    struct k_siginfo info = { .code = SI_KERNEL };
    signal_send(p, SIGALRM, &info);
}

/* SIGALRM was taken: a periodic ITIMER_REAL's next expiry, the first period boundary after
 * now (missed periods are not made up: Linux's hrtimer_forward). */
static void itimer_rearm(struct process *p)
{
    struct timer *tm = &p->sig.real;
    uint64_t iv = p->sig.real_interval, now = lx_now();
    if (!iv || tm->armed)
        return;
    uint64_t at = tm->when + iv;
    if (at <= now)
        at += ((now - at) / iv + 1) * iv;
    timer_arm(tm, at);
}

/* Answer t's call (or send its next reply) with what signal_syscall_return says. */
static void answer(struct thread *t, long r)
{
    if (r == LX_REPLIED)
        l4_reply(t->l4);
    else if (r != LX_NOREPLY && r != LX_PARK)
        thread_reply(t, r);
}

/* A stopped thread continues with what it was stopped with. */
static void resume_held(struct thread *t)
{
    enum sig_hold h = t->sig.hold;
    t->sig.hold = SIG_HOLD_NONE;
    switch (h) {
    case SIG_HOLD_CALL:
        restart_call(t, &t->park.call, t->sig.hold_value);  /* the interrupted call again */
        break;
    case SIG_HOLD_RESULT:
        answer(t, signal_syscall_return(t, &t->park.call, t->sig.hold_value));
        break;
    case SIG_HOLD_REGS: {
        l4_word_t regs[L4_FREG_WORDS];
        for (unsigned i = 0; i < L4_FREG_WORDS; i++)
            regs[i] = t->sig.hold_regs[i];
        bool in_syscall = t->sig.hold_in_syscall;
        t->sig.hold_in_syscall = false;
        if (signal_deliver(t, regs, in_syscall, true))
            l4_reply(t->l4);
        break;
    }
    default:
        break;
    }
}

void signal_run(void)
{
    while (!list_empty(&kick)) {
        struct thread *t = list_entry(kick.next, struct thread, sig.kick_link);
        list_del(&t->sig.kick_link);
        struct process *p = t->proc;
        if (p->state != PROCESS_LIVE)
            continue;
        if (pending(t) & SIGBIT(SIGKILL)) {
            struct k_siginfo info = signal_dequeue(t, SIGKILL);
            die(t, SIGKILL, &info, NULL, -1);   /* in whatever state it is */
            continue;
        }
        if (p->sig.stopped || t->sig.want_regs || ptrace_stopped(t))
            continue;
        if (t->sig.hold != SIG_HOLD_NONE) {
            resume_held(t);
            continue;
        }
        if (t->park.kind == PARK_CALL) {
            if (pending(t) & t->park.takes) {
                park_wake(t);       /* rt_sigtimedwait takes it */
                continue;
            }
            if (!(t->trace ? deliverable(t) : drop_ignored(t)))
                continue;
            /* The call's own result (park_call): a partial count, the time left, an
             * ERESTART class; never decided here by the call's number. */
            long r = park_interrupted(t);
            park_cancel(t);
            answer(t, signal_syscall_return(t, &t->park.call, r));
        } else if (t->park.kind == PARK_NONE && deliverable(t)) {
            /* It runs user code (or its next message is on its way): the INTERRUPT
             * message brings its registers. */
            l4_exchange_registers(t->l4, L4_EXREGS_APPLY_INTERRUPT | L4_EXREGS_INTERRUPT,
                                  0, 0, 0, 0, L4_NILTHREAD, NULL);
        }
        /* Other parks (fork, vfork, a child's start): at its next message (signal_note). */
    }
}

/* --- the signal state's lifetime --------------------------------------------------------- */

struct sighand *signal_sighand_new(void)
{
    struct sighand *sh = kmalloc(sizeof *sh);
    if (sh)
        sh->refs = 1;
    return sh;
}

static void sighand_put(struct sighand *sh)
{
    if (sh && !--sh->refs)
        kfree(sh);
}

bool signal_fork(struct thread *c, const struct thread *p, bool share_sighand,
                 bool clear_sighand, bool clear_altstack)
{
    struct process *cp = c->proc;
    if (share_sighand) {
        cp->sighand = p->proc->sighand;
        cp->sighand->refs++;
    } else {
        if (!(cp->sighand = signal_sighand_new()))
            return false;
        for (unsigned i = 0; i < 64; i++) {
            struct k_sigaction ka = p->proc->sighand->action[i];
            /* CLONE_CLEAR_SIGHAND: handled signals back to the default (ignored stay). */
            if (clear_sighand && ka.handler != SIG_IGN)
                ka = (struct k_sigaction){ .handler = SIG_DFL };
            cp->sighand->action[i] = ka;
        }
    }
    signal_thread_new(c, p);
    if (!clear_altstack) {
        c->sig.ss_sp = p->sig.ss_sp;
        c->sig.ss_size = p->sig.ss_size;
        c->sig.ss_flags = p->sig.ss_flags;
    }
    return true;
}

void signal_thread_new(struct thread *c, const struct thread *p)
{
    c->sig.blocked = p->sig.blocked;    /* the mask; nothing pending, no alternate stack */
}

void signal_exec(struct thread *t)
{
    struct sighand *sh = t->proc->sighand;
    if (sh->refs > 1) {             /* shared (CLONE_SIGHAND): execve gets its own */
        struct sighand *own = signal_sighand_new();
        if (own) {
            for (unsigned i = 0; i < 64; i++)
                own->action[i] = sh->action[i];
            sighand_put(sh);
            t->proc->sighand = sh = own;
        }
    }
    for (unsigned i = 0; i < 64; i++) {
        struct k_sigaction *ka = &sh->action[i];
        l4_word_t h = ka->handler == SIG_IGN ? SIG_IGN : SIG_DFL;
        *ka = (struct k_sigaction){ .handler = h };
    }
    t->sig.ss_sp = t->sig.ss_size = 0;
    t->sig.ss_flags = 0;
}

void signal_thread_exit(struct thread *t)
{
    list_del(&t->sig.kick_link);
    sigqueue_flush(&t->sig.pending, ~0ull);
    t->sig.hold = SIG_HOLD_NONE;
    t->sig.want_regs = false;
}

void signal_process_exit(struct process *p)
{
    timer_cancel(&p->sig.real);
    cpu_itimer_exit(p);
    sigqueue_flush(&p->sig.shared, ~0ull);
    p->sig.stopped = false;
}

void signal_process_free(struct process *p)
{
    sighand_put(p->sighand);        /* a zombie keeps its actions (/proc/N/status) */
    p->sighand = NULL;
}
