/* The interface between the generic kernel and the PC around the CPU (kernel/platform/pc):
 * the boot loader's information (multiboot), the interrupt controllers and timers, the serial
 * console, the memory a PC describes beyond the loader's map, leaving the machine.  How
 * generic code reaches the layers: api/arch.h. */
#ifndef PLATFORM_H
#define PLATFORM_H

#include "types.h"

/* --- boot ---------------------------------------------------------------------------- */
/* boot_params (boot.h) from what the loader handed over (multiboot.c).  Before paging_init:
 * the loader's structures are read through the boot page tables. */
void arch_read_boot_params(void);
/* The loader's information in its own format, as the kernel left things (modules moved), at
 * dst, whose physical address is dst_phys (at most max bytes): the PC's multiboot-info copy
 * that BootInfo's Multiboot record points to.  Returns its physical address. */
paddr_t arch_loader_info_copy(void *dst, size_t max, paddr_t dst_phys);

/* --- interrupts and timers ------------------------------------------------------------- */
/* The interrupt controllers (intctl.c), then the timers (time.c): the TSC's frequency for the
 * clock (arch_clock_us, arch.h) and the kernel's periodic tick. */
void arch_interrupts_init(void);
void arch_timer_init(void);
uint64_t arch_bus_khz(void);            /* the local-APIC timer's input clock, for the KIP */
/* An NMI (its IST stack; traps.c): reported, and with the boot option nmiwatch=US the
 * watchdog's check for a kernel that no longer takes its timer (nmiwatch.c). */
struct frame;
void platform_nmi(struct frame *f, bool from_user);
/* Interrupt lines (= interrupt threads, contract §6.3): how many, which a user may have (not
 * the kernel's timer or the 8259s' cascade), masking. */
unsigned arch_irq_lines(void);
bool arch_irq_available(unsigned line);
void arch_irq_mask(unsigned line);
void arch_irq_unmask(unsigned line);

/* --- physical memory --------------------------------------------------------------------- */
/* The i-th range of the memory the platform has beyond the loader's map, [*start, *end):
 * false past the last.  Shared: device memory anyone may map (the PC's VGA window and option
 * ROMs, contract §7.2).  The kernel's devices: the pages of the interrupt controllers the
 * kernel drives (local APIC, I/O APICs), which are the kernel's like its own memory: the KIP
 * reserves them and sigma0 cannot map them (phys_kernel_reserved). */
bool arch_shared_memory(unsigned i, paddr_t *start, paddr_t *end);
bool arch_kernel_device(unsigned i, paddr_t *start, paddr_t *end);

/* --- I/O ports ------------------------------------------------------------------------------ */
/* The i-th range of ports [*base, *base + *size) of a device the kernel drives (the 8259
 * pair): never in sigma0's port space, so no task can reprogram the kernel's interrupt
 * controller (iospace_init_sigma0).  False past the last. */
bool arch_kernel_ports(unsigned i, uint32_t *base, uint32_t *size);

/* --- serial console (serial.c) ------------------------------------------------------------ */
void arch_serial_init(void);
void arch_serial_putc(char c);
int  arch_serial_getc(void);            /* -1: nothing received */

/* --- leaving the machine (reset.c) ---------------------------------------------------------- */
NORETURN void arch_reboot(void);
NORETURN void arch_qemu_exit(unsigned code);

#endif
