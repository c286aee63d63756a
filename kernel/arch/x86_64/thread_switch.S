/* The C path's entries to the thread-switch tail (switch_tail.h), so that arch_switch and the
 * IPC fast path run the same code for CR3/PCID, FS/GS bases, %gs:0, TSS RSP0 and lazy FPU. */
#include "frame.h"
#include "asm_offsets.h"
#include "switch_tail.h"

    .text

/* void arch_thread_switch(struct tcb *from, struct tcb *to): everything of a switch from
 * `from` to `to` but the stacks (context.c: arch_switch).  The address space changes unless
 * `to` is a kernel thread (it runs in whatever space is loaded) or its space is the one in
 * CR3 already.  C calling convention; clobbers only caller-saved registers. */
    .global arch_thread_switch
arch_thread_switch:
    movq TCB_SPACE(%rsi), %rcx
    movq %cr3, %r11
    andq $-4096, %r11                               /* the PML4 (bits 11:0: the PCID) */
    cmpq SPACE_PML4_PHYS(%rcx), %r11
    je   1f
    cmpq $kernel_space, %rcx
    je   1f
    SWITCH_SPACE
1:  SWITCH_THREAD %rdi, %rsi, %rcx, ts_fsgs
    ret
