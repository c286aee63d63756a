/* Linux's x86-64 signal frame (struct rt_sigframe), built on the process's stack for a
 * handler and read back by rt_sigreturn (docs/linux/signals.md, "The frame").
 *
 * From the interrupted RSP down: the 128-byte red zone is skipped (or the alternate stack's
 * top taken), then the FPU area, 512 bytes in fxsave layout, 64-byte aligned, then the frame
 * itself, placed so that RSP at the handler's entry is 16-byte aligned minus 8, as after a
 * call:
 *
 *   frame + 0     return address: sa_restorer (it calls rt_sigreturn)
 *   frame + 8     struct ucontext: uc_flags, uc_link, uc_stack, uc_mcontext (struct
 *                 sigcontext), uc_sigmask
 *   frame + 312   struct siginfo (128 bytes)
 *
 * lx cannot read or set a process's FPU registers (docs/linux-abi.md carries none), so the
 * process does it: the handler is entered through the signal page (sigpage.c), which
 * fxsaves the interrupted code's state into the FPU area (fxsave layout without the
 * FP_XSTATE_MAGIC1 words, which is what Linux writes on a CPU without XSAVE) before it
 * jumps to the handler, and rt_sigreturn returns through it to fxrstor the area.  lx
 * first writes a fresh process's state there (FCW 0x37F, MXCSR 0x1F80). */
#include "signal/sigframe.h"
#include "mm/usercopy.h"
#include "signal/signal.h"
#include "signal/sigpage.h"
#include <string.h>

#define REDZONE     128
#define FPSTATE_SIZE 512
#define UC_SIGCONTEXT_SS     0x2
#define UC_STRICT_RESTORE_SS 0x4
#define USER_CS 0x33
#define USER_DS 0x2b

struct sigcontext {                 /* Linux's order, uapi asm/sigcontext.h (64-bit) */
    uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
    uint64_t rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, eflags;
    uint16_t cs, gs, fs, ss;
    uint64_t err, trapno, oldmask, cr2;
    uint64_t fpstate;
    uint64_t reserved1[8];
};

struct ustack {
    uint64_t ss_sp;
    int32_t ss_flags;
    int32_t pad;
    uint64_t ss_size;
};

struct ucontext {
    uint64_t uc_flags, uc_link;
    struct ustack uc_stack;
    struct sigcontext uc_mcontext;
    uint64_t uc_sigmask;
};

struct siginfo {
    int32_t si_signo, si_errno, si_code, pad;
    union {
        struct { int32_t pid, uid, status, pad; int64_t utime, stime; } chld;
        struct { int32_t pid, uid; uint64_t value; } rt;    /* kill's: no value */
        struct { int32_t tid, overrun; uint64_t value; } timer;
        uint64_t addr;
        uint8_t bytes[112];
    } u;
};

struct rt_sigframe {
    uint64_t pretcode;
    struct ucontext uc;
    struct siginfo info;
};

_Static_assert(sizeof(struct sigcontext) == 256, "sigcontext");
_Static_assert(sizeof(struct ucontext) == 304, "ucontext");
_Static_assert(sizeof(struct siginfo) == 128, "siginfo");
_Static_assert(sizeof(struct rt_sigframe) == 440, "rt_sigframe");
_Static_assert(__builtin_offsetof(struct rt_sigframe, info) == 312, "info");
_Static_assert(__builtin_offsetof(struct ucontext, uc_mcontext.fpstate) == 224,
               "the signal page reads uc_mcontext.fpstate at RDX + 224");

#define R(name) regs[L4_FREG_##name - 1]

static bool on_stack(const struct thread *t, l4_word_t sp)
{
    return sp > t->sig.ss_sp && sp - t->sig.ss_sp <= t->sig.ss_size;
}

int sigframe_ss_flags(const struct thread *t, l4_word_t sp)
{
    if (!t->sig.ss_size)
        return SS_DISABLE;
    if (t->sig.ss_flags & SS_AUTODISARM)
        return 0;
    return on_stack(t, sp) ? SS_ONSTACK : 0;
}

void sigframe_siginfo(int sig, const struct k_siginfo *info, void *out)
{
    struct siginfo *si = out;
    memset(si, 0, sizeof *si);
    si->si_signo = sig;
    si->si_code = info->code;
    if (sig == SIGCHLD && info->code > 0) {
        si->u.chld.pid = info->pid;
        si->u.chld.uid = info->uid;
        si->u.chld.status = info->status;
    } else if (info->code == SI_TIMER) {
        si->u.timer.tid = info->timerid;
        si->u.timer.overrun = info->overrun;
        si->u.timer.value = info->value;
    } else if (info->code <= 0 || info->code == SI_KERNEL) {
        si->u.rt.pid = info->pid;           /* SI_USER, SI_TKILL; 0 from the kernel */
        si->u.rt.uid = info->uid;
        si->u.rt.value = info->value;       /* SI_QUEUE's sigval (0 from kill and lx) */
    } else {
        si->u.addr = info->addr;            /* a fault's */
    }
}

int sigframe_setup(struct thread *t, int sig, const struct k_sigaction *ka,
                   const struct k_siginfo *info, uint64_t oldmask, l4_word_t *regs,
                   l4_word_t fpsrc)
{
    if (!(ka->flags & SA_RESTORER))
        return -EFAULT;             /* x86-64 has no kernel-provided return path */
    l4_word_t usp = R(RSP), sp = usp - REDZONE;
    bool nested = sigframe_ss_flags(t, usp) == SS_ONSTACK, entering = false;
    if ((ka->flags & SA_ONSTACK) && sigframe_ss_flags(t, sp) == 0) {
        sp = t->sig.ss_sp + t->sig.ss_size;
        entering = true;
    }
    l4_word_t fp = (sp - FPSTATE_SIZE) & ~63ul;
    l4_word_t frame = ((fp - sizeof(struct rt_sigframe)) & ~15ul) - 8;
    if ((nested || entering) && !on_stack(t, frame))
        return -EFAULT;             /* the alternate stack would overflow */
    if (frame >= usp && !entering)
        return -EFAULT;             /* wrapped around */

    /* The frame and the FPU area in one piece: [frame, fp + 512). */
    static uint8_t buf[FPSTATE_SIZE + sizeof(struct rt_sigframe) + 128];
    size_t len = fp + FPSTATE_SIZE - frame;
    if (len > sizeof buf)
        return -EFAULT;
    memset(buf, 0, len);
    struct rt_sigframe *f = (struct rt_sigframe *)buf;
    uint8_t *fx = buf + (fp - frame);
    if (fpsrc) {
        /* The interrupted code's state, from the frame rt_sigreturn returns from (read
         * before this frame, which may lie where that one does, is written). */
        if (copy_from_user(t->mm, fx, fpsrc, FPSTATE_SIZE))
            return -EFAULT;
    } else {
        fx[0] = 0x7F, fx[1] = 0x03;                 /* FCW 0x37F */
        uint32_t mxcsr = 0x1F80, mask = 0xFFFF;
        memcpy(fx + 24, &mxcsr, 4);
        memcpy(fx + 28, &mask, 4);
    }

    f->pretcode = ka->restorer;
    f->uc.uc_flags = UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS;
    f->uc.uc_stack.ss_sp = t->sig.ss_sp;
    f->uc.uc_stack.ss_flags = t->sig.ss_size ? (int32_t)t->sig.ss_flags : SS_DISABLE;
    f->uc.uc_stack.ss_size = t->sig.ss_size;
    struct sigcontext *sc = &f->uc.uc_mcontext;
    sc->r8 = R(R8), sc->r9 = R(R9), sc->r10 = R(R10), sc->r11 = R(R11);
    sc->r12 = R(R12), sc->r13 = R(R13), sc->r14 = R(R14), sc->r15 = R(R15);
    sc->rdi = R(RDI), sc->rsi = R(RSI), sc->rbp = R(RBP), sc->rbx = R(RBX);
    sc->rdx = R(RDX), sc->rax = R(RAX), sc->rcx = R(RCX), sc->rsp = usp;
    sc->rip = R(RIP), sc->eflags = R(RFLAGS);
    sc->cs = USER_CS, sc->ss = USER_DS;
    sc->err = (uint64_t)(unsigned)info->err;
    sc->trapno = (uint64_t)(unsigned)info->trapno;
    sc->oldmask = oldmask;
    sc->cr2 = info->trapno == 14 ? info->addr : 0;
    sc->fpstate = fp;
    f->uc.uc_sigmask = oldmask;

    sigframe_siginfo(sig, info, &f->info);
    /* Without SA_SIGINFO Linux leaves the siginfo's bytes as they were. */
    size_t info_at = __builtin_offsetof(struct rt_sigframe, info), info_end = sizeof *f;
    if (ka->flags & SA_SIGINFO) {
        if (copy_to_user(t->mm, frame, buf, len))
            return -EFAULT;
    } else if (copy_to_user(t->mm, frame, buf, info_at) ||
               copy_to_user(t->mm, frame + info_end, buf + info_end, len - info_end)) {
        return -EFAULT;
    }

    if (entering && (t->sig.ss_flags & SS_AUTODISARM)) {
        t->sig.ss_sp = t->sig.ss_size = 0;
        t->sig.ss_flags = 0;
    }
    R(RIP) = fpsrc ? sigpage_entry_nosave() : sigpage_entry();   /* then jumps to R11 */
    R(R11) = ka->handler;
    R(RSP) = frame;
    R(RDI) = (l4_word_t)sig;
    R(RSI) = frame + __builtin_offsetof(struct rt_sigframe, info);
    R(RDX) = frame + __builtin_offsetof(struct rt_sigframe, uc);
    R(RAX) = 0;
    return 0;
}

int sigframe_restore(struct thread *t, l4_word_t rsp, l4_word_t *regs, l4_word_t *fpstate)
{
    struct ucontext uc;
    l4_word_t frame = rsp - 8;
    if (frame > rsp || copy_from_user(t->mm, &uc, frame + 8, sizeof uc))
        return -EFAULT;
    const struct sigcontext *sc = &uc.uc_mcontext;
    R(R8) = sc->r8, R(R9) = sc->r9, R(R10) = sc->r10, R(R11) = sc->r11;
    R(R12) = sc->r12, R(R13) = sc->r13, R(R14) = sc->r14, R(R15) = sc->r15;
    R(RDI) = sc->rdi, R(RSI) = sc->rsi, R(RBP) = sc->rbp, R(RBX) = sc->rbx;
    R(RDX) = sc->rdx, R(RAX) = sc->rax, R(RCX) = sc->rcx, R(RSP) = sc->rsp;
    R(RIP) = sc->rip, R(RFLAGS) = sc->eflags;
    if (sc->fpstate & 15)
        return -EFAULT;
    *fpstate = sc->fpstate;
    t->sig.blocked = uc.uc_sigmask & ~(SIGBIT(SIGKILL) | SIGBIT(SIGSTOP));
    /* The alternate stack as it was, unless we are on it (Linux ignores the EPERM). */
    const struct ustack *ss = &uc.uc_stack;
    if (sigframe_ss_flags(t, rsp) != SS_ONSTACK) {
        int mode = ss->ss_flags & ~(int32_t)SS_AUTODISARM;
        if (mode == SS_DISABLE) {
            t->sig.ss_sp = t->sig.ss_size = 0;
            t->sig.ss_flags = 0;
        } else if ((mode == 0 || mode == SS_ONSTACK) && ss->ss_size >= MINSIGSTKSZ) {
            t->sig.ss_sp = ss->ss_sp;
            t->sig.ss_size = ss->ss_size;
            t->sig.ss_flags = ss->ss_flags;
        }
    }
    return 0;
}

int sigframe_return(struct thread *t, l4_word_t *regs, l4_word_t area)
{
    if (!area)
        return 0;
    /* The FPU state comes back in user mode, through the signal page: it restores the area,
     * then takes RSP from area + 464 and RIP from 136 bytes below the interrupted RSP, where
     * these words go (sigpage.c). */
    l4_word_t back = R(RSP) - 136, rip = R(RIP);
    if (copy_to_user(t->mm, back, &rip, sizeof rip) ||
        copy_to_user(t->mm, area + 464, &back, sizeof back))
        return -EFAULT;
    R(RSP) = area;
    R(RIP) = sigpage_return();
    return 0;
}

void sigframe_unwind_return(struct thread *t, l4_word_t *regs, l4_word_t *fpstate)
{
    int step = sigpage_return_step(R(RIP));
    l4_word_t back = R(RSP), rip;
    if (step < 0)
        return;
    if (step < 2 && copy_from_user(t->mm, &back, R(RSP) + 464, sizeof back))
        return;
    if (copy_from_user(t->mm, &rip, back, sizeof rip))
        return;
    *fpstate = step == 0 ? R(RSP) : 0;
    R(RIP) = rip;
    R(RSP) = back + 136;            /* `ret $128`: the address word and the 128 bytes */
}
