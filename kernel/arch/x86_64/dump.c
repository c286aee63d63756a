/* A register frame on the console: the kernel debugger's dump, and the end of an exception in
 * the kernel itself. */
#include "arch.h"
#include "frame.h"
#include "x86.h"
#include "tcb.h"
#include "console.h"
#include "kdb/kdb.h"

static const char *const exc_names[32] = {
    "divide error", "debug", "NMI", "breakpoint", "overflow", "bound", "invalid opcode",
    "device not available", "double fault", "coprocessor overrun", "invalid TSS",
    "segment not present", "stack fault", "general protection", "page fault", "reserved",
    "x87 error", "alignment check", "machine check", "SIMD error", "virtualisation",
    "control protection",
};

static const char *exception_name(unsigned v)
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
           exception_name(f->vector), f->error, read_cr2(), read_cr3());
}

void kernel_exception(struct frame *f)
{
    printk("\nKERNEL EXCEPTION %lu (%s) in thread %lx\n", f->vector, exception_name(f->vector),
           cpu0.current ? cpu0.current->gid : 0);
    arch_dump_frame(f);
    kdb_enter("kernel exception", f);
    arch_halt_forever();
}
