/* The interface between the generic kernel and the x86-64 architecture code.  Generic files
 * include only this header from the arch directory. */
#ifndef ARCH_H
#define ARCH_H

#include "types.h"
#include "config.h"
#include "layout.h"
#include "frame.h"
#include "paging.h"
#include "arch_tcb.h"
#include "pagetable.h"

/* --- CPU -------------------------------------------------------------------------- */
static inline void arch_irq_disable(void) { __asm__ volatile("cli" ::: "memory"); }
static inline void arch_irq_enable(void)  { __asm__ volatile("sti" ::: "memory"); }
static inline void arch_cpu_relax(void)   { __asm__ volatile("pause"); }
NORETURN void arch_halt_forever(void);
void arch_idle(void);                   /* wait for an interrupt with interrupts enabled */
NORETURN void arch_reboot(void);
NORETURN void arch_qemu_exit(unsigned code);

/* sysret and iret fault in the kernel on a non-canonical RIP. */
static inline bool arch_canonical(word_t va) { return (word_t)(((int64_t)va << 16) >> 16) == va; }

/* --- Serial console ------------------------------------------------------------------ */
void arch_serial_init(void);
void arch_serial_putc(char c);
int  arch_serial_getc(void);

/* --- Time ----------------------------------------------------------------------------- */
uint64_t arch_clock_us(void);           /* microseconds since boot, monotonic */
uint64_t arch_tsc_khz(void);
uint64_t arch_bus_khz(void);

/* --- Threads -------------------------------------------------------------------------- */
struct tcb;
struct space;
void arch_thread_init_frame(struct tcb *t, word_t ip, word_t sp);
void arch_switch(struct tcb *from, struct tcb *to);     /* returns when `from` runs again */
void arch_set_continuation(struct tcb *t, void (*fn)(struct tcb *));
NORETURN void arch_activate_continuation(struct tcb *t, void (*fn)(struct tcb *));
void arch_switch_space(struct space *to);
/* Every thread owns its user FS and GS base (switched with it).  New threads: FS 0, GS the
 * %gs:0 page (X.2).  The setter accepts any value: callers refuse non-canonical bases
 * (arch_canonical), which would #GP the kernel.  t may be the running thread. */
void arch_thread_init_bases(struct tcb *t);
word_t arch_thread_fs_base(struct tcb *t);
word_t arch_thread_gs_base(struct tcb *t);
void arch_set_thread_bases(struct tcb *t, word_t fs, word_t gs);
void arch_fpu_thread_exit(struct tcb *t);
word_t arch_user_ip(struct tcb *t);
word_t arch_user_sp(struct tcb *t);
word_t arch_user_flags(struct tcb *t);
void arch_set_user_ip(struct tcb *t, word_t ip);
void arch_set_user_sp(struct tcb *t, word_t sp);
void arch_set_user_flags(struct tcb *t, word_t flags);

/* --- Memory ----------------------------------------------------------------------------- */
bool arch_has_1g_pages(void);
bool arch_has_nx(void);
bool arch_phys_addressable(paddr_t pa);
uint16_t arch_pcid_alloc(void);
void arch_pcid_free(uint16_t pcid);
void arch_space_forget(struct space *s);
bool arch_tcb_back(word_t va);
void arch_tcb_release(word_t va);
void arch_iowin_build(pte_t *pdpt, pte_t *pd, pte_t *pt, paddr_t bitmap);

#endif
