/* fork, vfork and clone with fork flags: a new process whose memory model is a
 * copy-on-write copy of the parent's (mm_fork) and which starts with the parent's
 * registers, RAX = 0.
 *
 * The system-call message lacks most registers, so the call is answered with GET_REGS: the
 * parent's thread sends them as a message of its own (lx does not wait for it; it comes
 * through the receive loop like any other, fork_regs).  The child is then created through
 * the root task with a pending interrupt (ExchangeRegisters bits 17/18) and sent a start
 * message at the parent's RIP and RSP; before its first instruction it reports the
 * interrupt, and the reply to that (fork_child_start) sets every register at once, FS base
 * included (docs/linux-abi.md §§4-7).
 *
 * vfork shares no memory here: the child has a copy, as after fork, and the parent's call
 * is parked until the child execs or ends, which is all vfork promises its caller. */
#include "task/clone.h"
#include "lib/errno.h"
#include "mm/usercopy.h"
#include "signal/signal.h"
#include "signal/sigpage.h"
#include "syscalls/handlers.h"
#include "task/exec.h"
#include "task/process.h"
#include "fs/proc/proc.h"
#include "vfs/file.h"
#include <stdio.h>
#include <string.h>

#define CSIGNAL              0x000000ff
#define CLONE_VM             0x00000100
#define CLONE_VFORK          0x00004000
#define CLONE_SETTLS         0x00080000
#define CLONE_PARENT_SETTID  0x00100000
#define CLONE_CHILD_CLEARTID 0x00200000
#define CLONE_CHILD_SETTID   0x01000000
#define CLONE_FORK_FLAGS (CSIGNAL | CLONE_VM | CLONE_VFORK | CLONE_SETTLS | CLONE_PARENT_SETTID | \
                          CLONE_CHILD_CLEARTID | CLONE_CHILD_SETTID)

/* Ask for the parent's registers; the rest happens when they arrive. */
static long fork_begin(struct task *t, l4_word_t flags, l4_word_t stack, l4_word_t ptid,
                       l4_word_t ctid, l4_word_t tls)
{
    if (flags & ~(l4_word_t)CLONE_FORK_FLAGS)
        return -EINVAL;             /* threads, shared files and the like: not yet */
    if ((flags & CLONE_VM) && !(flags & CLONE_VFORK))
        return -EINVAL;             /* a thread: not yet */
    if ((flags & CLONE_SETTLS) && tls >= LX_USER_END)
        return -EPERM;
    t->park = PARK_FORK_REGS;
    t->park_args[0] = flags;
    t->park_args[1] = stack;
    t->park_args[2] = ptid;
    t->park_args[3] = ctid;
    t->park_args[4] = tls;
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_GET_REGS, 0, 0));
    return LX_REPLIED;
}

long sys_fork(struct task *t, const struct sysargs *a)
{
    (void)a;
    return fork_begin(t, SIGCHLD, 0, 0, 0, 0);
}

long sys_vfork(struct task *t, const struct sysargs *a)
{
    (void)a;
    return fork_begin(t, CLONE_VM | CLONE_VFORK | SIGCHLD, 0, 0, 0, 0);
}

/* clone(flags, stack, parent_tid, child_tid, tls): the x86-64 argument order. */
long sys_clone(struct task *t, const struct sysargs *a)
{
    return fork_begin(t, a->a[0], a->a[1], a->a[2], a->a[3], a->a[4]);
}

/* Undo a child that never ran. */
static void fork_abort(struct task *c)
{
    l4_word_t err;
    if (c->state == TASK_RUNNING)
        l4_root_call(ROOT_TASK_DELETE, c->tid, 0, 0, 0, &err);
    vfs_task_exit(c);
    mm_destroy(&c->mm);
    task_drop_exe(c);
    task_free(c);
}

/* The parent's registers as its fork call returns them: the ones it had (it went through
 * the signal page since), RAX = value, RCX and R11 as `syscall` leaves them. */
static void parent_regs(struct task *p, long value)
{
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_SET_REGS, L4_FREG_WORDS, 0));
    for (unsigned i = 0; i < L4_FREG_WORDS; i++)
        l4_set_mr(L4_FREG_RIP + i, p->fork_saved[i]);
    l4_set_mr(L4_FREG_RAX, (l4_word_t)value);
    l4_set_mr(L4_FREG_RCX, p->fork_saved[L4_FREG_RIP - 1]);
    l4_set_mr(L4_FREG_R11, p->fork_saved[L4_FREG_RFLAGS - 1]);
}

static bool reply_now(struct task *parent, long value)
{
    parent->park = PARK_NONE;
    parent_regs(parent, value);
    return true;
}

/* The parent's registers arrived: it saves its FPU state through the signal page first
 * (below its stack's red zone, 64-byte aligned), then calls LX_SYS_FORK_FPU: lx cannot read
 * the FPU registers, and the child must start with its parent's (fork_fpu_saved). */
bool fork_regs(struct task *p)
{
    for (unsigned i = 0; i < L4_FREG_WORDS; i++)
        p->fork_saved[i] = l4_mr(L4_FREG_RIP + i);     /* before any IPC overwrites them */
    l4_word_t rsp = p->fork_saved[L4_FREG_RSP - 1], rip = p->fork_saved[L4_FREG_RIP - 1];
    p->fork_area = (rsp - 128 - 512) & ~63ul;
    /* The words the child's way back needs (signal/sigpage.c: RSP from area + 464, RIP 136 bytes
     * below its RSP), written now into the parent's memory: the child inherits them, so it
     * only reads those pages (no copies for it).  If they cannot be written, the child
     * starts with the initial FPU state (fork_area 0). */
    l4_word_t crsp = p->park_args[1] ? p->park_args[1] : rsp, back = crsp - 136;
    if (copy_to_user(&p->mm, back, &rip, sizeof rip) ||
        copy_to_user(&p->mm, p->fork_area + 464, &back, sizeof back))
        p->fork_area = 0;
    p->park = PARK_FORK_FPU;
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_SET_REGS, L4_FREG_WORDS, 0));
    for (unsigned i = 0; i < L4_FREG_WORDS; i++)
        l4_set_mr(L4_FREG_RIP + i, p->fork_saved[i]);
    l4_set_mr(L4_FREG_RIP, sigpage_fork());
    l4_set_mr(L4_FREG_RSP, p->fork_area ? p->fork_area : (rsp - 128 - 512) & ~63ul);
    return true;
}

bool fork_fpu_saved(struct task *p)
{
    l4_word_t regs[L4_FREG_WORDS];
    memcpy(regs, p->fork_saved, sizeof regs);
    l4_word_t flags = p->park_args[0];

    struct task *c = task_alloc();
    if (!c)
        return reply_now(p, -EAGAIN);
    int e = mm_fork(&c->mm, &p->mm);
    if (e) {
        task_free(c);
        return reply_now(p, e);
    }
    memcpy(c->rlim, p->rlim, sizeof c->rlim);
    if (!task_copy_exe(c, p) || !vfs_task_fork(c, p, false, false)) {  /* fd table, cwd */
        task_drop_exe(c);
        mm_destroy(&c->mm);
        task_free(c);
        return reply_now(p, -ENOMEM);
    }
    e = task_create_thread(c);
    if (e) {
        fork_abort(c);
        return reply_now(p, e);
    }
    proc_task_fork(c, p);           /* its cmdline (fs/proc/info.c) */
    c->ppid = p->pid;
    signal_fork(c, p);              /* actions, mask, alternate stack; nothing pending */
    c->pgid = p->pgid;
    c->sid = p->sid;
    memcpy(c->comm, p->comm, sizeof c->comm);
    c->exit_signal = (int)(flags & CSIGNAL);
    if (flags & CLONE_CHILD_CLEARTID)
        c->clear_child_tid = p->park_args[3];

    /* The child's registers: the parent's as `syscall` returns them (RCX = RIP, R11 =
     * RFLAGS), RAX = 0; clone may give it a stack and a TLS base. */
    memcpy(c->regs, regs, sizeof regs);
    c->regs[L4_FREG_RAX - 1] = 0;
    c->regs[L4_FREG_RCX - 1] = regs[L4_FREG_RIP - 1];
    c->regs[L4_FREG_R11 - 1] = regs[L4_FREG_RFLAGS - 1];
    if (p->park_args[1])
        c->regs[L4_FREG_RSP - 1] = p->park_args[1];
    if (flags & CLONE_SETTLS)
        c->regs[L4_FREG_FS_BASE - 1] = p->park_args[4];
    /* It starts on the signal page's return path: fxrstor of the parent's saved state (its
     * copy of the area), then RSP and RIP from the words fork_regs left (signal/sigpage.c). */
    if (p->fork_area) {
        c->regs[L4_FREG_RSP - 1] = p->fork_area;
        c->regs[L4_FREG_RIP - 1] = sigpage_return();
    }
    c->park = PARK_START;

    int pid = c->pid;
    if (flags & CLONE_CHILD_SETTID)
        copy_to_user(&c->mm, p->park_args[3], &pid, sizeof pid);    /* Linux ignores faults */
    if (flags & CLONE_PARENT_SETTID)
        copy_to_user(&p->mm, p->park_args[2], &pid, sizeof pid);

    /* A pending interrupt first, then the start message: the child reports the interrupt
     * before its first instruction and gets its registers in the reply. */
    if (l4_exchange_registers(c->tid, L4_EXREGS_APPLY_INTERRUPT | L4_EXREGS_INTERRUPT, 0, 0, 0,
                              0, L4_NILTHREAD, NULL) == L4_NILTHREAD) {
        printf("lx: pid %d: cannot interrupt the new child\n", p->pid);
        fork_abort(c);
        return reply_now(p, -EAGAIN);
    }
    l4_set_mr(0, l4_tag_make(0, 2, 0));
    l4_set_mr(1, regs[L4_FREG_RIP - 1]);
    l4_set_mr(2, c->regs[L4_FREG_RSP - 1]);
    if (l4_ipc_failed(l4_reply(c->tid))) {
        printf("lx: pid %d: cannot start the new child\n", p->pid);
        fork_abort(c);
        return reply_now(p, -EAGAIN);
    }
    if (flags & CLONE_VFORK) {
        p->park = PARK_VFORK;       /* answered by fork_vfork_done */
        p->park_pid = pid;
        return false;
    }
    return reply_now(p, pid);
}

void fork_child_start(struct task *c)
{
    c->park = PARK_NONE;
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_SET_REGS, L4_FREG_WORDS, 0));
    for (unsigned i = 0; i < L4_FREG_WORDS; i++)
        l4_set_mr(L4_FREG_RIP + i, c->regs[i]);
}

void fork_vfork_done(struct task *c)
{
    struct task *p = c->ppid ? task_by_pid(c->ppid) : NULL;
    if (!p || p->state != TASK_RUNNING || p->park != PARK_VFORK || p->park_pid != c->pid)
        return;
    p->park = PARK_NONE;
    parent_regs(p, c->pid);         /* it went through the signal page: all its registers */
    if (l4_ipc_failed(l4_reply(p->tid)))
        printf("lx: pid %d: cannot answer its vfork\n", p->pid);
}
