/* Kernel entry and exit: exceptions, interrupts, the syscall instruction, context switch. */
#include "frame.h"
#include "asm_offsets.h"

    .text

/* Save the general registers below the vector/error words already on the stack. */
.macro SAVE_GPRS
    pushq %rax
    pushq %rbx
    pushq %rcx
    pushq %rdx
    pushq %rsi
    pushq %rdi
    pushq %rbp
    pushq %r8
    pushq %r9
    pushq %r10
    pushq %r11
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
.endm

.macro RESTORE_GPRS
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %r11
    popq %r10
    popq %r9
    popq %r8
    popq %rbp
    popq %rdi
    popq %rsi
    popq %rdx
    popq %rcx
    popq %rbx
    popq %rax
.endm

/* The frame at RSP goes back to user mode: its RIP must be canonical, or sysret would #GP in
 * ring 0 on the user's stack (Intel) and iretq #GP in the kernel.  A RIP that a start message,
 * ExchangeRegisters, an exception reply or SET_REGS set is checked in C
 * (thread_return_to_user_checks); the CPU itself can leave a non-canonical one in a frame:
 * RCX after a `syscall` in the last two bytes of the lower half, a trap's return address there
 * (int3, a single step), KernelInterface's skip over `lock; nop` there.  Then the thread takes
 * a #GP (user_rip_fault, traps.c) and leaves through whatever frame that leaves. */
.macro USER_RIP_CHECK
    movq FR_RIP * 8(%rsp), %rcx
    sarq $47, %rcx
    incq %rcx                       /* canonical: 1 (lower half) or 0 (upper) */
    cmpq $1, %rcx
    ja   user_rip_bad
.endm

/* Exception and interrupt stubs, 16 bytes each: vectors without a CPU error code push a
 * zero so that every frame has the same layout; then the vector number. */
    .align 16
    .global vector_table
vector_table:
.set vec, 0
.rept 256
    .align 16
    .if (vec == 8 || (vec >= 10 && vec <= 14) || vec == 17 || vec == 21 || vec == 29 || vec == 30)
    .else
    pushq $0
    .endif
    pushq $vec
    jmp  interrupt_common
    .set vec, vec + 1
.endr

interrupt_common:
    cld
    /* With SMAP, user mode can set RFLAGS.AC and so open user memory to the kernel; interrupt
     * and exception entry do not clear it (syscall does, through SFMASK). */
    cmpb $0, cpu_has_smap(%rip)
    je   1f
    clac
1:  SAVE_GPRS
    movq %rsp, %rdi
    call trap_dispatch              /* C: handles the event, may switch threads */
    /* fall through: return to whatever frame is on this stack */
    .global return_from_trap
return_from_trap:
    testb $3, FR_CS * 8(%rsp)
    jz   1f
    USER_RIP_CHECK
1:
#ifdef CONFIG_INVARIANTS
    movq %rsp, %rdi
    call exit_check                 /* (RSP is 16-byte aligned at every frame) */
#endif
    RESTORE_GPRS
    addq $16, %rsp                  /* vector, error */
    iretq

/* syscall: RCX = user RIP, R11 = user RFLAGS, RSP still the user's.  Interrupts are off
 * (SFMASK clears IF, DF, TF, AC).  Ipc first tries the fast path (fastpath.S); everything
 * else builds the whole struct frame at the top of the kernel stack. */
    .global syscall_full
syscall_full:
    movq %rsp, cpu0 + CPU_USER_RSP(%rip)
    movq tss_rsp0_field(%rip), %rsp
    pushq $GDT_USER_DS
    pushq cpu0 + CPU_USER_RSP(%rip)
    pushq %r11
    pushq $GDT_USER_CS
    pushq %rcx
    pushq $0
    pushq $VEC_SYSCALL
    SAVE_GPRS
    /* A thread of a foreign space: its own fast path (foreign_fastpath.S), else the C path. */
    movq cpu0 + CPU_CURRENT(%rip), %rdi
    testb $TF_FOREIGN_, TCB_FLAGS(%rdi)
#ifdef CONFIG_INVARIANTS
    jz   1f
    movq %rsp, %rdi
    call entry_check_syscall        /* (syscall_dispatch checks the other calls) */
    /* The fast path reads the user's registers: reload what the call clobbered. */
    movq FR_RAX * 8(%rsp), %rax
    movq FR_RDX * 8(%rsp), %rdx
    movq FR_RSI * 8(%rsp), %rsi
    movq FR_R8 * 8(%rsp), %r8
    movq FR_R9 * 8(%rsp), %r9
    movq FR_R10 * 8(%rsp), %r10
    movq cpu0 + CPU_CURRENT(%rip), %rdi
    jmp  foreign_syscall_fast
1:
#else
    jnz  foreign_syscall_fast
#endif
    movq %rsp, %rdi
    call syscall_dispatch           /* C: returns when this thread goes back to user mode */
    /* fall through */

/* Return to user mode from the frame at the top of the current kernel stack (RSP points at
 * it).  Frames built by the syscall entry leave with sysret, all others with iret.  The C
 * side guarantees that a sysret frame holds a canonical user RIP (thread_return_to_user_checks
 * turns a non-canonical one into the thread's #GP). */
    .global return_to_user
return_to_user:
    cmpq $VEC_SYSCALL, FR_VECTOR * 8(%rsp)
    jne  return_from_trap
    USER_RIP_CHECK
#ifdef CONFIG_INVARIANTS
    movq %rsp, %rdi
    call exit_check
#endif
    RESTORE_GPRS
    movq 16(%rsp), %rcx             /* rip */
    movq 32(%rsp), %r11             /* rflags */
    movq 40(%rsp), %rsp             /* user rsp */
    sysretq

user_rip_bad:
    call user_rip_fault             /* (RSP = the frame: 16-byte aligned) */
    jmp  return_to_user

/* switch_context(word_t *save_ksp, word_t new_ksp): save callee-saved registers and the stack
 * pointer of the running thread, continue the thread whose stack is new_ksp. */
/* Push the callee-saved registers and store the stack pointer in *RDI (the thread's ksp);
 * then switch to the stack in RSI.  switch_context's pops undo it when the thread resumes. */
.macro SUSPEND_AND_SWITCH_STACK
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
.endm

    .global switch_context
switch_context:
    SUSPEND_AND_SWITCH_STACK
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret

/* switch_to_continuation(word_t *save_ksp, word_t frame_base, void (*fn)(struct tcb *),
 * struct tcb *to): save the running thread like switch_context, then run fn(to) on the top of
 * to's kernel stack (just below its user frame) and return to user mode through that frame. */
    .global switch_to_continuation
switch_to_continuation:
    SUSPEND_AND_SWITCH_STACK
    movq %rcx, %rdi
    call *%rdx
    movq tss_rsp0_field(%rip), %rsp
    subq $FRAME_SIZE, %rsp
    jmp  return_to_user

/* run_continuation(frame_base, fn, tcb): the current thread abandons its stack and runs fn. */
    .global run_continuation
run_continuation:
    movq %rdi, %rsp
    movq %rdx, %rdi
    call *%rsi
    movq tss_rsp0_field(%rip), %rsp
    subq $FRAME_SIZE, %rsp
    jmp  return_to_user
