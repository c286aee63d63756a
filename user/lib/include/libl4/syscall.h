/* libl4: one wrapper per X.2 system call (contract §4.1, §4.2).
 *
 * Calling sequence for every call: load the argument registers, `push %rbp`,
 * `call *ENTRY` where ENTRY is the absolute address the KIP published (cached in
 * l4lib_syscalls by l4lib_init), `pop %rbp`, take the outputs.  Every register that the
 * contract lists neither as an output nor as preserved is declared clobbered; RBP is
 * saved by the push/pop.  The push writes below RSP, so code using these wrappers must be
 * compiled with -mno-red-zone (USER_CFLAGS does so). */
#ifndef LIBL4_SYSCALL_H
#define LIBL4_SYSCALL_H

#include <stddef.h>
#include <l4/types.h>
#include <l4/thread.h>
#include <l4/pecan.h>
#include <l4/control.h>
#include "utcb.h"

#if !defined(__x86_64__)
#error "libl4 is for x86-64 only"
#endif

/* Entry addresses, in the order of the KIP fields 0x1A0..0x1F0. */
struct l4lib_syscall_table {
    l4_word_t space_control;
    l4_word_t thread_control;
    l4_word_t processor_control;
    l4_word_t memory_control;
    l4_word_t ipc;
    l4_word_t lipc;
    l4_word_t unmap;
    l4_word_t exchange_registers;
    l4_word_t system_clock;
    l4_word_t thread_switch;
    l4_word_t schedule;
};
extern struct l4lib_syscall_table l4lib_syscalls;

/* Read the system-call addresses from a KIP (called by l4lib_init). */
void l4lib_init_syscalls(const void *kip);
/* Library start-up, called by crt0 before main(): KIP, system-call table, constructors. */
void l4lib_init(void);
/* Fault in every page of the program's image now (init.c): for servers that must not fault
 * on their own code or data once the kernel's memory may be exhausted. */
void l4_image_touch(void);

/* The call through the cached address: `call *l4lib_syscalls+OFF(%rip)`.  The address is
 * an immediate operand, so no register is needed for it (MemoryControl uses every GPR). */
#define L4LIB_SYSCALL_SEQ                     \
    "pushq %%rbp\n\t"                         \
    "call *%c[entry](%%rip)\n\t"              \
    "popq %%rbp\n\t"
#define L4LIB_ENTRY(name) [entry] "i"(&l4lib_syscalls.name)

/* MR0..MR7 <-> R9, RAX, RBX, R10, R12, R13, R14, R15 through the UTCB pointer in RDI. */
#define L4LIB_LOAD_MR0_7                      \
    "movq 0(%%rdi), %%r9\n\t"                 \
    "movq 8(%%rdi), %%rax\n\t"                \
    "movq 16(%%rdi), %%rbx\n\t"               \
    "movq 24(%%rdi), %%r10\n\t"               \
    "movq 32(%%rdi), %%r12\n\t"               \
    "movq 40(%%rdi), %%r13\n\t"               \
    "movq 48(%%rdi), %%r14\n\t"               \
    "movq 56(%%rdi), %%r15\n\t"
#define L4LIB_STORE_MR0_7                     \
    "movq %%r9, 0(%%rdi)\n\t"                 \
    "movq %%rax, 8(%%rdi)\n\t"                \
    "movq %%rbx, 16(%%rdi)\n\t"               \
    "movq %%r10, 24(%%rdi)\n\t"               \
    "movq %%r12, 32(%%rdi)\n\t"               \
    "movq %%r13, 40(%%rdi)\n\t"               \
    "movq %%r14, 48(%%rdi)\n\t"               \
    "movq %%r15, 56(%%rdi)\n\t"

/* --- ExchangeRegisters (§4.4.2) -------------------------------------------------------
 * In: RAX dest, RSI control, RDX SP, R8 IP, R9 FLAGS, R10 handle, RDI pager.
 * Out: the same registers (RAX = result id); everything else clobbered. */
/* The control bits (L4_EXREGS_*) are in <l4/control.h>. */
struct l4_exregs {
    l4_word_t control, sp, ip, flags, handle, pager;
};

static inline l4_word_t l4_exchange_registers(l4_word_t dest, l4_word_t control, l4_word_t sp,
                                              l4_word_t ip, l4_word_t flags, l4_word_t handle,
                                              l4_word_t pager, struct l4_exregs *old)
{
    register l4_word_t r8 __asm__("r8") = ip;
    register l4_word_t r9 __asm__("r9") = flags;
    register l4_word_t r10 __asm__("r10") = handle;
    __asm__ volatile(L4LIB_SYSCALL_SEQ
                     : "+a"(dest), "+S"(control), "+d"(sp), "+r"(r8), "+r"(r9), "+r"(r10),
                       "+D"(pager)
                     : L4LIB_ENTRY(exchange_registers)
                     : "rbx", "rcx", "r11", "r12", "r13", "r14", "r15", "memory", "cc");
    if (old) {
        old->control = control;
        old->sp = sp;
        old->ip = r8;
        old->flags = r9;
        old->handle = r10;
        old->pager = pager;
    }
    return dest;
}

/* Pecan's extension (include/l4/pecan.h): a thread's FS and GS base through ExchangeRegisters.
 * control: L4_EXREGS_SET_FS_BASE / _SET_GS_BASE (fs, gs) and any other control bits; the old
 * bases are always asked for (L4_EXREGS_GET_BASES) and stored into *old_fs / *old_gs if not
 * NULL.  Returns the result id (nilthread on error: ErrorCode). */
static inline l4_word_t l4_exchange_bases(l4_word_t dest, l4_word_t control, l4_word_t fs,
                                          l4_word_t gs, l4_word_t *old_fs, l4_word_t *old_gs)
{
    register l4_word_t r8 __asm__("r8") = 0;
    register l4_word_t r9 __asm__("r9") = 0;
    register l4_word_t r10 __asm__("r10") = 0;
    register l4_word_t r12 __asm__("r12") = fs;
    register l4_word_t r13 __asm__("r13") = gs;
    l4_word_t sp = 0, pager = L4_NILTHREAD;
    control |= L4_EXREGS_GET_BASES;
    __asm__ volatile(L4LIB_SYSCALL_SEQ
                     : "+a"(dest), "+S"(control), "+d"(sp), "+r"(r8), "+r"(r9), "+r"(r10),
                       "+D"(pager), "+r"(r12), "+r"(r13)
                     : L4LIB_ENTRY(exchange_registers)
                     : "rbx", "rcx", "r11", "r14", "r15", "memory", "cc");
    if (old_fs)
        *old_fs = r12;
    if (old_gs)
        *old_gs = r13;
    return dest;
}

/* Local <-> global id conversion (control 0: read only). */
static inline l4_word_t l4_global_id_of(l4_word_t tid)
{
    if (l4_is_global_id(tid))
        return tid;
    return l4_exchange_registers(tid, 0, 0, 0, 0, 0, L4_NILTHREAD, NULL);
}
static inline l4_word_t l4_local_id_of(l4_word_t tid)
{
    if (l4_is_local_id(tid))
        return tid;
    return l4_exchange_registers(tid, 0, 0, 0, 0, 0, L4_NILTHREAD, NULL);
}
/* Resume a halted thread / abort a start wait and run it at sp/ip (libl4's Start_SpIp). */
static inline l4_word_t l4_start_sp_ip(l4_word_t tid, l4_word_t sp, l4_word_t ip)
{
    return l4_exchange_registers(tid, L4_EXREGS_SET_HALT | L4_EXREGS_ABORT_SEND |
                                 L4_EXREGS_ABORT_RECV | L4_EXREGS_SET_SP | L4_EXREGS_SET_IP,
                                 sp, ip, 0, 0, L4_NILTHREAD, NULL);
}
static inline l4_word_t l4_stop(l4_word_t tid, struct l4_exregs *old)
{
    return l4_exchange_registers(tid, L4_EXREGS_SET_HALT | L4_EXREGS_HALT | L4_EXREGS_DELIVER,
                                 0, 0, 0, 0, L4_NILTHREAD, old);
}

/* --- ThreadControl (§4.4.3) -----------------------------------------------------------
 * In: RDI dest, R8 SpaceSpecifier, RDX Scheduler, RSI Pager, R9 UtcbLocation.  Out: RAX. */
#define L4_UTCB_NO_CHANGE (~0ull)

static inline l4_word_t l4_thread_control(l4_word_t dest, l4_word_t space, l4_word_t scheduler,
                                          l4_word_t pager, l4_word_t utcb_location)
{
    l4_word_t result;
    register l4_word_t r8 __asm__("r8") = space;
    register l4_word_t r9 __asm__("r9") = utcb_location;
    __asm__ volatile(L4LIB_SYSCALL_SEQ
                     : "=a"(result), "+D"(dest), "+d"(scheduler), "+S"(pager), "+r"(r8),
                       "+r"(r9)
                     : L4LIB_ENTRY(thread_control)
                     : "rbx", "rcx", "r10", "r11", "r12", "r13", "r14", "r15", "memory", "cc");
    return result;
}

/* --- SystemClock (§4.4.4): out RAX (microseconds since boot). -------------------------- */
/* Pecan's stub clobbers only RDX and the flags (docs/x2-deviations.md §6), so the rest of
 * the registers stay live across it: the clock is cheap enough for lx's hot path. */
static inline l4_word_t l4_system_clock(void)
{
    l4_word_t clock, rdx;
    __asm__ volatile("call *%c[entry](%%rip)"
                     : "=a"(clock), "=d"(rdx)
                     : L4LIB_ENTRY(system_clock)
                     : "cc");
    (void)rdx;
    return clock;
}

/* --- ThreadSwitch (§4.4.5): in RDI dest; no outputs. --------------------------------- */
static inline void l4_thread_switch(l4_word_t dest)
{
    __asm__ volatile(L4LIB_SYSCALL_SEQ
                     : "+D"(dest)
                     : L4LIB_ENTRY(thread_switch)
                     : "rax", "rbx", "rcx", "rdx", "rsi", "r8", "r9", "r10", "r11", "r12",
                       "r13", "r14", "r15", "memory", "cc");
}
static inline void l4_yield(void) { l4_thread_switch(L4_NILTHREAD); }

/* --- Schedule (§4.4.6) ----------------------------------------------------------------
 * In: RDI dest, RDX TimeControl, R8 ProcessorControl, RSI PrioControl, R9 PreemptionControl.
 * Out: RAX result (thread state L4_SCHEDULE_*, 0 = error), RDX old TimeControl.
 * L4_SCHEDULE_NO_CHANGE (~0) = no change; the words' fields are in <l4/control.h>. */
static inline l4_word_t l4_schedule(l4_word_t dest, l4_word_t time_control,
                                    l4_word_t processor_control, l4_word_t prio_control,
                                    l4_word_t preemption_control, l4_word_t *old_time_control)
{
    l4_word_t result;
    register l4_word_t r8 __asm__("r8") = processor_control;
    register l4_word_t r9 __asm__("r9") = preemption_control;
    __asm__ volatile(L4LIB_SYSCALL_SEQ
                     : "=a"(result), "+D"(dest), "+d"(time_control), "+S"(prio_control),
                       "+r"(r8), "+r"(r9)
                     : L4LIB_ENTRY(schedule)
                     : "rbx", "rcx", "r10", "r11", "r12", "r13", "r14", "r15", "memory", "cc");
    if (old_time_control)
        *old_time_control = time_control;
    return result;
}
static inline l4_word_t l4_set_priority(l4_word_t dest, unsigned prio)
{
    return l4_schedule(dest, L4_SCHEDULE_NO_CHANGE, L4_SCHEDULE_NO_CHANGE, prio & L4_PRIO_CTL_MAX,
                       L4_SCHEDULE_NO_CHANGE, NULL);
}

/* --- Ipc / Lipc (§4.4.7) --------------------------------------------------------------
 * In: RSI to, RDX FromSpecifier, R8 Timeouts, R9/RAX/RBX/R10/R12-R15 = MR0-MR7 (loaded
 * here from the UTCB), RDI UTCB pointer.  Out: RSI from, the same eight registers =
 * MR0-MR7 (stored back into the UTCB here), RDI = UTCB pointer.  RCX, RDX, R8, R11
 * clobbered.  Returns MR0 (the tag). */
#define L4LIB_DEFINE_IPC(fn, entryname)                                                     \
static inline l4_word_t fn(l4_word_t to, l4_word_t from_spec, l4_word_t timeouts,           \
                           l4_word_t *from)                                                 \
{                                                                                           \
    l4_word_t *utcb = l4_utcb();                                                            \
    register l4_word_t r8 __asm__("r8") = timeouts;                                         \
    register l4_word_t r9 __asm__("r9");                                                    \
    __asm__ volatile(L4LIB_LOAD_MR0_7                                                       \
                     L4LIB_SYSCALL_SEQ                                                      \
                     L4LIB_STORE_MR0_7                                                      \
                     : "+S"(to), "+d"(from_spec), "+r"(r8), "=&r"(r9), "+D"(utcb)           \
                     : L4LIB_ENTRY(entryname)                                               \
                     : "rax", "rbx", "rcx", "r10", "r11", "r12", "r13", "r14", "r15",       \
                       "memory", "cc");                                                     \
    if (from)                                                                               \
        *from = to;                                                                         \
    return r9;                                                                              \
}
L4LIB_DEFINE_IPC(l4_ipc, ipc)
L4LIB_DEFINE_IPC(l4_lipc, lipc)

/* --- Unmap (§4.4.8) -------------------------------------------------------------------
 * In: RDX control, MR0-MR7 in R9/RAX/RBX/R10/R12-R15 and in the UTCB, RDI UTCB pointer.
 * Out: the eight MR registers = result MR0-MR7 (stored back into the UTCB), RDI.
 * control: k | L4_UNMAP_FLUSH (<l4/control.h>). */
static inline void l4_unmap(l4_word_t control)
{
    l4_word_t *utcb = l4_utcb();
    __asm__ volatile(L4LIB_LOAD_MR0_7
                     L4LIB_SYSCALL_SEQ
                     L4LIB_STORE_MR0_7
                     : "+d"(control), "+D"(utcb)
                     : L4LIB_ENTRY(unmap)
                     : "rax", "rbx", "rcx", "rsi", "r8", "r9", "r10", "r11", "r12", "r13",
                       "r14", "r15", "memory", "cc");
}

/* --- SpaceControl (§4.4.9) ------------------------------------------------------------
 * In: RDI SpaceSpecifier, RSI control, RDX KipArea, R8 UtcbArea, R9 Redirector.
 * Out: RAX result, RDX old control. */
static inline l4_word_t l4_space_control(l4_word_t space, l4_word_t control, l4_word_t kip_area,
                                         l4_word_t utcb_area, l4_word_t redirector,
                                         l4_word_t *old_control)
{
    l4_word_t result;
    register l4_word_t r8 __asm__("r8") = utcb_area;
    register l4_word_t r9 __asm__("r9") = redirector;
    __asm__ volatile(L4LIB_SYSCALL_SEQ
                     : "=a"(result), "+D"(space), "+S"(control), "+d"(kip_area), "+r"(r8),
                       "+r"(r9)
                     : L4LIB_ENTRY(space_control)
                     : "rbx", "rcx", "r10", "r11", "r12", "r13", "r14", "r15", "memory", "cc");
    if (old_control)
        *old_control = kip_area;    /* RDX */
    return result;
}

/* SpaceControl with Pecan's control word (docs/linux-abi.md): the handler of a foreign space
 * travels in R10. */
static inline l4_word_t l4_space_control_foreign(l4_word_t space, l4_word_t control,
                                                 l4_word_t kip_area, l4_word_t utcb_area,
                                                 l4_word_t redirector, l4_word_t handler,
                                                 l4_word_t *old_control)
{
    l4_word_t result;
    register l4_word_t r8 __asm__("r8") = utcb_area;
    register l4_word_t r9 __asm__("r9") = redirector;
    register l4_word_t r10 __asm__("r10") = handler;
    __asm__ volatile(L4LIB_SYSCALL_SEQ
                     : "=a"(result), "+D"(space), "+S"(control), "+d"(kip_area), "+r"(r8),
                       "+r"(r9), "+r"(r10)
                     : L4LIB_ENTRY(space_control)
                     : "rbx", "rcx", "r11", "r12", "r13", "r14", "r15", "memory", "cc");
    if (old_control)
        *old_control = kip_area;    /* RDX */
    return result;
}

/* A channel change of a foreign space (docs/linux-abi.md §9): `ctl` is L4_SPACE_CTL_CHAN_REVOKE
 * and/or L4_SPACE_CTL_CHAN_MAP (include/l4/pecan.h), `partner` a global id. */
static inline l4_word_t l4_channel_control(l4_word_t space, l4_word_t ctl, l4_word_t partner)
{
    return l4_space_control_foreign(space, L4_SPACE_CTL_CHANNEL | ctl, 0, 0, L4_NILTHREAD, partner, 0);
}

/* The space's window (an fpage in the UTCB-area argument, R8; nilpage: none): native
 * receives map only into it (docs/linux-abi.md §9.5). */
static inline l4_word_t l4_channel_window(l4_word_t space, l4_word_t fpage)
{
    return l4_space_control_foreign(space, L4_SPACE_CTL_CHANNEL | L4_SPACE_CTL_CHAN_WINDOW, 0,
                                    fpage, L4_NILTHREAD, L4_NILTHREAD, 0);
}

/* --- ProcessorControl (§4.4.10) -------------------------------------------------------
 * In: RDI ProcessorNo, RSI InternalFrequency, RDX ExternalFrequency, R8 voltage.  Out: RAX. */
static inline l4_word_t l4_processor_control(l4_word_t proc, l4_word_t internal_freq,
                                             l4_word_t external_freq, l4_word_t voltage)
{
    l4_word_t result;
    register l4_word_t r8 __asm__("r8") = voltage;
    __asm__ volatile(L4LIB_SYSCALL_SEQ
                     : "=a"(result), "+D"(proc), "+S"(internal_freq), "+d"(external_freq),
                       "+r"(r8)
                     : L4LIB_ENTRY(processor_control)
                     : "rbx", "rcx", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "memory",
                       "cc");
    return result;
}

/* --- MemoryControl (§4.4.11) ----------------------------------------------------------
 * In: RDX control, RCX attribute0 (copied into R9 too), RSI attribute1, R8 attribute2,
 * R11 attribute3, RAX/RBX/R10/R12-R15 = MR1-MR7 (loaded here from the UTCB), RDI UTCB
 * pointer; MR0 only in the UTCB.  Out: RDX result, RCX = MR0 and RAX = MR1 (stored back
 * into the UTCB here), RDI.  Every other register is clobbered. */
#define L4_MEMATTR_DEFAULT          0
#define L4_MEMATTR_WRITE_BACK       1
#define L4_MEMATTR_WRITE_THROUGH    2
#define L4_MEMATTR_UNCACHEABLE_MINUS 3
#define L4_MEMATTR_UNCACHEABLE      4
#define L4_MEMATTR_WRITE_COMBINING  5
#define L4_MEMATTR_WRITE_PROTECTED  8

static inline l4_word_t l4_memory_control(l4_word_t control, l4_word_t a0, l4_word_t a1,
                                          l4_word_t a2, l4_word_t a3)
{
    l4_word_t *utcb = l4_utcb();
    register l4_word_t r8 __asm__("r8") = a2;
    register l4_word_t r11 __asm__("r11") = a3;
    __asm__ volatile("movq %%rcx, %%r9\n\t"
                     "movq 8(%%rdi), %%rax\n\t"
                     "movq 16(%%rdi), %%rbx\n\t"
                     "movq 24(%%rdi), %%r10\n\t"
                     "movq 32(%%rdi), %%r12\n\t"
                     "movq 40(%%rdi), %%r13\n\t"
                     "movq 48(%%rdi), %%r14\n\t"
                     "movq 56(%%rdi), %%r15\n\t"
                     L4LIB_SYSCALL_SEQ
                     "movq %%rcx, 0(%%rdi)\n\t"
                     "movq %%rax, 8(%%rdi)\n\t"
                     : "+d"(control), "+c"(a0), "+S"(a1), "+r"(r8), "+r"(r11), "+D"(utcb)
                     : L4LIB_ENTRY(memory_control)
                     : "rax", "rbx", "r9", "r10", "r12", "r13", "r14", "r15", "memory", "cc");
    return control;
}

#endif
