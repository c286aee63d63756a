/* ptrace(2) as Linux 6.1 answers it (kernel/ptrace.c, arch/x86/kernel/ptrace.c), for what
 * docs/linux/ptrace.md lists: the tracer/tracee relation (TRACEME, ATTACH, SEIZE, DETACH,
 * KILL), signal-delivery-stops reported to the tracer's wait, the tracee's memory (PEEK/POKE
 * through lx's view of it, copy-on-write kept) and registers (the held register set of the
 * stop).
 *
 * The tracer is a process (Linux's is a thread; any thread of the tracing process may issue
 * requests here), the tracee a thread.  A stop needs no waiting inside lx: the tracee's reply
 * is held (signal.c's SIG_HOLD_REGS) and the tracer's wait4 parks on its child_wait as for a
 * child's stop; resuming kicks the tracee through signal_run. */
#include "task/ptrace.h"
#include "lib/errno.h"
#include "lib/kmalloc.h"
#include "mm/usercopy.h"
#include "signal/sigframe.h"
#include "signal/signal.h"
#include "syscalls/handlers.h"
#include "task/process.h"
#include "task/sharing.h"
#include <string.h>

#define PTRACE_TRACEME      0
#define PTRACE_PEEKTEXT     1
#define PTRACE_PEEKDATA     2
#define PTRACE_PEEKUSER     3
#define PTRACE_POKETEXT     4
#define PTRACE_POKEDATA     5
#define PTRACE_POKEUSER     6
#define PTRACE_CONT         7
#define PTRACE_KILL         8
#define PTRACE_GETREGS      12
#define PTRACE_SETREGS      13
#define PTRACE_SYSCALL      24
#define PTRACE_ATTACH       16
#define PTRACE_DETACH       17
#define PTRACE_SETOPTIONS   0x4200
#define PTRACE_GETEVENTMSG  0x4201
#define PTRACE_GETSIGINFO   0x4202
#define PTRACE_SETSIGINFO   0x4203
#define PTRACE_GETREGSET    0x4204
#define PTRACE_SETREGSET    0x4205
#define PTRACE_SEIZE        0x4206

#define PTRACE_O_MASK       0x003000ffu     /* every option Linux 6.1 knows */
#define PTRACE_O_EXITKILL   0x00100000u
#define PTRACE_O_TRACESYSGOOD 0x01u
#define PTRACE_O_TRACEEXEC  0x10u
#define PTRACE_O_TRACEFORK  0x02u
#define PTRACE_O_TRACEVFORK 0x04u
#define PTRACE_O_TRACECLONE 0x08u
#define PTRACE_EVENT_FORK   1
#define PTRACE_EVENT_VFORK  2
#define PTRACE_EVENT_CLONE  3
#define PTRACE_EVENT_EXEC   4
#define CLONE_VFORK         0x00004000ul
#define CLONE_PTRACE        0x00002000ul
#define CLD_TRAPPED         4
#define NT_PRSTATUS         1

static struct list tracees = LIST_INIT(tracees);

/* --- the relation --------------------------------------------------------------------- */

static struct tracee *link_tracee(struct thread *t, struct process *tracer, bool seized,
                                  unsigned options, bool privileged)
{
    struct tracee *tr = kmalloc(sizeof *tr);
    if (!tr)
        return NULL;
    memset(tr, 0, sizeof *tr);
    tr->thread = t;
    tr->tracer = tracer;
    tr->tid = t->tid->nr;
    tr->seized = seized;
    tr->privileged = privileged;
    tr->options = options;
    tr->orig_rax = -1;
    list_add_tail(&tracees, &tr->link);
    t->trace = tr;
    return tr;
}

static void unlink_tracee(struct tracee *tr)
{
    if (tr->thread)
        tr->thread->trace = NULL;
    list_del(&tr->link);
    kfree(tr);
}

static void stop_with(struct tracee *tr, int status, int kind);

/* The stopped tracee goes on, with signal sig passed on to it (0: none; a signal only
 * resumes a signal-delivery-stop, as Linux); syscall: PTRACE_SYSCALL. */
static void resume(struct tracee *tr, int sig, bool syscall)
{
    struct thread *t = tr->thread;
    l4_word_t *regs = t->sig.hold_regs;
    tr->stopped = false;
    tr->reported = false;
    tr->syscall_trace = syscall;
    if (tr->kind != STOP_SIGNAL)
        sig = 0;
    if (tr->kind == STOP_SYSCALL_ENTER) {
        /* The call runs as the registers now say (orig_rax, the arguments): the thread goes
         * back onto its `syscall` instruction; orig_rax -1 skips it (RAX stays the answer). */
        if (tr->orig_rax == -1) {
            t->sig.hold_in_syscall = true;
            if (syscall) {
                stop_with(tr, SIGTRAP | ((tr->options & PTRACE_O_TRACESYSGOOD) ? 0x80 : 0),
                          STOP_SYSCALL_EXIT);
                return;
            }
        } else {
            regs[L4_FREG_RAX - 1] = (l4_word_t)tr->orig_rax;
            regs[L4_FREG_RIP - 1] -= 2;
            tr->entered_rip = regs[L4_FREG_RIP - 1] + 2;
            t->sig.hold_in_syscall = false;
        }
    }
    if (tr->kind == STOP_EVENT && tr->event_exit) {
        tr->event_exit = false;
        if (syscall) {              /* the call's own syscall-exit-stop (exec: RAX 0) */
            t->sig.hold_in_syscall = true;
            stop_with(tr, SIGTRAP | ((tr->options & PTRACE_O_TRACESYSGOOD) ? 0x80 : 0),
                      STOP_SYSCALL_EXIT);
            return;
        }
    }
    if (sig) {
        struct k_siginfo info = tr->info;
        if (sig != tr->stop_sig)            /* a new signal: from the tracer, as Linux */
            info = (struct k_siginfo){ .code = SI_USER, .pid = process_pid(tr->tracer),
                                       .uid = (int)tr->tracer->cred.uid };
        tr->passed |= SIGBIT(sig);
        signal_requeue(t, sig, &info);
    }
    tr->stop_sig = 0;
    tr->kind = STOP_SIGNAL;
    signal_wake(t);                 /* signal_run answers its held registers */
}

/* Detach: a stopped tracee goes on (with sig), a running one just loses its tracer. */
static void detach(struct tracee *tr, int sig)
{
    bool stopped = tr->stopped;
    tr->passed = 0;
    if (stopped)
        resume(tr, sig, false);
    unlink_tracee(tr);
}

/* The tracer hears of a stop (or end): SIGCHLD (CLD_TRAPPED) and its wait looks again. */
static void notify(struct tracee *tr, int cld, int status)
{
    struct process *p = tr->tracer;
    if (p->state != PROCESS_LIVE)
        return;
    struct k_siginfo info = { .code = cld, .pid = tr->tid, .status = status };
    if (!(cld == CLD_TRAPPED && (p->sighand->action[SIGCHLD - 1].flags & SA_NOCLDSTOP)))
        signal_send(p, SIGCHLD, &info);
    wait_child_changed(p);
}

/* --- hooks ------------------------------------------------------------------------------ */

bool ptrace_signal_passes(struct thread *t, int sig)
{
    struct tracee *tr = t->trace;
    if (!tr || sig == SIGKILL)
        return true;
    if (tr->passed & SIGBIT(sig)) {
        tr->passed &= ~SIGBIT(sig);
        return true;
    }
    return false;
}

/* The tracee stops (its registers held already): wait reports 0x7F | report << 8. */
static void stop_with(struct tracee *tr, int report, int kind)
{
    tr->kind = kind;
    tr->stopped = true;
    tr->reported = true;
    tr->status = 0x7F | report << 8;
    notify(tr, CLD_TRAPPED, report & 0xFF);
}

static void hold(struct thread *t, const l4_word_t *regs, bool in_syscall)
{
    for (unsigned i = 0; i < L4_FREG_WORDS; i++)
        t->sig.hold_regs[i] = regs[i];
    t->sig.hold = SIG_HOLD_REGS;
    t->sig.hold_in_syscall = in_syscall;
}

void ptrace_signal_stop(struct thread *t, int sig, const struct k_siginfo *info,
                        const l4_word_t *regs, bool in_syscall, long nr)
{
    struct tracee *tr = t->trace;
    hold(t, regs, in_syscall);
    tr->orig_rax = in_syscall ? nr : -1;
    tr->stop_sig = sig;
    tr->info = *info;
    stop_with(tr, sig, STOP_SIGNAL);
}

bool ptrace_syscall_enter(struct thread *t, const struct sysargs *a)
{
    struct tracee *tr = t->trace;
    tr->call_nr = (long)a->nr;
    if (tr->entered_rip && tr->entered_rip == a->rip) {
        tr->entered_rip = 0;        /* resumed after its enter stop: it runs now */
        return false;
    }
    tr->entered_rip = 0;
    if (!tr->syscall_trace)
        return false;
    tr->want_enter = true;
    tr->orig_rax = (long)a->nr;
    t->sig.want_regs = true;
    t->sig.in_syscall = false;
    t->sig.fault_sig = 0;
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_GET_REGS, 0, 0));
    return true;
}

/* As Linux: a call ends in a stop if the tracer's last resume was PTRACE_SYSCALL. */
bool ptrace_exit_stop_wanted(const struct thread *t)
{
    return t->trace->syscall_trace;
}

bool ptrace_regs(struct thread *t, l4_word_t *regs, bool in_syscall)
{
    struct tracee *tr = t->trace;
    int trap = SIGTRAP | ((tr->options & PTRACE_O_TRACESYSGOOD) ? 0x80 : 0);
    if (tr->want_enter) {
        tr->want_enter = false;
        regs[L4_FREG_RAX - 1] = (l4_word_t)-ENOSYS;     /* as Linux shows it at entry */
        hold(t, regs, false);
        tr->stop_sig = 0;
        stop_with(tr, trap, STOP_SYSCALL_ENTER);
        return true;
    }
    if (in_syscall && tr->syscall_trace) {
        tr->orig_rax = (long)t->sig.result_nr;
        hold(t, regs, true);
        tr->stop_sig = 0;
        stop_with(tr, trap, STOP_SYSCALL_EXIT);
        return true;
    }
    return false;
}

bool ptrace_exec(struct thread *t, const l4_word_t *regs)
{
    struct tracee *tr = t->trace;
    if (!tr)
        return false;
    tr->eventmsg = (unsigned long)t->tid->nr;
    tr->orig_rax = tr->call_nr;     /* execve or execveat */
    if (!regs) {                    /* a new L4 task starts it: no registers to hold */
        if (!tr->seized)
            signal_send_thread(t, SIGTRAP, &(struct k_siginfo){ .code = SI_USER });
        return false;
    }
    if (tr->options & PTRACE_O_TRACEEXEC) {
        hold(t, regs, false);
        tr->stop_sig = 0;
        tr->event_exit = true;
        stop_with(tr, SIGTRAP | PTRACE_EVENT_EXEC << 8, STOP_EVENT);
        return true;
    }
    if (!tr->seized) {
        struct k_siginfo info = { .code = SI_USER };
        signal_send_thread(t, SIGTRAP, &info);
    }
    if (!tr->syscall_trace)
        return false;
    hold(t, regs, true);
    tr->stop_sig = 0;
    stop_with(tr, SIGTRAP | ((tr->options & PTRACE_O_TRACESYSGOOD) ? 0x80 : 0),
              STOP_SYSCALL_EXIT);
    return true;
}

/* Linux's ptrace_event for a clone: which event, and whether the options ask for it. */
static int fork_event(const struct tracee *tr, l4_word_t flags)
{
    int event = (flags & CLONE_VFORK) ? PTRACE_EVENT_VFORK :
                (flags & 0xFF) == SIGCHLD ? PTRACE_EVENT_FORK : PTRACE_EVENT_CLONE;
    unsigned opt = event == PTRACE_EVENT_VFORK ? PTRACE_O_TRACEVFORK :
                   event == PTRACE_EVENT_FORK ? PTRACE_O_TRACEFORK : PTRACE_O_TRACECLONE;
    return (tr->options & opt) || (flags & CLONE_PTRACE) ? event : 0;
}

bool ptrace_fork(struct thread *p, struct thread *c, l4_word_t flags, const l4_word_t *saved)
{
    struct tracee *tr = p->trace;
    int event = fork_event(tr, flags);
    if (event && link_tracee(c, tr->tracer, tr->seized, tr->options, tr->privileged)) {
        /* The child starts traced, with SIGSTOP (Linux: a seized one's PTRACE_EVENT_STOP;
         * lx has none: docs/linux/ptrace.md). */
        struct k_siginfo info = { .code = SI_USER };
        signal_send_thread(c, SIGSTOP, &info);
    }
    tr->eventmsg = (unsigned long)c->tid->nr;
    if ((flags & CLONE_VFORK) || (!event && !tr->syscall_trace))
        return false;               /* a vfork parent waits in lx: no stop (a difference) */
    l4_word_t regs[L4_FREG_WORDS];
    for (unsigned i = 0; i < L4_FREG_WORDS; i++)
        regs[i] = saved[i];
    regs[L4_FREG_RAX - 1] = (l4_word_t)c->tid->nr;     /* as `syscall` returns */
    regs[L4_FREG_RCX - 1] = saved[L4_FREG_RIP - 1];
    regs[L4_FREG_R11 - 1] = saved[L4_FREG_RFLAGS - 1];
    hold(p, regs, true);
    tr->stop_sig = 0;
    tr->orig_rax = tr->call_nr;     /* fork, vfork, clone or clone3 */
    if (event) {
        tr->event_exit = true;
        stop_with(tr, SIGTRAP | event << 8, STOP_EVENT);
    } else {
        stop_with(tr, SIGTRAP | ((tr->options & PTRACE_O_TRACESYSGOOD) ? 0x80 : 0),
                  STOP_SYSCALL_EXIT);
    }
    return true;
}

void ptrace_thread_exit(struct thread *t)
{
    if (t->trace)
        unlink_tracee(t->trace);
}

void ptrace_process_exit(struct process *p, struct exit_status status)
{
    struct tracee *tr, *n;
    list_each_safe(tr, n, &tracees, link) {
        if (tr->tracer == p) {              /* its tracer ends: let it go (or kill it) */
            if (!tr->thread)
                unlink_tracee(tr);
            else if (tr->options & PTRACE_O_EXITKILL) {
                struct k_siginfo info = { .code = SI_KERNEL };
                signal_send_thread(tr->thread, SIGKILL, &info);
                detach(tr, 0);
            } else {
                detach(tr, 0);
            }
        } else if (tr->thread && tr->thread->proc == p) {
            /* A tracer that is not the parent gets a notice of the end (the parent's wait
             * still sees the exit); the parent's own tracing needs none. */
            tr->thread->trace = NULL;
            tr->thread = NULL;
            tr->stopped = false;
            if (tr->tracer == p->parent && tr->tid == process_pid(p)) {
                unlink_tracee(tr);
                continue;
            }
            tr->reported = true;
            tr->status = exit_status_word(status);
            notify(tr, exit_status_cld(status), exit_status_si_status(status));
        }
    }
}

static bool wait_matches(const struct process *p, const struct tracee *tr, int pid)
{
    if (pid > 0)
        return tr->tid == pid;
    if (pid == -1)
        return true;
    int pgid = tr->thread ? process_pgid(tr->thread->proc) : 0;
    return pgid == (pid == 0 ? process_pgid(p) : -pid);
}

int ptrace_wait(struct process *p, int pid, unsigned long options, bool nowait, bool *any,
                int *status, int *cld, int *si_status)
{
    (void)options;                  /* a tracee is waited for whatever __WCLONE says */
    struct tracee *tr, *n;
    list_each_safe(tr, n, &tracees, link) {
        if (tr->tracer != p || !wait_matches(p, tr, pid))
            continue;
        *any = true;
        if (!tr->reported)
            continue;
        int tid = tr->tid;
        *status = tr->status;
        if (tr->thread) {
            *cld = CLD_TRAPPED;
            *si_status = tr->status >> 8 & 0xFF;
        } else {
            *cld = (tr->status & 0x7F) == 0 ? CLD_EXITED :
                   (tr->status & 0x80) ? CLD_DUMPED : CLD_KILLED;
            *si_status = *cld == CLD_EXITED ? tr->status >> 8 : tr->status & 0x7F;
        }
        if (!nowait) {
            tr->reported = false;
            if (!tr->thread)
                unlink_tracee(tr);
        }
        return tid;
    }
    return 0;
}

int ptrace_tracer_pid(const struct thread *t)
{
    return t && t->trace ? process_pid(t->trace->tracer) : 0;
}

bool ptrace_stopped(const struct thread *t)
{
    return t && t->trace && t->trace->stopped;
}

/* --- registers: Linux's user_regs_struct over lx's held register set ------------------- */

enum { U_R15, U_R14, U_R13, U_R12, U_RBP, U_RBX, U_R11, U_R10, U_R9, U_R8, U_RAX, U_RCX,
       U_RDX, U_RSI, U_RDI, U_ORIG_RAX, U_RIP, U_CS, U_EFLAGS, U_RSP, U_SS, U_FS_BASE,
       U_GS_BASE, U_DS, U_ES, U_FS, U_GS, U_NREGS };
#define USER_REGS_SIZE  (U_NREGS * 8)
#define USER_DEBUGREG   848             /* offsetof(struct user, u_debugreg) */
#define USER_SIZE       928             /* sizeof(struct user) */

/* The L4 register (L4_FREG_*) behind each user_regs_struct slot (0: none). */
static const unsigned char freg_of[U_NREGS] = {
    [U_R15] = L4_FREG_R15, [U_R14] = L4_FREG_R14, [U_R13] = L4_FREG_R13,
    [U_R12] = L4_FREG_R12, [U_RBP] = L4_FREG_RBP, [U_RBX] = L4_FREG_RBX,
    [U_R11] = L4_FREG_R11, [U_R10] = L4_FREG_R10, [U_R9] = L4_FREG_R9, [U_R8] = L4_FREG_R8,
    [U_RAX] = L4_FREG_RAX, [U_RCX] = L4_FREG_RCX, [U_RDX] = L4_FREG_RDX,
    [U_RSI] = L4_FREG_RSI, [U_RDI] = L4_FREG_RDI, [U_RIP] = L4_FREG_RIP,
    [U_EFLAGS] = L4_FREG_RFLAGS, [U_RSP] = L4_FREG_RSP, [U_FS_BASE] = L4_FREG_FS_BASE,
    [U_GS_BASE] = L4_FREG_GS_BASE,
};

static l4_word_t get_reg(const struct thread *t, unsigned i)
{
    switch (i) {
    case U_ORIG_RAX: return (l4_word_t)t->trace->orig_rax;
    case U_CS: return 0x33;             /* Linux's __USER_CS and __USER_DS */
    case U_SS: return 0x2b;
    case U_DS: case U_ES: case U_FS: case U_GS: return 0;
    default: return t->sig.hold_regs[freg_of[i] - 1];
    }
}

/* Linux's invalid_selector: not null and not of privilege level 3. */
static bool bad_selector(l4_word_t v)
{
    return v > 0xFFFF || (v && (v & 3) != 3);
}

/* A register write, checked as Linux's putreg: segments must stay the user's, RFLAGS only
 * in its user bits; 0 or -EIO. */
#define FLAG_MASK 0x0000000000254dd5ul  /* CF PF AF ZF SF TF DF OF NT RF AC ID */
static int put_reg(struct thread *t, unsigned i, l4_word_t v)
{
    switch (i) {
    case U_ORIG_RAX: t->trace->orig_rax = (long)v; return 0;
    case U_CS: case U_SS:           /* accepted, as Linux, but lx keeps the user's own */
        return v == 0 || bad_selector(v) ? -EIO : 0;
    case U_DS: case U_ES: case U_FS: case U_GS:
        return bad_selector(v) ? -EIO : 0;
    case U_FS_BASE: case U_GS_BASE:
        if (v >= LX_USER_END)
            return -EIO;
        break;
    case U_EFLAGS: {
        l4_word_t *f = &t->sig.hold_regs[L4_FREG_RFLAGS - 1];
        *f = (*f & ~FLAG_MASK) | (v & FLAG_MASK);
        return 0;
    }
    default: break;
    }
    t->sig.hold_regs[freg_of[i] - 1] = v;
    return 0;
}

/* --- memory: lx's view of the tracee's, with the rights ptrace forces -------------------- */

/* One word at addr of t's memory, read or (write) written; a write into a private page it
 * may not write gives the tracee its own copy (FOLL_FORCE's copy-on-write).  0 or -EIO. */
static int access_word(struct mm *mm, l4_word_t addr, l4_word_t *w, bool write)
{
    uint8_t *b = (uint8_t *)w;
    for (unsigned k = 0; k < sizeof *w; k++) {   /* a word may span two pages */
        l4_word_t at = addr + k;
        struct region *r = at >= LX_MMAP_MIN && at < LX_USER_END ? mm_find(mm, at) : NULL;
        if (!r || r->native_window || mm_past_eof(r, at) ||
            (write && r->shared && !(r->prot & PROT_WRITE)))
            return -EIO;
        char *page = write ? mm_page_write(mm, r, at, true, NULL) : mm_page(mm, r, at, NULL);
        if (!page)
            return -EIO;
        char *p = page + (at & ~LX_PAGE_MASK);
        if (write)
            *p = (char)b[k];
        else
            b[k] = (uint8_t)*p;
    }
    return 0;
}

/* --- the requests ----------------------------------------------------------------------- */

static struct thread *thread_by_tid(int nr)
{
    struct pid *id = nr > 0 ? pid_find(nr) : NULL;
    struct thread *t = id ? id->thread : NULL;
    return t && !t->exited && t->proc->state == PROCESS_LIVE ? t : NULL;
}

static long attach(struct thread *t, struct thread *c, bool seize, l4_word_t addr,
                   l4_word_t data)
{
    if (seize && (addr || (data & ~(l4_word_t)PTRACE_O_MASK)))
        return -EIO;
    if (c->proc == t->proc || c->trace || !ptrace_may_access(t, c->proc))
        return -EPERM;
    if (!link_tracee(c, t->proc, seize, seize ? (unsigned)data : 0,
                     cred_capable(&t->proc->cred, CAP_SYS_PTRACE)))
        return -ENOMEM;
    if (!seize) {
        struct k_siginfo info = { .code = SI_KERNEL };
        signal_send(c->proc, SIGSTOP, &info);
    }
    return 0;
}

static long traceme(struct thread *t)
{
    struct process *parent = t->proc->parent;
    if (t->trace || !parent || parent->state != PROCESS_LIVE)
        return -EPERM;
    bool cap = cred_capable(&t->proc->cred, CAP_SYS_PTRACE);
    return link_tracee(t, parent, false, 0, cap) ? 0 : -ENOMEM;
}

static bool valid_sig(l4_word_t data)
{
    return data <= 64;
}

static long peekuser(struct thread *c, l4_word_t addr, l4_word_t *v)
{
    if ((addr & 7) || addr >= USER_SIZE)
        return -EIO;
    *v = addr < USER_REGS_SIZE ? get_reg(c, addr / 8) : 0;   /* debug registers: none set */
    return 0;
}

static long pokeuser(struct thread *c, l4_word_t addr, l4_word_t v)
{
    if ((addr & 7) || addr >= USER_SIZE)
        return -EIO;
    if (addr < USER_REGS_SIZE)
        return put_reg(c, addr / 8, v);
    if (addr >= USER_DEBUGREG && addr < USER_DEBUGREG + 64)
        return v ? -EIO : 0;        /* no hardware breakpoints (docs/linux/ptrace.md) */
    return 0;
}

static long getregs(struct thread *t, struct thread *c, l4_word_t dst, size_t max)
{
    l4_word_t u[U_NREGS];
    for (unsigned i = 0; i < U_NREGS; i++)
        u[i] = get_reg(c, i);
    size_t n = max < sizeof u ? max : sizeof u;
    return copy_to_user(t->mm, dst, u, n) ? -EFAULT : (long)n;
}

static long setregs(struct thread *t, struct thread *c, l4_word_t src, size_t n)
{
    l4_word_t u[U_NREGS];
    if (n > sizeof u)
        n = sizeof u;
    for (unsigned i = 0; i < U_NREGS; i++)
        u[i] = get_reg(c, i);
    if (copy_from_user(t->mm, u, src, n))
        return -EFAULT;
    for (unsigned i = 0; i < U_NREGS; i++)      /* all checked before any is set */
        if (((i == U_CS || i == U_SS) && !u[i]) ||
            ((i >= U_DS || i == U_CS || i == U_SS) && bad_selector(u[i])) ||
            ((i == U_FS_BASE || i == U_GS_BASE) && u[i] >= LX_USER_END))
            return -EIO;
    for (unsigned i = 0; i < U_NREGS; i++)
        put_reg(c, i, u[i]);
    return 0;
}

/* GETREGSET/SETREGSET: the iovec at iovp names the buffer; NT_PRSTATUS only. */
static long regset(struct thread *t, struct thread *c, l4_word_t type, l4_word_t iovp,
                   bool set)
{
    l4_word_t iov[2];
    if (copy_from_user(t->mm, iov, iovp, sizeof iov))
        return -EFAULT;
    if (type != NT_PRSTATUS)
        return -EINVAL;
    if (set) {
        if (iov[1] < USER_REGS_SIZE)
            return -EINVAL;         /* Linux: a partial NT_PRSTATUS is refused */
        long e = setregs(t, c, iov[0], USER_REGS_SIZE);
        if (e)
            return e;
        iov[1] = USER_REGS_SIZE;
    } else {
        long n = getregs(t, c, iov[0], iov[1]);
        if (n < 0)
            return n;
        iov[1] = (l4_word_t)n;
    }
    return copy_to_user(t->mm, iovp + 8, &iov[1], 8) ? -EFAULT : 0;
}

/* The siginfo of the stop, as the 128 bytes of a siginfo_t. */
static long getsiginfo(struct thread *t, struct tracee *tr, l4_word_t dst)
{
    uint8_t si[128];
    if (!tr->stop_sig)
        return -EINVAL;             /* not a signal-delivery-stop */
    sigframe_siginfo(tr->stop_sig, &tr->info, si);
    return copy_to_user(t->mm, dst, si, sizeof si) ? -EFAULT : 0;
}

long sys_ptrace(struct thread *t, const struct sysargs *a)
{
    long req = (long)a->a[0];
    l4_word_t addr = a->a[2], data = a->a[3];
    if (req == PTRACE_TRACEME)
        return traceme(t);
    struct thread *c = thread_by_tid((int)a->a[1]);
    if (!c)
        return -ESRCH;
    if (req == PTRACE_ATTACH || req == PTRACE_SEIZE)
        return attach(t, c, req == PTRACE_SEIZE, addr, data);
    struct tracee *tr = c->trace;
    if (!tr || tr->tracer != t->proc)
        return -ESRCH;
    if (req == PTRACE_KILL) {
        struct k_siginfo info = { .code = SI_KERNEL };
        signal_send_thread(c, SIGKILL, &info);
        return 0;
    }
    if (!tr->stopped)
        return -ESRCH;              /* every other request needs the tracee stopped */
    l4_word_t v;
    long e;
    switch (req) {
    case PTRACE_PEEKTEXT: case PTRACE_PEEKDATA:
        if ((e = access_word(c->mm, addr, &v, false)))
            return e;
        return copy_to_user(t->mm, data, &v, sizeof v) ? -EFAULT : 0;
    case PTRACE_POKETEXT: case PTRACE_POKEDATA:
        return access_word(c->mm, addr, &data, true);
    case PTRACE_PEEKUSER:
        if ((e = peekuser(c, addr, &v)))
            return e;
        return copy_to_user(t->mm, data, &v, sizeof v) ? -EFAULT : 0;
    case PTRACE_POKEUSER:
        return pokeuser(c, addr, data);
    case PTRACE_GETREGS:
        e = getregs(t, c, data, USER_REGS_SIZE);
        return e < 0 ? e : 0;
    case PTRACE_SETREGS:
        return setregs(t, c, data, USER_REGS_SIZE);
    case PTRACE_GETREGSET: case PTRACE_SETREGSET:
        return regset(t, c, addr, data, req == PTRACE_SETREGSET);
    case PTRACE_GETSIGINFO:
        return getsiginfo(t, tr, data);
    case PTRACE_SETOPTIONS:
        if (data & ~(l4_word_t)PTRACE_O_MASK)
            return -EINVAL;
        tr->options = (unsigned)data;
        return 0;
    case PTRACE_GETEVENTMSG:
        return copy_to_user(t->mm, data, &tr->eventmsg, sizeof tr->eventmsg) ? -EFAULT : 0;
    case PTRACE_CONT:
        if (!valid_sig(data))
            return -EIO;
        resume(tr, (int)data, false);
        return 0;
    case PTRACE_SYSCALL:
        if (!valid_sig(data))
            return -EIO;
        resume(tr, (int)data, true);
        return 0;
    case PTRACE_DETACH:
        if (!valid_sig(data))
            return -EIO;
        detach(tr, (int)data);
        return 0;
    default:
        return -EIO;                /* SINGLESTEP, GETFPREGS, LISTEN ...: not built */
    }
}
