/* The IPC fast path (contract §5; 002 §5.3.4-5.3.5): Call and ReplyWait with untyped words
 * only, to a partner already waiting in a user-level receive, with nothing more important
 * ready.  Entered from syscall_entry for the Ipc/Lipc stub.
 *
 * It is a straight line of guards; a failed guard goes to the slow path (syscall_dispatch)
 * before anything has changed.  On success the partner becomes the current thread and is
 * entered with sysret directly: MR0-MR7 stay in the registers the sender loaded them into
 * (R9, RAX, RBX, R10, R12-R15), so a short message is never copied.  The caller blocks in its
 * receive phase with the ordinary continuation (ipc_user_return), so any later sender, fast
 * or slow, can complete it.  No queue is touched (lazy scheduling), the partner runs on the
 * caller's time slice (direct process switch), and the receive timeout must be `never`.
 *
 * It was first written in C with the same guards; the C version cost about 185 guest
 * instructions per direction (spilling the callee-saved registers that carry MR2, MR4-MR7,
 * a bitmap scan, out-of-line switch code), this one 84 from entry to sysret inter-space,
 * FS/GS switch included (docs/ipc.md §4 lists them).  The switch itself is the shared tail
 * of switch_tail.h, the same code arch_switch runs.
 *
 * Registers on entry: RSI to, RDX from-specifier, R8 timeouts, R9 MR0 (tag), RAX, RBX, R10,
 * R12-R15 MR1-MR7, RCX user RIP, R11 user RFLAGS, RSP user stack.  RDI and RBP are free
 * (RDI returns the UTCB pointer; RBP is saved by the caller), as are RCX and R11 once saved. */
#include "frame.h"
#include "layout.h"
#include "config.h"
#include "asm_offsets.h"
#include "switch_tail.h"
#include "fastpath.h"

/* The guards between the tag check and the commit, expanded twice: on the main line (u <= 7)
 * and on the line that copies MR8..MRu first.  In: RDI self, RSI to, RDX from-specifier,
 * R8 timeouts.  Out: RBP dest; RDX the from-specifier to wait for (a Call to a local id
 * waits for the global one).  Clobbers RCX. */
.macro FP_GUARDS flagged=fp_slow
    /* Call (from = to) or ReplyWait (from = anythread or anylocalthread), receive timeout
     * never. */
    cmpq %rsi, %rdx
    je   1f
    cmpq $-1, %rdx
    je   1f
    cmpq $-64, %rdx
    jne  fp_slow
1:  testw %r8w, %r8w
    jnz  fp_slow
    /* The destination: a global id names its TCB through the thread number; a local id (a
     * reply within one space) is accepted if it is the thread that last sent to us. */
    testb $0x3F, %sil
    jz   5f
    TCB_OF_GID %rsi, %rbp, %rcx, fp_slow            /* dest */
    /* It waits in a user-level receive that accepts us, without a timeout; nothing pending
     * for it (halt, changed user state). */
    WAITS_IN_USER_RECEIVE %rbp, fp_slow
    movq TCB_WAIT_FOR(%rbp), %rcx
    cmpq TCB_GID(%rdi), %rcx
    je   2f
    cmpq $-1, %rcx
    je   2f
    cmpq $-64, %rcx                                 /* anylocalthread: same space only */
    jne  fp_slow
    movq TCB_SPACE(%rbp), %rcx
    cmpq TCB_SPACE(%rdi), %rcx
    jne  fp_slow
2:  cmpl $0, TCB_FLAGS(%rbp)
    jne  \flagged
    cmpb $0, TCB_WAKEUP_QUEUED(%rbp)
    jne  fp_slow
    /* No redirection; nothing more important than dest ready (stale entries count too). */
    movq TCB_SPACE(%rdi), %rcx
    cmpb $0, SPACE_IPC_SLOW(%rcx)                   /* redirector, or foreign threads */
    jne  fp_slow
    movzbl TCB_PRIO(%rbp), %ecx                     /* (we block: our own priority */
    cmpl sched_top_prio(%rip), %ecx                 /*  does not matter, as in C) */
    jl   fp_slow
    /* An open receive of ours must not find a sender queued already.  (A Call waits for
     * dest's global id, also when `to` was its local id: the local-id case rewrote RDX.) */
    cmpq TCB_GID(%rbp), %rdx
    je   3f
    cmpq $0, TCB_SENDQ(%rdi)
    jne  fp_slow
    .pushsection .text.fastpath_cold, "ax"
    /* `to` is a local id: only the thread that last sent to us, in our space, qualifies
     * (local id 0, nilthread, matches no active thread).  It is in our space, so its
     * receive may also be anylocalthread; the rest joins the main line at 2. */
5:  movq TCB_LAST_SENDER(%rdi), %rbp
    testq %rbp, %rbp
    jz   fp_slow
    cmpq %rsi, TCB_LOCAL_ID(%rbp)
    jne  fp_slow
    movq TCB_SPACE(%rbp), %rcx
    cmpq TCB_SPACE(%rdi), %rcx
    jne  fp_slow
    WAITS_IN_USER_RECEIVE %rbp, fp_slow
    movq TCB_WAIT_FOR(%rbp), %rcx
    cmpq $-64, %rcx
    je   7f
    cmpq TCB_GID(%rdi), %rcx
    je   7f
    cmpq $-1, %rcx
    jne  fp_slow
7:  cmpq %rdx, %rsi                                 /* a Call to it waits for its global id */
    cmoveq TCB_GID(%rbp), %rdx
    jmp  2b
    .popsection
3:
.endm

    .text
    .global syscall_entry
    .align 16
syscall_entry:
    cmpq ipc_fast_rip(%rip), %rcx
    jne  syscall_full
    movq cpu0 + CPU_CURRENT(%rip), %rdi             /* self */
    movq %rsp, TCB_FRAME + FR_RSP * 8(%rdi)
    leaq TCB_FRAME(%rdi), %rsp                      /* below the frame: not the user's stack */
    movq %rcx, TCB_FRAME + FR_RIP * 8(%rdi)
    movq %r11, TCB_FRAME + FR_RFLAGS * 8(%rdi)
    movq $VEC_SYSCALL, TCB_FRAME + FR_VECTOR * 8(%rdi)

    /* Untyped words only (t = 0), no propagation (p = 0), and u <= 7 (all in registers); the
     * other line (fp_long) handles u > 7. */
    testl $0x1FF8, %r9d
    jnz  fp_long
    FP_GUARDS fp_flagged

fp_commit:
    HAND_OVER %rdi, %rbp, %rdx
    movq %rdi, TCB_LAST_SENDER(%rbp)
    andq $~0xE000, %r9                              /* MR0 for the receiver: r, x, e = 0 */
    /* `from`: the local id within one space, else the global id (§5.3); the space switch
     * (switch_tail.h) if dest lives in another space. */
    movq TCB_SPACE(%rbp), %rcx
    movq TCB_GID(%rdi), %rsi
    cmpq TCB_SPACE(%rdi), %rcx
    cmoveq TCB_LOCAL_ID(%rdi), %rsi
    je   4f
    SWITCH_SPACE
4:  /* dest becomes current: FS/GS bases, %gs:0, kernel stack, lazy FPU.  RDI = dest's local
     * id, also its RDI on return (the UTCB pointer). */
    SWITCH_THREAD %rdi, %rbp, %rdi, fp_fsgs
    /* RDX and R8 still hold the sender's from-specifier and timeouts (values the guards
     * checked, or dest's own); RCX and R11 are reloaded; RBP held dest's TCB. */
    SYSRET_TO_CURRENT fp_where

/* u > 7, or typed items or propagation: the latter go to the C path; MR8..MRu are copied from
 * the sender's UTCB to the receiver's once the guards passed. */
fp_long:
    testl $0x1FC0, %r9d
    jnz  fp_slow
    FP_GUARDS
    movq %rdi, %r11
    movq %rsi, %r8
    movl %r9d, %ecx
    andl $0x3F, %ecx
    subl $7, %ecx
    movq TCB_MR(%rdi), %rsi
    addq $64, %rsi
    movq TCB_MR(%rbp), %rdi
    addq $64, %rdi
    rep movsq
    movq %r11, %rdi
    movq %r8, %rsi
    xorl %r8d, %r8d                                 /* (it held `to`) */
    jmp  fp_commit

/* dest has flags: the only case for us is a thread of a foreign space waiting for our reply
 * to its system call (foreign_fastpath.S); anything else pending goes to the C path. */
    .pushsection .text.fastpath_cold, "ax"
fp_flagged:
    cmpl $TF_FOREIGN_, TCB_FLAGS(%rbp)
    je   foreign_reply_fast
    jmp  fp_slow
    .popsection

/* A guard failed: nothing has changed.  Complete the user frame (RBP and RCX were scratch;
 * both may be clobbered by Ipc) and take the slow path. */
    .global fp_slow
fp_slow:
    movq %rax, FR_RAX * 8(%rsp)
    movq %rbx, FR_RBX * 8(%rsp)
    movq %rdx, FR_RDX * 8(%rsp)
    movq %rsi, FR_RSI * 8(%rsp)
    movq $0, FR_RDI * 8(%rsp)
    movq $0, FR_RBP * 8(%rsp)
    movq %r8, FR_R8 * 8(%rsp)
    movq %r9, FR_R9 * 8(%rsp)
    movq %r10, FR_R10 * 8(%rsp)
    movq %r12, FR_R12 * 8(%rsp)
    movq %r13, FR_R13 * 8(%rsp)
    movq %r14, FR_R14 * 8(%rsp)
    movq %r15, FR_R15 * 8(%rsp)
    movq %rsp, %rdi
    call syscall_dispatch
    jmp  return_to_user

#ifdef CONFIG_INVARIANTS
    .section .rodata
fp_where:
    .asciz "fast path exit"
#endif
