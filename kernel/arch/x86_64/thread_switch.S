/* The C path's entries to the thread-switch tail (switch_tail.h), so that arch_switch and the
 * IPC fast path run the same code for CR3/PCID, FS/GS bases, %gs:0, TSS RSP0 and lazy FPU. */
#include "frame.h"
#include "asm_offsets.h"
#include "switch_tail.h"

    .text

/* void arch_thread_switch(struct tcb *from, struct tcb *to): everything of a switch from
 * `from` to `to` but the stacks (context.c: arch_switch).  The address space changes unless
 * `to` is a kernel thread (it runs in whatever space is loaded) or already has it loaded and
 * fresh.  C calling convention; clobbers only caller-saved registers. */
    .global arch_thread_switch
arch_thread_switch:
    movq TCB_SPACE(%rsi), %rcx
    cmpq loaded_space(%rip), %rcx
    je   2f
    cmpq $kernel_space, %rcx
    je   3f
1:  SWITCH_SPACE
3:  SWITCH_THREAD %rdi, %rsi, %rcx, ts_fsgs
    ret
2:  cmpb $0, SPACE_TLB_STALE(%rcx)
    jne  1b
    jmp  3b

/* void arch_load_space(struct space *s): load s now (space_tlb_invalidate's full flush). */
    .global arch_load_space
arch_load_space:
    movq %rdi, %rcx
    SWITCH_SPACE
    ret
