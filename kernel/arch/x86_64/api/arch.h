/* The interface between the generic kernel and the x86-64 instruction set (kernel/arch/x86_64).
 * Generic files (the .c and .h files of kernel/ and kernel/kdb/) reach the machine-dependent
 * layers only through their interface headers: this one (with layout.h and pagetable.h, which
 * it includes), the X.2 glue's glue.h and iospace.h, and the PC platform's platform.h.  The
 * build compiles them with the layers' api/ directories on the include path and nothing else
 * of the layers (kernel/build.mk), so any other header of a layer does not build there, and
 * tests/host/test_arch_interface.py checks that no generic file declares what a layer defines.
 * What is here: the address map (layout.h), page tables with opaque entries (pagetable.h), the
 * arch parts of a TCB and of a space, and functions; registers, frames, entry bits and
 * instructions stay behind it (docs/architecture.md, "The arch interface"). */
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

/* --- the arch part of a space ---------------------------------------------------------- */
struct arch_space {
    pte_t *pml4;                /* top-level table (physmap address) */
    paddr_t pml4_phys;
    word_t cr3;                 /* what a switch to the space loads (arch_space_create) */
    uint16_t pcid;              /* 0 when PCIDs are not in use */
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
/* Boot: learn what the CPU has (and print it), then load the kernel's descriptor tables,
 * control registers and MSRs (after paging_init: the TSS lies in the TSS window). */
void arch_cpu_detect(void);
void arch_cpu_init(void);

/* sysret and iret fault in the kernel on a non-canonical RIP. */
static inline bool arch_canonical(word_t va) { return (word_t)(((int64_t)va << 16) >> 16) == va; }

/* --- Time ----------------------------------------------------------------------------- */
/* The clock: the TSC in microseconds since boot, monotonic (contract §1.3); the platform
 * measured its frequency (arch_timer_init, platform.h). */
uint64_t arch_clock_us(void);
uint64_t arch_tsc_khz(void);

/* --- Threads -------------------------------------------------------------------------- */
struct space;
void arch_thread_init_frame(struct tcb *t, word_t ip, word_t sp);
void arch_switch(struct tcb *from, struct tcb *to);     /* returns when `from` runs again */
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

/* --- Memory ----------------------------------------------------------------------------- */
bool arch_has_1g_pages(void);
bool arch_has_nx(void);
bool arch_phys_addressable(paddr_t pa);
/* A space's top-level table (sharing the kernel half, layout.h) and PCID: false without
 * memory.  The kernel's own space; a space's end (it may be the loaded one). */
bool arch_space_create(struct space *s);
void arch_space_init_kernel(struct space *s);
void arch_space_destroy(struct space *s);
/* TLB: the translation of [va, va + size) in s changed. */
void space_tlb_invalidate(struct space *s, word_t va, word_t size);
bool arch_tcb_back(word_t va);
void arch_tcb_release(word_t va);
void paging_init(void);                 /* the kernel's address space, at boot */
void cpu_enable_pcid(void);             /* once the first spaces exist */
/* The kernel image's physical extent (kernel.ld). */
extern char _image_phys_start[], _bss_end_phys[];

#endif
