/* What the two assembly fast paths share: the IPC fast path (fastpath.S) and the foreign
 * system call's (foreign_fastpath.S).  Assembly macros; include after asm_offsets.h, in .S
 * files only.  The thread switch itself is switch_tail.h. */
#ifndef FASTPATH_H
#define FASTPATH_H

/* The thread-number bits of a global id, moved to a TCB offset by one shift and one mask: a
 * number beyond CONFIG_MAX_THREADS aliases a slot whose gid then does not match. */
#define TCB_NO_MASK ((CONFIG_MAX_THREADS - 1) << TCB_BITS)

/* \out = the TCB of the global id in \gid, or go to \fail (no such thread, stale version, a
 * free slot).  The base of the TCB array is a 64-bit constant, added from memory
 * (tcb_area_base, fastpath.S). */
.macro TCB_OF_GID gid, out, fail
    movq \gid, \out
    shrq $(32 - TCB_BITS), \out
    andq $TCB_NO_MASK, \out
    addq tcb_area_base(%rip), \out
    cmpq \gid, TCB_GID(\out)
    jne  \fail
.endm

/* \dest waits in a user-level receive (the continuation that any IPC path completes) with
 * nothing pending: its guard word (tcb.h) reads state TS_WAIT_RECV, no wake reason, no
 * timeout armed, no flags.  Else go to \fail_guard (its guard word is something else) or
 * \fail_cont. */
.macro WAITS_IN_USER_RECEIVE dest, fail_guard, fail_cont
    cmpq $TS_WAIT_RECV_, TCB_STATE(\dest)
    jne  \fail_guard
    cmpq $ipc_user_return, TCB_CONT(\dest)
    jne  \fail_cont
.endm

/* The hand-over, once every guard passed: \self blocks in its receive phase waiting for the
 * from-specifier in \wait, with the ordinary continuation, so that any later sender, fast or
 * slow, completes it; \dest's IPC is done and it is ready (it runs now, on our time slice:
 * no queue is touched).  State and wake reason are adjacent (tcb.h): one store each. */
.macro HAND_OVER self, dest, wait
    movw $(TS_WAIT_RECV_ | WAKE_NONE_ << 8), TCB_STATE(\self)
    movq \wait, TCB_WAIT_FOR(\self)
    movq $ipc_user_return, TCB_CONT(\self)
    movw $(TS_READY_ | WAKE_DONE_ << 8), TCB_STATE(\dest)
    movq $0, TCB_CONT(\dest)
.endm

/* Enter the new current thread (RBP, switched to by SWITCH_THREAD) in user mode at its saved
 * RIP, RFLAGS and RSP with sysret; every other register is what the caller left in it.  The
 * debug kernel first checks its invariants (\where names the exit), on that thread's kernel
 * stack below its frame (it waited with a continuation: nothing else is there), keeping RAX,
 * RSI, RDI, R9 and R10 and zeroing RDX and R8, where the call leaves kernel values. */
.macro SYSRET_TO_CURRENT where
#ifdef CONFIG_INVARIANTS
    leaq TCB_FRAME(%rbp), %rsp
    andq $-16, %rsp
    pushq %rax
    pushq %rsi
    pushq %rdi
    pushq %r9
    pushq %r10
    pushq %r10                                      /* (16-byte alignment at the call) */
    leaq \where(%rip), %rdi
    call invariants_check
    popq %r10
    popq %r10
    popq %r9
    popq %rdi
    popq %rsi
    popq %rax
    xorl %edx, %edx
    xorl %r8d, %r8d
#endif
    movq TCB_FRAME + FR_RIP * 8(%rbp), %rcx
    movq TCB_FRAME + FR_RFLAGS * 8(%rbp), %r11
    movq TCB_FRAME + FR_RSP * 8(%rbp), %rsp
    xorl %ebp, %ebp
    sysretq
.endm

#endif
