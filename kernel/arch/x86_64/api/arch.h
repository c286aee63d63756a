/* The interface between the generic kernel and the x86-64 architecture code.  Generic files
 * (the .c files of kernel/ and kernel/kdb/) include only this header and the two it includes from
 * kernel/arch/x86_64/api; the build compiles them with that directory, not the arch one, on
 * the include path (kernel/build.mk), so an x86 header there does not build.  What is here:
 * the address map (layout.h), page tables with opaque entries (pagetable.h), the arch part
 * of a TCB, and functions; registers, frames, entry bits and instructions stay behind it
 * (docs/architecture.md, "The arch interface"). */
#ifndef ARCH_H
#define ARCH_H

#include "types.h"
#include "config.h"
#include "layout.h"
#include "pagetable.h"

/* --- the arch part of a TCB ------------------------------------------------------------ */
struct arch_tcb {
    /* The thread's user FS and GS bases.  While it runs they are in the CPU (the thread may
     * move them with wrfsbase/wrgsbase) and these words are stale; the switch tail
     * (switch_tail.h) saves them when it stops running.  New threads: FS 0, GS GS_PAGE_USER
     * (%gs:0 = the UTCB pointer, X.2). */
    word_t fs_base;
    word_t gs_base;
    bool fpu_used;              /* the FPU area holds this thread's state */
};

/* The saved user registers at the top of every kernel stack: opaque here (frame.h). */
struct frame;
#define ARCH_FRAME_SIZE     176

/* Bytes of a thread's FPU/SSE/AVX save area (xsave or fxsave image, context.c); tcb.h gives
 * it its place in the TCB slot. */
#define ARCH_FPU_AREA_SIZE  1024

/* The per-CPU block; `current` is the running thread (sched.h: current()).  The assembly
 * reads it at fixed offsets (frame.h). */
struct tcb;
struct cpu_local {
    word_t kstack_top;          /* top of the current thread's kernel stack (syscall entry) */
    word_t user_rsp;            /* scratch: user RSP at syscall entry */
    struct tcb *current;        /* the thread this CPU runs */
};
extern struct cpu_local cpu0;

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
struct space;
void arch_thread_init_frame(struct tcb *t, word_t ip, word_t sp);
void arch_switch(struct tcb *from, struct tcb *to);     /* returns when `from` runs again */
void arch_set_continuation(struct tcb *t, void (*fn)(struct tcb *));
NORETURN void arch_activate_continuation(struct tcb *t, void (*fn)(struct tcb *));
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
void arch_dump_frame(const struct frame *f);     /* the kernel debugger's register dump */
#ifdef CONFIG_INVARIANTS
/* Debug kernel: t's user frame as it may leave for user mode (selectors, RIP, RFLAGS); enters
 * the kernel debugger if not (entry_checks.c). */
void arch_check_user_frame(struct tcb *t, const char *where);
#endif

/* --- System calls (syscall_abi.c) ------------------------------------------------------ */
/* The user address of the stub of the system call whose KIP link field is at kip_off. */
word_t arch_syscall_link(unsigned kip_off);
/* The IPC fast path on or off (boot option fastpath=off). */
void arch_ipc_fastpath(bool on);
bool arch_ipc_fastpath_on(void);

/* --- Memory ----------------------------------------------------------------------------- */
bool arch_has_1g_pages(void);
bool arch_has_nx(void);
bool arch_phys_addressable(paddr_t pa);
void arch_space_init(struct space *s);  /* its PCID and the value a switch loads */
void arch_pcid_free(uint16_t pcid);
void arch_space_forget(struct space *s);
bool arch_tcb_back(word_t va);
void arch_tcb_release(word_t va);
void arch_iowin_build(pte_t *pdpt, pte_t *pd, pte_t *pt, paddr_t bitmap);
void paging_init(void);                 /* the kernel's address space, at boot */
void cpu_enable_pcid(void);             /* once the first spaces exist */

#endif
