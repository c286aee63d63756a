/* fork, vfork and clone: a new process, whose memory model is a copy-on-write copy of the
 * parent's (mm_copy) or the parent's own (CLONE_VM: vfork, posix_spawn), or a new thread of
 * the caller's process (CLONE_THREAD: an L4 thread of the process's task); either starts with
 * the parent's registers, RAX = 0 (docs/linux/threads.md).
 *
 * The system-call message lacks most registers, so the call is answered with GET_REGS: the
 * parent's thread sends them as a message of its own (lx does not wait for it; it comes
 * through the receive loop like any other, fork_regs).  The child is then created through
 * the root task with a pending interrupt (ExchangeRegisters bits 17/18) and sent a start
 * message at the parent's RIP and RSP; before its first instruction it reports the
 * interrupt, and the reply to that (fork_child_start) sets every register at once, FS base
 * included (docs/linux-abi.md §§4-7).  A new process also gets its parent's FPU state,
 * saved through the signal page into the parent's stack first (its copy of that memory is
 * the parent's as it was); a new thread shares that memory with a parent that runs on, so
 * it starts with the initial FPU state instead.
 *
 * vfork shares the parent's memory model (one struct mm, two L4 spaces: lx maps its pages
 * into both, and an Unmap of lx's page reaches both), and the parent's call is parked until
 * the child execs (with a task of its own: the old one still maps the parent's pages) or ends.
 *
 * The child's open files and working directory are the parent's (CLONE_FILES, CLONE_FS:
 * the same objects, by reference count) or copies; its actions are the parent's
 * (CLONE_SIGHAND) or copies.  The steps' state is the parent's park.u.fork and the child's
 * park.u.start (park/park.h). */
#include "task/clone.h"
#include "lib/errno.h"
#include "mm/mm.h"
#include "mm/usercopy.h"
#include "signal/signal.h"
#include "signal/sigpage.h"
#include "syscalls/handlers.h"
#include "syscalls/handlers_more.h"
#include "syscalls/handlers_rest.h"
#include "task/exec.h"
#include "task/process.h"
#include "task/ptrace.h"
#include "vfs/file.h"
#include "vfs/vfs.h"
#include <stdio.h>
#include <string.h>

#define CSIGNAL              0x000000ff
#define CLONE_VM             0x00000100
#define CLONE_FS             0x00000200
#define CLONE_FILES          0x00000400
#define CLONE_SIGHAND        0x00000800
#define CLONE_PIDFD          0x00001000
#define CLONE_PTRACE         0x00002000
#define CLONE_VFORK          0x00004000
#define CLONE_PARENT         0x00008000
#define CLONE_THREAD         0x00010000
#define CLONE_NEWNS          0x00020000
#define CLONE_SYSVSEM        0x00040000
#define CLONE_SETTLS         0x00080000
#define CLONE_PARENT_SETTID  0x00100000
#define CLONE_CHILD_CLEARTID 0x00200000
#define CLONE_DETACHED       0x00400000
#define CLONE_UNTRACED       0x00800000
#define CLONE_CHILD_SETTID   0x01000000
#define CLONE_NEWUSER        0x10000000
#define CLONE_NEWPID         0x20000000
#define CLONE_IO             0x80000000ul
#define CLONE_CLEAR_SIGHAND  0x100000000ul
#define CLONE_INTO_CGROUP    0x200000000ul
/* What lx does (the rest of the namespace flags: EINVAL, as a kernel built without them). */
#define CLONE_DONE (CSIGNAL | CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_PTRACE |  \
                    CLONE_VFORK | CLONE_PARENT | CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS |    \
                    CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID | CLONE_DETACHED |               \
                    CLONE_UNTRACED | CLONE_CHILD_SETTID | CLONE_IO | CLONE_CLEAR_SIGHAND |          \
                    CLONE_PIDFD)

/* Linux 6.1's copy_process checks, in its order. */
static long clone_flags_valid(const struct thread *t, l4_word_t flags)
{
    if ((flags & (CLONE_NEWNS | CLONE_FS)) == (CLONE_NEWNS | CLONE_FS) ||
        (flags & (CLONE_NEWUSER | CLONE_FS)) == (CLONE_NEWUSER | CLONE_FS))
        return -EINVAL;
    if ((flags & CLONE_THREAD) && !(flags & CLONE_SIGHAND))
        return -EINVAL;
    if ((flags & CLONE_SIGHAND) && !(flags & CLONE_VM))
        return -EINVAL;
    if ((flags & CLONE_PARENT) && thread_pid(t) == 1)
        return -EINVAL;             /* init's siblings would have no reaper */
    if ((flags & CLONE_THREAD) && (flags & (CLONE_NEWUSER | CLONE_NEWPID)))
        return -EINVAL;
    if ((flags & CLONE_PIDFD) && (flags & (CLONE_DETACHED | CLONE_THREAD)))
        return -EINVAL;
    if (flags & ~(l4_word_t)CLONE_DONE)
        return -EINVAL;             /* namespaces: not in lx */
    return 0;
}

/* Ask for the parent's registers; the rest happens when they arrive (f: clone's arguments,
 * checked here; the rest of park.u.fork is filled in later). */
static long fork_begin(struct thread *t, const struct park_fork *args)
{
    long e = clone_flags_valid(t, args->flags);
    if (e)
        return e;
    if ((args->flags & CLONE_SETTLS) && args->tls >= LX_USER_END)
        return -EPERM;
    t->park.kind = PARK_FORK_REGS;
    t->park.use = PARK_USE_FORK;
    t->park.u.fork = *args;
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_GET_REGS, 0, 0));
    return LX_REPLIED;
}

long sys_fork(struct thread *t, const struct sysargs *a)
{
    (void)a;
    return fork_begin(t, &(struct park_fork){ .flags = SIGCHLD });
}

long sys_vfork(struct thread *t, const struct sysargs *a)
{
    (void)a;
    return fork_begin(t, &(struct park_fork){ .flags = CLONE_VM | CLONE_VFORK | SIGCHLD });
}

/* clone(flags, stack, parent_tid, child_tid, tls): the x86-64 argument order; CLONE_PIDFD
 * stores the pidfd at parent_tid. */
long sys_clone(struct thread *t, const struct sysargs *a)
{
    l4_word_t flags = a->a[0] & 0xFFFFFFFFul;     /* clone(2)'s flags are an int */
    if ((flags & CLONE_PIDFD) && (flags & CLONE_PARENT_SETTID))
        return -EINVAL;             /* both would use parent_tid */
    return fork_begin(t, &(struct park_fork){ .flags = flags & ~(l4_word_t)CLONE_DETACHED,
                                              .stack = a->a[1], .ptid = a->a[2],
                                              .ctid = a->a[3], .tls = a->a[4],
                                              .pidfd = a->a[2] });
}

/* clone3(args, size): Linux's struct clone_args, of version 0 (64 bytes), 1 (80: set_tid)
 * or 2 (88: cgroup), or larger with the rest zero; Linux 6.1's checks in its order. */
struct clone_args {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
    uint64_t set_tid, set_tid_size, cgroup;
};
#define CLONE_ARGS_SIZE_VER0 64
#define CLONE_ARGS_SIZE_VER2 88
#define MAX_PID_NS_LEVEL     32

long sys_clone3(struct thread *t, const struct sysargs *a)
{
    struct clone_args ca = { 0 };
    l4_word_t uargs = a->a[0], size = a->a[1];
    if (size > LX_PAGE)
        return -E2BIG;
    if (size < CLONE_ARGS_SIZE_VER0)
        return -EINVAL;
    for (l4_word_t off = sizeof ca; off < size; off++) {    /* Linux's check_zeroed_user */
        uint8_t b;
        if (copy_from_user(t->mm, &b, uargs + off, 1))
            return -EFAULT;
        if (b)
            return -E2BIG;
    }
    if (copy_from_user(t->mm, &ca, uargs, size < sizeof ca ? size : sizeof ca))
        return -EFAULT;
    if (ca.set_tid_size > MAX_PID_NS_LEVEL || (!ca.set_tid && ca.set_tid_size) ||
        (ca.set_tid && !ca.set_tid_size))
        return -EINVAL;
    if ((ca.exit_signal & ~(uint64_t)CSIGNAL) || ca.exit_signal > 64)
        return -EINVAL;             /* a valid signal number, or 0 */
    if ((ca.flags & CLONE_INTO_CGROUP) && (ca.cgroup > 0x7FFFFFFF || size < CLONE_ARGS_SIZE_VER2))
        return -EINVAL;
    int tids[MAX_PID_NS_LEVEL];
    if (ca.set_tid_size && copy_from_user(t->mm, tids, ca.set_tid, ca.set_tid_size * 4))
        return -EFAULT;
    /* clone3_args_valid */
    if (ca.flags & ~(0xFFFFFFFFul | CLONE_CLEAR_SIGHAND | CLONE_INTO_CGROUP))
        return -EINVAL;
    if (ca.flags & (CLONE_DETACHED | (CSIGNAL & ~0x80ul /* CLONE_NEWTIME */)))
        return -EINVAL;
    if ((ca.flags & (CLONE_SIGHAND | CLONE_CLEAR_SIGHAND)) == (CLONE_SIGHAND | CLONE_CLEAR_SIGHAND))
        return -EINVAL;
    if ((ca.flags & (CLONE_THREAD | CLONE_PARENT)) && ca.exit_signal)
        return -EINVAL;
    if (ca.stack ? !ca.stack_size || ca.stack + ca.stack_size > LX_USER_END ||
                   ca.stack + ca.stack_size < ca.stack
                 : ca.stack_size)
        return -EINVAL;
    long e = clone_flags_valid(t, (ca.flags & ~(l4_word_t)CLONE_INTO_CGROUP) | ca.exit_signal);
    if (e)
        return e;
    /* alloc_pid: one level of pid namespace; a number in range (pid_max). */
    if (ca.set_tid_size > 1)
        return -EINVAL;
    if (ca.set_tid_size && (tids[0] < 1 || tids[0] >= PID_MAX))
        return -EINVAL;
    if (ca.set_tid_size && pid_find(tids[0]))
        return -EEXIST;
    if (ca.flags & CLONE_INTO_CGROUP)
        return -EBADF;              /* no cgroup file system: no fd is a cgroup's */
    return fork_begin(t, &(struct park_fork){
        .flags = (ca.flags & ~(l4_word_t)CLONE_INTO_CGROUP) | ca.exit_signal,
        .stack = ca.stack ? ca.stack + ca.stack_size : 0, .ptid = ca.parent_tid,
        .ctid = ca.child_tid, .tls = ca.tls, .pidfd = ca.pidfd,
        .set_tid = ca.set_tid_size ? tids[0] : 0 });
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

static bool make_child(struct thread *p);

/* The parent's registers arrived.  A new process gets its parent's FPU state: the parent
 * saves it through the signal page first (below its stack's red zone, 64-byte aligned), then
 * calls LX_SYS_FORK_FPU (lx cannot read the FPU registers: fork_fpu_saved).  A child sharing
 * the memory of a parent that runs on (a thread, CLONE_VM without CLONE_VFORK) does not: the
 * area would be the parent's stack, which it goes on using. */
bool fork_regs(struct thread *p)
{
    struct park_fork *f = &p->park.u.fork;
    for (unsigned i = 0; i < L4_FREG_WORDS; i++)
        f->saved[i] = l4_mr(L4_FREG_RIP + i);      /* before any IPC overwrites them */
    if ((f->flags & (CLONE_VM | CLONE_VFORK)) == CLONE_VM) {
        f->area = 0;
        return make_child(p);
    }
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

bool fork_fpu_saved(struct thread *p)
{
    return make_child(p);
}

/* Undo a child that never ran: the one teardown path (task/exit.c). */
static bool fork_fail(struct thread *p, struct process *child, long err)
{
    process_release(child);
    process_free(child);
    return reply_now(p, err);
}

static bool thread_fail(struct thread *p, struct thread *c, long err)
{
    thread_exit(c);
    return reply_now(p, err);
}

/* A new thread of p's process (CLONE_THREAD): an L4 thread of its task, the process's
 * memory and actions, files and fs as the flags say; NULL after answering p. */
static struct thread *new_thread(struct thread *p, l4_word_t flags)
{
    int e;
    struct thread *c = process_new_thread(p->proc, &e);
    if (!c) {
        reply_now(p, e);
        return NULL;
    }
    c->mm = p->mm;
    mm_get(c->mm);
    if (!vfs_task_fork(c, p, flags & CLONE_FILES, flags & CLONE_FS)) {
        thread_fail(p, c, -ENOMEM);
        return NULL;
    }
    signal_thread_new(c, p);        /* its mask; no alternate stack (Linux's CLONE_VM) */
    if ((e = process_create_thread(c, p))) {
        thread_fail(p, c, e);
        return NULL;
    }
    return c;
}

/* CLONE_PIDFD: an fd of p's (close-on-exec) naming cp (syscalls/sys_pidfd.c), stored at
 * clone's pidfd: 0 or -errno (the fd closed again). */
static int pidfd_new(struct thread *p, struct process *cp)
{
    struct file *f = pidfd_file(cp, 0);
    if (!f)
        return -ENOMEM;
    int fd = fd_install(p, f, 0, true);
    if (fd < 0) {
        file_put(f);
        return fd;
    }
    if (copy_to_user(p->mm, p->park.u.fork.pidfd, &fd, sizeof fd)) {
        fd_close(p, fd);
        return -EFAULT;
    }
    return 0;
}

/* A new process: its place (the parent's child, or its parent's with CLONE_PARENT), its
 * memory (a copy, or the parent's with CLONE_VM), files, fs, actions, limits; NULL after
 * answering p. */
static struct thread *new_process(struct thread *p, l4_word_t flags)
{
    int e;
    struct process *cp = process_new_at(p->park.u.fork.set_tid, &e);
    if (!cp) {
        reply_now(p, e);
        return NULL;
    }
    struct thread *c = process_thread(cp);
    struct process *parent = (flags & CLONE_PARENT) ? p->proc->parent : p->proc;
    /* Its place, in the parent's group and session (before anything can fail, so that the
     * teardown finds it whole). */
    process_attach(cp, parent, p->proc->pgrp, p->proc->session);
    if (flags & CLONE_VM) {
        c->mm = p->mm;              /* vfork, posix_spawn: one model, two spaces */
        mm_get(c->mm);
    } else if (!(c->mm = mm_copy(p->mm, &e))) {
        fork_fail(p, cp, e);
        return NULL;
    }
    memcpy(cp->rlim, p->proc->rlim, sizeof cp->rlim);
    cred_copy(&cp->cred, &p->proc->cred);
    if (!task_copy_exe(cp, p->proc) ||
        !vfs_task_fork(c, p, flags & CLONE_FILES, flags & CLONE_FS) ||
        !signal_fork(c, p, flags & CLONE_SIGHAND, flags & CLONE_CLEAR_SIGHAND,
                     (flags & (CLONE_VM | CLONE_VFORK)) == CLONE_VM)) {
        fork_fail(p, cp, -ENOMEM);
        return NULL;
    }
    if ((e = process_create_task(cp)) || ((flags & CLONE_PIDFD) && (e = pidfd_new(p, cp)))) {
        fork_fail(p, cp, e);
        return NULL;
    }
    cp->exit_signal = (int)(flags & CSIGNAL);
    if (flags & CLONE_PARENT)
        cp->exit_signal = p->proc->exit_signal;     /* Linux: the parent's own */
    return c;
}

/* The child of p's clone (fork_regs, fork_fpu_saved): made, started; p answered, or parked
 * for vfork.  True if the MRs hold p's reply. */
static bool make_child(struct thread *p)
{
    struct park_fork *f = &p->park.u.fork;
    l4_word_t flags = f->flags;
    struct thread *c = (flags & CLONE_THREAD) ? new_thread(p, flags) : new_process(p, flags);
    if (!c)
        return true;                /* answered with the error */
    memcpy(c->comm, p->comm, sizeof c->comm);
    ioprio_fork(c, p);
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

    int tid = c->tid->nr;
    if (flags & CLONE_CHILD_SETTID)
        copy_to_user(c->mm, f->ctid, &tid, sizeof tid);    /* Linux ignores faults */
    if (flags & CLONE_PARENT_SETTID)
        copy_to_user(p->mm, f->ptid, &tid, sizeof tid);

    /* A pending interrupt first, then the start message: the child reports the interrupt
     * before its first instruction and gets its registers in the reply. */
    bool started = l4_exchange_registers(c->l4, L4_EXREGS_APPLY_INTERRUPT | L4_EXREGS_INTERRUPT,
                                         0, 0, 0, 0, L4_NILTHREAD, NULL) != L4_NILTHREAD;
    if (started) {
        l4_set_mr(0, l4_tag_make(0, 2, 0));
        l4_set_mr(1, f->saved[L4_FREG_RIP - 1]);
        l4_set_mr(2, regs[L4_FREG_RSP - 1]);
        started = !l4_ipc_failed(l4_reply(c->l4));
    }
    if (!started) {
        printf("lx: pid %d: cannot start the new child\n", thread_pid(p));
        c->clear_child_tid = 0;
        if (flags & CLONE_THREAD)
            return thread_fail(p, c, -EAGAIN);
        return fork_fail(p, c->proc, -EAGAIN);
    }
    if (flags & CLONE_VFORK) {
        p->park.kind = PARK_VFORK;  /* answered by fork_vfork_done at c's exec or end */
        f->child = tid;
        c->vfork_parent = p->tid->nr;
        if (p->trace)
            ptrace_fork(p, c, flags, f->saved);     /* its child traced too, if asked */
        return false;
    }
    if (p->trace && ptrace_fork(p, c, flags, f->saved)) {
        p->park.kind = PARK_NONE;   /* stopped with its answer (task/ptrace.c) */
        return false;
    }
    return reply_now(p, tid);
}

void fork_child_start(struct thread *c)
{
    c->park.kind = PARK_NONE;
    l4_set_mr(0, l4_tag_make(L4_FOREIGN_SET_REGS, L4_FREG_WORDS, 0));
    for (unsigned i = 0; i < L4_FREG_WORDS; i++)
        l4_set_mr(L4_FREG_RIP + i, c->park.u.start.regs[i]);
}

void fork_vfork_done(struct thread *c)
{
    struct pid *id = c->vfork_parent ? pid_find(c->vfork_parent) : NULL;
    struct thread *p = id ? id->thread : NULL;
    c->vfork_parent = 0;
    if (p && p->l4 && p->park.kind == PARK_VFORK && p->park.u.fork.child == c->tid->nr) {
        p->park.kind = PARK_NONE;
        parent_regs(p, c->tid->nr);  /* it went through the signal page: all of them */
        if (l4_ipc_failed(l4_reply(p->l4)))
            printf("lx: pid %d: cannot answer its vfork\n", thread_pid(p));
    }
}
