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
 * Standard signals only in the sense that each signal is pending at most once (a real-time
 * signal sent twice is delivered once). */
#include "signal/signal.h"
#include "signal/sigframe.h"
#include <stdio.h>

enum { ACT_TERM, ACT_CORE, ACT_IGN, ACT_STOP };

#define STOP_MASK (SIGBIT(SIGSTOP) | SIGBIT(SIGTSTP) | SIGBIT(SIGTTIN) | SIGBIT(SIGTTOU))
#define SYNC_MASK (SIGBIT(SIGSEGV) | SIGBIT(SIGBUS) | SIGBIT(SIGILL) | SIGBIT(SIGTRAP) | \
                   SIGBIT(SIGFPE) | SIGBIT(SIGSYS))
#define UNBLOCKABLE (SIGBIT(SIGKILL) | SIGBIT(SIGSTOP))
#define R(name) regs[L4_FREG_##name - 1]

uint64_t signal_kick;
#define kick signal_kick

static unsigned slot_of(const struct task *t)
{
    return (unsigned)(t - task_slot(0));
}

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

/* The wait status of a process a signal ends.  lx writes no core files, and says so as
 * Linux with its default RLIMIT_CORE of 0 does: no core flag (0x80), also for the
 * core-dump signals (getrlimit(RLIMIT_CORE) is 0). */
static int exit_status(int sig)
{
    return sig;
}

static bool ignored(const struct task *t, int sig)
{
    if (sig == SIGKILL || sig == SIGSTOP)
        return false;
    l4_word_t h = t->sig.action[sig - 1].handler;
    return h == SIG_IGN || (h == SIG_DFL && default_action(sig) == ACT_IGN);
}

static uint64_t deliverable(const struct task *t)
{
    return t->sigpending & ~(t->sig.blocked & ~UNBLOCKABLE);
}

/* The next signal to deliver: a synchronous one (a fault's) first, then the lowest. */
static int next_signal(const struct task *t)
{
    uint64_t d = deliverable(t);
    if (!d)
        return 0;
    uint64_t s = d & SYNC_MASK;
    return __builtin_ctzll(s ? s : d) + 1;
}

static void note(struct task *t)
{
    kick |= 1ull << slot_of(t);
}

void signal_send(struct task *t, int sig, const struct k_siginfo *info)
{
    if (!t || t->state != TASK_RUNNING || sig < 1 || sig > 64)
        return;
    uint64_t bit = SIGBIT(sig);
    if (sig == SIGCONT || sig == SIGKILL) {
        t->sigpending &= ~STOP_MASK;
        if (t->sig.stopped) {
            t->sig.stopped = false;         /* signal_run answers what it held */
            note(t);
            if (sig == SIGCONT) {
                printf("lx: pid %d continued\n", t->pid);
                t->sig.report = -1;
                signal_child_event(t, CLD_CONTINUED);
            }
        }
    }
    if (bit & STOP_MASK)
        t->sigpending &= ~SIGBIT(SIGCONT);
    /* init (pid 1) gets only the signals it handles (Linux's SIGNAL_UNKILLABLE). */
    if (t->pid == 1 && t->sig.action[sig - 1].handler == SIG_DFL)
        return;
    if (ignored(t, sig) && !(t->sig.blocked & bit))
        return;                             /* discarded, as Linux does */
    if (!(t->sigpending & bit)) {       /* one of each: a second one is merged */
        t->sig.info[sig - 1] = *info;
        t->sigpending |= bit;
    }
    note(t);
}

void signal_raise(struct task *t, int sig)
{
    struct k_siginfo info = { .code = SI_KERNEL };
    if (sig == SIGPIPE && t) {
        info.code = SI_USER;                /* Linux's send_sig: from the writer itself */
        info.pid = t->pid;
    }
    signal_send(t, sig, &info);
}

int signal_raise_pgrp(int pgid, int sig)
{
    int n = 0;
    for (unsigned i = 0; i < LX_MAX_TASKS; i++) {
        struct task *t = task_slot(i);
        if (t->state == TASK_RUNNING && t->pgid == pgid) {
            signal_raise(t, sig);
            n++;
        }
    }
    return n;
}

void signal_child_event(struct task *c, int code)
{
    struct task *p = c->ppid ? task_by_pid(c->ppid) : NULL;
    if (!p || p->state != TASK_RUNNING)
        return;
    struct k_siginfo info = { .code = code, .pid = c->pid };
    int sig = SIGCHLD;
    switch (code) {
    case CLD_EXITED: info.status = (c->status >> 8) & 0xFF; sig = c->exit_signal; break;
    case CLD_KILLED: case CLD_DUMPED: info.status = c->status & 0x7F; sig = c->exit_signal;
        break;
    case CLD_STOPPED: info.status = c->sig.stop_sig; break;
    default: info.status = SIGCONT; break;
    }
    bool stopcont = code == CLD_STOPPED || code == CLD_CONTINUED;
    if (sig > 0 && sig <= 64 &&
        !(stopcont && (p->sig.action[SIGCHLD - 1].flags & SA_NOCLDSTOP)))
        signal_send(p, sig, &info);
    wait_child_ended(p);
}

bool signal_child_autoreap(const struct task *p, const struct task *c)
{
    const struct k_sigaction *ka = &p->sig.action[SIGCHLD - 1];
    return c->exit_signal == SIGCHLD && (ka->handler == SIG_IGN || (ka->flags & SA_NOCLDWAIT));
}

/* Stop t (it waits for lx: what it gets on SIGCONT is in t->sig.hold). */
static void stop(struct task *t, int sig)
{
    t->sig.stopped = true;
    t->sig.stop_sig = sig;
    t->sig.report = sig;
    printf("lx: pid %d stopped by signal %d\n", t->pid, sig);
    signal_child_event(t, CLD_STOPPED);
}

/* Linux's orphaned process group: no member has a parent in another group of the same
 * session.  The tty stop signals (not SIGSTOP) to such a group are discarded: nobody would
 * continue it. */
static bool pgrp_orphaned(int pgid)
{
    for (unsigned i = 0; i < LX_MAX_TASKS; i++) {
        struct task *p = task_slot(i), *parent;
        if (p->state != TASK_RUNNING || p->pgid != pgid)
            continue;
        parent = p->ppid ? task_by_pid(p->ppid) : NULL;
        if (parent && parent->state == TASK_RUNNING && parent->pgid != pgid &&
            parent->sid == p->sid)
            return false;
    }
    return true;
}

static bool stop_discarded(const struct task *t, int sig)
{
    return sig != SIGSTOP && pgrp_orphaned(t->pgid);
}

int signal_tty_stop_check(const struct task *t, int sig)
{
    l4_word_t h = t->sig.action[sig - 1].handler;
    if ((t->sig.blocked & SIGBIT(sig)) || h == SIG_IGN)
        return 1;
    /* init never gets a default-action signal: it would restart its call for ever. */
    return pgrp_orphaned(t->pgid) || (t->pid == 1 && h == SIG_DFL) ? -1 : 0;
}

/* End t by signal sig. */
static void die(struct task *t, int sig)
{
    task_exit(t, exit_status(sig));
}

/* Drop the pending signals whose action is to ignore them; what is left. */
static uint64_t drop_ignored(struct task *t)
{
    uint64_t d = deliverable(t);
    for (uint64_t m = d; m; m &= m - 1) {
        int sig = __builtin_ctzll(m) + 1;
        if (ignored(t, sig)) {
            t->sigpending &= ~SIGBIT(sig);
            d &= ~SIGBIT(sig);
        }
    }
    return d;
}

/* A call that ended with an ERESTART code: EINTR, or RAX = the number and RIP back onto
 * the `syscall` instruction (ka: the handler that runs; NULL: none). */
static void restart_fixup(struct task *t, l4_word_t *regs, const struct k_sigaction *ka)
{
    long rax = (long)R(RAX);
    bool restart;
    switch (-rax) {
    case ERESTARTNOHAND: restart = !ka; break;
    case ERESTARTSYS: restart = !ka || (ka->flags & SA_RESTART); break;
    case ERESTARTNOINTR: restart = true; break;
    default: return;
    }
    if (restart) {
        R(RAX) = t->sig.result_nr;
        R(RIP) -= 2;
    } else {
        R(RAX) = (l4_word_t)-EINTR;
    }
}

static void set_regs_reply(const l4_word_t *regs)
{
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_SET_REGS, L4_FREG_RFLAGS, 0));
    for (unsigned i = 0; i < L4_FREG_RFLAGS; i++)
        l4_set_mr(L4_FREG_RIP + i, regs[i]);
}

bool signal_deliver(struct task *t, l4_word_t *regs, bool in_syscall, bool force_set)
{
    int sig;
    while ((sig = next_signal(t))) {
        struct k_siginfo info = t->sig.info[sig - 1];
        t->sigpending &= ~SIGBIT(sig);
        struct k_sigaction *ka = &t->sig.action[sig - 1];
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
                for (unsigned i = 0; i < L4_FREG_WORDS; i++)
                    t->sig.hold_regs[i] = regs[i];
                t->sig.hold = SIG_HOLD_REGS;
                stop(t, sig);
                return false;
            default:
                die(t, sig);
                return false;
            }
        }
        if (in_syscall)
            restart_fixup(t, regs, ka);
        uint64_t oldmask = t->sig.restore_mask ? t->sig.saved_mask : t->sig.blocked;
        t->sig.restore_mask = false;
        if (sigframe_setup(t, sig, ka, &info, oldmask, regs)) {
            printf("lx: pid %d: cannot write the frame for signal %d at %lx: killed by SIGSEGV\n",
                   t->pid, sig, R(RSP));
            die(t, SIGSEGV);
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
    if (t->sig.restore_mask) {
        t->sig.blocked = t->sig.saved_mask;
        t->sig.restore_mask = false;
    }
    if (in_syscall || force_set)
        set_regs_reply(regs);
    else
        l4_set_mr(0, l4_tag_make(L4_FOREIGN_RESUME, 0, 0));
    return true;
}

/* The interrupted call runs again (a restart without a handler). */
static void restart_call(struct task *t, const struct sysargs *a)
{
    if (a != &t->call)
        t->call = *a;
    park_parked(t, &t->call);
    park_wake(t);
}

long signal_syscall_return(struct task *t, const struct sysargs *a, long r)
{
    if (t->state != TASK_RUNNING)
        return r;
    bool restart = r == -ERESTARTSYS || r == -ERESTARTNOHAND || r == -ERESTARTNOINTR;
    if (!drop_ignored(t)) {
        if (!restart)
            return r;
        restart_call(t, a);
        return LX_NOREPLY;
    }
    /* A default action needs no registers; a handler needs them all. */
    int sig = next_signal(t);
    const struct k_sigaction *ka = &t->sig.action[sig - 1];
    if (ka->handler == SIG_DFL || sig == SIGKILL || sig == SIGSTOP) {
        t->sigpending &= ~SIGBIT(sig);
        if (default_action(sig) == ACT_STOP && stop_discarded(t, sig))
            return signal_syscall_return(t, a, r);      /* the next one, if any */
        if (default_action(sig) != ACT_STOP) {
            die(t, sig);
            return LX_NOREPLY;
        }
        /* Stopped: the call's answer (or the call itself, interrupted: Linux restarts
         * it) waits for SIGCONT. */
        if (a != &t->call)
            t->call = *a;
        t->sig.hold = restart ? SIG_HOLD_CALL : SIG_HOLD_RESULT;
        t->sig.hold_value = r;
        stop(t, sig);
        return LX_NOREPLY;
    }
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

bool signal_interrupt(struct task *t)
{
    l4_word_t regs[L4_FREG_WORDS];
    regs_from_mrs(regs);
    return signal_deliver(t, regs, false, false);
}

bool signal_waiting_regs(const struct task *t)
{
    return t->sig.want_regs;
}

/* A fault's signal (Linux's force_sig): a blocked or ignored one is reset to the default
 * action and unblocked. */
static void force(struct task *t, int sig, const struct k_siginfo *info)
{
    struct k_sigaction *ka = &t->sig.action[sig - 1];
    uint64_t bit = SIGBIT(sig);
    if ((t->sig.blocked & bit) || ka->handler == SIG_IGN) {
        ka->handler = SIG_DFL;
        t->sig.blocked &= ~bit;
    }
    t->sig.info[sig - 1] = *info;
    t->sigpending |= bit;
}

/* Will the forced signal kill (no handler after the reset)? */
static bool force_kills(const struct task *t, int sig)
{
    const struct k_sigaction *ka = &t->sig.action[sig - 1];
    return (t->sig.blocked & SIGBIT(sig)) || ka->handler == SIG_IGN || ka->handler == SIG_DFL;
}

bool signal_regs(struct task *t)
{
    l4_word_t regs[L4_FREG_WORDS];
    regs_from_mrs(regs);
    t->sig.want_regs = false;
    bool in_syscall = t->sig.in_syscall;
    t->sig.in_syscall = false;
    if (t->sig.fault_sig) {
        force(t, t->sig.fault_sig, &t->sig.fault);
        t->sig.fault_sig = 0;
    } else if (in_syscall) {
        R(RAX) = (l4_word_t)t->sig.result;
    }
    return signal_deliver(t, regs, in_syscall, true);
}

bool signal_exception(struct task *t)
{
    static const struct { unsigned vector; int sig, code; bool addr; const char *what; } map[] = {
        { 0, SIGFPE, FPE_INTDIV, true, "divide error" },
        { 1, SIGTRAP, 2 /* TRAP_TRACE */, false, "debug trap" },
        { 3, SIGTRAP, SI_KERNEL, false, "breakpoint" },
        { 4, SIGSEGV, SI_KERNEL, false, "overflow" },
        { 5, SIGSEGV, SI_KERNEL, false, "bound range" },
        { 6, SIGILL, ILL_ILLOPN, true, "invalid opcode" },
        { 13, SIGSEGV, SI_KERNEL, false, "general protection" },
        { 16, SIGFPE, 0, true, "x87 error" },
        { 17, SIGBUS, BUS_ADRALN, false, "alignment" },
        { 19, SIGFPE, 0, true, "SIMD error" },
    };
    l4_word_t regs[L4_FREG_WORDS];
    regs_from_mrs(regs);
    l4_word_t vector = l4_mr(L4_FEXC_VECTOR), err = l4_mr(L4_FEXC_ERROR);
    int sig = SIGSEGV, code = SI_KERNEL;
    bool addr = false;
    const char *what = "exception";
    for (unsigned i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i].vector == vector) {
            sig = map[i].sig, code = map[i].code, addr = map[i].addr, what = map[i].what;
            break;
        }
    if (force_kills(t, sig)) {
        l4_word_t where = what[0] == 'e' ? vector : l4_mr(L4_FEXC_ADDR);
        task_fault_kill(t, sig, what, where, R(RIP));
        return false;
    }
    struct k_siginfo info = { .code = code, .addr = addr ? R(RIP) : 0,
                              .trapno = (int)vector, .err = (int)err };
    force(t, sig, &info);
    return signal_deliver(t, regs, false, false);
}

bool signal_page_fault(struct task *t, l4_word_t addr, l4_word_t ip, unsigned access,
                       bool mapped)
{
    if (force_kills(t, SIGSEGV)) {
        task_fault_kill(t, SIGSEGV, mapped ? "access violation" : "segmentation fault", addr, ip);
        return false;
    }
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
bool signal_bus_fault(struct task *t, l4_word_t addr, l4_word_t ip)
{
    if (force_kills(t, SIGBUS)) {
        task_fault_kill(t, SIGBUS, "bus error (past the end of the file)", addr, ip);
        return false;
    }
    t->sig.fault = (struct k_siginfo){ .code = 2 /* BUS_ADRERR */, .addr = addr, .trapno = 14,
                                       .err = 4 };
    t->sig.fault_sig = SIGBUS;
    t->sig.want_regs = true;
    t->sig.in_syscall = false;
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_GET_REGS, 0, 0));
    return true;
}

void signal_note_slow(struct task *t)
{
    if (t->state == TASK_RUNNING && !t->sig.stopped && !t->sig.want_regs && deliverable(t))
        note(t);
}

uint64_t signal_next_alarm = ~0ull;
#define next_alarm signal_next_alarm

void signal_timer_changed(void)
{
    uint64_t next = ~0ull;
    for (unsigned i = 0; i < LX_MAX_TASKS; i++) {
        struct task *t = task_slot(i);
        if (t->state == TASK_RUNNING && t->sig.alarm_at && t->sig.alarm_at < next)
            next = t->sig.alarm_at;
    }
    next_alarm = next;
}

/* The timers that have expired: SIGALRM, and the next period. */
static void run_timers(void)
{
    if (next_alarm == ~0ull)
        return;
    uint64_t now = lx_now();
    for (unsigned i = 0; i < LX_MAX_TASKS; i++) {
        struct task *t = task_slot(i);
        if (t->state != TASK_RUNNING || !t->sig.alarm_at || t->sig.alarm_at > now)
            continue;
        uint64_t iv = t->sig.alarm_interval;
        t->sig.alarm_at = iv ? t->sig.alarm_at + iv : 0;
        if (iv && t->sig.alarm_at <= now)
            t->sig.alarm_at = now + iv;     /* missed periods are not made up */
        struct k_siginfo info = { .code = SI_KERNEL };
        signal_send(t, SIGALRM, &info);
    }
    signal_timer_changed();
}

/* The interrupted call's result (signal(7)): the sleeps and waits for events or signals
 * give EINTR when a handler runs; the rest restart with SA_RESTART. */
static long interrupted_result(l4_word_t nr)
{
    switch (nr) {
    case 7: case 23: case 34: case 35: case 130: case 230: case 232: case 270: case 271:
    case 281: case 441:     /* poll select pause nanosleep rt_sigsuspend clock_nanosleep
                             * epoll_wait pselect6 ppoll epoll_pwait epoll_pwait2 */
        return -ERESTARTNOHAND;
    case 128:               /* rt_sigtimedwait */
        return -EINTR;
    default:
        return -ERESTARTSYS;
    }
}

/* Answer t's call (or send its next reply) with what signal_syscall_return says. */
static void answer(struct task *t, long r)
{
    if (r == LX_REPLIED)
        l4_reply(t->tid);
    else if (r != LX_NOREPLY && r != LX_PARK)
        task_reply(t, r);
}

/* A stopped process continues with what it was stopped with. */
static void resume_held(struct task *t)
{
    enum sig_hold h = t->sig.hold;
    t->sig.hold = SIG_HOLD_NONE;
    switch (h) {
    case SIG_HOLD_CALL:
        park_parked(t, &t->call);   /* the interrupted call runs again */
        park_wake(t);
        break;
    case SIG_HOLD_RESULT:
        answer(t, signal_syscall_return(t, &t->call, t->sig.hold_value));
        break;
    case SIG_HOLD_REGS: {
        l4_word_t regs[L4_FREG_WORDS];
        for (unsigned i = 0; i < L4_FREG_WORDS; i++)
            regs[i] = t->sig.hold_regs[i];
        if (signal_deliver(t, regs, false, true))
            l4_reply(t->tid);
        break;
    }
    default:
        break;
    }
}

void signal_run(void)
{
    run_timers();
    while (kick) {
        unsigned i = (unsigned)__builtin_ctzll(kick);
        kick &= kick - 1;
        struct task *t = task_slot(i);
        if (t->state != TASK_RUNNING)
            continue;
        if (t->sigpending & SIGBIT(SIGKILL)) {
            t->sigpending &= ~SIGBIT(SIGKILL);
            die(t, SIGKILL);        /* in whatever state it is */
            continue;
        }
        if (t->sig.stopped || t->sig.want_regs)
            continue;
        if (t->sig.hold != SIG_HOLD_NONE) {
            resume_held(t);
            continue;
        }
        if (t->park == PARK_CALL) {
            if (t->call.nr == 128 && (t->sigpending & t->sig.wait_set)) {
                park_wake(t);       /* rt_sigtimedwait takes it */
                continue;
            }
            if (!drop_ignored(t))
                continue;
            park_cancel(t);
            answer(t, signal_syscall_return(t, &t->call, interrupted_result(t->call.nr)));
        } else if (t->park == PARK_NONE && deliverable(t)) {
            /* It runs user code (or its next message is on its way): the INTERRUPT
             * message brings its registers. */
            l4_exchange_registers(t->tid, L4_EXREGS_APPLY_INTERRUPT | L4_EXREGS_INTERRUPT,
                                  0, 0, 0, 0, L4_NILTHREAD, NULL);
        }
        /* Other parks (fork, vfork, a child's start): at its next message (signal_note). */
    }
}

int signal_exit_status(int sig)
{
    return exit_status(sig);
}

void signal_fork(struct task *c, const struct task *p)
{
    for (unsigned i = 0; i < 64; i++)
        c->sig.action[i] = p->sig.action[i];
    c->sig.blocked = p->sig.blocked;
    c->sig.ss_sp = p->sig.ss_sp;
    c->sig.ss_size = p->sig.ss_size;
    c->sig.ss_flags = p->sig.ss_flags;
}

void signal_exec(struct task *t)
{
    for (unsigned i = 0; i < 64; i++) {
        struct k_sigaction *ka = &t->sig.action[i];
        l4_word_t h = ka->handler == SIG_IGN ? SIG_IGN : SIG_DFL;
        *ka = (struct k_sigaction){ .handler = h };
    }
    t->sig.ss_sp = t->sig.ss_size = 0;
    t->sig.ss_flags = 0;
}
