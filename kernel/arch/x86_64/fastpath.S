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
 * a bitmap scan, out-of-line switch code), this one 69 from entry to sysret inter-space,
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
 * and on the line that copies MR8..MRu first; each ends at \done, which the main line falls
 * into.  In: RDI self, RSI to, RDX from-specifier, R8 timeouts.  Out: RBP dest; RDX the
 * from-specifier to wait for (a Call to a local id waits for the global one).  Clobbers RCX.
 * \unusual: where a destination goes whose guard word is not that of a plain waiting
 * thread. */
.macro FP_GUARDS done, unusual=fp_slow
    /* Call (from = to: its receive is closed on dest, which waits, so it cannot be queued
     * for us) or ReplyWait (from = anythread or anylocalthread: nobody may be queued, the C
     * path would take them first); receive timeout never. */
    cmpq %rsi, %rdx
    je   1f
    cmpq $0, TCB_SENDQ(%rdi)
    jne  fp_slow
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
    TCB_OF_GID %rsi, %rbp, fp_slow                  /* dest */
    /* It waits in a user-level receive that accepts us, without a timeout; nothing pending
     * for it (halt, changed user state). */
    WAITS_IN_USER_RECEIVE %rbp, \unusual, fp_slow
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
    /* No redirection; nothing more important than dest ready (stale entries count too). */
2:  movq TCB_SPACE(%rdi), %rcx
    cmpb $0, SPACE_IPC_SLOW(%rcx)                   /* redirector, or foreign threads */
    jne  fp_slow
    movzbl TCB_PRIO(%rbp), %ecx                     /* (we block: our own priority */
    cmpl sched_top_prio(%rip), %ecx                 /*  does not matter, as in C) */
    jl   fp_slow
    .pushsection .text.fastpath_cold, "ax"
    /* `to` is a local id: only the thread of our space that last sent to us qualifies
     * (last_sender is only ever a thread of our space or, for none, ourselves, who is not
     * waiting: tcb.h; local id 0, nilthread, matches no active thread).  It is in our space,
     * so its receive may also be anylocalthread, and IPC within a space is never redirected
     * (and a foreign space's threads fail the guard word): of the main line's last guards
     * only the priority applies. */
5:  movq TCB_LAST_SENDER(%rdi), %rbp
    cmpq %rsi, TCB_LOCAL_ID(%rbp)
    jne  fp_slow
    WAITS_IN_USER_RECEIVE %rbp, fp_slow, fp_slow
    movq TCB_WAIT_FOR(%rbp), %rcx
    cmpq TCB_GID(%rdi), %rcx                        /* (its Call: the usual case) */
    je   7f
    cmpq $-64, %rcx
    je   7f
    cmpq $-1, %rcx
    jne  fp_slow
7:  cmpq %rdx, %rsi                                 /* a Call to it waits for its global id */
    cmoveq TCB_GID(%rbp), %rdx
    movzbl TCB_PRIO(%rbp), %ecx
    cmpl sched_top_prio(%rip), %ecx
    jl   fp_slow
    jmp  \done
    .popsection
.endm

    .section .rodata
    .align 8
    .global tcb_area_base
tcb_area_base:
    .quad TCB_AREA_BASE

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

    /* Untyped words only (t = 0), none of the flags p, r, x, e (the receiver's MR0 is the
     * tag as sent), and u <= 7 (all in registers); the other line (fp_long) handles u > 7. */
    testl $0xFFF8, %r9d
    jnz  fp_long
    FP_GUARDS fp_commit, fp_unusual_dest

fp_commit:
    HAND_OVER %rdi, %rbp, %rdx
    /* `from`: the local id within one space, where we also become dest's last sender (a
     * reply to that local id finds us), else the global id (§5.3) and the space switch
     * (switch_tail.h). */
    movq TCB_SPACE(%rbp), %rcx
    movq TCB_GID(%rdi), %rsi
    cmpq TCB_SPACE(%rdi), %rcx
    jne  fp_other_space
    movq TCB_LOCAL_ID(%rdi), %rsi
    movq %rdi, TCB_LAST_SENDER(%rbp)
fp_switch_thread:
    /* dest becomes current: FS/GS bases, %gs:0, kernel stack, lazy FPU.  RDI = dest's local
     * id, also its RDI on return (the UTCB pointer). */
    SWITCH_THREAD %rdi, %rbp, %rdi, fp_fsgs
    /* RDX and R8 still hold the sender's from-specifier and timeouts (values the guards
     * checked, or dest's own); RCX and R11 are reloaded; RBP held dest's TCB. */
    SYSRET_TO_CURRENT fp_where

fp_other_space:
    SWITCH_SPACE
    jmp  fp_switch_thread

/* u > 7, or typed items or a flag: MR8..MRu are copied from the sender's UTCB to the
 * receiver's once the guards passed; the rest goes to the C path. */
fp_long:
    FP_GUARDS fp_long_copy
fp_long_copy:
    movq %rdi, %r11
    movzwl %r9w, %ecx                               /* u, t and the flags: */
    subl $7, %ecx                                   /* u - 7 <= 56 if t = 0 and no flag */
    cmpl $56, %ecx
    ja   fp_slow
    movq TCB_MR(%rdi), %rsi
    addq $64, %rsi
    movq TCB_MR(%rbp), %rdi
    addq $64, %rdi
    rep movsq
    movq %r11, %rdi
    jmp  fp_commit

/* dest's guard word has flags: the only case for us is a thread of a foreign space waiting
 * for our reply to its system call (foreign_fastpath.S); anything else goes to the C path. */
    .pushsection .text.fastpath_cold, "ax"
fp_unusual_dest:
    movabsq $(TS_WAIT_RECV_ | TF_FOREIGN_ << TCB_GUARD_FLAGS_SHIFT), %rcx
    cmpq %rcx, TCB_STATE(%rbp)
    jne  fp_slow
    cmpq $ipc_user_return, TCB_CONT(%rbp)
    jne  fp_slow
    movq TCB_GID(%rdi), %rcx
    cmpq %rcx, TCB_WAIT_FOR(%rbp)                   /* its system call's Call waits for us */
    jne  fp_slow
    jmp  foreign_reply_fast
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
