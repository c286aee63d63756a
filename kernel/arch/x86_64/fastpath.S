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
 * a bitmap scan, out-of-line switch code), this one about 90 (docs/ipc.md, performance.md).
 *
 * Registers on entry: RSI to, RDX from-specifier, R8 timeouts, R9 MR0 (tag), RAX, RBX, R10,
 * R12-R15 MR1-MR7, RCX user RIP, R11 user RFLAGS, RSP user stack.  RDI and RBP are free
 * (RDI returns the UTCB pointer; RBP is saved by the caller), as are RCX and R11 once saved. */
#include "frame.h"
#include "layout.h"
#include "config.h"
#include "asm_offsets.h"

#define MSR_GS_BASE 0xC0000101

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

    /* Untyped words only (t = 0), no propagation (p = 0). */
    testl $0x1FC0, %r9d
    jnz  fp_slow
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
    jz   fp_local_dest
    movq %rsi, %rbp
    shrq $32, %rbp
    cmpq $CONFIG_MAX_THREADS, %rbp
    jae  fp_slow
    shlq $TCB_BITS, %rbp
    movabsq $TCB_AREA_BASE, %rcx
    addq %rcx, %rbp                                 /* dest */
    cmpq %rsi, TCB_GID(%rbp)
    jne  fp_slow
fp_dest_found:
    /* It waits in a user-level receive that accepts us, without a timeout; nothing pending
     * for it (halt, changed user state). */
    cmpb $TS_WAIT_RECV_, TCB_STATE(%rbp)
    jne  fp_slow
    cmpq $ipc_user_return, TCB_CONT(%rbp)
    jne  fp_slow
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
2:  cmpb $0, TCB_FLAGS(%rbp)
    jne  fp_slow
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
     * dest's global id, also when `to` was its local id: fp_local_dest rewrote RDX.) */
    cmpq TCB_GID(%rbp), %rdx
    je   3f
    cmpq $0, TCB_SENDQ(%rdi)
    jne  fp_slow
3:  testb $0x38, %r9b                               /* u > 7: MR8.. through the UTCBs */
    jnz  fp_copy_words

fp_commit:
    movb $TS_WAIT_RECV_, TCB_STATE(%rdi)
    movq %rdx, TCB_WAIT_FOR(%rdi)
    movq $ipc_user_return, TCB_CONT(%rdi)
    movb $WAKE_NONE_, TCB_WAKE(%rdi)
    movb $TS_READY_, TCB_STATE(%rbp)
    movb $WAKE_DONE_, TCB_WAKE(%rbp)
    movq $0, TCB_CONT(%rbp)
    movq %rdi, TCB_LAST_SENDER(%rbp)
    andq $~0xE000, %r9                              /* MR0 for the receiver: r, x, e = 0 */
    movq %rbp, cpu0 + CPU_CURRENT(%rip)
    /* `from`: the local id within one space, else the global id (§5.3). */
    movq TCB_SPACE(%rbp), %rcx
    movq TCB_GID(%rdi), %rsi
    cmpq TCB_SPACE(%rdi), %rcx
    jne  fp_switch_space
    movq TCB_LOCAL_ID(%rdi), %rsi

fp_space_done:
    /* The kernel stack of dest's next entry; its %gs:0; the lazy-FPU trap. */
    leaq TCB_SIZE_(%rbp), %rcx
    movq tss_rsp0(%rip), %rdx
    movq %rcx, (%rdx)
    movq %rcx, cpu0 + CPU_KSTACK_TOP(%rip)
    movq TCB_LOCAL_ID(%rbp), %rdi                   /* also dest's RDI: its UTCB pointer */
    movq %rdi, gs_page(%rip)
    cmpq fpu_owner(%rip), %rbp
    je   fp_fpu_owner
    cmpb $0, fpu_ts_set(%rip)
    je   fp_set_ts
fp_enter:
#ifdef CONFIG_INVARIANTS
    /* The debug kernel checks its invariants here too, on dest's kernel stack (below its
     * frame: dest waited with a continuation, so nothing else is there); the live registers
     * are kept.  RSP is reloaded from dest's frame below anyway. */
    leaq TCB_FRAME(%rbp), %rsp
    andq $-16, %rsp
    pushq %rax
    pushq %rsi
    pushq %rdi
    pushq %r9
    pushq %r10
    pushq %r10                                      /* (16-byte alignment at the call) */
    leaq fp_where(%rip), %rdi
    call invariants_check
    popq %r10
    popq %r10
    popq %r9
    popq %rdi
    popq %rsi
    popq %rax
#endif
    movq TCB_FRAME + FR_RIP * 8(%rbp), %rcx
    movq TCB_FRAME + FR_RFLAGS * 8(%rbp), %r11
    movq TCB_FRAME + FR_RSP * 8(%rbp), %rsp
    xorl %edx, %edx
    xorl %r8d, %r8d
    xorl %ebp, %ebp
    sysretq

/* Address-space switch: CR3 (keeping the TLB with PCIDs), then %gs's base, which a user
 * thread could have changed (docs/architecture.md).  RCX = dest's space. */
fp_switch_space:
    movq SPACE_PML4_PHYS(%rcx), %rdx
    cmpb $0, cpu_has_pcid(%rip)
    je   4f
    movzwl SPACE_PCID(%rcx), %r8d
    orq  %r8, %rdx
    testl %r8d, %r8d
    jz   4f
    cmpb $0, SPACE_TLB_STALE(%rcx)
    jne  4f
    btsq $63, %rdx                                  /* no flush: the PCID keeps them apart */
4:  movb $0, SPACE_TLB_STALE(%rcx)
    movq %rdx, %cr3
    movq %rcx, loaded_space(%rip)
    cmpb $0, cpu_has_fsgsbase(%rip)
    je   5f
    movabsq $GS_PAGE_USER, %rdx
    wrgsbase %rdx
    jmp  fp_space_done
5:  movq %rax, %r11
    movl $MSR_GS_BASE, %ecx
    movl $(GS_PAGE_USER & 0xFFFFFFFF), %eax
    movl $(GS_PAGE_USER >> 32), %edx
    wrmsr
    movq %r11, %rax
    jmp  fp_space_done

/* `to` is a local id: only the thread that last sent to us, in our space, qualifies. */
fp_local_dest:
    testq %rsi, %rsi
    jz   fp_slow
    movq TCB_LAST_SENDER(%rdi), %rbp
    testq %rbp, %rbp
    jz   fp_slow
    cmpq %rsi, TCB_LOCAL_ID(%rbp)
    jne  fp_slow
    movq TCB_SPACE(%rbp), %rcx
    cmpq TCB_SPACE(%rdi), %rcx
    jne  fp_slow
    cmpq %rdx, %rsi                                 /* a Call to it waits for its global id */
    jne  fp_dest_found
    movq TCB_GID(%rbp), %rdx
    jmp  fp_dest_found

fp_fpu_owner:
    cmpb $0, fpu_ts_set(%rip)
    je   fp_enter
    clts
    movb $0, fpu_ts_set(%rip)
    jmp  fp_enter

fp_set_ts:
    movq %cr0, %rcx
    orq  $8, %rcx
    movq %rcx, %cr0
    movb $1, fpu_ts_set(%rip)
    jmp  fp_enter

/* MR8..MRu from the sender's UTCB to the receiver's. */
fp_copy_words:
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
    jmp  fp_commit

/* A guard failed: nothing has changed.  Complete the user frame (RBP and RCX were scratch;
 * both may be clobbered by Ipc) and take the slow path. */
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
