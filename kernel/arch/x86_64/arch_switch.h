/* The part of a thread switch that does not touch stacks: address space, kernel stack for the
 * next entry, %gs:0, lazy-FPU trap.  Shared by arch_switch and the IPC fast path; part of the
 * arch interface, included after tcb.h and space.h. */
#ifndef ARCH_SWITCH_H
#define ARCH_SWITCH_H

#include "tcb.h"
#include "space.h"

extern struct space *loaded_space;
extern struct tcb *fpu_owner;
extern bool fpu_ts_set;
extern uint8_t gs_page[];
extern unaligned_u64 *tss_rsp0;

static inline void arch_fast_switch(struct tcb *to)
{
    cpu0.current = to;
    struct space *s = to->space;
    if ((s != loaded_space && s != &kernel_space) || (s == loaded_space && s->tlb_stale))
        arch_switch_space(s);
    word_t top = tcb_kstack_top(to);
    *tss_rsp0 = top;
    cpu0.kstack_top = top;
    *(word_t *)gs_page = to->local_id;
    if ((to != fpu_owner) != fpu_ts_set) {
        if (fpu_ts_set)
            __asm__ volatile("clts" ::: "memory");
        else
            __asm__ volatile("mov %%cr0, %%rax; or $8, %%rax; mov %%rax, %%cr0" ::: "rax", "memory");
        fpu_ts_set = !fpu_ts_set;
    }
}

#endif
