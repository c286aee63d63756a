/* The X.2 exception message's register map on x86-64 (contract §6.2, the L4_EXC_* words of
 * include/l4/message.h), for fault.c; the foreign ABI's is in foreign_regs.c. */
#include "glue.h"
#include "fault.h"
#include "frame.h"
#include "x86.h"
#include <l4/message.h>

void arch_exception_regs(struct tcb *t, word_t *mr)
{
    const struct frame *f = tcb_frame(t);
    mr[L4_EXC_RIP] = f->rip; mr[L4_EXC_RBX] = f->rbx; mr[L4_EXC_R10] = f->r10;
    mr[L4_EXC_R12] = f->r12; mr[L4_EXC_R13] = f->r13; mr[L4_EXC_R14] = f->r14;
    mr[L4_EXC_R15] = f->r15; mr[L4_EXC_RAX] = f->rax; mr[L4_EXC_RCX] = f->rcx;
    mr[L4_EXC_RDX] = f->rdx; mr[L4_EXC_RSI] = f->rsi; mr[L4_EXC_RDI] = f->rdi;
    mr[L4_EXC_RBP] = f->rbp; mr[L4_EXC_R8] = f->r8;   mr[L4_EXC_R9] = f->r9;
    mr[L4_EXC_R11] = f->r11; mr[L4_EXC_RSP] = f->rsp; mr[L4_EXC_RFLAGS] = f->rflags;
}

void arch_exception_set_regs(struct tcb *t, const word_t *mr)
{
    struct frame *f = tcb_frame(t);
    f->rip = mr[L4_EXC_RIP]; f->rbx = mr[L4_EXC_RBX]; f->r10 = mr[L4_EXC_R10];
    f->r12 = mr[L4_EXC_R12]; f->r13 = mr[L4_EXC_R13]; f->r14 = mr[L4_EXC_R14];
    f->r15 = mr[L4_EXC_R15]; f->rax = mr[L4_EXC_RAX]; f->rcx = mr[L4_EXC_RCX];
    f->rdx = mr[L4_EXC_RDX]; f->rsi = mr[L4_EXC_RSI]; f->rdi = mr[L4_EXC_RDI];
    f->rbp = mr[L4_EXC_RBP]; f->r8 = mr[L4_EXC_R8];   f->r9 = mr[L4_EXC_R9];
    f->r11 = mr[L4_EXC_R11]; f->rsp = mr[L4_EXC_RSP];
    t->flags |= TF_USER_STATE;
    arch_set_user_flags(t, mr[L4_EXC_RFLAGS]);
    f->vector = 0;                      /* all registers matter: return with iret */
}

/* On x86-64 the IP must be canonical: sysret and iretq #GP in the kernel on another one (on
 * the user's stack for sysret), so the kernel raises the thread's #GP(0) instead, as if at
 * the instruction it cannot reach. */
void arch_user_ip_check(struct tcb *t)
{
    while (!arch_canonical(arch_user_ip(t)))
        fault_exception(t, EXC_GP, 0);
}
