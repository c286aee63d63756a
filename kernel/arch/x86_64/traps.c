/* Exceptions and interrupts: decode what happened and hand it to the generic kernel. */
#include "arch.h"
#include "frame.h"
#include "paging.h"
#include "x86.h"
#include "cpu.h"
#include "intctl.h"
#include "tcb.h"
#include "sched.h"
#include "space.h"
#include "fault.h"
#include "foreign.h"
#include "thread.h"
#include "timeout.h"
#include "uaccess.h"
#include "iospace.h"
#include "irq.h"
#include "kip.h"
#include "console.h"
#include "invariants.h"
#include "lib.h"
#include "kdb/kdb.h"
#include <l4/fpage.h>

void arch_fpu_trap(void);
void kdebug_trap(struct tcb *t, struct frame *f);   /* kdebug.c */

static const char *const exc_names[32] = {
    "divide error", "debug", "NMI", "breakpoint", "overflow", "bound", "invalid opcode",
    "device not available", "double fault", "coprocessor overrun", "invalid TSS",
    "segment not present", "stack fault", "general protection", "page fault", "reserved",
    "x87 error", "alignment check", "machine check", "SIMD error", "virtualisation",
    "control protection",
};

const char *arch_exception_name(unsigned v)
{
    return v < 32 && exc_names[v] ? exc_names[v] : "?";
}

void arch_dump_frame(const struct frame *f)
{
    printk("RIP %016lx  CS %lx  RFLAGS %016lx  RSP %016lx  SS %lx\n",
           f->rip, f->cs, f->rflags, f->rsp, f->ss);
    printk("RAX %016lx  RBX %016lx  RCX %016lx  RDX %016lx\n", f->rax, f->rbx, f->rcx, f->rdx);
    printk("RSI %016lx  RDI %016lx  RBP %016lx  R8  %016lx\n", f->rsi, f->rdi, f->rbp, f->r8);
    printk("R9  %016lx  R10 %016lx  R11 %016lx  R12 %016lx\n", f->r9, f->r10, f->r11, f->r12);
    printk("R13 %016lx  R14 %016lx  R15 %016lx\n", f->r13, f->r14, f->r15);
    printk("vector %lu (%s)  error %lx  CR2 %016lx  CR3 %016lx\n", f->vector,
           arch_exception_name(f->vector), f->error, read_cr2(), read_cr3());
}

static NORETURN void kernel_exception(struct frame *f)
{
    printk("\nKERNEL EXCEPTION %lu (%s) in thread %lx\n", f->vector, arch_exception_name(f->vector),
           cpu0.current ? cpu0.current->gid : 0);
    arch_dump_frame(f);
    kdb_enter("kernel exception", f);
    arch_halt_forever();
}

/* KernelInterface: the `lock; nop` trap (contract §2.1). */
static void kernel_interface(struct tcb *t, struct frame *f)
{
    f->rax = l4_fpage_base(t->space->kip_area);
    f->rcx = L4_KIP_API_VERSION;
    f->rdx = L4_KIP_API_FLAGS;
    f->rsi = L4_KIP_KERNEL_ID;
    f->rip += 2;
}

/* #GP from user mode: an in/out to a port the space does not hold?  Decode the instruction
 * (optional 0x66 and rep prefixes; in/out/ins/outs with immediate or DX port). */
static bool decode_io(struct tcb *t, struct frame *f, unsigned *port, unsigned *count)
{
    uint8_t b[4];
    if (!uread(t->space, f->rip, b, sizeof(b)) && !uread(t->space, f->rip, b, 1))
        return false;
    unsigned i = 0, opsize = 4;
    for (; i < 3; i++) {
        if (b[i] == 0x66)
            opsize = 2;
        else if (b[i] != 0xF3 && b[i] != 0xF2)
            break;
    }
    uint8_t op = b[i];
    unsigned dx = f->rdx & 0xFFFF;
    switch (op) {
    case 0xE4: case 0xE6: *port = b[i + 1]; *count = 1; return true;
    case 0xE5: case 0xE7: *port = b[i + 1]; *count = opsize; return true;
    case 0xEC: case 0xEE: case 0x6C: case 0x6E: *port = dx; *count = 1; return true;
    case 0xED: case 0xEF: case 0x6D: case 0x6F: *port = dx; *count = opsize; return true;
    default: return false;
    }
}

/* Page-fault error code bits. */
#define PF_P    0x1     /* the page was present: a protection fault */
#define PF_W    0x2
#define PF_U    0x4     /* a user-mode access (clear: an implicit supervisor-mode access) */
#define PF_RSVD 0x8
#define PF_I    0x10

/* Can the pager resolve this #PF from user mode?  Not at a kernel address, not with a reserved
 * bit set, and not for an implicit supervisor-mode access that SMAP refused (present page,
 * U clear): SMAP refuses every such access to a user page however it is mapped, so a pager
 * that maps the page again only makes the instruction fault again, for ever.  QEMU (7.2, TCG)
 * makes those accesses for the stack of a user-mode iretq, lretq and far call; the SDM makes
 * only descriptor-table and TSS reads implicit, and those never touch user pages since the
 * LDT is null (cpu.c).  Such a fault is an exception for the thread's handler instead. */
static bool pager_can_resolve(const struct frame *f, word_t addr)
{
    if (addr >= L4_USER_AREA_END || (f->error & PF_RSVD))
        return false;
    return !(cpu_has_smap && (f->error & (PF_P | PF_U)) == PF_P);
}

static void user_exception(struct tcb *t, struct frame *f)
{
    unsigned v = (unsigned)f->vector;
    /* A thread of a foreign space speaks no X.2: KernelInterface, kdebug and I/O-port
     * faults are plain exceptions for its handler. */
    bool x2 = !(t->flags & TF_FOREIGN);
    switch (v) {
    case 14: {
        word_t addr = read_cr2();
        unsigned access = (f->error & PF_I) ? FAULT_X : (f->error & PF_W) ? FAULT_W : FAULT_R;
        if (pager_can_resolve(f, addr))
            fault_page(t, addr, access, f->rip);
        else if (!x2)
            foreign_exception(t, 14, f->error, addr);
        else
            fault_exception(t, 14, f->error);       /* not a paging fault (§6.2) */
        break;
    }
    case 7:
        arch_fpu_trap();
        break;
    case 6: {
        uint8_t b[2];
        if (x2 && uread(t->space, f->rip, b, 2) && b[0] == 0xF0 && b[1] == 0x90)
            kernel_interface(t, f);
        else
            fault_exception(t, 6, 0);
        break;
    }
    case 3:
        if (x2)
            kdebug_trap(t, f);
        else
            fault_exception(t, 3, 0);
        break;
    case 13: {
        unsigned port, count;
        /* (An access past port 0xFFFF can never be allowed: that stays a #GP.) */
        if (x2 && f->error == 0 && decode_io(t, f, &port, &count) && port + count <= 65536 &&
            !iospace_has(t->space, port, count))
            fault_io(t, port, count, f->rip);
        else
            fault_exception(t, 13, f->error);
        break;
    }
    case 8: case 18:
        kernel_exception(f);
    default:
        fault_exception(t, v, f->error);
    }
}

static void interrupt(unsigned v)
{
    if (v == VEC_TIMER || (v == VEC_IRQ_BASE && intctl_pit_tick)) {
        intctl_timer_eoi();
        timeout_tick(arch_clock_us());
        sched_tick();
    } else if (v >= VEC_IRQ_BASE && v < VEC_IRQ_BASE + arch_irq_lines()) {
        intctl_line_interrupt(v - VEC_IRQ_BASE);
    } else if (v == VEC_SPURIOUS) {
        /* nothing to acknowledge */
    } else {
        lapic_eoi();
    }
}

/* entry.S: the frame about to go back to user mode has a non-canonical RIP (USER_RIP_CHECK):
 * the current thread's general-protection fault, as for one that someone else set. */
void user_rip_fault(void);
void user_rip_fault(void)
{
    struct tcb *t = cpu0.current;
    t->flags |= TF_USER_STATE;
    thread_return_to_user_checks(t);
}

void trap_dispatch(struct frame *f)
{
    unsigned v = (unsigned)f->vector;
    entry_check_trap(f);
    if (v == 2) {
        /* An NMI runs on its IST stack, whatever it interrupted (the kernel with interrupts
         * off, too): it reports and returns at once.  It must not schedule, block or send a
         * message (the thread's state would then live on the IST stack, which the next NMI
         * reuses), nor touch the thread's frame (that is not the frame it returns through). */
        printk("NMI in %s mode\n", frame_from_user(f) ? "user" : "kernel");
        return;
    }
    if (v >= 32) {
        interrupt(v);
    } else if (!frame_from_user(f)) {
        kernel_exception(f);
    } else {
        user_exception(cpu0.current, f);
    }
    if (frame_from_user(f)) {
        thread_return_to_user_checks(cpu0.current);
        invariants_check("trap exit");
    }
}
