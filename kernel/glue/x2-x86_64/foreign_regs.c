/* The foreign system-call ABI's register glue on x86-64 (docs/linux-abi.md): which frame
 * registers the messages carry, in the orders include/l4/pecan.h names. */
#include "glue.h"
#include "foreign.h"
#include "arch.h"
#include "frame.h"
#include <l4/pecan.h>

/* The register set's words (MR1..MR18), in the X.2 exception message's order. */
static word_t *reg_slot(struct frame *f, unsigned mr)
{
    word_t *const slot[L4_FREG_RFLAGS + 1] = {
        [L4_FREG_RIP] = &f->rip, [L4_FREG_RBX] = &f->rbx, [L4_FREG_R10] = &f->r10,
        [L4_FREG_R12] = &f->r12, [L4_FREG_R13] = &f->r13, [L4_FREG_R14] = &f->r14,
        [L4_FREG_R15] = &f->r15, [L4_FREG_RAX] = &f->rax, [L4_FREG_RCX] = &f->rcx,
        [L4_FREG_RDX] = &f->rdx, [L4_FREG_RSI] = &f->rsi, [L4_FREG_RDI] = &f->rdi,
        [L4_FREG_RBP] = &f->rbp, [L4_FREG_R8] = &f->r8, [L4_FREG_R9] = &f->r9,
        [L4_FREG_R11] = &f->r11, [L4_FREG_RSP] = &f->rsp, [L4_FREG_RFLAGS] = &f->rflags,
    };
    return slot[mr];
}

void arch_foreign_syscall_message(struct tcb *t, word_t *mr)
{
    struct frame *f = tcb_frame(t);
    /* `syscall` left the return address in RCX and the flags in R11 (and the frame). */
    const word_t words[L4_FSC_WORDS] = {
        f->rax, f->rdi, f->rsi, f->rdx, f->r10, f->r8, f->r9, f->rip, f->rsp, f->rflags,
    };
    for (unsigned i = 0; i < L4_FSC_WORDS; i++)
        mr[i] = words[i];
}

void arch_foreign_set_result(struct tcb *t, word_t value)
{
    tcb_frame(t)->rax = value;
}

void arch_foreign_get_regs(struct tcb *t, word_t *mr)
{
    struct frame *f = tcb_frame(t);
    for (unsigned i = L4_FREG_RIP; i <= L4_FREG_RFLAGS; i++)
        mr[i - 1] = *reg_slot(f, i);
    mr[L4_FREG_FS_BASE - 1] = arch_thread_fs_base(t);
    mr[L4_FREG_GS_BASE - 1] = arch_thread_gs_base(t);
}

void arch_foreign_set_regs(struct tcb *t, const word_t *mr, unsigned n)
{
    struct frame *f = tcb_frame(t);
    for (unsigned i = L4_FREG_RIP; i <= n && i <= L4_FREG_RFLAGS; i++) {
        if (i == L4_FREG_RFLAGS)
            arch_set_user_flags(t, mr[i - 1]);
        else
            *reg_slot(f, i) = mr[i - 1];
    }
    /* A base the CPU would refuse (#GP in the kernel) is the program's own loss: 0. */
    word_t fs = n >= L4_FREG_FS_BASE ? mr[L4_FREG_FS_BASE - 1] : arch_thread_fs_base(t);
    word_t gs = n >= L4_FREG_GS_BASE ? mr[L4_FREG_GS_BASE - 1] : arch_thread_gs_base(t);
    arch_set_thread_bases(t, arch_canonical(fs) ? fs : 0, arch_canonical(gs) ? gs : 0);
    f->vector = 0;                      /* every register matters: return with iret */
    t->flags |= TF_USER_STATE;          /* RIP is checked for canonical on the way out */
}

word_t arch_foreign_syscall_nr(struct tcb *t)
{
    return tcb_frame(t)->rax;
}

/* MR0-MR7 of native IPC and Unmap: R9, RDI, RBX, R10, R12-R15. */
static void load_mrs(struct tcb *t, const struct frame *f)
{
    word_t *mr = t->mr;
    mr[0] = f->r9;  mr[1] = f->rdi; mr[2] = f->rbx; mr[3] = f->r10;
    mr[4] = f->r12; mr[5] = f->r13; mr[6] = f->r14; mr[7] = f->r15;
}

static void store_mrs(const struct tcb *t, struct frame *f)
{
    const word_t *mr = t->mr;
    f->r9 = mr[0];  f->rdi = mr[1]; f->rbx = mr[2]; f->r10 = mr[3];
    f->r12 = mr[4]; f->r13 = mr[5]; f->r14 = mr[6]; f->r15 = mr[7];
}

/* The X.2 Ipc stub's registers, but MR1 in RDI (RAX holds the number) and the acceptor in
 * RBP (the UTCB is the kernel's). */
void arch_channel_ipc_args(struct tcb *t, word_t *to, word_t *from, word_t *timeouts,
                           word_t *acceptor)
{
    struct frame *f = tcb_frame(t);
    load_mrs(t, f);
    *to = f->rsi;
    *from = f->rdx;
    *timeouts = f->r8;
    *acceptor = f->rbp;
}

void arch_channel_ipc_result(struct tcb *t, word_t error)
{
    struct frame *f = tcb_frame(t);
    f->rax = error;
    store_mrs(t, f);
    f->rsi = t->ipc.ipc_from;
}

/* Native Unmap: the control word in RDX, the fpages in native IPC's MR registers. */
word_t arch_channel_unmap_args(struct tcb *t)
{
    struct frame *f = tcb_frame(t);
    load_mrs(t, f);
    return f->rdx;
}

void arch_channel_unmap_result(struct tcb *t, word_t result)
{
    struct frame *f = tcb_frame(t);
    f->rax = result;
    store_mrs(t, f);
}

/* String receive buffers: RDX the number of words, R8 the XferTimeouts, the words in native
 * IPC's MR registers; nothing comes back but RAX. */
void arch_channel_buffers_args(struct tcb *t, word_t *n, word_t *xfer_timeouts)
{
    struct frame *f = tcb_frame(t);
    load_mrs(t, f);
    *n = f->rdx;
    *xfer_timeouts = f->r8;
}

void arch_channel_buffers_result(struct tcb *t, word_t result)
{
    tcb_frame(t)->rax = result;
}
