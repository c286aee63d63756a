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
 * is parked until the child execs or ends, which is all vfork promises its caller.
 *
 * The child's open files and working directory are the parent's (CLONE_FILES, CLONE_FS:
 * the same objects, by reference count) or copies; its actions are copies.  The steps'
 * state is the parent's park.u.fork and the child's park.u.start (park/park.h). */
#include "task/clone.h"
#include "lib/errno.h"
#include "mm/mm.h"
#include "mm/usercopy.h"
#include "signal/signal.h"
#include "signal/sigpage.h"
#include "syscalls/handlers.h"
#include "task/exec.h"
#include "task/process.h"
#include "vfs/file.h"
#include "vfs/vfs.h"
#include <stdio.h>
#include <string.h>

#define CSIGNAL              0x000000ff
#define CLONE_VM             0x00000100
#define CLONE_FS             0x00000200
#define CLONE_FILES          0x00000400
#define CLONE_VFORK          0x00004000
#define CLONE_SETTLS         0x00080000
#define CLONE_PARENT_SETTID  0x00100000
#define CLONE_CHILD_CLEARTID 0x00200000
#define CLONE_CHILD_SETTID   0x01000000
#define CLONE_FORK_FLAGS (CSIGNAL | CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_VFORK |         \
                          CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID |          \
                          CLONE_CHILD_SETTID)

/* Ask for the parent's registers; the rest happens when they arrive. */
static long fork_begin(struct thread *t, l4_word_t flags, l4_word_t stack, l4_word_t ptid,
                       l4_word_t ctid, l4_word_t tls)
{
    if (flags & ~(l4_word_t)CLONE_FORK_FLAGS)
        return -EINVAL;             /* threads, shared actions and the like: not yet */
    if ((flags & CLONE_VM) && !(flags & CLONE_VFORK))
        return -EINVAL;             /* a thread: not yet */
    if ((flags & CLONE_SETTLS) && tls >= LX_USER_END)
        return -EPERM;
    struct park_fork *f = &t->park.u.fork;
    t->park.kind = PARK_FORK_REGS;
    t->park.use = PARK_USE_FORK;
    *f = (struct park_fork){ .flags = flags, .stack = stack, .ptid = ptid, .ctid = ctid,
                             .tls = tls };
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_GET_REGS, 0, 0));
    return LX_REPLIED;
}

long sys_fork(struct thread *t, const struct sysargs *a)
{
    (void)a;
    return fork_begin(t, SIGCHLD, 0, 0, 0, 0);
}

long sys_vfork(struct thread *t, const struct sysargs *a)
{
    (void)a;
    return fork_begin(t, CLONE_VM | CLONE_VFORK | SIGCHLD, 0, 0, 0, 0);
}

/* clone(flags, stack, parent_tid, child_tid, tls): the x86-64 argument order. */
long sys_clone(struct thread *t, const struct sysargs *a)
{
    return fork_begin(t, a->a[0], a->a[1], a->a[2], a->a[3], a->a[4]);
}

/* The parent's registers as its fork call returns them: the ones it had (it went through
 * the signal page since), RAX = value, RCX and R11 as `syscall` leaves them. */
static void parent_regs(struct thread *p, long value)
{
    const l4_word_t *saved = p->park.u.fork.saved;
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_SET_REGS, L4_FREG_WORDS, 0));
    for (unsigned i = 0; i < L4_FREG_WORDS; i++)
        l4_set_mr(L4_FREG_RIP + i, saved[i]);
    l4_set_mr(L4_FREG_RAX, (l4_word_t)value);
    l4_set_mr(L4_FREG_RCX, saved[L4_FREG_RIP - 1]);
    l4_set_mr(L4_FREG_R11, saved[L4_FREG_RFLAGS - 1]);
}

static bool reply_now(struct thread *parent, long value)
{
    parent->park.kind = PARK_NONE;
    parent_regs(parent, value);
    return true;
}

/* The parent's registers arrived: it saves its FPU state through the signal page first
 * (below its stack's red zone, 64-byte aligned), then calls LX_SYS_FORK_FPU: lx cannot read
 * the FPU registers, and the child must start with its parent's (fork_fpu_saved). */
bool fork_regs(struct thread *p)
{
    struct park_fork *f = &p->park.u.fork;
    for (unsigned i = 0; i < L4_FREG_WORDS; i++)
        f->saved[i] = l4_mr(L4_FREG_RIP + i);      /* before any IPC overwrites them */
    l4_word_t rsp = f->saved[L4_FREG_RSP - 1], rip = f->saved[L4_FREG_RIP - 1];
    f->area = (rsp - 128 - 512) & ~63ul;
    /* The words the child's way back needs (signal/sigpage.c: RSP from area + 464, RIP 136
     * bytes below its RSP), written now into the parent's memory: the child inherits them,
     * so it only reads those pages (no copies for it).  If they cannot be written, the child
     * starts with the initial FPU state (area 0). */
    l4_word_t crsp = f->stack ? f->stack : rsp, back = crsp - 136;
    if (copy_to_user(p->mm, back, &rip, sizeof rip) ||
        copy_to_user(p->mm, f->area + 464, &back, sizeof back))
        f->area = 0;
    p->park.kind = PARK_FORK_FPU;
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_SET_REGS, L4_FREG_WORDS, 0));
    for (unsigned i = 0; i < L4_FREG_WORDS; i++)
        l4_set_mr(L4_FREG_RIP + i, f->saved[i]);
    l4_set_mr(L4_FREG_RIP, sigpage_fork());
    l4_set_mr(L4_FREG_RSP, f->area ? f->area : (rsp - 128 - 512) & ~63ul);
    return true;
}

/* Undo a child that never ran: the one teardown path (task/exit.c). */
static bool fork_fail(struct thread *p, struct process *child, long err)
{
    process_release(child);
    process_free(child);
    return reply_now(p, err);
}

bool fork_fpu_saved(struct thread *p)
{
    struct park_fork *f = &p->park.u.fork;
    l4_word_t flags = f->flags;
    int e;
    struct process *cp = process_new(&e);
    if (!cp)
        return reply_now(p, e);
    struct thread *c = process_thread(cp);
    /* Its place: the parent's child, in its group and session (before anything can fail,
     * so that the teardown finds it whole). */
    process_attach(cp, p->proc, p->proc->pgrp, p->proc->session);
    if (!(c->mm = mm_copy(p->mm, &e)))
        return fork_fail(p, cp, e);
    memcpy(cp->rlim, p->proc->rlim, sizeof cp->rlim);
    if (!task_copy_exe(cp, p->proc) ||
        !vfs_task_fork(c, p, flags & CLONE_FILES, flags & CLONE_FS) ||
        !signal_fork(c, p, false))  /* actions, mask, alternate stack; nothing pending */
        return fork_fail(p, cp, -ENOMEM);
    if ((e = process_create_task(cp)))
        return fork_fail(p, cp, e);
    memcpy(c->comm, p->comm, sizeof c->comm);
    cp->exit_signal = (int)(flags & CSIGNAL);
    if (flags & CLONE_CHILD_CLEARTID)
        c->clear_child_tid = f->ctid;

    /* The child's registers: the parent's as `syscall` returns them (RCX = RIP, R11 =
     * RFLAGS), RAX = 0; clone may give it a stack and a TLS base. */
    l4_word_t *regs = c->park.u.start.regs;
    memcpy(regs, f->saved, sizeof f->saved);
    regs[L4_FREG_RAX - 1] = 0;
    regs[L4_FREG_RCX - 1] = f->saved[L4_FREG_RIP - 1];
    regs[L4_FREG_R11 - 1] = f->saved[L4_FREG_RFLAGS - 1];
    if (f->stack)
        regs[L4_FREG_RSP - 1] = f->stack;
    if (flags & CLONE_SETTLS)
        regs[L4_FREG_FS_BASE - 1] = f->tls;
    /* It starts on the signal page's return path: fxrstor of the parent's saved state (its
     * copy of the area), then RSP and RIP from the words fork_regs left (signal/sigpage.c). */
    if (f->area) {
        regs[L4_FREG_RSP - 1] = f->area;
        regs[L4_FREG_RIP - 1] = sigpage_return();
    }
    c->park.kind = PARK_START;
    c->park.use = PARK_USE_START;

    int pid = process_pid(cp);
    if (flags & CLONE_CHILD_SETTID)
        copy_to_user(c->mm, f->ctid, &pid, sizeof pid);    /* Linux ignores faults */
    if (flags & CLONE_PARENT_SETTID)
        copy_to_user(p->mm, f->ptid, &pid, sizeof pid);

    /* A pending interrupt first, then the start message: the child reports the interrupt
     * before its first instruction and gets its registers in the reply. */
    if (l4_exchange_registers(c->l4, L4_EXREGS_APPLY_INTERRUPT | L4_EXREGS_INTERRUPT, 0, 0, 0,
                              0, L4_NILTHREAD, NULL) == L4_NILTHREAD) {
        printf("lx: pid %d: cannot interrupt the new child\n", thread_pid(p));
        return fork_fail(p, cp, -EAGAIN);
    }
    l4_set_mr(0, l4_tag_make(0, 2, 0));
    l4_set_mr(1, f->saved[L4_FREG_RIP - 1]);
    l4_set_mr(2, regs[L4_FREG_RSP - 1]);
    if (l4_ipc_failed(l4_reply(c->l4))) {
        printf("lx: pid %d: cannot start the new child\n", thread_pid(p));
        return fork_fail(p, cp, -EAGAIN);
    }
    if (flags & CLONE_VFORK) {
        p->park.kind = PARK_VFORK;  /* answered by fork_vfork_done */
        f->child = pid;
        return false;
    }
    return reply_now(p, pid);
}

void fork_child_start(struct thread *c)
{
    c->park.kind = PARK_NONE;
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_SET_REGS, L4_FREG_WORDS, 0));
    for (unsigned i = 0; i < L4_FREG_WORDS; i++)
        l4_set_mr(L4_FREG_RIP + i, c->park.u.start.regs[i]);
}

void fork_vfork_done(struct process *c)
{
    struct process *pp = c->parent;
    struct thread *p;
    if (!pp || pp->state != PROCESS_LIVE)
        return;
    list_each(p, &pp->threads, proc_link)
        if (p->park.kind == PARK_VFORK && p->park.u.fork.child == process_pid(c)) {
            p->park.kind = PARK_NONE;
            parent_regs(p, process_pid(c)); /* it went through the signal page: all of them */
            if (l4_ipc_failed(l4_reply(p->l4)))
                printf("lx: pid %d: cannot answer its vfork\n", thread_pid(p));
            return;
        }
}
