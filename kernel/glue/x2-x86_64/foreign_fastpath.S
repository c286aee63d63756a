/* The foreign system call's fast path (docs/linux-abi.md §8), both ways:
 *
 *   foreign_syscall_fast: a thread of a foreign space executes `syscall` and its handler
 *     waits in a user-level receive that accepts it: the compact message (MR0-MR10) goes
 *     straight into the handler's registers and UTCB, the thread waits for the reply as
 *     foreign_syscall's Call would, and the handler runs.
 *   foreign_reply_fast: the handler replies with label 0 and u <= 1 (RAX) to such a thread,
 *     waiting in its receive phase: the thread's RAX is set and it returns from `syscall`.
 *
 * Like the IPC fast path (fastpath.S) each is a straight line of guards that fall back to the
 * C path before anything changed, and both switch threads through switch_tail.h.  Whatever
 * completes the other half later (the C path or these) finds the ordinary state:
 * TS_WAIT_RECV with the continuation ipc_user_return. */
#include "frame.h"
#include "layout.h"
#include "config.h"
#include "asm_offsets.h"
#include "switch_tail.h"
#include "fastpath.h"
#define FSC_TAG     (0xFFFFFFFFFF600000 | 10)   /* L4_PROTO_FOREIGN_SYSCALL, u = 10 */
#define BR0_OFFSET  (-16 * 8)                   /* L4_UTCB_BR(0), from MR0 */
#define COMPLETE_FPAGE 0x10
#define FOREIGN_IPC_NR 0x4C3400                 /* L4_FOREIGN_IPC_NR: channel.c's */
#define FOREIGN_UNMAP_NR 0x4C3401               /* L4_FOREIGN_UNMAP_NR */
#define FOREIGN_BUFFERS_NR 0x4C3402             /* L4_FOREIGN_BUFFERS_NR */

    .text

/* From syscall_full: the whole user frame is at RSP, RDI = self (TF_FOREIGN set).  Every
 * user register but RCX, R11 (syscall's) and RDI still holds its value. */
    .global foreign_syscall_fast
foreign_syscall_fast:
    cmpq $0, ipc_fast_rip(%rip)                     /* fastpath=off: the C path for all */
    je   ffp_slow
    cmpq $FOREIGN_IPC_NR, %rax                      /* maybe native IPC: the C path decides */
    je   ffp_slow
    leaq -FOREIGN_UNMAP_NR(%rax), %rcx              /* maybe native Unmap or string buffers: */
    cmpq $FOREIGN_BUFFERS_NR - FOREIGN_UNMAP_NR, %rcx   /* likewise */
    jbe  ffp_slow
    cmpl $TF_FOREIGN_, TCB_FLAGS(%rdi)              /* nothing else pending for us */
    jne  ffp_slow
    /* The handler: its TCB through the thread number, checked against the whole id. */
    movq TCB_SPACE(%rdi), %rsi
    movq SPACE_FOREIGN_HANDLER(%rsi), %rsi
    TCB_OF_GID %rsi, %rbp, ffp_slow
    /* It waits in a user-level receive for us or anybody, without a timeout, with nothing
     * pending, and nothing more important is ready. */
    WAITS_IN_USER_RECEIVE %rbp, ffp_slow, ffp_slow
    movq TCB_WAIT_FOR(%rbp), %rcx
    cmpq $-1, %rcx
    je   1f
    cmpq TCB_GID(%rdi), %rcx
    jne  ffp_slow
1:  movzbl TCB_PRIO(%rbp), %ecx
    cmpl sched_top_prio(%rip), %ecx
    jl   ffp_slow

    /* Commit.  We wait for the handler's reply (the acceptor of foreign_syscall's Call). */
    HAND_OVER %rdi, %rbp, %rsi
    movq TCB_MR(%rdi), %rcx
    movq $COMPLETE_FPAGE, BR0_OFFSET(%rcx)
    /* The message: MR8-MR10 (RIP, RSP, RFLAGS) into the handler's UTCB; MR1-MR7 in the
     * registers that carry them (RAX is MR1 already: the number). */
    movq TCB_MR(%rbp), %rcx
    movq FR_RIP * 8(%rsp), %rdx
    movq %rdx, 64(%rcx)
    movq FR_RSP * 8(%rsp), %rdx
    movq %rdx, 72(%rcx)
    movq FR_RFLAGS * 8(%rsp), %rdx
    movq %rdx, 80(%rcx)
    movq %r10, %r13                                 /* MR5 = R10 */
    movq FR_RSI * 8(%rsp), %r10                     /* MR3 = RSI */
    movq FR_RDX * 8(%rsp), %r12                     /* MR4 = RDX */
    movq %r8, %r14                                  /* MR6 = R8 */
    movq %r9, %r15                                  /* MR7 = R9 */
    movq FR_RDI * 8(%rsp), %rbx                     /* MR2 = RDI */
    movq $FSC_TAG, %r9
    movq TCB_GID(%rdi), %rsi                        /* from: another space, the global id */
    movq TCB_SPACE(%rbp), %rcx
    SWITCH_SPACE
    SWITCH_THREAD %rdi, %rbp, %rdi, ffp_fsgs_call
    SYSRET_TO_CURRENT ffp_where_call

ffp_slow:
    movq %rsp, %rdi
    call syscall_dispatch
    jmp  return_to_user

/* From the IPC fast path's guards (fastpath.S), which found dest waiting for us in the
 * receive phase of a foreign system call, with no timeout armed and no flag but TF_FOREIGN
 * (its guard word), and nobody queued for our receive if it is open: RDI self (the handler),
 * RBP dest, RSI to, RDX the from-specifier to wait for, R8 timeouts (receive: never), R9 tag
 * (t = 0, no flag, u <= 7), RAX MR1; RSP below self's frame, whose RIP, RSP and RFLAGS are
 * saved. */
    .global foreign_reply_fast
foreign_reply_fast:
    cmpq $1, %r9                                    /* label 0, u <= 1 */
    ja   fp_slow
    movq TCB_SPACE(%rdi), %rcx
    cmpb $0, SPACE_IPC_SLOW(%rcx)                   /* our IPC is redirected */
    jne  fp_slow
    movzbl TCB_PRIO(%rbp), %ecx
    cmpl sched_top_prio(%rip), %ecx
    jl   fp_slow
    /* Commit: we wait; dest returns from its `syscall` with RAX = MR1 if u = 1. */
    HAND_OVER %rdi, %rbp, %rdx
    testq %r9, %r9
    jz   2f
    movq %rax, TCB_FRAME + FR_RAX * 8(%rbp)
2:  movq TCB_SPACE(%rbp), %rcx
    SWITCH_SPACE
    SWITCH_THREAD %rdi, %rbp, %rsi, ffp_fsgs_reply
    leaq TCB_FRAME(%rbp), %rsp
#ifdef CONFIG_INVARIANTS
    leaq ffp_where_reply(%rip), %rdi
    pushq %rsp
    pushq %rsp
    call invariants_check
    addq $16, %rsp
#endif
    jmp  return_to_user                             /* every register from dest's frame */

#ifdef CONFIG_INVARIANTS
    .section .rodata
ffp_where_call:
    .asciz "foreign fast path exit (call)"
ffp_where_reply:
    .asciz "foreign fast path exit (reply)"
#endif
